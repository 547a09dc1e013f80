"""docs/rules.md A3, A8–A12 (打滚子 end of hand): levels, 逢10必打, next dealer, round end,
blood, per-hand scores.

The tables are tested on ``scoring.py`` directly; whole hands are then played
through :class:`Match` (stacked "sweep" deals whose outcome is forced, and
seeded random hands) and every ``hand_end`` result is compared with an
independent reading of the rules written in this file.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

import pytest

from gunzi.engine import actions as A
from gunzi.engine import scoring
from gunzi.engine.actions import Action
from gunzi.engine.cards import BJ, LJ, NUM_TYPES, POINTS, counts, deck, names, parse_many
from gunzi.engine.events import thaw
from gunzi.engine.match import Match, Phase
from gunzi.engine.order import TRUMP, order_for
from gunzi.engine.rules import Ruleset, preset
from gunzi.engine.stacking import stacked_deck
from helpers import passer

H = 1
L3, L9, L10 = 1, 7, 8  # level rank indices: 3, 9, 10
Policy = Callable[[Match, int], Action]


def cs(text: str) -> list[int]:
    return parse_many(text)


# ============================================================================================
# A8 table (scoring.gunzi_outcome)


class TestA8Table:
    @pytest.mark.parametrize("score", [120, 125, 150, 200, 300, 330])
    def test_A8_kou_and_120_attackers_take_plus_one(self, score: int) -> None:
        out = scoring.gunzi_outcome(score, True, 0)
        assert out.attackers_take is True
        assert out.upgrading_team_is_attackers is True
        assert out.levels == 1

    @pytest.mark.parametrize("score", [0, 5, 60, 115])
    def test_A8_kou_below_120_dealer_keeps_plus_zero(self, score: int) -> None:
        out = scoring.gunzi_outcome(score, True, 0)
        assert out.attackers_take is False
        assert out.upgrading_team_is_attackers is None
        assert out.levels == 0

    @pytest.mark.parametrize("score", [0, 5, 80, 115])
    def test_A8_baodi_below_120_dealer_plus_one(self, score: int) -> None:
        out = scoring.gunzi_outcome(score, False, 0)
        assert out.attackers_take is False
        assert out.upgrading_team_is_attackers is False
        assert out.levels == 1

    @pytest.mark.parametrize("score", [120, 150, 200, 295])
    def test_A8_baodi_120_attackers_take_plus_zero(self, score: int) -> None:
        out = scoring.gunzi_outcome(score, False, 0)
        assert out.attackers_take is True
        assert out.upgrading_team_is_attackers is None
        assert out.levels == 0

    @pytest.mark.parametrize("j", [1, 2, 3, 5, 9])
    def test_A8_kitty_jokers_add_to_an_upgrade_only(self, j: int) -> None:
        assert scoring.gunzi_outcome(130, True, j).levels == 1 + j
        assert scoring.gunzi_outcome(100, False, j).levels == 1 + j
        assert scoring.gunzi_outcome(100, True, j).levels == 0
        assert scoring.gunzi_outcome(130, False, j).levels == 0


# ============================================================================================
# A11 blood (scoring.blood)


def spec_blood(s: int, kou: bool, j: int, rules: Ruleset) -> int:
    def tens(x: int) -> int:
        return math.ceil(x / 10) if rules.blood_tens == "ceil" else x // 10

    if rules.tribute_rule == "two":
        if s < 80:
            return tens(80 - s) + j
        if s <= 150:
            return j
        return tens(s - 150) + j
    if s < 80:
        held = not kou
        return tens(80 - s) + (j if held or rules.low_score_kitty_blood == "always" else 0)
    if s <= 115:
        return 0
    if s <= 150:
        return j if kou else 0
    return tens(s - 150) + (j if kou else 0)


R1 = preset("gunzi")
R1_FLOOR = preset("gunzi", blood_tens="floor")
R1_ALWAYS = preset("gunzi", low_score_kitty_blood="always")
R2 = preset("gunzi", tribute_rule="two")
R2_FLOOR = preset("gunzi", tribute_rule="two", blood_tens="floor")


class TestA11Blood:
    @pytest.mark.parametrize(
        ("score", "n"),
        [(0, 8), (5, 8), (10, 7), (70, 1), (75, 1), (65, 2), (40, 4),
         (80, 0), (100, 0), (115, 0), (120, 0), (150, 0),
         (155, 1), (160, 1), (165, 2), (200, 5), (300, 15), (330, 18)],
    )
    def test_A11_rule_one_ceil_no_jokers(self, score: int, n: int) -> None:
        for kou in (False, True):
            assert scoring.blood(score, kou, 0, R1) == n

    def test_A11_I10_examples_from_the_rules(self) -> None:
        assert scoring.blood(75, False, 0, R1) == 1
        assert scoring.blood(0, False, 0, R1) == 8
        assert scoring.blood(155, True, 0, R1) == 1
        assert scoring.blood(300, True, 0, R1) == 15

    @pytest.mark.parametrize(
        ("score", "n"),
        [(0, 8), (5, 7), (75, 0), (70, 1), (65, 1), (155, 0), (160, 1), (165, 1), (300, 15)],
    )
    def test_A11_I10_floor_counts_whole_tens(self, score: int, n: int) -> None:
        assert scoring.blood(score, False, 0, R1_FLOOR) == n
        assert scoring.blood(score, False, 0, R2_FLOOR) == n

    def test_A11_rule_one_jokers(self) -> None:
        # s < 80: +J only if the dealer team 保底 [I-11]
        assert scoring.blood(50, False, 3, R1) == 3 + 3
        assert scoring.blood(50, True, 3, R1) == 3
        # 80..115: kitty jokers are not blood
        assert scoring.blood(80, False, 3, R1) == 0
        assert scoring.blood(115, True, 3, R1) == 0
        # 120..150: J if 抠底, else 0
        assert scoring.blood(120, True, 3, R1) == 3
        assert scoring.blood(150, True, 2, R1) == 2
        assert scoring.blood(120, False, 3, R1) == 0
        assert scoring.blood(150, False, 3, R1) == 0
        # > 150: tens + J if 抠底
        assert scoring.blood(175, True, 2, R1) == 3 + 2
        assert scoring.blood(175, False, 2, R1) == 3

    def test_A11_I11_always_adds_low_score_kitty_blood(self) -> None:
        assert scoring.blood(50, True, 3, R1_ALWAYS) == 6
        assert scoring.blood(50, False, 3, R1_ALWAYS) == 6
        assert scoring.blood(100, True, 3, R1_ALWAYS) == 0

    @pytest.mark.parametrize(
        ("score", "kou", "j", "n"),
        [(0, False, 0, 8), (0, True, 2, 10), (75, True, 1, 2), (75, False, 1, 2),
         (80, False, 3, 3), (115, True, 3, 3), (80, True, 0, 0), (120, False, 2, 2),
         (150, True, 4, 4), (155, False, 1, 2), (300, True, 5, 20)],
    )
    def test_A11_rule_two(self, score: int, kou: bool, j: int, n: int) -> None:
        assert scoring.blood(score, kou, j, R2) == n

    @pytest.mark.parametrize("rules", [R1, R1_FLOOR, R1_ALWAYS, R2, R2_FLOOR])
    def test_A11_blood_matches_the_tables_everywhere(self, rules: Ruleset) -> None:
        for score in range(0, 400, 5):
            for kou in (False, True):
                for j in (0, 1, 2, 3, 6, 9):
                    assert scoring.blood(score, kou, j, rules) == spec_blood(score, kou, j, rules)


# ============================================================================================
# An independent reading of A8–A12 for whole hands


def pts(cards: list[int]) -> int:
    return sum(POINTS[c] for c in cards)


def spec_hand(rules: Ruleset, info: dict[str, Any]) -> dict[str, Any]:
    """What A8–A12 say about a finished hand, from its tricks and final kitty."""
    dealer = info["dealer"]
    dteam, ateam = dealer % 2, 1 - dealer % 2
    tricks = info["tricks"]
    kitty = info["kitty"]
    won = [0, 0]
    for tr in tricks:
        won[tr["winner"] % 2] += pts([c for p in tr["plays"] for c in p])
    kou = tricks[-1]["winner"] % 2 == ateam
    score = won[ateam] + (2 * pts(kitty) if kou else 0)
    dry = info["dry_pot"]
    bj, lj = kitty.count(BJ), kitty.count(LJ)
    j = 0 if dry else 2 * bj + lj
    levels = list(info["levels"])
    top = 8
    take = score >= 120
    upgrading = None
    award = 0
    if kou and score >= 120:
        upgrading, award = ateam, 1 + j
    elif not kou and score < 120:
        upgrading, award = dteam, 1 + j
    gained = 0
    winner = None
    if upgrading is not None:
        if upgrading == dteam and levels[dteam] == top:
            winner = dteam
        if upgrading == ateam and levels[ateam] == top and rules.attackers_pass_ten:
            winner = ateam
        new = min(levels[upgrading] + award, top)
        gained = new - levels[upgrading]
        levels[upgrading] = new
    end_score = score if rules.round_end_score == "with-kitty" else won[ateam]
    if winner is None:
        if score == 0:
            winner = dteam
        elif end_score >= 300:
            winner = ateam
        elif bj == 3:  # A10 names no exception for a 干锅 kitty (docs/engine.md)
            if kou and score >= 120:
                winner = ateam
            elif not kou and score < 120 and rules.three_bj_dealer_wins:
                winner = dteam
    hand_scores = [0, 0, 0, 0]
    if upgrading is not None:
        lv = award if rules.score_levels_before_cap else gained
        for s in range(4):
            hand_scores[s] += 3 * lv if s % 2 == upgrading else -3 * lv
    if take:
        for s in range(4):
            hand_scores[s] += 1 if s % 2 == ateam else -1
    k = info["tribute_n"]
    if k:
        receiver = info["payee"] % 2
        for s in range(4):
            hand_scores[s] += k if s % 2 == receiver else -k
    if winner is not None:
        next_dealer = None
    elif take:
        next_dealer = (dealer + 1) % 4
    else:
        next_dealer = dealer if rules.keep_deal == "same-player" else (dealer + 2) % 4
    return {
        "kou": kou,
        "score": score,
        "trick_points": won[ateam],
        "kitty_points": pts(kitty),
        "attackers_take": take,
        "levels_awarded": award,
        "levels_after": levels,
        "round_winner": winner,
        "next_dealer": next_dealer,
        "hand_scores": hand_scores,
        "blood_next": spec_blood(score, kou, j, rules),
    }


def check_hand(m: Match, info: dict[str, Any], result: dict[str, Any]) -> dict[str, Any]:
    want = spec_hand(m.rules, info)
    got = {k: result[k] for k in want}
    assert got == want, (info["dealer"], info["levels"], names(info["kitty"]))
    assert result["dealer"] == info["dealer"]
    assert result["levels_before"] == info["levels"]
    if want["round_winner"] is not None:
        assert m.levels == [L3, L3]  # both teams back to 3
        assert m.first  # the next hand is a first hand (joker grab)
        assert m.dealer is None
    else:
        assert m.levels == want["levels_after"]
        assert not m.first
        assert m.dealer == want["next_dealer"]
        assert m.blood_next == want["blood_next"]
    return want


def to_play(m: Match, policy: Policy) -> dict[str, Any]:
    while m.phase is not Phase.PLAY:
        m.apply(policy(m, m.to_act))
    assert m.dealer is not None
    assert m.level == m.levels[m.dealer % 2]  # A3: played at the dealer team's level
    return {
        "dealer": m.dealer,
        "levels": list(m.levels),
        "level": m.level,
        "dry_pot": m.dry_pot,
        "tribute_n": len(m.tribute_cards),
        "payee": m.payee,
        "first": m.first,
    }


def finish(m: Match, policy: Policy, info: dict[str, Any]) -> dict[str, Any]:
    n = len(m.results)
    while len(m.results) == n:
        m.apply(policy(m, m.to_act))
    info["tricks"] = list(m.tricks)
    info["kitty"] = list(m.kitty)
    return m.results[-1]


def play_hand(m: Match, policy: Policy, seed: int, deck_: list[int] | None = None
              ) -> tuple[dict[str, Any], dict[str, Any]]:
    m.apply(A.deal(seed, deck_))
    info = to_play(m, policy)
    result = finish(m, policy, info)
    return info, result


def random_pol(seed: int) -> Policy:
    rng = random.Random(seed)

    def policy(m: Match, seat: int) -> Action:
        return m.legal_actions(seat).sample(rng)

    return policy


def quiet_pol(seed: int, bury: list[int] | None = None, strong_leads: bool = False) -> Policy:
    """Pass every declaration and joker burial, bury ``bury`` (or at random), play at random
    (with ``strong_leads``, a leader leads its strongest single card)."""
    rng = random.Random(seed)

    def policy(m: Match, seat: int) -> Action:
        if m.phase is Phase.DRAW or m.phase is Phase.BURY_JOKERS:
            return A.pass_(seat)
        if m.phase is Phase.BURY and bury is not None:
            return A.bury(seat, bury)
        if m.phase is Phase.PLAY and strong_leads and not m.trick:
            held = [c for c in range(NUM_TYPES) if m.hands[seat][c]]
            best = max(held, key=lambda c: (m.order.cls[c] == TRUMP, m.order.power[c]))
            return A.play(seat, [best])
        return m.legal_actions(seat).sample(rng)

    return policy


# ============================================================================================
# Sweep deals: one seat holds the 39 strongest trumps, so its team wins every trick.


def sweep_deck(
    rules: Ruleset, level: int, dealer: int, attackers_sweep: bool,
    dealer_extra: str = "", seed: int = 0,
) -> tuple[list[int], list[int]]:
    """(deck, kitty) for a later hand at ``level`` dealt from ``dealer``, hearts trump.

    The kitty is six low hearts (the random kitty card names hearts). The strong seat
    (the dealer, or its 下家 if ``attackers_sweep``) gets the 39 strongest trumps left after
    ``dealer_extra`` (cards handed to the dealer), its partner the next trumps and side
    cards, the other team side cards only.
    """
    order = order_for(level, H, True)
    pool = counts(deck(3))
    plain_hearts = sorted(
        (c for c in range(13, 26)
         if order.cls[c] == TRUMP and c % 13 not in (0, level) and not POINTS[c]),
        key=lambda c: order.power[c],
    )
    kitty = [plain_hearts[0]] * 3 + [plain_hearts[1]] * 3
    extra = cs(dealer_extra)
    for c in kitty + extra:
        pool[c] -= 1
    trumps = sorted(
        (c for c in range(NUM_TYPES) for _ in range(pool[c]) if order.cls[c] == TRUMP),
        key=lambda c: -order.power[c],
    )
    side = [c for c in range(NUM_TYPES) for _ in range(pool[c]) if order.cls[c] != TRUMP]
    random.Random(seed).shuffle(side)
    strong = (dealer + 1) % 4 if attackers_sweep else dealer
    partner = (strong + 2) % 4
    hands: dict[int, list[int]] = {s: [] for s in range(4)}
    hands[dealer] += extra
    hands[strong] += trumps[:39]
    hands[partner] += trumps[39:]
    weak = [(strong + 1) % 4, (strong + 3) % 4]
    for s in (*weak, partner):
        while len(hands[s]) < 39:
            hands[s].append(side.pop())
    assert not side
    return stacked_deck(rules, dealer, [hands[s] for s in range(4)], kitty), kitty


def sweep_match(
    rules: Ruleset, *, attackers_sweep: bool, levels: tuple[int, int] = (L3, L3),
    dealer: int = 0, dealer_extra: str = "", bury: str | None = None, blood: int = 0,
) -> tuple[Match, dict[str, Any], dict[str, Any]]:
    m = Match(rules, random.Random(0), auto_deal=False, levels=levels, dealer=dealer,
              blood=blood)
    level = levels[dealer % 2]
    deck_, kitty = sweep_deck(rules, level, dealer, attackers_sweep, dealer_extra)
    buried = cs(bury) if bury else kitty
    info, result = play_hand(m, quiet_pol(1, buried, strong_leads=True), 99, deck_)
    assert info["dry_pot"] is False and m.trump == H
    winners = {tr["winner"] for tr in info["tricks"]}
    assert winners == {(dealer + 1) % 4 if attackers_sweep else dealer}  # a real sweep
    return m, info, result


def grouped_pol(bury: list[int], first_size: int) -> Policy:
    """Bury ``bury``; the first lead is a group of ``first_size`` identical cards, later leads
    the leader's biggest group; a follower plays its strongest identical group if it may."""
    rng = random.Random(0)

    def policy(m: Match, seat: int) -> Action:
        if m.phase is Phase.DRAW or m.phase is Phase.BURY_JOKERS:
            return A.pass_(seat)
        if m.phase is Phase.BURY:
            return A.bury(seat, bury)
        hand = m.hands[seat]

        def key(c: int) -> tuple[bool, int]:
            return (m.order.cls[c] == TRUMP, m.order.power[c])

        if not m.trick:
            held = [c for c in range(NUM_TYPES) if hand[c]]
            if not m.tricks:
                best = max((c for c in held if hand[c] >= first_size), key=key)
                return A.play(seat, [best] * first_size)
            best = max(held, key=lambda c: (min(hand[c], 3), *key(c)))
            return A.play(seat, [best] * min(hand[best], 3))
        legal = list(m.legal_actions(seat))
        same = [a for a in legal if len(set(a.cards)) == 1]
        if same:
            return max(same, key=lambda a: key(a.cards[0]))
        return rng.choice(legal)

    return policy


