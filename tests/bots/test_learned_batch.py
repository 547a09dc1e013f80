"""The learned bot's batch path: many decisions scored together choose exactly what each
chooses alone, and listed actions get the values of their last token."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
from typer.testing import CliRunner

from gunzi.bots import card_obs
from gunzi.bots import card_tokens as T
from gunzi.bots.base import Decision, observe
from gunzi.bots.learned import DMC_WEIGHTS, WEIGHTS, LearnedBot, blas_threads
from gunzi.cli import app
from gunzi.engine.actions import Kind
from gunzi.engine.match import Match
from gunzi.engine.rules import preset


def _decisions(rules: str, seed: int, hands: int = 1) -> list[Decision]:
    """Every decision of ``hands`` hands played by random seats."""
    rng = random.Random(seed)
    m = Match(preset(rules), random.Random(seed))
    out = []
    while len(m.results) < hands and not m.is_over:
        seat = m.to_act
        assert seat is not None
        d = observe(m, seat)
        out.append(d)
        m.apply(d.sample(rng))
    return out


@pytest.mark.parametrize("weights", [WEIGHTS, DMC_WEIGHTS], ids=["advantage", "dmc"])
@pytest.mark.parametrize(("rules", "seed"), [("gunzi", 5), ("classic-2", 6)])
def test_a_batch_chooses_what_each_decision_chooses_alone(rules: str, seed: int,
                                                          weights: object) -> None:
    decisions = _decisions(rules, seed)
    kinds = {d.kind for d in decisions}
    assert {Kind.BURY, Kind.PLAY} <= kinds  # card-by-card builds among them
    bot = LearnedBot(weights)  # type: ignore[arg-type]
    alone = [bot.decide(d) for d in decisions]
    assert bot.decide_many(decisions) == alone
    shuffled = list(range(len(decisions)))
    random.Random(0).shuffle(shuffled)
    assert bot.decide_many([decisions[i] for i in shuffled]) == [alone[i] for i in shuffled]
    assert bot.choose_many(decisions, random.Random(0)) == alone  # all legal: no fallback
    assert bot.fallbacks == 0 and bot.decide_many([]) == []


@pytest.mark.parametrize(("rules", "seed"), [("gunzi", 7), ("classic-1", 8)])
def test_action_values_are_the_values_of_the_last_token(rules: str, seed: int) -> None:
    bot = LearnedBot(DMC_WEIGHTS)
    grouped = rules == "gunzi"
    checked = 0
    for d in _decisions(rules, seed):
        actions = d.actions if d.actions is not None else (
            d.listing() if d.listing is not None else None)
        if not actions or len(actions) < 2 or d.kind is not Kind.PLAY:
            continue
        got = bot.action_values(d, actions)
        for a, value in zip(actions, got, strict=True):
            seq = T.tokens(a, grouped)
            obs = card_obs.encode(d.view, d.rules, [t for t in seq[:-1] if t < T.GROUP0])
            want = bot.policy.values(obs, [seq[-1]])[0]
            assert value == pytest.approx(float(want), abs=1e-5)
        checked += 1
    assert checked >= 3
    assert np.isfinite(got).all()


def test_the_benchmark_command_reports_every_batch_size() -> None:
    result = CliRunner().invoke(app, ["bench-learned", "--hands", "1", "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["decisions"] > 20 and out["hidden"] > 0 and out["single_per_cpu_second"] > 0
    # The net's loading keeps BLAS on one thread whatever OPENBLAS_NUM_THREADS says: the
    # figure says what ran.
    assert out["blas_threads"] == blas_threads() == 1
    assert set(out["batched"]) == {"8", "32", "128"}
    for row in out["batched"].values():
        assert row["same"] is True and row["per_cpu_second"] > 0
        assert row["ratio"] == pytest.approx(row["per_cpu_second"] / out["single_per_cpu_second"],
                                             abs=0.01)
