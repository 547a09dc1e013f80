"""Several hall processes on one PostgreSQL schema and one Redis, behind HAProxy with the
shipped ``deploy/haproxy.cfg`` (its ports replaced), as docs/deploy.md runs them. Used by
``test_proxy.py`` and the browser test ``tests/web/test_proxy_web.py``; :func:`nginx_hall`
puts nginx with ``deploy/nginx.conf`` in front instead (``test_nginx.py``).

Skips when HAProxy (nginx), PostgreSQL or Redis is missing (``apt-get install haproxy``).
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
NGINX_CONFIG = CONFIG.with_name("nginx.conf")


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


def _proxy_or_skip(program: str, name: str) -> tuple[str, str, str]:
    """The proxy's executable, the Redis URL and a fresh key prefix; skips the test when
    the proxy is not installed or Redis is unreachable."""
    found = shutil.which(program)
    if found is None:
        import pytest

        pytest.skip(f"{name} is not installed (apt-get install -y {program})")
    return found, redis_or_skip(), f"gunzi-test-{secrets.token_hex(4)}:"


def _processes(tmp: Path, pg: str, url: str, prefix: str, env: dict[str, str],
               args: tuple[str, ...], n: int) -> dict[str, ServerProc]:
    """Processes p1..pN of one hall (not started yet)."""
    return {f"p{i}": ServerProc(
        tmp / f"p{i}", args=("--database", pg, "--redis", url, "--node", f"p{i}", *args),
        env={"GUNZI_REDIS_PREFIX": prefix, **env}) for i in range(1, n + 1)}


def _with_ports(cfg: str, port: int, procs: dict[str, ServerProc]) -> str:
    """A shipped proxy config with the hall on ``port`` and p1..pN on their own ports."""
    cfg = cfg.replace("127.0.0.1:8000", f"127.0.0.1:{port}")
    for i, proc in enumerate(procs.values(), start=1):
        cfg = cfg.replace(f"127.0.0.1:800{i}", f"127.0.0.1:{proc.port}")
    return cfg


@contextlib.contextmanager
def proxied_hall(tmp: Path, *, env: dict[str, str], args: tuple[str, ...] = (),
                 n: int = 3) -> Iterator[Cluster]:
    """``n`` processes p1..pN (each ``--node pI``, with ``env`` and extra ``args``) and
    HAProxy in front, every process in the proxy's rotation when this yields."""
    haproxy, url, prefix = _proxy_or_skip("haproxy", "HAProxy")
    with pg_schema("gunzi_px_") as (pg, _schema, admin):
        procs = _processes(tmp, pg, url, prefix, env, args, n)
        port = free_port()
        sock = tmp / "haproxy.sock"
        cfg = _with_ports(CONFIG.read_text(), port, procs)
        cfg = cfg.replace("global\n", f"global\n    stats socket {sock} mode 600 level admin\n", 1)
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


@contextlib.contextmanager
def nginx_hall(tmp: Path, *, env: dict[str, str] | None = None, n: int = 3
               ) -> Iterator[tuple[str, dict[str, ServerProc]]]:
    """``n`` processes p1..pN and nginx in front with ``deploy/nginx.conf`` included in a
    minimal ``http {}`` (its ports replaced); yields the hall's URL and the processes."""
    nginx, url, prefix = _proxy_or_skip("nginx", "nginx")
    with pg_schema("gunzi_nx_") as (pg, _schema, _admin):
        procs = _processes(tmp, pg, url, prefix, env or {}, (), n)
        port = free_port()
        prefix_dir = tmp / "nginx"
        (prefix_dir / "logs").mkdir(parents=True)
        (prefix_dir / "gunzi.conf").write_text(
            _with_ports(NGINX_CONFIG.read_text(), port, procs))
        temp = " ".join(f"{kind}_temp_path {prefix_dir / kind};"
                        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
        (prefix_dir / "nginx.conf").write_text(
            f"daemon off;\npid {prefix_dir / 'nginx.pid'};\nerror_log stderr warn;\n"
            f"events {{}}\nhttp {{\n    access_log off;\n    {temp}\n"
            f"    include {prefix_dir / 'gunzi.conf'};\n}}\n")
        proxy: subprocess.Popen[bytes] | None = None
        try:
            with ThreadPoolExecutor() as pool:
                list(pool.map(ServerProc.start, procs.values()))
            with (prefix_dir / "logs" / "error.log").open("wb") as errors:
                proxy = subprocess.Popen(
                    [nginx, "-p", str(prefix_dir), "-e", "stderr", "-c",
                     str(prefix_dir / "nginx.conf")], stdout=subprocess.DEVNULL, stderr=errors)
            base = f"http://127.0.0.1:{port}"
            deadline = time.monotonic() + 30
            while True:
                assert proxy.poll() is None, (prefix_dir / "logs" / "error.log").read_text()
                with contextlib.suppress(OSError):
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                assert time.monotonic() < deadline, "nginx did not start"
                time.sleep(0.1)
            yield base, procs
        finally:
            with ThreadPoolExecutor() as pool:
                list(pool.map(ServerProc.stop, procs.values()))
            if proxy is not None:
                proxy.terminate()
                proxy.wait(10)
            drop_keys(prefix)
