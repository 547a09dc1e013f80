"""步步为营 tables: one actor per table (QuoridorGame + bots + persistence) and their hall.

They live beside the card tables (:mod:`gunzi.server.tables`) and use the same database
tables (``game_tables`` with preset ``quoridor-2``/``quoridor-4`` and the rules as JSON,
``seats``, ``actions``, ``events``). As at the card tables, each table has one
``asyncio.Lock`` and an accepted action goes validate → apply → **commit** (the action
and its events in one transaction) → frames → ack; a failed commit puts the game back.
A restarted server rebuilds every live table by replaying its stored actions.

Quoridor has no hidden information, so every seat and every spectator gets the same
events, numbered by one sequence (event ``k`` of the game has ``seq`` k), and the same
view. A seated player whose sockets are all gone for ``away_after`` seconds is played by
the bot (托管) until a socket comes back, as at the card tables.

Ladder hook: a finished game is ``self.game.winner`` in :meth:`BoardTable._commit`; the
ladder (game key ``"quoridor"``) is not wired yet (see docs/quoridor.md).
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import structlog
from sqlalchemy import select, update
from sqlalchemy.orm import Session

from gunzi.engine.errors import GunziError, MalformedActionError
from gunzi.quoridor import records
from gunzi.quoridor.bots import BOTS, Bot, make_bot
from gunzi.quoridor.game import Action, QuoridorGame
from gunzi.quoridor.rules import PRESETS, QuoridorRules, from_options, preset
from gunzi.server import db
from gunzi.server.auth import Principal
from gunzi.server.protocol import dumps
from gunzi.server.tables import CODE_ALPHABET, LIVE, Conn, TableError, clean_text, where

if TYPE_CHECKING:
    from gunzi.server.metrics import Metrics
    from gunzi.server.settings import Settings

log = structlog.get_logger("gunzi.board")

BOARD_BOTS = tuple(BOTS)  # random, rule, search
ACTION_TYPES = ("move", "wall", "pass")
ACTION_KEYS = frozenset({"type", "to", "wall", "seat"})


def is_board_preset(name: str) -> bool:
    return name in PRESETS


@dataclass
class BoardSeat:
    user_id: int | None = None
    name: str | None = None
    bot: str | None = None
    conns: int = 0
    auto: bool = False  # 托管: the bot plays this human seat while it is away
    away_timer: asyncio.TimerHandle | None = None

    def public(self, seat: int) -> dict[str, Any]:
        kind = "bot" if self.bot else "human" if self.user_id is not None else "empty"
        return {"seat": seat, "kind": kind,
                "name": self.name if self.user_id is not None else self.bot,
                "bot": self.bot, "connected": kind == "bot" or self.conns > 0,
                "auto": self.auto}


def action_from(payload: dict[str, Any], seat: int) -> Action:
    """A client's ``{type: move, to: "e2"}`` / ``{type: wall, wall: "e3h"}`` / ``{type:
    pass}`` as an engine action (the same reader as records); raises GunziError."""
    action = records.action_of({**payload, "seat": seat})
    if action is None:
        raise MalformedActionError("'end' is the engine's event, not a decision")
    return action


class BoardTable:
    def __init__(self, hall: BoardHall, row: db.TableRow, seats: list[BoardSeat]) -> None:
        self.hall = hall
        self.settings = hall.settings
        self.id = row.id
        self.code = row.code
        self.name = row.name
        self.public = row.public
        self.preset = row.preset
        self.rules: QuoridorRules = from_options(dict(row.rules))
        self.status = row.status
        self.owner_id = row.owner_id
        self.quick = row.quick
        self.created_at = row.created_at
        self.seats = seats
        self.game = QuoridorGame(self.rules)
        self.lock = asyncio.Lock()
        self.conns: set[Conn] = set()
        self.n_actions = 0
        self.cid_index: dict[tuple[int | None, str], int] = {}
        self.bots: dict[int, Bot] = {}
        self.rng = secrets.SystemRandom()
        self.timer: asyncio.TimerHandle | None = None
        self.retry_at = 0.0

    # ------------------------------------------------------------------ info
    @property
    def players(self) -> int:
        return self.rules.players

    def seat_of(self, user_id: int | None) -> int | None:
        if user_id is None:
            return None
        return next((i for i, s in enumerate(self.seats) if s.user_id == user_id), None)

    def info(self) -> dict[str, Any]:
        base = (self.settings.public_url or "").rstrip("/")
        return {
            "id": self.id, "game": "quoridor", "name": self.name, "public": self.public,
            "code": self.code, "link": f"{base}/board.html?t={self.id}",
            "preset": self.preset, "rules": {"name": self.rules.name, **self.rules.options()},
            "quick": self.quick, "status": self.status, "turn": self.game.turns,
            "seats": [s.public(i) for i, s in enumerate(self.seats)],
            "spectators": sum(1 for c in self.conns if c.seat is None),
            "created_at": self.created_at,
        }

    def view(self) -> dict[str, Any]:
        """The one view everybody gets (no hidden information); ``legal`` for the mover."""
        seat = self.game.to_move
        return self.game.view(seat if seat is not None else 0)

    def _frame_events(self, start: int) -> dict[str, Any]:
        evs = [{**e.to_dict(), "seq": i + 1}
               for i, e in enumerate(self.game.events[start:], start=start)]
        return {"t": "events", "seq": len(self.game.events), "events": evs,
                "to_move": self.game.to_move, "view": self.view()}

    def _send_all(self, frame: dict[str, Any]) -> None:
        text = dumps(frame)
        for c in list(self.conns):
            c.send(text)
        self.hall.metrics.frames.inc(len(self.conns))

    def _publish_table(self) -> None:
        self._send_all({"t": "table", "table": self.info()})

    # ------------------------------------------------------------- seats
    def _check_open(self, who: Principal) -> None:
        if self.status != "open":
            raise TableError(409, "started", "the table has already started")
        if who.user_id != self.owner_id and self.seat_of(who.user_id) is None:
            raise TableError(403, "not_owner", "only the table's owner can seat bots or start")

    def _check_seat(self, seat: int) -> None:
        if not 0 <= seat < self.players:
            raise TableError(400, "bad_seat", f"seats are 0..{self.players - 1}")

    async def take_seat(self, who: Principal, seat: int) -> None:
        async with self.lock:
            self._check_seat(seat)
            if self.status != "open":
                raise TableError(409, "started", "the table has already started")
            s = self.seats[seat]
            if s.user_id == who.user_id:
                return
            if s.user_id is not None or s.bot is not None:
                raise TableError(409, "seat_taken", "that seat is taken")
            if self.seat_of(who.user_id) is not None:
                raise TableError(409, "seated", "you already have a seat here")
            await self.hall.store.run(_set_seat, self.id, seat, who.user_id, None)
            self.seats[seat] = BoardSeat(user_id=who.user_id, name=who.name)
            self._publish_table()

    async def set_bot(self, who: Principal, seat: int, bot: str) -> None:
        async with self.lock:
            self._check_seat(seat)
            self._check_open(who)
            if bot not in BOARD_BOTS:
                raise TableError(400, "bad_bot", f"bots: {', '.join(BOARD_BOTS)}")
            if self.seats[seat].user_id is not None:
                raise TableError(409, "seat_taken", "a player sits there")
            await self.hall.store.run(_set_seat, self.id, seat, None, bot)
            self.seats[seat] = BoardSeat(bot=bot)
            self._publish_table()

    async def start(self, who: Principal) -> None:
        async with self.lock:
            self._check_open(who)
            if any(s.user_id is None and s.bot is None for s in self.seats):
                raise TableError(409, "seats_empty", "fill every seat (players or bots) first")
            head = records.header(self.game, self._seat_names())
            await self.hall.store.run(_start, self.id, head)
            self.status = "playing"
            self._publish_table()
            self._send_all(self._frame_events(0))
            self._schedule()

    def _seat_names(self) -> list[str]:
        return [s.name or "?" if s.user_id is not None else f"bot:{s.bot}" if s.bot else "empty"
                for s in self.seats]

    # ------------------------------------------------------------- acting
    async def act(self, conn: Conn, cid: str, payload: dict[str, Any],
                  client_seq: int | None) -> None:
        """A decision from a socket; the ack (or the refusal) goes to that socket."""
        async with self.lock:
            conn.send(dumps(await self._act(conn, cid, payload, client_seq)))

    async def _act(self, conn: Conn, cid: str, payload: dict[str, Any],
                   client_seq: int | None) -> dict[str, Any]:
        seq = len(self.game.events)

        def refuse(code: str, message: str, rule: str = "") -> dict[str, Any]:
            self.hall.metrics.rejected.labels(code).inc()
            err = {"code": code, "message": message[:300]}
            if rule:
                err["rule"] = rule
            return {"t": "ack", "id": cid, "ok": False, "seq": seq, "error": err}

        done = self.cid_index.get((conn.user_id, cid))
        if done is not None:
            return {"t": "ack", "id": cid, "ok": True, "dup": True, "seq": done}
        seat = conn.seat
        if self.status != "playing":
            return refuse("not_playing", "the table is not playing")
        if seat is None or self.seats[seat].user_id != conn.user_id:
            return refuse("not_seated", "spectators cannot act")
        if client_seq is not None and client_seq != seq:
            return refuse("stale", "your view is out of date: resync and decide again")
        if payload.get("type") not in ACTION_TYPES or not set(payload) <= ACTION_KEYS:
            return refuse("malformed", "an action is {type: move, to: 'e2'}, {type: wall, "
                          "wall: 'e3h'} or {type: pass}")
        if payload.get("seat", seat) != seat:
            return refuse("not_your_seat", "you can only act for your own seat")
        try:
            action = action_from(payload, seat)
        except GunziError as exc:
            return refuse("malformed", str(exc))
        try:
            await self._apply(action, "player", conn.user_id, cid)
        except GunziError as exc:
            code = type(exc).__name__.removesuffix("Error").lower()
            return refuse("out_of_turn" if code == "outofturn" else "illegal", str(exc),
                          getattr(exc, "rule", ""))
        except _CommitFailed:
            return refuse("server_error", "the move could not be saved; try again")
        return {"t": "ack", "id": cid, "ok": True, "seq": len(self.game.events)}

    async def _apply(self, action: Action, source: str, user_id: int | None = None,
                     cid: str | None = None) -> None:
        """Validate and apply, commit, then broadcast (raises GunziError when illegal)."""
        before = self.game.clone()
        start = len(before.events)
        self.game.apply(action)  # raises on an illegal action, changing nothing
        try:
            await self._commit(action, source, user_id, cid, start)
        except Exception as exc:
            self.game = before
            log.error("board_commit_failed", table=self.id, **where(exc))
            self.retry_at = time.monotonic() + 1.0
            raise _CommitFailed from exc
        self.n_actions += 1
        if cid is not None:
            self.cid_index[(user_id, cid)] = len(self.game.events)
        self._send_all(self._frame_events(start))
        if self.game.is_over:
            self.status = "finished"
            self._publish_table()
        self._schedule()

    async def _commit(self, action: Action, source: str, user_id: int | None,
                      cid: str | None, start: int) -> None:
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
        if g.is_over:
            values["status"] = "finished"
            # Ladder hook: the result of a finished game (g.winner, the seats' players) is
            # where a "quoridor" LadderResult would be passed to commit_action.
        await self.hall.store.commit(self.id, action_row, event_rows, values)

    # ------------------------------------------------------------- bots
    def _schedule(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        seat = self.game.to_move
        if self.status != "playing" or seat is None:
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
            seat = self.game.to_move
            if self.status != "playing" or seat is None or len(self.game.events) != key:
                return
            game = self.game.clone()
            try:
                action = await asyncio.to_thread(self._bot(seat).choose, game, seat, self.rng)
                await self._apply(action, "bot" if self.seats[seat].bot else "auto")
            except _CommitFailed:
                self._schedule()
            except Exception as exc:
                log.error("board_bot_failed", table=self.id, seat=seat, **where(exc))
                self.retry_at = time.monotonic() + 1.0
                self._schedule()

    # ------------------------------------------------------------- sockets
    async def attach(self, conn: Conn, last_seq: int | None) -> None:
        """Bind a socket (hello): its seat is the user's seat here unless it only watches."""
        async with self.lock:
            self._detach(conn)
            seat = None if conn.watch else self.seat_of(conn.user_id)
            conn.seat = seat
            self.conns.add(conn)
            back = False
            if seat is not None:
                s = self.seats[seat]
                s.conns += 1
                if s.away_timer is not None:
                    s.away_timer.cancel()
                    s.away_timer = None
                back, s.auto = s.auto, False
            conn.send(dumps({"t": "welcome", "table": self.info(), "seat": seat,
                             "you": conn.name, "game": "quoridor"}))
            self._sync(conn, last_seq)
            self._publish_table()
            if back:
                self._schedule()

    def _sync(self, conn: Conn, last_seq: int | None) -> None:
        total = len(self.game.events)
        if last_seq is None or last_seq > total:
            conn.send(dumps({"t": "snapshot", "seq": total, "view": self.view(),
                             "events": [e.to_dict() for e in self.game.events],
                             "to_move": self.game.to_move, "status": self.status}))
        else:
            conn.send(dumps({**self._frame_events(last_seq), "resync": True}))

    async def resync(self, conn: Conn, last_seq: int | None) -> None:
        async with self.lock:
            if conn in self.conns:
                self._sync(conn, last_seq)

    async def detach(self, conn: Conn) -> None:
        async with self.lock:
            if self._detach(conn):
                self._publish_table()

    def _detach(self, conn: Conn) -> bool:
        if conn not in self.conns:
            return False
        self.conns.discard(conn)
        seat = conn.seat
        if seat is not None:
            s = self.seats[seat]
            s.conns = max(0, s.conns - 1)
            if s.conns == 0 and s.user_id is not None:
                self._away(seat)
        return True

    def _away(self, seat: int) -> None:
        s = self.seats[seat]
        if s.away_timer is not None:
            s.away_timer.cancel()
        loop = asyncio.get_running_loop()
        s.away_timer = loop.call_later(self.settings.away_after,
                                       lambda: self.hall.spawn(self._gone(seat)))

    async def _gone(self, seat: int) -> None:
        async with self.lock:
            s = self.seats[seat]
            s.away_timer = None
            if s.conns or s.auto or s.user_id is None or self.status != "playing":
                return
            s.auto = True
            self._publish_table()
            self._schedule()

    def close_all(self, code: int, reason: str) -> None:
        for c in list(self.conns):
            c.close(code, reason)

    # ------------------------------------------------------------- records
    def record(self) -> str:
        if self.status == "open":
            raise TableError(404, "no_record", "the table has not started")
        return records.dumps(self.game, self._seat_names(), {"table": self.id})

    def replay(self, actions: list[db.ActionRow]) -> None:
        """Rebuild the game from its stored actions (each row holds its event)."""
        for row in actions:
            action = records.action_of(dict(row.data))
            if action is None:
                raise GunziError(f"stored action {row.n} is not a decision")
            self.game.apply(action)
            if row.cid is not None:
                self.cid_index[(row.user_id, row.cid)] = len(self.game.events)
        self.n_actions = len(actions)


