"""Table ownership across processes (docs/deploy.md): Redis leases, fencing tokens in the
database, takeover, and a partitioned owner stopping before its lease expires.

Real PostgreSQL and Redis on 127.0.0.1 (each test in its own schema and key prefix);
skipped with the reason when either is unreachable.
"""

from __future__ import annotations

import asyncio
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from fastapi.testclient import TestClient
from sqlalchemy import text, true

from gunzi.server import db
from gunzi.server.app import create_app
from gunzi.server.halls import claim_table, create_rows
from gunzi.server.leases import Leases

from .util import (
    TcpProxy,
    drop_keys,
    guest,
    hall_settings,
    node_settings,
    pg_and_prefix,
    redis_or_skip,
)

pytestmark = pytest.mark.postgres


def _until(cond: Callable[[], Any], timeout: float, what: str) -> Any:
    """Poll ``cond`` until it is truthy (its value), or fail naming ``what``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = cond()
        if got:
            return got
        time.sleep(0.02)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


@pytest.fixture
def shared(tmp_path: Path) -> Iterator[tuple[str, str, Any]]:
    """A fresh PostgreSQL schema (its URL), a fresh Redis key prefix, the admin engine."""
    with pg_and_prefix("gunzi_lease_") as got:
        yield got


_settings = node_settings


def test_a_lease_is_exclusive_renewed_by_its_owner_only_and_expires() -> None:
    url = redis_or_skip()
    prefix = f"gunzi-test-{secrets.token_hex(4)}:"

    async def scenario() -> None:
        r = redis.asyncio.Redis.from_url(url)
        a, b = Leases(r, prefix, "a/1", 0.4), Leases(r, prefix, "b/1", 0.4)
        try:
            assert await a.acquire("t1")
            assert not await b.acquire("t1"), "a held lease is not granted twice"
            assert await a.owners(["t1", "t2"]) == {"t1": "a/1", "t2": None}
            assert await b.renew(["t1"]) == {"t1": False}, "only the owner renews"
            for _ in range(4):  # renewed past several ttls: still a's
                await asyncio.sleep(0.2)
                assert await a.renew(["t1"]) == {"t1": True}
            assert not await b.acquire("t1")
            deadline = time.monotonic() + 5
            while (await a.owners(["t1"]))["t1"] is not None:  # not renewed: it expires
                assert time.monotonic() < deadline, "the lease never expired"
                await asyncio.sleep(0.05)
            assert await b.acquire("t1"), "an expired lease is free to take"
            assert await a.renew(["t1"]) == {"t1": False}, "the old owner cannot renew it"
            assert await a.release(["t1"]) == 0, "nor release it"
            assert (await b.owners(["t1"]))["t1"] == "b/1"
            assert await b.release(["t1"]) == 1
            assert (await b.owners(["t1"]))["t1"] is None
        finally:
            await r.aclose()

    try:
        asyncio.run(scenario())
    finally:
        drop_keys(prefix)


def _action(tid: str, n: int) -> dict[str, Any]:
    return {"table_id": tid, "n": n, "seat": -1, "source": "server", "user_id": None,
            "cid": None, "data": {"type": "deal"}, "v_end": n, "created_at": db.now()}


def test_a_stale_owners_commit_is_refused_and_writes_nothing(
        tmp_path: Path, shared: tuple[str, str, Any]) -> None:
    pg, _prefix, _admin = shared
    store = db.Store(hall_settings(tmp_path, database_url=pg))
    store.migrate()
    try:
        for tid in ("t1", "t2"):
            t = db.now()
            store.call(create_rows, db.TableRow(
                id=tid, code=None, name="", public=True, preset="gunzi", rules={}, clock=0,
                max_hands=0, status="playing", owner_id=None, header=None, created_at=t,
                updated_at=t, n_actions=0, n_events=0, counter=True, quick=False), 4)

        def seat_count(_rules: dict[str, Any]) -> int:
            return 4

        def claim(tid: str) -> int:
            got = store.call(claim_table, true(), seat_count, tid)
            assert got is not None
            return got[1]

        def count(tid: str) -> int:
            return int(store.call(lambda s: s.execute(text(
                "SELECT COUNT(*) FROM actions WHERE table_id=:t"), {"t": tid}).scalar_one()))

        old = claim("t1")
        store.call(db.commit_action, "t1", _action("t1", 1), [], {"n_actions": 1}, None, old)
        new = claim("t1")  # another process took the table over
        assert new > old
        with pytest.raises(db.Fenced):
            store.call(db.commit_action, "t1", _action("t1", 2), [], {"n_actions": 2}, None,
                       old)
        assert count("t1") == 1, "the refused commit wrote nothing"
        # In a group commit the stale action fails alone; the other table's is kept.
        other = claim("t2")

        async def both() -> list[Any]:
            return await asyncio.gather(
                store.commit("t1", _action("t1", 2), [], {"n_actions": 2}, None, old),
                store.commit("t2", _action("t2", 1), [], {"n_actions": 1}, None, other),
                return_exceptions=True)

        results = asyncio.run(both())
        assert isinstance(results[0], db.Fenced) and results[1] is None
        assert (count("t1"), count("t2")) == (1, 1)
        store.call(db.commit_action, "t1", _action("t1", 2), [], {"n_actions": 2}, None, new)
        assert count("t1") == 2
        row = store.call(lambda s: s.get(db.TableRow, "t1"))
        assert (row.fence, row.n_actions) == (new, 2)
        # A group's fences are checked in one statement: all current, all rows move on;
        # one stale token among them, and the group writes nothing at all.
        tokens = {"t1": new, "t2": other}

        def group(n: int, stale: str | None) -> list[tuple[Any, ...]]:
            return [(tid, _action(tid, n), [], {"n_actions": n, "n_events": 10 * n}, None,
                     tokens[tid] - (tid == stale)) for tid in ("t1", "t2")]

        with pytest.raises(db.Fenced):
            store.call(db._commit_group, group(3, "t2"))
        assert (count("t1"), count("t2")) == (2, 1)
        store.call(db.update_tables, [("t2", other, {"n_actions": 2, "n_events": 20})])
        store.call(db._commit_group, group(3, None))
        rows = [store.call(lambda s, t=tid: s.get(db.TableRow, t)) for tid in ("t1", "t2")]
        assert [(r.n_actions, r.n_events, r.fence) for r in rows] == [(3, 30, new),
                                                                      (3, 30, other)]
    finally:
        store.close()


def _bot_table(client: TestClient) -> str:
    """A public table of four rule bots, started (they play by themselves)."""
    guest(client)
    r = client.post("/api/tables", json={"preset": "gunzi"})
    assert r.status_code == 201, r.text
    tid: str = r.json()["id"]
    for seat in range(4):
        assert client.put(f"/api/tables/{tid}/seats/{seat}/bot",
                          json={"bot": "rule"}).status_code == 200
    assert client.post(f"/api/tables/{tid}/start").status_code == 200
    return tid


def _n_actions(admin: Any, pg: str, tid: str) -> int:
    schema = pg.rsplit("%3D", 1)[1]
    with admin.connect() as conn:
        return int(conn.execute(text(f'SELECT COUNT(*) FROM "{schema}".actions '
                                     "WHERE table_id=:t"), {"t": tid}).scalar_one())


def test_a_takeover_fences_the_old_owner_and_the_table_goes_on(
        tmp_path: Path, shared: tuple[str, str, Any]) -> None:
    pg, prefix, admin = shared
    # Long leases: the old owner keeps believing it owns the table (as a paused process
    # would), so only the fencing token can stop it.
    opts = {"lease_ttl": 30.0, "lease_margin": 14.0, "lease_scan": 0.2, "bot_delay": 0.02}
    a = TestClient(create_app(_settings(tmp_path, pg, prefix, "a", **opts)))
    b = TestClient(create_app(_settings(tmp_path, pg, prefix, "b", **opts)))
    with a, b:
        tid = _bot_table(a)
        hall_a, hall_b = a.app.state.hall, b.app.state.hall  # type: ignore[attr-defined]
        assert tid in hall_a.tables and tid not in hall_b.tables
        # A socket at the wrong process is told where the table is played.
        with b.websocket_connect(f"/ws/tables/{tid}") as ws:
            assert ws.receive_json() == {"t": "moved", "node": "a"}
        r = b.get(f"/api/tables/{tid}", follow_redirects=False)
        assert r.status_code == 307 and r.headers["location"].endswith("?node=a")
        code = a.post("/api/tables", json={"preset": "gunzi", "public": False}).json()["code"]
        r = b.get(f"/api/tables/code/{code}", follow_redirects=False)
        assert r.status_code == 307 and r.headers["location"].endswith("?node=a")
        _until(lambda: any(t["id"] == tid for t in b.get("/api/tables").json()["tables"]),
               10, "b's lobby to list a's table")
        _until(lambda: _n_actions(admin, pg, tid) > 5, 30, "a's bots to play")
        # The lease runs out while a is not looking; b takes the table over.
        redis.Redis.from_url(redis_or_skip()).delete(f"{prefix}lease:{tid}")
        table_b = _until(lambda: hall_b.tables.get(tid), 10, "b to take the table")
        _until(lambda: tid not in hall_a.tables, 10, "a's next commit to be fenced")
        metrics = a.get("/metrics").text
        assert 'gunzi_tables_lost_total{why="fenced"} 1.0' in metrics
        assert 'target_info{node="a"} 1.0' in metrics
        n_b = _n_actions(admin, pg, tid)
        _until(lambda: _n_actions(admin, pg, tid) > n_b + 5, 30, "b's bots to play on")
        assert table_b.n_actions <= _n_actions(admin, pg, tid)
        assert not table_b.broken
    # b handed the table over at its shutdown; a third process replays every stored action
    # (a's before the takeover, b's after) and checks them against the stored events.
    c = TestClient(create_app(_settings(tmp_path, pg, prefix, "c", **opts)))
    with c:
        hall_c = c.app.state.hall  # type: ignore[attr-defined]
        table_c = _until(lambda: hall_c.tables.get(tid), 10, "c to take the handed-over table")
        # (taken with the replay checked against the stored events: it matched)
        assert table_c.n_actions > n_b and not table_c.broken
        assert tid not in hall_c.unrestorable
    schema = pg.rsplit("%3D", 1)[1]
    with admin.connect() as conn:
        ns = list(conn.execute(text(f'SELECT n FROM "{schema}".actions WHERE table_id=:t '
                                    "ORDER BY n"), {"t": tid}).scalars())
        stored = conn.execute(text(f'SELECT n_actions FROM "{schema}".game_tables '
                                   "WHERE id=:t"), {"t": tid}).scalar_one()
    assert ns == list(range(1, len(ns) + 1)) and stored == len(ns)


def test_a_hand_over_waits_for_a_takeover_in_flight_and_releases_its_lease(
        tmp_path: Path, shared: tuple[str, str, Any]) -> None:
    """A shutdown that came while this process was taking a table over (lease taken, the
    stored actions still loading) hands that table over too: before, the takeover finished
    after the hand-over, and the table's lease was held, with nobody playing, until it
    expired (CI, stop 23: a third process waited 10 s for a table in vain)."""
    pg, prefix, _admin = shared
    opts = {"lease_ttl": 30.0, "lease_margin": 14.0, "bot_delay": 0.02}
    with TestClient(create_app(_settings(tmp_path, pg, prefix, "a", **opts))) as a:
        tid = _bot_table(a)
    # a handed the table over. b does not scan, and a stand-in holds the lease while b
    # starts (which takes free tables at once), so the only takeover is the one below.
    leases = redis.Redis.from_url(redis_or_skip())
    assert leases.set(f"{prefix}lease:{tid}", "elsewhere/0", nx=True, px=60_000)
    b = TestClient(create_app(_settings(tmp_path, pg, prefix, "b", lease_scan=3600.0,
                                        **opts)))
    with b:
        assert leases.delete(f"{prefix}lease:{tid}") == 1
        hall = b.app.state.hall  # type: ignore[attr-defined]
        gate = threading.Event()
        real_run = hall.store.run

        async def slow_run(fn: Callable[..., Any], *args: Any) -> Any:
            if fn is claim_table:  # the takeover's database step waits for the test
                await asyncio.to_thread(gate.wait, 10)
            return await real_run(fn, *args)

        hall.store.run = slow_run
        claim = b.portal.start_task_soon(hall.claim, tid)  # type: ignore[union-attr]
        _until(lambda: leases.get(f"{prefix}lease:{tid}"), 10, "b to take the lease")
        hand_over = b.portal.start_task_soon(  # type: ignore[union-attr]
            b.app.state.hand_over)  # type: ignore[attr-defined]
        _until(lambda: b.app.state.cluster.closing, 10,  # type: ignore[attr-defined]
               "the hand-over to begin")
        gate.set()
        hand_over.result(timeout=20)
        claim.result(timeout=20)
        assert leases.get(f"{prefix}lease:{tid}") is None, "the lease was left held"
        assert tid not in hall.tables
    # and a third process takes the table at once
    with TestClient(create_app(_settings(tmp_path, pg, prefix, "c", lease_scan=0.2,
                                         **opts))) as c:
        hall_c = c.app.state.hall  # type: ignore[attr-defined]
        table_c = _until(lambda: hall_c.tables.get(tid), 10, "c to take the table")
        assert not table_c.broken


def test_a_partitioned_owner_stops_before_its_lease_expires(
        tmp_path: Path, shared: tuple[str, str, Any]) -> None:
    pg, prefix, admin = shared
    real = redis_or_skip()
    host_port = real.split("//", 1)[1].split("/", 1)[0].rsplit(":", 1)
    proxy = TcpProxy((host_port[0], int(host_port[1])))
    ttl = 3.0
    settings = _settings(tmp_path, pg, prefix, "a", lease_ttl=ttl, lease_margin=1.0,
                         lease_scan=0.2, bot_delay=0.02).replace(
        redis_url=f"redis://127.0.0.1:{proxy.port}/0")
    direct = redis.Redis.from_url(real)
    with TestClient(create_app(settings)) as a:
        hall = a.app.state.hall  # type: ignore[attr-defined]
        tid = _bot_table(a)
        _until(lambda: _n_actions(admin, pg, tid) > 3, 30, "the bots to play")
        assert a.get("/readyz").json()["ready"]
        proxy.cut()  # the owner can no longer reach Redis; the database it still reaches
        pttl = direct.pttl(f"{prefix}lease:{tid}")
        expires = time.time() + pttl / 1000  # the latest the lease can live in Redis
        assert pttl > 0
        _until(lambda: tid not in hall.tables, ttl + 2, "the owner to drop the table")
        dropped = time.time()
        assert dropped < expires, f"dropped {dropped - expires:.2f} s after the lease expired"
        r = a.get("/readyz")
        assert r.status_code == 503 and r.json()["redis"] is False
        n = _n_actions(admin, pg, tid)
        with admin.connect() as conn:
            schema = pg.rsplit("%3D", 1)[1]
            last = conn.execute(text(f'SELECT MAX(created_at) FROM "{schema}".actions '
                                     "WHERE table_id=:t"), {"t": tid}).scalar_one()
        assert last < expires
        _until(lambda: direct.pttl(f"{prefix}lease:{tid}") < 0, ttl + 2, "the lease to expire")
        time.sleep(0.3)
        assert _n_actions(admin, pg, tid) == n, "no play after the table was dropped"


def test_several_processes_need_postgresql_and_sane_lease_settings() -> None:
    from gunzi.server.settings import from_env

    with pytest.raises(ValueError, match="shared database"):
        from_env(redis_url="redis://127.0.0.1:6379/0")  # SQLite is one process's file
    pg = "postgresql+psycopg://u@h/db"
    with pytest.raises(ValueError, match="lease_margin"):
        from_env(redis_url="redis://h", database_url=pg, lease_ttl=2.0, lease_margin=1.5)
    with pytest.raises(ValueError, match="node name"):
        from_env(redis_url="redis://h", database_url=pg, node="a/b")
    assert from_env(redis_url="redis://h", database_url=pg, node="p1").node_name == "p1"
