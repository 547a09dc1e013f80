"""PettingZoo AEC environment for 步步为营 (2 or 4 players), reward win / loss.

Action ids (n = board size, 9 by default; m = n - 1): ``r*n + c`` moves the own pawn to
square (row r, col c), a step or a jump; ``n*n + r*m + c`` places the horizontal wall
anchored at (r, c), ``n*n + m*m + r*m + c`` the vertical one; the last id is the pass
(legal only when nothing else is). The observation is public (the game hides nothing):
per relative seat (0 = me, then in playing order) a plane of its pawn, the horizontal and
the vertical wall anchors, walls left per relative seat / walls per player, and the turn
count / turn limit. The reward is :meth:`QuoridorGame.returns`: +1 to the winner, the
others share -1, 0 for a draw at the turn limit.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gunzi.env.aec import TurnEnv
from gunzi.quoridor import rules as board_rules
from gunzi.quoridor.game import Action, Move, Pass, QuoridorGame, Wall
from gunzi.quoridor.rules import QuoridorRules


class BoardCodec:
    """Action ids and observation vectors of one 步步为营 ruleset (also used by OpenSpiel)."""

    def __init__(self, rules: QuoridorRules) -> None:
        self.rules = rules
        n = rules.board_size
        self.n, self.m = n, n - 1
        self.players = rules.players
        self.obs_size = self.players * n * n + 2 * self.m * self.m + self.players + 1
        self.num_actions = n * n + 2 * self.m * self.m + 1

    def action_id(self, action: Action) -> int:
        n, m = self.n, self.m
        if isinstance(action, Move):
            return action.to[0] * n + action.to[1]
        if isinstance(action, Wall):
            base = n * n + (0 if action.orientation == "h" else m * m)
            return base + action.row * m + action.col
        return n * n + 2 * m * m

    def action_of(self, seat: int, action_id: int) -> Action:
        n, m = self.n, self.m
        if action_id < n * n:
            return Move(seat, divmod(action_id, n))
        if action_id < n * n + 2 * m * m:
            k = action_id - n * n
            orientation = "h" if k < m * m else "v"
            row, col = divmod(k % (m * m), m)
            return Wall(seat, row, col, orientation)
        return Pass(seat)

    def legal(self, game: QuoridorGame, seat: int) -> list[int]:
        return sorted(self.action_id(a) for a in game.legal_actions(seat))

    def observe(self, game: QuoridorGame, seat: int) -> np.ndarray:
        n, m, p = self.n, self.m, self.players
        out = np.zeros(self.obs_size, dtype=np.float32)
        for s, (row, col) in enumerate(game.positions):
            out[((s - seat) % p) * n * n + row * n + col] = 1
        walls = p * n * n
        for w in game.walls:
            out[walls + (0 if w.orientation == "h" else m * m) + w.row * m + w.col] = 1
        left = walls + 2 * m * m
        for s, k in enumerate(game.walls_left):
            out[left + (s - seat) % p] = k / max(1, self.rules.walls)
        limit = self.rules.max_turns
        out[left + p] = min(1.0, game.turns / limit) if limit else 0.0
        return out


class BoardEnv(TurnEnv):
    """步步为营: ``preset="quoridor-2"`` or ``"quoridor-4"``, options as keywords."""

    def __init__(self, preset: str = "quoridor-2", **options: Any) -> None:
        self.rules = board_rules.preset(preset, **options)
        self.codec = BoardCodec(self.rules)
        super().__init__(preset, self.rules.players, self.codec.obs_size,
                         self.codec.num_actions, low=0.0, high=1.0)

    def _start(self, seed: int) -> None:
        self.game = QuoridorGame(self.rules)  # no chance in 步步为营: the seed is unused

    def _to_act(self) -> int:
        seat = self.game.to_act
        assert seat is not None
        return seat

    def _legal(self) -> list[int]:
        return self.codec.legal(self.game, self._to_act())

    def _observe(self, seat: int) -> np.ndarray:
        return self.codec.observe(self.game, seat)

    def _take(self, action: int) -> bool:
        self.game.apply(self.codec.action_of(self._to_act(), action))
        return self.game.is_over

    def _final_rewards(self) -> list[float]:
        return self.game.returns()
