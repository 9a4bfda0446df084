"""The files workload: ``rankwise eval`` against trec_eval 10.0 and the peers, from TREC files.

    python benchmarks/bench.py --workload files [--data-dir DIR] [--trec-eval-src DIR | --trec-eval PATH]

Data, made once per size and --seed in --data-dir (default: rankwise-bench-files in the temporary
directory) and reused: a run of --trec-queries x --trec-docs (5,000 x 1,000: 5 million lines,
~190 MB) with string ids (``q123 Q0 doc4567890 1 12.34567 bench``, document ids drawn from 10
million, scores with 5 decimals), and qrels judging 60 documents per query, graded 0-3, 12 of them
not retrieved; the run compressed with gzip -1, bzip2, xz -1 and zstd where those tools exist.

trec_eval 10.0 is built from its sources with its own Makefile (``make``, in a temporary copy of
--trec-eval-src, default ../shared/oracles/trec_eval-10.0-src beside the repository) when a C
compiler is present, or taken from --trec-eval PATH. Every program runs in a fresh process, timed
from spawn to exit, its peak RSS read from ``wait4``; repeats are interleaved, as bench.py's.

This module is also the entry point of the child processes (``python benchmarks/files.py peer
NAME QRELS RUN``, ``python benchmarks/files.py read SOURCE``), so it imports only the standard
library at the top: a child's time and memory are those of what it runs.
"""
from __future__ import annotations

import importlib.util
import itertools
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_TREC_EVAL_SRC = ROOT.parent / "shared" / "oracles" / "trec_eval-10.0-src"
DEFAULT_DATA_DIR = Path(tempfile.gettempdir()) / "rankwise-bench-files"
MAX_ROUNDS = 3
# A peer, or a compressed read, whose first run takes longer than this runs once: the peers take
# tens of seconds, and the workload should stay within about 3 minutes.
ONCE_SECONDS = 8.0
# What the peers compute when they cannot compute trec_eval's default measures: trec_eval's -m
# name -> ir_measures' name, ranx's name.
COMPARABLE = {"map": ("AP", "map"), "ndcg_cut.10": ("nDCG@10", "ndcg@10"), "P.10": ("P@10", "precision@10"),
              "recall.100": ("R@100", "recall@100"), "recip_rank": ("RR", "mrr")}
# trec_eval's default ("official") measures, as pytrec_eval names them.
OFFICIAL = ("num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
            "iprec_at_recall", "P")
# Format -> (suffix, compress to standard output, decompress to standard output).
COMPRESSED = {"gzip": (".gz", ["gzip", "-1", "-c"], ["gzip", "-dc"]),
              "bzip2": (".bz2", ["bzip2", "-c"], ["bzip2", "-dc"]),
              "xz": (".xz", ["xz", "-1", "-T1", "-c"], ["xz", "-dc"]),
              "zstd": (".zst", ["zstd", "-q", "-c"], ["zstd", "-qdc"])}
PEER_RTOL = 1e-4
TARGET_SPEEDUP, TARGET_READ, TARGET_GZIP = 10.0, 500e6, 1.3
N_DOC_IDS = 10_000_000
GRADES = (0, 0, 0, 1, 1, 2, 3)


def add_arguments(parser) -> None:
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR,
                        help="files workload: where its TREC files are made once and reused "
                             f"(default {DEFAULT_DATA_DIR})")
    parser.add_argument("--trec-eval-src", type=Path,
                        help="files workload: trec_eval 10.0's sources, built with their Makefile (default "
                             "../shared/oracles/trec_eval-10.0-src beside the repository, if it exists)")
    parser.add_argument("--trec-eval", type=Path, help="files workload: a trec_eval binary instead")


# --------------------------------------------------------------------------------------
# Data
# --------------------------------------------------------------------------------------

