"""The search bot: legal actions only, blind to hidden cards, budget respected."""

from __future__ import annotations

import random

import pytest

from gunzi.bots import rollout_rule
from gunzi.bots.base import Bot, Decision, RandomBot, observe, play
from gunzi.bots.registry import make_bot
from gunzi.bots.search import SearchBot, fallback_action
from gunzi.engine.actions import Kind
from gunzi.engine.cards import NUM_TYPES
from gunzi.engine.match import Match, Phase
from gunzi.engine.rules import preset

FAST = {"backend_name": "python", "time_limit": None, "search_cards": 99}  # search every play


def _decision_with_choices(seed: int, min_actions: int = 3) -> tuple[Match, Decision]:
    """A play decision with several legal plays, reached by random players."""
    rng = random.Random(seed)
    m = Match(preset("gunzi"), random.Random(seed))
    while True:
        seat = m.to_act
        assert seat is not None
        if m.phase is Phase.PLAY and len(m.legal_actions(seat)) >= min_actions \
                and len(m.tricks) >= 3:
            return m, observe(m, seat)
        m.apply(m.legal_actions(seat).sample(rng))


def test_registry_builds_the_search_bot() -> None:
    bot = make_bot("search", rollouts=20, **FAST)
    assert isinstance(bot, SearchBot) and bot.name == "search"
    with pytest.raises(ValueError):
        SearchBot(rollouts=0)
    with pytest.raises(ValueError):
        SearchBot(policy="nonsense")


@pytest.mark.parametrize(("policy", "follow"), [("kernel", "dead"), ("auto", "dead"),
                                               ("auto", "live")])
def test_a_whole_hand_with_legal_actions_only(policy: str, follow: str) -> None:
    """The engine validates every action; a search seat must never be refused."""
    rng = random.Random(3)
    m = Match(preset("gunzi", follow=follow), random.Random(3))
    searchers = [SearchBot(rollouts=24, policy=policy, rule_tricks=1, **FAST),
                 SearchBot(rollouts=12, policy=policy, **FAST)]
    bots: list[Bot] = [searchers[0], RandomBot(), searchers[1], RandomBot()]
    play(m, bots, rng, hands=1)
    assert len(m.results) == 1
    assert [b.errors for b in searchers] == [0, 0]


def test_without_the_rule_bot_every_decision_has_a_legal_answer() -> None:
    """The fallback heuristics (declare, tribute, return, bury, joker burying, play) over
    hands with tribute, and the kernel-only search."""
    rng = random.Random(11)
    m = Match(preset("gunzi"), random.Random(11))
    bot = SearchBot(rollouts=8, use_rule_bot=False, votes=2, **FAST)
    assert bot.policy == "kernel"
    kinds: set[Kind] = set()
    while len(m.results) < 3:
        seat = m.to_act
        assert seat is not None
        d = observe(m, seat)
        kinds.add(d.kind)
        action = bot.choose(d, rng) if d.kind is not Kind.PLAY or seat % 2 == 0 \
            else fallback_action(d, rng)
        assert d.check(action) is None, (d.kind, action)
        m.apply(action)
    assert {Kind.PLAY, Kind.BURY, Kind.DECLARE} <= kinds


@pytest.mark.parametrize("policy", ["kernel", "auto"])
def test_decision_ignores_what_the_others_really_hold(policy: str) -> None:
    """Swap hidden cards between two other seats: the view is the same, so is the play."""
    for seed in (1, 2, 4):
        m, d = _decision_with_choices(seed)
        me = d.seat
        a, b = (me + 1) % 4, (me + 3) % 4
        twin = m.clone()
        x = next(c for c in range(NUM_TYPES) if twin.hands[a][c] and not twin.hands[b][c])
        y = next(c for c in range(NUM_TYPES) if twin.hands[b][c] and not twin.hands[a][c])
        twin.hands[a][x] -= 1
        twin.hands[b][x] += 1
        twin.hands[b][y] -= 1
        twin.hands[a][y] += 1
        d2 = observe(twin, me)
        assert d2.view == d.view and d2.hand == d.hand
        bot = SearchBot(rollouts=60, policy=policy, max_candidates=4, **FAST)
        first = bot.choose(d, random.Random(7))
        assert bot.stats["deals"] >= 1  # searched, not a fallback
        second = bot.choose(d2, random.Random(7))
        assert first == second
        assert first in d.actions  # type: ignore[operator]


