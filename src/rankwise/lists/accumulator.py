"""Accumulator: evaluate() over queries that arrive in pieces (partitions, files, workers), mergeable.

The engine adapters build on it: each partition updates an Accumulator with its whole
queries, and the driver merges them. It holds per-query values, ids and relevant counts
only (never items). Values stay in the blocks they came in; the ids are kept in sorted
runs, each id with its row among the blocks: a new run is checked against the O(log n)
runs held with a binary search each, and runs of similar size are merged, so that a query
id held twice is found at once with no pass over every id held, and the values are sorted
by id once, by result().
"""
from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from .._core._enums import Metric
from .._core.exact import ExactSum
from .._core.names import metric_names
from .._core.results import Results
from .._core.validation import check_max_grade
from .evaluation import (
    Options,
    apply_empty,
    check_definitions,
    compute_values,
    dcg_gains,
    gains_bounded,
    make_results,
    unique_specs,
)
from .names import parse_metric

__all__ = ["Accumulator"]

_DEFAULTS = {"ties": "expected", "relevance_level": 1, "gain": "linear", "max_grade": None, "empty": "zero",
             "nan": "raise", "n_threads": None, "log_base": 2}
_KINDS = {"b": "booleans", "i": "integers", "u": "integers", "f": "floats", "c": "complex numbers",
          "U": "strings", "S": "bytes", "M": "datetimes", "m": "timedeltas"}
_INT64_MAX = int(np.iinfo(np.int64).max)
_POSITIONS = ("; queries given by indptr= or 2-D arrays are numbered by position, after the queries "
              "already held, so such numbers repeat across accumulators: pass qid= to name the queries")


class _Run(NamedTuple):
    """Query ids, sorted (each once), and the row of each among the blocks of values held."""

    ids: np.ndarray
    rows: np.ndarray


class _Block(NamedTuple):
    """Per-query values (a row each, a column per distinct metric) and relevant counts."""

    values: np.ndarray
    n_relevant: np.ndarray


def _id_kind(ids: np.ndarray) -> str:
    """What a non-empty array of query ids holds, for the error on ids of two kinds."""
    if ids.dtype.kind != "O":
        return _KINDS.get(ids.dtype.kind, str(ids.dtype))
    first = ids[0]
    for kind, types in (("booleans", (bool, np.bool_)), ("integers", (int, np.integer)),
                        ("floats", (float, np.floating)), ("strings", str), ("bytes", bytes)):
        if isinstance(first, types):
            return kind
    return "objects"


def _joint_dtype(arrays: Sequence[np.ndarray]) -> np.dtype:
    """The dtype of ``arrays`` (each sorted and non-empty, ids of one kind) joined: NumPy's,
    but for signed with unsigned 64-bit integers, which NumPy joins as float64 (rounding
    ids beyond 2**53): the integer type holding them all, as ``as_array`` types a list of
    them, else objects (Python integers)."""
    dtype = np.result_type(*(a.dtype for a in arrays))
    if dtype.kind != "f" or not all(a.dtype.kind in "iu" for a in arrays):
        return dtype
    if max(int(a[-1]) for a in arrays) <= _INT64_MAX:
        return np.dtype(np.int64)
    if min(int(a[0]) for a in arrays) >= 0:
        return np.dtype(np.uint64)
    return np.dtype(object)


def _joined(runs: Sequence[_Run]) -> _Run:
    """One run of several (ids of one dtype, none in two runs)."""
    ids = np.concatenate([run.ids for run in runs])
    # A stable sort finds the runs already sorted and merges them in linear time.
    order = np.argsort(ids, kind="stable")
    return _Run(ids[order], np.concatenate([run.rows for run in runs])[order])


def _block(blocks: Sequence[_Block], n_columns: int) -> _Block:
    """The blocks as one (their rows in order)."""
    if len(blocks) == 1:
        return blocks[0]
    if not blocks:
        return _Block(np.empty((0, n_columns)), np.empty(0, dtype=np.int64))
    return _Block(np.concatenate([b.values for b in blocks]), np.concatenate([b.n_relevant for b in blocks]))


def _compacted(runs: Iterable[_Run]) -> list[_Run]:
    """Runs, largest first, merged until each holds more than twice as many queries as the
    next: at most log2(n) + 1 runs, and a query moves into a run at least 1.5 times larger
    each time it is merged, so O(log n) times whatever the sequence of updates."""
    held = sorted(runs, key=lambda run: -run.ids.size)
    i = len(held) - 2
    while i >= 0:
        if held[i].ids.size <= 2 * held[i + 1].ids.size:
            merged = _joined([held.pop(i), held.pop(i)])
            bisect.insort(held, merged, key=lambda run: -run.ids.size)
            i = len(held) - 2
        else:
            i -= 1
    return held


