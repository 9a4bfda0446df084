"""Time Run.read on a big run file and report the reading process's peak RSS.

    python benchmarks/read_run.py make run.txt              # 5,000 queries x 1,000 documents
    python benchmarks/read_run.py read run.txt              # one fresh process per mode below
    python benchmarks/read_run.py read run.txt --modes file,pipe,gzip

Each mode runs in its own process (so that its peak RSS is its own): ``file`` reads the
path, ``pipe`` reads the same bytes through a pipe from ``cat`` (``-``, standard input),
``gzip`` reads ``PATH.gz`` (made once with ``gzip -1`` if absent).
"""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import time

import numpy as np


def make(path: str, n_queries: int, n_docs: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    ranks = np.arange(1, n_docs + 1)
    with open(path, "w", encoding="ascii") as f:
        for q in range(n_queries):
            docs = rng.choice(10_000_000, n_docs, replace=False)
            scores = np.sort(rng.random(n_docs))[::-1] * 40
            f.writelines(f"q{q} Q0 doc{d} {r} {s:.5f} bench\n"
                         for d, r, s in zip(docs.tolist(), ranks.tolist(), scores.tolist(), strict=True))


def _peak_rss_mib() -> float:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20 if sys.platform == "darwin" else peak / 2**10


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def read_once(source: str, repeats: int) -> None:
    import rankwise as rw

    baseline = _peak_rss_mib()
    times, cpu = [], []
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), _cpu_seconds()
        run = rw.Run.read(source)
        times.append(time.perf_counter() - start)
        cpu.append(_cpu_seconds() - start_cpu)
        rows = len(run)
        del run
    print(f"{min(times):.3f} {float(np.median(times)):.3f} {min(cpu):.3f} {rows} {baseline:.0f} "
          f"{_peak_rss_mib():.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    maker = commands.add_parser("make")
    maker.add_argument("path")
    maker.add_argument("--queries", type=int, default=5000)
    maker.add_argument("--docs", type=int, default=1000)
    maker.add_argument("--seed", type=int, default=0)
    reader = commands.add_parser("read")
    reader.add_argument("path")
    reader.add_argument("--repeats", type=int, default=3)
    reader.add_argument("--modes", default="file,pipe,gzip")
    child = commands.add_parser("child")
    child.add_argument("source")
    child.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    if args.command == "make":
        make(args.path, args.queries, args.docs, args.seed)
        print(f"{args.path}: {os.path.getsize(args.path) / 1e6:.0f} MB")
        return
    if args.command == "child":
        read_once(args.source, args.repeats)
        return
    print(f"{args.path}: {os.path.getsize(args.path) / 1e6:.0f} MB; best and median wall time of "
          f"{args.repeats} reads, best CPU time (user + system) of the reading process, its peak RSS "
          "(MiB) before and after")
    for mode in args.modes.split(","):
        command = [sys.executable, __file__, "child", "--repeats", str(args.repeats)]
        if mode == "file":
            out = subprocess.run([*command, args.path], capture_output=True, text=True, check=True).stdout
        elif mode == "gzip":
            if not os.path.exists(args.path + ".gz"):
                with open(args.path + ".gz", "wb") as f:
                    subprocess.run(["gzip", "-1", "-c", args.path], stdout=f, check=True)
            out = subprocess.run([*command, args.path + ".gz"], capture_output=True, text=True,
                                 check=True).stdout
        else:
            # One read per process: standard input can be read once.
            out = subprocess.run(f"{shutil.which('cat')} {args.path} | {' '.join(command[:-2])} "
                                 "--repeats 1 -", shell=True, capture_output=True, text=True,
                                 check=True).stdout
        best, median, cpu, rows, before, after = out.split()
        print(f"{mode:5}  {float(best):6.2f} s best  {float(median):6.2f} s median  {float(cpu):6.2f} s CPU "
              f"best  {int(rows):,} rows  peak RSS {before} -> {after} MiB")


if __name__ == "__main__":
    main()
