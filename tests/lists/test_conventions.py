"""convention= against transcriptions of each library's source (rankwise.testing.recsys)."""
import pickle

import numpy as np
import pytest

import rankwise as rw
from rankwise._core._enums import Metric
from rankwise.lists.conventions import CONVENTIONS, Convention, get_convention
from rankwise.lists.names import parse_metric
from rankwise.testing import recsys as ref

# rankwise's name for each key of ref.library_means at cutoff k.
NAMES = {"P": "P@{k}", "R": "R@{k}", "AP": "AP@{k}", "nDCG": "nDCG@{k}"}
EXTRA = {"spark": {"MAP": "AP"}, "recommenders": {"MAP": "AP(denom=R)@{k}"}}


def users(rng, n_users, n_items, graded):
    """Distinct positive scores (no ties: every library ranks them alike), held-out items
    with grades 1..3 (or 1), some users without any."""
    y_score = rng.permutation(n_users * n_items).reshape(n_users, n_items) + 1.0
    y_true = (rng.random((n_users, n_items)) < 0.15) * (rng.integers(1, 4, (n_users, n_items)) if graded else 1)
    y_true[:3] = 0
    y_true[3, :] = 1  # every item relevant: R > k
    ranked = np.argsort(-y_score, axis=1)
    pairs = [(row.tolist(), {int(i): int(y_true[u, i]) for i in np.flatnonzero(y_true[u])})
             for u, row in enumerate(ranked)]
    return y_true, y_score, pairs


@pytest.mark.parametrize("library", ref.LIBRARIES)
@pytest.mark.parametrize("k", [1, 3, 10])
@pytest.mark.parametrize("graded", [False, True])
def test_each_convention_reproduces_its_library(rng, library, k, graded):
    y_true, y_score, pairs = users(rng, 60, 25, graded)
    want = ref.library_means(library, pairs, k)
    names = {key: NAMES.get(key, EXTRA.get(library, {}).get(key, "")).format(k=k) for key in want}
    res = rw.evaluate(y_true, y_score, list(names.values()), convention=library, ties="stable")
    got = res.mean()
    for key, name in names.items():
        assert got[name] == pytest.approx(want[key], rel=1e-12, abs=1e-15), (library, key)


def test_trec_is_the_default():
    rng = np.random.default_rng(5)
    y_true, y_score, _ = users(rng, 40, 20, graded=True)
    names = ["P@5", "R@5", "AP@5", "MAP", "nDCG@5", "nDCG"]
    plain = rw.evaluate(y_true, y_score, names)
    trec = rw.evaluate(y_true, y_score, names, convention="trec")
    for name in names:
        np.testing.assert_array_equal(plain[name], trec[name])


def test_implicit_precision_is_a_micro_average():
    # User 0: 1 hit of min(2, R=3) = 2; user 1: 1 hit of min(2, 1) = 1; user 2: no item.
    y_true = [[1, 0, 1, 1], [0, 1, 0, 0], [0, 0, 0, 0]]
    y_score = [[4.0, 3.0, 2.0, 1.0], [4.0, 3.0, 2.0, 1.0], [4.0, 3.0, 2.0, 1.0]]
    res = rw.evaluate(y_true, y_score, ["P@2", "R(denom=min)@2"], convention="implicit", ties="stable")
    np.testing.assert_array_equal(res["P@2"], [0.5, 1.0, np.nan])
    assert res.mean() == {"P@2": 2 / 3, "R(denom=min)@2": 0.75}   # sum(hits) / sum(min(k, R)) vs macro
    np.testing.assert_array_equal(res.weights["P@2"], [2.0, 1.0, 0.0])
    assert "R(denom=min)@2" not in res.weights
    assert pickle.loads(pickle.dumps(res)).mean() == res.mean()


def test_an_option_in_the_name_wins_over_the_convention():
    y_true, y_score = [[1, 0, 0, 1, 1]], [[5.0, 4.0, 3.0, 2.0, 1.0]]
    res = rw.evaluate(y_true, y_score, ["AP@2", "AP(denom=R)@2", "nDCG(ideal=all)@2", "nDCG@2"],
                      convention="recbole", ties="stable")
    assert res.mean()["AP@2"] == 0.5 and res.mean()["AP(denom=R)@2"] == pytest.approx(1 / 3)
    assert res.mean()["nDCG(ideal=all)@2"] < res.mean()["nDCG@2"]
    # Every spelling finds its column under the call's convention.
    assert res["AP(denom=min)@2"][0] == 0.5 and res["map_cut_2"][0] == 0.5
    assert res["AP(denom=r)@2"][0] == pytest.approx(1 / 3)


