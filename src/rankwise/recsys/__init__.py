"""Recommender-system evaluation: top-k lists of item ids against users' held-out items."""
from .evaluation import evaluate_topk

__all__ = ["evaluate_topk"]
