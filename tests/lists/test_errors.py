"""Bad input: a clear exception naming the argument, raised before any result is returned.

Every check runs before the kernels but the one for NaN scores, which the kernels make as
they read the scores.
"""
import re

import numpy as np
import pytest

import rankwise as rw
from rankwise._core import parallel as _parallel

T = [[0, 1, 2], [1, 0, 0]]
S = [[0.3, 0.2, 0.1], [0.5, 0.4, 0.4]]


@pytest.mark.parametrize("kwargs, exc, match", [
    (dict(y_true=[[0, 1]], y_score=[[0.1, 0.2, 0.3]]), ValueError, "same shape"),
    (dict(y_true=[0, 1, 1], y_score=[0.1, 0.2]), ValueError, "same shape"),
    (dict(y_true=[[0, 1, 1]], y_score=[0.1, 0.2]), ValueError, r"y_true must then be \(n_topics, 2\)"),
    (dict(y_true=[[[0]]], y_score=[[[0.1]]]), ValueError, "1-D or 2-D"),
    (dict(y_true=[0, 1, 1], y_score=[0.1, 0.2, 0.3], indptr=[0, 2]), ValueError, "end at len"),
    (dict(y_true=[0, 1, 1], y_score=[0.1, 0.2, 0.3], indptr=[1, 3]), ValueError, "start at 0"),
    (dict(y_true=[0, 1, 1], y_score=[0.1, 0.2, 0.3], indptr=[0, 2, 1, 3]), ValueError, "non-decreasing"),
    (dict(y_true=[0, 1, 1], y_score=[0.1, 0.2, 0.3], indptr=[0.0, 3.0]), TypeError, "indptr must hold integers"),
    (dict(y_true=[0, 1, 1], y_score=[0.1, 0.2, 0.3], indptr=[[0, 3]]), ValueError, "indptr must be 1-D"),
    (dict(y_true=[0, 1, 1], y_score=[0.1, 0.2, 0.3], qid=[1, 2]), ValueError, "qid must be 1-D"),
    (dict(y_true=[0, 1, 1], y_score=[0.1, 0.2, 0.3], qid=[1.0, np.nan, 1.0]), ValueError, "qid contains NaN"),
    (dict(y_true=[0, 1, 1], y_score=[0.1, 0.2, 0.3], qid=np.array([1, "a", 2], dtype=object)), TypeError,
     "qid values must be mutually comparable"),
    (dict(y_true=[0, 1, 1], y_score=[0.1, 0.2, 0.3], qid=[1, 1, 1], indptr=[0, 3]), ValueError, "not both"),
    (dict(y_true=T, y_score=S, qid=[1, 2]), ValueError, "2-D inputs already hold one query per row"),
    (dict(y_true=T, y_score=[[0.3, np.nan, 0.1], [0.5, 0.4, 0.4]]), ValueError,
     r"y_score contains NaN \(first at row 0, column 1\); pass nan='last'"),
    (dict(y_true=T, y_score=S, nan="ignore"), ValueError, "nan must be one of"),
    (dict(y_true=[[0, -1, 2], [1, 0, 0]], y_score=S), ValueError, r"y_true must hold finite labels >= 0; found -1 at row 0"),
    (dict(y_true=[[0, np.inf, 2], [1, 0, 0]], y_score=S), ValueError, "y_true must hold finite labels"),
    (dict(y_true=[[0, np.nan, 2], [1, 0, 0]], y_score=S), ValueError, "y_true must hold finite labels"),
    (dict(y_true=[["a", "b", "c"]], y_score=[[0.1, 0.2, 0.3]]), TypeError, "y_true must hold numeric"),
    (dict(y_true=np.array([[0, 1, 2]], dtype=object), y_score=[[0.1, 0.2, 0.3]]), TypeError, "y_true must hold numeric"),
    (dict(y_true=[[0, 1, 2]], y_score=np.array([[0.1, 0.2, 0.3]], dtype=object)), TypeError, "y_score must be numeric"),
    (dict(y_true=[[0, 1, 2]], y_score=[["1", "2", "3"]]), TypeError, "y_score must be numeric"),
    (dict(y_true=[[0, 1, 2]], y_score=[[1 + 1j, 2, 3]]), TypeError, "y_score must be numeric"),
    (dict(y_true=[[0, 1, 2]], y_score=np.array([[2**60, 1, 0]])), ValueError, r"beyond 2\*\*53"),
    (dict(y_true=T, y_score=S, ties="realistic"), ValueError, "only for one positive per query"),
    (dict(y_true=T, y_score=S, ties="optimstic"), ValueError, "did you mean 'optimistic'"),
    (dict(y_true=T, y_score=S, ties="trec"), ValueError, "pass doc_ids="),
    (dict(y_true=T, y_score=S, ties="trec", doc_ids=[["a", "b"]]), ValueError, "doc_ids must have the shape"),
    (dict(y_true=T, y_score=S, ties="trec", doc_ids=[["a", "b", "a"], ["a", "b", "c"]]), ValueError,
     "doc_ids has document 'a' twice for query 0"),
    (dict(y_true=T, y_score=S, relevance_level=0), ValueError, "relevance_level must be a finite number > 0"),
    (dict(y_true=T, y_score=S, relevance_level="1"), TypeError, "relevance_level must be a number"),
    (dict(y_true=T, y_score=S, gain="exponentail"), ValueError, "did you mean 'exponential'"),
    (dict(y_true=T, y_score=S, empty="nan"), ValueError, "empty must be one of"),
    (dict(y_true=T, y_score=S, n_threads=0), ValueError, "n_threads must be non-zero"),
    (dict(y_true=T, y_score=S, n_threads=1.5), TypeError, "n_threads must be an integer"),
    (dict(y_true=T, y_score=S, max_grade=1), ValueError, r"max_grade=1 is below the largest label in y_true \(2\)"),
    (dict(y_true=T, y_score=S, max_grade=-1), ValueError, "max_grade must be a finite number > 0"),
    (dict(y_true=[[0, 1, 2000]], y_score=[[0.1, 0.2, 0.3]], gain="exponential"), ValueError, "overflows"),
])
def test_bad_input(kwargs, exc, match):
    kwargs.setdefault("metrics", ["MRR", "nDCG", "ERR"])
    with pytest.raises(exc, match=match):
        rw.evaluate(**kwargs)


