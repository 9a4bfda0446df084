"""rankwise on Dask: :func:`evaluate` and :func:`trec_eval` over ``dask.dataframe``.

The numbers are those of one machine, bit for bit: per-query values equal
:func:`rankwise.evaluate`'s on the columns of ``ddf.compute()``, and means are the
exactly rounded sums of :class:`rankwise.Accumulator`, so no partitioning changes a digit.

The rows of one query are brought together once, by ``ddf.shuffle(on=qid)`` (skipped when
the frame is already partitioned by the query id: the index with known divisions, or a
frame Dask itself shuffled on that column), and each partition is evaluated by one kernel
call on its NumPy columns, never a Python call per query. Needs ``pip install
"rankwise[dask]"``.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

try:
    import dask
    import dask.dataframe as dd
    import pandas as pd
    import pyarrow as pa
    from dask.callbacks import Callback
except ImportError:
    raise ImportError('rankwise.dask needs Dask: pip install "rankwise[dask]"') from None

from ._core.progress import Bar, check_progress, progress_bar
from ._core.results import Results
from ._engines import (
    DUPLICATES,
    LABELS,
    EvaluateJob,
    EvaluateResults,
    TrecJob,
    combine,
    combine_trec,
    evaluate_job,
    evaluate_partition,
    first_in_table,
    first_invalid,
    known_means_html,
    partition_outcome,
    per_query_rows,
    rows_in_table,
    text_values,
    trec_job,
    trec_outcome,
    trec_partition,
)
from .trec import Qrels, Run, TrecResults

__all__ = ["DaskResults", "DaskTrecResults", "evaluate", "trec_eval"]

# The row order of the input, kept through a shuffle for ties="stable": the partition number
# above bit 33 and the position within the partition below, as Spark's
# monotonically_increasing_id numbers rows.
_ORDER = "__rankwise_order__"
_ROW_BITS = 33
# The query id as text: what qrels and run are shuffled on when one has integer ids and the
# other strings (an integer id is the same query as its decimal text).
_KEY = "__rankwise_query_key__"


def _check_frame(frame: object, name: str) -> None:
    if not isinstance(frame, dd.DataFrame):
        raise TypeError(f"{name} must be a dask.dataframe.DataFrame, got {type(frame).__name__}")


def _check_npartitions(npartitions: object) -> None:
    if npartitions is not None and (isinstance(npartitions, bool) or not isinstance(npartitions, int)
                                    or npartitions < 1):
        raise ValueError(f"npartitions must be None or an integer >= 1, got {npartitions!r}")


def _values(part: Any, name: str) -> np.ndarray:
    """A column (or the index, when it has that name) of a pandas frame, as NumPy makes it."""
    return (part[name] if name in part.columns else part.index).to_numpy()


def _ids(part: Any, name: str) -> np.ndarray:
    """Query or document ids of a pandas frame: strings, without missing ones, as fixed-width
    unicode (:func:`rankwise._engines.text_values`: grouped and compared in C), others as
    NumPy makes them."""
    column = part[name] if name in part.columns else part.index
    dtype = column.dtype
    arrow = dtype.pyarrow_dtype if isinstance(dtype, pd.ArrowDtype) else None
    text = isinstance(dtype, pd.StringDtype) or (arrow is not None and (pa.types.is_string(arrow)
                                                                        or pa.types.is_large_string(arrow)))
    return text_values(pa.array(column)) if text and not column.hasnans else column.to_numpy()


def _series(frame: Any, name: str) -> Any:
    return frame[name] if name in frame.columns else frame.index


def _projected(frame: Any, names: Iterable[str]) -> Any:
    """``frame`` with only the named columns (and its index): the shuffle moves nothing else."""
    return frame[[name for name in dict.fromkeys(names) if name in frame.columns]]


def _check_columns(frame: Any, columns: Iterable[tuple[str, str]], what: str) -> None:
    """Every named column is in ``frame``'s columns (or is its index's name)."""
    for role, name in columns:
        if name not in frame.columns and name != frame.index.name:
            shown = ", ".join(map(repr, frame.columns))
            raise ValueError(f"{role}={name!r} is not a column of {what} (nor its index's name); its "
                             f"columns: {shown}")


def _probe(meta: Any, names: Iterable[str]) -> dict[str, np.ndarray]:
    """One made-up row of each named column in the NumPy dtype its partitions will have, so
    that evaluate's checks of dtypes run before any task."""
    probe = {}
    for name in names:
        dtype = _values(meta, name).dtype
        probe[name] = np.zeros(1, dtype) if dtype.kind in "biufcmM" else np.array(["x"], dtype=object)
    return probe


