"""Stacked decks: deal orders that give chosen cards to chosen seats.

Tests of single rules, puzzle positions and deal banks all need a deck whose
draw hands out known cards. Cards are drawn one at a time in playing order
from the first seat, so card ``i < 4 * hand_size`` goes to seat
``(first_seat + i) % 4`` and the rest form the kitty, in order.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from gunzi.engine import cards as C
from gunzi.engine.cards import Card
from gunzi.engine.errors import GunziError
from gunzi.engine.rules import Ruleset


def stacked_deck(
    rules: Ruleset,
    first_seat: int,
    hands: Sequence[Sequence[Card] | None],
    kitty: Sequence[Card] | None = None,
    rng: random.Random | None = None,
) -> list[Card]:
    """A deck order giving each seat its listed cards first (in draw order) and the kitty.

    Unlisted places are filled with the remaining cards in random order.
    ``hands[s]`` lists seat s's first cards in the order it draws them.
    """
    rng = rng or random.Random(0)
    size = rules.hand_size
    pool = C.counts(C.deck(rules.decks))
    for want in [*hands, kitty or []]:
        for c in want or []:
            pool[c] -= 1
            if pool[c] < 0:
                raise GunziError(f"stacked deck asks for more {C.name(c)} than the decks hold")
    rest = C.expand(pool)
    rng.shuffle(rest)
    deck: list[Card | None] = [None] * (4 * size + rules.kitty_size)
    for seat, want in enumerate(hands):
        for k, c in enumerate(want or []):
            if k >= size:
                raise GunziError(f"seat {seat} gets at most {size} cards")
            deck[4 * k + (seat - first_seat) % 4] = c
    for k, c in enumerate(kitty or []):
        deck[4 * size + k] = c
    filled = [c if c is not None else rest.pop() for c in deck]
    return filled


def parse(text: str) -> list[Card]:
    """Shorthand for tests: ``parse("BJ 3H 3H")``."""
    return C.parse_many(text)
