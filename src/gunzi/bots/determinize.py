"""Guess the hidden cards: deals of the unseen cards consistent with what one seat knows.

:func:`knowledge` reads a :class:`~gunzi.bots.base.Decision` (the seat's view and own
hand, nothing else) and works out

* the *unknown* cards: the whole pack minus the own hand, every played card and the
  kitty cards the seat has seen;
* the *places* they may be in: each other seat (as many as its hand size) and the
  kitty when the seat has not seen it;
* hard constraints: suit-class voids (a seat that did not follow the led class when it
  had to holds none of it for the rest of the hand), no joker in a hidden 打滚子 kitty
  (a buried joker shows the kitty, A6.5), and lower bounds "at least k copies of card c
  among these places" from cards the seat saw in someone's hand: a declaration, the
  tribute it gave (or returned, if the caller remembers), a reversed or cancelled
  tribute (three BJ). A card seen in a hand may since have moved along the hidden
  transfers of the hand (tribute, return, burying, joker burying and its pick-up), so a
  bound covers every place the card could have reached, and subtracts the copies those
  seats played;
* soft facts: shapes a seat did not play when it had to (死棒: no pair shown when a pair
  was led means it held no exact pair of that class then, and likewise for triples).

:func:`sample` deals the unknown cards to the places: the bounded copies first, then the
cards with restricted places, then the rest, each to a place chosen with probability
proportional to its free room among the places that keep the rest feasible. Feasibility
is exact (Hall's condition over the at most 16 sets of places), so a sample never
breaks a hard constraint; soft facts are met by rejection when possible. Without
constraints the sample is exactly uniform (it is dealing a shuffled pack).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gunzi.bots.base import Decision
from gunzi.engine import cards as C
from gunzi.engine.cards import BJ, LJ, NUM_TYPES, POINTS, Card
from gunzi.engine.match import Match
from gunzi.engine.order import Order, order_for
from gunzi.engine.position import play_position
from gunzi.engine.rules import Ruleset
from gunzi.engine.variant import variant_of

KITTY = 4  # the hidden kitty as a place (seats are 0..3)

# Stages of a hand at which a card can be seen in a hand; later hidden transfers move it.
DRAW, TRIBUTED, RETURNED, BURIED = 0, 1, 2, 3


@dataclass(frozen=True)
class Bound:
    """At least ``count`` copies of ``card`` are among ``places`` (seats, or KITTY)."""

    places: frozenset[int]
    card: Card
    count: int


@dataclass(frozen=True)
class ShapeFact:
    """When it followed in some trick, ``seat`` held no card of ``cls`` whose count was in
    ``counts``; ``since`` are the cards it has played from that trick on (as counts)."""

    seat: int
    cls: int
    counts: frozenset[int]
    since: Mapping[Card, int]


@dataclass
class Knowledge:
    """Everything one seat knows about where the unseen cards are (see the module doc)."""

    seat: int
    rules: Ruleset
    order: Order
    dealer: int
    own: list[int]
    unknown: list[int]  # counts of the cards whose place the seat does not know
    room: list[int]  # free room per place: seats 0..3 (own seat 0), KITTY
    banned: list[set[Card]]  # per place, card ids it cannot hold
    bounds: list[Bound]
    shapes: list[ShapeFact]
    kitty_known: list[Card] | None  # the kitty, if the seat knows it
    played: list[list[int]]  # cards each seat has played this hand (counts)
    voids: list[set[int]] = field(default_factory=lambda: [set() for _ in range(4)])

    def allowed(self, place: int, card: Card) -> bool:
        return self.room[place] > 0 and card not in self.banned[place]

    def consistent(self, hands: Sequence[Sequence[int]], kitty: Sequence[Card],
                   soft: bool = True) -> str | None:
        """None if a full deal (four hands, kitty) fits everything known, else why not."""
        if list(hands[self.seat]) != self.own:
            return "own hand differs"
        total = [0] * NUM_TYPES
        for s in range(4):
            if s == self.seat:
                continue
            if sum(hands[s]) != self.room[s]:
                return f"seat {s} holds {sum(hands[s])} cards, not {self.room[s]}"
            for c in range(NUM_TYPES):
                if hands[s][c]:
                    total[c] += hands[s][c]
                    if c in self.banned[s]:
                        return f"seat {s} cannot hold {C.NAMES[c]}"
        if self.kitty_known is not None:
            if sorted(kitty) != sorted(self.kitty_known):
                return "kitty differs from the known kitty"
        else:
            if len(kitty) != self.room[KITTY]:
                return f"kitty holds {len(kitty)} cards, not {self.room[KITTY]}"
            for c in kitty:
                total[c] += 1
                if c in self.banned[KITTY]:
                    return f"the hidden kitty cannot hold {C.NAMES[c]}"
        if total != self.unknown:
            return "the cards dealt are not the unknown cards"
        for b in self.bounds:
            have = sum(
                (kitty.count(b.card) if p == KITTY else hands[p][b.card]) for p in b.places
            )
            if have < b.count:
                return f"fewer than {b.count} {C.NAMES[b.card]} among {sorted(b.places)}"
        if soft:
            for f in self.shapes:
                if not _shape_ok(f, hands[f.seat], self.order):
                    return f"seat {f.seat} would have held a shape it did not play"
        return None


@dataclass(frozen=True)
class Deal:
    """One guess: all four hands (the own one included) and the kitty."""

    hands: list[list[int]]
    kitty: list[Card]


def _shape_ok(f: ShapeFact, hand: Sequence[int], order: Order) -> bool:
    return all(hand[c] + f.since.get(c, 0) not in f.counts for c in order.class_cards[f.cls])


# ------------------------------------------------------------------- reading the view


def _cards(names: Iterable[str]) -> list[Card]:
    return [C.parse(x) for x in names]


def _plays(view: Mapping[str, Any]) -> list[list[tuple[int, list[Card]]]]:
    """Every trick of the hand so far (the one in progress last) as (seat, cards) plays."""
    out: list[list[tuple[int, list[Card]]]] = []
    for t in view["tricks"]:
        leader = t["leader"]
        out.append([((leader + i) % 4, _cards(p)) for i, p in enumerate(t["plays"])])
    current = [(p["seat"], _cards(p["cards"])) for p in view["trick"]["plays"]]
    if current:
        out.append(current)
    return out


def knowledge(decision: Decision, memory: Sequence[tuple[int, Sequence[Card], int]] = ()
              ) -> Knowledge:
    """What ``decision.seat`` knows about the unseen cards during the play phase.

    ``memory`` adds cards the seat saw in another seat's hand that the view no longer
    shows, as ``(holder, cards, stage)`` (e.g. the cards it returned after a tribute,
    stage ``RETURNED``).
    """
    view = decision.view
    rules = decision.rules
    me = decision.seat
    level = C.RANKS.index(view["level"])
    trump = C.SUITS.index(view["trump"]) if view["trump"] else -1
    order = order_for(level, trump, rules.permanent_twos)
    cls = order.cls
    dealer = view["dealer"]
    own = list(decision.hand)
    sizes = list(view["hand_sizes"])
    unknown = [rules.decks - own[c] for c in range(NUM_TYPES)]
    played = [[0] * NUM_TYPES for _ in range(4)]
    tricks = _plays(view)
    for trick in tricks:
        for s, cards in trick:
            for c in cards:
                played[s][c] += 1
                unknown[c] -= 1
    kv = view["kitty"]
    kitty_known: list[Card] | None = None
    room = [0, 0, 0, 0, 0]
    if kv["cards"] is not None:
        kitty_known = _cards(kv["cards"])
        for c in kitty_known:
            unknown[c] -= 1
    else:
        room[KITTY] = kv["size"]
    for s in range(4):
        if s != me:
            room[s] = sizes[s]
    if any(k < 0 for k in unknown) or sum(unknown) != sum(room):
        raise ValueError("the view does not add up: cards seen twice or hand sizes off")
    banned: list[set[Card]] = [set() for _ in range(5)]
    voids: list[set[int]] = [set() for _ in range(4)]
    shapes: list[ShapeFact] = []
    live = not variant_of(rules).dead_follow(rules)
    for t, trick in enumerate(tricks):
        lead = trick[0][1]
        n = len(lead)
        led = cls[lead[0]]
        for s, cards in trick[1:]:
            inside = sum(1 for c in cards if cls[c] == led)
            if inside < n:
                voids[s].add(led)
                continue
            if live or s == me or n == 1:
                continue
            distinct = len(set(cards))
            counts: frozenset[int] = frozenset()
            if n == 2 and distinct == 2:
                counts = frozenset((2,))
            elif n == 3 and distinct == 3:
                counts = frozenset((2, 3))
            elif n == 3 and distinct == 2:
                counts = frozenset((3,))
            if counts:
                since: dict[Card, int] = {}
                for later in tricks[t:]:
                    for s2, cards2 in later:
                        if s2 == s:
                            for c in cards2:
                                since[c] = since.get(c, 0) + 1
                shapes.append(ShapeFact(s, led, counts, since))
    for s in range(4):
        if s == me:
            continue
        for k in voids[s]:
            banned[s].update(order.class_cards[k])
    if variant_of(rules).buried_jokers_shown and room[KITTY]:
        banned[KITTY].update((LJ, BJ))  # a buried joker shows the kitty (A6.5)
    know = Knowledge(me, rules, order, dealer, own, unknown, room, banned, [], shapes,
                     kitty_known, played, voids)
    for holder, cards, stage in _facts(view, me, dealer, memory):
        _add_bound(know, view, holder, cards, stage)
    return know


def _facts(view: Mapping[str, Any], me: int, dealer: int,
           memory: Sequence[tuple[int, Sequence[Card], int]]
           ) -> list[tuple[int, list[Card], int]]:
    facts: list[tuple[int, list[Card], int]] = []
    decl = view["declaration"]
    if decl is not None:
        facts.append((decl["seat"], _cards(decl["cards"]), DRAW))
    trib = view["tribute"]
    if trib["kind"] == "reversed" and trib["to"] >= 0:
        facts.append((trib["to"], [BJ, BJ, BJ], DRAW))
    elif trib["kind"] == "cancelled" and dealer is not None:
        facts.append(((dealer + 1) % 4, [BJ, BJ, BJ], DRAW))
    if trib.get("cards") and trib["from"] == me:
        facts.append((trib["to"], _cards(trib["cards"]), TRIBUTED))
    for holder, cards, stage in memory:
        facts.append((holder, list(cards), stage))
    return [f for f in facts if f[0] != me]


def _reach(know: Knowledge, view: Mapping[str, Any], holder: int, card: Card, stage: int
           ) -> set[int]:
    """Every place a card held by ``holder`` at ``stage`` may be in now (hidden moves)."""
    dealer = know.dealer
    trib = view["tribute"]
    payer, payee = trib["from"], trib["to"]
    paid = trib["kind"] in ("normal", "reversed") and payer >= 0 and trib["n"] > 0
    kv = view["kitty"]
    at = {holder}
    if stage < TRIBUTED and paid and payer in at:
        at.add(payee)
    if stage < RETURNED and paid and payee in at:
        at.add(payer)
    if stage < BURIED and not kv["dry_pot"] and dealer in at:
        at.add(KITTY)
    if card >= LJ and variant_of(know.rules).joker_burying and not kv["dry_pot"]:
        at.add(KITTY)  # anyone may bury jokers
    shown_jokers = kv["cards"] is not None and any(x in ("BJ", "LJ") for x in kv["cards"])
    if KITTY in at and shown_jokers and card < LJ and not POINTS[card]:
        at.update(s for s in range(4) if s != dealer)  # picked up by a joker burier
    return at


def _add_bound(know: Knowledge, view: Mapping[str, Any], holder: int, cards: Sequence[Card],
               stage: int) -> None:
    need: dict[Card, int] = {}
    for c in cards:
        need[c] = need.get(c, 0) + 1
    for c, k in need.items():
        at = _reach(know, view, holder, c, stage)
        for p in at:
            if p == KITTY:
                if know.kitty_known is not None:
                    k -= know.kitty_known.count(c)
            else:
                k -= know.played[p][c]
                if p == know.seat:
                    k -= know.own[c]
        hidden = frozenset(p for p in at if p != know.seat and know.room[p] > 0)
        if k > 0 and hidden:
            know.bounds.append(Bound(hidden, c, min(k, know.unknown[c])))


# ---------------------------------------------------------------------------- sampling


class _Plan:
    """What every sample of one :class:`Knowledge` shares: places, masks, Hall tables."""

    def __init__(self, know: Knowledge) -> None:
        self.places = places = [p for p in range(5) if know.room[p] > 0]
        self.bit = bit = {p: 1 << i for i, p in enumerate(places)}
        self.full = full = (1 << len(places)) - 1
        subsets = range(full + 1)
        self.cap = [sum(know.room[p] for p in places if q & bit[p]) for q in subsets]
        self.free = [know.room[p] for p in places]
        # For each mask: the sets of places containing it (its supply must fit in each).
        self.supersets = [[q for q in subsets if m & q == m] for m in subsets]
        self.holding = [[q for q in subsets if q & (1 << i)] for i in range(len(places))]
        self.masks = [0] * NUM_TYPES
        self.sup = [0] * (full + 1)
        for c in range(NUM_TYPES):
            k = know.unknown[c]
            if not k:
                continue
            m = 0
            for p in places:
                if c not in know.banned[p]:
                    m |= bit[p]
            if not m:
                raise ValueError(f"no place may hold {C.NAMES[c]}")
            self.masks[c] = m
            for q in self.supersets[m]:
                self.sup[q] += k
        if any(self.sup[q] > self.cap[q] for q in subsets):
            raise ValueError("the constraints leave no possible deal")
        self.bounds = [
            (sum(bit[p] for p in b.places if p in bit), b.card, b.count) for b in know.bounds
        ]


class _Rooms:
    """Free room per set of places and the supply that must still fit in each (Hall)."""

    def __init__(self, plan: _Plan) -> None:
        self.plan = plan
        self.cap = list(plan.cap)
        self.sup = list(plan.sup)
        self.free = list(plan.free)

    def options(self, mask: int, within: int) -> list[int]:
        """Place indices in ``within`` where a card of place-mask ``mask`` may go now."""
        sup = self.sup
        cap = self.cap
        tight = [q for q in range(len(sup)) if sup[q] == cap[q] and mask & q != mask]
        out = []
        for i in range(len(self.free)):
            b = 1 << i
            if within & b and self.free[i] and not any(q & b for q in tight):
                out.append(i)
        return out

    def put(self, mask: int, i: int) -> None:
        self.free[i] -= 1
        sup = self.sup
        cap = self.cap
        for q in self.plan.supersets[mask]:
            sup[q] -= 1
        for q in self.plan.holding[i]:
            cap[q] -= 1

    def choose(self, opts: list[int], rng: random.Random) -> int:
        if len(opts) == 1:
            return opts[0]
        free = self.free
        x = rng.random() * sum(free[i] for i in opts)
        for i in opts:
            x -= free[i]
            if x < 0:
                return i
        return opts[-1]


_PLANS: dict[int, tuple[Knowledge, _Plan]] = {}


def _plan(know: Knowledge) -> _Plan:
    got = _PLANS.get(id(know))
    if got is None or got[0] is not know:
        if len(_PLANS) > 64:
            _PLANS.clear()
        got = (know, _Plan(know))
        _PLANS[id(know)] = got
    return got[1]


def _sample_once(know: Knowledge, rng: random.Random) -> Deal:
    plan = _plan(know)
    places = plan.places
    masks = plan.masks
    rooms = _Rooms(plan)
    left = list(know.unknown)
    got = [[0] * NUM_TYPES for _ in places]
    bounds = list(plan.bounds)
    rng.shuffle(bounds)
    for within, c, count in bounds:
        have = sum(got[i][c] for i in range(len(places)) if within & (1 << i))
        for _ in range(count - have):
            if not left[c]:
                break
            opts = rooms.options(masks[c], within & masks[c])
            if not opts:
                break  # cannot be met with the rest: keep the hard constraints instead
            i = rooms.choose(opts, rng)
            rooms.put(masks[c], i)
            got[i][c] += 1
            left[c] -= 1
    full = plan.full
    restricted = [c for c in range(NUM_TYPES) if left[c] and masks[c] != full]
    if restricted:
        cards = [c for c in restricted for _ in range(left[c])]
        rng.shuffle(cards)
        for c in cards:
            opts = rooms.options(masks[c], masks[c])
            i = rooms.choose(opts, rng)
            rooms.put(masks[c], i)
            got[i][c] += 1
            left[c] -= 1
    slots = [i for i in range(len(places)) for _ in range(rooms.free[i])]
    rng.shuffle(slots)
    j = 0
    for c in range(NUM_TYPES):
        for _ in range(left[c]):
            got[slots[j]][c] += 1
            j += 1
    hands = [[0] * NUM_TYPES for _ in range(4)]
    hands[know.seat] = list(know.own)
    kitty: list[Card] = list(know.kitty_known) if know.kitty_known is not None else []
    for i, p in enumerate(places):
        if p == KITTY:
            kitty = [c for c in range(NUM_TYPES) for _ in range(got[i][c])]
        else:
            hands[p] = got[i]
    return Deal(hands, kitty)


def sample(know: Knowledge, rng: random.Random, tries: int = 8) -> Deal:
    """One deal consistent with ``know`` (hard constraints always; soft ones if found
    within ``tries`` samples)."""
    deal = _sample_once(know, rng)
    if not know.shapes:
        return deal
    for _ in range(tries - 1):
        if all(_shape_ok(f, deal.hands[f.seat], know.order) for f in know.shapes):
            return deal
        deal = _sample_once(know, rng)
    return deal


def deals(decision: Decision, rng: random.Random, n: int,
          memory: Sequence[tuple[int, Sequence[Card], int]] = ()) -> list[Deal]:
    """``n`` sampled deals for the decision's seat."""
    know = knowledge(decision, memory)
    return [sample(know, rng) for _ in range(n)]


def world(decision: Decision, know: Knowledge, deal: Deal) -> Match:
    """A play-phase engine position of one sampled deal: the public tricks and the current
    trick from the seat's view, the hidden cards from ``deal`` (unchecked: a guess)."""
    view = decision.view
    dealer = view["dealer"]
    return play_position(
        decision.rules, dealer=dealer,
        levels=[13 if x == "passed" else C.RANKS.index(x) for x in view["levels"]],
        trump=know.order.trump, hands=deal.hands, kitty=deal.kitty,
        leader=view["trick"]["leader"],
        trick=[(p["seat"], tuple(C.parse_many(p["cards"]))) for p in view["trick"]["plays"]],
        tricks_done=[{"leader": t["leader"], "plays": [C.parse_many(p) for p in t["plays"]],
                      "winner": t["winner"], "points": t["points"]} for t in view["tricks"]],
        points=view["points"], level=know.order.level,
        kitty_known_by=frozenset((dealer,)), check=False)
