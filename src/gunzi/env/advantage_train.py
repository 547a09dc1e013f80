"""Fit the ``learned`` bot's advantage net (PyTorch, CPU) on labelled hands.

The data are :mod:`gunzi.env.advantage_data` shards: per decision the seat's observation,
per candidate play its features and its value relative to the rule bot's choice on the true
deal. The net regresses that label (mean squared error, ``objective="value"``), so it
estimates the candidate's mean advantage over the deals the seat cannot tell apart, or fits a
teacher's choice among the candidates (``objective="choice"``). Every ``holdout``-th shard is
kept out; on it the trainer measures what the bot would gain: at each decision the bot plays
the candidate of highest score if that beats the rule play's by more than a threshold, else
the rule bot's play, and the label of what it played is its gain. The threshold of the
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
from gunzi.bots.suit_symmetry import feature_maps, observation_maps
from gunzi.env.advantage_data import Labelled

# The thresholds tried on the held-out hands, per objective (its score's units).
OBJECTIVES: dict[str, tuple[float, ...]] = {
    "value": (0.0, 0.02, 0.05, 0.075, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5),
    # a choice net scores the rule play above the rest nearly always (the teacher keeps it
    # three times in four): below 0, the bot leaves it for a runner-up within that log-odds
    "choice": (-2.0, -1.5, -1.0, -0.75, -0.5, -0.25, 0.0, 0.25, 0.5, 1.0, 2.0),
}
GROUP_WIDTH = 12  # candidates per decision at most (label_run's cap; the search has 6)


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


def max_cards(data: Labelled) -> int:
    """The most cards a labelled seat held: the bot leaves larger hands to the rule bot."""
    at = card_obs.OFFSETS["hand"]
    held = data.obs[:, at:at + card_obs.N].astype(np.float32).sum(1) * 3
    return int(np.rint(held.max())) if len(held) else 0


def _starts(owner: np.ndarray) -> np.ndarray:
    return np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]])


def relative(pred: np.ndarray, data: Labelled) -> np.ndarray:
    """Each candidate's score minus its decision's rule play's (the decision's first row),
    which is what the bot compares with its threshold."""
    starts = _starts(data.owner)
    first = np.repeat(pred[starts], np.diff(np.r_[starts, len(pred)]))
    out: np.ndarray = pred - first
    return out


def known_labels(data: Labelled) -> np.ndarray:
    """The labels, an unvalued candidate's (NaN: one the search teacher did not play out)
    counted as its decision's worst valued one: a bot that picks it is assumed to lose
    what the worst candidate the search tried would."""
    labels = data.labels
    if not np.isnan(labels).any():
        return labels
    starts = _starts(data.owner)
    worst = np.minimum.reduceat(np.where(np.isnan(labels), np.inf, labels), starts)
    fill = np.repeat(worst, np.diff(np.r_[starts, len(labels)]))
    out: np.ndarray = np.where(np.isnan(labels), fill, labels)
    return out


def gains(pred: np.ndarray, data: Labelled, thresholds: Sequence[float]) -> dict[float, float]:
    """Per threshold: the mean gain per decision of the bot's play over the rule bot's, by
    the labels (the best-scored other candidate if it beats the rule play's score by more
    than the threshold, which may be negative, else the rule play; :func:`known_labels`
    for unvalued candidates)."""
    rel = relative(pred, data)
    labels = known_labels(data)
    starts = _starts(data.owner)
    ends = np.r_[starts[1:], len(rel)]
    best = np.array([s + 1 + int(np.argmax(rel[s + 1:e])) if e - s > 1 else s
                     for s, e in zip(starts, ends, strict=True)])
    return {t: float(np.where(rel[best] > t, labels[best], 0.0).sum()) / max(1, len(best))
            for t in thresholds}


def _groups(data: Labelled, width: int) -> tuple[np.ndarray, np.ndarray]:
    """Each decision's rows padded to ``width`` (-1), and the position of its choice."""
    starts = _starts(data.owner)
    ends = np.r_[starts[1:], len(data.labels)]
    rows = np.full((len(starts), width), -1, dtype=np.int64)
    target = np.zeros(len(starts), dtype=np.int64)
    for k, (s, e) in enumerate(zip(starts, ends, strict=True)):
        e = min(e, s + width)
        rows[k, :e - s] = np.arange(s, e)
        target[k] = int(np.argmax(data.chosen[s:e]))
    return rows, target


