"""Brute-force reference for one-positive rank metrics (test oracle).

Plain, slow and stdlib-only: it is the *definition* of what rankwise's
``rank_positive`` / ``rank_metrics`` compute, written as loops that can be
checked by eye.  It shares no code with the library under test.

Conventions
-----------
* One query = the true answer's score ``pos`` and a list of candidate scores
  (the other candidates; the true answer itself is never one of them).
* ``greater`` = candidates scoring strictly above ``pos``; ``equal`` = candidates
  scoring exactly ``pos`` (``-0.0 == 0.0``); ``C`` = candidates + 1 (the true
  answer).  Masked candidates (mask True) are not candidates at all.
* NaN candidates: ``nan="raise"`` -> ValueError; ``"ignore"`` -> not a
  candidate; ``"last"`` -> a candidate ranked below every number (counts in C
  only).  A NaN ``pos`` is always an error.  +-inf are ordinary numbers.
* Optimistic rank o = greater + 1, pessimistic p = greater + equal + 1,
  realistic (o + p) / 2 (an exact Fraction here).
* Rational quantities are exact ``Fraction``; anything with logs, roots or
  non-integer powers is a float.
* Weights (optional) are converted to Fractions exactly (``Fraction(float)`` is
  exact), so weighted means of rational quantities stay exact.
"""

from __future__ import annotations

import functools
import itertools
import math
import statistics
from fractions import Fraction

__all__ = [
    "count_ranks",
    "count_ranks_with_true_column",
    "policy_rank",
    "tie_positions",
    "weighted_mean",
    "mr", "mrr", "hits", "ndcg", "hmr", "gmr", "igmr", "iamr",
    "weighted_median", "median_rank", "rank_var", "rank_std", "rank_mad",
    "MAD_NORMAL",
    "base_statistic",
    "expected_over_ties",
    "expected_per_query",
    "per_rank_statistic",
    "query_moments",
    "chance_moments",
    "chance_moments_by_enumeration",
    "reference_metric",
    "NON_MEAN",
    "full_metric",
    "sampled_rank_probability",
    "sampled_table",
    "expected_sampled",
    "sampled_query_value",
]

# scipy.stats.median_abs_deviation(scale="normal") divides by Phi^-1(3/4).
MAD_NORMAL = 1.0 / statistics.NormalDist().inv_cdf(0.75)

# Enumerations larger than this are refused (keep the tests fast).
MAX_TUPLES = 200_000


def _is_nan(x):
    return x != x


# ---------------------------------------------------------------------------
# Counting: (greater, equal, C) of one query
# ---------------------------------------------------------------------------

def count_ranks(pos, candidates, mask=None, nan="raise"):
    """(greater, equal, C) of the true answer ``pos`` among ``candidates``.

    ``candidates`` are Python numbers (a float32 value converted with float()
    is exact, so comparisons are exact float64 comparisons).  ``mask[j]`` True
    removes candidate j.
    """
    if nan not in ("raise", "ignore", "last"):
        raise ValueError(f"unknown nan policy {nan!r}")
    pos = float(pos)
    if _is_nan(pos):
        raise ValueError("the true answer's score is NaN")
    candidates = [float(c) for c in candidates]
    if mask is None:
        mask = [False] * len(candidates)
    mask = [bool(m) for m in mask]
    if len(mask) != len(candidates):
        raise ValueError("mask must have one entry per candidate")

    greater = 0
    equal = 0
    n_candidates = 1  # the true answer itself
    for score, masked in zip(candidates, mask, strict=True):
        if masked:
            continue
        if _is_nan(score):
            if nan == "raise":
                raise ValueError("NaN candidate")
            if nan == "ignore":
                continue
            n_candidates += 1  # "last": below every number, counts in C only
            continue
        n_candidates += 1
        if score > pos:
            greater += 1
        elif score == pos:
            equal += 1
    return greater, equal, n_candidates


def count_ranks_with_true_column(scores, true_index, mask=None, nan="raise"):
    """PyKEEN's layout: ``scores`` holds every candidate, the true one at ``true_index``.

    The true column is never its own competitor, whatever ``mask`` says there.
    """
    scores = [float(s) for s in scores]
    if mask is None:
        mask = [False] * len(scores)
    pos = scores[true_index]
    others = [s for j, s in enumerate(scores) if j != true_index]
    other_mask = [m for j, m in enumerate(mask) if j != true_index]
    return count_ranks(pos, others, other_mask, nan)


# ---------------------------------------------------------------------------
# Ranks under a tie policy
# ---------------------------------------------------------------------------

