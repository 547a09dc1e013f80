"""The WebSocket gateway: ``/ws/tables/{table_id}`` (see docs/protocol.md).

Per socket: the handshake's ``Origin`` must be the hall's own (or listed in
settings); a user may hold ``ws_per_user`` sockets and an address ``ws_per_ip``
(429 at the handshake); frames are text JSON of at most ``ws_max_size`` bytes
(close 1009) nested at most ``json_max_depth`` deep (close 1007); at most
``ws_rate_messages`` messages and ``ws_pings`` pings per ``ws_rate_window``
seconds (close 1008); a socket that cannot keep up with its frames is dropped
(close 1013) and resyncs on reconnect. One writer task per socket sends the
frames the table queues, so a slow client never blocks a table.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar
from urllib.parse import urlsplit

import structlog
from fastapi import WebSocket
from pydantic import ValidationError
from starlette.responses import Response
from starlette.websockets import WebSocketDisconnect

from gunzi.server import jsonsafe
from gunzi.server.auth import Accounts, Principal
from gunzi.server.cluster import MOVED
from gunzi.server.halls import BaseHall
from gunzi.server.limits import Limits
from gunzi.server.metrics import Metrics
from gunzi.server.presence import LIVE, SeatedTable, TableError, where
from gunzi.server.protocol import (
    CLIENT_MESSAGE,
    Act,
    AutoMessage,
    ChatMessage,
    Hello,
    HintRequest,
    Sync,
    dumps,
)
from gunzi.server.settings import Settings
from gunzi.server.tables import Hall, Table

log = structlog.get_logger("gunzi.ws")

T = TypeVar("T", bound=SeatedTable)


def origin_allowed(headers: Any, settings: Settings) -> bool:
    """The Origin of a browser handshake must be this server (or an allowed origin).

    Non-browser clients send no Origin; browsers always do on WebSockets, which is
    what cross-site WebSocket hijacking needs, so a missing Origin is accepted.
    """
    origin = headers.get("origin")
    if origin is None:
        return True
    origin = origin.strip().lower()
    if origin in (o.lower().rstrip("/") for o in settings.allowed_origins):
        return True
    if settings.public_url and origin == settings.public_url.lower().rstrip("/"):
        return True
    parts = urlsplit(origin)
    host = (headers.get("host") or "").strip().lower()
    return parts.scheme in ("http", "https") and bool(host) and parts.netloc == host


class RateLimit:
    def __init__(self, limit: int, window: float) -> None:
        self.limit = limit
        self.window = window
        self.times: deque[float] = deque()

    def allow(self) -> bool:
        now = time.monotonic()
        cutoff = now - self.window
        while self.times and self.times[0] < cutoff:
            self.times.popleft()
        if len(self.times) >= self.limit:
            return False
        self.times.append(now)
        return True


class Client:
    """One socket: implements :class:`gunzi.server.tables.Conn`."""

    def __init__(self, ws: WebSocket, principal: Principal | None, watch: bool,
                 settings: Settings, metrics: Metrics) -> None:
        self.ws = ws
        self.user_id = principal.user_id if principal else None
        self.name = principal.name if principal else None
        self.session_id = principal.session_id if principal else None
        self.watch = watch
        self.views = True
        self.seat: int | None = None
        self.limit = settings.ws_queue
        self.metrics = metrics
        self.queue: asyncio.Queue[str | tuple[int, str]] = asyncio.Queue()
        self.closing = False

    def send(self, text: str) -> None:
        if self.closing:
            return
        if self.queue.qsize() >= self.limit:
            while not self.queue.empty():
                self.queue.get_nowait()
            self.close(1013, "too slow: reconnect and resync")
            return
        self.queue.put_nowait(text)

    def close(self, code: int, reason: str) -> None:
        if self.closing:
            return
        self.closing = True
        self.metrics.ws_closed.labels(str(code)).inc()
        self.queue.put_nowait((code, reason))

    async def writer(self) -> None:
        while True:
            item = await self.queue.get()
            if isinstance(item, tuple):
                with contextlib.suppress(Exception):
                    await self.ws.close(item[0], item[1])
                return
            try:
                await self.ws.send_text(item)
            except Exception:
                self.closing = True
                return


Handler = Callable[[Client, T, Any], Awaitable[None]]  # (socket, table, message)


async def _deny(websocket: WebSocket, status: int) -> None:
    if "websocket.http.response" in websocket.scope.get("extensions", {}):
        await websocket.send_denial_response(Response(status_code=status))
    else:
        await websocket.close(code=1008)


def _error(code: str, message: str, **extra: Any) -> str:
    return dumps({"t": "error", "code": code, "message": message, **extra})


def client_ip(websocket: WebSocket) -> str:
    return websocket.client.host if websocket.client else "?"


async def table_socket(websocket: WebSocket, table_id: str) -> None:
    """``/ws/tables/{id}``: a card table by id or room code."""
    hall: Hall = websocket.app.state.hall
    await serve_socket(websocket, table_id, hall, seat_message)


async def find_table(hall: BaseHall[T], table_id: str) -> T | None:
    """A live table by id or room code, else one that is over (finished or abandoned),
    rebuilt read-only from the database: after a restart its socket still answers with
    its final state and status rather than "no such table". A stored table still marked
    live but not in the hall (one that did not restore) is not served."""
    table = hall.get(table_id) or hall.by_code(table_id)
    if table is None:
        try:
            table = await hall.cold(table_id)
        except Exception as exc:  # a stored table that does not replay: as if unknown
            log.error("ws_cold_failed", table=table_id[:24], **where(exc))
            return None
        if table is not None and table.status in LIVE:
            return None
    return table


async def serve_socket(websocket: WebSocket, table_id: str, hall: BaseHall[T],
                       more: Handler[T]) -> None:
    """One socket to the table ``table_id`` from handshake to close: the Origin check, the
    table (:func:`find_table`; a lookup by anything but a live table's id is throttled per
    address, as over REST), the user from the session cookie (or a bearer token), the
    socket caps, the message loop, and detaching at the end. ``more`` answers the messages
    besides hello, sync and act."""
    app = websocket.app
    settings: Settings = app.state.settings
    accounts: Accounts = app.state.accounts
    metrics: Metrics = app.state.metrics
    limits: Limits = app.state.limits
    ip = client_ip(websocket)
    if not origin_allowed(websocket.headers, settings):
        log.info("ws_origin_refused", table=table_id)
        metrics.ws_closed.labels("403").inc()
        await _deny(websocket, 403)
        return
    table = hall.get(table_id)
    if table is None and hall.cluster is not None:
        found = await hall.route(table_id)
        if isinstance(found, str):  # another process plays it (or will shortly)
            await _moved(websocket, found)
            return
        table = found
    if table is None:
        if not await limits.lookup_code(ip):
            await _deny(websocket, 429)
            return
        table = await find_table(hall, table_id)
    if table is None:
        await _deny(websocket, 404)
        return
    token = websocket.cookies.get(settings.cookie_name)
    if not token:
        auth = websocket.headers.get("authorization", "")
        token = auth[7:].strip() if auth.lower().startswith("bearer ") else None
    principal = await accounts.resolve(token)
    user_id = principal.user_id if principal else None
    refused = await limits.open_socket(user_id, ip)
    if refused is not None:
        log.info("ws_too_many_sockets", table=table_id, reason=refused)
        metrics.ws_closed.labels("429").inc()
        await _deny(websocket, 429)
        return
    try:
        await websocket.accept()
    except Exception:
        limits.close_socket(user_id, ip)
        raise
    client = Client(websocket, principal, watch_of(websocket), settings, metrics)
    metrics.sockets.inc()
    writer = asyncio.create_task(client.writer())
    try:
        await _serve(websocket, client, table, settings, metrics, more)
    except WebSocketDisconnect:
        pass
    except Exception as exc:
        log.error("ws_failed", table=table.id, **where(exc))
        client.close(1011, "server error")
    finally:
        # The counts first, with no await before them; then the rest shielded: a handler
        # cancelled while the table's lock is busy (a server shutting down, a test client
        # leaving mid-move) must still leave its seat, or the seat would stay "connected"
        # and never count as away.
        metrics.sockets.dec()
        limits.close_socket(user_id, ip)
        await asyncio.shield(_leave(table, client, writer))


async def _moved(websocket: WebSocket, node: str) -> None:
    """The table is played by the process ``node`` ("": it is between owners): say so and
    close with MOVED; the client reconnects with ``?node=<node>``, which the reverse proxy
    routes to that process (docs/deploy.md), or, with no node, anywhere after a moment."""
    await websocket.accept()
    with contextlib.suppress(Exception):
        await websocket.send_text(dumps({"t": "moved", "node": node or None}))
        await websocket.close(MOVED, node)


async def _leave(table: SeatedTable, client: Client, writer: asyncio.Task[None]) -> None:
    await table.detach(client)
    client.close(1000, "bye")
    with contextlib.suppress(Exception):
        await asyncio.wait_for(writer, timeout=2.0)


def watch_of(websocket: WebSocket) -> bool:
    return websocket.query_params.get("watch", "") in ("1", "true", "yes")


async def _serve(websocket: WebSocket, client: Client, table: T, settings: Settings,
                 metrics: Metrics, more: Handler[T]) -> None:
    limiter = RateLimit(settings.ws_rate_messages, settings.ws_rate_window)
    pings = RateLimit(settings.ws_pings, settings.ws_rate_window)
    max_size = settings.ws_max_size
    greeted = False
    while not client.closing:
        msg = await websocket.receive()
        if msg["type"] == "websocket.disconnect":
            return
        text = msg.get("text")
        if text is None:
            client.close(1003, "text frames only")
            return
        if len(text) > max_size or len(text.encode("utf-8")) > max_size:
            client.close(1009, f"frames are at most {max_size} bytes")
            return
        try:
            data = jsonsafe.loads(text, settings.json_max_depth)
        except jsonsafe.BadJson as exc:
            client.close(1007, str(exc)[:120])
            return
        if not isinstance(data, dict):
            client.close(1007, "a message is a JSON object")
            return
        if data.get("t") == "ping" and len(data) == 1:
            if not pings.allow():
                log.info("ws_ping_limited", table=table.id, seat=client.seat)
                client.close(1008, f"at most {settings.ws_pings} pings per "
                                   f"{settings.ws_rate_window:g} s")
                return
            client.send('{"t":"pong"}')
            continue
        if not limiter.allow():
            log.info("ws_rate_limited", table=table.id, seat=client.seat)
            client.close(1008, "rate limit exceeded")
            return
        try:
            parsed = CLIENT_MESSAGE.validate_python(data)
        except ValidationError as exc:
            errors = exc.errors()
            where = ".".join(str(x) for x in errors[0]["loc"]) if errors else ""
            what = errors[0]["msg"] if errors else "invalid"
            client.send(_error("bad_message", f"{where}: {what}"[:300],
                               id=data.get("id") if isinstance(data.get("id"), str) else None))
            continue
        metrics.ws_messages.labels(parsed.t).inc()
        if isinstance(parsed, Hello):
            await table.attach(client, parsed.last_seq, parsed.views)
            greeted = True
            continue
        if not greeted:
            client.send(_error("hello_first", "send {\"t\": \"hello\"} first"))
            continue
        if isinstance(parsed, Sync):
            await table.resync(client, parsed.last_seq)
        elif isinstance(parsed, Act):
            await table.act(client, parsed.id, parsed.action, parsed.seq)
        else:
            await more(client, table, parsed)


async def seat_message(client: Client, table: Table, parsed: Any) -> None:
    """Hints, chat and 托管: the same at every table, whatever its game."""
    if isinstance(parsed, HintRequest):
        try:
            action = await table.hint(client.seat)
            client.send(dumps({"t": "hint", "id": parsed.id, "action": action}))
        except TableError as exc:
            client.send(dumps({"t": "hint", "id": parsed.id, "action": None,
                               "error": {"code": exc.code, "message": exc.message}}))
    elif isinstance(parsed, ChatMessage):
        err = await table.say(client, parsed.text)
        if err is not None:
            client.send(_error(err, {
                "login_required": "sign in (a guest is fine) to chat",
                "empty": "empty message",
                "chat_rate": "too many messages; wait a few seconds",
            }.get(err, err)))
    elif isinstance(parsed, AutoMessage):
        await table.set_auto(client, parsed.on)
