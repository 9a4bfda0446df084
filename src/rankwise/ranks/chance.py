"""Rank statistics under chance: a rank drawn uniformly from 1..C, and within a tie.

Closed forms (Hoyt et al. 2022, "A Unified Framework for Rank-based Evaluation Metrics
for Link Prediction"; McSherry & Najork 2008 for ties), vectorised over queries and
accurate to a few ulps for C up to 10^8 and beyond. The formulas are those of the
kernels' ties="expected" (``_core/_ties.pxd``, through ``_chance.pyx``): harmonic numbers
are summed exactly for small arguments and taken from their asymptotic series
otherwise, and differences of harmonic numbers are formed without cancellation.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike

from . import _chance

__all__ = ["harmonic", "harmonic_difference", "harmonic2", "mean_power", "expected_reciprocal",
           "expected_hit", "expected_discount"]


def _apply(kernel: Callable[..., None], *args: ArrayLike) -> np.ndarray:
    """kernel(*flat args, out) over the broadcast of args, as float64."""
    arrays = np.broadcast_arrays(*(np.asarray(a, dtype=np.float64) for a in args))
    out = np.empty(arrays[0].shape, dtype=np.float64)
    kernel(*(np.ascontiguousarray(a).ravel() for a in arrays), out.reshape(-1))
    return out


def harmonic(n: ArrayLike) -> np.ndarray:
    """H(n) = sum_{j=1..n} 1/j for integers n >= 0, elementwise.

    Examples
    --------
    >>> float(harmonic(3))
    1.8333333333333333
    """
    return _apply(_chance.harmonic, n)


def harmonic2(n: ArrayLike) -> np.ndarray:
    """H_2(n) = sum_{j=1..n} 1/j^2 for integers n >= 0, elementwise.

    Examples
    --------
    >>> float(harmonic2(2))
    1.25
    """
    return _apply(_chance.harmonic2, n)


def harmonic_difference(a: ArrayLike, b: ArrayLike) -> np.ndarray:
    """H(b) - H(a) = sum_{j=a+1..b} 1/j for integers 0 <= a <= b, without cancellation.

    Examples
    --------
    >>> float(harmonic_difference(10**8, 10**8 + 2)) == 1 / (10**8 + 1) + 1 / (10**8 + 2)
    True
    """
    return _apply(_chance.harmonic_difference, a, b)


def expected_reciprocal(optimistic: ArrayLike, pessimistic: ArrayLike) -> np.ndarray:
    """E[1/r] for r uniform on optimistic..pessimistic (McSherry & Najork's tie-aware RR).

    Examples
    --------
    >>> float(expected_reciprocal(1, 2))
    0.75
    """
    return _apply(_chance.expected_reciprocal, optimistic, pessimistic)


def expected_hit(optimistic: ArrayLike, pessimistic: ArrayLike, k: ArrayLike) -> np.ndarray:
    """P(r <= k) for r uniform on optimistic..pessimistic (McSherry & Najork's tie-aware Hits@k).

    Examples
    --------
    >>> float(expected_hit(1, 4, 3))
    0.75
    """
    return _apply(_chance.expected_hit, optimistic, pessimistic, k)


def expected_discount(optimistic: ArrayLike, pessimistic: ArrayLike, k: ArrayLike) -> np.ndarray:
    """E[[r <= k] / log2(r + 1)] for r uniform on optimistic..pessimistic: one relevant item's
    tie-aware nDCG@k (k = inf: no cutoff). Long runs of discounts are summed by
    Euler-Maclaurin, so a tie of any size costs O(log of its ranks).

    Examples
    --------
    >>> round(float(expected_discount(1, 2, 10)), 12)    # (1 + 1/log2(3)) / 2
    0.815464876786
    """
    return _apply(_chance.expected_discount, optimistic, pessimistic, k)


def mean_power(n: ArrayLike, s: ArrayLike) -> np.ndarray:
    """(1/n) sum_{j=1..n} j^s for integers n >= 1 and real s in [0, 2], elementwise.

    This is E[r^s] for r uniform on 1..n, the building block of the geometric mean
    rank's expectation (s = w/W) and variance (s = 2w/W).

    Examples
    --------
    >>> float(mean_power(4, 1.0))
    2.5
    """
    return _apply(_chance.mean_power, n, s)
