"""Bots see only their seat: nothing reachable from a Decision holds a hidden card.

A walk over every object reachable from a real Decision (attributes, slots, containers,
closures and their cells, defaults, bound methods' ``__self__``; not module globals or
classes, which hold no state of a match) at every kind of decision, in 打滚子 and in
classic with 1-3 decks, fails on: the live match or any of its mutable parts, a random
generator, an event (events carry secrets), another seat's hand (as counts or names),
the kitty while the seat has not seen it, the undealt deck, the deal's seed, tribute
cards the seat neither gave nor got, and any engine state object at all: a Match or
MatchState (even one redacted to the seat), or the legal actions or card-by-card builder
that hold one.
A peeking bot that searches the same graph finds nothing in a real Decision, and finds
the other hands in a Decision built the old way (around the live match's legal actions),
which shows the search would notice.
"""

from __future__ import annotations

import contextlib
import gc
import random
import sys
from collections import Counter
from collections.abc import Iterator
from types import BuiltinFunctionType, CellType, FunctionType, MethodType, ModuleType
from typing import Any

import pytest

from gunzi.bots.base import Bot, Decision, observe
from gunzi.bots.registry import make_bot
from gunzi.engine import cards as C
from gunzi.engine.actions import Action, Kind
from gunzi.engine.errors import GunziError
from gunzi.engine.events import Event
from gunzi.engine.legal import LegalActions, Selection
from gunzi.engine.match import Match
from gunzi.engine.rules import preset
from gunzi.engine.state import MatchState
from gunzi.engine.view import knows_kitty, seat_position, view


def _reachable(root: object) -> Iterator[object]:
    """Every object reachable from ``root`` that a bot could get at with Python alone."""
    module_dicts = {id(vars(m)) for m in list(sys.modules.values()) if isinstance(m, ModuleType)}
    seen: set[int] = set()
    todo = [root]
    while todo:
        obj = todo.pop()
        if id(obj) in seen or isinstance(obj, (ModuleType, type, BuiltinFunctionType)) \
                or id(obj) in module_dicts:
            continue
        seen.add(id(obj))
        yield obj
        if isinstance(obj, FunctionType):
            # Its globals are a module's (shared by every caller, no match in them).
            todo.extend(obj.__closure__ or ())
            todo.extend(obj.__defaults__ or ())
            todo.extend((obj.__kwdefaults__ or {}).values())
        elif isinstance(obj, MethodType):
            todo.extend((obj.__self__, obj.__func__))
        elif isinstance(obj, CellType):
            with contextlib.suppress(ValueError):  # an empty cell
                todo.append(obj.cell_contents)
        else:
            for name in getattr(type(obj), "__slots__", ()):
                if hasattr(obj, name):
                    todo.append(getattr(obj, name))
            todo.extend(gc.get_referents(obj))


def _sequences(obj: object) -> list[Any] | None:
    if isinstance(obj, (list, tuple)) and obj:
        return list(obj)
    return None


def _leaks(decision: Decision, match: Match) -> list[str]:
    """What in ``decision`` the seat may not know (empty if nothing)."""
    seat = decision.seat
    live = {id(match), id(match.hands), id(match.kitty), id(match.deck), id(match.events),
            *(id(h) for h in match.hands)}
    # By content only hands of 4+ cards: a card or two may equal a public play by chance.
    hidden_counts = [list(h) for s, h in enumerate(match.hands) if s != seat and sum(h) >= 4]
    hidden_names = [sorted(C.names(C.expand(h))) for h in hidden_counts]
    kitty = Counter(match.kitty) if match.kitty and not knows_kitty(match, seat) else None
    kitty_names = Counter(C.names(match.kitty)) if kitty else None
    deck = list(match.deck)
    found: list[str] = []
    for obj in _reachable(decision):
        if id(obj) in live:
            found.append(f"a part of the live match: {type(obj).__name__}")
        elif isinstance(obj, random.Random):
            found.append("a random generator")
        elif isinstance(obj, Event):
            found.append(f"an event: {obj.type}")
        elif isinstance(obj, (LegalActions, Selection)):
            found.append(f"engine legal actions holding a match: {type(obj).__name__}")
        if isinstance(obj, MatchState):
            found.append(f"an engine state object: {type(obj).__name__}")
            others = [s for s in range(4) if s != seat and any(obj.hands[s])]
            if others or obj.deck or obj.events or obj.seed is not None:
                found.append(f"a match holding hidden state (hands of {others})")
            if any(obj.can[s] for s in range(4) if s != seat):
                found.append("who else may declare")
            if obj.tribute_cards and seat not in (match.payer, match.payee):
                found.append("tribute cards the seat neither gave nor got")
        elif type(obj) is int and match.seed is not None and obj == match.seed:
            found.append("the deal's seed")
        seq = _sequences(obj)
        if seq is None:
            continue
        if seq in hidden_counts:
            found.append(f"another seat's hand as counts: {seq}")
        if all(isinstance(x, str) for x in seq):
            if sorted(seq) in hidden_names:
                found.append(f"another seat's hand as names: {seq}")
            if kitty_names and Counter(seq) == kitty_names:
                found.append(f"the unseen kitty as names: {seq}")
        elif all(type(x) is int for x in seq):
            if kitty and Counter(seq) == kitty:
                found.append(f"the unseen kitty: {seq}")
            if deck and seq == deck:
                found.append("the deck")
    return found


