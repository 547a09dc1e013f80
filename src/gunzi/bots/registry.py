"""Bots by name, so the CLI, the arena, tables and the terminal can list and create them.

Factories are named by import path and loaded on first use, so a bot module is
imported only when someone plays with it.
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
