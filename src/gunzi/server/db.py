"""Storage: SQLAlchemy 2 models, the engine setup, and a small store run on worker threads.

SQLite (default, a file in the data directory) or PostgreSQL (by URL). The
schema is created by the Alembic migrations in ``migrations/``, run at startup.

What is stored: users and sessions (token hashes only), tables and their seats,
and for every accepted action the action itself (record form, the deal's seed
included) with every event it produced in full. A table's match is rebuilt at
startup by replaying its actions through the engine; the stored events are the
audit trail the replay is checked against.

Every method of :class:`Store` runs on the store's executor: one thread for
SQLite (one writer, no lock contention), a few for PostgreSQL. ``await
store.run(fn, ...)`` calls ``fn(session, ...)`` there, in one transaction.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

import psycopg
from alembic import command
from alembic.config import Config
from psycopg import sql as psql
from psycopg.types.json import Json
from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    UniqueConstraint,
    bindparam,
    create_engine,
    event,
    insert,
    select,
    text,
    update,
)
from sqlalchemy.engine import Engine
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column

from gunzi.server.settings import Settings

if TYPE_CHECKING:
    from sqlalchemy.sql.expression import TableClause

T = TypeVar("T")


class Base(DeclarativeBase):
    pass


class User(Base):
    __tablename__ = "users"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(32))  # display name
    name_key: Mapped[str] = mapped_column(String(32), unique=True)  # lower-case, for login
    password_hash: Mapped[str | None] = mapped_column(String(255), nullable=True)
    guest: Mapped[bool] = mapped_column(Boolean, default=True)
    created_at: Mapped[float] = mapped_column(Float)


class SessionRow(Base):
    __tablename__ = "sessions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)  # sha256 hex of the token
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[float] = mapped_column(Float)
    expires_at: Mapped[float] = mapped_column(Float)
    revoked_at: Mapped[float | None] = mapped_column(Float, nullable=True)


class TableRow(Base):
    __tablename__ = "game_tables"

    id: Mapped[str] = mapped_column(String(24), primary_key=True)
    code: Mapped[str | None] = mapped_column(String(16), unique=True, nullable=True)
    name: Mapped[str] = mapped_column(String(64))
    public: Mapped[bool] = mapped_column(Boolean)
    preset: Mapped[str] = mapped_column(String(32))
    rules: Mapped[dict[str, Any]] = mapped_column(JSON)  # Ruleset.options() + name
    clock: Mapped[int] = mapped_column(Integer)
    max_hands: Mapped[int] = mapped_column(Integer, default=0)
    status: Mapped[str] = mapped_column(String(16), index=True)  # open/playing/finished/abandoned
    owner_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), nullable=True)
    header: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)  # record header
    created_at: Mapped[float] = mapped_column(Float)
    updated_at: Mapped[float] = mapped_column(Float)
    n_actions: Mapped[int] = mapped_column(Integer, default=0)
    n_events: Mapped[int] = mapped_column(Integer, default=0)
    counter: Mapped[bool] = mapped_column(Boolean, default=True)  # 记牌器 allowed
    quick: Mapped[bool] = mapped_column(Boolean, default=False)  # made by quick play
    # Fencing token (migration 0006): bumped by the process that takes the table over; its
    # writes check it (:func:`check_fence`). Single-process halls leave it at 0.
    fence: Mapped[int] = mapped_column(BigInteger, default=0)


class SeatRow(Base):
    __tablename__ = "seats"

    table_id: Mapped[str] = mapped_column(
        ForeignKey("game_tables.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), nullable=True)
    bot: Mapped[str | None] = mapped_column(String(32), nullable=True)


class ActionRow(Base):
    __tablename__ = "actions"
    __table_args__ = (Index("ix_actions_client", "table_id", "user_id", "cid", unique=True),)

    table_id: Mapped[str] = mapped_column(
        ForeignKey("game_tables.id", ondelete="CASCADE"), primary_key=True
    )
    n: Mapped[int] = mapped_column(Integer, primary_key=True)  # 1-based, per table
    seat: Mapped[int] = mapped_column(Integer)  # -1: the dealing machine
    source: Mapped[str] = mapped_column(String(16))  # player/bot/auto/server
    user_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    cid: Mapped[str | None] = mapped_column(String(64), nullable=True)  # client message id
    data: Mapped[dict[str, Any]] = mapped_column(JSON)  # Action.to_dict()
    v_end: Mapped[int] = mapped_column(Integer)  # match event count after the action
    created_at: Mapped[float] = mapped_column(Float)


class EventRow(Base):
    __tablename__ = "events"

    table_id: Mapped[str] = mapped_column(
        ForeignKey("game_tables.id", ondelete="CASCADE"), primary_key=True
    )
    v: Mapped[int] = mapped_column(Integer, primary_key=True)
    n: Mapped[int] = mapped_column(Integer)  # the action that produced it
    hand: Mapped[int] = mapped_column(Integer)
    type: Mapped[str] = mapped_column(String(32))
    data: Mapped[dict[str, Any]] = mapped_column(JSON)  # Event.to_dict(): public and secret
    audience: Mapped[str] = mapped_column(String(16))  # seats, e.g. "0,2"
    private: Mapped[bool] = mapped_column(Boolean)


class LadderResultRow(Base):
    """One scored hand (打滚子) or game (classic); unique per table and hand (exactly once)."""

    __tablename__ = "ladder_results"
    __table_args__ = (UniqueConstraint("table_id", "hand_no", name="uq_ladder_results_hand"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game: Mapped[str] = mapped_column(String(16))
    table_id: Mapped[str] = mapped_column(String(24))
    hand_no: Mapped[int] = mapped_column(Integer)
    rated: Mapped[bool] = mapped_column(Boolean)
    players: Mapped[list[str]] = mapped_column(JSON)  # per seat: "u:<id>" or "bot:<name>"
    scores: Mapped[list[int]] = mapped_column(JSON)  # ladder points per seat
    created_at: Mapped[float] = mapped_column(Float)
    # per seat: counted for its player (migration 0004; null: every seat, as before it)
    counted: Mapped[list[bool] | None] = mapped_column(JSON, nullable=True)


class LadderEntry(Base):
    """A player's share of a rated result: points, total and rating after (the history)."""

    __tablename__ = "ladder_entries"
    __table_args__ = (Index("ix_ladder_entries_player", "player", "result_id"),)

    result_id: Mapped[int] = mapped_column(
        ForeignKey("ladder_results.id", ondelete="CASCADE"), primary_key=True
    )
    player: Mapped[str] = mapped_column(String(40), primary_key=True)
    game: Mapped[str] = mapped_column(String(16))
    seats: Mapped[str] = mapped_column(String(8))  # e.g. "1,3" (a bot may fill several)
    score: Mapped[int] = mapped_column(Integer)
    total_after: Mapped[int] = mapped_column(Integer)
    mu_before: Mapped[float] = mapped_column(Float)
    sigma_before: Mapped[float] = mapped_column(Float)
    mu_after: Mapped[float] = mapped_column(Float)
    sigma_after: Mapped[float] = mapped_column(Float)
    created_at: Mapped[float] = mapped_column(Float)


