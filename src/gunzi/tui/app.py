"""The Textual app: seat 0 is the human, seats 1-3 are bots (docs/tui.md has the key map)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Static

from gunzi.engine import actions as A
from gunzi.engine import cards as C
from gunzi.engine.actions import Action, Kind
from gunzi.engine.errors import GunziError
from gunzi.engine.match import Phase
from gunzi.engine.order import TRUMP
from gunzi.tui.game_session import HUMAN
from gunzi.tui.i18n import (
    LANGS,
    SUIT_STYLES,
    card_style,
    cards_text,
    event_text,
    seat_name,
    seat_values,
    suit_symbol,
    t,
)
from gunzi.tui.session import Session, Turn
from gunzi.tui.session_app import SessionApp
from gunzi.tui.texts import describe, level_text, match_result, summary_lines
from gunzi.tui.widgets import HandView, HelpScreen, LogView, SummaryScreen, TableView
from gunzi.wording.errors import engine_error
from gunzi.wording.names import card_label, cards_plain


# ----------------------------------------------------------------------- app
class GunziApp(SessionApp[Session]):
    """Play 打滚子 or classic 升级 in the terminal against three bots."""

    TITLE = "Gunzi"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "save_quit", "Quit", show=False, priority=True),
    ]
    CSS = """
    Screen { layout: vertical; }
    #info { height: auto; background: $boost; padding: 0 1; }
    #middle { height: 1fr; }
    #table { width: 1fr; padding: 0 1; }
    #side { width: 38%; max-width: 48; min-width: 34; border-left: solid $primary;
            padding: 0 1; }
    #counter { height: auto; margin-bottom: 1; }
    #prompt { height: auto; background: $panel; padding: 0 1; color: $text; text-style: bold; }
    #hand { padding: 0 1; border-top: solid $primary; }
    #status { height: auto; max-height: 3; padding: 0 1; }
    #keys { height: auto; padding: 0 1; color: $text-muted; }
    """

    KEYS: ClassVar[dict[str, str]] = {
        "left": "cursor_left",
        "right": "cursor_right",
        "up": "cursor_up",
        "down": "cursor_down",
        "home": "cursor_home",
        "end": "cursor_end",
        "space": "select",
        "enter": "submit",
        "p": "pass",
        "P": "autopass",
        "shift+p": "autopass",
        "d": "cycle",
        "h": "hint",
        "c": "counter",
        "l": "language",
        "question_mark": "help",
        "s": "save",
        "q": "save_quit",
        "escape": "clear",
    }

    def __init__(self, session: Session, *, lang: str | None = None, delay: float = 0.6) -> None:
        super().__init__(session, delay=delay)
        # A resumed match keeps the language and card counter it was saved with.
        lang = lang or session.prefs.get("lang")
        self.lang = lang if lang in LANGS else "zh"
        self.show_counter = bool(session.prefs.get("counter", False))
        session.prefs.update(lang=self.lang, counter=self.show_counter)
        self.cards: list[int] = []
        self.selected: set[int] = set()
        self.cursor = 0
        self.cycle = -1
        self.turn: Turn | None = None
        self.status = t(self.lang, "status.ready")
        self.status_error = False
        # The status answers a key about the decision at hand ("not your turn", "you played
        # …"): it is cleared when the player's next decision comes, so it never contradicts it.
        self._status_decision = False
        self.texts: dict[str, str] = {}  # plain text of each panel (tests, screen readers)
        self.log_events: list[dict[str, Any]] = []
        self._seq = 0
        self._stamp: tuple[int, int | None] | None = None
        self._summary_open = False
        self._bot_errors_seen = 0
        self._jokerless_seen = session.jokerless_passes
        self._unasked_seen = len(session.unasked_draws)
        self._quit_unsaved = False  # q pressed once although saving failed
        self._save_error = ""
        self.saved_to: Path | None = None
        self._mounted = False

    # ------------------------------------------------------------- layout
    def compose(self) -> ComposeResult:
        yield Static(id="info")
        with Horizontal(id="middle"):
            yield TableView(id="table")
            with Vertical(id="side"):
                yield Static(id="counter")
                yield LogView(id="log")
        yield Static(id="prompt")
        yield HandView(id="hand")
        yield Static(id="status")
        yield Static(id="keys")

    def on_mount(self) -> None:
        self._mounted = True
        self.query_one("#counter").display = self.show_counter
        s = self.session
        if s.resumed_from is not None:
            self.set_status(t(self.lang, "status.resumed", path=s.resumed_from,
                              n=s.match.hand_no))
        for note in s.notes:
            if note.startswith("fallback:"):
                self.set_status(t(self.lang, "status.bot_fallback", name=note.split(":", 1)[1]))
        for name, trained in s.untrained.items():
            self.set_status(t(self.lang, "status.bot_untrained", name=name,
                              game=t(self.lang, f"game.{trained}")))
        self.pump()

    # -------------------------------------------------------------- flow
    def pumped(self) -> None:
        s = self.session
        self.refresh_all()
        if s.summary is not None and not self._summary_open:
            self._open_summary()

    def _open_summary(self) -> None:
        result = self.session.summary
        assert result is not None
        self._summary_open = True
        self.push_screen(SummaryScreen(self._summary_lines(result), self.lang),
                         self._summary_closed)

    def _summary_lines(self, result: dict[str, Any]) -> list[Text]:
        lines = summary_lines(result, self.session, self.lang)
        self.texts["summary"] = "\n".join(line.plain for line in lines)
        return lines

    def _summary_closed(self, answer: str | None) -> None:
        self._summary_open = False
        self.session.acknowledge()
        if answer == "quit":
            self.action_save_quit()
            return
        self.pump()

    # ------------------------------------------------------------ drawing
    def refresh_all(self) -> None:
        s = self.session
        m = s.match
        stamp = (len(m.events), m.to_act)
        if stamp != self._stamp:
            self._stamp = stamp
            self.turn = s.turn()
            self.cards = s.hand_cards()
            self.selected = set()
            self.cycle = -1
            self.cursor = min(self.cursor, max(0, len(self.cards) - 1))
            if self.turn is not None and self._status_decision:
                self.set_status("")
        new = s.stream(self._seq)
        if new:
            if self._seq or s.resumed_from is None:  # not a resumed match's history
                self._note_failed_throws(new)
            self._seq = new[-1]["seq"]
            self.log_events.extend(new)
            self.log_events = self.log_events[-400:]
        if s.save_error is not None:  # shown once: the next save tries again
            self.set_status(t(self.lang, "status.save_failed", err=s.save_error), error=True)
            s.save_error = None
        notes = []  # both can come in one refresh (the draw, then the joker-burying asks)
        if len(s.unasked_draws) > self._unasked_seen:
            self._unasked_seen = len(s.unasked_draws)
            notes.append(self._unasked_text(s.unasked_draws[-1]))
        if s.jokerless_passes > self._jokerless_seen:
            self._jokerless_seen = s.jokerless_passes
            notes.append(t(self.lang, "status.no_jokers"))
        if notes:
            self.set_status("\n".join(notes))
        if len(s.bot_errors) > self._bot_errors_seen:
            seat, err = s.bot_errors[-1]
            self._bot_errors_seen = len(s.bot_errors)
            self.set_status(t(self.lang, "status.bot_error", seat=seat_name(self.lang, seat),
                              err=err), error=True)
        v = s.view()
        self._draw_info(v)
        self._draw_table(v)
        self._draw_counter()
        self._draw_log()
        self._draw_prompt()
        self._draw_hand()
        self._draw_status()
        keys = t(self.lang, "keys")
        self.texts["keys"] = keys
        self.query_one("#keys", Static).update(Text(keys))

    def _unasked_text(self, why: dict[str, Any]) -> str:
        lang = self.lang
        jokers = t(lang, "status.no_declare.jokers") if why.get("jokers") else ""
        seat = seat_name(lang, why["seat"]) if "seat" in why else ""
        cards = cards_plain(why.get("cards", []), lang)
        return t(lang, f"status.no_declare.{why['why']}", r=why.get("r", ""), jokers=jokers,
                 seat=seat, cards=cards)

    def _note_failed_throws(self, events: list[dict[str, Any]]) -> None:
        """A failed throw (classic) changes what was played: say so in the status line, since
        the table shows only the cards that were played."""
        for ev in events:
            if ev.get("type") == "play" and "attempted" in ev:
                self.set_status(t(self.lang, "status.failed_throw",
                                  seat=seat_name(self.lang, ev.get("seat")),
                                  cards=cards_plain(ev["attempted"], self.lang),
                                  played=cards_plain(ev["cards"], self.lang)),
                                error=ev.get("seat") == HUMAN)

    def _set(self, widget_id: str, content: Text | RenderableType, plain: str) -> None:
        self.texts[widget_id] = plain
        self.query_one(f"#{widget_id}", Static).update(content)

    def _draw_info(self, v: dict[str, Any]) -> None:
        lang = self.lang
        s = self.session
        variant = s.match.variant
        game = t(lang, f"game.{variant.name}")
        label = variant.ruleset_label(s.rules)
        if label is not None:
            game += f" ({label})"
        if s.is_over:
            self._draw_final(game)
            return
        levels = s.match.levels
        parts1 = [
            game,
            t(lang, "round", n=v["round_no"]),
            t(lang, "hand", n=v["hand_no"]),
            t(lang, "levels", us=level_text(levels[0], variant),
              them=level_text(levels[1], variant)),
            t(lang, "level", r=v["level"]),
        ]
        line1 = Text(" · ".join(parts1))
        line1.append(" · ")
        if v["trump"]:
            suit = C.SUITS.index(v["trump"])
            line1.append(t(lang, "trump", s=suit_symbol(suit)), style=SUIT_STYLES[suit])
        else:
            line1.append(t(lang, "trump.no" if v["no_trump"] else "trump.none"))
        line1.append(" · " + (t(lang, "dealer", seat=seat_name(lang, v["dealer"]))
                              if v["dealer"] is not None else t(lang, "dealer.none")))
        decl = v["declaration"]
        if decl:
            line1.append(" · " + t(lang, "declared", seat=seat_name(lang, decl["seat"]),
                                   cards=cards_plain(decl["cards"], lang)))
        pts = v["points"]
        line2 = Text(t(lang, "points", us=pts[0], them=pts[1]), style="bold")
        if s.match.variant.hand_scores:
            line2.append(" · " + t(lang, "scores", s=seat_values(lang, v["scores"])))
        kitty = v["kitty"]
        line2.append(" · " + t(lang, "kitty", n=kitty["size"]) + " ")
        if kitty["cards"] and kitty["size"]:
            line2.append_text(cards_text(kitty["cards"], lang))
        elif kitty["turned"]:
            line2.append_text(cards_text(kitty["turned"], lang))
        elif kitty["size"]:
            line2.append(t(lang, "kitty.hidden"), style="dim")
        if kitty["dry_pot"]:
            line2.append(" " + t(lang, "kitty.dry"), style="bold red")
        trib = v["tribute"]
        if trib["n"] and trib["from"] >= 0:
            line2.append(" · " + t(lang, "tribute", n=trib["n"],
                                   giver=seat_name(lang, trib["from"]),
                                   to=seat_name(lang, trib["to"])))
            if trib["kind"] == "reversed":
                line2.append(t(lang, "tribute.reversed"))
        text = Text("\n").join([line1, line2])
        self._set("info", text, text.plain)

    def _draw_final(self, game: str) -> None:
        """The top bar once the match is over: the result, not a next hand that never comes."""
        lang = self.lang
        s = self.session
        variant = s.match.variant
        results = s.match.results
        line1 = Text(" · ".join([game, t(lang, "over"), t(lang, "over.hands", n=len(results))]),
                     style="bold")
        if results:
            after = results[-1]["levels_after"]
            line1.append(" · " + t(lang, "over.final", us=level_text(after[0], variant),
                                   them=level_text(after[1], variant)))
        result = match_result(s, lang)
        line2 = Text(result[:1].upper() + result[1:], style="bold green")
        if variant.hand_scores:
            line2.append(" · " + t(lang, "scores", s=seat_values(lang, s.match.scores)))
        text = Text("\n").join([line1, line2])
        self._set("info", text, text.plain)

    def _draw_table(self, v: dict[str, Any]) -> None:
        lang = self.lang
        s = self.session
        m = s.match
        trick = v["trick"]
        plays = {p["seat"]: p["cards"] for p in trick["plays"]}
        last = v["tricks"][-1] if v["tricks"] and m.phase is Phase.PLAY else None
        last_plays: dict[int, list[str]] = {}
        if last is not None:
            for i, cards in enumerate(last["plays"]):
                last_plays[(last["leader"] + i) % 4] = cards
        acting = m.to_act if m.phase is not Phase.DRAW or m.to_act == HUMAN else None
        if s.summary is not None:
            acting = None

        def head(seat: int, *, compact: bool) -> Text:
            """▶ (the seat to act), name, bot, dealer mark; ``compact`` (one line per seat):
            no bot, and the marker's place kept so that the columns stay put."""
            out = Text()
            if acting == seat:
                out.append("▶ ", style="bold yellow")
            elif compact:
                out.append("  ")
            out.append(seat_name(lang, seat), style="bold" if seat != HUMAN else "bold green")
            if not compact and seat != HUMAN:
                name = s.bot_names[seat - 1]
                trained = s.untrained.get(name)
                if trained is not None:  # e.g. (learned, Gunzi-trained)
                    name = t(lang, "bot.untrained", name=name, game=t(lang, f"game.{trained}"))
                out.append(f" ({name})", style="dim")
            if v["dealer"] == seat:
                out.append(t(lang, "dealer.mark"), style="bold red")
            return out

        def played(seat: int) -> Text:
            out = Text()
            if seat in plays:
                out.append_text(cards_text(plays[seat], lang))
                if trick["winning"] == seat:
                    out.append(" ★", style="bold yellow")
            return out

        def previous(seat: int) -> Text:
            """The seat's cards in the last trick, dim: bots may lead the next trick before
            the player has read the last."""
            out = Text()
            if last is not None and seat in last_plays:
                out.append(t(lang, "trick.prev.cards"))
                out.append_text(cards_text(last_plays[seat], lang))
                if last["winner"] == seat:
                    out.append(" ★")
                out.stylize("dim")
            return out

        def block(seat: int) -> Text:
            """Four lines whatever is played (a blank line is a space), so that the layout
            chosen depends on the panel's size, not on the cards."""
            out = Text(justify="center")
            out.append_text(head(seat, compact=False))
            out.append("\n" + t(lang, "cards", n=v["hand_sizes"][seat]), style="dim")
            for line in (played(seat), previous(seat)):
                out.append("\n")
                out.append_text(line if line else Text(" "))
            return out

        about: list[tuple[str, str]] = []  # the trick in the centre: (text, style)
        if m.phase is Phase.PLAY and trick["plays"]:
            about.append((t(lang, "trick.no", n=trick["number"]), "bold"))
            about.append((t(lang, "trick.leader", seat=seat_name(lang, trick["leader"])), ""))
        elif m.phase is Phase.DRAW:
            about.append((f"{v['drawn']}/{4 * s.rules.hand_size}", "dim"))
        if last is not None:
            about.append((t(lang, "trick.prev", seat=seat_name(lang, last["winner"]),
                            p=last["points"]), "dim"))
        centre = Text("\n", justify="center").join(Text(x, style=st) for x, st in about)

        def compass(spaced: bool) -> Table:
            grid = Table.grid(expand=True)
            for _ in range(3):
                grid.add_column(ratio=1, justify="center")
            rows = [(Text(""), block(2), Text("")), (block(3), centre, block(1)),
                    (Text(""), block(0), Text(""))]
            for i, row in enumerate(rows):
                if i and spaced:
                    grid.add_row(Text(""), Text(""), Text(""))
                grid.add_row(*row)
            return grid

        # Small terminals (80×24): one line per seat, name and cards left beside the cards
        # of this trick and the last one.
        lines = Table.grid(expand=True, padding=(0, 1))
        lines.add_column(no_wrap=True)
        lines.add_column(ratio=1)
        lines.add_column(ratio=1)
        for seat in (2, 3, 1, 0):
            name = head(seat, compact=True)
            name.append(" " + t(lang, "cards.short", n=v["hand_sizes"][seat]), style="dim")
            lines.add_row(name, played(seat), previous(seat))
        summary = Text(" · ").join(Text(x, style=st) for x, st in about)
        # A compass column must hold "上墩 10♦ 10♦ 10♦ ★" and "▶ West (random) D" unwrapped,
        # or its blocks would grow and the layout change as cards are played.
        wide = 3 * 20
        self.query_one("#table", TableView).show([(compass(True), wide), (compass(False), wide),
                                                  (Group(lines, summary), 0)])
        self.texts["table"] = "\n".join(b.plain for b in (block(2), block(3), centre,
                                                            block(1), block(0)))

    def _draw_counter(self) -> None:
        widget = self.query_one("#counter", Static)
        widget.display = self.show_counter
        if not self.show_counter:
            self.texts["counter"] = ""
            return
        lang = self.lang
        counts = self.session.counter()
        order = self.session.match.order
        out = Text(t(lang, "counter.title") + "\n", style="bold")
        # Two cells a column, three for "10" so that it does not run into the 9.
        widths = [3 if rank_text == "10" else 2 for rank_text in C.RANKS]
        out.append("  ")
        for rank, rank_text in enumerate(C.RANKS):
            style = "bold yellow" if rank == order.level else "dim"
            out.append(f"{rank_text:>{widths[rank]}}", style=style)
        for suit in range(4):
            label = C.SUIT_SYMBOLS[suit] + ("*" if suit == order.trump else " ")
            out.append("\n" + label, style=SUIT_STYLES[suit])
            for r in range(13):
                n = counts[suit * 13 + r]
                out.append(f"{n:>{widths[r]}}", style="dim" if n == 0 else SUIT_STYLES[suit])
        out.append("\n")
        for joker in (C.BJ, C.LJ):
            n = counts[joker]
            out.append(f"{card_label(joker, lang)} {n}   ",
                       style="dim" if n == 0 else card_style(joker))
        self._set("counter", out, out.plain)

    def _draw_log(self) -> None:
        lines: list[Text] = []
        for ev in self.log_events:
            line = event_text(ev, self.lang)
            if line is not None:
                lines.append(line)
        title = t(self.lang, "log.title")
        self.query_one("#log", LogView).show(title, lines)
        self.texts["log"] = "\n".join([title, *(line.plain for line in lines)])

    def _prompt_text(self) -> str:
        lang = self.lang
        s = self.session
        m = s.match
        if s.is_over:
            result = match_result(s, lang)
            return t(lang, "prompt.over", result=f": {result}" if result else "")
        if s.summary is not None:
            return t(lang, "prompt.summary")
        turn = self.turn
        if turn is None:
            who = m.to_act if m.phase is not Phase.DRAW else None
            return t(lang, "waiting", seat=seat_name(lang, who) if who is not None and who >= 0
                     else "…")
        choice = self._choice()
        k = len(self.selected)
        if turn.kind is Kind.DECLARE:
            if choice is not None:
                return t(lang, "prompt.declare.opt", opt=describe(choice, lang))
            return t(lang, "prompt.declare")
        if turn.kind is Kind.BURY_JOKERS:
            if choice is not None:
                return t(lang, "prompt.bury_jokers.opt", opt=describe(choice, lang))
            return t(lang, "prompt.bury_jokers")
        if turn.kind is Kind.TRIBUTE:
            return t(lang, "prompt.tribute", n=m.tribute_n)
        if turn.kind is Kind.RETURN:
            return t(lang, "prompt.return", n=turn.count, k=k, seat=seat_name(lang, m.payer))
        if turn.kind is Kind.BURY:
            return t(lang, "prompt.bury", n=turn.count, k=k)
        if m.trick:
            return t(lang, "prompt.follow", n=len(m.trick[0][1]))
        return t(lang, "prompt.lead")

    def _draw_prompt(self) -> None:
        text = self._prompt_text()
        self._set("prompt", Text(text), text)

    def _groups(self) -> list[tuple[str, str, list[int]]]:
        order = self.session.match.order
        trumps: list[int] = []
        suits: list[list[int]] = [[], [], [], []]
        for i, card in enumerate(self.cards):
            if order.cls[card] == TRUMP:
                trumps.append(i)
            else:
                suits[card // 13].append(i)
        groups: list[tuple[str, str, list[int]]] = []
        if trumps:
            groups.append((t(self.lang, "hand.trumps"), "bold yellow", trumps))
        for suit in range(4):
            if suits[suit]:
                groups.append((C.SUIT_SYMBOLS[suit], SUIT_STYLES[suit], suits[suit]))
        return groups

    def _draw_hand(self) -> None:
        hand = self.query_one("#hand", HandView)
        addable = None
        if self.turn is not None:
            addable = self.turn.addable(self.chosen())
        groups = self._groups()
        # The cursor walks the cards in display order (trumps row first).
        self._display_order = [i for _, _, idx in groups for i in idx]
        hand.show(self.cards, groups, self.selected, self.cursor, addable, self.lang)
        self.texts["hand"] = "\n".join(
            f"{label} " + " ".join(card_label(self.cards[i], self.lang) for i in idx)
            for label, _, idx in groups
        )

    def _draw_status(self) -> None:
        style = "bold red" if self.status_error else "green"
        self._set("status", Text(self.status, style=style), self.status)

    def set_status(self, text: str, *, error: bool = False, decision: bool = False) -> None:
        """Show ``text``; ``decision``: it is about the decision at hand, and goes when the
        player's next decision comes (other texts stay until replaced)."""
        self.status = text
        self.status_error = error
        self._status_decision = decision
        if self._mounted:
            self._draw_status()

    # ---------------------------------------------------------- selection
    def chosen(self) -> list[int]:
        return [self.cards[i] for i in sorted(self.selected)]

    def _choice(self) -> Action | None:
        if self.turn is None or self.cycle < 0:
            return None
        choices = self.turn.choices()
        return choices[self.cycle] if self.cycle < len(choices) else None

    def select_cards(self, cards: Sequence[int]) -> None:
        """Select positions holding ``cards`` (a multiset) in the hand."""
        want = Counter(cards)
        chosen: set[int] = set()
        for i, card in enumerate(self.cards):
            if want[card] > 0:
                want[card] -= 1
                chosen.add(i)
        self.selected = chosen
        if chosen:
            self.cursor = min(chosen)

    def _explain(self, card: int) -> str:
        """The engine's reason why ``card`` cannot join the current bury / return selection."""
        turn = self.turn
        assert turn is not None and turn.selection is not None
        sel = turn.selection
        fill = [*self.chosen(), card]
        if len(fill) <= sel.count:
            rest = Counter(self.cards)
            rest.subtract(Counter(fill))
            spare = sorted((c for c, k in rest.items() for _ in range(max(0, k))),
                           key=lambda c: (c >= C.LJ, C.POINTS[c], c))
            while len(fill) < sel.count and spare:
                fill.append(spare.pop(0))
        err = self.session.check(sel.action(fill))
        # The filled-up cards are not the player's choice: give only the reason.
        return engine_error(err, self.lang, brief=True) if err else t(self.lang,
                                                                       "status.no_cycle")

    def toggle(self, index: int) -> None:
        if not self._my_turn():
            return
        if not 0 <= index < len(self.cards):
            return
        if index in self.selected:
            self.selected.discard(index)
        else:
            turn = self.turn
            assert turn is not None
            card = self.cards[index]
            if turn.selection is not None and card not in turn.selection.options(self.chosen()):
                self.set_status(t(self.lang, "status.cannot_add",
                                  card=card_label(card, self.lang), err=self._explain(card)),
                                error=True)
                return
            self.selected.add(index)
        self.cycle = -1
        self.set_status("")
        self._redraw_turn()

    def _redraw_turn(self) -> None:
        self._draw_prompt()
        self._draw_hand()
        self._draw_status()

    def _my_turn(self) -> bool:
        s = self.session
        if self.turn is not None:
            return True
        m = s.match
        if s.is_over or s.summary is not None or m.to_act is None:
            self.set_status(t(self.lang, "status.no_decision"), error=True, decision=True)
        else:
            who = m.to_act if m.phase is not Phase.DRAW else None
            self.set_status(t(self.lang, "status.not_turn",
                              seat=seat_name(self.lang, who) if who is not None and who >= 0
                              else "…"), error=True, decision=True)
        return False

    def do(self, action: Action) -> bool:
        """Submit the human's action; on an illegal one show the engine's text, change nothing."""
        during = self.turn.kind if self.turn is not None else None
        err = self.session.human(action)
        if err is not None:
            self.set_status(t(self.lang, "status.illegal", err=engine_error(err, self.lang)),
                            error=True)
            return False
        if action.kind is Kind.PLAY:
            self.set_status(t(self.lang, "status.played",
                              cards=cards_plain(action.cards, self.lang)), decision=True)
        else:
            self.set_status(describe(action, self.lang, during), decision=True)
        self.pump()
        return True

    # ------------------------------------------------------------- actions
    def on_key(self, event: events.Key) -> None:
        name = self.KEYS.get(event.key)
        if name is None and event.character == "?":
            name = "help"
        if name is None:
            if event.key in ("ctrl+q", "ctrl+c", "tab", "shift+tab"):
                return
            self.set_status(t(self.lang, "status.unknown_key", k=event.key), error=True,
                            decision=True)
            return
        event.stop()
        getattr(self, f"action_{name}")()

    def on_hand_view_clicked(self, message: HandView.Clicked) -> None:
        self.cursor = message.index
        self.toggle(message.index)

    def _move(self, delta: int) -> None:
        order = getattr(self, "_display_order", [])
        if not order:
            return
        pos = order.index(self.cursor) if self.cursor in order else 0
        self.cursor = order[(pos + delta) % len(order)]
        self._draw_hand()

    def action_cursor_left(self) -> None:
        self._move(-1)

    def action_cursor_right(self) -> None:
        self._move(1)

    def _row_jump(self, step: int) -> None:
        groups = self._groups()
        if not groups:
            return
        at = next((g for g, (_, _, idx) in enumerate(groups) if self.cursor in idx), 0)
        target = groups[(at + step) % len(groups)][2]
        self.cursor = target[0]
        self._draw_hand()

    def action_cursor_up(self) -> None:
        self._row_jump(-1)

    def action_cursor_down(self) -> None:
        self._row_jump(1)

    def action_cursor_home(self) -> None:
        order = getattr(self, "_display_order", [])
        if order:
            self.cursor = order[0]
            self._draw_hand()

    def action_cursor_end(self) -> None:
        order = getattr(self, "_display_order", [])
        if order:
            self.cursor = order[-1]
            self._draw_hand()

    def action_select(self) -> None:
        self.toggle(self.cursor)

    def action_clear(self) -> None:
        self.selected = set()
        self.cycle = -1
        self.set_status(t(self.lang, "status.cleared"), decision=True)
        self._redraw_turn()

    def action_submit(self) -> None:
        if not self._my_turn():
            return
        turn = self.turn
        assert turn is not None
        chosen = sorted(self.chosen())
        kind = turn.kind
        if kind in (Kind.DECLARE, Kind.BURY_JOKERS):
            if not chosen:
                self.do(A.pass_(HUMAN))
                return
            choice = self._choice()
            if choice is not None and sorted(choice.cards) == chosen:
                self.do(choice)
                return
            matches = [a for a in turn.choices() if sorted(a.cards) == chosen]
            if kind is Kind.DECLARE and len({a.suit for a in matches}) > 1:
                self.set_status(t(self.lang, "status.need_suit"), error=True)
                return
            if matches:
                self.do(matches[0])
            elif kind is Kind.DECLARE:
                self.do(A.declare(HUMAN, chosen))
            else:
                self.do(A.bury_jokers(HUMAN, chosen, ()))
            return
        if kind is Kind.TRIBUTE:
            choice = self._choice()
            if choice is not None and sorted(choice.cards) == chosen:
                self.do(choice)
            else:
                self.do(A.tribute(HUMAN, chosen))
            return
        maker = {Kind.RETURN: A.return_, Kind.BURY: A.bury, Kind.PLAY: A.play}[kind]
        self.do(maker(HUMAN, chosen))

    def action_pass(self) -> None:
        if not self._my_turn():
            return
        turn = self.turn
        assert turn is not None
        if not any(a.kind is Kind.PASS for a in turn.options or []):
            self.set_status(t(self.lang, "status.no_pass", verb=t(self.lang,
                                                                  f"verb.{turn.kind.value}")),
                            error=True)
            return
        self.do(A.pass_(HUMAN))

    def action_autopass(self) -> None:
        if self.session.match.phase is not Phase.DRAW:
            self.set_status(t(self.lang, "status.autopass.no"), error=True)
            return
        self.session.set_autopass()
        self.set_status(t(self.lang, "status.autopass"))
        self.pump()

    def action_cycle(self) -> None:
        if not self._my_turn():
            return
        turn = self.turn
        assert turn is not None
        choices = turn.choices()
        if not choices:
            self.set_status(t(self.lang, "status.no_cycle"), error=True)
            return
        self.cycle = (self.cycle + 1) % len(choices)
        self.select_cards(choices[self.cycle].cards)
        self.set_status(describe(choices[self.cycle], self.lang))
        self._redraw_turn()

    def action_hint(self) -> None:
        if not self._my_turn():
            return
        action = self.session.hint()
        if action is None:
            return
        turn = self.turn
        assert turn is not None
        if action.kind is Kind.PASS:
            self.selected = set()
            self.cycle = -1
            verb = t(self.lang, "verb.declare" if turn.kind is Kind.DECLARE
                     else "verb.bury_jokers")
            self.set_status(t(self.lang, "status.hint.pass", what=verb))
        else:
            self.select_cards(action.cards)
            choices = turn.choices()
            self.cycle = choices.index(action) if action in choices else -1
            what = describe(action, self.lang) if action.kind is not Kind.PLAY \
                else cards_plain(action.cards, self.lang)
            self.set_status(t(self.lang, "status.hint", what=what))
        self._redraw_turn()

    def action_counter(self) -> None:
        self.show_counter = not self.show_counter
        self.set_status(t(self.lang, "status.counter.on" if self.show_counter
                          else "status.counter.off"))
        self.session.prefs["counter"] = self.show_counter
        self._draw_counter()

    def action_language(self) -> None:
        self.lang = "en" if self.lang == "zh" else "zh"
        self.session.prefs["lang"] = self.lang
        self.set_status(t(self.lang, "status.lang"))
        self.refresh_all()
        result = self.session.summary
        if self._summary_open and result is not None and isinstance(self.screen, SummaryScreen):
            self.screen.show(self._summary_lines(result), self.lang)

    def action_help(self) -> None:
        self.push_screen(HelpScreen(self.lang))

    def save(self) -> Path | None:
        if self.session.record_path is None:
            return None
        try:
            path = self.session.save()
        except (OSError, GunziError) as exc:
            self._save_error = str(exc)
            self.set_status(t(self.lang, "status.save_failed", err=exc), error=True)
            return None
        self.saved_to = path
        self.set_status(t(self.lang, "status.saved", path=path))
        return path

    def action_save(self) -> None:
        self.save()

    def action_save_quit(self) -> None:
        """Save and quit; if saving fails, say so and quit only on a second q."""
        path = self.save()
        if path is None and self.session.record_path is not None and not self._quit_unsaved:
            self._quit_unsaved = True
            self.set_status(t(self.lang, "status.quit_unsaved", err=self._save_error),
                            error=True)
            return
        self.stop_bots()
        self.exit(path)
