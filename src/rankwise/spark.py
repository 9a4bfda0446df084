"""rankwise on Spark: :func:`evaluate` and :func:`trec_eval` over Spark DataFrames.

The numbers are those of :func:`rankwise.evaluate` and :func:`rankwise.trec_eval` on the
collected columns, bit for bit: per-query values, means and errors. Needs PySpark 3.5 or
later with pyarrow (``pip install "rankwise[spark]"``), and rankwise installed where the
executors run Python.

How a table is evaluated: the rows of each query are brought into one partition, once (a
hash shuffle by query id, left out when the DataFrame is already hash-partitioned by that
column alone); each partition is then evaluated by one call of rankwise's kernels over
its Arrow columns (``mapInArrow``: every record batch of the partition at once, on one
thread, as Spark runs a task per core), never by a Python call per query. A partition's
queries must fit in its executor's memory. :meth:`SparkResults.mean` brings back one
exactly rounded sum per partition and metric (the mean does not depend on how queries are
split), :meth:`SparkResults.collect` the per-query values, and
:attr:`SparkResults.per_query` is a lazy DataFrame of them.

Errors: column names, types and options are checked on the driver, before any job runs,
with :func:`rankwise.evaluate`'s errors where they apply. What only the data shows
(negative labels, NaN scores, a document twice in a query, queries without a relevant item
under ``empty="error"``) comes back from the partitions as data and is raised on the driver
as :func:`rankwise.evaluate` raises it on the collected columns, never as a Java stack
trace; the position of a bad label or of a NaN score is that of the first in the
DataFrame's row order, which one more pass over the input finds (only then). Actions on
:attr:`SparkResults.per_query` are the caller's own: an error there is Spark's, carrying
rankwise's message for that partition's rows.

What may differ from one machine: ``ties="stable"`` follows the DataFrame's row order,
which Spark keeps for a deterministic plan (files, local data, a cached table) but not
through a shuffle whose blocks arrive in any order; trec_eval's ndcg with custom gains for
negative levels (it reuses the previous query's levels) and its cap on the sum of all
labels' gains are per partition.
"""
from __future__ import annotations

import contextlib
import pickle
import threading
import uuid
from collections.abc import Iterable, Iterator
from functools import partial
from typing import Any

import numpy as np

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
from .trec import TrecResults

try:
    import pyarrow as pa
    import pyarrow.compute as pc
    from pyspark import TaskContext
    from pyspark.sql import Column, DataFrame
    from pyspark.sql import functions as F
    from pyspark.sql import types as T
except ImportError:
    raise ImportError('rankwise.spark needs PySpark 3.5+ and pyarrow: pip install "rankwise[spark]"') \
        from None

__all__ = ["SparkResults", "SparkTrecResults", "evaluate", "trec_eval"]

_INTEGRAL = (T.ByteType, T.ShortType, T.IntegerType, T.LongType)
_NUMBERS = (*_INTEGRAL, T.FloatType, T.DoubleType, T.BooleanType)
# Internal columns: a row's place in the table (ties="stable"), a trec row's side, its value.
_ROW, _SIDE, _VALUE = "__rankwise_row__", "__rankwise_side__", "__rankwise_value__"
_OUTCOME = T.StructType([T.StructField("outcome", T.BinaryType(), False)])


def _column(name: str) -> Column:
    """A top-level column by its exact name (dots and backticks in it taken literally)."""
    return F.col("`" + name.replace("`", "``") + "`")


def _field(df: DataFrame, name: str, role: str) -> T.StructField:
    """The column ``name`` of ``df`` (exact, case-sensitive name), or a ValueError naming it."""
    fields = [field for field in df.schema.fields if field.name == name]
    if len(fields) != 1:
        problem = "has no column" if not fields else f"has {len(fields)} columns named"
        raise ValueError(f"{role}: the DataFrame {problem} {name!r} (columns: {df.columns})")
    return fields[0]


