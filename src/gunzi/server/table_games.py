"""The game a table plays, as the one table class (:class:`gunzi.server.tables.Table`) needs it.

A table is the same actor whatever it plays: seats, sockets, actions, duplicate ids, stale
checks, save-before-ack, recovery after a failed save, 托管, the turn clock and hints are
:mod:`gunzi.server.tables` and :mod:`gunzi.server.presence`. What differs by game is data
and a few translations, held by one :class:`TableGame` object per table, chosen by the
table's preset (:func:`table_game`): how a payload reads as an action, how actions and
events are stored and replayed, how a seat's events are numbered and viewed (the card
engine's :mod:`gunzi.engine.view`; 步步为营 has no hidden information, so everybody shares
one numbering and one view), the bots, and the ladder points. The game itself is driven
through the game protocol (:class:`gunzi.engine.game.GameState`: ``to_act``, ``is_over``,
``apply``).
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING, Any, ClassVar

import structlog

from gunzi import presets
from gunzi.bots.base import Bot, observe
from gunzi.engine import actions as A
from gunzi.engine import records as card_records
from gunzi.engine.errors import IllegalActionError, MalformedActionError
from gunzi.engine.game import GameState
from gunzi.engine.match import Match, Phase
from gunzi.engine.rules import Ruleset
from gunzi.engine.rules import from_options as card_rules
from gunzi.engine.view import numbered, seq_at, stream, view, visible_to_act
from gunzi.ladder.points import QUORIDOR, closed_points, game_of, quoridor_points
from gunzi.ladder.result import PARTNERS, solo
from gunzi.quoridor import bots as board_bots
from gunzi.quoridor import records as board_records
from gunzi.quoridor.game import Action, Move, QuoridorGame, Wall
from gunzi.quoridor.rules import QuoridorRules
from gunzi.quoridor.rules import from_options as board_rules
from gunzi.server import refusals
from gunzi.server.bot_batch import BotBatch, batching
from gunzi.server.protocol import ACTION_KEYS, PLAYER_ACTIONS

if TYPE_CHECKING:
    from gunzi.server.settings import Settings

log = structlog.get_logger("gunzi.tables")

# Card tables seat the bots that decide in milliseconds: rule, learned (numpy, batched
# across tables: server/bot_batch.py), random, and checked (the learned net's proposal
# checked by 25 rollouts: p95 about 10 ms of CPU, so it thinks in a bot thread).
# ``search`` is left out on purpose: 150 rollouts over up to six candidates, p95 35-50 ms
# and up to its 0.8 s clock on a loaded machine (docs/bots.md), so a few tables of it would
# hold the hall's CPU; it plays in the arena, reviews and the terminal.
ALLOWED_BOTS = ("rule", "checked", "learned", "random")
BOARD_BOTS = tuple(board_bots.BOTS)  # random, rule, search
BOARD_ACTIONS = frozenset({"move", "wall", "pass"})
BOARD_KEYS = frozenset({"type", "to", "wall", "seat"})


def make_card_bot(name: str) -> Bot:
    """A bot by name; the rule bot may not be installed yet, so fall back to random."""
    from gunzi.bots import registry

    try:
        return registry.make_bot(name)
    except Exception:
        log.warning("bot_fallback", wanted=name, using="random")
        return registry.make_bot("random")


@cache
def untrained_bots(rules: Ruleset) -> dict[str, str]:
    """The card tables' bots whose net was trained on another game than ``rules``: name →
    the preset it was trained on (the shipped ``learned`` weights: 打滚子). They play
    legally there but were never fitted to it; the pages say so (``bots_untrained``)."""
    out: dict[str, str] = {}
    for name in ALLOWED_BOTS:
        bot = make_card_bot(name)
        covers = getattr(bot, "covers", None)
        if covers is not None and not covers(rules):
            out[name] = str(getattr(bot, "trained_on", "?"))
    return out


def board_action(payload: dict[str, Any], seat: int) -> Action:
    """A client's ``{type: move, to: "e2"}`` / ``{type: wall, wall: "e3h"}`` / ``{type:
    pass}`` as an engine action (the same reader as records); raises GunziError."""
    action = board_records.action_of({**payload, "seat": seat})
    if action is None:
        raise MalformedActionError("'end' is the engine's event, not a decision")
    return action


class TableGame:
    """The game-specific part of a table. ``state`` is the game (the protocol), None before
    a card table's start. Recipients: seats 0..n-1 and spectators (None), in ``groups``
    groups that share frames (``group``); ``recipient(i)`` stands for group ``i``."""

    kind: ClassVar[str]  # "cards" | "quoridor"
    page: ClassVar[str]  # the table's page
    bots_allowed: ClassVar[tuple[str, ...]]
    action_types: ClassVar[frozenset[str]]
    action_keys: ClassVar[frozenset[str]]
    action_shape: ClassVar[str]
    bot_in_thread: ClassVar[bool] = False  # slow bots think off the event loop
    groups: ClassVar[int]
    ladder_game: str
    rules: Ruleset | QuoridorRules
    state: GameState[Any] | None

    # ---------------------------------------------------------------- lifecycle
    def begin(self, names: list[str], table_id: str) -> dict[str, Any]:
        """Start a new game; its record header."""
        raise NotImplementedError

    def restart(self, header: dict[str, Any]) -> None:
        """A fresh game from its header, for replaying the stored actions."""
        raise NotImplementedError

    def record(self, header: dict[str, Any], names: list[str], table_id: str) -> str:
        raise NotImplementedError

    def info(self) -> dict[str, Any]:
        """The game's fields of the table's public info."""
        raise NotImplementedError

    # ------------------------------------------------------------------ actions
    def action_from(self, payload: dict[str, Any], seat: int) -> Any:
        raise NotImplementedError

    def stored_action(self, data: dict[str, Any]) -> Any:
        """The action a stored action row holds."""
        raise NotImplementedError

    def action_data(self, action: Any, start: int) -> dict[str, Any]:
        """What an action row stores for ``action`` (applied; its events from ``start``)."""
        raise NotImplementedError

    def event_rows(self, start: int) -> list[dict[str, Any]]:
        """The event rows (v, hand, type, data, audience, private) from ``start`` on."""
        raise NotImplementedError

    def apply(self, action: Any) -> None:
        """Check and apply; the engine's typed error and nothing changed if illegal."""
        assert self.state is not None
        self.state.apply(action)

    def chance(self) -> Any:
        """The server's action at a chance node (a deal)."""
        raise NotImplementedError

    def illegal_detail(self, seat: int, exc: IllegalActionError) -> dict[str, Any]:
        return {}

    def events(self) -> Sequence[Any]:
        """The game's events so far (the engine's objects)."""
        raise NotImplementedError

    @property
    def n_events(self) -> int:
        return len(self.events())

    def quiet(self) -> bool:
        """Is the decision now one the table must answer without a public sign?"""
        return False

    # ----------------------------------------------------------- hands, ladder
    def hands_done(self) -> int:
        raise NotImplementedError

    def between_hands(self) -> bool:
        return False

    def points(self, table_ends: bool) -> tuple[int, ...] | None:
        """The ladder points of what the last hand closed (None: nothing closed)."""
        raise NotImplementedError

    def ladder_hand(self) -> int:
        return 1

    def teams(self) -> tuple[tuple[int, ...], ...]:
        return PARTNERS

    # --------------------------------------------------------------------- bots
    def make_bot(self, name: str) -> Any:
        raise NotImplementedError

    def auto_bot(self, settings: Settings) -> str:
        """The bot that plays a person's seat under 托管 (and at a timeout)."""
        return settings.bot

    def bot_delay(self, settings: Settings) -> float:
        return settings.bot_delay

    def suggest(self, bot: Any, seat: int, rng: Any) -> Any:
        """The bot's choice for ``seat``, or a random legal action if the bot fails."""
        raise NotImplementedError

    async def suggest_batched(self, bot: Any, seat: int, rng: Any, batch: BotBatch) -> Any:
        """:meth:`suggest` for a bot move, through ``batch`` when the bot batches."""
        return self.suggest(bot, seat, rng)

    def wire(self, action: Any) -> dict[str, Any]:
        """``action`` as a client sends it in an ``act`` frame (a hint's answer)."""
        raise NotImplementedError

    def new_hand(self, bot: Any) -> None:
        """Tell a bot a hand ended."""

    # ------------------------------------------------------------------- frames
    def group(self, seat: int | None) -> int:
        raise NotImplementedError

    def recipient(self, i: int) -> int | None:
        raise NotImplementedError

    def visible_to_act(self, seat: int | None) -> int | None:
        raise NotImplementedError

    def numbered(self, seat: int | None, start: int, seq: int) -> list[dict[str, Any]]:
        """``seat``'s events from ``start`` on, numbered on from ``seq``."""
        raise NotImplementedError

    def seq_at(self, seat: int | None, v_end: int | None = None) -> int:
        raise NotImplementedError

    def stream(self, seat: int | None, since: int) -> list[dict[str, Any]]:
        return self.numbered(seat, since, since)

    def snapshot_events(self, seat: int | None) -> list[dict[str, Any]]:
        raise NotImplementedError

    def view(self, seat: int | None) -> dict[str, Any]:
        raise NotImplementedError

    def welcome(self) -> dict[str, Any]:
        """The game's fields of a welcome frame."""
        return {}


