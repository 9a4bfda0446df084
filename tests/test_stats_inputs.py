"""rw.compare's inputs: alignment by query id, degenerate data, NaN, bad arguments."""
import numpy as np
import pytest

import rankwise as rw

TESTS = ("randomization", "t", "wilcoxon", "sign", "bootstrap")
ALTERNATIVES = ("two-sided", "greater", "less")


# --------------------------------------------------------------------------------------
# Degenerate inputs
# --------------------------------------------------------------------------------------

@pytest.mark.parametrize("test", TESTS)
@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_identical_systems_give_p_one(test, alternative, rng):
    a = rng.random(40)
    res = rw.compare(a, a.copy(), test=test, alternative=alternative, seed=0)
    assert res.pvalue == 1.0
    assert res.mean_difference == 0.0
    assert np.isnan(res.effect_size)
    low, high = res.confidence_interval
    assert (low == 0.0 or low == -np.inf) and (high == 0.0 or high == np.inf)


@pytest.mark.parametrize("test", TESTS)
def test_roundoff_differences_are_zero(test):
    # 0.1 + 0.2 and 0.3 are the same value computed two ways.
    a = np.array([0.1 + 0.2, 0.7, 1 / 3])
    b = np.array([0.3, 0.7, 1 - 2 / 3])
    assert (a != b).any()
    res = rw.compare(a, b, test=test, seed=0)
    assert res.pvalue == 1.0 and res.mean_difference == 0.0


@pytest.mark.parametrize("test", TESTS)
def test_one_query_is_an_error(test):
    with pytest.raises(ValueError, match="at least 2 queries, got 1"):
        rw.compare([0.5], [0.2], test=test)
    with pytest.raises(ValueError, match="at least 2 queries, got 0"):
        rw.compare([], [], test=test)


@pytest.mark.parametrize("test", TESTS)
def test_two_queries_work(test):
    res = rw.compare([0.5, 0.9], [0.2, 0.1], test=test, seed=0)
    assert 0 < res.pvalue <= 1 and res.n == 2


def test_constant_nonzero_differences():
    a, b = np.full(6, 0.7), np.full(6, 0.5)   # d = 0.2 everywhere (up to roundoff)
    t = rw.compare(a, b, test="t")
    assert t.statistic == np.inf and t.pvalue == 0.0 and t.effect_size == np.inf
    assert t.confidence_interval == (pytest.approx(0.2), pytest.approx(0.2))
    assert rw.compare(a, b, test="t", alternative="less").pvalue == 1.0
    assert rw.compare(a, b, test="t", alternative="greater").pvalue == 0.0
    assert rw.compare(a, b).pvalue == 2 / 64               # exact: all + or all -
    boot = rw.compare(a, b, test="bootstrap", seed=1)
    assert boot.confidence_interval == (pytest.approx(0.2), pytest.approx(0.2))
    assert boot.pvalue == 1 / 10_001
    assert rw.compare(b, a, test="t").effect_size == -np.inf


@pytest.mark.parametrize("test", TESTS)
def test_nan_is_an_error_naming_the_input_and_query(test):
    with pytest.raises(ValueError, match=r"b is NaN at position 1.*nan_policy='omit'"):
        rw.compare([0.1, 0.2, 0.3], [0.1, np.nan, 0.0], test=test)
    with pytest.raises(ValueError, match=r"a is NaN at query 'q2'"):
        rw.compare({"q1": 0.1, "q2": np.nan}, {"q1": 0.0, "q2": 0.0}, test=test)


def test_nan_policy_omit_drops_the_pair(rng):
    a, b = rng.random(30), rng.random(30)
    a_nan, b_nan = a.copy(), b.copy()
    a_nan[3], b_nan[7] = np.nan, np.nan
    keep = np.ones(30, dtype=bool)
    keep[[3, 7]] = False
    for test in TESTS:
        got = rw.compare(a_nan, b_nan, test=test, nan_policy="omit", seed=2)
        want = rw.compare(a[keep], b[keep], test=test, seed=2)
        assert got.n == 28 and got.pvalue == want.pvalue and got.statistic == want.statistic


def test_infinite_values_are_an_error():
    with pytest.raises(ValueError, match="a is inf at position 0; values must be finite"):
        rw.compare([np.inf, 0.2], [0.1, 0.2])
    with pytest.raises(ValueError, match="finite"):
        rw.compare([0.1, 0.2], [0.1, -np.inf], nan_policy="omit")


def test_skipped_queries_of_results(rng):
    y_true = [[1, 0, 0], [0, 0, 0], [0, 1, 0], [0, 0, 1]]
    res_a = rw.evaluate(y_true, rng.random((4, 3)), ["MAP"], empty="skip")
    res_b = rw.evaluate(y_true, rng.random((4, 3)), ["MAP"], empty="skip")
    with pytest.raises(ValueError, match="query 1.*empty='skip'"):
        rw.compare(res_a, res_b)
    assert rw.compare(res_a, res_b, nan_policy="omit").n == 3


