"""What every play core keeps: the hands as flat counts, whose turn, the trick in
progress, the points, the trick winners and, on request, the log of plays.

The game modules (:mod:`gunzi.core.gunzi_play`, :mod:`gunzi.core.classic_play`) add
their tables and their lead's shape, and settle each trick through :meth:`_settle`.
"""

from __future__ import annotations

from gunzi.engine.cards import NUM_TYPES, POINTS
from gunzi.engine.order import TRUMP

NT = NUM_TYPES
_PTS: list[int] = list(POINTS)


class TrickState:
    """A play phase's common state; seat ``turn`` acts next, ``cards_left`` reaches 0 at
    the end."""

    __slots__ = (
        "cards_left",
        "h",
        "last_play",
        "last_winner",
        "lead_n",
        "led",
        "log",
        "points",
        "trick",
        "trick_seats",
        "turn",
        "winners",
    )

    def __init__(self, h: list[int], leader: int, cards_left: int) -> None:
        self.h = h  # 4 x 54 counts, seat by seat
        self.turn = leader
        self.trick: list[tuple[int, ...]] = []
        self.trick_seats: list[int] = []
        self.lead_n = 0
        self.led = -1  # the led suit class
        self.points = [0, 0]
        self.last_winner = -1
        self.last_play: tuple[int, ...] = ()
        self.winners: list[int] = []  # trick winners in order (the record of the outcome)
        self.cards_left = cards_left  # cards each seat still holds
        # Every play in order, as (seat, cards), when asked for (records, replays).
        self.log: list[tuple[int, tuple[int, ...]]] | None = None

    def _copy_to(self, new: TrickState) -> None:
        """Copy the trick, the score and the log into ``new`` (a clone with the hands)."""
        new.trick = list(self.trick)
        new.trick_seats = list(self.trick_seats)
        new.lead_n = self.lead_n
        new.led = self.led
        new.points = list(self.points)
        new.last_winner = self.last_winner
        new.last_play = self.last_play
        new.winners = list(self.winners)
        new.log = None if self.log is None else list(self.log)

    @property
    def is_over(self) -> bool:
        return self.cards_left <= 0

    def hand(self, seat: int) -> list[int]:
        base = seat * NT
        return self.h[base:base + NT]

    def _end_same_id(self, cls: list[int], pw: list[int]) -> int:
        """Settle a full trick led by one card id (once, twice or three times): only a play
        of one id can beat it, by a higher power in the winning class or as the first
        trump on a side suit (A7; Part B Rules U and W). Returns the winner's seat."""
        trick = self.trick
        led = self.led
        best = 0
        bc = led
        bp = pw[trick[0][0]]
        pts = 0
        for i in range(4):  # one pass: the points and the winner
            p = trick[i]
            f = p[0]
            same = True
            for c in p:
                pts += _PTS[c]
                if c != f:
                    same = False
            if i == 0 or not same:
                continue
            c = cls[f]
            if c == bc:
                if pw[f] > bp:
                    best = i
                    bp = pw[f]
            elif c == TRUMP and bc == led:
                best = i
                bc = c
                bp = pw[f]
        return self._settle(best, pts)

    def _trick_points(self) -> int:
        pts = 0
        for p in self.trick:
            for c in p:
                pts += _PTS[c]
        return pts

    def _settle(self, best: int, pts: int) -> int:
        """Give the full trick's points ``pts`` to the team of the play at ``best`` and let
        its seat lead next; returns that seat."""
        winner = self.trick_seats[best]
        self.points[winner % 2] += pts
        self.last_winner = winner
        self.last_play = self.trick[best]
        self.winners.append(winner)
        self.cards_left -= self.lead_n
        self.trick = []
        self.trick_seats = []
        self.turn = winner
        return winner