@pytest.mark.parametrize("name, match", [
    ("nDGC@10", "unknown metric 'nDGC@10'; did you mean 'nDCG@10'"),
    ("mapp", "unknown metric 'mapp'; did you mean"),
    ("zzz", "unknown metric 'zzz'; valid names include"),
    ("P", "P needs a cutoff"),
    ("P@0", "cutoff k must be >= 1"),
    ("nDCG@-3", "cutoff k must be >= 1"),
    ("P@ten", "must be an integer"),
    ("ndcg_cut", "needs a cutoff"),
    ("Rprec@5", "Rprec takes no cutoff"),
    ("RBP(p=1.5)", r"p must be in \(0, 1\)"),
    ("RBP(q=0.5)", "unknown parameter 'q=0.5'"),
    ("RBP(p=abc)", "invalid value 'abc'"),
    ("nDCG(gain=cubic)", "invalid value 'cubic'"),
    ("MRR(p=0.5)", "unknown parameter"),
])
def test_bad_metric_names(name, match):
    with pytest.raises(ValueError, match=match):
        rw.evaluate(T, S, [name])


def test_metric_names_must_be_strings():
    with pytest.raises(TypeError, match="metric names must be strings"):
        rw.evaluate(T, S, [10])
    with pytest.raises(ValueError, match="at least one metric"):
        rw.evaluate(T, S, [])


@pytest.mark.parametrize("call, match", [
    (lambda: rw.precision(T, S, k=0), "precision: cutoff k must be >= 1"),
    (lambda: rw.hit_rate(T, S, k=2.5), "hit_rate: cutoff k must be an integer"),
    (lambda: rw.ndcg(T, S, k=True), "ndcg: cutoff k must be an integer"),
    (lambda: rw.rbp(T, S, p=0.0), r"rbp: RBP persistence p must be in \(0, 1\)"),
    (lambda: rw.ndcg(T, S, gain="log"), "gain must be"),
    (lambda: rw.ndcg(T, S, max_grade=3), "ndcg\\(\\) got an unexpected keyword argument 'max_grade'"),
    (lambda: rw.precision(T, S, 2, tie="stable"), "precision\\(\\) got an unexpected keyword argument 'tie'"),
])
def test_bad_per_metric_arguments(call, match):
    with pytest.raises((TypeError, ValueError), match=match):
        call()


