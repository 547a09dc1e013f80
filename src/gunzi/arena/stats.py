"""Statistics of a duplicate run: mean and 95% CI of pair means, percentiles, and the SPRT.

The unit of observation is the *deal pair*: both hands of one deal, A's net
levels per hand averaged over the two seatings. Pairs are independent, hands of
one pair are not, so every interval is computed over pair means.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

Z95 = 1.96


def mean_sd(values: Sequence[float]) -> tuple[float, float]:
    """Mean and sample standard deviation (n - 1); sd is 0 for fewer than two values."""
    n = len(values)
    if n == 0:
        raise ValueError("no values")
    mean = math.fsum(values) / n
    if n < 2:
        return mean, 0.0
    var = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, math.sqrt(var)


def mean_ci95(values: Sequence[float]) -> dict[str, Any]:
    """``{n, mean, sd, ci95: [lo, hi]}`` with ci95 = mean ± 1.96·sd/√n (None below 2 values)."""
    n = len(values)
    if n == 0:
        return {"n": 0, "mean": None, "sd": None, "ci95": None}
    mean, sd = mean_sd(values)
    if n < 2:
        return {"n": 1, "mean": mean, "sd": None, "ci95": None}
    half = Z95 * sd / math.sqrt(n)
    return {"n": n, "mean": mean, "sd": sd, "ci95": [mean - half, mean + half]}


def percentile(values: Sequence[float], q: float) -> float | None:
    """The q-th percentile (0..100) with linear interpolation between order statistics."""
    if not values:
        return None
    data = sorted(values)
    if len(data) == 1:
        return data[0]
    pos = (len(data) - 1) * q / 100.0
    lo = math.floor(pos)
    hi = min(lo + 1, len(data) - 1)
    return data[lo] + (data[hi] - data[lo]) * (pos - lo)


ACCEPT_H0 = "accept H0"
ACCEPT_H1 = "accept H1"
CONTINUE = "continue"


@dataclass
class Sprt:
    """Wald's SPRT on the mean of pair means, normal approximation with running variance.

    With x_i the pair means, S_n their sum and s_n² their running sample variance:

        LLR_n = (δ1 − δ0) / s_n² · (S_n − n·(δ0 + δ1) / 2)

    (the log likelihood ratio of N(δ1, s_n²) against N(δ0, s_n²) for the n values).
    Stop with *accept H1* when LLR_n ≥ ln((1 − β)/α), with *accept H0* when
    LLR_n ≤ ln(β/(1 − α)); otherwise continue. The test is checked after every pair
    once ``min_pairs`` pairs are in (the variance estimate needs a few) and s_n² > 0.
    """

    delta0: float = 0.0
    delta1: float = 0.05
    alpha: float = 0.05
    beta: float = 0.05
    min_pairs: int = 20
    n: int = 0
    total: float = 0.0
    _mean: float = 0.0
    _m2: float = 0.0
    decision: str = CONTINUE
    decided_at: int | None = None

    @property
    def upper(self) -> float:
        return math.log((1 - self.beta) / self.alpha)

    @property
    def lower(self) -> float:
        return math.log(self.beta / (1 - self.alpha))

    @property
    def variance(self) -> float:
        return self._m2 / (self.n - 1) if self.n > 1 else 0.0

    def llr(self) -> float:
        var = self.variance
        if var <= 0:
            return 0.0
        d0, d1 = self.delta0, self.delta1
        return (d1 - d0) / var * (self.total - self.n * (d0 + d1) / 2)

    def update(self, x: float) -> str:
        """Add one pair mean; return the decision (it does not change once reached)."""
        self.n += 1
        self.total += x
        delta = x - self._mean
        self._mean += delta / self.n
        self._m2 += delta * (x - self._mean)
        if self.decision != CONTINUE:
            return self.decision
        if self.n >= self.min_pairs and self.variance > 0:
            llr = self.llr()
            if llr >= self.upper:
                self.decision, self.decided_at = ACCEPT_H1, self.n
            elif llr <= self.lower:
                self.decision, self.decided_at = ACCEPT_H0, self.n
        return self.decision

    def report(self) -> dict[str, Any]:
        return {
            "decision": self.decision,
            "pairs": self.n,
            "decided_at": self.decided_at,
            "llr": self.llr(),
            "lower": self.lower,
            "upper": self.upper,
            "delta0": self.delta0,
            "delta1": self.delta1,
            "alpha": self.alpha,
            "beta": self.beta,
            "min_pairs": self.min_pairs,
            "variance": self.variance,
        }
