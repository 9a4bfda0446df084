"""rankwise.fuse and fuse_scores against the plain reference (rankwise.testing.fusion) and ranx."""
import numpy as np
import pytest

import rankwise as rw
from rankwise.testing import fusion as ref

METHODS = ["rrf", "sum", "mnz", "max", "min", "med"]
NORMS = [None, "min-max", "z-score", "sum", "max"]


def _runs(seed, n_runs=3, n_queries=6, ties=True):
    rng = np.random.default_rng(seed)
    runs = []
    for _ in range(n_runs):
        run = {}
        for q in range(n_queries):
            if rng.random() < 0.15:
                continue                       # a query some runs lack
            docs = rng.choice(40, int(rng.integers(1, 15)), replace=False)
            values = rng.integers(0, 6, docs.size) / 2 if ties else rng.random(docs.size) * 10 - 3
            run[f"q{q}"] = {f"d{d}": float(v) for d, v in zip(docs, values, strict=True)}
        runs.append(run or {"q0": {"d0": 1.0}})
    return runs


def _close(got: dict, want: dict):
    assert got.keys() == want.keys()
    for query in want:
        assert got[query].keys() == want[query].keys(), query
        for doc, value in want[query].items():
            assert got[query][doc] == pytest.approx(value, rel=1e-12, abs=1e-12), (query, doc)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("norm", NORMS)
def test_fuse_equals_the_reference(method, norm):
    for seed in range(4):
        runs = _runs(seed)
        weights = None if method in ("max", "min", "med") or seed % 2 else [0.5, 2.0, 1.0]
        depth = None if seed < 2 else 4
        got = rw.fuse([rw.Run.from_dict(r) for r in runs], method, norm=norm, weights=weights, k=3, depth=depth)
        _close(got.to_dict(), ref.fuse(runs, method, norm=norm, weights=weights, k=3, depth=depth))


def test_fused_run_is_ranked_and_thread_independent():
    runs = [rw.Run.from_dict(r) for r in _runs(9, n_queries=40)]
    one = rw.fuse(runs, "mnz", norm="z-score", n_threads=1)
    two = rw.fuse(runs, "mnz", norm="z-score", n_threads=2)
    assert one.to_dict() == two.to_dict() and one.name == "fused"
    for scores in one.to_dict().values():
        values = list(scores.values())
        assert values == sorted(values, reverse=True)


def test_fuse_scores_equals_fuse_on_the_same_data():
    rng = np.random.default_rng(4)
    scores = rng.random((3, 5, 12))
    scores[rng.random(scores.shape) < 0.3] = np.nan
    before = scores.copy()
    for method in METHODS:
        fused = rw.fuse_scores(scores, method, norm="min-max")
        runs = [{f"q{q}": {f"{i:02d}": s for i, s in enumerate(row) if not np.isnan(s)}
                 for q, row in enumerate(run)} for run in scores]
        runs = [{q: d for q, d in run.items() if d} for run in runs]
        # items as zero-padded ids so that the array's order among ties (lower index first) is
        # trec_eval's (id descending) reversed: no ties here, so the values agree.
        want = ref.fuse(runs, method, norm="min-max")
        for q in range(5):
            for i in range(12):
                expected = want.get(f"q{q}", {}).get(f"{i:02d}", np.nan)
                assert fused[q, i] == pytest.approx(expected, rel=1e-12, nan_ok=True)
    np.testing.assert_array_equal(scores, before)


def test_equals_ranx():
    ranx = pytest.importorskip("ranx")
    runs = _runs(5, n_queries=8, ties=False)
    queries = set.intersection(*(set(r) for r in runs))
    runs = [{q: run[q] for q in sorted(queries)} for run in runs]          # ranx needs the same queries
    theirs_runs = [ranx.Run(r) for r in runs]
    for norm, ranx_norm in ((None, None), ("min-max", "min-max"), ("z-score", "zmuv"), ("sum", "sum"),
                            ("max", "max")):
        for method in ("sum", "mnz", "max", "min", "med"):
            theirs = ranx.fuse(theirs_runs, norm=ranx_norm, method=method).to_dict()
            _close(rw.fuse([rw.Run.from_dict(r) for r in runs], method, norm=norm).to_dict(), theirs)
        theirs = ranx.fuse(theirs_runs, norm=ranx_norm, method="wsum", params={"weights": [0.2, 0.5, 0.3]})
        ours = rw.fuse([rw.Run.from_dict(r) for r in runs], "wsum", norm=norm, weights=[0.2, 0.5, 0.3])
        _close(ours.to_dict(), theirs.to_dict())
    theirs = ranx.fuse(theirs_runs, norm=None, method="rrf", params={"k": 10}).to_dict()
    _close(rw.fuse([rw.Run.from_dict(r) for r in runs], "rrf", k=10).to_dict(), theirs)


@pytest.mark.parametrize("call, error, message", [
    (lambda r: rw.fuse(r[:1]), ValueError, "at least 2 runs"),
    (lambda r: rw.fuse(r, "combsumm"), ValueError, "did you mean 'combsum'"),
    (lambda r: rw.fuse(r, "sum", norm="minmaxx"), ValueError, "unknown norm \\(normalisation\\) 'minmaxx'"),
    (lambda r: rw.fuse(r, "max", weights=[1, 1]), ValueError, "weights do not apply to method='max'"),
    (lambda r: rw.fuse(r, weights=[1]), ValueError, "weights must have one value per query"),
    (lambda r: rw.fuse(r, weights=[1, -1]), ValueError, "weights must be finite numbers >= 0"),
    (lambda r: rw.fuse(r, k=-1), ValueError, "k must be a finite number >= 0"),
    (lambda r: rw.fuse(r, depth=0), ValueError, "depth must be None or an integer >= 1"),
    (lambda r: rw.fuse([r[0], {"q": {"d": 1}}]), TypeError, "not a rankwise.Run"),
    (lambda r: rw.fuse({"a": r[0], "b": r[1]}, weights={"c": 1}), ValueError, "weights names run 'c'"),
    (lambda r: rw.fuse_scores(np.zeros((2, 3))), ValueError, "shape \\(n_runs, n_queries, n_items\\)"),
])
def test_bad_input_is_refused_by_name(call, error, message):
    runs = [rw.Run.from_dict(r) for r in _runs(1, n_runs=2)]
    with pytest.raises(error, match=message):
        call(runs)


def test_non_finite_scores_cannot_be_normalised():
    runs = [rw.Run.from_dict({"q": {"a": np.inf, "b": 1.0}}), rw.Run.from_dict({"q": {"a": 1.0}})]
    with pytest.raises(ValueError, match=r"runs\['run0'\] has a score that is infinite"):
        rw.fuse(runs, "sum", norm="min-max")
    assert rw.fuse(runs, "sum").to_dict() == {"q": {"a": np.inf, "b": 1.0}}
