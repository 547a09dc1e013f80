"""The classic 升级 play phase (docs/rules.md Part B) on flat per-seat counts.

A :class:`ClassicPlay` holds the four hands as one list of 4 x 54 counts and the trick
in progress, like :mod:`gunzi.core.gunzi_play`. The hot cases are played here on the
counts: leads of one card id (single, pair, triple) and tractors, single-card and
unstructured follows, follows owing only pairs and triples, and the winner of a trick
led by one card id. The rare and intricate cases call the pure functions of the
reference rules (:mod:`gunzi.engine.classic_tricks`), so there is one spec for them:
a throw's decomposition and failure (Rule L), follows owing tractors (Rule F's
branch-and-bound), the winner of a tractor or throw trick (Rule W, every [I-20]/[I-21]
variant) and the kitty multiplier (Rule K).

Leads: the legal leads are every one-class multiset of held cards, so ``legal()`` at a
lead lists them all as ``legal_leads`` does (throws are exponentially many: callers that
play use ``random_play``). ``random_play`` draws from the engine's random-player
distribution (``random_lead`` with its 0.1 throw chance, ``random_follow``): the same
distribution, not the same stream of random numbers (it draws with ``random()`` only,
which is what makes it fast). Written for mypyc (plain ints and lists), so compiled and
pure runs play identical games.
"""

from __future__ import annotations

import random

from gunzi.core.trick_state import TrickState
from gunzi.engine import classic_tricks as CT
from gunzi.engine.cards import NUM_TYPES
from gunzi.engine.classic_policy import Policy
from gunzi.engine.order import Order, order_for

NT = NUM_TYPES
THROW_CHANCE = 0.1  # random_lead's default: how often the random player tries a throw


class _Tables:
    """Per order: classes, powers, class members by power, and members grouped by power
    (the runs tractors are built from)."""

    __slots__ = ("cls", "groups", "members", "pow")

    def __init__(self, order: Order) -> None:
        self.cls: list[int] = list(order.cls)
        self.pow: list[int] = list(order.power)
        self.members: list[list[int]] = [list(m) for m in order.class_cards]
        self.groups: list[list[tuple[int, list[int]]]] = []
        for m in order.class_cards:
            by: list[tuple[int, list[int]]] = []
            for c in m:  # weakest first, ties by id: groups in ascending power
                p = order.power[c]
                if by and by[-1][0] == p:
                    by[-1][1].append(c)
                else:
                    by.append((p, [c]))
            self.groups.append(by)


_TABLES: dict[Order, _Tables] = {}


def _tables(order: Order) -> _Tables:
    t = _TABLES.get(order)
    if t is None:
        t = _TABLES[order] = _Tables(order)
    return t


def _sample(pool: list[int], k: int, rng: random.Random) -> list[int]:
    """A uniform k-subset of ``pool`` (partial Fisher-Yates on ``pool``, in place)."""
    n = len(pool)
    for i in range(k):
        j = i + int(rng.random() * (n - i))
        pool[i], pool[j] = pool[j], pool[i]
    return pool[:k]


def _submultisets(ids: list[int], ks: list[int], i: int, k: int, acc: list[int],
                  out: list[tuple[int, ...]]) -> None:
    """Append every k-card sub-multiset of ids[i:] (held ks[i:] times), sorted by id."""
    if k == 0:
        out.append(tuple(sorted(acc)))
        return
    room = 0
    for j in range(i, len(ids)):
        room += ks[j]
    if room < k:
        return
    c = ids[i]
    for m in range(min(ks[i], k), -1, -1):
        if room - ks[i] < k - m:
            break
        for _ in range(m):
            acc.append(c)
        _submultisets(ids, ks, i + 1, k - m, acc, out)
        for _ in range(m):
            acc.pop()


