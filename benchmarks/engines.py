"""The engines workload: rankwise.spark and rankwise.dask against what Spark and Dask users write instead.

    python benchmarks/bench.py --workload engines [--engine-rows 10000000] [--engine-queries 5000]
        [--engine-repeats 3] [--engine-data-dir DIR] [--engines spark dask]
        [--spark-driver-memory 6g] [--spark-conf KEY=VALUE ...] [--dask-memory-limit 4GiB]

Data, made once per size and --seed in --engine-data-dir (default: rankwise-bench-engines in the
temporary directory) and reused: --engine-rows rows (qid int64, doc int64 unique, label int32,
score float64) over --engine-queries queries (sizes from lognormal weights, 2,000 rows a query on
average by default), labels 0-3 with 90/6/3/1 %, scores 0.5 x label + N(0, 1) rounded to 2
decimals (so ties), rows in random order across 8 Parquet files. Every system reads those files.

A tie-free variant (unrounded scores, at most 200,000 rows, the same rows per query) is made
beside it. Every implementation runs on it first: that is its warm-up (JIT, Python workers,
classes) and its value check, since without ties every order the peers may pick is rankwise's.

Spark, one SparkSession on local[2]: rankwise.spark; pyspark.mllib's RankingMetrics and pyspark.ml's
RankingEvaluator on per-query lists built by collect_list + sort_array in the JVM; the window-function
SQL; and ``groupBy("qid").count()``, the engine's floor. Dask, one LocalCluster of 2 worker
processes with 1 thread each: rankwise.dask; ``groupby("qid").apply`` of a pandas function; the same
pandas function on one process; rankwise on one process; and ``groupby("qid").size()``, the floor.
Each timing is end to end from the Parquet files; rounds are interleaved (one call of every
implementation per round) and the table shows the best of --engine-repeats.
"""
from __future__ import annotations

import gc
import importlib.metadata
import importlib.util
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

import rankwise as rw

DEFAULT_DATA_DIR = Path(tempfile.gettempdir()) / "rankwise-bench-engines"
METRICS = ("MAP", "nDCG@10", "P@10")
K = 10
RELEVANCE_LEVEL = 1
GRADE_SHARES = (0.90, 0.06, 0.03, 0.01)
SCORE_DECIMALS = 2
N_FILES = 8
CHECK_ROWS = 200_000
# Per-query values and means of a peer may differ from rankwise's in the last bits (another
# summation order, ln instead of log2); rankwise's own engines must be identical.
ATOL = 1e-12
TARGET_SPEEDUP = 5.0
# Spark's default of 200 shuffle partitions is sized for clusters: on local[2] every shuffle
# becomes 200 tiny tasks, and the peers that go through Python workers would pay a worker round
# trip per task. 8 is the tuning guide's 2-4 tasks per core.
SPARK_SETTINGS = {"spark.sql.shuffle.partitions": "8", "spark.sql.execution.arrow.pyspark.enabled": "true",
                  "spark.ui.enabled": "false", "spark.ui.showConsoleProgress": "false"}
# log2(rank + 1) for ranks 1..K: the DCG discounts.
DISCOUNTS = 1.0 / np.log2(np.arange(2, K + 2))
# PySpark 4.3 warns about pandas 3 on every conversion, and RankingMetrics' own constructor
# warns that it uses the deprecated SQLContext; neither is the workload's doing.
warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas")
warnings.filterwarnings("ignore", message="Deprecated in 3.0.0. Use SparkSession.builder.getOrCreate")


def add_arguments(parser) -> None:
    parser.add_argument("--engine-rows", type=int, default=10_000_000, help="engines workload: rows")
    parser.add_argument("--engine-queries", type=int, default=5_000, help="engines workload: queries")
    parser.add_argument("--engine-repeats", type=int, default=3,
                        help="engines workload: timed rounds; the table shows the best")
    parser.add_argument("--engine-data-dir", type=Path, default=DEFAULT_DATA_DIR,
                        help=f"engines workload: where its Parquet files are made once and reused "
                             f"(default {DEFAULT_DATA_DIR})")
    parser.add_argument("--engines", nargs="+", default=["spark", "dask"], choices=("spark", "dask"),
                        help="engines workload: which engines to time (default: both)")
    parser.add_argument("--spark-driver-memory", default="6g",
                        help="engines workload: spark.driver.memory (local mode: the executor's too)")
    parser.add_argument("--spark-conf", action="append", default=[], metavar="KEY=VALUE",
                        help="engines workload: more SparkSession settings (repeatable)")
    parser.add_argument("--dask-memory-limit", default="4GiB",
                        help="engines workload: memory limit of each of the 2 Dask workers")


