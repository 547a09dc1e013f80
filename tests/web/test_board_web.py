"""步步为营 in the browser: quick play from the lobby, a wall placed by hover + two clicks
(desktop) or by wall mode + tap + confirm (phone), and a pawn moved by clicking a lit square."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from .conftest import DESKTOP, PHONE, missing

REASON = missing()
pytestmark = pytest.mark.skipif(REASON is not None, reason=f"browser tests: {REASON}")


def my_turn(page: Any) -> None:
    page.wait_for_selector("#bb-board .bb-legal")


def start(page: Any, hall: str, button: str) -> None:
    page.goto(hall + "/")
    page.wait_for_selector("body[data-ready='1']")
    page.click(button)
    page.wait_for_url("**/board.html?t=*")
    my_turn(page)


def move_pawn(page: Any) -> None:
    my_turn(page)
    target = page.locator("#bb-board .bb-legal").first.get_attribute("data-square")
    page.locator(f"#bb-board rect.bb-legal[data-square='{target}']").click()
    page.wait_for_selector(f"#bb-board .bb-pawn[data-seat='0'][data-square='{target}']")


def test_desktop_wall_preview_place_and_move(hall: str, new_page: Any, artifacts: Path) -> None:
    page = new_page(DESKTOP)
    start(page, hall, "#btn-bb-2")
    assert page.locator("#bb-board .bb-pawn").count() == 2
    assert "轮到你" in page.inner_text("#bb-status")
    # hover the groove above row 5 under column e: a green preview of e5h
    page.hover("#bb-board [data-groove='h4-4']")
    page.wait_for_selector("#bb-board .bb-preview.ok[data-preview='e5h']")
    page.click("#bb-board [data-groove='h4-4']")  # selects it: the confirm button shows
    assert "e5h" in page.inner_text("#bb-place")
    page.screenshot(path=str(artifacts / "board-wall-preview.png"))
    page.click("#bb-board [data-groove='h4-4']")  # a second click places it
    page.wait_for_selector("#bb-board .bb-wall[data-wall='e5h']")
    assert "木块 9" in page.inner_text("#bb-seats")
    # e5v would cross e5h at its middle: a red preview, no confirm button, a note why not
    my_turn(page)
    page.click("#bb-board [data-groove='v4-4']")
    page.wait_for_selector("#bb-board .bb-preview.bad[data-preview='e5v']")
    assert page.locator("#bb-confirm").is_hidden()
    assert "不能放木块" in page.inner_text("#bb-wall-note")
    page.click("#bb-board [data-groove='v4-4']")  # a second click does not place it either
    page.wait_for_timeout(300)
    assert page.locator("#bb-board .bb-wall[data-wall='e5v']").count() == 0
    move_pawn(page)
    page.screenshot(path=str(artifacts / "board-after-move.png"))
    cues = page.evaluate("import('/js/sound.js').then((m) => m.Sound.recent.map((c) => c.name))")
    # the bot moved, then our turn came. On a loaded machine the bot's answer can come in
    # the frame of our own move: that frame sounds once (Sound.play skips a second play*
    # cue within MIN_GAP_MS), so the bot's own cue is then absent.
    assert "turn" in cues and ("play_other" in cues or cues.count("play") >= 2), cues
    page.click("#btn-lang")
    assert "walls" in page.inner_text("#bb-seats")


def test_phone_four_players_wall_mode_and_move(hall: str, new_page: Any,
                                               artifacts: Path) -> None:
    page = new_page(PHONE)
    start(page, hall, "#btn-bb-4")
    assert page.locator("#bb-board .bb-pawn").count() == 4
    page.tap("#bb-mode")
    page.tap("#bb-rotate")  # vertical walls
    page.locator("#bb-board").scroll_into_view_if_needed()  # the buttons are below it
    box = page.locator("#bb-board").bounding_box()
    assert box is not None
    # tap near the centre of the board: the nearest groove crossing, a vertical wall
    page.touchscreen.tap(box["x"] + box["width"] * 0.5, box["y"] + box["height"] * 0.3)
    page.wait_for_selector("#bb-confirm:not([hidden])")
    wall = page.inner_text("#bb-place").split()[-1]
    assert wall.endswith("v")
    page.tap("#bb-place")
    page.wait_for_selector(f"#bb-board .bb-wall[data-wall='{wall}']")
    page.tap("#bb-mode")  # back to moving
    move_pawn(page)
    page.screenshot(path=str(artifacts / "board-phone.png"))


def test_lobby_creates_a_board_table_listed_with_board_links(hall: str, new_page: Any,
                                                             artifacts: Path) -> None:
    page = new_page(DESKTOP)
    page.goto(hall + "/")
    page.wait_for_selector("body[data-ready='1']")
    page.wait_for_selector("#create-preset option[value='quoridor-2']", state="attached")
    page.select_option("#create-preset", "quoridor-2")
    assert page.locator("#create-clock").is_hidden()  # card-only fields go away
    page.fill("#create-name", "木块局")
    page.click("#btn-create")
    page.wait_for_url("**/board.html?t=*")
    tid = page.url.split("t=")[1]
    page.wait_for_selector("#bb-open [data-act='bot'][data-seat='1']")
    assert page.locator("#bb-start").is_disabled()
    # another visitor sees it in the lobby, with links to the board page
    other = new_page(DESKTOP)
    other.goto(hall + "/")
    item = other.locator(f"#tables li[data-id='{tid}']")
    item.wait_for()
    assert item.get_attribute("data-game") == "quoridor" and "木块局" in item.inner_text()
    hrefs = [a.get_attribute("href") for a in item.locator("a.button").all()]
    assert hrefs == [f"/board.html?t={tid}", f"/board.html?t={tid}&watch=1"]
    page.click("#bb-open [data-act='bot'][data-seat='1']")
    page.click("#bb-start:not([disabled])")
    my_turn(page)
    assert page.locator("#bb-open").is_hidden()
    assert page.locator("#bb-seats .ladder-title").count() == 2  # titles beside the names
    page.screenshot(path=str(artifacts / "board-from-lobby.png"))


def test_a_boxed_in_seat_is_offered_the_pass(hall: str, new_page: Any) -> None:
    """A pawn boxed in with no wall left has one legal action, the pass: the page offers a
    button for it and sends it. The socket is rewritten in between (the server's view says
    only "pass" is legal) since no quick game reaches that position on purpose; the
    server, which knows better, refuses the pass and the page says why."""
    page = new_page(DESKTOP)
    sent: list[dict[str, Any]] = []

    def route(ws: Any) -> None:
        server = ws.connect_to_server()

        def from_server(message: str | bytes) -> None:
            f = json.loads(message)
            view = f.get("view")
            if f.get("t") in ("snapshot", "events") and view and not view.get("is_over"):
                view["legal"] = ["pass"] if view.get("to_act") == 0 else []
            ws.send(json.dumps(f))

        def from_page(message: str | bytes) -> None:
            sent.append(json.loads(message))
            server.send(message)

        server.on_message(from_server)
        ws.on_message(from_page)

    page.route_web_socket(re.compile(r".*/ws/board/.*"), route)
    page.goto(hall + "/")
    page.wait_for_selector("body[data-ready='1']")
    page.click("#btn-bb-2")
    page.wait_for_url("**/board.html?t=*")
    page.wait_for_selector("#bb-pass-row:not([hidden])")
    assert page.locator("#bb-board .bb-legal").count() == 0  # no square to move to
    assert "让过" in page.inner_text("#bb-pass")
    page.click("#bb-pass")
    page.wait_for_selector("#toast.show.error")
    assert "只有无路可走" in page.inner_text("#toast")  # the engine's reason, in Chinese
    acts = [f["action"] for f in sent if f.get("t") == "act"]
    assert acts == [{"type": "pass"}]
