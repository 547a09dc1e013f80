"""The learning curve of a ``gunzi train`` run folder, drawn with matplotlib (``[learn]``).

Top: the loss of every update against hands trained (Monte-Carlo MSE, and the imitation
cross-entropy while the warm start lasts), with a running mean, since single updates are
noisy. Bottom: the duplicate evaluations of ``eval.jsonl``, net levels per hand with their
CI95, against the same hands axis. The format follows the file's suffix (.png, .svg, .pdf).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

LOSS_LOG = "loss.jsonl"  # as gunzi.env.dmc writes them (that module needs PyTorch)
EVAL_LOG = "eval.jsonl"


def read_log(path: Path) -> list[dict[str, Any]]:
    """The JSON lines of ``path`` (none if it does not exist)."""
    if not path.exists():
        return []
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def running_mean(values: list[float], window: int) -> list[float]:
    """The mean of the last ``window`` values at every point (fewer at the start)."""
    out: list[float] = []
    total = 0.0
    for i, v in enumerate(values):
        total += v
        if i >= window:
            total -= values[i - window]
        out.append(total / min(i + 1, window))
    return out


def plot(run: Path, out: Path, *, title: str | None = None) -> dict[str, Any]:
    """Draw ``run``'s curve to ``out``; returns what was drawn."""
    losses = read_log(run / LOSS_LOG)
    evals = read_log(run / EVAL_LOG)
    if not losses and not evals:
        raise FileNotFoundError(f"{run} has neither {LOSS_LOG} nor {EVAL_LOG}")
    try:
        import matplotlib
    except ImportError as exc:
        raise RuntimeError("plotting needs matplotlib: pip install -e '.[learn]'") from exc
    matplotlib.use("Agg")  # files only, no display
    from matplotlib import pyplot as plt

    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 7), sharex=True)
    hands = [x["hand"] for x in losses]
    window = max(1, min(len(losses), max(5, len(losses) // 25)))
    for key, label, color in (("loss", "Monte-Carlo MSE", "tab:blue"),
                              ("imitation", "imitation cross-entropy", "tab:orange")):
        points = [(x["hand"], x[key]) for x in losses if key in x]
        if points:
            at = [h for h, _ in points]
            value = [v for _, v in points]
            top.plot(at, value, color=color, alpha=0.25, linewidth=0.8)
            top.plot(at, running_mean(value, window), color=color,
                     label=f"{label} (mean of {window})")
    top.set_ylabel("loss per update")
    top.set_yscale("log")
    top.grid(alpha=0.3)
    if hands:
        top.legend(loc="upper right")
    against = sorted({x.get("against", "?") for x in evals})
    for name in against:
        rows = [x for x in evals if x.get("against", "?") == name]
        xs = [x["hand"] for x in rows]
        ys = [x["net"] for x in rows]
        lo = [x["net"] - x["ci95"][0] if x.get("ci95") else 0.0 for x in rows]
        hi = [x["ci95"][1] - x["net"] if x.get("ci95") else 0.0 for x in rows]
        pairs = rows[-1].get("pairs", "?")
        bottom.errorbar(xs, ys, yerr=[lo, hi], marker="o", capsize=4,
                        label=f"vs {name} ({pairs} deal pairs, CI95)")
    bottom.axhline(0.0, color="grey", linewidth=0.8)
    bottom.set_ylabel("net levels per hand")
    bottom.set_xlabel("hands trained")
    bottom.grid(alpha=0.3)
    if evals:
        bottom.legend(loc="lower right")
    fig.suptitle(title or f"gunzi train: {run.name}")
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=100)
    plt.close(fig)
    return {"file": str(out), "updates": len(losses), "evaluations": len(evals),
            "hands": max([x["hand"] for x in losses + evals], default=0)}
