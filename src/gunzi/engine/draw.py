"""The deal, and drawing and declaring: the first phases of every hand (A4, Part B).

:class:`Deal` waits for (or makes) the hand's seed and shuffles; :class:`Draw` hands
out the cards one by one, asks the seats that can declare (A4, [I-2]), settles the
trump (declared, grabbed big joker, kitty flip, random kitty card, 无主) or redeals,
and hands on to tribute.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence

from gunzi.engine import cards as C
from gunzi.engine import gunzi_tricks as GT
from gunzi.engine.actions import CHANCE, Action, Kind
from gunzi.engine.cards import LJ, NAMES, NUM_TYPES, Card
from gunzi.engine.errors import IllegalActionError, MalformedActionError, OutOfTurnError
from gunzi.engine.events import NOBODY, Event
from gunzi.engine.machine import Machine, Step, show
from gunzi.engine.order import flip_rank_key, order_for
from gunzi.engine.state import Phase

ONLY = tuple(frozenset((s,)) for s in range(4))  # audience of one seat
# The secret part of a draw event, one per card, shared by every draw of that card (the
# event log makes each event's read-only map of it; never changed).
DRAWN = tuple({"card": NAMES[c]} for c in range(NUM_TYPES))
SEED_BITS = 256
SEED_LIMIT = 2**SEED_BITS


def commitment(seed: int) -> str:
    """SHA-256 of the seed as 32 big-endian bytes: published before the deal."""
    return hashlib.sha256(seed.to_bytes(SEED_BITS // 8, "big")).hexdigest()


class Deal(Step):
    """Waiting for the hand's seed (a chance action), or drawing one (``auto_deal``)."""

    def begin(self, m: Machine) -> None:
        m.phase = Phase.DEAL
        m.current = CHANCE
        if m.auto_deal:
            self.deal(m, m.deal_seed(m.rng.getrandbits(SEED_BITS)), None, None)

    def verify(self, m: Machine, action: Action) -> None:
        if action.seed is None or not 0 <= action.seed < SEED_LIMIT:
            raise MalformedActionError("a deal needs a seed in [0, 2**256)")
        if action.deck is not None and sorted(action.deck) != sorted(C.deck(m.rules.decks)):
            raise IllegalActionError(
                f"the deck must hold exactly {m.rules.decks} full deck(s) "
                f"({54 * m.rules.decks} cards)", m.variant.clause("A1"))
        if action.first_seat is not None and not m.first:
            raise IllegalActionError("only a first hand of a round has a chosen start seat",
                                     m.variant.clause("A4"))
        if m.deal_seed(action.seed) != action.seed:
            raise IllegalActionError(
                f"the second play of duplicate board {m.hand_no // 2 + 1} repeats the first "
                "play's deal: its seed must be the same", "duplicate")

    def apply(self, m: Machine, action: Action) -> Event:
        assert action.seed is not None
        return self.deal(m, action.seed, action.deck, action.first_seat)

    def deal(self, m: Machine, seed: int, deck: Sequence[Card] | None,
             first_seat: int | None) -> Event:
        if m.rules.duplicate:
            self._board_start(m, seed)
        m.hand_no += 1
        m.reset_hand()
        m.seed = seed
        m.hand_rng = random.Random(seed)
        # The generator is consumed the same way whether or not the caller fixes the seat and
        # the deck, so a replay with both written out stays in step with the original.
        if m.first:
            random_seat = m.hand_rng.randrange(4)
            m.first_seat = first_seat if first_seat is not None else random_seat
        else:
            assert m.dealer is not None
            m.first_seat = m.dealer
        m.tribute_n = m.blood_next if (not m.first or m.rules.first_hand_tribute) else 0
        shuffled = C.deck(m.rules.decks)
        m.hand_rng.shuffle(shuffled)
        ev = start_deal(m, shuffled if deck is None else list(deck))
        m.begin(Phase.DRAW)
        return ev

    @staticmethod
    def _board_start(m: Machine, seed: int) -> None:
        """复式: every hand starts afresh at the first level with no tribute; the board's
        dealer comes from its seed and moves one seat on for the second play, so each
        team gets the cards and the role the other team had."""
        m.first = False
        m.levels = [m.rules.first_level] * 2
        m.blood_next = 0
        m.dealer = (seed % 4 + m.hand_no % 2) % 4


