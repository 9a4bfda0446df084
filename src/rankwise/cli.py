"""The ``rankwise`` console command."""
from __future__ import annotations

import argparse
import csv
import io
import json
import os
import sys

from . import __version__
from ._demo import DEMO_METRICS, demo_report
from .stats import ALTERNATIVES, CORRECTIONS, TESTS, TREC_MEASURES, compare_systems
from .trec import Qrels, Run, read_example, trec_eval


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rankwise", description="Exact ranking-evaluation metrics.")
    parser.add_argument("--version", action="version", version=f"rankwise {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser("demo", help="evaluate the bundled example under every tie policy",
                               description="Evaluate the bundled example (graded labels, tied scores) "
                                           "and print one column per tie policy.")
    demo.add_argument("-m", "--metric", action="append", dest="metrics", metavar="NAME",
                      help=f"metric to show (repeatable); default: {' '.join(DEMO_METRICS)}")
    _eval_parser(commands)
    _compare_parser(commands)
    return parser


def _eval_parser(commands) -> None:
    evaluate = commands.add_parser(
        "eval", help="evaluate a TREC run against qrels, as trec_eval does",
        description="Evaluate a TREC run file against a qrels file with trec_eval 10.0's measures; "
                    "the default output is trec_eval's layout.")
    evaluate.add_argument("qrels", nargs="?", help="qrels file (qid iter docno rel); .gz is read too")
    evaluate.add_argument("run", nargs="?", help="run file (qid Q0 docno rank score runid)")
    evaluate.add_argument("--example", action="store_true",
                          help="evaluate the bundled example qrels and run instead of files")
    evaluate.add_argument("-m", action="append", dest="measures", metavar="MEASURE",
                          help="trec_eval measure, e.g. map, P.5,10, ndcg_cut.10, all_trec (repeatable; "
                               "default: official)")
    evaluate.add_argument("-q", action="store_true", dest="per_query", help="also print every query")
    evaluate.add_argument("-c", action="store_true", dest="complete",
                          help="average over all qrels queries; queries missing from the run score 0")
    evaluate.add_argument("-l", type=float, default=1, dest="level", metavar="LEVEL",
                          help="relevance level: labels >= LEVEL are relevant (default 1)")
    evaluate.add_argument("-M", type=int, default=None, dest="depth", metavar="DEPTH",
                          help="evaluate only the top DEPTH documents of each query")
    evaluate.add_argument("--ties", default="trec",
                          choices=("trec", "expected", "optimistic", "pessimistic", "stable"),
                          help="tie policy (default trec: document id descending, as trec_eval)")
    evaluate.add_argument("--format", default="trec", choices=("trec", "json", "csv"), dest="output",
                          help="output layout (default trec: trec_eval's)")


def _eval_report(args) -> str:
    if args.example:
        if args.qrels or args.run:
            raise ValueError("pass QRELS and RUN, or --example, not both")
        qrels, run = read_example()
    elif not (args.qrels and args.run):
        raise ValueError("eval needs QRELS and RUN files (or --example)")
    else:
        qrels, run = Qrels.read(args.qrels), Run.read(args.run)
    res = trec_eval(qrels, run, args.measures or ["official"], complete=args.complete,
                    relevance_level=args.level, depth=args.depth, ties=args.ties)
    if args.output == "trec":
        return res.format(per_query=args.per_query)
    if args.output == "json":
        report = {"run": res.run_name, "num_q": len(res.query_ids), "all": res.mean()}
        if args.per_query:
            report["per_query"] = {q: {name: float(res[name][i]) for name in res.names}
                                   for i, q in enumerate(res.query_ids)}
        return json.dumps(report, indent=2)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["query_id", *res.names])
    if args.per_query:
        for i, q in enumerate(res.query_ids):
            writer.writerow([q, *(repr(float(res[name][i])) for name in res.names)])
    writer.writerow(["all", *res.mean().values()])
    return buffer.getvalue().rstrip("\n")


