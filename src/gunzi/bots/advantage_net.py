"""The ``learned`` bot's advantage net, evaluated with numpy (no PyTorch at play time).

A(s, a): how much better candidate play ``a`` is than the rule bot's own choice, in the
search bot's value (net levels plus a quarter of the score margin per 100), for the seat
whose observation is ``s``. Trained by ``gunzi train-advantage``
(:mod:`gunzi.env.advantage_train`) on rollouts of the true deal
(:mod:`gunzi.env.advantage_data`); docs/bots.md has how and how strong.

Layout: the observation's part of the first layer is computed once per decision, each
candidate adds its :mod:`gunzi.bots.play_features` row's part, then two hidden layers and
one output; ReLU between. :func:`save` writes the arrays of
:class:`gunzi.env.advantage_train.AdvantageNet` with its metadata, ``threshold`` included:
the bot leaves the rule bot's choice only for a candidate whose predicted advantage
exceeds it (chosen on held-out hands by the trainer).
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from gunzi.bots import card_obs, play_features

KIND = "advantage"
ARRAYS = ("state.weight", "state.bias", "action.weight", "body.1.weight", "body.1.bias",
          "body.3.weight", "body.3.bias", "body.5.weight", "body.5.bias")


def save(path: Path | str, arrays: Mapping[str, np.ndarray], **meta: Any) -> None:
    """Write the net's :data:`ARRAYS` (float32) and its metadata to ``path`` (.npz);
    ``options`` (the rule options trained on, a dict) is stored as JSON."""
    out: dict[str, Any] = {n: np.asarray(arrays[n], dtype=np.float32) for n in ARRAYS}
    info = {"kind": KIND, "obs_version": card_obs.OBS_VERSION,
            "features_version": play_features.FEATURES_VERSION, **meta}
    if isinstance(info.get("options"), dict):
        info["options"] = json.dumps(info["options"], sort_keys=True)
    out.update({f"meta.{k}": np.asarray(v) for k, v in info.items()})
    with Path(path).open("wb") as f:
        np.savez_compressed(f, **out)


def read(path: Path | str) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The :data:`ARRAYS` (float32) and the metadata of the advantage net at ``path``;
    ValueError for any other file."""
    with np.load(Path(path)) as data:
        meta = {k[5:]: data[k].item() for k in data.files if k.startswith("meta.")}
        if meta.get("kind") != KIND:
            raise ValueError(f"{path} is not an advantage net")
        return {n: np.asarray(data[n], dtype=np.float32) for n in ARRAYS}, meta


def with_threshold(path: Path | str, out: Path | str, threshold: float, source: str) -> None:
    """Copy the net at ``path`` to ``out`` with another threshold (the weights unchanged):
    the trainer's is chosen on its held-out labels, and an arena run on validation deals
    may find a better one; ``source`` says how it was chosen (``meta.threshold_source``)."""
    arrays, meta = read(path)
    meta.update(threshold=float(threshold), threshold_source=source)
    save(out, arrays, **meta)