class _CommitFailed(Exception):
    """The database refused a commit; the game was put back as it was."""


# ------------------------------------------------------------------- db helpers


def _set_seat(session: Session, table_id: str, seat: int, user_id: int | None,
              bot: str | None) -> None:
    session.execute(update(db.SeatRow)
                    .where(db.SeatRow.table_id == table_id, db.SeatRow.seat == seat)
                    .values(user_id=user_id, bot=bot))


def _start(session: Session, table_id: str, header: dict[str, Any]) -> None:
    session.execute(update(db.TableRow).where(db.TableRow.id == table_id)
                    .values(status="playing", header=header, updated_at=db.now()))


def _set_status(session: Session, table_id: str, status: str) -> None:
    session.execute(update(db.TableRow).where(db.TableRow.id == table_id)
                    .values(status=status, updated_at=db.now()))


def _create(session: Session, row: db.TableRow, players: int) -> None:
    session.add(row)
    session.flush()
    for i in range(players):
        session.add(db.SeatRow(table_id=row.id, seat=i, user_id=None, bot=None))


@dataclass
class _Loaded:
    row: db.TableRow
    seats: list[BoardSeat]
    actions: list[db.ActionRow]


def _load(session: Session, statuses: tuple[str, ...] | None,
          table_id: str | None) -> list[_Loaded]:
    q = select(db.TableRow).where(db.TableRow.preset.in_(tuple(PRESETS)))
    if statuses is not None:
        q = q.where(db.TableRow.status.in_(statuses))
    if table_id is not None:
        q = q.where(db.TableRow.id == table_id)
    out = []
    for row in session.scalars(q.order_by(db.TableRow.created_at)):
        players = int(dict(row.rules).get("players", 2))
        seats = [BoardSeat() for _ in range(players)]
        for seat, user_id, bot, name in session.execute(
            select(db.SeatRow.seat, db.SeatRow.user_id, db.SeatRow.bot, db.User.name)
            .outerjoin(db.User, db.User.id == db.SeatRow.user_id)
            .where(db.SeatRow.table_id == row.id)
        ):
            if seat < players:
                seats[seat] = BoardSeat(user_id=user_id, name=name, bot=bot)
        actions = db.load_actions(session, row.id) if row.header is not None else []
        out.append(_Loaded(row, seats, actions))
    return out


