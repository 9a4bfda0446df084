"""The top-k fast path (every metric has a cutoff) against the full path and the brute force.

Asking for a metric without a cutoff as well ("AP") makes the kernel track every item,
so the same @k values computed both ways must agree exactly.
"""
import numpy as np
import pytest

import rankwise as rw
from rankwise.testing import lists as reference

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


# Lists at least 16k long (k the largest cutoff) take the block path: chunk maxima give a
# lower bound on the k-th best score; shorter ones, and lists holding NaN, the heap path.
LONG_METRICS = CUT_METRICS + ["nDCG@10"]


def long_scores(rng, kind, n_queries, n_items):
    if kind == "distinct":
        return rng.permutation(n_queries * n_items).reshape(n_queries, n_items) / 7.0
    if kind == "ties":
        return rng.integers(0, 60, (n_queries, n_items)) / 4
    if kind == "binary":
        return rng.integers(0, 2, (n_queries, n_items)).astype(float)
    if kind == "constant":
        return np.full((n_queries, n_items), 0.25)
    if kind == "ascending":
        return np.sort(rng.integers(0, 300, (n_queries, n_items)), axis=1) / 8
    if kind == "descending":
        return np.sort(rng.integers(0, 300, (n_queries, n_items)), axis=1)[:, ::-1] / 8
    if kind == "infinite":
        # +-inf are numbers: they make the kernel's NaN screen (a running sum) non-finite.
        scores = rng.integers(0, 60, (n_queries, n_items)) / 4
        scores[rng.random(scores.shape) < 0.3] = -np.inf
        scores[rng.random(scores.shape) < 0.01] = np.inf
        return scores
    if kind == "huge":
        # Sums overflow to inf; negative zeros tie with zeros.
        scores = rng.choice([-1.7e308, -0.0, 0.0, 1.5e308, 1.7e308], (n_queries, n_items))
        return scores / rng.integers(1, 3, (n_queries, n_items))
    raise ValueError(kind)


def long_labels(rng, kind, shape):
    if kind == "graded":
        return rng.choice(np.array([0, 0, 0, 0, 1, 2, 3], dtype=np.int8), shape)
    if kind == "sparse":
        # Fewer than k items hold the top label: the ideal ranking needs the label heap.
        labels = np.zeros(shape, dtype=np.int8)
        hits = rng.random(shape) < 0.02
        labels[hits] = rng.integers(1, 4, hits.sum())
        return labels
    if kind == "none":
        return np.zeros(shape, dtype=np.int8)
    raise ValueError(kind)


def assert_fast_equals_full(labels, scores, metrics, **options):
    fast = rw.evaluate(labels, scores, metrics, max_grade=3, **options)
    full = rw.evaluate(labels, scores, metrics + ["AP"], max_grade=3, **options)
    for name in metrics:
        np.testing.assert_array_equal(fast[name], full[name], err_msg=name)


@pytest.mark.parametrize("kind", ["distinct", "ties", "binary", "constant", "ascending", "descending",
                                  "infinite", "huge"])
@pytest.mark.parametrize("ties", POLICIES)
def test_block_path_equals_full_path(rng, kind, ties):
    n_items = 16 * 10 + 37  # not a multiple of the chunk size either
    scores = long_scores(rng, kind, 30, n_items)
    for label_kind in ("graded", "sparse", "none"):
        labels = long_labels(rng, label_kind, scores.shape)
        doc_ids = rng.permutation([f"d{j:03d}" for j in range(n_items)]) if ties == "trec" else None
        assert_fast_equals_full(labels, scores, LONG_METRICS, ties=ties, doc_ids=doc_ids)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.bool_, np.int16, np.int32, np.int64, np.float32,
                                   np.float64])
@pytest.mark.parametrize("level", [1, 1.5, 2, 300])
def test_block_path_label_dtypes_and_levels(rng, dtype, level):
    scores = long_scores(rng, "ties", 40, 400)
    labels = rng.choice([0, 0, 0, 1, 2, 3], scores.shape).astype(dtype)
    if dtype == np.float32 or dtype == np.float64:
        labels = labels * dtype(0.75)
    for ties in ("expected", "pessimistic"):
        assert_fast_equals_full(labels, scores, LONG_METRICS, ties=ties, relevance_level=level)


