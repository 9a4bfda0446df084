"""Named conventions: how each library defines the metrics that libraries disagree on.

A convention fills in the definition options a metric name left out (``denom`` of AP
and R, ``ideal`` of nDCG: :mod:`rankwise.lists.names`) and says how labels, users
without relevant items and users without recommendations are treated. Every setting
is checked against the library's source (``citation``); ``docs/conventions.md`` has the
table, with the formulas.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from .._core._enums import Metric
from .._core.validation import check_choice
from .names import MetricSpec

__all__ = ["CONVENTIONS", "Convention", "get_convention"]


@dataclass(frozen=True)
class Convention:
    """One library's definitions.

    Attributes
    ----------
    name : str
        The name ``convention=`` takes.
    denom_ap, denom_recall : str
        AP's divisor (``"R"``, ``"min"``: min(R, k), ``"hits"``) and recall's
        (``"R"``, ``"min"``), where the metric name does not set one.
    ideal : str
        nDCG's ideal DCG: ``"cut"`` at k, or of ``"all"`` relevant labels.
    binary : bool
        Labels >= ``relevance_level`` count as 1, the others as 0, before any metric
        (nDCG's gains included).
    empty : str
        Users without a relevant item: ``"zero"`` (value 0, counted in means) or
        ``"skip"`` (left out of means), unless the caller passes ``empty=``.
    micro_precision : bool
        P@k is implicit's ``sum(hits) / sum(min(k, R))`` over users: each user's value
        is hits / min(k, R) (R(denom=min)@k), and the mean weighs it by min(k, R).
    absent : str
        Users absent from the recommendations (``evaluate_topk``): ``"empty"`` (an
        empty list, counted) or ``"skip"`` (left out, as a merge on common users does).
    citation : str
        Where the library defines them: file and function.
    """

    name: str
    denom_ap: str
    denom_recall: str
    ideal: str
    binary: bool
    empty: str
    micro_precision: bool
    absent: str
    citation: str

    def apply(self, spec: MetricSpec) -> MetricSpec:
        """``spec`` with the options it left as None filled in from this convention.

        An option the metric's name sets stays (``AP(denom=R)@10`` divides by R under
        any convention). Under ``micro_precision`` P@k becomes R(denom=min)@k, each
        user's hits / min(k, R), which :meth:`mean_weights` weighs.

        Examples
        --------
        >>> from rankwise.lists.names import parse_metric
        >>> recbole = get_convention("recbole")
        >>> recbole.apply(parse_metric("MAP@10")).name, recbole.apply(parse_metric("AP(denom=R)@10")).name
        ('AP(denom=min)@10', 'AP@10')
        >>> get_convention("implicit").apply(parse_metric("P@10")).name
        'R(denom=min)@10'
        """
        if spec.kind == Metric.PRECISION and self.micro_precision:
            return MetricSpec(Metric.RECALL, spec.k, denom="min")
        if spec.kind == Metric.AP and spec.denom is None:
            return replace(spec, denom=self.denom_ap)
        if spec.kind == Metric.RECALL and spec.denom is None:
            return replace(spec, denom=self.denom_recall)
        if spec.kind == Metric.NDCG and spec.ideal is None:
            return replace(spec, ideal=self.ideal)
        return spec

    def mean_weights(self, spec: MetricSpec, n_relevant: np.ndarray) -> np.ndarray | None:
        """The weights of each user's value in the mean of ``spec`` (as named, before
        :meth:`apply`), given each user's R; None for the plain mean.

        Only implicit's micro precision has them: min(k, R), so that the weighted mean
        of hits / min(k, R) is sum(hits) / sum(min(k, R)).
        """
        if spec.kind == Metric.PRECISION and self.micro_precision and spec.k is not None:
            return np.minimum(np.asarray(n_relevant, dtype=np.int64), spec.k).astype(np.float64)
        return None


def _convention(name: str, ap: str, ideal: str, binary: bool, empty: str, absent: str, *citation: str,
                micro: bool = False) -> Convention:
    return Convention(name, denom_ap=ap, denom_recall="R", ideal=ideal, binary=binary, empty=empty,
                      micro_precision=micro, absent=absent, citation="; ".join(citation))


CONVENTIONS: dict[str, Convention] = {c.name: c for c in [
    _convention("trec", "R", "cut", False, "zero", "empty",
                "usnistgov/trec_eval m_map.c te_calc_map, m_map_cut.c te_calc_map_cut",
                "m_recall.c te_calc_recall, m_ndcg_cut.c te_calc_ndcg_cut",
                "trec_eval.c: a topic without relevant document averaged as 0"),
    _convention("recbole", "min", "cut", True, "skip", "empty",
                "RUCAIBox/RecBole recbole/evaluator/metrics.py MAP.metric_info, Recall.metric_info",
                "NDCG.metric_info, Precision.metric_info",
                "recbole/data/dataloader/general_dataloader.py FullSortEvalDataLoader: the split's users"),
    _convention("implicit", "min", "cut", True, "skip", "empty",
                "benfred/implicit implicit/evaluation.pyx ranking_metrics_at_k: 'precision' relevant/pr_div",
                "pr_div += fmin(K, likes.size()); 'map' ap / fmin(K, likes.size())",
                "'ndcg' idcg = cg_sum[min(K, likes.size()) - 1]; users without test items skipped",
                micro=True),
    _convention("torchmetrics", "hits", "cut", False, "zero", "skip",
                "Lightning-AI/torchmetrics src/torchmetrics/functional/retrieval/average_precision.py "
                "retrieval_average_precision",
                "recall.py retrieval_recall, precision.py retrieval_precision",
                "ndcg.py retrieval_normalized_dcg",
                "src/torchmetrics/retrieval/base.py RetrievalMetric: empty_target_action='neg'"),
    _convention("recommenders", "min", "cut", True, "skip", "skip",
                "recommenders-team/recommenders recommenders/evaluation/python_evaluation.py",
                "merge_ranking_true_pred (common users), map_at_k, map, recall_at_k, precision_at_k",
                "ndcg_at_k (score_type='binary')"),
    _convention("pyg", "min", "cut", True, "skip", "empty",
                "pyg-team/pytorch_geometric torch_geometric/metrics/link_pred.py LinkPredMAP._compute",
                "LinkPredRecall._compute, LinkPredNDCG._compute (weighted=False)",
                "LinkPredMetric._update: total counts the examples with label_count > 0"),
    _convention("spark", "min", "cut", True, "zero", "empty",
                "apache/spark mllib/src/main/scala/org/apache/spark/mllib/evaluation/RankingMetrics.scala",
                "precisionAt, recallAt, meanAveragePrecision, meanAveragePrecisionAt (averagePrecision)",
                "ndcgAt without relevance values (binary)"),
]}


def get_convention(name: object) -> Convention:
    """The :class:`Convention` called ``name``.

    Examples
    --------
    >>> get_convention("pyg").denom_ap
    'min'
    >>> sorted(CONVENTIONS)
    ['implicit', 'pyg', 'recbole', 'recommenders', 'spark', 'torchmetrics', 'trec']
    """
    return CONVENTIONS[check_choice(name, "convention", CONVENTIONS)]
