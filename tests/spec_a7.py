"""An independent reading of docs/rules.md A2 (card order) and A7 (following, winning).

Written from the text alone, without ``gunzi.engine.order`` or ``gunzi_tricks``, so
tests can cross-check the engine against it (tests/test_rules_a_play.py,
tests/test_perft.py).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from itertools import combinations_with_replacement

from gunzi.engine.cards import BJ, LJ, NUM_TYPES

SPEC_TRUMP = "T"


def spec_rank(card: int, level: int, trump: int) -> tuple[object, int]:
    """(suit class, strength) straight from A2: BJ > LJ > trump level > other levels (equal)
    > trump 2 > other 2s (equal) > trump suit A..3 ; side suits A..3 (no 2, no level)."""
    if card == BJ:
        return SPEC_TRUMP, 1000
    if card == LJ:
        return SPEC_TRUMP, 999
    suit, rank = divmod(card, 13)
    if rank == level:
        return SPEC_TRUMP, 998 if suit == trump else 997
    if rank == 0:  # a 2: permanent trump
        return SPEC_TRUMP, 996 if suit == trump else 995
    if suit == trump:
        return SPEC_TRUMP, rank
    return suit, rank


def spec_follow_ok(
    lead: Sequence[int], play: Sequence[int], held: Sequence[int], level: int, trump: int,
    live: bool,
) -> bool:
    n = len(lead)
    if len(play) != n:
        return False
    need = Counter(play)
    if any(held[c] < k for c, k in need.items()):
        return False
    led = spec_rank(lead[0], level, trump)[0]
    mine = {
        c: held[c] for c in range(NUM_TYPES) if held[c] and spec_rank(c, level, trump)[0] == led
    }
    total = sum(mine.values())
    inside = sum(1 for c in play if spec_rank(c, level, trump)[0] == led)
    if total < n:
        return inside == total  # all of the suit, then anything
    if inside != n:
        return False
    if live or n == 1:
        return True
    groups = sorted(need.values(), reverse=True)
    has_pair = 2 in mine.values()  # a triple is not a pair
    has_triple = 3 in mine.values()
    if n == 2:
        return groups == [2] if has_pair else True
    if has_triple:
        return groups == [3]
    if has_pair:
        return groups == [2, 1]
    return True


def spec_winner(plays: Sequence[Sequence[int]], level: int, trump: int) -> int:
    lead_cls, lead_pow = spec_rank(plays[0][0], level, trump)
    best, best_cls, best_pow = 0, lead_cls, lead_pow
    for i, play in enumerate(plays[1:], start=1):
        if len(set(play)) != 1:
            continue  # not the shape: never wins
        cls, pw = spec_rank(play[0], level, trump)
        if cls == best_cls and pw > best_pow:
            best, best_pow = i, pw
        elif cls == SPEC_TRUMP and best_cls != SPEC_TRUMP:
            best, best_cls, best_pow = i, cls, pw
    return best


def multisets(held: Sequence[int], k: int) -> Iterator[tuple[int, ...]]:
    ids = [c for c in range(NUM_TYPES) if held[c]]
    for combo in combinations_with_replacement(ids, k):
        cnt = Counter(combo)
        if all(held[c] >= m for c, m in cnt.items()):
            yield combo
