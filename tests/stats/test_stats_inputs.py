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
    assert res.effect_size == 0.0                  # defined: no effect (mean 0 / sd 0 is not NaN)
    if test in ("t", "wilcoxon", "sign"):
        assert res.statistic == 0.0
    # [0, 0], open on the side of a one-sided alternative.
    want = {"two-sided": (0.0, 0.0), "greater": (0.0, np.inf), "less": (-np.inf, 0.0)}[alternative]
    assert tuple(res.confidence_interval) == want


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


@pytest.mark.parametrize("other, shown, kinds", [
    ({b"q1": 0.1, b"q2": 0.5}, "b'q1', b'q2'", "text in a, bytes in b"),
    ({1: 0.1, 2: 0.5}, "1, 2", "text in a, numbers in b"),
])
def test_ids_of_different_kinds_are_different_queries(other, shown, kinds):
    # b"q1" is not the query "q1" (nor 1 the query "1"): the query sets differ, with examples
    # of each, and the error says why nothing matches (intersecting would not help).
    a = {"q1": 0.5, "q2": 0.6}
    with pytest.raises(ValueError) as info:
        rw.compare(a, other)
    message = str(info.value)
    assert message.startswith(f"the inputs cover different queries: 2 in a only (e.g. 'q1', 'q2'); 2 in b only "
                              f"(e.g. {shown}); the ids are {kinds}, which never equal each other"), message
    assert message.endswith("they share no query, so on_missing='intersect' cannot help either"), message
    # The facts stay available to a caller that words its own remedy (the CLI names --intersect).
    assert info.value.n_shared == 0 and "2 in b only" in info.value.details


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
    ({"n_resamples": 0}, ValueError, r"n_resamples must be an integer from 1 to 2\*\*30 \(1,073,741,824\), got 0"),
    ({"n_resamples": 1000.0}, TypeError, "n_resamples must be an integer"),
    ({"n_resamples": True}, TypeError, "n_resamples must be an integer"),
    ({"confidence": 95}, ValueError, r"confidence must be in \(0, 1\)"),
    ({"confidence": "high"}, TypeError, "confidence must be a number"),
    ({"seed": -1}, ValueError, r"seed must be an integer from 0 to 2\*\*128 - 1 or None, got -1"),
    ({"seed": 1.5}, TypeError, "seed must be an integer from 0"),
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


# --------------------------------------------------------------------------------------
# Every argument checked before any work (issue 21): exact type, message naming it
# --------------------------------------------------------------------------------------

X70, Y70 = np.linspace(0, 1, 70), np.linspace(1, 0, 70)
N_RESAMPLES = r"n_resamples must be an integer from 1 to 2\*\*30 \(1,073,741,824\), got "
SEED = r"seed must be an integer from 0 to 2\*\*128 - 1 or None, got "


@pytest.mark.parametrize("value, error, message", [
    (0, ValueError, N_RESAMPLES + "0$"),
    (-1, ValueError, N_RESAMPLES + "-1$"),
    (np.int64(0), ValueError, N_RESAMPLES + r"np.int64\(0\)"),
    (2**30 + 1, ValueError, N_RESAMPLES + "1073741825$"),
    (10**13, ValueError, N_RESAMPLES + "10000000000000$"),   # used to start a 72.8 TiB allocation
    (2**63, ValueError, N_RESAMPLES + "9223372036854775808$"),
    (1.5, TypeError, N_RESAMPLES + "1.5$"),
    (1000.0, TypeError, N_RESAMPLES + "1000.0$"),
    (True, TypeError, N_RESAMPLES + "True$"),
    ("10", TypeError, N_RESAMPLES + "'10'$"),
    (None, TypeError, N_RESAMPLES + "None$"),
])
@pytest.mark.parametrize("test", TESTS)
def test_n_resamples_is_checked_for_every_test(value, error, message, test):
    with pytest.raises(error, match=message):
        rw.compare(X70, Y70, test=test, n_resamples=value)


def test_n_resamples_bounds_are_accepted():
    assert rw.compare(X70, Y70, test="t", n_resamples=2**30).n == 70       # checked, not used
    res = rw.compare(X70, Y70, n_resamples=1, seed=0)
    assert res.n_resamples == 1 and res.pvalue in (0.5, 1.0) and res.distribution.shape == (1,)
    boot = rw.compare(X70, Y70, test="bootstrap", n_resamples=1, seed=0)   # BCa undefined: (nan, nan)
    assert boot.pvalue in (0.5, 1.0) and np.isnan(boot.confidence_interval).all()
    assert rw.compare(X70, Y70, n_resamples=np.uint16(7), seed=0).n_resamples == 7


