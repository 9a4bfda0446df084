"""The options of the significance tests: their allowed values, their checks, and seeds.

Shared by :func:`~rankwise.compare`, :func:`~rankwise.compare_systems` and the command line
(``rankwise compare``): every option is checked before any work, with an error naming it.
"""
from __future__ import annotations

from collections.abc import Sequence

from .._core.bootstrap import INTERVAL_METHODS as CI_METHODS
from .._core.bootstrap import MAX_RESAMPLES
from .._core.bootstrap import check_fraction as _check_fraction
from .._core.bootstrap import check_n_resamples as _check_n_resamples
from .._core.bootstrap import check_seed as _check_seed
from .._core.parallel import effective_n_threads
from .._core.validation import check_choice

__all__ = ["ALTERNATIVES", "CI_METHODS", "CORRECTIONS", "MAX_RESAMPLES", "TESTS", "ZERO_METHODS"]

TESTS = ("randomization", "t", "wilcoxon", "sign", "bootstrap")
ALTERNATIVES = ("two-sided", "greater", "less")
CORRECTIONS = ("holm", "bonferroni", "bh", "by")
ZERO_METHODS = ("wilcox", "pratt", "zsplit")
_ON_MISSING = ("error", "intersect")
_NAN_POLICIES = ("raise", "omit")
_FAMILIES = ("metric", "all")


def _choice(value: object, name: str, choices: Sequence[str]) -> str:
    """``value`` if it is one of the names ``choices``: TypeError for a non-str, ValueError otherwise."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, one of {', '.join(map(repr, choices))}, got {value!r}")
    if value not in choices and value.lower() in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}, got {value!r}; did you "
                         f"mean {value.lower()!r}?")
    return check_choice(value, name, choices)


def _check_test_options(test: object, alternative: object, n_resamples: object, confidence: object,
                        ci_method: object, zero_method: object, seed: object,
                        n_threads: int | None) -> tuple[int, float, int | None]:
    """Every option of a paired test, checked before any work: (n_resamples, confidence, seed)."""
    _choice(test, "test", TESTS)
    _choice(alternative, "alternative", ALTERNATIVES)
    _choice(ci_method, "ci_method", CI_METHODS)
    _choice(zero_method, "zero_method", ZERO_METHODS)
    n_resamples = _check_n_resamples(n_resamples)
    confidence = _check_fraction(confidence, "confidence")
    seed = _check_seed(seed)
    effective_n_threads(n_threads)
    return n_resamples, confidence, seed
