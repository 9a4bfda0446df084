"""One positive against many candidates: rank_positive, Ranks and the streaming RankBuilder.

Every rank-based metric of knowledge-graph completion and link prediction (PyKEEN,
libkge, OGB, TGB) is a function of three numbers per query: how many candidates score
higher than the true answer (``greater``), how many tie with it (``equal``), and how
many candidates there are (``n_candidates`` = C, the true answer included). One
counting pass per query gives them, with no sort and no temporary of the input's size.
"""
from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from numpy.typing import ArrayLike

from .._core.parallel import effective_n_threads, run_over_queries
from .._core.results import html_table
from .._core.validation import as_array, as_indptr, as_integers, as_scores, check_choice, rows_contiguous
from ._count import count_dense, count_ragged

__all__ = ["MAX_COUNT", "Ranks", "RankBuilder", "rank_positive"]

_NAN = ("raise", "ignore", "last")
_GREATER, _EQUAL, _UNMASKED, _NUMBERS = range(4)
# The most candidates a query can have, and so the largest rank: every count and rank,
# the tie-averaged rank greater + equal / 2 + 1 included, is then exact in float64,
# where rank_metrics computes (and no sum of two counts can overflow int64).
MAX_COUNT = 2**52
_MAX_TEXT = "2**52 = 4503599627370496"
_RAGGED_CANDIDATES = ("flatten every query's candidates into one 1-D array and pass indptr= (the offset "
                      "of each query's first candidate, then the total)")


def _read_only(arr: np.ndarray) -> np.ndarray:
    arr.flags.writeable = False
    return arr


def _as_counts(values: ArrayLike, name: str, minimum: int, maximum: int = MAX_COUNT) -> np.ndarray:
    """Whole numbers from ``minimum`` to ``maximum`` as a fresh 1-D int64 array.

    Integers of any width (uint64 included) and whole floats are accepted; the range
    is checked before the cast, so nothing wraps or saturates.
    """
    arr = as_integers(values, name, f"from {minimum} to {_MAX_TEXT}")
    if arr.ndim == 0:
        arr = arr.reshape(1)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D (one value per query), got shape {arr.shape}")
    if arr.dtype.kind == "f":
        if arr.dtype.itemsize < 8:
            arr = arr.astype(np.float64)  # exact; float16 cannot even hold the bound
        whole = np.isfinite(arr) & (arr == np.round(arr))
        if not whole.all():
            first = int(np.flatnonzero(~whole)[0])
            raise ValueError(f"{name} must hold whole numbers; found {arr[first].item()!r} at position "
                             f"{first}")
    elif arr.dtype.kind not in "iu":
        raise TypeError(f"{name} must hold integers, got dtype {arr.dtype}")
    # Compared with Python ints, which NumPy does exactly for every integer dtype.
    if arr.size and arr.min() < minimum:
        first = int(np.flatnonzero(arr < minimum)[0])
        raise ValueError(f"{name} must be >= {minimum}; found {arr[first].item()} at position {first}")
    if arr.size and arr.max() > maximum:
        first = int(np.flatnonzero(arr > maximum)[0])
        raise ValueError(f"{name} must be at most {_MAX_TEXT} (counts and ranks stay exact in float64); "
                         f"found {arr[first].item()} at position {first}")
    return arr.astype(np.int64)


