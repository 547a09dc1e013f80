"""The ladder in the hall: results written with the action that ends the hand, exactly once
(a repeat, a restart and a SIGKILL change nothing twice), the API, titles at the table, CLI."""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select
from typer.testing import CliRunner

from gunzi.cli import app as cli_app
from gunzi.engine import records
from gunzi.ladder.result import LadderResult
from gunzi.server import db, ladder_db
from gunzi.server.settings import Settings

from .util import (
    Player,
    ServerProc,
    cookie_guest,
    hall_settings,
    make_table,
    pg_schema,
    play_out,
)


def _store(settings: Settings) -> db.Store:
    store = db.Store(settings)
    store.migrate()
    return store


def _user(store: db.Store, name: str) -> int:
    def q(s: Any) -> int:
        u = db.User(name=name, name_key=name.lower(), guest=True, created_at=0.0)
        s.add(u)
        s.flush()
        return int(u.id)
    return store.call(q)


def _ladder_state(store: db.Store) -> dict[str, Any]:
    def q(s: Any) -> dict[str, Any]:
        players = {(p.game, p.player): (p.total, p.games, p.mu, p.sigma)
                   for p in s.scalars(select(db.LadderPlayer))}
        return {"results": s.scalar(select(func.count()).select_from(db.LadderResultRow)),
                "entries": s.scalar(select(func.count()).select_from(db.LadderEntry)),
                "players": players}
    return store.call(q)


def _same_result_twice(settings: Settings) -> None:
    store = _store(settings)
    try:
        uid = _user(store, "alice")
        res = LadderResult("gunzi", "tbl1", 3, (f"u:{uid}", "bot:rule", "bot:rule", "bot:rule"),
                           (7, -7, 7, -7), True)
        assert store.call(ladder_db.apply_result, res, 1.0) is True
        once = _ladder_state(store)
        assert once["results"] == 1 and once["entries"] == 2
        assert once["players"][("gunzi", f"u:{uid}")][:2] == (7, 1)
        assert once["players"][("gunzi", "bot:rule")][:2] == (-7, 1)
        assert store.call(ladder_db.apply_result, res, 2.0) is False  # the same hand again
        assert _ladder_state(store) == once
        # Through the commit path too: the action is new, the result is not.
        other = LadderResult("gunzi", "tbl1", 3, res.players, (1, -1, 1, -1), True)
        store.call(ladder_db.apply_result, other, 3.0)
        assert _ladder_state(store) == once
        nxt = LadderResult("gunzi", "tbl1", 4, res.players, (-2, 2, -2, 2), True)
        assert store.call(ladder_db.apply_result, nxt, 4.0) is True
        assert _ladder_state(store)["players"][("gunzi", f"u:{uid}")][:2] == (5, 2)
    finally:
        store.close()


def test_the_same_result_applied_twice_changes_once(tmp_path: Path) -> None:
    _same_result_twice(hall_settings(tmp_path / "data"))


@pytest.mark.postgres
def test_the_same_result_applied_twice_changes_once_postgresql(tmp_path: Path) -> None:
    with pg_schema("gunzi_l_") as (url, _, _):
        _same_result_twice(hall_settings(tmp_path / "data", database_url=url))


