"""步步为营 tables: one actor per table (QuoridorGame + bots + persistence) and their hall.

They live beside the card tables (:mod:`gunzi.server.tables`), share their seats, sockets,
presence and hall logic (:mod:`gunzi.server.presence`, :mod:`gunzi.server.halls`) and use
the same database tables (``game_tables`` with preset ``quoridor-2``/``quoridor-4`` and
the rules as JSON, ``seats``, ``actions``, ``events``). As at the card tables, each table
has one ``asyncio.Lock`` and an accepted action takes the card tables' one path
(:meth:`gunzi.server.presence.SeatedTable._act`: duplicate ids, stale views, refusal
codes) and goes validate → apply → **commit** (the action and its events in one
transaction) → frames → ack; a failed commit rebuilds the game from the database and
resyncs every socket, as at a card table. A restarted server rebuilds every live table
by replaying its stored actions.

Quoridor has no hidden information, so every seat and every spectator gets the same
events, numbered by one sequence (event ``k`` of the game has ``seq`` k), and the same
view. A seated player whose sockets are all gone for ``away_after`` seconds is played by
the bot (托管) until a socket comes back, as at the card tables.

Ladder: the action that ends a game carries its :class:`LadderResult` (game key
``"quoridor"``, hand 1, points by :func:`quoridor_points`) into the same transaction.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

import structlog
from sqlalchemy import ColumnElement

from gunzi.engine.errors import GunziError, MalformedActionError
from gunzi.ladder.own_play import OwnPlay
from gunzi.ladder.points import QUORIDOR, quoridor_points
from gunzi.ladder.result import LadderResult, solo
from gunzi.quoridor import records
from gunzi.quoridor.bots import BOTS, Bot, make_bot
from gunzi.quoridor.game import Action, QuoridorGame
from gunzi.quoridor.rules import PRESETS, QuoridorRules, from_options, preset
from gunzi.server import db
from gunzi.server.auth import Principal
from gunzi.server.halls import BaseHall, Loaded, check_replay, mark_started
from gunzi.server.presence import (
    CommitError,
    Conn,
    SeatedTable,
    SeatState,
    TableError,
    where,
)
from gunzi.server.protocol import dumps

if TYPE_CHECKING:
    from gunzi.server.metrics import Metrics
    from gunzi.server.settings import Settings

log = structlog.get_logger("gunzi.board")

BOARD_BOTS = tuple(BOTS)  # random, rule, search
ACTION_TYPES = ("move", "wall", "pass")
ACTION_KEYS = frozenset({"type", "to", "wall", "seat"})


def is_board_preset(name: str) -> bool:
    return name in PRESETS


def action_from(payload: dict[str, Any], seat: int) -> Action:
    """A client's ``{type: move, to: "e2"}`` / ``{type: wall, wall: "e3h"}`` / ``{type:
    pass}`` as an engine action (the same reader as records); raises GunziError."""
    action = records.action_of({**payload, "seat": seat})
    if action is None:
        raise MalformedActionError("'end' is the engine's event, not a decision")
    return action


class BoardTable(SeatedTable):
    """A 步步为营 table: the game, its bots and the frames everybody shares."""

    bots_allowed = BOARD_BOTS
    ladder_game = QUORIDOR
    hall: BoardHall

    def __init__(self, hall: BoardHall, row: db.TableRow, seats: list[SeatState]) -> None:
        super().__init__(hall, row, seats)
        self.rules: QuoridorRules = from_options(dict(row.rules))
        self.game = QuoridorGame(self.rules)
        self.bots: dict[int, Bot] = {}

    # ------------------------------------------------------------------ info
    @property
    def players(self) -> int:
        return self.rules.players

    def info(self) -> dict[str, Any]:
        base = (self.settings.public_url or self.hall.base_url or "").rstrip("/")
        return {
            "id": self.id, "game": "quoridor", "name": self.name, "public": self.public,
            "code": self.code, "link": f"{base}/board.html?t={self.id}",
            "preset": self.preset, "rules": {"name": self.rules.name, **self.rules.options()},
            "quick": self.quick, "status": self.status, "turn": self.game.turns,
            "seats": [s.public(i) for i, s in enumerate(self.seats)],
            "spectators": self._spectators(), "owner": self._owner_name(), "host": self.host,
            "created_at": self.created_at,
        }

    def view(self) -> dict[str, Any]:
        """The one view everybody gets (no hidden information); ``legal`` for the mover."""
        seat = self.game.to_act
        return self.game.view(seat if seat is not None else 0)

    def _frame_events(self, start: int) -> dict[str, Any]:
        evs = [{**e.to_dict(), "seq": i + 1}
               for i, e in enumerate(self.game.events[start:], start=start)]
        return {"t": "events", "seq": len(self.game.events), "events": evs,
                "to_move": self.game.to_act, "view": self.view()}

    def _welcome(self, conn: Conn) -> dict[str, Any]:
        return {"t": "welcome", "table": self.info(), "seat": conn.seat, "you": conn.name,
                "game": "quoridor"}

    def _sync(self, conn: Conn, last_seq: int | None) -> None:
        total = len(self.game.events)
        if last_seq is None or last_seq > total:
            conn.send(dumps({"t": "snapshot", "seq": total, "view": self.view(),
                             "events": [e.to_dict() for e in self.game.events],
                             "to_move": self.game.to_act, "status": self.status}))
        else:
            conn.send(dumps({**self._frame_events(last_seq), "resync": True}))

    # ------------------------------------------------------------- start
    async def start(self, who: Principal | None) -> None:
        async with self.lock:
            self._check_start(who)
            head = records.header(self.game, self._seat_names())
            await self.hall.store.run(mark_started, self.id, head)
            self._mark_started()
            self._publish_table()
            self._send_all(self._frame_events(0))
            self._schedule()

    def _seat_names(self) -> list[str]:
        return [s.name or "?" if s.user_id is not None else f"bot:{s.bot}" if s.bot else "empty"
                for s in self.seats]

    # ------------------------------------------------------------- acting
    # (the acting path is SeatedTable._act; these are its board parts)
    action_types = frozenset(ACTION_TYPES)
    action_keys = ACTION_KEYS
    action_shape = "an action is {type: move, to: 'e2'}, {type: wall, wall: 'e3h'} or {type: pass}"

    def _seq_of(self, seat: int | None) -> int:
        return len(self.game.events)  # one numbering for everybody: nothing is hidden

    def _seq_at(self, seat: int | None, v_end: int) -> int:
        return v_end

    def _action_from(self, payload: dict[str, Any], seat: int) -> Action:
        return action_from(payload, seat)

    async def _apply(self, action: Action, source: str, user_id: int | None = None,
                     cid: str | None = None) -> None:
        """Validate and apply, commit, then broadcast. Raises GunziError (nothing changed)
        or CommitError (the game was rebuilt from the database)."""
        start = len(self.game.events)
        self.game.apply(action)  # raises on an illegal action, changing nothing
        self.own.decided(action.seat, source)
        try:
            ladder = await self._commit(action, source, user_id, cid, start)
        except Exception as exc:
            raise await self._commit_failed(exc) from exc
        self.n_actions += 1
        if cid is not None:
            self.cid_index[(user_id, cid)] = len(self.game.events)
        self._send_all(self._frame_events(start))
        if self.game.is_over:
            self.status = "finished"
            self._publish_table()
            if ladder is not None and ladder.rated:
                await self._refresh_titles(fresh=True)
        self._schedule()

    async def _commit(self, action: Action, source: str, user_id: int | None,
                      cid: str | None, start: int) -> LadderResult | None:
        """Store the action, its events and the table's counters in one transaction, with
        the ladder result when the action ended the game; returns that result."""
        g = self.game
        t = db.now()
        n = self.n_actions + 1
        new = g.events[start:]
        data = new[0].to_dict()
        action_row = {"table_id": self.id, "n": n, "seat": action.seat, "source": source,
                      "user_id": user_id, "cid": cid, "data": data, "v_end": len(g.events),
                      "created_at": t}
        event_rows = [{"table_id": self.id, "v": start + k + 1, "n": n, "hand": 1,
                       "type": e.to_dict()["type"], "data": e.to_dict(), "audience": "all",
                       "private": False} for k, e in enumerate(new)]
        values: dict[str, Any] = {"n_actions": n, "n_events": len(g.events), "updated_at": t}
        ladder = None
        if g.is_over:
            values["status"] = "finished"
            ladder = self._ladder_result()
        await self.hall.store.commit(self.id, action_row, event_rows, values, ladder)
        return ladder

    def _ladder_result(self) -> LadderResult:
        """The finished game for the ladder: one result per table (hand 1), free-for-all;
        a person counts if they made their own moves (bots count under their names)."""
        keys = tuple(s.ladder_key or "?" for s in self.seats)
        self.own.hand_ended()
        rated, counted = self._counted(self.own.result_closed())
        return LadderResult(QUORIDOR, self.id, 1, keys,
                            quoridor_points(self.players, self.game.winner), rated,
                            solo(self.players), counted)

    # ------------------------------------------------------------- bots
    def _schedule(self) -> None:
        self._cancel_timer()
        seat = self.game.to_act
        if self.status != "playing" or self.broken or seat is None:
            return
        s = self.seats[seat]
        if s.bot is None and not s.auto:
            return
        delay = max(self.hall.bot_delay, self.retry_at - time.monotonic())
        key = len(self.game.events)
        loop = asyncio.get_running_loop()
        self.timer = loop.call_later(delay, lambda: self.hall.spawn(self._bot_turn(key)))

    def _bot(self, seat: int) -> Bot:
        if seat not in self.bots:
            name = self.seats[seat].bot or self.hall.auto_bot
            self.bots[seat] = make_bot(name)
        return self.bots[seat]

    async def _bot_turn(self, key: int) -> None:
        async with self.lock:
            seat = self.game.to_act
            if self.status != "playing" or self.broken or seat is None \
                    or len(self.game.events) != key:
                return
            game = self.game.clone()
            try:
                action = await asyncio.to_thread(self._bot(seat).choose, game, seat, self.rng)
                await self._apply(action, "bot" if self.seats[seat].bot else "auto")
            except CommitError:
                pass  # rebuilt from the database, which scheduled the next step
            except Exception as exc:
                log.error("board_bot_failed", table=self.id, seat=seat, **where(exc))
                self.retry_at = time.monotonic() + 1.0
                self._schedule()

    # ------------------------------------------------------------- records
    def record(self) -> str:
        if self.status == "open":
            raise TableError(404, "no_record", "the table has not started")
        return records.dumps(self.game, self._seat_names(), {"table": self.id})

    def _replay(self, rows: list[db.ActionRow]) -> None:
        """Start the game again and replay its stored actions (after a refused commit)."""
        self.game = QuoridorGame(self.rules)
        self.own = OwnPlay(len(self.seats))
        self.cid_index = {}
        self.replay(rows)

    def replay(self, actions: list[db.ActionRow]) -> None:
        """Replay the stored actions onto the game (each row holds its event)."""
        for row in actions:
            action = records.action_of(dict(row.data))
            if action is None:
                raise GunziError(f"stored action {row.n} is not a decision")
            self.game.apply(action)
            self.own.decided(row.seat, row.source)
            if row.cid is not None:
                self.cid_index[(row.user_id, row.cid)] = len(self.game.events)
        self.n_actions = len(actions)


# ---------------------------------------------------------------------------- hall


class BoardHall(BaseHall[BoardTable]):
    """Every live 步步为营 table of this server process."""

    def __init__(self, settings: Settings, store: db.Store, metrics: Metrics) -> None:
        super().__init__(settings, store, metrics)
        self.bot_delay = min(settings.bot_delay, 0.4)
        self.auto_bot = "rule"  # plays an away player's seat (托管)

    def _which(self) -> ColumnElement[bool]:
        return db.TableRow.preset.in_(tuple(PRESETS))

    @staticmethod
    def _seat_count(rules: dict[str, Any]) -> int:
        return int(rules.get("players", 2))

    def _new_table(self, row: db.TableRow, seats: list[SeatState]) -> BoardTable:
        return BoardTable(self, row, seats)

    def _rebuild(self, table: BoardTable, item: Loaded, check: bool) -> None:
        table.replay(item.actions)
        if check:
            check_replay(table.game.events, item)

    async def startup(self) -> None:
        """Rebuild the live tables by replaying their actions (after the card hall migrated
        the database)."""
        await self._restore()
        log.info("board_hall_started", tables=len(self.tables))

    async def shutdown(self) -> None:
        await self._stop()

    async def create(self, who: Principal, preset_name: str, options: dict[str, Any], *,
                     public: bool, name: str | None = None, quick: bool = False) -> BoardTable:
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
                                seats=rules.players)

    async def quickplay(self, who: Principal, preset_name: str, bot: str,
                        options: dict[str, Any] | None = None) -> BoardTable:
        """A new private table with the player at seat 0 and bots elsewhere, started at once
        (see :meth:`BaseHall._quick`)."""
        return await self._quick(who, bot, BOARD_BOTS, lambda: self.create(
            who, preset_name, options or {}, public=False, quick=True))


__all__ = ["BOARD_BOTS", "BoardHall", "BoardTable", "action_from", "is_board_preset"]
