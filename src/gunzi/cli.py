"""The `gunzi` command: demo, simulate, bench, replay and the rule catalogue."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.table import Table

from gunzi.engine import cards as C
from gunzi.engine import records
from gunzi.engine.errors import GunziError
from gunzi.engine.match import Match
from gunzi.engine.rules import OPTIONS, PRESETS, Ruleset, preset, with_overrides
from gunzi.engine.sim import bench as run_bench
from gunzi.engine.sim import simulate as run_simulate

app = typer.Typer(
    help="Gunzi: 打滚子, classic 升级 and 步步为营 — rules engine, simulation and records.",
    no_args_is_help=True,
    add_completion=False,
)
console = Console()

RulesOpt = Annotated[str, typer.Option("--rules", "-r", help="Preset: " + ", ".join(PRESETS))]
OptionOpt = Annotated[
    list[str] | None,
    typer.Option("--option", "-o", help="Override a rule option, e.g. -o follow=live"),
]


def _rules(name: str, overrides: list[str] | None) -> Ruleset:
    try:
        return with_overrides(preset(name), overrides or [])
    except GunziError as exc:
        console.print(f"[red]{exc}[/red]")
        raise typer.Exit(2) from None


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


@app.command()
def demo(
    rules: RulesOpt = "gunzi",
    seed: Annotated[int, typer.Option(help="Seed of the simulated hand")] = 7,
    option: OptionOpt = None,
) -> None:
    """Play one hand with random players and print it readably."""
    ruleset = _rules(rules, option)
    match = Match(ruleset, random.Random(seed))
    players = random.Random(seed + 1)
    while not match.results:
        seat = match.to_act
        assert seat is not None
        match.apply(match.legal_actions(seat).sample(players))
    hand_events = [e.to_dict() for e in match.events if e.hand == 1]
    console.rule(f"[bold]{ruleset.name}[/bold] — hand 1 (seed {seed})")
    tricks = Table(title="Tricks", show_lines=False)
    for col in ("#", "leader", "seat 0", "seat 1", "seat 2", "seat 3", "winner", "points"):
        tricks.add_column(col)
    trick_plays: dict[int, str] = {}
    for ev in hand_events:
        t = ev["type"]
        if t == "deal":
            console.print(f"Deal {ev['deal_no']}: first seat {ev['first_seat']}, commitment "
                          f"{ev['commitment'][:16]}…")
        elif t == "declare":
            console.print(f"Seat {ev['seat']} declares {_pretty(ev['cards'])} after "
                          f"{ev['n']} cards drawn")
        elif t == "trump":
            console.print(f"Trump suit {ev['suit']} ({ev['how']}) {_pretty(ev['cards'])}")
        elif t == "kitty_flip":
            console.print(f"Kitty turned: {_pretty(ev['cards'])} → dealer {ev['dealer']}")
        elif t in ("tribute", "return"):
            console.print(f"Seat {ev['seat']} {t}s {_pretty(ev['cards'])} to seat {ev['to']}")
        elif t == "kitty_shown":
            console.print(f"Kitty shown ({ev['when']}): {_pretty(ev['cards'])}")
        elif t == "dry_pot":
            console.print("干锅: the kitty stays as it is")
        elif t == "bury":
            console.print(f"Seat {ev['seat']} buries {_pretty(ev['cards'])}")
        elif t == "bury_jokers":
            console.print(f"Seat {ev['seat']} buries {_pretty(ev['cards'])}, takes "
                          f"{_pretty(ev['take'])}")
        elif t == "play":
            trick_plays[ev["seat"]] = _pretty(ev["cards"])
            if len(trick_plays) == 1:
                leader = ev["seat"]
        elif t == "trick":
            tricks.add_row(str(ev["trick"]), str(leader),
                           *(trick_plays.get(s, "") for s in range(4)),
                           str(ev["winner"]), str(ev["points"]))
            trick_plays = {}
    console.print(tricks)
    result = records.summary(match.results[0])
    console.print_json(json.dumps(result, ensure_ascii=False))


@app.command()
def simulate(
    rules: RulesOpt = "gunzi",
    hands: Annotated[int, typer.Option(help="Hands to play")] = 100,
    seed: Annotated[int, typer.Option(help="Seed; same seed, same games")] = 0,
    records_dir: Annotated[
        Path | None, typer.Option("--records", help="Write one record per match here")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False,
    option: OptionOpt = None,
) -> None:
    """Random legal players make every decision; print the figures."""
    if rules.startswith("quoridor"):
        from gunzi.quoridor.records import dumps as q_dumps
        from gunzi.quoridor.rules import with_overrides as q_rules_with
        from gunzi.quoridor.sim import simulate as q_simulate

        def write_record(k: int, game: Any, names: list[str]) -> None:
            assert records_dir is not None
            records_dir.mkdir(parents=True, exist_ok=True)
            (records_dir / f"{rules}-{seed}-{k:05d}.jsonl").write_text(
                q_dumps(game, names, {"seed": seed, "game_no": k}), encoding="utf-8")

        try:
            q_rules = q_rules_with(rules, option)
        except GunziError as exc:
            console.print(f"[red]{exc}[/red]")
            raise typer.Exit(2) from None
        out = q_simulate(q_rules, hands, seed,
                         on_game=write_record if records_dir is not None else None)
    else:
        out = run_simulate(_rules(rules, option), hands, seed, records_dir)
    if as_json:
        _emit_json(out)
    else:
        for key, value in out.items():
            console.print(f"{key}: {value}")


@app.command()
def bench(
    rules: RulesOpt = "gunzi",
    hands: Annotated[int, typer.Option(help="Hands to play")] = 300,
    seed: Annotated[int, typer.Option()] = 1,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False,
) -> None:
    """Full random hands per second on one core, validation on."""
    out = run_bench(_rules(rules, None), hands, seed)
    if as_json:
        _emit_json(out)
    else:
        for key, value in out.items():
            console.print(f"{key}: {value}")


@app.command()
def replay(
    file: Annotated[Path, typer.Argument(help="A record (.jsonl)")],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False,
) -> None:
    """Re-validate every action of a record and print each hand's outcome."""
    if _replay_board(file, as_json):
        return
    try:
        with file.open(encoding="utf-8") as fh:
            result = records.replay(records.read_lines(fh))
    except OSError as exc:
        console.print(f"[red]cannot read {file}: {exc.strerror}[/red]")
        raise typer.Exit(2) from None
    except GunziError as exc:
        _replay_failed(exc, as_json)
    hands = [records.summary(h) for h in result.hands]
    if as_json:
        _emit_json({"ok": True, "rules": result.header["rules"]["name"], "hands": hands})
        return
    table = Table(title=f"{file} — {len(hands)} hand(s), all actions legal")
    for col in ("hand", "dealer", "score", "kitty", "levels", "next dealer", "tribute", "scores"):
        table.add_column(col)
    for h in hands:
        table.add_row(
            str(h["hand"]), str(h["dealer"]), str(h["attackers_score"]), h["kitty"],
            f"{h['levels_before']} → {h['levels_after']}", str(h["next_dealer"]),
            str(h.get("tribute_count", "")), str(h.get("hand_scores", "")),
        )
    console.print(table)


