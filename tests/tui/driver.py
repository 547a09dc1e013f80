"""Helpers to drive the terminal app headless with Textual's pilot."""

from __future__ import annotations

import asyncio
import io
from collections.abc import Awaitable, Callable
from typing import Any

from rich.cells import cell_len
from rich.console import Console
from textual.pilot import Pilot

from gunzi.engine.rules import preset
from gunzi.tui.app import GunziApp
from gunzi.tui.session import Session, stacked_first_deck
from gunzi.tui.widgets import SummaryScreen

SIZE = (120, 40)


def run(coro_fn: Callable[[], Awaitable[Any]]) -> Any:
    """Run an async test body (pytest-asyncio is not installed)."""
    return asyncio.run(coro_fn())  # type: ignore[arg-type]


def screen_text(app: GunziApp) -> str:
    """The screen as plain text (what a player would read)."""
    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), force_terminal=True,
                      color_system="truecolor", record=True, legacy_windows=False)
    console.print(app.screen._compositor.render_update(
        full=True, screen_stack=app._background_screens))
    return console.export_text()


def dealer_session(tmp_path: Any, *, bots: str = "random", seed: int = 11) -> Session:
    """A first hand where seat 0 draws BJ first (so it is asked to declare at once), trump ♥
    (its next suited card is 3H), and a kitty with a heart (no dry pot)."""
    rules = preset("gunzi")
    deck = stacked_first_deck(rules, 0, ["BJ LJ 3H 2S", None, None, None],
                              kitty="4H 5S 6S 7C 8D 9D")
    return Session(rules, bots=[bots] * 3, seed=seed, record_path=tmp_path / "game.jsonl",
                   first_deck=deck, first_seat=0)


async def move_cursor_to(pilot: Pilot[Any], app: GunziApp, index: int) -> None:
    """Press left or right (the shorter way round) until the cursor is on position ``index``."""
    order = app._display_order
    here, there = order.index(app.cursor), order.index(index)
    ahead = (there - here) % len(order)
    back = len(order) - ahead
    keys = ["right"] * ahead if ahead <= back else ["left"] * back
    if keys:
        await pilot.press(*keys)
    assert app.cursor == index, f"cursor at {app.cursor}, not {index}"


async def hint_until(pilot: Pilot[Any], app: GunziApp, stop: Callable[[], bool],
                     limit: int = 600) -> int:
    """Press h then Enter (p for a hinted pass) until ``stop()``; return the decisions made."""
    n = 0
    while not stop():
        assert n < limit, "the hand did not end"
        assert app.turn is not None, f"no decision for the human: {app.texts.get('prompt')}"
        # Enter with nothing selected passes in the optional decisions, so "h" then Enter
        # always takes the hint.
        await pilot.press("h", "enter")
        n += 1
    return n


def summary_open(app: GunziApp) -> bool:
    return isinstance(app.screen, SummaryScreen)


SMALL = (80, 24)


def widget_lines(app: GunziApp, widget_id: str) -> list[str]:
    """The screen lines inside a widget's region (what is really visible of it)."""
    region = app.query_one(f"#{widget_id}").region
    lines = screen_text(app).splitlines()
    return [_cells(line, region.x, region.right).rstrip()
            for line in lines[region.y:region.bottom]]


def _cells(line: str, start: int, end: int) -> str:
    """The characters of ``line`` in terminal columns ``start``..``end`` (CJK take two)."""
    out = []
    x = 0
    for char in line:
        if start <= x < end:
            out.append(char)
        x += cell_len(char)
    return "".join(out)


def seat_row(app: GunziApp, name: str) -> str:
    """The seat's line on the table when it shows one line per seat (small screens)."""
    for line in widget_lines(app, "table"):
        text = line.strip().removeprefix("▶").strip()
        if text.startswith(name + " "):
            return text
    raise AssertionError(f"no line for {name} in {widget_lines(app, 'table')}")
