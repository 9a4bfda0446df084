"""evaluate() and the per-metric functions."""
from __future__ import annotations

import inspect
import math
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import Any, TypeVar

import numpy as np
from numpy.typing import ArrayLike

from .._core._enums import Metric, Ties, Variant
from .._core.names import metric_names
from .._core.parallel import effective_n_threads, run_over_queries
from .._core.results import Results, mean_over_queries
from .._core.sparse import candidate_batch, candidate_nan_error, is_sparse
from .._core.validation import (
    _EXACT_FLOAT_INT,
    Batch,
    as_batch,
    as_real,
    as_scores,
    check_choice,
    check_flag,
    check_level,
    check_max_grade,
    check_ties,
    check_weights,
)
from ._listwise import evaluate_range
from .conventions import Convention, get_convention
from .names import MetricSpec, make_spec, parse_metric

__all__ = ["evaluate", "reciprocal_rank", "average_precision", "ndcg", "dcg", "precision", "recall",
           "r_precision", "hit_rate", "err", "rbp"]

_EMPTY = ("zero", "skip", "error")
_NAN = ("raise", "last")
# 2**label - 1 overflows float64 from label 1024 on.
MAX_EXPONENTIAL_LABEL = 1023


def dcg_gains(specs: Sequence[MetricSpec]) -> list[str]:
    """The gains ("linear", "exponential") that the DCG and nDCG of ``specs`` (gain filled in) sum."""
    return sorted({s.gain for s in specs if s.kind in (Metric.DCG, Metric.NDCG) and s.gain is not None})


def gains_bounded(gain: str, max_label: float, size: int) -> bool:
    """Whether ``size`` gains, each at most that of ``max_label``, surely sum below the largest float64.

    A DCG (and its ideal) sums at most one gain (times a discount <= 1) per item, and a
    mean over queries sums the queries' DCGs: the gains of all items summing below the
    largest float64, with a margin for the rounding of n additions, keeps all finite.
    """
    top = 2.0 ** max_label - 1 if gain == "exponential" else max_label
    return top * size <= sys.float_info.max / (1 + 4 * size * 2.0**-53)


def _check_gains(specs: Sequence[MetricSpec], batch: Batch) -> None:
    """Refuse labels whose DCG (or mean DCG) could overflow float64, which would give inf or NaN."""
    gains = dcg_gains(specs)
    if "exponential" in gains and batch.max_label > MAX_EXPONENTIAL_LABEL:
        raise ValueError(f"y_true has labels up to {batch.max_label:g}; gain='exponential' (2**label - 1) "
                         f"overflows above {MAX_EXPONENTIAL_LABEL}")
    size = batch.y_true.size
    limit = sys.float_info.max / (1 + 4 * size * 2.0**-53)
    for gain in gains:
        if gains_bounded(gain, batch.max_label, size):
            continue  # the largest gain times the number of items: no pass over the labels
        # Astronomical labels: sum the gains, each scaled by the largest so that nothing overflows.
        top = 2.0 ** batch.max_label - 1 if gain == "exponential" else batch.max_label
        labels = batch.y_true.astype(np.float64)
        with np.errstate(under="ignore"):
            scaled = np.exp2(labels - batch.max_label) if gain == "exponential" else labels / batch.max_label
        if float(np.sum(scaled)) * top > limit:
            raise ValueError(
                f"y_true has labels up to {batch.max_label:g}: with gain={gain!r} their gains sum beyond "
                "the largest float64 (1.8e308), so DCG sums (or their mean) could overflow to inf or NaN; "
                "rescale the labels")


@dataclass(frozen=True)
class Options:
    """evaluate()'s options, each checked, as the caller gave them (``level``: the threshold as
    a float; ``n_threads`` is resolved at each call, where the work runs)."""

    ties: str
    relevance_level: float
    level: float
    gain: str
    empty: str
    nan: str
    n_threads: int | None
    binary: bool = False    # labels >= level become 1, the others 0 (a convention's)
    log_base: float = 2.0

    @classmethod
    def check(cls, *, ties: str, relevance_level: float, gain: str, empty: str, nan: str,
              n_threads: int | None, binary: bool = False, log_base: float = 2.0) -> Options:
        """Check every option, in the order evaluate() reports them."""
        check_ties(ties)
        level = check_level(relevance_level)
        check_choice(gain, "gain", ("linear", "exponential"))
        base = check_log_base(log_base)
        check_choice(empty, "empty", _EMPTY)
        effective_n_threads(n_threads)
        check_choice(nan, "nan", _NAN)
        return cls(ties, relevance_level, level, gain, empty, nan, n_threads, binary, base)


