"""rankwise: exact, fast ranking-evaluation metrics with explicit tie handling.

>>> import rankwise as rw
>>> rw.evaluate([[0, 1, 0]], [[0.2, 0.7, 0.7]], ["MRR", "nDCG@2"]).mean()
{'MRR': 0.75, 'nDCG@2': 0.8154648767857288}
"""
from ._core.bootstrap import MeanInterval
from ._core.results import Results
from .agreement import agreement, system_agreement
from .diversity import evaluate_diversity
from .fusion import fuse, fuse_scores
from .lists import (
    Accumulator,
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
from .ranks import RankBuilder, Ranks, rank_metrics, rank_positive
from .recsys import beyond_accuracy, evaluate_topk, top_k
from .stats import (
    ComparisonReport,
    ComparisonResult,
    MannWhitneyResult,
    compare,
    compare_systems,
    correct,
    mann_whitney,
)
from .trec import Qrels, Run, TrecResults, trec_eval

__version__ = "0.1.0"

__all__ = [
    "Accumulator",
    "ComparisonReport",
    "ComparisonResult",
    "MannWhitneyResult",
    "MeanInterval",
    "Qrels",
    "RankBuilder",
    "Ranks",
    "Results",
    "Run",
    "TrecResults",
    "agreement",
    "average_precision",
    "beyond_accuracy",
    "compare",
    "compare_systems",
    "correct",
    "dcg",
    "err",
    "evaluate",
    "evaluate_diversity",
    "evaluate_topk",
    "fuse",
    "fuse_scores",
    "hit_rate",
    "mann_whitney",
    "ndcg",
    "precision",
    "rank_metrics",
    "rank_positive",
    "r_precision",
    "rbp",
    "recall",
    "reciprocal_rank",
    "system_agreement",
    "top_k",
    "trec_eval",
    "__version__",
]
