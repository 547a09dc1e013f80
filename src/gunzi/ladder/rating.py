"""Team-aware ratings (openskill Plackett-Luce), one update per ladder result. Pure.

Cards are 2 vs 2 (seats 0+2 against 1+3); 步步为营 is free-for-all (one team per seat).
Teams are ranked by their points for the result (more is better, equal is a tie).
A bot name can fill several seats, even on both teams; it is one identity, so
its rating moves by the mean of its seats' changes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from openskill.models import PlackettLuce

from gunzi.ladder.result import PARTNERS

MODEL = PlackettLuce()
START = (MODEL.mu, MODEL.sigma)


def ordinal(mu: float, sigma: float) -> float:
    """The conservative rating shown on the ladder (μ − 3σ)."""
    return float(MODEL.rating(mu=mu, sigma=sigma).ordinal())


def team_ranks(team_points: Sequence[int]) -> list[float]:
    """openskill ranks of the teams (1 + the number of teams with more points: lower is
    better, equal points are a tie)."""
    return [1.0 + sum(1 for q in team_points if q > p) for p in team_points]


def update(players: Sequence[str], team_points: Sequence[int],
           current: Mapping[str, tuple[float, float]],
           seat_teams: Sequence[Sequence[int]] = PARTNERS) -> dict[str, tuple[float, float]]:
    """New (mu, sigma) of every identity seated (``players`` per seat) after one result;
    ``seat_teams``: the seats of each team, in the order of ``team_points``."""
    teams = [[MODEL.rating(mu=current[players[s]][0], sigma=current[players[s]][1])
              for s in seats] for seats in seat_teams]
    rated = MODEL.rate(teams, ranks=team_ranks(team_points))
    changes: dict[str, list[tuple[float, float]]] = {}
    for t, seats in enumerate(seat_teams):
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
