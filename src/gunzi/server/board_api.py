"""REST routes (``/api/board/...``) and the WebSocket (``/ws/board/{id}``) of 步步为营 tables.

The socket speaks the card tables' protocol (docs/protocol.md: ``hello``, ``sync``,
``act``, ``ping``; the same Origin check, size and rate limits, via :mod:`.ws`), with
board actions: ``{"type": "move", "to": "e2"}``, ``{"type": "wall", "wall": "e3h"}``,
``{"type": "pass"}``. Every recipient gets the same frames (no hidden information).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Annotated, Any

import structlog
from fastapi import APIRouter, HTTPException, Path, Request, WebSocket
from fastapi.responses import PlainTextResponse
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.websockets import WebSocketDisconnect

from gunzi.quoridor.rules import OPTIONS, PRESETS, preset
from gunzi.server.auth import Accounts, CurrentUser
from gunzi.server.board_tables import BOARD_BOTS, BoardHall, BoardTable
from gunzi.server.metrics import Metrics
from gunzi.server.protocol import CLIENT_MESSAGE, Act, Hello, Sync, dumps
from gunzi.server.settings import Settings
from gunzi.server.tables import TableError, where
from gunzi.server.ws import Client, RateLimit, _deny, _error, origin_allowed

log = structlog.get_logger("gunzi.board")
router = APIRouter(prefix="/api/board")

SeatNo = Annotated[int, Path(ge=0, le=3)]
TableId = Annotated[str, Path(min_length=1, max_length=24)]


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class BoardCreate(_Body):
    preset: str = "quoridor-2"
    options: dict[str, Any] = Field(default_factory=dict)
    name: str | None = Field(default=None, max_length=64)
    public: bool = True
    seat: int | None = Field(default=None, ge=0, le=3)


class BoardQuick(_Body):
    preset: str = "quoridor-2"
    options: dict[str, Any] = Field(default_factory=dict)
    bot: str = "search"


class BoardBot(_Body):
    bot: str = "rule"


def board_hall(request: Request) -> BoardHall:
    hall: BoardHall = request.app.state.board_hall
    return hall


def _fail(exc: TableError) -> HTTPException:
    return HTTPException(exc.status, detail={"code": exc.code, "message": exc.message})


def _live(request: Request, table_id: str) -> BoardTable:
    table = board_hall(request).get(table_id)
    if table is None:
        raise HTTPException(404, detail={"code": "no_table", "message": "no such live table"})
    return table


@router.get("/rules")
async def rules() -> dict[str, Any]:
    return {"presets": {name: preset(name).options() for name in PRESETS},
            "options": {k: {"values": list(o.values), "clause": o.clause, "doc": o.doc}
                        for k, o in OPTIONS.items()},
            "bots": list(BOARD_BOTS)}


@router.get("/tables")
async def list_tables(request: Request) -> dict[str, Any]:
    return {"tables": board_hall(request).public_tables()}


@router.post("/tables", status_code=201)
async def create_table(body: BoardCreate, request: Request,
                       user: CurrentUser) -> dict[str, Any]:
    try:
        table = await board_hall(request).create(user, body.preset, body.options,
                                                 public=body.public, name=body.name)
        if body.seat is not None:
            await table.take_seat(user, body.seat)
    except TableError as exc:
        raise _fail(exc) from None
    return table.info()


@router.post("/quickplay", status_code=201)
async def quickplay(request: Request, user: CurrentUser,
                    body: BoardQuick | None = None) -> dict[str, Any]:
    """One call: a new table, you at seat 0, bots in the other seats, started."""
    body = body or BoardQuick()
    try:
        table = await board_hall(request).quickplay(user, body.preset, body.bot, body.options)
    except TableError as exc:
        raise _fail(exc) from None
    return {**table.info(), "seat": 0, "ws": f"/ws/board/{table.id}"}


@router.get("/tables/{table_id}")
async def get_table(table_id: TableId, request: Request) -> dict[str, Any]:
    hall = board_hall(request)
    table = hall.get(table_id) or await hall.cold(table_id)
    if table is None:
        raise HTTPException(404, detail={"code": "no_table", "message": "no such table"})
    return table.info()


@router.post("/tables/{table_id}/seats/{seat}")
async def take_seat(table_id: TableId, seat: SeatNo, request: Request,
                    user: CurrentUser) -> dict[str, Any]:
    table = _live(request, table_id)
    try:
        await table.take_seat(user, seat)
    except TableError as exc:
        raise _fail(exc) from None
    return table.info()


@router.put("/tables/{table_id}/seats/{seat}/bot")
async def add_bot(table_id: TableId, seat: SeatNo, body: BoardBot, request: Request,
                  user: CurrentUser) -> dict[str, Any]:
    table = _live(request, table_id)
    try:
        await table.set_bot(user, seat, body.bot)
    except TableError as exc:
        raise _fail(exc) from None
    return table.info()


@router.post("/tables/{table_id}/start")
async def start(table_id: TableId, request: Request, user: CurrentUser) -> dict[str, Any]:
    table = _live(request, table_id)
    try:
        await table.start(user)
    except TableError as exc:
        raise _fail(exc) from None
    return table.info()


@router.get("/tables/{table_id}/record", response_class=PlainTextResponse)
async def record(table_id: TableId, request: Request) -> PlainTextResponse:
    """The game's record (JSON Lines, checked by `gunzi replay`), finished or not."""
    hall = board_hall(request)
    table = hall.get(table_id) or await hall.cold(table_id)
    if table is None:
        raise HTTPException(404, detail={"code": "no_table", "message": "no such table"})
    async with table.lock:
        try:
            text = table.record()
        except TableError as exc:
            raise _fail(exc) from None
    return PlainTextResponse(text, media_type="application/x-ndjson",
                             headers={"Content-Disposition":
                                      f'inline; filename="quoridor-{table_id}.jsonl"'})


