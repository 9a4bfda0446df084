"""Weighted means (``sample_weight=``) and bootstrap intervals of means (``ci=``), against
numpy.average, scikit-learn, the plain reference bootstrap (rankwise.testing.stats) and
scipy.stats.bootstrap."""
import math

import numpy as np
import pytest

import rankwise as rw
from rankwise.testing import stats as ref
from rankwise.trec import read_example

sklearn_metrics = pytest.importorskip("sklearn.metrics")


def _data(seed=0, shape=(30, 8)):
    rng = np.random.default_rng(seed)
    return rng.integers(0, 3, shape), rng.integers(0, 4, shape).astype(float), rng.random(shape[0]) * 3


def test_weighted_means_equal_numpy_average_and_sklearn():
    y_true, y_score, w = _data()
    res = rw.evaluate(y_true, y_score, ["nDCG@5", "MRR", "P@3"])
    for name, value in res.mean(sample_weight=w).items():
        assert value == pytest.approx(np.average(res[name], weights=w), rel=1e-13)
    # scikit-learn averages over ties as ties="expected" does
    assert rw.ndcg(y_true, y_score, k=5, sample_weight=w) == pytest.approx(
        sklearn_metrics.ndcg_score(y_true, y_score, k=5, sample_weight=w), rel=1e-13)
    assert rw.dcg(y_true, y_score, sample_weight=w) == pytest.approx(
        sklearn_metrics.dcg_score(y_true, y_score, sample_weight=w), rel=1e-13)


def test_weighted_means_do_not_depend_on_query_order_and_skip_left_out_queries():
    y_true, y_score, w = _data(1)
    y_true[3] = 0                                         # no relevant item: NaN under empty="skip"
    res = rw.evaluate(y_true, y_score, ["AP"], empty="skip")
    order = np.random.default_rng(2).permutation(len(w))
    shuffled = rw.evaluate(y_true[order], y_score[order], ["AP"], empty="skip")
    assert shuffled.mean(sample_weight=w[order]) == res.mean(sample_weight=w)     # identical bits
    keep = ~np.isnan(res["AP"])
    assert res.mean(sample_weight=w)["AP"] == pytest.approx(np.average(res["AP"][keep], weights=w[keep]))


def test_weights_by_query_id_and_every_entry_point():
    pandas = pytest.importorskip("pandas")
    y_true, y_score, w = _data(3, (6, 5))
    qid = np.repeat(["q5", "q1", "q4", "q2", "q3", "q0"], 5)
    res = rw.evaluate(y_true.ravel(), y_score.ravel(), ["MRR"], qid=qid)
    by_id = dict(zip(res.query_ids.tolist(), w.tolist(), strict=True))
    want = res.mean(sample_weight=w)
    assert res.mean(sample_weight=by_id) == want == res.mean(sample_weight=pandas.Series(by_id))
    assert rw.reciprocal_rank(y_true.ravel(), y_score.ravel(), qid=qid, sample_weight=w) == want["MRR"]
    acc = rw.Accumulator(["MRR"]).update(y_true.ravel(), y_score.ravel(), qid=qid)
    assert acc.mean(sample_weight=w) == want
    ranks = rw.Ranks.from_ranks([1, 3, 2, 1])
    assert rw.rank_metrics(ranks, ["MRR"], sample_weight=[1, 2, 3, 4]) == \
        rw.rank_metrics(ranks, ["MRR"], weights=[1, 2, 3, 4])
    with pytest.raises(ValueError, match="weights or sample_weight"):
        rw.rank_metrics(ranks, ["MRR"], weights=[1, 1, 1, 1], sample_weight=[1, 1, 1, 1])


@pytest.mark.parametrize("bad, error, message", [
    ([1, 2], ValueError, "sample_weight must have one value per query"),
    ([1, -1, 1, 1, 1, 1], ValueError, "sample_weight must be finite numbers >= 0"),
    ([1, math.nan, 1, 1, 1, 1], ValueError, "sample_weight must be finite"),
    ([0] * 6, ValueError, "sample_weight must not all be 0"),
    (["a"] * 6, TypeError, "sample_weight"),
    ({0: 1.0}, ValueError, "sample_weight has no weight for query id 1"),
    ({i: 1.0 for i in range(7)}, ValueError, "a weight for query id 6, which is not in the results"),
])
def test_bad_weights_are_refused_by_name(bad, error, message):
    y_true, y_score, _ = _data(4, (6, 4))
    with pytest.raises(error, match=message):
        rw.evaluate(y_true, y_score, ["MRR"]).mean(sample_weight=bad)
    with pytest.raises(ValueError, match="per_query=True gives the values"):
        rw.ndcg(y_true, y_score, per_query=True, sample_weight=[1] * 6)


