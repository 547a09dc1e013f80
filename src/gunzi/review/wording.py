"""The words of a review, in English and Chinese: one template per kind of remark."""

from __future__ import annotations

from typing import Any

from gunzi.engine import cards as C

TEXTS: dict[str, dict[str, str]] = {
    "en": {
        "gave": "trick {n}: gave {points} points (played {cards} into a trick the opponents won)",
        "better": "trick {n}: played {cards}; the search bot rates {best} {loss} levels better",
        "kou_theirs": "抠底: the attackers took the kitty ×{mult} ({points} points in it)",
        "kou_ours": "抠底: your team took the kitty ×{mult} ({points} points in it)",
        "up_ours": "hand end: your team went up {n} level(s) ({before} → {after})",
        "up_theirs": "hand end: the opponents went up {n} level(s) ({before} → {after})",
        "play_best": "trick {n}: played {cards}, the search bot's choice too",
        "play_ok": "trick {n}: played {cards}; best {best} (−{loss} levels)",
        "play_forced": "trick {n}: played {cards} (the only legal play)",
        "play_unrated": "trick {n}: played {cards}",
        "declare": "declared {cards}",
        "tribute": "gave tribute {cards}",
        "return": "returned {cards}",
        "bury": "buried {cards}",
        "bury_jokers": "buried jokers {cards}",
        "none": "nothing",
    },
    "zh": {
        "gave": "第 {n} 墩：送分 {points}（{cards} 垫进了对方赢的一墩）",
        "better": "第 {n} 墩：出了 {cards}；搜索机器人认为 {best} 好 {loss} 级",
        "kou_theirs": "抠底：抓分方抠底 ×{mult}（底牌 {points} 分）",
        "kou_ours": "抠底：我方抠底 ×{mult}（底牌 {points} 分）",
        "up_ours": "本局结束：我方升 {n} 级（{before} → {after}）",
        "up_theirs": "本局结束：对方升 {n} 级（{before} → {after}）",
        "play_best": "第 {n} 墩：出 {cards}，与搜索机器人的选择相同",
        "play_ok": "第 {n} 墩：出 {cards}；最佳 {best}（−{loss} 级）",
        "play_forced": "第 {n} 墩：出 {cards}（唯一合法的出法）",
        "play_unrated": "第 {n} 墩：出 {cards}",
        "declare": "亮主 {cards}",
        "tribute": "进贡 {cards}",
        "return": "还贡 {cards}",
        "bury": "扣底 {cards}",
        "bury_jokers": "扣王 {cards}",
        "none": "无",
    },
}


def _level(index: int) -> str:
    return C.RANKS[index] if index < 13 else "A+"


class Words:
    """Review sentences in one language (``en`` or ``zh``; anything else is English)."""

    def __init__(self, lang: str) -> None:
        self.lang = lang if lang in TEXTS else "en"
        self.texts = TEXTS[self.lang]

    def cards(self, names: list[str]) -> str:
        if not names:
            return self.texts["none"]
        if self.lang == "zh":
            return " ".join(C.chinese(c) for c in C.parse_many(names))
        return " ".join(names)

    def _say(self, key: str, **params: Any) -> str:
        return self.texts[key].format(**params)

    def gave(self, n: int, points: int, cards: list[str]) -> str:
        return self._say("gave", n=n, points=points, cards=self.cards(cards))

    def better(self, n: int, cards: list[str], best: list[str], loss: float) -> str:
        return self._say("better", n=n, cards=self.cards(cards), best=self.cards(best),
                         loss=f"{loss:.2f}")

    def kou(self, ours: bool, mult: int, points: int) -> str:
        return self._say("kou_ours" if ours else "kou_theirs", mult=mult, points=points)

    def levels(self, ours: bool, before: int, after: int) -> str:
        return self._say("up_ours" if ours else "up_theirs", n=after - before,
                         before=_level(before), after=_level(after))

    def decision(self, d: dict[str, Any]) -> str:
        cards = self.cards(d["chosen"])
        if d["kind"] != "play":
            return self._say(d["kind"], cards=cards)
        n = d["trick"]
        if d["rated"]:
            if d["loss"] <= 1e-9:
                return self._say("play_best", n=n, cards=cards)
            return self._say("play_ok", n=n, cards=cards, best=self.cards(d["best"]),
                             loss=f"{d['loss']:.2f}")
        return self._say("play_forced" if d.get("forced") else "play_unrated", n=n, cards=cards)
