"""Issue 16's classic variants in a real browser: the create form on a phone, a 无主 hand
([I-30] no_declaration=no-trump) at a table of four people who all pass while drawing, and
the replay of a 无主 record."""

from __future__ import annotations

import json
import random
import re
import time
from pathlib import Path
from typing import Any

import pytest

from gunzi.engine import records
from gunzi.engine.match import Match, Phase
from gunzi.engine.rules import preset
from helpers import passer, run_until

from .conftest import DESKTOP, PHONE, missing
from .test_web import goto

REASON = missing()
pytestmark = pytest.mark.skipif(REASON is not None, reason=f"browser tests: {REASON}")

DRAW_SECONDS = 240  # 100 cards drawn, each seat asked in turn: about a minute here
PHONE_WIDTH = PHONE["viewport"]["width"]
VARIANTS_3 = {  # option -> values a 3-deck table may play (docs/rules-classic-variants.md)
    "trump_structure": ["same", "cover", "cover-triples"],
    "throw_compare": ["highest-unit", "every-unit", "highest-card"],
    "draw_protection": ["none", "longer-tuples", "no-format"],
    "triple_tractors": ["true", "false"],
    "no_declaration": ["kitty-card", "no-trump"],
    "must_defend": ["A", "none", "5-10-K-A", "5-10-K"],
}


def _guest(page: Any, hall: str, touch: bool = True) -> None:
    goto(page, hall + "/")
    if touch:
        page.tap("#btn-guest")
    else:
        page.click("#btn-guest")
    page.wait_for_selector("#btn-logout", state="attached")


def _phase(page: Any) -> str:
    return str(page.evaluate("document.body.dataset.phase"))


def _open_advanced(page: Any) -> None:
    """Tap 更多规则选项 open: the rule options are folded away until asked for."""
    if not page.locator("details:has(#rule-options)[open]").count():
        page.tap("details:has(#rule-options) > summary")


def _create_on_phone(page: Any, hall: str, preset: str, choose: dict[str, str]) -> str:
    """Fill the create form by touch on a phone: the preset, then each chosen variant."""
    page.wait_for_selector(f"#create-preset option[value='{preset}']", state="attached")
    page.select_option("#create-preset", preset)
    _open_advanced(page)
    for key, value in choose.items():
        sel = f"#rule-options select[data-option='{key}']"
        page.wait_for_selector(sel, state="attached")
        page.select_option(sel, value=json.dumps(value))
    page.uncheck("#create-public")
    page.tap("#btn-create")
    page.wait_for_url(re.compile(r".*/table\.html\?t=.*"))
    return str(page.evaluate("new URLSearchParams(location.search).get('t')"))


def test_create_form_variants_fit_a_phone_and_reach_the_table(hall: str, new_page: Any) -> None:
    """At 375 px each variant field is on screen (no sideways scrolling), offers the values a
    3-deck table can play and none for 一副牌 that it cannot; the chosen values reach the
    table the form creates."""
    page = new_page(PHONE)
    _guest(page, hall)
    page.wait_for_selector("#create-preset option[value='classic-3']", state="attached")
    page.select_option("#create-preset", "classic-3")
    _open_advanced(page)
    for key, values in VARIANTS_3.items():
        sel = page.locator(f"#rule-options select[data-option='{key}']")
        sel.wait_for(state="attached")
        texts = [t.rstrip(" ✓") for t in sel.locator("option").all_text_contents()]
        assert texts == values, (key, texts)
        sel.scroll_into_view_if_needed()
        assert sel.is_visible(), key
        box = sel.bounding_box()
        assert box is not None and box["width"] > 0, key
        assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE_WIDTH, (key, box)
        label = sel.locator("xpath=ancestor::label[1]")
        assert key in (label.locator(".opt-name").inner_text()), key
    scroll_width = page.evaluate("document.documentElement.scrollWidth")
    assert scroll_width <= PHONE_WIDTH, scroll_width
    # One deck has no pairs: the structure variants are not offered there ([I-20], [I-23]).
    page.select_option("#create-preset", "classic-1")
    page.wait_for_selector("#rule-options select[data-option='throw_penalty']",
                           state="attached")
    for gone in ("trump_structure", "tractor_min_length", "break_longer_tractor",
                 "draw_protection", "triple_tractors"):
        assert page.locator(f"#rule-options select[data-option='{gone}']").count() == 0, gone

    goto(page, hall + "/")
    table = _create_on_phone(page, hall, "classic-3",
                             {"trump_structure": "cover-triples", "must_defend": "5-10-K"})
    info = page.request.get(f"{hall}/api/tables/{table}").json()
    rules = info["rules"]
    assert (rules["trump_structure"], rules["must_defend"]) == ("cover-triples", "5-10-K")
    assert rules["throw_compare"] == "highest-unit"  # untouched: the preset's default


