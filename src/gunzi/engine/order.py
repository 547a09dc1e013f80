"""Card order for one hand: which suit class a card plays in and how strong it is.

Given the level rank, the trump suit and whether 2s are permanent trumps, every
card id maps to a *class* (0..3 = its side suit, 4 = trump) and a *power*: a
dense rank within its class, so a higher power beats a lower one, equal powers
tie (the earlier play wins), and two powers one apart are adjacent for
tractors. Tables are computed once per (level, trump, twos) and cached.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from gunzi.engine.cards import BJ, LJ, NUM_TYPES, RANK_2, Card, make

TRUMP = 4


@dataclass(frozen=True, slots=True)
class Order:
    level: int
    trump: int  # suit index, or -1 while no trump suit is known
    permanent_twos: bool
    cls: tuple[int, ...]
    power: tuple[int, ...]
    class_cards: tuple[tuple[Card, ...], ...]  # per class, card ids from weakest to strongest

    def is_trump(self, card: Card) -> bool:
        return self.cls[card] == TRUMP

    def sort_key(self, card: Card) -> tuple[int, int, int]:
        """Display order: trumps first (strongest first), then side suits grouped."""
        c = self.cls[card]
        return (0 if c == TRUMP else 1 + c, -self.power[card], card)


@cache
def order_for(level: int, trump: int, permanent_twos: bool) -> Order:
    """The order for a hand played at ``level`` (rank index) with ``trump`` suit (or -1)."""
    cls = [0] * NUM_TYPES
    power = [0] * NUM_TYPES
    special = {level} | ({RANK_2} if permanent_twos else set())
    plain_ranks = [r for r in range(13) if r not in special]
    for suit in range(4):
        for i, r in enumerate(plain_ranks):
            card = make(suit, r)
            cls[card] = TRUMP if suit == trump else suit
            power[card] = i
    # Trump class above the trump suit's plain cards, weakest first.
    p = len(plain_ranks)
    tiers: list[list[Card]] = []
    if permanent_twos and level != RANK_2:
        tiers.append([make(s, RANK_2) for s in range(4) if s != trump])
        tiers.append([make(trump, RANK_2)] if trump >= 0 else [])
    tiers.append([make(s, level) for s in range(4) if s != trump])
    tiers.append([make(trump, level)] if trump >= 0 else [])
    tiers.append([LJ])
    tiers.append([BJ])
    for tier in tiers:
        if not tier:
            continue
        for card in tier:
            cls[card] = TRUMP
            power[card] = p
        p += 1
    by_class: list[list[Card]] = [[] for _ in range(5)]
    for card in sorted(range(NUM_TYPES), key=lambda c: (power[c], c)):
        by_class[cls[card]].append(card)
    return Order(
        level=level,
        trump=trump,
        permanent_twos=permanent_twos,
        cls=tuple(cls),
        power=tuple(power),
        class_cards=tuple(tuple(x) for x in by_class),
    )


def flip_rank_key(card: Card, level: int, permanent_twos: bool) -> int:
    """'Lowest card' order for the kitty turn (A4.1), before any trump suit exists.

    Plain ranks ascending, then the level rank, then 2s (if permanent), then LJ, BJ.
    Suits do not matter: equal keys are broken by turning order.
    """
    if card == BJ:
        return 100
    if card == LJ:
        return 99
    r = card % 13
    if r == level:
        return 97
    if permanent_twos and r == RANK_2:
        return 98
    return r
