"""Recommender layouts: top-k lists of item ids and users' relevant items, in one form each.

``recommended`` (what a model recommends) becomes ``Lists``: item ids per user in rank
order, grouped by offsets, the caller's int32 or int64 array kept without a copy where
it can be. ``relevant`` (held-out interactions) becomes ``_core.sparse.Csr``: per user
sorted, unique item ids and their grades (explicit zeros dropped: not relevant). Users
are row positions for arrays, lists and sparse matrices, and ids for dicts and
DataFrames; ``align`` puts the two arguments on one axis of users.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from .._core.parallel import effective_n_threads, run_over_queries
from .._core.sparse import Csr, as_csr, is_sparse
from .._core.validation import as_array, as_host, as_integers
from ._topk import evaluate_range

__all__ = ["Lists", "align", "as_recommended", "as_relevant", "check_n_items", "code_items", "list_error",
           "recommended_layout", "scan_lists"]

# What the kernel reports of a bad list (_topk.pyx's codes).
_BAD_ID, _REPEATED, _AFTER_PADDING = 1, 2, 3


@dataclass(frozen=True)
class Lists:
    """Recommended lists: user ``u``'s items are ``items[indptr[u]:indptr[u+1]]``, in rank order.

    ``items`` is int32 or int64 (the caller's array when it was one of those). With
    ``padded``, a list may end in -1s (the (users, K) layout), which are no items.
    ``user_ids`` are the users' ids (sorted), or None when users are row positions.
    """

    indptr: np.ndarray
    items: np.ndarray
    n_users: int
    user_ids: np.ndarray | None
    padded: bool = False


def _py(x: Any) -> Any:
    """A NumPy scalar as the Python value it holds, as errors show it."""
    return x.item() if isinstance(x, np.generic) else x


def check_n_items(n_items: object) -> int | None:
    """``n_items``: None, or the number of items (ids 0..n_items-1), an integer >= 1."""
    if n_items is None:
        return None
    if isinstance(n_items, (bool, np.bool_)) or not isinstance(n_items, (int, np.integer)):
        raise TypeError(f"n_items must be an integer >= 1 or None, got {n_items!r}")
    if n_items < 1:
        raise ValueError(f"n_items must be an integer >= 1 or None, got {n_items!r}")
    return int(n_items)


def _item_ids(values: Any, name: str, labels: bool = False) -> np.ndarray:
    """An integer array of item ids as int32 or int64, copied only from other integer types;
    with ``labels``, strings (or other objects) are returned as they are, for ``code_items``."""
    arr = as_integers(values, name, "item ids from -1 up", TypeError)
    if labels and arr.dtype.kind in "OUS":
        return arr
    if arr.size == 0 and not isinstance(values, np.ndarray):
        # NumPy gives an empty Python list the dtype float64: a user's empty list, not floats.
        arr = arr.astype(np.int64)
    if arr.dtype.kind not in "iu":
        raise TypeError(f"{name} must hold integer item ids, got dtype {arr.dtype}")
    if arr.dtype.kind == "u" and arr.size and int(arr.max()) > np.iinfo(np.int64).max:
        raise ValueError(f"{name} holds the item id {int(arr.max())}, beyond int64")
    wanted = np.int32 if arr.dtype.itemsize <= 2 or arr.dtype == np.int32 else np.int64
    return np.ascontiguousarray(arr, dtype=wanted)


def recommended_layout(recommended: Any, name: str = "recommended") -> Lists:
    """``recommended`` as Lists, its layout checked but not yet its ids (``scan_lists`` does)."""
    recommended = as_host(recommended, name)
    if _is_frame(recommended):
        return _lists_of_frame(recommended, name)
    if isinstance(recommended, (list, tuple)):
        rows = [_item_ids(row, f"{name}[{i}]") for i, row in enumerate(recommended)]
        for i, row in enumerate(rows):
            if row.ndim != 1:
                raise ValueError(f"{name}[{i}] must be a 1-D array of item ids, got shape {row.shape}")
        indptr = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum([row.size for row in rows], out=indptr[1:])
        dtype = np.int64 if any(row.dtype == np.int64 for row in rows) else np.int32
        items = np.concatenate(rows).astype(dtype, copy=False) if rows else np.zeros(0, dtype=np.int32)
        return Lists(indptr, items, len(rows), None, padded=True)
    arr = _item_ids(recommended, name)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 2-D (users, K) array of item ids, a list of 1-D arrays or a "
                         f"DataFrame (user, item, rank or score); got an array of shape {arr.shape}")
    n_users, width = arr.shape
    indptr = np.arange(0, (n_users + 1) * width, width, dtype=np.int64) if width else np.zeros(n_users + 1,
                                                                                                 dtype=np.int64)
    return Lists(indptr, arr.reshape(-1), n_users, None, padded=True)


def _is_frame(x: Any) -> bool:
    return type(x).__name__ == "DataFrame" and hasattr(x, "columns") and hasattr(x, "to_numpy")


def _columns(frame: Any, name: str, required: tuple[str, ...], optional: tuple[str, ...]) -> dict[str, Any]:
    columns = [str(c) for c in frame.columns]
    missing = [c for c in required if c not in columns]
    if missing:
        raise ValueError(f"{name}: a DataFrame needs the columns {', '.join(required)}"
                         f"{' and ' + ' or '.join(optional) if optional else ''}; "
                         f"missing {', '.join(missing)} "
                         f"(columns: {', '.join(columns)})")
    return {c: frame[c].to_numpy() for c in required + optional if c in columns}


def _lists_of_frame(frame: Any, name: str) -> Lists:
    """(user, item, rank): rank ascending; (user, item, score): score descending, ties refused."""
    cols = _columns(frame, name, ("user", "item"), ("rank", "score"))
    if ("rank" in cols) == ("score" in cols):
        raise ValueError(f"{name}: a DataFrame of lists needs exactly one of the columns rank "
                         "(1 = first) and score (higher first)")
    user_ids, users = np.unique(cols["user"], return_inverse=True)
    items = _item_ids(cols["item"], f"{name}['item']", labels=True)
    if "rank" in cols:
        key = as_integers(cols["rank"], f"{name}['rank']", "from 1", TypeError)
        if key.dtype.kind not in "iu":
            raise TypeError(f"{name}['rank'] must hold integers (1 = first), got dtype {key.dtype}")
        order = np.lexsort((key, users))
    else:
        key = as_array(cols["score"], f"{name}['score']")
        if key.dtype.kind not in "iuf" or np.isnan(key.astype(np.float64)).any():
            raise ValueError(f"{name}['score'] must hold numbers without NaN (higher ranks first)")
        order = np.lexsort((-key.astype(np.float64), users))
    users, key = users[order], key[order]
    indptr = np.zeros(user_ids.size + 1, dtype=np.int64)
    np.cumsum(np.bincount(users, minlength=user_ids.size), out=indptr[1:])
    _check_order(users, key, indptr, user_ids, "rank" in cols, name)
    return Lists(indptr, np.ascontiguousarray(items[order]), int(user_ids.size), user_ids)


def _check_order(users: np.ndarray, key: np.ndarray, indptr: np.ndarray, user_ids: np.ndarray, by_rank: bool,
                 name: str) -> None:
    """Ranks 1..n per user; or scores without ties, which would leave the order undefined."""
    if by_rank:
        expected = np.arange(users.size) - indptr[users] + 1
        bad = np.flatnonzero(key != expected)
        if bad.size:
            i = int(bad[0])
            raise ValueError(f"{name}: the ranks of user {_py(user_ids[users[i]])!r} must be 1, 2, ..., n "
                             f"(each once); found {_py(key[i])!r} where {expected[i]} belongs")
        return
    tied = np.flatnonzero((users[1:] == users[:-1]) & (key[1:] == key[:-1]))
    if tied.size:
        i = int(tied[0])
        raise ValueError(f"{name}: user {_py(user_ids[users[i]])!r} has two items with the score "
                         f"{_py(key[i])!r}, so their order is not defined; pass ranks, or evaluate the "
                         "scores with rw.evaluate(..., ties=...) to choose a tie policy")


def scan_lists(lists: Lists, n_items: int, name: str, n_threads: int | None = None) -> np.ndarray:
    """Check every id of ``lists`` (range, repeats, padding) and return each list's length."""
    n = lists.n_users
    empty = (np.zeros(n + 1, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64))
    spec = (np.zeros(0, np.int32), np.zeros(0, np.int64), np.zeros(0, np.uint8), np.zeros(0),
            np.zeros(0, np.uint8))
    output = (np.zeros((n, 0)), np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64))
    options = {"n_items": n_items, "level": 1.0, "max_grade": 1.0, "max_relevant": 0}
    errors: list[np.ndarray] = []

    def task(start: int, stop_at: int, stop: np.ndarray) -> None:
        error = np.zeros(4, dtype=np.int64)
        if evaluate_range(lists.items, lists.indptr, empty, spec, options, start, stop_at, output, error,
                          stop):
            errors.append(error)

    run_over_queries(task, lists.indptr, effective_n_threads(n_threads))
    raise_first(errors, lists, n_items, name)
    return output[2]


