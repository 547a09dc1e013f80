"""Play (A7, Part B): tricks until every hand is empty, then the hand end.

What a game rules differently about play (the shape of a lead and a failed throw, the
legal follows, the trick winner) is asked of the rules object, ``m.variant``.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from gunzi.engine import cards as C
from gunzi.engine.actions import Action
from gunzi.engine.cards import POINTS, Card
from gunzi.engine.errors import IllegalActionError
from gunzi.engine.events import Event
from gunzi.engine.machine import Machine, Step, show
from gunzi.engine.state import Phase, team_of


@lru_cache(maxsize=1 << 14)
def play_names(cards: tuple[Card, ...]) -> tuple[str, ...]:
    """The names of a play's cards, as its event holds them; built once per play."""
    return tuple(C.names(cards))


class Play(Step):
    """The PLAY phase: the seats play in turn; the engine collects each trick."""

    def begin(self, m: Machine) -> None:
        assert m.dealer is not None
        m.phase = Phase.PLAY
        m.leader = m.dealer
        m.current = m.dealer
        m.trick = []
        m.trick_no = 1
        m.emit("play_begins", {"leader": m.dealer,
                               "trump": C.SUITS[m.trump] if m.trump >= 0 else None,
                               "level": m.level})

    # Plays are listed by legal.LegalActions through the rules object (some games list
    # them eagerly, some build them lazily): no ``listed`` here.

    def verify(self, m: Machine, action: Action) -> None:
        seat = action.seat
        cards = action.cards
        if not cards:
            raise IllegalActionError(f"seat {seat} must play at least one card", "A7")
        err = m.variant.play_error(m, seat, cards)
        if err:
            verb = "leads" if not m.trick else "follows with"
            raise IllegalActionError(f"seat {seat} {verb} {show(cards)}: {err}",
                                     m.variant.play_rule)

    def apply(self, m: Machine, action: Action) -> Event:
        seat = action.seat
        cards = action.cards
        public: dict[str, Any] = {"seat": seat, "cards": play_names(cards), "trick": m.trick_no}
        if not m.trick:
            cards = m.variant.lead(m, seat, cards, public)
        hand = m.hands[seat]
        for c in cards:
            hand[c] -= 1
        m.trick.append((seat, cards))
        ev = m.emit_flat("play", public)
        if len(m.trick) < 4:
            m.current = (seat + 1) % 4
            return ev
        self._end_trick(m)
        return ev

    @staticmethod
    def _end_trick(m: Machine) -> None:
        plays = [p for _, p in m.trick]
        idx = m.variant.trick_winner(m, plays)
        winner = m.trick[idx][0]
        pts = 0
        for p in plays:
            for c in p:
                pts += POINTS[c]
        m.points[team_of(winner)] += pts
        m.tricks.append(
            {"leader": m.trick[0][0], "plays": [list(p) for p in plays], "winner": winner,
             "points": pts}
        )
        m.last_trick_winner = winner
        m.last_winning_play = plays[idx]
        m.emit_flat("trick", {"trick": m.trick_no, "winner": winner, "points": pts})
        m.trick = []
        m.lead_shape = None
        if not any(m.hands[winner]):  # every hand is empty (all play the same count)
            m.end_hand()
            return
        m.trick_no += 1
        m.leader = winner
        m.current = winner
