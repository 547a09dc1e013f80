"""步步为营 tables in the hall: quick play, seats and bots, play over the WebSocket to the end,
refusals, spectators, the record, a restart that resumes the game where it was, the
ladder (one result per finished game), and listing and room codes."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select
from typer.testing import CliRunner

from gunzi.cli import app as cli_app
from gunzi.ladder.points import quoridor_points
from gunzi.quoridor import records
from gunzi.quoridor.bots import RuleBot
from gunzi.quoridor.game import Action, Pass, QuoridorGame, Wall
from gunzi.quoridor.rules import preset
from gunzi.server import db
from gunzi.server.app import create_app
from gunzi.server.settings import Settings

from .util import cookie_guest, failing_commit, hall_settings


def recv(ws: Any, kinds: tuple[str, ...] | str) -> dict[str, Any]:
    kinds = (kinds,) if isinstance(kinds, str) else kinds
    while True:
        f: dict[str, Any] = json.loads(ws.receive_text())
        if f["t"] in kinds:
            return f


def as_payload(action: Action) -> dict[str, Any]:
    if isinstance(action, Wall):
        return {"type": "wall", "wall": action.text()}
    if isinstance(action, Pass):
        return {"type": "pass"}
    return {"type": "move", "to": action.text()}


class Mirror:
    """A client's copy of the game, rebuilt from the frames it reads (checks the stream)."""

    def __init__(self, ws: Any, name: str) -> None:
        self.ws = ws
        self.game = QuoridorGame(preset(name))
        self.seq = 0
        self.last: dict[str, Any] = {}

    def recv(self, kinds: tuple[str, ...] | str) -> dict[str, Any]:
        """The next frame of ``kinds``; every events/snapshot frame on the way is applied."""
        kinds = (kinds,) if isinstance(kinds, str) else kinds
        while True:
            f: dict[str, Any] = json.loads(self.ws.receive_text())
            if f["t"] in ("events", "snapshot"):
                self.take(f)
            if f["t"] in kinds:
                return f

    def take(self, f: dict[str, Any]) -> None:
        self.last = f
        if f["t"] == "snapshot":
            self.game = records.replay([records.header(QuoridorGame(self.game.rules)),
                                        *f["events"]]).game
            self.seq = f["seq"]
            return
        for ev in f["events"]:
            assert ev.pop("seq") == self.seq + 1
            self.seq += 1
            action = records.action_of(ev)
            if action is not None:
                assert self.game.apply(action).to_dict() == ev
        assert f["seq"] == self.seq
        assert f["view"]["pawns"] == self.game.view(0)["pawns"]

    def act(self, cid: str, payload: dict[str, Any]) -> dict[str, Any]:
        self.ws.send_json({"t": "act", "id": cid, "action": payload})
        ack = self.recv("ack")
        while ack["ok"] and self.seq < ack["seq"]:
            self.recv(("events", "snapshot"))
        return ack


def play_until(m: Mirror, seat: int, stop: int | None = None, prefix: str = "a") -> None:
    """Play ``seat`` with the rule bot until the game ends (or ``stop`` own moves)."""
    bot, rng, n = RuleBot(), random.Random(1), 0
    while not m.game.is_over and (stop is None or n < stop):
        if m.game.to_act == seat:
            n += 1
            # a pawn boxed in with no wall to place must pass (the engine's only legal action)
            action = bot.choose(m.game, seat, rng)
            assert action in m.game.legal_actions(seat)
            ack = m.act(f"{prefix}{n}", as_payload(action))
            assert ack["ok"], ack
        else:
            m.recv(("events", "snapshot"))


def seat_0_after(ws: Any, moves: int) -> Mirror:
    """Say hello as seat 0 of a quoridor-2 game, make ``moves`` moves, wait for the next turn."""
    me = Mirror(ws, "quoridor-2")
    ws.send_json({"t": "hello"})
    me.recv("snapshot")
    play_until(me, 0, stop=moves)
    while me.game.to_act != 0:
        me.recv(("events", "snapshot"))
    return me


