"""The leaderboard and a player's page in Chromium after a rated hand: title, points, the
rating chart (inline SVG) and the history's links."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from .conftest import DESKTOP, missing

REASON = missing()
pytestmark = pytest.mark.skipif(REASON is not None, reason=f"browser tests: {REASON}")


def _rated_hand(hall: str) -> tuple[dict[str, Any], str]:
    """A guest plays one classic-1 quick-play hand by hints over the socket (rated: a person
    is seated); returns the guest and the table id once the table has finished."""
    with httpx.Client(base_url=hall, timeout=20) as http:
        r = http.post("/api/auth/guest")
        r.raise_for_status()
        user = r.json()["user"]
        cookie = f"gunzi_session={http.cookies['gunzi_session']}"
        t = http.post("/api/quickplay", json={"preset": "classic-1", "max_hands": 1}).json()
    ws_url = hall.replace("http://", "ws://") + f"/ws/tables/{t['id']}"
    deadline = time.monotonic() + 120
    with connect(ws_url, additional_headers={"Cookie": cookie}) as ws:
        ws.send(json.dumps({"t": "hello"}))
        n = 0
        while time.monotonic() < deadline:
            f = json.loads(ws.recv(timeout=30))
            if f["t"] in ("events", "snapshot") and f["turn"]["seat"] == 0:
                ws.send(json.dumps({"t": "hint"}))
            elif f["t"] == "hint" and f["action"] is not None:
                n += 1
                ws.send(json.dumps({"t": "act", "id": f"w{n}", "action": f["action"]}))
            elif f["t"] == "table" and f["table"]["status"] == "finished":
                return user, t["id"]
    raise AssertionError("the quick-play hand did not finish")


def test_leaderboard_and_player_page(hall: str, new_page: Any, artifacts: Path) -> None:
    user, table_id = _rated_hand(hall)
    page = new_page(DESKTOP)
    page.goto(hall + "/")
    page.wait_for_selector("body[data-ready]", state="attached")
    page.click("#link-leaders")
    page.wait_for_selector("body[data-ready]", state="attached")
    page.click("#game-classic")
    row = page.locator(f"#ladder-rows tr[data-player='{user['id']}']")
    row.wait_for()
    assert user["name"] in row.inner_text()
    assert row.locator(".ladder-title").inner_text() in ("幼小班", "幼中班")
    # Titles stay Chinese in English mode; their tooltip translates them.
    title = row.locator(".ladder-title")
    tip = title.get_attribute("title") or ""
    assert re.fullmatch(r"积分 -?\d+", tip), tip
    page.click("#btn-lang")
    row.wait_for()
    assert title.inner_text() in ("幼小班", "幼中班")
    tip = title.get_attribute("title") or ""
    assert re.fullmatch(r"nursery, (first|second) year · -?\d+ ladder points", tip), tip
    page.click("#btn-lang")
    row.wait_for()
    bot_row = page.locator("#ladder-rows tr[data-player='rule']")
    assert bot_row.count() == 0  # the people's ladder lists no bot
    page.screenshot(path=str(artifacts / "ladder-leaders.png"), full_page=True)
    page.click("#kind-bots")  # the bots' own ladder
    bot_row.wait_for()
    assert row.count() == 0 and "kind=bots" in page.url
    page.click("#kind-people")
    row.wait_for()

    row.locator("a.player-link").click()
    page.wait_for_url(f"**/player.html?p={user['id']}")
    page.wait_for_selector("body[data-ready]", state="attached")
    assert page.locator("#player-name").inner_text() == user["name"]
    classic = page.locator(".standing[data-game='classic']")
    assert classic.locator(".big-title").inner_text() in ("幼小班", "幼中班")
    chart = page.locator("svg.rating-chart[data-game='classic']")
    chart.wait_for()
    assert chart.locator("circle.rc-dot").count() == 1
    assert chart.locator("polyline.rc-line").count() == 1
    links = page.locator("#history a")
    assert links.first.get_attribute("href") == f"/table.html?t={table_id}"
    assert links.nth(1).get_attribute("href") == f"/replay.html?t={table_id}&hand=1"
    page.screenshot(path=str(artifacts / "ladder-player.png"), full_page=True)

    # The table page shows the title beside the seat names.
    page.goto(f"{hall}/table.html?t={table_id}")
    page.wait_for_selector(".seat-title")
    assert page.locator(".seat-title").count() == 4
