"""What one seat, or a spectator, may know: the only way hidden state leaves the engine.

:func:`view` is a snapshot of the match as ``seat`` sees it; :func:`redact` and
:func:`stream` filter the event log the same way. Both read hidden state, and
nothing else in the code base may turn hidden state into output (records are
written only for finished hands, whose secrets are public by then).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, TypeVar

from gunzi.engine import cards as C
from gunzi.engine.actions import Kind
from gunzi.engine.event_log import EventLog
from gunzi.engine.events import Event, thaw
from gunzi.engine.state import PHASE_KIND, STATE_FIELDS, MatchState, Phase, public_result

SPECTATOR = None
M = TypeVar("M", bound=MatchState)
# Match fields seat_position does not copy as they are: hidden from some seat, or engine
# machinery (the deal's seed and deck, the event log with its secrets, the generators).
_BLANKED = frozenset(("hands", "deck", "seed", "events", "kitty", "tribute_cards", "can",
                      "asks", "follows_memo", "sampled"))


def _sorted_hand(match: MatchState, seat: int) -> list[str]:
    order = match.order
    cards = C.expand(match.hands[seat])
    cards.sort(key=order.sort_key)
    return C.names(cards)


def visible_to_act(match: MatchState, seat: int | None) -> int | None:
    """Who is to act, as ``seat`` may know it (None if it may not).

    While drawing, who is being asked is private: in a first hand of 打滚子 only big-joker
    holders are asked, and being asked at all tells that the seat could declare.
    """
    if match.phase is Phase.DRAW and match.current != seat:
        return None
    return match.current


def knows_kitty(match: MatchState, seat: int | None) -> bool:
    """Whether ``seat`` may see the whole current kitty."""
    return match.kitty_shown or (seat is not None and seat in match.kitty_known_by)


def seat_fields(match: MatchState, seat: int) -> dict[str, Any]:
    """The fields of ``match`` (:data:`STATE_FIELDS`) as ``seat`` may know them, as data.

    The other hands are empty, the kitty is empty unless the seat knows it, and the deal's
    seed and deck, the event log, the tribute cards (unless the seat gave or got them)
    and who else may declare are gone. Lists are copied one level deep.
    """
    out: dict[str, Any] = {}
    for name in STATE_FIELDS:
        if name not in _BLANKED:
            value = getattr(match, name)
            out[name] = list(value) if type(value) is list else value
    out["hands"] = [list(h) if s == seat else [0] * C.NUM_TYPES
                    for s, h in enumerate(match.hands)]
    out["deck"] = []
    out["seed"] = None
    out["events"] = EventLog()
    out["follows_memo"] = None
    out["sampled"] = None
    out["kitty"] = list(match.kitty) if knows_kitty(match, seat) else []
    out["tribute_cards"] = match.tribute_cards if seat in (match.payer, match.payee) else ()
    out["results"] = _results(match)
    out["can"] = [match.can[s] and s == seat for s in range(4)]
    out["asks"] = [seat] if match.asks and match.asks[0] == seat else []
    return out


def seat_position(match: M, seat: int) -> M:
    """A copy of ``match`` that holds only what ``seat`` may know (:func:`seat_fields`),
    to answer its own questions (is this action legal, and why not; some legal action)
    with the engine's rules and no way to reach hidden cards.

    It is a position for the seat's own decision only: it cannot be played on (no
    generator, no deck).
    """
    return position_from(type(match), seat_fields(match, seat), copy=False)


def position_from(cls: type[M], fields: dict[str, Any], *, copy: bool = True) -> M:
    """A ``cls`` (a Match) holding ``fields`` (from :func:`seat_fields`; their lists and
    the hands' count lists copied unless ``copy`` is false): a position to ask the rules
    about, which cannot be played on."""
    new = cls.__new__(cls)
    for name, value in fields.items():
        if copy and type(value) is list:
            value = [list(v) if type(v) is list else v for v in value]
        elif copy and type(value) is EventLog:
            value = value.copy()
        setattr(new, name, value)
    return new


def view(match: MatchState, seat: int | None) -> dict[str, Any]:
    """Everything ``seat`` (0..3, or None for a spectator) may know now, as plain data."""
    phase = match.phase
    to_act = visible_to_act(match, seat)
    decl = match.decl
    kitty_cards: list[str] | None = None
    if knows_kitty(match, seat):
        kitty_cards = C.names(match.kitty)
    trick = match.trick
    winning = None
    if trick and phase is Phase.PLAY:
        winning = _current_winner(match)
    tribute: dict[str, Any] = {
        "n": match.tribute_n,
        "kind": match.tribute_kind,
        "from": match.payer,
        "to": match.payee,
    }
    if seat is not None and seat in (match.payer, match.payee) and match.tribute_cards:
        tribute["cards"] = C.names(match.tribute_cards)
    out: dict[str, Any] = {
        "seat": seat,
        "rules": match.rules.name,
        "game": match.rules.game,
        "hand_no": match.hand_no,
        "round_no": match.round_no,
        "first_hand": match.first,
        "phase": phase.value,
        "to_act": to_act,
        "dealer": match.dealer,
        "levels": [C.RANKS[lv] if lv < 13 else "passed" for lv in match.levels],
        "level": C.RANKS[match.level],
        "trump": C.SUITS[match.trump] if match.trump >= 0 else None,
        "no_trump": match.no_trump,
        "declaration": None if decl is None else {
            "seat": decl[0], "cards": C.names(decl[1]),
            "suit": C.SUITS[decl[2]] if decl[2] >= 0 else None,
        },
        "drawn": match.pos,
        "hand": _sorted_hand(match, seat) if seat is not None else None,
        "hand_sizes": [match.hand_size(s) for s in range(4)],
        "kitty": {
            "size": len(match.kitty),
            "cards": kitty_cards,
            "turned": C.names(match.kitty_public),
            "dry_pot": match.dry_pot,
        },
        "tribute": tribute,
        "pickup_pending": None if match.pickup_jokers is None else C.names(match.pickup_jokers),
        "trick": {
            "number": match.trick_no,
            "leader": match.leader,
            "plays": [{"seat": s, "cards": C.names(p)} for s, p in trick],
            "winning": winning,
        },
        "tricks": [
            {
                "leader": t["leader"],
                "plays": [C.names(p) for p in t["plays"]],
                "winner": t["winner"],
                "points": t["points"],
            }
            for t in match.tricks
        ],
        # Public: a failed throw is shown to the table with the card that stops it.
        "failed_throw": None if match.failed_throw is None else thaw(match.failed_throw),
        "points": list(match.points),
        "scores": list(match.scores),
        "last_result": thaw(_results(match)[-1]) if match.results else None,
        "is_over": match.phase is Phase.OVER,
        "decision": decision(match, seat),
    }
    return out


def decision(match: MatchState, seat: int | None) -> dict[str, Any] | None:
    """What ``seat`` decides now, as a client offers it: ``kind`` (the action's type),
    ``count`` (how many cards it takes, when that is fixed: tribute, return, bury) and
    ``options`` (the declarations it may make). While drawing a seat may declare between
    asks too (the table sends it at the next ask), so its declaring options are there all
    through the draw, whoever is asked; otherwise only the seat to act has a decision."""
    if seat is None:
        return None
    phase = match.phase
    if phase is Phase.DRAW:
        options = [{k: v for k, v in a.to_dict().items() if k in ("cards", "suit")}
                   for a in match.declarations(seat)]
        return {"kind": Kind.DECLARE.value, "count": None, "options": options}
    if visible_to_act(match, seat) != seat or not PHASE_KIND[phase]:
        return None
    kind = PHASE_KIND[phase][0]
    count = {Kind.BURY: match.rules.kitty_size, Kind.TRIBUTE: match.tribute_n,
             Kind.RETURN: match.tribute_n}.get(kind)
    return {"kind": kind.value, "count": count, "options": None}


def _results(match: MatchState) -> list[dict[str, Any]]:
    """The hands' results as everybody may know them: a sealed hand's without its kitty."""
    return [public_result(r) if match.sealed(h) else r
            for h, r in enumerate(match.results, 1)]


def _current_winner(match: MatchState) -> int:
    plays = [p for _, p in match.trick]
    return match.trick[match.variant.trick_winner(match, plays)][0]


def redact(event: Event, seat: int | None, *, reveal: bool = False, sealed: bool = False
           ) -> dict[str, Any] | None:
    """The event as ``seat`` may see it: None if private to others; secrets only to the audience.

    ``reveal`` shows everything, for events of a hand that is over; ``sealed`` shows the
    audience too only the public part, for events of a sealed hand (MatchState.sealed).
    Neither changes which events a seat gets, so the numbering stays the same.
    """
    member = reveal or (seat is not None and seat in event.audience)
    if event.private and not member:
        return None
    out = {"type": event.type, "hand": event.hand, **thaw(event.public)}
    if event.secret is not None and member and (reveal or not sealed):
        out.update(thaw(event.secret))
    return out


def numbered(match: MatchState, seat: int | None, start: int = 0, seq: int = 0
             ) -> Iterator[dict[str, Any]]:
    """The seat's events from ``match.events[start:]`` as it may see them, each with its
    ``seq``, counting on from ``seq`` (the seat's count of the events before ``start``).

    This is the one place that numbers a recipient's events: per recipient, so the gaps
    left by private events of other seats do not show that they exist; a number never
    changes once given. Events of finished hands are shown in full (the private ones of
    others stay out).
    """
    # A hand's secrets are public once it is over (next deal pending, or the match ended);
    # a sealed hand's (a duplicate board's first play) are nobody's until the board is done.
    finished = match.revealed_hands()
    over = match.hands_over()
    events = match.events
    for i in range(start, len(events)):
        ev = events[i]
        d = redact(ev, seat)
        if d is None:
            continue
        seq += 1
        if ev.hand <= finished:
            d = redact(ev, seat, reveal=True)
            assert d is not None
        elif ev.hand <= over:
            d = redact(ev, seat, sealed=True)
            assert d is not None
        d["seq"] = seq
        yield d


def seq_at(match: MatchState, seat: int | None, end: int | None = None) -> int:
    """How many of the first ``end`` events (all by default) ``seat`` sees: its last seq."""
    events = match.events if end is None else match.events[:end]
    return sum(1 for ev in events if redact(ev, seat) is not None)


def stream(match: MatchState, seat: int | None, since: int = 0) -> list[dict[str, Any]]:
    """The seat's own event stream after its ``since``-th event, numbered ``seq`` from 1
    (see :func:`numbered`)."""
    return [d for d in numbered(match, seat) if d["seq"] > since]
