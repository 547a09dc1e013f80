"""What a match's state is made of, apart from the code that moves it.

:class:`MatchState` is the match as plain typed data (its fields are listed once, here)
with the questions that only read it (who may declare what, the tribute and return
choices, the kitty pick-ups, which hands are revealed). :class:`Variant` is the
interface of the one rules object per game (:mod:`gunzi.engine.variant`). The phases,
the decisions each phase expects and the clause that says whose turn it is, the teams.

The modules that read or score a match (legal actions, the variants, views) depend on
this module, not on the moves; the moves are the phase objects'
(:mod:`gunzi.engine.machine`), above it. So the engine has no import cycle, not even
one for types.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, fields
from enum import StrEnum
from typing import Any

from gunzi.engine import cards as C
from gunzi.engine.actions import Action, Kind
from gunzi.engine.cards import BJ, LJ, NUM_TYPES, POINTS, Card
from gunzi.engine.classic_policy import Policy
from gunzi.engine.classic_tricks import Shape
from gunzi.engine.event_log import EventLog
from gunzi.engine.order import TRUMP, Order
from gunzi.engine.rules import Ruleset


class Phase(StrEnum):
    DEAL = "deal"  # waiting for a Deal action (auto_deal off)
    DRAW = "draw"  # drawing; a seat is being asked whether to declare
    TRIBUTE = "tribute"
    RETURN = "return"
    BURY = "bury"
    BURY_JOKERS = "bury_jokers"
    PLAY = "play"
    OVER = "over"


PHASE_KIND = {
    Phase.DEAL: (Kind.DEAL,),
    Phase.DRAW: (Kind.DECLARE, Kind.PASS),
    Phase.TRIBUTE: (Kind.TRIBUTE,),
    Phase.RETURN: (Kind.RETURN,),
    Phase.BURY: (Kind.BURY,),
    Phase.BURY_JOKERS: (Kind.BURY_JOKERS, Kind.PASS),
    Phase.PLAY: (Kind.PLAY,),
    Phase.OVER: (),
}

# The clause that says whose turn it is, for out-of-turn errors (classic play: Part B).
PHASE_RULE = {
    Phase.DEAL: "A4", Phase.DRAW: "A4", Phase.TRIBUTE: "A5", Phase.RETURN: "A5",
    Phase.BURY: "A6.3", Phase.BURY_JOKERS: "A6.4", Phase.PLAY: "A7", Phase.OVER: "A10",
}


def team_of(seat: int) -> int:
    return seat % 2


# The fields of a hand's result that name its final kitty (the buried cards): the secret
# part of its ``hand_end`` event, withheld while the hand is sealed (MatchState.sealed).
RESULT_SECRETS = ("kitty", "kitty_points", "kitty_jokers")


def public_result(result: dict[str, Any]) -> dict[str, Any]:
    """``result`` without the fields that name its kitty (:data:`RESULT_SECRETS`)."""
    return {k: v for k, v in result.items() if k not in RESULT_SECRETS}


def _strength(cards: Sequence[Card]) -> int:
    """Declaration ladder (A4.2): 1, 2, 3 level cards < 3 LJ (4) < 3 BJ (5)."""
    if cards[0] == LJ:
        return 4
    if cards[0] == BJ:
        return 5
    return len(cards)


class Variant:
    """What one game of the family rules differently (see :mod:`gunzi.engine.variant`).

    Stateless: one shared instance per game, chosen from the ruleset.
    """

    name = ""
    play_rule = ""  # the clause of play errors
    grabs_big_joker = False  # a first hand of a round is declared by showing one BJ (A4.1)
    tribute = False  # tribute and its return (A5)
    kitty_shown_after_declaring = False  # and then 干锅 may end the kitty phase (A6.2)
    joker_burying = False  # other seats may bury jokers after the dealer (A6.4)
    big_joker_first = False  # a LJ may be buried only with every BJ held (A6.3)
    no_trump = False  # [I-30] a hand nobody declares may be played with no trump suit
    buried_jokers_shown = False  # a joker in the kitty is shown to all (A6.5)
    same_card_leads = False  # every play is 1-3 copies of one card (A7)
    kitty_jokers_move_levels = False  # jokers buried in the kitty add levels and blood (A8, A11)
    kou_di_decides_upgrade = False  # the last trick (抠底/保底) also decides who upgrades (A8)
    hand_scores = False  # each hand ends with per-seat scores (A12), the ladder's per hand
    closes = "game"  # what the last hand of a match closes: a game (B) or a round (A10)
    past_last_level = "A+"  # how a level past the last one is written

    def dead_follow(self, rules: Ruleset) -> bool:
        """Whether a follow owes a lead's pair or triple of one card (死棒, A7 ``follow``);
        classic's shape obligations are its tractor rules (B) instead."""
        return False

    def clause(self, part_a: str, classic: str = "B") -> str:
        """The clause of docs/rules.md an error cites, given its 打滚子 (Part A) clause and
        the classic one (Part B, with the Part A clause it adopts where it says so)."""
        raise NotImplementedError

    def ruleset_label(self, rules: Ruleset) -> str | None:
        """The ruleset's name where it says more than the game's own (a named variant)."""
        return None if rules.name == self.name else rules.name

    def trick_winner_of(self, pol: Policy, order: Order, plays: Sequence[Sequence[Card]]
                        ) -> int:
        """Index into ``plays`` (a trick in play order, lead first) of the winning play,
        from the cards alone (for players that keep their own copy of the trick);
        ``pol`` is the ruleset's trick policy (``policy_of(rules)``)."""
        raise NotImplementedError

    def lead_shape(self, rules: Ruleset, cards: Sequence[Card], order: Order
                   ) -> Shape | None:
        """What a lead of ``cards`` commits the followers to (None: the cards themselves)."""
        return None

    def lead(self, m: MatchState, seat: int, cards: tuple[Card, ...],
             public: dict[str, Any]) -> tuple[Card, ...]:
        """The cards a lead actually plays (a failed throw plays less); sets the lead shape
        and records what happened in the play event's ``public`` part."""
        return cards

    def trick_winner(self, m: MatchState, plays: Sequence[Sequence[Card]]) -> int:
        """Index into ``plays`` (the current trick's, in play order) of the winning play."""
        raise NotImplementedError

    def listed_plays(self, m: MatchState, seat: int) -> list[tuple[Card, ...]] | None:
        """Every legal play, when this game lists them eagerly; None otherwise."""
        return None

    def plays(self, m: MatchState, seat: int) -> Iterator[tuple[Card, ...]]:
        """Every legal play, lazily (games that do not list them)."""
        raise NotImplementedError

    def random_play(self, m: MatchState, seat: int, rng: random.Random) -> tuple[Card, ...]:
        """A random legal play without listing them all."""
        raise NotImplementedError

    def play_error(self, m: MatchState, seat: int, cards: tuple[Card, ...]) -> str | None:
        """Why ``seat`` may not play ``cards`` now (None if it may)."""
        raise NotImplementedError

    def score_hand(self, m: MatchState) -> dict[str, Any]:
        """Close the hand: levels, round end, scores; the result record."""
        raise NotImplementedError

    def returns(self, m: MatchState) -> list[float]:
        """Per seat, the match's outcome so far."""
        raise NotImplementedError

    def stats(self, results: Sequence[dict[str, Any]]) -> dict[str, Any]:
        """Game-specific figures of a simulation over these hand results."""
        return {}


