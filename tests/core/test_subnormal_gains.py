"""Gains at the bottom of float64 (issue 21, "no silent wrong numbers"): DCG and nDCG are exact
to double precision for every finite label, subnormal ones included.

A subnormal gain keeps few significant bits once discounted (1.5e-323 / log2(3) keeps two), so
nDCG of such labels came out wrong by up to a third without a word. The kernels now scale the
gains of a small sum by a power of two (src/rankwise/_core/_gain.pxd). The reference here is
exact rational arithmetic: Fraction of every label (exact for a double), the discounts as the
Fractions of the doubles log2(i + 1) the kernels divide by, and for exponential gains
2**label - 1 to 600 bits with mpmath. A value passes when it is the exact one to a few units in
the last place, plus half the spacing of subnormals: the one rounding that a subnormal result
cannot avoid, so an unnormalised DCG must be the correctly rounded value there.
"""
import functools
import itertools
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

import rankwise as rw
from rankwise.testing import lists as ref

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")

POLICIES = ["expected", "optimistic", "pessimistic", "stable", "trec"]
TINY = 5e-324                    # the smallest subnormal
ULPS = 16                        # units in the last place allowed beyond that rounding
HALF_SUBNORMAL = Fraction(1, 2**1075)

# Label sets, one query each: every magnitude of float64 that a label can take.
QUERIES = {
    "reproducer": ([0.0, 1.5e-323], [0.2, 0.1]),
    "all subnormal": ([1.5e-323, 0.0, 5e-324, 2.5e-323, 1e-320, 0.0, 4e-322], [0.5, 0.9, 0.5, 0.1, 0.3, 0.3, 0.5]),
    "smallest": ([TINY, TINY, 0.0, TINY, TINY], [0.4, 0.4, 0.9, 0.1, 0.4]),
    "near DBL_MIN": ([2.0**-1000, 2.0**-1022, 2.0**-1030, 0.0, 2.0**-1074], [0.1, 0.2, 0.2, 0.3, 0.4]),
    "normal and subnormal": ([1.0, 1e-320, 0.0, 3e-323, 2.0], [0.3, 0.9, 0.8, 0.9, 0.1]),
    "whole range": ([1e300, 1e-320, TINY, 0.0, 1e-300], [0.1, 0.7, 0.7, 0.5, 0.2]),
    "tiny above, normal below": ([1e-320, 2e-320, 0.0, 1e-300], [0.9, 0.8, 0.7, 0.1]),
    # Nearly the largest gains a call may hold (their sum must stay finite), never scaled up.
    "largest and smallest": ([1.7e308, 1e-320, TINY, 0.0], [0.1, 0.9, 0.5, 0.5]),
}
# Exponential gains: labels above 1023 overflow 2**label - 1 (refused), and 1e-300's gain is normal.
EXP_QUERIES = {name: q for name, q in QUERIES.items() if name not in ("whole range", "largest and smallest")}
EXP_QUERIES["whole range"] = ([1000.0, 1e-320, TINY, 0.0, 1e-300], [0.1, 0.7, 0.7, 0.5, 0.2])


def _discount(position):
    """1 over the double log2(position + 1) that the kernels divide by, exactly."""
    return 1 / Fraction(math.log2(position + 1))


@functools.cache
def _gain(label, gain):
    if gain == "linear":
        return Fraction(label)
    with mpmath.workprec(600):
        man, exp = mpmath.expm1(mpmath.mpf(label) * mpmath.ln2).man_exp  # 2**label - 1
    return man * Fraction(2) ** exp


def _dcg(ranking, k, gain):
    return sum((_gain(label, gain) * _discount(i) for i, label in enumerate(ranking[:k], start=1)), Fraction(0))


def exact(labels, scores, name, k=None, ties="expected", gain="linear", doc_ids=None):
    """DCG or nDCG, exactly: the mean DCG over the rankings the policy admits, over the ideal DCG."""
    rankings = ref.rankings(scores, labels, ties, doc_ids=doc_ids)
    dcg = sum((_dcg(r, k, gain) for r in rankings), Fraction(0)) / len(rankings)
    if name == "DCG":
        return dcg
    ideal = _dcg(sorted(labels, reverse=True), k, gain)
    return dcg / ideal if ideal else Fraction(0)


