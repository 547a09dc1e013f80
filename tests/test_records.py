"""Match records (JSON Lines): round trips through replay, tamper detection, documented fields.

Matches are simulated with seeded random players, written with ``records.header`` and
``records.finished_events``, read back with ``records.read_lines`` and replayed with
``records.replay``, which re-validates every decision and checks every engine event.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from gunzi.engine import cards as C
from gunzi.engine import records
from gunzi.engine.errors import RecordError
from gunzi.engine.match import Match, Phase
from gunzi.engine.rules import OPTIONS, Ruleset, from_options, preset

# (case id, preset, rule overrides, match seed, hands to play)
CASES: list[tuple[str, str, dict[str, Any], int, int]] = [
    ("gunzi", "gunzi", {}, 21, 3),
    ("gunzi-live-two", "gunzi", {"follow": "live", "tribute_rule": "two"}, 22, 2),
    ("classic-1", "classic-1", {}, 23, 100),  # a whole game, to passing A
    ("classic-2", "classic-2", {}, 24, 2),
    ("classic-3", "classic-3", {}, 25, 1),
    ("gunzi-dry-pot-joker-announce", "gunzi", {}, 30, 3),  # dry_pot and joker_announce events
]
CASE_IDS = [c[0] for c in CASES]


@cache
def _played(case_id: str) -> tuple[Match, str]:
    """The simulated match and its record text (cached: tests must not mutate them)."""
    _, name, overrides, seed, hands = next(c for c in CASES if c[0] == case_id)
    m = Match(preset(name, **overrides), random.Random(seed))
    players = random.Random(seed + 1)
    while not m.is_over and len(m.results) < hands:
        seat = m.to_act
        assert seat is not None
        m.apply(m.legal_actions(seat).sample(players))
    text = records.dumps(records.header(m, seed=seed), records.finished_events(m))
    return m, text


def record_lines(case_id: str) -> list[str]:
    return _played(case_id)[1].splitlines()


def replay_lines(lines: list[str]) -> records.Replay:
    return records.replay(records.read_lines(lines))


def events_of(lines: list[str]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in lines[1:]]


def dump(events: list[dict[str, Any]], head: str) -> list[str]:
    return [head, *(json.dumps(e, ensure_ascii=False) for e in events)]


def replay_error(lines: list[str]) -> RecordError:
    with pytest.raises(RecordError) as info:
        replay_lines(lines)
    return info.value


# --------------------------------------------------------------------------- round trips
@pytest.mark.parametrize("case_id", CASE_IDS)
def test_replay_reproduces_every_event_and_hand(case_id: str) -> None:
    m, text = _played(case_id)
    lines = text.splitlines()
    result = replay_lines(lines)
    original = records.finished_events(m)
    assert [e.to_dict() for e in result.match.events] == original
    assert events_of(lines) == original
    assert len(result.hands) == len(m.results) >= 1
    assert [records.summary(h) for h in result.hands] == [records.summary(r) for r in m.results]
    assert [{k: v for k, v in h.items() if k not in ("v", "type")} for h in result.hands] == (
        m.results)
    assert result.match.levels == m.levels or not m.is_over
    assert result.header == json.loads(lines[0])


def test_whole_classic_game_replays_to_the_end() -> None:
    m, text = _played("classic-1")
    assert m.is_over
    result = replay_lines(text.splitlines())
    assert result.match.is_over
    assert result.match.events[-1].type == "match_end"
    assert records.summary(result.hands[-1])["levels_after"].count("passed A") == 1


def test_summary_names_levels_and_the_tribute_kind() -> None:
    m, _ = _played("gunzi")
    for result in m.results:
        summary = records.summary(result)
        assert summary["tribute_kind"] == result["tribute"]["kind"]
        assert summary["tribute_kind"] in ("none", "normal", "reversed", "cancelled")
        assert summary["tribute_count"] == result["tribute"]["n"]
        assert summary["levels_before"] == [C.RANKS[x] for x in result["levels_before"]]
        assert "game_points" not in summary
    assert {records.summary(r)["tribute_kind"] for r in m.results} >= {"none", "normal"}


def test_summary_of_a_classic_game_end_has_game_points() -> None:
    m, _ = _played("classic-1")
    *middle, last = [records.summary(r) for r in m.results]
    assert last["round_end"] == "passed-A"
    assert last["game_points"] == m.results[-1]["game_points"]
    assert all("game_points" not in s and "tribute_kind" not in s for s in middle)


def test_write_and_read_a_record_file(tmp_path: Path) -> None:
    m, text = _played("gunzi")
    path = tmp_path / "match.jsonl"
    head = records.header(m, seed=21)
    records.write(path, head, records.finished_events(m))
    assert path.read_text(encoding="utf-8") == text
    with path.open(encoding="utf-8") as fh:
        result = records.replay(records.read_lines(fh))
    assert [records.summary(h) for h in result.hands] == [records.summary(r) for r in m.results]


def test_unfinished_hand_is_not_written() -> None:
    m, _ = _played("gunzi")
    assert m.phase is not Phase.DEAL and not m.is_over  # the next hand is being drawn
    hands = {e["hand"] for e in records.finished_events(m) if "hand" in e}
    running = m.hand_no
    assert running not in hands
    assert all(e.hand <= running for e in m.events)
    assert len(records.finished_events(m)) == sum(1 for e in m.events if e.hand < running)


def test_custom_rules_round_trip_through_the_header() -> None:
    m, text = _played("gunzi-live-two")
    head = json.loads(text.splitlines()[0])
    assert from_options(head["rules"]) == m.rules
    rebuilt: Ruleset = from_options(head["rules"])
    assert rebuilt.follow == "live" and rebuilt.tribute_rule == "two"


def test_mid_round_start_round_trips_when_the_header_names_it() -> None:
    # A match started mid-round (duplicate play): the header must carry levels, dealer and
    # blood; Match does not remember them, so header() needs them passed explicitly.
    m = Match(preset("gunzi"), random.Random(5), levels=(3, 5), dealer=1, blood=2)
    players = random.Random(6)
    while len(m.results) < 2:
        m.apply(m.legal_actions(m.to_act).sample(players))  # type: ignore[arg-type]
    head = records.header(m, seed=5, levels=(3, 5), dealer=1, blood=2)
    assert head["start"] == {"levels": [3, 5], "dealer": 1, "blood": 2}
    text = records.dumps(head, records.finished_events(m))
    result = replay_lines(text.splitlines())
    assert [records.summary(h) for h in result.hands] == [records.summary(r) for r in m.results]
    # Without the starting state the first deal no longer matches.
    plain = records.dumps(records.header(m, seed=5), records.finished_events(m))
    assert replay_error(plain.splitlines()).event_number == 1


# ------------------------------------------------------------------------ documented fields
@pytest.mark.parametrize("case_id", CASE_IDS)
def test_documented_fields(case_id: str) -> None:
    m, text = _played(case_id)
    lines = text.splitlines()
    head = json.loads(lines[0])
    assert head["type"] == "header"
    assert head["format"] == "gunzi-record"
    assert head["version"] == 2  # 2: records state the classic variant options
    assert set(head["rules"]) == set(OPTIONS) | {"name"}
    assert head["rules"] == {"name": m.rules.name, **m.rules.options()}
    assert head["seats"] == ["seat0", "seat1", "seat2", "seat3"]
    seed = next(c[3] for c in CASES if c[0] == case_id)
    assert head["match_seed"] == seed
    events = events_of(lines)
    assert [e["v"] for e in events] == list(range(1, len(events) + 1))
    deals = [e for e in events if e["type"] == "deal"]
    assert deals and deals[0]["v"] == 1
    n_cards = 54 * m.rules.decks
    for deal in deals:
        assert isinstance(deal["seed"], int) and 0 <= deal["seed"] < 2**256
        digest = hashlib.sha256(deal["seed"].to_bytes(32, "big")).hexdigest()
        assert deal["commitment"] == digest
        assert len(deal["deck"]) == n_cards
        assert sorted(C.parse_many(deal["deck"])) == sorted(C.deck(m.rules.decks))
        assert all(C.name(C.parse(t)) == t for t in deal["deck"])
    plays = [e for e in events if e["type"] == "play"]
    assert plays
    for p in plays:
        assert {"type": "play", "seat": p["seat"], "cards": p["cards"]}.items() <= p.items()
        assert p["seat"] in range(4) and p["cards"]
        assert all(isinstance(c, str) for c in p["cards"])
        C.parse_many(p["cards"])


DOCS = Path(__file__).resolve().parents[1] / "docs" / "records.md"
GOLDEN = Path(__file__).resolve().parent / "golden"


def documented_events() -> dict[str, set[str]]:
    """Event type -> the names in backticks in its row of the docs' event table."""
    table: dict[str, set[str]] = {}
    for line in DOCS.read_text(encoding="utf-8").splitlines():
        cells = line.split("|")
        if len(cells) != 5 or not cells[1].strip().startswith("`"):
            continue
        words = set(re.findall(r"`([a-z_]+)`", cells[2]))
        for kind in re.findall(r"`([a-z_]+)`", cells[1]):
            table[kind] = words
    return table


