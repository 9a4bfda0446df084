"""The Results object returned by :func:`rankwise.evaluate`."""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from .names import MetricSpec, parse_metric

__all__ = ["Results", "mean_over_queries"]


def mean_over_queries(column: np.ndarray) -> float:
    # NaN marks queries left out (empty="skip"); no valid query gives NaN, silently.
    valid = column[~np.isnan(column)]
    return float(valid.mean()) if valid.size else float("nan")


class Results:
    """Per-query metric values of one :func:`rankwise.evaluate` call.

    Attributes
    ----------
    names : tuple of str
        Metric names, as the caller spelled them, in the order asked.
    query_ids : ndarray
        Query ids in output order: row indices for dense and ``indptr`` input, the
        sorted unique ids for ``qid`` input.
    n_relevant : ndarray of int64
        Relevant items (label >= relevance_level) per query.
    ties : str
        The tie policy the values were computed under.

    Examples
    --------
    >>> import numpy as np, rankwise as rw
    >>> res = rw.evaluate([[0, 1, 0], [1, 0, 0]], [[0.9, 0.8, 0.1], [0.5, 0.5, 0.2]], ["MRR", "P@2"])
    >>> res.mean()
    {'MRR': 0.625, 'P@2': 0.5}
    >>> res["MRR"]
    array([0.5 , 0.75])
    """

    def __init__(self, names: Iterable[str], specs: Iterable[MetricSpec], columns: Iterable[int],
                 values: np.ndarray, query_ids: np.ndarray, n_relevant: np.ndarray, ties: str,
                 gain: str) -> None:
        self._gain = gain
        self._names = tuple(names)
        self._specs = tuple(specs)
        self._columns = tuple(columns)
        self._values = values
        self._values.flags.writeable = False
        self.query_ids = query_ids
        self.n_relevant = n_relevant
        self.ties = ties

    @property
    def names(self) -> tuple[str, ...]:
        return self._names

    @property
    def n_queries(self) -> int:
        return self._values.shape[0]

    def _named_columns(self) -> Iterator[tuple[str, int]]:
        return zip(self._names, self._columns, strict=True)

    def _column(self, name: Any) -> int:
        if name in self._names:
            return self._columns[self._names.index(name)]
        try:
            spec = parse_metric(name).resolved(self._gain)
        except (TypeError, ValueError):
            spec = None
        if spec in self._specs:
            return self._columns[self._specs.index(spec)]
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

    def mean(self) -> dict[str, float]:
        """Mean over queries of every metric, in the order asked (``MRR``, ``MAP``, ...).

        Queries left out by ``empty="skip"`` (NaN) do not count; a metric with no
        valid query has mean NaN. The mean is NumPy's (``ndarray.mean``: a pairwise
        sum); :func:`rankwise.trec_eval` instead sums left to right in trec_eval's query
        order, as trec_eval does.
        """
        return {name: mean_over_queries(self._values[:, col]) for name, col in self._named_columns()}

    def to_pandas(self) -> Any:
        """One row per query (index ``query``), one column per metric. Needs pandas."""
        try:
            import pandas as pd
        except ImportError:
            raise ImportError("Results.to_pandas() needs pandas: pip install 'rankwise[pandas]'") from None
        data = {name: self._values[:, col] for name, col in self._named_columns()}
        return pd.DataFrame(data, index=pd.Index(self.query_ids, name="query"))

    def __repr__(self) -> str:
        means = self.mean()
        width = max((len(n) for n in self._names), default=0)
        lines = [f"Results({self.n_queries} queries, ties={self.ties!r}, mean over queries:"]
        lines += [f"  {name:<{width}}  {value:.4f}" for name, value in means.items()]
        return "\n".join(lines) + ")"

