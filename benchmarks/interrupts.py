"""How fast long rankwise calls honour Ctrl-C (issue 21), and that nothing keeps computing after.

Usage: python benchmarks/interrupts.py [--scenario NAME ...] [--delay 1.0 ...] [--scale 1.0]
       python benchmarks/interrupts.py --overhead [--repeats 15]

Each scenario runs in a subprocess of its own: the child builds its inputs, computes a
small reference value, says it is ready, and starts the long call; the parent waits
``--delay`` seconds, sends SIGINT, and the child reports (as one JSON line):

* latency: seconds from the signal to the KeyboardInterrupt reaching the child's top
  level (both sides read CLOCK_MONOTONIC, which is system-wide on Linux);
* cpu_until: CPU seconds the child used between the signal and that moment (every
  thread; /proc/PID/stat at the signal, resource.getrusage in the child);
* cpu_after: CPU seconds used over the 0.5 s after it, while the main thread sleeps:
  any thread still computing shows up here;
* check: the same kind of call, on the small input, run again after the interrupt,
  gives the value computed before it.

The child then re-raises the KeyboardInterrupt, so the process exits as Python does on
Ctrl-C. Linux only (it reads /proc). Scenarios (sizes at --scale 1):

* evaluate-one: evaluate(y, s, ["MAP"]) on one query of 2e8 rows (y int8, 0.1% relevant,
  s float32 uniform);
* evaluate-many: 2e8 rows as 10^5 queries of 2,000, 5% relevant;
* rank-one / rank-many: rank_positive with a mask over one query of 4e8 candidates, and
  over 2e5 queries x 2,000 candidates;
* trec-eval: trec_eval(map, P.10, ndcg_cut.10) of a 4e7-row Run (4e4 queries x 1,000)
  made from integer arrays, ties="trec";
* trec-eval-expected: the same under ties="expected" (every document ranked);
* run-read: Run.read of a 2e7-line run file (written before the clock starts);
* from-arrays: Run.from_arrays on 2e7 rows whose queries are interleaved (grouped once);
* from-arrays-one: Run.from_arrays on one query of 2e7 rows (the repeated-document check);
* compare: compare(a, b, "randomization", n_resamples=1e8) on 1,000 queries;
* compare-bootstrap: compare(a, b, "bootstrap", n_resamples=1e6) on 10,000 queries.

``--overhead`` times ordinary calls instead (median of ``--repeats``, each call repeated
for at least 0.2 s), small and large, so that two installs (before and after a change to
the stop flags or the runner) can be compared: the polls and the runner must cost nothing
measurable, and small calls must not start threads.
"""
from __future__ import annotations

import argparse
import atexit
import json
import os
import platform
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import numpy as np

# Scenario: seconds from the start of the long call to SIGINT (about 1 s, earlier for calls
# that take less than 2 s in all).
SCENARIOS = {"evaluate-one": 1.0, "evaluate-many": 1.0, "rank-one": 0.05, "rank-many": 0.1, "trec-eval": 0.1,
             "trec-eval-expected": 1.0, "run-read": 1.0, "from-arrays": 1.0, "from-arrays-one": 0.5,
             "compare": 1.0, "compare-bootstrap": 1.0}


# --------------------------------------------------------------------------------------
# The child: build inputs, run the long call, report on the interrupt
# --------------------------------------------------------------------------------------

def _n(x: float, scale: float) -> int:
    return max(int(x * scale), 1)


def _temporary_folder() -> str:
    """A folder removed when the process ends (also on KeyboardInterrupt)."""
    folder = tempfile.mkdtemp(prefix="rankwise-interrupts-")
    atexit.register(shutil.rmtree, folder, True)
    return folder


def _listwise(rng, n_rows, n_queries, relevant):
    y = (rng.random(n_rows, dtype=np.float32) < relevant).astype(np.int8)
    s = rng.random(n_rows, dtype=np.float32)
    indptr = np.linspace(0, n_rows, n_queries + 1).astype(np.int64)
    return y, s, indptr


