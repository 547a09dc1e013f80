"""What a bot sees and how it answers: one :class:`Decision` per turn, built from a seat's view.

A bot never holds the match, nor any copy of it. :func:`observe` is the only bridge: it
gives the seat's view (everything that seat may know), its own hand, the listed legal
actions when they are few, and callables a human has too: ``check`` (would this
action be accepted, and if not why), ``sample`` (some legal action) and, when choosing
cards to bury or return, ``options`` (which cards may be picked next), or following in
classic, ``listing`` (the legal plays, on demand). All are methods
of a :class:`SeatRules`, which holds the seat's position as plain field values
(:func:`~gunzi.engine.view.seat_fields`: no other hand, no unseen kitty, no deck, seed or
event log) and builds a throwaway position from them for each question, so nothing
reachable from a Decision is a match, an engine state or a card the seat may not see
(``tests/bots/test_decision_leak.py`` walks it). Bots are registered by name in
:mod:`gunzi.bots.registry` so every interface can list them.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gunzi.engine.actions import Action, Kind
from gunzi.engine.errors import GunziError
from gunzi.engine.match import Match
from gunzi.engine.rules import Ruleset
from gunzi.engine.view import position_from, seat_fields


@dataclass(frozen=True)
class Decision:
    """One decision of one seat, with everything the seat may use to make it."""

    seat: int
    kind: Kind
    rules: Ruleset
    view: Mapping[str, Any]
    hand: tuple[int, ...]  # own cards as 54 counts
    actions: tuple[Action, ...] | None  # every legal action, when listed eagerly
    count: int  # cards to choose for bury / return (0 otherwise)
    check: Callable[[Action], str | None]  # None if legal, else the engine's reason
    sample: Callable[[random.Random], Action]  # a random legal action
    # bury / return, card by card: the cards that may be added to those chosen so far with
    # a legal completion still possible (what a player's hand of clickable cards shows)
    options: Callable[[Sequence[int]], list[int]] | None = None
    # a classic follow (not listed eagerly: with a void it may be many): every legal play,
    # listed on demand
    listing: Callable[[], tuple[Action, ...]] | None = None


class SeatRules:
    """The engine's answers to one seat's questions about its own decision.

    It keeps only data the seat may know (the seat's fields, and the listed actions)
    and no engine object with state: each question is asked of a fresh position built
    from that data and dropped after the answer.
    """

    __slots__ = ("_fields", "actions", "seat")

    def __init__(self, fields: dict[str, Any], seat: int,
                 actions: tuple[Action, ...] | None) -> None:
        self._fields = fields
        self.seat = seat
        self.actions = actions

    def position(self) -> Match:
        """A new position from the seat's data (for one question; never played on)."""
        return position_from(Match, self._fields)

    def check(self, action: Action) -> str | None:
        """None if ``action`` would be accepted now, else the engine's reason."""
        try:
            self.position().verify(action)
        except GunziError as exc:
            return str(exc)
        return None

    def sample(self, rng: random.Random) -> Action:
        """A random legal action, exactly as the match's own legal actions would draw it
        (uniform over the listed actions; a random build otherwise)."""
        if self.actions:
            return rng.choice(self.actions)
        return self.position().legal_actions(self.seat).sample(rng)

    def options(self, chosen: Sequence[int]) -> list[int]:
        """Bury / return tribute: the cards that may join ``chosen`` (own cards already
        picked) with a legal choice still reachable; empty once ``chosen`` is complete."""
        return self.position().legal_actions(self.seat).selection().options(chosen)

    def listing(self) -> tuple[Action, ...]:
        """Every legal action, listed now (for a decision :func:`observe` did not list)."""
        return tuple(self.position().legal_actions(self.seat))


def observe(match: Match, seat: int) -> Decision:
    """The decision ``seat`` faces now (the seat must be the one to act)."""
    if match.to_act != seat:
        raise GunziError(f"seat {seat} has no decision to make now")
    fields = seat_fields(match, seat)
    legal = position_from(Match, fields, copy=False).legal_actions(seat)
    assert legal.kind is not None
    actions = tuple(legal) if legal.enumerable else None
    count = 0
    if legal.kind in (Kind.BURY, Kind.RETURN):
        count = legal.selection().count
    rules = SeatRules(fields, seat, actions)
    return Decision(
        seat=seat,
        kind=legal.kind,
        rules=match.rules,
        view=match.information_state(seat),
        hand=tuple(match.hands[seat]),
        actions=actions,
        count=count,
        check=rules.check,
        sample=rules.sample,
        options=rules.options if count else None,
        listing=rules.listing if actions is None and legal.kind is Kind.PLAY and match.trick
        else None,
    )


class Bot(ABC):
    """A player. ``choose`` must return a legal action for the decision."""

    name = "bot"
    # A bot that may think for milliseconds (rollouts): hall tables run its decisions in a
    # worker thread so that their event loop keeps serving the other tables meanwhile.
    thinks = False

    @abstractmethod
    def choose(self, decision: Decision, rng: random.Random) -> Action:
        """Answer one decision."""

    def new_hand(self) -> None:  # noqa: B027 (an optional hook, empty by default)
        """Forget per-hand memory (duplicate play resets bots between hands)."""


class RandomBot(Bot):
    """Uniform over listed actions, a random legal build otherwise."""

    name = "random"

    def choose(self, decision: Decision, rng: random.Random) -> Action:
        return decision.sample(rng)


def play(match: Match, bots: list[Bot], rng: random.Random, *, hands: int | None = None) -> None:
    """Let ``bots[seat]`` make every decision until the match ends (or ``hands`` more end)."""
    target = None if hands is None else len(match.results) + hands
    while not match.is_over and (target is None or len(match.results) < target):
        seat = match.to_act
        assert seat is not None and seat >= 0, "deal the hand first (auto_deal=False)"
        done = len(match.results)
        match.apply(bots[seat].choose(observe(match, seat), rng))
        if len(match.results) > done:
            for bot in bots:
                bot.new_hand()
