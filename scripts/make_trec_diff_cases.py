"""Record trec_eval 10.0's output on random small qrels/run pairs: the differential corpus.

Writes tests/trec/data/trec_diff/cases.jsonl.gz: one JSON object per line, for each case its
qrels and run (as file text), trec_eval's arguments, the exact command line, trec_eval's
stdout and exit status. tests/trec/test_trec_differential.py replays every case through
``rankwise eval`` and ``rw.trec_eval(...).format()`` and compares the text line by line.

The cases cover every measure rankwise supports (``-m all_trec``, ``official``, ``set``,
and every parameterised measure at odd parameters: cutoffs, recall fractions, 11pt_avg's
points unsorted and repeated, Rprec_mult, utility, set_F, ndcg's custom gains with levels
-1 and -2), the flags that change numbers (``-c``, ``-l N``, ``-M N``, ``-J``, ``-q``), many tied
scores (across relevance levels, written in different ways: ``1``, ``1.0``, ``1e0``),
docnos whose byte order differs from their numeric order and numeric docnos of different
lengths, graded and negative labels, queries only in the qrels (with ``-c``), queries
only in the run, queries with no relevant document, runs longer than ``-M``, runs with
several run ids, interleaved run lines and comment lines.

Never generated: a query whose labels are all below -1, or a first query (in trec_eval's
order) with no label >= 0 (trec_eval sizes an array by the largest label + 1 and fails or
crashes on those). Left out (other tests cover them): qrels and run that share no query, ``-l 0``, ``-M 0``,
a measure named twice (``-m P.1 -m P.2``, ``-m official -m P.5``).

One deliberate difference is recorded as such (``"deliberate": "missing-without-c"``):
without ``-c``, trec_eval 10.0 exits with status 4 when a query of the qrels is missing
from the run; rankwise evaluates the queries both have, as trec_eval 9.x did. For those
cases ``status`` and ``stderr`` are trec_eval 10.0's, and ``stdout`` is what trec_eval
prints for the same run with the qrels restricted to the run's queries.

Deterministic: the same seed and trec_eval rewrite the same bytes.

Usage: python scripts/make_trec_diff_cases.py [--trec-eval PATH] [--seed N] [--cases N] [OUTPUT]
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import shlex
import subprocess
import tempfile
from pathlib import Path

DEFAULT_OUT = Path(__file__).resolve().parents[1] / "tests" / "trec" / "data" / "trec_diff" / "cases.jsonl.gz"
DEFAULT_TREC_EVAL = os.environ.get("TREC_EVAL", "/work/tools/trec_eval/trec_eval")

CUT_ROOTS = ("P", "recall", "ndcg_cut", "map_cut", "relative_P", "success", "unj")
PLAIN_ROOTS = ("num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
               "infAP", "gm_bpref", "set_P", "set_relative_P", "set_recall", "set_map",
               "num_nonrel_judged_ret", "runid", "num_q")
PARAM_ROOTS = (*CUT_ROOTS, "iprec_at_recall", "11pt_avg", "Rprec_mult", "utility", "set_F", "ndcg")
# The roots each nickname marks (trec_eval 10.0's measures.c): never named again beside it.
NICKNAMES = {
    "official": {"runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                 "recip_rank", "iprec_at_recall", "P"},
    "set": {"runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
            "set_relative_P", "set_map", "set_F"},
}
ODD_CUTS = (1, 2, 3, 4, 6, 7, 9, 11, 13, 17, 23, 31, 50, 99, 101, 1000)
ODD_FRACTIONS = ("0", ".05", ".15", ".2", ".33", ".45", ".5", ".67", ".75", ".9", ".95", "1", "0.125",
                 "1.5", "2", "-0.5")
ODD_POINTS = ("0", ".1", ".25", ".3", ".5", ".5", ".7", ".75", ".9", "1", ".05", "1.2", "-0.1")
MULTIPLIERS = ("0.2", "0.5", "0.75", "1", "1.5", "2", "3", "0.35", "5.0")
UTILITIES = ("2,-1,0,0", "1,-1,0,0", "1,-0.5,0.25,-0.1", "3,-2,1,1", "0,0,1,-1", "-1,2,0.5,0")
BETAS = ("0.25", "1", "4", "0.5", "2.5")
GAIN_LEVELS = (-2, -1, 0, 1, 2, 3, 4, 7)
GAIN_VALUES = ("0", "1", "2", "3", "4.5", "9", "0.5", "-0.25", "10", "0.1")


def query_pool(rng: random.Random, many: bool) -> list[str]:
    """Query ids whose byte order differs from their numeric order."""
    if many:
        return [str(q) for q in rng.sample(range(1, 700), 45)]
    style = rng.choice(("numeric", "alpha", "mixed"))
    numeric = ["1", "2", "3", "9", "10", "11", "20", "100", "301", "302", "7", "07", "42"]
    alpha = ["q1", "q2", "q10", "Q3", "topic-5", "a.b", "T_9", "z", "B", "q1b"]
    pool = {"numeric": numeric, "alpha": alpha, "mixed": numeric + alpha}[style]
    return rng.sample(pool, min(len(pool), 9))


def doc_pool(rng: random.Random, n: int) -> list[str]:
    """Distinct docnos: numeric of different lengths, alphanumeric, a few non-ASCII."""
    style = rng.choice(("numeric", "alpha", "mixed", "trec"))
    out: set[str] = set()
    while len(out) < n:
        kind = style if style != "mixed" else rng.choice(("numeric", "alpha", "trec", "utf8"))
        if kind == "numeric":
            doc = str(rng.choice((rng.randint(0, 9), rng.randint(10, 99), rng.randint(100, 1200))))
            if rng.random() < 0.1:
                doc = "0" + doc
        elif kind == "alpha":
            doc = rng.choice(("d", "D", "doc", "x-", "A_", "b.")) + str(rng.randint(0, 120))
        elif kind == "trec":
            doc = f"FBIS{rng.randint(3, 4)}-{rng.randint(1, 999)}"
        else:
            doc = rng.choice(("d\u00e9", "\u00fc", "\u00c5d", "z\u4e2d", "e")) + str(rng.randint(0, 30))
        out.add(doc)
    docs = sorted(out)
    rng.shuffle(docs)
    return docs


def score_text(rng: random.Random, value: float, exotic: bool) -> str:
    """A score as text; equal values sometimes in different spellings (1, 1.0, 1e0)."""
    if exotic and rng.random() < 0.03:
        return rng.choice(("inf", "-inf", "1e400", "-Infinity", "1e-310", "-1e-320", "0x1p-1", "0X1.8P1"))
    if exotic and value == 0 and rng.random() < 0.5:
        return rng.choice(("-0", "+0", "-0.0", "0e5", ".0", "-.0e-3"))       # all tied with 0
    if exotic and rng.random() < 0.1:
        signed = f"+{abs(value)!r}" if value >= 0 else repr(value)
        return rng.choice((signed, f"{value!r}".replace("e", "E"), f"{value:.3e}".upper()))
    if float(value).is_integer() and rng.random() < 0.5:
        return rng.choice((f"{int(value)}", f"{value:.1f}", f"{value:.3f}", f"{value:e}", f"{int(value)}."))
    return rng.choice((repr(float(value)), f"{value:.6g}" if float(f"{value:.6g}") == value else repr(value),
                       f"{value:.17g}"))


def make_query(rng: random.Random, labels: str, tie_style: str, exotic: bool) -> tuple[list, list]:
    """One query's judgements [(doc, label)] and retrieved [(doc, score)] (either may be empty)."""
    n_docs = rng.choice((1, 2, 3, 5, 8, 12, 20, 30, 60))
    docs = doc_pool(rng, n_docs + rng.randint(0, 6))
    judged = docs[:n_docs]
    if labels == "binary":
        choices = (0, 0, 1)
    elif labels == "graded":
        choices = (0, 0, 1, 2, 3, 4)
    else:
        choices = (-2, -1, -1, 0, 0, 1, 2, 3)
    kind = rng.random()
    if kind < 0.1:
        values = [0] * len(judged)                          # no relevant document
    elif kind < 0.15 and labels == "negative":
        values = [rng.choice((-1, -2, 0)) for _ in judged]  # nothing judged relevant
    else:
        values = [rng.choice(choices) for _ in judged]
    if max(values) < -1:
        # trec_eval sizes an array by the largest label + 1: below -1 it fails or crashes.
        values[-1] = -1
    qrels = list(zip(judged, values, strict=True))
    retrieved = [d for d in docs if rng.random() < 0.75]
    if not retrieved:
        retrieved = docs[:1]
    if tie_style == "all-tied":
        scores = [1.0] * len(retrieved)
    elif tie_style == "few-values":
        pool = [float(v) for v in rng.sample(range(-3, 6), 3)] + [0.5, 0.25, 0.0]
        scores = [rng.choice(pool) for _ in retrieved]
    else:
        scores = [round(rng.uniform(-5, 20), rng.choice((1, 2, 4))) for _ in retrieved]
    return qrels, list(zip(retrieved, [score_text(rng, s, exotic) for s in scores], strict=True))


