"""Reference rank fusion, written plainly over dicts: ``{query: {doc: score}}`` per run.

The definitions of ``rankwise.fuse`` (ranx's, with rankwise's choices where ranx has none):
each run's documents of a query are ranked by score descending, then document id
descending (compared as UTF-8 bytes, as trec_eval does); the top ``depth`` are kept; scores
are normalised per query and run (denominators at least 1e-9, as ranx); each document's
values over the runs that retrieved it are combined: RRF sum w / (k + rank), CombSUM
sum w s, CombMNZ (sum s) (sum w), CombMAX / MIN / MED the max / min / median of s.
"""
from __future__ import annotations

import math
import statistics

__all__ = ["fuse"]

_FLOOR = 1e-9


def _ranked(scores: dict) -> list:
    return sorted(scores, key=lambda d: (-scores[d], [-b for b in str(d).encode()] + [1]))


def _normalised(values: list, norm: str | None) -> list:
    if norm in (None, "none"):
        return list(values)
    low, high, n = min(values), max(values), len(values)
    if norm == "min-max":
        return [(v - low) / max(high - low, _FLOOR) for v in values]
    if norm == "z-score":
        mean = math.fsum(values) / n
        sd = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / n)
        return [(v - mean) / max(sd, _FLOOR) for v in values]
    if norm == "sum":
        return [(v - low) / max(math.fsum(values) - low * n, _FLOOR) for v in values]
    if norm == "max":
        return [v / max(high, _FLOOR) for v in values]
    raise ValueError(norm)


def _combine(method: str, values: list, weights: list) -> float:
    if method == "rrf" or method == "sum":
        return math.fsum(w * v for v, w in zip(values, weights, strict=True))
    if method == "mnz":
        return math.fsum(values) * math.fsum(weights)
    if method == "max":
        return max(values)
    if method == "min":
        return min(values)
    if method == "med":
        return statistics.median(values)
    raise ValueError(method)


def fuse(runs: list, method: str = "rrf", *, norm: str | None = None, weights: list | None = None,
         k: float = 60, depth: int | None = None) -> dict:
    """``{query: {doc: fused score}}`` of the runs (each ``{query: {doc: score}}``)."""
    weights = [1.0] * len(runs) if weights is None else list(weights)
    contributions: dict = {}
    for run, weight in zip(runs, weights, strict=True):
        for query, scores in run.items():
            ranked = _ranked(scores)[:depth]
            values = _normalised([scores[d] for d in ranked], norm)
            for rank, (doc, value) in enumerate(zip(ranked, values, strict=True), start=1):
                value = 1 / (k + rank) if method == "rrf" else value
                contributions.setdefault(query, {}).setdefault(doc, []).append((value, weight))
    return {query: {doc: _combine(method, [v for v, _ in pairs], [w for _, w in pairs])
                    for doc, pairs in docs.items()} for query, docs in contributions.items()}
