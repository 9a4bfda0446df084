"""rankwise._engines in one process: partitions made by hand, as an engine's shuffle makes them.

The adapters' tests run these functions inside real engines' workers; here every path is
run where coverage and a debugger see it, and no engine is needed.
"""
import pickle

import numpy as np
import pytest

import rankwise as rw
from rankwise import _engines as E

METRICS = ["MAP", "nDCG@10", "ERR", "RBP(p=0.5, graded=True)", "P@5", "RR@3"]
OPTIONS = dict(relevance_level=1, gain="linear", max_grade=None, empty="zero", nan="raise")


def _job(metrics=METRICS, doc_ids=None, **options):
    return E.evaluate_job(metrics, qid="q", y_true="y", y_score="s", doc_ids=doc_ids,
                          **(OPTIONS | {"ties": "expected"} | options))


def _data(seed=0, n=2000):
    rng = np.random.default_rng(seed)
    return {"q": rng.integers(0, 60, n), "y": rng.integers(0, 4, n), "s": rng.integers(0, 5, n) / 2,
            "d": rng.permutation(n)}


def _partitions(data, n_parts, seed=1):
    """Each query's rows in one part (by id), each part's rows shuffled; with their positions."""
    rng = np.random.default_rng(seed)
    rows = np.arange(data["q"].shape[0])
    parts = []
    for p in range(n_parts):
        mine = rows[data["q"] % n_parts == p]
        mine = mine[rng.permutation(mine.shape[0])]
        parts.append(({name: column[mine] for name, column in data.items()}, mine))
    return parts


def _never(kind):
    raise AssertionError(f"locate({kind!r}) was not expected")


@pytest.mark.parametrize("ties", ["expected", "optimistic", "pessimistic", "stable", "trec"])
def test_partitions_merged_equal_evaluate(ties):
    data = _data()
    doc_ids = "d" if ties == "trec" else None
    job = _job(doc_ids=doc_ids, ties=ties)
    assert job.needs_max_grade and job.stable == (ties == "stable")
    job = job.with_max_grade(data["y"].max())
    assert not job.needs_max_grade
    want = rw.evaluate(data["y"], data["s"], METRICS, qid=data["q"], ties=ties,
                       doc_ids=data["d"] if doc_ids else None)
    parts = _partitions(data, 7)
    order = [rows if ties == "stable" else None for _, rows in parts]
    results = E.combine(job, [E.partition_outcome(job, c, o, want="results") for (c, _), o in zip(parts, order, strict=True)],
                        _never, want="results")
    means = E.combine(job, [E.partition_outcome(pickle.loads(pickle.dumps(job)), c, o) for (c, _), o in
                            zip(parts, order, strict=True)], _never)
    assert results.query_ids.tolist() == want.query_ids.tolist()
    for name in METRICS:
        assert results[name].tobytes() == want[name].tobytes(), name
    assert means == want.mean() == results.mean()
    ids, columns = E.per_query_rows(job, parts[3][0], order[3])
    assert ids.tolist() == want.query_ids[want.query_ids % 7 == 3].tolist()
    for name, column in zip(METRICS, columns, strict=True):
        assert column.tobytes() == want[name][want.query_ids % 7 == 3].tobytes()


def test_no_rows():
    job = _job(["MAP"])
    assert str(E.combine(job, [], _never)) == "{'MAP': nan}"
    empty = {"q": np.zeros(0, dtype=np.int64), "y": np.zeros(0), "s": np.zeros(0)}
    assert E.combine(job, [E.partition_outcome(job, empty, want="results")], _never, want="results").n_queries == 0


def test_largest_label_placeholders():
    job = _job(["ERR"])
    assert job.with_max_grade(0).settings["max_grade"] == 1.0          # evaluate's default for all-zero labels
    assert job.with_max_grade(float("nan")).settings["max_grade"] == 1.0   # the partitions raise the label error
    assert job.with_max_grade(2).settings["max_grade"] == 2.0


