"""The game-specific rules as one object per game: 打滚子 (Part A) or classic 升级 (Part B).

The match's phases are the same for both games; what differs is asked of
``match.variant``, chosen once from the ruleset by :func:`variant_of`: whether the
first hand is declared by grabbing a big joker, whether there is tribute, the kitty
shown after declaring (and 干锅), joker burying, how a lead is shaped (classic throws
and their failure), who wins a trick, the legal plays and their errors, the clause
that governs play, the hand-end scoring and the outcome so far. No other module of
the engine branches on the game. A third card game of the family is a third subclass.

The rule options inside a game (docs/rules.md [I-n]) stay in the ruleset and in the trick
modules; this object only says which game's rule modules apply.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from typing import Any

from gunzi.engine import cards as C
from gunzi.engine import classic_tricks as CT
from gunzi.engine import gunzi_tricks as GT
from gunzi.engine import scoring
from gunzi.engine.cards import BJ, LJ, Card
from gunzi.engine.classic_policy import Policy, policy_of
from gunzi.engine.order import Order
from gunzi.engine.rules import CLASSIC, GUNZI, Ruleset
from gunzi.engine.state import MatchState, Variant, team_of


def _hand_sides(m: MatchState) -> tuple[int, int, int, bool, int]:
    """(dealer, dealer's team, attacking team, whether the attackers won the last trick
    (抠底), the kitty's points): what every hand-end scoring starts from."""
    assert m.dealer is not None
    dteam = team_of(m.dealer)
    ateam = 1 - dteam
    return m.dealer, dteam, ateam, team_of(m.last_trick_winner) == ateam, C.points_of(m.kitty)


class Gunzi(Variant):
    """打滚子: single, pair, triple; permanent 2s; tribute, 干锅 and buried jokers."""

    name = GUNZI
    play_rule = "A7"
    grabs_big_joker = True
    tribute = True
    kitty_shown_after_declaring = True
    joker_burying = True
    big_joker_first = True
    buried_jokers_shown = True
    same_card_leads = True
    kitty_jokers_move_levels = True
    kou_di_decides_upgrade = True
    hand_scores = True
    closes = "round"
    past_last_level = "10+"

    def dead_follow(self, rules: Ruleset) -> bool:
        return rules.follow == "dead"

    def clause(self, part_a: str, classic: str = "B") -> str:
        return part_a

    def trick_winner(self, m: MatchState, plays: Sequence[Sequence[Card]]) -> int:
        return GT.trick_winner(plays, m.order)

    def trick_winner_of(self, pol: Policy, order: Order, plays: Sequence[Sequence[Card]]
                        ) -> int:
        return GT.trick_winner(plays, order)

    def listed_plays(self, m: MatchState, seat: int) -> list[tuple[Card, ...]] | None:
        hand = m.hands[seat]
        if m.trick:
            plays = GT.legal_follows(m.trick[0][1], hand, m.order, m.live)
            m.follows_memo = (m.events.length, seat, plays)
            return plays
        return GT.legal_leads(hand)

    def play_error(self, m: MatchState, seat: int, cards: tuple[Card, ...]) -> str | None:
        hand = m.hands[seat]
        if not m.trick:
            return GT.lead_error(cards, hand)
        memo = m.follows_memo
        if memo is not None and memo[0] == m.events.length and memo[1] == seat \
                and cards in memo[2]:
            return None  # one of the follows just listed for this very position
        return GT.follow_error(m.trick[0][1], cards, hand, m.order, m.live)

    def score_hand(self, m: MatchState) -> dict[str, Any]:
        """Close a 打滚子 hand: A8 levels, A3 passing 10, A10 round end, A11 blood, A12 scores."""
        rules = m.rules
        dealer, dteam, ateam, kou, kitty_pts = _hand_sides(m)
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

    def returns(self, m: MatchState) -> list[float]:
        return [float(s) for s in m.scores]

    def stats(self, results: Sequence[dict[str, Any]]) -> dict[str, Any]:
        n = len(results)
        return {
            "mean_tribute_cards": round(sum(r["tribute"]["n"] for r in results) / n, 3),
            "dry_pot_rate": round(sum(1 for r in results if r["dry_pot"]) / n, 4),
        }


class Classic(Variant):
    """Classic 升级 (Part B): tractors and throws, 1-3 decks, no tribute."""

    name = CLASSIC
    play_rule = "B"
    no_trump = True

    def clause(self, part_a: str, classic: str = "B") -> str:
        return classic

    def lead_shape(self, rules: Ruleset, cards: Sequence[Card], order: Order
                   ) -> CT.Shape | None:
        return CT.decompose(cards, order, policy_of(rules))

    def lead(self, m: MatchState, seat: int, cards: tuple[Card, ...], public: dict[str, Any]
             ) -> tuple[Card, ...]:
        pol = policy_of(m.rules)
        shape = CT.decompose(cards, m.order, pol)
        if len(shape.units) > 1:
            others = [m.hands[(seat + i) % 4] for i in (1, 2, 3)]
            failed = CT.failed_throw(shape, others, m.order)
            if failed is not None:
                m.failed_throws[seat] += 1
                m.hand_failed_throws[seat] += 1
                public["attempted"] = public["cards"]
                stop = CT.blocker(failed, seat, m.hands, m.order)
                assert stop is not None  # the part failed because someone beats it
                cards = tuple(sorted(failed.cards))
                public["cards"] = tuple(C.names(cards))
                m.failed_throw = {
                    "trick": m.trick_no, "seat": seat, "attempted": public["attempted"],
                    "cards": public["cards"], "blocker": stop[0],
                    "beats": tuple(C.names(stop[1])),
                }
                shape = CT.decompose(cards, m.order, pol)
        m.lead_shape = shape
        return cards

    def trick_winner(self, m: MatchState, plays: Sequence[Sequence[Card]]) -> int:
        assert m.lead_shape is not None
        return CT.trick_winner(m.lead_shape, plays, m.order, policy_of(m.rules))

    def trick_winner_of(self, pol: Policy, order: Order, plays: Sequence[Sequence[Card]]
                        ) -> int:
        return CT.trick_winner(CT.decompose(plays[0], order, pol), plays, order, pol)

    def plays(self, m: MatchState, seat: int) -> Iterator[tuple[Card, ...]]:
        hand = m.hands[seat]
        if m.trick:
            assert m.lead_shape is not None
            gen = CT.legal_follows(m.lead_shape, hand, m.order, policy_of(m.rules))
        else:
            gen = CT.legal_leads(hand, m.order, policy_of(m.rules))
        for cards in gen:
            yield tuple(sorted(cards))

    def random_play(self, m: MatchState, seat: int, rng: random.Random) -> tuple[Card, ...]:
        hand = m.hands[seat]
        if m.trick:
            assert m.lead_shape is not None
            cards = CT.random_follow(m.lead_shape, hand, m.order, rng, policy_of(m.rules))
        else:
            cards = CT.random_lead(hand, m.order, rng, pol=policy_of(m.rules))
        return tuple(sorted(cards))

    def play_error(self, m: MatchState, seat: int, cards: tuple[Card, ...]) -> str | None:
        hand = m.hands[seat]
        if not m.trick:
            return CT.lead_error(cards, hand, m.order)
        assert m.lead_shape is not None
        return CT.follow_error(m.lead_shape, cards, hand, m.order, policy_of(m.rules))

    def score_hand(self, m: MatchState) -> dict[str, Any]:
        """Close a classic hand: Part B level table, kitty multiplier, passing A, Part C points."""
        rules = m.rules
        dealer, dteam, ateam, kou, kitty_pts = _hand_sides(m)
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

    def returns(self, m: MatchState) -> list[float]:
        out = [0.0] * 4
        for result in m.results:
            for s, pts in enumerate(result.get("game_points") or ()):
                out[s] += pts
        return out

    def stats(self, results: Sequence[dict[str, Any]]) -> dict[str, Any]:
        return {"failed_throws": sum(sum(r["failed_throws"]) for r in results)}


GUNZI_VARIANT = Gunzi()
CLASSIC_VARIANT = Classic()


def variant_of(rules: Ruleset) -> Variant:
    """The rules object of the ruleset's game: the one place that tells the games apart."""
    return GUNZI_VARIANT if rules.game == GUNZI else CLASSIC_VARIANT