def make(path, n_queries: int, n_docs: int, seed: int, qrels_path=None, judged: int = 60,
         unretrieved: int = 12) -> None:
    """A TREC run of n_queries x n_docs and, if ``qrels_path``, qrels for it.

    Run: ``q{i} Q0 doc{id} {rank} {score} bench``, document ids drawn from 10 million, scores
    in [0, 40) with 5 decimals, descending. Qrels: ``judged`` documents per query, graded 0-3
    (3/7 non-relevant), ``unretrieved`` of them not in the run and the rest at random ranks.
    The qrels draw from a generator of their own, so the run's bytes depend on the sizes and
    the seed only. Each file is written under a temporary name and renamed when complete.
    """
    import numpy as np

    rng, judge = np.random.default_rng(seed), np.random.default_rng([seed, 1])
    ranks, grades = np.arange(1, n_docs + 1), np.array(GRADES)
    paths = [Path(path)] + ([Path(qrels_path)] if qrels_path is not None else [])
    with ExitStack() as stack:
        out = [stack.enter_context(open(p.with_name(p.name + ".part"), "w", encoding="ascii")) for p in paths]
        for q in range(n_queries):
            docs = rng.choice(N_DOC_IDS, n_docs, replace=False)
            scores = np.sort(rng.random(n_docs))[::-1] * 40
            out[0].writelines(f"q{q} Q0 doc{d} {r} {s:.5f} bench\n"
                              for d, r, s in zip(docs.tolist(), ranks.tolist(), scores.tolist(), strict=True))
            if qrels_path is not None:
                ids = _judged(judge, docs, min(judged - unretrieved, n_docs), unretrieved)
                out[1].writelines(f"q{q} 0 doc{d} {g}\n"
                                  for d, g in zip(ids, judge.choice(grades, len(ids)).tolist(), strict=True))
    for p in paths:
        os.replace(p.with_name(p.name + ".part"), p)


def _judged(rng, docs, retrieved: int, unretrieved: int) -> list:
    """Ids of ``retrieved`` documents of ``docs`` at random and ``unretrieved`` others."""
    import numpy as np

    outside = []
    while len(outside) < unretrieved:
        draw = rng.choice(N_DOC_IDS, unretrieved + 8, replace=False)
        outside = [d for d in draw[~np.isin(draw, docs)].tolist() if d not in outside][:unretrieved]
    return docs[rng.choice(docs.shape[0], retrieved, replace=False)].tolist() + outside


def data_files(directory: Path, n_queries: int, n_docs: int, seed: int) -> tuple[Path, Path, float]:
    """(qrels, run, seconds spent making them: 0 when reused) in ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    stem = f"{n_queries}x{n_docs}-seed{seed}"
    qrels, run = directory / f"qrels-{stem}.txt", directory / f"run-{stem}.txt"
    start = time.perf_counter()
    if not (qrels.exists() and run.exists()):
        make(run, n_queries, n_docs, seed, qrels)
        return qrels, run, time.perf_counter() - start
    return qrels, run, 0.0


def compressed(run: Path, fmt: str) -> Path | None:
    """``run`` compressed as ``fmt`` (made once beside it), or None without the tool."""
    suffix, compress, decompress = COMPRESSED[fmt]
    if shutil.which(compress[0]) is None:
        return None
    path = run.with_name(run.name + suffix)
    if not path.exists():
        part = path.with_name(path.name + ".part")
        with open(part, "wb") as f:
            subprocess.run([*compress, str(run)], stdout=f, check=True)
        os.replace(part, path)
    return path


# --------------------------------------------------------------------------------------
# trec_eval
# --------------------------------------------------------------------------------------

def find_trec_eval(args, workdir: Path) -> tuple[Path | None, str]:
    """(trec_eval binary or None, a line saying where it comes from or why it is skipped)."""
    if args.trec_eval is not None:
        if not os.access(args.trec_eval, os.X_OK):
            return None, f"trec_eval: skipped: --trec-eval {args.trec_eval} is not an executable file"
        return args.trec_eval, f"trec_eval: {args.trec_eval} (--trec-eval)"
    src = args.trec_eval_src or (DEFAULT_TREC_EVAL_SRC if DEFAULT_TREC_EVAL_SRC.is_dir() else None)
    if src is None:
        return None, ("trec_eval: skipped: no sources (pass --trec-eval-src DIR, trec_eval 10.0's sources, "
                      "or --trec-eval PATH)")
    compiler = next((c for c in ("gcc", "cc", "clang") if shutil.which(c)), None)
    if compiler is None or shutil.which("make") is None:
        missing = "no C compiler" if compiler is None else "no make"
        return None, f"trec_eval: skipped: {missing} to build {src}"
    build = workdir / "trec_eval"
    shutil.copytree(src, build)
    start = time.perf_counter()
    # The Makefile names gcc; another compiler only where gcc is missing.
    done = subprocess.run(["make", "-s", *(["CC=" + compiler] if compiler != "gcc" else []), "trec_eval"],
                          cwd=build, capture_output=True, text=True, check=False)
    if done.returncode != 0 or not (build / "trec_eval").exists():
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return None, f"trec_eval: skipped: make failed in a copy of {src}: {last}"
    line = f"trec_eval: built from {src} with its Makefile ({compiler}) in {time.perf_counter() - start:.0f}s"
    test = build / "test"
    if (test / "out.test").exists():
        got = subprocess.run([str(build / "trec_eval"), "test/qrels.test", "test/results.test"], cwd=build,
                             capture_output=True, text=True, check=False).stdout
        line += "; its quick test " + ("passes" if got == (test / "out.test").read_text() else "FAILS")
    return build / "trec_eval", line


# --------------------------------------------------------------------------------------
# Fresh processes
# --------------------------------------------------------------------------------------

@dataclass
class Child:
    seconds: float          # wall time from spawn to exit
    peak: int               # the process's peak resident memory, bytes
    returncode: int
    stdout: str
    stderr: str


def spawn(command: list, pipe_from: list | None = None, discard: bool = False,
          env: dict | None = None) -> Child:
    """Run ``command`` in a fresh process (its standard input piped from ``pipe_from``'s
    output, or empty; its output discarded or kept; ``env`` added to the environment) and
    wait4 for its time and peak RSS."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        feeder = subprocess.Popen(pipe_from, stdout=subprocess.PIPE) if pipe_from else None
        start = time.perf_counter()
        process = subprocess.Popen(command, stdin=feeder.stdout if feeder else subprocess.DEVNULL,
                                   stdout=subprocess.DEVNULL if discard else out, stderr=err,
                                   env={**os.environ, **env} if env else None)
        if feeder is not None:
            feeder.stdout.close()
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        if feeder is not None:
            feeder.wait()
        out.seek(0)
        err.seek(0)
        unit = 1 if sys.platform == "darwin" else 1024
        return Child(seconds, usage.ru_maxrss * unit, process.returncode,
                     out.read().decode(errors="replace"), err.read().decode(errors="replace"))


