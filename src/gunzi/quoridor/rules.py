"""Rules of 步步为营 (docs/rules.md Part D) as data: frozen, validated, with named presets.

Every interpretation is an option with the docs/rules.md default:

* ``board_size`` **[I-14]**: the board is ``board_size`` × ``board_size`` squares (9; odd
  sizes 5…11 so that every edge has a centre square).
* ``jumps`` **[I-15]**: ``False`` (default) a pawn may never move onto or over another pawn;
  ``True`` the usual Quoridor jump.

Two more options are engine conventions the seed does not cover (proposed as new [I-n]):

* ``max_turns``: after this many actions with no winner the game is a draw (two pawns
  facing each other in a one-square corridor can block each other for ever when jumps
  are off). ``0`` means no limit.
* ``walls``: walls per player (10 for two players, 5 for four, per Part D).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gunzi.engine.options import Catalog, Option

QUORIDOR = "quoridor"


OPTIONS: dict[str, Option] = {
    o.name: o
    for o in (
        Option("players", (2, 4), "D", "Number of players (2 or 4)."),
        Option("walls", tuple(range(31)), "D",
               "Walls (木块) per player: 10 with 2 players, 5 with 4."),
        Option("board_size", (9, 5, 7, 11), "D [I-14]", "Squares per side of the board."),
        Option("jumps", (False, True), "D [I-15]",
               "A pawn may jump over an adjacent pawn (straight, or sideways when blocked)."),
        Option("max_turns", tuple(range(10001)), "D (engine)",
               "Draw after this many actions without a winner; 0 = no limit."),
    )
}


@dataclass(frozen=True)
class QuoridorRules:
    """A complete, validated rule set. Build one with :func:`preset` or :func:`make`."""

    name: str = "quoridor-2"
    players: int = 2
    walls: int = 10
    board_size: int = 9
    jumps: bool = False
    max_turns: int = 1000

    def __post_init__(self) -> None:
        for key, opt in OPTIONS.items():
            opt.check(getattr(self, key))

    @property
    def game(self) -> str:
        return QUORIDOR

    def options(self) -> dict[str, Any]:
        """The options as plain data (for record headers and the web)."""
        return {key: getattr(self, key) for key in OPTIONS}

    def replace(self, **changes: Any) -> QuoridorRules:
        """A copy with some options changed (validated like any rule set)."""
        return make(self.name, **{**self.options(), **changes})


PRESETS: dict[str, dict[str, Any]] = {
    "quoridor-2": {"players": 2, "walls": 10},
    "quoridor-4": {"players": 4, "walls": 5},
}


CATALOG: Catalog[QuoridorRules] = Catalog(QuoridorRules, OPTIONS, PRESETS)
make = CATALOG.make
preset = CATALOG.preset
from_options = CATALOG.from_options
parse_option_value = CATALOG.parse_option_value


def with_overrides(name: str, pairs: list[str] | None) -> QuoridorRules:
    """A preset with command-line ``option=value`` overrides (``-o jumps=true``)."""
    return preset(name, **CATALOG.parse_overrides(pairs or []))


__all__ = [
    "OPTIONS",
    "PRESETS",
    "QUORIDOR",
    "Option",
    "QuoridorRules",
    "from_options",
    "make",
    "parse_option_value",
    "preset",
    "with_overrides",
]
