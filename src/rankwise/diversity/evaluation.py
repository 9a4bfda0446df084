"""evaluate_diversity(): ndeval's novelty and diversity measures over subtopic qrels.

The conventions are ndeval's (TREC's reference program, version 4.5; transcribed in
:mod:`rankwise.testing.diversity`): a document is relevant to a subtopic when its grade
is at least 1; the intents of a topic are its subtopics with a relevant document, weighted
alike; the normalised measures divide by the greedy ideal ranking's value; the run is
ordered by score descending, then docno descending (ndeval's ``-traditional``, trec_eval's
order); topics in both the qrels and the run are evaluated (ndeval without ``-c``).
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

import numpy as np

from .._core.names import metric_names, name_key, parse_cutoff, split_name, unknown_name
from .._core.parallel import effective_n_threads, run_over_queries
from .._core.results import Results
from .._core.strings import StringTable
from .._core.validation import as_real
from ..trec import Qrels, Run
from ..trec.ids import canonical_ints
from ..trec.io import TrecColumns
from ._diversity import diversity_range

__all__ = ["MEASURES", "evaluate_diversity"]

# ir_measures' names -> the kernel's codes; whether a cutoff is required, allowed, or refused.
_CODES = {"alpha_DCG": 0, "alpha_nDCG": 1, "ERR_IA": 2, "nERR_IA": 3, "NRBP": 4, "nNRBP": 5, "AP_IA": 6,
          "P_IA": 7, "StRecall": 8}
MEASURES = tuple(_CODES)
_REQUIRED, _OPTIONAL, _NONE = "required", "optional", "none"
_CUTOFFS = {"P_IA": _REQUIRED, "NRBP": _NONE, "nNRBP": _NONE, "AP_IA": _NONE}
# Normalised by the ideal ranking.
_IDEAL = {"alpha_nDCG", "nERR_IA", "nNRBP"}
# Lower-cased names, ndeval's spellings among them (alpha-nDCG, ERR-IA, P-IA, strec, MAP-IA).
_ALIASES = {**{m.lower(): m for m in MEASURES}, "strec": "StRecall", "map_ia": "AP_IA",
            "st_recall": "StRecall"}
_NO_DEPTH = 2**63 - 1


class _Spec(NamedTuple):
    measure: str
    k: int          # 0: no cutoff


def _parse(name: str) -> _Spec:
    parts = split_name(name_key(name).replace("-", "_"))
    measure = _ALIASES.get(parts.root)
    if measure is None or parts.args is not None:
        raise unknown_name(name, [f"{m}@10" if _CUTOFFS.get(m) != _NONE else m for m in MEASURES],
                           "diversity measure")
    rule = _CUTOFFS.get(measure, _OPTIONAL)
    if parts.k is None and rule == _REQUIRED:
        raise ValueError(f"{name!r}: {measure} needs a cutoff, as in '{measure}@10'")
    if parts.k is not None and rule == _NONE:
        raise ValueError(f"{name!r}: {measure} takes no cutoff (it runs over the whole ranking)")
    return _Spec(measure, 0 if parts.k is None else parse_cutoff(parts.k, repr(name)))


def _parameter(value: object, name: str, low_open: bool) -> float:
    number = as_real(value, name)
    if not (0 < number <= 1 if low_open else 0 <= number <= 1):
        interval = "(0, 1]" if low_open else "[0, 1]"
        raise ValueError(f"{name} must be in {interval}, got {value!r}")
    return number


def _subtopic_rank(table: StringTable) -> np.ndarray:
    """Each subtopic's place in ndeval's order: numbers ascending first, other ids by their bytes."""
    values, number = canonical_ints(table)
    number &= values >= 0
    return np.lexsort((table.byte_order(), np.where(number, values, 0), ~number))


class _Topics(NamedTuple):
    """The qrels' relevant documents per topic, as the kernel reads them (``diversity_range``)."""

    doc_ptr: np.ndarray
    sub_ptr: np.ndarray
    sub_ids: np.ndarray
    doc_key: np.ndarray
    n_sub: np.ndarray
    doc_query: np.ndarray       # each relevant document's qrels topic code
    doc_code: np.ndarray        # and its docno code


