"""Per-client limits the hall process keeps in memory: open sockets per user and per
address, room-code lookups per address, and the sliding-window :class:`Throttle` the
other in-memory limits use (new accounts, uploads, chat).

Each check and its count happen in one synchronous step (no ``await`` between them),
so concurrent handshakes or lookups on the event loop cannot overshoot a limit.
Loopback addresses are exempt from the per-address limits (tests, the load benchmark,
and a reverse proxy that does not pass the client's address); per-user limits apply.
"""

from __future__ import annotations

import ipaddress
import time
from collections import Counter, deque

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
