"""The `gunzi` command: demo, simulate, bench, replay and the rule catalogue."""

from __future__ import annotations

import json
import random
import re
import sys
import tempfile
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from gunzi import perf, presets, rulebook
from gunzi.cli_options import CardRulesOpt, OptionOpt, RulesOpt
from gunzi.core import batch
from gunzi.engine import cards as C
from gunzi.engine import records
from gunzi.engine.errors import GunziError
from gunzi.engine.match import Match
from gunzi.engine.options import Option
from gunzi.engine.rules import OPTIONS, PRESETS, Ruleset, preset, with_overrides
from gunzi.engine.sim import bench as run_bench
from gunzi.engine.sim import simulate as run_simulate
from gunzi.engine.state import Variant
from gunzi.progress import Reporter

app = typer.Typer(
    help="Gunzi: 打滚子, classic 升级 and 步步为营 — rules engine, simulation and records.",
    no_args_is_help=True,
    add_completion=False,
)
console = Console()
# Refusals go to stderr, so --json output stays parseable; one line each, never wrapped.
errors = Console(stderr=True, soft_wrap=True)



def _rules(name: str, overrides: list[str] | None) -> Ruleset:
    try:
        return with_overrides(preset(name), overrides or [])
    except GunziError as exc:
        _refuse(exc)


def _emit_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")


SUIT_STYLE = {"S": "white", "H": "red", "C": "green", "D": "magenta"}


def _pretty(names: list[str]) -> str:
    out = []
    for n in names:
        card = C.parse(n)
        suit = n[-1] if card < C.LJ else ""
        style = SUIT_STYLE.get(suit, "bold yellow")
        out.append(f"[{style}]{C.unicode(card)}[/{style}]")
    return " ".join(out)


REDEAL_REASONS = {
    "flip-all-jokers": "all four turned kitty cards are jokers [I-4]",
    "kitty-all-jokers": "every kitty card drawn for the trump suit is a joker (A4.2)",
    "bj-declarer-drew-no-suited-card": "the BJ declarer drew no suited card after declaring "
                                       "[I-3]",
}


def _event_line(ev: dict[str, Any]) -> str | None:
    """One readable line for an event of the demo hand; None for draws, passes and plays."""
    t = ev["type"]
    if t == "deal":
        who = (f"first seat {ev['first_seat']}" if ev["dealer"] is None
               else f"dealer seat {ev['dealer']}")
        return (f"Deal {ev['deal_no']}: {who}, level {C.RANKS[ev['level']]}, tribute owed "
                f"{ev['tribute']}, commitment {ev['commitment'][:16]}…")
    if t == "redeal":
        return f"[bold]Redeal[/bold]: {REDEAL_REASONS.get(ev['reason'], ev['reason'])}"
    if t == "declare":
        return f"Seat {ev['seat']} declares {_pretty(ev['cards'])} after {ev['n']} cards drawn"
    if t == "trump":
        if ev["suit"] is None:
            return f"No trump suit: the kitty cards drawn were all jokers {_pretty(ev['cards'])}"
        turned = f": {_pretty(ev['cards'])}" if ev["cards"] else ""
        return f"Trump suit {ev['suit']} ({ev['how']}){turned}"
    if t == "kitty_flip":
        if ev["dealer"] is None:
            return f"Kitty turned: {_pretty(ev['cards'])}, all jokers"
        return f"Kitty turned: {_pretty(ev['cards'])} → dealer {ev['dealer']}"
    if t == "tribute":
        kind = ("[bold]Reversed tribute[/bold] (seat {to} holds three BJ)"
                if ev["kind"] == "reversed" else "Tribute").format(to=ev["to"])
        return f"{kind}: seat {ev['seat']} gives {_pretty(ev['cards'])} to seat {ev['to']}"
    if t == "return":
        return f"Return: seat {ev['seat']} gives {_pretty(ev['cards'])} to seat {ev['to']}"
    if t == "tribute_cancelled":
        return (f"[bold]Tribute cancelled[/bold]: seat {ev['giver']}'s partner holds three BJ, "
                f"so no {ev['n']}-card tribute either way")
    if t == "kitty_shown":
        return f"Kitty shown ({ev['when']}): {_pretty(ev['cards'])}"
    if t == "dry_pot":
        return "干锅 (dry pot): the kitty stays as it is and no joker may be buried"
    if t == "take_kitty":
        return f"Seat {ev['seat']} takes the kitty"
    if t == "bury":
        return f"Seat {ev['seat']} buries {_pretty(ev['cards'])}"
    if t == "joker_announce":
        return (f"Seat {ev['seat']} announces burying {_pretty(ev['announced'])}; the kitty is "
                f"shown {_pretty(ev['shown'])} and the seat picks which cards to take back")
    if t == "bury_jokers":
        if not ev["cards"]:
            return (f"Seat {ev['seat']} would bury {_pretty(ev['announced'])}, but the kitty "
                    "has no card to take back")
        return f"Seat {ev['seat']} buries {_pretty(ev['cards'])}, takes {_pretty(ev['take'])}"
    if t == "play_begins":
        return f"Play: seat {ev['leader']} leads, trump {ev['trump']}, level {C.RANKS[ev['level']]}"
    return None


