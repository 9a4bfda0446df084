"""Brute-force references for the recommender-system functions (test oracle).

Plain loops over Python lists and dicts, written to be checked by eye; nothing of rankwise
is imported.

``top_k``: scores are Python floats; NaN ranks below every number (``nan="last"``).

``evaluate_topk``: ``relevant`` is a dict user -> {item: grade}, ``recommended`` a dict
user -> list of item ids in rank order (position 1 first). Every relevant item of a user
counts in R and in nDCG's ideal ranking, whether it was recommended or not.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from fractions import Fraction

__all__ = ["evaluate_topk", "top_k", "topk_metric"]


def top_k(y_score: Sequence[Sequence[float]], k: int,
          exclude: Sequence[Sequence[bool]] | None = None) -> tuple[list[list[int]], list[int]]:
    """Each row's ``min(k, n_items)`` best item ids, padded with -1, and the rows whose k-th tied.

    A row's candidates are its items not excluded, sorted by score descending, NaN last,
    equal scores by item id (a stable sort). A row "ties at k" when its k-th candidate
    and its (k+1)-th have the same score (NaN equal to NaN): which items make the
    top k then depends on how ties are broken.

    Examples
    --------
    >>> top_k([[0.5, 0.9, 0.5], [1.0, 2.0, 3.0]], 2)
    ([[1, 0], [2, 1]], [0])
    """
    ids, tied = [], []
    for u, row in enumerate(y_score):
        width = min(k, len(row))
        candidates = [j for j in range(len(row)) if exclude is None or not exclude[u][j]]
        candidates.sort(key=lambda j: (math.isnan(row[j]), -row[j] if not math.isnan(row[j]) else 0.0, j))
        best = candidates[:width]
        ids.append(best + [-1] * (width - len(best)))
        if len(candidates) > width > 0 and _same(row[candidates[width - 1]], row[candidates[width]]):
            tied.append(u)
    return ids, tied


def _same(a: float, b: float) -> bool:
    return a == b or (math.isnan(a) and math.isnan(b))


def _gain(grade, gain):
    return grade if gain == "linear" else 2 ** grade - 1


def _dcg(grades, gain):
    # grades in rank order, position 1 first
    return math.fsum(_gain(g, gain) / math.log2(i + 1) for i, g in enumerate(grades, start=1) if g > 0)


def topk_metric(grades_in_list, all_grades, metric, k=None, *, level=1, gain="linear", max_grade=1,
                p=Fraction(4, 5), graded=False, denom="R", ideal="cut"):
    """One user's metric: ``grades_in_list`` are the grades of the recommended items in rank
    order (0 for an item that is not relevant), ``all_grades`` every grade > 0 of the user.

    ``denom``: AP's and R's divisor, "R", "min" (min(R, k); R without a cutoff) or "hits"
    (AP only: relevant items retrieved within k). ``ideal``: nDCG's ideal ranking cut at k ("cut") or not ("all").
    """
    top = grades_in_list if k is None else grades_in_list[:k]
    n_rel = sum(1 for g in all_grades if g >= level)
    relevant_at = [i for i, g in enumerate(top, start=1) if g >= level]
    tp = len(relevant_at)
    if metric == "RR":
        return Fraction(1, relevant_at[0]) if relevant_at else Fraction(0)
    if metric == "AP":
        total = sum((Fraction(j, i) for j, i in enumerate(relevant_at, start=1)), Fraction(0))
        # Without a cutoff, min(R, k) is R.
        divisor = {"R": n_rel, "min": n_rel if k is None else min(n_rel, k), "hits": tp}[denom]
        return total / divisor if divisor else Fraction(0)
    if metric == "P":
        return Fraction(tp, k)
    if metric == "R":
        divisor = n_rel if denom == "R" or k is None else min(n_rel, k)
        return Fraction(tp, divisor) if divisor else Fraction(0)
    if metric == "Rprec":
        return Fraction(sum(1 for g in grades_in_list[:n_rel] if g >= level), n_rel) if n_rel else Fraction(0)
    if metric == "F1":
        return Fraction(2 * tp, k + n_rel)
    if metric == "Hits":
        return Fraction(1 if tp else 0)
    if metric == "DCG":
        return _dcg(top, gain)
    if metric == "nDCG":
        best = sorted(all_grades, reverse=True)
        best_dcg = _dcg(best if ideal == "all" or k is None else best[:k], gain)
        return _dcg(top, gain) / best_dcg if best_dcg > 0 else 0.0
    if metric == "ERR":
        err, survive = 0.0, 1.0
        for i, g in enumerate(top, start=1):
            r = (2.0 ** g - 1) / 2.0 ** max_grade
            err += survive * r / i
            survive *= 1 - r
        return err
    if metric == "RBP":
        rel = [(g / max_grade if graded else (1 if g >= level else 0)) for g in top]
        return (1 - p) * sum(r * p ** (i - 1) for i, r in enumerate(rel, start=1))
    raise ValueError(f"unknown metric {metric!r}")


def evaluate_topk(relevant: Mapping, recommended: Mapping, metric: str, k: int | None = None, *,
                  level=1, gain="linear", max_grade=None, p=Fraction(4, 5), graded=False, denom="R",
                  ideal="cut", empty="zero") -> dict:
    """``{user: value}`` over the users of either argument (a user missing from one has an empty
    list, or no relevant item). ``max_grade`` defaults to the largest grade of ``relevant``
    (1 if none); ``empty="skip"`` gives NaN to users without a relevant item."""
    if max_grade is None:
        max_grade = max((g for items in relevant.values() for g in items.values()), default=0) or 1
    out = {}
    for user in set(relevant) | set(recommended):
        grades = {item: g for item, g in relevant.get(user, {}).items() if g > 0}
        ranked: Sequence = recommended.get(user, [])
        assert len(set(ranked)) == len(ranked), "a list holds an item twice"
        value = topk_metric([grades.get(item, 0) for item in ranked], list(grades.values()), metric, k,
                            level=level, gain=gain, max_grade=max_grade, p=p, graded=graded, denom=denom,
                            ideal=ideal)
        if empty == "skip" and not any(g >= level for g in grades.values()):
            value = math.nan
        out[user] = value
    return out
