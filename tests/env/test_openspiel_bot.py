"""OpenSpiel's bots as hall contestants: legal play through the adapter, and the arena's
``openspiel:ismcts`` name."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import textwrap

import pytest
from typer.testing import CliRunner

from gunzi.arena.runner import parse_bot
from gunzi.bots.base import RandomBot, play
from gunzi.cli import app
from gunzi.engine import rules as R
from gunzi.engine.match import Match
from gunzi.env.openspiel_bot import OpenSpielBot


def test_the_arena_reads_an_openspiel_algorithm_name() -> None:
    spec = parse_bot("openspiel:ismcts:simulations=3", "A")
    assert spec.name == "openspiel"
    assert dict(spec.params) == {"algorithm": "ismcts", "simulations": 3}
    bot = spec.make(1.0)
    assert isinstance(bot, OpenSpielBot) and bot.algorithm == "ismcts"
    with pytest.raises(ValueError, match="unknown OpenSpiel algorithm 'alphazero'"):
        OpenSpielBot("alphazero")


@pytest.mark.parametrize(("preset", "algorithm"), [("classic-1", "ismcts"),
                                                   ("classic-1", "mcts"),
                                                   ("gunzi", "ismcts")])
def test_openspiel_bots_play_legal_hands(preset: str, algorithm: str) -> None:
    match = Match(R.preset(preset), random.Random(4))
    bots = [OpenSpielBot(algorithm, simulations=3), RandomBot(),
            OpenSpielBot(algorithm, simulations=3), RandomBot()]
    play(match, bots, random.Random(4), hands=1)  # validates every action it applies
    assert len(match.results) == 1
    tricks = sum(1 for e in match.events if e.type == "trick")
    plays = [e for e in match.events if e.type == "play" and e.public["seat"] in (0, 2)]
    assert tricks >= 4 and len(plays) == 2 * tricks  # the OpenSpiel seats played every trick


def test_gunzi_arena_runs_openspiel_ismcts_by_duplicate() -> None:
    result = CliRunner().invoke(app, ["arena", "--bots", "openspiel:ismcts:simulations=2,rule",
                                      "--rules", "classic-1", "--deals", "1", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout[result.stdout.index("{"):])
    assert report["bots"]["A"] == "openspiel:ismcts:simulations=2"
    assert report["pairs"] == 1 and report["hands"] == 2


@pytest.mark.parametrize(("spec", "why"), [
    ("openspiel:bogus", "unknown OpenSpiel algorithm 'bogus'; choose one of ismcts, mcts, "
                        "random"),
    ("openspiel:ismcts:simulations=0", "simulations must be at least 1, not 0"),
    ("openspiel:ismcts:simulations=many", "simulations must be an integer, not 'many'"),
])
def test_gunzi_arena_refuses_a_bad_openspiel_spec_in_one_line(spec: str, why: str) -> None:
    result = CliRunner().invoke(app, ["arena", "--bots", f"{spec},rule", "--rules",
                                      "classic-1", "--deals", "2"])
    assert result.exit_code == 2, result.output
    assert result.stderr.splitlines() == [f"bot {spec!r}: {why}"]


def test_every_reader_of_specs_knows_the_openspiel_bot_without_the_cli() -> None:
    """gunzi.env registers ``openspiel`` (not only the command line): the single-seat
    environment reads the spec in a fresh interpreter that never imports gunzi.cli, and
    the arena's spawned workers, which import neither, get the parent's registry."""
    script = textwrap.dedent("""
        import sys
        import numpy as np
        from gunzi.env.single import SingleSeatEnv
        env = SingleSeatEnv("classic-1", seat=0, hands=1,
                            bots=("openspiel:ismcts:simulations=2", "rule", "rule"))
        obs, _ = env.reset(seed=1)
        rng = np.random.default_rng(1)
        done = False
        while not done:
            mask = obs["action_mask"]
            obs, _, done, _, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
        assert type(env.bots[1]).__name__ == "OpenSpielBot"
        assert len(env.cards.match.results) == 1
        from gunzi.arena.bank import generated_bank
        from gunzi.arena.runner import ArenaConfig, parse_bots, run_pairs
        from gunzi.engine.rules import preset
        rules = preset("classic-1")
        run = run_pairs(ArenaConfig(rules=rules, bots=parse_bots("openspiel:random,rule"),
                                    bank=generated_bank(rules, 1, 0), deals=1, workers=2))
        assert len(run.pairs) == 1 and run.pairs[0].fallbacks["A"] == 0
        assert "gunzi.cli" not in sys.modules
        print("ok")
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]
