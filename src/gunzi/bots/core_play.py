"""The rule bot's 打滚子 card play taken from a decision and made on the play core.

:func:`core_play` answers a 打滚子 play decision with :func:`gunzi.core.gunzi_rule.choose`:
the seat's own hand, the trick in progress and the card memory of the finished tricks
(and the kitty, when the view shows it), nothing else. It plays what
:func:`gunzi.bots.rule_play.rule_play` plays (``RuleBot(core=True)`` uses it), so it is
the plain-bot form of the search bot's default rollout policy.
"""

from __future__ import annotations

from gunzi.bots.base import Decision
from gunzi.bots.rule_core import ids, order_of
from gunzi.core import gunzi_rule
from gunzi.core.gunzi_play import start
from gunzi.engine.cards import NUM_TYPES


def core_play(d: Decision) -> tuple[int, ...]:
    """The play (sorted card ids) for a 打滚子 play decision."""
    view = d.view
    seat = d.seat
    order = order_of(view, d.rules)
    live = d.rules.follow == "live"
    shown = view["kitty"].get("cards")
    kitty = [0] * NUM_TYPES
    if shown is not None:
        for c in ids(shown):
            kitty[c] += 1
    dealer = view["dealer"]
    mem = gunzi_rule.Memory(kitty, -1 if dealer is None else dealer, shown is not None,
                            d.rules.decks, d.rules.kitty_size)
    cls = list(order.cls)
    for t in view["tricks"]:
        leader = t["leader"]
        plays = [ids(p) for p in t["plays"]]
        led = cls[plays[0][0]]
        for i, p in enumerate(plays):
            mem.note((leader + i) % 4, p, len(plays[0]) if i else 0, led, cls, live)
    trick = [(p["seat"], ids(p["cards"])) for p in view["trick"]["plays"]]
    hands = [[0] * NUM_TYPES for _ in range(4)]
    hands[seat] = list(d.hand)
    game = start(hands, order, seat, live)
    game.cards_left = sum(d.hand)  # the seat to act has not played to this trick
    if trick:
        lead = trick[0][1]
        game.lead_n = len(lead)
        game.led = cls[lead[0]]
        for s, p in trick:
            mem.note(s, p, 0 if p is lead else len(lead), game.led, cls, live)
            game.trick.append(p)
            game.trick_seats.append(s)
    return gunzi_rule.choose(game, mem)
