"""Published worked values (../shared/research/kg-ties-anchors.md §10) and scikit-learn."""
from fractions import Fraction as F

import numpy as np
import pytest

import rankwise as rw

# McSherry & Najork multi-relevant example.
MN_SCORES = [0.9, 0.7, 0.7, 0.7, 0.5, 0.5]
MN_BINARY = [0, 1, 0, 1, 1, 0]
MN_GRADED = [0, 2, 0, 1, 3, 0]
MN_TABLE = {
    "P": [0, F(1, 3), F(4, 9), F(1, 2), F(1, 2), F(1, 2)],
    "R": [0, F(2, 9), F(4, 9), F(2, 3), F(5, 6), 1],
    "F1": [0, F(4, 15), F(4, 9), F(4, 7), F(5, 8), F(2, 3)],
    "Hits": [0, F(2, 3), 1, 1, 1, 1],
}


@pytest.mark.parametrize("metric", sorted(MN_TABLE))
def test_mcsherry_najork_cutoff_table(metric):
    names = [f"{metric}@{k}" for k in range(1, 7)]
    got = rw.evaluate([MN_BINARY], [MN_SCORES], names).mean()
    assert list(got.values()) == pytest.approx([float(v) for v in MN_TABLE[metric]], abs=1e-15)


def test_mcsherry_najork_ap_rr_and_graded_dcg():
    got = rw.evaluate([MN_BINARY], [MN_SCORES], ["AP", "RR"]).mean()
    assert got["AP"] == pytest.approx(31 / 60, abs=1e-15)
    assert got["RR"] == pytest.approx(4 / 9, abs=1e-15)
    graded = rw.evaluate([MN_GRADED], [MN_SCORES], ["DCG", "DCG@3", "nDCG", "nDCG@3"]).mean()
    assert graded == pytest.approx({"DCG": 2.6761963, "DCG@3": 1.1309298, "nDCG": 0.5620066,
                                    "nDCG@3": 0.2374975}, abs=1e-7)


def test_libkge_example_single_positive():
    # Scores 10, 10, 10, 11, 9 with the true answer the first 10: o = 2, p = 4.
    scores, labels = [[10, 10, 10, 11, 9]], [[1, 0, 0, 0, 0]]
    assert rw.reciprocal_rank(labels, scores) == pytest.approx(13 / 36, abs=1e-15)
    assert rw.hit_rate(labels, scores, k=3) == pytest.approx(2 / 3, abs=1e-15)
    assert rw.reciprocal_rank(labels, scores, ties="optimistic") == 0.5
    assert rw.reciprocal_rank(labels, scores, ties="pessimistic") == 0.25
    assert rw.hit_rate(labels, scores, k=3, ties="pessimistic") == 0.0


def test_two_way_tie():
    assert rw.reciprocal_rank([[1, 0]], [[5, 5]]) == 0.75
    assert rw.hit_rate([[1, 0]], [[5, 5]], k=1) == 0.5


def test_tgb_negatives_tied_with_positive():
    # pos 1.0, neg [1.0, 1.0, 0.0]: MN E[RR] = (1 + 1/2 + 1/3) / 3.
    assert rw.reciprocal_rank([[1, 0, 0, 0]], [[1.0, 1.0, 1.0, 0.0]]) == pytest.approx(11 / 18, abs=1e-15)


def test_expected_single_relevant_closed_forms(rng):
    # E[RR] = (H(p) - H(o-1)) / (p - o + 1); E[Hits@k] = clip((k - o + 1)/(p - o + 1), 0, 1).
    for _ in range(50):
        above, tied = rng.integers(0, 30), rng.integers(0, 30)
        scores = np.r_[np.full(above, 2.0), 1.0, np.full(tied, 1.0), np.zeros(rng.integers(0, 5))]
        labels = np.zeros(scores.size)
        labels[above] = 1
        o, p = above + 1, above + tied + 1
        harmonic = np.cumsum(1.0 / np.arange(1, p + 1))
        want_rr = (harmonic[p - 1] - (harmonic[o - 2] if o > 1 else 0.0)) / (p - o + 1)
        assert rw.reciprocal_rank(labels, scores) == pytest.approx(want_rr, rel=1e-13)
        for k in (1, 5, 20, 60):
            assert rw.hit_rate(labels, scores, k=k) == pytest.approx(
                np.clip((k - o + 1) / (p - o + 1), 0, 1), rel=1e-13)


sklearn = pytest.importorskip("sklearn.metrics")


@pytest.mark.parametrize("k", [None, 1, 5, 10])
@pytest.mark.parametrize("rounding", [0, 1, 3])
def test_ndcg_and_dcg_equal_sklearn_tie_averaged(rng, k, rounding):
    y_true = rng.integers(0, 4, (60, 25))
    y_true[0] = 0  # sklearn scores an all-zero row as 0, like empty="zero"
    y_score = np.round(rng.normal(size=(60, 25)), rounding)
    per_query = rw.ndcg(y_true, y_score, k=k, per_query=True)
    want = [sklearn.ndcg_score(y_true[i:i + 1], y_score[i:i + 1], k=k) for i in range(60)]
    np.testing.assert_allclose(per_query, want, rtol=1e-12, atol=1e-15)
    assert rw.ndcg(y_true, y_score, k=k) == pytest.approx(sklearn.ndcg_score(y_true, y_score, k=k), rel=1e-12)
    assert rw.dcg(y_true, y_score, k=k) == pytest.approx(sklearn.dcg_score(y_true, y_score, k=k), rel=1e-12)


def test_ndcg_ignore_ties_equals_stable_order_without_ties(rng):
    y_true = rng.integers(0, 4, (40, 30))
    y_score = rng.normal(size=(40, 30))
    for ties in ("stable", "optimistic", "pessimistic", "expected"):
        assert rw.ndcg(y_true, y_score, k=10, ties=ties) == pytest.approx(
            sklearn.ndcg_score(y_true, y_score, k=10, ignore_ties=True), rel=1e-12)