class LadderPlayer(Base):
    """A player's standing on one game's ladder: 积分 total, games, rating."""

    __tablename__ = "ladder_players"
    __table_args__ = (Index("ix_ladder_players_rank", "game", "total"),)

    game: Mapped[str] = mapped_column(String(16), primary_key=True)
    player: Mapped[str] = mapped_column(String(40), primary_key=True)
    user_id: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), nullable=True, index=True
    )
    total: Mapped[int] = mapped_column(Integer)
    games: Mapped[int] = mapped_column(Integer)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    ordinal: Mapped[float] = mapped_column(Float)
    updated_at: Mapped[float] = mapped_column(Float)


class LoginGuard(Base):
    """Login throttling state shared by every process on the database (auth.LoginGuards):
    ``u:<name>`` rows count an account's consecutive failures and hold its next allowed
    attempt; ``ip:<address>`` rows count an address's attempts in its current window."""

    __tablename__ = "login_guards"

    key: Mapped[str] = mapped_column(String(80), primary_key=True)
    failures: Mapped[int] = mapped_column(Integer)
    last_at: Mapped[float] = mapped_column(Float)  # last counted failure / window start
    next_at: Mapped[float] = mapped_column(Float)  # no attempt before this (accounts)
    claim: Mapped[str] = mapped_column(String(32))  # the attempt that last changed the row


