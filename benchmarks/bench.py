"""rankwise against a vectorised NumPy reference and the libraries people use instead.

Usage: python benchmarks/bench.py [--quick]
           [--workload all|w1|w2|w3|w4|w5|w6|w7|files|engines|recsys|fusion|agreement ...]
           [--repeats 7] [--seed 0] [--queries 200] [--min-candidates 1000] [--max-candidates 100000]
           [--relevant 17] [--trec-queries 5000] [--trec-docs 1000] [--lp-queries 100000]
           [--lp-candidates 1000] [--dense-queries 10000] [--dense-docs 1000]
           [--scale-queries 2000] [--stats-queries 10000] [--stats-resamples 10000]
           [--memory-rows 10000000] [--memory-queries 10000]
           [--data-dir DIR] [--trec-eval-src DIR | --trec-eval PATH]
           [--engine-rows 10000000] [--engine-queries 5000] [--engine-repeats 3] [--engine-data-dir DIR]
           [--engines spark dask] [--spark-driver-memory 6g] [--spark-conf KEY=VALUE]
           [--dask-memory-limit 4GiB] [--recsys-users 1000000] [--recsys-items 50000] [--recsys-depth 100]
           [--recsys-held-out 10] [--recsys-sample-users 20000] [--recsys-batch 2048]
           [--fusion-queries 5000] [--fusion-docs 200] [--agreement-queries 10000] [--agreement-docs 1000]
           [--topk-users 20000] [--topk-items 20000] [--topk-k 100]

Workloads (generated deterministically from --seed; old names kept as aliases):

* w1 (influence): 200 queries, candidates per query uniform in [1,000, 100,000], Poisson(17)
  relevant each, float64 scores; MRR and MAP over the full ranking.
* w2 (trec): 5,000 queries x 1,000 retrieved documents held in NumPy arrays (integer ids),
  graded qrels 0..3 with 60 judged per query of which 12 are not retrieved; nDCG@10, MAP,
  P@10, R@100 and MRR with trec_eval's semantics.
* w3 (link-prediction): 100,000 queries x (1 positive + 999 negatives), float32 rounded to
  2 decimals (heavy ties); MRR and Hits@1,3,10 under ties "realistic" and "expected".
* w4 (dense): 10,000 x 1,000 float64 scores with graded labels 0..3; nDCG@10 with linear
  and exponential gain.
* w5 (scale): w1 with 2,000 queries (about 100 million rows): time and peak memory.
* w6 (stats, compare): paired significance tests on 10,000 queries x 10,000 resamples:
  rw.compare's randomization and bootstrap tests against scipy.stats.permutation_test and
  scipy.stats.bootstrap, with the agreement of their p-values and intervals.
* w7 (memory): peak extra memory of Run.from_arrays and of trec_eval from arrays (issue 21),
  one query of 10 million rows and 10,000 queries x 1,000 rows (grouped, and shuffled),
  each measured in a fresh process, beside the input's size.
* files (benchmarks/files.py): W2's shape as TREC files (string ids, a ~190 MB run, made once in
  --data-dir): trec_eval 10.0 (built from --trec-eval-src with its Makefile, or --trec-eval)
  against ``rankwise eval`` (default measures, -m all_trec; outputs compared line for line) and
  pytrec_eval, ir_measures and ranx reading the same files, each a fresh process (wall time and
  peak RSS, median of at most 3); Run.read's throughput on the plain file, from a pipe and
  compressed (gzip, bzip2, xz, zstd where rankwise reads them) beside ``gzip -dc`` and the others.
* engines (benchmarks/engines.py; not part of "all": it needs pyspark with Java 17 and
  dask[dataframe,distributed]): 10 million rows in Parquet (5,000 queries, graded labels, tied
  scores), MAP, nDCG@10, P@10: rankwise.spark on local[2] against Spark's RankingMetrics,
  RankingEvaluator and the window-function SQL, rankwise.dask on a 2-process LocalCluster against
  pandas groupby().apply through Dask and on one process, each beside its engine's floor
  (a group-by count); values checked on a tie-free variant first.
* recsys (benchmarks/recsys.py; not part of "all": several GB of arrays, and the recommender
  libraries): evaluate_topk on 1,000,000 users x 100 recommended int32 ids against a CSR of ~10
  held-out items per user (50,000 items), P@10, R@100, AP@100, nDCG@100, beside implicit's
  ranking_metrics_at_k (through a model returning the same lists), torchmetrics' Retrieval*
  (on a sample, time extrapolated) and RecBole's metrics on its collector's pos_index, each first
  checked against rankwise under its convention=; top_k on 20,000 x 20,000 float32 scores with 1%
  of the items excluded, k=100, beside numpy argpartition + sort and torch.topk on a masked copy.
  Peers not installed are named and left out.

Every implementation starts from the same NumPy arrays; conversion into its input format
(dicts, typed lists, tensors, DataFrames) is timed as part of it. For each workload the
command prints the first-call time, the median of several repeats (rounds interleaved, so
drift of a shared machine falls on all alike), the peak extra resident memory, and the time
of one streaming pass over the same input (the yardstick: the memory-bandwidth floor). It
checks that every implementation's values agree with the NumPy reference and says so, then
tells whether rankwise meets its target: at least 10x faster than the fastest competitor,
or, where that would beat the yardstick, within 1.5x of it; never more than 3x the yardstick.

Competitors are timed when installed (``pip install ".[bench]"``): pytrec_eval, ranx (its
low-level typed-list functions and its Qrels/Run objects), ir_measures, scikit-learn,
torchmetrics and plain torch.
"""
from __future__ import annotations

import argparse
import ctypes
import gc
import importlib.metadata
import importlib.util
import os
import platform
import statistics
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

# ranx's kernels are numba functions cached on disk; a fresh cache directory makes the
# first-call column show the JIT compilation a new user (or a new environment) pays.
if "NUMBA_CACHE_DIR" not in os.environ:
    _NUMBA_CACHE = tempfile.TemporaryDirectory(prefix="rankwise-bench-numba-")
    os.environ["NUMBA_CACHE_DIR"] = _NUMBA_CACHE.name

import agreement  # noqa: E402  (benchmarks/agreement.py)
import engines  # noqa: E402  (benchmarks/engines.py)
import files  # noqa: E402  (benchmarks/files.py)
import fusion  # noqa: E402  (benchmarks/fusion.py)
import numpy as np  # noqa: E402
import recsys  # noqa: E402  (benchmarks/recsys.py)

import rankwise as rw  # noqa: E402
from rankwise.testing.lists import numpy_rr_ap  # noqa: E402

LINK_KS = (1, 3, 10)
# ranx's typed-list sort indexes with a uint64 loop variable; numba warns on every first call.
warnings.filterwarnings("ignore", message="unsafe cast from uint64 to int64")
ALIASES = {"influence": "w1", "trec": "w2", "link-prediction": "w3", "dense": "w4", "scale": "w5",
           "stats": "w6", "compare": "w6", "memory": "w7"}
WORKLOADS = ("w1", "w2", "w3", "w4", "w5", "w6", "w7", "files")
# Run only when named: they need software "all" does not (a JVM, Spark, Dask; the recommender
# libraries) and take long (recsys: several GB of arrays).
OPT_IN = ("engines", "recsys", "fusion", "agreement")
# A competitor whose first call takes longer than this runs in SLOW_ROUNDS rounds only.
SLOW_SECONDS = 2.0
SLOW_ROUNDS = 3
SUMMARY: list[tuple] = []
MEMORY_SUMMARY: list[tuple] = []
FILES_SUMMARY: list[str] = []
ENGINES_SUMMARY: list[str] = []
FAILURES: list[str] = []