@dataclass
class Program:
    """A command timed in fresh processes; ``runs`` collects the successful ones."""

    name: str
    measures: str
    command: list
    once_if_slow: bool = False
    pipe_from: list | None = None
    discard: bool = False
    env: dict | None = None
    runs: list = field(default_factory=list)
    error: str = ""

    def seconds(self) -> float:
        return statistics.median(c.seconds for c in self.runs)

    def peak(self) -> int:
        return int(statistics.median(c.peak for c in self.runs))


def run_rounds(programs: list, rounds: int) -> None:
    """Up to ``rounds`` interleaved rounds; a failed program stops, a slow one (if allowed) runs once."""
    for round_ in range(rounds):
        for program in programs:
            if program.error or (round_ and program.once_if_slow and program.runs[0].seconds > ONCE_SECONDS):
                continue
            child = spawn(program.command, program.pipe_from, program.discard, program.env)
            if child.returncode != 0:
                program.error = (child.stderr.strip().splitlines() or [f"exit status {child.returncode}"])[-1]
                continue
            program.runs.append(child)


def this_script(*args) -> list:
    return [sys.executable, str(Path(__file__).resolve()), *map(str, args)]


# --------------------------------------------------------------------------------------
# Child processes: the peers, and Run.read
# --------------------------------------------------------------------------------------

def peer_pytrec_eval(qrels: str, run: str) -> dict:
    """trec_eval's default measures, aggregated as trec_eval does (sums, geometric mean)."""
    import pytrec_eval

    with open(qrels) as q, open(run) as r:
        judged, ranked = pytrec_eval.parse_qrel(q), pytrec_eval.parse_run(r)
    per_query = pytrec_eval.RelevanceEvaluator(judged, set(OFFICIAL)).evaluate(ranked)
    names = next(iter(per_query.values())).keys()
    return {name: pytrec_eval.compute_aggregated_measure(name, [v[name] for v in per_query.values()])
            for name in names}


def peer_ir_measures(qrels: str, run: str) -> dict:
    import ir_measures

    wanted = {ir_measures.parse_measure(names[0]): trec for trec, names in COMPARABLE.items()}
    got = ir_measures.calc_aggregate(list(wanted), ir_measures.read_trec_qrels(qrels),
                                     ir_measures.read_trec_run(run))
    return {wanted[measure].replace(".", "_"): float(value) for measure, value in got.items()}


