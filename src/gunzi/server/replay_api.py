"""Replays and reviews over REST: a table's timeline, an uploaded record's timeline, and
the post-hand review of one seat (docs/replay.md).

Everything is built from records, which hold finished hands only, so nothing of a hand
in play leaves the server. Timelines and reviews are computed in worker threads; reviews
are cached (LRU) and each user may have one computing at a time.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections import OrderedDict
from typing import Annotated, Any

import structlog
from fastapi import APIRouter, HTTPException, Path, Query, Request

from gunzi.engine.errors import GunziError
from gunzi.review.review import Budget, review
from gunzi.review.timeline import hand_of, timeline
from gunzi.server import jsonsafe
from gunzi.server.auth import CurrentUser
from gunzi.server.limits import Throttle
from gunzi.server.presence import where
from gunzi.server.settings import Settings
from gunzi.server.tables import Hall, TableError

router = APIRouter(prefix="/api")
log = structlog.get_logger("gunzi.replay")

TableId = Annotated[str, Path(min_length=1, max_length=24)]
REVIEWS_AT_ONCE = 2  # reviews computing in the whole hall (each takes a core for seconds)
CACHE_SIZE = 64  # reviews and table timelines kept


class ReplayState:
    """Per-app caches and limits, made on first use (kept in ``app.state.replay``)."""

    def __init__(self, settings: Settings) -> None:
        self.timelines: OrderedDict[tuple[str, str], dict[str, Any]] = OrderedDict()
        self.reviews: OrderedDict[tuple[Any, ...], dict[str, Any]] = OrderedDict()
        self.computing: set[int] = set()  # users with a review being computed
        self.uploads = Throttle(settings.record_uploads_per_minute, 60.0)

    @staticmethod
    def remember(cache: OrderedDict[Any, dict[str, Any]], key: Any,
                 value: dict[str, Any]) -> None:
        cache[key] = value
        cache.move_to_end(key)
        while len(cache) > CACHE_SIZE:
            cache.popitem(last=False)


def state_of(request: Request) -> ReplayState:
    app_state = request.app.state
    if not hasattr(app_state, "replay"):
        app_state.replay = ReplayState(app_state.settings)
        cluster = getattr(app_state, "cluster", None)
        if cluster is not None:  # one window for the whole hall
            app_state.replay.uploads.share(cluster.windows, "uploads")
    replay: ReplayState = app_state.replay
    return replay


def _error(status: int, code: str, message: str) -> HTTPException:
    return HTTPException(status, detail={"code": code, "message": message})


async def _record_text(request: Request, table_id: str) -> str:
    """The table's record (finished hands only), live or from the store."""
    hall: Hall = request.app.state.hall
    try:
        table = hall.get(table_id)
        if table is not None:
            async with table.lock:
                return table.record()
        cold = await hall.cold(table_id)
        if cold is None:
            raise _error(404, "no_table", "no such table")
        return cold.record()
    except TableError as exc:
        raise _error(exc.status, exc.code, exc.message) from None


async def _table_timeline(request: Request, table_id: str) -> dict[str, Any]:
    text = await _record_text(request, table_id)
    key = (table_id, hashlib.sha256(text.encode("utf-8")).hexdigest())
    st = state_of(request)
    cached = st.timelines.get(key)
    if cached is not None:
        return cached
    try:
        built = await asyncio.to_thread(timeline, text)
    except GunziError as exc:  # a stored record that does not replay: a server fault
        raise _error(500, "bad_record", str(exc)) from None
    st.remember(st.timelines, key, built)
    return built


@router.get("/tables/{table_id}/timeline")
async def table_timeline(table_id: TableId, request: Request) -> dict[str, Any]:
    """Every finished hand of the table, trick by trick (the record, validated and rebuilt)."""
    return {"table": table_id, **await _table_timeline(request, table_id)}


def _upload(text: str, max_depth: int) -> dict[str, Any]:
    """An uploaded record's timeline; its nesting is checked before any line is parsed.

    The replay names what is wrong with a record; a shape its checks do not foresee is
    still the sender's fault, so it is refused (400) too, and logged to be named."""
    if jsonsafe.depth(text) > max_depth:
        raise jsonsafe.BadJson(f"JSON nested deeper than {max_depth} levels")
    try:
        return timeline(text)
    except (GunziError, jsonsafe.BadJson):
        raise
    except Exception as exc:
        log.warning("upload_unforeseen", **where(exc))
        raise jsonsafe.BadJson(f"unreadable record ({type(exc).__name__})") from None


@router.post("/timeline")
async def upload_timeline(request: Request) -> dict[str, Any]:
    """The timeline of a record sent as the request body (JSON Lines, at most
    ``record_max_bytes``, nested at most ``json_max_depth`` deep)."""
    settings: Settings = request.app.state.settings
    st = state_of(request)
    who = request.client.host if request.client else "?"
    if not await st.uploads.allow(who):
        raise _error(429, "too_many_uploads", "too many records sent; wait a minute")
    body = await request.body()  # at most record_max_bytes: limits.BodyLimit saw to it
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise _error(400, "bad_record", "the record is not UTF-8 text") from None
    if not text.strip():
        raise _error(400, "bad_record", "the record is empty")
    try:
        return await asyncio.to_thread(_upload, text, settings.json_max_depth)
    except (GunziError, jsonsafe.BadJson) as exc:
        raise _error(400, "bad_record", f"not a valid record: {exc}") from None


@router.get("/tables/{table_id}/review")
async def table_review(
    table_id: TableId,
    request: Request,
    user: CurrentUser,
    hand: Annotated[int, Query(ge=1, le=10_000)],
    seat: Annotated[int, Query(ge=0, le=3)],
    lang: Annotated[str, Query(pattern="^(zh|en)$")] = "zh",
) -> dict[str, Any]:
    """The search bot's review of one seat in one finished hand (cached; one per user)."""
    st = state_of(request)
    key = (table_id, hand, seat, lang)
    cached = st.reviews.get(key)
    if cached is not None:
        st.reviews.move_to_end(key)
        return cached
    if user.user_id in st.computing:
        raise _error(429, "review_busy", "a review of yours is still being computed")
    if len(st.computing) >= REVIEWS_AT_ONCE:
        raise _error(429, "review_busy", "the hall is computing other reviews; try again soon")
    text = await _record_text(request, table_id)
    st.computing.add(user.user_id)
    try:
        tl = await _table_timeline(request, table_id)
        try:
            hand_of(tl, hand)
        except GunziError as exc:
            raise _error(404, "no_hand", str(exc)) from None
        out = await asyncio.to_thread(review, text, hand, seat, budget=Budget(), lang=lang)
    except GunziError as exc:
        raise _error(500, "bad_record", str(exc)) from None
    finally:
        st.computing.discard(user.user_id)
    result = {"table": table_id, **out}
    st.remember(st.reviews, key, result)
    return result
