"""ndeval, TREC's reference program for the diversity measures, transcribed into plain Python.

Source: ``ndeval.c``, version 4.5 (29 April 2013), by the TREC Web track organisers
(Charles Clarke et al.), as shipped with the track's evaluation tools
(https://trec.nist.gov/data/web10.html) and, unchanged, as ``src/ndeval.c`` of the PyPI
package pyndeval 0.0.8 (the copy read), whose ``pyndeval.ndeval`` the tests also compare with.
Each function below follows the C function it is named after: ``idealResult`` (the
greedy ideal ranking), ``computeDCG``, ``computeERR``, ``computeNRBP``, ``computeMAP``,
``computePrecision``, ``computeSTRecall`` and ``renormalize``. What differs, and why:

* ndeval keeps ``DEPTH = 20`` ranks; here any cutoff is taken (``k=None``: the whole run).
* ndeval leaves ERR-IA@1 and alpha-DCG@1 unnormalised (its normalising loops start at
  rank 2); here every rank is normalised alike (ndeval never prints rank 1).
* A topic without a relevant document scores 0 for every measure (ndeval's nNRBP is 0/0).
* The run is ordered by score descending, then docno descending (ndeval's
  ``-traditional``, trec_eval's order); ndeval's default reads the rank column instead.

Nothing of rankwise is imported: a topic is ``{subtopic: {docno: grade}}`` and a run
``{docno: score}``. A document is relevant to a subtopic when its grade is at least 1
(ndeval reads grades as 0 or 1, capping larger ones). Subtopics are taken in ndeval's
order (numbers ascending: it reads subtopic ids as numbers; other ids by their text).
"""
from __future__ import annotations

import math
from collections.abc import Mapping

__all__ = ["MEASURES", "ndeval_topic", "ranked"]

MEASURES = ("alpha_DCG", "alpha_nDCG", "ERR_IA", "nERR_IA", "NRBP", "nNRBP", "AP_IA", "P_IA", "StRecall")


def _subtopic_order(subtopic: str) -> tuple[int, int, bytes]:
    text = subtopic
    number = text.isascii() and text.isdigit() and (text == "0" or not text.startswith("0"))
    return (0, int(text), b"") if number else (1, 0, text.encode("utf-8"))


def _relevant(topic: Mapping[str, Mapping[str, float]]) -> dict[str, list[int]]:
    """Each relevant document's subtopics, as indices of the subtopics with a relevant document."""
    kept = sorted((s for s, grades in topic.items() if any(g >= 1 for g in grades.values())),
                  key=_subtopic_order)
    out: dict[str, list[int]] = {}
    for j, s in enumerate(kept):
        for doc, grade in topic[s].items():
            if grade >= 1:
                out.setdefault(doc, []).append(j)
    return out


def ranked(run: Mapping[str, float]) -> list[str]:
    """The run's documents by score descending, then docno descending (bytes)."""
    return sorted(run, key=lambda d: (-run[d], [-b for b in d.encode("utf-8")] + [1]))


def _gains(docs: list[list[int]], n_subtopics: int, alpha: float) -> list[float]:
    """The novelty-discounted gain of each rank: sum over its subtopics of (1 - alpha)^(times seen)."""
    gain = [1.0] * n_subtopics
    out = []
    for subtopics in docs:
        score = 0.0
        for j in subtopics:
            score += gain[j]
            gain[j] *= 1.0 - alpha
        out.append(score)
    return out


def _ideal(relevant: dict[str, list[int]], n_subtopics: int, alpha: float) -> list[list[int]]:
    """idealResult: greedily the document of most gain next, ties to the larger docno."""
    gain = [1.0] * n_subtopics
    left = dict(relevant)
    order = []
    while left:
        best, best_score = None, 0.0
        for doc, subtopics in left.items():
            score = 0.0
            for j in subtopics:
                score += gain[j]
            if best is None or score > best_score or (score == best_score and doc.encode() > best.encode()):
                best, best_score = doc, score
        assert best is not None
        for j in left[best]:
            gain[j] *= 1.0 - alpha
        order.append(left.pop(best))
    return order


def _discount(i: int) -> float:
    return math.log(2.0) / math.log(i + 2.0)


def _cumulative(gains: list[float], k: int, weight: object) -> float:
    return sum(gains[i] * weight(i) for i in range(min(k, len(gains))))  # type: ignore[operator]


def _ideal_ideal(n_subtopics: int, k: int, alpha: float, weight: object) -> float:
    return sum(n_subtopics * (1.0 - alpha) ** i * weight(i) for i in range(k))  # type: ignore[operator]


def ndeval_topic(topic: Mapping[str, Mapping[str, float]], run: Mapping[str, float], measure: str,
                 k: int | None = None, alpha: float = 0.5, beta: float = 0.5) -> float:
    """One measure of one topic as ndeval computes it; ``k`` None: the whole run (or no cutoff)."""
    relevant = _relevant(topic)
    n = len({j for subtopics in relevant.values() for j in subtopics})
    if n == 0:
        return 0.0
    docs = [relevant.get(d, []) for d in ranked(run)]
    depth = len(docs) if k is None else k
    gains = _gains(docs, n, alpha)
    if measure in ("alpha_DCG", "alpha_nDCG", "ERR_IA", "nERR_IA"):
        weight = _discount if "DCG" in measure else (lambda i: 1.0 / (i + 1))
        ideal_ideal = _ideal_ideal(n, depth, alpha, weight)
        value = _cumulative(gains, depth, weight) / ideal_ideal
        if measure in ("alpha_DCG", "ERR_IA") or value == 0:
            return value
        ideal = _gains(_ideal(relevant, n, alpha), n, alpha)
        return value / (_cumulative(ideal, depth, weight) / ideal_ideal)
    if measure in ("NRBP", "nNRBP"):
        value = _nrbp(gains, n, alpha, beta)
        return value if measure == "NRBP" else value / _nrbp(_gains(_ideal(relevant, n, alpha), n, alpha), n,
                                                             alpha, beta)
    if measure == "P_IA":
        return sum(len(s) for s in docs[:depth]) / (depth * n)
    if measure == "StRecall":
        return len({j for s in docs[:depth] for j in s}) / n
    if measure == "AP_IA":
        return _ap_ia(docs, relevant, n)
    raise ValueError(f"unknown measure {measure!r}")


def _nrbp(gains: list[float], n_subtopics: int, alpha: float, beta: float) -> float:
    total, decay = 0.0, 1.0
    for g in gains:
        total += g * decay
        decay *= beta
    return total * (1 - (1 - alpha) * beta) / n_subtopics


def _ap_ia(docs: list[list[int]], relevant: dict[str, list[int]], n_subtopics: int) -> float:
    """computeMAP's MAP-IA: each subtopic's average precision, averaged over subtopics."""
    per_subtopic = [0] * n_subtopics
    for subtopics in relevant.values():
        for j in subtopics:
            per_subtopic[j] += 1
    count = [0] * n_subtopics
    total = [0.0] * n_subtopics
    for i, subtopics in enumerate(docs):
        for j in subtopics:
            count[j] += 1
            total[j] += count[j] / (i + 1)
    return sum(total[j] / per_subtopic[j] for j in range(n_subtopics)) / n_subtopics
