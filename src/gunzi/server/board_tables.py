"""The 步步为营 hall: its tables are the one table class (:class:`gunzi.server.tables.Table`)
playing a :class:`gunzi.server.table_games.BoardGame`.

They live beside the card tables and use the same database tables (``game_tables`` with
preset ``quoridor-2``/``quoridor-4`` and the rules as JSON, ``seats``, ``actions``,
``events``), the same acting path, clock, 托管 and recovery after a failed save. Quoridor
has no hidden information, so every seat and every spectator gets the same events,
numbered by one sequence (event ``k`` of the game has ``seq`` k), and the same view.

Ladder: the action that ends a game carries its :class:`LadderResult` (game key
``"quoridor"``, hand 1, points by :func:`quoridor_points`) into the same transaction.
"""

from __future__ import annotations

from typing import Any

import structlog
from sqlalchemy import ColumnElement

from gunzi.engine.errors import GunziError
from gunzi.quoridor.rules import PRESETS, preset
from gunzi.server import db
from gunzi.server.auth import Principal
from gunzi.server.presence import TableError
from gunzi.server.table_games import BOARD_BOTS
from gunzi.server.tables import Table, TableHall

log = structlog.get_logger("gunzi.board")


class BoardHall(TableHall):
    """Every live 步步为营 table of this server process."""

    lobby_kind = "board"

    def _which(self) -> ColumnElement[bool]:
        return db.TableRow.preset.in_(tuple(PRESETS))

    @staticmethod
    def _seat_count(rules: dict[str, Any]) -> int:
        return int(rules.get("players", 2))

    async def startup(self) -> None:
        """Rebuild the live tables by replaying their actions (after the card hall migrated
        the database)."""
        await self._restore()
        log.info("board_hall_started", tables=len(self.tables))

    async def shutdown(self) -> None:
        await self._stop()

    async def create(self, who: Principal, preset_name: str, options: dict[str, Any], *,
                     public: bool, name: str | None = None, quick: bool = False,
                     clock: int | None = None) -> Table:
        self._check_room(who, quick)
        if preset_name not in PRESETS:
            raise TableError(400, "bad_preset", f"presets: {', '.join(PRESETS)}")
        try:
            rules = preset(preset_name, **options)
        except (GunziError, TypeError) as exc:
            raise TableError(400, "bad_rules", str(exc)[:500]) from None
        return await self._open(who, name=name or "", public=public,
                                quick=quick, preset=preset_name,
                                rules={"name": rules.name, **rules.options()},
                                seats=rules.players,
                                clock=self._clock(0 if clock is None else clock))

    async def quickplay(self, who: Principal, preset_name: str, bot: str,
                        options: dict[str, Any] | None = None,
                        clock: int | None = None) -> Table:
        """A new private table with the player at seat 0 and bots elsewhere, started at once
        (see :meth:`BaseHall._quick`)."""
        return await self._quick(who, bot, BOARD_BOTS, lambda: self.create(
            who, preset_name, options or {}, public=False, quick=True, clock=clock))


__all__ = ["BOARD_BOTS", "BoardHall"]
