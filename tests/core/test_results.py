"""The Results object and the empty-query policies."""
import pickle

import numpy as np
import pytest

import rankwise as rw

Y_TRUE = [1, 0, 0, 0, 2, 0, 1, 1]
Y_SCORE = [0.9, 0.1, 0.5, 0.4, 0.3, 0.8, 0.7, 0.6]
QID = ["b", "b", "a", "a", "c", "c", "d", "d"]


def test_results_api():
    res = rw.evaluate(Y_TRUE, Y_SCORE, ["MRR", "ndcg_cut_2", "P@1"], qid=QID)
    assert res.names == ("MRR", "ndcg_cut_2", "P@1")
    assert list(res) == list(res.names)
    assert res.query_ids.tolist() == ["a", "b", "c", "d"]
    np.testing.assert_array_equal(res["MRR"], [0.0, 1.0, 0.5, 1.0])
    # Aliases find the same column; the gain default is resolved as in the call.
    np.testing.assert_array_equal(res["nDCG@2"], res["ndcg_cut_2"])
    np.testing.assert_array_equal(res["RR"], res["MRR"])
    assert "recip_rank" in res and "MAP" not in res and 3 not in res
    with pytest.raises(KeyError, match="'MAP' was not computed; available: MRR, ndcg_cut_2, P@1"):
        res["MAP"]
    with pytest.raises(ValueError, match="read-only"):
        res["MRR"][0] = 1
    assert list(res.mean()) == ["MRR", "ndcg_cut_2", "P@1"]
    assert res.mean()["MRR"] == 0.625
    assert res.n_relevant.tolist() == [0, 1, 1, 2]
    text = repr(res)
    assert "4 queries" in text and "ties='expected'" in text and "MRR" in text and "0.6250" in text


def test_gain_resolution_in_lookup():
    res = rw.evaluate(Y_TRUE, Y_SCORE, ["nDCG"], qid=QID, gain="exponential")
    np.testing.assert_array_equal(res["nDCG(gain=exponential)"], res["nDCG"])
    assert "nDCG(gain=linear)" not in res


def test_results_pickle_with_their_lookup():
    """Results travel between processes (an engine's workers, multiprocessing): every spelling
    of a metric still finds its column after the round trip, under the call's gain."""
    res = rw.evaluate(Y_TRUE, Y_SCORE, ["MRR", "nDCG@2", "P@1"], qid=QID, gain="exponential")
    back = pickle.loads(pickle.dumps(res))
    assert type(back) is rw.Results
    assert back.names == res.names and back.ties == res.ties
    assert back.query_ids.tolist() == res.query_ids.tolist() and back.n_relevant.tolist() == res.n_relevant.tolist()
    for name in res.names:
        np.testing.assert_array_equal(back[name], res[name])
    np.testing.assert_array_equal(back["ndcg_cut.2"], res["nDCG@2"])
    np.testing.assert_array_equal(back["nDCG(gain=exponential)@2"], res["nDCG@2"])
    assert "nDCG(gain=linear)@2" not in back and "recip_rank" in back
    assert back.mean() == res.mean()
    trec = rw.trec_eval(rw.Qrels.from_dict({"q1": {"d1": 1}, "q2": {"d2": 1}}),
                        rw.Run.from_dict({"q1": {"d1": 0.5, "d3": 0.9}, "q2": {"d2": 0.1}}), ["map", "P.1"])
    trec_back = pickle.loads(pickle.dumps(trec))
    assert type(trec_back) is rw.TrecResults and trec_back.names == trec.names
    assert trec_back.query_ids.tolist() == trec.query_ids.tolist() and trec_back.mean() == trec.mean()
    np.testing.assert_array_equal(trec_back["P_1"], trec["P_1"])
    assert trec_back.format() == trec.format()


def test_to_pandas():
    pd = pytest.importorskip("pandas")
    frame = rw.evaluate(Y_TRUE, Y_SCORE, ["MRR", "P@1"], qid=QID).to_pandas()
    assert isinstance(frame, pd.DataFrame)
    assert frame.index.name == "query_id" and frame.index.tolist() == ["a", "b", "c", "d"]
    assert frame["MRR"].tolist() == [0.0, 1.0, 0.5, 1.0]


