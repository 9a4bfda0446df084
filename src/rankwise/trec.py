"""TREC files and trec_eval: Qrels, Run, and trec_eval() with trec_eval 10.0's semantics.

Ids are interned once into integer codes (a hash table in C, exact), qrels and run are
joined by code, and the ranking and measures run in nogil kernels over CSR-grouped
queries. Semantics follow trec_eval 10.0: the run's rank column is ignored; documents
are ordered by score descending, ties by document id descending (byte-wise); AP and
recall divide by R, the number of judged relevant documents; nDCG gains are the
relevance values and its ideal ranking uses every judged document (``relevance_level``
does not apply to it, as in trec_eval); queries of the qrels with no relevant document
count as 0; queries only in the run are ignored; without ``complete`` only queries in
both are evaluated (trec_eval 9.x's behaviour; trec_eval 10.0 aborts instead).
"""
from __future__ import annotations

import os

import numpy as np

from ._kernels._trec import TrecMeasure, judge, rank_relevance, trec_measures
from ._parallel import effective_n_threads, run_over_queries
from ._trec_io import StringTable, TrecColumns, read_qrels, read_run, write_qrels, write_run
from ._trec_names import TrecSpec, parse_trec_measures
from ._validation import check_choice, check_level

__all__ = ["Qrels", "Run", "TrecResults", "trec_eval"]

_TIES = ("trec", "expected", "optimistic", "pessimistic", "stable")
# trec_eval's floor for the geometric means (gm_map, gm_bpref).
_MIN_GEO_MEAN = 1e-5
_COUNTS = {"num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret"}
_GEOMETRIC = {"gm_map", "gm_bpref"}
_SUMMARY_ONLY = {"runid", "num_q"} | _GEOMETRIC
# Not means of quantities linear in the ranking: no closed-form expectation over ties.
_NO_EXPECTATION = {"bpref", "gm_bpref", "infAP", "iprec_at_recall", "11pt_avg", "gm_map"}


def _columns_from_pairs(queries, docs, values, what: str) -> TrecColumns:
    query_table, query_codes = StringTable.from_strings(queries)
    doc_table, doc_codes = StringTable.from_strings(docs)
    values = np.ascontiguousarray(values, dtype=np.float64)
    # Scores may be infinite (they order as numbers); relevance must be finite.
    bad = np.isnan(values) if what == "Run" else ~np.isfinite(values)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        kind = "a number" if what == "Run" else "a finite number"
        raise ValueError(f"{what} value for query {queries[i]!r}, document {docs[i]!r} is {values[i]!r}; "
                         f"it must be {kind}")
    return TrecColumns(query_table, query_codes, doc_table, doc_codes, values,
                       np.arange(1, values.shape[0] + 1, dtype=np.int64), None)


def _check_unique_pairs(columns: TrecColumns, what: str) -> None:
    key = columns.query_codes * max(len(columns.docs), 1) + columns.doc_codes
    order = np.argsort(key, kind="stable")
    repeated = np.flatnonzero(key[order][1:] == key[order][:-1])
    if repeated.size:
        first, second = order[repeated[0]], order[repeated[0] + 1]
        raise ValueError(f"{what} has document {columns.docs[int(columns.doc_codes[first])]!r} twice for "
                         f"query {columns.queries[int(columns.query_codes[first])]!r} (rows {first + 1} and "
                         f"{second + 1}); trec_eval rejects duplicates")


def _from_dict(mapping, what: str) -> TrecColumns:
    if not isinstance(mapping, dict):
        raise TypeError(f"{what}.from_dict takes {{query_id: {{doc_id: value}}}}, "
                        f"got {type(mapping).__name__}")
    queries, docs, values = [], [], []
    for query, judged in mapping.items():
        if not isinstance(judged, dict):
            raise TypeError(f"{what}.from_dict: the value for query {query!r} must be a dict "
                            f"{{doc_id: value}}, got {type(judged).__name__}")
        queries.extend([str(query)] * len(judged))
        docs.extend(map(str, judged))
        values.extend(judged.values())
    try:
        numbers = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{what}.from_dict: values must be numbers") from None
    return _columns_from_pairs(queries, docs, numbers, what)


