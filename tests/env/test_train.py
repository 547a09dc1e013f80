"""A tiny DMC run: it trains, writes a loadable checkpoint, resumes, and the command works.
Skipped without PyTorch (the [learn] extra; dev has it too)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from typer.testing import CliRunner  # noqa: E402

from gunzi.bots import card_obs  # noqa: E402
from gunzi.cli import app  # noqa: E402
from gunzi.env import dmc  # noqa: E402


def test_a_few_hundred_hands_train_and_resume(tmp_path: Path) -> None:
    config = dmc.TrainConfig(preset="classic-1", hands=150, seed=3, batch=512,
                             checkpoint_every=50, hidden=64)
    first = dmc.train(config, tmp_path)
    assert first["hands_done"] == 150 and first["updates"] >= 10
    losses = [json.loads(line)["loss"] for line in (tmp_path / dmc.LOSS_LOG).open()]
    assert len(losses) == first["updates"] and all(np.isfinite(losses))
    net, data = dmc.load(tmp_path / dmc.CHECKPOINT)
    assert data["hands_done"] == 150
    obs = np.zeros(card_obs.OBS_SIZE, dtype=np.float32)
    assert net.best(obs, [3, 7, 221]) in (3, 7, 221)
    # Resume continues the same run to the new total, from the saved counters.
    config.hands = 250
    second = dmc.train(config, tmp_path, resume=True)
    assert second["hands_this_run"] == 100 and second["hands_done"] == 250
    after, _ = dmc.load(tmp_path / dmc.CHECKPOINT)
    changed = any(not torch.equal(a, b) for a, b in zip(net.state_dict().values(),
                                                        after.state_dict().values(),
                                                        strict=True))
    assert changed  # the resumed run went on learning


def test_the_seed_makes_the_run_repeat(tmp_path: Path) -> None:
    config = dmc.TrainConfig(preset="classic-1", hands=20, seed=9, batch=256, hidden=32)
    a = dmc.train(config, tmp_path / "a")
    b = dmc.train(config, tmp_path / "b")
    assert a["last_loss"] == b["last_loss"] and a["updates"] == b["updates"] > 0


def test_gunzi_train_command(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["train", "--out", str(tmp_path), "--rules", "classic-1",
                                      "--hands", "12", "--batch", "256", "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    assert summary["hands_done"] == 12
    again = CliRunner().invoke(app, ["train", "--out", str(tmp_path / "none"), "--resume",
                                     "--hands", "5"])
    assert again.exit_code == 2 and "nothing to resume" in again.output
