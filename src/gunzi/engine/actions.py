"""Actions: what a seat (or the dealer machine) asks the engine to do.

One small frozen record type for every kind keeps validation, hashing and
records uniform. Build them with the constructors below or :func:`from_dict`
(the record / wire form, with cards as text like ``"10H"``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from gunzi.engine import cards as C
from gunzi.engine.errors import MalformedActionError

CHANCE = -1  # the "seat" of the dealing machine (shuffle and deal)


class Kind(StrEnum):
    DEAL = "deal"
    DECLARE = "declare"
    PASS = "pass"
    TRIBUTE = "tribute"
    RETURN = "return"
    BURY = "bury"
    BURY_JOKERS = "bury_jokers"
    PLAY = "play"


@dataclass(frozen=True, slots=True)
class Action:
    kind: Kind
    seat: int
    cards: tuple[C.Card, ...] = ()
    suit: int = -1  # suit named by a three-joker declaration
    take: tuple[C.Card, ...] = ()  # kitty cards picked up when burying jokers
    seed: int | None = None  # deal: the hand's seed
    deck: tuple[C.Card, ...] | None = None  # deal: an explicit deck order (else shuffled)
    first_seat: int | None = None  # deal: first-hand starting seat (else random)

    def __post_init__(self) -> None:
        # Card multisets are kept sorted by id, so equal choices are equal actions.
        if len(self.cards) > 1:
            object.__setattr__(self, "cards", tuple(sorted(self.cards)))
        if len(self.take) > 1:
            object.__setattr__(self, "take", tuple(sorted(self.take)))
        level_card = self.kind is Kind.DECLARE and self.cards and self.cards[0] < C.LJ
        if level_card and self.suit == self.cards[0] // 13:
            object.__setattr__(self, "suit", -1)  # a level card names its own suit

    def to_dict(self) -> dict[str, Any]:
        """Record / wire form."""
        out: dict[str, Any] = {"type": self.kind.value}
        if self.kind is Kind.DEAL:
            out["seed"] = self.seed
            if self.deck is not None:
                out["deck"] = C.names(self.deck)
            if self.first_seat is not None:
                out["first_seat"] = self.first_seat
            return out
        out["seat"] = self.seat
        if self.kind is not Kind.PASS:
            out["cards"] = C.names(self.cards)
        if self.suit >= 0:
            out["suit"] = C.SUITS[self.suit]
        if self.kind is Kind.BURY_JOKERS:
            out["take"] = C.names(self.take)
        return out

    def __str__(self) -> str:
        if self.kind is Kind.DEAL:
            return f"deal seed={self.seed}"
        text = f"seat {self.seat} {self.kind.value}"
        if self.cards:
            text += " " + " ".join(C.names(self.cards))
        if self.suit >= 0:
            text += f" naming {C.SUITS[self.suit]}"
        if self.take:
            text += " taking " + " ".join(C.names(self.take))
        return text


def _cards(seq: Sequence[C.Card]) -> tuple[C.Card, ...]:
    return tuple(seq)


def deal(seed: int, deck: Sequence[C.Card] | None = None, first_seat: int | None = None) -> Action:
    return Action(
        Kind.DEAL, CHANCE, seed=seed, deck=None if deck is None else tuple(deck),
        first_seat=first_seat,
    )


def declare(seat: int, cards: Sequence[C.Card], suit: int = -1) -> Action:
    return Action(Kind.DECLARE, seat, _cards(cards), suit=suit)


def pass_(seat: int) -> Action:
    return Action(Kind.PASS, seat)


def tribute(seat: int, cards: Sequence[C.Card]) -> Action:
    return Action(Kind.TRIBUTE, seat, _cards(cards))


def return_(seat: int, cards: Sequence[C.Card]) -> Action:
    return Action(Kind.RETURN, seat, _cards(cards))


def bury(seat: int, cards: Sequence[C.Card]) -> Action:
    return Action(Kind.BURY, seat, _cards(cards))


def bury_jokers(seat: int, jokers: Sequence[C.Card], take: Sequence[C.Card]) -> Action:
    return Action(Kind.BURY_JOKERS, seat, _cards(jokers), take=_cards(take))


def play(seat: int, cards: Sequence[C.Card]) -> Action:
    return Action(Kind.PLAY, seat, _cards(cards))


def _card_list(data: Mapping[str, Any], key: str) -> tuple[C.Card, ...]:
    value = data.get(key, [])
    if isinstance(value, str):  # "AS" is not the list ["AS"]: the wire form is a list
        raise MalformedActionError(
            f"{key!r} must be a list of cards like ['10H', 'BJ'], not the string {value[:20]!r}")
    if not isinstance(value, list | tuple):
        raise MalformedActionError(f"{key!r} must be a list of cards like ['10H', 'BJ']")
    if len(value) > 64:
        raise MalformedActionError(f"{key!r} lists {len(value)} cards; at most 64 are allowed")
    return _cards([C.parse(v) for v in value])


def _seat(data: Mapping[str, Any]) -> int:
    seat = data.get("seat")
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat <= 3:
        raise MalformedActionError(f"'seat' must be 0, 1, 2 or 3, not {seat!r}")
    return seat


def from_dict(data: Mapping[str, Any]) -> Action:
    """Read the record / wire form; raise :class:`MalformedActionError` naming what is wrong."""
    if not isinstance(data, Mapping):
        raise MalformedActionError(f"an action must be a JSON object, not {type(data).__name__}")
    kind_text = data.get("type")
    try:
        kind = Kind(str(kind_text))
    except ValueError:
        raise MalformedActionError(
            f"unknown action type {kind_text!r}; valid types: " + ", ".join(k.value for k in Kind)
        ) from None
    if kind is Kind.DEAL:
        seed = data.get("seed")
        if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**256:
            raise MalformedActionError(f"'seed' must be an integer in [0, 2**256), not {seed!r}")
        deck = data.get("deck")
        first = data.get("first_seat")
        if first is not None and (not isinstance(first, int) or not 0 <= first <= 3):
            raise MalformedActionError(f"'first_seat' must be 0..3, not {first!r}")
        order = None
        if deck is not None:
            if not isinstance(deck, list):
                raise MalformedActionError("'deck' must be a list of card texts")
            order = [C.parse(c) for c in deck]
        return deal(seed, order, first)
    seat = _seat(data)
    if kind is Kind.PASS:
        return pass_(seat)
    cards = _card_list(data, "cards")
    if kind is Kind.DECLARE:
        suit_text = data.get("suit")
        suit = -1
        if suit_text is not None:
            if not isinstance(suit_text, str) or suit_text.upper() not in C.SUITS:
                raise MalformedActionError(f"'suit' must be one of S, H, C, D, not {suit_text!r}")
            suit = C.SUITS.index(suit_text.upper())
        return declare(seat, cards, suit)
    if kind is Kind.BURY_JOKERS:
        return bury_jokers(seat, cards, _card_list(data, "take"))
    maker = {Kind.TRIBUTE: tribute, Kind.RETURN: return_, Kind.BURY: bury, Kind.PLAY: play}[kind]
    return maker(seat, cards)
