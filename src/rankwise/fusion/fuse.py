"""fuse() and fuse_scores(): rank fusion of several runs into one, as ranx defines it."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._core.names import name_key, unknown_name
from .._core.parallel import effective_n_threads, run_over_queries
from .._core.strings import StringTable
from .._core.validation import as_array, as_real, check_weights
from ..trec import Run
from ..trec.io import TrecColumns
from ._fuse import fuse_range

__all__ = ["METHODS", "NORMS", "fuse", "fuse_scores"]

# Names (ranx's among them) -> the kernel's method codes.
_METHOD_CODES = {"sum": 0, "mnz": 1, "max": 2, "min": 3, "med": 4, "rrf": 5}
_METHOD_ALIASES = {
    "rrf": "rrf", "sum": "sum", "combsum": "sum", "comb_sum": "sum", "wsum": "sum", "mnz": "mnz",
    "combmnz": "mnz", "comb_mnz": "mnz", "wmnz": "mnz", "max": "max", "combmax": "max", "comb_max": "max",
    "min": "min", "combmin": "min", "comb_min": "min", "med": "med", "combmed": "med", "comb_med": "med",
}
METHODS = tuple(_METHOD_CODES)
_NORM_CODES = {None: 0, "none": 0, "min-max": 1, "z-score": 2, "sum": 3, "max": 4}
_NORM_ALIASES = {"none": "none", "min-max": "min-max", "minmax": "min-max", "min_max": "min-max",
                 "z-score": "z-score", "zscore": "z-score", "zmuv": "z-score", "sum": "sum", "max": "max"}
NORMS = ("none", "min-max", "z-score", "sum", "max")
# Methods whose value is one run's: a weight cannot scale it.
_UNWEIGHTED = {"max", "min", "med"}


def _method(method: object) -> str:
    if not isinstance(method, str):
        raise TypeError(f"method must be a str, one of {', '.join(map(repr, METHODS))}, got {method!r}")
    key = name_key(method).replace("-", "_")
    if key not in _METHOD_ALIASES:
        raise unknown_name(method, list(_METHOD_ALIASES), "fusion method")
    return _METHOD_ALIASES[key]


def _norm(norm: object) -> str:
    if norm is None:
        return "none"
    if not isinstance(norm, str):
        raise TypeError(f"norm must be None or a str, one of {', '.join(map(repr, NORMS))}, got {norm!r}")
    key = name_key(norm)
    if key not in _NORM_ALIASES:
        raise unknown_name(norm, list(_NORM_ALIASES), "norm (normalisation)")
    return _NORM_ALIASES[key]


def _options(method: object, norm: object, weights: Any, names: Sequence[str], k: object,
             depth: object) -> tuple[str, str, np.ndarray, float, int]:
    """Every option checked, in the order of the signature: the kernel's view of them."""
    method, norm = _method(method), _norm(norm)
    n_runs = len(names)
    if weights is not None and method in _UNWEIGHTED:
        raise ValueError(f"weights do not apply to method={method!r} (one run's score is taken, not a "
                         "sum); pass weights=None, or method='sum', 'mnz' or 'rrf'")
    if isinstance(weights, Mapping):
        unknown = set(weights) - set(names)
        if unknown:
            raise ValueError(f"weights names run {sorted(unknown, key=str)[0]!r}, which is not among the "
                             f"runs ({', '.join(map(repr, names))})")
        weights = [weights.get(name, 1.0) for name in names]
    w = np.ones(n_runs)
    if weights is not None:
        check_weights(weights, n_runs, "weights")   # its errors; the fused values take the weights as given
        w = np.asarray(weights, dtype=np.float64)
    rrf_k = as_real(k, "k")
    if not 0 <= rrf_k < np.inf:
        raise ValueError(f"k must be a finite number >= 0 (RRF's constant, 60 by default), got {k!r}")
    kept = 0
    if depth is not None:
        if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth < 1:
            raise ValueError(f"depth must be None or an integer >= 1 (documents kept from each run), "
                             f"got {depth!r}")
        kept = int(depth)
    return method, norm, w, rrf_k, kept


def _runs(runs: object) -> tuple[list[Run], list[str]]:
    if isinstance(runs, Mapping):
        names, items = [str(name) for name in runs], list(runs.values())
    elif isinstance(runs, Sequence) and not isinstance(runs, (str, bytes)):
        items = list(runs)
        names = [f"run{i}" for i in range(len(items))]
    else:
        raise TypeError(f"runs must be a list or a dict of rankwise.Run, got {type(runs).__name__}")
    for name, run in zip(names, items, strict=True):
        if not isinstance(run, Run):
            raise TypeError(f"runs[{name!r}] is a {type(run).__name__}, not a rankwise.Run (Run.read, "
                            "Run.from_dict, ...)")
    if len(items) < 2:
        raise ValueError(f"fusion needs at least 2 runs, got {len(items)}")
    return items, names


