"""The `gunzi` command line (typer app): simulate, replay, rules, bench."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from gunzi.cli import app
from gunzi.engine import records
from gunzi.engine.rules import OPTIONS, PRESETS

runner = CliRunner()
TIMING = {"seconds", "hands_per_second"}


def invoke(*args: str) -> Any:
    return runner.invoke(app, list(args))


def run_json(*args: str) -> Any:
    result = invoke(*args)
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def flat(text: str) -> str:
    """Console output with rich's line wrapping undone."""
    return " ".join(text.split())


# ---------------------------------------------------------------------------- simulate
def test_simulate_json_figures() -> None:
    out = run_json("simulate", "--rules", "gunzi", "--hands", "5", "--seed", "3", "--json")
    for key in ("hands", "hands_per_second", "mean_attackers_score", "kou_rate",
                "level_changes", "rounds_completed"):
        assert key in out, key
    assert out["hands"] == 5
    assert out["rules"] == "gunzi" and out["seed"] == 3
    assert 0 <= out["kou_rate"] <= 1
    assert isinstance(out["mean_attackers_score"], int | float)
    assert sum(out["level_changes"].values()) == 5
    assert 0 <= out["rounds_completed"] <= 5
    assert out["hands_per_second"] is None or out["hands_per_second"] > 0


@pytest.mark.parametrize("rules", ["gunzi", "classic-2"])
def test_simulate_same_seed_same_figures(rules: str) -> None:
    args = ("simulate", "--rules", rules, "--hands", "4", "--seed", "3", "--json")
    first = run_json(*args)
    second = run_json(*args)
    assert {k: v for k, v in first.items() if k not in TIMING} == {
        k: v for k, v in second.items() if k not in TIMING}
    other = run_json("simulate", "--rules", rules, "--hands", "4", "--seed", "4", "--json")
    assert other["seed"] == 4


def test_simulate_with_option_override() -> None:
    out = run_json("simulate", "--rules", "gunzi", "-o", "follow=live", "--hands", "2",
                   "--seed", "1", "--json")
    assert out["hands"] == 2


def test_simulate_text_output() -> None:
    result = invoke("simulate", "--rules", "classic-1", "--hands", "2", "--seed", "1")
    assert result.exit_code == 0, result.output
    assert "mean_attackers_score" in result.output


# ------------------------------------------------------------------------ records, replay
def test_simulated_records_replay_ok(tmp_path: Path) -> None:
    out = run_json("simulate", "--rules", "gunzi", "--hands", "5", "--seed", "3",
                   "--records", str(tmp_path), "--json")
    files = sorted(tmp_path.glob("*.jsonl"))
    assert len(files) == out["matches"] >= 1
    total = 0
    for path in files:
        rep = run_json("replay", str(path), "--json")
        assert rep["ok"] is True
        assert rep["rules"] == "gunzi"
        for hand in rep["hands"]:
            for key in ("attackers_score", "kitty", "levels_before", "levels_after",
                        "next_dealer", "tribute_count", "hand_scores"):
                assert key in hand, key
            assert hand["kitty"] in ("抠底", "保底")
            assert len(hand["levels_before"]) == len(hand["levels_after"]) == 2
            assert len(hand["hand_scores"]) == 4 and sum(hand["hand_scores"]) == 0
            assert hand["tribute_count"] >= 0
        total += len(rep["hands"])
    assert total == out["hands"]


def test_classic_records_replay_ok(tmp_path: Path) -> None:
    run_json("simulate", "--rules", "classic-2", "--hands", "2", "--seed", "5",
             "--records", str(tmp_path), "--json")
    for path in tmp_path.glob("*.jsonl"):
        rep = run_json("replay", str(path), "--json")
        assert rep["ok"] is True and rep["rules"] == "classic-2"
        for hand in rep["hands"]:
            assert hand["kitty"] in ("抠底", "保底")
            assert "kitty_multiplier" in hand and "failed_throws" in hand


def test_replay_text_output(tmp_path: Path) -> None:
    run_json("simulate", "--rules", "gunzi", "--hands", "1", "--seed", "8",
             "--records", str(tmp_path), "--json")
    path = next(tmp_path.glob("*.jsonl"))
    result = invoke("replay", str(path))
    assert result.exit_code == 0, result.output
    assert "all actions legal" in flat(result.output)


