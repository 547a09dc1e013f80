"""步步为营 in the terminal, played headless with Textual's pilot."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from gunzi.cli import app as cli_app
from gunzi.quoridor import records
from gunzi.quoridor.game import Wall
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
            assert g.to_move == 0 and app.cursor == (1, 4)
            assert "步步为营" in str(app.title)
            await pilot.press("enter")  # e1 -> e2 (the cursor starts one square ahead)
            await pilot.pause()
            assert g.positions[0] == (1, 4)
            assert g.to_move == 0 and g.turns == 2  # the bot replied
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
            assert g.positions[0] == (1, 4) and g.to_move == 0 and g.turns == 4
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
