"""Statistical checks of the distributions on 10^7 values each (fixed seeds,
so the outcome is deterministic; thresholds at about 1e-5 false alarm):
Kolmogorov-Smirnov of normals against the exact normal CDF, chi-square of
uniform histograms, bernoulli frequencies. They catch a wrong formula that
exact tests on a few hundred values could miss (a bias, a lost tail)."""
import math

import numpy as np
import pytest

import randtensor

N = 10 ** 7


def ks_statistic(sorted_values, cdf):
    n = len(sorted_values)
    f = cdf(sorted_values.astype(np.float64))
    i = np.arange(1, n + 1, dtype=np.float64)
    return max((i / n - f).max(), (f - (i - 1) / n).max())


def normal_cdf(x):
    """The standard normal CDF from math.erfc on a grid of step h = 2^-10,
    linear in between: off by at most h^2 / 8 * max|phi'| < 3e-8, against
    the test's bound on D of 7e-4."""
    grid = np.arange(-10.0, 10.0 + 2.0 ** -10, 2.0 ** -10)
    cdf = np.array([0.5 * math.erfc(-v / math.sqrt(2.0)) for v in grid])
    return np.interp(x, grid, cdf)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_normals_pass_kolmogorov_smirnov(dtype):
    z = randtensor.normal(N, dtype=dtype, seed=20261123)
    if dtype == "bfloat16":
        # bfloat16 has 8 bits of precision: compare with the CDF of the
        # rounded distribution would be exact; instead use few samples, whose
        # statistic is dominated by sampling, not by rounding (2^-9 steps).
        z = (z[:20000].astype(np.uint32) << 16).view(np.float32)
    z = np.sort(z)
    d = ks_statistic(z, normal_cdf)
    # P(sqrt(n) D > 2.3) ~ 1e-4 for a true normal sample.
    assert d * math.sqrt(len(z)) < 2.3, d
    assert abs(float(z.astype(np.float64).mean())) < 6 / math.sqrt(len(z))


def test_uniform_histogram_passes_chi_square():
    u = randtensor.uniform(N, seed=7)
    assert u.min() >= 0.0 and u.max() < 1.0
    counts = np.bincount((u.astype(np.float64) * 1000).astype(np.int64), minlength=1000)
    expected = N / 1000
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    # 999 degrees of freedom: mean 999, sd 44.7; 6 sd either way.
    assert 999 - 6 * 44.7 < chi2 < 999 + 6 * 44.7, chi2


def test_uniform_bounds_and_float16_histogram():
    u = randtensor.uniform(N // 10, low=-2.0, high=3.0, dtype="float16", seed=8)
    assert u.min() >= -2.0 and u.max() < 3.0
    counts = np.bincount(((u.astype(np.float64) + 2.0) * 10).astype(np.int64), minlength=50)
    # float16 rounding makes bins unequal by at most a little; a coarse check
    # that no region is missing or doubled.
    assert counts.min() > 0.9 * (N // 10) / 50 and counts.max() < 1.1 * (N // 10) / 50


@pytest.mark.parametrize("p", [0.001, 0.3, 0.5, 0.999])
def test_bernoulli_frequency(p):
    hits = int(randtensor.bernoulli(N, p=p, dtype="uint8", seed=9).sum())
    sd = math.sqrt(N * p * (1 - p))
    assert abs(hits - N * p) < 6 * sd, (hits, N * p)


def test_integers_frequency():
    k = randtensor.integers(N, -3, 7, seed=10)
    counts = np.bincount(k + 3, minlength=10)
    assert counts.size == 10
    chi2 = float(((counts - N / 10) ** 2 / (N / 10)).sum())
    assert chi2 < 9 + 6 * math.sqrt(18), chi2