class ClassicPlay(TrickState):
    """One hand's play phase; seat ``turn`` acts next, ``cards_left`` reaches 0 at the end."""

    __slots__ = ("failed", "lead_cards", "lead_size", "order", "pol", "req2", "req3",
                 "req_tractor", "shape", "t")

    def __init__(self, h: list[int], order: Order, pol: Policy, leader: int,
                 cards_left: int) -> None:
        """A position from flat counts; :func:`start` builds one from four hands."""
        super().__init__(h, leader, cards_left)
        self.order = order
        self.pol = pol
        self.t = _tables(order)  # read-only, shared by clones
        self.lead_cards: tuple[int, ...] = ()  # the lead as played (a failed throw: its part)
        self.lead_size = 0  # s for a lead of one id s times, 0 for a tractor or a throw
        self.shape: CT.Shape | None = None  # the lead's decomposition, built when needed
        self.req3 = 0  # triples and pairs the lead asks of followers (Rule F)
        self.req2 = 0
        self.req_tractor = False
        self.failed = [0, 0, 0, 0]  # failed throws per seat (the [I-28] penalty counts them)
        # The log (TrickState) holds each play as attempted: a failed throw's whole cards,
        # so replaying it into the engine fails it the same way.

    def _clear_lead(self) -> None:
        self.lead_cards = ()
        self.lead_n = 0
        self.lead_size = 0
        self.led = -1
        self.shape = None
        self.req3 = 0
        self.req2 = 0
        self.req_tractor = False

    def clone(self) -> ClassicPlay:
        new = ClassicPlay(list(self.h), self.order, self.pol, self.turn, self.cards_left)
        self._copy_to(new)
        new.lead_cards = self.lead_cards
        new.lead_size = self.lead_size
        new.shape = self.shape
        new.req3 = self.req3
        new.req2 = self.req2
        new.req_tractor = self.req_tractor
        new.failed = list(self.failed)
        return new

    def lead_shape(self) -> CT.Shape:
        """The lead's decomposition (Rule D), as the engine's trick functions take it."""
        shape = self.shape
        if shape is None:
            shape = self.shape = CT.decompose(self.lead_cards, self.order, self.pol)
        return shape

    # -------------------------------------------------------------- leads
    def _tractors(self, base: int, out: list[tuple[int, ...]] | None) -> int:
        """How many tractors the seat at ``base`` can lead; appends them to ``out`` (when
        given) in ``legal_leads``' order."""
        h = self.h
        pol = self.pol
        tmin = pol.tractor_min
        n = 0
        for size in (2, 3):
            if size == 3 and not pol.triple_tractors:
                break
            for cl in range(5):
                enough = 0
                for c in self.t.members[cl]:
                    if h[base + c] >= size:
                        enough += 1
                if enough < tmin:
                    continue
                # maximal runs of consecutive powers, each power as its ids held >= size
                run: list[list[int]] = []
                last = -2
                groups = self.t.groups[cl]
                for gi in range(len(groups) + 1):
                    ok: list[int] = []
                    p = -9
                    if gi < len(groups):
                        p, ids = groups[gi]
                        ok = [c for c in ids if h[base + c] >= size]
                    if ok and p == last + 1 and run:
                        run.append(ok)
                    else:
                        if len(run) >= 2:
                            n += _run_tractors(run, size, tmin, out)
                        run = [ok] if ok else []
                    if ok:
                        last = p
        return n

    def units(self) -> list[tuple[int, ...]]:
        """The single-unit leads of the seat to act (singles, pairs, triples, tractors)."""
        h = self.h
        base = self.turn * NT
        out: list[tuple[int, ...]] = []
        for size in (1, 2, 3):
            for c in range(NT):
                if h[base + c] >= size:
                    out.append((c,) * size)
        self._tractors(base, out)
        return out

    def _is_unit(self, ids: list[int], ks: list[int]) -> bool:
        """Whether the one-class multiset ids x ks is exactly one unit (Rule T)."""
        if len(ids) == 1:
            return True
        s = ks[0]
        for k in ks:
            if k != s:
                return False
        pol = self.pol
        if len(ids) < pol.tractor_min or s < 2 or (s == 3 and not pol.triple_tractors):
            return False
        pw = self.t.pow
        ps = sorted(pw[c] for c in ids)
        return all(ps[i] + 1 == ps[i + 1] for i in range(len(ps) - 1))

    def _throws(self) -> list[tuple[int, ...]]:
        """Every lead of two or more units (legal_leads' throws), class by class."""
        h = self.h
        base = self.turn * NT
        out: list[tuple[int, ...]] = []
        for cl in range(5):
            ids = [c for c in self.t.members[cl] if h[base + c]]
            if len(ids) < 2:
                continue
            held = [h[base + c] for c in ids]
            ks = [0] * len(ids)
            while True:  # every count vector, as an odometer
                i = 0
                while i < len(ks) and ks[i] == held[i]:
                    ks[i] = 0
                    i += 1
                if i == len(ks):
                    break
                ks[i] += 1
                sel = [ids[j] for j in range(len(ids)) if ks[j]]
                if len(sel) < 2 or self._is_unit(sel, [k for k in ks if k]):
                    continue
                out.append(tuple(sorted(ids[j] for j in range(len(ids))
                                        for _ in range(ks[j]))))
        return out

    def _random_lead(self, rng: random.Random) -> tuple[int, ...]:
        h = self.h
        base = self.turn * NT
        if rng.random() < THROW_CHANCE:  # random_lead: a random throw
            classes: list[int] = []
            for cl in range(5):
                distinct = 0
                for c in self.t.members[cl]:
                    if h[base + c]:
                        distinct += 1
                if distinct >= 2:
                    classes.append(cl)
            if classes:
                cl = classes[int(rng.random() * len(classes))]
                ids = [c for c in self.t.members[cl] if h[base + c]]
                m = len(ids)
                a = int(rng.random() * m)
                b = int(rng.random() * (m - 1))
                if b >= a:
                    b += 1
                ks = [int(rng.random() * (h[base + c] + 1)) for c in ids]
                ks[a] = max(ks[a], 1)
                ks[b] = max(ks[b], 1)
                sel = [ids[j] for j in range(m) if ks[j]]
                if self._is_unit(sel, [k for k in ks if k]):  # a tractor: break it
                    ks[a] = 1
                return tuple(sorted(ids[j] for j in range(m) for _ in range(ks[j])))
        # a uniform single unit: count singles, pairs and triples, list the tractors
        n1 = n2 = n3 = 0
        for c in range(NT):
            k = h[base + c]
            if k:
                n1 += 1
                if k >= 2:
                    n2 += 1
                    if k >= 3:
                        n3 += 1
        n_tr = self._tractors(base, None) if n2 >= self.pol.tractor_min else 0
        r = int(rng.random() * (n1 + n2 + n3 + n_tr))
        for size in (1, 2, 3):
            for c in range(NT):
                if h[base + c] >= size:
                    if r == 0:
                        return (c,) * size
                    r -= 1
        tractors: list[tuple[int, ...]] = []  # built only when one is drawn
        self._tractors(base, tractors)
        return tractors[r]

    # ------------------------------------------------------------ follows
    def _class_holding(self, base: int) -> tuple[list[int], list[int], int]:
        ids: list[int] = []
        ks: list[int] = []
        held = 0
        h = self.h
        for c in self.t.members[self.led]:
            k = h[base + c]
            if k:
                ids.append(c)
                ks.append(k)
                held += k
        return ids, ks, held

    def _free(self) -> bool:
        """Whether the lead owes no structure: all singles, or [I-27] 'no-format'."""
        return (self.req2 == 0 and self.req3 == 0) or not self.pol.format_draw

    def _follows(self) -> list[tuple[int, ...]]:
        base = self.turn * NT
        n = self.lead_n
        ids, ks, held = self._class_holding(base)
        out: list[tuple[int, ...]] = []
        if held < n:  # all of the led class, the rest from the other classes
            h = self.h
            cls = self.t.cls
            led = self.led
            oids = [c for c in range(NT) if h[base + c] and cls[c] != led]
            _submultisets(oids, [h[base + c] for c in oids], 0, n - held,
                          [c for i in range(len(ids)) for c in [ids[i]] * ks[i]], out)
            return out
        if self._free():
            _submultisets(ids, ks, 0, n, [], out)
            return out
        return list(CT.legal_follows(self.lead_shape(), self.hand(self.turn), self.order,
                                     self.pol))

    def _random_follow(self, rng: random.Random) -> tuple[int, ...]:
        base = self.turn * NT
        h = self.h
        n = self.lead_n
        if n == 1:  # the commonest case: a uniform copy of the led class, else of the hand
            held = 0
            for c in self.t.members[self.led]:
                held += h[base + c]
            if held:
                r = int(rng.random() * held)
                for c in self.t.members[self.led]:
                    r -= h[base + c]
                    if r < 0:
                        return (c,)
            r = int(rng.random() * self.cards_left)
            for c in range(NT):
                r -= h[base + c]
                if r < 0:
                    return (c,)
        ids, ks, held = self._class_holding(base)
        if held < n:
            cls = self.t.cls
            led = self.led
            pool = [c for c in range(NT) if cls[c] != led for _ in range(h[base + c])]
            fixed = [ids[i] for i in range(len(ids)) for _ in range(ks[i])]
            return tuple(sorted(fixed + _sample(pool, n - held, rng)))
        if self.req_tractor and self.pol.format_draw:
            return CT.random_follow(self.lead_shape(), self.hand(self.turn), self.order, rng,
                                    self.pol)
        core: list[int] = []
        rest = list(ks)
        if not self._free():  # random_follow's matching: triples, then pairs, uniformly
            protect = self.pol.protect_longer
            trips = [i for i in range(len(ids)) if ks[i] >= 3]
            t = min(self.req3, len(trips))
            n_pair = 0
            for k in ks:
                if k == 2 or (k > 2 and not protect):
                    n_pair += 1
            p = min(self.req2 + self.req3 - t, n_pair - (0 if protect else t))
            for i in _sample(trips, t, rng):
                core += [ids[i]] * 3
                rest[i] -= 3
            cands = [i for i in range(len(ids))
                     if (ks[i] == 2 or (ks[i] > 2 and not protect)) and rest[i] == ks[i]]
            for i in _sample(cands, p, rng):
                core += [ids[i]] * 2
                rest[i] -= 2
        pool = [ids[i] for i in range(len(ids)) for _ in range(rest[i])]
        return tuple(sorted(core + _sample(pool, n - len(core), rng)))

    # ------------------------------------------------------------ choosing
    def legal(self) -> list[tuple[int, ...]]:
        """Every distinct legal play of the seat to act, as sorted tuples (the engine's set;
        at a lead that includes every throw, which can be very many)."""
        if not self.trick:
            return self.units() + self._throws()
        return self._follows()

    def random_play(self, rng: random.Random) -> tuple[int, ...]:
        """A play drawn as the engine's random player draws it (see the module doc)."""
        if not self.trick:
            return self._random_lead(rng)
        return self._random_follow(rng)

    # ------------------------------------------------------------- playing
    def play(self, cards: tuple[int, ...]) -> int:
        """Play ``cards`` (sorted) for the seat to act (trusted: one of ``legal()``); a
        throw that fails is reduced as the engine reduces it. Returns the trick's winner
        when this play completes it, else -1."""
        seat = self.turn
        if self.log is not None:
            self.log.append((seat, cards))
        if not self.trick:
            cards = self._lead(seat, cards)
        base = seat * NT
        h = self.h
        for c in cards:
            h[base + c] -= 1
        self.trick.append(cards)
        self.trick_seats.append(seat)
        if len(self.trick) < 4:
            self.turn = (seat + 1) % 4
            return -1
        return self._end_trick()

    def _lead(self, seat: int, cards: tuple[int, ...]) -> tuple[int, ...]:
        """Set the lead's shape and what it asks of followers; a failed throw (Rule L) is
        reduced to its failing part."""
        first = cards[0]
        same = True
        for c in cards:
            if c != first:
                same = False
        shape: CT.Shape | None = None
        if not same:
            shape = CT.decompose(cards, self.order, self.pol)
            if len(shape.units) > 1:
                others = [self.hand((seat + i) % 4) for i in (1, 2, 3)]
                failed = CT.failed_throw(shape, others, self.order)
                if failed is not None:
                    self.failed[seat] += 1
                    cards = tuple(sorted(failed.cards))
                    shape = CT.decompose(cards, self.order, self.pol)
            first = cards[0]
            same = len(shape.units) == 1 and shape.units[0].length == 1
        self.lead_cards = cards
        self.lead_n = len(cards)
        self.led = self.t.cls[first]
        self.shape = shape
        self.req_tractor = False
        if same:
            n = len(cards)
            self.lead_size = n
            self.req3 = 1 if n == 3 else 0
            self.req2 = 1 if n == 2 else 0
        else:
            assert shape is not None
            self.lead_size = 0
            r3 = r2 = 0
            for u in shape.units:
                if u.size == 3:
                    r3 += u.length
                elif u.size == 2:
                    r2 += u.length
                if u.length >= 2 and u.size >= 2:
                    self.req_tractor = True
            self.req3 = r3
            self.req2 = r2
        return cards

    def _end_trick(self) -> int:
        if self.lead_size:  # one id led: only one id played as often can win (Rules U, W)
            winner = self._end_same_id(self.t.cls, self.t.pow)
        else:
            best = CT.trick_winner(self.lead_shape(), self.trick, self.order, self.pol)
            winner = self._settle(best, self._trick_points())
        self._clear_lead()
        return winner

    def kitty_multiplier(self, mode: str) -> int:
        """Rule K: the kitty multiplier the last trick's winning play gives under ``mode``."""
        return CT.kitty_multiplier(CT.decompose(self.last_play, self.order, self.pol), mode)


