"""The ``rankwise`` console command."""
from __future__ import annotations

import argparse
import os
import sys

from . import __version__
from ._demo import DEMO_METRICS, demo_report


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rankwise", description="Exact ranking-evaluation metrics.")
    parser.add_argument("--version", action="version", version=f"rankwise {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser("demo", help="evaluate the bundled example under every tie policy",
                               description="Evaluate the bundled example (graded labels, tied scores) "
                                           "and print one column per tie policy.")
    demo.add_argument("-m", "--metric", action="append", dest="metrics", metavar="NAME",
                      help=f"metric to show (repeatable); default: {' '.join(DEMO_METRICS)}")
    return parser


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    try:
        print(demo_report(tuple(args.metrics) if args.metrics else DEMO_METRICS), flush=True)
    except (TypeError, ValueError) as error:
        print(f"rankwise {args.command}: error: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader (e.g. `| head`) left early; silence the flush at interpreter exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
