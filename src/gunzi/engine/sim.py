"""Simulation with random legal players, and the engine benchmark.

Everything goes through the public API (``legal_actions``, ``apply`` with
validation), so the figures are what a bot or a server gets. Same seed, same
games: the players' generator and the match's are both derived from it.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gunzi.engine import match as match_module
from gunzi.engine import records
from gunzi.engine.legal import play_action
from gunzi.engine.match import Match
from gunzi.engine.rules import PRESETS, Ruleset, preset
from gunzi.engine.variant import variant_of
from gunzi.engine.view import view


def level_change(result: dict[str, Any]) -> str:
    """A short label of a hand's level outcome, e.g. 'dealer+1', 'attackers+3', 'take'."""
    if result.get("round_end") in ("passed-10", "passed-A") and not result["attackers_take"]:
        return f"dealer+{max(result['levels_awarded'], 1)}"
    if result["attackers_take"]:
        n = result["levels_awarded"]
        return f"attackers+{n}" if n else "attackers-take"
    n = result["levels_awarded"]
    return f"dealer+{n}" if n else "dealer-keeps"


def play_random_hands(
    rules: Ruleset,
    hands: int,
    seed: int,
    records_dir: Path | None = None,
    progress: Callable[[int], None] | None = None,
) -> tuple[list[dict[str, Any]], int, int, float]:
    """Play ``hands`` hands with random players; return (results, decisions, matches, seconds).
    ``progress(n)`` is called after the n-th hand (the CLI shows a bar with it)."""
    master = random.Random(seed)
    players = random.Random(master.getrandbits(64))
    results: list[dict[str, Any]] = []
    decisions = 0
    matches = 0
    start = time.perf_counter()
    while len(results) < hands:
        match_seed = master.getrandbits(64)
        match = Match(rules, random.Random(match_seed))
        matches += 1
        while not match.is_over and len(results) < hands:
            seat = match.to_act
            assert seat is not None
            done = len(match.results)
            match.apply(match.legal_actions(seat).sample(players))
            decisions += 1
            if len(match.results) > done:
                results.append(match.results[-1])
                if progress is not None:
                    progress(len(results))
        if records_dir is not None:
            records_dir.mkdir(parents=True, exist_ok=True)
            head = records.header(match, seed=match_seed)
            records.write(records_dir / f"match-{matches:05d}.jsonl", head,
                          records.finished_events(match))
    return results, decisions, matches, time.perf_counter() - start


def simulate(rules: Ruleset, hands: int, seed: int, records_dir: Path | None = None,
             progress: Callable[[int], None] | None = None) -> dict[str, Any]:
    """The figures `gunzi simulate --json` prints."""
    results, decisions, matches, seconds = play_random_hands(rules, hands, seed, records_dir,
                                                             progress)
    n = len(results) or 1
    changes = Counter(level_change(r) for r in results)
    rounds = sum(1 for r in results if r.get("round_winner") is not None)
    base = preset(rules.name).options() if rules.name in PRESETS else {}
    out: dict[str, Any] = {
        "rules": rules.name,
        # Options that differ from the preset's (the -o overrides), so figures say what ran.
        "overrides": {k: v for k, v in rules.options().items() if base.get(k) != v},
        "seed": seed,
        "hands": len(results),
        "matches": matches,
        "decisions": decisions,
        "seconds": round(seconds, 3),
        "hands_per_second": round(len(results) / seconds, 1) if seconds else None,
        "mean_attackers_score": round(sum(r["score"] for r in results) / n, 2),
        "kou_rate": round(sum(1 for r in results if r["kou"]) / n, 4),
        "attackers_take_rate": round(sum(1 for r in results if r["attackers_take"]) / n, 4),
        "level_changes": dict(sorted(changes.items())),
        "rounds_completed": rounds,
        "round_ends": dict(sorted(Counter(
            r["round_end"] for r in results if r.get("round_end")).items())),
    }
    out.update(variant_of(rules).stats(results))
    return out


def bench(rules: Ruleset, hands: int, seed: int,
          progress: Callable[[int], None] | None = None) -> dict[str, Any]:
    """Full random hands per second on one core, and the cost of single API calls
    (``progress`` as for :func:`play_random_hands`)."""
    _, decisions, _, seconds = play_random_hands(rules, hands, seed, progress=progress)
    # Per-call costs, measured on positions met in a real hand.
    match = Match(rules, random.Random(seed))
    rng = random.Random(seed)
    positions: list[Match] = []
    while len(positions) < 200 and not match.is_over:
        seat = match.to_act
        assert seat is not None
        if match.phase.value == "play":
            positions.append(match.clone())
        match.apply(match.legal_actions(seat).sample(rng))
    reps = 20
    t0 = time.perf_counter()
    for _ in range(reps):
        play_action.cache_clear()  # each pass builds its actions afresh, as a first visit would
        for pos in positions:
            seat = pos.to_act
            assert seat is not None
            list(pos.legal_actions(seat))
    t1 = time.perf_counter()
    for _ in range(reps):
        for pos in positions:
            view(pos, pos.to_act)
    t2 = time.perf_counter()
    calls = reps * len(positions) or 1
    return {
        "rules": rules.name,
        "hands": hands,
        "seconds": round(seconds, 3),
        "hands_per_second": round(hands / seconds, 1),
        "decisions_per_second": round(decisions / seconds, 1),
        "legal_actions_us": round((t1 - t0) / calls * 1e6, 2),
        "view_us": round((t2 - t1) / calls * 1e6, 2),
        "validation": True,
        "cores": 1,
        "compiled": not str(getattr(match_module, "__file__", "")).endswith(".py"),
    }
