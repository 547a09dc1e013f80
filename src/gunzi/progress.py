"""Progress of long commands (arena, simulate, bench) on stderr, so stdout stays the result.

On a terminal a Rich bar (gone when the run ends); elsewhere, if asked, one plain line every
``every`` steps, for logs; nothing at all when quiet.
"""

from __future__ import annotations

import sys
from typing import Any, Self

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn


class Reporter:
    """``with Reporter("arena", 200, "pairs") as r: ... r.update(done, text, seconds)``.

    ``every``: without a terminal, a line every that many steps (0: about every tenth of
    the run); ``None``: no lines without a terminal. ``start``: the steps done before (a
    resumed run), where the bar starts.
    """

    def __init__(self, label: str, total: int, unit: str, *, every: int | None = 0,
                 quiet: bool = False, start: int = 0) -> None:
        self.label = label
        self.total = total
        self.start = start
        self.unit = unit
        self.every = None if every is None else every if every > 0 else max(25, total // 10)
        self.quiet = quiet
        self.bar: Progress | None = None
        self.task: Any = None
        if not quiet and sys.stderr.isatty():
            self.bar = Progress(
                TextColumn(label), BarColumn(), MofNCompleteColumn(), TextColumn(unit),
                TextColumn("{task.fields[text]}"), TimeElapsedColumn(),
                console=Console(stderr=True), transient=True,
            )

    def __enter__(self) -> Self:
        if self.bar is not None:
            self.bar.start()
            self.task = self.bar.add_task(self.unit, total=self.total, completed=self.start,
                                          text="")
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()

    def update(self, done: int, text: str = "", seconds: float | None = None) -> None:
        if self.quiet:
            return
        if self.bar is not None:
            self.bar.update(self.task, completed=done, text=text)
        elif self.every is not None and (done % self.every == 0 or done == self.total):
            parts = [f"{done}/{self.total} {self.unit}", *([text] if text else []),
                     *([f"{seconds:.1f} s"] if seconds is not None else [])]
            sys.stderr.write(f"{self.label}: {', '.join(parts)}\n")
            sys.stderr.flush()


__all__ = ["Reporter"]
