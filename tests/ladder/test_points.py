"""Ladder points: A12 per 打滚子 hand, Part C per classic game (also one cut short)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from gunzi.engine.match import Match
from gunzi.engine.rules import preset
from gunzi.ladder.points import (
    CLASSIC,
    GUNZI,
    classic_points,
    closed_points,
    game_of,
    quoridor_points,
)


def _a12(result: dict[str, Any], before_cap: bool) -> list[int]:
    """docs/rules.md A12 read straight off a hand's result record (the test's own oracle)."""
    at = result["attackers"]
    dt = 1 - at
    out = [0, 0, 0, 0]
    score, kou = result["score"], result["kou"]
    team = at if (kou and score >= 120) else dt if (not kou and score < 120) else None
    if team is not None:
        lv = (result["levels_awarded"] if before_cap
              else result["levels_after"][team] - result["levels_before"][team])
        for s in range(4):
            out[s] += 3 * lv if s % 2 == team else -3 * lv
    if result["attackers_take"]:
        for s in range(4):
            out[s] += 1 if s % 2 == at else -1
    trib = result["tribute"]
    if trib["n"]:
        for s in range(4):
            out[s] += trib["n"] if s % 2 == trib["to"] % 2 else -trib["n"]
    return out


def _hands(m: Match, rng: random.Random, limit: int) -> list[dict[str, Any]]:
    """Play random legal actions; after each hand, what the ladder would score."""
    seen = []
    while not m.is_over and len(m.results) < limit:
        n = len(m.results)
        seat = m.current
        assert seat is not None
        m.apply(m.legal_actions(seat).sample(rng))
        if len(m.results) > n:
            seen.append({"result": m.results[-1], "open": closed_points(m, table_ends=False),
                         "ends": closed_points(m, table_ends=True),
                         "state": (list(m.gained), list(m.levels), list(m.failed_throws))})
    return seen


@pytest.mark.parametrize("before_cap", [True, False])
def test_gunzi_hand_points_follow_a12(before_cap: bool) -> None:
    rules = preset("gunzi", score_levels_before_cap=before_cap, rounds=10)
    assert game_of(rules) == GUNZI
    seen = _hands(Match(rules, random.Random(5)), random.Random(6), 40)
    assert len(seen) == 40
    assert any(h["result"]["round_winner"] is not None for h in seen)  # across round ends
    kinds = set()
    for h in seen:
        want = _a12(h["result"], before_cap)
        assert list(h["open"]) == want == list(h["ends"])
        assert sum(want) == 0 and want[0] == want[2] and want[1] == want[3]
        kinds.add((h["result"]["attackers_take"], h["result"]["tribute"]["n"] > 0))
    assert len(kinds) >= 3  # takes and keeps, with and without tribute were all scored


def test_classic_points_part_c_on_constructed_games() -> None:
    # Team 0 gained 3 levels and ends 8 levels above team 1, which gained 1; seat 0 failed
    # one throw, seat 3 two.
    assert classic_points((3, 1), (13, 5), (1, 0, 0, 2)) == (3 + 16 - 1, 1 - 16, 19, -17)
    assert classic_points((0, 0), (0, 0), (0, 0, 0, 0)) == (0, 0, 0, 0)
    # Equal final levels: only the levels gained and the failed throws count.
    assert classic_points((2, 4), (6, 6), (0, 1, 0, 0)) == (2, 3, 2, 4)


def test_classic_games_score_once_at_the_end_or_where_the_table_stops() -> None:
    rules = preset("classic-1")
    assert game_of(rules) == CLASSIC
    seen = _hands(Match(rules, random.Random(3)), random.Random(4), 400)
    finished = [h for h in seen if "game_points" in h["result"]]
    assert finished, "the random game reached A"
    for h in seen:
        if "game_points" in h["result"]:
            assert list(h["open"]) == h["result"]["game_points"] == list(h["ends"])
            winner = h["result"]["round_winner"]
            assert h["result"]["levels_after"][winner] == rules.last_level + 1  # passed A
            assert sum(h["ends"][s] for s in (winner, winner + 2)) > 0
        else:
            assert h["open"] is None  # the game goes on: nothing scored
            gained, levels, failed = h["state"]
            assert h["ends"] == classic_points(gained, levels, failed)


@pytest.mark.parametrize(("players", "winner", "points"), [
    (2, 0, (2, -2)), (2, 1, (-2, 2)), (2, None, (0, 0)),
    (4, 2, (-1, -1, 3, -1)), (4, None, (0, 0, 0, 0)),
])
def test_quoridor_points_sum_to_zero(players: int, winner: int | None,
                                     points: tuple[int, ...]) -> None:
    got = quoridor_points(players, winner)
    assert got == points and sum(got) == 0
