from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gunzi.engine.errors import IllegalActionError, MalformedActionError
from gunzi.quoridor.game import QuoridorGame, Wall, WallEvent
from gunzi.quoridor.rules import preset

from .reference import all_paths_open, reference_legal_walls, walls_of


def legal_walls(game: QuoridorGame) -> set[tuple[int, int, str]]:
    seat = game.to_act
    assert seat is not None
    return {
        (a.row, a.col, a.orientation) for a in game.legal_actions(seat) if isinstance(a, Wall)
    }


def test_place_wall_event_and_count() -> None:
    g = QuoridorGame(preset("quoridor-2"))
    ev = g.apply_text(0, "e3h")
    assert isinstance(ev, WallEvent)
    assert ev.to_dict() == {"type": "wall", "seat": 0, "wall": "e3h", "walls_left": 9}
    assert g.walls_left == (9, 10)
    assert [w.text() for w in g.walls] == ["e3h"]
    assert len(legal_walls(QuoridorGame(preset("quoridor-2")))) == 128


@pytest.mark.parametrize(("other", "why"), [
    ("e3h", "overlaps wall e3h"), ("d3h", "overlaps wall e3h"), ("f3h", "overlaps wall e3h"),
    ("e3v", "crosses wall e3h at its middle"),
])
def test_overlap_and_crossing(other: str, why: str) -> None:
    g = QuoridorGame(preset("quoridor-2"))
    g.apply_text(0, "a1h")
    g.apply_text(1, "e3h")
    with pytest.raises(IllegalActionError) as err:
        g.apply_text(0, other)
    # The refusal names the wall in the way, not only the kind of conflict.
    assert str(err.value) == f"wall {other} {why} [D walls]"
    assert err.value.rule == "D walls"


@pytest.mark.parametrize("other", ["c3h", "g3h", "e2v", "e4v", "d3v", "f3v", "e2h", "e4h"])
def test_touching_walls_are_fine(other: str) -> None:
    g = QuoridorGame(preset("quoridor-2"))
    g.apply_text(0, "e3h")
    g.apply_text(1, other)


def test_vertical_overlap() -> None:
    g = QuoridorGame(preset("quoridor-2"))
    g.apply_text(0, "c4v")
    for other in ["c3v", "c5v", "c4v", "c4h"]:
        with pytest.raises(IllegalActionError, match=r"overlaps|crosses"):
            g.apply_text(1, other)
    g.apply_text(1, "c2v")


@pytest.mark.parametrize("text", ["i1h", "a9h", "i9v", "z1h", "e10v"])
def test_wall_off_board(text: str) -> None:
    g = QuoridorGame(preset("quoridor-2"))
    with pytest.raises(IllegalActionError, match="off the board") as err:
        g.apply_text(0, text)
    assert err.value.rule == "D walls"
    with pytest.raises(IllegalActionError, match="off the board"):
        g.apply(Wall(0, -1, 0, "h"))


def test_bad_wall_fields() -> None:
    g = QuoridorGame(preset("quoridor-2"))
    with pytest.raises(MalformedActionError):
        g.apply(Wall(0, 1, 1, "x"))
    with pytest.raises(MalformedActionError):
        g.apply(Wall(0, 1.0, 1, "h"))  # type: ignore[arg-type]


def test_no_walls_left() -> None:
    g = QuoridorGame(preset("quoridor-2", walls=1))
    g.apply_text(0, "a3h")
    g.apply_text(1, "a6h")
    assert legal_walls(g) == set()
    with pytest.raises(IllegalActionError, match="no walls left"):
        g.apply_text(0, "c3h")


def test_wall_may_not_cut_every_path() -> None:
    # seat 0 on e1 in a one-square-wide corridor e1-e2; capping it would close the box
    g = QuoridorGame.from_position(
        preset("quoridor-2"), ["e1", "e9"], walls=["d1v", "e1v"], to_act=0
    )
    assert {(1, 3, "h"), (1, 4, "h")}.isdisjoint(legal_walls(g))
    with pytest.raises(IllegalActionError, match="cuts every path of seat 0") as err:
        g.apply_text(0, "e2h")
    assert err.value.rule == "D walls"
    assert reference_legal_walls(g) == legal_walls(g)
    # a barrier across the board with a one-square gap in column e, boxed at the sides
    g = QuoridorGame.from_position(
        preset("quoridor-2"),
        ["e1", "e9"],
        walls=["a4h", "c4h", "f4h", "h4h", "d4v", "e4v"],
        to_act=1,
    )
    for cut in ["d5h", "e5h", "d3h", "e3h"]:
        with pytest.raises(IllegalActionError, match="cuts every path"):
            g.apply_text(1, cut)
    assert reference_legal_walls(g) == legal_walls(g)
    g.apply_text(1, "a6h")  # elsewhere is fine


def test_setup_rejects_cut() -> None:
    with pytest.raises(IllegalActionError):
        QuoridorGame.from_position(
            preset("quoridor-2"), ["e1", "e9"], walls=["d1v", "e1v", "e1h"]
        )


@st.composite
def game_after_random_actions(draw: st.DrawFn) -> QuoridorGame:
    size = draw(st.sampled_from([5, 5, 7, 9]))
    players = draw(st.sampled_from([2, 4]))
    jumps = draw(st.booleans())
    rules = preset(f"quoridor-{players}", board_size=size, jumps=jumps, walls=10)
    g = QuoridorGame(rules)
    steps = draw(st.integers(0, 40 if size < 9 else 25))
    for _ in range(steps):
        if g.is_over:
            break
        seat = g.to_act
        assert seat is not None
        acts = g.legal_actions(seat)
        walls = [a for a in acts if isinstance(a, Wall)]
        pool = walls if walls and draw(st.integers(0, 3)) > 0 else acts
        g.apply(pool[draw(st.integers(0, len(pool) - 1))])
        # invariant after every accepted action: each pawn still has a path
        assert all_paths_open(g, walls_of(g))
    return g


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game_after_random_actions())
def test_fast_wall_check_agrees_with_plain_bfs(g: QuoridorGame) -> None:
    if g.is_over:
        return
    assert legal_walls(g) == reference_legal_walls(g)