@pytest.mark.parametrize("changes, exc, message", [
    (dict(metrics=["MAPX"]), ValueError, "unknown metric 'MAPX'; did you mean 'MAP'?"),
    (dict(ties="trec"), ValueError, "ties='trec' orders tied items by document id; pass doc_ids= (one id per score)"),
    (dict(ties="x"), ValueError, "ties must be one of"),
    (dict(max_grade=-1), ValueError, "max_grade must be a finite number > 0, got -1"),
    (dict(empty="never"), ValueError, "empty must be one of"),
])
def test_job_errors_are_evaluates(changes, exc, message):
    with pytest.raises(exc, match=message.replace("(", r"\(").replace(")", r"\)").replace("?", r"\?")):
        _job(**changes)
    with pytest.raises(TypeError, match="y_score must be a column name"):
        E.evaluate_job(["MAP"], qid="q", y_true="y", y_score=None, doc_ids=None, **OPTIONS, ties="expected")


def _error(call):
    with pytest.raises(Exception) as caught:
        call()
    return type(caught.value), str(caught.value)


def test_data_errors_are_evaluates_over_all_rows():
    data = _data(n=300)
    data["s"] = data["s"].copy()
    data["s"][[40, 200]] = np.nan
    data["y"] = data["y"].astype(float)
    job = _job(["MAP"]).with_max_grade(3)
    parts = _partitions(data, 3)
    locate = {E.NAN: (40, None), E.LABELS: (7, -1.0)}.__getitem__
    outcomes = [E.partition_outcome(job, c) for c, _ in parts]
    assert _error(lambda: E.combine(job, outcomes, locate)) == _error(
        lambda: rw.evaluate(data["y"], data["s"], ["MAP"], qid=data["q"]))
    data["y"][[7, 100]] = [-1.0, np.inf]   # labels are checked before scores
    outcomes = [E.partition_outcome(job, c) for c, _ in _partitions(data, 3)]
    assert _error(lambda: E.combine(job, outcomes, locate)) == _error(
        lambda: rw.evaluate(data["y"], data["s"], ["MAP"], qid=data["q"]))
    assert E.first_invalid(E.LABELS, np.array([1, 2, -3])) == 2 and E.first_invalid(E.NAN, np.array([1, 2])) is None
    nulls = pickle.loads(E.partition_outcome(job, parts[0][0], nulls=["s"]))
    assert str(nulls.error) == ("y_score column 's' holds missing values (nulls); rankwise takes none: drop or "
                                "fill them first")


def test_empty_queries_under_empty_error_are_reported_over_all_partitions():
    data = _data(n=400)
    data["y"] = np.where(data["q"] % 3 == 0, 0, data["y"])   # every third query without a relevant row
    job = _job(["MAP"], empty="error")
    outcomes = [E.partition_outcome(job, c) for c, _ in _partitions(data, 4)]
    want = _error(lambda: rw.evaluate(data["y"], data["s"], ["MAP"], qid=data["q"], empty="error"))
    assert _error(lambda: E.combine(job, outcomes, _never)) == want
    with pytest.raises(ValueError, match="have no relevant item"):
        E.per_query_rows(job, _partitions(data, 4)[0][0])


def _rows_of(data):
    """locate(DUPLICATES, query) over ``data`` in its own row order."""
    def locate(kind, query):
        assert kind == E.DUPLICATES
        at = np.flatnonzero(data["q"] == query)
        return at, data["d"][at]
    return locate


@pytest.mark.parametrize("n_parts", [1, 3, 7])
def test_a_document_twice_is_evaluates_error_over_all_rows(n_parts):
    # Several queries hold a document twice, in several partitions, each partition's rows
    # shuffled: the error names the query evaluate names and the rows' positions in the table.
    data = _data(n=600)
    data["d"] = data["d"].copy()
    for query in (11, 4, 30):
        rows = np.flatnonzero(data["q"] == query)
        data["d"][rows[-1]] = data["d"][rows[1]]
    job = _job(["MAP"], doc_ids="d", ties="trec")
    expected = _error(lambda: rw.evaluate(data["y"], data["s"], ["MAP"], qid=data["q"], doc_ids=data["d"],
                                          ties="trec"))
    assert "twice for query 4 (rows " in expected[1]
    for want in ("mean", "results"):
        outcomes = [E.partition_outcome(job, c, want=want) for c, _ in _partitions(data, n_parts)]
        assert _error(lambda: E.combine(job, outcomes, _rows_of(data), want)) == expected  # noqa: B023