def _from_pandas(frame, columns: dict, what: str) -> TrecColumns:
    missing = [name for name in columns.values() if name not in frame.columns]
    if missing:
        raise ValueError(f"{what}.from_pandas: the DataFrame has no column {missing[0]!r} "
                         f"(columns: {list(frame.columns)})")
    names = list(columns.values())
    parsed = _columns_from_pairs(frame[names[0]].astype(str).tolist(), frame[names[1]].astype(str).tolist(),
                                 frame[names[2]].to_numpy(dtype=np.float64), what)
    _check_unique_pairs(parsed, what)
    return parsed


class _TrecData:
    """Shared behaviour of Qrels and Run: integer-coded rows of (query, document, value)."""

    _value_name = "value"

    def __init__(self, columns: TrecColumns):
        self._columns = columns

    @property
    def query_ids(self) -> np.ndarray:
        """Query ids, in the order first seen."""
        return self._columns.queries.to_numpy()

    @property
    def n_queries(self) -> int:
        return len(self._columns.queries)

    def __len__(self) -> int:
        return self._columns.values.shape[0]

    def to_pandas(self):
        """One row per line: query_id, doc_id and relevance (Qrels) or score (Run)."""
        import pandas as pd

        c = self._columns
        return pd.DataFrame({"query_id": c.queries.to_numpy()[c.query_codes],
                             "doc_id": c.docs.to_numpy()[c.doc_codes],
                             self._value_name: c.values})

    def to_dict(self) -> dict:
        """``{query_id: {doc_id: value}}``."""
        c = self._columns
        queries, docs = c.queries.to_numpy(), c.docs.to_numpy()
        out: dict = {}
        for q, d, v in zip(c.query_codes.tolist(), c.doc_codes.tolist(), c.values.tolist(), strict=True):
            out.setdefault(queries[q], {})[docs[d]] = v
        return out


class Qrels(_TrecData):
    """Relevance judgements: for each query, judged documents and their relevance.

    Build with :meth:`read` (TREC qrels file ``qid iter docno rel``), :meth:`from_dict`
    or :meth:`from_pandas`. Negative relevance marks a document pooled but not judged
    (trec_eval's infAP convention).

    Examples
    --------
    >>> import rankwise as rw
    >>> qrels = rw.Qrels.from_dict({"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 2}})
    >>> len(qrels), qrels.n_queries
    (3, 2)
    """

    _value_name = "relevance"

    @classmethod
    def read(cls, path) -> Qrels:
        """Read a TREC qrels file (``.gz`` is decompressed); errors name the file and line."""
        return cls(read_qrels(path))

    @classmethod
    def from_dict(cls, qrels: dict) -> Qrels:
        """From ``{query_id: {doc_id: relevance}}`` (ids are converted with ``str``)."""
        return cls(_from_dict(qrels, "Qrels"))

    @classmethod
    def from_pandas(cls, frame, query="query_id", doc="doc_id", relevance="relevance") -> Qrels:
        """From a DataFrame with one row per judgement."""
        return cls(_from_pandas(frame, {"query": query, "doc": doc, "relevance": relevance}, "Qrels"))

    def write(self, path) -> None:
        """Write a TREC qrels file (``.gz`` is compressed)."""
        write_qrels(path, self._columns)

    def __repr__(self) -> str:
        return f"Qrels({self.n_queries} queries, {len(self)} judgements)"


