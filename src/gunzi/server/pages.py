"""The pages that name a table: ``/table.html`` and ``/board.html`` answer the not-found page
(``404.html``, status 404) for a link that names no table, so a bad link never shows an
empty table waiting to reconnect.

A card link is ``table.html?t=ID`` or ``table.html?code=CODE``, a board link
``board.html?t=ID`` (``board.html?new=PRESET`` starts a quick game, ``board.html`` alone
goes back to the lobby, both the page's own). An id or code of the other kind of table
redirects to its page; a malformed, unknown or missing one gets the not-found page. The
same page answers every other unknown path (Starlette's ``StaticFiles(html=True)``).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, RedirectResponse, Response
from sqlalchemy import select
from sqlalchemy.orm import Session

from gunzi.server import db
from gunzi.server.halls import BaseHall

router = APIRouter()

TABLE_ID = re.compile(r"[A-Za-z0-9_-]{1,24}")  # ids are secrets.token_urlsafe(9)
ROOM_CODE = re.compile(r"[A-Za-z0-9]{1,16}")


def _stored(session: Session, table_id: str) -> str | None:
    """The preset of a stored table (any status), or None."""
    return session.scalar(select(db.TableRow.preset).where(db.TableRow.id == table_id))


def _page(request: Request, name: str, status: int = 200) -> Response:
    static: Path = request.app.state.settings.static_path
    return FileResponse(static / name, status_code=status, media_type="text/html")


async def _which_page(request: Request, table_id: str | None, code: str | None) -> str | None:
    """``table.html`` or ``board.html`` for the table the link names, or None."""
    hall: BaseHall[Any] = request.app.state.hall
    board: BaseHall[Any] = request.app.state.board_hall
    if code is not None:
        if not ROOM_CODE.fullmatch(code):
            return None
        if hall.by_code(code):
            return "table.html"
        return "board.html" if board.by_code(code) else None
    if table_id is None or not TABLE_ID.fullmatch(table_id):
        return None
    if hall.get(table_id):
        return "table.html"
    if board.get(table_id):
        return "board.html"
    preset = await request.app.state.store.run(_stored, table_id)
    if preset is None:
        return None
    return "board.html" if preset.startswith("quoridor") else "table.html"


async def _serve(request: Request, page: str) -> Response:
    table_id = request.query_params.get("t")
    code = request.query_params.get("code") if table_id is None else None
    found = await _which_page(request, table_id, code)
    if found is None:
        return _page(request, "404.html", 404)
    if found != page:  # the other kind of table: its own page
        key = "t" if table_id is not None else "code"
        return RedirectResponse(f"/{found}?{key}={table_id or code}", status_code=302)
    return _page(request, page)


@router.get("/table.html", include_in_schema=False)
async def table_page(request: Request) -> Response:
    return await _serve(request, "table.html")


@router.get("/board.html", include_in_schema=False)
async def board_page(request: Request) -> Response:
    params = request.query_params
    if "t" not in params and "code" not in params:
        return _page(request, "board.html")  # new=PRESET (quick game) or the lobby
    return await _serve(request, "board.html")
