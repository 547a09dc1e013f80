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
from gunzi.engine import hand_end
from gunzi.engine.cards import Card
from gunzi.engine.classic_policy import policy_of
from gunzi.engine.order import Order
from gunzi.engine.rules import CLASSIC, GUNZI, Ruleset
from gunzi.engine.state import MatchState, Variant


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
    hand_scores = True
    closes = "round"
    past_last_level = "10+"

    def dead_follow(self, rules: Ruleset) -> bool:
        return rules.follow == "dead"

    def clause(self, part_a: str, classic: str = "B") -> str:
        return part_a

    def trick_winner(self, m: MatchState, plays: Sequence[Sequence[Card]]) -> int:
        return GT.trick_winner(plays, m.order)

    def listed_plays(self, m: MatchState, seat: int) -> list[tuple[Card, ...]] | None:
        hand = m.hands[seat]
        if m.trick:
            plays = GT.legal_follows(m.trick[0][1], hand, m.order, m.live)
            m.follows_memo = (len(m.events), seat, plays)
            return plays
        return GT.legal_leads(hand)

    def play_error(self, m: MatchState, seat: int, cards: tuple[Card, ...]) -> str | None:
        hand = m.hands[seat]
        if not m.trick:
            return GT.lead_error(cards, hand)
        memo = m.follows_memo
        if memo is not None and memo[0] == len(m.events) and memo[1] == seat \
                and cards in memo[2]:
            return None  # one of the follows just listed for this very position
        return GT.follow_error(m.trick[0][1], cards, hand, m.order, m.live)

    def score_hand(self, m: MatchState) -> dict[str, Any]:
        return hand_end.score_gunzi(m)

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
        return hand_end.score_classic(m)

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
