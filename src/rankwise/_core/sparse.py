"""Users x items matrices (scipy.sparse or dense) in one canonical CSR form.

Recommender data comes as a scipy.sparse matrix of held-out labels, or a mask of the items
to exclude (the training interactions). ``as_csr`` checks such an argument and returns
``Csr``: per row sorted, unique column indices as int64, labels as float64.
``candidate_batch`` turns a dense score matrix with such labels (and items to exclude)
into evaluate's CSR ``Batch``: per user, the scores and labels of the items not excluded. scipy sums
duplicate entries silently when it converts between formats, which would change a label
unseen, so duplicates are looked for before any conversion and refused. scipy is imported
only when the caller passes one of its matrices: ``import scipy.sparse`` would multiply the
time ``import rankwise`` takes.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._enums import Ties
from ._sparse import gather_rows
from .parallel import run_over_queries
from .validation import Batch, _tie_keys, as_array, as_scores, nan_scores_message

__all__ = ["Csr", "as_csr", "candidate_batch", "candidate_nan_error", "dense_scores", "is_sparse"]

# Labels up to this integer travel to the kernels as bytes (one per candidate, not eight).
_BYTE_LABEL = 255


@dataclass(frozen=True)
class Csr:
    """Canonical CSR: row ``i``'s entries are ``indptr[i]:indptr[i+1]``, columns sorted and unique.

    ``data`` holds float64 labels, or is None for a mask (every entry stored is excluded).
    """

    indptr: np.ndarray
    indices: np.ndarray
    data: np.ndarray | None
    shape: tuple[int, int]


def is_sparse(x: Any) -> bool:
    """Whether ``x`` is a scipy.sparse array or matrix, without importing scipy.sparse.

    Examples
    --------
    >>> is_sparse(np.eye(2))
    False
    """
    # A scipy.sparse object exists only once its module was imported by someone.
    module = sys.modules.get("scipy.sparse")
    return module is not None and bool(module.issparse(x))


def dense_scores(y_score: Any) -> np.ndarray:
    """``as_scores(y_score)`` of a users x items score matrix (rows contiguous, NaN not looked
    for), refusing a scipy.sparse one: its unstored scores would silently rank as 0."""
    if is_sparse(y_score):
        raise TypeError("y_score must be a dense array (users x items): a scipy.sparse matrix leaves "
                        "scores out, and they would rank as 0; pass y_score.toarray()")
    return as_scores(y_score, check_nan=False, rows_only=True)


def as_csr(matrix: Any, name: str, *, shape: tuple[int, int] | None = None, mask: bool = False) -> Csr:
    """Check a users x items matrix and return it as ``Csr``, never modifying the caller's.

    ``matrix`` is any scipy.sparse array or matrix, or a dense 2-D array. Labels
    (``mask=False``): non-zero entries are stored, and must be finite and >= 0; explicit
    zeros are dropped (not relevant); a (row, column) given twice is an error. A mask
    (``mask=True``): a dense mask must be boolean (True excludes); of a sparse one every
    stored non-zero entry excludes, and duplicates merge. Errors name ``name``; ``shape``,
    when given, must match.

    Examples
    --------
    >>> csr = as_csr(np.array([[0, 2], [1, 0]]), "y_true")
    >>> csr.indptr.tolist(), csr.indices.tolist(), csr.data.tolist()
    ([0, 1, 2], [1, 0], [2.0, 1.0])
    """
    canonical = _canonical_csr(matrix, mask) if is_sparse(matrix) else None
    if canonical is not None:
        if shape is not None and tuple(shape) != canonical.shape:
            raise ValueError(f"{name} must have shape {tuple(shape)}, got {canonical.shape}")
        return canonical
    if is_sparse(matrix):
        rows, cols, values, found = _coordinates(matrix, name)
    else:
        rows, cols, values, found = _dense_coordinates(matrix, name, mask)
    if shape is not None and tuple(shape) != found:
        raise ValueError(f"{name} must have shape {tuple(shape)}, got {found}")
    if mask and values is not None:
        stored = values != 0
        rows, cols, values = rows[stored], cols[stored], None
    elif values is not None:
        _check_labels(rows, cols, values, name)
    rows, cols, values = _row_major(rows, cols, values)
    repeated = (rows[1:] == rows[:-1]) & (cols[1:] == cols[:-1])
    if repeated.any():
        if not mask:
            i = int(np.flatnonzero(repeated)[0])
            raise ValueError(f"{name} stores (row {rows[i]}, column {cols[i]}) more than once; scipy would "
                             f"add the values silently: call {name}.sum_duplicates() first if that is meant")
        first = np.concatenate(([True], ~repeated))
        rows, cols = rows[first], cols[first]
    if values is not None:
        stored = values != 0
        rows, cols, values = rows[stored], cols[stored], values[stored]
    indptr = np.zeros(found[0] + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=found[0]), out=indptr[1:])
    data = None if mask else np.ascontiguousarray(values, dtype=np.float64)
    return Csr(indptr, np.ascontiguousarray(cols, dtype=np.int64), data, found)


def _canonical_csr(matrix: Any, mask: bool) -> Csr | None:
    """A scipy CSR matrix already in canonical form (each row's columns sorted and unique, no
    stored zero, labels finite and >= 0) as ``Csr``, its arrays read without a sort; None for
    any other, which the general path checks. Going through coordinates made a mask of 1% of a
    20,000 x 20,000 matrix cost top_k two thirds of one read of the scores."""
    if getattr(matrix, "format", None) != "csr" or len(matrix.shape) != 2:
        return None
    values = matrix.data
    if values.dtype.kind not in "biuf" or not matrix.has_canonical_format or not values.all():
        return None
    if not mask and not (np.all(values >= 0) and np.all(np.isfinite(values))):
        return None
    shape = (int(matrix.shape[0]), int(matrix.shape[1]))
    indptr = np.array(matrix.indptr, dtype=np.int64)
    # int64 indices are shared with the caller's matrix, read-only (not copied: 32 MB for 4M).
    indices = np.ascontiguousarray(matrix.indices[:indptr[-1]], dtype=np.int64).view()
    indices.flags.writeable = False
    data = None if mask else np.array(values, dtype=np.float64)
    return Csr(indptr, indices, data, shape)


def _coordinates(matrix: Any, name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, tuple[int, int]]:
    """Row, column and value of every stored entry of a scipy.sparse matrix, duplicates kept."""
    if len(matrix.shape) != 2:
        raise ValueError(f"{name} must be 2-D (users x items), got shape {matrix.shape}")
    # COO keeps every stored entry, duplicates included; conversions to CSR would sum them.
    coo = matrix.tocoo(copy=False)
    if coo.data.dtype.kind not in "biuf":
        raise TypeError(f"{name} must hold numbers (bool, int or float), got dtype {coo.data.dtype}")
    rows, cols = coo.row, coo.col
    shape = (int(matrix.shape[0]), int(matrix.shape[1]))
    return rows.astype(np.int64, copy=False), cols.astype(np.int64, copy=False), coo.data, shape


def _dense_coordinates(matrix: Any, name: str,
                       mask: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, tuple[int, int]]:
    """The stored entries of a dense matrix: its True cells (a mask) or its non-zero ones (labels)."""
    arr = as_array(matrix, name)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be 2-D (users x items), got shape {arr.shape}")
    shape = (int(arr.shape[0]), int(arr.shape[1]))
    if mask:
        if arr.dtype != np.bool_:
            raise TypeError(f"{name} must be a boolean mask (True excludes) or a scipy.sparse matrix, "
                            f"got dtype {arr.dtype}")
        rows, cols = np.nonzero(arr)
        return rows.astype(np.int64), cols.astype(np.int64), None, shape
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must hold numbers (bool, int or float), got dtype {arr.dtype}")
    # NaN is non-zero: kept, for the label check to name it.
    rows, cols = np.nonzero(arr)
    return rows.astype(np.int64), cols.astype(np.int64), arr[rows, cols], shape


def _check_labels(rows: np.ndarray, cols: np.ndarray, values: np.ndarray, name: str) -> None:
    if values.dtype.kind == "b" or not values.size:
        return
    if values.dtype.kind == "f":
        bad = ~(np.isfinite(values) & (values >= 0))
    else:
        bad = values < 0
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{name} must hold finite labels >= 0; found {values[i].item()!r} at row "
                         f"{rows[i]}, column {cols[i]}")


def _row_major(rows: np.ndarray, cols: np.ndarray,
               values: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Entries in (row, column) order, sorted only when they are not already."""
    if rows.size < 2 or np.all((rows[1:] > rows[:-1]) | ((rows[1:] == rows[:-1]) & (cols[1:] >= cols[:-1]))):
        return rows, cols, values
    order = np.lexsort((cols, rows))
    return rows[order], cols[order], None if values is None else values[order]


