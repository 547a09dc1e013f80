"""An independent entitlement model: which cards may a recipient know, frame by frame?

Written from the rules (docs/rules.md / docs/records.md), not from the server's or
the engine's redaction code, so the two check each other. Given the full
record of a table (every hand finished, seeds revealed) and every frame one
recipient received, :func:`check` reports every field that tells the
recipient something it may not know at that moment, and every value that
differs from the truth.

A recipient (seat 0..3, or None for a spectator) is entitled to:
- its own cards (drawn, received in tribute or return, taken from the kitty or
  picked up when burying jokers);
- cards played, declared, turned from the kitty, and the kitty when shown;
- the tribute cards when it gave or received them;
- the kitty it buried itself (the dealer);
- everything of a hand once that hand is over (the record reveals it), except that a
  复式 (duplicate) board's first play is sealed until its second play is over: its
  secrets (draws, taken and buried cards, the kitty in its result) then reach nobody,
  not even the seat that saw them, since the second play repeats its deal.

It never sees that another seat was asked to declare: a pass to a declaring
ask is private, and so is the asked seat.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from gunzi.engine.rules import from_options

CARD = re.compile(r"^(?:10|[2-9JQKA])[SHCD]$|^[BL]J$")

# Fields of an event that only its audience may see while the hand is in play.
HIDDEN: dict[str, tuple[str, ...]] = {
    "deal": ("seed", "deck"),
    "draw": ("card",),
    "tribute": ("cards",),
    "return": ("cards",),
    "take_kitty": ("cards",),
    "bury": ("cards",),
    "hand_end": ("kitty", "kitty_points", "kitty_jokers"),
}
KNOWN_EVENTS = frozenset({
    "deal", "draw", "declare", "pass", "trump", "kitty_flip", "redeal", "tribute", "return",
    "tribute_cancelled", "kitty_shown", "dry_pot", "take_kitty", "bury", "bury_jokers",
    "joker_announce", "play_begins", "play", "trick", "hand_end", "match_end",
})
VIEW_KEYS = frozenset({
    "seat", "rules", "game", "hand_no", "round_no", "first_hand", "phase", "to_act", "dealer",
    "levels", "level", "trump", "no_trump", "declaration", "drawn", "hand", "hand_sizes", "kitty",
    "tribute", "pickup_pending", "trick", "tricks", "points", "scores", "last_result", "is_over",
    "failed_throw", "decision",
})


def audience(e: dict[str, Any]) -> set[int]:
    t = e["type"]
    if t in ("draw", "take_kitty", "bury"):
        return {e["seat"]}
    if t in ("tribute", "return"):
        return {e["seat"], e["to"]}
    return set()


def visible(e: dict[str, Any], r: int | None) -> bool:
    """Whether the event is in r's stream at all (a declaring pass is the passer's only)."""
    return not (e["type"] == "pass" and "n" in e and e["seat"] != r)


def cards_in(value: Any) -> list[str]:
    """Every card text anywhere inside a JSON value."""
    out: list[str] = []
    if isinstance(value, str):
        if CARD.match(value):
            out.append(value)
    elif isinstance(value, list):
        for v in value:
            out.extend(cards_in(v))
    elif isinstance(value, dict):
        for v in value.values():
            out.extend(cards_in(v))
    return out


def card_lists(value: Any, path: str = "") -> Iterable[tuple[str, list[str]]]:
    """(path, cards) for every list of card texts and every lone card text."""
    if isinstance(value, str):
        if CARD.match(value):
            yield path, [value]
    elif isinstance(value, list):
        direct = [v for v in value if isinstance(v, str) and CARD.match(v)]
        if direct:
            yield path, direct
        for i, v in enumerate(value):
            if not isinstance(v, str):
                yield from card_lists(v, f"{path}[{i}]")
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from card_lists(v, f"{path}.{k}")


@dataclass
class Knowledge:
    """What recipient r knows after the events up to some point (simulated from the truth)."""

    r: int | None
    hand_size: int
    hand_no: int = 0
    own: Counter[str] = field(default_factory=Counter)
    own_ever: Counter[str] = field(default_factory=Counter)
    public: Counter[str] = field(default_factory=Counter)
    entitled: Counter[str] = field(default_factory=Counter)
    kitty: list[str] = field(default_factory=list)
    kitty_public: bool = False
    kitty_known_by: set[int] = field(default_factory=set)
    tribute: tuple[int, int, list[str]] | None = None
    decl: list[str] | None = None
    finished: set[int] = field(default_factory=set)
    sealed: set[int] = field(default_factory=set)  # duplicate first plays, board not done
    last_result: dict[str, Any] | None = None

    def pool(self) -> Counter[str]:
        out = self.own_ever + self.public + self.entitled
        if self.kitty_public or (self.r is not None and self.r in self.kitty_known_by):
            out += Counter(self.kitty)
        return out

    def step(self, e: dict[str, Any], hand: int) -> None:
        t = e["type"]
        r = self.r
        if t not in KNOWN_EVENTS:
            raise AssertionError(f"event type {t!r} is not in the entitlement model: "
                                 "update tests/server/leakcheck.py from the rules")
        if t == "deal":
            if e.get("deal_no", 1) == 1:
                self.own_ever = Counter()
                self.public = Counter()
                self.entitled = Counter()
                self.tribute = None
            self.hand_no = hand
            self.own = Counter()
            self.kitty = list(e["deck"][4 * self.hand_size:])
            self.kitty_public = False
            self.kitty_known_by = set()
            self.decl = None
        elif t == "draw":
            if e["seat"] == r:
                self.own[e["card"]] += 1
                self.own_ever[e["card"]] += 1
        elif t == "declare":
            self.public.update(e["cards"])
            self.decl = list(e["cards"])
        elif t in ("trump", "kitty_flip", "dry_pot"):
            self.public.update(e.get("cards") or [])
        elif t in ("tribute", "return"):
            cards = e["cards"]
            if t == "tribute":
                self.tribute = (e["seat"], e["to"], list(cards))
            if r in (e["seat"], e["to"]):
                self.entitled.update(cards)
            if r == e["seat"]:
                self.own.subtract(cards)
            if r == e["to"]:
                self.own.update(cards)
                self.own_ever.update(cards)
        elif t == "kitty_shown":
            self.kitty_public = True
            self.public.update(e["cards"])
            assert Counter(e["cards"]) == Counter(self.kitty), "kitty_shown differs from kitty"
        elif t == "take_kitty":
            if r == e["seat"]:
                self.own.update(e["cards"])
                self.own_ever.update(e["cards"])
            self.kitty = []
        elif t == "bury":
            self.kitty = list(e["cards"])
            self.kitty_public = False
            self.kitty_known_by = {e["seat"]}
            if r == e["seat"]:
                self.own.subtract(e["cards"])
        elif t == "joker_announce":
            if e.get("shown") is not None:
                self.kitty_public = True
            for key in ("shown", "cards", "announced"):
                self.public.update(e.get(key) or [])
        elif t == "bury_jokers":
            for key in ("announced", "chose", "cards", "take", "shown", "kitty"):
                self.public.update(e.get(key) or [])
            if e.get("kitty") is not None:
                self.kitty = list(e["kitty"])
                self.kitty_public = True
            if r == e["seat"]:
                self.own.subtract(e["cards"])
                self.own.update(e["take"])
                self.own_ever.update(e["take"])
        elif t == "play":
            self.public.update(e["cards"])
            self.public.update(e.get("attempted") or [])
            if r == e["seat"]:
                self.own.subtract(e["cards"])
        elif t == "hand_end":
            if e.get("play") == 1:
                self.sealed.add(hand)
            else:
                self.finished.add(hand)
                self.finished.update(self.sealed)
                self.sealed.clear()
            self.last_result = {k: v for k, v in e.items() if k not in ("v", "type")}
            if hand in self.sealed:
                self.last_result = {k: v for k, v in self.last_result.items()
                                    if k not in HIDDEN["hand_end"]}
        self.own = +self.own


class Truth:
    """A finished table's record: the stream each recipient should get, and the truth."""

    def __init__(self, lines: list[dict[str, Any]]) -> None:
        self.header = lines[0]
        self.events = lines[1:]
        self.hand_size = from_options(self.header["rules"]).hand_size
        self.hand_of: dict[int, int] = {}
        hand = 0
        for e in self.events:
            if e["type"] == "deal":
                hand = e["hand"]
            self.hand_of[e["v"]] = hand
        self.streams = {r: [e for e in self.events if visible(e, r)]
                        for r in (0, 1, 2, 3, None)}


