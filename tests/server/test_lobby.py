"""Lobby REST: tables, seats, bots, start, quick play, records, health and metrics."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable

from fastapi.testclient import TestClient

from gunzi import core
from gunzi.engine import records
from gunzi.server.tables import CODE_ALPHABET

from .util import cookie_guest, play_out, recv


def test_rules_health_metrics_and_static(client: TestClient) -> None:
    rules = client.get("/api/rules").json()
    assert set(rules["presets"]) >= {"gunzi", "classic-1", "classic-2", "classic-3"}
    assert "follow" in rules["options"] and "rule" in rules["bots"]
    # The form offers per preset only the values that preset accepts.
    valid = rules["valid"]
    assert valid["gunzi"]["tribute_rule"] == ["one", "two"]
    assert valid["classic-2"]["tribute_rule"] == ["one"]  # classic has no tribute
    assert valid["classic-2"]["follow"] == ["dead"]
    assert valid["classic-2"]["keep_deal"] == ["same-player", "partner"]
    assert valid["gunzi"]["kitty_multiplier"] == ["two"]
    # The classic variants (issue 16): only where the preset can play them.
    assert valid["gunzi"]["trump_structure"] == ["same"]
    assert valid["classic-2"]["trump_structure"] == ["same", "cover"]
    assert valid["classic-3"]["trump_structure"] == ["same", "cover", "cover-triples"]
    assert valid["classic-2"]["triple_tractors"] == [True]
    assert valid["classic-1"]["draw_protection"] == ["none"]
    assert valid["classic-2"]["draw_protection"] == ["none", "no-format"]
    assert valid["classic-3"]["draw_protection"] == ["none", "longer-tuples", "no-format"]
    assert valid["classic-3"]["throw_penalty"][:3] == ["ladder", "none", "points-5"]
    assert valid["classic-1"]["kitty_multiplier"] == ["doubling", "linear", "unit-size", "power"]
    health = client.get("/healthz").json()
    assert health["ok"] is True
    # Which build of the play core the hall's bots run: compiled once `make setup` built it.
    built = core.compiled_build() is not None and os.environ.get("GUNZI_CORE") != "pure"
    assert health["core"] == ("compiled" if built else "pure")
    text = client.get("/metrics").text
    assert "gunzi_actions_total" in text and "gunzi_websockets" in text
    assert "<html" in client.get("/").text.lower()
    assert "<html" in client.get("/table.html").text.lower()


def test_create_list_code_and_seats(client: TestClient) -> None:
    alice, bob = cookie_guest(client), cookie_guest(client)
    r = client.post("/api/tables", json={"preset": "classic-2", "name": "Open <b>table</b>",
                                         "options": {"kitty_multiplier": "linear"},
                                         "clock": 20, "seat": 0}, headers=alice)
    assert r.status_code == 201, r.text
    pub = r.json()
    assert pub["public"] and pub["code"] is None and pub["clock"] == 20
    assert pub["rules"]["kitty_multiplier"] == "linear"
    assert pub["seats"][0]["kind"] == "human" and pub["status"] == "open"
    assert pub["link"].endswith(f"/table.html?t={pub['id']}")
    priv = client.post("/api/tables", json={"preset": "gunzi", "public": False},
                       headers=alice).json()
    assert len(priv["code"]) == 8 and set(priv["code"]) <= set(CODE_ALPHABET)
    listed = [t["id"] for t in client.get("/api/tables").json()["tables"]]
    assert pub["id"] in listed and priv["id"] not in listed
    assert client.get(f"/api/tables/code/{priv['code']}").json()["id"] == priv["id"]
    assert client.get(f"/api/tables/code/{priv['code'].lower()}").json()["id"] == priv["id"]
    assert client.get("/api/tables/code/NOSUCH22").status_code == 404

    tid = pub["id"]
    assert client.post(f"/api/tables/{tid}/seats/0", headers=bob).status_code == 409  # taken
    assert client.post(f"/api/tables/{tid}/seats/1", headers=bob).status_code == 200
    assert client.post(f"/api/tables/{tid}/seats/2", headers=bob).status_code == 409  # seated
    assert client.post(f"/api/tables/{tid}/start", headers=alice).status_code == 409  # empty
    carol = cookie_guest(client)
    r = client.put(f"/api/tables/{tid}/seats/2/bot", json={"bot": "rule"}, headers=carol)
    assert r.status_code == 403  # not at the table
    r = client.put(f"/api/tables/{tid}/seats/2/bot", json={"bot": "search"}, headers=bob)
    assert r.status_code == 400
    r = client.put(f"/api/tables/{tid}/seats/2/bot", json={"bot": "rule"}, headers=bob)
    assert r.json()["seats"][2] == {"seat": 2, "kind": "bot", "name": "rule", "bot": "rule",
                                    "connected": True, "auto": False,
                                    "title": "幼小班", "total": 0}
    assert client.delete(f"/api/tables/{tid}/seats/2/bot", headers=alice).status_code == 200
    assert client.delete(f"/api/tables/{tid}/seats/1", headers=alice).status_code == 403
    assert client.delete(f"/api/tables/{tid}/seats/1", headers=bob).status_code == 200
    for seat in (1, 2, 3):
        client.put(f"/api/tables/{tid}/seats/{seat}/bot", json={"bot": "random"}, headers=alice)
    assert client.post(f"/api/tables/{tid}/start", headers=carol).status_code == 403
    r = client.post(f"/api/tables/{tid}/start", headers=alice)
    assert r.status_code == 200 and r.json()["status"] == "playing"
    assert client.post(f"/api/tables/{tid}/seats/1", headers=carol).status_code == 409
    assert client.delete(f"/api/tables/{tid}/seats/0", headers=alice).status_code == 409
    # The table's name is kept as text (a page renders it as text, never as HTML).
    assert client.get(f"/api/tables/{tid}").json()["name"] == "Open <b>table</b>"


def test_bad_requests(client: TestClient) -> None:
    alice = cookie_guest(client)
    assert client.post("/api/tables", json={"preset": "poker"}, headers=alice).status_code == 400
    r = client.post("/api/tables", json={"options": {"follow": "sideways"}}, headers=alice)
    assert r.status_code == 400 and "follow" in r.json()["detail"]["message"]
    r = client.post("/api/tables", json={"options": {"nonsense": 1}}, headers=alice)
    assert r.status_code == 400
    assert client.post("/api/tables", json={"clock": 100000}, headers=alice).status_code == 400
    assert client.post("/api/tables", json={"extra": 1}, headers=alice).status_code == 422
    assert client.get("/api/tables/nope").status_code == 404


def test_table_quota(make_client: Callable[..., TestClient]) -> None:
    client = make_client(max_tables_per_user=2)
    alice = cookie_guest(client)
    for _ in range(2):
        assert client.post("/api/tables", json={}, headers=alice).status_code == 201
    assert client.post("/api/tables", json={}, headers=alice).status_code == 429


def test_counter_setting_is_kept_and_survives_a_restart(
        make_client: Callable[..., TestClient]) -> None:
    client = make_client()
    alice = cookie_guest(client)
    on = client.post("/api/tables", json={}, headers=alice).json()
    off = client.post("/api/tables", json={"counter": False, "seat": 0}, headers=alice).json()
    quick = client.post("/api/quickplay", json={"preset": "classic-1", "counter": False},
                        headers=alice).json()
    assert on["counter"] is True and off["counter"] is False and quick["counter"] is False
    assert client.post("/api/tables", json={"counter": "maybe"}, headers=alice).status_code == 422
    again = make_client()  # a second app on the same database: tables come back from rows
    assert again.get(f"/api/tables/{off['id']}").json()["counter"] is False
    assert again.get(f"/api/tables/{on['id']}").json()["counter"] is True
    assert again.get(f"/api/tables/{quick['id']}").json()["counter"] is False


def test_quick_play_never_piles_up(make_client: Callable[..., TestClient]) -> None:
    client = make_client(max_tables_per_user=2)
    alice = cookie_guest(client)
    made = []
    for _ in range(4):  # more clicks than the per-player limit
        r = client.post("/api/quickplay", json={"preset": "classic-1"}, headers=alice)
        assert r.status_code == 201, r.text
        made.append(r.json()["id"])
    states = [client.get(f"/api/tables/{tid}").json()["status"] for tid in made]
    assert states == ["abandoned", "abandoned", "abandoned", "playing"]
    # Lobby tables have their own limit, untouched by quick play.
    for _ in range(2):
        assert client.post("/api/tables", json={}, headers=alice).status_code == 201
    assert client.post("/api/tables", json={}, headers=alice).status_code == 429
    # A quick-play table still open in a tab is left alone; the new one comes beside it.
    with client.websocket_connect(f"/ws/tables/{made[-1]}", headers=alice) as ws:
        ws.send_json({"t": "hello"})
        recv(ws, ("events", "snapshot"))
        r = client.post("/api/quickplay", json={"preset": "classic-1"}, headers=alice)
        assert r.status_code == 201
        assert client.get(f"/api/tables/{made[-1]}").json()["status"] == "playing"
    bob = cookie_guest(client)
    assert client.post("/api/quickplay", json={"bot": "nobody"}, headers=bob).status_code == 400


def test_duplicate_table_keeps_the_first_play_secret_until_the_board_ends(
        client: TestClient) -> None:
    alice = cookie_guest(client)
    t = client.post("/api/quickplay", json={"preset": "classic-1",
                                            "options": {"duplicate": 1}}, headers=alice).json()
    assert t["rules"]["duplicate"] == 1
    frames = play_out(client, t["id"], alice)
    ends = [e for f in frames if f["t"] == "events" for e in f["events"]
            if e["type"] == "hand_end"]
    assert [(e["board"], e["play"]) for e in ends] == [(1, 1), (1, 2)]
    # While the second play was on, no frame carried the first play's deck or seed.
    second_started = False
    for f in frames:
        for e in f.get("events", []):
            if e["type"] == "deal" and e["hand"] == 2:
                second_started = True
            if second_started and e["type"] == "hand_end" and e["hand"] == 2:
                second_started = False
            if second_started:
                assert "deck" not in e and "seed" not in e, e
    lines = [json.loads(x) for x in client.get(f"/api/tables/{t['id']}/record").text.splitlines()]
    deals = [e for e in lines if e["type"] == "deal"]
    assert len(deals) == 2 and deals[0]["seed"] == deals[1]["seed"]
    assert deals[1]["dealer"] == (deals[0]["dealer"] + 1) % 4  # the teams swap roles
    assert deals[0]["deck"] == deals[1]["deck"]
    rep = records.replay(lines)
    assert len(rep.hands) == 2
    # A hall record is a proof: every deck follows from its revealed seed, every option written.
    assert rep.unseeded == [] and rep.assumed == [] and rep.seeded == [True, True]


def test_quickplay_and_record(client: TestClient) -> None:
    alice = cookie_guest(client)
    r = client.post("/api/quickplay", json={"preset": "classic-1", "max_hands": 2},
                    headers=alice)
    assert r.status_code == 201, r.text
    t = r.json()
    assert t["status"] == "playing" and t["seat"] == 0 and t["ws"] == f"/ws/tables/{t['id']}"
    assert [s["kind"] for s in t["seats"]] == ["human", "bot", "bot", "bot"]
    # Mid-hand the record holds no event of the hand in play (its secrets stay secret).
    mid = client.get(f"/api/tables/{t['id']}/record").text.splitlines()
    assert len(mid) == 1 and json.loads(mid[0])["type"] == "header"
    hint = client.get(f"/api/tables/{t['id']}/hint", headers=alice)
    assert hint.status_code in (200, 409)
    play_out(client, t["id"], alice)
    lines = [json.loads(x) for x in client.get(f"/api/tables/{t['id']}/record").text.splitlines()]
    replay = records.replay(lines)
    assert len(replay.hands) == 2
    deals = [e for e in lines if e["type"] == "deal"]
    assert deals
    for d in deals:  # P5: the commitment published at the deal is SHA-256 of the seed
        assert d["commitment"] == hashlib.sha256(d["seed"].to_bytes(32, "big")).hexdigest()
        assert 0 <= d["seed"] < 2**256
    assert len({d["seed"] for d in deals}) == len(deals)
    info = client.get(f"/api/tables/{t['id']}").json()
    assert info["status"] == "finished" and info["hands_played"] == 2


def test_hint_endpoint_and_websocket_hint(client: TestClient) -> None:
    alice = cookie_guest(client)
    t = client.post("/api/quickplay", json={"preset": "classic-1"}, headers=alice).json()
    with client.websocket_connect(f"/ws/tables/{t['id']}", headers=alice) as ws:
        ws.send_json({"t": "hello"})
        while True:
            f = recv(ws, ("events", "snapshot"))
            if f["turn"]["seat"] == 0:
                break
        r = client.get(f"/api/tables/{t['id']}/hint", headers=alice)
        assert r.status_code == 200
        action = r.json()["action"]
        assert action["type"] in ("declare", "pass", "bury", "play")
        ws.send_json({"t": "hint", "id": "q1"})
        h = recv(ws, "hint")
        assert h["id"] == "q1" and h["action"]["type"] == action["type"]
        ws.send_json({"t": "act", "id": "x1", "action": h["action"]})
        ack = recv(ws, "ack")
        assert ack["ok"] and ack["id"] == "x1"
    bob = cookie_guest(client)
    assert client.get(f"/api/tables/{t['id']}/hint", headers=bob).status_code == 409


# Variant values a preset cannot play ([I-20]..[I-30], B kitty): each refusal names the
# option and what that preset may use (docs/rules-classic-variants.md says which needs what).
REFUSED = [
    ("classic-2", {"trump_structure": "cover-triples"}, ("trump_structure", "'cover'")),
    ("classic-2", {"triple_tractors": False}, ("triple_tractors", "True")),
    ("classic-2", {"draw_protection": "longer-tuples"}, ("draw_protection", "'none'")),
    ("classic-1", {"tractor_min_length": 3}, ("tractor_min_length", "=2")),
    ("classic-1", {"break_longer_tractor": False}, ("break_longer_tractor", "True")),
    ("classic-1", {"short_tractor_follow": "pairs"}, ("short_tractor_follow", "'tractor'")),
    ("classic-1", {"trump_structure": "cover"}, ("trump_structure", "'same'")),
    ("gunzi", {"throw_compare": "every-unit"}, ("throw_compare", "'highest-unit'")),
    ("gunzi", {"no_declaration": "no-trump"}, ("no_declaration", "'kitty-card'")),
    ("gunzi", {"throw_penalty": "points-10"}, ("throw_penalty", "'ladder'")),
    ("gunzi", {"must_defend": "none"}, ("must_defend", "'A'")),
    ("gunzi", {"kitty_multiplier": "power"}, ("kitty_multiplier", "'two'")),
    ("classic-2", {"kitty_multiplier": "two"}, ("kitty_multiplier", "'power'")),
    ("classic-2", {"throw_penalty": "points-7"}, ("throw_penalty", "'points-10'")),
    ("classic-2", {"must_defend": "5-10"}, ("must_defend", "'5-10-K-A'")),
]


def test_variant_values_a_preset_cannot_play_are_a_clear_400(client: TestClient) -> None:
    alice = cookie_guest(client)
    before = client.get("/api/tables").json()["tables"]
    for name, options, words in REFUSED:
        r = client.post("/api/tables", json={"preset": name, "options": options, "public": True},
                        headers=alice)
        assert r.status_code == 400, (name, options, r.text)
        message = r.json()["detail"]["message"]
        for word in words:
            assert word in message, (name, options, message)
    assert client.get("/api/tables").json()["tables"] == before  # nothing was created
