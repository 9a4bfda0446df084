"""Comparing systems: paired significance tests, corrections for multiple comparisons, reports.

Paired tests take one value per query for each of two systems, aligned by query id when
the inputs carry ids (``Results``, ``TrecResults``, dicts, pandas Series) and by position
when they are plain arrays. The differences ``d = a - b`` are rounded to 12 significant
digits of the data's scale (the largest ``|a|``, ``|b|``), so that values equal in theory
but computed along different paths (``0.1 + 0.2`` and ``0.3``) count as equal: a zero
difference for the Wilcoxon and sign tests, a tie in the Wilcoxon ranks and in the
win/tie/loss counts (R's ``wilcox.test`` rounds the same way with ``digits.rank``).

The randomization and bootstrap resamples run in a nogil kernel with a counter-based
random number generator (:mod:`rankwise._kernels._resample`): a seeded result is the
same on every run and for every thread count.
"""
from __future__ import annotations

import csv
import io
import math
import sys
from collections import namedtuple
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from ._kernels._resample import bootstrap_sums, sign_flip_sums
from ._parallel import effective_n_threads
from ._results import Results
from ._validation import check_choice

__all__ = ["ComparisonReport", "ComparisonResult", "ConfidenceInterval", "MannWhitneyResult", "compare",
           "compare_systems", "correct", "mann_whitney"]

TESTS = ("randomization", "t", "wilcoxon", "sign", "bootstrap")
ALTERNATIVES = ("two-sided", "greater", "less")
CORRECTIONS = ("holm", "bonferroni", "bh", "by")
CI_METHODS = ("bca", "percentile", "basic")
ZERO_METHODS = ("wilcox", "pratt", "zsplit")
_ON_MISSING = ("error", "intersect")


class _QueriesDiffer(ValueError):
    """Inputs cover different queries and on_missing='error': the facts, for a caller to word.

    ``details`` says which queries each input has alone, ``n_shared`` how many they share;
    the message names the Python remedy (the command line names its own option).
    """

    def __init__(self, details: str, n_shared: int):
        self.details, self.n_shared = details, n_shared
        super().__init__(f"the inputs cover different queries: {details}; pass on_missing='intersect' to "
                         f"compare the {n_shared} queries they share")
_NAN_POLICIES = ("raise", "omit")
_FAMILIES = ("metric", "all")
_EPS = np.finfo(np.float64).eps
# Significant digits kept in the differences (module docstring).
_DIGITS = 12
# Below this many (resample x query) operations per thread, a thread costs more than it saves.
_MIN_WORK_PER_THREAD = 1 << 20
# Sign-flip tables: 256 doubles per group of 8 queries, at most 128 groups per block.
_TABLE_DOUBLES = 128 * 256
# Columns of ComparisonReport.to_pandas / to_csv.
RECORD_FIELDS = ("metric", "system", "other", "mean", "other_mean", "difference", "ci_low", "ci_high",
                 "effect_size", "statistic", "p_value", "p_adjusted", "significant", "wins", "ties", "losses",
                 "n")
# Default measures of compare_systems on TREC runs (trec_eval names).
TREC_MEASURES = ("map", "recip_rank", "P.10", "ndcg_cut.10")

ConfidenceInterval = namedtuple("ConfidenceInterval", ["low", "high"])
ConfidenceInterval.__doc__ = "A confidence interval: ``low`` and ``high`` (infinite on the open side)."

_TEST_NAMES = {
    "randomization": "paired randomization test (sign flips)",
    "t": "paired t-test",
    "wilcoxon": "Wilcoxon signed-rank test",
    "sign": "sign test",
    "bootstrap": "paired bootstrap test",
}


# --------------------------------------------------------------------------------------
# Result objects
# --------------------------------------------------------------------------------------

def _fmt(value: float, digits: int = 4) -> str:
    return "nan" if value is None or not np.isfinite(value) else f"{value:.{digits}g}"


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
        differences give the point interval (mean, mean); a BCa interval that is
        undefined (the observed mean outside every resampled mean) is (nan, nan).
    confidence_level : float
    ci_method : str
    effect_size : float
        Paired Cohen's d (d_z): ``mean(d) / std(d, ddof=1)``; NaN when every difference
        is zero, +-inf when the differences are equal but not zero.
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

    def __repr__(self) -> str:
        low, high = self.confidence_interval
        drawn = ""
        if self.n_resamples is not None:
            drawn = (f", exact over {self.n_resamples} sign patterns" if self.exact
                     else f", {self.n_resamples} resamples, seed={self.seed}")
        return (f"ComparisonResult(test={self.test!r}, alternative={self.alternative!r}, n={self.n}, "
                f"mean_difference={_fmt(self.mean_difference)}, statistic={_fmt(self.statistic)}, "
                f"pvalue={_fmt(self.pvalue)}, {self.confidence_level:.0%} CI ({self.ci_method})="
                f"[{_fmt(low)}, {_fmt(high)}], effect_size={_fmt(self.effect_size)}{drawn})")


@dataclass(frozen=True)
class MannWhitneyResult:
    """The outcome of :func:`mann_whitney` (independent samples).

    Attributes
    ----------
    statistic : float
        U of sample ``a``: the pairs (a_i, b_j) with a_i > b_j, plus half the ties.
    pvalue : float
    effect_size : float
        Rank-biserial correlation ``2 U / (n_a n_b) - 1`` in [-1, 1]: positive when
        values of ``a`` tend to exceed values of ``b``, 0 when neither does.
    n_a, n_b : int
    alternative : str
    test : str
        ``"mann-whitney"``.
    """

    statistic: float
    pvalue: float
    effect_size: float
    n_a: int
    n_b: int
    alternative: str
    test: str = "mann-whitney"


# --------------------------------------------------------------------------------------
# Inputs: per-query values, aligned by query id
# --------------------------------------------------------------------------------------

