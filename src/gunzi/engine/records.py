"""Match records: JSON Lines, a header then one event per line (docs/records.md).

A record holds every event of the finished hands in full: the deal (seed,
commitment and deck order), each decision, and what the engine did in
between. :func:`replay` feeds the decisions back through a fresh
:class:`~gunzi.engine.match.Match` with validation on and checks that every
event comes out identical, so a record is also a proof that the game was
played by its rules.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from gunzi.engine import actions as A
from gunzi.engine import cards as C
from gunzi.engine.errors import GunziError, RecordError
from gunzi.engine.match import Match, Phase
from gunzi.engine.rules import CATALOG, Ruleset, from_options

FORMAT = "gunzi-record"
VERSION = 2  # 2: the classic variant options of issue 16 ([I-20]..[I-30])
ACTION_TYPES = {
    "deal", "declare", "pass", "tribute", "return", "bury", "bury_jokers", "joker_announce",
    "play",
}


def header(
    match: Match,
    *,
    seats: list[str] | None = None,
    seed: int | None = None,
    levels: tuple[int, int] | None = None,
    dealer: int | None = None,
    blood: int = 0,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The first line: format, rules with every option, seats and the match's starting state."""
    rules = {"name": match.rules.name, **match.rules.options()}
    start = levels if levels is not None else (match.rules.first_level,) * 2
    out: dict[str, Any] = {
        "type": "header",
        "format": FORMAT,
        "version": VERSION,
        "rules": rules,
        "seats": seats or [f"seat{i}" for i in range(4)],
        "start": {"levels": list(start), "dealer": dealer, "blood": blood},
        "match_seed": seed,
    }
    if extra:
        out.update(extra)
    return out


def finished_events(match: Match) -> list[dict[str, Any]]:
    """Full events of the hands that are over (an unfinished hand's secrets are not written)."""
    finished = match.revealed_hands()
    return [ev.to_dict() for ev in match.events if ev.hand <= finished]


def dumps(head: dict[str, Any], events: Iterable[dict[str, Any]]) -> str:
    lines = [json.dumps(head, ensure_ascii=False)]
    lines.extend(json.dumps(e, ensure_ascii=False) for e in events)
    return "\n".join(lines) + "\n"


def write(path: str | Path, head: dict[str, Any], events: Iterable[dict[str, Any]]) -> None:
    Path(path).write_text(dumps(head, events), encoding="utf-8")


def json_problem(exc: json.JSONDecodeError) -> str:
    """What is wrong with a JSON line and where, as a sentence: ``invalid control character
    at column 31 (a tab or line break inside a string must be written \\t or \\n)``."""
    end = len(exc.doc.rstrip())
    if exc.pos >= end:
        return f"the line ends at column {end} before its JSON value is complete (cut short?)"
    what = exc.msg.removesuffix(" at")
    text = f"{what[:1].lower()}{what[1:]} at column {exc.colno}"
    if what.startswith("Invalid control character"):
        text += r" (a tab or line break inside a string must be written \t or \n)"
    return text


def read_lines(stream: IO[str] | Iterable[str]) -> Iterator[dict[str, Any]]:
    for number, line in enumerate(stream):
        if not line.strip():
            continue
        try:
            data = json.loads(line.rstrip("\r\n"))  # columns count within the line
        except json.JSONDecodeError as exc:
            raise RecordError(f"line {number + 1} is not JSON: {json_problem(exc)}") from None
        except (ValueError, RecursionError) as exc:  # a huge integer; nesting too deep
            what = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
            raise RecordError(f"line {number + 1} is not readable JSON: {what[:120]}") from None
        if not isinstance(data, dict):
            raise RecordError(f"line {number + 1} is not a JSON object")
        if not isinstance(data.get("type", ""), str):
            raise RecordError(f"line {number + 1}: 'type' must be a string")
        yield data


