"""The arena's JSON report, from A's point of view (docs/arena.md lists every field).

Everything except ``workers``, ``seconds``, ``decisions_per_second`` and
``latency_ms`` is a function of the rules, the deals, the bots and the seed, so a
run repeated with any number of workers gives the same report apart from those.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gunzi.arena.external import FAULT_KINDS
from gunzi.arena.runner import LABELS, HandOutcome, PairResult, RunResult
from gunzi.arena.stats import mean_ci95, percentile

REPORT_FORMAT = 1
TIMING_FIELDS = ("workers", "seconds", "decisions_per_second", "latency_ms")


def _r(x: float | None, digits: int = 6) -> float | None:
    return None if x is None else round(x, digits)


def _summary(values: Sequence[float]) -> dict[str, Any]:
    s = mean_ci95(values)
    return {
        "mean": _r(s["mean"]),
        "sd": _r(s["sd"]),
        "ci95": None if s["ci95"] is None else [_r(s["ci95"][0]), _r(s["ci95"][1])],
    }


def _rate(k: int, n: int) -> float | None:
    return _r(k / n) if n else None


def _mean(values: Sequence[float]) -> float | None:
    return _r(sum(values) / len(values)) if values else None


def _role(hands: list[tuple[HandOutcome, int]], dealing: bool) -> dict[str, Any]:
    """Figures for one bot in one role; ``hands`` are (hand, sign) with sign +1 for A."""
    n = len(hands)
    nets = [h.net * sign for h, sign in hands]
    if dealing:
        held = sum(1 for h, _ in hands if not h.attackers_take)
        return {
            "hands": n,
            "held": held,
            "hold_rate": _rate(held, n),
            "net_levels_per_hand": _mean(nets),
            "opponents_score": _mean([h.score for h, _ in hands]),
            "opponents_kou_rate": _rate(sum(1 for h, _ in hands if h.kou), n),
        }
    took = sum(1 for h, _ in hands if h.attackers_take)
    return {
        "hands": n,
        "took": took,
        "take_rate": _rate(took, n),
        "net_levels_per_hand": _mean(nets),
        "score": _mean([h.score for h, _ in hands]),
        "kou_rate": _rate(sum(1 for h, _ in hands if h.kou), n),
    }


def _latency(samples: Sequence[float]) -> dict[str, Any]:
    ms = [x * 1000 for x in samples]
    return {
        "decisions": len(ms),
        "p50": _r(percentile(ms, 50), 4),
        "p95": _r(percentile(ms, 95), 4),
        "max": _r(max(ms), 4) if ms else None,
        "mean": _r(sum(ms) / len(ms), 4) if ms else None,
    }


def build_report(run: RunResult) -> dict[str, Any]:
    config = run.config
    pairs: list[PairResult] = run.pairs
    n = len(pairs)
    nets = [p.net for p in pairs]
    wins = sum(1 for x in nets if x > 0)
    ties = sum(1 for x in nets if x == 0)
    margins = []
    for p in pairs:
        a_attacks = [h for h in p.hands if not h.a_deals]
        b_attacks = [h for h in p.hands if h.a_deals]
        assert len(a_attacks) == len(b_attacks) == 1, "each team attacks once per pair"
        margins.append(float(a_attacks[0].score - b_attacks[0].score))
    roles: dict[str, dict[str, Any]] = {}
    for label in LABELS:
        sign = 1 if label == "A" else -1
        mine = [(h, sign) for p in pairs for h in p.hands]

        def deals(h: HandOutcome, label: str = label) -> bool:
            return h.a_deals == (label == "A")

        roles[label] = {
            "dealing": _role([x for x in mine if deals(x[0])], True),
            "attacking": _role([x for x in mine if not deals(x[0])], False),
        }
    decisions = {label: sum(p.decisions[label] for p in pairs) for label in LABELS}
    errors: dict[str, dict[str, int]] = {}
    for label in LABELS:
        counts = {kind: sum(p.faults[label][kind] for p in pairs) for kind in FAULT_KINDS}
        errors[label] = {**counts, "total": sum(counts.values())}
    total_decisions = sum(decisions.values())
    bank = config.bank
    return {
        "report": "gunzi-arena",
        "format": REPORT_FORMAT,
        "rules": config.rules.name,
        "bank": {
            "id": bank.id,
            "version": bank.version,
            "path": None if bank.path is None else str(bank.path),
            "digest": bank.header.get("digest"),
            "offset": config.offset,
            "deals_in_bank": len(bank.deals),
        },
        "seed": config.seed,
        "bots": {spec.label: spec.text for spec in config.bots},
        "time_limit": config.time_limit,
        "fallback_bot": run.fallback_bot,
        "deals_requested": config.deals,
        "pairs": n,
        "hands": 2 * n,
        "net_levels_per_hand": _summary(nets),
        "pair_win_rate": _rate(2 * wins + ties, 2 * n),
        "pair_outcomes": {"win": wins, "tie": ties, "loss": n - wins - ties},
        "points_margin": _summary(margins),
        "hold_rate": {
            "dealer": {label: roles[label]["dealing"]["hold_rate"] for label in LABELS},
            "attackers": {label: roles[label]["attacking"]["take_rate"] for label in LABELS},
        },
        "roles": roles,
        "sprt": None if run.sprt is None else {
            k: _r(v) if isinstance(v, float) else v for k, v in run.sprt.report().items()
        },
        "decisions": {**decisions, "total": total_decisions},
        "errors": errors,
        "fallbacks": {label: sum(p.fallbacks[label] for p in pairs) for label in LABELS},
        "workers": config.workers,
        "seconds": _r(run.seconds, 3),
        "decisions_per_second": _r(total_decisions / run.seconds, 1) if run.seconds else None,
        "latency_ms": {
            label: _latency([x for p in pairs for x in p.latency[label]]) for label in LABELS
        },
    }
