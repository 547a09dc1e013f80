"""A Gymnasium single-agent view of a card game: one learning seat, registered bots at the
other three (their moves are made inside ``step``). Observation, action space and mask are
the card environment's; the reward comes once, when the episode's hands are over: the
seat's net levels (:class:`gunzi.env.cards.CardEnv`).

An action id the mask forbids is, by default (``illegal="lose"``), a forfeit: the episode
ends at once with the reward ``-MAX_HAND_LEVELS * hands`` (-64 a hand: no hand can cost
more, so forfeiting never pays) and ``info["illegal"]``, and nothing is played; so agents
that ignore the mask learn to respect it, and Gymnasium's env checker (which steps with
unmasked samples) passes. ``illegal="raise"`` raises the card environment's ValueError
instead (naming the seat and the legal ids; nothing changes). The same as
:class:`gunzi.env.board_single.BoardSingleEnv`'s forfeit.

The bots are told ``new_hand()`` before every hand of an episode (search and OpenSpiel
bots keep a hand's memory), as the arena and the hall tell them.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from gunzi import presets
from gunzi.bots.base import observe
from gunzi.bots.registry import make_spec
from gunzi.env.cards import MAX_HAND_LEVELS, CardEnv

ILLEGAL = ("lose", "raise")


class SingleSeatEnv(gym.Env[dict[str, np.ndarray], int]):
    """``seat`` learns; ``bots`` (one bot spec per other seat, in seat order: a registered
    name with parameters if any, ``search:rollouts=5``, ``learned:weights=g.npz``, as the
    arena reads them) play. ``illegal``: what an id the mask forbids does (module
    docstring)."""

    def __init__(self, preset: str = "gunzi", seat: int = 0,
                 bots: Sequence[str] = ("rule", "rule", "rule"), *, illegal: str = "lose",
                 **options: Any) -> None:
        if presets.is_board(preset):
            raise ValueError(f"{preset!r} is a 步步为营 preset: its single-seat environment is "
                             "BoardSingleEnv (gunzi.env.board_single); SingleSeatEnv plays "
                             f"the card games: {presets.listing(presets.CARDS)}")
        if len(bots) != 3:
            raise ValueError(f"give one bot for each of the 3 other seats, not {len(bots)}")
        if not 0 <= seat <= 3:
            raise ValueError(f"seat must be 0..3, not {seat}")
        if illegal not in ILLEGAL:
            raise ValueError(f"illegal must be one of {', '.join(ILLEGAL)}, not {illegal!r}")
        self.metadata = {"render_modes": []}
        self.seat = seat
        self.illegal = illegal
        self.cards = CardEnv(preset, **options)
        self.forfeit = -MAX_HAND_LEVELS * self.cards.hands
        others = [s for s in range(4) if s != seat]
        self.bots = {s: make_spec(name) for s, name in zip(others, bots, strict=True)}
        self.observation_space = self.cards.observation_space("player_0")
        self.action_space = self.cards.action_space("player_0")
        self._bot_rng = random.Random()
        self._ended = True
        self._hands = 0  # hands finished in the match, to tell the bots of a new one

    def _obs(self) -> dict[str, np.ndarray]:
        return self.cards.observe(self.cards.possible_agents[self.seat])

    def _new_hand(self) -> None:
        """Tell the bots of a new hand (the episode's first, or one after a hand ended)."""
        self._hands = len(self.cards.match.results)
        for bot in self.bots.values():
            bot.new_hand()

    def _bots_play(self) -> bool:
        """Let the bots act until the learner must; True if the episode ended."""
        env = self.cards
        while True:
            if len(env.match.results) > self._hands:
                self._new_hand()
            seat = env.builder.legal.seat
            if seat == self.seat:
                return False
            if env.play(self.bots[seat].choose(observe(env.match, seat), self._bot_rng)):
                return True

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        super().reset(seed=seed)
        self.cards.reset(seed=int(self.np_random.integers(2**63)))
        self._bot_rng.seed(int(self.np_random.integers(2**63)))
        self._new_hand()
        self._ended = self._bots_play()
        while self._ended:  # a hand the learner never acts in: deal another
            self.cards.reset(seed=int(self.np_random.integers(2**63)))
            self._new_hand()
            self._ended = self._bots_play()
        return self._obs(), {}

    def step(self, action: int) -> tuple[dict[str, np.ndarray], float, bool, bool,
                                         dict[str, Any]]:
        if self._ended:
            raise RuntimeError("the episode is over: call reset()")
        env = self.cards
        agent = env.possible_agents[self.seat]
        mask = self._obs()["action_mask"]
        if self.illegal == "lose" and not (0 <= int(action) < len(mask) and mask[int(action)]):
            self._ended = True
            return self._obs(), self.forfeit, True, False, {"illegal": True}
        env.step(int(action))  # with illegal="raise": ValueError for an id the mask forbids
        if not env.terminations[agent]:
            if not self._bots_play():
                return self._obs(), 0.0, False, False, {}
            env.finish()
        self._ended = True
        return self._obs(), env.rewards[agent], True, False, {}
