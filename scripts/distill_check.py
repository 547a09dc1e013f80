"""How well a search-distilled net predicts the search (docs/bots.md, "the search bot
distilled"): the figures behind that section's reasons, reproducible.

    python scripts/distill_check.py auc NET.npz runs/st1 [--holdout 10]
    python scripts/distill_check.py overlap NET.npz runs/st2 [--threshold -1.0]
    python scripts/distill_check.py agreement [--hands 12] [--seed 2000]

``auc``: on the trainer's held-out shards (every ``holdout``-th, as ``train-advantage``
splits them), how well the net's margin (best other play's score minus the rule play's)
ranks the decisions where the search left the rule play (AUC), against a lookup table of
the training shards' deviation rates by number of candidates, lead or follow, and cards
held. ``overlap``: where the bot at a threshold and the search leave the rule play, and
how often together. ``agreement``: two searches (150 rollouts, no clock) of each late card play of
rule-bot hands, with different generators: how often both, one or neither leave the rule
play, and how often two that do pick the same play.
"""

from __future__ import annotations

import argparse
import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from gunzi.env.advantage_data import Labelled


def _auc(score: np.ndarray, positive: np.ndarray) -> float:
    """The chance that a positive scores above a negative (ties half): Mann-Whitney's U
    from average ranks, over the two counts."""
    _, inverse, counts = np.unique(score, return_inverse=True, return_counts=True)
    ranks = (np.cumsum(counts) - (counts - 1) / 2)[inverse]  # average rank, from 1
    n1, n0 = int(positive.sum()), int((~positive).sum())
    return float((ranks[positive].sum() - n1 * (n1 + 1) / 2) / (n1 * n0))


def _decisions(data: Labelled) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per decision: its first row, whether the teacher left the rule play, a context key."""
    from gunzi.bots import card_obs
    from gunzi.env.advantage_train import _starts

    starts = _starts(data.owner)
    ends = np.r_[starts[1:], len(data.labels)]
    deviated = np.array([int(np.argmax(data.chosen[s:e])) != 0
                         for s, e in zip(starts, ends, strict=True)])
    obs = data.obs.astype(np.float32)
    n = card_obs.N
    lead = obs[:, card_obs.OFFSETS["trick"]:][:, :4 * n].sum(1) == 0
    held = np.rint(obs[:, card_obs.OFFSETS["hand"]:][:, :n].sum(1) * 3).astype(int)
    key = (ends - starts) * 100 + lead * 1000 + held
    return starts, deviated, key


def _scores(net_path: str, held: Labelled) -> np.ndarray:
    """The net's score of every held-out candidate."""
    from gunzi.bots.advantage_net import AdvantagePolicy

    return AdvantagePolicy(net_path).shared(held.obs.astype(np.float32),
                                            held.owner.astype(np.intp),
                                            held.feats.astype(np.float32))


def auc(net_path: str, folder: str, holdout: int) -> dict[str, float]:
    from gunzi.env.advantage_train import load

    train, held = load([Path(folder)], holdout)
    pred = _scores(net_path, held)
    starts, deviated, key = _decisions(held)
    ends = np.r_[starts[1:], len(pred)]
    margin = np.array([(pred[s + 1:e] - pred[s]).max() for s, e in zip(starts, ends,
                                                                         strict=True)])
    _, t_dev, t_key = _decisions(train)
    rates = {k: t_dev[t_key == k].mean() for k in np.unique(t_key)}
    table = np.array([rates.get(k, t_dev.mean()) for k in key])
    return {"heldout_decisions": len(deviated), "deviation_rate": float(deviated.mean()),
            "net_auc": round(_auc(margin, deviated), 3),
            "table_auc": round(_auc(table, deviated), 3)}


def overlap(net_path: str, folder: str, holdout: int, threshold: float) -> dict[str, Any]:
    """On the held-out shards: where the bot at ``threshold`` leaves the rule play, where
    the search does, how often both (and with the same play)."""
    from gunzi.env.advantage_train import load

    _, held = load([Path(folder)], holdout)
    pred = _scores(net_path, held)
    starts, deviated, _ = _decisions(held)
    ends = np.r_[starts[1:], len(pred)]
    net = both = same = 0
    for s, e, d in zip(starts, ends, deviated, strict=True):
        best = 1 + int(np.argmax(pred[s + 1:e]))
        if pred[s + best] - pred[s] > threshold:
            net += 1
            both += int(d)
            same += int(d and best == int(np.argmax(held.chosen[s:e])))
    return {"heldout_decisions": len(deviated), "search_leaves": int(deviated.sum()),
            "net_leaves": net, "both": both, "both_same_play": same,
            "precision": round(both / max(net, 1), 3),
            "recall": round(both / max(int(deviated.sum()), 1), 3)}


def agreement(hands: int, seed: int) -> dict[str, int]:
    from gunzi.bots.base import observe
    from gunzi.bots.rule import RuleBot
    from gunzi.bots.search import SearchBot
    from gunzi.engine.actions import Kind
    from gunzi.env.cards import CardEnv

    rule, search = RuleBot(), SearchBot(rollouts=150, time_limit=None)
    count: Counter[str] = Counter()
    for h in range(hands):
        env = CardEnv("gunzi", mid_round=True)
        env.reset(seed=seed + h)
        m = env.match
        rule.new_hand()
        search.new_hand()
        rng = random.Random(h)
        while not m.results:
            d = observe(m, m.to_act)
            action = rule.choose(d, rng)
            if (d.kind is Kind.PLAY and d.actions and len(d.actions) > 1
                    and sum(d.hand) <= search.search_cards):
                picks = []
                for k in range(2):
                    cands, _, best = search.estimates(d, random.Random(k * 7919 + h))
                    picks.append(cands[best] if cands[0] == action else None)
                if None not in picks:
                    left = [p != action for p in picks]
                    count[("neither", "one", "both")[sum(left)]] += 1
                    count["both_same_play"] += all(left) and picks[0] == picks[1]
            m.apply(action)
    return dict(count)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="what", required=True)
    a = sub.add_parser("auc")
    a.add_argument("net")
    a.add_argument("data")
    a.add_argument("--holdout", type=int, default=10)
    o = sub.add_parser("overlap")
    o.add_argument("net")
    o.add_argument("data")
    o.add_argument("--holdout", type=int, default=10)
    o.add_argument("--threshold", type=float, default=-1.0)
    g = sub.add_parser("agreement")
    g.add_argument("--hands", type=int, default=12)
    g.add_argument("--seed", type=int, default=2000)
    args = p.parse_args()
    out: dict[str, Any] = (
        auc(args.net, args.data, args.holdout) if args.what == "auc"
        else overlap(args.net, args.data, args.holdout, args.threshold)
        if args.what == "overlap" else agreement(args.hands, args.seed))
    print(json.dumps(out))


if __name__ == "__main__":
    main()
