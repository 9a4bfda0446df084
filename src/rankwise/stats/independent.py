"""Independent samples: :func:`mann_whitney` and its :class:`MannWhitneyResult`.

For two samples that share no queries (two datasets of test triples, say); systems run on
the same queries are compared by the paired tests of :mod:`rankwise.stats.significance`.
"""
from __future__ import annotations

from dataclasses import dataclass

from numpy.typing import ArrayLike

from .._core.results import Results, as_results
from .inputs import _check_metric, _exponent, _finite_rows, _per_query, _scaled, _snap
from .options import _NAN_POLICIES, ALTERNATIVES, _choice

__all__ = ["MannWhitneyResult", "mann_whitney"]


@dataclass(frozen=True)
class MannWhitneyResult:
    """The outcome of :func:`mann_whitney` (independent samples).

    Attributes
    ----------
    statistic : float
        U of sample ``a``: the pairs (a_i, b_j) with a_i > b_j, plus half the ties.
    pvalue : float
    effect_size : float
        Rank-biserial correlation ``2 U / (n_a n_b) - 1`` in [-1, 1]: positive when
        values of ``a`` tend to exceed values of ``b``, 0 when neither does.
    n_a, n_b : int
    alternative : str
    test : str
        ``"mann-whitney"``.
    """

    statistic: float
    pvalue: float
    effect_size: float
    n_a: int
    n_b: int
    alternative: str
    test: str = "mann-whitney"


def mann_whitney(a: ArrayLike | Results, b: ArrayLike | Results, *,
                 alternative: str = "two-sided", metric: str | None = None,
                 nan_policy: str = "raise") -> MannWhitneyResult:
    """Mann-Whitney U test for two independent samples (e.g. two datasets of test triples).

    Ignores any pairing: use :func:`compare` when both systems ran on the same queries.

    Parameters
    ----------
    a, b : array-like, Results or TrecResults
        The two samples (any lengths); or any object with ``__rankwise_results__()``,
        such as the results of :func:`rankwise.spark.evaluate`, read as the Results it
        returns.
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: values of ``a`` tend to exceed those of ``b``.
    metric : str, optional
        The metric to take from Results holding several.
    nan_policy : {"raise", "omit"}
        NaN values raise, or with ``"omit"`` are dropped from their sample.

    Returns
    -------
    MannWhitneyResult
        ``statistic`` (U of ``a``), ``pvalue`` (``scipy.stats.mannwhitneyu`` with
        ``method="auto"``: exact for small samples without ties, otherwise the normal
        approximation with tie and continuity corrections), ``effect_size`` (rank-biserial
        correlation 2U / (n_a n_b) - 1, positive when ``a`` tends to be larger), ``n_a``,
        ``n_b``.

    Notes
    -----
    Values are rounded to 12 significant digits of the larger sample's scale first, so that
    equal values computed along different paths tie.

    Examples
    --------
    >>> import rankwise as rw
    >>> a = [0.5, 0.3, 0.9, 0.1, 0.7, 0.6, 0.8, 0.4]
    >>> b = [0.4, 0.35, 0.6, 0.1, 0.5, 0.2, 0.8, 0.1]
    >>> res = rw.mann_whitney(a, b)
    >>> res.statistic, round(res.pvalue, 7), res.effect_size
    (43.0, 0.2673159, 0.34375)
    """
    from scipy.stats import mannwhitneyu

    _choice(alternative, "alternative", ALTERNATIVES)
    _choice(nan_policy, "nan_policy", _NAN_POLICIES)
    a, b = as_results(a), as_results(b)
    _check_metric(metric, a, b)
    samples = []
    for name, x in (("a", a), ("b", b)):
        ids, values = _per_query(x, name, metric)
        ids, (values,) = _finite_rows(ids, [name], [values], nan_policy)
        if values.shape[0] == 0:
            raise ValueError(f"{name} is empty; the Mann-Whitney test needs at least one value per sample")
        samples.append(values)
    k = _exponent(*samples)
    x, y = (_snap(_scaled(s, k)) for s in samples)  # ranks do not depend on the unit
    res = mannwhitneyu(x, y, alternative=alternative, method="auto")
    u = float(res.statistic)
    n_a, n_b = x.shape[0], y.shape[0]
    return MannWhitneyResult(u, float(res.pvalue), 2 * u / (n_a * n_b) - 1, n_a, n_b, alternative)
