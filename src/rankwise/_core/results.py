"""Results: the one per-query table of metric values, whoever computed it.

:func:`rankwise.evaluate`, :func:`rankwise.rank_metrics` (``per_query=True``) and
:func:`rankwise.trec_eval` (through its subclass ``TrecResults``) all return it.
"""
from __future__ import annotations

import html
import secrets
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from .bootstrap import (
    INTERVAL_METHODS,
    MeanInterval,
    check_fraction,
    check_n_resamples,
    check_seed,
    mean_interval,
)
from .exact import ExactSum
from .parallel import effective_n_threads
from .validation import check_choice, check_weights

__all__ = ["Results", "as_results", "html_table", "mean_over_queries"]

# The HTML table shows the first and last queries of a longer one.
_HTML_HEAD = 10
_HTML_TAIL = 5


def mean_over_queries(column: np.ndarray, weights: np.ndarray | None = None) -> float:
    """The mean of the non-NaN values: the exactly rounded sum over their count or, with
    ``weights`` (finite, >= 0), the exactly rounded sum of the products weight * value
    over the exactly rounded sum of their weights. NaN (no valid query, or no weight)
    when there is nothing to divide by.
    """
    # NaN marks queries left out (empty="skip"); no valid query gives NaN, silently.
    if weights is None:
        return ExactSum.of(column).means()[0]
    valid = ~np.isnan(column)
    total = ExactSum.of(weights[valid]).sums()[0]
    if not total > 0:
        return float("nan")
    return ExactSum.of(weights[valid] * column[valid]).sums()[0] / total


