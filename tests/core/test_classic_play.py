"""The classic 升级 play core against the reference engine, move for move, on seeded games.

CI plays ``GUNZI_CORE_HANDS`` (default 150) hands per preset, spread over the rule
variants of that preset, and lists every decision with at most ``GUNZI_CORE_CAP``
legal plays (150); set them higher for a long run (docs/performance.md).
"""

from __future__ import annotations

import os
import random
from collections import Counter
from itertools import islice

import pytest

from gunzi.core.classic_play import ClassicPlay, play_random, random_deal, start
from gunzi.engine import classic_tricks as CT
from gunzi.engine.classic_policy import policy_of
from gunzi.engine.match import Match
from gunzi.engine.rules import preset

from .positions import replay_random, to_play

HANDS = int(os.environ.get("GUNZI_CORE_HANDS", "150"))
# Positions with more legal plays than this compare the single units only (the throws
# make leads long lists; the long run raises it).
CAP = int(os.environ.get("GUNZI_CORE_CAP", "150"))

# Every classic preset, and each trick-rule option's other values where the preset allows.
VARIANTS: dict[str, list[dict[str, object]]] = {
    "classic-1": [{}, {"kitty_multiplier": "power"}],
    "classic-2": [
        {},
        {"tractor_min_length": 3},
        {"break_longer_tractor": False},
        {"short_tractor_follow": "pairs"},
        {"draw_protection": "no-format"},
        {"trump_structure": "cover"},
        {"throw_compare": "every-unit"},
        {"throw_compare": "highest-card", "kitty_multiplier": "unit-size"},
    ],
    "classic-3": [
        {},
        {"triple_tractors": False},
        {"draw_protection": "longer-tuples"},
        {"trump_structure": "cover-triples", "kitty_multiplier": "doubling"},
        {"break_longer_tractor": False, "short_tractor_follow": "pairs"},
        {"tractor_min_length": 3, "throw_compare": "every-unit"},
    ],
}


def _core_of(match: Match) -> ClassicPlay:
    return start(match.hands, match.order, match.leader, policy_of(match.rules))


def _check_hand(match: Match, rng: random.Random, seen: Counter[str]) -> None:
    """Play one hand in both, the engine's random player choosing; compare everything."""
    core = _core_of(match)
    hands_before = len(match.results)
    while len(match.results) == hands_before:
        seat = match.to_act
        assert seat == core.turn
        legal = match.legal_actions(seat)
        listed = [tuple(a.cards) for a in islice(legal, CAP + 1)]
        leading = not core.trick
        if len(listed) <= CAP:
            mine = core.legal()
            assert sorted(mine) == sorted(listed)
            assert len(set(mine)) == len(mine)
            seen["full lists"] += 1
        elif leading:  # the engine lists its single units first, then the throws
            units = core.units()
            assert listed[:len(units)] == units
            seen["unit lists"] += 1
        else:  # a long throw followed by a seat short of its class: fillers galore
            seen["unlisted follows"] += 1
        action = legal.sample(rng)
        cards = tuple(action.cards)
        before = list(core.trick)
        events = len(match.events)
        match.apply(action)
        won = core.play(cards)
        ends = [e.public for e in match.events[events:] if e.type == "trick"]
        assert won == (ends[0]["winner"] if ends else -1)
        if leading and core.lead_cards != cards:
            seen["failed throws"] += 1
        if ends and len(match.results) == hands_before:  # (a hand's end clears its tricks)
            assert [tuple(p) for p in match.tricks[-1]["plays"]] == [*before, cards]
        else:
            assert [c for _, c in match.trick] == core.trick
        if len(match.results) == hands_before:
            assert core.points == match.points
            assert core.hand(seat) == match.hands[seat]
    result = match.results[-1]
    ateam = result["attackers"]
    assert core.is_over
    assert result["kou"] == (core.last_winner % 2 == ateam)
    assert result["trick_points"] == core.points[ateam]
    assert result["failed_throws"] == core.failed
    if result["kou"]:
        assert result["kitty_multiplier"] == core.kitty_multiplier(match.rules.kitty_multiplier)
    seen["hands"] += 1


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_core_agrees_with_engine(name: str) -> None:
    variants = VARIANTS[name]
    seen: Counter[str] = Counter()
    seed = 0
    while seen["hands"] < HANDS:
        rules = preset(name).replace(**variants[seed % len(variants)])
        rng = random.Random(seed)
        match = Match(rules, random.Random(seed * 7919 + 1))
        for _ in range(4):  # up to 4 hands of each seeded match
            if not to_play(match, rng) or seen["hands"] >= HANDS:
                break
            _check_hand(match, rng, seen)
        seed += 1
    assert seen["full lists"] > seen["hands"] * 20  # nearly every decision fully listed
    assert seen["unlisted follows"] * 100 < seen["full lists"]
    assert seen["failed throws"] > 0


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_random_core_games_replay_through_the_engine(name: str) -> None:
    """Games the core plays by itself (``random_play``, throws included) are legal for the
    engine play for play, with validation on, and the engine's hand result has the core's
    points, 扣底, kitty multiplier and failed throws."""
    variants = VARIANTS[name]
    failed = 0
    for seed in range(4 * len(variants)):
        rules = preset(name).replace(**variants[seed % len(variants)])
        rng = random.Random(seed)
        match = Match(rules, random.Random(seed + 100))
        assert to_play(match, rng)
        game = _core_of(match)
        result = replay_random(match, game, play_random, random.Random(seed))
        assert result["failed_throws"] == game.failed
        if result["kou"]:
            assert result["kitty_multiplier"] == game.kitty_multiplier(rules.kitty_multiplier)
        failed += sum(game.failed)
    assert failed > 0  # throws were tried and some failed


