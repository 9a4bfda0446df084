"""The ``rankwise`` console command (also ``python -m rankwise``).

Exit status: 0 on success; 2 for a usage error or bad input (a message
``rankwise <command>: error: ...`` naming the option or argument, never a traceback);
130 when interrupted (Ctrl-C); 1 when the reader of the output went away early.
Anything else is a bug in rankwise and keeps its traceback.
"""
from __future__ import annotations

import argparse
import os
import sys

from .. import __version__
from . import compare, demo, fuse
from . import eval as eval_command
from ._common import CliError

# Bad input, not bugs: a file that cannot be read or parsed, a value out of range (also
# OverflowError, the symptom of a number too large for what it sizes), memory that a
# request cannot get. Other exceptions are bugs and keep their traceback.
_USER_ERRORS = (OSError, ValueError, OverflowError, MemoryError)
# Each subcommand's module: add_parser(subparsers) and report(args) -> the text to print.
_COMMANDS = {"demo": demo, "eval": eval_command, "compare": compare, "fuse": fuse}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rankwise", description="Exact ranking-evaluation metrics.")
    parser.add_argument("--version", action="version", version=f"rankwise {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    for module in _COMMANDS.values():
        module.add_parser(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line ``argv`` (default ``sys.argv[1:]``); returns the exit status."""
    command = "rankwise"
    try:
        args = _parser().parse_args(argv)
        command = f"rankwise {args.command}"
        report = _COMMANDS[args.command].report(args)
        if report:  # trec_eval -n without -q prints nothing at all
            print(report, flush=True)
    except BrokenPipeError:
        # The reader (e.g. `| head`) left early; silence the flush at interpreter exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except KeyboardInterrupt:
        print(f"{command}: interrupted", file=sys.stderr)
        return 130
    except CliError as error:
        print(f"{command}: error: {error}", file=sys.stderr)
        return 2
    except _USER_ERRORS as error:
        message = str(error) or type(error).__name__
        if isinstance(error, MemoryError):
            message = f"out of memory ({message})"
        print(f"{command}: error: {message}", file=sys.stderr)
        return 2
    return 0
