"""News every process of a hall hears (several processes, docs/deploy.md): Redis pub/sub on
one channel, ``{prefix}news``.

Today one kind of news travels: a player's ladder total changed (a rated hand ended at a
table of one process), so every other process drops that player's cached total and the
tables it plays where the player sits show the new title at once. Pub/sub delivers only
to processes listening at that moment: after the subscription is lost and made again,
messages may have been missed, so every listener's ``gap`` handler runs (the ladder cache
is emptied whole). A process never acts on its own messages (its caller already did).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable
from typing import Any

import structlog
from redis.asyncio import Redis

log = structlog.get_logger("gunzi.news")

Handler = Callable[[dict[str, Any]], None]


class News:
    """One process's end of the hall's news channel."""

    def __init__(self, url: str, prefix: str, me: str) -> None:
        # A connection of its own: the lease client's short socket timeout would end an
        # idle subscription every second.
        self.redis: Redis = Redis.from_url(url, socket_connect_timeout=1.0,
                                           health_check_interval=15)
        self.channel = f"{prefix}news"
        self.me = me
        self.handlers: dict[str, list[Handler]] = {}
        self.gaps: list[Callable[[], None]] = []
        self.subscribed = asyncio.Event()
        self.closed = False

    def on(self, kind: str, handler: Handler, gap: Callable[[], None]) -> None:
        """Call ``handler(body)`` for each ``kind`` message of another process, and ``gap()``
        when messages may have been missed."""
        self.handlers.setdefault(kind, []).append(handler)
        self.gaps.append(gap)

    async def publish(self, kind: str, body: dict[str, Any]) -> None:
        """Tell the other processes; Redis away: logged, not raised (the news is a cache's
        refresh, never a correctness matter)."""
        try:
            await self.redis.publish(self.channel,
                                     json.dumps({"kind": kind, "from": self.me, **body}))
        except Exception as exc:
            log.warning("news_publish_failed", kind=kind, error=type(exc).__name__)

    async def listen(self) -> None:
        """Receive until cancelled or closed; a lost subscription is made again after a
        second. Closing ends it too: the Redis client's pub/sub has been seen to absorb a
        cancellation, and the loop then retried against the closed client for ever, so a
        shutting-down process never finished (CI, a hand-over test's third process)."""
        first = True
        while not self.closed:
            try:
                async with self.redis.pubsub() as pubsub:
                    await pubsub.subscribe(self.channel)
                    if not first:
                        for gap in self.gaps:
                            gap()
                    first = False
                    self.subscribed.set()
                    async for message in pubsub.listen():
                        if message.get("type") == "message":
                            self._deliver(message["data"])
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                self.subscribed.clear()
                if self.closed:
                    return
                log.warning("news_subscription_lost", error=type(exc).__name__)
                await asyncio.sleep(1.0)

    def _deliver(self, raw: bytes | str) -> None:
        try:
            body = json.loads(raw)
        except ValueError:
            return
        if not isinstance(body, dict) or body.get("from") == self.me:
            return
        for handler in self.handlers.get(str(body.get("kind")), []):
            try:
                handler(body)
            except Exception as exc:  # one handler's failure is not the channel's
                log.warning("news_handler_failed", kind=body.get("kind"),
                            error=type(exc).__name__)

    async def close(self) -> None:
        self.closed = True
        with contextlib.suppress(Exception):
            await self.redis.aclose()
