"""Engine matches brought to their play phase, for the play cores' differential tests."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, TypeVar

from gunzi.core.classic_play import ClassicPlay
from gunzi.core.gunzi_play import GunziPlay
from gunzi.core.replay import replay_into
from gunzi.engine.match import Match, Phase

Game = TypeVar("Game", GunziPlay, ClassicPlay)


def to_play(match: Match, rng: random.Random) -> bool:
    """Random legal actions until the play phase starts; False if the match ended first."""
    while match.phase is not Phase.PLAY:
        if match.is_over:
            return False
        seat = match.to_act
        assert seat is not None
        match.apply(match.legal_actions(seat).sample(rng))
    return True


def replay_random(match: Match, game: Game, play: Callable[[Game, random.Random], Game],
                  rng: random.Random) -> dict[str, Any]:
    """Play ``game`` (begun at ``match``'s play position) to its end with ``play``, replay
    its log into ``match`` with validation on, and check the engine's hand result has the
    core's trick points and 扣底; returns that result."""
    game.log = []
    twin = game.clone()
    play(game, rng)
    assert twin.log == [] and not twin.is_over  # the clone kept its own state
    done = len(match.results)
    replay_into(match, game)
    assert len(match.results) == done + 1
    result: dict[str, Any] = match.results[-1]
    assert result["trick_points"] == game.points[result["attackers"]]
    assert result["kou"] == (game.last_winner % 2 == result["attackers"])
    return result
