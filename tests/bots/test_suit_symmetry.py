"""Renaming the suits: the gather maps of gunzi.bots.suit_symmetry give the observation and
play features of the renamed view, computed from scratch."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from gunzi.bots import card_obs, play_features
from gunzi.bots.base import observe
from gunzi.bots.rule import RuleBot
from gunzi.bots.suit_symmetry import (
    PERMUTATIONS,
    card_map,
    feature_maps,
    observation_maps,
)
from gunzi.engine import cards as C
from gunzi.engine.actions import Kind
from gunzi.env.cards import CardEnv


def _renamed(x: Any, p: tuple[int, ...]) -> Any:
    """The view with every card renamed (suit s becomes p[s]) and the trump suit too."""
    if isinstance(x, dict):
        out = {k: _renamed(v, p) for k, v in x.items()}
        if isinstance(x.get("trump"), str):
            out["trump"] = C.SUITS[p[C.SUITS.index(x["trump"])]]
        return out
    if isinstance(x, list | tuple):
        return type(x)(_renamed(v, p) for v in x)
    if isinstance(x, str) and x in C.NAMES:
        c = C.parse(x)
        if c >= 52:
            return x
        suit, rank = divmod(c, 13)
        return C.NAMES[C.make(p[suit], rank)]
    return x


@pytest.mark.parametrize("seed", [1, 2])
def test_maps_rename_observations_and_features(seed: int) -> None:
    env = CardEnv("gunzi", mid_round=True)
    env.reset(seed=seed)
    m = env.match
    rule = RuleBot()
    rng = random.Random(0)
    om, fm = observation_maps(), feature_maps()
    checked = 0
    for step in range(400):
        if m.results:
            break
        d = observe(m, m.to_act)
        if d.kind is Kind.PLAY and d.actions and step % 7 == 0:
            k = (step // 7) % len(PERMUTATIONS)
            p = PERMUTATIONS[k]
            view = _renamed(dict(d.view), p)
            faces = card_map(p)  # renamed[c] = original[faces[c]]
            hand = [d.hand[faces[c]] for c in range(C.NUM_TYPES)]
            inverse = {faces[c]: c for c in range(C.NUM_TYPES)}
            plays = [a.cards for a in d.actions]
            renamed_plays = [tuple(inverse[c] for c in cards) for cards in plays]
            obs = card_obs.encode(d.view, d.rules)
            np.testing.assert_array_equal(obs[om[k]], card_obs.encode(view, d.rules))
            f = play_features.features(d.view, d.rules, d.hand, plays, 0)
            g = play_features.features(view, d.rules, hand, renamed_plays, 0)
            np.testing.assert_allclose(f[:, fm[k]], g, atol=1e-6)
            checked += 1
        m.apply(rule.choose(d, rng))
    assert checked >= 5
    assert len({tuple(x) for x in om}) == 24  # 24 different namings
