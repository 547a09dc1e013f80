"""Typed errors, so a caller can tell bad syntax from a move out of turn from a broken rule.

All derive from :class:`GunziError` (a ``ValueError``). An action that raises
changes nothing in the match.
"""

from __future__ import annotations


class GunziError(ValueError):
    """Base class of every error the engine raises for bad input."""


class MalformedActionError(GunziError):
    """The action cannot be read: unknown type, unknown card text, wrong field types."""


class _RuleError(GunziError):
    """An error that names the clause of docs/rules.md it enforces (``rule``, e.g. ``A5/I-6``)."""

    def __init__(self, message: str, rule: str = "") -> None:
        super().__init__(f"{message} [{rule}]" if rule else message)
        self.rule = rule


class OutOfTurnError(_RuleError):
    """The seat has nothing to decide now, or a different decision is pending."""


class IllegalActionError(_RuleError):
    """Well-formed and in turn, but the rules forbid it."""


class InvalidRulesError(GunziError):
    """An unknown rule option or value; the message lists the valid ones."""


class RecordError(GunziError):
    """A record that cannot be read or does not replay."""

    def __init__(self, message: str, event_number: int | None = None, rule: str = "") -> None:
        where = f"event {event_number}: " if event_number is not None else ""
        super().__init__(where + message)
        self.event_number = event_number
        self.rule = rule