def _play_through(rules_name: str, seed: int, hands: int, **options: Any
                  ) -> Iterator[tuple[Match, Decision]]:
    """Every decision of ``hands`` hands between rule bots, with the live match."""
    rng = random.Random(seed)
    m = Match(preset(rules_name, **options), random.Random(seed))
    bots = [make_bot("rule") for _ in range(4)]
    while not m.is_over and len(m.results) < hands:
        seat = m.to_act
        assert seat is not None and seat >= 0
        d = observe(m, seat)
        yield m, d
        m.apply(bots[seat].choose(d, rng))


KINDS_GUNZI = {Kind.DECLARE, Kind.TRIBUTE, Kind.RETURN, Kind.BURY, Kind.BURY_JOKERS,
               Kind.PLAY}


def _check_game(rules_name: str, seeds: range, hands: int, every: int, **options: Any
                ) -> set[Kind]:
    """Walk a Decision at every non-play decision and every ``every``-th play."""
    kinds: set[Kind] = set()
    n = 0
    for seed in seeds:
        for m, d in _play_through(rules_name, seed, hands, **options):
            n += 1
            if d.kind is Kind.PLAY and n % every:
                continue
            kinds.add(d.kind)
            assert _leaks(d, m) == [], (rules_name, seed, m.hand_no, d.kind)
    return kinds


def test_gunzi_decisions_reach_no_hidden_card() -> None:
    """打滚子 over hands with tribute and joker burying: every kind of decision."""
    kinds = _check_game("gunzi", range(3), hands=3, every=7)
    assert kinds == KINDS_GUNZI


@pytest.mark.parametrize("rules_name", ["classic-1", "classic-2", "classic-3"])
def test_classic_decisions_reach_no_hidden_card(rules_name: str) -> None:
    kinds = _check_game(rules_name, range(2), hands=1, every=5)
    assert kinds == {Kind.DECLARE, Kind.BURY, Kind.PLAY}


def test_the_walk_finds_the_live_match_in_an_old_style_decision() -> None:
    """The checks can fail: a Decision around the live match's own legal actions is caught."""
    m, d = next((m, d) for m, d in _play_through("gunzi", 1, 1) if d.kind is Kind.PLAY)
    old = Decision(d.seat, d.kind, d.rules, view(m, d.seat), d.hand, d.actions, d.count,
                   d.check, m.legal_actions(d.seat).sample)
    found = _leaks(old, m)
    assert any("live match" in f for f in found)
    assert any("another seat's hand" in f for f in found)


def test_the_walk_finds_a_redacted_match_copy() -> None:
    """A Decision answering from a redacted copy of the match (how observe was built
    before: a seat_position Match behind check and sample) is engine state, and caught."""
    m, d = next((m, d) for m, d in _play_through("gunzi", 1, 1) if d.kind is Kind.PLAY)
    own = seat_position(m, d.seat)

    def check(action: Action) -> str | None:
        try:
            own.verify(action)
        except GunziError as exc:
            return str(exc)
        return None

    old = Decision(d.seat, d.kind, d.rules, d.view, d.hand, d.actions, d.count, check,
                   own.legal_actions(d.seat).sample)
    found = _leaks(old, m)
    assert any("an engine state object: Match" in f for f in found)
    assert any("engine legal actions" in f for f in found)
    assert not any("another seat's hand" in f for f in found)  # redacted, yet caught


