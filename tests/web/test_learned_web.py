"""The learned bot in the page: quick play offers it (said as trained on 打滚子 only when
the preset is classic), its seats say so, and a table's owner picks it to add a bot."""

from __future__ import annotations

import re
from typing import Any

import pytest

from .conftest import DESKTOP, missing
from .test_web import goto

REASON = missing()
pytestmark = pytest.mark.skipif(REASON is not None, reason=f"browser tests: {REASON}")


def test_quick_play_and_table_offer_the_learned_bot(hall: str, new_page: Any) -> None:
    page = new_page(DESKTOP)
    goto(page, hall + "/")
    page.click("#btn-guest")
    page.wait_for_selector("#btn-logout", state="attached")
    options = page.eval_on_selector_all("#quick-bot option", "os => os.map(o => o.value)")
    assert options == ["rule", "checked", "learned", "random"]
    assert page.text_content("#quick-bot option[value=learned]") == "学习"
    assert page.text_content("#quick-bot option[value=checked]") == "学习+验算"
    page.select_option("#quick-preset", "classic-1")
    assert page.text_content("#quick-bot option[value=learned]") == "学习（只练过打滚子）"
    # the checked bot's proposals come from the same net: said the same way
    assert page.text_content("#quick-bot option[value=checked]") == "学习+验算（只练过打滚子）"
    page.select_option("#quick-bot", "learned")
    page.click("#btn-quick")
    page.wait_for_url(re.compile(r".*/table\.html\?t=.*"))
    page.wait_for_selector(".bot-badge")
    badges = page.eval_on_selector_all(".bot-badge", "bs => bs.map(b => [b.textContent, b.title])")
    assert len(badges) == 3
    for text, title in badges:
        assert text == "学习" and "只在打滚子上训练过" in title

    # A table of one's own: the owner picks the learned bot for the seats it adds.
    goto(page, hall + "/")
    page.click("#btn-create")
    page.wait_for_url(re.compile(r".*/table\.html\?t=.*"))
    page.wait_for_selector("#bot-kind")
    page.select_option("#bot-kind", "learned")
    page.click("button[data-act=bot][data-seat='1']")
    page.wait_for_selector("button[data-act=unbot][data-seat='1']")
    assert "学习" in (page.text_content("#prestart") or "")
    page.select_option("#bot-kind", "random")
    page.click("button[data-act=bot][data-seat='2']")
    page.wait_for_selector("button[data-act=unbot][data-seat='2']")
    seats = page.evaluate("fetch('/api/tables/' + new URLSearchParams(location.search).get('t'))"
                          ".then(r => r.json()).then(t => t.seats.map(s => s.bot))")
    assert seats[1:3] == ["learned", "random"]
