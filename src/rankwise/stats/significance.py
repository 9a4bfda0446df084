"""Comparing systems: paired significance tests, corrections for multiple comparisons, reports.

Paired tests take one value per query for each of two systems, aligned by query id when
the inputs carry ids (``Results``, ``TrecResults``, dicts, pandas Series) and by position
when they are plain arrays.

Every computation runs in units of ``2**k``, the power of two just above the data's scale
(``2**(k-1) <= max(|a|, |b|) < 2**k``): dividing by it is exact, so nothing can overflow
(differences, sums, squares, the resampling kernel's sums) or lose precision to subnormal
numbers, and the data multiplied by any power of two give the same p-values, statistics
and effect sizes, and means and intervals multiplied by it. In those units the
differences ``d = a - b`` are rounded to 12 decimals (12 significant digits of the
scale), so that values equal in theory but computed along different paths (``0.1 + 0.2``
and ``0.3``) count as equal: a zero difference for the Wilcoxon and sign tests, a tie in
the Wilcoxon ranks and in the win/tie/loss counts (R's ``wilcox.test`` rounds the same
way with ``digits.rank``).

The randomization and bootstrap resamples run in a nogil kernel with a counter-based
random number generator (:mod:`rankwise.stats._resample`): a seeded result is the
same on every run and for every thread count.
"""
from __future__ import annotations

import csv
import io
import math
import secrets
import sys
from collections import namedtuple
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._core.parallel import ChunkTask, effective_n_threads, run_over_range
from .._core.results import Results
from .._core.validation import as_array, check_choice, check_exact_integers, value_error
from ..trec.evaluation import Qrels, Run, TrecResults, trec_eval
from ._resample import bootstrap_sums, sign_flip_sums

__all__ = ["ComparisonReport", "ComparisonResult", "ConfidenceInterval", "MannWhitneyResult", "compare",
           "compare_systems", "correct", "mann_whitney"]

TESTS = ("randomization", "t", "wilcoxon", "sign", "bootstrap")
ALTERNATIVES = ("two-sided", "greater", "less")
CORRECTIONS = ("holm", "bonferroni", "bh", "by")
CI_METHODS = ("bca", "percentile", "basic")
ZERO_METHODS = ("wilcox", "pratt", "zsplit")
_ON_MISSING = ("error", "intersect")


def _queries_differ(details: str, n_shared: int) -> ValueError:
    """The error for inputs that cover different queries under on_missing='error'.

    A plain ValueError whose message names the Python remedy; it carries the facts as
    ``details`` (which queries each input has alone) and ``n_shared`` (how many they
    share), so that the command line can word its own remedy.
    """
    shared = f"the {n_shared} quer{'y' if n_shared == 1 else 'ies'} they share"
    remedy = (f"pass on_missing='intersect' to compare {shared}" if n_shared
              else "they share no query, so on_missing='intersect' cannot help either")
    return value_error(f"the inputs cover different queries: {details}; {remedy}", details=details,
                       n_shared=n_shared)


_NAN_POLICIES = ("raise", "omit")
_FAMILIES = ("metric", "all")
_EPS = np.finfo(np.float64).eps
# Decimals kept in the differences, in units of the data's power of two (module docstring).
_DIGITS = 12
_FLOAT_MAX = sys.float_info.max
# Most resamples (or exactly enumerated sign patterns) of one test. The distribution is
# returned, one float64 per resample: 8 GiB at the bound (a bootstrap interval sorts a copy of
# it), and p = (b + 1) / (N + 1) then resolves 1e-9, below any threshold a correction of a
# realistic family asks for. compare_systems keeps every comparison's distribution: the bound
# holds for their total.
MAX_RESAMPLES = 2**30
# Seeds: the kernel's two 64-bit keys hold 128 bits, as numpy's fresh entropy does.
_SEED_LIMIT = 2**128
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

def _numbers(values: Any, name: str) -> np.ndarray:
    if isinstance(values, np.ma.MaskedArray):
        raise TypeError(f"{name} is a masked array; pass the values to compare (e.g. "
                        f"{name}.filled(np.nan) with nan_policy='omit')")
    arr = as_array(values, name, f"{name} must be a 1-D sequence of numbers (one value per query)")
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must hold numbers, got dtype {arr.dtype}")
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D (one value per query), got shape {arr.shape}")
    check_exact_integers(arr, name, "pass floats if rounding is acceptable")
    return arr.astype(np.float64)


def _is_series(x: object) -> bool:
    pandas = sys.modules.get("pandas")
    return pandas is not None and isinstance(x, pandas.Series)


