"""REST routes every kind of table has (the card lobby's ``/api/tables/...`` and the board's
``/api/board/tables/...``): list, one table, seats, bots, start and the record.

:func:`add_table_routes` adds them to a router for one hall. This module does not use
postponed annotations: the routes are made inside a function, and FastAPI reads their
parameter types from the annotations as they are evaluated there.
"""

from collections.abc import Awaitable, Callable
from typing import Annotated, Any, TypeVar
from urllib.parse import urlencode

from fastapi import APIRouter, HTTPException, Path, Request
from fastapi.responses import PlainTextResponse

from gunzi.server.auth import CurrentUser
from gunzi.server.halls import BaseHall
from gunzi.server.presence import SeatedTable, TableError
from gunzi.server.protocol import BotBody

SeatNo = Annotated[int, Path(ge=0, le=3)]
TableId = Annotated[str, Path(min_length=1, max_length=24)]

T = TypeVar("T", bound=SeatedTable)


def hall_getter(attr: str) -> Callable[[Request], Any]:
    """The hall kept as ``app.state.<attr>``; the first request tells it the server's URL
    (for the table links)."""

    def get(request: Request) -> Any:
        hall = getattr(request.app.state, attr)
        if hall.base_url is None:
            hall.base_url = str(request.base_url).rstrip("/")
        return hall

    return get


def fail(exc: TableError) -> HTTPException:
    return HTTPException(exc.status, detail={"code": exc.code, "message": exc.message})


async def here(request: Request, hall: BaseHall[T], table_id: str) -> T | None:
    """The live table ``table_id`` if this process plays it, else None; with several
    processes, a table another process plays is a 307 to the same path with
    ``?node=<its node>`` (the reverse proxy routes that to it; docs/deploy.md) and one
    between owners a 503 to retry."""
    table = hall.get(table_id)
    if table is None and hall.cluster is not None:
        where = await hall.route(table_id)
        if isinstance(where, str):
            raise moved(request, where)
        table = where
    return table


async def live_table(request: Request, hall: BaseHall[T], table_id: str) -> T:
    """The live table ``table_id`` (see :func:`here`), else 404."""
    table = await here(request, hall, table_id)
    if table is None:
        raise HTTPException(404, detail={"code": "no_table", "message": "no such live table"})
    return table


def moved(request: Request, node: str) -> HTTPException:
    """The answer for a table another process plays (``node``; "": none yet)."""
    if not node:
        return HTTPException(503, detail={"code": "moving", "message":
                                          "the table is moving to another server; retry"},
                             headers={"Retry-After": "1"})
    query = urlencode({**request.query_params, "node": node})
    return HTTPException(307, detail={"code": "moved", "node": node,
                                      "message": "the table is played by another server"},
                         headers={"Location": f"{request.url.path}?{query}"})


def add_table_routes(router: APIRouter, hall_of: Callable[[Request], BaseHall[Any]], *,
                     record_name: str, record_doc: str) -> None:
    """Add the shared table routes for the hall ``hall_of(request)`` to ``router``;
    records download as ``{record_name}-{table id}.jsonl``."""

    @router.get("/tables")
    async def list_tables(request: Request) -> dict[str, Any]:
        """Public tables that are open or playing (private ones are reached by id or code)."""
        return {"tables": await hall_of(request).listing()}

    @router.get("/tables/{table_id}")
    async def get_table(table_id: TableId, request: Request) -> dict[str, Any]:
        hall = hall_of(request)
        table: SeatedTable | None = await here(request, hall, table_id) \
            or await hall.cold(table_id)
        if table is None:
            raise HTTPException(404, detail={"code": "no_table", "message": "no such table"})
        return table.info()

    async def change(request: Request, table_id: str,
                     op: Callable[[SeatedTable], Awaitable[None]]) -> dict[str, Any]:
        """Apply ``op`` to the live table; its info after, or the TableError as HTTP."""
        table: SeatedTable = await live_table(request, hall_of(request), table_id)
        try:
            await op(table)
        except TableError as exc:
            raise fail(exc) from None
        return table.info()

    @router.post("/tables/{table_id}/seats/{seat}")
    async def take_seat(table_id: TableId, seat: SeatNo, request: Request,
                        user: CurrentUser) -> dict[str, Any]:
        return await change(request, table_id, lambda t: t.take_seat(user, seat))

    @router.delete("/tables/{table_id}/seats/{seat}")
    async def leave_seat(table_id: TableId, seat: SeatNo, request: Request,
                         user: CurrentUser) -> dict[str, Any]:
        """Leave your own seat, or remove a bot, before the table starts."""
        return await change(request, table_id, lambda t: t.leave_seat(user, seat))

    @router.put("/tables/{table_id}/seats/{seat}/bot")
    async def add_bot(table_id: TableId, seat: SeatNo, body: BotBody, request: Request,
                      user: CurrentUser) -> dict[str, Any]:
        return await change(request, table_id, lambda t: t.set_bot(user, seat, body.bot))

    @router.delete("/tables/{table_id}/seats/{seat}/bot")
    async def remove_bot(table_id: TableId, seat: SeatNo, request: Request,
                         user: CurrentUser) -> dict[str, Any]:
        seats = (await live_table(request, hall_of(request), table_id)).seats
        if seat >= len(seats) or seats[seat].bot is None:
            raise HTTPException(409, detail={"code": "no_bot", "message": "no bot in that seat"})
        return await change(request, table_id, lambda t: t.leave_seat(user, seat))

    @router.post("/tables/{table_id}/start")
    async def start(table_id: TableId, request: Request, user: CurrentUser) -> dict[str, Any]:
        return await change(request, table_id, lambda t: t.start(user))

    @router.get("/tables/{table_id}/record", response_class=PlainTextResponse,
                description=record_doc)
    async def record(table_id: TableId, request: Request) -> PlainTextResponse:
        hall = hall_of(request)
        try:
            table: SeatedTable | None = await here(request, hall, table_id)
            if table is not None:
                async with table.lock:
                    text = table.record()
            else:
                cold = await hall.cold(table_id)
                if cold is None:
                    raise HTTPException(404, detail={"code": "no_table",
                                                     "message": "no such table"})
                text = cold.record()
        except TableError as exc:
            raise fail(exc) from None
        return PlainTextResponse(text, media_type="application/x-ndjson",
                                 headers={"Content-Disposition":
                                          f'inline; filename="{record_name}-{table_id}.jsonl"'})