def _topics(c: TrecColumns) -> _Topics:
    assert c.subtopics is not None
    table, sub_codes = c.subtopics
    n_topics = len(c.queries)
    rel = np.flatnonzero(c.values >= 1)
    query, sub, doc = c.query_codes[rel], sub_codes[rel], c.doc_codes[rel]
    # Subtopics with a relevant document, numbered in each topic in ndeval's order.
    place = np.empty(len(table), dtype=np.int64)
    place[_subtopic_rank(table)] = np.arange(len(table))
    pairs, local = np.unique(query * max(len(table), 1) + place[sub], return_inverse=True)
    pair_query = pairs // max(len(table), 1)
    first = np.searchsorted(pair_query, np.arange(n_topics))
    local = local - first[pair_query[local]]
    n_sub = np.bincount(pair_query, minlength=n_topics).astype(np.int64)
    # Relevant documents, grouped by topic, each with its subtopics ascending.
    order = np.lexsort((local, doc, query))
    query, doc, local = query[order], doc[order], local[order]
    starts = np.flatnonzero(np.concatenate(([True], (query[1:] != query[:-1]) | (doc[1:] != doc[:-1]))))
    sub_ptr = np.append(starts, query.shape[0]).astype(np.int64)
    doc_query, doc_code = query[starts], doc[starts]
    doc_ptr = np.searchsorted(doc_query, np.arange(n_topics + 1)).astype(np.int64)
    doc_key = c.docs.byte_order()[doc_code] if len(c.docs) else np.empty(0, dtype=np.int64)
    return _Topics(doc_ptr, sub_ptr, np.append(local, 0).astype(np.int32),
                   np.append(doc_key, 0).astype(np.int64), n_sub, doc_query, doc_code)


class _RunSide(NamedTuple):
    evaluated: np.ndarray       # qrels topic code of each evaluated topic, in the qrels' order
    run_ptr: np.ndarray
    scores: np.ndarray
    keys: np.ndarray
    rows: np.ndarray


def _run_side(qrels: TrecColumns, run: TrecColumns, topics: _Topics) -> _RunSide:
    topic_of = qrels.queries.lookup(run.queries)[run.query_codes]
    present = np.zeros(len(qrels.queries), dtype=bool)
    present[topic_of[topic_of >= 0]] = True
    evaluated = np.flatnonzero(present)
    slot = np.full(len(qrels.queries), -1, dtype=np.int64)
    slot[evaluated] = np.arange(evaluated.shape[0])
    keep = np.flatnonzero(topic_of >= 0)
    order = keep[np.argsort(slot[topic_of[keep]], kind="stable")]
    run_ptr = np.searchsorted(slot[topic_of[order]], np.arange(evaluated.shape[0] + 1)).astype(np.int64)
    # Ties: docno descending, as ndeval -traditional and trec_eval break them.
    keys = run.docs.descending_order()[run.doc_codes[order]]
    # Each run row's relevant document: (topic, docno) looked up among the qrels' sorted pairs.
    judged = qrels.docs.lookup(run.docs)[run.doc_codes[order]]
    width = max(len(qrels.docs), 1)
    wanted = topic_of[order] * width + judged
    known = topics.doc_query * width + topics.doc_code
    rows = np.full(order.shape[0], -1, dtype=np.int64)
    if known.shape[0]:
        at = np.minimum(np.searchsorted(known, wanted), known.shape[0] - 1)
        hit = (judged >= 0) & (known[at] == wanted)
        rows[hit] = at[hit]
    return _RunSide(evaluated, run_ptr, np.ascontiguousarray(run.values[order], dtype=np.float64),
                    keys.astype(np.int64), rows)


def _ideal_depth(specs: list[_Spec]) -> int:
    """The ranks of the ideal ranking the normalised measures need (nNRBP and no cutoff: all)."""
    return max([_NO_DEPTH if s.measure == "nNRBP" or not s.k else s.k for s in specs if s.measure in _IDEAL],
               default=0)


def _check_inputs(qrels: object, run: object) -> None:
    if not isinstance(qrels, Qrels):
        raise TypeError(f"qrels must be subtopic Qrels (Qrels.read(path, subtopics=True)), got "
                        f"{type(qrels).__name__}")
    if not qrels.has_subtopics:
        raise ValueError("qrels has no subtopics: read it with Qrels.read(path, subtopics=True) (lines "
                         "'topic subtopic docno grade') or build it with "
                         "Qrels.from_dict(..., subtopics=True)")
    if not isinstance(run, Run):
        raise TypeError(f"run must be a Run (Run.read, Run.from_dict, ...), got {type(run).__name__}")


