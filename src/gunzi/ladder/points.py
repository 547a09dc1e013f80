"""Ladder points per seat for what a hand or game closes (docs/rules.md A12 and Part C). Pure.

打滚子 scores every hand (A12: the engine's ``hand_scores``); classic 升级 scores
a game once it is over (Part C: the engine's ``game_points`` when a team passes
A), or when the table stops at its hand limit in the middle of a game: that game
is scored where it stopped, by the same Part C rule on the levels reached.
步步为营 scores each finished game (a choice, docs/ladder.md): see :func:`quoridor_points`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from gunzi.engine.scoring import classic_game_points
from gunzi.engine.variant import variant_of

if TYPE_CHECKING:
    from gunzi.engine.match import Match
    from gunzi.engine.rules import Ruleset

GUNZI = "gunzi"
CLASSIC = "classic"
QUORIDOR = "quoridor"
GAMES = (GUNZI, CLASSIC, QUORIDOR)  # one ladder per game type

Points = tuple[int, int, int, int]


def game_of(rules: Ruleset) -> str:
    """The ladder a table's results go to."""
    return variant_of(rules).name


def classic_points(gained: Sequence[int], final: Sequence[int],
                   failed_throws: Sequence[int]) -> Points:
    """Part C per seat: +1 per level the own team gained, ±2 per level of final difference,
    −1 per own failed throw (seats 0 and 2 are team 0)."""
    g = (gained[0], gained[1])
    f = (final[0], final[1])
    p = [classic_game_points(g, f, s % 2) - failed_throws[s] for s in range(4)]
    return (p[0], p[1], p[2], p[3])


def closed_points(match: Match, *, table_ends: bool) -> Points | None:
    """Per-seat points of what the match's last hand closed, or None if nothing is scored yet
    (a classic game that goes on). Call right after a hand ends; ``table_ends``: the table
    stops after this hand (its hand limit)."""
    result = match.results[-1]
    if match.variant.hand_scores:
        s = result["hand_scores"]
        return (s[0], s[1], s[2], s[3])
    if "game_points" in result:
        g = result["game_points"]
        return (g[0], g[1], g[2], g[3])
    if table_ends:  # failed throws cost a ladder point only under [I-28] 'ladder'
        charged = match.failed_throws if match.rules.throw_penalty == "ladder" else (0,) * 4
        return classic_points(match.gained, match.levels, charged)
    return None


def quoridor_points(players: int, winner: int | None) -> tuple[int, ...]:
    """步步为营 per seat: two players, the winner +2 and the loser −2; four players, the
    winner +3 and each other −1 (both sum to 0); a draw (the turn limit) 0 for everyone."""
    if winner is None:
        return (0,) * players
    win, lose = (2, -2) if players == 2 else (players - 1, -1)
    return tuple(win if s == winner else lose for s in range(players))
