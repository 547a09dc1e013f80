"""Duplicate play: seat swapping, A's net levels, the report, workers, SPRT stop, the CLI."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from gunzi.arena import runner as R
from gunzi.arena.bank import Deal, generated_bank, load_bank
from gunzi.arena.command import register
from gunzi.arena.report import TIMING_FIELDS, build_report
from gunzi.arena.runner import (
    ArenaConfig,
    HandOutcome,
    PairResult,
    Players,
    RunResult,
    net_levels,
    parse_bots,
    play_pair,
    run_arena,
    run_pairs,
)
from gunzi.arena.stats import ACCEPT_H1
from gunzi.bots.base import Bot, Decision
from gunzi.engine.actions import Action
from gunzi.engine.match import Match
from gunzi.engine.rules import preset

BANKS = Path(__file__).resolve().parents[2] / "banks"


def config(rules: str = "gunzi", bots: str = "random,random", deals: int = 5,
           seed: int = 1, **kw: Any) -> ArenaConfig:
    ruleset = preset(rules)
    bank = kw.pop("bank", None) or generated_bank(ruleset, deals + kw.get("offset", 0), seed)
    return ArenaConfig(rules=ruleset, bots=parse_bots(bots), bank=bank, deals=deals, seed=seed,
                       **kw)


class Recorder(Bot):
    """A random player that notes which seats it is asked to play, per hand."""

    def __init__(self, label: str, log: list[tuple[str, int, int, int]]) -> None:
        self.label = label
        self.log = log
        self.hands = 0

    def new_hand(self) -> None:
        self.hands += 1

    def choose(self, decision: Decision, rng: random.Random) -> Action:
        self.log.append((self.label, self.hands, decision.seat, decision.view["dealer"]))
        return decision.sample(rng)


def test_seat_swap_same_deck_dealer_and_level(monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = config(deals=3, seed=4)
    players = Players(cfg)
    log: list[tuple[str, int, int, int]] = []
    recorders = {lab: [Recorder(lab, log), Recorder(lab, log)] for lab in "AB"}
    players.bots = {lab: list[Bot](bots) for lab, bots in recorders.items()}
    started: list[Match] = []
    real_start = R.start_hand

    def spy(rules: Any, deal: Deal) -> Match:
        match = real_start(rules, deal)
        started.append(match)
        return match

    monkeypatch.setattr(R, "start_hand", spy)
    deal = cfg.bank.deals[1]
    pair = play_pair(players, 0, deal)
    assert len(started) == 2
    decks = [m.events[0].secret["deck"] for m in started]  # type: ignore[index]
    assert decks[0] == decks[1]
    for m in started:
        assert m.events[0].public["dealer"] == deal.dealer
        assert m.results[0]["dealer"] == deal.dealer
        assert m.results[0]["levels_before"] == [deal.level, deal.level]
        assert m.results[0]["tribute"]["n"] == 0
    assert sum(pair.decisions.values()) == len(log)
    assert all(dealer == deal.dealer for *_, dealer in log)
    # Hand 1: A at 0+2, B at 1+3; hand 2: B at 0+2, A at 1+3.
    def seats(label: str, hand: int) -> set[int]:
        return {seat for lab, h, seat, _ in log if lab == label and h == hand}

    assert seats("A", 1) == {0, 2} and seats("B", 1) == {1, 3}
    assert seats("A", 2) == {1, 3} and seats("B", 2) == {0, 2}
    assert [h.a_team for h in pair.hands] == [0, 1]
    # Every bot was reset (new_hand) before each of the two hands.
    assert [b.hands for lab in "AB" for b in recorders[lab]] == [2, 2, 2, 2]


def _result(dealer: int, take: bool, levels: int, score: int = 100) -> dict[str, Any]:
    return {"dealer": dealer, "attackers": 1 - dealer % 2, "attackers_take": take,
            "levels_awarded": levels, "score": score, "kou": False}


def test_net_levels_per_hand() -> None:
    # Dealer seat 0 (team 0); attackers team 1.
    assert net_levels(_result(0, True, 2), a_team=1) == 2  # A attacks and upgrades
    assert net_levels(_result(0, True, 2), a_team=0) == -2
    assert net_levels(_result(0, False, 1), a_team=0) == 1  # A deals and keeps with a level
    assert net_levels(_result(0, False, 1), a_team=1) == -1
    assert net_levels(_result(0, True, 0), a_team=1) == 0  # taking the deal without levels
    assert net_levels(_result(3, False, 4), a_team=1) == 4


def _hand(a_team: int, dealer: int, take: bool, levels: int, score: int) -> HandOutcome:
    res = _result(dealer, take, levels, score)
    return R.outcome(res, a_team)


def test_report_on_known_pairs() -> None:
    cfg = config(deals=3)
    deals = cfg.bank.deals
    pairs = [
        # Dealer seat 0: in hand 0 A deals (keeps, +1), in hand 1 B deals and A takes +2.
        PairResult(0, deals[0], (_hand(0, 0, False, 1, 60), _hand(1, 0, True, 2, 160))),
        # Both teams take the deal without levels: a tie.
        PairResult(1, deals[1], (_hand(0, 1, True, 0, 130), _hand(1, 1, True, 0, 140))),
        # Dealer seat 1: hand 0 B deals and keeps +1 (A -1), hand 1 A deals, B takes +3.
        PairResult(2, deals[2], (_hand(0, 1, False, 1, 50), _hand(1, 1, True, 3, 200))),
    ]
    report = build_report(RunResult(cfg, pairs, 1.0, None, "random"))
    assert report["pairs"] == 3 and report["hands"] == 6
    assert [p.net for p in pairs] == [1.5, 0.0, -2.0]
    net = report["net_levels_per_hand"]
    assert net["mean"] == pytest.approx(-0.5 / 3, abs=1e-6)
    assert report["pair_win_rate"] == pytest.approx(0.5)  # 1 win, 1 tie (half), 1 loss
    assert report["pair_outcomes"] == {"win": 1, "tie": 1, "loss": 1}
    # A attacks: 160, 140 (dealer 1 is team 1 = B in hand 0), 50; B attacks: 60, 130, 200.
    assert report["points_margin"]["mean"] == pytest.approx(((160 - 60) + (130 - 140)
                                                              + (50 - 200)) / 3, abs=1e-6)
    assert report["hold_rate"]["dealer"] == {"A": pytest.approx(1 / 3), "B": pytest.approx(1 / 3)}
    assert report["hold_rate"]["attackers"] == {"A": pytest.approx(2 / 3),
                                                "B": pytest.approx(2 / 3)}


def _without_timing(report: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in report.items() if k not in TIMING_FIELDS}


def test_workers_do_not_change_results() -> None:
    one = run_arena(config(deals=8, seed=11, workers=1))
    two = run_arena(config(deals=8, seed=11, workers=2))
    assert one["workers"] == 1 and two["workers"] == 2
    assert _without_timing(one) == _without_timing(two)
    assert one["latency_ms"]["A"]["decisions"] == two["latency_ms"]["A"]["decisions"]


def test_random_vs_random_is_even() -> None:
    report = run_arena(config(deals=50, seed=3))
    net = report["net_levels_per_hand"]
    assert report["pairs"] == 50 and report["hands"] == 100
    lo, hi = net["ci95"]
    assert lo < 0 < hi
    assert abs(net["mean"]) < 0.75
    assert 0.2 < report["pair_win_rate"] < 0.8
    assert report["errors"]["A"]["total"] == report["fallbacks"]["A"] == 0
    assert report["decisions"]["total"] == sum(report["decisions"][k] for k in "AB")
    assert report["latency_ms"]["A"]["p95"] >= report["latency_ms"]["A"]["p50"] > 0
    assert report["bank"]["id"] == "generated:gunzi:seed=3"


def test_classic_rules_with_the_committed_bank() -> None:
    bank = load_bank(BANKS / "classic-2-v1-1000.jsonl")
    report = run_arena(config("classic-2", deals=6, seed=2, bank=bank, offset=10))
    assert report["rules"] == "classic-2" and report["pairs"] == 6
    assert report["bank"]["id"] == "classic-2-v1-1000" and report["bank"]["offset"] == 10
    hold = report["hold_rate"]
    for role in ("dealer", "attackers"):
        for label in "AB":
            assert 0.0 <= hold[role][label] <= 1.0


def test_sprt_stops_early(monkeypatch: pytest.MonkeyPatch) -> None:
    stream = [1.0 if i % 3 else 0.0 for i in range(200)]  # a clear edge for A

    def fake_pair(players: Players, position: int, deal: Deal) -> PairResult:
        a = int(2 * stream[position])
        hands = (_hand(0, 0, False, a, 50), _hand(1, 0, True, a, 150))
        return PairResult(position, deal, hands)

    monkeypatch.setattr(R, "play_pair", fake_pair)
    run = run_pairs(config(deals=200, sprt=True))
    assert run.sprt is not None and run.sprt.decision == ACCEPT_H1
    assert len(run.pairs) == run.sprt.decided_at < 200
    report = build_report(run)
    assert report["sprt"]["decision"] == "accept H1" and report["pairs"] == run.sprt.decided_at


def test_sprt_continue_is_reported() -> None:
    report = run_arena(config(deals=4, sprt=True))
    assert report["sprt"]["decision"] == "continue" and report["sprt"]["pairs"] == 4


def test_parse_bots() -> None:
    a, b = parse_bots("cmd:python bot.py --x 1,2,rule")
    assert (a.command, b.name) == ("python bot.py --x 1,2", "rule")
    a, b = parse_bots("search:rollouts=100:fast=true,cmd:./bot")
    assert a.params == (("rollouts", 100), ("fast", True)) and b.command == "./bot"
    a, _ = parse_bots("search:time_limit=none:w=0.5:x=abc,rule")
    assert a.params == (("time_limit", None), ("w", 0.5), ("x", "abc"))
    with pytest.raises(ValueError, match="exactly two"):
        parse_bots("random")


def test_rule_bot_beats_random() -> None:
    pytest.importorskip("gunzi.bots.rule")
    report = run_arena(config(bots="rule,random", deals=20, seed=5))
    assert report["net_levels_per_hand"]["mean"] > 0
    assert report["errors"]["A"]["total"] == 0


# ------------------------------------------------------------------ CLI
def _app() -> typer.Typer:
    app = typer.Typer()
    register(app)
    return app


def test_cli_arena_json(tmp_path: Path) -> None:
    runner = CliRunner()
    pairs = tmp_path / "pairs.jsonl"
    result = runner.invoke(_app(), ["arena", "--bots", "random,random", "--deals", "3",
                                    "--seed", "9", "--json", "--pairs", str(pairs)])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["pairs"] == 3 and report["seed"] == 9 and report["rules"] == "gunzi"
    lines = [json.loads(x) for x in pairs.read_text().splitlines()]
    assert [x["deal"] for x in lines] == [0, 1, 2] and len(lines[0]["hands"]) == 2
    assert "arena: 3/3 pairs" in result.stderr


def test_cli_arena_diff_pairs_deals_by_index(tmp_path: Path) -> None:
    """Deal by deal differences of two --pairs files, only on the deals both played."""
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    first.write_text("".join(json.dumps({"deal": d, "net": n}) + "\n"
                             for d, n in [(0, 1.0), (1, 0.5), (2, -0.5), (7, 3.0)]))
    second.write_text("".join(json.dumps({"deal": d, "net": n}) + "\n"
                              for d, n in [(2, 0.5), (1, 0.0), (0, 0.0)]))
    result = CliRunner().invoke(_app(), ["arena-diff", str(first), str(second), "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    # differences 1.0, 0.5, -1.0: mean 1/6, sd sqrt(13/12), half-width 1.96 sd / sqrt(3)
    assert out["deals"] == 3 and out["mean"] == pytest.approx(1 / 6)
    half = 1.96 * (13 / 12) ** 0.5 / 3 ** 0.5
    assert out["ci95"] == pytest.approx([1 / 6 - half, 1 / 6 + half])
    second.write_text(json.dumps({"deal": 5, "net": 0.0}) + "\n")
    none = CliRunner().invoke(_app(), ["arena-diff", str(first), str(second)])
    assert none.exit_code == 2 and "share no deal" in none.output
    second.write_text("{}\n")
    bad = CliRunner().invoke(_app(), ["arena-diff", str(first), str(second)])
    assert bad.exit_code == 2 and "line 1" in bad.output


@pytest.mark.parametrize(("spec", "why"), [
    ("search:rollouts=0", "rollouts must be at least 1"),
    ("search:rollouts=abc", "rollouts must be an integer, not 'abc'"),
    ("learned:threshold=x", "threshold must be a number or none, not 'x'"),
    ("learned:weights=/nonexistent.npz", "No such file or directory: /nonexistent.npz"),
    ("learned:weights=README.md", "README.md is not a weights file"),
    ("rule:depth=3", "unexpected parameter 'depth'; rule takes "),
])
def test_cli_refuses_a_bad_bot_parameter_before_any_worker_starts(
        spec: str, why: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bot constructor's ValueError or OSError, or a value that does not fit the
    parameter's type, is one line naming the spec and exit 2; no worker pool starts."""
    def no_pool(*_: Any) -> Any:
        raise AssertionError("a worker pool started")

    monkeypatch.setattr(R, "_pairs_in_pool", no_pool)
    monkeypatch.chdir(Path(__file__).resolve().parents[2])  # README.md: not a weights file
    result = CliRunner().invoke(_app(), ["arena", "--bots", f"{spec},rule", "--rules",
                                         "classic-1", "--deals", "2", "--workers", "2"])
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"bot {spec!r}: ") and why in lines[0]


