"""The search bot with the learned net as its prior: the candidates are the rule bot's
play and the plays of highest Q, and a rollout budget gives reproducible decisions."""

from __future__ import annotations

import random

import pytest

from gunzi.arena.runner import parse_bot
from gunzi.bots.base import Bot, Decision, RandomBot, observe, play
from gunzi.bots.learned import DMC_WEIGHTS, WEIGHTS, LearnedBot
from gunzi.bots.rule import RuleBot
from gunzi.bots.search import SearchBot
from gunzi.engine.match import Match, Phase
from gunzi.engine.rules import preset

FAST = {"backend_name": "python", "time_limit": None, "search_cards": 99}


def _decisions(seed: int, count: int) -> list[Decision]:
    """Play decisions with at least five legal plays, reached by random players."""
    rng = random.Random(seed)
    m = Match(preset("gunzi"), random.Random(seed))
    out = []
    while len(out) < count and not m.results:
        seat = m.to_act
        assert seat is not None
        if m.phase is Phase.PLAY and len(m.legal_actions(seat)) >= 5:
            out.append(observe(m, seat))
        m.apply(m.legal_actions(seat).sample(rng))
    assert len(out) == count
    return out


def test_candidates_are_the_rule_play_and_the_top_values() -> None:
    bot = SearchBot(rollouts=20, prior="learned", top=2, **FAST)
    net = LearnedBot()
    for d in _decisions(3, 4):
        assert d.actions is not None
        cands = bot.prior_candidates(d, random.Random(1))
        rule = RuleBot().choose(d, random.Random(1))
        assert cands[0] == rule
        values = net.action_values(d, d.actions)
        ranked = [d.actions[i] for i in sorted(range(len(d.actions)),
                                                key=lambda i: -float(values[i]))]
        best = [a for a in ranked if a != rule][:2]
        assert cands[1:] == best and len(set(cands)) == 3


def test_reproducible_with_a_rollout_budget() -> None:
    for d in _decisions(4, 3):
        picks = []
        for _ in range(2):
            bot = SearchBot(rollouts=24, prior="learned", top=3, **FAST)
            picks.append((bot.choose(d, random.Random(9)), bot.stats["rollouts"]))
            assert bot.stats["candidates"] <= 4 and bot.errors == 0
        assert picks[0] == picks[1]
        assert d.check(picks[0][0]) is None


def test_a_whole_hand_with_the_prior() -> None:
    rng = random.Random(5)
    m = Match(preset("gunzi"), random.Random(5))
    searcher = SearchBot(rollouts=12, prior="learned", **FAST)
    bots: list[Bot] = [searcher, RandomBot(), RuleBot(), RandomBot()]
    play(m, bots, rng, hands=1)
    assert len(m.results) == 1 and searcher.errors == 0


def test_bad_prior_options_are_refused() -> None:
    with pytest.raises(ValueError, match="prior must be"):
        SearchBot(prior="oracle")
    with pytest.raises(ValueError, match="need a prior"):
        SearchBot(top=3)
    with pytest.raises(ValueError, match="need a prior"):
        SearchBot(prior_weights=str(DMC_WEIGHTS))
    with pytest.raises(ValueError, match="at least 1"):
        SearchBot(prior="learned", top=0)
    spec = parse_bot("search:prior=learned:top=2:rollouts=10:time_limit=none", "A")
    bot = spec.make(1.0)
    assert isinstance(bot, SearchBot) and bot.top == 2 and bot.prior is not None


def test_the_prior_may_be_another_net() -> None:
    """``prior_weights`` points the prior at another exported net (here the DMC token net
    instead of the shipped advantage net); without it the shipped net is the prior."""
    spec = parse_bot(f"search:prior=learned:prior_weights={DMC_WEIGHTS}:rollouts=10", "A")
    bot = spec.make(1.0)
    assert isinstance(bot, SearchBot) and bot.prior is not None
    assert bot.prior.policy is LearnedBot(DMC_WEIGHTS).policy
    assert SearchBot(prior="learned").prior.policy is LearnedBot(WEIGHTS).policy
    assert bot.prior.policy is not LearnedBot(WEIGHTS).policy
    d = _decisions(3, 1)[0]
    assert d.actions is not None
    values = LearnedBot(DMC_WEIGHTS).action_values(d, d.actions)
    best = max(range(len(d.actions)), key=lambda i: (float(values[i]), -i))
    assert d.actions[best] in bot.prior_candidates(d, random.Random(1))


def test_a_gate_keeps_only_plays_the_net_rates_near_the_rule_play() -> None:
    """``gate``: another play is searched only when its prior value beats the rule play's
    by more than the gate; a decision left with the rule play alone is played unsearched."""
    net = LearnedBot()
    sizes = set()
    for d in _decisions(3, 4):
        assert d.actions is not None
        rule = RuleBot().choose(d, random.Random(1))
        values = net.action_values(d, d.actions)
        base = float(values[d.actions.index(rule)])
        ungated = SearchBot(rollouts=20, prior="learned", top=3, **FAST)
        assert SearchBot(rollouts=20, prior="learned", top=3, gate=-1e9, **FAST
                         ).prior_candidates(d, random.Random(1)) == \
            ungated.prior_candidates(d, random.Random(1))
        for gate in (-2.0, -0.5, 0.0):
            cands = SearchBot(rollouts=20, prior="learned", top=3, gate=gate, **FAST
                              ).prior_candidates(d, random.Random(1))
            assert cands[0] == rule
            kept = [a for a in ungated.prior_candidates(d, random.Random(1))[1:]
                    if float(values[d.actions.index(a)]) > base + gate]
            assert cands[1:] == kept
            sizes.add(len(cands))
        shut = SearchBot(rollouts=20, prior="learned", top=3, gate=1e9, **FAST)
        assert shut.choose(d, random.Random(2)) == rule
        assert shut.stats["candidates"] == 1 and shut.stats["rollouts"] == 0
    assert 1 in sizes and max(sizes) > 1  # the gates tried both prune and keep plays
    with pytest.raises(ValueError, match="gate needs a prior"):
        SearchBot(gate=-1.0)
