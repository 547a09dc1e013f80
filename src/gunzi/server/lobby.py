"""Lobby REST API: rules, tables, seats, bots, start, quick play, hints and records.

The routes every kind of table has come from :mod:`gunzi.server.table_routes`."""

from __future__ import annotations

from functools import cache
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Path, Request

from gunzi.engine.errors import InvalidRulesError
from gunzi.engine.rules import OPTIONS, PRESETS, preset
from gunzi.server.auth import CurrentUser
from gunzi.server.limits import Limits
from gunzi.server.protocol import CreateTable, QuickPlay
from gunzi.server.table_games import untrained_bots
from gunzi.server.table_routes import (
    TableId,
    add_table_routes,
    fail,
    hall_getter,
    here,
    live_table,
)
from gunzi.server.tables import ALLOWED_BOTS, Hall, TableError

router = APIRouter(prefix="/api")


def hall_of(request: Request) -> Hall:
    hall: Hall = hall_getter("hall")(request)
    return hall


@router.get("/rules")
async def rules() -> dict[str, Any]:
    """Presets with their options, and every option's values (for a create-table form)."""
    return {
        "presets": {name: preset(name).options() for name in PRESETS},
        "options": {k: {"values": list(o.values), "clause": o.clause, "doc": o.doc}
                    for k, o in OPTIONS.items()},
        "valid": _valid_values(),
        "bots": list(ALLOWED_BOTS),
        # per preset, the bots trained on another game (name → the preset they learned)
        "bots_untrained": {name: untrained_bots(preset(name)) for name in PRESETS},
    }


@cache
def _valid_values() -> dict[str, dict[str, list[Any]]]:
    """Per preset, the values each option may take there (a classic table has no tribute
    options, 打滚子 no 1-deck games), found by trying each: the form offers only these."""
    out: dict[str, dict[str, list[Any]]] = {}
    for name in PRESETS:
        out[name] = {}
        for key, opt in OPTIONS.items():
            ok = []
            for value in opt.values:
                try:
                    preset(name, **{key: value})
                except InvalidRulesError:
                    continue
                ok.append(value)
            out[name][key] = ok
    return out


@router.post("/tables", status_code=201)
async def create_table(body: CreateTable, request: Request, user: CurrentUser) -> dict[str, Any]:
    hall = hall_of(request)
    try:
        table = await hall.create(user, body, public=body.public)
        if body.seat is not None:
            await table.take_seat(user, body.seat)
    except TableError as exc:
        raise fail(exc) from None
    return table.info()


@router.get("/tables/code/{code}")
async def table_by_code(code: Annotated[str, Path(max_length=16)],
                        request: Request) -> dict[str, Any]:
    """A private table by its room code: a card table, or a 步步为营 one (``game``).
    Lookups are throttled per address (``code_lookups_per_minute``): codes are guessable
    only by trying many."""
    limits: Limits = request.app.state.limits
    if not await limits.lookup_code(request.client.host if request.client else "?"):
        raise HTTPException(429, detail={
            "code": "too_many_lookups",
            "message": "too many room-code lookups from your address; wait a minute"},
            headers={"Retry-After": "60"})
    halls = (hall_of(request), hall_getter("board_hall")(request))
    table = halls[0].by_code(code) or halls[1].by_code(code)
    if table is None and halls[0].cluster is not None:  # another process's table?
        for hall in halls:
            table = await here(request, hall, code)
            if table is not None:
                break
    if table is None:
        raise HTTPException(404, detail={"code": "no_table", "message": "no table with that code"})
    info: dict[str, Any] = table.info()
    return info


@router.post("/quickplay", status_code=201)
async def quickplay(request: Request, user: CurrentUser,
                    body: QuickPlay | None = None) -> dict[str, Any]:
    """One call: a new table, you in seat 0, three bots, started."""
    hall = hall_of(request)
    try:
        table = await hall.quickplay(user, body or QuickPlay())
    except TableError as exc:
        raise fail(exc) from None
    return {**table.info(), "seat": 0, "ws": f"/ws/tables/{table.id}"}


@router.get("/tables/{table_id}/hint")
async def hint(table_id: TableId, request: Request, user: CurrentUser) -> dict[str, Any]:
    """The bot's suggestion for your seat's current decision."""
    table = await live_table(request, hall_of(request), table_id)
    try:
        action = await table.hint(table.seat_of(user.user_id))
    except TableError as exc:
        raise fail(exc) from None
    return {"action": action}


add_table_routes(router, hall_of, record_name="gunzi",
                 record_doc="The record (JSON Lines) of the table's finished hands; each "
                            "deal's seed is revealed.")
