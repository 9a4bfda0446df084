"""Per-list metrics: evaluate() and one function per metric, over dense, ragged or qid input."""
from .accumulator import Accumulator
from .evaluation import (
    average_precision,
    dcg,
    err,
    evaluate,
    hit_rate,
    ndcg,
    precision,
    r_precision,
    rbp,
    recall,
    reciprocal_rank,
)

__all__ = ["Accumulator", "average_precision", "dcg", "err", "evaluate", "hit_rate", "ndcg", "precision",
           "r_precision", "rbp", "recall", "reciprocal_rank"]
