"""Novelty and diversity measures over subtopic qrels, as TREC's ndeval computes them."""
from .evaluation import evaluate_diversity

__all__ = ["evaluate_diversity"]
