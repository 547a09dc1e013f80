"""One game interface: 打滚子, classic and 步步为营 played by one driver through it alone."""

from __future__ import annotations

import random
from itertools import islice
from typing import Any

import pytest

from gunzi.engine.game import GameState
from gunzi.engine.match import Match
from gunzi.games import new_game
from gunzi.quoridor.game import QuoridorGame


def _drive(game: GameState[Any], rng: random.Random, *, hands: int = 0, limit: int = 5000
           ) -> int:
    """Play with the protocol's names only: a random one of the first few legal actions
    (lazy card choices are never listed whole). Stops when over or after ``hands`` card
    hands (read from the information state). Returns the number of actions."""
    n = 0
    while not game.is_over and n < limit:
        if hands and game.information_state(None).get("hand_no", 0) > hands:
            break
        seat = game.to_act
        assert seat is not None and seat >= 0
        state = game.information_state(seat)
        assert state["seat"] == seat
        for other in range(len(game.returns())):
            if other != seat:
                assert not list(game.legal_actions(other))
        options = list(islice(game.legal_actions(seat), 4))
        assert options, f"seat {seat} is to act with no legal action"
        game.apply(rng.choice(options))
        n += 1
    return n


@pytest.mark.parametrize("preset", ["gunzi", "classic-1", "classic-2", "classic-3"])
def test_card_games_through_the_protocol(preset: str) -> None:
    game = new_game(preset, random.Random(7))
    assert isinstance(game, Match) and isinstance(game, GameState)
    assert game.returns() == [0.0] * 4
    n = _drive(game, random.Random(7), hands=2)
    assert n > 50
    assert isinstance(game, Match)
    assert len(game.results) == 2
    # Independently of Match.returns: the per-hand results the hands wrote.
    if preset == "gunzi":
        want = [float(sum(r["hand_scores"][s] for r in game.results)) for s in range(4)]
        assert game.returns() == want
        assert sum(want) == 0
    else:
        want = [float(sum((r.get("game_points") or [0] * 4)[s] for r in game.results))
                for s in range(4)]
        assert game.returns() == want


@pytest.mark.parametrize("preset", ["quoridor-2", "quoridor-4"])
def test_the_board_game_through_the_protocol(preset: str) -> None:
    game = new_game(preset)
    assert isinstance(game, QuoridorGame) and isinstance(game, GameState)
    players = game.rules.players
    assert game.returns() == [0.0] * players
    _drive(game, random.Random(3), limit=20000)
    assert game.is_over and game.to_act is None
    returns = game.returns()
    assert game.winner is not None
    assert returns[game.winner] == 1.0
    assert abs(sum(returns)) < 1e-9
    assert game.information_state(None)["seat"] is None
    assert game.information_state(None)["legal"] == []


def test_both_games_use_the_protocol_names_only() -> None:
    m = Match()
    assert m.is_over is False and not hasattr(m, "over")
    assert "is_over" in m.information_state(0) and "over" not in m.information_state(0)
    q = QuoridorGame()
    assert q.to_act == 0 and not hasattr(q, "to_move")
    assert q.information_state(0)["to_act"] == 0 and "to_move" not in q.information_state(0)
