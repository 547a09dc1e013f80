"""Statistics: mean / 95% CI of pair means, percentiles, the SPRT on synthetic streams."""

from __future__ import annotations

import math
import random

import pytest

from gunzi.arena.stats import ACCEPT_H0, ACCEPT_H1, CONTINUE, Sprt, mean_ci95, percentile


def test_mean_ci95_known_values() -> None:
    s = mean_ci95([1.0, 2.0, 3.0, 4.0])
    assert s["n"] == 4 and s["mean"] == 2.5
    sd = math.sqrt(5 / 3)  # sample SD (n - 1)
    assert s["sd"] == pytest.approx(sd)
    half = 1.96 * sd / 2
    assert s["ci95"] == pytest.approx([2.5 - half, 2.5 + half])
    assert s["ci95"] == pytest.approx([1.234826, 3.765174], abs=1e-6)


def test_mean_ci95_small_samples() -> None:
    assert mean_ci95([])["mean"] is None
    one = mean_ci95([0.5])
    assert one["mean"] == 0.5 and one["ci95"] is None
    flat = mean_ci95([0.0, 0.0, 0.0])
    assert flat["ci95"] == [0.0, 0.0]


def test_percentile() -> None:
    data = [float(x) for x in range(1, 101)]
    random.Random(1).shuffle(data)
    assert percentile(data, 50) == pytest.approx(50.5)
    assert percentile(data, 95) == pytest.approx(95.05)
    assert percentile(data, 0) == 1.0 and percentile(data, 100) == 100.0
    assert percentile([], 50) is None and percentile([3.0], 95) == 3.0


def test_sprt_bounds_and_llr_formula() -> None:
    t = Sprt(min_pairs=2)
    assert t.upper == pytest.approx(math.log(19)) and t.lower == pytest.approx(-math.log(19))
    xs = [0.5, -0.5, 1.0, 0.0]
    for x in xs:
        t.update(x)
    mean = sum(xs) / 4
    var = sum((x - mean) ** 2 for x in xs) / 3
    assert t.variance == pytest.approx(var)
    # LLR = (d1 - d0) / s^2 * (S - n (d0 + d1) / 2)
    assert t.llr() == pytest.approx(0.05 / var * (sum(xs) - 4 * 0.025))
    # Same value as the sum of normal log-likelihood ratios with that variance.
    direct = sum(((x - 0.0) ** 2 - (x - 0.05) ** 2) / (2 * var) for x in xs)
    assert t.llr() == pytest.approx(direct)


def _run(mean: float, sd: float, seed: int, limit: int = 20000) -> Sprt:
    rng = random.Random(seed)
    t = Sprt()
    for _ in range(limit):
        if t.update(rng.gauss(mean, sd)) != CONTINUE:
            break
    return t


def test_sprt_accepts_h1_on_a_clear_edge() -> None:
    t = _run(0.3, 0.37, 1)
    assert t.decision == ACCEPT_H1 and t.decided_at is not None and t.decided_at < 200
    assert t.llr() >= t.upper


def test_sprt_accepts_h0_without_edge() -> None:
    t = _run(0.0, 0.37, 2)
    assert t.decision == ACCEPT_H0 and t.llr() <= t.lower
    t = _run(-0.2, 0.37, 3)
    assert t.decision == ACCEPT_H0 and t.decided_at is not None and t.decided_at < 100


def test_sprt_error_rates_roughly_hold() -> None:
    # Under H1 (Δ = 0.05) H0 is accepted in about β = 5% of runs, and vice versa.
    wrong_h1 = sum(_run(0.05, 0.37, 100 + i).decision == ACCEPT_H0 for i in range(40))
    wrong_h0 = sum(_run(0.0, 0.37, 200 + i).decision == ACCEPT_H1 for i in range(40))
    assert wrong_h1 <= 8 and wrong_h0 <= 8


def test_sprt_waits_for_min_pairs_and_variance() -> None:
    t = Sprt(min_pairs=20)
    for _ in range(19):
        assert t.update(1.0 + 0.01 * (_ % 2)) == CONTINUE
    t = Sprt(min_pairs=2)
    for _ in range(50):
        assert t.update(0.0) == CONTINUE  # no variance yet: no decision
    t = Sprt(min_pairs=2)
    for x in [1.0, 1.1] * 10:
        t.update(x)
    assert t.decision == ACCEPT_H1
    at = t.decided_at
    for _ in range(30):
        t.update(-5.0)
    assert t.decision == ACCEPT_H1 and t.decided_at == at  # a decision is final
