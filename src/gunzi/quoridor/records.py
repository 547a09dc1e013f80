"""Records of 步步为营 games: JSON Lines, a header then one event per line (docs/quoridor.md).

The header names the format, the rules with every option and the seats. Every later line
is an event exactly as :meth:`~gunzi.quoridor.game.QuoridorGame.apply` returned it
(``to_dict``): ``move``, ``wall`` and ``pass`` are the players' decisions, ``end`` is the
engine's. :func:`replay` checks a record with the hall's one record checker
(:func:`gunzi.engine.record_check.check`, shared with the cards): each decision goes to a
fresh game with validation on and every event must come out identical, so a record
proves the game kept the rules.
A record may stop before the end (a game in progress); :func:`replay` says so.

No I/O here: :func:`dumps` gives text, :func:`replay` takes already-parsed lines.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from gunzi.engine.errors import GunziError, RecordError
from gunzi.engine.record_check import RecordFormat, check
from gunzi.quoridor.game import Action, Move, Pass, QuoridorGame, Wall, parse_action, parse_square
from gunzi.quoridor.rules import QuoridorRules, from_options

FORMAT = "gunzi-quoridor-record"
VERSION = 1


def header(game: QuoridorGame, seats: list[str] | None = None,
           extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """The first line: format, version, game, the rules with every option, the seats."""
    out: dict[str, Any] = {
        "type": "header",
        "format": FORMAT,
        "version": VERSION,
        "game": "quoridor",
        "rules": {"name": game.rules.name, **game.rules.options()},
        "seats": seats or [f"seat{i}" for i in range(game.players)],
    }
    if extra:
        out.update(extra)
    return out


def lines(game: QuoridorGame, seats: list[str] | None = None,
          extra: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """The whole record of ``game`` (played from the start) as a list of JSON objects."""
    return [header(game, seats, extra), *(e.to_dict() for e in game.events)]


def dumps(game: QuoridorGame, seats: list[str] | None = None,
          extra: dict[str, Any] | None = None) -> str:
    """The record as JSON Lines text."""
    return "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines(game, seats, extra))


def action_of(event: dict[str, Any]) -> Action | None:
    """The decision an event records, or ``None`` for the engine's own ``end`` event."""
    kind = event.get("type")
    seat = event.get("seat")
    if kind == "end":
        return None
    if not isinstance(seat, int) or isinstance(seat, bool):
        raise RecordError(f"{kind!r} event needs an integer seat, not {seat!r}")
    if kind == "move":
        return Move(seat, parse_square(str(event.get("to"))))
    if kind == "wall":
        action = parse_action(str(event.get("wall")), seat)
        if not isinstance(action, Wall):
            raise RecordError(f"{event.get('wall')!r} is not a wall")
        return action
    if kind == "pass":
        return Pass(seat)
    raise RecordError(f"unknown event type {kind!r}")


@dataclass
class Replay:
    """A replayed record: its header and the game as it stands after the last event."""

    header: dict[str, Any]
    game: QuoridorGame

    def summary(self) -> dict[str, Any]:
        g = self.game
        return {
            "rules": g.rules.name,
            "players": g.players,
            "seats": self.header.get("seats"),
            "turns": g.turns,
            "finished": g.is_over,
            "winner": g.winner,
            "reason": next((e.reason for e in reversed(g.events) if hasattr(e, "reason")), None),
            "walls_placed": len(g.walls),
            "walls_left": list(g.walls_left),
            "positions": [e["square"] for e in g.view(0)["pawns"]],
        }


def start_game(head: dict[str, Any]) -> QuoridorGame:
    if not is_quoridor_header(head):
        raise RecordError(f"the first line must be a {FORMAT} header", 0)
    if head.get("version") != VERSION:
        raise RecordError(f"unsupported record version {head.get('version')!r}", 0)
    try:
        rules: QuoridorRules = from_options(head["rules"])
    except (KeyError, TypeError, GunziError) as exc:
        raise RecordError(f"bad header: {exc}", 0) from None
    return QuoridorGame(rules)


# 步步为营 records for the one checker.
BOARD = RecordFormat(FORMAT, start_game, action_of)


def is_quoridor_header(first: dict[str, Any]) -> bool:
    return BOARD.is_header(first)


def replay(records: Iterable[dict[str, Any]]) -> Replay:
    """Re-validate every decision and check every event; raise :class:`RecordError`."""
    checking = check(records, BOARD)
    for _ in checking.events:
        pass
    return Replay(checking.header, checking.game)


__all__ = ["BOARD", "FORMAT", "VERSION", "Replay", "action_of", "dumps", "header",
           "is_quoridor_header", "lines", "replay", "start_game"]
