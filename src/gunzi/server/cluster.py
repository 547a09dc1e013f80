"""One hall on several processes (docs/deploy.md): this process's leases, their renewal, the
takeover of tables nobody owns, and the hand-over at a graceful shutdown.

Each live table is played by the one process holding its lease (:mod:`gunzi.server.leases`)
and its fencing token. Here:

- **Renewal.** Every ``lease_ttl / 3`` s (or ``lease_margin / 2``, if less) all our leases
  are renewed in one Lua call. A table's claim is good until *(the time the last successful
  renewal was sent) + lease_ttl - lease_margin*, on this process's monotonic clock: a
  process cut off from Redis stops playing a table before its lease can expire and another take it
  (:meth:`Cluster.valid`, checked before every commit; the tables are dropped when it
  passes). A renewal answered "not yours" drops the table at once.
- **Takeover.** Every ``lease_scan`` s each hall lists its live tables in the database and
  takes those whose lease is free (:meth:`gunzi.server.halls.BaseHall.take_free`): the
  lease, then a bumped fencing token and the stored actions in one transaction, then the
  replay every restart does.
- **Lobby.** With each scan every process publishes its public live tables to Redis; a
  lobby list is this process's tables and the others' last published ones.
- **Limits.** The socket caps, the table limits and the per-address windows are counted
  for the whole hall in Redis (:mod:`gunzi.server.shared_limits`); our counts are written
  again every ``lease_ttl / 3`` s and expire a lease after we stop.
- **Hand-over.** At SIGTERM the tables stop (each under its lock, so no commit is in
  flight), the leases are released and the sockets closed: their clients reconnect to
  another process, which takes the tables at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import structlog
from redis.asyncio import Redis

from gunzi.server.leases import Leases
from gunzi.server.news import News
from gunzi.server.shared_limits import SharedCounts, SharedWindows

if TYPE_CHECKING:
    from gunzi.server.metrics import Metrics
    from gunzi.server.settings import Settings

log = structlog.get_logger("gunzi.cluster")

MOVED = 4010  # WebSocket close code: the table is played by another process (reason: its node)


def node_of(owner: str) -> str:
    """The node name in a lease holder's id (``node/random``)."""
    return owner.split("/", 1)[0]


