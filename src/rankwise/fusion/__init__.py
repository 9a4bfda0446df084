"""Rank fusion: several runs (or score arrays) combined into one ranking, as ranx defines it."""
from .fuse import fuse, fuse_scores

__all__ = ["fuse", "fuse_scores"]