def candidate_batch(y_true: Any, y_score: Any, exclude: Any, *, doc_ids: Any, ties: Ties,
                    n_threads: int) -> Batch:
    """evaluate's ``Batch`` of a (users x items) ``y_score`` with labels ``y_true`` (scipy.sparse
    or dense) and the items ``exclude`` removes (None: none): row u's list holds its items
    but the excluded, in column order, and their labels (0 where ``y_true`` stores none).

    A label stored for an excluded item is an error (the item cannot be ranked, and
    dropping it would change the user's relevant count unseen). Memory: the candidates'
    scores and labels (a byte each for labels up to 255), and tie keys for ties="trec";
    ``doc_ids`` as for a 2-D ``y_score`` (one row of ids, or one per score), gathered
    with the scores.
    """
    scores = dense_scores(y_score)
    if scores.ndim != 2:
        raise ValueError("a scipy.sparse y_true, and exclude=, need a 2-D y_score (users x items); got "
                         f"y_score of shape {scores.shape}")
    shape = (int(scores.shape[0]), int(scores.shape[1]))
    labels = as_csr(y_true, "y_true", shape=shape)
    excluded = None if exclude is None else as_csr(exclude, "exclude", shape=shape, mask=True)
    n_users, n_items = shape
    offsets = np.arange(n_users + 1, dtype=np.int64) * n_items
    key_values, stride, out_keys = np.empty(0, dtype=np.int64), 0, np.empty(0, dtype=np.int64)
    if ties == Ties.TREC:
        key_values, shared = _tie_keys(doc_ids, shape, offsets, False, None)
        stride = 0 if shared else n_items
    if excluded is not None:
        _refuse_excluded_labels(labels, excluded)
        offsets -= excluded.indptr
    rows_out = (excluded.indptr, excluded.indices) if excluded is not None else (out_keys, out_keys)
    data = labels.data if labels.data is not None else np.empty(0)
    small = not data.size or (data.max() <= _BYTE_LABEL and bool(np.all(data == np.floor(data))))
    out_scores = np.empty(offsets[-1], dtype=scores.dtype)
    out_labels = np.empty(offsets[-1], dtype=np.uint8 if small else np.float64)
    if ties == Ties.TREC:
        out_keys = np.empty(offsets[-1], dtype=np.int64)

    def task(start: int, end: int, stop: np.ndarray) -> None:
        gather_rows(scores, (labels.indptr, labels.indices, data), rows_out, (key_values, stride), start,
                    end, offsets, out_scores, out_labels, out_keys, stop)

    run_over_queries(task, offsets, n_threads)
    max_label = float(data.max()) if data.size else 0.0
    return Batch(offsets, out_scores, out_labels, out_keys, False, np.arange(n_users), max_label)