def test_empty_error_names_the_queries():
    with pytest.raises(ValueError, match=r"2 queries have no relevant item \(label >= 2\): 'b', 'c'"):
        rw.evaluate([1, 2, 0, 1, 0], [0.1, 0.2, 0.3, 0.4, 0.5], ["MAP"], qid=["a", "a", "b", "c", "c"],
                    relevance_level=2, empty="error")


def test_nan_last_accepts_nan_scores():
    assert rw.reciprocal_rank([[0, 1, 0]], [[np.nan, 0.1, np.nan]], nan="last") == 1.0
    assert rw.reciprocal_rank([[1, 0, 0]], [[np.nan, -np.inf, np.nan]], nan="last") == pytest.approx(
        (1 / 2 + 1 / 3) / 2)


def test_infinite_scores_are_valid():
    assert rw.reciprocal_rank([[0, 1, 0]], [[-np.inf, np.inf, np.inf]]) == 0.75


# NaN scores are found by the kernels as they read the scores, whichever path a call
# takes; the error still names the first NaN of the input as the user passed it.
@pytest.mark.parametrize("metrics, n_items", [
    (["nDCG@10"], 400),      # top-k block path
    (["nDCG@10"], 60),       # top-k heap path
    (["nDCG@10"], 8),        # lists no longer than the cutoff: every item tracked
    (["MAP", "nDCG"], 60),   # no cutoff: every item tracked
])
@pytest.mark.parametrize("nans", [[(0, 0)], [(11, -1)], [(5, 3)], [(5, -1)], [(7, -1), (9, 0)]])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nan_scores_are_found_on_every_path(rng, monkeypatch, metrics, n_items, nans, dtype):
    monkeypatch.setattr(_parallel, "_MIN_ITEMS_PER_THREAD", 1)
    y_true = rng.integers(0, 3, (12, n_items))
    y_true[5] = 0  # no relevant item: nothing is tracked, the scores are read all the same
    y_score = rng.random((12, n_items)).astype(dtype)
    for where in nans:
        y_score[where] = np.nan
    y_score.flags.writeable = False
    before = y_score.copy()
    row, column = nans[0][0], nans[0][1] % n_items  # the first NaN is the one named
    for n_threads in (1, 2):
        with pytest.raises(ValueError, match=rf"y_score contains NaN \(first at row {row}, column {column}\); "
                                             "pass nan='last'"):
            rw.evaluate(y_true, y_score, metrics, n_threads=n_threads)
    np.testing.assert_array_equal(y_score, before)
    assert np.isfinite(rw.evaluate(y_true, y_score, metrics, nan="last")[metrics[0]]).all()


def test_nan_scores_named_in_the_input_order():
    # Rows grouped by an unsorted qid are reordered for the kernel; the message is not.
    y_score = np.arange(500, dtype=float)
    y_score[321] = np.nan
    qid = np.arange(500) % 3
    with pytest.raises(ValueError, match=r"first at position 321\)"):
        rw.evaluate(np.ones(500), y_score, ["nDCG@10"], qid=qid)


def test_nan_error_comes_before_the_empty_error_and_without_queries():
    with pytest.raises(ValueError, match="y_score contains NaN"):
        rw.evaluate([[0, 0, 0]], [[0.1, np.nan, 0.2]], ["MRR"], empty="error")
    # One ranking against no topic at all: no query reads the scores.
    with pytest.raises(ValueError, match=r"y_score contains NaN \(first at position 1\)"):
        rw.evaluate(np.zeros((0, 3)), [0.1, np.nan, 0.2], ["MRR"])


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64, ">i2", np.uint8, np.uint16, np.uint32])
def test_negative_integer_labels_found_in_one_pass(dtype):
    # Integer labels are checked in one pass over their unsigned view.
    top = np.iinfo(np.dtype(dtype)).max
    y_true = np.array([[0, 1, top], [2, 0, 1]], dtype=dtype)
    assert rw.evaluate(y_true, S, ["P@2"]).mean()["P@2"] == 0.625
    if np.dtype(dtype).kind == "i":
        y_true[1, 2] = -1
        with pytest.raises(ValueError, match=r"found -1 at row 1, column 2"):
            rw.evaluate(y_true, S, ["P@2"])
        y_true[1, 2] = np.iinfo(np.dtype(dtype)).min
        with pytest.raises(ValueError, match=r"finite labels >= 0; found -\d+ at row 1, column 2"):
            rw.evaluate(y_true, S, ["P@2"])