class Run(_TrecData):
    """A ranked run: for each query, retrieved documents and their scores.

    Build with :meth:`read` (TREC run file ``qid Q0 docno rank score runid``; the rank
    column is ignored, as trec_eval ignores it), :meth:`from_dict` or
    :meth:`from_pandas`. A document twice in one query is an error.

    Examples
    --------
    >>> import rankwise as rw
    >>> run = rw.Run.from_dict({"q1": {"d1": 0.5, "d2": 0.9}}, name="bm25")
    >>> run
    Run('bm25', 1 queries, 2 documents)
    """

    _value_name = "score"

    def __init__(self, columns: TrecColumns, name: str | None = None):
        super().__init__(columns)
        self.name = name or columns.run_name or "rankwise"
        if np.isnan(columns.values).any():
            i = int(np.flatnonzero(np.isnan(columns.values))[0])
            raise ValueError(f"run has a NaN score (line {columns.lines[i]}); it has no place in a ranking")

    @classmethod
    def read(cls, path, name: str | None = None) -> Run:
        """Read a TREC run file (``.gz`` is decompressed); the name defaults to its runid."""
        return cls(read_run(path), name)

    @classmethod
    def from_dict(cls, run: dict, name: str | None = None) -> Run:
        """From ``{query_id: {doc_id: score}}``."""
        return cls(_from_dict(run, "Run"), name)

    @classmethod
    def from_pandas(cls, frame, query="query_id", doc="doc_id", score="score", name=None) -> Run:
        """From a DataFrame with one row per retrieved document."""
        return cls(_from_pandas(frame, {"query": query, "doc": doc, "score": score}, "Run"), name)

    def write(self, path) -> None:
        """Write a TREC run file; ranks follow the order of the rows."""
        write_run(path, self._columns, self.name)

    def __repr__(self) -> str:
        return f"Run({self.name!r}, {self.n_queries} queries, {len(self)} documents)"


class TrecResults:
    """trec_eval's measures per query, their summary, and trec_eval's text layout.

    Attributes
    ----------
    names : tuple of str
        Measure names as trec_eval prints them (``P_10``, ``iprec_at_recall_0.10``),
        in trec_eval's order.
    query_ids : ndarray of str
        Evaluated queries, in byte order of their ids (trec_eval's order).
    run_name : str
    ties : str

    Examples
    --------
    >>> import rankwise as rw
    >>> qrels = rw.Qrels.from_dict({"q1": {"d1": 1, "d2": 0}})
    >>> run = rw.Run.from_dict({"q1": {"d1": 0.5, "d2": 0.9}})
    >>> res = rw.trec_eval(qrels, run, ["map", "P.1"])
    >>> res.mean()
    {'map': 0.5, 'P_1': 0.0}
    >>> print(res.format())
    map                   	all	0.5000
    P_1                   	all	0.0000
    """

    def __init__(self, specs, values, query_ids, n_queries, run_name, ties):
        self._specs = tuple(specs)
        self._index = {spec.name: j for j, spec in enumerate(self._specs)}
        self._values = values
        self._values.flags.writeable = False
        self.query_ids = query_ids
        self._n_queries = n_queries
        self.run_name = run_name
        self.ties = ties

    @property
    def names(self) -> tuple:
        return tuple(s.name for s in self._specs if s.root not in ("runid", "num_q"))

    def _column(self, name: str) -> int:
        if name not in self._index:
            raise KeyError(f"{name!r} was not computed; measures: {', '.join(self.names)}")
        return self._index[name]

    def __getitem__(self, name: str) -> np.ndarray:
        """Per-query values of one measure (gm_map and gm_bpref: the per-query AP / bpref)."""
        return self._values[:, self._column(name)]

    def mean(self) -> dict:
        """The summary trec_eval prints as ``all``: means, sums for counts, geometric means."""
        return {name: self._summary(self._column(name)) for name in self.names}

    def _summary(self, j: int):
        spec, column = self._specs[j], self._values[:, j]
        if spec.root in _COUNTS:
            return _count(column.sum())
        if not self._n_queries:
            return 0.0
        if spec.root in _GEOMETRIC:
            return float(np.exp(np.mean(np.log(np.maximum(column, _MIN_GEO_MEAN)))))
        return float(column.mean())

    def to_pandas(self):
        """One row per query, one column per measure."""
        import pandas as pd

        return pd.DataFrame(np.asarray(self._values[:, [self._column(n) for n in self.names]]),
                            index=pd.Index(self.query_ids, name="query_id"), columns=list(self.names))

    def format(self, per_query: bool = False) -> str:
        """trec_eval's output: ``measure<TAB>query|all<TAB>value`` lines, per query first with ``-q``."""
        lines = []
        if per_query:
            for q, query in enumerate(self.query_ids):
                for j, spec in enumerate(self._specs):
                    if spec.root not in _SUMMARY_ONLY:
                        lines.append(_line(spec, query, self._values[q, j]))
        for j, spec in enumerate(self._specs):
            if spec.root == "runid":
                lines.append(f"{'runid':<22}\tall\t{self.run_name}")
            elif spec.root == "num_q":
                lines.append(f"{'num_q':<22}\tall\t{self._n_queries}")
            else:
                lines.append(_line(spec, "all", self._summary(j)))
        return "\n".join(lines)

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={value:.4f}" for name, value in list(self.mean().items())[:6])
        return f"TrecResults({self.run_name!r}, {self._n_queries} queries: {shown})"


