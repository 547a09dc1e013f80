"""End of a hand: apply the level changes and decide what comes next.

Turns a finished hand's tricks and kitty into the result record (the
``hand_end`` event), moving the match's levels, scores, dealer and blood.
The arithmetic of each table lives in :mod:`gunzi.engine.scoring`.
"""

from __future__ import annotations

from typing import Any

from gunzi.engine import cards as C
from gunzi.engine import classic_tricks as CT
from gunzi.engine import scoring
from gunzi.engine.cards import BJ, LJ
from gunzi.engine.classic_policy import policy_of
from gunzi.engine.state import MatchState

# The fields of a hand's result that name its final kitty (the buried cards): the secret
# part of its ``hand_end`` event, withheld while the hand is sealed (MatchState.sealed).
RESULT_SECRETS = ("kitty", "kitty_points", "kitty_jokers")


def public_result(result: dict[str, Any]) -> dict[str, Any]:
    """``result`` without the fields that name its kitty (:data:`RESULT_SECRETS`)."""
    return {k: v for k, v in result.items() if k not in RESULT_SECRETS}


def team_of(seat: int) -> int:
    return seat % 2


def score_gunzi(m: MatchState) -> dict[str, Any]:
    """Close a 打滚子 hand: A8 levels, A3 passing 10, A10 round end, A11 blood, A12 scores."""
    rules = m.rules
    assert m.dealer is not None
    dealer = m.dealer
    dteam = team_of(dealer)
    ateam = 1 - dteam
    kou = team_of(m.last_trick_winner) == ateam
    kitty_pts = C.points_of(m.kitty)
    score = m.points[ateam] + (2 * kitty_pts if kou else 0)
    bj = m.kitty.count(BJ)
    lj = m.kitty.count(LJ)
    joker_levels = 0 if m.dry_pot else 2 * bj + lj
    out = scoring.gunzi_outcome(score, kou, joker_levels)
    before = list(m.levels)
    top = rules.last_level
    round_winner: int | None = None
    round_reason = ""
    gained = [0, 0]
    if out.upgrading_team_is_attackers is not None:
        team = ateam if out.upgrading_team_is_attackers else dteam
        if team == dteam and m.levels[dteam] == top:
            round_winner, round_reason = dteam, "passed-10"
        elif team == ateam and m.levels[ateam] == top and rules.attackers_pass_ten:
            round_winner, round_reason = ateam, "passed-10"
        new = min(m.levels[team] + out.levels, top)
        gained[team] = new - m.levels[team]
        m.levels[team] = new
    trick_score = m.points[ateam]
    end_score = score if rules.round_end_score == "with-kitty" else trick_score
    if round_winner is None:
        if score == 0:
            round_winner, round_reason = dteam, "attackers-scored-0"
        elif end_score >= 300:
            round_winner, round_reason = ateam, "attackers-scored-300"
        elif bj == 3:  # A10 applies to a 干锅 kitty too; A6.2 only voids levels and blood
            if kou and score >= 120:
                round_winner, round_reason = ateam, "three-bj-in-kitty"
            elif not kou and score < 120 and rules.three_bj_dealer_wins:
                round_winner, round_reason = dteam, "three-bj-in-kitty"
    # A12 per-hand scores.
    hand_scores = [0, 0, 0, 0]
    if out.upgrading_team_is_attackers is not None:
        team = ateam if out.upgrading_team_is_attackers else dteam
        lv = out.levels if rules.score_levels_before_cap else gained[team]
        for s in range(4):
            hand_scores[s] += 3 * lv if team_of(s) == team else -3 * lv
    if out.attackers_take:
        for s in range(4):
            hand_scores[s] += 1 if team_of(s) == ateam else -1
    if m.tribute_cards:
        k = len(m.tribute_cards)
        for s in range(4):
            hand_scores[s] += k if team_of(s) == team_of(m.payee) else -k
    for s in range(4):
        m.scores[s] += hand_scores[s]
    joker_blood = 0 if m.dry_pot else 2 * bj + lj
    next_blood = scoring.blood(score, kou, joker_blood, rules)
    if out.attackers_take:
        next_dealer = (dealer + 1) % 4
    else:
        next_dealer = dealer if rules.keep_deal == "same-player" else (dealer + 2) % 4
    result: dict[str, Any] = {
        "hand": m.hand_no,
        "round": m.round_no,
        "dealer": dealer,
        "attackers": ateam,
        "trump": C.SUITS[m.trump],
        "level": m.level,
        "trick_points": trick_score,
        "kitty": C.names(m.kitty),
        "kitty_points": kitty_pts,
        "kou": kou,
        "score": score,
        "dry_pot": m.dry_pot,
        "kitty_jokers": {"BJ": bj, "LJ": lj},
        "attackers_take": out.attackers_take,
        "levels_awarded": out.levels,
        "levels_before": before,
        "levels_after": list(m.levels),
        "tribute": {"kind": m.tribute_kind, "n": len(m.tribute_cards),
                    "from": m.payer, "to": m.payee},
        "hand_scores": hand_scores,
        "blood_next": next_blood,
        "round_end": round_reason or None,
        "round_winner": round_winner,
    }
    if round_winner is not None:
        m.finish_round(round_winner)
        result["next_dealer"] = None
        m.blood_next = next_blood
    else:
        m.first = False
        m.dealer = next_dealer
        m.blood_next = next_blood
        result["next_dealer"] = next_dealer
    return result