def _spread(draws: list[tuple[int, ...]], other: list[tuple[int, ...]]) -> float:
    """Total variation distance between two samples' frequencies."""
    a, b = Counter(draws), Counter(other)
    return sum(abs(a[k] / len(draws) - b[k] / len(other)) for k in a.keys() | b.keys()) / 2


def test_random_play_draws_from_the_engines_distribution() -> None:
    """Leads (units and throws) and structured follows: the core's random player and the
    engine's give the same frequencies, up to sampling noise (fixed seeds, so no flakes)."""
    rules = preset("classic-2")
    pol = policy_of(rules)
    match = Match(rules, random.Random(5))
    rng = random.Random(6)
    assert to_play(match, rng)
    game = _core_of(match)
    n = 6000
    seat = game.turn
    hand = match.hands[seat]
    mine = [game.random_play(random.Random(i)) for i in range(n)]
    theirs = [tuple(sorted(CT.random_lead(hand, match.order, random.Random(i), pol=pol)))
              for i in range(n)]
    units = set(game.units())

    def kind(p: tuple[int, ...]) -> tuple[int, ...]:  # a throw: its class and card count
        return p if p in units else (-1, match.order.cls[p[0]], len(p))

    again = [tuple(sorted(CT.random_lead(hand, match.order, random.Random(n + i), pol=pol)))
             for i in range(n)]  # the engine against itself: the noise to expect
    noise = _spread([kind(p) for p in again], [kind(p) for p in theirs])
    assert _spread([kind(p) for p in mine], [kind(p) for p in theirs]) < 1.5 * noise + 0.01
    assert 0.08 < sum(1 for p in mine if p not in units) / n < 0.12  # throw_chance 0.1
    checked = 0
    for lead_cards in [u for u in game.units() if len(u) >= 2][:4]:
        pos = game.clone()
        pos.play(lead_cards)
        follower = pos.hand(pos.turn)
        shape = CT.decompose(lead_cards, match.order, pol)
        mine = [pos.random_play(random.Random(i)) for i in range(2000)]
        theirs = [tuple(sorted(CT.random_follow(shape, follower, match.order,
                                                random.Random(i), pol))) for i in range(2000)]
        again = [tuple(sorted(CT.random_follow(shape, follower, match.order,
                                               random.Random(5000 + i), pol)))
                 for i in range(2000)]
        assert set(mine) <= set(pos.legal())
        assert _spread(mine, theirs) < 1.5 * _spread(again, theirs) + 0.01
        checked += 1
    assert checked >= 2


@pytest.mark.parametrize("options", [{}, {"tractor_min_length": 3}, {"triple_tractors": False}])
def test_tractors_are_counted_as_listed(options: dict[str, object]) -> None:
    """The random lead counts the tractors without building them (the draw needs only
    their number): the count equals the listed tractors, on many classic-3 hands."""
    rules = preset("classic-3").replace(**options)
    found = 0
    for seed in range(200):
        game = random_deal(random.Random(seed), 3, 39, policy_of(rules))
        listed: list[tuple[int, ...]] = []
        count = game._tractors(game.turn * 54, listed)
        assert count == len(listed) == game._tractors(game.turn * 54, None)
        assert len(set(listed)) == count
        found += count
    assert found > 5