# ---------------------------------------------------------------------------
# Issue 21: hostile values for every parameter of evaluate() and the per-metric
# functions: a clear exception naming the argument, what was given and what is allowed.
# ---------------------------------------------------------------------------

PER_METRIC_WITH_K = [rw.reciprocal_rank, rw.average_precision, rw.ndcg, rw.dcg, rw.precision, rw.recall,
                     rw.hit_rate, rw.err, rw.rbp]


@pytest.mark.parametrize("func", PER_METRIC_WITH_K, ids=lambda f: f.__name__)
@pytest.mark.parametrize("k", [2**63, np.uint64(2**63), 10**30])
def test_cutoff_beyond_int64_names_k_and_the_range(func, k):
    with pytest.raises(ValueError, match=rf"{func.__name__}: cutoff k must be an integer from 1 to 2\*\*63 - 1, "
                                         rf"got {int(k)}"):
        func(T, S, k=k)


@pytest.mark.parametrize("func", PER_METRIC_WITH_K, ids=lambda f: f.__name__)
@pytest.mark.parametrize("k", [2.0, "3", [3], np.float64(3)])
def test_cutoff_of_the_wrong_type(func, k):
    with pytest.raises(TypeError, match=rf"{func.__name__}: cutoff k must be an integer from 1 to 2\*\*63 - 1"):
        func(T, S, k=k)


@pytest.mark.parametrize("name", ["P@9223372036854775808", "Hits@99999999999999999999", "nDCG@1" + "0" * 30,
                                  "ndcg_cut_99999999999999999999", "P@" + "9" * 5000])
def test_cutoff_in_a_metric_name_beyond_int64(name):
    with pytest.raises(ValueError, match=r"cutoff k must be an integer from 1 to 2\*\*63 - 1") as info:
        rw.evaluate(T, S, [name])
    assert f"metric {name[:20]}" in str(info.value).replace("'", "")


@pytest.mark.parametrize("name", ["P@１０", "P@1e3", "P@1_0", "P@+-3", "P@0x10"])
def test_cutoff_in_a_metric_name_must_be_ascii_digits(name):
    with pytest.raises(ValueError, match=rf"metric '{re.escape(name)}': cutoff must be an integer from 1 to 2\*\*63 - 1"):
        rw.evaluate(T, S, [name])


@pytest.mark.parametrize("metrics, exc, match", [
    (5, TypeError, "metrics must be a metric name or a list of names \\(strings\\), got 5"),
    (None, TypeError, "metrics must be a metric name or a list of names \\(strings\\), got None"),
    (b"MRR", TypeError, "metrics must be a metric name or a list of names \\(strings\\), got b'MRR'"),
    (3.5, TypeError, "metrics must be a metric name"),
    ([5], TypeError, r"metric names must be strings, got int 5 at metrics\[0\]"),
    (["MRR", None], TypeError, r"metric names must be strings, got NoneType None at metrics\[1\]"),
    ([b"MRR"], TypeError, r"metric names must be strings, got bytes b'MRR' at metrics\[0\]"),
    ([], ValueError, "metrics must name at least one metric, got an empty list"),
    (iter([]), ValueError, "metrics must name at least one metric"),
    (np.array([], dtype=str), ValueError, "metrics must name at least one metric"),
])
def test_metrics_argument(metrics, exc, match):
    with pytest.raises(exc, match=match):
        rw.evaluate(T, S, metrics)


@pytest.mark.parametrize("metrics", [(m for m in ["MRR", "P@2"]), np.array(["MRR", "P@2"]), ("MRR", "P@2"),
                                     {"MRR": 0, "P@2": 1}])
def test_metrics_as_any_iterable_of_names(metrics):
    mean = rw.evaluate(T, S, metrics).mean()
    assert mean == {"MRR": 0.75, "P@2": 0.5}
    assert all(type(name) is str for name in mean)


def test_metrics_as_a_0d_array_is_one_name():
    assert rw.evaluate(T, S, np.array("MRR")).mean() == {"MRR": 0.75}


