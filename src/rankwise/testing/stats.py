"""Reference bootstrap of a mean, written plainly, for checking ``Results.mean(ci=...)``.

It draws the same resamples as rankwise's kernel (``_core/_resample.pyx``) from its
documented scheme, independently of its code: the seed becomes two 64-bit keys through
``numpy.random.SeedSequence(seed).generate_state(2, uint64)``; resample ``r`` has the
splitmix64 stream ``mix(key0 + G (r + 1)) ^ key1`` (G = 0x9E3779B97F4A7C15, arithmetic
modulo 2**64), whose word ``j`` is ``mix(stream + G (j + 1))``; draw ``i`` takes the low
(even ``i``) or high (odd ``i``) 32 bits of word ``i // 2``, times n, and keeps the high
half of the 64-bit product, unless its low half is below 2**32 mod n (Lemire's rejection),
when the low halves of words 2**62, 2**62 + 1, ... of the same stream replace it in turn.

Each resampled mean is then exact (``math.fsum``) and the interval is taken as
scipy.stats.bootstrap defines it: percentiles of the resampled means (numpy's default
linear interpolation), or BCa with the jackknife of the (weighted) mean.
"""
from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np

__all__ = ["bootstrap_indices", "mean_interval"]

_MASK = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15
_SPARE = 1 << 62


def _mix(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


def _keys(seed: int) -> tuple[int, int]:
    key0, key1 = np.random.SeedSequence(seed).generate_state(2, dtype=np.uint64).tolist()
    return key0, key1


def bootstrap_indices(seed: int, r: int, n: int) -> list[int]:
    """The n indices below n that resample ``r`` of ``seed`` draws."""
    key0, key1 = _keys(seed)
    stream = _mix((key0 + _GOLDEN * (r + 1)) & _MASK) ^ key1

    def word(j: int) -> int:
        return _mix((stream + _GOLDEN * (j + 1)) & _MASK)

    threshold, spare, out = (1 << 32) % n, 0, []
    for i in range(n):
        product = ((word(i // 2) >> (32 * (i % 2))) & 0xFFFFFFFF) * n
        while product & 0xFFFFFFFF < threshold:
            product = (word(_SPARE + spare) & 0xFFFFFFFF) * n
            spare += 1
        out.append(product >> 32)
    return out


def _weighted_mean(values: list[float], weights: list[float]) -> float:
    return math.fsum(w * v for v, w in zip(values, weights, strict=True)) / math.fsum(weights)


def mean_interval(values, weights=None, *, confidence: float = 0.95, n_resamples: int = 999, seed: int = 0,
                  method: str = "percentile") -> tuple[float, float, float]:
    """(mean, low, high) of the two-sided bootstrap interval of the (weighted) mean."""
    values = [float(v) for v in values]
    weights = [1.0] * len(values) if weights is None else [float(w) for w in weights]
    n = len(values)
    mean = _weighted_mean(values, weights)
    means = []
    for r in range(n_resamples):
        drawn = bootstrap_indices(seed, r, n)
        total = math.fsum(weights[i] for i in drawn)
        if total > 0:
            means.append(math.fsum(weights[i] * values[i] for i in drawn) / total)
    alpha = (1 - confidence) / 2
    levels = [alpha, 1 - alpha]
    if method == "bca":
        levels = _bca_levels(means, mean, values, weights, alpha)
    low, high = np.quantile(means, levels).tolist()
    return mean, low, high


def _bca_levels(means, mean, values, weights, alpha):
    # Efron's BCa: bias from the share of resampled means below the mean (ties half),
    # acceleration from the jackknife, each query left out in turn.
    normal = NormalDist()
    below = sum(m < mean for m in means) + sum(m <= mean for m in means)
    z0 = normal.inv_cdf(below / (2 * len(means)))
    jack = []
    for i in range(len(values)):
        rest_v = values[:i] + values[i + 1:]
        rest_w = weights[:i] + weights[i + 1:]
        jack.append(_weighted_mean(rest_v, rest_w))
    centre = math.fsum(jack) / len(jack)
    d = [centre - j for j in jack]
    acceleration = math.fsum(x**3 for x in d) / (6 * math.fsum(x**2 for x in d) ** 1.5)
    z = normal.inv_cdf(alpha)
    return [normal.cdf(z0 + (z0 + s) / (1 - acceleration * (z0 + s))) for s in (z, -z)]