class Ranks:
    """Where the true answer of each query ranks among its candidates, ties included.

    Stores the sufficient statistics of every rank metric: ``greater`` (candidates
    scoring strictly higher than the true answer), ``equal`` (other candidates tied
    with it) and ``n_candidates`` (C: candidates including the true answer, after
    filtering; None when unknown). Built by :func:`rank_positive`,
    :class:`RankBuilder` or :meth:`from_ranks`; read by :func:`rank_metrics`.

    Parameters
    ----------
    greater : array-like of int
        Candidates ranked above the true answer, per query.
    equal : array-like of int, optional
        Other candidates tied with the true answer (default none).
    n_candidates : array-like of int, optional
        C per query, at least ``greater + equal + 1``. Needed by the chance-adjusted
        metrics, their z-scores and expectations.

    Every count is a whole number (any integer dtype, unsigned included, or whole
    floats) with ``greater + equal + 1 <= n_candidates <= 2**52``: so every rank, the
    tie-averaged one included, is exact in float64 (a query never has that many
    candidates). Values outside raise ValueError naming the argument.

    Attributes
    ----------
    optimistic, pessimistic : ndarray of int64
        Best and worst rank among the tie: ``greater + 1``, ``greater + equal + 1``.
    realistic : ndarray of float64
        Their mean, the expected rank over tie orderings (PyKEEN, OGB and TGB's rank).
    tied_fraction : float
        Share of queries whose true answer ties with at least one other candidate.
    mean_relative_width : float
        Mean of ``(pessimistic - optimistic) / C``: how much of the candidate list the
        ties blur, on average (PyKEEN's rank width); needs ``n_candidates``.

    Examples
    --------
    >>> import rankwise as rw
    >>> ranks = rw.Ranks(greater=[0, 2, 1], equal=[0, 1, 0], n_candidates=[5, 5, 4])
    >>> ranks.pessimistic
    array([1, 4, 2])
    >>> ranks.realistic
    array([1. , 3.5, 2. ])
    >>> ranks.tied_fraction
    0.3333333333333333
    """

    def __init__(self, greater: ArrayLike, equal: ArrayLike | None = None,
                 n_candidates: ArrayLike | None = None) -> None:
        self._greater = _read_only(_as_counts(greater, "greater", 0))
        n = self._greater.shape[0]
        self._equal = _read_only(np.zeros(n, dtype=np.int64) if equal is None
                                 else _as_counts(equal, "equal", 0))
        if self._equal.shape[0] != n:
            raise ValueError(f"equal has {self._equal.shape[0]} values, greater has {n}")
        # Each count is at most 2**52, so the sum cannot overflow.
        pessimistic = self._greater + self._equal + 1
        over = pessimistic > MAX_COUNT
        if over.any():
            i = int(np.flatnonzero(over)[0])
            raise ValueError(f"greater + equal + 1 (the pessimistic rank) must be at most {_MAX_TEXT}; "
                             f"query {i} has greater = {self._greater[i]}, equal = {self._equal[i]}")
        self._n_candidates = None
        if n_candidates is not None:
            c = _as_counts(n_candidates, "n_candidates", 1)
            if c.shape[0] != n:
                raise ValueError(f"n_candidates has {c.shape[0]} values, greater has {n}")
            short = c < pessimistic
            if short.any():
                i = int(np.flatnonzero(short)[0])
                raise ValueError(f"n_candidates[{i}] = {c[i]} is below the pessimistic rank "
                                 f"{pessimistic[i]} of that query")
            self._n_candidates = _read_only(c)

    @classmethod
    def _from_counts(cls, greater: np.ndarray, equal: np.ndarray, n_candidates: np.ndarray) -> Ranks:
        """Ranks of counts made by the kernels, consistent by construction (greater + equal
        + 1 <= n_candidates): only the bound on n_candidates is checked. Copies the columns."""
        if n_candidates.size and n_candidates.max() > MAX_COUNT:
            i = int(np.argmax(n_candidates))
            raise ValueError(f"query {i} has {n_candidates[i]} candidates, beyond the {_MAX_TEXT} a query "
                             "can have")
        ranks = cls.__new__(cls)
        ranks._greater, ranks._equal, ranks._n_candidates = (
            _read_only(np.array(column, dtype=np.int64)) for column in (greater, equal, n_candidates))
        return ranks

    @classmethod
    def from_counts(cls, greater: ArrayLike, equal: ArrayLike | None = None,
                    n_candidates: ArrayLike | None = None, *,
                    greater_equal: ArrayLike | None = None) -> Ranks:
        """Wrap counts computed elsewhere: PyKEEN's or OGB's, from a GPU, from a cluster.

        Parameters
        ----------
        greater : array-like of int
            Candidates scoring strictly higher than the true answer, per query (OGB's
            ``(y_pred_neg > y_pred_pos).sum(1)``).
        equal : array-like of int, optional
            Other candidates tied with it, the true answer not counted; or instead
        greater_equal : array-like of int, optional
            Candidates other than the true answer scoring at least as high (OGB's
            ``(y_pred_neg >= y_pred_pos).sum(1)``): ``equal = greater_equal - greater``.
            PyKEEN's ``(all_scores >= true_score).sum()`` counts the true answer too: pass
            it minus 1. Without either, nothing is tied.
        n_candidates : array-like of int, optional
            C, the candidates including the true answer (PyKEEN's ``number_of_options``;
            OGB's number of negatives plus 1), one per query or one for all: needed by the
            chance-adjusted metrics.

        Examples
        --------
        >>> import numpy as np, rankwise as rw
        >>> pos, neg = np.array([0.5, 0.2]), np.array([[0.9, 0.5, 0.1], [0.1, 0.0, 0.3]])
        >>> ranks = rw.Ranks.from_counts((neg > pos[:, None]).sum(1), n_candidates=[4, 4],
        ...                              greater_equal=(neg >= pos[:, None]).sum(1))
        >>> ranks.optimistic, ranks.pessimistic, ranks.realistic
        (array([2, 2]), array([3, 2]), array([2.5, 2. ]))
        """
        if equal is not None and greater_equal is not None:
            raise ValueError("pass equal or greater_equal (the ties, counted two ways), not both")
        if n_candidates is not None and np.ndim(n_candidates) == 0:    # one C for every query
            n_candidates = np.full(np.shape(as_array(greater, "greater")), n_candidates)
        if greater_equal is not None:
            above = _as_counts(greater, "greater", 0)
            at_least = _as_counts(greater_equal, "greater_equal", 0)
            if at_least.shape != above.shape:
                raise ValueError(f"greater_equal has {at_least.shape[0]} values, greater has "
                                 f"{above.shape[0]}")
            if np.any(at_least < above):
                i = int(np.flatnonzero(at_least < above)[0])
                raise ValueError(f"greater_equal must be at least greater (it counts them too); query {i} "
                                 f"has greater_equal {at_least[i]} < greater {above[i]}")
            return cls(above, at_least - above, n_candidates)
        return cls(greater, equal, n_candidates)

    @classmethod
    def from_ranks(cls, ranks: ArrayLike, n_candidates: ArrayLike | None = None) -> Ranks:
        """Wrap ranks computed elsewhere (1 = best), with no ties among them.

        Parameters
        ----------
        ranks : array-like of int
            One rank from 1 to 2**52 per query (any integer dtype, or whole floats).
            Half-integer "realistic" ranks cannot be split back into their tie; build
            those with ``Ranks(greater, equal)``.
        n_candidates : array-like of int, optional
            C per query (at least the rank, at most 2**52).

        Examples
        --------
        >>> import rankwise as rw
        >>> rw.Ranks.from_ranks([1, 2, 3, 5], n_candidates=[5, 5, 10, 10]).optimistic
        array([1, 2, 3, 5])
        """
        arr = as_integers(ranks, "ranks", f"from 1 to {_MAX_TEXT}")
        finite = arr[np.isfinite(arr)] if arr.dtype.kind == "f" else arr.reshape(-1)[:0]
        if finite.size and not np.all(finite == np.round(finite)):
            raise ValueError("ranks must be whole numbers; for realistic (tie-averaged) ranks, pass "
                             "the counts instead: Ranks(greater=optimistic - 1, "
                             "equal=pessimistic - optimistic)")
        return cls(_as_counts(arr, "ranks", 1) - 1, None, n_candidates)

    @classmethod
    def concatenate(cls, parts: Iterable[Ranks]) -> Ranks:
        """Join several Ranks, e.g. the head- and tail-prediction sides of one test set.

        ``n_candidates`` is kept when every part knows it.

        Examples
        --------
        >>> import rankwise as rw
        >>> both = rw.Ranks.concatenate([rw.Ranks([0]), rw.Ranks([3], [1])])
        >>> both.pessimistic
        array([1, 5])
        """
        try:
            parts = list(parts)
        except TypeError:
            raise TypeError(f"Ranks.concatenate takes a non-empty sequence of Ranks, got {parts!r}") from None
        if not parts or not all(isinstance(p, Ranks) for p in parts):
            raise TypeError("Ranks.concatenate takes a non-empty sequence of Ranks")
        known = all(p._n_candidates is not None for p in parts)
        return cls(np.concatenate([p._greater for p in parts]),
                   np.concatenate([p._equal for p in parts]),
                   np.concatenate([p._n_candidates for p in parts]) if known else None)

    def merge(self, other: Ranks) -> Ranks:
        """The ranks of the same queries against the candidates of both (a new Ranks).

        ``self`` and ``other`` rank the same true answers (same queries, same order)
        against disjoint sets of candidates, e.g. blocks of the entities of a knowledge
        graph scored on different machines: counts add, and ``n_candidates`` is
        ``n1 + n2 - 1`` (the true answer is counted once), or None unless both know it.
        :func:`rankwise.rank_metrics` of the result equals one :func:`rank_positive`
        over all the candidates.

        Examples
        --------
        >>> import rankwise as rw
        >>> first = rw.rank_positive([0.5], [[0.9, 0.5]])    # entities 0-1
        >>> second = rw.rank_positive([0.5], [[0.7, 0.1]])   # entities 2-3
        >>> merged = first.merge(second)
        >>> merged.greater, merged.equal, merged.n_candidates
        (array([2]), array([1]), array([5]))
        """
        if not isinstance(other, Ranks):
            raise TypeError(f"Ranks.merge takes Ranks, got {type(other).__name__}")
        if len(other) != len(self):
            raise ValueError(f"Ranks.merge needs the ranks of the same queries: {len(self)} here, "
                             f"{len(other)} in the other")
        # Each count is at most 2**52: no sum overflows int64.
        greater, equal = self._greater + other._greater, self._equal + other._equal
        n_candidates = None
        if self._n_candidates is not None and other._n_candidates is not None:
            n_candidates = self._n_candidates + other._n_candidates - 1
        # The true answer and its competitors: as many as n_candidates when it is known.
        total = greater + equal + 1 if n_candidates is None else n_candidates
        _check_total(total, "the merged ranks")
        ranks = Ranks.__new__(Ranks)
        ranks._greater, ranks._equal = _read_only(greater), _read_only(equal)
        ranks._n_candidates = None if n_candidates is None else _read_only(n_candidates)
        return ranks

    @property
    def greater(self) -> np.ndarray:
        return self._greater

    @property
    def equal(self) -> np.ndarray:
        return self._equal

    @property
    def n_candidates(self) -> np.ndarray | None:
        return self._n_candidates

    @property
    def optimistic(self) -> np.ndarray:
        return self._greater + 1

    @property
    def pessimistic(self) -> np.ndarray:
        return self._greater + self._equal + 1

    @property
    def realistic(self) -> np.ndarray:
        return self._greater + self._equal / 2 + 1

    @property
    def tied_fraction(self) -> float:
        return float(np.mean(self._equal > 0)) if len(self) else float("nan")

    @property
    def mean_relative_width(self) -> float:
        if self._n_candidates is None:
            raise ValueError("mean_relative_width needs n_candidates, which these Ranks do not know")
        return float(np.mean(self._equal / self._n_candidates)) if len(self) else float("nan")

    def __len__(self) -> int:
        return self._greater.shape[0]

    def __getitem__(self, index: int | slice | ArrayLike) -> Ranks:
        """The Ranks of a subset of queries (slice, integer indices or boolean mask).

        An integer out of range raises IndexError (so iteration stops there), as lists do;
        so does a boolean mask without one value per query, as in NumPy.
        """
        c = self._n_candidates
        rows = index if isinstance(index, slice) else self._rows(index)
        return Ranks(self._greater[rows], self._equal[rows], None if c is None else c[rows])

    def _rows(self, index: int | ArrayLike) -> np.ndarray:
        """Query indices or a boolean mask for ``__getitem__``, checked."""
        n = len(self)
        usage = "Ranks index must be an integer, a slice, integer indices or a boolean mask"
        if isinstance(index, (bool, np.bool_)):
            raise TypeError(f"{usage}, got {index!r}")
        if isinstance(index, (int, np.integer)) and not -n <= index < n:
            raise IndexError(f"Ranks index {index} is out of range for {n} queries")
        arr = as_integers(index, "Ranks index", f"from {-n} to {n - 1} ({n} queries)", IndexError)
        if arr.dtype == np.bool_:
            if arr.shape != (n,):
                # NumPy raises IndexError for a boolean index of another length too.
                got = f"length {arr.shape[0]}" if arr.ndim == 1 else f"shape {arr.shape}"
                raise IndexError(f"a boolean Ranks index (mask) must have one value per query ({n}), "
                                 f"got a mask of {got}")
            return arr
        if arr.size == 0 and arr.ndim == 1:
            return arr.astype(np.int64)
        if arr.dtype.kind not in "iu" or arr.ndim > 1:
            raise TypeError(f"{usage}, got {index!r}")
        outside = (arr < -n) | (arr >= n)
        if outside.any():
            raise IndexError(f"Ranks index {arr.reshape(-1)[np.flatnonzero(outside)[0]].item()} is out of "
                             f"range for {n} queries")
        return arr.reshape(-1).astype(np.int64)

    def _summary(self) -> list[tuple[str, str]]:
        """(name, value as text) of the repr and the notebook table."""
        fields = [("n", str(len(self)))]
        if len(self):
            fields += [("mean optimistic", f"{self.optimistic.mean():.4g}"),
                       ("mean pessimistic", f"{self.pessimistic.mean():.4g}"),
                       ("tied", f"{self.tied_fraction:.1%}")]
            if self._n_candidates is not None:
                fields.append(("mean candidates", f"{self._n_candidates.mean():.4g}"))
        return fields

    def __repr__(self) -> str:
        return f"Ranks({', '.join(f'{name}={value}' for name, value in self._summary())})"

    def _repr_html_(self) -> str:
        """A short summary for notebooks: the numbers of the repr, one a row."""
        return html_table(["Ranks", ""], [list(field) for field in self._summary()])


