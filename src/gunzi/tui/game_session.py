"""The one terminal session of every game, without the terminal: the human against bots,
driven through the game protocol, with bot decisions, save and resume.

:class:`GameSession` holds a game of the protocol (:class:`~gunzi.engine.game.GameState`
plus ``verify`` and ``events``, which both engines have), the human's seat (0) and a bot
per other seat. What it does the same for every game:

* a bot's decision (:meth:`GameSession.bot_action`) only reads the game, so an app may
  compute it on a worker thread (:mod:`gunzi.tui.session_app`) and apply it later with
  :meth:`~GameSession.apply_bot`, which refuses it if the game moved on meanwhile; the
  bot's randomness is seeded by the session seed and the game's progress, so a resumed
  game plays on exactly as it would have without the interruption; a bot that fails or
  answers illegally is replaced by a random legal action and noted in ``bot_errors``;
* the human's action is checked before it is applied (:meth:`~GameSession.human`);
* the record is written whole and then moved into place (:meth:`~GameSession.save`), and
  an automatic save that fails keeps the game going with the error in ``save_error``;
* a saved record is read back with :func:`read_record` and checked with the one record
  checker before a subclass continues it.

A game adds what is its own: the bot call, the random fallback, the measure of progress,
the record text and the terminal's side field in its header
(:class:`gunzi.tui.session.Session` for the cards,
:class:`gunzi.tui.board_save.BoardSession` for 步步为营).
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

from gunzi.engine.errors import GunziError, RecordError
from gunzi.engine.game import GameState
from gunzi.engine.record_check import read_lines

HUMAN = 0


class SessionGame(GameState[Any], Protocol):
    """A game of the protocol that can also check an action without applying it."""

    def verify(self, action: Any) -> None:
        """Raise the error ``apply`` would raise for ``action``; change nothing."""


G = TypeVar("G", bound=SessionGame)


def seeded(*parts: object) -> random.Random:
    """A generator seeded from text (deterministic across runs: str seeds hash with SHA-512)."""
    return random.Random(":".join(str(p) for p in parts))  # noqa: S311 - reproducible games


def read_record(path: str | Path) -> list[dict[str, Any]]:
    """The lines of a saved record (RecordError if it cannot be read or is empty)."""
    source = Path(path)
    try:
        with source.open(encoding="utf-8") as fh:
            lines = list(read_lines(fh))
    except OSError as exc:
        raise RecordError(f"cannot read {source}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise RecordError(f"cannot read {source}: not UTF-8 text") from None
    if not lines:
        raise RecordError(f"the record {source} is empty")
    return lines


class GameSession(ABC, Generic[G]):
    """A game between the human (seat 0) and bots, saved to ``record_path``."""

    tui_format = ""  # the side field's format name
    tui_version = 1
    makes_folders = True  # save creates the record's folder if it is missing

    def __init__(self, game: G, *, seed: int, record_path: str | Path | None,
                 bot_names: Sequence[str]) -> None:
        self.game = game
        self.seed = seed
        self.record_path = Path(record_path) if record_path is not None else None
        self.bot_names = list(bot_names)  # seats 1, 2, ...
        self.bot_errors: list[tuple[int, str]] = []
        self.prefs: dict[str, Any] = {}  # the screen's settings, kept in the record
        self.resumed_from: Path | None = None
        self.save_error: OSError | None = None  # why the last automatic save failed

    # ------------------------------------------------------------ per game
    @abstractmethod
    def progress(self) -> int:
        """A count that grows with every action (seeds the bots; dates a bot's thought)."""

    @abstractmethod
    def choose(self, seat: int, rng: random.Random) -> Any:
        """The action the bot at ``seat`` chooses now."""

    @abstractmethod
    def random_action(self, seat: int, rng: random.Random) -> Any:
        """A random legal action of ``seat`` (the fallback for a failing bot)."""

    @abstractmethod
    def record_text(self) -> str:
        """The record as JSON Lines, its header carrying :meth:`tui_field`."""

    def tui_extra(self) -> dict[str, Any]:
        """The game's own entries of the side field (after the shared ones)."""
        return {}

    # ------------------------------------------------------------ state
    @property
    def is_over(self) -> bool:
        return self.game.is_over

    @property
    def to_act(self) -> int | None:
        return self.game.to_act

    def needs_step(self) -> bool:
        """Whether the session should make an automatic step (here: a bot to act)."""
        seat = self.game.to_act
        return not self.game.is_over and seat is not None and seat > HUMAN

    def bot_to_play(self) -> bool:
        """The next step is a bot's decision worth showing with a delay (and thinking off
        the screen's thread); here every step is."""
        return self.needs_step()

    # ------------------------------------------------------------ moves
    def apply(self, action: Any) -> Any:
        """Apply a validated action (every action of the session goes through here)."""
        return self.game.apply(action)

    def step(self) -> Any:
        """One automatic step (here: the bot to act decides)."""
        if not self.needs_step():
            return None
        return self.apply(self.bot_action())

    def bot_action(self) -> Any:
        """The decision of the bot to act now. It only reads the game, so the app can run
        it on a worker thread while the screen stays live (a search bot thinks ~1 s)."""
        seat = self.game.to_act
        assert seat is not None and seat > HUMAN
        at = self.progress()
        try:
            action = self.choose(seat, seeded(self.seed, at, seat))
            self.game.verify(action)
        except Exception as exc:  # a bot bug must not end the human's game
            self.bot_errors.append((seat, f"{type(exc).__name__}: {exc}"))
            action = self.random_action(seat, seeded(self.seed, at, seat, "fb"))
        return action

    def apply_bot(self, action: Any, at: int) -> bool:
        """Apply a bot decision computed at progress ``at``; False (nothing done) if the
        game moved on meanwhile."""
        if self.progress() != at or not self.bot_to_play():
            return False
        self.apply(action)
        return True

    def run_bots(self, limit: int = 100_000) -> int:
        """Step until the human must decide (or the end); return the steps made."""
        n = 0
        while n < limit and self.needs_step():
            self.step()
            n += 1
        return n

    def check(self, action: Any) -> str | None:
        """None if the game would accept ``action`` now, else the engine's reason."""
        try:
            self.game.verify(action)
        except GunziError as exc:
            return str(exc)
        return None

    def human(self, action: Any) -> str | None:
        """Apply the human's action; return the engine's error text (and change nothing)."""
        if getattr(action, "seat", HUMAN) != HUMAN:
            return f"seat {action.seat} is a bot"
        err = self.check(action)
        if err is None:
            self.apply(action)
        return err

    # ------------------------------------------------------------ save
    def tui_field(self) -> dict[str, Any]:
        """The terminal's side field of the record header."""
        return {"format": self.tui_format, "version": self.tui_version, "human": HUMAN,
                "bots": list(self.bot_names), **self.tui_extra(), "prefs": dict(self.prefs)}

    def save(self, path: str | Path | None = None) -> Path:
        """Write the record whole, then move it into place: a crash never leaves half a file."""
        target = Path(path) if path is not None else self.record_path
        if target is None:
            raise GunziError("no record file to save to")
        if self.makes_folders:
            target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(target.name + ".tmp")
        tmp.write_text(self.record_text(), encoding="utf-8")
        tmp.replace(target)
        return target

    def autosave(self) -> None:
        """Save to ``record_path`` if there is one; a failure (a full disk) must not end
        the game: it is kept in ``save_error`` for the app to say."""
        if self.record_path is None:
            return
        try:
            self.save()
            self.save_error = None
        except OSError as exc:
            self.save_error = exc


__all__ = ["HUMAN", "GameSession", "SessionGame", "read_record", "seeded"]
