"""P1/P2 under kill -9: a hall killed mid-hand and restarted resumes every table where it was.

A real ``gunzi serve`` (``python -m gunzi.server serve``) on a temporary SQLite
database; two tables, every seat a WebSocket client playing the hints. The
server is SIGKILLed three times at random moments (just after some ack, while
other actions are in flight), restarted on the same database, and the clients
reconnect with their last sequence number. Checked: each client resumes at the
same seq with no gap, its hand unchanged if nothing new was committed; an
action that was in flight when the server died is applied once when resent
(re-acked if it had been committed); at the end every acknowledged action is in
the record exactly once, in order, and the record replays exactly.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import sqlite3
from pathlib import Path
from typing import Any

import httpx
import pytest

from gunzi.engine import actions as A
from gunzi.engine import records

from .util import Player, ServerProc, make_table

SEED = int(os.environ.get("GUNZI_KILL_SEED", "7"))
KILLS = 3


async def _wait(cond: Any, timeout: float, what: str) -> None:
    for _ in range(int(timeout / 0.05)):
        if cond():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def _resync_frame(p: Player, start: int) -> dict[str, Any] | None:
    for f in p.frames[start:]:
        if f["t"] in ("events", "snapshot"):
            return f
    return None


def _last_view(p: Player) -> dict[str, Any] | None:
    for f in reversed(p.frames):
        if f["t"] in ("events", "snapshot") and f.get("view") is not None:
            view: dict[str, Any] = f["view"]
            return view
    return None


async def _scenario(server: ServerProc, rng: random.Random) -> dict[str, int]:
    stats = {"acked": 0, "resent": 0, "resent_dup": 0, "kills": 0}
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        specs = [("gunzi", 1), ("classic-2", 2)]
        tables: list[tuple[str, list[Player]]] = []
        for preset, hands in specs:
            tid, cookies = await make_table(http, preset, max_hands=hands)
            tables.append((tid, [Player(server.ws_url, tid, c) for c in cookies]))
        everyone = [p for _, ps in tables for p in ps]
        acked = 0
        kill_at = [0]

        def on_ack(p: Player, cid: str, frame: dict[str, Any]) -> None:
            nonlocal acked
            if frame["ok"] and not cid.startswith("poke"):
                acked += 1
                if kill_at[0] and acked >= kill_at[0]:
                    kill_at[0] = 0
                    assert server.proc is not None
                    os.kill(server.proc.pid, 9)  # SIGKILL, from inside the client loop

        for p in everyone:
            p.on_ack = on_ack
            await p.connect(None)
        for tid, ps in tables:
            r = await http.post(f"/api/tables/{tid}/start", headers={"Cookie": ps[0].cookie})
            assert r.status_code == 200, r.text

        for _ in range(KILLS):
            kill_at[0] = acked + rng.randint(10, 60)
            await _wait(lambda: kill_at[0] == 0, 120, "the kill point")
            assert server.proc is not None
            server.proc.wait(10)
            stats["kills"] += 1
            await _wait(lambda: all(p.task is None or p.task.done() for p in everyone), 20,
                        "the sockets to drop")
            before = {id(p): (p.seq, _last_view(p)) for p in everyone}
            unacked = {id(p): [c for c in p.sent if c not in p.acks] for p in everyone}
            server.start()
            marks = {}
            for p in everyone:
                p.play = False
                marks[id(p)] = len(p.frames)
                await p.connect(p.seq)
            await _wait(lambda marks=marks: all(_resync_frame(p, marks[id(p)]) for p in everyone),
                        20,
                        "the resync frames")
            for p in everyone:
                seq0, view0 = before[id(p)]
                f = _resync_frame(p, marks[id(p)])
                assert f is not None
                assert f["t"] == "events" and f.get("resync"), "a resync, not a snapshot"
                assert f["seq"] >= seq0
                assert [e["seq"] for e in f["events"]] == list(range(seq0 + 1, f["seq"] + 1))
                if f["seq"] == seq0:
                    # Nothing this client sees was committed after its last frame: same hand,
                    # same state; but another seat's pass while drawing is private to that
                    # seat and moves the ask on, so the next asked seat can see itself asked
                    # (to_act) with no event of its own (the kill came before that frame).
                    view = dict(f["view"])
                    if view["phase"] == "draw" and view0 is not None \
                            and view0["to_act"] is None and view["to_act"] == p.seat:
                        view["to_act"] = None
                    assert view == view0
                assert p.gaps == []
            # Resend what was in flight: applied once, or re-acked if it had been committed.
            for p in everyone:
                for cid in unacked[id(p)]:
                    assert p.ws is not None
                    stats["resent"] += 1
                    await p.ws.send(json.dumps({"t": "act", "id": cid, "action": p.sent[cid]}))
                    await _wait(lambda p=p, cid=cid: cid in p.acks, 10, "the resend's ack")
                    ack = p.acks[cid]
                    assert ack["ok"], ack
                    stats["resent_dup"] += bool(ack.get("dup"))
            for p in everyone:
                p.play = True
                assert p.ws is not None
                await p.ws.send(json.dumps({"t": "sync", "last_seq": p.seq}))

        await _wait(lambda: all(p.finished.is_set() for _, ps in tables for p in ps[:1]), 300,
                    "the tables to finish")
        for tid, ps in tables:
            r = await http.get(f"/api/tables/{tid}/record")
            lines = [json.loads(x) for x in r.text.splitlines() if x.strip()]
            replay = records.replay(lines)  # every decision re-validated, every event equal
            assert len(replay.hands) == dict(specs)[lines[0]["rules"]["name"]]
            for p in ps:
                assert p.seat is not None
                mine = [records.action_of(e) for e in lines[1:] if e.get("seat") == p.seat
                        and records.action_of(e) is not None]
                ok = sorted((c for c, a in p.acks.items() if a["ok"]), key=lambda c: int(c[1:]))
                stats["acked"] += len(ok)
                want = [A.from_dict({**p.sent[c], "seat": p.seat}) for c in ok]
                assert mine == want, f"seat {p.seat}: acked actions != the record's"
            for p in ps:
                await p.disconnect()
    return stats


@pytest.mark.slow
def test_kill9_mid_hand_resumes_every_table(tmp_path: Path) -> None:
    rng = random.Random(SEED)
    server = ServerProc(tmp_path / "srv")
    server.start()
    try:
        stats = asyncio.run(_scenario(server, rng))
    finally:
        server.stop()
    print(f"seed {SEED}: {stats}")
    assert stats["kills"] == KILLS
    db = sqlite3.connect(tmp_path / "srv" / "gunzi.sqlite3")
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    # Every action row has its events, and the counters agree.
    for tid, n_actions, n_events in db.execute(
        "SELECT id, n_actions, n_events FROM game_tables"
    ):
        assert db.execute("SELECT COUNT(*) FROM actions WHERE table_id=?",
                          (tid,)).fetchone()[0] == n_actions
        assert db.execute("SELECT COUNT(*) FROM events WHERE table_id=?",
                          (tid,)).fetchone()[0] == n_events
