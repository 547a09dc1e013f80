"""The suits are interchangeable: renaming them (the trump suit with them) changes no rule of
打滚子, so a decision and its renamed copy are worth the same. Training uses this to see
each labelled decision under all 24 namings of the suits (:mod:`gunzi.env.advantage_train`).

:func:`observation_maps` and :func:`feature_maps` give, per permutation ``p`` of the four
suits (suit ``s`` becomes ``p[s]``), the index array ``m`` with ``renamed = x[m]`` for an
observation (:mod:`gunzi.bots.card_obs`) or a play-feature row
(:mod:`gunzi.bots.play_features`). Tested: the renamed observation of a view equals the
observation of the view with its cards renamed.
"""

from __future__ import annotations

from itertools import permutations

import numpy as np

from gunzi.bots import card_obs, play_features
from gunzi.engine import cards as C

PERMUTATIONS: tuple[tuple[int, ...], ...] = tuple(permutations(range(4)))


def card_map(p: tuple[int, ...]) -> list[int]:
    """``renamed[c] = card[card_map[c]]``: the source face of each face after renaming."""
    inverse = [p.index(s) for s in range(4)]
    out = list(range(C.NUM_TYPES))
    for suit in range(4):
        for rank in range(13):
            out[C.make(suit, rank)] = C.make(inverse[suit], rank)
    return out


def _maps(layout: tuple[tuple[str, int], ...], cards: set[str], suit5: set[str],
          p: tuple[int, ...]) -> np.ndarray:
    inverse = [p.index(s) for s in range(4)]
    faces = card_map(p)
    out: list[int] = []
    at = 0
    for name, n in layout:
        if name in cards:  # one or more blocks of 54 faces
            out += [at + block + faces[c] for block in range(0, n, C.NUM_TYPES)
                    for c in range(C.NUM_TYPES)]
        elif name in suit5:  # blocks of S H C D + one more (trump, or none)
            out += [at + block + (inverse[k] if k < 4 else 4) for block in range(0, n, 5)
                    for k in range(5)]
        else:
            out += list(range(at, at + n))
        at += n
    return np.asarray(out, dtype=np.intp)


_OBS_CARDS = {"hand", "played", "trick", "kitty", "tribute", "building"}
_OBS_SUITS = {"trump", "voids"}


def observation_maps() -> np.ndarray:
    """(24, OBS_SIZE): per permutation, the gather index of a renamed observation."""
    return np.stack([_maps(card_obs.LAYOUT, _OBS_CARDS, _OBS_SUITS, p) for p in PERMUTATIONS])


def feature_maps() -> np.ndarray:
    """(24, play_features.SIZE): the same for a play-feature row."""
    return np.stack([_maps(play_features.LAYOUT, {"cards"}, {"class"}, p)
                     for p in PERMUTATIONS])