def peer_ranx(qrels: str, run: str) -> dict:
    import ranx

    got = ranx.evaluate(ranx.Qrels.from_file(qrels, kind="trec"), ranx.Run.from_file(run, kind="trec"),
                        [names[1] for names in COMPARABLE.values()])
    return {trec.replace(".", "_"): float(got[names[1]]) for trec, names in COMPARABLE.items()}


# name -> (module, how it reads and evaluates, what it computes, function)
PEERS = {
    "pytrec_eval": ("pytrec_eval", "parse_qrel/parse_run + RelevanceEvaluator", "default", peer_pytrec_eval),
    "ir_measures": ("ir_measures", "read_trec_qrels/run + calc_aggregate", "5 measures", peer_ir_measures),
    "ranx": ("ranx", "Qrels/Run.from_file + evaluate", "5 measures", peer_ranx),
}


def read_child(source: str) -> None:
    """Run.read once; prints its wall and CPU seconds, the rows and the peak RSS (KiB) before it."""
    import rankwise as rw

    before = resource.getrusage(resource.RUSAGE_SELF)
    start = time.perf_counter()
    run = rw.Run.read(source)
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_SELF)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    print(json.dumps({"seconds": seconds, "cpu": cpu, "rows": len(run), "maxrss_before": before.ru_maxrss}))


# --------------------------------------------------------------------------------------
# Comparing outputs
# --------------------------------------------------------------------------------------

def summary_values(output: str) -> dict:
    """{measure: value} of the 'all' lines of trec_eval's layout (runid left out)."""
    values = {}
    for line in output.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] == "all" and parts[0] != "runid":
            values[parts[0]] = float(parts[2])
    return values


def compare_outputs(ours: str, theirs: str) -> tuple[list, list]:
    """(the measures trec_eval prints and rankwise eval leaves out, the differences of the other
    lines): rankwise's lines against trec_eval's lines of the measures rankwise prints, in order."""
    a, b = ours.splitlines(), theirs.splitlines()
    printed = {line.split(maxsplit=1)[0] for line in a if line.strip()}
    missing = list(dict.fromkeys(line.split(maxsplit=1)[0] for line in b
                                 if line.strip() and line.split(maxsplit=1)[0] not in printed))
    kept = [line for line in b if not line.strip() or line.split(maxsplit=1)[0] in printed]
    diffs = [f"line {i + 1}: rankwise {x!r}, trec_eval {y!r}"
             for i, (x, y) in enumerate(zip(a, kept, strict=False)) if x != y]
    if len(a) != len(kept):
        diffs.append(f"rankwise prints {len(a)} lines, trec_eval {len(kept)} of those measures")
    return missing, diffs


def disagreements(got: dict, reference: dict) -> list:
    """The measures of ``got`` further than PEER_RTOL (relative, or absolute below 1) from ``reference``."""
    out = []
    for name, value in got.items():
        want = reference.get(name)
        if want is None:
            out.append(f"{name} (not in the reference)")
        elif abs(value - want) > PEER_RTOL * max(1.0, abs(want)):
            out.append(f"{name} {value:.6g} vs {want:.6g}")
    return out


# --------------------------------------------------------------------------------------
# The workload
# --------------------------------------------------------------------------------------

def cold_programs(trec_eval: Path | None, qrels: Path, run: Path) -> dict:
    """key -> Program: trec_eval and rankwise eval (default measures, all_trec), rankwise eval
    on the peers' 5 measures, and the installed peers (numba's cache, for ranx, beside the files)."""
    rankwise, files = [sys.executable, "-m", "rankwise.cli", "eval"], [str(qrels), str(run)]
    five = [word for m in COMPARABLE for word in ("-m", m)]
    programs = {}
    for measures, extra in (("default", []), ("all_trec", ["-m", "all_trec"])):
        options = " ".join(extra) + " " if extra else ""
        if trec_eval is not None:
            programs[f"trec_eval {measures}"] = Program(f"trec_eval {options}QRELS RUN", measures,
                                                        [str(trec_eval), *extra, *files])
        programs[f"rankwise {measures}"] = Program(f"rankwise eval {options}QRELS RUN", measures,
                                                   [*rankwise, *extra, *files])
    programs["rankwise 5 measures"] = Program("rankwise eval -m (the peers' 5 measures) QRELS RUN",
                                              "5 measures", [*rankwise, *five, *files])
    for name, (module, how, measures, _) in PEERS.items():
        if importlib.util.find_spec(module) is None:
            print(f"{name}: not installed, not timed (pip install '.[bench]')")
            continue
        programs[name] = Program(f"{name} {how}", measures, this_script("peer", name, qrels, run),
                                 once_if_slow=True, env={"NUMBA_CACHE_DIR": str(run.parent / "numba-cache")})
    return programs


