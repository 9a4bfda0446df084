"""rankwise.plot: the plotted values, read back from the artists, equal the inputs
(or an independent computation of what is drawn), and bad input raises naming the argument."""
import sys
from fractions import Fraction

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.container import BarContainer, ErrorbarContainer  # noqa: E402

import rankwise as rw  # noqa: E402
import rankwise.plot as rp  # noqa: E402
from rankwise._core.bundled import data_path  # noqa: E402


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def random_system(rng, n_queries=40, n_items=12, metrics=("MRR", "AP", "nDCG@5")):
    y_true = (rng.random((n_queries, n_items)) < 0.25).astype(int)
    y_score = np.round(rng.random((n_queries, n_items)), 1)  # ties on purpose
    return y_true, y_score, rw.evaluate(y_true, y_score, list(metrics), empty="skip")


@pytest.fixture
def two_systems(rng):
    return {"a": random_system(rng)[2], "b": random_system(rng)[2]}


# -- distributions -------------------------------------------------------------------------


def test_box_statistics_are_those_of_each_column(two_systems):
    metrics = ["MRR", "nDCG@5"]
    ax = rp.distributions(two_systems, metrics)
    lines = ax.get_lines()
    assert len(lines) == 6 * len(metrics) * len(two_systems)  # whiskers, caps, median, fliers per box
    for j, res in enumerate(two_systems.values()):
        for i, metric in enumerate(metrics):
            column = res[metric][~np.isnan(res[metric])]
            low_whisker, high_whisker, _, _, median, fliers = lines[6 * (j * len(metrics) + i):][:6]
            q1, q2, q3 = np.percentile(column, [25, 50, 75])
            assert median.get_ydata()[0] == pytest.approx(q2)
            assert low_whisker.get_ydata()[0] == pytest.approx(q1)
            assert high_whisker.get_ydata()[0] == pytest.approx(q3)
            inside = column[(column >= q1 - 1.5 * (q3 - q1)) & (column <= q3 + 1.5 * (q3 - q1))]
            assert low_whisker.get_ydata()[1] == pytest.approx(inside.min())
            assert high_whisker.get_ydata()[1] == pytest.approx(inside.max())
            outside = (column < q1 - 1.5 * (q3 - q1)) | (column > q3 + 1.5 * (q3 - q1))
            assert sorted(fliers.get_ydata()) == sorted(column[outside])
    assert [t.get_text() for t in ax.get_xticklabels()] == metrics
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["a", "b"]


def test_nan_queries_are_left_out():
    # The second query has no relevant item: NaN under empty="skip", left out of the strip.
    res = rw.evaluate([[1, 0], [0, 0], [0, 1]], [[0.9, 0.1], [0.5, 0.2], [0.9, 0.1]], ["MRR"], empty="skip")
    ax = rp.distributions(res, "MRR", kind="strip")
    (points,) = ax.collections
    assert sorted(points.get_offsets()[:, 1].tolist()) == [0.5, 1.0]
    assert ax.get_legend() is None  # one system: no legend


def test_strip_draws_every_query_near_its_position(two_systems):
    ax = rp.distributions(two_systems, ["AP"], kind="strip")
    for points, res, centre in zip(ax.collections, two_systems.values(), [-0.2, 0.2], strict=True):
        xy = points.get_offsets()
        assert sorted(xy[:, 1]) == sorted(res["AP"][~np.isnan(res["AP"])])
        assert np.all(np.abs(xy[:, 0] - centre) <= 0.16)


def test_violin_medians(two_systems):
    ax = rp.distributions(two_systems, ["MRR", "AP"], kind="violin")
    lines = [c for c in ax.collections if isinstance(c, matplotlib.collections.LineCollection)]
    # per system: cmaxes, cmins, cbars, cmedians, each a segment per metric
    drawn = [seg[0][1] for c in lines[3::4] for seg in c.get_segments()]
    expected = [np.median(r[m][~np.isnan(r[m])]) for r in two_systems.values() for m in ["MRR", "AP"]]
    assert drawn == pytest.approx(expected)


