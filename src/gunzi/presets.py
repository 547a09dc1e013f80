"""Every game's rule presets in one registry, for the commands' help texts and errors.

The card presets live in :mod:`gunzi.engine.rules`, the 步步为营 ones in
:mod:`gunzi.quoridor.rules`; a command that accepts both lists both from here, so a
new preset shows up in every help text and error without editing a string.
"""

from __future__ import annotations

from collections.abc import Sequence

from gunzi.engine.errors import InvalidRulesError
from gunzi.engine.rules import PRESETS as CARD_PRESETS
from gunzi.quoridor.rules import PRESETS as BOARD_PRESETS

CARDS: tuple[str, ...] = tuple(CARD_PRESETS)
BOARD: tuple[str, ...] = tuple(BOARD_PRESETS)
ALL: tuple[str, ...] = CARDS + BOARD


def is_board(name: str) -> bool:
    """Whether ``name`` is a 步步为营 preset."""
    return name in BOARD_PRESETS


def listing(names: Sequence[str] = ALL) -> str:
    """The presets as a help text lists them."""
    return ", ".join(names)


def check(name: str, names: Sequence[str] = ALL) -> str:
    """``name`` if it is one of ``names``; else an error listing them."""
    if name not in names:
        raise InvalidRulesError(f"unknown rule preset {name!r}; valid presets: {listing(names)}")
    return name


__all__ = ["ALL", "BOARD", "CARDS", "check", "is_board", "listing"]
