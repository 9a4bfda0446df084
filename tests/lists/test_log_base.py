"""DCG's logarithm base (``log_base=``): against scikit-learn's dcg_score, the brute-force
reference under every tie policy, and nDCG's independence of it."""
import math

import numpy as np
import pytest

import rankwise as rw
from rankwise.testing import lists as ref

sklearn_metrics = pytest.importorskip("sklearn.metrics")

BASES = [1.0001, 1.5, math.e, 3, 10, 1e300]


def _data(seed=0, shape=(40, 12)):
    rng = np.random.default_rng(seed)
    # Integer scores from a few values: many ties, which scikit-learn averages over as
    # ties="expected" does.
    return rng.integers(0, 4, shape), rng.integers(0, 5, shape).astype(np.float64)


@pytest.mark.parametrize("base", BASES)
@pytest.mark.parametrize("k", [None, 1, 5])
def test_dcg_equals_sklearn_dcg_score(base, k):
    y_true, y_score = _data()
    ours = rw.dcg(y_true, y_score, k=k, log_base=base, per_query=True)
    theirs = [sklearn_metrics.dcg_score(y_true[i:i + 1], y_score[i:i + 1], k=k, log_base=base)
              for i in range(y_true.shape[0])]
    np.testing.assert_allclose(ours, theirs, rtol=4e-15, atol=0)
    assert rw.dcg(y_true, y_score, k=k, log_base=base) == pytest.approx(
        sklearn_metrics.dcg_score(y_true, y_score, k=k, log_base=base), rel=4e-15)


@pytest.mark.parametrize("ties", ["expected", "optimistic", "pessimistic", "stable", "trec"])
def test_dcg_against_reference_under_every_policy(ties):
    rng = np.random.default_rng(1)
    for _ in range(25):
        n = int(rng.integers(1, 7))
        labels, scores = rng.integers(0, 3, n), rng.integers(0, 3, n).astype(float)
        doc_ids = [f"d{i}" for i in rng.permutation(n)] if ties == "trec" else None
        for base in (3.0, 1.5):
            got = rw.evaluate([labels], [scores], ["DCG", "DCG@2"], ties=ties, log_base=base,
                              doc_ids=doc_ids)
            for name, k in (("DCG", None), ("DCG@2", 2)):
                want = ref.metric(scores, labels, "DCG", k, ties=ties, doc_ids=doc_ids, log_base=base)
                assert got[name][0] == pytest.approx(want, rel=1e-14, abs=1e-300)


def test_ndcg_does_not_depend_on_the_base():
    y_true, y_score = _data(2)
    names = ["nDCG", "nDCG@3", "nDCG(ideal=all)@3", "nDCG(gain=exponential)@5"]
    base2 = rw.evaluate(y_true, y_score, names)
    for base in BASES:
        other = rw.evaluate(y_true, y_score, names, log_base=base)
        for name in names:
            np.testing.assert_array_equal(other[name], base2[name])


def test_base_two_is_the_default_bit_for_bit():
    y_true, y_score = _data(3)
    np.testing.assert_array_equal(rw.dcg(y_true, y_score, per_query=True),
                                  rw.dcg(y_true, y_score, log_base=2.0, per_query=True))


def test_every_entry_point_takes_it():
    y_true, y_score = _data(4, (6, 5))
    want = rw.evaluate(y_true, y_score, ["DCG@3", "nDCG@3"], ties="stable", log_base=10)
    acc = rw.Accumulator(["DCG@3", "nDCG@3"], ties="stable", log_base=10).update(y_true, y_score)
    assert acc.options["log_base"] == 10 and "log_base=10" in repr(acc)
    np.testing.assert_array_equal(acc.result()["DCG@3"], want["DCG@3"])
    recommended = np.argsort(-y_score, axis=1, kind="stable")[:, :3]
    topk = rw.evaluate_topk(y_true, recommended, ["DCG@3", "nDCG@3"], log_base=10)
    np.testing.assert_allclose(topk["DCG@3"], want["DCG@3"], rtol=1e-15)
    np.testing.assert_array_equal(topk["nDCG@3"],
                                  rw.evaluate_topk(y_true, recommended, ["nDCG@3"])["nDCG@3"])


@pytest.mark.parametrize("bad, error", [(1, ValueError), (0.5, ValueError), (0, ValueError), (-2, ValueError),
                                        (math.nan, ValueError), (math.inf, ValueError), ("2", TypeError),
                                        (True, TypeError), (None, TypeError)])
def test_bad_base_is_refused_by_name(bad, error):
    y_true, y_score = _data(5, (2, 3))
    calls = [lambda: rw.evaluate(y_true, y_score, ["DCG"], log_base=bad),
             lambda: rw.dcg(y_true, y_score, log_base=bad),
             lambda: rw.Accumulator(["DCG"], log_base=bad),
             lambda: rw.evaluate_topk(y_true, [[0, 1]] * 2, ["DCG@2"], log_base=bad)]
    for call in calls:
        with pytest.raises(error, match="log_base"):
            call()


def test_a_sum_beyond_float64_is_an_error_not_inf():
    with pytest.raises(ValueError, match="log_base"):
        rw.dcg([[1e306, 1e306]], [[1.0, 0.5]], log_base=1e300)