def _run_tractors(run: list[list[int]], size: int, tmin: int,
                  out: list[tuple[int, ...]] | None) -> int:
    """How many tractors one maximal run holds (each step: the ids held >= size); appends
    them to ``out`` (when given) in the engine's order: by start, then length, then the
    choice among equal-power ids."""
    n = 0
    for start in range(len(run) - tmin + 1):
        ways = 1
        for k in range(1, len(run) - start + 1):
            ways *= len(run[start + k - 1])  # choices of ids for the first k steps
            if k >= tmin:
                n += ways
        if out is None:
            continue
        for k in range(tmin, len(run) - start + 1):
            choice = [0] * k
            while True:
                out.append(tuple(sorted(run[start + i][choice[i]] for i in range(k)
                                        for _ in range(size))))
                i = k - 1  # product() order: the last position turns fastest
                while i >= 0 and choice[i] == len(run[start + i]) - 1:
                    choice[i] = 0
                    i -= 1
                if i < 0:
                    break
                choice[i] += 1
    return n


def start(hands: list[list[int]], order: Order, leader: int, pol: Policy) -> ClassicPlay:
    """The play phase of four 54-count hands under ``order``, ``leader`` to lead."""
    return ClassicPlay([k for hand in hands for k in hand], order, pol, leader,
                       sum(hands[leader]))


