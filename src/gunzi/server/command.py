"""CLI commands of the hall: ``serve`` and ``loadtest``; ``register(app)`` adds them to `gunzi`."""

from __future__ import annotations

import gc
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn
from urllib.parse import urlsplit, urlunsplit

import typer

if TYPE_CHECKING:
    from gunzi.server.settings import Settings

# Exit codes of `gunzi serve` when it cannot start (docs/deploy.md): a setting that
# cannot work (the systemd unit does not restart it: RestartPreventExitStatus), and
# PostgreSQL or Redis unreachable (it does, until they answer).
CONFIG_ERROR = 2
UNREACHABLE = 3


def fail(message: str, code: int) -> NoReturn:
    """One line on stderr, no traceback, and exit ``code``."""
    typer.echo(f"gunzi serve: {message}", err=True)
    raise typer.Exit(code)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0].strip() if text else type(exc).__name__


def unreachable(settings: Settings, timeout: float = 5.0) -> str | None:
    """Why the hall cannot start now (Redis or PostgreSQL does not answer), else None:
    checked once before serving, so the operator reads one line instead of a traceback
    from the startup (the migration, the tables' restore, their leases)."""
    if settings.redis_url:
        import redis

        shown = _hide_password(settings.redis_url)
        client = redis.Redis.from_url(settings.redis_url, socket_timeout=timeout,
                                      socket_connect_timeout=timeout)
        try:
            client.ping()
        except (redis.RedisError, OSError) as exc:
            return f"Redis at {shown} is unreachable ({_first_line(exc)}): start it or drop --redis"
        finally:
            client.close()
    if not settings.is_sqlite:
        from sqlalchemy import create_engine, text
        from sqlalchemy.engine import make_url

        url = make_url(settings.db_url)
        shown = url.render_as_string(hide_password=True)
        args = {"connect_timeout": int(timeout)} if url.get_backend_name() == "postgresql" else {}
        engine = create_engine(url, connect_args=args)
        try:
            with engine.connect() as conn:
                conn.execute(text("SELECT 1"))
        except Exception as exc:  # refused, unknown host, authentication, no such database
            cause = _first_line(getattr(exc, "orig", None) or exc)
            return (f"cannot connect to the database at {shown} ({cause}): start it, "
                    "or check --database / GUNZI_DATABASE and its pg_hba.conf (docs/deploy.md)")
        finally:
            engine.dispose()
    return None


