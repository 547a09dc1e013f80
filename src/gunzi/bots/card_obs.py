"""The numeric observation of a card seat, computed from its information state only.

:func:`encode` reads the plain-data view that ``Match.information_state(seat)`` returns
(:func:`gunzi.engine.view.view`, the one place that decides what a seat may know) plus the
public ruleset, and nothing else: another seat's hidden cards cannot reach it. Seats are
relative (0 = me, 1 = next to act after me, 2 = partner, 3 = the one before me); card sets
are 54 face counts divided by 3. :data:`LAYOUT` lists the segments in order, and
docs/research.md explains each.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from gunzi.engine import cards as C
from gunzi.engine.order import order_for
from gunzi.engine.rules import Ruleset
from gunzi.engine.state import Phase

N = C.NUM_TYPES
PHASES = tuple(Phase)
# (name, length), in order. Bump OBS_VERSION when it changes.
LAYOUT: tuple[tuple[str, int], ...] = (
    ("hand", N),  # own cards
    ("played", 4 * N),  # every card each seat has played this hand (current trick included)
    ("trick", 4 * N),  # the current trick, per seat
    ("kitty", N),  # the whole kitty, when this seat may see it (shown, or it buried it)
    ("kitty_known", 1),
    ("tribute", N),  # tribute cards this seat gave or received
    ("building", N),  # cards picked so far in the decision being built (card by card)
    ("building_take", 1),  # 1 once TAKE was chosen (the picks after it are kitty cards)
    ("trump", 5),  # S H C D, or none yet
    ("level", 13),  # rank played this hand: 2 … A
    ("team_levels", 2 * 14),  # own team, other team: 2 … A or passed
    ("dealer", 5),  # relative seat, or unknown
    ("leader", 5),  # relative seat leading the current trick, or none
    ("declarer", 5),  # relative seat of the standing declaration, or none
    ("voids", 4 * 5),  # per relative seat: shown void in class S H C D, trump
    ("hand_sizes", 4),  # cards held / hand size
    ("points", 2),  # trick points of own team, other team / 100 per deck
    ("scores", 4),  # cumulative A12 scores / 10 (打滚子), clipped to ±50
    ("phase", len(PHASES)),
    ("first_hand", 1),
)
OBS_SIZE = sum(n for _, n in LAYOUT)
OBS_VERSION = 1


def offsets(layout: Sequence[tuple[str, int]]) -> dict[str, int]:
    """Where each named segment of ``layout`` starts."""
    out: dict[str, int] = {}
    at = 0
    for name, n in layout:
        out[name] = at
        at += n
    return out


OFFSETS = offsets(LAYOUT)


def _rel(seat: int | None, me: int) -> int:
    return 4 if seat is None or seat < 0 else (seat - me) % 4


# A view names its cards ("10H"); the canonical names straight to ids, any other
# spelling through the parser. Three quarters of an encoding went to parsing names.
_FACE = {name: i for i, name in enumerate(C.NAMES)}


def _face(text: str) -> int:
    face = _FACE.get(text)
    return C.parse(text) if face is None else face


def _counts(out: np.ndarray, at: int, names: Sequence[str]) -> None:
    for text in names:
        out[at + _face(text)] += 1.0 / 3


def encode(view: Mapping[str, Any], rules: Ruleset, building: Sequence[int] = (),
           taking: bool = False) -> np.ndarray:
    """The observation vector of ``view['seat']`` (float32, :data:`OBS_SIZE` long)."""
    me = view["seat"]
    out = np.zeros(OBS_SIZE, dtype=np.float32)
    o = OFFSETS
    _counts(out, o["hand"], view["hand"] or ())
    trick = view["trick"]
    tricks = [(t["leader"], t["plays"]) for t in view["tricks"]]
    current = [p["cards"] for p in trick["plays"]]
    if current:
        tricks.append((trick["plays"][0]["seat"], current))
    for p in trick["plays"]:
        _counts(out, o["trick"] + N * _rel(p["seat"], me), p["cards"])
    for leader, plays in tricks:
        for i, cards in enumerate(plays):
            _counts(out, o["played"] + N * _rel((leader + i) % 4, me), cards)
    kitty = view["kitty"]["cards"]
    if kitty is not None:
        _counts(out, o["kitty"], kitty)
        out[o["kitty_known"]] = 1
    _counts(out, o["tribute"], view["tribute"].get("cards") or ())
    for c in building:
        out[o["building"] + c] += 1.0 / 3
    out[o["building_take"]] = float(taking)
    trump = view["trump"]
    trump_index = -1 if trump is None else C.SUITS.index(trump)
    out[o["trump"] + (4 if trump_index < 0 else trump_index)] = 1
    level = C.RANKS.index(view["level"])
    out[o["level"] + level] = 1
    team = me % 2
    for k, t in enumerate((team, 1 - team)):
        lv = view["levels"][t]
        out[o["team_levels"] + 14 * k + (13 if lv == "passed" else C.RANKS.index(lv))] = 1
    out[o["dealer"] + _rel(view["dealer"], me)] = 1
    out[o["leader"] + _rel(trick["leader"] if current else None, me)] = 1
    decl = view["declaration"]
    out[o["declarer"] + _rel(None if decl is None else decl["seat"], me)] = 1
    if tricks:
        cls = order_for(level, trump_index, rules.permanent_twos).cls
        for leader, plays in tricks:
            lead = [_face(x) for x in plays[0]]
            led = cls[lead[0]]
            for i, cards in enumerate(plays[1:], start=1):
                if sum(1 for x in cards if cls[_face(x)] == led) < len(lead):
                    out[o["voids"] + 5 * _rel((leader + i) % 4, me) + led] = 1
    for s, size in enumerate(view["hand_sizes"]):
        out[o["hand_sizes"] + _rel(s, me)] = size / rules.hand_size
    for k, t in enumerate((team, 1 - team)):
        out[o["points"] + k] = view["points"][t] / (100 * rules.decks)
    for s, score in enumerate(view["scores"]):
        out[o["scores"] + _rel(s, me)] = max(-50.0, min(50.0, score / 10))
    out[o["phase"] + PHASES.index(Phase(view["phase"]))] = 1
    out[o["first_hand"]] = float(bool(view["first_hand"]))
    return out
