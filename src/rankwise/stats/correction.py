"""Corrections for multiple comparisons: :func:`correct` (Holm, Bonferroni, BH, BY)."""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .._core.validation import as_array
from .options import CORRECTIONS, _choice

__all__ = ["correct"]


def _pvalues(pvalues: ArrayLike) -> np.ndarray:
    """The p-values of ``correct`` as a float64 copy: numbers in [0, 1], any shape."""
    allowed = "an array-like of numbers in [0, 1] (one family of p-values)"
    if pvalues is None or isinstance(pvalues, (str, bytes)):
        raise TypeError(f"pvalues must be {allowed}, got {pvalues!r}")
    p = as_array(pvalues, "pvalues", f"pvalues must be {allowed}, of one shape", wide="float")
    if p.dtype.kind not in "iuf":
        raise TypeError(f"pvalues must be {allowed}, got dtype {p.dtype}")
    p = p.astype(np.float64)  # a copy
    flat = p.ravel()
    bad = np.flatnonzero(~((flat >= 0) & (flat <= 1)))
    if bad.size:
        i = int(bad[0])
        where = (f"position {i}" if p.ndim <= 1
                 else f"index {tuple(int(j) for j in np.unravel_index(i, p.shape))}")
        if np.isnan(flat[i]):
            raise ValueError(f"pvalues has NaN at {where}; leave undefined comparisons out of the family")
        raise ValueError(f"pvalues must lie in [0, 1], got {float(flat[i])!r} at {where}")
    return p


def correct(pvalues: ArrayLike, method: str = "holm") -> np.ndarray:
    """Adjust p-values for multiple comparisons.

    Parameters
    ----------
    pvalues : array-like of float in [0, 1]
        One family of p-values (any shape, a scalar a family of one; every entry belongs
        to the family; an empty family gives an empty array). NaN raises: leave undefined
        comparisons out of the family. Values that are not numbers (None, str, bool, an
        object array) raise TypeError.
    method : {"holm", "bonferroni", "bh", "by"}
        Family-wise error rate: ``"bonferroni"`` (min(1, m p)) and ``"holm"`` (step-down,
        as ``statsmodels.stats.multitest.multipletests``). False discovery rate:
        ``"bh"`` (Benjamini-Hochberg) and ``"by"`` (Benjamini-Yekutieli, valid under any
        dependence), as ``scipy.stats.false_discovery_control``.

    Returns
    -------
    ndarray of float64
        Adjusted p-values, same shape and order as the input, monotone in the raw
        p-values and clipped at 1. Compare them with alpha.

    Examples
    --------
    >>> import rankwise as rw
    >>> p = [0.01, 0.04, 0.03, 0.005, 0.2]
    >>> rw.correct(p, "holm")
    array([0.04 , 0.09 , 0.09 , 0.025, 0.2  ])
    >>> rw.correct(p, "bh")
    array([0.025, 0.05 , 0.05 , 0.025, 0.2  ])
    """
    _choice(method, "method", CORRECTIONS)
    p = _pvalues(pvalues)
    flat = p.ravel()
    m = flat.shape[0]
    if m == 0:
        return p
    order = np.argsort(flat, kind="stable")
    ranked = flat[order]
    rank = np.arange(1, m + 1, dtype=np.float64)
    if method == "bonferroni":
        adjusted = m * ranked
    elif method == "holm":
        adjusted = np.maximum.accumulate((m - rank + 1) * ranked)
    else:
        adjusted = ranked * m / rank
        if method == "by":
            adjusted *= np.sum(1.0 / rank)
        adjusted = np.minimum.accumulate(adjusted[::-1])[::-1]
    out = np.empty(m)
    out[order] = np.minimum(adjusted, 1.0)
    return out.reshape(p.shape)