def check_log_base(log_base: object) -> float:
    """DCG's logarithm base: a finite number > 1."""
    base = as_real(log_base, "log_base")
    if not 1.0 < base < math.inf:
        raise ValueError(f"log_base must be a finite number > 1, got {log_base!r}")
    return base


def apply_log_base(values: np.ndarray, unique: Sequence[MetricSpec], log_base: float, source: str) -> None:
    """Turn the kernel's DCG columns (discounts 1/log2(i + 1)) into base ``log_base``'s.

    1/log_b(i + 1) = log2(b)/log2(i + 1): every discount of a DCG, and so the DCG under any
    tie policy (an expectation is linear), is the base-2 one times log2(b). nDCG divides
    two DCGs of one base, so the factor cancels and its columns are left as they are.
    """
    if log_base == 2.0:
        return
    factor = math.log2(log_base)
    for j, spec in enumerate(unique):
        if spec.kind == Metric.DCG:
            with np.errstate(over="ignore"):
                values[:, j] *= factor
            if np.isinf(values[:, j]).any():
                raise ValueError(f"{source}'s gains with log_base={log_base!r} (discounts "
                                 f"{factor:g} times the base-2 ones) sum beyond float64's largest value")


def check_definitions(specs: Sequence[MetricSpec], names: Sequence[str], ties: str) -> None:
    """Refuse a metric definition that the tie policy cannot honour, before any work.

    AP(denom=hits) divides each query's sum by its hits within k: both vary over the
    orderings of tied items, and the expectation of a ratio is not the ratio of
    expectations that ``ties="expected"`` would compute.
    """
    for name, spec in zip(names, specs, strict=True):
        if spec.variant == Variant.BY_HITS and ties == "expected":
            raise ValueError(f"metric {name!r} (AP divided by the hits within k) cannot honour "
                             "ties='expected' (the expectation of a ratio is not computed); pass a "
                             "deterministic policy: ties='optimistic', 'pessimistic', 'stable' or 'trec'")


def unique_specs(specs: Sequence[MetricSpec],
                 gain: str) -> tuple[list[MetricSpec], list[MetricSpec], list[int]]:
    """The specs with the call's gain filled in, the distinct ones (one kernel column each),
    and each spec's column."""
    resolved = [spec.resolved(gain) for spec in specs]
    unique = list(dict.fromkeys(resolved))
    return resolved, unique, [unique.index(s) for s in resolved]


def _compute(specs: Sequence[MetricSpec], y_true: ArrayLike, y_score: ArrayLike, *, qid: ArrayLike | None,
             indptr: ArrayLike | None, doc_ids: ArrayLike | None, exclude: Any, ties: str,
             relevance_level: float, gain: str, max_grade: float | None, empty: str | None, nan: str,
             n_threads: int | None, binary: bool = False, log_base: float = 2.0,
             ) -> tuple[np.ndarray, list[int], list[MetricSpec], Batch, np.ndarray]:
    """Validate, run the kernel once for all specs, apply the empty-query policy (None: "zero")."""
    empty = "zero" if empty is None else empty
    options = Options.check(ties=ties, relevance_level=relevance_level, gain=gain, empty=empty, nan=nan,
                            n_threads=n_threads, binary=binary, log_base=log_base)
    values, columns, specs, batch, n_relevant = compute_values(
        specs, y_true, y_score, qid=qid, indptr=indptr, doc_ids=doc_ids, options=options, max_grade=max_grade,
        exclude=exclude)
    apply_empty(values, n_relevant, batch.query_ids, empty, relevance_level)
    return values, columns, specs, batch, n_relevant