# --------------------------------------------------------------------------------------
# Data
# --------------------------------------------------------------------------------------

@dataclass
class Dataset:
    """One Parquet dataset of the workload and what the report says about it."""

    path: Path
    rows: int
    queries: int
    distinct: bool
    made: float  # seconds spent making it, 0 when reused
    size: int = 0

    def __post_init__(self):
        self.size = sum(f.stat().st_size for f in self.path.glob("*.parquet"))

    def describe(self) -> str:
        scores = "distinct scores" if self.distinct else f"scores rounded to {SCORE_DECIMALS} decimals"
        made = f"made in {self.made:.1f}s" if self.made else "reused"
        return (f"{self.rows:,} rows, {self.queries:,} queries ({self.rows / self.queries:,.0f} rows a query "
                f"on average), {scores}, {N_FILES} Parquet files ({self.size / 2**20:,.1f} MiB), {made}: "
                f"{self.path}")


def columns(rows: int, queries: int, seed: int, distinct: bool) -> dict[str, np.ndarray]:
    """The workload's columns, rows in random order.

    Query sizes: 1 + a multinomial share of the other rows by lognormal(0, 0.5) weights. Labels
    0-3 with GRADE_SHARES; scores 0.5 x label + N(0, 1), rounded to SCORE_DECIMALS unless
    ``distinct``; document ids a permutation of the row numbers (unique, unrelated to the score).
    """
    if not 1 <= queries <= rows:
        raise ValueError(f"need 1 <= queries <= rows, got {queries:,} queries and {rows:,} rows")
    rng = np.random.default_rng([seed, 15, int(distinct)])
    weights = rng.lognormal(0.0, 0.5, queries)
    sizes = 1 + rng.multinomial(rows - queries, weights / weights.sum())
    label = rng.choice(len(GRADE_SHARES), rows, p=GRADE_SHARES).astype(np.int32)
    score = 0.5 * label + rng.standard_normal(rows)
    if not distinct:
        score = np.round(score, SCORE_DECIMALS)
    order = rng.permutation(rows)
    data = {"qid": np.repeat(np.arange(queries, dtype=np.int64), sizes)[order],
            "doc": rng.permutation(rows).astype(np.int64), "label": label[order], "score": score[order]}
    if distinct and tied_rows(data["qid"], data["score"]):
        raise AssertionError("the tie-free variant has ties; pick another --seed")
    return data


def tied_rows(qid: np.ndarray, score: np.ndarray) -> int:
    """How many rows share their query's score with an earlier row."""
    order = np.lexsort((score, qid))
    q, s = qid[order], score[order]
    return int(np.count_nonzero((q[1:] == q[:-1]) & (s[1:] == s[:-1])))


def dataset(directory: Path, rows: int, queries: int, seed: int, distinct: bool) -> Dataset:
    """The Parquet dataset of these parameters in ``directory``, made first if absent."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = directory / f"{rows}x{queries}-seed{seed}-{'distinct' if distinct else 'ties'}"
    if path.is_dir():
        return Dataset(path, rows, queries, distinct, 0.0)
    directory.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    data = columns(rows, queries, seed, distinct)
    part = Path(tempfile.mkdtemp(prefix=path.name + ".part", dir=directory))
    bounds = np.linspace(0, rows, N_FILES + 1).astype(np.int64)
    for i in range(N_FILES):
        table = pa.table({name: values[bounds[i]:bounds[i + 1]] for name, values in data.items()})
        pq.write_table(table, part / f"part-{i:05d}.parquet")
    os.replace(part, path)
    return Dataset(path, rows, queries, distinct, time.perf_counter() - start)


def read_pandas(data: Dataset):
    import pandas as pd

    return pd.read_parquet(data.path, columns=["qid", "label", "score"])


def rankwise_reference(frame, binary: bool = False) -> rw.Results:
    """rw.evaluate on one process: what every engine's numbers are checked against."""
    labels = frame["label"].to_numpy()
    if binary:
        labels = (labels >= RELEVANCE_LEVEL).astype(np.int32)
    return rw.evaluate(labels, frame["score"].to_numpy(), list(METRICS), qid=frame["qid"].to_numpy())


