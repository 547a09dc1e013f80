"""PettingZoo AEC environment for 打滚子 and classic 升级 (1–3 decks), any rule option.

One episode is ``hands`` hands of a match (1 by default). The action space and the mask are
:mod:`gunzi.bots.card_tokens` (one fixed set of 223 token ids), the observation
:mod:`gunzi.bots.card_obs`; the reward of a seat is its net levels: in 打滚子 its A12 hand
scores (cards), in classic the levels its team gained less those the other team gained.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from gunzi.bots import card_obs
from gunzi.engine import rules as card_rules
from gunzi.engine.actions import Action, deal
from gunzi.engine.match import Match
from gunzi.engine.variant import variant_of
from gunzi.engine.view import seat_position
from gunzi.env import card_actions as CA
from gunzi.env.aec import TurnEnv


def net_levels(result: dict[str, Any], seat: int) -> float:
    """A finished hand's reward for ``seat``: 打滚子 hand score, classic net team levels."""
    if "hand_scores" in result:
        return float(result["hand_scores"][seat])
    before, after = result["levels_before"], result["levels_after"]
    team = seat % 2
    gain = [after[t] - before[t] for t in (0, 1)]
    return float(gain[team] - gain[1 - team])


MAX_HAND_LEVELS = 64.0  # a bound on one hand's net levels in every preset (A12 caps are lower)


class CardEnv(TurnEnv):
    """打滚子 (``preset="gunzi"``) or classic (``classic-1/2/3``), options as keywords.

    ``mid_round``: every episode starts mid-round as the arena's duplicate deals do (a
    random dealer, both teams at one random level, no tribute) instead of a match's first
    hand, so training sees the hands it is measured on.
    """

    def __init__(self, preset: str = "gunzi", hands: int = 1, *, mid_round: bool = False,
                 **options: Any) -> None:
        if isinstance(hands, bool) or not isinstance(hands, int) or hands < 1:
            raise ValueError(f"hands must be a whole number of at least 1 (the hands of an "
                             f"episode), not {hands!r}")
        self.rules = card_rules.preset(preset, **options)
        self.hands = hands
        self.mid_round = mid_round
        self.grouped = variant_of(self.rules).same_card_leads
        super().__init__(preset, 4, card_obs.OBS_SIZE, CA.NUM_ACTIONS, low=-50.0, high=50.0)

    def _start(self, seed: int) -> None:
        rng = random.Random(seed)
        if self.mid_round:
            level = rng.randint(self.rules.first_level, self.rules.last_level)
            dealer = rng.randrange(4)
            self.match = Match(self.rules, rng, auto_deal=False, levels=(level, level),
                               dealer=dealer, blood=0)
            self.match.apply(deal(rng.getrandbits(63)))
        else:
            self.match = Match(self.rules, rng)
        self._builder()

    def _builder(self) -> None:
        seat = self.match.to_act
        assert seat is not None and seat >= 0
        own = seat_position(self.match, seat)
        self.builder = CA.Builder(own, own.legal_actions(seat), self.grouped)
        self._next = self.builder.next_tokens()

    def _to_act(self) -> int:
        return self.builder.legal.seat

    def _legal(self) -> list[int]:
        return self._next

    def _observe(self, seat: int) -> np.ndarray:
        building: list[int] = []
        taking = False
        if not self._over and seat == self._to_act():
            taking = CA.TAKE in self.builder.built
            building = [t for t in self.builder.built if t < CA.GROUP0]
        return card_obs.encode(self.match.information_state(seat), self.rules, building, taking)

    def _take(self, action: int) -> bool:
        done = self.builder.push(action)
        if done is None:
            self._next = self.builder.next_tokens()
            return False
        return self.play(done)

    def play(self, action: Action) -> bool:
        """Apply a whole engine action (bots play this way); True if the episode ended."""
        self.match.apply(action)
        if len(self.match.results) >= self.hands or self.match.is_over:
            return True
        self._builder()
        self.agent_selection = self.possible_agents[self._to_act()]
        return False

    def _final_rewards(self) -> list[float]:
        return [sum(net_levels(r, s) for r in self.match.results) for s in range(4)]


def env(preset: str = "gunzi", **options: Any) -> CardEnv:
    """The PettingZoo-style constructor."""
    return CardEnv(preset, **options)
