"""agreement() and system_agreement(): how alike two rankings are, per query or of systems."""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._core.names import metric_names, name_key, parse_cutoff, split_name, unknown_name
from .._core.parallel import effective_n_threads, run_over_queries
from .._core.results import Results
from .._core.strings import StringTable
from .._core.validation import as_array, as_real
from ..trec import Run
from ._agreement import agree_range

__all__ = ["agreement", "system_agreement"]

_KINDS = {"tau": 0, "tau_a": 0, "kendall": 0, "tau_b": 1, "tau_ap": 2, "ap_correlation": 2,
          "rbo": 3, "rbo_ext": 3, "rbo_min": 4, "rbo_res": 5, "rbo_max": 6}
_CANONICAL = {0: "tau", 1: "tau_b", 2: "tau_ap", 3: "RBO", 4: "RBO_min", 5: "RBO_res", 6: "RBO_max"}
_EXAMPLES = ["tau", "tau_b", "tau_ap", "RBO(p=0.9)", "RBO_min(p=0.9)", "RBO_res(p=0.9)", "RBO_max(p=0.9)",
             "RBO(p=0.98)@100", "tau_b@100"]


@dataclass(frozen=True)
class AgreementSpec:
    """One parsed measure: its kernel code, RBO's persistence and the depth (0: whole lists)."""

    kind: int
    p: float = 0.9
    depth: int = 0


def parse_agreement(text: str) -> AgreementSpec:
    """``tau``, ``tau_b``, ``tau_ap``, ``RBO(p=0.9)`` (extrapolated), ``RBO_min``, ``RBO_res``,
    ``RBO_max``, each with an optional depth ``@k``."""
    name, args, raw_k = split_name(name_key(text))
    if name not in _KINDS:
        raise unknown_name(text, _EXAMPLES, "agreement metric")
    kind = _KINDS[name]
    depth = parse_cutoff(raw_k, f"agreement measure {text!r}") if raw_k is not None else 0
    p = 0.9
    for part in filter(None, (a.strip() for a in (args or "").split(","))):
        key, sep, value = part.partition("=")
        if kind < 3 or not sep or key.strip() != "p":
            raise ValueError(f"agreement measure {text!r}: unknown parameter {part!r} (RBO takes p=, the "
                             "persistence; the taus take none)")
        try:
            p = float(value)
        except ValueError:
            raise ValueError(f"agreement measure {text!r}: p must be a number in (0, 1), "
                             f"got {value!r}") from None
        if not 0 < p < 1:
            raise ValueError(f"agreement measure {text!r}: p must be in (0, 1), got {value!r}")
    return AgreementSpec(kind, p, depth)


