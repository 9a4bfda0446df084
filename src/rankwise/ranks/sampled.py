"""Full-catalog rank metrics estimated from ranks among sampled negatives (Krichene & Rendle).

Protocols that rank the true item against m sampled negatives instead of all n items
(the "1 + 99" of NCF, RecBole's ``uni100``, TGB-Seq, PyKEEN's sampled evaluator) observe
a sampled rank r in 1..m+1. With negatives drawn uniformly with replacement, a true item
of full rank R outranks each one with probability theta_R = (R - 1) / (n - 1), so

    P(r | R) = Binom(r - 1; m, theta_R)       (Krichene & Rendle, KDD 2020)

and the metric of r is not an estimate of the metric of R. A *correction* is a table
f(1..m+1): each query's estimate is f(r), and its mean over queries estimates the
full-catalog metric. With A[R, r] = P(r | R), prior weights w_R (uniform by default),
the target M(R) and c_r = sum_R w_R A[R, r]:

* ``"none"``: f(r) = M(r), the uncorrected sampled metric.
* ``"rank"``: f(r) = M(1 + (n - 1)(r - 1)/m), the metric of the unbiased rank estimate
  (E[1 + (n - 1)(r - 1)/m | R] = R).
* ``"cls"``: the minimal-bias table, argmin_f sum_R w_R (E[f(r) | R] - M(R))^2, a least
  squares problem whose normal equations are (A^T W A) f = A^T W M.
* ``"bv"``: bias plus gamma times variance, sum_R w_R [(E[f(r)|R] - M(R))^2 +
  gamma Var[f(r)|R]], solved by ((1 - gamma) A^T W A + gamma diag(c)) f = A^T W M;
  gamma = 1 gives the posterior mean f(r) = E[M(R) | r].

The (m+1) x (m+1) matrix A^T W A is never formed from A: a product of two Bernstein
polynomials of degree m is one of degree 2m, b_i b_j = C(m,i) C(m,j) / C(2m,i+j) b_{i+j},
so G[i, j] = C(m,i) C(m,j) / C(2m,i+j) S[i+j] with the 2m+1 sums S[s] = sum_R w_R
b^(2m)_s(theta_R). Under the uniform prior with n - 1 >= 64 (2m), the sums over the grid
theta_R = (R - 1)/(n - 1) follow from Euler-Maclaurin in O(m^2) whatever n; otherwise one pass
over R in chunks, the binomial probabilities in log space: O(n m) time, O(chunk m) memory.
The right-hand side A^T W M: under the uniform prior O(m^2) for MR (Euler-Maclaurin) and
O(m^2 log n) for MRR and nDCG (ranks below 128 (m + 1) summed directly, the smooth rest by
Euler-Maclaurin with a Gauss-Legendre integral); O(min(k, n) m) for a metric cut at k; O(n m)
under another prior. Once per distinct (m, n) and metric.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike

from .positive import _as_counts

__all__ = ["CORRECTIONS", "Sampling", "check_sampling", "correction_table", "gram_sums", "metric_of_rank",
           "solve_table", "table_value", "target_sums"]

CORRECTIONS = ("none", "rank", "cls", "bv")
# Chunk of full ranks per pass: chunk x (2m + 1) float64 stay near 8 MiB.
_CHUNK_CELLS = 1 << 20
# Eigen-directions of the c-scaled normal matrix (eigenvalues in [0, 1]) below this are
# below the accuracy of its sums: "cls" drops them (a minimum-norm least-squares solution).
_CLS_CUTOFF = 1e-12
# B_2q / (2q)!, q = 1..6: Euler-Maclaurin's coefficients.
_EULER_MACLAURIN = (1 / 12, -1 / 720, 1 / 30240, -1 / 1209600, 1 / 47900160, -691 / 1307674368000)
# Uniform weights over at least this many full ranks per unit of degree: Bernstein sums by
# Euler-Maclaurin in O(d) instead of O(n d).
_GRID_PER_DEGREE = 64
# MRR's and nDCG's right-hand sides are summed directly below this many ranks per unit of m,
# by Euler-Maclaurin beyond (uniform prior).
_TAIL_PER_DEGREE = 128


def metric_of_rank(base: str, k: int | None, rank: np.ndarray) -> np.ndarray:
    """M(rank) of one positive at a (possibly fractional) rank: MR, MRR, Hits@k or nDCG[@k]."""
    rank = np.asarray(rank, dtype=np.float64)
    if base == "MR":
        return rank.copy()
    if base == "MRR":
        return 1.0 / rank
    inside = np.ones(rank.shape, dtype=bool) if k is None else rank <= k
    if base == "Hits":
        return inside.astype(np.float64)
    return np.where(inside, 1.0 / np.log2(rank + 1.0), 0.0)


@dataclass
class Sampling:
    """The sampled protocol of one rank_metrics call: catalog sizes, correction, prior."""

    n_items: np.ndarray             # int64, one per query
    correction: str
    gamma: float
    prior: np.ndarray | None         # float64 weights of full ranks 1..n (one n for all)
    grams: dict[tuple[int, int], np.ndarray] = field(default_factory=dict)

    def table(self, base: str, k: int | None, m: int, n: int) -> np.ndarray:
        """f(1..m+1) of one metric for m negatives among n items; the Gram sums once per (m, n)."""
        if self.correction in ("cls", "bv") and (m, n) not in self.grams:
            self.grams[(m, n)] = gram_sums(m, n, self.prior)
        return correction_table(base, k, m, n, self.correction, self.gamma, self.prior,
                                self.grams.get((m, n)))


def check_sampling(n_items: ArrayLike, correction: object, gamma: object, prior: ArrayLike | None,
                   n_candidates: np.ndarray | None) -> Sampling:
    """Validate the sampled protocol's arguments, before any work; errors name the argument."""
    if correction not in CORRECTIONS:
        raise ValueError(f"correction must be one of {', '.join(map(repr, CORRECTIONS))} when n_items= is "
                         f"given; got {correction!r}")
    if n_candidates is None:
        raise ValueError("n_items= estimates full-catalog metrics from sampled ranks and needs each query's "
                         "number of candidates (m sampled negatives + 1); rank_positive records it, or pass "
                         "n_candidates= to Ranks / Ranks.from_ranks")
    n = _as_counts(n_items, "n_items", 2)
    q = n_candidates.shape[0]
    if n.shape[0] == 1:
        n = np.full(q, n[0], dtype=np.int64)
    elif n.shape[0] != q:
        raise ValueError(f"n_items must be one number or one per query ({q}), got {n.shape[0]} values")
    bad = (n_candidates < 2) | (n_candidates > n)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"n_items: query {i} has {n_candidates[i]} candidates among n_items = {n[i]}; "
                         "a sampled query needs 2 <= n_candidates (m + 1) <= n_items")
    return Sampling(n, str(correction), _check_gamma(correction, gamma), _check_prior(correction, prior, n))