def assert_exact(got, want, context=""):
    """got is want to double precision, and its correct rounding where it is subnormal."""
    assert math.isfinite(got), (context, got)
    error = abs(Fraction(got) - want)
    assert error <= ULPS * Fraction(2) ** -53 * abs(want) + HALF_SUBNORMAL, (context, got, float(want))


def _doc_ids(n):
    return [f"d{i:02d}" for i in np.random.default_rng(n).permutation(n)]


def test_the_reproducer():
    assert rw.ndcg([[0, 1.5e-323]], [[0.2, 0.1]]) == pytest.approx(1 / math.log2(3), rel=1e-15)
    assert_exact(rw.ndcg([[0, 1.5e-323]], [[0.2, 0.1]]), _discount(2))


@pytest.mark.parametrize("ties", POLICIES)
@pytest.mark.parametrize("gain", ["linear", "exponential"])
def test_every_magnitude_every_policy(ties, gain):
    """All queries in one call (normal and subnormal across queries), every cutoff."""
    queries = list((QUERIES if gain == "linear" else EXP_QUERIES).items())
    labels = np.concatenate([q[0] for _, q in queries])
    scores = np.concatenate([q[1] for _, q in queries])
    indptr = np.cumsum([0] + [len(q[0]) for _, q in queries])
    doc_ids = _doc_ids(labels.size)
    names = ["nDCG", "DCG", "nDCG@1", "DCG@1", "nDCG@2", "DCG@2", "nDCG@3", "DCG@3", "nDCG@100"]
    res = rw.evaluate(labels, scores, names, indptr=indptr, ties=ties, gain=gain,
                      doc_ids=np.array(doc_ids) if ties == "trec" else None)
    for q, (query, (lab, sco)) in enumerate(queries):
        ids = doc_ids[indptr[q]:indptr[q + 1]]
        for name in names:
            metric, _, k = name.partition("@")
            want = exact(lab, sco, metric, int(k) if k else None, ties, gain, ids)
            assert_exact(res[name][q], want, (query, name))


@pytest.mark.parametrize("ties", POLICIES)
def test_the_per_metric_functions(ties):
    labels, scores = QUERIES["all subnormal"]
    doc_ids = np.array(_doc_ids(len(labels))) if ties == "trec" else None
    for func, name in [(rw.ndcg, "nDCG"), (rw.dcg, "DCG")]:
        for k in [None, 2]:
            got = func([labels], [scores], k=k, ties=ties, doc_ids=doc_ids if doc_ids is None else [doc_ids])
            assert_exact(got, exact(labels, scores, name, k, ties, doc_ids=doc_ids), (name, k))


def test_a_subnormal_dcg_is_the_correctly_rounded_value():
    # 1.5e-323 * (1 + 1/log2(3) + 1/2) is 6.45 subnormal steps: the correct rounding is 6 of
    # them, where rounding each discounted gain gave 3 + 2 + 2 = 7.
    labels, scores = [1.5e-323] * 3, [0.3, 0.2, 0.1]
    want = exact(labels, scores, "DCG", ties="stable")
    assert rw.dcg([labels], [scores], ties="stable") == float(want) == 6 * TINY
    for ties in ["expected", "optimistic", "pessimistic", "stable"]:
        tied = [0.5, 0.5, 0.1, 0.5]
        labels = [1.5e-323, 0.0, 1e-323, TINY]
        want = exact(labels, tied, "DCG", ties=ties)
        assert rw.dcg([labels], [tied], ties=ties) == float(want), ties
    # One smallest gain far down: 5e-324 / log2(101) is below half a step, so the DCG is 0.
    labels, scores = [0.0] * 99 + [TINY], np.linspace(1, 0, 100)
    assert float(exact(labels, scores, "DCG", ties="stable")) == 0.0
    assert rw.dcg([labels], [scores]) == 0.0
    # ... and a gain as large beside it does not make the other underflow with it.
    labels[0] = TINY
    assert rw.dcg([labels], [scores]) == float(exact(labels, scores, "DCG", ties="stable")) == TINY