def _trick_table(events: list[dict[str, Any]]) -> Table:
    """The tricks of a hand; a failed throw shows what was tried (✗) and what was played."""
    tricks = Table(title="Tricks", show_lines=False)
    for col in ("#", "leader", "seat 0", "seat 1", "seat 2", "seat 3", "winner", "points"):
        tricks.add_column(col)
    plays: dict[int, str] = {}
    leader = 0
    for ev in events:
        if ev["type"] == "play":
            if not plays:
                leader = ev["seat"]
            cell = _pretty(ev["cards"])
            if "attempted" in ev:
                cell = f"✗ {_pretty(ev['attempted'])} → {cell}"
            plays[ev["seat"]] = cell
        elif ev["type"] == "trick":
            tricks.add_row(str(ev["trick"]), str(leader), *(plays.get(s, "") for s in range(4)),
                           str(ev["winner"]), str(ev["points"]))
            plays = {}
    return tricks


@app.command()
def demo(
    rules: CardRulesOpt = "gunzi",
    seed: Annotated[int, typer.Option(help="Seed of the simulated match")] = 7,
    hand: Annotated[int, typer.Option(min=1, help="Which hand of the match to print")] = 1,
    option: OptionOpt = None,
) -> None:
    """Play a match with random players up to one hand and print that hand readably."""
    ruleset = _rules(rules, option)
    match = Match(ruleset, random.Random(seed))
    players = random.Random(seed + 1)
    while len(match.results) < hand and not match.is_over:
        seat = match.to_act
        assert seat is not None
        match.apply(match.legal_actions(seat).sample(players))
    if len(match.results) < hand:
        errors.print(f"[red]the match ended after {len(match.results)} hand(s)[/red]")
        raise typer.Exit(2)
    hand_events = [e.to_dict() for e in match.events if e.hand == hand]
    console.rule(f"[bold]{ruleset.name}[/bold] — hand {hand} (seed {seed})")
    for ev in hand_events:
        line = _event_line(ev)
        if line is not None:
            console.print(line)
    console.print(_trick_table(hand_events))
    failed = [ev for ev in hand_events if "attempted" in ev]
    for ev in failed:
        console.print(f"Failed throw, trick {ev['trick']}: seat {ev['seat']} tried "
                      f"{_pretty(ev['attempted'])} and had to play {_pretty(ev['cards'])}: "
                      "−1 game point (Part C)")
    result = records.summary(match.results[hand - 1])
    console.print_json(json.dumps(result, ensure_ascii=False))


def _check_records_dir(path: Path) -> None:
    """Fail before the first game, not after it, when records cannot be written to ``path``."""
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as exc:
        errors.print(f"[red]cannot write records to {path}: {exc.strerror or exc}[/red]")
        raise typer.Exit(2) from None


