"""Every input layout and dtype gives the same values; inputs are never modified."""
import numpy as np
import pytest

import rankwise as rw

METRICS = ["MRR", "MAP", "nDCG@5", "P@3", "R@4", "Rprec", "DCG", "Hits@2", "ERR@5", "RBP", "F1@3", "AP@4"]
POLICIES = ["expected", "optimistic", "pessimistic", "stable"]


@pytest.fixture
def dense(rng):
    y_true = rng.integers(0, 4, (30, 12))
    y_true[3] = 0
    y_score = np.round(rng.normal(size=(30, 12)), 1)
    y_score[5] = 0.5
    return y_true, y_score


def table(res):
    return np.column_stack([res[name] for name in METRICS])


def interleave(ids, rng):
    """A random order of rows that mixes queries but keeps each query's rows in order."""
    queries = rng.permutation(ids)  # which query each output slot takes its next row from
    order = np.empty(ids.size, dtype=np.int64)
    for q in np.unique(ids):
        order[queries == q] = np.flatnonzero(ids == q)
    return order


@pytest.mark.parametrize("ties", POLICIES)
def test_dense_indptr_and_qid_agree(dense, rng, ties):
    y_true, y_score = dense
    want = table(rw.evaluate(y_true, y_score, METRICS, ties=ties))
    indptr = np.arange(31) * 12
    got = table(rw.evaluate(y_true.ravel(), y_score.ravel(), METRICS, indptr=indptr, ties=ties))
    np.testing.assert_array_equal(got, want)
    # Ids of several dtypes, rows interleaved: each query keeps its rows' relative
    # order, so even the stable policy is unchanged; output is sorted by id.
    for ids in (np.array([f"q{i:03d}" for i in range(30)]).repeat(12),
                np.repeat(np.arange(30) * 7 - 50, 12),
                np.repeat(np.arange(30) / 4, 12)):
        order = interleave(ids, rng)
        res = rw.evaluate(y_true.ravel()[order], y_score.ravel()[order], METRICS, qid=ids[order], ties=ties)
        np.testing.assert_array_equal(res.query_ids, np.unique(ids))
        np.testing.assert_array_equal(table(res), want)


@pytest.mark.parametrize("ties", POLICIES)
def test_one_ranking_many_topics_is_never_reranked(dense, ties):
    y_true, _ = dense
    ranking = np.round(np.linspace(1, 0, 12), 1)
    ranking[4:7] = 0.6  # a tie group in the shared ranking
    want = table(rw.evaluate(y_true, np.tile(ranking, (30, 1)), METRICS, ties=ties))
    np.testing.assert_array_equal(table(rw.evaluate(y_true, ranking, METRICS, ties=ties)), want)


def test_single_1d_list_is_one_query():
    res = rw.evaluate([0, 1, 1], [0.3, 0.2, 0.1], ["MRR", "MAP"])
    assert res.n_queries == 1
    assert res.mean() == {"MRR": 0.5, "MAP": pytest.approx((1 / 2 + 2 / 3) / 2)}


def test_empty_input_and_empty_queries():
    res = rw.evaluate(np.zeros((0, 5)), np.zeros((0, 5)), ["MRR"])
    assert res.n_queries == 0 and np.isnan(res.mean()["MRR"])
    res = rw.evaluate([], [], ["MRR", "P@5"], indptr=[0, 0, 0])
    np.testing.assert_array_equal(res["P@5"], [0.0, 0.0])
    assert rw.evaluate(np.zeros((3, 0)), np.zeros((3, 0)), ["nDCG"])["nDCG"].tolist() == [0, 0, 0]


LABEL_DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
                np.uint64, np.float16, np.float32, np.float64]
SCORE_DTYPES = [np.float32, np.float64, np.float16, np.int32, np.int64, np.uint8, np.bool_]


@pytest.mark.parametrize("label_dtype", LABEL_DTYPES)
@pytest.mark.parametrize("score_dtype", SCORE_DTYPES)
def test_dtypes(rng, label_dtype, score_dtype):
    y_true = rng.integers(0, 2 if label_dtype is np.bool_ else 4, (20, 9))
    y_score = rng.integers(0, 2 if score_dtype is np.bool_ else 5, (20, 9))
    want = table(rw.evaluate(y_true.astype(np.float64), y_score.astype(np.float64), METRICS))
    got = table(rw.evaluate(y_true.astype(label_dtype), y_score.astype(score_dtype), METRICS))
    np.testing.assert_allclose(got, want, rtol=1e-14, atol=1e-15)


