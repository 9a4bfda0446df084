"""Record trec_eval 10.0's output for the command-line semantics ``rankwise eval`` follows.

Writes tests/cli/data/trec_cli/: a small qrels (graded, zero and negative labels, a query
with no relevant document), runs over it (ties, unjudged documents, one query the qrels
lack; one sharing no query with the qrels; one repeating a document below rank 5), and
cases.json: for each trec_eval command line, its exact stdout, stderr and exit status,
and what ``rankwise eval`` must do with it:

* ``match``: trec_eval succeeds and rankwise eval prints the same bytes (exit 0);
* ``error``: trec_eval exits with an error and rankwise eval exits 2 with a message
  containing ``rankwise``;
* ``refuse``: trec_eval computes something rankwise eval does not (an option it does
  not implement, a value trec_eval misreads or reads inconsistently), and rankwise eval
  exits 2 with a message containing ``rankwise``; the output is kept to show why.

The cases cover: a measure named twice (trec_eval keeps the parameters of the first -m
that gives it any), -l 0 and fractional -l (read with atol), -M 0 and fractional -M, -n,
-R / -T, queries in common or not (with and without -c), a document repeated below and
within the -M depth, -J (judged documents only) alone and with -c, -M and -l, and trec_eval's
options rankwise refuses (-N, -o).
Options on which trec_eval crashes or needs other files (-M -1, -Z, -D, -R prefs) are never run
here: tests/cli/test_trec_cli_semantics.py checks that rankwise refuses them.

Deterministic: re-running it with the same trec_eval rewrites the same bytes.

Usage: python scripts/make_trec_cli_cases.py [--trec-eval PATH] [OUTPUT_DIR]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
from pathlib import Path

DEFAULT_DIR = Path(__file__).resolve().parents[1] / "tests" / "cli" / "data" / "trec_cli"
DEFAULT_TREC_EVAL = os.environ.get("TREC_EVAL", "/work/tools/trec_eval/trec_eval")

QRELS = """\
q1 0 d1 2
q1 0 d2 0
q1 0 d3 1
q1 0 d4 -1
q1 0 d9 0
q2 0 d1 1
q2 0 d5 0
q2 0 d6 -2
q3 0 d1 0
q3 0 d2 0
"""
RUN = """\
q1 Q0 d1 1 0.9 sys
q1 Q0 d2 2 0.8 sys
q1 Q0 d7 3 0.7 sys
q1 Q0 d3 4 0.7 sys
q1 Q0 d4 5 0.1 sys
q2 Q0 d5 1 2.0 sys
q2 Q0 d6 2 1.5 sys
q2 Q0 d8 3 1.0 sys
q2 Q0 d1 4 0.5 sys
q3 Q0 d2 1 3 sys
q3 Q0 d5 2 2 sys
q3 Q0 d1 3 2 sys
q4 Q0 d1 1 1 sys
"""
# Only q3 of the qrels: under -c, q1 and q2 are missing queries.
PART = """\
q3 Q0 d2 1 3 part
q3 Q0 d5 2 2 part
"""
NONE = """\
q9 Q0 d1 1 0.9 other
q9 Q0 d2 2 0.5 other
"""
# d1 again for q1, ranked 6th: below -M 5, within -M 6.
DUP = RUN + "q1 Q0 d1 6 0.05 sys\n"
FILES = {"a.qrels": QRELS, "a.run": RUN, "part.run": PART, "none.run": NONE, "dup.run": DUP}

# Every measure rankwise computes, each with parameters where it takes them.
EVERY = ["official", "set", "ndcg", "ndcg.0=1,1=2,-1=0.5", "ndcg_cut.3", "success.1", "11pt_avg", "infAP",
         "map_cut.2", "recall.2", "relative_P.2", "Rprec_mult.0.5", "num_nonrel_judged_ret", "gm_bpref",
         "utility.1,2,3,4"]
TWICE = [
    ["P.1", "P.2"], ["official", "P.1"], ["P.5", "P"], ["P", "P.5"], ["P.1", "official"], ["P.5", "P.5"],
    ["P.2,1", "P.1,2"], ["set", "utility.1,2,3,4"], ["utility.1,2,3,4", "utility.4,3,2,1", "set"],
    ["ndcg_cut.5", "ndcg_cut.10,3"], ["iprec_at_recall.0.5", "official"], ["11pt_avg", "11pt_avg.0.5,0.2"],
    ["ndcg.1=3", "ndcg.1=5,2=1", "ndcg"], ["set_F.0.5", "set_F.2", "set"], ["Rprec_mult.0.5", "Rprec_mult"],
    ["success.1", "success", "recall.3", "recall.4", "map_cut.2", "map_cut.3", "relative_P.2",
     "relative_P.1"],
]


def _measures(names) -> list:
    return [a for m in names for a in ("-m", m)]


def battery():
    """(args, qrels, run, expect, why) of every case."""
    for names in TWICE:
        yield ["-q", *_measures(names)], "a.qrels", "a.run", "match", "a measure named twice: the first -m " \
            "that gives it parameters wins"
    every = _measures(EVERY)
    for flags, why in [(["-l", "0"], "-l 0: every judged document relevant"),
                       (["-l", "0.9"], "atol reads 0.9 as 0"),
                       (["-l", "1.5"], "atol reads 1.5 as 1"),
                       (["-l", "2"], "-l 2"),
                       (["-M", "0"], "-M 0: every ranking empty (0 / 0: -nan in iprec_at_recall, 11pt_avg)"),
                       (["-M", "0", "-l", "0"], "-M 0 with -l 0"),
                       (["-M", "2.5"], "atol reads 2.5 as 2"),
                       (["-M", "1"], "-M 1"),
                       (["-n"], "-n: no summary"),
                       (["-R", "qrels", "-T", "trec_results"], "trec_eval's default formats")]:
        yield ["-q", *flags, *every], "a.qrels", "a.run", "match", why
    yield ["-n", *every], "a.qrels", "a.run", "match", "-n without -q prints nothing"
    for flags in (["-J"], ["-J", "-c"], ["-J", "-M", "3"], ["-J", "-l", "2"]):
        yield ["-q", *flags, *every], "a.qrels", "part.run" if "-c" in flags else "a.run", "match", \
            "-J: only the judged documents, after the depth cut"
    for flags in (["-c"], ["-c", "-M", "0"]):
        yield ["-q", *flags, *every], "a.qrels", "part.run", "match", "missing queries under -c"
        yield ["-q", *flags, *every], "a.qrels", "none.run", "match", "no query in common, with -c"
    yield ["-q", *every], "a.qrels", "none.run", "error", "no query in common"
    yield ["-m", "map", "-M", "5"], "a.qrels", "dup.run", "refuse", \
        "a repeated document below the -M depth: trec_eval evaluates the top 5, rankwise refuses the run"
    yield ["-m", "map", "-M", "6"], "a.qrels", "dup.run", "error", "a repeated document within the -M depth"
    yield ["-m", "map"], "a.qrels", "dup.run", "error", "a repeated document"
    for flags, why in [(["-l", "-1"], "-l -1: unjudged documents count as relevant when ranked, not in R"),
                       (["-l", "1e3"], "atol reads 1e3 as 1"),
                       (["-N", "100", "-m", "utility.1,1,1,1"], "-N is not implemented"),
                       (["-o"], "-o is obsolete (no effect)")]:
        yield ["-q", *flags, "-m", "official"], "a.qrels", "a.run", "refuse", why


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trec-eval", default=DEFAULT_TREC_EVAL, help="trec_eval 10.0 binary")
    parser.add_argument("output", nargs="?", type=Path, default=DEFAULT_DIR)
    args = parser.parse_args(argv)
    out, binary = args.output, args.trec_eval
    version = subprocess.run([binary, "-v"], capture_output=True, text=True).stderr.strip()
    if "10.0" not in version:
        raise SystemExit(f"{binary} is {version!r}, not trec_eval 10.0")
    out.mkdir(parents=True, exist_ok=True)
    for name, text in FILES.items():
        (out / name).write_text(text)
    cases = []
    for flags, qrels, run, expect, why in battery():
        files = [str(out / qrels), str(out / run)]
        done = subprocess.run([binary, *flags, *files], capture_output=True, text=True, timeout=60)
        if (done.returncode != 0) != (expect == "error"):
            raise SystemExit(f"{flags} on {run}: trec_eval exited {done.returncode}, not as {expect!r} "
                             f"expects:\n{done.stderr}")
        cases.append(json.dumps({"qrels": qrels, "run": run, "args": flags, "expect": expect, "why": why,
                                 "returncode": done.returncode, "stdout": done.stdout,
                                 "stderr": done.stderr.replace(str(out) + os.sep, "")}, sort_keys=True))
    text = f'{{"trec_eval": {json.dumps(version)},\n"cases": [\n' + ",\n".join(cases) + "\n]}\n"
    (out / "cases.json").write_text(text)
    print(f"{len(cases)} cases, {len(text)} bytes -> {out / 'cases.json'}")


if __name__ == "__main__":
    main()
