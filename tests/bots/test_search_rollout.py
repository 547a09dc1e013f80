"""Differential tests: the compact rollout rules agree with the engine move for move."""

from __future__ import annotations

import random

import pytest

from gunzi.bots.rollout import Compact, backend, compact_of, random_play_out, tables_for
from gunzi.engine import actions as A
from gunzi.engine.cards import BJ, LJ, NUM_TYPES
from gunzi.engine.match import Match, Phase
from gunzi.engine.position import position_of
from gunzi.engine.rules import preset
from gunzi.engine.view import view


def _at_play(seed: int, follow: str = "dead", extra: int = 0) -> Match:
    rng = random.Random(seed)
    m = Match(preset("gunzi", follow=follow), random.Random(seed))
    while m.phase is not Phase.PLAY:
        seat = m.to_act
        assert seat is not None
        m.apply(m.legal_actions(seat).sample(rng))
    for _ in range(extra):
        seat = m.to_act
        assert seat is not None
        m.apply(m.legal_actions(seat).sample(rng))
    assert m.phase is Phase.PLAY
    return m


def _same_result(result: dict[str, object], pos: Compact) -> None:
    out = pos.outcome()
    assert (result["score"], result["kou"], result["levels_awarded"],
            result["attackers_take"]) == (out.score, out.kou, out.levels, out.attackers_take)


@pytest.mark.parametrize("follow", ["dead", "live"])
def test_legal_plays_and_winners_agree_with_the_engine_on_random_games(follow: str) -> None:
    """Random players drive the engine; at every play the compact rules list the same legal
    plays, name the same winner so far, and score the hand the same way."""
    for seed in range(6):
        rng = random.Random(100 + seed)
        m = _at_play(seed, follow)
        pos = compact_of(m)
        while not m.results:
            seat = m.to_act
            assert seat is not None and pos.to_play == seat
            engine = sorted(a.cards for a in m.legal_actions(seat))
            assert pos.legal() == engine
            if m.trick:
                assert pos.winner_so_far() == view(m, None)["trick"]["winning"]
            action = m.legal_actions(seat).sample(rng)
            won = pos.play(action.cards)
            m.apply(action)
            if won is not None and not m.results:  # (after the last trick a new hand starts)
                assert won == m.tricks[-1]["winner"]
                assert pos.points == m.points
            for s in range(4):
                if not m.results:
                    assert pos.hand(s) == m.hands[s]
        assert pos.is_over
        _same_result(m.results[0], pos)


@pytest.mark.parametrize("follow", ["dead", "live"])
def test_kernel_policy_moves_are_legal_and_scored_like_the_engine(follow: str) -> None:
    """The kernel policy chooses every move for both the compact position and the engine
    (which validates it): same states after every move, same hand result."""
    for seed in range(8):
        m = _at_play(seed, follow, extra=seed * 5)
        pos = compact_of(m)
        while not m.results:
            seat = m.to_act
            assert seat is not None
            cards = pos.policy_play()
            m.apply(A.play(seat, cards))  # validated by the engine
            pos.play(cards)
            if not m.results:
                assert [pos.hand(s) for s in range(4)] == m.hands
                assert pos.points == m.points
        _same_result(m.results[0], pos)


def test_play_out_replays_on_the_engine() -> None:
    """A whole recorded play-out (kernel loop) replays legally on the engine."""
    for seed in range(10):
        m = _at_play(seed, extra=seed * 7)
        out, moves = compact_of(m).play_out(record=True)
        for seat, cards in moves:
            assert m.to_act == seat
            m.apply(A.play(seat, cards))
        assert m.results
        r = m.results[0]
        assert (r["score"], r["kou"], r["levels_awarded"]) == (out.score, out.kou, out.levels)


def test_numba_kernel_agrees_with_python_move_for_move() -> None:
    pytest.importorskip("numba")
    nb = backend("numba")
    assert nb.name == "numba"
    for seed in range(6):
        pos = compact_of(_at_play(seed, extra=seed * 9))
        a = pos.play_out(backend("python"), record=True)
        b = pos.play_out(nb, record=True)
        assert a == b


def test_kitty_jokers_and_dry_pot_are_scored_like_the_engine() -> None:
    """Move a joker into the kitty (a legal-looking position built with play_position)
    and play out randomly on both sides: kitty jokers add levels only on an upgrade."""
    checked = 0
    for seed in range(40):
        m = _at_play(seed, extra=seed % 5)
        holder = next((s for s in range(4) if m.hands[s][BJ] or m.hands[s][LJ]), None)
        if holder is None:
            continue
        joker = BJ if m.hands[holder][BJ] else LJ
        hands = [list(h) for h in m.hands]
        kitty = list(m.kitty)
        swap = kitty[0]
        kitty[0] = joker
        hands[holder][joker] -= 1
        hands[holder][swap] += 1
        twin = position_of(m, hands=hands, kitty=kitty)
        twin.dry_pot = bool(seed % 3 == 0)
        t = tables_for(twin.level, twin.trump, twin.rules.permanent_twos)
        pos = Compact(t, hands, kitty, twin.dealer or 0, twin.leader,
                      [p for _, p in twin.trick], twin.points,
                      twin.tricks[-1]["winner"] if twin.tricks else -1, dry_pot=twin.dry_pot)
        rng = random.Random(seed)
        while not twin.results:
            seat = twin.to_act
            assert seat is not None
            action = twin.legal_actions(seat).sample(rng)
            twin.apply(action)
            pos.play(action.cards)
        _same_result(twin.results[0], pos)
        checked += 1
    assert checked >= 10


def test_random_play_out_and_tables() -> None:
    m = _at_play(3)
    pos = compact_of(m)
    out = random_play_out(pos, random.Random(1))
    assert out.score >= 0
    assert sum(pos.hands) == sum(sum(h) for h in m.hands)  # the original is untouched
    t = tables_for(m.level, m.trump, True)
    assert sorted(c for k in range(5) for c in t.members[k * NUM_TYPES:k * NUM_TYPES
                                                         + t.mlen[k]]) == list(range(54))
