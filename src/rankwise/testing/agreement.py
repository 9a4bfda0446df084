"""Reference agreement measures between two rankings, written from their definitions.

Rankings are lists of items, best first; scores are dicts item -> score. Kendall's tau
counts the pairs directly; tau_AP (Yilmaz, Aslam and Robertson, SIGIR 2008) follows its
formula with exact fractions; RBO (Webber, Moffat and Zobel, TOIS 2010) takes the overlap
of the two top-d sets at every depth and applies eq. 32 (RBO_ext, lists of different
lengths) and, to both lists cut to the shorter length, eq. 11 (RBO_min) and eq. 30 (RBO_res).
"""
from __future__ import annotations

import math
from fractions import Fraction

__all__ = ["kendall_tau", "rbo", "tau_ap"]


def kendall_tau(x: list, y: list, variant: str = "b") -> float:
    """Kendall's tau-a or tau-b of two equally long lists of scores (NaN where undefined)."""
    n = len(x)
    concordant = discordant = ties_x = ties_y = 0
    for i in range(n):
        for j in range(i + 1, n):
            dx, dy = x[i] - x[j], y[i] - y[j]
            ties_x += dx == 0
            ties_y += dy == 0
            concordant += dx * dy > 0
            discordant += dx * dy < 0
    pairs = n * (n - 1) // 2
    if pairs == 0:
        return math.nan
    if variant == "a":
        return (concordant - discordant) / pairs
    if ties_x == pairs or ties_y == pairs:
        return math.nan
    return (concordant - discordant) / math.sqrt((pairs - ties_x) * (pairs - ties_y))


def tau_ap(ranking: list, reference: list) -> float:
    """tau_AP of ``ranking`` against ``reference`` over the items both hold."""
    shared = set(ranking) & set(reference)
    order = [item for item in ranking if item in shared]
    position = {item: i for i, item in enumerate(item for item in reference if item in shared)}
    n = len(order)
    if n < 2:
        return math.nan
    total = sum(Fraction(sum(position[order[j]] < position[order[i]] for j in range(i)), i) for i in range(1, n))
    return float(Fraction(2, n - 1) * total - 1)


def _overlap(a: list, b: list, d: int) -> int:
    return len(set(a[:d]) & set(b[:d]))


def rbo(a: list, b: list, p: float, form: str = "ext") -> float:
    """RBO of two rankings of distinct items: ``form`` "ext" (of the whole lists), or the
    bounds "min", "res", "max" of both lists cut to the shorter one's length."""
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    if form != "ext":
        long_ = long_[:len(short)]
    s, l = len(short), len(long_)
    if s == 0:
        return 1.0 if l == 0 else 0.0
    x = {d: _overlap(short, long_, d) for d in range(1, l + 1)}
    if form == "ext":
        head = sum(x[d] / d * p ** d for d in range(1, l + 1))
        tail = sum(x[s] * (d - s) / (s * d) * p ** d for d in range(s + 1, l + 1))
        return (1 - p) / p * (head + tail) + ((x[l] - x[s]) / l + x[s] / s) * p ** l
    low = (1 - p) / p * (sum((x[d] - x[s]) * p ** d / d for d in range(1, s + 1)) - x[s] * math.log(1 - p))
    if form == "min":
        return low
    f = l + s - x[l]
    sum1 = sum(p ** d / d for d in range(s + 1, f + 1))
    sum2 = sum(p ** d / d for d in range(l + 1, f + 1))
    sum3 = sum(p ** d / d for d in range(1, f + 1))
    res = p ** s + p ** l - p ** f - (1 - p) / p * (s * sum1 + l * sum2 + x[l] * (math.log(1 / (1 - p)) - sum3))
    return res if form == "res" else low + res
