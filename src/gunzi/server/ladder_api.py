"""Ladder REST API: one leaderboard per game, and a player's page (titles, history, rating)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Path, Query, Request

from gunzi.ladder.points import GAMES
from gunzi.ladder.result import key_of_ref
from gunzi.ladder.titles import titles
from gunzi.server import ladder_db
from gunzi.server.db import Store

router = APIRouter(prefix="/api")


def _store(request: Request) -> Store:
    store: Store = request.app.state.store
    return store


@router.get("/ladder")
async def ladder(
    request: Request,
    game: Annotated[str, Query(max_length=16)] = "gunzi",
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
    kind: Annotated[str, Query(max_length=16)] = "people",
) -> dict[str, Any]:
    """Players of one game's ladder by 积分 total (then rating), with titles and ratings:
    people by default, ``kind=bots`` for the bots' own ladder."""
    if game not in GAMES:
        raise HTTPException(400, detail={"code": "bad_game",
                                         "message": f"games: {', '.join(GAMES)}"})
    if kind not in ladder_db.KINDS:
        raise HTTPException(400, detail={"code": "bad_kind",
                                         "message": f"kinds: {', '.join(ladder_db.KINDS)}"})
    return await _store(request).run(ladder_db.leaderboard, game, limit, offset, kind)


@router.get("/ladder/titles")
async def ladder_titles() -> dict[str, Any]:
    """The 25 titles and their thresholds, lowest first."""
    return {"titles": [{"name": n, "threshold": th} for n, th in titles()]}


@router.get("/players/{ref}")
async def player(ref: Annotated[str, Path(min_length=1, max_length=40)],
                 request: Request) -> dict[str, Any]:
    """A user (by id) or a bot (by name): per-game totals, titles, ratings, recent results
    and the rating series for a chart."""
    key = key_of_ref(ref)
    if key is None:
        raise HTTPException(400, detail={"code": "bad_player",
                                         "message": "a player is a user id or a bot name"})
    data = await _store(request).run(ladder_db.player_page, key)
    if data is None:
        raise HTTPException(404, detail={"code": "no_player", "message": "no such player"})
    return data
