"""What the rule bot knows at a table: card memory, shown voids, and simple odds.

A :class:`Table` is the "decision-like input" of the rule bot's play policy: the
seat's own hand, the trick in progress, every finished trick, the trump order and
who deals. It is built from a seat's view (:func:`table_from_view`, what
:class:`~gunzi.bots.rule.RuleBot` uses) or, for a search bot's rollouts, from a
match seen from one seat (:func:`table_from_match`, which reads only what that
seat's view shows). :class:`Odds` derives what the policy asks of it:

* card memory: ``unseen[c]``, the copies of card ``c`` that may still be in
  another seat's hand or in a kitty the seat has not seen;
* voids: a seat that did not follow the led suit class with every card is void in
  it; under 死棒 a seat that answered a pair (triple) without one holds none;
* odds that a seat holds a card group that beats a play, spreading the unseen cards
  over the seats (and the hidden kitty) that may hold them, in proportion to their
  hand sizes;
* a keep value for every card: what it is worth to hold it for later tricks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gunzi.core.gunzi_rule import p_at_least
from gunzi.engine.cards import NAMES, NUM_TYPES, POINTS, RANKS, SUITS, Card
from gunzi.engine.order import TRUMP, Order, order_for
from gunzi.engine.rules import Ruleset
from gunzi.engine.variant import variant_of

if TYPE_CHECKING:
    from gunzi.bots.base import Decision
    from gunzi.engine.match import Match

CARD_ID: dict[str, Card] = {n: i for i, n in enumerate(NAMES)}
Play = tuple[Card, ...]
Trick = list[tuple[int, Play]]  # (seat, cards) in playing order, the leader first


def ids(names: Sequence[str]) -> Play:
    """Card ids of card texts (as the view writes them)."""
    return tuple(CARD_ID[n] for n in names)


def team(seat: int) -> int:
    return seat % 2


@dataclass(slots=True)
class Table:
    """One seat's knowledge during play (the input of :func:`gunzi.bots.rule_play.rule_play`).

    ``history`` holds the finished tricks, ``trick`` the one in progress. ``kitty``
    is the final kitty when this seat knows it (the dealer who buried it, or a kitty
    shown to all), else None. ``sizes`` are the cards left in each hand now.
    """

    rules: Ruleset
    order: Order
    seat: int
    dealer: int
    hand: list[int]
    trick: Trick
    history: list[Trick]
    sizes: list[int]
    points: list[int]
    kitty: Play | None = None


def _order_from_view(view: Mapping[str, Any], rules: Ruleset) -> Order:
    level = RANKS.index(view["level"])
    trump = SUITS.index(view["trump"]) if view.get("trump") else -1
    return order_for(level, trump, rules.permanent_twos)


def order_of(view: Mapping[str, Any], rules: Ruleset) -> Order:
    """The card order of the hand the view shows (trump -1 while no suit is known)."""
    return _order_from_view(view, rules)


def table_from_view(
    view: Mapping[str, Any], hand: Sequence[int], rules: Ruleset, seat: int
) -> Table:
    """The table as ``seat`` sees it, from its view dict and its own hand counts."""
    history: list[Trick] = []
    for t in view["tricks"]:
        leader = t["leader"]
        history.append([((leader + i) % 4, ids(p)) for i, p in enumerate(t["plays"])])
    trick = [(p["seat"], ids(p["cards"])) for p in view["trick"]["plays"]]
    kitty_cards = view["kitty"].get("cards")
    kitty = ids(kitty_cards) if kitty_cards is not None and view["phase"] == "play" else None
    dealer = view["dealer"]
    return Table(
        rules=rules,
        order=_order_from_view(view, rules),
        seat=seat,
        dealer=-1 if dealer is None else dealer,
        hand=list(hand),
        trick=trick,
        history=history,
        sizes=list(view["hand_sizes"]),
        points=list(view["points"]),
        kitty=kitty,
    )


def table_from_decision(decision: Decision) -> Table:
    """The table of a play decision (what :class:`~gunzi.bots.rule.RuleBot` plays from)."""
    return table_from_view(decision.view, decision.hand, decision.rules, decision.seat)


def table_from_match(match: Match, seat: int) -> Table:
    """The table of ``seat`` read from a match, for rollouts of a search bot.

    Reads only what :func:`gunzi.engine.view.view` shows that seat: its own hand,
    the tricks, hand sizes, points, and the kitty if the seat knows it.
    """
    history: list[Trick] = []
    for t in match.tricks:
        leader = t["leader"]
        history.append([((leader + i) % 4, tuple(p)) for i, p in enumerate(t["plays"])])
    known = match.kitty_shown or seat in match.kitty_known_by
    return Table(
        rules=match.rules,
        order=match.order,
        seat=seat,
        dealer=-1 if match.dealer is None else match.dealer,
        hand=list(match.hands[seat]),
        trick=list(match.trick),
        history=history,
        sizes=[match.hand_size(s) for s in range(4)],
        points=list(match.points),
        kitty=tuple(match.kitty) if known else None,
    )


# --------------------------------------------------------------------------- odds


@dataclass(frozen=True, slots=True)
class Params:
    """Tunable weights of the rule bot (points are the unit)."""

    tempo: float = 1.5  # worth of winning the lead
    lead_cost: float = 0.5  # share of a led card's keep value counted as spent
    pull_bonus: float = 2.5  # per card, leading trumps while the team holds trump control
    void_lead_bonus: float = 0.6  # leading a short side suit towards a void
    reserve_stake: float = 40.0  # the last trick's worth beyond the kitty's points
    point_share: float = 0.55  # expected points per card a later player adds
    partner_help: float = 0.3  # chance the partner rescues a lead the opponents beat
    risk: float = 1.5  # weight of a loss against a gain for the points a seat adds itself
    lead_risk: float = 1.5  # the same for the points of a lead
    point_keep: float = 0.35  # share of a point card's points that holding it is worth
    side_kv: float = 3.5  # keep value of a side-suit card nobody can beat
    cash: float = 1.0  # leading a side-suit winner spends its keep value only if it loses
    trump_kv: float = 12.0  # keep value of the top trump above a trump's base of 2
    later_partner: float = 0.6  # discount on the partner (still to play) taking the trick


class Odds:
    """Card memory, voids and odds for one decision of one seat."""

    def __init__(self, t: Table, params: Params | None = None) -> None:
        self.t = t
        self.p = params or Params()
        order = t.order
        self.cls = cls = order.cls
        self.power = power = order.power
        self.me = me = t.seat
        self.partner = (me + 2) % 4
        self.opps = ((me + 1) % 4, (me + 3) % 4)
        self.variant = variant = variant_of(t.rules)  # the bot plays each game its own way
        self.same_card = variant.same_card_leads  # plays are 1-3 copies of one card
        self.live = t.rules.follow == "live"
        decks = t.rules.decks
        played = [0] * NUM_TYPES
        void = [[False] * 5 for _ in range(4)]
        nopair = [[False] * 5 for _ in range(4)]
        notriple = [[False] * 5 for _ in range(4)]
        for trick in [*t.history, t.trick]:
            if not trick:
                continue
            lead = trick[0][1]
            n = len(lead)
            led = cls[lead[0]]
            single_pair = n == 2 and lead[0] == lead[1]
            for c in lead:
                played[c] += 1
            for seat, cards in trick[1:]:
                k = 0
                for c in cards:
                    played[c] += 1
                    if cls[c] == led:
                        k += 1
                if k < n:
                    void[seat][led] = True
                elif n >= 2 and (not self.same_card or not self.live):
                    distinct = len(set(cards))
                    if self.same_card:
                        if n == 2 and distinct == 2:
                            nopair[seat][led] = True
                        if n == 3 and distinct > 1:
                            notriple[seat][led] = True
                            if distinct == 3:
                                nopair[seat][led] = True
                    elif single_pair and distinct == 2:
                        nopair[seat][led] = True
                        notriple[seat][led] = True
        self.played = played
        self.void = void
        self.nopair = nopair
        self.notriple = notriple
        hand = t.hand
        kitty = [0] * NUM_TYPES
        if t.kitty is not None:
            for c in t.kitty:
                kitty[c] += 1
        self.unseen = unseen = [
            max(0, decks - hand[c] - played[c] - kitty[c]) for c in range(NUM_TYPES)
        ]
        self.hidden_kitty = 0 if t.kitty is not None else t.rules.kitty_size
        # higher[c]: unseen copies of strictly stronger cards of c's class; per class totals.
        higher = [0] * NUM_TYPES
        class_unseen = [0] * 5
        class_points = [0] * 5
        for k in range(5):
            cards = order.class_cards[k]  # weakest first
            run = pts = 0
            i = len(cards) - 1
            while i >= 0:
                p = power[cards[i]]
                group = 0
                while i >= 0 and power[cards[i]] == p:
                    c = cards[i]
                    higher[c] = run
                    u = unseen[c]
                    group += u
                    pts += u * POINTS[c]
                    i -= 1
                run += group
            class_unseen[k] = run
            class_points[k] = pts
        self.higher = higher
        self.class_unseen = class_unseen
        self.class_points = class_points
        total_unseen = sum(class_unseen)
        self.density = sum(class_points) / total_unseen if total_unseen else 0.0
        sizes = t.sizes
        self.holders = [
            sum(sizes[s] for s in range(4) if s != me and not void[s][k]) + self.hidden_kitty
            for k in range(5)
        ]
        self.held_class = [sum(hand[c] for c in order.class_cards[k]) for k in range(5)]
        self._group: dict[tuple[int, int, int, int], float] = {}
        self._kv: list[float] = [self._keep_value(c) for c in range(NUM_TYPES)]

    # ------------------------------------------------------------------ shares
    def share(self, seat: int, k: int) -> float:
        """Chance that one unseen card of class ``k`` lies in ``seat``'s hand."""
        if seat == self.me or self.void[seat][k]:
            return 0.0
        h = self.holders[k]
        return self.t.sizes[seat] / h if h else 0.0

    def p_void(self, seat: int, k: int) -> float:
        if self.void[seat][k] or self.t.sizes[seat] == 0:
            return 1.0
        return (1.0 - self.share(seat, k)) ** self.class_unseen[k]

    def p_group(self, seat: int, k: int, above: int, size: int) -> float:
        """Chance ``seat`` holds ``size`` identical cards of class ``k`` with power > ``above``."""
        key = (seat, k, above, size)
        got = self._group.get(key)
        if got is not None:
            return got
        out = 0.0
        if not (
            self.void[seat][k]
            or self.t.sizes[seat] < size
            or (size == 2 and self.nopair[seat][k])
            or (size == 3 and self.notriple[seat][k])
        ):
            sh = self.share(seat, k)
            unseen = self.unseen
            power = self.power
            cards = self.t.order.class_cards[k]
            if size == 1:
                n = sum(unseen[c] for c in cards if power[c] > above)
                out = 1.0 - (1.0 - sh) ** n
            else:
                q = 1.0
                for c in reversed(cards):
                    if power[c] <= above:
                        break
                    u = unseen[c]
                    if u >= size:
                        q *= 1.0 - p_at_least(u, size, sh)
                out = 1.0 - q
        self._group[key] = out
        return out

    def p_tractor(self, seat: int, k: int, above: int, size: int, length: int) -> float:
        """Rough chance of a tractor (``length`` ranks of ``size``) topping ``above``."""
        p = self.p_group(seat, k, above, size)
        for _ in range(length - 1):
            p *= 0.3
        return p

    # ------------------------------------------------------------------ values
    def _keep_value(self, c: Card) -> float:
        hu = self.higher[c]
        if self.cls[c] == TRUMP:
            return 2.0 + self.p.trump_kv * 0.8**hu
        return self.p.side_kv * 0.55**hu

    def kv(self, c: Card) -> float:
        return self._kv[c]

    def break_cost(self, c: Card, used: int) -> float:
        """Structure lost by playing ``used`` copies of ``c`` out of the held ones."""
        held = self.t.hand[c]
        if held < 2:
            return 0.0
        scale = 1.0 + self._kv[c] / 4.0
        worth = (0.0, 0.0, 2.0, 3.5)
        return (worth[held] - worth[max(0, held - used)]) * scale

    def cost(self, play: Sequence[Card]) -> float:
        """Keep value of the cards a play spends (structure included)."""
        used: dict[Card, int] = {}
        for c in play:
            used[c] = used.get(c, 0) + 1
        return sum(k * self._kv[c] + self.break_cost(c, k) for c, k in used.items())


def points(cards: Sequence[Card]) -> int:
    return sum(POINTS[c] for c in cards)


def counts_of(cards: Sequence[Card]) -> list[int]:
    out = [0] * NUM_TYPES
    for c in cards:
        out[c] += 1
    return out


__all__ = [
    "CARD_ID",
    "Odds",
    "Params",
    "Play",
    "Table",
    "Trick",
    "counts_of",
    "ids",
    "order_of",
    "points",
    "table_from_decision",
    "table_from_match",
    "table_from_view",
    "team",
]
