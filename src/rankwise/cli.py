"""The ``rankwise`` console command (also ``python -m rankwise``).

Exit status: 0 on success; 2 for a usage error or bad input (a message
``rankwise <command>: error: ...`` naming the option or argument, never a traceback);
130 when interrupted (Ctrl-C); 1 when the reader of the output went away early.
Anything else is a bug in rankwise and keeps its traceback.
"""
from __future__ import annotations

import argparse
import csv
import io
import json
import math
import os
import re
import sys

from . import __version__
from ._demo import DEMO_METRICS, demo_report
from ._names import parse_metric
from ._trec_names import first_parameters, parse_trec_measures
from .stats import (
    _SEED_LIMIT,
    ALTERNATIVES,
    CORRECTIONS,
    MAX_RESAMPLES,
    TESTS,
    TREC_MEASURES,
    compare_systems,
)
from .trec import Qrels, Run, read_example, trec_eval

# Bad input, not bugs: a file that cannot be read or parsed, a value out of range (also
# OverflowError, the symptom of a number too large for what it sizes), memory that a
# request cannot get. Other exceptions are bugs and keep their traceback.
_USER_ERRORS = (OSError, ValueError, OverflowError, MemoryError)
_INT64_MAX = 2**63 - 1
_STDIN = ("-", "/dev/stdin")


class _CliError(Exception):
    """Bad input, with a message already worded for the command line."""


def _number(kind, allowed: str, test):
    """An argparse ``type=``: ``kind(text)`` if ``test`` accepts it, else argparse's error."""
    def convert(text: str):
        try:
            value = kind(text)
        except (ValueError, OverflowError):
            value = None
        if value is None or not test(value):
            raise argparse.ArgumentTypeError(f"must be {allowed}, got {text!r}")
        return value

    return convert


def _atol(allowed: str, high: int, negative: str):
    """An argparse ``type=`` for trec_eval's -l and -M, which it reads with C's atol.

    An integer, or a decimal whose fractional part is dropped as atol drops it ('1.5' is
    1); from 0 to ``high``. Anything else atol would read as another number is refused,
    and a negative value with ``negative``, why trec_eval's result is no use there.
    """
    rule = f"{allowed} (a fractional part is dropped, as trec_eval's atol drops it: '1.5' is 1)"

    def convert(text: str) -> int:
        if not re.fullmatch(r"[+-]?[0-9]+(?:\.[0-9]*)?", text):
            read = re.match(r"[ \t\n\v\f\r]*([+-]?[0-9]+)", text)
            said = f"; trec_eval would read it as {int(read[1]) if read else 0}" if text.strip() else ""
            raise argparse.ArgumentTypeError(f"must be {rule}, got {text!r}{said}")
        value = int(text.split(".")[0])
        if value < 0:
            raise argparse.ArgumentTypeError(f"must be {rule}, got {text!r}: {negative}")
        if value > high:
            raise argparse.ArgumentTypeError(f"must be {rule}, got {text!r}")
        return value

    return convert


# Levels beyond 2**53 would not compare exactly with labels held as float64.
_LEVEL = _atol("an integer from 0 to 2**53", 2**53,
               "below 0, trec_eval 10.0 counts unjudged documents as relevant where they are ranked but not "
               "in R (map exceeds 1)")
_DEPTH = _atol("an integer from 0 to 2**63 - 1", _INT64_MAX,
               "trec_eval 10.0 crashes (segmentation fault) on a negative -M")
