from __future__ import annotations

import json
import random
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gunzi.engine.errors import (
    GunziError,
    IllegalActionError,
    MalformedActionError,
    OutOfTurnError,
)
from gunzi.quoridor import board as B
from gunzi.quoridor.bots import RandomBot
from gunzi.quoridor.game import (
    Action,
    EndEvent,
    Move,
    Pass,
    PassEvent,
    QuoridorGame,
    Wall,
    format_action,
    parse_action,
)
from gunzi.quoridor.rules import preset


def snapshot(g: QuoridorGame) -> tuple[Any, ...]:
    return (g.key(), json.dumps(g.view(0), sort_keys=True), [e.to_dict() for e in g.events])


def random_game(rules_name: str = "quoridor-2", seed: int = 0, steps: int = 30,
                **overrides: Any) -> QuoridorGame:
    g = QuoridorGame(preset(rules_name, **overrides))
    rng = random.Random(seed)
    bot = RandomBot()
    for _ in range(steps):
        if g.is_over:
            break
        seat = g.to_act
        assert seat is not None
        g.apply(bot.choose(g, seat, rng))
    return g


actions = st.one_of(
    st.builds(Move, st.integers(-1, 4), st.tuples(st.integers(-2, 10), st.integers(-2, 10))),
    st.builds(Wall, st.integers(-1, 4), st.integers(-2, 9), st.integers(-2, 9),
              st.sampled_from(["h", "v", "x"])),
    st.builds(Pass, st.integers(0, 3)),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(["quoridor-2", "quoridor-4"]),
    st.integers(0, 10_000),
    st.integers(0, 60),
    st.booleans(),
    st.data(),
)
def test_apply_accepts_exactly_the_legal_actions(
    name: str, seed: int, steps: int, jumps: bool, data: st.DataObject
) -> None:
    g = random_game(name, seed, steps, jumps=jumps, walls=3)
    for _ in range(8):
        action: Action = data.draw(actions)
        if g.to_act is not None and data.draw(st.booleans()):
            action = replace(action, seat=g.to_act)  # mostly in turn: test the rules
        seat = action.seat
        legal = g.legal_actions(seat) if 0 <= seat < g.players else []
        before = snapshot(g)
        try:
            g.apply(action)
        except GunziError as err:
            assert isinstance(err, MalformedActionError | OutOfTurnError | IllegalActionError)
            assert action not in legal
            assert snapshot(g) == before  # a rejected action changes nothing
        else:
            assert action in legal
        now = g.legal_actions(g.to_act) if g.to_act is not None else []
        if now and data.draw(st.booleans()):
            g.apply(now[data.draw(st.integers(0, len(now) - 1))])


def test_rejected_actions_change_nothing_examples() -> None:
    g = random_game(seed=3, steps=12)
    before = snapshot(g)
    seat = g.to_act
    assert seat is not None
    bad: list[Any] = [
        Move(1 - seat, (4, 4)), Move(seat, (9, 9)), Wall(seat, 8, 8, "h"),
        Wall(seat, 0, 0, "q"), Pass(seat), "e2", None,
    ]
    for b in bad:
        with pytest.raises(GunziError):
            g.apply(b)
        assert snapshot(g) == before
    for text in ["", "zz", "e3hh", "e0", "3e"]:
        with pytest.raises(MalformedActionError, match="cannot read"):
            g.apply_text(seat, text)
        assert snapshot(g) == before


def test_notation_round_trip() -> None:
    for seed in range(5):
        g = random_game("quoridor-4", seed, 20, jumps=True)
        seat = g.to_act
        if seat is None:
            continue
        for a in g.legal_actions(seat):
            assert parse_action(format_action(a), seat) == a
    assert parse_action(" E3H ", 1) == Wall(1, 2, 4, "h")
    assert parse_action("a1v", 0) == Wall(0, 0, 0, "v")
    assert parse_action("i9", 0) == Move(0, (8, 8))
    assert parse_action("PASS", 2) == Pass(2)
    assert format_action(Wall(0, 7, 7, "v")) == "h8v"


@given(st.integers(0, 10), st.integers(0, 10), st.sampled_from(["", "h", "v"]))
def test_notation_round_trip_any_square(row: int, col: int, suffix: str) -> None:
    a = Wall(0, row, col, suffix) if suffix else Move(0, (row, col))
    assert parse_action(format_action(a), 0) == a


def test_malformed_text_names_the_text() -> None:
    with pytest.raises(MalformedActionError, match="'e3x'"):
        parse_action("e3x", 0)
    with pytest.raises(MalformedActionError):
        parse_action(3, 0)  # type: ignore[arg-type]