def _hide_password(url: str) -> str:
    """``redis://:secret@host`` shown as ``redis://:***@host``."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.netloc.rsplit("@", 1)[1]
    user = parts.username or ""
    return urlunsplit(parts._replace(netloc=f"{user}:***@{host}"))


def register(app: typer.Typer) -> None:
    """Add ``serve`` and ``loadtest`` to a Typer app (the `gunzi` command)."""

    @app.command()
    def serve(
        host: Annotated[str, typer.Option(help="Interface to listen on")] = "127.0.0.1",
        port: Annotated[int, typer.Option(help="TCP port")] = 8000,
        database: Annotated[
            str | None,
            typer.Option(help="SQLAlchemy URL, e.g. postgresql+psycopg://user@host/db "
                              "(default: SQLite in the data directory; env GUNZI_DATABASE)"),
        ] = None,
        data_dir: Annotated[
            Path | None,
            typer.Option(help="Data directory (default ./data or $GUNZI_DATA)"),
        ] = None,
        bot_delay: Annotated[
            float | None, typer.Option(help="Seconds a bot waits before playing")
        ] = None,
        hand_pause: Annotated[
            float | None, typer.Option(help="Seconds between a hand's end and the next deal")
        ] = None,
        away_after: Annotated[
            float | None,
            typer.Option(help="Seconds before a disconnected player's seat goes to the bot"),
        ] = None,
        clock: Annotated[
            int | None, typer.Option(help="Default turn clock of new tables (0 = off)")
        ] = None,
        public_url: Annotated[
            str | None, typer.Option(help="Public base URL (links, allowed Origin)")
        ] = None,
        allowed_origin: Annotated[
            list[str] | None, typer.Option(help="Extra allowed Origin (repeatable)")
        ] = None,
        allowed_hosts: Annotated[
            str | None,
            typer.Option(help="Host names to answer, comma-separated (*.example.com "
                              "allowed; others get 400); default: any"),
        ] = None,
        sqlite_sync: Annotated[
            str | None, typer.Option(help="SQLite synchronous: FULL (default) or NORMAL")
        ] = None,
        redis: Annotated[
            str | None,
            typer.Option(help="Redis URL, e.g. redis://127.0.0.1:6379/0: run as one of several "
                              "processes of one hall (needs PostgreSQL; docs/deploy.md; "
                              "env GUNZI_REDIS)"),
        ] = None,
        node: Annotated[
            str | None,
            typer.Option(help="This process's name among several (routes, logs, metrics; "
                              "default host:port; env GUNZI_NODE)"),
        ] = None,
        log_json: Annotated[bool, typer.Option(help="JSON log lines")] = False,
        log_level: Annotated[str, typer.Option(help="Log level")] = "info",
    ) -> None:
        """Run the web hall (FastAPI + uvicorn, WebSockets)."""
        import uvicorn

        from gunzi.server.app import create_app
        from gunzi.server.settings import comma_list, from_env

        try:
            settings = from_env(
                host=host, port=port, database_url=database, data_dir=data_dir,
                bot_delay=bot_delay, hand_pause=hand_pause, away_after=away_after,
                default_clock=clock, public_url=public_url,
                allowed_origins=tuple(allowed_origin) if allowed_origin else None,
                allowed_hosts=comma_list(allowed_hosts) if allowed_hosts else None,
                sqlite_synchronous=sqlite_sync, log_json=log_json or None,
                log_level=log_level, redis_url=redis, node=node,
            )
        except ValueError as exc:  # a setting that cannot work: retrying will not help
            fail(str(exc), CONFIG_ERROR)
        problem = unreachable(settings)
        if problem is not None:  # systemd starts the process again (deploy/gunzi@.service)
            fail(problem, UNREACHABLE)
        if settings.gc_gen0 > 0:
            gc.set_threshold(settings.gc_gen0, 20, 1000)
        app = create_app(settings)

        class HallServer(uvicorn.Server):
            """uvicorn, handing the tables over first at SIGTERM (several processes): the
            leases are released before uvicorn closes the sockets, so the clients that
            reconnect find another process free to take the tables at once."""

            async def shutdown(self, sockets: Any = None) -> None:
                await app.state.hand_over()
                await super().shutdown(sockets)

        HallServer(uvicorn.Config(
            app, host=settings.host, port=settings.port,
            ws_max_size=settings.ws_max_size, ws_per_message_deflate=False,
            ws_ping_interval=20.0, ws_ping_timeout=20.0, log_level=settings.log_level,
            access_log=False, timeout_graceful_shutdown=5, lifespan="on",
        )).run()

    @app.command()
    def loadtest(
        tables: Annotated[int, typer.Option(help="Bot tables to run")] = 10,
        rate: Annotated[float, typer.Option(help="Actions per second per table")] = 1.0,
        duration: Annotated[float, typer.Option(help="Seconds to measure")] = 30.0,
        url: Annotated[str, typer.Option(help="Server base URL (loopback only)")] =
            "http://127.0.0.1:8000",
        preset: Annotated[str, typer.Option(help="Rule preset")] = "gunzi",
        jitter: Annotated[float, typer.Option(
            help="Think time uniform in (1 ± jitter)/rate; 0: every table in step")] = 0.5,
        as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False,
    ) -> None:
        """N tables of 4 WebSocket clients against a running hall; p50/p99 latency."""
        from gunzi.server.loadtest import run_cli

        raise typer.Exit(run_cli(tables=tables, rate=rate, duration=duration, url=url,
                                 preset=preset, as_json=as_json, jitter=jitter))
