"""What the card hall and the 步步为营 hall share: the live tables of one kind, their limits,
creation, quick play, rebuilding at startup and read-only ("cold") copies of old tables,
and the ladder totals behind the seat titles.

Both kinds of table live in the same database tables (``game_tables``, ``seats``,
``actions``, ``events``); each hall reads only its own rows (``_which``).
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections import Counter, OrderedDict
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
from gunzi.server.cluster import MOVED
from gunzi.server.presence import LIVE, SeatedTable, SeatState, TableError, clean_text

if TYPE_CHECKING:
    from gunzi.server.cluster import Cluster
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


def claim_table(session: Session, which: ColumnElement[bool],
                seat_count: Callable[[dict[str, Any]], int],
                table_id: str) -> tuple[Loaded, int] | None:
    """Take a live table over (its lease is ours): bump its fencing token, then load it, in
    one transaction. The bump waits for a commit of the previous owner still in flight
    (the row's lock), so what is loaded is everything it committed, and any later write of
    its is refused (:func:`gunzi.server.db.check_fence`)."""
    row = session.execute(
        update(db.TableRow)
        .where(db.TableRow.id == table_id, which, db.TableRow.status.in_(LIVE))
        .values(fence=db.TableRow.fence + 1).returning(db.TableRow.fence)).first()
    if row is None:
        return None
    loaded = load_tables(session, which, seat_count, LIVE, table_id)
    return (loaded[0], int(row[0])) if loaded else None


def live_ids(session: Session, which: ColumnElement[bool], key: str | None) -> list[str]:
    """The live tables of one kind (``which``); with ``key``, the one with that id or room
    code."""
    q = select(db.TableRow.id).where(which, db.TableRow.status.in_(LIVE))
    if key is not None:
        q = q.where((db.TableRow.id == key) | (db.TableRow.code == key.strip().upper()))
    return list(session.scalars(q))


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


def mark_started(session: Session, table_id: str, header: dict[str, Any],
                 fence: int | None = None) -> None:
    db.check_fence(session, table_id, fence)
    session.execute(
        update(db.TableRow).where(db.TableRow.id == table_id)
        .values(status="playing", header=header, updated_at=db.now())
    )


def _hall_full() -> TableError:
    return TableError(503, "hall_full", "the hall is full; try again later")


def _too_many_tables(settings: Settings) -> TableError:
    return TableError(429, "too_many_tables",
                      f"at most {settings.max_tables_per_user} open tables each")


class BaseHall(Generic[T]):
    """Every live table of one kind in this server process."""

    lobby_kind = "cards"  # its list's name among several processes (Cluster.lobby)

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
        # Several processes (gunzi.server.cluster): None when this process is the hall.
        self.cluster: Cluster | None = None
        self.claims: dict[str, asyncio.Task[T | None]] = {}  # takeovers in progress
        self.unrestorable: set[str] = set()  # did not replay here: not taken again
        self.opening: Counter[tuple[int, bool]] = Counter()  # tables being opened: (owner, quick)

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
        """The tables changed: with several processes, our counts of them are published
        (:meth:`table_counts`); the card hall also updates its gauge."""
        if self.cluster is not None:
            self.cluster.counts.publish_group(self._hall_count(), self.table_counts())

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
            if fresh and self.cluster is not None:  # the other processes' caches too
                self.spawn(self.cluster.news.publish(
                    "ladder", {"game": game, "keys": sorted(set(missing))}))
        return {k: self.ladder_cache.get((game, k), 0) for k in keys}

    def ladder_news(self, body: dict[str, Any]) -> None:
        """Another process reread these players' totals (a rated hand ended there): drop
        them from our cache, and the tables here where they sit show the new titles."""
        game, keys = body.get("game"), body.get("keys")
        if not isinstance(game, str) or not isinstance(keys, list):
            return
        changed = {k for k in keys if isinstance(k, str)}
        for key in changed:
            self.ladder_cache.pop((game, key), None)
        for table in list(self.tables.values()):
            if table.ladder_game == game and any(s.ladder_key in changed for s in table.seats):
                self.spawn(table.refresh_titles())

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    # -------------------------------------------------------------- lifecycle
    async def _restore(self) -> None:
        """Rebuild the live tables from the database (startup); a table that does not replay
        to what is stored is left out and logged. With several processes: only the tables
        nobody owns (:meth:`take_free`)."""
        if self.cluster is not None:
            await self.take_free()
            self.count_tables()
            return
        loaded = await self.store.run(load_tables, self._which(), self._seat_count, LIVE, None)
        for item in loaded:
            self._revive(item, None)
        self.count_tables()

    def _revive(self, item: Loaded, fence: int | None) -> T | None:
        """A stored live table rebuilt (checked against its events), registered and going
        again; None (logged) if it does not replay."""
        table = self._new_table(item.row, item.seats)
        table.host = item.host
        try:
            self._rebuild(table, item, True)
        except Exception as exc:
            log.error("restore_failed", table=item.row.id, error=str(exc)[:200])
            return None
        table.fence = fence
        self._register(table)
        if table.status == "playing":
            for i, s in enumerate(table.seats):
                if s.user_id is not None:
                    table._away(i)
            table._schedule()
        table._start_idle()
        self.spawn(table.refresh_titles())
        self.metrics.restored.inc()
        return table

    # ------------------------------------------------------ several processes
    async def take_free(self) -> None:
        """Take over every live table of this kind whose lease is free (its process died or
        handed it over)."""
        assert self.cluster is not None
        ids = [t for t in await self.store.run(live_ids, self._which(), None)
               if t not in self.tables and t not in self.claims and t not in self.unrestorable]
        owners = await self.cluster.leases.owners(ids)
        free = [t for t, owner in owners.items() if owner is None]
        secrets.SystemRandom().shuffle(free)  # processes scanning together interleave
        for table_id in free:
            await self.claim(table_id)

    async def claim(self, table_id: str) -> T | None:
        """Our table ``table_id``, taken over now if its lease is free; None if another
        process holds it or it is not live. Concurrent calls share one takeover."""
        if table_id in self.tables:
            return self.tables[table_id]
        task = self.claims.get(table_id)
        if task is None:
            task = asyncio.get_running_loop().create_task(self._claim(table_id))
            self.claims[table_id] = task
            task.add_done_callback(lambda _t: self.claims.pop(table_id, None))
        return await asyncio.shield(task)

    async def _claim(self, table_id: str) -> T | None:
        cluster = self.cluster
        assert cluster is not None
        if not await cluster.acquire(table_id):
            return None
        try:
            got = await self.store.run(claim_table, self._which(), self._seat_count, table_id)
        except BaseException:
            cluster.forget(table_id)
            raise
        table = None if got is None else self._revive(*got)
        if table is None:
            if got is not None:
                self.unrestorable.add(table_id)
            cluster.forget(table_id)
            return None
        self.metrics.takeovers.inc()
        self.count_tables()
        log.info("table_taken", table=table_id, owner=cluster.me, fence=table.fence,
                 status=table.status)
        return table

    async def route(self, key: str) -> T | str | None:
        """Where the live table named ``key`` (id or room code) is played: here (taken over
        now if nobody holds it), or the name of the node that does ("" while it is between
        owners: try again shortly); None if no live table has that id or code."""
        table = self.get(key) or self.by_code(key)
        if table is not None or self.cluster is None:
            return table
        if len(key) > 24:
            return None
        try:
            found = await self.store.run(live_ids, self._which(), key)
            if not found:
                return None
            table_id = found[0]
            node = await self.cluster.owner(table_id)
            if node is None:
                table = await self.claim(table_id)
                if table is not None:
                    return table
                node = await self.cluster.owner(table_id)
        except Exception as exc:
            log.warning("route_failed", table=key, error=type(exc).__name__)
            return ""
        return "" if node is None or node == self.cluster.node else node

    def owns(self, table: SeatedTable) -> bool:
        """May this process write to the table now (always, when it is the only one)?"""
        return self.cluster is None or self.cluster.valid(table.id)

    def lost(self, table_id: str, why: str) -> None:
        """The table is no longer ours (its lease lost or not renewed in time, or a write
        refused by its fencing token): it stops here at once and its sockets are told to
        reconnect, which brings them to its new owner."""
        table = self.tables.pop(table_id, None)
        if table is None:
            return
        table.broken = why
        if table.code:
            self.codes.pop(table.code, None)
        if self.cluster is not None:
            self.cluster.forget(table_id)
            log.warning("table_lost", table=table_id, owner=self.cluster.me, why=why)
        self.metrics.lost.labels(why).inc()
        table.close_all(MOVED, "")
        self.count_tables()

    async def stop_tables(self) -> list[str]:
        """Hand-over: stop every table (waiting for an action in flight), close its sockets
        so they reconnect elsewhere; the ids. A takeover still in flight is waited for
        first: it holds the table's lease already, and a table it registered after this
        would keep that lease until it expired, with nobody playing it."""
        if self.claims:
            await asyncio.gather(*list(self.claims.values()), return_exceptions=True)
        ids = []
        for table in list(self.tables.values()):
            with contextlib.suppress(Exception):
                async with table.lock:
                    table.broken = "handed over"
                    table._cancel_timer()
            ids.append(table.id)
        for table_id in ids:
            gone = self.tables.pop(table_id, None)
            if gone is not None:
                gone.close_all(MOVED, "")
        self.codes.clear()
        return ids

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
        if self.cluster is not None:
            self.cluster.forget(table.id)
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

    async def listing(self) -> list[dict[str, Any]]:
        """The lobby's list: this process's public live tables and, with several processes,
        the others' (as they last published them; Redis unreachable: ours only)."""
        mine = self.public_tables()
        if self.cluster is None:
            return mine
        try:
            others = await self.cluster.lobby(self.lobby_kind)
        except Exception as exc:
            log.warning("lobby_read_failed", error=type(exc).__name__)
            return mine
        listed = {t["id"]: t for t in others}  # a table changing hands: listed once
        listed.update((t["id"], t) for t in mine)
        return list(listed.values())

    # ------------------------------------------------------------------ create
    def _check_room(self, who: Principal, quick: bool) -> None:
        """Refuse a new table beyond the limits as this process counts them: its tables and
        those being opened."""
        if len(self.tables) + self.opening.total() >= self.settings.max_tables:
            raise _hall_full()
        owned = sum(1 for t in self.tables.values()
                    if t.owner_id == who.user_id and t.status in LIVE and t.quick == quick)
        if owned + self.opening[(who.user_id, quick)] >= self.settings.max_tables_per_user:
            raise _too_many_tables(self.settings)

    async def _reserve(self, who: Principal, quick: bool) -> tuple[int, bool]:
        """Check and count a table about to be opened: in this process (one step), then,
        with several processes, against the whole hall's tables in Redis (one step there;
        docs/deploy.md, "Limits across processes"). Its slot, for :meth:`_unreserve`."""
        self._check_room(who, quick)
        slot = (who.user_id, quick)
        self.opening[slot] += 1
        if self.cluster is None:
            return slot
        counts = self.table_counts()
        asks = [(name, counts[name], limit) for name, limit in (
            (self._hall_count(), self.settings.max_tables),
            (self._user_count(*slot), self.settings.max_tables_per_user))]
        try:
            refused = await self.cluster.counts.take(asks)
        except BaseException:
            self._give_back(slot, asks)
            raise
        if refused is not None:
            self._give_back(slot, asks)
            raise _hall_full() if refused == 0 else _too_many_tables(self.settings)
        self.count_tables()
        return slot

    def _unreserve(self, slot: tuple[int, bool]) -> None:
        self.opening[slot] -= 1
        if self.opening[slot] <= 0:
            del self.opening[slot]

    def _give_back(self, slot: tuple[int, bool], asks: list[tuple[str, int, int]]) -> None:
        """A table not opened after all: our counts as they are again are published (a
        count sent meanwhile had it)."""
        self._unreserve(slot)
        if self.cluster is not None:
            counts = self.table_counts()
            self.cluster.counts.publish({name: counts.get(name, 0) for name, _, _ in asks})

    def _hall_count(self) -> str:
        return f"tables:{self.lobby_kind}"

    def _user_count(self, owner: int, quick: bool) -> str:
        return f"tables:{self.lobby_kind}:u:{owner}:{'quick' if quick else 'lobby'}"

    def table_counts(self) -> dict[str, int]:
        """This process's tables of this kind and each owner's open or playing ones (quick
        play apart), those being opened included, by the names of the hall's counts."""
        owned = Counter((t.owner_id, t.quick) for t in self.tables.values()
                        if t.status in LIVE and t.owner_id is not None)
        owned.update(self.opening)
        out = {self._user_count(owner, quick): n for (owner, quick), n in owned.items()
               if n > 0}
        out[self._hall_count()] = len(self.tables) + self.opening.total()
        return {name: n for name, n in out.items() if n > 0}

    async def _open(self, who: Principal, *, name: str, public: bool, quick: bool,
                    preset: str, rules: dict[str, Any], seats: int, clock: int = 0,
                    max_hands: int = 0, counter: bool = False) -> T:
        """Store a new open table (a room code when private) and register it."""
        t = db.now()
        code = None if public else "".join(secrets.choice(CODE_ALPHABET) for _ in range(8))
        table_id = secrets.token_urlsafe(9)
        fence = None
        slot = await self._reserve(who, quick)
        try:
            if self.cluster is not None:  # ours from the start: its lease, its first token
                if not await self.cluster.acquire(table_id):
                    raise TableError(503, "busy", "could not open a table now; try again")
                fence = 1
            row = db.TableRow(
                id=table_id, code=code, name=clean_text(name, 64), public=public,
                preset=preset, rules=rules, clock=clock, max_hands=max_hands, status="open",
                owner_id=who.user_id, header=None, created_at=t, updated_at=t, n_actions=0,
                n_events=0, counter=counter, quick=quick, fence=fence or 0,
            )
            try:
                await self.store.run(create_rows, row, seats)
            except BaseException:
                if self.cluster is not None:
                    self.cluster.forget(table_id)
                raise
        except BaseException:
            self._unreserve(slot)
            self.count_tables()
            raise
        self._unreserve(slot)  # counted as a table from here on (no await in between)
        table = self._new_table(row, [SeatState() for _ in range(seats)])
        table.fence = fence
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
