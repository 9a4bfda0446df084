"""ExactSum against math.fsum and exact fractions, and the means built on it."""
import math
import pickle
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankwise as rw
from rankwise._core.exact import ExactSum

finite = st.floats(allow_nan=False, allow_infinity=False)


def _fsum(values):
    """math.fsum, or None where its partial sums overflow (ExactSum gives IEEE's infinity there)."""
    try:
        return math.fsum(values)
    except OverflowError:
        return None


def _magnitudes(rng, n):
    """Values over the whole float64 range, subnormals included, of both signs."""
    kind = rng.integers(4)
    if kind == 0:
        return rng.standard_normal(n)
    if kind == 1:
        return rng.standard_normal(n) * 10.0 ** rng.integers(-300, 300, n)
    if kind == 2:  # cancellation near the top of the range
        return np.concatenate([rng.random(n), -rng.random(n)]) * 1e308
    return (rng.random(n) * 2 - 1) * 2.0 ** rng.integers(-1074, -1000, n)


@given(st.lists(finite, max_size=60))
@settings(max_examples=300, deadline=None)
def test_sum_is_fsum(values):
    expected = _fsum(values)
    if expected is not None:
        assert ExactSum.of(np.array(values, dtype=np.float64)).sums() == [expected]


def test_random_magnitudes_splits_and_merges():
    rng = np.random.default_rng(7)
    for _ in range(200):
        values = _magnitudes(rng, int(rng.integers(0, 3000)))
        whole = ExactSum.of(values).sums()
        expected = _fsum(values)
        if expected is not None:
            assert whole == [expected]
        shuffled = values[rng.permutation(values.size)]
        merged = ExactSum(1)
        for part in np.array_split(shuffled, int(rng.integers(1, 9))):
            merged.merge(pickle.loads(pickle.dumps(ExactSum.of(part))))
        assert merged.sums() == whole


def test_mean_is_fsum_over_count_and_skips_nan():
    values = np.array([0.1, 0.2, np.nan, 0.3, 1e-17])
    exact = ExactSum.of(values)
    assert exact.counts.tolist() == [4]
    valid = values[~np.isnan(values)]
    assert exact.means() == [math.fsum(valid) / 4]
    assert Fraction(exact.sums()[0]) == Fraction(float(sum(map(Fraction, valid))))


def test_columns_are_independent_and_threads_do_not_matter():
    rng = np.random.default_rng(3)
    table = np.stack([_magnitudes(rng, 200_000) for _ in range(3)], axis=1)
    table[rng.random(table.shape) < 0.1] = np.nan
    sums = ExactSum.of(table)
    for j in range(3):
        column = table[:, j]
        assert sums.sums()[j] == ExactSum.of(column).sums()[0]
        assert sums.counts[j] == np.count_nonzero(~np.isnan(column))
        expected = _fsum(column[~np.isnan(column)])
        if expected is not None:
            assert sums.sums()[j] == expected
    # Non-contiguous columns (a view) read as the copy does.
    assert ExactSum.of(table[::3, ::2]).sums() == ExactSum.of(np.ascontiguousarray(table[::3, ::2])).sums()


def test_infinities_overflow_and_empty():
    assert ExactSum.of(np.array([np.inf, 1.0, np.nan])).sums() == [math.inf]
    assert ExactSum.of(np.array([-np.inf, 1.0])).sums() == [-math.inf]
    assert math.isnan(ExactSum.of(np.array([np.inf, -np.inf])).sums()[0])
    # Partial sums beyond float64 that cancel are still exact; a total beyond it rounds to inf.
    assert ExactSum.of(np.array([1.7e308, 1.7e308, -1.7e308])).sums() == [1.7e308]
    assert ExactSum.of(np.array([1.7e308, 1.7e308])).sums() == [math.inf]
    assert ExactSum.of(np.array([-1.7e308, -1.7e308])).sums() == [-math.inf]
    assert ExactSum.of(np.array([5e-324, 5e-324])).sums() == [1e-323]
    empty = ExactSum.of(np.zeros((0, 2)))
    assert empty.sums() == [0.0, 0.0] and all(math.isnan(m) for m in empty.means())


def test_inputs_are_left_alone_and_bad_input_is_named():
    values = np.array([1.0, 2.0])
    values.flags.writeable = False
    assert ExactSum.of(values).sums() == [3.0]
    assert ExactSum.of(np.array([1, 2], dtype=np.int64)).sums() == [3.0]
    assert ExactSum.of(np.array([0.5], dtype=np.float32)).sums() == [0.5]
    with pytest.raises(ValueError, match="1-D or 2-D array of numbers"):
        ExactSum.of(np.array(["a"]))
    with pytest.raises(ValueError, match="1-D or 2-D"):
        ExactSum.of(np.zeros((2, 2, 2)))
    with pytest.raises(ValueError, match="3 columns, this ExactSum sums 2"):
        ExactSum(2).add(np.zeros((4, 3)))
    with pytest.raises(ValueError, match="cannot merge an ExactSum of 1 columns into one of 2"):
        ExactSum(2).merge(ExactSum(1))
    with pytest.raises(TypeError, match="merge takes an ExactSum"):
        ExactSum(1).merge([1.0])


def test_evaluate_mean_does_not_depend_on_query_order_or_threads():
    rng = np.random.default_rng(11)
    n_queries, size = 3000, 20
    qid = np.repeat(np.arange(n_queries), size)
    y_true = rng.integers(0, 3, qid.size)
    y_score = rng.random(qid.size)
    metrics = ["MAP", "nDCG@10", "RR", "P@5", "ERR@10"]
    res = rw.evaluate(y_true, y_score, metrics, qid=qid, n_threads=1)
    order = rng.permutation(qid.size)
    shuffled = rw.evaluate(y_true[order], y_score[order], metrics, qid=qid[order], n_threads=2)
    assert shuffled.mean() == res.mean()
    for name in metrics:
        assert res.mean()[name] == math.fsum(res[name]) / n_queries
        assert rw.evaluate(y_true, y_score, name, qid=qid).mean()[name] == res.mean()[name]


def test_rank_metric_means_are_exact_and_order_free():
    rng = np.random.default_rng(5)
    greater = rng.integers(0, 1000, 5000)
    equal = rng.integers(0, 3, 5000)
    ranks = rw.Ranks(greater, equal, n_candidates=greater + equal + 1 + rng.integers(0, 50, 5000))
    order = rng.permutation(5000)
    shuffled = rw.Ranks(greater[order], equal[order], ranks.n_candidates[order])
    metrics = ["MR", "MRR", "Hits@10", "AMRI", "z_MRR", "E[GMR]"]
    assert rw.rank_metrics(ranks, metrics) == rw.rank_metrics(shuffled, metrics)
    assert (rw.rank_metrics(ranks, ["GMR", "HMR"], ties="realistic")
            == rw.rank_metrics(shuffled, ["GMR", "HMR"], ties="realistic"))
    realistic = (ranks.optimistic + ranks.pessimistic) / 2
    assert rw.rank_metrics(ranks, "MR", ties="realistic")["MR"] == math.fsum(realistic) / 5000