def _check_type(field: T.StructField, allowed: tuple[type, ...], what: str) -> None:
    if not isinstance(field.dataType, allowed):
        raise TypeError(f"{what}, got column {field.name!r} of type {field.dataType.simpleString()}")


def _check_evaluate_schema(df: DataFrame, job: EvaluateJob) -> T.StructField:
    """The column checks of :func:`evaluate`, on the schema alone; returns the qid field."""
    if not isinstance(df, DataFrame):
        raise TypeError(f"df must be a Spark DataFrame, got {type(df).__name__}")
    names = job.names
    fields = {role: _field(df, name, role) for role, name in names.items()}
    _check_type(fields["y_score"], _NUMBERS, "y_score must be numeric (float32/float64, or integers)")
    _check_type(fields["y_true"], _NUMBERS, "y_true must hold numeric relevance labels (bool, int or float)")
    _check_type(fields["qid"], (T.AtomicType,), "qid must hold atomic values (strings, numbers, dates)")
    if "doc_ids" in fields:
        _check_type(fields["doc_ids"], (T.StringType, *_INTEGRAL), "doc_ids must hold strings or integers")
    if names["qid"] in job.metrics:
        raise ValueError(f"the qid column {names['qid']!r} has the name of a metric; rename it, as the "
                         "per-query table holds both")
    return fields["qid"]


def _check_n_partitions(n_partitions: object) -> int | None:
    if n_partitions is None:
        return None
    if isinstance(n_partitions, bool) or not isinstance(n_partitions, (int, np.integer)):
        raise TypeError(f"n_partitions must be a positive integer or None, got {n_partitions!r}")
    if n_partitions < 1:
        raise ValueError(f"n_partitions must be a positive integer or None, got {n_partitions!r}")
    return int(n_partitions)


def _partitioned_by(df: DataFrame, name: str, n_partitions: int | None) -> bool:
    """Whether Spark's plan says ``df`` is hash-partitioned by the column ``name`` alone (into
    ``n_partitions`` when given). Any doubt, Spark Connect included, says no."""
    jdf = getattr(df, "_jdf", None)
    if jdf is None:
        return False
    try:
        plan = jdf.queryExecution().executedPlan()
        if plan.getClass().getSimpleName() == "AdaptiveSparkPlanExec":
            plan = plan.inputPlan()  # the plan with its exchanges, before adaptive execution
        output = plan.output()
        attributes = [output.apply(i) for i in range(output.size()) if output.apply(i).name() == name]
        pending, found = [plan.outputPartitioning()], []
        while pending:
            partitioning = pending.pop()
            kind = partitioning.getClass().getSimpleName()
            if kind == "PartitioningCollection":
                nested = partitioning.partitionings()
                pending += [nested.apply(i) for i in range(nested.size())]
            elif kind == "HashPartitioning":
                found.append(partitioning)
        return len(attributes) == 1 and any(
            p.expressions().size() == 1 and p.expressions().apply(0).semanticEquals(attributes[0])
            and n_partitions in (None, p.numPartitions()) for p in found)
    except Exception:  # noqa: BLE001  (an internal API: when it changes, shuffle)
        return False


def _by_query(df: DataFrame, qid: str, n_partitions: int | None) -> DataFrame:
    """``df`` with every row of a query in one partition: as it is, or after a hash shuffle."""
    if _partitioned_by(df, qid, n_partitions):
        return df
    return df.repartition(n_partitions, _column(qid)) if n_partitions else df.repartition(_column(qid))


def _table(batches: Iterable[Any]) -> Any:
    """The record batches of one partition as one Arrow table, or None when it has no rows."""
    batches = list(batches)
    if not batches or not sum(batch.num_rows for batch in batches):
        return None
    return pa.Table.from_batches(batches)


def _numpy(table: Any, names: Iterable[str]) -> tuple[dict[str, np.ndarray], list[str]]:
    """NumPy arrays of the columns ``names`` (strings as fixed-width unicode: :func:`text_values`)
    and the names of those holding nulls."""
    columns, nulls = {}, []
    for name in dict.fromkeys(names):
        column = table.column(name)
        if column.null_count:
            nulls.append(name)  # an error: the values are not read
            columns[name] = np.empty(0)
        elif pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
            columns[name] = text_values(column)
        else:
            columns[name] = column.to_numpy()
    return columns, nulls


