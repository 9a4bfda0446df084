"""rankwise against plain NumPy implementations of the same metrics.

Usage: python benchmarks/bench.py [--workload all|influence|link-prediction]
           [--queries 200] [--candidates 50000] [--relevant 17]
           [--lp-queries 100000] [--lp-candidates 1000] [--repeats 5] [--seed 0]

Each workload is generated deterministically; the command checks that rankwise and the
NumPy reference agree, and prints the median wall time of several repeats (and the
first call) at 1 thread and at all threads.

* influence: many relevant items per long list, MRR + MAP. Baseline ``numpy_rr_ap``
  from tests/reference.py (one argsort per query; continuous scores, so no ties).
* link-prediction: one positive against many candidates with heavy ties, MRR and
  Hits@1,3,10. Baseline: the TGB/OGB evaluator's formula vectorised over queries;
  yardstick: one streaming pass over the same array (``neg.max(axis=1)``), the
  memory-bandwidth floor. Peak extra memory is measured with tracemalloc.
"""
import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np

import rankwise as rw

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from reference import numpy_rr_ap  # noqa: E402

LINK_KS = (1, 3, 10)


def make_workload(n_queries, n_candidates, n_relevant, seed):
    rng = np.random.default_rng(seed)
    indptr = np.arange(n_queries + 1, dtype=np.int64) * n_candidates
    y_score = rng.random(indptr[-1])
    y_true = np.zeros(indptr[-1], dtype=np.int8)
    for q, r in enumerate(rng.poisson(n_relevant, n_queries)):
        y_true[indptr[q] + rng.choice(n_candidates, min(r, n_candidates), replace=False)] = 1
    return indptr, y_score, y_true


def timed(func, repeats):
    start = time.perf_counter()
    first_value = func()
    first = time.perf_counter() - start
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return first_value, first, statistics.median(times)


