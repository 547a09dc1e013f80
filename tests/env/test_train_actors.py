"""Actors of ``gunzi train``: in-process, local processes and Ray train the same net from the
same seed; the imitation warm start follows its teacher; the duplicate evaluation is logged
and plotted."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from typer.testing import CliRunner  # noqa: E402

from gunzi.bots.base import play  # noqa: E402
from gunzi.bots.rule import RuleBot  # noqa: E402
from gunzi.cli import app  # noqa: E402
from gunzi.env import dmc, dmc_actors  # noqa: E402
from gunzi.env.cards import CardEnv, net_levels  # noqa: E402

TINY = dict(preset="classic-1", hands=8, seed=5, batch=128, hidden=16, round_hands=4)


def _weights(folder: Path) -> list[torch.Tensor]:
    net, data = dmc.load(folder / dmc.CHECKPOINT)
    assert data["hands_done"] == TINY["hands"]
    return list(net.state_dict().values())


def _same_net(a: Path, b: Path) -> bool:
    return all(torch.equal(x, y) for x, y in zip(_weights(a), _weights(b), strict=True))


@pytest.fixture(scope="module")
def in_process(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, object]]:
    out = tmp_path_factory.mktemp("one")
    summary = dmc.train(dmc.TrainConfig(**TINY), out, actors=1)  # type: ignore[arg-type]
    assert summary["actors"] == {dmc_actors.ACTOR_ID: TINY["hands"]}
    assert summary["updates"] > 0
    return out, summary


def _played_elsewhere(summary: dict[str, object], k: int) -> None:
    actors = summary["actors"]
    assert isinstance(actors, dict)
    assert dmc_actors.ACTOR_ID not in actors  # not this process
    assert len(actors) == k and sum(actors.values()) == TINY["hands"]


def test_local_processes_train_the_same_net(in_process: tuple[Path, dict[str, object]],
                                            tmp_path: Path) -> None:
    summary = dmc.train(dmc.TrainConfig(**TINY), tmp_path, actors=2)  # type: ignore[arg-type]
    _played_elsewhere(summary, 2)
    assert summary["last_loss"] == in_process[1]["last_loss"]
    assert _same_net(tmp_path, in_process[0])


def test_ray_actors_train_the_same_net(in_process: tuple[Path, dict[str, object]],
                                       tmp_path: Path) -> None:
    pytest.importorskip("ray")
    result = CliRunner().invoke(app, [
        "train", "--out", str(tmp_path), "--rules", "classic-1", "--hands", "8", "--seed", "5",
        "--batch", "128", "--hidden", "16", "--round-hands", "4", "--ray", "local",
        "--actors", "2", "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    _played_elsewhere(summary, 2)
    assert _same_net(tmp_path, in_process[0])


def test_the_teacher_is_followed_token_by_token() -> None:
    """Without exploration, the imitation actor plays exactly the teacher's hand."""
    game = dmc_actors.Game("gunzi", {}, mid_round=True)
    traj, = dmc_actors.Actor(game).play([dmc_actors.Job(3, 7, 0.0, "rule")], None)
    env = CardEnv("gunzi", mid_round=True)
    env.reset(seed=dmc_actors.hand_seed(7, 3))
    play(env.match, [RuleBot() for _ in range(4)], random.Random(0), hands=1)
    assert list(traj.rewards) == [net_levels(env.match.results[0], s) for s in range(4)]
    assert len(traj.expert) == len(traj.tokens) > 50
    assert all(len(legal) > 0 and tok in legal for legal, tok in zip(traj.expert, traj.tokens,
                                                                     strict=True))
    explored, = dmc_actors.Actor(game).play([dmc_actors.Job(3, 7, 0.5, "rule")], None)
    assert 0 < sum(len(x) == 0 for x in explored.expert) < len(explored.tokens)


def test_imitation_then_self_play_with_evaluation_and_plot(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, [
        "train", "--out", str(tmp_path), "--rules", "classic-1", "--hands", "6",
        "--round-hands", "2", "--batch", "64", "--hidden", "16", "--actors", "1",
        "--imitate", "rule", "--imitate-hands", "4", "--eval-every", "3",
        "--eval-deals", "2", "--json"])
    assert result.exit_code == 0, result.output
    losses = [json.loads(line) for line in (tmp_path / dmc.LOSS_LOG).open()]
    assert any("imitation" in x for x in losses if x["hand"] <= 4)
    # Self-play samples carry no imitation target (a few imitation samples left over in
    # the buffer may still share the first self-play update).
    assert losses[-1]["hand"] == 6 and "imitation" not in losses[-1]
    evals = [json.loads(line) for line in (tmp_path / dmc.EVAL_LOG).open()]
    assert [e["hand"] for e in evals] == [4, 6]  # rounds end at 2, 4, 6; every 3 hands
    for e in evals:
        assert e["pairs"] == 2 and e["against"] == "rule"
        assert e["ci95"][0] <= e["net"] <= e["ci95"][1]
        assert Path(e["weights"]).exists()
    png = tmp_path / "curve.png"
    plotted = CliRunner().invoke(app, ["plot-training", str(tmp_path), str(png), "--json"])
    assert plotted.exit_code == 0, plotted.output
    assert json.loads(plotted.stdout)["evaluations"] == 2
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(("args", "message"), [
    (["--imitate", "nobody"], "no bot 'nobody'"),
    (["--imitate", "rule"], "gunzi train: --imitate rule needs --imitate-hands N"),
    (["--imitate", "rule", "--imitate-hands", "0"], "--imitate rule needs --imitate-hands N"),
    (["--imitate-hands", "8"], "gunzi train: --imitate-hands 8 needs --imitate BOT"),
    (["--eval-every", "2", "--eval-against", "nobody"], "--eval-"),
    (["--eval-every", "2", "--eval-bank", "missing.jsonl"], "--eval-"),
])
def test_bad_training_options_are_refused(tmp_path: Path, args: list[str], message: str
                                          ) -> None:
    result = CliRunner().invoke(app, ["train", "--out", str(tmp_path), "--hands", "2", *args])
    assert result.exit_code == 2 and message in result.output
    assert not (tmp_path / dmc.CHECKPOINT).exists()


def test_plotting_an_empty_folder_is_refused(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["plot-training", str(tmp_path), str(tmp_path / "x.png")])
    assert result.exit_code == 2 and "neither" in result.output