def _partitioned(frame: Any, name: str) -> bool:
    """Whether every row of each value of column (or index) ``name`` lies in one partition."""
    if name not in frame.columns:
        return bool(frame.known_divisions)
    # What Dask knows of its own shuffles (dask-expr); other frames are shuffled again.
    expr = getattr(frame, "expr", None)
    shuffled: set[Any] = getattr(expr, "unique_partition_mapping_columns_from_shuffle", set())
    return name in shuffled or (name,) in shuffled


def _number_rows(part: Any, partition_info: dict[str, Any]) -> Any:
    """``part`` with the row-order column (Dask passes ``partition_info`` to a function that takes it)."""
    rows = np.arange(len(part), dtype=np.int64)
    return part.assign(**{_ORDER: (np.int64(partition_info["number"]) << _ROW_BITS) | rows})


def _with_row_order(frame: Any) -> Any:
    meta = frame._meta.assign(**{_ORDER: np.empty(0, dtype=np.int64)})
    return frame.map_partitions(_number_rows, meta=meta)


def _by_query(frame: Any, name: str, npartitions: int | None, keep_order: bool) -> Any:
    """``frame`` with every row of a query (column or index ``name``) in one partition:
    as it is when it already is, else shuffled."""
    if _partitioned(frame, name) and npartitions in (None, frame.npartitions):
        return frame
    # Another partition count is a shuffle: Dask's repartition may split a run of equal index
    # values between partitions (it cuts a non-numeric index by row counts).
    return _shuffled(frame, name, npartitions or frame.npartitions, keep_order)


def _shuffled(frame: Any, on: str, npartitions: int, keep_order: bool) -> Any:
    """``frame`` shuffled on column or index ``on``, with the row-order column if ``keep_order``."""
    if keep_order:
        frame = _with_row_order(frame)
    if on in frame.columns:
        return frame.shuffle(on=on, npartitions=npartitions)
    return frame.shuffle(on_index=True, npartitions=npartitions)


def _order(part: Any) -> np.ndarray | None:
    return part[_ORDER].to_numpy() if _ORDER in part.columns else None


def _job_columns(part: Any, job: EvaluateJob) -> dict[str, np.ndarray]:
    return {name: _ids(part, name) if role in ("qid", "doc_ids") else _values(part, name)
            for role, name in job.columns}


def _resolved(job: EvaluateJob, largest: Any) -> EvaluateJob:
    """The job with max_grade resolved from the largest label of all rows (None: not needed)."""
    return job if largest is None else job.with_max_grade(np.nan if pd.isna(largest) else float(largest))


def _evaluate_outcome(part: Any, job: EvaluateJob, want: str, largest: Any) -> bytes:
    return partition_outcome(_resolved(job, largest), _job_columns(part, job), _order(part), want=want)


def _per_query_frame(part: Any, job: EvaluateJob, meta: Any, largest: Any) -> Any:
    ids, values = per_query_rows(_resolved(job, largest), _job_columns(part, job), _order(part))
    return _frame(meta, ids, values)


def _frame(meta: Any, ids: np.ndarray, values: list[np.ndarray]) -> Any:
    """A per-query partition laid out as ``meta``: the query ids (its first column, or its
    index when that has a name), then one column per metric."""
    names = list(meta.columns)
    if meta.index.name is None:
        frame = pd.DataFrame(dict(zip(names, [ids, *values], strict=True)))
    else:
        frame = pd.DataFrame(dict(zip(names, values, strict=True)), index=pd.Index(ids, name=meta.index.name))
        frame.index = frame.index.astype(meta.index.dtype)
    return frame.astype(meta.dtypes.to_dict())


def _per_query_meta(frame: Any, qid: str, names: Iterable[str]) -> Any:
    """The per-query frame's (empty) layout: the query column or index of ``frame``, then a
    float64 column per name."""
    columns = {name: np.empty(0, dtype=np.float64) for name in names}
    if qid in columns:
        raise ValueError(f"the query column {qid!r} has the name of a metric; rename it")
    if qid in frame.columns:
        return pd.DataFrame({qid: frame._meta[qid].reset_index(drop=True), **columns})
    return pd.DataFrame(columns, index=frame._meta.index[:0])


def _first_invalid_of(values: Any, kind: str) -> tuple[int, int | None, Any]:
    """One partition's length, and the position and value of its first bad label or NaN score."""
    array = values.to_numpy()
    found = first_invalid(kind, array)
    return array.shape[0], found, None if found is None else array[found].item()


