"""Several hall processes on one PostgreSQL schema and one Redis, behind HAProxy with the
shipped ``deploy/haproxy.cfg`` (its ports replaced), as docs/deploy.md runs them. Used by
``test_proxy.py`` and the browser test ``tests/web/test_proxy_web.py``.

Skips when HAProxy, PostgreSQL or Redis is missing (``apt-get install haproxy``).
"""

from __future__ import annotations

import contextlib
import secrets
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import redis

from .util import ServerProc, drop_keys, free_port, pg_schema, redis_or_skip

CONFIG = Path(__file__).resolve().parents[2] / "deploy" / "haproxy.cfg"


@dataclass
class Cluster:
    base: str  # the proxy's URL: the hall
    procs: dict[str, ServerProc]  # p1..pN
    prefix: str  # the hall's Redis keys
    pg: str  # the hall's PostgreSQL URL (its own schema)
    admin: Any  # an admin engine on that database
    admin_socket: Path  # HAProxy's runtime API (level admin)
    redis: redis.Redis

    @property
    def schema(self) -> str:
        return self.pg.rsplit("%3D", 1)[1]

    def owner(self, table_id: str) -> str | None:
        """The process holding the table's lease (``p2``), or None."""
        got = self.redis.get(f"{self.prefix}lease:{table_id}")
        return None if got is None else got.decode().split("/")[0]

    def haproxy(self, command: str) -> str:
        """One command to HAProxy's runtime API, e.g. ``set server any/p1 state drain``."""
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(5)
            s.connect(str(self.admin_socket))
            s.sendall(command.encode() + b"\n")
            out = b""
            while chunk := s.recv(4096):
                out += chunk
        return out.decode()

    def rotation(self, node: str, state: str) -> None:
        """``drain``: the proxy sends no new connection without ``?node=`` to ``node``;
        ``ready``: back in the rotation."""
        got = self.haproxy(f"set server any/{node} state {state}")
        assert got.strip() == "", got

    def revive(self) -> None:
        """Start every process that is not running (killed or stopped by a test) again."""
        down = [p for p in self.procs.values() if p.proc is None or p.proc.poll() is not None]
        if down:
            with ThreadPoolExecutor() as pool:
                list(pool.map(ServerProc.start, down))
        self.wait_ready()

    def wait_ready(self, timeout: float = 30) -> None:
        """Until the proxy's health checks see every running process ready."""
        deadline = time.monotonic() + timeout
        while True:
            stat = self.haproxy("show stat").splitlines()
            head = stat[0].lstrip("# ").split(",")
            rows = [dict(zip(head, line.split(","), strict=False)) for line in stat[1:] if line]
            up = {r["svname"] for r in rows if r.get("pxname") == "any"
                  and r.get("status", "").startswith(("UP", "DRAIN"))}
            live = {n for n, p in self.procs.items() if p.proc is not None
                    and p.proc.poll() is None}
            if live <= up:
                return
            assert time.monotonic() < deadline, f"the proxy sees {up} up, running: {live}"
            time.sleep(0.2)


@contextlib.contextmanager
def proxied_hall(tmp: Path, *, env: dict[str, str], args: tuple[str, ...] = (),
                 n: int = 3) -> Iterator[Cluster]:
    """``n`` processes p1..pN (each ``--node pI``, with ``env`` and extra ``args``) and
    HAProxy in front, every process in the proxy's rotation when this yields."""
    haproxy = shutil.which("haproxy")
    if haproxy is None:
        import pytest

        pytest.skip("HAProxy is not installed (apt-get install -y haproxy)")
    url = redis_or_skip()
    prefix = f"gunzi-test-{secrets.token_hex(4)}:"
    with pg_schema("gunzi_px_") as (pg, _schema, admin):
        procs = {f"p{i}": ServerProc(
            tmp / f"p{i}", args=("--database", pg, "--redis", url, "--node", f"p{i}", *args),
            env={"GUNZI_REDIS_PREFIX": prefix, **env}) for i in range(1, n + 1)}
        port = free_port()
        sock = tmp / "haproxy.sock"
        cfg = CONFIG.read_text().replace("127.0.0.1:8000", f"127.0.0.1:{port}")
        cfg = cfg.replace("global\n", f"global\n    stats socket {sock} mode 600 level admin\n", 1)
        for i, proc in enumerate(procs.values(), start=1):
            cfg = cfg.replace(f"127.0.0.1:800{i}", f"127.0.0.1:{proc.port}")
        (tmp / "haproxy.cfg").write_text(cfg)
        proxy = subprocess.Popen([haproxy, "-db", "-f", str(tmp / "haproxy.cfg")],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        r = redis.Redis.from_url(url)
        try:
            cluster = Cluster(f"http://127.0.0.1:{port}", procs, prefix, pg, admin, sock, r)
            cluster.revive()  # all of them, together; the proxy sees them ready
            yield cluster
        finally:
            with ThreadPoolExecutor() as pool:  # SIGTERM: each hands its tables over
                list(pool.map(ServerProc.stop, procs.values()))
            proxy.terminate()
            proxy.wait(10)
            r.close()
            drop_keys(prefix)
