"""What the engine adapters (:mod:`rankwise.spark`, :mod:`rankwise.dask`) share.

An engine brings every row of a query into one partition (a shuffle by query id), hands
each partition's columns, as NumPy arrays, to one call here, and sends back what that call
returns; the driver combines the partitions' outcomes. Nothing here imports an engine or
pyarrow, and nothing runs a Python call per query.

* :class:`EvaluateJob` (from :func:`evaluate_job`, on the driver): metric names, options
  and column names, checked as :func:`rankwise.evaluate` checks them, before any job.
* :func:`evaluate_partition` -> an :class:`rankwise.Accumulator` of one partition (one
  thread: the engine already runs a task per core); :func:`per_query_rows` its per-query
  columns (query ids, then one float64 array per metric, in the order asked).
* :func:`partition_outcome` -> bytes: the pickled mean state (an ``ExactSum``) or
  Accumulator of one partition, or the error its rows raise, so that a job never fails on
  bad data; :func:`combine` merges them on the driver into means or a Results equal to
  :func:`rankwise.evaluate` on all rows, or raises the error :func:`rankwise.evaluate`
  raises.
* The same for :func:`rankwise.trec_eval`: :func:`trec_job`, :func:`trec_partition`,
  :func:`trec_outcome`, :func:`combine_trec`.

Errors found in the data are raised as :func:`rankwise.evaluate` raises them: of the
partitions' errors the one it checks first (labels, then ids and documents, then NaN
scores, then queries without a relevant item), and for a bad label or a NaN score the
position of the first in the whole table, for a document twice in a query (ties="trec")
the query evaluate names (of the partitions' queries holding one, the smallest id) and the
positions of its two rows in the whole table; the engine finds those positions with
``locate`` (a pass over its input in its own row order, made only then).
"""
from __future__ import annotations

import pickle
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ._core._enums import Metric
from ._core.exact import ExactSum
from ._core.names import metric_names
from ._core.results import Results, html_table
from ._core.validation import bad_label_message, nan_scores_message, repeated_document
from .lists import Accumulator, evaluate
from .lists.names import parse_metric
from .trec import Qrels, Run, TrecResults, trec_eval
from .trec.evaluation import trec_eval_part

__all__ = ["DUPLICATES", "LABELS", "NAN", "EvaluateJob", "EvaluateResults", "TrecJob", "combine",
           "combine_trec", "evaluate_job", "evaluate_partition", "first_in_table", "first_invalid",
           "known_means_html", "partition_outcome", "per_query_rows", "rows_in_table", "text_values",
           "trec_job", "trec_outcome", "trec_partition"]

# The stages of evaluate's checks, in its order: the error of the earliest stage is raised.
# _OTHER's errors are query ids' (which evaluate checks before documents) and the rarer
# ones evaluate finds after the documents (labels whose gains could overflow).
_NULLS, _LABELS, _OTHER, _DUPLICATES, _NAN, _EMPTY = range(6)
# What locate looks for: the first bad label, the first NaN score, the rows of one query.
LABELS, NAN, DUPLICATES = "labels", "nan", "duplicates"


@dataclass(frozen=True)
class EvaluateJob:
    """One :func:`rankwise.evaluate` call over an engine's table: what every partition runs.

    ``columns`` maps the arguments ``qid``, ``y_true``, ``y_score`` (and ``doc_ids`` when
    given) to the table's column names; ``options`` are evaluate's. Picklable.
    """

    metrics: tuple[str, ...]
    columns: tuple[tuple[str, str], ...]
    options: tuple[tuple[str, Any], ...]

    @property
    def names(self) -> dict[str, str]:
        """Column name of each argument given (``{"qid": "query", ...}``)."""
        return dict(self.columns)

    @property
    def settings(self) -> dict[str, Any]:
        return dict(self.options)

    @property
    def stable(self) -> bool:
        """Whether the rows' order matters (ties="stable"): the engine must keep it through its shuffle."""
        return self.settings["ties"] == "stable"

    @property
    def needs_max_grade(self) -> bool:
        """ERR or graded RBP without max_grade: evaluate's default, the largest label of all
        rows, must be found by the engine (one aggregation) and set with :meth:`with_max_grade`."""
        return self.settings["max_grade"] is None and any(_graded(name) for name in self.metrics)

    def with_max_grade(self, largest_label: float) -> EvaluateJob:
        """This job with max_grade resolved as evaluate resolves it from the table's largest
        label (any placeholder when that is not finite: the partitions raise the label error)."""
        grade = float(largest_label) if np.isfinite(largest_label) and largest_label > 0 else 1.0
        return replace(self, options=tuple({**self.settings, "max_grade": grade}.items()))

    def accumulator(self, **changes: Any) -> Accumulator:
        """An empty Accumulator of the job on one thread; empty="error" is applied by :func:`combine`."""
        options = {**self.settings, "n_threads": 1, **changes}
        if options["empty"] == "error":
            options["empty"] = "zero"
        if self.needs_max_grade:
            options["max_grade"] = 1.0  # a placeholder until the engine sets the largest label
        return Accumulator(self.metrics, **options)


