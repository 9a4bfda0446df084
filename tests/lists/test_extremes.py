"""Values at the edges of the valid range (issue 21), against the brute-force references
(src/rankwise/testing/lists.py, src/rankwise/testing/ranks.py) or a hand computation: the largest
cutoff, extreme parameters, empty inputs, unusual dtypes and layouts, the largest counts.

Run with -W error::RuntimeWarning: a NumPy warning during a call on valid input is a bug.
"""
import math
from fractions import Fraction

import numpy as np
import pytest

import rankwise as rw
from rankwise.testing import lists as ref
from rankwise.testing import ranks as rref

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")

POLICIES = ["expected", "optimistic", "pessimistic", "stable", "trec"]
BIG = 2**63 - 1
# rankwise name pattern, reference metric
CUT_METRICS = [("RR@{}", "RR"), ("AP@{}", "AP"), ("P@{}", "P"), ("R@{}", "R"), ("F1@{}", "F1"),
               ("Hits@{}", "Hits"), ("DCG@{}", "DCG"), ("nDCG@{}", "nDCG"), ("ERR@{}", "ERR"),
               ("RBP@{}", "RBP")]


def ragged_queries(rng, n_queries, max_len):
    """Lists of every length up to max_len, few distinct scores (ties), graded labels."""
    lengths = rng.integers(0, max_len + 1, n_queries)
    lengths[:3] = [0, 1, max_len]
    n = int(lengths.sum())
    scores = rng.choice([-np.inf, -1.0, 0.0, 0.5, 1.0, 2.0], n)
    labels = rng.choice([0, 0, 1, 2, 3], n).astype(np.int64)
    doc_ids = np.array([f"d{i:03d}" for i in rng.permutation(n)])
    return np.concatenate([[0], np.cumsum(lengths)]), scores, labels, doc_ids


def reference_table(offsets, scores, labels, doc_ids, names, ties, **params):
    table = []
    for q in range(offsets.size - 1):
        rows = slice(offsets[q], offsets[q + 1])
        table.append([float(ref.metric([float(s) for s in scores[rows]], labels[rows].tolist(), metric, k,
                                       ties=ties, doc_ids=list(doc_ids[rows]), p=Fraction(4, 5),
                                       max_grade=int(labels.max()), **params))
                      for metric, k in names])
    return np.array(table).reshape(offsets.size - 1, len(names))


@pytest.mark.parametrize("ties", POLICIES)
def test_largest_cutoff_is_the_whole_list(rng, ties):
    # k = 2**63 - 1 in every metric: k + R, k as a loop bound, k as a float, the kernel's
    # top-k heap (sized by the longest list, never by k).
    offsets, scores, labels, doc_ids = ragged_queries(rng, 40, 6)
    names = [pattern.format(BIG) for pattern, _ in CUT_METRICS]
    got = rw.evaluate(labels, scores, names, indptr=offsets, ties=ties, doc_ids=doc_ids)
    want = reference_table(offsets, scores, labels, doc_ids, [(metric, BIG) for _, metric in CUT_METRICS], ties)
    np.testing.assert_allclose(np.column_stack([got[n] for n in names]), want, rtol=1e-12, atol=0)
    # Without a cutoff, the metrics that have a value without one are the same numbers.
    whole = rw.evaluate(labels, scores, ["RR", "AP", "DCG", "nDCG", "ERR", "RBP"], indptr=offsets, ties=ties,
                        doc_ids=doc_ids)
    for name in ["RR", "AP", "DCG", "nDCG", "ERR", "RBP"]:
        np.testing.assert_array_equal(got[f"{name}@{BIG}"], whole[name])


@pytest.mark.parametrize("ties", ["optimistic", "pessimistic", "stable", "trec", "expected"])
@pytest.mark.parametrize("shift", [-1, 0, 1, 2**40])
def test_cutoffs_around_the_longest_list(rng, ties, shift):
    # The top-k path is taken only while the cutoff is below the longest list.
    max_len = 9 if ties == "expected" else 30
    offsets, scores, labels, doc_ids = ragged_queries(rng, 30, max_len)
    if ties == "expected":  # few ties, so that the reference can enumerate the orderings
        scores = rng.choice([0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5], scores.size)
    k = max_len + shift
    names = [pattern.format(k) for pattern, _ in CUT_METRICS]
    got = rw.evaluate(labels, scores, names, indptr=offsets, ties=ties, doc_ids=doc_ids)
    want = reference_table(offsets, scores, labels, doc_ids, [(metric, k) for _, metric in CUT_METRICS], ties)
    np.testing.assert_allclose(np.column_stack([got[n] for n in names]), want, rtol=1e-12, atol=1e-300)


