"""Helpers for the hall's tests: settings, a real server in a subprocess, WebSocket players."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import random
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from fastapi.testclient import TestClient
from sqlalchemy.engine import Engine
from websockets.asyncio.client import ClientConnection, connect
from websockets.typing import Origin

from gunzi.server.loadtest import post_as
from gunzi.server.settings import Settings

PG_URL = os.environ.get("GUNZI_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test")


def hall_settings(data_dir: Path, **changes: Any) -> Settings:
    base = Settings(
        data_dir=data_dir,
        argon2_profile="cheapest",
        sqlite_synchronous="NORMAL",
        bot_delay=0.0,
        hand_pause=0.0,
        away_after=60.0,
        default_clock=0,
        ws_rate_messages=100_000,
        log_level="warning",
    )
    return base.replace(**changes)


def failing_commit(monkeypatch: Any) -> dict[str, bool]:
    """Make the next commit fail once ``fail["next"]`` is set (``fail`` is returned)."""
    from gunzi.server import db

    real = db.commit_action
    fail = {"next": False}

    def flaky(*args: Any) -> None:
        if fail["next"]:
            fail["next"] = False
            raise RuntimeError("disk full")
        real(*args)

    monkeypatch.setattr(db, "commit_action", flaky)
    return fail


def guest(client: TestClient | httpx.Client) -> dict[str, Any]:
    """Sign the client in as a new guest (its cookie jar keeps the session)."""
    r = client.post("/api/auth/guest")
    assert r.status_code == 200, r.text
    user: dict[str, Any] = r.json()["user"]
    return user


def cookie_guest(client: TestClient) -> dict[str, str]:
    """Sign in a new guest and return its Cookie header (the client's jar is cleared)."""
    client.cookies.clear()
    guest(client)
    cookie = {"Cookie": f"gunzi_session={client.cookies['gunzi_session']}"}
    client.cookies.clear()
    return cookie


def four_humans(client: TestClient, preset: str = "classic-1", **body: Any
                ) -> tuple[str, list[dict[str, str]]]:
    """A started table with four guests seated; returns its id and their cookie headers."""
    cookies = [cookie_guest(client) for _ in range(4)]
    r = client.post("/api/tables", json={"preset": preset, **body}, headers=cookies[0])
    assert r.status_code == 201, r.text
    tid: str = r.json()["id"]
    for seat, cookie in enumerate(cookies):
        assert client.post(f"/api/tables/{tid}/seats/{seat}", headers=cookie).status_code == 200
    assert client.post(f"/api/tables/{tid}/start", headers=cookies[0]).status_code == 200
    return tid, cookies


def recv(ws: Any, want: str | tuple[str, ...], limit: int = 5000) -> dict[str, Any]:
    """Frames from a TestClient socket until one of type ``want``."""
    kinds = (want,) if isinstance(want, str) else want
    for _ in range(limit):
        frame: dict[str, Any] = json.loads(ws.receive_text())
        if frame["t"] in kinds:
            return frame
    raise AssertionError(f"no {want} frame")


def play_out(client: TestClient, tid: str, cookie: dict[str, str]) -> list[dict[str, Any]]:
    """Play seat 0 by hints until the table finishes; return every frame."""
    frames: list[dict[str, Any]] = []
    with client.websocket_connect(f"/ws/tables/{tid}", headers=cookie) as ws:
        ws.send_json({"t": "hello"})
        n = 0
        while True:
            f = ws.receive_json()
            frames.append(f)
            if f["t"] in ("events", "snapshot") and f["turn"]["seat"] == 0:
                ws.send_json({"t": "hint"})
            elif f["t"] == "hint" and f["action"] is not None:
                n += 1
                ws.send_json({"t": "act", "id": f"m{n}", "action": f["action"]})
            elif f["t"] == "ack":
                assert f["ok"], f
            elif f["t"] == "table" and f["table"]["status"] == "finished":
                return frames


def pg_reachable() -> bool:
    try:
        with socket.create_connection(("127.0.0.1", 5432), timeout=1):
            pass
    except OSError:
        return False
    try:
        import psycopg

        url = PG_URL.replace("postgresql+psycopg://", "postgresql://")
        with psycopg.connect(url, connect_timeout=2) as conn:
            conn.execute("SELECT 1")
    except Exception:
        return False
    return True


@contextlib.contextmanager
def pg_schema(prefix: str) -> Iterator[tuple[str, str, Engine]]:
    """A fresh schema on the PostgreSQL test server, dropped afterwards: yields the hall's
    database URL (search_path set to it), the schema and an admin engine; skips when
    the server is unreachable."""
    import pytest
    from sqlalchemy import create_engine, text

    if not pg_reachable():
        pytest.skip("PostgreSQL at 127.0.0.1:5432 (database test) is not reachable")
    schema = prefix + secrets.token_hex(4)
    admin = create_engine(PG_URL)
    with admin.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    try:
        yield f"{PG_URL}?options=-csearch_path%3D{schema}", schema, admin
    finally:
        with admin.begin() as conn:
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


REDIS_URL = os.environ.get("GUNZI_TEST_REDIS", "redis://127.0.0.1:6379/0")


def redis_or_skip() -> str:
    """The Redis test server's URL; skips the test when it is unreachable."""
    import pytest
    import redis

    try:
        redis.Redis.from_url(REDIS_URL, socket_timeout=2, socket_connect_timeout=2).ping()
    except Exception:
        pytest.skip(f"Redis at {REDIS_URL} is not reachable")
    return REDIS_URL


def drop_keys(prefix: str) -> None:
    """Delete a test's Redis keys (its own prefix)."""
    import redis

    r = redis.Redis.from_url(REDIS_URL)
    keys = list(r.scan_iter(f"{prefix}*"))
    if keys:
        r.delete(*keys)


@contextlib.contextmanager
def pg_and_prefix(schema_prefix: str) -> Iterator[tuple[str, str, Engine]]:
    """A hall of several processes' shared parts for one test: a fresh PostgreSQL schema
    (its URL), a fresh Redis key prefix and the admin engine; skips when either server
    is unreachable."""
    redis_or_skip()
    prefix = f"gunzi-test-{secrets.token_hex(4)}:"
    with pg_schema(schema_prefix) as (pg, _schema, admin):
        try:
            yield pg, prefix, admin
        finally:
            drop_keys(prefix)


def node_settings(tmp: Path, pg: str, prefix: str, node: str, **changes: Any) -> Settings:
    """One process ``node`` of such a hall (its data dir under ``tmp``)."""
    return hall_settings(tmp / node, database_url=pg, redis_url=redis_or_skip(),
                         redis_prefix=prefix, node=node, **changes)


# ----------------------------------------------------------------- real server


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class ServerProc:
    """``python -m gunzi.server serve`` in a subprocess (the same code as ``gunzi serve``)."""

    def __init__(self, data_dir: Path, *, port: int | None = None, args: tuple[str, ...] = (),
                 env: dict[str, str] | None = None) -> None:
        self.data_dir = data_dir
        self.port = port or free_port()
        self.args = args
        self.env = {
            **os.environ,
            "GUNZI_ARGON2_PROFILE": "cheapest",
            "GUNZI_WS_RATE_MESSAGES": "100000",
            "GUNZI_SQLITE_SYNCHRONOUS": "FULL",
            **(env or {}),
        }
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = data_dir / "server.log"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self) -> ServerProc:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        cmd = [sys.executable, "-m", "gunzi.server", "serve", "--port", str(self.port),
               "--data-dir", str(self.data_dir), "--bot-delay", "0", "--hand-pause", "0",
               "--away-after", "120", "--clock", "0", "--log-level", "warning", *self.args]
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT,
                                         env=self.env)
        deadline = time.monotonic() + 90  # a loaded 2-core machine starts Python slowly
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited: {self.log.read_text()[-2000:]}")
            try:
                if httpx.get(f"{self.url}/healthz", timeout=1).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise RuntimeError("server did not start")

    def kill(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)

    def __enter__(self) -> ServerProc:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


