"""rankwise.agreement and system_agreement against the plain reference (rankwise.testing.agreement),
scipy.stats.kendalltau and the rbo package."""
import math

import numpy as np
import pytest

import rankwise as rw
from rankwise.testing import agreement as ref

MEASURES = ["tau", "tau_b", "tau_ap", "RBO(p=0.9)", "RBO_min(p=0.8)", "RBO_res(p=0.8)", "RBO_max(p=0.95)"]


def _ranking(scores: dict) -> list:
    """Score descending, ties by id descending (byte-wise), as rankwise ranks a run."""
    return sorted(scores, key=lambda d: (-scores[d], [-b for b in d.encode()] + [1]))


def _reference(a: dict, b: dict, name: str) -> float:
    ra, rb = _ranking(a), _ranking(b)
    shared = [d for d in ra if d in b]
    if name in ("tau", "tau_b"):
        return ref.kendall_tau([a[d] for d in shared], [b[d] for d in shared], "a" if name == "tau" else "b")
    if name == "tau_ap":
        return ref.tau_ap(ra, rb)
    form = name.split("(")[0].split("_")[1].lower() if "_" in name.split("(")[0] else "ext"
    return ref.rbo(ra, rb, float(name.split("p=")[1].rstrip(")")), form)


def _runs(seed, n_queries=8):
    rng = np.random.default_rng(seed)
    a, b = {}, {}
    for q in range(n_queries):
        pool = [f"d{i}" for i in range(int(rng.integers(1, 30)))]
        a[f"q{q}"] = {d: float(rng.integers(0, 6)) for d in rng.choice(pool, int(rng.integers(1, len(pool) + 1)),
                                                                     replace=False)}
        b[f"q{q}"] = {d: float(rng.integers(0, 6)) for d in rng.choice(pool, int(rng.integers(1, len(pool) + 1)),
                                                                     replace=False)}
    return a, b


@pytest.mark.parametrize("seed", range(4))
def test_runs_equal_the_reference(seed):
    a, b = _runs(seed)
    res = rw.agreement(rw.Run.from_dict(a), rw.Run.from_dict(b), MEASURES)
    for i, q in enumerate(res.query_ids.tolist()):
        for name in MEASURES:
            want = _reference(a[q], b[q], name)
            got = res[name][i]
            assert (math.isnan(got) and math.isnan(want)) or got == pytest.approx(want, rel=1e-12, abs=1e-12), \
                (q, name)


def test_depth_cuts_both_rankings():
    a, b = _runs(7, n_queries=3)
    res = rw.agreement(rw.Run.from_dict(a), rw.Run.from_dict(b), ["RBO(p=0.9)@5", "tau_ap@5"])
    for i, q in enumerate(res.query_ids.tolist()):
        ra, rb = _ranking(a[q])[:5], _ranking(b[q])[:5]
        assert res["RBO(p=0.9)@5"][i] == pytest.approx(ref.rbo(ra, rb, 0.9), rel=1e-12)
        want = ref.tau_ap(ra, rb)
        assert (math.isnan(want) and math.isnan(res["tau_ap@5"][i])) or res["tau_ap@5"][i] == pytest.approx(want)


def test_tau_equals_scipy_and_rbo_the_rbo_package():
    scipy_stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(3)
    x, y = rng.integers(0, 6, (5, 40)).astype(float), rng.integers(0, 6, (5, 40)).astype(float)
    res = rw.agreement(x, y, ["tau_b"], n_threads=2)
    for i in range(5):
        assert res["tau_b"][i] == pytest.approx(scipy_stats.kendalltau(x[i], y[i]).statistic, rel=1e-12)
    rbo_package = pytest.importorskip("rbo")
    a, b = _runs(11, n_queries=5)
    res = rw.agreement(rw.Run.from_dict(a), rw.Run.from_dict(b), ["RBO(p=0.9)"])
    for i, q in enumerate(res.query_ids.tolist()):
        theirs = rbo_package.RankingSimilarity(_ranking(a[q]), _ranking(b[q])).rbo_ext(p=0.9)
        assert res["RBO(p=0.9)"][i] == pytest.approx(theirs, rel=1e-12)