def make_data(rng: random.Random, complete: bool, deliberate: bool) -> tuple[str, str]:
    labels = rng.choice(("binary", "graded", "negative"))
    tie_style = rng.choice(("all-tied", "few-values", "few-values", "continuous"))
    exotic = rng.random() < 0.15
    many = rng.random() < 0.12                  # enough queries for the summation order to show
    queries = query_pool(rng, many)
    n_shared = rng.randint(20, 40) if many else rng.randint(1, 4)
    n_qrels_only = rng.randint(1, 2) if (complete and rng.random() < 0.6) or deliberate else 0
    n_run_only = rng.randint(1, 2) if rng.random() < 0.3 else 0
    qrels_only = queries[n_shared:n_shared + n_qrels_only]
    run_only = queries[n_shared + n_qrels_only:n_shared + n_qrels_only + n_run_only]
    qrels_lines, run_lines = [], []
    mixed_ids = rng.random() < 0.1
    run_id = rng.choice(("run1", "bm25", "sys-A", "r"))
    generated = {q: make_query(rng, labels, tie_style, exotic)
                 for q in queries[:n_shared + n_qrels_only + n_run_only]}
    judged = sorted((q for q in generated if q not in run_only), key=lambda q: q.encode())
    first = generated[judged[0]][0]
    if max(r for _, r in first) < 0:
        # trec_eval fails on a first query (in its order) with no label >= 0: no array yet.
        first[-1] = (first[-1][0], 0)
    for q, (judgements, retrieved) in generated.items():
        if q not in run_only:
            qrels_lines += [f"{q} {rng.choice(('0', '0', '1', 'Q0'))} {d} {r}" for d, r in judgements]
        if q not in qrels_only:
            for rank, (d, s) in enumerate(retrieved, 1):
                rid = rng.choice(("run1", "run2", "zz")) if mixed_ids else run_id
                run_lines.append(f"{q} Q0 {d} {rank if rng.random() < 0.9 else rng.randint(0, 9)} {s} {rid}")
    if rng.random() < 0.3:
        rng.shuffle(run_lines)                  # interleaved queries
    if rng.random() < 0.2:
        rng.shuffle(qrels_lines)
    if rng.random() < 0.1:
        run_lines.insert(rng.randint(0, len(run_lines)), "# a comment line")
        qrels_lines.insert(0, "# judged by hand")
    if rng.random() < 0.05:
        run_lines = [line + " extra fields" for line in run_lines]      # ignored after the runid
    sep = rng.choice(("\t", " ", " ", " ", " \t ", "  "))
    end = "\r\n" if rng.random() < 0.05 else "\n"
    return (end.join(qrels_lines).replace(" ", sep) + end, end.join(run_lines).replace(" ", sep) + end)