def test_quickplay_two_players_to_the_end_with_a_spectator(tmp_path: Path) -> None:
    with TestClient(create_app(hall_settings(tmp_path / "data"))) as c:
        alice = cookie_guest(c)
        bob = cookie_guest(c)
        t = c.post("/api/board/quickplay", json={"preset": "quoridor-2", "bot": "rule"},
                   headers=alice).json()
        assert t["status"] == "playing" and t["seat"] == 0 and t["ws"] == f"/ws/board/{t['id']}"
        assert [s["kind"] for s in t["seats"]] == ["human", "bot"]
        url = f"/ws/board/{t['id']}"
        with c.websocket_connect(url, headers=alice) as ws, \
                c.websocket_connect(url + "?watch=1", headers=bob) as spy_ws:
            me = Mirror(ws, "quoridor-2")
            ws.send_json({"t": "hello"})
            assert me.recv("welcome")["seat"] == 0
            me.recv("snapshot")
            spy = Mirror(spy_ws, "quoridor-2")
            spy_ws.send_json({"t": "hello"})
            assert spy.recv("welcome")["seat"] is None
            spy.recv("snapshot")
            # refusals change nothing and say why
            ack = me.act("bad1", {"type": "move", "to": "e5"})
            assert not ack["ok"] and ack["error"]["code"] == "illegal"
            # in both languages of the page, from the engine's reason (gunzi.wording.errors)
            assert ack["error"]["reason"] == "move_not_step"
            assert ack["error"]["text"]["zh"].startswith("e5 ") and "不是" in \
                ack["error"]["text"]["zh"]
            assert ack["error"]["text"]["en"].startswith("e5 is not")
            assert me.act("bad2", {"type": "fly", "to": "e5"})["error"]["code"] == "malformed"
            assert me.act("bad3", {"type": "wall", "wall": "e0h"})["error"]["code"] == \
                "malformed"
            assert "off the board" in me.act("bad4", {"type": "wall", "wall": "z9h"})[
                "error"]["message"]
            assert spy.act("s1", {"type": "move", "to": "e2"})["error"]["code"] == "not_seated"
            assert me.seq == 0
            # a resent id is acknowledged once and applied once
            assert me.act("w1", {"type": "wall", "wall": "e7h"})["ok"]
            assert me.act("w1", {"type": "wall", "wall": "e7h"}).get("dup") is True
            assert len(me.game.walls) == 1
            play_until(me, 0)
            assert me.game.is_over
            # the spectator saw exactly the same game
            while spy.seq < me.seq:
                spy.recv(("events", "snapshot"))
            assert spy.game.key() == me.game.key()
        info = c.get(f"/api/board/tables/{t['id']}").json()
        assert info["status"] == "finished"
        lines = [json.loads(x) for x in
                 c.get(f"/api/board/tables/{t['id']}/record").text.splitlines()]
        rep = records.replay(lines)
        assert rep.game.key() == me.game.key() and rep.game.is_over


def test_four_players_seated_by_hand(tmp_path: Path) -> None:
    with TestClient(create_app(hall_settings(tmp_path / "data"))) as c:
        alice = cookie_guest(c)
        t = c.post("/api/board/tables", json={"preset": "quoridor-4", "seat": 0},
                   headers=alice).json()
        tid = t["id"]
        assert len(t["seats"]) == 4
        r = c.post(f"/api/board/tables/{tid}/start", headers=alice)
        assert r.status_code == 409 and r.json()["detail"]["code"] == "seats_empty"
        r = c.put(f"/api/board/tables/{tid}/seats/1/bot", json={"bot": "chess"}, headers=alice)
        assert r.status_code == 400
        for seat, bot in ((1, "random"), (2, "rule"), (3, "search")):
            assert c.put(f"/api/board/tables/{tid}/seats/{seat}/bot", json={"bot": bot},
                         headers=alice).status_code == 200
        assert c.post(f"/api/board/tables/{tid}/start", headers=alice).json()["status"] == \
            "playing"
        with c.websocket_connect(f"/ws/board/{tid}", headers=alice) as ws:
            me = Mirror(ws, "quoridor-4")
            ws.send_json({"t": "hello"})
            me.recv("snapshot")
            play_until(me, 0, stop=3)
            assert me.game.turns >= 8  # three own moves, the three bots answered each
            assert c.get(f"/api/board/tables/{tid}").json()["turn"] >= 8