def _outcome_batch(outcome: bytes) -> Any:
    return pa.RecordBatch.from_arrays([pa.array([outcome], pa.binary())], names=["outcome"])


def _evaluate_outcomes(job: EvaluateJob, want: str, batches: Iterator[Any]) -> Iterator[Any]:
    """mapInArrow: one partition's outcome (mean state, Accumulator or error), pickled."""
    table = _table(batches)
    if table is not None:
        columns, nulls = _numpy(table, [name for _, name in job.columns])
        order = table.column(_ROW).to_numpy() if job.stable else None
        yield _outcome_batch(partition_outcome(job, columns, order, nulls=nulls, want=want))


def _per_query_batches(job: EvaluateJob, batches: Iterator[Any]) -> Iterator[Any]:
    """mapInArrow: one partition's per-query table (qid, then a float64 column per metric)."""
    table = _table(batches)
    if table is None:
        return
    qid = job.names["qid"]
    columns, nulls = _numpy(table, [name for _, name in job.columns])
    if nulls:
        raise ValueError(f"column {nulls[0]!r} holds missing values (nulls); rankwise takes none: drop or "
                         "fill them first")
    ids, values = per_query_rows(job, columns, table.column(_ROW).to_numpy() if job.stable else None)
    arrays = [pa.array(ids, type=table.schema.field(qid).type), *(pa.array(v, pa.float64()) for v in values)]
    yield pa.RecordBatch.from_arrays(arrays, names=[qid, *job.metrics])


def _first_invalid(kind: str, name: str, batches: Iterator[Any]) -> Iterator[Any]:
    """mapInArrow over the input: this partition's index, row count and first bad value."""
    table = _table(batches)
    values = table.column(name).to_numpy() if table is not None else np.empty(0)
    at = first_invalid(kind, values)
    context = TaskContext.get()
    assert context is not None  # a task's function
    found = (context.partitionId(), values.shape[0], at, None if at is None else values[at].item())
    yield _outcome_batch(pickle.dumps(found))


def _rows_of(query: Any, qid: str, doc: str, batches: Iterator[Any]) -> Iterator[Any]:
    """mapInArrow over the input: this partition's index, row count, and the positions and
    document ids of its rows of query ``query``."""
    table = _table(batches)
    columns = _numpy(table, [qid, doc])[0] if table is not None else {qid: np.empty(0), doc: np.empty(0)}
    at = np.flatnonzero(columns[qid] == query)
    context = TaskContext.get()
    assert context is not None  # a task's function
    yield _outcome_batch(pickle.dumps((context.partitionId(), columns[qid].shape[0], at, columns[doc][at])))


def _locate(df: DataFrame, job: EvaluateJob, kind: str, query: Any = None) -> tuple[Any, Any]:
    """Position (in ``df``'s row order) and value of the first bad label or NaN score, or
    (``DUPLICATES``) the positions and document ids of query ``query``'s rows: one pass over
    the input's own partitions, made only to word that error."""
    if kind == DUPLICATES:
        qid, doc = job.names["qid"], job.names["doc_ids"]
        parts = df.select(_column(qid), _column(doc)).mapInArrow(partial(_rows_of, query, qid, doc),
                                                                 _OUTCOME).collect()
        found = sorted((pickle.loads(part.outcome) for part in parts), key=lambda p: p[0])
        return rows_in_table(part[1:] for part in found)
    name = job.names["y_true" if kind == LABELS else "y_score"]
    rows = df.select(_column(name)).mapInArrow(partial(_first_invalid, kind, name), _OUTCOME).collect()
    return first_in_table((part[1:] for part in sorted(pickle.loads(row.outcome) for row in rows)), name)


