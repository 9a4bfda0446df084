"""Recommender-system evaluation: (users x items) score matrices and top-k lists."""
from .beyond import beyond_accuracy

__all__ = ["beyond_accuracy"]
