"""The match's event log, with the events of finished hands stored compactly.

A hand makes about 330 events; as named tuples with read-only dicts they take about
125 KiB, and a live match (a hall's table, a long simulation) kept every one of them.
The log keeps the events of the hand in play as they are, and packs each earlier hand
into one ``marshal`` string (about 20 KiB) when the first event of a later hand
arrives. Reading a packed event unpacks its hand again, into events equal to the ones
appended; the last hand read by index stays unpacked until the next hand is packed.
Everything that reads events (views and streams, records, replays, the server's store)
reads them through this sequence, unchanged.

``marshal`` is the standard library's fastest serializer of plain data; its strings
never leave the process, so its format changing between Python versions does not
matter. Compressing them (zlib, level 1) would take a hand to about 5 KiB for a third
more packing time; 20 KiB is within the issue's 30 (docs/performance.md).
"""

from __future__ import annotations

import marshal
from bisect import bisect_right
from collections.abc import Callable, Iterator, Mapping, Sequence
from itertools import islice
from types import MappingProxyType
from typing import Any, overload

from gunzi.engine.events import ATOMS, NOBODY, Event

# The types of the events the engine adds flat (EventLog.add_flat: numbers, text, tuples of
# them), which are most of a hand's events.
FLAT = frozenset(("draw", "play", "trick"))

# An event as a packed hand holds it: (type, public, secret, audience, private, walked),
# the payloads as plain dicts (``walked``: nested ones too, see _plain). Not its number
# or hand: a packed hand's events share its hand and are numbered on from its first.
Row = tuple[str, dict[str, Any], dict[str, Any] | None, frozenset[int], bool, bool]
Packed = bytes | list[Event]  # a hand as one string, or as it was if marshal cannot write it

# An Event from the tuple of its fields, without the named tuple's own __new__ (a Python
# function around this very call): the log builds ~340 events a hand.
_event: Callable[[type[Event], tuple[Any, ...]], Event] = tuple.__new__


def _plain(value: Any) -> Any:
    """Frozen event data as ``marshal`` writes it: read-only maps become dicts; tuples
    stay tuples (a tuple of text, such as a deck, as it is)."""
    kind = type(value)
    if kind is MappingProxyType or kind is dict:
        return {k: _plain(v) for k, v in value.items()}
    if kind is tuple and not set(map(type, value)) <= ATOMS:
        return tuple([_plain(v) for v in value])
    return value


def _read_only(value: Any) -> Any:
    """The inverse of :func:`_plain`: dicts become read-only maps again."""
    kind = type(value)
    if kind is dict:
        return MappingProxyType({k: _read_only(v) for k, v in value.items()})
    if kind is tuple and not set(map(type, value)) <= ATOMS:
        return tuple([_read_only(v) for v in value])
    return value


def _walked_row(ev: Event) -> Row:
    secret = None if ev.secret is None else _plain(ev.secret)
    return (ev.type, _plain(ev.public), secret, ev.audience, ev.private, True)


def pack(events: list[Event], rows: list[Row]) -> Packed:
    """One hand's events, given with their rows, as one string (see :func:`unpack`); the
    list itself in the unlikely case that marshal cannot write a flat event's values."""
    first = events[0]
    try:
        return marshal.dumps((first.v, first.hand, rows))
    except ValueError:
        return events


def unpack(data: Packed) -> list[Event]:
    """The events :func:`pack` was given, equal to them (payloads read-only again)."""
    if isinstance(data, list):
        return data
    v, hand, rows = marshal.loads(data)
    out = []
    for type_, public, secret, audience, private, walked in rows:
        if walked:
            public, secret = _read_only(public), _read_only(secret)
        else:
            public = MappingProxyType(public)
            secret = None if secret is None else MappingProxyType(secret)
        out.append(_event(Event, (v, hand, type_, public, secret, audience or NOBODY, private)))
        v += 1
    return out