# Seconds between two looks of the progress thread at Spark's status tracker.
_POLL = 0.2
# The local properties setJobGroup sets, put back as the caller had them.
_KEPT = ("spark.jobGroup.id", "spark.job.description", "spark.job.interruptOnCancel")


@contextlib.contextmanager
def _tracked(df: DataFrame, progress: bool | None, what: str) -> Iterator[None]:
    """A bar of the Spark tasks done by the jobs this thread starts in the block.

    The jobs run in a job group of their own; a daemon thread polls the status tracker for
    that group's stages and stops when the block ends, the jobs done or failed. The caller's
    job group comes back afterwards.
    """
    with progress_bar(progress, None, f"Spark {what}", "tasks") as bar:
        context = getattr(df.sparkSession, "sparkContext", None) if bar.shown else None
        if context is None:      # silent, or Spark Connect (no SparkContext on the client)
            yield
            return
        kept = [context.getLocalProperty(key) for key in _KEPT]
        group = f"rankwise-{uuid.uuid4().hex}"
        context.setJobGroup(group, f"rankwise {what}")
        done = threading.Event()
        poller = threading.Thread(target=_poll, args=(context.statusTracker(), group, bar, done),
                                  name="rankwise-spark-progress", daemon=True)
        poller.start()
        try:
            yield
        finally:
            done.set()
            poller.join()
            for key, value in zip(_KEPT, kept, strict=True):
                context.setLocalProperty(key, value)


def _poll(tracker: Any, group: str, bar: Bar, done: threading.Event) -> None:
    """Count the group's completed tasks on ``bar`` until ``done``, then once more."""
    counted = 0
    while True:
        last = done.wait(_POLL)
        tasks = 0
        for job in tracker.getJobIdsForGroup(group):
            info = tracker.getJobInfo(job)
            for stage in info.stageIds if info is not None else ():
                stage_info = tracker.getStageInfo(stage)
                tasks += 0 if stage_info is None else stage_info.numCompletedTasks
        if tasks > counted:
            bar.update(tasks - counted)
            counted = tasks
        if last:
            return


class SparkResults(EvaluateResults):
    """The results of :func:`evaluate`: per-query values on Spark, their means on the driver.

    Nothing runs until asked: :meth:`mean` runs one job (and, for ERR or graded RBP without
    ``max_grade``, one aggregation for the largest label first), :meth:`collect` one job,
    and :attr:`per_query` is a lazy DataFrame. Both keep what they brought back: after
    :meth:`collect`, :meth:`mean` reads the collected values.

    ``rw.compare``, ``rw.mann_whitney`` and ``rw.compare_systems`` take a SparkResults as
    the Results :meth:`collect` gives (``__rankwise_results__``).
    """

    def __init__(self, df: DataFrame, job: EvaluateJob, n_partitions: int | None,
                 progress: bool | None = None) -> None:
        super().__init__(job)
        self._df, self._n_partitions = df, n_partitions
        self._progress = progress
        self._prepared: tuple[EvaluateJob, DataFrame] | None = None
        self._qid_type = _field(df, job.names["qid"], "qid").dataType

    def _ready(self) -> tuple[EvaluateJob, DataFrame]:
        """The job with max_grade resolved, and the table with each query in one partition."""
        if self._prepared is None:
            job, df = self._job, self._df
            if job.needs_max_grade:
                row = df.agg(F.max(_column(job.names["y_true"]))).first()
                largest = None if row is None else row[0]
                job = job.with_max_grade(0.0 if largest is None else float(largest))
            columns = [_column(name) for name in dict.fromkeys(name for _, name in job.columns)]
            if job.stable:  # the rows' order, which the shuffle loses, as a column
                columns.append(F.monotonically_increasing_id().alias(_ROW))
            self._prepared = job, _by_query(df.select(*columns), job.names["qid"], self._n_partitions)
        return self._prepared

    @property
    def per_query(self) -> DataFrame:
        """A lazy DataFrame: the qid column, then one double column per metric, one row per query."""
        job, df = self._ready()
        schema = T.StructType([T.StructField(job.names["qid"], self._qid_type),
                               *(T.StructField(name, T.DoubleType()) for name in job.metrics)])
        return df.mapInArrow(partial(_per_query_batches, job), schema)

    def _combined(self, want: str) -> Any:
        with _tracked(self._df, self._progress, "evaluate"):
            job, df = self._ready()
            rows = df.mapInArrow(partial(_evaluate_outcomes, job, want), _OUTCOME).collect()
        return combine(job, [row.outcome for row in rows], partial(_locate, self._df, job), want)

    def collect(self) -> Results:
        """Every query's values, as :func:`rankwise.evaluate` on the collected columns gives them."""
        return self._all_results()

    def __repr__(self) -> str:
        return f"SparkResults({', '.join(self.metrics)}; ties={self._job.settings['ties']!r})"


