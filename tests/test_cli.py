"""The `gunzi` command line (typer app): simulate, replay, rules, bench, demo."""

from __future__ import annotations

import json
import os
import random
import re
from pathlib import Path
from typing import Any

import pytest
from rich.cells import cell_len
from typer.testing import CliRunner

from gunzi import core
from gunzi.cli import app
from gunzi.core.batch import simulate as simulate_core
from gunzi.engine import cards as C
from gunzi.engine import records
from gunzi.engine.match import Match
from gunzi.engine.rules import OPTIONS, PRESETS, preset
from gunzi.ladder.titles import OPTIONS as L_OPTIONS
from gunzi.ladder.titles import LadderRules
from gunzi.quoridor.rules import OPTIONS as Q_OPTIONS
from gunzi.quoridor.rules import PRESETS as Q_PRESETS
from gunzi.quoridor.rules import preset as q_preset

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
    assert out["overrides"] == {"follow": "live"}  # the figures say what ran
    plain = run_json("simulate", "--rules", "gunzi", "--hands", "2", "--seed", "1", "--json")
    assert plain["overrides"] == {}


def test_rule_errors_go_to_stderr_so_json_output_stays_clean() -> None:
    result = invoke("simulate", "--rules", "gunzi", "-o", "follow=x", "--hands", "2", "--json")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert "cannot be 'x'" in result.stderr


@pytest.mark.parametrize(("command", "rules", "pair", "words"), [
    ("simulate", "classic-2", "trump_structure=cover-triples", ("trump_structure", "'cover'")),
    ("simulate", "classic-1", "tractor_min_length=3", ("tractor_min_length", "=2")),
    ("play", "classic-2", "draw_protection=longer-tuples", ("draw_protection", "'none'")),
    ("play", "gunzi", "no_declaration=no-trump", ("no_declaration", "'kitty-card'")),
])
def test_variant_a_preset_cannot_play_is_refused_naming_what_it_can(
    command: str, rules: str, pair: str, words: tuple[str, ...]
) -> None:
    """A club's house rule that its preset cannot play stops the command before anything
    runs: exit 2 and a message naming the option and the value(s) left to it."""
    args = ["--hands", "1"] if command == "simulate" else []
    result = invoke(command, "--rules", rules, "-o", pair, *args)
    assert result.exit_code == 2, result.output
    for word in words:
        assert word in flat(result.stderr), result.stderr


def test_simulate_text_output_is_a_readable_table() -> None:
    args = ("simulate", "--rules", "gunzi", "--hands", "20", "--seed", "1")
    figures = run_json(*args, "--json")
    result = invoke(*args)
    assert result.exit_code == 0, result.output
    text = flat(result.output)
    assert "simulate gunzi: 20 hands, seed 1" in text
    assert "{" not in text and "[" not in text and "':" not in text  # no Python dict text
    assert f"attackers' mean score {figures['mean_attackers_score']:,.2f}" in text
    assert f"抠底 (attackers take the kitty) {figures['kou_rate'] * 100:.2f}%" in text
    for change, count in figures["level_changes"].items():  # a mapping reads k: v
        assert f"{change}: {count}" in text
    board = flat(invoke("simulate", "--rules", "quoridor-4", "--hands", "2").output)
    wins = run_json("simulate", "--rules", "quoridor-4", "--hands", "2", "--json")["wins"]
    assert "wins per seat " + " · ".join(f"seat {i}: {w}" for i, w in enumerate(wins)) in board


def test_simulate_and_bench_report_progress_unless_json(monkeypatch: pytest.MonkeyPatch
                                                        ) -> None:
    """The bar gets every hand (game) as it ends; --json makes it quiet."""
    import gunzi.cli

    seen: list[tuple[str, int, bool, list[int]]] = []

    class Recorder(gunzi.cli.Reporter):
        def __init__(self, label: str, total: int, unit: str, *, every: int | None = 0,
                     quiet: bool = False) -> None:
            super().__init__(label, total, unit, every=every, quiet=quiet)
            seen.append((label, total, quiet, []))

        def update(self, done: int, text: str = "", seconds: float | None = None) -> None:
            seen[-1][3].append(done)

    monkeypatch.setattr(gunzi.cli, "Reporter", Recorder)
    assert invoke("simulate", "--hands", "6", "--seed", "2").exit_code == 0
    assert invoke("simulate", "-r", "quoridor-2", "--hands", "3", "--json").exit_code == 0
    assert invoke("bench", "--hands", "4", "--search-decisions", "0").exit_code == 0
    assert seen == [("simulate", 6, False, [1, 2, 3, 4, 5, 6]),
                    ("simulate", 3, True, [1, 2, 3]), ("bench", 4, False, [1, 2, 3, 4])]