def _as_positives(pos_score: ArrayLike, name: str = "pos_score") -> np.ndarray:
    """True-answer scores as float64 (exact for float32 and integers up to 2**53)."""
    arr = as_scores(pos_score, name, check_nan=False, ragged=None)
    if arr.ndim > 1:
        raise ValueError(f"{name} must be a number or 1-D (one per query), got shape {arr.shape}")
    flat = arr.reshape(-1).astype(np.float64)
    bad = np.isnan(flat)
    if bad.any():
        raise ValueError(f"{name} is NaN for query {int(np.flatnonzero(bad)[0])}; a true answer "
                         "needs a score to be ranked")
    return flat


def _as_mask(mask: ArrayLike, shape: tuple[int, ...], what: str) -> np.ndarray:
    """A boolean mask of ``shape`` viewed as uint8, rows contiguous (a column slice stays a view)."""
    arr = as_array(mask, "mask", _RAGGED_CANDIDATES)
    if arr.dtype != np.bool_:
        raise TypeError(f"mask must be a boolean array (True = not a candidate), got dtype {arr.dtype}")
    if arr.shape != shape:
        raise ValueError(f"mask must have the shape of {what} {shape}, got {arr.shape}")
    return rows_contiguous(arr).view(np.uint8)


def _as_true_index(true_index: ArrayLike, n_queries: int, lengths: np.ndarray | None = None) -> np.ndarray:
    """One column index per query, within the query's ``lengths`` columns when they are known
    (else below 2**52, the most candidates a query can have)."""
    arr = as_integers(true_index, "true_index",
                      f"from 0 to the query's last column (at most {_MAX_TEXT} - 1)")
    if arr.size == 0 and arr.dtype.kind == "f":  # [] for no query
        arr = arr.astype(np.int64)
    if arr.dtype.kind not in "iu":
        raise TypeError(f"true_index must hold integer column indices, got dtype {arr.dtype}")
    arr = arr.reshape(-1) if arr.ndim <= 1 else arr
    if arr.ndim != 1 or arr.shape[0] != n_queries:
        raise ValueError(f"true_index must have one column index per query ({n_queries}), "
                         f"got shape {np.shape(true_index)}")
    # Range checks against Python ints first: uint64 beyond int64 must not wrap in the cast.
    bad = (arr < 0) | (arr >= MAX_COUNT)
    if not bad.any() and lengths is not None:
        arr = arr.astype(np.int64)
        bad = arr >= lengths
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        if arr[i] < 0:
            where = "negative"
        elif lengths is None or arr[i] >= MAX_COUNT:
            where = f"beyond the last candidate column a query can have ({_MAX_TEXT} - 1)"
        else:
            where = f"outside the {lengths[i]} columns of query {i}"
        raise ValueError(f"true_index[{i}] = {arr[i]} is {where}")
    return arr.astype(np.int64)


