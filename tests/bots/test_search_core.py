"""The search bot's default rollouts on the play core: the rule bot's rollouts exactly,
and reproducible decisions at a fixed rollout budget."""

from __future__ import annotations

import random

from gunzi.bots import rollout_rule
from gunzi.bots.base import Decision, observe
from gunzi.bots.rule import RuleBot
from gunzi.bots.search import SearchBot
from gunzi.engine.match import Match, Phase
from gunzi.engine.rules import preset


def _endgame_decisions(seed: int, n: int, follow: str = "dead") -> list[Decision]:
    """Play decisions with at most 12 cards in hand and a choice, in hands the rule bot
    plays (the positions the search bot searches)."""
    rule = RuleBot()
    out: list[Decision] = []
    while len(out) < n:
        rng = random.Random(seed)
        m = Match(preset("gunzi").replace(follow=follow), random.Random(seed))
        while not m.is_over and not m.results:
            seat = m.to_act
            assert seat is not None
            d = observe(m, seat)
            if m.phase is Phase.PLAY and sum(d.hand) <= 12 and d.actions \
                    and len(d.actions) > 1:
                out.append(d)
            m.apply(rule.choose(d, rng))
        seed += 1
    return out[:n]


def test_core_rollouts_are_the_rule_bots_rollouts() -> None:
    """Every candidate on the same sampled deals: the core's rollout ends exactly where the
    rule bot's own rollout (card memory rebuilt at every move) ends."""
    compared = 0
    for follow in ("dead", "live"):
        for i, d in enumerate(_endgame_decisions(3, 8, follow)):
            core = SearchBot(policy="core", time_limit=None)
            rule = SearchBot(policy="rule", time_limit=None)
            cands, position, finish = core._gunzi_setup(d, random.Random(i))
            cands_r, _, finish_r = rule._gunzi_setup(d, random.Random(i))
            assert cands == cands_r
            for r in range(3):
                pos = position(random.Random(100 * i + r))
                for action in cands:
                    assert finish(pos, action) == finish_r(pos, action)
                    compared += 1
    assert compared >= 60


def test_a_fixed_rollout_budget_gives_the_same_decision() -> None:
    """Same decision and seed, no clock: the same play and the same figures, from a fresh
    bot or the same one; the core policy is the default."""
    for i, d in enumerate(_endgame_decisions(11, 6)):
        runs = []
        bot = SearchBot(rollouts=120, time_limit=None)
        assert bot.policy == "core"
        for again in (bot, bot, SearchBot(rollouts=120, time_limit=None)):
            action = again.choose(d, random.Random(i))
            assert action in (d.actions or ())
            runs.append((action, again.stats.get("values"), again.stats.get("rollouts")))
        assert runs[0] == runs[1] == runs[2]


def test_the_default_search_decides_as_the_search_before_the_core() -> None:
    """The default (150 core rollouts) and the search before issue 13 (150 rule-bot
    rollouts) make the same play with the same figures at every decision, unclocked: the
    fast search is at least as strong by construction (docs/performance.md)."""
    default = SearchBot(time_limit=None)
    assert (default.policy, default.rollouts) == ("core", 150)
    old = SearchBot(policy="rule", rollouts=150, time_limit=None)
    for follow in ("dead", "live"):
        for i, d in enumerate(_endgame_decisions(21, 4, follow)):
            assert default.choose(d, random.Random(i)) == old.choose(d, random.Random(i))
            assert default.stats["values"] == old.stats["values"]


def test_the_rule_policy_still_selects_the_old_rollouts() -> None:
    bot = SearchBot(policy="rule", rollouts=30, time_limit=None)
    d = _endgame_decisions(5, 1)[0]
    assert bot.choose(d, random.Random(0)) in (d.actions or ())
    assert bot.stats["policy"] == "rule"
    assert rollout_rule.available()


def test_rule_bot_with_core_play_plays_like_the_rule_bot() -> None:
    """RuleBot(core=True) (the plain-bot form of the rollout policy, built from the view)
    makes the rule bot's play at every decision of whole hands, 死棒 and 活棒."""
    for follow in ("dead", "live"):
        plain, core = RuleBot(), RuleBot(core=True)
        for seed in range(2):
            rng = random.Random(seed)
            m = Match(preset("gunzi").replace(follow=follow), random.Random(seed))
            plays = 0
            while not m.is_over and len(m.results) < 2:
                seat = m.to_act
                assert seat is not None
                d = observe(m, seat)
                action = plain.choose(d, rng)
                if m.phase is Phase.PLAY:
                    assert core.choose(d, rng) == action
                    plays += 1
                m.apply(action)
            assert plays > 100
        assert core.fallbacks == 0