def warm_up(programs: dict, qrels: Path, run: Path) -> None:
    """One untimed run of each peer on the first queries: ranx's numba functions compile into
    their cache (tens of seconds, once per --data-dir), as on a user's second run."""
    small_qrels, small_run = samples(qrels, run)
    done = []
    for name in PEERS:
        if name in programs:
            child = spawn(this_script("peer", name, small_qrels, small_run), env=programs[name].env)
            done.append(f"{name} {child.seconds:.1f}s" + ("" if child.returncode == 0 else " (failed)"))
    if done:
        print(f"peers' warm-up, untimed, on {small_run.name} (numba's cache in "
              f"{run.parent / 'numba-cache'}): " + ", ".join(done))


def report_cold(programs: dict, rounds: int) -> None:
    print(f"\ncold processes, each program in a fresh process (rounds interleaved; median of up to {rounds} "
          f"runs, 1 for a peer over {ONCE_SECONDS:.0f} s; peak RSS from wait4):")
    print(f"{'program':<62} {'measures':<10} {'runs':>4} {'median':>8} {'peak RSS':>10} "
          f"{'/ rankwise eval':>15}")
    for p in programs.values():
        if p.error:
            print(f"{p.name:<62} {p.measures:<10} failed: {p.error}")
            continue
        ours = programs.get(f"rankwise {p.measures}")
        ratio = f"{p.seconds() / ours.seconds():>14.2f}x" if ours is not None and ours.runs else f"{'':>15}"
        print(f"{p.name:<62} {p.measures:<10} {len(p.runs):>4} {p.seconds():>7.2f}s "
              f"{p.peak() / 2**20:>6.0f} MiB {ratio}")
    print("(/ rankwise eval: the program's median over rankwise eval's on the same measures; 5 measures: "
          f"{', '.join(COMPARABLE)})")


def check_cold(programs: dict) -> list:
    """rankwise eval's output against trec_eval's, the peers' means against trec_eval's; returns failures."""
    failures = []
    for key in ("rankwise default", "rankwise all_trec", "rankwise 5 measures", "trec_eval default",
                "trec_eval all_trec"):
        if key in programs and programs[key].error:
            failures.append(f"files {programs[key].name}: failed: {programs[key].error}")
    outputs = {k: p.runs[0].stdout for k, p in programs.items() if p.runs}
    source = "trec_eval" if "trec_eval default" in outputs and "trec_eval all_trec" in outputs else "rankwise"
    for measures in ("default", "all_trec"):
        if f"trec_eval {measures}" in outputs and f"rankwise {measures}" in outputs:
            ours, theirs = outputs[f"rankwise {measures}"], outputs[f"trec_eval {measures}"]
            missing, diffs = compare_outputs(ours, theirs)
            line = f"output, {measures} measures: rankwise eval's {len(ours.splitlines())} lines "
            line += (f"DIFFER from trec_eval's in {len(diffs)} places: " + "; ".join(diffs[:3]) if diffs
                     else "are trec_eval's, byte for byte, in its order")
            if missing:
                line += (f"; trec_eval prints {len(missing)} measures more, which rankwise eval leaves out: "
                         + ", ".join(missing))
            print(line)
            if diffs or (missing and measures == "default"):
                failures.append(f"files {line}")
    references = {m: summary_values(outputs.get(f"{source} {m}", "")) for m in ("default", "all_trec")}
    for name in PEERS:
        if name not in outputs:
            continue
        got = json.loads(outputs[name].strip().splitlines()[-1])
        want = references["default" if programs[name].measures == "default" else "all_trec"]
        off = disagreements(got, want)
        print(f"{name}: {len(got) - len(off)} of {len(got)} means within {PEER_RTOL:g} of {source}'s"
              + (f"; differ (conventions may differ; not a failure): {', '.join(off[:6])}" if off else ""))
    return failures


def sample_of(run: Path, lines: int = 2000) -> Path:
    """The first lines of ``run``, in a file beside it (made once): what a format is tried on."""
    sample = run.with_name(f"sample-of-{run.name}")
    if not sample.exists():
        with open(run) as f, open(sample, "w") as out:
            out.writelines(itertools.islice(f, lines))
    return sample