def bench_influence(args, cpus):
    """Many relevant items per long list: MRR + MAP (evaluate)."""
    indptr, y_score, y_true = make_workload(args.queries, args.candidates, args.relevant, args.seed)
    print(f"\n== influence: {args.queries} queries x {args.candidates:,} candidates, "
          f"{y_true.sum() / args.queries:.1f} relevant per query on average, float64 scores; MRR + MAP")
    (rr, ap), numpy_first, numpy_time = timed(lambda: numpy_rr_ap(indptr, y_score, y_true),
                                              max(1, args.repeats // 2))
    rows = [("NumPy argsort per query (reference)", numpy_first, numpy_time)]
    for ties in ("expected", "stable"):
        for threads in (1, cpus):
            def run(ties=ties, threads=threads):
                return rw.evaluate(y_true, y_score, ["MRR", "MAP"], indptr=indptr, ties=ties,
                                   n_threads=threads)
            res, first, median = timed(run, args.repeats)
            np.testing.assert_allclose(res["MRR"], rr, rtol=1e-12)
            np.testing.assert_allclose(res["MAP"], ap, rtol=1e-12)
            rows.append((f"rankwise ties={ties!r}, {_threads(threads)}", first, median))
    print("values: rankwise and NumPy agree on every query (rtol 1e-12)\n")
    _table(rows, numpy_time)


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


def _assert_same(got, expected):
    np.testing.assert_allclose(list(got.values()), list(expected.values()), rtol=1e-12)
    assert list(got) == list(expected)


def peak_extra_memory(func):
    """Peak bytes allocated while func runs (NumPy reports its buffers to tracemalloc)."""
    tracemalloc.start()
    func()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def interleaved(funcs, repeats):
    """First-call time and median of ``repeats`` rounds per function, rounds interleaved.

    Each round runs every function once, so drift in the machine's speed (a shared VM)
    falls on all of them alike instead of on whichever ran during a slow spell.
    """
    first, times = {}, {name: [] for name in funcs}
    for name, func in funcs.items():
        start = time.perf_counter()
        func()
        first[name] = time.perf_counter() - start
    for _ in range(repeats):
        for name, func in funcs.items():
            start = time.perf_counter()
            func()
            times[name].append(time.perf_counter() - start)
    return {name: (first[name], statistics.median(times[name])) for name in funcs}


def bench_link_prediction(args, cpus):
    """One positive against many tied candidates: rank_positive + rank_metrics."""
    pos, neg = make_link_prediction(args.lp_queries, args.lp_candidates, args.seed)
    print(f"\n== link prediction: {args.lp_queries:,} queries x {args.lp_candidates:,} candidates "
          f"(1 positive + {neg.shape[1]} negatives), float32 rounded to 2 decimals; MRR, Hits@1,3,10")
    names = ["MRR"] + [f"Hits@{k}" for k in LINK_KS]
    expected = numpy_tgb(pos, neg)
    reference = "NumPy TGB/OGB formula (reference)"
    yardstick = "yardstick: one streaming pass, neg.max(axis=1)"
    funcs = {reference: lambda: numpy_tgb(pos, neg), yardstick: lambda: neg.max(axis=1)}
    for ties in ("realistic", "expected"):
        for threads in (1, cpus):
            def run(ties=ties, threads=threads):
                ranks = rw.rank_positive(pos, neg, n_threads=threads)
                return rw.rank_metrics(ranks, names, ties=ties)
            if ties == "realistic":
                _assert_same(run(), expected)
            funcs[f"rankwise ties={ties!r}, {_threads(threads)}"] = run
    # A model scores candidates chunk by chunk, each chunk a fresh contiguous (Q, n) array.
    chunks = [np.ascontiguousarray(part) for part in np.array_split(neg, 10, axis=1)]

    def streamed():
        builder = rw.RankBuilder(pos, n_threads=cpus)
        for part in chunks:
            builder.update(part)
        return rw.rank_metrics(builder.ranks(), names, ties="realistic")

    _assert_same(streamed(), expected)
    funcs[f"rankwise RankBuilder, 10 chunks, {_threads(cpus)}"] = streamed
    timings = interleaved(funcs, args.repeats)
    print("values: rankwise ties='realistic' equals the TGB/OGB formula (rtol 1e-12)\n")
    rows = [(name, *timings[name], peak_extra_memory(func)) for name, func in funcs.items()]
    _table(rows, timings[reference][1], timings[yardstick][1])


TREC_MEASURES = ["map", "ndcg_cut.10", "P.10", "recall.100", "recip_rank"]
PYTREC_MEASURES = {"map", "ndcg_cut.10", "P.10", "recall.100", "recip_rank"}


def make_trec_files(directory, n_queries, n_docs, seed):
    """A qrels (~60 judged per query, graded 0-3, a fifth never retrieved) and a run file.

    Scores are multiples of 1/1024, exact in float32, so pytrec_eval (which stores
    scores as float32) orders documents as trec_eval does; about 10 share each value.
    """
    rng = np.random.default_rng(seed)
    qrels_lines, run_lines = [], []
    for q in range(n_queries):
        docs = rng.choice(50 * n_docs, n_docs + 12, replace=False)
        judged = np.concatenate([docs[:48], docs[n_docs:n_docs + 12]])
        labels = rng.choice([0, 0, 0, 1, 1, 2, 3], judged.shape[0])
        qrels_lines.append("\n".join(f"q{q} 0 d{d} {y}" for d, y in zip(judged, labels, strict=True)))
        scores = (rng.integers(0, 100, n_docs) / 1024).tolist()
        run_lines.append("\n".join(f"q{q} Q0 d{d} {r} {s!r} bench"
                                    for r, (d, s) in enumerate(zip(docs[:n_docs], scores, strict=True), 1)))
    qrels_path, run_path = Path(directory) / "bench.qrels", Path(directory) / "bench.run"
    qrels_path.write_text("\n".join(qrels_lines) + "\n")
    run_path.write_text("\n".join(run_lines) + "\n")
    return qrels_path, run_path


def bench_trec(args, cpus):
    """TREC files: read + trec_eval, rankwise against pytrec_eval (and ranx, ir_measures if installed)."""
    with tempfile.TemporaryDirectory() as directory:
        qrels_path, run_path = make_trec_files(directory, args.trec_queries, args.trec_docs, args.seed)
        print(f"\n== trec: {args.trec_queries:,} queries x {args.trec_docs:,} documents "
              f"({run_path.stat().st_size / 2**20:.0f} MiB run file), ~60 judged per query; "
              f"{', '.join(TREC_MEASURES)}")
        rows = []
        qrels, run = rw.Qrels.read(qrels_path), rw.Run.read(run_path)
        qrels_dict, run_dict = qrels.to_dict(), run.to_dict()
        for threads in (1, cpus):
            res, first, median = timed(lambda t=threads: rw.trec_eval(qrels, run, TREC_MEASURES, n_threads=t),
                                       args.repeats)
            rows.append((f"rankwise trec_eval (compute), {_threads(threads)}", first, median))
        _, first, median = timed(lambda: rw.trec_eval(rw.Qrels.read(qrels_path), rw.Run.read(run_path),
                                                      TREC_MEASURES), max(1, args.repeats // 2))
        rows.append((f"rankwise read files + trec_eval, {_threads(cpus)}", first, median))
        def from_dicts():
            return rw.trec_eval(rw.Qrels.from_dict(qrels_dict), rw.Run.from_dict(run_dict), TREC_MEASURES)

        _, first, median = timed(from_dicts, max(1, args.repeats // 2))
        rows.append((f"rankwise from dicts + trec_eval, {_threads(cpus)}", first, median))
        _, first, median = timed(lambda: rw.Run.read(run_path), max(1, args.repeats // 2))
        rows.append(("rankwise Run.read alone", first, median))
        baseline = _bench_pytrec(qrels_path, run_path, qrels_dict, run_dict, res, rows, args)
    _table(rows, baseline if baseline else rows[0][2])


def _bench_pytrec(qrels_path, run_path, qrels_dict, run_dict, res, rows, args):
    try:
        import pytrec_eval
    except ImportError:
        print("pytrec_eval not installed (pip install pytrec-eval-terrier): no comparison")
        return None
    names = ["map", "ndcg_cut_10", "P_10", "recall_100", "recip_rank"]

    judgements = {q: {d: int(v) for d, v in docs.items()} for q, docs in qrels_dict.items()}

    def compute():
        return pytrec_eval.RelevanceEvaluator(judgements, PYTREC_MEASURES).evaluate(run_dict)

    def from_files():
        with open(qrels_path) as f:
            judged = pytrec_eval.parse_qrel(f)
        with open(run_path) as f:
            ranked = pytrec_eval.parse_run(f)
        return pytrec_eval.RelevanceEvaluator(judged, PYTREC_MEASURES).evaluate(ranked)

    values, first, median = timed(compute, max(1, args.repeats // 2))
    for column in names:
        theirs = np.array([values[q][column] for q in res.query_ids])
        np.testing.assert_allclose(res[column], theirs, rtol=1e-12, atol=1e-15)
    print("values: rankwise and pytrec_eval agree on every query and measure (rtol 1e-12)\n")
    rows.insert(0, ("pytrec_eval evaluate (compute, reference)", first, median))
    _, first, median = timed(from_files, max(1, args.repeats // 2))
    rows.insert(1, ("pytrec_eval parse files + evaluate", first, median))
    return rows[0][2]


def _threads(n):
    return f"{n} thread{'s' if n > 1 else ''}"


def _table(rows, baseline, yardstick=None):
    head = f"{'implementation':<52} {'first call':>11} {'median':>9} {'speed-up':>9}"
    if yardstick is not None:
        head += f" {'/ yardstick':>12} {'peak extra':>11}"
    print(head)
    for name, first, median, *memory in rows:
        line = f"{name:<52} {first:>10.3f}s {median:>8.3f}s {baseline / median:>8.1f}x"
        if yardstick is not None:
            mib = f"{memory[0] / 2**20:>8.1f} MiB" if memory and memory[0] is not None else ""
            line += f" {median / yardstick:>11.2f}x {mib:>11}"
        print(line)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workload", choices=("all", "influence", "link-prediction", "trec"), default="all")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--candidates", type=int, default=50_000)
    parser.add_argument("--relevant", type=float, default=17)
    parser.add_argument("--lp-queries", type=int, default=100_000)
    parser.add_argument("--lp-candidates", type=int, default=1_000)
    parser.add_argument("--trec-queries", type=int, default=10_000)
    parser.add_argument("--trec-docs", type=int, default=1_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"machine: {platform.machine()}, {cpus} CPUs, Python {platform.python_version()}, "
          f"NumPy {np.__version__}, rankwise {rw.__version__}")
    if args.workload in ("all", "influence"):
        bench_influence(args, cpus)
    if args.workload in ("all", "link-prediction"):
        bench_link_prediction(args, cpus)
    if args.workload in ("all", "trec"):
        bench_trec(args, cpus)


if __name__ == "__main__":
    main()
