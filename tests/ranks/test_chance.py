"""Accuracy of rankwise._chance (harmonic numbers, power means, tie-expected reciprocal
ranks): exact Fractions / math.fsum for moderate n, independent asymptotics (and mpmath
when installed) for n up to 1e8 and beyond."""
import math
from fractions import Fraction as F

import numpy as np
import pytest

import rankwise as rw
from rankwise.ranks import chance as _chance

EULER_GAMMA = 0.57721566490153286061
ZETA_MINUS_HALF = -0.20788622497735456602  # zeta(-1/2)

_H = [F(0)]
_H2 = [F(0)]
for _j in range(1, 401):
    _H.append(_H[-1] + F(1, _j))
    _H2.append(_H2[-1] + F(1, _j * _j))


def rel_error(got, exact):
    # float(Fraction) is correctly rounded: its own error (1.1e-16) is far below the tolerances
    got = float(got)
    exact = float(exact)
    if exact == 0:
        return abs(got)
    return abs(got - exact) / abs(exact)


def test_harmonic_exact_up_to_400():
    n = np.arange(0, 401)
    got = _chance.harmonic(n)
    got2 = _chance.harmonic2(n)
    assert got.shape == n.shape
    assert max(rel_error(g, _H[i]) for i, g in enumerate(got)) < 2e-15
    assert max(rel_error(g, _H2[i]) for i, g in enumerate(got2)) < 2e-15
    assert float(_chance.harmonic(0)) == 0.0 and float(_chance.harmonic2(0)) == 0.0
    assert float(_chance.harmonic(1)) == 1.0 and float(_chance.harmonic(3)) == 11 / 6


@pytest.mark.parametrize("n", [1000, 12345, 10**5, 10**6])
def test_harmonic_against_fsum(n):
    terms = 1.0 / np.arange(1, n + 1, dtype=np.float64)
    assert float(_chance.harmonic(n)) == pytest.approx(math.fsum(terms), rel=1e-15)
    assert float(_chance.harmonic2(n)) == pytest.approx(math.fsum(terms * terms), rel=1e-15)


@pytest.mark.parametrize("n", [10**8, 10**8 + 7, 10**10, 10**12, 2**53])
def test_harmonic_large_n_asymptotics(n):
    x = float(n)
    h = math.log(x) + EULER_GAMMA + 1 / (2 * x) - 1 / (12 * x * x)
    h2 = math.pi ** 2 / 6 - 1 / x + 1 / (2 * x * x)
    assert float(_chance.harmonic(n)) == pytest.approx(h, rel=1e-15)
    assert float(_chance.harmonic2(n)) == pytest.approx(h2, rel=1e-15)


def test_harmonic_difference_exact_grid():
    pairs = [(a, b) for a in range(0, 300, 3) for b in range(a, 401, 2)]
    got = _chance.harmonic_difference(np.array([a for a, _ in pairs]), np.array([b for _, b in pairs]))
    worst = max(rel_error(g, _H[b] - _H[a]) for g, (a, b) in zip(got, pairs, strict=True))
    assert worst < 2e-14
    # vectorised, broadcasting
    a = np.array([0, 5, 64, 65, 100])
    got = _chance.harmonic_difference(a, a + 40)
    for i, ai in enumerate(a):
        assert rel_error(got[i], _H[ai + 40] - _H[ai]) < 2e-14
    assert float(_chance.harmonic_difference(7, 7)) == 0.0


@pytest.mark.parametrize("a, b", [(1000, 100_000), (10**5, 10**5 + 33), (10**5, 10**5 + 5000),
                                  (10**6, 2 * 10**6), (64, 10**6), (10**8, 10**8 + 1000)])
def test_harmonic_difference_against_fsum(a, b):
    terms = 1.0 / np.arange(a + 1, b + 1, dtype=np.float64)
    assert float(_chance.harmonic_difference(a, b)) == pytest.approx(math.fsum(terms), rel=2e-14)


@pytest.mark.parametrize("a", [10**8, 10**8 + 3, 10**10, 10**12])
def test_harmonic_difference_large_a(a):
    direct = 1 / (a + 1) + 1 / (a + 2)
    assert float(_chance.harmonic_difference(a, a + 2)) == pytest.approx(direct, rel=1e-15)
    assert float(_chance.harmonic_difference(a, a + 1)) == pytest.approx(1 / (a + 1), rel=1e-15)
    b = 2 * a
    asymptotic = math.log1p((b - a) / a) + (a - b) / (2 * a * b) - (1 / b**2 - 1 / a**2) / 12
    assert float(_chance.harmonic_difference(a, b)) == pytest.approx(asymptotic, rel=1e-15)


