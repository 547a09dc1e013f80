"""Events: the one stream everything else is derived from.

Each event has a public part, and optionally a secret part with the seats
allowed to see it (its *audience*). A record holds events in full; a seat or
a spectator gets them through :func:`gunzi.engine.view.redact`, the only
place where a secret part may be let out. Every secret is revealed once its
hand is over (records, replays, reviews).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

NOBODY: frozenset[int] = frozenset()
# The immutable leaves of event data.
ATOMS = frozenset((str, int, float, bool, type(None)))


class Event(NamedTuple):
    """One accepted action's or automatic step's record; immutable.

    A named tuple rather than a frozen dataclass: a hand appends about 340 of
    them, and building a tuple costs a third of a frozen dataclass's
    field-by-field ``__init__`` (measured in docs/performance.md).
    """

    v: int  # 1-based sequence number in the match
    hand: int  # hand number the event belongs to
    type: str
    public: Mapping[str, Any]
    secret: Mapping[str, Any] | None = None
    audience: frozenset[int] = NOBODY
    private: bool = False  # the whole event, not just its secret part, is for the audience only

    def to_dict(self) -> dict[str, Any]:
        """The full event (public and secret parts), as records store it: a fresh copy."""
        if self.secret is None:
            return {"v": self.v, "type": self.type, **thaw(self.public)}
        return {"v": self.v, "type": self.type, **thaw(self.public), **thaw(self.secret)}


def freeze(value: Any) -> Any:
    """A read-only deep copy of JSON-like data: lists become tuples, dicts read-only maps.

    Events keep their payloads frozen, so neither a caller holding the event that
    ``apply`` returned nor the match itself can change what the record will say.
    """
    kind = type(value)
    if kind is list or kind is tuple:
        if set(map(type, value)) <= ATOMS:  # numbers and text (a deck, a hand): one copy
            return tuple(value)
        return tuple([freeze(v) for v in value])
    if kind is dict or kind is MappingProxyType:
        return MappingProxyType({k: freeze(v) for k, v in value.items()})
    return value


def thaw(value: Any) -> Any:
    """A plain deep copy of (frozen or not) JSON-like data, as JSON reads it: tuples become
    lists."""
    kind = type(value)
    if kind is tuple or kind is list:
        return [thaw(v) for v in value]
    if kind is MappingProxyType or kind is dict:
        return {k: thaw(v) for k, v in value.items()}
    return value

