"""A document twice in one query: the one search (kernel ``_duplicates``) and the one message.

Rows of arrays count from 0, as NumPy indexes them; lines of files count from 1, as
editors and trec_eval number them.
"""
from __future__ import annotations

from functools import partial

import numpy as np

from ._duplicates import first_duplicate, group_codes
from .parallel import run_alone, run_over_queries

_NO_ORDER = np.empty(0, dtype=np.int64)


def first_duplicate_rows(doc_ids: np.ndarray, order: np.ndarray | None, indptr: np.ndarray,
                         n_threads: int = 1) -> tuple[int, int] | None:
    """The rows ``(a, b)``, ``a < b``, of the same id in one group whose ``b`` comes first, or None.

    Group ``g`` is positions ``indptr[g]:indptr[g + 1]`` of ``order`` (ascending within a
    group; None: the rows themselves), and ``doc_ids`` holds one int64 id per row.

    Examples
    --------
    >>> import numpy as np
    >>> first_duplicate_rows(np.array([4, 5, 5, 4]), None, np.array([0, 4]))
    (1, 2)
    >>> first_duplicate_rows(np.array([4, 5, 4, 5]), np.array([0, 2, 1, 3]), np.array([0, 2, 4]))
    (0, 2)
    """
    through = _NO_ORDER if order is None else order
    found: list[tuple[int, int]] = []

    def task(g_start: int, g_stop: int, stop: np.ndarray) -> None:
        found.append(first_duplicate(doc_ids, through, indptr, g_start, g_stop, stop)[0])

    if np.diff(indptr).max(initial=0) > 1:
        run_over_queries(task, indptr, n_threads)
    pairs = [pair for pair in found if pair[1] >= 0]
    return min(pairs, key=lambda pair: pair[1]) if pairs else None


def first_duplicate_codes(query_codes: np.ndarray, doc_codes: np.ndarray, n_queries: int,
                          n_threads: int = 1) -> tuple[int, int] | None:
    """:func:`first_duplicate_rows` of rows given as query codes in ``[0, n_queries)``.

    Examples
    --------
    >>> import numpy as np
    >>> first_duplicate_codes(np.array([1, 0, 1, 0]), np.array([7, 8, 7, 9]), 2)
    (0, 2)
    """
    if bool(np.all(query_codes[1:] >= query_codes[:-1])):
        # Rows grouped by query, as files usually are (codes are in order first seen).
        order = None
        indptr = np.zeros(n_queries + 1, dtype=np.int64)
        np.cumsum(np.bincount(query_codes, minlength=n_queries), out=indptr[1:])
    else:
        indptr, order = run_alone(partial(group_codes, query_codes, n_queries), query_codes.shape[0] // 4)
    return first_duplicate_rows(doc_codes, order, indptr, n_threads)


def duplicate_message(subject: str, doc: object, query: object, first: int, second: int, *,
                      lines: bool = False) -> str:
    """The error for ``doc`` found twice for ``query``, at rows (or file lines) ``first`` and ``second``.

    ``subject`` names the argument or file, ``query`` the query (a string is quoted, as
    ``doc`` is; None: every query, which share one row of ids).

    Examples
    --------
    >>> duplicate_message("Run", "d1", "q1", 0, 2)
    "Run has document 'd1' twice for query 'q1' (rows 0 and 2); trec_eval rejects duplicates"
    >>> duplicate_message("run.txt", "d1", "q1", 3, 9, lines=True)
    "run.txt has document 'd1' twice for query 'q1' (lines 3 and 9); trec_eval rejects duplicates"
    """
    where = "every query" if query is None else f"query {query!r}"
    return (f"{subject} has document {doc!r} twice for {where} ({'lines' if lines else 'rows'} {first} and "
            f"{second}); trec_eval rejects duplicates")