def evaluate_diversity(qrels: Qrels, run: Run, metrics: str | Iterable[str], *, alpha: float = 0.5,
                       beta: float = 0.5, n_threads: int | None = None) -> Results:
    """Novelty and diversity measures of a run over subtopic qrels, as TREC's ``ndeval`` computes them.

    Parameters
    ----------
    qrels : Qrels
        Subtopic qrels: :meth:`Qrels.read` with ``subtopics=True`` (lines ``topic subtopic
        docno grade``, the TREC Web track's diversity qrels), or :meth:`Qrels.from_dict`
        with ``subtopics=True``.
    run : Run
        The ranking: ordered by score descending, ties by docno descending (the rank
        column is not read).
    metrics : str or iterable of str
        ir_measures' names: ``alpha_nDCG@k``, ``alpha_DCG@k``, ``ERR_IA@k``, ``nERR_IA@k``,
        ``P_IA@k``, ``StRecall@k``, ``NRBP``, ``nNRBP``, ``AP_IA``; ndeval's spellings too
        (``alpha-nDCG@20``, ``ERR-IA@20``, ``P-IA@10``, ``strec@10``, ``MAP-IA``). The cutoff
        is optional except for P_IA (none: the whole run).
    alpha : float
        Redundancy intolerance, in [0, 1]: a subtopic's gain is ``(1 - alpha)`` to the
        number of documents above that covered it (ndeval's default 0.5).
    beta : float
        NRBP's patience, in [0, 1] (default 0.5).
    n_threads : int or None
        Threads over topics (None: all CPUs); the values do not depend on it.

    Returns
    -------
    Results
        One row per topic in both the qrels and the run (in the qrels' order), one column per
        measure. A topic with no relevant document scores 0 everywhere.

    Raises
    ------
    TypeError
        ``qrels`` is not a Qrels, ``run`` not a Run, or a name or parameter of the wrong type.
    ValueError
        ``qrels`` without subtopics; an unknown measure (with a suggestion), a cutoff missing
        or not allowed; ``alpha`` or ``beta`` outside [0, 1].

    Examples
    --------
    >>> import rankwise as rw
    >>> qrels = rw.Qrels.from_dict({"q1": {"1": {"d1": 1, "d2": 1}, "2": {"d3": 1}}}, subtopics=True)
    >>> run = rw.Run.from_dict({"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}})
    >>> res = rw.evaluate_diversity(qrels, run, ["alpha_nDCG@3", "P_IA@2", "StRecall@2"])
    >>> {name: round(value, 4) for name, value in res.mean().items()}
    {'alpha_nDCG@3': 0.9652, 'P_IA@2': 0.5, 'StRecall@2': 0.5}
    """
    _check_inputs(qrels, run)
    names = metric_names(metrics, "diversity measure")
    specs = [_parse(name) for name in names]
    a, b = _parameter(alpha, "alpha", False), _parameter(beta, "beta", False)
    threads = effective_n_threads(n_threads)
    q_columns, r_columns = qrels._columns, run._text_columns()
    assert isinstance(q_columns, TrecColumns)
    topics = _topics(q_columns)
    side = _run_side(q_columns, r_columns, topics)
    n = side.evaluated.shape[0]
    values = np.zeros((n, len(specs)))
    if n:
        kernel_topics = (topics.doc_ptr[side.evaluated], topics.doc_ptr[side.evaluated + 1], topics.sub_ptr,
                         topics.sub_ids, topics.doc_key, topics.n_sub[side.evaluated])
        kernel_specs = (np.array([_CODES[s.measure] for s in specs], dtype=np.int32),
                        np.array([s.k for s in specs], dtype=np.int64), _ideal_depth(specs))
        kernel_run = (side.run_ptr, side.scores, side.keys, side.rows)

        def task(q_start: int, q_stop: int, stop: np.ndarray) -> None:
            diversity_range(kernel_topics, kernel_run, kernel_specs, a, b, q_start, q_stop, values, stop)

        run_over_queries(task, side.run_ptr, threads)
    return Results(names, values, q_columns.queries.to_numpy()[side.evaluated], "trec",
                   key=lambda name: _parse(name))

