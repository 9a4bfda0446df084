"""Per-query values of the systems compared: read, aligned by query id, in units of a power of two.

Paired tests take one value per query for each of two systems, aligned by query id when
the inputs carry ids (``Results``, ``TrecResults``, dicts, pandas Series) and by position
when they are plain arrays.

Every computation runs in units of ``2**k``, the power of two just above the data's scale
(``2**(k-1) <= max(|a|, |b|) < 2**k``): dividing by it is exact, so nothing can overflow
(differences, sums, squares, the resampling kernel's sums) or lose precision to subnormal
numbers, and the data multiplied by any power of two give the same p-values, statistics
and effect sizes, and means and intervals multiplied by it. In those units the
differences ``d = a - b`` are rounded to 12 decimals (12 significant digits of the
scale), so that values equal in theory but computed along different paths (``0.1 + 0.2``
and ``0.3``) count as equal: a zero difference for the Wilcoxon and sign tests, a tie in
the Wilcoxon ranks and in the win/tie/loss counts (R's ``wilcox.test`` rounds the same
way with ``digits.rank``).
"""
from __future__ import annotations

import math
import sys
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .._core.results import Results, as_results
from .._core.validation import as_array, check_exact_integers, value_error

__all__: list[str] = []

# Decimals kept in the differences, in units of the data's power of two (module docstring).
_DIGITS = 12
_FLOAT_MAX = sys.float_info.max


def _queries_differ(details: str, n_shared: int) -> ValueError:
    """The error for inputs that cover different queries under on_missing='error'.

    A plain ValueError whose message names the Python remedy; it carries the facts as
    ``details`` (which queries each input has alone) and ``n_shared`` (how many they
    share), so that the command line can word its own remedy.
    """
    shared = f"the {n_shared} quer{'y' if n_shared == 1 else 'ies'} they share"
    remedy = (f"pass on_missing='intersect' to compare {shared}" if n_shared
              else "they share no query, so on_missing='intersect' cannot help either")
    return value_error(f"the inputs cover different queries: {details}; {remedy}", details=details,
                       n_shared=n_shared)


def _numbers(values: Any, name: str) -> np.ndarray:
    if isinstance(values, np.ma.MaskedArray):
        raise TypeError(f"{name} is a masked array; pass the values to compare (e.g. "
                        f"{name}.filled(np.nan) with nan_policy='omit')")
    arr = as_array(values, name, f"{name} must be a 1-D sequence of numbers (one value per query)")
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must hold numbers, got dtype {arr.dtype}")
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D (one value per query), got shape {arr.shape}")
    check_exact_integers(arr, name, "pass floats if rounding is acceptable")
    return arr.astype(np.float64)


def _is_series(x: object) -> bool:
    pandas = sys.modules.get("pandas")
    return pandas is not None and isinstance(x, pandas.Series)


def _per_query(x: Any, name: str, metric: str | None) -> tuple[Any, np.ndarray]:
    """(query ids or None, float64 values) of one system."""
    if isinstance(x, Results):  # TrecResults included
        names = tuple(x.names)
        if metric is None:
            if len(names) != 1:
                raise ValueError(f"{name} holds {len(names)} metrics ({', '.join(names)}); pass metric= to "
                                 "pick one")
            metric = names[0]
        try:
            values = x[metric]
        except KeyError:
            raise ValueError(f"{name} has no metric {metric!r}; it holds {', '.join(names)}") from None
        return np.asarray(x.query_ids).tolist(), _numbers(values, name)
    if isinstance(x, Mapping):
        return list(x.keys()), _numbers(list(x.values()), name)
    if _is_series(x):
        if getattr(x.dtype, "kind", "O") in "biuf":  # nullable Int64, Float64, boolean: NA becomes NaN
            return x.index.tolist(), _numbers(x.to_numpy(dtype=np.float64, na_value=np.nan), name)
        return x.index.tolist(), _numbers(x.to_numpy(), name)
    return None, _numbers(x, name)


