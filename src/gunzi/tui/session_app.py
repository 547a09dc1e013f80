"""What the terminal apps of every game share: the session moves by itself until the human
must decide, and a bot's decision is computed on a worker thread when there is a delay.

:class:`SessionApp` drives a :class:`~gunzi.tui.game_session.GameSession`: :meth:`pump`
makes the automatic steps; a bot's move worth showing waits ``delay`` seconds, then the
bot thinks off the UI thread (keys and redraws stay live) and its answer is applied only
if the game has not moved on meanwhile. With no delay (tests, scripts) the steps are made
at once. The card screen (:class:`gunzi.tui.app.GunziApp`) and the board screen
(:class:`gunzi.tui.board_app.BoardApp`) stay separate widgets on top of it.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any, Generic, TypeVar

from textual import work
from textual.app import App
from textual.timer import Timer

from gunzi.tui.game_session import GameSession

S = TypeVar("S", bound=GameSession[Any])


class SessionApp(App[Path | None], Generic[S]):
    """A Textual app around one game session."""

    def __init__(self, session: S, *, delay: float) -> None:
        super().__init__()
        self.session = session
        self.delay = max(0.0, delay)
        self._timer: Timer | None = None
        self._thinking = False  # a bot decision is being computed on a worker thread

    def pumped(self) -> None:
        """After the automatic steps: redraw (each app its own screen)."""

    def pump(self) -> None:
        """Let the session move (deals, bots, automatic passes) until the human must decide."""
        s = self.session
        if self._timer is not None or self._thinking:
            return
        while s.needs_step():
            if self.delay > 0 and s.bot_to_play():
                self._timer = self.set_timer(self.delay, self._tick)
                break
            s.step()
        self.pumped()

    def _tick(self) -> None:
        self._timer = None
        if self.session.bot_to_play():
            self._thinking = True
            self._think(self.session.progress())
            return
        self.session.step()
        self.pump()

    @work(thread=True, exclusive=True, group="bot")
    def _think(self, at: int) -> None:
        """A bot's decision, off the UI thread so keys and redraws stay live."""
        action = self.session.bot_action()
        with contextlib.suppress(RuntimeError):  # the app closed while the bot thought
            self.call_from_thread(self._thought, action, at)

    def _thought(self, action: Any, at: int) -> None:
        self._thinking = False
        self.session.apply_bot(action, at)
        self.pump()

    def stop_bots(self) -> None:
        """No more automatic steps (the app is closing)."""
        if self._timer is not None:
            self._timer.stop()
            self._timer = None


__all__ = ["SessionApp"]