def _per_query(x: Any, name: str, metric: str | None) -> tuple[Any, np.ndarray]:
    """(query ids or None, float64 values) of one system."""
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
        if getattr(x.dtype, "kind", "O") in "biuf":  # nullable Int64, Float64, boolean: NA becomes NaN
            return x.index.tolist(), _numbers(x.to_numpy(dtype=np.float64, na_value=np.nan), name)
        return x.index.tolist(), _numbers(x.to_numpy(), name)
    return None, _numbers(x, name)


def _check_metric(metric: object, *inputs: object) -> None:
    if metric is None:
        return
    if not isinstance(metric, str):
        raise TypeError(f"metric must be a str (a metric name) or None, got {metric!r}")
    if not any(isinstance(x, (Results, TrecResults)) for x in inputs):
        raise TypeError(f"metric={metric!r} picks a column of Results or TrecResults, and neither input is "
                        "one")


def _check_unique(ids: list[Any], name: str) -> None:
    if len(set(ids)) != len(ids):
        seen = set()
        for q in ids:
            if q in seen:
                raise ValueError(f"{name} has query id {q!r} twice")
            seen.add(q)


def _canonical_order(ids: list[Any]) -> list[Any]:
    """Positions of ``ids`` in sorted order (the input order if the ids do not sort)."""
    try:
        return sorted(range(len(ids)), key=ids.__getitem__)
    except TypeError:
        return list(range(len(ids)))


def _id_kind(q: object) -> str:
    if isinstance(q, (bytes, np.bytes_)):
        return "bytes"
    if isinstance(q, str):
        return "text"
    return "numbers" if isinstance(q, (int, float, np.number)) else type(q).__name__


def _id_kinds_hint(systems: list[Any]) -> list[str]:
    """Why inputs share no query, when their ids are of kinds that never compare equal
    (b"q1" is not "q1", nor "1" the number 1): [a sentence] or []."""
    kinds = [{_id_kind(q) for q in ids} for _, ids, _ in systems]
    if not all(len(k) == 1 for k in kinds) or len(set.union(*kinds)) == 1:
        return []
    held = ", ".join(f"{next(iter(k))} in {name}" for (name, _, _), k in zip(systems, kinds, strict=True))
    return [f"the ids are {held}, which never equal each other (b'q1' is not 'q1', '1' is not 1)"]


def _align(systems: list[Any], on_missing: str) -> tuple[list[Any] | None, list[np.ndarray]]:
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
        if not common:
            details += _id_kinds_hint(systems)
        raise _queries_differ("; ".join(details), len(common))
    if not common:
        raise ValueError("the inputs have no query id in common")
    common = [common[i] for i in _canonical_order(common)]
    values = [v[np.fromiter((pos[q] for q in common), dtype=np.int64, count=len(common))]
              for (_, _, v), pos in zip(systems, positions, strict=True)]
    return common, values


def _where(ids: Sequence[Any] | None, i: int) -> str:
    return f"position {i}" if ids is None else f"query {ids[i]!r}"


def _finite_rows(ids: list[Any] | None, names: list[str], values: list[np.ndarray],
                 nan_policy: str) -> tuple[list[Any] | None, list[np.ndarray]]:
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


def _exponent(*arrays: np.ndarray) -> int:
    """k with 2**(k-1) <= max |x| < 2**k over the arrays (0 if every value is 0): x / 2**k lies in (-1, 1)."""
    scale = max((float(np.abs(x).max(initial=0.0)) for x in arrays), default=0.0)
    return math.frexp(scale)[1]


def _scaled(values: np.ndarray, k: int) -> np.ndarray:
    """``values / 2**k``: exact, but for parts below 2**-1022 of the scale, which rounding drops anyway."""
    with np.errstate(under="ignore"):
        return np.ldexp(values, -k)


def _unscaled(value: float, k: int) -> float:
    """``value * 2**k``; +-inf past the float64 range, as IEEE arithmetic rounds it (no warning)."""
    try:
        return math.ldexp(value, k)
    except OverflowError:
        return math.copysign(math.inf, value)


def _snap(scaled: np.ndarray) -> np.ndarray:
    """Values in units of the data's power of two, rounded to _DIGITS decimals (module docstring)."""
    out = np.round(scaled, _DIGITS)
    out += 0.0  # no negative zeros
    return out


def _mean(values: np.ndarray) -> float:
    """Mean of values of magnitude below 2, kept within [min, max] whatever the rounding."""
    return float(min(max(np.mean(values), values.min()), values.max()))


def _mean_of(values: np.ndarray) -> float:
    """Mean of any finite values, without overflow (np.mean's digits where it does not overflow)."""
    k = _exponent(values)
    return _unscaled(_mean(_scaled(values, k)), k)


