"""Table leases in Redis: which hall process owns a table (docs/deploy.md).

A lease is a key ``{prefix}lease:{table}`` set with ``SET NX PX`` to the owner's process id
and renewed by the owner; renewal and release are Lua scripts that act only while the key
still holds the caller's id, so a process never extends or drops another's lease.

A lease alone is not mutual exclusion (a paused process, a Redis failover): the owner also
holds the table's fencing token, bumped in the database when it took the table
(:func:`gunzi.server.db.claim_fence`) and checked by every write of a play
(:func:`gunzi.server.db.check_fence`). The lease decides who *should* play a table; the
token decides whose writes are kept.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from redis.asyncio import Redis

# KEYS: lease keys; ARGV[1]: our id, ARGV[2]: ttl ms. Per key 1 if renewed, 0 if not ours.
RENEW = """
local out = {}
for i, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[1] then
    redis.call('PEXPIRE', key, ARGV[2])
    out[i] = 1
  else
    out[i] = 0
  end
end
return out
"""

# KEYS: lease keys; ARGV[1]: our id. Deletes the keys that are still ours; how many.
RELEASE = """
local n = 0
for _, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[1] then
    redis.call('DEL', key)
    n = n + 1
  end
end
return n
"""


class Leases:
    """The lease keys of one hall (``prefix``) as seen by the process ``me``."""

    def __init__(self, redis: Redis, prefix: str, me: str, ttl: float) -> None:
        self.redis = redis
        self.prefix = prefix
        self.me = me
        self.ttl_ms = max(1, int(ttl * 1000))
        self._renew: Any = redis.register_script(RENEW)
        self._release: Any = redis.register_script(RELEASE)

    def key(self, table_id: str) -> str:
        return f"{self.prefix}lease:{table_id}"

    async def acquire(self, table_id: str) -> bool:
        """Take the table's lease if nobody holds it."""
        return bool(await self.redis.set(self.key(table_id), self.me, nx=True, px=self.ttl_ms))

    async def renew(self, table_ids: Iterable[str]) -> dict[str, bool]:
        """Extend our leases by the ttl; per table, whether it was still ours."""
        ids = list(table_ids)
        if not ids:
            return {}
        got = await self._renew(keys=[self.key(t) for t in ids], args=[self.me, self.ttl_ms])
        return {t: bool(int(ok)) for t, ok in zip(ids, got, strict=True)}

    async def release(self, table_ids: Iterable[str]) -> int:
        """Drop those of these leases that are still ours; how many were."""
        keys = [self.key(t) for t in table_ids]
        return int(await self._release(keys=keys, args=[self.me])) if keys else 0

    async def owners(self, table_ids: list[str]) -> dict[str, str | None]:
        """Who holds each table's lease (None: nobody, the table is free to take)."""
        if not table_ids:
            return {}
        got = await self.redis.mget([self.key(t) for t in table_ids])
        return {t: None if v is None else (v.decode() if isinstance(v, bytes) else str(v))
                for t, v in zip(table_ids, got, strict=True)}