def compute_values(specs: Sequence[MetricSpec], y_true: ArrayLike, y_score: ArrayLike, *,
                   qid: ArrayLike | None, indptr: ArrayLike | None, doc_ids: ArrayLike | None,
                   options: Options, max_grade: float | None, exclude: Any = None,
                   ) -> tuple[np.ndarray, list[int], list[MetricSpec], Batch, np.ndarray]:
    """Every metric of ``specs`` for every query of one call's data, checked (the empty-query
    policy not yet applied): values (one column per distinct spec), each spec's column, the
    specs with the gain filled in, the batch and each query's relevant count."""
    ties_code = check_ties(options.ties)
    check_definitions(specs, [s.name for s in specs], options.ties)
    threads = effective_n_threads(options.n_threads)
    gathered = exclude is not None or is_sparse(y_true)
    if gathered and (qid is not None or indptr is not None):
        raise ValueError(f"{'qid' if qid is not None else 'indptr'}= groups 1-D inputs; a scipy.sparse "
                         "y_true and exclude= go with a 2-D y_score, one user per row")
    if gathered:
        batch = candidate_batch(y_true, y_score, exclude, doc_ids=doc_ids, ties=ties_code, n_threads=threads)
    else:
        batch = as_batch(y_true, y_score, qid=qid, indptr=indptr, doc_ids=doc_ids, ties=ties_code,
                         nan=options.nan)
    level = options.level
    if options.binary:
        labels = np.greater_equal(batch.y_true, level).view(np.uint8)
        batch = replace(batch, y_true=labels, max_label=float(labels.max(initial=0)))
        level = 1.0
    specs, unique, columns = unique_specs(specs, options.gain)
    _check_gains(specs, batch)
    if batch.y_true.dtype.kind in "iu" and batch.max_label > _EXACT_FLOAT_INT and level > _EXACT_FLOAT_INT:
        raise ValueError(f"relevance_level={options.relevance_level!r} and labels of y_true are both "
                         "above 2**53, where float64 cannot compare integers exactly; pass a "
                         "relevance_level <= 2**53")
    grade = check_max_grade(max_grade, batch.max_label)
    values, n_relevant, nan_found = _run_kernel(batch, unique, ties_code, level, grade, threads)
    apply_log_base(values, unique, options.log_base, "y_true")
    # NaN scores are found by the kernel as it reads them (as_batch does not look), so
    # the error comes now, before any result is used. Without queries it looked at none.
    if options.nan == "raise" and (nan_found or values.shape[0] == 0):
        if gathered and nan_found:
            raise candidate_nan_error(batch, exclude)  # excluded scores are not read
        as_scores(y_score)  # raises, naming the first NaN
        if nan_found:
            raise ValueError("y_score contains NaN; pass nan='last' to rank NaN scores below every number")
    return values, columns, specs, batch, n_relevant


def _run_kernel(batch: Batch, unique: Sequence[MetricSpec], ties_code: Ties, level: float, grade: float,
                threads: int) -> tuple[np.ndarray, np.ndarray, bool]:
    """Every metric of ``unique`` for every query, with each query's relevant count and
    whether the kernel met a NaN score."""
    kinds = np.array([s.kind for s in unique], dtype=np.int32)
    cutoffs = np.array([s.k or 0 for s in unique], dtype=np.int64)
    flags = np.array([s.gain == "exponential" or s.graded for s in unique], dtype=np.uint8)
    params = np.array([s.p for s in unique], dtype=np.float64)
    variants = np.array([s.variant for s in unique], dtype=np.uint8)
    n_queries = batch.indptr.shape[0] - 1
    # Every metric stops at a cutoff: the kernel tracks only items that can reach it. A
    # cutoff no list is longer than cuts nothing (and must not size the kernel's heap).
    # nDCG(ideal=all)'s ideal DCG reads every label beyond the cutoff.
    cut = all(s.k is not None and s.variant != Variant.IDEAL_ALL for s in unique)
    top_k = int(cutoffs.max()) if cut else 0
    if top_k and top_k >= (int((batch.indptr[1:] - batch.indptr[:-1]).max()) if n_queries else 0):
        top_k = 0
    values = np.empty((n_queries, len(unique)), dtype=np.float64)
    n_relevant = np.empty(n_queries, dtype=np.int64)
    nan_queries = []

    spec = (kinds, cutoffs, flags, params, variants)
    output = (values, n_relevant)
    options = {"ties": ties_code, "level": level, "max_grade": grade, "top_k": top_k,
               "shared_scores": batch.shared_scores, "shared_keys": batch.shared_keys}

    def task(q_start: int, q_stop: int, stop: np.ndarray) -> None:
        nan_queries.append(evaluate_range(batch.indptr, batch.y_score, batch.y_true, batch.tie_key, spec,
                                          options, q_start, q_stop, output, stop))

    run_over_queries(task, batch.indptr, threads)
    return values, n_relevant, any(nan_queries)


def apply_empty(values: np.ndarray, n_relevant: np.ndarray, query_ids: np.ndarray, empty: str,
                 relevance_level: float) -> None:
    """The empty-query policy: queries without a relevant item stay, become NaN, or raise."""
    empty_rows = n_relevant == 0
    if empty == "error" and empty_rows.any():
        ids = query_ids[empty_rows]
        shown = ", ".join(map(repr, ids[:5].tolist())) + (", ..." if ids.size > 5 else "")
        raise ValueError(f"{ids.size} quer{'y has' if ids.size == 1 else 'ies have'} no relevant item "
                         f"(label >= {relevance_level}): {shown}; pass empty='zero' or 'skip' to allow it")
    if empty == "skip":
        values[empty_rows] = np.nan