def samples(qrels: Path, run: Path) -> tuple[Path, Path]:
    """(the qrels of sample_of(run)'s queries, sample_of(run)), beside the files (made once)."""
    small_run, small_qrels = sample_of(run), qrels.with_name(f"sample-of-{qrels.name}")
    if not small_qrels.exists():
        with open(small_run) as f:
            queries = {line.split(maxsplit=1)[0] for line in f}
        with open(qrels) as f, open(small_qrels, "w") as out:
            out.writelines(line for line in f if line.split(maxsplit=1)[0] in queries)
    return small_qrels, small_run


def read_programs(run: Path, sample: Path) -> dict:
    """key -> Program: Run.read of the plain file, from a pipe, and of each compressed file
    rankwise reads (tried on ``sample`` first), beside the decompressing tool alone."""
    import rankwise as rw

    programs = {"plain": Program("Run.read(FILE)", "", this_script("read", run)),
                "pipe": Program("Run.read('-'), standard input from cat FILE", "", this_script("read", "-"),
                                pipe_from=["cat", str(run)])}
    expected = rw.Run.read(sample).to_dict()
    for fmt, (suffix, compress, decompress) in COMPRESSED.items():
        small = compressed(sample, fmt)
        if small is None:
            print(f"{fmt}: skipped: no {compress[0]} command")
            continue
        try:
            same = rw.Run.read(small).to_dict() == expected
        except Exception as error:   # an unsupported format fails in its own way: say how
            print(f"{fmt}: skipped: rankwise cannot read {small.name}: {type(error).__name__}: {error}")
            continue
        if not same:
            print(f"{fmt}: rankwise reads {small.name} differently from the plain text")
            programs[f"{fmt} mismatch"] = Program(f"Run.read(FILE{suffix})", fmt, [],
                                                  error="reads differently from the plain text")
            continue
        path, label = compressed(run, fmt), " ".join(compress[:-1])
        programs[fmt] = Program(f"Run.read(FILE{suffix}), made with {label}", fmt, this_script("read", path),
                                once_if_slow=True)
        programs[f"{fmt} tool"] = Program(f"{' '.join(decompress)} FILE{suffix} > /dev/null", fmt,
                                          [*decompress, str(path)], once_if_slow=True, discard=True)
    return programs


def read_seconds(program: Program) -> float:
    """Best time of the runs: Run.read's own (in the child) or the tool's wall time."""
    if program.command[:1] == [sys.executable]:
        return min(json.loads(c.stdout.strip().splitlines()[-1])["seconds"] for c in program.runs)
    return min(c.seconds for c in program.runs)


def report_reads(programs: dict, size: int, rows: int | None) -> list:
    """Prints the reading table; returns failures: a read that fails, or that finds other than
    ``rows`` rows (None: than the plain file's read)."""
    print(f"\nreading the run, {size / 1e6:.0f} MB of text, in fresh processes (best of the runs; Run.read's "
          "own time in the child, a tool's from spawn to exit; MB/s of the text):")
    print(f"{'reader':<62} {'runs':>4} {'best':>8} {'CPU':>7} {'MB/s':>6} {'peak RSS (before)':>18} "
          f"{'/ tool':>7}")
    failures = []
    for key, p in programs.items():
        if p.error or not p.runs:
            print(f"{p.name:<62} failed: {p.error}")
            failures.append(f"files {p.name}: {p.error}")
            continue
        best = read_seconds(p)
        if key.endswith(" tool"):
            print(f"{p.name:<62} {len(p.runs):>4} {best:>7.3f}s {'':>7} {size / best / 1e6:>6.0f}")
            continue
        got = [json.loads(c.stdout.strip().splitlines()[-1]) for c in p.runs]
        rows = got[0]["rows"] if rows is None else rows
        if any(g["rows"] != rows for g in got):
            failures.append(f"files {p.name}: {got[0]['rows']:,} rows, not {rows:,}")
        tool = programs.get(f"{key} tool")
        ratio = f"{best / read_seconds(tool):>6.2f}x" if tool is not None and tool.runs else ""
        before = min(g["maxrss_before"] for g in got) * (1 if sys.platform == "darwin" else 1024)
        print(f"{p.name:<62} {len(p.runs):>4} {best:>7.3f}s {min(g['cpu'] for g in got):>6.2f}s "
              f"{size / best / 1e6:>6.0f} {p.peak() / 2**20:>7.0f} MiB ({before / 2**20:>3.0f}) {ratio:>7}")
    return failures


