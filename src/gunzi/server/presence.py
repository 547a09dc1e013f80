"""What every kind of table shares, whatever game it plays: seats (people, bots, 托管),
sockets and presence (a seat away for ``away_after`` seconds is played by the bot; a table
nobody is connected to is abandoned, a finished one retired), seating before the start,
and the ladder titles shown beside the names.

:class:`SeatedTable` is the base of the one table class :class:`gunzi.server.tables.Table`
(every game), which supplies the game: its ``info``, ``_welcome`` and ``_sync`` frames,
and ``_schedule`` for the table's next automatic step. Everything here runs under the
table's lock, as the table's game code does.

A player's action takes one path at every table (:meth:`SeatedTable._act`): duplicate
ids, the table's state, the seat, a stale view, the action's shape, then the game's
``_apply`` (validate, apply, commit, frames); a refused commit raises :class:`CommitError`
after :meth:`SeatedTable._reload` has rebuilt the game from the database and resynced
every socket, so nothing unsaved is ever acknowledged or kept. The table supplies, from
its game, how a payload reads as an action, the sequence number a recipient is at, and
the details of an illegal action's refusal.
"""

from __future__ import annotations

import asyncio
import secrets
import time
import traceback
import unicodedata
from collections.abc import Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import structlog
from sqlalchemy import update
from sqlalchemy.orm import Session

from gunzi.engine.errors import GunziError, IllegalActionError, OutOfTurnError
from gunzi.ladder.own_play import OwnPlay
from gunzi.ladder.result import LadderResult, bot_key, user_key
from gunzi.ladder.titles import title_for
from gunzi.server import db, ladder_db
from gunzi.server.auth import Principal
from gunzi.server.protocol import dumps

if TYPE_CHECKING:
    from gunzi.server.bot_batch import BotBatch
    from gunzi.server.metrics import Metrics
    from gunzi.server.settings import Settings

log = structlog.get_logger("gunzi.tables")

LIVE = ("open", "playing")
RETIRE_AFTER = 300.0  # a finished table with nobody connected leaves memory after this


class CommitError(Exception):
    """The database refused a commit; the table was rebuilt from what it holds (or, if it
    is no longer this process's table, dropped: :class:`NotOwner`)."""


class NotOwner(Exception):
    """This process may no longer write to the table (several processes: its claim ran out
    before a renewal, docs/deploy.md)."""


def where(exc: BaseException) -> dict[str, str]:
    """An exception for the log without its message (a message may name cards)."""
    tb = traceback.extract_tb(exc.__traceback__)[-3:]
    return {"error": type(exc).__name__,
            "at": " < ".join(f"{Path(f.filename).name}:{f.lineno}" for f in reversed(tb))}


def clean_text(text: str, limit: int) -> str:
    """Chat text: no control or format characters, trimmed, at most ``limit`` characters."""
    kept = "".join(
        " " if ch in "\t\n\r" else ch
        for ch in text
        if ch in "\t\n\r" or unicodedata.category(ch) not in ("Cc", "Cf", "Cs", "Co", "Cn")
    )
    return " ".join(kept.split())[:limit]


class Conn(Protocol):
    """A client socket as a table sees it (implemented by :class:`gunzi.server.ws.Client`)."""

    seat: int | None
    user_id: int | None
    session_id: int | None
    name: str | None
    watch: bool
    views: bool

    def send(self, text: str) -> None: ...

    def close(self, code: int, reason: str) -> None: ...


class HallLike(Protocol):
    """What a table uses of its hall (:class:`gunzi.server.halls.BaseHall`; named here so
    the hall module can build on this one without a cycle)."""

    settings: Settings
    store: db.Store
    metrics: Metrics
    base_url: str | None
    bot_batch: BotBatch

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> None: ...

    async def ladder_totals(self, game: str, keys: list[str],
                            fresh: bool) -> dict[str, int]: ...

    def retire(self, table: SeatedTable) -> None: ...

    def count_tables(self) -> None: ...

    def owns(self, table: SeatedTable) -> bool: ...

    def lost(self, table_id: str, why: str) -> None: ...


