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
    (["a"], TypeError, r"pvalues must be an array-like of numbers in \[0, 1\].*got dtype <U1"),
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
    # The values compared are kept: the queries with a value, in order, read-only.
    for name, res in systems.items():
        kept = report.values["MRR"][name]
        assert kept.tolist() == res["MRR"][[0, 2, 3, 4]].tolist() and not kept.flags.writeable
        assert report.means["MRR"][name] == pytest.approx(np.mean(kept))


def test_report_keeps_the_values_of_the_queries_shared():
    qrels, run = read_example()
    res = rw.trec_eval(qrels, run, ["map", "P.5"])
    complete = rw.trec_eval(qrels, run, ["map", "P.5"], complete=True)
    report = rw.compare_systems({"a": res, "b": complete}, on_missing="intersect")
    shared = [i for i, q in enumerate(complete.query_ids) if q in set(res.query_ids.tolist())]
    for metric in ("map", "P_5"):
        assert report.values[metric]["a"].tolist() == res[metric].tolist()
        assert report.values[metric]["b"].tolist() == complete[metric][shared].tolist()


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
    assert list(frame.columns) == list(rw.stats.report.RECORD_FIELDS)
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


# --------------------------------------------------------------------------------------
# Every argument checked before any work (issue 21): exact type, message naming it
# --------------------------------------------------------------------------------------

PVALUES = r"pvalues must be an array-like of numbers in \[0, 1\] \(one family of p-values\)"


@pytest.mark.parametrize("pvalues, error, message", [
    (None, TypeError, PVALUES + ", got None$"),                   # was: "pvalues has NaN at position 0"
    ("0.1", TypeError, PVALUES + ", got '0.1'$"),                 # was: accepted as 0.1
    (b"0.1", TypeError, PVALUES + ", got b'0.1'$"),
    (np.array([0.1], dtype=object), TypeError, PVALUES + ", got dtype object$"),  # was: accepted
    ([0.1, None], TypeError, PVALUES + ", got dtype object$"),
    ([True, False], TypeError, PVALUES + ", got dtype bool$"),
    ([0.1, 1j], TypeError, PVALUES + ", got dtype complex128$"),
    ({"a": 0.1}, TypeError, PVALUES + ", got dtype object$"),
    ([[0.1], [0.2, 0.3]], ValueError, PVALUES + ", of one shape"),
    ([0.5, np.nan], ValueError, "pvalues has NaN at position 1; leave undefined comparisons out"),
    ([1.5], ValueError, r"pvalues must lie in \[0, 1\], got 1.5 at position 0"),
    ([-0.1], ValueError, r"pvalues must lie in \[0, 1\], got -0.1 at position 0"),
    ([0.1, np.inf], ValueError, r"pvalues must lie in \[0, 1\], got inf at position 1"),
    ([[0.1, 0.2], [0.3, 2]], ValueError, r"got 2.0 at index \(1, 1\)"),
    (2, ValueError, r"pvalues must lie in \[0, 1\], got 2.0 at position 0"),
    # Python ints beyond 64 bits are numbers (out of range), not objects of the wrong type
    ([0.1, 2**70], ValueError, r"pvalues must lie in \[0, 1\], got 1.1805916207174113e\+21 at position 1"),
    ([0.1, 10**400], ValueError, r"pvalues holds 100000000000\.\.\. \(an integer of 401 digits\) at "
                                 r"position 1, beyond the range of float64"),
])
def test_correct_names_pvalues(pvalues, error, message):
    with pytest.raises(error, match=message):
        rw.correct(pvalues)


@pytest.mark.parametrize("method, error, message", [
    (None, TypeError, "method must be a str, one of 'holm', 'bonferroni', 'bh', 'by', got None"),
    (5, TypeError, "method must be a str"),
    ("Holm", ValueError, "method must be one of .*got 'Holm'; did you mean 'holm'"),
    ("BH", ValueError, "method must be one of .*got 'BH'; did you mean 'bh'"),
    ("fdr_bh", ValueError, "method must be one of 'holm', 'bonferroni', 'bh', 'by', got 'fdr_bh'"),
])
def test_correct_names_method(method, error, message):
    with pytest.raises(error, match=message):
        rw.correct([0.1, 0.2], method)


