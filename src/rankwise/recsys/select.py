"""top_k: the k best items of each row of a (users x items) score matrix, without sorting rows."""
from __future__ import annotations

from typing import Any

import numpy as np

from .._core.parallel import effective_n_threads, run_over_queries
from .._core.sparse import as_csr, dense_scores, is_sparse
from .._core.validation import as_array, check_choice, check_flag, nan_scores_message
from ._select import heap_words, pieces, select_rows

__all__ = ["top_k"]

_TIES = ("stable", "raise")
_NAN = ("raise", "last")
_NAN_FOUND, _TIE_CUT = 1, 2


def top_k(y_score: Any, k: int, *, exclude: Any = None, ties: str = "stable", nan: str = "raise",
          n_threads: int | None = None,
          return_scores: bool = False) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
    """The ids of the ``k`` highest scores of each row, best first.

    No row is sorted: one vectorised read of each row finds the highest score of each
    piece of 64 items; the k-th highest of those bounds the k-th best score from below,
    so only the few pieces reaching it are read again (from cache), and only their items
    reaching it are sorted.

    Parameters
    ----------
    y_score : array_like, shape (n_users, n_items) or (n_items,)
        Scores, float32 or float64 (float32 stays float32; integers are read as float64).
        Read-only and memory-mapped arrays are read in place; a copy is made only when the
        rows are not contiguous. A 1-D array is one row and gives 1-D results.
    k : int
        How many items per row, >= 1. The output has ``min(k, n_items)`` columns.
    exclude : scipy.sparse matrix or bool array, shape (n_users, n_items), optional
        Items never returned (a user's training interactions): every stored non-zero entry
        of a sparse matrix, or True in a boolean mask. Their scores never change
        the result (a NaN there is no error).
    ties : {"stable", "raise"}
        ``"stable"``: among equal scores the lower item id ranks first, as
        ``np.argsort(-s, kind="stable")`` orders them. ``"raise"``: ValueError when the
        k-th returned item ties with an item left out, so that which items are returned
        depends on the tie order. ``torch.topk`` and ``np.argpartition`` break such ties
        in an arbitrary order, which can change a metric from one run (or machine) to the next.
    nan : {"raise", "last"}
        ``"raise"``: ValueError naming the first row and column holding NaN (excluded
        items aside). ``"last"``: NaN ranks below every number (as in :func:`evaluate`),
        NaNs among themselves by item id. +-inf are ordinary numbers.
    n_threads : int, optional
        Threads over rows (default: all available CPUs). The result is the same for any count.
    return_scores : bool
        Also return the scores of the returned items (the dtype of ``y_score``).

    Returns
    -------
    ids : ndarray of int64, shape (n_users, min(k, n_items))
        Item ids in rank order; a row with fewer candidates (after exclusion) than the
        width is padded with -1 at its end.
    scores : ndarray, same shape
        With ``return_scores``: their scores, NaN for the padding.

    Examples
    --------
    >>> import numpy as np
    >>> scores = np.array([[0.1, 0.9, 0.5, 0.9], [0.3, 0.2, 0.1, 0.0]], dtype=np.float32)
    >>> top_k(scores, 2)
    array([[1, 3],
           [0, 1]])
    >>> top_k(scores, 3, exclude=np.array([[False, True, False, False], [True, True, True, False]]))
    array([[ 3,  2,  0],
           [ 3, -1, -1]])
    """
    scores = dense_scores(y_score)
    if scores.ndim not in (1, 2):
        raise ValueError(f"y_score must be 1-D (one row) or 2-D (users x items), got shape {scores.shape}")
    width = min(_check_k(k), scores.shape[-1])
    watch_ties = check_choice(ties, "ties", _TIES) == "raise"
    nan_last = check_choice(nan, "nan", _NAN) == "last"
    with_scores = check_flag(return_scores, "return_scores")
    threads = effective_n_threads(n_threads)
    matrix = scores if scores.ndim == 2 else scores[np.newaxis]
    excluded = _excluded(exclude, scores.ndim, matrix.shape)
    n_users, n_items = matrix.shape
    out = np.empty((n_users, width), dtype=np.int64)
    out_scores = np.empty((n_users, width) if with_scores else (0, 0), dtype=matrix.dtype)
    problems: list[tuple[int, int, int]] = []

    n_pieces = pieces(n_items, excluded[0])

    def task(start: int, end: int, stop: np.ndarray) -> None:
        scratch = (np.empty(n_pieces), np.empty(2 * n_pieces), np.empty(2 * n_pieces, dtype=np.int64),
                   np.empty(heap_words(width, n_items), dtype=np.int64))
        problem = select_rows(matrix, excluded, (nan_last, watch_ties), start, end, out, out_scores, scratch,
                              stop)
        if problem is not None:
            problems.append(problem)

    if width:
        run_over_queries(task, np.arange(n_users + 1, dtype=np.int64) * n_items, threads)
    if problems:
        raise _problem(min(problems), scores.ndim)
    if scores.ndim == 1:
        out, out_scores = out[0], out_scores[0] if with_scores else out_scores
    return (out, out_scores) if with_scores else out


def _check_k(k: object) -> int:
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)):
        raise TypeError(f"k must be an integer >= 1, got {k!r}")
    if k < 1:
        raise ValueError(f"k must be an integer >= 1, got {k!r}")
    return int(k)


def _excluded(exclude: Any, ndim: int, shape: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """The excluded items as int64 CSR (indptr, indices); two empty arrays for none."""
    if exclude is None:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
    if ndim == 1 and not is_sparse(exclude):
        # One row's mask for one row of scores.
        mask = as_array(exclude, "exclude")
        exclude = mask[np.newaxis] if mask.ndim == 1 else mask
    csr = as_csr(exclude, "exclude", shape=shape, mask=True)
    return csr.indptr, csr.indices


def _problem(problem: tuple[int, int, int], ndim: int) -> ValueError:
    row, column, kind = problem
    where = f"position {column}" if ndim == 1 else f"row {row}, column {column}"
    if kind == _NAN_FOUND:
        return ValueError(nan_scores_message("y_score", where))
    return ValueError(f"ties='raise': in {'y_score' if ndim == 1 else f'row {row}'}, the k-th item (item "
                      f"{column}) ties with an item left out, so the top-k depends on how ties are "
                      "broken; pass ties='stable' to take the lower item ids first")
