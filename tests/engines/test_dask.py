"""rankwise.dask on a real 2-worker LocalCluster: the numbers of one machine, bit for bit.

Every check compares with ``rw.evaluate`` (or ``rw.trec_eval``) on the columns of
``ddf.compute()`` with ``==``, never approximately: per-query values, query ids, means.
"""
import contextlib
import subprocess
import sys

import numpy as np
import pytest

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")
pd = pytest.importorskip("pandas")

import rankwise as rw  # noqa: E402
import rankwise.dask as rwd  # noqa: E402
from rankwise._core.bundled import data_path  # noqa: E402

METRICS = ["MAP", "nDCG@10", "P@5", "MRR", "R@20", "ERR@10", "RBP(p=0.8,graded=True)"]
TIES = ["expected", "optimistic", "pessimistic", "stable", "trec"]


@pytest.fixture(scope="session")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=50) as cluster, distributed.Client(cluster) as c:
        yield c


def make_frame(seed=0, n_queries=40, string_ids=False, skewed=True, float32=False):
    """Rows of many queries in random order: graded labels, tied scores, doc ids; one query
    holds half the rows when ``skewed``."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 30, n_queries)
    if skewed:
        sizes[3] = sizes.sum()
    qid = np.repeat(np.arange(n_queries) * 7 + 100, sizes)
    n = qid.size
    frame = pd.DataFrame({
        "qid": qid.astype(str) if string_ids else qid,
        "label": rng.choice([0, 0, 0, 1, 2, 3], n),
        "score": np.round(rng.normal(size=n), 1).astype(np.float32 if float32 else np.float64),
        "doc": np.array([f"d{i:05d}" for i in rng.permutation(n)]),
    })
    return frame.iloc[rng.permutation(n)].reset_index(drop=True)


def reference(frame, metrics=METRICS, qid="qid", **options):
    ids = frame.index.to_numpy() if qid == frame.index.name else frame[qid].to_numpy()
    return rw.evaluate(frame["label"].to_numpy(), frame["score"].to_numpy(), metrics, qid=ids,
                       doc_ids=frame["doc"].to_numpy(), **options)


def assert_same(got, expected):
    """Two Results with the same names, query ids and values, bit for bit."""
    assert got.names == expected.names
    assert got.ties == expected.ties
    assert_same_ids(got.query_ids, expected.query_ids)
    for name in expected.names:
        assert np.array_equal(got[name], expected[name], equal_nan=True), name
    assert_means(got.mean(), expected.mean())


def assert_same_ids(got, expected):
    """The same ids in the same order; integers of the same dtype, strings as str objects (one
    machine, from pandas' object arrays) or fixed-width unicode (Dask, from Arrow strings)."""
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.tolist() == expected.tolist()
    assert got.dtype == expected.dtype or (expected.dtype == object and got.dtype.kind == "U")


def assert_means(got, expected):
    assert list(got) == list(expected)
    for name, value in expected.items():
        assert got[name] == value or (np.isnan(got[name]) and np.isnan(value)), name


def evaluate(ddf, metrics=METRICS, qid="qid", **options):
    return rwd.evaluate(ddf, metrics, qid=qid, y_true="label", y_score="score", doc_ids="doc", **options)


def check(ddf, frame, metrics=METRICS, qid="qid", npartitions=None, **options):
    """evaluate on ``ddf``: compute(), mean() and per_query all equal one machine's."""
    res = evaluate(ddf, metrics, qid, npartitions=npartitions, **options)
    expected = reference(frame, metrics, qid, **options)
    assert_same(res.compute(), expected)
    assert_means(res.mean(), expected.mean())
    per_query = res.per_query.compute()
    if qid == frame.index.name:
        per_query = per_query.reset_index()
    per_query = per_query.sort_values(qid, kind="stable")
    np.testing.assert_array_equal(per_query[qid].to_numpy(), np.asarray(expected.query_ids))
    for name in expected.names:
        assert np.array_equal(per_query[name].to_numpy(), expected[name], equal_nan=True), name
    return res


@pytest.fixture(scope="module")
def frame():
    return make_frame()


@pytest.mark.parametrize("npartitions", [1, 2, 7, 64])
def test_partitions(client, frame, npartitions):
    check(dd.from_pandas(frame, npartitions=npartitions, sort=False), frame)


@pytest.mark.parametrize("ties", TIES)
def test_every_tie_policy(client, frame, ties):
    check(dd.from_pandas(frame, npartitions=3, sort=False), frame, ties=ties, npartitions=4)


def test_log_base(client, frame):
    res = check(dd.from_pandas(frame, npartitions=3, sort=False), frame, ["DCG@5", "nDCG@5"], log_base=10)
    assert res.mean()["DCG@5"] != reference(frame, ["DCG@5"]).mean()["DCG@5"]


def test_string_ids_float32_scores(client):
    frame = make_frame(seed=1, string_ids=True, float32=True).rename_axis("row")  # an index, not the query's
    for ties in ("stable", "expected"):
        check(dd.from_pandas(frame, npartitions=5, sort=False), frame, ties=ties)


def test_query_split_across_partitions_and_empty_partitions(client):
    frame = make_frame(seed=2, skewed=False).sort_values("qid", kind="stable").reset_index(drop=True)
    # Cut inside queries, with empty pieces between; more partitions after the shuffle than queries.
    cuts = [0, 0, 7, 7, 7, 300, 301, len(frame), len(frame)]
    pieces = [frame.iloc[a:b] for a, b in zip(cuts[:-1], cuts[1:], strict=True)]
    ddf = dd.from_map(lambda piece: piece, pieces, meta=frame.iloc[:0], enforce_metadata=False)
    check(ddf, frame, ties="stable", npartitions=64)
    check(ddf, frame, empty="skip")


def test_already_partitioned_by_the_index_is_not_shuffled(client, frame):
    indexed = frame.set_index("qid").sort_index(kind="stable")
    ddf = dd.from_pandas(indexed, npartitions=6, sort=True)
    assert ddf.known_divisions
    res = check(ddf, indexed, ties="stable")
    assert not [e for e in res.per_query.optimize().expr.walk() if "Shuffle" in type(e).__name__]
    assert res.per_query.known_divisions and res.per_query.divisions == ddf.divisions
    check(ddf, indexed, npartitions=3)


def test_index_without_divisions_is_shuffled(client, frame):
    indexed = frame.set_index("qid")  # rows out of order: divisions unknown
    ddf = dd.from_pandas(indexed, npartitions=4, sort=False)
    res = check(ddf, indexed, ties="stable")
    assert [e for e in res.per_query.optimize().expr.walk() if "Shuffle" in type(e).__name__]


def test_err_without_max_grade_takes_the_largest_label(client, frame):
    ddf = dd.from_pandas(frame, npartitions=4, sort=False)
    check(ddf, frame, ["ERR", "ERR@5", "RBP(p=0.5,graded=True)", "nDCG"])
    check(ddf, frame, ["ERR"], max_grade=7)


def test_stable_ties_survive_a_shuffle_that_reorders_rows(client, frame):
    ddf = dd.from_pandas(frame, npartitions=5, sort=False)
    # Dask's disk shuffle appends pieces as tasks finish: rows of a query often come out of order.
    with dask.config.set({"dataframe.shuffle.method": "disk"}):
        check(ddf, frame, ties="stable", npartitions=3)
    # Whatever a shuffle does to the rows, the numbers they were given restore their order.
    res = evaluate(ddf, ties="stable")
    res._grouped = res._grouped.map_partitions(lambda part: part.iloc[::-1], meta=res._grouped._meta)
    assert_same(res.compute(), reference(frame, ties="stable"))


def error_of(call):
    with pytest.raises(Exception) as info:
        call()
    return type(info.value), str(info.value)


def explode(part):
    raise AssertionError("a task ran")


@pytest.fixture(scope="module")
def poisoned(frame):
    """A frame whose every task fails: errors raised before any task only."""
    ddf = dd.from_pandas(frame.assign(text=frame["doc"]), npartitions=3, sort=False)
    return ddf.map_partitions(explode, meta=ddf._meta)


@pytest.mark.parametrize("case", [
    dict(metrics=["MAP", "nDCG@x"]),
    dict(ties="random"),
    dict(ties="trec", doc_ids=None),
    dict(empty="never"),
    dict(y_score="text"),
    dict(y_true="text"),
    dict(metrics=["ERR"], max_grade=-1),
])
def test_errors_before_any_task_are_evaluates(frame, poisoned, case):
    case = {"metrics": METRICS, "y_true": "label", "y_score": "score", "doc_ids": "doc", **case}
    columns = {"y_true": frame.get(case["y_true"], frame["doc"]).to_numpy(),
               "y_score": frame.get(case["y_score"], frame["doc"]).to_numpy()}
    doc_ids = None if case["doc_ids"] is None else frame["doc"].to_numpy()
    options = {k: v for k, v in case.items() if k not in ("metrics", "y_true", "y_score", "doc_ids")}
    expected = error_of(lambda: rw.evaluate(columns["y_true"], columns["y_score"], case["metrics"],
                                            qid=frame["qid"].to_numpy(), doc_ids=doc_ids, **options))
    assert error_of(lambda: rwd.evaluate(poisoned, case["metrics"], qid="qid", y_true=case["y_true"],
                                         y_score=case["y_score"], doc_ids=case["doc_ids"], **options)) == expected


def test_nothing_runs_before_asked(poisoned):
    res = rwd.evaluate(poisoned, ["ERR", "nDCG"], qid="qid", y_true="label", y_score="score")  # the largest label too
    assert list(res.per_query.columns) == ["qid", "ERR", "nDCG"]
    rwd.trec_eval(poisoned, poisoned, ["map"], query="qid", doc="doc", relevance="label")


def test_schema_errors_before_any_task(poisoned):
    kind, message = error_of(lambda: rwd.evaluate(poisoned, ["MAP"], qid="query", y_true="label", y_score="score"))
    assert kind is ValueError and "qid='query'" in message and "'label'" in message
    with pytest.raises(TypeError, match="dask.dataframe.DataFrame"):
        rwd.evaluate(pd.DataFrame({"q": [1]}), ["MAP"], qid="q", y_true="q", y_score="q")
    with pytest.raises(TypeError, match="y_score must be a column name"):
        rwd.evaluate(poisoned, ["MAP"], qid="qid", y_true="label", y_score=3)
    with pytest.raises(ValueError, match="npartitions"):
        rwd.evaluate(poisoned, ["MAP"], qid="qid", y_true="label", y_score="score", npartitions=0)


@pytest.mark.parametrize("case", ["nan", "negative", "infinite", "labels-and-nan", "duplicates"])
def test_data_errors_are_evaluates(client, case):
    frame = make_frame(seed=3)
    frame["label"] = frame["label"].astype(np.float64)
    # The first bad row is in the second of four input partitions: its position is the table's.
    if case in ("nan", "labels-and-nan"):
        frame.loc[[900, 500], "score"] = np.nan
    if case in ("negative", "labels-and-nan"):
        frame.loc[[1000, 600], "label"] = -1
    if case == "infinite":
        frame.loc[[600, 1000], "label"] = np.inf
    options = {"ties": "trec"} if case == "duplicates" else {}
    if case == "duplicates":
        # Two queries hold a document twice; evaluate names the smaller id, and the rows'
        # positions in the table (the shuffle moves them into other partitions and order).
        for row in (700, 30):
            rows = frame.index[frame["qid"] == frame["qid"][row]]
            frame.loc[[rows[1], rows[-1]], "doc"] = "same"
    expected = error_of(lambda: reference(frame, **options))
    ddf = dd.from_pandas(frame, npartitions=4, sort=False)
    for action in ("mean", "compute"):
        assert error_of(lambda: getattr(evaluate(ddf, **options), action)()) == expected  # noqa: B023
    assert error_of(lambda: evaluate(ddf, **options).per_query.compute())[0] is expected[0]
    if case == "duplicates":   # positions in the table, not index labels (the frame's are shuffled)
        query = min(frame["qid"][700], frame["qid"][30])
        rows = np.flatnonzero((frame["doc"] == "same").to_numpy() & (frame["qid"] == query).to_numpy())
        assert f"for query {query} (rows {rows[0]} and {rows[1]})" in expected[1]
    else:
        assert f"position {500 if case == 'nan' else 600}" in expected[1]


def test_empty_frame(client):
    frame = make_frame().iloc[:0]
    res = evaluate(dd.from_pandas(frame, npartitions=1), ["MAP", "ERR"])
    expected = reference(frame, ["MAP", "ERR"])
    assert res.compute().n_queries == expected.n_queries == 0
    assert str(res.mean()) == str(expected.mean()) == "{'MAP': nan, 'ERR': nan}"
    assert len(res.per_query.compute()) == 0


def test_empty_error_is_evaluates(client, frame):
    ddf = dd.from_pandas(frame, npartitions=4, sort=False)
    expected = error_of(lambda: reference(frame, empty="error"))
    assert error_of(lambda: evaluate(ddf, empty="error").mean()) == expected
    check(ddf, frame, empty="skip")


@pytest.fixture(scope="module")
def example():
    """The bundled qrels and run as pandas frames, rows shuffled."""
    rng = np.random.default_rng(5)
    qrels = rw.Qrels.read(data_path("example.qrels")).to_pandas()
    run = rw.Run.read(data_path("example.run")).to_pandas()
    return (qrels.iloc[rng.permutation(len(qrels))].reset_index(drop=True),
            run.iloc[rng.permutation(len(run))].reset_index(drop=True))


def assert_same_trec(got, expected):
    assert got.names == expected.names and got.run_name == expected.run_name
    assert_same_ids(got.query_ids, expected.query_ids)
    for name in expected.names:
        assert np.array_equal(got[name], expected[name], equal_nan=True), name
    assert got.mean() == expected.mean()
    assert got.format(per_query=True) == expected.format(per_query=True)


@pytest.mark.parametrize("options", [{}, {"complete": True}, {"ties": "stable", "depth": 5},
                                     {"ties": "expected", "relevance_level": 2},
                                     {"judged_only": True, "depth": 4}])
def test_trec_eval_equals_trec_eval(client, example, options):
    qrels, run = example
    measures = ["official", "ndcg_cut.10", "P.5"] if options.get("ties") != "expected" else ["map", "P.5", "ndcg"]
    expected = rw.trec_eval(rw.Qrels.from_pandas(qrels), rw.Run.from_pandas(run), measures, **options)
    res = rwd.trec_eval(dd.from_pandas(qrels, npartitions=3, sort=False), dd.from_pandas(run, npartitions=4, sort=False),
                        measures, npartitions=5, **options)
    assert_same_trec(res.compute(), expected)
    assert res.mean() == expected.mean()
    per_query = res.per_query.compute().set_index("query_id").loc[list(expected.query_ids)]
    for name in expected.names:
        assert np.array_equal(per_query[name].to_numpy(), expected[name], equal_nan=True), name


def test_trec_eval_integer_query_ids_against_strings(client, example):
    qrels, run = example
    qrels = qrels.assign(query_id=qrels["query_id"].astype(np.int64))
    expected = rw.trec_eval(rw.Qrels.from_pandas(qrels), rw.Run.from_pandas(run), ["map", "num_ret"], complete=True)
    res = rwd.trec_eval(dd.from_pandas(qrels, npartitions=2), dd.from_pandas(run, npartitions=3), ["map", "num_ret"],
                        complete=True)
    assert_same_trec(res.compute(), expected)
    assert res.per_query.compute()["query_id"].dtype == np.int64


def test_trec_eval_errors(client, example, poisoned):
    qrels, run = example
    one_query = run[run["query_id"] == run["query_id"].iloc[0]].assign(query_id="nothing")
    expected = error_of(lambda: rw.trec_eval(rw.Qrels.from_pandas(qrels), rw.Run.from_pandas(one_query), ["map"]))
    got = error_of(lambda: rwd.trec_eval(dd.from_pandas(qrels, npartitions=2), dd.from_pandas(one_query, npartitions=2),
                                         ["map"]).compute())
    assert got == expected
    ddf = dd.from_pandas(qrels, npartitions=2)
    with pytest.raises(ValueError, match="unknown"):
        rwd.trec_eval(ddf, poisoned, ["mapp"])
    with pytest.raises(ValueError, match="score='score' is not a column of run"):
        rwd.trec_eval(ddf, ddf, ["map"])
    text = run.assign(score=run["score"].astype(str))
    expected = error_of(lambda: rw.Run.from_pandas(text))
    text = dd.from_pandas(text, npartitions=2).map_partitions(explode, meta=text.iloc[:0])
    assert error_of(lambda: rwd.trec_eval(ddf, text, ["map"])) == expected


def test_trec_eval_query_ids_in_the_index(client, example):
    qrels, run = example
    expected = rw.trec_eval(rw.Qrels.from_pandas(qrels), rw.Run.from_pandas(run), ["map", "P.5"])
    indexed = [frame.set_index("query_id").sort_index(kind="stable") for frame in example]
    mixed = rwd.trec_eval(dd.from_pandas(indexed[0], npartitions=3), dd.from_pandas(run, npartitions=2),
                          ["map", "P.5"], npartitions=4)
    assert_same_trec(mixed.compute(), expected)
    assert mixed.per_query.compute().index.name == "query_id"
    # Both partitioned by the same divisions: no shuffle.
    ids = sorted(set(qrels["query_id"]) | set(run["query_id"]))
    divisions = (ids[0], ids[len(ids) // 3], ids[2 * len(ids) // 3], ids[-1])
    qrels_ddf, run_ddf = (dd.from_pandas(frame, npartitions=1).repartition(divisions=divisions, force=True)
                          for frame in indexed)
    aligned = rwd.trec_eval(qrels_ddf, run_ddf, ["map", "P.5"], ties="stable")
    assert not [e for e in aligned.per_query.optimize().expr.walk() if "Shuffle" in type(e).__name__]
    assert_same_trec(aligned.compute(), rw.trec_eval(rw.Qrels.from_pandas(qrels), rw.Run.from_pandas(
        indexed[1].reset_index()), ["map", "P.5"], ties="stable"))


def test_compare_two_dask_results(client, frame):
    ddf = dd.from_pandas(frame, npartitions=4, sort=False)
    other = frame.assign(score=frame["score"] + np.random.default_rng(9).normal(size=len(frame)))
    a = evaluate(ddf, ["nDCG@10"])
    b = evaluate(dd.from_pandas(other, npartitions=3, sort=False), ["nDCG@10"])
    expected = rw.compare(reference(frame, ["nDCG@10"]), reference(other, ["nDCG@10"]), seed=1, n_resamples=500)
    got = rw.compare(a, b, seed=1, n_resamples=500)
    assert got.pvalue == expected.pvalue and got.statistic == expected.statistic


def test_without_dask_the_error_names_the_extra():
    code = "import sys; sys.modules['dask'] = None; import rankwise.dask"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode != 0 and 'pip install "rankwise[dask]"' in done.stderr


def test_results_attributes(client, frame, example):
    res = evaluate(dd.from_pandas(frame, npartitions=2), ["MAP"])
    assert repr(res).startswith("DaskResults(MAP; 2 partitions") and res.metrics == ("MAP",)
    assert res.mean() == res.mean() == reference(frame, ["MAP"]).mean()  # the second from the first's sums
    with pytest.raises(ValueError, match="has the name of a metric"):
        rwd.evaluate(dd.from_pandas(frame.rename(columns={"qid": "MAP"}), npartitions=2), ["MAP"], qid="MAP",
                     y_true="label", y_score="score")
    qrels, run = (dd.from_pandas(side, npartitions=2) for side in example)
    trec = rwd.trec_eval(qrels, run, ["P.5", "map"], npartitions=3)
    assert trec.names == ("map", "P_5") and repr(trec) == "DaskTrecResults(map, P_5; 3 partitions)"
    assert rw.compare(trec, trec, metric="map").pvalue == 1


def test_in_process(frame, example):
    """The per-partition functions run here, where coverage and a debugger see them."""
    with dask.config.set({"scheduler": "synchronous", "dataframe.shuffle.method": "tasks"}):
        check(dd.from_pandas(frame, npartitions=3, sort=False), frame, ["MAP", "ERR"], ties="stable", npartitions=2)
        qrels, run = example
        res = rwd.trec_eval(dd.from_pandas(qrels, npartitions=2), dd.from_pandas(run, npartitions=2), ["map"],
                            ties="stable")
        assert_same_trec(res.compute(), rw.trec_eval(rw.Qrels.from_pandas(qrels), rw.Run.from_pandas(run), ["map"],
                                                     ties="stable"))
        assert len(res.per_query.compute()) == len(res.compute().query_ids)
        broken = frame.assign(score=frame["score"].where(frame.index != 5))
        assert error_of(lambda: evaluate(dd.from_pandas(broken, npartitions=2)).mean()) == error_of(
            lambda: reference(broken))


@pytest.mark.parametrize("scheduler", ["distributed", "threads"])
def test_progress_counts_partitions_and_changes_no_number(client, frame, capsys, scheduler):
    pytest.importorskip("tqdm")
    expected = reference(frame, ["MAP", "ERR@5"]).mean()
    ddf = dd.from_pandas(frame, npartitions=3, sort=False)
    local = {"scheduler": scheduler, "dataframe.shuffle.method": "tasks"}    # p2p needs the client
    with dask.config.set(local) if scheduler != "distributed" else contextlib.nullcontext():
        res = rwd.evaluate(ddf, ["MAP", "ERR@5"], qid="qid", y_true="label", y_score="score", npartitions=5,
                           progress=True)
        assert "not computed yet" in res._repr_html_() and res._means is None    # showing runs no job
        assert res.mean() == expected
    err = capsys.readouterr().err
    assert "partitions" in err and "/5" in err
    assert f"{expected['MAP']:.4f}" in res._repr_html_()
    quiet = rwd.evaluate(ddf, ["MAP", "ERR@5"], qid="qid", y_true="label", y_score="score", npartitions=5,
                         progress=False)
    assert quiet.mean() == expected and capsys.readouterr().err == ""


def test_trec_eval_progress_and_notebook_table(client, example, capsys):
    pytest.importorskip("tqdm")
    qrels, run = example
    res = rwd.trec_eval(dd.from_pandas(qrels, npartitions=2, sort=False), dd.from_pandas(run, npartitions=3, sort=False),
                        ["map", "P.5"], npartitions=4, progress=True)
    assert "not computed yet" in res._repr_html_()
    means = res.mean()
    assert "/4" in capsys.readouterr().err
    assert means == rw.trec_eval(rw.Qrels.from_pandas(qrels), rw.Run.from_pandas(run), ["map", "P.5"]).mean()
    assert f"<td>{means['map']:.4f}</td>" in res._repr_html_()