def _numbers(values, name: str) -> np.ndarray:
    try:
        arr = np.asarray(values)
    except ValueError:
        raise ValueError(f"{name} must be a 1-D sequence of numbers (one value per query)") from None
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must hold numbers, got dtype {arr.dtype}")
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D (one value per query), got shape {arr.shape}")
    return arr.astype(np.float64)


def _is_series(x) -> bool:
    pandas = sys.modules.get("pandas")
    return pandas is not None and isinstance(x, pandas.Series)


def _per_query(x, name: str, metric):
    """(query ids or None, float64 values) of one system."""
    from .trec import TrecResults

    if isinstance(x, (Results, TrecResults)):
        names = tuple(x.names)
        if metric is None:
            if len(names) != 1:
                raise ValueError(f"{name} holds {len(names)} metrics ({', '.join(names)}); pass metric= to "
                                 "pick one")
            metric = names[0]
        try:
            values = x[metric]
        except KeyError:
            raise ValueError(f"{name} has no metric {metric!r}; it holds {', '.join(names)}") from None
        return np.asarray(x.query_ids).tolist(), _numbers(values, name)
    if isinstance(x, Mapping):
        return list(x.keys()), _numbers(list(x.values()), name)
    if _is_series(x):
        return x.index.tolist(), _numbers(x.to_numpy(), name)
    return None, _numbers(x, name)


def _check_metric_applies(metric, *inputs) -> None:
    from .trec import TrecResults

    if metric is not None and not any(isinstance(x, (Results, TrecResults)) for x in inputs):
        raise TypeError(f"metric={metric!r} picks a column of Results or TrecResults, and neither input is "
                        "one")


def _check_unique(ids: list, name: str) -> None:
    if len(set(ids)) != len(ids):
        seen = set()
        for q in ids:
            if q in seen:
                raise ValueError(f"{name} has query id {q!r} twice")
            seen.add(q)


def _canonical_order(ids: list) -> list:
    """Positions of ``ids`` in sorted order (the input order if the ids do not sort)."""
    try:
        return sorted(range(len(ids)), key=ids.__getitem__)
    except TypeError:
        return list(range(len(ids)))


def _align(systems: list, on_missing: str):
    """Align (name, ids, values) triples by query id; returns (ids or None, [values])."""
    keyed = [ids is not None for _, ids, _ in systems]
    if not any(keyed):
        lengths = {values.shape[0] for _, _, values in systems}
        if len(lengths) > 1:
            sizes = " and ".join(f"{values.shape[0]} ({name})" for name, _, values in systems)
            raise ValueError(f"per-query arrays must have the same length (one value per query, in the same "
                             f"order), got {sizes}")
        return None, [values for _, _, values in systems]
    if not all(keyed):
        plain = next(name for (name, ids, _) in systems if ids is None)
        raise TypeError(f"{plain} is a plain array but the other input carries query ids; pass both as "
                        "arrays (aligned by position) or both with ids (Results, TrecResults, dict, Series)")
    for name, ids, _ in systems:
        _check_unique(ids, name)
    positions = [dict(zip(ids, range(len(ids)), strict=True)) for _, ids, _ in systems]
    first_ids = systems[0][1]
    common = [q for q in first_ids if all(q in pos for pos in positions[1:])]
    if on_missing == "error" and any(len(ids) != len(common) for _, ids, _ in systems):
        shared = set(common)
        details = []
        for name, ids, _ in systems:
            only = [q for q in ids if q not in shared]
            if only:
                details.append(f"{len(only)} in {name} only (e.g. {', '.join(map(repr, only[:3]))})")
        raise _QueriesDiffer("; ".join(details), len(common))
    if not common:
        raise ValueError("the inputs have no query id in common")
    common = [common[i] for i in _canonical_order(common)]
    values = [v[np.fromiter((pos[q] for q in common), dtype=np.int64, count=len(common))]
              for (_, _, v), pos in zip(systems, positions, strict=True)]
    return common, values


def _where(ids, i: int) -> str:
    return f"position {i}" if ids is None else f"query {ids[i]!r}"


def _finite_rows(ids, names: list, values: list, nan_policy: str):
    """Drop rows with a NaN anywhere (nan_policy='omit') or raise; infinities always raise."""
    keep = np.ones(values[0].shape[0], dtype=bool)
    for name, v in zip(names, values, strict=True):
        infinite = np.isinf(v)
        if infinite.any():
            i = int(np.flatnonzero(infinite)[0])
            raise ValueError(f"{name} is {v[i]} at {_where(ids, i)}; values must be finite")
        missing = np.isnan(v)
        if missing.any():
            if nan_policy == "raise":
                i = int(np.flatnonzero(missing)[0])
                raise ValueError(f"{name} is NaN at {_where(ids, i)} (a query left out, e.g. by "
                                 "empty='skip'?); pass nan_policy='omit' to drop such queries")
            keep &= ~missing
    if keep.all():
        return ids, values
    rows = np.flatnonzero(keep)
    return (None if ids is None else [ids[i] for i in rows]), [v[rows] for v in values]


def _scale_digits(scale: float) -> int | None:
    """Decimals that keep _DIGITS significant digits of ``scale`` (None: leave values alone)."""
    if not scale > 1e-290:
        return None
    return _DIGITS - 1 - math.floor(math.log10(scale))


def _snap(values: np.ndarray, scale: float) -> np.ndarray:
    decimals = _scale_digits(scale)
    if decimals is None:
        return values.copy()
    out = np.round(values, decimals)
    out += 0.0  # no negative zeros
    return out