def policy_rank(greater, equal, ties):
    """The single rank a deterministic policy assigns (Fraction for realistic)."""
    o = greater + 1
    p = greater + equal + 1
    if ties == "optimistic":
        return Fraction(o)
    if ties == "pessimistic":
        return Fraction(p)
    if ties == "realistic":
        return Fraction(o + p, 2)
    raise ValueError(f"no single rank for ties={ties!r}")


def tie_positions(greater, equal):
    """The positive's rank in every ordering of its tie group (each ordering once).

    The tie group is the positive plus ``equal`` other candidates; every one of
    its (equal + 1)! orderings is equally likely.  Enumerated literally.
    """
    group = ["pos"] + [f"other{j}" for j in range(equal)]
    ranks = []
    for ordering in itertools.permutations(group):
        ranks.append(greater + 1 + ordering.index("pos"))
    return ranks


# ---------------------------------------------------------------------------
# Metrics of a list of ranks (ranks may be int or Fraction)
# ---------------------------------------------------------------------------

def _weights(weights, n):
    if weights is None:
        return [Fraction(1)] * n
    weights = [Fraction(w) for w in weights]
    if len(weights) != n:
        raise ValueError("one weight per rank")
    return weights


def weighted_mean(values, weights=None):
    w = _weights(weights, len(values))
    total = sum(w, Fraction(0))
    if all(isinstance(v, (int, Fraction)) for v in values):
        return sum((wi * Fraction(v) for wi, v in zip(w, values, strict=True)), Fraction(0)) / total
    return math.fsum(float(wi) * float(v) for wi, v in zip(w, values, strict=True)) / float(total)


def mr(ranks, weights=None):
    return weighted_mean([Fraction(r) for r in ranks], weights)


def mrr(ranks, weights=None):
    return weighted_mean([1 / Fraction(r) for r in ranks], weights)


def hits(ranks, k, weights=None):
    return weighted_mean([Fraction(1) if r <= k else Fraction(0) for r in ranks], weights)


def _discount(r, k=None):
    # One relevant item's nDCG@k: its DCG, the ideal DCG being 1/log2(2) = 1.
    return 0.0 if k is not None and r > k else 1.0 / math.log2(r + 1)


def ndcg(ranks, k=None, weights=None):
    return weighted_mean([_discount(r, k) for r in ranks], weights)


def hmr(ranks, weights=None):
    # Harmonic mean rank: 1 / (weighted mean of 1/r).
    return 1 / mrr(ranks, weights)


def iamr(ranks, weights=None):
    return 1 / mr(ranks, weights)


def gmr(ranks, weights=None):
    # exp(sum w log r / sum w).
    w = _weights(weights, len(ranks))
    total = float(sum(w, Fraction(0)))
    return math.exp(math.fsum(float(wi) * math.log(r) for wi, r in zip(w, ranks, strict=True)) / total)


def igmr(ranks, weights=None):
    return 1.0 / gmr(ranks, weights)


def weighted_median(values, weights=None):
    """Median: the midpoint of the lower and upper weighted medians.

    lower = smallest value v (of positive weight) with weight(x <= v) >= W/2,
    upper = largest value v (of positive weight) with weight(x >= v) >= W/2.
    With equal weights this is the usual median (mean of the two middle values
    for an even count).  Exact arithmetic on Fractions.
    """
    w = _weights(weights, len(values))
    values = [Fraction(v) for v in values]
    total = sum(w, Fraction(0))
    half = total / 2
    support = sorted(set(v for v, wi in zip(values, w, strict=True) if wi > 0))
    lower: Fraction | None = None
    for v in support:
        if sum((wi for x, wi in zip(values, w, strict=True) if x <= v), Fraction(0)) >= half:
            lower = v
            break
    upper: Fraction | None = None
    for v in reversed(support):
        if sum((wi for x, wi in zip(values, w, strict=True) if x >= v), Fraction(0)) >= half:
            upper = v
            break
    assert lower is not None and upper is not None  # the weights reach W/2 from either side
    return (lower + upper) / 2


def median_rank(ranks, weights=None):
    return weighted_median(ranks, weights)


def rank_var(ranks, weights=None):
    # Population variance (ddof=0), weighted: sum w (r - mean)^2 / sum w.
    m = mr(ranks, weights)
    return weighted_mean([(Fraction(r) - m) ** 2 for r in ranks], weights)


def rank_std(ranks, weights=None):
    return math.sqrt(rank_var(ranks, weights))


def rank_mad(ranks, weights=None):
    # MAD * 1/Phi^-1(3/4), as scipy.stats.median_abs_deviation(scale="normal").
    center = weighted_median(ranks, weights)
    deviations = [abs(Fraction(r) - center) for r in ranks]
    return MAD_NORMAL * float(weighted_median(deviations, weights))


