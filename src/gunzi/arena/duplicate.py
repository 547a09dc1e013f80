"""The one arena loop for every game: duplicate play through the game protocol.

A pair is one start (a card deal from the bank, a 步步为营 opening) played twice, the two
contestants swapping sides: on side 0 bot A holds the even seats (0+2 at cards, the
first mover with two players) and B the odd ones; side 1 swaps them
(:func:`seat_labels`). Each side's game is driven with
:class:`~gunzi.engine.game.GameState` alone (``to_act``, ``apply``), until the game's
own notion of "finished" holds (a card pair plays one hand; a board game plays to the
end). What differs per game is data given to :func:`play_sides`: the game a side starts
from, when it is finished, and the per-seat decider (which for the cards builds the
seat's :class:`~gunzi.bots.base.Decision` and handles faults and the fallback bot;
for the board asks the bot and times it). :mod:`gunzi.arena.runner` (cards) and
:mod:`gunzi.arena.board` (步步为营) score the games and write their reports.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from gunzi.engine.game import GameState

G = TypeVar("G", bound=GameState[Any])
SIDES = (0, 1)

Decide = Callable[[G, int], Any]  # (game, seat to act) -> the action to apply


def seat_labels(side: int, players: int) -> list[str]:
    """Which contestant holds each seat on ``side``: A on the even seats on side 0, on
    the odd seats on side 1."""
    return ["A" if s % 2 == side else "B" for s in range(players)]


def _is_over(game: GameState[Any]) -> bool:
    return game.is_over


@dataclass(frozen=True)
class Duplicate(Generic[G]):
    """One game's duplicate pair, as data."""

    players: int
    start: Callable[[], G]  # the pair's start, made afresh for each side
    finished: Callable[[G], bool] = _is_over  # when a side's game is over for the arena


def play_game(game: G, decide: Decide[G], finished: Callable[[G], bool] = _is_over) -> G:
    """Let ``decide`` answer for the seat to act until ``finished(game)``."""
    while not finished(game):
        seat = game.to_act
        assert seat is not None and seat >= 0, "a pending deal: start from a dealt game"
        game.apply(decide(game, seat))
    return game


def play_sides(pair: Duplicate[G], deciders: Callable[[int, list[str]], Decide[G]]
               ) -> list[tuple[list[str], G]]:
    """Play ``pair`` on both sides; ``deciders(side, labels)`` readies the contestants for
    one side and gives its decider. Returns each side's seat labels and finished game."""
    out = []
    for side in SIDES:
        labels = seat_labels(side, pair.players)
        decide = deciders(side, labels)
        out.append((labels, play_game(pair.start(), decide, pair.finished)))
    return out


__all__ = ["SIDES", "Decide", "Duplicate", "play_game", "play_sides", "seat_labels"]