def test_running_out_of_memory_names_n_resamples(monkeypatch):
    real_empty = np.empty

    def empty(shape, *args, **kwargs):
        if np.prod(shape) > 1_000_000:
            raise MemoryError("Unable to allocate")
        return real_empty(shape, *args, **kwargs)

    monkeypatch.setattr(np, "empty", empty)
    with pytest.raises(MemoryError, match=r"n_resamples=2,000,000 needs 16 MiB for the resampled distribution"):
        rw.compare(X70, Y70, n_resamples=2_000_000, seed=0)
    with pytest.raises(MemoryError, match=r"n_resamples=2,000,000 needs 16 MiB"):
        rw.compare(X70, Y70, test="bootstrap", n_resamples=2_000_000, seed=0)


@pytest.mark.parametrize("value, error, message", [
    (-1, ValueError, SEED + "-1$"),
    (np.int64(-1), ValueError, SEED + r"np.int64\(-1\)"),
    (2**128, ValueError, SEED + "340282366920938463463374607431768211456$"),
    (1.5, TypeError, SEED + "1.5$"),
    (1.0, TypeError, SEED + "1.0$"),
    ("a", TypeError, SEED + "'a'$"),
    (True, TypeError, SEED + "True$"),
    (np.random.default_rng(0), TypeError, SEED + r"Generator.*seed=int\(rng.integers\(2\*\*63\)\)"),
])
@pytest.mark.parametrize("test", TESTS)
@pytest.mark.parametrize("n", [5, 70])      # 5: exact randomization, where the seed is not used
def test_seed_is_checked_for_every_test(value, error, message, test, n):
    with pytest.raises(error, match=message):
        rw.compare(X70[:n], Y70[:n], test=test, seed=value, n_resamples=100)


@pytest.mark.parametrize("kwargs, error, message", [
    ({"confidence": 0}, ValueError, r"confidence must be in \(0, 1\), got 0$"),
    ({"confidence": 1}, ValueError, r"confidence must be in \(0, 1\), got 1$"),
    ({"confidence": 1.5}, ValueError, r"confidence must be in \(0, 1\), got 1.5"),
    ({"confidence": np.nan}, ValueError, r"confidence must be in \(0, 1\), got nan"),
    ({"confidence": 10**400}, ValueError, r"confidence must be in \(0, 1\)"),  # no OverflowError
    ({"confidence": "0.95"}, TypeError, r"confidence must be a number in \(0, 1\), got '0.95'"),
    ({"confidence": True}, TypeError, "confidence must be a number"),
    ({"test": None}, TypeError, r"test must be a str, one of 'randomization', .*got None"),
    ({"test": "T"}, ValueError, r"test must be one of .*got 'T'; did you mean 't'\?"),
    ({"alternative": None}, TypeError, "alternative must be a str"),
    ({"alternative": "Greater"}, ValueError, "alternative must be one of .*did you mean 'greater'"),
    ({"ci_method": None}, TypeError, "ci_method must be a str"),
    ({"ci_method": "BCa"}, ValueError, "ci_method must be one of .*did you mean 'bca'"),
    ({"zero_method": 0}, TypeError, "zero_method must be a str"),
    ({"nan_policy": None}, TypeError, "nan_policy must be a str"),
    ({"on_missing": True}, TypeError, "on_missing must be a str"),
    ({"metric": 5}, TypeError, r"metric must be a str \(a metric name\) or None, got 5"),
    ({"metric": ["MAP"]}, TypeError, r"metric must be a str \(a metric name\) or None, got \['MAP'\]"),
])
@pytest.mark.parametrize("test", ["t", "randomization"])
def test_options_are_checked_before_any_work(kwargs, error, message, test):
    with pytest.raises(error, match=message):
        rw.compare(X70, Y70, **{"test": test, **kwargs})


@pytest.mark.parametrize("n_threads, error, message", [
    (0, ValueError, "n_threads must be non-zero"),
    ("x", TypeError, "n_threads must be an integer or None, got 'x'"),
    (1.5, TypeError, "n_threads must be an integer or None"),
    (True, TypeError, "n_threads must be an integer or None"),
])
@pytest.mark.parametrize("test", TESTS)
def test_n_threads_is_checked_for_every_test(n_threads, error, message, test):
    with pytest.raises(error, match=message):
        rw.compare([0.1, 0.2, 0.3], [0.3, 0.1, 0.2], test=test, n_threads=n_threads)


