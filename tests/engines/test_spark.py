"""rankwise.spark on a real local[2] Spark: the numbers and errors of one machine, bit for bit.

Every check compares with rankwise on the DataFrame's collected columns (in ``collect()``'s
row order). The DataFrames are built from local data with explicit schemas, so that their
row order is deterministic and building them runs no job.
"""
import numpy as np
import pytest

import rankwise as rw

pytest.importorskip("pyspark")
rws = pytest.importorskip("rankwise.spark")

from pyspark.sql import functions as F  # noqa: E402

# PySpark 4's warning about pandas 3, which these tests do not use.
pytestmark = pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning")

METRICS = ["MAP", "nDCG@10", "ERR", "RBP(p=0.8, graded=True)", "P@5", "MRR", "R@20", "ERR@3", "nDCG"]
N_ROWS, N_QUERIES = 3000, 41


def _rows(seed, qid_kind):
    """Shuffled rows of N_QUERIES queries, query 0 holding half of them; graded labels, ties."""
    rng = np.random.default_rng(seed)
    qid = np.where(rng.random(N_ROWS) < 0.5, 0, rng.integers(1, N_QUERIES, N_ROWS))
    labels = rng.integers(0, 4, N_ROWS) * (rng.random(N_ROWS) < 0.4)
    scores = rng.integers(0, 12, N_ROWS) / 4  # exact in float32: the same ties in both widths
    docs = rng.permutation(N_ROWS) * 7 % 10007
    ids = [f"q{q}" for q in qid.tolist()] if qid_kind == "string" else qid.tolist()
    return list(zip(ids, labels.tolist(), scores.tolist(), [f"d{d}" for d in docs.tolist()], strict=True))


@pytest.fixture(scope="module")
def tables(spark):
    """{(qid kind, score type): DataFrame over 5 input partitions}, queries split across them."""
    out = {}
    for seed, qid_kind in enumerate(["string", "integer"]):
        rows = _rows(seed, qid_kind)
        qid_type = "string" if qid_kind == "string" else "bigint"
        for score_type in ["double", "float"]:
            schema = f"qid {qid_type}, label int, score {score_type}, doc string"
            out[qid_kind, score_type] = spark.sparkContext.parallelize(rows, 5).toDF(schema)
    return out


def _collected(df, doc_ids=False):
    """The columns as one machine gets them: y_true, y_score, qid (and doc ids)."""
    rows = df.collect()
    columns = [np.array([row[i] for row in rows]) for i in range(len(df.columns))]
    return columns[1], columns[2], columns[0], (columns[3] if doc_ids else None)


def _assert_equal(got, want, metrics):
    """Results equal bit for bit: ids in order, every metric's values."""
    assert got.query_ids.tolist() == want.query_ids.tolist()
    for name in metrics:
        assert got[name].tobytes() == want[name].tobytes(), name


CASES = [  # (input partitions after the shuffle, ties, qid kind, score type): every value of each
    (1, "expected", "string", "double"),
    (2, "optimistic", "integer", "float"),
    (7, "pessimistic", "string", "float"),
    (64, "stable", "integer", "double"),   # 64 partitions for 41 queries: most are empty
    (7, "trec", "integer", "double"),
    (2, "stable", "string", "float"),
]


@pytest.mark.parametrize("n_partitions, ties, qid_kind, score_type", CASES)
def test_equals_one_machine(tables, n_partitions, ties, qid_kind, score_type):
    df = tables[qid_kind, score_type]
    y_true, y_score, qid, docs = _collected(df, doc_ids=ties == "trec")
    want = rw.evaluate(y_true, y_score, METRICS, qid=qid, doc_ids=docs, ties=ties)
    res = rws.evaluate(df, METRICS, qid="qid", y_true="label", y_score="score",
                       doc_ids="doc" if ties == "trec" else None, ties=ties, n_partitions=n_partitions)
    assert res.mean() == want.mean()            # the partitions' exact sums merged
    _assert_equal(res.collect(), want, METRICS)
    assert res.mean() == want.mean()            # now from the collected values
    if n_partitions in (1, 7):
        rows = sorted(res.per_query.collect(), key=lambda row: row[0])
        assert [row[0] for row in rows] == want.query_ids.tolist()
        for j, name in enumerate(METRICS, start=1):
            assert np.array([row[j] for row in rows]).tobytes() == want[name].tobytes(), name


