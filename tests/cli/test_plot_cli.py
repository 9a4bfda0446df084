"""`rankwise eval --plot FILE` and `rankwise compare --plot FILE`: the figure, its file, its errors."""
import sys

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

import rankwise as rw  # noqa: E402
from rankwise.cli import compare as compare_command  # noqa: E402
from rankwise.cli import eval as eval_command  # noqa: E402
from rankwise.cli import main  # noqa: E402
from rankwise.trec import read_example  # noqa: E402


@pytest.fixture
def drawn(monkeypatch):
    """The Axes each command saves, kept (and still saved)."""
    axes = []
    for module in (eval_command, compare_command):
        save = module.save_plot

        def keep(ax, path, save=save):
            axes.append(ax)
            save(ax, path)

        monkeypatch.setattr(module, "save_plot", keep)
    return axes


def test_eval_plot_writes_the_figure_and_prints_the_same(tmp_path, capsys, drawn):
    assert main(["eval", "--example", "-m", "map", "-m", "P.5,10", "-m", "num_rel"]) == 0
    printed = capsys.readouterr().out
    path = tmp_path / "eval.png"
    assert main(["eval", "--example", "-m", "map", "-m", "P.5,10", "-m", "num_rel", "--plot", str(path)]) == 0
    assert capsys.readouterr().out == printed
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    (ax,) = drawn
    assert [t.get_text() for t in ax.get_xticklabels()] == ["map", "P_5", "P_10"]  # counts left out
    qrels, run = read_example()
    res = rw.trec_eval(qrels, run, ["map", "P.5,10"])
    medians = [line.get_ydata()[0] for line in ax.get_lines()[4::6]]
    assert medians == pytest.approx([np.median(res[m]) for m in ["map", "P_5", "P_10"]])


def test_compare_plot_is_the_comparison_figure(tmp_path, capsys, drawn):
    path = tmp_path / "compare.svg"
    assert main(["compare", "--example", "-m", "map", "--seed", "3", "--plot", str(path)]) == 0
    assert "<svg" in path.read_text()
    (ax,) = drawn
    bars = [c for c in ax.containers if isinstance(c, matplotlib.container.BarContainer)]
    qrels, run = read_example()
    second = rw.Run.read(rw.__path__[0] + "/data/example2.run")
    report = rw.compare_systems({"example": run, "example2": second}, qrels, ["map"])
    assert [b[0].get_height() for b in bars] == [report.means["map"]["example"], report.means["map"]["example2"]]
    assert "Comparison of 2 systems" in capsys.readouterr().out


@pytest.mark.parametrize("command", [["eval", "--example"], ["compare", "--example"]])
def test_plot_errors(tmp_path, capsys, command, monkeypatch):
    assert main([*command, "--plot", str(tmp_path / "figure.xyz")]) == 2
    err = capsys.readouterr().err
    assert "argument --plot: the format is the file's extension, one of" in err and "png" in err
    assert main([*command, "--plot", str(tmp_path / "missing" / "figure.png")]) == 2
    assert "argument --plot: can't write" in capsys.readouterr().err
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.setitem(sys.modules, name, None)
    assert main([*command, "--plot", str(tmp_path / "figure.png")]) == 2
    out, err = capsys.readouterr()
    assert 'argument --plot: drawing a figure needs matplotlib: pip install "rankwise[plot]"' in err
    assert out == ""  # refused before any work


def test_eval_plot_of_counts_only(tmp_path, capsys):
    assert main(["eval", "--example", "-m", "num_ret", "--plot", str(tmp_path / "f.png")]) == 2
    assert "no measure to draw" in capsys.readouterr().err