def action_of(event: dict[str, Any]) -> A.Action | None:
    """The decision an event records, or None for an event the engine makes itself."""
    kind = event.get("type")
    if kind not in ACTION_TYPES:
        return None
    if kind == "deal":
        if event.get("deal_no", 1) != 1:
            return None  # a redeal is the engine's own
        return A.from_dict({
            "type": "deal",
            "seed": event.get("seed"),
            "deck": event.get("deck"),
            "first_seat": event.get("first_seat") if event.get("first_hand") else None,
        })
    if kind == "joker_announce":
        return A.from_dict({"type": "bury_jokers", "seat": event.get("seat"),
                            "cards": event.get("announced"), "take": []})
    if kind == "bury_jokers":
        return A.from_dict({"type": kind, "seat": event.get("seat"),
                            "cards": event.get("announced"), "take": event.get("chose", [])})
    if kind == "play" and "attempted" in event:
        return A.from_dict({"type": kind, "seat": event.get("seat"), "cards": event["attempted"]})
    return A.from_dict(event)


@dataclass
class Replay:
    """The outcome of replaying a record."""

    header: dict[str, Any]
    match: Match
    hands: list[dict[str, Any]] = field(default_factory=list)
    # Rule options the header leaves out (a record older than the option): their defaults.
    assumed: list[str] = field(default_factory=list)
    # Event numbers of first deals whose deck (and first seat) random.Random(seed) does not
    # give: decks made by other means (stacked tests, deal banks), or a doctored record.
    unseeded: list[int] = field(default_factory=list)
    seeded: list[bool] = field(default_factory=list)  # per hand: its deck follows its seed


def deal_follows_seed(event: dict[str, Any], decks: int) -> bool:
    """Whether ``random.Random(seed)`` gives this deal's first seat and deck (docs/records.md)."""
    seed = event.get("seed")
    if not isinstance(seed, int):
        return False
    rng = random.Random(seed)
    if event.get("first_hand") and rng.randrange(4) != event.get("first_seat"):
        return False
    deck = C.deck(decks)
    rng.shuffle(deck)
    return C.names(deck) == event.get("deck")


def start_match(head: dict[str, Any]) -> Match:
    if head.get("type") != "header" or head.get("format") != FORMAT:
        raise RecordError("the first line must be a gunzi-record header", 0)
    try:
        rules: Ruleset = from_options(head["rules"])
        start = head.get("start") or {}
        levels = start.get("levels")
        return Match(
            rules,
            auto_deal=False,
            levels=tuple(levels) if levels else None,
            dealer=start.get("dealer"),
            blood=int(start.get("blood", 0)),
        )
    except (KeyError, TypeError, GunziError) as exc:
        raise RecordError(f"bad header: {exc}", 0) from None


def split_header(
    lines: Iterable[dict[str, Any]],
) -> tuple[dict[str, Any], Iterator[dict[str, Any]]]:
    """The record's first line and an iterator over the rest."""
    it = iter(lines)
    try:
        return next(it), it
    except StopIteration:
        raise RecordError("the record is empty") from None


