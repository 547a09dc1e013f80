"""Rule options as data, shared by every game's rule sets (cards, 步步为营).

An :class:`Option` names its valid values and the docs/rules.md clause it implements; a
:class:`Catalog` builds, looks up and parses rule sets of one kind, rejecting an
unknown option, value or preset with the list of valid ones.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from gunzi.engine.errors import InvalidRulesError

R = TypeVar("R")


@dataclass(frozen=True)
class Option:
    """One rule option: its valid values, the docs/rules.md clause it implements, and why."""

    name: str
    values: tuple[Any, ...]
    clause: str
    doc: str
    # The record format version that first states the option: a record of an older
    # version was played before the option existed, that is by its default, so replay
    # does not report it as assumed (see docs/records.md).
    since: int = 1

    def describe_values(self) -> str:
        vals = self.values
        if len(vals) > 12 and vals == tuple(range(vals[0], vals[-1] + 1)):
            return f"integers {vals[0]}..{vals[-1]}"
        return ", ".join(repr(v) for v in vals)

    def check(self, value: Any) -> None:
        """Raise InvalidRulesError unless ``value`` is one of the valid values (same type)."""
        if type(value) is not type(self.values[0]) or value not in self.values:
            raise InvalidRulesError(
                f"rule option {self.name!r} cannot be {value!r}; valid values: "
                + self.describe_values()
            )


class Catalog(Generic[R]):
    """Builds rule sets of one kind from options and named presets."""

    def __init__(
        self,
        build: Callable[..., R],
        options: Mapping[str, Option],
        presets: Mapping[str, Mapping[str, Any]],
    ) -> None:
        self.build = build
        self.options = options
        self.presets = presets

    def make(self, name: str = "custom", **options: Any) -> R:
        """A rule set from options; unknown names are rejected with the valid ones."""
        unknown = sorted(set(options) - set(self.options))
        if unknown:
            raise InvalidRulesError(
                f"unknown rule option(s) {', '.join(unknown)}; valid options: "
                + ", ".join(self.options)
            )
        return self.build(name=name, **options)

    def preset(self, name: str, **overrides: Any) -> R:
        """A named preset, optionally with options changed."""
        if name not in self.presets:
            raise InvalidRulesError(
                f"unknown rule preset {name!r}; valid presets: {', '.join(self.presets)}"
            )
        return self.make(name, **{**self.presets[name], **overrides})

    def from_options(self, data: Mapping[str, Any]) -> R:
        """Rebuild a rule set from its options plus ``name`` (as records store it)."""
        rest = dict(data)
        name = str(rest.pop("name", "custom"))
        return self.make(name, **rest)

    def parse_overrides(self, pairs: list[str]) -> dict[str, Any]:
        """Read command-line ``option=value`` overrides into typed option values."""
        changes: dict[str, Any] = {}
        for pair in pairs:
            key, sep, value = pair.partition("=")
            if not sep:
                raise InvalidRulesError(f"rule override {pair!r} must look like option=value")
            changes[key.strip()] = self.parse_option_value(key.strip(), value)
        return changes

    def parse_option_value(self, key: str, text: str) -> Any:
        """Read ``key=value`` text from a command line into the option's type."""
        if key not in self.options:
            raise InvalidRulesError(
                f"unknown rule option {key!r}; valid options: {', '.join(self.options)}"
            )
        option = self.options[key]
        for value in option.values:
            if str(value).lower() == text.strip().lower():
                return value
        raise InvalidRulesError(
            f"rule option {key!r} cannot be {text!r}; valid values: " + option.describe_values()
        )
