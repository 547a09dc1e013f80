"""The match state machine: draw and declare, tribute, kitty, play, scoring, next hand.

One :class:`Match` runs a whole match of 打滚子 or classic 升级, hand after hand.
The engine performs every step that needs no decision (drawing cards, turning
kitty cards, collecting tricks, scoring) and stops when a seat must decide.
``to_act`` says who; ``legal_actions(seat)`` what they may do; ``apply`` does
it, pokerkit-style: ``verify`` raises a typed error and changes nothing, then
the action mutates the state and returns its immutable :class:`Event`.

Randomness comes only from injected generators: the match's ``rng`` makes one
seed per hand (unless the caller deals, see ``auto_deal``), and each hand's
own ``random.Random(seed)`` shuffles and draws random kitty cards. The seed's
SHA-256 is public at the deal; the seed and deck order are revealed after the
hand, so anyone can check the deal was fixed before play.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Sequence
from types import MappingProxyType
from typing import Any

from gunzi.engine import cards as C
from gunzi.engine import checks
from gunzi.engine.actions import CHANCE, Action, Kind
from gunzi.engine.cards import BJ, LJ, NAMES, NUM_TYPES, POINTS, Card
from gunzi.engine.errors import IllegalActionError
from gunzi.engine.events import NOBODY, Event, freeze
from gunzi.engine.hand_end import RESULT_SECRETS, public_result
from gunzi.engine.legal import LegalActions
from gunzi.engine.order import TRUMP, flip_rank_key, order_for
from gunzi.engine.rules import Ruleset, preset
from gunzi.engine.state import PHASE_KIND as PHASE_KIND
from gunzi.engine.state import PHASE_RULE as PHASE_RULE
from gunzi.engine.state import STATE_FIELDS as STATE_FIELDS
from gunzi.engine.state import MatchState as MatchState
from gunzi.engine.state import Phase as Phase
from gunzi.engine.state import team_of as team_of
from gunzi.engine.variant import variant_of
from gunzi.engine.view import view

ALL_SEATS = frozenset(range(4))
ONLY = tuple(frozenset((s,)) for s in range(4))  # audience of one seat
# The secret part of a draw event, one shared read-only mapping per card.
DRAWN = tuple(MappingProxyType({"card": NAMES[c]}) for c in range(NUM_TYPES))
SEED_BITS = 256


_APPLY = {k: f"_apply_{k.value}" for k in Kind}


def commitment(seed: int) -> str:
    """SHA-256 of the seed as 32 big-endian bytes: published before the deal."""
    return hashlib.sha256(seed.to_bytes(SEED_BITS // 8, "big")).hexdigest()


def _show(cards: Sequence[Card]) -> str:
    return " ".join(NAMES[c] for c in cards)




class Match(MatchState):
    """A match of 打滚子 or classic 升级 between four seats (0+2 against 1+3)."""

    def __init__(
        self,
        rules: Ruleset | None = None,
        rng: random.Random | None = None,
        *,
        auto_deal: bool = True,
        levels: tuple[int, int] | None = None,
        dealer: int | None = None,
        blood: int = 0,
    ) -> None:
        """Start a match.

        ``levels`` (rank indices) and ``dealer`` let a match start mid-round, as
        duplicate play needs: with a dealer the first hand is a later hand of a
        round (level-card declaring, tribute of ``blood`` cards). ``auto_deal``
        off makes the match wait for a :func:`~gunzi.engine.actions.deal` action
        before every hand, so a server can supply secret seeds.
        """
        self.rules = rules or preset("gunzi")
        self.variant = variant_of(self.rules)  # what this game rules differently
        self.live = self.rules.follow == "live"  # 活棒
        self.rng = rng if rng is not None else random.Random(0)
        self.auto_deal = auto_deal
        start = self.rules.first_level
        self.levels = list(levels) if levels is not None else [start, start]
        if dealer is None and self.levels[0] != self.levels[1]:
            raise IllegalActionError(
                "the first hand of a round is played with both teams at the same level",
                self.variant.clause("A3"),
            )
        self.events = []
        self.hand_no = 0
        self.round_no = 1
        self.first = dealer is None
        self.dealer = dealer
        self.blood_next = blood
        self.scores = [0, 0, 0, 0]  # cumulative A12 scores (打滚子)
        self.failed_throws = [0, 0, 0, 0]
        self.gained = [0, 0]  # levels gained this round/game (classic ladder)
        self.results = []
        self.round_winners = []
        self.phase = Phase.DEAL
        self.current = CHANCE
        self.hand_rng = random.Random(0)
        self._reset_hand()
        if auto_deal:
            self._auto_deal()

    # ------------------------------------------------------------------ state
    def _reset_hand(self) -> None:
        # (event count, seat, plays): the 打滚子 follows last listed by legal_actions, so
        # verifying one of them is a lookup. Stale once another event is appended; hands
        # change only through apply (a clone, whose hands a search may rearrange, starts
        # without it).
        self.follows_memo = None
        self.seed = None
        self.deal_no = 0
        self.deck = []
        self.pos = 0
        self.next_drawer = 0
        self.first_seat = 0
        self.hands = [[0] * NUM_TYPES for _ in range(4)]
        self.kitty = []
        self.kitty_public = []  # kitty cards turned face up (flip, random draw)
        self.kitty_shown = False  # whole current kitty public
        self.kitty_known_by = NOBODY  # seats that know the whole kitty
        self.decl = None  # seat, cards, suit
        self.declarer_is_dealer = False
        self.bj_pending = False
        self.trump = -1
        team = team_of(self.dealer) if self.dealer is not None else 0
        self.level = self.levels[team]
        self.order = order_for(self.level, -1, self.rules.permanent_twos)
        self.asks = []
        self.can = [False, False, False, False]
        self.window = False
        self.declared = False
        self.tribute_n = 0
        self.payer = -1
        self.payee = -1
        self.tribute_kind = "none"
        self.tribute_cards = ()
        self.dry_pot = False
        self.joker_queue = []
        self.pickup_jokers = None  # announced, pick-up to choose
        self.nothing_to_exchange = False  # a failed announcement made that public
        self.leader = -1
        self.trick = []
        self.lead_shape = None
        self.trick_no = 0
        self.points = [0, 0]  # trick points per team
        self.tricks = []
        self.last_trick_winner = -1
        self.last_winning_play = ()
        self.hand_failed_throws = [0, 0, 0, 0]
        # The hand's last failed throw and who stopped it with what (public, for the tables).
        self.failed_throw = None

    def clone(self) -> Match:
        """An independent copy (for search and what-if analysis)."""
        new = Match.__new__(Match)
        for name in STATE_FIELDS:
            value = getattr(self, name)
            if type(value) is list:  # one level deeper for the hands' count lists
                value = [list(v) if type(v) is list else v for v in value]
            setattr(new, name, value)
        new.follows_memo = None
        new.rng = random.Random()
        new.rng.setstate(self.rng.getstate())
        new.hand_rng = random.Random()
        new.hand_rng.setstate(self.hand_rng.getstate())
        return new

    # ------------------------------------------ the game protocol (engine/game.py)
    @property
    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    def returns(self) -> list[float]:
        """Per seat: the A12 scores so far (打滚子), or the Part C game points of the
        games finished so far (classic: less the failed-throw penalties)."""
        return self.variant.returns(self)

    def information_state(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may know now: :func:`gunzi.engine.view.view`."""
        return view(self, seat)

    @property
    def to_act(self) -> int | None:
        """The seat that must decide now, CHANCE (-1) for a pending deal, None when over."""
        return self.current

    # ----------------------------------------------------------------- events
    def _emit(
        self,
        type_: str,
        public: dict[str, Any],
        secret: dict[str, Any] | None = None,
        audience: frozenset[int] = NOBODY,
        private: bool = False,
    ) -> Event:
        ev = Event(len(self.events) + 1, self.hand_no, type_, freeze(public),
                   None if secret is None else freeze(secret), audience, private)
        self.events.append(ev)
        return ev

    def _emit_flat(self, type_: str, public: dict[str, Any]) -> Event:
        """A public event whose values are already immutable (numbers, text, tuples of
        text): the play and trick events, built without walking them."""
        ev = Event(len(self.events) + 1, self.hand_no, type_, MappingProxyType(public))
        self.events.append(ev)
        return ev

    # ------------------------------------------------------------------- deal
    def _auto_deal(self) -> None:
        self._deal(self.deal_seed(self.rng.getrandbits(SEED_BITS)), None, None)

    def _board_start(self, seed: int) -> None:
        """复式: every hand starts afresh at the first level with no tribute; the board's
        dealer comes from its seed and moves one seat on for the second play, so each
        team gets the cards and the role the other team had."""
        self.first = False
        self.levels = [self.rules.first_level] * 2
        self.blood_next = 0
        self.dealer = (seed % 4 + self.hand_no % 2) % 4

    def _deal(self, seed: int, deck: Sequence[Card] | None, first_seat: int | None) -> Event:
        if self.rules.duplicate:
            self._board_start(seed)
        self.hand_no += 1
        self._reset_hand()
        self.seed = seed
        self.hand_rng = random.Random(seed)
        # The generator is consumed the same way whether or not the caller fixes the seat and
        # the deck, so a replay with both written out stays in step with the original.
        if self.first:
            random_seat = self.hand_rng.randrange(4)
            self.first_seat = first_seat if first_seat is not None else random_seat
        else:
            assert self.dealer is not None
            self.first_seat = self.dealer
        self.tribute_n = self.blood_next if (not self.first or self.rules.first_hand_tribute) else 0
        shuffled = C.deck(self.rules.decks)
        self.hand_rng.shuffle(shuffled)
        ev = self._start_deal(shuffled if deck is None else list(deck))
        self._run_draw()
        return ev

    def _start_deal(self, deck: list[Card]) -> Event:
        self.deal_no += 1
        self.deck = deck
        self.pos = 0
        self.next_drawer = self.first_seat
        self.hands = [[0] * NUM_TYPES for _ in range(4)]
        self.kitty = deck[4 * self.rules.hand_size :]
        self.kitty_public = []
        self.decl = None
        self.declarer_is_dealer = False
        self.bj_pending = False
        self.trump = -1
        self.order = order_for(self.level, -1, self.rules.permanent_twos)
        self.asks = []
        self.can = [False, False, False, False]  # seats holding a valid declaration now
        self.window = False
        self.declared = False
        self.kitty_shown = False
        self.kitty_known_by = NOBODY
        if self.first:
            self.dealer = None
        self.phase = Phase.DRAW
        assert self.seed is not None
        return self._emit(
            "deal",
            {
                "hand": self.hand_no,
                "round": self.round_no,
                "deal_no": self.deal_no,
                "first_hand": self.first,
                "dealer": self.dealer,
                "first_seat": self.first_seat,
                "levels": list(self.levels),
                "level": self.level,
                "tribute": self.tribute_n,
                "commitment": commitment(self.seed),
            },
            {"seed": self.seed, "deck": C.names(deck)},
        )

    def _redeal(self, reason: str) -> None:
        self._emit("redeal", {"reason": reason})
        deck = C.deck(self.rules.decks)
        self.hand_rng.shuffle(deck)
        self._start_deal(deck)

    # ------------------------------------------------------------ draw phase
    def _run_draw(self) -> None:
        """Draw until a seat must be asked (A4, [I-2]) or the bidding closes."""
        total = 4 * self.rules.hand_size
        every = self.rules.declare_asks == "every-draw"
        # The hottest loop of a hand (156 cards in 打滚子): locals, and the event built inline.
        events = self.events
        hands = self.hands
        deck = self.deck
        level = self.level
        can = self.can
        while self.pos < total:
            seat = self.next_drawer
            card = deck[self.pos]
            self.pos += 1
            self.next_drawer = (seat + 1) % 4
            hands[seat][card] += 1
            events.append(Event(len(events) + 1, self.hand_no, "draw",
                                MappingProxyType({"seat": seat, "n": self.pos}),
                                DRAWN[card], ONLY[seat]))
            if self.bj_pending and card < LJ and self.decl is not None and self.decl[0] == seat:
                self._set_trump(card // 13, "bj-next-card", [])
                self.bj_pending = False
            # Drawing can only make a declaration possible, and only with a level card or
            # a joker; a declaration recomputes every seat's flag.
            if not can[seat] and (card >= LJ or card % 13 == level):
                can[seat] = self._can_declare(seat)
            if every and (can[0] or can[1] or can[2] or can[3]):
                self.asks = [(seat + i) % 4 for i in range(4)]
                if self._next_ask():
                    return
        if not self.window:
            # The final window: one more round of asks; a declaration reopens it.
            self.window = True
            self.asks = [(self.next_drawer + i) % 4 for i in range(4)]
            if self._next_ask():
                return
        self._end_draw()

    def _next_ask(self) -> bool:
        """Point ``current`` at the next asked seat that can declare; False if none is left."""
        while self.asks:
            seat = self.asks[0]
            if self.can[seat]:
                self.current = seat
                return True
            self.asks.pop(0)
        return False

    def _apply_declare(self, action: Action) -> Event:
        seat = action.seat
        cards = action.cards
        suit = action.suit if cards[0] >= LJ else cards[0] // 13
        gunzi_first = self.first and self.variant.grabs_big_joker
        if gunzi_first:
            suit = -1
        self.decl = (seat, cards, suit)
        self.declared = True
        self.can = [self._can_declare(s) for s in range(4)]
        if self.first and not self.declarer_is_dealer:
            self.dealer = seat
            self.declarer_is_dealer = True
        ev = self._emit(
            "declare",
            {"seat": seat, "cards": C.names(cards), "suit": C.SUITS[suit] if suit >= 0 else None,
             "n": self.pos, "dealer": self.dealer},
        )
        if gunzi_first:
            self.bj_pending = True
        else:
            self._set_trump(suit, "declared", [], quiet=True)
        self.asks = []
        if self.window:
            self.asks = [(seat + i) % 4 for i in range(1, 5)]
            if self._next_ask():
                return ev
            self._end_draw()
        else:
            self._run_draw()
        return ev

    def _apply_draw_pass(self, action: Action) -> Event:
        # Private: others must not learn that this seat could have declared.
        ev = self._emit("pass", {"seat": action.seat, "n": self.pos}, None,
                        frozenset((action.seat,)), private=True)
        self.asks.pop(0)
        if self._next_ask():
            return ev
        if self.window:
            self._end_draw()
        else:
            self._run_draw()
        return ev

    def _set_trump(self, suit: int, how: str, shown: list[Card], quiet: bool = False) -> None:
        self.trump = suit
        self.order = order_for(self.level, suit, self.rules.permanent_twos)
        if not quiet:
            self._emit("trump", {"suit": C.SUITS[suit] if suit >= 0 else None, "how": how,
                                 "cards": C.names(shown)})

    def _end_draw(self) -> None:
        self.asks = []
        self.current = None
        rules = self.rules
        if self.decl is None:
            # [I-30] classic 无主: the hand is played with no trump suit (trump -1).
            no_trump = self.variant.no_trump and rules.no_declaration == "no-trump"
            if self.first:
                if not self._kitty_flip(name_trump=not no_trump):
                    return
            elif no_trump:
                self._set_trump(-1, "no-trump", [])
            elif not self._random_kitty_trump():
                return
        elif self.bj_pending and self.trump < 0:
            # [I-3] the BJ declarer drew no suited card after declaring.
            if rules.bj_suit_fallback == "redeal":
                self._redeal("bj-declarer-drew-no-suited-card")
                self._run_draw()
                return
            turned: list[Card] = []
            for card in self.kitty:
                turned.append(card)
                if card < LJ:
                    break
            self.kitty_public = list(turned)
            if turned[-1] >= LJ:
                self._redeal("kitty-all-jokers")
                self._run_draw()
                return
            self._set_trump(turned[-1] // 13, "kitty-turn", turned)
        elif self.decl is not None and not (self.first and self.variant.grabs_big_joker):
            self._emit("trump", {"suit": C.SUITS[self.trump], "how": "declared", "cards": []})
        self.bj_pending = False
        self._begin_tribute()

    def _kitty_flip(self, name_trump: bool = True) -> bool:
        """A4.1: nobody grabbed: four seats turn kitty cards; the lowest owner deals (and,
        unless the hand is 无主, its suit is trump)."""
        start = self.first_seat
        turned: list[Card] = []
        n = 4
        while True:
            turned = self.kitty[:n]
            if any(c < LJ for c in turned) or n >= len(self.kitty):
                break
            if self.rules.flip_all_jokers == "redeal":
                break
            n += 1
        if all(c >= LJ for c in turned):
            self.kitty_public = list(turned)
            self._emit("kitty_flip", {"cards": C.names(turned), "dealer": None})
            self._redeal("flip-all-jokers")
            self._run_draw()
            return False
        key = [flip_rank_key(c, self.level, self.rules.permanent_twos) for c in turned]
        low = min(range(len(turned)), key=lambda i: (key[i], i))
        self.dealer = (start + low) % 4
        self.kitty_public = list(turned)
        self._emit(
            "kitty_flip",
            {"cards": C.names(turned), "first_seat": start, "dealer": self.dealer},
        )
        if name_trump:
            self._set_trump(turned[low] // 13, "kitty-flip", turned)
        else:
            self._set_trump(-1, "no-trump", turned)
        return True

    def _random_kitty_trump(self) -> bool:
        """A4.2: nobody declared: kitty cards drawn at random until a suited one."""
        left = list(range(len(self.kitty)))
        drawn: list[Card] = []
        while left:
            i = left.pop(self.hand_rng.randrange(len(left)))
            card = self.kitty[i]
            drawn.append(card)
            if card < LJ:
                self.kitty_public = list(drawn)
                self._set_trump(card // 13, "kitty-random", drawn)
                return True
        self._emit("trump", {"suit": None, "how": "kitty-random", "cards": C.names(drawn)})
        self._redeal("kitty-all-jokers")
        self._run_draw()
        return False

    # ---------------------------------------------------------------- tribute
    def _begin_tribute(self) -> None:
        assert self.dealer is not None
        self.level = self.levels[team_of(self.dealer)]
        n = self.tribute_n if self.variant.tribute else 0
        if n <= 0:
            self._after_tribute()
            return
        giver = (self.dealer - 1) % 4
        if self.hands[giver][BJ] >= 3:
            self.payer, self.payee, self.tribute_kind = self.dealer, giver, "reversed"
        elif self.hands[(giver + 2) % 4][BJ] >= 3:
            self.tribute_kind = "cancelled"
            self._emit("tribute_cancelled", {"giver": giver, "dealer": self.dealer, "n": n})
            self.tribute_n = 0
            self._after_tribute()
            return
        else:
            self.payer, self.payee, self.tribute_kind = giver, self.dealer, "normal"
        eligible = sum(k for c, k in enumerate(self.hands[self.payer]) if not POINTS[c])
        self.tribute_n = min(n, eligible)
        if self.tribute_n == 0:
            self._after_tribute()
            return
        self.phase = Phase.TRIBUTE
        self.current = self.payer

    def _apply_tribute(self, action: Action) -> Event:
        self._move(self.payer, self.payee, action.cards)
        self.tribute_cards = action.cards
        ev = self._emit(
            "tribute",
            {"seat": self.payer, "to": self.payee, "n": len(action.cards),
             "kind": self.tribute_kind},
            {"cards": C.names(action.cards)},
            frozenset((self.payer, self.payee)),
        )
        self.phase = Phase.RETURN
        self.current = self.payee
        return ev

    def _apply_return(self, action: Action) -> Event:
        self._move(self.payee, self.payer, action.cards)
        ev = self._emit(
            "return",
            {"seat": self.payee, "to": self.payer, "n": len(action.cards)},
            {"cards": C.names(action.cards)},
            frozenset((self.payer, self.payee)),
        )
        self._after_tribute()
        return ev

    def _move(self, src: int, dst: int, cards: Sequence[Card]) -> None:
        for c in cards:
            self.hands[src][c] -= 1
            self.hands[dst][c] += 1

    # ------------------------------------------------------------------ kitty
    def _after_tribute(self) -> None:
        assert self.dealer is not None
        if self.declared and self.variant.kitty_shown_after_declaring:
            self.kitty_shown = True
            self._emit("kitty_shown", {"cards": C.names(self.kitty), "when": "after-declaring"})
            if self._is_dry_pot():
                self.dry_pot = True
                self._emit("dry_pot", {"cards": C.names(self.kitty)})
                self._begin_play()
                return
        for c in self.kitty:
            self.hands[self.dealer][c] += 1
        self._emit("take_kitty", {"seat": self.dealer, "n": len(self.kitty)},
                   {"cards": C.names(self.kitty)}, frozenset((self.dealer,)))
        self.kitty = []
        self.phase = Phase.BURY
        self.current = self.dealer

    def _is_dry_pot(self) -> bool:
        """干锅 (A6.2, [I-7])."""
        cls = self.order.cls
        if all(cls[c] == TRUMP for c in self.kitty):
            return True
        if self.rules.dry_pot == "no-trump-suit":
            return not any(c < LJ and c // 13 == self.trump for c in self.kitty)
        return not any(cls[c] == TRUMP for c in self.kitty)

    def _apply_bury(self, action: Action) -> Event:
        assert self.dealer is not None
        seat = self.dealer
        for c in action.cards:
            self.hands[seat][c] -= 1
        self.kitty = list(action.cards)
        self.kitty_shown = False
        self.kitty_public = []
        self.kitty_known_by = frozenset((seat,))
        ev = self._emit("bury", {"seat": seat, "n": len(action.cards)},
                        {"cards": C.names(action.cards)}, frozenset((seat,)))
        if self.variant.joker_burying:
            if BJ in action.cards or LJ in action.cards:
                self._show_kitty("dealer-buried-jokers")
            step = 1 if self.rules.joker_bury_order == "after-dealer" else -1
            self.joker_queue = [(seat + step * i) % 4 for i in (1, 2, 3)]
            self._next_joker_burier()
        else:
            self._begin_play()
        return ev

    def _show_kitty(self, when: str) -> None:
        self.kitty_shown = True
        self._emit("kitty_shown", {"cards": C.names(self.kitty), "when": when})

    def _next_joker_burier(self) -> None:
        """Ask the other seats in turn whether to bury jokers (A6.4, [I-18]).

        Every other seat is asked, not only joker holders: asking only them would tell the
        table who holds jokers. Once the kitty is shown with nothing left to exchange, nobody
        is asked; likewise once a failed announcement has told everyone so.
        """
        known = self.kitty_shown or self.nothing_to_exchange
        if self.joker_queue and not (known and not self.pickup_eligible()):
            self.phase = Phase.BURY_JOKERS
            self.current = self.joker_queue[0]
            return
        self.joker_queue = []
        self._begin_play()

    def _apply_bury_jokers(self, action: Action) -> Event:
        """Bury jokers (A6.4).

        Into a shown kitty the seat names its pick-up. Into a hidden kitty the
        announcement shows the kitty first (扣王时底牌必须公开): if it holds fewer
        exchangeable cards than announced only that many jokers (BJ first) are buried,
        none at all if it holds none (then the kitty stays hidden); if the pick-up is a
        choice among same-rank cards, the seat makes it in a second action.
        """
        seat = action.seat
        if self.pickup_jokers is not None:
            self.pickup_jokers = None
            return self._bury_jokers_done(action, list(action.cards), list(action.take), None)
        if self.kitty_shown:
            take = list(action.take) if action.take else self.auto_take(len(action.cards))
            return self._bury_jokers_done(action, list(action.cards), take, None)
        k = min(len(action.cards), len(self.pickup_eligible()))
        if k == 0:
            self.nothing_to_exchange = True
            ev = self._emit("bury_jokers", {
                "seat": seat, "announced": C.names(action.cards), "chose": [], "cards": [],
                "take": [], "shown": None, "kitty": None})
            self.joker_queue.pop(0)
            self._next_joker_burier()
            return ev
        shown = C.names(self.kitty)
        self.kitty_shown = True
        jokers = sorted(action.cards, reverse=True)[:k]
        choices = self.pickup_choices(k)
        if len(choices) > 1:
            self.pickup_jokers = tuple(sorted(jokers))
            return self._emit("joker_announce", {
                "seat": seat, "announced": C.names(action.cards), "cards": C.names(jokers),
                "shown": shown})
        return self._bury_jokers_done(action, jokers, list(choices[0]), shown)

    def _bury_jokers_done(
        self, action: Action, jokers: list[Card], take: list[Card], shown: list[str] | None
    ) -> Event:
        seat = action.seat
        hand = self.hands[seat]
        for c in jokers:
            hand[c] -= 1
        for c in take:
            hand[c] += 1
            self.kitty.remove(c)
        self.kitty.extend(jokers)
        ev = self._emit(
            "bury_jokers",
            {"seat": seat, "announced": C.names(action.cards), "chose": C.names(action.take),
             "cards": C.names(jokers), "take": C.names(take), "shown": shown,
             "kitty": C.names(self.kitty)},
        )
        self.joker_queue.pop(0)
        self._next_joker_burier()
        return ev

    def _apply_joker_pass(self, action: Action) -> Event:
        ev = self._emit("pass", {"seat": action.seat})
        self.joker_queue.pop(0)
        self._next_joker_burier()
        return ev

    # ------------------------------------------------------------------- play
    def _begin_play(self) -> None:
        assert self.dealer is not None
        self.phase = Phase.PLAY
        self.leader = self.dealer
        self.current = self.dealer
        self.trick = []
        self.trick_no = 1
        self._emit("play_begins", {"leader": self.dealer,
                                   "trump": C.SUITS[self.trump] if self.trump >= 0 else None,
                                   "level": self.level})

    def _apply_play(self, action: Action) -> Event:
        seat = action.seat
        cards = action.cards
        public: dict[str, Any] = {"seat": seat, "cards": tuple([NAMES[c] for c in cards]),
                                  "trick": self.trick_no}
        if not self.trick:
            cards = self.variant.lead(self, seat, cards, public)
        hand = self.hands[seat]
        for c in cards:
            hand[c] -= 1
        self.trick.append((seat, cards))
        ev = self._emit_flat("play", public)
        if len(self.trick) < 4:
            self.current = (seat + 1) % 4
            return ev
        self._end_trick()
        return ev

    def _end_trick(self) -> None:
        plays = [p for _, p in self.trick]
        idx = self.variant.trick_winner(self, plays)
        winner = self.trick[idx][0]
        pts = 0
        for p in plays:
            for c in p:
                pts += POINTS[c]
        self.points[team_of(winner)] += pts
        self.tricks.append(
            {"leader": self.trick[0][0], "plays": [list(p) for p in plays], "winner": winner,
             "points": pts}
        )
        self.last_trick_winner = winner
        self.last_winning_play = plays[idx]
        self._emit_flat("trick", {"trick": self.trick_no, "winner": winner, "points": pts})
        self.trick = []
        self.lead_shape = None
        if not any(self.hands[winner]):  # every hand is empty (all play the same count)
            self._end_hand()
            return
        self.trick_no += 1
        self.leader = winner
        self.current = winner

    # ------------------------------------------------------------ hand end
    def _end_hand(self) -> None:
        result = self.variant.score_hand(self)
        if self.rules.duplicate:
            result["board"] = (self.hand_no + 1) // 2
            result["play"] = 2 - self.hand_no % 2
            over = self.hand_no >= 2 * self.rules.duplicate
        else:
            over = self.round_no > self.rules.rounds
        self.results.append(result)
        self._emit("hand_end", public_result(result),
                   {k: result[k] for k in RESULT_SECRETS if k in result})
        if over:
            self.phase = Phase.OVER
            self.current = None
            self._emit("match_end", {"scores": list(self.scores), "rounds": self.round_winners})
            return
        self.phase = Phase.DEAL
        self.current = CHANCE
        if self.auto_deal:
            self._auto_deal()

    # ------------------------------------------------------------ public API
    def verify(self, action: Action) -> None:
        """Raise the error :meth:`apply` would raise for ``action``; change nothing."""
        checks.verify(self, action)

    def can_apply(self, action: Action) -> bool:
        return checks.can_apply(self, action)

    def apply(self, action: Action, *, validate: bool = True) -> Event:
        """Validate (unless told not to) and perform ``action``; return its event."""
        if validate:
            self.verify(action)
        if action.kind is Kind.PLAY:  # nine actions in ten: a direct call
            return self._apply_play(action)
        handler: Callable[[Action], Event] = getattr(self, _APPLY[action.kind])
        return handler(action)

    def _apply_deal(self, action: Action) -> Event:
        assert action.seed is not None
        return self._deal(action.seed, action.deck, action.first_seat)

    def _apply_pass(self, action: Action) -> Event:
        if self.phase is Phase.DRAW:
            return self._apply_draw_pass(action)
        return self._apply_joker_pass(action)

    # ------------------------------------------------------------ legal moves
    def legal_actions(self, seat: int) -> LegalActions:
        """Every legal action of ``seat`` now (a view: iterate, test membership, sample)."""
        return LegalActions(self, seat)
