"""A card game in the terminal without the terminal: match, bots, hints, card counter,
save and resume, on the one session layer of every game (:mod:`gunzi.tui.game_session`:
bot decisions, worker-thread safety, checked human actions, saving).

The human is seat 0; bots play seats 1-3. The session deals every hand itself
(the match runs with ``auto_deal`` off), with a hand seed derived from the
match seed, so a saved match can be continued exactly (docs/tui.md):

* the record file is an ordinary engine record (:mod:`gunzi.engine.records`):
  the header, then the full events of the finished hands; ``gunzi replay``
  checks it;
* the header carries a side field ``"tui"`` with the terminal's own data:
  ``{"format": "gunzi-tui", "version": 1, "bots": [...], "unfinished": null |
  {"hand": n, "actions": [action dicts]}, "prefs": {...}}`` where ``actions`` are
  the decisions of the hand in progress (its deal first), in the engine's action
  form (:meth:`Action.to_dict`), and ``prefs`` the screen's settings (language,
  card counter). Resuming replays the record with :func:`records.replay` and then
  applies those actions, validated.

Bots draw their randomness from a generator seeded by the match seed and the
position in the event log, so a resumed match plays on exactly as it would
have without the interruption.
"""

from __future__ import annotations

import hashlib
import random
import secrets
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gunzi.bots.base import Bot, RandomBot, observe
from gunzi.bots.registry import make_with, parse_spec
from gunzi.engine import actions as A
from gunzi.engine import cards as C
from gunzi.engine import records
from gunzi.engine.actions import CHANCE, Action, Kind
from gunzi.engine.errors import GunziError, RecordError
from gunzi.engine.events import Event
from gunzi.engine.legal import LegalActions, Selection
from gunzi.engine.match import Match, Phase
from gunzi.engine.rules import Ruleset, preset
from gunzi.engine.stacking import stacked_deck
from gunzi.engine.view import stream, view
from gunzi.tui.game_session import HUMAN, GameSession, read_record, seeded

DEFAULT_BOTS = ("rule", "rule", "rule")
TUI_FORMAT = "gunzi-tui"
TUI_VERSION = 1


def hand_seed(match_seed: int, hand: int) -> int:
    """The seed of the ``hand``-th deal of a match (a 256-bit integer)."""
    digest = hashlib.sha256(f"gunzi-tui:{match_seed}:{hand}".encode()).digest()
    return int.from_bytes(digest, "big")


def load_bot(name: str) -> tuple[Bot, str, str | None]:
    """(bot, name used, note) for a bot spec (``rule``, ``learned:weights=g.npz``,
    ``search:rollouts=50``: :func:`gunzi.bots.registry.parse_spec`) — "rule" falls back to
    "random" when it cannot be loaded."""
    bot, params = parse_spec(name)  # a malformed spec is a GunziError
    try:  # a bad parameter or one the bot refuses is a GunziError naming the spec
        return make_with(bot, params, name), name, None
    except GunziError as exc:
        if name == "rule":
            return RandomBot(), "random", str(exc)
        raise


def parse_bots(text: str | Sequence[str] | None) -> list[str]:
    """``"rule"`` → three rule bots; ``"rule,random,rule"`` → one per seat 1..3; each a bot
    spec with its parameters if any (``learned:weights=g.npz,rule,learned``)."""
    if text is None:
        return list(DEFAULT_BOTS)
    names = [n.strip() for n in text.split(",")] if isinstance(text, str) else list(text)
    names = [n for n in names if n]
    if len(names) == 1:
        names *= 3
    if len(names) != 3:
        raise GunziError(f"--bots needs one name or three (seats 1, 2, 3), not {len(names)}")
    return names


def contains(big: Sequence[int], small: Sequence[int]) -> bool:
    """Whether the multiset ``small`` is inside ``big``."""
    have = Counter(big)
    need = Counter(small)
    return all(have[c] >= k for c, k in need.items())


