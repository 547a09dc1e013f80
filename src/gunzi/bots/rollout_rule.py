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
from gunzi.engine.cards import Card
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
