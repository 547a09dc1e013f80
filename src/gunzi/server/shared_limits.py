"""Limits of a hall run on several processes, counted in Redis (docs/deploy.md, "Limits
across processes").

**Counts** (open sockets per user and per address, tables in the hall and per user): each
process keeps its own count of a thing (``ws:u:7``) as it does alone, and publishes it to a
Redis hash ``{prefix}count:{name}``, one field per process: ``"<seq> <n> <expires ms>"``.

- A new socket or table is checked and counted in **one Lua call**: the live fields of the
  other processes plus ours (counting the new one) must stay within the limit; if they do,
  ours is written, else nothing is. Two processes cannot both take the last place.
- A field is live until its *expires* (Redis's clock): written with every change and
  rewritten for all our counts every ``ttl / 3`` s (:meth:`SharedCounts.renew`), so the
  counts of a process that died (or lost Redis) stop counting within one lease (``ttl``)
  and are deleted by the next call that reads them. The hash itself expires ``ttl`` after
  its last write, so nothing is left behind.
- Every value is this process's *whole* count, stamped with a sequence number taken when it
  was read; a write older than the stored one is ignored. Writes that cross on different
  connections, or that failed, therefore leave a wrong count for a renewal round at most
  (a lease, for a count that has gone to 0 meanwhile: it is not renewed, it expires).

**Windows** (room-code lookups, new accounts, record uploads per address): a sorted set of
the hall's events in the last window per key, checked and counted in one Lua call.

Redis unreachable: a check is not refused for it; the caller's own count in this process,
made first as with one process, is the limit meanwhile (logged, and counted in
``gunzi_limits_unshared_total``).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import structlog
from redis.asyncio import Redis

log = structlog.get_logger("gunzi.limits")

BATCH = 500  # counts per Lua call of a renewal round

_COMMON = """
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function parse(v)
  local seq, n, exp = string.match(v or '', '^(%d+) (%d+) (%d+)$')
  return tonumber(seq), tonumber(n), tonumber(exp)
end
local function newer(key, me, seq)  -- is seq newer than our stored count? and that count
  local s, n = parse(redis.call('HGET', key, me))
  return s == nil or s < seq, n
end
local function put(key, me, seq, n, now, ttl)
  redis.call('HSET', key, me, string.format('%d %d %d', seq, n, now + ttl))
  if redis.call('PTTL', key) < ttl then redis.call('PEXPIRE', key, ttl) end
end
local me, ttl, now = ARGV[1], tonumber(ARGV[2]), now_ms()
"""

# KEYS: counts; ARGV: me, ttl ms, then per key seq, our count with the new one, limit.
# 0 if every count is within its limit (ours written), else the first key's number.
TAKE = _COMMON + """
local function others(key)  -- the live counts of the other processes; dead ones deleted
  local sum, all = 0, redis.call('HGETALL', key)
  for i = 1, #all, 2 do
    if all[i] ~= me then
      local _, n, exp = parse(all[i + 1])
      if exp and exp > now then sum = sum + n else redis.call('HDEL', key, all[i]) end
    end
  end
  return sum
end
local fresh = {}
for i, key in ipairs(KEYS) do
  local seq, n = tonumber(ARGV[3 * i]), tonumber(ARGV[3 * i + 1])
  local new, stored = newer(key, me, seq)
  if not new then n = stored end  -- a later count of ours (with this one) is there
  if others(key) + n > tonumber(ARGV[3 * i + 2]) then return i end
  fresh[i] = new
end
for i, key in ipairs(KEYS) do
  if fresh[i] then put(key, me, tonumber(ARGV[3 * i]), tonumber(ARGV[3 * i + 1]), now, ttl) end
end
return 0
"""

# KEYS: counts; ARGV: me, ttl ms, then per key seq, our count. Writes the newer ones.
PUT = _COMMON + """
for i, key in ipairs(KEYS) do
  local seq = tonumber(ARGV[2 * i + 1])
  if newer(key, me, seq) then put(key, me, seq, tonumber(ARGV[2 * i + 2]), now, ttl) end
end
return 0
"""

# KEYS[1]: a window's sorted set; ARGV: limit, window ms, a unique member. 1: counted.
WINDOW = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[2]))
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now, ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
"""

Ask = tuple[str, int, int]  # a count's name, our count with the new thing, its limit
Source = Callable[[], Mapping[str, int]]  # some of this process's counts, by name