def test_binary_labels_and_the_empty_default():
    y_true, y_score = [[3, 0, 1], [0, 0, 0]], [[1.0, 3.0, 2.0], [1.0, 2.0, 3.0]]
    graded = rw.evaluate(y_true, y_score, ["nDCG@3"], convention="torchmetrics").mean()["nDCG@3"]
    binary = rw.evaluate(y_true, y_score, ["nDCG@3"], convention="pyg")
    assert graded != binary.mean()["nDCG@3"]
    assert np.isnan(binary["nDCG@3"][1])  # pyg leaves users without labels out
    assert binary.mean()["nDCG@3"] == rw.evaluate([[1, 0, 1]], [[1.0, 3.0, 2.0]], ["nDCG@3"]).mean()["nDCG@3"]
    assert rw.evaluate(y_true, y_score, ["nDCG@3"], convention="pyg", empty="zero")["nDCG@3"][1] == 0.0
    assert rw.evaluate(y_true, y_score, ["P@1"])["P@1"][1] == 0.0  # no convention: "zero", as before
    # relevance_level binarizes at the level: label 1 is not relevant at level 2.
    level2 = rw.evaluate(y_true, y_score, ["R@3"], convention="spark", relevance_level=2)
    np.testing.assert_array_equal(level2["R@3"], [1.0, 0.0])


@pytest.mark.parametrize("value, exc", [("lenskit", ValueError), ("TREC", ValueError), (1, TypeError)])
def test_unknown_convention(value, exc):
    with pytest.raises(exc, match="convention must be one of 'trec', 'recbole'"):
        rw.evaluate([[1, 0]], [[0.2, 0.1]], ["MAP"], convention=value)
    with pytest.raises(exc, match="convention must be one of"):
        get_convention(value)


def test_apply_fills_only_what_the_name_left_out():
    for conv in CONVENTIONS.values():
        assert isinstance(conv, Convention) and conv.citation
        assert conv.apply(parse_metric("MRR")) == parse_metric("MRR")
        assert conv.apply(parse_metric("AP(denom=hits)@3")).denom == "hits"
        assert conv.apply(parse_metric("nDCG(ideal=all)@3")).ideal == "all"
    assert get_convention("torchmetrics").apply(parse_metric("MAP@5")).name == "AP(denom=hits)@5"
    assert get_convention("implicit").apply(parse_metric("P@5")).kind == Metric.RECALL
    assert get_convention("recbole").mean_weights(parse_metric("P@5"), np.array([3])) is None


def test_hits_under_expected_ties_is_refused_through_a_convention():
    with pytest.raises(ValueError, match=r"metric 'AP\(denom=hits\)@10' .* cannot honour ties='expected'"):
        rw.evaluate([[1, 0]], [[0.5, 0.5]], ["MAP@10"], convention="torchmetrics")


# The libraries themselves, where they are installed (the peers' environment): the same
# data as the transcriptions. torchmetrics computes in float32 in places (1e-7).

def _peer_data(graded):
    y_true, y_score, pairs = users(np.random.default_rng(2), 50, 20, graded)
    y_true[3, -1] = 0  # implicit's AUC divides by the non-relevant items: a ZeroDivisionError without one
    return y_true, y_score, np.argsort(-y_score, axis=1)


@pytest.mark.parametrize("k", [1, 3, 10])
def test_torchmetrics_itself(k):
    torch = pytest.importorskip("torch")
    retrieval = pytest.importorskip("torchmetrics.retrieval")
    for graded in (False, True):
        y_true, y_score, _ = _peer_data(graded)
        n_users, n_items = y_true.shape
        index = torch.arange(n_users).repeat_interleave(n_items)
        preds, target = torch.tensor(y_score.ravel()), torch.tensor(y_true.ravel())
        want = {f"AP@{k}": retrieval.RetrievalMAP(top_k=k)(preds, target > 0, indexes=index),
                f"R@{k}": retrieval.RetrievalRecall(top_k=k)(preds, target > 0, indexes=index),
                f"P@{k}": retrieval.RetrievalPrecision(top_k=k)(preds, target > 0, indexes=index),
                f"nDCG@{k}": retrieval.RetrievalNormalizedDCG(top_k=k)(preds, target, indexes=index)}
        got = rw.evaluate(y_true, y_score, list(want), convention="torchmetrics", ties="stable").mean()
        assert got == pytest.approx({name: float(v) for name, v in want.items()}, rel=1e-6)


