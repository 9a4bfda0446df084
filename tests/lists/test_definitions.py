"""The metric-definition options (denom of AP and R, ideal of nDCG) against the brute-force
reference, under every tie policy they support."""
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankwise as rw
from rankwise.testing import lists as ref

POLICIES = ["expected", "optimistic", "pessimistic", "stable", "trec"]
DETERMINISTIC = POLICIES[1:]
# (rankwise name, reference metric, k, reference params)
CASES = [("AP(denom=min)", "AP", None, {"denom": "min"}), ("AP(denom=hits)", "AP", None, {"denom": "hits"}),
         ("nDCG(ideal=all)", "nDCG", None, {"ideal": "all"})]
for _k in (1, 2, 3, 5):
    CASES += [(f"AP(denom=min)@{_k}", "AP", _k, {"denom": "min"}),
              (f"AP(denom=hits)@{_k}", "AP", _k, {"denom": "hits"}),
              (f"R(denom=min)@{_k}", "R", _k, {"denom": "min"}),
              (f"nDCG(ideal=all)@{_k}", "nDCG", _k, {"ideal": "all"}),
              (f"nDCG(gain=exponential, ideal=all)@{_k}", "nDCG", _k, {"ideal": "all", "gain": "exponential"})]
# Divisions of two integers, which the kernel rounds once, as float(Fraction) does.
EXACT = ("R(",)


def queries(rng, n_queries, max_len=7):
    """Short lists with few distinct scores (many ties) and graded labels, empty ones included."""
    lengths = rng.integers(0, max_len + 1, n_queries)
    lengths[:3] = [0, 1, max_len]
    n = int(lengths.sum())
    scores = rng.choice([-1.0, 0.0, 0.5, 1.0, 2.0], n)[:n] * (rng.random(n) < 0.8)
    labels = rng.choice([0, 0, 0, 1, 2, 3], n).astype(np.int64)
    doc_ids = np.array([f"d{rng.integers(0, 10**6)}-{i}" for i in range(n)])
    return np.concatenate([[0], np.cumsum(lengths)]), scores, labels, doc_ids


def check(offsets, scores, labels, doc_ids, ties, cases, level=1):
    res = rw.evaluate(labels, scores, [c[0] for c in cases], indptr=offsets, doc_ids=doc_ids, ties=ties,
                      relevance_level=level)
    for q in range(offsets.size - 1):
        a, b = offsets[q], offsets[q + 1]
        for name, metric, k, params in cases:
            want = ref.metric(scores[a:b].tolist(), [Fraction(int(x)) for x in labels[a:b]], metric, k, ties=ties,
                              doc_ids=doc_ids[a:b].tolist(), level=Fraction(level), **params)
            got = res[name][q]
            if name.startswith(EXACT) and ties != "expected":
                assert got == float(want), (name, ties, q)
            else:
                assert got == pytest.approx(float(want), rel=1e-12, abs=1e-15), (name, ties, q)


@pytest.mark.parametrize("ties", POLICIES)
@pytest.mark.parametrize("level", [1, 2])
def test_every_option_under_every_policy(rng, ties, level):
    cases = [c for c in CASES if ties != "expected" or c[3].get("denom") != "hits"]
    check(*queries(rng, 150), ties, cases, level)


@pytest.mark.parametrize("ties", DETERMINISTIC)
def test_long_lists_take_the_top_k_path_and_the_ideal_reads_every_label(rng, ties):
    """Lists far longer than the cutoff: the kernel tracks the top k only, but nDCG(ideal=all)
    needs every label, and min(R, k) and the hits every relevant item."""
    n_queries, n = 6, 400
    offsets = np.arange(n_queries + 1) * n
    scores = rng.integers(0, 50, n_queries * n).astype(np.float64)
    labels = (rng.random(n_queries * n) < 0.05) * rng.integers(1, 4, n_queries * n)
    doc_ids = np.array([f"d{i}" for i in range(n_queries * n)])
    cases = [c for c in CASES if c[2] is not None]
    check(offsets, scores, labels, doc_ids, ties, cases)
    together = rw.evaluate(labels, scores, ["nDCG@3", "nDCG(ideal=all)@3", "AP(denom=min)@5"], indptr=offsets,
                           ties=ties, doc_ids=doc_ids)
    alone = rw.evaluate(labels, scores, ["nDCG@3"], indptr=offsets, ties=ties, doc_ids=doc_ids)
    np.testing.assert_array_equal(together["nDCG@3"], alone["nDCG@3"])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([0.0, 0.5, 1.0, 2.0]), st.sampled_from([0, 0, 1, 2])),
                min_size=1, max_size=8),
       st.integers(1, 9), st.sampled_from(DETERMINISTIC))
def test_hypothesis(items, k, ties):
    scores = [s for s, _ in items]
    labels = [label for _, label in items]
    doc_ids = [f"d{i}" for i in range(len(items))]
    names = [f"AP(denom=min)@{k}", f"AP(denom=hits)@{k}", f"R(denom=min)@{k}", f"nDCG(ideal=all)@{k}"]
    res = rw.evaluate([labels], [scores], names, ties=ties, doc_ids=doc_ids)
    for name, metric, params in zip(names, ["AP", "AP", "R", "nDCG"],
                                    [{"denom": "min"}, {"denom": "hits"}, {"denom": "min"}, {"ideal": "all"}],
                                    strict=True):
        want = ref.metric(scores, labels, metric, k, ties=ties, doc_ids=doc_ids, **params)
        assert res[name][0] == pytest.approx(float(want), rel=1e-12, abs=1e-15)


