"""rw.compare and rw.mann_whitney at the edges of float64: huge, subnormal and mixed values.

Every computation runs in units of the data's power of two, so data multiplied by 2**j give
the same p-values and statistics, and means, intervals and distributions multiplied by 2**j
exactly. The references are scipy on the data before scaling, where its arithmetic is exact
(multiples of 1/64) or well inside the float64 range.
"""
import math
import sys

import numpy as np
import pytest
import scipy.stats as st

import rankwise as rw

pytestmark = pytest.mark.filterwarnings("error")   # a warning is a failure here, not only RuntimeWarning

TESTS = ("randomization", "t", "wilcoxon", "sign", "bootstrap")
ALTERNATIVES = ("two-sided", "greater", "less")
BIG = sys.float_info.max


def grid(rng, n, low=0, high=64):
    """Multiples of 1/64: differences, sums and any power-of-two scaling of them are exact."""
    return rng.integers(low, high, n) / 64


def scipy_reference(d, test, alternative):
    """(statistic, p) of scipy on the differences d (exact arithmetic: multiples of 1/64)."""
    if test == "t":
        res = st.ttest_1samp(d, 0.0, alternative=alternative)
    elif test == "wilcoxon":
        res = st.wilcoxon(d, alternative=alternative)
    elif test == "sign":
        positive, nonzero = int(np.sum(d > 0)), int(np.sum(d != 0))
        return positive, st.binomtest(positive, nonzero, 0.5, alternative=alternative).pvalue
    else:
        res = st.permutation_test((d,), np.mean, permutation_type="samples", n_resamples=np.inf,
                                  alternative=alternative, vectorized=True)
    return res.statistic, res.pvalue


# --------------------------------------------------------------------------------------
# Scaling by powers of two, up to the largest and down to the smallest normal numbers
# --------------------------------------------------------------------------------------

@pytest.mark.parametrize("j", [-1020, -600, 1, 1000, 1023])
@pytest.mark.parametrize("test", TESTS)
@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_scaling_by_a_power_of_two_changes_nothing_but_the_unit(j, test, alternative, rng):
    a, b = grid(rng, 10), grid(rng, 10)       # 2**10 sign patterns: exact randomization
    base = rw.compare(a, b, test=test, alternative=alternative, seed=3)
    res = rw.compare(np.ldexp(a, j), np.ldexp(b, j), test=test, alternative=alternative, seed=3)
    assert res.pvalue == base.pvalue
    assert res.effect_size == base.effect_size
    assert res.mean_difference == math.ldexp(base.mean_difference, j)
    assert tuple(res.confidence_interval) == tuple(math.ldexp(x, j) for x in base.confidence_interval)
    if test in ("randomization", "bootstrap"):
        assert res.statistic == math.ldexp(base.statistic, j)
        np.testing.assert_array_equal(res.distribution, np.ldexp(base.distribution, j))
    else:
        assert res.statistic == base.statistic
    if test != "bootstrap":
        statistic, pvalue = scipy_reference(a - b, test, alternative)
        assert res.pvalue == pytest.approx(pvalue, rel=1e-12, abs=1e-15)
        if test != "randomization":
            assert res.statistic == pytest.approx(statistic, rel=1e-12)


@pytest.mark.parametrize("sign", [1, -1])
@pytest.mark.parametrize("test", TESTS)
def test_values_near_the_largest_float(sign, test, rng):
    """Scores up to 1.77e308 (2**1024 * 63/64), every difference and sum within range only in units."""
    u, v = grid(rng, 40), grid(rng, 40)
    a, b = sign * np.ldexp(u, 1024), sign * np.ldexp(v, 1024)
    assert np.abs(a).max() > 1.7e308
    res = rw.compare(a, b, test=test, seed=0)
    ref = rw.compare(sign * u, sign * v, test=test, seed=0)
    assert res.pvalue == ref.pvalue and 0 < res.pvalue <= 1
    assert res.mean_difference == math.ldexp(ref.mean_difference, 1024)
    assert np.isfinite(res.effect_size) and res.effect_size == ref.effect_size
    if test in ("t", "wilcoxon", "sign"):
        _, pvalue = scipy_reference(sign * (u - v), test, "two-sided")
        assert res.pvalue == pytest.approx(pvalue, rel=1e-12)
    if test in ("randomization", "bootstrap"):   # 40 queries: random resamples, sums of 40 values near 2**1024
        assert res.distribution.shape == (10_000,) and np.isfinite(res.distribution).all()
        np.testing.assert_array_equal(res.distribution, np.ldexp(ref.distribution, 1024))


@pytest.mark.parametrize("test", TESTS)
def test_differences_beyond_the_float64_range_raise(test):
    a = [1e308, 0.5, 0.25]
    b = [-1e308, 0.25, 0.5]
    with pytest.raises(ValueError, match=r"a - b is beyond the float64 range at position 0 \(1e\+308 - -1e\+308\)"):
        rw.compare(a, b, test=test)
    with pytest.raises(ValueError, match=r"a - b is beyond the float64 range at query 'q1'"):
        rw.compare({"q1": BIG, "q2": 1.0}, {"q1": -BIG, "q2": 0.0}, test=test)
    # The largest representable difference is fine.
    res = rw.compare([BIG, 0.0, 0.0], [0.0, 0.0, 0.0], test=test, seed=0)
    assert res.mean_difference == pytest.approx(BIG / 3, rel=1e-15)


