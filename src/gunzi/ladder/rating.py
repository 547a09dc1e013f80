"""Team-aware ratings (openskill Plackett-Luce), 2 vs 2, one update per ladder result. Pure.

A seat's team wins when its points for the result are higher (a tie is a draw).
A bot name can fill several seats, even on both teams; it is one identity, so
its rating moves by the mean of its seats' changes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from openskill.models import PlackettLuce

MODEL = PlackettLuce()
START = (MODEL.mu, MODEL.sigma)
TEAMS = ((0, 2), (1, 3))


def ordinal(mu: float, sigma: float) -> float:
    """The conservative rating shown on the ladder (μ − 3σ)."""
    return float(MODEL.rating(mu=mu, sigma=sigma).ordinal())


def team_ranks(team_points: tuple[int, int]) -> list[float]:
    """openskill ranks of the two teams (lower is better; equal is a draw)."""
    a, b = team_points
    return [1.0, 2.0] if a > b else [2.0, 1.0] if b > a else [1.0, 1.0]


def update(players: Sequence[str], team_points: tuple[int, int],
           current: Mapping[str, tuple[float, float]]) -> dict[str, tuple[float, float]]:
    """New (mu, sigma) of every identity seated (``players`` per seat) after one result."""
    teams = [[MODEL.rating(mu=current[players[s]][0], sigma=current[players[s]][1])
              for s in seats] for seats in TEAMS]
    rated = MODEL.rate(teams, ranks=team_ranks(team_points))
    changes: dict[str, list[tuple[float, float]]] = {}
    for t, seats in enumerate(TEAMS):
        for i, s in enumerate(seats):
            r = rated[t][i]
            changes.setdefault(players[s], []).append((r.mu - current[players[s]][0], r.sigma))
    out = {}
    for key, seat_changes in changes.items():
        mu0 = current[key][0]
        n = len(seat_changes)
        out[key] = (mu0 + sum(d for d, _ in seat_changes) / n,
                    sum(sg for _, sg in seat_changes) / n)
    return out
