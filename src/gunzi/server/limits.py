"""Per-client limits: open sockets per user and per address, room-code lookups per
address, the sliding-window :class:`Throttle` the other limits use (new accounts, uploads,
chat), and request body sizes.

Each check and its count in this process happen in one synchronous step (no ``await``
between them), so concurrent handshakes or lookups on the event loop cannot overshoot a
limit. With several processes (docs/deploy.md, "Limits across processes") the socket
caps and the per-address windows are then checked and counted against the whole hall in
Redis, again in one step (:mod:`gunzi.server.shared_limits`); Redis unreachable, this
process's count is the limit. Loopback addresses are exempt from the per-address limits
(tests, the load benchmark, and a reverse proxy that does not pass the client's address);
per-user limits apply.
"""

from __future__ import annotations

import contextlib
import ipaddress
import time
from collections import Counter, deque
from collections.abc import Callable

from starlette.datastructures import Headers
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gunzi.server.settings import Settings
from gunzi.server.shared_limits import SharedCounts, SharedWindows


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
        self.shared: tuple[SharedWindows, str] | None = None  # the hall's, and its name

    def share(self, windows: SharedWindows, name: str) -> None:
        """Count against the whole hall's events too (:meth:`allow`)."""
        self.shared = (windows, name)

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

    def hit(self, key: str) -> float:
        at = time.monotonic()
        self.hits.setdefault(key, deque()).append(at)
        if len(self.hits) > 100_000:  # bound memory under a spray of keys
            self.hits.clear()
        return at

    async def allow(self, key: str) -> bool:
        """Count an event unless ``key`` is over the limit: here (check and count in one
        step), then, when shared, in the hall's window (this process's alone while Redis is
        unreachable). A refused event is not counted."""
        if self.blocked(key):
            return False
        at = self.hit(key)
        if self.shared is None:
            return True
        windows, name = self.shared
        if await windows.allow(name, key, self.limit, self.window) is not False:
            return True
        with contextlib.suppress(KeyError, ValueError):
            self.hits[key].remove(at)
        return False


class Limits:
    def __init__(self, settings: Settings, shared: SharedCounts | None = None) -> None:
        self.settings = settings
        self.by_user: Counter[int] = Counter()
        self.by_ip: Counter[str] = Counter()
        self.lookups = Throttle(settings.code_lookups_per_minute, 60.0)
        self.shared = shared  # several processes: the hall's counts in Redis
        if shared is not None:
            shared.sources.append(self.socket_counts)

    async def open_socket(self, user_id: int | None, ip: str) -> str | None:
        """Count a new socket, or say why it is refused (and count nothing): in this
        process, then, with several, in the whole hall."""
        refused = self._open_here(user_id, ip)
        if refused is not None or self.shared is None:
            return refused
        s = self.settings
        asks = [] if user_id is None else [(_user(user_id), self.by_user[user_id],
                                            s.ws_per_user)]
        if not is_loopback(ip):
            asks.append((_ip(ip), self.by_ip[ip], s.ws_per_ip))
        try:
            bad = await self.shared.take(asks)
        except BaseException:  # cancelled: the handshake is gone
            self.close_socket(user_id, ip)
            raise
        if bad is None:
            return None
        self.close_socket(user_id, ip)
        return self._refusal(asks[bad][0].startswith("ws:ip:"))

    def _open_here(self, user_id: int | None, ip: str) -> str | None:
        s = self.settings
        if user_id is not None and self.by_user[user_id] >= s.ws_per_user:
            return self._refusal(False)
        if not is_loopback(ip) and self.by_ip[ip] >= s.ws_per_ip:
            return self._refusal(True)
        if user_id is not None:
            self.by_user[user_id] += 1
        self.by_ip[ip] += 1
        return None

    def _refusal(self, by_ip: bool) -> str:
        s = self.settings
        return (f"at most {s.ws_per_ip} open sockets per address" if by_ip
                else f"at most {s.ws_per_user} open sockets per user")

    def close_socket(self, user_id: int | None, ip: str) -> None:
        changed: dict[str, int] = {}
        if user_id is not None:
            self.by_user[user_id] -= 1
            changed[_user(user_id)] = max(0, self.by_user[user_id])
            if self.by_user[user_id] <= 0:
                del self.by_user[user_id]
        self.by_ip[ip] -= 1
        if not is_loopback(ip):
            changed[_ip(ip)] = max(0, self.by_ip[ip])
        if self.by_ip[ip] <= 0:
            del self.by_ip[ip]
        if self.shared is not None:
            self.shared.publish(changed)

    def socket_counts(self) -> dict[str, int]:
        """This process's open sockets per user and per (non-loopback) address, by the
        names of the hall's counts."""
        out = {_user(u): n for u, n in self.by_user.items()}
        out.update((_ip(ip), n) for ip, n in self.by_ip.items() if not is_loopback(ip))
        return out

    async def lookup_code(self, ip: str) -> bool:
        """Count a room-code lookup; False when the address has made too many."""
        return is_loopback(ip) or await self.lookups.allow(ip)


def _user(user_id: int) -> str:
    return f"ws:u:{user_id}"


def _ip(ip: str) -> str:
    return f"ws:ip:{ip}"


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


PROBES = ("/healthz", "/readyz")


class HostCheck:
    """ASGI middleware: Starlette's TrustedHostMiddleware (400 for a Host not in
    ``allowed_hosts``) for everything but the health probes. A proxy's or a supervisor's
    probe names the process, not the hall: HAProxy's ``option httpchk`` sends no Host at
    all, so with the check on every process looked down and the hall answered 503
    (docs/deploy.md). The probes tell nothing but whether the process is up."""

    def __init__(self, app: ASGIApp, allowed_hosts: list[str]) -> None:
        self.app = app
        self.checked = TrustedHostMiddleware(app, allowed_hosts=allowed_hosts)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] in PROBES:
            await self.app(scope, receive, send)
        else:
            await self.checked(scope, receive, send)