@pytest.mark.parametrize("func, kwargs", [(rw.precision, {}), (rw.recall, {}), (rw.hit_rate, {}),
                                          (rw.reciprocal_rank, {}), (rw.ndcg, {}), (rw.err, {}),
                                          (rw.rbp, {}), (rw.average_precision, {}), (rw.dcg, {})])
def test_largest_cutoff_in_the_per_metric_functions(func, kwargs):
    labels, scores = [[0, 1, 2], [1, 0, 0]], [[0.3, 0.2, 0.1], [0.5, 0.4, 0.4]]
    got = func(labels, scores, k=np.int64(BIG), per_query=True)
    if func is rw.precision:
        want = [2 / BIG, 1 / BIG]
    else:
        name = {rw.recall: "R", rw.hit_rate: "Hits", rw.reciprocal_rank: "RR", rw.ndcg: "nDCG", rw.err: "ERR",
                rw.rbp: "RBP", rw.average_precision: "AP", rw.dcg: "DCG"}[func]
        # A cutoff beyond the list is the whole list: the list's own length.
        want = [float(ref.metric(s, t, name, len(s), ties="expected", p=Fraction(4, 5), max_grade=2))
                for t, s in zip(labels, scores, strict=True)]
    np.testing.assert_allclose(got, want, rtol=1e-14)


def test_exponential_gain_of_small_labels_without_cancellation():
    # 2**label - 1 computed as exp2(label) - 1 was 0 for label 1e-17: nDCG 0 instead of 1/log2(3).
    assert rw.ndcg([[1e-17, 0.0]], [[0.1, 0.2]], gain="exponential") == pytest.approx(1 / math.log2(3),
                                                                                         rel=1e-15)
    for label in [1e-300, 1e-17, 1e-10, 0.5, 0.999]:
        want = math.expm1(label * math.log(2))  # 2**label - 1, by hand
        assert rw.dcg([[label, 0.0]], [[0.2, 0.1]], gain="exponential") == pytest.approx(want, rel=1e-15)
        assert rw.dcg([[0.0, label]], [[0.2, 0.1]], gain="exponential", ties="expected") == pytest.approx(
            want / math.log2(3), rel=1e-15)


@pytest.mark.parametrize("p", [1e-320, 5e-324, 1e-300, 0.5, 1 - 2**-53])
@pytest.mark.parametrize("ties", ["expected", "optimistic", "stable"])
def test_rbp_at_extreme_persistence(p, ties):
    labels = [[0, 1, 1, 0], [1, 0, 0, 1], [0, 0, 0, 1]]
    scores = [[0.4, 0.3, 0.3, 0.1], [0.9, 0.8, 0.7, 0.7], [0.5, 0.5, 0.5, 0.5]]
    got = rw.rbp(labels, scores, p=p, ties=ties, per_query=True)
    want = [float(ref.metric(s, t, "RBP", None, ties=ties, p=p)) for t, s in zip(labels, scores, strict=True)]
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-320)
    by_name = rw.evaluate(labels, scores, [f"RBP(p={p!r})"], ties=ties)
    np.testing.assert_array_equal(by_name[f"RBP(p={p!r})"], got)


def test_relevance_level_at_the_ends_of_float64():
    labels = np.array([[0.0, 5e-324, 1e-320], [0.0, 0.0, 0.0], [2.0, 1e308, 0.0]])
    scores = np.array([[0.3, 0.2, 0.1], [0.3, 0.2, 0.1], [0.1, 0.3, 0.2]])
    for level in [5e-324, 1e-320, 1.0, 1e308, np.finfo(np.float64).max]:
        res = rw.evaluate(labels, scores, ["MRR", "MAP", "P@2"], relevance_level=level)
        for name, metric, k in [("MRR", "RR", None), ("MAP", "AP", None), ("P@2", "P", 2)]:
            want = [float(ref.metric(s, t, metric, k, ties="expected", level=level))
                    for t, s in zip(labels.tolist(), scores.tolist(), strict=True)]
            np.testing.assert_allclose(res[name], want, rtol=1e-15)
        np.testing.assert_array_equal(res.n_relevant, (labels >= level).sum(axis=1))


