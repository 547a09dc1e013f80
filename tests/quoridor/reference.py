"""A plain, slow reference for wall legality: sets of blocked square pairs and a BFS."""

from __future__ import annotations

from collections import deque

from gunzi.quoridor.game import QuoridorGame

Square = tuple[int, int]


def goal_squares(n: int, players: int, seat: int) -> set[Square]:
    side = ("bottom", "top")[seat] if players == 2 else ("bottom", "right", "top", "left")[seat]
    if side == "bottom":
        return {(n - 1, c) for c in range(n)}
    if side == "top":
        return {(0, c) for c in range(n)}
    if side == "right":
        return {(r, 0) for r in range(n)}
    return {(r, n - 1) for r in range(n)}


def blocked_pairs(walls: list[tuple[int, int, str]]) -> set[frozenset[Square]]:
    out: set[frozenset[Square]] = set()
    for r, c, o in walls:
        if o == "h":
            out.add(frozenset({(r, c), (r + 1, c)}))
            out.add(frozenset({(r, c + 1), (r + 1, c + 1)}))
        else:
            out.add(frozenset({(r, c), (r, c + 1)}))
            out.add(frozenset({(r + 1, c), (r + 1, c + 1)}))
    return out


def has_path(n: int, blocked: set[frozenset[Square]], start: Square, goal: set[Square]) -> bool:
    seen = {start}
    queue = deque([start])
    while queue:
        sq = queue.popleft()
        if sq in goal:
            return True
        r, c = sq
        for nxt in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
            if (
                0 <= nxt[0] < n
                and 0 <= nxt[1] < n
                and nxt not in seen
                and frozenset({sq, nxt}) not in blocked
            ):
                seen.add(nxt)
                queue.append(nxt)
    return False


def walls_of(game: QuoridorGame) -> list[tuple[int, int, str]]:
    return [(w.row, w.col, w.orientation) for w in game.walls]


def all_paths_open(game: QuoridorGame, walls: list[tuple[int, int, str]]) -> bool:
    n, players = game.rules.board_size, game.rules.players
    blocked = blocked_pairs(walls)
    return all(
        has_path(n, blocked, pos, goal_squares(n, players, seat))
        for seat, pos in enumerate(game.positions)
    )


def reference_legal_walls(game: QuoridorGame) -> set[tuple[int, int, str]]:
    """Every wall the seat to move may place, by the plain definition of Part D."""
    seat = game.to_act
    if seat is None or game.walls_left[seat] == 0:
        return set()
    n = game.rules.board_size
    walls = walls_of(game)
    blocked = blocked_pairs(walls)
    centres = {(r, c) for r, c, _ in walls}
    out = set()
    for r in range(n - 1):
        for c in range(n - 1):
            for o in "hv":
                new = blocked_pairs([(r, c, o)])
                if new & blocked:
                    continue  # overlap
                if (r, c) in centres:
                    continue  # crossing (same centre, other orientation; same one overlaps)
                if all_paths_open(game, [*walls, (r, c, o)]):
                    out.add((r, c, o))
    return out