@pytest.mark.parametrize("ties", POLICIES)
@pytest.mark.parametrize("n", [12, 200])
def test_the_top_k_paths(ties, n):
    # Lists longer than the cutoff take the top-k path: one heap (collect_top), or block maxima
    # once they are 16 times longer (collect_top_blocks). Few ties, so that the expectation's
    # reference can enumerate the orderings.
    rng = np.random.default_rng(n)
    scores = rng.permutation(n).astype(np.float64)
    scores[rng.choice(n, 3, replace=False)] = n // 2 + 0.5  # a group of three tied
    for labels in [np.where(rng.random(n) < 0.3, 1e-320 * rng.integers(1, 50, n), 0.0),
                   np.where(rng.random(n) < 0.3, rng.choice([TINY, 1e-310, 1e-300, 1.0], n), 0.0)]:
        doc_ids = _doc_ids(n)
        for k in [1, 3, 5]:
            names = [f"nDCG@{k}", f"DCG@{k}"]
            res = rw.evaluate([labels], [scores], names, ties=ties,
                              doc_ids=[doc_ids] if ties == "trec" else None)
            for name in names:
                want = exact(labels.tolist(), scores.tolist(), name.split("@")[0], k, ties, doc_ids=doc_ids)
                assert_exact(res[name][0], want, name)


@pytest.mark.parametrize("ties", POLICIES)
def test_ndcg_is_invariant_under_a_power_of_two(ties, rng):
    # Labels that are multiples of 1/8 below 2**11 stay exact times 2**-1060 (multiples of
    # 2**-1063): the same nDCG to rounding, and a DCG that is the scaled one, rounded once.
    doc_ids = _doc_ids(60)
    for _ in range(20):
        labels = np.where(rng.random(60) < 0.4, rng.integers(1, 2**14, 60) / 8, 0.0)
        scores = rng.integers(0, 20, 60).astype(np.float64)
        small = np.ldexp(labels, -1060)
        assert np.array_equal(np.ldexp(small, 1060), labels)
        names = ["nDCG", "nDCG@5", "DCG", "DCG@5"]
        kwargs = {"ties": ties, "doc_ids": [doc_ids] if ties == "trec" else None}
        big_res, small_res = rw.evaluate([labels], [scores], names, **kwargs), rw.evaluate([small], [scores], names,
                                                                                          **kwargs)
        for name in ["nDCG", "nDCG@5"]:
            assert small_res[name][0] == pytest.approx(big_res[name][0], rel=1e-15, abs=0)
        for name in ["DCG", "DCG@5"]:
            assert abs(small_res[name][0] - math.ldexp(big_res[name][0], -1060)) <= TINY


def test_graded_rbp_of_labels_far_below_max_grade():
    # Graded RBP sums label / max_grade: subnormal for labels 2**1022 below it. With p = 1/2
    # the position weights are exact powers of two, so the reference is exact.
    labels, scores = [1e-310, 0.0, 3e-320, TINY, 2e-315], [0.9, 0.8, 0.7, 0.7, 0.1]
    for ties in ["expected", "optimistic", "pessimistic", "stable"]:
        for max_grade in [3.0, 1e10, 1e300]:
            for k in [None, 3]:
                got = rw.rbp([labels], [scores], p=0.5, graded=True, max_grade=max_grade, ties=ties, k=k)
                rankings = ref.rankings(scores, labels, ties)
                want = sum((sum((Fraction(label) / Fraction(max_grade) * Fraction(1, 2**i)
                                 for i, label in enumerate(r[:k], start=1)), Fraction(0)) for r in rankings),
                           Fraction(0)) / len(rankings)
                assert_exact(got, want, (ties, max_grade, k))


# ---------------------------------------------------------------- trec_eval's nDCG

