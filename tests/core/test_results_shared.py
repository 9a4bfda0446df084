"""The one Results type: the same behaviour from evaluate, trec_eval and rank_metrics."""
import numpy as np
import pytest

import rankwise as rw


def _evaluate():
    return rw.evaluate([1, 0, 0, 1, 0, 1], [0.9, 0.1, 0.5, 0.4, 0.8, 0.7], ["MRR", "P@1"],
                       qid=["b", "b", "a", "a", "c", "c"])


def _trec_eval():
    qrels = rw.Qrels.from_dict({"q1": {"d1": 1, "d2": 0}, "q2": {"d1": 1}, "q<3>": {"d2": 1}})
    run = rw.Run.from_dict({"q1": {"d1": 0.5, "d2": 0.9}, "q2": {"d1": 0.3}, "q<3>": {"d2": 0.1, "d3": 0.2}},
                           name="bm25")
    return rw.trec_eval(qrels, run, ["recip_rank", "P.1"])


def _rank_metrics():
    ranks = rw.rank_positive([1.0, 3.0, 2.0], [[0.5, 0.9, 2.0], [3.0, 3.0, 4.0], [0.0, 1.0, 1.5]])
    return rw.rank_metrics(ranks, ["MRR", "Hits@1"], per_query=True)


PRODUCERS = {"evaluate": _evaluate, "trec_eval": _trec_eval, "rank_metrics": _rank_metrics}


@pytest.fixture(params=sorted(PRODUCERS))
def res(request):
    return PRODUCERS[request.param]()


def test_one_type(res):
    assert isinstance(res, rw.Results)
    assert isinstance(_trec_eval(), rw.TrecResults)


def test_names_membership_and_iteration(res):
    first, second = res.names
    assert list(res) == [first, second] and len(res) == 2
    assert first in res and second in res
    assert "nope" not in res and 3 not in res and None not in res
    with pytest.raises(KeyError, match="'nope' was not computed"):
        res["nope"]


def test_columns_are_read_only_float64_per_query(res):
    for name in res.names:
        column = res[name]
        assert column.dtype == np.float64 and column.shape == (len(res.query_ids),)
        with pytest.raises(ValueError, match="read-only"):
            column[0] = 1.0


def test_mean_is_in_the_order_asked(res):
    means = res.mean()
    assert list(means) == list(res.names)
    for name in res.names:
        assert means[name] == pytest.approx(res[name].mean())


def test_to_dict(res):
    out = res.to_dict()
    ids = np.asarray(res.query_ids).tolist()
    assert list(out) == list(res.names)
    for name in res.names:
        assert list(out[name]) == ids
        assert list(out[name].values()) == res[name].tolist()
        assert all(type(value) is float for value in out[name].values())


def test_to_pandas_index_is_query_id(res):
    pd = pytest.importorskip("pandas")
    frame = res.to_pandas()
    assert frame.index.name == "query_id" == type(res).index_name
    assert frame.index.tolist() == np.asarray(res.query_ids).tolist()
    assert list(frame.columns) == list(res.names)
    for name in res.names:
        np.testing.assert_array_equal(frame[name].to_numpy(), res[name])
    assert isinstance(frame, pd.DataFrame)


def test_repr_names_the_type_queries_and_means(res):
    text = repr(res)
    assert text.startswith(type(res).__name__ + "(")
    assert f"{len(res.query_ids)} queries" in text and f"ties={res.ties!r}" in text
    for name, value in res.mean().items():
        assert name in text and f"{value:.4f}" in text


def test_html_is_a_table_with_a_row_per_query(res):
    page = res._repr_html_()
    assert page.count("<table>") == 1 and page.count("<tr>") == 1 + len(res.query_ids) + 1
    assert "<th>query_id</th>" in page
    for name in res.names:
        assert f"<th>{name}</th>" in page


def test_html_escapes_ids_and_names():
    page = _trec_eval()._repr_html_()
    assert "q&lt;3&gt;" in page and "q<3>" not in page
    res = rw.evaluate([[1, 0]], [[0.2, 0.1]], ["nDCG(gain=exponential)@1"])
    assert "<th>nDCG(gain=exponential)@1</th>" in res._repr_html_()
    res = rw.evaluate([1, 0], [0.2, 0.1], ["MRR"], qid=["<b>&", "<b>&"])
    assert "&lt;b&gt;&amp;" in res._repr_html_() and "<b>&" not in res._repr_html_()


def test_html_truncates_many_queries():
    n = 100
    res = rw.evaluate(np.eye(n, 3), np.ones((n, 3)), ["MRR"])
    page = res._repr_html_()
    assert page.count("<tr>") == 1 + 10 + 1 + 5 + 1
    assert "85 more queries" in page
    assert "<th>0</th>" in page and "<th>9</th>" not in page.split("more queries")[1]
    assert "<th>99</th>" in page and "<th>50</th>" not in page


def test_aliases_find_columns():
    np.testing.assert_array_equal(_evaluate()["RR"], _evaluate()["MRR"])
    res = _rank_metrics()
    np.testing.assert_array_equal(res["hits_at_1"], res["Hits@1"])
    assert "mean_reciprocal_rank" in res and "MR" not in res


def test_rank_metrics_per_query_matches_the_aggregate():
    ranks = rw.rank_positive([1.0, 3.0, 2.0], [[0.5, 0.9, 2.0], [3.0, 3.0, 4.0], [0.0, 1.0, 1.5]])
    res = rw.rank_metrics(ranks, ["MR", "MRR"], ties="pessimistic", per_query=True)
    assert res.ties == "pessimistic" and res.query_ids.tolist() == [0, 1, 2]
    assert res.mean() == pytest.approx(rw.rank_metrics(ranks, ["MR", "MRR"], ties="pessimistic"))


def test_trec_results_keep_the_summary_only_measures_out():
    qrels = rw.Qrels.from_dict({"q1": {"d1": 1}})
    run = rw.Run.from_dict({"q1": {"d1": 0.5}}, name="r")
    res = rw.trec_eval(qrels, run, ["runid", "num_q", "map", "gm_map"])
    assert res.names == ("map", "gm_map") and "runid" not in res
    with pytest.raises(KeyError, match="only a summary"):
        res["num_q"]
    assert "run 'r'" in repr(res) and "<th>all</th>" in res._repr_html_()