class Results:
    """Per-query metric values: one row per query, one column per metric.

    Returned by :func:`rankwise.evaluate`, :func:`rankwise.rank_metrics` with
    ``per_query=True`` and, as its subclass :class:`rankwise.TrecResults`, by
    :func:`rankwise.trec_eval`.

    ``results[name]`` is one metric's values (float64, read-only) in ``query_ids``
    order; another spelling of an asked metric finds it too (``"RR"`` for ``"MRR"``).
    ``name in results``, ``len(results)`` and iteration go over the metric names.

    Attributes
    ----------
    names : tuple of str
        Metric names, as the caller spelled them, in the order asked.
    query_ids : ndarray
        Query ids in output order: row indices for dense, ``indptr`` and rank input,
        the sorted unique ids for ``qid`` input, trec_eval's order for TREC input.
    ties : str
        The tie policy the values were computed under.
    n_relevant : ndarray of int64 or None
        Relevant items (label >= relevance_level) per query, from :func:`rankwise.evaluate`.
    weights : dict of str to ndarray
        The per-query weights of the metrics whose mean is weighted (read-only): those
        of a convention's micro average (implicit's precision, weighted by min(k, R)).

    Examples
    --------
    >>> import numpy as np, rankwise as rw
    >>> res = rw.evaluate([[0, 1, 0], [1, 0, 0]], [[0.9, 0.8, 0.1], [0.5, 0.5, 0.2]], ["MRR", "P@2"])
    >>> res.mean()
    {'MRR': 0.625, 'P@2': 0.5}
    >>> res["MRR"]
    array([0.5 , 0.75])
    >>> res.to_dict()["MRR"]
    {0: 0.5, 1: 0.75}
    """

    #: Name of the query axis: the index of :meth:`to_pandas`, the header of the HTML table.
    index_name = "query_id"
    #: Label of the row of :meth:`mean` in the HTML table.
    _summary_label = "mean"

    def __init__(self, names: Iterable[str], values: np.ndarray, query_ids: np.ndarray, ties: str, *,
                 columns: Iterable[int] | None = None, key: Callable[[Any], Hashable] | None = None,
                 n_relevant: np.ndarray | None = None, weights: Mapping[str, np.ndarray] | None = None,
                 ) -> None:
        """``values`` holds one row per query; ``columns`` gives each name's column (default:
        in order). ``key`` maps a name to a canonical form, so that every spelling of an
        asked metric finds its column; it may raise TypeError or ValueError for a name it
        does not know. ``weights`` maps names (as given) to the weights of their mean."""
        self._names = tuple(names)
        self._columns = tuple(range(len(self._names)) if columns is None else columns)
        self._key = key
        self._keys = tuple(key(name) for name in self._names) if key is not None else ()
        self._values = values
        self._values.flags.writeable = False
        self.query_ids = query_ids
        self.ties = ties
        self.n_relevant = n_relevant
        self.weights = dict(weights or {})
        for array in self.weights.values():
            array.flags.writeable = False

    @property
    def names(self) -> tuple[str, ...]:
        return self._names

    @property
    def n_queries(self) -> int:
        return self._values.shape[0]

    def _column(self, name: Any) -> int:
        if name in self._names:
            return self._columns[self._names.index(name)]
        if self._key is not None:
            try:
                key = self._key(name)
            except (TypeError, ValueError):
                key = None
            if key is not None and key in self._keys:
                return self._columns[self._keys.index(key)]
        raise KeyError(f"{name!r} was not computed; available: {', '.join(self._names)}")

    def __getitem__(self, name: str) -> np.ndarray:
        """Per-query values of one metric (float64, read-only), in ``query_ids`` order."""
        return self._values[:, self._column(name)]

    def __contains__(self, name: object) -> bool:
        try:
            self._column(name)
        except KeyError:
            return False
        return True

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def mean(self, sample_weight: Any = None, *, ci: float | None = None, n_resamples: int = 9999,
             seed: int = 0, method: str = "bca", n_threads: int | None = None) -> dict[str, Any]:
        """Mean over queries of every metric, in the order asked (``MRR``, ``MAP``, ...).

        Queries left out by ``empty="skip"`` (NaN) do not count; a metric with no
        valid query has mean NaN. The mean is the exactly rounded sum of the values
        (:func:`math.fsum`'s) divided by their count: the same digits whatever the
        order of the queries, the thread count, the batches of an
        :class:`rankwise.Accumulator` or the partitions of a cluster.
        :func:`rankwise.trec_eval` instead sums left to right in trec_eval's query
        order, as trec_eval does. A metric with ``weights`` (a convention's micro
        average) has the exactly rounded sum of weight * value over that of the
        weights of its valid queries.

        Parameters
        ----------
        sample_weight : array-like or mapping, optional
            Per-query weights (finite, >= 0, not all 0): one per query in ``query_ids``
            order, or a mapping (a dict, a pandas Series) from every query id to its
            weight. Each mean becomes the exactly rounded sum of weight * value over the
            exactly rounded sum of the weights of its valid queries (times a
            convention's weights where the metric has them).
        ci : float, optional
            A confidence level in (0, 1), e.g. 0.95: each value becomes a
            :class:`rankwise.MeanInterval`, the mean with the bootstrap interval of the
            queries resampled with replacement (weighted resamples for a weighted mean).
        n_resamples : int, default 9999
            Bootstrap resamples, 1 to 2**30.
        seed : int or None, default 0
            Seed of the resamples (0 to 2**128 - 1): the same interval on every run and
            for every ``n_threads``; None draws a fresh one (in the result's ``seed``).
        method : {"bca", "percentile", "basic"}
            The interval: bias-corrected and accelerated (as scipy.stats.bootstrap's
            default), the percentiles of the resampled means, or the basic bootstrap.
        n_threads : int, optional
            Threads for the resamples; the interval does not depend on it.

        Examples
        --------
        >>> import rankwise as rw
        >>> res = rw.evaluate([[1, 0], [0, 1], [0, 1], [1, 0]], [[0.9, 0.1]] * 4, ["MRR"])
        >>> res["MRR"]
        array([1. , 0.5, 0.5, 1. ])
        >>> res.mean(sample_weight=[3, 1, 1, 1])
        {'MRR': 0.8333333333333334}
        >>> res.mean(ci=0.9, method="percentile", n_resamples=999)["MRR"]
        MeanInterval(mean=0.75, 90% CI [0.6125, 0.875], percentile, 999 resamples, seed 0)
        """
        weights = self._sample_weights(sample_weight)
        if ci is None:
            return {name: self._mean_of(name, weights) for name in self._names}
        confidence = check_fraction(ci, "ci")
        n_resamples = check_n_resamples(n_resamples)
        drawn = check_seed(seed)
        check_choice(method, "method", INTERVAL_METHODS)
        effective_n_threads(n_threads)
        if drawn is None:
            drawn = secrets.randbits(128)  # what np.random.SeedSequence() draws
        return {name: self._interval(name, weights, confidence, n_resamples, drawn, method, n_threads)
                for name in self._interval_names()}

    def _sample_weights(self, sample_weight: Any) -> np.ndarray | None:
        """``sample_weight`` as one float64 per query, in ``query_ids`` order (None: unweighted)."""
        if sample_weight is None:
            return None
        if hasattr(sample_weight, "items") and not isinstance(sample_weight, np.ndarray):
            given = dict(sample_weight.items())
            ids = np.asarray(self.query_ids).tolist()
            missing = [q for q in ids if q not in given]
            extra = set(given) - set(ids)
            if missing or extra:
                which = (f"no weight for query id {missing[0]!r}" if missing else
                         f"a weight for query id {sorted(extra, key=repr)[0]!r}, which is not in the results")
                raise ValueError(f"sample_weight has {which}; a mapping gives every query id of query_ids "
                                 "its weight, and no other")
            sample_weight = [given[q] for q in ids]
        return check_weights(sample_weight, self.n_queries, "sample_weight")

    def _weights_of(self, name: str, weights: np.ndarray | None) -> np.ndarray | None:
        own = self.weights.get(name)
        if own is None or weights is None:
            return own if weights is None else weights
        return own * weights

    def _mean_of(self, name: str, weights: np.ndarray | None) -> float:
        return mean_over_queries(self[name], self._weights_of(name, weights))

    def _interval_names(self) -> tuple[str, ...]:
        """The names whose mean has a confidence interval (TrecResults: not its counts)."""
        return self._names

    def _interval(self, name: str, weights: np.ndarray | None, confidence: float, n_resamples: int, seed: int,
                  method: str, n_threads: int | None) -> MeanInterval:
        column, combined = self[name], self._weights_of(name, weights)
        valid = ~np.isnan(column)
        values = np.ascontiguousarray(column[valid])
        kept = None if combined is None else np.ascontiguousarray(combined[valid])
        mean = self._mean_of(name, weights)
        return mean_interval(values, kept, mean, confidence, n_resamples, seed, method, n_threads)

    def to_dict(self) -> dict[str, dict[Any, float]]:
        """``{metric: {query_id: value}}`` of Python numbers (JSON-ready for str and int ids)."""
        ids = np.asarray(self.query_ids).tolist()
        return {name: dict(zip(ids, self[name].tolist(), strict=True)) for name in self._names}

    def to_pandas(self) -> Any:
        """One row per query (index ``query_id``), one column per metric. Needs pandas."""
        try:
            import pandas as pd
        except ImportError:
            raise ImportError(f"{type(self).__name__}.to_pandas() needs pandas: pip install "
                              "'rankwise[pandas]'") from None
        data = {name: self[name] for name in self._names}
        index = pd.Index(self.query_ids, name=self.index_name)
        return pd.DataFrame(data, index=index, columns=list(self._names))

    def _describe(self) -> str:
        """What the repr says before the means."""
        return f"{self.n_queries} queries, ties={self.ties!r}"

    def __repr__(self) -> str:
        means = self.mean()
        width = max((len(n) for n in self._names), default=0)
        lines = [f"{type(self).__name__}({self._describe()}, mean over queries:"]
        lines += [f"  {name:<{width}}  {value:.4f}" for name, value in means.items()]
        return "\n".join(lines) + ")"

    def _texts(self, name: str, rows: list[int]) -> list[str]:
        """The values of ``rows`` of one metric as the HTML table shows them (the repr's digits)."""
        return [f"{value:.4f}" for value in self[name][rows].tolist()]

    def _summary_texts(self) -> list[str]:
        """The summary row of the HTML table: the means, as the repr shows them."""
        return [f"{value:.4f}" for value in self.mean().values()]

    def _repr_html_(self) -> str:
        """A table for notebooks: the first and last queries of a long one, then the means."""
        ids = np.asarray(self.query_ids).tolist()
        shown = list(range(len(ids)))
        if len(ids) > _HTML_HEAD + _HTML_TAIL:
            shown = shown[:_HTML_HEAD] + [-1] + shown[-_HTML_TAIL:]
        columns = [iter(self._texts(name, [q for q in shown if q >= 0])) for name in self._names]
        rows: list[list[str] | str] = []
        for q in shown:
            if q < 0:
                rows.append(f"… {len(ids) - _HTML_HEAD - _HTML_TAIL} more queries …")
                continue
            rows.append([str(ids[q]), *(next(column) for column in columns)])
        rows.append([self._summary_label, *self._summary_texts()])
        return html_table([self.index_name, *self._names], rows,
                          before=[f"{type(self).__name__}: {self._describe()}"])


