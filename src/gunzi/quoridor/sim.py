"""Bot-against-bot simulation of 步步为营 (no I/O; everything seeded)."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from typing import Any

from gunzi.quoridor.bots import Bot, make_bot
from gunzi.quoridor.game import QuoridorGame, WallEvent
from gunzi.quoridor.rules import QuoridorRules


def play_game(
    rules: QuoridorRules,
    bots: Sequence[Bot],
    rng: random.Random,
    move_times: list[float] | None = None,
) -> QuoridorGame:
    """Play one game to its end, seat ``s`` played by ``bots[s]``; return the finished game."""
    game = QuoridorGame(rules)
    while not game.is_over:
        seat = game.to_act
        assert seat is not None
        t0 = time.perf_counter()
        action = bots[seat].choose(game, seat, rng)
        if move_times is not None:
            move_times.append(time.perf_counter() - t0)
        game.apply(action)
    return game


def simulate(
    rules: QuoridorRules,
    games: int,
    seed: int,
    bots: Sequence[str | Bot] = ("random", "random"),
    swap: bool = False,
    on_game: Callable[[int, QuoridorGame, list[str]], None] | None = None,
) -> dict[str, Any]:
    """Play ``games`` games and summarise them.

    ``bots`` are names (see :func:`gunzi.quoridor.bots.make_bot`) or bot objects, used for
    seats in turn (``bots[seat % len(bots)]``). With ``swap`` game ``k`` rotates the bots by
    ``k`` seats, so each bot plays every side; ``wins_by_bot`` counts wins per entry of
    ``bots``. ``on_game(k, game, names)`` is called with every finished game and the bot
    name per seat (the CLI writes records with it).

    Returns ``games``, ``games_per_second``, ``mean_moves`` (actions per game), ``wins``
    (per seat), ``draws``, ``wins_by_bot``, ``walls_placed_mean`` and ``seed``.
    """
    players = rules.players
    objs: list[Bot] = [make_bot(b) if isinstance(b, str) else b for b in bots]
    if not objs:
        raise ValueError("simulate needs at least one bot")
    rng = random.Random(seed)
    wins = [0] * players
    wins_by_bot = [0] * len(objs)
    draws = 0
    moves = 0
    walls = 0
    t0 = time.perf_counter()
    for k in range(games):
        shift = k if swap else 0
        index = [(seat + shift) % len(objs) for seat in range(players)]
        game = play_game(rules, [objs[i] for i in index], rng)
        if on_game is not None:
            on_game(k, game, [objs[i].name for i in index])
        moves += game.turns
        walls += sum(isinstance(e, WallEvent) for e in game.events)
        if game.winner is None:
            draws += 1
        else:
            wins[game.winner] += 1
            wins_by_bot[index[game.winner]] += 1
    elapsed = time.perf_counter() - t0
    return {
        "games": games,
        "seed": seed,
        "games_per_second": games / elapsed if elapsed > 0 else float("inf"),
        "mean_moves": moves / games if games else 0.0,
        "wins": wins,
        "draws": draws,
        "wins_by_bot": wins_by_bot,
        "walls_placed_mean": walls / games if games else 0.0,
    }


__all__ = ["play_game", "simulate"]
