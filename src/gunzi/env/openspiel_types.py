"""What the OpenSpiel games of the hall declare alike, and their registration."""

from __future__ import annotations

from typing import Any

import pyspiel


def game_type(short_name: str, long_name: str, players: int, *, hidden: bool) -> Any:
    """A sequential, zero-sum, terminal-reward game type; ``hidden``: dealt by chance with
    imperfect information (the cards), else deterministic with perfect information."""
    T = pyspiel.GameType
    return T(
        short_name=short_name,
        long_name=long_name,
        dynamics=T.Dynamics.SEQUENTIAL,
        chance_mode=T.ChanceMode.EXPLICIT_STOCHASTIC if hidden else T.ChanceMode.DETERMINISTIC,
        information=(T.Information.IMPERFECT_INFORMATION if hidden
                     else T.Information.PERFECT_INFORMATION),
        utility=T.Utility.ZERO_SUM,
        reward_model=T.RewardModel.TERMINAL,
        max_num_players=players,
        min_num_players=players,
        provides_information_state_string=True,
        provides_information_state_tensor=hidden,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={},
    )


def register(base: type, types: dict[str, Any]) -> dict[str, type]:
    """One subclass of ``base`` per short name, registered (OpenSpiel registers a class, not
    a factory); the subclass's ``short_name`` tells ``__init__`` which preset it is."""
    games = {name: type(f"{base.__name__}_{name}", (base,), {"short_name": name})
             for name in types}
    for name, cls in games.items():
        pyspiel.register_game(types[name], cls)
    return games