def installed(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


# --------------------------------------------------------------------------------------
# Measurement
# --------------------------------------------------------------------------------------

@dataclass
class Impl:
    """One way of computing a workload's values from its NumPy arrays.

    role: "yardstick" (one streaming pass), "reference" (vectorised NumPy), "competitor",
    "rankwise" (end to end from the arrays: what the target is judged on) or "rankwise-info"
    (other rankwise paths, reported but not judged). ``check`` receives the first call's
    value and raises if it disagrees with the reference.
    """

    name: str
    func: Callable
    role: str = "competitor"
    check: Callable | None = None
    short: str = ""


class PeakMemory:
    """Peak extra resident memory of a block: VmHWM after minus VmRSS before (Linux).

    The kernel's high-water mark is reset first (``/proc/self/clear_refs``), and freed heap
    is handed back to the OS (``malloc_trim``) so that memory cached by the allocator from
    earlier calls does not hide this call's allocations. Counts every allocation, Python's,
    NumPy's and C's (rankwise's kernels, numba's, torch's). None where unavailable.
    """

    try:
        _libc = ctypes.CDLL("libc.so.6")
    except OSError:
        _libc = None
    available = _libc is not None and os.access("/proc/self/clear_refs", os.W_OK)

    def __enter__(self):
        self.peak = None
        if self.available:
            gc.collect()
            self._libc.malloc_trim(0)
            self._base = _status_kib("VmRSS")
            with open("/proc/self/clear_refs", "w") as f:
                f.write("5")
        return self

    def __exit__(self, *exc):
        if self.available:
            self.peak = max(_status_kib("VmHWM") - self._base, 0) * 1024


def _status_kib(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise KeyError(field)


def measure(impls, repeats):
    """First call (value checked), then ``repeats`` interleaved rounds; memory in round 0.

    Returns {name: (first, median, runs, peak_bytes)}.
    """
    first, times, peak, failures = {}, {impl.name: [] for impl in impls}, {}, []
    for impl in impls:
        gc.collect()
        start = time.perf_counter()
        value = impl.func()
        first[impl.name] = time.perf_counter() - start
        if impl.check is not None:
            try:
                impl.check(value)
            except AssertionError as error:
                failures.append(f"{impl.name}: {error}")
        del value
    for round_ in range(repeats):
        for impl in impls:
            if first[impl.name] > SLOW_SECONDS and round_ >= SLOW_ROUNDS:
                continue
            # Let OpenMP workers of the previous call (torch's, numba's libgomp) stop spinning.
            time.sleep(0.02)
            if round_ == 0:
                with PeakMemory() as memory:
                    start = time.perf_counter()
                    value = impl.func()
                    times[impl.name].append(time.perf_counter() - start)
                    del value
                peak[impl.name] = memory.peak
            else:
                gc.collect()
                start = time.perf_counter()
                value = impl.func()
                times[impl.name].append(time.perf_counter() - start)
                del value
    stats = {impl.name: (first[impl.name], statistics.median(times[impl.name]), len(times[impl.name]),
                         peak[impl.name]) for impl in impls}
    return stats, failures


def verdict(median, fastest, yardstick):
    """The issue's targets, judged separately.

    Speed: at least 10x faster than the fastest competitor or, where 10x would beat the
    yardstick (a memory-bandwidth-bound workload), within 1.5x of the yardstick.
    Floor: never more than 3x the yardstick.
    Returns (speed_met, goal_seconds, rule, floor_met).
    """
    if fastest / 10 < yardstick:
        goal, rule = 1.5 * yardstick, "1.5x yardstick; 10x would beat it"
    else:
        goal, rule = fastest / 10, "10x fastest competitor"
    return median <= goal, goal, rule, median <= 3 * yardstick


def report(title, impls, stats, input_bytes):
    """Print the timing table, the speed-up table and the verdicts; record the summary."""
    yard = next(stats[i.name][1] for i in impls if i.role == "yardstick")
    print(f"{'implementation':<60} {'first call':>10} {'median':>9} {'runs':>4} {'peak extra':>11} "
          f"{'x yardstick':>11}")
    for impl in impls:
        first, median, runs, peak = stats[impl.name]
        mem = "n/a" if peak is None else f"{peak / 2**20:.1f} MiB"
        print(f"{impl.name:<60} {first:>9.3f}s {median:>8.3f}s {runs:>4} {mem:>11} {median / yard:>10.2f}x")
    print(f"(input: {input_bytes / 2**20:,.0f} MiB; peak extra = resident-memory high-water mark "
          f"above the level before the call)")
    ours = [i for i in impls if i.role in ("rankwise", "rankwise-info")]
    others = [i for i in impls if i.role in ("reference", "competitor")]
    if not others:
        return
    print("\nspeed-up of rankwise (competitor median / rankwise median):")
    print(f"{'':<60}" + "".join(f"{i.short:>14}" for i in ours))
    for other in others:
        print(f"{other.name:<60}" + "".join(f"{stats[other.name][1] / stats[i.name][1]:>13.1f}x"
                                            for i in ours))
    print(f"{'rankwise / yardstick':<60}" + "".join(f"{stats[i.name][1] / yard:>13.2f}x" for i in ours))
    fastest = min(others, key=lambda i: stats[i.name][1])
    fast = stats[fastest.name][1]
    print(f"\ntargets (fastest competitor: {fastest.name}, {fast:.3f}s; yardstick {yard:.4f}s):")
    for impl in ours:
        if impl.role != "rankwise":
            continue
        median = stats[impl.name][1]
        met, goal, rule, floor = verdict(median, fast, yard)
        speed, within = "MET" if met else "MISSED", "MET" if floor else "MISSED"
        print(f"  rankwise {impl.short:<8} {median:.4f}s: speed target <= {goal:.4f}s ({rule}): {speed} "
              f"({fast / median:.1f}x fastest); <= 3x yardstick: {within} ({median / yard:.2f}x)")
        SUMMARY.append((title, impl.short, median, fastest.name, fast, fast / median, median / yard, speed,
                        within))


def run_case(title, impls, repeats, input_bytes, scale=None):
    """``scale``: {name: factor} for implementations timed on a sample (their times multiplied up)."""
    stats, failures = measure(impls, repeats)
    for name, factor in (scale or {}).items():
        first, median, runs, peak = stats[name]
        stats[name] = (first * factor, median * factor, runs, peak)
    checked = [i.name for i in impls if i.check is not None and i.role != "reference"]
    if failures:
        FAILURES.extend(failures)
        print("VALUES DISAGREE:\n  " + "\n  ".join(failures))
    print(f"values: {len(checked) - len(failures)} of {len(checked)} implementations agree with the "
          f"reference on every value checked (tolerances in benchmarks/README.md)\n")
    report(title, impls, stats, input_bytes)
    return stats


def _threads(n):
    return f"{n} thread{'s' if n > 1 else ''}"


def _short(n):
    return f"{n}T"


# --------------------------------------------------------------------------------------
# Value checks
# --------------------------------------------------------------------------------------

def agree(got, expected, rtol, what):
    """Per-query arrays (or means) in ``got`` equal those of ``expected`` (same keys)."""
    for name, want in expected.items():
        np.testing.assert_allclose(np.asarray(got[name], dtype=np.float64),
                                   np.asarray(want, dtype=np.float64), rtol=rtol, atol=rtol * 1e-3,
                                   err_msg=f"{what}: {name} disagrees")


def means(per_query):
    return {name: float(np.mean(values)) for name, values in per_query.items()}


class Reference:
    """Holds the reference's per-query values once its first call has run."""

    def __init__(self):
        self.values = None

    def store(self, values):
        self.values = values

    def per_query(self, rtol, what, convert=lambda v: v):
        return lambda value: agree(convert(value), self.values, rtol, what)

    def mean(self, rtol, what, convert=lambda v: v):
        return lambda value: agree(convert(value), means(self.values), rtol, what)


def by_query_id(lookup, names, n_queries):
    """{our name: array in query order 0..Q-1} from a mapping (str qid, their name) -> value."""
    return {ours: np.array([lookup(str(q), theirs) for q in range(n_queries)])
            for ours, theirs in names.items()}


# --------------------------------------------------------------------------------------
# Conversions a user of each competitor writes
# --------------------------------------------------------------------------------------

def csr_dicts(indptr, y_score, y_true):
    """{qid: {docid: score}} and {qid: {docid: label}} (relevant only); ids are str positions."""
    names = list(map(str, range(int(np.diff(indptr).max()))))
    scores, labels = y_score.tolist(), y_true.tolist()
    run, qrels = {}, {}
    for q in range(indptr.shape[0] - 1):
        start, stop = int(indptr[q]), int(indptr[q + 1])
        run[str(q)] = dict(zip(names[:stop - start], scores[start:stop], strict=True))
        qrels[str(q)] = {names[i]: labels[start + i] for i in np.flatnonzero(y_true[start:stop]).tolist()}
    return qrels, run


def grouped_dict(qid, doc, values):
    """{str(qid): {str(doc): value}} from rows grouped by query."""
    bounds = np.flatnonzero(np.diff(qid)) + 1
    starts, stops = [0, *bounds.tolist()], [*bounds.tolist(), qid.shape[0]]
    docs, vals = list(map(str, doc.tolist())), values.tolist()
    return {str(q): dict(zip(docs[a:b], vals[a:b], strict=True))
            for q, a, b in zip(qid[starts].tolist(), starts, stops, strict=True)}


def ranx_typed_lists(qrels_rows, run_rows):
    """ranx's low-level input: numba typed lists of (n, 2) float64 [doc id, value] arrays,
    each sorted by value descending, as ranx.evaluate prepares them."""
    from numba.typed import List
    from ranx.utils import descending_sort_parallel

    return descending_sort_parallel(List(qrels_rows)), descending_sort_parallel(List(run_rows))


def set_threads(threads):
    if installed("numba") and installed("ranx"):
        import numba

        numba.set_num_threads(threads)
    if installed("torch"):
        import torch

        torch.set_num_threads(threads)


def with_threads(func, threads):
    def run():
        set_threads(threads)
        return func()
    return run


# --------------------------------------------------------------------------------------
# W1 / W5: many relevant items in long lists (influence)
# --------------------------------------------------------------------------------------

def make_influence(n_queries, min_candidates, max_candidates, n_relevant, seed):
    """CSR arrays: candidates per query uniform in [min, max], Poisson(n_relevant) relevant.

    Scores are float64 holding distinct multiples of 2**-24 within each query: no ties, and
    exact in float32, so pytrec_eval (which stores scores as float32) orders them as every
    other implementation does.
    """
    rng = np.random.default_rng(seed)
    sizes = rng.integers(min_candidates, max_candidates + 1, n_queries)
    indptr = np.zeros(n_queries + 1, dtype=np.int64)
    np.cumsum(sizes, out=indptr[1:])
    y_score = np.empty(indptr[-1], dtype=np.float64)
    y_true = np.zeros(indptr[-1], dtype=np.int8)
    relevant = np.clip(rng.poisson(n_relevant, n_queries), 1, sizes)
    for q, (n, r) in enumerate(zip(sizes.tolist(), relevant.tolist(), strict=True)):
        start = indptr[q]
        y_score[start:start + n] = rng.choice(2**24, n, replace=False)
        y_true[start + rng.choice(n, r, replace=False)] = 1
    y_score *= 2.0**-24
    return indptr, y_score, y_true


def influence_impls(indptr, y_score, y_true, thread_counts, competitors=True):
    n_queries = indptr.shape[0] - 1
    ref = Reference()
    impls = [
        Impl("yardstick: y_score.max() + y_true.max()", lambda: (y_score.max(), y_true.max()), "yardstick"),
        Impl("NumPy argsort per query (reference)", lambda: dict(zip(("MRR", "MAP"),
                                                                      numpy_rr_ap(indptr, y_score, y_true),
                                                                      strict=True)),
             "reference", ref.store),
    ]
    if competitors:
        impls += _influence_competitors(indptr, y_score, y_true, thread_counts, ref, n_queries)
    check = ref.per_query(1e-12, "rankwise", lambda r: {m: r[m] for m in ("MRR", "MAP")})
    for t in thread_counts:
        impls.append(Impl(f"rankwise evaluate, {_threads(t)}",
                          lambda t=t: rw.evaluate(y_true, y_score, ["MRR", "MAP"], indptr=indptr,
                                                  n_threads=t),
                          "rankwise", check, _short(t)))
    return impls


def _influence_competitors(indptr, y_score, y_true, thread_counts, ref, n_queries):
    impls = []
    if installed("ranx"):
        from ranx.metrics import average_precision, reciprocal_rank

        def ranx_low():
            ids = np.arange(int(np.diff(indptr).max()), dtype=np.float64)
            run_rows, qrels_rows = [], []
            for q in range(n_queries):
                start, stop = indptr[q], indptr[q + 1]
                run_rows.append(np.column_stack((ids[:stop - start], y_score[start:stop])))
                rel = np.flatnonzero(y_true[start:stop])
                qrels_rows.append(np.column_stack((ids[rel], y_true[start + rel].astype(np.float64))))
            qrels, run = ranx_typed_lists(qrels_rows, run_rows)
            return {"MRR": reciprocal_rank(qrels, run), "MAP": average_precision(qrels, run)}

        for t in thread_counts:
            impls.append(Impl(f"ranx low-level typed lists, {_threads(t)}", with_threads(ranx_low, t),
                              check=ref.per_query(1e-9, "ranx low-level")))
    if installed("torchmetrics"):
        for t in thread_counts:
            impls.append(Impl(f"torchmetrics RetrievalMRR + RetrievalMAP, {_threads(t)}",
                              with_threads(lambda: _torchmetrics_csr(indptr, y_score, y_true), t),
                              check=ref.mean(1e-5, "torchmetrics")))
    if installed("pytrec_eval"):
        import pytrec_eval

        def pytrec():
            qrels, run = csr_dicts(indptr, y_score, y_true)
            return pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank", "map"}).evaluate(run)

        impls.append(Impl("pytrec_eval from dicts", pytrec,
                          check=ref.per_query(1e-9, "pytrec_eval", lambda v: by_query_id(
                              lambda q, m: v[q][m], {"MRR": "recip_rank", "MAP": "map"}, n_queries))))
    if installed("ranx"):
        impls.append(Impl("ranx Qrels/Run from dicts",
                          lambda: _ranx_objects(csr_dicts(indptr, y_score, y_true), ["mrr", "map"]),
                          check=ref.per_query(1e-9, "ranx Qrels/Run", lambda v: by_query_id(
                              lambda q, m: v[m][q], {"MRR": "mrr", "MAP": "map"}, n_queries))))
    if installed("ir_measures"):
        import ir_measures

        def irm():
            qrels, run = csr_dicts(indptr, y_score, y_true)
            return _ir_measures_values(ir_measures.iter_calc([ir_measures.RR, ir_measures.AP], qrels, run))

        impls.append(Impl("ir_measures from dicts", irm,
                          check=ref.per_query(1e-9, "ir_measures", lambda v: by_query_id(
                              lambda q, m: v[q, m], {"MRR": "RR", "MAP": "AP"}, n_queries))))
    return impls


def _torchmetrics_csr(indptr, y_score, y_true):
    import torch
    from torchmetrics.retrieval import RetrievalMAP, RetrievalMRR

    preds = torch.from_numpy(y_score)
    target = torch.from_numpy(y_true >= 1)
    indexes = torch.from_numpy(np.repeat(np.arange(indptr.shape[0] - 1), np.diff(indptr)))
    out = {}
    for name, metric in (("MRR", RetrievalMRR()), ("MAP", RetrievalMAP())):
        metric.update(preds, target, indexes=indexes)
        out[name] = float(metric.compute())
    return out


def _ranx_objects(dicts, metrics):
    import ranx

    qrels, run = ranx.Qrels(dicts[0]), ranx.Run(dicts[1])
    values = ranx.evaluate(qrels, run, metrics, return_mean=False)
    ids = run.get_query_ids()
    return {m: dict(zip(ids, values[m].tolist(), strict=True)) for m in metrics}


def _ir_measures_values(results):
    return {(r.query_id, str(r.measure)): r.value for r in results}


def bench_w1(args, thread_counts):
    indptr, y_score, y_true = make_influence(args.queries, args.min_candidates, args.max_candidates,
                                             args.relevant, args.seed)
    title = "W1 influence"
    print(f"\n== {title}: {args.queries:,} queries, {indptr[-1]:,} rows (candidates per query uniform in "
          f"[{args.min_candidates:,}, {args.max_candidates:,}]), {y_true.sum() / args.queries:.1f} relevant "
          f"per query on average, float64 scores without ties; MRR + MAP")
    impls = influence_impls(indptr, y_score, y_true, thread_counts)
    run_case(title, impls, args.repeats, y_score.nbytes + y_true.nbytes + indptr.nbytes)


def bench_w5(args, thread_counts):
    start = time.perf_counter()
    indptr, y_score, y_true = make_influence(args.scale_queries, args.min_candidates, args.max_candidates,
                                             args.relevant, args.seed)
    title = "W5 scale"
    size = y_score.nbytes + y_true.nbytes + indptr.nbytes
    print(f"\n== {title}: W1 with {args.scale_queries:,} queries, {indptr[-1]:,} rows "
          f"({size / 2**20:,.0f} MiB of input; generated in {time.perf_counter() - start:.0f}s); MRR + MAP")
    print("competitors other than the NumPy reference skipped at this scale: the dict-based ones would "
          "build dicts of 100 million entries (tens of GB, minutes), and W1 already times them all")
    impls = influence_impls(indptr, y_score, y_true, thread_counts, competitors=False)
    stats = run_case(title, impls, args.repeats, size)
    for impl in impls:
        if impl.role == "rankwise":
            peak = stats[impl.name][3]
            if peak is not None:
                print(f"  {impl.name}: peak extra memory {peak / 2**20:.1f} MiB = {peak / size:.2%} "
                      f"of the input")


# --------------------------------------------------------------------------------------
# W2: TREC-style qrels and run held in NumPy arrays
# --------------------------------------------------------------------------------------

TREC_MEASURES = ["ndcg_cut.10", "map", "P.10", "recall.100", "recip_rank"]
# Our name -> trec_eval's (rankwise TrecResults, pytrec_eval), ranx's, ir_measures'.
TREC_NAMES = {"nDCG@10": ("ndcg_cut_10", "ndcg@10", "nDCG@10"), "AP": ("map", "map", "AP"),
              "P@10": ("P_10", "precision@10", "P@10"), "R@100": ("recall_100", "recall@100", "R@100"),
              "RR": ("recip_rank", "mrr", "RR")}


def make_trec_arrays(n_queries, n_docs, seed):
    """Rows grouped by query: the run (qid, docid, score) and the qrels (qid, docid, relevance).

    60 judged documents per query, graded 0-3 (3/7 non-relevant), 48 of them retrieved and 12
    not; scores are distinct multiples of 2**-20 within a query (exact in float32, so
    pytrec_eval agrees; no ties, so every library orders documents alike) in random order.
    """
    rng = np.random.default_rng(seed)
    judged_ret, judged_missing = min(48, n_docs), 12
    run_doc = np.empty((n_queries, n_docs), dtype=np.int64)
    run_score = np.empty((n_queries, n_docs), dtype=np.float64)
    qrels_doc = np.empty((n_queries, judged_ret + judged_missing), dtype=np.int64)
    for q in range(n_queries):
        docs = rng.choice(50 * n_docs, n_docs + judged_missing, replace=False)
        run_doc[q] = docs[:n_docs]
        run_score[q] = rng.choice(2**20, n_docs, replace=False)
        qrels_doc[q, :judged_ret] = docs[:judged_ret]
        qrels_doc[q, judged_ret:] = docs[n_docs:]
    qrels_rel = rng.choice(np.array([0, 0, 0, 1, 1, 2, 3], dtype=np.int64), qrels_doc.shape)
    queries = np.arange(n_queries, dtype=np.int64)
    return {"run_qid": np.repeat(queries, n_docs), "run_doc": run_doc.ravel(),
            "run_score": run_score.ravel() * 2.0**-20, "qrels_qid": np.repeat(queries, qrels_doc.shape[1]),
            "qrels_doc": qrels_doc.ravel(), "qrels_rel": qrels_rel.ravel()}


def numpy_trec(a, k_ndcg=10, k_p=10, k_r=100):
    """Vectorised trec_eval measures (relevance level 1, linear gains) from grouped arrays.

    Every query retrieves the same number of documents and scores do not tie within a query
    (the workload guarantees both), so a (Q, D) reshape of the ranked relevance suffices.
    """
    run_qid, qrels_qid, qrels_rel = a["run_qid"], a["qrels_qid"], a["qrels_rel"]
    n_queries = int(run_qid[-1]) + 1
    depth = run_qid.shape[0] // n_queries
    base = int(max(a["run_doc"].max(), a["qrels_doc"].max())) + 1
    # Relevance of each retrieved document: join on (qid, docid) by binary search.
    qkey = qrels_qid * base + a["qrels_doc"]
    order = np.argsort(qkey)
    qkey, rel_sorted = qkey[order], qrels_rel[order]
    rkey = run_qid * base + a["run_doc"]
    at = np.minimum(np.searchsorted(qkey, rkey), qkey.shape[0] - 1)
    rel = np.where(qkey[at] == rkey, rel_sorted[at], 0)
    ranked = rel[np.lexsort((-a["run_score"], run_qid))].reshape(n_queries, depth).astype(np.float64)
    hit = ranked >= 1
    n_rel = np.bincount(qrels_qid, weights=qrels_rel >= 1, minlength=n_queries)
    safe = np.maximum(n_rel, 1)
    ranks = np.arange(1, depth + 1)
    first = np.argmax(hit, axis=1)
    rr = np.where(hit.any(axis=1), 1.0 / (first + 1), 0.0)
    ap = np.where(hit, np.cumsum(hit, axis=1) / ranks, 0.0).sum(axis=1) / safe
    discount = 1.0 / np.log2(np.arange(2, k_ndcg + 2))
    dcg = ranked[:, :k_ndcg] @ discount[:min(k_ndcg, depth)]
    # Ideal: each query's judged relevances, largest first, cut at k.
    by_grade = np.lexsort((-qrels_rel, qrels_qid))
    starts = np.searchsorted(qrels_qid[by_grade], np.arange(n_queries))
    position = np.arange(by_grade.shape[0]) - starts[qrels_qid[by_grade]]
    keep = position < k_ndcg
    ideal = np.bincount(qrels_qid[by_grade][keep], minlength=n_queries,
                        weights=qrels_rel[by_grade][keep] * discount[position[keep]])
    ndcg = np.divide(dcg, ideal, out=np.zeros(n_queries), where=ideal > 0)
    return {"nDCG@10": ndcg, "AP": np.where(n_rel > 0, ap, 0.0), "P@10": hit[:, :k_p].sum(axis=1) / k_p,
            "R@100": hit[:, :k_r].sum(axis=1) / safe, "RR": rr}


def _rankwise_trec_values(res):
    order = np.argsort(res.query_ids.astype(np.int64))
    return {ours: res[names[0]][order] for ours, names in TREC_NAMES.items()}


def bench_w2(args, thread_counts):
    a = make_trec_arrays(args.trec_queries, args.trec_docs, args.seed)
    n_queries = args.trec_queries
    size = sum(v.nbytes for v in a.values())
    title = "W2 trec"
    print(f"\n== {title}: {n_queries:,} queries x {args.trec_docs:,} retrieved documents, "
          f"{a['qrels_qid'].shape[0] // n_queries} judged per query (graded 0-3, 12 not retrieved), "
          f"integer ids in NumPy arrays; {', '.join(TREC_MEASURES)} (trec_eval semantics)")
    ref = Reference()
    columns = [a[k] for k in a]
    impls = [
        Impl("yardstick: .max() of each of the 6 arrays", lambda: [c.max() for c in columns], "yardstick"),
        Impl("NumPy join + lexsort (reference)", lambda: numpy_trec(a), "reference", ref.store),
    ]
    impls += _trec_competitors(a, thread_counts, ref, n_queries)
    check = ref.per_query(1e-12, "rankwise", _rankwise_trec_values)

    def build(t):
        return (rw.Qrels.from_arrays(a["qrels_qid"], a["qrels_doc"], a["qrels_rel"], n_threads=t),
                rw.Run.from_arrays(a["run_qid"], a["run_doc"], a["run_score"], n_threads=t))

    for t in thread_counts:
        impls.append(Impl(f"rankwise Qrels/Run.from_arrays + trec_eval, {_threads(t)}",
                          lambda t=t: rw.trec_eval(*build(t), TREC_MEASURES, n_threads=t), "rankwise", check,
                          _short(t)))
    qrels, run = build(thread_counts[-1])
    for t in thread_counts:
        impls.append(Impl(f"rankwise trec_eval only (objects built), {_threads(t)}",
                          lambda t=t: rw.trec_eval(qrels, run, TREC_MEASURES, n_threads=t), "rankwise-info",
                          check, f"compute {_short(t)}"))
    if installed("pandas"):
        import pandas as pd

        frames = (pd.DataFrame({"query_id": a["qrels_qid"], "doc_id": a["qrels_doc"],
                                "relevance": a["qrels_rel"]}),
                  pd.DataFrame({"query_id": a["run_qid"], "doc_id": a["run_doc"], "score": a["run_score"]}))
        impls.append(Impl(f"rankwise Qrels/Run.from_pandas + trec_eval, {_threads(thread_counts[-1])}",
                          lambda: rw.trec_eval(rw.Qrels.from_pandas(frames[0]), rw.Run.from_pandas(frames[1]),
                                               TREC_MEASURES), "rankwise-info", check, "pandas"))
    with tempfile.TemporaryDirectory() as directory:
        qrels_path, run_path = Path(directory) / "w2.qrels", Path(directory) / "w2.run"
        qrels.write(qrels_path)
        run.write(run_path)
        impls.append(Impl(f"rankwise Qrels.read + Run.read + trec_eval, {_threads(thread_counts[-1])}",
                          lambda: rw.trec_eval(rw.Qrels.read(qrels_path), rw.Run.read(run_path),
                                               TREC_MEASURES),
                          "rankwise-info", check, "files"))
        print(f"(the files row reads a {run_path.stat().st_size / 2**20:.0f} MiB run file written by "
              f"Run.write)")
        run_case(title, impls, args.repeats, size)


def _trec_competitors(a, thread_counts, ref, n_queries):
    impls = []

    def dicts():
        return (grouped_dict(a["qrels_qid"], a["qrels_doc"], a["qrels_rel"]),
                grouped_dict(a["run_qid"], a["run_doc"], a["run_score"]))

    if installed("ranx"):
        import ranx

        def ranx_low():
            runs = np.column_stack((a["run_doc"], a["run_score"]))
            judged = np.column_stack((a["qrels_doc"], a["qrels_rel"])).astype(np.float64)
            run_rows = np.split(runs, np.flatnonzero(np.diff(a["run_qid"])) + 1)
            qrels_rows = np.split(judged, np.flatnonzero(np.diff(a["qrels_qid"])) + 1)
            qrels, run = ranx_typed_lists(qrels_rows, run_rows)
            return ranx.evaluate(qrels, run, [n[1] for n in TREC_NAMES.values()], return_mean=False)

        for t in thread_counts:
            impls.append(Impl(f"ranx low-level typed lists, {_threads(t)}", with_threads(ranx_low, t),
                              check=ref.per_query(1e-9, "ranx low-level", lambda v: {
                                  ours: v[names[1]] for ours, names in TREC_NAMES.items()})))
    if installed("pytrec_eval"):
        import pytrec_eval

        measures = set(TREC_MEASURES)

        def pytrec():
            qrels, run = dicts()
            return pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)

        trec_names = {o: n[0] for o, n in TREC_NAMES.items()}
        impls.append(Impl("pytrec_eval from dicts", pytrec, check=ref.per_query(
            1e-12, "pytrec_eval", lambda v: by_query_id(lambda q, m: v[q][m], trec_names, n_queries))))
    if installed("ranx"):
        impls.append(Impl("ranx Qrels/Run from dicts",
                          lambda: _ranx_objects(dicts(), [n[1] for n in TREC_NAMES.values()]),
                          check=ref.per_query(1e-9, "ranx Qrels/Run", lambda v: by_query_id(
                              lambda q, m: v[m][q], {o: n[1] for o, n in TREC_NAMES.items()}, n_queries))))
    if installed("ir_measures"):
        import ir_measures

        def irm():
            wanted = [ir_measures.parse_measure(n[2]) for n in TREC_NAMES.values()]
            return _ir_measures_values(ir_measures.iter_calc(wanted, *dicts()))

        impls.append(Impl("ir_measures from dicts", irm, check=ref.per_query(1e-12, "ir_measures", lambda v: (
            by_query_id(lambda q, m: v[q, m], {o: n[2] for o, n in TREC_NAMES.items()}, n_queries)))))
    return impls


# --------------------------------------------------------------------------------------
# W3: one positive against many tied candidates (link prediction)
# --------------------------------------------------------------------------------------

def make_link_prediction(n_queries, n_candidates, seed):
    """One positive and n_candidates - 1 negatives per query, float32 rounded to 2 decimals."""
    rng = np.random.default_rng(seed)
    neg = np.round(rng.random((n_queries, n_candidates - 1), dtype=np.float32), 2)
    # A decent model: positives near the top, ~10 negatives per 0.01 bucket tied with them.
    pos = np.round(np.clip(1 - rng.exponential(0.02, n_queries), 0, 1), 2).astype(np.float32)
    return pos, neg


def numpy_tgb(pos, neg, ks=LINK_KS):
    """TGB's / OGB's evaluator, vectorised over queries: the realistic rank."""
    optimistic = (neg > pos[:, None]).sum(axis=1)
    pessimistic = (neg >= pos[:, None]).sum(axis=1)
    rank = 0.5 * (optimistic + pessimistic) + 1
    return {"MRR": float(np.mean(1.0 / rank)), **{f"Hits@{k}": float(np.mean(rank <= k)) for k in ks}}


def numpy_expected(pos, neg, ks=LINK_KS):
    """The expectation over tied orderings (DESIGN.md section 2), vectorised over queries."""
    greater = (neg > pos[:, None]).sum(axis=1)
    ties = (neg == pos[:, None]).sum(axis=1) + 1        # the positive ties with itself
    harmonic = np.concatenate(([0.0], np.cumsum(1.0 / np.arange(1, neg.shape[1] + 2))))
    rr = (harmonic[greater + ties] - harmonic[greater]) / ties
    hits = {f"Hits@{k}": float(np.mean(np.clip((k - greater) / ties, 0, 1))) for k in ks}
    return {"MRR": float(np.mean(rr)), **hits}


def torch_tgb(pos, neg, ks=LINK_KS):
    """TGB's evaluator as written in torch (in float64 here, so that it equals the reference)."""
    import torch

    positive, negative = torch.from_numpy(pos).view(-1, 1), torch.from_numpy(neg)
    optimistic = (negative > positive).sum(dim=1)
    pessimistic = (negative >= positive).sum(dim=1)
    rank = 0.5 * (optimistic + pessimistic).double() + 1
    hits = {f"Hits@{k}": float((rank <= k).double().mean()) for k in ks}
    return {"MRR": float((1.0 / rank).mean()), **hits}


def bench_w3(args, thread_counts):
    pos, neg = make_link_prediction(args.lp_queries, args.lp_candidates, args.seed)
    title = "W3 link prediction"
    print(f"\n== {title}: {args.lp_queries:,} queries x {args.lp_candidates:,} candidates "
          f"(1 positive + {neg.shape[1]} negatives), float32 rounded to 2 decimals; MRR, Hits@1,3,10 "
          f"under ties 'realistic' and 'expected'")
    print("dict-based libraries (pytrec_eval, ranx Qrels/Run, ir_measures) and scikit-learn not run: "
          "100 million (query, candidate) entries; none implements the realistic rank")
    names = ["MRR"] + [f"Hits@{k}" for k in LINK_KS]
    realistic, expected = Reference(), Reference()
    impls = [
        Impl("yardstick: neg.max(axis=1)", lambda: neg.max(axis=1), "yardstick"),
        Impl("NumPy TGB/OGB formula (reference, realistic)", lambda: numpy_tgb(pos, neg), "reference",
             realistic.store),
        Impl("NumPy expectation formula (reference, expected)", lambda: numpy_expected(pos, neg), "reference",
             expected.store),
    ]
    if installed("torch"):
        for t in thread_counts:
            impls.append(Impl(f"torch TGB/OGB formula, {_threads(t)}",
                              with_threads(lambda: torch_tgb(pos, neg), t),
                              check=realistic.per_query(1e-12, "torch TGB")))
    for ties, ref in (("realistic", realistic), ("expected", expected)):
        for t in thread_counts:
            def run(ties=ties, t=t):
                return rw.rank_metrics(rw.rank_positive(pos, neg, n_threads=t), names, ties=ties)
            impls.append(Impl(f"rankwise ties={ties!r}, {_threads(t)}", run, "rankwise",
                              ref.per_query(1e-12 if ties == "realistic" else 1e-10, f"rankwise {ties}"),
                              f"{ties[:4]} {_short(t)}"))
    # A model scores candidates chunk by chunk, each chunk a fresh contiguous (Q, n) array.
    chunks = [np.ascontiguousarray(part) for part in np.array_split(neg, 10, axis=1)]

    def streamed():
        builder = rw.RankBuilder(pos, n_threads=thread_counts[-1])
        for part in chunks:
            builder.update(part)
        return rw.rank_metrics(builder.ranks(), names, ties="realistic")

    impls.append(Impl(f"rankwise RankBuilder, 10 chunks, realistic, {_threads(thread_counts[-1])}", streamed,
                      "rankwise-info", realistic.per_query(1e-12, "RankBuilder"), "builder"))
    run_case(title, impls, args.repeats, pos.nbytes + neg.nbytes)


# --------------------------------------------------------------------------------------
# W4: dense matrices, graded labels, nDCG@10
# --------------------------------------------------------------------------------------

def make_dense(n_queries, n_docs, seed):
    """(Q, N) float64 scores and int8 grades 0-3 (70/15/10/5 %).

    Scores are distinct multiples of 2**-24 within each row: no ties, and exact in float32,
    to which torchmetrics converts them (rounding would tie a few top-10 candidates).
    """
    rng = np.random.default_rng(seed)
    y_score = np.empty((n_queries, n_docs), dtype=np.float64)
    for q in range(n_queries):
        y_score[q] = rng.choice(2**24, n_docs, replace=False)
    y_score *= 2.0**-24
    y_true = rng.choice(np.arange(4, dtype=np.int8), (n_queries, n_docs), p=[0.7, 0.15, 0.1, 0.05])
    return y_true, y_score


def numpy_ndcg(y_true, y_score, k=10, gain="linear"):
    """Vectorised nDCG@k: argpartition for the top k, ideal from a partition of the gains."""
    gains = y_true.astype(np.float64)
    if gain == "exponential":
        gains = np.exp2(gains) - 1
    top = np.argpartition(-y_score, k - 1, axis=1)[:, :k]
    top = np.take_along_axis(top, np.argsort(-np.take_along_axis(y_score, top, axis=1), axis=1), axis=1)
    discount = 1.0 / np.log2(np.arange(2, k + 2))
    dcg = np.take_along_axis(gains, top, axis=1) @ discount
    ideal = np.sort(-np.partition(-gains, k - 1, axis=1)[:, :k], axis=1)[:, ::-1] @ discount
    return {"nDCG@10": np.divide(dcg, ideal, out=np.zeros_like(dcg), where=ideal > 0)}


def bench_w4(args, thread_counts):
    y_true, y_score = make_dense(args.dense_queries, args.dense_docs, args.seed)
    size = y_true.nbytes + y_score.nbytes
    for gain in ("linear", "exponential"):
        title = f"W4 dense {gain}"
        print(f"\n== {title}: {args.dense_queries:,} x {args.dense_docs:,} float64 scores (no ties), int8 "
              f"labels 0-3; nDCG@10 with {gain} gain ({'label' if gain == 'linear' else '2**label - 1'})")
        ref = Reference()
        relevance = (lambda: y_true) if gain == "linear" else (lambda: np.exp2(y_true.astype(np.float64)) - 1)
        impls = [
            Impl("yardstick: y_score.max() + y_true.max()", lambda: (y_score.max(), y_true.max()),
                 "yardstick"),
            Impl("NumPy argpartition (reference)", lambda g=gain: numpy_ndcg(y_true, y_score, 10, g),
                 "reference", ref.store),
        ]
        if installed("sklearn"):
            from sklearn.metrics import ndcg_score

            impls.append(Impl(f"scikit-learn ndcg_score(k=10){' on 2**y - 1' if gain != 'linear' else ''}",
                              lambda r=relevance: {"nDCG@10": ndcg_score(r(), y_score, k=10)},
                              check=ref.mean(1e-10, "scikit-learn")))
        if installed("torchmetrics"):
            for t in thread_counts:
                impls.append(Impl(f"torchmetrics RetrievalNormalizedDCG(top_k=10), {_threads(t)}",
                                  with_threads(lambda r=relevance: _torchmetrics_dense(r(), y_score), t),
                                  check=ref.mean(1e-5, "torchmetrics")))
        check = ref.per_query(1e-12, "rankwise", lambda r: {"nDCG@10": r["nDCG@10"]})
        for t in thread_counts:
            impls.append(Impl(f"rankwise evaluate gain={gain!r}, {_threads(t)}",
                              lambda t=t, g=gain: rw.evaluate(y_true, y_score, ["nDCG@10"], gain=g,
                                                              n_threads=t),
                              "rankwise", check, _short(t)))
        run_case(title, impls, args.repeats, size)


def _torchmetrics_dense(relevance, y_score):
    import torch
    from torchmetrics.retrieval import RetrievalNormalizedDCG

    n_queries, n_docs = y_score.shape
    metric = RetrievalNormalizedDCG(top_k=10)
    target = torch.from_numpy(np.ascontiguousarray(relevance, dtype=np.int64).ravel())
    indexes = torch.from_numpy(np.repeat(np.arange(n_queries), n_docs))
    metric.update(torch.from_numpy(y_score.ravel()), target, indexes=indexes)
    return {"nDCG@10": float(metric.compute())}


# --------------------------------------------------------------------------------------
# W6: paired significance tests (issue 6: the resampling kernel)
# --------------------------------------------------------------------------------------

def make_paired(n_queries, seed):
    """Per-query values of two systems in [0, 1]; the mean difference is about 1.6 standard errors."""
    rng = np.random.default_rng(seed)
    a = rng.random(n_queries)
    b = np.clip(a - rng.normal(0.0024, 0.15, n_queries), 0, 1)
    return a, b


def _paired_mean(x, y, axis):
    return np.mean(x - y, axis=axis)


def numpy_sign_flip(d, n_resamples, seed, batch=1000):
    """Random sign flips in NumPy, batch by batch: p = (b + 1) / (N + 1), two-sided on |mean|."""
    rng = np.random.default_rng(seed)
    observed, count = abs(d.mean()), 0
    for start in range(0, n_resamples, batch):
        signs = rng.integers(0, 2, (min(batch, n_resamples - start), d.shape[0]), dtype=np.int8) * 2 - 1
        count += int(np.count_nonzero(np.abs(signs @ d) / d.shape[0] >= observed))
    return (count + 1) / (n_resamples + 1)


def bench_w6(args, thread_counts):
    """rw.compare's resampling tests against scipy.stats at n_resamples x queries."""
    import scipy
    import scipy.stats as st

    n, resamples = args.stats_queries, args.stats_resamples
    a, b = make_paired(n, args.seed)
    d = a - b
    title = "W6 paired tests"
    print(f"\n== {title}: {n:,} queries x {resamples:,} resamples; paired randomization (sign-flip) test and "
          f"paired bootstrap (BCa) of the mean difference; scipy {scipy.__version__}")
    print("scipy runs with batch=1000 (batch=None builds the whole resample matrix: about 7 GB and 21 s "
          "for the permutation test at 10,000 x 10,000)")
    normal_p = float(2 * st.norm.sf(abs(d.mean()) / (np.sqrt(np.sum(d**2)) / n)))
    p_values, intervals = {}, {}

    def keep(store, name, value):
        store[name] = value

    def scipy_permutation():
        return st.permutation_test((a, b), _paired_mean, permutation_type="samples", n_resamples=resamples,
                                   vectorized=True, batch=1000, rng=1).pvalue

    def scipy_bootstrap():
        return tuple(st.bootstrap((a, b), _paired_mean, paired=True, n_resamples=resamples, vectorized=True,
                                  batch=1000, rng=1).confidence_interval)

    impls = [
        Impl("NumPy sign flips, int8 matrix @ d in batches of 1000", lambda: numpy_sign_flip(d, resamples, 1),
             "reference", lambda p: keep(p_values, "numpy", p)),
        Impl("scipy.stats.permutation_test(samples, vectorized)", scipy_permutation, "competitor",
             lambda p: keep(p_values, "scipy", p)),
        Impl("scipy.stats.bootstrap(paired, BCa, vectorized)", scipy_bootstrap, "competitor",
             lambda ci: keep(intervals, "scipy", ci)),
    ]
    for test in ("randomization", "bootstrap"):
        for t in thread_counts:
            def run(test=test, t=t):
                return rw.compare(a, b, test=test, n_resamples=resamples, seed=1, n_threads=t)

            def check(res, test=test, t=t):
                if test == "randomization":
                    keep(p_values, f"rankwise {_short(t)}", res.pvalue)
                else:
                    keep(intervals, f"rankwise {_short(t)}", tuple(res.confidence_interval))

            impls.append(Impl(f"rankwise compare(test={test!r}), {_threads(t)}", run, "rankwise-info", check,
                              f"{test[:5]} {_short(t)}"))
    stats, _ = measure(impls, args.repeats)
    print(f"{'implementation':<60} {'first call':>10} {'median':>9} {'runs':>4} {'peak extra':>11}")
    for impl in impls:
        first, median, runs, peak = stats[impl.name]
        mem = "n/a" if peak is None else f"{peak / 2**20:.1f} MiB"
        print(f"{impl.name:<60} {first:>9.3f}s {median:>8.3f}s {runs:>4} {mem:>11}")
    ours = [i for i in impls if i.role == "rankwise-info"]
    print("\nspeed-up of rankwise (other median / rankwise median):")
    print(f"{'':<60}" + "".join(f"{i.short:>12}" for i in ours))
    for other in (i for i in impls if i.role != "rankwise-info"):
        print(f"{other.name:<60}"
              + "".join(f"{stats[other.name][1] / stats[i.name][1]:>11.0f}x" for i in ours))

    # Monte Carlo agreement: independent estimates of one p-value differ by about sqrt(2 p (1 - p) / N).
    reference = p_values["scipy"]
    bound = 5 * np.sqrt(2 * reference * (1 - reference) / resamples) + 2 / resamples
    print(f"\np-values (two-sided; normal approximation {normal_p:.4f}): "
          + ", ".join(f"{name} {p:.4f}" for name, p in p_values.items()))
    for name, p in p_values.items():
        if abs(p - reference) > bound:
            FAILURES.append(f"W6 {name}: p = {p:.4f}, scipy {reference:.4f} (bound {bound:.4f})")
    se = d.std(ddof=1) / np.sqrt(n)
    print("BCa 95% intervals: "
          + ", ".join(f"{name} [{lo:.5f}, {hi:.5f}]" for name, (lo, hi) in intervals.items())
          + f" (standard error of the mean {se:.5f})")
    for name, ci in intervals.items():
        if max(abs(x - y) for x, y in zip(ci, intervals["scipy"], strict=True)) > 0.2 * se:
            FAILURES.append(f"W6 {name}: interval {ci} differs from scipy's {intervals['scipy']} by over "
                            "0.2 SE")
    agreed = not any(f.startswith("W6") for f in FAILURES)
    print(f"agreement: every p-value within {bound:.4f} of scipy's (5 Monte Carlo standard errors) and every "
          f"interval end within 0.2 standard errors of scipy's: {'yes' if agreed else 'NO'}")
    full = n >= 10_000 and resamples >= 10_000
    for impl in ours:
        median = stats[impl.name][1]
        verdict = ("MET" if median < 1 else "MISSED") if full else "judged at 10,000 x 10,000 only"
        print(f"  {impl.name}: {median * 1000:.1f} ms; issue 6 target (well under 1 s at 10,000 queries x "
              f"10,000 resamples): {verdict}")


# --------------------------------------------------------------------------------------
# W7: peak extra memory of building from arrays (issue 21)
# --------------------------------------------------------------------------------------

# layout: (queries, None for --memory-queries; rows shuffled across queries).
MEMORY_LAYOUTS = {"one query": (1, False), "grouped": (None, False), "shuffled": (None, True)}
# One retrieved document in JUDGED_EVERY is judged (graded 0-3).
JUDGED_EVERY = 20


def make_memory_arrays(n_queries, n_rows, shuffled, seed):
    """A run (qid, docid int64, float64 score) of n_rows rows over n_queries equal queries, and
    qrels judging every JUDGED_EVERY-th row; rows shuffled across queries if asked."""
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(n_queries, dtype=np.int64) * 7 + 3, n_rows // n_queries)
    doc = rng.permutation(qid.shape[0]).astype(np.int64) * 7919 - 10**9
    score = rng.random(qid.shape[0])
    if shuffled:
        p = rng.permutation(qid.shape[0])
        qid, doc, score = qid[p], doc[p], score[p]
        del p
    judged = slice(0, None, JUDGED_EVERY)
    qrels = (qid[judged].copy(), doc[judged].copy(), rng.integers(0, 4, qid[judged].shape[0]))
    return (qid, doc, score), qrels


def _dicts_from_arrays(qid, doc, values):
    """{str(qid): {str(doc): value}}, as a user of a dict-based library builds it from arrays."""
    order = np.argsort(qid, kind="stable")
    return grouped_dict(qid[order], doc[order], values[order])


def _memory_impls():
    """name -> (what it builds, which arrays it starts from, function of (run, qrels))."""
    impls = {
        "rankwise Run.from_arrays": ("run", lambda run, qrels: rw.Run.from_arrays(*run)),
        "rankwise Qrels/Run.from_arrays + trec_eval": ("both", lambda run, qrels: rw.trec_eval(
            rw.Qrels.from_arrays(*qrels), rw.Run.from_arrays(*run), TREC_MEASURES)),
    }
    if installed("pytrec_eval"):
        def pytrec(run, qrels):
            import pytrec_eval

            return pytrec_eval.RelevanceEvaluator(_dicts_from_arrays(*qrels), set(TREC_MEASURES)).evaluate(
                _dicts_from_arrays(*run))

        impls["pytrec_eval from dicts"] = ("both", pytrec)
    if installed("ranx"):
        impls["ranx Qrels/Run from dicts"] = ("both", lambda run, qrels: _ranx_objects(
            (_dicts_from_arrays(*qrels), _dicts_from_arrays(*run)), [n[1] for n in TREC_NAMES.values()]))
    return impls


def memory_child(spec):
    """In a fresh process: make the arrays, then one call's peak extra memory (printed as JSON)."""
    import json
    import resource

    layout, name, n_queries, n_rows, seed = spec
    what, func = _memory_impls()[name]
    func(*make_memory_arrays(2, 400, True, seed))      # imports, numba's compilation: not measured
    run, qrels = make_memory_arrays(n_queries, n_rows, MEMORY_LAYOUTS[layout][1], seed)
    size = sum(a.nbytes for a in run) + (sum(a.nbytes for a in qrels) if what == "both" else 0)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with PeakMemory() as memory:
        start = time.perf_counter()
        value = func(run, qrels)
        seconds = time.perf_counter() - start
    # ru_maxrss (KiB on Linux): only a lower bound where VmHWM cannot be reset.
    unit = 1 if sys.platform == "darwin" else 1024
    grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) * unit
    del value
    print(json.dumps({"peak": memory.peak, "maxrss_growth": grown, "size": size, "seconds": seconds}))


