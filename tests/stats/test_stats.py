"""rw.compare and rw.mann_whitney against scipy.stats, brute force and the worked values."""
import itertools
from fractions import Fraction

import numpy as np
import pytest
import scipy.stats as st

import rankwise as rw

# kg-ties-anchors.md section 8 (scipy 1.17.1).
A8 = [0.5, 0.3, 0.9, 0.1, 0.7, 0.6, 0.8, 0.4]
B8 = [0.4, 0.35, 0.6, 0.1, 0.5, 0.2, 0.8, 0.1]
ALTERNATIVES = ("two-sided", "greater", "less")


# --------------------------------------------------------------------------------------
# Worked values
# --------------------------------------------------------------------------------------

def test_worked_paired_t():
    res = rw.compare(A8, B8, test="t")
    assert res.statistic == pytest.approx(2.6331424, abs=5e-8)
    assert res.pvalue == pytest.approx(0.0337581, abs=5e-8)
    assert res.mean_difference == pytest.approx(0.15625, abs=1e-15)
    assert res.n == 8 and res.ci_method == "t" and res.test == "t"


def test_worked_wilcoxon():
    res = rw.compare(A8, B8, test="wilcoxon")
    assert (res.statistic, res.pvalue) == (1.0, pytest.approx(0.0625, abs=1e-12))
    res = rw.compare(A8, B8, test="wilcoxon", zero_method="zsplit")
    assert (res.statistic, res.pvalue) == (4.5, pytest.approx(0.0625, abs=1e-12))


def test_worked_mann_whitney():
    res = rw.mann_whitney(A8, B8)
    assert res.statistic == 43.0
    assert res.pvalue == pytest.approx(0.2673159, abs=5e-8)
    assert res.effect_size == 2 * 43 / 64 - 1
    assert (res.n_a, res.n_b, res.test) == (8, 8, "mann-whitney")


def test_worked_exact_sign_flip():
    res = rw.compare(A8, B8)                       # 2**8 = 256 <= 10,000: enumerated
    assert res.exact and res.n_resamples == 256 and res.seed is None
    assert res.pvalue == 16 / 256
    assert res.mean_difference == pytest.approx(0.15625, abs=1e-15)
    ref = st.permutation_test((np.round(np.subtract(A8, B8), 10),), np.mean, permutation_type="samples",
                              n_resamples=np.inf)
    assert res.pvalue == ref.pvalue


@pytest.mark.parametrize("method, expected", [
    ("bonferroni", [0.05, 0.2, 0.15, 0.025, 1.0]),
    ("holm", [0.04, 0.09, 0.09, 0.025, 0.2]),
    ("bh", [0.025, 0.05, 0.05, 0.025, 0.2]),
    ("by", [0.0570833, 0.1141667, 0.1141667, 0.0570833, 0.4566667]),
])
def test_worked_corrections(method, expected):
    np.testing.assert_allclose(rw.correct([0.01, 0.04, 0.03, 0.005, 0.2], method), expected, atol=5e-8)


# --------------------------------------------------------------------------------------
# Randomization: exact enumeration against brute force and scipy
# --------------------------------------------------------------------------------------

def brute_force_p(numerators, alternative):
    """Exact sign-flip p-value by enumerating every sign pattern in exact arithmetic."""
    values = [Fraction(k) for k in numerators]
    observed = sum(values)
    count = 0
    for signs in itertools.product((1, -1), repeat=len(values)):
        total = sum(s * v for s, v in zip(signs, values, strict=True))
        if alternative == "greater":
            count += total >= observed
        elif alternative == "less":
            count += total <= observed
        else:
            count += abs(total) >= abs(observed)
    return Fraction(count, 2 ** len(values))


@pytest.mark.parametrize("n", range(2, 13))
@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_exact_randomization_is_brute_force(n, alternative):
    """Decimal differences (tenths, as P@10 gives): ties in exact arithmetic count as ties."""
    rng = np.random.default_rng(100 + n)
    a_tenths = rng.integers(0, 11, n)
    b_tenths = rng.integers(0, 11, n)
    res = rw.compare(a_tenths / 10, b_tenths / 10, alternative=alternative)
    assert res.exact and res.n_resamples == 2**n
    assert Fraction(res.pvalue).limit_denominator(2**n) == brute_force_p(a_tenths - b_tenths, alternative)
    assert res.pvalue * 2**n == round(res.pvalue * 2**n)