# ---------------------------------------------------------------------------- socket


async def board_socket(websocket: WebSocket, table_id: str) -> None:
    app = websocket.app
    hall: BoardHall = app.state.board_hall
    settings: Settings = app.state.settings
    accounts: Accounts = app.state.accounts
    metrics: Metrics = app.state.metrics
    if not origin_allowed(websocket.headers, settings):
        metrics.ws_closed.labels("403").inc()
        await _deny(websocket, 403)
        return
    table = hall.get(table_id)
    if table is None:
        await _deny(websocket, 404)
        return
    token = websocket.cookies.get(settings.cookie_name)
    if not token:
        auth = websocket.headers.get("authorization", "")
        token = auth[7:].strip() if auth.lower().startswith("bearer ") else None
    principal = await accounts.resolve(token)
    watch = websocket.query_params.get("watch", "") in ("1", "true", "yes")
    await websocket.accept()
    client = Client(websocket, principal, watch, settings, metrics)
    metrics.sockets.inc()
    writer = asyncio.create_task(client.writer())
    try:
        await _serve(websocket, client, table, settings)
    except WebSocketDisconnect:
        pass
    except Exception as exc:
        log.error("board_ws_failed", table=table.id, **where(exc))
        client.close(1011, "server error")
    finally:
        await table.detach(client)
        client.close(1000, "bye")
        with contextlib.suppress(Exception):
            await asyncio.wait_for(writer, timeout=2.0)
        metrics.sockets.dec()


async def _serve(websocket: WebSocket, client: Client, table: BoardTable,
                 settings: Settings) -> None:
    limiter = RateLimit(settings.ws_rate_messages, settings.ws_rate_window)
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
        if len(text.encode("utf-8")) > max_size:
            client.close(1009, f"frames are at most {max_size} bytes")
            return
        try:
            data = json.loads(text)
        except ValueError:
            client.close(1007, "not JSON")
            return
        if not isinstance(data, dict):
            client.close(1007, "a message is a JSON object")
            return
        if data.get("t") == "ping" and len(data) == 1:
            client.send('{"t":"pong"}')
            continue
        if not limiter.allow():
            client.close(1008, "rate limit exceeded")
            return
        try:
            parsed = CLIENT_MESSAGE.validate_python(data)
        except ValidationError as exc:
            errors = exc.errors()
            loc = ".".join(str(x) for x in errors[0]["loc"]) if errors else ""
            client.send(_error("bad_message", f"{loc}: {errors[0]['msg'] if errors else ''}"
                               [:300]))
            continue
        if isinstance(parsed, Hello):
            await table.attach(client, parsed.last_seq)
            greeted = True
        elif not greeted:
            client.send(_error("hello_first", "send {\"t\": \"hello\"} first"))
        elif isinstance(parsed, Sync):
            await table.resync(client, parsed.last_seq)
        elif isinstance(parsed, Act):
            await table.act(client, parsed.id, parsed.action, parsed.seq)
        else:
            client.send(dumps({"t": "error", "code": "unsupported",
                               "message": f"{parsed.t!r} is not available at 步步为营 tables"}))


__all__ = ["board_socket", "router"]