def test_interval_bounds_beyond_the_float64_range_are_infinite():
    # d = +-2**1022: mean 0, and the t interval 12.7 * 2**1022 wide on each side.
    res = rw.compare([2.0**1022, -(2.0**1022)], [0.0, 0.0], test="t")
    assert res.confidence_interval == (-math.inf, math.inf)
    assert res.mean_difference == 0.0 and res.pvalue == 1.0 and res.statistic == 0.0
    boot = rw.compare([2.0**1022, -(2.0**1022), 2.0**1022], [0.0, 0.0, 0.0], test="bootstrap", seed=0,
                      ci_method="basic")
    assert np.isfinite(boot.distribution).all()


def test_subnormal_values(rng):
    """Scores below 2**-1022 (few significant bits): exact in units of their power of two."""
    u, v = grid(rng, 10), grid(rng, 10)
    a, b = np.ldexp(u, -1066), np.ldexp(v, -1066)   # multiples of 2**-1072: exact subnormals
    assert 0 < np.abs(a).max() < sys.float_info.min
    for test in TESTS:
        for alternative in ALTERNATIVES:
            res = rw.compare(a, b, test=test, alternative=alternative, seed=1)
            ref = rw.compare(u, v, test=test, alternative=alternative, seed=1)
            assert res.pvalue == ref.pvalue
            assert res.effect_size == ref.effect_size
            if test in ("t", "wilcoxon", "sign"):
                assert res.statistic == ref.statistic
            assert res.mean_difference == pytest.approx(math.ldexp(ref.mean_difference, -1066), abs=5e-324)
    # Before scaling, the squares of such differences were 0: sd 0, t = nan, effect size nan.
    t = rw.compare(a, b, test="t")
    ref = st.ttest_rel(u, v)
    assert t.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert t.pvalue == pytest.approx(ref.pvalue, rel=1e-12)


@pytest.mark.parametrize("test", ["randomization", "t", "wilcoxon", "sign"])
def test_mixed_huge_and_tiny_values(test, rng):
    """Tiny values next to huge ones are zero differences (below 12 digits of the scale)."""
    u, v = grid(rng, 8, 1), grid(rng, 8, 1)
    w, x = rng.random(5), rng.random(5)
    a = np.concatenate([np.ldexp(u, 1000), np.ldexp(w, -1000), [5e-324]])
    b = np.concatenate([np.ldexp(v, 1000), np.ldexp(x, -1000), [0.0]])
    d = np.concatenate([u - v, np.zeros(6)])
    res = rw.compare(a, b, test=test, n_resamples=2**14)    # 14 queries: exact randomization
    statistic, pvalue = scipy_reference(d, test, "two-sided")
    assert res.pvalue == pytest.approx(pvalue, rel=1e-12)
    if test != "randomization":
        assert res.statistic == pytest.approx(statistic, rel=1e-12)
    assert res.mean_difference == pytest.approx(math.ldexp(d.mean(), 1000), rel=1e-15)


@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize("j", [-1066, -1000, 0, 1000, 1023])
def test_mann_whitney_at_any_scale_matches_scipy(alternative, j, rng):
    a, b = grid(rng, 9), grid(rng, 14)
    res = rw.mann_whitney(np.ldexp(a, j), np.ldexp(b, j), alternative=alternative)
    ref = st.mannwhitneyu(a, b, alternative=alternative)
    assert res.statistic == ref.statistic
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
    assert res.effect_size == 2 * ref.statistic / (9 * 14) - 1


def test_mann_whitney_mixed_huge_and_tiny(rng):
    a = np.concatenate([np.ldexp(grid(rng, 6, 1), 1000), rng.random(3) * 1e-300, [-BIG]])
    b = np.concatenate([np.ldexp(grid(rng, 7, 1), 1000), rng.random(2) * 1e-300, [BIG]])
    res = rw.mann_whitney(a, b)
    # The tiny values tie at 0, relative to the scale; the extremes stay extremes.
    ref = st.mannwhitneyu(np.where(np.abs(a) < 1e-200, 0.0, a / 2.0**1000),
                          np.where(np.abs(b) < 1e-200, 0.0, b / 2.0**1000))
    assert res.statistic == ref.statistic
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-12)


def test_means_of_compare_systems_near_the_largest_float():
    """Per-query DCG of labels whose sum is just below the largest float64 (evaluate refuses
    larger ones): the report's means and differences stay exact and print in scientific form."""
    y_true = [[4.0e307, 0, 0], [4.4e307, 0, 0], [4.2e307, 0, 0], [4.0e307, 0, 0]]
    high = rw.evaluate(y_true, [[0.9, 0.1, 0.2]] * 4, ["DCG"])
    low = rw.evaluate(y_true, [[0.1, 0.9, 0.2]] * 4, ["DCG"])
    report = rw.compare_systems({"high": high, "low": low}, metrics=["DCG"], baseline="low", test="t")
    assert report.means["DCG"]["high"] == pytest.approx(4.15e307, rel=1e-15)
    (c,) = report.comparisons
    assert c.result.mean_difference == pytest.approx(4.15e307 / 2, rel=1e-12)    # rank 1 against rank 3
    assert "4.150e+307" in report.to_text()
