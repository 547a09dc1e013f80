"""Accessibility: every page (lobby, not-found, table, leaders, player, replay, rules,
步步为营 board) passes axe-core with no serious or critical violation, on a
1280x800 desktop and a 375x812 phone. axe-core's script is the copy bundled in the
``axe-playwright-python`` package (the dev extra), injected into the page: nothing is
fetched from the network at test time.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from .conftest import DESKTOP, PHONE, missing
from .test_web import goto, guest_quick_play

REASON = missing()
pytestmark = pytest.mark.skipif(REASON is not None, reason=f"browser tests: {REASON}")

PHONE_812 = {**PHONE, "viewport": {"width": 375, "height": 812}}
DEVICES = {"desktop": DESKTOP, "phone": PHONE_812}
GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "classic2-seed12.jsonl"
WCAG = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]


def axe_script() -> str:
    from axe_playwright_python.sync_playwright import Axe

    script: str = Axe().axe_script
    return script


def serious(page: Any) -> list[dict[str, Any]]:
    """The serious and critical violations of the page as it is now, once its card motion
    has settled (a card mid-slide is partly transparent, which axe reads as low contrast)."""
    page.evaluate("Promise.all(document.getAnimations().map((a) => a.finished.catch(() => 0)))")
    page.evaluate(axe_script())
    opts = json.dumps({"runOnly": {"type": "tag", "values": WCAG},
                       "resultTypes": ["violations"]})
    result = page.evaluate(f"axe.run(document, {opts})")
    return [
        {"id": v["id"], "impact": v["impact"], "help": v["help"],
         "nodes": [n["target"] for n in v["nodes"][:5]]}
        for v in result["violations"] if v["impact"] in ("serious", "critical")
    ]


def check(page: Any, name: str, artifacts: Path) -> None:
    found = serious(page)
    if found:
        page.screenshot(path=str(artifacts / f"a11y-{name}.png"))
    assert not found, f"{name}: {json.dumps(found, ensure_ascii=False, indent=1)}"


def _decide(page: Any, times: int) -> None:
    """A few decisions by hint (the table then has cards in the hand and the trick)."""
    done = 0
    while done < times:
        page.wait_for_selector("#btn-hint:not([disabled])", timeout=60000)
        try:
            page.click("#btn-hint")
            page.wait_for_selector("#buttons button.suggested:not([disabled])", timeout=4000)
            page.click("#buttons button.suggested", timeout=4000)
        except Exception:  # the ask went away or was re-rendered: ask again
            continue
        if page.evaluate("document.body.dataset.phase") == "play":
            done += 1


@pytest.mark.parametrize("device", list(DEVICES))
def test_every_page_has_no_serious_violation(hall: str, new_page: Any, artifacts: Path,
                                            device: str) -> None:
    touch = device == "phone"
    page = new_page(DEVICES[device])
    goto(page, hall + "/")
    check(page, f"{device}-lobby", artifacts)
    page.goto(hall + "/no-such-page.html")
    assert page.locator("h1").inner_text() == "找不到这个页面"
    check(page, f"{device}-not-found", artifacts)

    guest_quick_play(page, hall, touch)
    tid = page.evaluate("new URLSearchParams(location.search).get('t')")
    check(page, f"{device}-table-start", artifacts)
    _decide(page, 2)
    # A selection in the hand, as when choosing what to play.
    page.wait_for_selector("#btn-hint:not([disabled])", timeout=60000)
    page.click("#btn-hint")
    check(page, f"{device}-table-play", artifacts)
    page.click("#btn-lang")
    check(page, f"{device}-table-play-en", artifacts)
    page.click("#btn-lang")
    me = page.evaluate("fetch('/api/me').then((r) => r.json()).then((d) => d.user.id)")

    goto(page, hall + "/leaders.html")
    check(page, f"{device}-leaders", artifacts)
    goto(page, hall + f"/player.html?p={me}")
    check(page, f"{device}-player", artifacts)

    goto(page, hall + "/replay.html")
    page.set_input_files("#rp-file", str(GOLDEN))
    page.wait_for_selector("#rp-hands .card")
    check(page, f"{device}-replay", artifacts)

    # The rules page (generated from docs/rules*.md) in both languages, and a table's own
    # (its options marked), as the table's 规则 link opens it.
    for name, query in (("zh", "lang=zh"), ("en", "lang=en"), ("table", f"lang=zh&table={tid}")):
        page.goto(hall + "/rules?" + query)
        page.wait_for_selector("h1")
        check(page, f"{device}-rules-{name}", artifacts)

    goto(page, hall + "/")
    page.click("#btn-bb-2")
    page.wait_for_url(re.compile(r".*/board\.html\?t=.*"))
    page.wait_for_selector("#bb-board .bb-legal")
    check(page, f"{device}-board", artifacts)