def raise_first(errors: list[np.ndarray], lists: Lists, n_items: int, name: str) -> None:
    """Raise the error of the first bad list (by user), if any task found one."""
    if errors:
        raise list_error(min(errors, key=lambda e: int(e[0])), lists, n_items, name)


def list_error(error: np.ndarray, lists: Lists, n_items: int, name: str) -> ValueError:
    """The ValueError for what the kernel found wrong in a list: ``error`` = (user, position, kind, first)."""
    row, pos, kind, first = (int(x) for x in error)
    user = row if lists.user_ids is None else _py(lists.user_ids[row])
    item = _py(lists.items[lists.indptr[row] + pos])
    where = f"{name}: user {user!r}"
    if kind == _REPEATED:
        return ValueError(f"{where} lists item {item!r} twice, at positions {first} and {pos} (from 0)")
    if kind == _AFTER_PADDING:
        return ValueError(f"{where} has item {item} at position {pos} after the -1 padding at position "
                          f"{first} (from 0); -1 may only pad the end of a list")
    return ValueError(f"{where} has item id {item} at position {pos} (from 0), out of range: ids are 0 to "
                      f"{n_items - 1} (n_items={n_items}), and -1 pads the end of a list")


def as_recommended(recommended: Any, name: str = "recommended", *, n_items: int | None = None,
                   n_threads: int | None = None) -> Lists:
    """``recommended`` as checked Lists, without padding.

    ``recommended`` is an integer (users, K) array of item ids in rank order (-1 pads a
    short list at its end), a list of 1-D arrays, or a pandas DataFrame with columns
    (user, item, rank) (rank 1 first, ranks 1..n per user) or (user, item, score) (higher
    first; tied scores of one user are an error). ``n_items``: ids are 0..n_items-1
    (default: up to the largest id). A repeated item, an id out of range, or an id after
    the padding raises ValueError naming ``name``, the user and the position.

    Examples
    --------
    >>> lists = as_recommended(np.array([[3, 1, -1], [0, 2, 1]]))
    >>> lists.indptr.tolist(), lists.items.tolist()
    ([0, 2, 5], [3, 1, 0, 2, 1])
    """
    n_items = check_n_items(n_items)
    lists = recommended_layout(recommended, name)
    if lists.items.dtype.kind not in "iu":
        raise TypeError(f"{name} must name items by integer ids (0 to n_items - 1), got {lists.items.dtype} "
                        "labels")
    if n_items is None:
        n_items = int(lists.items.max()) + 1 if lists.items.size else 1
    lengths = scan_lists(lists, max(n_items, 1), name, n_threads)
    if not lists.padded or np.array_equal(lengths, np.diff(lists.indptr)):
        return replace(lists, padded=False)
    keep = np.arange(lists.items.size) - np.repeat(lists.indptr[:-1], np.diff(lists.indptr)) < np.repeat(
        lengths, np.diff(lists.indptr))
    indptr = np.zeros_like(lists.indptr)
    np.cumsum(lengths, out=indptr[1:])
    return Lists(indptr, lists.items[keep], lists.n_users, lists.user_ids)