def _trec_arrays(rng, n_queries, n_docs):
    queries = np.repeat(np.arange(n_queries, dtype=np.int64), n_docs)
    docs = np.tile(np.arange(n_docs, dtype=np.int64), n_queries)
    scores = rng.random(n_queries * n_docs)
    judged = rng.random(queries.shape[0]) < 0.05
    return queries, docs, scores, (queries[judged], docs[judged], rng.integers(0, 3, judged.sum()))


def scenario(name: str, scale: float, rng):
    """(long call, small call): the small one is checked before and after the interrupt."""
    import rankwise as rw

    if name in ("evaluate-one", "evaluate-many"):
        one = name == "evaluate-one"
        y, s, indptr = _listwise(rng, _n(2e8, scale), 1 if one else _n(1e5, scale), 0.001 if one else 0.05)
        ys, ss, small = _listwise(rng, 2_000_000, 1 if one else 1000, 0.001 if one else 0.05)
        return (lambda: rw.evaluate(y, s, ["MAP"], indptr=indptr),
                lambda: rw.evaluate(ys, ss, ["MAP", "nDCG@10"], indptr=small)["MAP"])
    if name == "rank-one":
        neg = rng.random(_n(4e8, scale), dtype=np.float32)
        mask = rng.random(neg.shape[0], dtype=np.float32) < 0.5
        small = rng.random(2_000_000, dtype=np.float32)
        return (lambda: rw.rank_positive(0.5, neg, mask),
                lambda: rw.rank_positive(0.5, small, small < 0.1).realistic)
    if name == "rank-many":
        neg = rng.random((_n(2e5, scale), 2000), dtype=np.float32)
        mask = neg < 0.5
        pos = rng.random(neg.shape[0])
        return (lambda: rw.rank_positive(pos, neg, mask),
                lambda: rw.rank_positive(pos[:1000], neg[:1000]).realistic)
    if name in ("trec-eval", "trec-eval-expected"):
        ties = "expected" if name == "trec-eval-expected" else "trec"
        q, d, s, (jq, jd, jr) = _trec_arrays(rng, _n(4e4, scale), 1000)
        run, qrels = rw.Run.from_arrays(q, d, s), rw.Qrels.from_arrays(jq, jd, jr)
        q2, d2, s2, (jq2, jd2, jr2) = _trec_arrays(rng, 2000, 1000)
        run2, qrels2 = rw.Run.from_arrays(q2, d2, s2), rw.Qrels.from_arrays(jq2, jd2, jr2)
        measures = ["map", "P.10", "ndcg_cut.10"]
        return (lambda: rw.trec_eval(qrels, run, measures, ties=ties),
                lambda: rw.trec_eval(qrels2, run2, measures, ties=ties)["map"])
    if name == "run-read":
        folder = _temporary_folder()
        path, small_path = os.path.join(folder, "big.run"), os.path.join(folder, "small.run")
        q, d, s, _ = _trec_arrays(rng, _n(2e4, scale), 1000)
        rw.Run.from_arrays(q, d, s).write(path)
        rw.Run.from_arrays(q[:1_000_000], d[:1_000_000], s[:1_000_000]).write(small_path)
        qrels = rw.Qrels.from_dict({str(i): {str(j): 1 for j in range(0, 1000, 7)} for i in range(1000)})
        return lambda: rw.Run.read(path), lambda: rw.trec_eval(qrels, rw.Run.read(small_path), ["map"])["map"]
    if name in ("from-arrays", "from-arrays-one"):
        n = _n(2e7, scale)
        if name == "from-arrays":
            q = rng.integers(0, 20_000, n)
            d = np.arange(n, dtype=np.int64)
        else:
            q = np.zeros(n, dtype=np.int64)
            d = rng.permutation(n).astype(np.int64)
        s = rng.random(n)
        qs, ds, ss = q[:1_000_000].copy(), d[:1_000_000].copy(), s[:1_000_000].copy()
        return (lambda: rw.Run.from_arrays(q, d, s),
                lambda: rw.trec_eval(rw.Qrels.from_arrays(qs[:5000], ds[:5000], np.ones(5000)),
                                     rw.Run.from_arrays(qs, ds, ss), ["map"])["map"])
    if name == "compare":
        a, b = rng.random(1000), rng.random(1000)
        return (lambda: rw.compare(a, b, "randomization", n_resamples=_n(1e8, scale), seed=1),
                lambda: rw.compare(a, b, "randomization", n_resamples=2_000_000, seed=1).distribution)
    if name == "compare-bootstrap":
        a, b = rng.random(10_000), rng.random(10_000)
        return (lambda: rw.compare(a, b, "bootstrap", n_resamples=_n(1e6, scale), seed=1),
                lambda: rw.compare(a, b, "bootstrap", n_resamples=20_000, seed=1).distribution)
    raise ValueError(f"unknown scenario {name!r}")


