"""The rule bot's decisions before play: declaring, tribute, return, burying, joker burying.

Each function takes what the seat knows (its hand counts, the card order of the hand,
the rules, and for listed decisions the legal actions) and returns cards or an action;
:class:`~gunzi.bots.rule.RuleBot` checks the result with ``Decision.check``.

* Declaring: a suit is judged by its length beyond what a hand of that many cards
  holds on average, its aces and kings, and its pairs and triples. The seat declares
  its best suit once it stands out (the bar drops as the draw goes on, and in the
  final window any better-than-average suit will do), overturns an opponent's
  declaration with a better suit of its own, reinforces its own declaration, and
  never overturns its partner. In 打滚子's first hand it grabs with a big joker.
* Tribute: of the allowed choices, the one that loses least (no pair broken).
* Return: cheapest non-point side cards first, from the shortest suits.
* Burying: tries every set of side suits that can be buried whole (voids to ruff
  with), fills up with the cheapest side cards, and buries point cards only where
  they are in danger in play and the hand is strong enough to keep the last trick.
  With all three big jokers and a long trump holding the dealer buries one of them.
* Joker burying (others): the dealer's partner buries one big joker when it holds
  two or more and many trumps; attackers keep theirs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Any

from gunzi.bots.rule_core import Odds, Play, Table, team
from gunzi.engine.actions import Action, Kind
from gunzi.engine.cards import BJ, LJ, NUM_TYPES, POINTS, RANK_2, RANKS, SUITS, Card
from gunzi.engine.order import TRUMP, Order
from gunzi.engine.rules import Ruleset
from gunzi.engine.variant import variant_of


def setup_odds(
    view: Mapping[str, Any], hand: Sequence[int], rules: Ruleset, seat: int, order: Order
) -> Odds:
    """Odds for a decision before play: nothing played yet, every other card unseen."""
    dealer = view.get("dealer")
    t = Table(
        rules=rules,
        order=order,
        seat=seat,
        dealer=-1 if dealer is None else dealer,
        hand=list(hand),
        trick=[],
        history=[],
        sizes=[rules.hand_size] * 4,
        points=[0, 0],
        kitty=None,
    )
    return Odds(t)


# --------------------------------------------------------------------------- declaring


def suit_quality(hand: Sequence[int], suit: int, level: int, twos: bool) -> float:
    """How good ``suit`` would be as trumps for this hand (about its plain length)."""
    q = 0.0
    for r in range(13):
        if r == level or (twos and r == RANK_2):
            continue
        k = hand[suit * 13 + r]
        if not k:
            continue
        q += k
        if r == 12:
            q += 0.5 * k
        elif r == 11:
            q += 0.3 * k
        if k >= 2:
            q += 0.6
        if k >= 3:
            q += 0.6
    q += 0.5 * hand[suit * 13 + level]
    return q


def plain_share(rules: Ruleset, level: int) -> float:
    """Share of a suit's plain (non-level, non-2) cards in the deck."""
    plain = 13 - 1 - (1 if rules.permanent_twos and level != RANK_2 else 0)
    return plain / 54.0


def choose_declare(
    view: Mapping[str, Any],
    hand: Sequence[int],
    rules: Ruleset,
    seat: int,
    actions: Sequence[Action],
    grab_big_joker: bool = True,
    bias: float = 0.0,
) -> Action:
    """Pass, or the declaration to make (one of ``actions``)."""
    pass_action = next(a for a in actions if a.kind is Kind.PASS)
    options = [a for a in actions if a.kind is Kind.DECLARE]
    if not options:
        return pass_action
    if view["first_hand"] and variant_of(rules).grabs_big_joker:
        return options[0] if grab_big_joker else pass_action
    level = RANKS.index(view["level"])
    twos = rules.permanent_twos
    n = sum(hand)
    total_draw = 4 * rules.hand_size
    progress = n / rules.hand_size
    expect = n * plain_share(rules, level)
    standing = view.get("declaration")

    def suit_of(a: Action) -> int:
        return a.suit if a.cards[0] >= LJ else a.cards[0] // 13

    def strength(a: Action) -> tuple[int, int]:
        # Level cards before jokers (jokers tell more), then more copies.
        return (0 if a.cards[0] >= LJ else 1, len(a.cards))

    quality = {s: suit_quality(hand, s, level, twos) for s in range(4)}
    if standing is not None:
        owner = standing["seat"]
        st_suit = SUITS.index(standing["suit"]) if standing["suit"] else -1
        if owner == seat:
            same = [a for a in options if suit_of(a) == st_suit and a.cards[0] < LJ]
            return max(same, key=strength) if same else pass_action
        if team(owner) == team(seat):
            return pass_action
    else:
        st_suit = -1
    best_suit = max((suit_of(a) for a in options), key=lambda s: (quality[s], -s))
    if best_suit == st_suit:
        return pass_action
    q = quality[best_suit]
    margin = max(0.5, 3.0 - 4.0 * progress) + bias
    if view["first_hand"]:
        margin -= 1.0  # classic first hand: the declarer becomes the dealer
    if standing is not None:
        margin -= 1.0  # the opponents' suit is worse for us than our best one
        if q < quality.get(st_suit, 0.0) + 1.0:
            return pass_action
    if view["drawn"] >= total_draw:
        margin = min(margin, bias)
    if q < expect + margin:
        return pass_action
    best = [a for a in options if suit_of(a) == best_suit]
    return max(best, key=strength)


