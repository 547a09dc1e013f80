"""Login throttling (issue 14): counted atomically before the password is checked, a
per-account progressive delay instead of a lock-out, and a per-address cap."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Literal

import pytest
from argon2 import PasswordHasher
from argon2.profiles import CHEAPEST
from fastapi.testclient import TestClient

from gunzi.server.app import create_app
from gunzi.server.auth import Accounts, AuthError
from gunzi.server.db import Store
from gunzi.server.login_guard import LoginGuards
from gunzi.server.metrics import Metrics
from gunzi.server.settings import Settings

from .util import guest, hall_settings, pg_schema

PASSWORD = "erin's secret"


class CountingHasher(PasswordHasher):
    """Argon2 (the tests' cheapest profile) that counts its verifications."""

    def __init__(self) -> None:
        super().__init__(**{k: getattr(CHEAPEST, k) for k in (
            "time_cost", "memory_cost", "parallelism", "hash_len", "salt_len")})
        self.verified = 0

    def verify(self, hash: str | bytes, password: str | bytes) -> Literal[True]:
        self.verified += 1
        return super().verify(hash, password)


def _accounts(settings: Settings) -> tuple[Accounts, CountingHasher]:
    """Accounts on their own store (as a separate process would have), counting every
    Argon2 verification."""
    store = Store(settings)
    store.migrate()
    accounts = Accounts(settings, store, Metrics())
    accounts.hasher = CountingHasher()
    return accounts, accounts.hasher


async def _attempt(accounts: Accounts, password: str, ip: str) -> int:
    try:
        await accounts.login("Erin", password, ip, None)
    except AuthError as exc:
        return exc.status
    return 200


def _burst(settings: Settings) -> None:
    """100 wrong logins and the right one at once, through two stores on one database:
    only the free failures and the one attempt after them reach Argon2."""
    one, v1 = _accounts(settings)
    two, v2 = _accounts(settings)

    async def go() -> list[int]:
        await one.register(None, None, "erin", PASSWORD)
        tries = [_attempt(one if i % 2 else two, "wrong password", "10.0.0.1")
                 for i in range(100)]
        return await asyncio.gather(*tries, _attempt(one, PASSWORD, "10.0.0.2"))

    statuses = asyncio.run(go())
    allowed = settings.login_free_failures + 1
    assert v1.verified + v2.verified == allowed
    assert statuses.count(401) == allowed
    assert statuses.count(429) == 101 - allowed  # the right password too: it came last
    for accounts in (one, two):
        accounts.store.close()


def test_concurrent_wrong_logins_are_refused_before_hashing_sqlite(tmp_path: Path) -> None:
    _burst(hall_settings(tmp_path / "data", login_attempts_per_ip=1000))


@pytest.mark.postgres
def test_concurrent_wrong_logins_are_refused_before_hashing_postgres(tmp_path: Path) -> None:
    with pg_schema("gunzi_login_") as (url, _schema, _admin):
        _burst(hall_settings(tmp_path / "data", database_url=url, db_threads=4,
                             login_attempts_per_ip=1000))


@pytest.fixture
def guards(tmp_path: Path) -> Iterator[tuple[LoginGuards, Store]]:
    settings = hall_settings(tmp_path / "data", login_free_failures=2, login_delay_base=1.0,
                             login_delay_max=8.0, login_attempts_per_ip=1000)
    store = Store(settings)
    store.migrate()
    yield LoginGuards(settings), store
    store.close()


# free failures 2, base 1 s, cap 8 s, worked out by hand: (time, allowed, wait if refused)
SCHEDULE = [
    (0.0, True, 0.0),  # failure 1: free
    (0.0, True, 0.0),  # failure 2: free
    (0.0, True, 0.0),  # failure 3: the next attempt waits 1 s
    (0.5, False, 0.5),
    (1.0, True, 0.0),  # failure 4: 2 s
    (2.0, False, 1.0),
    (3.0, True, 0.0),  # failure 5: 4 s
    (7.0, True, 0.0),  # failure 6: 8 s
    (15.0, True, 0.0),  # failure 7: 8 s (the cap)
    (22.0, False, 1.0),
    (23.0, True, 0.0),
]


def test_the_delay_doubles_past_the_free_failures_up_to_the_cap(
        guards: tuple[LoginGuards, Store]) -> None:
    g, store = guards
    assert [g.delay(n) for n in range(1, 8)] == [0.0, 0.0, 1.0, 2.0, 4.0, 8.0, 8.0]
    for at, allowed, wait in SCHEDULE:
        claim = store.call(g.claim, "erin", "10.0.0.1", at)
        assert (claim.ok, round(claim.retry_after, 6)) == (allowed, wait), at
        if not allowed:
            assert claim.code == "login_delayed"


def test_a_success_forgets_the_failures(guards: tuple[LoginGuards, Store]) -> None:
    g, store = guards
    for i in range(3):
        store.call(g.claim, "erin", "10.0.0.1", float(i))
    claim = store.call(g.claim, "erin", "10.0.0.2", 10.0)  # the delay (1 s) is over
    assert claim.ok
    store.call(g.release, claim)
    for i in range(2):  # the free failures are free again
        assert store.call(g.claim, "erin", "10.0.0.1", 11.0 + i / 10).ok


def test_old_failures_are_forgotten(guards: tuple[LoginGuards, Store]) -> None:
    g, store = guards
    for i in range(5):
        store.call(g.claim, "erin", "10.0.0.1", i * 100.0)
    day = g.settings.login_forget_after
    assert store.call(g.claim, "erin", "10.0.0.1", 500.0 + day).ok
    assert store.call(g.claim, "erin", "10.0.0.1", 500.0 + day).ok  # failure 2: still free


def test_no_lockout_the_owner_logs_in_from_elsewhere_after_the_delay(tmp_path: Path) -> None:
    settings = hall_settings(tmp_path / "data", login_free_failures=2, login_delay_base=0.3,
                             login_delay_max=0.3)
    with TestClient(create_app(settings), client=("203.0.113.7", 1)) as attacker:
        guest(attacker)
        assert attacker.post("/api/auth/register",
                             json={"username": "erin", "password": PASSWORD}).status_code == 200
        attacker.cookies.clear()
        for _ in range(3):
            r = attacker.post("/api/auth/login", json={"username": "erin", "password": "nope1234"})
            assert r.status_code == 401
        owner = TestClient(attacker.app, client=("198.51.100.4", 1))
        r = owner.post("/api/auth/login", json={"username": "erin", "password": PASSWORD})
        assert r.status_code == 429
        assert r.json()["detail"]["code"] == "login_delayed"
        assert "try again in 1 s" in r.json()["detail"]["message"]
        assert r.headers["retry-after"] == "1"
        time.sleep(0.35)
        r = owner.post("/api/auth/login", json={"username": "erin", "password": PASSWORD})
        assert r.status_code == 200, r.text


def test_attempts_per_address_are_capped(tmp_path: Path) -> None:
    settings = hall_settings(tmp_path / "data", login_attempts_per_ip=3)
    with TestClient(create_app(settings), client=("203.0.113.7", 1)) as spray:
        for name in ("ann", "bob", "cyd"):
            r = spray.post("/api/auth/login", json={"username": name, "password": "x" * 8})
            assert r.status_code == 401
        r = spray.post("/api/auth/login", json={"username": "dot", "password": "x" * 8})
        assert r.status_code == 429
        assert r.json()["detail"]["code"] == "too_many_attempts"
        assert int(r.headers["retry-after"]) > 500  # the 10-minute window
        other = TestClient(spray.app, client=("198.51.100.4", 1))
        r = other.post("/api/auth/login", json={"username": "dot", "password": "x" * 8})
        assert r.status_code == 401


def test_the_address_window_spares_loopback(tmp_path: Path) -> None:
    """Behind a proxy that does not pass the client's address every login would share
    one loopback address: its window would be the whole hall's (accounts still count)."""
    settings = hall_settings(tmp_path / "data", login_attempts_per_ip=2)
    store = Store(settings)
    store.migrate()
    g = LoginGuards(settings)
    for i in range(5):
        assert store.call(g.claim, f"name{i}", "127.0.0.1", 1.0 + i).ok
        assert store.call(g.claim, f"name{i}", "::1", 1.0 + i).ok
    assert [store.call(g.claim, f"other{i}", "10.0.0.5", 9.0).ok for i in range(3)] == [
        True, True, False]
    store.close()