def test_a_metric_name_and_another_spelling(two_systems):
    ax = rp.distributions(two_systems, "RR")  # MRR's column, asked by another name
    assert [t.get_text() for t in ax.get_xticklabels()] == ["RR"]


def test_draws_on_the_axes_given(two_systems):
    fig, (left, right) = plt.subplots(1, 2)
    assert rp.distributions(two_systems, "MRR", ax=right) is right
    assert not left.has_data() and right.has_data()


# -- comparison ------------------------------------------------------------------------------


@pytest.fixture
def report(rng):
    y_true = (rng.random((60, 20)) < 0.2).astype(int)
    noise = rng.random((60, 20))
    systems = {"base": rw.evaluate(y_true, noise, ["MRR", "AP"]),
               "good": rw.evaluate(y_true, y_true + noise, ["MRR", "AP"]),
               "same": rw.evaluate(y_true, noise + 0.001 * rng.random((60, 20)), ["MRR", "AP"])}
    return rw.compare_systems(systems, baseline="base", seed=1, n_resamples=2000)


def bars_and_errors(ax):
    bars = [c for c in ax.containers if isinstance(c, BarContainer)]
    errors = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
    return bars, errors


def test_bars_are_the_report_means_with_bootstrap_intervals(report):
    from scipy import stats

    ax = rp.comparison(report, n_resamples=20_000, seed=3, ci_method="percentile")
    bars, errors = bars_and_errors(ax)
    assert [b.get_label() for b in bars] == ["base (baseline)", "good", "same"]
    for system, bar, error in zip(report.systems, bars, errors, strict=True):
        assert [p.get_height() for p in bar] == [report.means[m][system] for m in report.metrics]
        segments = error.lines[2][0].get_segments()
        for metric, segment in zip(report.metrics, segments, strict=True):
            values = report.values[metric][system]
            low, high = segment[0][1], segment[1][1]
            # scipy's bootstrap draws other resamples: the bounds agree to the Monte Carlo error.
            ref = stats.bootstrap((values,), np.mean, n_resamples=20_000, method="percentile",
                                  random_state=0).confidence_interval
            assert low == pytest.approx(ref.low, abs=0.01) and high == pytest.approx(ref.high, abs=0.01)
            assert low <= report.means[metric][system] <= high


def test_interval_is_rankwise_bootstrap_of_the_values(report):
    ax = rp.comparison(report, "AP", n_resamples=500, seed=7)
    bars, errors = bars_and_errors(ax)
    for system, error in zip(report.systems, errors, strict=True):
        values = report.values["AP"][system]
        ci = rw.compare(values, np.zeros_like(values), "bootstrap", n_resamples=500, seed=7).confidence_interval
        ((_, low), (_, high)), = error.lines[2][0].get_segments()
        assert (low, high) == pytest.approx(tuple(ci), abs=1e-12)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["AP"]


def test_marks_follow_the_adjusted_p_values(report):
    ax = rp.comparison(report, n_resamples=200)
    marked = {(t.get_text(), round(t.xy[0], 6)) for t in ax.texts}
    width = 0.8 / 3
    expected = set()
    for c in report.comparisons:
        assert c.significant == (c.p_adjusted < report.alpha)
        if c.p_adjusted < report.alpha:
            i, j = report.metrics.index(c.metric), report.systems.index(c.system)
            expected.add(("*", round(i + (j - 1) * width, 6)))
    assert marked == expected and ("*", 0.0) in marked  # "good" (the middle bar) beats the baseline on MRR


def test_all_pairs_marks_are_letters(rng):
    y_true = (rng.random((30, 10)) < 0.3).astype(int)
    noise = rng.random((30, 10))
    systems = {"x": rw.evaluate(y_true, noise, "MRR"), "y": rw.evaluate(y_true, y_true + noise, "MRR")}
    report = rw.compare_systems(systems, seed=0, n_resamples=1000)
    ax = rp.comparison(report, n_resamples=100)
    assert [t.get_text() for t in ax.texts] == ["a"]  # y's mean is above x's (system a)
    assert [b.get_label() for b in bars_and_errors(ax)[0]] == ["(a) x", "(b) y"]


# -- tie sensitivity ---------------------------------------------------------------------------


