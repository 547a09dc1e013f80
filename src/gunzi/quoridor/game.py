"""A game of 步步为营 (docs/rules.md Part D): state, actions, notation, events.

Board and seats
---------------
Squares are ``(row, col)``: row 0 is the bottom row, row n-1 the top; col 0 the left
column, col n-1 the right (n = ``rules.board_size``, 9 by default). Pawns start at the
centre of their own edge and race to the opposite edge:

* 2 players: seat 0 starts at the bottom (``e1``) and wins on the top row; seat 1 starts
  at the top (``e9``) and wins on the bottom row.
* 4 players, seats in playing order (counterclockwise as at the card tables): seat 0 bottom
  (``e1``, goal top row), seat 1 right (``i5``, goal left column), seat 2 top (``e9``, goal
  bottom row), seat 3 left (``a5``, goal right column).

Seat 0 moves first; turns go 0, 1, (2, 3,) 0, ...

Walls: ``Wall(seat, row, col, orientation)``, see :mod:`gunzi.quoridor.board` for the
anchor convention: ``(row, col)`` is the bottom-left square of the 2×2 block around the
wall's centre (0 ≤ row, col ≤ n-2); ``'h'`` lies above that row over columns col, col+1;
``'v'`` lies right of that column over rows row, row+1.

Text notation
-------------
* A square is its column letter (``a`` = col 0 …) and its row number (``1`` = row 0 …):
  ``e1`` is (0, 4). A move is written as its destination square: ``e2``.
* A wall is its anchor square plus ``h`` or ``v``: ``e3h`` is ``Wall(row=2, col=4, 'h')``,
  lying between rows 3 and 4 over columns e and f.
* ``pass`` is the pass, legal only when the seat has no other legal action (an engine
  convention: a pawn boxed in by pawns with no usable wall).
Reading ignores case and surrounding blanks; writing uses lower case.

Turn limit: after ``rules.max_turns`` actions (if not 0) with no winner the game ends in a
draw (two pawns facing each other in a one-square corridor can block each other for ever).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from gunzi.engine.errors import (
    IllegalActionError,
    MalformedActionError,
    OutOfTurnError,
)
from gunzi.quoridor import board as B
from gunzi.quoridor.rules import QuoridorRules, preset

RULE_MOVES = "D moves"
RULE_JUMPS = "D moves [I-15]"
RULE_WALLS = "D walls"
RULE_TURN = "D turn"

FILES = "abcdefghijklmnopqrstuvwxyz"


# ---------------------------------------------------------------- notation


def square_name(row: int, col: int) -> str:
    """``(0, 4)`` → ``'e1'``."""
    return f"{FILES[col]}{row + 1}"


_SQUARE_RE = re.compile(r"([a-z])([0-9]{1,2})")
_ACTION_RE = re.compile(r"([a-z])([0-9]{1,2})([hv]?)")


def parse_square(text: str) -> tuple[int, int]:
    """``'e1'`` → ``(0, 4)``; unreadable text raises :class:`MalformedActionError`."""
    if not isinstance(text, str):
        raise MalformedActionError(f"square must be text like 'e2', not {text!r}")
    m = _SQUARE_RE.fullmatch(text.strip().lower())
    if not m or m.group(2).startswith("0"):
        raise MalformedActionError(f"cannot read square {text!r} (expected like 'e2')")
    return int(m.group(2)) - 1, FILES.index(m.group(1))


# ---------------------------------------------------------------- actions


@dataclass(frozen=True)
class Move:
    """Move the own pawn to ``to = (row, col)`` (a step, or a jump with ``jumps``)."""

    seat: int
    to: tuple[int, int]

    def text(self) -> str:
        return square_name(*self.to)


@dataclass(frozen=True)
class Wall:
    """Place a wall anchored at square ``(row, col)``, orientation ``'h'`` or ``'v'``."""

    seat: int
    row: int
    col: int
    orientation: str

    def text(self) -> str:
        return square_name(self.row, self.col) + self.orientation


@dataclass(frozen=True)
class Pass:
    """Pass the turn; legal only when the seat has no legal move and no legal wall."""

    seat: int

    def text(self) -> str:
        return "pass"


Action = Move | Wall | Pass


def parse_action(text: str, seat: int) -> Action:
    """Read ``'e2'`` (move), ``'e3h'`` / ``'e3v'`` (wall) or ``'pass'`` for ``seat``."""
    if not isinstance(text, str):
        raise MalformedActionError(f"action must be text like 'e2' or 'e3h', not {text!r}")
    t = text.strip().lower()
    if t == "pass":
        return Pass(seat)
    m = _ACTION_RE.fullmatch(t)
    if not m or m.group(2).startswith("0"):
        raise MalformedActionError(
            f"cannot read action {text!r} (expected a square like 'e2', a wall like 'e3h' "
            "or 'e3v', or 'pass')"
        )
    row, col = int(m.group(2)) - 1, FILES.index(m.group(1))
    if m.group(3):
        return Wall(seat, row, col, m.group(3))
    return Move(seat, (row, col))


def format_action(action: Action) -> str:
    """The text of an action: ``'e2'``, ``'e3h'`` or ``'pass'``."""
    return action.text()


# ---------------------------------------------------------------- events


@dataclass(frozen=True)
class MoveEvent:
    seat: int
    frm: tuple[int, int]
    to: tuple[int, int]
    jump: bool
    turn: int

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "type": "move",
            "seat": self.seat,
            "from": square_name(*self.frm),
            "to": square_name(*self.to),
        }
        if self.jump:
            d["jump"] = True
        return d


@dataclass(frozen=True)
class WallEvent:
    seat: int
    row: int
    col: int
    orientation: str
    walls_left: int
    turn: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": "wall",
            "seat": self.seat,
            "wall": square_name(self.row, self.col) + self.orientation,
            "walls_left": self.walls_left,
        }


@dataclass(frozen=True)
class PassEvent:
    seat: int
    turn: int

    def to_dict(self) -> dict[str, Any]:
        return {"type": "pass", "seat": self.seat}


@dataclass(frozen=True)
class EndEvent:
    """The game is over: ``winner`` reached its goal edge, or ``None`` (draw by turn limit)."""

    winner: int | None
    reason: str
    turn: int

    def to_dict(self) -> dict[str, Any]:
        return {"type": "end", "winner": self.winner, "reason": self.reason}


Event = MoveEvent | WallEvent | PassEvent | EndEvent


# ---------------------------------------------------------------- the game


def _is_int(x: object) -> bool:
    return type(x) is int


class QuoridorGame:
    """One game. Mutated only by :meth:`apply`; everything else is read-only."""

    def __init__(self, rules: QuoridorRules | None = None) -> None:
        self.rules = rules if rules is not None else preset("quoridor-2")
        self.geometry = B.geometry(self.rules.board_size, self.rules.players)
        self._state = B.initial_state(self.geometry, self.rules.walls)
        self._events: list[Event] = []
        self._walls: list[Wall] = []
        self._winner: int | None = None
        self._over = False

    @classmethod
    def from_position(
        cls,
        rules: QuoridorRules,
        pawns: Sequence[str],
        walls: Sequence[str] = (),
        to_act: int = 0,
        walls_left: Sequence[int] | None = None,
    ) -> QuoridorGame:
        """A game set up at a position (puzzles, tests), with no events.

        ``pawns`` are square names per seat, ``walls`` wall names (``'e3h'``, recorded with
        seat -1) checked for
        overlap, crossing and open paths; ``walls_left`` defaults to the rules' count for
        every seat. Bad input raises :class:`MalformedActionError` or
        :class:`IllegalActionError`.
        """
        game = cls(rules)
        geo = game.geometry
        n = geo.n
        if len(pawns) != rules.players:
            raise MalformedActionError(f"need {rules.players} pawn squares, got {len(pawns)}")
        squares: list[int] = []
        for text in pawns:
            r, c = parse_square(text)
            if not (0 <= r < n and 0 <= c < n):
                raise IllegalActionError(f"square {text!r} is off the board", rule=RULE_MOVES)
            squares.append(geo.square(r, c))
        if len(set(squares)) != len(squares):
            raise IllegalActionError("two pawns on one square", rule=RULE_MOVES)
        left = tuple(walls_left) if walls_left is not None else (rules.walls,) * rules.players
        if len(left) != rules.players or not all(_is_int(x) and x >= 0 for x in left):
            raise MalformedActionError(f"walls_left must be {rules.players} counts, not {left}")
        if not (_is_int(to_act) and 0 <= to_act < rules.players):
            raise MalformedActionError(f"to_act must be a seat, not {to_act!r}")
        st = B.State(
            pawns=tuple(squares), walls_left=left, h=0, v=0, up=0, right=0,
            touched=geo.border, to_act=0, turns=0,
        )
        for text in walls:
            w = parse_action(text, 0)
            if not isinstance(w, Wall):
                raise MalformedActionError(f"{text!r} is not a wall")
            m = n - 1
            if not (0 <= w.row < m and 0 <= w.col < m):
                raise IllegalActionError(f"wall {text!r} is off the board", rule=RULE_WALLS)
            a = geo.anchor(w.row, w.col)
            why = B.wall_problem(geo, st, w.orientation, a)
            if why:
                raise IllegalActionError(game._wall_reason(w, a, why), rule=RULE_WALLS)
            st = B.with_wall(geo, replace(st, walls_left=(1,) * rules.players), w.orientation, a)
            game._walls.append(Wall(-1, w.row, w.col, w.orientation))
        game._state = replace(st, walls_left=left, to_act=to_act, turns=0)
        for seat, sq in enumerate(squares):
            if (geo.goals[seat] >> sq) & 1:
                raise IllegalActionError(f"seat {seat} already stands on its goal edge",
                                         rule=RULE_MOVES)
        return game

    # ---- read-only state

    @property
    def state(self) -> B.State:
        """The immutable board state (for bots and fast look-ahead)."""
        return self._state

    @property
    def events(self) -> list[Event]:
        """The events so far (a copy)."""
        return list(self._events)

    @property
    def winner(self) -> int | None:
        return self._winner

    @property
    def is_over(self) -> bool:
        return self._over

    @property
    def to_act(self) -> int | None:
        """The seat to act, or ``None`` when the game is over (the game protocol's name)."""
        return None if self._over else self._state.to_act

    def returns(self) -> list[float]:
        """Per seat: +1 for the winner, the others share -1; all 0 while playing or drawn."""
        n = self.rules.players
        if self._winner is None:
            return [0.0] * n
        return [1.0 if s == self._winner else -1.0 / (n - 1) for s in range(n)]

    def information_state(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` knows: the whole board (步步为营 hides nothing); see :meth:`view`."""
        return self.view(seat)

    @property
    def players(self) -> int:
        return self.rules.players

    @property
    def turns(self) -> int:
        return self._state.turns

    def position(self, seat: int) -> tuple[int, int]:
        return self.geometry.rowcol(self._state.pawns[seat])

    @property
    def positions(self) -> tuple[tuple[int, int], ...]:
        return tuple(self.geometry.rowcol(p) for p in self._state.pawns)

    @property
    def walls_left(self) -> tuple[int, ...]:
        return self._state.walls_left

    @property
    def walls(self) -> tuple[Wall, ...]:
        """Walls on the board, in the order they were placed."""
        return tuple(self._walls)

    def distance(self, seat: int) -> int:
        """Length of ``seat``'s shortest path to its goal edge (pawns ignored)."""
        st, geo = self._state, self.geometry
        return B.distance(geo, st.up, st.right, 1 << st.pawns[seat], geo.goals[seat])

    def key(self) -> tuple[Any, ...]:
        """A hashable snapshot of the whole game state (for tests and caches)."""
        st = self._state
        return (
            st.pawns, st.walls_left, st.h, st.v, st.up, st.right, st.touched,
            st.to_act, st.turns, self._winner, self._over, len(self._events),
            tuple(self._walls),
        )

    # ---- legality

    def legal_actions(self, seat: int) -> list[Action]:
        """Every legal action of ``seat``: moves (by square), then h walls, then v walls.

        Empty when it is not ``seat``'s turn or the game is over. ``[Pass(seat)]`` when the
        seat can neither move nor place a wall.
        """
        if self._over or seat != self._state.to_act:
            return []
        geo, st = self.geometry, self._state
        out: list[Action] = [
            Move(seat, geo.rowcol(sq))
            for sq, _ in sorted(B.pawn_moves(geo, st, seat, self.rules.jumps))
        ]
        for o, a in B.legal_walls(geo, st):
            r, c = geo.anchor_rowcol(a)
            out.append(Wall(seat, r, c, o))
        return out or [Pass(seat)]

    def legal_moves(self, seat: int) -> list[Move]:
        if self._over or seat != self._state.to_act:
            return []
        geo = self.geometry
        return [
            Move(seat, geo.rowcol(sq))
            for sq, _ in sorted(B.pawn_moves(geo, self._state, seat, self.rules.jumps))
        ]

    def verify(self, action: Action) -> None:
        """Raise the error :meth:`apply` would raise for ``action``; change nothing (as
        :meth:`gunzi.engine.match.Match.verify`)."""
        self._check(action)

    def is_legal(self, action: Action) -> bool:
        try:
            self._check(action)
        except (MalformedActionError, OutOfTurnError, IllegalActionError):
            return False
        return True

    def _check_seat(self, action: object) -> int:
        seat = getattr(action, "seat", None)
        if not _is_int(seat) or not 0 <= seat < self.rules.players:  # type: ignore[operator]
            raise MalformedActionError(
                f"seat must be an integer 0..{self.rules.players - 1}, not {seat!r}"
            )
        assert isinstance(seat, int)
        if self._over:
            raise OutOfTurnError("the game is over")
        if seat != self._state.to_act:
            raise OutOfTurnError(f"it is seat {self._state.to_act}'s turn, not seat {seat}'s")
        return seat

    def _check(self, action: Action) -> tuple[str, int, bool]:
        """Validate; return ``(kind, index, jump)`` with kind 'm' square, 'h'/'v' anchor, 'p'."""
        if not isinstance(action, Move | Wall | Pass):
            raise MalformedActionError(f"not a 步步为营 action: {action!r}")
        if isinstance(action, Move):
            to = action.to
            if not (isinstance(to, tuple) and len(to) == 2 and all(_is_int(x) for x in to)):
                raise MalformedActionError(f"move destination must be (row, col), not {to!r}")
            seat = self._check_seat(action)
            return ("m", *self._check_move(seat, to))
        if isinstance(action, Wall):
            if not (_is_int(action.row) and _is_int(action.col)):
                raise MalformedActionError(
                    f"wall row and col must be integers, not {action.row!r}, {action.col!r}"
                )
            if action.orientation not in B.ORIENTATIONS:
                raise MalformedActionError(
                    f"wall orientation must be 'h' or 'v', not {action.orientation!r}"
                )
            seat = self._check_seat(action)
            return (action.orientation, self._check_wall(seat, action), False)
        seat = self._check_seat(action)
        if self.legal_actions(seat) != [Pass(seat)]:
            raise IllegalActionError(
                "passing is allowed only with no legal move and no legal wall", rule=RULE_TURN
            )
        return ("p", 0, False)

    def _check_move(self, seat: int, to: tuple[int, int]) -> tuple[int, bool]:
        geo, st = self.geometry, self._state
        n = geo.n
        r, c = to
        if not (0 <= r < n and 0 <= c < n):
            raise IllegalActionError(
                f"square {to} is off the {n}×{n} board", rule=RULE_MOVES
            )
        dest = geo.square(r, c)
        for sq, jump in B.pawn_moves(geo, st, seat, self.rules.jumps):
            if sq == dest:
                return dest, jump
        here = st.pawns[seat]
        name = square_name(r, c)
        if dest == here:
            raise IllegalActionError("a move must leave the square", rule=RULE_MOVES)
        if dest in st.pawns:
            raise IllegalActionError(
                f"{name} is occupied by seat {st.pawns.index(dest)}", rule=RULE_JUMPS
            )
        for d in (B.UP, B.RIGHT, B.DOWN, B.LEFT):
            if B.neighbour(geo, 0, 0, here, d) == dest:
                raise IllegalActionError(f"a wall blocks the way to {name}", rule=RULE_MOVES)
        if not self.rules.jumps:
            raise IllegalActionError(
                f"{name} is not one square up, down, left or right (no jumps in these rules)",
                rule=RULE_MOVES,
            )
        raise IllegalActionError(
            f"{name} is neither a step nor a legal jump over an adjacent pawn", rule=RULE_JUMPS
        )

    def _check_wall(self, seat: int, w: Wall) -> int:
        geo, st = self.geometry, self._state
        m = geo.n - 1
        if not (0 <= w.row < m and 0 <= w.col < m):
            raise IllegalActionError(
                f"wall {w.text() if 0 <= w.col < 26 and w.row >= 0 else (w.row, w.col)} is off "
                f"the board (anchors run a1..{square_name(m - 1, m - 1)})",
                rule=RULE_WALLS,
            )
        if st.walls_left[seat] <= 0:
            raise IllegalActionError(f"seat {seat} has no walls left", rule=RULE_WALLS)
        a = geo.anchor(w.row, w.col)
        why = B.wall_problem(geo, st, w.orientation, a)
        if why:
            raise IllegalActionError(self._wall_reason(w, a, why), rule=RULE_WALLS)
        return a

    def _wall_reason(self, w: Wall, a: int, why: str) -> str:
        """Why ``w`` cannot be placed, naming the wall in its way (players ask 'which?')."""
        geo = self.geometry
        if why == "crosses":
            other = Wall(-1, w.row, w.col, B.H if w.orientation == B.V else B.V)
            return f"wall {w.text()} crosses wall {other.text()} at its middle"
        if why == "overlaps":
            edges = geo.wall_up if w.orientation == B.H else geo.wall_right
            for old in self._walls:
                if old.orientation == w.orientation and \
                        edges[geo.anchor(old.row, old.col)] & edges[a]:
                    return f"wall {w.text()} overlaps wall {old.text()}"
        if why.startswith("cuts every path"):
            return f"wall {w.text()} {why} to its goal"
        return f"wall {w.text()} {why}"

    # ---- acting

    def apply(self, action: Action) -> Event:
        """Validate and play ``action``; return its event. A rejected action changes nothing."""
        kind, idx, jump = self._check(action)
        geo, st = self.geometry, self._state
        seat = st.to_act
        turn = st.turns
        event: Event
        if kind == "m":
            frm = geo.rowcol(st.pawns[seat])
            new = B.with_move(geo, st, idx)
            event = MoveEvent(seat, frm, geo.rowcol(idx), jump, turn)
        elif kind == "p":
            new = B.with_pass(geo, st)
            event = PassEvent(seat, turn)
        else:
            assert isinstance(action, Wall)
            new = B.with_wall(geo, st, kind, idx)
            event = WallEvent(
                seat, action.row, action.col, kind, new.walls_left[seat], turn
            )
            self._walls.append(Wall(seat, action.row, action.col, kind))
        self._state = new
        self._events.append(event)
        if kind == "m" and (geo.goals[seat] >> idx) & 1:
            self._finish(seat, "goal", new.turns)
        elif self.rules.max_turns and new.turns >= self.rules.max_turns:
            self._finish(None, "turn limit", new.turns)
        return event

    def apply_text(self, seat: int, text: str) -> Event:
        """Parse ``text`` (see the module notes) for ``seat`` and apply it."""
        return self.apply(parse_action(text, seat))

    def _finish(self, winner: int | None, reason: str, turn: int) -> None:
        self._winner = winner
        self._over = True
        self._events.append(EndEvent(winner, reason, turn))

    def clone(self) -> QuoridorGame:
        """An independent copy (states and events are immutable, so this is cheap)."""
        g = QuoridorGame.__new__(QuoridorGame)
        g.rules = self.rules
        g.geometry = self.geometry
        g._state = self._state
        g._events = list(self._events)
        g._walls = list(self._walls)
        g._winner = self._winner
        g._over = self._over
        return g

    # ---- views

    def view(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` (None: a spectator) sees (everything is public), as JSON-able data."""
        geo = self.geometry
        return {
            "game": "quoridor",
            "rules": {"name": self.rules.name, **self.rules.options()},
            "seat": seat,
            "to_act": self.to_act,
            "turn": self._state.turns,
            "board_size": geo.n,
            "pawns": [
                {
                    "seat": s,
                    "square": square_name(*geo.rowcol(p)),
                    "side": geo.sides[s],
                    "walls_left": self._state.walls_left[s],
                    "distance": self.distance(s),
                }
                for s, p in enumerate(self._state.pawns)
            ],
            "walls": [{"seat": w.seat, "wall": w.text()} for w in self._walls],
            "legal": [] if seat is None else [a.text() for a in self.legal_actions(seat)],
            "is_over": self._over,
            "winner": self._winner,
        }

    def render(self) -> str:
        """The board as text: pawns are seat digits, walls ``-`` and ``|``, row n at the top."""
        geo, st = self.geometry, self._state
        n = geo.n
        lines = []
        for r in range(n - 1, -1, -1):
            cells = []
            for c in range(n):
                sq = geo.square(r, c)
                cell = str(st.pawns.index(sq)) if sq in st.pawns else "."
                sep = "|" if c < n - 1 and (st.right >> sq) & 1 else " "
                cells.append(cell + (sep if c < n - 1 else ""))
            lines.append(f"{r + 1:>2} " + "".join(cells))
            if r > 0:
                under = []
                for c in range(n):
                    blocked = (st.up >> geo.square(r - 1, c)) & 1
                    joint = " "
                    if c < n - 1:
                        a = geo.anchor(r - 1, c)
                        if (st.h >> a) & 1:
                            joint = "-"
                        elif (st.v >> a) & 1:
                            joint = "|"
                    under.append(("-" if blocked else " ") + (joint if c < n - 1 else ""))
                lines.append("   " + "".join(under))
        lines.append("   " + " ".join(FILES[:n]))
        return "\n".join(lines)


__all__ = [
    "Action",
    "EndEvent",
    "Event",
    "Move",
    "MoveEvent",
    "Pass",
    "PassEvent",
    "QuoridorGame",
    "Wall",
    "WallEvent",
    "format_action",
    "parse_action",
    "parse_square",
    "square_name",
]
