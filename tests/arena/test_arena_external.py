"""External bots over the JSON-lines protocol: good, slow, malformed, illegal, crashing."""

from __future__ import annotations

import json
import shlex
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from gunzi.arena.bank import generated_bank
from gunzi.arena.external import BotStartError, ExternalBot
from gunzi.arena.runner import ArenaConfig, parse_bots, run_arena
from gunzi.bots.base import observe
from gunzi.engine import actions as A
from gunzi.engine.match import Match
from gunzi.engine.rules import preset

PRELUDE = """
import json, sys, time
n = 0
def send(obj):
    sys.stdout.write(json.dumps(obj) + "\\n")
    sys.stdout.flush()
def good(msg):
    return {"id": msg["id"], "action": (msg["actions"] or [msg.get("sample")])[0]}
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "bye":
        break
    if msg["type"] != "decision":
        continue
    n += 1
"""

BOTS = {
    "slow": "if n == 3:\n    time.sleep(0.6)\nsend(good(msg))",
    "malformed": (
        "k = n % 3\n"
        "if k == 0:\n    sys.stdout.write('this is not json\\n'); sys.stdout.flush()\n"
        "elif k == 1:\n    send({'id': msg['id'], 'no_action': True})\n"
        "else:\n    send({'id': msg['id'], 'action': {'type': 'bogus', 'seat': msg['seat']}})"
    ),
    "illegal": "send({'action': {'type': 'pass', 'seat': msg['seat']}})",
    "crash": "if n == 3:\n    sys.exit(3)\nsend(good(msg))",
}


def script(tmp_path: Path, name: str) -> str:
    path = tmp_path / f"{name}_bot.py"
    path.write_text(PRELUDE + textwrap.indent(BOTS[name], "    ") + "\n", encoding="utf-8")
    return f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(path))}"


def arena(bots: str, deals: int = 1, rules: str = "gunzi", time_limit: float = 2.0,
          seed: int = 1) -> dict[str, Any]:
    ruleset = preset(rules)
    cfg = ArenaConfig(rules=ruleset, bots=parse_bots(bots), deals=deals, seed=seed,
                      bank=generated_bank(ruleset, deals, seed), time_limit=time_limit)
    return run_arena(cfg)


@pytest.mark.parametrize("rules", ["gunzi", "classic-2"])
def test_good_external_bot(rules: str) -> None:
    cmd = f"cmd:{shlex.quote(sys.executable)} -m gunzi.arena.example_bot 5"
    report = arena(f"{cmd},random", deals=2, rules=rules)
    assert report["pairs"] == 2
    assert report["errors"]["A"]["total"] == 0 and report["fallbacks"]["A"] == 0
    assert report["decisions"]["A"] > 50
    assert report["latency_ms"]["A"]["decisions"] == report["decisions"]["A"]
    assert report["bots"]["A"] == cmd


def test_slow_bot_times_out_and_recovers(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                         ) -> None:
    report = arena(f"random,{script(tmp_path, 'slow')}", time_limit=0.3)
    errors = report["errors"]["B"]
    assert errors["timeout"] >= 1
    # Late answers are recognised and dropped: nothing is taken for a later decision.
    assert errors["illegal"] == errors["malformed"] == errors["crash"] == 0
    assert report["fallbacks"]["B"] == errors["total"] <= 6
    assert report["errors"]["A"]["total"] == report["fallbacks"]["A"] == 0
    assert report["latency_ms"]["B"]["max"] >= 300
    err = capsys.readouterr().err
    assert "bot B" in err and "timeout" in err and "fallback" in err


def test_malformed_answers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = arena(f"{script(tmp_path, 'malformed')},random")
    errors = report["errors"]["A"]
    assert errors["malformed"] == report["decisions"]["A"] == report["fallbacks"]["A"]
    assert errors["timeout"] == errors["illegal"] == 0
    err = capsys.readouterr().err
    assert "not a JSON object" in err or "is not JSON" in err or "not json" in err
    assert "no 'action' field" in err and "unknown action type 'bogus'" in err