# --------------------------------------------------------------------------- tribute


def choose_tribute(o: Odds, actions: Sequence[Action]) -> Action:
    """The allowed tribute that costs the giver least."""
    return min(actions, key=lambda a: (o.cost(a.cards), a.cards))


def return_tiers(
    hand: Sequence[int], order: Order, rules: Ruleset, n: int
) -> tuple[set[Card], set[Card], int, int]:
    """[I-6] tiers of the return (as the engine counts them) and how many of each to give."""
    side = {c for c in range(NUM_TYPES) if hand[c] and not POINTS[c] and order.cls[c] < TRUMP}
    other = {c for c in range(NUM_TYPES) if hand[c] and not POINTS[c] and c not in side}
    if rules.return_fill == "any":
        other = set()
    n1 = sum(hand[c] for c in side)
    n2 = sum(hand[c] for c in other)
    cap1 = min(n, n1)
    cap2 = min(n, n1 + n2) - cap1
    return side, other, cap1, cap2


def _cheapest(o: Odds, pool: dict[Card, int], k: int, short_bonus: bool) -> list[Card]:
    """``k`` copies from ``pool`` (counts) that cost least to give away."""
    hand = o.t.hand
    cls = o.cls
    out: list[Card] = []
    avail = dict(pool)
    for _ in range(k):
        best: tuple[float, Card] | None = None
        for c, m in avail.items():
            if m <= 0:
                continue
            used = hand[c] - m
            cost = o.kv(c) + o.break_cost(c, used + 1) - o.break_cost(c, used)
            if short_bonus and cls[c] < TRUMP:
                cost += 0.25 * o.held_class[cls[c]]
            if best is None or (cost, c) < best:
                best = (cost, c)
        if best is None:
            break
        c = best[1]
        out.append(c)
        avail[c] -= 1
    return out


def choose_return(o: Odds, n: int) -> Play:
    hand = o.t.hand
    side, other, cap1, cap2 = return_tiers(hand, o.t.order, o.t.rules, n)
    chosen = _cheapest(o, {c: hand[c] for c in side}, cap1, True)
    chosen += _cheapest(o, {c: hand[c] for c in other}, cap2, False)
    rest = {c: hand[c] for c in range(NUM_TYPES) if hand[c] and c not in side and c not in other}
    chosen += _cheapest(o, rest, n - len(chosen), False)
    return tuple(sorted(chosen))


# --------------------------------------------------------------------------- burying


def _strength(o: Odds) -> tuple[float, float]:
    """(trump share of the hand, chance the opponents take the last trick: a rough guess)."""
    hand = o.t.hand
    size = sum(hand)
    trumps = o.held_class[TRUMP]
    ratio = trumps / size if size else 0.0
    tops = hand[BJ] + 0.5 * hand[LJ]
    p_kou = 0.4 - 0.8 * (ratio - 0.35) - 0.05 * tops
    return ratio, min(0.6, max(0.08, p_kou))


