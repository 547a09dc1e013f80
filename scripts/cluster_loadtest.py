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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--processes", type=int, default=3)
    ap.add_argument("--tables", type=int, default=100)
    ap.add_argument("--rate", type=float, default=1.0)
    ap.add_argument("--duration", type=float, default=30.0)
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
        result = asyncio.run(loadtest.run(url, args.tables, args.rate, args.duration,
                                          "gunzi"))
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