# --------------------------------------------------------------- async players


async def async_guest(http: httpx.AsyncClient) -> str:
    """A new guest; returns its Cookie header value."""
    http.cookies.clear()  # a guest call with a session cookie would end that session
    r = await http.post("/api/auth/guest")
    r.raise_for_status()
    http.cookies.clear()
    return f"gunzi_session={r.cookies['gunzi_session']}"


@dataclass
class Player:
    """A WebSocket client that records every frame and, if ``play``, plays the hints.

    ``frames`` keeps every frame of every connection, in order, as received.
    """

    ws_base: str
    table_id: str
    cookie: str | None
    play: bool = True
    watch: bool = False
    rng: random.Random = field(default_factory=lambda: random.Random(0))
    poke: float = 0.0  # probability of a deliberate out-of-turn action per frame
    frames: list[dict[str, Any]] = field(default_factory=list)
    raw_bytes: int = 0
    seat: int | None = None
    seq: int = 0
    status: str = "open"
    acks: dict[str, dict[str, Any]] = field(default_factory=dict)
    sent: dict[str, dict[str, Any]] = field(default_factory=dict)
    gaps: list[str] = field(default_factory=list)
    n: int = 0
    hint_for: int | None = None
    turn: bool = False
    ws: ClientConnection | None = None
    task: asyncio.Task[None] | None = None
    finished: asyncio.Event = field(default_factory=asyncio.Event)
    on_ack: Any = None  # callback(player, cid, frame)
    closed_code: int | None = None
    pending: str | None = None  # an act sent and not acked yet: resent, same id, on reconnect
    node: str | None = None  # several processes behind a proxy: the one to reach (?node=)
    resends: int = 0
    origin: str | None = None  # the handshake's Origin, as a browser sends it

    async def connect(self, last_seq: int | None) -> None:
        headers = {"Cookie": self.cookie} if self.cookie else {}
        query = "&".join(q for q in ("watch=1" if self.watch else "",
                                       f"node={self.node}" if self.node else "") if q)
        url = f"{self.ws_base}/ws/tables/{self.table_id}" + (f"?{query}" if query else "")
        self.ws = await connect(url, additional_headers=headers, compression=None,
                                max_size=2**24, open_timeout=20,
                                origin=None if self.origin is None else Origin(self.origin))
        self.hint_for = None
        await self.ws.send(json.dumps({"t": "hello", "last_seq": last_seq}))
        if self.play and self.pending is not None:
            # As docs/protocol.md says: resend what was not acked, with the same id.
            self.resends += 1
            await self.ws.send(json.dumps({"t": "act", "id": self.pending,
                                           "action": self.sent[self.pending]}))
        self.task = asyncio.create_task(self._loop(self.ws))

    async def disconnect(self) -> None:
        if self.ws is not None:
            await self.ws.close()
        if self.task is not None:
            with contextlib.suppress(Exception):
                await self.task
        self.ws = None

    async def _loop(self, ws: ClientConnection) -> None:
        try:
            async for raw in ws:
                assert isinstance(raw, str)
                self.raw_bytes += len(raw)
                frame = json.loads(raw)
                self.frames.append(frame)
                await self._handle(ws, frame)
        except Exception:
            pass
        finally:
            self.closed_code = ws.close_code

    async def _handle(self, ws: ClientConnection, f: dict[str, Any]) -> None:
        t = f["t"]
        if t == "welcome":
            self.seat = f["seat"]
            self.status = f["table"]["status"]
            if self.status in ("finished", "abandoned"):
                self.finished.set()
        elif t == "table":
            self.status = f["table"]["status"]
            if self.status in ("finished", "abandoned"):
                self.finished.set()
        elif t in ("events", "snapshot"):
            events = f["events"]
            if t == "events" and events:
                expect = self.seq + 1
                if events[0]["seq"] != expect:
                    self.gaps.append(f"expected seq {expect}, got {events[0]['seq']}")
            for a, b in itertools.pairwise(events):
                if b["seq"] != a["seq"] + 1:
                    self.gaps.append(f"seq {a['seq']} then {b['seq']}")
            self.seq = f["seq"]
            turn = f.get("turn") or {}
            self.turn = self.seat is not None and turn.get("seat") == self.seat
            if self.play and self.turn and self.hint_for != self.seq and self.pending is None:
                self.hint_for = self.seq
                await ws.send(json.dumps({"t": "hint", "id": f"h{self.seq}"}))
            elif (self.play and not self.turn and self.seat is not None and self.poke
                  and self.rng.random() < self.poke):
                self.n += 1
                await ws.send(json.dumps({"t": "act", "id": f"poke{self.n}",
                                          "action": {"type": "play", "cards": []}}))
        elif t == "hint":
            action = f.get("action")
            # Only the answer to our latest request, for the decision we are at, and only once.
            fresh = f.get("id") in (f"h{self.seq}", f"r{self.seq}") and self.hint_for == self.seq
            if action is not None and self.play and fresh and self.pending is None:
                self.n += 1
                cid = f"a{self.n}"
                self.sent[cid] = action
                self.pending = cid
                await ws.send(json.dumps({"t": "act", "id": cid, "action": action,
                                          "seq": self.seq}))
        elif t == "ack":
            self.acks[f["id"]] = f
            if self.on_ack is not None:
                self.on_ack(self, f["id"], f)
            if f["id"] == self.pending:
                self.pending = None
            if not f["ok"] and not f["id"].startswith("poke"):
                self.hint_for = None  # refused: ask again
            if (self.play and self.turn and self.pending is None
                    and self.hint_for != self.seq):
                self.hint_for = self.seq
                await ws.send(json.dumps({"t": "hint", "id": f"r{self.seq}"}))