def test_max_grade_at_the_ends_of_float64():
    labels, scores = [[2, 0, 1]], [[0.9, 0.8, 0.7]]
    assert rw.err(labels, scores, max_grade=1e308) == 0.0  # (2**g - 1) / 2**1e308 underflows to 0
    want = float(ref.metric([0.9, 0.8, 0.7], [2, 0, 1], "ERR", None, ties="expected", max_grade=1030))
    assert rw.err(labels, scores, max_grade=1030) == pytest.approx(want, rel=1e-12)
    assert rw.err([[0.0, 0.0]], [[0.2, 0.1]], max_grade=5e-324) == 0.0


@pytest.mark.parametrize("y_true, y_score, kwargs, n_queries", [
    (np.zeros((0, 3)), np.zeros((0, 3)), {}, 0),
    (np.zeros((0, 0)), np.zeros((0, 0)), {}, 0),
    (np.zeros((3, 0)), np.zeros((3, 0)), {}, 3),
    (np.zeros((2, 0)), np.zeros(0), {}, 2),           # one empty ranking, two topics
    (np.zeros((0, 4)), np.zeros(4), {}, 0),           # one ranking, no topic
    ([], [], {}, 1),                                  # one empty list
    ([], [], {"indptr": [0]}, 0),
    ([], [], {"indptr": [0, 0, 0]}, 2),
    ([], [], {"qid": []}, 0),
])
def test_empty_inputs(y_true, y_score, kwargs, n_queries):
    names = ["MRR", "MAP", "nDCG@3", "P@2", "R@2", "Rprec", "ERR", "RBP", "F1@2", "Hits@1", "DCG"]
    res = rw.evaluate(y_true, y_score, names, **kwargs)
    assert res.n_queries == n_queries
    for name in names:
        # An empty list scores 0 for every metric (reference.py on an empty ranking).
        np.testing.assert_array_equal(res[name], np.zeros(n_queries))
    mean = res.mean()
    assert all(math.isnan(v) for v in mean.values()) if n_queries == 0 else mean == dict.fromkeys(names, 0.0)
    assert rw.ndcg(y_true, y_score, per_query=True, **kwargs).shape == (n_queries,)


@pytest.mark.parametrize("variant", ["float16", "big-endian", "fortran", "strided", "read-only", "uint64",
                                     "int8-labels", "bool-labels", "masked-nothing", "uint64-indptr"])
def test_dtypes_and_layouts_against_the_reference(rng, variant):
    y_true = rng.integers(0, 3, (15, 8))
    y_score = rng.choice([0.0, 0.25, 0.5, 1.0, 2.0], (15, 8))
    names = ["MRR", "MAP", "nDCG@3", "P@2", "ERR@4", "RBP"]
    labels, scores, kwargs = y_true, y_score, {}
    if variant == "float16":
        labels, scores = y_true.astype(np.float16), y_score.astype(np.float16)
    elif variant == "big-endian":
        labels, scores = y_true.astype(">i8"), y_score.astype(">f8")
    elif variant == "fortran":
        labels, scores = np.asfortranarray(y_true), np.asfortranarray(y_score)
    elif variant == "strided":
        labels, scores = np.repeat(y_true, 2, axis=1)[:, ::2], np.repeat(y_score, 2, axis=1)[:, ::2]
    elif variant == "read-only":
        labels, scores = y_true.copy(), y_score.copy()
        labels.flags.writeable = scores.flags.writeable = False
    elif variant == "uint64":
        labels, scores = y_true.astype(np.uint64), (y_score * 4).astype(np.uint64)
    elif variant == "int8-labels":
        labels = y_true.astype(np.int8)
    elif variant == "bool-labels":
        labels = y_true > 1
    elif variant == "masked-nothing":
        labels, scores = np.ma.array(y_true), np.ma.array(y_score, mask=np.zeros_like(y_score, bool))
    elif variant == "uint64-indptr":
        labels, scores = y_true.ravel(), y_score.ravel()
        kwargs = {"indptr": np.arange(0, 121, 8, dtype=np.uint64)}
    res = rw.evaluate(labels, scores, names, **kwargs)
    plain_labels = np.asarray(labels).reshape(15, 8).astype(np.int64)
    plain_scores = np.asarray(scores).reshape(15, 8).astype(np.float64)
    for name, metric, k in [("MRR", "RR", None), ("MAP", "AP", None), ("nDCG@3", "nDCG", 3), ("P@2", "P", 2),
                            ("ERR@4", "ERR", 4), ("RBP", "RBP", None)]:
        want = [float(ref.metric(s.tolist(), t.tolist(), metric, k, ties="expected", p=Fraction(4, 5),
                                 max_grade=int(plain_labels.max())))
                for t, s in zip(plain_labels, plain_scores, strict=True)]
        np.testing.assert_allclose(res[name], want, rtol=1e-12)


