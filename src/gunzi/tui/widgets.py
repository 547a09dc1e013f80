"""Widgets and screens of the terminal game: the hand, the log, help, the hand summary."""

from __future__ import annotations

from typing import Any

from rich.cells import cell_len
from rich.console import Group, RenderableType
from rich.style import Style
from rich.table import Table
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.geometry import Size
from textual.message import Message
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Static

from gunzi.tui.i18n import (
    HELP,
    card_style,
    t,
)
from gunzi.wording.names import card_label


# ---------------------------------------------------------------------- hand
class HandView(Widget):
    """The human's hand: trumps on their own row, then one row per side suit."""

    DEFAULT_CSS = """
    HandView { height: auto; min-height: 2; }
    """

    class Clicked(Message):
        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    LABEL_WIDTH = 4

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.cards: list[int] = []
        self.groups: list[tuple[str, str, list[int]]] = []  # (label, style, card indices)
        self.selected: set[int] = set()
        self.cursor = 0
        self.addable: set[int] | None = None
        self.lang = "zh"
        self._hits: list[tuple[int, int, int, int]] = []  # (y, x0, x1, index)

    def show(
        self,
        cards: list[int],
        groups: list[tuple[str, str, list[int]]],
        selected: set[int],
        cursor: int,
        addable: set[int] | None,
        lang: str,
    ) -> None:
        self.cards = cards
        self.groups = groups
        self.selected = set(selected)
        self.cursor = cursor
        self.addable = addable
        self.lang = lang
        self.refresh(layout=True)

    def _rows(self, width: int) -> list[list[tuple[int | None, int, str, Style]]]:
        width = max(width, self.LABEL_WIDTH + 6)
        rows: list[list[tuple[int | None, int, str, Style]]] = []
        for label, label_style, indices in self.groups:
            pad = label + " " * max(0, self.LABEL_WIDTH - cell_len(label))
            row: list[tuple[int | None, int, str, Style]] = [
                (None, 0, pad, Style.parse(label_style))
            ]
            x = self.LABEL_WIDTH
            for i in indices:
                text = card_label(self.cards[i], self.lang)
                w = cell_len(text) + 1
                if x + w > width and x > self.LABEL_WIDTH:
                    rows.append(row)
                    row = [(None, 0, " " * self.LABEL_WIDTH, Style())]
                    x = self.LABEL_WIDTH
                row.append((i, x, text, self._style(i)))
                x += w
            rows.append(row)
        return rows

    def _style(self, i: int) -> Style:
        style = Style.parse(card_style(self.cards[i]))
        if self.addable is not None and i not in self.selected and \
                self.cards[i] not in self.addable:
            style += Style(dim=True)
        if i in self.selected:
            style += Style(reverse=True)
        if i == self.cursor:
            style += Style(underline=True, bgcolor="grey35")
        return style

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return max(1, len(self._rows(width)))

    def render(self) -> RenderableType:
        if not self.cards:
            return Text("—", style="dim")
        rows = self._rows(self.size.width)
        out = Text()
        hits: list[tuple[int, int, int, int]] = []
        for y, row in enumerate(rows):
            if y:
                out.append("\n")
            for index, x, text, style in row:
                out.append(text, style=style)
                if index is not None:
                    out.append(" ")
                    hits.append((y, x, x + cell_len(text), index))
        self._hits = hits
        return out

    def index_at(self, x: int, y: int) -> int | None:
        for hy, x0, x1, index in self._hits:
            if hy == y and x0 <= x < x1 + 1:
                return index
        return None

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        index = self.index_at(offset.x, offset.y)
        if index is not None:
            self.post_message(self.Clicked(index))