@dataclass
class Report:
    frames: int = 0
    events: int = 0
    views: int = 0
    cards_scanned: int = 0
    leaks: list[str] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)

    def add(self, other: Report) -> None:
        self.frames += other.frames
        self.events += other.events
        self.views += other.views
        self.cards_scanned += other.cards_scanned
        self.leaks.extend(other.leaks)
        self.wrong.extend(other.wrong)


def check(truth: Truth, r: int | None, frames: list[dict[str, Any]]) -> Report:
    """Check every frame one recipient received, in order."""
    rep = Report()
    stream = truth.streams[r]
    know = Knowledge(r, truth.hand_size)
    done = 0  # events of the truth (all of them, in v order) folded into ``know``
    frontier = 0  # r's highest seq so far

    def advance(seq: int) -> None:
        nonlocal done
        if seq <= 0:
            return
        target_v = stream[seq - 1]["v"]
        while done < len(truth.events) and truth.events[done]["v"] <= target_v:
            e = truth.events[done]
            know.step(e, truth.hand_of[e["v"]])
            done += 1

    def leak(where: str, text: str) -> None:
        rep.leaks.append(f"recipient {r} frame {rep.frames} {where}: {text}")

    def wrong(where: str, text: str) -> None:
        rep.wrong.append(f"recipient {r} frame {rep.frames} {where}: {text}")

    def backstop(where: str, value: Any) -> None:
        pool = know.pool()
        for path, cards in card_lists(value, where):
            rep.cards_scanned += len(cards)
            over = Counter(cards) - pool
            if over:
                leak(path, f"cards beyond what the recipient may know: {sorted(over.elements())}")

    for f in frames:
        rep.frames += 1
        t = f.get("t")
        if t in ("events", "snapshot"):
            seq = f["seq"]
            if seq > len(stream):
                wrong("seq", f"seq {seq} beyond the {len(stream)} events of the stream")
                continue
            if seq < frontier and t == "events" and not f.get("resync"):
                wrong("seq", f"seq went back from {frontier} to {seq}")
            frontier = max(frontier, seq)
            advance(frontier)
            for e in f["events"]:
                rep.events += 1
                _check_event(e, stream, truth, know, r, leak, wrong)
            if f.get("view") is not None:
                rep.views += 1
                _check_view(f["view"], truth, know, r, leak, wrong)
                # A failed throw's stopping cards are shown to the table by rule (Rule L):
                # public once played out, checked apart in _check_view.
                rest = {k: v for k, v in f["view"].items()
                        if k not in ("last_result", "failed_throw")}
                backstop("view", rest)
            turn = f.get("turn") or {}
            backstop("turn", turn)
        elif t == "hint":
            backstop("hint", f.get("action"))
            action = f.get("action")
            if action is not None and r is not None:
                mine = Counter(action.get("cards") or [])
                if action.get("type") != "bury_jokers" and mine - know.own:
                    leak("hint", f"suggests cards not in the hand: {action}")
        else:
            # welcome, table, ack, error, chat, pong: no card at all, but for a refusal's
            # cards of the recipient's own hand that satisfy the rule.
            err = f.get("error") if t == "ack" else None
            if isinstance(err, dict) and "cards" in err:
                mine = Counter(err["cards"])
                rep.cards_scanned += sum(mine.values())
                if r is None or mine - know.own:
                    leak("ack.error.cards", f"cards not in the recipient's hand: {err['cards']}")
                f = {**f, "error": {k: v for k, v in err.items() if k != "cards"}}
            for path, cards in card_lists(f, t or "?"):
                rep.cards_scanned += len(cards)
                if t == "chat" and path.endswith(".text"):
                    continue
                leak(path, f"cards in a {t} frame: {cards}")
    return rep