class PeekingBot(Bot):
    """Plays like the rule (or the learned) bot, but first hunts the Decision for cards it
    may not see: any 54-count vector with cards that is not its own hand, any object with ``hands``,
    any engine position it could play out or probe (anything with ``legal_actions``)."""

    name = "peeking"

    def __init__(self, inner: str = "rule") -> None:
        self.inner = make_bot(inner)
        self.found: list[str] = []

    def choose(self, decision: Decision, rng: random.Random) -> Action:
        own = list(decision.hand)
        for obj in _reachable(decision):
            if isinstance(obj, list) and len(obj) == C.NUM_TYPES and any(obj) \
                    and all(type(x) is int for x in obj) and obj != own:
                self.found.append(f"counts {obj}")
            if not isinstance(obj, type) and hasattr(obj, "legal_actions"):
                self.found.append(f"an engine position: {type(obj).__name__}")
            hands = getattr(obj, "hands", None)
            if isinstance(hands, list):
                for s, h in enumerate(hands):
                    if s != decision.seat and any(h):
                        self.found.append(f"hands[{s}] via {type(obj).__name__}")
            for name in ("kitty", "deck"):
                cards = getattr(obj, name, None)
                if isinstance(cards, list) and cards and not decision.view["kitty"]["cards"]:
                    self.found.append(f"{name} via {type(obj).__name__}")
        return self.inner.choose(decision, rng)


@pytest.mark.parametrize("inner", ["rule", "learned"])
@pytest.mark.parametrize("rules_name", ["gunzi", "classic-2"])
def test_a_peeking_bot_finds_nothing(rules_name: str, inner: str) -> None:
    """Also around the learned bot, whose bury, return and classic follows ask the
    Decision's ``options`` and ``listing``: those answer from the seat's data only."""
    rng = random.Random(5)
    m = Match(preset(rules_name), random.Random(5))
    peekers = [PeekingBot(inner) for _ in range(4)]
    decisions = 0
    while not m.is_over and len(m.results) < 2:
        seat = m.to_act
        assert seat is not None
        m.apply(peekers[seat].choose(observe(m, seat), rng))
        decisions += 1
    assert decisions > 100
    assert [p.found for p in peekers] == [[], [], [], []]


def test_the_peeking_bot_would_find_the_live_match() -> None:
    m, d = next((m, d) for m, d in _play_through("gunzi", 2, 1) if d.kind is Kind.PLAY)
    old = Decision(d.seat, d.kind, d.rules, d.view, d.hand, d.actions, d.count, d.check,
                   m.legal_actions(d.seat).sample)
    peeker = PeekingBot()
    peeker.choose(old, random.Random(0))
    assert any(f.startswith("hands[") for f in peeker.found)


def test_the_seat_position_answers_like_the_match() -> None:
    """check and sample answer from the seat's copy exactly as from the live match: same
    verdicts on every listed action and on actions of other seats, same samples."""
    checked = 0
    for m, d in _play_through("gunzi", 4, 2):
        legal = m.legal_actions(d.seat)
        if d.actions is not None:
            for a in d.actions[:20]:
                assert d.check(a) is None
        probes: list[Action] = [Action(Kind.PLAY, (d.seat + 1) % 4, (0,)),
                                Action(Kind.PASS, d.seat), Action(d.kind, d.seat, (52, 52))]
        for a in probes:
            try:
                m.verify(a)
                want = None
            except GunziError as exc:
                want = str(exc)
            assert d.check(a) == want
        for s in range(3):
            assert d.sample(random.Random(s)) == legal.sample(random.Random(s))
        checked += 1
    assert checked > 100


@pytest.mark.parametrize(("rules_name", "hands"), [("gunzi", 3), ("classic-2", 1)])
def test_options_and_listing_answer_like_the_match(rules_name: str, hands: int) -> None:
    """A Decision's card-by-card ``options`` (bury, return) and on-demand ``listing``
    (classic follows) give what the live match's legal actions give."""
    asked = Counter[str]()
    for m, d in _play_through(rules_name, 1, hands):
        legal = m.legal_actions(d.seat)
        if d.count:
            assert d.options is not None
            sel = legal.selection()
            chosen: list[int] = []
            while len(chosen) < d.count:
                assert d.options(chosen) == sel.options(chosen)
                chosen.append(sel.options(chosen)[-1])
            asked["options"] += 1
        else:
            assert d.options is None
        if d.listing is not None:
            assert d.actions is None and m.trick
            if asked["listing"] < 40:
                assert set(d.listing()) == set(legal)
            asked["listing"] += 1
    assert asked["options"] >= 1
    assert (asked["listing"] > 0) == rules_name.startswith("classic")