def play_random(game: ClassicPlay, rng: random.Random) -> ClassicPlay:
    """Play ``game`` to its end with the random player's plays (``random_play``)."""
    while game.cards_left > 0:
        game.play(game.random_play(rng))
    return game


def random_deal(rng: random.Random, decks: int, hand_size: int, pol: Policy) -> ClassicPlay:
    """A random play phase: ``decks`` decks shuffled, ``hand_size`` cards a seat (the rest
    is the kitty, which nobody plays), a random level, trump suit or 无主, and leader."""
    hands, order, leader = deal_random(rng, decks, hand_size)
    return start(hands, order, leader, pol)


def deal_random(rng: random.Random, decks: int, hand_size: int
                ) -> tuple[list[list[int]], Order, int]:
    """The hands (54 counts each), order and leader :func:`random_deal` plays."""
    deck = [c for c in range(NT) for _ in range(decks)]
    draw = rng.random
    for i in range(len(deck) - 1, 0, -1):  # Fisher-Yates on random(), as gunzi_play
        j = int(draw() * (i + 1))
        deck[i], deck[j] = deck[j], deck[i]
    hands = [[0] * NT for _ in range(4)]
    for i in range(4 * hand_size):
        hands[i % 4][deck[i]] += 1
    order = order_for(rng.randrange(13), rng.randrange(5) - 1, False)
    return hands, order, rng.randrange(4)