def test_quick_play_hand_is_rated_once_and_a_restart_changes_nothing(
        make_client: Callable[..., TestClient], tmp_path: Path) -> None:
    client = make_client()
    alice = cookie_guest(client)
    me = client.get("/api/me", headers=alice).json()["user"]
    t = client.post("/api/quickplay", json={"preset": "classic-1", "max_hands": 1},
                    headers=alice).json()
    assert [s["title"] for s in t["seats"]] == ["幼小班"] * 4
    frames = play_out(client, t["id"], alice)
    lines = [json.loads(x) for x in client.get(f"/api/tables/{t['id']}/record").text.splitlines()]
    hand_end = next(e for e in lines if e["type"] == "hand_end")
    # classic-1 stopped after one hand: the game is scored where it stopped (Part C).
    levels, before = hand_end["levels_after"], hand_end["levels_before"]
    gained = [levels[k] - before[k] for k in (0, 1)]
    want = [gained[s % 2] + 2 * (levels[s % 2] - levels[1 - s % 2]) - hand_end["failed_throws"][s]
            for s in range(4)]

    store = _store(hall_settings(tmp_path / "data"))
    try:
        state = _ladder_state(store)
        assert state["results"] == 1
        key = f"u:{me['id']}"
        total, games, mu, sigma = state["players"][("classic", key)]
        assert (total, games) == (want[0], 1)
        assert state["players"][("classic", "bot:rule")][:2] == (want[1] + want[2] + want[3], 1)
        team0, team1 = want[0] + want[2], want[1] + want[3]
        if team0 != team1:
            assert (mu > 25) == (team0 > team1)
        assert sigma < 25 / 3
        # The seat titles were refreshed after the result and sent to the table.
        last = [f for f in frames if f["t"] == "table"][-1]["table"]
        assert last["seats"][0]["total"] == want[0]

        board = client.get("/api/ladder?game=classic").json()
        mine = next(p for p in board["players"] if p["player"]["id"] == str(me["id"]))
        assert mine["total"] == want[0] and mine["games"] == 1 and mine["title"]
        assert client.get("/api/ladder?game=gunzi").json()["count"] == 0
        page = client.get(f"/api/players/{me['id']}").json()
        assert page["player"]["name"] == me["name"]
        assert page["ladders"]["classic"]["games"] == 1
        assert [(h["table_id"], h["hand"], h["score"]) for h in page["history"]] == [
            (t["id"], 1, want[0])]
        assert len(page["series"]["classic"]) == 1 and page["series"]["gunzi"] == []
        bot = client.get("/api/players/rule").json()
        assert bot["player"]["kind"] == "bot" and bot["ladders"]["classic"]["games"] == 1

        # Restart the hall on the same data: nothing is applied again.
        client2 = make_client()
        assert client2.get(f"/api/tables/{t['id']}").json()["seats"][0]["total"] == want[0]
        assert _ladder_state(store) == state
    finally:
        store.close()


def test_bot_only_tables_are_recorded_but_not_rated(client: TestClient, tmp_path: Path) -> None:
    owner = cookie_guest(client)
    tid = client.post("/api/tables", json={"preset": "classic-1", "max_hands": 1},
                      headers=owner).json()["id"]
    for seat in range(4):
        r = client.put(f"/api/tables/{tid}/seats/{seat}/bot", json={"bot": "random"},
                       headers=owner)
        assert r.status_code == 200, r.text
    assert client.post(f"/api/tables/{tid}/start", headers=owner).status_code == 200
    for _ in range(600):
        if client.get(f"/api/tables/{tid}").json()["status"] == "finished":
            break
        asyncio.run(asyncio.sleep(0.05))
    else:
        raise AssertionError("the bot table did not finish")
    store = _store(hall_settings(tmp_path / "data"))
    try:
        state = _ladder_state(store)
        assert state["results"] == 1 and state["entries"] == 0 and state["players"] == {}
        rated = store.call(lambda s: s.scalar(select(db.LadderResultRow.rated)))
        assert rated is False
    finally:
        store.close()
    assert client.get("/api/players/random").status_code == 404


def test_ladder_api_refuses_bad_input(client: TestClient) -> None:
    assert client.get("/api/ladder?game=chess").status_code == 400
    assert client.get("/api/ladder?limit=0").status_code == 422
    assert client.get("/api/ladder?limit=100000").status_code == 422
    assert client.get("/api/players/x%27%3B%20DROP").status_code == 400
    assert client.get("/api/players/999999").status_code == 404
    assert client.get("/api/players/nobot").status_code == 404
    titles = client.get("/api/ladder/titles").json()["titles"]
    assert len(titles) == 25 and titles[-1] == {"name": "诺贝尔", "threshold": 28800}