def tie_share(frame) -> float:
    """Mean number of other rows of its query a row ties with."""
    counts = frame.groupby(["qid", "score"]).size().to_numpy()
    return float((counts * (counts - 1)).sum() / counts.sum())


# --------------------------------------------------------------------------------------
# Implementations
# --------------------------------------------------------------------------------------

@dataclass
class Impl:
    """One way of computing the workload's means from a Parquet dataset.

    ``means(path)`` is what is timed. ``per_query(path)``, if given, returns a pandas DataFrame
    indexed by query id with one column per metric, for the check. ``reference`` names the
    rankwise definition its values must equal on the tie-free variant: "linear" (rankwise's
    defaults), "binary" (the same on labels >= 1 as 1, else 0) or "floor" (nothing to check).
    ``exact``: equal with ==, not within ATOL. ``role``: "rankwise", "peer", "floor" or "info"
    (reported, not judged).
    """

    name: str
    means: Callable[[str], dict]
    role: str
    reference: str = "linear"
    per_query: Callable[[str], object] | None = None
    exact: bool = False
    times: list = field(default_factory=list)
    first: dict | None = None


def pandas_query_metrics(group):
    """MAP, nDCG@10 and P@10 of one query's rows, for ``groupby("qid").apply``.

    The ad-hoc route that field survey 2 (shared/research/field-2.md, section 1) found Dask and Ray
    users take, there being no maintained ranking-metric package for them: one function per
    query applied to each group. Written as a competent user would, vectorised within the
    query: one stable argsort by descending score, AP from a cumulative sum of the relevant
    rows, DCG over the top 10 and the ideal DCG over the 10 largest labels. trec_eval's
    conventions, as rankwise's: AP divides by the query's relevant rows R, P@10 by 10, and a
    query without relevant rows scores 0.
    """
    import pandas as pd

    labels = group["label"].to_numpy()[np.argsort(-group["score"].to_numpy(), kind="stable")]
    relevant = labels >= RELEVANCE_LEVEL
    n_relevant = np.count_nonzero(relevant)
    ranks = np.flatnonzero(relevant) + 1
    ap = float((np.arange(1, n_relevant + 1) / ranks).sum() / n_relevant) if n_relevant else 0.0
    top, ideal = labels[:K], np.sort(labels)[::-1][:K]
    idcg = float(ideal @ DISCOUNTS[:ideal.shape[0]])
    ndcg = float(top @ DISCOUNTS[:top.shape[0]]) / idcg if idcg > 0 else 0.0
    return pd.Series({"MAP": ap, "nDCG@10": ndcg, "P@10": np.count_nonzero(relevant[:K]) / K})


def _frame_means(frame) -> dict:
    return {name: float(value) for name, value in frame.mean().items()}


# ---- Spark

def spark_session(args):
    """One local[2] SparkSession for every Spark implementation."""
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    builder = SparkSession.builder.master("local[2]").appName("rankwise-bench-engines")
    for key, value in spark_settings(args).items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def spark_settings(args) -> dict:
    """SPARK_SETTINGS, the driver memory, then --spark-conf's KEY=VALUE items."""
    settings = {**SPARK_SETTINGS, "spark.driver.memory": args.spark_driver_memory}
    for item in args.spark_conf:
        key, _, value = item.partition("=")
        settings[key] = value
    return settings


def spark_lists(rows):
    """Per-query lists, built in the JVM: the document ids by descending score (collect_list,
    then sort_array of (score, doc) structs) and the ids of the relevant documents."""
    from pyspark.sql import functions as F

    ranked = F.sort_array(F.collect_list(F.struct(F.col("score"), F.col("doc"))), asc=False)
    truth = F.collect_list(F.when(F.col("label") >= RELEVANCE_LEVEL, F.col("doc")))
    return (rows.groupBy("qid").agg(ranked.alias("ranked"), truth.alias("truth"))
            .select(F.col("ranked.doc").alias("prediction"), "truth"))