# ---------------------------------------------------------------------------- engine


def make_engine(settings: Settings) -> Engine:
    url = settings.db_url
    if url.startswith("sqlite"):
        if url.startswith("sqlite:///") and ":memory:" not in url:
            Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 10})
        sync = settings.sqlite_synchronous.upper()

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_conn: Any, _record: Any) -> None:
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute(f"PRAGMA synchronous={sync}")
            cur.execute("PRAGMA busy_timeout=10000")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.close()

        return engine
    return create_engine(url, pool_size=max(2, settings.db_threads), pool_pre_ping=True)


MIGRATION_LOCK = 0x67756E7A69  # a PostgreSQL advisory lock key ("gunzi")


def migrate(engine: Engine) -> None:
    """Alembic ``upgrade head`` on this engine (programmatic; no alembic.ini needed). On
    PostgreSQL under an advisory lock held by the transaction: several processes starting
    together on a fresh database migrate one after another, not into each other."""
    cfg = Config()
    cfg.set_main_option("script_location", str(Path(__file__).parent / "migrations"))
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": MIGRATION_LOCK})
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")


class Store:
    """The database, reached from the event loop through worker threads."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.engine = make_engine(settings)
        threads = 1 if settings.is_sqlite else max(1, settings.db_threads)
        self.executor = ThreadPoolExecutor(threads, thread_name_prefix="gunzi-db")
        self._batch: list[tuple[tuple[Any, ...], asyncio.Future[None]]] = []
        self._draining = False
        self._drainer: asyncio.Task[None] | None = None

    def migrate(self) -> None:
        migrate(self.engine)

    def call(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn(session, *args)`` in one transaction, on the calling thread."""
        with Session(self.engine, expire_on_commit=False) as session, session.begin():
            return fn(session, *args)

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.executor, self.call, fn, *args)

    async def commit(self, *args: Any) -> None:
        """:func:`commit_action` with group commit: actions of different tables that arrive
        while a transaction is being written share the next transaction (one fsync). Each
        caller returns only once its own action is committed; a failed group is retried
        one action at a time, so one table's failure is not another's."""
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        self._batch.append((args, done))
        if not self._draining:
            self._draining = True
            self._drainer = loop.create_task(self._drain())
        await done

    async def _drain(self) -> None:
        try:
            while self._batch:
                batch, self._batch = self._batch[:MAX_GROUP], self._batch[MAX_GROUP:]
                try:
                    await self.run(_commit_group, [args for args, _ in batch])
                except Exception as exc:
                    if len(batch) == 1:
                        _settle(batch[0][1], exc)
                        continue
                    for args, fut in batch:
                        try:
                            await self.run(commit_action, *args)
                        except Exception as one:
                            _settle(fut, one)
                        else:
                            _settle(fut, None)
                    continue
                for _, fut in batch:
                    _settle(fut, None)
        finally:
            self._draining = False

    def close(self) -> None:
        self.executor.shutdown(wait=True)
        self.engine.dispose()


MAX_GROUP = 64  # actions per group commit


def _settle(fut: asyncio.Future[None], exc: BaseException | None) -> None:
    if fut.done():
        return
    if exc is None:
        fut.set_result(None)
    else:
        fut.set_exception(exc)


def now() -> float:
    return time.time()


# ------------------------------------------------------------------ queries (sync)


class Fenced(Exception):
    """A write by a process that no longer owns the table: its fencing token is not the
    table's (another process took the table over). Nothing of the transaction is kept."""