def _first_duplicate(held: Sequence[_Run], ids: np.ndarray) -> Any:
    """The smallest of ``ids`` (sorted) that a run of ``held`` (of the same dtype) holds, or None."""
    found = []
    for run in held:
        at = np.minimum(np.searchsorted(run.ids, ids), run.ids.size - 1)
        hits = np.flatnonzero(run.ids[at] == ids)
        if hits.size:
            found.append(ids[hits[0]])
    return min(found) if found else None


class Accumulator:
    """:func:`rankwise.evaluate` over queries given in pieces: update with whole queries, merge, result.

    Each :meth:`update` evaluates the queries it is given, at once, and keeps only their
    values: the Accumulator's size grows with the number of queries, never with items.
    Accumulators that saw different queries (partitions of a table, files, workers)
    :meth:`merge` into one, in any order and tree. :meth:`result` is then exactly what
    ``evaluate`` gives on all the rows at once (the same values, bit for bit, the same
    sorted query ids, the same relevant counts), and :meth:`mean` its mean, which is
    exactly rounded and so independent of how the queries were split. Accumulators are
    picklable.

    Parameters
    ----------
    metrics : str or iterable of str
        Metric names, as for :func:`rankwise.evaluate`. Names and options are checked
        here, before any data, with evaluate's errors.
    ties, relevance_level, gain, empty, nan, n_threads, log_base
        As in :func:`rankwise.evaluate`.
    max_grade : float, optional
        ERR's and graded RBP's top grade g_max, as in :func:`rankwise.evaluate`; required
        when ``metrics`` holds one of them, since evaluate's default, the largest label
        of the call, is not known to an update that holds only some of the queries.

    Attributes
    ----------
    metrics : tuple of str
        The metric names, as asked.
    options : dict
        The options of :func:`rankwise.evaluate` this Accumulator applies:
        ``rw.Accumulator(acc.metrics, **acc.options)`` makes an empty one like it.
    n_queries : int
        Queries held.

    Notes
    -----
    Every query must come whole in one update: a query id given to two updates (or
    held by both accumulators of a merge) is a ValueError naming it. With ``qid=`` the
    ids are those given, all of one kind across updates (integers, floats, strings,
    ...: ids of two kinds are a TypeError); sorted as ``evaluate`` sorts them. Queries
    given by ``indptr=``, by 2-D arrays or as one 1-D list are numbered by position after
    the queries already held (the first update's 0, 1, 2, the next one's 3, 4, ...),
    which is ``evaluate`` on the updates' rows concatenated in order; accumulators fed
    so collide when merged (pass ``qid=`` for those).

    Everything of ``evaluate`` that depends on a query's own rows only is the same per
    update: the checks of the data, the tie orders (``ties="trec"`` with ``doc_ids=``
    included), the empty-query policy. What ``evaluate`` takes from all of a call's
    labels an update cannot know: ERR's and graded RBP's default ``max_grade`` (hence
    required), and the bound on labels whose gains, summed over every item, could
    overflow float64 for DCG and nDCG, which the Accumulator applies to all the labels
    held, from their largest value and count (so labels near 1e308, or beyond 2**1000
    with the exponential gain, are refused sooner than a single ``evaluate`` might).
    A failed :meth:`update` or :meth:`merge` raises and leaves the Accumulator unchanged.

    Examples
    --------
    >>> import rankwise as rw
    >>> acc = rw.Accumulator(["MRR", "P@2"])
    >>> acc.update([0, 1, 1, 0], [0.9, 0.8, 0.3, 0.1], qid=["b", "b", "a", "a"])
    Accumulator(['MRR', 'P@2'], 2 queries, ties='expected')

    Another worker evaluates query "c" (a tie at the top), and the two merge:

    >>> other = rw.Accumulator(["MRR", "P@2"]).update([1, 0], [0.2, 0.2], qid=["c", "c"])
    >>> acc.merge(other).mean()
    {'MRR': 0.75, 'P@2': 0.5}
    >>> res = acc.result()
    >>> res.query_ids, res["MRR"]
    (array(['a', 'b', 'c'], dtype='<U1'), array([1.  , 0.5 , 0.75]))
    >>> acc.update([1], [0.5], qid=["a"])
    Traceback (most recent call last):
    ...
    ValueError: query id 'a' is held already: every query must come whole in one update
    """

    def __init__(self, metrics: str | Iterable[str], *, ties: str = "expected", relevance_level: float = 1,
                 gain: str = "linear", max_grade: float | None = None, empty: str = "zero",
                 nan: str = "raise", n_threads: int | None = None, log_base: float = 2) -> None:
        self._names = tuple(metric_names(metrics))
        self._specs = [parse_metric(name) for name in self._names]
        self._options = Options.check(ties=ties, relevance_level=relevance_level, gain=gain, empty=empty,
                                      nan=nan, n_threads=n_threads, log_base=log_base)
        check_definitions(self._specs, self._names, ties)
        resolved, _, self._columns = unique_specs(self._specs, gain)
        if max_grade is not None:
            check_max_grade(max_grade, 0.0)
        graded = [name for name, spec in zip(self._names, resolved, strict=True)
                  if spec.kind == Metric.ERR or spec.kind == Metric.RBP and spec.graded]
        if graded and max_grade is None:
            raise ValueError(f"{graded[0]} needs max_grade= in an Accumulator: evaluate() takes the largest "
                             "label of its call as the top grade by default, which an update, holding some "
                             "of the queries only, cannot know; pass the top grade of the label scale")
        self._max_grade = max_grade
        self._gains = dcg_gains(resolved)
        self._n_columns = max(self._columns) + 1
        self._runs: list[_Run] = []
        self._blocks: list[_Block] = []
        self._kind: str | None = None
        self._n_queries = 0
        self._positional = False
        # Of all the labels held, for the bound on DCG sums (evaluate's _check_gains).
        self._max_label = 0.0
        self._n_labels = 0

    @property
    def metrics(self) -> tuple[str, ...]:
        return self._names

    @property
    def options(self) -> dict[str, Any]:
        o = self._options
        return {"ties": o.ties, "relevance_level": o.relevance_level, "gain": o.gain,
                "max_grade": self._max_grade, "empty": o.empty, "nan": o.nan, "n_threads": o.n_threads,
                "log_base": o.log_base}

    @property
    def n_queries(self) -> int:
        return self._n_queries

    def update(self, y_true: ArrayLike, y_score: ArrayLike, *, qid: ArrayLike | None = None,
               indptr: ArrayLike | None = None, doc_ids: ArrayLike | None = None,
               exclude: Any = None) -> Accumulator:
        """Evaluate whole queries and hold their values; returns the Accumulator.

        Parameters
        ----------
        y_true, y_score, qid, indptr, doc_ids, exclude
            As in :func:`rankwise.evaluate`, every query whole (a scipy.sparse ``y_true``
            and ``exclude`` with a 2-D ``y_score``: one user per row). Without ``qid``, the
            queries are numbered after those already held.

        Raises
        ------
        ValueError, TypeError
            evaluate's errors on the data; a query id held already; ids of another
            kind than those held. The Accumulator is then unchanged.
        """
        values, _, _, batch, n_relevant = compute_values(
            self._specs, y_true, y_score, qid=qid, indptr=indptr, doc_ids=doc_ids, options=self._options,
            max_grade=self._max_grade, exclude=exclude)
        positional = qid is None
        ids = batch.query_ids + self._n_queries if positional else batch.query_ids
        apply_empty(values, n_relevant, ids, self._options.empty, self._options.relevance_level)
        labels = (max(self._max_label, batch.max_label), self._n_labels + batch.y_true.size)
        self._check_gains(*labels)
        rows = np.arange(self._n_queries, self._n_queries + ids.size, dtype=np.int64)
        self._add([_Run(ids, rows)], [_Block(values, n_relevant)], positional, "is held already: every query "
                  "must come whole in one update")
        self._max_label, self._n_labels = labels
        return self

    def merge(self, other: Accumulator) -> Accumulator:
        """Add the queries of ``other`` (same metrics and options; ``n_threads`` aside); returns self.

        ``other`` is not changed. Queries held by both are a ValueError naming one, and
        leave this Accumulator unchanged.
        """
        if not isinstance(other, Accumulator):
            raise TypeError(f"Accumulator.merge takes an Accumulator, got {type(other).__name__}")
        if other._names != self._names:
            raise ValueError(f"cannot merge accumulators of different metrics: {list(self._names)} here, "
                             f"{list(other._names)} in the other")
        for name, mine in self.options.items():
            theirs = other.options[name]
            if name != "n_threads" and mine != theirs:
                raise ValueError(f"cannot merge accumulators with different options: {name}={mine!r} here, "
                                 f"{name}={theirs!r} in the other")
        labels = (max(self._max_label, other._max_label), self._n_labels + other._n_labels)
        self._check_gains(*labels)
        runs = [run._replace(rows=run.rows + self._n_queries) for run in other._runs]
        self._add(runs, other._blocks, other._positional, "is held by both accumulators")
        self._max_label, self._n_labels = labels
        return self

    def result(self) -> Results:
        """The per-query values of every query held, sorted by query id, as :func:`rankwise.evaluate`.

        Examples
        --------
        >>> import rankwise as rw
        >>> acc = rw.Accumulator("AP").update([[1, 0, 1]], [[0.9, 0.8, 0.7]])
        >>> acc.update([[0, 1]], [[0.5, 0.4]]).result()["AP"]
        array([0.83333333, 0.5       ])
        """
        # Joined for good: the next result() reads them as they are.
        self._blocks = [_block(self._blocks, self._n_columns)]
        if len(self._runs) > 1:
            self._runs = [_joined(self._runs)]
        ids, rows = self._runs[0] if self._runs else (np.empty(0), np.empty(0, dtype=np.int64))
        values, n_relevant = (column[rows] for column in self._blocks[0])
        o = self._options
        return make_results(self._names, values, self._columns, ids.copy(), o.ties, o.gain, n_relevant)

    def mean(self, sample_weight: Any = None, **options: Any) -> dict[str, Any]:
        """``result().mean()``: the exactly rounded mean of every metric, in the order asked.

        Exact sums do not depend on the order of the queries, so the values are summed as
        they came, unsorted. ``sample_weight`` and the confidence interval's options
        (``ci=0.95``, ...) are :meth:`rankwise.Results.mean`'s, over ``result()``'s queries
        (sorted by id).
        """
        if sample_weight is not None or options:
            return self.result().mean(sample_weight, **options)
        sums = ExactSum(len(self._names))
        for block in self._blocks:
            sums.add(block.values[:, self._columns])
        return dict(zip(self._names, sums.means(), strict=True))

    def _check_gains(self, max_label: float, n_labels: int) -> None:
        for gain in self._gains:
            if not gains_bounded(gain, max_label, n_labels):
                raise ValueError(f"the labels held would be up to {max_label:g} over {n_labels} items: with "
                                 f"gain={gain!r} their gains could sum beyond the largest float64 "
                                 "(1.8e308), so DCG sums (or their mean) could overflow to inf or NaN; "
                                 "rescale the labels")

    def _add(self, runs: Sequence[_Run], blocks: Sequence[_Block], positional: bool, held_twice: str) -> None:
        """Hold ``runs`` (ids unique across them, rows after those held) and their ``blocks``, after
        checking their ids against those held."""
        new = [run for run in runs if run.ids.size]
        if not new:
            return
        kind = _id_kind(new[0].ids)
        if self._kind is not None and kind != self._kind:
            raise TypeError(f"query ids must be of one kind: {kind} given, {self._kind} held (compared as "
                            "evaluate() compares qid values, e.g. all integers or all strings)")
        dtype = _joint_dtype([run.ids for run in (*self._runs, *new)])
        held = [run if run.ids.dtype == dtype else run._replace(ids=run.ids.astype(dtype))
                for run in self._runs]
        new = [run if run.ids.dtype == dtype else run._replace(ids=run.ids.astype(dtype)) for run in new]
        for run in new:
            repeat = _first_duplicate(held, run.ids)
            if repeat is not None:
                hint = _POSITIONS if positional or self._positional else ""
                shown = repeat.item() if isinstance(repeat, np.generic) else repeat
                raise ValueError(f"query id {shown!r} {held_twice}{hint}")
        self._runs = _compacted(held + new)
        self._blocks += [block for block in blocks if block.n_relevant.size]
        self._kind = kind
        self._n_queries += sum(run.ids.size for run in new)
        self._positional |= positional

    def __repr__(self) -> str:
        options = self.options
        shown = [f"ties={options.pop('ties')!r}"]
        shown += [f"{name}={value!r}" for name, value in options.items() if value != _DEFAULTS[name]]
        return f"Accumulator({list(self._names)!r}, {self._n_queries} queries, {', '.join(shown)})"