def _as_start(start: ArrayLike, widths: np.ndarray) -> np.ndarray:
    """RankBuilder.update's ``start``, one per query: an integer column >= 0 (or one per query),
    the chunk ending at most at column 2**52 (the most candidates a query can have)."""
    arr = as_integers(start, "start", f">= 0, with start + the chunk's width at most {_MAX_TEXT}")
    n_queries = widths.shape[0]
    if arr.dtype.kind not in "iu":
        raise TypeError(f"start must be an integer column index >= 0 (or one per query), got {start!r}")
    if arr.ndim > 1 or arr.ndim == 1 and arr.shape[0] != n_queries:
        raise ValueError(f"start must be one integer or one per query ({n_queries}), got shape {arr.shape}")
    # Checked against Python ints before the cast: uint64 beyond int64 must not wrap.
    per_query = np.broadcast_to(arr, widths.shape)
    bad = (per_query < 0) | (per_query > MAX_COUNT)
    if not bad.any():
        per_query = per_query.astype(np.int64)
        bad = per_query + widths > MAX_COUNT
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        where, value = (f"start[{i}]" if arr.ndim else "start"), per_query[i].item()
        if value < 0:
            raise ValueError(f"{where} must be >= 0 (the column of the chunk's first candidate), got {value}")
        raise ValueError(f"{where} + the chunk's width must be at most {_MAX_TEXT} (the most candidates a "
                         f"query can have); got {where} = {value} and width {widths[i]}")
    return per_query