def test_a_query_split_across_input_partitions_is_evaluated_whole(tables):
    df = tables["string", "double"]
    per_partition = df.rdd.glom().map(lambda rows: {row.qid for row in rows}).collect()
    assert sum("q0" in ids for ids in per_partition) == 5   # the data: q0 lies in every input partition
    res = rws.evaluate(df, ["MAP"], qid="qid", y_true="label", y_score="score", n_partitions=3)
    y_true, y_score, qid, _ = _collected(df)
    assert res.collect()["MAP"].tobytes() == rw.evaluate(y_true, y_score, ["MAP"], qid=qid)["MAP"].tobytes()


def test_log_base(tables):
    df = tables["string", "double"]
    y_true, y_score, qid, _ = _collected(df)
    want = rw.evaluate(y_true, y_score, ["DCG@5", "nDCG@5"], qid=qid, log_base=10)
    res = rws.evaluate(df, ["DCG@5", "nDCG@5"], qid="qid", y_true="label", y_score="score", log_base=10)
    assert res.mean() == want.mean()
    _assert_equal(res.collect(), want, ["DCG@5", "nDCG@5"])


def _exchanges(df):
    """The hash shuffles of ``df``'s plan, as ``hashpartitioning(qid#12L, 5)``."""
    plan = df._jdf.queryExecution().executedPlan().toString()
    return [line.split("Exchange ")[1].split(",", 1)[0].split("#")[0] + line.split(")")[0].rsplit(",", 1)[1]
            for line in plan.splitlines() if "Exchange hashpartitioning" in line]


def test_hash_partitioned_input_is_not_shuffled_again(tables):
    df = tables["integer", "double"].repartition(5, "qid")
    y_true, y_score, qid, _ = _collected(df)
    want = rw.evaluate(y_true, y_score, ["MAP", "nDCG@10"], qid=qid, ties="stable")
    res = rws.evaluate(df, ["MAP", "nDCG@10"], qid="qid", y_true="label", y_score="score", ties="stable")
    assert _exchanges(res.per_query) == ["hashpartitioning(qid 5"]   # the input's own
    _assert_equal(res.collect(), want, ["MAP", "nDCG@10"])
    # Into another number of partitions, or by more than the query id: shuffled.
    other = rws.evaluate(df, ["MAP"], qid="qid", y_true="label", y_score="score", n_partitions=3)
    assert _exchanges(other.per_query)[0] == "hashpartitioning(qid 3"
    mixed = tables["integer", "double"].repartition(5, "qid", "doc")
    res = rws.evaluate(mixed, ["MAP"], qid="qid", y_true="label", y_score="score")
    assert _exchanges(res.per_query)[0] == "hashpartitioning(qid 4"


def test_empty_dataframe(spark):
    df = spark.createDataFrame([], "qid string, label int, score double")
    res = rws.evaluate(df, ["MAP", "ERR"], qid="qid", y_true="label", y_score="score")
    want = rw.evaluate(np.zeros(0), np.zeros(0), ["MAP", "ERR"], qid=np.zeros(0, dtype=object))
    got = res.collect()
    assert got.n_queries == want.n_queries == 0
    assert str(res.mean()) == str(want.mean()) == "{'MAP': nan, 'ERR': nan}"