def _count(total):
    # Counts are whole numbers, except expected counts when a depth cut splits a tie.
    return int(total) if float(total).is_integer() else float(total)


def _line(spec: TrecSpec, query: str, value) -> str:
    value = _count(value) if spec.root in _COUNTS else value
    text = f"{value}" if isinstance(value, int) else f"{value:.4f}"
    return f"{spec.name:<22}\t{query}\t{text}"


class _Join:
    """The run's evaluated rows grouped by query, each with its relevance from the qrels."""

    def __init__(self, qrels: Qrels, run: Run, complete: bool, threads: int):
        qc, rc = qrels._columns, run._columns
        run_to_qrels = qc.queries.lookup(rc.queries)
        evaluated = np.flatnonzero(run_to_qrels >= 0)
        keep = run_to_qrels[rc.query_codes] >= 0
        rows = np.flatnonzero(keep) if not keep.all() else None
        query_codes = rc.query_codes if rows is None else rc.query_codes[rows]
        # Group rows by run query; stable, so equal-key rows keep their file order.
        grouped = np.all(query_codes[1:] >= query_codes[:-1])
        order = None if grouped else np.argsort(query_codes, kind="stable")
        if order is not None:
            rows = order if rows is None else rows[order]
        self.rows = rows
        counts = np.bincount(query_codes, minlength=len(rc.queries))[evaluated]
        self.indptr = np.zeros(evaluated.shape[0] + 1, dtype=np.int64)
        np.cumsum(counts, out=self.indptr[1:])
        self.qrels_query = run_to_qrels[evaluated]
        if complete:
            absent = np.setdiff1d(np.arange(len(qc.queries)), self.qrels_query)
            self.qrels_query = np.concatenate([self.qrels_query, absent])
            self.indptr = np.concatenate([self.indptr, np.full(absent.shape[0], self.indptr[-1])])
        self.scores = np.ascontiguousarray(self._take(rc.values), dtype=np.float64)
        self.relevance = self._relevance(qc, rc, threads)

    def _take(self, array: np.ndarray) -> np.ndarray:
        return array if self.rows is None else array[self.rows]

    def _relevance(self, qc: TrecColumns, rc: TrecColumns, threads: int) -> np.ndarray:
        # Judgements grouped by qrels query and sorted by document code, for binary search.
        order = np.lexsort((qc.doc_codes, qc.query_codes))
        qrels_indptr = np.zeros(len(qc.queries) + 1, dtype=np.int64)
        np.cumsum(np.bincount(qc.query_codes, minlength=len(qc.queries)), out=qrels_indptr[1:])
        qrels_doc = np.ascontiguousarray(qc.doc_codes[order], dtype=np.int64)
        qrels_rel = np.ascontiguousarray(qc.values[order], dtype=np.float64)
        doc_to_qrels = np.ascontiguousarray(qc.docs.lookup(rc.docs), dtype=np.int64)
        doc_codes = np.ascontiguousarray(self._take(rc.doc_codes), dtype=np.int64)
        relevance = np.empty(doc_codes.shape[0])

        def task(q_start, q_stop):
            judge(doc_codes, doc_to_qrels, self.indptr, self.qrels_query, qrels_indptr, qrels_doc, qrels_rel,
                  q_start, q_stop, relevance)

        run_over_queries(task, self.indptr, threads)
        return relevance

    def tie_keys(self, run: Run, ties: str) -> np.ndarray:
        """Sort keys within a query (ascending ranks first) realising the tie policy."""
        position = np.arange(self.scores.shape[0], dtype=np.int64)
        if ties in ("stable", "expected"):
            return position
        docno_descending = -run._columns.docs.byte_order()[self._take(run._columns.doc_codes)]
        if ties == "trec":
            return docno_descending
        label = np.where(self.relevance < 0, 0.0, self.relevance)
        first = -label if ties == "optimistic" else label
        keys = np.empty_like(position)
        keys[np.lexsort((docno_descending, first))] = position
        return keys


