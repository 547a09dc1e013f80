"""Every game of the hall behind the one game interface (:mod:`gunzi.engine.game`).

``new_game("gunzi")``, ``new_game("classic-2")`` or ``new_game("quoridor-4")`` gives a
fresh game that a driver plays with ``to_act``, ``legal_actions``, ``apply``,
``is_over``, ``returns`` and ``information_state`` alone. The return type makes mypy
check that both engines implement the protocol. :func:`replay_record` checks a record of
any of them with the one record checker (:mod:`gunzi.engine.record_check`). A third game
adds its presets and its record format here.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from gunzi import presets
from gunzi.engine import records as card_records
from gunzi.engine import rules as card_rules
from gunzi.engine.game import GameState
from gunzi.engine.match import Match
from gunzi.quoridor import records as board_records
from gunzi.quoridor import rules as board_rules
from gunzi.quoridor.game import QuoridorGame


def new_game(preset: str, rng: random.Random | None = None, **options: Any) -> GameState[Any]:
    """A new game of the named preset with option overrides; ``rng`` deals the cards."""
    if presets.is_board(preset):
        return QuoridorGame(board_rules.preset(preset, **options))
    return Match(card_rules.preset(preset, **options), rng)


def replay_record(lines: Sequence[dict[str, Any]]
                  ) -> card_records.Replay | board_records.Replay:
    """Check a record of any game, chosen by its header's format; a header of no known
    format is refused by the card records (which name what the first line must be)."""
    if lines and board_records.BOARD.is_header(lines[0]):
        return board_records.replay(lines)
    return card_records.replay(lines)