# Metrics that are not means of per-query values (no tie expectation).
NON_MEAN = ("HMR", "GMR", "IGMR", "IAMR", "median_rank", "inverse_median_rank",
            "rank_std", "rank_var", "rank_mad")


def base_statistic(base, k):
    """Function (ranks, weights) -> value of a base statistic."""
    if base == "MR":
        return mr
    if base == "MRR":
        return mrr
    if base == "Hits":
        return lambda ranks, weights=None: hits(ranks, k, weights)
    if base == "nDCG":
        return lambda ranks, weights=None: ndcg(ranks, k, weights)
    if base == "HMR":
        return hmr
    if base == "GMR":
        return gmr
    if base == "IGMR":
        return igmr
    if base == "IAMR":
        return iamr
    if base == "median_rank":
        return median_rank
    if base == "inverse_median_rank":
        return lambda ranks, weights=None: 1 / median_rank(ranks, weights)
    if base == "rank_var":
        return rank_var
    if base == "rank_std":
        return rank_std
    if base == "rank_mad":
        return rank_mad
    raise ValueError(f"unknown base {base!r}")


# ---------------------------------------------------------------------------
# ties="expected": average over every ordering of every tie
# ---------------------------------------------------------------------------

def expected_over_ties(greater, equal, statistic, weights=None, max_tuples=MAX_TUPLES):
    """Average of ``statistic(ranks, weights)`` over all tie orderings of all queries.

    Enumerates the Cartesian product of every query's tie orderings (so the
    queries' orderings are independent and each joint ordering equally likely).
    """
    per_query = [tie_positions(g, e) for g, e in zip(greater, equal, strict=True)]
    size = 1
    for positions in per_query:
        size *= len(positions)
    if size > max_tuples:
        raise ValueError(f"{size} joint orderings; use a smaller case")
    values = [statistic(list(ranks), weights) for ranks in itertools.product(*per_query)]
    if all(isinstance(v, Fraction) for v in values):
        return sum(values, Fraction(0)) / len(values)
    return math.fsum(float(v) for v in values) / len(values)


def expected_per_query(greater, equal, per_rank):
    """E[per_rank(r)] for one query, r the positive's rank over its tie orderings."""
    positions = tie_positions(greater, equal) if equal <= 6 else list(
        range(greater + 1, greater + equal + 2))  # each position equally often
    values = [per_rank(r) for r in positions]
    if all(isinstance(v, Fraction) for v in values):
        return sum(values, Fraction(0)) / len(values)
    return math.fsum(values) / len(values)


# ---------------------------------------------------------------------------
# Chance: every rank r_i independently uniform on 1..C_i
# ---------------------------------------------------------------------------

def per_rank_statistic(base, k=None):
    """The per-query quantity whose mean is MR, MRR or Hits@k (None for other bases)."""
    if base == "MR":
        return Fraction
    if base == "MRR":
        return lambda r: Fraction(1, r)
    if base == "Hits":
        return lambda r: Fraction(1 if r <= k else 0)
    if base == "nDCG":
        return lambda r: _discount(r, k)
    return None


def query_moments(c, per_rank):
    """(E, E[x^2]) of per_rank(r) for r uniform on 1..c, by summing over r."""
    values = [per_rank(r) for r in range(1, c + 1)]
    if all(isinstance(v, Fraction) for v in values):
        first = sum(values, Fraction(0)) / c
        second = sum((v * v for v in values), Fraction(0)) / c
        return first, second
    first = math.fsum(values) / c
    second = math.fsum(v * v for v in values) / c
    return first, second


@functools.cache
def _query_moments(base, k, c):
    """query_moments of a base statistic, remembered: the same exact sums, done once per (base, k, c)."""
    return query_moments(c, per_rank_statistic(base, k))


@functools.cache
def _expected_per_query(base, k, greater, equal):
    """expected_per_query of a base statistic, remembered (its values are immutable Fractions)."""
    return expected_per_query(greater, equal, per_rank_statistic(base, k))