def _check_metric(metric: object, *inputs: object) -> None:
    if metric is None:
        return
    if not isinstance(metric, str):
        raise TypeError(f"metric must be a str (a metric name) or None, got {metric!r}")
    if not any(isinstance(x, Results) for x in inputs):
        raise TypeError(f"metric={metric!r} picks a column of Results or TrecResults, and neither input is "
                        "one")


def _check_unique(ids: list[Any], name: str) -> None:
    if len(set(ids)) != len(ids):
        seen = set()
        for q in ids:
            if q in seen:
                raise ValueError(f"{name} has query id {q!r} twice")
            seen.add(q)


def _canonical_order(ids: list[Any]) -> list[Any]:
    """Positions of ``ids`` in sorted order (the input order if the ids do not sort)."""
    try:
        return sorted(range(len(ids)), key=ids.__getitem__)
    except TypeError:
        return list(range(len(ids)))


def _id_kind(q: object) -> str:
    if isinstance(q, (bytes, np.bytes_)):
        return "bytes"
    if isinstance(q, str):
        return "text"
    return "numbers" if isinstance(q, (int, float, np.number)) else type(q).__name__


def _id_kinds_hint(systems: list[Any]) -> list[str]:
    """Why inputs share no query, when their ids are of kinds that never compare equal
    (b"q1" is not "q1", nor "1" the number 1): [a sentence] or []."""
    kinds = [{_id_kind(q) for q in ids} for _, ids, _ in systems]
    if not all(len(k) == 1 for k in kinds) or len(set.union(*kinds)) == 1:
        return []
    held = ", ".join(f"{next(iter(k))} in {name}" for (name, _, _), k in zip(systems, kinds, strict=True))
    return [f"the ids are {held}, which never equal each other (b'q1' is not 'q1', '1' is not 1)"]


def _align(systems: list[Any], on_missing: str) -> tuple[list[Any] | None, list[np.ndarray]]:
    """Align (name, ids, values) triples by query id; returns (ids or None, [values])."""
    keyed = [ids is not None for _, ids, _ in systems]
    if not any(keyed):
        lengths = {values.shape[0] for _, _, values in systems}
        if len(lengths) > 1:
            sizes = " and ".join(f"{values.shape[0]} ({name})" for name, _, values in systems)
            raise ValueError(f"per-query arrays must have the same length (one value per query, in the same "
                             f"order), got {sizes}")
        return None, [values for _, _, values in systems]
    if not all(keyed):
        plain = next(name for (name, ids, _) in systems if ids is None)
        raise TypeError(f"{plain} is a plain array but the other input carries query ids; pass both as "
                        "arrays (aligned by position) or both with ids (Results, TrecResults, dict, Series)")
    for name, ids, _ in systems:
        _check_unique(ids, name)
    positions = [dict(zip(ids, range(len(ids)), strict=True)) for _, ids, _ in systems]
    first_ids = systems[0][1]
    common = [q for q in first_ids if all(q in pos for pos in positions[1:])]
    if on_missing == "error" and any(len(ids) != len(common) for _, ids, _ in systems):
        shared = set(common)
        details = []
        for name, ids, _ in systems:
            only = [q for q in ids if q not in shared]
            if only:
                details.append(f"{len(only)} in {name} only (e.g. {', '.join(map(repr, only[:3]))})")
        if not common:
            details += _id_kinds_hint(systems)
        raise _queries_differ("; ".join(details), len(common))
    if not common:
        raise ValueError("the inputs have no query id in common")
    common = [common[i] for i in _canonical_order(common)]
    values = [v[np.fromiter((pos[q] for q in common), dtype=np.int64, count=len(common))]
              for (_, _, v), pos in zip(systems, positions, strict=True)]
    return common, values


def _where(ids: Sequence[Any] | None, i: int) -> str:
    return f"position {i}" if ids is None else f"query {ids[i]!r}"


