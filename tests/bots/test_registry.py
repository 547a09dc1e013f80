"""Bot specs' parameters are checked against the bot constructor's annotations
(:func:`gunzi.bots.registry.call_with`): a value that does not fit its type, a parameter
the bot does not take, or a constructor's own refusal is one GunziError naming the spec."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import pytest

from gunzi.bots.learned import DMC_WEIGHTS, LearnedBot
from gunzi.bots.registry import call_with, make_spec, parse_spec
from gunzi.bots.search import SearchBot
from gunzi.engine.errors import GunziError


class Probe:
    """Every kind of annotation a spec can satisfy, and one it cannot (``other``)."""

    def __init__(self, count: int = 1, rate: float = 0.5, fast: bool = False,
                 label: str = "", path: str | Path = "", limit: float | None = 1.0,
                 mode: Literal["a", "b"] = "a", other: Any = None,
                 items: list[int] | None = None) -> None:
        self.__dict__.update(locals())


def probe(text: str) -> Probe:
    name, params = parse_spec(text)
    return call_with(Probe, name, params, text)


def test_values_are_coerced_to_the_annotation() -> None:
    p = probe("probe:count=3:rate=2:fast=true:limit=none:mode=b:other=7:items=x")
    assert (p.count, p.rate, p.fast, p.limit, p.mode, p.other, p.items) == (
        3, 2.0, True, None, "b", 7, "x")  # other and items: not checked, as read
    assert isinstance(p.rate, float)
    p = probe("probe:label=2024:path=007:limit=0.25")  # a text takes the value as written
    assert (p.label, p.path, p.limit) == ("2024", "007", 0.25)
    p = probe("probe:count=007:rate=1e3:fast=True:label=1e3")  # a number read by its type
    assert (p.count, p.rate, p.fast, p.label) == (7, 1000.0, True, "1e3")


@pytest.mark.parametrize(("spec", "message"), [
    ("probe:count=abc", "count must be an integer, not 'abc'"),
    ("probe:count=1.5", "count must be an integer, not '1.5'"),
    ("probe:count=true", "count must be an integer, not 'true'"),
    ("probe:rate=x", "rate must be a number, not 'x'"),
    ("probe:fast=1", "fast must be true or false, not '1'"),
    ("probe:limit=soon", "limit must be a number or none, not 'soon'"),
    ("probe:mode=c", "mode must be 'a' or 'b', not 'c'"),
    ("probe:speed=2", "unexpected parameter 'speed'; probe takes count, rate, fast"),
])
def test_a_value_that_does_not_fit_is_refused_naming_the_spec(spec: str, message: str) -> None:
    with pytest.raises(GunziError) as info:
        probe(spec)
    assert str(info.value).startswith(f"bot {spec!r}: {message}")


def test_the_registered_bots_keep_their_accepted_forms() -> None:
    search = make_spec("search:rollouts=5:time_limit=none:prior=learned:top=1")
    assert isinstance(search, SearchBot)
    assert (search.rollouts, search.time_limit, search.top) == (5, None, 1)
    assert make_spec("search:rollouts=5:time_limit=1").time_limit == 1.0
    learned = make_spec(f"learned:weights={DMC_WEIGHTS}:threshold=0.5")
    assert isinstance(learned, LearnedBot) and learned.threshold == 0.5
    with pytest.raises(GunziError, match=r"^bot 'learned:threshold=x': threshold must be a "
                                         r"number or none, not 'x'$"):
        make_spec("learned:threshold=x")
    with pytest.raises(GunziError, match=r"^bot 'search:rollouts=abc': rollouts must be an "
                                         r"integer, not 'abc'$"):
        make_spec("search:rollouts=abc")


def test_a_constructor_s_refusal_is_one_line_naming_the_spec(tmp_path: Path) -> None:
    with pytest.raises(GunziError, match=r"^bot 'search:rollouts=0': rollouts must be at "
                                         r"least 1$"):
        make_spec("search:rollouts=0")
    missing = tmp_path / "none.npz"
    with pytest.raises(GunziError, match=f"^bot 'learned:weights={missing}': No such file "
                                         f"or directory: {missing}$"):
        make_spec(f"learned:weights={missing}")
    text = tmp_path / "notes.txt"
    text.write_text("not weights\n")
    with pytest.raises(GunziError, match=r"notes\.txt is not a weights file") as info:
        make_spec(f"learned:weights={text}")
    assert "\n" not in str(info.value)