def _judgement_counts(qc: TrecColumns, queries: np.ndarray, level: float):
    judged = qc.values >= 0
    relevant = np.bincount(qc.query_codes, weights=qc.values >= level, minlength=len(qc.queries))
    nonrelevant = np.bincount(qc.query_codes, weights=judged & (qc.values < level), minlength=len(qc.queries))
    return relevant[queries], nonrelevant[queries]


def _gain_table(spec: TrecSpec) -> np.ndarray | None:
    if not spec.gains:
        return None
    levels = max(level for level, _ in spec.gains) + 1
    table = np.arange(levels, dtype=np.float64)
    for level, gain in spec.gains:
        table[level] = gain
    return table


def _ideal_terms(qc: TrecColumns, spec: TrecSpec) -> tuple:
    """Every judged document with a positive gain in ideal order, as trec_eval builds it.

    Returns the query code, the 0-based rank within the query's ideal ranking and the
    DCG term of each; ndcg_cut's cutoffs all share the terms of the raw labels.
    """
    labels = qc.values
    table = _gain_table(spec)
    if spec.root == "ndcg":
        gains = labels.copy()
        if table is not None:
            integral = (labels >= 0) & (labels == np.floor(labels)) & (labels < table.shape[0])
            gains[integral] = table[labels[integral].astype(np.int64)]
        gains[labels < 0] = 0.0
    else:
        gains = np.where(labels > 0, labels, 0.0)
    keep = gains > 0
    codes, gains = qc.query_codes[keep], gains[keep]
    order = np.lexsort((-gains, codes))
    codes, gains = codes[order], gains[order]
    position = np.arange(codes.shape[0]) - np.searchsorted(codes, codes, side="left")
    return codes, position, gains / np.log2(position + 2.0)


def _ideal_dcg(qc: TrecColumns, queries: np.ndarray, terms: tuple, cutoff=None) -> np.ndarray:
    """Ideal DCG per evaluated query from the ideal terms, cut at ``cutoff`` if given."""
    codes, position, contributions = terms
    if cutoff is not None:
        within = position < cutoff
        codes, contributions = codes[within], contributions[within]
    return np.bincount(codes, weights=contributions, minlength=len(qc.queries))[queries]


def _kernel_columns(specs):
    """The kernel's measures: every spec, plus hidden iprec columns behind each 11pt_avg."""
    columns = []
    for spec in specs:
        if spec.root == "11pt_avg":
            columns.extend(TrecSpec("iprec_at_recall", "", (p,)) for p in spec.points)
        elif spec.root not in ("runid", "num_q"):
            columns.append(spec)
    return list(dict.fromkeys(columns))


