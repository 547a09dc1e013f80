"""The Gymnasium single-seat view of 步步为营: Gymnasium's env checker passes, whole games
against registered bots end with the engine's returns, a seed replays an episode, and a
forbidden id is a forfeit (or, if asked, an error)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from gunzi.env.board_single import BoardSingleEnv
from gunzi.env.single import SingleSeatEnv


@pytest.mark.parametrize(("preset", "seat"), [("quoridor-2", 0), ("quoridor-4", 3)])
def test_gymnasium_env_checker_passes(preset: str, seat: int) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # only "no spec to test render modes with"
        check_env(BoardSingleEnv(preset, seat=seat))


@pytest.mark.parametrize(("preset", "seat", "bots"), [
    ("quoridor-2", 1, ("random",)), ("quoridor-4", 2, ("rule", "random", "rule"))])
def test_whole_games_end_with_the_engines_returns(preset: str, seat: int,
                                                  bots: tuple[str, ...]) -> None:
    env = BoardSingleEnv(preset, seat=seat, bots=bots)
    runs = []
    for episode in (0, 1, 0):
        obs, _ = env.reset(seed=episode)
        game = env.board.game
        assert game.to_act == seat and obs["action_mask"].any()
        rng = np.random.default_rng(episode)
        done, reward, steps = False, 0.0, 0
        while not done:
            mask = obs["action_mask"]
            assert env.observation_space.contains(obs)
            assert set(np.flatnonzero(mask)) == set(env.board.codec.legal(game, seat))
            obs, reward, done, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
            assert not truncated and "illegal" not in info
            steps += 1
        assert game.is_over and reward == game.returns()[seat]
        runs.append((steps, reward, game.turns, game.winner))
        with pytest.raises(RuntimeError, match="reset"):
            env.step(0)
    assert runs[0] == runs[2]  # the same seed plays the same episode


def test_a_forbidden_id_forfeits_or_raises() -> None:
    env = BoardSingleEnv("quoridor-2", bots=("rule",))
    obs, _ = env.reset(seed=4)
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    turns = env.board.game.turns
    obs, reward, done, _, info = env.step(bad)
    assert (reward, done, info) == (-1.0, True, {"illegal": True})
    assert env.board.game.turns == turns  # nothing was played
    strict = BoardSingleEnv("quoridor-2", bots=("rule",), illegal="raise")
    strict.reset(seed=4)
    with pytest.raises(ValueError, match=f"may not take action {bad}"):
        strict.step(bad)


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="3 other seats"):
        BoardSingleEnv("quoridor-4", bots=("rule",))
    with pytest.raises(ValueError, match=r"seat must be 0\.\.1"):
        BoardSingleEnv("quoridor-2", seat=2)
    with pytest.raises(ValueError, match="illegal must be"):
        BoardSingleEnv(illegal="ignore")
    with pytest.raises(Exception, match="unknown 步步为营 bot"):
        BoardSingleEnv(bots=("learned",))


def test_a_preset_of_the_other_kind_names_the_environment_that_plays_it() -> None:
    """``SingleSeatEnv("quoridor-2", bots=("rule",))`` asked for bots at "the 3 other
    seats"; each single-seat environment now names the other for the other kind's presets."""
    with pytest.raises(ValueError, match=r"^'quoridor-2' is a 步步为营 preset: its single-seat "
                                         r"environment is BoardSingleEnv "
                                         r"\(gunzi\.env\.board_single\)"):
        SingleSeatEnv("quoridor-2", seat=0, bots=("rule",))
    with pytest.raises(ValueError, match=r"^'classic-1' is a card game's preset: its "
                                         r"single-seat environment is SingleSeatEnv "
                                         r"\(gunzi\.env\.single\)"):
        BoardSingleEnv("classic-1")
