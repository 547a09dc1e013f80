"""Load benchmark (not a test): N tables of four WebSocket players against a running hall.

    python -m gunzi.server.loadtest --tables 50 --rate 1 --duration 30

Each table gets four guest accounts, one socket each. The seat to act waits a think
time, asks for a hint and plays it, so a table makes about ``rate`` decisions a second.
The think time is drawn uniformly from ``(1 ± jitter)/rate`` (seeded; mean ``1/rate``):
with ``--jitter 0`` every table thinks exactly ``1/rate`` s, and since all start
together they keep acting in the same instant once a second, a burst no hall of people
makes (docs/server.md, "Load benchmark", gives both figures). For every card play the
time from sending the ``act`` to the frame holding that play arriving on each of the four
sockets is recorded: p50/p99 action-to-broadcast latency, over all plays and recipients.
Loopback only, bounded by ``--duration``.
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import json
import random
import resource
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import httpx
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from gunzi.server.cluster import MOVED


def _loopback(url: str) -> bool:
    host = urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    k = min(len(s) - 1, max(0, round(q * (len(s) - 1))))
    return s[k]


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)  # seconds, per play per recipient
    hint_rtt: list[float] = field(default_factory=list)
    acks: int = 0
    refused: int = 0
    retries: int = 0  # 503 + Retry-After answers (a table between owners), asked again
    errors: list[str] = field(default_factory=list)
    frames: int = 0
    measuring: bool = False
    stopping: bool = False


JITTER = 0.5  # think time uniform in (1 +- JITTER)/rate
MAX_MOVES = 5  # `moved` answers followed before a socket counts as an error


@dataclass
class Pending:
    seat: int
    sent: float
    seen: set[int] = field(default_factory=set)


class Player:
    def __init__(self, table: LoadTable, seat: int, cookie: str) -> None:
        self.table = table
        self.seat = seat
        self.cookie = cookie
        self.ws: ClientConnection | None = None
        self.n = 0
        self.turn = False
        self.seq = 0
        self.hint_seq = -1
        self.hint_sent = 0.0

    async def run(self, ws_url: str, stop: asyncio.Event) -> None:
        stats = self.table.stats
        url = ws_url
        try:
            for _ in range(MAX_MOVES):
                async with connect(url, additional_headers={"Cookie": self.cookie},
                                   compression=None, max_size=2**24, open_timeout=30) as ws:
                    try:
                        await ws.send(json.dumps({"t": "hello", "views": False}))
                        first = json.loads(await ws.recv())  # the welcome, or "moved"
                    except ConnectionClosed:
                        if ws.close_code != MOVED:
                            raise
                        first = {"t": "moved", "node": ws.close_reason or None}
                    stats.frames += 1
                    if first.get("t") == "moved":
                        # Several processes behind a proxy: go to the one that plays the
                        # table (docs/deploy.md); none yet: ask again shortly.
                        node = first.get("node")
                        url = f"{ws_url}?node={node}" if node else ws_url
                        await asyncio.sleep(0 if node else 0.3)
                        continue
                    self.ws = ws
                    receiver = asyncio.create_task(self._receive(ws))
                    stopper = asyncio.create_task(stop.wait())
                    await asyncio.wait({receiver, stopper},
                                       return_when=asyncio.FIRST_COMPLETED)
                    if receiver.done() and not stop.is_set():
                        stats.errors.append(f"seat {self.seat}: socket closed "
                                            f"({ws.close_code} {ws.close_reason})")
                    receiver.cancel()
                    stopper.cancel()
                    return
            stats.errors.append(f"seat {self.seat}: moved {MAX_MOVES} times")
        except Exception as exc:
            if not stop.is_set() and not stats.stopping:
                stats.errors.append(f"seat {self.seat}: {type(exc).__name__}: {exc}"[:200])

    async def _receive(self, ws: ClientConnection) -> None:
        stats = self.table.stats
        async for raw in ws:
            now = time.perf_counter()
            stats.frames += 1
            f = json.loads(raw)
            t = f.get("t")
            if t in ("events", "snapshot"):
                self.seq = f["seq"]
                pend = self.table.pending
                if pend is not None:
                    for e in f["events"]:
                        if e.get("type") == "play" and e.get("seat") == pend.seat \
                                and self.seat not in pend.seen:
                            pend.seen.add(self.seat)
                            if stats.measuring:
                                stats.latencies.append(now - pend.sent)
                turn = f.get("turn") or {}
                self.turn = turn.get("seat") == self.seat
                if self.turn and self.hint_seq != self.seq:  # a new decision of ours
                    self.hint_seq = self.seq
                    asyncio.get_running_loop().call_later(
                        self.table.think, lambda: asyncio.ensure_future(self._hint()))
            elif t == "hint":
                if stats.measuring:
                    stats.hint_rtt.append(now - self.hint_sent)
                action = f.get("action")
                if action is None:
                    continue
                self.n += 1
                if action.get("type") == "play":
                    self.table.pending = Pending(self.seat, time.perf_counter())
                await ws.send(json.dumps({"t": "act", "id": f"a{self.n}", "action": action}))
            elif t == "ack":
                if f.get("ok"):
                    stats.acks += 1
                else:
                    stats.refused += 1
                    if self.turn:  # ask again
                        await self._hint()
            elif t == "error":
                stats.errors.append(f"error frame: {f.get('code')}")

    async def _hint(self) -> None:
        if self.ws is None or not self.turn:
            return
        self.hint_sent = time.perf_counter()
        try:
            await self.ws.send(json.dumps({"t": "hint"}))
        except Exception as exc:
            if not self.table.stats.stopping:
                self.table.stats.errors.append(f"send: {type(exc).__name__}")


class LoadTable:
    def __init__(self, stats: Stats, think: float, jitter: float = 0.0,
                 rng: random.Random | None = None) -> None:
        self.stats = stats
        self.mean_think = think
        self.jitter = jitter
        self.rng = rng or random.Random(0)  # noqa: S311 (think times, not secrets)
        self.pending: Pending | None = None
        self.players: list[Player] = []

    @property
    def think(self) -> float:
        """The next decision's think time (s)."""
        if not self.jitter:
            return self.mean_think
        return self.mean_think * self.rng.uniform(1 - self.jitter, 1 + self.jitter)


