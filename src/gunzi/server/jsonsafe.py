"""JSON from clients, parsed within limits: a nesting depth checked before parsing (so a
frame of thousands of nested arrays never reaches the recursive decoder) and the
decoder's own refusals (a 100,000-digit integer, recursion) turned into one error."""

from __future__ import annotations

import json
import operator
import re
from itertools import accumulate, count
from typing import Any

_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")
_STEP = bytes.maketrans(b"[{]}", b"\x02\x02\x00\x00")  # an opening bracket counts 2


class BadJson(ValueError):
    """Client JSON that is malformed or beyond a limit; the message says which."""


def depth(text: str) -> int:
    """How deeply arrays and objects nest in ``text`` (brackets inside strings ignored)."""
    steps = "".join(_BRACKET.findall(_STRING.sub("", text))).encode().translate(_STEP)
    if not steps:
        return 0
    # After k brackets of which o open, the depth is o - (k - o) = 2o - k: all in C.
    deepest: int = max(map(operator.sub, accumulate(steps), count(1)))
    return deepest


def loads(text: str, max_depth: int) -> Any:
    """``json.loads`` refusing nesting deeper than ``max_depth`` and whatever the decoder
    refuses, always as :class:`BadJson`."""
    if depth(text) > max_depth:
        raise BadJson(f"JSON nested deeper than {max_depth} levels")
    try:
        return json.loads(text)
    except RecursionError:
        raise BadJson(f"JSON nested deeper than {max_depth} levels") from None
    except ValueError as exc:  # JSONDecodeError, or an integer too long to convert
        msg = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc).split(";")[0]
        raise BadJson(f"not valid JSON: {msg}") from None