@pytest.mark.parametrize("p, exc", [("0.5", TypeError), (None, TypeError), (True, TypeError),
                                    (np.array([0.5]), TypeError), (np.nan, ValueError), (np.inf, ValueError),
                                    (1, ValueError), (0, ValueError), (-0.5, ValueError), (10**400, ValueError),
                                    (-10**400, ValueError)])
def test_rbp_persistence(p, exc):
    with pytest.raises(exc, match=r"rbp: RBP persistence p must be (a number )?in \(0, 1\), got"):
        rw.rbp(T, S, p=p)


@pytest.mark.parametrize("name", ["RBP(p=nan)", "RBP(p=1)", "RBP(p=0)", "RBP(p=inf)", "RBP(p=-0.5)", "RBP(p=1e400)"])
def test_rbp_persistence_in_a_metric_name(name):
    with pytest.raises(ValueError, match=rf"metric '{re.escape(name)}': RBP persistence p must be in \(0, 1\)"):
        rw.evaluate(T, S, [name])


@pytest.mark.parametrize("call, match", [
    (lambda: rw.rbp(T, S, graded="no"), "rbp: graded must be True or False, got 'no'"),
    (lambda: rw.rbp(T, S, graded=1), "rbp: graded must be True or False, got 1"),
    (lambda: rw.reciprocal_rank(T, S, per_query="no"), "per_query must be True or False, got 'no'"),
    (lambda: rw.ndcg(T, S, per_query=None), "per_query must be True or False, got None"),
    (lambda: rw.ndcg(T, S, gain=None), "ndcg: gain must be 'linear' or 'exponential', got None"),
    (lambda: rw.dcg(T, S, gain=b"linear"), "dcg: gain must be 'linear' or 'exponential', got b'linear'"),
    (lambda: rw.evaluate(T, S, ["nDCG"], gain=None), "gain must be one of 'linear', 'exponential' \\(a string\\)"),
    (lambda: rw.evaluate(T, S, ["MRR"], empty=1), "empty must be one of 'zero', 'skip', 'error' \\(a string\\)"),
    (lambda: rw.evaluate(T, S, ["MRR"], nan=np.nan), "nan must be one of 'raise', 'last' \\(a string\\)"),
    (lambda: rw.evaluate(T, S, ["MRR"], ties=None), "ties must be one of .* \\(a string\\), got None"),
    (lambda: rw.evaluate(T, S, ["MRR"], ties=b"stable"), "ties must be one of .* \\(a string\\), got b'stable'"),
])
def test_flags_and_choices_of_the_wrong_type(call, match):
    with pytest.raises(TypeError, match=match):
        call()


@pytest.mark.parametrize("level, exc", [(np.inf, ValueError), (np.nan, ValueError), (-np.inf, ValueError),
                                        (0.0, ValueError), (-5e-324, ValueError), (10**400, ValueError),
                                        (np.longdouble("1e400"), ValueError), ("1", TypeError), (True, TypeError),
                                        (np.True_, TypeError), (None, TypeError), ([1], TypeError)])
def test_relevance_level(level, exc):
    match = "relevance_level must be a finite number > 0" if exc is ValueError else "relevance_level must be a number"
    with pytest.raises(exc, match=match):
        rw.evaluate(T, S, ["MRR"], relevance_level=level)


@pytest.mark.parametrize("max_grade, exc", [(np.inf, ValueError), (np.nan, ValueError), (0, ValueError),
                                            (10**400, ValueError), ("2", TypeError), (True, TypeError)])
def test_max_grade(max_grade, exc):
    match = "max_grade must be a finite number > 0" if exc is ValueError else "max_grade must be a number"
    with pytest.raises(exc, match=match):
        rw.err(T, S, max_grade=max_grade)


@pytest.mark.parametrize("n_threads, exc, match", [
    (2**63, ValueError, r"n_threads must be a non-zero integer from -2\*\*63 to 2\*\*63 - 1 .*got 9223372036854775808"),
    (-(2**63) - 1, ValueError, r"n_threads must be a non-zero integer from -2\*\*63 to 2\*\*63 - 1"),
    (np.uint64(2**63), ValueError, r"n_threads must be a non-zero integer"),
    (True, TypeError, "n_threads must be an integer or None, got True"),
    (1.0, TypeError, "n_threads must be an integer or None, got 1.0"),
    ("2", TypeError, "n_threads must be an integer or None"),
])
def test_n_threads(n_threads, exc, match):
    with pytest.raises(exc, match=match):
        rw.evaluate(T, S, ["MRR"], n_threads=n_threads)