class EvaluateResults:
    """What the adapters' results of :func:`rankwise.evaluate` share: the job's metric names,
    and its means and Results, each computed once by the engine's ``_combined(want)`` (one
    job: ``want="mean"`` brings back the partitions' sums, ``"results"`` their per-query
    values). Once the Results are there, the means are theirs (the same digits)."""

    def __init__(self, job: EvaluateJob) -> None:
        self._job = job
        self._means: dict[str, float] | None = None
        self._results: Results | None = None

    @property
    def metrics(self) -> tuple[str, ...]:
        """The metric names, as asked."""
        return self._job.metrics

    def _combined(self, want: str) -> Any:
        raise NotImplementedError

    def mean(self) -> dict[str, float]:
        """Each metric's mean over queries, in the order asked: :func:`rankwise.evaluate`'s
        ``mean()`` on the same rows, digit for digit."""
        if self._results is not None:
            return self._results.mean()
        if self._means is None:
            self._means = self._combined("mean")
        return dict(self._means)

    def _all_results(self) -> Results:
        if self._results is None:
            self._results = self._combined("results")
        return self._results

    def __rankwise_results__(self) -> Results:
        return self._all_results()

    def _repr_html_(self) -> str:
        """The means for notebooks, if a job brought them back; never runs one."""
        known = self._results.mean() if self._results is not None else self._means
        return known_means_html(repr(self), self.metrics, known)


def known_means_html(title: str, names: Sequence[str], means: Mapping[str, float] | None) -> str:
    """An engine's results in a notebook: the means if known, else the names and how to get them.

    Showing an object in a notebook must not start a job, which a cluster may take minutes over.
    """
    if means is None:
        return html_table(["metric", "mean"], [[name, "not computed yet"] for name in names],
                          before=[title], after=["mean() runs the job once and keeps its result"])
    return html_table(["metric", "mean"], [[name, f"{value:.4f}"] for name, value in means.items()],
                      before=[title])


def _graded(name: str) -> bool:
    spec = parse_metric(name)
    return spec.kind == Metric.ERR or (spec.kind == Metric.RBP and spec.graded)


def evaluate_job(metrics: str | Iterable[str], *, qid: str, y_true: str, y_score: str, doc_ids: str | None,
                 **options: Any) -> EvaluateJob:
    """The job of one evaluate call, checked as :func:`rankwise.evaluate` checks the same
    arguments (unknown metric names, bad options, ``ties="trec"`` without ``doc_ids``),
    with its errors; column names must be strings."""
    names = tuple(metric_names(metrics))
    columns = {"qid": qid, "y_true": y_true, "y_score": y_score, "doc_ids": doc_ids}
    for role, column in columns.items():
        if not isinstance(column, str) and not (role == "doc_ids" and column is None):
            raise TypeError(f"{role} must be a column name (str), got {type(column).__name__} {column!r}")
    given = tuple((role, column) for role, column in columns.items() if column is not None)
    job = EvaluateJob(names, given, tuple(options.items()))
    # Everything evaluate checks that depends on no data: the names and options, then one
    # made-up row for what only an update meets (ties="trec" without doc_ids).
    probe = job.accumulator()
    probe.update(np.zeros(1), np.zeros(1), qid=np.zeros(1), doc_ids=None if doc_ids is None else np.zeros(1))
    return job


