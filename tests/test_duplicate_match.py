"""复式 (duplicate) matches: each board dealt twice with the teams swapped, fresh levels, and
the first play's secrets kept until the board is done."""

from __future__ import annotations

import random

import pytest

from gunzi.engine import actions as A
from gunzi.engine import records
from gunzi.engine.errors import IllegalActionError, InvalidRulesError
from gunzi.engine.match import CHANCE, Match, Phase
from gunzi.engine.rules import preset
from gunzi.engine.view import stream
from helpers import random_policy


def _hand_start(m: Match) -> tuple[int | None, list[int], int]:
    return m.dealer, list(m.levels), m.tribute_n


def _play_hand(m: Match, rng: random.Random) -> list[list[int]]:
    """Play the current hand with random moves; return the four hands as the draw ended."""
    policy = random_policy(rng)
    drawn: list[list[int]] = []
    while m.phase is not Phase.DEAL and not m.is_over:
        seat = m.current
        assert seat is not None and seat != CHANCE
        m.apply(policy(m, seat))
        if not drawn and m.phase is not Phase.DRAW:
            drawn = [list(h) for h in m.hands]
    return drawn


@pytest.mark.parametrize("name", ["gunzi", "classic-2"])
def test_each_board_is_dealt_twice_one_seat_on(name: str) -> None:
    rules = preset(name, duplicate=2)
    m = Match(rules, random.Random(5), auto_deal=False)
    rng = random.Random(9)
    seeds = [11, 11, 12**30, 12**30]
    starts, draws = [], []
    for seed in seeds:
        m.apply(A.deal(seed))
        starts.append(_hand_start(m))
        draws.append(_play_hand(m, rng))
    assert m.is_over and len(m.results) == 4
    assert [(r["board"], r["play"]) for r in m.results] == [(1, 1), (1, 2), (2, 1), (2, 2)]
    first = rules.first_level
    for (dealer, levels, blood), seed, play in zip(starts, seeds, [0, 1, 0, 1], strict=True):
        assert levels == [first, first] and blood == 0
        assert dealer == (seed % 4 + play) % 4
    for board in (0, 2):  # the second play: seat s+1 drew exactly what seat s drew
        assert draws[board] and draws[board + 1]
        for s in range(4):
            assert draws[board + 1][(s + 1) % 4] == draws[board][s]


def test_second_play_must_repeat_the_deal() -> None:
    m = Match(preset("classic-1", duplicate=1), random.Random(1), auto_deal=False)
    m.apply(A.deal(77))
    _play_hand(m, random.Random(2))
    with pytest.raises(IllegalActionError) as exc:
        m.apply(A.deal(78))
    assert exc.value.rule == "duplicate" and "seed" in str(exc.value)
    assert m.hand_no == 1 and m.phase is Phase.DEAL  # nothing changed
    assert m.deal_seed(78) == 77
    m.apply(A.deal(77))
    _play_hand(m, random.Random(3))
    assert m.is_over


def test_auto_deal_repeats_boards_and_ends_after_them() -> None:
    m = Match(preset("gunzi", duplicate=1), random.Random(4))
    rng = random.Random(6)
    _play_hand(m, rng)
    first_seed = m.seed
    _play_hand(m, rng)
    assert m.is_over and len(m.results) == 2
    deals = [e for e in m.events if e.type == "deal"]
    assert deals[0].secret == deals[-1].secret and first_seed == m.seed


def test_first_play_stays_secret_until_the_board_is_done() -> None:
    m = Match(preset("classic-1", duplicate=2), random.Random(1), auto_deal=False)
    m.apply(A.deal(1234))
    _play_hand(m, random.Random(2))
    assert m.phase is Phase.DEAL and m.revealed_hands() == 0
    assert records.finished_events(m) == []
    for seat in (None, 0, 1, 2, 3):
        for ev in stream(m, seat):
            assert "deck" not in ev and "seed" not in ev, ev
    m.apply(A.deal(1234))
    _play_hand(m, random.Random(3))
    assert m.revealed_hands() == 2
    assert any("deck" in e for e in records.finished_events(m))
    # An ordinary match reveals each hand as soon as it is over.
    plain = Match(preset("classic-1"), random.Random(1), auto_deal=False)
    plain.apply(A.deal(1234))
    _play_hand(plain, random.Random(2))
    assert plain.revealed_hands() == 1


