"""Load benchmark of the hall on several processes behind HAProxy (docs/deploy.md,
docs/server.md "Load benchmark"): starts N ``gunzi serve`` processes on a fresh PostgreSQL
schema and Redis key prefix, HAProxy with deploy/haproxy.cfg in front (N > 1), runs
``gunzi loadtest`` through it and prints its JSON; ``--processes 1`` (no Redis, no proxy)
is the yardstick on the same database, measured the same way.

    python scripts/cluster_loadtest.py --processes 3 --tables 600 --rate 1 --duration 45
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import create_engine, text

from gunzi.server import loadtest

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def wait_ready(url: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/readyz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise SystemExit(f"{url} did not become ready")


TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of one process so far (0 if it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICK


def pids_named(name: str) -> list[int]:
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if (d / "comm").read_text().strip() == name:
                    out.append(int(d.name))
            except OSError:
                pass
    return out


class CpuBudget:
    """Where the machine's CPU goes in the measured window: each hall process, PostgreSQL,
    Redis, HAProxy and the load generator, and the machine's busy share (/proc/stat), so a
    missed target can be put down to a cause (docs/server.md, "Load benchmark")."""

    def __init__(self, halls: dict[str, int], haproxy: int | None) -> None:
        self.halls = halls
        self.haproxy = haproxy
        self.start: dict[str, float] = {}
        self.spent: dict[str, float] = {}

    def _groups(self) -> dict[str, float]:
        got = {name: cpu_seconds(pid) for name, pid in self.halls.items()}
        got["postgres"] = sum(cpu_seconds(p) for p in pids_named("postgres"))
        got["redis"] = sum(cpu_seconds(p) for p in pids_named("redis-server"))
        if self.haproxy is not None:
            got["haproxy"] = cpu_seconds(self.haproxy)
        got["loadgen"] = cpu_seconds(os.getpid())
        busy, total = self._machine()
        got["_busy"], got["_total"] = busy, total
        return got

    @staticmethod
    def _machine() -> tuple[float, float]:
        cpu = [int(v) for v in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
        idle = cpu[3] + cpu[4]
        return (sum(cpu) - idle) / TICK, sum(cpu) / TICK

    def window(self, opening: bool) -> None:
        now = time.monotonic()
        if opening:
            self.start = {**self._groups(), "_t": now}
        else:
            end = {**self._groups(), "_t": now}
            self.spent = {k: end[k] - self.start[k] for k in end}

    def report(self, actions: int) -> dict[str, Any]:
        s = self.spent
        wall = s.pop("_t")
        busy, total = s.pop("_busy"), s.pop("_total")
        return {"machine_busy": round(busy / total, 3),
                "cores_used": {k: round(v / wall, 3) for k, v in s.items()},
                "hall_cpu_ms_per_action": round(
                    1e3 * sum(v for k, v in s.items() if k.startswith("p")) / max(1, actions),
                    3)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--processes", type=int, default=3)
    ap.add_argument("--tables", type=int, default=100)
    ap.add_argument("--rate", type=float, default=1.0)
    ap.add_argument("--duration", type=float, default=30.0)
    ap.add_argument("--jitter", type=float, default=loadtest.JITTER,
                    help="think time uniform in (1 +- jitter)/rate; 0: every table in step")
    ap.add_argument("--pg", default="postgresql+psycopg://postgres@127.0.0.1:5432/test")
    ap.add_argument("--redis", default="redis://127.0.0.1:6379/0")
    args = ap.parse_args()
    if not 1 <= args.processes <= 3:
        raise SystemExit("--processes is 1, 2 or 3 (deploy/haproxy.cfg lists three)")
    schema = f"gunzi_bench_{secrets.token_hex(4)}"
    admin = create_engine(args.pg)
    with admin.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    db = f"{args.pg}?options=-csearch_path%3D{schema}"
    prefix = f"gunzi-bench-{secrets.token_hex(4)}:"
    tmp = Path(tempfile.mkdtemp(prefix="gunzi-bench-"))
    procs: list[subprocess.Popen[bytes]] = []
    ports = [free_port() for _ in range(args.processes)]
    try:
        for i, port in enumerate(ports, start=1):
            cmd = [sys.executable, "-m", "gunzi.server", "serve", "--port", str(port),
                   "--database", db, "--data-dir", str(tmp), "--log-level", "warning"]
            if args.processes > 1:
                cmd += ["--redis", args.redis, "--node", f"p{i}"]
            env = {**os.environ, "GUNZI_REDIS_PREFIX": prefix,
                   "GUNZI_ARGON2_PROFILE": "cheapest"}
            with (tmp / f"p{i}.log").open("ab") as log:
                procs.append(subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT,
                                              env=env))
        for port in ports:
            wait_ready(f"http://127.0.0.1:{port}")
        url = f"http://127.0.0.1:{ports[0]}"
        if args.processes > 1:
            haproxy = shutil.which("haproxy")
            if haproxy is None:
                raise SystemExit("HAProxy is not installed (apt-get install -y haproxy)")
            front = free_port()
            cfg = (ROOT / "deploy" / "haproxy.cfg").read_text().replace(
                "127.0.0.1:8000", f"127.0.0.1:{front}")
            for i in range(1, 4):
                port = ports[(i - 1) % len(ports)]
                cfg = cfg.replace(f"127.0.0.1:800{i}", f"127.0.0.1:{port}")
            (tmp / "haproxy.cfg").write_text(cfg)
            procs.append(subprocess.Popen([haproxy, "-db", "-f", str(tmp / "haproxy.cfg")],
                                          stdout=subprocess.DEVNULL,
                                          stderr=subprocess.DEVNULL))
            url = f"http://127.0.0.1:{front}"
            wait_ready(url)
        budget = CpuBudget({f"p{i}": p.pid for i, p in enumerate(procs[:args.processes], 1)},
                           procs[-1].pid if args.processes > 1 else None)
        result = asyncio.run(loadtest.run(url, args.tables, args.rate, args.duration,
                                          "gunzi", window=budget.window,
                                          jitter=args.jitter))
        result["cpu"] = budget.report(result["actions_acked"])
        print(json.dumps({"processes": args.processes, **result}))
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            try:
                p.wait(20)
            except subprocess.TimeoutExpired:
                p.kill()
        with admin.begin() as conn:
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