def bench_w7(args, thread_counts):
    import json
    import subprocess

    n_rows, n_queries = args.memory_rows, args.memory_queries
    title = "W7 memory"
    print(f"\n== {title}: peak extra memory of building Qrels/Run from arrays and of trec_eval on them "
          f"(issue 21: at most the input's size), each call in a fresh process; run of {n_rows:,} rows "
          f"(int64 query and document ids, float64 scores), qrels judging one row in {JUDGED_EVERY} "
          f"(int64 relevance); {', '.join(TREC_MEASURES)}; rankwise on {_threads(thread_counts[-1])}")
    if not PeakMemory.available:
        print("VmHWM cannot be reset here (not Linux): the figures are ru_maxrss growth, a lower bound")
    print("dict-based libraries (pytrec_eval, ranx) start from the same arrays and build "
          "{str(qid): {str(docid): value}} (sorted by query first), as their users must; "
          "pytrec_eval runs on the first two layouts, ranx on the second (over a minute for one query of "
          "a million rows); shuffling changes nothing for them")
    print(f"{'layout':<40} {'implementation':<46} {'input':>10} {'peak extra':>11} {'ratio':>6} {'time':>8}")
    for layout, (fixed_queries, shuffled) in MEMORY_LAYOUTS.items():
        queries = fixed_queries or n_queries
        label = (f"{layout}: {queries:,} x {n_rows // queries:,}" if queries > 1
                 else f"{layout}: 1 x {n_rows:,}")
        for name in _memory_impls():
            # ranx takes over a minute on one query of a million rows.
            if (shuffled and not name.startswith("rankwise")) or (queries == 1 and name.startswith("ranx")):
                continue
            spec = [layout, name, queries, n_rows, args.seed]
            done = subprocess.run([sys.executable, __file__, "--memory-child", json.dumps(spec)],
                                  capture_output=True, text=True, check=False)
            if done.returncode != 0:
                print(f"{label:<40} {name:<46} failed: {done.stderr.strip().splitlines()[-1:]}")
                FAILURES.append(f"W7 {layout} {name}: the process failed")
                continue
            got = json.loads(done.stdout.strip().splitlines()[-1])
            peak = got["peak"] if got["peak"] is not None else got["maxrss_growth"]
            ratio = peak / got["size"]
            print(f"{label:<40} {name:<46} {got['size'] / 2**20:>6.0f} MiB {peak / 2**20:>7.1f} MiB "
                  f"{ratio:>5.2f}x {got['seconds']:>7.2f}s")
            if name.startswith("rankwise"):
                MEMORY_SUMMARY.append((label, name, ratio, "MET" if ratio <= 1 else "MISSED"))
    print("(input: the arrays the call starts from, run only or run + qrels; peak extra: resident-memory "
          "high-water mark above the level before the call, the result included)")