# ---------------------------------------------------------------------------- hall


class BoardHall:
    """Every live 步步为营 table of this server process."""

    def __init__(self, settings: Settings, store: db.Store, metrics: Metrics) -> None:
        self.settings = settings
        self.store = store
        self.metrics = metrics
        self.tables: dict[str, BoardTable] = {}
        self.tasks: set[asyncio.Task[Any]] = set()
        self.bot_delay = min(settings.bot_delay, 0.4)
        self.auto_bot = "rule"  # plays an away player's seat (托管)

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def startup(self) -> None:
        """Rebuild the live tables by replaying their actions (after the card hall migrated
        the database)."""
        for item in await self.store.run(_load, LIVE, None):
            table = BoardTable(self, item.row, item.seats)
            try:
                table.replay(item.actions)
                if len(table.game.events) != item.row.n_events:
                    raise GunziError(f"{len(table.game.events)} events replayed, "
                                     f"{item.row.n_events} stored")
            except Exception as exc:
                log.error("board_restore_failed", table=item.row.id, error=str(exc)[:200])
                continue
            self.tables[table.id] = table
            if table.status == "playing":
                for i, s in enumerate(table.seats):
                    if s.user_id is not None:
                        table._away(i)
                table._schedule()
        log.info("board_hall_started", tables=len(self.tables))

    async def shutdown(self) -> None:
        for table in list(self.tables.values()):
            table.close_all(1012, "server restarting")
            if table.timer is not None:
                table.timer.cancel()
        for task in list(self.tasks):
            task.cancel()
        await asyncio.sleep(0)

    def get(self, table_id: str) -> BoardTable | None:
        return self.tables.get(table_id)

    async def cold(self, table_id: str) -> BoardTable | None:
        """A table that is no longer live, rebuilt read-only from the database."""
        if len(table_id) > 24:
            return None
        loaded = await self.store.run(_load, None, table_id)
        if not loaded:
            return None
        table = BoardTable(self, loaded[0].row, loaded[0].seats)
        table.replay(loaded[0].actions)
        return table

    def public_tables(self) -> list[dict[str, Any]]:
        return [t.info() for t in self.tables.values() if t.public and t.status in LIVE]

    async def create(self, who: Principal, preset_name: str, options: dict[str, Any], *,
                     public: bool, name: str | None = None, quick: bool = False) -> BoardTable:
        if len(self.tables) >= self.settings.max_tables:
            raise TableError(503, "hall_full", "the hall is full; try again later")
        owned = sum(1 for t in self.tables.values()
                    if t.owner_id == who.user_id and t.status in LIVE and t.quick == quick)
        if owned >= self.settings.max_tables_per_user:
            raise TableError(429, "too_many_tables",
                             f"at most {self.settings.max_tables_per_user} open tables each")
        if preset_name not in PRESETS:
            raise TableError(400, "bad_preset", f"presets: {', '.join(PRESETS)}")
        try:
            rules = preset(preset_name, **options)
        except (GunziError, TypeError) as exc:
            raise TableError(400, "bad_rules", str(exc)[:500]) from None
        t = db.now()
        code = None if public else "".join(secrets.choice(CODE_ALPHABET) for _ in range(8))
        row = db.TableRow(
            id=secrets.token_urlsafe(9), code=code,
            name=clean_text(name or f"{who.name} · 步步为营", 64), public=public,
            preset=preset_name, rules={"name": rules.name, **rules.options()}, clock=0,
            max_hands=0, status="open", owner_id=who.user_id, header=None, created_at=t,
            updated_at=t, n_actions=0, n_events=0, counter=False, quick=quick,
        )
        await self.store.run(_create, row, rules.players)
        table = BoardTable(self, row, [BoardSeat() for _ in range(rules.players)])
        self.tables[table.id] = table
        log.info("board_table_created", table=table.id, rules=rules.name)
        return table

    async def quickplay(self, who: Principal, preset_name: str, bot: str,
                        options: dict[str, Any] | None = None) -> BoardTable:
        """A new table with the player at seat 0 and bots elsewhere, started at once; the
        player's earlier quick tables that nobody watches are abandoned first."""
        if bot not in BOARD_BOTS:
            raise TableError(400, "bad_bot", f"bots: {', '.join(BOARD_BOTS)}")
        for old in [t for t in self.tables.values()
                    if t.quick and t.owner_id == who.user_id and t.status in LIVE
                    and not t.conns]:
            await self.store.run(_set_status, old.id, "abandoned")
            old.status = "abandoned"
            self.tables.pop(old.id, None)
        table = await self.create(who, preset_name, options or {}, public=False, quick=True)
        await table.take_seat(who, 0)
        for seat in range(1, table.players):
            await table.set_bot(who, seat, bot)
        await table.start(who)
        return table


__all__ = ["BOARD_BOTS", "BoardHall", "BoardSeat", "BoardTable", "action_from",
           "is_board_preset"]
