"""The "agreement" workload of bench.py (opt-in): rw.agreement against scipy.stats.kendalltau
and the rbo package, on the same score arrays.

Two score matrices of ``--agreement-queries`` queries x ``--agreement-docs`` items (the
second a noisy copy of the first, scores rounded so that ties occur). scipy's kendalltau
(tau-b) and weightedtau-free loops over the queries; the rbo package's ``rbo_ext`` over the
rankings (sampled: it is pure Python, its time extrapolated). Values checked on every
query (tau-b) and on the sample (RBO).
"""
from __future__ import annotations

import numpy as np

import rankwise as rw

RBO_SAMPLE = 200


def add_arguments(parser) -> None:
    parser.add_argument("--agreement-queries", type=int, default=10_000, help="agreement: queries")
    parser.add_argument("--agreement-docs", type=int, default=1_000, help="agreement: items per query")


def make_scores(n_queries: int, n_docs: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = np.round(rng.random((n_queries, n_docs)), 3)
    b = np.round(a + rng.normal(0, 0.2, a.shape), 3)
    return a, b


def _rankings(x: np.ndarray) -> list[list[int]]:
    return [np.lexsort((np.arange(row.size), -row)).tolist() for row in x]


def agreement_cases(Impl, args, a, b, thread_counts):
    """[(label, implementations, {name: factor} for sampled ones)] and the peers missing."""
    from scipy.stats import kendalltau

    missing = []
    floor = Impl("floor: a.max() + b.max()", lambda: (a.max(), b.max()), "yardstick")
    want = np.array([kendalltau(x, y).statistic for x, y in zip(a, b, strict=True)])

    def check_tau(res):
        if not np.allclose(res["tau_b"], want, rtol=1e-12, atol=1e-12):
            raise AssertionError("tau_b differs from scipy.stats.kendalltau")

    tau = [floor, Impl("scipy.stats.kendalltau per query", lambda: [kendalltau(x, y).statistic
                                                                    for x, y in zip(a, b, strict=True)])]
    for t in thread_counts:
        tau.append(Impl(f"rankwise agreement tau_b, {t} thread{'s' if t > 1 else ''}",
                        lambda t=t: rw.agreement(a, b, ["tau_b"], n_threads=t), "rankwise", check_tau,
                        f"{t}T"))
    cases = [("tau-b", tau, {})]
    try:
        import rbo
    except ImportError:
        missing.append("rbo")
        return cases, missing
    sample = min(RBO_SAMPLE, a.shape[0])
    ra, rb = _rankings(a[:sample]), _rankings(b[:sample])
    theirs = np.array([rbo.RankingSimilarity(x, y).rbo_ext(p=0.98) for x, y in zip(ra, rb, strict=True)])

    def check_rbo(res):
        if not np.allclose(res["RBO(p=0.98)"][:sample], theirs, rtol=1e-9):
            raise AssertionError("RBO differs from the rbo package")

    name = f"rbo package rbo_ext (extrapolated from {sample} queries)"
    rbo_impls = [floor, Impl(name, lambda: [rbo.RankingSimilarity(x, y).rbo_ext(p=0.98)
                                            for x, y in zip(_rankings(a[:sample]), _rankings(b[:sample]),
                                                            strict=True)])]
    for t in thread_counts:
        rbo_impls.append(Impl(f"rankwise agreement RBO(p=0.98), {t} thread{'s' if t > 1 else ''}",
                              lambda t=t: rw.agreement(a, b, ["RBO(p=0.98)"], n_threads=t), "rankwise",
                              check_rbo, f"{t}T"))
    cases.append(("RBO", rbo_impls, {name: a.shape[0] / sample}))
    return cases, missing
