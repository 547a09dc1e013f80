"""Rollouts that let the rule bot play: each seat sees only its own hand and the table.

Rollout-based policy improvement (one-step lookahead over a base policy, à la
Tesauro & Galperin) needs rollouts played by the base policy itself. Here the base is
the rule bot's card play (:func:`gunzi.bots.rule_play.rule_play`), fed for every seat
a :class:`~gunzi.bots.rule_core.Table` built from a determinized position the way that
seat would see it: its own hand, the tricks, the hand sizes, the points, and the kitty
only if that seat knows it. After ``tricks`` finished tricks the rest of the hand is
played by the fast kernel of :mod:`gunzi.bots.rollout` (``tricks=None``: the rule bot
plays to the end).

The rule bot is optional: :func:`available` says whether it can be imported.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gunzi.bots.rollout import NCLS, Backend, Compact, Outcome
from gunzi.core import gunzi_rule
from gunzi.core.gunzi_play import GunziPlay, start
from gunzi.engine.cards import NUM_TYPES, Card
from gunzi.engine.order import Order
from gunzi.engine.rules import Ruleset

Play = tuple[Card, ...]
Trick = list[tuple[int, Play]]

try:  # optional: the search bot works without the rule bot
    from gunzi.bots.rule_core import Table
    from gunzi.bots.rule_play import rule_play
except ImportError:  # pragma: no cover - depends on what is installed
    Table = None  # type: ignore[assignment,misc]
    rule_play = None  # type: ignore[assignment]


def available() -> bool:
    return Table is not None and rule_play is not None


def current_trick(pos: Compact) -> Trick:
    return [((pos.leader + j) % 4, play) for j, play in enumerate(pos.trick_plays())]


def rule_rollout(
    pos: Compact,
    history: Sequence[Trick],
    rules: Ruleset,
    order: Order,
    kitty_public: bool,
    tricks: int | None,
    bk: Backend,
    params: Any = None,
) -> Outcome:
    """Play ``pos`` (changed in place) to the end of the hand; see the module docstring."""
    assert Table is not None and rule_play is not None
    hist: list[Trick] = list(history)
    cur = current_trick(pos)
    kitty = tuple(pos.kitty)
    done = 0
    ncls = pos.ncls
    while not pos.is_over and (tricks is None or done < tricks):
        s = pos.to_play
        sizes = [sum(ncls[q * NCLS:(q + 1) * NCLS]) for q in range(4)]
        table = Table(
            rules=rules, order=order, seat=s, dealer=pos.dealer, hand=pos.hand(s),
            trick=cur, history=hist, sizes=sizes, points=list(pos.points),
            kitty=kitty if (kitty_public or s == pos.dealer) else None,
        )
        play = rule_play(table, params)
        cur = [*cur, (s, play)]
        if pos.play(play) is not None:
            hist.append(cur)
            cur = []
            done += 1
    out, _ = pos.play_out(bk)
    return out


def core_memory(history: Sequence[Trick], trick: Trick, dealer: int, cls: Sequence[int],
                live: bool) -> gunzi_rule.Memory:
    """The public card memory after ``history`` (the finished tricks) and ``trick`` (the
    one in progress), computed once per decision: :func:`core_rollout` gives each
    rollout a copy with its own kitty."""
    mem = gunzi_rule.Memory([0] * NUM_TYPES, dealer, False)
    table = list(cls)
    for t in [*history, trick]:
        if not t:
            continue
        lead = tuple(t[0][1])
        led = table[lead[0]]
        mem.note(t[0][0], lead, 0, led, table, live)
        for seat, cards in t[1:]:
            mem.note(seat, tuple(cards), len(lead), led, table, live)
    return mem


def core_game(pos: Compact) -> GunziPlay:
    """``pos`` as a play-core position (the trick in progress replayed onto it)."""
    hands = [pos.hand(s) for s in range(4)]
    cur = current_trick(pos)
    for seat, cards in cur:
        for c in cards:
            hands[seat][c] += 1
    game = start(hands, pos.tables.order, pos.leader, pos.live)
    for _, cards in cur:
        game.play(tuple(cards))
    game.points = list(pos.points)
    game.last_winner = pos.last_winner
    return game


def core_rollout(pos: Compact, cards: Play, base: gunzi_rule.Memory, kitty_public: bool
                 ) -> Outcome:
    """Play ``cards`` for the seat to act in ``pos``, then the rest of the hand with the
    rule bot's play on the play core (:mod:`gunzi.core.gunzi_rule`), every seat seeing
    what it would see (the kitty: the dealer, and everyone if ``kitty_public``);
    ``base`` is :func:`core_memory` of ``pos`` (not changed)."""
    game = core_game(pos)
    mem = base.copy()
    mem.kitty_public = kitty_public
    kitty = [0] * NUM_TYPES
    for c in pos.kitty:
        kitty[c] += 1
    mem.set_kitty(kitty)
    mem.note_play(game, cards)
    game.play(cards)
    gunzi_rule.play_out(game, mem)
    end = pos.copy()
    end.points = list(game.points)
    end.last_winner = game.last_winner
    return end.outcome()


def engine_rollout(match: Any, params: Any = None) -> dict[str, Any]:
    """Let the rule bot play every seat of a :class:`~gunzi.engine.match.Match` (built with
    :func:`gunzi.engine.position.play_position`) to the end of the hand; the engine
    validates every play and scores the hand. Returns the hand's result."""
    assert Table is not None and rule_play is not None
    from gunzi.bots.rule_core import table_from_match
    from gunzi.engine.actions import play

    done = len(match.results)
    while len(match.results) == done:
        seat = match.current
        match.apply(play(seat, rule_play(table_from_match(match, seat), params)))
    result: dict[str, Any] = match.results[-1]
    return result