@pytest.mark.parametrize("method", ["holm", "bonferroni", "bh", "by"])
def test_correct_small_families_and_shapes(method):
    assert rw.correct([], method).shape == (0,) and rw.correct([], method).dtype == np.float64
    assert rw.correct([[0.1]], method).tolist() == [[0.1]]       # a family of one is unchanged
    scalar = rw.correct(0.03, method)
    assert scalar.shape == () and float(scalar) == 0.03
    assert rw.correct(np.float32([0.5, 0.01]), method).dtype == np.float64
    np.testing.assert_array_equal(rw.correct([0, 1], method), rw.correct([0.0, 1.0], method))
    tiny = rw.correct([5e-324, 1e-300, 0.5], method)                 # subnormal p-values
    assert np.all(np.isfinite(tiny)) and tiny[0] >= 5e-324


@pytest.mark.parametrize("method, theirs", [("holm", "holm"), ("bonferroni", "bonferroni"), ("bh", "fdr_bh"),
                                            ("by", "fdr_by")])
def test_corrections_match_statsmodels_with_ties_and_extremes(method, theirs, rng):
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    p = np.concatenate([rng.random(30) ** 3, [0.0, 1.0, 1.0, 5e-324, 0.05, 0.05]])
    np.testing.assert_allclose(rw.correct(p, method), multitest.multipletests(p, method=theirs)[1], rtol=1e-12,
                               atol=0)


def test_compare_systems_metrics(three_systems):
    # Refused: an empty list used to mean the defaults, silently.
    with pytest.raises(ValueError, match="metrics must name at least one metric, got none; pass None"):
        rw.compare_systems(three_systems, metrics=[])
    with pytest.raises(TypeError, match=r"metrics must be a str, a list of str or None \(the default\), got int"):
        rw.compare_systems(three_systems, metrics=5)
    with pytest.raises(TypeError, match="metrics must be a str, a list of str or None .*got set"):
        rw.compare_systems(three_systems, metrics={"MAP"})
    with pytest.raises(TypeError, match=r"metrics must hold str \(metric names\), got 5 at position 1"):
        rw.compare_systems(three_systems, metrics=["MAP", 5])
    with pytest.raises(ValueError, match="metrics has 'MAP' twice"):
        rw.compare_systems(three_systems, metrics=["MAP", "nDCG@10", "MAP"])
    with pytest.raises(ValueError, match="system 'bm25' has no metric 'MRR'"):
        rw.compare_systems(three_systems, metrics=["MRR"])
    # A single name, a tuple, an array of str; None: every metric of the first system.
    assert rw.compare_systems(three_systems, metrics="MAP", test="t").metrics == ("MAP",)
    assert rw.compare_systems(three_systems, metrics=("nDCG@10",), test="t").metrics == ("nDCG@10",)
    assert rw.compare_systems(three_systems, metrics=np.array(["MAP"]), test="t").metrics == ("MAP",)
    assert rw.compare_systems(three_systems, metrics=None, test="t").metrics == ("MAP", "nDCG@10")


def test_compare_systems_metrics_of_runs():
    qrels, run = read_example()
    second = rw.Run.read(rw.__path__[0] + "/data/example2.run")
    with pytest.raises(ValueError, match="metrics must name at least one metric"):
        rw.compare_systems([run, second], qrels, [])
    with pytest.raises(TypeError, match="metrics must be a str, a list of str or None"):
        rw.compare_systems([run, second], qrels, 5)
    with pytest.raises(ValueError, match="unknown trec_eval measure 'mapp'"):
        rw.compare_systems([run, second], qrels, ["mapp"])
    assert rw.compare_systems([run, second], qrels, "map").metrics == ("map",)


