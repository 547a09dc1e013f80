"""`gunzi play`: the terminal game. :func:`register` adds the command to a Typer app."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from gunzi import presets
from gunzi.bots.registry import names as bot_names
from gunzi.engine.errors import GunziError
from gunzi.engine.rules import preset, with_overrides
from gunzi.tui.board_save import is_board_record, load_board
from gunzi.tui.i18n import LANGS
from gunzi.tui.session import Session, parse_bots

if TYPE_CHECKING:
    from gunzi.tui.board_app import BoardApp


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


def run_app(session: Session, *, lang: str | None, delay: float) -> Path | None:
    """Run the Textual app until the player quits; return where the record was saved."""
    from gunzi.tui.app import GunziApp

    return GunziApp(session, lang=lang, delay=delay).run()


def board_bots(bots: str | None, default: list[str] | None = None) -> list[str]:
    """The 步步为营 bot names of ``--bots`` (``default`` when not given), each checked."""
    from gunzi.quoridor.bots import BOTS

    names = ([b.strip() for b in bots.split(",") if b.strip()] if bots is not None
             else default or ["rule"])
    for name in names:
        if name not in BOTS:
            raise GunziError(f"unknown 步步为营 bot {name!r}; valid bots: {', '.join(BOTS)}")
    return names


def build_board(rules: str, option: list[str] | None,
                bots: str | None) -> tuple[Any, list[str]]:
    """The 步步为营 rules and bot names `gunzi play --rules quoridor-*` would use."""
    from gunzi.quoridor.rules import with_overrides

    return with_overrides(rules, option), board_bots(bots)


def build_board_app(*, rules: str, option: list[str] | None, bots: str | None,
                    seed: int | None, lang: str | None, delay: float, record: Path | None,
                    resume: Path | None) -> BoardApp:
    """The 步步为营 app `gunzi play` would run (raises GunziError with a readable message).
    With ``resume``: the saved game, its bots (unless ``bots``), seed and language (unless
    ``lang``), saved back to the same file unless ``record`` says otherwise."""
    from gunzi.tui.board_app import BoardApp

    if resume is not None:
        saved = load_board(resume)
        return BoardApp(saved.game.rules, board_bots(bots, saved.bots), seed=saved.seed,
                        lang=lang or saved.lang or "zh", delay=delay,
                        record=record or resume, game=saved.game, resumed_from=resume)
    ruleset, names = build_board(rules, option, bots)
    return BoardApp(ruleset, names, seed=seed, lang=lang or "zh", delay=delay,
                    record=record or default_record_path())


def run_board_app(app: BoardApp) -> None:
    """Run the 步步为营 app until the player quits (tests replace this)."""
    app.run()


def print_record_hint(where: Path | None, over: bool) -> None:
    """Where the record is, and the command that goes on with it (or checks a finished one)."""
    if where is None or not where.exists():
        return
    typer.echo(f"record: {where}")
    if over:  # nothing left to continue
        typer.echo(f"check it with: gunzi replay {where}")
    else:
        typer.echo(f"continue with: gunzi play --resume {where}")


def given(ctx: typer.Context, name: str) -> bool:
    """Whether option ``name`` was on the command line (not its default). By the source's
    name: Typer ships its own copy of Click's ParameterSource."""
    source = ctx.get_parameter_source(name)
    return source is not None and source.name == "COMMANDLINE"


def register(app: typer.Typer) -> None:
    """Add the ``play`` command to ``app``."""

    @app.command()
    def play(
        ctx: typer.Context,
        rules: Annotated[
            str, typer.Option("--rules", "-r",
                              help="Preset: " + presets.listing())
        ] = "gunzi",
        option: Annotated[
            list[str] | None,
            typer.Option("--option", "-o", help="Override a rule option, e.g. -o follow=live"),
        ] = None,
        bots: Annotated[
            str | None,
            typer.Option("--bots", "-b",
                         help="Bots of seats 1,2,3, e.g. rule,learned,rule (one name: all "
                              "three): " + ", ".join(bot_names()) + ", each with parameters "
                              "as in the arena if wanted (learned:weights=g.npz, "
                              "search:rollouts=50). Default rule (random if the rule bot is "
                              "not installed)."),
        ] = None,
        seed: Annotated[int | None, typer.Option(help="Match seed (same seed, same deals)")] = None,
        lang: Annotated[
            str | None,
            typer.Option("--lang", help="zh or en (l switches in game); default zh, or the "
                                        "language a resumed match was saved with"),
        ] = None,
        delay: Annotated[
            float, typer.Option(min=0.0, help="Seconds between bot card plays (0 = instant)")
        ] = 0.6,
        resume: Annotated[
            Path | None,
            typer.Option("--resume", help="Continue a game saved by gunzi play (any game)"),
        ] = None,
        record: Annotated[
            Path | None,
            typer.Option("--record",
                         help="Record file to save to (default: gunzi-play-<time>.jsonl here; "
                              "with --resume, the resumed file)"),
        ] = None,
    ) -> None:
        """Play 打滚子 (or classic 升级) in the terminal: you are seat 0, bots play 1-3.

        With --rules quoridor-2 or quoridor-4: 步步为营 (bots random, rule, search).
        --resume continues a saved game of either kind."""
        if lang is not None and lang not in LANGS:
            typer.echo(f"--lang must be one of {', '.join(LANGS)}, not {lang!r}", err=True)
            raise typer.Exit(2)
        if resume is not None:
            ignored = [flag for name, flag in (("rules", "--rules"), ("option", "--option"),
                                               ("seed", "--seed"))
                       if given(ctx, name)]
            if ignored:
                typer.echo(f"note: {', '.join(ignored)} ignored: the rules and the seed come "
                           f"from {resume}", err=True)
        try:
            if resume is None:
                presets.check(rules)  # the error lists every game's presets
            board = (is_board_record(resume) if resume is not None
                     else presets.is_board(rules))
            if board:
                app = build_board_app(rules=rules, option=option, bots=bots, seed=seed,
                                      lang=lang, delay=delay, record=record, resume=resume)
            else:
                session = build_session(rules=rules, option=option, bots=bots, seed=seed,
                                        resume=resume, record=record)
        except GunziError as exc:
            typer.echo(str(exc), err=True)
            raise typer.Exit(2) from None
        if board:
            run_board_app(app)
            print_record_hint(app.record, app.game.is_over)
            return
        saved = run_app(session, lang=lang, delay=delay)
        print_record_hint(saved or session.record_path, session.is_over)