def test_theoretical_ties_near_zero_are_counted():
    # d = [0.1, 0.2, -0.3]: the observed sum is 0 in exact arithmetic (5.6e-17 in floating point);
    # the patterns (+,+,-) and (-,-,+) tie with it and must count for "greater" and "less" alike.
    a, b = [0.1, 0.2, 0.0], [0.0, 0.0, 0.3]
    assert rw.compare(a, b, alternative="greater").pvalue == brute_force_p([1, 2, -3], "greater") == Fraction(5, 8)
    assert rw.compare(a, b, alternative="less").pvalue == brute_force_p([1, 2, -3], "less") == Fraction(5, 8)
    assert rw.compare(a, b).pvalue == 1.0


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_exact_randomization_equals_scipy_on_exact_arithmetic(alternative, rng):
    """Multiples of 1/64 add exactly: p-values equal scipy's exact permutation_test bit for bit."""
    for n in (3, 7, 10, 13):
        a = rng.integers(0, 65, n) / 64
        b = rng.integers(0, 65, n) / 64
        res = rw.compare(a, b, alternative=alternative)
        ref = st.permutation_test((a - b,), np.mean, permutation_type="samples", n_resamples=np.inf,
                                  alternative=alternative, vectorized=True)
        assert res.exact
        assert res.pvalue == ref.pvalue
        np.testing.assert_array_equal(np.sort(res.distribution), np.sort(ref.null_distribution))


def test_exact_randomization_equals_scipy_on_continuous_values(rng):
    for n in (5, 11):
        a, b = rng.random(n), rng.random(n)
        for alternative in ALTERNATIVES:
            ref = st.permutation_test((a - b,), np.mean, permutation_type="samples", n_resamples=np.inf,
                                      alternative=alternative, vectorized=True)
            assert rw.compare(a, b, alternative=alternative).pvalue == pytest.approx(ref.pvalue, abs=1e-15)


def test_exact_when_two_to_the_n_fits_in_n_resamples(rng):
    a, b = rng.random(10), rng.random(10)
    assert rw.compare(a, b, n_resamples=1024).exact
    res = rw.compare(a, b, n_resamples=1023, seed=0)
    assert not res.exact and res.n_resamples == 1023 and res.seed == 0
    # Monte Carlo: p = (b + 1) / (N + 1).
    assert (res.pvalue * 1024) == pytest.approx(round(res.pvalue * 1024), abs=1e-9)


def test_symmetric_exact_null_distribution(rng):
    a, b = rng.random(12), rng.random(12)
    null = rw.compare(a, b).distribution
    assert null.shape == (4096,)
    # Pattern r and its complement give exactly opposite sums.
    np.testing.assert_array_equal(null, -null[::-1])


def test_random_randomization_within_monte_carlo_error_of_exact(rng):
    n = 18
    a = rng.random(n)
    b = a - rng.normal(0.06, 0.2, n)
    exact = rw.compare(a, b, n_resamples=2**n)
    assert exact.exact
    ref = st.permutation_test((a - b,), np.mean, permutation_type="samples", n_resamples=np.inf, vectorized=True)
    assert exact.pvalue == pytest.approx(ref.pvalue, abs=1e-12)
    p = exact.pvalue
    assert 0.02 < p < 0.5  # a p-value the Monte Carlo error bound below can tell apart
    for alternative in ALTERNATIVES:
        p = rw.compare(a, b, n_resamples=2**n, alternative=alternative).pvalue
        for seed in range(3):
            res = rw.compare(a, b, seed=seed, alternative=alternative)
            assert abs(res.pvalue - p) < 5 * np.sqrt(p * (1 - p) / 10_000) + 2e-4