@app.command()
def simulate(
    rules: RulesOpt = "gunzi",
    hands: Annotated[int, typer.Option(min=1, help="Hands (games for 步步为营) to play")] = 100,
    seed: Annotated[int, typer.Option(help="Seed; same seed, same games")] = 0,
    records_dir: Annotated[
        Path | None, typer.Option("--records", help="Write one record per match here (with "
                                  "--workers: one file, a JSON line per hand)")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON (and no progress bar)")
                       ] = False,
    option: OptionOpt = None,
    workers: Annotated[int | None, typer.Option(
        min=1, help="Play play phases (random deals) on the play core, in this many "
                    "processes (same seed, same outcomes for any count); -o sets classic "
                    "trick options; --records writes one JSON line per hand")] = None,
    policy: Annotated[str, typer.Option(
        help="With --workers: who plays, random or rule (the rule bot's card play; "
             "打滚子 only)")] = "random",
) -> None:
    """Random legal players make every decision; print the figures.

    A progress bar on stderr while it runs (on a terminal, without --json)."""
    try:
        presets.check(rules)  # the error lists every game's presets
    except GunziError as exc:
        _refuse(exc)
    if workers is not None:
        if presets.is_board(rules) or (rules == "gunzi" and option):
            _refuse(GunziError("--workers plays play phases on the play core: card presets "
                               "only (-o: classic presets only)"))
        if policy not in batch.POLICIES or (policy != "random" and rules != "gunzi"):
            _refuse(GunziError(f"--policy {policy}: random, or rule with --rules gunzi"))
        if records_dir is not None:
            _check_records_dir(records_dir)
        out, outcomes = perf.core_simulate(_rules(rules, option), hands, seed, workers,
                                           policy, log=records_dir is not None)
        if records_dir is not None:
            path = records_dir / f"core-{rules}-{policy}-seed{seed}.jsonl"
            path.write_text("".join(json.dumps(batch.record(o, i), ensure_ascii=False) + "\n"
                                    for i, o in enumerate(outcomes)), encoding="utf-8")
            out["records"] = str(path)
    elif policy != "random":
        _refuse(GunziError("--policy plays on the play core: give --workers too"))
    elif presets.is_board(rules):
        out = _simulate_board(rules, hands, seed, records_dir, as_json, option)
    else:
        ruleset = _rules(rules, option)
        if records_dir is not None:
            _check_records_dir(records_dir)
        with Reporter("simulate", hands, "hands", every=None, quiet=as_json) as bar:
            out = run_simulate(ruleset, hands, seed, records_dir, bar.update)
    if as_json:
        _emit_json(out)
    else:
        what = "games" if presets.is_board(rules) else "hands"
        console.print(_figures_table(f"simulate {rules}: {out.get(what)} {what}, seed {seed}",
                                     out))


def _simulate_board(rules: str, games: int, seed: int, records_dir: Path | None,
                    quiet: bool, option: list[str] | None) -> dict[str, Any]:
    """``simulate`` for 步步为营: random bots, one record per game if asked."""
    from gunzi.quoridor.records import dumps as q_dumps
    from gunzi.quoridor.rules import with_overrides as q_rules_with
    from gunzi.quoridor.sim import simulate as q_simulate

    try:
        q_rules = q_rules_with(rules, option)
    except GunziError as exc:
        _refuse(exc)
    if records_dir is not None:
        _check_records_dir(records_dir)
    with Reporter("simulate", games, "games", every=None, quiet=quiet) as bar:

        def on_game(k: int, game: Any, names: list[str]) -> None:
            if records_dir is not None:
                (records_dir / f"{rules}-{seed}-{k:05d}.jsonl").write_text(
                    q_dumps(game, names, {"seed": seed, "game_no": k}), encoding="utf-8")
            bar.update(k + 1)

        return q_simulate(q_rules, games, seed, on_game=on_game)


def _refuse(exc: GunziError) -> NoReturn:
    errors.print(f"[red]{escape(str(exc))}[/red]")
    raise typer.Exit(2) from None


# How the figures of simulate and bench read in a table (a key not listed: its own name).
FIGURE_LABELS = {
    "overrides": "options other than the preset's",
    "hands_per_second": "hands per second",
    "games_per_second": "games per second",
    "decisions_per_second": "decisions per second",
    "mean_attackers_score": "attackers' mean score",
    "kou_rate": "抠底 (attackers take the kitty)",
    "attackers_take_rate": "attackers take the deal",
    "level_changes": "level changes",
    "rounds_completed": "rounds completed",
    "round_ends": "round ends",
    "mean_tribute_cards": "mean tribute (cards)",
    "dry_pot_rate": "干锅 (dry pot)",
    "failed_throws": "failed throws",
    "mean_moves": "mean turns per game",
    "wins": "wins per seat",
    "wins_by_bot": "wins per bot",
    "walls_placed_mean": "mean walls placed",
    "walls_placed": "walls placed",
    "walls_left": "walls left",
    "positions": "pawns",
    "legal_actions_us": "legal_actions (µs per call)",
    "view_us": "view (µs per call)",
}


