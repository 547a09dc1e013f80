"""The ``learned`` bot: numpy evaluates the exported net as PyTorch does, the bot plays
whole hands legally (its own and through the arena), and the shipped weights need no
PyTorch."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from gunzi.bots import card_obs
from gunzi.bots import card_tokens as T
from gunzi.bots.advantage_net import AdvantagePolicy
from gunzi.bots.base import Bot, Decision, play
from gunzi.bots.learned import DMC_WEIGHTS, WEIGHTS, LearnedBot, Policy
from gunzi.bots.registry import make_bot, names
from gunzi.engine.actions import Action, Kind
from gunzi.engine.match import Match
from gunzi.engine.rules import preset


def test_numpy_forward_equals_torch(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    from gunzi.env import dmc

    torch.manual_seed(4)
    config = dmc.TrainConfig(preset="gunzi", hands=2, batch=10**6, hidden=48)
    dmc.train(config, tmp_path)  # no update: only the checkpoint of a fresh net
    net, _ = dmc.load(tmp_path / dmc.CHECKPOINT)
    with torch.no_grad():  # random weights of every layer, not just the initial ones
        for p in net.parameters():
            p.copy_(torch.randn_like(p) * 0.2)
    data = torch.load(tmp_path / dmc.CHECKPOINT, weights_only=False)
    data["model"] = net.state_dict()
    torch.save(data, tmp_path / dmc.CHECKPOINT)
    out = tmp_path / "w.npz"
    result = CliRunner().invoke(_app(), ["export-policy", str(tmp_path / dmc.CHECKPOINT),
                                         str(out), "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["hidden"] == 48 and summary["hands"] == 2 and summary["preset"] == "gunzi"
    policy = Policy(out)
    rng = np.random.default_rng(0)
    obs = rng.random((64, card_obs.OBS_SIZE), dtype=np.float32)
    tokens = rng.integers(0, T.NUM_ACTIONS, 64)
    with torch.no_grad():
        want = net(torch.from_numpy(obs), torch.from_numpy(tokens)).numpy()
    np.testing.assert_allclose(policy.q(obs, tokens), want, rtol=0, atol=1e-5)
    legal = [0, 5, 60, 221, 222]
    with torch.no_grad():
        want1 = net(torch.from_numpy(np.repeat(obs[:1], 5, 0)), torch.tensor(legal)).numpy()
    np.testing.assert_allclose(policy.values(obs[0], legal), want1, rtol=0, atol=1e-5)
    assert net.best(obs[0], legal) == legal[int(np.argmax(policy.values(obs[0], legal)))]
    half = tmp_path / "h.npz"
    CliRunner().invoke(_app(), ["export-policy", str(tmp_path / dmc.CHECKPOINT), str(half),
                                "--half"])
    assert half.stat().st_size < out.stat().st_size
    np.testing.assert_allclose(Policy(half).q(obs, tokens), want, atol=0.05)


@pytest.mark.parametrize(("weights", "key", "load"), [
    (DMC_WEIGHTS, "obs_version", Policy),
    (WEIGHTS, "obs_version", AdvantagePolicy),
    (WEIGHTS, "features_version", AdvantagePolicy),
])
def test_weights_of_another_layout_are_refused(tmp_path: Path, weights: Path, key: str,
                                               load: Any) -> None:
    with np.load(weights) as data:
        arrays = dict(data)
    arrays[f"meta.{key}"] = np.asarray(int(arrays[f"meta.{key}"]) + 1)
    path = tmp_path / "old.npz"
    with path.open("wb") as f:
        np.savez(f, **arrays)
    with pytest.raises(ValueError, match="observation v"):
        load(path)


def test_exported_nets_record_their_rule_options_and_cover_only_those(tmp_path: Path
                                                                     ) -> None:
    """export-policy and the evaluations' exports record the options a net was trained
    with; ``covers`` compares the preset and its options, not only the game's name."""
    pytest.importorskip("torch")
    from gunzi.env import dmc

    config = dmc.TrainConfig(preset="gunzi", options={"follow": "live"}, hands=1,
                             batch=10**6, hidden=16)
    dmc.train(config, tmp_path)  # no update: a fresh net is enough
    out = tmp_path / "live.npz"
    result = CliRunner().invoke(_app(), ["export-policy", str(tmp_path / dmc.CHECKPOINT),
                                         str(out), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["options"] == {"follow": "live"}
    with np.load(out) as data:
        assert json.loads(str(data["meta.options"])) == {"follow": "live"}
    bot = LearnedBot(out)
    assert bot.trained_options == {"follow": "live"}
    assert bot.covers(preset("gunzi", follow="live"))
    assert not bot.covers(preset("gunzi")) and not bot.covers(preset("classic-1"))
    # The shipped files carry no options: trained on the default 打滚子.
    for weights in (WEIGHTS, DMC_WEIGHTS):
        shipped = LearnedBot(weights)
        assert shipped.trained_options == {} and shipped.covers(preset("gunzi"))
        assert not shipped.covers(preset("gunzi", follow="live"))
        assert not shipped.covers(preset("classic-2"))


def test_policy_reads_the_shipped_token_net_and_says_what_an_advantage_net_is() -> None:
    """``Policy()`` is the shipped token net; given the advantage net (the shipped learned
    bot's), it says what that file is and what to load it with, not a version mismatch."""
    assert Policy().hidden == Policy(DMC_WEIGHTS).hidden == 256
    with pytest.raises(ValueError, match=r"advantage net .*learned\.policy\(path\)"):
        Policy(WEIGHTS)


class Counting(Bot):
    """The learned bot, counting the kinds of decision it answered."""

    def __init__(self, weights: Path) -> None:
        self.inner = LearnedBot(weights)
        self.kinds: set[Kind] = set()

    def choose(self, decision: Decision, rng: random.Random) -> Action:
        self.kinds.add(decision.kind)
        action = self.inner.choose(decision, rng)
        assert decision.check(action) is None, (decision.kind, action)
        return action


@pytest.mark.parametrize("weights", [WEIGHTS, DMC_WEIGHTS], ids=["advantage", "dmc"])
@pytest.mark.parametrize(("rules", "hands", "kinds"), [
    ("gunzi", 6, {Kind.DECLARE, Kind.TRIBUTE, Kind.RETURN, Kind.BURY, Kind.BURY_JOKERS,
                  Kind.PLAY}),
    ("classic-1", 2, {Kind.DECLARE, Kind.BURY, Kind.PLAY}),
    ("classic-2", 2, {Kind.DECLARE, Kind.BURY, Kind.PLAY}),
])
def test_plays_whole_hands_legally(rules: str, hands: int, kinds: set[Kind],
                                   weights: Path) -> None:
    """Every seat learned (so it buries, returns and leads too), every action legal and
    none a fallback."""
    bots = [Counting(weights) for _ in range(4)]
    seen: set[Kind] = set()
    for seed in range(3):
        m = Match(preset(rules), random.Random(seed))
        play(m, list(bots), random.Random(seed), hands=hands)
        assert len(m.results) == hands or m.is_over
    for b in bots:
        seen |= b.kinds
        assert b.inner.fallbacks == 0
    assert kinds <= seen


def _app() -> object:
    from gunzi.cli import app

    return app


@pytest.mark.parametrize("rules", ["gunzi", "classic-1"])
def test_arena_learned_against_rule(rules: str) -> None:
    result = CliRunner().invoke(_app(), ["arena", "--bots", "learned,rule", "--rules", rules,
                                         "--deals", "2", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["pairs"] == 2
    assert "learned" in names()
    assert isinstance(make_bot("learned"), LearnedBot)
    assert "fallback" not in result.stderr


def test_shipped_weights_play_without_torch() -> None:
    size = WEIGHTS.stat().st_size
    assert size <= 10 * 2**20
    code = (
        "import random, sys\n"
        "from gunzi.bots.base import play\n"
        "from gunzi.bots.registry import make_bot\n"
        "from gunzi.engine.match import Match\n"
        "from gunzi.engine.rules import preset\n"
        "m = Match(preset('gunzi'), random.Random(1))\n"
        "bots = [make_bot('learned') for _ in range(4)]\n"
        "play(m, bots, random.Random(1), hands=1)\n"
        "assert len(m.results) == 1\n"
        "assert 'torch' not in sys.modules, 'torch was imported'\n"
        "print(bots[0].policy.meta['hidden'], sum(b.fallbacks for b in bots))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=False, timeout=120)
    assert out.returncode == 0, out.stderr
    hidden, fallbacks = out.stdout.split()
    assert int(hidden) > 0 and fallbacks == "0"


def test_plays_in_the_terminal_session() -> None:
    """Three learned bots at the terminal's table (the human's seat played at random)."""
    from gunzi.tui.session import Session

    s = Session(preset("gunzi"), bots=["learned"] * 3, seed=1, record_path=None)
    rng = random.Random(0)
    for _ in range(5000):
        if len(s.match.results) >= 2:
            break
        if s.needs_step():
            s.step()
        elif s.turn() is not None:
            s.apply(s.random_action(0, rng))
        else:
            assert s.summary is not None
            s.acknowledge()
    assert len(s.match.results) == 2
    assert all(isinstance(b, LearnedBot) and b.fallbacks == 0 for b in s.bots[1:])


@pytest.mark.parametrize(("rules", "seed"), [("gunzi", 1), ("classic-1", 2)])
def test_plays_what_the_trained_net_plays_in_the_environment(rules: str, seed: int) -> None:
    """The bot, from its Decision, chooses the action the torch net builds greedily token
    by token in the environment it was trained in (same observation, same tokens)."""
    torch = pytest.importorskip("torch")
    from gunzi.bots.base import observe
    from gunzi.env import dmc
    from gunzi.env.cards import CardEnv

    bot = LearnedBot(DMC_WEIGHTS)
    net = dmc.QNet(int(bot.policy.meta["hidden"]))
    with np.load(DMC_WEIGHTS) as data:
        net.load_state_dict({k: torch.from_numpy(data[k].astype(np.float32))
                             for k in data.files if not k.startswith("meta.")})
    played: list[Action] = []
    wanted: list[Action] = []

    class Recording(CardEnv):
        def play(self, action: Action) -> bool:
            played.append(action)
            return super().play(action)

    env = Recording(rules)
    env.reset(seed=seed)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        if not env.builder.built:
            wanted.append(bot.decide(observe(env.match, env.possible_agents.index(agent))))
        env.step(net.best(obs["observation"], [int(t) for t in
                                                np.flatnonzero(obs["action_mask"])]))
    assert len(played) > 50
    assert played == wanted