def test_stats_take_spark_results(tables):
    df = tables["string", "double"]
    a = rws.evaluate(df, ["MAP", "MRR"], qid="qid", y_true="label", y_score="score", ties="optimistic")
    b = rws.evaluate(df, ["MAP", "MRR"], qid="qid", y_true="label", y_score="score", ties="pessimistic")
    y_true, y_score, qid, _ = _collected(df)
    want_a = rw.evaluate(y_true, y_score, ["MAP", "MRR"], qid=qid, ties="optimistic")
    want_b = rw.evaluate(y_true, y_score, ["MAP", "MRR"], qid=qid, ties="pessimistic")
    assert rw.compare(a, b, metric="MAP", seed=3) == rw.compare(want_a, want_b, metric="MAP", seed=3)
    report = rw.compare_systems({"a": a, "b": b}, metrics=["MRR"], seed=3)
    assert report.to_text() == rw.compare_systems({"a": want_a, "b": want_b}, metrics=["MRR"], seed=3).to_text()


# --------------------------------------------------------------------------------------
# Errors: the schema's before any job, the data's as one machine raises them
# --------------------------------------------------------------------------------------

def _no_job_runs(spark, call):
    """Run ``call`` in a job group of its own; return the exception and the jobs it ran."""
    sc = spark.sparkContext
    sc.setJobGroup("rankwise-schema-check", "schema checks run no job")
    try:
        with pytest.raises(Exception) as caught:
            call()
    finally:
        sc.setLocalProperty("spark.jobGroup.id", None)
    return caught.value, list(sc.statusTracker().getJobIdsForGroup("rankwise-schema-check"))


def _one_machine_error(call):
    with pytest.raises(Exception) as caught:
        call()
    return caught.value


@pytest.mark.parametrize("kwargs, exc, message", [
    (dict(y_score="scores"), ValueError, "y_score: the DataFrame has no column 'scores' (columns: "
                                         "['qid', 'label', 'score', 'doc'])"),
    (dict(y_score="doc"), TypeError, "y_score must be numeric (float32/float64, or integers), got column "
                                     "'doc' of type string"),
    (dict(y_true="doc"), TypeError, "y_true must hold numeric relevance labels (bool, int or float), got "
                                    "column 'doc' of type string"),
    (dict(doc_ids="score", ties="trec"), TypeError, "doc_ids must hold strings or integers, got column "
                                                     "'score' of type double"),
    (dict(ties="trec"), ValueError, "ties='trec' orders tied items by document id; pass doc_ids= (one id "
                                    "per score)"),
    (dict(metrics=["nDGC@10"]), ValueError, "unknown metric 'nDGC@10'; did you mean 'nDCG@10'?"),
    (dict(max_grade=-1), ValueError, "max_grade must be a finite number > 0, got -1"),
    (dict(qid=1), TypeError, "qid must be a column name (str), got int 1"),
    (dict(n_partitions=0), ValueError, "n_partitions must be a positive integer or None, got 0"),
])
def test_bad_arguments_raise_before_any_job(spark, tables, kwargs, exc, message):
    arguments = dict(metrics=["MAP", "ERR"], qid="qid", y_true="label", y_score="score") | kwargs
    error, jobs = _no_job_runs(spark, lambda: rws.evaluate(tables["string", "double"], **arguments))
    assert (type(error), str(error)) == (exc, message)
    assert jobs == []


def test_schema_errors_match_one_machine(spark):
    df = spark.createDataFrame([("q1", 1, "0.5")], "qid string, label int, score string")
    error, jobs = _no_job_runs(spark, lambda: rws.evaluate(df, ["MAP"], qid="qid", y_true="label",
                                                           y_score="score"))
    want = _one_machine_error(lambda: rw.evaluate([1], ["0.5"], ["MAP"], qid=["q1"]))
    assert type(error) is type(want) and str(want).split(", got")[0] == str(error).split(", got")[0]
    assert jobs == []


def _small(spark, labels, scores, docs=None):
    """Three queries over three input partitions."""
    qid = ["a", "b", "c", "a", "b", "c", "a", "b", "c"]
    docs = docs or [f"d{i}" for i in range(9)]
    rows = list(zip(qid, labels, scores, docs, strict=True))
    return spark.sparkContext.parallelize(rows, 3).toDF("qid string, label double, score double, doc string")


