"""A tiny DMC run: it trains, writes a loadable checkpoint, resumes, and the command works.
Skipped without PyTorch (the [learn] extra; dev has it too)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

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


def _train(out: Path, *args: str) -> Any:
    return CliRunner().invoke(app, ["train", "--out", str(out), "--actors", "1", "--json",
                                    *args])


@pytest.mark.parametrize(("args", "why"), [
    (["--rules", "quoridor-2"], "--rules quoridor-2 is a 步步为营 preset; gunzi train learns "
                                "the card games: gunzi, classic-1"),
    (["--rules", "nope"], "unknown rule preset 'nope'"),
    (["-o", "follow=xx"], "rule option 'follow' cannot be 'xx'; valid values: 'dead', 'live'"),
    (["-o", "follow"], "rule override 'follow' must look like option=value"),
    (["--resume", "-o", "follow=xx"], "rule option 'follow' cannot be 'xx'"),
])
def test_a_bad_preset_or_option_is_one_line_and_exit_2(tmp_path: Path, args: list[str],
                                                      why: str) -> None:
    result = _train(tmp_path / "run", "--hands", "16", *args)
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("gunzi train: ") and why in lines[0], lines
    assert not (tmp_path / "run").exists()


def test_resume_keeps_the_runs_settings_and_refuses_others(tmp_path: Path) -> None:
    run = tmp_path / "run"
    first = _train(run, "--rules", "gunzi", "-o", "follow=live", "--hands", "2", "--seed",
                   "5", "--lr", "5e-4", "--hidden", "16", "--batch", "64")
    assert first.exit_code == 0, first.output
    # Only the new total on the command line: every other setting is the checkpoint's.
    again = _train(run, "--hands", "4", "--resume")
    assert again.exit_code == 0, again.output
    _, data = dmc.load(run / dmc.CHECKPOINT)
    config = data["config"]
    assert data["hands_done"] == 4
    assert (config["preset"], config["options"], config["seed"], config["lr"],
            config["hidden"], config["batch"]) == ("gunzi", {"follow": "live"}, 5, 5e-4, 16,
                                                   64)
    # The run's own values may be repeated; the cadence may change; the rest may not.
    same = _train(run, "--hands", "6", "--resume", "--rules", "gunzi", "--seed", "5",
                  "--checkpoint-every", "7")
    assert same.exit_code == 0, same.output
    assert dmc.load(run / dmc.CHECKPOINT)[1]["config"]["checkpoint_every"] == 7
    for args, flag in ((["--lr", "1e-3"], "--lr"), (["--rules", "classic-1"], "--rules"),
                       (["-o", "follow=dead"], "--option"), (["--hidden", "256"], "--hidden"),
                       (["-o", "tribute_rule=two"], "--option"),
                       (["--first-hands"], "--first-hands")):
        refused = _train(run, "--hands", "8", "--resume", *args)
        assert refused.exit_code == 2, (args, refused.output)
        line = refused.output.strip()
        assert "\n" not in line and flag in line and "resumed run keeps" in line, line
    assert dmc.load(run / dmc.CHECKPOINT)[1]["hands_done"] == 6  # nothing was trained
    # The library refuses the same.
    with pytest.raises(ValueError, match="lr"):
        dmc.train(dmc.TrainConfig(preset="gunzi", options={"follow": "live"}, hands=8,
                                  seed=5, hidden=16, batch=64), run, resume=True)


def test_resume_below_the_hands_done_is_refused_and_leaves_the_checkpoint(
        tmp_path: Path) -> None:
    run = tmp_path / "run"
    common = ["--rules", "classic-1", "--hidden", "16", "--batch", "64"]
    assert _train(run, *common, "--hands", "4").exit_code == 0
    before = (run / dmc.CHECKPOINT).read_bytes()
    loss = (run / dmc.LOSS_LOG).read_text()
    for args in (["--hands", "2"], ["--hands", "4"], []):  # [] : the run's own total, done
        refused = _train(run, "--resume", *args)
        assert refused.exit_code == 2, (args, refused.output)
        assert refused.stderr.splitlines() == [
            "gunzi train: already at 4 hands; give --hands above 4 to train more"], args
    assert (run / dmc.CHECKPOINT).read_bytes() == before  # config.hands still 4
    assert (run / dmc.LOSS_LOG).read_text() == loss
    with pytest.raises(ValueError, match="already at 4 hands"):  # the library refuses too
        dmc.train(dmc.TrainConfig(preset="classic-1", hands=3, hidden=16, batch=64), run,
                  resume=True)
    assert (run / dmc.CHECKPOINT).read_bytes() == before


def test_the_progress_of_a_resumed_run_starts_at_the_hands_done(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gunzi.env import train_command
    from gunzi.progress import Reporter

    started: list[tuple[int, int]] = []

    class Recording(Reporter):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            started.append((self.start, self.total))

    monkeypatch.setattr(train_command, "Reporter", Recording)
    run = tmp_path / "run"
    common = ["--rules", "classic-1", "--hidden", "16", "--batch", "64"]
    assert _train(run, *common, "--hands", "2").exit_code == 0
    assert _train(run, "--resume", "--hands", "4").exit_code == 0
    assert started == [(0, 2), (2, 4)]


def test_a_new_run_refuses_a_folder_holding_one_unless_overwrite(tmp_path: Path) -> None:
    run = tmp_path / "run"
    common = ["--rules", "classic-1", "--hidden", "16", "--batch", "64"]
    assert _train(run, *common, "--hands", "2").exit_code == 0
    (run / dmc.EVALS).mkdir()
    (run / dmc.EVALS / "hands-000000002.npz").write_bytes(b"")
    (run / dmc.EVAL_LOG).write_text('{"hand": 2}\n')
    loss = (run / dmc.LOSS_LOG).read_text()
    refused = _train(run, *common, "--hands", "2")
    assert refused.exit_code == 2 and "--resume" in refused.output
    assert "--overwrite" in refused.output
    assert (run / dmc.LOSS_LOG).read_text() == loss and (run / dmc.EVAL_LOG).exists()
    both = _train(run, *common, "--hands", "2", "--resume", "--overwrite")
    assert both.exit_code == 2 and "one of them" in both.output
    fresh = _train(run, *common, "--hands", "1", "--overwrite", "--seed", "4")
    assert fresh.exit_code == 0, fresh.output
    assert not (run / dmc.EVAL_LOG).exists() and not (run / dmc.EVALS).exists()
    assert dmc.load(run / dmc.CHECKPOINT)[1]["config"]["seed"] == 4
    # An empty folder, or one holding other files only, is a new run's.
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    assert _train(other, *common, "--hands", "1").exit_code == 0
    with pytest.raises(FileExistsError, match="--resume"):
        dmc.train(dmc.TrainConfig(hands=1, hidden=16), other)


@pytest.mark.parametrize(("address", "missing", "why"), [
    ("ray://head:10001", "grpc", "--ray ray://head:10001 connects with Ray Client, which "
                                 "needs pip install 'ray[client]'"),
    ("auto", "ray", "--ray needs Ray: pip install -e '.[learn]'"),
])
def test_a_missing_ray_package_is_one_line_before_the_folder_is_touched(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, address: str, missing: str,
        why: str) -> None:
    monkeypatch.setitem(sys.modules, missing, None)  # as if not installed
    result = _train(tmp_path / "run", "--hands", "16", "--ray", address)
    assert result.exit_code == 2, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"gunzi train: {why}"), lines
    assert not (tmp_path / "run").exists()


def test_an_unreachable_ray_cluster_leaves_the_folder_untouched(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("ray")
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    result = _train(tmp_path / "run", "--hands", "16", "--ray", "auto")
    assert result.exit_code == 2, result.output
    assert "--ray auto" in result.stderr and len(result.stderr.splitlines()) == 1
    assert not (tmp_path / "run").exists()  # the actors start before the folder is made