@pytest.mark.parametrize("metrics, message", [
    (b"map", r"metrics must be a str, a list of str or None \(the default\), got bytes"),
    ({"map": 1}, r"metrics must be a str, a list of str or None \(the default\), got dict"),
    ([1], r"metrics must hold str \(metric names\), got 1 at position 0"),
    ([None], r"metrics must hold str \(metric names\), got None at position 0"),
    ([b"map"], r"metrics must hold str \(metric names\), got b'map' at position 0"),
])
def test_compare_systems_metrics_of_runs_of_the_wrong_type(metrics, message):
    # The argument is named (metrics), before any run is evaluated.
    qrels, run = read_example()
    with pytest.raises(TypeError, match=f"^{message}$"):
        rw.compare_systems({"x": run, "y": run}, qrels, metrics)


@pytest.mark.parametrize("kwargs, error, message", [
    ({"alpha": 0}, ValueError, r"alpha must be in \(0, 1\), got 0$"),
    ({"alpha": 1}, ValueError, r"alpha must be in \(0, 1\), got 1$"),
    ({"alpha": -0.05}, ValueError, r"alpha must be in \(0, 1\)"),
    ({"alpha": np.nan}, ValueError, r"alpha must be in \(0, 1\), got nan"),
    ({"alpha": "0.05"}, TypeError, r"alpha must be a number in \(0, 1\), got '0.05'"),
    ({"alpha": True}, TypeError, "alpha must be a number"),
    ({"correction": "Holm"}, ValueError, "correction must be one of .*did you mean 'holm'"),
    ({"correction": 5}, TypeError, "correction must be a str"),
    ({"family": None}, TypeError, "family must be a str"),
    ({"baseline": 5}, TypeError, r"baseline must be a system name \(a str\) or None, got 5"),
    ({"baseline": "BM25"}, ValueError, r"baseline 'BM25' is not one of the systems"),
    ({"seed": -1}, ValueError, r"seed must be an integer from 0 to 2\*\*128 - 1 or None, got -1"),
    ({"seed": -1, "test": "t"}, ValueError, "seed must be an integer"),
    ({"seed": "1"}, TypeError, "seed must be an integer"),
    ({"n_resamples": 0}, ValueError, "n_resamples must be an integer from 1 to 2"),
    ({"n_resamples": 2**29}, ValueError, r"n_resamples=536,870,912 for 6 comparisons keeps 3,221,225,472 "
                                         r"resampled means in the report, more than 2\*\*30; pass n_resamples "
                                         r"<= 178,956,970"),
    ({"n_resamples": 2**29, "test": "t"}, None, None),       # nothing is resampled: nothing kept
    ({"confidence": 1.0}, ValueError, r"confidence must be in \(0, 1\)"),
    ({"n_threads": 0}, ValueError, "n_threads must be non-zero"),
    ({"n_threads": "2"}, TypeError, "n_threads must be an integer or None"),
    ({"complete": "no"}, TypeError, "complete must be True or False, got 'no'"),
    ({"qrels": "qrels.txt"}, TypeError, r"qrels must be a Qrels \(to evaluate Runs\) or None, got str"),
    ({"on_missing": "drop"}, ValueError, "on_missing must be one of"),
    ({"nan_policy": None}, TypeError, "nan_policy must be a str"),
])
def test_compare_systems_names_each_bad_argument(three_systems, kwargs, error, message):
    options = {"metrics": ["MAP", "nDCG@10"], **kwargs}
    if error is None:
        assert len(rw.compare_systems(three_systems, **options).comparisons) == 6
        return
    with pytest.raises(error, match=message):
        rw.compare_systems(three_systems, **options)


