"""The WebSocket gateway in-process (TestClient): protocol, P4 exactly-once, limits, clock, 托管."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketDenialResponse

from .leakcheck import Truth, check
from .util import cookie_guest, four_humans, recv


def _until_turn(ws: Any, seat: int, limit: int = 5000) -> dict[str, Any]:
    for _ in range(limit):
        f = json.loads(ws.receive_text())
        if f["t"] in ("events", "snapshot") and f["turn"]["seat"] == seat:
            return f
    raise AssertionError("never my turn")


def _closed(ws: Any, limit: int = 500) -> int:
    for _ in range(limit):
        msg = ws.receive()
        if msg["type"] == "websocket.close":
            code: int = msg["code"]
            return code
    raise AssertionError("not closed")


def test_welcome_snapshot_roles(client: TestClient) -> None:
    alice = cookie_guest(client)
    t = client.post("/api/quickplay", json={"preset": "classic-1"}, headers=alice).json()
    with client.websocket_connect(f"/ws/tables/{t['id']}", headers=alice) as ws:
        ws.send_json({"t": "hello"})
        w = recv(ws, "welcome")
        assert w["seat"] == 0 and w["role"] == "player" and w["protocol"] == 1
        assert w["you"]["name"].startswith("guest-")
        s = recv(ws, ("snapshot",))
        assert s["view"]["seat"] == 0 and isinstance(s["view"]["hand"], list)
        assert s["events"][0]["type"] == "deal" and s["events"][0]["seq"] >= 1
        assert "seed" not in s["events"][0] and len(s["events"][0]["commitment"]) == 64
    # The same user asking to watch is a spectator; so is an anonymous socket.
    for url, headers in ((f"/ws/tables/{t['id']}?watch=1", alice),
                         (f"/ws/tables/{t['id']}", {})):
        with client.websocket_connect(url, headers=headers) as ws:
            ws.send_json({"t": "hello"})
            w = recv(ws, "welcome")
            assert w["seat"] is None and w["role"] == "spectator"
            s = recv(ws, "snapshot")
            assert s["view"]["hand"] is None
    with pytest.raises(WebSocketDenialResponse) as exc, \
            client.websocket_connect("/ws/tables/nosuchtable"):
        pass
    assert exc.value.status_code == 404


def test_hello_first_and_bad_messages(client: TestClient) -> None:
    alice = cookie_guest(client)
    t = client.post("/api/quickplay", json={"preset": "classic-1"}, headers=alice).json()
    with client.websocket_connect(f"/ws/tables/{t['id']}", headers=alice) as ws:
        ws.send_json({"t": "hint"})
        assert recv(ws, "error")["code"] == "hello_first"
        ws.send_json({"t": "hello", "surprise": 1})
        assert recv(ws, "error")["code"] == "bad_message"
        ws.send_json({"t": "nope"})
        assert recv(ws, "error")["code"] == "bad_message"
        ws.send_json({"t": "hello"})
        _until_turn(ws, 0)
        bad: list[tuple[dict[str, Any], str]] = [
            ({"type": "deal", "seed": 1}, "malformed"),
            ({"type": "play", "cards": ["ZZ"]}, "malformed"),
            ({"type": "play", "cards": ["AS"], "seat": 2}, "not_your_seat"),
            ({"type": "play", "cards": ["AS"], "evil": True}, "malformed"),
            ({"type": "play", "cards": [f"{r}S" for r in "23456789JQKA"] * 6}, "malformed"),
        ]
        for i, (action, code) in enumerate(bad):
            ws.send_json({"t": "act", "id": f"b{i}", "action": action})
            ack = recv(ws, "ack")
            assert ack["ok"] is False and ack["error"]["code"] == code, ack
        ws.send_json({"t": "act", "id": "bad id with spaces", "action": {"type": "pass"}})
        assert recv(ws, "error")["code"] == "bad_message"
        ws.send_json({"t": "ping"})
        assert recv(ws, "pong") == {"t": "pong"}


def test_duplicate_message_is_applied_once(client: TestClient) -> None:
    alice = cookie_guest(client)
    t = client.post("/api/quickplay", json={"preset": "gunzi"}, headers=alice).json()
    with client.websocket_connect(f"/ws/tables/{t['id']}", headers=alice) as ws:
        ws.send_json({"t": "hello", "views": False})
        _until_turn(ws, 0)
        ws.send_json({"t": "hint"})
        action = recv(ws, "hint")["action"]
        msg = {"t": "act", "id": "once-1", "action": action}
        ws.send_json(msg)
        ws.send_json(msg)
        ws.send_json(msg)
        acks = [recv(ws, "ack") for _ in range(3)]
        assert [a["ok"] for a in acks] == [True, True, True]
        assert [a.get("dup") for a in acks] == [False, True, True]
        assert acks[0]["seq"] == acks[1]["seq"] == acks[2]["seq"]
        # The stream holds that decision once.
        ws.send_json({"t": "sync", "last_seq": 0})
        full = recv(ws, "events")
        while not full.get("resync"):
            full = recv(ws, "events")
        mine = [e for e in full["events"] if e.get("seat") == 0 and e["type"] == action["type"]
                and e.get("cards", []) == action.get("cards", [])]
        assert len(mine) >= 1
        ack_seq = acks[0]["seq"]
        mine_at = [e for e in mine if e["seq"] <= ack_seq]
        assert mine_at and mine_at[-1]["seq"] <= ack_seq
        applied = [e for e in full["events"] if e["seq"] <= ack_seq and e.get("seat") == 0
                   and e["type"] in ("declare", "pass", "bury", "bury_jokers", "play",
                                     "joker_announce", "tribute", "return")]
        assert len(applied) == 1  # exactly the one decision seat 0 was acked for


def test_stale_and_out_of_turn_refusals(client: TestClient) -> None:
    tid, cookies = four_humans(client, "classic-1")
    socks = [client.websocket_connect(f"/ws/tables/{tid}", headers=c) for c in cookies]
    opened = [s.__enter__() for s in socks]
    try:
        for ws in opened:
            ws.send_json({"t": "hello", "views": False})
        turns = [recv(ws, "snapshot") for ws in opened]
        asked = [i for i, f in enumerate(turns) if f["turn"]["seat"] == i]
        assert len(asked) == 1, "exactly one seat knows it is to act"
        me = asked[0]
        other = (me + 1) % 4
        # Everyone else is told nothing about who is deciding while cards are drawn.
        for i, f in enumerate(turns):
            if i != me and f["view"]["phase"] == "draw":
                assert f["turn"]["seat"] is None and f["view"]["to_act"] is None
        ws = opened[other]
        ws.send_json({"t": "act", "id": "o1", "action": {"type": "pass"}})
        ack = recv(ws, "ack")
        assert ack["error"]["code"] == "out_of_turn"
        named = {int(n) for n in re.findall(r"seat (\d)", ack["error"]["message"])}
        assert named <= {other}, "names no seat but the sender's own"
        ws = opened[me]
        ws.send_json({"t": "hint"})
        action = recv(ws, "hint")["action"]
        seq = turns[me]["seq"]
        ws.send_json({"t": "act", "id": "s1", "action": action, "seq": seq - 1})
        assert recv(ws, "ack")["error"]["code"] == "stale"
        ws.send_json({"t": "act", "id": "s2", "action": action, "seq": seq})
        assert recv(ws, "ack")["ok"] is True
    finally:
        for s in socks:
            s.__exit__(None, None, None)


def test_origin_is_checked(client: TestClient) -> None:
    alice = cookie_guest(client)
    tid = client.post("/api/tables", json={}, headers=alice).json()["id"]
    for origin in ("http://evil.example", "null", "http://testserver.evil.example"):
        with pytest.raises(WebSocketDenialResponse) as exc, \
                client.websocket_connect(f"/ws/tables/{tid}",
                                         headers={**alice, "Origin": origin}):
            pass
        assert exc.value.status_code == 403
    with client.websocket_connect(f"/ws/tables/{tid}",
                                  headers={**alice, "Origin": "http://testserver"}) as ws:
        ws.send_json({"t": "hello"})
        assert recv(ws, "welcome")["seat"] is None


def test_allowed_extra_origin(make_client: Callable[..., TestClient]) -> None:
    client = make_client(allowed_origins=("http://localhost:5173",))
    alice = cookie_guest(client)
    tid = client.post("/api/tables", json={}, headers=alice).json()["id"]
    with client.websocket_connect(f"/ws/tables/{tid}",
                                  headers={**alice, "Origin": "http://localhost:5173"}) as ws:
        ws.send_json({"t": "hello"})
        assert recv(ws, "welcome")["t"] == "welcome"


def test_oversize_binary_and_garbage_frames_close(client: TestClient) -> None:
    alice = cookie_guest(client)
    tid = client.post("/api/tables", json={}, headers=alice).json()["id"]
    url = f"/ws/tables/{tid}"
    with client.websocket_connect(url) as ws:
        ws.send_text(json.dumps({"t": "chat", "text": "x" * 9000}))
        assert _closed(ws) == 1009
    with client.websocket_connect(url) as ws:
        ws.send_text("{not json")
        assert _closed(ws) == 1007
    with client.websocket_connect(url) as ws:
        ws.send_bytes(b"\x00\x01")
        assert _closed(ws) == 1003


def test_flood_is_closed_and_pings_are_counted_apart(
        make_client: Callable[..., TestClient]) -> None:
    client = make_client(ws_rate_messages=20, ws_pings=100, ws_rate_window=20.0)
    alice = cookie_guest(client)
    tid = client.post("/api/tables", json={}, headers=alice).json()["id"]
    with client.websocket_connect(f"/ws/tables/{tid}", headers=alice) as ws:
        for _ in range(100):
            ws.send_json({"t": "ping"})
        for _ in range(100):
            assert recv(ws, "pong")
        ws.send_json({"t": "hello"})
        for _ in range(100):
            ws.send_json({"t": "hint"})
        assert _closed(ws) == 1008


def test_chat_is_text_only_limited_and_rate_limited(client: TestClient) -> None:
    alice, bob = cookie_guest(client), cookie_guest(client)
    tid = client.post("/api/tables", json={"seat": 0}, headers=alice).json()["id"]
    with client.websocket_connect(f"/ws/tables/{tid}", headers=alice) as a, \
            client.websocket_connect(f"/ws/tables/{tid}", headers=bob) as b, \
            client.websocket_connect(f"/ws/tables/{tid}") as anon:
        for ws in (a, b, anon):
            ws.send_json({"t": "hello"})
            recv(ws, "snapshot")
        a.send_json({"t": "chat", "text": "  hello\u0000 <b>world</b>\u202e\n" + "z" * 500})
        got = recv(b, "chat")
        assert got["seat"] == 0 and got["from"].startswith("guest-")
        assert got["text"].startswith("hello <b>world</b> z") and len(got["text"]) == 200
        assert "\u0000" not in got["text"] and "\u202e" not in got["text"]
        assert recv(anon, "chat")["text"] == got["text"]
        anon.send_json({"t": "chat", "text": "hi"})
        assert recv(anon, "error")["code"] == "login_required"
        for i in range(5):
            b.send_json({"t": "chat", "text": f"m{i}"})
        b.send_json({"t": "chat", "text": "one too many"})
        assert recv(b, "error")["code"] == "chat_rate"
        b.send_json({"t": "chat", "text": "   "})
        assert recv(b, "error")["code"] in ("empty", "chat_rate")
    # Late joiners get the recent chat in their welcome.
    with client.websocket_connect(f"/ws/tables/{tid}") as ws:
        ws.send_json({"t": "hello"})
        assert [m["text"] for m in recv(ws, "welcome")["chat"]][:2] == [got["text"], "m0"]


def test_clock_runs_out_bot_plays_then_hands_back(client: TestClient) -> None:
    alice = cookie_guest(client)
    t = client.post("/api/quickplay", json={"preset": "classic-1", "clock": 1},
                    headers=alice).json()
    with client.websocket_connect(f"/ws/tables/{t['id']}", headers=alice) as ws:
        ws.send_json({"t": "hello", "views": False})
        deadline_seen = False
        auto = False
        t0 = time.monotonic()
        while time.monotonic() - t0 < 60:
            f = json.loads(ws.receive_text())
            if (f["t"] in ("events", "snapshot") and f["turn"]["seat"] == 0
                    and f["turn"]["deadline"] is not None):
                deadline_seen = True
                assert f["turn"]["clock"] == 1
            if f["t"] == "table" and f["table"]["seats"][0]["auto"]:
                auto = True
                break
        assert deadline_seen and auto
        # The bot now plays seat 0: its decisions keep coming without us.
        plays = 0
        while plays < 3:
            f = json.loads(ws.receive_text())
            if f["t"] == "events":
                plays += sum(1 for e in f["events"] if e["type"] == "play" and e["seat"] == 0)
        ws.send_json({"t": "auto", "on": False})
        f = recv(ws, "table")
        while f["table"]["seats"][0]["auto"]:
            f = recv(ws, "table")
        assert f["table"]["seats"][0]["auto"] is False


def test_disconnected_seat_goes_to_the_bot_and_comes_back(
        make_client: Callable[..., TestClient]) -> None:
    client = make_client(away_after=0.3)
    alice = cookie_guest(client)
    t = client.post("/api/quickplay", json={"preset": "classic-1"}, headers=alice).json()
    with client.websocket_connect(f"/ws/tables/{t['id']}", headers=alice) as ws:
        ws.send_json({"t": "hello", "views": False})
        _until_turn(ws, 0)
    for _ in range(100):
        info = client.get(f"/api/tables/{t['id']}").json()
        if info["seats"][0]["auto"]:
            break
        time.sleep(0.05)
    assert info["seats"][0]["auto"] and not info["seats"][0]["connected"]
    with client.websocket_connect(f"/ws/tables/{t['id']}", headers=alice) as ws:
        ws.send_json({"t": "hello"})
        w = recv(ws, "welcome")
        assert w["table"]["seats"][0]["auto"] is False
        assert w["table"]["seats"][0]["connected"] is True


def test_resync_by_seq_matches_the_live_stream(client: TestClient) -> None:
    alice = cookie_guest(client)
    t = client.post("/api/quickplay", json={"preset": "gunzi"}, headers=alice).json()
    live: dict[int, dict[str, Any]] = {}
    with client.websocket_connect(f"/ws/tables/{t['id']}", headers=alice) as ws:
        ws.send_json({"t": "hello", "last_seq": 0, "views": False})
        n = 0
        seq = 0
        while n < 6:
            f = json.loads(ws.receive_text())
            if f["t"] == "events":
                for e in f["events"]:
                    live[e["seq"]] = e
                seq = f["seq"]
                if f["turn"]["seat"] == 0:
                    ws.send_json({"t": "hint"})
            elif f["t"] == "hint" and f["action"]:
                n += 1
                ws.send_json({"t": "act", "id": f"r{n}", "action": f["action"]})
        while True:  # until the table waits for us again: then nothing moves
            f = json.loads(ws.receive_text())
            if f["t"] == "events":
                for e in f["events"]:
                    live[e["seq"]] = e
                seq = f["seq"]
                if f["turn"]["seat"] == 0:
                    break
    assert sorted(live) == list(range(1, len(live) + 1))
    with client.websocket_connect(f"/ws/tables/{t['id']}", headers=alice) as ws:
        k = len(live) // 2
        ws.send_json({"t": "hello", "last_seq": k})
        f = recv(ws, ("events", "snapshot"))
        assert f["t"] == "events" and f["resync"] and f["seq"] >= seq
        got = {e["seq"]: e for e in f["events"]}
        assert min(got) == k + 1
        for s in range(k + 1, len(live) + 1):
            assert got[s] == live[s]
        ws.send_json({"t": "sync", "last_seq": f["seq"] + 1000})
        snap = recv(ws, "snapshot")
        assert snap["seq"] == f["seq"] and snap["events"][0]["type"] == "deal"


def test_spectator_sees_no_hidden_card(make_client: Callable[..., TestClient]) -> None:
    client = make_client(bot_delay=0.001)
    alice = cookie_guest(client)
    tid = client.post("/api/tables", json={"preset": "gunzi", "max_hands": 1},
                      headers=alice).json()["id"]
    for seat in range(4):
        client.put(f"/api/tables/{tid}/seats/{seat}/bot", json={"bot": "random"}, headers=alice)
    frames: list[dict[str, Any]] = []
    with client.websocket_connect(f"/ws/tables/{tid}") as ws:
        ws.send_json({"t": "hello"})
        assert recv(ws, "welcome")["role"] == "spectator"
        assert client.post(f"/api/tables/{tid}/start", headers=alice).status_code == 200
        while True:
            f = json.loads(ws.receive_text())
            frames.append(f)
            if f["t"] == "table" and f["table"]["status"] == "finished":
                break
    lines = [json.loads(x) for x in client.get(f"/api/tables/{tid}/record").text.splitlines()]
    report = check(Truth(lines), None, frames)
    assert report.leaks == [] and report.wrong == []
    assert report.events > 100 and report.views > 10
    draws = [e for f in frames if f["t"] == "events" for e in f["events"] if e["type"] == "draw"]
    assert draws and all("card" not in e for e in draws)
