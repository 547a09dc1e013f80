"""The ``rule`` bot: a 托管-quality player built from card memory and plain rules.

It sees only its :class:`~gunzi.bots.base.Decision` (the seat's view and own hand)
and answers every decision:

* declare / pass (:func:`~gunzi.bots.rule_setup.choose_declare`): declares its best
  suit once it stands out by length and strength, overturns opponents, reinforces its
  own declaration, never overturns its partner; grabs with a big joker in 打滚子's
  first hand;
* tribute, return, bury, joker burying (:mod:`gunzi.bots.rule_setup`): gives and
  returns the cheapest cards, buries whole short suits to make voids and buries point
  cards only where they are in danger and the hand is strong;
* lead and follow (:func:`~gunzi.bots.rule_play.rule_play`, also usable on its own as a
  rollout policy): card memory and shown voids, trump control, feeding a partner's
  winning trick, keeping top trumps for the last trick while the kitty is at stake,
  死棒/活棒 shapes, classic tractors and safe throws.

Every action it builds is checked with ``decision.check``; if the check fails (which
should not happen) it plays a legal action instead and counts it in ``fallbacks``.
The bot is deterministic: the same decision gives the same action.
"""

from __future__ import annotations

import random

from gunzi.bots.base import Bot, Decision
from gunzi.bots.core_play import core_play
from gunzi.bots.rule_core import Params, order_of, table_from_decision
from gunzi.bots.rule_play import rule_play
from gunzi.bots.rule_setup import (
    choose_bury,
    choose_bury_jokers,
    choose_declare,
    choose_return,
    choose_tribute,
    setup_odds,
)
from gunzi.engine import actions as A
from gunzi.engine.actions import Action, Kind
from gunzi.engine.variant import variant_of


class RuleBot(Bot):
    """Plays by rules of thumb over card memory; see the module docstring."""

    name = "rule"

    def __init__(
        self,
        *,
        params: Params | None = None,
        grab_big_joker: bool = True,
        bury_big_joker: bool = True,
        partner_bury_joker: bool = True,
        declare_bias: float = 0.0,
        void_weight: float = 1.0,
        core: bool = False,
    ) -> None:
        """``core``: make 打滚子 card plays with the play core's copy of the card play
        (:mod:`gunzi.bots.core_play`, the search bot's rollout policy; same plays, default
        weights only)."""
        self.params = params or Params()
        self.grab_big_joker = grab_big_joker
        self.bury_big_joker = bury_big_joker
        self.partner_bury_joker = partner_bury_joker
        self.declare_bias = declare_bias  # more (less) reluctant to declare when positive
        self.void_weight = void_weight  # how much a void made by burying is worth
        self.core = core
        self.fallbacks = 0  # decisions where the built action was not legal
        self.fallback_reasons: list[str] = []

    def choose(self, decision: Decision, rng: random.Random) -> Action:
        try:
            action = self.decide(decision)
            reason = decision.check(action)
        except Exception as exc:  # a bug must not stop a table: fall back, and count it
            reason = f"{type(exc).__name__}: {exc}"
        else:
            if reason is None:
                return action
        self.fallbacks += 1
        self.fallback_reasons.append(f"{decision.kind.value} seat {decision.seat}: {reason}")
        if decision.actions:
            return decision.actions[0]
        return decision.sample(rng)

    def decide(self, d: Decision) -> Action:
        """The bot's action for ``d``, not yet checked."""
        kind = d.kind
        seat = d.seat
        view = d.view
        if kind is Kind.DECLARE:
            assert d.actions is not None
            return choose_declare(
                view, d.hand, d.rules, seat, d.actions, self.grab_big_joker, self.declare_bias
            )
        if kind is Kind.PLAY:
            if self.core and variant_of(d.rules).same_card_leads:
                return A.play(seat, core_play(d))
            return A.play(seat, rule_play(table_from_decision(d), self.params))
        odds = setup_odds(view, d.hand, d.rules, seat, order_of(view, d.rules))
        if kind is Kind.TRIBUTE:
            assert d.actions is not None
            return choose_tribute(odds, d.actions)
        if kind is Kind.RETURN:
            return A.return_(seat, choose_return(odds, d.count))
        if kind is Kind.BURY:
            return A.bury(
                seat, choose_bury(odds, d.count, self.bury_big_joker, self.void_weight)
            )
        if kind is Kind.BURY_JOKERS:
            assert d.actions is not None
            dealer = view["dealer"]
            return choose_bury_jokers(
                odds, d.actions, -1 if dealer is None else dealer, self.partner_bury_joker
            )
        raise ValueError(f"the rule bot has no answer for a {kind.value} decision")


__all__ = ["Params", "RuleBot", "rule_play"]