def choose_bury(
    o: Odds, k: int, bury_big_joker: bool = True, void_weight: float = 1.0
) -> Play:
    """The ``k`` cards the dealer buries."""
    t = o.t
    hand = t.hand
    order = t.order
    cls = o.cls
    variant = variant_of(t.rules)
    ratio, p_kou = _strength(o)
    trump_suit = order.trump
    side_suits = [s for s in range(4) if s != trump_suit]

    def bury_cost(c: Card) -> float:
        cost = 0.0
        if cls[c] == TRUMP:
            cost += 4.0
        pts = POINTS[c]
        if pts:
            if cls[c] == TRUMP:
                lost = 0.25
            elif o.higher[c] == 0:
                lost = 0.15
            else:
                lost = 0.55
            cost += pts * (2.0 * p_kou - lost)
        return cost

    def fill(chosen: list[Card], pool: list[int], need: int) -> list[Card] | None:
        avail = list(pool)
        out: list[Card] = []
        for _ in range(need):
            best: tuple[float, Card] | None = None
            for c in range(NUM_TYPES):
                m = avail[c]
                if m <= 0:
                    continue
                if (variant.big_joker_first and c == LJ
                        and hand[BJ] - chosen.count(BJ) - out.count(BJ) > 0):
                    continue
                used = hand[c] - m
                cost = o.kv(c) + o.break_cost(c, used + 1) - o.break_cost(c, used) + bury_cost(c)
                if best is None or (cost, c) < best:
                    best = (cost, c)
            if best is None:
                return None
            out.append(best[1])
            avail[best[1]] -= 1
        return out

    forced: list[Card] = []
    if (
        variant.buried_jokers_shown  # a shown BJ doubles the kitty (A6.5)
        and bury_big_joker
        and hand[BJ] >= 3
        and o.held_class[TRUMP] >= 20
    ):
        forced = [BJ]
    void_bonus = void_weight * max(1.0, 2.5 + 20.0 * (ratio - 0.3))
    base = list(hand)
    for c in forced:
        base[c] -= 1
    suit_cards = {s: [c for c in order.class_cards[s] for _ in range(base[c])] for s in side_suits}
    best_set: list[Card] | None = None
    best_score = 0.0
    for r in range(len(side_suits) + 1):
        for combo in combinations(side_suits, r):
            chosen = list(forced)
            for s in combo:
                chosen += suit_cards[s]
            if len(chosen) > k:
                continue
            pool = list(base)
            for c in chosen:
                pool[c] -= 1
            # Fill from the other side suits first, trumps only if they run out.
            side_pool = [pool[c] if cls[c] < TRUMP else 0 for c in range(NUM_TYPES)]
            need = k - len(chosen)
            got = fill(chosen, side_pool, min(need, sum(side_pool)))
            if got is None:
                continue
            chosen += got
            if len(chosen) < k:
                trump_pool = [pool[c] if cls[c] == TRUMP else 0 for c in range(NUM_TYPES)]
                more = fill(chosen, trump_pool, k - len(chosen))
                if more is None:
                    continue
                chosen += more
            if len(chosen) != k:
                continue
            voids = sum(1 for s in side_suits if not any(
                hand[c] - chosen.count(c) > 0 for c in order.class_cards[s]
            ))
            score = void_bonus * voids - o.cost(chosen) - sum(bury_cost(c) for c in chosen)
            if best_set is None or score > best_score + 1e-9:
                best_set, best_score = chosen, score
    if best_set is None:
        best_set = fill([], list(hand), k) or []
    return tuple(sorted(best_set))


def choose_bury_jokers(
    o: Odds, actions: Sequence[Action], dealer: int, partner_bury: bool = True
) -> Action:
    """Pass, or (the dealer's partner with big jokers to spare) bury one big joker.

    After announcing jokers into a hidden kitty the seat may be asked again to choose
    among same-rank pick-ups (no pass listed then): it keeps its voids and takes the
    better cards.
    """
    t = o.t
    hand = t.hand
    held = o.held_class

    def take_cost(a: Action) -> tuple[float, Play]:
        breaks = sum(1 for c in a.take if held[o.cls[c]] == 0)
        return (breaks * 5.0 - sum(o.kv(c) for c in a.take), a.take)

    pass_action = next((a for a in actions if a.kind is Kind.PASS), None)
    if pass_action is None:
        return min(actions, key=take_cost)
    if not partner_bury or dealer < 0 or team(dealer) != team(t.seat):
        return pass_action
    if hand[BJ] < 2 or held[TRUMP] < 14:
        return pass_action
    opts = [a for a in actions if a.kind is Kind.BURY_JOKERS and a.cards == (BJ,)]
    if not opts:
        return pass_action
    return min(opts, key=take_cost)


__all__ = [
    "choose_bury",
    "choose_bury_jokers",
    "choose_declare",
    "choose_return",
    "choose_tribute",
    "return_tiers",
    "setup_odds",
    "suit_quality",
]
