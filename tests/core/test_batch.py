"""Batch simulation on the play core: seeded, and the same however it is split."""

from __future__ import annotations

import json
import random

import pytest

from gunzi.core import gunzi_rule
from gunzi.core.batch import POLICIES, play_range, record, simulate
from gunzi.core.gunzi_play import random_deal, start
from gunzi.engine.order import order_for
from gunzi.engine.rules import preset


def test_batch_outcomes_do_not_depend_on_the_worker_count() -> None:
    alone = simulate(24, seed=11, records=True)
    split = simulate(24, seed=11, workers=3, records=True)
    assert alone == split
    assert alone[5:9] == play_range(11, 5, 9, records=True)  # hand i depends on (seed, i) only


def test_outcomes_hold_every_trick_and_point() -> None:
    for o in simulate(20, seed=2, records=True):
        assert o.winners[-1] == o.last_winner
        assert 13 <= len(o.winners) <= 39  # 39 cards a seat, 1 to 3 per trick
        assert sum(o.points) <= 300 and sum(o.points) % 5 == 0
    assert all(o.winners == () for o in simulate(3, seed=2))


def test_classic_batches_play_on_the_classic_core() -> None:
    rules = preset("classic-2")
    alone = simulate(12, seed=4, records=True, rules=rules)
    assert alone == simulate(12, seed=4, workers=2, records=True, rules=rules)
    assert alone[3:5] == play_range(4, 3, 5, records=True, rules=rules)
    for o in alone:
        assert o.winners[-1] == o.last_winner
        assert 1 <= len(o.winners) <= 25  # 25 cards a seat
        assert sum(o.points) <= 200 and sum(o.points) % 5 == 0
        assert o.kitty_multiplier >= 2  # 'doubling': at least x2
    three = simulate(6, seed=4, records=True, rules=preset("classic-3"))
    assert three != alone[:6] and all(len(o.winners) <= 39 for o in three)
    assert max(len(o.winners) for o in three) > 25  # 39 cards a seat


def _rule_played(seed: int, i: int) -> tuple[tuple[int, int], tuple[int, ...]]:
    """Hand i of batch ``seed`` dealt as the batch deals it, played here by the core's rule
    policy: every seat's own memory, the leader the dealer who alone saw the kitty."""
    rng = random.Random(seed * 1_000_003 + i)
    game = random_deal(rng)
    kitty = [3 - sum(game.h[s * 54 + c] for s in range(4)) for c in range(54)]
    assert sum(kitty) == 6
    gunzi_rule.play_out(game, gunzi_rule.Memory(kitty, game.turn, False))
    return (game.points[0], game.points[1]), tuple(game.winners)


def test_the_rule_policy_plays_the_rule_bots_card_play() -> None:
    ruled = simulate(8, seed=3, records=True, policy="rule")
    assert ruled == simulate(8, seed=3, workers=2, records=True, policy="rule")
    for i, o in enumerate(ruled):
        assert (o.points, o.winners) == _rule_played(3, i)
    randomly = simulate(8, seed=3, records=True)
    assert [o.winners for o in ruled] != [o.winners for o in randomly]  # same deals


def test_logged_hands_replay_move_for_move_from_their_deal() -> None:
    for policy in POLICIES:
        for i, o in enumerate(simulate(6, seed=9, policy=policy, log=True)):
            assert o.deal is not None and o.winners == ()
            game = start([list(h) for h in o.deal.hands],
                         order_for(o.deal.level, o.deal.trump, o.deal.permanent_twos),
                         o.deal.leader, False)
            assert [sum(h) for h in o.deal.hands] == [39] * 4
            for seat, cards in o.plays:
                assert seat == game.turn  # a play is a multiset: compare sorted
                assert sorted(cards) in [sorted(p) for p in game.legal()]
                game.play(cards)
            assert game.cards_left == 0
            assert (game.points[0], game.points[1]) == o.points
            line = record(o, i)
            assert json.loads(json.dumps(line)) == line
            assert [len(h) for h in line["hands"]] == [39] * 4
            assert sum(len(cards) for _, cards in line["plays"]) == 156
            assert line["plays"][0][0] == o.deal.leader


def test_classic_batches_log_and_refuse_the_rule_policy() -> None:
    rules = preset("classic-2")
    logged = simulate(4, seed=5, rules=rules, log=True)
    assert [(o.points, o.last_winner) for o in logged] == [
        (o.points, o.last_winner) for o in simulate(4, seed=5, rules=rules)]
    assert all(o.deal is not None and o.plays for o in logged)
    with pytest.raises(ValueError, match="random players only"):
        simulate(2, seed=5, rules=rules, policy="rule")
    with pytest.raises(ValueError, match="one of random, rule"):
        simulate(2, seed=5, policy="best")