# ============================================================================================
# Sweeps: forced extreme outcomes


class TestSweeps:
    def test_A10_round_ends_when_attackers_score_0(self) -> None:
        rules = preset("gunzi", rounds=2)
        m, info, r = sweep_match(rules, attackers_sweep=False)
        want = check_hand(m, info, r)
        assert r["score"] == 0 and r["kou"] is False
        assert r["round_winner"] == 0
        assert r["round_end"] == "attackers-scored-0"
        assert r["levels_after"] == [L3 + 1, L3]  # the dealer team's +1 is still recorded
        assert r["hand_scores"] == [3, -3, 3, -3]
        assert want["round_winner"] == 0
        assert m.round_winners == [0]
        # the next hand is a first hand of a new round, both teams at 3
        m.apply(A.deal(5))
        assert m.first and m.levels == [L3, L3] and m.round_no == 2
        deal_ev = next(e for e in reversed(m.events) if e.type == "deal")
        assert thaw(deal_ev.public)["first_hand"] is True
        assert thaw(deal_ev.public)["tribute"] == 0

    def test_A10_round_ends_when_attackers_score_300(self) -> None:
        rules = preset("gunzi", rounds=2)
        m, info, r = sweep_match(rules, attackers_sweep=True)
        check_hand(m, info, r)
        assert r["score"] == 300 and r["kou"] is True and r["kitty_points"] == 0
        assert r["round_winner"] == 1
        assert r["round_end"] == "attackers-scored-300"
        assert m.first and m.levels == [L3, L3]

    def test_A10_I19_past_300_with_kitty_doubling_ends_round(self) -> None:
        rules = preset("gunzi", rounds=2)
        m, info, r = sweep_match(rules, attackers_sweep=True, dealer_extra="5D 10D KD",
                                 bury="5D 10D KD 4H 4H 4H")
        check_hand(m, info, r)
        assert r["trick_points"] == 275 and r["kitty_points"] == 25
        assert r["score"] == 325
        assert r["round_winner"] == 1

    def test_A10_I19_tricks_only_option_does_not_count_the_kitty(self) -> None:
        rules = preset("gunzi", rounds=2, round_end_score="tricks-only")
        m, info, r = sweep_match(rules, attackers_sweep=True, dealer_extra="5D 10D KD",
                                 bury="5D 10D KD 4H 4H 4H")
        check_hand(m, info, r)
        assert r["trick_points"] == 275 and r["score"] == 325
        assert r["round_winner"] is None and r["round_end"] is None
        assert r["attackers_take"] is True
        assert m.levels == [L3, L3 + 1] and m.dealer == 1  # A9: old dealer's 下家

    def test_A8_kitty_jokers_extra_levels_for_upgrading_attackers(self) -> None:
        rules = preset("gunzi", round_end_score="tricks-only")
        m, info, r = sweep_match(rules, attackers_sweep=True, dealer_extra="BJ LJ 5D",
                                 bury="BJ LJ 5D 4H 4H 4H")
        check_hand(m, info, r)
        assert r["kitty_jokers"] == {"BJ": 1, "LJ": 1}
        assert r["levels_awarded"] == 1 + 2 + 1
        assert r["levels_after"] == [L3, L3 + 4]
        assert r["hand_scores"] == [-13, 13, -13, 13]  # 3 per level + 1 for 上台
        assert r["next_dealer"] == 1
        # blood: s = 295 + 10 > 150 -> ceil(155/10) + J(3) with 抠底
        assert r["score"] == 305 and r["blood_next"] == 16 + 3

    def test_A8_kitty_jokers_extra_levels_for_upgrading_dealer_team(self) -> None:
        rules = preset("gunzi", rounds=2)
        # the dealer holds all jokers; it buries two BJ (and keeps the third)
        m, info, r = sweep_match(rules, attackers_sweep=False, levels=(L3, 5),
                                 bury="BJ BJ 4H 4H 4H 6H")
        check_hand(m, info, r)
        assert r["levels_awarded"] == 1 + 4
        assert r["levels_after"] == [L3 + 5, 5]
        assert r["hand_scores"] == [15, -15, 15, -15]

    def test_A3_I16_gains_cap_at_10_scores_count_before_cap(self) -> None:
        rules = preset("gunzi", round_end_score="tricks-only")
        m, info, r = sweep_match(rules, attackers_sweep=True, levels=(L3, 6),
                                 dealer_extra="BJ 5D", bury="BJ 5D 4H 4H 4H 6H")
        check_hand(m, info, r)
        assert r["levels_awarded"] == 3
        assert r["levels_after"] == [L3, L10]  # 8 + 3 -> 10, never past 10
        assert r["round_winner"] is None
        assert r["hand_scores"] == [-10, 10, -10, 10]
        assert m.dealer == 1 and m.levels == [L3, L10]

    def test_A12_I16_option_counts_levels_after_the_cap(self) -> None:
        rules = preset("gunzi", round_end_score="tricks-only", score_levels_before_cap=False)
        m, info, r = sweep_match(rules, attackers_sweep=True, levels=(L3, 6),
                                 dealer_extra="BJ 5D", bury="BJ 5D 4H 4H 4H 6H")
        check_hand(m, info, r)
        assert r["levels_after"] == [L3, L10]
        assert r["hand_scores"] == [-7, 7, -7, 7]  # 2 levels really gained, +1 上台

    def test_A3_I1_attackers_at_10_take_deal_without_passing(self) -> None:
        rules = preset("gunzi", round_end_score="tricks-only", rounds=2)
        m, info, r = sweep_match(rules, attackers_sweep=True, levels=(L3, L10),
                                 dealer_extra="5D", bury="5D 4H 4H 4H 6H 6H")
        check_hand(m, info, r)
        assert r["attackers_take"] and r["kou"] and r["score"] >= 120
        assert r["round_winner"] is None
        assert r["levels_after"] == [L3, L10]
        assert m.dealer == 1 and not m.first
        m.apply(A.deal(3))
        assert m.level == L10 and m.dealer == 1  # they deal at 10 next hand

    def test_A3_I1_option_attackers_at_10_pass_at_once(self) -> None:
        rules = preset("gunzi", round_end_score="tricks-only", rounds=2,
                       attackers_pass_ten=True)
        m, info, r = sweep_match(rules, attackers_sweep=True, levels=(L3, L10),
                                 dealer_extra="5D", bury="5D 4H 4H 4H 6H 6H")
        check_hand(m, info, r)
        assert r["round_winner"] == 1 and r["round_end"] == "passed-10"
        assert m.first and m.levels == [L3, L3]

    def test_A3_dealer_team_at_10_meeting_condition_passes(self) -> None:
        rules = preset("gunzi", rounds=2)
        m, info, r = sweep_match(rules, attackers_sweep=False, levels=(L10, 5))
        check_hand(m, info, r)
        assert r["level"] == L10
        assert r["round_winner"] == 0
        assert r["round_end"] in ("passed-10", "attackers-scored-0")
        assert m.first and m.levels == [L3, L3]

    def test_A10_I9_three_bj_dealer_sweep(self) -> None:
        rules = preset("gunzi", rounds=2)
        m, info, r = sweep_match(rules, attackers_sweep=False, bury="BJ BJ BJ 4H 4H 4H")
        check_hand(m, info, r)
        assert r["kitty_jokers"]["BJ"] == 3
        assert r["levels_awarded"] == 7
        assert r["round_winner"] == 0

    def test_A10_three_bj_attackers_sweep(self) -> None:
        rules = preset("gunzi", rounds=2, round_end_score="tricks-only")
        m, info, r = sweep_match(rules, attackers_sweep=True, dealer_extra="BJ BJ BJ 5D",
                                 bury="BJ BJ BJ 5D 4H 4H")
        check_hand(m, info, r)
        assert r["round_winner"] == 1
        assert r["round_end"] == "three-bj-in-kitty"

    @pytest.mark.parametrize(("first_size", "last_size"), [(1, 2), (2, 1), (3, 3)])
    def test_A8_kou_doubles_kitty_once_whatever_the_number_of_cards(
        self, first_size: int, last_size: int
    ) -> None:
        rules = preset("gunzi", round_end_score="tricks-only")
        m = Match(rules, random.Random(0), auto_deal=False, levels=(L3, L3), dealer=0)
        deck_, _kitty = sweep_deck(rules, L3, 0, True, "9D 9D 9D 5D 10D KD")
        pol = grouped_pol(cs("5D 10D KD 4H 4H 4H"), first_size)
        info, r = play_hand(m, pol, 99, deck_)
        check_hand(m, info, r)
        last = info["tricks"][-1]
        assert last["winner"] == 1 and len(last["plays"][0]) == last_size
        assert r["kou"] and r["kitty_points"] == 25
        assert r["score"] == r["trick_points"] + 2 * 25 == 275 + 50

    def test_A12_hand_end_event_carries_the_result(self) -> None:
        m, _info, r = sweep_match(preset("gunzi", rounds=2), attackers_sweep=False)
        ev = next(e for e in reversed(m.events) if e.type == "hand_end")
        # The kitty's fields are the event's secret part (sealed in a duplicate first play).
        assert {**thaw(ev.public), **thaw(ev.secret or {})} == r
        assert "kitty" in (ev.secret or {}) and "kitty" not in ev.public


