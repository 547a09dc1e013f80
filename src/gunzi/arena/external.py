"""External bots: a subprocess that answers decisions over JSON lines (docs/arena.md).

The arena writes one JSON object per line to the bot's stdin and reads one per
line from its stdout:

* ``{"type": "new_hand", "protocol": 1, "seat": s, "rules": name}`` — a new hand starts;
  forget everything about the previous one. No answer.
* ``{"type": "decision", "id": n, "seat": s, "kind": k, "view": {...},
  "actions": [...] | null, "count": c, "time_limit": t}`` (plus ``"sample"``, one
  legal action, when ``actions`` is null) — answer with one line
  ``{"action": {...}}`` (optionally echoing ``"id": n``) within ``time_limit`` seconds.
* ``{"type": "bye"}`` — the run is over; exit.

The bot's stderr is passed through. A late, malformed or illegal answer raises
:class:`BotFault`; the arena logs it, plays a fallback move and counts it. Replies
arrive in order, so an answer that comes after its deadline is recognised (by its
``id`` when echoed, else by position) and dropped.
"""

from __future__ import annotations

import contextlib
import json
import queue
import random
import shlex
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from typing import IO, Any

from gunzi.bots.base import Bot, Decision
from gunzi.engine import actions as A
from gunzi.engine.actions import Action
from gunzi.engine.errors import GunziError

PROTOCOL = 1
STARTUP_GRACE = 5.0  # extra seconds for the first decision of a fresh process (imports, loading)
MAX_LINE = 1 << 20
MAX_STARTS = 10  # a process that keeps dying is not restarted more often than this

TIMEOUT = "timeout"
MALFORMED = "malformed"
ILLEGAL = "illegal"
CRASH = "crash"
FAULT_KINDS = (TIMEOUT, MALFORMED, ILLEGAL, CRASH)


class BotStartError(GunziError):
    """The external bot never worked: its command cannot start, or it exited before its
    first answer. The arena stops instead of playing a whole run of fallback moves."""