class Cluster:
    """This process's part of a hall run on several processes."""

    def __init__(self, settings: Settings, metrics: Metrics) -> None:
        assert settings.redis_url is not None
        self.settings = settings
        self.metrics = metrics
        self.node = settings.node_name
        self.me = f"{self.node}/{secrets.token_hex(4)}"
        self.ttl = settings.lease_ttl
        timeout = min(1.0, self.ttl / 4)
        self.redis: Redis = Redis.from_url(settings.redis_url, socket_timeout=timeout,
                                           socket_connect_timeout=timeout)
        self.leases = Leases(self.redis, settings.redis_prefix, self.me, self.ttl)
        self.news = News(settings.redis_url, settings.redis_prefix, self.me)

        def unshared(step: str) -> None:
            metrics.unshared.labels(step).inc()

        self.counts = SharedCounts(self.redis, settings.redis_prefix, self.me, self.ttl,
                                   unshared)
        self.windows = SharedWindows(self.redis, settings.redis_prefix, self.me, unshared)
        self.until: dict[str, float] = {}  # table -> monotonic end of our claim on it
        self.renewed_at = time.monotonic()  # the last renewal round that reached Redis
        self.closing = False
        self.scans: list[Callable[[], Awaitable[None]]] = []  # each hall's take_free
        self.drops: list[Callable[[str, str], None]] = []  # each hall's lost(table id, why)
        self.lobbies: dict[str, Callable[[], list[dict[str, Any]]]] = {}  # kind -> tables
        self.tasks: list[asyncio.Task[Any]] = []

    # ------------------------------------------------------------------ leases
    def valid(self, table_id: str) -> bool:
        """May this process still write to the table (its claim has not run out)?"""
        return not self.closing and time.monotonic() < self.until.get(table_id, 0.0)

    async def acquire(self, table_id: str) -> bool:
        """Take the table's lease if it is free."""
        if self.closing:
            return False
        t0 = time.monotonic()
        if not await self.leases.acquire(table_id):
            return False
        self.until[table_id] = t0 + self.ttl - self.settings.lease_margin
        self.metrics.leases.set(len(self.until))
        return True

    def forget(self, table_id: str) -> None:
        """The table left this process: stop renewing it and release its lease (if it is
        still ours)."""
        if self.until.pop(table_id, None) is None:
            return
        self.metrics.leases.set(len(self.until))
        task = asyncio.get_running_loop().create_task(self._release([table_id]))
        self.tasks.append(task)
        task.add_done_callback(self.tasks.remove)

    async def _release(self, table_ids: list[str]) -> None:
        try:
            await self.leases.release(table_ids)
        except Exception as exc:  # Redis away: the leases run out by themselves
            log.warning("lease_release_failed", tables=len(table_ids), error=type(exc).__name__)

    async def owner(self, table_id: str) -> str | None:
        """The node holding the table's lease (None: free)."""
        holder = (await self.leases.owners([table_id]))[table_id]
        return None if holder is None else node_of(holder)

    async def renew(self) -> None:
        """One renewal round; tables whose claim is lost or has run out are dropped."""
        ids = list(self.until)
        t0 = time.monotonic()
        try:
            got = await self.leases.renew(ids)
        except Exception as exc:
            self.metrics.renew_failures.inc()
            log.warning("lease_renew_failed", tables=len(ids), error=type(exc).__name__)
            got = {}
        else:
            self.renewed_at = t0
            for table_id, ok in got.items():
                if ok and table_id in self.until:
                    self.until[table_id] = t0 + self.ttl - self.settings.lease_margin
        now = time.monotonic()
        for table_id in ids:
            if got.get(table_id) is False:
                self._drop(table_id, "lease taken")
            elif self.until.get(table_id, now) < now:
                self._drop(table_id, "lease not renewed")

    def _drop(self, table_id: str, why: str) -> None:
        self.until.pop(table_id, None)
        self.metrics.leases.set(len(self.until))
        for drop in self.drops:
            drop(table_id, why)

    @property
    def renewing(self) -> bool:
        """Readiness: the last renewal round reached Redis within a lease's margin."""
        return not self.closing and time.monotonic() - self.renewed_at < self.ttl / 3 + \
            self.settings.lease_margin

    # ------------------------------------------------------------------ loops
    def start(self) -> None:
        loop = asyncio.get_running_loop()
        # Renewed every ttl/3; checked at least every margin/2, so a table whose claim ran
        # out (Redis unreachable) is dropped well before its lease can expire.
        period = min(self.ttl / 3, self.settings.lease_margin / 2)
        self.tasks.append(loop.create_task(self._every(period, self.renew)))
        self.tasks.append(loop.create_task(self._every(self.settings.lease_scan, self._scan)))
        self.tasks.append(loop.create_task(self._every(self.ttl / 3, self.counts.renew)))
        self.tasks.append(loop.create_task(self.news.listen()))
        log.info("cluster_started", owner=self.me)

    async def _scan(self) -> None:
        for scan in self.scans:
            await scan()
        for kind, tables in self.lobbies.items():
            await self.redis.hset(f"{self.settings.redis_prefix}lobby:{kind}", self.node,
                                  json.dumps({"at": time.time(), "tables": tables()}))

    async def lobby(self, kind: str) -> list[dict[str, Any]]:
        """The public tables of one kind the other processes play, as they last published
        them (every ``lease_scan`` s; a process silent for longer than a lease is left
        out: it died, and its tables are listed again by whoever takes them)."""
        got = await self.redis.hgetall(f"{self.settings.redis_prefix}lobby:{kind}")
        fresh = time.time() - self.ttl
        out: list[dict[str, Any]] = []
        for node, raw in got.items():
            if (node.decode() if isinstance(node, bytes) else node) == self.node:
                continue
            entry = json.loads(raw)
            if entry["at"] >= fresh:
                out += entry["tables"]
        return out

    async def _every(self, period: float, step: Callable[[], Awaitable[None]]) -> None:
        while True:
            await asyncio.sleep(period)
            try:
                await step()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("cluster_step_failed", step=getattr(step, "__name__", "?"),
                            error=type(exc).__name__)

    async def hand_over(self, stop_tables: Callable[[], Awaitable[list[str]]]) -> None:
        """Graceful shutdown: stop taking tables, stop ours (``stop_tables``: their ids),
        release their leases so other processes take them at once."""
        if self.closing:
            return
        self.closing = True
        await self._stop_loops()
        ids = await stop_tables()
        held = [*ids, *(t for t in self.until if t not in ids)]  # every lease we still hold
        self.until.clear()
        await self._release(held)
        await self.counts.drop()
        log.info("tables_handed_over", tables=len(ids), owner=self.me)

    async def _stop_loops(self) -> None:
        """Cancel the renewal, scan and news loops and let them end (at most 2 s: never hang
        here) before their Redis clients close."""
        tasks = list(self.tasks)
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=2.0)

    async def close(self) -> None:
        self.closing = True
        await self._stop_loops()
        await self.news.close()
        with contextlib.suppress(Exception):
            await self.redis.aclose()
