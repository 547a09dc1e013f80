"""`gunzi play --rules quoridor-2|quoridor-4`: 步步为营 in the terminal.

Seat 0 (bottom edge) is the human, the other seats are bots. The board is drawn as text:
a square is three cells wide, grooves are one cell, so a wall is a run of ``━`` or ``┃``.
Keys: arrows move the cursor; Enter/Space moves the pawn to the cursor square or places
the previewed wall; ``w`` toggles wall mode, ``r`` turns the wall; ``l`` switches the
language; ``q`` quits. A mouse click on a highlighted square moves there; in wall mode a
click puts the preview there and a second click on the same spot places it.

The game itself is a :class:`~gunzi.tui.board_save.BoardSession` on the one session layer
of every game (:mod:`gunzi.tui.game_session`), and the app is a
:class:`~gunzi.tui.session_app.SessionApp` like the card screen: bots move by themselves,
thinking on a worker thread when there is a delay. The record (saved after every action)
is an ordinary 步步为营 record whose header carries a side field ``"tui"`` (bots, seed,
language). :func:`~gunzi.tui.board_save.load_board` replays it and the game goes on where
it stopped; a bot's randomness is seeded by the game seed and the turn, so a resumed game
plays on as it would have without the interruption (docs/quoridor.md).
"""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Static

from gunzi.quoridor.bots import make_bot
from gunzi.quoridor.game import Action, Move, QuoridorGame, Wall
from gunzi.quoridor.rules import QuoridorRules
from gunzi.tui.board_save import BoardSession
from gunzi.tui.game_session import HUMAN
from gunzi.tui.session_app import SessionApp
from gunzi.wording.errors import engine_error

PAWN_STYLES = ("bold white on blue", "bold white on red", "bold black on yellow",
               "bold white on green")
TEXTS: dict[str, dict[str, str]] = {
    "zh": {
        "title": "步步为营", "you": "你", "bot": "电脑", "turn": "轮到", "walls": "木块",
        "dist": "步数", "mode.move": "走棋", "mode.wall": "放木块",
        "keys": "方向键 移动光标  回车/空格 确定  w 走棋/放木块  r 转向  l English  q 退出",
        "won": "获胜！", "draw": "平局（回合上限）", "illegal": "不行：", "over": "对局结束",
        "thinking": "电脑思考中…", "resumed": "已从 {path} 继续（已下 {turn} 手）",
        "save_failed": "保存失败：{err}",
    },
    "en": {
        "title": "Bubu Weiying (Quoridor)", "you": "you", "bot": "bot", "turn": "to move",
        "walls": "walls", "dist": "steps", "mode.move": "move", "mode.wall": "wall",
        "keys": "arrows cursor  Enter/Space confirm  w move/wall  r rotate  l 中文  q quit",
        "won": "wins!", "draw": "draw (turn limit)", "illegal": "Not allowed: ",
        "over": "game over", "thinking": "bot thinking…",
        "resumed": "Resumed from {path} (after {turn} turns)",
        "save_failed": "Saving failed: {err}",
    },
}


class BoardView(Static):
    """The board; clicks are reported to the app as board coordinates."""

    def on_click(self, event: events.Click) -> None:
        app = self.app
        assert isinstance(app, BoardApp)
        app.click_at(event.x, event.y)