def _rows_of(part: Any, qid: str, doc: str, query: Any) -> tuple[int, np.ndarray, np.ndarray]:
    """One partition's length, and the positions and document ids of its rows of query ``query``."""
    ids = _ids(part, qid)
    at = np.flatnonzero(ids == query)
    return ids.shape[0], at, _ids(part, doc)[at]


def _locate_rows(frame: Any, qid: str, doc: str, query: Any) -> tuple[np.ndarray, np.ndarray]:
    """Positions in ``frame.compute()``'s row order, and document ids, of query ``query``'s
    rows: one pass, made only to word the error for a document given twice."""
    parts = frame.to_delayed()
    return rows_in_table(dask.compute(*[dask.delayed(_rows_of)(p, qid, doc, query) for p in parts]))


def _locate(frame: Any, name: str, kind: str) -> tuple[int, Any]:
    """Position in ``frame.compute()``'s row order, and value, of the first bad label or NaN
    score of column ``name``: one pass, made only to word that error."""
    parts = _series(frame, name).to_delayed()
    return first_in_table(dask.compute(*[dask.delayed(_first_invalid_of)(p, kind) for p in parts]), name)


def evaluate(ddf: Any, metrics: str | Iterable[str], *, qid: str, y_true: str, y_score: str,
             doc_ids: str | None = None, ties: str = "expected", relevance_level: float = 1,
             gain: str = "linear", max_grade: float | None = None, empty: str = "zero", nan: str = "raise",
             log_base: float = 2,
             npartitions: int | None = None, progress: bool | None = None) -> DaskResults:
    """:func:`rankwise.evaluate` over a Dask DataFrame with one row per (query, item).

    Lazy: nothing runs until :meth:`DaskResults.mean`, :meth:`DaskResults.compute` or a
    computation of :attr:`DaskResults.per_query`. ERR and graded RBP without ``max_grade``
    take the largest label of all rows, as :func:`rankwise.evaluate` does: a maximum over the
    label column in the same graph, which every partition's evaluation waits for.

    Parameters
    ----------
    ddf : dask.dataframe.DataFrame
        One row per item of a query, in any order and partitioning.
    metrics : str or iterable of str
        Metric names, as :func:`rankwise.evaluate` takes them.
    qid, y_true, y_score : str
        Column names of the query ids (a column, or the index's name), the relevance labels
        and the scores.
    doc_ids : str, optional
        Column name of the document ids, for ``ties="trec"``.
    ties, relevance_level, gain, max_grade, empty, nan, log_base
        As :func:`rankwise.evaluate`. ``ties="stable"`` breaks ties by the order of the rows in
        ``ddf.compute()``, which the shuffle keeps by numbering the rows first.
    npartitions : int, optional
        Partitions after the shuffle by query id (default: those of ``ddf``).
    progress : bool or None
        A progress bar on stderr of the partitions evaluated while :meth:`DaskResults.mean` or
        :meth:`DaskResults.compute` runs (from the distributed client's futures, or the local
        scheduler's callbacks). None (default): shown when stderr is a terminal and tqdm is
        installed, unless the environment sets ``RANKWISE_PROGRESS=0``; False: never; True:
        always (ImportError without tqdm: ``pip install "rankwise[progress]"``).

    Returns
    -------
    DaskResults
        ``.mean()``, ``.per_query`` (a lazy Dask DataFrame), ``.compute()`` (a Results).

    Raises
    ------
    ValueError, TypeError
        Before any task: what :func:`rankwise.evaluate` raises for the metric names and
        options, a column that ``ddf`` lacks, a column whose dtype evaluate refuses (string
        scores). From :meth:`DaskResults.mean` and :meth:`DaskResults.compute`: exactly what
        :func:`rankwise.evaluate` raises for the rows (NaN scores, negative labels, ...).

    Examples
    --------
    >>> import pandas as pd, dask.dataframe as dd, rankwise.dask as rwd
    >>> frame = pd.DataFrame({"q": [1, 1, 2, 2], "label": [1, 0, 0, 1], "score": [0.9, 0.8, 0.7, 0.3]})
    >>> res = rwd.evaluate(dd.from_pandas(frame, npartitions=2), ["MRR", "P@1"], qid="q",
    ...                    y_true="label", y_score="score")
    >>> res.mean()
    {'MRR': 0.75, 'P@1': 0.5}
    >>> res.per_query.compute().sort_values("q").to_dict("list")
    {'q': [1, 2], 'MRR': [1.0, 0.5], 'P@1': [1.0, 0.0]}
    """
    _check_frame(ddf, "ddf")
    _check_npartitions(npartitions)
    job = evaluate_job(metrics, qid=qid, y_true=y_true, y_score=y_score, doc_ids=doc_ids, ties=ties,
                       relevance_level=relevance_level, gain=gain, max_grade=max_grade, empty=empty, nan=nan,
                       log_base=log_base)
    _check_columns(ddf, job.columns, "ddf")
    evaluate_partition(job, _probe(ddf._meta, [name for _, name in job.columns]))
    return DaskResults(ddf, job, npartitions, check_progress(progress))


