"""Recommender-system evaluation: (users x items) score matrices and top-k lists."""
from .select import top_k

__all__ = ["top_k"]
