"""Recommender-system evaluation: (users x items) score matrices and top-k lists."""
from .beyond import beyond_accuracy
from .select import top_k

__all__ = ["beyond_accuracy", "top_k"]