class _Candidates:
    """One call's candidates, dense (one row per query, any row stride) or ragged (CSR).

    ``own_column`` holds, per query, the column of the true answer's own score among
    the candidates (-1 where it is not among them), so it is not counted against itself.
    """

    def __init__(self, values: np.ndarray, mask: np.ndarray | None, indptr: np.ndarray | None = None,
                 own_column: np.ndarray | None = None) -> None:
        self.values = values
        self.mask = mask
        self.ragged = indptr is not None
        # Offsets also weigh the queries when they are split over threads.
        self.indptr: np.ndarray = indptr if indptr is not None else (
            np.arange(values.shape[0] + 1, dtype=np.int64) * values.shape[1])
        self.own_column = own_column

    @classmethod
    def from_arrays(cls, values: np.ndarray, n_queries: int, mask: ArrayLike | None, indptr: ArrayLike | None,
                    name: str, single: bool) -> _Candidates:
        """Dense (Q, N) or ragged (1-D + indptr) candidates; 1-D alone is one query."""
        if values.ndim == 1 and indptr is None and single:
            values = values[None, :]
            mask = None if mask is None else as_array(mask, "mask")[None, ...]
        if values.ndim == 2:
            if indptr is not None:
                raise ValueError(f"indptr= groups 1-D {name}; 2-D {name} already has one query per row")
            if values.shape[0] != n_queries:
                raise ValueError(f"{name} has {values.shape[0]} rows for {n_queries} queries")
            return cls(values, None if mask is None else _as_mask(mask, values.shape, name))
        if values.ndim == 1 and indptr is not None:
            offsets = as_indptr(indptr, values.shape[0], of=name)
            if offsets.shape[0] != n_queries + 1:
                raise ValueError(f"indptr describes {offsets.shape[0] - 1} queries, but there are "
                                 f"{n_queries} true answers")
            return cls(values, None if mask is None else _as_mask(mask, values.shape, name), offsets)
        raise ValueError(f"{name} must be 2-D (one row per query) or 1-D with indptr=, "
                         f"got shape {values.shape}")

    def lengths(self) -> np.ndarray:
        return np.diff(self.indptr)

    def at(self, array: np.ndarray, columns: np.ndarray, queries: np.ndarray | None = None) -> np.ndarray:
        """``array`` (values or mask) at one column per query."""
        queries = np.arange(columns.shape[0]) if queries is None else queries
        if self.ragged:
            return array[self.indptr[queries] + columns]
        return array[queries, columns]

    def count(self, pos: np.ndarray, n_threads: int) -> np.ndarray:
        """Columns greater, equal, unmasked, unmasked-and-not-NaN per query, own score excluded."""
        # The kernels add to the counts: each chunk clears its rows first, so that a chunk
        # done again (_core/parallel.py) counts once.
        counts = np.empty((pos.shape[0], 4), dtype=np.int64)
        if self.ragged:
            mask = self.mask if self.mask is not None else np.empty(0, dtype=np.uint8)

            def task(q_start: int, q_stop: int, stop: np.ndarray) -> None:
                counts[q_start:q_stop] = 0
                count_ragged(self.values, self.indptr, pos, mask, q_start, q_stop, counts, stop)
        else:
            mask = self.mask if self.mask is not None else np.empty((0, 0), dtype=np.uint8)

            def task(q_start: int, q_stop: int, stop: np.ndarray) -> None:
                counts[q_start:q_stop] = 0
                count_dense(self.values, pos, mask, q_start, q_stop, counts, stop)

        run_over_queries(task, self.indptr, n_threads)
        if self.own_column is not None:
            # The kernel counted the true answer's own column like any candidate; take back
            # exactly what it added (a chunk's value there need not equal pos_score).
            queries = np.flatnonzero(self.own_column >= 0)
            if self.mask is not None:
                queries = queries[self.at(self.mask, self.own_column[queries], queries) == 0]
            own = self.at(self.values, self.own_column[queries], queries).astype(np.float64)
            counts[queries, _GREATER] -= own > pos[queries]
            counts[queries, _EQUAL] -= own == pos[queries]
            counts[queries, _UNMASKED] -= 1
            counts[queries, _NUMBERS] -= ~np.isnan(own)
        return counts