def _finite_rows(ids: list[Any] | None, names: list[str], values: list[np.ndarray],
                 nan_policy: str) -> tuple[list[Any] | None, list[np.ndarray]]:
    """Drop rows with a NaN anywhere (nan_policy='omit') or raise; infinities always raise."""
    keep = np.ones(values[0].shape[0], dtype=bool)
    for name, v in zip(names, values, strict=True):
        infinite = np.isinf(v)
        if infinite.any():
            i = int(np.flatnonzero(infinite)[0])
            raise ValueError(f"{name} is {v[i]} at {_where(ids, i)}; values must be finite")
        missing = np.isnan(v)
        if missing.any():
            if nan_policy == "raise":
                i = int(np.flatnonzero(missing)[0])
                raise ValueError(f"{name} is NaN at {_where(ids, i)} (a query left out, e.g. by "
                                 "empty='skip'?); pass nan_policy='omit' to drop such queries")
            keep &= ~missing
    if keep.all():
        return ids, values
    rows = np.flatnonzero(keep)
    return (None if ids is None else [ids[i] for i in rows]), [v[rows] for v in values]


def _exponent(*arrays: np.ndarray) -> int:
    """k with 2**(k-1) <= max |x| < 2**k over the arrays (0 if every value is 0): x / 2**k lies in (-1, 1)."""
    scale = max((float(np.abs(x).max(initial=0.0)) for x in arrays), default=0.0)
    return math.frexp(scale)[1]


def _scaled(values: np.ndarray, k: int) -> np.ndarray:
    """``values / 2**k``: exact, but for parts below 2**-1022 of the scale, which rounding drops anyway."""
    with np.errstate(under="ignore"):
        return np.ldexp(values, -k)


def _unscaled(value: float, k: int) -> float:
    """``value * 2**k``; +-inf past the float64 range, as IEEE arithmetic rounds it (no warning)."""
    try:
        return math.ldexp(value, k)
    except OverflowError:
        return math.copysign(math.inf, value)


def _snap(scaled: np.ndarray) -> np.ndarray:
    """Values in units of the data's power of two, rounded to _DIGITS decimals (module docstring)."""
    out = np.round(scaled, _DIGITS)
    out += 0.0  # no negative zeros
    return out


def _mean(values: np.ndarray) -> float:
    """Mean of values of magnitude below 2, kept within [min, max] whatever the rounding."""
    return float(min(max(np.mean(values), values.min()), values.max()))


def _mean_of(values: np.ndarray) -> float:
    """Mean of any finite values, without overflow (np.mean's digits where it does not overflow)."""
    k = _exponent(values)
    return _unscaled(_mean(_scaled(values, k)), k)


def _differences(a: np.ndarray, b: np.ndarray, ids: Sequence[Any] | None,
                 names: tuple[str, str] = ("a", "b")) -> tuple[np.ndarray, int]:
    """(d, k): the snapped differences ``a - b`` in units of 2**k, and k.

    Differences beyond the float64 range raise: their mean and resamples could not be returned.
    """
    k = _exponent(a, b)
    d = _scaled(a, k) - _scaled(b, k)  # |d| < 2
    if k > 0:
        limit = math.ldexp(_FLOAT_MAX, -k)
        outside = np.abs(d) > limit
        if outside.any():
            i = int(np.flatnonzero(outside)[0])
            raise ValueError(f"{names[0]} - {names[1]} is beyond the float64 range at {_where(ids, i)} "
                             f"({float(a[i])!r} - {float(b[i])!r}); the differences must be finite: divide "
                             "both systems' values by the same power of two (p-values do not change)")
        return np.clip(_snap(d), -limit, limit), k  # rounding must not leave the range either
    return _snap(d), k


def _paired_differences(a: Any, b: Any, metric: str | None, on_missing: str,
                        nan_policy: str) -> tuple[np.ndarray, int]:
    """(d, k) of :func:`_differences` for the inputs ``a`` and ``b`` of ``compare``, paired and checked."""
    a, b = as_results(a), as_results(b)
    _check_metric(metric, a, b)
    id_a, values_a = _per_query(a, "a", metric)
    id_b, values_b = _per_query(b, "b", metric)
    ids, (values_a, values_b) = _align([("a", id_a, values_a), ("b", id_b, values_b)], on_missing)
    ids, (values_a, values_b) = _finite_rows(ids, ["a", "b"], [values_a, values_b], nan_policy)
    return _differences(values_a, values_b, ids)