def _replay_failed(exc: GunziError, as_json: bool) -> NoReturn:
    """Report a record that does not replay (which event, which rule) and exit 1."""
    if as_json:
        _emit_json({"ok": False, "error": str(exc),
                    "event": getattr(exc, "event_number", None),
                    "rule": getattr(exc, "rule", "")})
    else:
        console.print(f"[red]{exc}[/red]")
    raise typer.Exit(1) from None


def _replay_board(file: Path, as_json: bool) -> bool:
    """Replay a 步步为营 record (see docs/quoridor.md); False if ``file`` is not one."""
    from gunzi.quoridor import records as q_records

    try:
        with file.open(encoding="utf-8") as fh:
            lines = list(records.read_lines(fh))
    except (OSError, GunziError):
        return False  # the card replay below reports it
    if not lines or not q_records.is_quoridor_header(lines[0]):
        return False
    try:
        summary = q_records.replay(lines).summary()
    except GunziError as exc:
        _replay_failed(exc, as_json)
    if as_json:
        _emit_json({"ok": True, **summary})
    else:
        console.print(f"{file}: {summary['rules']}, {summary['turns']} turns, all actions legal")
        for key, value in summary.items():
            console.print(f"  {key}: {value}")
    return True


@app.command(name="rules")
def rules_cmd(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False,
) -> None:
    """List the rule presets and every option with its values and clause."""
    data = {
        "presets": {name: preset(name).options() for name in PRESETS},
        "options": {k: {"values": list(o.values), "clause": o.clause, "doc": o.doc}
                    for k, o in OPTIONS.items()},
    }
    if as_json:
        _emit_json(data)
        return
    table = Table(title="Rule options")
    for col in ("option", "values (first = 打滚子 default)", "clause", "meaning"):
        table.add_column(col)
    for key, opt in OPTIONS.items():
        table.add_row(key, " / ".join(map(str, opt.values)), opt.clause, opt.doc)
    console.print(table)
    console.print("Presets: " + ", ".join(PRESETS))


def _register_subsystems() -> None:
    """Commands owned by other packages (terminal play, ...) add themselves here."""
    from gunzi.arena.command import register as register_arena
    from gunzi.ladder.command import register as register_ladder
    from gunzi.review.command import register as register_review
    from gunzi.server.command import register as register_server
    from gunzi.tui.command import register as register_tui

    register_server(app)
    register_tui(app)
    register_arena(app)
    register_ladder(app)
    register_review(app)


_register_subsystems()


def main() -> None:
    app()


if __name__ == "__main__":
    main()