def test_expected_reciprocal_exact_grid():
    pairs = [(o, p) for o in range(1, 200, 3) for p in range(o, 200, 2)]
    got = _chance.expected_reciprocal(np.array([o for o, _ in pairs]), np.array([p for _, p in pairs]))
    worst = max(rel_error(g, (_H[p] - _H[o - 1]) / (p - o + 1)) for g, (o, p) in zip(got, pairs, strict=True))
    assert worst < 2e-14
    assert float(_chance.expected_reciprocal(1, 2)) == 0.75
    assert float(_chance.expected_reciprocal(5, 5)) == 0.2


@pytest.mark.parametrize("o, width", [(10**8, 0), (10**8, 4), (10**8, 100), (10**8, 10**5), (1, 10**6)])
def test_expected_reciprocal_large(o, width):
    p = o + width
    terms = 1.0 / np.arange(o, p + 1, dtype=np.float64)
    want = math.fsum(terms) / (width + 1)
    assert float(_chance.expected_reciprocal(o, p)) == pytest.approx(want, rel=2e-14)
    # through the public API: ties="expected" MRR of one query with rank o..p
    ranks = rw.Ranks([o - 1], [width])
    assert rw.rank_metrics(ranks, "MRR")["MRR"] == pytest.approx(want, rel=2e-14)


def test_mean_power_grid_against_fsum():
    worst = 0.0
    exponents = [1e-6, 1e-3, 0.01, 0.1, 0.25, 1 / 3, 0.381, 0.5, 0.75, 1.0, 1.25, 1.5, 1.9, 2.0]
    sizes = list(range(1, 40)) + [63, 64, 65, 100, 257, 1000, 4096]
    for s in exponents:
        for n in sizes:
            want = math.fsum(j ** s for j in range(1, n + 1)) / n
            worst = max(worst, abs(float(_chance.mean_power(n, s)) - want) / want)
    assert worst < 2e-14
    # vectorised and broadcast
    n = np.array([1, 4, 20, 300])
    got = _chance.mean_power(n, 0.5)
    for i, ni in enumerate(n):
        assert got[i] == pytest.approx(math.fsum(j ** 0.5 for j in range(1, ni + 1)) / ni, rel=2e-14)
    s = np.array([0.0, 1.0, 2.0])
    got = _chance.mean_power(10, s)
    np.testing.assert_allclose(got, [1.0, 5.5, 38.5], rtol=1e-15)


def test_mean_power_exact_integer_exponents():
    for n in list(range(1, 50)) + [1000, 12345, 10**6, 10**8]:
        assert float(_chance.mean_power(n, 1.0)) == pytest.approx((n + 1) / 2, rel=1e-14)
        assert float(_chance.mean_power(n, 2.0)) == pytest.approx((n + 1) * (2 * n + 1) / 6, rel=1e-14)
        assert float(_chance.mean_power(n, 0.0)) == pytest.approx(1.0, rel=1e-15)


@pytest.mark.parametrize("n", [10**6, 10**8, 10**10])
def test_mean_power_half_large_n(n):
    # sum_{j<=n} sqrt(j) = zeta(-1/2) + (2/3) n^(3/2) + sqrt(n)/2 + n^(-1/2)/24 + O(n^(-5/2))
    x = float(n)
    total = ZETA_MINUS_HALF + (2 / 3) * x ** 1.5 + math.sqrt(x) / 2 + 1 / (24 * math.sqrt(x))
    assert float(_chance.mean_power(n, 0.5)) == pytest.approx(total / x, rel=1e-14)


def test_mean_power_large_n_small_exponent_against_fsum():
    n = 2_000_000
    j = np.arange(1, n + 1, dtype=np.float64)
    for s in (1e-4, 0.05):
        want = math.fsum(j ** s) / n
        assert float(_chance.mean_power(n, s)) == pytest.approx(want, rel=2e-14)


