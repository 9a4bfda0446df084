"""Extreme numbers through the public API (issue 13): huge cutoffs, labels of 1e300 and
-1e300, subnormal labels and scores, infinite scores, counts at the int32 boundaries.

Every value is checked against an independent reference (reference.py, reference_trec.py,
reference_ranks.py, or arithmetic written out here). The kernels trust their inputs, so
these are the inputs the sanitizer build (.ci/sanitize) must see pass without a report: a
double cast to an integer too small for it, an index or a size that overflows, would
abort it.
"""
from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

import rankwise as rw
from rankwise.testing import lists as ref
from rankwise.testing import trec as ref_trec

BIG = 2**63 - 1
INT32_EDGES = [2**31 - 1, 2**31, 2**32]
TINY = 5e-324  # the smallest subnormal
# Labels beyond the int32 and int64-exact ranges, subnormal, and near the top of float64.
EXTREME_LABELS = [1e300, 2.0**31 - 1, 2.0**31, 2.0**32, 2.0**53, TINY, 1e-310, 1.0, 0.0]
EXTREME_SCORES = [math.inf, -math.inf, 1e308, -1e308, TINY, -TINY, 0.0, -0.0, 1e-310, 1.0]


def _small_trec():
    qrels = rw.Qrels.from_dict({"q1": {"d1": 1, "d2": 0, "d3": 2}})
    run = rw.Run.from_dict({"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}})
    return qrels, run


# ---------------------------------------------------------------- cutoffs (issue 13's cases)

def test_cutoffs_trec_eval_reads_as_floats_are_refused_with_the_measure_named():
    # Used to return 0.0: a double cast to int64 out of range.
    with pytest.raises(ValueError, match=r"trec_eval measure 'recall\.1e19': cutoff '1e19' is not an integer"):
        rw.trec_eval(*_small_trec(), ["recall.1e19", "ndcg_cut.1e300"])
    with pytest.raises(ValueError, match=r"trec_eval measure 'ndcg_cut\.1e300': cutoff '1e300' is not an integer"):
        rw.trec_eval(*_small_trec(), ["ndcg_cut.1e300"])


@pytest.mark.parametrize("k", [2**63, 2**64, 2**70])
def test_cutoffs_beyond_int64_are_refused_with_the_metric_named(k):
    # R@2**70 used to raise a bare OverflowError.
    for name in (f"R@{k}", f"nDCG@{k}", f"P@{k}"):
        with pytest.raises(ValueError, match=rf"metric '{name[:name.index('@')]}@{k}': cutoff k must be an integer "
                                             rf"from 1 to 2\*\*63 - 1, got {k}"):
            rw.evaluate([[1, 0, 2]], [[3.0, 2.0, 1.0]], [name])
    with pytest.raises(ValueError, match=rf"trec_eval measure 'P\.{k}': cutoff '{k}' is out of range"):
        rw.trec_eval(*_small_trec(), [f"P.{k}"])


@pytest.mark.parametrize("k", [3, 4, *INT32_EDGES, 100_000_000_000, 2**53 + 1, BIG])
@pytest.mark.parametrize("ties", ["expected", "stable", "trec"])
def test_cutoffs_at_or_beyond_the_list_in_evaluate(k, ties):
    # P@100000000000 on 3 items used to raise MemoryError: a heap sized by k. A heap of k
    # items cannot be allocated for most of these k, so passing at all shows none is.
    labels, scores, ids = [1, 0, 2], [3.0, 2.0, 1.0], ["a", "b", "c"]
    names = [f"{m}@{k}" for m in ("P", "R", "AP", "nDCG", "DCG", "RR", "Hits", "F1", "ERR", "RBP")]
    got = rw.evaluate([labels], [scores], names, ties=ties, doc_ids=[ids])
    for name in names:
        metric = name.split("@")[0]
        want = ref.metric(scores, labels, metric, k, ties=ties, doc_ids=ids)
        assert got[name][0] == pytest.approx(float(want), rel=1e-14, abs=0), name


@pytest.mark.parametrize("k", [4, *INT32_EDGES, 100_000_000_000, BIG])
def test_cutoffs_at_or_beyond_the_list_in_trec_eval(k):
    qrels = {"q1": {"d1": 1, "d2": 0, "d3": 2, "d9": 1}}
    run = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}
    measures = [f"{root}.{k}" for root in ("P", "recall", "ndcg_cut", "map_cut", "relative_P", "success")]
    got = rw.trec_eval(rw.Qrels.from_dict(qrels), rw.Run.from_dict(run), measures)
    want = ref_trec.evaluate(qrels, run, measures)
    for name in want.names:
        assert got[name][0] == pytest.approx(want.per_query["q1"][name], rel=1e-14, abs=0), name
    # written out: 2 relevant retrieved of 3 relevant, in a list of 3
    assert got[f"P_{k}"][0] == 2 / k
    assert got[f"relative_P_{k}"][0] == 2 / 3


@pytest.mark.parametrize("depth", INT32_EDGES + [BIG])
def test_depths_at_int32_edges_are_no_depth(depth):
    qrels, run = _small_trec()
    full = rw.trec_eval(qrels, run, ["all_trec"]).format(per_query=True)
    assert rw.trec_eval(qrels, run, ["all_trec"], depth=depth).format(per_query=True) == full


# ---------------------------------------------------------------- labels

@pytest.mark.parametrize("ties", ["expected", "optimistic", "pessimistic", "stable", "trec"])
def test_extreme_labels_in_evaluate_against_the_reference(ties):
    labels = EXTREME_LABELS
    scores = [2.0, 1.0, 2.0, 0.5, 1.0, 3.0, 0.5, 2.0, 1.0]
    ids = [f"d{i}" for i in range(len(labels))]
    names = ["AP", "P@3", "R@4", "RR", "Rprec", "DCG@5", "nDCG", "nDCG@2", "Hits@2", "F1@3"]
    for level in (1.0, 2.0**31, 2.0**32 + 1, 1e300, TINY):
        got = rw.evaluate([labels], [scores], names, ties=ties, doc_ids=[ids], relevance_level=level)
        for name in names:
            metric, _, k = name.partition("@")
            want = ref.metric(scores, labels, metric, int(k) if k else None, ties=ties, doc_ids=ids, level=level)
            assert got[name][0] == pytest.approx(float(want), rel=1e-12, abs=0), (name, level)


@pytest.mark.parametrize("dtype, top", [(np.int32, 2**31 - 1), (np.uint32, 2**32 - 1), (np.int64, 2**32),
                                        (np.int64, 2**53), (np.uint64, 2**63 - 1)])
def test_integer_labels_at_their_limits(dtype, top):
    labels = np.array([top, 0, 1, top - 1, 2], dtype=dtype)
    scores = [0.5, 0.9, 0.1, 0.7, 0.3]
    names = ["AP", "P@2", "nDCG", "DCG@3"]
    for level in (1, 2, top - 1, top):
        if top > 2**53 and level > 2**53:
            with pytest.raises(ValueError, match=r"relevance_level=\d+ and labels of y_true are both above 2\*\*53"):
                rw.evaluate([labels], [scores], names, relevance_level=level)
            continue
        got = rw.evaluate([labels], [scores], names, relevance_level=level)
        for name in names:
            metric, _, k = name.partition("@")
            want = ref.metric(scores, [int(x) for x in labels], metric, int(k) if k else None, level=level)
            assert got[name][0] == pytest.approx(float(want), rel=1e-12, abs=0), (name, level)


def test_negative_and_infinite_labels_are_refused():
    for bad in (-1e300, -TINY, math.inf, -math.inf, math.nan):
        with pytest.raises(ValueError, match=r"y_true must hold finite labels >= 0; found"):
            rw.evaluate([[1.0, bad]], [[0.5, 0.2]], ["AP"])


def test_extreme_labels_in_trec_eval_against_the_model():
    # Labels of 1e300 once reached a cast to Py_ssize_t in the TREC kernel (ndcg's gain
    # levels); -1e300 is a negative judgement (pooled, unjudged); levels of ndcg at the
    # int32 and int64 edges.
    qrels = {"q1": {"a": 1e300, "b": -1e300, "c": TINY, "d": 2.0**31, "e": 2.0**32, "f": 0.0, "g": 1.0,
                    "h": 9223372036854774784.0, "i": -TINY},
             "q2": {"a": -1e300, "b": 1e-310, "x": 1e300}}
    run = {"q1": {"a": 0.5, "b": 0.9, "c": 0.1, "d": 0.7, "e": 0.3, "f": 0.7, "g": 2.0, "h": 0.2, "i": 0.05,
                  "z": 0.6},
           "q2": {"a": 1.0, "b": 1.0, "c": 0.0}}
    measures = ["P.1,2,5", "recall.3", "map", "map_cut.4", "Rprec", "bpref", "infAP", "recip_rank", "ndcg",
                "ndcg_cut.2,5", "iprec_at_recall.0,0.5,1", "Rprec_mult.0.5,2", "success.1,3", "relative_P.2",
                "num_rel", "num_rel_ret", "num_nonrel_judged_ret", "set_F", "set_P", "utility",
                "ndcg.1=2,2147483647=3,2147483648=-1,4294967296=5,9223372036854774784=7,-1=0.5,-2=1",
                "ndcg.-9223372036854775808=1,1=1"]
    for level in (1, 2**31, 2**32 + 1):
        for complete in (False, True):
            got = rw.trec_eval(rw.Qrels.from_dict(qrels), rw.Run.from_dict(run), measures,
                               relevance_level=level, complete=complete)
            want = ref_trec.evaluate(qrels, run, measures, relevance_level=level, complete=complete)
            assert list(got.names) == want.names
            for name in want.names:
                expected = [want.per_query[q][name] for q in want.query_ids]
                np.testing.assert_allclose(np.asarray(got[name]), expected, rtol=1e-12, atol=0,
                                           err_msg=f"{name} -l {level} -c {complete}")


def test_trec_eval_labels_beyond_float64_are_refused():
    for bad in (math.inf, -math.inf, math.nan):
        with pytest.raises(ValueError, match=r"a Qrels value must be a finite number"):
            rw.Qrels.from_dict({"q1": {"a": bad}})


# ---------------------------------------------------------------- scores

@pytest.mark.parametrize("ties", ["expected", "optimistic", "pessimistic", "stable", "trec"])
def test_infinite_and_subnormal_scores_against_the_reference(ties):
    scores = EXTREME_SCORES
    labels = [1, 0, 2, 1, 1, 0, 3, 0, 1, 2]
    ids = [f"d{i}" for i in range(len(scores))]
    names = ["AP", "P@3", "RR", "nDCG", "nDCG@4", "ERR@5", "RBP", "R@2"]
    f32 = np.finfo(np.float32)
    scores32 = [{1e308: f32.max, -1e308: -f32.max, TINY: f32.smallest_subnormal,
                 -TINY: -f32.smallest_subnormal}.get(x, x) for x in scores]
    for dtype, values in ((np.float64, scores), (np.float32, scores32)):
        got = rw.evaluate([labels], np.array([values], dtype=dtype), names, ties=ties, doc_ids=[ids])
        cast = [float(x) for x in np.array(values, dtype=dtype)]  # float32: 1e-310 is 0
        for name in names:
            metric, _, k = name.partition("@")
            want = ref.metric(cast, labels, metric, int(k) if k else None, ties=ties, doc_ids=ids)
            assert got[name][0] == pytest.approx(float(want), rel=1e-12, abs=1e-15), (name, dtype)


def test_infinite_and_subnormal_scores_in_trec_eval_against_the_model():
    run = {"q1": {f"d{i}": s for i, s in enumerate(EXTREME_SCORES)}}
    qrels = {"q1": {f"d{i}": lab for i, lab in enumerate([1, 0, 2, 1, 1, 0, 3, 0, -1, 2])}}
    measures = ["all_trec"]
    got = rw.trec_eval(rw.Qrels.from_dict(qrels), rw.Run.from_dict(run), measures)
    want = ref_trec.evaluate(qrels, run, measures)
    for name in want.names:
        assert got[name][0] == pytest.approx(want.per_query["q1"][name], rel=1e-12, abs=1e-15), name


# ---------------------------------------------------------------- rank counts

def _rank_reference(g: int, e: int, ties: str, k: int) -> tuple:
    """(rank or E[rank], E[1 / rank], P(rank <= k)) of one positive: exact, in mpmath."""
    mp.mp.dps = 50
    if ties != "expected":
        r = {"realistic": mp.mpf(g) + mp.mpf(e) / 2 + 1, "optimistic": g + 1, "pessimistic": g + e + 1}[ties]
        return mp.mpf(r), 1 / mp.mpf(r), mp.mpf(r <= k)
    # uniform over ranks g+1 .. g+e+1
    n = mp.mpf(e + 1)
    harmonic = mp.harmonic(g + e + 1) - mp.harmonic(g)
    return mp.mpf(g) + n / 2 + mp.mpf(1) / 2, harmonic / n, mp.mpf(max(0, min(k, g + e + 1) - g)) / n


@pytest.mark.parametrize("greater", [0, 2**31 - 2, 2**31 - 1, 2**31, 2**32, 2**52 - 2**33])
@pytest.mark.parametrize("ties", ["realistic", "optimistic", "pessimistic", "expected"])
def test_rank_metrics_at_int32_edges(greater, ties):
    g = [greater, 0, greater // 2]
    e = [0, 2**31 - 1, 2**31]
    c = [gi + ei + 1 + extra for gi, ei, extra in zip(g, e, [0, 2**31, 2**32], strict=True)]
    ranks = rw.Ranks(g, e, c)
    assert ranks.greater.tolist() == g and ranks.equal.tolist() == e and ranks.n_candidates.tolist() == c
    for k in (1, *INT32_EDGES, BIG):
        got = rw.rank_metrics(ranks, ["MR", "MRR", f"Hits@{k}"], ties=ties)
        parts = [_rank_reference(gi, ei, ties, k) for gi, ei in zip(g, e, strict=True)]
        for j, name in enumerate(["MR", "MRR", f"Hits@{k}"]):
            want = mp.fsum(p[j] for p in parts) / len(parts)
            assert got[name] == pytest.approx(float(want), rel=1e-12, abs=0), name


def test_rank_counts_beyond_float64_exactness_are_refused():
    with pytest.raises(ValueError, match=r"greater must be at most 2\*\*52 = 4503599627370496"):
        rw.Ranks([2**52 + 1], [0], [2**52 + 2])


# ---------------------------------------------------------------- broadcast doc_ids

@pytest.mark.parametrize("n_queries, n_docs", [(1, 5), (7, 40), (50, 3)])
def test_broadcast_doc_ids_equal_per_query_doc_ids(rng, n_queries, n_docs):
    # One ranking's ids for every query: ranked once, never copied per query.
    scores = rng.integers(0, 4, (n_queries, n_docs)).astype(np.float64)
    scores[rng.random(scores.shape) < 0.1] = -np.inf
    labels = rng.integers(0, 3, (n_queries, n_docs))
    ids = rng.permutation([f"d{i}" for i in range(n_docs)])
    names = ["AP", "P@3", "nDCG@4", "RR", "ERR", "R@2"]
    full = rw.evaluate(labels, scores, names, ties="trec", doc_ids=np.broadcast_to(ids, scores.shape).copy(),
                       max_grade=2)
    shared = rw.evaluate(labels, scores, names, ties="trec", doc_ids=ids, max_grade=2)
    for name in names:
        np.testing.assert_array_equal(shared[name], full[name], err_msg=name)
    for q in range(min(n_queries, 3)):
        for name in names:
            metric, _, k = name.partition("@")
            want = ref.metric(scores[q].tolist(), labels[q].tolist(), metric, int(k) if k else None, ties="trec",
                              doc_ids=ids.tolist(), max_grade=2)
            assert shared[name][q] == pytest.approx(float(want), rel=1e-12), (q, name)
    # integer ids are their decimal text, as in the per-query form
    int_ids = rng.permutation(n_docs) * 7
    np.testing.assert_array_equal(rw.evaluate(labels, scores, ["AP"], ties="trec", doc_ids=int_ids)["AP"],
                                  rw.evaluate(labels, scores, ["AP"], ties="trec",
                                              doc_ids=np.broadcast_to(int_ids, scores.shape))["AP"])


def test_broadcast_doc_ids_with_a_duplicate_are_refused():
    with pytest.raises(ValueError, match=r"doc_ids has document 'b' twice for every query \(rows 1 and 2\)"):
        rw.evaluate([[1, 0, 1], [0, 1, 1]], [[1.0, 1.0, 0.0], [0.0, 1.0, 1.0]], ["AP"], ties="trec",
                    doc_ids=["a", "b", "b"])
    with pytest.raises(ValueError, match=r"doc_ids must have the shape of y_score \(2, 3\), got \(2,\)"):
        rw.evaluate([[1, 0, 1], [0, 1, 1]], [[1.0, 1.0, 0.0], [0.0, 1.0, 1.0]], ["AP"], ties="trec",
                    doc_ids=["a", "b"])


@pytest.mark.parametrize("view", [False, True])
def test_broadcast_doc_ids_use_memory_of_the_input(view):
    # 200 queries of 5,000 items: per-query string ids would be 1,000,000 strings
    # (<U6: 24 MB) and their sort; the shared ones are 5,000. np.broadcast_to's view of
    # them (every row the same memory) is taken as the shared form too.
    import tracemalloc

    rng = np.random.default_rng(5)
    scores = rng.integers(0, 20, (200, 5000)).astype(np.float32)
    labels = rng.integers(0, 3, (200, 5000)).astype(np.int8)
    ids = np.array([f"d{i:05d}" for i in range(5000)])
    doc_ids = np.broadcast_to(ids, scores.shape) if view else ids
    tracemalloc.start()
    try:
        rw.evaluate(labels, scores, ["AP"], ties="trec", doc_ids=doc_ids)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < scores.nbytes + labels.nbytes, peak  # NumPy's allocations are traced


# ---------------------------------------------------------------- int32 numbering in the TREC kernel

@pytest.mark.parametrize("queries", [{"q1": {"a": 1}, "q2": {"b": 1}}, {7: {"a": 1}, 12: {"b": 1}}])
def test_judgements_per_query_beyond_int32_are_refused(queries):
    # The TREC kernel numbers a query's judgements in int32: a query with 2**31 - 1 or more
    # (32 GiB of qrels) is refused before any kernel runs. Checked on made-up offsets.
    from rankwise.trec.evaluation import _check_judgements_per_query

    side = rw.Qrels.from_dict(queries)._side()
    second = list(queries)[1]  # from_dict reads ids as text
    _check_judgements_per_query(np.array([0, 5, 5 + 2**31 - 2]), side)
    with pytest.raises(ValueError, match=rf"qrels query {str(second)!r} has 2147483647 judgements; at most 2\*\*31 - 2 "
                                         r"= 2147483646 per query are supported"):
        _check_judgements_per_query(np.array([0, 5, 5 + 2**31 - 1]), side)
