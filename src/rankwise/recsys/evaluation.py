"""evaluate_topk(): list metrics of top-k recommendation lists against held-out items."""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from .._core.names import metric_names
from .._core.parallel import effective_n_threads, run_over_queries
from .._core.results import Results
from .._core.sparse import Csr, is_sparse
from .._core.validation import check_choice, check_level, check_max_grade
from ..lists.conventions import get_convention
from ..lists.evaluation import (
    MAX_EXPONENTIAL_LABEL,
    apply_empty,
    apply_log_base,
    check_log_base,
    dcg_gains,
    gains_bounded,
    make_results,
    unique_specs,
)
from ..lists.names import MetricSpec, parse_metric
from ._topk import evaluate_range
from .layouts import (
    Lists,
    align,
    as_relevant,
    check_n_items,
    code_items,
    list_error,
    raise_first,
    recommended_layout,
)

__all__ = ["evaluate_topk"]

# A catalog beyond this many items per id given (and 2**20) has its ids renumbered.
_IDS_PER_ENTRY = 16
# What the kernel reports for an id out of range (_topk.pyx's BAD_ID).
_BAD_ID = 1


def _check_gains(specs: Sequence[MetricSpec], relevant: Csr, max_label: float) -> None:
    """Refuse grades whose DCG (or mean DCG) could overflow float64: inf or NaN otherwise."""
    size = max(relevant.indices.size, 1)
    for gain in dcg_gains(specs):
        if gain == "exponential" and max_label > MAX_EXPONENTIAL_LABEL:
            raise ValueError(f"relevant has grades up to {max_label:g}; gain='exponential' (2**grade - 1) "
                             f"overflows above {MAX_EXPONENTIAL_LABEL}")
        if not gains_bounded(gain, max_label, size):
            raise ValueError(f"relevant has grades up to {max_label:g}: with gain={gain!r} their gains "
                             "could sum beyond the largest float64 (1.8e308); rescale the grades")


def _catalog(lists: Lists, relevant: Csr, n_items: int | None, from_matrix: bool) -> int:
    """The number of items: the relevant matrix's columns, ``n_items``, or up to the largest id."""
    if from_matrix or n_items is not None:
        return relevant.shape[1]
    largest = int(lists.items.max()) if lists.items.size else -1
    return max(relevant.shape[1], largest + 1, 1)


def _kernel_ids(lists: Lists, relevant: Csr, width: int) -> tuple[np.ndarray, np.ndarray, int]:
    """The item ids the kernel reads (of the lists, of the relevant items) and their bound.

    The kernel keeps 2 bytes per item of the catalog and thread: a catalog far larger than
    the ids given (a large ``n_items``, or sparse ids) has them renumbered 0.. in order,
    after a check of their range here.
    """
    if width <= _IDS_PER_ENTRY * (lists.items.size + relevant.indices.size) + (1 << 20):
        return lists.items, relevant.indices, width
    items = lists.items
    bad = np.flatnonzero((items < -1) | (items >= width))
    if bad.size:
        row = int(np.searchsorted(lists.indptr, bad[0], side="right")) - 1
        error = np.array([row, bad[0] - lists.indptr[row], _BAD_ID, -1])
        raise list_error(error, lists, width, "recommended")
    listed = items >= 0
    ids = np.unique(np.concatenate([items[listed], relevant.indices]))
    renumbered = np.where(listed, np.searchsorted(ids, items), -1)
    return renumbered, np.searchsorted(ids, relevant.indices), max(int(ids.size), 1)


def _binary(relevant: Csr, level: float) -> Csr:
    """Grades >= level as 1, the others dropped (a convention's ``binary``)."""
    assert relevant.data is not None
    kept = relevant.data >= level
    rows = np.repeat(np.arange(relevant.shape[0]), np.diff(relevant.indptr))
    indptr = np.zeros_like(relevant.indptr)
    np.cumsum(np.bincount(rows[kept], minlength=relevant.shape[0]), out=indptr[1:])
    return Csr(indptr, relevant.indices[kept], np.ones(int(kept.sum())), relevant.shape)


def _spec_arrays(unique: Sequence[MetricSpec]) -> tuple[np.ndarray, ...]:
    kinds = np.array([s.kind for s in unique], dtype=np.int32)
    cutoffs = np.array([s.k or 0 for s in unique], dtype=np.int64)
    flags = np.array([s.gain == "exponential" or s.graded for s in unique], dtype=np.uint8)
    params = np.array([s.p for s in unique], dtype=np.float64)
    variants = np.array([s.variant for s in unique], dtype=np.uint8)
    return kinds, cutoffs, flags, params, variants