def test_random_randomization_agrees_with_scipy_monte_carlo(rng):
    n = 300
    a = rng.random(n)
    b = a - rng.normal(0.02, 0.25, n)
    mine = np.array([rw.compare(a, b, seed=s, n_resamples=4000).pvalue for s in range(5)])
    theirs = np.array([st.permutation_test((a - b,), np.mean, permutation_type="samples", n_resamples=4000,
                                           vectorized=True, rng=s).pvalue for s in range(5)])
    p = theirs.mean()
    assert 0.05 < p < 0.9
    # Means of 5 x 4000 resamples each: standard error sqrt(p (1 - p) / 20,000) per side.
    assert abs(mine.mean() - p) < 6 * np.sqrt(p * (1 - p) / 20_000) * np.sqrt(2)


def test_null_distribution_of_random_mode_has_mean_zero_and_known_spread(rng):
    d = rng.normal(0.1, 1, 500)
    res = rw.compare(d, np.zeros_like(d), seed=3, n_resamples=20_000)
    null = res.distribution
    sd = np.sqrt(np.sum(np.round(d, 12)**2)) / d.size  # sd of the mean of random-sign d
    assert abs(null.mean()) < 5 * sd / np.sqrt(null.size)
    assert null.std() == pytest.approx(sd, rel=0.03)


# --------------------------------------------------------------------------------------
# Reproducibility
# --------------------------------------------------------------------------------------

@pytest.mark.parametrize("test", ["randomization", "bootstrap"])
def test_seeded_results_are_reproducible_across_runs_and_threads(test, rng):
    a = rng.random(5000)
    b = a + rng.normal(0, 0.1, 5000)
    first = rw.compare(a, b, test=test, seed=42, n_threads=1)
    for threads in (1, 2, 3, 7, -1, None):
        again = rw.compare(a, b, test=test, seed=42, n_threads=threads)
        assert again.pvalue == first.pvalue
        assert again.confidence_interval == first.confidence_interval
        np.testing.assert_array_equal(again.distribution, first.distribution)
    other = rw.compare(a, b, test=test, seed=43)
    assert not np.array_equal(other.distribution, first.distribution)


@pytest.mark.parametrize("test", ["randomization", "bootstrap"])
def test_seed_none_is_reported_and_reproduces(test, rng):
    a, b = rng.random(100), rng.random(100)
    res = rw.compare(a, b, test=test, seed=None, n_resamples=500)
    assert isinstance(res.seed, int) and res.seed >= 0
    again = rw.compare(a, b, test=test, seed=res.seed, n_resamples=500)
    np.testing.assert_array_equal(again.distribution, res.distribution)
    assert rw.compare(a, b, test=test, seed=None, n_resamples=500).seed != res.seed


def test_huge_and_numpy_seeds(rng):
    a, b = rng.random(70), rng.random(70)
    big = 2**128 - 1                     # the largest seed: the kernel's keys hold 128 bits
    assert rw.compare(a, b, seed=big).seed == big
    assert rw.compare(a, b, seed=np.uint64(2**64 - 1)).seed == 2**64 - 1
    np.testing.assert_array_equal(rw.compare(a, b, seed=np.int64(9)).distribution,
                                  rw.compare(a, b, seed=9).distribution)


# --------------------------------------------------------------------------------------
# t, Wilcoxon, sign: against scipy
# --------------------------------------------------------------------------------------

@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize("n", [2, 3, 10, 57, 1000])
def test_t_matches_ttest_rel(alternative, n, rng):
    a, b = rng.random(n), rng.random(n)
    res = rw.compare(a, b, test="t", alternative=alternative, confidence=0.9)
    ref = st.ttest_rel(a, b, alternative=alternative)
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-9)
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-9)
    ci = ref.confidence_interval(0.9)
    np.testing.assert_allclose(res.confidence_interval, (ci.low, ci.high), rtol=1e-9)
    d = a - b
    assert res.effect_size == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-9)
    assert res.n_resamples is None and res.seed is None and res.distribution is None


@pytest.mark.parametrize("test", ["randomization", "wilcoxon", "sign"])
def test_other_tests_report_the_t_interval(test, rng):
    a, b = rng.random(40), rng.random(40)
    for alternative in ALTERNATIVES:
        res = rw.compare(a, b, test=test, alternative=alternative, seed=1)
        assert res.ci_method == "t"
        assert res.confidence_interval == rw.compare(a, b, test="t", alternative=alternative).confidence_interval


