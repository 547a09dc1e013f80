"""The 打滚子 play core against the reference engine, move for move, on seeded games."""

from __future__ import annotations

import random

import pytest

from gunzi.core.gunzi_play import play_random, start
from gunzi.engine.actions import Kind
from gunzi.engine.match import Match
from gunzi.engine.rules import Ruleset, preset

from .positions import replay_random, to_play

VARIANTS = [
    {"follow": "dead"},
    {"follow": "live"},
    {"follow": "dead", "permanent_twos": False},
    {"follow": "live", "permanent_twos": False},
]


def _check_hand(match: Match, rng: random.Random) -> None:
    """Play one hand in both, drawing each play from the engine's list; compare all."""
    core = start(match.hands, match.order, match.leader, match.live)
    hands_before = len(match.results)
    while len(match.results) == hands_before:
        seat = match.to_act
        assert seat == core.turn
        engine_plays = [a for a in match.legal_actions(seat)]
        assert all(a.kind is Kind.PLAY for a in engine_plays)
        expected = sorted(tuple(sorted(a.cards)) for a in engine_plays)
        listed = core.legal()
        assert sorted(tuple(sorted(p)) for p in listed) == expected
        assert len(listed) == len(expected)  # distinct, as the engine's
        action = engine_plays[rng.randrange(len(engine_plays))]
        seen = len(match.events)
        match.apply(action)
        won = core.play(tuple(action.cards))
        ends = [e.public for e in match.events[seen:] if e.type == "trick"]
        assert won == (ends[0]["winner"] if ends else -1)
        if len(match.results) == hands_before:
            assert core.points == match.points
            assert core.hand(seat) == match.hands[seat]
        else:
            result = match.results[-1]
            ateam = result["attackers"]
    assert core.is_over
    assert result["kou"] == (core.last_winner % 2 == ateam)
    assert result["trick_points"] == core.points[ateam]


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: "-".join(map(str, v.values())))
def test_core_agrees_with_engine(variant: dict[str, object]) -> None:
    rules: Ruleset = preset("gunzi").replace(**variant)
    hands = 0
    seed = 0
    while hands < 250:  # up to 15 hands of each seeded match
        rng = random.Random(seed)
        match = Match(rules, random.Random(seed * 7919 + 1))
        for _ in range(15):
            if not to_play(match, rng):
                break
            _check_hand(match, rng)
            hands += 1
        seed += 1
    assert hands >= 250


def test_random_playout_is_reproducible_and_complete() -> None:
    match = Match(preset("gunzi"), random.Random(3))
    assert to_play(match, random.Random(4))
    total = sum(sum(h) for h in match.hands)
    games = [play_random(start(match.hands, match.order, match.leader, False),
                         random.Random(9)) for _ in range(2)]
    assert games[0].winners == games[1].winners and games[0].points == games[1].points
    assert games[0].is_over and not any(games[0].h)
    assert len(games[0].winners) >= total // 12  # at most 3 cards a seat per trick
    from gunzi.engine.cards import POINTS
    held_points = sum(POINTS[c] * k for h in match.hands for c, k in enumerate(h))
    assert sum(games[0].points) == held_points  # every card point goes to a team


def test_pick_is_the_listed_play_at_that_fraction() -> None:
    """pick(u) skips listing for leads and single follows; it must equal legal()[int(u*n)]."""
    rng = random.Random(8)
    match = Match(preset("gunzi").replace(follow="live"), random.Random(8))
    assert to_play(match, rng)
    checked = 0
    for _ in range(30):
        game = start(match.hands, match.order, int(rng.random() * 4), bool(_ % 2))
        while not game.is_over:
            plays = game.legal()
            for u in (0.0, 0.999999, rng.random(), rng.random()):
                assert game.pick(u) == plays[int(u * len(plays))]
                checked += 1
            game.play(plays[int(rng.random() * len(plays))])
    assert checked > 1000


@pytest.mark.parametrize("follow", ["dead", "live"])
def test_random_core_games_replay_through_the_engine(follow: str) -> None:
    """Games the core plays by itself (pick()) are legal for the engine, trick for trick,
    and the engine's hand result has the core's points and 扣底."""
    for seed in range(25):
        rng = random.Random(seed)
        match = Match(preset("gunzi").replace(follow=follow), random.Random(seed + 100))
        assert to_play(match, rng)
        game = start(match.hands, match.order, match.leader, match.live)
        replay_random(match, game, play_random, random.Random(seed))
