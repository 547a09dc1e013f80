"""What the card hall and the 步步为营 hall share: the live tables of one kind, their limits,
creation, quick play, rebuilding at startup and read-only ("cold") copies of old tables,
and the ladder totals behind the seat titles.

Both kinds of table live in the same database tables (``game_tables``, ``seats``,
``actions``, ``events``); each hall reads only its own rows (``_which``).
"""

from __future__ import annotations

import asyncio
import secrets
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import structlog
from sqlalchemy import ColumnElement, select, update
from sqlalchemy.orm import Session

from gunzi.engine.errors import GunziError
from gunzi.server import db, ladder_db
from gunzi.server.auth import Principal
from gunzi.server.bot_batch import BotBatch
from gunzi.server.presence import LIVE, SeatedTable, SeatState, TableError, clean_text

if TYPE_CHECKING:
    from gunzi.server.metrics import Metrics
    from gunzi.server.settings import Settings

log = structlog.get_logger("gunzi.tables")

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
COLD_CACHE = 32  # finished tables kept rebuilt for their pages and records

T = TypeVar("T", bound=SeatedTable)


@dataclass
class Loaded:
    """A table as stored: its row, seats, actions and last event (for a check on replay)."""

    row: db.TableRow
    seats: list[SeatState]
    actions: list[db.ActionRow]
    last_event: dict[str, Any] | None
    host: str | None = None  # the creator's display name (names a table that has none)


def load_tables(session: Session, which: ColumnElement[bool],
                seat_count: Callable[[dict[str, Any]], int],
                statuses: tuple[str, ...] | None, table_id: str | None) -> list[Loaded]:
    """Tables of one kind (``which``), optionally by status or id, oldest first."""
    q = select(db.TableRow).where(which)
    if statuses is not None:
        q = q.where(db.TableRow.status.in_(statuses))
    if table_id is not None:
        q = q.where(db.TableRow.id == table_id)
    out = []
    for row in session.scalars(q.order_by(db.TableRow.created_at)):
        n = seat_count(dict(row.rules))
        seats = [SeatState() for _ in range(n)]
        for seat, user_id, bot, name in session.execute(
            select(db.SeatRow.seat, db.SeatRow.user_id, db.SeatRow.bot, db.User.name)
            .outerjoin(db.User, db.User.id == db.SeatRow.user_id)
            .where(db.SeatRow.table_id == row.id)
        ):
            if seat < n:
                seats[seat] = SeatState(user_id=user_id, name=name, bot=bot)
        actions = db.load_actions(session, row.id) if row.header is not None else []
        last = None
        if row.n_events:
            ev = session.get(db.EventRow, (row.id, row.n_events))
            last = None if ev is None else ev.data
        owner = None if row.owner_id is None else session.get(db.User, row.owner_id)
        out.append(Loaded(row, seats, actions, last, None if owner is None else owner.name))
    return out


def check_replay(events: Sequence[Any], item: Loaded) -> None:
    """Raise GunziError unless the replayed events match what is stored: their number and
    the last one."""
    if len(events) != item.row.n_events:
        raise GunziError(f"{len(events)} events replayed, {item.row.n_events} stored")
    if item.last_event is not None and events[-1].to_dict() != item.last_event:
        raise GunziError("the last replayed event differs from the stored one")


def create_rows(session: Session, row: db.TableRow, seats: int) -> None:
    session.add(row)
    session.flush()
    for i in range(seats):
        session.add(db.SeatRow(table_id=row.id, seat=i, user_id=None, bot=None))


def mark_started(session: Session, table_id: str, header: dict[str, Any]) -> None:
    session.execute(
        update(db.TableRow).where(db.TableRow.id == table_id)
        .values(status="playing", header=header, updated_at=db.now())
    )