@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize("zero_method", ["wilcox", "pratt", "zsplit"])
def test_wilcoxon_matches_scipy_continuous(alternative, zero_method, rng):
    for n in (6, 30, 80):
        a, b = rng.random(n), rng.random(n)
        res = rw.compare(a, b, test="wilcoxon", alternative=alternative, zero_method=zero_method)
        ref = st.wilcoxon(a - b, alternative=alternative, zero_method=zero_method)
        assert res.statistic == pytest.approx(ref.statistic, rel=1e-12)
        assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-9)


@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize("zero_method", ["wilcox", "pratt", "zsplit"])
def test_wilcoxon_with_zeros_and_ties_matches_scipy_on_rounded_differences(alternative, zero_method, rng):
    """Metric values on a grid (P@10): zeros and tied |d| must be exact, as after rounding."""
    for n in (8, 12, 40):
        a, b = rng.integers(0, 11, n) / 10, rng.integers(0, 11, n) / 10
        if not np.any(np.round(a - b, 10)):
            continue
        res = rw.compare(a, b, test="wilcoxon", alternative=alternative, zero_method=zero_method)
        ref = st.wilcoxon(np.round(a - b, 10), alternative=alternative, zero_method=zero_method)
        assert res.statistic == pytest.approx(ref.statistic, rel=1e-12)
        assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-9)


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_sign_test_is_binomial_on_nonzero_differences(alternative, rng):
    for n in (5, 20, 101):
        a, b = rng.integers(0, 4, n) / 3, rng.integers(0, 4, n) / 3
        res = rw.compare(a, b, test="sign", alternative=alternative)
        positive = sum(x > y for x, y in zip(a.tolist(), b.tolist(), strict=True))
        nonzero = sum(x != y for x, y in zip(a.tolist(), b.tolist(), strict=True))
        assert res.statistic == positive
        assert res.pvalue == pytest.approx(st.binomtest(positive, nonzero, 0.5, alternative=alternative).pvalue,
                                           rel=1e-12)
        assert res.exact


# --------------------------------------------------------------------------------------
# Bootstrap
# --------------------------------------------------------------------------------------

@pytest.mark.parametrize("method", ["bca", "percentile", "basic"])
@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_bootstrap_interval_matches_scipy_within_monte_carlo_error(method, alternative, rng):
    n = 150
    a = rng.exponential(0.3, n)          # skewed differences: BCa differs from percentile
    b = rng.random(n) * 0.5
    d = a - b
    res = rw.compare(a, b, test="bootstrap", ci_method=method, alternative=alternative, seed=5,
                     n_resamples=9999, confidence=0.9)
    ref = st.bootstrap((d,), np.mean, method=method, alternative=alternative, n_resamples=9999,
                       confidence_level=0.9, rng=5, vectorized=True)
    se = d.std(ddof=1) / np.sqrt(n)
    for mine, theirs in zip(res.confidence_interval, ref.confidence_interval, strict=True):
        if np.isinf(theirs):
            assert mine == theirs
        else:
            assert abs(mine - theirs) < 0.2 * se
    assert res.ci_method == method
    assert res.distribution.std(ddof=1) == pytest.approx(ref.standard_error, rel=0.05)


def test_bca_differs_from_percentile_on_skewed_data(rng):
    a = rng.exponential(1.0, 60) ** 2
    b = np.zeros(60)
    bca = rw.compare(a, b, test="bootstrap", seed=1).confidence_interval
    pct = rw.compare(a, b, test="bootstrap", seed=1, ci_method="percentile").confidence_interval
    assert bca.low > pct.low and bca.high > pct.high   # BCa shifts right for right-skewed means


