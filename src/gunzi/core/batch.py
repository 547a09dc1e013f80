"""Batch simulation on the play cores: N play phases, in this process or in K workers.

Seeds fix everything: hand i of a batch with seed s is dealt and played from
``random.Random(s * 1_000_003 + i)``, so a batch gives the same outcomes however it
is split among workers. 打滚子 phases are played by :mod:`gunzi.core.gunzi_play` with
``policy="random"`` (uniform random legal plays, 死棒) or ``policy="rule"`` (the rule
bot's card play, :mod:`gunzi.core.gunzi_rule`, every seat with its own card memory; the
leader is the dealer and alone knows the six cards left out as the kitty); classic ones by
:mod:`gunzi.core.classic_play` (the engine's random player, under the rule set's trick
options). ``log=True`` adds each hand's record: its deal and every play in order.
"""

from __future__ import annotations

import random
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from gunzi.core import classic_play, gunzi_rule
from gunzi.core.gunzi_play import deal_random, play_random, start
from gunzi.engine.cards import names
from gunzi.engine.classic_policy import policy_of
from gunzi.engine.order import Order
from gunzi.engine.rules import Ruleset
from gunzi.engine.variant import variant_of

POLICIES = ("random", "rule")  # who plays a batch's 打滚子 phases (classic: random)


@dataclass(frozen=True, slots=True)
class Deal:
    """Where a play phase starts: four hands as counts per card id, the order's level
    (rank index), trump suit (-1: 无主) and permanent 2s, and the seat that leads."""

    hands: tuple[tuple[int, ...], ...]
    level: int
    trump: int
    permanent_twos: bool
    leader: int

    @staticmethod
    def of(hands: list[list[int]], order: Order, leader: int) -> Deal:
        return Deal(tuple(tuple(h) for h in hands), order.level, order.trump,
                    order.permanent_twos, leader)


@dataclass(frozen=True, slots=True)
class Outcome:
    """One play phase's result: trick points per team (0 = seats 0+2), the last trick's
    winner (扣底 is decided by it) and, on request, the trick winners in order. Classic
    adds the failed throws and the kitty multiplier the last trick's winning play gives
    (Rule K, under the rule set's mode; 0 for 打滚子)."""

    points: tuple[int, int]
    last_winner: int
    winners: tuple[int, ...] = ()
    failed_throws: int = 0
    kitty_multiplier: int = 0
    deal: Deal | None = None  # with log=True: the deal, and every (seat, cards) played
    plays: tuple[tuple[int, tuple[int, ...]], ...] = ()


def record(outcome: Outcome, hand: int) -> dict[str, Any]:
    """One hand of a ``log=True`` batch as a JSON-ready record (cards by name): the deal,
    the plays in order, the trick points per team and the last trick's winner."""
    deal = outcome.deal
    if deal is None:
        raise ValueError("record() needs an outcome of a batch played with log=True")
    return {
        "hand": hand, "level": deal.level, "trump": deal.trump,
        "permanent_twos": deal.permanent_twos, "leader": deal.leader,
        "hands": [names(c for c, k in enumerate(h) for _ in range(k)) for h in deal.hands],
        "plays": [[seat, names(cards)] for seat, cards in outcome.plays],
        "points": list(outcome.points), "last_winner": outcome.last_winner,
        "failed_throws": outcome.failed_throws,
    }


def _hand_rng(seed: int, i: int) -> random.Random:
    return random.Random(seed * 1_000_003 + i)


def play_range(seed: int, start_: int, stop: int, records: bool = False,
               rules: Ruleset | None = None, policy: str = "random", log: bool = False
               ) -> list[Outcome]:
    """Hands ``start_``..``stop - 1`` of the batch ``seed``; ``rules``: a classic rule set,
    or None (or 打滚子) for the 打滚子 core; ``records``: keep the trick winners; ``log``:
    keep the deal and the plays."""
    if policy not in POLICIES:
        raise ValueError(f"policy {policy!r}: one of {', '.join(POLICIES)}")
    # the 打滚子 core plays games whose leads are same-card groups; classic has its own
    if rules is not None and not variant_of(rules).same_card_leads:
        if policy != "random":
            raise ValueError("classic batches play random players only (policy='random')")
        return _classic_range(seed, start_, stop, records, rules, log)
    out: list[Outcome] = []
    for i in range(start_, stop):
        rng = _hand_rng(seed, i)
        hands, order, leader = deal_random(rng)
        deal = Deal.of(hands, order, leader) if log else None
        game = start(hands, order, leader, False)
        if log:
            game.log = []
        if policy == "rule":  # the six cards nobody holds are the kitty, the leader's
            kitty = [3 - sum(hands[s][c] for s in range(4)) for c in range(len(hands[0]))]
            gunzi_rule.play_out(game, gunzi_rule.Memory(kitty, leader, False))
        else:
            play_random(game, rng)
        out.append(Outcome((game.points[0], game.points[1]), game.last_winner,
                           tuple(game.winners) if records else (), deal=deal,
                           plays=tuple(game.log or ())))
    return out


def _classic_range(seed: int, start_: int, stop: int, records: bool, rules: Ruleset,
                   log: bool) -> list[Outcome]:
    pol = policy_of(rules)
    out: list[Outcome] = []
    for i in range(start_, stop):
        rng = _hand_rng(seed, i)
        hands, order, leader = classic_play.deal_random(rng, rules.decks, rules.hand_size)
        game = classic_play.start(hands, order, leader, pol)
        if log:
            game.log = []
        classic_play.play_random(game, rng)
        out.append(Outcome((game.points[0], game.points[1]), game.last_winner,
                           tuple(game.winners) if records else (), sum(game.failed),
                           game.kitty_multiplier(rules.kitty_multiplier),
                           Deal.of(hands, order, leader) if log else None,
                           tuple(game.log or ())))
    return out


def simulate(hands: int, seed: int, workers: int = 1, records: bool = False,
             rules: Ruleset | None = None, policy: str = "random", log: bool = False
             ) -> list[Outcome]:
    """Play ``hands`` play phases; with ``workers`` > 1 in that many processes."""
    if workers <= 1 or hands < 2 * workers:
        return play_range(seed, 0, hands, records, rules, policy, log)
    step = -(-hands // workers)
    bounds = [(a, min(a + step, hands)) for a in range(0, hands, step)]
    n = len(bounds)
    with ProcessPoolExecutor(max_workers=workers) as pool:
        parts = pool.map(play_range, [seed] * n, [a for a, _ in bounds],
                         [b for _, b in bounds], [records] * n, [rules] * n, [policy] * n,
                         [log] * n)
        return [o for part in parts for o in part]
