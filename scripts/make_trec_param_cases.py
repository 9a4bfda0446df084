"""Record trec_eval 10.0's output for every parameterised measure under odd parameters.

Writes tests/trec/data/trec_params/: three small qrels/run pairs (graded and negative labels,
tied scores, documents absent from the qrels, a query with no relevant document, a
query only in the run, and for ``-c`` a query only in the qrels) and cases.json: for
each trec_eval command line (always ``-q``), its exact stdout, stderr and exit status,
and what rankwise must do with it:

* ``match``: trec_eval succeeds and rankwise prints the same bytes;
* ``error``: trec_eval refuses the parameters and rankwise raises ValueError;
* ``refuse``: trec_eval reads something other than what was written (atol / atof
  stop early, an invalid ndcg level is silently ignored, two parameters print the same
  name, cutoffs 2**31 apart are misordered) and rankwise raises ValueError; the output
  is kept to show why.

Parameters on which trec_eval's behaviour is undefined (NaN, infinities, integer
overflow in atol or lround) are never run here: tests/trec/test_trec_params.py checks that
rankwise refuses them.

Deterministic: re-running it with the same trec_eval rewrites the same bytes.

Usage: python scripts/make_trec_param_cases.py [--trec-eval PATH] [OUTPUT_DIR]
"""
from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
from pathlib import Path

DEFAULT_DIR = Path(__file__).resolve().parents[1] / "tests" / "trec" / "data" / "trec_params"
DEFAULT_TREC_EVAL = os.environ.get("TREC_EVAL", "/work/tools/trec_eval/trec_eval")

CUT_ROOTS = ("P", "recall", "ndcg_cut", "map_cut", "relative_P", "success")
FRACTION_ROOTS = ("iprec_at_recall", "Rprec_mult")

# Cutoff texts trec_eval and rankwise read alike: unsorted, duplicates after atol aside,
# fractional parts, signs, leading zeros, spaces, huge within range, up to 2**31 - 1 apart.
CUTS = ["1", "2", "1,2,3", "3,1,2", "5,10,1000", "23.4", "23.", "4.999,3", "007", "+5", " 5", "5 ,7",
        "9223372036854775807", "1,2147483648", "2147483647,3", "4611686018427387904",
        ",".join(str(k) for k in range(40, 0, -1))]
CUTS_ERROR = ["0", "-5", "5,5", "5,5.5", "1,0", "5,", ",5", "-9223372036854775807", "inf", "nan", "0.5"]
MISORDERED = "trec_eval's comparator truncates the difference to an int: it misorders the cutoffs"
CUTS_REFUSED = {
    "1e3": "atol reads 1",
    "0x10": "atol reads 0, so trec_eval refuses it too, but for another reason",
    "1_000": "atol reads 1",
    "5a": "atol reads 5",
    "1,4294967296": MISORDERED,
    "5,9223372036854775807": MISORDERED,
}

FRACTIONS = ["0", ".5", "0,.1,.2,.3,.4,.5,.6,.7,.8,.9,1", "1,0.5,0", "-5", "-0.5", "-0.001", "-0", "1.5",
             "2,3,10", "9999.99", "-9999.99", "0.25,0.75", "0.33,0.67", "0.5,-0.5", "100", "1e-3", "5e1",
             "0.125", "0.375,0.625", "0.005", "0.015", "0.045,0.055", "1E0", "+.75", " 0.5"]
FRACTIONS_ERROR = ["0.5,0.5", "0,-0", "0.5,.50"]
FRACTIONS_REFUSED = {
    "0.101,0.102": "both print as _0.10: trec_eval prints two lines of one name",
    "-10000": "the printed name is truncated to 8 characters",
    "10000": "outside -9999.99 to 9999.99",
    "abc": "atof reads 0",
    "0.5x": "atof reads 0.5",
    "0x1p-1": "atof reads a hexadecimal 0.5",
    "": "atof reads an empty text as 0",
    ".5,": "atof reads the empty last one as 0",
}

POINTS = ["0.5", "1,0.5,0", "0.5,0.5", "0.2,0.5,0.8", "-1,-2", "2,1", "0,1,0.5,0.5,-1,3", "0.5,2,0.5",
          "1.5", "9999.99", "-0", "0.25,1,0.75,0.5", "1,1,1"]
