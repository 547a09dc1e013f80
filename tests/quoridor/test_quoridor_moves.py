from __future__ import annotations

import pytest

from gunzi.engine.errors import IllegalActionError, MalformedActionError, OutOfTurnError
from gunzi.quoridor.game import Move, QuoridorGame, parse_square, square_name
from gunzi.quoridor.rules import preset


def names(game: QuoridorGame, seat: int) -> set[str]:
    return {m.text() for m in game.legal_moves(seat)}


def play(game: QuoridorGame, texts: str) -> None:
    for t in texts.split():
        seat = game.to_act
        assert seat is not None
        game.apply_text(seat, t)


def test_start_squares_2_players() -> None:
    g = QuoridorGame(preset("quoridor-2"))
    assert g.positions == ((0, 4), (8, 4))
    assert names(g, 0) == {"d1", "f1", "e2"}
    assert g.legal_moves(1) == []  # not its turn
    assert g.distance(0) == g.distance(1) == 8


def test_start_squares_4_players_and_turn_order() -> None:
    g = QuoridorGame(preset("quoridor-4"))
    assert [square_name(*p) for p in g.positions] == ["e1", "i5", "e9", "a5"]
    order = []
    for step in ["e2", "h5", "e8", "b5", "e3"]:
        order.append(g.to_act)
        g.apply_text(g.to_act or 0, step)
    assert order == [0, 1, 2, 3, 0]
    assert g.walls_left == (5, 5, 5, 5)


def test_one_step_orthogonal_only() -> None:
    g = QuoridorGame(preset("quoridor-2"))
    for bad in [(1, 3), (1, 5), (2, 4), (0, 2), (0, 4)]:
        with pytest.raises(IllegalActionError) as err:
            g.apply(Move(0, bad))
        assert err.value.rule.startswith("D moves")
    with pytest.raises(IllegalActionError, match="off the"):
        g.apply(Move(0, (-1, 4)))
    g.apply(Move(0, (1, 4)))
    assert g.position(0) == (1, 4)


def test_wall_blocks_step() -> None:
    g = QuoridorGame(preset("quoridor-2"))
    play(g, "e1h")  # seat 0 walls itself in front: blocks e1-e2 and f1-f2
    play(g, "e8")
    assert names(g, 0) == {"d1", "f1"}
    with pytest.raises(IllegalActionError, match="wall blocks"):
        g.apply_text(0, "e2")


def test_out_of_turn_and_malformed() -> None:
    g = QuoridorGame(preset("quoridor-2"))
    with pytest.raises(OutOfTurnError):
        g.apply(Move(1, (7, 4)))
    with pytest.raises(MalformedActionError):
        g.apply(Move(0, (1,)))  # type: ignore[arg-type]
    with pytest.raises(MalformedActionError):
        g.apply(Move(0, ("1", 4)))  # type: ignore[arg-type]
    with pytest.raises(MalformedActionError):
        g.apply(Move(7, (1, 4)))
    with pytest.raises(MalformedActionError):
        g.apply("e2")  # type: ignore[arg-type]


def face_to_face(jumps: bool) -> QuoridorGame:
    g = QuoridorGame(preset("quoridor-2", jumps=jumps))
    play(g, "e2 e8 e3 e7 e4 e6 e5")  # seat 0 on e5, seat 1 on e6, seat 1 to move
    return g


def test_no_jumps_by_default() -> None:
    g = face_to_face(False)
    assert names(g, 1) == {"d6", "f6", "e7"}
    with pytest.raises(IllegalActionError) as err:
        g.apply_text(1, "e5")
    assert err.value.rule == "D moves [I-15]"
    with pytest.raises(IllegalActionError):
        g.apply_text(1, "e4")


def test_straight_jump() -> None:
    g = face_to_face(True)
    assert names(g, 1) == {"d6", "f6", "e7", "e4"}
    ev = g.apply_text(1, "e4")
    assert ev.to_dict() == {"type": "move", "seat": 1, "from": "e6", "to": "e4", "jump": True}


def test_diagonal_jump_when_wall_behind() -> None:
    rules = preset("quoridor-2", jumps=True)
    g = QuoridorGame.from_position(rules, ["e5", "e6"], walls=["e4h"], to_act=1)
    assert names(g, 1) == {"d6", "f6", "e7", "d5", "f5"}
    # a wall at the side of the jumped pawn removes that diagonal
    g = QuoridorGame.from_position(rules, ["e5", "e6"], walls=["e4h", "d4v"], to_act=1)
    assert names(g, 1) == {"d6", "f6", "e7", "f5"}


def test_sideways_jump_at_edge_and_pawn_behind() -> None:
    rules = preset("quoridor-2", jumps=True)
    g = QuoridorGame.from_position(rules, ["a5", "b5"], to_act=1)
    # seat 1 on b5 faces seat 0 on a5 with the board edge behind it
    assert names(g, 1) == {"b6", "b4", "c5", "a6", "a4"}
    four = preset("quoridor-4", jumps=True)
    g = QuoridorGame.from_position(four, ["e4", "e5", "e6", "a1"], to_act=2)
    # seat 2 on e6 over seat 1 on e5: seat 0 on e4 behind, so sideways
    assert names(g, 2) == {"d6", "f6", "e7", "d5", "f5"}


def test_cannot_jump_onto_wall_side() -> None:
    rules = preset("quoridor-2", jumps=True)
    g = QuoridorGame.from_position(rules, ["e5", "e6"], walls=["e5h"], to_act=1)
    # the wall is between the pawns: no step, no jump
    assert names(g, 1) == {"d6", "f6", "e7"}


def test_winning_move_ends_game() -> None:
    g = QuoridorGame.from_position(preset("quoridor-2"), ["e8", "a9"], to_act=0)
    g.apply_text(0, "e9")
    assert g.is_over and g.winner == 0 and g.to_act is None
    assert g.events[-1].to_dict() == {"type": "end", "winner": 0, "reason": "goal"}
    with pytest.raises(OutOfTurnError):
        g.apply_text(1, "a8")
    assert g.legal_actions(1) == []


def test_square_names() -> None:
    assert square_name(0, 4) == "e1" and parse_square("E1") == (0, 4)
    assert parse_square(" i9 ") == (8, 8)
    for bad in ["", "e", "5e", "e0", "ee2", "e-1"]:
        with pytest.raises(MalformedActionError, match="cannot read"):
            parse_square(bad)
