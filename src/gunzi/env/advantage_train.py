"""Fit the ``learned`` bot's advantage net (PyTorch, CPU) on labelled hands.

The data are :mod:`gunzi.env.advantage_data` shards: per decision the seat's observation,
per candidate play its features and its value relative to the rule bot's choice on the true
deal. The net regresses that label (mean squared error), so it estimates the candidate's
mean advantage over the deals the seat cannot tell apart. Every ``holdout``-th shard is kept
out; on it the trainer measures what the bot would gain: at each decision the bot plays the
candidate of highest predicted advantage if that exceeds a threshold, else the rule bot's
play, and the *true* label of what it played is its gain on that deal. The threshold of the
highest held-out gain is saved with the weights (:func:`gunzi.bots.advantage_net.save`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from gunzi.bots import advantage_net, card_obs, play_features
from gunzi.env.advantage_data import Labelled

THRESHOLDS = (0.0, 0.02, 0.05, 0.075, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5)


class AdvantageNet(nn.Module):
    """A(s, a) = body(state(s) + action(a)); the names match advantage_net.ARRAYS."""

    def __init__(self, hidden: int = 256) -> None:
        super().__init__()
        self.state = nn.Linear(card_obs.OBS_SIZE, hidden)
        self.action = nn.Linear(play_features.SIZE, hidden, bias=False)
        self.body = nn.Sequential(nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                                  nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, obs: torch.Tensor, feats: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.body(self.state(obs) + self.action(feats)).squeeze(-1)
        return out


def load(folders: Sequence[Path], holdout: int) -> tuple[Labelled, Labelled]:
    """The shards of ``folders``, split: every ``holdout``-th one is held out."""
    shards = [p for folder in folders for p in sorted(folder.glob("shard-*.npz"))]
    if len(shards) < 2:
        raise ValueError(f"{', '.join(map(str, folders))}: {len(shards)} shards; label at "
                         "least two")
    parts = [Labelled.load(str(p)) for p in shards]
    held = [p for i, p in enumerate(parts) if i % holdout == holdout - 1] or parts[-1:]
    train = [p for p in parts if not any(p is h for h in held)]
    return Labelled.join(train), Labelled.join(held)


def predict(net: AdvantageNet, data: Labelled, rows: int = 65536) -> np.ndarray:
    out = []
    with torch.no_grad():
        for at in range(0, len(data.labels), rows):
            sl = slice(at, at + rows)
            obs = torch.from_numpy(data.obs[data.owner[sl]].astype(np.float32))
            out.append(net(obs, torch.from_numpy(data.feats[sl].astype(np.float32))).numpy())
    return np.concatenate(out) if out else np.zeros(0, np.float32)


def gains(pred: np.ndarray, data: Labelled) -> dict[float, float]:
    """Per threshold: the mean true gain per decision of the bot's play over the rule
    bot's (the candidate of best prediction above the threshold, else the rule play)."""
    starts = np.flatnonzero(np.r_[True, data.owner[1:] != data.owner[:-1]])
    out = {}
    best_at = np.maximum.reduceat(pred, starts)
    for t in THRESHOLDS:
        total = 0.0
        for k, s in enumerate(starts):
            e = starts[k + 1] if k + 1 < len(starts) else len(pred)
            if best_at[k] > t:
                total += float(data.labels[s + int(np.argmax(pred[s:e]))])
        out[t] = total / max(1, len(starts))
    return out


def train(folders: Sequence[Path], out: Path, *, epochs: int = 4, hidden: int = 256,
          batch: int = 2048, lr: float = 1e-3, weight_decay: float = 1e-4,
          points: float = 0.0, seed: int = 0, holdout: int = 20,
          log: Callable[[str], None] = print) -> dict[str, Any]:
    """Train on the shards of ``folders``, write the weights to ``out`` and a log beside
    it. The labels are noisy and the net overfits them after an epoch or two, so the epoch
    of the highest held-out gain is the one saved. ``points``: weight of the extra
    score-margin part in the regression target (denser than the levels; the held-out gain
    is always measured on the labels themselves)."""
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    tr, va = load(folders, holdout)
    net = AdvantageNet(hidden)
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=weight_decay)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(
        opt, T_max=max(1, epochs * (len(tr.labels) // batch)))
    labels = torch.from_numpy(tr.labels + np.float32(points) * tr.points)
    history = []
    start = time.time()
    base = float(np.mean(va.labels ** 2))
    best: tuple[float, float, int, dict[str, torch.Tensor]] | None = None
    for epoch in range(epochs):
        order = rng.permutation(len(tr.labels))
        total, n = 0.0, 0
        for at in range(0, len(order) - batch + 1, batch):
            idx = order[at:at + batch]
            obs = torch.from_numpy(tr.obs[tr.owner[idx]].astype(np.float32))
            feats = torch.from_numpy(tr.feats[idx].astype(np.float32))
            loss = nn.functional.mse_loss(net(obs, feats), labels[idx])
            opt.zero_grad()
            loss.backward()  # type: ignore[no-untyped-call, unused-ignore]
            opt.step()
            sched.step()
            total += float(loss.detach())
            n += 1
        pred = predict(net, va)
        g = gains(pred, va)
        row = {"epoch": epoch + 1, "train_mse": total / max(1, n),
               "val_mse": float(np.mean((pred - va.labels) ** 2)), "val_mse_zero": base,
               "gain_per_decision": {str(k): round(v, 5) for k, v in g.items()},
               "seconds": round(time.time() - start, 1)}
        history.append(row)
        log(json.dumps(row))
        t = max(g, key=lambda k: g[k])
        if best is None or g[t] > best[0]:
            best = (g[t], t, epoch + 1, {k: v.detach().clone()
                                         for k, v in net.state_dict().items()})
    assert best is not None
    gain, threshold, kept, state = best
    arrays = {k: v.numpy() for k, v in state.items()}
    advantage_net.save(out, arrays, threshold=threshold, hidden=hidden, points=points,
                       hands=tr.hands, decisions=len(tr.obs), epochs=kept, seed=seed,
                       preset="gunzi")
    summary = {"out": str(out), "threshold": threshold, "epoch": kept,
               "heldout_gain_per_decision": gain, "hands": tr.hands,
               "heldout_hands": va.hands, "history": history}
    Path(str(out) + ".log.json").write_text(json.dumps(summary, indent=1))
    return summary
