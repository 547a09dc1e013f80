"""Bots by name, so the CLI, the arena, tables and the terminal can list and create them.

Factories are named by import path and loaded on first use, so a bot module is
imported only when someone plays with it. A bot *spec* is a name with parameters,
``name[:key=value...]`` (``search:rollouts=50:time_limit=none``,
``learned:weights=g.npz``, ``openspiel:ismcts:simulations=3``): :func:`parse_spec` reads
one and :func:`make_spec` makes its bot; the arena, the terminal and the single-seat
environment all read specs this way.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from gunzi.bots.base import Bot
from gunzi.engine.errors import GunziError

BOTS: dict[str, str] = {
    "random": "gunzi.bots.base:RandomBot",
    "rule": "gunzi.bots.rule:RuleBot",
    "search": "gunzi.bots.search:SearchBot",
    "learned": "gunzi.bots.learned:LearnedBot",
}


def register(name: str, path: str) -> None:
    """Register a bot factory by ``module:attribute`` path."""
    BOTS[name] = path


def factory(name: str) -> Callable[..., Bot]:
    try:
        path = BOTS[name]
    except KeyError:
        raise GunziError(f"unknown bot {name!r}; available: {', '.join(sorted(BOTS))}") from None
    module, _, attr = path.partition(":")
    made: Callable[..., Bot] = getattr(importlib.import_module(module), attr)
    return made


def make_bot(name: str, **params: Any) -> Bot:
    """A new bot by registered name; unknown names list the valid ones."""
    return factory(name)(**params)


def names() -> list[str]:
    return sorted(BOTS)


Params = tuple[tuple[str, Any], ...]


def param_value(text: str) -> Any:
    """A spec parameter's value: true/false, none, an int, a float, else the text."""
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    if low == "none":  # e.g. search:time_limit=none (no clock: reproducible)
        return None
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def parse_spec(text: str) -> tuple[str, Params]:
    """``name[:key=value...]`` → (name, parameters); a bare first word after the name is
    the bot's ``algorithm`` (``openspiel:ismcts``). Raises GunziError on a malformed one."""
    text = text.strip()
    name, *rest = text.split(":")
    params: list[tuple[str, Any]] = []
    for i, item in enumerate(rest):
        if i == 0 and item and "=" not in item:
            params.append(("algorithm", item))
            continue
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise GunziError(f"bot parameter {item!r} in {text!r} must look like key=value")
        params.append((key, param_value(value)))
    if not name:
        raise GunziError("empty bot name")
    return name, tuple(params)


def make_with(name: str, params: Params, text: str | None = None) -> Bot:
    """The bot ``name`` made with ``params``; parameters it does not take, or a bot that
    cannot be loaded, are a GunziError naming the spec ``text``."""
    shown = text if text is not None else name
    try:
        return make_bot(name, **dict(params))
    except TypeError as exc:
        raise GunziError(f"bot {shown!r}: {exc}") from None
    except ImportError as exc:
        raise GunziError(f"bot {shown!r} cannot be loaded: {exc}") from None


def make_spec(text: str) -> Bot:
    """The bot of a spec, ``name[:key=value...]`` (:func:`parse_spec`)."""
    name, params = parse_spec(text)
    return make_with(name, params, text.strip())
