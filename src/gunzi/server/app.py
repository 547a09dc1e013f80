"""The FastAPI application: REST lobby and accounts, the WebSocket gateway, health, metrics,
and the static web page.

``create_app(settings)`` builds everything; the store is migrated (Alembic
``upgrade head``) and live tables are restored at startup.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import urlsplit

import structlog
from fastapi import FastAPI, Request, WebSocket
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from sqlalchemy import text
from sqlalchemy.orm import Session

from gunzi import core
from gunzi.server import auth, board_api, lobby, pages, replay_api, rules_page, ws
from gunzi.server.auth import Accounts
from gunzi.server.board_tables import BoardHall
from gunzi.server.cluster import Cluster
from gunzi.server.db import Store
from gunzi.server.ladder_api import router as ladder_router
from gunzi.server.limits import BodyLimit, HostCheck, Limits
from gunzi.server.metrics import Metrics
from gunzi.server.settings import Settings, from_env
from gunzi.server.tables import Hall

UNSAFE = frozenset({"POST", "PUT", "PATCH", "DELETE"})

# The pages load only their own scripts and styles (no inline code, no eval), talk only
# to this origin (fetch and WebSockets), and may not be framed.
PAGE_CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; "
            "form-action 'self'; frame-ancestors 'none'")
# FastAPI's interactive docs (/api/docs) are Swagger UI from its CDN with an inline start-up
# script; they show no user content, and get this looser policy alone.
DOCS_CSP = ("default-src 'self'; script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
            "style-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
            "img-src 'self' data: https://fastapi.tiangolo.com; object-src 'none'; "
            "base-uri 'none'; frame-ancestors 'none'")
SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=()",
}


def configure_logging(settings: Settings) -> None:
    level = getattr(logging, settings.log_level.upper(), logging.INFO)
    node = settings.node_name if settings.redis_url else None

    def name_node(_logger: Any, _method: str, event: dict[str, Any]) -> dict[str, Any]:
        event.setdefault("node", node)  # which process of the hall logged it
        return event

    processors: list[Any] = [
        structlog.contextvars.merge_contextvars,
        *([name_node] if node else []),
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    renderer: Any = (structlog.processors.JSONRenderer() if settings.log_json
                     else structlog.dev.ConsoleRenderer(colors=False))
    structlog.configure(
        processors=[*processors, structlog.processors.format_exc_info, renderer],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.PrintLoggerFactory(sys.stderr),
        cache_logger_on_first_use=False,
    )


def _same_origin(request: Request, settings: Settings) -> bool:
    """CSRF check for state-changing requests (Sec-Fetch-Site, then Origin vs Host)."""
    site = request.headers.get("sec-fetch-site")
    if site is not None and site not in ("same-origin", "none"):
        return False
    origin = request.headers.get("origin")
    if origin is None:
        return True  # not a browser cross-site request (those carry Origin on POST)
    origin = origin.lower().rstrip("/")
    if origin in (o.lower().rstrip("/") for o in settings.allowed_origins):
        return True
    if settings.public_url and origin == settings.public_url.lower().rstrip("/"):
        return True
    host = (request.headers.get("host") or "").lower()
    return urlsplit(origin).netloc == host


def _ping(session: Session) -> int:
    return int(session.execute(text("SELECT 1")).scalar_one())


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or from_env()
    # One BLAS thread for the learned bots' matrix products (numpy is loaded with the first
    # learned bot, after this): OpenBLAS would spread each batch of the hall's bot moves
    # over every core, for many times the CPU of the same work (docs/bots.md). Set it
    # yourself to choose otherwise.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    configure_logging(settings)
    metrics = Metrics(settings.node_name if settings.redis_url else None)
    store = Store(settings)
    accounts = Accounts(settings, store, metrics)
    hall = Hall(settings, store, metrics)
    board_hall = BoardHall(settings, store, metrics)
    accounts.on_revoke.append(hall.revoke_session)
    accounts.on_revoke.append(board_hall.revoke_session)
    cluster = Cluster(settings, metrics) if settings.redis_url else None
    if cluster is not None:
        for h in (hall, board_hall):
            h.cluster = cluster
            cluster.scans.append(h.take_free)
            cluster.drops.append(h.lost)
            cluster.lobbies[h.lobby_kind] = h.public_tables
            cluster.news.on("ladder", h.ladder_news, h.ladder_cache.clear)
            cluster.counts.sources.append(h.table_counts)
        accounts.new_accounts.share(cluster.windows, "accounts")

    async def stop_tables() -> list[str]:
        return [*await hall.stop_tables(), *await board_hall.stop_tables()]

    async def hand_over() -> None:
        if cluster is not None:
            await cluster.hand_over(stop_tables)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        await hall.startup()
        await board_hall.startup()
        if cluster is not None:
            cluster.start()
        try:
            yield
        finally:
            await hand_over()
            await board_hall.shutdown()
            await hall.shutdown()
            if cluster is not None:
                await cluster.close()

    app = FastAPI(title="Gunzi hall", version="1", lifespan=lifespan, docs_url="/api/docs",
                  redoc_url=None, openapi_url="/api/openapi.json")
    app.state.settings = settings
    app.state.metrics = metrics
    app.state.store = store
    app.state.accounts = accounts
    app.state.hall = hall
    app.state.board_hall = board_hall
    app.state.limits = limits = Limits(settings, None if cluster is None else cluster.counts)
    if cluster is not None:
        limits.lookups.share(cluster.windows, "lookups")
    app.state.cluster = cluster
    app.state.hand_over = hand_over

    @app.middleware("http")
    async def guard(request: Request,
                    call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        if request.method in UNSAFE and not _same_origin(request, settings):
            return JSONResponse({"detail": {"code": "cross_site",
                                            "message": "cross-site request refused"}},
                                status_code=403)
        response = await call_next(request)
        for name, value in SECURITY_HEADERS.items():
            response.headers.setdefault(name, value)
        response.headers.setdefault(
            "Content-Security-Policy",
            DOCS_CSP if request.url.path == "/api/docs" else PAGE_CSP)
        if request.url.path.startswith("/api/"):
            response.headers.setdefault("Cache-Control", "no-store")
        return response

    app.include_router(auth.router)
    app.include_router(lobby.router)
    app.include_router(board_api.router)
    app.include_router(replay_api.router)
    app.include_router(ladder_router)
    app.include_router(rules_page.router)

    @app.get("/healthz")
    async def healthz() -> dict[str, Any]:
        ok = await store.run(_ping) == 1
        return {"ok": ok, "tables": len(hall.tables),
                "db": "sqlite" if settings.is_sqlite else "postgresql",
                "core": core.active(),  # the bots' rollouts: compiled (build/core) or pure
                **({} if cluster is None else {"node": cluster.node})}

    @app.get("/readyz")
    async def readyz() -> JSONResponse:
        """Ready for traffic: the database answers and, with several processes, Redis too
        and the leases are being renewed (a proxy's health check; 503 otherwise)."""
        checks: dict[str, bool] = {}
        try:
            checks["db"] = await store.run(_ping) == 1
        except Exception:
            checks["db"] = False
        if cluster is not None:
            try:
                checks["redis"] = bool(await cluster.redis.ping())
            except Exception:
                checks["redis"] = False
            checks["leases"] = cluster.renewing
        ready = all(checks.values())
        body = {"ready": ready, **checks, "tables": len(hall.tables) + len(board_hall.tables),
                **({} if cluster is None else {"node": cluster.node})}
        return JSONResponse(body, status_code=200 if ready else 503)

    @app.get("/metrics")
    async def prometheus() -> Response:
        return Response(metrics.render(), media_type="text/plain; version=0.0.4")

    @app.websocket("/ws/board/{table_id}")
    async def board_ws(websocket: WebSocket, table_id: str) -> None:
        await board_api.board_socket(websocket, table_id)

    @app.websocket("/ws/tables/{table_id}")
    async def table_ws(websocket: WebSocket, table_id: str) -> None:
        await ws.table_socket(websocket, table_id)

    app.add_middleware(BodyLimit, limit_for=lambda path: (
        settings.record_max_bytes if path == "/api/timeline" else settings.http_max_body))
    if settings.allowed_hosts:
        # Outermost: a request for a host not listed gets 400 before anything else runs
        # (the health probes apart: limits.HostCheck).
        app.add_middleware(HostCheck, allowed_hosts=list(settings.allowed_hosts))

    static = settings.static_path
    if static.is_dir():
        app.include_router(pages.router)  # table links naming no table: 404.html
        app.mount("/", StaticFiles(directory=static, html=True), name="static")
    return app