class CardGame(TableGame):
    """打滚子 and classic: a :class:`Match`, per-seat redacted streams and views."""

    kind = "cards"
    page = "table.html"
    bots_allowed = ALLOWED_BOTS
    action_types = frozenset(PLAYER_ACTIONS)
    action_keys = ACTION_KEYS
    action_shape = ("an action is {type, cards?, suit?, take?} with type one of "
                    + ", ".join(sorted(PLAYER_ACTIONS)))
    groups = 5  # seats 0..3 and the spectators

    def __init__(self, rules: dict[str, Any]) -> None:
        self.rules: Ruleset = card_rules(dict(rules))
        self.ladder_game = game_of(self.rules)
        self.match: Match | None = None
        self.state = None

    def _m(self) -> Match:
        assert self.match is not None
        return self.match

    def _set(self, match: Match) -> None:
        self.match = match
        self.state = match

    def begin(self, names: list[str], table_id: str) -> dict[str, Any]:
        match = Match(self.rules, auto_deal=False)
        header = card_records.header(match, seats=names, extra={"table": table_id})
        self._set(match)
        return header

    def restart(self, header: dict[str, Any]) -> None:
        self._set(card_records.start_match(header))

    def record(self, header: dict[str, Any], names: list[str], table_id: str) -> str:
        """The finished hands (seeds revealed); the hand in play is left out."""
        return card_records.dumps(header, card_records.finished_events(self._m()))

    def info(self) -> dict[str, Any]:
        m = self.match
        return {"hand_no": m.hand_no if m else 0, "hands_played": len(m.results) if m else 0,
                "bots": list(ALLOWED_BOTS), "bots_untrained": untrained_bots(self.rules)}

    def action_from(self, payload: dict[str, Any], seat: int) -> A.Action:
        return A.from_dict({**payload, "seat": seat})

    def stored_action(self, data: dict[str, Any]) -> A.Action:
        return A.from_dict(data)

    def action_data(self, action: A.Action, start: int) -> dict[str, Any]:
        return action.to_dict()

    def event_rows(self, start: int) -> list[dict[str, Any]]:
        return [{"v": ev.v, "hand": ev.hand, "type": ev.type, "data": ev.to_dict(),
                 "audience": ",".join(map(str, sorted(ev.audience))), "private": ev.private}
                for ev in self._m().events[start:]]

    def apply(self, action: A.Action) -> None:
        m = self._m()
        m.verify(action)
        m.apply(action, validate=False)

    def chance(self) -> A.Action:
        return A.deal(self._m().deal_seed(secrets.randbits(256)))

    def illegal_detail(self, seat: int, exc: IllegalActionError) -> dict[str, Any]:
        return refusals.illegal(self._m(), seat, str(exc), exc.rule)

    def events(self) -> Sequence[Any]:
        return self._m().events

    def quiet(self) -> bool:
        # While drawing, who is being asked to declare is private.
        return self._m().phase is Phase.DRAW

    def hands_done(self) -> int:
        return len(self._m().results)

    def between_hands(self) -> bool:
        return self._m().phase is Phase.DEAL

    def points(self, table_ends: bool) -> tuple[int, ...] | None:
        return closed_points(self._m(), table_ends=table_ends)

    def ladder_hand(self) -> int:
        return int(self._m().results[-1]["hand"])

    def make_bot(self, name: str) -> Bot:
        return make_card_bot(name)

    def bot_delay(self, settings: Settings) -> float:
        # Answer a declaring ask at once: a pause would tell the table a seat was asked.
        return 0.0 if self.quiet() else settings.bot_delay

    def wire(self, action: A.Action) -> dict[str, Any]:
        out: dict[str, Any] = action.to_dict()
        return out

    def suggest(self, bot: Bot, seat: int, rng: Any) -> A.Action:
        m = self._m()
        try:
            action = bot.choose(observe(m, seat), rng)
            m.verify(action)
            return action
        except Exception:
            log.warning("bot_failed", seat=seat)
            return m.legal_actions(seat).sample(rng)

    async def suggest_batched(self, bot: Bot, seat: int, rng: Any, batch: BotBatch
                              ) -> A.Action:
        """The bot's action, off the event loop's critical path: a batching bot's decision
        joins the batch; a thinking bot (rollouts) thinks in one of the hall's bot threads
        on its own Decision. The table's lock is held: the match does not move meanwhile."""
        m = self._m()
        if not (bot.thinks or batching(bot)):
            return self.suggest(bot, seat, rng)
        try:
            decision = observe(m, seat)
            if batching(bot):
                action = await batch.choose(bot, decision, rng)
            else:
                action = await batch.think(bot.choose, decision, rng)
            m.verify(action)
            return action
        except Exception:
            log.warning("bot_failed", seat=seat)
            return m.legal_actions(seat).sample(rng)

    def new_hand(self, bot: Bot) -> None:
        bot.new_hand()

    def group(self, seat: int | None) -> int:
        return 4 if seat is None else seat

    def recipient(self, i: int) -> int | None:
        return None if i == 4 else i

    def visible_to_act(self, seat: int | None) -> int | None:
        return visible_to_act(self._m(), seat)

    def numbered(self, seat: int | None, start: int, seq: int) -> list[dict[str, Any]]:
        return list(numbered(self._m(), seat, start, seq))

    def seq_at(self, seat: int | None, v_end: int | None = None) -> int:
        return seq_at(self._m(), seat, v_end)

    def stream(self, seat: int | None, since: int) -> list[dict[str, Any]]:
        return stream(self._m(), seat, since=since)

    def snapshot_events(self, seat: int | None) -> list[dict[str, Any]]:
        """The seat's stream from the start of the match in play (its first deal)."""
        full = stream(self._m(), seat)
        first = 0
        for k in range(len(full) - 1, -1, -1):
            if full[k].get("type") == "deal" and full[k].get("deal_no", 1) == 1:
                first = k
                break
        return full[first:]

    def view(self, seat: int | None) -> dict[str, Any]:
        return view(self._m(), seat)