class BotFault(Exception):
    """A bot did not produce a usable answer; ``kind`` is one of :data:`FAULT_KINDS`."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def _plain(obj: Any) -> Any:
    if isinstance(obj, Mapping):
        return dict(obj)
    if isinstance(obj, set | frozenset):
        return sorted(obj)
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")


def dumps(message: Mapping[str, Any]) -> str:
    return json.dumps(message, ensure_ascii=False, separators=(",", ":"), default=_plain)


def decision_message(decision: Decision, ident: int, time_limit: float,
                     rng: random.Random | None = None) -> dict[str, Any]:
    """The ``decision`` line; when the actions are not listed, ``sample`` is one legal action."""
    actions = None if decision.actions is None else [a.to_dict() for a in decision.actions]
    message: dict[str, Any] = {
        "type": "decision",
        "id": ident,
        "seat": decision.seat,
        "kind": decision.kind.value,
        "view": decision.view,
        "actions": actions,
        "count": decision.count,
        "time_limit": time_limit,
    }
    if actions is None and rng is not None:
        message["sample"] = decision.sample(rng).to_dict()
    return message


_EOF = None


def _pump(stream: IO[str], out: queue.Queue[str | None]) -> None:
    try:
        for line in stream:
            out.put(line)
    except (OSError, ValueError):
        pass
    out.put(_EOF)


class ExternalBot(Bot):
    """A bot living in a subprocess started from ``command`` (split like a shell would)."""

    name = "cmd"

    def __init__(self, command: str | Sequence[str], time_limit: float = 2.0,
                 startup_grace: float = STARTUP_GRACE) -> None:
        self.argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not self.argv:
            raise GunziError("an external bot needs a command, e.g. cmd:python mybot.py")
        self.command = " ".join(self.argv)
        self.time_limit = time_limit
        self.startup_grace = startup_grace
        self.proc: subprocess.Popen[str] | None = None
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.ident = 0
        self.owed: list[int] = []  # ids of timed-out decisions whose replies are still due
        self.fresh = True
        self.dead: str | None = None  # why the process is unusable
        self.starts = 0
        self.answered = 0  # decisions answered (in time or late) over all starts
        self.seat = -1

    # ----------------------------------------------------------- process
    def start(self) -> None:
        self.close()
        self.lines = queue.Queue()
        self.owed = []
        self.fresh = True
        self.dead = None
        self.starts += 1
        try:
            self.proc = subprocess.Popen(  # the user names the bot command
                self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                encoding="utf-8", bufsize=1,
            )
        except OSError as exc:
            self.proc = None
            self.dead = f"cannot start {self.command!r}: {exc.strerror or exc}"
            if self.answered == 0:
                raise BotStartError(self.dead) from None
            return
        assert self.proc.stdout is not None
        threading.Thread(target=_pump, args=(self.proc.stdout, self.lines), daemon=True).start()

    def close(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None:
            return
        try:
            if proc.poll() is None and proc.stdin is not None:
                proc.stdin.write(dumps({"type": "bye"}) + "\n")
                proc.stdin.flush()
                proc.stdin.close()
            proc.wait(timeout=1.0)
        except (OSError, ValueError, subprocess.TimeoutExpired):
            proc.kill()
            proc.wait()

    def _exit_text(self) -> str:
        code = None
        if self.proc is not None:
            # Its pipes close a moment before the process is reaped: wait briefly for the
            # exit code, so the message names it even on a busy machine.
            with contextlib.suppress(subprocess.TimeoutExpired):
                code = self.proc.wait(timeout=2.0)
        return f"the bot process {self.command!r} exited" + (f" with code {code}" if code else "")

    def _send(self, message: Mapping[str, Any]) -> None:
        if self.proc is None or self.proc.stdin is None:
            raise BotFault(CRASH, self.dead or "the bot process is not running")
        try:
            self.proc.stdin.write(dumps(message) + "\n")
            self.proc.stdin.flush()
        except (OSError, ValueError):
            self.dead = self._exit_text()
            if self.answered == 0:
                raise BotStartError(self.dead + " before answering its first decision") from None
            raise BotFault(CRASH, self.dead) from None

    # --------------------------------------------------------------- bot
    def new_hand(self) -> None:
        if self.proc is None or self.dead is not None:
            # (Re)start at most once per hand, and not forever: a broken bot cannot loop.
            if self.starts >= MAX_STARTS:
                if self.dead and "gave up" not in self.dead:
                    self.dead += f"; gave up after {self.starts} starts"
                return
            self.start()
        if self.dead is None:
            with contextlib.suppress(BotFault):  # counted at its next decision
                self._send({"type": "new_hand", "protocol": PROTOCOL, "seat": self.seat})

    def choose(self, decision: Decision, rng: random.Random) -> Action:
        if self.dead is not None:
            raise BotFault(CRASH, self.dead + " (the arena restarts it at the next hand)")
        self.ident += 1
        ident = self.ident
        self._send(decision_message(decision, ident, self.time_limit, rng))
        limit = self.time_limit + (self.startup_grace if self.fresh else 0.0)
        self.fresh = False
        deadline = time.monotonic() + limit
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self.owed.append(ident)
                raise BotFault(TIMEOUT, f"no answer within {limit:g} s (decision {ident})")
            try:
                line = self.lines.get(timeout=remaining)
            except queue.Empty:
                continue
            if line is _EOF:
                self.dead = self._exit_text()
                if self.answered == 0:
                    raise BotStartError(self.dead + " before answering its first decision")
                raise BotFault(CRASH, self.dead)
            self.answered += 1
            reply = self._parse(line)
            if self._stale(reply):
                continue
            return self._action(reply, line)

    def _parse(self, line: str) -> Any:
        if len(line) > MAX_LINE:
            return None
        try:
            return json.loads(line)
        except json.JSONDecodeError:
            return None

    def _stale(self, reply: Any) -> bool:
        """Drop the reply to a decision that already timed out (replies come in order)."""
        if not self.owed:
            return False
        ident = reply.get("id") if isinstance(reply, dict) else None
        if isinstance(ident, int) and ident not in self.owed:
            if ident == self.ident:  # the late ones were never sent; this one is current
                self.owed.clear()
                return False
            return True
        if isinstance(ident, int):
            self.owed = [i for i in self.owed if i > ident]
        else:
            self.owed.pop(0)
        return True

    def _action(self, reply: Any, line: str) -> Action:
        shown = line.strip()
        if len(shown) > 200:
            shown = shown[:200] + "…"
        if not isinstance(reply, dict):
            raise BotFault(MALFORMED, f"answer is not a JSON object: {shown!r}")
        if "action" not in reply:
            raise BotFault(MALFORMED, f"answer has no 'action' field: {shown!r}")
        try:
            return A.from_dict(reply["action"])
        except GunziError as exc:
            raise BotFault(MALFORMED, f"unreadable action ({exc}): {shown!r}") from None
