"""REST routes (``/api/board/...``) and the WebSocket (``/ws/board/{id}``) of 步步为营 tables.

The seat, bot, start, table and record routes are the card lobby's
(:mod:`gunzi.server.table_routes`); the socket is the card tables' (:func:`.ws.serve_socket`:
``hello``, ``sync``, ``act``, ``ping``; the same Origin check, size and rate limits), with
board actions: ``{"type": "move", "to": "e2"}``, ``{"type": "wall", "wall": "e3h"}``,
``{"type": "pass"}``. Every recipient gets the same frames (no hidden information).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, WebSocket
from pydantic import BaseModel, ConfigDict, Field

from gunzi.quoridor.rules import OPTIONS, PRESETS, preset
from gunzi.server.auth import CurrentUser
from gunzi.server.board_tables import BOARD_BOTS, BoardHall
from gunzi.server.table_routes import add_table_routes, fail, hall_getter
from gunzi.server.tables import TableError
from gunzi.server.ws import seat_message, serve_socket

router = APIRouter(prefix="/api/board")


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)  # as protocol._Msg


class BoardCreate(_Body):
    preset: str = "quoridor-2"
    options: dict[str, Any] = Field(default_factory=dict)
    name: str | None = Field(default=None, max_length=64)
    public: bool = True
    seat: int | None = Field(default=None, ge=0, le=3)
    clock: int | None = Field(default=None, ge=0)  # seconds per move; 0 or left out = off


class BoardQuick(_Body):
    preset: str = "quoridor-2"
    options: dict[str, Any] = Field(default_factory=dict)
    bot: str = "search"
    clock: int | None = Field(default=None, ge=0)


def board_hall(request: Request) -> BoardHall:
    hall: BoardHall = hall_getter("board_hall")(request)
    return hall


@router.get("/rules")
async def rules() -> dict[str, Any]:
    return {"presets": {name: preset(name).options() for name in PRESETS},
            "options": {k: {"values": list(o.values), "clause": o.clause, "doc": o.doc}
                        for k, o in OPTIONS.items()},
            "bots": list(BOARD_BOTS)}


@router.post("/tables", status_code=201)
async def create_table(body: BoardCreate, request: Request,
                       user: CurrentUser) -> dict[str, Any]:
    try:
        table = await board_hall(request).create(user, body.preset, body.options,
                                                 public=body.public, name=body.name,
                                                 clock=body.clock)
        if body.seat is not None:
            await table.take_seat(user, body.seat)
    except TableError as exc:
        raise fail(exc) from None
    return table.info()


@router.post("/quickplay", status_code=201)
async def quickplay(request: Request, user: CurrentUser,
                    body: BoardQuick | None = None) -> dict[str, Any]:
    """One call: a new table, you at seat 0, bots in the other seats, started."""
    body = body or BoardQuick()
    try:
        table = await board_hall(request).quickplay(user, body.preset, body.bot, body.options,
                                                    body.clock)
    except TableError as exc:
        raise fail(exc) from None
    return {**table.info(), "seat": 0, "ws": f"/ws/board/{table.id}"}


add_table_routes(router, board_hall, record_name="quoridor",
                 record_doc="The game's record (JSON Lines, checked by `gunzi replay`), "
                            "finished or not.")


# ---------------------------------------------------------------------------- socket


async def board_socket(websocket: WebSocket, table_id: str) -> None:
    """``/ws/board/{id}``: a 步步为营 table by id or room code (hints, chat and 托管 as at a
    card table: one table class answers them)."""
    hall: BoardHall = websocket.app.state.board_hall
    await serve_socket(websocket, table_id, hall, seat_message)


__all__ = ["board_socket", "router"]