def cutoffs(rng: random.Random) -> str:
    return ",".join(str(k) for k in rng.sample(ODD_CUTS, rng.randint(1, 4)))


def fractions(rng: random.Random) -> str:
    chosen, names = [], set()
    for text in rng.sample(ODD_FRACTIONS, rng.randint(1, 5)):
        name = f"{float(text):.2f}"
        if name not in names:
            names.add(name)
            chosen.append(text)
    return ",".join(chosen)


def gains(rng: random.Random) -> str:
    levels = rng.sample(GAIN_LEVELS, rng.randint(1, 5))
    return ",".join(f"{level}={rng.choice(GAIN_VALUES)}" for level in levels)


def parameter(rng: random.Random, root: str) -> str | None:
    if rng.random() < 0.15:
        return None                             # the default parameters
    if root in CUT_ROOTS:
        return cutoffs(rng)
    if root == "iprec_at_recall":
        return fractions(rng)
    if root == "11pt_avg":
        return ",".join(rng.choice(ODD_POINTS) for _ in range(rng.randint(1, 6)))
    if root == "Rprec_mult":
        return ",".join(rng.sample(MULTIPLIERS, rng.randint(1, 3)))
    if root == "utility":
        return rng.choice(UTILITIES)
    if root == "set_F":
        return rng.choice(BETAS)
    return gains(rng)


