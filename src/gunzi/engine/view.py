"""What one seat, or a spectator, may know: the only way hidden state leaves the engine.

:func:`view` is a snapshot of the match as ``seat`` sees it; :func:`redact` and
:func:`stream` filter the event log the same way. Both read hidden state, and
nothing else in the code base may turn hidden state into output (records are
written only for finished hands, whose secrets are public by then).
"""

from __future__ import annotations

from typing import Any

from gunzi.engine import cards as C
from gunzi.engine.events import Event, thaw
from gunzi.engine.match import Match, Phase

SPECTATOR = None


def _sorted_hand(match: Match, seat: int) -> list[str]:
    order = match.order
    cards = C.expand(match.hands[seat])
    cards.sort(key=order.sort_key)
    return C.names(cards)


def view(match: Match, seat: int | None) -> dict[str, Any]:
    """Everything ``seat`` (0..3, or None for a spectator) may know now, as plain data."""
    phase = match.phase
    # While drawing, who is being asked is private: it tells that the seat could declare.
    to_act = match.current
    if phase is Phase.DRAW and to_act != seat:
        to_act = None
    decl = match.decl
    kitty_cards: list[str] | None = None
    if match.kitty_shown or (seat is not None and seat in match.kitty_known_by):
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
        "points": list(match.points),
        "scores": list(match.scores),
        "last_result": thaw(match.results[-1]) if match.results else None,
        "over": match.over,
    }
    return out


def _current_winner(match: Match) -> int:
    from gunzi.engine import classic_tricks as CT
    from gunzi.engine import gunzi_tricks as GT
    from gunzi.engine.classic_policy import policy_of

    plays = [p for _, p in match.trick]
    if match.rules.is_gunzi:
        idx = GT.trick_winner(plays, match.order)
    else:
        assert match.lead_shape is not None
        idx = CT.trick_winner(match.lead_shape, plays, match.order, policy_of(match.rules))
    return match.trick[idx][0]


def redact(event: Event, seat: int | None, *, reveal: bool = False) -> dict[str, Any] | None:
    """The event as ``seat`` may see it: None if private to others; secrets only to the audience.

    ``reveal`` shows everything, for events of a hand that is over.
    """
    allowed = reveal or (seat is not None and seat in event.audience)
    if event.private and not allowed:
        return None
    out = {"type": event.type, "hand": event.hand, **thaw(event.public)}
    if event.secret is not None and allowed:
        out.update(thaw(event.secret))
    return out


def stream(match: Match, seat: int | None, since: int = 0) -> list[dict[str, Any]]:
    """The seat's own event stream after its ``since``-th event, numbered ``seq`` from 1.

    Numbering is per recipient, so the gaps left by private events of other seats
    do not show that they exist; it never changes once given. Events of finished
    hands are shown in full (the private ones of others stay out of the stream).
    """
    out: list[dict[str, Any]] = []
    seq = 0
    # A hand's secrets are public once it is over (next deal pending, or the match ended).
    finished = match.revealed_hands()
    for ev in match.events:
        d = redact(ev, seat)
        if d is None:
            continue
        seq += 1
        if seq > since:
            if ev.hand <= finished:
                d = redact(ev, seat, reveal=True)
                assert d is not None
            d["seq"] = seq
            out.append(d)
    return out