class BaseHall(Generic[T]):
    """Every live table of one kind in this server process."""

    def __init__(self, settings: Settings, store: db.Store, metrics: Metrics) -> None:
        self.settings = settings
        self.store = store
        self.metrics = metrics
        self.tables: dict[str, T] = {}
        self.codes: dict[str, str] = {}
        self.tasks: set[asyncio.Task[Any]] = set()
        self.base_url: str | None = None
        self.cold_cache: OrderedDict[str, T] = OrderedDict()
        self.ladder_cache: dict[tuple[str, str], int] = {}  # (game, player) -> total
        self.bot_batch = BotBatch(metrics.bot_batch)  # learned-bot moves due together

    # ------------------------------------------------------- the kind's part
    def _which(self) -> ColumnElement[bool]:
        """Which ``game_tables`` rows are this hall's."""
        raise NotImplementedError

    @staticmethod
    def _seat_count(rules: dict[str, Any]) -> int:
        return 4

    def _new_table(self, row: db.TableRow, seats: list[SeatState]) -> T:
        raise NotImplementedError

    def _rebuild(self, table: T, item: Loaded, check: bool) -> None:
        """Replay the stored actions into ``table``; ``check``: raise if the events differ
        from the stored ones."""
        raise NotImplementedError

    def count_tables(self) -> None:
        """Update the tables gauge (a hook: only the card hall reports it)."""

    # ------------------------------------------------------------ ladder
    async def ladder_totals(self, game: str, keys: list[str], fresh: bool) -> dict[str, int]:
        """Ladder totals for seat titles, cached per player; ``fresh`` rereads them (after a
        rated result). Players with no result yet count 0."""
        missing = keys if fresh else [k for k in keys if (game, k) not in self.ladder_cache]
        if missing:
            found = await self.store.run(ladder_db.totals, game, sorted(set(missing)))
            if len(self.ladder_cache) > 50_000:
                self.ladder_cache.clear()
            for k in missing:
                self.ladder_cache[(game, k)] = found.get(k, 0)
        return {k: self.ladder_cache.get((game, k), 0) for k in keys}

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    # -------------------------------------------------------------- lifecycle
    async def _restore(self) -> None:
        """Rebuild the live tables from the database (startup); a table that does not replay
        to what is stored is left out and logged."""
        loaded = await self.store.run(load_tables, self._which(), self._seat_count, LIVE, None)
        for item in loaded:
            table = self._new_table(item.row, item.seats)
            table.host = item.host
            try:
                self._rebuild(table, item, True)
            except Exception as exc:
                log.error("restore_failed", table=item.row.id, error=str(exc)[:200])
                continue
            self._register(table)
            if table.status == "playing":
                for i, s in enumerate(table.seats):
                    if s.user_id is not None:
                        table._away(i)
                table._schedule()
            table._start_idle()
            self.spawn(table.refresh_titles())
            self.metrics.restored.inc()
        self.count_tables()

    async def _stop(self) -> None:
        for table in list(self.tables.values()):
            table.close_all(1012, "server restarting")
        for task in list(self.tasks):
            task.cancel()
        await asyncio.sleep(0)

    def _register(self, table: T) -> None:
        self.tables[table.id] = table
        if table.code:
            self.codes[table.code] = table.id

    def retire(self, table: SeatedTable) -> None:
        table.close_all(1001, "table closed")
        self.tables.pop(table.id, None)
        if table.code:
            self.codes.pop(table.code, None)
        self.count_tables()

    def revoke_session(self, session_id: int) -> None:
        for table in self.tables.values():
            for c in list(table.conns):
                if c.session_id == session_id:
                    c.close(1008, "logged out")

    # ------------------------------------------------------------------ lookup
    def get(self, table_id: str) -> T | None:
        return self.tables.get(table_id)

    def by_code(self, code: str) -> T | None:
        tid = self.codes.get(code.strip().upper())
        return None if tid is None else self.tables.get(tid)

    async def cold(self, table_id: str) -> T | None:
        """A table that is no longer live, rebuilt read-only from the database (cached)."""
        if len(table_id) > 24:
            return None
        if table_id in self.cold_cache:
            self.cold_cache.move_to_end(table_id)
            return self.cold_cache[table_id]
        loaded = await self.store.run(load_tables, self._which(), self._seat_count, None,
                                      table_id)
        if not loaded:
            return None
        item = loaded[0]
        table = self._new_table(item.row, item.seats)
        table.host = item.host
        self._rebuild(table, item, False)
        await table._refresh_titles()
        if table.status not in LIVE:  # a live table may come back; a finished one is final
            self.cold_cache[table_id] = table
            while len(self.cold_cache) > COLD_CACHE:
                self.cold_cache.popitem(last=False)
        return table

    def public_tables(self) -> list[dict[str, Any]]:
        return [t.info() for t in self.tables.values() if t.public and t.status in LIVE]

    # ------------------------------------------------------------------ create
    def _check_room(self, who: Principal, quick: bool) -> None:
        if len(self.tables) >= self.settings.max_tables:
            raise TableError(503, "hall_full", "the hall is full; try again later")
        owned = sum(1 for t in self.tables.values()
                    if t.owner_id == who.user_id and t.status in LIVE and t.quick == quick)
        if owned >= self.settings.max_tables_per_user:
            raise TableError(429, "too_many_tables",
                             f"at most {self.settings.max_tables_per_user} open tables each")

    async def _open(self, who: Principal, *, name: str, public: bool, quick: bool,
                    preset: str, rules: dict[str, Any], seats: int, clock: int = 0,
                    max_hands: int = 0, counter: bool = False) -> T:
        """Store a new open table (a room code when private) and register it."""
        t = db.now()
        code = None if public else "".join(secrets.choice(CODE_ALPHABET) for _ in range(8))
        row = db.TableRow(
            id=secrets.token_urlsafe(9), code=code, name=clean_text(name, 64), public=public,
            preset=preset, rules=rules, clock=clock, max_hands=max_hands, status="open",
            owner_id=who.user_id, header=None, created_at=t, updated_at=t, n_actions=0,
            n_events=0, counter=counter, quick=quick,
        )
        await self.store.run(create_rows, row, seats)
        table = self._new_table(row, [SeatState() for _ in range(seats)])
        table.host = who.name
        self._register(table)
        table._start_idle()
        self.count_tables()
        log.info("table_created", table=table.id, public=public, rules=rules.get("name"))
        return table

    async def _quick(self, who: Principal, bot: str, allowed: tuple[str, ...],
                     make: Callable[[], Awaitable[T]]) -> T:
        """Quick play: a new table (``make``) with the player at seat 0 and ``bot`` in the
        other seats, started at once.

        Quick-play tables are counted apart from tables made in the lobby, and a
        player's earlier quick-play tables that no browser has open any more are
        abandoned first (their records stay), so repeated clicks never pile up
        against the per-player limit; ones still open in a tab are left alone."""
        if bot not in allowed:
            raise TableError(400, "bad_bot", f"bots: {', '.join(allowed)}")
        for old in [t for t in self.tables.values()
                    if t.quick and t.owner_id == who.user_id and t.status in LIVE]:
            await old.abandon_if_unwatched("replaced by quick play")
        table = await make()
        await table.take_seat(who, 0)
        for seat in range(1, len(table.seats)):
            await table.set_bot(who, seat, bot)
        await table.start(who)
        return table
