"""Typer options shared by the `gunzi` commands, so each reads and explains the same way.

The preset lists in the help come from :mod:`gunzi.presets`: ``CardRulesOpt`` for commands
that play cards only, ``RulesOpt`` for those that also play 步步为营.
"""

from __future__ import annotations

from typing import Annotated

import typer

from gunzi import presets

CardRulesOpt = Annotated[str, typer.Option(
    "--rules", "-r", help="Preset: " + presets.listing(presets.CARDS))]
RulesOpt = Annotated[str, typer.Option("--rules", "-r", help="Preset: " + presets.listing())]
OptionOpt = Annotated[
    list[str] | None,
    typer.Option("--option", "-o", help="Override a rule option, e.g. -o follow=live"),
]

__all__ = ["CardRulesOpt", "OptionOpt", "RulesOpt"]