def _count_pool(pos: np.ndarray, pool: np.ndarray, mask: ArrayLike | None, n_threads: int) -> np.ndarray:
    """Counts against one pool shared by all queries (OGB's Hits@K protocol).

    With no mask or one mask for all, the pool is sorted once and each positive is
    searched; a per-query (Q, N) mask makes every query count its own row.
    """
    shape = (pos.shape[0], pool.shape[0])
    if mask is not None and np.ndim(mask) == 2:
        rows = _Candidates(np.broadcast_to(pool, shape), _as_mask(mask, shape, "the shared pool (Q, N)"))
        return rows.count(pos, n_threads)
    if mask is not None:
        pool = pool[_as_mask(mask, pool.shape, "neg_scores") == 0]
    numbers = np.sort(pool[~np.isnan(pool)])
    # searchsorted compares in the common dtype, so float32 pools meet float64 positives exactly.
    low = np.searchsorted(numbers, pos, side="left")
    high = np.searchsorted(numbers, pos, side="right")
    counts = np.empty((pos.shape[0], 4), dtype=np.int64)
    counts[:, _GREATER] = numbers.shape[0] - high
    counts[:, _EQUAL] = high - low
    counts[:, _UNMASKED] = pool.shape[0]
    counts[:, _NUMBERS] = numbers.shape[0]
    return counts


def _check_total(candidates: np.ndarray, what: str, remedy: str = "") -> None:
    """Refuse a query with more candidates (the true answer included) than the 2**52 a query can have."""
    over = candidates > MAX_COUNT
    if over.any():
        i = int(np.flatnonzero(over)[0])
        raise ValueError(f"{what} would give query {i} {candidates[i]} candidates, beyond the {_MAX_TEXT} a "
                         f"query can have{remedy}")


def _check_nan(counts: np.ndarray, nan: str, name: str) -> None:
    if nan != "raise":
        return
    has_nan = counts[:, _UNMASKED] != counts[:, _NUMBERS]
    if has_nan.any():
        i = int(np.flatnonzero(has_nan)[0])
        raise ValueError(f"{name} contains NaN (first in query {i}); pass nan='ignore' to drop NaN "
                         "candidates (PyKEEN's filtering) or nan='last' to rank them below every number")


def _ranks_from_counts(counts: np.ndarray, nan: str) -> Ranks:
    candidates = counts[:, _NUMBERS if nan == "ignore" else _UNMASKED] + 1
    return Ranks._from_counts(counts[:, _GREATER], counts[:, _EQUAL], candidates)


