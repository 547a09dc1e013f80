"""The timeline of a record: every finished hand as dealt, set up and played, trick by trick.

A record is never trusted: :func:`load` re-validates it with
:func:`gunzi.engine.records.replay` before anything is built, and :func:`walk` rebuilds
the match by applying the record's decisions to a fresh :class:`Match`, so every
figure of a timeline (hands, kitty, winners, points) is the engine's, not the file's.
Records hold finished hands only, so a timeline shows nothing still secret.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from gunzi.engine import cards as C
from gunzi.engine import classic_tricks as CT
from gunzi.engine import records
from gunzi.engine.actions import Action
from gunzi.engine.classic_policy import policy_of
from gunzi.engine.errors import RecordError
from gunzi.engine.match import Match
from gunzi.engine.order import Order

MAX_RECORD_BYTES = 2_000_000  # an uploaded record (a full 打滚子 match is ~0.5 MB)
TIMELINE_VERSION = 1


def parse(text: str) -> list[dict[str, Any]]:
    """The record's lines as JSON objects; RecordError on a line that is not one."""
    if len(text.encode("utf-8")) > MAX_RECORD_BYTES:
        raise RecordError(f"the record is larger than {MAX_RECORD_BYTES // 1_000_000} MB")
    return list(records.read_lines(text.splitlines()))


def load(text: str) -> list[dict[str, Any]]:
    """Parse and validate a record (RecordError naming the event and the rule if bad)."""
    lines = parse(text)
    records.replay(lines)
    return lines


def walk(lines: list[dict[str, Any]]) -> Iterator[tuple[Match, Action | None, dict[str, Any]]]:
    """(match, decision, event) for every event of a validated record, in order.

    For a decision the match is the state just before it (the seat's turn); for an
    event the engine made, the state after the decision that caused it. The match is
    the walker's own and changes as the walk goes on: clone it to keep a state.
    """
    match = records.start_match(lines[0])
    for event in lines[1:]:
        action = records.action_of(event)
        yield match, action, event
        if action is not None:
            match.apply(action)


def _sorted(order: Order, names: Iterable[str]) -> list[str]:
    cards = C.parse_many(list(names))
    cards.sort(key=order.sort_key)
    return C.names(cards)


def _hand_cards(match: Match, seat: int) -> list[str]:
    cards = C.expand(match.hands[seat])
    cards.sort(key=match.order.sort_key)
    return C.names(cards)


def build(lines: list[dict[str, Any]]) -> dict[str, Any]:
    """The timeline of a validated record (see docs/replay.md for the format)."""
    head = lines[0]
    rules = head.get("rules", {})
    hands: list[dict[str, Any]] = []
    hand: dict[str, Any] = {}
    dealt: list[list[str]] = [[], [], [], []]
    order: Order | None = None
    running = [0, 0]
    match_end: dict[str, Any] | None = None
    for match, _action, ev in walk(lines):
        kind = ev["type"]
        if kind == "deal":
            dealt = [[], [], [], []]
            if ev.get("deal_no", 1) == 1:
                running = [0, 0]
                hand = {
                    "hand": ev["hand"], "round": ev["round"], "first_hand": ev["first_hand"],
                    "first_seat": ev["first_seat"], "levels_before": ev["levels"],
                    "blood": ev["tribute"], "seed": ev.get("seed"),
                    "commitment": ev["commitment"], "redeals": [], "declarations": [],
                    "trump_how": None, "turned": [], "tribute": None, "return": None,
                    "tribute_cancelled": False, "kitty_dealt": [], "kitty_shown": [],
                    "dry_pot": False, "buried": [], "bury_jokers": [], "tricks": [],
                }
            hand["kitty_dealt"] = ev["deck"][4 * match.rules.hand_size:]
        elif kind == "redeal":
            hand["redeals"].append(ev["reason"])
        elif kind == "draw":
            dealt[ev["seat"]].append(ev["card"])
        elif kind == "declare":
            hand["declarations"].append({"seat": ev["seat"], "cards": ev["cards"],
                                         "suit": ev["suit"]})
        elif kind in ("trump", "kitty_flip"):
            if kind == "trump":
                hand["trump_how"] = ev["how"]
            hand["turned"] = ev["cards"] or hand["turned"]
        elif kind in ("tribute", "return"):
            hand[kind] = {"seat": ev["seat"], "to": ev["to"], "cards": ev["cards"]}
        elif kind == "tribute_cancelled":
            hand["tribute_cancelled"] = True
        elif kind == "kitty_shown":
            hand["kitty_shown"].append({"when": ev["when"], "cards": ev["cards"]})
        elif kind == "dry_pot":
            hand["dry_pot"] = True
        elif kind == "bury":
            hand["buried"] = ev["cards"]
        elif kind == "bury_jokers":
            hand["bury_jokers"].append({"seat": ev["seat"], "cards": ev["cards"],
                                        "take": ev["take"]})
        elif kind == "play_begins":
            order = match.order
            dealer = match.dealer
            assert dealer is not None
            hand.update({
                "dealer": dealer, "attackers": 1 - dealer % 2, "trump": ev["trump"],
                "level": ev["level"], "level_text": C.RANKS[ev["level"]],
                "dealt": [_sorted(order, d) for d in dealt],
                "start": [_hand_cards(match, s) for s in range(4)],
                "kitty": _sorted(order, C.names(match.kitty)),
            })
        elif kind == "play":
            if not hand["tricks"] or hand["tricks"][-1]["winner"] is not None:
                hand["tricks"].append({"n": ev["trick"], "leader": ev["seat"], "plays": [],
                                       "winner": None, "points": 0, "running": None})
            play: dict[str, Any] = {"seat": ev["seat"], "cards": ev["cards"]}
            if "attempted" in ev:
                play["attempted"] = ev["attempted"]
                # The match is the state before the lead: the others' hands as they were.
                forced = C.parse_many(ev["cards"])
                part = CT.decompose(forced, match.order, policy_of(match.rules)).units[0]
                stop = CT.blocker(part, ev["seat"], match.hands, match.order)
                assert stop is not None  # the record was validated: the throw did fail
                play["blocker"], play["beats"] = stop[0], _sorted(match.order, C.names(stop[1]))
            hand["tricks"][-1]["plays"].append(play)
        elif kind == "trick":
            trick = hand["tricks"][-1]
            running[ev["winner"] % 2] += ev["points"]
            trick.update(winner=ev["winner"], points=ev["points"], running=list(running))
        elif kind == "hand_end":
            hand["end"] = {k: v for k, v in ev.items() if k != "v"}
            hands.append(hand)
        elif kind == "match_end":
            match_end = {"scores": ev["scores"], "rounds": ev["rounds"]}
    return {
        "version": TIMELINE_VERSION,
        "rules": rules,
        "game": rules.get("game"),
        "seats": head.get("seats", []),
        "hands": hands,
        "match_end": match_end,
    }


def timeline(text: str) -> dict[str, Any]:
    """Validate a record's text and build its timeline (RecordError if the record is bad)."""
    return build(load(text))


def hand_of(tl: dict[str, Any], number: int) -> dict[str, Any]:
    """One hand of a timeline by its number; RecordError if the record has no such hand."""
    hands: list[dict[str, Any]] = tl["hands"]
    for hand in hands:
        if hand["hand"] == number:
            return hand
    have = ", ".join(str(h["hand"]) for h in hands) or "none"
    raise RecordError(f"the record has no finished hand {number} (finished hands: {have})")