def _differences(a: np.ndarray, b: np.ndarray, ids: Sequence[Any] | None,
                 names: tuple[str, str] = ("a", "b")) -> tuple[np.ndarray, int]:
    """(d, k): the snapped differences ``a - b`` in units of 2**k, and k.

    Differences beyond the float64 range raise: their mean and resamples could not be returned.
    """
    k = _exponent(a, b)
    d = _scaled(a, k) - _scaled(b, k)  # |d| < 2
    if k > 0:
        limit = math.ldexp(_FLOAT_MAX, -k)
        outside = np.abs(d) > limit
        if outside.any():
            i = int(np.flatnonzero(outside)[0])
            raise ValueError(f"{names[0]} - {names[1]} is beyond the float64 range at {_where(ids, i)} "
                             f"({float(a[i])!r} - {float(b[i])!r}); the differences must be finite: divide "
                             "both systems' values by the same power of two (p-values do not change)")
        return np.clip(_snap(d), -limit, limit), k  # rounding must not leave the range either
    return _snap(d), k


# --------------------------------------------------------------------------------------
# Argument checks
# --------------------------------------------------------------------------------------

def _choice(value: object, name: str, choices: Sequence[str]) -> str:
    """``value`` if it is one of the names ``choices``: TypeError for a non-str, ValueError otherwise."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, one of {', '.join(map(repr, choices))}, got {value!r}")
    if value not in choices and value.lower() in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}, got {value!r}; did you "
                         f"mean {value.lower()!r}?")
    return check_choice(value, name, choices)


def _check_n_resamples(value: object) -> int:
    allowed = f"an integer from 1 to 2**30 ({MAX_RESAMPLES:,})"
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"n_resamples must be {allowed}, got {value!r}")
    if not 1 <= value <= MAX_RESAMPLES:
        raise ValueError(f"n_resamples must be {allowed}, got {value!r}")
    return int(value)


def _check_fraction(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a number in (0, 1), got {value!r}")
    if not 0 < value < 1:  # int or float, compared exactly (NaN fails)
        raise ValueError(f"{name} must be in (0, 1), got {value!r}")
    return float(value)


def _check_seed(seed: object) -> int | None:
    """The seed as an int, or None: an integer in [0, 2**128)."""
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        hint = ""
        if isinstance(seed, (np.random.Generator, np.random.RandomState, np.random.SeedSequence)):
            hint = " (draw one from a Generator: seed=int(rng.integers(2**63)))"
        raise TypeError(f"seed must be an integer from 0 to 2**128 - 1 or None, got {seed!r}{hint}")
    if not 0 <= seed < _SEED_LIMIT:
        raise ValueError(f"seed must be an integer from 0 to 2**128 - 1 or None, got {seed!r}")
    return int(seed)


def _resolve_seed(seed: object) -> tuple[int, int, int]:
    """(seed as an int, two 64-bit kernel keys); None draws fresh entropy (128 bits)."""
    seed = _check_seed(seed)
    if seed is None:
        seed = secrets.randbits(128)  # what np.random.SeedSequence() draws
    key0, key1 = np.random.SeedSequence(seed).generate_state(2, dtype=np.uint64).tolist()
    return seed, key0, key1


def _allocate(n_resamples: int) -> np.ndarray:
    """The distribution's array, with an error naming n_resamples if memory runs out."""
    try:
        return np.empty(n_resamples)
    except MemoryError:
        size = 8 * n_resamples
        shown = f"{size / 2**30:.1f} GiB" if size >= 2**30 else f"{-(-size // 2**20)} MiB"
        raise MemoryError(f"n_resamples={n_resamples:,} needs {shown} for the resampled distribution, which "
                          "could not be allocated; pass fewer") from None


# --------------------------------------------------------------------------------------
# Resampling (the kernel, over threads)
# --------------------------------------------------------------------------------------

