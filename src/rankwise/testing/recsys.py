"""Brute-force references for the recommender-system functions (test oracle).

Plain loops over Python lists and dicts, written to be checked by eye; nothing of rankwise
is imported.

``top_k``: scores are Python floats; NaN ranks below every number (``nan="last"``).

``evaluate_topk``: ``relevant`` is a dict user -> {item: grade}, ``recommended`` a dict
user -> list of item ids in rank order (position 1 first). Every relevant item of a user
counts in R and in nDCG's ideal ranking, whether it was recommended or not.

Beyond-accuracy metrics: ``lists`` are the users' recommended lists (item ids, rank order,
already cut at k, no padding); ``train`` is a dense users x items list of lists of
numbers (non-zero = an interaction); ``features`` a list of item feature rows. Means over
users leave out users whose list is empty.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from fractions import Fraction

__all__ = ["LIBRARIES", "aplt", "arp", "catalog_coverage", "epc", "evaluate_topk", "exposure_entropy",
           "gini_index", "intra_list_diversity", "item_popularity", "library_means", "long_tail_items", "novelty",
           "personalization", "top_k", "topk_metric"]


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


# ---------------------------------------------------------------------------
# Transcriptions of other libraries' ranking metrics (docs/conventions.md)
# ---------------------------------------------------------------------------
# Each follows its library's source line by line, for one user at a time:
# ``ranked`` the user's recommended item ids in rank order (no repeats), ``grades``
# a dict item -> grade (> 0) of the user's held-out items, ``k`` the cutoff. Each
# returns the means that library reports, keyed "P", "R", "AP" and "nDCG" (at k),
# plus the library's other MAP where it has one ("MAP": Spark's meanAveragePrecision,
# Microsoft Recommenders' map).

LIBRARIES = ("recbole", "implicit", "torchmetrics", "recommenders", "pyg", "spark")


def _mean(values):
    return math.fsum(values) / len(values) if values else 0.0


def _recbole(users, k):
    # recbole/evaluator/metrics.py: pos_index[j] = the j-th item is held out; pos_len = R.
    # Users without held-out items never reach the evaluator (FullSortEvalDataLoader).
    out: dict[str, list[float]] = {"P": [], "R": [], "AP": [], "nDCG": []}
    for ranked, grades in users:
        pos_len = len(grades)
        if pos_len == 0:
            continue
        pos = [item in grades for item in ranked[:k]]
        cum, sum_pre, dcg = 0, 0.0, 0.0
        for j, hit in enumerate(pos):
            cum += hit
            if hit:
                sum_pre += cum / (j + 1)         # MAP: cumsum(pre * pos_index)
                dcg += 1.0 / math.log2(j + 2)    # NDCG: binary gains
        idcg = sum(1.0 / math.log2(i + 2) for i in range(min(pos_len, k)))
        out["P"].append(cum / k)
        out["R"].append(cum / pos_len)
        out["AP"].append(sum_pre / min(k, pos_len))   # ranges[lens:] = lens
        out["nDCG"].append(dcg / idcg)
    return {name: _mean(values) for name, values in out.items()}


def _implicit(users, k):
    # implicit/evaluation.pyx ranking_metrics_at_k.
    cg = [1.0 / math.log2(i + 2) for i in range(k)]
    cg_sum = [math.fsum(cg[:i + 1]) for i in range(k)]
    relevant = pr_div = mean_ap = ndcg = total = 0.0
    for ranked, grades in users:
        likes = set(grades)
        if not likes:
            continue  # "if we don't have any test items, skip this user"
        ids = list(ranked[:k]) + [-1] * (k - len(ranked[:k]))
        pr_div += min(k, len(likes))
        ap = hit = 0.0
        idcg = cg_sum[min(k, len(likes)) - 1]
        for i in range(k):
            if ids[i] in likes:
                relevant += 1
                hit += 1
                ap += hit / (i + 1)
                ndcg += cg[i] / idcg
        mean_ap += ap / min(k, len(likes))
        total += 1
    return {"P": relevant / pr_div, "AP": mean_ap / total, "nDCG": ndcg / total}


def _torchmetrics(users, k):
    # functional/retrieval/*.py on each user's full list (every item scored, scores > 0),
    # then RetrievalMetric's mean over users, empty_target_action="neg" (0, counted).
    out: dict[str, list[float]] = {"P": [], "R": [], "AP": [], "nDCG": []}
    for ranked, grades in users:
        target = [grades.get(item, 0) for item in ranked]
        n_rel = sum(1 for g in target if g > 0)
        if n_rel == 0:
            for values in out.values():
                values.append(0.0)
            continue
        top = target[:k]
        hits = [j + 1 for j, g in enumerate(top) if g > 0]
        out["AP"].append(_mean([(n + 1) / pos for n, pos in enumerate(hits)]))
        out["R"].append(len(hits) / n_rel)
        out["P"].append(len(hits) / k)
        dcg = sum(g / math.log2(j + 2) for j, g in enumerate(top))
        ideal = sorted(target, reverse=True)[:k]
        idcg = sum(g / math.log2(j + 2) for j, g in enumerate(ideal))
        out["nDCG"].append(dcg / idcg if idcg else 0.0)
    return {name: _mean(values) for name, values in out.items()}


def _recommenders(users, k):
    # recommenders/evaluation/python_evaluation.py: users common to truth and predictions
    # (a user without held-out items is not in rating_true); ndcg_at_k with
    # score_type="binary", discfun_type="loge".
    common = [(ranked, grades) for ranked, grades in users if grades]
    n_users = len(common)
    p = r = map_k = map_r = 0.0
    ndcg = []
    for ranked, grades in common:
        actual = len(grades)
        hit_ranks = [rank for rank, item in enumerate(ranked[:k], start=1) if item in grades]
        rr = sum((n + 1) / rank for n, rank in enumerate(hit_ranks))
        p += len(hit_ranks) / k
        r += len(hit_ranks) / actual
        map_k += rr / min(actual, k)
        map_r += rr / actual
        dcg = sum(1.0 / math.log(1 + rank) for rank in hit_ranks)
        idcg = sum(1.0 / math.log(1 + irank) for irank in range(1, min(actual, k) + 1))
        ndcg.append(dcg / idcg)
    return {"P": p / n_users, "R": r / n_users, "AP": map_k / n_users, "MAP": map_r / n_users,
            "nDCG": _mean(ndcg)}


def _pyg(users, k):
    # torch_geometric/metrics/link_pred.py: sums over every example, divided by the
    # examples with at least one label (LinkPredMetric._update).
    sums = {"P": 0.0, "R": 0.0, "AP": 0.0, "nDCG": 0.0}
    total = 0
    for ranked, grades in users:
        label_count = len(grades)
        total += label_count > 0
        rel = [item in grades for item in ranked[:k]]
        cum, cum_precision, dcg = 0, 0.0, 0.0
        for j, hit in enumerate(rel):
            cum += hit
            cum_precision += cum / (j + 1) * hit
            dcg += hit / math.log2(j + 2)
        idcg = sum(1.0 / math.log2(i + 2) for i in range(min(label_count, k)))
        sums["P"] += cum / k
        sums["R"] += cum / max(label_count, 1e-7)
        sums["AP"] += cum_precision / min(max(label_count, 1e-7), k)
        sums["nDCG"] += dcg / idcg if idcg else 0.0   # out[out.isnan() | out.isinf()] = 0
    return {name: value / total for name, value in sums.items()}


def _spark_average_precision(pred, lab, k):
    if not lab:
        return 0.0
    cnt, prec_sum = 0, 0.0
    for i in range(min(k, len(pred))):
        if pred[i] in lab:
            cnt += 1
            prec_sum += cnt / (i + 1)
    return prec_sum / min(len(lab), k)


def _spark(users, k):
    # RankingMetrics.scala, binary relevance (no relevance values given); an empty
    # ground truth set gives 0, counted in the mean.
    out: dict[str, list[float]] = {"P": [], "R": [], "AP": [], "MAP": [], "nDCG": []}
    for pred, grades in users:
        lab = set(grades)
        hits = sum(1 for item in pred[:k] if item in lab)
        out["P"].append(hits / k if lab else 0.0)
        out["R"].append(hits / len(lab) if lab else 0.0)
        out["AP"].append(_spark_average_precision(pred, lab, k))
        out["MAP"].append(_spark_average_precision(pred, lab, max(len(pred), len(lab))))
        n = min(max(len(pred), len(lab)), k)
        dcg = max_dcg = 0.0
        for i in range(n):
            gain = 1.0 / math.log(i + 2)
            if i < len(pred) and pred[i] in lab:
                dcg += gain
            if i < len(lab):
                max_dcg += gain
        out["nDCG"].append(dcg / max_dcg if lab and max_dcg else 0.0)
    return {name: _mean(values) for name, values in out.items()}


def library_means(library, users, k):
    """The means ``library`` reports at cutoff ``k`` for ``users``, a list of
    ``(ranked item ids, {item: grade})`` pairs (grades > 0), transcribed from its source.

    Examples
    --------
    >>> library_means("recbole", [([0, 1, 2, 3], {0: 1, 3: 1})], 2)["AP"]
    0.5
    >>> library_means("torchmetrics", [([0, 1, 2, 3], {0: 1, 3: 1})], 2)["AP"]
    1.0
    """
    return {"recbole": _recbole, "implicit": _implicit, "torchmetrics": _torchmetrics,
            "recommenders": _recommenders, "pyg": _pyg, "spark": _spark}[library](users, k)


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
    sum over all ordered pairs of items ``|c_i - c_j| / (2 n^2 mean c)``."""
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
    """1 - the mean over all pairs of non-empty lists of ``|A & B| / sqrt(|A| |B|)``."""
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
