"""Integer ids for Qrels and Run: kept as int64 arrays, never turned into strings.

trec_eval compares ids as text, so integer ids behave as their decimal text would in
a file: the order of tied documents and of queries is the byte order of that text
(``trec/_ids.pxd`` computes it from the integers), and an integer id matches a
string id only if the string is its canonical decimal form ("7", never "07" or "+7").
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np

from .._core._duplicates import first_duplicate
from .._core._group import group_by_query, run_starts
from .._core.duplicates import duplicate_message, first_duplicate_rows
from .._core.parallel import run_alone
from .._core.strings import StringTable
from .._core.validation import as_array
from ._ids import decimal_keys

__all__ = ["IdColumns", "as_ids", "byte_order", "canonical_ints", "id_columns"]

_INT64_MAX = np.iinfo(np.int64).max
_CANONICAL = re.compile(r"-?[1-9][0-9]{0,18}|0")
# Runs of query ids first checked for a repeat on their own (see group_rows).
_PROBE_RUNS = 4096


@dataclass(eq=False)
class IdColumns:
    """Rows of a Qrels or Run with integer query and document ids.

    Attributes
    ----------
    query_ids, doc_ids : numpy.ndarray
        int64 per row, in the order given.
    values : numpy.ndarray
        float64 relevance (qrels) or score (run) per row.
    queries : numpy.ndarray
        The distinct query ids, in the order first seen.
    indptr : numpy.ndarray
        Rows of ``queries[g]`` are ``order[indptr[g]:indptr[g + 1]]`` (or that slice of
        the rows themselves when ``order`` is None: the rows are grouped already).
    order : numpy.ndarray or None
        A stable permutation grouping the rows by query (None once :meth:`grouped` has
        applied it).
    """

    query_ids: np.ndarray
    doc_ids: np.ndarray
    values: np.ndarray
    queries: np.ndarray
    indptr: np.ndarray
    order: np.ndarray | None
    _grouped: tuple | None = field(default=None, repr=False)

    def grouped(self) -> tuple[np.ndarray, np.ndarray]:
        """Document ids and values with the rows grouped by query.

        Rows not grouped as given are copied into that order once; the order is then
        dropped, so the copies take its place in memory.
        """
        if self.order is not None:
            self._grouped = (self.doc_ids[self.order], self.values[self.order])
            self.order = None
        return self._grouped or (self.doc_ids, self.values)


def as_ids(ids: Any, name: str, copy: bool) -> np.ndarray | None:
    """``ids`` as int64 if it holds integers, None if it holds strings (or objects)."""
    if ids is None:
        raise TypeError(f"{name} must be a 1-D array of integer or string ids, got None")
    arr = as_array(ids, name, wide="object")
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {arr.shape}")
    if arr.dtype.kind in "USO":
        return None
    if arr.dtype.kind == "f":
        raise TypeError(f"{name} must hold integers or strings, got {arr.dtype}: a float id would be the "
                        "text '1.0', never the '1' of a TREC file (convert integral floats with "
                        "astype(np.int64))")
    if arr.dtype.kind not in "iu":
        raise TypeError(f"{name} must hold integers or strings, got {arr.dtype}")
    if arr.dtype == np.uint64 and arr.size and arr.max() > _INT64_MAX:
        raise ValueError(f"{name} holds integers above 2**63 - 1; pass them as strings")
    return np.array(arr, dtype=np.int64) if copy else np.ascontiguousarray(arr, dtype=np.int64)


def group_rows(query_ids: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Distinct query ids (first seen first), group boundaries and the grouping order.

    Rows whose queries are contiguous (each query one run) keep their order (None);
    others are grouped by a hash table of the query ids and a counting sort, whose
    order takes one int64 per row. Scratch: one int64 per run of query ids (beside the
    run starts) while runs are checked for repeats, a table of the distinct ids while
    rows are grouped.
    """
    n = query_ids.shape[0]
    # Through the runner (run_alone), like every kernel of a long call: Ctrl-C within milliseconds.
    starts = run_alone(partial(run_starts, query_ids), n // 8)
    heads, n_runs = starts[:-1], starts.shape[0] - 1
    # Shuffled rows repeat a query within a few thousand runs: a small table finds that
    # before every run is checked.
    if not (_repeats(query_ids, heads, min(n_runs, _PROBE_RUNS))
            or (n_runs > _PROBE_RUNS and _repeats(query_ids, heads, n_runs))):
        # One row per query: the ids themselves (a view, read-only like every result here).
        queries = query_ids[heads] if n_runs < query_ids.shape[0] else query_ids.view()
        queries.flags.writeable = False
        return queries, starts, None
    del starts, heads
    queries, indptr, order, _ = run_alone(partial(group_by_query, query_ids), n // 2)
    queries.flags.writeable = False
    return queries, indptr, order


def _repeats(ids: np.ndarray, rows: np.ndarray, n: int) -> bool:
    """Whether two of ``ids[rows[:n]]`` are equal."""
    find = partial(first_duplicate, ids, rows, np.array([0, n], dtype=np.int64), 0, 1)
    return run_alone(find, n // 2)[0][1] >= 0


def id_columns(query_ids: np.ndarray, doc_ids: np.ndarray, values: np.ndarray, what: str,
               n_threads: int) -> IdColumns:
    """Group integer-id rows by query and reject a document repeated within a query."""
    queries, indptr, order = group_rows(query_ids)
    repeat = first_duplicate_rows(doc_ids, order, indptr, n_threads)
    if repeat is not None:
        a, b = repeat
        raise ValueError(duplicate_message(what, int(doc_ids[b]), int(query_ids[b]), a, b))
    return IdColumns(query_ids, doc_ids, values, queries, indptr, order)


def byte_order(ids: np.ndarray) -> np.ndarray:
    """Rank of each integer id with the ids sorted by the bytes of their decimal text.

    Examples
    --------
    >>> byte_order(np.array([10, 9, -1, 100, 0]))     # "-1" < "0" < "10" < "100" < "9"
    array([2, 4, 0, 3, 1])
    """
    sign, digits, lengths = decimal_keys(np.ascontiguousarray(ids, dtype=np.int64))
    ranks = np.empty(ids.shape[0], dtype=np.int64)
    ranks[np.lexsort((lengths, digits, sign))] = np.arange(ids.shape[0])
    return ranks


def canonical_ints(table: StringTable) -> tuple[np.ndarray, np.ndarray]:
    """Each string's integer value and whether it is an integer's canonical decimal text.

    Examples
    --------
    >>> table, _ = StringTable.from_strings(["7", "07", "-3", "x", "99999999999999999999"])
    >>> canonical_ints(table)
    (array([ 7,  0, -3,  0,  0]), array([ True, False,  True, False, False]))
    """
    strings = table.to_numpy()
    values = np.zeros(strings.shape[0], dtype=np.int64)
    ok = np.zeros(strings.shape[0], dtype=bool)
    for i, s in enumerate(strings):
        if _CANONICAL.fullmatch(s) and -_INT64_MAX - 1 <= int(s) <= _INT64_MAX:
            values[i] = int(s)
            ok[i] = True
    return values, ok