def _check_gamma(correction: object, gamma: object) -> float:
    if correction != "bv":
        if gamma is not None:
            raise ValueError(f"gamma weighs the variance of correction='bv' only; got "
                             f"correction={correction!r}")
        return 0.0
    if gamma is None:
        return 0.1
    if isinstance(gamma, (bool, np.bool_)) or not isinstance(gamma, (int, float, np.integer, np.floating)):
        raise TypeError(f"gamma must be a number in (0, 1], got {gamma!r}")
    if not 0 < float(gamma) <= 1:
        raise ValueError(f"gamma must be in (0, 1] (0 is correction='cls'), got {gamma!r}")
    return float(gamma)


def _check_prior(correction: object, prior: ArrayLike | None, n: np.ndarray) -> np.ndarray | None:
    if prior is None:
        return None
    if correction not in ("cls", "bv"):
        raise ValueError(f"prior weighs the full ranks of correction='cls' or 'bv' only; got "
                         f"correction={correction!r}")
    if n.min() != n.max():
        raise ValueError("prior needs one n_items for every query (it weighs full ranks 1..n_items)")
    arr = np.asarray(prior)
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"prior must be numeric, got dtype {arr.dtype}")
    if arr.shape != (int(n[0]),):
        raise ValueError(f"prior must have one weight per full rank 1..n_items ({n[0]}), got shape "
                         f"{arr.shape}")
    arr = arr.astype(np.float64)
    bad = ~(np.isfinite(arr) & (arr >= 0))
    if bad.any() or arr.max() == 0:
        at = f"; got {arr[np.flatnonzero(bad)[0]]} at rank {np.flatnonzero(bad)[0] + 1}" if bad.any() else ""
        raise ValueError(f"prior must hold finite weights >= 0, not all 0{at}")
    return arr / arr.max()


