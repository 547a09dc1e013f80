"""A refused play tells the page why in its own terms: a reason code, the cards of the
seat's hand that satisfy the rule, and a short Chinese and English text with card symbols
(src/gunzi/server/refusals.py)."""

from __future__ import annotations

import random
import re

import pytest

from gunzi.engine import actions as A
from gunzi.engine import cards as C
from gunzi.engine.errors import IllegalActionError
from gunzi.engine.match import Match, Phase
from gunzi.engine.rules import preset
from gunzi.server.refusals import illegal


def _wrong_follow(rules: str, seed: int) -> tuple[Match, int, list[int], list[int]]:
    """A match at a single-card lead where the seat to follow holds both cards of the led
    class and others: (match, seat, its cards of the led class, an off-class card)."""
    m = Match(preset(rules))
    rng = random.Random(seed)
    while not m.is_over:
        seat = m.current
        if (m.phase is Phase.PLAY and len(m.trick) == 1 and len(m.trick[0][1]) == 1
                and seat is not None and seat != m.trick[0][0]):
            led = m.order.cls[m.trick[0][1][0]]
            hand = C.expand(m.hands[seat])
            same = [c for c in hand if m.order.cls[c] == led]
            other = [c for c in hand if m.order.cls[c] != led]
            if same and other:
                return m, seat, same, other
        assert seat is not None
        m.apply(m.legal_actions(seat).sample(rng))
    raise AssertionError("no such position")


@pytest.mark.parametrize(("rules", "seed"), [("gunzi", 1), ("classic-2", 2)])
def test_a_wrong_follow_names_the_cards_that_follow(rules: str, seed: int) -> None:
    m, seat, same, other = _wrong_follow(rules, seed)
    with pytest.raises(IllegalActionError) as exc:
        m.apply(A.play(seat, [other[0]]))
    out = illegal(m, seat, str(exc.value), exc.value.rule)
    assert out["reason"] in ("follow_suit_n", "follow_suit", "follow_all_of_suit")
    # Every held card of the led class follows a single lead (and nothing else does).
    assert sorted(out["cards"]) == sorted(C.NAMES[c] for c in same)
    zh, en = out["text"]["zh"], out["text"]["en"]
    assert not re.search(r"[A-Za-z]{2,}|seat|\[", zh), zh
    assert "必须跟" in zh and "你有" in zh
    assert en.startswith("you must follow") and "seat" not in en and "[" not in en
    # Cards are shown with suit symbols, not record text.
    shown = re.sub(r"\s+", " ", zh.split("你有", 1)[1]).strip().split(" ")
    assert len(shown) == len(same) and all(re.fullmatch(r"(?:10|[2-9JQKA])[♠♥♣♦]|大王|小王", s)
                                           for s in shown), shown


def test_seats_are_named_from_the_refused_seat() -> None:
    """"waiting for seat 3" said to seat 2 is 下家 (its next seat), never "seat 3"."""
    m = Match(preset("gunzi"))
    out = illegal(m, 2, "seat 2 plays: not this seat's turn; waiting for seat 3 [A7]", "A7")
    assert out["reason"] == "not_your_turn"
    assert out["text"]["zh"] == "还没轮到你（等待下家）"
    assert out["cards"] == []


def test_an_unknown_form_still_reads_in_chinese() -> None:
    m = Match(preset("gunzi"))
    out = illegal(m, 0, "seat 0 does something new with AS [A9]", "A9")
    assert out["reason"] == "rule" and out["text"]["zh"] == "这样不符合规则"
