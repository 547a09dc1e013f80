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
import inspect
import types
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from gunzi.bots.base import Bot
from gunzi.engine.errors import GunziError

BOTS: dict[str, str] = {
    "random": "gunzi.bots.base:RandomBot",
    "rule": "gunzi.bots.rule:RuleBot",
    "search": "gunzi.bots.search:SearchBot",
    "learned": "gunzi.bots.learned:LearnedBot",
    "checked": "gunzi.bots.checked:CheckedBot",
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
T = TypeVar("T")


def param_value(text: str) -> Any:
    """A spec parameter's value: true/false, none, an int, a float, else the text. A number
    is read only when it is written as Python writes it (``3``, ``0.5``), so ``007`` or
    ``1e3`` stay texts: a parameter annotated as text gets them as written, one annotated
    as a number reads them when the bot is made (:func:`call_with`)."""
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    if low == "none":  # e.g. search:time_limit=none (no clock: reproducible)
        return None
    for kind in (int, float):
        try:
            value = kind(text)
        except ValueError:
            continue
        return value if repr(value) == text else text
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


def _members(hint: Any) -> tuple[Any, ...]:
    """The types a parameter's annotation allows: ``float | None`` → (float, NoneType)."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return typing.get_args(hint)
    return (hint,)


def _text(value: Any) -> str:
    """A parameter's value as the spec wrote it (:func:`param_value` read it)."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


# What each annotation a spec can satisfy asks for, in the refusal's words.
_WANTED: dict[Any, str] = {bool: "true or false", int: "an integer", float: "a number",
                           str: "a text", Path: "a path", type(None): "none"}


def _fits(member: Any, value: Any) -> tuple[bool, Any] | None:
    """(whether ``value``, as :func:`param_value` read it, is of type ``member``, the value
    converted: an int where a float is wanted); None for a type a spec cannot write."""
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if member is type(None):
        return value is None, None
    if isinstance(value, str) and member in (bool, int, float):  # a number as not read
        return _read(member, value)
    if member is bool:
        return isinstance(value, bool), value
    if member is int:
        return number and isinstance(value, int), value
    if member is float:
        return number, float(value) if number else value
    if member in (str, Path):
        return isinstance(value, str), member(value) if isinstance(value, str) else value
    if typing.get_origin(member) is typing.Literal:
        for choice in typing.get_args(member):
            if value == choice or (isinstance(choice, str) and _text(value) == choice):
                return True, choice
        return False, value
    return None


def _read(kind: type, text: str) -> tuple[bool, Any]:
    """A text :func:`param_value` kept (``007``, ``1e3``, ``x``) read as ``kind``."""
    if kind is bool:
        low = text.lower()
        return low in ("true", "false"), low == "true"
    try:
        return True, kind(text)
    except ValueError:
        return False, text


def _coerce(hint: Any, key: str, value: Any) -> Any:
    """``value`` as the annotation ``hint`` wants it; GunziError when it does not fit. A
    text parameter takes any value as written (``weights=2024``); annotations other than
    bool, int, float, str, Path, Literal and their unions (``| None``) are not checked."""
    members = _members(hint)
    fits = [_fits(member, value) for member in members]
    if None in fits:  # a type a spec cannot write (Any, a class): the value as read
        return value
    for ok, made in filter(None, fits):
        if ok:
            return made
    for member in members:  # a text or a path: the value as the spec wrote it
        if member in (str, Path):
            return member(_text(value))
    wanted = [_WANTED.get(m) or " or ".join(repr(c) for c in typing.get_args(m))
              for m in members]
    raise GunziError(f"{key} must be {' or '.join(wanted)}, not {_text(value)!r}")


def _parameters(made: Callable[..., Any]) -> tuple[dict[str, Any], bool] | None:
    """``made``'s keyword parameters (name → annotation, or ``Any``) and whether it takes
    any keyword (``**kwargs``); None when its signature cannot be read."""
    try:
        signature = inspect.signature(made)
    except (TypeError, ValueError):
        return None
    target: Any = made  # a class's annotations are its __init__'s
    try:
        hints = typing.get_type_hints(target.__init__ if isinstance(made, type) else made)
    except Exception:  # an annotation that cannot be evaluated here: nothing is checked
        hints = {}
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    taken = {p.name: hints.get(p.name, Any) for p in signature.parameters.values()
             if p.kind in kinds}
    open_ = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in signature.parameters.values())
    return taken, open_


def call_with(made: Callable[..., T], name: str, params: Params, text: str) -> T:
    """``made(**params)`` for the bot ``name`` of the spec ``text``: each value coerced to
    its parameter's annotation (:func:`_coerce`); a parameter the bot does not take, a value
    that does not fit, or a bot constructor that refuses its parameters (any exception it
    raises: ValueError for a bad value, OSError for a missing file, ...) is a one-line
    GunziError naming the spec."""
    kwargs = dict(params)
    signature = _parameters(made)
    try:
        if signature is not None:
            taken, open_ = signature
            for key, value in kwargs.items():
                if key in taken:
                    kwargs[key] = _coerce(taken[key], key, value)
                elif not open_:
                    raise GunziError(f"unexpected parameter {key!r}; {name} takes "
                                     + (", ".join(taken) or "none"))
    except GunziError as exc:
        raise GunziError(f"bot {text!r}: {exc}") from None
    try:
        return made(**kwargs)
    except GunziError as exc:
        raise GunziError(f"bot {text!r}: {exc}") from None
    except OSError as exc:  # a missing or unreadable file: its reason and name
        reason = exc.strerror or str(exc)
        where = f": {exc.filename}" if exc.filename is not None else ""
        raise GunziError(f"bot {text!r}: {reason}{where}") from None
    except (ValueError, TypeError) as exc:
        raise GunziError(f"bot {text!r}: {_one_line(exc)}") from None
    except Exception as exc:  # any other refusal of a bot's constructor
        raise GunziError(f"bot {text!r}: {type(exc).__name__}: {_one_line(exc)}") from None


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())


def make_with(name: str, params: Params, text: str | None = None) -> Bot:
    """The bot ``name`` made with ``params`` (:func:`call_with`); a bot that cannot be
    loaded, parameters it does not take or values that do not fit them, or a constructor
    that refuses them, are a GunziError naming the spec ``text``."""
    shown = text if text is not None else name
    try:
        made = factory(name)
    except ImportError as exc:
        raise GunziError(f"bot {shown!r} cannot be loaded: {exc}") from None
    return call_with(made, name, params, shown)


def make_spec(text: str) -> Bot:
    """The bot of a spec, ``name[:key=value...]`` (:func:`parse_spec`)."""
    name, params = parse_spec(text)
    return make_with(name, params, text.strip())