# --------------------------------------------------------------------------------------
# Alignment by query id
# --------------------------------------------------------------------------------------

@pytest.mark.parametrize("test", TESTS)
def test_shuffled_ids_give_the_same_result(test, rng):
    ids = [f"q{i:03d}" for i in range(200)]
    a, b = rng.random(200), rng.random(200)
    base = rw.compare(dict(zip(ids, a, strict=True)), dict(zip(ids, b, strict=True)), test=test, seed=4)
    order_a, order_b = rng.permutation(200), rng.permutation(200)
    shuffled = rw.compare({ids[i]: a[i] for i in order_a}, {ids[i]: b[i] for i in order_b}, test=test, seed=4)
    assert shuffled.pvalue == base.pvalue
    assert shuffled.statistic == base.statistic
    assert shuffled.confidence_interval == base.confidence_interval
    # Ids are sorted first, so arrays in sorted order are the same comparison.
    assert rw.compare(a, b, test=test, seed=4).pvalue == base.pvalue


def test_alignment_is_by_id_not_by_position():
    a = {"x": 0.9, "y": 0.1, "z": 0.5}
    b = {"z": 0.5, "y": 0.3, "x": 0.8}
    by_id = rw.compare(a, b, test="t").statistic
    assert by_id == rw.compare([0.9, 0.1, 0.5], [0.8, 0.3, 0.5], test="t").statistic
    assert by_id != rw.compare(list(a.values()), list(b.values()), test="t").statistic


def test_integer_ids_and_pandas_series(rng):
    pd = pytest.importorskip("pandas")
    a = pd.Series([0.2, 0.4, 0.9, 0.3], index=[10, 3, 7, 1])
    b = {1: 0.1, 3: 0.5, 7: 0.2, 10: 0.2}
    res = rw.compare(a, b, test="t")
    want = rw.compare([0.3, 0.4, 0.9, 0.2], [0.1, 0.5, 0.2, 0.2], test="t")
    assert res.statistic == want.statistic and res.n == 4
    # ids compare as given: the string "1" is not the integer 1.
    with pytest.raises(ValueError, match="different queries"):
        rw.compare(a, {str(k): v for k, v in b.items()})


def test_query_set_mismatch_is_an_error_unless_intersect():
    a = {"q1": 0.5, "q2": 0.6, "q3": 0.1, "q4": 0.4}
    b = {"q2": 0.3, "q3": 0.2, "q4": 0.1, "q5": 0.9}
    with pytest.raises(ValueError, match=r"1 in a only \(e.g. 'q1'\); 1 in b only \(e.g. 'q5'\).*"
                                         r"on_missing='intersect'.*3 queries"):
        rw.compare(a, b)
    res = rw.compare(a, b, on_missing="intersect", test="t")
    assert res.n == 3
    assert res.mean_difference == pytest.approx(np.mean([0.3, -0.1, 0.3]))
    with pytest.raises(ValueError, match="no query id in common"):
        rw.compare({"a": 1.0}, {"b": 1.0}, on_missing="intersect")


def test_results_are_aligned_by_query_id(rng):
    qid_a = np.repeat(np.array(["b", "a", "c", "d"]), 3)
    qid_b = np.repeat(np.array(["d", "c", "b", "a"]), 3)
    y_true = rng.integers(0, 2, 12)
    res_a = rw.evaluate(y_true, rng.random(12), ["MRR", "P@1"], qid=qid_a)
    res_b = rw.evaluate(y_true, rng.random(12), ["MRR", "P@1"], qid=qid_b)
    got = rw.compare(res_a, res_b, metric="MRR", test="t")
    per_a = dict(zip(res_a.query_ids.tolist(), res_a["MRR"], strict=True))
    per_b = dict(zip(res_b.query_ids.tolist(), res_b["MRR"], strict=True))
    assert got.mean_difference == pytest.approx(np.mean([per_a[q] - per_b[q] for q in "abcd"]))
    with pytest.raises(ValueError, match=r"a holds 2 metrics \(MRR, P@1\); pass metric="):
        rw.compare(res_a, res_b)
    with pytest.raises(ValueError, match="a has no metric 'nDCG'"):
        rw.compare(res_a, res_b, metric="nDCG")
    # Aliases resolve as in Results.__getitem__.
    assert rw.compare(res_a, res_b, metric="RR", test="t").statistic == got.statistic


def test_trec_results_are_aligned_by_query_id():
    from rankwise.trec import read_example

    qrels, run = read_example()
    res = rw.trec_eval(qrels, run, ["map", "P.5"])
    complete = rw.trec_eval(qrels, run, ["map", "P.5"], complete=True)
    with pytest.raises(ValueError, match=r"1 in b only \(e.g. '411'\)"):
        rw.compare(res, complete, metric="map")
    assert rw.compare(res, complete, metric="map", on_missing="intersect").pvalue == 1.0


