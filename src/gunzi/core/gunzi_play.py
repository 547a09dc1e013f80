"""The 打滚子 play phase (docs/rules.md A7) on flat per-seat counts.

A :class:`GunziPlay` holds the four hands as one list of 4 x 54 counts, the card
order of the hand as plain int lists, and the trick in progress. ``legal()`` lists
the plays of the seat to act as tuples of card ids (the same set as
``gunzi.engine.gunzi_tricks``), ``play()`` performs one without validating it, and
the trick winner and points are settled in place. Nothing here builds an action, an
event or a view: callers that need them build them from the outcome, outside the
loop. Written for mypyc (plain ints and lists, no closures), so compiled and pure
runs play identical games.
"""

from __future__ import annotations

import random

from gunzi.core.trick_state import TrickState
from gunzi.engine.cards import NUM_TYPES
from gunzi.engine.gunzi_tricks import choose
from gunzi.engine.order import Order, order_for

NT = NUM_TYPES
# Plays of one card id repeated 1, 2, 3 times, built once: listing shares them.
_ONE: list[tuple[int, ...]] = [(c,) for c in range(NT)]
_TWO: list[tuple[int, ...]] = [(c, c) for c in range(NT)]
_THREE: list[tuple[int, ...]] = [(c, c, c) for c in range(NT)]


class GunziPlay(TrickState):
    """One hand's play phase; seat ``turn`` acts next, ``cards_left`` reaches 0 at the end."""

    __slots__ = ("cls", "live", "members", "pow")

    def __init__(self, h: list[int], cls: list[int], power: list[int],
                 members: list[list[int]], leader: int, live: bool, cards_left: int) -> None:
        """A position from flat counts and tables; :func:`start` builds one from hands."""
        super().__init__(h, leader, cards_left)
        self.cls = cls  # read-only tables, shared by clones
        self.pow = power
        self.members = members
        self.live = live

    def clone(self) -> GunziPlay:
        new = GunziPlay(list(self.h), self.cls, self.pow, self.members, self.turn, self.live,
                        self.cards_left)
        self._copy_to(new)
        return new

    # -------------------------------------------------------------- listing
    def legal(self) -> list[tuple[int, ...]]:
        """Every distinct legal play of the seat to act."""
        h = self.h
        base = self.turn * NT
        out: list[tuple[int, ...]] = []
        if not self.trick:
            for c in range(NT):
                k = h[base + c]
                if k:
                    out.append(_ONE[c])
                    if k >= 2:
                        out.append(_TWO[c])
                        if k == 3:
                            out.append(_THREE[c])
            return out
        n = self.lead_n
        if n == 1:  # the commonest case: any card of the led class, else any card
            out = [_ONE[c] for c in self.members[self.led] if h[base + c]]
            return out if out else [_ONE[c] for c in range(NT) if h[base + c]]
        av: list[int] = []
        ak: list[int] = []
        held = 0
        for c in self.members[self.led]:
            k = h[base + c]
            if k:
                av.append(c)
                ak.append(k)
                held += k
        fixed: list[int] = []
        if held < n:  # all of the led class, the rest from the other classes
            for i in range(len(av)):
                fixed += [av[i]] * ak[i]
            av = []
            ak = []
            cls = self.cls
            led = self.led
            for c in range(NT):
                k = h[base + c]
                if k and cls[c] != led:
                    av.append(c)
                    ak.append(k)
        elif not self.live:  # 死棒: a held pair or triple must answer a pair or triple
            # (A held triple alone does not oblige a pair: the engine's A7 reading.)
            has_pair = 2 in ak
            doubles = [av[i] for i in range(len(av)) if ak[i] >= 2]
            if n == 2 and has_pair:
                return [_TWO[c] for c in doubles]
            if n == 3:
                triples = [av[i] for i in range(len(av)) if ak[i] == 3]
                if triples:
                    return [_THREE[c] for c in triples]
                if has_pair:  # a pair plus any other card of the class
                    return [(p, p, d) for p in doubles for d in av if d != p]
        rest = choose(list(zip(av, ak, strict=True)), n - len(fixed))
        if not fixed:
            return rest
        head = tuple(fixed)
        return [head + r for r in rest]

    def pick(self, u: float) -> tuple[int, ...]:
        """``legal()[int(u * len(legal()))]`` for u in [0, 1), without listing leads or
        single follows (three plays in four): a lead of card c held k times is the
        block (c,), (c, c), (c, c, c)[:k] of that list, so it is found by counting."""
        h = self.h
        base = self.turn * NT
        if not self.trick:
            r = int(u * self.cards_left)  # the leader holds cards_left cards
            for c in range(NT):
                k = h[base + c]
                if r < k:
                    return _ONE[c] if r == 0 else _TWO[c] if r == 1 else _THREE[c]
                r -= k
        elif self.lead_n == 1:
            held = 0
            for c in self.members[self.led]:
                if h[base + c]:
                    held += 1
            if held:
                r = int(u * held)
                for c in self.members[self.led]:
                    if h[base + c]:
                        if r == 0:
                            return _ONE[c]
                        r -= 1
        plays = self.legal()
        return plays[int(u * len(plays))]

    # ------------------------------------------------------------- playing
    def play(self, cards: tuple[int, ...]) -> int:
        """Play ``cards`` for the seat to act (trusted: one of ``legal()``); return the
        trick's winner when this play completes it, else -1."""
        seat = self.turn
        base = seat * NT
        h = self.h
        for c in cards:
            h[base + c] -= 1
        if not self.trick:
            self.lead_n = len(cards)
            self.led = self.cls[cards[0]]
        self.trick.append(cards)
        self.trick_seats.append(seat)
        if self.log is not None:
            self.log.append((seat, cards))
        if len(self.trick) < 4:
            self.turn = (seat + 1) % 4
            return -1
        return self._end_trick()

    def _end_trick(self) -> int:
        return self._end_same_id(self.cls, self.pow)


