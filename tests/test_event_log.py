"""The event log stores finished hands packed (gunzi.engine.event_log): reading it back
must give the very events that were appended (clone: tests/test_engine_internals.py)."""

from __future__ import annotations

import dataclasses
import random
from types import MappingProxyType
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from gunzi.engine import records
from gunzi.engine.event_log import FLAT, EventLog
from gunzi.engine.events import Event, freeze
from gunzi.engine.match import Match, Phase
from gunzi.engine.rules import preset
from gunzi.engine.view import SPECTATOR, seq_at, stream
from helpers import random_policy

json_like = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=3)
    | st.floats(allow_nan=False),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner,
                                                                 max_size=3),
    max_leaves=6)
payload = st.dictionaries(st.text(max_size=4), json_like, max_size=4)
# The engine's flat types too, so a flat-typed event with a nested map is tried.
kinds = st.sampled_from([*sorted(FLAT), "deal", "hand_end", "bury"])


@st.composite
def event_lists(draw: st.DrawFn) -> list[Event]:
    out: list[Event] = []
    hand = 1
    for v in range(1, draw(st.integers(0, 40)) + 1):
        hand += draw(st.sampled_from([0, 0, 0, 1]))
        secret = draw(st.none() | payload)
        out.append(Event(v, hand, draw(kinds), freeze(draw(payload)),
                         None if secret is None else freeze(secret),
                         draw(st.frozensets(st.integers(0, 3))), draw(st.booleans())))
    return out


def read_only_all_the_way(value: Any) -> bool:
    if isinstance(value, MappingProxyType):
        return all(read_only_all_the_way(v) for v in value.values())
    if isinstance(value, (list, dict)):
        return False
    if isinstance(value, tuple):
        return all(read_only_all_the_way(v) for v in value)
    return True


@settings(max_examples=150, deadline=None)
@given(event_lists(), st.data())
def test_the_log_reads_back_what_was_appended(events: list[Event], data: st.DataObject
                                              ) -> None:
    log = EventLog()
    for ev in events:  # numbered 1, 2, ... as the log numbers them
        assert log.add(ev.hand, ev.type, ev.public, ev.secret, ev.audience, ev.private) == ev
    hands = len({ev.hand for ev in events})
    assert len(log.packed) == max(hands - 1, 0)  # every hand but the last is packed
    assert len(log) == len(events) and bool(log) == bool(events)
    assert list(log) == events and log == events
    for i in range(-len(events), len(events)):
        assert log[i] == events[i]
        assert read_only_all_the_way(log[i].public)
        assert log[i].secret is None or read_only_all_the_way(log[i].secret)
    start = data.draw(st.integers(-50, 50))
    stop = data.draw(st.none() | st.integers(-50, 50))
    step = data.draw(st.sampled_from([None, 1, 2, -1]))
    assert log[start:stop:step] == events[start:stop:step]
    # A copy shares nothing that changes: appending to one leaves the other as it was.
    twin = log.copy()
    extra = twin.add((events[-1].hand + 1) if events else 1, "play", MappingProxyType({}))
    assert list(log) == events and list(twin) == [*events, extra]


def test_out_of_range_reads_fail_like_a_list() -> None:
    log = EventLog()
    log.add(1, "deal", MappingProxyType({}))
    log.add(2, "deal", MappingProxyType({}))
    for bad in (2, -3):
        try:
            log[bad]
        except IndexError:
            continue
        raise AssertionError(f"log[{bad}] did not raise IndexError")


def _played(name: str, seed: int, hands: int) -> Match:
    """A match of ``name`` (with the most rounds, so it lasts) after ``hands`` hands."""
    m = Match(dataclasses.replace(preset(name), rounds=10), random.Random(seed))
    policy = random_policy(random.Random(seed + 1))
    while not m.is_over and len(m.results) < hands:
        m.apply(policy(m, m.to_act if m.to_act is not None else 0))
    if not m.is_over:  # finish the hand: a record holds finished hands only
        while m.phase.value != "deal" and not m.is_over:
            m.apply(policy(m, m.to_act if m.to_act is not None else 0))
    return m


@settings(max_examples=4, deadline=None)
@given(st.integers(0, 2**32), st.sampled_from(["gunzi", "classic-2"]))
def test_a_packed_match_reads_back_like_its_fresh_replay(seed: int, name: str) -> None:
    """The events of a live match after several hands (all but the last packed) are those
    of a match replayed afresh from its record, and so are every seat's streams."""
    m = _played(name, seed, 4)
    assert len(m.events.packed) >= 3
    lines = [records.header(m), *records.finished_events(m)]
    fresh = records.replay(lines).match
    assert list(m.events) == list(fresh.events)
    assert [m.events[i] for i in range(len(m.events))] == list(fresh.events)
    for seat in (0, 1, 2, 3, SPECTATOR):
        assert stream(m, seat) == stream(fresh, seat)
        assert stream(m, seat, since=40) == stream(fresh, seat, since=40)
        assert seq_at(m, seat, 500) == seq_at(fresh, seat, 500)


def test_a_hand_marshal_cannot_write_is_kept_as_it_was() -> None:
    log = EventLog()
    odd = log.add(1, "declare", MappingProxyType({"phase": Phase.DRAW}))  # a str subclass
    log.add(2, "deal", MappingProxyType({}))
    assert log[0] is odd and next(iter(log)) is odd
