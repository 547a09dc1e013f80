"""End-to-end tests of the web pages in Debian's Chromium (Playwright, sync API).

A person signs in as a guest, presses quick play and plays a whole hand against three
bots by clicking (hint, then the highlighted button: declare / pass / bury / play) until
the end-of-hand summary shows, on a desktop and on a phone-sized touch screen.
Screenshots go to test-artifacts/web/ (GUNZI_WEB_ARTIFACTS overrides the folder).
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Error as PlaywrightError

from .conftest import DESKTOP, PHONE, free_port, missing, start_hall, stop_hall

REASON = missing()
pytestmark = pytest.mark.skipif(REASON is not None, reason=f"browser tests: {REASON}")

HAND_SECONDS = 150  # one hand against bots with a 0.02 s bot delay takes ~15 s


def _press(page: Any, selector: str, touch: bool) -> None:
    if touch:
        page.tap(selector)
    else:
        page.click(selector)


def goto(page: Any, url: str) -> None:
    """Open a page and wait until its module has wired everything (body[data-ready])."""
    page.goto(url)
    page.wait_for_selector("body[data-ready]", state="attached")


def guest_quick_play(page: Any, hall: str, touch: bool) -> str:
    goto(page, hall + "/")
    _press(page, "#btn-guest", touch)
    page.wait_for_selector("#btn-logout", state="attached")
    _press(page, "#btn-quick", touch)
    page.wait_for_url(re.compile(r".*/table\.html\?t=.*"))
    page.wait_for_selector("body[data-ready]", state="attached")
    page.wait_for_selector("#info .chip")
    table_id = page.evaluate("new URLSearchParams(location.search).get('t')")
    assert table_id
    return str(table_id)


def play_hand(page: Any, name: str, shots: Path, *, touch: bool,
              manual_pass: bool) -> dict[str, int]:
    """Click through one hand; returns how many decisions of each kind were made."""
    done: dict[str, int] = {}
    t0 = time.monotonic()
    shot_at = {"first": False, "mid": False}
    while time.monotonic() - t0 < HAND_SECONDS:
        if page.locator("#summary[open]").count():
            break
        if manual_pass and page.locator("#autopass:checked").count():
            try:  # pass by hand while drawing: exercises the pass button
                page.click("#autopass", timeout=2000)
            except Exception:  # re-rendered under the pointer: the next loop tries again
                continue
        hint = page.locator("#btn-hint:not([disabled])")
        if not hint.count():
            page.wait_for_timeout(60)
            continue
        try:
            _press(page, "#btn-hint", touch)
            page.wait_for_selector("#buttons button.suggested:not([disabled])", timeout=4000)
        except Exception:  # the decision went away (auto-pass while drawing, a resync)
            continue
        key = page.get_attribute("#buttons button.suggested", "data-key") or "?"
        phase = page.evaluate("document.body.dataset.phase")
        label = phase if key == "submit" else key.split(":")[0]  # declare / pass
        first = sum(done.values()) == 0
        if label not in done or first:
            page.screenshot(path=str(shots / f"{name}-{label}.png"))
        if label == "play" and not shot_at["first"]:
            shot_at["first"] = True
            page.screenshot(path=str(shots / f"{name}-first-play.png"))
        if label == "play" and done.get("play", 0) == 15 and not shot_at["mid"]:
            shot_at["mid"] = True
            page.screenshot(path=str(shots / f"{name}-mid-hand.png"))
        try:
            _press(page, "#buttons button.suggested", touch)
        except Exception:
            continue
        done[label] = done.get(label, 0) + 1
    else:
        page.screenshot(path=str(shots / f"{name}-timeout.png"))
        raise AssertionError(f"no end-of-hand summary after {HAND_SECONDS} s: {done}")
    return done


@pytest.mark.parametrize("device", ["desktop", "phone"])
def test_full_hand_against_three_bots(hall: str, new_page: Any, artifacts: Path,
                                      device: str) -> None:
    touch = device == "phone"
    for old in artifacts.glob(f"{device}-*.png"):
        old.unlink()  # this run's pictures only
    page = new_page(PHONE if touch else DESKTOP)
    goto(page, hall + "/")
    page.screenshot(path=str(artifacts / f"{device}-lobby.png"))
    guest_quick_play(page, hall, touch)
    page.wait_for_timeout(400)
    page.screenshot(path=str(artifacts / f"{device}-table.png"))

    done = play_hand(page, device, artifacts, touch=touch, manual_pass=not touch)
    assert done.get("play", 0) >= 10, done  # a hand is 26..39 tricks; the bot pair leads some

    summary = page.locator("#summary")
    summary.wait_for(state="visible")
    page.wait_for_timeout(300)
    page.screenshot(path=str(artifacts / f"{device}-summary.png"))
    text = summary.inner_text()
    assert "结算" in text and "底牌" in text and "级" in text, text
    assert summary.locator(".card").count() == 6  # the kitty, shown at the end
    assert page.locator("#hand .card").count() == 0  # every card was played

    _press(page, "#btn-summary-close", touch)
    summary.wait_for(state="hidden")
    # The last trick on demand.
    _press(page, "#btn-last", touch)
    page.wait_for_selector("#last[open] .card")
    page.screenshot(path=str(artifacts / f"{device}-last-trick.png"))
    assert page.locator("#last[open] .last-play").count() == 4


def test_spectator_sees_no_hand(hall: str, new_page: Any, artifacts: Path) -> None:
    player = new_page(DESKTOP)
    table_id = guest_quick_play(player, hall, touch=False)
    player.wait_for_selector("#hand .card")

    for device, name in ((PHONE, "phone"), (DESKTOP, "desktop")):
        watcher = new_page(device)
        goto(watcher, f"{hall}/table.html?t={table_id}&watch=1")
        watcher.wait_for_selector("#seat-top .name")
        watcher.wait_for_function("() => document.querySelector('#info .chip') !== null")
        watcher.wait_for_timeout(500)
        watcher.screenshot(path=str(artifacts / f"spectator-{name}.png"))
        assert watcher.locator("#hand").is_hidden()
        assert watcher.locator("#hand .card").count() == 0
        assert watcher.locator("#btn-hint").count() == 0
        assert "观战" in (watcher.text_content("#role") or "")
        # Four seats, each with a hand size and no cards of anybody's hand in the page.
        sizes = watcher.locator(".seat .count")
        assert sizes.count() >= 3
    # The spectator's socket carries no hand either.
    with httpx.Client(base_url=hall) as http:
        info = http.get(f"/api/tables/{table_id}").json()
        assert info["spectators"] >= 1


def test_language_switch(hall: str, new_page: Any, artifacts: Path) -> None:
    page = new_page(DESKTOP)
    goto(page, hall + "/")
    assert page.text_content("#btn-quick") == "快速开始"
    page.click("#btn-lang")
    assert page.text_content("#btn-quick") == "Quick play"
    page.screenshot(path=str(artifacts / "lobby-english.png"))
    page.reload()
    page.wait_for_selector("body[data-ready]", state="attached")
    assert page.text_content("#btn-quick") == "Quick play"  # remembered
    guest_quick_play(page, hall, touch=False)
    page.wait_for_selector("#hand .card")
    assert page.text_content("#btn-last") == "Last"
    assert "Trump" in (page.text_content("#info") or "")
    page.screenshot(path=str(artifacts / "table-english.png"))
    page.click("#btn-lang")
    assert page.text_content("#btn-last") == "上一墩"
    assert "主" in (page.text_content("#info") or "")


def test_private_table_seats_bots_and_start(hall: str, new_page: Any, artifacts: Path) -> None:
    owner = new_page(DESKTOP)
    goto(owner, hall + "/")
    owner.click("#btn-guest")
    owner.wait_for_selector("#btn-logout", state="attached")
    owner.fill("#create-name", "朋友局")
    owner.uncheck("#create-public")
    owner.uncheck("#create-counter")  # a table without 记牌器
    owner.click("#btn-create")
    owner.wait_for_url(re.compile(r".*/table\.html\?t=.*"))
    owner.wait_for_selector("#prestart:not([hidden])")
    code = (owner.text_content("#room-code") or "").strip()
    assert re.fullmatch(r"[A-Z0-9]{8}", code), code
    link = owner.input_value("#share-link")
    assert "/table.html?t=" in link

    # A friend joins by the room code and takes seat 3 (index 2).
    friend = new_page(PHONE)
    goto(friend, hall + "/")
    friend.tap("#btn-guest")
    friend.wait_for_selector("#btn-logout", state="attached")
    friend.fill("#code-input", code.lower())
    friend.tap("#code-form button")
    friend.wait_for_url(re.compile(r".*/table\.html\?t=.*"))
    friend.tap("button[data-act=sit][data-seat='2']")
    owner.wait_for_selector("text=guest-", timeout=5000)

    # The owner adds two bots, removes one, adds it again; start needs four.
    owner.click("button[data-act=bot][data-seat='1']")
    owner.wait_for_selector("button[data-act=unbot][data-seat='1']")
    assert owner.is_disabled("#btn-start")
    owner.click("button[data-act=bot][data-seat='3']")
    owner.wait_for_selector("button[data-act=unbot][data-seat='3']")
    owner.click("button[data-act=unbot][data-seat='3']")
    owner.wait_for_selector("button[data-act=bot][data-seat='3']")
    owner.click("button[data-act=bot][data-seat='3']")
    owner.wait_for_selector("#btn-start:not([disabled])")
    owner.screenshot(path=str(artifacts / "private-table-seats.png"))
    friend.screenshot(path=str(artifacts / "private-table-friend.png"))
    owner.click("#btn-start")
    owner.wait_for_selector("#prestart", state="hidden")
    owner.wait_for_selector("#hand .card")
    friend.wait_for_selector("#hand .card")
    # The friend sits at seat index 2: the owner's partner (对家), shown at the top.
    assert "对家" in (owner.text_content("#seat-top") or "")

    # The table was made without the card counter: neither player can open it.
    for page in (owner, friend):
        assert page.locator("#btn-counter").is_hidden()
        assert page.locator("#counter-panel").is_hidden()

    # Chat between them.
    owner.fill("#chat-input", "你好")
    owner.press("#chat-input", "Enter")
    friend.tap("#btn-chat")
    friend.wait_for_selector("#chat-lines .chat-line")
    assert "你好" in (friend.text_content("#chat-lines") or "")
    friend.screenshot(path=str(artifacts / "private-table-chat-phone.png"))
    friend.locator(".chat-panel [data-panel-close]").first.tap()  # back to the table

    # The two friends play the whole hand together, each in their own browser.
    made = {"owner": 0, "friend": 0}
    t0 = time.monotonic()
    while time.monotonic() - t0 < 2 * HAND_SECONDS:
        if all(p.locator("#summary[open]").count() for p in (owner, friend)):
            break
        for who, page, touch in (("owner", owner, False), ("friend", friend, True)):
            if _try_decide(page, touch):
                made[who] += 1
        owner.wait_for_timeout(30)
    else:
        owner.screenshot(path=str(artifacts / "friends-timeout-owner.png"))
        friend.screenshot(path=str(artifacts / "friends-timeout-friend.png"))
        raise AssertionError(f"the friends' hand did not end: {made}")
    friend.screenshot(path=str(artifacts / "friends-summary-phone.png"))
    assert made["owner"] >= 10 and made["friend"] >= 10, made
    for page in (owner, friend):
        assert page.locator("#hand .card").count() == 0


def _try_decide(page: Any, touch: bool) -> bool:
    """One decision by hint + the outlined button if this page has one to make now."""
    if page.locator("#summary[open]").count():
        return False
    if not page.locator("#btn-hint:not([disabled])").count():
        return False
    try:
        _press(page, "#btn-hint", touch)
        page.wait_for_selector("#buttons button.suggested:not([disabled])", timeout=2000)
        _press(page, "#buttons button.suggested", touch)
    except Exception:  # the decision went away (auto-pass while drawing, a re-render)
        return False
    return True


def test_public_table_listed(hall: str, new_page: Any) -> None:
    page = new_page(DESKTOP)
    goto(page, hall + "/")
    page.click("#btn-guest")
    page.wait_for_selector("#btn-logout", state="attached")
    page.fill("#create-name", "公开桌 listed")
    page.click("#btn-create")
    page.wait_for_url(re.compile(r".*/table\.html\?t=.*"))
    other = new_page(DESKTOP)
    goto(other, hall + "/")
    other.wait_for_selector("#tables .table-item >> text=公开桌 listed")
    other.click("#tables .table-item:has-text('公开桌 listed') >> text=观战")
    other.wait_for_url(re.compile(r".*watch=1.*"))
    other.wait_for_selector("#prestart:not([hidden])")


def test_register_logout_login(hall: str, new_page: Any, artifacts: Path) -> None:
    page = new_page(PHONE)
    goto(page, hall + "/")
    page.tap("#btn-guest")
    page.wait_for_selector("#btn-logout", state="attached")
    # The ladder title sits beside the name and links to the player page.
    title = page.wait_for_selector("#account .account-title:not([hidden])")
    assert title is not None and title.text_content() == "幼小班"
    assert "/player.html?p=" in (title.get_attribute("href") or "")
    name = f"web{int(time.time() * 1000) % 10**9}"
    page.tap("#btn-register")
    page.fill("dialog.login-dialog input[name=username]", name)
    page.fill("dialog.login-dialog input[name=password]", "short")
    page.tap("dialog.login-dialog button[type=submit]")
    page.wait_for_selector("dialog.login-dialog .form-error:not(:empty)")  # too short
    page.fill("dialog.login-dialog input[name=password]", "correct horse 42")
    page.screenshot(path=str(artifacts / "register-dialog-phone.png"))
    page.tap("dialog.login-dialog button[type=submit]")
    page.wait_for_selector(f"#account .who:has-text('{name}')")
    page.tap("#btn-logout")
    page.wait_for_selector("#btn-guest")
    page.tap("#btn-login")
    page.fill("dialog.login-dialog input[name=username]", name)
    page.fill("dialog.login-dialog input[name=password]", "wrong password")
    page.tap("dialog.login-dialog button[type=submit]")
    page.wait_for_selector("dialog.login-dialog .form-error:not(:empty)")
    page.fill("dialog.login-dialog input[name=password]", "correct horse 42")
    page.tap("dialog.login-dialog button[type=submit]")
    page.wait_for_selector(f"#account .who:has-text('{name}')")


def decide(page: Any, touch: bool) -> bool:
    """Take the decision the page asks now, if any, as a player does: the hint, then the
    highlighted button. False when there is none (not our turn, or it went away)."""
    press = page.tap if touch else page.click
    try:
        if page.locator("#summary[open]").count():  # a hand ended: on to the next
            press("#btn-summary-close", timeout=4000)
        if not page.locator("#btn-hint:not([disabled])").count():
            return False
        press("#btn-hint", timeout=4000)
        page.wait_for_selector("#buttons button.suggested:not([disabled])", timeout=4000)
        press("#buttons button.suggested", timeout=4000)
    except PlaywrightError:  # the decision went away (an auto-pass, a resync): ask again
        return False
    return True


def _decide(page: Any, n: int) -> None:
    """Make n decisions with hint + the outlined button."""
    made = 0
    t0 = time.monotonic()
    while made < n and time.monotonic() - t0 < 60:
        if decide(page, touch=False):
            made += 1
        else:
            page.wait_for_timeout(50)
    assert made == n, f"made {made} of {n} decisions"


def test_page_survives_a_server_restart(tmp_path: Path, new_page: Any,
                                        artifacts: Path) -> None:
    """The hall restarts (tables are restored from the store): the page reconnects with
    its last_seq and the hand goes on."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    proc = start_hall(tmp_path, port)
    try:
        page = new_page(DESKTOP)
        guest_quick_play(page, url, touch=False)
        _decide(page, 3)
        before = page.locator("#hand .card").count()
        stop_hall(proc)
        page.wait_for_selector("#conn.closed, #conn.connecting", timeout=10000)
        proc = start_hall(tmp_path, port)
        page.wait_for_selector("#conn.open", state="attached", timeout=20000)
        page.screenshot(path=str(artifacts / "after-restart.png"))
        assert page.locator("#hand .card").count() <= before
        _decide(page, 3)
    finally:
        stop_hall(proc)