def test_expected_mrr_for_huge_candidate_counts():
    c = 10**8
    ranks = rw.Ranks([0, 0], None, [c, c])
    got = rw.rank_metrics(ranks, ["E[MRR]", "V[MRR]", "E[MR]", "V[MR]", "E[Hits@10]", "E[GMR]"])
    x = float(c)
    h = math.log(x) + EULER_GAMMA + 1 / (2 * x)
    assert got["E[MRR]"] == pytest.approx(h / x, rel=1e-14)
    h2 = math.pi ** 2 / 6 - 1 / x
    assert got["V[MRR]"] == pytest.approx((x * h2 - h * h) / (x * x) / 2, rel=1e-12)
    assert got["E[MR]"] == pytest.approx((x + 1) / 2, rel=1e-15)
    assert got["V[MR]"] == pytest.approx((x * x - 1) / 12 / 2, rel=1e-14)
    assert got["E[Hits@10]"] == pytest.approx(10 / x, rel=1e-14)
    # E[GMR] with two queries: (mean_j sqrt(j))^2
    total = ZETA_MINUS_HALF + (2 / 3) * x ** 1.5 + math.sqrt(x) / 2 + 1 / (24 * math.sqrt(x))
    assert got["E[GMR]"] == pytest.approx((total / x) ** 2, rel=1e-13)


def test_against_mpmath_when_installed():
    mpmath = pytest.importorskip("mpmath")
    old_dps = mpmath.mp.dps
    mpmath.mp.dps = 40
    try:
        def power_sum(n, s):
            """sum_{j<=n} j^s: directly for small n; else zeta(-s) + Euler-Maclaurin at n (40 digits)."""
            if n <= 2000:
                return mpmath.fsum(mpmath.mpf(j) ** s for j in range(1, n + 1))
            n, s = mpmath.mpf(n), mpmath.mpf(s)
            total = mpmath.zeta(-s) + n ** (s + 1) / (s + 1) + n ** s / 2
            falling = s
            for k in range(1, 7):
                total += mpmath.bernoulli(2 * k) / mpmath.factorial(2 * k) * falling * n ** (s - 2 * k + 1)
                falling *= (s - 2 * k + 1) * (s - 2 * k)
            return total

        for n in (10**3, 10**8, 10**12):
            assert float(_chance.harmonic(n)) == pytest.approx(float(mpmath.harmonic(n)), rel=1e-15)
            h2 = mpmath.zeta(2) - mpmath.zeta(2, n + 1)
            assert float(_chance.harmonic2(n)) == pytest.approx(float(h2), rel=1e-15)
            for s in (0.01, 0.5, 1.5):
                want = power_sum(n, mpmath.mpf(s)) / n
                assert float(_chance.mean_power(n, s)) == pytest.approx(float(want), rel=2e-14), (n, s)
            a, b = n, 3 * n + 7
            want = mpmath.harmonic(b) - mpmath.harmonic(a)
            assert float(_chance.harmonic_difference(a, b)) == pytest.approx(float(want), rel=2e-14)
            want = (mpmath.harmonic(n + 10) - mpmath.harmonic(n - 1)) / 11
            assert float(_chance.expected_reciprocal(n, n + 10)) == pytest.approx(float(want), rel=2e-14)
    finally:
        mpmath.mp.dps = old_dps


@pytest.mark.parametrize("o, p, k", [
    (1, 1, 1), (1, 2, 10), (5, 9, 4), (1, 128, math.inf), (1, 129, math.inf), (1, 257, math.inf),
    (100, 400, 350), (129, 258, math.inf), (130, 5000, math.inf), (1, 10**6, math.inf), (10**8, 10**8 + 10**5, math.inf),
    (10**6, 3 * 10**6, 2 * 10**6),
])
def test_expected_discount_against_fsum(o, p, k):
    # Direct up to 128 terms, Euler-Maclaurin (Gauss-Legendre integral) beyond: both to a few ulps.
    last = min(p, k)
    terms = 1.0 / np.log2(np.arange(o, last + 1, dtype=np.float64) + 1) if last >= o else np.zeros(0)
    want = math.fsum(terms) / (p - o + 1)
    assert float(_chance.expected_discount(o, p, k)) == pytest.approx(want, rel=1e-14, abs=0)
    # through the public API: ties="expected" nDCG@k of one query with rank o..p
    name = "nDCG" if k == math.inf else f"nDCG@{int(k)}"
    assert rw.rank_metrics(rw.Ranks([o - 1], [p - o]), name)[name] == pytest.approx(want, rel=1e-14, abs=0)