# ============================================================================================
# Random hands checked against the reading above


def search(
    rules: Ruleset, want: Callable[[dict[str, Any]], bool], *,
    levels: tuple[int, int] = (L3, L3), dealer: int = 0, dealer_cards: str = "",
    bury_first: str = "", blood: int = 0, tries: int = 300,
) -> tuple[Match, dict[str, Any], dict[str, Any]]:
    """Play seeded random later hands until ``want(result)``; check every hand on the way."""
    for seed in range(tries):
        m = Match(rules, random.Random(seed), auto_deal=False, levels=levels, dealer=dealer,
                  blood=blood)
        deck_ = None
        if dealer_cards:
            hands: list[list[int] | None] = [None] * 4
            hands[dealer] = cs(dealer_cards)
            deck_ = stacked_deck(rules, dealer, hands, None, random.Random(seed))
        pol = bury_pol(seed, cs(bury_first)) if bury_first else quiet_pol(seed)
        info, result = play_hand(m, pol, 10_000 + seed, deck_)
        check_hand(m, info, result)
        if want(result):
            return m, info, result
    raise AssertionError("no seed gave the wanted hand")


def bury_pol(seed: int, first: list[int]) -> Policy:
    """Bury ``first`` plus the dealer's lowest side cards; otherwise pass and play at random."""
    rng = random.Random(seed)

    def policy(m: Match, seat: int) -> Action:
        if m.phase is Phase.DRAW or m.phase is Phase.BURY_JOKERS:
            return A.pass_(seat)
        if m.phase is Phase.BURY:
            held = list(m.hands[seat])
            chosen = list(first)
            if LJ in chosen:  # 有大王必须先扣大王: every BJ goes in first
                chosen = [BJ] * held[BJ] + [c for c in chosen if c != BJ]
            for c in chosen:
                held[c] -= 1
            rest = sorted(
                (c for c in range(NUM_TYPES) for _ in range(held[c]) if c < LJ),
                key=lambda c: (m.order.cls[c] == TRUMP, m.order.power[c]),
            )
            return A.bury(seat, chosen + rest[: m.rules.kitty_size - len(chosen)])
        return m.legal_actions(seat).sample(rng)

    return policy


