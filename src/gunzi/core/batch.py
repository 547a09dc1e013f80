"""Batch simulation on the play core: N play phases, in this process or in K workers.

Seeds fix everything: hand i of a batch with seed s is dealt and played from
``random.Random(s * 1_000_003 + i)``, so a batch gives the same outcomes however it
is split among workers.
"""

from __future__ import annotations

import random
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from gunzi.core.gunzi_play import play_random, random_deal


@dataclass(frozen=True, slots=True)
class Outcome:
    """One play phase's result: trick points per team (0 = seats 0+2), the last trick's
    winner (扣底 is decided by it) and, on request, the trick winners in order."""

    points: tuple[int, int]
    last_winner: int
    winners: tuple[int, ...] = ()


def _hand_rng(seed: int, i: int) -> random.Random:
    return random.Random(seed * 1_000_003 + i)


def play_range(seed: int, start: int, stop: int, records: bool = False) -> list[Outcome]:
    """Hands ``start``..``stop - 1`` of the batch ``seed``, random policy."""
    out: list[Outcome] = []
    for i in range(start, stop):
        rng = _hand_rng(seed, i)
        game = play_random(random_deal(rng), rng)
        out.append(Outcome((game.points[0], game.points[1]), game.last_winner,
                           tuple(game.winners) if records else ()))
    return out


def simulate(hands: int, seed: int, workers: int = 1, records: bool = False) -> list[Outcome]:
    """Play ``hands`` random play phases; with ``workers`` > 1 in that many processes."""
    if workers <= 1 or hands < 2 * workers:
        return play_range(seed, 0, hands, records)
    step = -(-hands // workers)
    bounds = [(a, min(a + step, hands)) for a in range(0, hands, step)]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        parts = pool.map(play_range, [seed] * len(bounds), [a for a, _ in bounds],
                         [b for _, b in bounds], [records] * len(bounds))
        return [o for part in parts for o in part]