def _refuse_excluded_labels(labels: Csr, excluded: Csr) -> None:
    """A ValueError naming the first (row, column) that ``exclude`` removes and ``y_true`` labels."""
    n_items = labels.shape[1]
    label_keys = _flat_keys(labels, n_items)
    excluded_keys = _flat_keys(excluded, n_items)
    if not label_keys.size or not excluded_keys.size:
        return
    found = np.minimum(np.searchsorted(label_keys, excluded_keys), label_keys.size - 1)
    both = label_keys[found] == excluded_keys
    if both.any():
        row, column = divmod(int(excluded_keys[np.flatnonzero(both)[0]]), n_items)
        label = labels.data[found[np.flatnonzero(both)[0]]] if labels.data is not None else 1.0
        raise ValueError(f"exclude removes row {row}, column {column}, which y_true labels {label:g}: an "
                         "excluded item is no candidate, so it cannot be relevant; remove it from y_true "
                         "or from exclude")


def _flat_keys(csr: Csr, n_items: int) -> np.ndarray:
    """row * n_items + column of every entry: ascending, as the entries are in row-major order."""
    rows = np.repeat(np.arange(csr.shape[0], dtype=np.int64), np.diff(csr.indptr))
    return rows * n_items + csr.indices


def candidate_nan_error(batch: Batch, exclude: Any) -> ValueError:
    """The error for a NaN among ``candidate_batch``'s scores, naming its first row and column
    in the caller's ``y_score`` (excluded items are not read, so a NaN there is none)."""
    first = int(np.flatnonzero(np.isnan(batch.y_score))[0])
    row = int(np.searchsorted(batch.indptr, first, side="right")) - 1
    column = first - int(batch.indptr[row])
    if exclude is not None:
        # The row's excluded columns, ascending: each at or before the position moves it on.
        excluded = as_csr(exclude, "exclude", mask=True)
        for skipped in excluded.indices[excluded.indptr[row]:excluded.indptr[row + 1]].tolist():
            if skipped <= column:
                column += 1
    return ValueError(nan_scores_message("y_score", f"row {row}, column {column}"))