def chance_moments(base, n_candidates, k=None, weights=None):
    """(E, V) of a base statistic (MR, MRR, Hits, GMR) under independent uniform ranks.

    Per-query moments come from summing over 1..C_i; independence combines them:
    a weighted mean has E = sum w_i E_i / W and V = sum w_i^2 V_i / W^2; the
    weighted GMR prod r_i^(w_i/W) has E = prod E[r_i^(w_i/W)] and
    V = prod E[r_i^(2 w_i/W)] - E^2.  (Checked against full enumeration by the
    tests, see chance_moments_by_enumeration.)
    """
    n = len(n_candidates)
    w = _weights(weights, n)
    total = sum(w, Fraction(0))
    e: float | Fraction
    if base == "GMR":
        e = 1.0
        second = 1.0
        for c, wi in zip(n_candidates, w, strict=True):
            s = float(wi / total)
            e *= math.fsum(r ** s for r in range(1, c + 1)) / c
            second *= math.fsum(r ** (2 * s) for r in range(1, c + 1)) / c
        return e, second - e * e
    per_rank = per_rank_statistic(base, k)
    if per_rank is None:
        raise ValueError(f"no chance moments for {base!r}")
    e = Fraction(0)
    v = Fraction(0)
    for c, wi in zip(n_candidates, w, strict=True):
        first, second = _query_moments(base, k, int(c))
        e += wi * first
        v += wi * wi * (second - first * first)
    return e / total, v / (total * total)


def chance_moments_by_enumeration(base, n_candidates, k=None, weights=None,
                                  max_tuples=MAX_TUPLES):
    """(E, V) by literally enumerating every rank tuple in prod_i {1..C_i}.

    Exact Fractions for MR, MRR and Hits; floats for GMR.
    """
    size = 1
    for c in n_candidates:
        size *= c
    if size > max_tuples:
        raise ValueError(f"{size} rank tuples; use a smaller case")
    statistic = base_statistic(base, k)
    values = [statistic(list(ranks), weights)
              for ranks in itertools.product(*(range(1, c + 1) for c in n_candidates))]
    if all(isinstance(v, Fraction) for v in values):
        e = sum(values, Fraction(0)) / len(values)
        v = sum(((x - e) ** 2 for x in values), Fraction(0)) / len(values)
        return e, v
    e = math.fsum(values) / len(values)
    v = math.fsum((x - e) ** 2 for x in values) / len(values)
    return e, v


# ---------------------------------------------------------------------------
# Every rank_metrics name, by definition
# ---------------------------------------------------------------------------

def _parse(name):
    """Canonical name -> (base, k, transform)."""
    k = None
    if "@" in name:
        name, raw = name.split("@")
        k = int(raw)
    adjusted = {"AMR": ("MR", "ratio"), "AMRI": ("MR", "index"), "AMRR": ("MRR", "index"),
                "AHits": ("Hits", "index"), "AGMRI": ("GMR", "index")}
    if name in adjusted:
        base, transform = adjusted[name]
        return base, k, transform
    if name in ("zMR", "zMRR", "zHits", "zGMR"):
        return name[1:], k, "z"
    return name, k, None


def _parse_full(name):
    # E[Hits@3] style: the cutoff sits inside the brackets.
    if name.startswith(("E[", "V[")):
        inner = name[2:-1]
        k = None
        if "@" in inner:
            inner, raw = inner.split("@")
            k = int(raw)
        return inner, k, name[0]
    return _parse(name)


def reference_metric(name, greater, equal, n_candidates=None, ties="realistic", weights=None):
    """Value of a canonical rank_metrics name (e.g. "MRR", "AHits@3", "E[GMR]").

    ties="expected": per-query expectation over tie orderings of the mean
    metrics (MR, MRR, Hits), enumerated per query; the mean of the per-query
    expectations is the expectation of the mean (linearity).
    Returns Fraction where exact, else float; None where the value is undefined
    (an adjusted index with E = 1, a z-score with V = 0).
    """
    base, k, transform = _parse_full(name)

    if transform in ("E", "V"):
        e, v = chance_moments(base, n_candidates, k, weights)
        return e if transform == "E" else v

    if ties == "expected":
        if base in NON_MEAN:
            raise ValueError(f"{name} has no tie expectation")
        if per_rank_statistic(base, k) is None:  # GMR in an adjusted/z form
            raise ValueError(f"{name} has no tie expectation")
        value = weighted_mean([_expected_per_query(base, k, int(g), int(e))
                               for g, e in zip(greater, equal, strict=True)], weights)
    else:
        ranks = [policy_rank(g, e, ties) for g, e in zip(greater, equal, strict=True)]
        value = base_statistic(base, k)(ranks, weights)

    if transform is None:
        return value
    e, v = chance_moments(base, n_candidates, k, weights)
    if transform == "ratio":
        return value / e
    if transform == "index":
        if e == 1:
            return None  # undefined: every rank is within the cutoff even under chance
        return (value - e) / (1 - e)
    if v == 0:
        return None  # undefined: no variance under chance
    sign = -1 if base in ("MR", "GMR") else 1
    return sign * (float(value) - float(e)) / math.sqrt(v)


