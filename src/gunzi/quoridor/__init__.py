"""步步为营 (docs/rules.md Part D): a Quoridor-like race for 2 or 4 players.

Modules: :mod:`.rules` (options, presets), :mod:`.board` (geometry, bitset paths),
:mod:`.game` (state, actions, notation, events), :mod:`.bots`, :mod:`.sim`.
"""

from gunzi.quoridor.game import (
    Action,
    EndEvent,
    Event,
    Move,
    MoveEvent,
    Pass,
    PassEvent,
    QuoridorGame,
    Wall,
    WallEvent,
    format_action,
    parse_action,
)
from gunzi.quoridor.rules import QuoridorRules, make, preset

__all__ = [
    "Action",
    "EndEvent",
    "Event",
    "Move",
    "MoveEvent",
    "Pass",
    "PassEvent",
    "QuoridorGame",
    "QuoridorRules",
    "Wall",
    "WallEvent",
    "format_action",
    "make",
    "parse_action",
    "preset",
]