def evaluate(y_true: ArrayLike, y_score: ArrayLike, metrics: str | Iterable[str], *,
             qid: ArrayLike | None = None, indptr: ArrayLike | None = None, doc_ids: ArrayLike | None = None,
             exclude: Any = None, ties: str = "expected", relevance_level: float = 1, gain: str = "linear",
             convention: str | None = None, max_grade: float | None = None, empty: str | None = None,
             nan: str = "raise", n_threads: int | None = None, log_base: float = 2) -> Results:
    """Compute several ranking metrics per query in one pass over the data.

    Parameters
    ----------
    y_true : array-like of non-negative numbers, or scipy.sparse matrix
        Relevance labels: bool, integers or floats (graded, fractional allowed).
        Same shape as ``y_score``; or 2-D ``(n_topics, n_items)`` when ``y_score`` is
        one 1-D ranking judged against many topics. A scipy.sparse (users x items)
        matrix, with a 2-D ``y_score`` of its shape, is never made dense: its stored
        non-zero values are the labels, every other item is not relevant, and a
        (row, column) stored twice is an error (scipy would add them). For DCG and nDCG the gains of all
        labels of the call must sum below float64's largest value (1.8e308).
    y_score : array-like of float32, float64 (or exactly representable integers)
        Scores; higher ranks first. 2-D: one query per row. 1-D: one query, or many
        grouped by ``indptr`` or ``qid``. Lists of different lengths are passed flat,
        with ``indptr`` or ``qid`` (nested lists of different lengths are an error).
    metrics : str or iterable of str
        Metric names, e.g. ``["MRR", "MAP", "nDCG@10", "P@10"]``; ir_measures and
        trec_eval spellings are accepted (``ndcg_cut_10``, ``recip_rank``, ...).
        Cutoffs are integers from 1 to 2**63 - 1; one beyond a list keeps the whole
        list.
    qid : array-like, optional
        Query id of every row of 1-D input, any dtype, any order. Output is sorted by id.
    indptr : array-like of int, optional
        CSR offsets for 1-D input: query ``i`` is rows ``indptr[i]:indptr[i+1]``.
    doc_ids : array-like, optional
        Document id per score, needed by ``ties="trec"`` only (unique within a query).
        With 2-D ``y_score``, one row's ids (shape ``(n_items,)``) serve every query.
    exclude : scipy.sparse matrix or bool array, shape of ``y_score``, optional
        Items removed from each row's candidates before ranking (a recommender's
        training interactions), as ``rank_positive(mask=...)``'s filtered protocol:
        every stored non-zero entry of a sparse matrix, or True. With a 2-D
        ``y_score`` only. Their scores are not read (a NaN there is no error), and an
        excluded item with a label in ``y_true`` is a ValueError (it would silently
        change the number of relevant items). Every tie policy applies to the items
        left; ``ties="trec"`` reads ``doc_ids`` as for a 2-D ``y_score``.
    ties : {"expected", "optimistic", "pessimistic", "stable", "trec"}
        How tied scores are ordered. ``"expected"`` (default) is the exact expectation
        of each metric over all orderings of tied items (McSherry & Najork 2008);
        ``"optimistic"`` / ``"pessimistic"`` order tied items by label, highest /
        lowest first; ``"stable"`` keeps input order; ``"trec"`` orders by
        ``doc_ids`` descending (trec_eval). Every metric supports every policy
        except ``AP(denom=hits)``, which needs a deterministic one.
    relevance_level : float, default 1
        Labels ``>= relevance_level`` count as relevant for binary metrics (RR, AP,
        P, R, Rprec, Hits, F1, binary RBP). Gain metrics (DCG, nDCG, ERR) use the
        label values themselves. Any finite number > 0 (not a bool or a string).
    gain : {"linear", "exponential"}
        DCG/nDCG gain: the label (trec_eval) or ``2**label - 1``. A metric name can
        override it: ``nDCG(gain=exponential)@10``.
    convention : {"trec", "recbole", "implicit", "torchmetrics", "recommenders", "pyg", "spark"}, optional
        Define the metrics as that library does (``docs/conventions.md``): AP's and
        recall's divisor and nDCG's ideal where the metric name leaves them out
        (``AP(denom=R)@10`` keeps R under any convention), binary labels (label >=
        ``relevance_level`` is 1, else 0) for all but trec and torchmetrics, and the
        default of ``empty``. Under ``"implicit"`` each user's P@k is hits / min(k, R)
        and its mean is weighted by min(k, R) (``Results.weights``): implicit's
        sum(hits) / sum(min(k, R)).
    max_grade : float, optional
        ERR's and graded RBP's top grade g_max: a finite number, at least the largest
        label; default the largest label in the call.
    empty : {"zero", "skip", "error"}, optional
        Queries without relevant item: value as defined (0 for binary metrics, as
        trec_eval) and counted; NaN and left out of means; or an error. Default
        ``"zero"``, or the convention's (``"skip"`` for recbole, implicit,
        recommenders and pyg).
    nan : {"raise", "last"}
        NaN scores are an error, or rank below every number (tied with each other).
    n_threads : int, optional
        Threads over queries; None or -1 for all CPUs, -2 for all but one, ... (at
        least one). Any non-zero integer int64 holds; results do not depend on it.
        All CPUs: those this process may use (affinity mask, cgroup CPU quota),
        or ``RANKWISE_NUM_THREADS`` when set.
    log_base : float, default 2
        Base of DCG's logarithm: discounts 1 / log_b(rank + 1), as scikit-learn's
        ``dcg_score(log_base=)``; any finite number > 1. nDCG does not depend on it
        (the factor log2(b) of DCG and ideal DCG cancels).

    Returns
    -------
    Results
        ``res.mean()``, ``res["nDCG@10"]`` (per query), ``res.query_ids``,
        ``res.to_pandas()``.

    Examples
    --------
    >>> import rankwise as rw
    >>> y_true = [[0, 1, 0, 2], [1, 0, 0, 0]]
    >>> y_score = [[0.9, 0.8, 0.7, 0.1], [0.3, 0.3, 0.1, 0.1]]   # a tie at the top of query 2
    >>> res = rw.evaluate(y_true, y_score, ["MRR", "P@2"])
    >>> res.mean()
    {'MRR': 0.625, 'P@2': 0.5}
    >>> res["MRR"]                     # query 2: rank 1 or 2, equally likely
    array([0.5 , 0.75])
    >>> rw.evaluate(y_true, y_score, ["MRR"], ties="optimistic").mean()
    {'MRR': 0.75}

    One ranking, as libraries define AP@2 (relevant at ranks 1 and 4 of 4):

    >>> y_true, y_score = [[1, 0, 0, 1]], [[0.4, 0.3, 0.2, 0.1]]
    >>> [rw.evaluate(y_true, y_score, ["AP@2"], convention=c, ties="stable").mean()["AP@2"]
    ...  for c in ("trec", "recbole", "torchmetrics")]
    [0.5, 0.5, 1.0]

    Held-out items as a sparse matrix, training items excluded from the candidates:

    >>> import numpy as np, scipy.sparse as sp
    >>> held_out = sp.csr_array(np.array([[0, 0, 1, 0], [0, 1, 0, 0]]))
    >>> train = sp.csr_array(np.array([[1, 0, 0, 0], [0, 0, 0, 1]], dtype=bool))
    >>> scores = np.array([[0.9, 0.2, 0.8, 0.1], [0.1, 0.5, 0.2, 0.9]])
    >>> rw.evaluate(held_out, scores, ["MRR"], exclude=train)["MRR"]
    array([1., 1.])
    """
    names = metric_names(metrics)
    conv = get_convention(convention) if convention is not None else None
    named = [parse_metric(name) for name in names]
    specs = named if conv is None else [conv.apply(spec) for spec in named]
    values, columns, specs, batch, n_relevant = _compute(
        specs, y_true, y_score, qid=qid, indptr=indptr, doc_ids=doc_ids, exclude=exclude, ties=ties,
        relevance_level=relevance_level, gain=gain, max_grade=max_grade,
        empty=conv.empty if conv is not None and empty is None else empty, nan=nan, n_threads=n_threads,
        binary=conv is not None and conv.binary, log_base=log_base)
    return make_results(names, values, columns, batch.query_ids, ties, gain, n_relevant, convention=conv,
                        named=named)


