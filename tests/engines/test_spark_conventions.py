"""convention="spark" against Spark MLlib's own RankingMetrics (pyspark.mllib.evaluation)."""
import numpy as np
import pytest

import rankwise as rw


def test_spark_convention_matches_ranking_metrics(spark):
    from pyspark.mllib.evaluation import RankingMetrics

    rng = np.random.default_rng(11)
    n_users, n_items = 60, 25
    y_score = rng.permutation(n_users * n_items).reshape(n_users, n_items) + 1.0
    y_true = (rng.random((n_users, n_items)) < 0.2).astype(np.int64)
    y_true[:3] = 0           # empty ground truth: 0, counted
    y_true[3, :-1] = 1       # R > k
    ranked = np.argsort(-y_score, axis=1)
    pairs = [(ranked[u].tolist(), np.flatnonzero(y_true[u]).tolist()) for u in range(n_users)]
    metrics = RankingMetrics(spark.sparkContext.parallelize(pairs, 2))
    for k in (1, 3, 10):
        want = {f"P@{k}": metrics.precisionAt(k), f"R@{k}": metrics.recallAt(k),
                f"AP@{k}": metrics.meanAveragePrecisionAt(k), f"nDCG@{k}": metrics.ndcgAt(k),
                "AP": metrics.meanAveragePrecision}
        got = rw.evaluate(y_true, y_score, list(want), convention="spark", ties="stable").mean()
        assert got == pytest.approx(want, rel=1e-12, abs=1e-15)