class BoardApp(SessionApp[BoardSession]):
    """One game: the human at seat 0 against bots; the record is saved after every action."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "cursor(1, 0)", show=False),
        Binding("down", "cursor(-1, 0)", show=False),
        Binding("left", "cursor(0, -1)", show=False),
        Binding("right", "cursor(0, 1)", show=False),
        Binding("enter,space", "confirm", show=False),
        Binding("w", "toggle_wall", show=False),
        Binding("r", "rotate", show=False),
        Binding("l", "lang", show=False),
        Binding("q,ctrl+q", "quit_game", show=False, priority=True),
    ]
    CSS = """
    #board { width: auto; padding: 1 2; }
    #info { height: auto; padding: 0 2; }
    #status { height: 1; padding: 0 2; text-style: bold; }
    #keys { height: auto; padding: 0 2; color: $text-muted; }
    """

    def __init__(self, rules: QuoridorRules, bots: list[str], *, seed: int | None = None,
                 lang: str = "zh", delay: float = 0.4, record: Path | None = None,
                 game: QuoridorGame | None = None, resumed_from: Path | None = None) -> None:
        names = ((bots or ["rule"]) * rules.players)[: rules.players - 1]
        session = BoardSession(game if game is not None else QuoridorGame(rules),
                               [make_bot(b) for b in names], names,
                               seed=seed if seed is not None else secrets.randbits(63),
                               record_path=record)
        super().__init__(session, delay=delay)
        session.resumed_from = resumed_from
        self.lang = lang
        session.prefs["lang"] = lang
        self.n = rules.board_size
        start = self.game.position(HUMAN)
        self.cursor = (min(start[0] + 1, self.n - 1), start[1])
        self.wall_mode = False
        self.orientation = "h"
        self.message = (TEXTS[lang]["resumed"].format(path=resumed_from, turn=self.game.turns)
                        if resumed_from is not None else "")

    # ---- the session's game and settings
    @property
    def game(self) -> QuoridorGame:
        return self.session.game

    @property
    def seed(self) -> int:
        return self.session.seed

    @property
    def record(self) -> Path | None:
        return self.session.record_path

    @property
    def bot_names(self) -> list[str]:
        """Every seat's name: "you", then the bots."""
        return ["you", *self.session.bot_names]

    # ---- text

    def t(self, key: str) -> str:
        return TEXTS[self.lang][key]

    def seat_label(self, seat: int) -> str:
        who = self.t("you") if seat == HUMAN else f"{self.t('bot')} {self.bot_names[seat]}"
        return f"{seat} ({who})"

    # ---- layout

    def compose(self) -> ComposeResult:
        yield Static(id="info")
        yield BoardView(id="board")
        yield Static(id="status")
        yield Static(self.t("keys"), id="keys")

    def on_mount(self) -> None:
        self.title = self.t("title")
        self.pump()

    def pumped(self) -> None:
        self._say_save_error()
        self.refresh_view()

    @property
    def my_turn(self) -> bool:
        return self.game.to_act == HUMAN

    def legal_squares(self) -> set[tuple[int, int]]:
        return {m.to for m in self.game.legal_moves(HUMAN)} if self.my_turn else set()

    def preview(self) -> Wall | None:
        if not self.wall_mode:
            return None
        r, c = self.cursor
        return Wall(HUMAN, min(r, self.n - 2), min(c, self.n - 2), self.orientation)

    def render_board(self) -> Text:
        """Rows top to bottom; each square 3 cells, each groove 1 cell or line."""
        n, g = self.n, self.game
        width = 4 * n - 1
        grid = [[(" ", "")] * width for _ in range(2 * n - 1)]
        legal = self.legal_squares()

        def put(y: int, x: int, ch: str, style: str) -> None:
            grid[y][x] = (ch, style)

        for r in range(n):
            y = 2 * (n - 1 - r)
            for c in range(n):
                x = 4 * c
                style = "on grey23"
                ch = " · "
                if (r, c) in legal:
                    style = "on dark_green"
                if not self.wall_mode and (r, c) == self.cursor:
                    style = "reverse " + style
                for i in range(3):
                    put(y, x + i, ch[i], style)
        for seat, (r, c) in enumerate(g.positions):
            y, x = 2 * (n - 1 - r), 4 * c
            cur = not self.wall_mode and (r, c) == self.cursor
            put(y, x + 1, str(seat), PAWN_STYLES[seat] + (" reverse" if cur else ""))

        def draw(w: Wall, style: str) -> None:
            if w.orientation == "h":
                y = 2 * (n - 1 - w.row) - 1
                for x in range(4 * w.col, 4 * w.col + 7):
                    put(y, x, "━", style)
            else:
                x = 4 * w.col + 3
                for y in range(2 * (n - 1 - w.row) - 2, 2 * (n - 1 - w.row) + 1):
                    put(y, x, "┃", style)

        for w in g.walls:
            draw(w, "bold yellow")
        p = self.preview()
        if p is not None and self.my_turn:
            draw(p, "bold green" if g.is_legal(p) else "bold red")
        text = Text()
        for y, row in enumerate(grid):
            label = f"{n - y // 2:>2} " if y % 2 == 0 else "   "
            text.append(label)
            for ch, style in row:
                text.append(ch, style=style or None)
            text.append("\n")
        text.append("   " + "".join(f" {chr(97 + c)}  " for c in range(n)).rstrip())
        return text

    def refresh_view(self) -> None:
        g = self.game
        info = Text()
        for s in range(g.players):
            mark = "▶ " if g.to_act == s else "  "
            info.append(mark)
            info.append(f" {s} ", style=PAWN_STYLES[s])
            info.append(f" {self.seat_label(s)}  {self.t('walls')} {g.walls_left[s]}  "
                        f"{self.t('dist')} {g.distance(s)}\n")
        self.query_one("#info", Static).update(info)
        self.query_one("#board", Static).update(self.render_board())
        if g.is_over:
            status = (f"{self.t('over')}: {self.seat_label(g.winner)} {self.t('won')}"
                      if g.winner is not None else f"{self.t('over')}: {self.t('draw')}")
        elif self.message:
            status = self.message
        elif self.my_turn:
            status = f"{self.t('turn')} {self.t('you')} · " + self.t(
                "mode.wall" if self.wall_mode else "mode.move")
            if self.wall_mode:
                p = self.preview()
                assert p is not None
                status += f" {p.text()}"
        else:
            status = self.t("thinking")
        self.query_one("#status", Static).update(status)
        self.query_one("#keys", Static).update(self.t("keys"))

    # ---- actions

    def act(self, action: Action) -> bool:
        """Apply the human's action; a refused one only sets the message."""
        err = self.session.human(action)
        if err is not None:
            self.message = self.t("illegal") + engine_error(err, self.lang)
            self.refresh_view()
            return False
        self.message = ""
        self.wall_mode = False
        self.pump()
        return True

    def _say_save_error(self) -> None:
        """A failed automatic save is said in the status line; the game goes on."""
        exc = self.session.save_error
        if exc is not None:
            self.message = self.t("save_failed").format(err=exc.strerror or exc)
            self.session.save_error = None

    def save(self) -> None:
        """Save the record now (the session also saves after every action)."""
        self.session.autosave()
        self._say_save_error()

    def action_cursor(self, dr: int, dc: int) -> None:
        top = self.n - 2 if self.wall_mode else self.n - 1
        r, c = self.cursor
        self.cursor = (max(0, min(top, r + dr)), max(0, min(top, c + dc)))
        self.message = ""
        self.refresh_view()

    def action_confirm(self) -> None:
        if not self.my_turn:
            return
        if self.wall_mode:
            p = self.preview()
            assert p is not None
            self.act(p)
            return
        self.act(Move(HUMAN, self.cursor))  # an illegal square: the engine says why not

    def action_toggle_wall(self) -> None:
        self.wall_mode = not self.wall_mode
        r, c = self.cursor
        self.cursor = (min(r, self.n - 2), min(c, self.n - 2)) if self.wall_mode else (r, c)
        self.message = ""
        self.refresh_view()

    def action_rotate(self) -> None:
        self.orientation = "v" if self.orientation == "h" else "h"
        self.refresh_view()

    def action_lang(self) -> None:
        self.lang = "en" if self.lang == "zh" else "zh"
        self.session.prefs["lang"] = self.lang
        self.title = self.t("title")
        self.save()  # the language is kept for a resume
        self.refresh_view()

    def action_quit_game(self) -> None:
        self.stop_bots()
        self.exit(self.record)

    def click_at(self, x: int, y: int) -> None:
        """A click at widget cell (x, y) (padding 1 row, 2 columns + the 3-cell row label)."""
        bx, by = x - 2 - 3, y - 1
        if bx < 0 or by < 0 or by > 2 * self.n - 2 or bx > 4 * self.n - 2:
            return
        col, row = min(bx // 4, self.n - 1), self.n - 1 - (by + 1) // 2
        if not self.wall_mode:
            self.cursor = (row, col)
            if self.cursor in self.legal_squares():
                self.act(Move(HUMAN, self.cursor))
            else:
                self.refresh_view()
            return
        on_row_groove = by % 2 == 1
        orient = "h" if on_row_groove else "v"
        anchor = (max(0, min(self.n - 2, row)), max(0, min(self.n - 2, col)))
        if (anchor, orient) == (self.cursor, self.orientation):
            p = self.preview()
            assert p is not None
            self.act(p)
            return
        self.cursor, self.orientation = anchor, orient
        self.refresh_view()


__all__ = ["BoardApp"]