def _log_binomial(d: int) -> np.ndarray:
    """log C(d, s) for s = 0..d."""
    from scipy.special import gammaln
    s = np.arange(d + 1, dtype=np.float64)
    return gammaln(d + 1.0) - gammaln(s + 1.0) - gammaln(d - s + 1.0)


def _bernstein(theta: np.ndarray, d: int, log_binom: np.ndarray) -> np.ndarray:
    """b^(d)_s(theta) = C(d, s) theta^s (1 - theta)^(d - s), rows theta, columns s = 0..d."""
    from scipy.special import xlog1py, xlogy
    s = np.arange(d + 1, dtype=np.float64)
    t = theta[:, None]
    return np.exp(log_binom[None, :] + xlogy(s[None, :], t) + xlog1py(d - s[None, :], -t))


def _derivatives_at_zero(d: int, k: int) -> np.ndarray:
    """The k-th derivative of b^(d)_s at 0, s = 0..d: C(d, s) k! C(d - s, k - s) (-1)^(k - s) for
    s <= k <= d (the coefficient of theta^k, times k!), else 0."""
    from scipy.special import gammaln
    out = np.zeros(d + 1)
    if k > d:
        return out
    s = np.arange(k + 1, dtype=np.float64)
    log = (_log_binomial(d)[:k + 1] + gammaln(k + 1.0) + gammaln(d - s + 1) - gammaln(k - s + 1)
           - gammaln(d - k + 1.0))
    out[:k + 1] = np.where((k - s) % 2 == 0, 1.0, -1.0) * np.exp(log)
    return out


def _grid_sums(d: int, n: int) -> np.ndarray:
    """sum_{R=1..n} b^(d)_s(theta_R), s = 0..d, by Euler-Maclaurin (uniform weights, n - 1 >= 64 d).

    Over the grid theta = j h, h = 1/(n - 1): (1/h) times the integral of b_s, (n - 1)/(d + 1),
    the end points' halves, then h^(2q-1) B_2q/(2q)! times the difference of the (2q-1)-th
    derivatives at 1 and 0 (at 1 by the symmetry b_s(1 - t) = b_(d-s)(t)). The q-th term is
    about (d h / 2 pi)^(2q-1): with d h <= 1/64 the omitted ones are below 1e-30 of the sum.
    Exact for every n in exact arithmetic (the series of a polynomial ends).
    """
    h = 1.0 / (n - 1)
    total = np.full(d + 1, (n - 1) / (d + 1))
    total[0] += 0.5
    total[d] += 0.5
    for q, coefficient in enumerate(_EULER_MACLAURIN, start=1):
        k = 2 * q - 1
        at_zero = _derivatives_at_zero(d, k)
        at_one = -at_zero[::-1]  # (-1)^k with k odd
        total += coefficient * h ** k * (at_one - at_zero)
    return total