def evaluate(df: DataFrame, metrics: str | Iterable[str], *, qid: str, y_true: str, y_score: str,
             doc_ids: str | None = None, ties: str = "expected", relevance_level: float = 1,
             gain: str = "linear", max_grade: float | None = None, empty: str = "zero", nan: str = "raise",
             log_base: float = 2,
             n_partitions: int | None = None, progress: bool | None = None) -> SparkResults:
    """:func:`rankwise.evaluate` over the rows of a Spark DataFrame, one row per (query, item).

    Parameters
    ----------
    df : pyspark.sql.DataFrame
    metrics : str or iterable of str
        As in :func:`rankwise.evaluate`.
    qid, y_true, y_score : str
        Column names: query ids (any atomic type), relevance labels and scores (numbers).
    doc_ids : str, optional
        Column of document ids (strings or integers), for ``ties="trec"``.
    ties, relevance_level, gain, max_grade, empty, nan, log_base
        As in :func:`rankwise.evaluate`. ``ties="stable"`` follows the DataFrame's row
        order (that of ``df.collect()``). ERR and graded RBP without ``max_grade`` take
        the largest label of the DataFrame, found by one aggregation.
    n_partitions : int, optional
        Partitions of the shuffle by query id (default: ``spark.sql.shuffle.partitions``).
        A DataFrame already hash-partitioned by ``qid`` alone (into ``n_partitions``, when
        given) is not shuffled again.
    progress : bool or None
        A progress bar on stderr of the Spark tasks done while :meth:`SparkResults.mean` or
        :meth:`SparkResults.collect` runs its job (a thread polls Spark's status tracker for
        the job's group). None (default): shown when stderr is a terminal and tqdm is
        installed, unless the environment sets ``RANKWISE_PROGRESS=0``; False: never; True:
        always (ImportError without tqdm: ``pip install "rankwise[progress]"``).

    Returns
    -------
    SparkResults
        ``.mean()``, ``.collect()`` (a :class:`rankwise.Results`), ``.per_query`` (a Spark
        DataFrame). Per-query values, means and errors equal those of
        :func:`rankwise.evaluate` on the collected columns, bit for bit.

    Raises
    ------
    ValueError, TypeError
        On the driver before any job: an unknown metric or option, a missing column (named,
        with the columns there are), a column of the wrong type. On :meth:`~SparkResults.mean`
        or :meth:`~SparkResults.collect`: :func:`rankwise.evaluate`'s error for bad data.

    Examples
    --------
    >>> import rankwise.spark as rws                                          # doctest: +SKIP
    >>> df = spark.createDataFrame([("q1", 1, 0.9), ("q1", 0, 0.8), ("q2", 1, 0.3)],
    ...                            "qid string, label int, score double")     # doctest: +SKIP
    >>> res = rws.evaluate(df, ["MRR", "P@1"], qid="qid", y_true="label",
    ...                    y_score="score")                                    # doctest: +SKIP
    >>> res.mean()                                                             # doctest: +SKIP
    {'MRR': 1.0, 'P@1': 1.0}
    """
    job = evaluate_job(metrics, qid=qid, y_true=y_true, y_score=y_score, doc_ids=doc_ids, ties=ties,
                       relevance_level=relevance_level, gain=gain, max_grade=max_grade, empty=empty, nan=nan,
                       log_base=log_base)
    _check_evaluate_schema(df, job)
    return SparkResults(df, job, _check_n_partitions(n_partitions), check_progress(progress))