def _differences(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    scale = max(float(np.abs(a).max(initial=0.0)), float(np.abs(b).max(initial=0.0)))
    return _snap(a - b, scale)


# --------------------------------------------------------------------------------------
# Argument checks
# --------------------------------------------------------------------------------------

def _check_int(value, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an integer, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {value!r}")
    return int(value)


def _check_fraction(value, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a number in (0, 1), got {value!r}")
    if not 0 < float(value) < 1:
        raise ValueError(f"{name} must be in (0, 1), got {value!r}")
    return float(value)


def _resolve_seed(seed):
    """(seed as an int, two 64-bit kernel keys); None draws fresh entropy."""
    if seed is None:
        seed = int(np.random.SeedSequence().entropy)
    elif isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be a non-negative integer or None, got {seed!r}")
    elif seed < 0:
        raise ValueError(f"seed must be a non-negative integer or None, got {seed!r}")
    seed = int(seed)
    key0, key1 = np.random.SeedSequence(seed).generate_state(2, dtype=np.uint64).tolist()
    return seed, key0, key1


# --------------------------------------------------------------------------------------
# Resampling (the kernel, over threads)
# --------------------------------------------------------------------------------------

def _over_resamples(task, n_resamples: int, work_per_resample: int, n_threads) -> None:
    """Call ``task(r_start, r_stop)`` over 0..n_resamples-1 in equal chunks, one per thread."""
    threads = effective_n_threads(n_threads)
    threads = min(threads, n_resamples, max(n_resamples * work_per_resample // _MIN_WORK_PER_THREAD, 1))
    if threads <= 1:
        task(0, n_resamples)
        return
    bounds = np.linspace(0, n_resamples, threads + 1).astype(np.int64).tolist()
    with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="rankwise-resample") as pool:
        futures = [pool.submit(task, a, b) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
        for future in futures:
            future.result()


def _sign_flip_distribution(d: np.ndarray, exact: bool, n_resamples: int, key0: int, key1: int,
                            n_threads) -> np.ndarray:
    """Signed sums of ``d``: every sign pattern (exact) or ``n_resamples`` random ones."""
    out = np.empty(n_resamples)
    table_size = min(-(-d.shape[0] // 8) * 256, _TABLE_DOUBLES)

    def task(r_start, r_stop):
        sign_flip_sums(d, key0, key1, exact, r_start, r_stop, out[r_start:r_stop], np.empty(table_size))

    _over_resamples(task, n_resamples, max(d.shape[0] // 8, 1), n_threads)
    return out


def _bootstrap_distribution(d: np.ndarray, n_resamples: int, key0: int, key1: int, n_threads) -> np.ndarray:
    out = np.empty(n_resamples)

    def task(r_start, r_stop):
        bootstrap_sums(d, key0, key1, r_start, r_stop, out[r_start:r_stop])

    _over_resamples(task, n_resamples, d.shape[0], n_threads)
    return out


def _count_extreme(null: np.ndarray, observed: float, tolerance: float, alternative: str) -> int:
    """Resampled statistics at least as extreme as the observed one, ties within ``tolerance`` included."""
    if alternative == "greater":
        return int(np.count_nonzero(null >= observed - tolerance))
    if alternative == "less":
        return int(np.count_nonzero(null <= observed + tolerance))
    return int(np.count_nonzero(np.abs(null) >= abs(observed) - tolerance))


def _randomization(d, alternative, n_resamples, seed, n_threads):
    n = d.shape[0]
    exact = n <= 62 and (1 << n) <= n_resamples
    # Rounding in a sum of n terms moves it by less than (n - 1) * eps / 2 * sum|d_i| in any order
    # of addition, so sign patterns whose sums are equal in exact arithmetic land within this of
    # each other, and count as ties with the observed sum.
    tolerance = n * _EPS * float(np.abs(d).sum())
    observed = float(_sign_flip_distribution(d, True, 1, 0, 0, 1)[0])
    if exact:
        sums = _sign_flip_distribution(d, True, 1 << n, 0, 0, n_threads)
        count = _count_extreme(sums, observed, tolerance, alternative)
        pvalue, drawn, seed = count / sums.shape[0], sums.shape[0], None
    else:
        seed, key0, key1 = _resolve_seed(seed)
        sums = _sign_flip_distribution(d, False, n_resamples, key0, key1, n_threads)
        count = _count_extreme(sums, observed, tolerance, alternative)
        pvalue, drawn = (count + 1) / (n_resamples + 1), n_resamples
    return min(pvalue, 1.0), sums / n, drawn, exact, seed


def _bootstrap(d, alternative, n_resamples, seed, confidence, ci_method, n_threads):
    from scipy.special import ndtr, ndtri

    n = d.shape[0]
    if n >= 1 << 32:
        raise ValueError(f"the bootstrap draws indices below 2**32; got {n} queries")
    seed, key0, key1 = _resolve_seed(seed)
    means = _bootstrap_distribution(d, n_resamples, key0, key1, n_threads) / n
    observed = float(np.mean(d))
    # A resampled sum adds n values of magnitude at most max|d|: its rounding error stays
    # below n * eps * max|d| once divided by n.
    tolerance = n * _EPS * float(np.abs(d).max())
    count = _count_extreme(means - observed, observed, tolerance, alternative)
    pvalue = min((count + 1) / (n_resamples + 1), 1.0)

    alpha = (1 - confidence) / 2 if alternative == "two-sided" else 1 - confidence
    centred = d - observed
    spread = float(np.sum(centred**2))
    if _spread(d) == 0.0:
        low = high = observed
    else:
        if ci_method == "bca":
            # scipy.stats.bootstrap's BCa; the jackknife of a mean has the closed form d_i - mean.
            below = np.count_nonzero(means < observed) + np.count_nonzero(means <= observed)
            below /= 2 * n_resamples
            z0 = float(ndtri(below))
            acceleration = float(np.sum(centred**3)) / (6 * spread**1.5)
            z = float(ndtri(alpha))
            levels = [float(ndtr(z0 + (z0 + zz) / (1 - acceleration * (z0 + zz)))) for zz in (z, -z)]
        else:
            levels = [alpha, 1 - alpha]
        if any(not np.isfinite(level) for level in levels):
            low = high = float("nan")
        else:
            low, high = np.quantile(means, levels).tolist()
            if ci_method == "basic":
                low, high = 2 * observed - high, 2 * observed - low
    if alternative == "greater":
        high = math.inf
    elif alternative == "less":
        low = -math.inf
    return observed, pvalue, means, ConfidenceInterval(low, high), seed


def _spread(d: np.ndarray) -> float:
    """Sample standard deviation; exactly 0 when every difference is the same number."""
    return 0.0 if np.all(d == d[0]) else float(np.std(d, ddof=1))


def _t_interval(d: np.ndarray, alternative: str, confidence: float) -> ConfidenceInterval:
    from scipy.stats import t as student

    n, mean = d.shape[0], float(np.mean(d))
    half = 0.0
    sd = _spread(d)
    if sd > 0:
        level = (1 + confidence) / 2 if alternative == "two-sided" else confidence
        half = float(student.ppf(level, n - 1)) * sd / math.sqrt(n)
    low, high = mean - half, mean + half
    if alternative == "greater":
        high = math.inf
    elif alternative == "less":
        low = -math.inf
    return ConfidenceInterval(low, high)


def _one_sided_certain(mean: float, alternative: str) -> float:
    """p-value when every difference is the same non-zero number (no variation)."""
    if alternative == "two-sided":
        return 0.0
    return 0.0 if (mean > 0) == (alternative == "greater") else 1.0


def _t_test(d, alternative):
    from scipy.stats import ttest_1samp

    mean, sd = float(np.mean(d)), _spread(d)
    if sd == 0.0:
        if mean == 0.0:
            return float("nan"), 1.0
        return math.copysign(math.inf, mean), _one_sided_certain(mean, alternative)
    res = ttest_1samp(d, 0.0, alternative=alternative)
    return float(res.statistic), float(res.pvalue)


def _wilcoxon(d, alternative, zero_method):
    from scipy.stats import wilcoxon

    if not np.any(d):
        return 0.0, 1.0
    res = wilcoxon(d, zero_method=zero_method, alternative=alternative, method="auto")
    return float(res.statistic), float(res.pvalue)


def _sign_test(d, alternative):
    from scipy.stats import binomtest

    positive, nonzero = int(np.count_nonzero(d > 0)), int(np.count_nonzero(d))
    if nonzero == 0:
        return 0.0, 1.0
    return float(positive), float(binomtest(positive, nonzero, 0.5, alternative=alternative).pvalue)


def _effect_size(d: np.ndarray) -> float:
    mean, sd = float(np.mean(d)), _spread(d)
    if sd > 0:
        return mean / sd
    return float("nan") if mean == 0 else math.copysign(math.inf, mean)


def _paired_test(d, test, alternative, n_resamples, seed, confidence, ci_method, zero_method,
                 n_threads) -> ComparisonResult:
    n = d.shape[0]
    if n < 2:
        raise ValueError(f"a paired comparison needs at least 2 queries, got {n}")
    mean = float(np.mean(d))
    interval, interval_method = None, "t"
    distribution, drawn, exact, used_seed = None, None, False, None
    if test == "randomization":
        pvalue, distribution, drawn, exact, used_seed = _randomization(d, alternative, n_resamples, seed,
                                                                       n_threads)
        statistic = mean
    elif test == "bootstrap":
        statistic, pvalue, distribution, interval, used_seed = _bootstrap(
            d, alternative, n_resamples, seed, confidence, ci_method, n_threads)
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
    return ComparisonResult(test, alternative, float(statistic), float(pvalue), mean, interval, confidence,
                            interval_method, _effect_size(d), n, drawn, exact, used_seed, distribution)


def _check_test_options(test, alternative, n_resamples, confidence, ci_method, zero_method):
    check_choice(test, "test", TESTS)
    check_choice(alternative, "alternative", ALTERNATIVES)
    check_choice(ci_method, "ci_method", CI_METHODS)
    check_choice(zero_method, "zero_method", ZERO_METHODS)
    return _check_int(n_resamples, "n_resamples", 1), _check_fraction(confidence, "confidence")


# --------------------------------------------------------------------------------------
# Public functions
# --------------------------------------------------------------------------------------

def compare(a, b, test="randomization", *, alternative="two-sided", n_resamples=10_000, seed=None,
            confidence=0.95, metric=None, on_missing="error", nan_policy="raise", ci_method="bca",
            zero_method="wilcox", n_threads=None) -> ComparisonResult:
    """Paired significance test of system ``a`` against system ``b`` on the same queries.

    Parameters
    ----------
    a, b : array-like, Results, TrecResults, dict or pandas Series
        One value per query for each system. Plain arrays are paired by position; inputs
        with query ids (``Results``, ``TrecResults``, ``{query_id: value}``, Series) are
        paired by id, never by position, and put in sorted id order, so that the result
        does not depend on the order of the queries.
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
        Random sign patterns or bootstrap resamples (default 10,000).
    seed : int, optional
        Seed of the resamples; None draws fresh entropy, reported as ``result.seed``.
        The same seed gives the same result on every run and for every ``n_threads``.
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
        Threads for the resampling kernel; None or -1 for all CPUs. Results are identical
        for every thread count.

    Returns
    -------
    ComparisonResult
        ``statistic``, ``pvalue``, ``mean_difference``, ``confidence_interval`` (the
        bootstrap interval for ``"bootstrap"``, the Student t interval of the mean
        difference for every other test; see ``ci_method``), ``effect_size`` (paired
        Cohen's d), ``n``, ``test``, ``seed`` and the resampled ``distribution``.

    Notes
    -----
    Differences are rounded to 12 significant digits of the data's scale first (module
    docstring). Every difference zero (identical systems) gives p = 1 for every test;
    fewer than 2 queries raise. Smucker, Allan and Carterette (CIKM 2007) recommend the
    randomization test or the t-test for IR evaluation over Wilcoxon and the sign test.

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
    n_resamples, confidence = _check_test_options(test, alternative, n_resamples, confidence, ci_method,
                                                  zero_method)
    check_choice(on_missing, "on_missing", _ON_MISSING)
    check_choice(nan_policy, "nan_policy", _NAN_POLICIES)
    _check_metric_applies(metric, a, b)
    id_a, values_a = _per_query(a, "a", metric)
    id_b, values_b = _per_query(b, "b", metric)
    ids, (values_a, values_b) = _align([("a", id_a, values_a), ("b", id_b, values_b)], on_missing)
    ids, (values_a, values_b) = _finite_rows(ids, ["a", "b"], [values_a, values_b], nan_policy)
    return _paired_test(_differences(values_a, values_b), test, alternative, n_resamples, seed, confidence,
                        ci_method, zero_method, n_threads)


def mann_whitney(a, b, *, alternative="two-sided", metric=None, nan_policy="raise") -> MannWhitneyResult:
    """Mann-Whitney U test for two independent samples (e.g. two datasets of test triples).

    Ignores any pairing: use :func:`compare` when both systems ran on the same queries.

    Parameters
    ----------
    a, b : array-like, Results or TrecResults
        The two samples (any lengths).
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: values of ``a`` tend to exceed those of ``b``.
    metric : str, optional
        The metric to take from Results holding several.
    nan_policy : {"raise", "omit"}
        NaN values raise, or with ``"omit"`` are dropped from their sample.

    Returns
    -------
    MannWhitneyResult
        ``statistic`` (U of ``a``), ``pvalue`` (``scipy.stats.mannwhitneyu`` with
        ``method="auto"``: exact for small samples without ties, otherwise the normal
        approximation with tie and continuity corrections), ``effect_size`` (rank-biserial
        correlation 2U / (n_a n_b) - 1, positive when ``a`` tends to be larger), ``n_a``,
        ``n_b``.

    Notes
    -----
    Values are rounded to 12 significant digits of the larger sample's scale first, so that
    equal values computed along different paths tie.

    Examples
    --------
    >>> import rankwise as rw
    >>> a = [0.5, 0.3, 0.9, 0.1, 0.7, 0.6, 0.8, 0.4]
    >>> b = [0.4, 0.35, 0.6, 0.1, 0.5, 0.2, 0.8, 0.1]
    >>> res = rw.mann_whitney(a, b)
    >>> res.statistic, round(res.pvalue, 7), res.effect_size
    (43.0, 0.2673159, 0.34375)
    """
    from scipy.stats import mannwhitneyu

    check_choice(alternative, "alternative", ALTERNATIVES)
    check_choice(nan_policy, "nan_policy", _NAN_POLICIES)
    _check_metric_applies(metric, a, b)
    samples = []
    for name, x in (("a", a), ("b", b)):
        ids, values = _per_query(x, name, metric)
        ids, (values,) = _finite_rows(ids, [name], [values], nan_policy)
        if values.shape[0] == 0:
            raise ValueError(f"{name} is empty; the Mann-Whitney test needs at least one value per sample")
        samples.append(values)
    scale = max(float(np.abs(s).max()) for s in samples)
    x, y = (_snap(s, scale) for s in samples)
    res = mannwhitneyu(x, y, alternative=alternative, method="auto")
    u = float(res.statistic)
    n_a, n_b = x.shape[0], y.shape[0]
    return MannWhitneyResult(u, float(res.pvalue), 2 * u / (n_a * n_b) - 1, n_a, n_b, alternative)


def correct(pvalues, method="holm") -> np.ndarray:
    """Adjust p-values for multiple comparisons.

    Parameters
    ----------
    pvalues : array-like of float in [0, 1]
        One family of p-values (any shape; every entry belongs to the family). NaN
        raises: leave undefined comparisons out of the family.
    method : {"holm", "bonferroni", "bh", "by"}
        Family-wise error rate: ``"bonferroni"`` (min(1, m p)) and ``"holm"`` (step-down,
        as ``statsmodels.stats.multitest.multipletests``). False discovery rate:
        ``"bh"`` (Benjamini-Hochberg) and ``"by"`` (Benjamini-Yekutieli, valid under any
        dependence), as ``scipy.stats.false_discovery_control``.

    Returns
    -------
    ndarray of float64
        Adjusted p-values, same shape and order as the input, monotone in the raw
        p-values and clipped at 1. Compare them with alpha.

    Examples
    --------
    >>> import rankwise as rw
    >>> p = [0.01, 0.04, 0.03, 0.005, 0.2]
    >>> rw.correct(p, "holm")
    array([0.04 , 0.09 , 0.09 , 0.025, 0.2  ])
    >>> rw.correct(p, "bh")
    array([0.025, 0.05 , 0.05 , 0.025, 0.2  ])
    """
    check_choice(method, "method", CORRECTIONS)
    try:
        p = np.array(pvalues, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError("pvalues must be numbers in [0, 1]") from None
    flat = p.ravel()
    if np.isnan(flat).any():
        position = int(np.flatnonzero(np.isnan(flat))[0])
        raise ValueError(f"pvalues has NaN at position {position}; leave undefined comparisons out of the "
                         "family")
    if ((flat < 0) | (flat > 1)).any():
        bad = float(flat[(flat < 0) | (flat > 1)][0])
        raise ValueError(f"pvalues must lie in [0, 1], got {bad!r}")
    m = flat.shape[0]
    if m == 0:
        return p
    order = np.argsort(flat, kind="stable")
    ranked = flat[order]
    rank = np.arange(1, m + 1, dtype=np.float64)
    if method == "bonferroni":
        adjusted = m * ranked
    elif method == "holm":
        adjusted = np.maximum.accumulate((m - rank + 1) * ranked)
    else:
        adjusted = ranked * m / rank
        if method == "by":
            adjusted *= np.sum(1.0 / rank)
        adjusted = np.minimum.accumulate(adjusted[::-1])[::-1]
    out = np.empty(m)
    out[order] = np.minimum(adjusted, 1.0)
    return out.reshape(p.shape)


# --------------------------------------------------------------------------------------
# Many systems: compare_systems and its report
# --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Comparison:
    """One row of a :class:`ComparisonReport`: ``system`` against ``other`` on one metric.

    ``wins`` / ``ties`` / ``losses`` count queries where ``system`` scored higher / the
    same / lower than ``other``; ``p_adjusted`` is corrected over the report's family and
    ``significant`` is ``p_adjusted < alpha``.
    """

    metric: str
    system: str
    other: str
    result: ComparisonResult
    p_adjusted: float
    significant: bool
    wins: int
    ties: int
    losses: int

    def record(self, means: dict) -> dict:
        r = self.result
        return {"metric": self.metric, "system": self.system, "other": self.other,
                "mean": means[self.metric][self.system], "other_mean": means[self.metric][self.other],
                "difference": r.mean_difference, "ci_low": r.confidence_interval.low,
                "ci_high": r.confidence_interval.high, "effect_size": r.effect_size, "statistic": r.statistic,
                "p_value": r.pvalue, "p_adjusted": self.p_adjusted, "significant": self.significant,
                "wins": self.wins, "ties": self.ties, "losses": self.losses, "n": r.n}


_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def _latex(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in text)


def _letters(count: int) -> list:
    """a, b, ..., z, aa, ab, ... : labels of systems in an all-pairs report."""
    out = []
    for i in range(count):
        label, i = "", i + 1
        while i:
            i, rest = divmod(i - 1, 26)
            label = chr(ord("a") + rest) + label
        out.append(label)
    return out


def _table(rows: list, right: set) -> list:
    """Plain-text columns: rows of strings, padded; columns in ``right`` aligned right."""
    widths = [max(len(row[j]) for row in rows) for j in range(len(rows[0]))]
    return ["  ".join(cell.rjust(w) if j in right else cell.ljust(w) for j, (cell, w)
                      in enumerate(zip(row, widths, strict=True))).rstrip() for row in rows]


class ComparisonReport:
    """Systems compared metric by metric: means, paired tests, corrected p-values.

    Made by :func:`compare_systems`. ``repr`` is a plain-text report; ``to_markdown``,
    ``to_latex`` and ``to_csv`` give the tables as text and ``to_pandas`` a DataFrame with
    one row per comparison.

    Attributes
    ----------
    systems : tuple of str
    metrics : tuple of str
    baseline : str or None
        None: every pair of systems was compared.
    means : dict
        ``means[metric][system]``: the mean over the compared queries.
    comparisons : tuple of Comparison
        One per (metric, pair), metric by metric.
    n_queries : dict
        Queries compared per metric.
    test, alternative, correction, family, alpha, n_resamples, seed
        The options of the call (``correction`` None: raw p-values; ``family``
        ``"metric"``: each metric's comparisons are corrected together, ``"all"``: every
        comparison of the report).
    """

    def __init__(self, systems, metrics, baseline, means, comparisons, n_queries, options):
        self.systems = tuple(systems)
        self.metrics = tuple(metrics)
        self.baseline = baseline
        self.means = means
        self.comparisons = tuple(comparisons)
        self.n_queries = n_queries
        for name, value in options.items():
            setattr(self, name, value)

    # -- pieces shared by the layouts --------------------------------------------------

    def _marks(self) -> dict:
        """(metric, system) -> the marks of its mean: "*" against the baseline, or letters."""
        marks = {(m, s): "" for m in self.metrics for s in self.systems}
        letters = dict(zip(self.systems, _letters(len(self.systems)), strict=True))
        for c in self.comparisons:
            if not c.significant:
                continue
            if self.baseline is not None:
                marks[c.metric, c.system] = "*"
            else:
                winner, loser = ((c.system, c.other) if c.result.mean_difference > 0 else (c.other, c.system))
                marks[c.metric, winner] += letters[loser]
        for key, value in marks.items():
            if self.baseline is None and value:
                marks[key] = "".join(sorted(value, key=lambda x: (len(x), x)))
        return marks

    def _system_label(self, system: str) -> str:
        if self.baseline is None:
            return f"({_letters(len(self.systems))[self.systems.index(system)]}) {system}"
        return f"{system} (baseline)" if system == self.baseline else system

    def _description(self) -> str:
        r = self.comparisons[0].result if self.comparisons else None
        how = ""
        if r is not None and self.test == "randomization":
            how = (f", exact over all {r.n_resamples:,} sign patterns" if r.exact
                   else f", {self.n_resamples:,} random sign patterns, seed {self.seed}")
        elif self.test == "bootstrap":
            how = f", {self.n_resamples:,} resamples, seed {self.seed}"
        counts = sorted(set(self.n_queries.values()))
        queries = f"{counts[0]} queries" if len(counts) == 1 else f"{counts[0]}-{counts[-1]} queries"
        against = f"against baseline {self.baseline}" if self.baseline is not None else "all pairs"
        return (f"{len(self.systems)} systems, {queries}, {against}: {self.alternative} "
                f"{_TEST_NAMES[self.test]}{how}")

    def _legend(self) -> str:
        if self.correction is None:
            adjusted = "p"
        else:
            name = {"holm": "Holm", "bonferroni": "Bonferroni", "bh": "Benjamini-Hochberg",
                    "by": "Benjamini-Yekutieli"}[self.correction]
            scope = "the comparisons of each metric" if self.family == "metric" else "all comparisons"
            adjusted = f"p adjusted ({name}, over {scope})"
        if self.baseline is not None:
            return f"*: {adjusted} < {self.alpha:g} against the baseline"
        return f"letters: the mean is higher than that system's, with {adjusted} < {self.alpha:g}"

    def _mean_rows(self, mark) -> list:
        marks = self._marks()
        rows = [["system", *self.metrics]]
        for s in self.systems:
            rows.append([self._system_label(s),
                         *(f"{self.means[m][s]:.4f}{mark(marks[m, s])}" for m in self.metrics)])
        return rows

    def _detail_rows(self) -> list:
        ci_method = self.comparisons[0].result.ci_method if self.comparisons else "t"
        level = self.comparisons[0].result.confidence_level if self.comparisons else 0.95
        rows = [["comparison", "metric", "difference", f"{level:.0%} CI ({ci_method})", "effect size", "p",
                 "p adjusted", "W/T/L"]]
        for c in self.comparisons:
            r = c.result
            low, high = r.confidence_interval
            rows.append([f"{c.system} vs {c.other}", c.metric, f"{r.mean_difference:+.4f}",
                         f"[{low:+.4f}, {high:+.4f}]", f"{r.effect_size:+.2f}", f"{r.pvalue:.4f}",
                         f"{c.p_adjusted:.4f}", f"{c.wins}/{c.ties}/{c.losses}"])
        return rows

    # -- layouts -------------------------------------------------------------------------

    def to_text(self) -> str:
        """The plain-text report (also ``repr``)."""
        mark = (lambda m: m) if self.baseline is not None else (lambda m: f"^{m}" if m else "")
        means = self._mean_rows(mark)
        lines = [f"Comparison of {self._description()}.", ""]
        lines += _table(means, set(range(1, len(means[0]))))
        lines += [self._legend(), ""]
        lines += _table(self._detail_rows(), {2, 4, 5, 6})
        lines.append("W/T/L: queries where the first system scores higher / the same / lower")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return self.to_text()

    def to_markdown(self) -> str:
        """GitHub-flavoured Markdown: the means with marks, the legend, then every comparison."""
        mark = ((lambda m: r"\*" if m else "") if self.baseline is not None
                else (lambda m: f"<sup>{m}</sup>" if m else ""))

        def table(rows, right):
            head = "| " + " | ".join(rows[0]) + " |"
            rule = "|" + "|".join("---:" if j in right else ":---" for j in range(len(rows[0]))) + "|"
            return [head, rule] + ["| " + " | ".join(row) + " |" for row in rows[1:]]

        means = self._mean_rows(mark)
        legend = self._legend().replace("*", r"\*", 1) if self.baseline is not None else self._legend()
        lines = [f"Comparison of {self._description()}.", ""]
        lines += table(means, set(range(1, len(means[0]))))
        lines += ["", legend, ""]
        lines += table(self._detail_rows(), {2, 4, 5, 6})
        lines += ["", "W/T/L: queries where the first system scores higher / the same / lower"]
        return "\n".join(lines)

    def to_latex(self) -> str:
        """A booktabs ``tabular`` of the means with marks; the legend as a comment above it."""
        marks = self._marks()
        columns = "l" + "r" * len(self.metrics)
        lines = [f"% {self._description()}", f"% {self._legend()}",
                 rf"\begin{{tabular}}{{{columns}}}", r"\toprule",
                 " & ".join(["System", *map(_latex, self.metrics)]) + r" \\", r"\midrule"]
        for s in self.systems:
            cells = [_latex(self._system_label(s))]
            for m in self.metrics:
                mark = marks[m, s]
                cells.append(f"{self.means[m][s]:.4f}" + (f"$^{{{mark}}}$" if mark else ""))
            lines.append(" & ".join(cells) + r" \\")
        lines += [r"\bottomrule", r"\end{tabular}"]
        return "\n".join(lines)

    def _records(self) -> list:
        return [c.record(self.means) for c in self.comparisons]

    def to_csv(self) -> str:
        """One line per comparison (the columns of :meth:`to_pandas`)."""
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=RECORD_FIELDS, lineterminator="\n")
        writer.writeheader()
        for record in self._records():
            writer.writerow({k: (repr(v) if isinstance(v, float) else v) for k, v in record.items()})
        return buffer.getvalue()

    def to_pandas(self):
        """One row per comparison: metric, system, other, their means, difference, CI, effect
        size, statistic, raw and adjusted p-values, significance, wins/ties/losses, n. Needs pandas."""
        try:
            import pandas as pd
        except ImportError:
            raise ImportError("ComparisonReport.to_pandas() needs pandas: "
                              "pip install 'rankwise[pandas]'") from None
        return pd.DataFrame(self._records())


def _systems(runs) -> list:
    """[(name, system)] from a dict, or a sequence of named Runs / TrecResults."""
    from .trec import Run, TrecResults

    if isinstance(runs, Mapping):
        items = [(str(name), system) for name, system in runs.items()]
    elif isinstance(runs, (list, tuple)):
        items = []
        for system in runs:
            if isinstance(system, Run):
                items.append((system.name, system))
            elif isinstance(system, TrecResults):
                items.append((system.run_name, system))
            else:
                raise TypeError("a list of systems must hold Runs or TrecResults (named by their run id); "
                                f"pass a dict name -> system for {type(system).__name__}")
    else:
        raise TypeError("runs must be a dict name -> Results/Run, or a list of Runs, got "
                        f"{type(runs).__name__}")
    names = [name for name, _ in items]
    if len(set(names)) != len(names):
        raise ValueError(f"system names must be unique, got {names}")
    if len(items) < 2:
        raise ValueError(f"compare_systems needs at least 2 systems, got {len(items)}")
    return items


def _evaluated(items, qrels, metrics, complete, n_threads):
    """Every system as Results / TrecResults, and the metric names to compare."""
    from .trec import Qrels, Run, TrecResults, trec_eval

    out = []
    for name, system in items:
        if isinstance(system, Run):
            if not isinstance(qrels, Qrels):
                raise TypeError(f"system {name!r} is a Run: pass qrels (a Qrels) to evaluate it")
            system = trec_eval(qrels, system, list(metrics or TREC_MEASURES), complete=complete,
                               n_threads=n_threads)
        elif not isinstance(system, (Results, TrecResults)):
            raise TypeError(f"system {name!r} must be Results, TrecResults or a Run, got "
                            f"{type(system).__name__}")
        out.append((name, system))
    evaluated_runs = [system for (_, system), (_, given) in zip(out, items, strict=True)
                      if isinstance(given, Run)]
    if evaluated_runs:
        names = list(evaluated_runs[0].names)
    elif metrics is None:
        names = list(out[0][1].names)
    else:
        names = list(metrics)
    if not names:
        raise ValueError("no metric to compare")
    return out, names


def compare_systems(runs, qrels=None, metrics=None, *, baseline=None, test="randomization", correction="holm",
                    alpha=0.05, family="metric", alternative="two-sided", n_resamples=10_000, seed=None,
                    confidence=0.95, on_missing="error", nan_policy="raise", complete=False,
                    n_threads=None) -> ComparisonReport:
    """Compare systems metric by metric: means, paired tests, corrected p-values, a report.

    Parameters
    ----------
    runs : dict or list
        ``{name: system}`` where a system is ``Results`` (from :func:`rankwise.evaluate`),
        ``TrecResults`` or a ``Run`` (evaluated against ``qrels`` with
        :func:`rankwise.trec_eval`); or a list of Runs / TrecResults named by their run id.
    qrels : Qrels, optional
        Needed for Runs.
    metrics : list of str, optional
        For Runs, trec_eval measures (``"map"``, ``"ndcg_cut.10"``, ``"P.10"``; default
        map, recip_rank, P.10 and ndcg_cut.10), compared under trec_eval's printed names
        (``P_10``). For Results, their metric names (default: every metric of the first).
    baseline : str, optional
        Compare every other system against this one; None compares every pair.
    test : str
        A test of :func:`compare` (default ``"randomization"``).
    correction : {"holm", "bonferroni", "bh", "by"} or None
        Adjustment of the p-values (:func:`correct`); None keeps them raw.
    alpha : float
        Significance level of the marks in the tables (applied to adjusted p-values).
    family : {"metric", "all"}
        What is corrected together: ``"metric"`` (default) the comparisons of one metric
        (k - 1 against a baseline, k (k - 1) / 2 for all pairs), ``"all"`` every
        comparison of the report.
    alternative, n_resamples, seed, confidence, nan_policy, n_threads
        As in :func:`compare`; every comparison uses the same seed.
    on_missing : {"error", "intersect"}
        Systems covering different queries raise, or with ``"intersect"`` are all
        compared on the queries they share.
    complete : bool
        For Runs: trec_eval's ``-c`` (queries of the qrels a run lacks score 0).

    Returns
    -------
    ComparisonReport

    Examples
    --------
    >>> import rankwise as rw
    >>> y_true = [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0]]
    >>> base = [[0.1, 0.5, 0.2], [0.3, 0.2, 0.1], [0.9, 0.1, 0.5], [0.2, 0.1, 0.3]]
    >>> new = [[0.9, 0.5, 0.2], [0.3, 0.8, 0.1], [0.1, 0.2, 0.5], [0.2, 0.1, 0.3]]
    >>> systems = {"base": rw.evaluate(y_true, base, ["MRR"]), "new": rw.evaluate(y_true, new, ["MRR"])}
    >>> report = rw.compare_systems(systems, metrics=["MRR"], baseline="base")
    >>> report.means
    {'MRR': {'base': 0.4583333333333333, 'new': 0.875}}
    >>> c = report.comparisons[0]          # exact: 4 of the 16 sign patterns reach |mean| >= 5/12
    >>> c.result.pvalue, (c.wins, c.ties, c.losses)
    (0.25, (3, 1, 0))
    """
    n_resamples, confidence = _check_test_options(test, alternative, n_resamples, confidence, "bca", "wilcox")
    if correction is not None:
        check_choice(correction, "correction", CORRECTIONS)
    check_choice(family, "family", _FAMILIES)
    check_choice(on_missing, "on_missing", _ON_MISSING)
    check_choice(nan_policy, "nan_policy", _NAN_POLICIES)
    alpha = _check_fraction(alpha, "alpha")
    if isinstance(metrics, str):
        metrics = [metrics]
    items = _systems(runs)
    names = [name for name, _ in items]
    if baseline is not None and baseline not in names:
        raise ValueError(f"baseline {baseline!r} is not one of the systems ({', '.join(names)})")
    systems, metrics = _evaluated(items, qrels, metrics, bool(complete), n_threads)
    if test in ("randomization", "bootstrap"):
        seed, _, _ = _resolve_seed(seed)
    else:
        seed = None
    if baseline is not None:
        pairs = [(s, baseline) for s in names if s != baseline]
    else:
        pairs = [(s, t) for i, s in enumerate(names) for t in names[i + 1:]]

    means, n_queries, rows = {}, {}, []
    for metric in metrics:
        per_system = [(name, *_per_query(system, f"system {name!r}", metric)) for name, system in systems]
        ids, values = _align(per_system, on_missing)
        ids, values = _finite_rows(ids, [f"system {n!r}" for n in names], values, nan_policy)
        if values[0].shape[0] < 2:
            raise ValueError(f"{metric}: a paired comparison needs at least 2 queries, got "
                             f"{values[0].shape[0]}")
        column = dict(zip(names, values, strict=True))
        means[metric] = {name: float(np.mean(column[name])) for name in names}
        n_queries[metric] = int(values[0].shape[0])
        for system, other in pairs:
            d = _differences(column[system], column[other])
            result = _paired_test(d, test, alternative, n_resamples, seed, confidence, "bca", "wilcox",
                                  n_threads)
            wins, ties = int(np.count_nonzero(d > 0)), int(np.count_nonzero(d == 0))
            rows.append([metric, system, other, result, wins, ties, d.shape[0] - wins - ties])

    raw = np.array([row[3].pvalue for row in rows])
    adjusted = raw.copy()
    if correction is not None:
        if family == "all":
            adjusted = correct(raw, correction)
        else:
            for metric in metrics:
                members = np.array([row[0] == metric for row in rows])
                adjusted[members] = correct(raw[members], correction)
    comparisons = [Comparison(metric, system, other, result, float(p), bool(p < alpha), wins, ties, losses)
                   for (metric, system, other, result, wins, ties, losses), p
                   in zip(rows, adjusted, strict=True)]
    options = {"test": test, "alternative": alternative, "correction": correction, "family": family,
               "alpha": alpha, "n_resamples": n_resamples, "seed": seed}
    return ComparisonReport(names, metrics, baseline, means, comparisons, n_queries, options)
