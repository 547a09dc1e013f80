"""The terminal offers the learned bot (``gunzi play --bots learned``) and, at a game its
weights were not trained on, says so on the seats and in the status line."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from gunzi.bots.learned import DMC_WEIGHTS, LearnedBot
from gunzi.bots.rule import RuleBot
from gunzi.bots.search import SearchBot
from gunzi.engine.errors import GunziError
from gunzi.engine.rules import preset
from gunzi.tui import command
from gunzi.tui.app import GunziApp
from gunzi.tui.i18n import t
from gunzi.tui.session import Session

from .driver import SIZE, run, widget_lines


def test_play_lists_and_builds_the_learned_bot(tmp_path: Path) -> None:
    app = typer.Typer()
    command.register(app)

    @app.command()
    def other() -> None:
        """Placeholder, so `play` is a subcommand as in gunzi's CLI."""

    help_text = CliRunner().invoke(app, ["play", "--help"], terminal_width=200).output
    assert "learned" in help_text
    session = command.build_session(rules="gunzi", bots="learned,rule,learned",
                                    record=tmp_path / "g.jsonl")
    assert isinstance(session.bots[1], LearnedBot) and isinstance(session.bots[3], LearnedBot)
    assert session.bot_names == ["learned", "rule", "learned"] and session.untrained == {}
    classic = command.build_session(rules="classic-1", bots="learned",
                                    record=tmp_path / "c.jsonl")
    assert classic.untrained == {"learned": "gunzi"}


def test_play_takes_bot_specs_with_parameters_as_the_arena(tmp_path: Path) -> None:
    """``gunzi play --bots learned:weights=g.npz,rule,learned``: the arena's specs."""
    spec = f"learned:weights={DMC_WEIGHTS}"
    session = command.build_session(rules="gunzi", bots=f"{spec},rule,search:rollouts=5",
                                    record=tmp_path / "g.jsonl")
    learned, rule, search = session.bots[1:]
    assert isinstance(learned, LearnedBot) and learned.policy is LearnedBot(DMC_WEIGHTS).policy
    assert isinstance(rule, RuleBot) and not isinstance(rule, LearnedBot)
    assert isinstance(search, SearchBot) and search.rollouts == 5
    assert session.bot_names == [spec, "rule", "search:rollouts=5"]
    with pytest.raises(GunziError, match="key=value"):
        command.build_session(bots="search:rollouts=5:fast", record=tmp_path / "x.jsonl")
    with pytest.raises(GunziError, match="unexpected parameter 'depth'"):
        command.build_session(bots="rule:depth=3", record=tmp_path / "y.jsonl")


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_screen_says_the_learned_bot_was_trained_on_gunzi(tmp_path: Path,
                                                             lang: str) -> None:
    session = Session(preset("classic-1"), bots=["learned"] * 3, seed=2,
                      record_path=tmp_path / "c.jsonl")
    app = GunziApp(session, lang=lang, delay=60)
    game = t(lang, "game.gunzi")

    async def body() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            status = " ".join(widget_lines(app, "status"))
            want = t(lang, "status.bot_untrained", name="learned", game=game)
            assert " ".join(want.split()) in " ".join(status.split())
            table = " ".join(" ".join(widget_lines(app, "table")).split())
            assert t(lang, "bot.untrained", name="learned", game=game) in table

    run(body)