class DaskResults(EvaluateResults):
    """The results of :func:`evaluate`: lazy until asked for.

    Attributes
    ----------
    per_query : dask.dataframe.DataFrame
        One row per query: the query id (a column, or the index when ``qid`` named the
        index), then one float64 column per metric, in the order asked. Lazy; the queries
        of a partition are sorted by id, the partitions in no particular order.
    metrics : tuple of str
        The metric names, as asked.

    :meth:`mean` and :meth:`compute` each run the evaluation once and keep what it gave,
    and raise :func:`rankwise.evaluate`'s errors for bad rows word for word. A computation of
    ``per_query`` raises the same types, but a bad label's or NaN score's position is then
    the one within its partition. Statistics (:func:`rankwise.compare`, ...) take a
    DaskResults as they take a Results.
    """

    def __init__(self, ddf: Any, job: EvaluateJob, npartitions: int | None,
                 progress: bool | None = None) -> None:
        qid = job.names["qid"]
        super().__init__(job)
        self._progress = progress
        self._source = ddf
        self._grouped = _by_query(_projected(ddf, job.names.values()), qid, npartitions, job.stable)
        self._largest = _series(ddf, job.names["y_true"]).max() if job.needs_max_grade else None
        meta = _per_query_meta(ddf, qid, job.metrics)
        self.per_query = self._grouped.map_partitions(_per_query_frame, job, meta, self._largest, meta=meta)

    def compute(self) -> Results:
        """Every query's values as one :class:`rankwise.Results`, equal to
        :func:`rankwise.evaluate`'s on the columns of ``ddf.compute()``, bit for bit."""
        return self._all_results()

    def _combined(self, want: str) -> Any:
        # One kind of collection per compute: Delayed objects (a Dask Scalar would warn).
        largest = None if self._largest is None else self._largest.to_delayed()
        parts = self._grouped.to_delayed()
        tasks = [dask.delayed(_evaluate_outcome)(part, self._job, want, largest) for part in parts]
        *outcomes, largest = _computed([*tasks, largest], len(tasks), self._progress)
        return combine(_resolved(self._job, largest), outcomes, self._locate, want)

    def _locate(self, kind: str, query: Any = None) -> tuple[Any, Any]:
        names = self._job.names
        if kind == DUPLICATES:
            frame = _projected(self._source, [names["qid"], names["doc_ids"]])
            return _locate_rows(frame, names["qid"], names["doc_ids"], query)
        return _locate(self._source, names["y_true" if kind == LABELS else "y_score"], kind)

    def __repr__(self) -> str:
        return (f"DaskResults({', '.join(self._job.metrics)}; {self._grouped.npartitions} partitions, "
                f"ties={self._job.settings['ties']!r})")


def _computed(tasks: list[Any], counted: int, progress: bool | None) -> tuple[Any, ...]:
    """``dask.compute(*tasks)``, with a bar of the first ``counted`` tasks (the partitions) done.

    On a distributed client the bar follows the futures as they finish; on a local scheduler,
    the callback that Dask calls after each task (in its worker threads: the bar takes a lock).
    """
    with progress_bar(progress, counted, "partitions", "partitions") as bar:
        if not bar.shown:
            return dask.compute(*tasks)
        client = _client()
        if client is None:
            with _Finished({task.key for task in tasks[:counted]}, bar):
                return dask.compute(*tasks)
        import distributed

        lazy = [i for i, task in enumerate(tasks) if dask.is_dask_collection(task)]
        futures = client.compute([tasks[i] for i in lazy])
        for future in distributed.as_completed(futures[:counted]):
            bar.update(1)
            future.result()     # an error now, as dask.compute raises it
        done = list(tasks)
        for i, value in zip(lazy, client.gather(futures), strict=True):
            done[i] = value
        return tuple(done)


