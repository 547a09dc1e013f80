"""The rules page (/rules) in Chromium: reached from the lobby and from a table with a
non-default option, in both languages, on a desktop and on a 375x812 phone.

Expected texts come from the rules documents and the option chosen in the create form,
not from the page's own output: the table is created with 活棒 (``follow=live``, default
``dead`` per docs/rules.md A7), so exactly that block is marked and shows ``live``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from .conftest import DESKTOP, PHONE, missing
from .test_web import goto

REASON = missing()
pytestmark = pytest.mark.skipif(REASON is not None, reason=f"browser tests: {REASON}")

PHONE_812 = {**PHONE, "viewport": {"width": 375, "height": 812}}
DEVICES = {"desktop": DESKTOP, "phone": PHONE_812}
HEADINGS = {"en": "Rules of the games", "zh": "游戏规则"}


def _no_sideways_scroll(page: Any) -> None:
    """The page is no wider than the screen (wide tables scroll inside themselves)."""
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], width


@pytest.mark.parametrize("device", ["desktop", "phone"])
def test_rules_page_from_the_lobby_in_both_languages(hall: str, new_page: Any, device: str,
                                                     artifacts: Path) -> None:
    page = new_page(DEVICES[device], lang="en")
    goto(page, hall + "/")
    page.click("#link-rules")
    page.wait_for_url(re.compile(r".*/rules\?lang=en$"))
    assert page.locator("h1").inner_text() == HEADINGS["en"]
    # Every clause has its anchor, and no option block is marked without a table.
    for clause in ("A1", "A4.1", "A12", "B", "B-variants", "C", "D"):
        assert page.locator(f"[id='{clause}']").count() == 1, clause
    assert page.locator(".rule-option").count() >= 33
    assert page.locator(".rule-option.active, .table-value").count() == 0
    _no_sideways_scroll(page)
    page.screenshot(path=str(artifacts / f"rules-lobby-en-{device}.png"))

    page.click("#link-lang")
    page.wait_for_url(re.compile(r".*/rules\?lang=zh$"))
    assert page.locator("h1").inner_text() == HEADINGS["zh"]
    assert page.evaluate("document.documentElement.lang") == "zh-CN"
    assert "抢亮大王" in page.locator("[id='A4.1']").inner_text()
    _no_sideways_scroll(page)
    page.click("#link-lobby")
    page.wait_for_selector("body.lobby-page")


@pytest.mark.parametrize("device", ["desktop", "phone"])
def test_rules_page_from_a_table_marks_its_option(hall: str, new_page: Any, device: str,
                                                  artifacts: Path) -> None:
    page = new_page(DEVICES[device], lang="zh")
    goto(page, hall + "/")
    page.click("#btn-guest")
    page.wait_for_selector("#btn-logout", state="attached")
    page.select_option("#create-preset", "gunzi")
    page.click("#create-form details summary")  # 更多规则选项
    page.select_option("#rule-options select[data-option='follow']", "live")
    page.click("#btn-create")
    page.wait_for_url(re.compile(r".*/table\.html\?t=.*"))
    table_id = page.evaluate("new URLSearchParams(location.search).get('t')")
    page.wait_for_selector("body[data-ready]", state="attached")
    box = page.locator("#link-rules").bounding_box()  # in the top bar, on screen
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= page.viewport_size["width"]
    page.screenshot(path=str(artifacts / f"rules-link-table-{device}.png"))

    with page.expect_popup() as popup:  # a new tab: the seat stays connected
        page.click("#link-rules")
    table_page, page = page, popup.value
    page.wait_for_url(re.compile(r".*/rules\?lang=zh&table=.*"))
    assert page.locator("h1").inner_text() == HEADINGS["zh"]
    marked = page.locator(".rule-option.active")
    assert marked.count() == 1
    assert marked.get_attribute("data-option") == "follow"
    assert marked.get_attribute("id") == "opt-follow"
    assert "活棒" in marked.inner_text()
    assert re.search(r"本桌：\s*live", marked.locator(".table-value").inner_text())
    # Unchanged options show the table's value too, unmarked: [I-7] keeps no-trump-suit.
    dry = page.locator("[id='I-7']")
    assert "active" not in (dry.get_attribute("class") or "")
    assert "no-trump-suit" in dry.locator(".table-value").inner_text()
    # The summary names the table and links to the marked block.
    summary = page.locator(".rules-summary")
    assert table_id in summary.inner_text()
    assert summary.locator("li a").get_attribute("href") == "#opt-follow"
    _no_sideways_scroll(page)
    summary.locator("li a").click()
    page.screenshot(path=str(artifacts / f"rules-table-zh-{device}.png"))

    page.click("#link-lang")
    page.wait_for_url(re.compile(r".*/rules\?lang=en&table=.*"))
    assert page.locator("h1").inner_text() == HEADINGS["en"]
    marked = page.locator(".rule-option.active")
    assert marked.count() == 1 and marked.get_attribute("data-option") == "follow"
    assert re.search(r"This table:\s*live", marked.inner_text())
    page.screenshot(path=str(artifacts / f"rules-table-en-{device}.png"))

    assert table_page.url.endswith(f"/table.html?t={table_id}")  # still at its table
    page.click("text=Back to the table")
    page.wait_for_url(re.compile(rf".*/table\.html\?t={table_id}$"))


def test_rules_page_from_a_board_table(hall: str, new_page: Any) -> None:
    """步步为营: the board page links to the rules with its table, Part D's options shown."""
    page = new_page(DESKTOP, lang="en")
    goto(page, hall + "/")
    page.click("#btn-guest")
    page.wait_for_selector("#btn-logout", state="attached")
    page.click("#btn-bb-2")
    page.wait_for_url(re.compile(r".*/board\.html\?t=.*"))
    page.wait_for_function("() => document.getElementById('link-rules').href.includes('table=')")
    with page.expect_popup() as popup:
        page.click("#link-rules")
    page = popup.value
    page.wait_for_url(re.compile(r".*/rules\?lang=en&table=.*"))
    assert "false" in page.locator("[id='I-15'] .table-value").inner_text()  # jumps: default
    assert page.locator(".rule-option.active").count() == 0
    assert page.locator("[id='I-7'] .table-value").count() == 0  # no card options on a board
