"""`python -m gunzi.server serve ...` (the same commands `gunzi` gets from ``register``)."""

from __future__ import annotations

import typer

from gunzi.server.command import register

app = typer.Typer(help="The Gunzi web hall.", no_args_is_help=True, add_completion=False)
register(app)

if __name__ == "__main__":
    app()
