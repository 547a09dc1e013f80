"""Restarts resume tables (P2), a failed commit acks nothing, migrations, PostgreSQL."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import inspect, text

from gunzi.engine import records
from gunzi.server import db
from gunzi.server.app import create_app
from gunzi.server.settings import Settings
from gunzi.server.tables import RESUME_GRACE

from .util import cookie_guest, failing_commit, four_humans, hall_settings, pg_schema, recv


def _play(ws: Any, decisions: int, prefix: str) -> dict[str, Any]:
    """Play ``decisions`` hints for seat 0, then return the frame where seat 0 is to act."""
    n = 0
    while True:
        f = json.loads(ws.receive_text())
        if f["t"] in ("events", "snapshot") and f["turn"]["seat"] == 0:
            if n >= decisions:
                return f
            ws.send_json({"t": "hint"})
        elif f["t"] == "hint" and f["action"] is not None:
            n += 1
            ws.send_json({"t": "act", "id": f"{prefix}{n}", "action": f["action"]})
        elif f["t"] == "ack":
            assert f["ok"], f


def _finish(ws: Any, prefix: str) -> None:
    n = 0
    while True:
        f = json.loads(ws.receive_text())
        if f["t"] in ("events", "snapshot") and f["turn"]["seat"] == 0:
            ws.send_json({"t": "hint"})
        elif f["t"] == "hint" and f["action"] is not None:
            n += 1
            ws.send_json({"t": "act", "id": f"{prefix}{n}", "action": f["action"]})
        elif f["t"] == "table" and f["table"]["status"] == "finished":
            return


def _restart_round_trip(settings: Settings, preset: str) -> None:
    with TestClient(create_app(settings)) as c1:
        alice = cookie_guest(c1)
        t = c1.post("/api/quickplay", json={"preset": preset, "max_hands": 1},
                    headers=alice).json()
        with c1.websocket_connect(f"/ws/tables/{t['id']}", headers=alice) as ws:
            ws.send_json({"t": "hello"})
            before = _play(ws, 5, "a")
    with TestClient(create_app(settings)) as c2:
        info = c2.get(f"/api/tables/{t['id']}").json()
        assert info["status"] == "playing" and info["hand_no"] == 1
        with c2.websocket_connect(f"/ws/tables/{t['id']}", headers=alice) as ws:
            ws.send_json({"t": "hello", "last_seq": before["seq"]})
            f = recv(ws, ("events", "snapshot"))
            assert f["t"] == "events" and f["resync"]
            assert f["events"] == [] and f["seq"] == before["seq"]
            assert f["view"] == before["view"]  # same hand, same trick, same everything
            assert f["turn"]["seat"] == 0
            ws.send_json({"t": "sync", "last_seq": before["seq"]})
            _finish(ws, "b")
        lines = [json.loads(x) for x in
                 c2.get(f"/api/tables/{t['id']}/record").text.splitlines()]
        assert len(records.replay(lines).hands) == 1


def test_restart_resumes_the_table_where_it_was(tmp_path: Path) -> None:
    _restart_round_trip(hall_settings(tmp_path / "data"), "gunzi")


def _deadline(client: TestClient, tid: str, cookie: dict[str, str]) -> tuple[int, int]:
    """The seat to act and its turn clock's deadline (epoch ms) as the table sends them
    (once the first deal is out)."""
    with client.websocket_connect(f"/ws/tables/{tid}", headers=cookie) as ws:
        ws.send_json({"t": "hello"})
        turn = recv(ws, ("events", "snapshot"))["turn"]
        while turn["deadline"] is None:
            turn = recv(ws, "events")["turn"]
    return turn["seat"], turn["deadline"]


def test_a_restart_keeps_the_turn_clock_running_from_the_last_action(tmp_path: Path) -> None:
    """The pending decision's clock runs on from the last stored action (a takeover by
    another process rebuilds the table the same way), with RESUME_GRACE s at least."""
    settings = hall_settings(tmp_path / "data")
    with TestClient(create_app(settings)) as c1:
        tid, cookies = four_humans(c1, "gunzi", clock=30)
        seat, before = _deadline(c1, tid, cookies[0])
    time.sleep(2.0)
    with TestClient(create_app(settings)) as c2:
        again, after = _deadline(c2, tid, cookies[0])
    assert again == seat
    # Not a fresh 30 s from the restart (that would be >= before + 2000 ms).
    assert abs(after - before) < 1000, (before, after)
    with TestClient(create_app(settings)) as c3:
        store = c3.app.state.hall.store
        store.call(lambda s: s.execute(text(
            "UPDATE actions SET created_at = created_at - 29 WHERE table_id = :t"), {"t": tid}))
    with TestClient(create_app(settings)) as c4:
        _seat, late = _deadline(c4, tid, cookies[0])
    left = late / 1000 - time.time()
    assert RESUME_GRACE - 1.5 < left <= RESUME_GRACE + 0.1, left  # 1 s left: the grace


def test_failed_commit_is_not_acked_and_the_table_recovers(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    settings = hall_settings(tmp_path / "data")
    fail = failing_commit(monkeypatch)
    with TestClient(create_app(settings)) as c:
        alice = cookie_guest(c)
        t = c.post("/api/quickplay", json={"preset": "classic-1"}, headers=alice).json()
        with c.websocket_connect(f"/ws/tables/{t['id']}", headers=alice) as ws:
            ws.send_json({"t": "hello"})
            before = _play(ws, 0, "x")
            ws.send_json({"t": "hint"})
            action = recv(ws, "hint")["action"]
            fail["next"] = True
            ws.send_json({"t": "act", "id": "f1", "action": action})
            snap = recv(ws, "snapshot")  # the table was rebuilt from the database
            ack = recv(ws, "ack")
            assert ack["ok"] is False and ack["error"]["code"] == "server_error"
            assert snap["seq"] == before["seq"] and snap["view"] == before["view"]
            ws.send_json({"t": "act", "id": "f2", "action": action})
            assert recv(ws, "ack")["ok"] is True


def test_migrations_upgrade_is_idempotent_and_reversible(tmp_path: Path) -> None:
    from alembic import command
    from alembic.config import Config

    settings = hall_settings(tmp_path / "data")
    store = db.Store(settings)
    store.migrate()
    store.migrate()
    names = set(inspect(store.engine).get_table_names())
    assert {"users", "sessions", "game_tables", "seats", "actions", "events",
            "alembic_version"} <= names
    cfg = Config()
    cfg.set_main_option("script_location", str(Path(db.__file__).parent / "migrations"))
    with store.engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "base")
    assert set(inspect(store.engine).get_table_names()) <= {"alembic_version"}
    store.migrate()
    assert "events" in set(inspect(store.engine).get_table_names())
    with store.engine.connect() as conn:
        assert conn.execute(text("PRAGMA journal_mode")).scalar() == "wal"
    store.close()


@pytest.mark.postgres
def test_postgresql_backend(tmp_path: Path) -> None:
    with pg_schema("gunzi_t_") as (url, schema, admin):
        settings = hall_settings(tmp_path / "data", database_url=url)
        assert not settings.is_sqlite
        _restart_round_trip(settings, "classic-1")
        with admin.connect() as conn:
            n = conn.execute(text(f'SELECT COUNT(*) FROM "{schema}".events')).scalar()
            seed = conn.execute(text(
                f"SELECT data FROM \"{schema}\".events WHERE type='deal' LIMIT 1")).scalar()
        assert n and n > 50
        assert isinstance(seed, dict) and 0 <= seed["seed"] < 2**256


def test_group_commit_isolates_a_failing_table(tmp_path: Path) -> None:
    """Actions of several tables share a transaction; one bad action fails alone."""
    import asyncio

    from sqlalchemy import insert, select

    settings = hall_settings(tmp_path / "data")
    store = db.Store(settings)
    store.migrate()
    for t in range(3):
        store.call(lambda s, t=t: s.execute(insert(db.TableRow), [dict(
            id=f"t{t}", code=None, name="x", public=True, preset="gunzi", rules={}, clock=0,
            max_hands=0, status="playing", owner_id=None, header=None, created_at=0.0,
            updated_at=0.0, n_actions=0, n_events=0)]))

    def item(t: int, n: int) -> tuple[Any, ...]:
        return (f"t{t}",
                {"table_id": f"t{t}", "n": n, "seat": 0, "source": "player", "user_id": 1,
                 "cid": None, "data": {"type": "pass", "seat": 0}, "v_end": n,
                 "created_at": 0.0},
                [{"table_id": f"t{t}", "v": n, "n": n, "hand": 1, "type": "pass",
                  "data": {"v": n, "type": "pass", "seat": 0}, "audience": "",
                  "private": False}],
                {"n_actions": n, "n_events": n, "status": "playing", "updated_at": 0.0})

    async def go() -> list[Any]:
        await store.commit(*item(1, 1))
        # t1's action 1 exists: committing it again must fail, and only it.
        return await asyncio.gather(store.commit(*item(0, 1)), store.commit(*item(1, 1)),
                                    store.commit(*item(2, 1)), return_exceptions=True)

    results = asyncio.run(go())
    assert results[0] is None and results[2] is None
    assert isinstance(results[1], Exception)
    counts = store.call(lambda s: {r.id: r.n_actions for r in s.scalars(select(db.TableRow))})
    assert counts == {"t0": 1, "t1": 1, "t2": 1}
    store.close()