def score_classic(m: MatchState) -> dict[str, Any]:
    """Close a classic hand: Part B level table, kitty multiplier, passing A, Part C points."""
    rules = m.rules
    assert m.dealer is not None
    dealer = m.dealer
    dteam = team_of(dealer)
    ateam = 1 - dteam
    kou = team_of(m.last_trick_winner) == ateam
    kitty_pts = C.points_of(m.kitty)
    mult = 0
    if kou:
        shape = CT.decompose(m.last_winning_play, m.order, policy_of(rules))
        mult = CT.kitty_multiplier(shape, rules.kitty_multiplier)
    score = m.points[ateam] + kitty_pts * mult
    shift = 0
    if rules.throw_penalty_points:  # [I-28]; the score never drops below 0
        shift = scoring.throw_penalty_shift(
            m.hand_failed_throws, dteam, rules.throw_penalty_points)
        score = max(0, score + shift)
    take, levels = scoring.classic_outcome(score, rules.decks)
    before = list(m.levels)
    top = rules.last_level
    team = ateam if take else dteam
    game_over = False
    if levels:
        new = scoring.classic_climb(m.levels[team], levels, team == dteam, rules.must_defend,
                                    top)
        m.gained[team] += new - m.levels[team]
        m.levels[team] = new
        game_over = new > top
    next_dealer = (dealer + 1) % 4 if take else (
        dealer if rules.keep_deal == "same-player" else (dealer + 2) % 4
    )
    result: dict[str, Any] = {
        "hand": m.hand_no,
        "round": m.round_no,
        "dealer": dealer,
        "attackers": ateam,
        "trump": C.SUITS[m.trump] if m.trump >= 0 else None,
        "level": m.level,
        "trick_points": m.points[ateam],
        "kitty": C.names(m.kitty),
        "kitty_points": kitty_pts,
        "kou": kou,
        "kitty_multiplier": mult,
        "score": score,
        "attackers_take": take,
        "levels_awarded": levels,
        "levels_before": before,
        "levels_after": list(m.levels),
        "failed_throws": list(m.hand_failed_throws),
        "round_end": "passed-A" if game_over else None,
        "round_winner": team if game_over else None,
    }
    if rules.throw_penalty_points:
        result["throw_penalty_points"] = shift
    if game_over:
        final = (m.levels[0], m.levels[1])
        gained = (m.gained[0], m.gained[1])
        result["game_points"] = [
            scoring.classic_game_points(gained, final, team_of(s))
            - (m.failed_throws[s] if rules.throw_penalty == "ladder" else 0)
            for s in range(4)
        ]
        m.failed_throws = [0, 0, 0, 0]
        m.finish_round(team)
        result["next_dealer"] = None
    else:
        m.first = False
        m.dealer = next_dealer
        result["next_dealer"] = next_dealer
    return result