def mid(r: dict[str, Any]) -> bool:
    return 0 < r["score"] < 300


class TestRandomHands:
    def test_A8_baodi_kitty_points_do_not_count(self) -> None:
        _m, _info, r = search(preset("gunzi"), lambda r: not r["kou"] and r["kitty_points"] > 0,
                            dealer_cards="KS KS 10S", bury_first="KS KS 10S")
        assert r["score"] == r["trick_points"]

    def test_A8_kitty_jokers_count_nothing_when_dealer_keeps_after_kou(self) -> None:
        _m, _info, r = search(preset("gunzi"),
                            lambda r: r["kou"] and 0 < r["score"] < 120,
                            dealer_cards="BJ", bury_first="BJ")
        assert r["kitty_jokers"]["BJ"] >= 1
        assert r["levels_awarded"] == 0 and r["levels_after"] == [L3, L3]
        assert r["attackers_take"] is False and r["next_dealer"] == 0
        assert r["hand_scores"] == [0, 0, 0, 0]

    def test_A8_kitty_jokers_count_nothing_when_attackers_take_without_kou(self) -> None:
        _m, _info, r = search(preset("gunzi"),
                            lambda r: not r["kou"] and 120 <= r["score"] < 300,
                            dealer_cards="BJ LJ", bury_first="BJ LJ")
        assert r["levels_awarded"] == 0 and r["levels_after"] == [L3, L3]
        assert r["attackers_take"] is True and r["next_dealer"] == 1
        assert r["hand_scores"] == [-1, 1, -1, 1]

    def test_A8_baodi_upgrade_gets_kitty_joker_levels(self) -> None:
        _m, _info, r = search(preset("gunzi"),
                            lambda r: not r["kou"] and 0 < r["score"] < 120,
                            dealer_cards="BJ LJ", bury_first="BJ LJ")
        assert r["kitty_jokers"]["BJ"] >= 1 and r["kitty_jokers"]["LJ"] >= 1
        j = 2 * r["kitty_jokers"]["BJ"] + r["kitty_jokers"]["LJ"]
        assert r["levels_awarded"] == 1 + j
        assert r["levels_after"] == [min(L3 + 1 + j, L10), L3]

    def test_A3_dealer_team_below_10_caps_at_10_without_passing(self) -> None:
        m, _info, r = search(preset("gunzi"),
                            lambda r: not r["kou"] and 0 < r["score"] < 120,
                            levels=(L9, L3), dealer_cards="BJ", bury_first="BJ")
        assert r["levels_awarded"] >= 3
        assert r["levels_after"][0] == L10
        assert r["round_winner"] is None and m.levels[0] == L10 and m.dealer == 0

    def test_A3_pass_10_only_as_dealer_team_at_10_meeting_its_condition(self) -> None:
        rules = preset("gunzi", rounds=2)
        m, _info, r = search(rules, lambda r: not r["kou"] and 0 < r["score"] < 120,
                            levels=(L10, L3))
        assert r["round_winner"] == 0 and r["round_end"] == "passed-10"
        assert m.levels == [L3, L3] and m.first and m.round_no == 2
        m.apply(A.deal(1))
        assert m.first and m.levels == [L3, L3]

    def test_A3_dealer_team_at_10_without_condition_does_not_pass(self) -> None:
        m, _info, r = search(preset("gunzi"), lambda r: r["kou"] and 0 < r["score"] < 120,
                            levels=(L10, L3))
        assert r["round_winner"] is None
        assert m.levels == [L10, L3] and m.dealer == 0 and not m.first

    def test_A3_I1_attackers_at_10_take_deal_random_hand(self) -> None:
        m, _info, r = search(preset("gunzi"), lambda r: r["kou"] and 120 <= r["score"] < 300,
                            levels=(L3, L10))
        assert r["round_winner"] is None and r["attackers_take"]
        assert m.levels == [L3, L10] and m.dealer == 1

    def test_A9_I8_keep_deal_same_player(self) -> None:
        m, _info, r = search(preset("gunzi"), lambda r: mid(r) and not r["attackers_take"],
                            dealer=2)
        assert r["next_dealer"] == 2 and m.dealer == 2

    def test_A9_I8_keep_deal_partner_option(self) -> None:
        m, _info, r = search(preset("gunzi", keep_deal="partner"),
                            lambda r: mid(r) and not r["attackers_take"], dealer=2)
        assert r["next_dealer"] == 0 and m.dealer == 0

    @pytest.mark.parametrize("dealer", [0, 1, 2, 3])
    def test_A9_attackers_take_old_dealers_xiajia_deals(self, dealer: int) -> None:
        m, _info, r = search(preset("gunzi", keep_deal="partner"),
                            lambda r: mid(r) and r["attackers_take"], dealer=dealer)
        assert r["next_dealer"] == (dealer + 1) % 4 == m.dealer

    def test_A10_three_bj_kou_120_attackers_win_round(self) -> None:
        rules = preset("gunzi", rounds=2)
        m, _info, r = search(rules, lambda r: r["kou"] and 120 <= r["score"] < 300,
                            dealer_cards="BJ BJ BJ", bury_first="BJ BJ BJ")
        assert r["round_winner"] == 1 and r["round_end"] == "three-bj-in-kitty"
        assert m.first and m.levels == [L3, L3]

    def test_A10_I9_three_bj_baodi_below_120_dealer_team_wins_round(self) -> None:
        rules = preset("gunzi", rounds=2)
        m, _info, r = search(rules, lambda r: not r["kou"] and 0 < r["score"] < 120,
                            dealer_cards="BJ BJ BJ", bury_first="BJ BJ BJ")
        assert r["round_winner"] == 0 and r["round_end"] == "three-bj-in-kitty"
        assert m.first and m.levels == [L3, L3]

    def test_A10_I9_option_off_three_bj_baodi_does_not_end_round(self) -> None:
        rules = preset("gunzi", rounds=2, three_bj_dealer_wins=False)
        m, _info, r = search(rules, lambda r: not r["kou"] and 0 < r["score"] < 120,
                            dealer_cards="BJ BJ BJ", bury_first="BJ BJ BJ")
        assert r["round_winner"] is None
        assert m.levels == [L10, L3]  # 1 + 6 levels from 3, capped at 10

    @pytest.mark.parametrize("kou", [True, False])
    def test_A10_three_bj_other_cells_do_not_end_round(self, kou: bool) -> None:
        rules = preset("gunzi", rounds=2)

        def other(r: dict[str, Any]) -> bool:
            return mid(r) and r["kou"] == kou and (r["score"] < 120) == kou

        _m, _info, r = search(rules, other, dealer_cards="BJ BJ BJ", bury_first="BJ BJ BJ")
        assert r["kitty_jokers"]["BJ"] == 3
        assert r["round_winner"] is None and r["levels_awarded"] == 0

    def test_A12_tribute_counts_in_hand_scores(self) -> None:
        _m, info, r = search(preset("gunzi"),
                            lambda r: r["tribute"]["kind"] == "normal" and r["tribute"]["n"] == 4,
                            blood=4)
        assert info["tribute_n"] == 4 and r["tribute"]["from"] == 3 and r["tribute"]["to"] == 0
        base = spec_hand(preset("gunzi"), {**info, "tribute_n": 0})["hand_scores"]
        assert r["hand_scores"] == [base[0] + 4, base[1] - 4, base[2] + 4, base[3] - 4]

    @pytest.mark.parametrize(("bj_holder", "kind", "given"), [(3, "reversed", 4),
                                                               (1, "cancelled", 0)])
    def test_A12_reversed_tribute_swaps_the_signs_and_cancelled_scores_nothing(
        self, bj_holder: int, kind: str, given: int
    ) -> None:
        # Dealer 0 owes blood 4 from its 上家, seat 3. Three BJ with seat 3 reverse the tribute
        # (the dealer's team gives 4 cards); three BJ with seat 1 (seat 3's partner) cancel it.
        rules = preset("gunzi")
        hands: list[list[int] | None] = [None] * 4
        hands[bj_holder] = cs("BJ BJ BJ")
        deck_ = stacked_deck(rules, 0, hands, None, random.Random(5))
        m = Match(rules, random.Random(5), auto_deal=False, levels=(L3, L3), dealer=0, blood=4)
        info, r = play_hand(m, quiet_pol(5), 5, deck_)
        check_hand(m, info, r)
        assert r["tribute"]["kind"] == kind and info["tribute_n"] == given
        if given:
            assert (r["tribute"]["from"], r["tribute"]["to"]) == (0, 3)
        base = spec_hand(rules, {**info, "tribute_n": 0})["hand_scores"]
        assert r["hand_scores"] == [base[0] - given, base[1] + given, base[2] - given,
                                    base[3] + given]

    def test_A11_blood_becomes_next_hands_tribute(self) -> None:
        rules = preset("gunzi")
        m, _info, r = search(rules, lambda r: mid(r) and 1 <= r["blood_next"] <= 6
                            and r["round_winner"] is None)
        n = r["blood_next"]
        new_dealer = r["next_dealer"]
        pol = quiet_pol(3)
        m.apply(A.deal(12345))
        while m.phase is Phase.DRAW:
            m.apply(pol(m, m.to_act))
        assert m.dealer == new_dealer
        if m.tribute_kind == "normal":
            assert m.phase is Phase.TRIBUTE
            assert m.payer == (new_dealer - 1) % 4 and m.payee == new_dealer
            assert m.tribute_n == n
            assert m.to_act == m.payer


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"tribute_rule": "two"},
        {"blood_tens": "floor", "keep_deal": "partner"},
        {"low_score_kitty_blood": "always", "attackers_pass_ten": True},
        {"round_end_score": "tricks-only", "three_bj_dealer_wins": False},
        {"score_levels_before_cap": False, "follow": "live"},
    ],
)
def test_A8_A12_whole_matches_agree_with_the_rules(options: dict[str, Any]) -> None:
    """Several random matches of many hands (with tributes, joker burials, dry pots, round
    ends): every hand_end agrees with the independent reading, and scores add up."""
    rules = preset("gunzi", rounds=3, **options)
    hands = 0
    seen: set[str] = set()
    for seed in range(4):
        m = Match(rules, random.Random(seed), auto_deal=False)
        pol = random_pol(seed)
        while not m.is_over and hands < 60 * (seed + 1):
            info, r = play_hand(m, pol, 7_000 + 97 * seed + hands)
            check_hand(m, info, r)
            hands += 1
            seen.add(r["tribute"]["kind"])
            seen.add(str(r["round_end"]))
            if r["round_winner"] is not None:
                assert m.first
        total = [0, 0, 0, 0]
        for res in m.results:
            assert sum(res["hand_scores"]) == 0
            assert res["hand_scores"][0] == res["hand_scores"][2]
            total = [a + b for a, b in zip(total, res["hand_scores"], strict=True)]
        assert m.scores == total
    assert hands >= 20
    assert {"normal", "none", "passed-10", "None"} <= seen, seen


