"""Fair play in Chromium: the turn clock turns red and pulses in its last 10 s (still under
reduced motion, red only) and ticks unless the sound is off; a bad table link shows the
not-found page in Chinese and English with the way back to the lobby (desktop and phone);
a guest who plays one hand and leaves gets no ghost play: the table ends after the hand in
progress, that hand (played by 托管) counts for nobody, and the bot stays off the people's
leaderboard; with nobody at the keys one timeout decides once and the second in a row puts
the seat in 托管 (its badge), which the 托管 button takes back."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from .conftest import DESKTOP, PHONE, free_port, missing, start_hall, stop_hall
from .test_feedback_web import play, quick_table

REASON = missing()
pytestmark = pytest.mark.skipif(REASON is not None, reason=f"browser tests: {REASON}")

PHONE_812 = {**PHONE, "viewport": {"width": 375, "height": 812}}
DEVICES = [pytest.param(DESKTOP, id="desktop"), pytest.param(PHONE_812, id="phone")]

# A sound card that plays nothing (the cues of js/sound.js run through it); the ticks the
# clock asks for are read from the sound module's list of cues played (TICKS).
FAKE_AUDIO = """
class FakeParam {
  setValueAtTime() {} linearRampToValueAtTime() {} exponentialRampToValueAtTime() {}
}
window.AudioContext = class {
  constructor() { this.state = "running"; this.currentTime = 0; this.destination = {}; }
  resume() { return Promise.resolve(); }
  createGain() { return { gain: new FakeParam(), connect(n) { return n; } }; }
  createOscillator() {
    return { frequency: {}, connect(n) { return n; }, start() {}, stop() {} };
  }
};
"""
TICKS = ("() => import('/js/sound.js').then("
         "(m) => m.Sound.recent.filter((c) => c.name === 'tick').length)")


def _clocked_table(page: Any, hall: str, clock: int) -> str:
    """A guest (this page's) at a new quick-play table with a ``clock``-second turn clock."""
    page.goto(hall + "/")
    page.wait_for_selector("body[data-ready]", state="attached")
    tid: str = page.evaluate("""async (clock) => {
        await fetch('/api/auth/guest', {method: 'POST'});
        const r = await fetch('/api/quickplay', {method: 'POST',
            headers: {'Content-Type': 'application/json'},
            body: JSON.stringify({preset: 'classic-1', clock})});
        return (await r.json()).id;
    }""", clock)
    page.goto(f"{hall}/table.html?t={tid}")
    page.wait_for_selector("body[data-ready]", state="attached")
    return tid


def _style(page: Any, selector: str) -> dict[str, str]:
    style: dict[str, str] = page.eval_on_selector(selector, """el => {
        const s = getComputedStyle(el);
        return {color: s.color, animation: s.animationName};
    }""")
    return style


@pytest.mark.parametrize("device", DEVICES)
def test_the_clock_turns_red_and_pulses_in_its_last_10_seconds(
        hall: str, new_page: Any, artifacts: Path, device: dict[str, Any]) -> None:
    page = new_page(device)
    page.add_init_script(FAKE_AUDIO)
    _clocked_table(page, hall, 14)
    page.keyboard.press("Shift")  # a touch of the page: browsers allow sound after one
    # More than 10 s left: the plain clock.
    page.wait_for_function("""() => { const el = document.getElementById('my-clock');
        return parseInt(el.textContent) > 10 && !el.classList.contains('low'); }""")
    calm = _style(page, "#my-clock")
    assert calm["animation"] == "none"
    page.wait_for_selector("#my-clock.low", timeout=20000)
    low = _style(page, "#my-clock")
    assert low["color"] == "rgb(255, 77, 79)" and low["animation"] == "clock-pulse"
    assert int(page.inner_text("#my-clock").rstrip("s")) <= 10
    # The seat's own clock beside its name shows the same.
    assert page.locator(".seat .clock.low").count() >= 1
    page.screenshot(path=str(artifacts / f"clock-low-{device['viewport']['width']}.png"))
    page.wait_for_function(f"async () => (await ({TICKS})()) >= 2", timeout=5000)  # per second


def test_reduced_motion_keeps_the_red_without_the_pulse_and_sound_off_is_silent(
        hall: str, new_page: Any) -> None:
    page = new_page({**DESKTOP, "reduced_motion": "reduce"})
    page.add_init_script(FAKE_AUDIO + "localStorage.setItem('gunzi.sound', 'off');")
    _clocked_table(page, hall, 12)
    page.keyboard.press("Shift")
    page.wait_for_selector("#my-clock.low", timeout=20000)
    low = _style(page, "#my-clock")
    assert low["color"] == "rgb(255, 77, 79)" and low["animation"] == "none"
    page.wait_for_timeout(2500)  # low seconds pass without a tick
    assert page.evaluate(f"({TICKS})()") == 0


@pytest.mark.parametrize("device", DEVICES)
def test_a_bad_table_link_shows_the_not_found_page(
        hall: str, new_page: Any, artifacts: Path, device: dict[str, Any]) -> None:
    page = new_page(device)
    width = device["viewport"]["width"]
    cases = [
        ("/table.html?t=NoSuchTable1", "找不到这张牌桌", "NoSuchTable1"),
        ("/table.html?t=%3Cb%3Ebad%3C%2Fb%3E", "找不到这张牌桌", "<b>bad</b>"),
        ("/board.html?t=NoSuchBoard1", "找不到这张牌桌", "NoSuchBoard1"),
        ("/board.html?t=bad!id", "找不到这张牌桌", "bad!id"),
        ("/table.html?code=ZZZZ9999", "找不到这张牌桌", "ZZZZ9999"),
        ("/no-such-page", "找不到这个页面", ""),
    ]
    for path, title, shown in cases:
        response = page.goto(hall + path)
        assert response.status == 404, path
        page.wait_for_selector("body[data-ready]", state="attached")
        assert page.inner_text("#nf-title") == title
        assert shown in page.inner_text("#nf-text")  # shown as text, never as markup
        assert page.locator("#nf-text b").count() == 0
        assert page.locator("#conn").count() == 0  # no table waiting to reconnect
        link = page.locator("#nf-lobby")
        assert link.is_visible() and link.get_attribute("href") == "/"
        box = link.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width
    page.goto(hall + "/table.html?t=NoSuchTable1")
    page.wait_for_selector("body[data-ready]", state="attached")
    page.screenshot(path=str(artifacts / f"not-found-zh-{width}.png"))
    page.click("#btn-lang")
    assert page.inner_text("#nf-title") == "No such table"
    assert "NoSuchTable1" in page.inner_text("#nf-text")
    assert page.inner_text("#nf-lobby") == "Back to the lobby"
    page.screenshot(path=str(artifacts / f"not-found-en-{width}.png"))
    page.click("#nf-lobby")
    page.wait_for_url(hall + "/")
    page.wait_for_selector("#btn-quick")


@pytest.fixture(scope="module")
def leaving_hall(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A hall where a player who left is waited for 2 s and the next hand comes 1 s after a
    hand's end: a left table's fate shows within seconds."""
    proc = start_hall(tmp_path_factory.mktemp("leaving-hall"), port := free_port(),
                      hand_pause=1, away_after=2)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        stop_hall(proc)


def test_a_left_table_ends_and_its_ghost_hand_counts_for_nobody(
        leaving_hall: str, browser: Any, new_page: Any, artifacts: Path) -> None:
    # A guest plays hand 1 of a quick 打滚子 table by hints, sees hand 2 dealt, and leaves.
    ctx = browser.new_context(**DESKTOP)
    try:
        page = ctx.new_page()
        page.set_default_timeout(15000)
        tid = quick_table(page, leaving_hall, "gunzi", False)
        uid = page.evaluate("fetch('/api/me').then((r) => r.json()).then((d) => d.user.id)")
        play(page, False, lambda p: False)
        page.wait_for_function(
            "() => document.getElementById('hand-no').textContent.startsWith('第 2 局')",
            timeout=30000)
    finally:
        ctx.close()
    # 托管 finishes hand 2 for the seat; no hand 3 is dealt: the table ends.
    deadline = time.monotonic() + 90
    with httpx.Client(base_url=leaving_hall, timeout=10) as http:
        while (info := http.get(f"/api/tables/{tid}").json())["status"] != "abandoned":
            assert info["status"] == "playing", info
            assert time.monotonic() < deadline, info
            time.sleep(0.3)
        assert info["hands_played"] == 2, info
        me = http.get(f"/api/players/{uid}").json()["ladders"]["gunzi"]
    assert me["games"] == 1, me  # hand 1 only: hand 2 was the bot's decisions, not hers

    # The people's leaderboard lists her and no bot; the bots have their own.
    page = new_page(DESKTOP)
    page.goto(leaving_hall + "/leaders.html")
    page.wait_for_selector("body[data-ready]", state="attached")
    page.click("#game-gunzi")
    mine = page.locator(f"#ladder-rows tr[data-player='{uid}']")
    mine.wait_for()
    assert page.locator("#ladder-rows tr[data-player='rule']").count() == 0
    page.screenshot(path=str(artifacts / "left-table-leaders.png"), full_page=True)
    page.click("#kind-bots")
    page.locator("#ladder-rows tr[data-player='rule']").wait_for()
    assert mine.count() == 0



def test_one_timeout_decides_once_and_two_in_a_row_mean_托管(
        hall: str, new_page: Any, artifacts: Path) -> None:
    """Nobody at the keys of a 1 s clock: the page's socket is asked for two decisions
    (outside the draw, where a timeout is quiet) before the seat goes to 托管, and the seat
    shows the 托管 badge only then; the 托管 button takes it back."""
    page = new_page(DESKTOP)
    seen: dict[str, Any] = {"asked": [], "at_auto": None}

    def frame(payload: str | bytes) -> None:
        f = json.loads(payload)
        if f.get("t") == "table" and f["table"]["seats"][0]["auto"]:
            if seen["at_auto"] is None:
                seen["at_auto"] = list(seen["asked"])
        elif (f.get("t") in ("events", "snapshot") and f["turn"]["seat"] == 0
              and f["turn"]["deadline"] is not None and f["view"]["phase"] != "draw"
              and f["seq"] not in seen["asked"] and seen["at_auto"] is None):
            seen["asked"].append(f["seq"])

    page.on("websocket", lambda ws: ws.on("framereceived", frame))
    _clocked_table(page, hall, 1)
    page.wait_for_selector("#seat-bottom .auto-badge", timeout=30000)
    assert seen["at_auto"] is not None and len(seen["at_auto"]) == 2, seen
    page.screenshot(path=str(artifacts / "timeouts-auto.png"))
    # Taking the seat back with the 托管 button: the badge goes (the bots may have finished
    # the hand by now: its summary would be in the pointer's way).
    page.eval_on_selector("#btn-auto", "(b) => b.click()")
    page.wait_for_selector("#seat-bottom .auto-badge", state="detached")
