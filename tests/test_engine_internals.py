"""Internals other tests rely on: fast enumerators, clone, events, stacked decks."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gunzi.engine import cards as C
from gunzi.engine.actions import Kind
from gunzi.engine.gunzi_tricks import choose
from gunzi.engine.match import STATE_FIELDS, Match
from gunzi.engine.rules import preset
from gunzi.engine.stacking import stacked_deck
from gunzi.engine.view import stream, view
from helpers import random_policy


@given(
    st.lists(
        st.tuples(st.integers(0, 53), st.integers(1, 3)), max_size=9, unique_by=lambda x: x[0]
    ),
    st.integers(0, 3),
)
def test_choose_matches_multiset_combinations(avail: list[tuple[int, int]], k: int) -> None:
    fast = sorted(tuple(sorted(x)) for x in choose(avail, k))
    slow = sorted(tuple(sorted(x)) for x in C.multiset_combinations(avail, k))
    assert fast == slow
    assert len(set(fast)) == len(fast)


def test_state_fields_list_every_attribute() -> None:
    m = Match(preset("gunzi"), random.Random(3))
    policy = random_policy(random.Random(4))
    for _ in range(400):
        m.apply(policy(m, m.to_act or 0))
    assert set(vars(m)) - {"rng", "hand_rng"} == set(STATE_FIELDS)


def _copied(value: Any) -> Any:
    """A snapshot of a field's value (its lists and dicts copied all the way down)."""
    if isinstance(value, list):
        return [_copied(v) for v in value]
    if isinstance(value, dict):
        return {k: _copied(v) for k, v in value.items()}
    return value


def _fields(m: Match) -> dict[str, Any]:
    """Every field of ``m``'s state (and its generators'), as a snapshot; not the cache of
    listed follows and the sampled action, which a clone starts without
    (MatchState.follows_memo, MatchState.sampled)."""
    out = {name: _copied(getattr(m, name)) for name in STATE_FIELDS
           if name not in ("events", "follows_memo", "sampled")}
    out["events"] = list(m.events)
    out["rng"] = m.rng.getstate()
    out["hand_rng"] = m.hand_rng.getstate()
    return out


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 900))
def test_clone_is_an_equal_and_independent_match(seed: int, steps: int) -> None:
    m = Match(preset("gunzi"), random.Random(seed))
    policy = random_policy(random.Random(seed + 1))
    for _ in range(steps):
        if m.is_over:
            break
        m.apply(policy(m, m.to_act if m.to_act is not None else 0))
    before = _fields(m)
    twin = m.clone()
    assert _fields(twin) == before
    # Playing the clone into the next hand (its log packs a hand) leaves the original
    # as it was, and the original goes on exactly as the clone did.
    p1, p2 = random_policy(random.Random(7)), random_policy(random.Random(7))
    for _ in range(400):
        if twin.is_over:
            break
        twin.apply(p2(twin, twin.to_act if twin.to_act is not None else 0))
    assert _fields(m) == before
    for _ in range(400):
        if m.is_over:
            break
        m.apply(p1(m, m.to_act if m.to_act is not None else 0))
    assert _fields(m) == _fields(twin)


def test_events_are_read_only() -> None:
    m = Match(preset("gunzi"), random.Random(1))
    ev = m.events[0]
    with pytest.raises(TypeError):
        ev.public["dealer"] = 3  # type: ignore[index]
    with pytest.raises(AttributeError):
        ev.type = "x"  # type: ignore[misc]


def test_nothing_handed_out_can_change_the_match_or_its_record() -> None:
    """Events are frozen all the way down; views, streams and to_dict are fresh copies."""
    m = Match(preset("gunzi"), random.Random(1))
    policy = random_policy(random.Random(2))
    last = None
    while not m.results:
        last = m.apply(policy(m, m.to_act or 0))
    record = [e.to_dict() for e in m.events]
    # The event apply returned: nested values are tuples and read-only maps.
    play = next(e for e in reversed(m.events) if e.type == "play")
    with pytest.raises(AttributeError):
        play.public["cards"].append("BJ")  # type: ignore[attr-defined]
    assert last is not None and last.type in ("trick", "play", "hand_end", "match_end", "draw")
    # Copies handed out may be changed freely: the match does not see it.
    v = view(m, None)
    v["last_result"]["hand_scores"][0] = 999
    v["last_result"]["score"] = -1
    for d in stream(m, 2)[-5:]:
        d.clear()
    m.events[-1].to_dict().clear()
    assert [e.to_dict() for e in m.events] == record
    assert m.results[-1]["score"] != -1 and 999 not in m.results[-1]["hand_scores"]


def test_stacked_deck_gives_each_seat_its_cards_in_draw_order() -> None:
    rules = preset("gunzi")
    want = [C.parse_many("BJ AS"), None, C.parse_many("3H 3H 3H"), None]
    deck = stacked_deck(rules, 1, want, C.parse_many("LJ LJ"), random.Random(0))
    assert sorted(deck) == sorted(C.deck(3))
    seat_cards = {s: [deck[i] for i in range(156) if (1 + i) % 4 == s] for s in range(4)}
    assert seat_cards[0][:2] == C.parse_many("BJ AS")
    assert seat_cards[2][:3] == C.parse_many("3H 3H 3H")
    assert deck[156:158] == C.parse_many("LJ LJ")


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**32), st.sampled_from(["gunzi", "classic-2"]))
def test_selection_options_equal_trying_each_card(seed: int, preset_name: str) -> None:
    """The counted ``options`` agree with its definition: every card whose addition is
    completable."""
    m = Match(preset(preset_name), random.Random(seed))
    policy = random_policy(random.Random(seed + 1))
    rng = random.Random(seed + 2)
    checked = 0
    while not m.is_over and checked < 3:
        seat = m.to_act
        assert seat is not None
        legal = m.legal_actions(seat)
        if legal.kind in (Kind.BURY, Kind.RETURN):
            sel = legal.selection()
            chosen: list[int] = []
            while len(chosen) <= sel.count:
                slow = [c for c in range(C.NUM_TYPES)
                        if sel.hand[c] > chosen.count(c) and sel.completable([*chosen, c])]
                assert sel.options(chosen) == slow
                if not slow:
                    break
                chosen.append(rng.choice(slow))
            checked += 1
        m.apply(policy(m, seat))
