"""``rankwise eval QRELS RUN``: trec_eval's measures and layout, with trec_eval's options."""
from __future__ import annotations

import argparse
import csv
import io
import json
import math
import sys

import numpy as np

from ..plot import distributions
from ..trec import Qrels, Run, TrecResults, read_example, trec_eval
from ..trec.names import first_parameters, parse_trec_measures
from ._common import (
    _INT64_MAX,
    FRACTION,
    RESAMPLES,
    SEED,
    CliError,
    add_no_progress,
    atol_type,
    check_measures,
    check_plot_file,
    one_stdin,
    read_file,
    save_plot,
)

# Levels beyond 2**53 would not compare exactly with labels held as float64.
_LEVEL = atol_type("an integer from 0 to 2**53", 2**53,
               "below 0, trec_eval 10.0 counts unjudged documents as relevant where they are ranked but not "
               "in R (map exceeds 1)")
_DEPTH = atol_type("an integer from 0 to 2**63 - 1", _INT64_MAX,
               "trec_eval 10.0 crashes (segmentation fault) on a negative -M")

def add_parser(commands: argparse._SubParsersAction) -> None:
    evaluate = commands.add_parser(
        "eval", help="evaluate a TREC run against qrels, as trec_eval does",
        description="Evaluate a TREC run file against a qrels file with trec_eval 10.0's measures; "
                    "the default output is trec_eval's layout.")
    evaluate.add_argument("qrels", nargs="?", help="qrels file (qid iter docno rel), plain or compressed "
                                                  "(gzip, bzip2, xz, zstd); - reads standard input")
    evaluate.add_argument("run", nargs="?", help="run file (qid Q0 docno rank score runid), plain or "
                                                 "compressed (gzip, bzip2, xz, zstd); - reads standard input "
                                                 "(zcat run.gz | rankwise eval QRELS -)")
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
    evaluate.add_argument("-J", action="store_true", dest="judged_only",
                          help="judged documents only: documents without a judgement >= 0 leave each ranking "
                               "(after -M) before any measure, as trec_eval -J")
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
    evaluate.add_argument("--ci", action="store_true",
                          help="also print each mean's bootstrap confidence interval (the queries "
                               "resampled): two more columns, low and high, on the 'all' lines (counts "
                               "have none)")
    evaluate.add_argument("--confidence", type=FRACTION, default=None, metavar="LEVEL",
                          help="the confidence level of --ci (default 0.95)")
    evaluate.add_argument("--ci-method", default=None, choices=("bca", "percentile", "basic"),
                          help="the interval of --ci (default bca, as scipy.stats.bootstrap)")
    evaluate.add_argument("--resamples", type=RESAMPLES, default=None, metavar="N",
                          help="bootstrap resamples of --ci (default 9999)")
    evaluate.add_argument("--seed", type=SEED, default=None,
                          help="seed of --ci's resamples (default 0: the same interval on every run)")
    add_no_progress(evaluate)
    evaluate.add_argument("--plot", metavar="FILE",
                          help="also draw the per-query distribution of each measure (box plots; the "
                               "counts num_ret, ... left out) to FILE, its format from the extension "
                               "(.png, .svg, .pdf, ...); needs matplotlib: pip install \"rankwise[plot]\"")


# trec_eval 10.0's options that rankwise eval refuses (whether each takes a value), and why.
_REFUSED = {"-N": True, "-D": True, "-Z": True, "-o": False, "-v": False}
_REFUSED_WHY = {
    "-N": "trec_eval's -N (the number of documents in the collection, for utility's 4th coefficient)",
    "-D": "trec_eval's -D (debug output; -D N.QID evaluates one query)",
    "-Z": "trec_eval's -Z (Z scores from a file of means and deviations)",
    "-o": "trec_eval's -o (obsolete: it has no effect in trec_eval 10.0)",
    "-v": "trec_eval's -v (its version; rankwise --version prints rankwise's)",
}
_SUPPORTED = "rankwise eval supports trec_eval's -m, -q, -c, -l, -M, -J, -n, -R qrels and -T trec_results"