def test_float32_scores_keep_float32_ties(rng):
    # Distinct in float64, equal once rounded to float32: the call must see float32 ties.
    scores64 = np.array([[1.0, 1.0 + 1e-9, 0.5]])
    labels = np.array([[1, 0, 0]])
    assert rw.reciprocal_rank(labels, scores64) == 0.5
    assert rw.reciprocal_rank(labels, scores64.astype(np.float32)) == 0.75


@pytest.mark.parametrize("ties", POLICIES)
def test_strided_big_endian_readonly_and_memmap(dense, tmp_path, ties):
    y_true, y_score = dense
    want = table(rw.evaluate(y_true, y_score, METRICS, ties=ties))
    # Fortran order, a strided view, and byte-swapped arrays.
    np.testing.assert_array_equal(
        table(rw.evaluate(np.asfortranarray(y_true), np.asfortranarray(y_score), METRICS, ties=ties)), want)
    wide_true, wide_score = np.repeat(y_true, 2, axis=1), np.repeat(y_score, 2, axis=1)
    np.testing.assert_array_equal(
        table(rw.evaluate(wide_true[:, ::2], wide_score[:, ::2], METRICS, ties=ties)), want)
    np.testing.assert_array_equal(
        table(rw.evaluate(y_true.astype(">i4"), y_score.astype(">f8"), METRICS, ties=ties)), want)
    # Read-only and memory-mapped arrays.
    ro_true, ro_score = y_true.copy(), y_score.copy()
    ro_true.flags.writeable = ro_score.flags.writeable = False
    np.testing.assert_array_equal(table(rw.evaluate(ro_true, ro_score, METRICS, ties=ties)), want)
    np.save(tmp_path / "t.npy", y_true)
    np.save(tmp_path / "s.npy", y_score)
    mm_true = np.load(tmp_path / "t.npy", mmap_mode="r")
    mm_score = np.load(tmp_path / "s.npy", mmap_mode="r")
    np.testing.assert_array_equal(table(rw.evaluate(mm_true, mm_score, METRICS, ties=ties)), want)


def test_inputs_are_not_modified(dense, rng):
    y_true, y_score = dense
    ids = rng.permutation(np.repeat(np.arange(30), 12))
    doc_ids = np.array([f"d{i}" for i in range(y_score.size)])
    copies = [a.copy() for a in (y_true, y_score, ids, doc_ids)]
    for ties in ("expected", "optimistic", "pessimistic", "stable", "trec"):
        rw.evaluate(y_true, y_score, METRICS, ties=ties, doc_ids=doc_ids.reshape(30, 12))
        rw.evaluate(y_true.ravel(), y_score.ravel(), METRICS, qid=ids, ties=ties, doc_ids=doc_ids)
    for before, after in zip(copies, (y_true, y_score, ids, doc_ids), strict=True):
        np.testing.assert_array_equal(before, after)


def test_lists_and_tuples_are_accepted():
    assert rw.evaluate(((0, 1),), [[0.1, 0.9]], ("MRR",)).mean() == {"MRR": 1.0}


def test_trec_ties_order_by_doc_id_descending_bytewise():
    labels = [[1, 0, 0]]
    scores = [[0.5, 0.5, 0.5]]
    # "9" > "10" byte-wise, so doc "9" ranks first, then "10", then "1".
    assert rw.reciprocal_rank(labels, scores, ties="trec", doc_ids=[["9", "10", "1"]]) == 1.0
    assert rw.reciprocal_rank(labels, scores, ties="trec", doc_ids=[["10", "9", "1"]]) == 0.5
    # Integer doc ids compare as their decimal strings, as trec_eval reads them.
    assert rw.reciprocal_rank(labels, scores, ties="trec", doc_ids=[[10, 9, 1]]) == 0.5
    # Non-ASCII: code-point order equals UTF-8 byte order ("é" > "z").
    assert rw.reciprocal_rank(labels, scores, ties="trec", doc_ids=[["é", "z", "a"]]) == 1.0
    # 1-D doc ids broadcast over the rows of 2-D scores.
    assert rw.reciprocal_rank([[1, 0, 0], [0, 0, 1]], [[0.5] * 3] * 2, ties="trec",
                              doc_ids=["b", "c", "a"], per_query=True).tolist() == [0.5, 1 / 3]


