"""Speed figures as ratios to the C yardstick (docs/performance.md).

The machine is shared and its speed moves from minute to minute, so every figure is
taken in CPU-seconds and quoted against ``scripts/yardstick.c`` (a plain C loop of
random 打滚子 play phases) measured in the same run, before and after. The compiled
figures come from a child process with ``build/fast`` (``make fast``) first on its
path, since one process imports one build of a module.
"""

from __future__ import annotations

import dataclasses
import gc
import json
import os
import random
import shutil
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

from gunzi.core import batch
from gunzi.core import gunzi_play as core_module
from gunzi.engine import match as match_module
from gunzi.engine.rules import Ruleset, preset
from gunzi.engine.sim import play_random_hands

ROOT = Path(__file__).resolve().parents[2]  # a source checkout; absent in a wheel
YARDSTICK_SRC = ROOT / "scripts" / "yardstick.c"
YARDSTICK_BIN = ROOT / "build" / "yardstick"
FAST = ROOT / "build" / "fast"


def _compiled(module: object) -> bool:
    return not str(getattr(module, "__file__", "")).endswith(".py")


def active_core() -> str:
    """'compiled' when the mypyc build of the core is the one imported, else 'pure'."""
    return "compiled" if _compiled(core_module) else "pure"


def yardstick(seconds: float = 1.0) -> float | None:
    """The C loop's hands per CPU-second, building it with gcc if needed (None without
    a source checkout or a compiler)."""
    if not YARDSTICK_SRC.exists():
        return None
    stale = (not YARDSTICK_BIN.exists()
             or YARDSTICK_BIN.stat().st_mtime < YARDSTICK_SRC.stat().st_mtime)
    if stale:
        gcc = shutil.which("gcc")
        if gcc is None:
            return None
        YARDSTICK_BIN.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([gcc, "-O2", "-o", str(YARDSTICK_BIN), str(YARDSTICK_SRC)], check=True)
    out = subprocess.run([str(YARDSTICK_BIN), str(seconds)], check=True, capture_output=True,
                         text=True).stdout
    return float(json.loads(out)["hands_per_cpu_second"])


def _per_cpu_second(n: int, start: float) -> float:
    return round(n / max(time.process_time() - start, 1e-9), 1)


def match_bytes_per_hand(rules: Ruleset, seed: int, hands: int = 20, warm: int = 5
                         ) -> tuple[int, int]:
    """(bytes, hands): what a live match keeps per finished hand, by ``tracemalloc``: the
    growth from the end of its ``warm``-th hand to the end of its ``hands``-th (or its
    last), in random play with the most rounds ``rules`` allow. Both ends fall just after
    a hand is scored, so the hand in play then (kept whole) counts at both."""
    rules = dataclasses.replace(rules, rounds=10)
    rng = random.Random(seed + 1)
    tracemalloc.start()
    m = match_module.Match(rules, random.Random(seed))

    def traced_after(n: int) -> int:
        while not m.is_over and len(m.results) < n:
            seat = m.to_act
            assert seat is not None
            m.apply(m.legal_actions(seat).sample(rng))
        gc.collect()
        return tracemalloc.get_traced_memory()[0]

    before = traced_after(warm)
    first = len(m.results)
    after = traced_after(hands)
    tracemalloc.stop()
    n = len(m.results) - first
    return round((after - before) / max(n, 1)), n