def band(ax, system=0):
    bars = [c for c in ax.containers if isinstance(c, BarContainer)][system]
    return [(b.get_y(), b.get_y() + b.get_height()) for b in bars]


def test_band_of_arrays_is_evaluate_under_each_policy(rng):
    y_true, y_score, _ = random_system(rng)
    before = (y_true.copy(), y_score.copy())
    ax = rp.tie_sensitivity({"m": (y_true, y_score)}, ["MRR", "P@3"])
    for (low, high), metric in zip(band(ax), ["MRR", "P@3"], strict=True):
        assert low == pytest.approx(rw.evaluate(y_true, y_score, metric, ties="pessimistic").mean()[metric])
        assert high == pytest.approx(rw.evaluate(y_true, y_score, metric, ties="optimistic").mean()[metric])
    expected = ax.get_lines()[0].get_ydata()
    assert expected.tolist() == [rw.evaluate(y_true, y_score, m).mean()[m] for m in ["MRR", "P@3"]]
    assert np.array_equal(y_true, before[0]) and np.array_equal(y_score, before[1])


def test_band_of_ranks_by_hand():
    ranks = rw.Ranks(greater=[0, 2, 1], equal=[1, 0, 3], n_candidates=[5, 5, 5])
    ax = rp.tie_sensitivity(ranks, "MRR")
    ((low, high),) = band(ax)
    assert low == pytest.approx(float(sum(Fraction(1, r) for r in [2, 3, 5]) / 3))
    assert high == pytest.approx(float(sum(Fraction(1, r) for r in [1, 3, 2]) / 3))


def test_band_of_given_results_and_of_runs():
    qrels = rw.Qrels.read(data_path("example.qrels"))
    run = rw.Run.read(data_path("example.run"))
    given = {p: rw.trec_eval(qrels, run, ["map", "P.5"], ties=p) for p in ("optimistic", "pessimistic")}
    ax = rp.tie_sensitivity(given)
    expected = [v for m in ["map", "P_5"] for v in (given["pessimistic"].mean()[m], given["optimistic"].mean()[m])]
    assert np.ravel(band(ax)) == pytest.approx(expected)
    assert np.isnan(ax.get_lines()[0].get_ydata()).all()  # no "expected": no point
    ax = rp.tie_sensitivity({"run": run}, ["map", "P.5"], qrels=qrels)
    assert np.ravel(band(ax)) == pytest.approx(expected)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["map", "P_5"]


# -- metric@k, precision-recall ----------------------------------------------------------------


def test_metric_at_k_of_evaluate_results(rng):
    y_true, y_score, _ = random_system(rng)
    names = ["P@10", "P@1", "P@5", "nDCG@3", "R@2", "MRR", "R@8"]
    res = rw.evaluate(y_true, y_score, names)
    ax = rp.metric_at_k(res)
    means = res.mean()
    drawn = {line.get_label(): (line.get_xdata().tolist(), line.get_ydata().tolist()) for line in ax.get_lines()}
    assert drawn == {"P": ([1, 5, 10], [means["P@1"], means["P@5"], means["P@10"]]),
                     "nDCG": ([3], [means["nDCG@3"]]), "R": ([2, 8], [means["R@2"], means["R@8"]])}
    ax = rp.metric_at_k({"s": res, "t": res}, ["R"])
    assert [line.get_label() for line in ax.get_lines()] == ["s: R", "t: R"]


def test_metric_at_k_reads_trec_names():
    qrels = rw.Qrels.read(data_path("example.qrels"))
    res = rw.trec_eval(qrels, rw.Run.read(data_path("example.run")),
                       ["P.5,10,20", "recall.5,10", "ndcg_cut.5,10", "relative_P.5,10", "map"])
    ax = rp.metric_at_k(res, ["P", "recall", "nDCG", "relative_P"])
    means = res.mean()
    drawn = [(line.get_label(), line.get_xdata().tolist(), line.get_ydata().tolist()) for line in ax.get_lines()]
    assert drawn == [("P", [5, 10, 20], [means["P_5"], means["P_10"], means["P_20"]]),
                     ("recall", [5, 10], [means["recall_5"], means["recall_10"]]),
                     ("nDCG", [5, 10], [means["ndcg_cut_5"], means["ndcg_cut_10"]]),
                     ("relative_P", [5, 10], [means["relative_P_5"], means["relative_P_10"]])]