def test_illegal_answers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = arena(f"{script(tmp_path, 'illegal')},random")
    errors = report["errors"]["A"]
    # Passing is legal when asked to declare or to bury jokers, illegal when playing.
    assert 0 < errors["illegal"] == report["fallbacks"]["A"] < report["decisions"]["A"]
    assert errors["malformed"] == errors["timeout"] == 0
    assert "illegal action" in capsys.readouterr().err


def test_crashing_bot_is_restarted_next_hand(tmp_path: Path) -> None:
    report = arena(f"{script(tmp_path, 'crash')},random", deals=2)
    errors = report["errors"]["A"]
    assert errors["crash"] > 0 and errors["total"] == report["fallbacks"]["A"]
    assert errors["malformed"] == errors["illegal"] == 0
    # Each new hand restarts the process, which again answers its first two decisions.
    assert report["decisions"]["A"] - errors["total"] >= 2 * 4


def test_protocol_messages(tmp_path: Path) -> None:
    """The lines the arena writes: new_hand, decision (with actions or sample), bye."""
    log = tmp_path / "seen.jsonl"
    code = PRELUDE.replace("    msg = json.loads(line)\n",
                           f"    msg = json.loads(line)\n    open({str(log)!r}, 'a')"
                           ".write(line)\n") + "    send(good(msg))\n"
    path = tmp_path / "echo_bot.py"
    path.write_text(code, encoding="utf-8")
    bot = ExternalBot([sys.executable, str(path)], time_limit=2.0)
    bot.seat = 0
    rules = preset("gunzi")
    import random

    match = Match(rules, random.Random(1), auto_deal=False, levels=(3, 3), dealer=0)
    match.apply(A.deal(42))
    bot.new_hand()
    rng = random.Random(0)
    seen_kinds = set()
    while not match.results:
        seat = match.to_act
        assert seat is not None
        decision = observe(match, seat)
        action = bot.choose(decision, rng) if seat == 0 else decision.sample(rng)
        seen_kinds.add(decision.kind.value)
        match.apply(action)
    bot.close()
    lines = [json.loads(x) for x in log.read_text().splitlines()]
    assert lines[0] == {"type": "new_hand", "protocol": 1, "seat": 0}
    decisions = [x for x in lines if x["type"] == "decision"]
    assert lines[-1] == {"type": "bye"}
    first = decisions[0]
    assert set(first) >= {"type", "id", "seat", "kind", "view", "actions", "count",
                          "time_limit"}
    assert [d["id"] for d in decisions] == list(range(1, len(decisions) + 1))
    assert all(d["seat"] == 0 and d["view"]["seat"] == 0 for d in decisions)
    for d in decisions:
        if d["actions"] is None:
            assert d["kind"] in ("bury", "return", "play") and "sample" in d
            if d["kind"] == "bury":
                assert d["count"] == rules.kitty_size
        else:
            assert all(A.from_dict(a).seat == 0 for a in d["actions"])


def test_a_bot_that_never_works_stops_the_run(tmp_path: Path) -> None:
    with pytest.raises(BotStartError, match="cannot start"):
        arena("cmd:/nonexistent/bot --flag,random")
    broken = tmp_path / "broken.py"
    broken.write_text("raise SystemExit(5)\n", encoding="utf-8")
    with pytest.raises(BotStartError, match="code 5 before answering"):
        arena(f"random,cmd:{shlex.quote(sys.executable)} {shlex.quote(str(broken))}")


def test_external_bot_in_worker_processes() -> None:
    cmd = f"cmd:{shlex.quote(sys.executable)} -m gunzi.arena.example_bot"
    ruleset = preset("gunzi")
    cfg = ArenaConfig(rules=ruleset, bots=parse_bots(f"{cmd},random"), deals=2, seed=1,
                      bank=generated_bank(ruleset, 2, 1), workers=2)
    report = run_arena(cfg)
    assert report["pairs"] == 2 and report["errors"]["A"]["total"] == 0
