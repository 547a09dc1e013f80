"""A Gymnasium single-agent view of 步步为营: one learning seat, registered 步步为营 bots
(:data:`gunzi.quoridor.bots.BOTS`) at the others, their moves made inside ``step``.

Observation, action ids and mask are the board environment's (:mod:`gunzi.env.board`);
the reward comes once, at the end: +1 for a win, the others share -1 (-1/(n-1) each), 0
for a draw at the turn limit (a rule of the game, so it ends the episode as terminated,
not truncated). An action id the mask forbids is, by default (``illegal="lose"``), a
forfeit: the episode ends with reward -1 and ``info["illegal"]``, so agents that ignore
the mask learn to respect it and Gymnasium's env checker (which steps with unmasked
samples) passes; ``illegal="raise"`` raises the AEC environment's ValueError instead.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from gunzi import presets
from gunzi.env.board import BoardEnv
from gunzi.quoridor.bots import make_bot

ILLEGAL = ("lose", "raise")


class BoardSingleEnv(gym.Env[dict[str, np.ndarray], int]):
    """``seat`` learns; ``bots`` (one 步步为营 bot name per other seat, in seat order;
    default ``rule`` everywhere) play the rest."""

    def __init__(self, preset: str = "quoridor-2", seat: int = 0,
                 bots: Sequence[str] | None = None, *, illegal: str = "lose",
                 **options: Any) -> None:
        if preset in presets.CARDS:
            raise ValueError(f"{preset!r} is a card game's preset: its single-seat "
                             "environment is SingleSeatEnv (gunzi.env.single); "
                             "BoardSingleEnv plays 步步为营: "
                             f"{presets.listing(presets.BOARD)}")
        self.board = BoardEnv(preset, **options)
        players = self.board.rules.players
        names = list(bots) if bots is not None else ["rule"] * (players - 1)
        if len(names) != players - 1:
            raise ValueError(f"give one bot for each of the {players - 1} other seats, "
                             f"not {len(names)}")
        if not 0 <= seat < players:
            raise ValueError(f"seat must be 0..{players - 1}, not {seat}")
        if illegal not in ILLEGAL:
            raise ValueError(f"illegal must be one of {', '.join(ILLEGAL)}, not {illegal!r}")
        self.metadata = {"render_modes": []}
        self.seat = seat
        self.illegal = illegal
        others = [s for s in range(players) if s != seat]
        self.bots = {s: make_bot(name) for s, name in zip(others, names, strict=True)}
        self.agent = self.board.possible_agents[seat]
        self.observation_space = self.board.observation_space(self.agent)
        self.action_space = self.board.action_space(self.agent)
        self._bot_rng = random.Random()
        self._ended = True

    def _bots_play(self) -> bool:
        """Let the bots move until the learner must; True if the game ended."""
        env = self.board
        while not env.terminations[self.agent]:
            seat = env.possible_agents.index(env.agent_selection)
            if seat == self.seat:
                return False
            move = self.bots[seat].choose(env.game, seat, self._bot_rng)
            env.step(env.codec.action_id(move))
        return True

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        super().reset(seed=seed)
        self.board.reset(seed=int(self.np_random.integers(2**63)))
        self._bot_rng.seed(int(self.np_random.integers(2**63)))
        self._ended = self._bots_play()  # the learner always moves before any game ends
        return self.board.observe(self.agent), {}

    def step(self, action: int) -> tuple[dict[str, np.ndarray], float, bool, bool,
                                         dict[str, Any]]:
        if self._ended:
            raise RuntimeError("the episode is over: call reset()")
        env = self.board
        if self.illegal == "lose" and int(action) not in env.codec.legal(env.game, self.seat):
            self._ended = True
            return env.observe(self.agent), -1.0, True, False, {"illegal": True}
        env.step(int(action))  # with illegal="raise": ValueError for a forbidden id
        if not self._bots_play():
            return env.observe(self.agent), 0.0, False, False, {}
        self._ended = True
        return env.observe(self.agent), float(env.rewards[self.agent]), True, False, {}