@dataclass
class Turn:
    """The human's pending decision: what kind, the legal actions, and a card builder."""

    kind: Kind
    legal: LegalActions
    options: list[Action] | None  # listed legal actions (enumerable kinds)
    selection: Selection | None  # bury / return builder

    @property
    def count(self) -> int:
        return self.selection.count if self.selection is not None else 0

    def choices(self) -> list[Action]:
        """The non-pass options ``d`` cycles through (declare, bury jokers, tribute)."""
        if self.options is None or self.kind is Kind.PLAY:
            return []
        return [a for a in self.options if a.kind is not Kind.PASS]

    def addable(self, chosen: Sequence[int]) -> set[int] | None:
        """Cards that may still be added with a legal completion (None: not known cheaply)."""
        if self.selection is not None:
            return set(self.selection.options(chosen))
        if self.options is None:
            return None
        out: set[int] = set()
        for action in self.options:
            if action.cards and contains(action.cards, chosen):
                rest = Counter(action.cards)
                rest.subtract(Counter(chosen))
                out.update(c for c, k in rest.items() if k > 0)
        return out


class Session(GameSession[Match]):
    """A match between the human (seat 0) and three bots, dealt by the session."""

    tui_format = TUI_FORMAT
    tui_version = TUI_VERSION

    def __init__(
        self,
        rules: Ruleset | None = None,
        *,
        bots: Sequence[str] = DEFAULT_BOTS,
        seed: int | None = None,
        record_path: str | Path | None = None,
        match: Match | None = None,
        first_deck: Sequence[int] | None = None,
        first_seat: int | None = None,
        start: dict[str, Any] | None = None,
    ) -> None:
        self.rules = match.rules if match is not None else (rules or preset("gunzi"))
        seed = seed if seed is not None else secrets.randbits(63)
        self.notes: list[str] = []
        self.bots: list[Bot | None] = [None]
        # Bots whose net was trained on another game (name → that preset): they play
        # legally here but were never fitted to these rules, and the screen says so.
        self.untrained: dict[str, str] = {}
        names: list[str] = []
        for name in bots:
            bot, used, note = load_bot(name)
            self.bots.append(bot)
            names.append(used)
            if note is not None and f"fallback:{name}" not in self.notes:
                self.notes.append(f"fallback:{name}")
            covers = getattr(bot, "covers", None)
            if covers is not None and not covers(self.rules):
                self.untrained[used] = str(getattr(bot, "trained_on", "?"))
        super().__init__(match or Match(self.rules, seeded(seed, "match"), auto_deal=False),
                         seed=seed, record_path=record_path, bot_names=names)
        hint, _, _ = load_bot("rule")
        self.hint_bot = hint
        self.hand_actions: list[Action] = []  # decisions of the hand in progress, deal first
        self.summary: dict[str, Any] | None = None  # result of a hand not yet acknowledged
        self.autopass_hand: int | None = None  # hand in which declaring asks are passed
        self.jokerless_passes = 0  # joker-burying asks passed for a human holding no joker
        # Draws that ended without asking the human to declare, each with why (see unasked()).
        self.unasked_draws: list[dict[str, Any]] = []
        self._asked_hand: int | None = None  # the last hand whose draw asked the human
        self.hint_errors: list[str] = []
        self._first_deck = list(first_deck) if first_deck is not None else None
        self._first_seat = first_seat
        # The match's starting state, for the record header (a match may start mid-round).
        m = self.match
        self.start: dict[str, Any] = dict(start) if start is not None else {
            "levels": list(m.levels) if m.hand_no == 0 else [self.rules.first_level] * 2,
            "dealer": m.dealer if m.hand_no == 0 else None,
            "blood": m.blood_next if m.hand_no == 0 else 0,
        }

    @property
    def match(self) -> Match:
        return self.game

    # ------------------------------------------------------- for the session layer
    def progress(self) -> int:
        return len(self.match.events)

    def choose(self, seat: int, rng: random.Random) -> Action:
        bot = self.bots[seat]
        assert bot is not None
        return bot.choose(observe(self.match, seat), rng)

    def random_action(self, seat: int, rng: random.Random) -> Action:
        return self.match.legal_actions(seat).sample(rng)

    # ----------------------------------------------------------------- state
    def turn(self) -> Turn | None:
        """The human's decision now, or None (bots to act, summary pending, match over)."""
        m = self.match
        if self.summary is not None or m.to_act != HUMAN:
            return None
        legal = m.legal_actions(HUMAN)
        if legal.kind is None:
            return None
        options = list(legal) if legal.enumerable else None
        sel = legal.selection() if legal.kind in (Kind.BURY, Kind.RETURN) else None
        return Turn(legal.kind, legal, options, sel)

    def view(self) -> dict[str, Any]:
        return view(self.match, HUMAN)

    def stream(self, since: int = 0) -> list[dict[str, Any]]:
        return stream(self.match, HUMAN, since)

    def hand_cards(self) -> list[int]:
        """The human's hand, sorted for display (trumps first, strongest first)."""
        return [C.parse(n) for n in self.view()["hand"]]

    def counter(self) -> list[int]:
        """记牌器: copies of each card type not in the human's hand, not played and not in a
        kitty the human knows — from seat 0's view only."""
        v = self.view()
        out = [self.rules.decks] * C.NUM_TYPES
        seen: list[str] = list(v["hand"])
        for trick in v["tricks"]:
            for play in trick["plays"]:
                seen.extend(play)
        for play in v["trick"]["plays"]:
            seen.extend(play["cards"])
        if v["kitty"]["cards"]:
            seen.extend(v["kitty"]["cards"])
        for name in seen:
            out[C.parse(name)] -= 1
        return out

    def needs_step(self) -> bool:
        """Whether the session should make an automatic step (deal, bot, auto-pass)."""
        m = self.match
        if m.is_over or self.summary is not None:
            return False
        if m.to_act != HUMAN:
            return m.to_act is not None
        return self._autopass()

    def _autopass(self) -> bool:
        """The human's pass is automatic: declaring asks after ``P``, and the joker-burying
        ask to a human holding no joker (the engine asks every seat, so that asking tells
        nothing; the human has nothing to choose)."""
        m = self.match
        if m.phase is Phase.DRAW:
            return self.autopass_hand == m.hand_no
        hand = m.hands[HUMAN]
        return (m.phase is Phase.BURY_JOKERS and m.pickup_jokers is None
                and not hand[C.BJ] and not hand[C.LJ])

    def bot_to_play(self) -> bool:
        """A bot is about to play a card (the moves worth showing with a delay)."""
        m = self.match
        return (self.needs_step() and m.phase is Phase.PLAY and m.to_act is not None
                and m.to_act > HUMAN)

    # ---------------------------------------------------------------- moves
    def apply(self, action: Action) -> Event:
        m = self.match
        done = len(m.results)
        before = m.phase
        if before is Phase.DRAW and action.seat == HUMAN:
            self._asked_hand = m.hand_no
        ev = m.apply(action)
        self.hand_actions.append(action)
        dealing = (Phase.DEAL, Phase.DRAW)
        if before in dealing and m.phase not in dealing and self._asked_hand != m.hand_no:
            self.unasked_draws.append(self.unasked())
        if len(m.results) > done:
            # As seat 0 may know it: a duplicate board's first play without its kitty.
            last = self.view()["last_result"]
            assert last is not None
            self.summary = last
            self.hand_actions = []
            self.autopass_hand = None
            for bot in [*self.bots, self.hint_bot]:
                if bot is not None:
                    bot.new_hand()
            self.autosave()
        return ev

    def unasked(self) -> dict[str, Any]:
        """Why the draw just over never asked the human (A4/B): the reason and its values.
        Only what seat 0 may know: its own hand and the public declaration."""
        m = self.match
        decl = m.decl
        if m.first and m.variant.grabs_big_joker:
            return ({"why": "first"} if decl is None or decl[0] == HUMAN
                     else {"why": "grabbed", "seat": decl[0]})
        out: dict[str, Any] = {"r": C.RANKS[m.level], "jokers": self.rules.joker_declarations}
        held = any(m.hands[HUMAN][s * 13 + m.level] for s in range(4))
        if decl is not None and decl[0] != HUMAN and held:
            return {**out, "why": "overturn", "seat": decl[0], "cards": list(decl[1])}
        return {**out, "why": "level"}

    def deal_action(self) -> Action:
        m = self.match
        n = m.hand_no + 1
        if n == 1 and self._first_deck is not None:
            return A.deal(hand_seed(self.seed, n), self._first_deck, self._first_seat)
        return A.deal(m.deal_seed(hand_seed(self.seed, n)))  # a duplicate repeats its board

    def step(self) -> Event | None:
        """One automatic step: deal the next hand, a bot's decision, or an automatic pass."""
        if not self.needs_step():
            return None
        m = self.match
        seat = m.to_act
        if seat == CHANCE:
            return self.apply(self.deal_action())
        assert seat is not None
        if seat == HUMAN:
            if m.phase is Phase.BURY_JOKERS:
                self.jokerless_passes += 1
            return self.apply(A.pass_(HUMAN))
        return self.apply(self.bot_action())

    def hint(self) -> Action | None:
        """The hint bot's choice for the human's decision (a random legal one if it fails)."""
        m = self.match
        if self.turn() is None:
            return None
        rng = seeded(self.seed, len(m.events), "hint")
        try:
            action = self.hint_bot.choose(observe(m, HUMAN), rng)
            m.verify(action)
        except Exception as exc:  # the hint must never fail; note why it fell back
            self.hint_errors.append(f"{type(exc).__name__}: {exc}")
            action = m.legal_actions(HUMAN).sample(rng)
        return action

    def acknowledge(self) -> None:
        """The human has read the end-of-hand summary."""
        self.summary = None

    def set_autopass(self) -> None:
        self.autopass_hand = self.match.hand_no

    # ---------------------------------------------------------- save / load
    def tui_extra(self) -> dict[str, Any]:
        m = self.match
        unfinished = None
        if m.phase not in (Phase.DEAL, Phase.OVER) and self.hand_actions:
            unfinished = {"hand": m.hand_no, "actions": [a.to_dict() for a in self.hand_actions]}
        return {"unfinished": unfinished}

    def record_text(self) -> str:
        levels = self.start.get("levels")
        head = records.header(
            self.match,
            seats=["human", *self.bot_names],
            seed=self.seed,
            levels=(levels[0], levels[1]) if levels else None,
            dealer=self.start.get("dealer"),
            blood=int(self.start.get("blood") or 0),
            extra={"tui": self.tui_field()},
        )
        return records.dumps(head, records.finished_events(self.match))

    @classmethod
    def resume(
        cls,
        path: str | Path,
        *,
        bots: Sequence[str] | None = None,
        record_path: str | Path | None = None,
    ) -> Session:
        """Rebuild a saved match: replay the finished hands, then the unfinished hand's actions."""
        source = Path(path)
        lines = read_record(source)
        head = lines[0]
        rep = records.replay(lines)
        tui = head.get("tui") or {}
        names = list(bots) if bots is not None else tui.get("bots") or list(DEFAULT_BOTS)
        seed = head.get("match_seed")
        session = cls(
            rep.match.rules,
            bots=names,
            seed=seed if isinstance(seed, int) else None,
            record_path=record_path if record_path is not None else source,
            match=rep.match,
            start=head.get("start") or None,
        )
        unfinished = tui.get("unfinished") or {}
        for number, data in enumerate(unfinished.get("actions") or [], start=1):
            try:
                session.apply(A.from_dict(data))
            except GunziError as exc:
                raise RecordError(f"unfinished hand, action {number}: {exc}") from None
        # A hand finished while replaying the side field is summarised like any other.
        session.summary = None
        prefs = tui.get("prefs")
        session.prefs = dict(prefs) if isinstance(prefs, dict) else {}
        session.resumed_from = source
        return session


def stacked_first_deck(
    rules: Ruleset, first_seat: int, hands: Sequence[str | None], kitty: str | None = None,
    seed: int = 1,
) -> list[int]:
    """A first deal where seat s draws ``hands[s]`` first (tests, demos)."""
    return stacked_deck(
        rules, first_seat, [C.parse_many(h) if h else None for h in hands],
        C.parse_many(kitty) if kitty else None, seeded(seed, "stack"),
    )