def test_A12_scores_add_up_over_a_match() -> None:
    rules = preset("gunzi", rounds=2)
    m = Match(rules, random.Random(8), auto_deal=False, levels=(L3, L3), dealer=0, blood=3)
    pol = random_pol(8)
    seen = []
    for h in range(12):
        if m.is_over:
            break
        info, r = play_hand(m, pol, 40 + h)
        check_hand(m, info, r)
        seen.append(r["hand_scores"])
    assert len(seen) >= 3
    assert m.scores == [sum(x[s] for x in seen) for s in range(4)]
    assert m.scores[0] == m.scores[2] and m.scores[1] == m.scores[3]
    assert m.scores[0] == -m.scores[1]


def test_A8_dry_pot_kitty_jokers_bring_no_levels_and_no_blood() -> None:
    """A declared hand whose shown kitty has no heart (the trump suit) is a 干锅 [I-7]: the
    BJ in it adds no levels and no blood."""
    rules = preset("gunzi")

    def declare_first(seed: int) -> Policy:
        rng = random.Random(seed)

        def policy(m: Match, seat: int) -> Action:
            if m.phase is Phase.DRAW:
                if m.decl is None and seat == 0:
                    decl = [a for a in m.legal_actions(seat) if a.kind.value == "declare"]
                    if decl:
                        return decl[0]
                return A.pass_(seat)
            if m.phase is Phase.BURY_JOKERS:
                return A.pass_(seat)
            return m.legal_actions(seat).sample(rng)

        return policy

    found = 0
    for seed in range(60):
        m = Match(rules, random.Random(seed), auto_deal=False, levels=(L3, L3), dealer=0)
        hands: list[list[int] | None] = [cs("3H"), None, None, None]
        deck_ = stacked_deck(rules, 0, hands, cs("BJ LJ 4S 5S 6C 7D"), random.Random(seed))
        m.apply(A.deal(seed, deck_))
        pol = declare_first(seed)
        info = to_play(m, pol)
        assert m.trump == H and m.dry_pot
        r = finish(m, pol, info)
        check_hand(m, info, r)
        assert r["dry_pot"] is True
        assert r["kitty_jokers"] == {"BJ": 1, "LJ": 1}
        if r["levels_awarded"]:
            assert r["levels_awarded"] == 1
            found += 1
        assert r["blood_next"] == spec_blood(r["score"], r["kou"], 0, rules)
        if found >= 3:
            break
    assert found >= 3


