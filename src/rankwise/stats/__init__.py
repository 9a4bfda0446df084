"""Significance tests between systems: paired tests, Mann-Whitney, corrections, reports."""
from .significance import (
    ComparisonReport,
    ComparisonResult,
    MannWhitneyResult,
    compare,
    compare_systems,
    correct,
    mann_whitney,
)

__all__ = ["ComparisonReport", "ComparisonResult", "MannWhitneyResult", "compare", "compare_systems",
           "correct", "mann_whitney"]