def _figure(key: str, value: Any) -> str:
    """One figure as a person reads it: rates in %, lists per seat (or bot), mappings listed."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.2%}" if key.endswith("_rate") else f"{value:,.2f}"
    if isinstance(value, list):
        who = "bot" if key == "wins_by_bot" else "seat"
        return " · ".join(f"{who} {i}: {v}" for i, v in enumerate(value)) or "–"
    if isinstance(value, dict):
        return " · ".join(f"{k}: {_value_text(v)}" for k, v in value.items()) or "–"
    return "–" if value is None else f"{value:,}" if isinstance(value, int) else str(value)


def _figures_table(title: str | None, figures: dict[str, Any]) -> Table:
    table = Table(title=title, box=box.SIMPLE_HEAD, show_header=False)
    table.add_column("figure", style="bold")
    table.add_column("value", overflow="fold")
    for key, value in figures.items():
        table.add_row(FIGURE_LABELS.get(key, key.replace("_", " ")), escape(_figure(key, value)))
    return table


@app.command()
def bench(
    rules: CardRulesOpt = "gunzi",
    hands: Annotated[int, typer.Option(min=1, help="Hands to play")] = 300,
    seed: Annotated[int, typer.Option(help="Seed of the random players")] = 1,
    core_hands: Annotated[int, typer.Option(
        min=1, help="Random play phases (打滚子, then classic-2) for the play cores' figures")
    ] = 2000,
    search_decisions: Annotated[int, typer.Option(
        min=0, help="Endgame 打滚子 decisions for the search-rollout figures, five times as many "
        "for its latency (0: none)")
    ] = perf.SEARCH_DECISIONS,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON (and no progress bar)")
                       ] = False,
) -> None:
    """Engine speed: random hands per second, then the speed figures against a C yardstick.

    First full random hands per second on one core, validation on; then "speed": hands per
    CPU-second through the API and play phases through the play core, and search-bot
    rollouts (the default core policy and the older rule one, 150 rollouts a decision),
    pure and compiled (after make fast), as ratios to the C yardstick run before and after.

    A progress bar on stderr while it runs (on a terminal, without --json)."""
    ruleset = _rules(rules, None)
    with Reporter("bench", hands, "hands", every=None, quiet=as_json) as bar:
        out = run_bench(ruleset, hands, seed, bar.update)
    out["speed"] = perf.report(ruleset, hands, core_hands, seed, search_decisions)
    if as_json:
        _emit_json(out)
    else:
        console.print(_figures_table(f"bench {rules}: {hands} hands, seed {seed}", out))


@app.command("bench-learned")
def bench_learned(
    rules: CardRulesOpt = "gunzi",
    hands: Annotated[int, typer.Option(min=1, help="Hands of rule bots whose decisions "
                                                   "the learned bot answers")] = 12,
    seed: Annotated[int, typer.Option(help="Seed of the deals and the rule bots")] = 1,
    weights: Annotated[Path | None, typer.Option(
        help="An exported net (.npz) instead of the shipped one")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False,
) -> None:
    """The learned bot's decisions per CPU-second, one at a time and in batches (1, 8, 32,
    128 decisions scored together, as the hall batches the bot moves of many tables), with
    each batch size's ratio to one at a time, measured in the same run (docs/bots.md).
    Loading the net keeps numpy's BLAS on one thread, as in the hall; blas_threads is the
    count in effect while measuring (threadpoolctl)."""
    from gunzi.bots.learned import blas_threads

    out = perf.learned_batch(_rules(rules, None), hands, seed=seed, weights=weights)
    out["blas_threads"] = blas_threads()  # what ran, not OPENBLAS_NUM_THREADS's setting
    if as_json:
        _emit_json(out)
        return
    table = Table(title=f"learned bot, {out['decisions']} decisions of {hands} {rules} hands, "
                        f"BLAS threads {out['blas_threads']}", box=box.SIMPLE)
    for column in ("batch", "decisions / CPU-s", "ratio", "same actions"):
        table.add_column(column)
    table.add_row("1", str(out["single_per_cpu_second"]), "1.00", "yes")
    for size, row in out["batched"].items():
        table.add_row(size, str(row["per_cpu_second"]), f"{row['ratio']:.2f}",
                      "yes" if row["same"] else "NO")
    console.print(table)


@app.command("bench-bot")
def bench_bot(
    bot: Annotated[str, typer.Argument(help="A bot spec, e.g. checked, learned, "
                                            "search:rollouts=30:time_limit=none")],
    rules: CardRulesOpt = "gunzi",
    bank: Annotated[Path | None, typer.Option(help="Deal bank file (.jsonl), as the arena's; "
                                              "without it the deals come from --seed")] = None,
    offset: Annotated[int, typer.Option(min=0, help="First bank deal")] = 0,
    deals: Annotated[int, typer.Option(min=1, help="Deals: one hand each")] = 40,
    seed: Annotated[int, typer.Option(help="Seed of generated deals and the bots")] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False,
) -> None:
    """A bot's CPU milliseconds per decision (p50, p95, mean, max) over every decision it
    makes at seats 0 and 2 against rule bots, one hand from each deal as the arena plays
    it, in thread CPU time (other jobs on the machine do not count), with the C
    yardstick's figure of the same run (docs/bots.md)."""
    from gunzi.arena.bank import generated_bank, load_bank
    from gunzi.arena.latency import bot_latency
    from gunzi.bots.registry import make_spec

    ruleset = _rules(rules, None)
    try:
        make_spec(bot)  # a bad spec is one line, before the yardstick runs
        deal_bank = load_bank(bank) if bank is not None else generated_bank(
            ruleset, offset + deals, seed)
        deal_bank.check_rules(ruleset)
        before = perf.yardstick()
        out = bot_latency(bot, deal_bank, offset, deals, seed)
    except ValueError as exc:  # an offset past the bank's end
        _refuse(GunziError(str(exc)))
    except GunziError as exc:
        _refuse(exc)
    out["yardstick_hands_per_cpu_second"] = before
    out["core"] = perf.active_core()
    if as_json:
        _emit_json(out)
        return
    table = Table(title=f"{bot}: {out['decisions']} decisions of {deals} {rules} deals",
                  box=box.SIMPLE)
    for column in ("p50 ms", "p95 ms", "mean ms", "max ms", "yardstick hands/CPU-s"):
        table.add_column(column)
    table.add_row(str(out["p50_ms"]), str(out["p95_ms"]), str(out["mean_ms"]),
                  str(out["max_ms"]), str(out["yardstick_hands_per_cpu_second"]))
    console.print(table)