def test_A12_scores_with_passer_helper_first_hand() -> None:
    """A first hand (joker grab) also scores by A8/A12; the declarer deals."""
    m = Match(preset("gunzi"), random.Random(2), auto_deal=False)
    info, r = play_hand(m, lambda mm, s: passer(mm, s) if mm.phase is not Phase.PLAY
                        else mm.legal_actions(s).sample(random.Random(s)), 31)
    assert info["first"] is True
    check_hand(m, info, r)


@pytest.mark.parametrize("dealer", [0, 1, 2, 3])
def test_A3_hand_is_played_at_the_dealer_teams_level(dealer: int) -> None:
    m = Match(preset("gunzi"), random.Random(0), auto_deal=False, levels=(2, 6), dealer=dealer)
    m.apply(A.deal(4))
    assert m.level == (2, 6)[dealer % 2]
    deal_ev = next(e for e in reversed(m.events) if e.type == "deal")
    assert thaw(deal_ev.public)["level"] == m.level and thaw(deal_ev.public)["first_hand"] is False


def test_A3_round_starts_with_both_teams_at_3() -> None:
    m = Match(preset("gunzi"), random.Random(0))
    assert m.levels == [L3, L3] and m.level == L3 and m.first


def dry_pot_three_bj(rules: Ruleset, want: Callable[[dict[str, Any]], bool]
                     ) -> tuple[Match, dict[str, Any]]:
    """A declared hand (hearts) whose shown kitty, three BJ and no heart, is a 干锅 [I-7]."""
    for seed in range(300):
        m = Match(rules, random.Random(seed), auto_deal=False, levels=(L3, L3), dealer=0)
        hands: list[list[int] | None] = [cs("3H"), None, None, None]
        deck_ = stacked_deck(rules, 0, hands, cs("BJ BJ BJ 4S 6S 7C"), random.Random(seed))
        m.apply(A.deal(seed, deck_))
        rng = random.Random(seed)

        def pol(mm: Match, seat: int, rng: random.Random = rng) -> Action:
            if mm.phase is Phase.DRAW:
                if mm.decl is None and seat == 0:
                    return A.declare(0, cs("3H"))
                return A.pass_(seat)
            if mm.phase is Phase.BURY_JOKERS:
                return A.pass_(seat)
            return mm.legal_actions(seat).sample(rng)

        info = to_play(m, pol)
        assert m.dry_pot and m.trump == H
        r = finish(m, pol, info)
        check_hand(m, info, r)
        assert r["kitty_jokers"]["BJ"] == 3 and r["dry_pot"]
        if want(r):
            return m, r
    raise AssertionError("no seed gave the wanted hand")


