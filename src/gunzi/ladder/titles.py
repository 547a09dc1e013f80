"""The hall's 25 titles by ladder total (docs/rules.md Part C): threshold 50·k² for the k-th.

The seed's table stops at 院士 (26450); [I-13] continues the 50·k² rule to
诺贝尔 at 28800, and that threshold is an option so a hall can change it.
"""

from __future__ import annotations

from dataclasses import dataclass

from gunzi.engine.errors import InvalidRulesError
from gunzi.engine.options import Option

NAMES = (
    "幼小班", "幼中班", "幼大班", "学前班", "一年级", "二年级", "三年级", "四年级", "五年级",
    "六年级", "初一", "初二", "初三", "高一", "高二", "高三", "大一", "大二", "大三", "大四",
    "研究生", "博士", "博士后", "院士", "诺贝尔",
)

OPTIONS = {
    "nobel_threshold": Option(
        "nobel_threshold", (28800,), "C [I-13]",
        "Ladder total for 诺贝尔, the 25th title (the seed stops at 院士; 50·24² = 28800).",
    ),
}


@dataclass(frozen=True)
class LadderRules:
    nobel_threshold: int = 28800

    def __post_init__(self) -> None:
        if self.nobel_threshold <= 50 * 23**2:
            raise InvalidRulesError(
                f"nobel_threshold must be above 院士's {50 * 23**2}, not {self.nobel_threshold}"
            )


def titles(rules: LadderRules | None = None) -> list[tuple[str, int]]:
    """(name, threshold) for every title, lowest first."""
    rules = rules or LadderRules()
    out = [(name, 50 * k * k) for k, name in enumerate(NAMES[:-1])]
    out.append((NAMES[-1], rules.nobel_threshold))
    return out


def title_for(total: int, rules: LadderRules | None = None) -> str:
    """The title of a ladder total; a total below 0 shows 幼小班."""
    best = NAMES[0]
    for name, threshold in titles(rules):
        if total >= threshold:
            best = name
    return best