def _run(lists: Lists, relevant: Csr, unique: Sequence[MetricSpec], options: dict[str, Any],
         threads: int, shown: Lists) -> tuple[np.ndarray, np.ndarray]:
    """Every metric of ``unique`` for every user, and each user's R; bad lists raise, naming
    their items as ``shown`` holds them (the caller's labels, where items were coded)."""
    n = lists.n_users
    values = np.empty((n, len(unique)), dtype=np.float64)
    n_relevant = np.zeros(n, dtype=np.int64)
    output = (values, n_relevant, np.zeros(n, dtype=np.int64))
    items, rel_indices, bound = _kernel_ids(lists, relevant, relevant.shape[1])
    rel = (relevant.indptr, rel_indices, relevant.data)
    spec = _spec_arrays(unique)
    options = {**options, "n_items": bound}
    errors: list[np.ndarray] = []

    def task(start: int, stop_at: int, stop: np.ndarray) -> None:
        error = np.zeros(4, dtype=np.int64)
        if evaluate_range(items, lists.indptr, rel, spec, options, start, stop_at, output, error, stop):
            errors.append(error)

    run_over_queries(task, lists.indptr, threads)
    raise_first(errors, shown, relevant.shape[1], "recommended")
    return values, n_relevant


def evaluate_topk(relevant: Any, recommended: Any, metrics: str | Iterable[str], *,
                  convention: str | None = None,
                  relevance_level: float = 1, gain: str = "linear", max_grade: float | None = None,
                  empty: str | None = None, n_items: int | None = None,
                  n_threads: int | None = None, log_base: float = 2) -> Results:
    """List metrics of top-k recommendations against each user's relevant (held-out) items.

    Each user's list is taken in the order given (position 1 first): no scores, no ties.
    The metrics see every relevant item of the user, retrieved or not: R (for AP, R@k,
    Rprec, F1) counts them all, and nDCG's ideal ranking holds all of their grades (cut
    at k). The definitions are trec_eval's, as in :func:`rankwise.evaluate`: AP divides by
    R, P@k by k even when a list is shorter than k.

    Parameters
    ----------
    relevant : scipy.sparse matrix, array, list of arrays, dict or DataFrame
        The relevant items of each user, with their grades (values > 0; explicit zeros
        are not relevant): a users x items scipy.sparse matrix or NumPy array; a list of
        1-D arrays of item ids (grade 1), one per user; a dict user -> item ids, or
        user -> {item: grade}; a pandas DataFrame with columns (user, item[, grade]).
        Dicts and DataFrames may name items by strings, if ``recommended`` does too.
    recommended : array, list of arrays or DataFrame
        Item ids in rank order: an integer (users, K) array (-1 pads a short list at its
        end; int32 and int64 are read without a copy); a list of 1-D arrays; a pandas
        DataFrame with columns (user, item, rank) (ranks 1..n per user) or (user, item,
        score) (higher first; two equal scores of one user are an error, since their
        order is not defined). An item twice in a list, or an id out of range, is an
        error.
    metrics : str or iterable of str
        As in :func:`rankwise.evaluate`: ``"nDCG@10"``, ``"R@20"``, ``"MAP"``, ``"P@10"``,
        ``"MRR"``, ``"Hits@10"``, ``"ERR@10"``, ``"RBP(p=0.8)"``, ``"F1@10"``, ``"Rprec"``,
        ``"DCG@10"``. The definitions where libraries differ are options of the name:
        ``"AP(denom=min)@10"`` and ``"R(denom=min)@20"`` divide by min(R, k),
        ``"AP(denom=hits)@10"`` by the relevant items within k, and ``"nDCG(ideal=all)@10"``
        takes the ideal DCG of all of the user's relevant items, not of the best k.
    convention : {"trec", "recbole", "implicit", "torchmetrics", "recommenders", "pyg", "spark"}, optional
        Define the metrics as that library does (``docs/conventions.md``), as in
        :func:`rankwise.evaluate`: AP's and recall's divisor and nDCG's ideal where the
        metric name leaves them out, binary grades (grade >= ``relevance_level`` is 1,
        else not relevant) for all but trec and torchmetrics, the default of ``empty``,
        implicit's P@k (hits / min(k, R), its mean weighted by min(k, R)), and users
        absent from ``recommended``: an empty list, or left out (torchmetrics,
        recommenders). None: trec_eval's definitions.
    relevance_level : float, default 1
        Grades ``>= relevance_level`` count as relevant for the binary metrics; DCG,
        nDCG and ERR use the grades themselves.
    gain : {"linear", "exponential"}
        DCG/nDCG gain: the grade, or ``2**grade - 1``.
    max_grade : float, optional
        ERR's and graded RBP's g_max; default the largest grade in ``relevant``.
    empty : {"zero", "skip", "error"}, optional
        Users without a relevant item: value 0 and counted, NaN and left out of means, or
        an error. Default ``"zero"``, or the convention's.
    n_items : int, optional
        The number of items (ids 0..n_items-1); default the columns of a ``relevant``
        matrix, else the largest id + 1.
    n_threads : int, optional
        Threads over users, as in :func:`rankwise.evaluate`; results do not depend on it.
    log_base : float, default 2
        Base of DCG's logarithm, as in :func:`rankwise.evaluate` (nDCG does not depend on it).

    Returns
    -------
    Results
        One row per user: row positions for arrays, lists and matrices; the sorted user
        ids when either argument is a dict or DataFrame (users missing from one argument
        count as having an empty list, or no relevant item).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp, rankwise as rw
    >>> scores = np.array([[0.9, 0.1, 0.8, 0.3], [0.2, 0.7, 0.1, 0.6]])   # users x items
    >>> train = sp.csr_array(np.array([[1, 0, 0, 0], [0, 0, 0, 0]]))     # seen in training
    >>> recommended = rw.top_k(scores, 2, exclude=train)                 # each user's best 2
    >>> recommended
    array([[2, 3],
           [1, 3]])
    >>> held_out = sp.csr_array(np.array([[0, 0, 1, 1], [1, 0, 0, 0]]))
    >>> res = rw.evaluate_topk(held_out, recommended, ["P@2", "R@2", "nDCG@2"])
    >>> res["R@2"]                        # user 1's relevant item 0 was not recommended
    array([1., 0.])
    >>> res.mean()
    {'P@2': 0.5, 'R@2': 0.5, 'nDCG@2': 0.5}
    """
    names = metric_names(metrics)
    asked = [parse_metric(name) for name in names]
    level = check_level(relevance_level)
    check_choice(gain, "gain", ("linear", "exponential"))
    base = check_log_base(log_base)
    conv = None if convention is None else get_convention(convention)
    specs = asked if conv is None else [conv.apply(spec) for spec in asked]
    if empty is not None:
        check_choice(empty, "empty", ("zero", "skip", "error"))
    empty = empty or (conv.empty if conv is not None else "zero")
    n_items = check_n_items(n_items)
    threads = effective_n_threads(n_threads)
    lists = recommended_layout(recommended, "recommended")
    csr, relevant_ids, labels = as_relevant(relevant, "relevant", n_items=n_items)
    coded, csr = code_items(lists, csr, labels)
    width = _catalog(coded, csr, n_items, isinstance(relevant, np.ndarray) or is_sparse(relevant))
    if conv is not None and conv.binary:
        csr, level = _binary(csr, level), 1.0
    drop_absent = conv is not None and conv.absent == "skip"
    coded, csr, user_ids = align(coded, csr, relevant_ids, drop_absent=drop_absent)
    shown = replace(coded, items=lists.items)
    assert csr.data is not None
    max_label = float(csr.data.max()) if csr.data.size else 0.0
    if max_grade is not None and check_max_grade(max_grade, 0.0) < max_label:
        raise ValueError(f"max_grade={max_grade!r} is below the largest grade in relevant ({max_label:g})")
    grade = check_max_grade(max_grade, max_label)
    specs, unique, columns = unique_specs(specs, gain)
    _check_gains(specs, csr, max_label)
    max_relevant = int(np.diff(csr.indptr).max()) if coded.n_users else 0
    options = {"level": level, "max_grade": grade, "max_relevant": max_relevant}
    csr = replace(csr, shape=(csr.shape[0], width))
    values, n_relevant = _run(coded, csr, unique, options, threads, shown)
    apply_log_base(values, unique, base, "relevant")
    apply_empty(values, n_relevant, user_ids, empty, relevance_level)
    return make_results(names, values, columns, user_ids, "stable", gain, n_relevant, convention=conv,
                        named=asked)