def test_extremes_and_bounds():
    same = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}
    reverse = {"q": {"a": 1.0, "b": 2.0, "c": 3.0}}
    disjoint = {"q": {"x": 1.0, "y": 0.5}}
    res = rw.agreement(rw.Run.from_dict(same), rw.Run.from_dict(same), MEASURES)
    assert res["tau"][0] == res["tau_b"][0] == res["tau_ap"][0] == 1.0
    assert res["RBO(p=0.9)"][0] == pytest.approx(1.0)
    res = rw.agreement(rw.Run.from_dict(same), rw.Run.from_dict(reverse), ["tau", "tau_ap"])
    assert res["tau"][0] == res["tau_ap"][0] == -1.0
    res = rw.agreement(rw.Run.from_dict(same), rw.Run.from_dict(disjoint), ["RBO(p=0.9)", "tau_b"])
    assert res["RBO(p=0.9)"][0] == 0.0 and math.isnan(res["tau_b"][0])
    a, b = _runs(5)
    res = rw.agreement(rw.Run.from_dict(a), rw.Run.from_dict(b), ["RBO_min", "RBO", "RBO_max"])
    assert np.all(res["RBO_min"] <= res["RBO"] + 1e-12) and np.all(res["RBO"] <= res["RBO_max"] + 1e-12)


def test_system_agreement_and_inputs_unchanged():
    by_map = {"bm25": 0.21, "dense": 0.35, "hybrid": 0.38, "splade": 0.33}
    by_ndcg = {"bm25": 0.40, "dense": 0.52, "hybrid": 0.55, "splade": 0.56}
    got = rw.system_agreement(by_map, by_ndcg, ["tau_b", "tau_ap", "RBO(p=0.5)"])
    assert got["tau_b"] == pytest.approx(ref.kendall_tau(list(by_map.values()), [by_ndcg[s] for s in by_map]))
    assert got["tau_ap"] == pytest.approx(ref.tau_ap(_ranking(by_map), _ranking(by_ndcg)))
    assert got["RBO(p=0.5)"] == pytest.approx(ref.rbo(_ranking(by_map), _ranking(by_ndcg), 0.5))
    x = np.array([[3.0, 1.0, 2.0]])
    before = x.copy()
    rw.agreement(x, x[:, ::-1].copy(), ["tau"])
    np.testing.assert_array_equal(x, before)


@pytest.mark.parametrize("call, error, message", [
    (lambda: rw.agreement([1, 2], [1, 2], ["tauu"]), ValueError, "unknown agreement metric 'tauu'; did you mean"),
    (lambda: rw.agreement([1, 2], [1, 2], ["RBO(p=1.5)"]), ValueError, "p must be in \\(0, 1\\)"),
    (lambda: rw.agreement([1, 2], [1, 2], ["tau(p=0.5)"]), ValueError, "unknown parameter"),
    (lambda: rw.agreement([1, 2], [1, 2, 3], ["tau"]), ValueError, "same shape"),
    (lambda: rw.agreement([1, np.nan], [1, 2], ["tau"]), ValueError, "run_a contains NaN"),
    (lambda: rw.agreement(rw.Run.from_dict({"q": {"a": 1}}), [1], ["tau"]), TypeError, "both be Runs"),
    (lambda: rw.agreement(rw.Run.from_dict({"q": {"a": 1}}), rw.Run.from_dict({"r": {"a": 1}})), ValueError,
     "share no query"),
    (lambda: rw.system_agreement({"a": 1, "b": 2}, {"a": 1, "c": 2}), ValueError, "same systems"),
    (lambda: rw.system_agreement({"a": 1}, {"a": 1}), ValueError, "at least 2 systems"),
    (lambda: rw.system_agreement({"a": "x", "b": 1}, {"a": 1, "b": 2}), TypeError, "a\\['a'\\] must be a number"),
])
def test_bad_input_is_refused_by_name(call, error, message):
    with pytest.raises(error, match=message):
        call()