def test_create_form_offers_only_the_options_the_preset_accepts(hall: str, new_page: Any) -> None:
    """A classic table has no tribute or 干锅 options; 打滚子 shows them, with its default ✓."""
    page = new_page(DESKTOP)
    goto(page, hall + "/")
    page.wait_for_selector("#create-preset option[value='classic-2']", state="attached")
    page.select_option("#create-preset", "gunzi")
    page.wait_for_selector("#rule-options select[data-option='tribute_rule']", state="attached")
    assert page.locator("#rule-options select[data-option='follow']").count() == 1
    page.select_option("#create-preset", "classic-2")
    page.wait_for_selector("#rule-options select[data-option='keep_deal']", state="attached")
    for gone in ("tribute_rule", "dry_pot", "follow", "permanent_twos"):
        assert page.locator(f"#rule-options select[data-option='{gone}']").count() == 0, gone


def test_create_form_offers_the_classic_variants_per_preset(hall: str, new_page: Any) -> None:
    """Issue 16's options reach the form from /api/rules: cover-triples and longer-tuples
    only with 3 decks, none of them for 打滚子; a table created with one carries it."""
    page = new_page(DESKTOP)
    goto(page, hall + "/")
    page.wait_for_selector("#create-preset option[value='classic-3']", state="attached")
    page.select_option("#create-preset", "classic-3")
    sel = "#rule-options select[data-option='trump_structure']"
    page.wait_for_selector(sel, state="attached")
    texts = page.locator(sel + " option").all_text_contents()
    assert [t.rstrip(" ✓") for t in texts] == ["same", "cover", "cover-triples"]
    assert page.locator("#rule-options select[data-option='draw_protection']").count() == 1
    page.select_option("#create-preset", "classic-2")
    page.wait_for_selector("#rule-options select[data-option='keep_deal']", state="attached")
    texts = page.locator(sel + " option").all_text_contents()
    assert [t.rstrip(" ✓") for t in texts] == ["same", "cover"]
    draw = page.locator("#rule-options select[data-option='draw_protection'] option")
    assert [t.rstrip(" ✓") for t in draw.all_text_contents()] == ["none", "no-format"]
    page.select_option("#create-preset", "gunzi")
    page.wait_for_selector("#rule-options select[data-option='tribute_rule']", state="attached")
    assert page.locator(sel).count() == 0


