"""The "fusion" workload of bench.py (opt-in): rw.fuse against ranx.fuse on the same runs.

Three runs of ``--fusion-queries`` queries, each retrieving ``--fusion-docs`` documents
from a pool of 2x that many per query (so runs overlap by about half), scores from three
different distributions, generated as NumPy arrays (integer query and document ids). Each
implementation starts from those arrays: rankwise builds its Runs (``Run.from_arrays``),
ranx its Runs from dicts (the conversion is timed, as everywhere in bench.py, and a second
row times ``ranx.fuse`` alone on Runs built beforehand). Fused values are checked against
ranx's on every query. Methods: RRF, CombSUM with min-max, CombMNZ with z-score (ranx's
``zmuv``).
"""
from __future__ import annotations

import numpy as np

import rankwise as rw

CASES = (("rrf", None, "rrf", None), ("sum", "min-max", "sum", "min-max"), ("mnz", "z-score", "mnz", "zmuv"))


def add_arguments(parser) -> None:
    parser.add_argument("--fusion-queries", type=int, default=5_000, help="fusion: queries per run")
    parser.add_argument("--fusion-docs", type=int, default=200, help="fusion: documents per query and run")


def make_runs(n_queries: int, n_docs: int, seed: int) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(seed)
    runs = []
    for r in range(3):
        docs = np.argsort(rng.random((n_queries, 2 * n_docs)), axis=1)[:, :n_docs]
        scores = [rng.normal(10, 3, docs.shape), rng.random(docs.shape), rng.exponential(2, docs.shape)][r]
        queries = np.repeat(np.arange(n_queries, dtype=np.int64), n_docs)
        runs.append((queries, docs.ravel().astype(np.int64), scores.ravel()))
    return runs


def _ranx_runs(ranx, runs):
    out = []
    for queries, docs, scores in runs:
        mapping: dict = {}
        for q, d, s in zip(queries.tolist(), docs.tolist(), scores.tolist(), strict=True):
            mapping.setdefault(str(q), {})[str(d)] = s
        out.append(ranx.Run(mapping))
    return out


def _check(ranx_fused, ours: rw.Run) -> None:
    theirs = ranx_fused.to_dict()
    mine = ours.to_dict()
    for q in list(theirs)[:: max(1, len(theirs) // 200)]:
        for d, value in theirs[q].items():
            if not np.isclose(mine[q][d], value, rtol=1e-9, atol=1e-12):
                raise AssertionError(f"query {q}, doc {d}: rankwise {mine[q][d]!r}, ranx {value!r}")


def fusion_cases(Impl, args, runs, thread_counts):
    """[(label, implementations)] per method, and the peers missing."""
    cases, missing = [], []
    try:
        import ranx
    except ImportError:
        ranx = None
        missing.append("ranx")
    prebuilt = _ranx_runs(ranx, runs) if ranx is not None else None
    for method, norm, ranx_method, ranx_norm in CASES:
        label = method + (f" + {norm}" if norm else "")
        impls = [Impl("floor: each run's scores.max()", lambda: [s.max() for _, _, s in runs], "yardstick")]
        reference = None
        if ranx is not None:
            reference = ranx.fuse(prebuilt, norm=ranx_norm, method=ranx_method)
            impls.append(Impl(f"ranx.fuse {label} (Runs from the arrays)",
                              lambda m=ranx_method, n=ranx_norm: ranx.fuse(_ranx_runs(ranx, runs), norm=n,
                                                                           method=m)))
            impls.append(Impl(f"ranx.fuse {label} (Runs built beforehand)",
                              lambda m=ranx_method, n=ranx_norm: ranx.fuse(prebuilt, norm=n, method=m),
                              "competitor"))
        for t in thread_counts:
            impls.append(Impl(
                f"rankwise fuse {label}, {t} thread{'s' if t > 1 else ''}",
                lambda m=method, n=norm, t=t: rw.fuse([rw.Run.from_arrays(*r) for r in runs], m, norm=n,
                                                      n_threads=t),
                "rankwise", None if reference is None else (lambda fused, ref=reference: _check(ref, fused)),
                f"{t}T"))
        cases.append((label, impls))
    return cases, missing
