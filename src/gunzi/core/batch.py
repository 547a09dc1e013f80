"""Batch simulation on the play cores: N play phases, in this process or in K workers.

Seeds fix everything: hand i of a batch with seed s is dealt and played from
``random.Random(s * 1_000_003 + i)``, so a batch gives the same outcomes however it
is split among workers. 打滚子 phases are played by :mod:`gunzi.core.gunzi_play`
(uniform random legal plays, 死棒), classic ones by :mod:`gunzi.core.classic_play`
(the engine's random player, under the rule set's trick options).
"""

from __future__ import annotations

import random
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from gunzi.core import classic_play
from gunzi.core.gunzi_play import play_random, random_deal
from gunzi.engine.classic_policy import policy_of
from gunzi.engine.rules import Ruleset
from gunzi.engine.variant import variant_of


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


def _hand_rng(seed: int, i: int) -> random.Random:
    return random.Random(seed * 1_000_003 + i)


def play_range(seed: int, start: int, stop: int, records: bool = False,
               rules: Ruleset | None = None) -> list[Outcome]:
    """Hands ``start``..``stop - 1`` of the batch ``seed``, random players; ``rules``: a
    classic rule set, or None (or 打滚子) for the 打滚子 core."""
    # the 打滚子 core plays games whose leads are same-card groups; classic has its own
    if rules is not None and not variant_of(rules).same_card_leads:
        return _classic_range(seed, start, stop, records, rules)
    out: list[Outcome] = []
    for i in range(start, stop):
        rng = _hand_rng(seed, i)
        game = play_random(random_deal(rng), rng)
        out.append(Outcome((game.points[0], game.points[1]), game.last_winner,
                           tuple(game.winners) if records else ()))
    return out


def _classic_range(seed: int, start: int, stop: int, records: bool, rules: Ruleset
                   ) -> list[Outcome]:
    pol = policy_of(rules)
    out: list[Outcome] = []
    for i in range(start, stop):
        rng = _hand_rng(seed, i)
        game = classic_play.play_random(
            classic_play.random_deal(rng, rules.decks, rules.hand_size, pol), rng)
        out.append(Outcome((game.points[0], game.points[1]), game.last_winner,
                           tuple(game.winners) if records else (), sum(game.failed),
                           game.kitty_multiplier(rules.kitty_multiplier)))
    return out


def simulate(hands: int, seed: int, workers: int = 1, records: bool = False,
             rules: Ruleset | None = None) -> list[Outcome]:
    """Play ``hands`` random play phases; with ``workers`` > 1 in that many processes."""
    if workers <= 1 or hands < 2 * workers:
        return play_range(seed, 0, hands, records, rules)
    step = -(-hands // workers)
    bounds = [(a, min(a + step, hands)) for a in range(0, hands, step)]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        parts = pool.map(play_range, [seed] * len(bounds), [a for a, _ in bounds],
                         [b for _, b in bounds], [records] * len(bounds),
                         [rules] * len(bounds))
        return [o for part in parts for o in part]
