"""Server settings: one frozen object, from defaults, the environment and command-line flags.

Every knob a test or an operator may turn is here, so the rest of the server
reads ``settings.x`` and never the environment. Environment variables are
``GUNZI_<NAME>`` (e.g. ``GUNZI_DATA``, ``GUNZI_DATABASE``, ``GUNZI_BOT_DELAY``).
"""

from __future__ import annotations

import dataclasses
import os
import socket
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# Argon2id cost profiles (argon2-cffi parameters). "owasp" is the OWASP minimum
# (19 MiB, t=2, p=1, ~57 ms a verify on the reference 2-core box); "cheapest" is
# for tests only.
ARGON2_PROFILES = ("owasp", "rfc9106-low", "cheapest")


@dataclass(frozen=True)
class Settings:
    host: str = "127.0.0.1"
    port: int = 8000
    data_dir: Path = Path("data")
    database_url: str | None = None  # default: sqlite:///<data_dir>/gunzi.sqlite3
    # SQLite durability: FULL survives an OS crash / power loss too; NORMAL survives a
    # process crash (kill -9) only. See docs/server.md.
    sqlite_synchronous: str = "FULL"
    db_threads: int = 4  # worker threads for PostgreSQL; SQLite always uses one writer thread
    # Python's cyclic GC: allocations between young collections. The default (700) makes
    # the collector walk the hall's large, long-lived match state so often that its pauses
    # set the p99 latency (docs/server.md, "Load benchmark"); 0 leaves Python's default.
    gc_gen0: int = 50_000

    # Table pacing (seconds).
    bot_delay: float = 0.6  # before a bot (or 托管) move outside the drawing phase
    hand_pause: float = 4.0  # between a hand's end and the next deal
    away_after: float = 15.0  # a seated player with no socket: bot takes over after this
    # Nobody the table plays for connected for away_after (its seated people; at a table
    # of bots only, any socket): a playing table ends at the end of its current hand, the
    # next deal is not made ("no ghost hand", table_abandoned why=unwatched). abandon_after
    # closes a live table (open or playing) nobody at all is connected to after this: one
    # never started, or one stuck before a deal (why=idle). docs/server.md, "When a table
    # ends by itself".
    abandon_after: float = 1800.0
    default_clock: int = 30  # turn clock of new tables (0 = off)
    max_clock: int = 600

    # Limits.
    ws_max_size: int = 8192  # bytes of one client frame
    ws_rate_messages: int = 300  # per socket, per window (pings are free)
    ws_rate_window: float = 20.0
    ws_pings: int = 20  # pings per socket per ws_rate_window (the page sends one per 25 s)
    ws_per_user: int = 12  # open sockets per user (tabs, tables watched)
    ws_per_ip: int = 64  # open sockets per address (loopback exempt)
    json_max_depth: int = 32  # nesting of a socket frame or an uploaded record's line
    code_lookups_per_minute: int = 30  # room-code lookups per address (loopback exempt)
    record_max_bytes: int = 2_000_000  # an uploaded record (POST /api/timeline)
    http_max_body: int = 65_536  # any other request body (REST JSON)
    record_uploads_per_minute: int = 12  # per address
    ws_queue: int = 512  # frames waiting for a slow socket before it is dropped
    chat_max_len: int = 200
    chat_rate_messages: int = 5
    chat_rate_window: float = 10.0
    chat_history: int = 50
    max_tables: int = 2000  # live tables in the hall
    max_tables_per_user: int = 5  # open or playing tables a user may own
    # Logins (docs/server.md, "Login throttling"): an account's consecutive failures past
    # the free ones delay its next attempt, doubling from login_delay_base up to
    # login_delay_max seconds; an address gets login_attempts_per_ip per login_ip_window.
    login_free_failures: int = 5
    login_delay_base: float = 1.0
    login_delay_max: float = 300.0
    login_forget_after: float = 86400.0  # a failure this old no longer counts
    login_attempts_per_ip: int = 50
    login_ip_window: float = 600.0
    accounts_per_ip_hour: int = 100  # guests and registrations from one non-loopback address
    hash_concurrency: int = 2  # password hashes computed at once (a CPU cap)

    # Accounts.
    argon2_profile: str = "owasp"
    session_days: int = 30
    cookie_name: str = "gunzi_session"
    cookie_secure: bool = False  # set when served over https (behind a TLS proxy)

    # The hall's own origins are always allowed; extra ones (e.g. a dev server) here.
    allowed_origins: tuple[str, ...] = ()
    # Host names the hall answers to (Starlette's TrustedHostMiddleware: 400 for others;
    # "*.example.com" patterns allowed); empty: any host.
    allowed_hosts: tuple[str, ...] = ()
    public_url: str | None = None  # base of shareable links; default: the request's own
    bot: str = "rule"  # bot for bot seats, 托管 and hints (falls back to "random")
    static_dir: Path | None = None  # default: the package's static/ directory
    log_json: bool = False
    log_level: str = "info"

    # Several processes, one hall (docs/deploy.md): with a Redis URL each table is owned by
    # one process at a time through a lease (renewed every lease_ttl/3 s; a process whose
    # renewals fail stops playing a table lease_margin s before its lease would expire) and
    # free tables (a process died) are taken over within lease_scan s. Needs PostgreSQL.
    redis_url: str | None = None
    redis_prefix: str = "gunzi:"  # Redis keys of this hall (several halls on one Redis)
    node: str | None = None  # this process's name in routes and logs; default host:port
    lease_ttl: float = 6.0
    lease_margin: float = 1.5
    lease_scan: float = 1.0

    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def db_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite:///{(self.data_dir / 'gunzi.sqlite3').resolve()}"

    @property
    def node_name(self) -> str:
        return self.node or f"{socket.gethostname()}:{self.port}"

    @property
    def is_sqlite(self) -> bool:
        return self.db_url.startswith("sqlite")

    @property
    def static_path(self) -> Path:
        return self.static_dir or Path(__file__).parent / "static"

    def replace(self, **changes: Any) -> Settings:
        return dataclasses.replace(self, **changes)


