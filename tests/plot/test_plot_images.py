"""rankwise.plot: a few figures compared, pixel by pixel, with baselines in tests/plot/baseline.

Text is removed before saving (tick and axis labels, titles, legends, annotations), and the style is
matplotlib's default at a fixed size, so fonts and their rendering do not matter; what is
compared is the geometry: bars, boxes, lines, steps. After a deliberate change to a figure,
regenerate the baselines, look at them, and commit them:

    PYTHONPATH=src python tests/plot/test_plot_images.py
"""
from pathlib import Path

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.testing.compare import compare_images  # noqa: E402
from matplotlib.testing.decorators import remove_ticks_and_titles  # noqa: E402

import rankwise as rw  # noqa: E402
import rankwise.plot as rp  # noqa: E402
from rankwise._core.bundled import data_path  # noqa: E402

BASELINE = Path(__file__).resolve().parent / "baseline"
# RMS difference of pixel values (0-255) allowed: antialiasing differs a little between
# matplotlib and FreeType versions; a moved bar or line differs by far more.
TOLERANCE = 3


def example_systems():
    qrels = rw.Qrels.read(data_path("example.qrels"))
    runs = {name: rw.Run.read(data_path(f"{name}.run")) for name in ("example", "example2")}
    return qrels, runs


def comparison(ax):
    qrels, runs = example_systems()
    report = rw.compare_systems(runs, qrels, ["map", "P.10", "ndcg_cut.10"], seed=0)
    rp.comparison(report, n_resamples=2000, seed=0, ax=ax)


def distributions(ax):
    qrels, runs = example_systems()
    results = {name: rw.trec_eval(qrels, run, ["map", "recip_rank", "ndcg_cut.10"]) for name, run in runs.items()}
    rp.distributions(results, ax=ax)


def metric_at_k(ax):
    qrels, runs = example_systems()
    results = {name: rw.trec_eval(qrels, run, ["P.1,2,3,5,10,15,20", "recall.1,2,3,5,10,15,20"])
               for name, run in runs.items()}
    rp.metric_at_k(results, ax=ax)


def rank_distribution(ax):
    rng = np.random.default_rng(0)
    positive = rng.normal(1, 1, 300)
    negatives = np.round(rng.normal(0, 1, (300, 499)), 1)
    models = {"good": rw.rank_positive(positive, negatives), "worse": rw.rank_positive(positive - 0.7, negatives)}
    rp.rank_distribution(models, ax=ax)


FIGURES = {f.__name__: f for f in (comparison, distributions, metric_at_k, rank_distribution)}


def draw(name, path):
    with plt.style.context("default"):
        fig, ax = plt.subplots(figsize=(4, 3), dpi=80)
        FIGURES[name](ax)
        if ax.get_legend() is not None:
            ax.get_legend().remove()
        for text in list(ax.texts):
            text.remove()
        ax.set_xlabel("")
        ax.set_ylabel("")
        remove_ticks_and_titles(fig)
        fig.savefig(path)
        plt.close(fig)


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_figure_matches_its_baseline(name, tmp_path):
    baseline = BASELINE / f"{name}.png"
    actual = tmp_path / f"{name}.png"
    draw(name, actual)
    assert compare_images(str(baseline), str(actual), tol=TOLERANCE) is None


if __name__ == "__main__":
    BASELINE.mkdir(exist_ok=True)
    for figure in FIGURES:
        draw(figure, BASELINE / f"{figure}.png")
        print(BASELINE / f"{figure}.png")