def test_events_are_json_and_immutable() -> None:
    g = random_game("quoridor-4", 1, 5000)
    assert g.is_over
    data = [e.to_dict() for e in g.events]
    assert json.loads(json.dumps(data)) == data
    assert {d["type"] for d in data} <= {"move", "wall", "pass", "end"}
    assert isinstance(g.events[-1], EndEvent)
    with pytest.raises(AttributeError):
        g.events[0].seat = 3  # type: ignore[misc]
    g.events.clear()  # a copy
    assert g.events


def test_view_shape() -> None:
    g = QuoridorGame(preset("quoridor-2"))
    v = g.view(1)
    assert v["game"] == "quoridor" and v["seat"] == 1 and v["to_act"] == 0
    assert v["pawns"][0] == {
        "seat": 0, "square": "e1", "side": "bottom", "walls_left": 10, "distance": 8,
    }
    assert v["legal"] == [] and g.view(0)["legal"][:3] == ["d1", "f1", "e2"]
    assert v["rules"]["name"] == "quoridor-2"
    json.dumps(v)


def test_clone_is_independent() -> None:
    g = random_game(seed=5, steps=10)
    c = g.clone()
    assert snapshot(c) == snapshot(g)
    seat = c.to_act
    assert seat is not None
    c.apply(c.legal_actions(seat)[0])
    assert snapshot(c) != snapshot(g)
    assert len(c.events) == len(g.events) + 1


def test_pass_only_when_nothing_else() -> None:
    rules = preset("quoridor-2", board_size=5, walls=0)
    # seat 0 on c1 walled left and right, seat 1 on c2 above it: no move, no wall
    g = QuoridorGame.from_position(rules, ["c1", "c2"], walls=["b1v", "c1v"], to_act=0)
    assert g.legal_actions(0) == [Pass(0)]
    ev = g.apply(Pass(0))
    assert isinstance(ev, PassEvent) and ev.to_dict() == {"type": "pass", "seat": 0}
    with pytest.raises(IllegalActionError, match="passing"):
        g.apply(Pass(1))
    # with jumps it could jump, so passing is not allowed
    g = QuoridorGame.from_position(
        preset("quoridor-2", board_size=5, walls=0, jumps=True), ["c1", "c2"],
        walls=["b1v", "c1v"],
    )
    assert g.legal_actions(0) == [Move(0, (2, 2))]


def test_turn_limit_draw() -> None:
    g = QuoridorGame(preset("quoridor-2", max_turns=4))
    for t in ["d1", "d9", "e1", "e9"]:
        g.apply_text(g.to_act or 0, t)
    assert g.is_over and g.winner is None
    assert g.events[-1].to_dict() == {"type": "end", "winner": None, "reason": "turn limit"}


@pytest.mark.parametrize("name", ["quoridor-2", "quoridor-4"])
@pytest.mark.parametrize("jumps", [False, True])
def test_random_games_terminate(name: str, jumps: bool) -> None:
    for seed in range(6):
        g = random_game(name, seed, 5000, jumps=jumps, max_turns=0)
        assert g.is_over and g.winner is not None
        geo = g.geometry
        assert (geo.goals[g.winner] >> g.state.pawns[g.winner]) & 1
        assert sum(isinstance(e, EndEvent) for e in g.events) == 1


def test_four_player_game() -> None:
    g = QuoridorGame(preset("quoridor-4"))
    assert g.legal_actions(1) == [] and len(g.legal_actions(0)) == 3 + 128
    seen = []
    for _ in range(8):
        seat = g.to_act
        assert seat is not None
        seen.append(seat)
        # every seat steps toward its goal
        best = min(g.legal_moves(seat), key=lambda m: _dist_after(g, m))
        g.apply(best)
    assert seen == [0, 1, 2, 3, 0, 1, 2, 3]
    assert [g.distance(s) for s in range(4)] == [6, 6, 6, 6]
    assert g.view(2)["pawns"][3]["side"] == "left"


def _dist_after(g: QuoridorGame, m: Move) -> int:
    c = g.clone()
    c.apply(m)
    return c.distance(m.seat)


def test_board_geometry_masks() -> None:
    geo = B.geometry(9, 4)
    assert [geo.rowcol(s) for s in geo.starts] == [(0, 4), (4, 8), (8, 4), (4, 0)]
    assert bin(geo.goals[1]).count("1") == 9
    assert geo.anchors == 64
