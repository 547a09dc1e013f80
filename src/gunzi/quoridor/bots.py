"""Bots for 步步为营. Each has ``choose(game, seat, rng) -> action`` and reads only public state.

* ``random`` (:class:`RandomBot`): half the time (while it has walls) a uniformly random
  legal wall, otherwise a uniformly random legal pawn move.
* ``rule`` (:class:`RuleBot`): if the leading opponent's shortest path is shorter than its
  own, places the legal wall that lengthens that opponent's path most relative to its own
  (only if it lengthens the opponent's more); otherwise steps along a shortest path.
* ``search`` (:class:`SearchBot`): alpha-beta (paranoid for 4 players) with iterative
  deepening on the shortest-path difference, with walls restricted to those blocking a
  shortest path of the pawn they are aimed at; budget in nodes and/or seconds.

All randomness comes from the ``random.Random`` passed in.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from gunzi.engine.errors import InvalidRulesError, OutOfTurnError
from gunzi.quoridor import board as B
from gunzi.quoridor.game import Action, Move, MoveEvent, Pass, QuoridorGame, Wall


class Bot(Protocol):
    name: str

    def choose(self, game: QuoridorGame, seat: int, rng: random.Random) -> Action: ...


def _require_turn(game: QuoridorGame, seat: int) -> None:
    if game.is_over or game.to_act != seat:
        raise OutOfTurnError(f"seat {seat} has nothing to decide now")


def _wall(geo: B.Geometry, seat: int, o: str, a: int) -> Wall:
    r, c = geo.anchor_rowcol(a)
    return Wall(seat, r, c, o)


def _move(geo: B.Geometry, seat: int, sq: int) -> Move:
    return Move(seat, geo.rowcol(sq))


# ---------------------------------------------------------------- random


@dataclass
class RandomBot:
    """A uniformly random legal move, or (with probability ``wall_share``) a random wall."""

    wall_share: float = 0.5
    name: str = "random"

    def choose(self, game: QuoridorGame, seat: int, rng: random.Random) -> Action:
        _require_turn(game, seat)
        geo, st = game.geometry, game.state
        moves = sorted(sq for sq, _ in B.pawn_moves(geo, st, seat, game.rules.jumps))
        if st.walls_left[seat] > 0 and (not moves or rng.random() < self.wall_share):
            cands = [(o, a) for o in B.ORIENTATIONS for a in range(geo.anchors)]
            rng.shuffle(cands)
            for o, a in cands:
                if not B.wall_problem(geo, st, o, a):
                    return _wall(geo, seat, o, a)
        if moves:
            return _move(geo, seat, rng.choice(moves))
        return Pass(seat)


# ---------------------------------------------------------------- rule


def _leader(dist: list[int], seat: int, players: int) -> int:
    """The opponent closest to its goal (ties: the one who moves sooner after ``seat``)."""
    return min(
        (s for s in range(players) if s != seat),
        key=lambda s: (dist[s], (s - seat) % players),
    )


@dataclass
class RuleBot:
    """Shortest-path runner that walls the leading opponent when it is behind in the race."""

    name: str = "rule"

    def choose(self, game: QuoridorGame, seat: int, rng: random.Random) -> Action:
        _require_turn(game, seat)
        geo, st = game.geometry, game.state
        lays = [B.layers(geo, st.up, st.right, geo.goals[s]) for s in range(geo.players)]
        dist = [B.layer_distance(lays[s], st.pawns[s]) for s in range(geo.players)]
        target = _leader(dist, seat, geo.players)
        if st.walls_left[seat] > 0 and dist[target] < dist[seat]:
            path = B.shortest_path(geo, st.up, st.right, lays[target], st.pawns[target])
            best: tuple[int, int, float] | None = None
            best_wall: tuple[str, int] | None = None
            for o, a in B.path_walls(geo, path):
                if B.wall_problem(geo, st, o, a):
                    continue
                up, right, _ = B.wall_masks(geo, st, o, a)
                gain_opp = (
                    B.distance(geo, up, right, 1 << st.pawns[target], geo.goals[target])
                    - dist[target]
                )
                gain_me = B.distance(geo, up, right, 1 << st.pawns[seat], geo.goals[seat]) - dist[
                    seat
                ]
                if gain_opp > gain_me:
                    score = (gain_opp - gain_me, gain_opp, rng.random())
                    if best is None or score > best:
                        best, best_wall = score, (o, a)
            if best_wall is not None:
                return _wall(geo, seat, *best_wall)
        moves = sorted(sq for sq, _ in B.pawn_moves(geo, st, seat, game.rules.jumps))
        if moves:
            ds = [B.layer_distance(lays[seat], sq) for sq in moves]
            low = min(ds)
            return _move(geo, seat, rng.choice([m for m, d in zip(moves, ds, strict=True)
                                                if d == low]))
        walls = B.legal_walls(geo, st)
        if walls:
            return _wall(geo, seat, *rng.choice(walls))
        return Pass(seat)


# ---------------------------------------------------------------- search

WIN = 1_000_000
INF = 10**9


class _OutOfBudget(Exception):
    pass


Kid = tuple[tuple[str, int], B.State, int]  # (move, child state, winner or -1)


@dataclass
class SearchBot:
    """Alpha-beta with iterative deepening on the shortest-path race.

    Evaluation (for the seat choosing, ``me``): ``100 * (d_opp - d_me) + W(walls_me) -
    W(walls_opp) + tempo`` where ``d`` are shortest-path lengths (pawns ignored), ``opp`` is
    the leading opponent (most walls in hand among opponents for ``walls_opp``), ``tempo``
    is +50 when ``me`` is to move, and ``W(w) = wall_weight * (w + min(w, reserve))``: the
    last ``reserve`` walls in hand count double, so the bot keeps a few for defence instead
    of spending them all while ahead. With four players the search is paranoid (every
    opponent minimises ``me``'s value).

    Candidate actions at a node: every pawn move, and the legal walls that block a side of
    one shortest path of the pawn the mover is racing against (for ``me``: the leading
    opponent; for an opponent: ``me``); every wall that lengthens that pawn's distance is
    among them. Below the root, walls are ordered by the static value and only the best
    ``wall_limit`` are searched.

    At the root, stepping back onto a square the pawn left in its last few moves costs
    ``repeat_penalty`` (breaks back-and-forth dithering when the values are flat).

    Budget: ``max_nodes`` (deterministic) and/or ``max_time`` seconds per decision; the move
    of the last fully searched depth is played (depth 1 is always completed).
    """

    max_nodes: int = 2000
    max_time: float | None = None
    max_depth: int = 10
    wall_limit: int = 8
    wall_weight: int = 60
    reserve: int = 5
    repeat_penalty: int = 30
    name: str = "search"
    last_depth: int = field(default=0, init=False)
    last_nodes: int = field(default=0, init=False)
    last_score: int = field(default=0, init=False)

    def choose(self, game: QuoridorGame, seat: int, rng: random.Random) -> Action:
        _require_turn(game, seat)
        s = _Search(game, seat, self, rng)
        kind, idx = s.run()
        self.last_depth, self.last_nodes, self.last_score = s.depth_done, s.nodes, s.score
        geo = game.geometry
        if kind == "m":
            return _move(geo, seat, idx)
        if kind == "p":
            return Pass(seat)
        return _wall(geo, seat, kind, idx)


class _Search:
    def __init__(self, game: QuoridorGame, seat: int, cfg: SearchBot, rng: random.Random):
        self.geo = game.geometry
        self.jumps = game.rules.jumps
        self.root_state = game.state
        self.me = seat
        self.cfg = cfg
        self.rng = rng
        self.nodes = 0
        self.depth_done = 0
        self.score = 0
        self.deadline = (
            time.perf_counter() + cfg.max_time if cfg.max_time is not None else None
        )
        self.cache: dict[tuple[int, int, int], list[int]] = {}
        # concave value of walls in hand: the last ``reserve`` walls count double
        self.wall_value = [
            cfg.wall_weight * (w + min(w, cfg.reserve)) for w in range(game.rules.walls + 1)
        ]
        self.players = self.geo.players
        self.opps = [s for s in range(self.players) if s != seat]
        recent = [e.frm for e in game.events if isinstance(e, MoveEvent) and e.seat == seat]
        self.recent = {self.geo.square(*rc) for rc in recent[-4:]}

    # ---- distances

    def lay(self, up: int, right: int, seat: int) -> list[int]:
        key = (up, right, seat)
        got = self.cache.get(key)
        if got is None:
            if len(self.cache) > 200_000:
                self.cache.clear()
            got = B.layers(self.geo, up, right, self.geo.goals[seat])
            self.cache[key] = got
        return got

    def dist(self, st: B.State, seat: int) -> int:
        return B.layer_distance(self.lay(st.up, st.right, seat), st.pawns[seat])

    def evaluate(self, st: B.State) -> int:
        me = self.me
        d_me = self.dist(st, me)
        d_opp = min(self.dist(st, s) for s in self.opps)
        w_opp = max(st.walls_left[s] for s in self.opps)
        v = 100 * (d_opp - d_me) + self.wall_value[st.walls_left[me]] - self.wall_value[w_opp]
        if st.to_act == me:
            v += 50
        return v

    # ---- move generation

    def wall_ok(self, st: B.State, o: str, a: int) -> B.State | None:
        geo = self.geo
        if B.wall_conflict(geo, st, o, a):
            return None
        up, right, points = B.wall_masks(geo, st, o, a)
        if B.may_cut(st, points):
            for s in range(self.players):
                if B.layer_distance(self.lay(up, right, s), st.pawns[s]) < 0:
                    return None
        return B.with_wall(geo, st, o, a)

    def children(self, st: B.State) -> list[Kid]:
        geo = self.geo
        seat = st.to_act
        goal = geo.goals[seat]
        kids: list[Kid] = []
        for dest, _ in B.pawn_moves(geo, st, seat, self.jumps):
            won = seat if (goal >> dest) & 1 else -1
            kids.append((("m", dest), B.with_move(geo, st, dest), won))
        if st.walls_left[seat] > 0:
            if seat == self.me:
                target = min(self.opps, key=lambda s: (self.dist(st, s), (s - seat) % 4))
            else:
                target = self.me
            lay = self.lay(st.up, st.right, target)
            path = B.shortest_path(geo, st.up, st.right, lay, st.pawns[target])
            for o, a in B.path_walls(geo, path):
                ch = self.wall_ok(st, o, a)
                if ch is not None:
                    kids.append(((o, a), ch, -1))
        if not kids:
            kids.append((("p", 0), B.with_pass(geo, st), -1))
        return kids

    def ordered(self, st: B.State, kids: list[Kid], limit: bool) -> list[Kid]:
        """Winning moves first, then by static value for the mover; walls capped if ``limit``."""
        sign = 1 if st.to_act == self.me else -1
        scored: list[tuple[int, int, Kid]] = []
        for i, k in enumerate(kids):
            v = WIN if k[2] >= 0 else sign * self.evaluate(k[1])
            scored.append((v, -i, k))
        scored.sort(reverse=True)
        if not limit:
            return [k for _, _, k in scored]
        out: list[Kid] = []
        walls = 0
        for _, _, k in scored:
            if k[0][0] in B.ORIENTATIONS:
                if walls >= self.cfg.wall_limit:
                    continue
                walls += 1
            out.append(k)
        return out

    # ---- search

    def tick(self) -> None:
        self.nodes += 1
        if self.depth_done == 0:
            return
        if self.nodes > self.cfg.max_nodes:
            raise _OutOfBudget
        if self.deadline is not None and self.nodes & 31 == 0 and (
            time.perf_counter() > self.deadline
        ):
            raise _OutOfBudget

    def value(self, kid: Kid, depth: int, alpha: int, beta: int, ply: int) -> int:
        won = kid[2]
        if won >= 0:
            return WIN - ply if won == self.me else -(WIN - ply)
        return self.search(kid[1], depth, alpha, beta, ply)

    def search(self, st: B.State, depth: int, alpha: int, beta: int, ply: int) -> int:
        self.tick()
        if depth == 0:
            return self.evaluate(st)
        kids = self.children(st)
        if depth >= 2:
            kids = self.ordered(st, kids, limit=True)
        if st.to_act == self.me:
            best = -INF
            for k in kids:
                v = self.value(k, depth - 1, alpha, beta, ply + 1)
                if v > best:
                    best = v
                    if v > alpha:
                        alpha = v
                        if alpha >= beta:
                            break
            return best
        best = INF
        for k in kids:
            v = self.value(k, depth - 1, alpha, beta, ply + 1)
            if v < best:
                best = v
                if v < beta:
                    beta = v
                    if alpha >= beta:
                        break
        return best

    def penalty(self, kid: Kid) -> int:
        kind, idx = kid[0]
        return self.cfg.repeat_penalty if kind == "m" and idx in self.recent else 0

    def run(self) -> tuple[str, int]:
        st = self.root_state
        kids = self.children(st)
        for k in kids:
            if k[2] == self.me:
                return k[0]
        if len(kids) == 1:
            return kids[0][0]
        # Shuffle first so that equal moves are chosen at random, then sort (stable).
        self.rng.shuffle(kids)
        kids = self.ordered(st, kids, limit=False)
        best = kids[0][0]
        for depth in range(1, self.cfg.max_depth + 1):
            try:
                alpha = -INF
                scores: list[int] = []
                choice = kids[0][0]
                for k in kids:
                    pen = self.penalty(k)
                    v = self.value(k, depth - 1, alpha + pen, INF, 1) - pen
                    scores.append(v)
                    if v > alpha:
                        alpha, choice = v, k[0]
            except _OutOfBudget:
                break
            best, self.score, self.depth_done = choice, alpha, depth
            order = sorted(range(len(kids)), key=lambda i: -scores[i])
            kids = [kids[i] for i in order]
            if abs(alpha) >= WIN - 1000:
                break
        return best


# ---------------------------------------------------------------- registry

BOTS: dict[str, Callable[..., Bot]] = {
    "random": RandomBot,
    "rule": RuleBot,
    "search": SearchBot,
}


def make_bot(name: str, **params: Any) -> Bot:
    """A bot by name (``random``, ``rule``, ``search``) with optional parameters."""
    if name not in BOTS:
        raise InvalidRulesError(f"unknown 步步为营 bot {name!r}; valid bots: {', '.join(BOTS)}")
    return BOTS[name](**params)


def random_choose(game: QuoridorGame, seat: int, rng: random.Random) -> Action:
    return RandomBot().choose(game, seat, rng)


def rule_choose(game: QuoridorGame, seat: int, rng: random.Random) -> Action:
    return RuleBot().choose(game, seat, rng)


def search_choose(game: QuoridorGame, seat: int, rng: random.Random) -> Action:
    return SearchBot().choose(game, seat, rng)


__all__ = [
    "BOTS",
    "Bot",
    "RandomBot",
    "RuleBot",
    "SearchBot",
    "make_bot",
    "random_choose",
    "rule_choose",
    "search_choose",
]
