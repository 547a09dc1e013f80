"""Regenerate the golden records and their expected replay output. Not run by the tests.

Usage (from the repository root)::

    .venv/bin/python tests/golden/regenerate.py

For each entry of :data:`GOLDEN` it plays a match with seeded random players (the match's
generator ``random.Random(seed)``, the players' ``random.Random(seed + 1)``, every decision
``legal_actions(seat).sample(players)``) until the given number of hands is over, writes
``<name>.jsonl`` (``records.header`` + ``records.finished_events``), then runs
``gunzi replay <name>.jsonl --json`` and stores its output under the file name in
``expected.json``.

tests/test_golden.py replays the stored files and compares with ``expected.json``, so any
change of the rules that alters an outcome fails it. Regenerate only after a deliberate
rules change, and review the diff of ``expected.json`` (and of the records) before
committing it.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from gunzi.cli import app
from gunzi.engine import records
from gunzi.engine.match import Match
from gunzi.engine.rules import preset

HERE = Path(__file__).resolve().parent

# name -> (preset, rule overrides, match seed, hands)
GOLDEN: dict[str, tuple[str, dict[str, Any], int, int]] = {
    "gunzi-seed11": ("gunzi", {}, 11, 2),
    "classic2-seed12": ("classic-2", {}, 12, 1),
    "gunzi-live-two-seed13": ("gunzi", {"follow": "live", "tribute_rule": "two"}, 13, 2),
    # cancelled tribute, 干锅, a joker announcement, the round ends with three BJ in the kitty
    "gunzi-seed179": ("gunzi", {}, 179, 4),
    # reversed tribute, 干锅, joker announcements and burials by other seats
    "gunzi-seed228": ("gunzi", {}, 228, 4),
    "classic1-seed14": ("classic-1", {}, 14, 3),  # a failed throw
    "classic3-seed15": ("classic-3", {}, 15, 1),  # failed throws, 'linear' kitty multiplier
}


def play(name: str, overrides: dict[str, Any], seed: int, hands: int) -> Match:
    """The golden match: seeded match generator, seeded random players."""
    match = Match(preset(name, **overrides), random.Random(seed))
    players = random.Random(seed + 1)
    while not match.is_over and len(match.results) < hands:
        seat = match.to_act
        assert seat is not None
        match.apply(match.legal_actions(seat).sample(players))
    if len(match.results) != hands:
        raise SystemExit(f"{name} seed {seed}: the match ended after {len(match.results)} hands")
    return match


def replay_json(path: Path) -> Any:
    result = CliRunner().invoke(app, ["replay", str(path), "--json"])
    if result.exit_code != 0:
        raise SystemExit(f"gunzi replay {path} failed: {result.output}")
    return json.loads(result.output)


def main() -> None:
    expected: dict[str, Any] = {}
    for stem, (name, overrides, seed, hands) in GOLDEN.items():
        match = play(name, overrides, seed, hands)
        path = HERE / f"{stem}.jsonl"
        head = records.header(match, seed=seed, extra={"golden": {
            "preset": name, "overrides": overrides, "hands": hands,
            "players": "random.Random(seed + 1), legal_actions(seat).sample(players)"}})
        records.write(path, head, records.finished_events(match))
        expected[path.name] = replay_json(path)
        print(f"wrote {path.name}: {hands} hand(s), {len(match.events)} events", file=sys.stderr)
    out = HERE / "expected.json"
    out.write_text(json.dumps(expected, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {out.name}", file=sys.stderr)


if __name__ == "__main__":
    main()