def _trec_gain(label, pairs):
    """trec_eval's gain of a relevance value (-1: absent from the qrels, -2: judged negative)."""
    if label == int(label) and int(label) in pairs:
        return Fraction(pairs[int(label)])
    return Fraction(label) if label > 0 else Fraction(0)


def trec_exact(judged, ranked, root, k=None, pairs=None, tied=()):
    """trec_eval's ndcg (custom gains ``pairs``) or ndcg_cut.k, exactly: DCG of the run's documents
    in rank order (``ranked``; the positions in ``tied`` hold one tie group, averaged over its
    orderings) over the ideal DCG of the judged documents' positive gains."""
    pairs = pairs or {}

    def relevance(doc):
        label = judged.get(doc, -1.0)
        return -2.0 if label < 0 and doc in judged else label

    def gain(doc):
        label = relevance(doc)
        return _trec_gain(label, pairs) if root == "ndcg" else Fraction(max(label, 0.0))

    def dcg(order):
        return sum((gain(d) * _discount(r) for r, d in enumerate(order[:k], start=1)), Fraction(0))

    if tied:
        orders = []
        for perm in itertools.permutations([ranked[i] for i in tied]):
            order = list(ranked)
            for i, d in zip(tied, perm, strict=True):
                order[i] = d
            orders.append(order)
        value = sum((dcg(o) for o in orders), Fraction(0)) / len(orders)
    else:
        value = dcg(ranked)
    gains = [_trec_gain(v, pairs) if root == "ndcg" else Fraction(v) for v in judged.values() if v >= 0]
    ideal = sorted((g for g in gains if g > 0), reverse=True)[:k]
    best = sum((g * _discount(r) for r, g in enumerate(ideal, start=1)), Fraction(0))
    return value / best if best else Fraction(0)


TREC_QUERIES = {
    # qid: ({doc: relevance}, [retrieved docs in rank order])
    1: ({10: 1.5e-323, 11: 0.0, 12: 5e-324, 13: 1e-320}, [11, 10, 14, 12, 13]),
    2: ({20: 1e-300, 21: 1e-320, 22: 2e-320, 23: 1.0}, [21, 22, 20, 24, 23]),
    3: ({30: 2.0, 31: 1.0, 32: 0.0, 33: -1.0}, [33, 32, 31, 35, 30]),
}
CUSTOM = ["ndcg.1=1e-320,2=5e-324", "ndcg.1=-1e-320,2=5e-324", "ndcg.-1=3e-322,1=1e-318,2=2.5e-323",
          "ndcg.-2=1e-321,1=1.0"]
# trec_eval 10.0 prints 0.0000 for query 3 (integral labels 2, 1, 0, -1) under these: its gain sort
# compares gains through a C int, so gains less than 1 apart are equal, the levels keep their given
# order (the pairs, then level 0) and the ideal ranking, read from the end, starts at level 0, of
# gain 0: it is empty (checked with the trec_eval 10.0 binary; README, "trec_eval's quirks").
TREC_EVAL_ZERO = {(3, text) for text in CUSTOM[:3]}


def _trec_inputs(queries, tied=()):
    qrels = [(q, d, v) for q, (judged, _) in queries.items() for d, v in judged.items()]
    run = []
    for q, (_, ranked) in queries.items():
        for r, d in enumerate(ranked):
            run.append((q, d, 100.0 - (tied[0] if r in tied else r)))  # tied: consecutive positions
    qrels, run = np.array(qrels), np.array(run)
    return (rw.Qrels.from_arrays(qrels[:, 0].astype(np.int64), qrels[:, 1].astype(np.int64), qrels[:, 2]),
            rw.Run.from_arrays(run[:, 0].astype(np.int64), run[:, 1].astype(np.int64), run[:, 2]))