@dataclass(init=False, eq=False, repr=False)
class MatchState:
    """A match of 打滚子 or classic 升级 as data: every field, typed, listed once.

    ``Match.__init__`` and the start of every hand set them; ``clone`` copies them
    (:data:`STATE_FIELDS`). Identity equality, as a live match has.
    """

    # The match.
    rules: Ruleset
    variant: Variant  # what this game rules differently
    live: bool  # 活棒
    auto_deal: bool
    levels: list[int]
    events: EventLog  # finished hands packed (gunzi.engine.event_log)
    hand_no: int
    round_no: int
    first: bool  # a first hand of a round
    dealer: int | None
    blood_next: int
    scores: list[int]  # cumulative A12 scores (打滚子)
    failed_throws: list[int]
    gained: list[int]  # levels gained this round/game (classic ladder)
    results: list[dict[str, Any]]
    round_winners: list[int]
    phase: Phase
    current: int | None
    # The hand. (event count, seat, plays): the 打滚子 follows last listed by legal_actions,
    # so verifying one of them is a lookup. Stale once another event is appended; hands
    # change only through apply (a clone, whose hands a search may rearrange, starts
    # without it).
    follows_memo: tuple[int, int, list[tuple[Card, ...]]] | None
    # (event count, action): the action ``legal_actions(seat).sample`` last drew from an
    # eager listing, with the count the listing was made at; verifying that very action
    # at that count is a lookup (Machine.verify). Stale, and reset, as follows_memo.
    sampled: tuple[int, Action] | None
    seed: int | None
    deal_no: int
    deck: list[Card]
    pos: int
    next_drawer: int
    first_seat: int
    hands: list[list[int]]
    kitty: list[Card]
    kitty_public: list[Card]  # kitty cards turned face up (flip, random draw)
    kitty_shown: bool  # whole current kitty public
    kitty_known_by: frozenset[int]  # seats that know the whole kitty
    decl: tuple[int, tuple[Card, ...], int] | None  # seat, cards, suit
    declarer_is_dealer: bool
    bj_pending: bool
    trump: int
    level: int
    order: Order
    asks: list[int]
    can: list[bool]  # seats holding a valid declaration now
    window: bool
    declared: bool
    tribute_n: int
    payer: int
    payee: int
    tribute_kind: str
    tribute_cards: tuple[Card, ...]
    dry_pot: bool
    joker_queue: list[int]
    pickup_jokers: tuple[Card, ...] | None  # announced, pick-up to choose
    nothing_to_exchange: bool  # a failed announcement made that public
    leader: int
    trick: list[tuple[int, tuple[Card, ...]]]
    lead_shape: Shape | None
    trick_no: int
    points: list[int]  # trick points per team
    tricks: list[dict[str, Any]]
    last_trick_winner: int
    last_winning_play: tuple[Card, ...]
    hand_failed_throws: list[int]
    # The hand's last failed throw and who stopped it with what (public, for the tables).
    failed_throw: dict[str, Any] | None

    def hand_size(self, seat: int) -> int:
        return sum(self.hands[seat])

    @property
    def no_trump(self) -> bool:
        """Whether this hand is played with no trump suit (classic 无主, [I-30]).

        Every other hand has its trump suit once the draw is over, so a missing suit
        after the draw means 无主, not "not decided yet"."""
        return self.trump < 0 and self.phase not in (Phase.DEAL, Phase.DRAW)

    def attackers(self) -> int:
        """The attacking team (抓分方), or -1 while the dealer is unknown."""
        return -1 if self.dealer is None else 1 - team_of(self.dealer)

    def deal_seed(self, fresh: int) -> int:
        """The seed the next deal must use: ``fresh``, except for the second play of a
        duplicate board, which repeats the first play's deal."""
        if self.rules.duplicate and self.hand_no % 2 == 1 and self.seed is not None:
            return self.seed
        return fresh

    def hands_over(self) -> int:
        """How many hands (from the first) are over."""
        return self.hand_no if self.phase in (Phase.DEAL, Phase.OVER) else self.hand_no - 1

    def revealed_hands(self) -> int:
        """How many hands (from the first) have their secrets public: those that are over,
        except that a duplicate board's first play stays secret until the board is done."""
        done = self.hands_over()
        if self.rules.duplicate and self.phase is not Phase.OVER:
            done -= done % 2
        return done

    def sealed(self, hand: int) -> bool:
        """Whether ``hand`` is over but its secrets are withheld from everyone, even from
        the seats that saw them while it was played: a duplicate board's first play until
        the board is done. The second play repeats its deal, so nothing derived from its
        hidden cards (draws, kitty, buried cards, the kitty in its result) may reach a seat,
        a bot or a spectator before then."""
        return self.revealed_hands() < hand <= self.hands_over()

    def _can_declare(self, seat: int) -> bool:
        hand = self.hands[seat]
        rules = self.rules
        if self.first and self.variant.grabs_big_joker:
            return self.decl is None and hand[BJ] > 0
        need = _strength(self.decl[1]) + 1 if self.decl else 1
        if need <= 3:
            lv = self.level
            for s in range(4):
                if hand[s * 13 + lv] >= need:
                    return True
        if rules.joker_declarations:
            if need <= 4 and hand[LJ] >= 3:
                return True
            if need <= 5 and hand[BJ] >= 3:
                return True
        return False

    def declarations(self, seat: int) -> list[Action]:
        hand = self.hands[seat]
        if self.first and self.variant.grabs_big_joker:
            return [Action(Kind.DECLARE, seat, (BJ,))] if self._can_declare(seat) else []
        need = _strength(self.decl[1]) + 1 if self.decl else 1
        out = []
        for s in range(4):
            card = s * 13 + self.level
            for k in range(need, min(hand[card], 3) + 1):
                out.append(Action(Kind.DECLARE, seat, (card,) * k))
        if self.rules.joker_declarations:
            for joker, strength in ((LJ, 4), (BJ, 5)):
                if strength >= need and hand[joker] >= 3:
                    out.extend(Action(Kind.DECLARE, seat, (joker,) * 3, s) for s in range(4))
        return out

    def _tribute_key(self, card: Card) -> tuple[int, int]:
        return (1 if self.order.cls[card] == TRUMP else 0, self.order.power[card])

    def tribute_split(self, seat: int) -> tuple[list[Card], list[Card], int]:
        """(cards that must be given, tied cards to choose from, how many of those to choose)."""
        hand = self.hands[seat]
        mine = sorted(
            (c for c in range(NUM_TYPES) for _ in range(hand[c]) if not POINTS[c]),
            key=self._tribute_key,
            reverse=True,
        )
        n = self.tribute_n
        cut = self._tribute_key(mine[n - 1])
        forced = [c for c in mine if self._tribute_key(c) > cut]
        tied = [c for c in mine if self._tribute_key(c) == cut]
        return forced, tied, n - len(forced)

    def return_tiers(self, seat: int) -> tuple[set[Card], set[Card]]:
        """[I-6] return tiers: (side non-point cards, other non-point cards)."""
        hand = self.hands[seat]
        side = {c for c in range(NUM_TYPES) if hand[c] and not POINTS[c] and self.order.cls[c] < 4}
        other = {c for c in range(NUM_TYPES) if hand[c] and not POINTS[c] and c not in side}
        if self.rules.return_fill == "any":
            other = set()
        return side, other

    def return_caps(self, seat: int) -> tuple[set[Card], set[Card], int, int, int]:
        side, other = self.return_tiers(seat)
        hand = self.hands[seat]
        n = self.tribute_n
        n1 = sum(hand[c] for c in side)
        n2 = sum(hand[c] for c in other)
        cap1 = min(n, n1)
        cap2 = min(n, n1 + n2) - cap1
        cap3 = n - cap1 - cap2
        return side, other, cap1, cap2, cap3

    def pickup_eligible(self) -> list[Card]:
        """Kitty cards a joker burier may take back: neither point cards nor jokers (A6.4)."""
        return [c for c in self.kitty if not POINTS[c] and c < LJ]

    def pickup_key(self, card: Card) -> tuple[int, int]:
        """'Lowest' for pick-ups: side before trump, then lower rank; suits tie (A6.4)."""
        if self.order.cls[card] == TRUMP:
            return (1, self.order.power[card])
        return (0, card % 13)

    def auto_take(self, k: int) -> list[Card]:
        """The k lowest exchangeable kitty cards, ties broken by card id."""
        eligible = sorted(self.pickup_eligible(), key=lambda c: (self.pickup_key(c), c))
        return eligible[:k]

    def pickup_choices(self, k: int) -> list[tuple[Card, ...]]:
        """Every legal pick-up of k cards: the k lowest, choosing among same-rank ties."""
        eligible = sorted(self.pickup_eligible(), key=self.pickup_key)
        cut = self.pickup_key(eligible[k - 1])
        forced = [c for c in eligible if self.pickup_key(c) < cut]
        tied: dict[Card, int] = {}
        for c in eligible:
            if self.pickup_key(c) == cut:
                tied[c] = tied.get(c, 0) + 1
        return [
            tuple(sorted(forced + list(extra)))
            for extra in C.multiset_combinations(sorted(tied.items()), k - len(forced))
        ]

    def finish_round(self, winner_team: int) -> None:
        self.round_winners.append(winner_team)
        self.round_no += 1
        self.first = True
        self.levels = [self.rules.first_level] * 2
        self.gained = [0, 0]
        self.dealer = None


# Every field of a match; `clone` copies these (a test keeps the list complete). Read from
# the dataclass, because a compiled (mypyc) Match has no __dict__ to copy.
STATE_FIELDS = tuple(f.name for f in fields(MatchState))
