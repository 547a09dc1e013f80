"""Reading back a 步步为营 game saved by the terminal (no UI here: `gunzi play` checks a
``--resume`` file before it starts the app).

The record is an ordinary 步步为营 record (:mod:`gunzi.quoridor.records`); its header
carries a side field ``"tui"``: ``{"format": "gunzi-tui-board", "version": 1, "human": 0,
"bots": [...], "seed": n, "prefs": {"lang": "zh"}}``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gunzi.engine import records as card_records
from gunzi.engine.errors import GunziError, RecordError
from gunzi.quoridor import records
from gunzi.quoridor.game import QuoridorGame
from gunzi.tui.i18n import LANGS

TUI_FORMAT = "gunzi-tui-board"
TUI_VERSION = 1


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
    try:
        with path.open(encoding="utf-8") as fh:
            lines = list(card_records.read_lines(fh))
    except OSError as exc:
        raise RecordError(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise RecordError(f"cannot read {path}: not UTF-8 text") from None
    if not lines:
        raise RecordError(f"{path} is empty")
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


__all__ = ["TUI_FORMAT", "TUI_VERSION", "SavedBoard", "is_board_record", "load_board"]
