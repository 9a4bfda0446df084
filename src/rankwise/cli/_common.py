"""What every subcommand shares: errors worded for the command line, option types that
read numbers as trec_eval reads them, and reading files with errors that name the argument."""
from __future__ import annotations

import argparse
import os
import re
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from .._core.bootstrap import MAX_RESAMPLES, SEED_LIMIT
from ..plot import EXTRA

T = TypeVar("T")

_INT64_MAX = 2**63 - 1
_STDIN = ("-", "/dev/stdin")


class CliError(Exception):
    """Bad input, with a message already worded for the command line."""


def number_type(kind: Callable[[str], T], allowed: str, test: Callable[[T], bool]) -> Callable[[str], T]:
    """An argparse ``type=``: ``kind(text)`` if ``test`` accepts it, else argparse's error."""
    def convert(text: str) -> T:
        try:
            value = kind(text)
        except (ValueError, OverflowError):
            value = None
        if value is None or not test(value):
            raise argparse.ArgumentTypeError(f"must be {allowed}, got {text!r}")
        return value

    return convert


# The bootstrap's options, as rankwise compare and rankwise eval --ci read them.
FRACTION = number_type(float, "a number in (0, 1)", lambda v: 0 < v < 1)
RESAMPLES = number_type(int, "an integer from 1 to 2**30", lambda v: 1 <= v <= MAX_RESAMPLES)
SEED = number_type(int, "an integer from 0 to 2**128 - 1", lambda v: 0 <= v < SEED_LIMIT)


def atol_type(allowed: str, high: int, negative: str) -> Callable[[str], int]:
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


def check_measures(measures: Iterable[str] | None, parse: Callable[[str], object], option: str) -> None:
    """Parse each name given to ``option`` before any file is read: errors name the option."""
    for name in measures or ():
        try:
            parse(name)
        except (ValueError, OverflowError) as error:
            named = str(error) if name in str(error) else f"{name!r}: {error}"
            raise CliError(f"argument {option}: {named}") from None


def read_file(cls: Any, path: str, argument: str, depth: int | None = None,
              progress: bool | None = None) -> Any:
    """``cls.read(path)`` with errors that name the command-line argument (and -M, when given)."""
    try:
        return cls.read(path, progress=progress)
    except (OSError, ImportError) as error:   # ImportError: an optional extra the file's format needs
        if isinstance(error, OSError) and error.filename is not None and error.strerror:
            raise CliError(f"argument {argument}: can't open {error.filename!r}: {error.strerror}") from None
        raise CliError(f"argument {argument}: {error}") from None
    except (TypeError, ValueError) as error:
        extra = ""
        if depth is not None and getattr(error, "duplicate_docno", False):
            extra = (" (with -M, trec_eval 10.0 rejects a repeated document only when both copies rank "
                     f"within the top {depth}; rankwise rejects it at any depth: remove the repeated line)")
        raise CliError(f"argument {argument}: {error}{extra}") from None


def add_no_progress(parser: Any) -> None:
    """``--no-progress``: no progress bar on stderr (shown only when stderr is a terminal)."""
    parser.add_argument("--no-progress", action="store_false", dest="progress", default=None,
                        help="no progress bar on standard error while reading large files and resampling "
                             "(shown only when it is a terminal and tqdm is installed: pip install "
                             "\"rankwise[progress]\"; RANKWISE_PROGRESS=0 turns it off too)")


def one_stdin(paths: Iterable[str | None]) -> None:
    if sum(path in _STDIN for path in paths) > 1:
        raise CliError("standard input (- or /dev/stdin) can be read once: give it for one file at most")


def check_plot_file(path: str | None) -> None:
    """Before any work: matplotlib is installed and draws files of ``path``'s format (its extension)."""
    if path is None:
        return
    try:
        import matplotlib
        from matplotlib.backend_bases import FigureCanvasBase
    except ImportError:
        raise CliError(f"argument --plot: drawing a figure needs matplotlib: {EXTRA}") from None
    matplotlib.use("Agg")  # files only: no window, whatever the default backend
    formats = FigureCanvasBase.get_supported_filetypes()
    extension = os.path.splitext(path)[1].lstrip(".").lower()
    if extension not in formats:
        raise CliError("argument --plot: the format is the file's extension, one of "
                       f"{', '.join(sorted(formats))}; got {path!r}")


def save_plot(ax: Any, path: str) -> None:
    """Write the figure of ``ax`` to ``path`` and close it; an unwritable path is a CliError."""
    import matplotlib.pyplot as plt

    figure = ax.figure
    try:
        figure.tight_layout()
        figure.savefig(path)
    except OSError as error:
        raise CliError(f"argument --plot: can't write {path!r}: {error.strerror or error}") from None
    finally:
        plt.close(figure)
