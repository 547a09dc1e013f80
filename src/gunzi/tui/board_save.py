"""A 步步为营 game in the terminal without the terminal: :class:`BoardSession` on the one
session layer of every game (:mod:`gunzi.tui.game_session`: bot decisions, worker-thread
safety, checked human actions, saving), and reading a saved game back (no UI here:
`gunzi play` checks a ``--resume`` file before it starts the app).

The record is an ordinary 步步为营 record (:mod:`gunzi.quoridor.records`), saved after every
action; its header carries a side field ``"tui"``: ``{"format": "gunzi-tui-board",
"version": 1, "human": 0, "bots": [...], "seed": n, "prefs": {"lang": "zh"}}``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gunzi.engine import records as card_records
from gunzi.engine.errors import GunziError
from gunzi.quoridor import records
from gunzi.quoridor.bots import Bot
from gunzi.quoridor.game import Action, Event, QuoridorGame
from gunzi.tui.game_session import GameSession, read_record
from gunzi.tui.i18n import LANGS

TUI_FORMAT = "gunzi-tui-board"
TUI_VERSION = 1


class BoardSession(GameSession[QuoridorGame]):
    """A 步步为营 game between the human (seat 0) and bots, saved after every action."""

    tui_format = TUI_FORMAT
    tui_version = TUI_VERSION
    makes_folders = False  # a missing folder is a failed save the app reports

    def __init__(self, game: QuoridorGame, bots: Sequence[Bot], bot_names: Sequence[str], *,
                 seed: int, record_path: Path | None) -> None:
        super().__init__(game, seed=seed, record_path=record_path, bot_names=bot_names)
        self.bots: list[Bot | None] = [None, *bots]

    def progress(self) -> int:
        return self.game.turns

    def choose(self, seat: int, rng: random.Random) -> Action:
        bot = self.bots[seat]
        assert bot is not None
        return bot.choose(self.game, seat, rng)

    def random_action(self, seat: int, rng: random.Random) -> Action:
        return rng.choice(self.game.legal_actions(seat))

    def tui_extra(self) -> dict[str, Any]:
        return {"seed": self.seed}

    def record_text(self) -> str:
        return records.dumps(self.game, ["you", *self.bot_names], {"tui": self.tui_field()})

    def apply(self, action: Action) -> Event:
        event = self.game.apply(action)
        self.autosave()
        return event


@dataclass
class SavedBoard:
    """A saved terminal game read back: its game as it stands and its terminal settings."""

    game: QuoridorGame
    bots: list[str]
    seed: int | None
    lang: str | None


def is_board_record(path: Path) -> bool:
    """Whether ``path`` starts with a 步步为营 record header (False if it cannot be read)."""
    try:
        with path.open(encoding="utf-8") as fh:
            first = next(card_records.read_lines(fh), None)
    except (OSError, UnicodeDecodeError, GunziError):
        return False
    return first is not None and records.is_quoridor_header(first)


def load_board(path: Path) -> SavedBoard:
    """Replay a record saved by the board app (every action re-validated)."""
    lines = read_record(path)
    game = records.replay(lines).game
    tui = lines[0].get("tui") or {}
    bots = tui.get("bots") if isinstance(tui, dict) else None
    seed = tui.get("seed") if isinstance(tui, dict) else None
    prefs = tui.get("prefs") if isinstance(tui, dict) else None
    lang = prefs.get("lang") if isinstance(prefs, dict) else None
    return SavedBoard(
        game,
        [str(b) for b in bots] if isinstance(bots, list) and bots else ["rule"],
        seed if isinstance(seed, int) and not isinstance(seed, bool) else None,
        lang if lang in LANGS else None,
    )


__all__ = ["TUI_FORMAT", "TUI_VERSION", "BoardSession", "SavedBoard", "is_board_record",
           "load_board"]