class TableError(Exception):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


@dataclass
class SeatState:
    user_id: int | None = None
    name: str | None = None
    bot: str | None = None
    conns: int = 0
    away_since: float | None = None
    auto: bool = False  # 托管: the bot plays this human seat
    auto_reason: str | None = None
    away_timer: asyncio.TimerHandle | None = field(default=None, repr=False)
    total: int | None = None  # ladder total in the table's game, and its title
    title: str | None = None

    @property
    def empty(self) -> bool:
        return self.user_id is None and self.bot is None

    @property
    def ladder_key(self) -> str | None:
        if self.user_id is not None:
            return user_key(self.user_id)
        return None if self.bot is None else bot_key(self.bot)

    def public(self, seat: int) -> dict[str, Any]:
        kind = "bot" if self.bot else "human" if self.user_id is not None else "empty"
        return {
            "seat": seat,
            "kind": kind,
            "name": self.name if self.user_id is not None else self.bot,
            "bot": self.bot,
            "connected": kind == "bot" or self.conns > 0,
            "auto": self.auto,
            "title": self.title,
            "total": self.total,
        }


class SeatedTable:
    """One table actor without its game: seats, sockets, presence, idleness, titles."""

    bots_allowed: tuple[str, ...] = ()
    ladder_game: str  # the ladder the table's results and titles belong to

    def __init__(self, hall: HallLike, row: db.TableRow, seats: list[SeatState]) -> None:
        self.hall = hall
        self.settings: Settings = hall.settings
        self.id = row.id
        self.code = row.code
        self.name = row.name
        self.public = row.public
        self.preset = row.preset
        self.quick = row.quick
        self.status = row.status
        self.owner_id = row.owner_id
        # The creator's name: pages show "某某的牌桌" / "X's table" in their own language
        # for a table created without a name (its stored name is then empty).
        self.host: str | None = None
        self.created_at = row.created_at
        self.seats = seats
        self.lock = asyncio.Lock()
        self.conns: set[Conn] = set()
        self.n_actions = 0
        self.cid_index: dict[tuple[int | None, str], int] = {}
        self.rng = secrets.SystemRandom()
        self.timer: asyncio.TimerHandle | None = None
        self.idle_timer: asyncio.TimerHandle | None = None
        self.idle_since: float | None = None  # monotonic: when the last socket left
        self.retry_at = 0.0  # automatic steps wait until then after a failure
        self.own = OwnPlay(len(seats))  # who made their own decisions (ladder, clock)
        self.broken: str | None = None  # why the table cannot go on (a failed reload)
        # The fencing token every write checks (several processes); None: the only process.
        self.fence: int | None = None

    # ------------------------------------------------------- the game's part
    def info(self) -> dict[str, Any]:
        raise NotImplementedError

    def _welcome(self, conn: Conn) -> dict[str, Any]:
        raise NotImplementedError

    def _sync(self, conn: Conn, last_seq: int | None) -> None:
        raise NotImplementedError

    def _attached(self, conn: Conn) -> None:
        """After a socket got its welcome and sync (a hook)."""

    def _schedule(self) -> None:
        raise NotImplementedError

    def _reschedule(self) -> None:
        """:meth:`_schedule` after a change that is not an action (托管 on or off, a player
        back, a reload): the table may send a turn that changed with it (a hook)."""
        self._schedule()

    async def start(self, who: Principal | None) -> None:
        """Start the game once every seat is filled (``who`` None: the server)."""
        raise NotImplementedError

    def record(self) -> str:
        """The table's record (JSON Lines); TableError 404 before it has one."""
        raise NotImplementedError

    # The shape of a player's action (docs/protocol.md): its types, keys, and the text a
    # malformed one is refused with.
    action_types: frozenset[str] = frozenset()
    action_keys: frozenset[str] = frozenset()
    action_shape: str = ""

    def _has_game(self) -> bool:
        """Whether the game exists (a card table has none before its start)."""
        return True

    def _seq_of(self, seat: int | None) -> int:
        """The last event number ``seat`` (None: a spectator) has been sent."""
        raise NotImplementedError

    def _seq_at(self, seat: int | None, v_end: int) -> int:
        """The event number ``seat`` was at when the game had ``v_end`` events."""
        raise NotImplementedError

    def _action_from(self, payload: dict[str, Any], seat: int) -> Any:
        """The engine's action for a checked payload; GunziError if it cannot be one."""
        raise NotImplementedError

    def _illegal_detail(self, seat: int, exc: IllegalActionError) -> dict[str, Any]:
        """More fields for an illegal action's refusal (a hint of what is legal)."""
        return {}

    async def _apply(self, action: Any, source: str, user_id: int | None = None,
                     cid: str | None = None) -> object:
        """Validate, apply, commit, broadcast. Raises GunziError (nothing changed) or
        CommitError (the game was rebuilt from the database by :meth:`_commit_failed`)."""
        raise NotImplementedError

    def _replay(self, rows: list[db.ActionRow]) -> None:
        """Rebuild the game from scratch out of its stored actions."""
        raise NotImplementedError

    # ------------------------------------------------------------------ acting
    async def act(self, conn: Conn, cid: str, payload: dict[str, Any],
                  client_seq: int | None) -> None:
        """A decision from a socket; the ack (or the refusal) is queued on that socket."""
        async with self.lock:
            conn.send(dumps(await self._act(conn, cid, payload, client_seq)))

    async def _act(self, conn: Conn, cid: str, payload: dict[str, Any],
                   client_seq: int | None) -> dict[str, Any]:
        """The one path of a player's action, whatever the game (refusal codes:
        docs/protocol.md)."""
        seat = conn.seat

        def refuse(code: str, message: str, rule: str = "",
                   **more: Any) -> dict[str, Any]:
            self.hall.metrics.rejected.labels(code).inc()
            log.info("action_refused", table=self.id, seat=seat, reason=code, rule=rule)
            err: dict[str, Any] = {"code": code, "message": message, **more}
            if rule:
                err["rule"] = rule
            return {"t": "ack", "id": cid, "ok": False, "seq": self._seq_of(seat),
                    "error": err}

        done = self.cid_index.get((conn.user_id, cid))
        if done is not None:
            self.hall.metrics.duplicates.inc()
            return {"t": "ack", "id": cid, "ok": True, "dup": True,
                    "seq": self._seq_at(seat, done)}
        if not self._has_game() or self.status != "playing" or self.broken:
            return refuse("not_playing", "the table is not playing")
        if seat is None or self.seats[seat].user_id != conn.user_id:
            return refuse("not_seated", "spectators cannot act")
        if client_seq is not None and client_seq != self._seq_of(seat):
            return refuse("stale", "your view is out of date: resync and decide again")
        if payload.get("type") not in self.action_types or not set(payload) <= self.action_keys:
            return refuse("malformed", self.action_shape)
        if payload.get("seat", seat) != seat:
            return refuse("not_your_seat", "you can only act for your own seat")
        try:
            action = self._action_from(payload, seat)
        except (GunziError, TypeError, ValueError) as exc:
            return refuse("malformed", str(exc)[:300])
        if self.seats[seat].auto:
            self.seats[seat].auto = False  # the player is back: 托管 ends
            self.seats[seat].auto_reason = None
            self.own.reset_timeouts(seat)
            self._publish_table()
            # The bot's pending step for the seat is off (and the seat's clock on), even
            # if the action is refused below.
            self._reschedule()
        try:
            await self._apply(action, "player", conn.user_id, cid)
        except OutOfTurnError as exc:
            # The engine never names the seat being asked to declare (tests/test_errors.py).
            return refuse("out_of_turn", str(exc)[:300], exc.rule)
        except IllegalActionError as exc:
            return refuse("illegal", str(exc)[:500], exc.rule,
                          **self._illegal_detail(seat, exc))
        except CommitError:
            return refuse("server_error", "the action was not saved; please retry")
        except GunziError as exc:
            return refuse("malformed", str(exc)[:300])
        return {"t": "ack", "id": cid, "ok": True, "dup": False, "seq": self._seq_of(seat)}

    def _check_owner(self) -> None:
        """Before a write: NotOwner if this process may no longer write to the table."""
        if not self.hall.owns(self):
            raise NotOwner(self.id)

    async def _write(self, fn: Any, *args: Any) -> None:
        """A write of the table's own rows (seats, start, end) that checks the fencing token
        in its transaction; a table that is no longer ours stops here and the caller gets
        TableError 503 (its sockets reconnect to the new owner)."""
        try:
            self._check_owner()
            await self.hall.store.run(fn, *args, self.fence)
        except (NotOwner, db.Fenced) as exc:
            self.hall.lost(self.id, "fenced" if isinstance(exc, db.Fenced) else "lease")
            raise TableError(503, "moved", "the table moved to another server; retry") \
                from None

    async def _commit_failed(self, exc: Exception) -> CommitError:
        """After a refused commit: log it, back off the automatic steps, rebuild the game
        from the database; the error for ``_apply`` to raise. A table that is no longer
        this process's (NotOwner, a fenced write) is dropped instead."""
        if isinstance(exc, (NotOwner, db.Fenced)):
            self.hall.lost(self.id, "fenced" if isinstance(exc, db.Fenced) else "lease")
            return CommitError()
        log.error("commit_failed", table=self.id, error=type(exc).__name__)
        self.retry_at = time.monotonic() + 1.0
        await self._reload()
        return CommitError()

    async def _reload(self) -> None:
        """Rebuild the game from the database and resync everyone (a table that cannot be
        rebuilt is marked broken and its sockets closed)."""
        try:
            rows = await self.hall.store.run(db.load_actions, self.id)
            self._replay(rows)
        except Exception as exc:
            log.error("reload_failed", table=self.id, **where(exc))
            self.broken = "reload failed"
            for c in list(self.conns):
                c.close(1011, "table unavailable")
            return
        for c in list(self.conns):
            self._sync(c, None)
            self._attached(c)
        self._reschedule()

    def _cancel_timer(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    # ------------------------------------------------------------------ info
    def seat_of(self, user_id: int | None) -> int | None:
        if user_id is None:
            return None
        for i, s in enumerate(self.seats):
            if s.user_id == user_id:
                return i
        return None

    def _owner_name(self) -> str | None:
        for s in self.seats:
            if s.user_id is not None and s.user_id == self.owner_id:
                return s.name
        return None

    def _counted(self, own: tuple[bool, ...]) -> tuple[bool, tuple[bool, ...]]:
        """A ladder result's (rated, counted seats): a bot's seat always counts, a person's
        if they made their own decisions in it (``own``, see ``ladder.own_play``); rated
        when at least one person counts, so ghost play moves nobody."""
        counted = tuple(s.user_id is None or o for s, o in zip(self.seats, own, strict=True))
        rated = any(s.user_id is not None and c
                    for s, c in zip(self.seats, counted, strict=True))
        return rated, counted

    def _gone_since(self) -> float | None:
        """Since when (monotonic) nobody the table plays for is connected: its seated people
        (spectators do not hold a table in a player's name), or at a table of bots only,
        anybody; None while someone is."""
        people = [s for s in self.seats if s.user_id is not None]
        if not people:
            return None if self.conns else self.idle_since
        if any(s.conns for s in people):
            return None
        return max(s.away_since or 0.0 for s in people)

    def _spectators(self) -> int:
        return sum(1 for c in self.conns if c.seat is None)

    def _send_all(self, frame: dict[str, Any]) -> None:
        text = dumps(frame)
        for c in list(self.conns):
            c.send(text)
        self.hall.metrics.frames.inc(len(self.conns))

    def _publish_table(self) -> None:
        self._send_all({"t": "table", "table": self.info()})

    # ---------------------------------------------------------------- titles
    async def _refresh_titles(self, fresh: bool = False) -> None:
        """Seat titles from the hall's ladder cache (read from the database when missing or
        ``fresh``); the table is republished if one changed. Never fails the caller."""
        keys = [s.ladder_key for s in self.seats]
        try:
            totals = await self.hall.ladder_totals(self.ladder_game, [k for k in keys if k],
                                                   fresh)
        except Exception as exc:
            log.warning("titles_failed", table=self.id, **where(exc))
            return
        changed = False
        for s, key in zip(self.seats, keys, strict=True):
            total = None if key is None else totals.get(key, 0)
            title = None if total is None else title_for(total)
            if (s.total, s.title) != (total, title):
                s.total, s.title = total, title
                changed = True
        if changed:
            self._publish_table()

    async def refresh_titles(self) -> None:
        async with self.lock:
            await self._refresh_titles()

    # ----------------------------------------------------------- connections
    async def attach(self, conn: Conn, last_seq: int | None, views: bool = True) -> None:
        """Bind a socket (hello): its seat is the user's seat here, unless it only watches."""
        async with self.lock:
            self._detach(conn)
            seat = None if conn.watch else self.seat_of(conn.user_id)
            conn.seat = seat
            conn.views = views
            self.conns.add(conn)
            self._cancel_idle()
            self.idle_since = None
            back = False
            if seat is not None:
                s = self.seats[seat]
                s.conns += 1
                s.away_since = None
                if s.away_timer is not None:
                    s.away_timer.cancel()
                    s.away_timer = None
                if s.auto:  # the player is back: 托管 ends
                    s.auto = False
                    s.auto_reason = None
                    back = True
                    self.own.reset_timeouts(seat)
            conn.send(dumps(self._welcome(conn)))
            self._sync(conn, last_seq)
            self._attached(conn)
            self._publish_table()
            if back or seat is not None:
                self._reschedule()  # a deal held for an unwatched table goes ahead at once

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
        if not self.conns:
            self._start_idle()
        return True

    def _away(self, seat: int) -> None:
        s = self.seats[seat]
        s.away_since = time.monotonic()
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
            s.auto_reason = "away"
            self._publish_table()
            self._reschedule()

    def _cancel_idle(self) -> None:
        if self.idle_timer is not None:
            self.idle_timer.cancel()
            self.idle_timer = None

    def _start_idle(self) -> None:
        self._cancel_idle()
        self.idle_since = time.monotonic()
        delay = self.settings.abandon_after if self.status in LIVE else RETIRE_AFTER
        loop = asyncio.get_running_loop()
        self.idle_timer = loop.call_later(delay, lambda: self.hall.spawn(self._idle()))

    async def _idle(self) -> None:
        async with self.lock:
            self.idle_timer = None
            if self.conns:
                return
            await self._abandon("idle")

    async def _abandon(self, why: str) -> None:
        """Close a live table for good (its record stays; a game cut short is scored in the
        same transaction as the status, see :meth:`_cut_short`). Spectators still connected
        are told; the table leaves the hall once nobody is."""
        if self.status in LIVE:
            await self._write(end_table, self.id, self._cut_short(), db.now())
            self.status = "abandoned"
            self._cancel_timer()
            log.info("table_abandoned", table=self.id, why=why)
            self._publish_table()
            self.hall.count_tables()
        if not self.conns:
            self.hall.retire(self)

    async def abandon_if_unwatched(self, why: str) -> bool:
        """Abandon this table unless someone is connected to it; True if it was."""
        async with self.lock:
            if self.conns or self.status not in LIVE:
                return False
            self._cancel_idle()
            await self._abandon(why)
            return True

    def _unwatched(self) -> bool:
        """Has nobody the table plays for been connected for ``away_after`` seconds?"""
        gone = self._gone_since()
        # (a timer may fire a hair early)
        return gone is not None and time.monotonic() - gone >= self.settings.away_after - 0.01

    def _cut_short(self) -> LadderResult | None:
        """The ladder result of a game the table stops in the middle of, if it scores one
        (a hook: classic tables do)."""
        return None

    def close_all(self, code: int, reason: str) -> None:
        self._cancel_timer()
        self._cancel_idle()
        for s in self.seats:
            if s.away_timer is not None:
                s.away_timer.cancel()
        for c in list(self.conns):
            c.close(code, reason)

    # ------------------------------------------------------------------ seats
    def _may_manage(self, who: Principal) -> bool:
        return who.user_id == self.owner_id or self.seat_of(who.user_id) is not None

    def _check_seat(self, seat: int) -> None:
        if not 0 <= seat < len(self.seats):
            raise TableError(400, "bad_seat", f"seats are 0..{len(self.seats) - 1}")

    async def take_seat(self, who: Principal, seat: int) -> None:
        self._check_seat(seat)
        async with self.lock:
            if self.status != "open":
                raise TableError(409, "started", "the table has started")
            if self.seat_of(who.user_id) is not None:
                raise TableError(409, "seated", "you already have a seat at this table")
            if not self.seats[seat].empty:
                raise TableError(409, "taken", "that seat is taken")
            await self._write(set_seat, self.id, seat, who.user_id, None)
            self.seats[seat] = SeatState(user_id=who.user_id, name=who.name)
            self._publish_table()
            await self._refresh_titles()

    async def leave_seat(self, who: Principal, seat: int) -> None:
        self._check_seat(seat)
        async with self.lock:
            s = self.seats[seat]
            if self.status != "open":
                raise TableError(409, "started", "seats are fixed once the table has started")
            if s.bot is not None:
                if not self._may_manage(who):
                    raise TableError(403, "forbidden", "only the owner or a seated player may")
            elif s.user_id != who.user_id:
                raise TableError(403, "forbidden", "that is not your seat")
            await self._write(set_seat, self.id, seat, None, None)
            self.seats[seat] = SeatState()
            self._publish_table()

    async def set_bot(self, who: Principal, seat: int, bot: str) -> None:
        self._check_seat(seat)
        if bot not in self.bots_allowed:
            raise TableError(400, "bad_bot", f"bots: {', '.join(self.bots_allowed)}")
        async with self.lock:
            if self.status != "open":
                raise TableError(409, "started", "the table has started")
            if not self._may_manage(who):
                raise TableError(403, "forbidden", "only the owner or a seated player may")
            if not self.seats[seat].empty:
                raise TableError(409, "taken", "that seat is taken")
            await self._write(set_seat, self.id, seat, None, bot)
            self.seats[seat] = SeatState(bot=bot)
            self._publish_table()
            await self._refresh_titles()

    def _check_start(self, who: Principal | None) -> None:
        """May ``who`` (None: the server) start the table now? Raises TableError if not."""
        if self.status != "open":
            raise TableError(409, "started", "the table has started")
        if who is not None and not self._may_manage(who):
            raise TableError(403, "forbidden", "only the owner or a seated player may")
        if any(s.empty for s in self.seats):
            count = {2: "two", 4: "four"}.get(len(self.seats), str(len(self.seats)))
            raise TableError(409, "seats_empty", f"{count} players (people or bots) are needed")

    def _mark_started(self) -> None:
        """The table has just started: seated people not connected begin to count as away."""
        self.status = "playing"
        for i, s in enumerate(self.seats):
            if s.user_id is not None and s.conns == 0:
                self._away(i)


# ------------------------------------------------------------------- db helpers


def set_seat(session: Session, table_id: str, seat: int, user_id: int | None,
             bot: str | None, fence: int | None = None) -> None:
    db.check_fence(session, table_id, fence)
    session.execute(
        update(db.SeatRow)
        .where(db.SeatRow.table_id == table_id, db.SeatRow.seat == seat)
        .values(user_id=user_id, bot=bot)
    )


def end_table(session: Session, table_id: str, ladder: LadderResult | None,
              now: float, fence: int | None = None) -> None:
    """Mark a table abandoned, with the ladder result it closes in the same transaction
    (exactly once: ``ladder_db.apply_result`` keys it by table and hand)."""
    db.check_fence(session, table_id, fence)
    set_status(session, table_id, "abandoned")
    if ladder is not None:
        ladder_db.apply_result(session, ladder, now)


def set_status(session: Session, table_id: str, status: str) -> None:
    session.execute(
        update(db.TableRow).where(db.TableRow.id == table_id)
        .values(status=status, updated_at=db.now())
    )
