"""步步为营 in the browser: quick play from the lobby, a wall placed by hover + two clicks
(desktop) or by wall mode + tap + confirm (phone), and a pawn moved by clicking a lit square."""

from __future__ import annotations

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
    move_pawn(page)
    page.screenshot(path=str(artifacts / "board-after-move.png"))
    page.click("#btn-lang")
    assert "walls" in page.inner_text("#bb-seats")


def test_phone_four_players_wall_mode_and_move(hall: str, new_page: Any,
                                               artifacts: Path) -> None:
    page = new_page(PHONE)
    start(page, hall, "#btn-bb-4")
    assert page.locator("#bb-board .bb-pawn").count() == 4
    page.tap("#bb-mode")
    page.tap("#bb-rotate")  # vertical walls
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