class LogView(Widget):
    """The newest log lines that fit, measured when drawn (a size read earlier can be stale
    while the card counter above it appears or goes). Long entries wrap, so they are wrapped
    here at the panel's width and counted line by line: the newest entry is always shown."""

    DEFAULT_CSS = """
    LogView { height: 1fr; }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.title = ""
        self.lines: list[Text] = []

    def show(self, title: str, lines: list[Text]) -> None:
        self.title = title
        self.lines = lines
        self.refresh()

    def shown_lines(self, width: int, height: int) -> list[Text]:
        """The screen lines below the title: whole entries, newest last."""
        room = max(0, height - 1)
        console = self.app.console
        rows: list[Text] = []
        for entry in reversed(self.lines):
            wrapped = list(entry.wrap(console, max(1, width)))
            if len(rows) + len(wrapped) > room:
                if not rows:  # the newest alone is too long: its beginning
                    rows = wrapped[:room]
                break
            rows[:0] = wrapped
        return rows

    def render(self) -> RenderableType:
        out = Text(self.title, style="bold underline")
        for line in self.shown_lines(self.size.width, self.size.height):
            out.append("\n")
            out.append_text(line)
        return out


class TableView(Widget):
    """The seats around the trick. The layouts come roomiest first (a compass of seat blocks,
    then one line per seat), each with the width it needs; the first that fits the panel when
    drawn is shown, since the top bar, the prompt, the hand and the status line around it
    change height. The last layout is shown when none fits."""

    DEFAULT_CSS = """
    TableView { height: 1fr; }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.layouts: list[tuple[RenderableType, int]] = []  # (layout, minimum width)
        self.chosen = 0  # index of the layout drawn last (tests)

    def show(self, layouts: list[tuple[RenderableType, int]]) -> None:
        self.layouts = layouts
        self.refresh()

    def height_of(self, layout: RenderableType, width: int) -> int:
        console = self.app.console
        options = self.app.console_options.update_width(max(1, width)).update(height=None)
        return len(console.render_lines(layout, options, pad=False))

    def render(self) -> RenderableType:
        if not self.layouts:
            return Text("")
        width, height = self.size
        self.chosen = next((i for i, (layout, need) in enumerate(self.layouts[:-1])
                            if width >= need and self.height_of(layout, width) <= height),
                           len(self.layouts) - 1)
        return self.layouts[self.chosen][0]


# ------------------------------------------------------------------- screens
class HelpScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > Static { width: auto; max-width: 90%; padding: 1 2; border: round $accent;
                          background: $surface; }
    """

    def __init__(self, lang: str) -> None:
        super().__init__()
        self.lang = lang

    def compose(self) -> ComposeResult:
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold cyan")
        table.add_column()
        for key, what in HELP[self.lang]:
            table.add_row(key, what)
        yield Static(Group(Text(t(self.lang, "help.title"), style="bold"), table,
                           Text(t(self.lang, "help.close"), style="dim")))

    def on_key(self, event: events.Key) -> None:
        event.stop()
        if event.key in ("escape", "question_mark", "enter", "q", "space"):
            self.dismiss(None)


class SummaryScreen(ModalScreen[str]):
    """The end-of-hand summary: Enter/Space/Esc continue, q saves and quits, l switches the
    language (the app redraws it with :meth:`show`); any other key says which keys work."""

    DEFAULT_CSS = """
    SummaryScreen { align: center middle; }
    SummaryScreen > Static { width: auto; max-width: 90%; padding: 1 2; border: double $success;
                             background: $surface; }
    """

    IGNORED = ("ctrl+c", "tab", "shift+tab")

    def __init__(self, lines: list[Text], lang: str) -> None:
        super().__init__()
        self.lines = lines
        self.lang = lang
        self.note = ""  # the unknown-key hint under the summary

    def compose(self) -> ComposeResult:
        yield Static(self._text(), id="summary")

    def _text(self) -> Text:
        lines = list(self.lines)
        if self.note:
            lines.append(Text(self.note, style="bold red"))
        return Text("\n").join(lines)

    def show(self, lines: list[Text], lang: str) -> None:
        self.lines = lines
        self.lang = lang
        self.note = ""
        self.query_one("#summary", Static).update(self._text())

    async def on_key(self, event: events.Key) -> None:
        event.stop()
        if event.key in ("enter", "space", "escape"):
            self.dismiss("continue")
        elif event.key in ("q", "ctrl+q"):
            self.dismiss("quit")
        elif event.key == "l":
            await self.app.run_action("language")
        elif event.key not in self.IGNORED:
            self.note = t(self.lang, "summary.unknown_key", k=event.key)
            self.query_one("#summary", Static).update(self._text())
