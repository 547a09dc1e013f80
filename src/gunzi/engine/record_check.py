"""The one record checker of the hall, for every game, driven through the game protocol.

A record is JSON Lines: a header, then one event per line exactly as the engine wrote it
(``docs/records.md`` for the cards, ``docs/quoridor.md`` for 步步为营). A game's records
are described as data by a :class:`RecordFormat` (the header's format name, the game a
header starts, the decision an event records); :func:`check` then replays any of them
the same way: each recorded decision goes back through
:meth:`~gunzi.engine.game.GameState.apply` with validation on, and every event the game
makes must equal the record's, so a record is also a proof that the game kept its rules.

It lives at the bottom layer (the card engine) so that :mod:`gunzi.engine.records` and
:mod:`gunzi.quoridor.records` both reach it without an upward import; the formats are
gathered in :mod:`gunzi.games`. No file I/O here: :func:`read_lines` takes a stream.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import IO, Any, Generic, Protocol, TypeVar

from gunzi.engine.errors import GunziError, RecordError
from gunzi.engine.game import GameState


class _Event(Protocol):
    def to_dict(self) -> dict[str, Any]: ...


class RecordedGame(GameState[Any], Protocol):
    """A game of the protocol that also keeps its events, as its records are written."""

    @property
    def events(self) -> Sequence[_Event]:
        """Every event so far, oldest first."""


G = TypeVar("G", bound=RecordedGame)


@dataclass(frozen=True)
class RecordFormat(Generic[G]):
    """What one game's records are, as data for :func:`check`."""

    name: str  # the header's "format"
    start: Callable[[dict[str, Any]], G]  # the fresh game a header starts (RecordError if bad)
    action_of: Callable[[dict[str, Any]], Any]  # the decision an event records, or None

    def is_header(self, first: dict[str, Any]) -> bool:
        """Whether ``first`` is the header of a record of this format."""
        return first.get("type") == "header" and first.get("format") == self.name


@dataclass
class Checking(Generic[G]):
    """A record being checked: its header, the game, and its checked events (lazily)."""

    header: dict[str, Any]
    game: G
    events: Iterator[tuple[int, dict[str, Any]]]  # (event number, event), once checked


def check(lines: Iterable[dict[str, Any]], fmt: RecordFormat[G]) -> Checking[G]:
    """Start checking a record of ``fmt``: the header is read and the game started now;
    each event is checked as ``events`` is iterated (RecordError at the first bad one)."""
    head, rest = split_header(lines)
    game = fmt.start(head)

    def perform(action: Any) -> list[dict[str, Any]]:
        before = len(game.events)
        game.apply(action)
        return [e.to_dict() for e in game.events[before:]]

    return Checking(head, game, checked_events(rest, fmt.action_of, perform))


def json_problem(exc: json.JSONDecodeError) -> str:
    """What is wrong with a JSON line and where, as a sentence: ``invalid control character
    at column 31 (a tab or line break inside a string must be written \\t or \\n)``."""
    end = len(exc.doc.rstrip())
    if exc.pos >= end:
        return f"the line ends at column {end} before its JSON value is complete (cut short?)"
    what = exc.msg.removesuffix(" at")
    text = f"{what[:1].lower()}{what[1:]} at column {exc.colno}"
    if what.startswith("Invalid control character"):
        text += r" (a tab or line break inside a string must be written \t or \n)"
    return text


def read_lines(stream: IO[str] | Iterable[str]) -> Iterator[dict[str, Any]]:
    for number, line in enumerate(stream):
        if not line.strip():
            continue
        try:
            data = json.loads(line.rstrip("\r\n"))  # columns count within the line
        except json.JSONDecodeError as exc:
            raise RecordError(f"line {number + 1} is not JSON: {json_problem(exc)}") from None
        except (ValueError, RecursionError) as exc:  # a huge integer; nesting too deep
            what = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
            raise RecordError(f"line {number + 1} is not readable JSON: {what[:120]}") from None
        if not isinstance(data, dict):
            raise RecordError(f"line {number + 1} is not a JSON object")
        if not isinstance(data.get("type", ""), str):
            raise RecordError(f"line {number + 1}: 'type' must be a string")
        yield data


def split_header(
    lines: Iterable[dict[str, Any]],
) -> tuple[dict[str, Any], Iterator[dict[str, Any]]]:
    """The record's first line and an iterator over the rest."""
    it = iter(lines)
    try:
        return next(it), it
    except StopIteration:
        raise RecordError("the record is empty") from None


def checked_events(
    events: Iterable[dict[str, Any]],
    action_of: Callable[[dict[str, Any]], Any],
    perform: Callable[[Any], Sequence[dict[str, Any]]],
) -> Iterator[tuple[int, dict[str, Any]]]:
    """Re-apply each decision of a record and check each event against the engine's.

    ``action_of`` gives the decision an event records (None for the engine's own events);
    ``perform`` applies a decision with validation on and returns the events it made.
    Yields ``(number, event)`` once the event is checked; raises RecordError naming the
    event number (and the rule for an illegal decision). Shared by every game's records.
    """
    pending: list[dict[str, Any]] = []  # events the engine made that the record must match
    number = 0
    for number, event in enumerate(events, start=1):
        v = event.get("v", number)  # card records number their events; board records do not
        if v != number:
            raise RecordError(
                f"the event on line {number + 1} says v={v!r}: "
                + ("an event before it is missing or out of order"
                   if isinstance(v, int) and v > number
                   else "events before it are repeated or out of order"), number)
        try:
            action = action_of(event)
        except (GunziError, KeyError, TypeError, ValueError) as exc:  # a field missing or odd
            what = exc if isinstance(exc, GunziError) else f"{type(exc).__name__} {exc}"[:120]
            raise RecordError(f"malformed {event.get('type')!r} event: {what}", number) from None
        if action is not None:
            if pending:
                raise RecordError(f"the record skips the engine's {pending[0]['type']!r} event",
                                  number)
            try:
                pending = list(perform(action))
            except GunziError as exc:
                rule = getattr(exc, "rule", "")
                raise RecordError(f"illegal {event.get('type')}: {exc}", number, rule) from None
        if not pending:
            raise RecordError(f"unexpected {event.get('type')!r} event", number)
        expected = pending.pop(0)
        if expected != event:
            raise RecordError(
                f"event differs from the rules' outcome: record has {json.dumps(event)}, "
                f"the engine gives {json.dumps(expected)}",
                number,
            )
        yield number, event
    if pending:
        raise RecordError(f"the record stops before the engine's {pending[0]['type']!r} event",
                          number + 1)