def test_mixing_ids_and_positions_is_an_error():
    with pytest.raises(TypeError, match="b is a plain array but the other input carries query ids"):
        rw.compare({"q1": 0.1, "q2": 0.2}, [0.1, 0.2])


def test_duplicate_ids_are_an_error():
    pd = pytest.importorskip("pandas")
    with pytest.raises(ValueError, match="a has query id 'q1' twice"):
        rw.compare(pd.Series([0.1, 0.2, 0.3], index=["q1", "q2", "q1"]), {"q1": 0.1, "q2": 0.2})


def test_lengths_must_match():
    with pytest.raises(ValueError, match=r"same length.*3 \(a\) and 2 \(b\)"):
        rw.compare([0.1, 0.2, 0.3], [0.1, 0.2])


def test_inputs_are_not_modified(rng):
    a, b = rng.random(50), rng.random(50)
    a.flags.writeable = False
    keep_a, keep_b = a.copy(), b.copy()
    for test in TESTS:
        rw.compare(a, b, test=test, seed=0)
    rw.mann_whitney(a, b)
    p = np.array([0.3, 0.01, 0.2])
    rw.correct(p, "bh")
    np.testing.assert_array_equal(a, keep_a)
    np.testing.assert_array_equal(b, keep_b)
    np.testing.assert_array_equal(p, [0.3, 0.01, 0.2])


def test_integer_and_bool_values(rng):
    hits_a = rng.random(30) < 0.6
    hits_b = rng.random(30) < 0.4
    got = rw.compare(hits_a, hits_b, test="t")
    assert got.statistic == rw.compare(hits_a.astype(float), hits_b.astype(float), test="t").statistic
    assert rw.compare([3, 1, 4, 1], [2, 7, 1, 8], test="t").n == 4


# --------------------------------------------------------------------------------------
# Bad arguments
# --------------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, error, message", [
    ({"test": "ttest"}, ValueError, r"test must be one of 'randomization', 't', .*got 'ttest'"),
    ({"test": "boostrap"}, ValueError, "did you mean 'bootstrap'"),
    ({"test": "permutation"}, ValueError, "test must be one of"),
    ({"alternative": "two_sided"}, ValueError, "did you mean 'two-sided'"),
    ({"n_resamples": 0}, ValueError, "n_resamples must be at least 1"),
    ({"n_resamples": 1000.0}, TypeError, "n_resamples must be an integer"),
    ({"n_resamples": True}, TypeError, "n_resamples must be an integer"),
    ({"confidence": 95}, ValueError, r"confidence must be in \(0, 1\)"),
    ({"confidence": "high"}, TypeError, "confidence must be a number"),
    ({"seed": -1}, ValueError, "seed must be a non-negative integer"),
    ({"seed": 1.5}, TypeError, "seed must be a non-negative integer"),
    ({"seed": "x"}, TypeError, "seed must be"),
    ({"on_missing": "drop"}, ValueError, "on_missing must be one of"),
    ({"nan_policy": "propagate"}, ValueError, "nan_policy must be one of"),
    ({"ci_method": "normal"}, ValueError, "ci_method must be one of"),
    ({"zero_method": "drop"}, ValueError, "zero_method must be one of"),
    ({"n_threads": 0}, ValueError, "n_threads must be non-zero"),
    ({"metric": "MAP"}, TypeError, "neither input is one"),
])
def test_bad_arguments(kwargs, error, message):
    options = {"n_resamples": 100, **kwargs}
    with pytest.raises(error, match=message):
        # Randomized (n = 70 > log2 of n_resamples), so that seed and threads are used.
        rw.compare(np.linspace(0, 1, 70), np.linspace(1, 0, 70), **options)


@pytest.mark.parametrize("value, error, message", [
    (["a", "b"], TypeError, "a must hold numbers, got dtype <U1"),
    ([[0.1, 0.2], [0.3, 0.4]], ValueError, r"a must be 1-D \(one value per query\), got shape \(2, 2\)"),
    (0.5, ValueError, "a must be 1-D"),
    ([0.1, None], TypeError, "a must hold numbers, got dtype object"),
    ([1 + 2j, 0], TypeError, "a must hold numbers"),
])
def test_bad_values(value, error, message):
    with pytest.raises(error, match=message):
        rw.compare(value, [0.1, 0.2])


def test_mann_whitney_bad_arguments():
    with pytest.raises(ValueError, match="alternative must be one of"):
        rw.mann_whitney([1, 2], [3, 4], alternative="bigger")
    with pytest.raises(ValueError, match="b is NaN at position 0"):
        rw.mann_whitney([1, 2], [np.nan, 4])
    with pytest.raises(TypeError, match="b must hold numbers"):
        rw.mann_whitney([1, 2], ["x"])
