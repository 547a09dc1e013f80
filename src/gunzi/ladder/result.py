"""One ladder result: what a finished hand (打滚子), game (classic) or board game (步步为营)
writes to the ladder.

Built by a table when a hand ends and stored in the same transaction as the
action that ended it (see docs/ladder.md); ``(table_id, hand_no)`` identifies it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

BOT_NAME = re.compile(r"[a-z][a-z0-9_-]{0,31}")
PARTNERS = ((0, 2), (1, 3))  # the card games' two teams, by seat


def solo(players: int) -> tuple[tuple[int, ...], ...]:
    """Free-for-all: every seat is its own team."""
    return tuple((s,) for s in range(players))


def user_key(user_id: int) -> str:
    return f"u:{user_id}"


def bot_key(name: str) -> str:
    """Every bot of one name is one ladder identity."""
    return f"bot:{name}"


def key_of_ref(ref: str) -> str | None:
    """A player's key from a URL reference: a user id (``12``) or a bot name (``rule``,
    ``bot:rule``); None if it is neither."""
    ref = ref.strip()
    if ref.isdecimal() and len(ref) <= 18:
        return user_key(int(ref))
    name = ref.removeprefix("bot:")
    return bot_key(name) if BOT_NAME.fullmatch(name) else None


def ref_of_key(key: str) -> str:
    """The URL reference of a key: the user id or the bot name."""
    return key.removeprefix("u:").removeprefix("bot:")


@dataclass(frozen=True)
class LadderResult:
    game: str  # ladder key: "gunzi", "classic", "quoridor"
    table_id: str
    hand_no: int  # the hand that closed the result (a board game: 1)
    players: tuple[str, ...]  # per seat: user_key or bot_key
    scores: tuple[int, ...]  # ladder points per seat
    rated: bool  # counts for totals and ratings (a person counted: see ``counted``)
    teams: tuple[tuple[int, ...], ...] = PARTNERS  # seats per team, for the rating
    # per seat: does it count for its player (a person who made their own decisions, or a
    # bot)? None: every seat (results stored before the rule, migration 0004)
    counted: tuple[bool, ...] | None = None

    def counts(self, seat: int) -> bool:
        return self.counted is None or self.counted[seat]

    def team_points(self) -> tuple[int, ...]:
        """Points per team (cards: team 0 = seats 0 and 2, team 1 = seats 1 and 3)."""
        return tuple(sum(self.scores[s] for s in team) for team in self.teams)