def overhead_calls(rng):
    """(name, call) pairs: the workloads of bench.py (W1-W4, W6) and small calls of each kind."""
    import rankwise as rw

    calls = []
    lengths = rng.integers(1_000, 100_000, 200)
    indptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    y1 = (rng.random(indptr[-1]) < 17 / 50_000).astype(np.int8)
    s1 = rng.random(indptr[-1])
    calls.append(("W1 evaluate MRR, MAP (1e7 rows)",
                  lambda: rw.evaluate(y1, s1, ["MRR", "MAP"], indptr=indptr)))
    y4 = rng.choice(4, (10_000, 1_000), p=[0.7, 0.15, 0.1, 0.05]).astype(np.int8)
    s4 = rng.random((10_000, 1_000))
    calls.append(("W4 evaluate nDCG@10 (1e7 rows)", lambda: rw.evaluate(y4, s4, ["nDCG@10"])))
    pos3, neg3 = np.round(rng.random(100_000), 2), np.round(rng.random((100_000, 999), dtype=np.float32), 2)
    calls.append(("W3 rank_positive (1e8 candidates)", lambda: rw.rank_positive(pos3, neg3)))
    q2, d2, sc2, (jq, jd, jr) = _trec_arrays(rng, 5_000, 1_000)
    calls.append(("W2 from_arrays + trec_eval (5e6 rows)",
                  lambda: rw.trec_eval(rw.Qrels.from_arrays(jq, jd, jr), rw.Run.from_arrays(q2, d2, sc2),
                                       ["ndcg_cut.10", "map", "P.10", "recall.100", "recip_rank"])))
    a6, b6 = rng.random(10_000), rng.random(10_000)
    calls.append(("W6 compare randomization (1e4 x 1e4)",
                  lambda: rw.compare(a6, b6, "randomization", n_resamples=10_000, seed=1)))
    calls.append(("W6 compare bootstrap (1e4 x 1e4)",
                  lambda: rw.compare(a6, b6, "bootstrap", n_resamples=10_000, seed=1)))
    path = os.path.join(_temporary_folder(), "run.txt")
    rw.Run.from_arrays(q2[:1_000_000], d2[:1_000_000], sc2[:1_000_000]).write(path)
    calls.append(("Run.read (1e6 lines)", lambda: rw.Run.read(path)))
    ys, ss = rng.integers(0, 2, (100, 100)), rng.random((100, 100))
    calls.append(("small evaluate (100 x 100)", lambda: rw.evaluate(ys, ss, ["MAP", "nDCG@10"])))
    calls.append(("small rank_positive (100 x 100)", lambda: rw.rank_positive(ss[:, 0], ss)))
    qs, rs = rw.Qrels.from_arrays(jq[:500], jd[:500], jr[:500]), rw.Run.from_arrays(q2[:10_000], d2[:10_000],
                                                                                     sc2[:10_000])
    calls.append(("small trec_eval (10 x 1000)", lambda: rw.trec_eval(qs, rs, ["map", "P.10"])))
    calls.append(("small compare (100 x 1000)",
                  lambda: rw.compare(a6[:100], b6[:100], "randomization", n_resamples=1_000, seed=1)))
    return calls


