"""The leak scan harness: bot-driven clients play whole hands through a real server.

Every table has four seated clients that play the server's hints over their
WebSockets (with the occasional deliberate out-of-turn action) and one
spectator. Clients drop and reconnect at random, resyncing by sequence number
or by snapshot. When the tables are done, every frame each client received is
checked against the table's record with the independent entitlement model in
:mod:`leakcheck`.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from dataclasses import dataclass
from typing import Any

import httpx

from .leakcheck import CARD, Report, Truth, check
from .util import Player, ServerProc, async_guest, make_table


@dataclass
class Outcome:
    report: Report
    hands: int
    tables: int
    seconds: float
    reconnects: int
    snapshots: int
    gaps: list[str]
    refused: int
    http_bodies: int
    refusals: list[str]
    resends: int


GUNZI_LONG = {"rounds": 10}  # a 打滚子 match long enough for the hands asked


Spec = tuple[str, int] | tuple[str, int, dict[str, Any]]  # preset, hands[, options]


async def run(server: ServerProc, specs: list[Spec], seed: int,
              budget: float = 600.0, reconnect_rate: float = 0.15) -> Outcome:
    rng = random.Random(seed)
    t0 = time.monotonic()
    reconnects = snapshots = http_bodies = 0
    report = Report()
    async with httpx.AsyncClient(base_url=server.url, timeout=60) as http:
        tables: list[tuple[str, list[Player], str]] = []
        for spec in specs:
            preset, hands = spec[0], spec[1]
            options = spec[2] if len(spec) > 2 else GUNZI_LONG if preset == "gunzi" else {}
            tid, cookies = await make_table(http, preset, max_hands=hands, options=options)
            watcher = await async_guest(http)
            people = [Player(server.ws_url, tid, c, rng=random.Random(rng.random()), poke=0.01)
                      for c in cookies]
            people.append(Player(server.ws_url, tid, watcher, play=False))
            for p in people:
                await p.connect(None)
            r = await http.post(f"/api/tables/{tid}/start", headers={"Cookie": cookies[0]})
            assert r.status_code == 200, r.text
            tables.append((tid, people, cookies[0]))
        deadline = time.monotonic() + budget
        while not all(ps[0].finished.is_set() for _, ps, _ in tables):
            assert time.monotonic() < deadline, "the tables did not finish in time"
            await asyncio.sleep(0.3)
            for tid, people, cookie in tables:
                if people[0].finished.is_set():
                    continue
                if rng.random() < reconnect_rate:
                    p = rng.choice(people)
                    await p.disconnect()
                    last = None if rng.random() < 0.25 else p.seq
                    snapshots += last is None
                    reconnects += 1
                    await p.connect(last)
                if rng.random() < 0.1:  # HTTP bodies a client may fetch mid-play
                    r = await http.get(f"/api/tables/{tid}", headers={"Cookie": cookie})
                    http_bodies += 1
                    assert not [c for c in _strings(r.json()) if CARD.match(c)], r.text
        await asyncio.sleep(0.5)
        hands = 0
        gaps: list[str] = []
        refused = 0
        refusals: list[str] = []
        resends = 0
        for tid, people, _ in tables:
            r = await http.get(f"/api/tables/{tid}/record")
            assert r.status_code == 200, r.text
            http_bodies += 1
            lines = [json.loads(x) for x in r.text.splitlines() if x.strip()]
            truth = Truth(lines)
            hands += sum(1 for e in truth.events if e["type"] == "hand_end")
            for p in people:
                await p.disconnect()
                report.add(check(truth, p.seat, p.frames))
                gaps.extend(p.gaps)
                resends += p.resends
                for cid, a in p.acks.items():
                    if not a["ok"] and not cid.startswith("poke"):
                        refused += 1
                        refusals.append(f"{cid}: {a['error']}")
    return Outcome(report, hands, len(tables), time.monotonic() - t0, reconnects, snapshots,
                   gaps, refused, http_bodies, refusals, resends)


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    return []


def summary(o: Outcome) -> str:
    r = o.report
    return (f"{o.hands} hands on {o.tables} tables in {o.seconds:.0f} s: {r.frames} frames, "
            f"{r.events} events, {r.views} views, {r.cards_scanned} cards and "
            f"{o.http_bodies} HTTP bodies scanned; {o.reconnects} reconnects "
            f"({o.snapshots} snapshots, {o.resends} unacked actions resent); "
            f"leaks {len(r.leaks)}, wrong {len(r.wrong)}, refused {o.refused}")