def _check_trec_options(args: argparse.Namespace) -> None:
    """Refuse the trec_eval options rankwise does not implement, naming what it does."""
    for flag in _REFUSED:
        if getattr(args, f"refused{flag}") not in (None, False):
            raise CliError(f"argument {flag}: not supported: {_REFUSED_WHY[flag]}; {_SUPPORTED}")
    if args.rel_format != "qrels":
        raise CliError(f"argument -R: format {args.rel_format!r} is not supported (trec_eval's prefs, "
                        "qrels_prefs and qrels_jg are for preference and judgement-group measures): only -R "
                        f"qrels; {_SUPPORTED}")
    if args.results_format != "trec_results":
        raise CliError(f"argument -T: format {args.results_format!r} is not supported: only -T trec_results "
                        f"(trec_eval 10.0 has no other); {_SUPPORTED}")
    for option in ("confidence", "ci_method", "resamples", "seed"):
        if getattr(args, option) is not None and not args.ci:
            raise CliError(f"argument --{option.replace('_', '-')}: an option of --ci's intervals: only "
                           "with --ci")
    if args.no_summary and args.output != "trec":
        raise CliError(f"argument -n: leaves out trec_eval's 'all' lines: only with --format trec, not "
                        f"--format {args.output}")


def report(args: argparse.Namespace) -> str:
    if args.example:
        if args.qrels or args.run:
            raise CliError("pass QRELS and RUN, or --example, not both")
    elif not (args.qrels and args.run):
        raise CliError("eval needs QRELS and RUN files (or --example)")
    _check_trec_options(args)
    check_measures(args.measures, parse_trec_measures, "-m")
    check_plot_file(args.plot)
    # As trec_eval reads repeated -m: the first -m that gives a measure parameters wins.
    measures, notes = first_parameters(args.measures or ["official"])
    if args.example:
        qrels, run = read_example()
    else:
        one_stdin([args.qrels, args.run])
        qrels = read_file(Qrels, args.qrels, "qrels", progress=args.progress)
        run = read_file(Run, args.run, "run", args.depth, progress=args.progress)
    try:
        res = trec_eval(qrels, run, measures, complete=args.complete,
                        relevance_level=float(args.level), depth=args.depth, ties=args.ties,
                        judged_only=args.judged_only)
    except ValueError as error:
        facts = vars(error)  # value_error's facts
        if facts.get("qrels_queries", 0) and facts.get("run_queries", 0):
            raise CliError(f"no query of the run has judgements: the qrels have {facts['qrels_queries']} "
                            f"queries and the run {facts['run_queries']}, none in common (trec_eval exits "
                            "with an error too); -c evaluates the qrels' queries, those the run lacks "
                            "scoring 0") from None
        if "by_depth" not in facts:
            raise
        names = ", ".join(f"{m} (with -M)" if m in facts["by_depth"] else m for m in facts["measures"])
        which = "" if args.measures else " (of the default measures, official: choose others with -m)"
        raise CliError(f"argument --ties: expected has no closed form for {names}{which}; they are not "
                        "linear in the ranking: use --ties trec, optimistic, pessimistic or stable for "
                        "them") from None
    for note in notes:  # what trec_eval ignores too
        print(f"rankwise eval: note: {note}", file=sys.stderr)
    if args.plot is not None:
        _plot(res, args.plot)
    return _output(res, args, _intervals(res, args) if args.ci else {})


