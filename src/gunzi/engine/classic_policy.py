"""The classic 升级 trick rules a rule set chooses ([I-20]..[I-27]), as one small value.

The trick functions of :mod:`gunzi.engine.classic_tricks` take a :class:`Policy` instead of
a whole :class:`~gunzi.engine.rules.Ruleset` so they stay pure functions of cards; the
default policy is docs/rules.md Part B's default reading, so callers that pass none play it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gunzi.engine.rules import Ruleset


@dataclass(frozen=True, slots=True)
class Policy:
    """Which variant of each classic trick rule applies (names as the rule options)."""

    tractor_min: int = 2  # [I-23] fewest units in a tractor
    triple_tractors: bool = True  # [I-24] consecutive triples chain
    break_longer: bool = True  # [I-25] a longer held tractor supplies a shorter one
    short_tractor: str = "tractor"  # [I-26] 'tractor' | 'pairs'
    protect_longer: bool = False  # [I-27] a held triple is not drawn for pairs
    format_draw: bool = True  # [I-27] False ('no-format'): following asks only the suit class
    trump_structure: str = "same"  # [I-20] 'same' | 'cover' | 'cover-triples'
    throw_compare: str = "highest-unit"  # [I-21] 'highest-unit' | 'every-unit' | 'highest-card'


DEFAULT = Policy()


@cache
def policy_of(rules: Ruleset) -> Policy:
    """The trick policy of a classic rule set (打滚子 rule sets keep the defaults)."""
    return Policy(
        tractor_min=rules.tractor_min_length,
        triple_tractors=rules.triple_tractors,
        break_longer=rules.break_longer_tractor,
        short_tractor=rules.short_tractor_follow,
        protect_longer=rules.draw_protection == "longer-tuples",
        format_draw=rules.draw_protection != "no-format",
        trump_structure=rules.trump_structure,
        throw_compare=rules.throw_compare,
    )