def make_results(names: Sequence[str], values: np.ndarray, columns: Sequence[int], query_ids: np.ndarray,
                 ties: str, gain: str, n_relevant: np.ndarray, *, convention: Convention | None = None,
                 named: Sequence[MetricSpec] = ()) -> Results:
    """evaluate()'s Results, in which every spelling of an asked metric finds its column;
    ``named``: the specs as named (before the convention), whose means it may weigh."""
    weights = {}
    if convention is not None:
        for name, spec in zip(names, named, strict=True):
            spec_weights = convention.mean_weights(spec, n_relevant)
            if spec_weights is not None:
                weights[name] = spec_weights
    key = partial(_resolved, gain, None if convention is None else convention.name)
    return Results(names, values, query_ids, ties, columns=columns, key=key, n_relevant=n_relevant,
                   weights=weights)


def _resolved(gain: str, convention: str | None, name: str) -> MetricSpec:
    """The canonical spec of metric ``name`` under ``gain`` and ``convention``: a module-level
    function, so that Results (which keep it as their ``key``) pickle."""
    spec = parse_metric(name)
    if convention is not None:
        spec = get_convention(convention).apply(spec)
    return spec.resolved(gain)


# The data and tie options every per-metric function shares with evaluate().
_OPTIONS = ("qid", "indptr", "doc_ids", "exclude", "ties", "relevance_level", "empty", "nan", "n_threads")
_EVALUATE_PARAMS = inspect.signature(evaluate).parameters
_OPTIONS_DOC = """per_query : bool, default False
        Return one value per query (sorted by query id for ``qid`` input) instead of
        the mean over queries (NaN when there is no query).
    sample_weight : array-like, optional
        Per-query weights of the mean (finite, >= 0, not all 0), one per query in the
        order of the per-query values, as in :meth:`rankwise.Results.mean`.
    qid, indptr, doc_ids, exclude, ties, relevance_level, empty, nan, n_threads
        As in :func:`evaluate`. Every tie policy is supported (``denom="hits"``:
        the deterministic ones). A cutoff beyond a list's length keeps the whole list."""


