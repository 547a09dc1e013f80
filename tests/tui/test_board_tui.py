"""步步为营 in the terminal, played headless with Textual's pilot."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gunzi.cli import app as cli_app
from gunzi.quoridor import records
from gunzi.quoridor.game import Move, QuoridorGame, Wall
from gunzi.quoridor.rules import preset
from gunzi.tui.board_app import BoardApp
from gunzi.tui.command import build_board

from .driver import run

SIZE = (100, 40)


def test_move_by_keys_wall_by_keys_and_bot_replies(tmp_path: Path) -> None:
    record = tmp_path / "q.jsonl"
    app = BoardApp(preset("quoridor-2"), ["rule"], seed=1, delay=0, record=record)

    async def body() -> None:
        async with app.run_test(size=SIZE) as pilot:
            g = app.game
            assert g.to_act == 0 and app.cursor == (1, 4)
            assert "步步为营" in str(app.title)
            await pilot.press("enter")  # e1 -> e2 (the cursor starts one square ahead)
            await pilot.pause()
            assert g.positions[0] == (1, 4)
            assert g.to_act == 0 and g.turns == 2  # the bot replied
            # an illegal move (two squares away) is refused with a message, nothing changes
            await pilot.press("up", "up", "enter")
            assert g.turns == 2 and "不行" in app.message
            # wall mode: the preview follows the cursor, r turns it, Enter places it
            await pilot.press("w", "r")
            preview = app.preview()
            assert preview is not None and preview.orientation == "v"
            await pilot.press("enter")
            await pilot.pause()
            assert Wall(0, preview.row, preview.col, "v") in g.walls
            assert g.walls_left[0] == 9 and g.turns == 4
            await pilot.press("l")
            assert app.lang == "en"
            await pilot.press("q")

    run(body)
    rep = records.replay(json.loads(line) for line in record.read_text().splitlines())
    assert rep.game.turns == 4 and len(rep.game.walls) >= 1


def test_click_moves_and_places_a_wall() -> None:
    app = BoardApp(preset("quoridor-4"), ["random"], seed=2, delay=0)

    async def body() -> None:
        async with app.run_test(size=SIZE) as pilot:
            g = app.game
            n = g.rules.board_size
            # square (1, 4) = e2 is at board cell x = 4*4 + 1, y = 2*(n-1-1); plus offsets
            await pilot.click("#board", offset=(2 + 3 + 4 * 4 + 1, 1 + 2 * (n - 2)))
            await pilot.pause()
            assert g.positions[0] == (1, 4) and g.to_act == 0 and g.turns == 4
            await pilot.press("w")
            # the groove above row 3 (index 2), under columns c and d: first click previews
            y = 1 + 2 * (n - 1 - 2) - 1
            await pilot.click("#board", offset=(2 + 3 + 4 * 2 + 1, y))
            assert app.preview() == Wall(0, 2, 2, "h")
            assert g.turns == 4
            await pilot.click("#board", offset=(2 + 3 + 4 * 2 + 1, y))
            await pilot.pause()
            assert Wall(0, 2, 2, "h") in g.walls and g.turns == 8

    run(body)


def test_build_board_and_cli_errors() -> None:
    rules, names = build_board("quoridor-4", ["jumps=true"], "search,rule")
    assert rules.players == 4 and rules.jumps and names == ["search", "rule"]
    res = CliRunner().invoke(cli_app, ["play", "--rules", "quoridor-2", "--bots", "nobody"])
    assert res.exit_code == 2 and "nobody" in res.output


async def _play(app: BoardApp, keys: list[str]) -> None:
    """Press ``keys`` (each followed by a pause so the bots reply), then q."""
    async with app.run_test(size=SIZE) as pilot:
        for key in keys:
            await pilot.press(key)
            await pilot.pause()
        await pilot.press("q")


def test_save_and_resume_goes_on_as_without_the_interruption(tmp_path: Path) -> None:
    """A 4-player game saved after two of the human's moves and resumed ends up, after the
    same further moves, exactly where the game played in one go ends up."""
    from gunzi.tui.board_save import load_board

    # step, step; then (keys that put the cursor on row 4 whatever it was) a wall, a step
    to_row_4 = ["down"] * 9 + ["up"] * 3
    moves = ["enter", "up", "enter", *to_row_4, "w", "enter", *to_row_4, "enter"]
    whole = tmp_path / "whole.jsonl"
    run(lambda: _play(BoardApp(preset("quoridor-4"), ["rule", "random", "rule"], seed=7,
                               delay=0, lang="en", record=whole), moves))
    part = tmp_path / "part.jsonl"
    first = BoardApp(preset("quoridor-4"), ["rule", "random", "rule"], seed=7, delay=0,
                     lang="en", record=part)
    run(lambda: _play(first, moves[:3]))
    stopped = first.game.key()
    assert first.game.turns == 8 and first.game.to_act == 0

    saved = load_board(part)
    assert saved.game.key() == stopped  # the same position, the human to move
    assert saved.bots == ["rule", "random", "rule"] and saved.seed == 7 and saved.lang == "en"
    again = BoardApp(saved.game.rules, saved.bots, seed=saved.seed, lang=saved.lang or "zh",
                     delay=0, record=part, game=saved.game, resumed_from=part)

    async def resume() -> None:
        async with again.run_test(size=SIZE) as pilot:
            assert again.message.startswith(f"Resumed from {part}")
            assert again.cursor == (3, 4)  # one square ahead of the pawn, as at the start
            for key in moves[3:]:
                await pilot.press(key)
                await pilot.pause()
            await pilot.press("q")

    run(resume)
    assert again.game.turns == 16 and len(again.game.walls) >= 1
    assert part.read_text(encoding="utf-8") == whole.read_text(encoding="utf-8")
    rep = records.replay(json.loads(line) for line in part.read_text().splitlines())
    assert rep.game.key() == again.game.key()


def test_play_resumes_a_board_game_and_names_the_right_command(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gunzi.tui import command

    ran: list[BoardApp] = []

    def fake_run(app: BoardApp) -> None:  # no terminal: a new game gets one move, then quits
        ran.append(app)
        if app.game.turns == 0:
            app.game.apply(Move(0, (1, 4)))
            app.save()

    monkeypatch.setattr(command, "run_board_app", fake_run)
    record = tmp_path / "q.jsonl"
    runner = CliRunner()
    res = runner.invoke(cli_app, ["play", "-r", "quoridor-2", "--bots", "random", "--seed", "4",
                                  "--record", str(record), "--lang", "en"])
    assert res.exit_code == 0, res.output
    assert f"continue with: gunzi play --resume {record}" in res.stdout
    assert "gunzi replay" not in res.stdout
    res = runner.invoke(cli_app, ["play", "--resume", str(record), "--seed", "9"])
    assert res.exit_code == 0, res.output
    app = ran[-1]
    assert app.game.turns == 1 and app.game.positions[0] == (1, 4)  # the saved move, not anew
    assert app.bot_names == ["you", "random"] and app.seed == 4 and app.lang == "en"
    assert app.record == record and "note: --seed ignored" in res.stderr
    # a finished game is checked, not continued
    monkeypatch.setattr(QuoridorGame, "is_over", property(lambda self: True))
    res = runner.invoke(cli_app, ["play", "--resume", str(record)])
    assert res.exit_code == 0 and f"check it with: gunzi replay {record}" in res.stdout
    assert "--resume" not in res.stdout
    # an unknown preset names every game's presets
    res = runner.invoke(cli_app, ["play", "-r", "quoridor-9"])
    assert res.exit_code == 2
    assert "gunzi, classic-1, classic-2, classic-3, quoridor-2, quoridor-4" in res.stderr


def test_a_failed_save_is_said_and_the_game_goes_on(tmp_path: Path) -> None:
    app = BoardApp(preset("quoridor-2"), ["random"], seed=1, delay=0,
                   record=tmp_path / "no-such-dir" / "q.jsonl")

    async def body() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("enter")
            await pilot.pause()
            assert app.game.turns == 2  # the move and the bot's reply were made
            assert app.message == "保存失败：No such file or directory"

    run(body)


def test_board_bots_think_off_the_ui_thread(tmp_path: Path) -> None:
    """With a move delay the board app, like the card app (one session layer), computes a
    bot's move on a worker thread; the reply lands and is saved with the game."""
    import asyncio
    import threading
    from typing import Any

    record = tmp_path / "q.jsonl"
    app = BoardApp(preset("quoridor-2"), ["rule"], seed=1, delay=0.01, record=record)
    threads: list[str] = []
    real = app.session.bot_action

    def spy() -> Any:
        threads.append(threading.current_thread().name)
        return real()

    app.session.bot_action = spy  # type: ignore[method-assign]

    async def body() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("enter")
            for _ in range(200):
                if app.game.turns == 2:
                    break
                await asyncio.sleep(0.02)
            assert app.game.turns == 2 and app.game.to_act == 0
            await pilot.press("q")

    run(body)
    assert threads and threading.main_thread().name not in threads
    rep = records.replay(json.loads(line) for line in record.read_text().splitlines())
    assert rep.game.key() == app.game.key()


def test_a_board_bot_that_fails_is_replaced_by_a_random_legal_move() -> None:
    """The session layer checks every bot answer: a broken bot is noted, the game goes on."""
    from gunzi.quoridor.game import Pass

    app = BoardApp(preset("quoridor-2"), ["rule"], seed=3, delay=0)
    session = app.session
    session.apply(Move(0, (1, 4)))
    session.choose = lambda seat, rng: Pass(seat)  # type: ignore[method-assign]
    session.run_bots()
    assert session.game.turns == 2 and session.game.to_act == 0
    assert session.bot_errors and session.bot_errors[0][0] == 1
