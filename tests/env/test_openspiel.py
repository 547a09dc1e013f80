"""The OpenSpiel adapter: OpenSpiel's own checks, and its random, MCTS and ISMCTS bots
completing hands through it."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import ismcts, mcts

from gunzi.env import openspiel as G


@pytest.mark.parametrize("name", ["python_gunzi", "python_gunzi_classic_1",
                                  "python_gunzi_classic_3"])
def test_openspiel_random_simulation_checks_pass(name: str) -> None:
    game = pyspiel.load_game(name)
    assert game.num_distinct_actions() == 223 and game.num_players() == 4
    pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)


def _play(game: pyspiel.Game, bot: object, rs: np.random.RandomState) -> tuple[list[float],
                                                                             int]:
    """Seat 0 is ``bot``, the others uniform random; chance by its own odds."""
    state = game.new_initial_state()
    steps = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rs.choice(outcomes, p=probs)))
        elif state.current_player() == 0:
            action = bot.step(state)  # type: ignore[attr-defined]
            assert action in state.legal_actions()
            state.apply_action(action)
            steps += 1
        else:
            state.apply_action(int(rs.choice(state.legal_actions())))
    return state.returns(), steps


def test_mcts_and_ismcts_bots_complete_hands() -> None:
    game = pyspiel.load_game("python_gunzi_classic_1")
    rs = np.random.RandomState(3)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rs)
    oracle = mcts.MCTSBot(game, 2.0, 3, evaluator, random_state=rs, solve=False)
    returns, steps = _play(game, oracle, rs)
    assert steps >= 13 and sum(returns) == 0 and returns[0] == returns[2]
    bot = ismcts.ISMCTSBot(game, evaluator, 2.0, 3, random_state=rs,
                           allow_inconsistent_action_sets=True)
    rng = random.Random(3)
    bot.set_resampler(lambda s, p: G.resample(s, p, rng))
    returns, steps = _play(game, bot, rs)
    assert steps >= 13 and sum(returns) == 0 and returns[1] == returns[3]


def test_the_docs_manual_ismcts_loop_plays_a_hand(capsys: pytest.CaptureFixture[str]) -> None:
    """docs/research.md drives ISMCTS with a loop of its own (OpenSpiel's evaluate_bots
    calls restart_at, which its ISMCTSBot lacks); the example runs as written."""
    doc = (Path(__file__).resolve().parents[2] / "docs" / "research.md").read_text()
    blocks = [b for b in re.findall(r"```python\n(.*?)```", doc, re.S) if "ISMCTSBot" in b]
    assert len(blocks) == 1
    exec(compile(blocks[0], "docs/research.md", "exec"), {})  # our own docs, run as written
    returns = json.loads(capsys.readouterr().out.strip())
    assert len(returns) == 4 and sum(returns) == 0


def test_resample_keeps_what_the_seat_knows_and_moves_the_rest() -> None:
    game = pyspiel.load_game("python_gunzi_classic_2")
    rs = np.random.RandomState(5)
    state = game.new_initial_state()
    while state.is_chance_node() or len(state.history()) < 160:
        actions = ([o for o, _ in state.chance_outcomes()] if state.is_chance_node()
                   else state.legal_actions())
        state.apply_action(int(rs.choice(actions)))
    player = state.current_player()
    moved = 0
    for k in range(5):
        other = G.resample(state, player, random.Random(k))
        assert other.information_state_string(player) == state.information_state_string(
            player)
        assert other.legal_actions() == state.legal_actions()
        assert other.match.hands[player] == state.match.hands[player]
        assert sum(map(sum, other.match.hands)) == sum(map(sum, state.match.hands))
        moved += other.match.hands != state.match.hands
    assert moved >= 4
    seen = json.loads(state.information_state_string(player))
    assert seen[0] == player
    # The seat's own stream: it names the cards this seat drew and no other seat's.
    shown = [e["seat"] for e in seen[1] if e["type"] == "draw" and "card" in e]
    assert shown and set(shown) == {player}
    assert len([e for e in seen[1] if e["type"] == "draw"]) > len(shown)


@pytest.mark.parametrize("name", ["python_gunzi_quoridor_2", "python_gunzi_quoridor_4"])
def test_the_board_game_in_openspiel(name: str) -> None:
    import gunzi.env.openspiel_board  # noqa: F401  (registers the board games)

    game = pyspiel.load_game(name)
    pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)
    rs = np.random.RandomState(2)
    bot = mcts.MCTSBot(game, 2.0, 4, mcts.RandomRolloutEvaluator(1, rs), random_state=rs,
                       solve=False)
    state = game.new_initial_state()
    first = state.legal_actions()
    n = 81  # 9x9 squares, then 64 + 64 wall anchors, then the pass
    assert game.num_distinct_actions() == n + 2 * 64 + 1
    # Seat 0 at e1: steps to d1, f1 and e2 (ids 3, 5, 13), then every wall anchor.
    assert first[:3] == [3, 5, 13] and len(first) == 3 + 2 * 64
    for _ in range(3):
        action = bot.step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
    assert state.b.game.turns == 3