def test_compare_systems_checks_systems_before_evaluating_runs(monkeypatch):
    qrels, run = read_example()
    import rankwise.stats.report

    def fail(*args, **kwargs):
        raise AssertionError("evaluated before the arguments were checked")

    monkeypatch.setattr(rankwise.stats.report, "trec_eval", fail)
    with pytest.raises(ValueError, match="at least 2 systems, got 0"):
        rw.compare_systems({})
    with pytest.raises(TypeError, match="system 'y' must be Results, TrecResults or a Run, got list"):
        rw.compare_systems({"x": run, "y": [0.1, 0.2]}, qrels)
    with pytest.raises(TypeError, match=r"runs: system names \(the dict's keys\) must be str, got b'x'"):
        rw.compare_systems({b"x": run, "y": run}, qrels)
    with pytest.raises(TypeError, match="runs: system names .* must be str, got 1"):
        rw.compare_systems({1: run, 2: run}, qrels)
    with pytest.raises(TypeError, match="system 'x' is a Run: pass qrels"):
        rw.compare_systems({"x": run, "y": run})
    with pytest.raises(TypeError, match="qrels must be a Qrels"):
        rw.compare_systems({"x": run, "y": run}, run)
    with pytest.raises(ValueError, match="metrics must name at least one metric"):
        rw.compare_systems({"x": run, "y": run}, qrels, [])


# --------------------------------------------------------------------------------------
# The report with degenerate and extreme values
# --------------------------------------------------------------------------------------

def test_report_of_identical_and_constant_systems(rng):
    y_true = rng.integers(0, 2, (12, 6))
    y_true[:, 0] = 1
    scores = rng.random((12, 6))
    same = rw.evaluate(y_true, scores, ["P@1"])
    perfect = rw.evaluate(y_true, scores + 2 * y_true, ["P@1"])        # P@1 = 1 everywhere
    worst = rw.evaluate(y_true, scores - 2 * y_true, ["P@1"])          # P@1 = 0 everywhere
    report = rw.compare_systems({"a": same, "b": same, "perfect": perfect, "worst": worst}, test="t",
                                correction=None)
    text = report.to_text()
    assert "nan" not in text
    identical = next(c for c in report.comparisons if (c.system, c.other) == ("a", "b"))
    assert (identical.result.effect_size, identical.result.pvalue) == (0.0, 1.0)
    assert "a vs b" in text and "[+0.0000, +0.0000]" in text and "+0.00  1.0000" in text
    constant = next(c for c in report.comparisons if (c.system, c.other) == ("perfect", "worst"))
    assert constant.result.effect_size == np.inf and constant.result.mean_difference == 1.0
    assert "+1.0000  [+1.0000, +1.0000]         +inf" in text
    assert "effect size 0, p = 1: the two systems score the same on every query" in text
    assert "effect size +-inf: the difference is the same non-zero number on every query" in text
    md = report.to_markdown()
    assert "| +inf |" in md and "effect size 0, p = 1" in md and "effect size +-inf" in md
    plain = rw.compare_systems({"a": same, "perfect": perfect}, test="t")
    assert "effect size" not in plain.to_text().split("W/T/L")[-1]     # no note without such a comparison


def test_report_prints_nan_intervals_and_extreme_numbers(rng):
    y_true = rng.integers(0, 2, (30, 5))
    y_true[:, 0] = 1
    systems = {name: rw.evaluate(y_true, rng.random((30, 5)), ["AP"]) for name in ("x", "y")}
    # One resample: BCa is undefined (the observed mean is beyond every resampled mean).
    report = rw.compare_systems(systems, test="bootstrap", n_resamples=1, seed=0)
    (c,) = report.comparisons
    assert np.isnan(c.result.confidence_interval).all()
    assert "[nan, nan]" in report.to_text() and "+nan" not in report.to_text()
    assert ",nan,nan," in report.to_csv()
    from rankwise.stats.report import _cell

    assert [_cell(x, 4) for x in (0.5, 1e-5, 5e-5, 123456.0, 1.5e308, -1e7, 0.0)] == [
        "0.5000", "1.000e-05", "0.0001", "123456.0000", "1.500e+308", "-1.000e+07", "0.0000"]
    assert [_cell(x, 2, sign=True) for x in (np.inf, -np.inf, np.nan, 0.0, 0.004)] == [
        "+inf", "-inf", "nan", "+0.00", "+4.0e-03"]


def test_compare_systems_metric_aliases_are_one_metric(three_systems):
    with pytest.raises(ValueError, match="metrics 'MAP' and 'AP' name the same metric"):
        rw.compare_systems(three_systems, metrics=["MAP", "AP"])
    assert rw.compare_systems(three_systems, metrics=["AP"], test="t").metrics == ("AP",)
