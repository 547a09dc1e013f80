"""Speed figures as ratios to the C yardstick (docs/performance.md).

The machine is shared and its speed moves from minute to minute, so every figure is
taken in CPU-seconds and quoted against ``scripts/yardstick.c`` (a plain C loop of
random 打滚子 play phases) measured in the same run, before and after. The figures of
the builds this process does not run (pure, ``build/core``, ``build/fast``) come from
child processes, since one process imports one build of a module.
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

from gunzi import core
from gunzi.bots.base import Decision, observe
from gunzi.bots.rule import RuleBot
from gunzi.bots.search import SearchBot
from gunzi.core import batch
from gunzi.core import gunzi_play as core_module
from gunzi.engine import match as match_module
from gunzi.engine.match import Match
from gunzi.engine.rules import Ruleset, preset
from gunzi.engine.sim import play_random_hands
from gunzi.engine.variant import variant_of

ROOT = Path(__file__).resolve().parents[2]  # a source checkout; absent in a wheel
YARDSTICK_SRC = ROOT / "scripts" / "yardstick.c"
YARDSTICK_BIN = ROOT / "build" / "yardstick"
FAST = ROOT / "build" / "fast"


def _compiled(module: object) -> bool:
    return not str(getattr(module, "__file__", "")).endswith(".py")


def active_core() -> str:
    """'compiled' when the mypyc build of the core is the one imported, else 'pure'."""
    return core.active()


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


SEARCH_DECISIONS = 8  # endgame play decisions the search figures are taken on
SEARCH_ROLLOUTS = 150  # rollouts per decision (no clock): the budget before issue 13


def search_decisions(n: int, seed: int) -> list[Decision]:
    """The first ``n`` play decisions with a choice and at most 12 cards in hand (where the
    search bot searches) of seeded 打滚子 hands the rule bot plays."""
    rule = RuleBot()
    out: list[Decision] = []
    while len(out) < n:
        rng = random.Random(seed)
        m = match_module.Match(preset("gunzi"), random.Random(seed))
        while not m.is_over and not m.results:
            seat = m.to_act
            assert seat is not None
            d = observe(m, seat)
            if (m.phase is match_module.Phase.PLAY and sum(d.hand) <= 12 and d.actions
                    and len(d.actions) > 1):
                out.append(d)
            m.apply(rule.choose(d, rng))
        seed += 1
    return out[:n]


def search_rollouts(seed: int, decisions: int = SEARCH_DECISIONS) -> dict[str, dict[str, float]]:
    """Search-bot rollouts per CPU-second for the ``core`` policy (the default: the rule
    bot's play on the play core, memory kept per play) and the ``rule`` one (the rule bot
    itself, memory rebuilt at every move), on the same endgame decisions: ``search``, the
    whole search at a fixed budget (deals sampled, candidates, scoring); ``rollouts``,
    the play-outs alone (every candidate on the same four sampled deals per decision)."""
    ds = search_decisions(decisions, seed)
    out: dict[str, dict[str, float]] = {"search": {}, "rollouts": {}}
    for policy in ("rule", "core"):
        bot = SearchBot(policy=policy, rollouts=SEARCH_ROLLOUTS, time_limit=None)
        done = 0
        t = time.process_time()
        for i, d in enumerate(ds):
            bot.choose(d, random.Random(i))
            done += int(bot.stats.get("rollouts", 0))
        out["search"][policy] = _per_cpu_second(done, t)
        done = 0
        cpu = 0.0
        for i, d in enumerate(ds):
            cands, position, finish = bot._gunzi_setup(d, random.Random(i))
            deals = [position(random.Random(i * 1000 + j)) for j in range(4)]
            t = time.process_time()
            for pos in deals:
                for action in cands:
                    finish(pos, action)
            cpu += time.process_time() - t
            done += len(deals) * len(cands)
        out["rollouts"][policy] = round(done / max(cpu, 1e-9), 1)
    return out


def search_latency(seed: int, decisions: int) -> dict[str, float]:
    """CPU milliseconds per searched decision of the search bot at its default budget with
    no clock (p50, p95), on ``decisions`` endgame decisions: what its 0.8 s clock would cut
    on a loaded machine, measured without the load."""
    ds = search_decisions(decisions, seed)
    bot = SearchBot(time_limit=None)
    times = []
    for i, d in enumerate(ds):
        t = time.process_time()
        bot.choose(d, random.Random(i))
        times.append((time.process_time() - t) * 1000)
    times.sort()
    return {"decisions": len(times), "p50": round(times[len(times) // 2], 1),
            "p95": round(times[min(len(times) - 1, int(len(times) * 0.95))], 1)}


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


def figures(rules: Ruleset, hands: int, core_hands: int, seed: int,
            search: int = SEARCH_DECISIONS) -> dict[str, Any]:
    """This process's figures: full random hands through the public API (validation on),
    random play phases through the play core, and (on ``search`` endgame decisions, 0:
    none) search-bot rollouts, each per CPU-second."""
    t = time.process_time()
    play_random_hands(rules, hands, seed)
    api = _per_cpu_second(hands, t)
    t = time.process_time()
    batch.simulate(core_hands, seed)
    core = _per_cpu_second(core_hands, t)
    t = time.process_time()
    batch.simulate(core_hands, seed, rules=preset("classic-2"))
    core_classic = _per_cpu_second(core_hands, t)
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
    out: dict[str, Any] = {
        "engine_compiled": _compiled(match_module),
        "core": active_core(),
        "api_hands_per_cpu_second": api,
        "core_play_phases_per_cpu_second": core,  # 打滚子
        "core_classic2_play_phases_per_cpu_second": core_classic,
        "core_outcome_bytes_kept": round(kept_bytes),
        "match_clone_us": round(match_clone, 2),
        "core_clone_us": round(core_clone, 2),
        # A live match's memory per finished hand (its events, packed; its results).
        "match_bytes_per_hand": per_hand,
        "match_hands_measured": measured,
    }
    if search:  # policy core (the default) and rule
        out["search_rollouts_per_cpu_second"] = search_rollouts(seed, search)
        # p95 wants more decisions than the rollout figures (default 8: 40)
        out["search_decision_cpu_ms"] = search_latency(seed, 5 * search)
    return out


def _child_figures(env: dict[str, str], rules: str, hands: int, core_hands: int, seed: int,
                   search: int) -> dict[str, Any]:
    """:func:`figures` in a child process with ``env`` (one process imports one build)."""
    out = subprocess.run(
        [sys.executable, "-m", "gunzi.perf", rules, str(hands), str(core_hands), str(seed),
         str(search)],
        check=True, capture_output=True, text=True, env=env).stdout
    data: dict[str, Any] = json.loads(out)
    return data


def _builds(rules: str, hands: int, core_hands: int, seed: int, search: int
            ) -> dict[str, dict[str, Any]]:
    """Figures of each build this checkout has: ``pure`` (everything from source),
    ``active`` (this process, when its core is compiled: ``build/core``, engine from
    source, as the hall runs) and ``compiled`` (``make fast``: engine and core compiled)."""
    args = (rules, hands, core_hands, seed, search)
    builds: dict[str, dict[str, Any]] = {}
    here = figures(preset(rules), hands, core_hands, seed, search)
    plain = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if active_core() == "pure":
        builds["pure"] = here
    else:
        builds["active"] = here
        builds["pure"] = _child_figures({**plain, "GUNZI_CORE": "pure"}, *args)
    fast_built = (any((FAST / "gunzi" / "core").glob("gunzi_play*.so"))
                  and any((FAST / "gunzi" / "core").glob("classic_play*.so")))
    if fast_built and not here["engine_compiled"]:
        builds["compiled"] = _child_figures({**plain, "PYTHONPATH": str(FAST)}, *args)
    return builds


def core_simulate(rules: Ruleset, hands: int, seed: int, workers: int,
                  policy: str = "random", log: bool = False
                  ) -> tuple[dict[str, Any], list[batch.Outcome]]:
    """The figures `gunzi simulate --workers K` prints (play phases on the core, random
    deals), and the outcomes (with their records when ``log``)."""
    t = time.perf_counter()
    outcomes = batch.simulate(hands, seed, workers, rules=rules, policy=policy, log=log)
    seconds = time.perf_counter() - t
    n = len(outcomes) or 1
    out: dict[str, Any] = {
        "rules": rules.name,
        "what": f"play phases on the play core, {policy} players (random deal, level, "
                "trump, leader)",
        "core": active_core(),
        "policy": policy,
        "seed": seed,
        "workers": workers,
        "hands": len(outcomes),
        "seconds": round(seconds, 3),
        "hands_per_second": round(len(outcomes) / seconds, 1) if seconds else None,
        "mean_points": [round(sum(o.points[t] for o in outcomes) / n, 2) for t in (0, 1)],
        "last_trick_team0_rate": round(sum(1 for o in outcomes if o.last_winner % 2 == 0) / n,
                                       4),
    }
    if not variant_of(rules).same_card_leads:  # classic: throws and the kitty multiplier
        base = preset(rules.name).options()
        out["overrides"] = {k: v for k, v in rules.options().items() if base.get(k) != v}
        out["failed_throws"] = sum(o.failed_throws for o in outcomes)
        out["mean_kitty_multiplier"] = round(sum(o.kitty_multiplier for o in outcomes) / n, 3)
    return out, outcomes


def report(rules: Ruleset, hands: int, core_hands: int, seed: int,
           search: int = SEARCH_DECISIONS) -> dict[str, Any]:
    """Pure and compiled figures between two yardstick runs, with their ratios to it, and
    which core this process runs (``active_core``)."""
    before = yardstick()
    builds = _builds(rules.name, hands, core_hands, seed, search)
    after = yardstick()
    out: dict[str, Any] = {"active_core": active_core(), "yardstick": [before, after]}
    if before and after:
        c = (before + after) / 2
        for fig in builds.values():
            fig["api_ratio"] = round(fig["api_hands_per_cpu_second"] / c, 4)
            fig["core_ratio"] = round(fig["core_play_phases_per_cpu_second"] / c, 4)
            for what, per in fig.get("search_rollouts_per_cpu_second", {}).items():
                fig.setdefault("search_rollout_ratio", {})[what] = {
                    k: round(v / c, 4) for k, v in per.items()}
            fig["core_classic2_ratio"] = round(
                fig["core_classic2_play_phases_per_cpu_second"] / c, 4)
    out.update(builds)
    return out


def learned_batch(rules: Ruleset, hands: int = 12, sizes: tuple[int, ...] = (8, 32, 128),
                  seed: int = 1, rounds: int = 5, weights: Path | None = None
                  ) -> dict[str, Any]:
    """Decisions per CPU-second of the ``learned`` bot one decision at a time (the yardstick,
    measured in the same run) and in batches of ``sizes`` (``decide_many``, as the hall
    batches the moves of many tables), over every decision of ``hands`` hands that rule
    bots play from ``seed``; each figure is the best of ``rounds``. ``same`` says whether
    every batch chose what the one-at-a-time bot chose. ``weights``: another exported net
    than the shipped one."""
    from gunzi.bots.base import observe
    from gunzi.bots.learned import LearnedBot
    from gunzi.bots.registry import make_bot

    rng = random.Random(seed)
    players = [make_bot("rule") for _ in range(4)]
    decisions = []
    played = 0
    while played < hands:  # matches from seed, seed + 1, ... until that many hands
        m = Match(rules, random.Random(seed + played))
        while played < hands and not m.is_over:
            seat = m.to_act
            assert seat is not None
            d = observe(m, seat)
            decisions.append(d)
            done = len(m.results)
            m.apply(players[seat].choose(d, rng))
            if len(m.results) > done:
                played += 1
                for p in players:
                    p.new_hand()
    bot = LearnedBot() if weights is None else LearnedBot(weights)
    alone = [bot.decide(d) for d in decisions]  # also warms the caches up

    def once(size: int) -> tuple[float, bool]:
        start = time.process_time()
        if size == 1:
            got = [bot.decide(d) for d in decisions]
        else:
            got = []
            for i in range(0, len(decisions), size):
                got += bot.decide_many(decisions[i:i + size])
        return _per_cpu_second(len(decisions), start), got == alone

    everything = (1, *(s for s in sizes if s != 1))
    best = dict.fromkeys(everything, 0.0)
    same = dict.fromkeys(everything, True)
    for _ in range(rounds):  # interleaved, so the machine's load falls on every size alike
        for size in everything:
            per_second, agrees = once(size)
            best[size] = max(best[size], per_second)
            same[size] = same[size] and agrees
    single = best[1]
    out: dict[str, Any] = {"rules": rules.name, "decisions": len(decisions),
                           "hidden": int(bot.policy.meta["hidden"]),
                           "blas_threads": os.environ.get("OPENBLAS_NUM_THREADS", "default"),
                           "single_per_cpu_second": single, "batched": {
                               str(size): {"per_cpu_second": best[size],
                                           "ratio": round(best[size] / single, 2),
                                           "same": same[size]}
                               for size in everything[1:]}}
    return out


if __name__ == "__main__":  # the child process of _child_figures
    name, n, nc, s, k = sys.argv[1], *map(int, sys.argv[2:6])
    print(json.dumps(figures(preset(name), n, nc, s, k)))