def test_huge_thread_counts_start_a_bounded_number_of_threads(rng):
    from rankwise._core.parallel import max_threads, run_over_range

    chunks = []
    run_over_range(lambda start, end, stop: chunks.append((start, end)), 10**6, 10**9, 10**10)
    assert 1 < len(chunks) <= max_threads()
    assert sorted(chunks)[0][0] == 0 and sorted(chunks)[-1][1] == 10**6
    a, b = rng.random(3000), rng.random(3000)
    assert rw.compare(a, b, seed=1, n_threads=10**9).pvalue == rw.compare(a, b, seed=1, n_threads=1).pvalue


def test_masked_arrays_are_refused():
    with pytest.raises(TypeError, match=r"a is a masked array; pass the values to compare"):
        rw.compare(np.ma.array([0.1, 0.2, 9.0], mask=[0, 0, 1]), [0.2, 0.1, 0.5])


@pytest.mark.parametrize("value, error, message", [
    (b"ab", TypeError, r"a must hold numbers, got dtype \|S2"),
    ("0.1", TypeError, "a must hold numbers, got dtype <U3"),
    (None, TypeError, "a must hold numbers, got dtype object"),
    # a number, out of range: not a wrong type
    ([10**400, 1], ValueError, r"a holds the integer 100000000000\.\.\. \(an integer of 401 digits\) at position 0"),
    # integers that float64 (where the tests compute) would round: differences would be wrong
    ([2**63 + 1, 2**63], ValueError, r"a has integers beyond 2\*\*53, which float64 cannot hold exactly: 9223372036854775809 at position 0"),
    ([0, 2**63 + 1], ValueError, r"a has integers beyond 2\*\*53, which float64 cannot hold exactly: 9223372036854775809 at position 1"),
    (np.array([2**53 + 1, 0]), ValueError, r"beyond 2\*\*53, which float64 cannot hold exactly: 9007199254740993 at position 0"),
    (np.array([0, -(2**53) - 1], np.int64), ValueError, "exactly: -9007199254740993 at position 1; pass floats if rounding is acceptable"),
    (np.array([0.1, 0.2], dtype=object), TypeError, "a must hold numbers, got dtype object"),
    ((x for x in [0.1, 0.2]), TypeError, "a must hold numbers, got dtype object"),
    ([[0.1], [0.2, 0.3]], ValueError, r"a must be a 1-D sequence of numbers \(one value per query\)"),
    (np.zeros((2, 1)), ValueError, r"a must be 1-D \(one value per query\), got shape \(2, 1\)"),
])
def test_bad_values_of_any_kind(value, error, message):
    with pytest.raises(error, match=message):
        rw.compare(value, [0.1, 0.2])


def test_bytes_ids_are_not_str_ids():
    a = {b"q1": 0.1, b"q2": 0.4, b"q3": 0.2}
    b = {"q1": 0.3, "q2": 0.1, "q3": 0.2}
    with pytest.raises(ValueError, match=r"3 in a only \(e.g. b'q1', b'q2', b'q3'\)"):
        rw.compare(a, b)
    # Bytes ids on both sides pair as ids do.
    assert rw.compare(a, {k.encode(): v for k, v in b.items()}, test="t").n == 3


def test_series_with_nullable_dtypes():
    pd = pytest.importorskip("pandas")
    a = pd.Series([0.1, None, 0.7, 0.4], index=list("wxyz"), dtype="Float64")
    b = pd.Series([1, 2, 0, 1], index=list("wxyz"), dtype="Int64") / 4
    with pytest.raises(ValueError, match="a is NaN at query 'x'"):
        rw.compare(a, b, test="t")
    res = rw.compare(a, b, test="t", nan_policy="omit")
    assert res.n == 3 and res.statistic == rw.compare([0.1, 0.7, 0.4], [0.25, 0.0, 0.25], test="t").statistic


@pytest.mark.parametrize("test", TESTS)
def test_one_and_mismatched_lengths_and_nan_everywhere(test):
    with pytest.raises(ValueError, match="at least 2 queries, got 1"):
        rw.compare({"q": 0.1}, {"q": 0.2}, test=test)
    with pytest.raises(ValueError, match=r"same length.*2 \(a\) and 3 \(b\)"):
        rw.compare([0.1, 0.2], [0.1, 0.2, 0.3], test=test)
    with pytest.raises(ValueError, match="at least 2 queries, got 0"):
        rw.compare([np.nan, np.nan], [0.1, 0.2], test=test, nan_policy="omit")


# --------------------------------------------------------------------------------------
# Equal differences: defined results (issue 21: the report printed an effect size of +nan)
# --------------------------------------------------------------------------------------

