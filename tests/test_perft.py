"""Perft for 打滚子 play: the legal-move tree from fixed positions, counted and cross-checked.

python-chess checks its move generation by counting the nodes n plies deep (perft)
against known counts. Here the tree a few plays deep is walked through the engine's
``legal_actions``, and at every node the listed plays must be exactly those an
independent reading of A7 allows (tests/spec_a7.py); each completed trick must be
won, and the next one led, by the seat that reading names. The totals are pinned, so
a change to generation that both readings happen to share still shows up here.
"""

from __future__ import annotations

import random

import pytest

from gunzi.engine import actions as A
from gunzi.engine.match import Match, Phase
from gunzi.engine.rules import preset
from helpers import random_policy
from spec_a7 import multisets, spec_follow_ok, spec_winner


def position(seed: int, follow: str, tricks: int, plays: int) -> Match:
    """A 打滚子 hand dealt from ``seed`` and played by a seeded random policy until
    ``tricks`` tricks are done and ``plays`` cards of the next one are on the table."""
    m = Match(preset("gunzi", follow=follow), random.Random(seed))
    policy = random_policy(random.Random(seed))
    while m.phase is not Phase.PLAY or len(m.tricks) < tricks or len(m.trick) < plays:
        seat = m.to_act
        assert seat is not None and m.hand_no == 1
        m.apply(policy(m, seat))
    return m


def spec_plays(m: Match, seat: int) -> set[tuple[int, ...]]:
    """Every play the independent reading of A7 allows ``seat`` now."""
    held = m.hands[seat]
    if not m.trick:
        return {(c,) * k for c in range(54) for k in range(1, min(held[c], 3) + 1)}
    lead = m.trick[0][1]
    return {
        play for play in multisets(held, len(lead))
        if spec_follow_ok(lead, play, held, m.level, m.trump, m.live)
    }


def perft(m: Match, depth: int) -> int:
    if m.phase is not Phase.PLAY:  # the hand is over: a leaf
        return 1
    seat = m.to_act
    assert seat is not None
    listed = {a.cards for a in m.legal_actions(seat)}
    assert listed == spec_plays(m, seat), f"seat {seat}, trick {m.trick_no}, {m.trick}"
    if depth == 1:
        return len(listed)
    total = 0
    for cards in sorted(listed):
        child = m.clone()
        child.apply(A.play(seat, cards))
        if len(child.tricks) > len(m.tricks) and child.phase is Phase.PLAY:
            done = child.tricks[-1]
            winner = (done["leader"] + spec_winner(done["plays"], m.level, m.trump)) % 4
            assert done["winner"] == winner and child.to_act == winner
        total += perft(child, depth - 1)
    return total


# (seed, follow, tricks done, cards on the table, depth): nodes at that depth (a hand's
# end counts as a leaf). Positions come from seeded play: a change to the random
# player's or the deal's use of randomness moves them, and the counts with them.
PERFT = {
    (1, "dead", 10, 0, 4): 3608,
    (2, "dead", 14, 2, 4): 23510,
    (3, "live", 12, 1, 4): 12420,
    (4, "live", 18, 3, 3): 1671,
    (5, "dead", 4, 1, 3): 630,
    (6, "dead", 27, 0, 5): 9120,
    (7, "live", 26, 2, 5): 17,
}


@pytest.mark.parametrize(("seed", "follow", "tricks", "plays", "depth"), sorted(PERFT))
def test_A7_perft_matches_the_independent_reading_and_the_pinned_count(
    seed: int, follow: str, tricks: int, plays: int, depth: int
) -> None:
    m = position(seed, follow, tricks, plays)
    assert perft(m, depth) == PERFT[seed, follow, tricks, plays, depth]