def test_progress_is_a_bar_on_a_terminal_and_nothing_elsewhere(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from gunzi.progress import Reporter

    with Reporter("simulate", 5, "hands", every=None) as quiet_pipe:
        assert quiet_pipe.bar is None  # stderr is not a terminal here
        quiet_pipe.update(5)
    with Reporter("arena", 4, "pairs", every=2) as lines:
        for done in range(1, 5):
            lines.update(done, "net +0.1", 1.0)
    assert capsys.readouterr().err.splitlines() == [
        "arena: 2/4 pairs, net +0.1, 1.0 s", "arena: 4/4 pairs, net +0.1, 1.0 s"]
    monkeypatch.setattr("sys.stderr.isatty", lambda: True)
    with Reporter("simulate", 5, "hands", every=None) as bar:
        assert bar.bar is not None
        bar.update(3)
        assert bar.bar.tasks[0].completed == 3 and bar.bar.tasks[0].total == 5
    with Reporter("train", 256, "hands", every=None, start=128) as resumed:
        assert resumed.bar is not None  # a resumed run's bar starts at the hands done
        assert resumed.bar.tasks[0].completed == 128 and resumed.bar.tasks[0].total == 256
    with Reporter("simulate", 5, "hands", every=None, quiet=True) as off:
        assert off.bar is None


@pytest.mark.parametrize("rules", ["gunzi", "quoridor-2"])
@pytest.mark.parametrize("hands", ["0", "-5"])
def test_simulate_rejects_fewer_than_one_hand(rules: str, hands: str) -> None:
    result = invoke("simulate", "--rules", rules, "--hands", hands, "--json")
    assert result.exit_code == 2
    text = flat(result.output)
    # Click's wording of the range changed between versions ("x>=1" / "greater than or ...")
    assert "--hands" in text and ("x>=1" in text or "greater than or equal to 1" in text)
    assert "hands_per_second" not in text


def _no_simulation(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("the simulation started although records cannot be written")


@pytest.mark.parametrize("rules", ["gunzi", "quoridor-2"])
def test_simulate_unwritable_records_fails_up_front(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rules: str
) -> None:
    import gunzi.cli
    import gunzi.quoridor.sim

    monkeypatch.setattr(gunzi.cli, "run_simulate", _no_simulation)
    monkeypatch.setattr(gunzi.quoridor.sim, "simulate", _no_simulation)
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory", encoding="utf-8")
    for target in (blocker, blocker / "records"):
        result = invoke("simulate", "--rules", rules, "--hands", "1", "--records", str(target),
                        "--json")
        assert result.exit_code == 2, result.output
        assert isinstance(result.exception, SystemExit)  # a clean exit, no traceback
        text = flat(result.output)
        assert f"cannot write records to {target}" in text
        assert "Traceback" not in text


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write to a read-only directory")
def test_simulate_read_only_records_dir_fails_up_front(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        result = invoke("simulate", "--hands", "1", "--records", str(locked), "--json")
    finally:
        locked.chmod(0o700)
    assert result.exit_code == 2
    assert "cannot write records" in flat(result.output)
    assert not list(locked.iterdir())


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
    missing = tmp_path / "nothing.jsonl"
    result = invoke("replay", str(missing), "--json")
    assert result.exit_code == 2
    out = json.loads(result.output)
    assert out["ok"] is False and out["event"] is None
    assert out["error"] == f"cannot read {missing}: No such file or directory"
    text = invoke("replay", str(missing))
    assert text.exit_code == 2
    assert "cannot read" in flat(text.output)


def test_replay_unreadable_files_print_json_errors(tmp_path: Path) -> None:
    binary = tmp_path / "binary.jsonl"
    binary.write_bytes(b"\xff\xfe\x00 not text")
    for path, error in ((binary, "not UTF-8 text"), (tmp_path, "Is a directory")):
        result = invoke("replay", str(path), "--json")
        assert result.exit_code == 2, result.output
        out = json.loads(result.output)
        assert out["ok"] is False and error in out["error"]
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"type": "header"}\nnot json\n', encoding="utf-8")
    result = invoke("replay", str(broken), "--json")
    assert result.exit_code == 1
    assert "line 2 is not JSON" in json.loads(result.output)["error"]



def test_a_corrupt_record_says_where_and_what(tmp_path: Path) -> None:
    """A raw tab inside a string (column 27 of line 1): the line, the column and a sentence,
    not the JSON parser's cut message 'Invalid control character at'."""
    corrupt = tmp_path / "corrupt.jsonl"
    corrupt.write_text('{"type": "header", "x": "a\tb"}\n', encoding="utf-8")
    result = invoke("replay", str(corrupt))
    assert result.exit_code == 1
    assert result.stderr.strip() == (
        "line 1 is not JSON: invalid control character at column 27 (a tab or line break "
        "inside a string must be written \\t or \\n)")
    cut = tmp_path / "cut.jsonl"
    cut.write_text('{"type": "header"}\n{"type": "deal", \n', encoding="utf-8")
    assert invoke("replay", str(cut)).stderr.strip() == (
        "line 2 is not JSON: the line ends at column 16 before its JSON value is complete "
        "(cut short?)")


def test_review_of_a_missing_or_unreadable_file_is_a_usage_error(tmp_path: Path) -> None:
    missing = tmp_path / "missing.jsonl"
    result = invoke("review", str(missing))
    assert result.exit_code == 2
    assert result.stderr.strip() == f"cannot read {missing}: No such file or directory"
    assert "Errno" not in result.output
    binary = tmp_path / "binary.jsonl"
    binary.write_bytes(b"\xff\xfe not text")
    result = invoke("review", str(binary))
    assert result.exit_code == 2 and "not UTF-8 text" in result.stderr
    assert invoke("replay", str(missing)).exit_code == 2  # the same as replay


def _table_rows(output: str) -> list[list[str]]:
    """The cells of a rich table's one-line rows (the first cell is a number)."""
    rows = []
    for line in output.splitlines():
        line = line.strip()
        if not line.startswith("│"):
            continue
        cells = [c.strip() for c in line[1:-1].split("│")]
        if cells[0].isdigit():
            rows.append(cells)
    return rows


def test_replay_table_shows_levels_tribute_kind_and_scores(tmp_path: Path) -> None:
    run_json("simulate", "--rules", "gunzi", "--hands", "12", "--seed", "3",
             "--records", str(tmp_path), "--json")
    kinds = set()
    for path in sorted(tmp_path.glob("*.jsonl")):
        hands = run_json("replay", str(path), "--json")["hands"]
        result = runner.invoke(app, ["replay", str(path)], env={"COLUMNS": "200"})
        assert result.exit_code == 0, result.output
        assert "['" not in result.output  # no Python list reprs
        rows = _table_rows(result.output)
        assert len(rows) == len(hands)
        for row, hand in zip(rows, hands, strict=True):
            number, _, _, _, levels, next_dealer, tribute, scores = row
            assert int(number) == hand["hand"]
            assert levels == (f"{'/'.join(hand['levels_before'])} → "
                              f"{'/'.join(hand['levels_after'])}")
            assert tribute.split()[0] == hand["tribute_kind"]
            if hand["tribute_kind"] in ("normal", "reversed"):
                assert tribute == f"{hand['tribute_kind']} {hand['tribute_count']}"
            assert [int(x) for x in scores.split()] == hand["hand_scores"]
            if hand["next_dealer"] is None:
                assert next_dealer == f"round over: {hand['round_end']}"
            kinds.add(hand["tribute_kind"])
    assert {"none", "normal"} <= kinds


def test_replay_classic_table_shows_throws_and_game_points(tmp_path: Path) -> None:
    run_json("simulate", "--rules", "classic-1", "--hands", "40", "--seed", "3",
             "--records", str(tmp_path), "--json")
    path = tmp_path / "match-00001.jsonl"
    hands = run_json("replay", str(path), "--json")["hands"]
    last = hands[-1]
    assert last["round_end"] == "passed-A"
    assert "passed A" in last["levels_after"]
    assert len(last["game_points"]) == 4
    assert all("game_points" not in h for h in hands[:-1])
    result = runner.invoke(app, ["replay", str(path)], env={"COLUMNS": "200"})
    rows = _table_rows(result.output)
    assert len(rows) == len(hands)
    *_, kitty, _, next_dealer, throws, points = rows[-1]
    assert kitty.startswith(last["kitty"])
    assert next_dealer == "game over: passed-A"
    assert [int(x) for x in throws.split()] == last["failed_throws"]
    assert [int(x) for x in points.split()] == last["game_points"]
    assert all(row[-1] == "" for row in rows[:-1])


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
        assert opt["presets"] == {name: preset(name).options()[key] for name in PRESETS}
    assert out["options"]["kitty_multiplier"]["presets"] == {
        "gunzi": "two", "classic-1": "doubling", "classic-2": "doubling", "classic-3": "linear"}
    assert out["options"]["bj_suit_fallback"]["interpretation"] == "I-3"
    assert out["options"]["follow"]["interpretation"] is None
    assert Path(out["documents"]["en"]).name == "rules.md"
    assert Path(out["documents"]["zh"]).is_file()


def test_rules_json_other_games() -> None:
    out = run_json("rules", "--json")
    quoridor = out["quoridor"]
    assert set(quoridor["presets"]) == set(Q_PRESETS)
    assert set(quoridor["options"]) == set(Q_OPTIONS)
    assert quoridor["options"]["board_size"]["interpretation"] == "I-14"
    assert quoridor["options"]["jumps"]["interpretation"] == "I-15"
    assert quoridor["options"]["walls"]["presets"] == {"quoridor-2": 10, "quoridor-4": 5}
    assert quoridor["options"]["max_turns"]["range"] == [0, 10000]  # not 10001 values
    assert "values" not in quoridor["options"]["max_turns"]
    nobel = out["ladder"]["options"]["nobel_threshold"]
    assert nobel["interpretation"] == "I-13" and nobel["presets"] == {"default": 28800}
    assert run_json("rules", "--game", "quoridor", "--json") == quoridor
    assert run_json("rules", "--game", "ladder", "--json") == out["ladder"]
    cards = run_json("rules", "--game", "cards", "--json")
    assert cards == {"presets": out["presets"], "options": out["options"]}


def test_rules_unknown_game_exits_2() -> None:
    result = invoke("rules", "--game", "chess")
    assert result.exit_code == 2
    assert "cards, quoridor, ladder" in flat(result.output)


def _rule_blocks(output: str, names: set[str]) -> dict[str, str]:
    """Each option's row of the `gunzi rules` tables, flattened, keyed by the option name."""
    blocks: dict[str, list[str]] = {}
    current: list[str] = []
    for line in output.splitlines():
        first = re.match(r"^  (\w+) ", line)
        if first and first.group(1) in names:
            current = blocks.setdefault(first.group(1), [])
        elif not line.strip() or set(line.strip()) <= {"─", "━"}:
            current = []
        current.append(line)
    return {name: flat("\n".join(lines)) for name, lines in blocks.items()}


def _catalogs() -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(options, presets) of every game; the ladder's only 'preset' is its default."""
    ladder_default = {key: getattr(LadderRules(), key) for key in L_OPTIONS}
    return [
        (OPTIONS, {name: preset(name).options() for name in PRESETS}),
        (Q_OPTIONS, {name: q_preset(name).options() for name in Q_PRESETS}),
        (L_OPTIONS, {"default": ladder_default}),
    ]


def test_rules_table_at_80_columns_shows_whole_names_clauses_values_and_presets() -> None:
    result = runner.invoke(app, ["rules"], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    assert max(cell_len(line) for line in result.output.splitlines()) <= 80
    assert "…" not in result.output  # nothing truncated
    assert "first = 打滚子 default" not in result.output
    names = {key for options, _ in _catalogs() for key in options}
    blocks = _rule_blocks(result.output, names)
    assert set(blocks) == names
    for options, presets in _catalogs():
        for key, opt in options.items():
            block = blocks[key]
            assert block.startswith(key + " ")
            assert opt.clause in block, key
            if len(opt.values) <= 12:
                shown = [str(v).lower() if isinstance(v, bool) else str(v) for v in opt.values]
                assert "values: " + " | ".join(shown) in block, key
            for name in presets:
                assert name in block, (key, name)
    assert "gunzi, classic-3: 3 · classic-1: 1 · classic-2: 2" in blocks["decks"]
    assert ("gunzi: two · classic-1, classic-2: doubling · classic-3: linear"
            in blocks["kitty_multiplier"])
    assert "gunzi, classic-1, classic-2, classic-3: dead" in blocks["follow"]
    assert "gunzi: true · classic-1, classic-2, classic-3: false" in blocks["permanent_twos"]
    assert "A4.1 [I-3]" in blocks["bj_suit_fallback"]
    assert "D [I-14]" in blocks["board_size"] and "values: 9 | 5 | 7 | 11" in blocks["board_size"]
    assert "D [I-15]" in blocks["jumps"] and "quoridor-2, quoridor-4: false" in blocks["jumps"]
    assert "values: any integer 0..10000" in blocks["max_turns"]
    assert "C [I-13]" in blocks["nobel_threshold"]
    assert "default: 28800" in blocks["nobel_threshold"]


def test_rules_table_sections_and_game_filter() -> None:
    text = flat(invoke("rules").output)
    for heading in ("docs/rules.md Part A", "步步为营: docs/rules.md Part D",
                    "The ladder: docs/rules.md Part C"):
        assert heading in text, heading
    # The rules text comes first, by a path that exists (a source checkout: docs/rules.md).
    first = re.match(r"The rules text: (\S+) \(中文 (\S+)\); in the hall: /rules", text)
    assert first, text[:200]
    assert Path(first.group(1)).read_text(encoding="utf-8").startswith("# Rules of the games")
    assert Path(first.group(2)).name == "rules.zh.md" and Path(first.group(2)).is_file()
    assert text.index("Part A") < text.index("Part D") < text.index("Part C")
    only = flat(invoke("rules", "--game", "quoridor").output)
    assert "jumps" in only and "Part D" in only
    assert "kitty_multiplier" not in only and "nobel_threshold" not in only


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
    out = run_json("bench", "--hands", "3", "--search-decisions", "1", "--json")
    for key in ("hands_per_second", "legal_actions_us", "view_us"):
        assert key in out, key
        assert out[key] > 0
    assert out["hands"] == 3
    speed = out["speed"]
    assert speed["active_core"] in ("pure", "compiled")
    pure = speed["pure"]  # always measured, in a child process when this one is compiled
    assert pure["core"] == "pure" and not pure["engine_compiled"]
    # The compiled core (build/core, as the hall runs it) is active once `make setup` built it.
    built = core.compiled_build() is not None and os.environ.get("GUNZI_CORE") != "pure"
    assert speed["active_core"] == ("compiled" if built else "pure")
    if "active" in speed:
        assert speed["active"]["core"] == "compiled"
    assert pure["api_hands_per_cpu_second"] > 0 and pure["core_play_phases_per_cpu_second"] > 0
    searched = pure["search_rollouts_per_cpu_second"]
    assert set(searched) == {"search", "rollouts"}
    assert all(searched[w][p] > 0 for w in searched for p in ("core", "rule"))
    assert pure["core_classic2_play_phases_per_cpu_second"] > 0
    latency = pure["search_decision_cpu_ms"]
    assert latency["decisions"] == 5 and 0 < latency["p50"] <= latency["p95"]
    if all(speed["yardstick"]):  # gcc present: every figure also as a ratio to the C loop
        assert 0 < pure["api_ratio"] < pure["core_ratio"]
        assert pure["search_rollout_ratio"]["rollouts"]["core"] > 0


def test_bench_bot_times_every_decision_of_the_bots_seats() -> None:
    out = run_json("bench-bot", "checked:rollouts=6", "--deals", "1", "--json")
    assert out["bot"] == "checked:rollouts=6" and out["deals"] == 1
    # one hand of 打滚子: seats 0 and 2 hold 2 x 39 cards, so they make between 2 x 13
    # plays (all triples) and 2 x 39 (all singles) plus their draw decisions
    assert 26 <= out["decisions"] < 200
    assert 0 < out["p50_ms"] <= out["p95_ms"] <= out["max_ms"]
    assert out["bank"].startswith("generated:gunzi")
    bad = invoke("bench-bot", "checked:rollouts=zero", "--deals", "1")
    assert bad.exit_code == 2 and "rollouts" in flat(bad.output)
    past = invoke("bench-bot", "rule", "--bank", "banks/gunzi-v1-2000.jsonl", "--offset",
                  "2000", "--deals", "1")
    assert past.exit_code == 2 and "offset" in flat(past.output)


def test_simulate_workers_with_the_rule_policy_writes_core_records(tmp_path: Path) -> None:
    out = run_json("simulate", "--workers", "2", "--policy", "rule", "--hands", "6", "--seed",
                   "4", "--records", str(tmp_path), "--json")
    assert out["policy"] == "rule" and out["hands"] == 6
    lines = [json.loads(x) for x in Path(out["records"]).read_text("utf-8").splitlines()]
    assert [x["hand"] for x in lines] == list(range(6))
    assert [sum(x["points"]) for x in lines] == [
        sum(o.points) for o in simulate_core(6, 4, policy="rule")]
    assert all(sum(len(cards) for _, cards in x["plays"]) == 156 for x in lines)
    random_out = run_json("simulate", "--workers", "1", "--hands", "6", "--seed", "4", "--json")
    assert random_out["policy"] == "random"
    for args in (("--rules", "classic-2", "--workers", "1"), ()):
        refused = invoke("simulate", "--policy", "rule", "--hands", "2", *args)
        assert refused.exit_code == 2 and "--policy" in flat(refused.output)


def test_simulate_workers_plays_on_the_core_with_the_same_outcomes() -> None:
    one = run_json("simulate", "--workers", "1", "--hands", "30", "--seed", "5", "--json")
    two = run_json("simulate", "--workers", "2", "--hands", "30", "--seed", "5", "--json")
    assert one["hands"] == two["hands"] == 30
    assert one["mean_points"] == two["mean_points"]
    assert 0 < sum(one["mean_points"]) <= 300  # three decks hold 300 points, some in the kitty
    refused = invoke("simulate", "--workers", "2", "--rules", "quoridor-2")
    assert refused.exit_code == 2 and "--workers" in flat(refused.output)
    refused = invoke("simulate", "--workers", "2", "-o", "follow=live")
    assert refused.exit_code == 2 and "-o" in flat(refused.output)


def test_simulate_workers_plays_classic_on_the_classic_core() -> None:
    args = ("simulate", "--rules", "classic-2", "--hands", "24", "--seed", "3", "--json")
    one = run_json(*args, "--workers", "1")
    two = run_json(*args, "--workers", "2")
    assert one["rules"] == "classic-2" and one["hands"] == 24
    assert {k: v for k, v in one.items() if k not in ("seconds", "hands_per_second",
                                                      "workers")} == \
        {k: v for k, v in two.items() if k not in ("seconds", "hands_per_second", "workers")}
    assert 0 < sum(one["mean_points"]) <= 200 and one["mean_kitty_multiplier"] >= 2
    assert one["overrides"] == {}
    power = run_json(*args, "--workers", "1", "-o", "kitty_multiplier=power")
    assert power["overrides"] == {"kitty_multiplier": "power"}
    assert power["mean_points"] == one["mean_points"]  # Rule K changes no trick
    bad = invoke("simulate", "--rules", "classic-2", "--workers", "1", "-o", "decks=7")
    assert bad.exit_code == 2


def test_demo_plays_a_hand() -> None:
    result = invoke("demo", "--seed", "2")
    assert result.exit_code == 0, result.output
    assert "attackers_score" in result.output


def _demo_events(rules: str, seed: int, hand: int, **options: Any) -> list[dict[str, Any]]:
    """The events of the hand `gunzi demo` prints (same seeds, same random players)."""
    match = Match(preset(rules, **options), random.Random(seed))
    players = random.Random(seed + 1)
    while len(match.results) < hand:
        seat = match.to_act
        assert seat is not None
        match.apply(match.legal_actions(seat).sample(players))
    return [e.to_dict() for e in match.events if e.hand == hand]


def _demo(*args: str) -> str:
    result = runner.invoke(app, ["demo", *args], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    return result.output


def test_demo_shows_a_reversed_tribute() -> None:
    events = _demo_events("gunzi", 59, 2)
    tribute = next(e for e in events if e["type"] == "tribute")
    assert tribute["kind"] == "reversed"  # the seed's premise
    text = flat(_demo("--seed", "59", "--hand", "2"))
    assert "hand 2 (seed 59)" in text
    cards = " ".join(C.unicode(C.parse(c)) for c in tribute["cards"])
    assert (f"Reversed tribute (seat {tribute['to']} holds three BJ): seat {tribute['seat']} "
            f"gives {cards} to seat {tribute['to']}") in text
    assert f"Return: seat {tribute['to']} gives" in text
    assert '"tribute_kind": "reversed"' in text


def test_demo_shows_a_cancelled_tribute() -> None:
    events = _demo_events("gunzi", 77, 2)
    cancelled = next(e for e in events if e["type"] == "tribute_cancelled")
    text = flat(_demo("--seed", "77", "--hand", "2"))
    assert (f"Tribute cancelled: seat {cancelled['giver']}'s partner holds three BJ, so no "
            f"{cancelled['n']}-card tribute either way") in text
    assert "Return:" not in text
    assert '"tribute_kind": "cancelled"' in text


def test_demo_shows_joker_announcement_and_burying() -> None:
    events = _demo_events("gunzi", 35, 1)
    announce = next(e for e in events if e["type"] == "joker_announce")
    buried = [e for e in events if e["type"] == "bury_jokers" and e["cards"]]
    assert buried
    text = flat(_demo("--seed", "35"))
    jokers = " ".join(announce["announced"])
    assert f"Seat {announce['seat']} announces burying {jokers}; the kitty is shown" in text
    for ev in buried:
        took = " ".join(C.unicode(C.parse(c)) for c in ev["take"])
        assert f"Seat {ev['seat']} buries {' '.join(ev['cards'])}, takes {took}" in text


def test_demo_shows_failed_throws() -> None:
    events = _demo_events("classic-2", 0, 1)
    failed = [e for e in events if "attempted" in e]
    assert failed
    text = flat(_demo("--rules", "classic-2", "--seed", "0"))
    for ev in failed:
        tried = " ".join(C.unicode(C.parse(c)) for c in ev["attempted"])
        played = " ".join(C.unicode(C.parse(c)) for c in ev["cards"])
        assert f"✗ {tried} → {played}" in text  # in the trick table
        assert (f"Failed throw, trick {ev['trick']}: seat {ev['seat']} tried {tried} and had "
                f"to play {played}") in text


def test_demo_shows_redeal_reason() -> None:
    events = _demo_events("gunzi", 769, 1, bj_suit_fallback="redeal")
    assert [e["reason"] for e in events if e["type"] == "redeal"] == [
        "bj-declarer-drew-no-suited-card"]
    text = flat(_demo("--seed", "769", "-o", "bj_suit_fallback=redeal"))
    assert "Redeal: the BJ declarer drew no suited card after declaring [I-3]" in text
    assert text.index("Deal 1:") < text.index("Redeal:") < text.index("Deal 2:")


def test_demo_hand_out_of_range() -> None:
    assert invoke("demo", "--hand", "0").exit_code == 2
    result = invoke("demo", "--rules", "classic-1", "--seed", "3", "--hand", "500")
    assert result.exit_code == 2
    assert "the match ended after" in flat(result.output)


def test_replay_strict_fails_on_options_left_out_of_the_header(tmp_path: Path) -> None:
    """An option the record's format version states (here 死棒/活棒) but its header leaves
    out is named, and fatal only with --strict; one added after that version (复式, which
    the golden records predate) is not."""
    golden = Path(__file__).parent / "golden" / "gunzi-seed11.jsonl"
    lines = golden.read_text(encoding="utf-8").splitlines()
    head = json.loads(lines[0])
    assert head["version"] == 1 and "duplicate" not in head["rules"]
    assert invoke("replay", str(golden), "--strict").exit_code == 0
    assert head["rules"].pop("follow") == "dead"  # the preset's default: the play still fits

    def write(name: str) -> Path:
        path = tmp_path / name
        path.write_text("\n".join([json.dumps(head, ensure_ascii=False), *lines[1:]]) + "\n",
                        encoding="utf-8")
        return path

    short = write("short.jsonl")
    plain = invoke("replay", str(short), "--json")
    assert plain.exit_code == 0
    out = json.loads(plain.output)
    assert out["assumed_defaults"] == ["follow"] and out["unseeded_deals"] == []
    assert all(h["deck_from_seed"] for h in out["hands"])
    assert "leaves out follow" in flat(invoke("replay", str(short)).output)
    strict = invoke("replay", str(short), "--json", "--strict")
    assert strict.exit_code == 1
    assert "leaves out follow" in json.loads(strict.output)["error"]
    head["rules"]["follow"] = "dead"
    assert invoke("replay", str(write("whole.jsonl")), "--strict").exit_code == 0


# ---------------------------------------------------------------------------- help texts


def _commands() -> list[list[str]]:
    """Every command and subcommand of `gunzi`, as the words that name it (Typer ships its
    own copy of Click, so groups are found by their ``commands``)."""
    import typer

    out: list[list[str]] = []

    def walk(group: Any, path: list[str]) -> None:
        for name, cmd in group.commands.items():
            out.append([*path, name])
            if hasattr(cmd, "commands"):
                walk(cmd, [*path, name])

    walk(typer.main.get_command(app), [])
    return out


def test_every_help_shows_flags_as_flags_and_no_markup() -> None:
    import typer

    from gunzi import presets

    commands = _commands()
    assert {"simulate", "play", "arena", "replay", "review", "bench"} <= {c[0] for c in commands}
    for words in [[], *commands]:  # the overview too: it lists each command's first line
        result = runner.invoke(app, [*words, "--help"], env={"COLUMNS": "200"})
        assert result.exit_code == 0, (words, result.output)
        text = result.output
        assert "<bool>" not in text and "``" not in text, (words, text)
        assert not re.search(r"`[^`\n]+`", text), (words, text)  # no Markdown code marks
        assert not re.search(r":(mod|func|class|meth):", text), (words, text)
        cmd: Any = typer.main.get_command(app)
        for word in words:
            cmd = cmd.commands[word]
        flags = [p.opts[0] for p in cmd.params if getattr(p, "is_flag", False)]
        for flag in [*flags, "--help"]:
            # the flag's row: its name, then straight to its help text (no value shown)
            row = next(line for line in text.splitlines() if re.search(
                re.escape(flag) + r"\b(?!-)", line))
            assert not re.search(re.escape(flag) + r"\s+(-\w\s+)?<", row), (words, row)
        if "--rules" in text:
            board = words[0] in ("simulate", "play", "arena")
            listed = presets.listing(presets.ALL if board else presets.CARDS)
            assert f"Preset: {listed} " in flat(text), (words, text)


def test_board_replay_text_reads_per_seat(tmp_path: Path) -> None:
    run_json("simulate", "--rules", "quoridor-4", "--hands", "1", "--seed", "2", "--records",
             str(tmp_path), "--json")
    path = next(tmp_path.glob("*.jsonl"))
    data = run_json("replay", str(path), "--json")
    text = flat(invoke("replay", str(path)).output)
    assert "[" not in text and "'" not in text  # no Python list text
    left = " · ".join(f"seat {i}: {n}" for i, n in enumerate(data["walls_left"]))
    assert f"walls left {left}" in text and f"turns {data['turns']}" in text