def as_relevant(relevant: Any, name: str = "relevant", *,
                n_items: int | None = None) -> tuple[Csr, np.ndarray | None, np.ndarray | None]:
    """``relevant`` as Csr (users x items, grades), its user ids (None: row positions) and its
    item labels (None: the items are ids 0..; else Csr's indices are codes into the sorted labels).

    A scipy.sparse matrix or a NumPy array: users x items, values are grades (explicit
    zeros not relevant). A list (or tuple) of arrays of item ids: grade 1. A dict user ->
    item ids, or user -> {item: grade}. A DataFrame with columns (user, item[, grade]).
    The Csr's width is the matrix's, else ``n_items``, else the largest id + 1. Dicts and
    DataFrames may name items by strings (labels).
    """
    relevant = as_host(relevant, name)
    if is_sparse(relevant) or isinstance(relevant, np.ndarray):
        csr = as_csr(relevant, name)
        if n_items is not None and n_items != csr.shape[1]:
            raise ValueError(f"n_items={n_items} differs from the {csr.shape[1]} items (columns) of {name}")
        return csr, None, None
    if _is_frame(relevant):
        cols = _columns(relevant, name, ("user", "item"), ("grade",))
        user_ids, users = np.unique(cols["user"], return_inverse=True)
        grades = cols.get("grade", np.ones(users.size))
        csr, labels = _csr_of_pairs(users, cols["item"], grades, user_ids, n_items, name)
        return csr, user_ids, labels
    if isinstance(relevant, Mapping):
        return _csr_of_dict(relevant, n_items, name)
    if isinstance(relevant, (list, tuple)):
        rows = [as_integers(row, f"{name}[{i}]", "from 0", TypeError) for i, row in enumerate(relevant)]
        for i, row in enumerate(rows):
            if row.ndim != 1 or (row.size and row.dtype.kind not in "iu"):
                raise TypeError(f"{name}[{i}] must be a 1-D array of integer item ids, got "
                                f"{row.dtype} of shape {row.shape}")
        users = np.repeat(np.arange(len(rows)), [row.size for row in rows])
        items = np.concatenate(rows).astype(np.int64) if rows else np.zeros(0, dtype=np.int64)
        csr, _ = _csr_of_pairs(users, items, np.ones(items.size), np.arange(len(rows)), n_items, name)
        return csr, None, None
    raise TypeError(f"{name} must be a scipy.sparse matrix or NumPy array (users x items), a list of arrays "
                    f"of item ids, a dict user -> items, or a DataFrame (user, item[, grade]); got "
                    f"{type(relevant).__name__}")


