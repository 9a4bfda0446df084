"""Rank metrics: the rank of one positive among many candidates, and metrics over such ranks."""
from .metrics import rank_metrics
from .positive import RankBuilder, Ranks, rank_positive

__all__ = ["RankBuilder", "Ranks", "rank_metrics", "rank_positive"]
