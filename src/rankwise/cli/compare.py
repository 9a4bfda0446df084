"""``rankwise compare QRELS RUN...``: trec_eval's measures per query, paired tests between runs."""
from __future__ import annotations

import argparse
import os

from .._core.bundled import data_path
from ..plot import comparison
from ..stats.options import ALTERNATIVES, CORRECTIONS, TESTS
from ..stats.report import TREC_MEASURES, compare_systems
from ..trec import Qrels, Run, read_example
from ..trec.names import parse_trec_measures
from ._common import (
    FRACTION,
    RESAMPLES,
    SEED,
    CliError,
    add_no_progress,
    check_measures,
    check_plot_file,
    one_stdin,
    read_file,
    save_plot,
)


def add_parser(commands: argparse._SubParsersAction) -> None:
    compare = commands.add_parser(
        "compare", help="compare TREC runs query by query with paired significance tests",
        description="Evaluate TREC runs against qrels with trec_eval's measures and compare them query by "
                    "query: the mean of every measure, a paired significance test for every pair of runs "
                    "(or every run against --baseline), p-values corrected for multiple comparisons over "
                    "the comparisons of each measure, and win/tie/loss counts.")
    compare.add_argument("qrels", nargs="?", help="qrels file (qid iter docno rel), plain or compressed "
                                                 "(gzip, bzip2, xz, zstd); - reads standard input")
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
    compare.add_argument("--alpha", type=FRACTION, default=0.05,
                         help="significance level of the marks (default 0.05)")
    compare.add_argument("--resamples", type=RESAMPLES, default=10_000, metavar="N",
                         help="random sign patterns or bootstrap resamples (default 10000)")
    compare.add_argument("--seed", type=SEED, default=None,
                         help="seed of the resamples (default: fresh entropy, printed in the report)")
    compare.add_argument("-c", action="store_true", dest="complete",
                         help="average over all qrels queries; queries missing from a run score 0")
    compare.add_argument("--intersect", action="store_true",
                         help="compare on the queries every run has (default: runs covering different "
                              "queries are an error)")
    compare.add_argument("--format", default="text", choices=("text", "markdown", "latex", "csv"),
                         dest="output", help="output layout (default text)")
    add_no_progress(compare)
    compare.add_argument("--plot", metavar="FILE",
                         help="also draw the comparison (each run's mean with a bootstrap confidence "
                              "interval of --resamples resamples, and the significance marks) to FILE, "
                              "its format from the extension (.png, .svg, .pdf, ...); needs matplotlib: pip "
                              "install \"rankwise[plot]\"")


def _example_runs() -> tuple[Qrels, dict[str, Run]]:
    qrels, run = read_example()
    second = Run.read(data_path("example2.run"))
    return qrels, {run.name: run, second.name: second}


def _named_runs(paths: list[str], progress: bool | None) -> dict[str, Run]:
    runs = [read_file(Run, path, "run", progress=progress) for path in paths]
    names = [run.name for run in runs]
    if len(set(names)) != len(names):
        names = [os.path.basename(path) for path in paths]
    if len(set(names)) != len(names):
        names = list(paths)
    if len(set(names)) != len(names):
        raise CliError("the same run file is given twice")
    return dict(zip(names, runs, strict=True))


def report(args: argparse.Namespace) -> str:
    if args.example:
        if args.qrels or args.runs:
            raise CliError("pass QRELS and RUN files, or --example, not both")
    elif not args.qrels or len(args.runs) < 2:
        raise CliError("compare needs QRELS and at least two RUN files (or --example)")
    check_measures(args.measures, parse_trec_measures, "-m")
    check_plot_file(args.plot)
    if args.example:
        qrels, runs = _example_runs()
        paths = {}
    else:
        one_stdin([args.qrels, *args.runs])
        qrels = read_file(Qrels, args.qrels, "qrels", progress=args.progress)
        runs = _named_runs(args.runs, args.progress)
        paths = dict(zip(args.runs, runs, strict=True))
    baseline = args.baseline
    if baseline is not None and baseline not in runs:
        by_file = {**paths, **{os.path.basename(p): name for p, name in paths.items()}}
        if baseline not in by_file:
            raise CliError(f"argument --baseline: {baseline!r} is none of the runs ({', '.join(runs)})")
        baseline = by_file[baseline]
    correction = None if args.correction == "none" else args.correction
    try:
        report = compare_systems(runs, qrels, args.measures or list(TREC_MEASURES), baseline=baseline,
                                 test=args.test, correction=correction,
                                 alpha=args.alpha, alternative=args.alternative, n_resamples=args.resamples,
                                 seed=args.seed, on_missing="intersect" if args.intersect else "error",
                                 complete=args.complete, progress=args.progress)
    except ValueError as error:
        facts = vars(error)  # value_error's facts
        if "n_shared" not in facts:
            raise
        raise CliError(f"the runs cover different queries: {facts['details']}; pass --intersect to compare "
                       f"the {facts['n_shared']} queries they share, or -c to score the missing ones "
                       "0") from None
    if args.plot is not None:
        ax = comparison(report, n_resamples=args.resamples, seed=0 if args.seed is None else args.seed)
        ax.figure.set_size_inches(max(6.4, 0.5 * len(report.metrics) * len(report.systems) + 2), 4.8)
        save_plot(ax, args.plot)
    if args.output == "markdown":
        return report.to_markdown()
    if args.output == "latex":
        return report.to_latex()
    if args.output == "csv":
        return report.to_csv().rstrip("\n")
    return report.to_text()