def test_rollout_budget_is_respected() -> None:
    _, d = _decision_with_choices(5, min_actions=4)
    for budget in (10, 50):
        bot = SearchBot(rollouts=budget, policy="kernel", max_candidates=4, **FAST)
        bot.choose(d, random.Random(1))
        st = bot.stats
        assert st["candidates"] >= 2
        assert st["rollouts"] <= max(budget, st["candidates"])
        assert st["rollouts"] + st["candidates"] > budget  # spent what it could
    small = SearchBot(rollouts=2, policy="kernel", max_candidates=4, **FAST)
    small.choose(d, random.Random(1))
    assert small.stats["deals"] == 1  # at least one deal, even past the budget


def test_time_limit_is_respected() -> None:
    _, d = _decision_with_choices(6, min_actions=4)
    bot = SearchBot(rollouts=10**6, time_limit=0.15, max_candidates=4, backend_name="python",
                    search_cards=99)
    bot.choose(d, random.Random(1))
    assert bot.stats["seconds"] < 0.15 + 0.25  # one deal may finish after the limit
    assert bot.stats["deals"] >= 1


@pytest.mark.skipif(not rollout_rule.available(), reason="needs the rule bot")
def test_rule_policy_keeps_the_rule_bots_play_unless_search_is_sure() -> None:
    _, d = _decision_with_choices(8, min_actions=4)
    bot = SearchBot(rollouts=1, policy="rule", max_candidates=4, **FAST)
    assert bot.rule is not None
    rule_choice = bot.rule.choose(d, random.Random(0))
    assert bot.choose(d, random.Random(0)) == rule_choice  # one deal decides nothing


@pytest.mark.skipif(not rollout_rule.available(), reason="needs the rule bot")
def test_early_plays_are_the_rule_bots_and_endgame_plays_are_searched() -> None:
    _, early = _decision_with_choices(9)
    assert sum(early.hand) > 12
    bot = SearchBot(rollouts=30, backend_name="python", time_limit=None)
    assert bot.policy == "core" and bot.search_cards == 12
    assert bot.rule is not None
    assert bot.choose(early, random.Random(0)) == bot.rule.choose(early, random.Random(0))
    assert bot.stats == {}
    rng = random.Random(9)
    m = Match(preset("gunzi"), random.Random(9))
    while True:
        seat = m.to_act
        assert seat is not None
        if m.phase is Phase.PLAY and m.hand_size(seat) <= 12 and len(m.legal_actions(seat)) > 1:
            break
        m.apply(m.legal_actions(seat).sample(rng))
    late = observe(m, seat)
    action = bot.choose(late, random.Random(0))
    assert action in late.actions  # type: ignore[operator]
    assert bot.stats["deals"] >= 1 and bot.stats["policy"] == "core"


def test_the_return_it_made_is_remembered_for_the_hand() -> None:
    """After returning tribute cards the bot knows the payer holds them (a lower bound)."""
    for seed in range(40):
        rng = random.Random(seed)
        m = Match(preset("gunzi"), random.Random(seed))
        bot = SearchBot(rollouts=4, policy="kernel", **FAST)
        while m.hand_no < 4 and m.phase is not Phase.RETURN:
            seat = m.to_act
            assert seat is not None
            m.apply(m.legal_actions(seat).sample(rng))
        if m.phase is not Phase.RETURN:
            continue
        payer = m.payer
        action = bot.choose(observe(m, m.payee), rng)
        m.apply(action)
        assert bot.memory == [(payer, action.cards, 2)]
        bot.new_hand()
        assert bot.memory == []
        return
    pytest.fail("no tribute in 40 matches")


@pytest.mark.skipif(not rollout_rule.available(), reason="needs the rule bot")
def test_classic_endgames_are_searched_on_engine_positions() -> None:
    """Classic 升级 (tractors, throws): sampled deals become engine positions."""
    rng = random.Random(4)
    m = Match(preset("classic-1"), random.Random(4), levels=(2, 2))
    bot = SearchBot(rollouts=40, backend_name="python", time_limit=None)
    searched = 0
    while not m.results:
        seat = m.to_act
        assert seat is not None
        d = observe(m, seat)
        if seat % 2 == 0:
            action = bot.choose(d, rng)
            searched += bool(bot.stats.get("deals"))
        else:
            action = d.sample(rng)
        assert d.check(action) is None
        m.apply(action)
    assert searched >= 3
    assert bot.errors == 0