def _client() -> Any:
    """The distributed client that Dask would compute on now, or None (a local scheduler)."""
    scheduler = dask.base.get_scheduler()
    client = getattr(scheduler, "__self__", None)
    return client if hasattr(client, "compute") and hasattr(client, "gather") else None


class _Finished(Callback):
    """Counts the tasks of ``keys`` on ``bar`` as a local scheduler finishes them."""

    def __init__(self, keys: set[Any], bar: Bar) -> None:
        super().__init__()
        self._keys, self._bar = keys, bar

    def _posttask(self, key: Any, result: Any, dsk: Any, state: Any, worker_id: Any) -> None:
        if key in self._keys:
            self._bar.update(1)


def _table(part: Any, names: list[str], keep_order: bool = False) -> Any:
    """The named columns of a pandas partition as an Arrow table (strings without a Python
    object each when pandas holds them in Arrow), rows in the input's order if ``keep_order``."""
    if keep_order and _ORDER in part.columns:
        part = part.sort_values(_ORDER, kind="stable")
    if not all(name in part.columns for name in names):
        part = part.reset_index()
    return pa.Table.from_pandas(part[names], preserve_index=False)


def _trec_outcome(qrels: Any, run: Any, job: TrecJob) -> bytes:
    return trec_outcome(job, _table(qrels, [job.query, job.doc, job.relevance]),
                        _table(run, [job.query, job.doc, job.score], keep_order=True))


def _trec_frame(qrels: Any, run: Any, job: TrecJob, meta: Any) -> Any:
    results = trec_partition(job, _table(qrels, [job.query, job.doc, job.relevance]),
                             _table(run, [job.query, job.doc, job.score], keep_order=True))
    return _frame(meta, results.query_ids, [np.asarray(results[name]) for name in job.names])


def _numeric_ids(frame: Any, query: str) -> bool:
    return _values(frame._meta, query).dtype.kind in "biuf"


def _with_key(part: Any, query: str) -> Any:
    return part.assign(**{_KEY: _values(part, query).astype(str)})


def _trec_by_query(qrels: Any, run: Any, query: str, npartitions: int | None,
                   stable: bool) -> tuple[Any, Any]:
    """qrels and run with every row of a query in the partition of the same number in both."""
    same = npartitions is None or npartitions == qrels.npartitions == run.npartitions
    if (same and query not in qrels.columns and query not in run.columns and qrels.known_divisions
            and qrels.divisions == run.divisions):
        return qrels, run
    on = query
    if _numeric_ids(qrels, query) != _numeric_ids(run, query):
        # Hashes of an integer and of its decimal text differ: both shuffle on the text.
        qrels, run = (frame.map_partitions(_with_key, query, meta=_with_key(frame._meta, query))
                      for frame in (qrels, run))
        on = _KEY
    count = npartitions or max(qrels.npartitions, run.npartitions)
    return _shuffled(qrels, on, count, False), _shuffled(run, on, count, stable)