# ---------------------------------------------------------------------------
# Ranks: counts up to 2**52, unsigned counts, the streaming builder
# ---------------------------------------------------------------------------

TOP = 2**52


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.uint32, np.uint64, np.int8, np.int64, np.float16,
                                   np.float32, np.longdouble])
def test_counts_of_any_integer_or_whole_float_dtype(dtype):
    ranks = rw.Ranks(np.array([0, 2, 1], dtype=dtype), np.array([0, 1, 0], dtype=dtype),
                     np.array([5, 5, 4], dtype=dtype))
    np.testing.assert_array_equal(ranks.pessimistic, [1, 4, 2])
    assert ranks.greater.dtype == ranks.n_candidates.dtype == np.int64
    from_ranks = rw.Ranks.from_ranks(np.array([3, 1], dtype=dtype), np.array([3, 7], dtype=dtype))
    np.testing.assert_array_equal(from_ranks.optimistic, [3, 1])


def test_largest_counts_are_exact():
    ranks = rw.Ranks([TOP - 2, 0, TOP - 1], [1, TOP - 1, 0], [TOP, TOP, TOP])
    np.testing.assert_array_equal(ranks.pessimistic, [TOP, TOP, TOP])
    np.testing.assert_array_equal(ranks.realistic, [TOP - 0.5, TOP / 2 + 0.5, TOP])
    assert rw.Ranks.from_ranks(np.array([TOP], dtype=np.uint64)).optimistic.tolist() == [TOP]


@pytest.mark.parametrize("ties", ["expected", "realistic", "optimistic", "pessimistic"])
def test_metrics_of_the_largest_ranks_against_the_reference(ties):
    greater, equal, c = [TOP - 2, 0, TOP - 1, 5], [1, TOP - 1, 0, 2], [TOP, TOP, TOP, 10]
    if ties == "expected":  # the reference enumerates the positions of a tie
        greater[1], equal[1] = TOP - 7, 6
    ranks = rw.Ranks(greater, equal, c)
    names = ["MR", "MRR", f"Hits@{TOP - 1}", f"Hits@{TOP}", "Hits@6", f"Hits@{BIG}"]
    if ties != "expected":
        names += ["GMR", "median_rank"]
    got = rw.rank_metrics(ranks, names, ties=ties)
    for name in names:
        want = rref.reference_metric(name, greater, equal, c, ties=ties)
        assert got[name] == pytest.approx(float(want), rel=1e-14), name
    # Chance against C = 2**52, by the closed forms in exact arithmetic.
    chance = rw.rank_metrics(ranks, ["E[MR]", "V[MR]", "E[Hits@1000]", "V[Hits@1000]"], ties=ties)
    e_mr = sum(Fraction(x + 1, 2) for x in c) / 4
    v_mr = sum(Fraction(x * x - 1, 12) for x in c) / 16
    hit = [min(Fraction(1000, x), 1) for x in c]
    assert chance["E[MR]"] == pytest.approx(float(e_mr), rel=1e-15)
    assert chance["V[MR]"] == pytest.approx(float(v_mr), rel=1e-15)
    assert chance["E[Hits@1000]"] == pytest.approx(float(sum(hit) / 4), rel=1e-15)
    assert chance["V[Hits@1000]"] == pytest.approx(float(sum(h * (1 - h) for h in hit) / 16), rel=1e-15)


def test_largest_cutoff_in_rank_metrics():
    ranks = rw.Ranks([0, 3, TOP - 1], [2, 0, 0], [5, 10, TOP])
    for ties in ["expected", "realistic", "optimistic", "pessimistic"]:
        assert rw.rank_metrics(ranks, [f"Hits@{BIG}", f"hits_at_{BIG}"], ties=ties) == {
            f"Hits@{BIG}": 1.0, f"hits_at_{BIG}": 1.0}
    assert rw.rank_metrics(ranks, [f"E[Hits@{BIG}]"])[f"E[Hits@{BIG}]"] == 1.0