def evaluate_partition(job: EvaluateJob, columns: Mapping[str, np.ndarray],
                       order: np.ndarray | None = None, **changes: Any) -> Accumulator:
    """The Accumulator of one partition's rows: every row of each of its queries.

    ``columns`` maps the job's column names to equal-length arrays; ``order`` (ties="stable")
    is each row's position in the table's order, which the engine's shuffle lost.
    """
    arrays = {role: columns[name] for role, name in job.columns}
    if order is not None:
        rows = np.argsort(order, kind="stable")
        arrays = {role: values[rows] for role, values in arrays.items()}
    acc = job.accumulator(**changes)
    if arrays["qid"].shape[0]:
        acc.update(arrays["y_true"], arrays["y_score"], qid=arrays["qid"], doc_ids=arrays.get("doc_ids"))
    return acc


def per_query_rows(job: EvaluateJob, columns: Mapping[str, np.ndarray],
                   order: np.ndarray | None = None) -> tuple[np.ndarray, list[np.ndarray]]:
    """One partition's per-query table: sorted query ids, then one float64 column per metric.

    Raises what :func:`rankwise.evaluate` raises for these rows alone.
    """
    results = evaluate_partition(job, columns, order).result()
    if job.settings["empty"] == "error":
        _raise_empty(job, results.query_ids[results.n_relevant == 0])
    return results.query_ids, [np.asarray(results[name], dtype=np.float64) for name in job.metrics]


@dataclass
class _Outcome:
    """What one partition sends the driver: a state, or the stage of evaluate's checks its
    rows fail (and the error, unless the driver words it from the whole table)."""

    state: Any = None
    failed: int | None = None
    error: BaseException | None = None
    empty_ids: np.ndarray | None = None
    query: Any = None  # of a document twice (failed == _DUPLICATES)


def partition_outcome(job: EvaluateJob, columns: Mapping[str, np.ndarray], order: np.ndarray | None = None,
                      *, nulls: Sequence[str] = (), want: str = "mean") -> bytes:
    """One partition's outcome, pickled: its mean state (``want="mean"``: the ExactSum of its
    per-query values, one column per metric) or its Accumulator (``want="results"``), or
    the error its rows raise. ``nulls`` names the columns holding missing values (the
    engine knows them from its own format)."""
    outcome = _outcome(job, columns, order, nulls, want)
    return pickle.dumps(outcome, protocol=pickle.HIGHEST_PROTOCOL)


def _outcome(job: EvaluateJob, columns: Mapping[str, np.ndarray], order: np.ndarray | None,
             nulls: Sequence[str], want: str) -> _Outcome:
    names = job.names
    if nulls:
        role = next(role for role, name in job.columns if name in nulls)
        error = ValueError(f"{role} column {names[role]!r} holds missing values (nulls); rankwise takes "
                           "none: drop or fill them first")
        return _Outcome(failed=_NULLS, error=error)
    if first_invalid(LABELS, columns[names["y_true"]]) is not None:
        return _Outcome(failed=_LABELS)
    nan = job.settings["nan"] == "raise" and first_invalid(NAN, columns[names["y_score"]]) is not None
    try:
        # NaN scores are found last by evaluate: the rows' other errors come first.
        acc = evaluate_partition(job, columns, order, **({"nan": "last"} if nan else {}))
    except (ValueError, TypeError) as error:
        query = _repeated_query(job, columns)
        if query is not None:
            return _Outcome(failed=_DUPLICATES, query=query)
        return _Outcome(failed=_OTHER, error=error)
    if nan:
        return _Outcome(failed=_NAN)
    results = acc.result()
    empty = results.query_ids[results.n_relevant == 0] if job.settings["empty"] == "error" else None
    if want == "results":
        return _Outcome(state=acc, empty_ids=empty)
    values = np.column_stack([results[name] for name in job.metrics]) if len(results.query_ids) else None
    return _Outcome(state=ExactSum.of(values) if values is not None else None, empty_ids=empty)