# Every frame's view gets a made-up decision while drawing: a declaration the first hand
# of 打滚子 never allows (three little jokers naming hearts). The page must offer exactly
# what the view describes, not what it would work out from the hand and the rules. Every
# declare button ever rendered is noted (a draw may pass in a moment).
FAKE_DECISION = """
window.__declareKeys = [];
new MutationObserver(() => {
  for (const b of document.querySelectorAll("#buttons button[data-key^='declare:']")) {
    if (!window.__declareKeys.includes(b.dataset.key)) window.__declareKeys.push(b.dataset.key);
  }
}).observe(document, { childList: true, subtree: true });
const Real = window.WebSocket;
window.WebSocket = class extends Real {
  set onmessage(fn) {
    super.onmessage = (m) => {
      const f = JSON.parse(m.data);
      if (f.view && f.view.phase === "draw" && f.view.decision) {
        f.view.decision = { kind: "declare", count: null,
                            options: [{ cards: ["LJ", "LJ", "LJ"], suit: "H" }] };
      }
      fn(new MessageEvent("message", { data: JSON.stringify(f) }));
    };
  }
};
"""

SEATED_WITH_BOTS = """async () => {
  const post = (url, method, body) => fetch(url, { method, headers: { "Content-Type":
    "application/json" }, body: JSON.stringify(body) }).then((r) => r.json());
  const t = await post("/api/tables", "POST", { preset: "gunzi", public: false, seat: 0 });
  for (const s of [1, 2, 3]) {
    await post(`/api/tables/${t.id}/seats/${s}/bot`, "PUT", { bot: "rule" });
  }
  return t.id;
}"""


def test_the_page_offers_the_decision_the_view_describes(hall: str, new_page: Any) -> None:
    page = new_page(DESKTOP)
    page.add_init_script(FAKE_DECISION)
    goto(page, hall + "/")
    page.click("#btn-guest")
    page.wait_for_selector("#btn-logout", state="attached")
    table_id = page.evaluate(SEATED_WITH_BOTS)
    goto(page, f"{hall}/table.html?t={table_id}")  # here before the deal: the draw is seen
    page.wait_for_selector("#info .chip")
    page.evaluate(f"fetch('/api/tables/{table_id}/start', {{method: 'POST'}})")
    deadline = time.monotonic() + 60  # (wait_for_function needs eval: the CSP forbids it)
    while not page.evaluate("window.__declareKeys.length > 0 "
                            "&& !['draw', undefined].includes(document.body.dataset.phase)"):
        assert time.monotonic() < deadline, page.evaluate("window.__declareKeys")
        page.wait_for_timeout(100)
    keys = page.evaluate("window.__declareKeys")
    assert keys == ["declare:LJLJLJ:H"], keys
