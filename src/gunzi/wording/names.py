"""Cards and seats as a player names them: ``A♣``, ``大王``; 你, 下家, 对家, 上家 (seats counted
from the player's own)."""

from __future__ import annotations

from collections.abc import Sequence

from gunzi.engine import cards as C

SEATS = {"zh": ("你", "下家", "对家", "上家"), "en": ("You", "East", "North", "West")}


def card_label(card: int, lang: str) -> str:
    if card >= C.LJ:
        if lang == "zh":
            return "大王" if card == C.BJ else "小王"
        return C.NAMES[card]
    return C.unicode(card)


def cards_plain(cards: Sequence[int | str], lang: str) -> str:
    """Cards (ids or record text) as plain text, e.g. ``A♣ 大王``."""
    return " ".join(card_label(C.parse(c) if isinstance(c, str) else c, lang) for c in cards)