def trec_eval(qrels: Any, run: Any, measures: str | Iterable[str] = ("official",), *,
              query: str = "query_id", doc: str = "doc_id", relevance: str = "relevance",
              score: str = "score", name: str | None = None, complete: bool = False,
              relevance_level: float = 1, depth: int | None = None, ties: str = "trec",
              npartitions: int | None = None, progress: bool | None = None,
              judged_only: bool = False) -> DaskTrecResults:
    """:func:`rankwise.trec_eval` over two Dask DataFrames: judgements and retrieved documents.

    trec_eval's semantics, judged documents never retrieved included: each query's
    judgements and documents meet in one partition (both frames shuffled by query id into
    the same number of partitions), and the per-query values and summary equal
    :func:`rankwise.trec_eval`'s on ``Qrels.from_pandas(qrels.compute())`` and
    ``Run.from_pandas(run.compute())``.

    Parameters
    ----------
    qrels : dask.dataframe.DataFrame
        One row per judgement: columns ``query``, ``doc`` and ``relevance``.
    run : dask.dataframe.DataFrame
        One row per retrieved document: columns ``query``, ``doc`` and ``score``.
    measures : str or iterable of str
        trec_eval measure names, as :func:`rankwise.trec_eval` takes them.
    query, doc, relevance, score : str
        Column names (``query`` may be both frames' index name instead).
    name : str, optional
        The run's name (``runid``); default ``"rankwise"``.
    complete, relevance_level, depth, ties, judged_only
        As :func:`rankwise.trec_eval`; ``ties="stable"`` keeps the order of ``run``'s rows.
    npartitions : int, optional
        Partitions after the shuffle (default: the larger partition count of the two).
    progress : bool or None
        A progress bar on stderr of the partitions evaluated while :meth:`DaskTrecResults.compute`
        (or ``mean``) runs, as :func:`evaluate` shows it.

    Returns
    -------
    DaskTrecResults

    Examples
    --------
    >>> import pandas as pd, dask.dataframe as dd, rankwise.dask as rwd
    >>> ids = ["q1", "q1", "q2"]
    >>> qrels = pd.DataFrame({"query_id": ids, "doc_id": ["a", "b", "c"], "relevance": [1, 0, 1]})
    >>> run = pd.DataFrame({"query_id": ids, "doc_id": ["a", "x", "y"], "score": [0.5, 0.9, 0.3]})
    >>> res = rwd.trec_eval(dd.from_pandas(qrels, npartitions=2), dd.from_pandas(run, npartitions=2),
    ...                     ["map", "num_rel"])
    >>> res.mean()
    {'num_rel': 2, 'map': 0.25}
    """
    _check_frame(qrels, "qrels")
    _check_frame(run, "run")
    _check_npartitions(npartitions)
    job = trec_job(measures, query=query, doc=doc, relevance=relevance, score=score, name=name,
                   complete=complete, relevance_level=relevance_level, depth=depth, ties=ties,
                   judged_only=judged_only)
    _check_columns(qrels, (("query", query), ("doc", doc), ("relevance", relevance)), "qrels")
    _check_columns(run, (("query", query), ("doc", doc), ("score", score)), "run")
    # The dtypes' errors, as Qrels.from_pandas and Run.from_pandas word them for the computed frames.
    Qrels.from_pandas(pd.DataFrame(_probe(qrels._meta, [query, doc, relevance])), query, doc, relevance)
    Run.from_pandas(pd.DataFrame(_probe(run._meta, [query, doc, score])), query, doc, score)
    return DaskTrecResults(qrels, run, job, npartitions, check_progress(progress))


class DaskTrecResults:
    """The results of :func:`trec_eval`: lazy until asked for.

    Attributes
    ----------
    per_query : dask.dataframe.DataFrame
        One row per evaluated query: its id, then one float64 column per measure, in
        trec_eval's order (the measures with per-query values). Lazy; a partition's queries
        are in trec_eval's order, the partitions in no particular order.
    names : tuple of str
        The measures' names as trec_eval prints them.

    :meth:`compute` (and :meth:`mean`, which needs every value in trec_eval's order) runs
    the evaluation once and keeps what it gave.
    """

    def __init__(self, qrels: Any, run: Any, job: TrecJob, npartitions: int | None,
                 progress: bool | None = None) -> None:
        stable = dict(job.options)["ties"] == "stable"
        self._job = job
        self._qrels, self._run = _trec_by_query(_projected(qrels, [job.query, job.doc, job.relevance]),
                                                _projected(run, [job.query, job.doc, job.score]), job.query,
                                                npartitions, stable)
        meta = _per_query_meta(qrels, job.query, job.names)
        self.per_query = dd.map_partitions(_trec_frame, self._qrels, self._run, job, meta, meta=meta,
                                           align_dataframes=False)
        self._results: TrecResults | None = None
        self._progress = progress

    @property
    def names(self) -> tuple[str, ...]:
        return self._job.names

    def mean(self) -> dict[str, float]:
        """trec_eval's summary (its ``all`` lines), as :meth:`rankwise.TrecResults.mean`."""
        return self.compute().mean()

    def compute(self) -> TrecResults:
        """Every evaluated query as one :class:`rankwise.TrecResults`, equal to
        :func:`rankwise.trec_eval`'s on all rows."""
        if self._results is None:
            tasks = [dask.delayed(_trec_outcome)(q, r, self._job)
                     for q, r in zip(self._qrels.to_delayed(), self._run.to_delayed(), strict=True)]
            self._results = combine_trec(_computed(tasks, len(tasks), self._progress))
        return self._results

    def __rankwise_results__(self) -> Results:
        return self.compute()

    def _repr_html_(self) -> str:
        """trec_eval's summary for notebooks, if :meth:`compute` brought it back; never runs a job."""
        means = None if self._results is None else self._results.mean()
        return known_means_html(repr(self), self.names, means)

    def __repr__(self) -> str:
        return f"DaskTrecResults({', '.join(self.names)}; {self._qrels.npartitions} partitions)"