@pytest.mark.parametrize("case", ["nan", "labels", "labels-and-nan", "duplicates", "empty"])
def test_data_errors_match_one_machine(spark, case):
    labels, scores = [1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0], [0.5, 0.4, 0.3, 0.2, 0.1, 0.9, 0.8, 0.7, 0.6]
    docs, options = None, {}
    if case in ("nan", "labels-and-nan"):
        scores[7] = scores[4] = float("nan")   # the first in row order is in the second partition
    if case in ("labels", "labels-and-nan"):
        labels[8], labels[5] = -1.0, float("inf")
    if case == "duplicates":
        docs, options = [f"d{i % 2}" for i in range(9)], {"ties": "trec"}
    if case == "empty":
        labels, options = [0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0], {"empty": "error"}
    df = _small(spark, labels, scores, docs)
    y_true, y_score, qid, doc_ids = _collected(df, doc_ids=True)
    want = _one_machine_error(lambda: rw.evaluate(y_true, y_score, ["MAP"], qid=qid, doc_ids=doc_ids, **options))
    res = rws.evaluate(df, ["MAP"], qid="qid", y_true="label", y_score="score", doc_ids="doc", **options)
    for action in (res.mean, res.collect):
        got = _one_machine_error(action)
        assert (type(got), str(got)) == (type(want), str(want))
        if case != "labels-and-nan":
            break


@pytest.mark.parametrize("id_type", ["string", "long"])
@pytest.mark.parametrize("n_partitions", [2, 7])
def test_a_document_twice_is_one_machines_error(spark, id_type, n_partitions):
    # Queries 3 and 1 hold a document twice, 3's rows first in the table: evaluate names the
    # smaller id and its rows' positions in the table, which the shuffle scatters.
    qid = [3, 2, 3, 1, 1, 2, 1, 3]
    docs = ["x", "x", "x", "y", "z", "y", "y", "w"]
    labels, scores = [1.0, 0.0] * 4, [0.1 * i for i in range(8)]
    ids = [str(q) for q in qid] if id_type == "string" else qid
    df = spark.sparkContext.parallelize(list(zip(ids, labels, scores, docs, strict=True)), 3).toDF(
        f"qid {id_type}, label double, score double, doc string")
    want = _one_machine_error(lambda: rw.evaluate(labels, scores, ["MAP"], qid=ids, doc_ids=docs, ties="trec"))
    assert str(want).startswith(f"doc_ids has document 'y' twice for query {ids[3]!r} (rows 3 and 6)")
    res = rws.evaluate(df, ["MAP"], qid="qid", y_true="label", y_score="score", doc_ids="doc", ties="trec",
                       n_partitions=n_partitions)
    for action in (res.mean, res.collect):
        got = _one_machine_error(action)
        assert (type(got), str(got)) == (type(want), str(want))


# --------------------------------------------------------------------------------------
# trec_eval
# --------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def example(spark):
    qrels, run = rw.trec.read_example()
    return (qrels, run, spark.createDataFrame(qrels.to_pandas(), "query_id string, doc_id string, relevance double"),
            spark.createDataFrame(run.to_pandas(), "query_id string, doc_id string, score double"))


@pytest.mark.parametrize("complete, n_partitions, judged_only", [(False, 3, False), (True, 16, False), (False, 16, True)])
def test_trec_eval_equals_one_machine(example, complete, n_partitions, judged_only):
    qrels, run, qrels_df, run_df = example
    want = rw.trec_eval(qrels, run, ["all_trec"], complete=complete, judged_only=judged_only)
    res = rws.trec_eval(qrels_df, run_df, ["all_trec"], complete=complete, name=run.name,
                        n_partitions=n_partitions, judged_only=judged_only)
    got = res.collect()
    assert got.format(per_query=True) == want.format(per_query=True)
    assert res.mean() == want.mean()
    assert got.query_ids.tolist() == want.query_ids.tolist()
    if complete:
        rows = sorted(res.per_query.collect(), key=lambda row: row.query_id.encode())
        assert [row.query_id for row in rows] == want.query_ids.tolist()
        assert np.array([row["map"] for row in rows]).tobytes() == want["map"].tobytes()