def test_relations_that_hold_bit_for_bit(rng):
    """min(R, k) = R when R <= k, the hits = R when every relevant item is within k, and the
    uncut ideal of a cutoff beyond the list is the cut one."""
    offsets, scores, labels, doc_ids = queries(rng, 300)
    names = ["AP@5", "AP(denom=min)@5", "AP(denom=hits)@5", "R@5", "R(denom=min)@5", "nDCG@7",
             "nDCG(ideal=all)@7", "AP", "AP(denom=hits)"]
    res = rw.evaluate(labels, scores, names, indptr=offsets, ties="stable")
    small = res.n_relevant <= 5
    np.testing.assert_array_equal(res["AP(denom=min)@5"][small], res["AP@5"][small])
    np.testing.assert_array_equal(res["R(denom=min)@5"][small], res["R@5"][small])
    np.testing.assert_array_equal(res["nDCG(ideal=all)@7"], res["nDCG@7"])  # no list is longer than 7
    np.testing.assert_array_equal(res["AP(denom=hits)"], res["AP"])  # without a cutoff the hits are R
    assert np.all(res["R(denom=min)@5"] >= res["R@5"]) and np.all(res["AP(denom=hits)@5"] >= res["AP@5"])


def test_worked_values():
    # Relevant at ranks 1, 4 and 6 (R = 3); k = 3: one hit, precision@1 = 1.
    y_true, y_score = [[1, 0, 0, 1, 0, 1]], [[0.9, 0.8, 0.7, 0.6, 0.5, 0.4]]
    res = rw.evaluate(y_true, y_score, ["AP@3", "AP(denom=min)@3", "AP(denom=hits)@3", "R@2", "R(denom=min)@2",
                                        "nDCG@2", "nDCG(ideal=all)@2"], ties="stable")
    assert res.mean() == pytest.approx({
        "AP@3": 1 / 3, "AP(denom=min)@3": 1 / 3, "AP(denom=hits)@3": 1.0, "R@2": 1 / 3, "R(denom=min)@2": 1 / 2,
        "nDCG@2": 1 / (1 + 1 / np.log2(3)), "nDCG(ideal=all)@2": 1 / (1 + 1 / np.log2(3) + 1 / 2)}, rel=1e-15)
    # No hit within k: AP(denom=hits) is 0, not NaN.
    assert rw.evaluate([[0, 1]], [[0.9, 0.1]], ["AP(denom=hits)@1"], ties="stable").mean() == {
        "AP(denom=hits)@1": 0.0}


def test_hits_cannot_honour_expected_ties_and_says_so():
    match = r"metric 'AP\(denom=hits\)@10' .* cannot honour ties='expected'"
    with pytest.raises(ValueError, match=match):
        rw.evaluate([[1, 0]], [[0.5, 0.5]], ["MAP", "AP(denom=hits)@10"])
    with pytest.raises(ValueError, match=match):
        rw.Accumulator(["AP(denom=hits)@10"])
    with pytest.raises(ValueError, match="cannot honour ties='expected'"):
        rw.average_precision([[1, 0]], [[0.5, 0.5]], 10, denom="hits")
    assert rw.average_precision([[1, 0]], [[0.5, 0.5]], 10, denom="hits", ties="pessimistic") == 0.5


def test_per_metric_functions_take_the_options():
    y_true, y_score = [[1, 0, 0, 1, 0, 1]], [[0.9, 0.8, 0.7, 0.6, 0.5, 0.4]]
    assert rw.average_precision(y_true, y_score, 3, denom="min") == pytest.approx(1 / 3)
    assert rw.average_precision(y_true, y_score, 3, denom="HITS", ties="stable") == 1.0
    assert rw.recall(y_true, y_score, 2, denom="min") == 0.5
    assert rw.recall(y_true, y_score, 2, denom="R") == rw.recall(y_true, y_score, 2)
    assert rw.ndcg(y_true, y_score, 2, ideal="all") == pytest.approx(1 / (1 + 1 / np.log2(3) + 1 / 2))
    with pytest.raises(ValueError, match="recall: denom='hits' applies to AP only"):
        rw.recall(y_true, y_score, 2, denom="hits")
    with pytest.raises(ValueError, match="ndcg: ideal must be 'cut' or 'all', got 'none'"):
        rw.ndcg(y_true, y_score, 2, ideal="none")
    with pytest.raises(TypeError, match="average_precision: denom must be"):
        rw.average_precision(y_true, y_score, 2, denom=3)


def test_read_only_inputs_unchanged_and_accumulator_agrees(rng):
    offsets, scores, labels, doc_ids = queries(rng, 40)
    for arr in (offsets, scores, labels):
        arr.flags.writeable = False
    before = scores.copy(), labels.copy()
    names = ["AP(denom=min)@3", "R(denom=min)@2", "nDCG(ideal=all)@3", "AP(denom=hits)@4"]
    res = rw.evaluate(labels, scores, names, indptr=offsets, ties="optimistic")
    np.testing.assert_array_equal(scores, before[0])
    np.testing.assert_array_equal(labels, before[1])
    acc = rw.Accumulator(names, ties="optimistic")
    half = offsets[20]
    acc.update(labels[:half], scores[:half], indptr=offsets[:21])
    acc.update(labels[half:], scores[half:], indptr=offsets[20:] - half)
    assert acc.mean() == res.mean()
    assert res["AP(denom=MIN)@3"] is not None and "AP@3" not in res