@app.command()
def replay(
    file: Annotated[Path, typer.Argument(help="A record (.jsonl)")],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False,
    strict: Annotated[bool, typer.Option(
        "--strict", help="Also fail (exit 1) if a deck does not follow from its seed or the "
                         "header leaves a rule option out")] = False,
) -> None:
    """Re-validate every action of a record and print each hand's outcome.

    Every deal's deck is also checked against its revealed seed, and options missing
    from the header are named: both are reported, and with --strict they fail.
    """
    from gunzi.games import replay_record
    from gunzi.quoridor import records as q_records

    try:
        with file.open(encoding="utf-8") as fh:
            lines = list(records.read_lines(fh))
    except OSError as exc:
        _replay_failed(f"cannot read {file}: {exc.strerror or exc}", as_json, 2)
    except UnicodeDecodeError:
        _replay_failed(f"cannot read {file}: not UTF-8 text", as_json, 2)
    except GunziError as exc:
        _replay_failed(exc, as_json)
    try:
        result = replay_record(lines)
    except GunziError as exc:
        _replay_failed(exc, as_json)
    if isinstance(result, q_records.Replay):
        _replay_board(file, result.summary(), as_json)
        return
    doubts = []
    if result.unseeded:
        doubts.append("the deck of the deal at event(s) "
                      f"{', '.join(map(str, result.unseeded))} does not follow from its seed")
    if result.assumed:
        doubts.append(f"the header leaves out {', '.join(result.assumed)} (defaults assumed)")
    if strict and doubts:
        _replay_failed("; ".join(doubts), as_json)
    hands = records.hand_summaries(result)
    if as_json:
        _emit_json({"ok": True, "rules": result.header["rules"]["name"], "hands": hands,
                    "unseeded_deals": result.unseeded, "assumed_defaults": result.assumed})
        return
    console.print(_replay_table(f"{file} — {len(hands)} hand(s), all actions legal", hands,
                                result.match.variant))
    for doubt in doubts:
        console.print(f"[yellow]Note: {doubt}[/yellow]")