F = TypeVar("F", bound=Callable[..., Any])


def _metric_function(func: F) -> F:
    """Give a per-metric function evaluate()'s options in its signature and docstring."""
    signature = inspect.signature(func)
    params = [p for p in signature.parameters.values() if p.kind != p.VAR_KEYWORD]
    options = [_EVALUATE_PARAMS[name] for name in _OPTIONS]
    func.__signature__ = signature.replace(parameters=params + options)  # type: ignore[attr-defined]
    func.__doc__ = (func.__doc__ or "").replace("%(options)s", _OPTIONS_DOC)
    return func


def _single(name: str, kind: Metric, k: int | None, y_true: ArrayLike, y_score: ArrayLike, per_query: bool,
            options: dict[str, Any], *, max_grade: float | None = None, log_base: float = 2,
            **spec_params: Any) -> float | np.ndarray:
    """One metric for a per-metric function: the mean, or the per-query values."""
    options = dict(options)
    sample_weight = options.pop("sample_weight", None)
    unknown = sorted(set(options) - set(_OPTIONS))
    if unknown:
        raise TypeError(f"{name}() got an unexpected keyword argument {unknown[0]!r}")
    per_query = check_flag(per_query, "per_query")
    if per_query and sample_weight is not None:
        raise ValueError(f"{name}(): sample_weight weighs the mean; per_query=True gives the values "
                         "themselves")
    if not isinstance(spec_params.get("gain", ""), str):
        raise TypeError(f"{name}: gain must be 'linear' or 'exponential', got {spec_params['gain']!r}")
    spec = make_spec(kind, k, where=name, k_argument=True, **spec_params)
    settings = {option: _EVALUATE_PARAMS[option].default for option in _OPTIONS}
    settings.update(options, gain=spec.gain or "linear", max_grade=max_grade, log_base=log_base)
    values, columns, *_ = _compute([spec], y_true, y_score, **settings)
    column = values[:, columns[0]]
    if per_query:
        return column
    return mean_over_queries(column, check_weights(sample_weight, column.shape[0], "sample_weight"))


@_metric_function
def reciprocal_rank(y_true: ArrayLike, y_score: ArrayLike, k: int | None = None,
                    *, per_query: bool = False, **options: Any) -> float | np.ndarray:
    """Mean reciprocal rank: 1 / rank of the first relevant item (0 if none, or beyond k).

    Parameters
    ----------
    y_true, y_score : array-like
        Labels and scores, in any layout :func:`evaluate` accepts.
    k : int, optional
        Cutoff, from 1 to 2**63 - 1: a first relevant item below rank k scores 0.
    %(options)s

    Examples
    --------
    >>> import rankwise as rw
    >>> rw.reciprocal_rank([[0, 1, 0]], [[0.5, 0.5, 0.9]])   # ranks 2 or 3, equally likely
    0.41666666666666663
    >>> rw.reciprocal_rank([[0, 1, 0]], [[0.5, 0.5, 0.9]], ties="optimistic")
    0.5
    """
    return _single("reciprocal_rank", Metric.RR, k, y_true, y_score, per_query, options)


@_metric_function
def average_precision(y_true: ArrayLike, y_score: ArrayLike, k: int | None = None,
                      *, denom: str | None = None, per_query: bool = False,
                      **options: Any) -> float | np.ndarray:
    """Average precision (MAP when averaged): sum of precision@i over relevant ranks i <= k, / R.

    By default divides by R, the number of relevant items of the query, as trec_eval
    does (not by the number retrieved within k); ``denom`` chooses another divisor, as
    other libraries do (``docs/conventions.md``).

    Parameters
    ----------
    y_true, y_score : array-like
        Labels and scores, in any layout :func:`evaluate` accepts.
    k : int, optional
        Cutoff (``AP@k``, trec_eval's ``map_cut``), from 1 to 2**63 - 1.
    denom : {"R", "min", "hits"}, optional
        The divisor: ``"R"`` (default, trec_eval), ``"min"``: min(R, k) (RecBole, PyG,
        implicit; R without a cutoff), ``"hits"``: the relevant items within k
        (torchmetrics; a deterministic tie policy only). Case-insensitive. A query with
        a divisor of 0 scores 0. Also spelled in names: ``"AP(denom=min)@10"``.
    %(options)s

    Examples
    --------
    >>> import rankwise as rw
    >>> rw.average_precision([[1, 0, 1]], [[0.9, 0.8, 0.7]])
    0.8333333333333333
    >>> rw.average_precision([[1, 0, 0, 1]], [[0.9, 0.8, 0.7, 0.6]], k=2, denom="hits", ties="stable")
    1.0
    """
    return _single("average_precision", Metric.AP, k, y_true, y_score, per_query, options, denom=denom)


