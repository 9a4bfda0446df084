"""rankwise against a plain NumPy implementation (argsort per query).

Usage: python benchmarks/bench.py [--queries 200] [--candidates 50000] [--relevant 17]
                                   [--repeats 5] [--seed 0]

Generates the workload deterministically, checks that rankwise and the NumPy
reference agree on every query, and prints the median wall time of several
repeats (and the first call) at 1 thread and at all threads. The NumPy baseline is
``numpy_rr_ap`` from tests/reference.py (stable tie order, like rankwise's
``ties="stable"``); with continuous scores there are no ties, so every policy
gives the same values.
"""
import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

import rankwise as rw

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from reference import numpy_rr_ap  # noqa: E402


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


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--candidates", type=int, default=50_000)
    parser.add_argument("--relevant", type=float, default=17)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    indptr, y_score, y_true = make_workload(args.queries, args.candidates, args.relevant, args.seed)
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"workload: {args.queries} queries x {args.candidates:,} candidates, "
          f"{y_true.sum() / args.queries:.1f} relevant per query on average, float64 scores; MRR + MAP")
    print(f"machine: {platform.machine()}, {cpus} CPUs, Python {platform.python_version()}, "
          f"NumPy {np.__version__}, rankwise {rw.__version__}")

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
            plural = "s" if threads > 1 else ""
            rows.append((f"rankwise ties={ties!r}, {threads} thread{plural}", first, median))
    print("values: rankwise and NumPy agree on every query (rtol 1e-12)\n")
    print(f"{'implementation':<42} {'first call':>11} {'median':>9} {'speed-up':>9}")
    for name, first, median in rows:
        print(f"{name:<42} {first:>10.3f}s {median:>8.3f}s {numpy_time / median:>8.1f}x")


if __name__ == "__main__":
    main()
