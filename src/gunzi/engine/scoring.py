"""End-of-hand arithmetic: level changes, blood, per-hand scores (A8–A12, Part B, Part C).

Pure functions of a few numbers, so each table in docs/rules.md is testable on its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gunzi.engine.rules import Ruleset


def _tens(x: int, mode: str) -> int:
    return -(-x // 10) if mode == "ceil" else x // 10


@dataclass(frozen=True, slots=True)
class GunziOutcome:
    """Who keeps or takes the deal and how many levels the A8 table awards."""

    attackers_take: bool  # 上台
    upgrading_team_is_attackers: bool | None  # None: nobody upgrades
    levels: int  # levels awarded by A8, kitty jokers included, before the cap


def gunzi_outcome(score: int, kou: bool, kitty_joker_levels: int) -> GunziOutcome:
    """The A8 table: both conditions needed to upgrade; kitty jokers add to an upgrade only."""
    if kou and score >= 120:
        return GunziOutcome(True, True, 1 + kitty_joker_levels)
    if kou:
        return GunziOutcome(False, None, 0)
    if score < 120:
        return GunziOutcome(False, False, 1 + kitty_joker_levels)
    return GunziOutcome(True, None, 0)


def blood(score: int, kou: bool, joker_blood: int, rules: Ruleset) -> int:
    """Tribute cards for the next hand (A11), rule one or two, [I-10] and [I-11]."""
    j = joker_blood
    if rules.tribute_rule == "two":
        if score < 80:
            return _tens(80 - score, rules.blood_tens) + j
        if score <= 150:
            return j
        return _tens(score - 150, rules.blood_tens) + j
    if score < 80:
        add = j if (not kou or rules.low_score_kitty_blood == "always") else 0
        return _tens(80 - score, rules.blood_tens) + add
    if score < 120:
        return 0
    if score <= 150:
        return j if kou else 0
    return _tens(score - 150, rules.blood_tens) + (j if kou else 0)


def classic_unit(decks: int) -> int:
    """Width of one step of the classic level table: 20, 40 or 60 points."""
    return 20 * decks


def classic_outcome(score: int, decks: int) -> tuple[bool, int]:
    """(attackers take the deal, levels gained by the side that gains) for Part B's table."""
    u = classic_unit(decks)
    if score <= 0:
        return False, 3
    if score < u:
        return False, 2
    if score < 2 * u:
        return False, 1
    if score < 3 * u:
        return True, 0
    return True, (score - 2 * u) // u


def classic_game_points(gained: tuple[int, int], final: tuple[int, int], team: int) -> int:
    """Part C ladder points of one team for a finished classic game (failed throws aside)."""
    other = 1 - team
    return gained[team] + 2 * (final[team] - final[other])


# [I-29] must_defend: the levels (rank indices) a gain stops on; "none" stops nowhere.
_STOPS = {"A": (12,), "none": (), "5-10-K-A": (3, 8, 11, 12), "5-10-K": (3, 8, 11)}


def classic_climb(level: int, gain: int, as_dealer: bool, must_defend: str,
                  top: int = 12) -> int:
    """A team's level after gaining ``gain`` levels ([I-29]); ``top + 1`` means passed A.

    A gain stops on each must-defend level it reaches; a team standing on one climbs from
    it only as the dealer team (it must win a hand there). With the default 'A' this is
    Part B: the dealer team at A passes A, any other gain stops at A.
    """
    stops = _STOPS[must_defend]
    cur = level
    for _ in range(gain):
        if cur in stops and not (as_dealer and cur == level):
            break
        cur += 1
        if cur > top:
            break
    return cur


def throw_penalty_shift(failed: Sequence[int], dealer_team: int, points: int) -> int:
    """[I-28] 'points': what failed throws add to the attackers' score (negative: take).

    Each failed throw moves ``points`` card points to the thrower's opponents: a dealer-team
    thrower gives them to the attackers, an attacker's throw takes them off the attackers.
    """
    shift = 0
    for seat, n in enumerate(failed):
        shift += n * points * (1 if seat % 2 == dealer_team else -1)
    return shift