def rank_positive(pos_score: ArrayLike | None = None, neg_scores: ArrayLike | None = None,
                  mask: ArrayLike | None = None, *, scores: ArrayLike | None = None,
                  true_index: ArrayLike | None = None, indptr: ArrayLike | None = None, nan: str = "raise",
                  n_threads: int | None = None) -> Ranks:
    """Rank each query's true answer against its candidates, in one pass with no sort.

    Two ways to pass the scores:

    * ``pos_score`` (Q,) and ``neg_scores``: the negatives of each query, dense
      (Q, N), ragged (1-D with ``indptr=``), or 1-D (N,) without ``indptr``: one pool
      shared by all queries (OGB's Hits@K datasets; sorted once, then searched).
      A scalar ``pos_score`` with 1-D ``neg_scores`` is one query (TGB's per-edge call).
    * ``scores=`` (Q, E) and ``true_index=`` (Q,): every candidate's score, the true
      answer's column among them (PyKEEN and libkge emit this). The true column is
      never counted as its own competitor, whatever ``mask`` says there.

    Parameters
    ----------
    pos_score : array-like of float
        Score of the true answer per query. NaN is an error.
    neg_scores : array-like of float
        Scores of the other candidates.
    mask : array-like of bool, optional
        Same shape as the candidate scores; True removes the candidate (the filtered
        protocol: other known true answers). For a shared pool, (N,) or (Q, N).
    scores, true_index : array-like, optional
        The score-matrix form described above (instead of pos_score / neg_scores).
        ``true_index`` holds integers (any integer dtype, not floats), each a column
        of its query's row.
    indptr : array-like of int, optional
        CSR offsets of ragged 1-D candidates: query ``i`` owns ``indptr[i]:indptr[i+1]``.
        Lists of candidates of different lengths are passed this way (flattened), not
        as nested lists.
    nan : {"raise", "ignore", "last"}
        NaN candidates are an error; or are not candidates (not counted in C, as
        PyKEEN's NaN-filtered scores); or are candidates ranked below every number.
    n_threads : int, optional
        Threads over queries; None or -1 for all CPUs (those this process may use,
        or ``RANKWISE_NUM_THREADS``). Results do not depend on it.

    Returns
    -------
    Ranks
        ``greater``, ``equal`` and ``n_candidates`` (unmasked candidates + 1, at most
        2**52).

    Notes
    -----
    Ties are exact equality, as in PyKEEN, OGB and TGB (libkge's tolerance is not
    applied). A float32 score is compared exactly with a float64 one. ``+inf`` and
    ``-inf`` are ordinary candidates and count in C (PyKEEN counts finite scores only).
    Dense input is read in place when its rows are contiguous (column slices
    included); other layouts, and dtypes other than float32 and float64, are copied once.

    Examples
    --------
    >>> import rankwise as rw
    >>> ranks = rw.rank_positive([1.0, 3.0], [[0.5, 0.9, 2.0], [3.0, 3.0, 4.0]])
    >>> ranks.greater, ranks.equal, ranks.n_candidates
    (array([1, 1]), array([0, 2]), array([4, 4]))
    >>> ranks.realistic
    array([2., 3.])

    The PyKEEN form, with the filtered protocol:

    >>> scores = [[2.0, 2.0, 1.0, 3.0, 5.0]]
    >>> rw.rank_positive(scores=scores, true_index=[0], mask=[[False, False, False, False, True]]).pessimistic
    array([3])
    """
    check_choice(nan, "nan", _NAN)
    threads = effective_n_threads(n_threads)
    if scores is not None or true_index is not None:
        if pos_score is not None or neg_scores is not None:
            raise ValueError("pass either pos_score and neg_scores, or scores= and true_index=")
        if scores is None or true_index is None:
            raise ValueError("scores= and true_index= go together")
        name = "scores"
        cands, pos = _score_matrix(scores, true_index, mask, indptr)
        counts = cands.count(pos, threads)
    else:
        if pos_score is None or neg_scores is None:
            raise TypeError("rank_positive() needs pos_score and neg_scores, or scores= and true_index=")
        name = "neg_scores"
        counts = _count_negatives(pos_score, neg_scores, mask, indptr, threads)
    _check_nan(counts, nan, name)
    return _ranks_from_counts(counts, nan)


def _count_negatives(pos_score: ArrayLike, neg_scores: ArrayLike, mask: ArrayLike | None,
                     indptr: ArrayLike | None, threads: int) -> np.ndarray:
    """The counts of :meth:`_Candidates.count` from ``neg_scores``: one pool shared by
    every query (1-D without ``indptr``), or each query's own."""
    single = np.ndim(pos_score) == 0
    pos = _as_positives(pos_score)
    values = as_scores(neg_scores, "neg_scores", check_nan=False, rows_only=True, ragged=_RAGGED_CANDIDATES)
    if values.ndim == 1 and indptr is None and not single:
        return _count_pool(pos, values, mask, threads)
    candidates = _Candidates.from_arrays(values, pos.shape[0], mask, indptr, "neg_scores", single)
    return candidates.count(pos, threads)


def _score_matrix(scores: ArrayLike, true_index: ArrayLike, mask: ArrayLike | None,
                  indptr: ArrayLike | None) -> tuple[_Candidates, np.ndarray]:
    """Candidates and true-answer scores of the PyKEEN form: all scores plus the true column."""
    values = as_scores(scores, "scores", check_nan=False, rows_only=True, ragged=_RAGGED_CANDIDATES)
    single = values.ndim == 1 and indptr is None
    if values.ndim == 2 or single:
        n_queries = values.shape[0] if values.ndim == 2 else 1
    else:  # the offsets are checked with the candidates; their count is needed first
        n_queries = as_integers(indptr, "indptr", f"from 0 to len(scores) = {values.size}").size - 1
    cands = _Candidates.from_arrays(values, max(n_queries, 0), mask, indptr, "scores", single)
    lengths = cands.lengths()
    cands.own_column = _as_true_index(true_index, lengths.shape[0], lengths)
    return cands, _as_positives(cands.at(cands.values, cands.own_column), "scores at true_index")


