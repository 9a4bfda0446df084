"""The list references themselves: their guards, their inexact paths, and the NumPy baseline.

The brute-force tests trust rankwise.testing.lists as the definition of every metric; these
check that it refuses what it cannot define, and that numpy_rr_ap (the benchmarks' baseline)
agrees with that definition.
"""
import math
from fractions import Fraction

import numpy as np
import pytest

from rankwise.testing import lists as ref


@pytest.mark.parametrize("call, match", [
    (lambda: ref.metric_of_ranking([1], "MAPP"), "unknown metric"),
    (lambda: ref.metric_of_ranking([1], "P"), "requires a cutoff"),
    (lambda: ref.metric_of_ranking([1], "RR", k=True), "positive int or None"),
    (lambda: ref.metric_of_ranking([1], "RR", k=0), "k must be >= 1"),
    (lambda: ref.metric_of_ranking([1], "RR", level=0), "level must be > 0"),
    (lambda: ref.metric_of_ranking([1, -1], "RR"), "non-negative"),
    (lambda: ref.metric_of_ranking([1, float("nan")], "RR"), "non-negative"),
    (lambda: ref.metric_of_ranking([1], "DCG", gain="log"), "gain must be"),
    (lambda: ref.metric_of_ranking([1], "RBP", p=Fraction(3, 2)), "p must be in"),
    (lambda: ref.metric_of_ranking([1], "ERR", max_grade=0), "max_grade must be > 0"),
    (lambda: ref.tie_groups([1.0, float("nan")]), "NaN"),
    (lambda: ref.rankings([1.0], [1, 0], "stable"), "same length"),
    (lambda: ref.rankings([1.0], [1], "random"), "unknown tie policy"),
    (lambda: ref.rankings([1.0], [1], "trec", doc_ids=["a", "b"]), "doc_ids must have the same length"),
    (lambda: ref.rankings([1.0], [1], "trec"), "requires doc_ids"),
    (lambda: ref.rankings([1.0] * 10, [0, 1] * 5, "expected", max_orderings=251), "252 orderings"),
])
def test_reference_refuses_what_it_cannot_define(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_enumeration_limit_is_inclusive():
    # C(10, 5) = 252 distinct label orders of one tie group of five 0s and five 1s.
    assert len(ref.rankings([1.0] * 10, [0, 1] * 5, "expected", max_orderings=252)) == 252


def test_inexact_err_and_graded_rbp_follow_the_formulas():
    # A max_grade that is not an integer leaves exact arithmetic: R_1 = (2**1 - 1) / 2**1.5.
    assert ref.metric_of_ranking([1, 0], "ERR", max_grade=1.5) == pytest.approx(2 ** -1.5)
    # Graded RBP with float labels: (1 - p) (0.5 + 1.0 p) / max_grade.
    value = ref.metric_of_ranking([0.5, 1.0], "RBP", graded=True, max_grade=1.0, p=0.8)
    assert isinstance(value, float) and value == pytest.approx(0.2 * (0.5 + 0.8))


def test_numpy_baseline_matches_the_reference():
    rng = np.random.default_rng(7)
    lengths = rng.integers(0, 12, size=40)
    indptr = np.concatenate(([0], np.cumsum(lengths)))
    scores = rng.integers(0, 4, size=indptr[-1]).astype(np.float64)  # many ties
    labels = rng.integers(0, 3, size=indptr[-1])
    rr, ap = ref.numpy_rr_ap(indptr, scores, labels, level=2)
    for q in range(lengths.size):
        s, l = scores[indptr[q]:indptr[q + 1]], labels[indptr[q]:indptr[q + 1]].tolist()
        for got, name in ((rr[q], "RR"), (ap[q], "AP")):
            want = ref.metric(s.tolist(), l, name, ties="stable", level=2)
            assert math.isclose(got, want, rel_tol=1e-12, abs_tol=1e-15), (q, name)