def bench_files(args, thread_counts):
    summary, failures = files.bench_files(args)
    FILES_SUMMARY.extend(summary)
    FAILURES.extend(failures)


def bench_recsys(args, thread_counts):
    users, items, depth = args.recsys_users, args.recsys_items, args.recsys_depth
    title = "recsys evaluate_topk"
    print(f"\n== {title}: {users:,} users x {depth} recommended int32 ids against a CSR of about "
          f"{args.recsys_held_out} held-out items per user ({items:,} items); {', '.join(recsys.METRICS)} "
          f"(each peer first checked against rankwise under its convention=, on what it computes)")
    recommended, held = recsys.make_lists(users, items, depth, args.recsys_held_out, args.seed)
    impls, missing = recsys.evaluate_impls(Impl, args, recommended, held, thread_counts)
    if missing:
        print(f"not installed, not timed: {', '.join(missing)}")
    factor = users / min(args.recsys_sample_users, users)
    sampled = {i.name: factor for i in impls if "extrapolated" in i.name}
    input_bytes = recommended.nbytes + held.indices.nbytes + held.indptr.nbytes
    run_case(title, impls, args.repeats, input_bytes, sampled)
    if sampled:
        print("(extrapolated: the sample's times multiplied by users / sample; its memory is the sample's)")
    if recsys.UNCHECKED:
        print("VALUES NOT CHECKED (no such convention in this rankwise): " + "; ".join(recsys.UNCHECKED))
    del recommended, held, impls
    title = "recsys top_k"
    print(f"\n== {title}: {args.topk_users:,} x {args.topk_items:,} float32 scores, "
          f"{recsys.EXCLUDED_SHARE:.0%} of each row excluded through a CSR, k={args.topk_k}")
    scores, exclude = recsys.make_scores(args.topk_users, args.topk_items, args.seed)
    impls, missing = recsys.top_k_impls(Impl, args, scores, exclude, thread_counts, set_threads)
    if missing:
        print(f"not timed: {', '.join(missing)}")
    run_case(title, impls, args.repeats, scores.nbytes + exclude.indices.nbytes + exclude.indptr.nbytes)