def test_duplicate_is_a_named_option() -> None:
    with pytest.raises(InvalidRulesError) as exc:
        preset("gunzi", duplicate=5)
    assert "duplicate" in str(exc.value) and "24" in str(exc.value)
    assert preset("gunzi").duplicate == 0


def _kitty_names(m: Match) -> list[str]:
    """The hand's final kitty, read from the match itself (not from any result)."""
    from gunzi.engine import cards as C
    return sorted(C.names(m.kitty))


@pytest.mark.parametrize("name", ["gunzi", "classic-1"])
def test_first_play_kitty_is_withheld_during_the_second_play(name: str) -> None:
    from gunzi.engine.view import seat_position, view
    m = Match(preset(name, duplicate=1), random.Random(1), auto_deal=False)
    m.apply(A.deal(777))
    policy = random_policy(random.Random(4))
    while m.phase is not Phase.DEAL:
        seat = m.current
        assert seat is not None and seat != CHANCE
        m.apply(policy(m, seat))
    # The record's truth, independently: the kitty left on the table when hand 1 ended.
    kitty1 = _kitty_names(m)
    assert kitty1
    assert m.sealed(1) and not m.sealed(2)

    def no_first_kitty(seat: int | None) -> None:
        v = view(m, seat)
        last = v["last_result"]
        assert last is not None and last["play"] == 1
        assert not {"kitty", "kitty_points", "kitty_jokers"} & set(last), last
        for ev in stream(m, seat):
            if ev["hand"] == 1:
                # Only public parts, even for the seat that drew, took or buried them:
                # no draw card, no taken or buried cards, no kitty in the result.
                assert not {"card", "seed", "deck"} & set(ev), ev
                if ev["type"] in ("take_kitty", "bury"):
                    assert "cards" not in ev, ev
                if ev["type"] == "hand_end":
                    assert not {"kitty", "kitty_points", "kitty_jokers"} & set(ev), ev

    for seat in (None, 0, 1, 2, 3):
        no_first_kitty(seat)
        if seat is not None:
            assert "kitty" not in seat_position(m, seat).results[0]
    m.apply(A.deal(777))
    policy = random_policy(random.Random(5))
    steps = 0
    while m.phase is not Phase.OVER:
        seat = m.current
        assert seat is not None and seat != CHANCE
        m.apply(policy(m, seat))
        steps += 1
        if steps % 25 == 0 and m.phase is not Phase.OVER:
            for r in (None, 0, 1, 2, 3):
                no_first_kitty(r)
            if m.current is not None and m.current >= 0:
                assert "kitty" not in seat_position(m, m.current).results[0]
    # The board is done: the first play's result and events are complete again.
    first_end = next(e for e in stream(m, None) if e["type"] == "hand_end" and e["hand"] == 1)
    assert sorted(first_end["kitty"]) == kitty1
    assert view(m, 0)["last_result"]["kitty"] is not None
    rec = [e for e in records.finished_events(m) if e["type"] == "hand_end"]
    assert len(rec) == 2 and sorted(rec[0]["kitty"]) == kitty1


def test_ordinary_match_shows_the_kitty_at_hand_end() -> None:
    from gunzi.engine.view import view
    m = Match(preset("classic-1"), random.Random(1), auto_deal=False)
    m.apply(A.deal(777))
    _play_hand(m, random.Random(4))
    kitty = _kitty_names(m)
    for seat in (None, 0, 2):
        end = next(e for e in stream(m, seat) if e["type"] == "hand_end")
        assert sorted(end["kitty"]) == kitty
        assert sorted(view(m, seat)["last_result"]["kitty"]) == kitty