async def _guest(client: httpx.AsyncClient) -> str:
    client.cookies.clear()  # a guest call with a session cookie would end that session
    r = await client.post("/api/auth/guest")
    r.raise_for_status()
    client.cookies.clear()
    return f"gunzi_session={r.cookies['gunzi_session']}"


async def post_as(client: httpx.AsyncClient, path: str, cookie: str,
                  stats: Stats | None = None, **kw: Any) -> httpx.Response:
    """POST as the guest ``cookie``; behind a proxy, a 307 to the process that plays the
    table is followed with the same cookie (httpx drops an explicit Cookie header on a
    redirect; a browser keeps its cookies)."""
    r = await client.post(path, headers={"Cookie": cookie}, **kw)
    for _ in range(MAX_MOVES):
        if r.status_code == 307:
            r = await client.post(r.headers["location"], headers={"Cookie": cookie}, **kw)
        elif r.status_code == 503 and r.headers.get("retry-after"):
            # Between two owners (not carried out): again after the pause asked for, as
            # the page does (static/js/api.js).
            if stats is not None:
                stats.retries += 1
            await asyncio.sleep(min(2.0, float(r.headers["retry-after"])))
            r = await client.post(path, headers={"Cookie": cookie}, **kw)
        else:
            break
    return r


async def setup_table(client: httpx.AsyncClient, preset: str, stats: Stats,
                      think: float, jitter: float = 0.0,
                      rng: random.Random | None = None) -> tuple[str, LoadTable]:
    cookies = [await _guest(client) for _ in range(4)]
    r = await client.post("/api/tables", json={"preset": preset, "public": False, "clock": 0},
                          headers={"Cookie": cookies[0]})
    r.raise_for_status()
    tid = r.json()["id"]
    table = LoadTable(stats, think, jitter, rng)
    for seat, cookie in enumerate(cookies):
        r = await post_as(client, f"/api/tables/{tid}/seats/{seat}", cookie, stats)
        r.raise_for_status()
        table.players.append(Player(table, seat, cookie))
    return tid, table


