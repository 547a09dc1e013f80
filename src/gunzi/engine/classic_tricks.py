"""Trick rules of classic 升级 (docs/rules.md Part B): combinations, leads, throws, follows,
winners.

Cards are ids 0..53 (see :mod:`gunzi.engine.cards`); a *hand* is a sequence of 54 counts;
a *play* is a sequence of card ids (a multiset). Suit classes and powers come from an
:class:`~gunzi.engine.order.Order` (``order_for(level, trump, False)`` for classic).
Every function here is pure; the random ones take an injected :class:`random.Random`.
The functions assume at most three copies of a card (three decks).

Exact rule choices (search for "Rule" to find them in the code):

Rule U (units). Identical cards (same id) form units: an id played m times is one unit of
size m (1 single, 2 pair, 3 triple) and is never split when a play is decomposed. Two
different ids of equal power (off-suit level cards in the trump class) are not a pair.

Rule T (tractors). A tractor (拖拉机) is two or more units of the same size (2 or 3) in one
suit class whose powers are consecutive (power, power + 1, ...). Units of different sizes
never chain (a triple does not join pairs in a decomposition), two units of equal power
never chain (5S5S 5C5C at level 5 is two pairs), and the level rank is skipped because
order.py gives level cards trump powers (so a level card never chains with the side cards
of its own suit: it is in another class).

Rule D (canonical decomposition). Per (class, size), the longest run of consecutive powers
is taken first (ties: the run with the higher top), using the lowest card id where several
ids share a power; this repeats until only isolated units are left. ``Shape.units`` is
sorted strongest structure first: tractors (more cards first, then bigger size), then
triples, pairs, singles; within each, higher top first, then by cards. ``Shape.cls`` is
the common class, or -1 when the cards are of several classes (then tractors are still
formed within each class).

Rule L (leads). A lead is any non-empty multiset of held cards of one class. One unit
always stands. Several units are a throw (甩牌); ``failed_throw`` judges it against the
other three hands: a part of size s and length l (single/pair/triple: l = 1) fails when
another player holds, in that class, l consecutive powers each with some id held at least
s times (a held triple can be played as a pair) and the highest of them above the part's
top. The part returned is the failing unit with the fewest cards, then the lowest top,
then the smaller size, then the lowest cards; ``None`` when every part stands or the lead
is a single unit.

Rule F (follows). A follow has as many cards as the lead. If the follower holds at least
that many cards of the led class, all must be of it; otherwise it plays every card of the
led class it holds plus any others (and then no shape obligation applies: its led-class
cards are fixed). Shape obligation ("as much structure as you can"): let the lead have
tractors (size s_i, length l_i), N3 triple ranks (standalone triples plus the ranks of
triple tractors) and N2 pair ranks (likewise). The *match vector* of a multiset Q of
led-class cards is the lexicographic maximum, over all ways to take disjoint structures
out of Q, of

    (c1, c2, c3) = (tractor cards matched, triples matched, pairs matched)

where each lead tractor i may be answered by at most one segment of Q: a run of k
consecutive powers, 2 <= k <= l_i, of distinct ids each with at least s_i copies (same size
as the lead tractor; a triple in Q can give two copies to a pair segment), counting s_i * k
cards; c2 = min(N3, triples in triple segments + further disjoint triples of Q);
c3 = min(N2 + N3 - c2, pairs in pair segments + further disjoint pairs of Q), i.e. each
lead triple not answered by a triple asks for a pair, and a triple of Q can serve as a pair.
A count-valid play is legal iff the match vector of its led-class cards equals the maximum
over all count-valid plays, which is the match vector of the follower's whole led-class
holding (any optimal matching fits in the lead's card count). ``follow_error`` and
``legal_follows`` / ``random_follow`` use this single definition.

Rule W (winner). The lead wins unless beaten. A later play beats the current winner only
if its canonical structure (the sequence of (size, length) of its units) equals the lead's
and either it is in the current winner's class (led class, or trump after a trumping) with
a higher top of its first (strongest) unit, or it is all trumps while the current winner is
in the led side suit. Equal tops: the earlier play keeps the trick. Plays of another side
suit, mixed plays and plays of another structure never win.

Variants (a :class:`~gunzi.engine.classic_policy.Policy`; docs/rules-classic-variants.md).
[I-23] tractors need ``tractor_min`` units; [I-24] without ``triple_tractors`` triples never
chain. [I-25] without ``break_longer`` no segment answering a lead tractor uses a rank of
a maximal run of the follower's holding longer than that tractor; [I-26] 'pairs': a
segment is exactly as long as the lead tractor; [I-27] ``protect_longer``: only ids with
exactly s copies in the evaluated multiset give s-sized structure (a triple gives no
pair). The budgeted search ignores these two (an upper bound), and a play is legal when
its vector is at least the holding's in each component (Rule F's equality at the
default: no play exceeds its holding there). [I-27] without ``format_draw``
('no-format') no shape is owed, only the led class (as a lead without pairs). [I-20] 'cover':
a play shows, per lead unit in order, the top of the run of its own units covering it (a
pair by a pair, a tractor by as many consecutive pairs, a single by any card left;
'cover-triples': a triple may give a pair), the lexicographically best arrangement, or
cannot win. [I-21] compares two such showings: the first top ('highest-unit'), every top
('every-unit') or the highest card ('highest-card').

Rule K (kitty multiplier). "doubling": 2 ** (1 + number of units of size >= 2 in the
winning play, each rank of a tractor counted, a triple counting as one); "linear": with t
triple ranks and p pair ranks, max(2, 6 t + 4 p). With c the cards of the largest unit:
"unit-size": 2 c; "power": 2 ** c.

Rule G (generators and sampling). All plays are yielded as tuples sorted by card id, each
distinct multiset once. ``legal_leads``: singles, pairs, triples (by card id), then
tractors (pair tractors, then triple tractors; per class every run and sub-run of length
>= 2, every choice among equal-power ids), then throws: every other one-class
sub-multiset, class by class. ``legal_follows``: when short of the led class, all of it
plus every filler; otherwise a branch and bound over the led-class holding whose bound is
the exact best match vector still reachable (so it never explores a dead branch).
``random_lead``: with probability ``throw_chance``, if some class holds two distinct ids, a
uniformly chosen such class and a random count of each of its ids (two distinct ids forced
in; a multiset that happens to be one tractor loses a copy); otherwise a uniform choice
among the single units. ``random_follow``: a random optimal matching (uniform among the
optimal tractor plans, then uniform triples and pairs), then uniform random filler from the
rest of the led-class holding; when short, all led-class cards plus uniform filler. It is
always legal, not uniform over the legal follows.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import product

from gunzi.engine.cards import NAMES, NUM_TYPES
from gunzi.engine.classic_policy import DEFAULT, Policy
from gunzi.engine.errors import InvalidRulesError
from gunzi.engine.order import TRUMP, Order

CLASS_NAMES = ("spades", "hearts", "clubs", "diamonds", "trumps")

Value = tuple[int, int, int]
_Segment = tuple[int, tuple[int, ...]]  # (size, positions in the class table)
_Plan = tuple[tuple[_Segment, ...], tuple[int, ...]]  # segments, counts left after them


@dataclass(frozen=True, slots=True)
class Unit:
    """One combination inside a play: a single, pair, triple or tractor."""

    size: int  # copies per rank: 1 single, 2 pair, 3 triple
    length: int  # consecutive ranks: 1, or >= 2 for a tractor (拖拉机)
    top: int  # power of the unit's highest rank
    cards: tuple[int, ...]  # ranks from low to high, each repeated `size` times

    @property
    def is_tractor(self) -> bool:
        return self.length >= 2


@dataclass(frozen=True, slots=True)
class Shape:
    """A play decomposed into units (Rule D)."""

    cls: int  # the suit class of all cards, or -1 if mixed classes
    units: tuple[Unit, ...]  # canonical decomposition, strongest structure first

    @property
    def count(self) -> int:
        return sum(len(u.cards) for u in self.units)

    @property
    def structure(self) -> tuple[tuple[int, int], ...]:
        """The (size, length) of each unit in canonical order: equal for equal multisets."""
        return tuple((u.size, u.length) for u in self.units)

    @property
    def cards(self) -> tuple[int, ...]:
        return tuple(sorted(c for u in self.units for c in u.cards))


# --------------------------------------------------------------------------- helpers


def _names(cards: Sequence[int], order: Order) -> str:
    return " ".join(NAMES[c] for c in sorted(cards, key=order.sort_key))


def _count(cards: Sequence[int]) -> dict[int, int]:
    cnt: dict[int, int] = {}
    for c in cards:
        cnt[c] = cnt.get(c, 0) + 1
    return cnt


def _holding_error(cnt: dict[int, int], hand: Sequence[int]) -> str | None:
    for c in sorted(cnt):
        if not 0 <= c < NUM_TYPES:
            return f"no such card id {c}"
        if cnt[c] > hand[c]:
            if hand[c] == 0:
                return f"does not hold {NAMES[c]}"
            return f"plays {cnt[c]} × {NAMES[c]} but holds only {hand[c]}"
    return None


class _ClassInfo:
    """The card ids of one class by power, with positions 0..len-1 used by the searches."""

    __slots__ = ("at", "ids", "pw")

    def __init__(self, order: Order, cl: int) -> None:
        self.ids: tuple[int, ...] = order.class_cards[cl]
        self.pw: tuple[int, ...] = tuple(order.power[c] for c in self.ids)
        at: dict[int, list[int]] = {}
        for pos, p in enumerate(self.pw):
            at.setdefault(p, []).append(pos)
        self.at: dict[int, tuple[int, ...]] = {p: tuple(v) for p, v in sorted(at.items())}


_INFO: dict[tuple[int, int, bool, int], _ClassInfo] = {}


def _info(order: Order, cl: int) -> _ClassInfo:
    key = (order.level, order.trump, order.permanent_twos, cl)
    inf = _INFO.get(key)
    if inf is None:
        inf = _INFO[key] = _ClassInfo(order, cl)
    return inf


def _unit_key(u: Unit) -> tuple[int, int, int, int, tuple[int, ...]]:
    return (0 if u.length >= 2 else 1, -u.size * u.length, -u.size, -u.top, u.cards)


def _chain(ids: list[int], size: int, power: Sequence[int], min_len: int = 2) -> list[Unit]:
    """Rule D: units of one class and size, longest runs first (runs of ``min_len`` up)."""
    bypow: dict[int, list[int]] = {}
    for c in sorted(ids):
        bypow.setdefault(power[c], []).append(c)
    out: list[Unit] = []
    while bypow:
        powers = sorted(bypow)
        best_start, best_len = 0, 1
        start = 0
        for i in range(1, len(powers) + 1):
            if i == len(powers) or powers[i] != powers[i - 1] + 1:
                if i - start >= best_len:  # ties: the later run has the higher top
                    best_start, best_len = start, i - start
                start = i
        if best_len < min_len:
            for p in powers:
                for c in bypow[p]:
                    out.append(Unit(size, 1, p, (c,) * size))
            break
        run: list[int] = []
        for p in powers[best_start : best_start + best_len]:
            lst = bypow[p]
            run.append(lst.pop(0))
            if not lst:
                del bypow[p]
        cards = tuple(c for c in run for _ in range(size))
        out.append(Unit(size, best_len, power[run[-1]], cards))
    return out


def decompose(cards: Sequence[int], order: Order, pol: Policy = DEFAULT) -> Shape:
    """Canonical decomposition of a play into units (Rules U, T, D; [I-23], [I-24])."""
    cnt = _count(cards)
    if not cnt:
        return Shape(-1, ())
    ocls = order.cls
    power = order.power
    units: list[Unit] = []
    groups: dict[tuple[int, int], list[int]] = {}
    classes: set[int] = set()
    for c, m in cnt.items():
        cl = ocls[c]
        classes.add(cl)
        if m == 1:
            units.append(Unit(1, 1, power[c], (c,)))
        else:
            groups.setdefault((cl, m), []).append(c)
    for (_cl, m), ids in groups.items():
        if len(ids) == 1 or (m == 3 and not pol.triple_tractors):
            units.extend(Unit(m, 1, power[c], (c,) * m) for c in sorted(ids))
        else:
            units.extend(_chain(ids, m, power, pol.tractor_min))
    units.sort(key=_unit_key)
    return Shape(classes.pop() if len(classes) == 1 else -1, tuple(units))


def _is_single_unit(cnt: dict[int, int], power: Sequence[int], pol: Policy = DEFAULT) -> bool:
    """Whether a non-empty one-class multiset is exactly one unit (Rule T)."""
    if len(cnt) == 1:
        return True
    sizes = set(cnt.values())
    if len(sizes) != 1 or len(cnt) < pol.tractor_min:
        return False
    size = sizes.pop()
    if size < 2 or (size == 3 and not pol.triple_tractors):
        return False
    ps = sorted(power[c] for c in cnt)
    return all(ps[i] + 1 == ps[i + 1] for i in range(len(ps) - 1))


# --------------------------------------------------------------------------- leads


def lead_error(cards: Sequence[int], hand: Sequence[int], order: Order) -> str | None:
    """None if ``cards`` is a legal lead from ``hand`` (Rule L), else the reason."""
    if not cards:
        return "a lead needs at least one card"
    cnt = _count(cards)
    err = _holding_error(cnt, hand)
    if err:
        return err
    by_cls: dict[int, list[int]] = {}
    for c in cards:
        by_cls.setdefault(order.cls[c], []).append(c)
    if len(by_cls) > 1:
        parts = ", ".join(
            f"{CLASS_NAMES[cl]} ({_names(cs, order)})" for cl, cs in sorted(by_cls.items())
        )
        return f"a lead must be all of one suit class, not {parts}"
    return None


def _beater(unit: Unit, hand: Sequence[int], inf: _ClassInfo) -> tuple[int, ...] | None:
    """The lowest unit of ``hand`` in the unit's class that beats ``unit`` (Rule L): its
    cards, or None."""
    s, length, top = unit.size, unit.length, unit.top
    run: list[int] = []
    last = -2
    for p, positions in inf.at.items():
        if p <= top - length:  # runs ending above top start above top - length
            continue
        held = next((inf.ids[pos] for pos in positions if hand[inf.ids[pos]] >= s), None)
        if held is None:
            run = []
            continue
        run = [*run, held] if p == last + 1 else [held]
        last = p
        if p > top and len(run) >= length:
            return tuple(c for c in run[-length:] for _ in range(s))
    return None


def failed_throw(lead: Shape, others: Sequence[Sequence[int]], order: Order) -> Unit | None:
    """The part a throw must be reduced to, or None if the lead stands (Rule L).

    ``others`` are the other players' hands as 54 counts.
    """
    if len(lead.units) <= 1 or lead.cls < 0:
        return None
    inf = _info(order, lead.cls)
    failing = [
        u for u in lead.units if any(_beater(u, h, inf) is not None for h in others)
    ]
    if not failing:
        return None
    return min(failing, key=lambda u: (len(u.cards), u.top, u.size, u.cards))


def blocker(unit: Unit, seat: int, hands: Sequence[Sequence[int]],
            order: Order) -> tuple[int, tuple[int, ...]] | None:
    """Who stops ``seat``'s throw at ``unit`` (its forced part): the first other seat in play
    order whose hand (``hands``: the four as 54 counts) beats it, and the beating cards."""
    inf = _info(order, order.cls[unit.cards[0]])
    for i in (1, 2, 3):
        cards = _beater(unit, hands[(seat + i) % 4], inf)
        if cards is not None:
            return (seat + i) % 4, cards
    return None


def _single_units(
    hand: Sequence[int], order: Order, pol: Policy = DEFAULT
) -> Iterator[tuple[int, ...]]:
    """Singles, then pairs, then triples, then tractors that ``hand`` can lead."""
    held = [c for c in range(NUM_TYPES) if hand[c] > 0]
    for size in (1, 2, 3):
        for c in held:
            if hand[c] >= size:
                yield (c,) * size
    for size in (2, 3) if pol.triple_tractors else (2,):
        for cl in range(5):
            if sum(1 for c in order.class_cards[cl] if hand[c] >= size) < pol.tractor_min:
                continue
            inf = _info(order, cl)
            yield from _tractors_in(inf, [hand[c] for c in inf.ids], size, 99, pol.tractor_min)


def _eligible_runs(
    inf: _ClassInfo, total: Sequence[int], size: int, exact: bool = False
) -> list[list[tuple[int, ...]]]:
    """Maximal runs of consecutive powers, each power given as its positions with >= size
    copies (``exact``: with exactly ``size``, for [I-27]'s protected longer tuples)."""
    runs: list[list[tuple[int, ...]]] = []
    cur: list[tuple[int, ...]] = []
    last = -2
    for p, positions in inf.at.items():
        ok = tuple(
            pos for pos in positions if total[pos] == size or (total[pos] > size and not exact)
        )
        if ok:
            if p != last + 1 and cur:
                runs.append(cur)
                cur = []
            cur.append(ok)
            last = p
        elif cur:
            runs.append(cur)
            cur = []
    if cur:
        runs.append(cur)
    return [r for r in runs if len(r) >= 2]


def _tractors_in(
    inf: _ClassInfo, total: Sequence[int], size: int, max_len: int, min_len: int = 2
) -> Iterator[tuple[int, ...]]:
    for run in _eligible_runs(inf, total, size):
        for start in range(len(run) - min_len + 1):
            for k in range(min_len, min(max_len, len(run) - start) + 1):
                for choice in product(*run[start : start + k]):
                    yield tuple(sorted(inf.ids[pos] for pos in choice for _ in range(size)))


def legal_leads(
    hand: Sequence[int], order: Order, pol: Policy = DEFAULT
) -> Iterator[tuple[int, ...]]:
    """Every legal lead as a sorted tuple, lazily: single units first, then throws."""
    yield from _single_units(hand, order, pol)
    power = order.power
    for cl in range(5):
        items = [(c, hand[c]) for c in order.class_cards[cl] if hand[c] > 0]
        if len(items) < 2:
            continue
        for counts in product(*[range(h + 1) for _, h in items]):
            cnt = {c: k for (c, _), k in zip(items, counts, strict=True) if k}
            if len(cnt) < 2 or _is_single_unit(cnt, power, pol):
                continue
            yield tuple(sorted(c for c, k in cnt.items() for _ in range(k)))


def random_lead(
    hand: Sequence[int],
    order: Order,
    rng: random.Random,
    throw_chance: float = 0.1,
    pol: Policy = DEFAULT,
) -> tuple[int, ...]:
    """A random legal lead: a uniform single unit, or with ``throw_chance`` a random throw."""
    if rng.random() < throw_chance:
        classes = [
            cl
            for cl in range(5)
            if sum(1 for c in order.class_cards[cl] if hand[c] > 0) >= 2
        ]
        if classes:
            cl = rng.choice(classes)
            held = [c for c in order.class_cards[cl] if hand[c] > 0]
            a, b = rng.sample(held, 2)
            cnt = {c: rng.randint(0, hand[c]) for c in held}
            cnt[a] = max(cnt[a], 1)
            cnt[b] = max(cnt[b], 1)
            cnt = {c: k for c, k in cnt.items() if k}
            if _is_single_unit(cnt, order.power, pol):  # a tractor: break it with a lone copy
                cnt[a] = 1
            return tuple(sorted(c for c, k in cnt.items() for _ in range(k)))
    units = list(_single_units(hand, order, pol))
    if not units:
        raise ValueError("cannot lead from an empty hand")
    return rng.choice(units)


# --------------------------------------------------------------------------- follows


@dataclass(frozen=True, slots=True)
class _Req:
    """What a lead asks of a follower's structure (Rule F)."""

    n: int
    tractors: tuple[tuple[int, int], ...]  # (size, length)
    n3: int
    n2: int

    @property
    def trivial(self) -> bool:
        return not self.tractors and self.n3 == 0 and self.n2 == 0


def _req(lead: Shape) -> _Req:
    tractors: list[tuple[int, int]] = []
    n3 = n2 = n = 0
    for u in lead.units:
        n += len(u.cards)
        if u.size == 3:
            n3 += u.length
        elif u.size == 2:
            n2 += u.length
        if u.length >= 2 and u.size in (2, 3):
            tractors.append((u.size, u.length))
    return _Req(n, tuple(tractors), n3, n2)


def _rest_free(
    need3: int, pbase: int, ch: Sequence[int], protect: bool = False
) -> tuple[int, int]:
    """Triples and pairs matched from counts ``ch`` (no budget); ``protect``: a triple
    never serves as a pair ([I-27])."""
    n_trip = n_pair = 0
    for x in ch:
        if x >= 2:
            if x >= 3:
                n_trip += 1
                if protect:
                    continue
            n_pair += 1
    t = min(need3, n_trip)
    return t, min(pbase - t, n_pair - (0 if protect else t))


def _rest_budget(
    need3: int, pbase: int, ch: Sequence[int], av: Sequence[int], budget: int
) -> tuple[int, int]:
    """Triples and pairs matched when ``ch`` is free and at most ``budget`` of ``av`` is added.

    Lexicographic: most triples first, then most pairs (ids with up to 3 copies).
    """
    cat3 = [0, 0, 0, 0]  # ids able to give a triple, by chosen copies (0..3)
    cat2 = [0, 0, 0]  # ids able to give a pair only, by chosen copies (0..2)
    for x, y in zip(ch, av, strict=True):
        tot = x + y
        if tot >= 3:
            cat3[min(x, 3)] += 1
        elif tot == 2:
            cat2[x] += 1
    t = spent = 0
    for k in (3, 2, 1, 0):  # cheapest triples first: cost 3 - k
        cost = 3 - k
        take = cat3[k] if cost == 0 else min(cat3[k], (budget - spent) // cost)
        take = min(take, need3 - t)
        t += take
        spent += take * cost
    pneed = pbase - t
    if pneed <= 0:
        return t, 0
    best_p = 0
    for x3 in range(min(cat3[3], t) + 1):
        for x2 in range(min(cat3[2], t - x3) + 1):
            for x1 in range(min(cat3[1], t - x3 - x2) + 1):
                x0 = t - x3 - x2 - x1
                if x0 > cat3[0]:
                    continue
                left = budget - (x2 + 2 * x1 + 3 * x0)
                if left < 0:
                    continue
                z0 = min(pneed, cat3[3] - x3 + cat3[2] - x2 + cat2[2])
                z1 = min(pneed - z0, cat3[1] - x1 + cat2[1], left)
                z2 = min(pneed - z0 - z1, cat3[0] - x0 + cat2[0], (left - z1) // 2)
                best_p = max(best_p, z0 + z1 + z2)
    return t, best_p


def _search(
    req: _Req,
    inf: _ClassInfo,
    ch: list[int],
    av: list[int] | None,
    budget: int,
    keep: bool = False,
    pol: Policy = DEFAULT,
    ref: list[int] | None = None,
) -> tuple[Value, list[_Plan]]:
    """The match vector (Rule F) of ``ch``, or with ``av``: the best vector reachable by
    adding at most ``budget`` cards of ``av`` to ``ch``. ``keep`` collects optimal plans.

    With ``av`` the vector is an upper bound: [I-25] and [I-27] are applied only to an
    exact ``ch``; [I-23] and [I-26] limit segment lengths and hold for every multiset.
    [I-25] protects the ranks of the runs of the follower's holding ``ref`` (default
    ``ch``) longer than a lead tractor: no segment answering it uses them, so adding
    cards to a play never takes structure away from it."""
    tractors = req.tractors
    nt = len(tractors)
    budgeted = av is not None
    protect = pol.protect_longer and not budgeted
    cap_runs = not pol.break_longer and not budgeted
    tmin = pol.tractor_min
    pairs_only = pol.short_tractor == "pairs"
    blocked: list[frozenset[int]] = []
    if cap_runs:
        base = ref if ref is not None else ch
        blocked = [
            frozenset(pos for run in _eligible_runs(inf, base, s, protect) if len(run) > length
                      for group in run for pos in group)
            for s, length in tractors
        ]
    av0 = av if av is not None else [0] * len(ch)
    pbase_all = req.n2 + req.n3
    ub = [0] * (nt + 1)
    for i in range(nt - 1, -1, -1):
        ub[i] = ub[i + 1] + tractors[i][0] * tractors[i][1]
    best: list[Value] = [(-1, -1, -1)]
    plans: list[_Plan] = []
    segs: list[_Segment] = []

    def rec(i: int, c: list[int], a: list[int], left: int, k3: int, k2: int, c1: int) -> None:
        if i == nt:
            need3 = req.n3 - k3
            pbase = pbase_all - k3 - k2
            if budgeted:
                t, p = _rest_budget(need3, pbase, c, a, left)
            else:
                t, p = _rest_free(need3, pbase, c, protect)
            val = (c1, k3 + t, k2 + p)
            if val > best[0]:
                best[0] = val
                if keep:
                    plans.clear()
            if keep and val == best[0]:
                plans.append((tuple(segs), tuple(c)))
            return
        if c1 + ub[i] < best[0][0]:
            return
        s, length = tractors[i]
        total = [x + y for x, y in zip(c, a, strict=True)] if budgeted else c
        if cap_runs:
            total = [0 if pos in blocked[i] else x for pos, x in enumerate(total)]
        for run in _eligible_runs(inf, total, s, protect):
            lowest = length if pairs_only else tmin
            for k in range(min(length, len(run)), lowest - 1, -1):
                for start in range(len(run) - k + 1):
                    for choice in product(*run[start : start + k]):
                        c2 = c.copy()
                        a2 = a.copy() if budgeted else a
                        cost = 0
                        for pos in choice:
                            use = min(s, c2[pos])
                            c2[pos] -= use
                            if use < s:
                                a2[pos] -= s - use
                                cost += s - use
                        if cost > left:
                            continue
                        segs.append((s, choice))
                        k3n = k3 + (k if s == 3 else 0)
                        k2n = k2 + (k if s == 2 else 0)
                        rec(i + 1, c2, a2, left - cost, k3n, k2n, c1 + s * k)
                        segs.pop()
        rec(i + 1, c, a, left, k3, k2, c1)

    rec(0, ch, av0, budget, 0, 0, 0)
    return best[0], plans


def _value(
    req: _Req, inf: _ClassInfo, counts: list[int], pol: Policy = DEFAULT,
    ref: list[int] | None = None,
) -> Value:
    if req.trivial:
        return (0, 0, 0)
    return _search(req, inf, counts, None, 0, pol=pol, ref=ref)[0]


def _meets(got: Value, want: Value) -> bool:
    """A play's vector satisfies the holding's: at least as much of each kind of structure.

    At the default policy no play exceeds its holding's vector, so this is equality; the
    protections ([I-25], [I-27]) can let a play show more than its holding obliges."""
    return got[0] >= want[0] and got[1] >= want[1] and got[2] >= want[2]


@dataclass(frozen=True, slots=True)
class _Matching:
    """One optimal matching of a holding: its structures, as card ids."""

    segments: tuple[tuple[int, tuple[int, ...]], ...]  # (size, cards)
    triples: tuple[tuple[int, ...], ...]
    pairs: tuple[tuple[int, ...], ...]

    def cards(self) -> list[int]:
        groups = (*(seg for _, seg in self.segments), *self.triples, *self.pairs)
        return [c for group in groups for c in group]


def _matching(
    req: _Req,
    inf: _ClassInfo,
    counts: list[int],
    rng: random.Random | None,
    pol: Policy = DEFAULT,
) -> tuple[Value, _Matching]:
    """An optimal matching of ``counts``: random among optimal plans, or the first one
    (strongest triples and pairs) when ``rng`` is None."""
    val, plans = _search(req, inf, counts, None, 0, keep=True, pol=pol)
    segs, left = plans[0] if rng is None else rng.choice(plans)
    ids = inf.ids
    need3 = req.n3 - sum(len(p) for s, p in segs if s == 3)
    t = val[1] - (req.n3 - need3)
    trip_cands = [pos for pos in range(len(left)) if left[pos] >= 3]
    trips = trip_cands[::-1][:t] if rng is None else rng.sample(trip_cands, t)
    k2 = sum(len(p) for s, p in segs if s == 2)
    p_n = val[2] - k2
    taken = set(trips)
    pair_cands = [
        pos for pos in range(len(left))
        if (left[pos] == 2 or (left[pos] > 2 and not pol.protect_longer)) and pos not in taken
    ]
    pairs = pair_cands[::-1][:p_n] if rng is None else rng.sample(pair_cands, p_n)
    return val, _Matching(
        segments=tuple((s, tuple(ids[pos] for pos in p for _ in range(s))) for s, p in segs),
        triples=tuple((ids[pos],) * 3 for pos in trips),
        pairs=tuple((ids[pos],) * 2 for pos in pairs),
    )


def _shape_message(
    req: _Req, inf: _ClassInfo, hold: list[int], got: Value, order: Order, cl: int,
    pol: Policy = DEFAULT,
) -> str:
    want, m = _matching(req, inf, hold, None, pol)
    name = CLASS_NAMES[cl]
    if got[0] < want[0]:
        cards = [c for _, seg in m.segments for c in seg]
        what = "a longer tractor" if got[0] and len(m.segments) == 1 else "a tractor"
        if len(m.segments) > 1:
            what = f"tractors of {want[0]} cards"
        return f"must play {what} of {name}: holds {_names(cards, order)}"
    if got[1] < want[1]:
        cards = [c for s, seg in m.segments if s == 3 for c in seg]
        cards += [c for tr in m.triples for c in tr]
        what = "a triple" if want[1] == 1 else f"{want[1]} triples"
        extra = "" if want[1] == 1 else f" (plays {got[1]})"
        return f"must play {what} of {name}: holds {_names(cards, order)}{extra}"
    cards = [c for s, seg in m.segments if s == 2 for c in seg]
    cards += [c for pr in m.pairs for c in pr]
    what = "a pair" if want[2] == 1 else f"{want[2]} pairs"
    extra = "" if want[2] == 1 else f" (plays {got[2]})"
    return f"must play {what} of {name}: holds {_names(cards, order)}{extra}"


def _lead_class(lead: Shape) -> int:
    if lead.cls < 0 or not lead.units:
        raise ValueError("the lead must be a non-empty play of one suit class")
    return lead.cls


def follow_error(
    lead: Shape, play: Sequence[int], hand: Sequence[int], order: Order, pol: Policy = DEFAULT
) -> str | None:
    """None if ``play`` legally follows ``lead`` from ``hand`` (Rule F), else the reason."""
    cl = _lead_class(lead)
    req = _req(lead)
    n = req.n
    if len(play) != n:
        return f"must play {n} card{'s' if n != 1 else ''} to follow, not {len(play)}"
    cnt = _count(play)
    err = _holding_error(cnt, hand)
    if err:
        return err
    inf = _info(order, cl)
    hold = [hand[c] for c in inf.ids]
    held = sum(hold)
    ocls = order.cls
    in_cls = sum(m for c, m in cnt.items() if ocls[c] == cl)
    name = CLASS_NAMES[cl]
    if held < n:
        if in_cls < held:
            cards = [c for c in inf.ids for _ in range(hand[c])]
            return f"must play every card of {name} held: {_names(cards, order)}"
        return None
    if in_cls < n:
        cards = [c for c in inf.ids for _ in range(hand[c])]
        return f"must follow {name}: holds {_names(cards, order)}"
    if req.trivial or not pol.format_draw:
        return None
    got = _value(req, inf, [cnt.get(c, 0) for c in inf.ids], pol, hold)
    want = _value(req, inf, hold, pol)
    if _meets(got, want):
        return None
    return _shape_message(req, inf, hold, got, order, cl, pol)


def _submultisets(items: list[tuple[int, int]], k: int) -> Iterator[list[int]]:
    """Every sub-multiset of size ``k`` of ``items`` ((card, count) pairs), lazily."""
    suffix = [0] * (len(items) + 1)
    for i in range(len(items) - 1, -1, -1):
        suffix[i] = suffix[i + 1] + items[i][1]
    acc: list[int] = []

    def rec(i: int, k: int) -> Iterator[list[int]]:
        if k == 0:
            yield list(acc)
            return
        if suffix[i] < k:
            return
        c, h = items[i]
        for m in range(min(h, k), -1, -1):
            if suffix[i + 1] < k - m:
                break
            acc.extend([c] * m)
            yield from rec(i + 1, k - m)
            del acc[len(acc) - m :]

    return rec(0, k)


def legal_follows(
    lead: Shape, hand: Sequence[int], order: Order, pol: Policy = DEFAULT
) -> Iterator[tuple[int, ...]]:
    """Every legal follow as a sorted tuple, lazily (Rule F; agrees with follow_error)."""
    cl = _lead_class(lead)
    req = _req(lead)
    n = req.n
    inf = _info(order, cl)
    hold = [hand[c] for c in inf.ids]
    held = sum(hold)
    if held < n:
        fixed = [c for c in inf.ids for _ in range(hand[c])]
        ocls = order.cls
        others = [(c, hand[c]) for c in range(NUM_TYPES) if hand[c] > 0 and ocls[c] != cl]
        for sub in _submultisets(others, n - held):
            yield tuple(sorted(fixed + sub))
        return
    if req.trivial or not pol.format_draw:
        items = [(c, hand[c]) for c in inf.ids if hand[c] > 0]
        for sub in _submultisets(items, n):
            yield tuple(sorted(sub))
        return
    yield from _branch_and_bound(req, inf, hold, _value(req, inf, hold, pol), pol)


def _branch_and_bound(
    req: _Req, inf: _ClassInfo, hold: list[int], vmax: Value, pol: Policy = DEFAULT
) -> Iterator[tuple[int, ...]]:
    """Sub-multisets of ``hold`` of size req.n whose match vector meets ``vmax``.

    Positions are decided in order; a branch is kept only if the best vector reachable
    from it (budget-aware) is at least ``vmax``. At the default policy that bound is exact,
    so no branch is a dead end; the protections make it an upper bound, and a finished
    multiset is checked exactly.
    """
    order_pos = [pos for pos in range(len(hold)) if hold[pos] > 0]
    m = len(order_pos)
    suffix = [0] * (m + 1)
    for j in range(m - 1, -1, -1):
        suffix[j] = suffix[j + 1] + hold[order_pos[j]]
    ch = [0] * len(hold)
    av = list(hold)
    ids = inf.ids

    def rec(j: int, b: int) -> Iterator[tuple[int, ...]]:
        if b == 0:
            yield tuple(sorted(ids[pos] for pos in order_pos for _ in range(ch[pos])))
            return
        pos = order_pos[j]
        h = av[pos]
        av[pos] = 0
        for k in range(min(h, b), -1, -1):
            b2 = b - k
            if suffix[j + 1] < b2:
                break
            ch[pos] = k
            # nothing left to add: the plain vector of ch; else the budget-aware bound
            val = _search(req, inf, ch, av if b2 else None, b2, pol=pol, ref=hold)[0]
            if _meets(val, vmax) if b2 == 0 else val >= vmax:
                yield from rec(j + 1, b2)
        ch[pos] = 0
        av[pos] = h

    return rec(0, req.n)


def random_follow(
    lead: Shape, hand: Sequence[int], order: Order, rng: random.Random, pol: Policy = DEFAULT
) -> tuple[int, ...]:
    """A random legal follow, built directly: the obligations first, then random filler."""
    cl = _lead_class(lead)
    req = _req(lead)
    n = req.n
    inf = _info(order, cl)
    hold = [hand[c] for c in inf.ids]
    held = sum(hold)
    if held < n:
        fixed = [c for c in inf.ids for _ in range(hand[c])]
        ocls = order.cls
        others = [c for c in range(NUM_TYPES) if ocls[c] != cl for _ in range(hand[c])]
        if len(others) < n - held:
            raise ValueError(f"a hand of {held + len(others)} cards cannot follow {n}")
        return tuple(sorted(fixed + rng.sample(others, n - held)))
    core: list[int] = []
    if not req.trivial and pol.format_draw:
        core = _matching(req, inf, hold, rng, pol)[1].cards()
    rest = {c: hand[c] for c in inf.ids}
    for c in core:
        rest[c] -= 1
    pool = [c for c, k in rest.items() for _ in range(k)]
    return tuple(sorted(core + rng.sample(pool, n - len(core))))


# --------------------------------------------------------------------------- winner, kitty


def _cover_tops(lead: Shape, play: Shape, order: Order, split: bool) -> tuple[int, ...] | None:
    """[I-20] 'cover': the best tops (lexicographic, in the lead's unit order) of a way to
    cover every unit of ``lead`` with the cards of ``play``, or None if there is none.

    A lead unit of size s and length l is covered by l consecutive powers of the play each
    held s times (a tractor of the play gives its pairs or a shorter run; with ``split``
    an id played three times also covers a pair); singles take the highest cards left."""
    power = order.power
    left = dict(_count(play.cards))
    units = lead.units
    best: list[tuple[int, ...] | None] = [None]
    tops: list[int] = []

    def fits(m: int, size: int) -> bool:
        return m == size or (split and m > size)

    def rec(i: int) -> None:
        if i == len(units) or units[i].size == 1:
            rest = sorted((power[c] for c, m in left.items() for _ in range(m)), reverse=True)
            cand = (*tops, *rest[: len(units) - i])
            if best[0] is None or cand > best[0]:
                best[0] = cand
            return
        u = units[i]
        bypow: dict[int, list[int]] = {}
        for c, m in left.items():
            if fits(m, u.size):
                bypow.setdefault(power[c], []).append(c)
        for top in sorted(bypow, reverse=True):
            run = [bypow.get(top - k, []) for k in range(u.length)]
            if not all(run):
                continue
            for choice in product(*run):
                for c in choice:
                    left[c] -= u.size
                tops.append(top)
                rec(i + 1)
                tops.pop()
                for c in choice:
                    left[c] += u.size

    rec(0)
    return best[0]


def _fit(lead: Shape, play: Shape, order: Order, pol: Policy) -> tuple[int, ...] | None:
    """The tops a play shows against each unit of the lead, or None if it cannot win."""
    if play.cls < 0:
        return None
    if pol.trump_structure == "same" or len(play.units) == 0:
        if play.structure != lead.structure:
            return None
        return tuple(u.top for u in play.units)
    return _cover_tops(lead, play, order, pol.trump_structure == "cover-triples")


def _beats(new: tuple[int, ...], old: tuple[int, ...], new_high: int, old_high: int,
           mode: str) -> bool:
    """[I-21]: whether a play with unit tops ``new`` beats the current winner's ``old``."""
    if mode == "every-unit":
        return all(a > b for a, b in zip(new, old, strict=True))
    if mode == "highest-card":
        return new_high > old_high
    return new[0] > old[0]


def trick_winner(
    lead: Shape, plays: Sequence[Sequence[int]], order: Order, pol: Policy = DEFAULT
) -> int:
    """Index into ``plays`` (plays[0] is the lead) of the play that wins the trick (Rule W)."""
    led = lead.cls
    power = order.power
    by_card = pol.throw_compare == "highest-card"
    best = 0
    best_cls = led
    best_tops = tuple(u.top for u in lead.units)
    best_high = max((power[c] for c in plays[0]), default=-1) if by_card else -1
    for i in range(1, len(plays)):
        shape = decompose(plays[i], order, pol)
        tops = _fit(lead, shape, order, pol)
        if tops is None:
            continue
        high = max(power[c] for c in plays[i]) if by_card else -1
        if shape.cls == best_cls:
            if _beats(tops, best_tops, high, best_high, pol.throw_compare):
                best, best_tops, best_high = i, tops, high
        elif shape.cls == TRUMP and best_cls == led:
            best, best_cls, best_tops, best_high = i, TRUMP, tops, high
    return best


def kitty_multiplier(winning: Shape, mode: str) -> int:
    """Kitty points multiplier for the last trick's winning play (Rule K)."""
    largest = max((len(u.cards) for u in winning.units), default=1)
    if mode == "unit-size":
        return 2 * largest
    if mode == "power":
        return 1 << largest
    if mode == "doubling":
        return 1 << (1 + sum(u.length for u in winning.units if u.size >= 2))
    if mode == "linear":
        t = sum(u.length for u in winning.units if u.size == 3)
        p = sum(u.length for u in winning.units if u.size == 2)
        return max(2, 6 * t + 4 * p)
    raise InvalidRulesError(
        f"unknown kitty multiplier mode {mode!r}: use 'doubling', 'linear', 'unit-size' or "
        "'power'")