def checked_events(
    events: Iterable[dict[str, Any]],
    action_of: Callable[[dict[str, Any]], Any],
    perform: Callable[[Any], Sequence[dict[str, Any]]],
) -> Iterator[tuple[int, dict[str, Any]]]:
    """Re-apply each decision of a record and check each event against the engine's.

    ``action_of`` gives the decision an event records (None for the engine's own events);
    ``perform`` applies a decision with validation on and returns the events it made.
    Yields ``(number, event)`` once the event is checked; raises RecordError naming the
    event number (and the rule for an illegal decision). Shared by every game's records.
    """
    pending: list[dict[str, Any]] = []  # events the engine made that the record must match
    number = 0
    for number, event in enumerate(events, start=1):
        v = event.get("v", number)  # card records number their events; board records do not
        if v != number:
            raise RecordError(
                f"the event on line {number + 1} says v={v!r}: "
                + ("an event before it is missing or out of order"
                   if isinstance(v, int) and v > number
                   else "events before it are repeated or out of order"), number)
        try:
            action = action_of(event)
        except (GunziError, KeyError, TypeError, ValueError) as exc:  # a field missing or odd
            what = exc if isinstance(exc, GunziError) else f"{type(exc).__name__} {exc}"[:120]
            raise RecordError(f"malformed {event.get('type')!r} event: {what}", number) from None
        if action is not None:
            if pending:
                raise RecordError(f"the record skips the engine's {pending[0]['type']!r} event",
                                  number)
            try:
                pending = list(perform(action))
            except GunziError as exc:
                rule = getattr(exc, "rule", "")
                raise RecordError(f"illegal {event.get('type')}: {exc}", number, rule) from None
        if not pending:
            raise RecordError(f"unexpected {event.get('type')!r} event", number)
        expected = pending.pop(0)
        if expected != event:
            raise RecordError(
                f"event differs from the rules' outcome: record has {json.dumps(event)}, "
                f"the engine gives {json.dumps(expected)}",
                number,
            )
        yield number, event
    if pending:
        raise RecordError(f"the record stops before the engine's {pending[0]['type']!r} event",
                          number + 1)


def replay(lines: Iterable[dict[str, Any]]) -> Replay:
    """Re-validate every decision of a record and check every event; raise RecordError."""
    head, rest = split_header(lines)
    match = start_match(head)
    written = head["rules"]
    version = head.get("version", 1)
    version = version if isinstance(version, int) else 1
    out = Replay(head, match, assumed=[
        k for k, o in CATALOG.options.items() if k not in written and o.since <= version])

    def perform(action: A.Action) -> list[dict[str, Any]]:
        before = len(match.events)
        match.apply(action)
        return [e.to_dict() for e in match.events[before:]]

    number = 0
    seeded = True
    for number, event in checked_events(rest, action_of, perform):
        if event["type"] == "deal" and event.get("deal_no") == 1:
            seeded = deal_follows_seed(event, match.rules.decks)
            if not seeded:
                out.unseeded.append(number)
        if event["type"] == "hand_end":
            out.hands.append(event)
            out.seeded.append(seeded)
    if match.phase not in (Phase.DEAL, Phase.OVER):
        raise RecordError(
            f"the record stops in the middle of hand {match.hand_no}; records hold finished "
            "hands only", number + 1)
    return out


def hand_summaries(result: Replay) -> list[dict[str, Any]]:
    """Each replayed hand's summary with whether its deck follows from its seed."""
    return [{**summary(h), "deck_from_seed": ok}
            for h, ok in zip(result.hands, result.seeded, strict=True)]


def summary(hand: dict[str, Any]) -> dict[str, Any]:
    """The per-hand figures `gunzi replay` prints (docs/records.md, "Replaying")."""
    out = {
        "hand": hand["hand"],
        "dealer": hand["dealer"],
        "attackers_score": hand["score"],
        "kitty": "抠底" if hand["kou"] else "保底",
        "levels_before": [_level(x) for x in hand["levels_before"]],
        "levels_after": [_level(x) for x in hand["levels_after"]],
        "next_dealer": hand["next_dealer"],
        "round_end": hand.get("round_end"),
    }
    if "tribute" in hand:
        out["tribute_kind"] = hand["tribute"]["kind"]
        out["tribute_count"] = hand["tribute"]["n"]
        out["hand_scores"] = hand["hand_scores"]
    else:
        out["kitty_multiplier"] = hand["kitty_multiplier"]
        out["failed_throws"] = hand["failed_throws"]
        if "game_points" in hand:
            out["game_points"] = hand["game_points"]
    return out


def _level(index: int) -> str:
    """A level as people say it: the rank name ('3', '10', 'A'), or 'passed A' (classic)."""
    return C.RANKS[index] if index < 13 else "passed A"