def test_bootstrap_distribution_is_the_documented_resampling(rng):
    """Independently: indices from the kernel's generator, the centred test, (b + 1) / (N + 1)."""
    from rankwise._core._resample import _py_bootstrap_indices

    a, b = rng.random(31), rng.random(31)
    res = rw.compare(a, b, test="bootstrap", seed=11, n_resamples=300)
    d = np.round(a - b, 12)
    key0, key1 = np.random.SeedSequence(11).generate_state(2, dtype=np.uint64).tolist()
    means = []
    for r in range(300):
        idx = np.empty(31, dtype=np.uint64)
        _py_bootstrap_indices(key0, key1, r, 31, 31, idx)
        means.append(d[idx.astype(np.int64)].mean())
    np.testing.assert_allclose(res.distribution, means, rtol=1e-13, atol=1e-15)
    observed = d.mean()
    count = np.count_nonzero(np.abs(np.array(means) - observed) >= abs(observed) - 1e-12)
    assert res.pvalue == (count + 1) / 301


def test_bootstrap_p_value_for_a_clear_difference_and_none(rng):
    a = rng.random(200)
    assert rw.compare(a + 0.2, a, test="bootstrap", seed=0).pvalue == 1 / 10_001
    res = rw.compare(a, a[::-1], test="bootstrap", seed=0)   # mean difference exactly 0
    assert res.pvalue == 1.0


# --------------------------------------------------------------------------------------
# Mann-Whitney
# --------------------------------------------------------------------------------------

@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_mann_whitney_matches_scipy(alternative, rng):
    for n1, n2 in ((3, 5), (8, 8), (40, 70)):
        for grid in (None, 5):
            a, b = rng.random(n1), rng.random(n2)
            if grid:
                a, b = np.round(a * grid) / grid, np.round(b * grid) / grid
            res = rw.mann_whitney(a, b, alternative=alternative)
            ref = st.mannwhitneyu(a, b, alternative=alternative)
            assert res.statistic == ref.statistic
            assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
            pairs = [(x > y) + 0.5 * (x == y) for x in a.tolist() for y in b.tolist()]
            assert res.effect_size == pytest.approx(2 * sum(pairs) / (n1 * n2) - 1, abs=1e-12)
            assert (res.n_a, res.n_b, res.alternative) == (n1, n2, alternative)


def test_mann_whitney_sign_convention():
    assert rw.mann_whitney([5, 6, 7], [1, 2, 3]).effect_size == 1.0
    assert rw.mann_whitney([1, 2, 3], [5, 6, 7]).effect_size == -1.0
    assert rw.mann_whitney([1, 2], [1, 2]).effect_size == 0.0


def test_mann_whitney_takes_results_and_omits_nans():
    y_true = [[1, 0, 0], [0, 1, 0], [0, 0, 0]]
    res = rw.evaluate(y_true, [[0.9, 0.5, 0.1], [0.9, 0.5, 0.1], [0.1, 0.2, 0.3]], ["MRR", "P@1"], empty="skip")
    with pytest.raises(ValueError, match="NaN"):
        rw.mann_whitney(res, [0.5, 0.2], metric="MRR")
    out = rw.mann_whitney(res, [0.5, 0.2], metric="MRR", nan_policy="omit")
    assert out.n_a == 2 and out.statistic == st.mannwhitneyu([1.0, 0.5], [0.5, 0.2]).statistic
    with pytest.raises(ValueError, match="empty"):
        rw.mann_whitney([], [1.0])


@pytest.mark.parametrize("test", ["randomization", "bootstrap", "t", "wilcoxon", "sign"])
def test_swapping_the_systems_mirrors_the_test(test, rng):
    a, b = rng.random(200), rng.random(200)
    for alternative, mirrored in (("two-sided", "two-sided"), ("greater", "less"), ("less", "greater")):
        forward = rw.compare(a, b, test=test, alternative=alternative, seed=8)
        backward = rw.compare(b, a, test=test, alternative=mirrored, seed=8)
        assert backward.pvalue == pytest.approx(forward.pvalue, rel=1e-12)
        assert backward.mean_difference == -forward.mean_difference
        assert backward.effect_size == -forward.effect_size
    # The sign-flip null distribution of b - a is exactly the negation of that of a - b.
    if test == "randomization":
        np.testing.assert_array_equal(rw.compare(b, a, seed=8).distribution, -rw.compare(a, b, seed=8).distribution)