POINTS_REFUSED = {"abc": "atof reads 0", "0.5,": "atof reads the empty last one as 0",
                  "1e5": "outside -9999.99 to 9999.99"}

UTILITY = ["1,-1,0,0", "2,-3,5,7", "0.5,0.25,-0.125,1e10", "1e300,-1e300,1e300,1e300",
           "1e308,1e308,1e308,1e308", "1e308,0,1e308,0", "-1,-1,-1,-1", "0,0,0,0", "-0,-0,-0,-0"]
UTILITY_ERROR = ["1,2,3", "1,2,3,4,5"]
UTILITY_REFUSED = {"a,b,c,d": "atof reads 0", "1,-1,0,0x": "atof reads 0"}

SET_F = ["1", "0.5", "-2", "-1", "0", "1e10", "-0.5", "-0", "3"]
SET_F_REFUSED = {"1,2": "trec_eval uses the first and ignores the rest", "x": "atof reads 0"}

GAINS = ["0=5", "1=0", "1=-2", "2=10,1=1", "-1=5", "-2=3", "-1=-1", "-1=2,-2=4,1=7", "99=3",
         "9223372036854775807=1", "-9223372036854775808=2", "+1=4", "01=4", "1=1e3", "3=1,1=3", "0=-1,1=2",
         "1=3,2=9,3=27,4=81", "2=2"]
GAINS_ERROR = ["1=3,", "1", "1=3=4", ",1=3"]
GAINS_REFUSED = {
    "x=3": "trec_eval ignores a level that is not an integer",
    "=3": "trec_eval ignores an empty level",
    "1.0=3": "trec_eval ignores a level that is not an integer",
    " 1=3": "trec_eval ignores a level with a space",
    "1e11=1": "trec_eval ignores a level that is not an integer",
    "1=3,1=5": "trec_eval gives the documents one gain and the ideal ranking the other",
    "1=abc": "atof reads 0",
}

FLAGS = {"plain": [], "complete": ["-c"], "depth": ["-M", "3"], "level": ["-l", "2"]}


def write_inputs(out: Path) -> dict:
    """Three qrels/run pairs; returns name -> (qrels file, run file, flag sets)."""
    qrels_a = """\
q1 0 a 1
q1 0 b 0
q1 0 c 2
q1 0 d 1
q1 0 e -1
q1 0 f 3
q2 0 a 0
q2 0 x 3
q3 0 z 0
q3 0 y 0
q4 0 m 2
q4 0 n 1
q4 0 o 1
q4 0 p 0
"""
    run_a = """\
q1 Q0 a 1 0.9 r
q1 Q0 b 2 0.8 r
q1 Q0 zz 3 0.8 r
q1 Q0 c 4 0.5 r
q1 Q0 e 5 0.4 r
q1 Q0 y 6 0.3 r
q1 Q0 f 7 0.1 r
q2 Q0 a 1 0.5 r
q2 Q0 x 2 0.5 r
q3 Q0 z 1 1 r
q4 Q0 n 1 2 r
q4 Q0 q 2 2 r
q4 Q0 o 3 1.5 r
q4 Q0 r 4 1 r
q4 Q0 m 5 1 r
q4 Q0 s 6 0 r
q9 Q0 a 1 1 r
"""
    (out / "a.qrels").write_text(qrels_a)
    (out / "a.run").write_text(run_a)
    # The same, plus queries only in the qrels (for -c): one with relevant documents, one without.
    (out / "a_complete.qrels").write_text(qrels_a + "q5 0 m 1\nq5 0 n 2\nq6 0 k 0\n")
    rng = random.Random(21)
    qrels, run = [], []
    for q in range(1, 6):
        docs = [f"D{q}{d:02d}" for d in range(30)]
        for doc in docs[:20]:
            qrels.append(f"t{q} 0 {doc} {rng.choice([-1, 0, 0, 0, 1, 1, 2, 3])}")
        retrieved = rng.sample(docs, 12 + 3 * q)
        for rank, doc in enumerate(retrieved, start=1):
            run.append(f"t{q} Q0 {doc} {rank} {rng.choice([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7]):.1f} b")
    (out / "b.qrels").write_text("\n".join(qrels) + "\n")
    (out / "b.run").write_text("\n".join(run) + "\n")
    return {
        "a": ("a.qrels", "a.run", ["plain", "depth"]),
        "a_complete": ("a_complete.qrels", "a.run", ["complete"]),
        "b": ("b.qrels", "b.run", ["plain", "complete", "depth", "level"]),
    }


