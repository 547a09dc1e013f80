"""Determinization: samples fit everything the seat knows, and the truth always does too."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gunzi.bots.base import Decision, observe
from gunzi.bots.determinize import (
    KITTY,
    RETURNED,
    Knowledge,
    deals,
    knowledge,
    sample,
)
from gunzi.engine.cards import BJ, LJ, NUM_TYPES
from gunzi.engine.match import Match, Phase
from gunzi.engine.rules import preset

RULES = {"gunzi": preset("gunzi"), "live": preset("gunzi", follow="live"),
         "classic": preset("classic-2")}


def _positions(rules_name: str, seed: int, every: float, hands: int = 3
               ) -> list[tuple[Match, Decision, list[tuple[int, tuple[int, ...], int]]]]:
    """Play decisions (with a copy of the match) from random matches over several hands;
    also what each payee returned (the memory a bot keeps)."""
    rng = random.Random(seed)
    rules = RULES[rules_name]
    m = Match(rules, random.Random(seed), levels=None if rules.is_gunzi else (2, 2))
    out = []
    returned: list[tuple[int, tuple[int, ...], int]] = []
    steps = 0
    while not m.is_over and m.hand_no <= hands and steps < 2500:
        seat = m.to_act
        assert seat is not None
        if m.phase is Phase.PLAY and rng.random() < every:
            memory = [r for r in returned if r[0] != seat] if m.payee == seat else []
            out.append((m.clone(), observe(m, seat), memory))
        action = m.legal_actions(seat).sample(rng)
        if m.phase is Phase.RETURN:
            returned = [(m.payer, action.cards, RETURNED)]
        hand = m.hand_no
        m.apply(action)
        if m.hand_no != hand:
            returned = []
        steps += 1
    return out


def _voids(m: Match) -> list[set[int]]:
    """Suit classes each seat showed out of, computed straight from the match."""
    out: list[set[int]] = [set() for _ in range(4)]
    cls = m.order.cls
    tricks = [[((t["leader"] + i) % 4, p) for i, p in enumerate(t["plays"])] for t in m.tricks]
    if m.trick:
        tricks.append(list(m.trick))
    for trick in tricks:
        lead = trick[0][1]
        led = cls[lead[0]]
        for s, p in trick[1:]:
            if sum(1 for c in p if cls[c] == led) < len(lead):
                out[s].add(led)
    return out


def _check_sample(m: Match, know: Knowledge, hands: list[list[int]], kitty: list[int]) -> None:
    seat = know.seat
    assert hands[seat] == m.hands[seat]
    total = [0] * NUM_TYPES
    for h in hands:
        for c in range(NUM_TYPES):
            total[c] += h[c]
    for c in kitty:
        total[c] += 1
    for t in m.tricks:
        for p in t["plays"]:
            for c in p:
                total[c] += 1
    for _, p in m.trick:
        for c in p:
            total[c] += 1
    assert total == [m.rules.decks] * NUM_TYPES  # the deck is conserved
    assert [sum(h) for h in hands] == [sum(h) for h in m.hands]
    assert len(kitty) == len(m.kitty)
    voids = _voids(m)
    for s in range(4):
        if s == seat:
            continue
        for k in voids[s]:
            assert not any(hands[s][c] for c in m.order.class_cards[k])
    seen_kitty = m.kitty_shown or seat in m.kitty_known_by
    if seen_kitty:
        assert sorted(kitty) == sorted(m.kitty)
    elif m.rules.is_gunzi:
        assert BJ not in kitty and LJ not in kitty
    assert know.consistent(hands, kitty, soft=False) is None


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10**6), rules_name=st.sampled_from(["gunzi", "gunzi", "live",
                                                                "classic"]))
def test_samples_fit_the_true_constraints_and_conserve_the_deck(seed: int,
                                                                rules_name: str) -> None:
    for m, decision, memory in _positions(rules_name, seed, 0.03):
        know = knowledge(decision, memory)
        # Everything derived must be true of the real deal, the soft facts included.
        assert know.consistent(m.hands, m.kitty) is None
        rng = random.Random(seed)
        for _ in range(3):
            deal = sample(know, rng)
            _check_sample(m, know, deal.hands, deal.kitty)


def test_bounds_come_from_tribute_declarations_and_memory() -> None:
    """Over a few tribute hands, lower bounds appear and are always true."""
    bounds = 0
    kinds: Counter[str] = Counter()
    for seed in range(12):
        for m, decision, memory in _positions("gunzi", seed, 0.05, hands=4):
            know = knowledge(decision, memory)
            bounds += len(know.bounds)
            kinds[m.tribute_kind] += 1
            assert know.consistent(m.hands, m.kitty) is None
            for b in know.bounds:
                assert know.seat not in b.places
                have = sum(m.kitty.count(b.card) if p == KITTY else m.hands[p][b.card]
                           for p in b.places)
                assert have >= b.count
    assert bounds > 0
    assert kinds["normal"] > 0


def test_unconstrained_samples_are_uniform() -> None:
    """After the first lead nothing is known but sizes: each unseen card lands in a place
    in proportion to its size (three hands of 39, a hidden kitty of 6 without jokers)."""
    m, decision, _ = next(
        x for seed in range(50) for x in _positions("gunzi", seed, 1.0, hands=1)
        if not x[0].tricks and len(x[0].trick) == 1 and not x[0].kitty_shown
    )
    know = knowledge(decision)
    skip = {BJ, LJ} | {b.card for b in know.bounds}
    rng = random.Random(5)
    counts: Counter[int] = Counter()
    n = 300
    for _ in range(n):
        deal = sample(know, rng)
        for s in range(4):
            if s != decision.seat:
                counts[s] += sum(deal.hands[s][c] for c in range(NUM_TYPES) if c not in skip)
    unseen = sum(know.unknown[c] for c in range(NUM_TYPES) if c not in skip)
    sizes = [sum(h) for h in m.hands]
    for s, k in counts.items():
        share = k / (n * unseen)
        assert abs(share - sizes[s] / sum(know.room)) < 0.02, (s, share)


def test_deals_helper_and_errors() -> None:
    _, decision, _ = _positions("gunzi", 7, 0.2, hands=1)[0]
    got = deals(decision, random.Random(1), 4)
    assert len(got) == 4
    know = knowledge(decision)
    assert know.consistent(got[0].hands, got[0].kitty, soft=False) is None
    bad = [list(h) for h in got[0].hands]
    other = (decision.seat + 1) % 4
    c = next(c for c in range(NUM_TYPES) if bad[other][c])
    bad[other][c] -= 1
    assert know.consistent(bad, got[0].kitty) is not None
    broken = Decision(decision.seat, decision.kind, decision.rules,
                      {**decision.view, "hand_sizes": [50, 50, 50, 50]}, decision.hand,
                      decision.actions, decision.count, decision.check, decision.sample)
    with pytest.raises(ValueError, match="add up"):
        knowledge(broken)