@pytest.mark.parametrize("k", [1, 3, 10])
def test_pyg_itself(k):
    torch = pytest.importorskip("torch")
    link_pred = pytest.importorskip("torch_geometric.metrics")
    y_true, y_score, ranked = _peer_data(False)
    users_, items = np.nonzero(y_true)
    labels = torch.tensor(np.stack([users_, items]))
    want = {}
    for name, cls in ((f"AP@{k}", link_pred.LinkPredMAP), (f"R@{k}", link_pred.LinkPredRecall),
                      (f"P@{k}", link_pred.LinkPredPrecision), (f"nDCG@{k}", link_pred.LinkPredNDCG)):
        metric = cls(k)
        metric.update(torch.tensor(ranked[:, :k]), labels)
        want[name] = float(metric.compute())
    got = rw.evaluate(y_true, y_score, list(want), convention="pyg", ties="stable").mean()
    assert got == pytest.approx(want, rel=1e-6)   # float32 by torch's default dtype


@pytest.mark.parametrize("k", [1, 3, 10])
def test_implicit_itself(k):
    evaluation = pytest.importorskip("implicit.evaluation")
    sparse = pytest.importorskip("scipy.sparse")
    y_true, y_score, ranked = _peer_data(False)

    class Ranked:
        def recommend(self, userid, user_items, N=10, **_):  # noqa: N803 (implicit's name)
            rows = np.atleast_1d(np.asarray(userid))
            return ranked[rows, :N].astype(np.int32), np.ones((rows.size, N), dtype=np.float32)

    test = sparse.csr_matrix(y_true.astype(np.float32))
    train = sparse.csr_matrix(y_true.shape, dtype=np.float32)
    want = evaluation.ranking_metrics_at_k(Ranked(), train, test, K=k, show_progress=False)
    got = rw.evaluate(y_true, y_score, [f"P@{k}", f"AP@{k}", f"nDCG@{k}"], convention="implicit",
                      ties="stable").mean()
    assert got == pytest.approx({f"P@{k}": want["precision"], f"AP@{k}": want["map"], f"nDCG@{k}": want["ndcg"]},
                                rel=1e-12)


@pytest.mark.parametrize("k", [1, 3, 10])
def test_recommenders_itself(k):
    pd = pytest.importorskip("pandas")
    python_evaluation = pytest.importorskip("recommenders.evaluation.python_evaluation")
    y_true, y_score, _ = _peer_data(False)
    n_users, n_items = y_true.shape
    users_, items = np.nonzero(y_true)
    truth = pd.DataFrame({"userID": users_, "itemID": items, "rating": 1.0})
    pred = pd.DataFrame({"userID": np.repeat(np.arange(n_users), n_items), "itemID": np.tile(np.arange(n_items), n_users),
                         "prediction": y_score.ravel()})
    options = {"col_user": "userID", "col_item": "itemID", "col_prediction": "prediction", "k": k}
    want = {f"P@{k}": python_evaluation.precision_at_k(truth, pred, **options),
            f"R@{k}": python_evaluation.recall_at_k(truth, pred, **options),
            f"AP@{k}": python_evaluation.map_at_k(truth, pred, **options),
            f"AP(denom=R)@{k}": python_evaluation.map(truth, pred, **options),
            f"nDCG@{k}": python_evaluation.ndcg_at_k(truth, pred, col_rating="rating", **options)}
    got = rw.evaluate(y_true, y_score, list(want), convention="recommenders", ties="stable").mean()
    assert got == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize("k", [1, 3, 10])
def test_recbole_itself(k, monkeypatch):
    monkeypatch.setattr(np, "float", float, raising=False)  # RecBole 1.2.1 uses the alias NumPy 1.24 removed
    metrics = pytest.importorskip("recbole.evaluator.metrics")
    y_true, y_score, ranked = _peer_data(False)
    held_out = y_true > 0
    keep = held_out.any(axis=1)  # the users RecBole's FullSortEvalDataLoader evaluates
    pos_index = np.take_along_axis(held_out, ranked[:, :k], axis=1)[keep]
    pos_len = held_out.sum(axis=1)[keep]
    want = {}
    for name, cls in ((f"AP@{k}", metrics.MAP), (f"R@{k}", metrics.Recall), (f"nDCG@{k}", metrics.NDCG),
                      (f"P@{k}", metrics.Precision)):
        metric = object.__new__(cls)  # metric_info needs no config
        args = (pos_index,) if cls is metrics.Precision else (pos_index, pos_len)
        want[name] = float(cls.metric_info(metric, *args)[:, k - 1].mean())
    got = rw.evaluate(y_true, y_score, list(want), convention="recbole", ties="stable").mean()
    assert got == pytest.approx(want, rel=1e-12)