_ALPHA = _number(float, "a number in (0, 1)", lambda v: 0 < v < 1)
_RESAMPLES = _number(int, "an integer from 1 to 2**30", lambda v: 1 <= v <= MAX_RESAMPLES)
_SEED = _number(int, "an integer from 0 to 2**128 - 1", lambda v: 0 <= v < _SEED_LIMIT)


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
    evaluate.add_argument("qrels", nargs="?", help="qrels file (qid iter docno rel); gzip is read too; "
                                                  "- reads standard input")
    evaluate.add_argument("run", nargs="?", help="run file (qid Q0 docno rank score runid); gzip is read "
                                                 "too; - reads standard input (zcat run.gz | rankwise eval "
                                                 "QRELS -)")
    evaluate.add_argument("--example", action="store_true",
                          help="evaluate the bundled example qrels and run instead of files")
    evaluate.add_argument("-m", action="append", dest="measures", metavar="MEASURE",
                          help="trec_eval measure, e.g. map, P.5,10, ndcg_cut.10, all_trec (repeatable; "
                               "default: official)")
    evaluate.add_argument("-q", action="store_true", dest="per_query", help="also print every query")
    evaluate.add_argument("-c", action="store_true", dest="complete",
                          help="average over all qrels queries; queries missing from the run score 0")
    evaluate.add_argument("-l", type=_LEVEL, default=1, dest="level", metavar="LEVEL",
                          help="relevance level: labels >= LEVEL are relevant (default 1); read as trec_eval "
                               "reads it: 1.5 is 1")
    evaluate.add_argument("-M", type=_DEPTH, default=None, dest="depth", metavar="DEPTH",
                          help="evaluate only the top DEPTH documents of each query (0: none, as trec_eval)")
    evaluate.add_argument("-n", action="store_true", dest="no_summary",
                          help="no summary: leave out the 'all' lines (with -q, only the queries' lines)")
    evaluate.add_argument("-R", default="qrels", dest="rel_format", metavar="FORMAT",
                          help="qrels format: only qrels (trec_eval's default)")
    evaluate.add_argument("-T", default="trec_results", dest="results_format", metavar="FORMAT",
                          help="run format: only trec_results (trec_eval's default)")
    for flag, takes_value in _REFUSED.items():
        evaluate.add_argument(flag, dest=f"refused{flag}", default=None, help=argparse.SUPPRESS,
                              **({"metavar": "VALUE"} if takes_value else {"action": "store_true"}))
    evaluate.add_argument("--ties", default="trec",
                          choices=("trec", "expected", "optimistic", "pessimistic", "stable"),
                          help="tie policy (default trec: document id descending, as trec_eval)")
    evaluate.add_argument("--format", default="trec", choices=("trec", "json", "csv"), dest="output",
                          help="output layout (default trec: trec_eval's; in json, infinite and NaN "
                               "values are the strings \"inf\", \"-inf\", \"nan\")")


# trec_eval 10.0's options that rankwise eval refuses (whether each takes a value), and why.
_REFUSED = {"-J": False, "-N": True, "-D": True, "-Z": True, "-o": False, "-v": False}
_REFUSED_WHY = {
    "-J": "trec_eval's -J (judged documents only: unjudged documents are removed from every ranking)",
    "-N": "trec_eval's -N (the number of documents in the collection, for utility's 4th coefficient)",
    "-D": "trec_eval's -D (debug output; -D N.QID evaluates one query)",
    "-Z": "trec_eval's -Z (Z scores from a file of means and deviations)",
    "-o": "trec_eval's -o (obsolete: it has no effect in trec_eval 10.0)",
    "-v": "trec_eval's -v (its version; rankwise --version prints rankwise's)",
}
_SUPPORTED = "rankwise eval supports trec_eval's -m, -q, -c, -l, -M, -n, -R qrels and -T trec_results"


def _check_trec_options(args) -> None:
    """Refuse the trec_eval options rankwise does not implement, naming what it does."""
    for flag in _REFUSED:
        if getattr(args, f"refused{flag}") not in (None, False):
            raise _CliError(f"argument {flag}: not supported: {_REFUSED_WHY[flag]}; {_SUPPORTED}")
    if args.rel_format != "qrels":
        raise _CliError(f"argument -R: format {args.rel_format!r} is not supported (trec_eval's prefs, "
                        "qrels_prefs and qrels_jg are for preference and judgement-group measures): only -R "
                        f"qrels; {_SUPPORTED}")
    if args.results_format != "trec_results":
        raise _CliError(f"argument -T: format {args.results_format!r} is not supported: only -T trec_results "
                        f"(trec_eval 10.0 has no other); {_SUPPORTED}")
    if args.no_summary and args.output != "trec":
        raise _CliError(f"argument -n: leaves out trec_eval's 'all' lines: only with --format trec, not "
                        f"--format {args.output}")


def _check_measures(measures, parse, option: str) -> None:
    """Parse each name given to ``option`` before any file is read: errors name the option."""
    for name in measures or ():
        try:
            parse(name)
        except (ValueError, OverflowError) as error:
            named = str(error) if name in str(error) else f"{name!r}: {error}"
            raise _CliError(f"argument {option}: {named}") from None