@pytest.mark.parametrize("n_threads", [2**63 - 1, -(2**63), -1000, np.int64(-(2**63)), 10**6])
def test_extreme_thread_counts_are_valid(n_threads):
    # Counting back stops at one thread; no more threads start than there are chunks.
    assert rw.evaluate(T, S, ["MRR", "nDCG"], n_threads=n_threads).mean() == \
        rw.evaluate(T, S, ["MRR", "nDCG"], n_threads=1).mean()


@pytest.mark.parametrize("y_true, y_score, name", [
    ([[1, 0], [1]], [[0.2, 0.1], [0.3, 0.4]], "y_true"),
    ([[1, 0], [1, 0]], [[0.2, 0.1], [0.3]], "y_score"),
    ([[1, 0], 1], [[0.2, 0.1], 0.3], "y_score"),
])
def test_ragged_lists_say_how_to_pass_lists_of_different_lengths(y_true, y_score, name):
    with pytest.raises(ValueError, match=rf"{name} holds sequences of different lengths, which do not form one "
                                         r"array; pass every query's items flattened into one 1-D array, "
                                         r"with indptr= .* or qid= "):
        rw.evaluate(y_true, y_score, ["MRR"])


def test_ragged_lists_passed_the_way_the_error_says():
    got = rw.evaluate([1, 0, 1], [0.2, 0.1, 0.3], ["MRR"], indptr=[0, 2, 3])["MRR"]
    np.testing.assert_array_equal(got, [1.0, 1.0])


@pytest.mark.parametrize("argument", ["y_true", "y_score", "qid", "indptr", "doc_ids"])
def test_masked_arrays_with_masked_entries_are_refused(argument):
    kwargs = dict(y_true=np.array([1, 0, 1]), y_score=np.array([0.2, 0.1, 0.3]), indptr=np.array([0, 2, 3]),
                  ties="trec", doc_ids=np.array(["a", "b", "c"]))
    if argument == "qid":
        kwargs["qid"] = np.array([1, 1, 2])
        del kwargs["indptr"]
    kwargs[argument] = np.ma.array(kwargs[argument], mask=np.arange(kwargs[argument].size) == 1)
    with pytest.raises(ValueError, match=rf"{argument} is a masked array with masked entries"):
        rw.evaluate(metrics=["MRR"], **kwargs)


def test_masked_arrays_without_masked_entries_are_read():
    got = rw.evaluate(np.ma.array(T), np.ma.array(S, mask=False), ["MRR", "nDCG"]).mean()
    assert got == rw.evaluate(T, S, ["MRR", "nDCG"]).mean()


@pytest.mark.parametrize("indptr, match", [
    (np.array([0, 2**64 - 1, 3], dtype=np.uint64), r"indptr values must lie in 0\.\.len\(y_score\) = 3; "
                                                   r"got indptr\[1\] = 18446744073709551615"),
    (np.array([0, 2**63, 3], dtype=np.uint64), r"got indptr\[1\] = 9223372036854775808"),
    ([0, -1, 3], r"indptr values must lie in 0\.\.len\(y_score\) = 3; got indptr\[1\] = -1"),
    ([0, 5, 3], r"got indptr\[1\] = 5"),
])
def test_indptr_values_outside_the_items(indptr, match):
    with pytest.raises(ValueError, match=match):
        rw.evaluate([1, 0, 1], [0.2, 0.1, 0.3], ["MRR"], indptr=indptr)


PER_METRIC = [rw.reciprocal_rank, rw.average_precision, rw.ndcg, rw.dcg, rw.precision, rw.recall, rw.r_precision,
              rw.hit_rate, rw.err, rw.rbp]