def test_restart_resumes_the_game_where_it_was(tmp_path: Path) -> None:
    settings = hall_settings(tmp_path / "data")
    with TestClient(create_app(settings)) as c1:
        alice = cookie_guest(c1)
        card = c1.post("/api/quickplay", json={"preset": "gunzi"}, headers=alice).json()
        t = c1.post("/api/board/quickplay", json={"preset": "quoridor-2", "bot": "rule"},
                    headers=alice).json()
        with c1.websocket_connect(f"/ws/board/{t['id']}", headers=alice) as ws:
            me = seat_0_after(ws, 3)
            before = me.last
    with TestClient(create_app(settings)) as c2:
        info = c2.get(f"/api/board/tables/{t['id']}").json()
        assert info["status"] == "playing" and info["turn"] == me.game.turns == 6
        assert c2.get(f"/api/tables/{card['id']}").json()["status"] == "playing"  # card hall too
        with c2.websocket_connect(f"/ws/board/{t['id']}", headers=alice) as ws:
            me.ws = ws
            ws.send_json({"t": "hello", "last_seq": me.seq})
            f = me.recv(("events", "snapshot"))
            assert f["t"] == "events" and f["resync"] and f["events"] == []
            assert f["view"] == before["view"]
            play_until(me, 0, stop=2, prefix="b")
            assert me.game.turns >= 9