def spark_ranking_metrics(spark, path: str) -> dict:
    """MAP, nDCG@10 and P@10 by ``pyspark.mllib.evaluation.RankingMetrics``, built the usual way.

    As recommenders' ``SparkRankingEvaluation`` (recommenders/evaluation/spark_evaluation.py) and
    most Spark users do: per-query lists from collect_list (sorted in the JVM, see
    ``spark_lists``), then ``RankingMetrics(lists.rdd)`` on (prediction ids, truth ids). The
    lists are cached, as a user asking for three metrics would, so that each metric's pass
    starts from them rather than from the files.

    Its nDCG is binary: the (prediction, truth, relevances) form its docstring offers since 3.4
    loses the relevances on the way to the JVM (PythonMLLibAPI.newRankingMetrics keeps columns 0
    and 1; checked in 4.3.0), so they are not sent. MAP and P@10 are rankwise's on graded labels.
    """
    from pyspark.mllib.evaluation import RankingMetrics

    lists = spark_lists(spark.read.parquet(path)).cache()
    try:
        metrics = RankingMetrics(lists.rdd)
        return {"MAP": metrics.meanAveragePrecision, "nDCG@10": metrics.ndcgAt(K),
                "P@10": metrics.precisionAt(K)}
    finally:
        lists.unpersist()


def spark_ranking_evaluator(spark, path: str) -> dict:
    """MAP, nDCG@10 and P@10 by ``pyspark.ml.evaluation.RankingEvaluator``: RankingMetrics
    without leaving the JVM, on the lists of ``spark_lists`` (ids as doubles, as it requires).

    Its nDCG is binary (no relevance column), so only its MAP and P@10 are rankwise's on graded
    labels; its nDCG@10 is rankwise's on labels binarised at 1. Cached as in ``spark_ranking_metrics``.
    """
    from pyspark.ml.evaluation import RankingEvaluator
    from pyspark.sql import functions as F

    lists = (spark_lists(spark.read.parquet(path))
             .select(F.col("prediction").cast("array<double>").alias("prediction"),
                     F.col("truth").cast("array<double>").alias("label")).cache())
    try:
        evaluator = RankingEvaluator(k=K)
        return {name: evaluator.evaluate(lists, {evaluator.metricName: metric})
                for name, metric in (("MAP", "meanAveragePrecision"), ("nDCG@10", "ndcgAtK"),
                                     ("P@10", "precisionAtK"))}
    finally:
        lists.unpersist()


WINDOW_SQL = f"""
WITH ranked AS (
  SELECT qid, label,
         CAST(label >= {RELEVANCE_LEVEL} AS INT) AS relevant,
         row_number() OVER (PARTITION BY qid ORDER BY score DESC) AS rank,
         sum(CAST(label >= {RELEVANCE_LEVEL} AS INT)) OVER (
           PARTITION BY qid ORDER BY score DESC ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS hits,
         row_number() OVER (PARTITION BY qid ORDER BY label DESC) AS ideal_rank
  FROM {{table}}
), sums AS (
  SELECT qid,
         sum(relevant) AS n_relevant,
         sum(IF(relevant = 1, hits / rank, 0D)) AS precisions,
         sum(IF(rank <= {K}, relevant, 0)) AS hits_at_k,
         sum(IF(rank <= {K}, label / log2(rank + 1), 0D)) AS dcg,
         sum(IF(ideal_rank <= {K}, label / log2(ideal_rank + 1), 0D)) AS idcg
  FROM ranked GROUP BY qid
)
SELECT qid,
       IF(n_relevant > 0, precisions / n_relevant, 0D) AS `MAP`,
       IF(idcg > 0, dcg / idcg, 0D) AS `nDCG@10`,
       hits_at_k / {K}D AS `P@10`
FROM sums
"""


