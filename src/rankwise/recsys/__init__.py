"""Recommender-system evaluation: (users x items) score matrices and top-k lists of item ids
against users' held-out items, and beyond-accuracy metrics of the lists."""
from .beyond import beyond_accuracy
from .evaluation import evaluate_topk
from .select import top_k

__all__ = ["beyond_accuracy", "evaluate_topk", "top_k"]