def overhead(repeats: int) -> None:
    rng = np.random.default_rng(0)
    for name, call in overhead_calls(rng):
        call()
        start = time.perf_counter()
        call()
        once = time.perf_counter() - start
        inner = max(int(0.2 / max(once, 1e-6)), 1)
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            for _ in range(inner):
                call()
            times.append((time.perf_counter() - start) / inner)
        low, median, high = (1e3 * sorted(times)[i * len(times) // 4] for i in (1, 2, 3))
        print(f"{name:<42}{median:>11.3f} ms  (quartiles {low:.3f} - {high:.3f})", flush=True)


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def child(name: str, scale: float) -> None:
    rng = np.random.default_rng(0)
    long_call, small_call = scenario(name, scale, rng)
    expected = small_call()
    print("READY", flush=True)
    start = time.monotonic()
    try:
        long_call()
    except KeyboardInterrupt:
        caught, cpu = time.monotonic(), _cpu()
        time.sleep(0.5)
        cpu_after = _cpu() - cpu
        again = small_call()
        same = all(np.array_equal(np.asarray(x), np.asarray(y), equal_nan=True)
                   for x, y in zip(again, expected, strict=True)) if isinstance(expected, tuple) else \
            np.array_equal(np.asarray(again), np.asarray(expected), equal_nan=True)
        print(json.dumps({"caught": caught, "cpu": cpu, "cpu_after": cpu_after, "check": bool(same),
                          "started": start}), flush=True)
        raise
    print(json.dumps({"finished": time.monotonic() - start}), flush=True)


# --------------------------------------------------------------------------------------
# The parent: time the signal, collect the child's report
# --------------------------------------------------------------------------------------

def _proc_cpu(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_one(name: str, delay: float, scale: float, timeout: float) -> dict:
    command = [sys.executable, os.path.abspath(__file__), "--child", name, "--scale", str(scale)]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = proc.stdout.readline()
        if line.strip() != "READY":
            raise RuntimeError(f"{name}: the child did not start ({line!r})")
        time.sleep(delay)
        cpu_at_signal = _proc_cpu(proc.pid)
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=timeout)
        exited = time.monotonic()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    report = json.loads(out.strip().splitlines()[-1])
    if "finished" in report:
        return {"scenario": name, "finished": report["finished"], "exit": exited - sent}
    return {"scenario": name, "delay": delay, "latency": report["caught"] - sent,
            "cpu_until": report["cpu"] - cpu_at_signal, "cpu_after": report["cpu_after"],
            "check": report["check"], "returncode": proc.returncode, "exit": exited - sent}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", nargs="+", default=list(SCENARIOS), choices=SCENARIOS)
    parser.add_argument("--delay", nargs="+", type=float,
                        help="seconds between the start of the long call and SIGINT, one run each "
                             "(default: 1 s, less for the calls that take under 2 s)")
    parser.add_argument("--scale", type=float, default=1.0, help="input sizes, relative to the defaults")
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--overhead", action="store_true", help="time ordinary calls instead (see above)")
    parser.add_argument("--repeats", type=int, default=15, help="--overhead: timed rounds per call")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child, args.scale)
        return 0
    if args.overhead:
        overhead(args.repeats)
        return 0
    import rankwise as rw

    print(f"rankwise {rw.__version__}, Python {platform.python_version()}, NumPy {np.__version__}, "
          f"{os.cpu_count()} CPUs")
    print(f"{'scenario':<20}{'delay':>7}{'latency':>10}{'CPU until':>11}{'CPU after':>11}  check  exit code")
    failed = False
    for name in args.scenario:
        for delay in args.delay or [SCENARIOS[name]]:
            r = run_one(name, delay, args.scale, args.timeout)
            if "finished" in r:
                print(f"{name:<20}{delay:>6.1f}s  finished in {r['finished']:.2f} s before the signal")
                continue
            ok = r["latency"] < 0.5 and r["cpu_after"] < 0.05 and r["check"]
            failed |= not ok
            print(f"{name:<20}{delay:>6.1f}s{r['latency']:>9.3f}s{r['cpu_until']:>10.3f}s{r['cpu_after']:>10.3f}s"
                  f"  {'ok' if r['check'] else 'WRONG':<5}  {r['returncode']}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
