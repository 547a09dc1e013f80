"""The kitty (A6, Part B): shown after declaring and 干锅, taken and buried by the dealer."""

from __future__ import annotations

from gunzi.engine import cards as C
from gunzi.engine import gunzi_tricks as GT
from gunzi.engine.actions import Action
from gunzi.engine.cards import BJ, LJ
from gunzi.engine.errors import IllegalActionError
from gunzi.engine.events import Event
from gunzi.engine.machine import Machine, Step, show
from gunzi.engine.order import TRUMP
from gunzi.engine.state import Phase


class Kitty(Step):
    """The BURY phase: the dealer takes the kitty and buries as many cards (choices are
    built card by card: legal.Selection)."""

    def begin(self, m: Machine) -> None:
        assert m.dealer is not None
        if m.declared and m.variant.kitty_shown_after_declaring:
            m.kitty_shown = True
            m.emit("kitty_shown", {"cards": C.names(m.kitty), "when": "after-declaring"})
            if self.is_dry_pot(m):
                m.dry_pot = True
                m.emit("dry_pot", {"cards": C.names(m.kitty)})
                m.begin(Phase.PLAY)
                return
        for c in m.kitty:
            m.hands[m.dealer][c] += 1
        m.emit("take_kitty", {"seat": m.dealer, "n": len(m.kitty)},
               {"cards": C.names(m.kitty)}, frozenset((m.dealer,)))
        m.kitty = []
        m.phase = Phase.BURY
        m.current = m.dealer

    @staticmethod
    def is_dry_pot(m: Machine) -> bool:
        """干锅 (A6.2, [I-7])."""
        cls = m.order.cls
        if all(cls[c] == TRUMP for c in m.kitty):
            return True
        if m.rules.dry_pot == "no-trump-suit":
            return not any(c < LJ and c // 13 == m.trump for c in m.kitty)
        return not any(cls[c] == TRUMP for c in m.kitty)

    def verify(self, m: Machine, action: Action) -> None:
        seat = action.seat
        cards = action.cards
        k = m.rules.kitty_size
        if len(cards) != k:
            raise IllegalActionError(
                f"seat {seat} buries {show(cards)}: must bury {k} cards, not {len(cards)}",
                m.variant.clause("A6.3"))
        err = GT.held_error(cards, m.hands[seat])
        if err:
            raise IllegalActionError(f"seat {seat} buries {show(cards)} but {err}",
                                     m.variant.clause("A6.3"))
        if m.variant.big_joker_first and LJ in cards:
            kept_bj = m.hands[seat][BJ] - cards.count(BJ)
            if kept_bj:
                raise IllegalActionError(
                    f"seat {seat} buries {show(cards)}: a LJ while keeping {kept_bj} BJ; a big "
                    "joker must be buried first (有大王必须先扣大王)", "A6.3")

    def apply(self, m: Machine, action: Action) -> Event:
        assert m.dealer is not None
        seat = m.dealer
        for c in action.cards:
            m.hands[seat][c] -= 1
        m.kitty = list(action.cards)
        m.kitty_shown = False
        m.kitty_public = []
        m.kitty_known_by = frozenset((seat,))
        ev = m.emit("bury", {"seat": seat, "n": len(action.cards)},
                    {"cards": C.names(action.cards)}, frozenset((seat,)))
        m.begin(Phase.BURY_JOKERS if m.variant.joker_burying else Phase.PLAY)
        return ev
