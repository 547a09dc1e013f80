"""Failover (docs/deploy.md): three ``gunzi serve`` processes on one PostgreSQL database
and one Redis, tables created through each, every seat a WebSocket client playing the
hints. The owner of a table is SIGKILLed at random moments aimed in turn at drawing,
tribute, burying and playing (a table in that phase within a few seconds, else any), and
restarted in the background; the clients reconnect by themselves (following ``moved`` to
the owner).

Checked: every table resumes on a live process after each kill; every acknowledged play is
in the database once, as it was sent; no event sequence gap at any client; the actions of
every table are numbered without a hole; a fresh process takes every table over with the
replay checked against the stored events, and the records of the finished hands replay
strictly. Printed: the kills by phase and the time from a kill to the table moving again.

``GUNZI_FAILOVER_KILLS`` (default 4, one aimed at each phase; the issue asks 20) kills;
``GUNZI_FAILOVER_SEED`` the seed (printed).
"""

from __future__ import annotations

import asyncio
import collections
import json
import os
import random
import secrets
import statistics
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
from sqlalchemy import text

from gunzi.engine import actions as A
from gunzi.games import replay_record

from .util import Player, ServerProc, drop_keys, make_table, pg_schema, redis_or_skip

KILLS = int(os.environ.get("GUNZI_FAILOVER_KILLS", "4"))  # one aimed at each phase
TARGETS = ("draw", "tribute", "bury", "play")  # kills aimed at these phases in turn
SEED = int(os.environ.get("GUNZI_FAILOVER_SEED", str(secrets.randbits(16))))
TTL = 3.0
ENV = {"GUNZI_LEASE_TTL": str(TTL), "GUNZI_LEASE_MARGIN": "1.0", "GUNZI_LEASE_SCAN": "0.5"}

pytestmark = [pytest.mark.slow, pytest.mark.postgres, pytest.mark.timeout(600)]


@pytest.fixture
def hall(tmp_path: Path) -> Iterator[tuple[str, str, str, Any]]:
    """Redis URL, a fresh key prefix, a fresh PostgreSQL schema (URL) and its admin engine."""
    url = redis_or_skip()
    prefix = f"gunzi-test-{secrets.token_hex(4)}:"
    with pg_schema("gunzi_fo_") as (pg, _schema, admin):
        try:
            yield url, prefix, pg, admin
        finally:
            drop_keys(prefix)


def _proc(tmp: Path, name: str, url: str, prefix: str, pg: str) -> ServerProc:
    return ServerProc(tmp / name, args=("--database", pg, "--redis", url, "--node", name),
                      env={**ENV, "GUNZI_REDIS_PREFIX": prefix})


def _phase(players: list[Player]) -> str:
    for f in reversed(players[0].frames):
        view = f.get("view") if f["t"] in ("events", "snapshot") else None
        if view:
            return str(view.get("phase", "?"))
    return "?"


async def _keep_connected(p: Player, procs: dict[str, ServerProc], rng: random.Random,
                          stop: asyncio.Event) -> None:
    """Reconnect ``p`` whenever its socket closes: to the node a ``moved`` names, else to any
    process that is up, resuming at its last seq (and resending an unacked act)."""
    while not stop.is_set():
        if p.task is not None and not p.task.done():
            await asyncio.sleep(0.05)
            continue
        ws = p.ws
        node = ws.close_reason if ws is not None and ws.close_code == 4010 else ""
        up = [s for s in procs.values() if s.proc is not None and s.proc.poll() is None]
        target = procs.get(node or "") or (rng.choice(up) if up else None)
        if target is None:
            await asyncio.sleep(0.1)
            continue
        p.ws_base = target.ws_url
        try:
            await p.connect(p.seq)
        except Exception:
            p.ws = None
            await asyncio.sleep(0.1)