def spark_window_per_query(spark, path: str):
    """MAP, nDCG@10 and P@10 per query by the usual window-function SQL.

    The pattern of antlypls.com's "Ranking Metrics with Spark" and of the hand-written SQL field
    survey 2 lists (field-2.md, section 1): ``row_number() OVER (PARTITION BY qid ORDER BY score
    DESC)`` gives each row its rank, a running sum over the same window its hits so far, a second
    ``row_number()`` by descending label its rank in the ideal order, and one GROUP BY turns them
    into AP, DCG@10, IDCG@10 and P@10 (trec_eval's conventions, as rankwise's). Ties fall in
    whatever order the sort leaves them.
    """
    spark.read.parquet(path).createOrReplaceTempView("engine_rows")
    return spark.sql(WINDOW_SQL.format(table="engine_rows"))


def spark_window_means(spark, path: str) -> dict:
    from pyspark.sql import functions as F

    row = spark_window_per_query(spark, path).agg(*(F.avg(F.col(f"`{m}`")).alias(m) for m in METRICS)).first()
    return {m: row[m] for m in METRICS}


def spark_floor(spark, path: str) -> dict:
    """``groupBy("qid").count()``: the engine's floor, every query's rows counted."""
    return {"queries": len(spark.read.parquet(path).groupBy("qid").count().collect())}


def spark_python_floor(spark, path: str) -> dict:
    """What any Python evaluator on Spark pays before computing anything: the shuffle by query
    id and the hand-off of every row to the Python workers as Arrow (``mapInArrow`` that only
    counts rows), as rankwise.spark's job does."""
    def count_batches(batches):  # nested: cloudpickle sends it by value (workers cannot import benchmarks/)
        import pyarrow as pa

        yield pa.RecordBatch.from_pydict({"rows": [sum(batch.num_rows for batch in batches)]})

    rows = (spark.read.parquet(path).select("qid", "label", "score").repartition("qid")
            .mapInArrow(count_batches, "rows long").collect())
    return {"rows": sum(row.rows for row in rows)}


def spark_impls(spark, rws) -> list[Impl]:
    def read(path):
        return spark.read.parquet(path)

    impls = []
    if rws is not None:
        impls.append(Impl(
            "rankwise.spark evaluate(...).mean()",
            lambda p: rws.evaluate(read(p), list(METRICS), qid="qid", y_true="label", y_score="score",
                                   ties="expected").mean(),
            "rankwise", exact=True,
            per_query=lambda p: _results_frame(rws.evaluate(read(p), list(METRICS), qid="qid", y_true="label",
                                                            y_score="score", ties="expected").collect())))
    impls += [
        Impl("mllib RankingMetrics (lists.rdd), binary nDCG", lambda p: spark_ranking_metrics(spark, p),
             "peer", "binary"),
        Impl("ml RankingEvaluator (JVM only), binary nDCG", lambda p: spark_ranking_evaluator(spark, p),
             "peer", "binary"),
        Impl("window SQL: row_number() + GROUP BY", lambda p: spark_window_means(spark, p), "peer",
             per_query=lambda p: spark_window_per_query(spark, p).toPandas().set_index("qid").sort_index()),
        Impl('floor: groupBy("qid").count().collect()', lambda p: spark_floor(spark, p), "floor", "floor"),
        Impl('floor for Python: repartition("qid") + mapInArrow counting rows',
             lambda p: spark_python_floor(spark, p), "floor", "floor"),
    ]
    return impls


# ---- Dask

def dask_apply(dd, path: str):
    """Per-query MAP, nDCG@10 and P@10 by ``ddf.groupby("qid").apply(pandas_query_metrics)``.

    Dask's ad-hoc route (field-2.md, section 1): a shuffle by query id, then the pandas function
    on each group, with ``meta`` given so that Dask need not run it on a sample first.
    """
    import pandas as pd

    meta = pd.DataFrame({m: pd.Series(dtype="float64") for m in METRICS})
    rows = dd.read_parquet(path, columns=["qid", "label", "score"])
    return rows.groupby("qid")[["label", "score"]].apply(pandas_query_metrics, meta=meta)