def _levels(before: list[str], after: list[str]) -> str:
    """Team levels as people say them: ``3/3 → 4/3`` (team 0+2 first)."""
    return f"{'/'.join(before)} → {'/'.join(after)}"


def _replay_table(title: str, hands: list[dict[str, Any]], variant: Variant) -> Table:
    """One row per hand; 打滚子 shows tribute and A12 scores, classic the throws and points."""
    table = Table(title=title)
    gunzi = variant.hand_scores  # and tribute (A5): the rows 打滚子 adds
    extra = ("tribute", "hand scores") if gunzi else ("failed throws", "game points")
    for col in ("hand", "dealer", "score", "kitty", "levels 0+2/1+3", "next dealer", *extra):
        table.add_column(col)
    for h in hands:
        kitty = h["kitty"]
        if gunzi:
            kind = h["tribute_kind"]
            tribute = f"{kind} {h['tribute_count']}" if kind in ("normal", "reversed") else kind
            cells = (tribute, " ".join(f"{s:+d}" for s in h["hand_scores"]))
        else:
            if h["kitty_multiplier"]:
                kitty += f" ×{h['kitty_multiplier']}"
            points = h.get("game_points")
            cells = (" ".join(map(str, h["failed_throws"])),
                     " ".join(f"{p:+d}" for p in points) if points else "")
        next_dealer = (str(h["next_dealer"]) if h["next_dealer"] is not None
                       else f"{variant.closes} over: {h['round_end']}")
        table.add_row(str(h["hand"]), str(h["dealer"]), str(h["attackers_score"]), kitty,
                      _levels(h["levels_before"], h["levels_after"]), next_dealer, *cells)
    return table


def _replay_failed(exc: GunziError | str, as_json: bool, status: int = 1) -> NoReturn:
    """Report a record that cannot be read (2) or does not replay (1: which event, which rule)."""
    if as_json:
        _emit_json({"ok": False, "error": str(exc),
                    "event": getattr(exc, "event_number", None),
                    "rule": getattr(exc, "rule", "")})
    else:
        errors.print(f"[red]{exc}[/red]")
    raise typer.Exit(status) from None


def _replay_board(file: Path, summary: dict[str, Any], as_json: bool) -> None:
    """Print a replayed 步步为营 record (see docs/quoridor.md)."""
    if as_json:
        _emit_json({"ok": True, **summary})
    else:
        console.print(f"{file}: {summary['rules']}, {summary['turns']} turns, all actions legal")
        console.print(_figures_table(None, summary))


RULES_GAMES = ("cards", "quoridor", "ladder")


def _value_text(value: Any) -> str:
    """An option value as typed after ``-o option=``: booleans in lower case."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def _int_range(values: tuple[Any, ...]) -> tuple[int, int] | None:
    """(low, high) when the allowed values are a long run of integers, listed as a range."""
    if len(values) > 12 and values == tuple(range(values[0], values[-1] + 1)):
        return values[0], values[-1]
    return None


def _values_text(opt: dict[str, Any]) -> str:
    if "range" in opt:
        return "any integer {}..{}".format(*opt["range"])
    return " | ".join(_value_text(v) for v in opt["values"])


def _interpretation(opt: Option) -> str | None:
    """The docs/rules.md interpretation an option implements ('I-3'), if any."""
    found = re.search(r"\[(I-\d+)\]", opt.clause)
    return found.group(1) if found else None


def _catalog(options: dict[str, Option], presets: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """A game's options as data: allowed values, clause, [I-n], meaning, each preset's value."""
    out: dict[str, Any] = {}
    for key, opt in options.items():
        span = _int_range(opt.values)
        out[key] = {**({"range": list(span)} if span else {"values": list(opt.values)}),
                    "clause": opt.clause, "interpretation": _interpretation(opt),
                    "doc": opt.doc,
                    "presets": {name: values[key] for name, values in presets.items()}}
    return out


def _rules_data() -> dict[str, dict[str, Any]]:
    """Every game's rule catalogue: cards (Parts A/B), 步步为营 (Part D), the ladder (Part C)."""
    from gunzi.ladder.titles import OPTIONS as L_OPTIONS
    from gunzi.ladder.titles import LadderRules
    from gunzi.quoridor import rules as q_rules

    card_presets = {name: preset(name).options() for name in PRESETS}
    q_presets = {name: q_rules.preset(name).options() for name in q_rules.PRESETS}
    ladder = {"default": {key: getattr(LadderRules(), key) for key in L_OPTIONS}}
    return {
        "cards": {"presets": card_presets, "options": _catalog(OPTIONS, card_presets)},
        "quoridor": {"presets": q_presets, "options": _catalog(q_rules.OPTIONS, q_presets)},
        "ladder": {"presets": ladder, "options": _catalog(L_OPTIONS, ladder)},
    }


