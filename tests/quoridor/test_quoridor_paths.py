"""Hypothesis: walls tried anywhere, in any order, never box a pawn in; distances match BFS."""

from __future__ import annotations

from collections import deque

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gunzi.engine.errors import IllegalActionError
from gunzi.quoridor.game import QuoridorGame, Wall
from gunzi.quoridor.rules import preset

from .reference import all_paths_open, blocked_pairs, goal_squares, walls_of

Square = tuple[int, int]


def bfs_distance(game: QuoridorGame, seat: int) -> int:
    """Plain BFS over square pairs (pawns ignored); -1 when the goal is unreachable."""
    n, players = game.rules.board_size, game.rules.players
    blocked = blocked_pairs(walls_of(game))
    goal = goal_squares(n, players, seat)
    start = game.positions[seat]
    dist = {start: 0}
    queue: deque[Square] = deque([start])
    while queue:
        sq = queue.popleft()
        if sq in goal:
            return dist[sq]
        r, c = sq
        for nxt in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
            if (0 <= nxt[0] < n and 0 <= nxt[1] < n and nxt not in dist
                    and frozenset({sq, nxt}) not in blocked):
                dist[nxt] = dist[sq] + 1
                queue.append(nxt)
    return -1


wall_tries = st.lists(
    st.tuples(st.integers(0, 7), st.integers(0, 7), st.sampled_from("hv")), max_size=60
)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["quoridor-2", "quoridor-4"]), wall_tries, st.integers(0, 3))
def test_accepted_walls_never_block_a_pawn(name: str, tries: list[tuple[int, int, str]],
                                           step_every: int) -> None:
    """Any sequence of attempted walls (most near each other), with pawn steps between:
    after every accepted wall each pawn still reaches its goal edge; a refused wall changes
    nothing."""
    g = QuoridorGame(preset(name, walls=30))
    accepted = 0
    for i, (r, c, o) in enumerate(tries):
        if g.is_over:
            break
        seat = g.to_act
        assert seat is not None
        if step_every and i % (step_every + 1) == step_every:
            g.apply(g.legal_moves(seat)[0] if g.legal_moves(seat) else g.legal_actions(seat)[0])
            continue
        before = g.key()
        try:
            g.apply(Wall(seat, r, c, o))
        except IllegalActionError:
            assert g.key() == before
            continue
        accepted += 1
        assert all_paths_open(g, walls_of(g))
        assert all(bfs_distance(g, s) >= 0 for s in range(g.players))
    assert len(g.walls) == accepted


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["quoridor-2", "quoridor-4"]), wall_tries)
def test_path_length_agrees_with_plain_bfs(name: str, tries: list[tuple[int, int, str]]) -> None:
    g = QuoridorGame(preset(name, walls=30))
    for r, c, o in tries:
        seat = g.to_act
        assert seat is not None
        if g.is_legal(Wall(seat, r, c, o)):
            g.apply(Wall(seat, r, c, o))
        for s in range(g.players):
            assert g.distance(s) == bfs_distance(g, s)
