"""Trick rules of 打滚子 (docs/rules.md A7): leads, 死棒/活棒 following, and the trick winner.

A lead is one card, a pair (棒子) or a triple (滚子) of identical cards. Every
function works on card ids and 54-count hands, and returns an error sentence
instead of raising, so the caller decides how to report it.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import compress

from gunzi.engine.cards import NAMES, NUM_TYPES, Card
from gunzi.engine.order import TRUMP, Order

SHAPE_NAMES = {1: "a single", 2: "a pair (棒子)", 3: "a triple (滚子)"}
CLASS_NAMES = ("spades", "hearts", "clubs", "diamonds", "trumps")


def _show(cards: Sequence[Card]) -> str:
    return " ".join(NAMES[c] for c in cards)


def held_error(cards: Sequence[Card], hand: Sequence[int]) -> str | None:
    """None if the hand holds every card of ``cards`` (with multiplicity)."""
    if len(cards) == 1 and hand[cards[0]]:
        return None
    need: dict[Card, int] = {}
    for c in cards:
        need[c] = need.get(c, 0) + 1
    missing = {c for c, k in need.items() if hand[c] < k}
    if missing:
        asked = sorted(c for c in cards if c in missing)
        have = [c for c in sorted(missing) for _ in range(hand[c])]
        return f"does not hold {_show(asked)}" + (f" (holds only {_show(have)})" if have else "")
    return None


def lead_error(cards: Sequence[Card], hand: Sequence[int]) -> str | None:
    """A lead must be 1, 2 or 3 identical cards that the seat holds."""
    if not 1 <= len(cards) <= 3:
        return f"a lead is 1, 2 or 3 identical cards, not {len(cards)} ({_show(cards)})"
    if any(c != cards[0] for c in cards):
        return (
            f"a lead must be identical cards (single, pair or triple); {_show(cards)} is not; "
            "no runs, tractors or throws in 打滚子"
        )
    return held_error(cards, hand)


# _LEADS[c][k]: the leads k copies of card c allow (single, pair, triple), built once.
_LEADS: tuple[tuple[tuple[tuple[Card, ...], ...], ...], ...] = tuple(
    tuple(tuple((c,) * j for j in range(1, k + 1)) for k in range(4)) for c in range(NUM_TYPES)
)


SINGLES: tuple[tuple[Card], ...] = tuple((c,) for c in range(NUM_TYPES))
ALL_CARDS = tuple(range(NUM_TYPES))


def legal_leads(hand: Sequence[int]) -> list[tuple[Card, ...]]:
    """Card by card, the leads its copies allow."""
    out: list[tuple[Card, ...]] = []
    for c in compress(ALL_CARDS, hand):  # the cards held
        out += _LEADS[c][hand[c]]
    return out


def held_singles(cards: Sequence[Card], hand: Sequence[int]) -> list[tuple[Card, ...]]:
    """Each of ``cards`` that the hand holds, as a one-card play, in the order given."""
    return [SINGLES[c] for c in cards if hand[c]]


def follow_error(
    lead: Sequence[Card], play: Sequence[Card], hand: Sequence[int], order: Order, live: bool
) -> str | None:
    """None if ``play`` is a legal answer to ``lead`` from ``hand`` (A7 死棒, or 活棒 if live)."""
    n = len(lead)
    if len(play) != n:
        return f"must play {n} card(s) to follow {_show(lead)}, not {len(play)}"
    err = held_error(play, hand)
    if err:
        return err
    cls = order.cls
    led = cls[lead[0]]
    members = order.class_cards[led]
    held = sum(hand[c] for c in members)
    in_class = sum(1 for c in play if cls[c] == led)
    if in_class < min(n, held):
        mine = [c for c in members for _ in range(hand[c])]
        return (
            f"must follow {CLASS_NAMES[led]} with {min(n, held)} card(s): holds {_show(mine)}"
        )
    if live or n == 1 or held < n:
        return None
    # 死棒: shape obligations inside the led class (held >= n, so all of play is in class).
    has_pair = any(hand[c] == 2 for c in members)
    has_triple = any(hand[c] == 3 for c in members)
    identical = len(set(play))
    if n == 2 and has_pair and identical != 1:
        return f"a pair was led and the seat holds a pair of {CLASS_NAMES[led]}: must play a pair"
    if n == 3:
        if has_triple and identical != 1:
            return (
                f"a triple was led and the seat holds a triple of {CLASS_NAMES[led]}: "
                "must play a triple"
            )
        if not has_triple and has_pair and identical == 3:
            return (
                f"a triple was led and the seat holds a pair of {CLASS_NAMES[led]}: "
                "must play a pair plus one card"
            )
    return None


def choose(avail: Sequence[tuple[Card, int]], k: int) -> list[tuple[Card, ...]]:
    """Distinct multisets of k <= 3 cards from (card, count) pairs; loops beat recursion here."""
    out: list[tuple[Card, ...]] = []
    if k == 0:
        return [()]
    n = len(avail)
    for i in range(n):
        a, ka = avail[i]
        if k == 1:
            out.append((a,))
            continue
        if ka >= 2:
            if k == 2:
                out.append((a, a))
            else:
                if ka >= 3:
                    out.append((a, a, a))
                for j in range(i + 1, n):
                    out.append((a, a, avail[j][0]))
        for j in range(i + 1, n):
            b, kb = avail[j]
            if k == 2:
                out.append((a, b))
                continue
            if kb >= 2:
                out.append((a, b, b))
            for m in range(j + 1, n):
                out.append((a, b, avail[m][0]))
    return out


def legal_follows(
    lead: Sequence[Card], hand: Sequence[int], order: Order, live: bool
) -> list[tuple[Card, ...]]:
    """Every distinct legal follow, as sorted tuples."""
    n = len(lead)
    led = order.cls[lead[0]]
    members = order.class_cards[led]
    if n == 1:  # the commonest lead: any card of the class, or any card at all
        return held_singles(members, hand) or held_singles(ALL_CARDS, hand)
    mine = [(c, hand[c]) for c in members if hand[c]]
    held = sum(k for _, k in mine)
    if held < n:
        fixed = tuple(c for c, k in mine for _ in range(k))
        others = [(c, hand[c]) for c in range(NUM_TYPES) if hand[c] and order.cls[c] != led]
        return [tuple(sorted(fixed + rest)) for rest in choose(others, n - held)]
    if live:
        return choose(mine, n)
    triples = [c for c, k in mine if k == 3]
    pairs = [c for c, k in mine if k == 2]
    if n == 2:
        if pairs:
            return [(c, c) for c, k in mine if k >= 2]
        return choose(mine, 2)
    if triples:
        return [(c, c, c) for c in triples]
    if pairs:
        out: list[tuple[Card, ...]] = []
        for c, k in mine:
            if k < 2:
                continue
            for d, kd in mine:
                if d != c and kd >= 1:
                    out.append(tuple(sorted((c, c, d))))
        return sorted(set(out))
    return choose(mine, 3)


def trick_winner(plays: Sequence[Sequence[Card]], order: Order) -> int:
    """Index of the winning play; plays[0] is the lead (A7 'Winning')."""
    cls = order.cls
    power = order.power
    lead = plays[0]
    led = cls[lead[0]]
    best = 0
    best_cls = led
    best_power = power[lead[0]]
    for i in range(1, len(plays)):
        play = plays[i]
        first = play[0]
        if play.count(first) != len(play):
            continue  # not one card's copies (does not form the shape): never wins
        c = cls[first]
        p = power[first]
        if c == best_cls:
            if p > best_power:
                best, best_power = i, p
        elif c == TRUMP and led != TRUMP:
            best, best_cls, best_power = i, c, p
    return best