def test_trec_ties_with_interleaved_qid_rows():
    # Rows of two queries interleaved: each query's ids are searched for duplicates on their
    # own, so one id in both queries is no duplicate, and the tie order is that of grouped rows.
    qid, docs = [1, 2, 1, 2], ["a", "a", "b", "b"]
    res = rw.evaluate([1, 0, 0, 1], [0.5] * 4, ["MRR"], qid=qid, doc_ids=docs, ties="trec")
    grouped = rw.evaluate([1, 0, 0, 1], [0.5] * 4, ["MRR"], qid=[1, 1, 2, 2], doc_ids=["a", "b", "a", "b"],
                          ties="trec")
    assert res["MRR"].tolist() == grouped["MRR"].tolist() == [0.5, 1.0]
    with pytest.raises(ValueError, match=r"doc_ids has document 'a' twice for query 1 \(rows 0 and 2\)"):
        rw.evaluate([1, 0, 0, 1], [0.5] * 4, ["MRR"], qid=qid, doc_ids=["a", "a", "a", "b"], ties="trec")


def _trec_error(**layout):
    with pytest.raises(ValueError) as error:
        rw.evaluate(metrics=["MAP"], ties="trec", **layout)
    return str(error.value)


def test_a_document_twice_is_named_by_query_id_and_the_callers_rows():
    # Query "b" has a duplicate earlier in the rows, but evaluate reports the first query in
    # its sorted order of ids, "a"; in it, the document whose second row comes first ("y",
    # rows 3 and 6, before "x" at rows 1 and 7). Rows index the caller's arrays.
    qid = ["b", "a", "b", "a", "b", "c", "a", "a"]
    docs = ["u", "x", "u", "y", "v", "x", "y", "x"]
    message = _trec_error(y_true=np.zeros(8), y_score=np.zeros(8), qid=qid, doc_ids=docs)
    assert message == "doc_ids has document 'y' twice for query 'a' (rows 3 and 6); trec_eval rejects duplicates"
    assert qid[3] == qid[6] == "a" and docs[3] == docs[6] == "y"
    # Integer ids (and documents), shown as the numbers they are.
    message = _trec_error(y_true=np.zeros(4), y_score=np.zeros(4), qid=np.array([9, 7, 9, 7]),
                          doc_ids=np.array([5, 5, 5, 6]))
    assert message == "doc_ids has document '5' twice for query 9 (rows 0 and 2); trec_eval rejects duplicates"


def test_a_document_twice_without_query_ids_is_numbered_within_its_query():
    # indptr= and 2-D inputs have no ids: the query is its number, the rows are its own.
    message = _trec_error(y_true=np.zeros(5), y_score=np.zeros(5), indptr=[0, 2, 5], doc_ids=list("abcdc"))
    assert message == "doc_ids has document 'c' twice for query 1 (rows 0 and 2); trec_eval rejects duplicates"
    message = _trec_error(y_true=np.zeros((2, 3)), y_score=np.zeros((2, 3)), doc_ids=[list("abc"), list("aba")])
    assert message == "doc_ids has document 'a' twice for query 1 (rows 0 and 2); trec_eval rejects duplicates"
    message = _trec_error(y_true=np.zeros((2, 3)), y_score=np.zeros((2, 3)), doc_ids=list("abb"))
    assert message == "doc_ids has document 'b' twice for every query (rows 1 and 2); trec_eval rejects duplicates"


@pytest.mark.parametrize("ties", ["expected", "optimistic", "pessimistic", "trec"])
def test_row_order_within_queries_changes_no_bit(ties):
    # An engine's shuffle delivers each query's rows in any order: only "stable" may see it.
    # Under "expected" the tie groups' sums of ERR and graded RBP must add in one order.
    rng = np.random.default_rng(7)
    n = 3000
    qid, labels = rng.integers(0, 20, n), rng.integers(0, 5, n) * 0.5
    scores, docs = rng.integers(0, 6, n).astype(np.float32), rng.permutation(n)
    metrics = ["ERR", "ERR@5", "RBP(p=0.5, graded=True)", "nDCG@10", "MAP", "RR@3"]
    want = rw.evaluate(labels, scores, metrics, qid=qid, ties=ties, doc_ids=docs)
    shuffled = rng.permutation(n)
    got = rw.evaluate(labels[shuffled], scores[shuffled], metrics, qid=qid[shuffled], ties=ties,
                      doc_ids=docs[shuffled])
    for name in metrics:
        assert want[name].tobytes() == got[name].tobytes(), name