def _csr_of_dict(relevant: Mapping[Any, Any], n_items: int | None,
                 name: str) -> tuple[Csr, np.ndarray, np.ndarray | None]:
    """A dict user -> item ids (grade 1) or user -> {item: grade}, users sorted by id."""
    keys = list(relevant)
    user_ids = as_array(keys, f"{name}'s users", wide="object") if keys else np.zeros(0, dtype=np.int64)
    order = np.argsort(user_ids, kind="stable")
    users, items, grades = [], [], []
    for row, i in enumerate(order.tolist()):
        value = relevant[keys[i]]
        if isinstance(value, Mapping):
            ids, values = list(value), list(value.values())
        else:
            ids = list(value) if isinstance(value, (set, frozenset)) else np.asarray(value).ravel().tolist()
            values = [1] * len(ids)
        users.append(np.full(len(ids), row, dtype=np.int64))
        items.extend(ids)
        grades.extend(values)
    rows = np.concatenate(users) if users else np.zeros(0, dtype=np.int64)
    csr, labels = _csr_of_pairs(rows, items, grades, user_ids[order], n_items, name)
    return csr, user_ids[order], labels


def _csr_of_pairs(users: np.ndarray, items: Any, grades: Any, user_ids: np.ndarray, n_items: int | None,
                  name: str) -> tuple[Csr, np.ndarray | None]:
    """Csr of (user row, item, grade) triples: ids in range, grades finite and >= 0, no pair
    twice; and the sorted item labels when items are strings (then Csr's indices are codes)."""
    items = as_integers(items, f"{name}'s item ids", "from 0", TypeError).reshape(-1)
    labels = None
    if items.size and items.dtype.kind in "OUS":
        if n_items is not None:
            raise TypeError(f"n_items applies to integer item ids; {name} names items by labels "
                            f"({items.dtype})")
        labels, items = _codes(items, f"{name}'s item ids")
    if items.size and items.dtype.kind not in "iu":
        raise TypeError(f"{name}'s item ids must be integers or strings, got dtype {items.dtype}")
    grades = as_array(grades, f"{name}'s grades").reshape(-1)
    if grades.size and grades.dtype.kind not in "biuf":
        raise TypeError(f"{name}'s grades must be numbers, got dtype {grades.dtype}")
    items, grades = items.astype(np.int64), grades.astype(np.float64)
    width = n_items if n_items is not None else (int(items.max()) + 1 if items.size else 1)
    bad = np.flatnonzero((items < 0) | (items >= width) | ~np.isfinite(grades) | (grades < 0))
    if bad.size:
        i = int(bad[0])
        what = (f"item id {items[i]} out of range (0 to {width - 1})" if not 0 <= items[i] < width
                else f"grade {_py(grades[i])!r}, not a finite number >= 0")
        raise ValueError(f"{name}: user {_py(user_ids[users[i]])!r} has {what}")
    order = np.lexsort((items, users))
    users, items, grades = users[order], items[order], grades[order]
    twice = np.flatnonzero((users[1:] == users[:-1]) & (items[1:] == items[:-1]))
    if twice.size:
        i = int(twice[0])
        item = items[i] if labels is None else labels[items[i]]
        raise ValueError(f"{name}: user {_py(user_ids[users[i]])!r} has item {_py(item)!r} twice")
    stored = grades != 0
    indptr = np.zeros(user_ids.size + 1, dtype=np.int64)
    np.cumsum(np.bincount(users[stored], minlength=user_ids.size), out=indptr[1:])
    return Csr(indptr, items[stored], grades[stored], (int(user_ids.size), width)), labels


