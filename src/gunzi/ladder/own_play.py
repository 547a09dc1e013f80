"""Who made their own decisions: the tally behind a fair ladder and the turn clock. Pure.

A table feeds every decision it applies (live, and again when it replays its stored actions
after a restart, so the tally survives one) with the decision's source: ``player`` (the
person at the seat), ``timeout`` (the clock ran out and the bot decided once), ``auto`` (the
bot played the seat under 托管: asked for, or the player away), ``bot`` (a bot's own seat).

- **Ladder** (docs/ladder.md): a person's seat counts for a result only if in every hand of
  it at most :data:`AUTO_LIMIT` of the seat's decisions were made for them.
- **Clock** (docs/server.md): a seat's run of timeouts with no decision of its own between
  them; the table puts the seat in 托管 once the run reaches :data:`TIMEOUTS_TO_AUTO`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

AUTO_LIMIT = 3  # decisions per hand the server may make for a person who still counts
TIMEOUTS_TO_AUTO = 2  # timeouts in a row before the seat goes to 托管
AUTOMATIC = frozenset({"timeout", "auto"})


@dataclass
class OwnPlay:
    seats: int
    hand: list[int] = field(default_factory=list)  # decisions made for the seat this hand
    over: list[bool] = field(default_factory=list)  # over the limit in a hand of the result
    timeouts: list[int] = field(default_factory=list)  # the seat's current run of timeouts
    open_hands: int = 0  # hands ended since the last result closed

    def __post_init__(self) -> None:
        self.hand = [0] * self.seats
        self.over = [False] * self.seats
        self.timeouts = [0] * self.seats

    def decided(self, seat: int, source: str, *, quiet: bool = False) -> None:
        """One decision of ``seat`` from ``source``. ``quiet``: a timeout the table answers
        without a public sign (a declaring ask while drawing): it is tallied for the ladder
        but leaves the run of timeouts alone, as a public 托管 switch would tell."""
        if not 0 <= seat < self.seats:
            return  # the server's own actions (deals)
        if source in AUTOMATIC:
            self.hand[seat] += 1
        if source == "player":
            self.timeouts[seat] = 0
        elif source == "timeout" and not quiet:
            self.timeouts[seat] += 1

    def hand_ended(self) -> None:
        for s in range(self.seats):
            self.over[s] = self.over[s] or self.hand[s] > AUTO_LIMIT
            self.hand[s] = 0
        self.open_hands += 1

    def counted(self) -> tuple[bool, ...]:
        """Which seats made their own decisions in every hand ended since the last result."""
        return tuple(not o for o in self.over)

    def result_closed(self) -> tuple[bool, ...]:
        """:meth:`counted` for the result just closed (call after :meth:`hand_ended`); the
        next result starts afresh."""
        counted = self.counted()
        self.over = [False] * self.seats
        self.open_hands = 0
        return counted

    def reset_timeouts(self, seat: int) -> None:
        """The player took the seat back (came back, or turned 托管 off)."""
        self.timeouts[seat] = 0
