"""``rankwise fuse RUN RUN... -o OUT``: runs fused into one (RRF, CombSUM, CombMNZ, ...)."""
from __future__ import annotations

import argparse

from ..fusion import fuse
from ..fusion.fuse import METHODS, NORMS
from ..trec import Run
from ._common import CliError, add_no_progress, number_type, one_stdin, read_file

_K = number_type(float, "a finite number >= 0", lambda v: 0 <= v < float("inf"))
_DEPTH = number_type(int, "an integer >= 1", lambda v: v >= 1)


def add_parser(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "fuse", help="fuse TREC runs into one (RRF, CombSUM, CombMNZ, ...), as ranx does",
        description="Fuse two or more TREC run files into one run file: each run's documents ranked per "
                    "query (score, then document id descending), normalised, and combined by document.")
    parser.add_argument("runs", nargs="+", metavar="RUN", help="run files (plain or compressed)")
    parser.add_argument("-o", dest="output", required=True, metavar="OUT",
                        help="the fused run file (compressed by its extension: .gz, .bz2, .xz, .zst; "
                             ".parquet writes Parquet)")
    parser.add_argument("-m", "--method", default="rrf", metavar="METHOD",
                        help=f"fusion method: {', '.join(METHODS)} (default rrf; ranx's names such as "
                             "comb_sum, wsum, wmnz too)")
    parser.add_argument("--norm", default=None, choices=NORMS,
                        help="per-query normalisation of each run's scores first (default none)")
    parser.add_argument("--weights", default=None, metavar="W,W,...",
                        help="one weight per run, comma-separated (sum, mnz, rrf)")
    parser.add_argument("-k", type=_K, default=60.0, help="RRF's constant (default 60)")
    parser.add_argument("--depth", type=_DEPTH, default=None,
                        help="documents kept from the top of each run, per query (default all)")
    parser.add_argument("--name", default="fused", help="run id of the fused run (default fused)")
    add_no_progress(parser)


def _weights(text: str | None, n_runs: int) -> list[float] | None:
    if text is None:
        return None
    try:
        weights = [float(part) for part in text.split(",")]
    except ValueError:
        raise CliError(f"argument --weights: comma-separated numbers, one per run, got {text!r}") from None
    if len(weights) != n_runs:
        raise CliError(f"argument --weights: {len(weights)} weights for {n_runs} runs")
    return weights


def report(args: argparse.Namespace) -> str:
    if len(args.runs) < 2:
        raise CliError(f"fuse needs at least 2 runs, got {len(args.runs)}")
    one_stdin(args.runs)
    weights = _weights(args.weights, len(args.runs))
    runs = [read_file(Run, path, "RUN", progress=args.progress) for path in args.runs]
    try:
        fused = fuse(runs, args.method, norm=args.norm, weights=weights, k=args.k, depth=args.depth,
                     name=args.name)
    except (TypeError, ValueError) as error:
        raise CliError(str(error)) from None
    try:
        fused.write(args.output)
    except OSError as error:
        raise CliError(f"argument -o: can't write {args.output!r}: {error.strerror or error}") from None
    return ""