def _check_event(e: dict[str, Any], stream: list[dict[str, Any]], truth: Truth,
                 know: Knowledge, r: int | None, leak: Any, wrong: Any) -> None:
    seq = e.get("seq")
    if not isinstance(seq, int) or not 1 <= seq <= len(stream):
        wrong("event", f"bad seq {seq!r}")
        return
    want = stream[seq - 1]
    where = f"event seq {seq} ({want['type']})"
    if e.get("type") != want["type"]:
        wrong(where, f"type {e.get('type')} where the stream has {want['type']}")
        return
    hand = truth.hand_of[want["v"]]
    revealed = hand in know.finished
    allowed = (set(want) - {"v"}) | {"seq", "hand"}
    secret = set(HIDDEN.get(want["type"], ()))
    if not revealed and (r not in audience(want) or hand in know.sealed):
        allowed -= secret
    extra = set(e) - allowed
    if extra:
        leak(where, f"fields it may not see: {sorted(extra)}")
    for k, v in e.items():
        if k == "seq":
            continue
        if k == "hand":
            if v != hand:
                wrong(where, f"hand {v} != {hand}")
            continue
        if k in want and v != want[k]:
            wrong(where, f"{k}={v!r} differs from the record ({want[k]!r})")


def _check_decision(v: dict[str, Any], know: Knowledge, r: int | None, leak: Any) -> None:
    """The seat's decision: none for a spectator; while drawing every seat's (the asked one
    is not told apart), with declarations of its own cards only; otherwise only the seat
    the view says is to act has one."""
    d = v.get("decision")
    if d is not None and set(d) != {"kind", "count", "options"}:
        leak("view.decision", f"fields outside the allow-list: {sorted(set(d))}")
    if r is None or v.get("phase") in ("deal", "over"):
        if d is not None:
            leak("view.decision", f"a decision for {r} in {v.get('phase')}")
        return
    if v.get("phase") == "draw":
        if d is None or d["kind"] != "declare":
            leak("view.decision", "the draw's decision differs between seats")
            return
        for o in d["options"]:
            if Counter(o["cards"]) - know.own:
                leak("view.decision.options", f"cards not in the seat's hand: {o}")
    elif (d is not None) != (v.get("to_act") == r):
        leak("view.decision", f"{d} while seat {v.get('to_act')} is to act")