@pytest.mark.parametrize("test", TESTS)
def test_every_difference_zero_is_defined(test):
    a = [0.1, 0.2 + 0.1, 0.7, 0.25]
    b = [0.1, 0.3, 0.7, 0.25]       # 0.2 + 0.1 and 0.3: equal to 12 digits
    res = rw.compare(a, b, test=test, seed=0)
    assert (res.pvalue, res.effect_size, res.mean_difference) == (1.0, 0.0, 0.0)
    assert tuple(res.confidence_interval) == (0.0, 0.0)
    assert "effect_size=0" in repr(res) and "nan" not in repr(res)


def test_every_difference_the_same_non_zero_number():
    a, b = [0.7, 0.9, 0.4, 0.6], [0.5, 0.7, 0.2, 0.4]          # d = 0.2, up to roundoff
    for test in TESTS:
        res = rw.compare(a, b, test=test, seed=0)
        assert res.effect_size == np.inf
        assert res.confidence_interval == (pytest.approx(0.2), pytest.approx(0.2))
        assert "effect_size=inf" in repr(res)
        assert rw.compare(b, a, test=test, seed=0).effect_size == -np.inf
    assert rw.compare(a, b, test="t").statistic == np.inf and rw.compare(a, b, test="t").pvalue == 0.0
    assert rw.compare(a, b).pvalue == 2 / 16                      # all + or all - of 16 patterns


@pytest.mark.parametrize("kwargs, error, message", [
    ({"alternative": None}, TypeError, "alternative must be a str, one of 'two-sided', 'greater', 'less', got None"),
    ({"alternative": "bigger"}, ValueError, "alternative must be one of"),
    ({"nan_policy": "Omit"}, ValueError, "nan_policy must be one of .*did you mean 'omit'"),
    ({"metric": 5}, TypeError, r"metric must be a str \(a metric name\) or None, got 5"),
    ({"metric": "MAP"}, TypeError, "neither input is one"),
    ({"a": [np.nan, np.nan], "nan_policy": "omit"}, ValueError, "a is empty; the Mann-Whitney test needs"),
    ({"a": [np.inf, 1.0]}, ValueError, "a is inf at position 0; values must be finite"),
    ({"b": {"q": 0.1}}, None, None),                       # a dict of values is a sample too
    ({"b": [[0.1, 0.2]]}, ValueError, r"b must be 1-D \(one value per query\), got shape \(1, 2\)"),
    ({"b": np.array([0.1], dtype=object)}, TypeError, "b must hold numbers, got dtype object"),
])
def test_mann_whitney_names_each_bad_argument(kwargs, error, message):
    options = {"a": [0.1, 0.5, 0.3], "b": [0.2, 0.4], **kwargs}
    if error is None:
        assert rw.mann_whitney(**options).n_b == 1
        return
    with pytest.raises(error, match=message):
        rw.mann_whitney(**options)


# --------------------------------------------------------------------------------------
# Objects standing for Results (an engine's results): the __rankwise_results__ protocol
# --------------------------------------------------------------------------------------

class _Remote:
    """Results computed elsewhere, as rankwise.spark's are: handed over on request."""

    def __init__(self, results):
        self.results = results
        self.calls = 0

    def __rankwise_results__(self):
        self.calls += 1
        return self.results


def test_objects_with_rankwise_results_are_read_as_their_results(rng):
    labels, a, b = rng.integers(0, 2, (30, 8)), rng.random((30, 8)), rng.random((30, 8))
    res_a, res_b = rw.evaluate(labels, a, ["MAP", "MRR"]), rw.evaluate(labels, b, ["MAP", "MRR"])
    remote_a, remote_b = _Remote(res_a), _Remote(res_b)
    got = rw.compare(remote_a, remote_b, metric="MAP", seed=1)
    assert got == rw.compare(res_a, res_b, metric="MAP", seed=1)
    assert (remote_a.calls, remote_b.calls) == (1, 1)
    assert rw.mann_whitney(remote_a, res_b, metric="MRR") == rw.mann_whitney(res_a, res_b, metric="MRR")
    report = rw.compare_systems({"a": remote_a, "b": remote_b}, metrics=["MAP"], seed=1)
    assert report.to_text() == rw.compare_systems({"a": res_a, "b": res_b}, metrics=["MAP"], seed=1).to_text()


def test_rankwise_results_must_return_results():
    with pytest.raises(TypeError, match=r"_Remote.__rankwise_results__\(\) must return rankwise.Results, got list"):
        rw.compare(_Remote([1.0, 2.0]), [1.0, 2.0])