@_metric_function
def ndcg(y_true: ArrayLike, y_score: ArrayLike, k: int | None = None,
         *, gain: str = "linear", ideal: str | None = None, per_query: bool = False,
         **options: Any) -> float | np.ndarray:
    """Normalised DCG: DCG@k divided by the DCG@k of the labels sorted descending.

    Gains are the label values (``"linear"``, trec_eval) or ``2**label - 1``
    (``"exponential"``); the discount is ``1/log2(rank + 1)``. The ideal ranking uses
    every label given for the query. Under ``ties="expected"`` this equals
    scikit-learn's tie-averaged ``ndcg_score``.

    Parameters
    ----------
    y_true, y_score : array-like
        Labels and scores, in any layout :func:`evaluate` accepts.
    k : int, optional
        Cutoff, from 1 to 2**63 - 1.
    gain : {"linear", "exponential"}
    ideal : {"cut", "all"}, optional
        The ideal DCG: of the k best labels (``"cut"``, default: trec_eval's
        ``ndcg_cut``), or of every label, not cut at k (``"all"``), so that a list
        missing relevant items below k is penalised. Case-insensitive; in names:
        ``"nDCG(ideal=all)@10"``.
    %(options)s

    Examples
    --------
    >>> import rankwise as rw
    >>> round(rw.ndcg([[3, 2, 0, 1]], [[0.9, 0.1, 0.5, 0.4]]), 6)
    0.915893
    >>> round(rw.ndcg([[1, 0, 1]], [[0.9, 0.8, 0.7]], k=1, ideal="all"), 6)   # 1 / (1 + 1/log2(3))
    0.613147
    """
    return _single("ndcg", Metric.NDCG, k, y_true, y_score, per_query, options, gain=gain, ideal=ideal)


@_metric_function
def dcg(y_true: ArrayLike, y_score: ArrayLike, k: int | None = None,
        *, gain: str = "linear", log_base: float = 2, per_query: bool = False,
        **options: Any) -> float | np.ndarray:
    """Discounted cumulative gain: sum over ranks i <= k of gain(label_i) / log_b(i + 1).

    Parameters
    ----------
    y_true, y_score : array-like
        Labels and scores, in any layout :func:`evaluate` accepts.
    k : int, optional
        Cutoff, from 1 to 2**63 - 1.
    gain : {"linear", "exponential"}
    log_base : float, default 2
        The logarithm's base b, a finite number > 1 (scikit-learn's ``dcg_score(log_base=)``).
    %(options)s

    Examples
    --------
    >>> import rankwise as rw
    >>> rw.dcg([[1, 0, 1]], [[0.9, 0.8, 0.7]])
    1.5
    >>> rw.dcg([[1, 0, 1]], [[0.9, 0.8, 0.7]], log_base=4)    # 1/log4(2) + 1/log4(4)
    3.0
    """
    return _single("dcg", Metric.DCG, k, y_true, y_score, per_query, options, gain=gain, log_base=log_base)


@_metric_function
def precision(y_true: ArrayLike, y_score: ArrayLike, k: int,
              *, per_query: bool = False, **options: Any) -> float | np.ndarray:
    """Precision at k: relevant items in the top k, divided by k (even when the list is shorter).

    Parameters
    ----------
    y_true, y_score : array-like
        Labels and scores, in any layout :func:`evaluate` accepts.
    k : int
        Cutoff (required), from 1 to 2**63 - 1.
    %(options)s

    Examples
    --------
    >>> import rankwise as rw
    >>> rw.precision([[1, 0, 1]], [[0.9, 0.8, 0.7]], k=2)
    0.5
    """
    return _single("precision", Metric.PRECISION, k, y_true, y_score, per_query, options)


