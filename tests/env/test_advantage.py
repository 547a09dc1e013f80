"""The advantage net's data, training and bot (docs/bots.md, "The advantage net").

Labels are checked against the engine itself: each candidate played on a clone of the real
match, the rest of the hand played by the rule bot through ``observe`` (the path every bot
takes), and the engine's hand result scored by the value formula restated here."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from gunzi.bots import card_obs, play_features
from gunzi.bots.base import observe, play
from gunzi.bots.learned import LearnedBot
from gunzi.bots.rule import RuleBot
from gunzi.engine import cards as C
from gunzi.engine.actions import Action, Kind
from gunzi.engine.match import Match
from gunzi.engine.rules import preset
from gunzi.env import advantage_data as AD
from gunzi.env.cards import CardEnv


def _start(seed: int) -> Match:
    env = CardEnv("gunzi", mid_round=True)
    env.reset(seed=seed)
    return env.match


def _late_decisions(match: Match, n: int, max_cards: int = 15) -> list[Match]:
    """Clones of ``match`` at its first ``n`` late card plays with a choice (rule play)."""
    rule = RuleBot()
    rng = random.Random(0)
    out = []
    while len(out) < n and not match.results:
        d = observe(match, match.to_act)
        if (d.kind is Kind.PLAY and d.actions and len(d.actions) > 1
                and sum(d.hand) <= max_cards):
            out.append(match.clone())
        match.apply(rule.choose(d, rng))
    return out


def _engine_value(match: Match, action: Action, seat: int) -> tuple[float, float, bool]:
    """The candidate's value by the engine (play it, let rule bots finish), its score-margin
    part, and whether the levels were capped (the labels count levels before the cap)."""
    m = match.clone()
    m.apply(action)
    rule = RuleBot()
    rng = random.Random(0)
    while not m.results:
        m.apply(rule.choose(observe(m, m.to_act), rng))
    r: dict[str, Any] = m.results[-1]
    team = seat % 2
    levels = r["levels_awarded"]
    upgrading = r["attackers"] if r["attackers_take"] else 1 - r["attackers"]
    net = 0 if levels <= 0 else levels if upgrading == team else -levels
    margin = (r["score"] - 120) / 100
    signed = margin if team == r["attackers"] else -margin
    capped = max(r["levels_after"]) >= m.rules.last_level
    return net + 0.25 * signed, signed, capped


@pytest.mark.parametrize("seed", [3, 4])
def test_labels_are_what_the_engine_scores(seed: int) -> None:
    checked = 0
    for m in _late_decisions(_start(seed), 3):
        seat = m.to_act
        d = observe(m, seat)
        assert d.actions is not None
        plays = [a.cards for a in d.actions[:6]]
        got = AD._values(m, d, plays)
        for action, (value, margin) in zip(d.actions[:6], got, strict=True):
            want, want_margin, capped = _engine_value(m, action, seat)
            assert margin == pytest.approx(want_margin)
            if not capped:
                assert value == pytest.approx(want), (seat, action)
                checked += 1
    assert checked >= 6


def test_a_hand_is_labelled_reproducibly_relative_to_the_rule_play() -> None:
    a = AD.label_hand(5, 0)
    b = AD.label_hand(5, 0)
    assert len(a.obs) > 5
    np.testing.assert_array_equal(a.labels, b.labels)
    np.testing.assert_array_equal(a.obs, b.obs)
    rule_rows = a.feats[:, play_features.OFFSETS["is_rule"]] == 1
    # one rule play per decision, first of its decision, label 0
    assert rule_rows.sum() == len(a.obs)
    starts = np.flatnonzero(np.r_[True, a.owner[1:] != a.owner[:-1]])
    assert rule_rows[starts].all() and (a.labels[rule_rows] == 0).all()
    assert (a.labels != 0).any()
    hand = a.obs[:, card_obs.OFFSETS["hand"]:card_obs.OFFSETS["hand"] + C.NUM_TYPES]
    assert (np.rint(hand.astype(np.float32).sum(1) * 3) <= AD.MAX_CARDS).all()


def test_features_count_the_stronger_cards_the_seat_has_not_seen() -> None:
    for m in _late_decisions(_start(7), 4):
        seat = m.to_act
        d = observe(m, seat)
        assert d.actions is not None
        plays = [a.cards for a in d.actions]
        f = play_features.features(d.view, d.rules, d.hand, plays, 0)
        order = play_features.order_of(d.view, d.rules)
        hidden = [0] * C.NUM_TYPES  # from the match: other hands, and the kitty if unseen
        for s in range(4):
            if s != seat:
                for c in range(C.NUM_TYPES):
                    hidden[c] += m.hands[s][c]
        if d.view["kitty"]["cards"] is None:
            for c in m.kitty:
                hidden[c] += 1
        for row, cards in zip(f, plays, strict=True):
            first = cards[0]
            want = sum(hidden[c] for c in range(C.NUM_TYPES)
                       if order.cls[c] == order.cls[first] and order.power[c] > order.power[first])
            assert row[play_features.OFFSETS["beaten_by"]] * 12 == pytest.approx(want)
            assert row[play_features.OFFSETS["cards"]:][:C.NUM_TYPES].sum() * 3 == (
                pytest.approx(len(cards)))
        assert f[:, play_features.OFFSETS["is_rule"]].tolist() == [1] + [0] * (len(plays) - 1)


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("torch")
    from gunzi.cli import app

    folder = tmp_path_factory.mktemp("adv")
    runner = CliRunner()
    data = folder / "data"
    out = runner.invoke(app, ["label-advantage", "--out", str(data), "--hands", "6",
                              "--seed", "4", "--json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout)["shards"] == 1
    # tiny shards for the test: the run's shards are files of the same layout
    from gunzi.env.advantage_data import label_run

    paths = label_run(str(folder / "small"), 6, 4, shard=2)
    assert len(paths) == 3
    weights = folder / "net.npz"
    out = runner.invoke(app, ["train-advantage", str(weights), str(folder / "small"),
                              "--epochs", "2", "--hidden", "32", "--holdout", "3", "--json"])
    assert out.exit_code == 0, out.output
    summary = json.loads(out.stdout)
    assert summary["hands"] == 4 and summary["heldout_hands"] == 2
    assert len(summary["history"]) == 2
    return weights


def test_the_net_records_the_rules_it_was_trained_on(trained: Path) -> None:
    with np.load(trained) as data:  # recorded, not only defaulted
        assert json.loads(str(data["meta.options"])) == {}
    bot = LearnedBot(trained)
    assert (bot.trained_on, bot.trained_options) == ("gunzi", {})
    assert bot.covers(preset("gunzi")) and not bot.covers(preset("gunzi", follow="live"))


def test_numpy_evaluates_the_net_as_torch_does(trained: Path) -> None:
    torch = pytest.importorskip("torch")
    from gunzi.bots.advantage_net import AdvantagePolicy
    from gunzi.env.advantage_train import AdvantageNet

    arrays = np.load(trained)
    net = AdvantageNet(32)
    net.load_state_dict({k: torch.from_numpy(arrays[k]) for k in net.state_dict()})
    rng = np.random.default_rng(1)
    obs = rng.random(card_obs.OBS_SIZE, dtype=np.float32)
    feats = rng.random((9, play_features.SIZE), dtype=np.float32)
    with torch.no_grad():
        want = net(torch.from_numpy(np.repeat(obs[None], 9, 0)), torch.from_numpy(feats))
    np.testing.assert_allclose(AdvantagePolicy(trained).values(obs, feats), want.numpy(),
                               rtol=0, atol=1e-5)


def test_the_bot_plays_whole_hands_and_defers_to_the_rule_bot(trained: Path) -> None:
    bot = LearnedBot(trained)
    match = Match(preset("gunzi"), random.Random(2))
    play(match, [bot, RuleBot(), bot, RuleBot()], random.Random(3), hands=2)
    assert bot.fallbacks == 0 and len(match.results) == 2
    # an unreachable threshold: the rule bot's play at every decision
    stiff = LearnedBot(trained, threshold=1e9)
    eager = LearnedBot(trained, threshold=-1e9)
    rule = RuleBot()
    m = _start(9)
    rng = random.Random(0)
    changed = 0
    decisions = []
    cards = int(eager.policy.meta["max_cards"])
    assert 10 <= cards <= AD.MAX_CARDS  # the most the training data held
    while not m.results:
        d = observe(m, m.to_act)
        assert stiff.decide(d) == rule.decide(d)
        if sum(d.hand) > cards:  # larger hands than it was trained on: the rule play
            assert eager.decide(d) == rule.decide(d)
        changed += eager.decide(d) != rule.decide(d)
        decisions.append(d)
        m.apply(rule.choose(d, rng))
    assert changed > 0  # the net does choose other plays when let
    assert eager.decide_many(decisions) == [eager.decide(d) for d in decisions]


def test_a_search_teacher_labels_its_own_estimates() -> None:
    from gunzi.bots.search import SearchBot

    def teacher() -> SearchBot:
        return SearchBot(rollouts=24, time_limit=None)

    a = AD.label_hand(2, 0, max_cards=8, teacher=teacher())
    b = AD.label_hand(2, 0, max_cards=8, teacher=teacher())
    assert len(a.obs) >= 3
    np.testing.assert_array_equal(a.labels, b.labels)  # no clock: reproducible
    starts = np.flatnonzero(np.r_[True, a.owner[1:] != a.owner[:-1]])
    assert (a.labels[starts] == 0).all()  # the rule bot's play, first
    assert (a.feats[starts, play_features.OFFSETS["is_rule"]] == 1).all()
    # a candidate dropped early counts only the deals both it and the rule play were on
    assert AD._paired_mean([1.0, 2.0, 4.0], [0.5, 1.0]) == pytest.approx(0.75)



def test_a_search_teacher_adds_unvalued_plays_it_never_chooses() -> None:
    from gunzi.bots.search import SearchBot

    data = AD.label_hand(6, 0, max_cards=10, cap=9,
                         teacher=SearchBot(rollouts=24, time_limit=None))
    starts = np.flatnonzero(np.r_[True, data.owner[1:] != data.owner[:-1]])
    ends = np.r_[starts[1:], len(data.labels)]
    unvalued = 0
    for s, e in zip(starts, ends, strict=True):
        labels, chosen = data.labels[s:e], data.chosen[s:e]
        assert e - s <= 9 and chosen.sum() == 1
        assert not np.isnan(labels[int(np.argmax(chosen))])  # the choice was played out
        nan = np.isnan(labels)
        # the search's own candidates come first, the unvalued ones after them
        assert not nan[0] and (np.diff(nan.astype(int)) >= 0).all()
        unvalued += int(nan.sum())
        rows = data.feats[s:e].astype(np.float32)
        assert len({r.tobytes() for r in rows}) == e - s  # no play twice
    assert unvalued > 0


def test_unvalued_candidates_count_as_their_decisions_worst() -> None:
    from gunzi.env.advantage_train import gains, known_labels

    nan = float("nan")
    data = AD.Labelled(np.zeros((2, card_obs.OBS_SIZE), np.float16),
                       np.zeros((5, play_features.SIZE), np.float16),
                       np.array([0.0, -0.3, nan, 0.0, nan], np.float32),
                       np.zeros(5, np.float32), np.array([0, 0, 0, 1, 1], np.int32), 1,
                       np.array([1, 0, 0, 1, 0], np.int8))
    np.testing.assert_allclose(known_labels(data), [0.0, -0.3, -0.3, 0.0, 0.0], rtol=1e-6)
    # a net preferring the unvalued plays by 1: it loses 0.3 in the first decision
    pred = np.array([0.0, 0.5, 1.0, 0.0, 1.0], np.float32)
    assert gains(pred, data, [0.0, 2.0]) == {0.0: pytest.approx(-0.15), 2.0: 0.0}
    # below 0, a threshold lets the runner-up within it replace a rule play scored higher
    below = np.array([0.0, -0.5, -1.0, 0.0, -1.0], np.float32)
    assert gains(below, data, [-0.6, -2.0]) == {-0.6: pytest.approx(-0.15),
                                                -2.0: pytest.approx(-0.15)}
    assert gains(np.array([0.0, -0.5, -1.0, 0.0, 3.0], np.float32), data, [-0.6]) == {
        -0.6: pytest.approx(-0.15)}


def test_set_threshold_copies_the_weights_with_another_threshold(trained: Path,
                                                                 tmp_path: Path) -> None:
    from gunzi.bots.advantage_net import ARRAYS, AdvantagePolicy
    from gunzi.bots.learned import DMC_WEIGHTS
    from gunzi.cli import app

    out = tmp_path / "t.npz"
    res = CliRunner().invoke(app, ["set-threshold", str(trained), str(out), "--threshold",
                                   "-0.75", "--source", "arena, deals 1000-1999"])
    assert res.exit_code == 0, res.output
    before, after = AdvantagePolicy(trained), AdvantagePolicy(out)
    assert after.threshold == -0.75 and before.threshold != -0.75
    assert after.meta["threshold_source"] == "arena, deals 1000-1999"
    assert {k: v for k, v in after.meta.items() if not k.startswith("threshold")} == {
        k: v for k, v in before.meta.items() if not k.startswith("threshold")}
    with np.load(trained) as a, np.load(out) as b:
        for name in ARRAYS:
            np.testing.assert_array_equal(a[name], b[name])
    # not an advantage net: refused, nothing written
    dmc = tmp_path / "dmc.npz"
    res = CliRunner().invoke(app, ["set-threshold", str(DMC_WEIGHTS), str(dmc),
                                   "--threshold", "0"])
    assert res.exit_code == 2 and "not an advantage net" in res.output and not dmc.exists()


def test_average_nets_scores_every_play_with_the_mean_of_the_members(
        trained: Path, tmp_path: Path) -> None:
    from gunzi.bots import advantage_net, card_obs, play_features
    from gunzi.bots.advantage_net import ARRAYS, AdvantagePolicy
    from gunzi.bots.learned import DMC_WEIGHTS
    from gunzi.cli import app

    # a second member: the trained net's weights moved at random (another net of the
    # same shape and metadata)
    rng = np.random.default_rng(3)
    with np.load(trained) as data:
        arrays = {n: data[n] + rng.normal(0, 0.1, data[n].shape).astype(np.float32)
                  for n in ARRAYS}
        meta = {k[5:]: data[k].item() for k in data.files if k.startswith("meta.")}
    meta["threshold"] = 0.5
    other = tmp_path / "other.npz"
    advantage_net.save(other, arrays, **meta)
    out = tmp_path / "mean.npz"
    res = CliRunner().invoke(app, ["average-nets", str(out), str(trained), str(other),
                                   "--threshold", "-0.5", "--source", "a test"])
    assert res.exit_code == 0, res.output
    members = [AdvantagePolicy(trained), AdvantagePolicy(other)]
    mean = AdvantagePolicy(out)
    obs = rng.normal(0, 1, (3, card_obs.OBS_SIZE)).astype(np.float32)
    feats = rng.normal(0, 1, (7, play_features.SIZE)).astype(np.float32)
    owner = np.array([0, 0, 1, 2, 2, 2, 1], dtype=np.intp)
    # each member scored on its own, then averaged by hand
    want = (members[0].shared(obs, owner, feats) + members[1].shared(obs, owner, feats)) / 2
    np.testing.assert_allclose(mean.shared(obs, owner, feats), want, rtol=1e-4, atol=1e-5)
    assert mean.threshold == -0.5 and mean.meta["threshold_source"] == "a test"
    assert mean.meta["hands"] == 2 * members[0].meta["hands"]
    # without a threshold: the members' mean
    advantage_net.average([trained, other], tmp_path / "m2.npz")
    assert AdvantagePolicy(tmp_path / "m2.npz").threshold == pytest.approx(
        (members[0].threshold + 0.5) / 2)
    # members trained for other cards held, or not advantage nets: refused, nothing written
    meta["max_cards"] = int(meta.get("max_cards", 15)) + 1
    advantage_net.save(other, arrays, **meta)
    for bad in (other, DMC_WEIGHTS):
        res = CliRunner().invoke(app, ["average-nets", str(tmp_path / "bad.npz"),
                                       str(trained), str(bad)])
        assert res.exit_code == 2 and not (tmp_path / "bad.npz").exists(), res.output
    res = CliRunner().invoke(app, ["average-nets", str(tmp_path / "bad.npz"), str(trained)])
    assert res.exit_code == 2 and "at least two" in res.output
