"""The phase interface, and the match as a machine that runs its phases.

A hand goes through phases (:class:`~gunzi.engine.state.Phase`): the deal, drawing and
declaring, tribute and its return, the kitty, joker burying, play, and the hand end.
Each is one :class:`Step` object, in a module of its own (``draw``, ``tribute``,
``kitty``, ``jokers``, ``play``, ``hand_end``), that owns

- ``begin``: entering the phase, doing every step that needs no decision, and either
  stopping where a seat must decide or handing on to the next phase;
- ``verify``: why the decision in hand is illegal (a typed error), changing nothing;
- ``apply``: performing a verified decision, returning its event;
- ``listed``: the legal decisions, when they are few enough to list eagerly.

:class:`Machine` is the match state plus what every phase shares: the event log, moving
cards, naming the trump, the checks common to every decision (an action's form, whose
turn it is) and the hand-over from one phase to the next. The phase modules never import
one another: a phase hands on with ``m.begin(Phase.X)`` (or ``m.end_hand()``), and
:class:`~gunzi.engine.match.Match` maps each phase to its object (``STEPS``). So the
engine has no import cycle, and the game-specific rules stay in ``m.variant``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, NoReturn

from gunzi.engine import cards as C
from gunzi.engine.actions import CHANCE, Action, Kind
from gunzi.engine.cards import NAMES, NUM_TYPES, Card
from gunzi.engine.errors import IllegalActionError, MalformedActionError, OutOfTurnError
from gunzi.engine.events import NOBODY, Event, freeze
from gunzi.engine.order import order_for
from gunzi.engine.state import PHASE_KIND, PHASE_RULE, MatchState, Phase, team_of
from gunzi.engine.view import visible_to_act


def show(cards: Sequence[Card]) -> str:
    """Cards as error messages name them."""
    return " ".join(NAMES[c] for c in cards) or "no cards"


class Step:
    """One phase of a hand: entering it, and verifying and applying its decisions.

    Stateless: one shared instance per phase; the state is the match handed in.
    """

    def begin(self, m: Machine) -> None:
        """Enter the phase: run what needs no decision; stop at a decision or hand on."""
        raise NotImplementedError

    def verify(self, m: Machine, action: Action) -> None:
        """Raise the error :meth:`apply` would raise for ``action``; change nothing.

        Called only for an action of one of the phase's kinds by the seat to act
        (:meth:`Machine.verify` checks that first)."""
        raise NotImplementedError

    def apply(self, m: Machine, action: Action) -> Event:
        """Perform the verified ``action``; return its event."""
        raise NotImplementedError

    def listed(self, m: Machine, seat: int) -> list[Action] | None:
        """Every legal action of ``seat`` (to act now), or None if they are built lazily."""
        return None


class Machine(MatchState):
    """The match state with what every phase shares; the phases are its ``STEPS``."""

    # The phase objects: set by Match (the one module that knows them all).
    STEPS: ClassVar[Mapping[Phase, Step]]
    HAND_END: ClassVar[Step]
    # The match's generator (one seed per hand) and the hand's own (seeded by it): set by
    # Match, outside the state fields (a clone copies their state, not the objects).
    rng: random.Random
    hand_rng: random.Random

    # ---------------------------------------------------------- phase changes
    def begin(self, phase: Phase) -> None:
        """Enter ``phase`` (its object's :meth:`Step.begin`)."""
        self.STEPS[phase].begin(self)

    def end_hand(self) -> None:
        """The last trick is in: score the hand and go on to the next or end the match."""
        self.HAND_END.begin(self)

    def reset_hand(self) -> None:
        """Every field of a hand at its start (before the deal)."""
        # (event count, seat, plays): the 打滚子 follows last listed by legal_actions, so
        # verifying one of them is a lookup. Stale once another event is appended; hands
        # change only through apply (a clone, whose hands a search may rearrange, starts
        # without it).
        self.follows_memo = None
        self.sampled = None  # the action legal_actions(...).sample drew from a listing
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

    # ------------------------------------------------------------------ events
    def emit(
        self,
        type_: str,
        public: dict[str, Any],
        secret: dict[str, Any] | None = None,
        audience: frozenset[int] = NOBODY,
        private: bool = False,
    ) -> Event:
        return self.events.add(self.hand_no, type_, freeze(public),
                               None if secret is None else freeze(secret), audience, private)

    def emit_flat(self, type_: str, public: dict[str, Any]) -> Event:
        """A public event whose values are already immutable (numbers, text, tuples of
        text): the play and trick events, built without walking them
        (:meth:`~gunzi.engine.event_log.EventLog.add_flat`)."""
        return self.events.add_flat(self.hand_no, type_, public)

    # ------------------------------------------------------- shared state moves
    def move_cards(self, src: int, dst: int, cards: Sequence[Card]) -> None:
        for c in cards:
            self.hands[src][c] -= 1
            self.hands[dst][c] += 1

    def set_trump(self, suit: int, how: str, shown: list[Card], quiet: bool = False) -> None:
        self.trump = suit
        self.order = order_for(self.level, suit, self.rules.permanent_twos)
        if not quiet:
            self.emit("trump", {"suit": C.SUITS[suit] if suit >= 0 else None, "how": how,
                                "cards": C.names(shown)})

    def show_kitty(self, when: str) -> None:
        self.kitty_shown = True
        self.emit("kitty_shown", {"cards": C.names(self.kitty), "when": when})

    # --------------------------------------------------------------- decisions
    def verify(self, action: Action) -> None:
        """Raise the error :meth:`apply` would raise for ``action``; change nothing.

        The action's form and the turn here; the rest is the phase's own verify. An
        action that ``legal_actions(seat).sample`` just drew from its listing of this very
        position is legal by construction: a lookup."""
        sampled = self.sampled
        if sampled is not None and sampled[1] is action and sampled[0] == self.events.length:
            return
        if not isinstance(action, Action):
            raise MalformedActionError(f"not an action: {action!r}")
        for group in (action.cards, action.take) if action.take else (action.cards,):
            try:
                bad = bool(group) and (min(group) < 0 or max(group) >= NUM_TYPES)
            except TypeError:
                bad = True
            if bad:
                raise MalformedActionError(
                    f"{action.kind.value}: {list(group)!r} holds something that is not a card "
                    "id 0..53")
        if action.seat != self.current or action.kind not in PHASE_KIND[self.phase]:
            self._refuse_turn(action)
        self.STEPS[self.phase].verify(self, action)

    def _refuse_turn(self, action: Action) -> NoReturn:
        """Raise the error for an action by the wrong seat or of the wrong kind."""
        seat = action.seat
        if type(seat) is not int or not (seat == CHANCE if action.kind is Kind.DEAL
                                         else 0 <= seat <= 3):
            what = "the dealer machine (-1)" if action.kind is Kind.DEAL else "a seat 0..3"
            raise MalformedActionError(f"{action.kind.value}: seat {seat!r} is not {what}")
        rule = self.variant.clause(PHASE_RULE[self.phase])
        if self.phase is Phase.OVER:
            raise OutOfTurnError(f"the match is over; {action} is not possible", rule)
        expected = " or ".join(k.value for k in PHASE_KIND[self.phase])
        if visible_to_act(self, seat) is None and seat != CHANCE:
            # Who is being asked may be private (view.visible_to_act): in a first hand of
            # 打滚子 only big-joker holders are asked, so naming the seat would tell.
            raise OutOfTurnError(
                f"{action}: during the draw a seat acts only when asked whether to "
                f"declare (then: {expected}); seat {seat} is not being asked now", rule)
        who = "the dealer machine" if self.current == CHANCE else f"seat {self.current}"
        if action.kind not in PHASE_KIND[self.phase]:
            raise OutOfTurnError(
                f"{action}: the {self.phase.value} phase expects {expected} from {who}", rule)
        raise OutOfTurnError(f"{action}: not this seat's turn; waiting for {who}", rule)

    def can_apply(self, action: Action) -> bool:
        try:
            self.verify(action)
        except (MalformedActionError, OutOfTurnError, IllegalActionError):
            return False
        return True

    def apply(self, action: Action, *, validate: bool = True) -> Event:
        """Validate (unless told not to) and perform ``action``; return its event."""
        if validate:
            self.verify(action)
        return self.STEPS[self.phase].apply(self, action)