# ---------------------------------------------------------------------------
# Sampled ranks (Krichene & Rendle, "On Sampled Metrics for Item Recommendation",
# KDD 2020): m negatives drawn uniformly with replacement from the n - 1 others
# ---------------------------------------------------------------------------

def full_metric(base, k, rank):
    """M(rank) of one relevant item: a Fraction for MR, MRR and Hits, a float for nDCG."""
    rank = Fraction(rank)
    if base == "MR":
        return rank
    if base == "MRR":
        return 1 / rank
    if base == "Hits":
        return Fraction(1 if rank <= k else 0)
    return _discount(float(rank), k)


def sampled_rank_probability(r, full, m, n):
    """P(sampled rank r | full rank R): each of m draws outranks with (R - 1)/(n - 1)."""
    theta = Fraction(full - 1, n - 1)
    return math.comb(m, r - 1) * theta ** (r - 1) * (1 - theta) ** (m - r + 1)


def _solve_exact(matrix, rhs):
    """Gauss-Jordan elimination on Fractions (the matrix is nonsingular)."""
    size = len(rhs)
    rows = [list(row) + [b] for row, b in zip(matrix, rhs, strict=True)]
    for col in range(size):
        pivot = next(i for i in range(col, size) if rows[i][col] != 0)
        rows[col], rows[pivot] = rows[pivot], rows[col]
        for i in range(size):
            if i != col and rows[i][col] != 0:
                factor = rows[i][col] / rows[col][col]
                rows[i] = [a - factor * b for a, b in zip(rows[i], rows[col], strict=True)]
    return [rows[i][size] / rows[i][i] for i in range(size)]


def sampled_table(base, k, m, n, correction, gamma=0, prior=None):
    """f(1..m+1) by the written definitions, with the explicit n x (m+1) matrix A.

    "none": M(r); "rank": M(1 + (n-1)(r-1)/m); "cls" / "bv": the minimiser of
    sum_R w_R [(sum_r A[R][r] f(r) - M(R))^2 + gamma (sum_r A[R][r] f(r)^2 - (sum_r A[R][r] f(r))^2)],
    through its normal equations ((1 - gamma) A^T W A + gamma diag(A^T W 1)) f = A^T W M,
    solved exactly (floats of nDCG converted exactly to Fractions).
    """
    ranks = range(1, m + 2)
    if correction == "none":
        return [full_metric(base, k, r) for r in ranks]
    if correction == "rank":
        return [full_metric(base, k, 1 + Fraction((n - 1) * (r - 1), m)) for r in ranks]
    gamma = Fraction(gamma) if correction == "bv" else Fraction(0)
    w = [Fraction(1)] * n if prior is None else [Fraction(x) for x in prior]
    a = [[sampled_rank_probability(r, big, m, n) for r in ranks] for big in range(1, n + 1)]
    target = [Fraction(full_metric(base, k, big)) for big in range(1, n + 1)]
    normal = [[(1 - gamma) * sum(w[b] * a[b][i] * a[b][j] for b in range(n))
               + (gamma * sum(w[b] * a[b][i] for b in range(n)) if i == j else 0)
               for j in range(m + 1)] for i in range(m + 1)]
    rhs = [sum(w[b] * a[b][i] * target[b] for b in range(n)) for i in range(m + 1)]
    return _solve_exact(normal, rhs)


def expected_sampled(table, full, m, n):
    """E[f(r) | R]: the mean estimate of a query of full rank R."""
    return sum(sampled_rank_probability(r, full, m, n) * Fraction(table[r - 1]) for r in range(1, m + 2))


def sampled_query_value(table, greater, equal, ties, base=None, k=None, m=None, n=None, correction=None):
    """One query's estimate from its sampled rank: the table over the tie's positions.

    expected: the mean of f over every ordering of the tie (enumerated); optimistic /
    pessimistic: f(o) / f(p); realistic: "none" and "rank" apply their formula to the mean
    rank (o + p)/2, the other tables average f at the two ranks around it.
    """
    o, p = greater + 1, greater + equal + 1
    if ties == "expected":
        return sum(Fraction(table[r - 1]) for r in tie_positions(greater, equal)) / math.factorial(equal + 1)
    if ties in ("optimistic", "pessimistic"):
        return Fraction(table[(o if ties == "optimistic" else p) - 1])
    mean = Fraction(o + p, 2)
    if correction == "none":
        return Fraction(full_metric(base, k, mean))
    if correction == "rank":
        return Fraction(full_metric(base, k, 1 + (n - 1) * (mean - 1) / m))
    return (Fraction(table[math.floor(mean) - 1]) + Fraction(table[math.ceil(mean) - 1])) / 2