def test_other_errors_of_a_partition_come_before_its_nan_scores():
    data = _data(n=300)
    data["s"] = data["s"].copy()
    data["s"][5] = np.nan
    data["d"] = data["d"] % 3    # documents twice within queries
    job = _job(["MAP"], doc_ids="d", ties="trec")
    outcomes = [E.partition_outcome(job, c) for c, _ in _partitions(data, 1)]
    assert _error(lambda: E.combine(job, outcomes, _rows_of(data))) == _error(
        lambda: rw.evaluate(data["y"], data["s"], ["MAP"], qid=data["q"], doc_ids=data["d"], ties="trec"))


def test_query_ids_are_checked_before_documents():
    # NaN query ids are evaluate's error before any document twice, whichever partition holds them.
    data = _data(n=300)
    data["q"] = data["q"].astype(float)
    data["d"] = data["d"] % 3
    nan_ids = {name: column[:4] for name, column in data.items()} | {"q": np.full(4, np.nan)}
    job = _job(["MAP"], doc_ids="d", ties="trec")
    outcomes = [E.partition_outcome(job, c) for c, _ in _partitions(data, 2)]
    outcomes.append(E.partition_outcome(job, nan_ids))
    assert _error(lambda: E.combine(job, outcomes, _never)) == (ValueError, "qid contains NaN; query ids must be "
                                                                           "comparable values")


def test_trec_parts_equal_trec_eval():
    pa = pytest.importorskip("pyarrow")
    qrels, run = rw.trec.read_example()
    job = E.trec_job(["map", "P.5", "ndcg_cut.10"], query="query_id", doc="doc_id", relevance="relevance",
                     score="score", name=run.name, complete=True)
    assert job.names == ("map", "P_5", "ndcg_cut_10")
    q_table, r_table = qrels.to_arrow(), run.to_arrow()
    q_ids = np.array(q_table.column("query_id").to_pylist())
    r_ids = np.array(r_table.column("query_id").to_pylist())
    outcomes = []
    for p in range(4):
        def part(table, ids, p=p):
            return table.filter(pa.array([hash(q) % 4 == p for q in ids]))
        outcomes.append(E.trec_outcome(job, part(q_table, q_ids), part(r_table, r_ids)))
    got = E.combine_trec(outcomes)
    want = rw.trec_eval(qrels, run, ["map", "P.5", "ndcg_cut.10"], complete=True)
    assert got.format(per_query=True) == want.format(per_query=True) and got.mean() == want.mean()
    bad = E.trec_outcome(job, q_table.drop_columns(["relevance"]), r_table)
    with pytest.raises(ValueError, match="no column 'relevance'"):
        E.combine_trec([bad, *outcomes])
    with pytest.raises(ValueError, match="unknown"):
        E.trec_job(["mapp"], query="q", doc="d", relevance="r", score="s", name=None)
    with pytest.raises(TypeError, match="doc must be a column name"):
        E.trec_job(["map"], query="q", doc=1, relevance="r", score="s", name=None)


def test_text_values_are_the_strings_as_numpy_makes_them():
    pa = pytest.importorskip("pyarrow")
    strings = ["q10", "q2", "", "é", "q10", "long query id"]
    for column in (pa.array(strings), pa.chunked_array([strings[:2], strings[2:]], pa.large_string())):
        got = E.text_values(column)
        assert got.dtype == np.asarray(strings).dtype and got.tolist() == strings
    assert E.text_values(pa.array([], pa.string())).tolist() == []
