"""Where a full random hand's CPU time goes when its play phase runs on the play core.

The core's figures (``gunzi bench``) are for play phases only; a full hand also draws,
declares and buries in the engine. For N seeded hands of a preset this plays each hand
to its play phase through the public API (timed: *pre-play*), then plays that phase
once on the core (``classic_play.play_random`` or ``gunzi_play.play_random``, timed:
*core play*) and once through the API (timed: *engine play*, which includes the hand's
scoring), so the full-hand figure the core would give is pre-play + core play (+ the
hand-end scoring, not counted). Prints one JSON line; CPU time, so quote it against
``build/yardstick`` run alongside.

Usage: python scripts/core_hand_share.py [RULES] [HANDS]
       (PYTHONPATH=build/fast for the compiled engine and core)
"""

from __future__ import annotations

import json
import random
import sys
import time

from gunzi.core import classic_play, gunzi_play
from gunzi.engine.classic_policy import policy_of
from gunzi.engine.match import Match, Phase
from gunzi.engine.rules import preset


def main(name: str, hands: int) -> dict[str, object]:
    rules = preset(name)
    pol = policy_of(rules)
    rng = random.Random(1)  # noqa: S311 (seeded on purpose: the same hands every run)
    pre = core = engine = 0.0
    done = 0
    seed = 0
    while done < hands:
        m = Match(rules, random.Random(seed))  # noqa: S311
        seed += 1
        while done < hands:
            t0 = time.process_time()
            while m.phase is not Phase.PLAY and not m.is_over:
                m.apply(m.legal_actions(m.to_act).sample(rng))
            if m.is_over:
                break
            t1 = time.process_time()
            players = random.Random(seed)  # noqa: S311
            if rules.is_gunzi:
                g = gunzi_play.start(m.hands, m.order, m.leader, m.live)
                gunzi_play.play_random(g, players)
            else:
                c = classic_play.start(m.hands, m.order, m.leader, pol)
                classic_play.play_random(c, players)
            t2 = time.process_time()
            n = len(m.results)
            while len(m.results) == n:
                m.apply(m.legal_actions(m.to_act).sample(rng))
            t3 = time.process_time()
            pre += t1 - t0
            core += t2 - t1
            engine += t3 - t2
            done += 1
    return {
        "rules": name,
        "hands": done,
        "core_build": "compiled" if not classic_play.__file__.endswith(".py") else "pure",
        "pre_play_ms": round(pre / done * 1e3, 3),
        "core_play_ms": round(core / done * 1e3, 3),
        "engine_play_ms": round(engine / done * 1e3, 3),
        "hands_per_cpu_second_with_core_play": round(done / (pre + core), 1),
    }


if __name__ == "__main__":
    args = sys.argv[1:]
    print(json.dumps(main(args[0] if args else "classic-2", int(args[1]) if len(args) > 1
                          else 300)))
