"""The bootstrap of a mean over queries, shared by ``stats.compare`` (the mean of paired
differences) and ``Results.mean(ci=...)`` (the mean of one metric, weighted or not).

Resamples come from the counter-based kernel :mod:`rankwise._core._resample` over
``_core``'s runner, so a seeded distribution is the same on every run and for every
thread count; the options' checks (resamples, confidence, seed) live here for the same
two callers.
"""
from __future__ import annotations

import functools
import math
import secrets
from dataclasses import dataclass

import numpy as np

from ._resample import bootstrap_sums
from .parallel import ChunkTask, effective_n_threads, run_over_range
from .progress import Bar

__all__ = ["INTERVAL_METHODS", "MAX_RESAMPLES", "SEED_LIMIT", "MeanInterval", "allocate",
           "bootstrap_distribution", "bootstrap_interval", "check_fraction", "check_n_resamples",
           "check_seed",
           "mean_interval", "means_of_sums", "open_side", "over_resamples", "resolve_seed", "spread"]

# Most resamples (or exactly enumerated sign patterns) of one test. The distribution is
# returned, one float64 per resample: 8 GiB at the bound (a bootstrap interval sorts a copy of
# it), and p = (b + 1) / (N + 1) then resolves 1e-9, below any threshold a correction of a
# realistic family asks for. compare_systems keeps every comparison's distribution: the bound
# holds for their total.
MAX_RESAMPLES = 2**30
# Seeds: the kernel's two 64-bit keys hold 128 bits, as numpy's fresh entropy does.
SEED_LIMIT = 2**128
# Slices of the resamples between two updates of a shown progress bar, for work of at least
# _PROGRESS_COST runner items (tens of milliseconds): shorter work runs in one piece.
_PROGRESS_SLICES = 100
_PROGRESS_COST = 1 << 20
INTERVAL_METHODS = ("bca", "percentile", "basic")


def check_n_resamples(value: object) -> int:
    allowed = f"an integer from 1 to 2**30 ({MAX_RESAMPLES:,})"
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"n_resamples must be {allowed}, got {value!r}")
    if not 1 <= value <= MAX_RESAMPLES:
        raise ValueError(f"n_resamples must be {allowed}, got {value!r}")
    return int(value)