_TABLES: dict[Order, tuple[list[int], list[int], list[list[int]]]] = {}


def start(hands: list[list[int]], order: Order, leader: int, live: bool) -> GunziPlay:
    """The play phase of four 54-count hands under ``order``, ``leader`` to lead."""
    tables = _TABLES.get(order)
    if tables is None:
        tables = (list(order.cls), list(order.power), [list(m) for m in order.class_cards])
        _TABLES[order] = tables
    cls, power, members = tables
    return GunziPlay([k for hand in hands for k in hand], cls, power, members, leader, live,
                     sum(hands[leader]))


def play_random(game: GunziPlay, rng: random.Random) -> GunziPlay:
    """Play ``game`` to its end with uniformly random legal plays (the bench's policy)."""
    draw = rng.random  # C-level; randrange is Python code and costs a quarter of a play
    while game.cards_left > 0:
        game.play(game.pick(draw()))
    return game


def random_deal(rng: random.Random, permanent_twos: bool = False) -> GunziPlay:
    """A random play phase as the C yardstick plays it: three decks shuffled, 39 cards a
    seat (six to a kitty nobody plays), a random level, trump suit and leader, 死棒."""
    hands, order, leader = deal_random(rng, permanent_twos)
    return start(hands, order, leader, False)


def deal_random(rng: random.Random, permanent_twos: bool = False
                ) -> tuple[list[list[int]], Order, int]:
    """The hands (54 counts each), order and leader :func:`random_deal` plays."""
    deck = [c for c in range(NT) for _ in range(3)]
    draw = rng.random
    for i in range(len(deck) - 1, 0, -1):  # Fisher-Yates on random(): shuffle() is slower
        j = int(draw() * (i + 1))
        deck[i], deck[j] = deck[j], deck[i]
    hands = [[0] * NT for _ in range(4)]
    for i in range(156):
        hands[i % 4][deck[i]] += 1
    order = order_for(rng.randrange(13), rng.randrange(4), permanent_twos)
    return hands, order, rng.randrange(4)