def battery():
    """(measure arguments, expect, why) for every case: one -m per measure root."""
    for cut in CUTS:
        yield [f"{root}.{cut}" for root in CUT_ROOTS], "match", ""
    for cut in CUTS_ERROR:
        yield ["P." + cut], "error", ""
    for cut, why in CUTS_REFUSED.items():
        expect = "error" if cut == "0x10" else "refuse"
        yield ["P." + cut], expect, why
    for fraction in FRACTIONS:
        yield [f"{root}.{fraction}" for root in FRACTION_ROOTS], "match", ""
    for fraction in FRACTIONS_ERROR:
        for root in FRACTION_ROOTS:
            yield [f"{root}.{fraction}"], "error", ""
    for fraction, why in FRACTIONS_REFUSED.items():
        yield [f"iprec_at_recall.{fraction}"], "error" if fraction == "" else "refuse", why
    for points in POINTS:
        yield [f"11pt_avg.{points}"], "match", ""
    yield ["11pt_avg"], "match", ""
    for points, why in POINTS_REFUSED.items():
        yield [f"11pt_avg.{points}"], "refuse", why
    for params in UTILITY:
        yield [f"utility.{params}"], "match", ""
    yield ["utility"], "match", ""
    for params in UTILITY_ERROR:
        yield [f"utility.{params}"], "error", ""
    for params, why in UTILITY_REFUSED.items():
        yield [f"utility.{params}"], "refuse", why
    for param in SET_F:
        yield [f"set_F.{param}"], "match", ""
    for param, why in SET_F_REFUSED.items():
        yield [f"set_F.{param}"], "refuse", why
    for gains in GAINS:
        yield [f"ndcg.{gains}"], "match", ""
    for gains in GAINS_ERROR:
        yield [f"ndcg.{gains}"], "error", ""
    for gains, why in GAINS_REFUSED.items():
        yield [f"ndcg.{gains}"], "refuse", why


def record(trec_eval: str, out: Path) -> list:
    inputs = write_inputs(out)
    cases = []
    for measures, expect, why in battery():
        # Errors and refusals need one input; matches run on every input and flag set,
        # except the long ones (kept to the first input) so the file stays small.
        runs = [(name, flags) for name, (_, _, flag_sets) in inputs.items() for flags in flag_sets]
        if expect != "match" or len(",".join(measures)) > 300:
            runs = runs[:1]
        for name, flags in runs:
            qrels, run, _ = inputs[name]
            args = ["-q", *FLAGS[flags], *(a for m in measures for a in ("-m", m))]
            done = subprocess.run([trec_eval, *args, str(out / qrels), str(out / run)], capture_output=True,
                                  text=True, timeout=60)
            failed = done.returncode != 0
            if failed != (expect == "error"):
                raise SystemExit(f"{args} on {name}: trec_eval exited {done.returncode} but the case expects "
                                 f"{expect}:\n{done.stderr}")
            cases.append({"qrels": qrels, "run": run, "args": args, "expect": expect, "why": why,
                          "returncode": done.returncode, "stdout": done.stdout, "stderr": done.stderr})
    return cases


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trec-eval", default=DEFAULT_TREC_EVAL, help="trec_eval 10.0 binary")
    parser.add_argument("output", nargs="?", type=Path, default=DEFAULT_DIR)
    args = parser.parse_args(argv)
    args.output.mkdir(parents=True, exist_ok=True)
    version = subprocess.run([args.trec_eval, "-v"], capture_output=True, text=True).stderr.strip()
    if "10.0" not in version:
        raise SystemExit(f"{args.trec_eval} is {version!r}, not trec_eval 10.0")
    cases = record(args.trec_eval, args.output)
    lines = ",\n".join(json.dumps(case, sort_keys=True) for case in cases)
    text = f'{{"trec_eval": {json.dumps(version)},\n"cases": [\n{lines}\n]}}\n'

    (args.output / "cases.json").write_text(text)
    print(f"{len(cases)} cases, {len(text)} bytes -> {args.output / 'cases.json'}")


if __name__ == "__main__":
    main()
