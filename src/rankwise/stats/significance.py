"""Paired significance tests: :func:`compare` and its :class:`ComparisonResult`.

The randomization test and the paired bootstrap, the t-test, the Wilcoxon signed-rank
test and the sign test, on the differences that :mod:`rankwise.stats.inputs` aligns and
puts in units of a power of two (results are returned in the data's units).

The randomization and bootstrap resamples run in a nogil kernel with a counter-based
random number generator (:mod:`rankwise._core._resample`), over threads through
``_core``'s runner: a seeded result is the same on every run and for every thread count.
"""
from __future__ import annotations

import math
from collections import namedtuple
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike

from .._core._resample import sign_flip_sums
from .._core.bootstrap import (
    allocate,
    bootstrap_distribution,
    bootstrap_interval,
    means_of_sums,
    open_side,
    over_resamples,
    resolve_seed,
    spread,
)
from .._core.progress import Bar, check_progress, progress_bar
from .._core.results import Results, html_table
from .inputs import _mean, _paired_differences, _unscaled
from .options import _NAN_POLICIES, _ON_MISSING, _check_test_options, _choice

__all__ = ["ComparisonResult", "ConfidenceInterval", "compare"]

_EPS = np.finfo(np.float64).eps

# Sign-flip tables: 256 doubles per group of 8 queries, at most 128 groups per block.
_TABLE_DOUBLES = 128 * 256

ConfidenceInterval = namedtuple("ConfidenceInterval", ["low", "high"])
ConfidenceInterval.__doc__ = "A confidence interval: ``low`` and ``high`` (infinite on the open side)."


def _fmt(value: float, digits: int = 4) -> str:
    return "nan" if value is None or math.isnan(value) else f"{value:.{digits}g}"


@dataclass(frozen=True)
class ComparisonResult:
    """The outcome of :func:`compare`: one paired test of system ``a`` against system ``b``.

    Attributes
    ----------
    test : str
        ``"randomization"``, ``"t"``, ``"wilcoxon"``, ``"sign"`` or ``"bootstrap"``.
    alternative : str
        ``"two-sided"``, ``"greater"`` (a > b) or ``"less"`` (a < b).
    statistic : float
        randomization, bootstrap: the mean difference; t: Student's t; wilcoxon:
        scipy's W (two-sided: the smaller of the signed-rank sums; one-sided: the sum
        of the ranks of positive differences); sign: the number of positive differences.
    pvalue : float
    mean_difference : float
        mean of ``a - b`` over the ``n`` paired queries.
    confidence_interval : ConfidenceInterval
        For the mean difference, at ``confidence_level``; one-sided alternatives give an
        interval open on one side. ``ci_method`` says how it was computed: the
        bootstrap test's own bootstrap interval (``"bca"``, ``"percentile"`` or
        ``"basic"``), the Student t interval (``"t"``) for every other test. Equal
        differences give the point interval (mean, mean): [0, 0] when every difference
        is zero; a BCa interval that is undefined (the observed mean outside every
        resampled mean) is (nan, nan). A bound beyond the float64 range is +-inf.
    confidence_level : float
    ci_method : str
    effect_size : float
        Paired Cohen's d (d_z): ``mean(d) / std(d, ddof=1)``. Defined where that ratio
        is not: 0 when every difference is zero (no effect; every test then gives
        p = 1), and +inf or -inf, the sign of the mean, when every difference is the
        same non-zero number (sd = 0: the limit of the ratio as the spread vanishes).
    n : int
        Paired queries compared.
    n_resamples : int or None
        Resamples drawn (randomization, bootstrap) or sign patterns enumerated
        (``exact``); None for the other tests.
    exact : bool
        randomization: whether all 2**n sign patterns were enumerated (p = b / 2**n)
        rather than sampled (p = (b + 1) / (N + 1)); sign: always (binomial);
        t, wilcoxon, bootstrap: False.
    seed : int or None
        The seed of the resamples; pass it back to reproduce them. None when nothing
        was drawn at random.
    distribution : ndarray or None
        The resampled mean differences: the null distribution (randomization) or the
        bootstrap distribution (bootstrap); None for the other tests.

    Examples
    --------
    >>> import rankwise as rw
    >>> res = rw.compare([0.5, 0.3, 0.9, 0.1, 0.7, 0.6, 0.8, 0.4], [0.4, 0.35, 0.6, 0.1, 0.5, 0.2, 0.8, 0.1])
    >>> res.pvalue, res.exact, res.n_resamples
    (0.0625, True, 256)
    """

    test: str
    alternative: str
    statistic: float
    pvalue: float
    mean_difference: float
    confidence_interval: ConfidenceInterval
    confidence_level: float
    ci_method: str
    effect_size: float
    n: int
    n_resamples: int | None = None
    exact: bool = False
    seed: int | None = None
    distribution: np.ndarray | None = field(default=None, repr=False, compare=False)

    def _fields(self) -> list[tuple[str, str]]:
        """(name, value as text) of the repr and the notebook table, in their order."""
        low, high = self.confidence_interval
        fields = [("test", repr(self.test)), ("alternative", repr(self.alternative)), ("n", str(self.n)),
                  ("mean_difference", _fmt(self.mean_difference)), ("statistic", _fmt(self.statistic)),
                  ("pvalue", _fmt(self.pvalue)),
                  (f"{self.confidence_level:.0%} CI ({self.ci_method})", f"[{_fmt(low)}, {_fmt(high)}]"),
                  ("effect_size", _fmt(self.effect_size))]
        if self.n_resamples is not None:
            fields.append(("resamples", f"exact over {self.n_resamples} sign patterns" if self.exact
                           else f"{self.n_resamples} resamples, seed={self.seed}"))
        return fields

    def __repr__(self) -> str:
        # The resamples read as a phrase ("1000 resamples, seed=0"), not as name=value.
        parts = [value if name == "resamples" else f"{name}={value}" for name, value in self._fields()]
        return f"ComparisonResult({', '.join(parts)})"

    def _repr_html_(self) -> str:
        """A table for notebooks: the numbers of the repr, one a row."""
        return html_table(["ComparisonResult", ""], [list(field) for field in self._fields()])