def _measures(names: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    specs = [parse_agreement(name) for name in names]
    return (np.array([s.kind for s in specs], dtype=np.int32), np.array([s.p for s in specs]),
            np.array([s.depth for s in specs], dtype=np.int64))


def _compute(lists: tuple[np.ndarray, ...], names: list[str], n_threads: int | None) -> np.ndarray:
    measures = _measures(names)
    a_ptr, b_ptr = lists[0], lists[4]
    n_queries = a_ptr.shape[0] - 1
    out = np.empty((n_queries, len(names)))
    cost = a_ptr + b_ptr

    def task(q_start: int, q_stop: int, stop: np.ndarray) -> None:
        agree_range(lists, measures, q_start, q_stop, out, stop)

    run_over_queries(task, cost, effective_n_threads(n_threads))
    return out


def _grouped(run: Run, query_map: np.ndarray, doc_map: np.ndarray,
             queries: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The run's rows of ``queries`` (union codes), grouped in that order: (indptr, docs, scores)."""
    c = run._text_columns()
    position = np.full(int(query_map.max(initial=-1)) + 1, -1, dtype=np.int64)
    position[queries] = np.arange(queries.shape[0])
    slot = position[query_map[c.query_codes]]
    keep = slot >= 0
    order = np.argsort(slot[keep], kind="stable")
    counts = np.bincount(slot[keep], minlength=queries.shape[0])
    indptr = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    docs = doc_map[c.doc_codes][keep][order].astype(np.int64)
    return indptr, docs, c.values[keep][order].astype(np.float64)


def _local(a_ptr: np.ndarray, docs_a: np.ndarray, b_ptr: np.ndarray,
           docs_b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each query's document codes renumbered 0, 1, ... within the query (the kernel's join
    indexes an array by them): one sort of all rows by (query, code)."""
    query = np.concatenate([np.repeat(np.arange(a_ptr.shape[0] - 1), np.diff(a_ptr)),
                            np.repeat(np.arange(b_ptr.shape[0] - 1), np.diff(b_ptr))])
    docs = np.concatenate([docs_a, docs_b])
    order = np.lexsort((docs, query))
    q, d = query[order], docs[order]
    new = np.concatenate(([True], (q[1:] != q[:-1]) | (d[1:] != d[:-1]))) if q.size else np.zeros(0, bool)
    group = np.cumsum(new) - 1
    first = np.concatenate(([True], q[1:] != q[:-1])) if q.size else np.zeros(0, bool)
    local = np.empty_like(docs)
    local[order] = group - np.maximum.accumulate(np.where(first, group, 0))
    return local[:docs_a.shape[0]], local[docs_a.shape[0]:]


def _lists(a: tuple[np.ndarray, ...], b: tuple[np.ndarray, ...], keys: np.ndarray) -> tuple[np.ndarray, ...]:
    """The kernel's view of two grouped lists (indptr, global codes, scores), ties from ``keys``."""
    local_a, local_b = _local(a[0], a[1], b[0], b[1])
    return (a[0], local_a, np.ascontiguousarray(a[2]), np.ascontiguousarray(keys[a[1]]),
            b[0], local_b, np.ascontiguousarray(b[2]), np.ascontiguousarray(keys[b[1]]))


def _from_runs(a: Run, b: Run) -> tuple[tuple[np.ndarray, ...], np.ndarray]:
    ca, cb = a._text_columns(), b._text_columns()
    queries, (qa, qb) = StringTable.union([ca.queries, cb.queries])
    docs, (da, db) = StringTable.union([ca.docs, cb.docs])
    shared = np.intersect1d(qa, qb)
    if not shared.size:
        raise ValueError(f"run_a and run_b share no query (run_a has {len(ca.queries)}, "
                         f"run_b {len(cb.queries)})")
    shared = shared[np.argsort(queries.byte_order()[shared], kind="stable")]
    keys = docs.descending_order()
    lists = _lists(_grouped(a, qa, da, shared), _grouped(b, qb, db, shared), keys)
    return lists, queries.to_numpy()[shared]


def _from_arrays(a: ArrayLike, b: ArrayLike) -> tuple[tuple[np.ndarray, ...], np.ndarray]:
    x, y = (as_array(v, name) for v, name in ((a, "run_a"), (b, "run_b")))
    for arr, name in ((x, "run_a"), (y, "run_b")):
        if arr.dtype.kind not in "iuf" or arr.ndim not in (1, 2):
            raise ValueError(f"{name} must be a Run or numbers of shape (n_items,) or (n_queries, n_items), "
                             f"got {arr.dtype} of shape {arr.shape}")
        if np.isnan(arr.astype(np.float64)).any():
            raise ValueError(f"{name} contains NaN")
    if x.shape != y.shape:
        raise ValueError(f"run_a and run_b must have the same shape, got {x.shape} and {y.shape}")
    x2, y2 = np.atleast_2d(x).astype(np.float64), np.atleast_2d(y).astype(np.float64)
    n_queries, n_items = x2.shape
    indptr = np.arange(0, (n_queries + 1) * n_items, n_items, dtype=np.int64)
    items = np.tile(np.arange(n_items, dtype=np.int64), n_queries)    # local codes; ties: lower index first
    return (indptr, items, x2.ravel(), items, indptr, items, y2.ravel(), items), np.arange(n_queries)


def agreement(run_a: Run | ArrayLike, run_b: Run | ArrayLike, metrics: str | Iterable[str] = ("tau_b",), *,
              n_threads: int | None = None) -> Results:
    """How alike two rankings are, per query: Kendall's tau, tau_AP, rank-biased overlap.

    Measures (names are case-insensitive; ``@k`` cuts both rankings at depth k first):

    * ``tau`` (tau-a) and ``tau_b``: Kendall's rank correlation of the two scores of the
      documents both rankings hold (tau-b corrects for ties, as ``scipy.stats.kendalltau``);
      NaN with fewer than 2 shared documents (tau-b: or when one side is all ties);
    * ``tau_ap``: the AP correlation of Yilmaz, Aslam and Robertson (SIGIR 2008) of
      ``run_a``'s order against ``run_b``'s as the reference, on the shared documents,
      top-weighted and asymmetric (swap the arguments for the other direction);
    * ``RBO(p=0.9)``: rank-biased overlap (Webber, Moffat and Zobel, TOIS 2010) of the
      whole rankings, shared documents or not, extrapolated (their eq. 32, lists of
      different lengths); ``RBO_min`` and ``RBO_max`` bound the RBO of any continuation of
      both rankings cut to the shorter one's length (eq. 11; the maximum adds ``RBO_res``,
      eq. 30), ``p`` the persistence (default 0.9).

    Rankings are strict orders: score descending, ties by document id descending (as
    trec_eval orders a run), for arrays by the lower item index; tau and tau-b use the
    scores themselves, ties included.

    Parameters
    ----------
    run_a, run_b : Run or array-like
        Two runs (aligned by query id: the queries both have, in trec_eval's order), or two
        score arrays of one shape, ``(n_items,)`` or ``(n_queries, n_items)``, over the same
        items.
    metrics : str or iterable of str
        The measures' names, as listed above.
    n_threads : int, optional
        Threads over queries; the values do not depend on it.

    Returns
    -------
    Results
        One row per query; ``.mean()`` averages over queries (NaN rows left out).

    Examples
    --------
    >>> import rankwise as rw
    >>> bm25 = rw.Run.from_dict({"q1": {"a": 4.0, "b": 3.0, "c": 2.0, "d": 1.0}})
    >>> dense = rw.Run.from_dict({"q1": {"a": 0.9, "c": 0.8, "b": 0.7, "e": 0.1}})
    >>> res = rw.agreement(bm25, dense, ["tau_b", "tau_ap", "RBO(p=0.9)"])
    >>> {name: round(value, 4) for name, value in res.mean().items()}
    {'tau_b': 0.3333, 'tau_ap': 0.5, 'RBO(p=0.9)': 0.7728}
    """
    names = metric_names(metrics, "agreement measure")
    if isinstance(run_a, Run) and isinstance(run_b, Run):
        lists, query_ids = _from_runs(run_a, run_b)
    elif not isinstance(run_a, Run) and not isinstance(run_b, Run):
        lists, query_ids = _from_arrays(run_a, run_b)
    else:
        raise TypeError("run_a and run_b must both be Runs or both be arrays")
    values = _compute(lists, names, n_threads)
    return Results(names, values, query_ids, "trec" if isinstance(run_a, Run) else "stable")


def _system_scores(scores: Any, name: str) -> dict[str, float]:
    if isinstance(scores, Results):
        raise TypeError(f"{name}: pass a mapping from system to its score (e.g. "
                        f"{{name: res.mean()['MAP']}}), not one system's Results")
    if not isinstance(scores, Mapping):
        raise TypeError(f"{name} must be a mapping from system name to its score, "
                        f"got {type(scores).__name__}")
    out = {}
    for system, value in scores.items():
        out[str(system)] = as_real(value, f"{name}[{system!r}]")
    return out


def system_agreement(a: Mapping[str, float], b: Mapping[str, float],
                     metrics: str | Sequence[str] = ("tau", "tau_b", "tau_ap", "RBO(p=0.9)"),
                     ) -> dict[str, float]:
    """How alike two orderings of the same systems are: by two measures, two collections, two
    pools (Voorhees 2000; Yilmaz et al. 2008's tau_AP weighs the top systems more).

    ``a`` and ``b`` map each system to its score (a mean, say); both must name the same
    systems. The measures are :func:`agreement`'s, the systems as the ranked items (ties of
    equal scores for tau and tau-b; otherwise broken by system name, descending).

    Examples
    --------
    >>> import rankwise as rw
    >>> by_map = {"bm25": 0.21, "dense": 0.35, "hybrid": 0.38, "splade": 0.33}
    >>> by_ndcg = {"bm25": 0.40, "dense": 0.52, "hybrid": 0.55, "splade": 0.56}
    >>> rw.system_agreement(by_map, by_ndcg, ["tau", "tau_ap"])
    {'tau': 0.3333333333333333, 'tau_ap': 0.33333333333333326}
    """
    x, y = _system_scores(a, "a"), _system_scores(b, "b")
    if set(x) != set(y):
        only = sorted(set(x) ^ set(y))
        raise ValueError(f"a and b must score the same systems; only one scores {only[0]!r}")
    if len(x) < 2:
        raise ValueError(f"system_agreement needs at least 2 systems, got {len(x)}")
    names = metric_names(metrics, "agreement measure")
    systems, codes = StringTable.from_strings(list(x))
    ties = systems.descending_order()[codes]
    indptr = np.array([0, len(x)], dtype=np.int64)
    docs = np.arange(len(x), dtype=np.int64)
    lists = (indptr, docs, np.array(list(x.values())), ties, indptr, docs, np.array([y[s] for s in x]), ties)
    return dict(zip(names, _compute(lists, names, 1)[0].tolist(), strict=True))
