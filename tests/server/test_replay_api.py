"""Replay REST: a table's timeline (finished hands only), uploaded records, reviews."""

from __future__ import annotations

import json
from typing import Any

from fastapi.testclient import TestClient

from gunzi.engine import records
from gunzi.review.timeline import MAX_RECORD_BYTES

from .util import cookie_guest, play_out


def _finished_table(client: TestClient, preset: str = "classic-1") -> tuple[str, dict[str, str]]:
    alice = cookie_guest(client)
    r = client.post("/api/quickplay", json={"preset": preset, "max_hands": 1}, headers=alice)
    assert r.status_code == 201, r.text
    tid: str = r.json()["id"]
    # Mid-hand the timeline has no hand: the hand in play stays secret.
    mid = client.get(f"/api/tables/{tid}/timeline")
    assert mid.status_code == 200 and mid.json()["hands"] == []
    play_out(client, tid, alice)
    return tid, alice


def test_table_timeline_matches_the_record(client: TestClient) -> None:
    tid, _ = _finished_table(client)
    tl: dict[str, Any] = client.get(f"/api/tables/{tid}/timeline").json()
    lines = [json.loads(x) for x in client.get(f"/api/tables/{tid}/record").text.splitlines()]
    ends = records.replay(lines).hands
    assert tl["table"] == tid and len(tl["hands"]) == 1 == len(ends)
    hand = tl["hands"][0]
    tricks = [e for e in lines if e["type"] == "trick"]
    assert [(t["n"], t["winner"], t["points"]) for t in hand["tricks"]] == [
        (t["trick"], t["winner"], t["points"]) for t in tricks]
    assert hand["end"]["score"] == ends[0]["score"]
    assert sorted(c for cards in hand["start"] for c in cards) == sorted(
        c for t in hand["tricks"] for p in t["plays"] for c in p["cards"])
    assert client.get("/api/tables/nosuch/timeline").status_code == 404


def test_upload_a_record(client: TestClient) -> None:
    tid, _ = _finished_table(client)
    text = client.get(f"/api/tables/{tid}/record").text
    r = client.post("/api/timeline", content=text.encode(),
                    headers={"Content-Type": "application/x-ndjson"})
    assert r.status_code == 200, r.text
    assert r.json()["hands"] == client.get(f"/api/tables/{tid}/timeline").json()["hands"]
    # A changed card is caught by the replay, with the event's number.
    lines = text.splitlines()
    i = next(k for k, x in enumerate(lines) if json.loads(x)["type"] == "trick")
    ev = json.loads(lines[i])
    ev["points"] += 5
    lines[i] = json.dumps(ev)
    bad = client.post("/api/timeline", content="\n".join(lines).encode())
    assert bad.status_code == 400
    assert bad.json()["detail"]["code"] == "bad_record"
    assert f"event {i}" in bad.json()["detail"]["message"]
    assert client.post("/api/timeline", content=b"not json\n").status_code == 400
    assert client.post("/api/timeline", content=b"").status_code == 400
    big = client.post("/api/timeline", content=b" " * (MAX_RECORD_BYTES + 1))
    assert big.status_code == 413


def test_upload_rate_limit(client: TestClient) -> None:
    codes = [client.post("/api/timeline", content=b"{}").status_code for _ in range(14)]
    assert codes[0] == 400 and codes[-1] == 429


def test_review_route(client: TestClient) -> None:
    tid, alice = _finished_table(client)
    url = f"/api/tables/{tid}/review?hand=1&seat=0&lang=en"
    assert client.get(url).status_code == 401  # signed-in users only
    assert client.get(f"/api/tables/{tid}/review?hand=2&seat=0", headers=alice).status_code == 404
    assert client.get(f"/api/tables/{tid}/review?hand=1&seat=4", headers=alice).status_code == 422
    r = client.get(url, headers=alice)
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["hand"] == 1 and out["seat"] == 0 and out["lang"] == "en"
    plays = [d for d in out["decisions"] if d["kind"] == "play"]
    assert plays and all(d["text"].startswith(f"trick {d['trick']}:") for d in plays)
    assert client.get(url, headers=alice).json() == out  # cached, same answer


def test_review_one_at_a_time(client: TestClient) -> None:
    tid, alice = _finished_table(client)
    st = client.app.state.replay  # type: ignore[attr-defined]
    me = client.get("/api/me", headers=alice).json()["user"]["id"]
    st.computing.add(me)
    r = client.get(f"/api/tables/{tid}/review?hand=1&seat=1", headers=alice)
    assert r.status_code == 429 and r.json()["detail"]["code"] == "review_busy"
    st.computing.discard(me)