def test_cli_ladder_top(tmp_path: Path) -> None:
    settings = hall_settings(tmp_path / "data")
    store = _store(settings)
    try:
        a, b = _user(store, "alice"), _user(store, "bob")
        for hand in (1, 2):
            store.call(ladder_db.apply_result, LadderResult(
                "gunzi", "t1", hand, (f"u:{a}", "bot:rule", f"u:{b}", "bot:random"),
                (30, -30, 30, -30), True), float(hand))
    finally:
        store.close()
    runner = CliRunner()
    out = runner.invoke(cli_app, ["ladder", "top", "--database", settings.db_url, "--json"])
    assert out.exit_code == 0, out.output
    board = json.loads(out.output)
    # People only by default; by total, then rating, then key: equal teammates keep a
    # stable order.
    assert [(p["rank"], p["player"]["name"], p["total"]) for p in board["players"]] == [
        (1, "alice", 60), (2, "bob", 60)]
    assert board["players"][0]["title"] == "幼中班" and board["count"] == 2
    out = runner.invoke(cli_app, ["ladder", "top", "--database", settings.db_url, "--bots",
                                  "--json"])
    bots = json.loads(out.output)
    assert [(p["rank"], p["player"]["name"], p["total"]) for p in bots["players"]] == [
        (1, "random", -60), (2, "rule", -60)]
    assert bots["kind"] == "bots" and bots["count"] == 2
    out = runner.invoke(cli_app, ["ladder", "top", "--database", settings.db_url,
                                  "--game", "classic", "--json"])
    assert out.exit_code == 0 and json.loads(out.output)["players"] == []
    out = runner.invoke(cli_app, ["ladder", "top", "--database", settings.db_url, "--limit", "1"])
    assert out.exit_code == 0 and "alice" in out.output and "bob" not in out.output
    assert "random" not in out.output
    out = runner.invoke(cli_app, ["ladder", "top", "--data-dir", str(tmp_path / "nothing")])
    assert out.exit_code == 2 and "no hall database" in out.output
    assert runner.invoke(cli_app, ["ladder", "top", "--database", settings.db_url,
                                   "--game", "chess"]).exit_code == 2


def test_cli_ladder_titles() -> None:
    runner = CliRunner()
    out = runner.invoke(cli_app, ["ladder", "titles", "--json"])
    assert out.exit_code == 0, out.output
    rows = json.loads(out.output)
    assert rows[0] == {"name": "幼小班", "threshold": 0} and len(rows) == 25
    assert [r["threshold"] for r in rows] == [50 * k * k for k in range(25)]
    text_out = runner.invoke(cli_app, ["ladder", "titles"]).output
    assert "博士后" in text_out and "24200" in text_out


# ------------------------------------------------------------------- SIGKILL


@dataclass
class KillingPlayer(Player):
    """A player that calls ``kill(hand)`` when a live frame carries a hand's end."""

    kill: Any = None

    async def _handle(self, ws: Any, f: dict[str, Any]) -> None:
        if self.kill is not None and f["t"] == "events" and not f.get("resync"):
            for e in f["events"]:
                if e.get("type") == "hand_end":
                    self.kill(e["hand"])
        await super()._handle(ws, f)


async def _wait(cond: Callable[[], bool], timeout: float, what: str) -> None:
    for _ in range(int(timeout / 0.05)):
        if cond():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