async def run(url: str, tables: int, rate: float, duration: float, preset: str,
              warmup: float = 3.0,
              window: Callable[[bool], None] | None = None,
              jitter: float = JITTER, seed: int = 1) -> dict[str, Any]:
    """The load test; ``window(True)`` and ``window(False)`` are called as the measured
    window opens and closes (scripts/cluster_loadtest.py reads the servers' CPU time)."""
    if not _loopback(url):
        raise SystemExit("the load test only runs against a loopback address")
    stats = Stats()
    if not 0 <= jitter < 1:
        raise SystemExit("--jitter is from 0 up to (not including) 1")
    think = 1.0 / rate if rate > 0 else 0.0
    rng = random.Random(seed)  # noqa: S311 (think times, not secrets)
    ws_base = url.replace("http://", "ws://").replace("https://", "wss://").rstrip("/")
    stop = asyncio.Event()
    async with httpx.AsyncClient(base_url=url, timeout=30) as client:
        made = []
        for _ in range(tables):
            made.append(await setup_table(client, preset, stats, think, jitter, rng))
        tasks = []
        for tid, table in made:
            for p in table.players:
                tasks.append(asyncio.create_task(p.run(f"{ws_base}/ws/tables/{tid}", stop)))
        await asyncio.sleep(1.0)
        for tid, table in made:
            r = await post_as(client, f"/api/tables/{tid}/start", table.players[0].cookie,
                              stats)
            if r.status_code != 200:
                stats.errors.append(f"start {r.status_code} {r.text[:120]}")
        await asyncio.sleep(warmup)
        ru0 = resource.getrusage(resource.RUSAGE_SELF)
        acks0 = stats.acks
        stats.measuring = True
        if window is not None:
            window(True)
        t0 = time.perf_counter()
        await asyncio.sleep(duration)
        elapsed = time.perf_counter() - t0
        stats.measuring = False
        if window is not None:
            window(False)
        ru1 = resource.getrusage(resource.RUSAGE_SELF)
        acks = stats.acks - acks0
        stats.stopping = True
        stop.set()
        await asyncio.wait(tasks, timeout=10)
        metrics = (await client.get("/metrics")).text
    cpu = (ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime)
    lat = stats.latencies
    return {
        "tables": tables,
        "sockets": tables * 4,
        "rate_per_table": rate,
        "think_jitter": jitter,
        "seconds": round(elapsed, 1),
        "actions_acked": acks,
        "actions_per_s": round(acks / elapsed, 1),
        "plays_measured": len(lat) // 4,
        "latency_ms": {"p50": round(percentile(lat, 0.5) * 1e3, 2),
                       "p99": round(percentile(lat, 0.99) * 1e3, 2),
                       "max": round(max(lat) * 1e3, 2) if lat else None},
        "hint_rtt_ms": {"p50": round(percentile(stats.hint_rtt, 0.5) * 1e3, 2),
                        "p99": round(percentile(stats.hint_rtt, 0.99) * 1e3, 2)},
        "frames_received": stats.frames,
        "refused": stats.refused,
        "retried_503": stats.retries,
        "errors": len(stats.errors),
        "error_samples": stats.errors[:5],
        "loadgen_cpu_share": round(cpu / elapsed, 2),
        "server_commit_p": _histogram_note(metrics),
    }


def _histogram_note(metrics: str) -> dict[str, float]:
    out: dict[str, float] = {}
    for line in metrics.splitlines():
        if line.startswith(("gunzi_commit_seconds_sum", "gunzi_commit_seconds_count",
                            "gunzi_action_seconds_sum", "gunzi_action_seconds_count")):
            name, _, value = line.partition(" ")
            out[name] = float(value)
    return out


def run_cli(*, tables: int, rate: float, duration: float, url: str, preset: str,
            as_json: bool, jitter: float = JITTER) -> int:
    result = asyncio.run(run(url, tables, rate, duration, preset, jitter=jitter))
    if as_json:
        sys.stdout.write(json.dumps(result, indent=2) + "\n")
    else:
        for k, v in result.items():
            sys.stdout.write(f"{k}: {v}\n")
    return 1 if result["errors"] else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m gunzi.server.loadtest", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tables", type=int, default=10)
    ap.add_argument("--rate", type=float, default=1.0, help="decisions per second per table")
    ap.add_argument("--duration", type=float, default=30.0, help="measured seconds")
    ap.add_argument("--url", default="http://127.0.0.1:8000")
    ap.add_argument("--preset", default="gunzi")
    ap.add_argument("--jitter", type=float, default=JITTER,
                    help="think time uniform in (1 +- jitter)/rate; 0: every table in step")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    return run_cli(tables=a.tables, rate=a.rate, duration=a.duration, url=a.url,
                   preset=a.preset, as_json=a.json, jitter=a.jitter)


if __name__ == "__main__":
    raise SystemExit(main())