def pandas_apply(path: str):
    """The same pandas function through ``DataFrame.groupby("qid").apply`` on one process."""
    import pandas as pd

    rows = pd.read_parquet(path, columns=["qid", "label", "score"])
    return rows.groupby("qid")[["label", "score"]].apply(pandas_query_metrics)


def rankwise_one_process(path: str) -> rw.Results:
    """pandas.read_parquet + rw.evaluate on one process, its default threads."""
    import pandas as pd

    rows = pd.read_parquet(path, columns=["qid", "label", "score"])
    return rw.evaluate(rows["label"].to_numpy(), rows["score"].to_numpy(), list(METRICS),
                       qid=rows["qid"].to_numpy())


def dask_impls(dd, rwd) -> list[Impl]:
    impls = []
    if rwd is not None:
        def evaluate(path):
            return rwd.evaluate(dd.read_parquet(path, columns=["qid", "label", "score"]), list(METRICS),
                                qid="qid", y_true="label", y_score="score", ties="expected")

        impls.append(Impl("rankwise.dask evaluate(...).mean()", lambda p: evaluate(p).mean(), "rankwise",
                          exact=True, per_query=lambda p: _results_frame(evaluate(p).compute())))
    impls += [
        Impl('dask groupby("qid").apply(pandas function)',
             lambda p: _frame_means(dask_apply(dd, p).compute()), "peer",
             per_query=lambda p: dask_apply(dd, p).compute().sort_index()),
        Impl('pandas groupby("qid").apply, one process', lambda p: _frame_means(pandas_apply(p)), "info",
             per_query=lambda p: pandas_apply(p).sort_index()),
        Impl("rankwise evaluate, one process (pandas.read_parquet)", lambda p: rankwise_one_process(p).mean(),
             "info", exact=True, per_query=lambda p: _results_frame(rankwise_one_process(p))),
        Impl('floor: groupby("qid").size().compute()',
             lambda p: {"queries": len(dd.read_parquet(p, columns=["qid"]).groupby("qid").size().compute())},
             "floor", "floor"),
        Impl('floor for partitions: shuffle(on="qid") + map_partitions(len)',
             lambda p: {"rows": int(dd.read_parquet(p, columns=["qid", "label", "score"]).shuffle(on="qid")
                                    .map_partitions(len).sum().compute())},
             "floor", "floor"),
    ]
    return impls


# --------------------------------------------------------------------------------------
# Checks and timing
# --------------------------------------------------------------------------------------

def _results_frame(results: rw.Results):
    import pandas as pd

    return pd.DataFrame({m: results[m] for m in METRICS}, index=pd.Index(results.query_ids, name="qid"))


def disagreements(impl: Impl, frame, path: str) -> list[str]:
    """How ``impl`` departs from rankwise on the tie-free dataset read into ``frame``."""
    if impl.reference == "floor":
        return []
    ref = rankwise_reference(frame, binary=impl.reference == "binary")
    problems = []
    got = impl.means(path)
    for name, want in ref.mean().items():
        if not _same(got[name], want, impl.exact):
            problems.append(f"mean {name}: {got[name]!r}, rankwise {want!r}")
    if impl.per_query is not None:
        values = impl.per_query(path)
        if not np.array_equal(values.index.to_numpy(), ref.query_ids):
            return [*problems, "per query: the query ids differ from rankwise's"]
        for name in METRICS:
            column, want = values[name].to_numpy(dtype=np.float64), ref[name]
            bad = column != want if impl.exact else ~(np.abs(column - want) <= ATOL)
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                problems.append(f"{name}: {np.count_nonzero(bad)} of {bad.shape[0]} queries differ, e.g. "
                                f"query {ref.query_ids[i]}: {column[i]!r}, rankwise {want[i]!r}")
    return problems


def _same(got: float, want: float, exact: bool) -> bool:
    return got == want if exact else abs(got - want) <= ATOL