def test_docs_event_table_lists_every_event_and_field() -> None:
    table = documented_events()
    texts = [_played(case_id)[1] for case_id in CASE_IDS]
    texts += [p.read_text(encoding="utf-8") for p in sorted(GOLDEN.glob("*.jsonl"))]
    seen: set[str] = set()
    for text in texts:
        for event in events_of(text.splitlines()):
            kind = event["type"]
            seen.add(kind)
            assert kind in table, f"event type {kind!r} is not in docs/records.md"
            if kind != "hand_end":  # its fields are described below the table
                extra = set(event) - {"v", "hand", "type"} - table[kind]
                assert not extra, f"{kind}: fields {sorted(extra)} are not documented"
    assert {"joker_announce", "dry_pot", "bury_jokers", "tribute", "return"} <= seen


def test_gunzi_deal_has_162_cards() -> None:
    deal = events_of(record_lines("gunzi"))[0]
    assert deal["type"] == "deal" and len(deal["deck"]) == 162


# --------------------------------------------------------------------------------- tampering
def _hand_plays(events: list[dict[str, Any]], index: int) -> list[dict[str, Any]]:
    """The play events of the hand containing ``events[index]``, from it to the hand's end."""
    out = []
    for e in events[index:]:
        if e["type"] == "hand_end":
            break
        if e["type"] == "play":
            out.append(e)
    return out