def check_fence(session: Session, table_id: str, fence: int | None,
                values: dict[str, Any] | None = None) -> None:
    """The table row's update (``values``, if any) that also proves the writer still owns
    the table: with a token, the row must hold that token, else :class:`Fenced`. It locks
    the row until the transaction ends, so a takeover's bump (:func:`claim_fence`) waits
    for a commit in flight and the commit after it sees the new token."""
    update_tables(session, [(table_id, fence, values or {})])


def _row_updates(updates: list[tuple[str, int | None, dict[str, Any]]]
                 ) -> dict[tuple[bool, tuple[str, ...]], list[dict[str, Any]]]:
    """Table row updates (id, fencing token or None, values) grouped by (fenced?, column
    names): each group is one statement's executemany parameters (``_id``, ``_fence``)."""
    groups: dict[tuple[bool, tuple[str, ...]], list[dict[str, Any]]] = {}
    for table_id, fence, values in updates:
        if fence is None and not values:
            continue
        values = values or {"fence": fence}
        groups.setdefault((fence is not None, tuple(sorted(values))), []).append(
            {"_id": table_id, "_fence": fence, **values})
    return groups


def _fenced(rows: list[dict[str, Any]], done: int) -> None:
    if done != len(rows):
        raise Fenced(rows[0]["_id"] if len(rows) == 1 else f"one of {len(rows)} tables")


def update_tables(session: Session,
                  updates: list[tuple[str, int | None, dict[str, Any]]]) -> None:
    """Several table rows' updates (id, fencing token or None, values), each :func:`check_fence`
    for its row, in one statement per set of column names sent as one executemany. Raises
    :class:`Fenced` unless every fenced row still held its token."""
    table = _table(TableRow)
    for (fenced, columns), rows in _row_updates(updates).items():
        stmt = update(table).where(table.c.id == bindparam("_id"))
        if fenced:
            stmt = stmt.where(table.c.fence == bindparam("_fence"))
        done = session.connection().execute(
            stmt.values({c: bindparam(c) for c in columns}), rows).rowcount
        if fenced:
            _fenced(rows, done)


def _commit_group_pipelined(session: Session, items: list[tuple[Any, ...]]) -> None:
    """:func:`_commit_group` on PostgreSQL: the table rows' updates and the actions' and
    events' inserts go in one psycopg pipeline, so the group costs two round trips (the
    pipeline, the COMMIT) instead of six. Round trips cost more than their count suggests:
    the worker thread waits for the GIL after each one, and on a busy machine for a core
    and for PostgreSQL's backend to be scheduled, so a group of 8 tables took 50-90 ms
    with the event loop busy (docs/server.md, "Load benchmark"). The fencing tokens are
    checked from the update counts after the pipeline's sync; a stale one raises
    :class:`Fenced` and the transaction is rolled back, so nothing of the group is kept."""
    conn = session.connection().connection.driver_connection
    assert isinstance(conn, psycopg.Connection)
    updates = _row_updates([(item[0], item[5] if len(item) > 5 else None, item[3])
                            for item in items])
    checks: list[tuple[psycopg.Cursor[Any], list[dict[str, Any]]]] = []
    with conn.pipeline() as pipe:
        for (fenced, columns), rows in updates.items():
            cur = conn.cursor()
            cur.executemany(_pg_update(columns, fenced), rows)
            if fenced:
                checks.append((cur, rows))
        writes = conn.cursor()
        writes.executemany(*_pg_insert(ActionRow, [item[1] for item in items]))
        events = [e for item in items for e in item[2]]
        if events:
            writes.executemany(*_pg_insert(EventRow, events))
        pipe.sync()
    for cur, rows in checks:
        _fenced(rows, cur.rowcount)
    for item in items:
        if len(item) > 4 and item[4] is not None:
            item[4](session)


