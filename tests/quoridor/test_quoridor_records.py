"""Records of 步步为营: round trip, tampering is caught, `gunzi simulate --records` and
`gunzi replay`, and the board arena report."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from gunzi.arena.board import opening, run_board_arena
from gunzi.cli import app
from gunzi.engine.errors import RecordError
from gunzi.quoridor import records as R
from gunzi.quoridor.bots import RandomBot
from gunzi.quoridor.game import QuoridorGame
from gunzi.quoridor.rules import preset

runner = CliRunner()


def played(name: str = "quoridor-2", seed: int = 3, steps: int = 10_000) -> QuoridorGame:
    g = QuoridorGame(preset(name))
    rng, bot = random.Random(seed), RandomBot()
    for _ in range(steps):
        if g.is_over:
            break
        seat = g.to_act
        assert seat is not None
        g.apply(bot.choose(g, seat, rng))
    return g


def parsed(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines()]


@pytest.mark.parametrize("name", ["quoridor-2", "quoridor-4"])
def test_round_trip_finished_game(name: str) -> None:
    g = played(name)
    assert g.is_over
    rep = R.replay(parsed(R.dumps(g, ["a", "b", "c", "d"][: g.players])))
    assert rep.game.key() == g.key()
    s = rep.summary()
    assert s["finished"] and s["winner"] == g.winner and s["turns"] == g.turns
    assert s["walls_placed"] == len(g.walls)


def test_unfinished_record_replays_to_the_same_position() -> None:
    g = played(steps=15)
    assert not g.is_over
    rep = R.replay(R.lines(g))
    assert rep.game.key() == g.key() and not rep.summary()["finished"]


def test_tampering_is_caught() -> None:
    lines = R.lines(played())
    wall_at = next(i for i, e in enumerate(lines) if e["type"] == "wall")
    bad = [dict(e) for e in lines]
    bad[wall_at]["walls_left"] += 1
    with pytest.raises(RecordError, match=f"event {wall_at}: event differs"):
        R.replay(bad)
    move_at = next(i for i, e in enumerate(lines) if e["type"] == "move")
    jump = [dict(e) for e in lines]
    jump[move_at]["to"] = "e5"
    with pytest.raises(RecordError, match="illegal move"):
        R.replay(jump)
    with pytest.raises(RecordError, match="skips the engine's 'end'"):
        R.replay([*lines[:-1], lines[-2]])
    with pytest.raises(RecordError, match="stops before"):
        R.replay(lines[:-1])
    with pytest.raises(RecordError, match="header"):
        R.replay([{"type": "header", "format": "gunzi-record"}])
    with pytest.raises(RecordError, match="unknown event type"):
        R.replay([lines[0], {"type": "teleport", "seat": 0}])


def test_cli_simulate_records_and_replay(tmp_path: Path) -> None:
    res = runner.invoke(app, ["simulate", "--rules", "quoridor-2", "--hands", "2", "--seed",
                              "9", "--records", str(tmp_path), "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["games"] == 2
    files = sorted(tmp_path.glob("*.jsonl"))
    assert len(files) == 2
    res = runner.invoke(app, ["replay", str(files[0]), "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["ok"] and out["finished"] and out["rules"] == "quoridor-2"
    lines = files[1].read_text(encoding="utf-8").splitlines()
    lines[1] = lines[1].replace('"seat": 0', '"seat": 1')
    files[1].write_text("\n".join(lines) + "\n", encoding="utf-8")
    res = runner.invoke(app, ["replay", str(files[1]), "--json"])
    assert res.exit_code == 1
    bad = json.loads(res.output)
    assert not bad["ok"] and bad["event"] == 1


def test_cli_simulate_takes_rule_overrides(tmp_path: Path) -> None:
    res = runner.invoke(app, ["simulate", "--rules", "quoridor-2", "--hands", "1", "--seed", "3",
                              "-o", "board_size=5", "-o", "jumps=true", "--records",
                              str(tmp_path), "--json"])
    assert res.exit_code == 0, res.output
    head = json.loads(next(tmp_path.glob("*.jsonl")).read_text(encoding="utf-8").splitlines()[0])
    assert head["rules"]["board_size"] == 5 and head["rules"]["jumps"] is True
    bad = runner.invoke(app, ["simulate", "--rules", "quoridor-2", "-o", "jumps=maybe"])
    assert bad.exit_code == 2 and "jumps" in bad.output
    bad = runner.invoke(app, ["simulate", "--rules", "quoridor-2", "-o", "jumps"])
    assert bad.exit_code == 2 and "option=value" in bad.output


def test_board_arena_swaps_sides_and_reports() -> None:
    rules = preset("quoridor-2", board_size=5, walls=3)
    rep = run_board_arena(rules, "rule,random", 3, seed=2)
    assert rep["games"] == 6 and rep["wins"]["A"] + rep["wins"]["B"] + rep["draws"] == 6
    assert rep["wins"]["A"] >= 4  # the rule bot beats the random one
    assert 0.0 <= rep["win_rate_a"] <= 1.0 and rep["win_rate_a_ci95"] is not None
    assert rep["latency_ms"]["A"]["decisions"] > 0 and rep["latency_ms"]["A"]["p95"] >= 0
    again = run_board_arena(rules, "rule,random", 3, seed=2)
    assert again["wins"] == rep["wins"] and again["mean_turns"] == rep["mean_turns"]
    assert opening(rules, 4, random.Random(1)) == opening(rules, 4, random.Random(1))


def test_arena_command_dispatches_quoridor() -> None:
    res = runner.invoke(app, ["arena", "--rules", "quoridor-2", "--bots", "rule,random",
                              "--deals", "1", "--json", "--quiet", "-o", "board_size=5"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["game"] == "quoridor" and out["games"] == 2 and out["options"]["board_size"] == 5
    res = runner.invoke(app, ["arena", "--rules", "quoridor-2", "--bots", "rule,nobot",
                              "--deals", "1", "--quiet"])
    assert res.exit_code == 2 and "nobot" in res.output
    res = runner.invoke(app, ["arena", "--rules", "quoridor-2", "--bots",
                              "search:max_depth=x,random", "--deals", "1", "--quiet"])
    assert res.exit_code == 2 and res.stderr.splitlines() == [
        "bot 'search:max_depth=x': max_depth must be an integer, not 'x'"]