def test_precision_recall_is_trec_eval_iprec():
    qrels = rw.Qrels.read(data_path("example.qrels"))
    systems = {name: rw.trec_eval(qrels, rw.Run.read(data_path(name + ".run")), ["official"])
               for name in ("example", "example2")}
    ax = rp.precision_recall(systems)
    for line, res in zip(ax.get_lines(), systems.values(), strict=True):
        assert line.get_xdata().tolist() == [i / 10 for i in range(11)]
        assert line.get_ydata().tolist() == [res.mean()[f"iprec_at_recall_{i / 10:.2f}"] for i in range(11)]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["example", "example2"]


# -- rank distributions --------------------------------------------------------------------------


def chance_by_brute_force(n_candidates, r):
    """Share of queries with a uniformly random rank <= r, as exact fractions."""
    return float(sum(Fraction(sum(1 for rank in range(1, c + 1) if rank <= r), c) for c in n_candidates)
                 / len(n_candidates))


@pytest.fixture
def ranks(rng):
    greater = rng.integers(0, 30, 200)
    equal = rng.integers(0, 3, 200) * (rng.random(200) < 0.3)
    return rw.Ranks(greater, equal, n_candidates=greater + equal + 1 + rng.integers(0, 60, 200))


@pytest.mark.parametrize("ties", ["realistic", "optimistic", "pessimistic"])
def test_ecdf_steps_and_chance_line(ranks, ties):
    ax = rp.rank_distribution(ranks, ties=ties)
    model, chance = ax.get_lines()
    values = getattr(ranks, ties)
    x, y = model.get_xdata(), model.get_ydata()
    assert x.tolist() == sorted(set(values.tolist()))
    assert y.tolist() == [np.count_nonzero(values <= v) / len(values) for v in x]
    assert model.get_drawstyle() == "steps-post"
    cx, cy = chance.get_xdata(), chance.get_ydata()
    assert cx[0] == 1 and cx[-1] == ranks.n_candidates.max()
    for r, share in list(zip(cx, cy, strict=True))[::7]:
        assert share == pytest.approx(chance_by_brute_force(ranks.n_candidates.tolist(), r), rel=1e-12)


def test_histogram_and_its_chance(ranks):
    ax = rp.rank_distribution(ranks, kind="hist", bins=8, ties="pessimistic")
    hist, chance = ax.patches
    counts, edges = hist.get_data().values, hist.get_data().edges
    assert counts.sum() == pytest.approx(1)
    values = ranks.pessimistic
    for i in range(len(counts)):
        inside = np.count_nonzero((values >= edges[i]) & (values < edges[i + 1]))
        assert counts[i] == pytest.approx(inside / len(values))
    shares, chance_edges = chance.get_data().values, chance.get_data().edges
    assert np.array_equal(edges, chance_edges)
    for i in range(len(shares)):
        expected = (chance_by_brute_force(ranks.n_candidates.tolist(), edges[i + 1] - 1)
                    - chance_by_brute_force(ranks.n_candidates.tolist(), edges[i] - 1))
        assert shares[i] == pytest.approx(expected, abs=1e-12)


