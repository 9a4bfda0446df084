"""Brute-force references for the recommender-system functions (test oracle).

Plain loops over Python lists, written to be checked by eye; nothing of rankwise is
imported. Scores are Python floats; NaN ranks below every number (``nan="last"``).
"""
from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["top_k"]


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