def _compare_parser(commands) -> None:
    compare = commands.add_parser(
        "compare", help="compare TREC runs query by query with paired significance tests",
        description="Evaluate TREC runs against qrels with trec_eval's measures and compare them query by "
                    "query: the mean of every measure, a paired significance test for every pair of runs "
                    "(or every run against --baseline), p-values corrected for multiple comparisons over "
                    "the comparisons of each measure, and win/tie/loss counts.")
    compare.add_argument("qrels", nargs="?", help="qrels file (qid iter docno rel); .gz is read too")
    compare.add_argument("runs", nargs="*", metavar="run",
                         help="two or more run files; a run is named by its run id, or by its file name when "
                              "run ids repeat")
    compare.add_argument("--example", action="store_true",
                         help="compare the two bundled example runs (example, example2) instead of files")
    compare.add_argument("-m", action="append", dest="measures", metavar="MEASURE",
                         help="trec_eval measure, e.g. map, P.10, ndcg_cut.10 (repeatable; default: "
                              f"{' '.join(TREC_MEASURES)})")
    compare.add_argument("--test", default="randomization", choices=TESTS,
                         help="paired test (default randomization: Fisher's sign-flip test, exact when "
                              "2**queries <= --resamples)")
    compare.add_argument("--correction", default="holm", choices=(*CORRECTIONS, "none"),
                         help="adjustment for multiple comparisons (default holm)")
    compare.add_argument("--baseline", metavar="NAME",
                         help="compare every run against this one (run id or file name); default: all pairs")
    compare.add_argument("--alternative", default="two-sided", choices=ALTERNATIVES,
                         help="greater: the first run of each pair (or each run against the baseline) is "
                              "better")
    compare.add_argument("--alpha", type=float, default=0.05,
                         help="significance level of the marks (default 0.05)")
    compare.add_argument("--resamples", type=int, default=10_000, metavar="N",
                         help="random sign patterns or bootstrap resamples (default 10000)")
    compare.add_argument("--seed", type=int, default=None,
                         help="seed of the resamples (default: fresh entropy, printed in the report)")
    compare.add_argument("-c", action="store_true", dest="complete",
                         help="average over all qrels queries; queries missing from a run score 0")
    compare.add_argument("--intersect", action="store_true",
                         help="compare on the queries every run has (default: runs covering different "
                              "queries are an error)")
    compare.add_argument("--format", default="text", choices=("text", "markdown", "latex", "csv"),
                         dest="output", help="output layout (default text)")


def _example_runs() -> tuple:
    qrels, run = read_example()
    second = Run.read(os.path.join(os.path.dirname(__file__), "data", "example2.run"))
    return qrels, {run.name: run, second.name: second}


def _named_runs(paths) -> dict:
    runs = [Run.read(path) for path in paths]
    names = [run.name for run in runs]
    if len(set(names)) != len(names):
        names = [os.path.basename(path) for path in paths]
    if len(set(names)) != len(names):
        names = list(paths)
    if len(set(names)) != len(names):
        raise ValueError("the same run file is given twice")
    return dict(zip(names, runs, strict=True))


def _compare_report(args) -> str:
    if args.example:
        if args.qrels or args.runs:
            raise ValueError("pass QRELS and RUN files, or --example, not both")
        qrels, runs = _example_runs()
        paths = {}
    elif not args.qrels or len(args.runs) < 2:
        raise ValueError("compare needs QRELS and at least two RUN files (or --example)")
    else:
        qrels, runs = Qrels.read(args.qrels), _named_runs(args.runs)
        paths = dict(zip(args.runs, runs, strict=True))
    baseline = args.baseline
    if baseline is not None and baseline not in runs:
        by_file = {**paths, **{os.path.basename(p): name for p, name in paths.items()}}
        if baseline not in by_file:
            raise ValueError(f"--baseline {baseline!r} is none of the runs ({', '.join(runs)})")
        baseline = by_file[baseline]
    correction = None if args.correction == "none" else args.correction
    report = compare_systems(runs, qrels, args.measures or list(TREC_MEASURES), baseline=baseline,
                             test=args.test, correction=correction,
                             alpha=args.alpha, alternative=args.alternative, n_resamples=args.resamples,
                             seed=args.seed, on_missing="intersect" if args.intersect else "error",
                             complete=args.complete)
    if args.output == "markdown":
        return report.to_markdown()
    if args.output == "latex":
        return report.to_latex()
    if args.output == "csv":
        return report.to_csv().rstrip("\n")
    return report.to_text()


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "eval":
            report = _eval_report(args)
        elif args.command == "compare":
            report = _compare_report(args)
        else:
            report = demo_report(tuple(args.metrics) if args.metrics else DEMO_METRICS)
        print(report, flush=True)
    except BrokenPipeError:
        # The reader (e.g. `| head`) left early; silence the flush at interpreter exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except (OSError, TypeError, ValueError) as error:
        print(f"rankwise {args.command}: error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
