"""Recommender-system evaluation: (users x items) score matrices and top-k lists of item ids
against users' held-out items."""
from .evaluation import evaluate_topk
from .select import top_k

__all__ = ["evaluate_topk", "top_k"]
