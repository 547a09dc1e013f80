"""An opponent written by others: OpenSpiel's ISMCTS (or MCTS, or its uniform random bot)
as a hall bot, for ``gunzi arena --bots openspiel:ismcts,rule``.

In the play phase the bot makes an OpenSpiel state of the hand from the seat's knowledge
alone: a deal of the unseen cards sampled by :mod:`gunzi.bots.determinize` (the same
consistent sampler the search bot uses), played from the public tricks by
:func:`gunzi.engine.position.play_position`. It then lets the OpenSpiel bot choose token
after token until the play is complete; ISMCTS resamples the hidden cards at every
simulation with :func:`gunzi.env.openspiel.resample`. The other decisions (declaring,
tribute, burying) are the rule bot's: the OpenSpiel game would have to replay the whole
draw to search them. ``mcts`` searches the sampled deal as if it were true (perfect
information within one guess), so it is a weaker, cheaper baseline than ``ismcts``.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from gunzi.bots.base import Bot, Decision
from gunzi.bots.determinize import knowledge, sample, world
from gunzi.bots.rule import RuleBot
from gunzi.engine.actions import Action, Kind
from gunzi.env import openspiel as G

ALGORITHMS = ("ismcts", "mcts", "random")


class OpenSpielBot(Bot):
    """``algorithm``: ismcts (default), mcts or random; ``simulations`` per token."""

    name = "openspiel"

    def __init__(self, algorithm: str = "ismcts", simulations: int = 50, uct_c: float = 2.0
                 ) -> None:
        if algorithm not in ALGORITHMS:
            raise ValueError(f"unknown OpenSpiel algorithm {algorithm!r}; choose one of "
                             + ", ".join(ALGORITHMS))
        if simulations < 1:
            raise ValueError(f"simulations must be at least 1, not {simulations}")
        self.algorithm = algorithm
        self.simulations = simulations
        self.uct_c = uct_c
        self.fallback = RuleBot()
        self.name = f"openspiel:{algorithm}"

    def new_hand(self) -> None:
        self.fallback.new_hand()

    def _state(self, decision: Decision, rng: random.Random) -> G.GunziState:
        know = knowledge(decision)
        match = world(decision, know, sample(know, rng))
        return G.state_of(pyspiel.load_game(G.game_name(decision.rules)), match)

    def _searcher(self, game: Any, rng: random.Random) -> Any:
        rs = np.random.RandomState(rng.getrandbits(31))
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rs)
        if self.algorithm == "mcts":
            return mcts.MCTSBot(game, self.uct_c, self.simulations, evaluator,
                                random_state=rs, solve=False)
        bot = ismcts.ISMCTSBot(game, evaluator, self.uct_c, self.simulations,
                               random_state=rs, allow_inconsistent_action_sets=True)
        bot.set_resampler(lambda s, p: G.resample(s, p, rng))
        return bot

    def choose(self, decision: Decision, rng: random.Random) -> Action:
        if decision.kind is not Kind.PLAY:
            return self.fallback.choose(decision, rng)
        state = self._state(decision, rng)
        assert state.current_player() == decision.seat
        searcher = None if self.algorithm == "random" else self._searcher(state.get_game(), rng)
        builder = state.builder
        assert builder is not None
        while True:
            legal = state.legal_actions()
            token = (rng.choice(legal) if searcher is None or len(legal) == 1
                     else int(searcher.step(state)))
            done = builder.push(token)  # the state holds this builder: it sees the prefix
            if done is not None:
                return done