def _read(cls, path: str, argument: str, depth=None):
    """``cls.read(path)`` with errors that name the command-line argument (and -M, when given)."""
    try:
        return cls.read(path)
    except OSError as error:
        if error.filename is not None and error.strerror:
            raise _CliError(f"argument {argument}: can't open {error.filename!r}: {error.strerror}") from None
        raise _CliError(f"argument {argument}: {error}") from None
    except (TypeError, ValueError) as error:
        extra = ""
        if depth is not None and getattr(error, "duplicate_docno", False):
            extra = (" (with -M, trec_eval 10.0 rejects a repeated document only when both copies rank "
                     f"within the top {depth}; rankwise rejects it at any depth: remove the repeated line)")
        raise _CliError(f"argument {argument}: {error}{extra}") from None


def _one_stdin(paths) -> None:
    if sum(path in _STDIN for path in paths) > 1:
        raise _CliError("standard input (- or /dev/stdin) can be read once: give it for one file at most")


def _eval_report(args) -> str:
    if args.example:
        if args.qrels or args.run:
            raise _CliError("pass QRELS and RUN, or --example, not both")
    elif not (args.qrels and args.run):
        raise _CliError("eval needs QRELS and RUN files (or --example)")
    _check_trec_options(args)
    _check_measures(args.measures, parse_trec_measures, "-m")
    # As trec_eval reads repeated -m: the first -m that gives a measure parameters wins.
    measures, notes = first_parameters(args.measures or ["official"])
    if args.example:
        qrels, run = read_example()
    else:
        _one_stdin([args.qrels, args.run])
        qrels, run = _read(Qrels, args.qrels, "qrels"), _read(Run, args.run, "run", args.depth)
    try:
        res = trec_eval(qrels, run, measures, complete=args.complete,
                        relevance_level=float(args.level), depth=args.depth, ties=args.ties)
    except ValueError as error:
        if getattr(error, "qrels_queries", 0) and getattr(error, "run_queries", 0):
            raise _CliError(f"no query of the run has judgements: the qrels have {error.qrels_queries} "
                            f"queries and the run {error.run_queries}, none in common (trec_eval exits with "
                            "an error too); -c evaluates the qrels' queries, those the run lacks scoring "
                            "0") from None
        if not hasattr(error, "by_depth"):
            raise
        names = ", ".join(f"{m} (with -M)" if m in error.by_depth else m for m in error.measures)
        which = "" if args.measures else " (of the default measures, official: choose others with -m)"
        raise _CliError(f"argument --ties: expected has no closed form for {names}{which}; they are not "
                        "linear in the ranking: use --ties trec, optimistic, pessimistic or stable for "
                        "them") from None
    for note in notes:  # what trec_eval ignores too
        print(f"rankwise eval: note: {note}", file=sys.stderr)
    if args.output == "trec":
        return res.format(per_query=args.per_query, summary=not args.no_summary)
    if args.output == "json":
        report = {"run": res.run_name, "num_q": len(res.query_ids),
                  "all": {name: _json_number(value) for name, value in res.mean().items()}}
        if args.per_query:
            report["per_query"] = {str(q): {name: _json_number(float(res[name][i])) for name in res.names}
                                   for i, q in enumerate(res.query_ids)}
        return json.dumps(report, indent=2, allow_nan=False)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["query_id", *res.names])
    if args.per_query:
        for i, q in enumerate(res.query_ids):
            writer.writerow([q, *(repr(float(res[name][i])) for name in res.names)])
    writer.writerow(["all", *res.mean().values()])
    return buffer.getvalue().rstrip("\n")


def _json_number(value):
    """A measure's value for JSON, which has no infinity or NaN: those become the strings
    "inf", "-inf" and "nan" (as the CSV output prints them; Python's float() reads them back)."""
    return value if math.isfinite(value) else repr(float(value))


