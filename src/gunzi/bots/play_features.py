"""Numeric features of one candidate 打滚子 card play, from the seat's view only.

The ``learned`` bot's advantage net (:mod:`gunzi.bots.advantage_net`) scores a candidate
play as the seat's observation (:func:`gunzi.bots.card_obs.encode`) followed by these
features. They say what a player sees at a glance and a net would have to learn from raw
counts: the cards of the play, its class and size, its points, whether it would win the
trick as it stands, how many unseen cards of its class beat it, and whether it is the rule
bot's own choice (the net is trained on each play's value *relative to* that choice,
so that choice scores 0). :data:`LAYOUT` lists them; bump :data:`FEATURES_VERSION` when
it changes (saved nets name the version they were trained on).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from gunzi.bots.card_obs import offsets
from gunzi.engine import cards as C
from gunzi.engine.gunzi_tricks import trick_winner
from gunzi.engine.order import Order, order_for
from gunzi.engine.rules import Ruleset

N = C.NUM_TYPES
LAYOUT: tuple[tuple[str, int], ...] = (
    ("cards", N),  # the play's cards as face counts / 3
    ("size", 3),  # one, two or three cards
    ("class", 5),  # S H C D, trump (of the play's first card)
    ("points", 1),  # the play's points / 30
    ("identical", 1),  # all copies of one face (a play that can win a trick)
    ("wins_now", 1),  # it would be the trick's best play so far (a lead: 1)
    ("partner_winning", 1),  # the partner holds the trick as it stands
    ("trick_points", 1),  # points already in the trick / 100
    ("beaten_by", 1),  # unseen cards of the play's class stronger than its card / 12
    ("power", 1),  # the card's rank within its class / 20
    ("is_rule", 1),  # the rule bot's choice
)
SIZE = sum(n for _, n in LAYOUT)
FEATURES_VERSION = 1
OFFSETS = offsets(LAYOUT)


def order_of(view: Mapping[str, Any], rules: Ruleset) -> Order:
    trump = view["trump"]
    return order_for(C.RANKS.index(view["level"]), -1 if trump is None else
                     C.SUITS.index(trump), rules.permanent_twos)


def unseen(view: Mapping[str, Any], hand: Sequence[int], decks: int) -> list[int]:
    """Copies of each face this seat has not seen: not in its hand, not played, not in a
    kitty it knows."""
    left = [decks - hand[c] for c in range(N)]
    trick = view["trick"]["plays"]
    seen: list[str] = [x for p in trick for x in p["cards"]]
    for t in view["tricks"]:
        for p in t["plays"]:
            seen.extend(p)
    kitty = view["kitty"]["cards"]
    if kitty is not None:
        seen.extend(kitty)
    for text in seen:
        left[C.parse(text)] -= 1
    return left


def features(view: Mapping[str, Any], rules: Ruleset, hand: Sequence[int],
             plays: Sequence[Sequence[int]], rule_index: int) -> np.ndarray:
    """The (len(plays), :data:`SIZE`) features of each candidate play (card ids)."""
    order = order_of(view, rules)
    cls, power = order.cls, order.power
    o = OFFSETS
    out = np.zeros((len(plays), SIZE), dtype=np.float32)
    me = view["seat"]
    trick = [(p["seat"], C.parse_many(p["cards"])) for p in view["trick"]["plays"]]
    current = [cards for _, cards in trick]
    winner = trick[trick_winner(current, order)][0] if trick else None
    trick_pts = sum(C.POINTS[c] for cards in current for c in cards)
    left = unseen(view, hand, rules.decks)
    stronger: dict[int, int] = {}
    for i, cards in enumerate(plays):
        row = out[i]
        first = cards[0]
        for c in cards:
            row[o["cards"] + c] += 1.0 / 3
        row[o["size"] + min(len(cards), 3) - 1] = 1
        row[o["class"] + cls[first]] = 1
        row[o["points"]] = sum(C.POINTS[c] for c in cards) / 30
        row[o["identical"]] = float(cards.count(first) == len(cards))
        row[o["wins_now"]] = float(not current or trick_winner([*current, tuple(cards)],
                                                                order) == len(current))
        row[o["partner_winning"]] = float(winner is not None and winner == (me + 2) % 4)
        row[o["trick_points"]] = trick_pts / 100
        if first not in stronger:
            stronger[first] = sum(left[c] for c in order.class_cards[cls[first]]
                                  if power[c] > power[first])
        row[o["beaten_by"]] = stronger[first] / 12
        row[o["power"]] = power[first] / 20
        row[o["is_rule"]] = float(i == rule_index)
    return out