def test_chance_metrics_without_chance_are_nan_without_a_warning():
    # Every query has one candidate: E[M] = 1 and V[M] = 0, so adjusted indices and
    # z-scores are undefined (reference_ranks gives None), documented as NaN.
    ranks = rw.Ranks.from_ranks([1, 1], n_candidates=[1, 1])
    names = ["AMRI", "AMRR", "AHits@1", "AGMRI", "zMR", "zMRR", "zHits@1", "zGMR"]
    got = rw.rank_metrics(ranks, names, ties="realistic")
    for name in names:
        assert rref.reference_metric(name, [0, 0], [0, 0], [1, 1], ties="realistic") is None
        assert math.isnan(got[name]), name
    assert rw.rank_metrics(ranks, ["AMR", "V[MR]"], ties="realistic") == {"AMR": 1.0, "V[MR]": 0.0}


@pytest.mark.parametrize("scale", [2.0**1000, 2.0**-1070, 1e308 / 3])
def test_weights_at_the_ends_of_float64(scale):
    # Only the ratios of the weights matter: huge ones (whose sum overflowed) and subnormal
    # ones (whose halves and sums rounded) give the same values as moderate ones.
    greater, equal, c = [0, 2, 5, 1], [1, 0, 2, 0], [4, 6, 12, 3]
    ranks = rw.Ranks(greater, equal, c)
    weights = np.array([1.0, 2.0, 1.0, 0.0])
    names = ["MR", "MRR", "Hits@2", "GMR", "median_rank", "rank_var", "AMRI", "zMRR", "E[GMR]", "V[MRR]"]
    plain = rw.rank_metrics(ranks, names, ties="realistic", weights=weights)
    scaled = rw.rank_metrics(ranks, names, ties="realistic", weights=weights * scale)
    for name in names:
        assert scaled[name] == pytest.approx(plain[name], rel=1e-13), name
        want = rref.reference_metric(name, greater, equal, c, ties="realistic", weights=weights.tolist())
        assert plain[name] == pytest.approx(float(want), rel=1e-12), name


def test_equal_subnormal_weights_give_the_unweighted_median():
    ranks = rw.Ranks.from_ranks([1, 2, 3])
    assert rw.rank_metrics(ranks, ["median_rank"], ties="realistic", weights=[5e-324] * 3) == {"median_rank": 2.0}


def test_rank_builder_after_a_failed_update(rng):
    scores = np.round(rng.normal(size=(6, 12)), 1)
    true_index = rng.integers(0, 12, 6)
    pos = scores[np.arange(6), true_index]
    builder = rw.RankBuilder(pos, true_index=true_index)
    builder.update(scores[:, :5], start=0)
    nan_chunk = scores[:, 5:].copy()
    nan_chunk[2, 1] = np.nan
    for bad, exc in [(dict(start=1.9), TypeError), (dict(start=-5), ValueError), (dict(start=[5, 5]), ValueError),
                     (dict(start=np.uint64(2**64 - 1)), ValueError), (dict(start=TOP - 3), ValueError)]:
        with pytest.raises(exc, match="start"):
            builder.update(scores[:, 5:], **bad)
    with pytest.raises(ValueError, match="NaN"):
        builder.update(nan_chunk, start=5)
    builder.update(scores[:, 5:], start=np.full(6, 5, dtype=np.uint64))
    want = [ref_col for ref_col in zip(*[rref.count_ranks_with_true_column(row.tolist(), int(t))
                                          for row, t in zip(scores, true_index, strict=True)], strict=True)]
    got = builder.ranks()
    assert [got.greater.tolist(), got.equal.tolist(), got.n_candidates.tolist()] == [list(w) for w in want]


def test_unsigned_true_index_and_indptr(rng):
    scores = np.round(rng.normal(size=(5, 7)), 1)
    true_index = rng.integers(0, 7, 5)
    signed = rw.rank_positive(scores=scores, true_index=true_index)
    unsigned = rw.rank_positive(scores=scores, true_index=true_index.astype(np.uint64))
    flat = rw.rank_positive(scores=scores.ravel(), true_index=true_index.astype(np.uint64),
                            indptr=np.arange(0, 36, 7, dtype=np.uint64))
    for ranks in (unsigned, flat):
        np.testing.assert_array_equal(ranks.greater, signed.greater)
        np.testing.assert_array_equal(ranks.equal, signed.equal)
        np.testing.assert_array_equal(ranks.n_candidates, signed.n_candidates)