def _illegal_record(tmp_path: Path) -> tuple[Path, int]:
    """A simulated record with one play changed to cards the seat does not hold."""
    run_json("simulate", "--rules", "gunzi", "--hands", "1", "--seed", "9",
             "--records", str(tmp_path), "--json")
    path = next(tmp_path.glob("*.jsonl"))
    lines = path.read_text(encoding="utf-8").splitlines()
    events = [json.loads(line) for line in lines[1:]]
    end = next(k for k, e in enumerate(events) if e["type"] == "hand_end")
    i = [k for k, e in enumerate(events[:end]) if e["type"] == "play"][-8]
    seat = events[i]["seat"]
    held = {c for e in events[i:end] if e["type"] == "play" and e["seat"] == seat
            for c in e["cards"]}
    foreign = next(n for n in ("BJ", "LJ", "AS", "AH", "3C", "4D", "7S") if n not in held)
    events[i]["cards"] = [foreign] * len(events[i]["cards"])
    bad = tmp_path / "bad.jsonl"
    head = json.loads(lines[0])
    records.write(bad, head, events)
    return bad, i + 1


def test_replay_rejects_an_illegal_action(tmp_path: Path) -> None:
    bad, number = _illegal_record(tmp_path)
    result = invoke("replay", str(bad), "--json")
    assert result.exit_code != 0
    out = json.loads(result.output)
    assert out["ok"] is False
    assert out["event"] == number
    assert out["rule"] == "A7"
    assert f"event {number}" in out["error"]
    text = invoke("replay", str(bad))
    assert text.exit_code != 0
    assert f"event {number}" in flat(text.output)
    assert "A7" in text.output


def test_replay_missing_file(tmp_path: Path) -> None:
    result = invoke("replay", str(tmp_path / "nothing.jsonl"), "--json")
    assert result.exit_code != 0
    assert "cannot read" in flat(result.output)


# ------------------------------------------------------------------------------ rules
def test_rules_json_lists_presets_and_options() -> None:
    out = run_json("rules", "--json")
    assert set(out["presets"]) == set(PRESETS)
    assert set(out["options"]) == set(OPTIONS)
    for name, opts in out["presets"].items():
        assert set(opts) == set(OPTIONS), name
    assert out["presets"]["classic-2"]["decks"] == 2
    for key, opt in out["options"].items():
        assert opt["values"] == list(OPTIONS[key].values)
        assert opt["clause"] and opt["doc"]


def test_rules_table() -> None:
    result = invoke("rules")
    assert result.exit_code == 0
    assert "follow" in result.output and "classic-3" in flat(result.output)


@pytest.mark.parametrize("command", ["simulate", "demo"])
def test_unknown_preset_exits_2_and_lists_presets(command: str) -> None:
    result = invoke(command, "--rules", "no-such-game")
    assert result.exit_code == 2
    text = flat(result.output)
    assert "no-such-game" in text
    for name in PRESETS:
        assert name in text, name


def test_unknown_option_exits_2_and_lists_options() -> None:
    result = invoke("simulate", "--rules", "gunzi", "-o", "colour=red", "--hands", "1")
    assert result.exit_code == 2
    text = flat(result.output)
    assert "colour" in text
    for name in OPTIONS:
        assert name in text, name


def test_bad_option_value_exits_2_and_lists_values() -> None:
    result = invoke("simulate", "--rules", "gunzi", "-o", "follow=sideways", "--hands", "1")
    assert result.exit_code == 2
    text = flat(result.output)
    assert "sideways" in text and "dead" in text and "live" in text


def test_unknown_preset_in_bench_exits_2() -> None:
    result = invoke("bench", "--rules", "nothing", "--hands", "1")
    assert result.exit_code == 2
    assert "gunzi" in flat(result.output)


# ------------------------------------------------------------------------------ bench
def test_bench_json() -> None:
    out = run_json("bench", "--hands", "3", "--json")
    for key in ("hands_per_second", "legal_actions_us", "view_us"):
        assert key in out, key
        assert out[key] > 0
    assert out["hands"] == 3


def test_demo_plays_a_hand() -> None:
    result = invoke("demo", "--seed", "2")
    assert result.exit_code == 0, result.output
    assert "attackers_score" in result.output