@pytest.mark.parametrize("ties, tied", [("trec", ()), ("expected", ()), ("expected", (1, 2, 3))])
def test_trec_eval_ndcg_of_subnormal_relevance(ties, tied):
    qrels, run = _trec_inputs(TREC_QUERIES, tied)
    res = rw.trec_eval(qrels, run, ["ndcg", "ndcg_cut.1,2,3,1000", *CUSTOM], ties=ties)
    assert res.query_ids.tolist() == list(TREC_QUERIES)
    for q, (judged, ranked) in enumerate(TREC_QUERIES.values()):
        assert_exact(res["ndcg"][q], trec_exact(judged, ranked, "ndcg", tied=tied), (q, "ndcg"))
        for k in [1, 2, 3, 1000]:
            assert_exact(res[f"ndcg_cut_{k}"][q], trec_exact(judged, ranked, "ndcg_cut", k, tied=tied), (q, k))
        for text in CUSTOM:
            pairs = {int(a): float(b) for a, b in (p.split("=") for p in text[5:].split(","))}
            name = text.replace(".", "_", 1)
            if (list(TREC_QUERIES)[q], text) in TREC_EVAL_ZERO:
                assert res[name][q] == 0.0, (q, text)
                continue
            assert_exact(res[name][q], trec_exact(judged, ranked, "ndcg", pairs=pairs, tied=tied), (q, text))


def test_trec_eval_query_absent_from_the_run():
    # complete=True: a query the run lacks gets the gain of level -1 at rank 1 over its ideal DCG.
    qrels = rw.Qrels.from_arrays(np.array([1, 1, 2]), np.array([10, 11, 20]), np.array([1e-320, 3e-321, 1.0]))
    run = rw.Run.from_arrays(np.array([2]), np.array([20]), np.array([1.0]))
    for text, gain in [("ndcg.-1=5e-324", TINY), ("ndcg.-1=1e-300", 1e-300), ("ndcg.-1=-2e-322", -2e-322)]:
        res = rw.trec_eval(qrels, run, [text], complete=True)
        name = text.replace(".", "_", 1)
        ideal = Fraction(1e-320) + Fraction(3e-321) * _discount(2)
        assert_exact(res[name][0], Fraction(gain) / ideal, text)


# ---------------------------------------------------------------- ERR of small grades

def _stop_probability(label, max_grade):
    with mpmath.workprec(600):
        return mpmath.expm1(mpmath.mpf(label) * mpmath.ln2) / mpmath.power(2, mpmath.mpf(max_grade))


@pytest.mark.parametrize("labels, scores", [
    ([1e-17, 0.0], [0.9, 0.5]), ([1e-10, 0.0, 5e-11], [0.9, 0.5, 0.1]), ([0.5, 1e-300, 0.25], [0.9, 0.5, 0.1]),
    ([3.0, 1e-12, 1.5], [0.9, 0.5, 0.1]), ([1e-10, 0.0, 5e-11, 1e-12], [0.5, 0.5, 0.5, 0.1]),
    ([2e-9, 1e-10, 0.0, 3e-10, 0.0], [0.7, 0.7, 0.7, 0.2, 0.2]), ([1e-320, 0.0, 5e-324], [0.5, 0.5, 0.5]),
])
@pytest.mark.parametrize("ties", ["expected", "optimistic", "pessimistic", "stable"])
@pytest.mark.parametrize("k", [None, 2])
def test_err_of_small_grades_has_no_cancellation(labels, scores, ties, k):
    # R = (2**g - 1) / 2**g_max: as exp2(g - g_max) - exp2(-g_max), both terms are near 1 when
    # g_max is small and their difference kept only a few digits (1e-17 gave 0); the
    # expectation over ties took differences of survival probabilities near 1 as well.
    got = rw.err([labels], [scores], k=k, ties=ties)
    rankings = ref.rankings(scores, labels, ties)
    with mpmath.workprec(600):
        want = mpmath.mpf(0)
        for ranking in rankings:
            survive = mpmath.mpf(1)
            for rank, label in enumerate(ranking[:k], start=1):
                r = _stop_probability(label, max(labels))
                want += survive * r / rank
                survive *= 1 - r
        want /= len(rankings)
        # Subnormal stop probabilities (the last case) round to the subnormal grid at every
        # step: a few of its units, far below anything a value in [0, 1] can show.
        assert abs(mpmath.mpf(got) - want) <= abs(want) * 2.0**-48 + 8 * 2.0**-1074, (got, want)
