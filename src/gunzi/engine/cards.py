"""Cards as small integers, with the text forms every interface uses.

A card *type* is an int 0..53: ``suit * 13 + rank`` for suited cards (suits
S H C D = 0 1 2 3, ranks 2..A = 0..12), 52 for the little joker and 53 for
the big joker. With several decks, identical cards share one id, so hands are
multisets: a list of 54 counts. Ints keep the hot paths (validation, legal
moves, rollouts) cheap; text appears only at the edges.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from gunzi.engine.errors import MalformedActionError

Card = int

SUITS = "SHCD"
SUIT_SYMBOLS = "♠♥♣♦"
SUIT_CHINESE = ("黑桃", "红桃", "梅花", "方块")
RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
LJ: Card = 52
BJ: Card = 53
NUM_TYPES = 54
JOKERS = (LJ, BJ)

RANK_2 = 0
RANK_5 = 3
RANK_10 = 8
RANK_K = 11
RANK_A = 12


def make(suit: int, rank: int) -> Card:
    """The card of a suit (0..3) and rank index (0 = '2' … 12 = 'A')."""
    return suit * 13 + rank


def suit_of(card: Card) -> int:
    """Suit index 0..3, or -1 for a joker."""
    return card // 13 if card < LJ else -1


def rank_of(card: Card) -> int:
    """Rank index 0..12, or -1 for a joker."""
    return card % 13 if card < LJ else -1


def _points(card: Card) -> int:
    r = rank_of(card)
    if r == RANK_5:
        return 5
    if r in (RANK_10, RANK_K):
        return 10
    return 0


POINTS: tuple[int, ...] = tuple(_points(c) for c in range(NUM_TYPES))
NAMES: tuple[str, ...] = tuple(
    [RANKS[c % 13] + SUITS[c // 13] for c in range(52)] + ["LJ", "BJ"]
)
_BY_NAME: dict[str, Card] = {name: i for i, name in enumerate(NAMES)}
for _c in range(52):
    if RANKS[_c % 13] == "10":
        _BY_NAME["T" + SUITS[_c // 13]] = _c


def parse(text: str) -> Card:
    """Parse ``10H``, ``TH``, ``AS``, ``BJ``, ``LJ``, ``10♥``, ``红桃10`` or ``大王``.

    Letters may be in either case in every form (``j♥``, ``红桃j``), and emoji variation
    selectors that phones append to suit symbols (``10♥️``) are ignored. The record form
    is looked up first, so parsing records costs one dict lookup per card.
    """
    if not isinstance(text, str):
        raise MalformedActionError(f"a card must be a string like '10H', not {text!r}")
    key = text.strip().upper()
    card = _BY_NAME.get(key)
    if card is None:
        card = _UNICODE_AND_CHINESE.get(key.translate(_NO_VARIATION_SELECTORS))
    if card is None:
        raise MalformedActionError(
            f"malformed card {text!r}: expected rank 2-10/J/Q/K/A (T for 10) then suit "
            "S/H/C/D (10H, AS), or BJ/LJ; also a suit symbol ♠♥♣♦ after the rank (10♥), "
            "or a Chinese suit 黑桃/红桃/梅花/方块 before it (红桃10), or 大王/小王"
        )
    return card


def parse_many(cards: str | Iterable[str]) -> list[Card]:
    """Parse a list of card texts, or one string of them separated by spaces or commas."""
    if isinstance(cards, str):
        cards = cards.replace(",", " ").split()
    return [parse(c) for c in cards]


def name(card: Card) -> str:
    """The record notation: ``10H``, ``AS``, ``BJ``."""
    return NAMES[card]


def names(cards: Iterable[Card]) -> list[str]:
    return [NAMES[c] for c in cards]


def unicode(card: Card) -> str:
    """Display form: ``10♥``, ``A♠``, ``BJ``/``LJ`` stay as they are."""
    if card >= LJ:
        return NAMES[card]
    return RANKS[card % 13] + SUIT_SYMBOLS[card // 13]


def chinese(card: Card) -> str:
    """Chinese name: ``红桃10``, ``黑桃A``, ``大王``, ``小王``."""
    if card == BJ:
        return "大王"
    if card == LJ:
        return "小王"
    return SUIT_CHINESE[card // 13] + RANKS[card % 13]


# Keys in upper case, as parse() looks them up; U+FE0E/U+FE0F select text/emoji glyphs.
_NO_VARIATION_SELECTORS = {0xFE0E: None, 0xFE0F: None}
_UNICODE_AND_CHINESE: dict[str, Card] = {}
for _c in range(NUM_TYPES):
    _UNICODE_AND_CHINESE[unicode(_c)] = _c
    _UNICODE_AND_CHINESE[chinese(_c)] = _c
for _c in range(52):
    if RANKS[_c % 13] == "10":
        _UNICODE_AND_CHINESE["T" + SUIT_SYMBOLS[_c // 13]] = _c


def deck(decks: int) -> list[Card]:
    """An unshuffled pack of ``decks`` full decks (54 cards each)."""
    return [c for _ in range(decks) for c in range(NUM_TYPES)]


def counts(cards: Iterable[Card]) -> list[int]:
    """Multiset of cards as 54 counts."""
    out = [0] * NUM_TYPES
    for c in cards:
        out[c] += 1
    return out


def expand(cnt: Sequence[int]) -> list[Card]:
    """The cards of a count vector, in id order."""
    return [c for c in range(NUM_TYPES) for _ in range(cnt[c])]


def points_of(cards: Iterable[Card]) -> int:
    return sum(POINTS[c] for c in cards)


def multiset_combinations(avail: Sequence[tuple[Card, int]], k: int) -> Iterator[tuple[Card, ...]]:
    """Distinct multisets of size k from (card, available count) pairs, in ``avail`` order."""
    if k == 0:
        yield ()
        return
    if not avail:
        return
    (card, n), rest = avail[0], avail[1:]
    room = sum(m for _, m in rest)
    for take in range(min(n, k), -1, -1):
        if k - take > room:
            break
        for tail in multiset_combinations(rest, k - take):
            yield (card,) * take + tail