@pytest.mark.parametrize("method", ["percentile", "bca"])
@pytest.mark.parametrize("weighted", [False, True])
def test_interval_equals_the_plain_reference(method, weighted):
    y_true, y_score, w = _data(5, (25, 6))
    res = rw.evaluate(y_true, y_score, ["nDCG@3"])
    weights = w if weighted else None
    got = res.mean(weights, ci=0.9, n_resamples=499, seed=7, method=method)["nDCG@3"]
    mean, low, high = ref.mean_interval(res["nDCG@3"], weights, confidence=0.9, n_resamples=499, seed=7,
                                        method=method)
    assert (got.mean, got.low, got.high) == pytest.approx((mean, low, high), rel=1e-12)
    assert (got.confidence, got.method, got.n_resamples, got.seed) == (0.9, method, 499, 7)


def test_interval_agrees_with_scipy_bootstrap():
    scipy_stats = pytest.importorskip("scipy.stats")
    values = np.random.default_rng(8).beta(0.6, 1.4, 200)
    res = rw.Results(["x"], values[:, None].copy(), np.arange(200), "stable")
    for method, theirs in (("percentile", "percentile"), ("bca", "BCa")):
        got = res.mean(ci=0.95, method=method, n_resamples=9999)["x"]
        want = scipy_stats.bootstrap((values,), np.mean, confidence_level=0.95, method=theirs,
                                     n_resamples=9999, rng=np.random.default_rng(0)).confidence_interval
        width = want.high - want.low
        assert abs(got.low - want.low) < 0.06 * width and abs(got.high - want.high) < 0.06 * width


def test_interval_is_reproducible_and_thread_independent():
    y_true, y_score, _ = _data(9, (40, 6))
    res = rw.evaluate(y_true, y_score, ["AP"])
    one = res.mean(ci=0.95, n_resamples=2000, n_threads=1)["AP"]
    assert res.mean(ci=0.95, n_resamples=2000, n_threads=2)["AP"] == one
    fresh = res.mean(ci=0.95, n_resamples=200, seed=None)["AP"]
    assert res.mean(ci=0.95, n_resamples=200, seed=fresh.seed)["AP"] == fresh
    assert one.low <= one.mean <= one.high


@pytest.mark.parametrize("options, error, message", [
    ({"ci": 1.5}, ValueError, "ci must be in"), ({"ci": True}, TypeError, "ci must be a number"),
    ({"ci": 0.9, "method": "normal"}, ValueError, "method"), ({"ci": 0.9, "n_resamples": 0}, ValueError,
                                                              "n_resamples"),
    ({"ci": 0.9, "seed": -1}, ValueError, "seed"),
])
def test_bad_interval_options_are_refused_by_name(options, error, message):
    y_true, y_score, _ = _data(10, (5, 4))
    with pytest.raises(error, match=message):
        rw.evaluate(y_true, y_score, ["MRR"]).mean(**options)


def test_trec_results_intervals_leave_counts_out_and_respect_the_geometric_mean():
    res = rw.trec_eval(*read_example(), ["num_ret", "map", "gm_map"])
    intervals = res.mean(ci=0.95, n_resamples=999, method="percentile")
    assert list(intervals) == ["map", "gm_map"]
    assert intervals["map"].mean == res.mean()["map"]
    logs = np.log(np.maximum(res["gm_map"], 1e-5))
    _, low, high = ref.mean_interval(logs, confidence=0.95, n_resamples=999)
    assert (intervals["gm_map"].low, intervals["gm_map"].high) == pytest.approx((math.exp(low), math.exp(high)),
                                                                                rel=1e-12)
    weighted = res.mean(sample_weight=np.arange(1, len(res.query_ids) + 1))
    assert weighted["num_ret"] == res.mean()["num_ret"]      # a count stays a sum
    assert weighted["map"] == pytest.approx(np.average(res["map"], weights=np.arange(1, len(res.query_ids) + 1)))
