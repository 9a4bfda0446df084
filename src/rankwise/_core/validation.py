"""Input checks and layout normalisation into the canonical CSR form the kernels read.

Every check runs before any kernel work and names the offending argument, except the
NaN check of ``as_batch``'s scores: the listwise kernel reports NaN as it reads them and
evaluate() raises (through ``as_scores``) before any result is used. Arrays are
copied only when they must be: non-contiguous, byte-swapped, grouped by an unsorted
``qid``, or of a dtype the kernels do not read directly.
"""
from __future__ import annotations

import difflib
import math
import warnings
from collections.abc import Collection
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ._enums import Ties
from ._group import group_by_query, run_starts
from .duplicates import duplicate_message, first_duplicate_rows
from .parallel import run_alone

__all__ = ["Batch", "as_array", "as_batch", "as_host", "as_indptr", "as_integers", "as_real", "as_scores",
           "bad_label_message", "check_choice", "check_exact_integers", "check_flag", "check_ties",
           "check_level", "check_max_grade", "check_weights", "nan_scores_message", "position",
           "repeated_document", "rows_contiguous", "value_error"]

TIES = {
    "expected": Ties.EXPECTED,
    "optimistic": Ties.OPTIMISTIC,
    "pessimistic": Ties.PESSIMISTIC,
    "stable": Ties.STABLE,
    "trec": Ties.TREC,
}
_EXACT_FLOAT_INT = 2**53
# Lossless casts for the label dtypes the kernels do not read directly.
_LABEL_CASTS = {np.dtype(np.uint16): np.int32, np.dtype(np.uint32): np.int64,
                np.dtype(np.float16): np.float32}
_REAL = (int, float, np.integer, np.floating)
_INT64 = np.iinfo(np.int64)
_UINT64_MAX = 2**64 - 1
# How to pass queries of different lengths, for the error on ragged nested lists.
RAGGED_QUERIES = ("pass every query's items flattened into one 1-D array, with indptr= (the offset "
                  "of each query's first item, then the total) or qid= (one query id per item)")


@dataclass(frozen=True)
class Batch:
    """Canonical CSR form: rows of query i are ``indptr[i]:indptr[i+1]``.

    With ``shared_scores`` every query reads its scores from ``y_score[0:n]`` (one
    global ranking judged against many relevance sets), and with ``shared_keys`` its
    tie keys from ``tie_key[0:n]`` (one ranking's doc ids for every query).
    """

    indptr: np.ndarray
    y_score: np.ndarray
    y_true: np.ndarray
    tie_key: np.ndarray
    shared_scores: bool
    query_ids: np.ndarray
    max_label: float
    shared_keys: bool = False


def value_error(message: str, **facts: object) -> ValueError:
    """A ValueError that carries ``facts`` as attributes, for the command line to word its own remedy.

    Examples
    --------
    >>> value_error("the inputs differ", n_shared=3).n_shared
    3
    """
    error = ValueError(message)
    for name, value in facts.items():
        setattr(error, name, value)
    return error