class RankBuilder:
    """Accumulate ranks over chunks of candidates too many to hold at once.

    Feed the candidates of all queries chunk by chunk (e.g. the scores of entities
    ``0..99_999``, then ``100_000..199_999``, ... of a 10^7-entity graph); the result
    equals one :func:`rank_positive` call over all of them.

    Parameters
    ----------
    pos_score : array-like of float
        Score of the true answer per query (Q,).
    true_index : array-like of int, optional
        Column of the true answer among all candidates (an integer from 0 to
        2**52 - 1), when the chunks hold every candidate's score (PyKEEN style); it is
        then never counted as its own competitor. Chunks then need ``start=``.
    nan : {"raise", "ignore", "last"}
        As in :func:`rank_positive`. With "raise", the chunk holding a NaN raises and
        leaves the builder unchanged.
    n_threads : int, optional
        Threads over queries per chunk.

    Examples
    --------
    >>> import numpy as np, rankwise as rw
    >>> pos = np.array([0.5, 0.2])
    >>> neg = np.array([[0.9, 0.5, 0.1, 0.7], [0.1, 0.2, 0.3, 0.0]])
    >>> builder = rw.RankBuilder(pos)
    >>> for start in range(0, 4, 2):
    ...     _ = builder.update(neg[:, start:start + 2])
    >>> ranks = builder.ranks()
    >>> ranks.greater, ranks.equal
    (array([2, 1]), array([1, 1]))
    """

    def __init__(self, pos_score: ArrayLike, *, true_index: ArrayLike | None = None, nan: str = "raise",
                 n_threads: int | None = None) -> None:
        self._nan = check_choice(nan, "nan", _NAN)
        self._threads = effective_n_threads(n_threads)
        self._pos = _as_positives(pos_score)
        self._true_index = None
        if true_index is not None:
            self._true_index = _as_true_index(true_index, self._pos.shape[0])
        self._counts = np.zeros((self._pos.shape[0], 4), dtype=np.int64)

    def update(self, neg_scores: ArrayLike, mask: ArrayLike | None = None, *, indptr: ArrayLike | None = None,
               start: ArrayLike | None = None) -> RankBuilder:
        """Add one chunk of candidates: (Q, n) dense, or 1-D ragged with ``indptr=``.

        ``start`` (an int, or one per query) is the column of the chunk's first
        candidate, required when the builder knows ``true_index``: an integer >= 0
        (any integer dtype; not a float), with ``start`` + the chunk's width at most
        2**52. A chunk that fails a check (or holds NaN under ``nan="raise"``) raises
        and leaves the builder unchanged.
        """
        values = as_scores(neg_scores, "neg_scores", check_nan=False, rows_only=True,
                           ragged=_RAGGED_CANDIDATES)
        cands = _Candidates.from_arrays(values, self._pos.shape[0], mask, indptr, "neg_scores", False)
        if self._true_index is not None:
            if start is None:
                raise ValueError("this builder knows true_index, so update() needs start= (the column "
                                 "of the chunk's first candidate)")
            column = self._true_index - _as_start(start, cands.lengths())
            cands.own_column = np.where((column >= 0) & (column < cands.lengths()), column, -1)
        elif start is not None:
            raise ValueError("start= only places chunks for a builder made with true_index=")
        counts = cands.count(self._pos, self._threads)
        _check_nan(counts, self._nan, "neg_scores")
        # Both terms are at most 2**52 (or an array's length): the sum cannot overflow.
        _check_total(self._counts[:, _UNMASKED] + counts[:, _UNMASKED] + 1, "neg_scores: this chunk",
                     "; the builder is unchanged")
        self._counts += counts
        return self

    def merge(self, other: RankBuilder) -> RankBuilder:
        """Add the counts of a builder of the same queries that saw other candidates; returns self.

        ``other`` must have the same ``pos_score``, ``true_index`` and ``nan`` policy
        (it ranks the same true answers, e.g. on another machine, against another
        block of candidates); it is not changed. The merged builder's ranks equal one
        builder fed every chunk of both. A check that fails raises and leaves the
        builder unchanged.

        Examples
        --------
        >>> import rankwise as rw
        >>> pos = [0.5, 0.2]
        >>> one = rw.RankBuilder(pos).update([[0.9, 0.5], [0.1, 0.2]])
        >>> two = rw.RankBuilder(pos).update([[0.1, 0.7], [0.3, 0.0]])
        >>> ranks = one.merge(two).ranks()
        >>> ranks.greater, ranks.equal, ranks.n_candidates
        (array([2, 1]), array([1, 1]), array([5, 5]))
        """
        if not isinstance(other, RankBuilder):
            raise TypeError(f"RankBuilder.merge takes a RankBuilder, got {type(other).__name__}")
        if other._pos.shape != self._pos.shape:
            raise ValueError(f"RankBuilder.merge needs builders of the same queries: {self._pos.shape[0]} "
                             f"here, {other._pos.shape[0]} in the other")
        if not np.array_equal(other._pos, self._pos):
            i = int(np.flatnonzero(other._pos != self._pos)[0])
            raise ValueError(f"RankBuilder.merge needs builders of the same true answers: pos_score[{i}] is "
                             f"{float(self._pos[i])!r} here, {float(other._pos[i])!r} in the other")
        mine, theirs = self._true_index, other._true_index
        if not (mine is None and theirs is None or mine is not None and theirs is not None
                and np.array_equal(mine, theirs)):
            raise ValueError("RankBuilder.merge needs builders with the same true_index (or neither with "
                             "one)")
        if other._nan != self._nan:
            raise ValueError(f"RankBuilder.merge needs builders with the same nan policy: nan={self._nan!r} "
                             f"here, nan={other._nan!r} in the other")
        _check_total(self._counts[:, _UNMASKED] + other._counts[:, _UNMASKED] + 1, "RankBuilder.merge",
                     "; the builder is unchanged")
        self._counts += other._counts
        return self

    def ranks(self) -> Ranks:
        """The Ranks of everything fed so far."""
        return _ranks_from_counts(self._counts, self._nan)
