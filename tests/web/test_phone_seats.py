"""On a 375 px phone the left and right seat boxes stay short (three lines at most) and
clear of the trick (no played card or tag on any seat box), in both languages, during 打滚子
and classic hands: they used to wrap to six lines (position, name, title, kind, cards, team)
and crowd the trick area. A seat's badges (庄, the bot's kind) stand apart on every seat."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .conftest import PHONE, missing
from .test_feedback_web import play, quick_table

REASON = missing()
pytestmark = pytest.mark.skipif(REASON is not None, reason=f"browser tests: {REASON}")

MEASURE = """() => {
  const box = (e) => { const r = e.getBoundingClientRect();
    return {top: r.top, bottom: r.bottom, left: r.left, right: r.right, height: r.height}; };
  const seats = ['seat-left', 'seat-right'].map((id) => {
    const s = document.getElementById(id);
    const rel = s.querySelector('.rel');
    // One line of the box: the tallest of its parts (badges are a little taller than text).
    const line = Math.max(...[...s.querySelectorAll('.rel, .badge, .count, .seat-title')]
      .filter((e) => e.getBoundingClientRect().height > 0)
      .map((e) => e.getBoundingClientRect().height));
    const st = getComputedStyle(s);
    const inner = s.clientHeight - parseFloat(st.paddingTop) - parseFloat(st.paddingBottom);
    return {id, line, inner, box: box(s), rel: rel.textContent};
  });
  const plays = [...document.querySelectorAll('.play .card, .play .tag')].map(box);
  const others = ['seat-top', 'seat-bottom']
    .map((id) => ({id, box: box(document.getElementById(id))}));
  // Badges side by side on one line must not touch ("庄规则" reads as one word).
  const touching = [];
  for (const s of document.querySelectorAll('.seat')) {
    const bs = [...s.querySelectorAll('.badge')].map((e) => e.getBoundingClientRect())
      .filter((r) => r.height > 0);
    bs.slice(1).forEach((r, i) => {
      const q = bs[i];
      if (Math.abs(r.top - q.top) < 2 && r.left - q.right < 2) touching.push(s.id);
    });
  }
  return {seats, plays, touching, others};
}"""


@pytest.mark.parametrize(("preset", "lang"), [("gunzi", "zh"), ("classic-2", "en")])
def test_side_seats_stay_short_on_a_phone(hall: str, new_page: Any, artifacts: Path,
                                          preset: str, lang: str) -> None:
    page = new_page(PHONE, lang=lang)
    quick_table(page, hall, preset, True)
    checked = {"n": 0}

    def hook(p: Any) -> bool:
        if p.evaluate("document.body.dataset.phase") != "play":
            return False
        # Played cards slide in from their seat: judge the settled trick.
        p.wait_for_function("""() => !document.getAnimations()
            .some((a) => a.playState === 'running')""")
        got = p.evaluate(MEASURE)
        for s in got["seats"]:
            # Three lines of its tallest part, with the 1 px row gaps between them.
            assert s["inner"] <= 3 * s["line"] + 4, s
        # No played card or its 首/大 tag lies on any seat box (your own one included).
        for s in got["seats"] + got["others"]:
            for c in got["plays"]:
                b = s["box"]
                apart = (c["left"] >= b["right"] - 1 or c["right"] <= b["left"] + 1
                         or c["top"] >= b["bottom"] - 1 or c["bottom"] <= b["top"] + 1)
                assert apart, (s, c)
        assert not got["touching"], got["touching"]
        checked["n"] += 1
        if checked["n"] == 3:
            p.screenshot(path=str(artifacts / f"phone-seats-{preset}-{lang}.png"))
        return False

    play(page, True, hook)
    assert checked["n"] >= 3, checked
