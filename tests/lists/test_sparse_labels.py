"""evaluate with a scipy.sparse y_true and exclude=: the same numbers, bit for bit, as the dense
lists with the excluded items removed by hand (flat arrays grouped by indptr)."""
import numpy as np
import pytest

import rankwise as rw

sp = pytest.importorskip("scipy.sparse")

POLICIES = ["expected", "optimistic", "pessimistic", "stable", "trec"]
METRICS = ["RR", "AP", "Rprec", "DCG", "nDCG", "ERR", "RBP", "RBP(p=0.9, graded=true)@3",
           "nDCG(gain=exponential)@5", "RR@3", "AP@5", "P@5", "R@5", "F1@3", "Hits@2", "DCG@4", "nDCG@10",
           "ERR@5", "RBP@5", "P@100"]


def recommender_data(rng, n_users=40, n_items=30, dtype=np.float64, float_labels=False):
    """Scores with many ties, held-out labels (graded) and training items disjoint from them."""
    scores = rng.integers(0, 5, (n_users, n_items)).astype(dtype)
    scores[rng.random((n_users, n_items)) < 0.05] = np.inf
    grades = [0.5, 1.0, 2.5] if float_labels else [1, 2, 3]
    labels = np.where(rng.random((n_users, n_items)) < 0.15, rng.choice(grades, (n_users, n_items)), 0)
    train = (rng.random((n_users, n_items)) < 0.3) & (labels == 0)
    train[0] = labels[0] == 0        # every candidate left is relevant
    train[1] = True
    labels[1] = 0                    # nothing left at all
    labels[2] = 0                    # no relevant item
    return scores, labels, train


def by_hand(scores, labels, train, doc_ids):
    """The dense equivalent: each row's items but the excluded, flattened, grouped by indptr."""
    keep = ~train
    lengths = keep.sum(axis=1)
    indptr = np.concatenate([[0], np.cumsum(lengths)])
    ids = np.broadcast_to(doc_ids, scores.shape)[keep]
    return labels[keep], scores[keep], indptr, ids


@pytest.mark.parametrize("ties", POLICIES)
@pytest.mark.parametrize("float_labels", [False, True])
def test_sparse_labels_and_exclusion_equal_the_lists_by_hand(rng, ties, float_labels):
    scores, labels, train = recommender_data(rng, float_labels=float_labels)
    doc_ids = np.array([f"item{j}" for j in range(scores.shape[1])])
    flat_labels, flat_scores, indptr, ids = by_hand(scores, labels, train, doc_ids)
    expected = rw.evaluate(flat_labels, flat_scores, METRICS, indptr=indptr, doc_ids=ids, ties=ties)
    for y_true in (sp.csr_array(labels), sp.coo_matrix(labels), labels):
        for exclude in (sp.csr_array(train), sp.csc_matrix(train), train):
            got = rw.evaluate(y_true, scores, METRICS, exclude=exclude, doc_ids=doc_ids, ties=ties)
            np.testing.assert_array_equal(got.query_ids, np.arange(scores.shape[0]))
            for name in METRICS:
                assert got[name].tobytes() == expected[name].tobytes(), name
    # Without exclude: the sparse labels are the dense matrix.
    dense = rw.evaluate(labels, scores, METRICS, doc_ids=doc_ids, ties=ties)
    got = rw.evaluate(sp.csr_array(labels), scores, METRICS, doc_ids=doc_ids, ties=ties)
    for name in METRICS:
        assert got[name].tobytes() == dense[name].tobytes(), name


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_per_metric_functions_accumulator_threads_and_doc_ids_per_score(rng, dtype, monkeypatch):
    scores, labels, train = recommender_data(rng, n_users=60, dtype=dtype)
    y_true, exclude = sp.csr_array(labels), sp.csr_array(train)
    flat_labels, flat_scores, indptr, _ = by_hand(scores, labels, train, np.arange(scores.shape[1]))
    assert rw.ndcg(y_true, scores, 5, exclude=exclude) == rw.ndcg(flat_labels, flat_scores, 5, indptr=indptr)
    np.testing.assert_array_equal(rw.recall(y_true, scores, 5, exclude=exclude, per_query=True),
                                  rw.recall(flat_labels, flat_scores, 5, indptr=indptr, per_query=True))
    acc = rw.Accumulator(["AP", "nDCG@5"]).update(y_true[:30], scores[:30], exclude=exclude[:30])
    acc.update(y_true[30:], scores[30:], exclude=exclude[30:])
    assert acc.mean() == rw.evaluate(y_true, scores, ["AP", "nDCG@5"], exclude=exclude).mean()
    monkeypatch.setattr(rw._core.parallel, "_MIN_ITEMS_PER_THREAD", 1)
    runs = [rw.evaluate(y_true, scores, METRICS, exclude=exclude, n_threads=n) for n in (1, 2, 4)]
    for res in runs[1:]:
        for name in METRICS:
            assert res[name].tobytes() == runs[0][name].tobytes()
    # doc_ids given per score (users x items), ties="trec".
    ids = np.array([[f"u{u}i{(j * 7 + u) % scores.shape[1]}" for j in range(scores.shape[1])]
                    for u in range(scores.shape[0])])
    keep = ~train
    expected = rw.evaluate(flat_labels, flat_scores, METRICS, indptr=indptr, doc_ids=ids[keep], ties="trec")
    got = rw.evaluate(y_true, scores, METRICS, exclude=exclude, doc_ids=ids, ties="trec")
    for name in METRICS:
        assert got[name].tobytes() == expected[name].tobytes(), name


