"""Properties that must hold for any input (hypothesis)."""
import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import rankwise as rw

METRICS = ["RR", "RR@3", "AP", "AP@5", "P@3", "R@5", "Rprec", "F1@4", "Hits@2", "DCG", "nDCG@5",
           "nDCG(gain=exponential)", "ERR", "ERR@4", "RBP", "RBP(p=0.5, graded=true)"]

lists = st.integers(1, 30).flatmap(lambda n: st.tuples(
    arrays(np.float64, n, elements=st.sampled_from([0.0, 0.25, 0.5, 1.0, -1.0, np.inf])),
    arrays(np.int64, n, elements=st.integers(0, 3)),
    st.randoms(use_true_random=False),
))


def values(labels, scores, **kwargs):
    res = rw.evaluate([labels], [scores], METRICS, **kwargs)
    return np.array([res[m][0] for m in METRICS])


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
    assert np.all(low <= mid + 1e-12) and np.all(mid <= high + 1e-12)


@given(lists)
def test_stable_equals_expected_when_scores_are_distinct(case):
    scores, labels, _ = case
    distinct = scores + np.arange(scores.size) * 1e-3 * np.isfinite(scores)
    if np.unique(distinct).size < distinct.size:
        return
    np.testing.assert_allclose(values(labels, distinct, ties="stable"), values(labels, distinct), rtol=1e-12)


@given(lists)
def test_values_are_bounded(case):
    scores, labels, _ = case
    for ties in ("expected", "stable"):
        got = values(labels, scores, ties=ties)
        dcg = [i for i, m in enumerate(METRICS) if m == "DCG"]
        bounded = np.delete(got, dcg)
        assert np.all(bounded >= 0) and np.all(bounded <= 1 + 1e-12)
