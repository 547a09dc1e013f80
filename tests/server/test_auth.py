"""Accounts (P9): guests, passwords, sessions, revocation, throttling, CSRF."""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from .util import guest


def _db(tmp_path: Path) -> sqlite3.Connection:
    return sqlite3.connect(tmp_path / "data" / "gunzi.sqlite3")


def test_guest_cookie_is_httponly_lax_and_stored_hashed(client: TestClient,
                                                         tmp_path: Path) -> None:
    r = client.post("/api/auth/guest")
    assert r.status_code == 200
    user = r.json()["user"]
    assert user["guest"] is True and user["name"].startswith("guest-")
    cookie = r.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=lax" in cookie and "Path=/" in cookie
    token = r.cookies["gunzi_session"]
    assert len(token) >= 43  # 256 bits, urlsafe base64
    assert client.get("/api/me").json()["user"]["id"] == user["id"]
    db = _db(tmp_path)
    hashes = [h for (h,) in db.execute("SELECT token_hash FROM sessions")]
    assert hashlib.sha256(token.encode()).hexdigest() in hashes
    raw = (tmp_path / "data" / "gunzi.sqlite3").read_bytes()
    for extra in (tmp_path / "data").glob("gunzi.sqlite3-wal"):
        raw += extra.read_bytes()
    assert token.encode() not in raw


def test_anonymous_is_refused(client: TestClient) -> None:
    r = client.get("/api/me")  # no session is a normal state for the page, not an error
    assert r.status_code == 200 and r.json() == {"user": None}
    assert client.post("/api/tables", json={}).status_code == 401
    assert client.post("/api/quickplay").status_code == 401


def test_register_upgrades_the_guest_and_login_logout(client: TestClient,
                                                      tmp_path: Path) -> None:
    me = guest(client)
    old = client.cookies["gunzi_session"]
    r = client.post("/api/auth/register", json={"username": "Alice_1",
                                                "password": "correct horse battery"})
    assert r.status_code == 200, r.text
    user = r.json()["user"]
    assert user == {"id": me["id"], "name": "Alice_1", "guest": False}
    new = client.cookies["gunzi_session"]
    assert new != old  # the session rotates on a privilege change
    assert client.get("/api/me", headers={"Cookie": f"gunzi_session={old}"}).json() == {
        "user": None}
    stored = _db(tmp_path).execute("SELECT password_hash FROM users WHERE id=?",
                                   (me["id"],)).fetchone()[0]
    assert stored.startswith("$argon2id$")

    client.cookies.clear()
    bad = client.post("/api/auth/login", json={"username": "alice_1", "password": "nope nope"})
    assert bad.status_code == 401
    assert bad.json()["detail"]["code"] == "bad_credentials"
    unknown = client.post("/api/auth/login", json={"username": "bob", "password": "whatever1"})
    assert unknown.status_code == 401
    assert unknown.json() == bad.json()  # no hint whether the name exists
    ok = client.post("/api/auth/login", json={"username": "alice_1",
                                              "password": "correct horse battery"})
    assert ok.status_code == 200 and ok.json()["user"]["id"] == me["id"]
    token = client.cookies["gunzi_session"]
    assert client.post("/api/auth/logout").status_code == 200
    # Revoked server-side: the old token no longer works even if a client kept it.
    r = client.get("/api/me", headers={"Cookie": f"gunzi_session={token}"})
    assert r.json() == {"user": None}


def test_register_validation(client: TestClient) -> None:
    guest(client)
    cases = [("ab", "long enough pw"), ("guest-123", "long enough pw"), ("x y", "long enough"),
             ("carol", "short"), ("carol", "carol")]
    for name, pw in cases:
        r = client.post("/api/auth/register", json={"username": name, "password": pw})
        assert r.status_code == 400, (name, pw, r.text)
    assert client.post("/api/auth/register",
                       json={"username": "carol", "password": "long enough pw"}).status_code == 200
    client.cookies.clear()
    guest(client)
    r = client.post("/api/auth/register", json={"username": "CAROL", "password": "another pw1"})
    assert r.status_code == 409


def test_login_is_throttled(make_client: Callable[..., TestClient]) -> None:
    client = make_client(login_free_failures=2)
    guest(client)
    client.post("/api/auth/register", json={"username": "dave", "password": "dave's secret"})
    client.cookies.clear()
    for _ in range(3):  # two free failures, then one that delays the next attempt
        r = client.post("/api/auth/login", json={"username": "dave", "password": "wrong pass"})
        assert r.status_code == 401
    r = client.post("/api/auth/login", json={"username": "dave", "password": "dave's secret"})
    assert r.status_code == 429 and r.json()["detail"]["code"] == "login_delayed"


def test_cross_site_posts_are_refused(client: TestClient) -> None:
    r = client.post("/api/auth/guest", headers={"Origin": "http://evil.example"})
    assert r.status_code == 403
    r = client.post("/api/auth/guest", headers={"Sec-Fetch-Site": "cross-site"})
    assert r.status_code == 403
    r = client.post("/api/auth/guest", headers={"Origin": "http://testserver",
                                                "Sec-Fetch-Site": "same-origin"})
    assert r.status_code == 200


@pytest.mark.parametrize("kind", ["card", "board"])
def test_logout_closes_the_sessions_sockets(client: TestClient, kind: str) -> None:
    guest(client)
    if kind == "card":
        tid = client.post("/api/tables", json={"preset": "classic-1"}).json()["id"]
        url = f"/ws/tables/{tid}"
    else:
        tid = client.post("/api/board/tables", json={"preset": "quoridor-2"}).json()["id"]
        url = f"/ws/board/{tid}"
    with client.websocket_connect(url) as ws:
        ws.send_json({"t": "hello"})
        assert ws.receive_json()["t"] == "welcome"
        client.post("/api/auth/logout")
        for _ in range(20):
            msg = ws.receive()
            if msg["type"] == "websocket.close":
                assert msg["code"] == 1008
                break
        else:
            raise AssertionError("the socket stayed open after logout")


def test_new_accounts_per_address_are_capped(make_client: Callable[..., TestClient]) -> None:
    client = make_client(accounts_per_ip_hour=3)
    for _ in range(3):
        client.cookies.clear()
        assert client.post("/api/auth/guest").status_code == 200
    client.cookies.clear()
    r = client.post("/api/auth/guest")
    assert r.status_code == 429 and r.json()["detail"]["code"] == "too_many_accounts"
