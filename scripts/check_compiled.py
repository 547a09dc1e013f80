"""Differential check: the mypyc builds play exactly like the source. Two builds: the
play core alone (build/core, `make setup`: what every `gunzi` command runs when it is
current) and the engine with the core (build/fast, `make fast`).

Runs `gunzi simulate` (and `simulate --workers`, on the core) with the same seeds on both
and compares every figure but timing and which build ran; then the play cores' outcomes
hand by hand, every trick winner included; then plays seeded random deals
to the end with the rule bot's card play on the core (gunzi.core.gunzi_rule, the search
bot's rollout policy) on both and compares every play; then the arena with spawned workers.
Usage: python scripts/check_compiled.py  (after `make setup` and `make fast`)
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TIMING = {"seconds", "hands_per_second", "core"}
BUILDS = ("core", "fast")  # each compared with the source ("pure")


def env_for(build: str) -> dict[str, str]:
    """The environment that runs ``build``: pure, core (build/core) or fast (build/fast)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "GUNZI_CORE")}
    if build == "fast":
        env["PYTHONPATH"] = str(ROOT / "build" / "fast")
    env["GUNZI_CORE"] = "compiled" if build == "core" else "auto" if build == "fast" else "pure"
    return env


@functools.cache  # the source's figures serve both comparisons
def run(rules: str, seed: int, build: str, *extra: str) -> dict[str, object]:
    env = env_for(build)
    out = subprocess.run(
        [sys.executable, "-m", "gunzi.cli", "simulate", "--rules", rules, "--hands", "60",
         "--seed", str(seed), "--json", *extra],
        check=True, capture_output=True, text=True, env=env, cwd=ROOT,
    ).stdout
    data: dict[str, object] = json.loads(out)
    return {k: v for k, v in data.items() if k not in TIMING}


# Seeded random deals played out by gunzi.core.gunzi_rule: every play, as JSON.
RULE_PLAYS = """
import json, random
from gunzi.core import gunzi_rule
from gunzi.core.gunzi_play import random_deal
plays = []
for i in range(60):
    rng = random.Random(i)
    game = random_deal(rng, permanent_twos=i % 2 == 0)
    game.live = i % 4 >= 2
    kitty = [3 - sum(game.h[s * 54 + c] for s in range(4)) for c in range(54)]
    game.log = []
    gunzi_rule.play_out(game, gunzi_rule.Memory(kitty, i % 4, i % 3 == 0))
    plays.append([game.log, game.points])
print(json.dumps({"compiled": not gunzi_rule.__file__.endswith(".py"), "plays": plays}))
"""


@functools.cache  # the source's figures serve both comparisons
def rule_plays(build: str) -> dict[str, object]:
    env = env_for(build)
    out = subprocess.run([sys.executable, "-c", RULE_PLAYS], check=True, capture_output=True,
                         text=True, env=env, cwd=ROOT).stdout
    data: dict[str, object] = json.loads(out)
    return data


# Every outcome (points, trick winners, failed throws, kitty multiplier, deal and plays) of a
# core batch.
OUTCOMES = ("import sys; from gunzi.core.batch import simulate; from gunzi.engine.rules import "
            "preset; print(repr(simulate(80, int(sys.argv[2]), records=True, log=True, "
            "rules=preset(sys.argv[1]))))")


@functools.cache  # the source's figures serve both comparisons
def outcomes(rules: str, seed: int, build: str) -> str:
    env = env_for(build)
    return subprocess.run([sys.executable, "-c", OUTCOMES, rules, str(seed)], check=True,
                          capture_output=True, text=True, env=env, cwd=ROOT).stdout


def main() -> int:
    probe = subprocess.run(
        [sys.executable, "-c", "import gunzi.engine.match as m; print(m.__file__)"],
        capture_output=True, text=True, check=True,
        env=env_for("fast"),
    ).stdout.strip()
    cores = ROOT / "build" / "fast" / "gunzi" / "core"
    if probe.endswith(".py") or not list(cores.glob("classic_play*.so")):
        print(f"build/fast is not compiled ({probe}); run `make fast` first")
        return 1
    current = subprocess.run([sys.executable, "scripts/build_core.py", "--check"], cwd=ROOT,
                             env=env_for("pure"), check=False)
    if current.returncode != 0:
        print("build/core is not current; run `make setup` first")
        return 1
    bad = 0
    for build in BUILDS:
        bad += compare(build)
    return 1 if bad else 0


def compare(build: str) -> int:
    """How many checks find ``build`` playing otherwise than the source."""
    bad = 0
    for rules, seed in (("gunzi", 1), ("gunzi", 2), ("classic-2", 3), ("classic-3", 4)):
        same = run(rules, seed, "pure") == run(rules, seed, build)
        print(f"{build}: {rules} seed {seed}: {'same' if same else 'DIFFERENT'}")
        bad += not same
    for rules, seed in (("gunzi", 5), ("classic-1", 6), ("classic-2", 7), ("classic-3", 8)):
        same = run(rules, seed, "pure", "--workers", "1") == run(rules, seed, build,
                                                                 "--workers", "1")
        print(f"{build}: play core {rules} seed {seed}: {'same' if same else 'DIFFERENT'}")
        bad += not same
        same = outcomes(rules, seed, "pure") == outcomes(rules, seed, build)
        print(f"{build}: play core {rules} seed {seed}, hand by hand: "
              f"{'same' if same else 'DIFFERENT'}")
        bad += not same
    pure, fast = rule_plays("pure"), rule_plays(build)
    same = pure["plays"] == fast["plays"] and fast["compiled"] is True and not pure["compiled"]
    print(f"{build}: rule play on the core, 60 deals: {'same' if same else 'DIFFERENT'}")
    bad += not same
    # Spawned workers unpickle their configuration (a compiled frozen Ruleset among it):
    # the arena with two workers must give the one-worker figures on the compiled build.
    one, two = arena(build, 1), arena(build, 2)
    same = one == two and one == arena("pure", 1)
    print(f"{build}: arena, 6 pairs, 1 and 2 workers: {'same' if same else 'DIFFERENT'}")
    bad += not same
    return bad


@functools.cache  # the source's figures serve both comparisons
def arena(build: str, workers: int) -> object:
    env = env_for(build)
    out = subprocess.run(
        [sys.executable, "-m", "gunzi.cli", "arena", "--bots", "learned,rule", "--deals", "6",
         "--bank", "banks/gunzi-v1-2000.jsonl", "--workers", str(workers), "--json"],
        check=True, capture_output=True, text=True, env=env, cwd=ROOT, timeout=300,
    ).stdout
    return json.loads(out)["net_levels_per_hand"]


if __name__ == "__main__":
    raise SystemExit(main())