def trec_eval(qrels: Qrels, run: Run, measures=("official",), *, complete=False, relevance_level=1,
              depth=None, ties="trec", n_threads=None) -> TrecResults:
    """Evaluate a run against qrels with trec_eval 10.0's measures and semantics.

    Parameters
    ----------
    qrels : Qrels
    run : Run
    measures : str or list of str
        trec_eval measure names with trec_eval's parameter syntax: ``map``, ``P.5,10``
        or ``P_10``, ``ndcg_cut.10,20``, ``iprec_at_recall..1,.5``, ``ndcg.1=3,2=9``
        (custom gains), ``utility.2,-1,0,0``, ``Rprec_mult.0.5``, ``success.1,5``,
        ``11pt_avg..25,.5,.75``; or the sets ``official`` (trec_eval's default),
        ``all_trec`` and ``set``. Measures come out in trec_eval's order.
    complete : bool
        trec_eval's ``-c``: average over every query of the qrels; queries the run
        lacks score 0.
    relevance_level : float
        trec_eval's ``-l``: labels at or above it are relevant (binary measures; nDCG
        uses the labels as gains regardless, as trec_eval does).
    depth : int, optional
        trec_eval's ``-M``: only the top ``depth`` documents of each query count.
    ties : {"trec", "expected", "optimistic", "pessimistic", "stable"}
        ``"trec"`` (default): trec_eval's order, document id descending among tied
        scores. ``"expected"``: the exact expectation over orderings of tied scores,
        for the measures that are linear in the ranking's hit counts or are AP, RR,
        success and nDCG (bpref, infAP, iprec_at_recall, 11pt_avg and the geometric
        means raise). ``"optimistic"`` / ``"pessimistic"``: relevant first / last
        among ties. ``"stable"``: the order of the run's rows.
    n_threads : int, optional
        Threads over queries; None or -1 for all CPUs.

    Returns
    -------
    TrecResults
        ``.mean()`` (the ``all`` line), ``res["P_10"]`` per query, ``.format()``
        (trec_eval's text), ``.to_pandas()``.

    Examples
    --------
    >>> import rankwise as rw
    >>> qrels = rw.Qrels.from_dict({"q1": {"a": 1, "b": 0, "c": 1}})
    >>> run = rw.Run.from_dict({"q1": {"a": 0.5, "b": 0.5, "c": 0.2}})
    >>> rw.trec_eval(qrels, run, ["map", "recip_rank"]).mean()     # tie: "b" before "a"
    {'map': 0.5833333333333333, 'recip_rank': 0.5}
    >>> rw.trec_eval(qrels, run, ["map", "recip_rank"], ties="expected").mean()
    {'map': 0.7083333333333333, 'recip_rank': 0.75}
    """
    if not isinstance(qrels, Qrels) or not isinstance(run, Run):
        raise TypeError("trec_eval(qrels, run, ...) takes a Qrels and a Run (see Qrels.read, Run.read)")
    check_choice(ties, "ties", _TIES)
    level = check_level(relevance_level)
    limit = _check_depth(depth)
    threads = effective_n_threads(n_threads)
    specs = parse_trec_measures(measures)
    _check_expected(specs, ties, depth)
    join = _Join(qrels, run, bool(complete), threads)
    n_queries = join.qrels_query.shape[0]
    kernel_specs = _kernel_columns(specs)
    values = _evaluate(join, qrels, run, kernel_specs, ties, level, limit, threads)
    values = _assemble(specs, kernel_specs, values)
    queries = qrels._columns.queries
    # trec_eval reports queries in byte order of their ids.
    order = np.argsort(queries.byte_order()[join.qrels_query], kind="stable")
    names = queries.to_numpy()[join.qrels_query]
    return TrecResults(specs, values[order], names[order], n_queries, run.name, ties)


def _check_depth(depth) -> int:
    if depth is None:
        return np.iinfo(np.int64).max
    if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth < 1:
        raise ValueError(f"depth must be a positive integer (trec_eval's -M), got {depth!r}")
    return int(depth)


