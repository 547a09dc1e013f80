from __future__ import annotations

import pytest

from gunzi.engine.errors import InvalidRulesError
from gunzi.quoridor.rules import OPTIONS, QuoridorRules, from_options, make, preset


def test_presets() -> None:
    two = preset("quoridor-2")
    assert (two.players, two.walls, two.board_size, two.jumps) == (2, 10, 9, False)
    four = preset("quoridor-4")
    assert (four.players, four.walls, four.board_size, four.jumps) == (4, 5, 9, False)


def test_overrides_and_replace() -> None:
    r = preset("quoridor-2", jumps=True, board_size=7)
    assert r.jumps and r.board_size == 7 and r.name == "quoridor-2"
    assert r.replace(walls=3).walls == 3
    assert from_options({"name": r.name, **r.options()}) == r


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"players": 3}, "2, 4"),
        ({"board_size": 8}, "9, 5, 7, 11"),
        ({"jumps": 1}, "False, True"),
        ({"walls": -1}, "0..30"),
        ({"walls": True}, "0..30"),
    ],
)
def test_bad_values_list_valid_ones(kwargs: dict[str, object], needle: str) -> None:
    with pytest.raises(InvalidRulesError, match=needle):
        preset("quoridor-2", **kwargs)


def test_unknown_option_and_preset() -> None:
    with pytest.raises(InvalidRulesError, match="valid options: " + ", ".join(OPTIONS)):
        make("x", diagonal=True)
    with pytest.raises(InvalidRulesError, match="quoridor-2, quoridor-4"):
        preset("quoridor-3")


def test_rules_are_frozen() -> None:
    r = QuoridorRules()
    with pytest.raises(AttributeError):
        r.jumps = True  # type: ignore[misc]