def start_deal(m: Machine, deck: list[Card]) -> Event:
    """Lay out a shuffled deck (a deal or a redeal): nothing drawn, nothing declared."""
    m.deal_no += 1
    m.deck = deck
    m.pos = 0
    m.next_drawer = m.first_seat
    m.hands = [[0] * NUM_TYPES for _ in range(4)]
    m.kitty = deck[4 * m.rules.hand_size :]
    m.kitty_public = []
    m.decl = None
    m.declarer_is_dealer = False
    m.bj_pending = False
    m.trump = -1
    m.order = order_for(m.level, -1, m.rules.permanent_twos)
    m.asks = []
    m.can = [False, False, False, False]  # seats holding a valid declaration now
    m.window = False
    m.declared = False
    m.kitty_shown = False
    m.kitty_known_by = NOBODY
    if m.first:
        m.dealer = None
    m.phase = Phase.DRAW
    assert m.seed is not None
    return m.emit(
        "deal",
        {
            "hand": m.hand_no,
            "round": m.round_no,
            "deal_no": m.deal_no,
            "first_hand": m.first,
            "dealer": m.dealer,
            "first_seat": m.first_seat,
            "levels": list(m.levels),
            "level": m.level,
            "tribute": m.tribute_n,
            "commitment": commitment(m.seed),
        },
        {"seed": m.seed, "deck": C.names(deck)},
    )


