"""rank_metrics(): MR, MRR, Hits@k and the rest of the rank-metric family, with chance adjustment.

A metric is a base statistic of the per-query ranks (``MR``, ``MRR``, ``GMR``,
``Hits@k``, ...) optionally transformed against its value under chance, i.e. a rank
drawn uniformly from 1..C per query: its expectation ``E[M]``, variance ``V[M]``, the
adjusted index ``(M - E[M]) / (1 - E[M])`` (AMRI, AMRR, AHits@k, AGMRI), the ratio
``MR / E[MR]`` (AMR) and the z-score ``(M - E[M]) / sqrt(V[M])``, sign-flipped for
metrics where lower is better (Hoyt et al. 2022).
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal, overload

import numpy as np
from numpy.typing import ArrayLike

from .._core.exact import ExactSum
from .._core.names import check_cutoff, metric_names, name_key, parse_cutoff, split_name, unknown_name
from .._core.results import Results
from .._core.validation import check_choice, check_flag, check_weights
from .chance import expected_discount, expected_hit, expected_reciprocal, harmonic, harmonic2, mean_power
from .positive import Ranks
from .sampled import Sampling, check_sampling, metric_of_rank, table_value

__all__ = ["rank_metrics", "parse_rank_metric"]

_TIES = ("expected", "realistic", "optimistic", "pessimistic")
# Base statistics: name -> (lower is better, mean of a per-query quantity).
_BASES = {
    "MR": (True, True),
    "MRR": (False, True),
    "Hits": (False, True),
    "nDCG": (False, True),
    "HMR": (True, False),
    "GMR": (True, False),
    "IGMR": (False, False),
    "IAMR": (False, False),
    "median_rank": (True, False),
    "inverse_median_rank": (False, False),
    "rank_std": (True, False),
    "rank_var": (True, False),
    "rank_mad": (True, False),
}
_CHANCE_BASES = ("MR", "MRR", "Hits", "GMR")
_BASE_ALIASES = {
    "mr": "MR", "mean_rank": "MR", "arithmetic_mean_rank": "MR",
    "mrr": "MRR", "mean_reciprocal_rank": "MRR", "inverse_harmonic_mean_rank": "MRR", "ihmr": "MRR",
    "hits": "Hits", "h": "Hits", "success": "Hits", "hit_rate": "Hits",
    "ndcg": "nDCG", "normalized_discounted_cumulative_gain": "nDCG",
    "hmr": "HMR", "harmonic_mean_rank": "HMR",
    "gmr": "GMR", "geometric_mean_rank": "GMR",
    "igmr": "IGMR", "inverse_geometric_mean_rank": "IGMR",
    "iamr": "IAMR", "inverse_arithmetic_mean_rank": "IAMR",
    "median_rank": "median_rank", "medr": "median_rank", "median": "median_rank",
    "inverse_median_rank": "inverse_median_rank", "imr": "inverse_median_rank",
    "rank_std": "rank_std", "std": "rank_std", "standard_deviation": "rank_std",
    "rank_var": "rank_var", "var": "rank_var", "variance": "rank_var",
    "rank_mad": "rank_mad", "mad": "rank_mad", "median_absolute_deviation": "rank_mad",
}
# Adjusted metrics: name -> (base, transform).
_ADJUSTED = {
    "amr": ("MR", "ratio"), "adjusted_mean_rank": ("MR", "ratio"),
    "adjusted_arithmetic_mean_rank": ("MR", "ratio"),
    "amri": ("MR", "index"), "adjusted_mean_rank_index": ("MR", "index"),
    "adjusted_arithmetic_mean_rank_index": ("MR", "index"),
    "amrr": ("MRR", "index"), "adjusted_mrr": ("MRR", "index"),
    "adjusted_inverse_harmonic_mean_rank": ("MRR", "index"), "aihmr": ("MRR", "index"),
    "ahits": ("Hits", "index"), "adjusted_hits": ("Hits", "index"), "ah": ("Hits", "index"),
    "agmri": ("GMR", "index"), "adjusted_geometric_mean_rank_index": ("GMR", "index"),
}
_INDEX_NAMES = {"MR": "AMRI", "MRR": "AMRR", "Hits": "AHits", "GMR": "AGMRI"}
_EXAMPLES = ["MR", "MRR", "Hits@10", "nDCG@10", "HMR", "GMR", "IGMR", "IAMR", "median_rank", "rank_std",
             "rank_var", "rank_mad", "AMR", "AMRI", "AMRR", "AHits@10", "AGMRI", "zMR", "zMRR",
             "zHits@10", "zGMR", "E[MRR]", "V[MRR]"]
# What a table of sampled ranks can estimate: means of a function of one rank.
_SAMPLED_BASES = ("MR", "MRR", "Hits", "nDCG")
_CHANCE = re.compile(r"^(?P<op>[ev])\[(?P<inner>.+)\]$")
# scipy.stats.median_abs_deviation(scale="normal"): 1 / Phi^-1(3/4).
_MAD_NORMAL = 1.482602218505602


@dataclass(frozen=True)
class RankSpec:
    """One rank metric: a base statistic, its cutoff, and how it meets chance.

    ``transform`` is None (the statistic itself), ``"E"`` / ``"V"`` (its expectation /
    variance under uniformly random ranks), ``"index"`` (adjusted index), ``"ratio"``
    (AMR) or ``"z"``.
    """

    base: str
    k: int | None = None
    transform: str | None = None

    @property
    def name(self) -> str:
        at = f"@{self.k}" if self.k is not None else ""
        if self.transform in ("E", "V"):
            return f"{self.transform}[{self.base}{at}]"
        if self.transform == "index":
            return _INDEX_NAMES[self.base] + at
        if self.transform == "ratio":
            return "AMR"
        return ("z" if self.transform == "z" else "") + self.base + at

    @property
    def needs_candidates(self) -> bool:
        return self.transform is not None


def _make(text: str, base: str, k: int | None, transform: str | None) -> RankSpec:
    if base == "Hits":
        if k is None:
            raise ValueError(f"rank metric {text!r} needs a cutoff, e.g. 'Hits@10'")
        k = check_cutoff(k, f"rank metric {text!r}")
    elif base == "nDCG" and k is not None:
        k = check_cutoff(k, f"rank metric {text!r}")
    elif k is not None:
        raise ValueError(f"rank metric {text!r}: {base} takes no cutoff")
    if transform in ("E", "V", "z") and base not in _CHANCE_BASES:
        raise ValueError(f"rank metric {text!r}: expectations, variances and z-scores exist for "
                         f"{', '.join(_CHANCE_BASES)} only")
    return RankSpec(base, k, transform)


def parse_rank_metric(text: str) -> RankSpec:
    """Parse a rank-metric name (case-insensitive; PyKEEN's long names are accepted).

    Examples
    --------
    >>> parse_rank_metric("hits_at_10").name
    'Hits@10'
    >>> parse_rank_metric("adjusted_arithmetic_mean_rank_index").name
    'AMRI'
    >>> parse_rank_metric("e[mrr]").name
    'E[MRR]'
    """
    key = name_key(text)
    transform = None
    match = _CHANCE.match(key)
    if match:
        transform, key = match["op"].upper(), match["inner"].strip()
    name, args, raw_k = split_name(key.replace("_at_", "@"))
    k = parse_cutoff(raw_k, f"rank metric {text!r}") if raw_k is not None else None
    if args is not None:
        raise unknown_name(text, _EXAMPLES, "rank metric")
    if transform is None and name in _ADJUSTED:
        base, transform = _ADJUSTED[name]
        return _make(text, base, k, transform)
    if transform is None and name not in _BASE_ALIASES:
        for prefix in ("z_", "z"):
            if name.startswith(prefix) and name[len(prefix):] in _BASE_ALIASES:
                name, transform = name[len(prefix):], "z"
                break
    if name not in _BASE_ALIASES:
        raise unknown_name(text, _EXAMPLES, "rank metric")
    return _make(text, _BASE_ALIASES[name], k, transform)


def _weighted_median(values: np.ndarray, weights: np.ndarray | None) -> float:
    """The median; weighted, the point where half the weight lies on either side.

    With equal weights it is np.median (the mean of the two middle values for an even
    count); where the cumulative weight hits exactly one half, the same midpoint rule.
    """
    if weights is None:
        return float(np.median(values))
    keep = weights > 0
    order = np.argsort(values[keep], kind="stable")
    x, w = values[keep][order], weights[keep][order]
    cumulative = np.cumsum(w)
    half = cumulative[-1] / 2
    i = int(np.searchsorted(cumulative, half, side="left"))
    # Summing float weights can miss an exact half by an ulp; equal weights must still
    # give np.median's midpoint.
    if i + 1 < x.shape[0] and np.isclose(cumulative[i], half, rtol=1e-12, atol=0):
        return float((x[i] + x[i + 1]) / 2)
    return float(x[i])


def _hits_cutoff(k: int | None) -> int:
    # parse_rank_metric gives Hits, and only Hits, a cutoff.
    assert k is not None
    return k


def _exact_sum(values: np.ndarray) -> float:
    return ExactSum.of(values).sums()[0]


class _Evaluation:
    """One rank_metrics call: per-query ranks under the policy, weights, chance statistics."""

    def __init__(self, ranks: Ranks, ties: str, weights: np.ndarray | None, sampling: Sampling | None = None):
        self.ties = ties
        self.weights = weights
        self.sampling = sampling
        self.counts = ranks.n_candidates
        self.o = ranks.optimistic.astype(np.float64)
        self.p = ranks.pessimistic.astype(np.float64)
        self.c = None if ranks.n_candidates is None else ranks.n_candidates.astype(np.float64)
        self.rank = {"optimistic": self.o, "pessimistic": self.p}.get(ties, (self.o + self.p) / 2)
        # Means are exactly rounded sums (weighted: of each product) over the total weight,
        # so that they do not depend on the order of the queries.
        self.total = _exact_sum(weights) if weights is not None else float(self.o.shape[0])
        self.share = (weights if weights is not None else np.ones_like(self.o)) / self.total

    def mean(self, per_query: np.ndarray) -> float:
        weighted = per_query if self.weights is None else self.weights * per_query
        return _exact_sum(weighted) / self.total

    def variance_of_mean(self, per_query_variance: np.ndarray) -> float:
        weighted = per_query_variance if self.weights is None else self.weights ** 2 * per_query_variance
        return _exact_sum(weighted) / self.total ** 2

    def per_query(self, base: str, k: int | None) -> np.ndarray:
        """Each query's value of MR, MRR, Hits@k or nDCG[@k] under the policy: of its rank,
        or, for sampled ranks, the estimate of the full-catalog value."""
        if self.sampling is not None and self.sampling.correction != "none":
            return self.sampled(base, k)
        expected = self.ties == "expected"
        if base == "MR":
            return self.rank
        if base == "MRR":
            return expected_reciprocal(self.o, self.p) if expected else 1.0 / self.rank
        if base == "nDCG":
            if expected:
                return expected_discount(self.o, self.p, np.inf if k is None else k)
            return metric_of_rank(base, k, self.rank)
        k = _hits_cutoff(k)
        if expected:
            return expected_hit(self.o, self.p, k)
        return (self.rank <= k).astype(np.float64)

    def sampled(self, base: str, k: int | None) -> np.ndarray:
        """Per-query estimates of the full-catalog metric: the correction's table of each
        query's (m, n) at its sampled rank, under the tie policy."""
        sampling = self.sampling
        # check_sampling refused sampled ranks without candidate counts.
        assert sampling is not None and self.counts is not None
        pairs, group = np.unique(np.column_stack([self.counts - 1, sampling.n_items]), axis=0,
                                 return_inverse=True)
        group = group.reshape(-1)
        members = np.split(np.argsort(group, kind="stable"), np.cumsum(np.bincount(group))[:-1])
        out = np.empty_like(self.o)
        for (m, n), rows in zip(pairs.tolist(), members, strict=True):
            if sampling.correction == "rank" and self.ties == "realistic":
                # The rank estimate is a formula: at the mean rank itself, as the plain metric.
                out[rows] = metric_of_rank(base, k, 1 + (n - 1) * (self.rank[rows] - 1) / m)
            else:
                out[rows] = table_value(sampling.table(base, k, m, n), self.o[rows], self.p[rows], self.ties)
        return out

    def value(self, base: str, k: int | None) -> float:
        r = self.rank
        if _BASES[base][1]:
            return self.mean(self.per_query(base, k))
        if base == "HMR":
            return 1.0 / self.mean(1.0 / r)
        if base in ("GMR", "IGMR"):
            gmr = float(np.exp(self.mean(np.log(r))))
            return gmr if base == "GMR" else 1.0 / gmr
        if base == "IAMR":
            return 1.0 / self.mean(r)
        if base in ("median_rank", "inverse_median_rank"):
            median = _weighted_median(r, self.weights)
            return median if base == "median_rank" else 1.0 / median
        variance = self.mean((r - self.mean(r)) ** 2)
        if base == "rank_var":
            return variance
        if base == "rank_std":
            return float(np.sqrt(variance))
        center = _weighted_median(r, self.weights)
        return _MAD_NORMAL * _weighted_median(np.abs(r - center), self.weights)

    def chance(self, base: str, k: int | None) -> tuple[float, float]:
        """Expectation and variance of the base statistic when every rank is uniform on 1..C."""
        # rank_metrics refuses a chance statistic without candidate counts before any work.
        assert self.c is not None
        c = self.c
        if base == "MR":
            return self.mean((c + 1) / 2), self.variance_of_mean((c * c - 1) / 12)
        if base == "MRR":
            h = harmonic(c)
            return self.mean(h / c), self.variance_of_mean((c * harmonic2(c) - h * h) / (c * c))
        if base == "Hits":
            hit = np.minimum(_hits_cutoff(k) / c, 1.0)
            return self.mean(hit), self.variance_of_mean(hit * (1 - hit))
        # GMR = prod_i r_i^(s_i) with s_i the query's share of the weight: independence
        # makes both moments products of per-query power means.
        log_first = _exact_sum(np.log(mean_power(c, self.share)))
        log_second = _exact_sum(np.log(mean_power(c, 2 * self.share)))
        first = float(np.exp(log_first))
        return first, first * first * float(np.expm1(log_second - 2 * log_first))

    def compute(self, spec: RankSpec) -> float:
        if spec.transform is None:
            return self.value(spec.base, spec.k)
        expectation, variance = self.chance(spec.base, spec.k)
        if spec.transform == "E":
            return expectation
        if spec.transform == "V":
            return variance
        metric = self.value(spec.base, spec.k)
        with np.errstate(divide="ignore", invalid="ignore"):
            if spec.transform == "ratio":
                return float(np.float64(metric) / expectation)
            if spec.transform == "index":
                return float(np.float64(metric - expectation) / (1 - expectation))
            sign = -1.0 if _BASES[spec.base][0] else 1.0
            return float(sign * np.float64(metric - expectation) / np.sqrt(variance))


def _check_policy(spec: RankSpec, text: str, ties: str) -> None:
    if ties != "expected" or spec.transform in ("E", "V") or _BASES[spec.base][1]:
        return
    raise ValueError(
        f"rank metric {text!r} cannot be computed under ties='expected': {spec.base} is not a mean "
        "of per-query values, so its exact expectation over tie orderings has no closed form. "
        "Use ties='realistic' (PyKEEN/OGB/TGB: the metric of the mean rank), 'optimistic' or "
        "'pessimistic'" + ("; or take 1 / MRR" if spec.base == "HMR" else ""))


@overload
def rank_metrics(ranks: Ranks | ArrayLike, metrics: str | Iterable[str], *, ties: str = ...,
                 weights: ArrayLike | None = ..., per_query: Literal[False] = ...,
                 n_items: ArrayLike | None = ..., correction: str | None = ..., gamma: float | None = ...,
                 prior: ArrayLike | None = ...,
                 sample_weight: ArrayLike | None = ...) -> dict[str, float]: ...
@overload
def rank_metrics(ranks: Ranks | ArrayLike, metrics: str | Iterable[str], *, ties: str = ...,
                 weights: ArrayLike | None = ..., per_query: Literal[True], n_items: ArrayLike | None = ...,
                 correction: str | None = ..., gamma: float | None = ...,
                 prior: ArrayLike | None = ..., sample_weight: ArrayLike | None = ...) -> Results: ...
@overload
def rank_metrics(ranks: Ranks | ArrayLike, metrics: str | Iterable[str], *, ties: str = ...,
                 weights: ArrayLike | None = ..., per_query: bool = ..., n_items: ArrayLike | None = ...,
                 correction: str | None = ..., gamma: float | None = ...,
                 prior: ArrayLike | None = ...,
                 sample_weight: ArrayLike | None = ...) -> dict[str, float] | Results: ...
def rank_metrics(ranks: Ranks | ArrayLike, metrics: str | Iterable[str], *, ties: str = "expected",
                 weights: ArrayLike | None = None, per_query: bool = False, n_items: ArrayLike | None = None,
                 correction: str | None = None, gamma: float | None = None,
                 prior: ArrayLike | None = None,
                 sample_weight: ArrayLike | None = None) -> dict[str, float] | Results:
    """Rank-based metrics of link prediction and knowledge-graph completion.

    Parameters
    ----------
    ranks : Ranks or array-like of int
        From :func:`rank_positive`, :class:`RankBuilder`, or plain integer ranks from
        1 to 2**52 (wrapped by :meth:`Ranks.from_ranks`, no ties and no candidate
        counts).
    metrics : str or iterable of str
        Names, case-insensitive; PyKEEN's long names are accepted too:

        * ``MR``, ``MRR``, ``Hits@k`` (``Success@k``, ``hits_at_k``), ``nDCG`` and
          ``nDCG@k``: means of the rank, of 1/rank, of [rank <= k] and of
          [rank <= k] / log2(rank + 1) (one relevant item: the ideal DCG is 1), k an
          integer from 1 to 2**63 - 1.
        * ``HMR`` (1/MRR), ``GMR`` (geometric mean), ``IGMR`` (1/GMR), ``IAMR`` (1/MR),
          ``median_rank``, ``inverse_median_rank``, ``rank_std`` and ``rank_var``
          (population), ``rank_mad`` (median absolute deviation, scaled by 1.4826 as
          ``scipy.stats.median_abs_deviation(scale="normal")``).
        * Against a uniformly random rank in 1..C (need ``n_candidates``):
          ``E[M]`` and ``V[M]`` for M in MR, MRR, Hits@k, GMR; ``AMR`` = MR / E[MR];
          the adjusted indices ``AMRI``, ``AMRR``, ``AHits@k``, ``AGMRI`` =
          (M - E[M]) / (1 - E[M]); the z-scores ``zMR``, ``zMRR``, ``zHits@k``,
          ``zGMR`` = (M - E[M]) / sqrt(V[M]), signed so that higher is better. They
          are NaN where they divide by zero: an adjusted index when E[M] = 1, a
          z-score when V[M] = 0 (e.g. every query has a single candidate).
    ties : {"expected", "realistic", "optimistic", "pessimistic"}
        ``"expected"`` (default): each query's value is its exact expectation over
        the orderings of its tie (McSherry & Najork), e.g. E[1/rank] =
        (H(p) - H(o-1)) / (p - o + 1). Defined for the metrics that are means of
        per-query values (MR, MRR, Hits@k, nDCG) and their adjusted and z forms; the
        others raise. ``"realistic"``: the metric of the mean rank (o + p) / 2, the
        numbers PyKEEN, OGB and TGB report. ``"optimistic"`` / ``"pessimistic"``: the
        best / worst rank of the tie. MR is the same under "expected" and "realistic".
    weights : array-like of float, optional
        Per-query weights (e.g. 1 / frequency of the query's relation for macro
        averaging), as PyKEEN applies them: weighted means, V = sum w^2 V_i / (sum w)^2,
        and the weighted median for median-based metrics. Finite, >= 0, not all 0;
        only their ratios matter (they are scaled by a power of two, exactly).
    sample_weight : array-like of float, optional
        The same as ``weights``, under scikit-learn's name (and that of
        :meth:`rankwise.Results.mean`); pass one of the two.
    per_query : bool, default False
        Return each query's value instead of the aggregate: its rank, reciprocal rank,
        hit or discount under the policy (or its estimate, with ``n_items``), for the
        metrics that are means of per-query values, e.g. for a paired significance test.
    n_items : int or array-like of int, optional
        The catalog size n (per query, or one for all): ``ranks`` are then ranks
        among m sampled negatives (``n_candidates`` = m + 1, 2 <= m + 1 <= n), and
        MR, MRR, Hits@k and nDCG[@k] are estimates of their values over the full
        catalog, by ``correction`` (Krichene & Rendle, "On Sampled Metrics for Item
        Recommendation", KDD 2020). Negatives are taken as drawn uniformly with
        replacement: a full rank R gives the sampled rank r with
        P(r | R) = Binom(r - 1; m, (R - 1)/(n - 1)).
    correction : {"none", "rank", "cls", "bv"}
        Needed with ``n_items``. Each maps a sampled rank r to a value f(r), the
        query's estimate; with A[R, r] = P(r | R), prior weights w_R and the full
        metric M(R):

        * ``"none"``: f(r) = M(r), the uncorrected sampled metric (biased upward).
        * ``"rank"``: f(r) = M(1 + (n - 1)(r - 1)/m), the metric of the unbiased rank
          estimate (not floored to an integer: MR is then estimated without bias).
        * ``"cls"``: the least-squares, minimal-bias table: argmin_f sum_R w_R
          (E[f(r) | R] - M(R))^2, solved by (A^T W A) f = A^T W M. The system grows
          ill-conditioned fast with m (its matrix is a Bernstein Gram matrix):
          directions below 1e-12 of the largest are dropped (a minimum-norm
          solution), so from m of about 20 on "cls" is minimal-bias only up to the
          accuracy of its sums, and its table oscillates; prefer "bv".
        * ``"bv"``: bias and variance, argmin_f sum_R w_R [(E[f(r) | R] - M(R))^2 +
          gamma Var(f(r) | R)], solved by ((1 - gamma) A^T W A + gamma diag(c)) f =
          A^T W M with c = A^T W 1; gamma = 1 is the posterior mean E[M(R) | r].

        Under ``ties="expected"`` a query's estimate is the mean of f over its tie
        o..p (exact: the sampled rank is uniform there); "optimistic" / "pessimistic"
        take f(o) / f(p); "realistic" takes f at (o + p)/2, the mean of f at its two
        neighbours when (o + p)/2 falls between ranks ("none" and "rank" evaluate
        their formula at (o + p)/2 itself, as the plain realistic metrics do).
    gamma : float, optional
        ``correction="bv"`` only: the weight of the variance, in (0, 1]; default
        0.1, the paper's best trade-off in its experiments.
    prior : array-like of float, optional
        ``correction="cls"`` or ``"bv"`` only: weights of the full ranks 1..n (one
        ``n_items`` for all queries), the distribution of full ranks the estimate is
        tuned for; default uniform, as in the paper.

    Returns
    -------
    dict or Results
        Metric name, as given, to value, in the order asked; with ``per_query=True``
        a :class:`Results` (``res["MRR"]``: one float64 per query, ``query_ids`` the
        positions of the queries in ``ranks``), as :func:`rankwise.evaluate` returns.

    Notes
    -----
    With ``n_items``, "cls" and "bv" compute one table per metric and distinct
    (m, n), from an (m+1) x (m+1) system assembled from 2m + 1 sums over the full
    ranks (never an n x m matrix). Under the uniform prior the sums over large
    catalogs follow from Euler-Maclaurin: O(m^2 log n) time whatever n (a few
    hundredths of a second for m = 100); under another prior, O(n m) in chunks of
    about 2**20 / (2m + 1) ranks. Then O(1) per query.

    Examples
    --------
    >>> import rankwise as rw
    >>> ranks = rw.rank_positive([1.0, 3.0], [[0.5, 0.9, 2.0], [3.0, 3.0, 4.0]])
    >>> rw.rank_metrics(ranks, ["MR", "MRR", "Hits@2"])          # E[1/rank]: (1/2 + 1/3 + 1/4) / 3
    {'MR': 2.5, 'MRR': 0.4305555555555556, 'Hits@2': 0.6666666666666666}
    >>> rw.rank_metrics(ranks, ["MRR", "Hits@2"], ties="realistic")   # 1 / mean rank, as OGB/TGB
    {'MRR': 0.41666666666666663, 'Hits@2': 0.5}
    >>> rw.rank_metrics(ranks, ["MRR"], per_query=True)["MRR"]
    array([0.5       , 0.36111111])
    >>> known = rw.Ranks.from_ranks([1, 2, 3, 5], n_candidates=[5, 5, 10, 10])
    >>> {name: round(value, 6) for name, value in rw.rank_metrics(known, ["AMRI", "zMRR"]).items()}
    {'AMRI': 0.461538, 'zMRR': 0.964561}

    Ranks among 100 sampled negatives (the "1 + 100" protocol) of a catalog of 10,000
    items: the uncorrected ``Hits@10`` of a model whose items all rank 100th is 1.0, the
    full-catalog value 0; the corrections estimate it.

    >>> sampled = rw.Ranks.from_ranks([1, 2, 1, 1, 3], n_candidates=[101] * 5)
    >>> rw.rank_metrics(sampled, ["Hits@10"], n_items=10_000, correction="none")
    {'Hits@10': 1.0}
    >>> {c: round(rw.rank_metrics(sampled, "Hits@10", n_items=10_000, correction=c)["Hits@10"], 4)
    ...  for c in ("rank", "bv")}
    {'rank': 0.6, 'bv': 0.1073}
    """
    if not isinstance(ranks, Ranks):
        ranks = Ranks.from_ranks(ranks)
    names = metric_names(metrics, "rank metric")
    specs = [parse_rank_metric(name) for name in names]
    check_choice(ties, "ties", _TIES)
    per_query = check_flag(per_query, "per_query")
    sampling = _check_sampled_request(ranks, names, specs, n_items, correction, gamma, prior)
    _check_request(ranks, names, specs, ties, per_query)
    if weights is not None and sample_weight is not None:
        raise ValueError("pass weights or sample_weight (the same per-query weights), not both")
    named = "weights" if sample_weight is None else "sample_weight"
    evaluation = _Evaluation(ranks, ties, check_weights(weights if sample_weight is None else sample_weight,
                                                        len(ranks), named), sampling)
    if per_query:
        return _per_query_results(evaluation, names, specs, len(ranks))
    return {name: evaluation.compute(spec) for name, spec in zip(names, specs, strict=True)}


def _check_sampled_request(ranks: Ranks, names: list[str], specs: list[RankSpec], n_items: ArrayLike | None,
                           correction: object, gamma: object, prior: ArrayLike | None) -> Sampling | None:
    """The sampled protocol, or None; refuses what sampled ranks cannot estimate."""
    if n_items is None:
        for name, value in (("correction", correction), ("gamma", gamma), ("prior", prior)):
            if value is not None:
                raise ValueError(f"{name}= corrects metrics of ranks among sampled negatives: pass n_items= "
                                 "(the size of the full catalog) with it")
        return None
    for name, spec in zip(names, specs, strict=True):
        if spec.transform is not None or spec.base not in _SAMPLED_BASES:
            raise ValueError(f"rank metric {name!r} cannot be estimated from sampled ranks: n_items= gives "
                             "MR, MRR, Hits@k and nDCG[@k] (means of a function of each query's rank)")
    return check_sampling(n_items, correction, gamma, prior, ranks.n_candidates)


def _check_request(ranks: Ranks, names: list[str], specs: list[RankSpec], ties: str, per_query: bool) -> None:
    """Refuse, before any work, what the ranks or the policy cannot give."""
    if len(ranks) == 0:
        raise ValueError("ranks holds no query")
    for name, spec in zip(names, specs, strict=True):
        _check_policy(spec, name, ties)
        if spec.needs_candidates and ranks.n_candidates is None:
            raise ValueError(f"rank metric {name!r} compares with chance and needs the number of "
                             "candidates per query; rank_positive records it, or pass n_candidates= "
                             "to Ranks / Ranks.from_ranks")
        if per_query and (spec.transform is not None or not _BASES[spec.base][1]):
            raise ValueError(f"rank metric {name!r} is not a mean of per-query values; per_query=True "
                             "gives MR, MRR, Hits@k and nDCG")


def _per_query_results(evaluation: _Evaluation, names: list[str], specs: list[RankSpec], n: int) -> Results:
    columns = [evaluation.per_query(spec.base, spec.k) for spec in specs]
    values = np.column_stack(columns).astype(np.float64, copy=True)
    return Results(names, values, np.arange(n, dtype=np.int64), evaluation.ties, key=parse_rank_metric)