@pytest.mark.parametrize("indptr, value", [
    ([0, 2**63, 3], "9223372036854775808"),          # NumPy makes float64 of this list
    ([0, 2**64 - 1, 3], "18446744073709551615"),     # float64 too
    ([0, 2**64, 3], "18446744073709551616"),         # beyond uint64: an object array
    ([0, -(2**63) - 1, 3], "-9223372036854775809"),  # below int64: an object array
    ([0, np.uint64(2**63), 3], "9223372036854775808"),
])
@pytest.mark.parametrize("func", [None, *PER_METRIC], ids=lambda f: "evaluate" if f is None else f.__name__)
def test_indptr_beyond_int64_is_a_value_error(func, indptr, value):
    # Python ints beyond int64 in a list: the value is out of range, not of the wrong type.
    kwargs = {"k": 2} if func in (rw.precision, rw.recall, rw.hit_rate) else {}
    with pytest.raises(ValueError, match=rf"indptr must hold integers from 0 to len\(y_score\) = 3; got {value} "
                                         r"at position 1"):
        if func is None:
            rw.evaluate([1, 0, 1], [0.2, 0.1, 0.3], ["MRR"], indptr=indptr)
        else:
            func([1, 0, 1], [0.2, 0.1, 0.3], indptr=indptr, **kwargs)


def test_indptr_of_mixed_numpy_integer_scalars_is_read():
    # int64 and uint64 scalars in one list make float64 in NumPy; they are integers all the same.
    got = rw.evaluate([1, 0, 1], [0.2, 0.1, 0.3], ["MRR"], indptr=[np.int64(0), np.uint64(2), 3])["MRR"]
    np.testing.assert_array_equal(got, [1.0, 1.0])


@pytest.mark.parametrize("func", [rw.precision, rw.recall, rw.hit_rate], ids=lambda f: f.__name__)
def test_required_cutoff_of_none_is_a_type_error(func):
    with pytest.raises(TypeError, match=rf"^{func.__name__}: cutoff k must be an integer from 1 to 2\*\*63 - 1, "
                                        "got None$"):
        func(T, S, k=None)


@pytest.mark.parametrize("option", ["indptr", "qid"])
@pytest.mark.parametrize("which", ["y_true", "y_score"])
def test_grouping_2d_input_names_the_array(option, which):
    flat = {"y_true": [0, 1, 2, 1, 0, 0], "y_score": [0.5, 0.25, 0.125, 0.75, 0.5, 0.5]}
    flat[which] = np.asarray(flat[which])[:, None]
    grouping = {"indptr": [0, 3, 6], "qid": [1, 1, 1, 2, 2, 2]}[option]
    with pytest.raises(ValueError, match=rf"^{option}= groups 1-D y_true and y_score, but {which} is 2-D "
                                         r"\(shape \(6, 1\)\); 2-D inputs already hold one query per row$"):
        rw.evaluate(flat["y_true"], flat["y_score"], ["MRR"], **{option: grouping})


def test_unsigned_indptr_within_range_is_read():
    got = rw.evaluate([1, 0, 1], [0.2, 0.1, 0.3], ["MRR"], indptr=np.array([0, 2, 3], dtype=np.uint64))["MRR"]
    np.testing.assert_array_equal(got, [1.0, 1.0])


@pytest.mark.parametrize("dtype", [np.longdouble, np.complex128, "datetime64[ns]", "timedelta64[ns]", object, "S3"])
def test_unsupported_score_and_label_dtypes(dtype):
    if np.dtype(dtype) == np.longdouble and np.finfo(np.longdouble).bits == 64:
        pytest.skip("longdouble is float64 on this platform")
    with pytest.raises(TypeError, match=r"y_score must be"):
        rw.evaluate(T, np.array(S).astype(dtype), ["MRR"])
    with pytest.raises(TypeError, match=r"y_true must"):
        rw.evaluate(np.array(T).astype(dtype), S, ["MRR"])


@pytest.mark.parametrize("labels, gain", [([[1e308, 1e308, 0.0]], "linear"), ([[1023, 1023, 0]], "exponential"),
                                          ([[1e307] * 20], "linear")])
@pytest.mark.parametrize("metric", ["DCG", "nDCG", "nDCG@1"])
def test_labels_whose_gains_overflow_float64(labels, gain, metric):
    # Before: DCG inf and nDCG NaN (inf / inf), or 0 (finite / inf), without a word.
    with pytest.raises(ValueError, match=rf"y_true has labels up to .*: with gain='{gain}' their gains sum beyond "
                                         "the largest float64"):
        rw.evaluate(labels, [[0.3, 0.2, 0.1] + [0.0] * (len(labels[0]) - 3)], [metric], gain=gain)


