from __future__ import annotations

import random

import pytest

from gunzi.engine.errors import InvalidRulesError, OutOfTurnError
from gunzi.quoridor.bots import BOTS, RuleBot, SearchBot, make_bot
from gunzi.quoridor.game import Move, QuoridorGame, Wall
from gunzi.quoridor.rules import preset
from gunzi.quoridor.sim import play_game, simulate


@pytest.mark.parametrize("name", sorted(BOTS))
@pytest.mark.parametrize("players", [2, 4])
def test_bots_play_legal_actions(name: str, players: int) -> None:
    params = {"max_nodes": 150} if name == "search" else {}
    bot = make_bot(name, **params)
    rng = random.Random(1)
    g = QuoridorGame(preset(f"quoridor-{players}", board_size=7, walls=4, jumps=True))
    for _ in range(40):
        if g.is_over:
            break
        seat = g.to_act
        assert seat is not None
        action = bot.choose(g, seat, rng)
        assert action in g.legal_actions(seat)
        g.apply(action)


def test_bot_out_of_turn() -> None:
    g = QuoridorGame(preset("quoridor-2"))
    with pytest.raises(OutOfTurnError):
        RuleBot().choose(g, 1, random.Random(0))
    with pytest.raises(InvalidRulesError, match="random, rule, search"):
        make_bot("genius")


def test_rule_bot_runs_along_shortest_path() -> None:
    g = QuoridorGame(preset("quoridor-2"))
    a = RuleBot().choose(g, 0, random.Random(0))
    assert a == Move(0, (1, 4))


def test_rule_bot_walls_a_faster_opponent() -> None:
    # seat 1 is two steps from its goal, seat 0 seven: seat 0 must wall
    g = QuoridorGame.from_position(preset("quoridor-2"), ["e2", "e3"], to_act=0)
    a = RuleBot().choose(g, 0, random.Random(0))
    assert isinstance(a, Wall)
    before = g.distance(1)
    g.apply(a)
    assert g.distance(1) > before


def test_search_bot_takes_the_win_and_blocks_a_loss() -> None:
    rules = preset("quoridor-2")
    g = QuoridorGame.from_position(rules, ["e8", "a2"], to_act=0)
    assert SearchBot(max_nodes=200).choose(g, 0, random.Random(0)) == Move(0, (8, 4))
    # seat 1 wins next move unless walled; seat 0 is far away
    g = QuoridorGame.from_position(rules, ["e1", "a2"], to_act=0)
    a = SearchBot(max_nodes=500).choose(g, 0, random.Random(0))
    assert isinstance(a, Wall)


def test_search_bot_respects_time_budget() -> None:
    bot = SearchBot(max_nodes=10**9, max_time=0.05, max_depth=50)
    g = QuoridorGame(preset("quoridor-2"))
    import time

    t = time.perf_counter()
    bot.choose(g, 0, random.Random(0))
    assert time.perf_counter() - t < 1.0
    assert bot.last_depth >= 1


def test_search_beats_rule_bot_in_a_short_match() -> None:
    # a smoke test only; the measured win rate is in the module report
    rules = preset("quoridor-2", board_size=7, walls=6)
    rng = random.Random(11)
    search, rule = SearchBot(max_nodes=600), RuleBot()
    wins = 0
    for k in range(4):
        bots = [search, rule] if k % 2 == 0 else [rule, search]
        g = play_game(rules, bots, rng)
        wins += g.winner == k % 2
    assert wins >= 3


def test_simulate_keys_and_determinism() -> None:
    rules = preset("quoridor-2", board_size=7)
    out = simulate(rules, 6, seed=4, bots=("random", "rule"), swap=True)
    assert set(out) >= {"games", "games_per_second", "mean_moves", "wins", "draws",
                        "wins_by_bot", "walls_placed_mean"}
    assert out["games"] == 6 and sum(out["wins"]) + out["draws"] == 6
    assert sum(out["wins_by_bot"]) + out["draws"] == 6
    again = simulate(rules, 6, seed=4, bots=("random", "rule"), swap=True)
    assert {k: v for k, v in out.items() if k != "games_per_second"} == {
        k: v for k, v in again.items() if k != "games_per_second"
    }
    four = simulate(preset("quoridor-4"), 3, seed=1)
    assert len(four["wins"]) == 4 and four["games"] == 3