def train(folders: Sequence[Path], out: Path, *, epochs: int = 4, hidden: int = 256,
          batch: int = 2048, lr: float = 1e-3, weight_decay: float = 1e-4,
          points: float = 0.0, objective: str = "value", augment: bool = True,
          seed: int = 0, holdout: int = 20, log: Callable[[str], None] = print) -> dict[str, Any]:
    """Train on the shards of ``folders``, write the weights to ``out`` and a log beside
    it. ``objective``: ``value`` regresses each candidate's label (mean squared error; the
    score estimates the advantage in the labels' units); ``choice`` fits the teacher's
    choice among each decision's candidates (softmax cross-entropy; the score is a
    log-odds against the rule play). The labels are noisy and the net overfits them after
    an epoch or two, so the epoch of the highest held-out gain is the one saved.
    ``points``: weight of the extra score-margin part in the value target (denser than
    the levels; the held-out gain is always measured on the labels themselves).
    ``augment``: show each sample under a random naming of the suits
    (:mod:`gunzi.bots.suit_symmetry`), 24 times the data for a net that would otherwise
    learn each suit apart."""
    if objective not in OBJECTIVES:
        raise ValueError(f"objective {objective!r}: one of {', '.join(OBJECTIVES)}")
    thresholds = OBJECTIVES[objective]
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    tr, va = load(folders, holdout)
    net = AdvantageNet(hidden)
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=weight_decay)
    labels = torch.from_numpy(tr.labels + np.float32(points) * tr.points)
    valued = np.flatnonzero(~np.isnan(tr.labels))  # the value objective's rows
    groups, target = _groups(tr, GROUP_WIDTH)
    units = len(groups) if objective == "choice" else len(valued)
    per_step = max(1, batch // 6) if objective == "choice" else batch
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(
        opt, T_max=max(1, epochs * (units // per_step)))
    obs_maps = torch.from_numpy(observation_maps()) if augment else None
    feat_maps = torch.from_numpy(feature_maps()) if augment else None
    history = []
    start = time.time()
    base = float(np.nanmean(va.labels ** 2))
    best: tuple[float, float, int, dict[str, torch.Tensor]] | None = None
    for epoch in range(epochs):
        order = rng.permutation(units)
        total, n = 0.0, 0
        for at in range(0, len(order) - per_step + 1, per_step):
            pick = order[at:at + per_step]
            if objective == "choice":
                cells = groups[pick]
                valid = cells >= 0
                idx = cells[valid]
                # one naming of the suits per decision: its candidates are compared
                sigma = np.repeat(rng.integers(24, size=len(pick)), valid.sum(1))
            else:
                idx = valued[pick]
                sigma = rng.integers(24, size=len(idx))
            obs = torch.from_numpy(tr.obs[tr.owner[idx]].astype(np.float32))
            feats = torch.from_numpy(tr.feats[idx].astype(np.float32))
            if obs_maps is not None and feat_maps is not None:
                at_sigma = torch.from_numpy(sigma)
                obs = torch.gather(obs, 1, obs_maps[at_sigma])
                feats = torch.gather(feats, 1, feat_maps[at_sigma])
            scores = net(obs, feats)
            if objective == "choice":
                logits = torch.full(cells.shape, -1e9)
                logits[torch.from_numpy(valid)] = scores
                loss = nn.functional.cross_entropy(logits, torch.from_numpy(target[pick]))
            else:
                loss = nn.functional.mse_loss(scores, labels[idx])
            opt.zero_grad()
            loss.backward()  # type: ignore[no-untyped-call, unused-ignore]
            opt.step()
            sched.step()
            total += float(loss.detach())
            n += 1
        pred = predict(net, va)
        g = gains(pred, va, thresholds)
        row = {"epoch": epoch + 1, "train_loss": total / max(1, n),
               "val_mse": float(np.nanmean((pred - va.labels) ** 2)), "val_mse_zero": base,
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
                       objective=objective, augment=augment, hands=tr.hands,
                       max_cards=max_cards(tr), decisions=len(tr.obs),
                       epochs=kept, seed=seed, preset="gunzi",
                       options={})  # label-advantage plays default 打滚子
    summary = {"out": str(out), "objective": objective, "threshold": threshold,
               "epoch": kept, "heldout_gain_per_decision": gain, "hands": tr.hands,
               "heldout_hands": va.hands, "history": history}
    Path(str(out) + ".log.json").write_text(json.dumps(summary, indent=1))
    return summary
