"""``gunzi ladder titles`` and ``gunzi ladder top``: :func:`register` adds them to `gunzi`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from gunzi.ladder.points import GAMES
from gunzi.ladder.titles import titles

JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON")]


def titles_cmd(as_json: JsonOpt = False) -> None:
    """The 25 titles by ladder total (RULES.md Part C), lowest first."""
    rows = [{"name": name, "threshold": threshold} for name, threshold in titles()]
    if as_json:
        typer.echo(json.dumps(rows, ensure_ascii=False))
        return
    table = Table("#", "title", "from total")
    for k, row in enumerate(rows):
        table.add_row(str(k), str(row["name"]), str(row["threshold"]))
    Console().print(table)


def top_cmd(
    game: Annotated[str, typer.Option(help="Ladder: " + ", ".join(GAMES))] = "gunzi",
    limit: Annotated[int, typer.Option(min=1, max=1000, help="How many players")] = 20,
    bots: Annotated[bool, typer.Option("--bots", help="The bots' ladder (default: people)")
                    ] = False,
    database: Annotated[
        str | None,
        typer.Option(help="SQLAlchemy URL (default: the hall's, as `gunzi serve` uses)"),
    ] = None,
    data_dir: Annotated[
        Path | None, typer.Option(help="Data directory (default ./data or $GUNZI_DATA)")
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """The leaderboard of one game from the hall's database: people, or with --bots the
    bots' own ladder."""
    from gunzi.server import db, ladder_db
    from gunzi.server.settings import from_env

    if game not in GAMES:
        raise typer.BadParameter(f"games: {', '.join(GAMES)}", param_hint="--game")
    settings = from_env(database_url=database, data_dir=data_dir)
    if settings.is_sqlite and ":memory:" not in settings.db_url:
        path = Path(settings.db_url.removeprefix("sqlite:///"))
        if not path.is_file():
            Console(stderr=True).print(f"no hall database at {path}", highlight=False)
            raise typer.Exit(2)
    store = db.Store(settings)
    try:
        store.migrate()  # as `gunzi serve` does at startup: an older database gets the tables
        board: dict[str, Any] = store.call(ladder_db.leaderboard, game, limit, 0,
                                           "bots" if bots else "people")
    finally:
        store.close()
    if as_json:
        typer.echo(json.dumps(board, ensure_ascii=False))
        return
    table = Table("rank", "player", "title", "total", "rating", "games",
                  title=f"{game} {'bots' if bots else 'ladder'} ({board['count']} players)")
    for p in board["players"]:
        who = p["player"]["name"] + (" (bot)" if p["player"]["kind"] == "bot" else "")
        table.add_row(str(p["rank"]), who, p["title"], str(p["total"]),
                      f"{p['rating']['ordinal']:.2f}", str(p["games"]))
    Console().print(table)


def register(app: typer.Typer) -> None:
    """Add the ``ladder`` group (``ladder titles``, ``ladder top``) to ``app``."""
    ladder_app = typer.Typer(help="The 积分 ladder: titles and leaderboards.",
                             no_args_is_help=True)
    ladder_app.command(name="titles")(titles_cmd)
    ladder_app.command(name="top")(top_cmd)
    app.add_typer(ladder_app, name="ladder")