def check_all(impls: list[Impl], check: Dataset) -> list[str]:
    """Run every implementation once on the tie-free variant (its warm-up), compare with rankwise."""
    frame = read_pandas(check)
    failures = []
    for impl in impls:
        problems = disagreements(impl, frame, str(check.path))
        failures += [f"{impl.name}: {p}" for p in problems]
        agreement = {"rankwise": "== rankwise.evaluate", "linear": f"within {ATOL:g} of rankwise",
                     "binary": f"within {ATOL:g} of rankwise on labels >= 1 as 1"}
        what = "floor (nothing to check)" if impl.reference == "floor" else (
            agreement["rankwise"] if impl.exact else agreement[impl.reference])
        print(f"  {impl.name:<58} {'DISAGREES' if problems else 'agrees'}: {what}")
        for p in problems:
            print(f"      {p}")
    return failures


def time_rounds(impls: list[Impl], path: str, repeats: int) -> None:
    """``repeats`` interleaved rounds: seconds in ``impl.times``, the first value in ``impl.first``."""
    for impl in impls:
        impl.times, impl.first = [], None
    for _ in range(repeats):
        for impl in impls:
            gc.collect()
            start = time.perf_counter()
            value = impl.means(path)
            impl.times.append(time.perf_counter() - start)
            if impl.first is None:
                impl.first = value


def report(engine: str, impls: list[Impl]) -> None:
    ours = next((i for i in impls if i.role == "rankwise"), None)
    base = min(ours.times) if ours is not None else None
    print(f"\n{'implementation':<58} {'best':>9}  {'rounds':<24} {'/ rankwise':>10}")
    for impl in impls:
        ratio = f"{min(impl.times) / base:>9.2f}x" if base else f"{'n/a':>10}"
        rounds = " ".join(f"{t:.2f}" for t in impl.times)
        print(f"{impl.name:<58} {min(impl.times):>8.3f}s  {rounds:<24} {ratio}")
    print(f"(seconds end to end from the Parquet files, best of {len(impls[0].times)}; / rankwise: the time "
          f"as a multiple of {engine}'s)")


def tied_means(impls: list[Impl], frame) -> list[str]:
    """The means each implementation gave on the timed (tied) data beside rankwise's, which rankwise's
    engines must equal bit for bit; the peers order ties their own way, so theirs may differ."""
    ref = rankwise_reference(frame)
    binary = rankwise_reference(frame, binary=True).mean()
    print(f"\nmeans on the timed data (ties): rankwise ties='expected' {_fmt(ref.mean())}; on labels >= 1 "
          f"as 1, nDCG@10 {binary['nDCG@10']:.6f}")
    failures = []
    for impl in impls:
        if impl.reference == "floor":
            continue
        print(f"  {impl.name:<58} {_fmt(impl.first)}")
        if impl.exact and impl.first != ref.mean():
            failures.append(f"{impl.name}: means on the timed data {impl.first} != rankwise's {ref.mean()}")
            print("      DISAGREES with rw.evaluate on the same rows")
    return failures


def _fmt(means: dict) -> str:
    return ", ".join(f"{m} {means[m]:.6f}" for m in METRICS)


def targets(engine: str, impls: list[Impl]) -> list[str]:
    ours = next((i for i in impls if i.role == "rankwise"), None)
    if ours is None:
        return [f"engines: {engine} not importable: its targets are not judged"]
    best, lines = min(ours.times), []
    for impl in impls:
        seconds = min(impl.times)
        if impl.role == "peer":
            verdict = "MET" if seconds / best >= TARGET_SPEEDUP else "MISSED"
            lines.append(f"engines: {engine} {best:.2f}s vs {impl.name} {seconds:.2f}s: "
                         f"{seconds / best:.1f}x (target >= {TARGET_SPEEDUP:g}x): {verdict}")
        elif impl.role == "floor":
            lines.append(f"engines: {engine} {best:.2f}s is {best / seconds:.1f}x its floor, {impl.name} "
                         f"{seconds:.2f}s")
    return lines


# --------------------------------------------------------------------------------------
# Engines
# --------------------------------------------------------------------------------------

def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def java_version() -> str | None:
    """``java -version``'s first line, or None when there is no Java to start Spark with."""
    home = os.environ.get("JAVA_HOME")
    java = str(Path(home) / "bin" / "java") if home else shutil.which("java")
    if java is None or not Path(java).exists():
        return None
    done = subprocess.run([java, "-version"], capture_output=True, text=True, check=False)
    lines = (done.stderr or done.stdout).splitlines()
    return lines[0] if lines else "java (version unknown)"