class Draw(Step):
    """Drawing, asking whoever can declare, and settling the trump (A4, Part B)."""

    def begin(self, m: Machine) -> None:
        """Draw until a seat must be asked (A4, [I-2]) or the bidding closes."""
        total = 4 * m.rules.hand_size
        every = m.rules.declare_asks == "every-draw"
        # The hottest loop of a hand (156 cards in 打滚子): locals, and the event built inline.
        events = m.events
        hands = m.hands
        deck = m.deck
        level = m.level
        can = m.can
        while m.pos < total:
            seat = m.next_drawer
            card = deck[m.pos]
            m.pos += 1
            m.next_drawer = (seat + 1) % 4
            hands[seat][card] += 1
            events.add_flat(m.hand_no, "draw", {"seat": seat, "n": m.pos}, DRAWN[card],
                            ONLY[seat])
            if m.bj_pending and card < LJ and m.decl is not None and m.decl[0] == seat:
                m.set_trump(card // 13, "bj-next-card", [])
                m.bj_pending = False
            # Drawing can only make a declaration possible, and only with a level card or
            # a joker; a declaration recomputes every seat's flag.
            if not can[seat] and (card >= LJ or card % 13 == level):
                can[seat] = m._can_declare(seat)
            if every and (can[0] or can[1] or can[2] or can[3]):
                m.asks = [(seat + i) % 4 for i in range(4)]
                if self._next_ask(m):
                    return
        if not m.window:
            # The final window: one more round of asks; a declaration reopens it.
            m.window = True
            m.asks = [(m.next_drawer + i) % 4 for i in range(4)]
            if self._next_ask(m):
                return
        self._end_draw(m)

    @staticmethod
    def _next_ask(m: Machine) -> bool:
        """Point ``current`` at the next asked seat that can declare; False if none is left."""
        while m.asks:
            seat = m.asks[0]
            if m.can[seat]:
                m.current = seat
                return True
            m.asks.pop(0)
        return False

    def listed(self, m: Machine, seat: int) -> list[Action] | None:
        return [Action(Kind.PASS, seat), *m.declarations(seat)]

    # ------------------------------------------------------------------ verify
    def verify(self, m: Machine, action: Action) -> None:
        seat = action.seat
        if not m.asks or m.asks[0] != seat:
            if action.kind is Kind.PASS:
                raise OutOfTurnError(f"seat {seat} is not being asked to declare")
            raise OutOfTurnError(f"{action}: seat {seat} is not being asked to declare")
        if action.kind is Kind.DECLARE:
            self._verify_declare(m, action)

    def _verify_declare(self, m: Machine, action: Action) -> None:
        cards = action.cards
        seat = action.seat
        if not cards:
            raise MalformedActionError("a declaration shows 1 to 3 cards")
        if any(c != cards[0] for c in cards) or len(cards) > 3:
            raise IllegalActionError(
                f"seat {seat} declares with {show(cards)}: a declaration shows 1, 2 or 3 "
                "identical cards", m.variant.clause("A4.2", "B/A4.2"))
        err = GT.held_error(cards, m.hands[seat])
        if err:
            raise IllegalActionError(f"seat {seat} declares {show(cards)} but {err}",
                                     m.variant.clause("A4"))
        if Action(Kind.DECLARE, seat, cards, action.suit) not in m.declarations(seat):
            raise IllegalActionError(self._why_not(m, action),
                                     m.variant.clause("A4.2", "B/A4.2"))

    @staticmethod
    def _why_not(m: Machine, action: Action) -> str:
        cards = action.cards
        who = f"seat {action.seat}"
        if m.first and m.variant.grabs_big_joker:
            if m.decl is not None:
                return f"{who}: the big joker was already grabbed; it cannot be overturned"
            return f"{who}: the first hand is declared by showing one BJ (抢亮大王)"
        if cards[0] >= LJ:
            if not m.rules.joker_declarations:
                return f"{who}: these rules do not allow joker declarations"
            if len(cards) != 3:
                return f"{who}: jokers declare only as three LJ or three BJ"
            if not 0 <= action.suit <= 3:
                return f"{who}: a three-joker declaration must name a suit (S, H, C or D)"
        elif cards[0] % 13 != m.level:
            return (f"{who}: {show(cards)} is not a level card; this hand is played at "
                    f"{C.RANKS[m.level]}")
        elif action.suit not in (-1, cards[0] // 13):
            return f"{who}: a level-card declaration names its own suit"
        standing = m.decl
        if standing is not None:
            return (f"{who}: {show(cards)} is not stronger than the standing declaration "
                    f"{show(standing[1])} by seat {standing[0]}")
        return f"{who}: {show(cards)} is not a valid declaration"

    # ------------------------------------------------------------------- apply
    def apply(self, m: Machine, action: Action) -> Event:
        if action.kind is Kind.PASS:
            return self._pass(m, action)
        seat = action.seat
        cards = action.cards
        suit = action.suit if cards[0] >= LJ else cards[0] // 13
        gunzi_first = m.first and m.variant.grabs_big_joker
        if gunzi_first:
            suit = -1
        m.decl = (seat, cards, suit)
        m.declared = True
        m.can = [m._can_declare(s) for s in range(4)]
        if m.first and not m.declarer_is_dealer:
            m.dealer = seat
            m.declarer_is_dealer = True
        ev = m.emit(
            "declare",
            {"seat": seat, "cards": C.names(cards), "suit": C.SUITS[suit] if suit >= 0 else None,
             "n": m.pos, "dealer": m.dealer},
        )
        if gunzi_first:
            m.bj_pending = True
        else:
            m.set_trump(suit, "declared", [], quiet=True)
        m.asks = []
        if m.window:
            m.asks = [(seat + i) % 4 for i in range(1, 5)]
            if self._next_ask(m):
                return ev
            self._end_draw(m)
        else:
            self.begin(m)
        return ev

    def _pass(self, m: Machine, action: Action) -> Event:
        # Private: others must not learn that this seat could have declared.
        ev = m.emit("pass", {"seat": action.seat, "n": m.pos}, None,
                    frozenset((action.seat,)), private=True)
        m.asks.pop(0)
        if self._next_ask(m):
            return ev
        if m.window:
            self._end_draw(m)
        else:
            self.begin(m)
        return ev

    # ------------------------------------------------------- the trump settled
    def _end_draw(self, m: Machine) -> None:
        m.asks = []
        m.current = None
        rules = m.rules
        if m.decl is None:
            # [I-30] classic 无主: the hand is played with no trump suit (trump -1).
            no_trump = m.variant.no_trump and rules.no_declaration == "no-trump"
            if m.first:
                if not self._kitty_flip(m, name_trump=not no_trump):
                    return
            elif no_trump:
                m.set_trump(-1, "no-trump", [])
            elif not self._random_kitty_trump(m):
                return
        elif m.bj_pending and m.trump < 0:
            # [I-3] the BJ declarer drew no suited card after declaring.
            if rules.bj_suit_fallback == "redeal":
                self._redeal(m, "bj-declarer-drew-no-suited-card")
                return
            turned: list[Card] = []
            for card in m.kitty:
                turned.append(card)
                if card < LJ:
                    break
            m.kitty_public = list(turned)
            if turned[-1] >= LJ:
                self._redeal(m, "kitty-all-jokers")
                return
            m.set_trump(turned[-1] // 13, "kitty-turn", turned)
        elif m.decl is not None and not (m.first and m.variant.grabs_big_joker):
            m.emit("trump", {"suit": C.SUITS[m.trump], "how": "declared", "cards": []})
        m.bj_pending = False
        m.begin(Phase.TRIBUTE)

    def _redeal(self, m: Machine, reason: str) -> None:
        """Shuffle a fresh deck for the same hand and draw again."""
        m.emit("redeal", {"reason": reason})
        deck = C.deck(m.rules.decks)
        m.hand_rng.shuffle(deck)
        start_deal(m, deck)
        self.begin(m)

    def _kitty_flip(self, m: Machine, name_trump: bool = True) -> bool:
        """A4.1: nobody grabbed: four seats turn kitty cards; the lowest owner deals (and,
        unless the hand is 无主, its suit is trump)."""
        start = m.first_seat
        turned: list[Card] = []
        n = 4
        while True:
            turned = m.kitty[:n]
            if any(c < LJ for c in turned) or n >= len(m.kitty):
                break
            if m.rules.flip_all_jokers == "redeal":
                break
            n += 1
        if all(c >= LJ for c in turned):
            m.kitty_public = list(turned)
            m.emit("kitty_flip", {"cards": C.names(turned), "dealer": None})
            self._redeal(m, "flip-all-jokers")
            return False
        key = [flip_rank_key(c, m.level, m.rules.permanent_twos) for c in turned]
        low = min(range(len(turned)), key=lambda i: (key[i], i))
        m.dealer = (start + low) % 4
        m.kitty_public = list(turned)
        m.emit(
            "kitty_flip",
            {"cards": C.names(turned), "first_seat": start, "dealer": m.dealer},
        )
        if name_trump:
            m.set_trump(turned[low] // 13, "kitty-flip", turned)
        else:
            m.set_trump(-1, "no-trump", turned)
        return True

    def _random_kitty_trump(self, m: Machine) -> bool:
        """A4.2: nobody declared: kitty cards drawn at random until a suited one."""
        left = list(range(len(m.kitty)))
        drawn: list[Card] = []
        while left:
            i = left.pop(m.hand_rng.randrange(len(left)))
            card = m.kitty[i]
            drawn.append(card)
            if card < LJ:
                m.kitty_public = list(drawn)
                m.set_trump(card // 13, "kitty-random", drawn)
                return True
        m.emit("trump", {"suit": None, "how": "kitty-random", "cards": C.names(drawn)})
        self._redeal(m, "kitty-all-jokers")
        return False
