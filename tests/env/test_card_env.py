"""The research environments: PettingZoo's own API and seed tests, the mask against the
engine's legal actions at every step, and no hidden card in any observation."""

from __future__ import annotations

import random
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

from gunzi.bots import card_obs
from gunzi.bots.learned import DMC_WEIGHTS, LearnedBot
from gunzi.bots.rule import RuleBot
from gunzi.bots.search import SearchBot
from gunzi.engine import cards as C
from gunzi.engine.actions import Kind
from gunzi.engine.errors import GunziError
from gunzi.engine.match import Match
from gunzi.engine.view import knows_kitty, seat_position
from gunzi.env import card_actions as CA
from gunzi.env.board import BoardEnv
from gunzi.env.cards import CardEnv
from gunzi.env.single import SingleSeatEnv

CARD_GAMES: list[tuple[str, dict[str, Any]]] = [
    ("gunzi", {}), ("gunzi", {"follow": "live", "permanent_twos": False}),
    ("classic-1", {}), ("classic-2", {}), ("classic-3", {}),
]


@pytest.mark.parametrize(("preset", "options"), CARD_GAMES)
def test_card_env_passes_pettingzoo_api_and_seed_tests(preset: str, options: dict[str, Any]
                                                       ) -> None:
    api_test(CardEnv(preset, **options), num_cycles=400)
    seed_test(lambda: CardEnv(preset, **options), num_cycles=200)


@pytest.mark.parametrize("preset", ["quoridor-2", "quoridor-4"])
def test_board_env_passes_pettingzoo_api_and_seed_tests(preset: str) -> None:
    api_test(BoardEnv(preset), num_cycles=400)
    seed_test(lambda: BoardEnv(preset), num_cycles=200)


def _complete(match: Match, seat: int, grouped: bool, prefix: list[int]) -> set[Any]:
    """Every action reachable from ``prefix`` through the builder's masks (a full walk)."""
    own = seat_position(match, seat)
    builder = CA.Builder(own, own.legal_actions(seat), grouped)
    for t in prefix:
        assert builder.push(t) is None
    found: set[Any] = set()
    for t in builder.next_tokens():
        probe = CA.Builder(own, own.legal_actions(seat), grouped)
        for u in prefix:
            probe.push(u)
        action = probe.push(t)
        if action is not None:
            found.add(action)
        else:
            found |= _complete(match, seat, grouped, [*prefix, t])
    return found


def _check_step(env: CardEnv) -> None:
    """The mask against the engine's own legal actions, on the real match."""
    match, builder = env.match, env.builder
    seat = builder.legal.seat
    legal = match.legal_actions(seat)
    assert match.to_act == seat
    if builder.built:
        return
    if legal.enumerable:
        assert _complete(match, seat, env.grouped, []) == set(legal)
    elif legal.kind is Kind.PLAY and not match.trick:
        # Classic lead: a first card may be any held card; a card not offered after a
        # first pick makes an illegal lead (the engine's own check says so).
        first = builder.next_tokens()
        assert first == [c for c in range(C.NUM_TYPES) if match.hands[seat][c]]
        c0 = first[0]
        probe = CA.Builder(seat_position(match, seat), legal, False)
        probe.push(c0)
        offered = set(probe.next_tokens())
        assert CA.DONE in offered and CA.play_action(seat, (c0,)) in legal
        for c in range(c0, C.NUM_TYPES):
            assert (c in offered) == (CA.play_action(seat, (c0, c)) in legal), (c0, c)
    elif legal.kind is Kind.PLAY:
        assert _complete(match, seat, env.grouped, []) == set(legal)