def _pg_update(columns: tuple[str, ...], fenced: bool) -> psql.Composed:
    """UPDATE game_tables SET <columns> WHERE id = %(_id)s [AND fence = %(_fence)s]."""
    sets = psql.SQL(", ").join(psql.SQL("{} = {}").format(psql.Identifier(c), psql.Placeholder(c))
                               for c in columns)
    where = psql.SQL("id = %(_id)s") + (psql.SQL(" AND fence = %(_fence)s") if fenced
                                        else psql.SQL(""))
    return psql.SQL("UPDATE {} SET {} WHERE {}").format(
        psql.Identifier(TableRow.__tablename__), sets, where)


def _pg_insert(entity: type[Base], rows: list[dict[str, Any]]
               ) -> tuple[psql.Composed, list[dict[str, Any]]]:
    """INSERT INTO <entity's table> (<the rows' keys>) and the rows, its JSON columns as
    psycopg's Json (stored as SQLAlchemy's JSON type stores them: json.dumps text)."""
    table = _table(entity)
    columns = list(rows[0])
    json_columns = [c for c in columns if isinstance(table.c[c].type, JSON)]
    if json_columns:
        rows = [{**row, **{c: Json(row[c]) for c in json_columns}} for row in rows]
    stmt = psql.SQL("INSERT INTO {} ({}) VALUES ({})").format(
        psql.Identifier(table.name), psql.SQL(", ").join(map(psql.Identifier, columns)),
        psql.SQL(", ").join(map(psql.Placeholder, columns)))
    return stmt, rows


def _table(entity: type[Base]) -> TableClause:
    """An entity's table, for Core statements: a group's rows inserted or updated in one
    executemany without the ORM's per-row bookkeeping (which took most of the commit
    thread's time, and its GIL, under load)."""
    return cast("TableClause", entity.__table__)


def claim_fence(session: Session, table_id: str, statuses: tuple[str, ...]) -> int | None:
    """Take a table over: bump its fencing token (None if it is not in ``statuses``)."""
    row = session.execute(
        update(TableRow).where(TableRow.id == table_id, TableRow.status.in_(statuses))
        .values(fence=TableRow.fence + 1).returning(TableRow.fence)).first()
    return None if row is None else int(row[0])


def commit_action(
    session: Session,
    table_id: str,
    action: dict[str, Any],
    events: list[dict[str, Any]],
    table: dict[str, Any],
    more: Callable[[Session], None] | None = None,
    fence: int | None = None,
) -> None:
    """One accepted action, its events and the table's new counters: one transaction; with
    ``more`` writes in it, if any (the ladder result the action closed, so it counts
    exactly once: :func:`gunzi.server.ladder_db.writer`). With ``fence`` (several
    processes), the table row is updated first and only if it still holds that token."""
    check_fence(session, table_id, fence, table)
    session.execute(insert(_table(ActionRow)), [action])
    if events:
        session.execute(insert(_table(EventRow)), events)
    if more is not None:
        more(session)


def _commit_group(session: Session, items: list[tuple[Any, ...]]) -> None:
    """Several tables' actions in one transaction (at most one action per table)."""
    if session.get_bind().dialect.name == "postgresql":
        _commit_group_pipelined(session, items)
        return
    if len(items) == 1:
        commit_action(session, *items[0])
        return
    update_tables(session, [(item[0], item[5] if len(item) > 5 else None, item[3])
                            for item in items])
    session.execute(insert(_table(ActionRow)), [item[1] for item in items])
    events = [e for item in items for e in item[2]]
    if events:
        session.execute(insert(_table(EventRow)), events)
    for item in items:
        if len(item) > 4 and item[4] is not None:
            item[4](session)


def load_actions(session: Session, table_id: str) -> list[ActionRow]:
    rows = session.scalars(
        select(ActionRow).where(ActionRow.table_id == table_id).order_by(ActionRow.n)
    )
    return list(rows)


def load_events(session: Session, table_id: str, start: int = 1) -> list[EventRow]:
    rows = session.scalars(
        select(EventRow)
        .where(EventRow.table_id == table_id, EventRow.v >= start)
        .order_by(EventRow.v)
    )
    return list(rows)
