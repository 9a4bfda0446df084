"""Rank statistics under chance: a rank drawn uniformly from 1..C, and within a tie.

Closed forms (Hoyt et al. 2022, "A Unified Framework for Rank-based Evaluation Metrics
for Link Prediction"; McSherry & Najork 2008 for ties), vectorised over queries and
accurate to a few ulps for C up to 10^8 and beyond: harmonic numbers are summed exactly
for small arguments and taken from their asymptotic series otherwise, and differences
of harmonic numbers are formed without cancellation.
"""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["harmonic", "harmonic_difference", "harmonic2", "mean_power", "expected_reciprocal"]

_EULER_GAMMA = 0.57721566490153286061
# Up to here sums are exact tables; beyond, the asymptotic series' first omitted term
# is below 1e-20.
_TABLE_SIZE = 64
_H = np.concatenate([[0.0], np.cumsum(1.0 / np.arange(1, _TABLE_SIZE + 1))])
_H2 = np.concatenate([[0.0], np.cumsum(1.0 / np.arange(1, _TABLE_SIZE + 1) ** 2)])
# Differences over at most this many terms are summed directly.
_DIRECT_TERMS = 32


def _as_float(n: ArrayLike) -> np.ndarray:
    return np.asarray(n, dtype=np.float64)


def harmonic(n: ArrayLike) -> np.ndarray:
    """H(n) = sum_{j=1..n} 1/j for integers n >= 0, elementwise.

    Examples
    --------
    >>> float(harmonic(3))
    1.8333333333333333
    """
    n = _as_float(n)
    small = n <= _TABLE_SIZE
    out = np.empty_like(n)
    out[small] = _H[n[small].astype(np.int64)]
    x = n[~small]
    inv2 = 1.0 / (x * x)
    out[~small] = (np.log(x) + _EULER_GAMMA + 0.5 / x
                   - inv2 * (1 / 12 - inv2 * (1 / 120 - inv2 * (1 / 252 - inv2 / 240))))
    return out


def harmonic2(n: ArrayLike) -> np.ndarray:
    """H_2(n) = sum_{j=1..n} 1/j^2 for integers n >= 0, elementwise.

    Examples
    --------
    >>> float(harmonic2(2))
    1.25
    """
    n = _as_float(n)
    small = n <= _TABLE_SIZE
    out = np.empty_like(n)
    out[small] = _H2[n[small].astype(np.int64)]
    x = n[~small]
    inv = 1.0 / x
    inv2 = inv * inv
    # pi^2/6 - sum_{j>n} 1/j^2 (Euler-Maclaurin).
    tail = inv * (1 - inv * (0.5 - inv * (1 / 6 - inv2 * (1 / 30 - inv2 * (1 / 42 - inv2 / 30)))))
    out[~small] = np.pi ** 2 / 6 - tail
    return out


def harmonic_difference(a: ArrayLike, b: ArrayLike) -> np.ndarray:
    """H(b) - H(a) = sum_{j=a+1..b} 1/j for integers 0 <= a <= b, without cancellation.

    Examples
    --------
    >>> float(harmonic_difference(10**8, 10**8 + 2)) == 1 / (10**8 + 1) + 1 / (10**8 + 2)
    True
    """
    a, b = np.broadcast_arrays(_as_float(a), _as_float(b))
    out = np.empty(a.shape, dtype=np.float64)
    width = b - a
    short = width <= _DIRECT_TERMS
    if short.any():
        lo, terms = a[short], width[short]
        total = np.zeros_like(lo)
        for step in range(1, int(terms.max()) + 1):
            total += np.where(step <= terms, 1.0 / (lo + step), 0.0)
        out[short] = total
    # Small a: H(a) comes from the table and H(b) - H(a) > ln(97/64), so little cancels.
    near = ~short & (a <= _TABLE_SIZE)
    out[near] = harmonic(b[near]) - harmonic(a[near])
    far = ~short & ~near
    if far.any():
        d, u, v = width[far], 1.0 / a[far], 1.0 / b[far]
        # ln(b/a) + the asymptotic series' terms (1/2)(v - u) - (1/12)(v^2 - u^2) + ...,
        # each difference u^m - v^m factored as d*u*v*(u^(m-1) + ... + v^(m-1)).
        duv = d * u * v
        u2, v2, uv = u * u, v * v, u * v
        out[far] = (np.log1p(d * u) - duv / 2 + duv * (u + v) / 12
                    - duv * (u + v) * (u2 + v2) / 120
                    + duv * (u + v) * (u2 + uv + v2) * (u2 - uv + v2) / 252)
    return out


def expected_reciprocal(optimistic: ArrayLike, pessimistic: ArrayLike) -> np.ndarray:
    """E[1/r] for r uniform on optimistic..pessimistic (McSherry & Najork's tie-aware RR).

    Examples
    --------
    >>> float(expected_reciprocal(1, 2))
    0.75
    """
    o, p = _as_float(optimistic), _as_float(pessimistic)
    return harmonic_difference(o - 1, p) / (p - o + 1)


# Bernoulli numbers B2, B4, B6 over (2k)!, for the Euler-Maclaurin tail of sum j^s.
_EM = (1 / 12, -1 / 720, 1 / 30240)
_EM_START = 16


def mean_power(n: ArrayLike, s: ArrayLike) -> np.ndarray:
    """(1/n) sum_{j=1..n} j^s for integers n >= 1 and real s in (0, 2], elementwise.

    This is E[r^s] for r uniform on 1..n, the building block of the geometric mean
    rank's expectation (s = w/W) and variance (s = 2w/W).

    Examples
    --------
    >>> float(mean_power(4, 1.0))
    2.5
    """
    n, s = np.broadcast_arrays(_as_float(n), _as_float(s))
    out = np.empty(n.shape, dtype=np.float64)
    small = n < _EM_START
    if small.any():
        j = np.arange(1, _EM_START, dtype=np.float64)
        terms = np.where(j <= n[small][:, None], j ** s[small][:, None], 0.0)
        out[small] = terms.sum(axis=1) / n[small]
    big = ~small
    if big.any():
        x, e = n[big], s[big]
        m = float(_EM_START)
        head = (np.arange(1, _EM_START, dtype=np.float64) ** e[:, None]).sum(axis=1)
        # Euler-Maclaurin for sum_{j=m..x} j^e: integral, end-point halves, derivative terms.
        total = head + (x ** (e + 1) - m ** (e + 1)) / (e + 1) + (x ** e + m ** e) / 2
        falling = e.copy()
        for k, coeff in enumerate(_EM):
            power = e - (2 * k + 1)
            total += coeff * falling * (x ** power - m ** power)
            falling = falling * (e - 2 * k - 1) * (e - 2 * k - 2)
        out[big] = total / x
    return out
