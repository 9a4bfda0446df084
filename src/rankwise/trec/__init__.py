"""TREC: Qrels and Run, their files, and trec_eval's measures with trec_eval's semantics."""
from .evaluation import Qrels, Run, TrecResults, read_example, trec_eval

__all__ = ["Qrels", "Run", "TrecResults", "read_example", "trec_eval"]