def _over_resamples(task: ChunkTask, n_resamples: int, work_per_resample: int, n_threads: int | None) -> None:
    """Call ``task(r_start, r_stop, stop=flag)`` over resamples ``0..n_resamples-1`` (shared runner)."""
    # A unit of work (a table lookup or a draw) costs 1 to 5 ns, a runner item up to 100.
    run_over_range(task, n_resamples, effective_n_threads(n_threads), n_resamples * work_per_resample // 16)


def _sign_flip_distribution(d: np.ndarray, exact: bool, n_resamples: int, key0: int, key1: int,
                            n_threads: int | None) -> np.ndarray:
    """Signed sums of ``d``: every sign pattern (exact) or ``n_resamples`` random ones."""
    out = _allocate(n_resamples)
    table_size = min(-(-d.shape[0] // 8) * 256, _TABLE_DOUBLES)

    def task(r_start: int, r_stop: int, stop: np.ndarray) -> None:
        sign_flip_sums(d, key0, key1, exact, r_start, r_stop, out[r_start:r_stop], np.empty(table_size), stop)

    _over_resamples(task, n_resamples, max(d.shape[0] // 8, 1), n_threads)
    return out


def _bootstrap_distribution(d: np.ndarray, n_resamples: int, key0: int, key1: int,
                            n_threads: int | None) -> np.ndarray:
    out = _allocate(n_resamples)

    def task(r_start: int, r_stop: int, stop: np.ndarray) -> None:
        bootstrap_sums(d, key0, key1, r_start, r_stop, out[r_start:r_stop], stop)

    _over_resamples(task, n_resamples, d.shape[0], n_threads)
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


def _means_of_sums(sums: np.ndarray, n: int, low: float, high: float) -> np.ndarray:
    """``sums / n`` in place, kept within [low, high], the range of a mean of the values summed."""
    sums /= n
    return np.clip(sums, low, high, out=sums)


def _randomization(d: np.ndarray, alternative: str, n_resamples: int, seed: object,
                   n_threads: int | None) -> tuple[float, np.ndarray, int, bool, int | None]:
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
    top = float(np.abs(d).max())
    return min(pvalue, 1.0), _means_of_sums(sums, n, -top, top), drawn, exact, seed


def _bca_levels(means: np.ndarray, observed: float, centred: np.ndarray, spread: float,
               alpha: float) -> list[float]:
    """scipy.stats.bootstrap's BCa levels; the jackknife of a mean has the closed form d_i - mean.

    NaN where BCa is undefined (the observed mean outside every resampled mean)."""
    from scipy.special import ndtr, ndtri

    below = np.count_nonzero(means < observed) + np.count_nonzero(means <= observed)
    z0 = float(ndtri(below / (2 * means.shape[0])))
    acceleration = float(np.sum(centred**3)) / (6 * spread**1.5)
    z = float(ndtri(alpha))
    with np.errstate(divide="ignore", invalid="ignore"):  # z0 infinite, or a zero denominator: as scipy
        shift = z0 + np.array([z, -z])
        return ndtr(z0 + shift / (1 - acceleration * shift)).tolist()


def _bootstrap(d: np.ndarray, alternative: str, n_resamples: int, seed: object, confidence: float,
               ci_method: str,
               n_threads: int | None) -> tuple[float, float, np.ndarray, ConfidenceInterval, int]:
    n = d.shape[0]
    if n >= 1 << 32:
        raise ValueError(f"the bootstrap draws indices below 2**32; got {n} queries")
    seed, key0, key1 = _resolve_seed(seed)
    sums = _bootstrap_distribution(d, n_resamples, key0, key1, n_threads)
    means = _means_of_sums(sums, n, float(d.min()), float(d.max()))
    observed = _mean(d)
    # A resampled sum adds n values of magnitude at most max|d|: its rounding error stays
    # below n * eps * max|d| once divided by n.
    tolerance = n * _EPS * float(np.abs(d).max())
    count = _count_extreme(means, observed, tolerance, alternative, centre=observed)
    pvalue = min((count + 1) / (n_resamples + 1), 1.0)

    alpha = (1 - confidence) / 2 if alternative == "two-sided" else 1 - confidence
    if _spread(d) == 0.0:
        low = high = observed
    else:
        if ci_method == "bca":
            centred = d - observed
            levels = _bca_levels(means, observed, centred, float(np.sum(centred**2)), alpha)
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

    n, mean = d.shape[0], _mean(d)
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


def _t_test(d: np.ndarray, alternative: str) -> tuple[float, float]:
    from scipy.stats import ttest_1samp

    mean, sd = _mean(d), _spread(d)
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
    mean, sd = _mean(d), _spread(d)
    if sd > 0:
        return mean / sd
    return 0.0 if mean == 0 else math.copysign(math.inf, mean)


def _paired_test(d: np.ndarray, k: int, test: str, alternative: str, n_resamples: int, seed: object,
                 confidence: float, ci_method: str, zero_method: str,
                 n_threads: int | None) -> ComparisonResult:
    """The test on differences ``d`` in units of 2**k (``_differences``); results in the data's units."""
    n = d.shape[0]
    if n < 2:
        raise ValueError(f"a paired comparison needs at least 2 queries, got {n}")
    mean = _mean(d)
    interval, interval_method = None, "t"
    distribution, drawn, exact, used_seed = None, None, False, None
    if test == "randomization":
        pvalue, distribution, drawn, exact, used_seed = _randomization(d, alternative, n_resamples, seed,
                                                                       n_threads)
        statistic = _unscaled(mean, k)
    elif test == "bootstrap":
        statistic, pvalue, distribution, interval, used_seed = _bootstrap(
            d, alternative, n_resamples, seed, confidence, ci_method, n_threads)
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


def _check_test_options(test: object, alternative: object, n_resamples: object, confidence: object,
                        ci_method: object, zero_method: object, seed: object,
                        n_threads: int | None) -> tuple[int, float, int | None]:
    """Every option of a paired test, checked before any work: (n_resamples, confidence, seed)."""
    _choice(test, "test", TESTS)
    _choice(alternative, "alternative", ALTERNATIVES)
    _choice(ci_method, "ci_method", CI_METHODS)
    _choice(zero_method, "zero_method", ZERO_METHODS)
    n_resamples = _check_n_resamples(n_resamples)
    confidence = _check_fraction(confidence, "confidence")
    seed = _check_seed(seed)
    effective_n_threads(n_threads)
    return n_resamples, confidence, seed


# --------------------------------------------------------------------------------------
# Public functions
# --------------------------------------------------------------------------------------

def compare(a: ArrayLike | Results | TrecResults, b: ArrayLike | Results | TrecResults,
            test: str = "randomization", *, alternative: str = "two-sided", n_resamples: int = 10_000,
            seed: int | None = None, confidence: float = 0.95, metric: str | None = None,
            on_missing: str = "error", nan_policy: str = "raise", ci_method: str = "bca",
            zero_method: str = "wilcox", n_threads: int | None = None) -> ComparisonResult:
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
    overflows (module docstring); differences beyond the float64 range (|a - b| > 1.8e308)
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
    _check_metric(metric, a, b)
    id_a, values_a = _per_query(a, "a", metric)
    id_b, values_b = _per_query(b, "b", metric)
    ids, (values_a, values_b) = _align([("a", id_a, values_a), ("b", id_b, values_b)], on_missing)
    ids, (values_a, values_b) = _finite_rows(ids, ["a", "b"], [values_a, values_b], nan_policy)
    d, k = _differences(values_a, values_b, ids)
    return _paired_test(d, k, test, alternative, n_resamples, seed, confidence, ci_method, zero_method,
                        n_threads)


def mann_whitney(a: ArrayLike | Results | TrecResults, b: ArrayLike | Results | TrecResults, *,
                 alternative: str = "two-sided", metric: str | None = None,
                 nan_policy: str = "raise") -> MannWhitneyResult:
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

    _choice(alternative, "alternative", ALTERNATIVES)
    _choice(nan_policy, "nan_policy", _NAN_POLICIES)
    _check_metric(metric, a, b)
    samples = []
    for name, x in (("a", a), ("b", b)):
        ids, values = _per_query(x, name, metric)
        ids, (values,) = _finite_rows(ids, [name], [values], nan_policy)
        if values.shape[0] == 0:
            raise ValueError(f"{name} is empty; the Mann-Whitney test needs at least one value per sample")
        samples.append(values)
    k = _exponent(*samples)
    x, y = (_snap(_scaled(s, k)) for s in samples)  # ranks do not depend on the unit
    res = mannwhitneyu(x, y, alternative=alternative, method="auto")
    u = float(res.statistic)
    n_a, n_b = x.shape[0], y.shape[0]
    return MannWhitneyResult(u, float(res.pvalue), 2 * u / (n_a * n_b) - 1, n_a, n_b, alternative)


def _pvalues(pvalues: ArrayLike) -> np.ndarray:
    """The p-values of ``correct`` as a float64 copy: numbers in [0, 1], any shape."""
    allowed = "an array-like of numbers in [0, 1] (one family of p-values)"
    if pvalues is None or isinstance(pvalues, (str, bytes)):
        raise TypeError(f"pvalues must be {allowed}, got {pvalues!r}")
    p = as_array(pvalues, "pvalues", f"pvalues must be {allowed}, of one shape", wide="float")
    if p.dtype.kind not in "iuf":
        raise TypeError(f"pvalues must be {allowed}, got dtype {p.dtype}")
    p = p.astype(np.float64)  # a copy
    flat = p.ravel()
    bad = np.flatnonzero(~((flat >= 0) & (flat <= 1)))
    if bad.size:
        i = int(bad[0])
        where = (f"position {i}" if p.ndim <= 1
                 else f"index {tuple(int(j) for j in np.unravel_index(i, p.shape))}")
        if np.isnan(flat[i]):
            raise ValueError(f"pvalues has NaN at {where}; leave undefined comparisons out of the family")
        raise ValueError(f"pvalues must lie in [0, 1], got {float(flat[i])!r} at {where}")
    return p


def correct(pvalues: ArrayLike, method: str = "holm") -> np.ndarray:
    """Adjust p-values for multiple comparisons.

    Parameters
    ----------
    pvalues : array-like of float in [0, 1]
        One family of p-values (any shape, a scalar a family of one; every entry belongs
        to the family; an empty family gives an empty array). NaN raises: leave undefined
        comparisons out of the family. Values that are not numbers (None, str, bool, an
        object array) raise TypeError.
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
    _choice(method, "method", CORRECTIONS)
    p = _pvalues(pvalues)
    flat = p.ravel()
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

    def record(self, means: dict[str, dict[str, float]]) -> dict[str, Any]:
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


def _letters(count: int) -> list[str]:
    """a, b, ..., z, aa, ab, ... : labels of systems in an all-pairs report."""
    out = []
    for i in range(count):
        label, i = "", i + 1
        while i:
            i, rest = divmod(i - 1, 26)
            label = chr(ord("a") + rest) + label
        out.append(label)
    return out


def _cell(value: float, decimals: int, sign: bool = False) -> str:
    """A number of a report: ``decimals`` decimals; nan and +-inf spelled out; scientific notation
    where fixed point would print more than 6 digits before the point or a non-zero value as 0."""
    plus = "+" if sign else ""
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return f"{plus}inf" if value > 0 else "-inf"
    if value != 0 and not 0.5 * 10.0**-decimals <= abs(value) < 1e6:
        return f"{value:{plus}.{max(decimals - 1, 1)}e}"
    return f"{value:{plus}.{decimals}f}"


def _table(rows: list[list[str]], right: set[int]) -> list[str]:
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

    # The options of the call, set from compare_systems' ``options``.
    test: str
    alternative: str
    correction: str | None
    family: str
    alpha: float
    n_resamples: int
    seed: int | None

    def __init__(self, systems: Iterable[str], metrics: Iterable[str], baseline: str | None,
                 means: dict[str, dict[str, float]], comparisons: Iterable[Comparison],
                 n_queries: dict[str, int], options: dict[str, Any]) -> None:
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

    def _mean_rows(self, mark: Callable[[str], str]) -> list[list[str]]:
        marks = self._marks()
        rows = [["system", *self.metrics]]
        for s in self.systems:
            rows.append([self._system_label(s),
                         *(f"{_cell(self.means[m][s], 4)}{mark(marks[m, s])}" for m in self.metrics)])
        return rows

    def _detail_rows(self) -> list[list[str]]:
        ci_method = self.comparisons[0].result.ci_method if self.comparisons else "t"
        level = self.comparisons[0].result.confidence_level if self.comparisons else 0.95
        rows = [["comparison", "metric", "difference", f"{level:.0%} CI ({ci_method})", "effect size", "p",
                 "p adjusted", "W/T/L"]]
        for c in self.comparisons:
            r = c.result
            low, high = r.confidence_interval
            rows.append([f"{c.system} vs {c.other}", c.metric, _cell(r.mean_difference, 4, sign=True),
                         f"[{_cell(low, 4, sign=True)}, {_cell(high, 4, sign=True)}]",
                         _cell(r.effect_size, 2, sign=True), _cell(r.pvalue, 4), _cell(c.p_adjusted, 4),
                         f"{c.wins}/{c.ties}/{c.losses}"])
        return rows

    def _notes(self) -> list[str]:
        """What the degenerate comparisons' numbers mean, when the report has any."""
        notes = ["W/T/L: queries where the first system scores higher / the same / lower"]
        if any(c.ties == c.result.n for c in self.comparisons):
            notes.append("effect size 0, p = 1: the two systems score the same on every query (every "
                         "difference is 0)")
        if any(math.isinf(c.result.effect_size) for c in self.comparisons):
            notes.append("effect size +-inf: the difference is the same non-zero number on every query "
                         "(its sd is 0)")
        return notes

    # -- layouts -------------------------------------------------------------------------

    def to_text(self) -> str:
        """The plain-text report (also ``repr``)."""
        mark = (lambda m: m) if self.baseline is not None else (lambda m: f"^{m}" if m else "")
        means = self._mean_rows(mark)
        lines = [f"Comparison of {self._description()}.", ""]
        lines += _table(means, set(range(1, len(means[0]))))
        lines += [self._legend(), ""]
        lines += _table(self._detail_rows(), {2, 4, 5, 6})
        lines += self._notes()
        return "\n".join(lines)

    def __repr__(self) -> str:
        return self.to_text()

    def to_markdown(self) -> str:
        """GitHub-flavoured Markdown: the means with marks, the legend, then every comparison."""
        mark = ((lambda m: r"\*" if m else "") if self.baseline is not None
                else (lambda m: f"<sup>{m}</sup>" if m else ""))

        def table(rows: list[list[str]], right: set[int]) -> list[str]:
            head = "| " + " | ".join(rows[0]) + " |"
            rule = "|" + "|".join("---:" if j in right else ":---" for j in range(len(rows[0]))) + "|"
            return [head, rule] + ["| " + " | ".join(row) + " |" for row in rows[1:]]

        means = self._mean_rows(mark)
        legend = self._legend().replace("*", r"\*", 1) if self.baseline is not None else self._legend()
        lines = [f"Comparison of {self._description()}.", ""]
        lines += table(means, set(range(1, len(means[0]))))
        lines += ["", legend, ""]
        lines += table(self._detail_rows(), {2, 4, 5, 6})
        for note in self._notes():
            lines += ["", note]
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
                cells.append(_cell(self.means[m][s], 4) + (f"$^{{{mark}}}$" if mark else ""))
            lines.append(" & ".join(cells) + r" \\")
        lines += [r"\bottomrule", r"\end{tabular}"]
        return "\n".join(lines)

    def _records(self) -> list[dict[str, Any]]:
        return [c.record(self.means) for c in self.comparisons]

    def to_csv(self) -> str:
        """One line per comparison (the columns of :meth:`to_pandas`)."""
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=RECORD_FIELDS, lineterminator="\n")
        writer.writeheader()
        for record in self._records():
            writer.writerow({k: (repr(v) if isinstance(v, float) else v) for k, v in record.items()})
        return buffer.getvalue()

    def to_pandas(self) -> Any:
        """One row per comparison: metric, system, other, their means, difference, CI, effect
        size, statistic, raw and adjusted p-values, significance, wins/ties/losses, n. Needs pandas."""
        try:
            import pandas as pd
        except ImportError:
            raise ImportError("ComparisonReport.to_pandas() needs pandas: "
                              "pip install 'rankwise[pandas]'") from None
        return pd.DataFrame(self._records())


def _systems(runs: Any, qrels: Qrels | None) -> list[Any]:
    """[(name, system)] from a dict, or a sequence of named Runs / TrecResults; checked before any work."""
    if isinstance(runs, Mapping):
        items = list(runs.items())
        for name, _ in items:
            if not isinstance(name, str):
                raise TypeError(f"runs: system names (the dict's keys) must be str, got {name!r}")
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
    for name, system in items:
        if not isinstance(system, (Results, TrecResults, Run)):
            raise TypeError(f"system {name!r} must be Results, TrecResults or a Run, got "
                            f"{type(system).__name__}")
    names = [name for name, _ in items]
    if len(set(names)) != len(names):
        raise ValueError(f"system names must be unique, got {names}")
    if len(items) < 2:
        raise ValueError(f"compare_systems needs at least 2 systems, got {len(items)}")
    if qrels is not None and not isinstance(qrels, Qrels):
        raise TypeError(f"qrels must be a Qrels (to evaluate Runs) or None, got {type(qrels).__name__}")
    for name, system in items:
        if isinstance(system, Run):
            _qrels_for(name, qrels)
    return items


def _qrels_for(name: str, qrels: Qrels | None) -> Qrels:
    """The qrels to evaluate Run ``name`` against; a TypeError when there are none."""
    if qrels is None:
        raise TypeError(f"system {name!r} is a Run: pass qrels (a Qrels) to evaluate it")
    return qrels


def _check_metrics(metrics: object) -> list[str] | None:
    """None (the default measures), or the metric names as a non-empty list of distinct str."""
    if metrics is None:
        return None
    if isinstance(metrics, str):
        return [metrics]
    if not isinstance(metrics, (list, tuple, np.ndarray)):
        raise TypeError(f"metrics must be a str, a list of str or None (the default), got "
                        f"{type(metrics).__name__}")
    metrics = list(np.asarray(metrics).ravel()) if isinstance(metrics, np.ndarray) else list(metrics)
    for i, metric in enumerate(metrics):
        if not isinstance(metric, str):
            raise TypeError(f"metrics must hold str (metric names), got {metric!r} at position {i}")
    if not metrics:
        raise ValueError("metrics must name at least one metric, got none; pass None for the default")
    seen = set()
    for metric in metrics:
        if metric in seen:
            raise ValueError(f"metrics has {metric!r} twice")
        seen.add(metric)
    return [str(metric) for metric in metrics]


def _evaluated(items: list[Any], qrels: Qrels | None, metrics: list[str] | None, complete: bool,
               n_threads: int | None) -> tuple[list[Any], list[str]]:
    """Every system as Results / TrecResults, and the metric names to compare."""
    out = []
    for name, system in items:
        if isinstance(system, Run):
            system = trec_eval(_qrels_for(name, qrels), system, list(metrics or TREC_MEASURES),
                               complete=complete, n_threads=n_threads)
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
    columns: dict[int, str] = {}
    for name in names:  # aliases of one metric ("MAP" and "AP") would compare it twice
        try:
            column = out[0][1]._column(name)
        except KeyError:
            continue  # reported when its values are read, naming the system
        if column in columns:
            raise ValueError(f"metrics {columns[column]!r} and {name!r} name the same metric")
        columns[column] = name
    return out, names


def _check_kept(n_resamples: int, comparisons: int) -> None:
    """The report keeps every comparison's distribution: at most MAX_RESAMPLES values in all."""
    if n_resamples * comparisons > MAX_RESAMPLES:
        raise ValueError(f"n_resamples={n_resamples:,} for {comparisons:,} comparisons keeps "
                         f"{n_resamples * comparisons:,} resampled means in the report, more than 2**30; "
                         f"pass n_resamples <= {MAX_RESAMPLES // comparisons:,}")


def compare_systems(runs: Mapping[str, Any] | Sequence[Any], qrels: Qrels | None = None,
                    metrics: str | Sequence[str] | None = None, *, baseline: str | None = None,
                    test: str = "randomization", correction: str | None = "holm", alpha: float = 0.05,
                    family: str = "metric", alternative: str = "two-sided", n_resamples: int = 10_000,
                    seed: int | None = None, confidence: float = 0.95, on_missing: str = "error",
                    nan_policy: str = "raise", complete: bool = False,
                    n_threads: int | None = None) -> ComparisonReport:
    """Compare systems metric by metric: means, paired tests, corrected p-values, a report.

    Parameters
    ----------
    runs : dict or list
        ``{name: system}`` (str names) where a system is ``Results`` (from
        :func:`rankwise.evaluate`), ``TrecResults`` or a ``Run`` (evaluated against
        ``qrels`` with :func:`rankwise.trec_eval`); or a list of Runs / TrecResults named
        by their run id.
    qrels : Qrels, optional
        Needed for Runs.
    metrics : str or list of str, optional
        For Runs, trec_eval measures (``"map"``, ``"ndcg_cut.10"``, ``"P.10"``; None, the
        default: map, recip_rank, P.10 and ndcg_cut.10), compared under trec_eval's printed
        names (``P_10``). For Results, their metric names (None: every metric of the
        first). An empty list, or a name given twice, raises.
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
        As in :func:`compare`; every comparison uses the same seed. The report keeps every
        comparison's resampled distribution: n_resamples times the comparisons is at most
        2**30.
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
    n_resamples, confidence, seed = _check_test_options(test, alternative, n_resamples, confidence, "bca",
                                                        "wilcox", seed, n_threads)
    if correction is not None:
        _choice(correction, "correction", CORRECTIONS)
    _choice(family, "family", _FAMILIES)
    _choice(on_missing, "on_missing", _ON_MISSING)
    _choice(nan_policy, "nan_policy", _NAN_POLICIES)
    alpha = _check_fraction(alpha, "alpha")
    if not isinstance(complete, (bool, np.bool_)):
        raise TypeError(f"complete must be True or False, got {complete!r}")
    metrics = _check_metrics(metrics)
    items = _systems(runs, qrels)
    names = [name for name, _ in items]
    if baseline is not None:
        if not isinstance(baseline, str):
            raise TypeError(f"baseline must be a system name (a str) or None, got {baseline!r}")
        if baseline not in names:
            raise ValueError(f"baseline {baseline!r} is not one of the systems ({', '.join(names)})")
        pairs = [(s, baseline) for s in names if s != baseline]
    else:
        pairs = [(s, t) for i, s in enumerate(names) for t in names[i + 1:]]
    resampled = test in ("randomization", "bootstrap")
    if resampled:
        _check_kept(n_resamples, len(pairs) * len(metrics or [None]))
    systems, metrics = _evaluated(items, qrels, metrics, bool(complete), n_threads)
    if resampled:
        _check_kept(n_resamples, len(pairs) * len(metrics))
        seed, _, _ = _resolve_seed(seed)
    else:
        seed = None

    means, n_queries, rows = {}, {}, []
    for metric in metrics:
        per_system = [(name, *_per_query(system, f"system {name!r}", metric)) for name, system in systems]
        ids, values = _align(per_system, on_missing)
        ids, values = _finite_rows(ids, [f"system {n!r}" for n in names], values, nan_policy)
        if values[0].shape[0] < 2:
            raise ValueError(f"{metric}: a paired comparison needs at least 2 queries, got "
                             f"{values[0].shape[0]}")
        column = dict(zip(names, values, strict=True))
        means[metric] = {name: _mean_of(column[name]) for name in names}
        n_queries[metric] = int(values[0].shape[0])
        for system, other in pairs:
            d, k = _differences(column[system], column[other], ids,
                                (f"system {system!r}", f"system {other!r}"))
            result = _paired_test(d, k, test, alternative, n_resamples, seed, confidence, "bca", "wilcox",
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