class BoardGame(TableGame):
    """步步为营: no hidden information, so one numbering (event ``k`` has ``seq`` k) and one
    view (``legal`` for the seat to act) for everybody."""

    kind = "quoridor"
    page = "board.html"
    bots_allowed = BOARD_BOTS
    action_types = BOARD_ACTIONS
    action_keys = BOARD_KEYS
    action_shape = "an action is {type: move, to: 'e2'}, {type: wall, wall: 'e3h'} or {type: pass}"
    bot_in_thread = True  # the search bot thinks for a while
    groups = 1
    ladder_game = QUORIDOR

    def __init__(self, rules: dict[str, Any]) -> None:
        self.rules: QuoridorRules = board_rules(dict(rules))
        self.game = QuoridorGame(self.rules)
        self.state = self.game

    def begin(self, names: list[str], table_id: str) -> dict[str, Any]:
        return board_records.header(self.game, names)

    def restart(self, header: dict[str, Any]) -> None:
        self.game = self.state = QuoridorGame(self.rules)

    def record(self, header: dict[str, Any], names: list[str], table_id: str) -> str:
        """The game so far, finished or not."""
        return board_records.dumps(self.game, names, {"table": table_id})

    def info(self) -> dict[str, Any]:
        return {"game": "quoridor", "turn": self.game.turns}

    def action_from(self, payload: dict[str, Any], seat: int) -> Action:
        return board_action(payload, seat)

    def stored_action(self, data: dict[str, Any]) -> Action:
        return board_action(data, int(data["seat"]))

    def action_data(self, action: Action, start: int) -> dict[str, Any]:
        data: dict[str, Any] = self.game.events[start].to_dict()  # the action's own event
        return data

    def event_rows(self, start: int) -> list[dict[str, Any]]:
        out = []
        for k, e in enumerate(self.game.events[start:], start=start + 1):
            data = e.to_dict()
            out.append({"v": k, "hand": 1, "type": data["type"], "data": data,
                        "audience": "all", "private": False})
        return out

    def events(self) -> Sequence[Any]:
        return self.game.events

    def hands_done(self) -> int:
        return int(self.game.is_over)  # one game, one result

    def points(self, table_ends: bool) -> tuple[int, ...] | None:
        if not self.game.is_over:
            return None  # a game stopped in the middle scores nothing
        return quoridor_points(self.rules.players, self.game.winner)

    def teams(self) -> tuple[tuple[int, ...], ...]:
        return solo(self.rules.players)

    def make_bot(self, name: str) -> board_bots.Bot:
        return board_bots.make_bot(name)

    def auto_bot(self, settings: Settings) -> str:
        return "rule"

    def bot_delay(self, settings: Settings) -> float:
        return min(settings.bot_delay, 0.4)

    def wire(self, action: Action) -> dict[str, Any]:
        if isinstance(action, Move):
            return {"type": "move", "to": action.text()}
        if isinstance(action, Wall):
            return {"type": "wall", "wall": action.text()}
        return {"type": "pass"}

    def suggest(self, bot: board_bots.Bot, seat: int, rng: Any) -> Action:
        game = self.game.clone()  # the bot may think in a thread while frames are read
        try:
            return bot.choose(game, seat, rng)
        except Exception:
            log.warning("bot_failed", seat=seat)
            action: Action = rng.choice(list(game.legal_actions(seat)))
            return action

    def group(self, seat: int | None) -> int:
        return 0

    def recipient(self, i: int) -> int | None:
        return None

    def visible_to_act(self, seat: int | None) -> int | None:
        return self.game.to_act

    def numbered(self, seat: int | None, start: int, seq: int) -> list[dict[str, Any]]:
        return [{**e.to_dict(), "seq": i}
                for i, e in enumerate(self.game.events[start:], start=start + 1)]

    def seq_at(self, seat: int | None, v_end: int | None = None) -> int:
        return len(self.game.events) if v_end is None else v_end

    def snapshot_events(self, seat: int | None) -> list[dict[str, Any]]:
        return [e.to_dict() for e in self.game.events]

    def view(self, seat: int | None) -> dict[str, Any]:
        to_act = self.game.to_act
        return self.game.view(to_act if to_act is not None else 0)

    def welcome(self) -> dict[str, Any]:
        return {"game": "quoridor"}

    def illegal_detail(self, seat: int, exc: IllegalActionError) -> dict[str, Any]:
        return refusals.board_illegal(str(exc), exc.rule)


def table_game(preset: str, rules: dict[str, Any]) -> TableGame:
    """The game a table of ``preset`` plays."""
    return BoardGame(rules) if presets.is_board(preset) else CardGame(rules)


__all__ = ["ALLOWED_BOTS", "BOARD_BOTS", "BoardGame", "CardGame", "TableGame",
           "board_action", "make_card_bot", "table_game", "untrained_bots"]