@pytest.mark.parametrize("variant", ["float16", "big-endian", "strided", "read-only", "uint64", "masked-nothing"])
def test_rank_positive_dtypes_and_layouts_against_the_reference(rng, variant):
    neg = rng.choice([0.0, 0.5, 1.0, 2.0, 3.0], (6, 9))
    pos = rng.choice([0.0, 0.5, 1.0, 2.0], 6)
    n, p = neg, pos
    if variant == "float16":
        n, p = neg.astype(np.float16), pos.astype(np.float16)
    elif variant == "big-endian":
        n, p = neg.astype(">f4"), pos.astype(">f8")
    elif variant == "strided":
        n = np.repeat(neg, 3, axis=1)[:, ::3]
    elif variant == "read-only":
        n, p = neg.copy(), pos.copy()
        n.flags.writeable = p.flags.writeable = False
    elif variant == "uint64":
        n, p = (neg * 2).astype(np.uint64), (pos * 2).astype(np.uint64)
    elif variant == "masked-nothing":
        n = np.ma.array(neg)
    ranks = rw.rank_positive(p, n)
    plain_p, plain_n = np.asarray(p, dtype=np.float64), np.asarray(n, dtype=np.float64)
    want = [rref.count_ranks(float(a), row.tolist()) for a, row in zip(plain_p, plain_n, strict=True)]
    assert [list(r) for r in zip(ranks.greater, ranks.equal, ranks.n_candidates, strict=True)] == \
        [list(w) for w in want]


def test_ranks_indexing_and_iteration():
    ranks = rw.Ranks([0, 1, 2], [1, 0, 0], [3, 3, 4])
    assert [r.greater.tolist() for r in ranks] == [[0], [1], [2]]  # iteration stops at IndexError
    assert ranks[np.uint64(2)].greater.tolist() == [2]
    assert ranks[np.array([2, 0], dtype=np.uint8)].greater.tolist() == [2, 0]
    assert ranks[-3].greater.tolist() == [0]
    assert len(ranks[[]]) == 0
    assert ranks[np.array([True, False, True])].greater.tolist() == [0, 2]
    assert rw.Ranks.concatenate(r for r in [ranks, ranks[1:]]).greater.tolist() == [0, 1, 2, 1, 2]


@pytest.mark.parametrize("call, n_queries", [
    (lambda: rw.rank_positive(np.zeros(0), np.zeros((0, 4))), 0),
    (lambda: rw.rank_positive(np.zeros(0), np.zeros((0, 0))), 0),
    (lambda: rw.rank_positive([0.1, 0.2], np.zeros((2, 0))), 2),
    (lambda: rw.rank_positive([0.1, 0.2], np.zeros(0)), 2),                  # an empty shared pool
    (lambda: rw.rank_positive(0.5, np.zeros(0)), 1),
    (lambda: rw.rank_positive(np.zeros(0), np.zeros(0), indptr=[0]), 0),
    (lambda: rw.rank_positive([0.1, 0.2], np.zeros(0), indptr=[0, 0, 0]), 2),
    (lambda: rw.rank_positive(scores=np.zeros((0, 4)), true_index=[]), 0),
    (lambda: rw.rank_positive(scores=np.zeros((0, 4)), true_index=np.zeros(0, np.uint64)), 0),
    (lambda: rw.RankBuilder(np.zeros(0)).update(np.zeros((0, 3))).ranks(), 0),
    (lambda: rw.RankBuilder([0.1]).update(np.zeros((1, 0))).ranks(), 1),
    (lambda: rw.RankBuilder([0.1], true_index=[0]).update(np.zeros((1, 0)), start=0).ranks(), 1),
])
def test_no_queries_and_no_candidates(call, n_queries):
    ranks = call()
    # No candidate: the true answer alone, rank 1 of C = 1 (reference_ranks on an empty list).
    assert rref.count_ranks(0.1, []) == (0, 0, 1)
    assert [ranks.greater.tolist(), ranks.equal.tolist(), ranks.n_candidates.tolist()] == [[0] * n_queries,
                                                                                          [0] * n_queries,
                                                                                          [1] * n_queries]
    if n_queries:
        assert rw.rank_metrics(ranks, ["MR", "MRR", "Hits@1"]) == {"MR": 1.0, "MRR": 1.0, "Hits@1": 1.0}
    else:
        with pytest.raises(ValueError, match="ranks holds no query"):
            rw.rank_metrics(ranks, ["MR"])