def test_no_trump_hand_shows_no_trump_in_the_chip(hall: str, new_page: Any) -> None:
    """Four people pass while drawing at a 无主 table: every seat's trump chip says 无主 (or
    No trump), not the "not decided yet" dash, and the level chip still names the level."""
    owner = new_page(PHONE)
    _guest(owner, hall)
    table = _create_on_phone(owner, hall, "classic-2", {"no_declaration": "no-trump"})
    owner.wait_for_selector("#prestart:not([hidden])")
    friends = []
    for seat in (1, 2, 3):
        page = new_page(DESKTOP, lang="en" if seat == 1 else None)
        _guest(page, hall, touch=False)
        r = page.request.post(f"{hall}/api/tables/{table}/seats/{seat}")
        assert r.ok, r.text()
        goto(page, f"{hall}/table.html?t={table}")
        friends.append(page)
    owner.wait_for_selector("#btn-start:not([disabled])")
    owner.tap("#btn-start")
    pages = [owner, *friends]
    # The draw: 自动过 (auto-pass, on by default) answers every ask but the last window,
    # where each person presses 不亮 themselves.
    deadline = time.monotonic() + DRAW_SECONDS
    while not all(_phase(p) in ("bury", "play") for p in pages):
        assert time.monotonic() < deadline, [_phase(p) for p in pages]
        for page in pages:
            button = page.locator("#buttons button[data-key='pass']:not([disabled])")
            if _phase(page) == "draw" and button.count():
                try:
                    button.first.click(timeout=1000)
                except Exception:  # re-rendered under the pointer: try again next round
                    continue
        owner.wait_for_timeout(200)
    for page in pages:
        chip = page.locator("#info .trump-chip")
        chip.wait_for()
        text = chip.inner_text()
        assert "—" not in text, text
        assert ("No trump" in text) if page is friends[0] else ("无主" in text), text
    assert owner.locator("#info .level-chip").inner_text().strip().endswith("2")


def test_replay_of_a_no_trump_hand_says_so(new_page: Any, hall: str, tmp_path: Path) -> None:
    """A 无主 record opened on the replay page shows 无主 in its trump chip, not a dash."""
    m = Match(preset("classic-2", no_declaration="no-trump"), random.Random(3),
              auto_deal=False)
    m.apply(m.legal_actions(m.to_act).sample(random.Random(3)))  # type: ignore[arg-type]
    run_until(m, Phase.PLAY, passer)  # nobody declares: the first hand is 无主
    rng = random.Random(1)
    while not m.results:
        m.apply(m.legal_actions(m.to_act).sample(rng))  # type: ignore[arg-type]
    assert m.results[-1]["trump"] is None
    path = tmp_path / "wuzhu.jsonl"
    path.write_text(records.dumps(records.header(m, seed=3), records.finished_events(m)),
                    encoding="utf-8")
    page = new_page(PHONE)
    page.goto(f"{hall}/replay.html")
    page.wait_for_selector("body[data-ready='1']")
    page.set_input_files("#rp-file", str(path))
    page.wait_for_function("() => document.getElementById('rp-source').textContent === "
                           "'wuzhu.jsonl'")
    info = page.locator("#rp-info").inner_text()
    assert "无主" in info and "—" not in info, info
