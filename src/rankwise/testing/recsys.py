"""Brute-force references for the recommender-system functions (test oracle).

Plain loops over Python lists, written to be checked by eye; nothing of rankwise is
imported. top_k: scores are Python floats; NaN ranks below every number (``nan="last"``).

Beyond-accuracy metrics: ``lists`` are the users' recommended lists (item ids, rank order,
already cut at k, no padding); ``train`` is a dense users x items list of lists of
numbers (non-zero = an interaction); ``features`` a list of item feature rows. Means over
users leave out users whose list is empty.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

__all__ = ["aplt", "arp", "catalog_coverage", "epc", "exposure_entropy", "gini_index", "intra_list_diversity",
           "item_popularity", "long_tail_items", "novelty", "personalization", "top_k"]


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


Lists = Sequence[Sequence[int]]
Matrix = Sequence[Sequence[float]]


def _exposure(lists: Lists, n_items: int) -> list[int]:
    counts = [0] * n_items
    for row in lists:
        for item in row:
            counts[item] += 1
    return counts


def _mean_over_users(lists: Lists, value_of_item) -> float:
    per_user = [sum(value_of_item(i) for i in row) / len(row) for row in lists if row]
    return math.fsum(per_user) / len(per_user) if per_user else math.nan


def item_popularity(train: Matrix, how: str = "users") -> list[float]:
    """Per item: the number of users with a non-zero entry ("users"), or the sum of its entries."""
    n_items = len(train[0]) if train else 0
    if how == "users":
        return [float(sum(1 for row in train if row[i] != 0)) for i in range(n_items)]
    return [math.fsum(row[i] for row in train) for i in range(n_items)]


def catalog_coverage(lists: Lists, n_items: int) -> float:
    """Distinct recommended items / n_items."""
    return len({item for row in lists for item in row}) / n_items


def gini_index(lists: Lists, n_items: int) -> float:
    """Gini index of the exposure counts of all items, as the mean absolute difference:
    sum over all ordered pairs of items |c_i - c_j| / (2 n^2 mean c)."""
    counts = _exposure(lists, n_items)
    total = sum(counts)
    if total == 0:
        return math.nan
    spread = sum(abs(a - b) for a in counts for b in counts)
    return float(Fraction(spread, 2 * n_items * total))


def exposure_entropy(lists: Lists) -> float:
    """-sum p ln p of the share p of the recommendations each item gets (natural log)."""
    items = [item for row in lists for item in row]
    if not items:
        return math.nan
    return -math.fsum(items.count(i) / len(items) * math.log(items.count(i) / len(items)) for i in set(items))


def novelty(lists: Lists, train: Matrix) -> float:
    """Mean over users of the mean -log2(users who saw the item / users of train)."""
    seen = item_popularity(train)
    return _mean_over_users(lists, lambda i: -math.log2(seen[i] / len(train)))


def _discount(rank: int, discount: str) -> float:
    """disc(k) of the k-th item (k from 1)."""
    if discount == "exp":
        return 0.85 ** (rank - 1)
    if discount == "log":
        return 1 / math.log2(rank + 1)
    return 1.0


def epc(lists: Lists, train: Matrix, discount: str = "exp") -> float:
    """Mean over users of sum_k disc(k) (1 - seen(i_k) / users) / sum_k disc(k)."""
    seen = item_popularity(train)
    values = []
    for row in lists:
        if row:
            weights = [_discount(k, discount) for k in range(1, len(row) + 1)]
            gained = math.fsum(w * (1 - seen[i] / len(train)) for w, i in zip(weights, row, strict=True))
            values.append(gained / math.fsum(weights))
    return math.fsum(values) / len(values) if values else math.nan


def arp(lists: Lists, train: Matrix, how: str = "users") -> float:
    """Mean over users of the mean popularity of the listed items."""
    pop = item_popularity(train, how)
    return _mean_over_users(lists, lambda i: pop[i])


def long_tail_items(train: Matrix, share: float, how: str = "users") -> set[int]:
    """Every item outside the short head: the most popular items (ties: lower id first), taken
    one by one until the popularity they hold reaches (1 - share) of the total."""
    pop = item_popularity(train, how)
    order = sorted(range(len(pop)), key=lambda i: (-pop[i], i))
    left = (1 - share) * math.fsum(pop)
    head = set()
    held = 0.0
    for i in order:
        head.add(i)
        held += pop[i]
        if held >= left:
            break
    return set(range(len(pop))) - head


def aplt(lists: Lists, tail: set[int]) -> float:
    """Mean over users of the share of the list in the long tail."""
    return _mean_over_users(lists, lambda i: 1.0 if i in tail else 0.0)


def personalization(lists: Lists) -> float:
    """1 - the mean over all pairs of non-empty lists of |A & B| / sqrt(|A| |B|)."""
    sets = [set(row) for row in lists if row]
    cosines = [len(a & b) / math.sqrt(len(a) * len(b))
               for u, a in enumerate(sets) for b in sets[u + 1:]]
    return 1 - math.fsum(cosines) / len(cosines) if cosines else math.nan


def _cosine(x: Sequence[float], y: Sequence[float]) -> float:
    dot = math.fsum(a * b for a, b in zip(x, y, strict=True))
    return dot / (math.sqrt(math.fsum(a * a for a in x)) * math.sqrt(math.fsum(b * b for b in y)))


def intra_list_diversity(lists: Lists, features: Matrix) -> float:
    """Mean over lists of two or more items of the mean 1 - cosine over the list's pairs of items."""
    values = []
    for row in lists:
        if len(row) >= 2:
            distances = [1 - _cosine(features[a], features[b]) for j, a in enumerate(row) for b in row[j + 1:]]
            values.append(math.fsum(distances) / len(distances))
    return math.fsum(values) / len(values) if values else math.nan