def test_empty_policies():
    zero = rw.evaluate(Y_TRUE, Y_SCORE, ["MAP", "nDCG"], qid=QID)
    skip = rw.evaluate(Y_TRUE, Y_SCORE, ["MAP", "nDCG"], qid=QID, empty="skip")
    assert zero["MAP"][0] == 0.0 and np.isnan(skip["MAP"][0]) and np.isnan(skip["nDCG"][0])
    np.testing.assert_array_equal(zero["MAP"][1:], skip["MAP"][1:])
    assert skip.mean()["MAP"] == pytest.approx(np.mean(zero["MAP"][1:]))
    assert zero.mean()["MAP"] == pytest.approx(np.mean(zero["MAP"]))
    assert rw.average_precision(Y_TRUE, Y_SCORE, qid=QID, empty="skip") == skip.mean()["MAP"]
    all_empty = rw.evaluate([0, 0], [0.1, 0.2], ["MAP"], empty="skip")
    assert np.isnan(all_empty.mean()["MAP"])


def test_relevance_level_for_binary_metrics_and_gains_for_ndcg():
    labels, scores = [[1, 2, 0]], [[0.9, 0.5, 0.1]]
    assert rw.reciprocal_rank(labels, scores, relevance_level=2) == 0.5
    assert rw.precision(labels, scores, k=1, relevance_level=2) == 0.0
    # nDCG uses the label values whatever the level, as trec_eval does.
    assert rw.ndcg(labels, scores, relevance_level=2) == rw.ndcg(labels, scores)
    # A query whose labels are all below the level is empty for "skip" ...
    res = rw.evaluate([[1, 1, 0]], scores, ["MAP", "nDCG"], relevance_level=2, empty="skip")
    assert np.isnan(res["MAP"][0]) and np.isnan(res["nDCG"][0])
    # ... and under "zero" binary metrics are 0 while nDCG still credits the gains.
    res = rw.evaluate([[1, 1, 0]], scores, ["MAP", "nDCG"], relevance_level=2)
    assert res["MAP"][0] == 0.0 and res["nDCG"][0] == 1.0


def test_per_metric_functions_match_evaluate(rng):
    y_true = rng.integers(0, 4, (20, 15))
    y_score = np.round(rng.random((20, 15)), 1)
    res = rw.evaluate(y_true, y_score, ["RR@5", "AP", "nDCG@5", "DCG", "P@3", "R@3", "Rprec", "Hits@2",
                                        "ERR", "RBP(p=0.9)"], ties="pessimistic")
    calls = {
        "RR@5": rw.reciprocal_rank(y_true, y_score, 5, ties="pessimistic", per_query=True),
        "AP": rw.average_precision(y_true, y_score, ties="pessimistic", per_query=True),
        "nDCG@5": rw.ndcg(y_true, y_score, 5, ties="pessimistic", per_query=True),
        "DCG": rw.dcg(y_true, y_score, ties="pessimistic", per_query=True),
        "P@3": rw.precision(y_true, y_score, 3, ties="pessimistic", per_query=True),
        "R@3": rw.recall(y_true, y_score, 3, ties="pessimistic", per_query=True),
        "Rprec": rw.r_precision(y_true, y_score, ties="pessimistic", per_query=True),
        "Hits@2": rw.hit_rate(y_true, y_score, 2, ties="pessimistic", per_query=True),
        "ERR": rw.err(y_true, y_score, ties="pessimistic", per_query=True),
        "RBP(p=0.9)": rw.rbp(y_true, y_score, 0.9, ties="pessimistic", per_query=True),
    }
    for name, values in calls.items():
        np.testing.assert_array_equal(values, res[name])
        assert rw.evaluate(y_true, y_score, [name], ties="pessimistic").mean()[name] == pytest.approx(values.mean())


def test_max_grade_changes_err_and_graded_rbp():
    labels, scores = [[2, 0, 1]], [[0.9, 0.8, 0.7]]
    assert rw.err(labels, scores) == pytest.approx(3 / 4 + (1 / 4) * (1 / 4) / 3)
    assert rw.err(labels, scores, max_grade=3) == pytest.approx(3 / 8 + (5 / 8) * (1 / 8) / 3)
    assert rw.rbp(labels, scores, p=0.5, graded=True, max_grade=4) == pytest.approx(0.5 * (2 / 4 + 0.25 * 1 / 4))