def html_table(header: Sequence[str], rows: Iterable[Sequence[str] | str], *, before: Iterable[str] = (),
               after: Iterable[str] = ()) -> str:
    """The one HTML table of every ``_repr_html_``: paragraphs ``before``, the table, paragraphs ``after``.

    Every row's first cell is its header (``<th>``); a row given as one string spans the
    table (a note such as "… 90 more queries …"). Every string is escaped.

    Examples
    --------
    >>> html_table(["s"], [["<b>"]], after=["<"])
    '<table><thead><tr><th>s</th></tr></thead><tbody><tr><th>&lt;b&gt;</th></tr></tbody></table><p>&lt;</p>'
    """
    cell = html.escape
    body = []
    for row in rows:
        if isinstance(row, str):
            body.append(f'<tr><td colspan="{len(header)}">{cell(row)}</td></tr>')
        else:
            first, *rest = row
            body.append(f"<tr><th>{cell(first)}</th>{''.join(f'<td>{cell(c)}</td>' for c in rest)}</tr>")
    head = "".join(f"<th>{cell(name)}</th>" for name in header)
    return ("".join(f"<p>{cell(text)}</p>" for text in before)
            + f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
            + "".join(f"<p>{cell(text)}</p>" for text in after))


def as_results(x: Any) -> Any:
    """``x`` itself, or the :class:`Results` it stands for.

    An object whose type defines ``__rankwise_results__()`` (the results of
    :func:`rankwise.spark.evaluate` and :func:`rankwise.dask.evaluate`, whose values live on
    an engine) gives the per-query table that method returns: statistics read it as they
    read ``Results``, without importing the engine.

    Examples
    --------
    >>> import rankwise as rw
    >>> class Remote:
    ...     def __rankwise_results__(self):
    ...         return rw.evaluate([[1, 0]], [[0.2, 0.1]], ["MRR"])
    >>> as_results(Remote()).mean()
    {'MRR': 1.0}
    """
    method = getattr(type(x), "__rankwise_results__", None)
    if method is None:
        return x
    results = method(x)
    if not isinstance(results, Results):
        raise TypeError(f"{type(x).__name__}.__rankwise_results__() must return rankwise.Results, got "
                        f"{type(results).__name__}")
    return results