def test_excluded_relevant_item_is_an_error():
    labels = sp.csr_array(np.array([[0, 1, 0], [2, 0, 1]]))
    train = np.array([[True, False, False], [False, False, True]])
    with pytest.raises(ValueError, match=r"exclude removes row 1, column 2, which y_true labels 1"):
        rw.evaluate(labels, np.zeros((2, 3)), ["MRR"], exclude=train)
    with pytest.raises(ValueError, match=r"exclude removes row 0, column 1"):
        rw.evaluate(labels.toarray(), np.zeros((2, 3)), ["MRR"], exclude=np.ones((2, 3), dtype=bool))


def test_bad_inputs_name_their_argument():
    labels = sp.csr_array(np.array([[0, 1, 0]]))
    with pytest.raises(ValueError, match=r"y_true must have shape \(1, 4\), got \(1, 3\)"):
        rw.evaluate(labels, np.zeros((1, 4)), ["MRR"])
    with pytest.raises(ValueError, match=r"exclude must have shape \(1, 3\), got \(2, 3\)"):
        rw.evaluate(labels, np.zeros((1, 3)), ["MRR"], exclude=np.zeros((2, 3), dtype=bool))
    with pytest.raises(ValueError, match="need a 2-D y_score"):
        rw.evaluate(labels, np.zeros(3), ["MRR"])
    with pytest.raises(ValueError, match="need a 2-D y_score"):
        rw.evaluate([0, 1, 0], np.zeros(3), ["MRR"], exclude=[False, True, False])
    with pytest.raises(ValueError, match="indptr= groups 1-D inputs"):
        rw.evaluate(labels, np.zeros((1, 3)), ["MRR"], indptr=[0, 3])
    with pytest.raises(ValueError, match="qid= groups 1-D inputs"):
        rw.evaluate([[0, 1, 0]], np.zeros((1, 3)), ["MRR"], qid=[0], exclude=np.zeros((1, 3), dtype=bool))
    with pytest.raises(ValueError, match="y_true must hold finite labels >= 0; found -1 at row 0, column 2"):
        rw.evaluate(sp.csr_array(np.array([[0, 1, -1]])), np.zeros((1, 3)), ["MRR"])
    with pytest.raises(ValueError, match=r"y_true stores \(row 0, column 1\) more than once"):
        rw.evaluate(sp.coo_array(([1, 1], ([0, 0], [1, 1])), shape=(1, 3)), np.zeros((1, 3)), ["MRR"])
    with pytest.raises(TypeError, match="exclude must be a boolean mask"):
        rw.evaluate(labels, np.zeros((1, 3)), ["MRR"], exclude=np.zeros((1, 3)))
    with pytest.raises(TypeError, match="y_score must be a dense array"):
        rw.evaluate(labels, sp.csr_array(np.ones((1, 3))), ["MRR"])
    with pytest.raises(ValueError, match="pass doc_ids="):
        rw.evaluate(labels, np.zeros((1, 3)), ["MRR"], ties="trec")


def test_nan_scores_named_where_they_are_read():
    labels = sp.csr_array(np.array([[0, 1, 0, 0], [1, 0, 0, 0]]))
    scores = np.array([[np.nan, 0.5, 0.1, 0.2], [0.3, 0.2, np.nan, 0.0]])
    train = np.array([[True, False, False, False], [False, False, False, False]])
    with pytest.raises(ValueError, match=r"y_score contains NaN \(first at row 1, column 2\)"):
        rw.evaluate(labels, scores, ["MRR"], exclude=train)
    train[1, 2] = True   # every NaN excluded: none is read
    assert rw.evaluate(labels, scores, ["MRR"], exclude=train).mean() == {"MRR": 1.0}
    train[1, 1] = True   # the NaN at row 0, column 3 is the first read, after an excluded one
    scores[0, 3] = np.nan
    with pytest.raises(ValueError, match=r"first at row 0, column 3\)"):
        rw.evaluate(labels, scores, ["MRR"], exclude=train)
    res = rw.evaluate(labels, scores, ["MRR"], exclude=train, nan="last")
    np.testing.assert_array_equal(res["MRR"], [1.0, 1.0])


def test_inputs_unchanged_and_read_only(rng):
    scores, labels, train = recommender_data(rng, n_users=8)
    y_true, exclude = sp.csr_array(labels), sp.csr_array(train)
    for arr in (scores, y_true.data, y_true.indices, y_true.indptr, exclude.data, exclude.indices):
        arr.flags.writeable = False
    before = [a.copy() for a in (scores, y_true.data, y_true.indices, exclude.indices)]
    rw.evaluate(y_true, scores, ["nDCG@5"], exclude=exclude)
    rw.evaluate(y_true, scores[:, ::-1], ["nDCG@5"], exclude=exclude)  # rows with a negative stride
    for old, new in zip(before, (scores, y_true.data, y_true.indices, exclude.indices), strict=True):
        np.testing.assert_array_equal(old, new)