def _check_trec_schema(qrels_df: DataFrame, run_df: DataFrame, job: TrecJob) -> None:
    for what, df, value in (("qrels_df", qrels_df, job.relevance), ("run_df", run_df, job.score)):
        if not isinstance(df, DataFrame):
            raise TypeError(f"{what} must be a Spark DataFrame, got {type(df).__name__}")
        for role, name in (("query", job.query), ("doc", job.doc)):
            _check_type(_field(df, name, f"{what}: {role}"), (T.StringType, *_INTEGRAL),
                        f"{what}: {role} ids must be strings or integers")
        role = "relevance" if df is qrels_df else "score"
        _check_type(_field(df, value, f"{what}: {role}"), _NUMBERS, f"{what}: {role} must be numbers")


def _both_sides(qrels_df: DataFrame, run_df: DataFrame, job: TrecJob, n_partitions: int | None) -> DataFrame:
    """Judgements and retrieved documents in one table (a side column tells them apart),
    every row of a query in one partition. Ids of an integer type on one side and a string
    type on the other are compared as their text, as trec_eval does."""
    ids = []
    for name in (job.query, job.doc):
        types = {type(df.schema[name].dataType) for df in (qrels_df, run_df)}
        ids.append(_column(name).cast("string").alias(name) if T.StringType in types and len(types) > 1
                   else _column(name))
    sides = [df.select(F.lit(side).cast("byte").alias(_SIDE), *ids,
                       _column(value).cast("double").alias(_VALUE))
             for side, (df, value) in enumerate(((qrels_df, job.relevance), (run_df, job.score)))]
    both = sides[0].unionByName(sides[1])
    query = _column(job.query)
    return both.repartition(n_partitions, query) if n_partitions else both.repartition(query)


def _trec_tables(job: TrecJob, table: Any) -> tuple[Any, Any]:
    """One partition's qrels and run, each a table of its user-named columns."""
    tables = []
    for side, value in enumerate((job.relevance, job.score)):
        rows = table.filter(pc.equal(table.column(_SIDE), side)).select([job.query, job.doc, _VALUE])
        tables.append(rows.rename_columns([job.query, job.doc, value]))
    return tables[0], tables[1]


def _trec_outcomes(job: TrecJob, batches: Iterator[Any]) -> Iterator[Any]:
    """mapInArrow: trec_eval of one partition's queries (TrecResults or error), pickled."""
    table = _table(batches)
    if table is not None:
        yield _outcome_batch(trec_outcome(job, *_trec_tables(job, table)))


def _trec_per_query(job: TrecJob, batches: Iterator[Any]) -> Iterator[Any]:
    """mapInArrow: one partition's per-query measures (query id, then one column per measure)."""
    table = _table(batches)
    if table is None:
        return
    part = trec_partition(job, *_trec_tables(job, table))
    if part.n_queries:
        arrays = [pa.array(part.query_ids, type=table.schema.field(job.query).type),
                  *(pa.array(part[name], pa.float64()) for name in job.names)]
        yield pa.RecordBatch.from_arrays(arrays, names=[job.query, *job.names])


