"""`gunzi play`: the terminal game. :func:`register` adds the command to a Typer app."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer

from gunzi.engine.errors import GunziError
from gunzi.engine.rules import PRESETS, preset, with_overrides
from gunzi.tui.i18n import LANGS
from gunzi.tui.session import Session, parse_bots


def default_record_path() -> Path:
    """Where a new game is saved unless --record says otherwise."""
    return Path.cwd() / f"gunzi-play-{time.strftime('%Y%m%d-%H%M%S')}.jsonl"


def build_session(
    *,
    rules: str = "gunzi",
    option: list[str] | None = None,
    bots: str | None = None,
    seed: int | None = None,
    resume: Path | None = None,
    record: Path | None = None,
) -> Session:
    """The session `gunzi play` would run (raises GunziError with a readable message)."""
    if resume is not None:
        return Session.resume(
            resume, bots=parse_bots(bots) if bots is not None else None, record_path=record
        )
    ruleset = with_overrides(preset(rules), option or [])
    return Session(ruleset, bots=parse_bots(bots), seed=seed,
                   record_path=record or default_record_path())


def run_app(session: Session, *, lang: str, delay: float) -> Path | None:
    """Run the Textual app until the player quits; return where the record was saved."""
    from gunzi.tui.app import GunziApp

    return GunziApp(session, lang=lang, delay=delay).run()


def register(app: typer.Typer) -> None:
    """Add the ``play`` command to ``app``."""

    @app.command()
    def play(
        rules: Annotated[
            str, typer.Option("--rules", "-r", help="Preset: " + ", ".join(PRESETS))
        ] = "gunzi",
        option: Annotated[
            list[str] | None,
            typer.Option("--option", "-o", help="Override a rule option, e.g. -o follow=live"),
        ] = None,
        bots: Annotated[
            str | None,
            typer.Option("--bots", "-b",
                         help="Bots of seats 1,2,3, e.g. rule,rule,rule (one name: all three). "
                              "Default rule (random if the rule bot is not installed)."),
        ] = None,
        seed: Annotated[int | None, typer.Option(help="Match seed (same seed, same deals)")] = None,
        lang: Annotated[str, typer.Option("--lang", help="zh or en (l switches in game)")] = "zh",
        delay: Annotated[
            float, typer.Option(help="Seconds between bot card plays (0 = instant)")
        ] = 0.6,
        resume: Annotated[
            Path | None, typer.Option("--resume", help="Continue a match saved by gunzi play")
        ] = None,
        record: Annotated[
            Path | None,
            typer.Option("--record",
                         help="Record file to save to (default: gunzi-play-<time>.jsonl here; "
                              "with --resume, the resumed file)"),
        ] = None,
    ) -> None:
        """Play 打滚子 (or classic 升级) in the terminal: you are seat 0, bots play 1-3."""
        if lang not in LANGS:
            typer.echo(f"--lang must be one of {', '.join(LANGS)}, not {lang!r}", err=True)
            raise typer.Exit(2)
        try:
            session = build_session(rules=rules, option=option, bots=bots, seed=seed,
                                    resume=resume, record=record)
        except GunziError as exc:
            typer.echo(str(exc), err=True)
            raise typer.Exit(2) from None
        saved = run_app(session, lang=lang, delay=delay)
        where = saved or session.record_path
        if where is not None and where.exists():
            typer.echo(f"record: {where}")
            typer.echo(f"continue with: gunzi play --resume {where}")