def _optional(module: str):
    """The module, or None with the reason printed (rankwise.spark / rankwise.dask before they land)."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        print(f"{module} not importable ({error}): its rows are skipped")
        return None


def run_spark(args, data: Dataset, check: Dataset, frame) -> tuple[list, list]:
    java = java_version()
    if importlib.util.find_spec("pyspark") is None or java is None:
        print("\nspark: skipped (" + ("pyspark not installed" if java else "no Java: set JAVA_HOME") + ")")
        return ["engines: spark skipped"], []
    start = time.perf_counter()
    spark = spark_session(args)
    settings = ", ".join(f"{k}={v}" for k, v in spark_settings(args).items() if not k.startswith("spark.ui."))
    print(f"\n-- spark: local[2], pyspark {_version('pyspark')}, {java}, {settings}; session started in "
          f"{time.perf_counter() - start:.1f}s")
    try:
        impls = spark_impls(spark, _optional("rankwise.spark"))
        print(f"check and warm-up on the tie-free variant ({check.rows:,} rows):")
        failures = check_all(impls, check)
        time_rounds(impls, str(data.path), args.engine_repeats)
    finally:
        spark.stop()
    report("rankwise.spark", impls)
    failures += tied_means(impls, frame)
    return targets("rankwise.spark", impls), failures


def run_dask(args, data: Dataset, check: Dataset, frame) -> tuple[list, list]:
    if importlib.util.find_spec("dask") is None or importlib.util.find_spec("distributed") is None:
        print("\ndask: skipped (dask[dataframe,distributed] not installed)")
        return ["engines: dask skipped"], []
    import cloudpickle
    import dask.dataframe as dd
    from distributed import Client, LocalCluster

    # The workers cannot import this module (benchmarks/ is not on their path): ship its functions.
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    # The scheduler logs every start and end of a peer-to-peer shuffle as a warning.
    logging.getLogger("distributed.shuffle").setLevel(logging.ERROR)
    start = time.perf_counter()
    # The scheduler opens an HTTP server even without a dashboard, on 8787 unless told otherwise,
    # and warns when another cluster holds that port: port 0 takes a free one.
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, memory_limit=args.dask_memory_limit,
                      dashboard_address=":0") as cluster, Client(cluster):
        print(f"\n-- dask: LocalCluster of 2 worker processes x 1 thread, {args.dask_memory_limit} each, "
              f"dask {_version('dask')}, distributed {_version('distributed')}, pandas {_version('pandas')}; "
              f"started in {time.perf_counter() - start:.1f}s")
        impls = dask_impls(dd, _optional("rankwise.dask"))
        print(f"check and warm-up on the tie-free variant ({check.rows:,} rows):")
        failures = check_all(impls, check)
        time_rounds(impls, str(data.path), args.engine_repeats)
    report("rankwise.dask", impls)
    failures += tied_means(impls, frame)
    return targets("rankwise.dask", impls), failures


def bench_engines(args) -> tuple[list, list]:
    """Run the workload; returns (summary lines, failures)."""
    rows, queries = args.engine_rows, args.engine_queries
    check_rows = min(rows, CHECK_ROWS)
    check_queries = max(1, round(queries * check_rows / rows))
    shares = "/".join(f"{s:.0%}" for s in GRADE_SHARES)
    print(f"\n== engines: rankwise.spark and rankwise.dask against Spark's RankingMetrics, window SQL and "
          f"pandas groupby().apply; {', '.join(METRICS)}, labels 0-3 ({shares})")
    data = dataset(args.engine_data_dir, rows, queries, args.seed, distinct=False)
    check = dataset(args.engine_data_dir, check_rows, check_queries, args.seed, distinct=True)
    frame = read_pandas(data)
    print(f"timed data: {data.describe()}; a row ties with {tie_share(frame):.1f} others of its query on "
          f"average")
    print(f"tie-free variant: {check.describe()}")
    summary, failures = [], []
    for engine, run in (("spark", run_spark), ("dask", run_dask)):
        if engine in args.engines:
            lines, problems = run(args, data, check, frame)
            summary += lines
            failures += problems
    return summary, failures
