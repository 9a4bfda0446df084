"""The options of the significance tests: their allowed values, their checks, and seeds.

Shared by :func:`~rankwise.compare`, :func:`~rankwise.compare_systems` and the command line
(``rankwise compare``): every option is checked before any work, with an error naming it.
"""
from __future__ import annotations

import secrets
from collections.abc import Sequence

import numpy as np

from .._core.parallel import effective_n_threads
from .._core.validation import check_choice

__all__ = ["ALTERNATIVES", "CI_METHODS", "CORRECTIONS", "MAX_RESAMPLES", "TESTS", "ZERO_METHODS"]

TESTS = ("randomization", "t", "wilcoxon", "sign", "bootstrap")
ALTERNATIVES = ("two-sided", "greater", "less")
CORRECTIONS = ("holm", "bonferroni", "bh", "by")
CI_METHODS = ("bca", "percentile", "basic")
ZERO_METHODS = ("wilcox", "pratt", "zsplit")
_ON_MISSING = ("error", "intersect")
_NAN_POLICIES = ("raise", "omit")
_FAMILIES = ("metric", "all")
# Most resamples (or exactly enumerated sign patterns) of one test. The distribution is
# returned, one float64 per resample: 8 GiB at the bound (a bootstrap interval sorts a copy of
# it), and p = (b + 1) / (N + 1) then resolves 1e-9, below any threshold a correction of a
# realistic family asks for. compare_systems keeps every comparison's distribution: the bound
# holds for their total.
MAX_RESAMPLES = 2**30
# Seeds: the kernel's two 64-bit keys hold 128 bits, as numpy's fresh entropy does.
_SEED_LIMIT = 2**128


def _choice(value: object, name: str, choices: Sequence[str]) -> str:
    """``value`` if it is one of the names ``choices``: TypeError for a non-str, ValueError otherwise."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, one of {', '.join(map(repr, choices))}, got {value!r}")
    if value not in choices and value.lower() in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}, got {value!r}; did you "
                         f"mean {value.lower()!r}?")
    return check_choice(value, name, choices)


def _check_n_resamples(value: object) -> int:
    allowed = f"an integer from 1 to 2**30 ({MAX_RESAMPLES:,})"
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"n_resamples must be {allowed}, got {value!r}")
    if not 1 <= value <= MAX_RESAMPLES:
        raise ValueError(f"n_resamples must be {allowed}, got {value!r}")
    return int(value)


def _check_fraction(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a number in (0, 1), got {value!r}")
    if not 0 < value < 1:  # int or float, compared exactly (NaN fails)
        raise ValueError(f"{name} must be in (0, 1), got {value!r}")
    return float(value)


def _check_seed(seed: object) -> int | None:
    """The seed as an int, or None: an integer in [0, 2**128)."""
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        hint = ""
        if isinstance(seed, (np.random.Generator, np.random.RandomState, np.random.SeedSequence)):
            hint = " (draw one from a Generator: seed=int(rng.integers(2**63)))"
        raise TypeError(f"seed must be an integer from 0 to 2**128 - 1 or None, got {seed!r}{hint}")
    if not 0 <= seed < _SEED_LIMIT:
        raise ValueError(f"seed must be an integer from 0 to 2**128 - 1 or None, got {seed!r}")
    return int(seed)


def _resolve_seed(seed: object) -> tuple[int, int, int]:
    """(seed as an int, two 64-bit kernel keys); None draws fresh entropy (128 bits)."""
    seed = _check_seed(seed)
    if seed is None:
        seed = secrets.randbits(128)  # what np.random.SeedSequence() draws
    key0, key1 = np.random.SeedSequence(seed).generate_state(2, dtype=np.uint64).tolist()
    return seed, key0, key1


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
