"""A bot's CPU time per decision on the deals the arena plays (``gunzi bench-bot``).

The arena's latency is wall time, which swells when other jobs share the machine; this
times the same kind of play in thread CPU time: the bot at seats 0 and 2, rule bots at 1
and 3, one hand from each bank deal (mid-round, as :func:`gunzi.arena.bank.start_hand`
sets it up), every decision of the bot's seats timed. p95 is by linear interpolation, as
the arena's report (:func:`gunzi.arena.stats.percentile`), so the two compare directly.
"""

from __future__ import annotations

import random
import time
from typing import Any

from gunzi.arena.bank import Bank, start_hand
from gunzi.arena.stats import percentile
from gunzi.bots.base import observe
from gunzi.bots.registry import make_spec
from gunzi.bots.rule import RuleBot


def bot_latency(spec: str, bank: Bank, offset: int, deals: int, seed: int = 0
                ) -> dict[str, Any]:
    """CPU milliseconds per decision (p50, p95, mean, max) of the bot of ``spec`` over
    ``deals`` bank deals from ``offset``; ``seed`` seeds the bots' random choices."""
    mine = [make_spec(spec), make_spec(spec)]
    players = [mine[0], RuleBot(), mine[1], RuleBot()]
    rng = random.Random(seed)  # noqa: S311 - seeded, reproducible play on purpose
    times: list[float] = []
    for deal in bank.deals[offset:offset + deals]:
        m = start_hand(bank.rules, deal)
        for p in players:
            p.new_hand()
        while not m.results:
            seat = m.to_act
            assert seat is not None
            d = observe(m, seat)
            t = time.thread_time()
            action = players[seat].choose(d, rng)
            if seat % 2 == 0:
                times.append((time.thread_time() - t) * 1000)
            m.apply(action)
    if not times:
        raise ValueError("no deals to time: --offset is past the bank's end")
    return {"bot": spec, "rules": bank.rules.name, "bank": bank.id, "offset": offset,
            "deals": deals, "decisions": len(times),
            "p50_ms": round(percentile(times, 50) or 0.0, 3),
            "p95_ms": round(percentile(times, 95) or 0.0, 3),
            "mean_ms": round(sum(times) / len(times), 3), "max_ms": round(max(times), 3)}