def _sign_flip_distribution(d: np.ndarray, exact: bool, n_resamples: int, key0: int, key1: int,
                            n_threads: int | None, bar: Bar) -> np.ndarray:
    """Signed sums of ``d``: every sign pattern (exact) or ``n_resamples`` random ones."""
    out = allocate(n_resamples)
    table_size = min(-(-d.shape[0] // 8) * 256, _TABLE_DOUBLES)

    def task(r_start: int, r_stop: int, stop: np.ndarray) -> None:
        sign_flip_sums(d, key0, key1, exact, r_start, r_stop, out[r_start:r_stop], np.empty(table_size), stop)

    over_resamples(task, n_resamples, max(d.shape[0] // 8, 1), n_threads, bar,
                    setup=256 * max(d.shape[0] // 8, 1))
    return out


# Resampled statistics compared at a time: temporaries stay small (cache-sized, reused by the
# allocator) however large the distribution.
_CHUNK = 1 << 13


def _count_extreme(null: np.ndarray, observed: float, tolerance: float, alternative: str,
                   centre: float = 0.0) -> int:
    """Resampled statistics, minus ``centre``, at least as extreme as the observed one, ties within
    ``tolerance`` included."""
    count = 0
    for start in range(0, null.shape[0], _CHUNK):
        chunk = null[start:start + _CHUNK]
        if centre:
            chunk = chunk - centre
        if alternative == "greater":
            count += int(np.count_nonzero(chunk >= observed - tolerance))
        elif alternative == "less":
            count += int(np.count_nonzero(chunk <= observed + tolerance))
        else:
            count += int(np.count_nonzero(np.abs(chunk) >= abs(observed) - tolerance))
    return count


def _randomization(d: np.ndarray, alternative: str, n_resamples: int, seed: object,
                   n_threads: int | None, bar: Bar) -> tuple[float, np.ndarray, int, bool, int | None]:
    n = d.shape[0]
    exact = n <= 62 and (1 << n) <= n_resamples
    # Rounding in a sum of n terms moves it by less than (n - 1) * eps / 2 * sum|d_i| in any order
    # of addition, so sign patterns whose sums are equal in exact arithmetic land within this of
    # each other, and count as ties with the observed sum.
    tolerance = n * _EPS * float(np.abs(d).sum())
    observed = float(_sign_flip_distribution(d, True, 1, 0, 0, 1, Bar())[0])
    if exact:
        sums = _sign_flip_distribution(d, True, 1 << n, 0, 0, n_threads, bar)
        bar.update(n_resamples - (1 << n))    # the bar counts n_resamples: fewer patterns were all of them
        count = _count_extreme(sums, observed, tolerance, alternative)
        pvalue, drawn, seed = count / sums.shape[0], sums.shape[0], None
    else:
        seed, key0, key1 = resolve_seed(seed)
        sums = _sign_flip_distribution(d, False, n_resamples, key0, key1, n_threads, bar)
        count = _count_extreme(sums, observed, tolerance, alternative)
        pvalue, drawn = (count + 1) / (n_resamples + 1), n_resamples
    top = float(np.abs(d).max())
    return min(pvalue, 1.0), means_of_sums(sums, n, -top, top), drawn, exact, seed


def _bootstrap(d: np.ndarray, alternative: str, n_resamples: int, seed: object, confidence: float,
               ci_method: str, n_threads: int | None,
               bar: Bar) -> tuple[float, float, np.ndarray, ConfidenceInterval, int]:
    n = d.shape[0]
    if n >= 1 << 32:
        raise ValueError(f"the bootstrap draws indices below 2**32; got {n} queries")
    seed, key0, key1 = resolve_seed(seed)
    sums = bootstrap_distribution(d, n_resamples, key0, key1, n_threads, bar)
    means = means_of_sums(sums, n, float(d.min()), float(d.max()))
    observed = _mean(d)
    # A resampled sum adds n values of magnitude at most max|d|: its rounding error stays
    # below n * eps * max|d| once divided by n.
    tolerance = n * _EPS * float(np.abs(d).max())
    count = _count_extreme(means, observed, tolerance, alternative, centre=observed)
    pvalue = min((count + 1) / (n_resamples + 1), 1.0)
    bounds = bootstrap_interval(means, observed, d - observed, spread(d) == 0.0, alternative, confidence,
                                ci_method)
    interval = ConfidenceInterval(*bounds)
    return observed, pvalue, means, interval, seed


def _t_interval(d: np.ndarray, alternative: str, confidence: float) -> ConfidenceInterval:
    from scipy.stats import t as student

    n, mean = d.shape[0], _mean(d)
    half = 0.0
    sd = spread(d)
    if sd > 0:
        level = (1 + confidence) / 2 if alternative == "two-sided" else confidence
        half = float(student.ppf(level, n - 1)) * sd / math.sqrt(n)
    return ConfidenceInterval(*open_side(mean - half, mean + half, alternative))


def _one_sided_certain(mean: float, alternative: str) -> float:
    """p-value when every difference is the same non-zero number (no variation)."""
    if alternative == "two-sided":
        return 0.0
    return 0.0 if (mean > 0) == (alternative == "greater") else 1.0


def _t_test(d: np.ndarray, alternative: str) -> tuple[float, float]:
    from scipy.stats import ttest_1samp

    mean, sd = _mean(d), spread(d)
    if sd == 0.0:
        if mean == 0.0:
            return 0.0, 1.0
        return math.copysign(math.inf, mean), _one_sided_certain(mean, alternative)
    res = ttest_1samp(d, 0.0, alternative=alternative)
    return float(res.statistic), float(res.pvalue)


def _wilcoxon(d: np.ndarray, alternative: str, zero_method: str) -> tuple[float, float]:
    from scipy.stats import wilcoxon

    if not np.any(d):
        return 0.0, 1.0
    res = wilcoxon(d, zero_method=zero_method, alternative=alternative, method="auto")
    return float(res.statistic), float(res.pvalue)


def _sign_test(d: np.ndarray, alternative: str) -> tuple[float, float]:
    from scipy.stats import binomtest

    positive, nonzero = int(np.count_nonzero(d > 0)), int(np.count_nonzero(d))
    if nonzero == 0:
        return 0.0, 1.0
    return float(positive), float(binomtest(positive, nonzero, 0.5, alternative=alternative).pvalue)


def _effect_size(d: np.ndarray) -> float:
    """Paired Cohen's d; 0 when every difference is 0, +-inf when all are the same non-zero number."""
    mean, sd = _mean(d), spread(d)
    if sd > 0:
        return mean / sd
    return 0.0 if mean == 0 else math.copysign(math.inf, mean)


def _paired_test(d: np.ndarray, k: int, test: str, alternative: str, n_resamples: int, seed: object,
                 confidence: float, ci_method: str, zero_method: str,
                 n_threads: int | None, bar: Bar | None = None) -> ComparisonResult:
    """The test on differences ``d`` in units of 2**k (``_differences``); results in the data's units.

    ``bar`` counts ``n_resamples`` for a resampled test (whatever the exact test enumerates).
    """
    bar = Bar() if bar is None else bar
    n = d.shape[0]
    if n < 2:
        raise ValueError(f"a paired comparison needs at least 2 queries, got {n}")
    mean = _mean(d)
    interval, interval_method = None, "t"
    distribution, drawn, exact, used_seed = None, None, False, None
    if test == "randomization":
        pvalue, distribution, drawn, exact, used_seed = _randomization(d, alternative, n_resamples, seed,
                                                                       n_threads, bar)
        statistic = _unscaled(mean, k)
    elif test == "bootstrap":
        statistic, pvalue, distribution, interval, used_seed = _bootstrap(
            d, alternative, n_resamples, seed, confidence, ci_method, n_threads, bar)
        statistic = _unscaled(statistic, k)
        drawn, interval_method = n_resamples, ci_method
    elif test == "t":
        statistic, pvalue = _t_test(d, alternative)
    elif test == "wilcoxon":
        statistic, pvalue = _wilcoxon(d, alternative, zero_method)
    else:
        statistic, pvalue = _sign_test(d, alternative)
        exact = True
    if interval is None:
        interval = _t_interval(d, alternative, confidence)
    interval = ConfidenceInterval(*(_unscaled(bound, k) for bound in interval))
    if distribution is not None:
        with np.errstate(under="ignore"):  # within the range of the differences: no overflow
            np.ldexp(distribution, k, out=distribution)
    return ComparisonResult(test, alternative, float(statistic), float(pvalue), _unscaled(mean, k), interval,
                            confidence, interval_method, _effect_size(d), n, drawn, exact, used_seed,
                            distribution)


def compare(a: ArrayLike | Results, b: ArrayLike | Results,
            test: str = "randomization", *, alternative: str = "two-sided", n_resamples: int = 10_000,
            seed: int | None = None, confidence: float = 0.95, metric: str | None = None,
            on_missing: str = "error", nan_policy: str = "raise", ci_method: str = "bca",
            zero_method: str = "wilcox", n_threads: int | None = None,
            progress: bool | None = None) -> ComparisonResult:
    """Paired significance test of system ``a`` against system ``b`` on the same queries.

    Parameters
    ----------
    a, b : array-like, Results, TrecResults, dict or pandas Series
        One value per query for each system. Plain arrays are paired by position; inputs
        with query ids (``Results``, ``TrecResults``, ``{query_id: value}``, Series) are
        paired by id, never by position, and put in sorted id order, so that the result
        does not depend on the order of the queries. Any object with a
        ``__rankwise_results__()`` method (the results of :func:`rankwise.spark.evaluate`
        and :func:`rankwise.dask.evaluate`) counts as the Results that method returns.
    test : {"randomization", "t", "wilcoxon", "sign", "bootstrap"}
        ``"randomization"`` (default): Fisher's paired randomization test. Under the null
        hypothesis each difference d_i = a_i - b_i is as likely to have the opposite
        sign; the statistic is the mean difference. All 2**n sign patterns are
        enumerated when 2**n <= n_resamples (exact p = b / 2**n, as
        ``scipy.stats.permutation_test``); otherwise ``n_resamples`` random patterns give
        p = (b + 1) / (n_resamples + 1). Two-sided, b counts patterns with
        ``|mean| >= |observed mean|``; sums that would be equal in exact arithmetic
        (within ``n * eps * sum |d_i|``) count as ties.
        ``"t"``: paired t-test (``scipy.stats.ttest_rel``).
        ``"wilcoxon"``: Wilcoxon signed-rank test (``scipy.stats.wilcoxon``,
        ``method="auto"``; zeros handled by ``zero_method``).
        ``"sign"``: exact binomial test of the number of positive differences among the
        non-zero ones (``scipy.stats.binomtest``).
        ``"bootstrap"``: paired bootstrap; resamples queries with replacement,
        p = (b + 1) / (n_resamples + 1) with b the resamples whose centred mean is at
        least as extreme as the observed mean, and a bootstrap confidence interval.
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: the alternative that a's values exceed b's (mean d > 0).
    n_resamples : int
        Random sign patterns or bootstrap resamples (default 10,000), from 1 to 2**30: the
        resampled distribution is returned, 8 bytes a resample.
    seed : int, optional
        Seed of the resamples, an integer from 0 to 2**128 - 1; None draws fresh entropy,
        reported as ``result.seed``. The same seed gives the same result on every run and
        for every ``n_threads``. Checked for every test, used by the random ones.
    confidence : float
        Level of the confidence interval of the mean difference (default 0.95).
    metric : str, optional
        The metric to compare when ``a`` and ``b`` are Results or TrecResults holding
        several (``"MAP"``, ``"P_10"``).
    on_missing : {"error", "intersect"}
        Inputs with ids covering different queries raise, or with ``"intersect"`` are
        compared on the queries they share.
    nan_policy : {"raise", "omit"}
        NaN values (queries left out by ``empty="skip"``) raise, or with ``"omit"`` the
        queries where either system has NaN are dropped. Infinite values always raise.
    ci_method : {"bca", "percentile", "basic"}
        The bootstrap test's interval (default BCa, as ``scipy.stats.bootstrap``).
    zero_method : {"wilcox", "pratt", "zsplit"}
        Wilcoxon's treatment of zero differences (scipy's; default ``"wilcox"`` drops them).
    n_threads : int, optional
        Threads for the resampling kernel; None or -1 for all CPUs (those this process
        may use, or ``RANKWISE_NUM_THREADS``). Results are identical
        for every thread count.
    progress : bool or None
        A progress bar of the resamples on stderr (randomization and bootstrap tests).
        None (default): shown when stderr is a terminal, tqdm is installed and the
        environment variable ``RANKWISE_PROGRESS`` is not ``0``, after half a second of
        work; False: never; True: always, or ImportError if tqdm is missing (``pip install
        "rankwise[progress]"``). Results are identical with and without it.

    Returns
    -------
    ComparisonResult
        ``statistic``, ``pvalue``, ``mean_difference``, ``confidence_interval`` (the
        bootstrap interval for ``"bootstrap"``, the Student t interval of the mean
        difference for every other test; see ``ci_method``), ``effect_size`` (paired
        Cohen's d), ``n``, ``test``, ``seed`` and the resampled ``distribution``.

    Notes
    -----
    Differences are rounded to 12 significant digits of the data's scale first, and every
    computation runs in units of a power of two of that scale, so that no finite input
    overflows (module docstring); differences beyond the float64 range (``|a - b| > 1.8e308``)
    raise. Every difference zero (identical systems) gives p = 1 for every test, effect
    size 0, statistic 0 (t, Wilcoxon, sign) and the interval [0, 0]. Every difference the
    same non-zero number gives an effect size of +-inf (sd = 0) and for the t-test a
    statistic of +-inf with p = 0 (two-sided). Fewer than 2 queries raise. Smucker, Allan
    and Carterette (CIKM 2007) recommend the randomization test or the t-test for IR
    evaluation over Wilcoxon and the sign test.

    Examples
    --------
    >>> import rankwise as rw
    >>> a = [0.5, 0.3, 0.9, 0.1, 0.7, 0.6, 0.8, 0.4]
    >>> b = [0.4, 0.35, 0.6, 0.1, 0.5, 0.2, 0.8, 0.1]
    >>> res = rw.compare(a, b)             # 2**8 = 256 sign patterns: exact
    >>> res.mean_difference, res.pvalue
    (0.15625, 0.0625)
    >>> round(rw.compare(a, b, test="t").pvalue, 7)
    0.0337581
    >>> res = rw.compare(a, b, test="bootstrap", seed=1)
    >>> res.pvalue < 0.05, res.ci_method
    (True, 'bca')

    Results are paired by query id:

    >>> res_a = rw.evaluate([[1, 0], [0, 1], [1, 0]], [[0.9, 0.1], [0.8, 0.2], [0.3, 0.7]], ["MRR"])
    >>> res_b = rw.evaluate([[1, 0], [0, 1], [1, 0]], [[0.2, 0.8], [0.8, 0.2], [0.3, 0.7]], ["MRR"])
    >>> rw.compare(res_a, res_b).mean_difference
    0.16666666666666666
    """
    n_resamples, confidence, seed = _check_test_options(test, alternative, n_resamples, confidence, ci_method,
                                                        zero_method, seed, n_threads)
    _choice(on_missing, "on_missing", _ON_MISSING)
    _choice(nan_policy, "nan_policy", _NAN_POLICIES)
    check_progress(progress)
    d, k = _paired_differences(a, b, metric, on_missing, nan_policy)
    resampled = test in ("randomization", "bootstrap")
    with progress_bar(progress if resampled else False, n_resamples, f"{test} test", "resamples") as bar:
        return _paired_test(d, k, test, alternative, n_resamples, seed, confidence, ci_method, zero_method,
                            n_threads, bar)
