"""One game interface for every game of the hall: 打滚子, classic 升级 and 步步为营.

In the spirit of OpenSpiel's ``State``: who is to act, the legal actions of a seat,
apply one, whether the game is over, the returns, and the information state of a
seat. :class:`~gunzi.engine.match.Match` (cards) and
:class:`~gunzi.quoridor.game.QuoridorGame` (board) both implement it under the same
names, so an arena, a learned bot or a research wrapper can drive either without
knowing which it holds (``tests/test_game_protocol.py`` plays both through it).

``information_state(seat)`` is the only thing a consumer may derive a seat's knowledge
from: for the cards it is :func:`gunzi.engine.view.view`, the one place that decides
what a seat may know; 步步为营 has no hidden information, so every seat's state is the
whole board.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol, Self, TypeVar, runtime_checkable

from gunzi.engine.actions import CHANCE

__all__ = ["CHANCE", "GameState"]

A = TypeVar("A")


@runtime_checkable
class GameState(Protocol[A]):
    """A game in progress, seen from outside the rules."""

    @property
    def to_act(self) -> int | None:
        """The seat that must act now; CHANCE for a pending deal; None once it is over."""

    @property
    def is_over(self) -> bool:
        """Whether the game has ended (``returns`` are final then)."""

    def legal_actions(self, seat: int) -> Iterable[A]:
        """The actions ``seat`` may take now (empty unless it is to act)."""

    def apply(self, action: A) -> object:
        """Check and perform ``action``; raise the engine's typed error and change nothing
        if it is not legal. Returns the action's event."""

    def returns(self) -> list[float]:
        """Per seat, the outcome so far as the game's rules score it."""

    def information_state(self, seat: int | None) -> dict[str, Any]:
        """Everything ``seat`` (or a spectator, None) may know now, as plain data."""

    def clone(self) -> Self:
        """An independent copy, for search."""
