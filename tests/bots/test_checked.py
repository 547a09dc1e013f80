"""The checked bot: the learned net's best play other than the rule bot's, raced against
the rule bot's play by a few rollouts; every other decision is the rule bot's."""

from __future__ import annotations

import random

from gunzi.bots.base import Bot, Decision, observe, play
from gunzi.bots.checked import CheckedBot
from gunzi.bots.learned import LearnedBot
from gunzi.bots.registry import make_spec
from gunzi.bots.rule import RuleBot
from gunzi.engine.actions import Kind
from gunzi.engine.match import Match
from gunzi.engine.rules import preset


def _late_plays(seed: int, count: int) -> list[Decision]:
    """Card plays with a choice while the seat holds at most 12 cards (where it checks),
    reached by rule bots."""
    rng = random.Random(seed)
    m = Match(preset("gunzi"), random.Random(seed))
    rule = RuleBot()
    out: list[Decision] = []
    while len(out) < count and not m.results:
        seat = m.to_act
        assert seat is not None
        d = observe(m, seat)
        if d.kind is Kind.PLAY and d.actions is not None and len(d.actions) > 1 \
                and sum(d.hand) <= 12:
            out.append(d)
        m.apply(rule.choose(d, rng))
    return out


def test_it_races_the_rule_play_against_the_nets_proposal() -> None:
    net = LearnedBot()
    checked = taken = 0
    for seed in (1, 2):
        for d in _late_plays(seed, 8):
            assert d.actions is not None
            rule = RuleBot().choose(d, random.Random(3))
            values = net.action_values(d, d.actions)
            others = [i for i in range(len(d.actions)) if d.actions[i] != rule]
            proposal = d.actions[max(others, key=lambda i: (float(values[i]), -i))]
            bot = CheckedBot(rollouts=12)
            picks = {bot.choose(d, random.Random(3)) for _ in range(2)}
            assert len(picks) == 1  # no clock: the same decision and seed, the same play
            assert picks <= {rule, proposal}
            assert bot.stats["candidates"] == 2 and 0 < bot.stats["rollouts"] <= 12
            checked += 1
            taken += picks == {proposal}
    assert checked == 16
    assert 0 < taken < 16  # the race keeps the rule play at some and not at others


def test_a_gate_lets_a_sure_net_play_the_rule_play_unchecked() -> None:
    d = _late_plays(1, 1)[0]
    bot = CheckedBot(gate=1e9)
    assert bot.choose(d, random.Random(3)) == RuleBot().choose(d, random.Random(3))
    assert bot.stats["candidates"] == 1 and bot.stats["rollouts"] == 0


def test_four_checked_bots_play_a_hand_and_say_where_the_net_was_trained() -> None:
    m = Match(preset("gunzi"), random.Random(7))
    bots: list[Bot] = [CheckedBot(rollouts=8) for _ in range(4)]
    play(m, bots, random.Random(7), hands=1)
    assert len(m.results) == 1
    assert all(isinstance(b, CheckedBot) and b.errors == 0 for b in bots)
    spec = make_spec("checked:rollouts=8:gate=-2.5")
    assert isinstance(spec, CheckedBot) and spec.rollouts == 8 and spec.gate == -2.5
    assert spec.thinks and not LearnedBot().thinks  # tables run it off the event loop
    assert spec.trained_on == "gunzi" and spec.covers(preset("gunzi"))
    assert not spec.covers(preset("classic-1"))


def test_at_classic_tables_it_plays_as_the_rule_bot() -> None:
    """The net proposes only 打滚子 plays; a classic search would cost 200 ms at p95."""
    m = Match(preset("classic-1"), random.Random(4))
    checked, rule = CheckedBot(), RuleBot()
    decisions = 0
    while not m.results:
        seat = m.to_act
        assert seat is not None
        d = observe(m, seat)
        action = checked.choose(d, random.Random(decisions))
        assert action == rule.choose(d, random.Random(decisions))
        assert checked.stats.get("rollouts", 0) == 0
        m.apply(action)
        decisions += 1
    assert decisions > 40