def test_A10_three_bj_in_dry_pot_kitty_kou_120_still_ends_round() -> None:
    rules = preset("gunzi", rounds=2)
    _m, r = dry_pot_three_bj(rules, lambda r: r["kou"] and 120 <= r["score"] < 300)
    assert r["levels_awarded"] == 1  # no extra levels in a 干锅: that part holds
    assert r["round_winner"] == 1


def test_A10_I9_three_bj_in_dry_pot_kitty_baodi_still_ends_round() -> None:
    rules = preset("gunzi", rounds=2)
    _m, r = dry_pot_three_bj(rules, lambda r: not r["kou"] and 0 < r["score"] < 120)
    assert r["levels_awarded"] == 1
    assert r["round_winner"] == 0


def test_A8_kitty_jokers_buried_by_an_attacker_count_for_the_upgrade() -> None:
    """A6.4 lets other seats bury jokers; A8 counts every joker of the final kitty."""
    rules = preset("gunzi")
    for seed in range(300):
        m = Match(rules, random.Random(seed), auto_deal=False, levels=(L3, L3), dealer=0)
        hands: list[list[int] | None] = [None, cs("BJ"), None, None]
        deck_ = stacked_deck(rules, 0, hands, None, random.Random(seed))
        rng = random.Random(seed)
        base = bury_pol(seed, [])

        def pol(mm: Match, seat: int, rng: random.Random = rng, base: Policy = base) -> Action:
            if mm.phase is Phase.BURY_JOKERS:
                acts = [a for a in mm.legal_actions(seat)
                        if a.kind.value == "bury_jokers" and a.cards == (BJ,)]
                if seat == 1 and acts and mm.hands[1][BJ]:
                    return acts[0]
                if seat == 1 and mm.hands[1][BJ] and any(
                        a.kind.value == "bury_jokers" for a in mm.legal_actions(seat)):
                    return next(a for a in mm.legal_actions(seat)
                                if a.kind.value == "bury_jokers")
                return A.pass_(seat)
            if mm.phase is Phase.PLAY:
                return mm.legal_actions(seat).sample(rng)
            return base(mm, seat)

        m.apply(A.deal(seed, deck_))
        info = to_play(m, pol)
        r = finish(m, pol, info)
        check_hand(m, info, r)
        if BJ not in info["kitty"] or info["dry_pot"]:
            continue
        if r["kou"] and 120 <= r["score"] < 300:
            j = 2 * r["kitty_jokers"]["BJ"] + r["kitty_jokers"]["LJ"]
            assert j >= 2
            assert r["levels_awarded"] == 1 + j
            assert r["levels_after"][1] == min(L3 + 1 + j, L10)
            return
    raise AssertionError("no seed gave the wanted hand")
