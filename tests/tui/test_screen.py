"""What a small terminal (80×24) and the default one (120×40) really show: every seat's cards
on the table, the newest log entry, a long status text with its rule clause."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.text import Text

from gunzi.engine.actions import Kind
from gunzi.tui.app import GunziApp
from gunzi.tui.i18n import cards_plain, seat_name, t
from gunzi.tui.widgets import LogView, TableView

from .driver import (
    SIZE,
    SMALL,
    dealer_session,
    move_cursor_to,
    run,
    seat_row,
    widget_lines,
)


@pytest.mark.parametrize(("size", "lang"), [(SMALL, "en"), (SMALL, "zh"), (SIZE, "en")])
def test_the_players_cards_in_the_trick_are_on_screen(tmp_path: Path, size: tuple[int, int],
                                                      lang: str) -> None:
    """The human leads; the bots wait (a long delay): the lead shows on the human's seat, in
    one line per seat at 80×24 (the Chinese top bar is longer) and in the compass at 120×40."""
    session = dealer_session(tmp_path)
    app = GunziApp(session, lang=lang, delay=60)

    async def body() -> None:
        async with app.run_test(size=size) as pilot:
            m = session.match
            await pilot.press("d", "enter")  # declare BJ: seat 0 deals, buries, leads
            await pilot.press("h", "enter")
            assert app.turn is not None and app.turn.kind is Kind.PLAY and not m.trick
            await pilot.press("h", "enter")
            assert [seat for seat, _ in m.trick] == [0]  # the bots wait
            await pilot.pause()
            led = cards_plain(m.trick[0][1], lang)
            table = app.query_one("#table", TableView)
            if size == SMALL:
                assert table.chosen == len(table.layouts) - 1
                assert led in seat_row(app, seat_name(lang, 0))
                for seat in (1, 2, 3):  # every seat has its line, with its card count
                    count = session.view()["hand_sizes"][seat]
                    assert str(count) in seat_row(app, seat_name(lang, seat))
            else:
                assert table.chosen == 0
                lines = widget_lines(app, "table")
                at = max(i for i, line in enumerate(lines)
                         if line.strip().removeprefix("▶ ").startswith(seat_name(lang, 0)))
                count = session.view()["hand_sizes"][0]
                assert led in lines[at + 2] and f"{count} cards" in lines[at + 1]
            assert t(lang, "status.played", cards=led) in "\n".join(widget_lines(app, "status"))

    run(body)


def test_last_trick_and_newest_log_line_at_80x24(tmp_path: Path) -> None:
    """After a trick every seat's line shows its cards in it (上墩), beside those of the trick
    being played; the log ends with the newest entry."""
    session = dealer_session(tmp_path)
    app = GunziApp(session, lang="zh", delay=0)

    async def body() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            m = session.match
            await pilot.press("d", "enter", "h", "enter")  # declare, bury
            await pilot.press("h", "enter")  # lead: the bots answer at once
            assert len(m.tricks) == 1
            last = m.tricks[-1]
            for i, cards in enumerate(last["plays"]):
                row = seat_row(app, seat_name("zh", (last["leader"] + i) % 4))
                assert "上墩 " + cards_plain(cards, "zh") in row
            for seat, cards in m.trick:  # the bots that led the next trick
                assert cards_plain(cards, "zh") in seat_row(app, seat_name("zh", seat))
            newest = app.texts["log"].splitlines()[-1]
            shown = [line.strip() for line in widget_lines(app, "log") if line.strip()]
            assert newest.startswith("第1墩") and newest.endswith(shown[-1])

    run(body)


def test_long_log_entries_do_not_push_the_newest_out(tmp_path: Path) -> None:
    """Entries that wrap take two lines: the panel counts screen lines, not entries."""
    app = GunziApp(dealer_session(tmp_path), lang="en", delay=0)

    async def body() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            log = app.query_one("#log", LogView)
            entries = [Text(f"entry {i}: jokers buried by East, took back some cards")
                       for i in range(40)]
            log.show("Log", [*entries, Text("the newest entry, long enough to wrap: END")])
            await pilot.pause()
            lines = widget_lines(app, "log")
            assert len(lines) == log.size.height
            assert lines[-1].strip().endswith("END") or lines[-2].strip().endswith("END")
            assert any("the newest entry" in line for line in lines)
            # Only whole entries: the first shown line starts one.
            assert lines[1].strip().startswith("entry ")

    run(body)


def test_long_status_text_shows_its_rule_clause_at_80x24(tmp_path: Path) -> None:
    session = dealer_session(tmp_path)
    app = GunziApp(session, lang="en", delay=0)

    async def body() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            m = session.match
            await pilot.press("d", "enter", "h", "enter")  # declare, bury: seat 0 leads
            assert app.turn is not None and app.turn.kind is Kind.PLAY
            # Two different side cards of one suit: not a single, pair or triple.
            _, _, row = app._groups()[1]
            first = row[0]
            other = next(i for i in row if app.cards[i] != app.cards[first])
            for index in (first, other):
                await move_cursor_to(pilot, app, index)
                await pilot.press("space")
            events = len(m.events)
            await pilot.press("enter")
            assert len(m.events) == events
            assert app.status.startswith("Illegal: Lead ") and app.status.endswith(
                "Gunzi has no runs, tractors or throws [A7]")
            shown = widget_lines(app, "status")
            assert len(shown) >= 2 and shown[-1].rstrip().endswith("[A7]")

    run(body)


def test_stale_status_goes_when_the_players_turn_comes(tmp_path: Path) -> None:
    """"You played …" and "Not your turn (waiting for …)" are about a decision that is gone
    once the player's next one comes."""
    session = dealer_session(tmp_path)
    app = GunziApp(session, lang="en", delay=0.25)

    async def body() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("d", "enter", "h", "enter")
            assert app.turn is not None and app.turn.kind is Kind.PLAY
            await pilot.press("h", "enter")
            assert app.status.startswith("You played")  # while the bots play
            await pilot.press("space")
            assert app.status.startswith("Not your turn (waiting for")
            for _ in range(300):
                if app.turn is not None:
                    break
                await pilot.pause(0.02)
            assert app.turn is not None
            assert app.status == "" and not "".join(widget_lines(app, "status")).strip()

    run(body)