def test_huge_labels_are_fine_where_no_gain_is_summed():
    labels = [[1e308, 0.0, 1e308]]
    assert rw.evaluate(labels, [[0.3, 0.2, 0.1]], ["MRR", "MAP", "P@2", "ERR"]).mean() == pytest.approx(
        {"MRR": 1.0, "MAP": (1 + 2 / 3) / 2, "P@2": 0.5, "ERR": 1.0})
    # One gain near the largest float64 is still a finite DCG.
    assert rw.dcg([[1023, 0]], [[1.0, 0.5]], gain="exponential") == 2.0**1023 - 1


def test_integer_labels_and_level_both_beyond_2_53():
    y_true = np.array([[2**62, 0]], dtype=np.int64)
    with pytest.raises(ValueError, match=r"relevance_level=.* and labels of y_true are both above 2\*\*53"):
        rw.evaluate(y_true, [[0.2, 0.1]], ["MRR"], relevance_level=2.0**60)
    assert rw.reciprocal_rank(y_true, [[0.1, 0.2]], relevance_level=2.0**53) == 0.5


@pytest.mark.parametrize("y_true, y_score, exc, match", [
    # NumPy makes float64 of these lists, where 2**63 + 1 ties with 2**63: MRR 0.75 instead of 1.
    ([[0, 1, 0]], [[0, 2**63 + 1, 2**63]], ValueError,
     r"y_score has integers beyond 2\*\*53, which float64 cannot hold exactly"),
    ([[0, 2**63]], [[0.1, 0.2]], ValueError, r"y_true has labels beyond 2\*\*63 - 1 \(up to 9223372036854775808\)"),
    # Beyond 64 bits (object arrays): numbers out of range, not a wrong type.
    ([[0, 1]], [[0, 2**64]], ValueError,
     r"y_score holds the integer 18446744073709551616 at row 0, column 1, which no 64-bit integer type holds"),
    ([[0, 1]], [[0, -(2**64)]], ValueError, "y_score holds the integer -18446744073709551616"),
    ([[0, 2**64]], [[0.1, 0.2]], ValueError, "y_true holds the integer 18446744073709551616 at row 0, column 1"),
    ([[0, 10**400]], [[0.1, 0.2]], ValueError, r"y_true holds the integer 100000000000\.\.\. \(an integer of 401 "
                                               r"digits\) at row 0, column 1"),
])
def test_python_integers_beyond_int64_are_kept_exact_or_refused(y_true, y_score, exc, match):
    with pytest.raises(exc, match=match):
        rw.evaluate(y_true, y_score, ["MRR"])


def test_python_integer_scores_and_labels_within_int64_are_read():
    got = rw.evaluate([[0, 2**62, 0]], [[0, 2**53, 2**53 - 1]], ["MRR", "P@1"]).mean()
    assert got == {"MRR": 1.0, "P@1": 1.0}


@pytest.mark.parametrize("qid", [[0, 0, 2**63 + 1, 2**63 + 1, 2**63, 2**63],          # NumPy: float64
                                 [-1, -1, 2**64 + 1, 2**64 + 1, 2**64, 2**64]])     # NumPy: object
def test_integer_query_ids_beyond_int64_stay_distinct(qid):
    # As float64, 2**63 + 1 and 2**63 (or 2**64 + 1 and 2**64) would be one query.
    y_true, y_score = [1, 0, 0, 1, 1, 0], [0.2, 0.1, 0.3, 0.4, 0.5, 0.6]
    res = rw.evaluate(y_true, y_score, ["MRR"], qid=qid)
    assert res.query_ids.tolist() == sorted(set(qid))
    want = rw.evaluate(y_true, y_score, ["MRR"], indptr=[0, 2, 4, 6])["MRR"]
    by_id = dict(zip(dict.fromkeys(qid), want.tolist(), strict=True))
    assert res["MRR"].tolist() == [by_id[q] for q in sorted(set(qid))]


@pytest.mark.parametrize("doc_ids", [[[0, 2**63 + 1, 2**63]], [[-1, 2**64 + 1, 2**64]]])
def test_integer_doc_ids_beyond_int64_stay_distinct(doc_ids):
    # trec_eval orders tied documents by id, compared as text: the same as passing them as str.
    kwargs = dict(y_true=[[1, 0, 1]], y_score=[[0.2, 0.2, 0.2]], metrics=["MRR", "MAP"], ties="trec")
    got = rw.evaluate(doc_ids=doc_ids, **kwargs).mean()
    assert got == rw.evaluate(doc_ids=[[str(d) for d in doc_ids[0]]], **kwargs).mean()