async def _kill_scenario(server: ServerProc) -> tuple[str, list[dict[str, Any]]]:
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        tid, cookies = await make_table(http, "gunzi", max_hands=3)
        armed = {1, 2}

        def kill(hand: int) -> None:  # at hands 1 and 2's ends: just after the commit
            if hand in armed and server.proc is not None and server.proc.poll() is None:
                armed.discard(hand)
                os.kill(server.proc.pid, 9)

        players = [KillingPlayer(server.ws_url, tid, c, kill=kill) for c in cookies]
        for p in players:
            await p.connect(None)
        r = await http.post(f"/api/tables/{tid}/start", headers={"Cookie": cookies[0]})
        assert r.status_code == 200, r.text
        for hand in (1, 2):
            await _wait(lambda hand=hand: hand not in armed, 240, "a hand's end")
            assert server.proc is not None
            server.proc.wait(10)
            await _wait(lambda: all(p.task is None or p.task.done() for p in players), 20,
                        "the sockets to drop")
            server.start()
            for p in players:
                await p.connect(p.seq)
        await _wait(lambda: players[0].finished.is_set(), 300, "the table to finish")
        text_ = (await http.get(f"/api/tables/{tid}/record")).text
        for p in players:
            await p.disconnect()
    return tid, [json.loads(x) for x in text_.splitlines() if x.strip()]


@pytest.mark.slow
def test_sigkill_at_hand_end_counts_each_result_once(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with ServerProc(data) as server:
        tid, lines = asyncio.run(_kill_scenario(server))
    replay = records.replay(lines)
    assert len(replay.hands) == 3
    ends = [e for e in lines if e["type"] == "hand_end"]
    con = sqlite3.connect(data / "gunzi.sqlite3")
    try:
        results = con.execute("SELECT id, hand_no, players, scores FROM ladder_results "
                              "WHERE table_id = ? ORDER BY hand_no", (tid,)).fetchall()
        # One result per hand, each with the hand's A12 scores from the record.
        assert [(h, json.loads(s)) for _, h, _, s in results] == [
            (e["hand"], e["hand_scores"]) for e in ends]
        for (game, player, total, games, mu, sigma) in con.execute(
                "SELECT game, player, total, games, mu, sigma FROM ladder_players"):
            entries = con.execute(
                "SELECT score, total_after, mu_before, mu_after, sigma_after FROM ladder_entries "
                "WHERE player = ? AND game = ? ORDER BY result_id", (player, game)).fetchall()
            assert games == len(entries) == 3
            players_of = [json.loads(p) for _, _, p, _ in results]
            scores_of = [json.loads(s) for _, _, _, s in results]
            assert [e[0] for e in entries] == [
                sum(sc[i] for i in range(4) if ps[i] == player)
                for ps, sc in zip(players_of, scores_of, strict=True)]
            assert total == sum(e[0] for e in entries) == entries[-1][1]
            # Each rating update starts from the previous one: applied once, in order.
            for prev, cur in itertools.pairwise(entries):
                assert cur[2] == pytest.approx(prev[3])
            assert (mu, sigma) == pytest.approx(entries[-1][3:5])
        assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    finally:
        con.close()


def test_group_commit_applies_each_tables_result_with_its_action(tmp_path: Path) -> None:
    store = _store(hall_settings(tmp_path / "data"))
    try:
        uid = _user(store, "carol")
        for t in ("g1", "g2"):
            store.call(lambda s, t=t: s.add(db.TableRow(
                id=t, code=None, name="x", public=True, preset="gunzi", rules={}, clock=0,
                max_hands=0, status="playing", owner_id=None, header=None, created_at=0.0,
                updated_at=0.0, n_actions=0, n_events=0)))

        def item(t: str, ladder: LadderResult | None) -> tuple[Any, ...]:
            action = {"table_id": t, "n": 1, "seat": 0, "source": "bot", "user_id": None,
                      "cid": None, "data": {}, "v_end": 0, "created_at": 0.0}
            return (t, action, [], {"n_actions": 1},
                    None if ladder is None else ladder_db.writer(ladder))

        res = LadderResult("gunzi", "g2", 1, (f"u:{uid}", "bot:rule", "bot:rule", "bot:rule"),
                           (-3, 3, -3, 3), True)
        store.call(db._commit_group, [item("g1", None), item("g2", res)])
        state = _ladder_state(store)
        assert state["results"] == 1
        assert state["players"][("gunzi", f"u:{uid}")][:2] == (-3, 1)
    finally:
        store.close()
