"""Board geometry, the immutable board state and bitset path finding for 步步为营.

Coordinates
-----------
A board has ``n`` × ``n`` squares (``n`` = ``board_size``, 9 by default). A square is
``(row, col)`` with ``row`` 0 the bottom row (seat 0's start edge) and ``row`` n-1 the top
row, ``col`` 0 the left column and ``col`` n-1 the right column. Internally a square is the
index ``row * n + col`` and a set of squares is an ``int`` bitmask (bit ``index``).

A wall is two squares long and lies in a groove. It is named by its *anchor* ``(row, col)``
(0 ≤ row, col ≤ n-2), the bottom-left square of the 2×2 block whose centre is the wall's
centre, and its orientation:

* ``'h'`` (horizontal): lies in the groove between rows ``row`` and ``row+1`` over columns
  ``col`` and ``col+1``; it blocks ``(row, col)``–``(row+1, col)`` and
  ``(row, col+1)``–``(row+1, col+1)``.
* ``'v'`` (vertical): lies in the groove between columns ``col`` and ``col+1`` over rows
  ``row`` and ``row+1``; it blocks ``(row, col)``–``(row, col+1)`` and
  ``(row+1, col)``–``(row+1, col+1)``.

Two walls *overlap* when they block a common square side (same orientation, same anchor or
anchors one apart along the wall); they *cross* when an ``'h'`` and a ``'v'`` wall share an
anchor (the same centre).

Blocked sides are kept as two bitmasks: ``up`` (bit ``i`` set: the side between square ``i``
and the square above it is blocked) and ``right`` (bit ``i``: the side between ``i`` and the
square to its right).

Path check
----------
Distances are breadth-first searches over these bitmasks: each BFS layer is a handful of
shifts and masks on one ``int``, with an early exit as soon as the goal edge is reached.
Whether a new wall may cut a path is first decided by a cheaper topological test: walls and
the board border form a planar graph on the (n+1)×(n+1) groove crossings; a new wall can
split a region of squares only if it closes a cycle of that graph, which needs at least two
of its three crossing points (both ends and the centre) to touch the border or an existing
wall. Only such walls run the BFS (for every pawn); all others are accepted at once.
Pawns never block a path (as in Quoridor).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise

H = "h"
V = "v"
ORIENTATIONS = (H, V)

# Directions: 0 up (+row), 1 right (+col), 2 down, 3 left.
UP, RIGHT, DOWN, LEFT = 0, 1, 2, 3

SIDES = {2: ("bottom", "top"), 4: ("bottom", "right", "top", "left")}


@dataclass(frozen=True, slots=True)
class Geometry:
    """Precomputed masks for one board size and player count (shared, never changed)."""

    n: int
    players: int
    full: int
    not_top: int
    not_right: int
    starts: tuple[int, ...]
    goals: tuple[int, ...]
    sides: tuple[str, ...]
    anchors: int
    wall_up: tuple[int, ...]
    wall_right: tuple[int, ...]
    h_points: tuple[int, ...]
    v_points: tuple[int, ...]
    border: int
    up_side_walls: tuple[tuple[tuple[str, int], ...], ...]
    right_side_walls: tuple[tuple[tuple[str, int], ...], ...]

    def square(self, row: int, col: int) -> int:
        return row * self.n + col

    def rowcol(self, sq: int) -> tuple[int, int]:
        return divmod(sq, self.n)

    def anchor(self, row: int, col: int) -> int:
        return row * (self.n - 1) + col

    def anchor_rowcol(self, a: int) -> tuple[int, int]:
        return divmod(a, self.n - 1)


@lru_cache(maxsize=16)
def geometry(n: int, players: int) -> Geometry:
    """The geometry of an ``n`` × ``n`` board for 2 or 4 players."""
    full = (1 << (n * n)) - 1
    row0 = (1 << n) - 1
    top = row0 << (n * (n - 1))
    col0 = sum(1 << (r * n) for r in range(n))
    left = col0
    right = col0 << (n - 1)
    bottom = row0
    mid = n // 2
    edge_start = {
        "bottom": mid,
        "top": (n - 1) * n + mid,
        "right": mid * n + n - 1,
        "left": mid * n,
    }
    edge_goal = {"bottom": top, "top": bottom, "right": left, "left": right}
    sides = SIDES[players]
    m = n - 1
    wall_up: list[int] = []
    wall_right: list[int] = []
    h_points: list[int] = []
    v_points: list[int] = []
    cn = n + 1  # groove crossings per row

    def pt(y: int, x: int) -> int:
        return 1 << (y * cn + x)

    for r in range(m):
        for c in range(m):
            sq = r * n + c
            wall_up.append((1 << sq) | (1 << (sq + 1)))
            wall_right.append((1 << sq) | (1 << (sq + n)))
            h_points.append(pt(r + 1, c) | pt(r + 1, c + 1) | pt(r + 1, c + 2))
            v_points.append(pt(r, c + 1) | pt(r + 1, c + 1) | pt(r + 2, c + 1))
    border = 0
    for y in range(cn):
        for x in range(cn):
            if y in (0, n) or x in (0, n):
                border |= pt(y, x)
    up_side: list[tuple[tuple[str, int], ...]] = []
    right_side: list[tuple[tuple[str, int], ...]] = []
    for r in range(n):
        for c in range(n):
            ups: list[tuple[str, int]] = []
            if r < m:
                ups.extend((H, r * m + cc) for cc in (c - 1, c) if 0 <= cc < m)
            up_side.append(tuple(ups))
            rights: list[tuple[str, int]] = []
            if c < m:
                rights.extend((V, rr * m + c) for rr in (r - 1, r) if 0 <= rr < m)
            right_side.append(tuple(rights))
    return Geometry(
        n=n,
        players=players,
        full=full,
        not_top=full & ~top,
        not_right=full & ~right,
        starts=tuple(edge_start[s] for s in sides),
        goals=tuple(edge_goal[s] for s in sides),
        sides=sides,
        anchors=m * m,
        wall_up=tuple(wall_up),
        wall_right=tuple(wall_right),
        h_points=tuple(h_points),
        v_points=tuple(v_points),
        border=border,
        up_side_walls=tuple(up_side),
        right_side_walls=tuple(right_side),
    )


@dataclass(frozen=True, slots=True)
class State:
    """The whole position, immutable: pawns, walls, whose turn. Cheap to copy and to hash."""

    pawns: tuple[int, ...]
    walls_left: tuple[int, ...]
    h: int
    v: int
    up: int
    right: int
    touched: int
    to_act: int
    turns: int


def initial_state(geo: Geometry, walls: int) -> State:
    return State(
        pawns=geo.starts,
        walls_left=(walls,) * geo.players,
        h=0,
        v=0,
        up=0,
        right=0,
        touched=geo.border,
        to_act=0,
        turns=0,
    )


def distance(geo: Geometry, up: int, right: int, src: int, goal: int) -> int:
    """Fewest steps from the squares in mask ``src`` to mask ``goal``, ignoring pawns; -1: none."""
    if src & goal:
        return 0
    n = geo.n
    nu = ~up
    nr = ~right & geo.not_right
    nt = nu & geo.not_top
    seen = front = src
    d = 0
    while front:
        d += 1
        nxt = ((front & nt) << n) | ((front >> n) & nu) | ((front & nr) << 1) | ((front >> 1) & nr)
        front = nxt & ~seen
        if front & goal:
            return d
        seen |= front
    return -1


def layers(geo: Geometry, up: int, right: int, goal: int) -> list[int]:
    """BFS layers from the goal edge: ``layers[d]`` is the mask of squares at distance d."""
    n = geo.n
    nu = ~up
    nr = ~right & geo.not_right
    nt = nu & geo.not_top
    out = [goal]
    seen = front = goal
    while True:
        nxt = ((front & nt) << n) | ((front >> n) & nu) | ((front & nr) << 1) | ((front >> 1) & nr)
        front = nxt & ~seen
        if not front:
            return out
        out.append(front)
        seen |= front


def layer_distance(lay: list[int], sq: int) -> int:
    bit = 1 << sq
    for d, m in enumerate(lay):
        if m & bit:
            return d
    return -1


def neighbour(geo: Geometry, up: int, right: int, sq: int, d: int) -> int:
    """The square next to ``sq`` in direction ``d`` if no wall or edge is between; else -1."""
    n = geo.n
    if d == UP:
        return sq + n if sq < n * (n - 1) and not (up >> sq) & 1 else -1
    if d == DOWN:
        return sq - n if sq >= n and not (up >> (sq - n)) & 1 else -1
    if d == RIGHT:
        return sq + 1 if sq % n != n - 1 and not (right >> sq) & 1 else -1
    return sq - 1 if sq % n != 0 and not (right >> (sq - 1)) & 1 else -1


def pawn_moves(geo: Geometry, st: State, seat: int, jumps: bool) -> list[tuple[int, bool]]:
    """Legal destinations of ``seat``'s pawn as ``(square, is_jump)``, without duplicates.

    With ``jumps``: over an orthogonally adjacent pawn straight on if the square behind it is
    free and not walled off; otherwise (wall, board edge or another pawn behind it) to either
    side of that pawn, across no wall, onto a free square.
    """
    up, right = st.up, st.right
    sq = st.pawns[seat]
    occ = set(st.pawns)
    out: list[tuple[int, bool]] = []
    seen: set[int] = set()
    for d in (UP, RIGHT, DOWN, LEFT):
        t = neighbour(geo, up, right, sq, d)
        if t < 0:
            continue
        if t not in occ:
            out.append((t, False))
            seen.add(t)
            continue
        if not jumps:
            continue
        b = neighbour(geo, up, right, t, d)
        if b >= 0 and b not in occ:
            if b not in seen:
                out.append((b, True))
                seen.add(b)
            continue
        for s in ((d + 1) % 4, (d + 3) % 4):
            x = neighbour(geo, up, right, t, s)
            if x >= 0 and x not in occ and x not in seen:
                out.append((x, True))
                seen.add(x)
    return out


def wall_masks(geo: Geometry, st: State, orient: str, a: int) -> tuple[int, int, int]:
    """``(up, right, points)`` after adding the wall (no legality check)."""
    if orient == H:
        return st.up | geo.wall_up[a], st.right, geo.h_points[a]
    return st.up, st.right | geo.wall_right[a], geo.v_points[a]


def wall_conflict(geo: Geometry, st: State, orient: str, a: int) -> str:
    """Why the wall cannot lie there ('overlaps', 'crosses'), or '' if the groove is free."""
    if orient == H:
        if st.up & geo.wall_up[a]:
            return "overlaps"
        if (st.v >> a) & 1:
            return "crosses"
    else:
        if st.right & geo.wall_right[a]:
            return "overlaps"
        if (st.h >> a) & 1:
            return "crosses"
    return ""


def may_cut(st: State, points: int) -> bool:
    """The cheap test: only a wall touching the border or walls at 2+ points can cut a path."""
    return (points & st.touched).bit_count() >= 2


def cut_seat(geo: Geometry, st: State, up: int, right: int) -> int:
    """The first seat left without any path to its goal under ``up``/``right``; -1 if none."""
    for seat, p in enumerate(st.pawns):
        if distance(geo, up, right, 1 << p, geo.goals[seat]) < 0:
            return seat
    return -1


def wall_problem(geo: Geometry, st: State, orient: str, a: int) -> str:
    """'' if the wall is legal for the seat to move (walls left aside), else the reason."""
    why = wall_conflict(geo, st, orient, a)
    if why:
        return why
    up, right, points = wall_masks(geo, st, orient, a)
    if may_cut(st, points):
        seat = cut_seat(geo, st, up, right)
        if seat >= 0:
            return f"cuts every path of seat {seat}"
    return ""


def legal_walls(geo: Geometry, st: State) -> list[tuple[str, int]]:
    """Every legal wall for the seat to move, ``(orientation, anchor)``, h walls first."""
    if st.walls_left[st.to_act] <= 0:
        return []
    return [
        (o, a)
        for o in ORIENTATIONS
        for a in range(geo.anchors)
        if not wall_problem(geo, st, o, a)
    ]


def with_wall(geo: Geometry, st: State, orient: str, a: int) -> State:
    """The state after the seat to move places a wall (assumed legal)."""
    up, right, points = wall_masks(geo, st, orient, a)
    seat = st.to_act
    left = list(st.walls_left)
    left[seat] -= 1
    return State(
        pawns=st.pawns,
        walls_left=tuple(left),
        h=st.h | (1 << a) if orient == H else st.h,
        v=st.v | (1 << a) if orient == V else st.v,
        up=up,
        right=right,
        touched=st.touched | points,
        to_act=(seat + 1) % geo.players,
        turns=st.turns + 1,
    )


def with_move(geo: Geometry, st: State, dest: int) -> State:
    """The state after the seat to move moves its pawn to ``dest`` (assumed legal)."""
    seat = st.to_act
    pawns = list(st.pawns)
    pawns[seat] = dest
    return State(
        pawns=tuple(pawns),
        walls_left=st.walls_left,
        h=st.h,
        v=st.v,
        up=st.up,
        right=st.right,
        touched=st.touched,
        to_act=(seat + 1) % geo.players,
        turns=st.turns + 1,
    )


def with_pass(geo: Geometry, st: State) -> State:
    return State(
        pawns=st.pawns,
        walls_left=st.walls_left,
        h=st.h,
        v=st.v,
        up=st.up,
        right=st.right,
        touched=st.touched,
        to_act=(st.to_act + 1) % geo.players,
        turns=st.turns + 1,
    )


def side_walls(geo: Geometry, a: int, b: int) -> tuple[tuple[str, int], ...]:
    """The walls that would block the side between neighbouring squares ``a`` and ``b``."""
    lo, hi = min(a, b), max(a, b)
    if hi - lo == geo.n:
        return geo.up_side_walls[lo]
    return geo.right_side_walls[lo]


def shortest_path(geo: Geometry, up: int, right: int, lay: list[int], sq: int) -> list[int]:
    """One shortest path (list of squares, ``sq`` first) down the BFS ``lay``ers to the goal."""
    d = layer_distance(lay, sq)
    if d < 0:
        return [sq]
    path = [sq]
    cur = sq
    while d > 0:
        below = lay[d - 1]
        for direction in (UP, RIGHT, DOWN, LEFT):
            t = neighbour(geo, up, right, cur, direction)
            if t >= 0 and (below >> t) & 1:
                cur = t
                break
        path.append(cur)
        d -= 1
    return path


def path_walls(geo: Geometry, path: list[int]) -> list[tuple[str, int]]:
    """Every wall blocking some side along ``path`` (no duplicates, no legality check).

    Any wall that lengthens a pawn's shortest distance must block every shortest path, so
    it is in this list for any one shortest path.
    """
    out: list[tuple[str, int]] = []
    seen: set[tuple[str, int]] = set()
    for a, b in pairwise(path):
        for w in side_walls(geo, a, b):
            if w not in seen:
                seen.add(w)
                out.append(w)
    return out