def average(paths: Sequence[Path | str], out: Path | str, *, threshold: float | None = None,
            source: str = "") -> None:
    """Write to ``out`` one advantage net whose score is the mean of the nets' at ``paths``
    (an ensemble, for nets trained on different hands: the labelled hands are costly and the
    mean of two nets fitted on disjoint sets errs less than either). It is a plain net of
    this module, so the bot, the search's prior and the batching take it unchanged: the
    first layers are stacked, the hidden layers block-diagonal (each member's units see only
    its own), the output layer's weights divided by the number of members. The members must
    agree on what they were trained for (rules, features, cards held); the threshold is
    ``threshold`` (choose it by arena) or else their mean."""
    if len(paths) < 2:
        raise ValueError("give at least two nets to average")
    members = [read(path) for path in paths]
    same = ("obs_version", "features_version", "preset", "options", "max_cards", "objective")
    first = members[0][1]
    for path, (_, meta) in zip(paths[1:], members[1:], strict=True):
        differ = [k for k in same if meta.get(k) != first.get(k)]
        if differ:
            raise ValueError(f"{path} was trained for other {', '.join(differ)} than "
                             f"{paths[0]}")
    k = len(members)
    ws = [a for a, _ in members]

    def block(name: str) -> np.ndarray:
        rows = sum(w[name].shape[0] for w in ws)
        cols = sum(w[name].shape[1] for w in ws)
        got = np.zeros((rows, cols), dtype=np.float32)
        r = c = 0
        for w in ws:
            got[r:r + w[name].shape[0], c:c + w[name].shape[1]] = w[name]
            r, c = r + w[name].shape[0], c + w[name].shape[1]
        return got

    arrays_out = {
        "state.weight": np.vstack([w["state.weight"] for w in ws]),
        "state.bias": np.concatenate([w["state.bias"] for w in ws]),
        "action.weight": np.vstack([w["action.weight"] for w in ws]),
        "body.1.weight": block("body.1.weight"),
        "body.1.bias": np.concatenate([w["body.1.bias"] for w in ws]),
        "body.3.weight": block("body.3.weight"),
        "body.3.bias": np.concatenate([w["body.3.bias"] for w in ws]),
        "body.5.weight": np.hstack([w["body.5.weight"] for w in ws]) / k,
        "body.5.bias": np.asarray([np.mean([w["body.5.bias"][0] for w in ws])]),
    }
    meta_out = {key: v for key, v in first.items() if key in same}
    thresholds = [float(m.get("threshold", 0.0)) for _, m in members]
    meta_out.update(
        members=json.dumps([str(p) for p in paths]),
        hands=int(sum(int(m.get("hands", 0)) for _, m in members)),
        decisions=int(sum(int(m.get("decisions", 0)) for _, m in members)),
        hidden=int(arrays_out["state.bias"].shape[0]),
        threshold=float(np.mean(thresholds)) if threshold is None else float(threshold),
        threshold_source=source or ("the members' mean" if threshold is None else "set"))
    save(out, arrays_out, **meta_out)


def kind_of(path: Path | str) -> str:
    """``advantage`` for a file of this module, else the token net's kind (``dmc``);
    ValueError for a file that is not an .npz of arrays (OSError when it cannot be read)."""
    try:
        data = np.load(Path(path))
    except (ValueError, EOFError, zipfile.BadZipFile):  # text, pickle, empty, broken zip
        data = None
    if not isinstance(data, np.lib.npyio.NpzFile):  # also a lone .npy array
        raise ValueError(f"{path} is not a weights file (.npz of gunzi export-policy or "
                         "gunzi train-advantage)")
    with data:
        return str(data["meta.kind"].item()) if "meta.kind" in data.files else "dmc"


class AdvantagePolicy:
    """An exported advantage net (float32 numpy)."""

    def __init__(self, path: Path | str) -> None:
        w, self.meta = read(path)
        versions = (self.meta.get("obs_version"), self.meta.get("features_version"))
        if versions != (card_obs.OBS_VERSION, play_features.FEATURES_VERSION):
            raise ValueError(f"{path} is not an advantage net for observation "
                             f"v{card_obs.OBS_VERSION} and play features "
                             f"v{play_features.FEATURES_VERSION}")
        self.threshold = float(self.meta.get("threshold", 0.0))
        self._ws = np.ascontiguousarray(w["state.weight"].T)
        self._bs = w["state.bias"]
        self._wa = np.ascontiguousarray(w["action.weight"].T)
        self._w1 = np.ascontiguousarray(w["body.1.weight"].T)
        self._b1 = w["body.1.bias"]
        self._w2 = np.ascontiguousarray(w["body.3.weight"].T)
        self._b2 = w["body.3.bias"]
        self._w3 = w["body.5.weight"][0]
        self._b3 = float(w["body.5.bias"][0])

    def values(self, obs: np.ndarray, feats: np.ndarray) -> np.ndarray:
        """Predicted advantage of each candidate: ``obs`` (OBS_SIZE,), ``feats`` (n, F)."""
        return self.shared(obs[None, :], np.zeros(len(feats), dtype=np.intp), feats)

    def shared(self, obs: np.ndarray, owner: np.ndarray, feats: np.ndarray) -> np.ndarray:
        """Candidates of many decisions at once: ``obs`` (P, OBS_SIZE) once each, candidate
        ``i`` (features ``feats[i]``) belongs to observation ``owner[i]`` → (B,)."""
        pre = (obs @ self._ws + self._bs)[owner] + feats @ self._wa
        h = np.maximum(np.maximum(pre, 0.0) @ self._w1 + self._b1, 0.0)
        h = np.maximum(h @ self._w2 + self._b2, 0.0)
        out: np.ndarray = h @ self._w3 + self._b3
        return out