def _env(name: str) -> str | None:
    value = os.environ.get(f"GUNZI_{name.upper()}")
    return value if value not in (None, "") else None


def comma_list(text: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in text.split(",") if part.strip())


def from_env(**overrides: Any) -> Settings:
    """Defaults, then ``GUNZI_*`` variables, then ``overrides`` (flags); None means unset."""
    base = Settings()
    values: dict[str, Any] = {}
    data = _env("data")
    if data:
        values["data_dir"] = Path(data)
    db = _env("database")
    if db:
        values["database_url"] = db
    redis = _env("redis")
    if redis:
        values["redis_url"] = redis
    for f in dataclasses.fields(Settings):
        if f.name in ("data_dir", "database_url", "redis_url", "extra", "allowed_origins",
                      "allowed_hosts"):
            continue
        text = _env(f.name)
        if text is None:
            continue
        current = getattr(base, f.name)
        if isinstance(current, bool):
            values[f.name] = text.lower() in ("1", "true", "yes", "on")
        elif isinstance(current, int | float):
            try:
                values[f.name] = type(current)(text)
            except ValueError:
                kind = "a whole number" if isinstance(current, int) else "a number"
                raise ValueError(f"GUNZI_{f.name.upper()}={text!r}: not {kind}") from None
        elif isinstance(current, Path) or f.name == "static_dir":
            values[f.name] = Path(text)
        else:
            values[f.name] = text
    for name in ("allowed_origins", "allowed_hosts"):
        listed = _env(name)
        if listed:
            values[name] = comma_list(listed)
    values.update({k: v for k, v in overrides.items() if v is not None})
    settings = dataclasses.replace(base, **values)
    if settings.argon2_profile not in ARGON2_PROFILES:
        raise ValueError(
            f"argon2 profile {settings.argon2_profile!r}; valid: {', '.join(ARGON2_PROFILES)}"
        )
    if settings.redis_url and settings.is_sqlite:
        raise ValueError("--redis (several processes) needs a shared database: "
                         "--database postgresql+psycopg://...")
    if settings.redis_url and not 0 < settings.lease_margin < settings.lease_ttl / 2:
        raise ValueError("lease_margin must be above 0 and below half of lease_ttl")
    if "/" in settings.node_name:
        raise ValueError("a node name may not contain '/'")
    if settings.sqlite_synchronous.upper() not in ("FULL", "NORMAL", "EXTRA"):
        raise ValueError("sqlite_synchronous must be FULL, NORMAL or EXTRA")
    return settings
