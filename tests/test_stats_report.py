"""rw.correct against scipy/statsmodels definitions, and rw.compare_systems with its report."""
import csv
import io

import numpy as np
import pytest
import scipy.stats as st

import rankwise as rw
from rankwise.trec import read_example

# --------------------------------------------------------------------------------------
# correct
# --------------------------------------------------------------------------------------


def holm_by_definition(p):
    """p~_(i) = max over j <= i of min(1, (m - j + 1) p_(j)), back in input order."""
    m, order = len(p), np.argsort(p, kind="stable")
    out = np.empty(m)
    running = 0.0
    for i, k in enumerate(order):
        running = max(running, min(1.0, (m - i) * p[k]))
        out[k] = running
    return out


@pytest.mark.parametrize("m", [1, 2, 5, 37, 500])
def test_corrections_match_references(m, rng):
    p = rng.random(m) ** 3
    p[: m // 4] = p[m // 2 : m // 2 + m // 4]         # repeated p-values
    np.testing.assert_allclose(rw.correct(p, "bh"), st.false_discovery_control(p, method="bh"), rtol=1e-13)
    np.testing.assert_allclose(rw.correct(p, "by"), st.false_discovery_control(p, method="by"), rtol=1e-13)
    np.testing.assert_allclose(rw.correct(p, "bonferroni"), np.minimum(m * p, 1), rtol=1e-15)
    np.testing.assert_allclose(rw.correct(p, "holm"), holm_by_definition(p), rtol=1e-15)


@pytest.mark.parametrize("method, theirs", [("holm", "holm"), ("bonferroni", "bonferroni"), ("bh", "fdr_bh"),
                                            ("by", "fdr_by")])
def test_corrections_match_statsmodels(method, theirs, rng):
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    p = rng.random(60) ** 2
    np.testing.assert_allclose(rw.correct(p, method), multitest.multipletests(p, method=theirs)[1], rtol=1e-12)


@pytest.mark.parametrize("method", ["holm", "bonferroni", "bh", "by"])
def test_corrections_are_monotone_and_bounded(method, rng):
    p = rng.random(200) ** 4
    adjusted = rw.correct(p, method)
    order = np.argsort(p)
    assert np.all(np.diff(adjusted[order]) >= 0)
    assert np.all(adjusted >= p) and np.all(adjusted <= 1)
    assert adjusted.dtype == np.float64


def test_correct_shapes_and_edges():
    assert rw.correct([], "holm").shape == (0,)
    grid = np.array([[0.01, 0.2], [0.03, 0.5]])
    np.testing.assert_allclose(rw.correct(grid, "bonferroni"), [[0.04, 0.8], [0.12, 1.0]])
    np.testing.assert_array_equal(rw.correct([0.0, 1.0], "holm"), [0.0, 1.0])


@pytest.mark.parametrize("pvalues, error, message", [
    ([0.1, np.nan], ValueError, "pvalues has NaN at position 1"),
    ([0.1, 1.2], ValueError, r"pvalues must lie in \[0, 1\], got 1.2"),
    ([-0.1], ValueError, "must lie in"),
    (["a"], TypeError, "pvalues must be numbers"),
])
def test_correct_rejects_bad_pvalues(pvalues, error, message):
    with pytest.raises(error, match=message):
        rw.correct(pvalues, "bh")


def test_correct_rejects_unknown_method():
    with pytest.raises(ValueError, match="method must be one of 'holm', 'bonferroni', 'bh', 'by'"):
        rw.correct([0.1], "fdr")


# --------------------------------------------------------------------------------------
# compare_systems
# --------------------------------------------------------------------------------------

@pytest.fixture
def three_systems(rng):
    n = 60
    y_true = rng.integers(0, 2, (n, 20))
    y_true[:, 0] = 1
    base = rng.random((n, 20))
    systems = {
        "bm25": rw.evaluate(y_true, base, ["MAP", "nDCG@10"]),
        "dense": rw.evaluate(y_true, base + 0.6 * y_true * rng.random((n, 20)), ["MAP", "nDCG@10"]),
        "noise": rw.evaluate(y_true, base + 0.01 * rng.random((n, 20)), ["MAP", "nDCG@10"]),
    }
    return systems


def test_against_a_baseline(three_systems):
    report = rw.compare_systems(three_systems, metrics=["MAP", "nDCG@10"], baseline="bm25", seed=3)
    assert report.systems == ("bm25", "dense", "noise") and report.metrics == ("MAP", "nDCG@10")
    assert [(c.metric, c.system, c.other) for c in report.comparisons] == [
        ("MAP", "dense", "bm25"), ("MAP", "noise", "bm25"), ("nDCG@10", "dense", "bm25"), ("nDCG@10", "noise", "bm25")]
    for c in report.comparisons:
        a, b = three_systems[c.system][c.metric], three_systems[c.other][c.metric]
        direct = rw.compare(a, b, seed=3)
        assert c.result.pvalue == direct.pvalue
        np.testing.assert_array_equal(c.result.distribution, direct.distribution)
        d = np.round(a - b, 12)
        assert (c.wins, c.ties, c.losses) == (np.sum(d > 0), np.sum(d == 0), np.sum(d < 0))
        assert report.means[c.metric][c.system] == pytest.approx(np.mean(a))
    for metric in report.metrics:
        rows = [c for c in report.comparisons if c.metric == metric]
        adjusted = rw.correct([c.result.pvalue for c in rows], "holm")
        assert [c.p_adjusted for c in rows] == adjusted.tolist()
        assert [c.significant for c in rows] == (adjusted < 0.05).tolist()
    dense = next(c for c in report.comparisons if c.system == "dense" and c.metric == "MAP")
    assert dense.significant and dense.wins > dense.losses
    assert report.n_queries == {"MAP": 60, "nDCG@10": 60}
    assert report.seed == 3 and report.test == "randomization" and report.correction == "holm"


def test_all_pairs_and_family_all(three_systems):
    report = rw.compare_systems(three_systems, metrics=["MAP"], test="t", correction="bonferroni", family="all")
    assert report.baseline is None
    assert [(c.system, c.other) for c in report.comparisons] == [("bm25", "dense"), ("bm25", "noise"),
                                                                 ("dense", "noise")]
    raw = [c.result.pvalue for c in report.comparisons]
    assert [c.p_adjusted for c in report.comparisons] == rw.correct(raw, "bonferroni").tolist()
    both = rw.compare_systems(three_systems, metrics=["MAP", "nDCG@10"], test="t", correction="holm", family="all")
    raw = [c.result.pvalue for c in both.comparisons]
    assert [c.p_adjusted for c in both.comparisons] == rw.correct(raw, "holm").tolist()
    assert both.seed is None


def test_no_correction_keeps_raw_p(three_systems):
    report = rw.compare_systems(three_systems, metrics=["MAP"], test="sign", correction=None, alpha=0.2)
    assert all(c.p_adjusted == c.result.pvalue for c in report.comparisons)
    assert all(c.significant == (c.result.pvalue < 0.2) for c in report.comparisons)


def test_default_metrics_of_results(three_systems):
    assert rw.compare_systems(three_systems, test="t").metrics == ("MAP", "nDCG@10")


def test_trec_runs_with_qrels():
    qrels, run = read_example()
    second = rw.Run.read(rw.__path__[0] + "/data/example2.run")
    report = rw.compare_systems([run, second], qrels, ["map", "P.5,10"], baseline="example")
    assert report.systems == ("example", "example2")
    assert report.metrics == ("map", "P_5", "P_10")
    for c in report.comparisons:
        a = rw.trec_eval(qrels, second, ["map", "P.5,10"])
        b = rw.trec_eval(qrels, run, ["map", "P.5,10"])
        assert c.result.n == 10 and c.result.exact
        assert c.result.pvalue == rw.compare(a, b, metric=c.metric).pvalue
        assert report.means[c.metric]["example2"] == pytest.approx(a.mean()[c.metric])
    # Default measures; complete=True adds the qrels-only topic (score 0 for both).
    default = rw.compare_systems({"one": run, "two": second}, qrels)
    assert default.metrics == ("map", "recip_rank", "P_10", "ndcg_cut_10")
    assert rw.compare_systems({"one": run, "two": second}, qrels, complete=True).n_queries["map"] == 11


def test_systems_covering_different_queries():
    qrels, run = read_example()
    res = rw.trec_eval(qrels, run, ["map"])
    complete = rw.trec_eval(qrels, run, ["map"], complete=True)
    with pytest.raises(ValueError, match="different queries.*'411'"):
        rw.compare_systems({"a": res, "b": complete}, metrics=["map"])
    report = rw.compare_systems({"a": res, "b": complete}, metrics=["map"], on_missing="intersect")
    assert report.n_queries == {"map": 10} and report.comparisons[0].result.pvalue == 1.0


def test_nan_policy_in_reports(rng):
    y_true = [[1, 0, 0], [0, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0]]
    systems = {name: rw.evaluate(y_true, rng.random((5, 3)), ["MRR"], empty="skip") for name in ("x", "y")}
    with pytest.raises(ValueError, match="NaN"):
        rw.compare_systems(systems)
    report = rw.compare_systems(systems, nan_policy="omit")
    assert report.n_queries == {"MRR": 4}


def test_report_layouts(three_systems):
    pytest.importorskip("pandas")
    report = rw.compare_systems(three_systems, metrics=["MAP", "nDCG@10"], baseline="bm25", seed=1)
    text = repr(report)
    assert text == report.to_text() == str(report)
    assert "against baseline bm25" in text and "10,000 random sign patterns, seed 1" in text
    assert "bm25 (baseline)" in text and "*: p adjusted (Holm" in text
    marked = [c for c in report.comparisons if c.significant]
    assert marked
    for c in marked:
        assert f"{report.means[c.metric][c.system]:.4f}*" in text
    md = report.to_markdown()
    assert "| system | MAP | nDCG@10 |" in md and "|:---|---:|---:|" in md
    assert rf"{report.means[marked[0].metric][marked[0].system]:.4f}\*" in md
    latex = report.to_latex()
    assert r"\begin{tabular}{lrr}" in latex and r"\toprule" in latex and r"\end{tabular}" in latex
    assert "$^{*}$" in latex and r"bm25 (baseline) & " in latex
    frame = report.to_pandas()
    assert list(frame.columns) == list(rw.stats.RECORD_FIELDS)
    assert len(frame) == 4
    assert frame["p_adjusted"].tolist() == [c.p_adjusted for c in report.comparisons]
    rows = list(csv.DictReader(io.StringIO(report.to_csv())))
    assert [float(r["p_value"]) for r in rows] == frame["p_value"].tolist()
    assert [int(r["wins"]) for r in rows] == frame["wins"].tolist()
    assert float(rows[0]["mean"]) == frame["mean"][0]


def test_all_pairs_marks_name_the_beaten_system(three_systems):
    report = rw.compare_systems(three_systems, metrics=["MAP"], test="t")
    dense_vs = [c for c in report.comparisons if "dense" in (c.system, c.other) and c.significant]
    assert len(dense_vs) == 2          # dense beats bm25 (a) and noise (c)
    text = report.to_text()
    assert "(a) bm25" in text and "(b) dense" in text and "(c) noise" in text
    assert f"{report.means['MAP']['dense']:.4f}^ac" in text
    assert f"{report.means['MAP']['dense']:.4f}<sup>ac</sup>" in report.to_markdown()
    assert f"{report.means['MAP']['dense']:.4f}$^{{ac}}$" in report.to_latex()
    assert "letters: the mean is higher than that system's" in text


def test_latex_escapes_names(rng):
    y_true = rng.integers(0, 2, (10, 5))
    systems = {"bm25_rm3 & co": rw.evaluate(y_true, rng.random((10, 5)), ["P@1"]),
               "50%": rw.evaluate(y_true, rng.random((10, 5)), ["P@1"])}
    latex = rw.compare_systems(systems, test="t").to_latex()
    assert r"bm25\_rm3 \& co" in latex and r"50\%" in latex


@pytest.mark.parametrize("kwargs, error, message", [
    ({"baseline": "tfidf"}, ValueError, r"baseline 'tfidf' is not one of the systems \(bm25, dense, noise\)"),
    ({"correction": "fdr"}, ValueError, "correction must be one of"),
    ({"family": "everything"}, ValueError, "family must be one of"),
    ({"alpha": 5}, ValueError, r"alpha must be in \(0, 1\)"),
    ({"test": "anova"}, ValueError, "test must be one of"),
    ({"metrics": ["MRR"]}, ValueError, "has no metric 'MRR'"),
])
def test_compare_systems_bad_arguments(three_systems, kwargs, error, message):
    with pytest.raises(error, match=message):
        rw.compare_systems(three_systems, **kwargs)


def test_compare_systems_bad_systems(three_systems):
    qrels, run = read_example()
    with pytest.raises(ValueError, match="at least 2 systems, got 1"):
        rw.compare_systems({"bm25": three_systems["bm25"]})
    with pytest.raises(TypeError, match="system 'x' is a Run: pass qrels"):
        rw.compare_systems({"x": run, "y": run})
    with pytest.raises(ValueError, match="system names must be unique"):
        rw.compare_systems([run, run], qrels)
    with pytest.raises(TypeError, match="pass a dict name -> system for Results"):
        rw.compare_systems([three_systems["bm25"], three_systems["dense"]])
    with pytest.raises(TypeError, match="system 'x' must be Results, TrecResults or a Run, got list"):
        rw.compare_systems({"x": [0.1, 0.2], "y": [0.2, 0.3]})
    with pytest.raises(TypeError, match="runs must be a dict"):
        rw.compare_systems(run, qrels)
