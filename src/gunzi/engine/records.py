"""Match records: JSON Lines, a header then one event per line (docs/records.md).

A record holds every event of the finished hands in full: the deal (seed,
commitment and deck order), each decision, and what the engine did in
between. :func:`replay` checks a record with the hall's one record checker
(:func:`gunzi.engine.record_check.check`, shared with 步步为营): the decisions go
back through a fresh :class:`~gunzi.engine.match.Match` with validation on and every
event must come out identical, so a record is also a proof that the game was
played by its rules. This module adds what only card records have: the header's
starting state, decks checked against their seeds, the per-hand summaries.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gunzi.engine import actions as A
from gunzi.engine import cards as C
from gunzi.engine.errors import GunziError, RecordError
from gunzi.engine.match import Match, Phase
from gunzi.engine.record_check import RecordFormat, check
from gunzi.engine.record_check import checked_events as checked_events
from gunzi.engine.record_check import json_problem as json_problem
from gunzi.engine.record_check import read_lines as read_lines
from gunzi.engine.record_check import split_header as split_header
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


# Card records for the one checker.
CARDS = RecordFormat(FORMAT, start_match, action_of)


def replay(lines: Iterable[dict[str, Any]]) -> Replay:
    """Re-validate every decision of a record and check every event; raise RecordError."""
    checking = check(lines, CARDS)
    head, match = checking.header, checking.game
    written = head["rules"]
    version = head.get("version", 1)
    version = version if isinstance(version, int) else 1
    out = Replay(head, match, assumed=[
        k for k, o in CATALOG.options.items() if k not in written and o.since <= version])
    number = 0
    seeded = True
    for number, event in checking.events:
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