def bench_fusion(args, thread_counts):
    title = "fusion"
    print(f"\n== {title}: 3 runs x {args.fusion_queries:,} queries x {args.fusion_docs} documents (integer "
          f"ids, half of each query's documents shared); values checked against ranx's")
    runs = fusion.make_runs(args.fusion_queries, args.fusion_docs, args.seed)
    cases, missing = fusion.fusion_cases(Impl, args, runs, thread_counts)
    if missing:
        print(f"not installed, not timed: {', '.join(missing)}")
    for label, impls in cases:
        print(f"\n-- {label}")
        run_case(f"fusion {label}", impls, args.repeats, sum(a.nbytes for run in runs for a in run))


def bench_agreement(args, thread_counts):
    n_queries, n_docs = args.agreement_queries, args.agreement_docs
    print(f"\n== agreement: two score matrices of {n_queries:,} queries x {n_docs:,} items (ties), per query")
    a, b = agreement.make_scores(n_queries, n_docs, args.seed)
    cases, missing = agreement.agreement_cases(Impl, args, a, b, thread_counts)
    if missing:
        print(f"not installed, not timed: {', '.join(missing)}")
    for label, impls, sampled in cases:
        print(f"\n-- {label}")
        run_case(f"agreement {label}", impls, args.repeats, a.nbytes + b.nbytes, sampled)


