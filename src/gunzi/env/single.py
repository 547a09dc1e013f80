"""A Gymnasium single-agent view of a card game: one learning seat, registered bots at the
other three (their moves are made inside ``step``). Observation, action space and mask are
the card environment's; the reward comes once, when the episode's hands are over.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from gunzi.bots.base import observe
from gunzi.bots.registry import make_spec
from gunzi.env.cards import CardEnv


class SingleSeatEnv(gym.Env[dict[str, np.ndarray], int]):
    """``seat`` learns; ``bots`` (one bot spec per other seat, in seat order: a registered
    name with parameters if any, ``search:rollouts=5``, ``learned:weights=g.npz``, as the
    arena reads them) play."""

    def __init__(self, preset: str = "gunzi", seat: int = 0,
                 bots: Sequence[str] = ("rule", "rule", "rule"), **options: Any) -> None:
        if len(bots) != 3:
            raise ValueError(f"give one bot for each of the 3 other seats, not {len(bots)}")
        if not 0 <= seat <= 3:
            raise ValueError(f"seat must be 0..3, not {seat}")
        self.metadata = {"render_modes": []}
        self.seat = seat
        self.cards = CardEnv(preset, **options)
        others = [s for s in range(4) if s != seat]
        self.bots = {s: make_spec(name) for s, name in zip(others, bots, strict=True)}
        self.observation_space = self.cards.observation_space("player_0")
        self.action_space = self.cards.action_space("player_0")
        self._bot_rng = random.Random()

    def _obs(self) -> dict[str, np.ndarray]:
        return self.cards.observe(self.cards.possible_agents[self.seat])

    def _bots_play(self) -> bool:
        """Let the bots act until the learner must; True if the episode ended."""
        env = self.cards
        while env.builder.legal.seat != self.seat:
            seat = env.builder.legal.seat
            if env.play(self.bots[seat].choose(observe(env.match, seat), self._bot_rng)):
                return True
        return False

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        super().reset(seed=seed)
        self.cards.reset(seed=int(self.np_random.integers(2**63)))
        self._bot_rng.seed(int(self.np_random.integers(2**63)))
        for bot in self.bots.values():
            bot.new_hand()
        self._ended = self._bots_play()
        while self._ended:  # a hand the learner never acts in: deal another
            self.cards.reset(seed=int(self.np_random.integers(2**63)))
            self._ended = self._bots_play()
        return self._obs(), {}

    def step(self, action: int) -> tuple[dict[str, np.ndarray], float, bool, bool,
                                         dict[str, Any]]:
        if self._ended:
            raise RuntimeError("the episode is over: call reset()")
        env = self.cards
        agent = env.possible_agents[self.seat]
        env.step(action)  # raises a clear ValueError for an id the mask forbids
        if not env.terminations[agent]:
            if not self._bots_play():
                return self._obs(), 0.0, False, False, {}
            env.finish()
        self._ended = True
        return self._obs(), env.rewards[agent], True, False, {}