def test_a_failed_commit_is_not_acked_and_the_game_is_rebuilt_like_a_card_table(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same recovery as the card tables (tests/server/test_persistence.py): the game is
    rebuilt from the database, every socket gets a snapshot, the ack says server_error,
    and the same move then goes through."""
    fail = failing_commit(monkeypatch)
    with TestClient(create_app(hall_settings(tmp_path / "data"))) as c:
        alice = cookie_guest(c)
        t = c.post("/api/board/quickplay", json={"preset": "quoridor-2", "bot": "rule"},
                   headers=alice).json()
        with c.websocket_connect(f"/ws/board/{t['id']}", headers=alice) as ws:
            me = seat_0_after(ws, 2)
            before = me.last
            action = as_payload(RuleBot().choose(me.game, 0, random.Random(0)))
            fail["next"] = True
            ws.send_json({"t": "act", "id": "f1", "action": action})
            snap = me.recv("snapshot")  # the game was rebuilt from the database
            ack = me.recv("ack")
            assert ack["ok"] is False and ack["error"]["code"] == "server_error"
            assert snap["seq"] == before["seq"] == ack["seq"]
            assert snap["view"] == before["view"]
            assert me.act("f2", action)["ok"] is True


def test_socket_guards_and_away_player_is_played_by_the_bot(tmp_path: Path) -> None:
    with TestClient(create_app(hall_settings(tmp_path / "data", away_after=0.2))) as c:
        alice = cookie_guest(c)
        t = c.post("/api/board/quickplay", json={"preset": "quoridor-2", "bot": "rule"},
                   headers=alice).json()
        url = f"/ws/board/{t['id']}"
        try:
            with c.websocket_connect(url, headers={**alice, "Origin": "https://evil.example"}):
                raise AssertionError("a cross-site handshake must be refused")
        except Exception as exc:  # the denial response or the close, depending on starlette
            assert not isinstance(exc, AssertionError)
        try:
            with c.websocket_connect("/ws/board/nosuchtable", headers=alice):
                raise AssertionError("an unknown table must be refused")
        except Exception as exc:
            assert not isinstance(exc, AssertionError)
        with c.websocket_connect(url, headers=alice) as ws:
            me = Mirror(ws, "quoridor-2")
            ws.send_json({"t": "act", "id": "x", "action": {"type": "pass"}})
            assert me.recv("error")["code"] == "hello_first"
            ws.send_json({"t": "hello"})
            me.recv("snapshot")
            # hints, chat and 托管 are the one table's, as at a card table
            assert me.game.to_act == 0
            ws.send_json({"t": "hint", "id": "h1"})
            hint = me.recv("hint")
            assert hint["id"] == "h1" and hint["action"]["type"] in ("move", "wall")
            assert me.act("a1", hint["action"])["ok"] is True  # a hint is a playable action
            ws.send_json({"t": "chat", "text": "你好"})
            said = me.recv("chat")
            assert (said["text"], said["seat"]) == ("你好", 0)
            ws.send_json({"t": "auto", "on": True})
            while not me.recv("table")["table"]["seats"][0]["auto"]:
                pass
            ws.send_json({"t": "auto", "on": False})
            while me.recv("table")["table"]["seats"][0]["auto"]:
                pass
        # nobody is connected for seat 0: after away_after the bot (托管) plays it
        left_at = c.get(f"/api/board/tables/{t['id']}").json()["turn"]
        deadline = time.monotonic() + 20
        while c.get(f"/api/board/tables/{t['id']}").json()["turn"] < left_at + 2:
            assert time.monotonic() < deadline, "the away seat was not played"
            time.sleep(0.1)
        info = c.get(f"/api/board/tables/{t['id']}").json()
        assert info["seats"][0]["auto"] is True
        with c.websocket_connect(url, headers=alice) as ws:
            ws.send_json({"t": "hello"})
            me = Mirror(ws, "quoridor-2")
            me.recv("snapshot")
            assert me.recv("table")["table"]["seats"][0]["auto"] is False  # back: 托管 ends


def _results(settings: Settings, table_id: str) -> list[tuple[Any, ...]]:
    store = db.Store(settings)
    try:
        return store.call(lambda s: [
            (r.game, r.hand_no, r.rated, r.players, r.scores) for r in s.scalars(
                select(db.LadderResultRow).where(db.LadderResultRow.table_id == table_id))])
    finally:
        store.close()


def test_a_finished_game_feeds_the_quoridor_ladder_once(tmp_path: Path) -> None:
    settings = hall_settings(tmp_path / "data")
    with TestClient(create_app(settings)) as c1:
        alice = cookie_guest(c1)
        uid = c1.get("/api/me", headers=alice).json()["user"]["id"]
        t = c1.post("/api/board/quickplay", json={"preset": "quoridor-2", "bot": "random"},
                    headers=alice).json()
        assert (t["seats"][0]["title"], t["seats"][0]["total"]) == ("幼小班", 0)
        with c1.websocket_connect(f"/ws/board/{t['id']}", headers=alice) as ws:
            me = Mirror(ws, "quoridor-2")
            ws.send_json({"t": "hello"})
            me.recv("snapshot")
            play_until(me, 0)
        points = quoridor_points(2, me.game.winner)
        deadline = time.monotonic() + 10  # titles are reread just after the result
        while [s["total"] for s in c1.get(f"/api/board/tables/{t['id']}").json()["seats"]
               ] != list(points):
            assert time.monotonic() < deadline, "the seat totals did not follow the result"
            time.sleep(0.05)
        assert _results(settings, t["id"]) == [
            ("quoridor", 1, True, [f"u:{uid}", "bot:random"], list(points))]
        board = c1.get("/api/ladder?game=quoridor").json()  # people; the bots apart
        assert {p["player"]["id"]: p["total"] for p in board["players"]} == {
            str(uid): points[0]}
        board = c1.get("/api/ladder?game=quoridor&kind=bots").json()
        assert {p["player"]["id"]: p["total"] for p in board["players"]} == {
            "random": points[1]}
    with TestClient(create_app(settings)) as c2:  # a restart writes nothing again
        assert _results(settings, t["id"]) == [
            ("quoridor", 1, True, [f"u:{uid}", "bot:random"], list(points))]
        info = c2.get(f"/api/board/tables/{t['id']}").json()
        assert info["status"] == "finished" and info["seats"][0]["total"] == points[0]
        mine = c2.get(f"/api/players/{uid}").json()
        assert mine["ladders"]["quoridor"]["games"] == 1
        assert [(e["game"], e["score"]) for e in mine["history"]] == [("quoridor", points[0])]
    out = CliRunner().invoke(cli_app, ["ladder", "top", "--game", "quoridor", "--database",
                                       settings.db_url, "--json"])
    assert out.exit_code == 0, out.output
    assert {p["player"]["id"]: p["games"] for p in json.loads(out.output)["players"]} == {
        str(uid): 1}


def test_a_game_of_bots_is_recorded_unrated_and_seats_follow_the_card_rules(
        tmp_path: Path) -> None:
    settings = hall_settings(tmp_path / "data")
    with TestClient(create_app(settings)) as c:
        alice, bob = cookie_guest(c), cookie_guest(c)
        tid = c.post("/api/board/tables", json={"preset": "quoridor-2", "seat": 0},
                     headers=alice).json()["id"]
        r = c.post(f"/api/board/tables/{tid}/seats/0", headers=bob)
        assert r.status_code == 409 and r.json()["detail"]["code"] == "taken"
        r = c.post(f"/api/board/tables/{tid}/seats/2", headers=bob)
        assert r.status_code == 400 and r.json()["detail"]["code"] == "bad_seat"
        r = c.put(f"/api/board/tables/{tid}/seats/1/bot", json={"bot": "rule"}, headers=bob)
        assert r.status_code == 403  # neither the owner nor seated
        assert c.delete(f"/api/board/tables/{tid}/seats/0", headers=alice).status_code == 200
        for seat in (0, 1):
            assert c.put(f"/api/board/tables/{tid}/seats/{seat}/bot", json={"bot": "rule"},
                         headers=alice).status_code == 200
        assert c.delete(f"/api/board/tables/{tid}/seats/1/bot",
                        headers=alice).status_code == 200
        assert c.put(f"/api/board/tables/{tid}/seats/1/bot", json={"bot": "random"},
                     headers=alice).status_code == 200
        assert c.post(f"/api/board/tables/{tid}/start", headers=alice).status_code == 200
        deadline = time.monotonic() + 60
        while c.get(f"/api/board/tables/{tid}").json()["status"] != "finished":
            assert time.monotonic() < deadline, "the bots did not finish"
            time.sleep(0.05)
        assert c.get("/api/ladder?game=quoridor").json()["count"] == 0
    [(game, hand, rated, players, _)] = _results(settings, tid)
    assert (game, hand, rated, players) == ("quoridor", 1, False, ["bot:rule", "bot:random"])


def test_public_board_tables_are_listed_and_private_ones_found_by_code(
        tmp_path: Path) -> None:
    with TestClient(create_app(hall_settings(tmp_path / "data"))) as c:
        alice = cookie_guest(c)
        pub = c.post("/api/board/tables", json={"preset": "quoridor-4", "name": "四人局"},
                     headers=alice).json()
        priv = c.post("/api/board/tables", json={"public": False}, headers=alice).json()
        listed = {t["id"]: t for t in c.get("/api/board/tables").json()["tables"]}
        assert pub["id"] in listed and priv["id"] not in listed
        assert listed[pub["id"]]["game"] == "quoridor"
        assert listed[pub["id"]]["link"].endswith(f"/board.html?t={pub['id']}")
        found = c.get(f"/api/tables/code/{priv['code'].lower()}").json()
        assert found["id"] == priv["id"] and found["game"] == "quoridor"
        with c.websocket_connect(f"/ws/board/{priv['code']}", headers=alice) as ws:
            ws.send_json({"t": "hello"})
            assert recv(ws, "welcome")["table"]["id"] == priv["id"]


def test_the_turn_clock_at_a_board_table_decides_once_then_puts_the_seat_in_托管(
        tmp_path: Path) -> None:
    """The one table class gives 步步为营 the card tables' clock: a timeout lets the bot make
    that move, the second in a row puts the seat in 托管; the frames carry the deadline."""
    with TestClient(create_app(hall_settings(tmp_path / "data"))) as c:
        alice = cookie_guest(c)
        t = c.post("/api/board/quickplay",
                   json={"preset": "quoridor-2", "bot": "rule", "clock": 1},
                   headers=alice).json()
        assert t["clock"] == 1
        with c.websocket_connect(f"/ws/board/{t['id']}", headers=alice) as ws:
            me = Mirror(ws, "quoridor-2")
            ws.send_json({"t": "hello"})
            snap = me.recv("snapshot")
            assert snap["turn"]["seat"] == 0 and snap["turn"]["clock"] == 1
            assert snap["turn"]["deadline"] is not None
            while me.recv("table")["table"]["seats"][0]["auto"] is not True:
                pass  # two timeouts in a row: 托管
            assert me.game.turns == 2  # the first timeout's move and the bot's answer
            while me.game.turns < 3:
                me.recv("events")  # the second timeout's move, made under 托管


def test_refusals_name_pawns_as_the_board_numbers_them() -> None:
    """The board page numbers pawns from 1 (seat + 1); the engine counts seats from 0."""
    from gunzi.engine.errors import GunziError
    from gunzi.quoridor.game import parse_action
    from gunzi.server.refusals import board_illegal

    g = QuoridorGame.from_position(preset("quoridor-2", board_size=5, walls=0), ["c1", "c2"],
                                   walls=[], to_act=0)
    with pytest.raises(GunziError) as caught:
        g.apply(parse_action("c2", 0))  # seat 1's pawn, drawn as 2, stands there
    said = board_illegal(str(caught.value), caught.value.rule)
    assert said == {"reason": "square_occupied",
                    "text": {"zh": "c2 上已经有 2 号棋子", "en": "c2 is taken by pawn 2"}}