async def make_table(http: httpx.AsyncClient, preset: str, *, max_hands: int = 0,
                     clock: int = 0, options: dict[str, Any] | None = None
                     ) -> tuple[str, list[str]]:
    """A public table with four guests seated (not started); returns its id and cookies."""
    cookies = [await async_guest(http) for _ in range(4)]
    r = await http.post("/api/tables", json={"preset": preset, "max_hands": max_hands,
                                             "clock": clock, "options": options or {}},
                        headers={"Cookie": cookies[0]})
    r.raise_for_status()
    tid = r.json()["id"]
    for seat, cookie in enumerate(cookies):
        r = await post_as(http, f"/api/tables/{tid}/seats/{seat}", cookie)
        r.raise_for_status()
    return tid, cookies


class TcpProxy:
    """A TCP forwarder to ``target`` on a free local port, in threads; :meth:`cut` drops
    every connection and refuses new ones (a network partition for its clients)."""

    def __init__(self, target: tuple[str, int]) -> None:
        import threading

        self.target = target
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self.listener.getsockname()[1]
        self.conns: list[socket.socket] = []
        self.lock = threading.Lock()
        self.cut_done = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        import threading

        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(self.target, timeout=5)
            except OSError:
                client.close()
                continue
            with self.lock:
                if self.cut_done:
                    client.close()
                    upstream.close()
                    return
                self.conns += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        for s in (src, dst):
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)

    def cut(self) -> None:
        with self.lock:
            self.cut_done = True
            with contextlib.suppress(OSError):
                self.listener.shutdown(socket.SHUT_RDWR)
            self.listener.close()
            for s in self.conns:
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)
                s.close()
