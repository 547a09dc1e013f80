"""``gunzi ladder top``: the leaderboard of one game, read from the hall's database.

It lives with the hall because it opens the hall's store (settings, migrations, the ladder
tables); :func:`register` adds it to the ``ladder`` group of :mod:`gunzi.ladder.command`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from gunzi.ladder.command import JsonOpt
from gunzi.ladder.points import GAMES


def top_cmd(
    game: Annotated[str, typer.Option(help="Ladder: " + ", ".join(GAMES))] = "gunzi",
    limit: Annotated[int, typer.Option(min=1, max=1000, help="How many players")] = 20,
    bots: Annotated[bool, typer.Option("--bots", help="The bots' ladder (default: people)")
                    ] = False,
    database: Annotated[
        str | None,
        typer.Option(help="SQLAlchemy URL (default: the hall's, as gunzi serve uses)"),
    ] = None,
    data_dir: Annotated[
        Path | None, typer.Option(help="Data directory (default ./data or $GUNZI_DATA)")
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """The leaderboard of one game from the hall's database: people, or with --bots the
    bots' own ladder."""
    from gunzi.server import db, ladder_db  # SQLAlchemy and Alembic only when it runs
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


def register(ladder_app: typer.Typer) -> None:
    """Add ``top`` to the ``ladder`` group."""
    ladder_app.command(name="top")(top_cmd)
