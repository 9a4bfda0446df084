"""Make a big TREC run, or time Run.read on one: the reading half of bench.py's files workload.

    python benchmarks/read_run.py make run.txt              # 5,000 queries x 1,000 documents
    python benchmarks/read_run.py read run.txt              # fresh processes, as the files workload

``read`` times Run.read on the path, through a pipe from ``cat`` (``-``, standard input) and
compressed (``PATH.gz``, ``.bz2``, ``.xz``, ``.zst``, made once beside it where the tools exist
and rankwise reads the format) beside ``gzip -dc`` and the others, each run in its own process
(so that its peak RSS is its own); see benchmarks/files.py.
"""
from __future__ import annotations

import argparse
import os
from pathlib import Path

import files


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    maker = commands.add_parser("make")
    maker.add_argument("path")
    maker.add_argument("--queries", type=int, default=5000)
    maker.add_argument("--docs", type=int, default=1000)
    maker.add_argument("--seed", type=int, default=0)
    reader = commands.add_parser("read")
    reader.add_argument("path", type=Path)
    reader.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    if args.command == "make":
        files.make(args.path, args.queries, args.docs, args.seed)
        print(f"{args.path}: {os.path.getsize(args.path) / 1e6:.0f} MB")
        return
    reads = files.read_programs(args.path, files.sample_of(args.path))
    files.run_rounds(list(reads.values()), args.repeats)
    files.report_reads(reads, args.path.stat().st_size, None)


if __name__ == "__main__":
    main()
