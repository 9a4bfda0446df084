"""ExactSum: exactly rounded sums that can be split, merged and pickled.

Every mean of per-query values outside trec_eval's own summary is such a sum divided by
the count, so it does not depend on the order of the queries, the threads, the batches of
an :class:`rankwise.Accumulator` or the partitions of a cluster: the same digits
everywhere. The kernel (``_exact.pyx``) adds the values without rounding into wide
integers; this module keeps them as Python ints, merges them, and rounds once.
"""
from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from ._exact import DIGIT_BITS, N_DIGITS, exact_sums
from .parallel import effective_n_threads, run_over_range

__all__ = ["ExactSum"]

# The kernel's unit: every finite float64 is a whole number of 2**-1074.
_UNIT = 1 << 1074
# Where the top digit (the only one with a sign once normalised) starts.
_TOP_SHIFT = DIGIT_BITS * (N_DIGITS - 1)


def _as_columns(values: ArrayLike) -> np.ndarray:
    arr = np.asarray(values)
    if arr.dtype.kind not in "biuf" or arr.ndim not in (1, 2):
        raise ValueError(f"ExactSum takes a 1-D or 2-D array of numbers, got {arr.ndim}-D {arr.dtype}")
    arr = arr.astype(np.float64, copy=False)
    return arr[:, None] if arr.ndim == 1 else arr


def _digits_to_int(digits: np.ndarray) -> int:
    """The integer a normalised row of digits holds: all but the top in [0, 2**32), the top signed."""
    low = int.from_bytes(digits[:-1].astype("<u4").tobytes(), "little")
    return low + (int(digits[-1]) << _TOP_SHIFT)


def _rounded(total: int, pos_inf: int, neg_inf: int) -> float:
    """``total * 2**-1074`` correctly rounded (Python's int division is), with IEEE's infinities."""
    if pos_inf and neg_inf:
        return math.nan
    if pos_inf or neg_inf:
        return math.inf if pos_inf else -math.inf
    try:
        return total / _UNIT
    except OverflowError:  # beyond the largest float64: IEEE rounds to infinity
        return math.inf if total > 0 else -math.inf


class ExactSum:
    """Exactly rounded, mergeable sums of the columns of float64 arrays.

    ``sums()[j]`` is the sum of every non-NaN value added to column ``j``, rounded once
    (as :func:`math.fsum`): the same whatever the order of the values, how they were
    split between :meth:`add` calls and :meth:`merge`\\ s, or the thread count. NaN
    values are skipped and not counted (they mark queries left out by
    ``empty="skip"``); infinities sum as IEEE arithmetic does. Small and picklable:
    one Python int and three counts per column.

    Parameters
    ----------
    n_columns : int
        Number of columns summed.

    Examples
    --------
    >>> import numpy as np
    >>> from rankwise._core.exact import ExactSum
    >>> values = np.array([1e16, 1.0, -1e16, 1.0, np.nan])
    >>> sum(values[:4].tolist()), ExactSum.of(values).sums()  # left to right, then exactly
    (1.0, [2.0])
    >>> parts = ExactSum.of(values[:2]).merge(ExactSum.of(values[2:]))
    >>> parts.sums(), parts.means(), parts.counts
    ([2.0], [0.5], array([4]))
    """

    def __init__(self, n_columns: int) -> None:
        self._totals = [0] * n_columns
        self.counts = np.zeros(n_columns, dtype=np.int64)
        self._infinities = np.zeros((n_columns, 2), dtype=np.int64)

    @classmethod
    def of(cls, values: ArrayLike) -> ExactSum:
        """The sums of ``values``: 1-D (one column) or 2-D (rows x columns)."""
        columns = _as_columns(values)
        return cls(columns.shape[1]).add(columns)

    @property
    def n_columns(self) -> int:
        return len(self._totals)

    def add(self, values: ArrayLike) -> ExactSum:
        """Add the rows of ``values`` (1-D for one column); returns self."""
        columns = _as_columns(values)
        if columns.shape[1] != self.n_columns:
            raise ValueError(f"values has {columns.shape[1]} columns, this ExactSum sums {self.n_columns}")
        parts: dict[int, tuple[np.ndarray, np.ndarray]] = {}

        def task(r_start: int, r_stop: int, stop: np.ndarray) -> None:
            digits = np.zeros((self.n_columns, N_DIGITS), dtype=np.int64)
            specials = np.zeros((self.n_columns, 3), dtype=np.int64)
            if exact_sums(columns, r_start, r_stop, digits, specials, stop):
                parts[r_start] = (digits, specials)

        run_over_range(task, columns.shape[0], effective_n_threads(None), columns.size)
        for digits, specials in parts.values():
            for j in range(self.n_columns):
                self._totals[j] += _digits_to_int(digits[j])
            self.counts += specials[:, 0]
            self._infinities += specials[:, 1:]
        return self

    def merge(self, other: ExactSum) -> ExactSum:
        """Add what ``other`` summed (the same number of columns); returns self."""
        if not isinstance(other, ExactSum):
            raise TypeError(f"merge takes an ExactSum, got {type(other).__name__}")
        if other.n_columns != self.n_columns:
            raise ValueError(f"cannot merge an ExactSum of {other.n_columns} columns into one of "
                             f"{self.n_columns}")
        self._totals = [a + b for a, b in zip(self._totals, other._totals, strict=True)]
        self.counts += other.counts
        self._infinities += other._infinities
        return self

    def sums(self) -> list[float]:
        """The exactly rounded sum of each column (0.0 when nothing was counted)."""
        return [_rounded(total, int(pos), int(neg))
                for total, (pos, neg) in zip(self._totals, self._infinities.tolist(), strict=True)]

    def means(self) -> list[float]:
        """Each column's exactly rounded sum divided by its count; NaN for a column with no value."""
        return [total / int(count) if count else math.nan
                for total, count in zip(self.sums(), self.counts, strict=True)]

    def __repr__(self) -> str:
        return f"ExactSum(sums={self.sums()}, counts={self.counts.tolist()})"