def test_trec_eval_errors(spark, example):
    qrels, run, qrels_df, run_df = example
    error, jobs = _no_job_runs(spark, lambda: rws.trec_eval(qrels_df, run_df.withColumnRenamed("score", "s"),
                                                            ["map"]))
    assert str(error) == "run_df: score: the DataFrame has no column 'score' (columns: ['query_id', 'doc_id', 's'])"
    error, jobs_2 = _no_job_runs(spark, lambda: rws.trec_eval(qrels_df, run_df, ["mapp"]))
    assert str(error) == str(_one_machine_error(lambda: rw.trec_eval(qrels, run, ["mapp"])))
    assert jobs == jobs_2 == []
    elsewhere = run_df.withColumn("query_id", F.concat(F.lit("x"), "query_id"))
    got = _one_machine_error(rws.trec_eval(qrels_df, elsewhere, ["map"]).mean)
    want = _one_machine_error(lambda: rw.trec_eval(
        qrels, rw.Run.from_dict({f"x{q}": docs for q, docs in run.to_dict().items()}), ["map"]))
    assert (type(got), str(got)) == (type(want), str(want))


def test_nulls_are_an_error_naming_the_column(spark):
    df = spark.createDataFrame([("a", 1.0, 0.5), ("a", 0.0, None), (None, 1.0, 0.1)],
                               "qid string, label double, score double")
    res = rws.evaluate(df, ["MAP"], qid="qid", y_true="label", y_score="score", n_partitions=1)
    with pytest.raises(ValueError, match=r"^qid column 'qid' holds missing values \(nulls\); rankwise takes none"):
        res.mean()


def test_progress_polls_the_job_group_and_changes_no_number(spark, tables, capsys, monkeypatch):
    pytest.importorskip("tqdm")
    context = spark.sparkContext
    context.setJobGroup("callers-group", "the caller's", interruptOnCancel=True)
    df = tables["string", "double"]
    expected = rws.evaluate(df, ["MAP", "P@5"], qid="qid", y_true="label", y_score="score",
                            progress=False).collect()
    assert capsys.readouterr().err == ""
    groups = []
    polled = rws._poll
    monkeypatch.setattr(rws, "_poll", lambda tracker, group, bar, done: (groups.append(group),
                                                                         polled(tracker, group, bar, done)))
    res = rws.evaluate(df, ["MAP", "P@5"], qid="qid", y_true="label", y_score="score", n_partitions=3,
                       progress=True)
    assert "not computed yet" in res._repr_html_()          # showing runs no job
    _assert_equal(res.collect(), expected, ["MAP", "P@5"])
    assert res.mean() == expected.mean()
    err = capsys.readouterr().err
    assert "Spark evaluate" in err and "tasks" in err
    (group,) = groups
    tracker = context.statusTracker()
    stages = [s for job in tracker.getJobIdsForGroup(group) for s in tracker.getJobInfo(job).stageIds]
    assert stages and sum(tracker.getStageInfo(s).numCompletedTasks for s in stages) >= 3   # the tasks polled
    assert context.getLocalProperty("spark.jobGroup.id") == "callers-group"     # given back
    assert context.getLocalProperty("spark.job.description") == "the caller's"
    assert context.getLocalProperty("spark.job.interruptOnCancel") == "true"
    assert f"<td>{expected.mean()['MAP']:.4f}</td>" in res._repr_html_()
    for key in ("spark.jobGroup.id", "spark.job.description", "spark.job.interruptOnCancel"):
        context.setLocalProperty(key, None)
