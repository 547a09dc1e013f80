"""Hall-wide news on several processes (docs/deploy.md, "One hall"): a player's ladder total
reread at one process (a rated hand ended there) reaches the others, whose cached totals are
dropped and whose tables show the new title; a lost subscription empties the cache.

Real PostgreSQL and Redis on 127.0.0.1 (own schema and key prefix); skipped with the reason
when either is unreachable.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import insert

from gunzi.ladder.titles import title_for
from gunzi.server import db
from gunzi.server.app import create_app
from gunzi.server.news import News

from .util import drop_keys, guest, node_settings, pg_and_prefix, redis_or_skip

pytestmark = pytest.mark.postgres


@pytest.fixture
def shared() -> Iterator[tuple[str, str, Any]]:
    with pg_and_prefix("gunzi_news_") as got:
        yield got


_settings = node_settings


def _seat_zero(client: TestClient, tid: str) -> dict[str, Any]:
    r = client.get(f"/api/tables/{tid}")
    assert r.status_code == 200, r.text
    seat: dict[str, Any] = r.json()["seats"][0]
    return seat


def test_a_ladder_total_reread_at_one_process_reaches_the_others_tables(
        tmp_path: Path, shared: tuple[str, str, Any]) -> None:
    pg, prefix, _admin = shared
    with TestClient(create_app(_settings(tmp_path, pg, prefix, "a"))) as a, \
            TestClient(create_app(_settings(tmp_path, pg, prefix, "b"))) as b:
        for client in (a, b):  # both listening before anything is said
            news: News = client.app.state.cluster.news
            deadline = time.monotonic() + 10
            while not news.subscribed.is_set():
                assert time.monotonic() < deadline, "the news subscription never came up"
                time.sleep(0.05)
        user = guest(b)
        r = b.post("/api/tables", json={"preset": "gunzi"})
        assert r.status_code == 201, r.text
        tid = r.json()["id"]
        assert b.post(f"/api/tables/{tid}/seats/0").status_code == 200
        key = f"u:{user['id']}"
        hall_b = b.app.state.hall
        assert hall_b.ladder_cache[("gunzi", key)] == 0
        assert _seat_zero(b, tid)["total"] == 0
        # A rated hand ended at a's table: the new total is in the database, and a rereads it.
        total = 137
        assert title_for(total) != title_for(0)
        store: db.Store = a.app.state.hall.store
        store.call(lambda s: s.execute(insert(db.LadderPlayer), [{
            "game": "gunzi", "player": key, "user_id": user["id"], "total": total,
            "games": 3, "mu": 25.0, "sigma": 8.0, "ordinal": 1.0, "updated_at": db.now()}]))
        hall_a = a.app.state.hall
        got = a.portal.call(hall_a.ladder_totals, "gunzi", [key], True)
        assert got == {key: total}
        deadline = time.monotonic() + 10
        while _seat_zero(b, tid)["total"] != total:
            assert time.monotonic() < deadline, "b's table never showed the new total"
            time.sleep(0.05)
        seat = _seat_zero(b, tid)
        assert seat["title"] == title_for(total)
        assert hall_b.ladder_cache[("gunzi", key)] == total
        # A lost subscription: messages may have been missed, so b's cache is emptied whole.
        b.portal.call(b.app.state.cluster.news.redis.execute_command,
                      "CLIENT", "KILL", "TYPE", "pubsub")
        deadline = time.monotonic() + 10
        while ("gunzi", key) in hall_b.ladder_cache:
            assert time.monotonic() < deadline, "b kept its cache across a lost subscription"
            time.sleep(0.05)


def test_closing_ends_the_listener_even_when_it_was_not_cancelled() -> None:
    """A listener whose cancellation was lost (or never sent) ends when its News is closed,
    instead of making the subscription again against the closed client for ever."""
    url = redis_or_skip()
    prefix = f"gunzi-test-{secrets.token_hex(4)}:"

    async def scenario() -> None:
        news = News(url, prefix, "a/1")
        task = asyncio.get_running_loop().create_task(news.listen())
        await asyncio.wait_for(news.subscribed.wait(), 10)
        await news.close()
        await asyncio.wait_for(task, 10)  # ended by itself: nothing cancelled it
        assert task.done() and not task.cancelled()

    try:
        asyncio.run(scenario())
    finally:
        drop_keys(prefix)
