"""Float64 transcriptions of peer-library metric code, for checks the real library cannot give.

torchmetrics computes AP and nDCG with float32 intermediates, so the real library agrees with any
float64 value to ~1e-7 only; its definitions are checked to 1e-12 through these transcriptions,
which the tests first compare with the real library at float32 precision. Spark's graded nDCG
is transcribed to show its ideal-ordering bug next to the real output.

Each function names the file, function and version it transcribes, line by line, with the same
operations in the same order (float64 where the source has float32); nothing here imports rankwise.
"""
import math

import numpy as np


def _topk_order(preds):
    """``preds.topk(n, sorted=True)`` for distinct scores: positions by decreasing score."""
    return np.argsort(-np.asarray(preds, dtype=np.float64), kind="stable")


def torchmetrics_average_precision(preds, target, top_k=None):
    """torchmetrics 1.9.0, functional/retrieval/average_precision.py, retrieval_average_precision.

    Lines 51-62: top_k defaults to all; targets with preds <= 0 are zeroed; the targets are
    taken in topk order; no hit -> 0; else mean over the hit positions p (1-based) of j/p,
    j the hit's count: divided by the hits in the top k, not by R.
    """
    preds = np.asarray(preds, dtype=np.float64)
    target = np.asarray(target)
    top_k = top_k or preds.shape[-1]
    target = np.where(preds > 0, target, 0)
    target = target[_topk_order(preds)[: min(top_k, preds.shape[-1])]]
    if not target.sum():
        return 0.0
    positions = np.arange(1, len(target) + 1, dtype=np.float64)[target > 0]
    return float(np.mean((np.arange(len(positions), dtype=np.float64) + 1) / positions))


def _torchmetrics_tie_average_dcg(target, preds, discount_cumsum):
    """torchmetrics 1.9.0, functional/retrieval/ndcg.py, _tie_average_dcg (lines 22-42)."""
    _, inv, counts = np.unique(-preds, return_inverse=True, return_counts=True)
    ranked = np.zeros(len(counts), dtype=np.float64)
    np.add.at(ranked, inv, target.astype(np.float64))
    ranked = ranked / counts
    groups = counts.cumsum() - 1
    discount_sums = np.empty(len(counts), dtype=np.float64)
    discount_sums[0] = discount_cumsum[groups[0]]
    discount_sums[1:] = np.diff(discount_cumsum[groups])
    return float((ranked * discount_sums).sum())


def _torchmetrics_dcg_sample_scores(target, preds, top_k, ignore_ties):
    """torchmetrics 1.9.0, functional/retrieval/ndcg.py, _dcg_sample_scores (lines 45-68)."""
    discount = 1.0 / np.log2(np.arange(target.shape[-1]) + 2.0)
    discount[top_k:] = 0.0
    if ignore_ties:
        ranking = np.argsort(-preds, kind="stable")
        return float((discount * target[ranking]).sum())
    return _torchmetrics_tie_average_dcg(target, preds, discount.cumsum())


def torchmetrics_ndcg(preds, target, top_k=None):
    """torchmetrics 1.9.0, functional/retrieval/ndcg.py, retrieval_normalized_dcg (lines 71-113).

    Linear gain (the target itself), log2 discount, tie-averaged DCG; the ideal DCG is the
    target sorted by itself, cut at top_k; an all-zero target gives 0.
    """
    preds = np.asarray(preds, dtype=np.float64)
    target = np.asarray(target, dtype=np.float64)
    top_k = preds.shape[-1] if top_k is None else top_k
    gain = _torchmetrics_dcg_sample_scores(target, preds, top_k, ignore_ties=False)
    normalized_gain = _torchmetrics_dcg_sample_scores(target, target, top_k, ignore_ties=True)
    return 0.0 if normalized_gain == 0 else gain / normalized_gain


def spark_ndcg_at(pred, lab, rel, k):
    """Spark mllib RankingMetrics.ndcgAt, one query (apache/spark
    mllib/src/main/scala/org/apache/spark/mllib/evaluation/RankingMetrics.scala, snapshot 075aa42;
    pyspark 4.3.0 behaves the same, see test_conventions_peers.py).

    With relevances: gain 2**rel - 1, natural log; the ideal DCG walks ``lab`` in the order
    given (``lab(i)``), not sorted by relevance. Without: binary. Empty truth -> 0.
    """
    use_binary = len(rel) == 0
    lab_set = set(lab)
    rel_map = dict(zip(lab, rel, strict=False))  # Scala zip stops at the shorter
    if not lab_set:
        return 0.0
    n = min(max(len(pred), len(lab_set)), k)
    max_dcg = dcg = 0.0
    for i in range(n):
        if use_binary:
            gain = 1.0 / math.log(i + 2)
            if i < len(pred) and pred[i] in lab_set:
                dcg += gain
            if i < len(lab_set):
                max_dcg += gain
        else:
            if i < len(pred):
                dcg += (math.pow(2.0, rel_map.get(pred[i], 0.0)) - 1) / math.log(i + 2)
            if i < len(lab_set):
                max_dcg += (math.pow(2.0, rel_map.get(lab[i], 0.0)) - 1) / math.log(i + 2)
    return 0.0 if max_dcg == 0.0 else dcg / max_dcg
