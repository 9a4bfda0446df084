"""Bad input: a clear exception naming the argument, raised before any result is returned.

Every check runs before the kernels but the one for NaN scores, which the kernels make as
they read the scores.
"""
import numpy as np
import pytest

import rankwise as rw
from rankwise import _parallel

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
     "duplicate id 'a' within one query"),
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
    (lambda: rw.recall(T, S, k=None), "recall: R needs a cutoff"),
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
