"""`gunzi play` options, through a local Typer app (the lead wires the real CLI)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from gunzi.engine.rules import preset
from gunzi.tui import command
from gunzi.tui.session import Session, parse_bots


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch) -> tuple[typer.Typer, dict[str, Any]]:
    seen: dict[str, Any] = {}

    def fake_run(session: Session, *, lang: str, delay: float) -> Path | None:
        seen.update(session=session, lang=lang, delay=delay)
        return session.save()

    monkeypatch.setattr(command, "run_app", fake_run)
    app = typer.Typer()
    command.register(app)

    @app.command()
    def other() -> None:  # a second command, so `play` is a subcommand as in gunzi's CLI
        """Placeholder."""

    return app, seen


def test_play_options(cli: tuple[typer.Typer, dict[str, Any]], tmp_path: Path) -> None:
    app, seen = cli
    record = tmp_path / "r.jsonl"
    result = CliRunner().invoke(app, ["play", "--rules", "classic-2", "--bots", "random",
                                      "--seed", "5", "--lang", "en", "--delay", "0",
                                      "--record", str(record), "-o", "kitty_multiplier=linear"])
    assert result.exit_code == 0, result.output
    session: Session = seen["session"]
    assert session.rules.name == "classic-2" and session.rules.kitty_multiplier == "linear"
    assert session.bot_names == ["random"] * 3 and session.seed == 5
    assert seen["lang"] == "en" and seen["delay"] == 0
    assert f"record: {record}" in result.output and record.exists()
    # --resume continues that file (and saves back to it).
    result = CliRunner().invoke(app, ["play", "--resume", str(record)])
    assert result.exit_code == 0, result.output
    again: Session = seen["session"]
    assert again.rules.name == "classic-2" and again.seed == 5
    assert again.record_path == record
    assert "note:" not in result.stderr
    # Rules, rule options and the seed come from the file: saying otherwise is noted, once.
    result = CliRunner().invoke(app, ["play", "--resume", str(record), "--seed", "9",
                                      "-r", "gunzi", "--lang", "en"])
    assert result.exit_code == 0, result.output
    assert result.stderr.strip() == (f"note: --rules, --seed ignored: the rules and the seed "
                                      f"come from {record}")
    assert seen["session"].seed == 5 and seen["session"].rules.name == "classic-2"
    assert f"continue with: gunzi play --resume {record}" in result.stdout


def test_finished_match_is_not_to_be_continued(cli: tuple[typer.Typer, dict[str, Any]],
                                              tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    app, _ = cli
    record = tmp_path / "done.jsonl"
    monkeypatch.setattr(Session, "is_over", property(lambda self: True))
    result = CliRunner().invoke(app, ["play", "--record", str(record), "--bots", "random"])
    assert result.exit_code == 0, result.output
    assert "--resume" not in result.output
    assert f"check it with: gunzi replay {record}" in result.output


def test_play_rejects_bad_options(cli: tuple[typer.Typer, dict[str, Any]],
                                  tmp_path: Path) -> None:
    app, _ = cli
    runner = CliRunner()
    bad = [
        ["play", "--lang", "fr"],
        ["play", "--bots", "rule,random"],
        ["play", "--bots", "nobody"],
        ["play", "--rules", "bridge"],
        ["play", "--resume", str(tmp_path / "missing.jsonl")],
        ["play", "--delay", "-1"],
    ]
    for args in bad:
        result = runner.invoke(app, args)
        assert result.exit_code == 2, (args, result.output)
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"type": "header"}\n', encoding="utf-8")
    result = runner.invoke(app, ["play", "--resume", str(broken)])
    assert result.exit_code == 2 and "header" in result.output


def test_parse_bots() -> None:
    assert parse_bots(None) == ["rule", "rule", "rule"]
    assert parse_bots("random") == ["random"] * 3
    assert parse_bots("rule, random ,rule") == ["rule", "random", "rule"]


def test_rule_bot_falls_back_to_random(monkeypatch: pytest.MonkeyPatch) -> None:
    from gunzi.bots import registry

    monkeypatch.setitem(registry.BOTS, "rule", "gunzi.bots.not_there:RuleBot")
    session = Session(preset("gunzi"), bots=["rule"] * 3, seed=1)
    assert session.bot_names == ["random"] * 3
    assert session.notes == ["fallback:rule"]
