"""The replay page in Chromium: a finished hand opened at trick 3 by its link, stepping,
and a record file opened from the disk (desktop and a 375 px phone)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from .conftest import PHONE, missing

pytestmark = pytest.mark.skipif(missing() is not None, reason=str(missing()))


def _finished_table(hall: str) -> tuple[str, str, dict[str, Any]]:
    """A quick-play table of one hand, played by 托管: (table id, record text, timeline)."""
    from websockets.sync.client import connect

    with httpx.Client(base_url=hall) as http:
        r = http.post("/api/auth/guest")
        cookie = f"gunzi_session={r.cookies['gunzi_session']}"
        t = http.post("/api/quickplay", json={"preset": "classic-1", "max_hands": 1},
                      headers={"Cookie": cookie}).json()
        ws_url = hall.replace("http://", "ws://") + f"/ws/tables/{t['id']}"
        with connect(ws_url, additional_headers={"Cookie": cookie}) as ws:
            ws.send(json.dumps({"t": "hello"}))
            ws.send(json.dumps({"t": "auto", "on": True}))
            deadline = time.monotonic() + 180
            while time.monotonic() < deadline:
                tl = http.get(f"/api/tables/{t['id']}/timeline").json()
                if tl["hands"]:
                    break
                time.sleep(0.5)
            else:
                raise AssertionError("the hand did not finish")
        text = http.get(f"/api/tables/{t['id']}/record").text
    return t["id"], text, tl


def test_replay_link_steps_and_upload(hall: str, new_page: Any, artifacts: Path,
                                      tmp_path: Path) -> None:
    tid, text, tl = _finished_table(hall)
    tricks = tl["hands"][0]["tricks"]
    page = new_page()
    page.goto(f"{hall}/replay.html?t={tid}&hand=1&trick=3")
    page.wait_for_selector("body[data-ready='1']")
    plays = page.locator("#rp-trick .rp-play")
    assert plays.count() == 4  # the link opened trick 3 with its four plays
    assert page.locator("#rp-step").inner_text() == f"第 3 / {len(tricks)} 墩"
    # The hand selector speaks the page's language (it read "hand 1" in the Chinese page).
    assert page.locator("#rp-hand option").first.inner_text() == "第 1 局"
    page.click("#btn-lang")
    assert page.locator("#rp-hand option").first.inner_text() == "hand 1"
    page.click("#btn-lang")
    assert page.locator("#rp-trick .win-tag").count() == 1
    played = sum(len(p["cards"]) for tr in tricks[:3] for p in tr["plays"])
    assert page.locator("#rp-hands .card.played").count() == played  # greyed so far
    page.keyboard.press("ArrowRight")
    assert "trick=4" in page.url
    page.click("#rp-last")
    end = page.locator("#rp-end")
    assert end.is_visible() and "null" not in end.inner_text()
    page.screenshot(path=str(artifacts / "replay-desktop.png"), full_page=True)

    # A record from the disk: the server validates it and the page shows its hand.
    good = tmp_path / "match.jsonl"
    good.write_text(text, encoding="utf-8")
    page.set_input_files("#rp-file", str(good))
    page.wait_for_function(
        "() => document.getElementById('rp-source').textContent === 'match.jsonl'")
    assert page.locator("#rp-hand option").count() == 1
    assert "t=" not in page.url and "trick=0" in page.url
    bad = tmp_path / "bad.jsonl"
    bad.write_text(text.replace('"type": "trick"', '"type": "trik"', 1), encoding="utf-8")
    page.set_input_files("#rp-file", str(bad))
    page.wait_for_function("() => document.getElementById('rp-error').textContent.length > 0")
    assert "event" in page.locator("#rp-error").inner_text()

    phone = new_page(PHONE)
    phone.goto(f"{hall}/replay.html?t={tid}&hand=1&trick=3")
    phone.wait_for_selector("body[data-ready='1']")
    assert phone.locator("#rp-trick .rp-play").count() == 4
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= 375, f"the page is {width} px wide on a 375 px phone"
    phone.screenshot(path=str(artifacts / "replay-phone.png"), full_page=True)