def test_models_sharing_candidates_share_one_chance_line(ranks):
    other = rw.Ranks(ranks.greater // 2, ranks.equal, ranks.n_candidates)
    ax = rp.rank_distribution({"a": ranks, "b": other})
    assert [line.get_label() for line in ax.get_lines()] == ["a", "b", "chance"]
    ax = rp.rank_distribution({"a": ranks, "b": rw.Ranks(ranks.greater, ranks.equal, ranks.n_candidates + 1)})
    assert [line.get_label() for line in ax.get_lines()] == ["a", "b", "chance (a)", "chance (b)"]


def test_no_chance_without_candidates():
    ranks = rw.Ranks.from_ranks([1, 3, 2])
    assert [line.get_label() for line in rp.rank_distribution(ranks).get_lines()] == ["realistic"]
    with pytest.raises(ValueError, match="chance=True needs n_candidates"):
        rp.rank_distribution(ranks, chance=True)


def test_chance_ecdf_by_brute_force(rng):
    c = rng.integers(1, 50, 30)
    r = np.arange(0, 60)
    assert rp.chance_ecdf(c, r) == pytest.approx([chance_by_brute_force(c.tolist(), x) for x in r], rel=1e-12)


# -- errors ---------------------------------------------------------------------------------------


def test_errors_name_the_argument(two_systems, report, ranks):
    res = two_systems["a"]
    with pytest.raises(ValueError, match=r"metrics: 'nDCG@50' is not in results\['a'\]"):
        rp.distributions(two_systems, "nDCG@50")
    with pytest.raises(ValueError, match="results must hold at least one system"):
        rp.distributions({})
    with pytest.raises(TypeError, match="results must be rankwise Results"):
        rp.distributions(np.zeros(3))
    with pytest.raises(TypeError, match=r"results\['b'\] must be rankwise Results"):
        rp.distributions({"a": res, "b": [0.1, 0.2]})
    missing = rw.evaluate([[1, 0]], [[0.3, 0.2]], ["MRR"])
    with pytest.raises(ValueError, match=r"'AP' is not in results\['b'\], which holds MRR"):
        rp.distributions({"a": res, "b": missing}, ["MRR", "AP"])
    with pytest.raises(ValueError, match="kind must be one of 'box', 'violin', 'strip', got 'boxes'"):
        rp.distributions(res, kind="boxes")
    with pytest.raises(TypeError, match="ax must be a matplotlib Axes or None"):
        rp.distributions(res, ax="left")
    with pytest.raises(TypeError, match=r"metric names must be strings, got int 1 at metrics\[0\]"):
        rp.distributions(res, [1])
    with pytest.raises(TypeError, match="report must be a ComparisonReport"):
        rp.comparison(res)
    with pytest.raises(ValueError, match="metrics: 'P@10' is not in the report, which compares MRR, AP"):
        rp.comparison(report, "P@10")
    with pytest.raises(ValueError, match="n_resamples"):
        rp.comparison(report, n_resamples=0)
    with pytest.raises(ValueError, match="results hold no metric at a cutoff"):
        rp.metric_at_k(rw.evaluate([[1, 0]], [[0.3, 0.2]], ["MRR"]))
    with pytest.raises(ValueError, match="metrics: 'ERR' is held at no cutoff in results"):
        rp.metric_at_k(res, ["nDCG", "ERR"])
    with pytest.raises(TypeError, match="results must be TrecResults"):
        rp.precision_recall(res)
    qrels = rw.Qrels.read(data_path("example.qrels"))
    run = rw.Run.read(data_path("example.run"))
    with pytest.raises(ValueError, match="results holds no iprec_at_recall measure"):
        rp.precision_recall(rw.trec_eval(qrels, run, ["map"]))
    with pytest.raises(TypeError, match="qrels: systems\\['r'\\] is a Run"):
        rp.tie_sensitivity({"r": run}, ["map"])
    with pytest.raises(ValueError, match="metrics: name the metrics to evaluate systems"):
        rp.tie_sensitivity(ranks)
    with pytest.raises(TypeError, match=r"systems\['x'\] must be \(y_true, y_score\), a Run, Ranks"):
        rp.tie_sensitivity({"x": [1, 2, 3]}, ["MRR"])
    with pytest.raises(ValueError, match=r"systems must map 'optimistic', 'pessimistic'"):
        rp.tie_sensitivity({"expected": res}, ["MRR"])
    with pytest.raises(TypeError, match="ranks must be Ranks"):
        rp.rank_distribution([1, 2, 3])
    with pytest.raises(ValueError, match="ties must be one of 'realistic', 'optimistic', 'pessimistic'"):
        rp.rank_distribution(ranks, ties="expected")
    with pytest.raises(ValueError, match="bins must be a positive integer"):
        rp.rank_distribution(ranks, kind="hist", bins=0)


def test_without_matplotlib_the_error_names_the_extra(monkeypatch, two_systems):
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(ImportError, match=r'rankwise.plot needs matplotlib: pip install "rankwise\[plot\]"'):
        rp.distributions(two_systems)