RULES_SECTIONS = {
    "cards": ("Card games: docs/rules.md Part A (preset gunzi) and Part B (classic-1/2/3, "
              "1 to 3 decks). Set an option with -o option=value (simulate, demo, play)."),
    "quoridor": ("步步为营: docs/rules.md Part D (presets quoridor-2, quoridor-4: 2 or 4 players). "
                 "gunzi simulate --rules quoridor-2 -o jumps=true"),
    "ladder": ("The ladder: docs/rules.md Part C (the hall's titles: gunzi ladder titles). "
               "No presets: 'default' is the value the hall uses."),
}


def _presets_text(per_preset: dict[str, Any]) -> str:
    """Each preset's value, presets with the same value together: ``gunzi, classic-3: 3``."""
    groups: dict[str, list[str]] = {}
    for name, value in per_preset.items():
        groups.setdefault(_value_text(value), []).append(name)
    return " · ".join(f"{', '.join(names)}: [bold]{value}[/bold]"
                      for value, names in groups.items())


def _rules_table(section: dict[str, Any]) -> Table:
    """Option names never wrap (they are typed); the details column wraps instead."""
    table = Table(box=box.SIMPLE_HEAD, leading=1)
    table.add_column("option\ndocs/rules.md", no_wrap=True)
    table.add_column("meaning\nallowed values\neach preset's value", overflow="fold")
    for key, opt in section["options"].items():
        table.add_row(f"[bold cyan]{key}[/bold cyan]\n[yellow]{escape(opt['clause'])}[/yellow]",
                      f"{escape(opt['doc'])}\nvalues: {_values_text(opt)}\n"
                      f"{_presets_text(opt['presets'])}")
    return table


@app.command(name="rules")
def rules_cmd(
    game: Annotated[str | None, typer.Option(
        "--game", "-g", help="Only one section: " + ", ".join(RULES_GAMES))] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False,
) -> None:
    """Every rule option: its docs/rules.md clause, meaning, allowed values and each preset's value.

    Card games first, then 步步为营 and the ladder; the rules text's path comes first
    (with --json: "documents", the path per language).
    """
    if game is not None and game not in RULES_GAMES:
        errors.print(f"[red]unknown --game {game!r}; valid: {', '.join(RULES_GAMES)}[/red]")
        raise typer.Exit(2)
    data = _rules_data()
    documents = {lang: str(rulebook.location(lang)) for lang in rulebook.LANGS}
    if as_json:
        if game is not None:
            _emit_json(data[game])
        else:  # the card catalogue at the top level, as before; the other games beside it
            _emit_json({**data["cards"], "quoridor": data["quoridor"], "ladder": data["ladder"],
                        "documents": documents})
        return
    console.print(f"The rules text: [bold]{escape(documents['en'])}[/bold] "
                  f"(中文 {escape(documents['zh'])}); in the hall: /rules", highlight=False)
    for name in RULES_GAMES if game is None else (game,):
        console.print(f"[bold]{RULES_SECTIONS[name]}[/bold]")
        console.print(_rules_table(data[name]))


def _register_subsystems() -> None:
    """Commands owned by other packages (terminal play, ...) add themselves here. Importing
    gunzi.env also registers its OpenSpiel bot (``openspiel:ismcts``) for every command."""
    from gunzi.arena.command import register as register_arena
    from gunzi.arena.policy_eval import evaluator
    from gunzi.env.advantage_command import register as register_advantage
    from gunzi.env.train_command import register as register_train
    from gunzi.ladder.command import register as register_ladder
    from gunzi.review.command import register as register_review
    from gunzi.server.command import register as register_server
    from gunzi.server.ladder_command import register as register_ladder_top
    from gunzi.tui.command import register as register_tui

    register_server(app)
    register_tui(app)
    register_arena(app)
    register_ladder_top(register_ladder(app))
    register_review(app)
    register_train(app, evaluator)
    register_advantage(app)


_register_subsystems()


def main() -> None:
    app()


if __name__ == "__main__":
    main()