def figures(rules: Ruleset, hands: int, core_hands: int, seed: int) -> dict[str, Any]:
    """This process's figures: full random hands through the public API (validation on),
    and random play phases through the play core, each per CPU-second."""
    t = time.process_time()
    play_random_hands(rules, hands, seed)
    api = _per_cpu_second(hands, t)
    t = time.process_time()
    batch.simulate(core_hands, seed)
    core = _per_cpu_second(core_hands, t)
    tracemalloc.start()
    kept = batch.simulate(200, seed, records=True)  # outcomes with their trick winners
    kept_bytes = tracemalloc.get_traced_memory()[0] / len(kept)
    tracemalloc.stop()
    # clone() of a live match in the play phase, and of a core position.
    m = match_module.Match(preset("gunzi"), random.Random(seed))
    rng = random.Random(seed)
    while m.phase.value != "play":
        seat = m.to_act
        assert seat is not None
        m.apply(m.legal_actions(seat).sample(rng))
    g = core_module.start(m.hands, m.order, m.leader, m.live)
    t = time.process_time()
    for _ in range(2000):
        m.clone()
    match_clone = (time.process_time() - t) / 2000 * 1e6
    t = time.process_time()
    for _ in range(2000):
        g.clone()
    core_clone = (time.process_time() - t) / 2000 * 1e6
    per_hand, measured = match_bytes_per_hand(rules, seed)
    return {
        "engine_compiled": _compiled(match_module),
        "core": active_core(),
        "api_hands_per_cpu_second": api,
        "core_play_phases_per_cpu_second": core,  # 打滚子 (the core's only game so far)
        "core_outcome_bytes_kept": round(kept_bytes),
        "match_clone_us": round(match_clone, 2),
        "core_clone_us": round(core_clone, 2),
        # A live match's memory per finished hand (its events, packed; its results).
        "match_bytes_per_hand": per_hand,
        "match_hands_measured": measured,
    }


def _compiled_figures(rules: str, hands: int, core_hands: int, seed: int
                      ) -> dict[str, Any] | None:
    """:func:`figures` in a child process on the mypyc build, if ``make fast`` made one."""
    if not any((FAST / "gunzi" / "core").glob("gunzi_play*.so")):
        return None
    env = {**os.environ, "PYTHONPATH": str(FAST)}
    out = subprocess.run(
        [sys.executable, "-m", "gunzi.perf", rules, str(hands), str(core_hands), str(seed)],
        check=True, capture_output=True, text=True, env=env).stdout
    data: dict[str, Any] = json.loads(out)
    return data


def core_simulate(hands: int, seed: int, workers: int) -> dict[str, Any]:
    """The figures `gunzi simulate --workers K` prints: random play phases on the core."""
    t = time.perf_counter()
    outcomes = batch.simulate(hands, seed, workers)
    seconds = time.perf_counter() - t
    n = len(outcomes) or 1
    return {
        "rules": "gunzi",
        "what": "random play phases on the play core (random deal, level, trump, leader)",
        "core": active_core(),
        "seed": seed,
        "workers": workers,
        "hands": len(outcomes),
        "seconds": round(seconds, 3),
        "hands_per_second": round(len(outcomes) / seconds, 1) if seconds else None,
        "mean_points": [round(sum(o.points[t] for o in outcomes) / n, 2) for t in (0, 1)],
        "last_trick_team0_rate": round(sum(1 for o in outcomes if o.last_winner % 2 == 0) / n,
                                       4),
    }


def report(rules: Ruleset, hands: int, core_hands: int, seed: int) -> dict[str, Any]:
    """Pure and compiled figures between two yardstick runs, with their ratios to it."""
    before = yardstick()
    builds = {"pure" if active_core() == "pure" else "active":
              figures(rules, hands, core_hands, seed)}
    if active_core() == "pure":
        fast = _compiled_figures(rules.name, hands, core_hands, seed)
        if fast is not None:
            builds["compiled"] = fast
    after = yardstick()
    out: dict[str, Any] = {"active_core": active_core(), "yardstick": [before, after]}
    if before and after:
        c = (before + after) / 2
        for fig in builds.values():
            fig["api_ratio"] = round(fig["api_hands_per_cpu_second"] / c, 4)
            fig["core_ratio"] = round(fig["core_play_phases_per_cpu_second"] / c, 4)
    out.update(builds)
    return out


if __name__ == "__main__":  # the child process of _compiled_figures
    name, n, nc, s = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    print(json.dumps(figures(preset(name), n, nc, s)))
