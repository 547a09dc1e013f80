"""What a refused action tells the page: a reason code, the cards of the seat's own hand
that satisfy the rule, and a short text in Chinese and English (docs/protocol.md, ``ack``).

The engine words its errors in English for records and developers. gunzi.wording.errors
re-words every form a player can reach, for the terminal and the hall alike (one table, not
a copy), so the page never parses English and a new engine form fails one test.
"""

from __future__ import annotations

import re
from collections import Counter
from itertools import islice
from typing import Any

from gunzi.engine import cards as C
from gunzi.engine.match import Match, Phase
from gunzi.wording.errors import engine_error, reason

LANGS = ("zh", "en")
SEAT = re.compile(r"\bseat (\d)\b")
MAX_FOLLOWS = 400  # classic follows are enumerated lazily; enough to cover a hand's cards


def _relative(text: str, seat: int) -> str:
    """``text`` with seats counted from ``seat`` (seat 0 = "you", 1 = 下家, …), the terms
    the wording uses."""
    return SEAT.sub(lambda m: f"seat {(int(m[1]) - seat) % 4}", text)


def _follow_cards(match: Match, seat: int) -> list[str]:
    """Every card of the seat's hand that some legal follow uses, with its copies."""
    if match.phase is not Phase.PLAY or not match.trick or match.current != seat:
        return []
    most: Counter[int] = Counter()
    for action in islice(match.legal_actions(seat), MAX_FOLLOWS):
        most |= Counter(action.cards)
    return [C.NAMES[c] for c in sorted(most.elements(), key=match.order.sort_key)]


def _body(text: str, rule: str) -> str:
    """An engine error's text without its ``[rule]`` suffix."""
    suffix = f" [{rule}]"
    return text[: -len(suffix)] if rule and text.endswith(suffix) else text


def illegal(match: Match, seat: int, text: str, rule: str) -> dict[str, Any]:
    """The fields a refusal adds for ``text`` (an IllegalActionError of ``seat``)."""
    body = _relative(_body(text, rule), seat)
    code, cards = reason(body)
    return {
        "reason": code,
        "cards": cards or _follow_cards(match, seat),
        "text": {lang: engine_error(body, lang, brief=True) for lang in LANGS},
    }


def board_illegal(text: str, rule: str) -> dict[str, Any]:
    """The fields a refusal of a 步步为营 action adds: its reason code and its text in each
    language, pawns named by the numbers the board shows (seat + 1); no cards to point at."""
    body = SEAT.sub(lambda m: f"seat {int(m[1]) + 1}", _body(text, rule))
    return {"reason": reason(body)[0],
            "text": {lang: engine_error(body, lang, brief=True) for lang in LANGS}}