def _repeated_query(job: EvaluateJob, columns: Mapping[str, np.ndarray]) -> Any:
    """The query whose document given twice failed these rows' evaluation, or None (another
    error: a document twice is evaluate's error only when its query ids pass their checks)."""
    if job.settings["ties"] != "trec":
        return None
    names = job.names
    try:
        found = repeated_document(columns[names["qid"]], columns[names["doc_ids"]])
    except (ValueError, TypeError):
        return None
    return None if found is None else found[0]


def text_values(column: Any) -> np.ndarray:
    """An Arrow string column without nulls (a pyarrow Array or ChunkedArray, as the engine
    holds it) as a fixed-width unicode array, as ``np.asarray`` makes of the same ``str``.

    Gathered from the column's distinct values: sorting and comparing those (grouping rows
    by query id, ordering document ids) then runs in C, where an array of ``str`` objects
    compares them one Python call at a time (several times slower).
    """
    if hasattr(column, "combine_chunks"):
        column = column.combine_chunks()
    encoded = column.dictionary_encode()
    distinct = np.array(encoded.dictionary.to_pylist(), dtype=str)
    return distinct[encoded.indices.to_numpy(zero_copy_only=False)]


def first_invalid(kind: str, values: np.ndarray) -> int | None:
    """Position of the first bad label (``kind=LABELS``: negative, NaN or infinite) or NaN
    score (``kind=NAN``) in ``values``, or None."""
    if values.dtype.kind == "b" or values.dtype.kind not in "iuf":
        return None
    if kind == LABELS:
        bad = values < 0 if values.dtype.kind in "iu" else ~(np.isfinite(values) & (values >= 0))
    else:
        if values.dtype.kind != "f":
            return None
        bad = np.isnan(values)
    found = np.flatnonzero(bad)
    return int(found[0]) if found.size else None


def first_in_table(parts: Iterable[tuple[int, int | None, Any]], name: str) -> tuple[int, Any]:
    """The position in the whole table, and the value, of the first bad value that the
    partitions (``(row count, position of their first bad value or None, that value)``, in
    the table's order of partitions) report: what an engine's ``locate`` returns."""
    before = 0
    for n_rows, at, value in parts:
        if at is not None:
            return before + at, value
        before += n_rows
    raise RuntimeError(f"the table changed between two passes: no bad value in column {name!r} now")


