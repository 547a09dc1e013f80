"""``gunzi arena`` and ``gunzi bank``: call :func:`register` on the Typer app to add them."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from gunzi import presets
from gunzi.arena.bank import default_id, generated_bank, load_bank, make_bank
from gunzi.arena.runner import ArenaConfig, parse_bots, run_arena
from gunzi.arena.runner import Progress as RunProgress
from gunzi.arena.stats import mean_ci95
from gunzi.cli_options import CardRulesOpt, OptionOpt, RulesOpt
from gunzi.engine.errors import GunziError
from gunzi.engine.rules import Ruleset, preset, with_overrides
from gunzi.progress import Reporter


def _err() -> Console:
    return Console(stderr=True, soft_wrap=True)  # a message stays one line


def _fail(message: str) -> typer.Exit:
    _err().print(f"[red]{escape(message)}[/red]", highlight=False)
    return typer.Exit(2)


def _rules(name: str, overrides: list[str] | None) -> Ruleset:
    try:
        return with_overrides(preset(name), overrides or [])
    except GunziError as exc:
        raise _fail(str(exc)) from None


def _emit_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")


def _fmt(x: Any, digits: int = 4) -> str:
    return "–" if x is None else f"{x:+.{digits}f}" if isinstance(x, float) else str(x)


def _print_report(report: dict[str, Any]) -> None:
    console = Console()
    net = report["net_levels_per_hand"]
    ci = net["ci95"]
    console.rule(f"[bold]{report['bots']['A']}[/bold] (A) vs [bold]{report['bots']['B']}[/bold] "
                 f"(B) — {report['rules']}, bank {report['bank']['id']}")
    console.print(f"pairs {report['pairs']}, hands {report['hands']}, seed {report['seed']}, "
                  f"time limit {report['time_limit']} s, fallback {report['fallback_bot']}")
    ci_text = f"[{ci[0]:+.4f}, {ci[1]:+.4f}]" if ci else "–"
    console.print(f"net levels per hand for A: [bold]{_fmt(net['mean'])}[/bold] 95% CI {ci_text}")
    console.print(f"pair win rate {report['pair_win_rate']}, points margin "
                  f"{_fmt(report['points_margin']['mean'], 2)}")
    if report["sprt"]:
        s = report["sprt"]
        console.print(f"SPRT: [bold]{s['decision']}[/bold] after {s['pairs']} pairs "
                      f"(LLR {s['llr']:.3f}, bounds {s['lower']:.3f} / {s['upper']:.3f})")
    table = Table()
    for col in ("bot", "hold (dealing)", "take (attacking)", "decisions", "p50 ms", "p95 ms",
                "errors", "fallbacks"):
        table.add_column(col)
    for label in ("A", "B"):
        lat = report["latency_ms"][label]
        table.add_row(
            f"{label}: {report['bots'][label]}",
            str(report["hold_rate"]["dealer"][label]),
            str(report["hold_rate"]["attackers"][label]),
            str(report["decisions"][label]), str(lat["p50"]), str(lat["p95"]),
            str(report["errors"][label]["total"]), str(report["fallbacks"][label]),
        )
    console.print(table)
    console.print(f"{report['seconds']} s, {report['decisions_per_second']} decisions/s, "
                  f"{report['workers']} worker(s)")


class _Reporter(Reporter):
    """The arena's progress: pairs played, A's net levels per hand so far (and SPRT)."""

    def __init__(self, total: int, every: int, quiet: bool) -> None:
        super().__init__("arena", total, "pairs", every=every, quiet=quiet)

    def __call__(self, p: RunProgress) -> None:
        ci = f" ± {p.half_width:.4f}" if p.half_width is not None else ""
        text = f"net {p.net:+.4f}{ci} lv/hand" + (f", SPRT {p.sprt}" if p.sprt else "")
        self.update(p.done, text, p.seconds)


def arena(
    bots: Annotated[str, typer.Option(
        "--bots", help="Two bots A,B, each a registered name (random, rule, search, "
        "learned, openspiel, ...) with parameters if any, name:key=value:... "
        "(search:rollouts=100:time_limit=none, learned:weights=g.npz, "
        "openspiel:ismcts:simulations=50), or 'cmd:COMMAND' for an external bot "
        "(cmd:python mybot.py)")],
    rules: RulesOpt = "gunzi",
    deals: Annotated[int, typer.Option("--deals", "-n", help="Deal pairs to play (each deal "
                                       "is played twice, seats swapped)")] = 100,
    seed: Annotated[int, typer.Option(help="Seed of the bots' random choices, and of the "
                                      "deals when no --bank is given")] = 0,
    workers: Annotated[int, typer.Option(help="Processes playing pairs in parallel "
                                         "(results do not depend on it)")] = 1,
    bank: Annotated[Path | None, typer.Option(help="Deal bank file (.jsonl); without it the "
                                              "deals are generated from --seed")] = None,
    offset: Annotated[int, typer.Option(help="First bank deal to play")] = 0,
    sprt: Annotated[bool, typer.Option("--sprt", help="Stop early on an SPRT decision "
                                       "(H0 Δ=0, H1 Δ=+0.05, α=β=0.05)")] = False,
    time_limit: Annotated[float, typer.Option("--time-limit", help="Seconds per decision for "
                                              "external bots")] = 2.0,
    pairs: Annotated[Path | None, typer.Option("--pairs", help="Also write one JSON line per "
                                               "deal pair here")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the JSON report")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress on stderr")] = False,
    progress_every: Annotated[int, typer.Option(help="Without a terminal: a progress line "
                                                "every N pairs (0: auto)")] = 0,
    option: OptionOpt = None,
) -> None:
    """Duplicate match: every deal twice, A at seats 0+2 then at 1+3; report A's net levels.

    With --rules quoridor-2 or quoridor-4 each of the --deals pairs is a seeded opening
    played twice with sides swapped (docs/quoridor.md)."""
    try:
        presets.check(rules)  # the error lists every game's presets
    except GunziError as exc:
        raise _fail(str(exc)) from None
    if presets.is_board(rules):
        _board_arena(bots, rules, deals, seed, workers, pairs, as_json, quiet, option)
        return
    ruleset = _rules(rules, option)
    try:
        specs = parse_bots(bots)
        if deals < 1:
            raise GunziError("--deals must be at least 1")
        deal_bank = load_bank(bank) if bank is not None else generated_bank(
            ruleset, offset + deals, seed)
        deal_bank.check_rules(ruleset)
        config = ArenaConfig(rules=ruleset, bots=specs, bank=deal_bank, deals=deals,
                             offset=offset, seed=seed, workers=workers, time_limit=time_limit,
                             sprt=sprt)
        with _Reporter(deals, progress_every, quiet) as reporter:
            report = run_arena(config, reporter, pairs)
    except GunziError as exc:
        raise _fail(str(exc)) from None
    if as_json:
        _emit_json(report)
    else:
        _print_report(report)


def _board_arena(bots: str, rules: str, deals: int, seed: int, workers: int,
                 pairs: Path | None, as_json: bool, quiet: bool,
                 option: list[str] | None) -> None:
    """The 步步为营 arena (one process: ``--workers`` other than 1 is refused)."""
    from gunzi.arena.board import run_board_arena
    from gunzi.quoridor.rules import with_overrides

    def tick(done: int, total: int, rate: float) -> None:
        if not quiet and (done % max(1, total // 10) == 0 or done == total):
            _err().print(f"arena: {done}/{total} pairs, A scores {rate:.3f}", highlight=False)

    try:
        if workers != 1:
            raise GunziError("the 步步为营 arena runs in one process: use --workers 1")
        report = run_board_arena(with_overrides(rules, option), bots, deals, seed,
                                 pairs_out=pairs, progress=tick)
    except GunziError as exc:
        raise _fail(str(exc)) from None
    if as_json:
        _emit_json(report)
        return
    console = Console()
    ci = report["win_rate_a_ci95"]
    console.print(f"{report['bots']['A']} (A) vs {report['bots']['B']} (B), {report['rules']}: "
                  f"{report['games']} games, A wins {report['wins']['A']}, B wins "
                  f"{report['wins']['B']}, draws {report['draws']}", highlight=False)
    ci_text = f" 95% CI [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else ""
    console.print(f"A's score rate {report['win_rate_a']:.3f}{ci_text}", highlight=False)
    for label in ("A", "B"):
        lat = report["latency_ms"][label]
        console.print(f"{label}: {lat['decisions']} decisions, p50 {lat['p50']} ms, "
                      f"p95 {lat['p95']} ms, max {lat['max']} ms", highlight=False)


def bank_make(
    path: Annotated[Path, typer.Argument(help="File to write (.jsonl); must not exist")],
    rules: CardRulesOpt = "gunzi",
    deals: Annotated[int, typer.Option("--deals", "-n", help="Number of deals")] = 2000,
    seed: Annotated[int, typer.Option(help="Creation seed")] = 1,
    bank_id: Annotated[str | None, typer.Option("--id", help="Bank id (default "
                                                "<rules>-v<version>-<deals>)")] = None,
    version: Annotated[int, typer.Option(help="Bank version")] = 1,
    option: OptionOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the header as JSON")] = False,
) -> None:
    """Make a deal bank once; banks are never regenerated (make a new id or version)."""
    ruleset = _rules(rules, option)
    try:
        made = make_bank(ruleset, deals, seed, path,
                         bank_id=bank_id or default_id(ruleset, deals, version), version=version)
    except GunziError as exc:
        raise _fail(str(exc)) from None
    if as_json:
        _emit_json(dict(made.header))
    else:
        Console().print(f"wrote {path}: bank {made.id} v{made.version}, {len(made.deals)} deals, "
                        f"rules {ruleset.name}, seed {seed}")


def bank_info(
    path: Annotated[Path, typer.Argument(help="A deal bank (.jsonl)")],
    check_decks: Annotated[bool, typer.Option("--check-decks", help="Re-deal every deal and "
                                              "compare the deck digests")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False,
) -> None:
    """Verify a bank (header, digest, optionally every deck) and show its header."""
    try:
        loaded = load_bank(path, check_decks=check_decks)
    except GunziError as exc:
        raise _fail(str(exc)) from None
    out = {**loaded.header, "verified": True, "decks_checked": check_decks}
    if as_json:
        _emit_json(out)
    else:
        for key, value in out.items():
            if key != "options":
                Console().print(f"{key}: {value}", highlight=False)


def _pair_nets(path: Path) -> dict[int, float]:
    """Deal index -> A's net levels per hand, from an arena's ``--pairs`` file."""
    try:
        lines = path.read_text("utf-8").splitlines()
    except OSError as exc:
        raise GunziError(f"{path}: {exc.strerror or exc}") from None
    out: dict[int, float] = {}
    for n, line in enumerate(lines, 1):
        try:
            row = json.loads(line)
            out[int(row["deal"])] = float(row["net"])
        except (ValueError, KeyError, TypeError):
            raise GunziError(f"{path} line {n}: not a pair of gunzi arena --pairs") from None
    return out


def arena_diff(
    first: Annotated[Path, typer.Argument(help="--pairs file of one arena run")],
    second: Annotated[Path, typer.Argument(help="--pairs file of another, on the same deals")],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False,
) -> None:
    """Deal by deal, the first run's A minus the second's, in net levels per hand, with
    its CI95: two bots measured against the same opponent on the same deals compare more
    sharply this way than by their two intervals (docs/arena.md)."""
    try:
        a, b = _pair_nets(first), _pair_nets(second)
        shared = sorted(a.keys() & b.keys())
        if not shared:
            raise GunziError(f"{first} and {second} share no deal")
    except GunziError as exc:
        raise _fail(str(exc)) from None
    out = {"deals": len(shared), **mean_ci95([a[d] - b[d] for d in shared])}
    del out["n"]
    if as_json:
        _emit_json(out)
        return
    ci = out["ci95"]
    ci_text = f", CI95 [{ci[0]:+.4f}, {ci[1]:+.4f}]" if ci else ""
    Console().print(f"{len(shared)} deals: {out['mean']:+.4f} net levels per hand{ci_text}",
                    highlight=False)


def register(app: typer.Typer) -> None:
    """Add ``arena``, ``arena-diff`` and the ``bank`` group (``bank make``, ``bank info``)
    to ``app``."""
    app.command(name="arena")(arena)
    app.command(name="arena-diff")(arena_diff)
    bank_app = typer.Typer(help="Deal banks for the arena: make once, verify, never regenerate.",
                           no_args_is_help=True)
    bank_app.command(name="make")(bank_make)
    bank_app.command(name="info")(bank_info)
    app.add_typer(bank_app, name="bank")
