"""Per-client limits the hall process keeps in memory: open sockets per user and per
address, room-code lookups per address, the sliding-window :class:`Throttle` the
other in-memory limits use (new accounts, uploads, chat), and request body sizes.

Each check and its count happen in one synchronous step (no ``await`` between them),
so concurrent handshakes or lookups on the event loop cannot overshoot a limit.
Loopback addresses are exempt from the per-address limits (tests, the load benchmark,
and a reverse proxy that does not pass the client's address); per-user limits apply.
"""

from __future__ import annotations

import ipaddress
import time
from collections import Counter, deque
from collections.abc import Callable

from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gunzi.server.settings import Settings


def is_loopback(ip: str) -> bool:
    try:
        return ipaddress.ip_address(ip).is_loopback
    except ValueError:
        return False


class Throttle:
    """At most ``limit`` events per key in a sliding window."""

    def __init__(self, limit: int, window: float) -> None:
        self.limit = limit
        self.window = window
        self.hits: dict[str, deque[float]] = {}

    def blocked(self, key: str) -> bool:
        q = self.hits.get(key)
        if not q:
            return False
        cutoff = time.monotonic() - self.window
        while q and q[0] < cutoff:
            q.popleft()
        if not q:
            del self.hits[key]
        return len(q) >= self.limit

    def hit(self, key: str) -> None:
        self.hits.setdefault(key, deque()).append(time.monotonic())
        if len(self.hits) > 100_000:  # bound memory under a spray of keys
            self.hits.clear()


class Limits:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.by_user: Counter[int] = Counter()
        self.by_ip: Counter[str] = Counter()
        self.lookups = Throttle(settings.code_lookups_per_minute, 60.0)

    def open_socket(self, user_id: int | None, ip: str) -> str | None:
        """Count a new socket, or say why it is refused (and count nothing)."""
        s = self.settings
        if user_id is not None and self.by_user[user_id] >= s.ws_per_user:
            return f"at most {s.ws_per_user} open sockets per user"
        if not is_loopback(ip) and self.by_ip[ip] >= s.ws_per_ip:
            return f"at most {s.ws_per_ip} open sockets per address"
        if user_id is not None:
            self.by_user[user_id] += 1
        self.by_ip[ip] += 1
        return None

    def close_socket(self, user_id: int | None, ip: str) -> None:
        if user_id is not None:
            self.by_user[user_id] -= 1
            if self.by_user[user_id] <= 0:
                del self.by_user[user_id]
        self.by_ip[ip] -= 1
        if self.by_ip[ip] <= 0:
            del self.by_ip[ip]

    def lookup_code(self, ip: str) -> bool:
        """Count a room-code lookup; False when the address has made too many."""
        if is_loopback(ip):
            return True
        if self.lookups.blocked(ip):
            return False
        self.lookups.hit(ip)
        return True


class BodyLimit:
    """ASGI middleware: a request body is at most ``limit_for(path)`` bytes, declared
    (Content-Length) or streamed; a larger one is answered 413 before the route runs.

    The body is read here, up to the limit, and handed on whole: every route parses
    JSON it has in memory anyway, and a route never sees a body it must cut short."""

    def __init__(self, app: ASGIApp, limit_for: Callable[[str], int]) -> None:
        self.app = app
        self.limit_for = limit_for

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        limit = self.limit_for(scope["path"])
        declared = Headers(scope=scope).get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            await _too_large(limit)(scope, receive, send)
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client went away
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                await _too_large(limit)(scope, receive, send)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


def _too_large(limit: int) -> JSONResponse:
    return JSONResponse({"detail": {"code": "body_too_large",
                                    "message": f"the request body is larger than {limit:,} bytes"}},
                        status_code=413)