@_metric_function
def recall(y_true: ArrayLike, y_score: ArrayLike, k: int,
           *, denom: str | None = None, per_query: bool = False, **options: Any) -> float | np.ndarray:
    """Recall at k: relevant items in the top k, divided by R (or by min(R, k)).

    Parameters
    ----------
    y_true, y_score : array-like
        Labels and scores, in any layout :func:`evaluate` accepts.
    k : int
        Cutoff (required), from 1 to 2**63 - 1.
    denom : {"R", "min"}, optional
        The divisor: ``"R"`` (default, trec_eval) or ``"min"``: min(R, k), capped recall
        (BEIR's ``recall_cap``, RecPack's ``CalibratedRecallK``), which reaches 1 when
        the top k holds only relevant items. Case-insensitive; in names:
        ``"R(denom=min)@20"``.
    %(options)s

    Examples
    --------
    >>> import rankwise as rw
    >>> rw.recall([[1, 0, 1]], [[0.9, 0.8, 0.7]], k=2)
    0.5
    >>> rw.recall([[1, 1, 1]], [[0.9, 0.8, 0.7]], k=2, denom="min")
    1.0
    """
    return _single("recall", Metric.RECALL, k, y_true, y_score, per_query, options, denom=denom)


@_metric_function
def r_precision(y_true: ArrayLike, y_score: ArrayLike,
                *, per_query: bool = False, **options: Any) -> float | np.ndarray:
    """R-precision: relevant items in the top R, divided by R (R = relevant items of the query).

    Parameters
    ----------
    y_true, y_score : array-like
        Labels and scores, in any layout :func:`evaluate` accepts.
    %(options)s

    Examples
    --------
    >>> import rankwise as rw
    >>> rw.r_precision([[1, 0, 1]], [[0.9, 0.8, 0.7]])
    0.5
    """
    return _single("r_precision", Metric.RPREC, None, y_true, y_score, per_query, options)


@_metric_function
def hit_rate(y_true: ArrayLike, y_score: ArrayLike, k: int,
             *, per_query: bool = False, **options: Any) -> float | np.ndarray:
    """Hits@k (Success@k): 1 if any relevant item is in the top k, else 0.

    Under ``ties="expected"`` it is the probability of that event over tie orderings.

    Parameters
    ----------
    y_true, y_score : array-like
        Labels and scores, in any layout :func:`evaluate` accepts.
    k : int
        Cutoff (required), from 1 to 2**63 - 1.
    %(options)s

    Examples
    --------
    >>> import rankwise as rw
    >>> rw.hit_rate([[1, 0]], [[0.5, 0.5]], k=1)
    0.5
    """
    return _single("hit_rate", Metric.HITS, k, y_true, y_score, per_query, options)


@_metric_function
def err(y_true: ArrayLike, y_score: ArrayLike, k: int | None = None,
        *, max_grade: float | None = None, per_query: bool = False, **options: Any) -> float | np.ndarray:
    """Expected reciprocal rank (Chapelle et al. 2009).

    ``ERR@k = sum_{i<=k} (1/i) R_i prod_{j<i} (1 - R_j)`` with
    ``R_i = (2**label_i - 1) / 2**max_grade``. Under ``ties="expected"`` the value is
    the exact expectation over tie orderings (O(c * y) per tie group of c items with
    y positive labels).

    Parameters
    ----------
    y_true, y_score : array-like
        Labels and scores, in any layout :func:`evaluate` accepts.
    k : int, optional
        Cutoff, from 1 to 2**63 - 1.
    max_grade : float, optional
        g_max; default the largest label in the call.
    %(options)s

    Examples
    --------
    >>> import rankwise as rw
    >>> rw.err([[2, 0, 1]], [[0.9, 0.8, 0.7]])   # 3/4 + (1/4)(1/4)/3
    0.7708333333333334
    """
    return _single("err", Metric.ERR, k, y_true, y_score, per_query, options, max_grade=max_grade)


@_metric_function
def rbp(y_true: ArrayLike, y_score: ArrayLike, p: float = 0.8, k: int | None = None,
        *, graded: bool = False, max_grade: float | None = None, per_query: bool = False,
        **options: Any) -> float | np.ndarray:
    """Rank-biased precision (Moffat & Zobel 2008): ``(1 - p) sum_i rel_i p**(i-1)``.

    ``rel_i`` is 1 for relevant items (label >= relevance_level), or
    ``label / max_grade`` with ``graded=True``.

    Parameters
    ----------
    y_true, y_score : array-like
        Labels and scores, in any layout :func:`evaluate` accepts.
    p : float, default 0.8
        Persistence, a number in (0, 1) (0 and 1 excluded).
    k : int, optional
        Cutoff, from 1 to 2**63 - 1.
    graded : bool, default False
        True or False.
    max_grade : float, optional
        Divisor of graded labels; default the largest label in the call.
    %(options)s

    Examples
    --------
    >>> import rankwise as rw
    >>> round(rw.rbp([[1, 0, 1]], [[0.9, 0.8, 0.7]], p=0.5), 6)
    0.625
    """
    return _single("rbp", Metric.RBP, k, y_true, y_score, per_query, options, max_grade=max_grade,
                   p=p, graded=graded)