def _check_scores(scores: np.ndarray, name: str, norm: str) -> None:
    bad = np.isnan(scores) if norm == "none" else ~np.isfinite(scores)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        what = "NaN" if norm == "none" else "infinite or NaN, which a normalisation cannot scale"
        raise ValueError(f"{name} has a score that is {what}: {scores[row]!r} (row {row})")


Layout = tuple[np.ndarray, np.ndarray, np.ndarray]


def _layout(query: np.ndarray, run: np.ndarray, n_queries: int) -> tuple[np.ndarray, Layout]:
    """Rows sorted by query then run: the order, and the (q_seg, seg_ptr, seg_run) layout."""
    order = np.lexsort((run, query))
    q, r = query[order], run[order]
    new = np.flatnonzero(np.concatenate(([q.size > 0], (q[1:] != q[:-1]) | (r[1:] != r[:-1]))))
    seg_ptr = np.append(new, q.shape[0]).astype(np.int64)
    seg_query = q[new]
    q_seg = np.searchsorted(seg_query, np.arange(n_queries + 1)).astype(np.int64)
    return order, (q_seg, seg_ptr, np.ascontiguousarray(r[new], dtype=np.int32))


def _run_kernel(layout: Layout, docs: np.ndarray, scores: np.ndarray, options: tuple,
                n_threads: int | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    q_seg, seg_ptr, _ = layout
    n_queries = q_seg.shape[0] - 1
    out = (np.empty(docs.shape[0], dtype=np.int64), np.empty(docs.shape[0]),
           np.zeros(n_queries, dtype=np.int64))
    cost = seg_ptr[q_seg]

    def task(q_start: int, q_stop: int, stop: np.ndarray) -> None:
        fuse_range(layout, docs, scores, options, q_start, q_stop, out, stop)

    run_over_queries(task, cost, effective_n_threads(n_threads))
    return out


def _written(layout: Layout, n_out: np.ndarray) -> np.ndarray:
    """The output rows the kernel wrote: query q's ``n_out[q]`` from its first row."""
    q_seg, seg_ptr = layout[0], layout[1]
    starts = seg_ptr[q_seg[:-1]]
    before = np.concatenate(([0], np.cumsum(n_out)[:-1]))
    return np.repeat(starts - before, n_out) + np.arange(int(n_out.sum()))


def fuse(runs: Sequence[Run] | Mapping[str, Run], method: str = "rrf", *, norm: str | None = None,
         weights: ArrayLike | Mapping[str, float] | None = None, k: float = 60, depth: int | None = None,
         name: str | None = None, n_threads: int | None = None) -> Run:
    """Fuse several runs into one: RRF, CombSUM, CombMNZ, CombMAX, CombMIN, CombMED, weighted.

    For each query (of any run), each run's documents are ranked (score descending, then
    document id descending, as trec_eval ranks), cut at ``depth``, normalised by ``norm``,
    and every document's values are combined by ``method``:

    * ``"rrf"``: sum over the runs retrieving it of w / (k + rank) (Cormack et al. 2009);
    * ``"sum"`` (CombSUM; ranx's ``wsum`` with weights): sum of w x score;
    * ``"mnz"`` (CombMNZ; ranx's ``wmnz`` with weights): the sum of its scores times the sum of
      the weights of the runs retrieving it (their number, unweighted);
    * ``"max"``, ``"min"``, ``"med"``: the largest, smallest, median score among the runs
      retrieving it.

    A run that does not retrieve a document adds nothing (it is not a score of 0 for max,
    min and med). ``norm`` rescales each run's scores per query first: ``"min-max"``
    (s - min) / (max - min), ``"z-score"`` (s - mean) / sd (population), ``"sum"``
    (s - min) / (sum - n min), ``"max"`` s / max, each denominator at least 1e-9 as in ranx (a
    query whose scores are all equal gets 0s under min-max).

    Parameters
    ----------
    runs : list or dict of Run
        Two or more runs; a dict names them (its keys name ``weights``' entries too).
    method : str
        ``"rrf"`` (default), ``"sum"``, ``"mnz"``, ``"max"``, ``"min"``, ``"med"``; ranx's
        names (``"comb_sum"``, ``"wsum"``, ``"comb_mnz"``, ``"wmnz"``, ...) are accepted.
    norm : {None, "min-max", "z-score", "sum", "max"}
        Per query and run; ranx's ``"zmuv"`` is ``"z-score"``. RRF uses ranks only.
    weights : array-like or dict, optional
        One finite weight >= 0 per run, or a dict by run name (missing names weigh 1).
        Not for max, min and med.
    k : float, default 60
        RRF's constant.
    depth : int, optional
        Documents kept from the top of each run, per query (default: all).
    name : str, optional
        The fused run's name (default ``"fused"``).
    n_threads : int, optional
        Threads over queries; the result does not depend on it.

    Returns
    -------
    Run
        Every document any run retrieved for a query, with its fused score.

    Examples
    --------
    >>> import rankwise as rw
    >>> bm25 = rw.Run.from_dict({"q1": {"a": 12.0, "b": 9.5, "c": 3.0}})
    >>> dense = rw.Run.from_dict({"q1": {"b": 0.91, "c": 0.85, "d": 0.2}})
    >>> rw.fuse([bm25, dense], "rrf", k=1).to_dict()
    {'q1': {'b': 0.8333333333333333, 'c': 0.5833333333333333, 'a': 0.5, 'd': 0.25}}
    >>> rw.fuse({"bm25": bm25, "dense": dense}, "sum", norm="min-max", weights={"dense": 2}).to_dict()
    {'q1': {'b': 2.7222222222222223, 'c': 1.8309859154929575, 'a': 1.0, 'd': 0.0}}
    """
    items, names = _runs(runs)
    method, norm, w, rrf_k, kept = _options(method, norm, weights, names, k, depth)
    columns = [run._text_columns() for run in items]
    for run_name, c in zip(names, columns, strict=True):
        _check_scores(c.values, f"runs[{run_name!r}]", norm)
    queries, query_maps = StringTable.union([c.queries for c in columns])
    docs, doc_maps = StringTable.union([c.docs for c in columns])
    query = np.concatenate([m[c.query_codes] for m, c in zip(query_maps, columns, strict=True)])
    doc = np.concatenate([m[c.doc_codes] for m, c in zip(doc_maps, columns, strict=True)])
    scores = np.concatenate([c.values for c in columns])
    run = np.repeat(np.arange(len(items)), [c.values.shape[0] for c in columns])
    order, layout = _layout(query, run, len(queries))
    # trec_eval's order among equal scores: document ids descending, byte-wise.
    keys = docs.descending_order()
    options = (_METHOD_CODES[method], _NORM_CODES[norm], rrf_k, kept, w, keys)
    out_doc, out_score, n_out = _run_kernel(layout, np.ascontiguousarray(doc[order]),
                                            np.ascontiguousarray(scores[order]), options, n_threads)
    rows = _written(layout, n_out)
    query_codes = np.repeat(np.arange(len(queries)), n_out)
    fused = TrecColumns(queries, query_codes, docs, out_doc[rows], out_score[rows], run_name=name or "fused")
    return Run(fused, name or "fused")


def fuse_scores(scores: ArrayLike, method: str = "rrf", *, norm: str | None = None,
                weights: ArrayLike | None = None, k: float = 60, depth: int | None = None,
                n_threads: int | None = None) -> np.ndarray:
    """:func:`fuse` over score arrays: ``scores[r, q, i]`` is run r's score of item i for query q.

    NaN marks an item the run did not retrieve. Ties rank the lower item index first. Returns
    the fused scores, shape ``(n_queries, n_items)``, NaN where no run retrieved the item.

    Examples
    --------
    >>> import numpy as np, rankwise as rw
    >>> scores = np.array([[[3.0, 2.0, np.nan]], [[np.nan, 0.9, 0.8]]])   # 2 runs, 1 query, 3 items
    >>> rw.fuse_scores(scores, "rrf", k=1)
    array([[0.5       , 0.83333333, 0.33333333]])
    >>> rw.fuse_scores(scores, "max", norm="min-max")
    array([[1., 1., 0.]])
    """
    array = as_array(scores, "scores")
    if array.ndim != 3 or array.dtype.kind not in "iuf":
        raise ValueError(f"scores must be numbers of shape (n_runs, n_queries, n_items), got {array.dtype} "
                         f"of shape {array.shape}")
    n_runs, n_queries, n_items = array.shape
    names = [f"run{i}" for i in range(n_runs)]
    if n_runs < 2:
        raise ValueError(f"fusion needs at least 2 runs, got {n_runs}")
    method, norm, w, rrf_k, kept = _options(method, norm, weights, names, k, depth)
    values = array.astype(np.float64, copy=False)
    present = ~np.isnan(values)
    run, query, doc = np.nonzero(present)
    flat = values[present]
    if norm != "none":
        _check_scores(flat, "scores", norm)
    order, layout = _layout(query, run, n_queries)
    options = (_METHOD_CODES[method], _NORM_CODES[norm], rrf_k, kept, w, np.arange(n_items, dtype=np.int64))
    out_doc, out_score, n_out = _run_kernel(layout, np.ascontiguousarray(doc[order], dtype=np.int64),
                                            np.ascontiguousarray(flat[order]), options, n_threads)
    fused = np.full((n_queries, n_items), np.nan)
    rows = _written(layout, n_out)
    fused[np.repeat(np.arange(n_queries), n_out), out_doc[rows]] = out_score[rows]
    return fused