def rows_in_table(parts: Iterable[tuple[int, np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    """The positions in the whole table, and the document ids, of one query's rows that the
    partitions (``(row count, positions of its rows there, their document ids)``, in the
    table's order of partitions) report: what an engine's ``locate(DUPLICATES, query)`` returns."""
    positions, docs, before = [], [], 0
    for n_rows, at, found in parts:
        positions.append(before + at)
        docs.append(found)
        before += n_rows
    return np.concatenate(positions), np.concatenate(docs)


def combine(job: EvaluateJob, outcomes: Iterable[bytes], locate: Callable[..., tuple[Any, Any]],
            want: str = "mean") -> dict[str, float] | Results:
    """The partitions' outcomes (in partition order) merged: the means (``want="mean"``) or
    Results of all rows, equal to :func:`rankwise.evaluate`'s.

    ``locate(kind)`` gives the position in the whole table (in the engine's row order) and
    the value of the first bad label (``LABELS``) or NaN score (``NAN``);
    ``locate(DUPLICATES, query)`` the positions (int64) and document ids of the rows of
    query id ``query``, in the table's order. It is called only to word those errors.
    """
    parts = [pickle.loads(outcome) for outcome in outcomes]
    failed = [(part.failed, i) for i, part in enumerate(parts) if part.failed is not None]
    if failed:
        stage, i = min(failed)
        if stage == _LABELS:
            position, value = locate(LABELS)
            raise ValueError(bad_label_message(value, f"position {position}"))
        if stage == _NAN:
            raise ValueError(nan_scores_message("y_score", f"position {locate(NAN)[0]}"))
        if stage == _DUPLICATES:
            _raise_repeated(min(part.query for part in parts if part.failed == _DUPLICATES), locate)
        raise parts[i].error
    empty = [part.empty_ids for part in parts if part.empty_ids is not None and part.empty_ids.size]
    if empty:
        _raise_empty(job, np.concatenate(empty))
    states = [part.state for part in parts if part.state is not None]
    if want == "results":
        acc = job.accumulator()
        for state in states:
            acc.merge(state)
        return acc.result()
    total = ExactSum(len(job.metrics))
    for state in states:
        total.merge(state)
    return dict(zip(job.metrics, total.means(), strict=True))


def _raise_repeated(query: Any, locate: Callable[..., tuple[Any, Any]]) -> None:
    """evaluate's error for the document given twice in ``query`` (the smallest id holding
    one), its rows numbered by their positions in the table."""
    positions, docs = locate(DUPLICATES, query)
    found = repeated_document(np.full(positions.shape[0], query), docs, positions)
    if found is None:
        raise RuntimeError(f"the table changed between two passes: query {query!r} holds no document "
                           "twice now")
    raise ValueError(found[1])


def _raise_empty(job: EvaluateJob, ids: np.ndarray) -> None:
    """evaluate's error for queries without a relevant item, over all of them: evaluate
    itself, on one made-up non-relevant row per query, words it."""
    if ids.size:
        zeros = np.zeros(ids.shape[0])
        evaluate(zeros, zeros, job.metrics, qid=ids, **job.settings)


@dataclass(frozen=True)
class TrecJob:
    """One :func:`rankwise.trec_eval` call over an engine's tables. Picklable.

    ``columns``: the query, document, relevance (qrels) and score (run) column names;
    ``names``: the measures of the per-query table, in trec_eval's order.
    """

    measures: tuple[str, ...]
    query: str
    doc: str
    relevance: str
    score: str
    run_name: str | None
    options: tuple[tuple[str, Any], ...]
    names: tuple[str, ...]


def trec_job(measures: str | Iterable[str], *, query: str, doc: str, relevance: str, score: str,
             name: str | None, **options: Any) -> TrecJob:
    """The job of one trec_eval call, checked by :func:`rankwise.trec_eval` itself on one
    made-up judgement and document: its errors for measure names and options."""
    for role, column in (("query", query), ("doc", doc), ("relevance", relevance), ("score", score)):
        if not isinstance(column, str):
            raise TypeError(f"{role} must be a column name (str), got {type(column).__name__} {column!r}")
    wanted = (measures,) if isinstance(measures, str) else tuple(measures)
    probe = trec_eval(Qrels.from_dict({"q": {"d": 1}}), Run.from_dict({"q": {"d": 1.0}}, name=name), wanted,
                      n_threads=1, **options)
    return TrecJob(wanted, query, doc, relevance, score, name, tuple(options.items()), probe.names)


def trec_partition(job: TrecJob, qrels: Any, run: Any) -> TrecResults:
    """trec_eval of one partition: ``qrels`` and ``run`` are Arrow tables (anything
    :meth:`rankwise.Qrels.from_arrow` takes) of every judgement and retrieved document of
    the partition's queries; a partition with no query to evaluate gives no rows."""
    qrels_part = Qrels.from_arrow(qrels, job.query, job.doc, job.relevance)
    run_part = Run.from_arrow(run, job.query, job.doc, job.score, name=job.run_name)
    return trec_eval_part(qrels_part, run_part, job.measures, n_threads=1, **dict(job.options))


def trec_outcome(job: TrecJob, qrels: Any, run: Any) -> bytes:
    """:func:`trec_partition`'s TrecResults, or the error it raises, pickled."""
    try:
        outcome = _Outcome(state=trec_partition(job, qrels, run))
    except (ValueError, TypeError) as error:
        outcome = _Outcome(failed=_OTHER, error=error)
    return pickle.dumps(outcome, protocol=pickle.HIGHEST_PROTOCOL)


def combine_trec(outcomes: Iterable[bytes]) -> TrecResults:
    """The partitions' TrecResults as one, equal to :func:`rankwise.trec_eval` on all rows
    (its summary summed in its query order); or the first partition's error."""
    parts = [pickle.loads(outcome) for outcome in outcomes]
    for part in parts:
        if part.error is not None:
            raise part.error
    return TrecResults.concat(part.state for part in parts)
