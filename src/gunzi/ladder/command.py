"""``gunzi ladder titles``: :func:`register` adds the ``ladder`` group to `gunzi`.

``gunzi ladder top`` reads the hall's database, so it belongs to the hall and is
:mod:`gunzi.server.ladder_command`, added to this group by the `gunzi` command; the ladder
service never imports the hall (docs/architecture.md, Layers)."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from gunzi.ladder.titles import titles

JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON")]


def titles_cmd(as_json: JsonOpt = False) -> None:
    """The 25 titles by ladder total (docs/rules.md Part C), lowest first."""
    rows = [{"name": name, "threshold": threshold} for name, threshold in titles()]
    if as_json:
        typer.echo(json.dumps(rows, ensure_ascii=False))
        return
    table = Table("#", "title", "from total")
    for k, row in enumerate(rows):
        table.add_row(str(k), str(row["name"]), str(row["threshold"]))
    Console().print(table)


def register(app: typer.Typer) -> typer.Typer:
    """Add the ``ladder`` group (``ladder titles``) to ``app``; returns the group, to which the
    hall adds ``ladder top``."""
    ladder_app = typer.Typer(help="The 积分 ladder: titles and leaderboards.",
                             no_args_is_help=True)
    ladder_app.command(name="titles")(titles_cmd)
    app.add_typer(ladder_app, name="ladder")
    return ladder_app
