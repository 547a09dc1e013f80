"""What a bot sees and how it answers: one :class:`Decision` per turn, built from a seat's view.

A bot never holds the match. :func:`observe` is the only bridge: it gives the
seat's view (everything that seat may know), its own hand, the listed legal
actions when they are few, and two closures a human has too: ``check`` (would
this action be accepted, and if not why) and ``sample`` (some legal action),
both answered from the seat's own position (:func:`~gunzi.engine.view.seat_position`:
a copy without the other hands, the unseen kitty, the deck or the event log), so
nothing reachable from a Decision holds a card the seat may not see. Bots are registered by name in
:mod:`gunzi.bots.registry` so every interface can list them.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from gunzi.engine.actions import Action, Kind
from gunzi.engine.errors import GunziError
from gunzi.engine.match import Match
from gunzi.engine.rules import Ruleset
from gunzi.engine.view import seat_position


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


def observe(match: Match, seat: int) -> Decision:
    """The decision ``seat`` faces now (the seat must be the one to act)."""
    if match.to_act != seat:
        raise GunziError(f"seat {seat} has no decision to make now")
    own = seat_position(match, seat)
    legal = own.legal_actions(seat)
    assert legal.kind is not None
    actions = tuple(legal) if legal.enumerable else None
    count = 0
    if legal.kind in (Kind.BURY, Kind.RETURN):
        count = legal.selection().count

    def check(action: Action) -> str | None:
        try:
            own.verify(action)
        except GunziError as exc:
            return str(exc)
        return None

    return Decision(
        seat=seat,
        kind=legal.kind,
        rules=match.rules,
        view=match.information_state(seat),
        hand=tuple(match.hands[seat]),
        actions=actions,
        count=count,
        check=check,
        sample=legal.sample,
    )


class Bot(ABC):
    """A player. ``choose`` must return a legal action for the decision."""

    name = "bot"

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