async def _scenario(tmp: Path, url: str, prefix: str, pg: str,
                    rng: random.Random) -> dict[str, Any]:
    names = ["p1", "p2", "p3"]
    procs = {n: _proc(tmp, n, url, prefix, pg) for n in names}
    r = redis.Redis.from_url(url)
    stop = asyncio.Event()
    tables: dict[str, list[Player]] = {}
    keepers: list[asyncio.Task[None]] = []
    stats: dict[str, Any] = {"kills": 0, "phases": collections.Counter(), "resume_s": []}
    t0 = time.monotonic()
    try:
        await asyncio.gather(*(asyncio.to_thread(s.start) for s in procs.values()))
        stats["start_s"] = time.monotonic() - t0
        for n in names:  # a table through each process: it owns it
            async with httpx.AsyncClient(base_url=procs[n].url, timeout=30) as http:
                tid, cookies = await make_table(http, "gunzi")
                tables[tid] = [Player(procs[n].ws_url, tid, c) for c in cookies]
                for p in tables[tid]:
                    await p.connect(None)
                res = await http.post(f"/api/tables/{tid}/start",
                                      headers={"Cookie": cookies[0]})
                assert res.status_code == 200, res.text
        keepers = [asyncio.create_task(_keep_connected(p, procs, rng, stop))
                   for ps in tables.values() for p in ps]

        def top(tid: str) -> int:
            return max(p.seq for p in tables[tid])

        def owner(tid: str) -> str | None:
            got = r.get(f"{prefix}lease:{tid}")
            return None if got is None else got.decode().split("/")[0]

        restarts: dict[str, asyncio.Task[Any]] = {}

        def up(n: str) -> bool:
            return n not in restarts or restarts[n].done()

        for k in range(KILLS):
            # At least one other process must be up to take the tables over.
            while sum(up(n) for n in names) < 2:
                await asyncio.sleep(0.05)
            target = TARGETS[k % len(TARGETS)]
            chosen = None
            deadline = time.monotonic() + rng.uniform(0.3, 2.5)
            while chosen is None and time.monotonic() < deadline:
                await asyncio.sleep(0.02)
                for t, ps in tables.items():
                    node = owner(t)
                    if (not ps[0].finished.is_set() and node is not None and up(node)
                            and _phase(ps).startswith(target)):
                        chosen = t
                        break
            live = [t for t, ps in tables.items() if not ps[0].finished.is_set()
                    and owner(t) is not None and up(owner(t) or "")]
            if chosen is None and not live:
                continue
            tid = chosen or rng.choice(live)
            node = owner(tid)
            if node is None or not up(node):
                continue
            hit = [t for t in tables if owner(t) == node and not tables[t][0].finished.is_set()]
            before = {t: top(t) for t in hit}
            stats["phases"][_phase(tables[tid])] += 1
            procs[node].kill()
            killed = time.monotonic()
            stats["kills"] += 1
            restarts[node] = asyncio.create_task(asyncio.to_thread(procs[node].start))
            for t in hit:
                deadline = killed + TTL + 40
                while top(t) <= before[t] and not tables[t][0].finished.is_set():
                    assert time.monotonic() < deadline, f"table {t} did not resume"
                    await asyncio.sleep(0.05)
                stats["resume_s"].append(time.monotonic() - killed)
        stats["kills_s"] = time.monotonic() - t0 - stats["start_s"]
        await asyncio.gather(*restarts.values())
        stop.set()
        await asyncio.gather(*keepers)
        for ps in tables.values():
            for p in ps:
                await p.disconnect()
                assert p.gaps == [], p.gaps
    finally:
        stop.set()
        for task in keepers:
            task.cancel()
        # SIGTERM: each hands its tables over.
        await asyncio.gather(*(asyncio.to_thread(s.stop) for s in procs.values()))
        r.close()
    stats["tables"] = tables
    return stats


def test_kill9_owner_tables_resume_elsewhere_nothing_lost(
        tmp_path: Path, hall: tuple[str, str, str, Any]) -> None:
    url, prefix, pg, admin = hall
    rng = random.Random(SEED)
    stats = asyncio.run(_scenario(tmp_path, url, prefix, pg, rng))
    tables: dict[str, list[Player]] = stats.pop("tables")
    schema = pg.rsplit("%3D", 1)[1]
    acked = 0
    with admin.connect() as conn:
        for tid, players in tables.items():
            ns = list(conn.execute(text(f'SELECT n FROM "{schema}".actions WHERE table_id=:t '
                                        "ORDER BY n"), {"t": tid}).scalars())
            n_actions, n_events = conn.execute(text(
                f'SELECT n_actions, n_events FROM "{schema}".game_tables WHERE id=:t'),
                {"t": tid}).one()
            assert ns == list(range(1, n_actions + 1)), "the actions are numbered 1..n"
            assert conn.execute(text(f'SELECT COUNT(*) FROM "{schema}".events '
                                     "WHERE table_id=:t"), {"t": tid}).scalar_one() == n_events
            for p in players:
                rows = conn.execute(text(
                    f'SELECT cid, data FROM "{schema}".actions WHERE table_id=:t AND seat=:s '
                    "AND cid IS NOT NULL ORDER BY n"), {"t": tid, "s": p.seat}).all()
                stored = {cid: data for cid, data in rows}
                assert len(stored) == len(rows), "a play applied twice"
                ok = [c for c, a in p.acks.items() if a["ok"] and not c.startswith("poke")]
                acked += len(ok)
                lost = [c for c in ok if c not in stored]
                assert not lost, f"acknowledged plays lost: {lost}"
                for c in ok:
                    assert A.from_dict(stored[c]) == A.from_dict({**p.sent[c], "seat": p.seat})
                unacked = [c for c in stored if c not in ok]
                assert len(unacked) <= 1, "stored plays never acknowledged, though resent"
    # Every process stopped (handing its tables over); a fresh one takes every live table,
    # replaying it with validation and checking it against the stored events.
    fresh = _proc(tmp_path, "p9", url, prefix, pg)
    with fresh, httpx.Client(base_url=fresh.url, timeout=30) as http:
        live = [t for t, ps in tables.items() if ps[0].status in ("open", "playing")]
        deadline = time.monotonic() + 30
        while http.get("/healthz").json()["tables"] < len(live):
            assert time.monotonic() < deadline, "the fresh process did not take every table"
            time.sleep(0.1)
        for tid in tables:
            res = http.get(f"/api/tables/{tid}/record")
            assert res.status_code == 200, res.text
            lines = [json.loads(x) for x in res.text.splitlines() if x.strip()]
            result = replay_record(lines)  # every decision re-validated, every event equal
            assert not getattr(result, "unseeded", None) and not getattr(result, "assumed", None)
    assert "restore_failed" not in "".join(
        (tmp_path / n / "server.log").read_text() for n in ("p1", "p2", "p3", "p9"))
    times = stats["resume_s"]
    print(f"(start {stats['start_s']:.0f} s, kills {stats['kills_s']:.0f} s) "
          f"seed {SEED}: {stats['kills']} kills by phase {dict(stats['phases'])}; "
          f"{acked} acknowledged plays, 0 lost; kill -> table moving again: "
          f"median {statistics.median(times):.2f} s, max {max(times):.2f} s "
          f"(lease ttl {TTL} s)")
    assert stats["kills"] >= min(KILLS, 3)