def test_cli_bots_help_shows_the_parameterised_forms() -> None:
    result = CliRunner().invoke(_app(), ["arena", "--help"], terminal_width=200)
    text = " ".join(result.output.replace("│", " ").split())
    for form in ("search:rollouts=100", "learned:weights=g.npz", "openspiel:ismcts",
                 "cmd:COMMAND"):
        assert form in text, form


def test_cli_bank_make_info_and_use(tmp_path: Path) -> None:
    runner = CliRunner()
    app = _app()
    path = tmp_path / "mini.jsonl"
    made = runner.invoke(app, ["bank", "make", str(path), "--rules", "classic-2", "--deals",
                               "5", "--seed", "3", "--json"])
    assert made.exit_code == 0, made.output
    assert json.loads(made.stdout)["id"] == "classic-2-v1-5"
    again = runner.invoke(app, ["bank", "make", str(path), "--rules", "classic-2"])
    assert again.exit_code == 2 and "never regenerated" in again.stderr
    info = runner.invoke(app, ["bank", "info", str(path), "--check-decks", "--json"])
    assert info.exit_code == 0 and json.loads(info.stdout)["verified"] is True
    run = runner.invoke(app, ["arena", "-r", "classic-2", "--bots", "random,random", "--bank",
                              str(path), "--deals", "2", "--offset", "3", "--json", "-q"])
    assert run.exit_code == 0, run.output
    assert json.loads(run.stdout)["bank"]["id"] == "classic-2-v1-5"
    wrong = runner.invoke(app, ["arena", "--bots", "random,random", "--bank", str(path),
                                "--deals", "2"])
    assert wrong.exit_code == 2 and "classic-2" in wrong.stderr
    big = runner.invoke(app, ["arena", "-r", "classic-2", "--bots", "random,random", "--bank",
                              str(path), "--deals", "9"])
    assert big.exit_code == 2 and "has 5 deals" in big.stderr


def test_cli_human_output() -> None:
    result = CliRunner().invoke(_app(), ["arena", "--bots", "random,random", "--deals", "2",
                                         "-q", "--sprt"])
    assert result.exit_code == 0, result.output
    assert "net levels per hand" in result.stdout and "SPRT" in result.stdout


def test_sprt_stop_is_the_same_with_workers() -> None:
    pytest.importorskip("gunzi.bots.rule")
    one = run_arena(config(bots="rule,random", deals=150, seed=2, sprt=True))
    two = run_arena(config(bots="rule,random", deals=150, seed=2, sprt=True, workers=2))
    assert one["sprt"]["decision"] == "accept H1" and one["pairs"] < 150
    assert _without_timing(one) == _without_timing(two)
