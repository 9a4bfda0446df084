"""Every metric x tie policy against the brute-force reference (src/rankwise/testing/lists.py).

For ties="expected" the reference enumerates every ordering of tied items and
averages the metric with exact fractions, so the closed-form kernels are checked
against the definition itself.
"""
from fractions import Fraction

import numpy as np
import pytest

import rankwise as rw
from rankwise.testing import lists as ref

POLICIES = ["expected", "optimistic", "pessimistic", "stable", "trec"]
CUTOFFS = [1, 2, 3, 5, 10]

# (rankwise name, reference metric, k, extra reference params)
CASES = [("RR", "RR", None, {}), ("AP", "AP", None, {}), ("Rprec", "Rprec", None, {}),
         ("DCG", "DCG", None, {}), ("nDCG", "nDCG", None, {}), ("ERR", "ERR", None, {}),
         ("RBP", "RBP", None, {}), ("RBP(p=0.5)", "RBP", None, {"p": Fraction(1, 2)}),
         ("RBP(p=0.9, graded=true)@3", "RBP", 3, {"p": Fraction(9, 10), "graded": True}),
         ("nDCG(gain=exponential)", "nDCG", None, {"gain": "exponential"}),
         ("DCG(gain=exponential)@3", "DCG", 3, {"gain": "exponential"})]
for _k in CUTOFFS:
    CASES += [(f"RR@{_k}", "RR", _k, {}), (f"AP@{_k}", "AP", _k, {}), (f"P@{_k}", "P", _k, {}),
              (f"R@{_k}", "R", _k, {}), (f"F1@{_k}", "F1", _k, {}), (f"Hits@{_k}", "Hits", _k, {}),
              (f"DCG@{_k}", "DCG", _k, {}), (f"nDCG@{_k}", "nDCG", _k, {}), (f"ERR@{_k}", "ERR", _k, {}),
              (f"RBP@{_k}", "RBP", _k, {})]
NAMES = [c[0] for c in CASES]


def random_queries(rng, n_queries, *, max_len=7, float_labels=False, nan=False):
    """Short lists with few distinct scores (many ties), graded labels and edge cases."""
    pool = np.array([-np.inf, -1.0, -0.0, 0.0, 0.5, 1.0, 2.0, np.inf] + ([np.nan] if nan else []))
    lengths = rng.integers(0, max_len + 1, n_queries)
    lengths[:4] = [0, 1, max_len, max_len]  # empty, single item, long lists
    n = int(lengths.sum())
    distinct = rng.integers(1, 4, n_queries).repeat(lengths)
    scores = pool[rng.integers(0, pool.size, n) % (distinct + 2)]
    if float_labels:
        labels = rng.choice([0.0, 0.0, 0.5, 1.0, 2.5], n)
    else:
        labels = rng.choice([0, 0, 0, 1, 2, 3], n).astype(np.int64)
    labels[: lengths[:3].sum()] = 0 if not float_labels else 0.0
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    doc_ids = np.array([f"d{rng.integers(0, 10**6)}-{i}" for i in range(n)])
    return offsets, scores, labels, doc_ids


def reference_value(scores, labels, doc_ids, name_case, ties, level, max_grade, nan_last):
    _, metric, k, params = name_case
    params = {"p": Fraction(4, 5), **params}
    return ref.metric([float(s) for s in scores], [Fraction(x) for x in labels.tolist()], metric, k,
                      ties=ties, doc_ids=list(doc_ids), nan_last=nan_last, level=level,
                      max_grade=Fraction(max_grade), **params)


def check_against_reference(offsets, scores, labels, doc_ids, ties, *, level=1, nan="raise"):
    res = rw.evaluate(labels, scores, NAMES, indptr=offsets, doc_ids=doc_ids, ties=ties,
                      relevance_level=level, nan=nan)
    max_grade = max(labels.max(), 0) or 1
    for q in range(offsets.size - 1):
        a, b = offsets[q], offsets[q + 1]
        for case in CASES:
            want = reference_value(scores[a:b], labels[a:b], doc_ids[a:b], case, ties, Fraction(level),
                                   max_grade, nan == "last")
            got = res[case[0]][q]
            assert got == pytest.approx(float(want), rel=1e-12, abs=1e-15), (
                f"{case[0]} ties={ties} query {q}: scores={scores[a:b].tolist()} "
                f"labels={labels[a:b].tolist()} got {got!r} want {want}")


@pytest.mark.parametrize("ties", POLICIES)
def test_integer_labels(rng, ties):
    check_against_reference(*random_queries(rng, 120), ties)


@pytest.mark.parametrize("ties", POLICIES)
def test_fractional_labels_and_level(rng, ties):
    check_against_reference(*random_queries(rng, 80, float_labels=True), ties, level=0.5)


@pytest.mark.parametrize("ties", POLICIES)
def test_nan_last(rng, ties):
    check_against_reference(*random_queries(rng, 80, nan=True), ties, nan="last")


@pytest.mark.parametrize("ties", POLICIES)
def test_all_tied_lists(ties):
    labels = np.array([0, 2, 0, 1, 3, 0, 1], dtype=np.int64)
    scores = np.full(labels.size, 0.25)
    doc_ids = np.array(list("gfedcba"))
    check_against_reference(np.array([0, labels.size]), scores, labels, doc_ids, ties)


@pytest.mark.parametrize("ties", ["expected", "optimistic", "pessimistic", "stable"])
def test_longer_lists_against_reference(rng, ties):
    # Longer lists with a few large tie groups: enumeration stays small because most
    # items share label 0.
    n = 40
    scores = rng.choice([0.0, 1.0, 2.0, 3.0], n) + rng.choice([0, 0.5], n) * (rng.random(n) < 0.7)
    labels = np.zeros(n, dtype=np.int64)
    labels[rng.choice(n, 3, replace=False)] = [1, 2, 3]
    check_against_reference(np.array([0, n]), scores, labels, np.array([f"x{i}" for i in range(n)]), ties)


@pytest.mark.parametrize("ties", POLICIES)
@pytest.mark.parametrize("score_dtype, label_dtype", [(np.float32, np.int8), (np.float32, np.bool_),
                                                      (np.float64, np.uint16), (np.float32, np.float32)])
def test_dense_layout_and_dtypes(rng, ties, score_dtype, label_dtype):
    # Every score in the pool is exact in float32, so the reference sees the same ties.
    n_queries, n_items = 40, 6
    scores = rng.choice([-np.inf, -1.0, 0.0, 0.5, 2.0, np.inf], (n_queries, n_items)).astype(score_dtype)
    labels = rng.choice([0, 0, 1, 2, 3] if label_dtype is not np.bool_ else [0, 1], (n_queries, n_items))
    labels = labels.astype(label_dtype)
    doc_ids = np.array([f"doc{j}" for j in rng.permutation(n_items)])
    res = rw.evaluate(labels, scores, NAMES, doc_ids=doc_ids, ties=ties)
    max_grade = max(int(labels.max()), 1)
    for q in range(n_queries):
        for case in CASES:
            want = reference_value(scores[q].astype(float), labels[q].astype(np.int64), doc_ids, case, ties,
                                   Fraction(1), max_grade, False)
            assert res[case[0]][q] == pytest.approx(float(want), rel=1e-12, abs=1e-15), (case[0], q)
