"""步步为营 as OpenSpiel Python games: ``python_gunzi_quoridor_2`` and ``_4``.

Perfect information and no chance: OpenSpiel's MCTS (and any perfect-information
algorithm) applies as it is. Action ids and the observation tensor are
:class:`gunzi.env.board.BoardCodec`'s (docs/research.md); returns are
:meth:`QuoridorGame.returns` (+1 to the winner, the others share -1, 0 for a draw at the
turn limit).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel

from gunzi.env.board import BoardCodec
from gunzi.env.openspiel_types import game_type, register
from gunzi.quoridor import rules as board_rules
from gunzi.quoridor.game import QuoridorGame

PRESETS = {"python_gunzi_quoridor_2": "quoridor-2", "python_gunzi_quoridor_4": "quoridor-4"}


TYPES = {name: game_type(name, f"Gunzi 步步为营 {preset}",
                         board_rules.preset(preset).players, hidden=False)
         for name, preset in PRESETS.items()}


class BoardGame(pyspiel.Game):  # type: ignore[misc]  # pyspiel ships no type information
    """One game of a 步步为营 preset."""

    short_name = "python_gunzi_quoridor_2"

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        self.rules = board_rules.preset(PRESETS[self.short_name])
        self.codec = BoardCodec(self.rules)
        players = self.rules.players
        info = pyspiel.GameInfo(
            num_distinct_actions=self.codec.num_actions, max_chance_outcomes=0,
            num_players=players, min_utility=-1.0, max_utility=1.0, utility_sum=0.0,
            max_game_length=self.rules.max_turns)
        super().__init__(TYPES[self.short_name], info, params or {})

    def new_initial_state(self) -> BoardState:
        return BoardState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> BoardObserver:
        perfect = iig_obs_type is None or iig_obs_type.perfect_recall
        return BoardObserver(self.codec, perfect_recall=bool(perfect))


class _Board:
    """The state's data; deep-copied by ``QuoridorGame.clone`` (the codec is shared)."""

    def __init__(self, codec: BoardCodec, game: QuoridorGame) -> None:
        self.codec = codec
        self.game = game

    def __deepcopy__(self, memo: dict[int, Any]) -> _Board:
        return _Board(self.codec, self.game.clone())


class BoardState(pyspiel.State):  # type: ignore[misc]
    """A game of 步步为营 behind OpenSpiel's State."""

    def __init__(self, game: BoardGame) -> None:
        super().__init__(game)
        self.b = _Board(game.codec, QuoridorGame(game.rules))

    def current_player(self) -> int:
        seat = self.b.game.to_act
        return int(pyspiel.PlayerId.TERMINAL) if seat is None else seat

    def _legal_actions(self, player: int) -> list[int]:
        return self.b.codec.legal(self.b.game, player)

    def _apply_action(self, action: int) -> None:
        game = self.b.game
        seat = game.to_act
        assert seat is not None
        game.apply(self.b.codec.action_of(seat, action))

    def _action_to_string(self, player: int, action: int) -> str:
        return self.b.codec.action_of(player, action).text()

    def is_terminal(self) -> bool:
        return self.b.game.is_over

    def returns(self) -> list[float]:
        return self.b.game.returns()

    def __str__(self) -> str:
        return self.b.game.render()


class BoardObserver:
    """The board vector; as a string the board (with the moves so far for perfect recall)."""

    def __init__(self, codec: BoardCodec, perfect_recall: bool) -> None:
        self.codec = codec
        self.perfect_recall = perfect_recall
        self.tensor = np.zeros(codec.obs_size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: BoardState, player: int) -> None:
        self.tensor[:] = self.codec.observe(state.b.game, player)

    def string_from(self, state: BoardState, player: int) -> str:
        game = state.b.game
        moves = f" moves {state.history()}" if self.perfect_recall else ""
        return f"p{player} turn {game.turns}{moves}\n{game.render()}"


GAMES = register(BoardGame, TYPES)