def _passes(last: int, m: int, n: int,
            prior: np.ndarray | None) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Chunks of full ranks 1..last: (ranks, theta_R, w_R)."""
    step = max(1, _CHUNK_CELLS // (2 * m + 1))
    for lo in range(1, last + 1, step):
        rank = np.arange(lo, min(lo + step, last + 1), dtype=np.float64)
        w = np.ones_like(rank) if prior is None else prior[lo - 1:lo - 1 + rank.shape[0]]
        yield rank, (rank - 1) / (n - 1), w


def _bernstein_derivative(theta: float, m: int, order: int) -> np.ndarray:
    """d^order/dtheta^order b^(m)_i(theta), i = 0..m: m!/(m-order)! sum_j (-1)^j C(order, j)
    b^(m-order)_(i-order+j)(theta) (0 beyond the degree)."""
    from scipy.special import comb, poch
    if order > m:
        return np.zeros(m + 1)
    lower = _bernstein(np.array([float(theta)]), m - order, _log_binomial(m - order))[0]
    out = np.zeros(m + 1)
    for j in range(order + 1):
        out[order - j:order - j + m - order + 1] += (-1.0) ** j * comb(order, j) * lower
    return poch(m - order + 1, order) * out


def _metric_derivatives(base: str, rank: float) -> tuple[float, float, float, float]:
    """M, M', M'', M''' at a real rank for MRR (1/R) and nDCG (ln 2 / ln(R + 1))."""
    if base == "MRR":
        return 1 / rank, -1 / rank ** 2, 2 / rank ** 3, -6 / rank ** 4
    u = rank + 1
    log = np.log(u)
    return (np.log(2) / log, -np.log(2) / (u * log ** 2), np.log(2) * (log + 2) / (u ** 2 * log ** 3),
            -np.log(2) * (2 * log ** 2 + 6 * log + 6) / (u ** 3 * log ** 4))


def _smooth_tail(base: str, first: int, last: int, m: int, n: int) -> np.ndarray:
    """sum_{R=first..last} M(R) b^(m)_i(theta_R), uniform weights, M = 1/R or 1/log2(R + 1).

    Euler-Maclaurin in R: the integral by Gauss-Legendre on pieces [x, 2x] with m/2 + 24
    nodes (exact for the polynomial part, M analytic there), the end points' halves and the
    first and third derivatives; with first >= 128 (m + 1) every derivative of M b_i is below
    (m + 1)/first = 1/128 of the one before, so the omitted terms are below 1e-13 of one summand.
    """
    from scipy.special import roots_legendre
    nodes, weights = roots_legendre(m // 2 + 24)
    log_binom, integral = _log_binomial(m), np.zeros(m + 1)
    x = float(first)
    while x < last:
        end = min(2 * x, float(last))
        rank = (x + end) / 2 + (end - x) / 2 * nodes
        integral += ((end - x) / 2 * weights * metric_of_rank(base, None, rank)) @ _bernstein(
            (rank - 1) / (n - 1), m, log_binom)
        x = end
    ends = []
    for rank in (float(first), float(last)):
        theta = (rank - 1) / (n - 1)
        v = [_bernstein_derivative(theta, m, order) / (n - 1) ** order for order in range(4)]
        f, f1, f2, f3 = _metric_derivatives(base, rank)
        ends.append((f * v[0], f1 * v[0] + f * v[1], f3 * v[0] + 3 * f2 * v[1] + 3 * f1 * v[2] + f * v[3]))
    (g_first, d1_first, d3_first), (g_last, d1_last, d3_last) = ends
    return integral + (g_first + g_last) / 2 + (d1_last - d1_first) / 12 - (d3_last - d3_first) / 720


def gram_sums(m: int, n: int, prior: np.ndarray | None) -> np.ndarray:
    """S[s] = sum_R w_R b^(2m)_s(theta_R), s = 0..2m: what A^T W A is made of."""
    if prior is None and n - 1 >= _GRID_PER_DEGREE * 2 * m:
        return _grid_sums(2 * m, n)
    log_binom, total = _log_binomial(2 * m), np.zeros(2 * m + 1)
    for _, theta, w in _passes(n, m, n, prior):
        total += w @ _bernstein(theta, 2 * m, log_binom)
    return total


def target_sums(base: str, k: int | None, m: int, n: int, prior: np.ndarray | None) -> np.ndarray:
    """t = A^T W M: t[r] = sum_R w_R M(R) P(r | R)."""
    if base == "MR" and prior is None and n - 1 >= _GRID_PER_DEGREE * (m + 1):
        # R = 1 + (n - 1) theta and theta b^(m)_i = (i + 1)/(m + 1) b^(m+1)_(i+1).
        i = np.arange(m + 1)
        return _grid_sums(m, n) + (n - 1) * (i + 1) / (m + 1) * _grid_sums(m + 1, n)[1:]
    # M(R) = 0 beyond the cutoff.
    last = n if base in ("MR", "MRR") or k is None else min(k, n)
    # Under the uniform prior, MRR's and nDCG's far ranks are a smooth sum: summed in closed form.
    tail = _TAIL_PER_DEGREE * (m + 1)
    smooth = prior is None and base in ("MRR", "nDCG") and last > 2 * tail
    log_binom, total = _log_binomial(m), np.zeros(m + 1)
    for rank, theta, w in _passes(tail - 1 if smooth else last, m, n, prior):
        total += (w * metric_of_rank(base, k, rank)) @ _bernstein(theta, m, log_binom)
    return total + _smooth_tail(base, tail, last, m, n) if smooth else total


def solve_table(sums: np.ndarray, target: np.ndarray, m: int, gamma: float) -> np.ndarray:
    """f of ((1 - gamma) G + gamma diag(c)) f = t, G from the Bernstein sums, c = G 1."""
    logm, log2m = _log_binomial(m), _log_binomial(2 * m)
    i = np.arange(m + 1)
    coefficient = np.exp(logm[:, None] + logm[None, :] - log2m[i[:, None] + i[None, :]])
    gram = coefficient * sums[i[:, None] + i[None, :]]
    c = gram.sum(axis=1)
    if not (c > 0).all():
        raise ValueError("prior must give weight to some full rank strictly between 1 and n_items: "
                         "otherwise some sampled ranks never occur and their correction is undefined")
    # Scaled by diag(c)^-1/2, the matrix has eigenvalues in [gamma, 1] (A^T W A <= diag(c)
    # by Jensen: rows of A sum to 1), so the solve is as well conditioned as 1/gamma.
    scale = 1.0 / np.sqrt(c)
    scaled = gram * scale[:, None] * scale[None, :]
    rhs = target * scale
    if gamma > 0:
        return scale * np.linalg.solve((1 - gamma) * scaled + gamma * np.eye(m + 1), rhs)
    values, vectors = np.linalg.eigh(scaled)
    keep = values > _CLS_CUTOFF * values.max()
    return scale * (vectors[:, keep] @ ((vectors[:, keep].T @ rhs) / values[keep]))


def correction_table(base: str, k: int | None, m: int, n: int, correction: str, gamma: float = 0.0,
                     prior: np.ndarray | None = None, sums: np.ndarray | None = None) -> np.ndarray:
    """f(1..m+1): the estimate of the full-catalog M(R) for each sampled rank, m negatives of n - 1.

    ``sums``: gram_sums(m, n, prior) when already computed (they serve every metric).

    Examples
    --------
    >>> correction_table("Hits", 1, 1, 3, "rank")      # r = 2 estimates R = 3
    array([1., 0.])
    >>> correction_table("MR", None, 2, 5, "cls").round(12)   # MR is linear: no bias at all
    array([1., 3., 5.])
    """
    sampled_rank = np.arange(1, m + 2, dtype=np.float64)
    if correction == "none":
        return metric_of_rank(base, k, sampled_rank)
    if correction == "rank":
        return metric_of_rank(base, k, 1 + (n - 1) * (sampled_rank - 1) / m)
    if sums is None:
        sums = gram_sums(m, n, prior)
    return solve_table(sums, target_sums(base, k, m, n, prior), m, gamma if correction == "bv" else 0.0)


def table_value(table: np.ndarray, optimistic: np.ndarray, pessimistic: np.ndarray, ties: str) -> np.ndarray:
    """Each query's estimate from the table, under a tie policy (ranks 1-based, within the table).

    ``expected``: the mean of f over the tie's ranks o..p (each equally likely);
    ``optimistic`` / ``pessimistic``: f(o) / f(p); ``realistic``: f at (o + p)/2, the mean of
    its two neighbours when that falls between two ranks.
    """
    o, p = optimistic.astype(np.int64), pessimistic.astype(np.int64)
    if ties == "optimistic":
        return table[o - 1]
    if ties == "pessimistic":
        return table[p - 1]
    if ties == "realistic":
        return (table[(o + p) // 2 - 1] + table[(o + p + 1) // 2 - 1]) / 2
    prefix = np.concatenate(([0.0], np.cumsum(table)))
    tied = (prefix[p] - prefix[o - 1]) / (p - o + 1)
    return np.where(o == p, table[o - 1], tied)
