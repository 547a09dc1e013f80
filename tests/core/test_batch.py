"""Batch simulation on the play core: seeded, and the same however it is split."""

from __future__ import annotations

from gunzi.core.batch import play_range, simulate
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
