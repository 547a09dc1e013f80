"""An example external bot for the arena: plays a random listed action.

Run it in the arena with ``gunzi arena --bots 'cmd:python -m gunzi.arena.example_bot',random``.
It only uses the standard library and the JSON-lines protocol of docs/arena.md, so it
is a template for a bot written in any language:

* read one JSON object per line from stdin;
* ``new_hand``: forget the last hand; ``bye`` (or end of input): exit;
* ``decision``: answer one line ``{"id": ..., "action": {...}}`` on stdout, flushed.

When ``actions`` is null (bury / return / classic plays: too many to list) the bot
plays the ``sample`` the arena sends along (one random legal action).
"""

from __future__ import annotations

import json
import random
import sys
from typing import Any


def answer(message: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    actions = message.get("actions")
    action = rng.choice(actions) if actions else message["sample"]
    return {"id": message.get("id"), "action": action}


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    rng = random.Random(int(args[0]) if args else 0)  # noqa: S311 - a game bot, not crypto
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        kind = message.get("type")
        if kind == "bye":
            break
        if kind == "decision":
            sys.stdout.write(json.dumps(answer(message, rng)) + "\n")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
