"""Shared helpers for engine tests: stacked deals and simple drivers."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from gunzi.engine import actions as A
from gunzi.engine.actions import Action, Kind
from gunzi.engine.cards import Card, parse_many
from gunzi.engine.match import Match, Phase
from gunzi.engine.rules import Ruleset, preset
from gunzi.engine.stacking import stacked_deck

Policy = Callable[[Match, int], Action]


def cards(text: str) -> list[Card]:
    return parse_many(text)


def deal_match(
    rules: Ruleset | str = "gunzi",
    *,
    first_seat: int = 0,
    hands: Sequence[str | None] = (None, None, None, None),
    kitty: str | None = None,
    levels: tuple[int, int] | None = None,
    dealer: int | None = None,
    blood: int = 0,
    seed: int = 1,
) -> Match:
    """A match whose first deal is stacked: ``hands[s]`` are seat s's first draws, in order.

    With ``dealer`` set the hand is a later hand (drawing starts at the dealer).
    """
    ruleset = preset(rules) if isinstance(rules, str) else rules
    m = Match(ruleset, random.Random(seed), auto_deal=False, levels=levels, dealer=dealer,
              blood=blood)
    start = dealer if dealer is not None else first_seat
    deck = stacked_deck(
        ruleset, start, [cards(h) if h else None for h in hands],
        cards(kitty) if kitty else None, random.Random(seed),
    )
    m.apply(A.deal(seed, deck, first_seat if dealer is None else None))
    return m


def passer(m: Match, seat: int) -> Action:
    """Pass every optional decision, take the first listed action otherwise."""
    legal = m.legal_actions(seat)
    if legal.kind in (Kind.DECLARE, Kind.BURY_JOKERS):
        return A.pass_(seat)
    return legal.sample(random.Random(0))


def run_until(m: Match, phase: Phase, policy: Policy = passer, limit: int = 5000) -> None:
    """Apply the policy's actions until the match reaches ``phase``."""
    for _ in range(limit):
        if m.phase is phase:
            return
        seat = m.to_act
        assert seat is not None
        m.apply(policy(m, seat))
    raise AssertionError(f"never reached {phase}")


def random_policy(rng: random.Random) -> Policy:
    def policy(m: Match, seat: int) -> Action:
        return m.legal_actions(seat).sample(rng)

    return policy