def bench_engines(args, thread_counts):
    summary, failures = engines.bench_engines(args)
    ENGINES_SUMMARY.extend(summary)
    FAILURES.extend(failures)


# --------------------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------------------

def _version(dist):
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def describe_machine(cpus):
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    print(f"machine: {cpu}, {cpus} CPUs available, {platform.system()} {platform.release()}, "
          f"Python {platform.python_version()}")
    libraries = ["rankwise", "numpy", "pandas", "scikit-learn", "pytrec-eval-terrier", "ranx", "numba",
                 "ir-measures", "torch", "torchmetrics"]
    print("versions: " + ", ".join(f"{name} {_version(name)}" for name in libraries))
    package = Path(rw.__file__).parent
    kernels = [*package.glob("*/*.so"), *package.glob("*/*.pyd")]
    if kernels:
        built = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(max(k.stat().st_mtime for k in kernels)))
        print(f"rankwise from {package}, kernels built {built}")
    print(f"numba cache: {os.environ['NUMBA_CACHE_DIR']} (fresh unless NUMBA_CACHE_DIR was set: ranx's "
          f"first call includes its JIT compilation)")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workload", nargs="+", default=["all"],
                        choices=("all", *WORKLOADS, *OPT_IN, *ALIASES),
                        help=f"one or more workloads (default: all, which leaves out {', '.join(OPT_IN)})")
    parser.add_argument("--quick", action="store_true",
                        help="a smoke run: every workload about 10x smaller, 3 repeats")
    parser.add_argument("--queries", type=int, default=200, help="W1 queries")
    parser.add_argument("--min-candidates", type=int, default=1_000)
    parser.add_argument("--max-candidates", type=int, default=100_000)
    parser.add_argument("--candidates", type=int, help="W1/W5: a fixed number of candidates per query")
    parser.add_argument("--relevant", type=float, default=17, help="W1/W5: Poisson mean of relevant items")
    parser.add_argument("--trec-queries", type=int, default=5_000)
    parser.add_argument("--trec-docs", type=int, default=1_000)
    parser.add_argument("--lp-queries", type=int, default=100_000)
    parser.add_argument("--lp-candidates", type=int, default=1_000)
    parser.add_argument("--dense-queries", type=int, default=10_000)
    parser.add_argument("--dense-docs", type=int, default=1_000)
    parser.add_argument("--scale-queries", type=int, default=2_000)
    parser.add_argument("--stats-queries", type=int, default=10_000, help="W6 paired queries")
    parser.add_argument("--stats-resamples", type=int, default=10_000, help="W6 resamples")
    parser.add_argument("--memory-rows", type=int, default=10_000_000, help="W7 run rows")
    parser.add_argument("--memory-queries", type=int, default=10_000, help="W7 queries (many-query layouts)")
    parser.add_argument("--memory-child", help=argparse.SUPPRESS)
    files.add_arguments(parser)
    engines.add_arguments(parser)
    recsys.add_arguments(parser)
    fusion.add_arguments(parser)
    agreement.add_arguments(parser)
    parser.add_argument("--repeats", type=int, default=7, help="timed rounds (slow competitors: at most 3)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.memory_child:
        import json

        memory_child(json.loads(args.memory_child))
        return
    if args.quick:
        args.queries, args.max_candidates = 50, 20_000
        args.trec_queries, args.lp_queries, args.dense_queries, args.scale_queries = 500, 10_000, 1_000, 200
        args.stats_queries = 1_000
        args.memory_rows, args.memory_queries = 1_000_000, 1_000
        args.engine_rows = 1_000_000
        args.recsys_users, args.topk_users = 100_000, 2_000
        args.fusion_queries, args.agreement_queries = 500, 1_000
        args.repeats = min(args.repeats, 3)
    if args.candidates is not None:
        args.min_candidates = args.max_candidates = args.candidates
    chosen = {ALIASES.get(w, w) for w in args.workload}
    if "all" in chosen:
        chosen = (chosen - {"all"}) | set(WORKLOADS)

    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    thread_counts = sorted({1, cpus})
    started = time.perf_counter()
    describe_machine(cpus)
    missing = [name for name in ("pytrec_eval", "ranx", "ir_measures", "sklearn", "torch", "torchmetrics")
               if not installed(name)]
    if missing:
        print(f"not installed, not timed: {', '.join(missing)} (pip install '.[bench]')")
    for workload, bench in (("w1", bench_w1), ("w2", bench_w2), ("w3", bench_w3), ("w4", bench_w4),
                            ("w5", bench_w5), ("w6", bench_w6), ("w7", bench_w7), ("files", bench_files),
                            ("engines", bench_engines), ("recsys", bench_recsys), ("fusion", bench_fusion),
                            ("agreement", bench_agreement)):
        if workload in chosen:
            bench(args, thread_counts)
            set_threads(cpus)

    print(f"\n== summary (total {time.perf_counter() - started:.0f}s)")
    print(f"{'workload':<26} {'rankwise':<8} {'median':>9}  {'fastest competitor':<46} {'median':>8} "
          f"{'speed-up':>8} {'speed':>7} {'/ yard':>7} {'<= 3x':>7}")
    for title, short, median, name, fast, speedup, yard, speed, within in SUMMARY:
        print(f"{title:<26} {short:<8} {median:>8.4f}s  {name:<46} {fast:>7.3f}s {speedup:>7.1f}x {speed:>7} "
              f"{yard:>6.2f}x {within:>7}")
    print("speed: >= 10x the fastest competitor, or <= 1.5x the yardstick where 10x would beat the "
          "yardstick; <= 3x: never more than 3x the yardstick")
    for label, name, ratio, met in MEMORY_SUMMARY:
        print(f"W7 {label:<34} {name:<46} peak extra {ratio:.2f}x the input: {met}")
    for line in FILES_SUMMARY + ENGINES_SUMMARY:
        print(line)
    if FAILURES:
        print(f"\n{len(FAILURES)} implementations DISAGREE with the reference (see above)")
        sys.exit(1)
    print("\nvalues: every implementation agreed with the NumPy reference on every workload")


if __name__ == "__main__":
    main()