class SparkTrecResults:
    """The results of :func:`trec_eval`: per-query measures on Spark, trec_eval's summary on the driver.

    :meth:`mean` and :meth:`collect` run one job (and share it); :attr:`per_query` is lazy.
    """

    def __init__(self, both: DataFrame, job: TrecJob, progress: bool | None = None) -> None:
        self._both, self._job = both, job
        self._results: TrecResults | None = None
        self._progress = progress

    @property
    def names(self) -> tuple[str, ...]:
        """The measures with per-query values, as trec_eval prints them, in its order."""
        return self._job.names

    @property
    def per_query(self) -> DataFrame:
        """A lazy DataFrame: the query id column, then one double column per measure."""
        job = self._job
        schema = T.StructType([T.StructField(job.query, self._both.schema[job.query].dataType),
                               *(T.StructField(name, T.DoubleType()) for name in job.names)])
        return self._both.mapInArrow(partial(_trec_per_query, job), schema)

    def collect(self) -> TrecResults:
        """The :class:`rankwise.TrecResults` of :func:`rankwise.trec_eval` on the collected tables."""
        if self._results is None:
            with _tracked(self._both, self._progress, "trec_eval"):
                rows = self._both.mapInArrow(partial(_trec_outcomes, self._job), _OUTCOME).collect()
            self._results = combine_trec(row.outcome for row in rows)
        return self._results

    def mean(self) -> dict[str, float]:
        """trec_eval's summary (its ``all`` line): each query's value added in trec_eval's order."""
        return self.collect().mean()

    def __rankwise_results__(self) -> TrecResults:
        return self.collect()

    def _repr_html_(self) -> str:
        """trec_eval's summary for notebooks, if :meth:`collect` brought it back; never runs a job."""
        means = None if self._results is None else self._results.mean()
        return known_means_html(repr(self), self.names, means)

    def __repr__(self) -> str:
        return f"SparkTrecResults({', '.join(self.names)})"


def trec_eval(qrels_df: DataFrame, run_df: DataFrame, measures: str | Iterable[str] = ("official",), *,
              query: str = "query_id", doc: str = "doc_id", score: str = "score",
              relevance: str = "relevance", complete: bool = False, relevance_level: float = 1,
              depth: int | None = None, ties: str = "trec", name: str | None = None,
              n_partitions: int | None = None, progress: bool | None = None,
              judged_only: bool = False) -> SparkTrecResults:
    """:func:`rankwise.trec_eval` of a run against qrels, both Spark DataFrames, with trec_eval's semantics.

    Judged documents that were never retrieved count (R includes them): judgements and
    retrieved documents are shuffled together by query id, and each partition is
    evaluated by :func:`rankwise.trec_eval` on its Arrow columns.

    Parameters
    ----------
    qrels_df, run_df : pyspark.sql.DataFrame
        One row per judgement (``query``, ``doc``, ``relevance``) and per retrieved
        document (``query``, ``doc``, ``score``); ids are strings or integers.
    measures, complete, relevance_level, depth, ties, judged_only
        As in :func:`rankwise.trec_eval`.
    query, doc, score, relevance : str
        Column names.
    name : str, optional
        The run's name (trec_eval's ``runid``); default ``"rankwise"``.
    n_partitions : int, optional
        Partitions of the shuffle by query id (default: ``spark.sql.shuffle.partitions``).
    progress : bool or None
        A progress bar on stderr of the Spark tasks done while :meth:`SparkTrecResults.collect`
        (or ``mean``) runs its job, as :func:`evaluate` shows it.

    Returns
    -------
    SparkTrecResults
        ``.mean()`` equals ``rw.trec_eval(...).mean()`` on the collected tables digit for
        digit (the per-query values are brought to the driver and summed in trec_eval's
        query order, as trec_eval does); ``.collect()`` gives the
        :class:`rankwise.TrecResults`; ``.per_query`` is a lazy Spark DataFrame.

    Examples
    --------
    >>> import rankwise.spark as rws                                             # doctest: +SKIP
    >>> res = rws.trec_eval(qrels_df, run_df, ["map", "ndcg_cut.10"])            # doctest: +SKIP
    >>> print(res.collect().format())                                            # doctest: +SKIP
    """
    job = trec_job(measures, query=query, doc=doc, relevance=relevance, score=score, name=name,
                   complete=complete, relevance_level=relevance_level, depth=depth, ties=ties,
                   judged_only=judged_only)
    _check_trec_schema(qrels_df, run_df, job)
    progress = check_progress(progress)
    both = _both_sides(qrels_df, run_df, job, _check_n_partitions(n_partitions))
    return SparkTrecResults(both, job, progress)
