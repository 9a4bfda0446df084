"""Properties that must hold for any input (hypothesis).

Scores include infinities, signed zeros, subnormals and the ends of float64; labels small
grades, integers at the int32 edges, subnormals and 1e300; cutoffs reach 2**63 - 1;
queries may be empty. Examples that do not fit a property are skipped with ``assume``.
"""
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import rankwise as rw

TINY = 5e-324
METRICS = ["RR", "RR@3", "AP", "AP@5", "P@3", "R@5", "Rprec", "F1@4", "Hits@2", "DCG", "nDCG@5",
           "nDCG(gain=exponential)", "ERR", "ERR@4", "RBP", "RBP(p=0.5, graded=true)"]
# Labels beyond a few units make 2**label - 1 overflow: the exponential gain refuses them.
LINEAR = [m for m in METRICS if "exponential" not in m]
SCORES = [0.0, -0.0, 0.25, 0.5, 1.0, -1.0, np.inf, -np.inf, TINY, -TINY, 1e-310, 1.7e308, -1.7e308]
INT32_EDGES = [2**31 - 1, 2**31, 2**32]
CUTOFFS = [1, 2, 3, 5, *INT32_EDGES, 2**53 + 1, 2**63 - 1]

small_labels = st.integers(0, 3)
edge_labels = st.sampled_from([0, 1, 2, *INT32_EDGES])
real_labels = st.sampled_from([0.0, TINY, 1e-310, 0.5, 1.0, 2.5, 1e300])


def _lists(min_size):
    return st.tuples(st.integers(min_size, 30), st.sampled_from(["small", "edges", "reals"])).flatmap(
        lambda nk: st.tuples(
            arrays(np.float64, nk[0], elements=st.sampled_from(SCORES)),
            arrays(np.int64, nk[0], elements=small_labels) if nk[1] == "small" else
            arrays(np.int64, nk[0], elements=edge_labels) if nk[1] == "edges" else
            arrays(np.float64, nk[0], elements=real_labels),
            st.randoms(use_true_random=False),
        ))


lists = _lists(0)
cutoffs = st.one_of(st.sampled_from(CUTOFFS), st.integers(1, 2**63 - 1))


def metrics_for(labels):
    return METRICS if labels.size == 0 or labels.max() <= 3 else LINEAR


def values(labels, scores, names=None, **kwargs):
    names = metrics_for(labels) if names is None else names
    res = rw.evaluate([labels], [scores], names, **kwargs)
    return np.array([res[m][0] for m in names])


@given(lists)
def test_expected_does_not_depend_on_input_order(case):
    scores, labels, random = case
    perm = list(range(scores.size))
    random.shuffle(perm)
    np.testing.assert_allclose(values(labels, scores), values(labels[perm], scores[perm]), rtol=1e-12, atol=1e-15)


@given(lists)
def test_expected_lies_between_pessimistic_and_optimistic(case):
    scores, labels, _ = case
    low, mid, high = (values(labels, scores, ties=t) for t in ("pessimistic", "expected", "optimistic"))
    scale = np.maximum(np.abs(mid), 1.0)  # DCG of labels of 1e300
    assert np.all(low <= mid + 1e-12 * scale) and np.all(mid <= high + 1e-12 * scale)


@given(lists)
def test_stable_equals_expected_when_scores_are_distinct(case):
    scores, labels, _ = case
    distinct = scores + np.arange(scores.size) * 1e-3 * np.isfinite(scores)
    assume(np.unique(distinct).size == distinct.size)
    np.testing.assert_allclose(values(labels, distinct, ties="stable"), values(labels, distinct), rtol=1e-12)


@given(lists)
def test_values_are_bounded(case):
    scores, labels, _ = case
    names = metrics_for(labels)
    for ties in ("expected", "stable"):
        got = values(labels, scores, names, ties=ties)
        assert np.all(np.isfinite(got))
        bounded = np.array([v for v, m in zip(got, names, strict=True) if m != "DCG"])
        assert np.all(bounded >= 0) and np.all(bounded <= 1 + 1e-12)


@settings(max_examples=75)
@given(_lists(1), cutoffs, st.sampled_from(["expected", "optimistic", "stable"]))
def test_cutoffs_at_or_beyond_the_list(case, k, ties):
    # A cutoff at or beyond the list cuts nothing: up to 2**63 - 1, the values of the whole
    # list (P divides by k). The cutoff never sizes anything: a heap of k items for these
    # k could not be allocated.
    scores, labels, _ = case
    n = scores.size
    assume(k >= n)
    cut = [f"{m}@{k}" for m in ("RR", "AP", "R", "nDCG", "DCG", "ERR", "RBP")]
    whole = ["RR", "AP", f"R@{n}", "nDCG", "DCG", "ERR", "RBP"]
    np.testing.assert_allclose(values(labels, scores, cut, ties=ties), values(labels, scores, whole, ties=ties),
                               rtol=1e-12, atol=0)
    p_k, p_n, hits_k, hits_n = values(labels, scores, [f"P@{k}", f"P@{n}", f"Hits@{k}", f"Hits@{n}"], ties=ties)
    assert p_k == pytest.approx(p_n * n / k, rel=1e-12, abs=0)
    assert hits_k == hits_n


@settings(max_examples=50)
@given(st.lists(lists, min_size=1, max_size=5), st.sampled_from(["expected", "pessimistic", "stable"]))
def test_queries_are_independent_of_their_batch(queries, ties):
    # Several queries, empty ones among them, through indptr: each is the value of its
    # list evaluated alone.
    labels_kind = {q[1].dtype.kind for q in queries}
    assume(len(labels_kind) == 1)
    names = LINEAR if any(q[1].size and q[1].max() > 3 for q in queries) else METRICS
    scores = np.concatenate([q[0] for q in queries])
    labels = np.concatenate([q[1] for q in queries])
    indptr = np.concatenate(([0], np.cumsum([q[0].size for q in queries])))
    res = rw.evaluate(labels, scores, names, indptr=indptr, ties=ties, max_grade=max(1.0, float(labels.max(initial=0))))
    for i, (s, lab, _) in enumerate(queries):
        alone = values(lab, s, names, ties=ties, max_grade=max(1.0, float(labels.max(initial=0))))
        np.testing.assert_array_equal([res[m][i] for m in names], alone)
