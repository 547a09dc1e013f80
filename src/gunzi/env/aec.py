"""The PettingZoo AEC machinery shared by the card and the board environments.

A subclass supplies the game: a new one from a seed, who acts, the action mask, the
observation of a seat, what one action id does and the rewards once it is over. This
class keeps PettingZoo's bookkeeping (agents, rewards, cumulative rewards, terminations,
dead steps) in one place.
"""

from __future__ import annotations

import random
from abc import abstractmethod
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv


class TurnEnv(AECEnv):  # type: ignore[misc]  # PettingZoo ships no type information
    """An AEC environment over a turn-based game of ``players`` seats."""

    def __init__(self, preset: str, players: int, obs_size: int, num_actions: int, *,
                 low: float, high: float) -> None:
        super().__init__()
        self.metadata: dict[str, Any] = {"render_modes": [], "is_parallelizable": False,
                                         "name": f"gunzi_{preset.replace('-', '_')}_v1"}
        self.possible_agents = [f"player_{i}" for i in range(players)]
        self.agents: list[str] = []
        obs = spaces.Box(low=low, high=high, shape=(obs_size,), dtype=np.float32)
        mask = spaces.Box(low=0, high=1, shape=(num_actions,), dtype=np.int8)
        # The same objects on every call (PettingZoo's api_test checks identity).
        self._obs_space = spaces.Dict({"observation": obs, "action_mask": mask})
        self._act_space = spaces.Discrete(num_actions)
        self.num_actions = num_actions
        self._seeder = random.Random()

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._obs_space

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self._act_space

    # ---- what a game supplies
    @abstractmethod
    def _start(self, seed: int) -> None:
        """Begin a new game dealt from ``seed``."""

    @abstractmethod
    def _to_act(self) -> int:
        """The seat to act (the game is not over)."""

    @abstractmethod
    def _legal(self) -> list[int]:
        """The action ids legal for the seat to act, sorted."""

    @abstractmethod
    def _observe(self, seat: int) -> np.ndarray:
        """What ``seat`` may know, as the observation vector."""

    @abstractmethod
    def _take(self, action: int) -> bool:
        """Perform a legal action id; True if the episode has ended."""

    @abstractmethod
    def _final_rewards(self) -> list[float]:
        """Per seat, the reward of the finished episode."""

    def finish(self) -> None:
        """End the episode: every seat terminated, with its final reward."""
        self._over = True
        for a, r in zip(self.possible_agents, self._final_rewards(), strict=True):
            self.rewards[a] = r
            self.terminations[a] = True

    # ---- PettingZoo
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._seeder.seed(seed)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._start(self._seeder.getrandbits(64))
        self._over = False
        self.agent_selection = self.possible_agents[self._to_act()]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.possible_agents.index(agent)
        mask = np.zeros(self.num_actions, dtype=np.int8)
        if not self._over and seat == self._to_act():
            mask[self._legal()] = 1
        return {"observation": self._observe(seat), "action_mask": mask}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is to act and must give an action id, not None")
        token = int(action)
        legal = self._legal()
        if token not in legal:
            raise ValueError(
                f"{agent} may not take action {token} now; legal ids: {legal[:20]}"
                + (" …" if len(legal) > 20 else "")
            )
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        if self._take(token):
            self.finish()
        else:
            self.agent_selection = self.possible_agents[self._to_act()]
        self._accumulate_rewards()