class SharedCounts:
    """This process's counts (``me``) in the hall's Redis (``prefix``)."""

    def __init__(self, redis: Redis, prefix: str, me: str, ttl: float,
                 unshared: Callable[[str], None] | None = None) -> None:
        self.redis = redis
        self.prefix = f"{prefix}count:"
        self.me = me
        self.ttl_ms = max(1, int(ttl * 1000))
        self.unshared = unshared or (lambda _what: None)
        self.sources: list[Source] = []  # every count of ours, read by each renewal
        self.seq = 0
        self.dirty: dict[str, tuple[int, int]] = {}  # name -> (seq, count): to publish
        self.flushing: asyncio.Task[None] | None = None
        self.renewed: set[str] = set()  # names written by the last renewal
        self.groups: dict[str, dict[str, int]] = {}  # publish_group's last counts
        self._take: Any = redis.register_script(TAKE)
        self._put: Any = redis.register_script(PUT)

    def key(self, name: str) -> str:
        return self.prefix + name

    def _stamp(self) -> int:
        self.seq += 1
        return self.seq

    async def take(self, asks: Sequence[Ask]) -> int | None:
        """Check and count in one step: is each count (ours, with the new thing, plus the
        other processes') within its limit? Then ours are written and None is returned;
        else the index of the first that is not (nothing written). Redis unreachable: None
        (this process's own count, checked by the caller, stands alone)."""
        if not asks:
            return None
        seq = self._stamp()
        args: list[Any] = [self.me, self.ttl_ms]
        for _name, n, limit in asks:
            args += [seq, n, limit]
        try:
            got = int(await self._take(keys=[self.key(a[0]) for a in asks], args=args))
        except Exception as exc:
            self._failed("take", exc)
            return None
        return got - 1 if got else None

    def publish(self, counts: Mapping[str, int]) -> None:
        """Our counts are now these (0: none): written soon, several changes in one call."""
        for name, n in counts.items():
            self.dirty[name] = (self._stamp(), n)
        if self.dirty and (self.flushing is None or self.flushing.done()):
            with contextlib.suppress(RuntimeError):  # no running loop: the renewal writes it
                self.flushing = asyncio.get_running_loop().create_task(self._flush())

    def publish_group(self, group: str, counts: Mapping[str, int]) -> None:
        """All our counts of one group (one hall's tables) are now these: the changed ones
        are written soon, those gone as 0."""
        last = self.groups.get(group, {})
        changed = {name: n for name, n in counts.items() if last.get(name) != n}
        changed.update((name, 0) for name in last.keys() - counts.keys())
        self.groups[group] = dict(counts)
        self.publish(changed)

    async def _flush(self) -> None:
        while self.dirty:
            batch, self.dirty = self.dirty, {}
            try:
                await self._write(batch)
            except Exception as exc:  # the next renewal writes them, or they expire
                self._failed("publish", exc)

    async def renew(self) -> None:
        """Write every count of ours again (their expiry moves on); counts gone since the
        last round are written as 0."""
        now: dict[str, int] = {}
        for source in self.sources:
            now.update((name, n) for name, n in source().items() if n > 0)
        seq = self._stamp()
        batch = {name: (seq, n) for name, n in now.items()}
        batch.update((name, (seq, 0)) for name in self.renewed - now.keys())
        self.renewed = set(now)
        try:
            await self._write(batch)
        except Exception as exc:
            self._failed("renew", exc)

    async def _write(self, batch: Mapping[str, tuple[int, int]]) -> None:
        items = list(batch.items())
        for i in range(0, len(items), BATCH):
            chunk = items[i:i + BATCH]
            args: list[Any] = [self.me, self.ttl_ms]
            for _name, (seq, n) in chunk:
                args += [seq, n]
            await self._put(keys=[self.key(name) for name, _ in chunk], args=args)

    async def drop(self) -> None:
        """Graceful stop: our counts leave the hall's at once (not a lease later)."""
        names = set(self.renewed) | set(self.dirty)
        for source in self.sources:
            names.update(source())
        self.sources.clear()
        self.dirty.clear()
        try:
            async with self.redis.pipeline(transaction=False) as pipe:
                for name in names:
                    pipe.hdel(self.key(name), self.me)
                await pipe.execute()
        except Exception as exc:  # they expire by themselves
            self._failed("drop", exc)

    def _failed(self, what: str, exc: Exception) -> None:
        self.unshared(what)
        log.warning("shared_count_failed", step=what, error=type(exc).__name__)


class SharedWindows:
    """Sliding windows of events per key, shared by the hall's processes."""

    def __init__(self, redis: Redis, prefix: str, me: str,
                 unshared: Callable[[str], None] | None = None) -> None:
        self.redis = redis
        self.prefix = f"{prefix}window:"
        self.me = me
        self.unshared = unshared or (lambda _what: None)
        self.seq = 0
        self._window: Any = redis.register_script(WINDOW)

    async def allow(self, name: str, key: str, limit: int, window: float) -> bool | None:
        """Count one event of ``key`` in the window ``name`` unless the hall has had
        ``limit`` in the last ``window`` s (False); None: Redis unreachable, not counted."""
        self.seq += 1
        try:
            got = await self._window(keys=[f"{self.prefix}{name}:{key}"],
                                     args=[limit, max(1, int(window * 1000)),
                                           f"{self.me}/{self.seq}"])
        except Exception as exc:
            self.unshared(name)
            log.warning("shared_window_failed", window=name, error=type(exc).__name__)
            return None
        return bool(int(got))
