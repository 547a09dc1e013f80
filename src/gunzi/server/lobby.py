"""Lobby REST API: rules, tables, seats, bots, start, quick play, hints and records."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Path, Request
from fastapi.responses import PlainTextResponse

from gunzi.engine.rules import OPTIONS, PRESETS, preset
from gunzi.server.auth import CurrentUser
from gunzi.server.protocol import BotBody, CreateTable, QuickPlay
from gunzi.server.tables import ALLOWED_BOTS, Hall, Table, TableError

router = APIRouter(prefix="/api")

SeatNo = Annotated[int, Path(ge=0, le=3)]
TableId = Annotated[str, Path(min_length=1, max_length=24)]


def hall_of(request: Request) -> Hall:
    hall: Hall = request.app.state.hall
    if hall.base_url is None:
        hall.base_url = str(request.base_url).rstrip("/")
    return hall


def _fail(exc: TableError) -> HTTPException:
    return HTTPException(exc.status, detail={"code": exc.code, "message": exc.message})


def _live(request: Request, table_id: str) -> Table:
    table = hall_of(request).get(table_id)
    if table is None:
        raise HTTPException(404, detail={"code": "no_table", "message": "no such live table"})
    return table


@router.get("/rules")
async def rules() -> dict[str, Any]:
    """Presets with their options, and every option's values (for a create-table form)."""
    return {
        "presets": {name: preset(name).options() for name in PRESETS},
        "options": {k: {"values": list(o.values), "clause": o.clause, "doc": o.doc}
                    for k, o in OPTIONS.items()},
        "bots": list(ALLOWED_BOTS),
    }


@router.get("/tables")
async def list_tables(request: Request) -> dict[str, Any]:
    """Public tables that are open or playing (private ones are reached by id or code)."""
    return {"tables": hall_of(request).public_tables()}


@router.post("/tables", status_code=201)
async def create_table(body: CreateTable, request: Request, user: CurrentUser) -> dict[str, Any]:
    hall = hall_of(request)
    try:
        table = await hall.create(user, body, public=body.public)
        if body.seat is not None:
            await table.take_seat(user, body.seat)
    except TableError as exc:
        raise _fail(exc) from None
    return table.info()


@router.get("/tables/code/{code}")
async def table_by_code(code: Annotated[str, Path(max_length=16)],
                        request: Request) -> dict[str, Any]:
    table = hall_of(request).by_code(code)
    if table is None:
        raise HTTPException(404, detail={"code": "no_table", "message": "no table with that code"})
    return table.info()


@router.get("/tables/{table_id}")
async def get_table(table_id: TableId, request: Request) -> dict[str, Any]:
    hall = hall_of(request)
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


@router.delete("/tables/{table_id}/seats/{seat}")
async def leave_seat(table_id: TableId, seat: SeatNo, request: Request,
                     user: CurrentUser) -> dict[str, Any]:
    """Leave your own seat, or remove a bot, before the table starts."""
    table = _live(request, table_id)
    try:
        await table.leave_seat(user, seat)
    except TableError as exc:
        raise _fail(exc) from None
    return table.info()


@router.put("/tables/{table_id}/seats/{seat}/bot")
async def add_bot(table_id: TableId, seat: SeatNo, body: BotBody, request: Request,
                  user: CurrentUser) -> dict[str, Any]:
    table = _live(request, table_id)
    try:
        await table.set_bot(user, seat, body.bot)
    except TableError as exc:
        raise _fail(exc) from None
    return table.info()


@router.delete("/tables/{table_id}/seats/{seat}/bot")
async def remove_bot(table_id: TableId, seat: SeatNo, request: Request,
                     user: CurrentUser) -> dict[str, Any]:
    table = _live(request, table_id)
    if table.seats[seat].bot is None:
        raise HTTPException(409, detail={"code": "no_bot", "message": "no bot in that seat"})
    try:
        await table.leave_seat(user, seat)
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


@router.post("/quickplay", status_code=201)
async def quickplay(request: Request, user: CurrentUser,
                    body: QuickPlay | None = None) -> dict[str, Any]:
    """One call: a new table, you in seat 0, three bots, started."""
    hall = hall_of(request)
    try:
        table = await hall.quickplay(user, body or QuickPlay())
    except TableError as exc:
        raise _fail(exc) from None
    return {**table.info(), "seat": 0, "ws": f"/ws/tables/{table.id}"}


@router.get("/tables/{table_id}/hint")
async def hint(table_id: TableId, request: Request, user: CurrentUser) -> dict[str, Any]:
    """The bot's suggestion for your seat's current decision."""
    table = _live(request, table_id)
    try:
        action = await table.hint(table.seat_of(user.user_id))
    except TableError as exc:
        raise _fail(exc) from None
    return {"action": action}


@router.get("/tables/{table_id}/record", response_class=PlainTextResponse)
async def record(table_id: TableId, request: Request) -> PlainTextResponse:
    """The record (JSON Lines) of the table's finished hands; each deal's seed is revealed."""
    hall = hall_of(request)
    table = hall.get(table_id)
    if table is not None:
        async with table.lock:
            try:
                text = table.record()
            except TableError as exc:
                raise _fail(exc) from None
    else:
        cold = await hall.cold(table_id)
        if cold is None:
            raise HTTPException(404, detail={"code": "no_table", "message": "no such table"})
        try:
            text = cold.record()
        except TableError as exc:
            raise _fail(exc) from None
    return PlainTextResponse(text, media_type="application/x-ndjson",
                             headers={"Content-Disposition":
                                      f'inline; filename="gunzi-{table_id}.jsonl"'})