def check_choice(value: object, name: str, choices: Collection[str]) -> str:
    """Return ``value`` if it is one of ``choices``, else raise naming ``name``.

    TypeError for a value that is not a string at all (None, a number, bytes).
    """
    if isinstance(value, str) and value in choices:
        return str(value)
    allowed = ", ".join(map(repr, choices))
    if not isinstance(value, str):
        raise TypeError(f"{name} must be one of {allowed} (a string), got {value!r}")
    close = difflib.get_close_matches(value, list(choices), n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    raise ValueError(f"{name} must be one of {allowed}, got {value!r}{hint}")


def check_flag(value: object, name: str) -> bool:
    """A yes/no option: True or False (NumPy booleans too), nothing that merely converts to one."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def as_array(values: Any, name: str, ragged: str | None = None, *, wide: str = "error") -> np.ndarray:
    """``np.asarray(values)``, with errors that name ``name`` for what NumPy cannot take.

    A masked array is read as its data only when nothing is masked (rankwise does not
    read masks, and silently using the hidden values would give wrong numbers). Nested
    lists of different lengths get an error naming the argument, and ``ragged`` says
    how to pass them instead.

    Python integers stay exact: NumPy makes float64 of a list mixing integers below and
    above 2**63 (``[0, 2**63 + 1, 2**63]``, whose last two would then tie) and objects of
    integers beyond 64 bits. Such a list becomes int64 or uint64, whichever holds all its
    values; integers that neither holds are, by ``wide``: ``"error"`` a ValueError naming
    the argument and the value; ``"float"`` float64 (real numbers, where rounding is
    harmless: weights, p-values); ``"object"`` an object array of the exact integers
    (ids, which are only compared). A list of floats and such integers is float64, as
    NumPy makes any other list holding a float (except for ids). A value beyond
    float64's range is then a ValueError.
    """
    arr = _asarray(values, name, ragged)
    leaves = _leaves(values, arr, any_size=False)
    if leaves is None:
        return arr
    if all(_is_integer(x) for x in leaves):
        if _fits(leaves, _INT64.min, _INT64.max):
            return np.array(leaves.tolist(), dtype=np.int64).reshape(arr.shape)
        if _fits(leaves, 0, _UINT64_MAX):
            return np.array(leaves.tolist(), dtype=np.uint64).reshape(arr.shape)
        if wide == "object":
            return np.array([int(x) for x in leaves], dtype=object).reshape(arr.shape)
        if wide == "error":
            negative = any(x < 0 for x in leaves)
            i = next(i for i, x in enumerate(leaves)
                     if not (_INT64.min <= x <= _INT64.max if negative else x <= _UINT64_MAX))
            raise ValueError(f"{name} holds the integer {_shown(leaves[i])}{_at(arr.shape, i)}, which no "
                             "64-bit integer type holds with its other values (int64: -2**63 to 2**63 - 1, "
                             "uint64: 0 to 2**64 - 1)")
    elif arr.dtype.kind == "f" or wide == "object" or not all(_is_real(x) for x in leaves):
        return arr  # NumPy's floats; ids; or not numbers at all (the caller's type check)
    floats = np.empty(arr.size, dtype=np.float64)
    for i, x in enumerate(leaves):
        try:
            floats[i] = float(x)
        except OverflowError:
            raise ValueError(f"{name} holds {_shown(x)}{_at(arr.shape, i)}, beyond the range of float64 "
                             "(about 1.8e308)") from None
    return floats.reshape(arr.shape)


def as_integers(values: Any, name: str, allowed: str, error: type[Exception] = ValueError) -> np.ndarray:
    """``as_array(values)`` for an argument of integers (``allowed`` says which, for errors).

    NumPy makes floats (or objects) of a sequence of Python integers when one of them is
    beyond int64 (2**63 among non-negative ints, or beyond uint64): such a value is out
    of range, not of the wrong type, so it raises ``error`` (ValueError; IndexError for
    an index) naming ``name``, the value and ``allowed``. Integers that only mixed int64
    and uint64 scalars become int64. Any other array is returned as NumPy made it, for
    the caller's dtype check.
    """
    arr = _asarray(values, name)
    leaves = _leaves(values, arr, any_size=True)
    if leaves is None or not all(_is_integer(x) for x in leaves):
        return arr
    if _fits(leaves, _INT64.min, _INT64.max):
        return np.array(leaves.tolist(), dtype=np.int64).reshape(arr.shape)
    i = next(i for i, x in enumerate(leaves) if not _INT64.min <= x <= _INT64.max)
    what = "hold integers" if arr.ndim else "be an integer"
    raise error(f"{name} must {what} {allowed}; got {_shown(leaves[i])}{_at(arr.shape, i)}")


# DLPack's device types (dlpack.h, DLDeviceType), for messages.
_DEVICES = {1: "cpu", 2: "cuda", 3: "cuda_host", 4: "opencl", 7: "vulkan", 8: "metal", 9: "vpi", 10: "rocm",
            11: "rocm_host", 13: "cuda_managed", 14: "oneapi", 15: "webgpu", 16: "hexagon", 17: "maia"}
_CPU = 1


def _from_dlpack(values: Any, name: str) -> np.ndarray | None:
    """A DLPack producer (PyTorch, JAX, CuPy, ...) as a NumPy array: read in place on the CPU,
    copied to host memory once (with a warning saying so) from another device. None when
    NumPy cannot take it through DLPack (another dtype, a tensor that requires grad, ...),
    for ``np.asarray`` to try."""
    try:
        device, index = values.__dlpack_device__()
    except Exception:  # a producer that cannot say where it lives: not through DLPack
        return None
    if device == _CPU:
        try:
            return np.from_dlpack(values)
        except (BufferError, TypeError, RuntimeError, ValueError):
            return None
    where = f"{_DEVICES.get(int(device), f'device type {device}')}:{index}"
    try:
        arr = np.from_dlpack(values, device="cpu", copy=True)
    except (BufferError, TypeError, RuntimeError, ValueError, NotImplementedError):
        raise TypeError(f"{name} is an array on {where}, and rankwise computes in host memory: copy it "
                        f"there first ({name}.cpu() in PyTorch, cupy.asnumpy({name}), numpy.asarray({name}) "
                        "for JAX)") from None
    warnings.warn(f"{name} is an array on {where}: rankwise copied it to host memory once "
                  f"({arr.nbytes:,} bytes); pass a host array to avoid the copy", stacklevel=4)
    return arr


def _is_dlpack(values: Any) -> bool:
    # NumPy arrays (masked ones included, whose mask DLPack would drop) take NumPy's path.
    return (not isinstance(values, np.ndarray) and hasattr(values, "__dlpack__")
            and hasattr(values, "__dlpack_device__"))


def as_host(values: Any, name: str) -> Any:
    """``values`` itself, or a DLPack producer (a PyTorch, JAX, CuPy array ...) as a NumPy
    array: for an argument that takes other layouts too (lists, mappings, frames)."""
    return as_array(values, name) if _is_dlpack(values) else values


def _asarray(values: Any, name: str, ragged: str | None = None) -> np.ndarray:
    """``np.asarray``, masked arrays and ragged lists refused with errors naming ``name``;
    DLPack producers read without a copy where they live in host memory."""
    if _is_dlpack(values):
        arr = _from_dlpack(values, name)
        if arr is not None:
            return arr
        if getattr(values, "requires_grad", False):
            raise TypeError(f"{name} is a tensor that requires grad: pass {name}.detach() (rankwise reads "
                            "its values, never its graph)")
        try:
            return np.asarray(values)
        except (TypeError, RuntimeError, BufferError):
            raise TypeError(f"{name} holds {getattr(values, 'dtype', 'a type')}, which NumPy cannot hold: "
                            f"convert it first (e.g. {name}.float() in PyTorch)") from None
    if type(values) is not np.ndarray and isinstance(values, np.ma.MaskedArray):
        if np.ma.is_masked(values):
            raise ValueError(f"{name} is a masked array with masked entries, which rankwise would read "
                             f"as ordinary values; drop them or pass {name}.filled(value)")
        values = values.data
    try:
        return np.asarray(values)
    except ValueError as error:
        if "inhomogeneous" not in str(error) and "sequence" not in str(error):
            raise
        hint = f"; {ragged}" if ragged else ""
        raise ValueError(f"{name} holds sequences of different lengths, which do not form one array"
                         f"{hint}") from None


def _is_integer(value: object) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _is_real(value: object) -> bool:
    return _is_integer(value) or isinstance(value, (float, np.floating))


def _shown(x: Any) -> str:
    """A number for a message: in full, or an integer's first digits and length when it is long."""
    if not _is_integer(x):
        return repr(float(x))
    text = str(int(x))
    digits = len(text.lstrip("-"))
    return text if digits <= 30 else f"{text[:12]}... (an integer of {digits} digits)"


def _at(shape: tuple[int, ...], i: int) -> str:
    return f" at {position(shape, i)}" if shape else ""


def _fits(leaves: np.ndarray, low: int, high: int) -> bool:
    return all(low <= x <= high for x in leaves)


def _leaves(values: Any, arr: np.ndarray, any_size: bool) -> np.ndarray | None:
    """The values of a sequence (not an array) that NumPy made float64 or objects of, as a
    flat object array, when they may be integers it could not keep exact; else None.

    Without ``any_size``, a float64 ``arr`` is looked at only when it holds a value of
    2**53 or more (below, each float is exactly the integer it may have come from), so
    that a list of floats costs one vectorised pass.
    """
    if isinstance(values, np.ndarray) or not arr.size or arr.dtype.kind not in "fO":
        return None
    if arr.dtype.kind == "O":
        return arr.reshape(-1)
    if not any_size and not max(arr.max(), -arr.min()) >= _EXACT_FLOAT_INT:  # NaN: not from integers
        return None
    leaves = np.array(values, dtype=object).reshape(-1)
    return leaves if leaves.size == arr.size else None


def check_exact_integers(arr: np.ndarray, name: str, remedy: str) -> None:
    """Refuse 64-bit integers beyond 2**53: float64, where the kernels compute, would round them.

    Neighbouring integers there become equal (ties that are not, differences of 0). The
    error names the first such value and where it is, then ``remedy``.

    Examples
    --------
    >>> check_exact_integers(np.array([1, 2**53]), "y_score", "pass floats")
    >>> try:
    ...     check_exact_integers(np.array([1, 2**53 + 1]), "y_score", "pass floats")
    ... except ValueError as error:
    ...     print(error)  # doctest: +NORMALIZE_WHITESPACE
    y_score has integers beyond 2**53, which float64 cannot hold exactly: 9007199254740993
    at position 1; pass floats
    """
    if arr.dtype.kind not in "iu" or arr.dtype.itemsize != 8 or not arr.size:
        return
    if arr.max() <= _EXACT_FLOAT_INT and arr.min() >= -_EXACT_FLOAT_INT:
        return
    flat = arr.reshape(-1)
    i = int(np.flatnonzero((flat > _EXACT_FLOAT_INT) | (flat < -_EXACT_FLOAT_INT))[0])
    raise ValueError(f"{name} has integers beyond 2**53, which float64 cannot hold exactly: {flat[i]}"
                     f"{_at(arr.shape, i)}; {remedy}")


def as_real(value: object, name: str) -> float:
    """A real number (Python or NumPy, not bool) as float; integers beyond float64 become +-inf,
    for the caller's range check to refuse."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, _REAL):
        raise TypeError(f"{name} must be a number, got {value!r}")
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def check_ties(ties: object) -> Ties:
    """Map a tie-policy name to the kernel code."""
    if ties == "realistic":
        raise ValueError(
            "ties='realistic' (the metric of the mean rank, as PyKEEN/OGB/TGB report it) is defined "
            "only for one positive per query; list metrics take 'expected', 'optimistic', "
            "'pessimistic', 'stable' or 'trec'"
        )
    return TIES[check_choice(ties, "ties", TIES)]


def check_level(relevance_level: object) -> float:
    """A relevance threshold must be a finite number > 0."""
    level = as_real(relevance_level, "relevance_level")
    if not np.isfinite(level) or level <= 0:
        raise ValueError(f"relevance_level must be a finite number > 0, got {relevance_level!r}")
    return level


def check_max_grade(max_grade: object, max_label: float) -> float:
    """Resolve ERR's / graded RBP's g_max: default the largest label, never below it."""
    if max_grade is None:
        return max_label if max_label > 0 else 1.0
    value = as_real(max_grade, "max_grade")
    if not np.isfinite(value) or value <= 0:
        raise ValueError(f"max_grade must be a finite number > 0, got {max_grade!r}")
    if value < max_label:
        raise ValueError(f"max_grade={max_grade!r} is below the largest label in y_true ({max_label:g})")
    return value


def _native_contiguous(arr: np.ndarray) -> np.ndarray:
    if not arr.dtype.isnative:
        arr = arr.astype(arr.dtype.newbyteorder("="))
    return np.ascontiguousarray(arr)


def rows_contiguous(arr: np.ndarray) -> np.ndarray:
    """Native byte order and unit stride along the last axis, copying only when needed."""
    if not arr.dtype.isnative:
        return _native_contiguous(arr)
    if arr.ndim and arr.shape[-1] > 1 and arr.strides[-1] != arr.itemsize:
        return np.ascontiguousarray(arr)
    return arr


def position(shape: tuple[int, ...], flat_index: int) -> str:
    """Where a flat index lies, for error messages: 'position 3' or 'row 1, column 2'."""
    if len(shape) == 1:
        return f"position {flat_index}"
    return "row {}, column {}".format(*np.unravel_index(flat_index, shape))


def as_scores(values: Any, name: str = "y_score", *, check_nan: bool = True,
              rows_only: bool = False, ragged: str | None = RAGGED_QUERIES) -> np.ndarray:
    """Scores as native float32 or float64; NaN is an error when ``check_nan``.

    The result is C-contiguous, or with ``rows_only`` only contiguous along its last
    axis (a column slice of a matrix stays a view). ``ragged`` says how to pass
    lists of different lengths, for the error on them.
    """
    arr = as_array(values, name, ragged)
    kind = arr.dtype.kind
    if kind == "f":
        if arr.dtype.itemsize < 4:
            arr = arr.astype(np.float32)
        elif arr.dtype.itemsize > 8:
            raise TypeError(f"{name} must be float32 or float64, got {arr.dtype}")
    elif kind in "biu":
        check_exact_integers(arr, name, "convert them to a tie-preserving float scale first")
        arr = arr.astype(np.float64)
    else:
        raise TypeError(f"{name} must be numeric (float32/float64, or integers), got dtype {arr.dtype}")
    arr = rows_contiguous(arr) if rows_only else _native_contiguous(arr)
    if check_nan and arr.size and np.isnan(arr.min()):
        first = int(np.flatnonzero(np.isnan(arr.reshape(-1)))[0])
        raise ValueError(nan_scores_message(name, position(arr.shape, first)))
    return arr


def nan_scores_message(name: str, where: str) -> str:
    """The error for NaN scores, the first at ``where`` (``"position 3"``): one wording for
    one machine and for the engines, which find the position in their own pass."""
    return f"{name} contains NaN (first at {where}); pass nan='last' to rank NaN scores below every number"


def bad_label_message(label: object, where: str) -> str:
    """The error for a label that is negative or not finite, the first at ``where``."""
    return f"y_true must hold finite labels >= 0; found {label!r} at {where}"


def _as_labels(y_true: Any) -> tuple[np.ndarray, float]:
    arr = as_array(y_true, "y_true", RAGGED_QUERIES)
    if arr.dtype.kind not in "biuf":
        raise TypeError("y_true must hold numeric relevance labels (bool, int or float), "
                        f"got dtype {arr.dtype}")
    if arr.dtype == np.uint64:
        if arr.size and arr.max() > np.iinfo(np.int64).max:
            raise ValueError(f"y_true has labels beyond 2**63 - 1 (up to {arr.max()}); labels must be "
                             "finite numbers >= 0 that int64 or float64 can hold")
        arr = arr.astype(np.int64)
    elif arr.dtype in _LABEL_CASTS:
        arr = arr.astype(_LABEL_CASTS[arr.dtype])
    elif arr.dtype.kind == "f" and arr.dtype.itemsize > 8:
        raise TypeError(f"y_true must be at most float64, got {arr.dtype}")
    arr = _native_contiguous(arr)
    if arr.dtype == np.bool_:
        return arr.view(np.uint8), float(arr.any())
    if not arr.size:
        return arr, 0.0
    if arr.dtype.kind in "iu":
        # One pass instead of min and max: viewed as unsigned, a negative integer is
        # larger than any valid label.
        high = arr.view(f"u{arr.dtype.itemsize}").max()
        valid = high <= np.iinfo(arr.dtype).max
    else:
        low, high = arr.min(), arr.max()
        valid = not np.isnan(low) and np.isfinite(high) and low >= 0
    if not valid:
        flat = arr.reshape(-1)
        first = int(np.flatnonzero(~(np.isfinite(flat) & (flat >= 0)))[0])
        raise ValueError(bad_label_message(flat[first].item(), position(arr.shape, first)))
    return arr, float(high)


def as_indptr(indptr: Any, n_items: int, of: str = "y_score") -> np.ndarray:
    """CSR offsets over ``n_items`` rows of the array named ``of``, as native int64."""
    arr = as_integers(indptr, "indptr", f"from 0 to len({of}) = {n_items}")
    if arr.dtype.kind not in "iu":
        raise TypeError(f"indptr must hold integers, got dtype {arr.dtype}")
    if arr.ndim != 1 or arr.size < 1:
        raise ValueError(f"indptr must be 1-D with length n_queries + 1, got shape {arr.shape}")
    if arr[0] != 0 or arr[-1] != n_items:
        raise ValueError(f"indptr must start at 0 and end at len({of}) = {n_items}; "
                         f"got indptr[0] = {arr[0]}, indptr[-1] = {arr[-1]}")
    # Checked before the cast: uint64 offsets beyond int64 would wrap.
    outside = (arr < 0) | (arr > n_items)
    if outside.any():
        i = int(np.flatnonzero(outside)[0])
        raise ValueError(f"indptr values must lie in 0..len({of}) = {n_items}; got indptr[{i}] = {arr[i]}")
    steps = np.diff(arr.astype(np.int64))
    if steps.size and steps.min() < 0:
        i = int(np.flatnonzero(steps < 0)[0])
        raise ValueError(f"indptr must be non-decreasing; indptr[{i}] = {arr[i]} > "
                         f"indptr[{i + 1}] = {arr[i + 1]}")
    return _native_contiguous(arr.astype(np.int64, copy=False))


def _group_by_qid(qid: Any, n_items: int) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Sorted unique ids, CSR offsets, and the gather order (None if already grouped)."""
    ids = as_array(qid, "qid", wide="object")
    if ids.ndim != 1 or ids.shape[0] != n_items:
        raise ValueError(f"qid must be 1-D with one id per row of y_score ({n_items}), got shape {ids.shape}")
    if ids.dtype.kind == "f" and np.isnan(ids).any():
        raise ValueError("qid contains NaN; query ids must be comparable values")
    if ids.dtype.kind in "iu" and (ids.dtype.kind == "i" or ids.size == 0 or ids.max() <= _INT64.max):
        return _group_integer_ids(ids)
    try:
        unique, inverse = np.unique(ids, return_inverse=True)
    except TypeError:
        raise TypeError("qid values must be mutually comparable (e.g. all ints or all strings)") from None
    inverse = inverse.reshape(-1)
    counts = np.bincount(inverse, minlength=unique.shape[0])
    indptr = np.zeros(unique.shape[0] + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    grouped = inverse.size < 2 or bool(np.all(inverse[1:] >= inverse[:-1]))
    order = None if grouped else np.argsort(inverse, kind="stable")
    return unique, indptr, order


def _group_integer_ids(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """``_group_by_qid`` of integer ids (within int64) without sorting the rows: runs of
    sorted ids, or else a hash table's first-seen groups (``_group``), then only the
    distinct ids sorted and their groups laid out in that order (np.unique's sort of every
    row took 2.2 of the 2.6 s of a 10^7-row evaluate with 5,000 queries)."""
    keys = np.ascontiguousarray(ids, dtype=np.int64)
    n = keys.shape[0]
    if n < 2 or bool(np.all(keys[1:] >= keys[:-1])):
        starts = run_alone(partial(run_starts, keys), n // 2)
        return ids[starts[:-1]], starts, None
    distinct, bounds, first_seen_order, _ = run_alone(partial(group_by_query, keys), n // 2)
    rank = np.argsort(distinct, kind="stable")
    counts = np.diff(bounds)[rank]
    indptr = np.zeros(rank.shape[0] + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    # Row j of sorted group g is row j of g's first-seen group: the same rows, moved as a block.
    source = np.repeat(bounds[:-1][rank] - indptr[:-1], counts)
    source += np.arange(n, dtype=np.int64)
    return distinct[rank].astype(ids.dtype), indptr, first_seen_order[source]


def _tie_keys(doc_ids: Any, shape: tuple[int, ...], indptr: np.ndarray, shared: bool,
              order: np.ndarray | None, query_ids: np.ndarray | None = None) -> tuple[np.ndarray, bool]:
    """trec_eval's tie order as an int64 key: document id descending, byte-wise.

    Returns the keys, in the grouped order ``order`` gives (None: as they are), and whether
    they are one row's keys that every query reads: one ranking's ids given for a 2-D
    ``y_score`` (shape ``(n_cols,)``) are ranked once and never copied per query, so memory
    stays that of the inputs. A document twice in a query is an error; ``query_ids``
    (qid= input: the sorted ids) name its query.
    """
    ids, keys, broadcast = _doc_keys(doc_ids, shape, order)
    one_row = shared or broadcast
    segments = np.array([0, keys.shape[0]], dtype=np.int64) if one_row else indptr
    repeat = _first_repeat(ids, keys, segments, one_row, query_ids, order)
    if repeat is not None:
        raise ValueError(repeat[1])
    return keys, broadcast


def _doc_keys(doc_ids: Any, shape: tuple[int, ...],
              order: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, bool]:
    """The document ids (flat, as text, gathered by ``order``), their keys, and whether they
    are one ranking's ids broadcast against a 2-D ``y_score``."""
    if doc_ids is None:
        raise ValueError("ties='trec' orders tied items by document id; pass doc_ids= (one id per score)")
    ids = as_array(doc_ids, "doc_ids", wide="object")
    if ids.ndim == 2 and ids.shape == shape and ids.shape[0] > 1 and ids.strides[0] == 0:
        ids = ids[0]  # np.broadcast_to of one ranking's ids: the same row for every query
    broadcast = ids.shape != shape and len(shape) == 2 and ids.shape == shape[1:]
    if ids.shape != shape and not broadcast:
        raise ValueError(f"doc_ids must have the shape of y_score {shape}, got {ids.shape}")
    if ids.dtype.kind not in "SU":
        ids = ids.astype(str)
    if order is not None:
        ids = ids[order]  # the duplicate search reads each query's rows together
    ids = ids.reshape(-1)
    # Code-point order of str equals byte order of its UTF-8 encoding.
    unique, inverse = np.unique(ids, return_inverse=True)
    return ids, (unique.shape[0] - 1 - inverse.reshape(-1)).astype(np.int64), broadcast


def _first_repeat(ids: np.ndarray, keys: np.ndarray, segments: np.ndarray, one_row: bool,
                  query_ids: np.ndarray | None, order: np.ndarray | None,
                  rows: np.ndarray | None = None) -> tuple[Any, str] | None:
    """The query of the first document twice in a query (in the grouped order), and the error.

    Queries given by ``qid=`` (``query_ids``) are named by their id, and the rows by their
    positions in the caller's input (``order`` gathered them; ``rows``, when given, holds
    each row's number to show instead): what the caller can index with.
    Other layouts have no ids: the query is its number and the rows are positions within it
    (columns of a 2-D ``y_score``; ``one_row``: one row of ids shared by every query).
    """
    repeat = first_duplicate_rows(keys, None, segments)
    if repeat is None:
        return None
    a, b = repeat
    group = int(np.searchsorted(segments, b, side="right") - 1)
    query: Any
    if query_ids is None:
        query = None if one_row else group
        first, second = a - int(segments[group]), b - int(segments[group])
    else:
        query = _scalar(query_ids[group])
        first, second = (a, b) if order is None else (int(order[a]), int(order[b]))
        if rows is not None:
            first, second = int(rows[first]), int(rows[second])
    return query, duplicate_message("doc_ids", _scalar(ids[b]), query, first, second)


def _scalar(value: Any) -> Any:
    """A NumPy scalar as the Python value it holds (shown without NumPy's type), others as they are."""
    return value.item() if isinstance(value, np.generic) else value


def repeated_document(qid: Any, doc_ids: Any, rows: np.ndarray | None = None) -> tuple[Any, str] | None:
    """The query id and the error of ``evaluate(..., qid=qid, doc_ids=doc_ids, ties="trec")``
    for a document given twice in a query, or None when no query holds one.

    evaluate reports the first query, in its sorted order of ids, holding a document twice;
    in it, the document whose second row comes first; rows are positions in ``qid``, or
    ``rows[i]`` for row ``i`` when given. The engine adapters call this on a partition whose
    evaluation failed, to learn the query that the error of the whole table names (of the
    partitions', the smallest), then on that query's rows with their positions in the table.
    Raises evaluate's errors for ``qid`` and ``doc_ids`` themselves.

    Examples
    --------
    >>> repeated_document(["b", "a", "b", "a"], ["x", "y", "z", "y"])
    ('a', "doc_ids has document 'y' twice for query 'a' (rows 1 and 3); trec_eval rejects duplicates")
    >>> repeated_document([1, 1], ["x", "y"]) is None
    True
    """
    n_rows = np.shape(qid)[0] if np.ndim(qid) else 0
    query_ids, indptr, order = _group_by_qid(qid, n_rows)
    ids, keys, _ = _doc_keys(doc_ids, (n_rows,), order)
    return _first_repeat(ids, keys, indptr, False, query_ids, order, rows)


def as_batch(y_true: Any, y_score: Any, *, qid: Any = None, indptr: Any = None, doc_ids: Any = None,
             ties: Ties = Ties.EXPECTED, nan: str = "raise") -> Batch:
    """Validate one call's inputs and bring them into the canonical CSR form.

    Everything but NaN scores: the kernels meet those as they read the scores and
    report them, and the caller raises (a separate pass here would cost as much as a
    top-k evaluation).
    """
    check_choice(nan, "nan", ("raise", "last"))
    scores = as_scores(y_score, check_nan=False)
    labels, max_label = _as_labels(y_true)
    if qid is not None and indptr is not None:
        raise ValueError("pass either qid= or indptr=, not both")
    if scores.ndim not in (1, 2) or labels.ndim not in (1, 2):
        raise ValueError("y_true and y_score must be 1-D or 2-D, "
                         f"got shapes {labels.shape} and {scores.shape}")
    if (qid is not None or indptr is not None) and (scores.ndim, labels.ndim) != (1, 1):
        wrong = " and ".join(f"{name} is {arr.ndim}-D (shape {arr.shape})"
                             for name, arr in (("y_true", labels), ("y_score", scores)) if arr.ndim != 1)
        option = "qid" if qid is not None else "indptr"
        raise ValueError(f"{option}= groups 1-D y_true and y_score, but {wrong}; 2-D inputs already hold "
                         "one query per row")
    shared = scores.ndim == 1 and labels.ndim == 2
    if shared:
        if labels.shape[1] != scores.shape[0]:
            raise ValueError(f"y_score of shape {scores.shape} is one ranking; y_true must then be "
                             f"(n_topics, {scores.shape[0]}), got {labels.shape}")
    elif labels.shape != scores.shape:
        raise ValueError("y_true and y_score must have the same shape, "
                         f"got {labels.shape} and {scores.shape}")
    shape = scores.shape
    order = None
    if labels.ndim == 2:
        n_queries, n_cols = labels.shape
        offsets = np.arange(n_queries + 1, dtype=np.int64) * n_cols
        query_ids = np.arange(n_queries)
    elif indptr is not None:
        offsets = as_indptr(indptr, scores.shape[0])
        query_ids = np.arange(offsets.shape[0] - 1)
    elif qid is not None:
        query_ids, offsets, order = _group_by_qid(qid, scores.shape[0])
    else:
        offsets = np.array([0, scores.shape[0]], dtype=np.int64)
        query_ids = np.arange(1)
    tie_key = np.empty(0, dtype=np.int64)
    shared_keys = False
    if ties == Ties.TREC:
        tie_key, shared_keys = _tie_keys(doc_ids, shape, offsets, shared, order,
                                         query_ids if qid is not None else None)
    scores, labels = scores.reshape(-1), labels.reshape(-1)
    if order is not None:
        scores, labels = scores[order], labels[order]
    return Batch(offsets, scores, labels, tie_key, shared, query_ids, max_label, shared or shared_keys)


def check_weights(weights: ArrayLike | None, n: int, name: str = "weights") -> np.ndarray | None:
    """Per-query weights as float64, scaled by a power of two so that the largest is in
    [0.5, 1): every metric is invariant to a common factor, the scaling is exact, and
    neither their sum overflows nor tiny weights lose precision as subnormal numbers.

    Floats wider than float64 (longdouble) are scaled in their own precision first, so a
    weight beyond float64's range is not refused when its ratio to the others is not;
    a weight below 2**-1074 times the largest becomes 0 (float64 cannot tell it from 0).
    """
    if weights is None:
        return None
    arr = as_array(weights, name, wide="float")
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must be numeric, got dtype {arr.dtype}")
    if arr.shape != (n,):
        raise ValueError(f"{name} must have one value per query ({n}), got shape {arr.shape}")
    if arr.dtype.kind != "f" or arr.dtype.itemsize < 8:
        arr = arr.astype(np.float64)
    bad = ~(np.isfinite(arr) & (arr >= 0))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{name} must be finite numbers >= 0 (not all 0); got {arr[i]} at position {i}")
    if arr.size and arr.max() == 0:
        raise ValueError(f"{name} must not all be 0 (finite numbers >= 0, not all 0)")
    return np.ldexp(arr, -np.frexp(arr.max(initial=0.0))[1]).astype(np.float64)