class EventLog(Sequence[Event]):
    """Every event of a match in order: a read-only sequence with :meth:`add`.

    Structural sharing makes :meth:`copy` cheap: packed hands are immutable strings.
    """

    def __init__(self) -> None:
        self.packed: list[Packed] = []  # one per finished hand, oldest first
        self.ends: list[int] = []  # the number of events up to each packed hand's end
        self.tail: list[Event] = []  # the events not packed yet (the hand in play)
        self.rows: list[Row] = []  # the tail's events as they will be packed
        self.base = 0  # how many events are packed
        self.length = 0  # how many events in all: len(log), read as a plain attribute
        # (k, events): the k-th packed hand unpacked, as one value, so that a reader in
        # another thread never pairs one hand's number with another's events.
        self.cache: tuple[int, list[Event]] = (-1, [])

    def add(self, hand: int, type_: str, public: Mapping[str, Any],
            secret: Mapping[str, Any] | None = None, audience: frozenset[int] = NOBODY,
            private: bool = False) -> Event:
        """Append the next event (numbered on from the last; its payloads frozen, see
        :func:`~gunzi.engine.events.freeze`) and return it. The first event of a new hand
        packs the events before it."""
        event = self._append(hand, type_, public, secret, audience, private)
        self.rows.append(_walked_row(event))
        return event

    def add_flat(self, hand: int, type_: str, public: dict[str, Any],
                 secret: dict[str, Any] | None = None, audience: frozenset[int] = NOBODY
                 ) -> Event:
        """:meth:`add` for an event whose values are already immutable (numbers, text,
        tuples of them): the log makes the read-only maps itself and packs the dicts as
        they are, so they must not change afterwards (the draw, play and trick events)."""
        event = self._append(hand, type_, MappingProxyType(public),
                             None if secret is None else MappingProxyType(secret), audience,
                             False)
        self.rows.append((type_, public, secret, audience, False, False))
        return event

    def _append(self, hand: int, type_: str, public: Mapping[str, Any],
                secret: Mapping[str, Any] | None, audience: frozenset[int], private: bool
                ) -> Event:
        tail = self.tail
        if tail and hand != tail[0].hand:
            self.packed.append(pack(tail, self.rows))
            self.base += len(tail)
            self.ends.append(self.base)
            self.tail = tail = []
            self.rows = []
            self.cache = (-1, [])
        self.length += 1
        event = _event(Event, (self.length, hand, type_, public, secret, audience, private))
        tail.append(event)
        return event

    def copy(self) -> EventLog:
        """An independent log with the same events (the packed strings shared)."""
        new = EventLog()
        new.packed = list(self.packed)
        new.ends = list(self.ends)
        new.tail = list(self.tail)
        new.rows = list(self.rows)
        new.base = self.base
        new.length = self.length
        return new

    def __len__(self) -> int:
        return self.length

    @overload
    def __getitem__(self, index: int) -> Event: ...

    @overload
    def __getitem__(self, index: slice) -> list[Event]: ...

    def __getitem__(self, index: int | slice) -> Event | list[Event]:
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step != 1:
                return list(self)[index]
            return list(islice(self._from(start), max(stop - start, 0)))
        i = index + len(self) if index < 0 else index
        if not 0 <= i < len(self):
            raise IndexError("event index out of range")
        if i >= self.base:
            return self.tail[i - self.base]
        k = bisect_right(self.ends, i)
        cached, events = self.cache
        if cached != k:  # reads by index tend to stay in one hand: keep it unpacked
            events = unpack(self.packed[k])
            self.cache = (k, events)
        return events[i - (self.ends[k - 1] if k else 0)]

    def _from(self, start: int) -> Iterator[Event]:
        """The events from the ``start``-th (0-based) on, unpacking only the hands needed."""
        k = bisect_right(self.ends, start)
        skip = start - (self.ends[k - 1] if k else 0)
        for hand in range(k, len(self.packed)):
            events = unpack(self.packed[hand])
            yield from events[skip:] if skip else events
            skip = 0
        yield from self.tail[skip:]

    def __iter__(self) -> Iterator[Event]:
        return self._from(0)

    def __eq__(self, other: object) -> bool:
        """Equal to a log or list holding equal events in the same order."""
        if not isinstance(other, (EventLog, list)):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]  # mutable, like a list

    def __repr__(self) -> str:
        return f"EventLog({len(self)} events, {len(self.packed)} hands packed)"