def _live_steps(env: CardEnv, seed: int) -> Iterator[tuple[str, dict[str, np.ndarray]]]:
    """Play a seeded random episode through the masks, pausing before each live step."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        yield agent, obs
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


@pytest.mark.parametrize(("preset", "options"), CARD_GAMES)
def test_mask_is_the_engines_legal_actions_at_every_step(preset: str, options: dict[str, Any]
                                                          ) -> None:
    env = CardEnv(preset, **options)
    steps = 0
    for agent, obs in _live_steps(env, 5):
        assert agent == f"player_{env.match.to_act}"
        _check_step(env)
        mask = obs["action_mask"]
        assert mask.any() and list(np.flatnonzero(mask)) == env.builder.next_tokens()
        steps += 1
    assert steps > 40 and env.match.results  # a whole hand was played through the masks


def _reshuffle_hidden(match: Match, seat: int, rng: random.Random) -> Match:
    """The same position with every card ``seat`` cannot see dealt anew among the others."""
    other = match.clone()
    seats = [s for s in range(4) if s != seat]
    pool = [c for s in seats for c in C.expand(other.hands[s])]
    hide_kitty = not knows_kitty(other, seat)
    if hide_kitty:
        pool += list(other.kitty)
    rng.shuffle(pool)
    for s in seats:
        size = sum(other.hands[s])
        other.hands[s] = C.counts(pool[:size])
        pool = pool[size:]
    if hide_kitty:
        other.kitty = pool
    return other


@pytest.mark.parametrize("preset", ["gunzi", "classic-2"])
def test_observation_never_shows_hidden_cards(preset: str) -> None:
    env = CardEnv(preset)
    shuffler = random.Random(11)
    changed = 0
    for agent, _ in _live_steps(env, 11):
        for seat in range(4):
            other = _reshuffle_hidden(env.match, seat, shuffler)
            changed += other.hands != env.match.hands
            mine = env.observe(f"player_{seat}")["observation"]
            theirs = card_obs.encode(other.information_state(seat), env.rules,
                                     [t for t in env.builder.built if t < CA.GROUP0]
                                     if seat == env.builder.legal.seat else [],
                                     CA.TAKE in env.builder.built
                                     and seat == env.builder.legal.seat)
            assert np.array_equal(mine, theirs), (agent, seat)
            if seat == env.builder.legal.seat and not env.builder.built:
                own = seat_position(other, seat)
                mask = CA.Builder(own, own.legal_actions(seat), env.grouped).next_tokens()
                assert mask == env.builder.next_tokens()
    assert changed > 100  # the hidden cards really moved


def test_observation_layout_reads_back_the_own_hand_and_trump() -> None:
    env = CardEnv("classic-1")
    env.reset(seed=3)
    seat = env.match.to_act
    assert seat is not None
    obs = env.observe(f"player_{seat}")["observation"]
    at = card_obs.OFFSETS["hand"]
    assert list(np.rint(obs[at:at + 54] * 3).astype(int)) == env.match.hands[seat]
    assert obs.shape == (card_obs.OBS_SIZE,)


def test_gymnasium_single_seat_plays_whole_hands_against_bots() -> None:
    single = SingleSeatEnv("classic-1", seat=2, bots=("random", "rule", "random"))
    runs = []
    for episode in (0, 1, 0):
        obs, _ = single.reset(seed=episode)
        rng = np.random.default_rng(episode)
        done, reward, steps = False, 0.0, 0
        while not done:
            obs, reward, done, _, _ = single.step(int(rng.choice(np.flatnonzero(
                obs["action_mask"]))))
            steps += 1
        assert steps >= 13  # at least one card of every trick was chosen by the learner
        result = single.cards.match.results[-1]
        team = 2 % 2
        gain = [result["levels_after"][t] - result["levels_before"][t] for t in (0, 1)]
        assert reward == gain[team] - gain[1 - team]  # net levels of the learner's team
        runs.append((steps, reward, result["score"]))
        with pytest.raises(RuntimeError):
            single.step(0)
    assert runs[0] == runs[2]  # the same seed plays the same episode


def test_single_seat_bots_are_specs_with_parameters_as_in_the_arena() -> None:
    single = SingleSeatEnv("gunzi", seat=1, bots=(
        "search:rollouts=5:time_limit=none", f"learned:weights={DMC_WEIGHTS}", "rule"))
    search, learned, rule = (single.bots[s] for s in (0, 2, 3))
    assert isinstance(search, SearchBot) and search.rollouts == 5
    assert search.time_limit is None
    assert isinstance(learned, LearnedBot) and learned.policy is LearnedBot(DMC_WEIGHTS).policy
    assert isinstance(rule, RuleBot)
    with pytest.raises(GunziError, match="key=value"):
        SingleSeatEnv("gunzi", bots=("rule", "search:rollouts=5:fast", "rule"))


@pytest.mark.parametrize("hands", [0, -1, 1.5, True])
def test_an_episode_of_fewer_than_one_hand_is_refused(hands: Any) -> None:
    """``hands=0`` was accepted and its episode ended with every reward 0."""
    message = f"hands must be a whole number of at least 1 .*, not {hands!r}"
    with pytest.raises(ValueError, match=message):
        CardEnv("gunzi", hands=hands)
    with pytest.raises(ValueError, match=message):
        SingleSeatEnv("classic-1", hands=hands)


@pytest.mark.parametrize(("preset", "seat"), [("gunzi", 0), ("classic-1", 3)])
def test_single_seat_passes_gymnasiums_env_checker(preset: str, seat: int) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # only "no spec to test render modes with"
        check_env(SingleSeatEnv(preset, seat=seat))


def test_single_seat_forbidden_id_forfeits_or_raises() -> None:
    single = SingleSeatEnv("gunzi", hands=2)
    obs, _ = single.reset(seed=4)
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    events = len(single.cards.match.events)
    obs, reward, done, truncated, info = single.step(bad)
    assert (reward, done, truncated, info) == (-128.0, True, False, {"illegal": True})
    assert len(single.cards.match.events) == events  # nothing was played
    with pytest.raises(RuntimeError, match="reset"):
        single.step(bad)
    strict = SingleSeatEnv("gunzi", illegal="raise")
    strict.reset(seed=4)
    with pytest.raises(ValueError, match=f"may not take action {bad}"):
        strict.step(bad)
    with pytest.raises(ValueError, match="illegal must be"):
        SingleSeatEnv("gunzi", illegal="ignore")


class _Counting(RuleBot):
    """The rule bot, counting the hands it is told of and the hands it plays in."""

    def __init__(self) -> None:
        super().__init__()
        self.told = 0

    def new_hand(self) -> None:
        super().new_hand()
        self.told += 1


def test_single_seat_bots_are_told_of_every_new_hand() -> None:
    single = SingleSeatEnv("classic-1", seat=0, hands=3)
    single.bots = {s: _Counting() for s in (1, 2, 3)}
    obs, _ = single.reset(seed=2)
    rng = np.random.default_rng(2)
    told = []
    done = False
    while not done:
        hand = len(single.cards.match.results)
        told.append((hand, [b.told for b in single.bots.values()]))
        obs, _, done, _, _ = single.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert len(single.cards.match.results) == 3
    for hand, counts in told:  # while hand h (0-based) is played, the bots were told h + 1
        assert counts == [hand + 1] * 3, (hand, counts)


def test_an_illegal_id_is_refused_with_the_seat_and_changes_nothing() -> None:
    env = CardEnv("gunzi")
    env.reset(seed=1)
    events = len(env.match.events)
    bad = next(i for i in range(CA.NUM_ACTIONS) if not env.observe(env.agent_selection)[
        "action_mask"][i])
    with pytest.raises(ValueError, match=f"{env.agent_selection} may not take action {bad}"):
        env.step(bad)
    assert len(env.match.events) == events
