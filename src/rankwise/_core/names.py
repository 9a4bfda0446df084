"""The metric-name grammar every domain shares, and its one "unknown name" error.

A name is a root, optionally followed by parameters in one of two forms:

* ``root(args)@k``: ir_measures' form (``nDCG@10``, ``RBP(p=0.9)``), tokenised by
  :func:`split_name`;
* ``root.params`` or ``root_params``: trec_eval's form (``P.5,10``, ``ndcg_cut_10``),
  tokenised against a table of roots by :func:`split_parameters`.

Each domain keeps its own table of roots (``lists.names``, ``ranks.metrics``,
``trec.names``) and raises :func:`unknown_name` for a name none of them knows.
"""
from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence
from typing import NamedTuple

import numpy as np

__all__ = ["MAX_CUTOFF", "NameParts", "check_cutoff", "did_you_mean", "metric_names", "name_key",
           "parse_cutoff", "split_name", "split_parameters", "unknown_name"]

# Cutoffs are int64 in the kernels; a cutoff beyond a list's length cuts nothing.
MAX_CUTOFF = 2**63 - 1
_CUTOFF_RANGE = "an integer from 1 to 2**63 - 1"
_DIGITS = re.compile(r"[+-]?[0-9]+")
# How many valid names an unknown name's error lists when none is close to it.
_SHOWN = 12


class NameParts(NamedTuple):
    """``root(args)@k`` in parts; ``args`` and ``k`` are None when absent."""

    root: str
    args: str | None
    k: str | None


def name_key(text: object) -> str:
    """A metric name as the tables look it up: stripped and lower-cased (names are case-insensitive)."""
    if not isinstance(text, str):
        raise TypeError(f"metric names must be strings, got {type(text).__name__}")
    return text.strip().lower()


def split_name(key: str) -> NameParts:
    """Tokenise ``root(args)@k``; only the parts' presence is checked here.

    Examples
    --------
    >>> split_name("ndcg(gain=exponential)@10")
    NameParts(root='ndcg', args='gain=exponential', k='10')
    >>> split_name("mrr")
    NameParts(root='mrr', args=None, k=None)
    """
    head, at, k = key.partition("@")
    args = None
    if head.endswith(")") and "(" in head:
        head, _, args = head[:-1].partition("(")
    return NameParts(head, args, k if at else None)


def split_parameters(key: str, roots: Iterable[str]) -> tuple[str, str] | None:
    """Tokenise ``root.params`` / ``root_params`` against ``roots`` (case-insensitive).

    Returns the longest root that ``key`` starts with, followed by ``.`` or ``_`` and at
    least one character, and the text after that separator; None if there is none.

    Examples
    --------
    >>> split_parameters("ndcg_cut.5,10", ["ndcg", "ndcg_cut", "P"])
    ('ndcg_cut', '5,10')
    >>> split_parameters("ndcg", ["ndcg"]) is None
    True
    """
    lower = key.lower()
    for root in sorted(roots, key=len, reverse=True):
        if len(key) > len(root) + 1 and lower.startswith((root.lower() + ".", root.lower() + "_")):
            return root, key[len(root) + 1:]
    return None


def did_you_mean(text: str, choices: Sequence[str]) -> str | None:
    """The choice closest to ``text`` (exact case first, then ignoring case), or None."""
    close = difflib.get_close_matches(text, choices, n=1, cutoff=0.5)
    if not close:
        lower = difflib.get_close_matches(text.lower(), [c.lower() for c in choices], n=1, cutoff=0.5)
        close = [c for c in choices if c.lower() in lower]
    return close[0] if close else None


def unknown_name(text: str, choices: Sequence[str], what: str = "metric", *, like: str | None = None,
                 hint: str | None = None) -> ValueError:
    """The one error for a name no table knows: ``unknown <what> 'X'; did you mean 'Y'?``.

    ``choices`` are the valid names to suggest, the most common first; ``like`` is the
    part of ``text`` compared with them (default: all of it). When none is close, the
    error lists the first few. ``hint`` replaces the suggestion where the caller knows
    better (e.g. another domain's name for the same metric).

    Examples
    --------
    >>> unknown_name("nDGC@10", ["MRR", "nDCG@10"])
    ValueError("unknown metric 'nDGC@10'; did you mean 'nDCG@10'?")
    """
    if hint is None:
        close = did_you_mean(text if like is None else like, choices)
        hint = f"did you mean {close!r}?" if close else f"valid names include {', '.join(choices[:_SHOWN])}"
    return ValueError(f"unknown {what} {text!r}; {hint}")


def parse_cutoff(raw: str, where: str) -> int:
    """The cutoff written in a metric name (ASCII digits), range-checked; ``where`` names the metric."""
    if not _DIGITS.fullmatch(raw):
        raise ValueError(f"{where}: cutoff must be {_CUTOFF_RANGE}, got {raw!r}")
    if len(raw.lstrip("+-0")) > 19:  # beyond int64, and int() refuses very long strings
        raise ValueError(f"{where}: cutoff k must be {_CUTOFF_RANGE}, got {raw}")
    return check_cutoff(int(raw), where)


def check_cutoff(k: object, where: str) -> int:
    """A cutoff must be an integer from 1 to 2**63 - 1; ``where`` names it in errors.

    A cutoff beyond a list's length keeps the whole list.
    """
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise TypeError(f"{where}: cutoff k must be {_CUTOFF_RANGE}, got {k!r}")
    if k < 1:
        raise ValueError(f"{where}: cutoff k must be >= 1 ({_CUTOFF_RANGE}), got {k}")
    if k > MAX_CUTOFF:
        raise ValueError(f"{where}: cutoff k must be {_CUTOFF_RANGE}, got {k}")
    return int(k)


def metric_names(metrics: object, what: str = "metric") -> list[str]:
    """The ``metrics`` argument as a list of names: one name, or any iterable of names."""
    if isinstance(metrics, np.ndarray) and metrics.ndim == 0:
        metrics = metrics.item()
    if isinstance(metrics, str):
        return [str(metrics)]
    if isinstance(metrics, (bytes, bytearray)) or metrics is None or not hasattr(metrics, "__iter__"):
        raise TypeError(f"metrics must be a {what} name or a list of names (strings), got {metrics!r}")
    names = list(metrics)
    for i, name in enumerate(names):
        if not isinstance(name, str):
            raise TypeError(f"metric names must be strings, got {type(name).__name__} {name!r} "
                            f"at metrics[{i}]")
    if not names:
        raise ValueError("metrics must name at least one metric, got an empty list")
    return [str(name) for name in names]