def _verdict(met: bool) -> str:
    return "MET" if met else "MISSED"


def targets(cold: dict, reads: dict, size: int) -> list:
    """Issue 17's targets, one line each."""
    lines = []
    for measures in ("default", "all_trec"):
        theirs, ours = cold.get(f"trec_eval {measures}"), cold.get(f"rankwise {measures}")
        if theirs is None or ours is None or not (theirs.runs and ours.runs):
            lines.append(f"files: rankwise eval vs trec_eval, {measures} measures: not judged (no trec_eval "
                         "or a run failed)")
            continue
        speedup = theirs.seconds() / ours.seconds()
        lines.append(f"files: rankwise eval vs trec_eval, {measures} measures: {ours.seconds():.2f}s vs "
                     f"{theirs.seconds():.2f}s, {speedup:.1f}x (target >= {TARGET_SPEEDUP:.0f}x): "
                     f"{_verdict(speedup >= TARGET_SPEEDUP)}")
        if measures == "default":
            lines.append(f"files: peak RSS, default measures: rankwise eval {ours.peak() / 2**20:.0f} MiB vs "
                         f"trec_eval {theirs.peak() / 2**20:.0f} MiB (target: no higher): "
                         f"{_verdict(ours.peak() <= theirs.peak())}")
    if reads["plain"].runs:
        rate = size / read_seconds(reads["plain"])
        cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        lines.append(f"files: Run.read, plain file: {rate / 1e6:.0f} MB/s on {cpus} CPUs (target >= "
                     f"{TARGET_READ / 1e6:.0f} MB/s): {_verdict(rate >= TARGET_READ)}")
    if reads.get("gzip") and reads["gzip"].runs and reads["gzip tool"].runs:
        ratio = read_seconds(reads["gzip"]) / read_seconds(reads["gzip tool"])
        lines.append(f"files: Run.read, gzip: {ratio:.2f}x gzip -dc > /dev/null (target <= {TARGET_GZIP}x): "
                     f"{_verdict(ratio <= TARGET_GZIP)}")
    else:
        lines.append("files: Run.read, gzip: not judged (no gzip, or rankwise could not read it)")
    return lines


def bench_files(args) -> tuple[list, list]:
    """Run the workload; returns (summary lines, failures)."""
    rounds = min(args.repeats, MAX_ROUNDS)
    n_queries, n_docs = args.trec_queries, args.trec_docs
    qrels, run, made = data_files(args.data_dir, n_queries, n_docs, args.seed)
    size = run.stat().st_size
    print(f"\n== files: rankwise eval against trec_eval 10.0 and the peers, from TREC files: a run of "
          f"{n_queries:,} x {n_docs:,} ({size / 1e6:.0f} MB, string ids, 5-decimal scores), qrels judging 60 "
          f"per query (graded 0-3, 12 not retrieved); "
          + (f"made in {made:.0f}s" if made else "reused") + f" in {args.data_dir}")
    with tempfile.TemporaryDirectory(prefix="rankwise-bench-trec_eval-") as workdir:
        trec_eval, line = find_trec_eval(args, Path(workdir))
        print(line)
        cold = cold_programs(trec_eval, qrels, run)
        warm_up(cold, qrels, run)
        run_rounds(list(cold.values()), rounds)
    report_cold(cold, rounds)
    failures = check_cold(cold)
    reads = read_programs(run, sample_of(run))
    run_rounds(list(reads.values()), rounds)
    failures += report_reads(reads, size, n_queries * n_docs)
    return targets(cold, reads, size), failures


def main(argv: list) -> None:
    """The child processes: ``peer NAME QRELS RUN`` prints the peer's means as JSON, ``read SOURCE``
    times Run.read."""
    if len(argv) == 4 and argv[0] == "peer" and argv[1] in PEERS:
        print(json.dumps(PEERS[argv[1]][3](argv[2], argv[3])))
    elif len(argv) == 2 and argv[0] == "read":
        read_child(argv[1])
    else:
        sys.exit(f"usage: {sys.argv[0]} peer {{{','.join(PEERS)}}} QRELS RUN | read SOURCE (run by bench.py)")


if __name__ == "__main__":
    main(sys.argv[1:])
