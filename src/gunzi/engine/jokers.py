"""Joker burying (A6.4, [I-18]): after the dealer buries, the other seats in turn may bury
jokers into the kitty, taking back its lowest cards that are neither points nor jokers."""

from __future__ import annotations

from collections.abc import Sequence

from gunzi.engine import cards as C
from gunzi.engine import gunzi_tricks as GT
from gunzi.engine.actions import Action, Kind
from gunzi.engine.cards import BJ, LJ, Card
from gunzi.engine.errors import IllegalActionError
from gunzi.engine.events import Event
from gunzi.engine.machine import Machine, Step, show
from gunzi.engine.state import Phase


class JokerBurying(Step):
    """The BURY_JOKERS phase: each other seat buries jokers or passes."""

    def begin(self, m: Machine) -> None:
        assert m.dealer is not None
        seat = m.dealer
        if BJ in m.kitty or LJ in m.kitty:
            m.show_kitty("dealer-buried-jokers")
        step = 1 if m.rules.joker_bury_order == "after-dealer" else -1
        m.joker_queue = [(seat + step * i) % 4 for i in (1, 2, 3)]
        self._next(m)

    @staticmethod
    def _next(m: Machine) -> None:
        """Ask the other seats in turn whether to bury jokers (A6.4, [I-18]).

        Every other seat is asked, not only joker holders: asking only them would tell the
        table who holds jokers. Once the kitty is shown with nothing left to exchange, nobody
        is asked; likewise once a failed announcement has told everyone so.
        """
        known = m.kitty_shown or m.nothing_to_exchange
        if m.joker_queue and not (known and not m.pickup_eligible()):
            m.phase = Phase.BURY_JOKERS
            m.current = m.joker_queue[0]
            return
        m.joker_queue = []
        m.begin(Phase.PLAY)

    def listed(self, m: Machine, seat: int) -> list[Action] | None:
        hand = m.hands[seat]
        if m.pickup_jokers is not None:
            k = len(m.pickup_jokers)
            return [Action(Kind.BURY_JOKERS, seat, m.pickup_jokers, take=take)
                    for take in m.pickup_choices(k)]
        out = [Action(Kind.PASS, seat)]
        limit = len(m.pickup_eligible()) if m.kitty_shown else hand[BJ] + hand[LJ]
        for b in range(hand[BJ] + 1):
            for lj in range(hand[LJ] + 1):
                k = b + lj
                if k == 0 or k > limit or (lj and b < hand[BJ]):
                    continue
                jokers = (LJ,) * lj + (BJ,) * b
                if not m.kitty_shown:
                    out.append(Action(Kind.BURY_JOKERS, seat, jokers))
                    continue
                for take in m.pickup_choices(k):
                    out.append(Action(Kind.BURY_JOKERS, seat, jokers, take=take))
        return out

    # ------------------------------------------------------------------ verify
    def verify(self, m: Machine, action: Action) -> None:
        if action.kind is Kind.PASS:
            if m.pickup_jokers is not None:
                raise IllegalActionError(
                    f"seat {action.seat} announced jokers and must choose its pick-up", "A6.4")
            return
        seat = action.seat
        jokers = action.cards
        take = action.take
        if not jokers or any(c < LJ for c in jokers):
            raise IllegalActionError(f"seat {seat} may bury only jokers, not {show(jokers)}",
                                     "A6.4")
        err = GT.held_error(jokers, m.hands[seat])
        if err:
            raise IllegalActionError(f"seat {seat} buries {show(jokers)} but {err}", "A6.4")
        if LJ in jokers and m.hands[seat][BJ] - jokers.count(BJ) > 0:
            raise IllegalActionError(
                f"seat {seat} buries {show(jokers)}: a LJ while keeping a BJ; a big joker must "
                "be buried first", "A6.4")
        if m.pickup_jokers is not None:
            if tuple(sorted(jokers)) != m.pickup_jokers or not take:
                raise IllegalActionError(
                    f"seat {seat} announced {show(m.pickup_jokers)} and must now choose which "
                    "kitty cards to take back for them", "A6.4")
        elif not m.kitty_shown:
            if take:
                raise IllegalActionError(
                    f"seat {seat} names kitty cards to take back, but the kitty is hidden: the "
                    "lowest exchangeable cards are taken for it", "A6.4")
            return
        eligible = sorted(m.pickup_eligible(), key=m.pickup_key)
        if len(jokers) > len(eligible):
            raise IllegalActionError(
                f"seat {seat} buries {show(jokers)}: the kitty holds only {len(eligible)} "
                "card(s) that are neither point cards nor jokers to take back", "A6.4")
        if not take:
            return
        if len(take) != len(jokers):
            raise IllegalActionError(
                f"seat {seat} buries {show(jokers)} taking {show(take)}: must take back as "
                f"many kitty cards as jokers ({len(jokers)}), not {len(take)}", "A6.4")
        lowest = eligible[: len(jokers)]
        cut = m.pickup_key(lowest[-1])
        forced = [c for c in lowest if m.pickup_key(c) < cut]
        tied = [c for c in eligible if m.pickup_key(c) == cut]
        rest = list(take)
        for c in forced:
            if c not in rest:
                raise IllegalActionError(_pickup_msg(seat, lowest, take), "A6.4")
            rest.remove(c)
        for c in rest:
            if c not in tied:
                raise IllegalActionError(_pickup_msg(seat, lowest, take), "A6.4")
            tied.remove(c)

    # ------------------------------------------------------------------- apply
    def apply(self, m: Machine, action: Action) -> Event:
        """Bury jokers (A6.4), or pass.

        Into a shown kitty the seat names its pick-up. Into a hidden kitty the
        announcement shows the kitty first (扣王时底牌必须公开): if it holds fewer
        exchangeable cards than announced only that many jokers (BJ first) are buried,
        none at all if it holds none (then the kitty stays hidden); if the pick-up is a
        choice among same-rank cards, the seat makes it in a second action.
        """
        seat = action.seat
        if action.kind is Kind.PASS:
            ev = m.emit("pass", {"seat": seat})
            m.joker_queue.pop(0)
            self._next(m)
            return ev
        if m.pickup_jokers is not None:
            m.pickup_jokers = None
            return self._done(m, action, list(action.cards), list(action.take), None)
        if m.kitty_shown:
            take = list(action.take) if action.take else m.auto_take(len(action.cards))
            return self._done(m, action, list(action.cards), take, None)
        k = min(len(action.cards), len(m.pickup_eligible()))
        if k == 0:
            m.nothing_to_exchange = True
            ev = m.emit("bury_jokers", {
                "seat": seat, "announced": C.names(action.cards), "chose": [], "cards": [],
                "take": [], "shown": None, "kitty": None})
            m.joker_queue.pop(0)
            self._next(m)
            return ev
        shown = C.names(m.kitty)
        m.kitty_shown = True
        jokers = sorted(action.cards, reverse=True)[:k]
        choices = m.pickup_choices(k)
        if len(choices) > 1:
            m.pickup_jokers = tuple(sorted(jokers))
            return m.emit("joker_announce", {
                "seat": seat, "announced": C.names(action.cards), "cards": C.names(jokers),
                "shown": shown})
        return self._done(m, action, jokers, list(choices[0]), shown)

    def _done(self, m: Machine, action: Action, jokers: list[Card], take: list[Card],
              shown: list[str] | None) -> Event:
        seat = action.seat
        hand = m.hands[seat]
        for c in jokers:
            hand[c] -= 1
        for c in take:
            hand[c] += 1
            m.kitty.remove(c)
        m.kitty.extend(jokers)
        ev = m.emit(
            "bury_jokers",
            {"seat": seat, "announced": C.names(action.cards), "chose": C.names(action.take),
             "cards": C.names(jokers), "take": C.names(take), "shown": shown,
             "kitty": C.names(m.kitty)},
        )
        m.joker_queue.pop(0)
        self._next(m)
        return ev


def _pickup_msg(seat: int, lowest: list[Card], take: Sequence[Card]) -> str:
    return (f"seat {seat} takes {show(take)}: a joker burier takes back the kitty's lowest "
            f"cards that are neither point cards nor jokers ({show(lowest)}; same rank, any "
            "suit)")