@pytest.mark.parametrize("metrics, n_items", [
    (["RR@1"], 16),                  # k = 1: the shortest list of the block path
    (["P@40", "nDCG@7"], 16 * 40),   # k above the sorted-array selection: a heap
    (["nDCG@10"], 1000),             # the dense benchmark's shape
    (["nDCG@10"], 16 * 10 - 1),      # one item short of the block path
])
def test_block_path_cutoffs(rng, metrics, n_items):
    for kind in ("distinct", "ties", "constant"):
        scores = long_scores(rng, kind, 25, n_items)
        labels = long_labels(rng, "graded", scores.shape)
        for ties in ("expected", "optimistic", "stable"):
            assert_fast_equals_full(labels, scores, metrics, ties=ties)


def test_block_path_float32_shared_and_grouped(rng):
    scores = long_scores(rng, "ties", 20, 300)
    labels = long_labels(rng, "graded", scores.shape)
    assert_fast_equals_full(labels, scores.astype(np.float32), LONG_METRICS)
    # One ranking judged against many topics, and CSR groups of uneven lengths.
    assert_fast_equals_full(labels, scores[0], LONG_METRICS, ties="stable")
    indptr = np.concatenate([[0], np.sort(rng.choice(np.arange(1, scores.size), 12, replace=False)),
                             [scores.size]])
    assert_fast_equals_full(labels.ravel(), scores.ravel(), LONG_METRICS, indptr=indptr, ties="optimistic")


@pytest.mark.parametrize("ties", ["optimistic", "pessimistic", "stable"])
def test_block_path_against_brute_force(rng, ties):
    scores = long_scores(rng, "ties", 6, 200)
    labels = long_labels(rng, "graded", scores.shape)
    got = rw.evaluate(labels, scores, ["nDCG@10", "P@5", "RR@3"], ties=ties)
    for q in range(scores.shape[0]):
        for name, metric, k in [("nDCG@10", "nDCG", 10), ("P@5", "P", 5), ("RR@3", "RR", 3)]:
            want = reference.metric(scores[q].tolist(), labels[q].tolist(), metric, k, ties=ties)
            assert got[name][q] == pytest.approx(float(want), abs=1e-12), (name, q)


def test_block_path_expected_against_brute_force(rng):
    # Distinct scores but for one tie at the cutoff: few enough orderings to enumerate.
    scores = long_scores(rng, "distinct", 6, 200)
    labels = long_labels(rng, "graded", scores.shape)
    for q in range(scores.shape[0]):
        order = np.argsort(-scores[q])
        scores[q, order[[8, 9, 10]]] = scores[q, order[9]]
    got = rw.evaluate(labels, scores, ["nDCG@10", "nDCG(gain=exponential)@10"])
    for q in range(scores.shape[0]):
        for name, gain in (("nDCG@10", "linear"), ("nDCG(gain=exponential)@10", "exponential")):
            want = reference.metric(scores[q].tolist(), labels[q].tolist(), "nDCG", 10, gain=gain)
            assert got[name][q] == pytest.approx(want, abs=1e-12), (name, q)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_block_path_with_nan_last(rng, dtype):
    # A list holding NaN leaves the block path for the heap path, which ranks NaN last.
    scores = long_scores(rng, "ties", 40, 250).astype(dtype)
    labels = long_labels(rng, "graded", scores.shape)
    scores[rng.random(scores.shape) < 0.05] = np.nan
    scores[3] = np.nan
    scores[7, :245] = np.nan  # fewer than k numbers
    scores[11, -1] = np.nan
    for ties in POLICIES[:4]:
        assert_fast_equals_full(labels, scores, LONG_METRICS, ties=ties, nan="last")
    got = rw.evaluate(labels, scores, ["nDCG@10"], ties="pessimistic", nan="last")
    for q in (3, 7, 11):
        want = reference.metric(scores[q].astype(float).tolist(), labels[q].tolist(), "nDCG", 10,
                                ties="pessimistic", nan_last=True)
        assert got["nDCG@10"][q] == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("label", [0, 1, 3, 2.5, 62, 63, 64, 100, 1023])
def test_exponential_gain_table_and_beyond(label):
    # Integer labels below 64 take 2**label - 1 from a table filled by the same exp2.
    got = rw.dcg([[label, 0.0]], [[1.0, 0.5]], k=1, gain="exponential")
    assert got == pytest.approx(2.0**label - 1, rel=1e-15)
    if float(label).is_integer():
        assert got == 2.0**label - 1
