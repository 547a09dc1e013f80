"""The 25 titles (50·k², 诺贝尔 [I-13]) and the team-aware rating update."""

from __future__ import annotations

import pytest

from gunzi.engine.errors import InvalidRulesError
from gunzi.ladder import rating
from gunzi.ladder.result import LadderResult, bot_key, key_of_ref, ref_of_key, solo, user_key
from gunzi.ladder.titles import NAMES, LadderRules, title_for, titles


def test_titles_thresholds_are_fifty_k_squared() -> None:
    rows = titles()
    assert len(rows) == 25 == len(NAMES)
    assert [th for _, th in rows] == [50 * k * k for k in range(25)]
    assert rows[0] == ("幼小班", 0) and rows[3] == ("学前班", 450)
    assert rows[23] == ("院士", 26450) and rows[24] == ("诺贝尔", 28800)


@pytest.mark.parametrize(("total", "name"), [
    (-1000, "幼小班"), (-1, "幼小班"), (0, "幼小班"), (49, "幼小班"), (50, "幼中班"),
    (199, "幼中班"), (200, "幼大班"), (5000, "初一"), (28799, "院士"), (28800, "诺贝尔"),
    (10**9, "诺贝尔"),
])
def test_title_for_total(total: int, name: str) -> None:
    assert title_for(total) == name


def test_nobel_threshold_option() -> None:
    assert title_for(30000, LadderRules(nobel_threshold=40000)) == "院士"
    with pytest.raises(InvalidRulesError):
        LadderRules(nobel_threshold=26450)


def test_winners_gain_losers_lose_and_a_draw_keeps_equals_equal() -> None:
    start = dict.fromkeys("abcd", rating.START)
    new = rating.update("abcd", (4, -4), start)  # seats 0, 2 (a, c) win
    assert new["a"][0] > rating.START[0] and new["c"][0] > rating.START[0]
    assert new["b"][0] < rating.START[0] and new["d"][0] < rating.START[0]
    assert all(sg < rating.START[1] for _, sg in new.values())
    assert new["a"][0] - 25 == pytest.approx(25 - new["b"][0])
    draw = rating.update("abcd", (0, 0), start)
    assert all(mu == pytest.approx(rating.START[0]) for mu, _ in draw.values())
    assert rating.update("abcd", (-2, 2), start)["b"][0] == pytest.approx(new["a"][0])


def test_a_bot_on_several_seats_moves_by_the_mean_of_its_seats() -> None:
    start = {"u": rating.START, "bot": rating.START}
    new = rating.update(["u", "bot", "bot", "bot"], (3, -3), start)
    plain = rating.update("abcd", (3, -3), dict.fromkeys("abcd", rating.START))
    mean = (plain["b"][0] + plain["c"][0] + plain["d"][0]) / 3
    assert new["bot"][0] == pytest.approx(mean)
    assert new["u"][0] == pytest.approx(plain["a"][0])
    assert rating.ordinal(*rating.START) == pytest.approx(0.0)


def test_player_keys_and_refs() -> None:
    assert key_of_ref("12") == user_key(12) == "u:12"
    assert key_of_ref("rule") == key_of_ref("bot:rule") == bot_key("rule")
    assert key_of_ref("Robert'); DROP") is None and key_of_ref("") is None
    assert ref_of_key("u:12") == "12" and ref_of_key("bot:random") == "random"
    r = LadderResult("gunzi", "t", 1, ("u:1", "bot:rule", "bot:rule", "bot:rule"),
                     (4, -4, 4, -4), True)
    assert r.team_points() == (8, -8)


def test_free_for_all_ranks_every_seat_by_its_points() -> None:
    start = dict.fromkeys("abcd", rating.START)
    seats = solo(4)
    assert rating.team_ranks((-1, -1, 3, -1)) == [2.0, 2.0, 1.0, 2.0]
    new = rating.update("abcd", (-1, -1, 3, -1), start, seats)
    assert new["c"][0] > rating.START[0]
    assert new["a"][0] < rating.START[0]
    assert new["a"][0] == pytest.approx(new["b"][0]) == pytest.approx(new["d"][0])
    two = rating.update("ab", (2, -2), dict.fromkeys("ab", rating.START), solo(2))
    assert two["a"][0] > 25 and two["a"][0] - 25 == pytest.approx(25 - two["b"][0])
    r = LadderResult("quoridor", "t", 1, ("u:1", "bot:rule"), (2, -2), True, solo(2))
    assert r.team_points() == (2, -2)