def _check_view(v: dict[str, Any], truth: Truth, know: Knowledge, r: int | None,
                leak: Any, wrong: Any) -> None:
    extra = set(v) - VIEW_KEYS
    if extra:
        leak("view", f"fields outside the allow-list: {sorted(extra)}")
    if v.get("seat") != r:
        wrong("view.seat", f"{v.get('seat')} != {r}")
    if v.get("phase") == "draw" and v.get("to_act") not in (None, r):
        leak("view.to_act", f"tells that seat {v.get('to_act')} is asked to declare")
    hand = v.get("hand")
    if r is None:
        if hand is not None:
            leak("view.hand", "a spectator got a hand")
    elif hand is None or Counter(hand) != know.own:
        extra_cards = Counter(hand or []) - know.own
        if extra_cards:
            leak("view.hand", f"cards not in the seat's hand: {sorted(extra_cards.elements())}")
        else:
            wrong("view.hand", "misses cards of the seat's hand")
    _check_decision(v, know, r, leak)
    kitty = v.get("kitty") or {}
    kc = kitty.get("cards")
    if kc:
        if not (know.kitty_public or (r is not None and r in know.kitty_known_by)):
            leak("view.kitty.cards", "the hidden kitty")
        elif Counter(kc) != Counter(know.kitty):
            wrong("view.kitty.cards", f"{kc} != {know.kitty}")
    turned = Counter(kitty.get("turned") or [])
    if turned - know.public:
        leak("view.kitty.turned", f"{sorted((turned - know.public).elements())}")
    trib = v.get("tribute") or {}
    extra_t = set(trib) - {"n", "kind", "from", "to", "cards"}
    if extra_t:
        leak("view.tribute", f"fields outside the allow-list: {sorted(extra_t)}")
    if trib.get("cards"):
        if know.tribute is None or r not in know.tribute[:2]:
            leak("view.tribute.cards", "tribute cards of others")
        elif Counter(trib["cards"]) != Counter(know.tribute[2]):
            wrong("view.tribute.cards", f"{trib['cards']} != {know.tribute[2]}")
    pending = Counter(v.get("pickup_pending") or [])
    if pending - know.public:
        leak("view.pickup_pending", f"{sorted((pending - know.public).elements())}")
    decl = v.get("declaration")
    if decl is not None and know.decl is not None and list(decl.get("cards", [])) != know.decl:
        wrong("view.declaration", f"{decl} != {know.decl}")
    trick = v.get("trick") or {}
    for p in trick.get("plays") or []:
        if Counter(p.get("cards") or []) - know.public:
            leak("view.trick", f"unplayed cards {p}")
    for t in v.get("tricks") or []:
        for p in t.get("plays") or []:
            if Counter(p) - know.public:
                leak("view.tricks", f"unplayed cards {p}")
    throw = v.get("failed_throw")
    if throw is not None:
        if Counter(throw["attempted"]) - know.public or Counter(throw["cards"]) - know.public:
            leak("view.failed_throw", f"unplayed cards {throw}")
        if throw["blocker"] == throw["seat"] or not throw["beats"]:
            wrong("view.failed_throw", f"no other seat stops it: {throw}")
    last = v.get("last_result")
    if last is not None and know.last_result is not None \
            and know.last_result.get("hand") in know.sealed:
        shown = sorted(set(last) & set(HIDDEN["hand_end"]))
        if shown:
            leak("view.last_result", f"the sealed first play's {shown}")
    if last is not None and last != know.last_result:
        wrong("view.last_result", "differs from the last finished hand's result")