def _compare_parser(commands) -> None:
    compare = commands.add_parser(
        "compare", help="compare TREC runs query by query with paired significance tests",
        description="Evaluate TREC runs against qrels with trec_eval's measures and compare them query by "
                    "query: the mean of every measure, a paired significance test for every pair of runs "
                    "(or every run against --baseline), p-values corrected for multiple comparisons over "
                    "the comparisons of each measure, and win/tie/loss counts.")
    compare.add_argument("qrels", nargs="?", help="qrels file (qid iter docno rel); gzip is read too; "
                                                 "- reads standard input")
    compare.add_argument("runs", nargs="*", metavar="run",
                         help="two or more run files; a run is named by its run id, or by its file name when "
                              "run ids repeat; - reads standard input (for one file at most)")
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
    compare.add_argument("--alpha", type=_ALPHA, default=0.05,
                         help="significance level of the marks (default 0.05)")
    compare.add_argument("--resamples", type=_RESAMPLES, default=10_000, metavar="N",
                         help="random sign patterns or bootstrap resamples (default 10000)")
    compare.add_argument("--seed", type=_SEED, default=None,
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
    runs = [_read(Run, path, "run") for path in paths]
    names = [run.name for run in runs]
    if len(set(names)) != len(names):
        names = [os.path.basename(path) for path in paths]
    if len(set(names)) != len(names):
        names = list(paths)
    if len(set(names)) != len(names):
        raise _CliError("the same run file is given twice")
    return dict(zip(names, runs, strict=True))


def _compare_report(args) -> str:
    if args.example:
        if args.qrels or args.runs:
            raise _CliError("pass QRELS and RUN files, or --example, not both")
    elif not args.qrels or len(args.runs) < 2:
        raise _CliError("compare needs QRELS and at least two RUN files (or --example)")
    _check_measures(args.measures, parse_trec_measures, "-m")
    if args.example:
        qrels, runs = _example_runs()
        paths = {}
    else:
        _one_stdin([args.qrels, *args.runs])
        qrels, runs = _read(Qrels, args.qrels, "qrels"), _named_runs(args.runs)
        paths = dict(zip(args.runs, runs, strict=True))
    baseline = args.baseline
    if baseline is not None and baseline not in runs:
        by_file = {**paths, **{os.path.basename(p): name for p, name in paths.items()}}
        if baseline not in by_file:
            raise _CliError(f"argument --baseline: {baseline!r} is none of the runs ({', '.join(runs)})")
        baseline = by_file[baseline]
    correction = None if args.correction == "none" else args.correction
    try:
        report = compare_systems(runs, qrels, args.measures or list(TREC_MEASURES), baseline=baseline,
                                 test=args.test, correction=correction,
                                 alpha=args.alpha, alternative=args.alternative, n_resamples=args.resamples,
                                 seed=args.seed, on_missing="intersect" if args.intersect else "error",
                                 complete=args.complete)
    except ValueError as error:
        if not hasattr(error, "n_shared"):
            raise
        raise _CliError(f"the runs cover different queries: {error.details}; pass --intersect to compare the "
                        f"{error.n_shared} queries they share, or -c to score the missing ones 0") from None
    if args.output == "markdown":
        return report.to_markdown()
    if args.output == "latex":
        return report.to_latex()
    if args.output == "csv":
        return report.to_csv().rstrip("\n")
    return report.to_text()


def _demo_report(args) -> str:
    _check_measures(args.metrics, parse_metric, "-m/--metric")
    try:
        return demo_report(tuple(args.metrics) if args.metrics else DEMO_METRICS)
    except (ValueError, OverflowError) as error:
        # The metrics are the demo's only input.
        raise _CliError(f"argument -m/--metric: {error}") from None


def main(argv=None) -> int:
    """Run the command line ``argv`` (default ``sys.argv[1:]``); returns the exit status."""
    command = "rankwise"
    try:
        args = _parser().parse_args(argv)
        command = f"rankwise {args.command}"
        report = {"eval": _eval_report, "compare": _compare_report, "demo": _demo_report}[args.command](args)
        if report:  # trec_eval -n without -q prints nothing at all
            print(report, flush=True)
    except BrokenPipeError:
        # The reader (e.g. `| head`) left early; silence the flush at interpreter exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except KeyboardInterrupt:
        print(f"{command}: interrupted", file=sys.stderr)
        return 130
    except _CliError as error:
        print(f"{command}: error: {error}", file=sys.stderr)
        return 2
    except _USER_ERRORS as error:
        message = str(error) or type(error).__name__
        if isinstance(error, MemoryError):
            message = f"out of memory ({message})"
        print(f"{command}: error: {message}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