@pytest.mark.parametrize("case_id", ["gunzi", "classic-2"])
def test_played_card_not_held_names_the_event(case_id: str) -> None:
    lines = record_lines(case_id)
    events = events_of(lines)
    # A play in the middle of the first hand; in the play phase a seat holds exactly the
    # cards it plays from now to the end of the hand.
    end = next(k for k, e in enumerate(events) if e["type"] == "hand_end")
    plays = [i for i, e in enumerate(events[:end]) if e["type"] == "play"
             and "attempted" not in e]
    i = plays[len(plays) // 2]
    seat = events[i]["seat"]
    held = {c for e in _hand_plays(events, i) if e["seat"] == seat for c in e["cards"]}
    foreign = next(n for n in C.NAMES if n not in held)
    tampered = [dict(e) for e in events]
    tampered[i]["cards"] = [foreign, *events[i]["cards"][1:]]
    err = replay_error(dump(tampered, lines[0]))
    number = i + 1
    assert err.event_number == number
    assert str(err).startswith(f"event {number}:")
    assert "illegal play" in str(err) and foreign in str(err)
    assert err.rule == ("A7" if case_id == "gunzi" else "B")


@pytest.mark.parametrize("case_id", ["gunzi", "classic-2"])
def test_reordered_plays_name_the_event(case_id: str) -> None:
    lines = record_lines(case_id)
    events = events_of(lines)
    i = next(k for k, e in enumerate(events)
             if e["type"] == "play" and events[k + 1]["type"] == "play" and e["trick"] > 2)
    swapped = list(events)
    swapped[i], swapped[i + 1] = swapped[i + 1], swapped[i]
    err = replay_error(dump(swapped, lines[0]))
    assert err.event_number == i + 1
    assert f"event {i + 1}:" in str(err)


def test_reordered_engine_events_name_the_event() -> None:
    lines = record_lines("gunzi")
    events = events_of(lines)
    i = next(k for k, e in enumerate(events)
             if e["type"] == "draw" and events[k + 1]["type"] == "draw" and k > 10)
    swapped = list(events)
    swapped[i], swapped[i + 1] = swapped[i + 1], swapped[i]
    err = replay_error(dump(swapped, lines[0]))
    assert err.event_number == i + 1
    assert "out of order" in str(err)
    # Renumbered to hide the swap, the events themselves still differ from the rules'.
    for k, e in enumerate(swapped, start=1):
        e["v"] = k
    err = replay_error(dump(swapped, lines[0]))
    assert err.event_number == i + 1 and "differs" in str(err)


def test_a_deleted_line_is_named_as_missing() -> None:
    lines = record_lines("gunzi")
    events = events_of(lines)
    gone = next(k for k, e in enumerate(events) if e["type"] == "play")
    err = replay_error(dump(events[:gone] + events[gone + 1 :], lines[0]))
    assert err.event_number == gone + 1
    assert f"v={gone + 2}: an event before it is missing" in str(err)


@pytest.mark.parametrize("case_id", ["gunzi", "classic-2"])
def test_changed_trick_winner_names_the_event(case_id: str) -> None:
    lines = record_lines(case_id)
    events = events_of(lines)
    i = [k for k, e in enumerate(events) if e["type"] == "trick"][3]
    tampered = [dict(e) for e in events]
    tampered[i]["winner"] = (events[i]["winner"] + 1) % 4
    err = replay_error(dump(tampered, lines[0]))
    assert err.event_number == i + 1
    assert str(err).startswith(f"event {i + 1}:")


def test_changed_score_or_deck_or_commitment_names_the_event() -> None:
    lines = record_lines("gunzi")
    events = events_of(lines)
    # The hand result.
    i = next(k for k, e in enumerate(events) if e["type"] == "hand_end")
    tampered = [dict(e) for e in events]
    tampered[i]["score"] += 5
    assert replay_error(dump(tampered, lines[0])).event_number == i + 1
    # The commitment of the deal.
    tampered = [dict(e) for e in events]
    tampered[0]["commitment"] = "0" * 64
    assert replay_error(dump(tampered, lines[0])).event_number == 1
    # Two different cards of the deck swapped: the first draw of either differs.
    tampered = [dict(e) for e in events]
    deck = list(events[0]["deck"])
    j = next(k for k in range(1, 40) if deck[k] != deck[0])
    deck[0], deck[j] = deck[j], deck[0]
    tampered[0]["deck"] = deck
    err = replay_error(dump(tampered, lines[0]))
    assert err.event_number is not None and err.event_number >= 2
    assert events[err.event_number - 1]["type"] in ("draw", "declare", "pass", "trump")


def test_unknown_and_broken_lines() -> None:
    lines = record_lines("classic-2")
    events = events_of(lines)
    extra = [*events[:5], {"type": "bogus", "v": 6}, *events[5:]]
    assert replay_error(dump(extra, lines[0])).event_number == 6
    broken = [*lines[:4], "{not json", *lines[4:]]
    err = replay_error(broken)
    assert "line 5" in str(err)
    with pytest.raises(RecordError):
        replay_lines([])
    with pytest.raises(RecordError) as info:
        replay_lines(['{"type": "header", "format": "something-else"}'])
    assert info.value.event_number == 0
    bad_rules = json.loads(lines[0])
    bad_rules["rules"]["follow"] = "sideways"
    with pytest.raises(RecordError) as info:
        replay_lines([json.dumps(bad_rules), *lines[1:]])
    assert info.value.event_number == 0 and "follow" in str(info.value)


def test_illegal_action_error_carries_the_rule() -> None:
    lines = record_lines("gunzi")
    events = events_of(lines)
    i = next(k for k, e in enumerate(events) if e["type"] == "bury")
    tampered = [dict(e) for e in events]
    tampered[i]["cards"] = events[i]["cards"][:5]
    err = replay_error(dump(tampered, lines[0]))
    assert err.event_number == i + 1
    assert err.rule == "A6.3"


def test_truncated_at_end_of_a_hand_is_a_valid_shorter_record() -> None:
    lines = record_lines("gunzi")
    events = events_of(lines)
    i = next(k for k, e in enumerate(events) if e["type"] == "hand_end")
    result = replay_lines(lines[: i + 2])
    assert len(result.hands) == 1


@pytest.mark.parametrize("case_id", ["gunzi", "classic-2"])
def test_truncated_inside_engine_events_names_the_event(case_id: str) -> None:
    lines = record_lines(case_id)
    cut = 20  # header + 19 events: inside the draw
    assert json.loads(lines[cut])["type"] == "draw"
    err = replay_error(lines[:cut])
    assert err.event_number == cut


@pytest.mark.parametrize("case_id", ["gunzi", "classic-2"])
def test_truncated_mid_hand_is_rejected(case_id: str) -> None:
    lines = record_lines(case_id)
    events = events_of(lines)
    i = [k for k, e in enumerate(events) if e["type"] == "trick"][5]
    err = replay_error(lines[: i + 2])
    assert err.event_number == i + 2


# --------------------------------------------------------------------------- seed and deck


def _played_record(seed: int) -> list[dict[str, Any]]:
    m = Match(preset("gunzi"), random.Random(seed))
    rng = random.Random(seed + 1)
    while m.hand_no < 2:
        seat = m.to_act
        assert seat is not None
        m.apply(m.legal_actions(seat).sample(rng))
    head = records.header(m, seed=seed)
    return [head, *records.finished_events(m)]


def test_every_deck_of_a_played_record_follows_from_its_seed() -> None:
    result = records.replay(_played_record(3))
    assert result.unseeded == [] and result.hands
    assert result.seeded == [True] * len(result.hands)


def test_a_doctored_deck_replays_but_is_named_as_not_following_its_seed() -> None:
    """Swap two plain cards of one seat in the deck and in its draws: every action stays
    legal, so only the seed check can tell the deck is not the one the seed gives."""
    lines = _played_record(4)
    deal = next(e for e in lines if e.get("type") == "deal")
    deck = deal["deck"]
    i = next(p for p in range(8) if deck[p] not in ("BJ", "LJ")
             and deck[p + 8] not in ("BJ", "LJ") and deck[p] != deck[p + 8])
    deck[i], deck[i + 8] = deck[i + 8], deck[i]
    first_hand = lines[1 : next(k for k, e in enumerate(lines) if e.get("type") == "hand_end")]
    draws = {e["n"]: e for e in first_hand if e["type"] == "draw" and "card" in e}
    draws[i + 1]["card"], draws[i + 9]["card"] = draws[i + 9]["card"], draws[i + 1]["card"]
    result = records.replay(lines)
    assert result.unseeded == [deal["v"]]
    assert result.seeded[0] is False


def test_options_missing_from_the_header_are_named() -> None:
    lines = _played_record(5)
    del lines[0]["rules"]["dry_pot"]
    assert records.replay(lines).assumed == ["dry_pot"]
