"""Significance tests between systems.

Paired tests (:func:`compare`) in ``significance``, independent samples
(:func:`mann_whitney`) in ``independent``, corrections for multiple comparisons
(:func:`correct`) in ``correction``, many systems and their report
(:func:`compare_systems`) in ``report``; the inputs they share (reading and aligning
per-query values) in ``inputs``, their options in ``options``.
"""
from .correction import correct
from .independent import MannWhitneyResult, mann_whitney
from .report import ComparisonReport, compare_systems
from .significance import ComparisonResult, compare

__all__ = ["ComparisonReport", "ComparisonResult", "MannWhitneyResult", "compare", "compare_systems",
           "correct", "mann_whitney"]