def check_fraction(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a number in (0, 1), got {value!r}")
    if not 0 < value < 1:  # int or float, compared exactly (NaN fails)
        raise ValueError(f"{name} must be in (0, 1), got {value!r}")
    return float(value)


def check_seed(seed: object) -> int | None:
    """The seed as an int, or None: an integer in [0, 2**128)."""
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        hint = ""
        if isinstance(seed, (np.random.Generator, np.random.RandomState, np.random.SeedSequence)):
            hint = " (draw one from a Generator: seed=int(rng.integers(2**63)))"
        raise TypeError(f"seed must be an integer from 0 to 2**128 - 1 or None, got {seed!r}{hint}")
    if not 0 <= seed < SEED_LIMIT:
        raise ValueError(f"seed must be an integer from 0 to 2**128 - 1 or None, got {seed!r}")
    return int(seed)


def resolve_seed(seed: object) -> tuple[int, int, int]:
    """(seed as an int, two 64-bit kernel keys); None draws fresh entropy (128 bits)."""
    seed = check_seed(seed)
    if seed is None:
        seed = secrets.randbits(128)  # what np.random.SeedSequence() draws
    key0, key1 = np.random.SeedSequence(seed).generate_state(2, dtype=np.uint64).tolist()
    return seed, key0, key1


def allocate(n_resamples: int) -> np.ndarray:
    """The distribution's array, with an error naming n_resamples if memory runs out."""
    try:
        return np.empty(n_resamples)
    except MemoryError:
        size = 8 * n_resamples
        shown = f"{size / 2**30:.1f} GiB" if size >= 2**30 else f"{-(-size // 2**20)} MiB"
        raise MemoryError(f"n_resamples={n_resamples:,} needs {shown} for the resampled distribution, which "
                          "could not be allocated; pass fewer") from None


def over_resamples(task: ChunkTask, n_resamples: int, work_per_resample: int, n_threads: int | None,
                   bar: Bar, setup: int = 0) -> None:
    """Call ``task(r_start, r_stop, stop=flag)`` over resamples ``0..n_resamples-1`` (shared runner).

    A shown ``bar`` has them run in slices, counted between slices from this thread; the
    resamples are drawn by their index, so slicing changes no value.
    """
    # A unit of work (a table lookup or a draw) costs 1 to 5 ns, a runner item up to 100.
    threads = effective_n_threads(n_threads)
    cost = n_resamples * work_per_resample // 16
    if not bar.shown or cost < _PROGRESS_COST:
        run_over_range(task, n_resamples, threads, cost)
        bar.update(n_resamples)
        return
    # Each chunk of a slice pays ``setup`` (the sign-flip tables) again: at most a tenth of its work.
    per_chunk = -(-10 * setup // max(work_per_resample, 1))
    slices = max(1, min(_PROGRESS_SLICES, n_resamples // max(threads * per_chunk, 1)))
    bounds = sorted(set(np.linspace(0, n_resamples, slices + 1).astype(np.int64).tolist()))
    for lo, hi in zip(bounds[:-1], bounds[1:], strict=True):
        run_over_range(functools.partial(_shifted, task, lo), hi - lo, threads,
                       (hi - lo) * work_per_resample // 16)
        bar.update(hi - lo)


def _shifted(task: ChunkTask, offset: int, start: int, end: int, stop: np.ndarray) -> object:
    return task(offset + start, offset + end, stop=stop)


def bootstrap_distribution(d: np.ndarray, n_resamples: int, key0: int, key1: int,
                           n_threads: int | None, bar: Bar) -> np.ndarray:
    """The sums of ``n_resamples`` bootstrap resamples of ``d``; the same keys draw the same
    indices for any ``d`` of that length (a weighted mean resamples two arrays alike)."""
    out = allocate(n_resamples)

    def task(r_start: int, r_stop: int, stop: np.ndarray) -> None:
        bootstrap_sums(d, key0, key1, r_start, r_stop, out[r_start:r_stop], stop)

    over_resamples(task, n_resamples, d.shape[0], n_threads, bar)
    return out


def means_of_sums(sums: np.ndarray, n: int, low: float, high: float) -> np.ndarray:
    """``sums / n`` in place, kept within [low, high], the range of a mean of the values summed."""
    sums /= n
    return np.clip(sums, low, high, out=sums)


def spread(d: np.ndarray) -> float:
    """Sample standard deviation; exactly 0 when every value is the same number."""
    return 0.0 if np.all(d == d[0]) else float(np.std(d, ddof=1))


def _bca_levels(means: np.ndarray, observed: float, influence: np.ndarray, alpha: float) -> list[float]:
    """scipy.stats.bootstrap's BCa levels, with the acceleration from the jackknife
    ``influence`` of each query (for a mean: d_i - mean, the jackknife's closed form).

    NaN where BCa is undefined (the observed mean outside every resampled mean)."""
    from scipy.special import ndtr, ndtri

    below = np.count_nonzero(means < observed) + np.count_nonzero(means <= observed)
    z0 = float(ndtri(below / (2 * means.shape[0])))
    acceleration = float(np.sum(influence**3)) / (6 * float(np.sum(influence**2))**1.5)
    z = float(ndtri(alpha))
    with np.errstate(divide="ignore", invalid="ignore"):  # z0 infinite, or a zero denominator: as scipy
        shift = z0 + np.array([z, -z])
        return ndtr(z0 + shift / (1 - acceleration * shift)).tolist()


def bootstrap_interval(means: np.ndarray, observed: float, influence: np.ndarray, constant: bool,
                       alternative: str, confidence: float, method: str) -> tuple[float, float]:
    """The bootstrap interval of the mean ``observed`` from the resampled ``means``; a
    ``constant`` sample has the point as its interval. Open (infinite) on the side that a
    one-sided ``alternative`` ("greater", "less") leaves unbounded."""
    alpha = (1 - confidence) / 2 if alternative == "two-sided" else 1 - confidence
    if constant:
        low = high = observed
    else:
        levels = _bca_levels(means, observed, influence, alpha) if method == "bca" else [alpha, 1 - alpha]
        if any(not np.isfinite(level) for level in levels):
            low = high = math.nan
        else:
            low, high = np.quantile(means, levels).tolist()
            if method == "basic":
                low, high = 2 * observed - high, 2 * observed - low
    return open_side(low, high, alternative)


def open_side(low: float, high: float, alternative: str) -> tuple[float, float]:
    """The interval (low, high), open on the side that a one-sided alternative leaves unbounded."""
    if alternative == "greater":
        high = math.inf
    elif alternative == "less":
        low = -math.inf
    return low, high


@dataclass(frozen=True)
class MeanInterval:
    """A mean over queries with its bootstrap confidence interval (``Results.mean(ci=...)``).

    Attributes
    ----------
    mean : float
        The mean itself: what ``Results.mean()`` gives, weighted when weights were given.
    low, high : float
        The interval's bounds (NaN when BCa is undefined for the sample).
    confidence : float
        Its confidence level, e.g. 0.95.
    method : str
        ``"bca"``, ``"percentile"`` or ``"basic"``.
    n_resamples, seed : int
        The bootstrap resamples of the queries drawn, and the seed that draws them again.
    """

    mean: float
    low: float
    high: float
    confidence: float
    method: str
    n_resamples: int
    seed: int

    def __repr__(self) -> str:
        return (f"MeanInterval(mean={self.mean:.6g}, {self.confidence:.0%} CI [{self.low:.6g}, "
                f"{self.high:.6g}], {self.method}, {self.n_resamples:,} resamples, seed {self.seed})")


def _jackknife_influence(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """The jackknife's mean minus each leave-one-out weighted mean (BCa's acceleration); a
    query holding all the weight leaves no mean without it, and no influence."""
    total, weighted = math.fsum(weights), math.fsum(weights * values)
    rest = total - weights
    with np.errstate(divide="ignore", invalid="ignore"):
        left_out = np.where(rest > 0, (weighted - weights * values) / rest, np.nan)
    left_out = left_out[~np.isnan(left_out)]
    return left_out.mean() - left_out if left_out.size else np.zeros(1)


def mean_interval(values: np.ndarray, weights: np.ndarray | None, mean: float, confidence: float,
                  n_resamples: int, seed: int, method: str, n_threads: int | None) -> MeanInterval:
    """The bootstrap interval of the (weighted) mean of ``values`` (no NaN), resampling queries.

    Weighted, each resample's mean is its sum of weight * value over its sum of weights,
    both drawn with the same indices; a resample of zero total weight has no mean and is
    left out. ``mean`` is the exact mean the interval is about.
    """
    _, key0, key1 = resolve_seed(seed)
    n = values.shape[0]
    if n == 0:
        return MeanInterval(math.nan, math.nan, math.nan, confidence, method, n_resamples, seed)
    if weights is None:
        means = means_of_sums(bootstrap_distribution(values, n_resamples, key0, key1, n_threads, Bar()), n,
                              float(values.min()), float(values.max()))
        influence = values - mean
    else:
        products = np.ascontiguousarray(weights * values)
        totals = bootstrap_distribution(weights, n_resamples, key0, key1, n_threads, Bar())
        sums = bootstrap_distribution(products, n_resamples, key0, key1, n_threads, Bar())
        kept = totals > 0
        means = np.clip(sums[kept] / totals[kept], float(values.min()), float(values.max()))
        influence = _jackknife_influence(values, weights)
    constant = bool(np.all(values == values[0]))
    low, high = bootstrap_interval(means, mean, influence, constant, "two-sided", confidence, method)
    return MeanInterval(mean, low, high, confidence, method, n_resamples, seed)
