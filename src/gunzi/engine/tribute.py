"""Tribute and its return (A5, [I-6]): the phases between the draw and the kitty.

The blood owed from the last hand is paid by the seat before the dealer (reversed when
it holds three big jokers, cancelled when its partner does) and returned by the payee;
games without tribute (``variant.tribute`` false) go straight on to the kitty.
"""

from __future__ import annotations

from gunzi.engine import cards as C
from gunzi.engine import gunzi_tricks as GT
from gunzi.engine.actions import Action, Kind
from gunzi.engine.cards import BJ, NAMES, POINTS, Card
from gunzi.engine.errors import IllegalActionError
from gunzi.engine.events import Event
from gunzi.engine.machine import Machine, Step, show
from gunzi.engine.state import Phase, team_of


class Tribute(Step):
    """The TRIBUTE phase (the payer gives) and the RETURN phase (the payee gives back)."""

    def begin(self, m: Machine) -> None:
        assert m.dealer is not None
        m.level = m.levels[team_of(m.dealer)]
        n = m.tribute_n if m.variant.tribute else 0
        if n <= 0:
            m.begin(Phase.BURY)
            return
        giver = (m.dealer - 1) % 4
        if m.hands[giver][BJ] >= 3:
            m.payer, m.payee, m.tribute_kind = m.dealer, giver, "reversed"
        elif m.hands[(giver + 2) % 4][BJ] >= 3:
            m.tribute_kind = "cancelled"
            m.emit("tribute_cancelled", {"giver": giver, "dealer": m.dealer, "n": n})
            m.tribute_n = 0
            m.begin(Phase.BURY)
            return
        else:
            m.payer, m.payee, m.tribute_kind = giver, m.dealer, "normal"
        eligible = sum(k for c, k in enumerate(m.hands[m.payer]) if not POINTS[c])
        m.tribute_n = min(n, eligible)
        if m.tribute_n == 0:
            m.begin(Phase.BURY)
            return
        m.phase = Phase.TRIBUTE
        m.current = m.payer

    def listed(self, m: Machine, seat: int) -> list[Action] | None:
        if m.phase is Phase.RETURN:
            return None  # built card by card (legal.Selection)
        forced, tied, k = m.tribute_split(seat)
        avail: dict[Card, int] = {}
        for c in tied:
            avail[c] = avail.get(c, 0) + 1
        return [
            Action(Kind.TRIBUTE, seat, tuple(sorted(forced + list(extra))))
            for extra in C.multiset_combinations(sorted(avail.items()), k)
        ]

    # ------------------------------------------------------------------ verify
    def verify(self, m: Machine, action: Action) -> None:
        if action.kind is Kind.TRIBUTE:
            self._verify_tribute(m, action)
        else:
            self._verify_return(m, action)

    @staticmethod
    def _verify_tribute(m: Machine, action: Action) -> None:
        seat = action.seat
        cards = action.cards
        n = m.tribute_n
        _check_count_held(m, action, "tributes", f"give {n} tribute card(s)")
        forced, tied, k = m.tribute_split(seat)
        rest = list(cards)
        for c in forced:
            if c not in rest:
                raise IllegalActionError(
                    f"seat {seat} tributes {show(cards)}: must give its {n} biggest non-point "
                    f"cards, including {show(forced)}", "A5")
            rest.remove(c)
        pool = list(tied)
        for c in rest:
            if c not in pool:
                raise IllegalActionError(
                    f"seat {seat} tributes {show(cards)}: must give its {n} biggest non-point "
                    f"cards: {NAMES[c]} is not one of them (choose {k} of {show(tied)}"
                    + (f" after {show(forced)})" if forced else ")"), "A5")
            pool.remove(c)

    @staticmethod
    def _verify_return(m: Machine, action: Action) -> None:
        seat = action.seat
        cards = action.cards
        n = m.tribute_n
        _check_count_held(m, action, "returns", f"return {n} card(s)")
        side, other, cap1, cap2, cap3 = m.return_caps(seat)
        a1 = sum(1 for c in cards if c in side)
        a2 = sum(1 for c in cards if c in other)
        if a1 != cap1 or a2 != cap2:
            raise IllegalActionError(
                f"seat {seat} returns {show(cards)}: the return must be {n} side cards that "
                f"are not point cards ({cap1} such card(s) here"
                + (f", then {cap2} other non-point card(s)" if cap2 else "")
                + (f", then {cap3} of any card(s)" if cap3 else "")
                + ")", "A5/I-6")

    # ------------------------------------------------------------------- apply
    def apply(self, m: Machine, action: Action) -> Event:
        pair = frozenset((m.payer, m.payee))
        if action.kind is Kind.RETURN:
            m.move_cards(m.payee, m.payer, action.cards)
            ev = m.emit("return", {"seat": m.payee, "to": m.payer, "n": len(action.cards)},
                        {"cards": C.names(action.cards)}, pair)
            m.begin(Phase.BURY)
            return ev
        m.move_cards(m.payer, m.payee, action.cards)
        m.tribute_cards = action.cards
        ev = m.emit(
            "tribute",
            {"seat": m.payer, "to": m.payee, "n": len(action.cards), "kind": m.tribute_kind},
            {"cards": C.names(action.cards)},
            pair,
        )
        m.phase = Phase.RETURN
        m.current = m.payee
        return ev


def _check_count_held(m: Machine, action: Action, verb: str, owed: str) -> None:
    """The tribute or return has the owed number of cards, all held by the seat (A5)."""
    seat = action.seat
    cards = action.cards
    if len(cards) != m.tribute_n:
        raise IllegalActionError(
            f"seat {seat} {verb} {show(cards)}: must {owed}, not {len(cards)}", "A5")
    err = GT.held_error(cards, m.hands[seat])
    if err:
        raise IllegalActionError(f"seat {seat} {verb} {show(cards)} but {err}", "A5")
