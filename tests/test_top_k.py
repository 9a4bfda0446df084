"""The top-k fast path (every metric has a cutoff) against the full path and the brute force.

Asking for a metric without a cutoff as well ("AP") makes the kernel track every item,
so the same @k values computed both ways must agree exactly.
"""
import numpy as np
import pytest
import reference

import rankwise as rw

CUT_METRICS = ["nDCG@3", "DCG@5", "P@4", "R@3", "RR@2", "AP@5", "Hits@1", "F1@3", "ERR@4",
               "RBP(p=0.7)@6", "nDCG(gain=exponential)@2"]
POLICIES = ["expected", "optimistic", "pessimistic", "stable", "trec"]


def heavy_ties(rng, n_queries, n_items):
    scores = rng.integers(0, 6, (n_queries, n_items)).astype(float) / 4
    labels = rng.choice([0, 0, 0, 1, 2, 3], (n_queries, n_items))
    return labels, scores


@pytest.mark.parametrize("ties", POLICIES)
def test_top_k_path_equals_full_path(rng, ties):
    labels, scores = heavy_ties(rng, 300, 40)
    doc_ids = np.array([f"d{j:02d}" for j in range(40)]) if ties == "trec" else None
    fast = rw.evaluate(labels, scores, CUT_METRICS, ties=ties, doc_ids=doc_ids, max_grade=3)
    full = rw.evaluate(labels, scores, CUT_METRICS + ["AP"], ties=ties, doc_ids=doc_ids, max_grade=3)
    for name in CUT_METRICS:
        np.testing.assert_array_equal(fast[name], full[name], err_msg=name)


@pytest.mark.parametrize("ties", ["expected", "optimistic", "pessimistic", "stable"])
def test_top_k_path_against_brute_force(rng, ties):
    labels, scores = heavy_ties(rng, 40, 9)
    got = rw.evaluate(labels, scores, ["nDCG@2", "P@3", "AP@2", "RR@1"], ties=ties)
    for q in range(labels.shape[0]):
        for name, metric, k in [("nDCG@2", "nDCG", 2), ("P@3", "P", 3), ("AP@2", "AP", 2), ("RR@1", "RR", 1)]:
            want = reference.metric(scores[q].tolist(), labels[q].tolist(), metric, k, ties=ties)
            assert got[name][q] == pytest.approx(float(want), abs=1e-12), (name, q)


def test_top_k_path_with_nan_last_and_float32(rng):
    labels, scores = heavy_ties(rng, 200, 30)
    scores = scores.astype(np.float32)
    scores[rng.random(scores.shape) < 0.2] = np.nan
    for ties in POLICIES[:4]:
        fast = rw.evaluate(labels, scores, ["nDCG@5", "P@10"], ties=ties, nan="last")
        full = rw.evaluate(labels, scores, ["nDCG@5", "P@10", "AP"], ties=ties, nan="last")
        np.testing.assert_array_equal(fast["nDCG@5"], full["nDCG@5"])
        np.testing.assert_array_equal(fast["P@10"], full["P@10"])


def test_top_k_ideal_uses_every_label():
    # The best labels score low: they are not tracked, but the ideal DCG still counts them.
    labels = [[0, 0, 0, 3, 3]]
    scores = [[0.9, 0.8, 0.7, 0.2, 0.1]]
    assert rw.ndcg(labels, scores, k=2) == 0.0
    assert rw.recall(labels, scores, k=2) == 0.0
    assert rw.evaluate(labels, scores, ["nDCG@4", "AP"]).mean()["nDCG@4"] == pytest.approx(
        (3 / np.log2(5)) / (3 + 3 / np.log2(3)))


@pytest.mark.parametrize("order", ["ascending", "descending"])
def test_top_k_path_with_sorted_scores(rng, order):
    # Ascending scores push every item through the provisional heap; descending ones none.
    labels, scores = heavy_ties(rng, 100, 50)
    scores = np.sort(scores, axis=1)
    if order == "descending":
        scores = scores[:, ::-1]
    for ties in POLICIES[:4]:
        fast = rw.evaluate(labels, scores, ["nDCG@4", "P@3", "RR@5"], ties=ties)
        full = rw.evaluate(labels, scores, ["nDCG@4", "P@3", "RR@5", "AP"], ties=ties)
        for name in ("nDCG@4", "P@3", "RR@5"):
            np.testing.assert_array_equal(fast[name], full[name], err_msg=f"{ties} {name}")
