"""Brute-force reference implementation of ranking metrics (test oracle).

This module is deliberately plain and slow. It is the *definition* of every
metric that rankwise computes, written so that each line can be checked by eye
against the written definition.  It does not import or share any code with the
library under test.

The references use only the standard library (fractions, itertools, math);
numpy serves ``numpy_rr_ap`` alone, the vectorised-NumPy benchmark baseline.

Conventions
-----------
* A *ranking* is a list of labels in ranked order; position 1 is the top.
* Labels are non-negative numbers (int, float or Fraction).
* An item is *relevant* iff ``label >= level`` (``level > 0``).
  ``R`` is the number of relevant items in the whole list.
* ``k`` is a cutoff (positive int) or None, meaning "no cutoff" (all positions).
* Rational metrics (RR, AP, P, R, Rprec, F1, Hits; ERR with integer labels and
  integer max_grade; RBP with an exact p and exact graded labels) are computed
  with ``fractions.Fraction`` and returned as Fraction.  DCG and nDCG are
  always floats (``math.fsum`` / ``math.log2``).  When a metric that can be
  exact is given inexact (float) inputs, it returns a float.

Tie policies (how a list of scores becomes rankings)
----------------------------------------------------
Items are ordered by score, descending.  Items with exactly equal scores
(``-0.0 == 0.0``) form a tie group.  NaN scores are only allowed when
``nan_last=True``; they then rank below every number and are tied with each
other.  +-inf are ordinary numbers.  Within a tie group:

* "stable":      input order (lower index first).
* "optimistic":  higher label first; equal labels in input order.
* "pessimistic": lower label first; equal labels in input order.
* "trec":        doc_id descending, compared byte-wise on UTF-8
                 (so "b" before "a", and "9" before "10"); equal doc_ids in
                 input order.
* "expected":    every ordering of every tie group, all equally likely; the
                 metric is the exact average over all of them
                 (McSherry & Najork 2008), computed by literal enumeration.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import Any

import numpy as np

__all__ = [
    "METRICS",
    "TIE_POLICIES",
    "MAX_ORDERINGS",
    "metric_of_ranking",
    "tie_groups",
    "rankings",
    "metric",
    "numpy_rr_ap",
]

METRICS = ("RR", "AP", "P", "R", "Rprec", "F1", "Hits", "DCG", "nDCG", "ERR", "RBP")

TIE_POLICIES = ("stable", "optimistic", "pessimistic", "trec", "expected")

# Guard for ties="expected": refuse to enumerate more orderings than this.
MAX_ORDERINGS = 50_000

# Metrics that are undefined without a cutoff.
_NEEDS_K = ("P", "R", "F1", "Hits")


# ---------------------------------------------------------------------------
# Small helpers
# ---------------------------------------------------------------------------

def _is_nan(x):
    # NaN is the only value that is not equal to itself.
    return x != x


def _is_exact(x):
    # int (including bool) and Fraction are exact; float is not.
    return isinstance(x, (int, Fraction))


def _is_exact_integer(x):
    # An exact number with an integer value: int, or Fraction with denominator 1.
    if isinstance(x, int):
        return True
    if isinstance(x, Fraction):
        return x.denominator == 1
    return False


def _check_k(k):
    if k is None:
        return
    if isinstance(k, bool) or not isinstance(k, int):
        raise ValueError(f"k must be a positive int or None, got {k!r}")
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k!r}")


def _top(labels, k):
    """The labels at positions 1..k (all of them if k is None)."""
    if k is None:
        return list(labels)
    return list(labels[:k])


# ---------------------------------------------------------------------------
# Metrics of one ranking
# ---------------------------------------------------------------------------

def _rr(labels, k, level):
    # 1 / (position of first relevant item) if that position <= k, else 0.
    top = _top(labels, k)
    for position, label in enumerate(top, start=1):
        if label >= level:
            return Fraction(1, position)
    return Fraction(0)


def _ap(labels, k, level, denom):
    # (1/D) * sum over relevant items at position i <= k of
    #         (number of relevant items at positions <= i) / i,
    # D = R (all relevant items in the list: trec_eval), min(R, k) ("min"),
    # or the relevant items at positions <= k ("hits"); 0 if D == 0.
    R = sum(1 for label in labels if label >= level)
    top = _top(labels, k)
    total = Fraction(0)
    relevant_so_far = 0
    for i, label in enumerate(top, start=1):
        if label >= level:
            relevant_so_far += 1
            total += Fraction(relevant_so_far, i)
    if denom == "R":
        D = R
    elif denom == "min":
        D = R if k is None else min(R, k)
    else:
        D = relevant_so_far
    if D == 0:
        return Fraction(0)
    return total / D


def _precision(labels, k, level):
    # (relevant items in positions <= k) / k; divides by k even if n < k.
    tp = sum(1 for label in _top(labels, k) if label >= level)
    return Fraction(tp, k)


def _recall(labels, k, level, denom):
    # (relevant items in top k) / R, or / min(R, k) with denom "min"; 0 if R == 0.
    R = sum(1 for label in labels if label >= level)
    if R == 0:
        return Fraction(0)
    tp = sum(1 for label in _top(labels, k) if label >= level)
    if denom == "min":
        return Fraction(tp, min(R, k))
    return Fraction(tp, R)


def _rprec(labels, level):
    # (relevant items in top R) / R; 0 if R == 0.
    R = sum(1 for label in labels if label >= level)
    if R == 0:
        return Fraction(0)
    tp = sum(1 for label in labels[:R] if label >= level)
    return Fraction(tp, R)


def _f1(labels, k, level):
    # 2*TP / (k + R), TP = relevant items in top k; 0 if TP == 0.
    R = sum(1 for label in labels if label >= level)
    tp = sum(1 for label in _top(labels, k) if label >= level)
    if tp == 0:
        return Fraction(0)
    return Fraction(2 * tp, k + R)


def _hits(labels, k, level):
    # 1 if any relevant item at position <= k, else 0.
    for label in _top(labels, k):
        if label >= level:
            return Fraction(1)
    return Fraction(0)


def _gain_value(label, gain):
    if gain == "linear":
        return float(label)
    if gain == "exponential":
        return float(2 ** label - 1)
    raise ValueError(f"gain must be 'linear' or 'exponential', got {gain!r}")


def _dcg(labels, k, gain, log_base=2):
    # sum over positions i <= k of gain(l_i) / log_b(i + 1); label values are
    # used as they are, regardless of the relevance level.
    terms = []
    for i, label in enumerate(_top(labels, k), start=1):
        terms.append(_gain_value(label, gain) / math.log(i + 1, log_base))
    return math.fsum(terms)


def _ndcg(labels, k, gain, ideal_cut):
    # DCG@k / IDCG@k, IDCG@k = DCG@k of the same labels sorted descending
    # (ideal "cut"), or the DCG of all of them, not cut at k (ideal "all");
    # 0 if IDCG is 0.
    ideal = sorted(labels, reverse=True)
    if ideal_cut == "all":
        idcg = _dcg(ideal, None, gain)
    else:
        idcg = _dcg(ideal, k, gain)
    if idcg == 0:
        return 0.0
    return _dcg(labels, k, gain) / idcg


def _err(labels, k, max_grade):
    # sum over i <= k of (1/i) * R_i * prod_{j<i} (1 - R_j),
    # R_i = (2**l_i - 1) / 2**max_grade.
    exact = _is_exact_integer(max_grade) and all(_is_exact_integer(l) for l in labels)
    total: Fraction | float
    not_stopped_yet: Fraction | float
    if exact:
        denominator = 2 ** int(max_grade)

        def stop_probability(label):
            return Fraction(2 ** int(label) - 1, denominator)

        total = Fraction(0)
        not_stopped_yet = Fraction(1)
    else:
        denominator = 2.0 ** float(max_grade)

        def stop_probability(label):
            return (2.0 ** float(label) - 1.0) / denominator

        total = 0.0
        not_stopped_yet = 1.0

    for i, label in enumerate(_top(labels, k), start=1):
        r_i = stop_probability(label)
        total += not_stopped_yet * r_i / i
        not_stopped_yet *= (1 - r_i)
    return total


def _rbp(labels, k, level, p, graded, max_grade):
    # (1 - p) * sum over i <= k of rel_i * p**(i-1),
    # rel_i = 1 if relevant else 0; with graded=True rel_i = label / max_grade.
    if graded:
        exact = _is_exact(p) and _is_exact(max_grade) and all(_is_exact(l) for l in labels)
    else:
        exact = _is_exact(p)

    total: Fraction | float
    if exact:
        p = Fraction(p)
        total = Fraction(0)
    else:
        p = float(p)
        total = 0.0

    rel: Fraction | float
    for i, label in enumerate(_top(labels, k), start=1):
        if graded:
            if exact:
                rel = Fraction(label) / Fraction(max_grade)
            else:
                rel = float(label) / float(max_grade)
        else:
            rel = 1 if label >= level else 0
        total += rel * p ** (i - 1)
    return (1 - p) * total


def metric_of_ranking(labels_in_rank_order, metric, k=None, *, level=1, gain="linear",
                      p=Fraction(4, 5), graded=False, max_grade=None, denom="R", ideal="cut", log_base=2):
    """Value of `metric` for one ranked list of labels (position 1 first).

    metric: one of METRICS.  P, R, F1 and Hits require k.  Rprec ignores k.
    level:  relevance threshold (> 0) for the binary metrics and non-graded RBP.
    gain:   "linear" or "exponential" (DCG, nDCG).
    p:      RBP persistence, 0 <= p <= 1.
    graded: RBP uses label / max_grade instead of binary relevance.
    max_grade: for ERR and graded RBP; default max(labels), or 1 if that is 0 (or the list is empty).
    denom:  AP's and R's divisor: "R" (trec_eval), "min" (min(R, k)), or for AP "hits" (the relevant items within k).
    ideal:  nDCG's ideal DCG: "cut" at k, or "all" (of every label).
    log_base: DCG's discount is 1 / log_base(i + 1) (nDCG: always base 2, which it does not depend on).

    Returns a Fraction when the value is exact, a float otherwise
    (DCG and nDCG are always floats).
    """
    labels = list(labels_in_rank_order)

    if metric not in METRICS:
        raise ValueError(f"unknown metric {metric!r}; expected one of {METRICS}")
    _check_k(k)
    if metric in _NEEDS_K and k is None:
        raise ValueError(f"metric {metric!r} requires a cutoff k")
    if not level > 0:
        raise ValueError(f"level must be > 0, got {level!r}")
    for label in labels:
        if _is_nan(label) or label < 0:
            raise ValueError(f"labels must be non-negative numbers, got {label!r}")
    if gain not in ("linear", "exponential"):
        raise ValueError(f"gain must be 'linear' or 'exponential', got {gain!r}")
    if not (0 <= p <= 1):
        raise ValueError(f"p must be in [0, 1], got {p!r}")
    if denom not in ("R", "min", "hits") or (denom == "hits" and metric != "AP"):
        raise ValueError(f"denom must be 'R', 'min' or (AP only) 'hits', got {denom!r}")
    if ideal not in ("cut", "all"):
        raise ValueError(f"ideal must be 'cut' or 'all', got {ideal!r}")
    if not log_base > 1:
        raise ValueError(f"log_base must be > 1, got {log_base!r}")

    if max_grade is None:
        max_grade = max(labels) if labels else 0
        if max_grade == 0:
            max_grade = 1
    if not max_grade > 0:
        raise ValueError(f"max_grade must be > 0, got {max_grade!r}")

    if metric == "RR":
        return _rr(labels, k, level)
    if metric == "AP":
        return _ap(labels, k, level, denom)
    if metric == "P":
        return _precision(labels, k, level)
    if metric == "R":
        return _recall(labels, k, level, denom)
    if metric == "Rprec":
        return _rprec(labels, level)
    if metric == "F1":
        return _f1(labels, k, level)
    if metric == "Hits":
        return _hits(labels, k, level)
    if metric == "DCG":
        return _dcg(labels, k, gain, log_base)
    if metric == "nDCG":
        return _ndcg(labels, k, gain, ideal)
    if metric == "ERR":
        return _err(labels, k, max_grade)
    if metric == "RBP":
        return _rbp(labels, k, level, p, graded, max_grade)
    raise AssertionError("unreachable")


# ---------------------------------------------------------------------------
# Tie groups and tie policies
# ---------------------------------------------------------------------------

def tie_groups(scores, nan_last=False):
    """Indices grouped by equal score.

    Groups are in descending score order; indices are ascending within a
    group.  Equality is exact (so -0.0 and 0.0 are tied).  NaN scores raise
    ValueError unless nan_last=True, in which case all NaNs form one final
    group (below every number, including -inf).
    """
    scores = list(scores)
    nan_indices = [i for i, s in enumerate(scores) if _is_nan(s)]
    if nan_indices and not nan_last:
        raise ValueError("scores contain NaN; pass nan_last=True to rank NaN last")

    # Distinct (non-NaN) score values, compared with ==.
    distinct: list[Any] = []
    for s in scores:
        if _is_nan(s):
            continue
        if not any(s == v for v in distinct):
            distinct.append(s)
    distinct.sort(reverse=True)

    groups = []
    for v in distinct:
        groups.append([i for i, s in enumerate(scores) if not _is_nan(s) and s == v])
    if nan_indices:
        groups.append(nan_indices)
    return groups


def _order_group(group, labels, ties, doc_ids):
    """Indices of one tie group in the order a deterministic policy puts them."""
    group = sorted(group)  # input order first
    if ties == "stable":
        return group
    if ties == "optimistic":
        # Higher label first; equal labels in input order.
        return sorted(group, key=lambda i: (-labels[i], i))
    if ties == "pessimistic":
        # Lower label first; equal labels in input order.
        return sorted(group, key=lambda i: (labels[i], i))
    if ties == "trec":
        # doc_id descending, byte-wise on UTF-8. Python's sort is stable even
        # with reverse=True, so equal doc_ids stay in input order.
        return sorted(group, key=lambda i: doc_ids[i].encode("utf-8"), reverse=True)
    raise AssertionError("unreachable")


def _count_distinct_permutations(items):
    """Number of distinct orderings of a multiset: n! / prod(multiplicity!)."""
    multiplicities: list[int] = []
    seen: list[Any] = []
    for x in items:
        for j, y in enumerate(seen):
            if x == y:
                multiplicities[j] += 1
                break
        else:
            seen.append(x)
            multiplicities.append(1)
    count = math.factorial(len(items))
    for m in multiplicities:
        count //= math.factorial(m)
    return count


def _distinct_permutations(items):
    """Yield every distinct ordering (as a tuple) of the multiset `items`."""
    if not items:
        yield ()
        return
    used_first: list[Any] = []
    for idx, first in enumerate(items):
        if any(first == y for y in used_first):
            continue  # an equal value was already tried in first place
        used_first.append(first)
        rest = items[:idx] + items[idx + 1:]
        for tail in _distinct_permutations(rest):
            yield (first,) + tail


def rankings(scores, labels, ties, *, doc_ids=None, nan_last=False,
             max_orderings=MAX_ORDERINGS):
    """Every ranking (list of labels in rank order) that the tie policy admits.

    Deterministic policies ("stable", "optimistic", "pessimistic", "trec")
    return exactly one ranking.  "expected" returns every distinct ordering of
    labels, all of which are equally likely (see below).
    """
    scores = list(scores)
    labels = list(labels)
    if len(scores) != len(labels):
        raise ValueError("scores and labels must have the same length")
    if ties not in TIE_POLICIES:
        raise ValueError(f"unknown tie policy {ties!r}; expected one of {TIE_POLICIES}")
    if doc_ids is not None:
        doc_ids = list(doc_ids)
        if len(doc_ids) != len(scores):
            raise ValueError("doc_ids must have the same length as scores")
    if ties == "trec" and doc_ids is None:
        raise ValueError("ties='trec' requires doc_ids")

    groups = tie_groups(scores, nan_last=nan_last)

    if ties != "expected":
        ranking = []
        for group in groups:
            for i in _order_group(group, labels, ties, doc_ids):
                ranking.append(labels[i])
        return [ranking]

    # ties == "expected".
    # Every ordering of a tie group is equally likely, independently across
    # groups.  A metric of a ranking depends only on the sequence of labels,
    # and each *distinct* label sequence of a group arises from exactly the
    # same number of its orderings (prod of multiplicity! over the group's
    # label values).  So the distinct label sequences are themselves equally
    # likely, and it suffices to enumerate those.  The full rankings are the
    # Cartesian product of the per-group sequences, concatenated in group order.
    group_labels = [[labels[i] for i in group] for group in groups]

    total = 1
    for gl in group_labels:
        total *= _count_distinct_permutations(gl)
    if total > max_orderings:
        raise ValueError(
            f"ties='expected' would enumerate {total} orderings "
            f"(limit {max_orderings}); use a smaller test case")

    per_group = [list(_distinct_permutations(gl)) for gl in group_labels]
    result = []
    for choice in itertools.product(*per_group):
        ranking = []
        for sequence in choice:
            ranking.extend(sequence)
        result.append(ranking)
    assert len(result) == total
    return result


def metric(scores, labels, metric, k=None, *, ties="expected", doc_ids=None,
           nan_last=False, max_orderings=MAX_ORDERINGS, **params):
    """Metric of a scored list under a tie policy.

    The average of metric_of_ranking over rankings(); for deterministic
    policies that is just the value of the single ranking.  The average is an
    exact Fraction when every value is a Fraction, otherwise a float.
    ``params`` are passed to metric_of_ranking (level, gain, p, graded,
    max_grade, denom, ideal).
    """
    all_rankings = rankings(scores, labels, ties, doc_ids=doc_ids,
                            nan_last=nan_last, max_orderings=max_orderings)
    values = [metric_of_ranking(r, metric, k, **params) for r in all_rankings]
    if all(isinstance(v, Fraction) for v in values):
        return sum(values, Fraction(0)) / len(values)
    return math.fsum(float(v) for v in values) / len(values)


# ---------------------------------------------------------------------------
# Vectorised NumPy baseline (for benchmarks)
# ---------------------------------------------------------------------------

def numpy_rr_ap(indptr, y_score, y_true, level=1):
    """Benchmark baseline: plain per-query NumPy loop computing RR and AP.

    indptr: int array of length Q+1 (CSR offsets into y_score / y_true).
    Ties are broken stably (input order), no cutoff.
    Returns (rr, ap), two float64 arrays of length Q.
    """
    indptr = np.asarray(indptr)
    y_score = np.asarray(y_score)
    y_true = np.asarray(y_true)
    n_queries = len(indptr) - 1
    rr = np.zeros(n_queries, dtype=np.float64)
    ap = np.zeros(n_queries, dtype=np.float64)
    for q in range(n_queries):
        start, end = indptr[q], indptr[q + 1]
        scores = y_score[start:end]
        labels = y_true[start:end]
        order = np.argsort(-scores, kind="stable")
        rel = labels[order] >= level
        pos = np.flatnonzero(rel) + 1
        R = len(pos)
        if R == 0:
            continue  # rr[q] = ap[q] = 0
        rr[q] = 1.0 / pos[0]
        ap[q] = (np.arange(1, R + 1) / pos).sum() / R
    return rr, ap
