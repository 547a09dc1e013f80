"""Full random hands through the public API, for an instruction count under callgrind.

Instruction counts do not move with the shared machine's load, so two trees compare
exactly (docs/performance.md):

    PYTHONPATH=TREE/src valgrind --tool=callgrind --callgrind-out-file=/dev/null \
        .venv/bin/python scripts/api_instructions.py 30 gunzi

minus the same command with 0 hands (start-up and imports) is the cost of 30 hands.
"""

import random
import sys

from gunzi.engine.match import Match
from gunzi.engine.rules import preset

hands, rules = int(sys.argv[1]), preset(sys.argv[2] if len(sys.argv) > 2 else "gunzi")
rng = random.Random(7)  # noqa: S311 (seeded on purpose: the same hands in every tree)
for _ in range(hands):
    m = Match(rules, random.Random(rng.getrandbits(32)))  # noqa: S311
    start = len(m.results)
    while len(m.results) == start and m.to_act is not None:  # `over` or `is_over` by tree
        m.apply(m.legal_actions(m.to_act).sample(rng))