def _codes(labels: np.ndarray, name: str) -> tuple[np.ndarray, np.ndarray]:
    """The sorted distinct labels and each label's code (its index among them)."""
    try:
        return np.unique(labels, return_inverse=True)
    except TypeError:
        raise TypeError(f"{name} mix labels that cannot be ordered (strings and numbers?)") from None


def code_items(lists: Lists, relevant: Csr, labels: np.ndarray | None) -> tuple[Lists, Csr]:
    """Lists and relevant items on one axis of codes when either names items by labels
    (strings): codes into the sorted labels of both; otherwise both as they are."""
    listed = lists.items.dtype.kind in "OUS" and lists.items.size > 0
    if labels is None and not listed:
        return lists, relevant
    if (labels is None and relevant.indices.size) or (not listed and lists.items.size):
        raise TypeError("recommended and relevant must both name items by integer ids or both by labels "
                        "(strings)")
    known = labels if labels is not None else np.zeros(0, dtype=lists.items.dtype)
    union = _codes(np.concatenate([known, lists.items]), "the item labels of recommended and relevant")[0]
    items = np.searchsorted(union, lists.items).astype(np.int64)
    indices = np.searchsorted(union, known)[relevant.indices] if known.size else relevant.indices
    shape = (relevant.shape[0], max(int(union.size), 1))
    return replace(lists, items=items), Csr(relevant.indptr, indices, relevant.data, shape)


def align(lists: Lists, relevant: Csr, relevant_ids: np.ndarray | None, *,
          drop_absent: bool = False) -> tuple[Lists, Csr, np.ndarray]:
    """Both arguments on one sorted axis of users: their union (rows of empty lists, or of no
    relevant item, where a user is missing), or only the users of ``lists`` (``drop_absent``)."""
    if lists.user_ids is None and relevant_ids is None:
        if lists.n_users != relevant.shape[0]:
            raise ValueError(f"relevant has {relevant.shape[0]} users (rows) and recommended "
                             f"{lists.n_users}: both must list the same users")
        return lists, relevant, np.arange(lists.n_users)
    list_ids = _ids(lists.user_ids, lists.n_users, "recommended", relevant_ids)
    if lists.user_ids is not None and relevant_ids is not None and (
            (list_ids.dtype.kind in "iu") != (relevant_ids.dtype.kind in "iu")):
        raise TypeError(f"the user ids of recommended ({list_ids.dtype}) and relevant ({relevant_ids.dtype}) "
                        "cannot be matched: give both as integers or both as strings")
    rel_ids = _ids(relevant_ids, relevant.shape[0], "relevant", lists.user_ids)
    users = list_ids if drop_absent else np.union1d(list_ids, rel_ids)
    list_rows = np.searchsorted(users, list_ids)
    lengths = np.zeros(users.size, dtype=np.int64)
    lengths[list_rows] = np.diff(lists.indptr)
    indptr = np.zeros(users.size + 1, dtype=np.int64)
    np.cumsum(lengths, out=indptr[1:])
    lists = Lists(indptr, lists.items, int(users.size), users, lists.padded)
    rel_rows = np.searchsorted(users, rel_ids)
    present = np.isin(rel_ids, users)
    counts = np.diff(relevant.indptr)
    keep = np.repeat(present, counts)
    rel_lengths = np.zeros(users.size, dtype=np.int64)
    rel_lengths[rel_rows[present]] = counts[present]
    rel_indptr = np.zeros(users.size + 1, dtype=np.int64)
    np.cumsum(rel_lengths, out=rel_indptr[1:])
    assert relevant.data is not None
    shape = (int(users.size), relevant.shape[1])
    relevant = Csr(rel_indptr, relevant.indices[keep], relevant.data[keep], shape)
    return lists, relevant, users


def _ids(ids: np.ndarray | None, n: int, name: str, other: np.ndarray | None) -> np.ndarray:
    """A side's user ids: its own, or its row positions, which only integer ids can meet."""
    if ids is not None:
        return ids
    if other is not None and other.size and other.dtype.kind not in "iu":
        raise TypeError(f"{name} gives its users by position (0..{n - 1}) but the other argument by ids "
                        f"of dtype {other.dtype}; pass both keyed by user id (dict or DataFrame), or both "
                        "by position")
    return np.arange(n)