def _check_expected(specs, ties: str, depth) -> None:
    if ties != "expected":
        return
    refused = [s.name for s in specs if s.root in _NO_EXPECTATION]
    if depth is not None:
        refused += [s.name for s in specs if s.root in ("set_map", "set_F")]
    if refused:
        raise ValueError(f"ties='expected' has no closed form for {', '.join(refused)} (not linear in the "
                         "ranking); use ties='trec', 'optimistic', 'pessimistic' or 'stable' for them")


def _evaluate(join: _Join, qrels: Qrels, run: Run, specs, ties: str, level: float, limit: int,
              threads: int) -> np.ndarray:
    qc = qrels._columns
    n_queries = join.qrels_query.shape[0]
    keys = join.tie_keys(run, ties)
    ranked = np.empty_like(join.scores)
    ranked_scores = np.empty_like(join.scores)

    def rank(q_start, q_stop):
        rank_relevance(join.scores, keys, join.relevance, join.indptr, q_start, q_stop, ranked, ranked_scores)

    run_over_queries(rank, join.indptr, threads)
    num_ret = np.minimum(np.diff(join.indptr), limit)
    num_rel, num_nonrel = _judgement_counts(qc, join.qrels_query, level)
    kinds = np.array([int(s.kind) for s in specs], dtype=np.int32)
    params = np.zeros((len(specs), 4))
    ideal = np.zeros((n_queries, len(specs)))
    tables = [_gain_table(s) for s in specs]
    width = max([t.shape[0] for t in tables if t is not None], default=1)
    gains = np.zeros((max(sum(t is not None for t in tables), 1), width))
    gain_row = np.full(len(specs), -1, dtype=np.int64)
    terms = {}
    for m, spec in enumerate(specs):
        params[m, :len(spec.params)] = spec.params
        if spec.kind in (TrecMeasure.NDCG, TrecMeasure.NDCG_CUT):
            gain_key = (spec.root, spec.gains)
            if gain_key not in terms:
                terms[gain_key] = _ideal_terms(qc, spec)
            cutoff = spec.params[0] if spec.kind == TrecMeasure.NDCG_CUT else None
            ideal[:, m] = _ideal_dcg(qc, join.qrels_query, terms[gain_key], cutoff)
        if tables[m] is not None:
            row = int(gain_row.max()) + 1
            gains[row, :tables[m].shape[0]] = tables[m]
            gain_row[m] = row
    out = np.empty((n_queries, len(specs)))

    def measure(q_start, q_stop):
        trec_measures(ranked, ranked_scores, join.indptr, num_ret, num_rel, num_nonrel, kinds, params, ideal,
                      gains, gain_row, level, ties == "expected", q_start, q_stop, out)

    run_over_queries(measure, join.indptr, threads)
    absent = num_ret == 0
    if absent.any():
        # A query the run lacks (complete=True): trec_eval reports 0 for all but num_rel.
        out[absent] = 0.0
        out[np.ix_(absent, kinds == TrecMeasure.NUM_REL)] = num_rel[absent, None]
    return out


def _assemble(specs, kernel_specs, values: np.ndarray) -> np.ndarray:
    """One column per printed measure (11pt_avg: the mean of its iprec columns)."""
    column = {spec: i for i, spec in enumerate(kernel_specs)}
    out = np.zeros((values.shape[0], len(specs)))
    for j, spec in enumerate(specs):
        if spec.root == "11pt_avg":
            points = [column[TrecSpec("iprec_at_recall", "", (p,))] for p in spec.points]
            out[:, j] = values[:, points].sum(axis=1) / len(points)
        elif spec in column:
            out[:, j] = values[:, column[spec]]
    return out


def read_example() -> tuple[Qrels, Run]:
    """The bundled example qrels and run (``rankwise eval --example``)."""
    here = os.path.join(os.path.dirname(__file__), "data")
    return Qrels.read(os.path.join(here, "example.qrels")), Run.read(os.path.join(here, "example.run"))