def measures(rng: random.Random) -> list[str]:
    """-m arguments naming each measure once."""
    mode = rng.random()
    if mode < 0.3:
        return ["all_trec"]
    taken: set[str] = set()
    out = []
    if mode < 0.38:
        return []                               # trec_eval's default: official
    if mode < 0.5:
        nickname = rng.choice(tuple(NICKNAMES))
        out.append(nickname)
        taken |= NICKNAMES[nickname]
    roots = [r for r in PARAM_ROOTS + PLAIN_ROOTS if r not in taken]
    for root in rng.sample(roots, rng.randint(1, 7)):
        raw = parameter(rng, root) if root in PARAM_ROOTS else None
        out.append(root if raw is None else f"{root}.{raw}")
    return out


def arguments(rng: random.Random, complete: bool) -> list[str]:
    args = []
    if rng.random() < 0.6:
        args.append("-q")
    if complete:
        args.append("-c")
    if rng.random() < 0.3:
        args.append(f"-l{rng.choice((1, 2, 2, 3, 4))}" if rng.random() < 0.5 else "-l")
        if args[-1] == "-l":
            args.append(str(rng.choice((1, 2, 2, 3, 4))))
    if rng.random() < 0.3:
        depth = str(rng.choice((1, 2, 3, 4, 5, 7, 10, 15)))
        args += ["-M", depth] if rng.random() < 0.5 else [f"-M{depth}"]
    if rng.random() < 0.25:
        args.append("-J")
    for name in measures(rng):
        args += ["-m", name]
    return args


def run_trec_eval(binary: str, args: list[str], qrels: str, run: str) -> subprocess.CompletedProcess:
    with tempfile.TemporaryDirectory() as tmp:
        paths = [os.path.join(tmp, "qrels"), os.path.join(tmp, "run")]
        for path, text in zip(paths, (qrels, run), strict=True):
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        return subprocess.run([binary, *args, *paths], capture_output=True, timeout=60, check=False)


def restrict(qrels: str, run: str) -> str:
    """The qrels lines of queries the run has (comment lines kept)."""
    in_run = {line.split()[0] for line in run.splitlines() if line and not line.startswith("#")}
    return "".join(line + "\n" for line in qrels.splitlines()
                   if line.startswith("#") or line.split()[0] in in_run)


def make_case(rng: random.Random, binary: str, number: int, deliberate: bool) -> dict:
    complete = False if deliberate else rng.random() < 0.35
    qrels, run = make_data(rng, complete, deliberate)
    args = arguments(rng, complete)
    done = run_trec_eval(binary, args, qrels, run)
    case = {"id": f"case{number:04d}", "args": args,
            "command": shlex.join(["trec_eval", *args, "qrels", "run"]),
            "qrels": qrels, "run": run, "status": done.returncode, "stderr": done.stderr.decode()}
    if deliberate:
        if done.returncode != 4 or b"not found" not in done.stderr:
            raise SystemExit(f"{case['id']}: trec_eval no longer aborts on a missing query: {done.stderr!r}")
        case["deliberate"] = "missing-without-c"
        done = run_trec_eval(binary, args, restrict(qrels, run), run)
    if done.returncode != 0:
        raise SystemExit(f"{case['id']}: {case['command']} failed ({done.returncode}): {done.stderr!r}\n"
                         f"qrels:\n{qrels}\nrun:\n{run}")
    case["stdout"] = done.stdout.decode()
    return case


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("output", nargs="?", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--trec-eval", default=DEFAULT_TREC_EVAL)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--cases", type=int, default=600)
    parser.add_argument("--deliberate", type=int, default=20,
                        help="of which cases with a qrels query missing from the run, without -c")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    cases = [make_case(rng, args.trec_eval, i, i >= args.cases - args.deliberate) for i in range(args.cases)]
    args.output.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(json.dumps(case, ensure_ascii=False, sort_keys=True) + "\n" for case in cases)
    with open(args.output, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as f:
        f.write(text.encode())
    lines = sum(case["stdout"].count("\n") for case in cases)
    size = args.output.stat().st_size
    print(f"{len(cases)} cases, {lines} trec_eval output lines, {size} bytes: {args.output}")


if __name__ == "__main__":
    main()