def _output(res: TrecResults, args: argparse.Namespace, intervals: dict) -> str:
    """The text of --format trec, json or csv, with --ci's intervals."""
    if args.output == "trec":
        return _with_intervals(res.format(per_query=args.per_query, summary=not args.no_summary), intervals)
    if args.output == "json":
        report = {"run": res.run_name, "num_q": len(res.query_ids),
                  "all": {name: _json_number(value) for name, value in res.mean().items()}}
        if intervals:
            first = next(iter(intervals.values()))
            bounds = {name: [_json_number(i.low), _json_number(i.high)] for name, i in intervals.items()}
            report["ci"] = {"level": first.confidence, "method": first.method, "resamples": first.n_resamples,
                            "seed": first.seed, "intervals": bounds}
        text = json.dumps(report, indent=2, allow_nan=False)
        # "per_query" comes last: its text goes before the closing brace.
        return f'{text[:-2]},\n  "per_query": {_json_queries(res)}\n}}' if args.per_query else text
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["query_id", *res.names])
    if args.per_query:
        columns = [[repr(value) for value in res[name].tolist()] for name in res.names]
        writer.writerows(zip(np.asarray(res.query_ids).tolist(), *columns, strict=True))
    writer.writerow(["all", *res.mean().values()])
    if intervals:
        for bound in ("low", "high"):
            writer.writerow([f"ci_{bound}", *(getattr(intervals[name], bound) if name in intervals else ""
                                              for name in res.names)])
    return buffer.getvalue().rstrip("\n")


def _intervals(res: TrecResults, args: argparse.Namespace) -> dict:
    """Each mean's interval: --confidence (0.95), --ci-method (bca), --resamples (9999), --seed (0)."""
    return res.mean(ci=args.confidence or 0.95, n_resamples=args.resamples or 9999,
                    seed=0 if args.seed is None else args.seed, method=args.ci_method or "bca")


def _with_intervals(text: str, intervals: dict) -> str:
    """trec_eval's text, each mean's ``all`` line followed by its interval's low and high."""
    if not intervals:
        return text
    lines = text.split("\n")
    for i, line in enumerate(lines):
        name, query, _ = line.split("\t", 2)
        interval = intervals.get(name.rstrip())
        if query == "all" and interval is not None:
            lines[i] = f"{line}\t{interval.low:.4f}\t{interval.high:.4f}"
    return "\n".join(lines)


def _plot(res: TrecResults, path: str) -> None:
    """Box plots of the measures' per-query values; counts (num_ret, ...) would dwarf the scores."""
    measures = [name for name in res.names if not parse_trec_measures(name)[0].root.startswith("num_")]
    if not measures:
        raise CliError("argument --plot: no measure to draw: the measures asked are all counts "
                       "(num_ret, ...)")
    ax = distributions(res, measures)
    ax.figure.set_size_inches(max(6.4, 0.4 * len(measures) + 2), 4.8)
    if len(measures) > 6:
        ax.tick_params(axis="x", labelrotation=90)
    ax.set_title(f"{res.run_name}: {len(res.query_ids)} queries")
    save_plot(ax, path)


def _json_queries(res: TrecResults) -> str:
    """``{query: {measure: value}}`` as ``json.dumps(indent=2)`` lays it out one level down, made
    a column at a time: the encoder's indenting walk (pure Python) would take longer than the
    evaluation. Values as :func:`_json_number` has them."""
    columns = []
    for name in res.names:
        key = f"      {json.dumps(name)}: "
        columns.append([f"{key}{value!r}" if math.isfinite(value) else f'{key}"{value!r}"'
                        for value in res[name].tolist()])
    queries = [json.dumps(str(q)) for q in res.query_ids]
    if not columns:
        return "{\n" + ",\n".join(f"    {query}: {{}}" for query in queries) + "\n  }"
    blocks = [f"    {query}: {{\n" + ",\n".join(row) + "\n    }"
              for query, row in zip(queries, zip(*columns, strict=True), strict=True)]
    return "{\n" + ",\n".join(blocks) + "\n  }"


def _json_number(value: float) -> float | str:
    """A measure's value for JSON, which has no infinity or NaN: those become the strings
    "inf", "-inf" and "nan" (as the CSV output prints them; Python's float() reads them back)."""
    return value if math.isfinite(value) else repr(float(value))
