"""Notebook tables (``_repr_html_``): parsed back, every cell is the number the text shows."""
from __future__ import annotations

from html.parser import HTMLParser

import numpy as np
import pytest

import rankwise as rw


class Tables(HTMLParser):
    """The tables of a page as lists of rows of cell texts (entities decoded), and its paragraphs."""

    def __init__(self, page: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: list[list[list[str]]] = []
        self.paragraphs: list[str] = []
        self._cell: list[str] | None = None
        self._in_p = False
        self.feed(page)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = []
        elif tag == "p":
            self._in_p = True
            self.paragraphs.append("")
        elif tag not in ("thead", "tbody"):
            raise AssertionError(f"unexpected tag <{tag}>: a string was not escaped")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th"):
            assert self._cell is not None
            self.tables[-1][-1].append("".join(self._cell))
            self._cell = None
        elif tag == "p":
            self._in_p = False

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)
        elif self._in_p:
            self.paragraphs[-1] += data


def _text_rows(lines: list[str], n_rows: int) -> list[list[str]]:
    """A plain-text table's rows split on runs of two spaces."""
    return [[cell.strip() for cell in line.split("  ") if cell.strip()] for line in lines[:n_rows]]


A = [0.5, 0.3, 0.9, 0.1, 0.7, 0.6, 0.8, 0.4, 0.2, 0.55]
B = [0.4, 0.35, 0.6, 0.1, 0.5, 0.2, 0.8, 0.1, 0.25, 0.5]


@pytest.mark.parametrize("test", ["randomization", "bootstrap", "t"])
def test_comparison_result_cells_are_its_repr(test: str) -> None:
    res = rw.compare(A, B, test=test, seed=3, n_resamples=500)
    page = Tables(res._repr_html_())
    (table,) = page.tables
    shown = dict(table[1:])
    text = repr(res)
    for name in ("n", "mean_difference", "statistic", "pvalue", "effect_size"):
        assert f"{name}={shown[name]}" in text
    assert float(shown["pvalue"]) == pytest.approx(res.pvalue, rel=1e-3)
    assert int(shown["n"]) == res.n == len(A)
    ci = next(value for key, value in shown.items() if "CI" in key)
    assert f"CI ({res.ci_method})={ci}" in text
    if test == "t":
        assert "resamples" not in shown
    else:
        assert shown["resamples"] in text


def _report(names: tuple[str, str, str], baseline: str | None) -> rw.ComparisonReport:
    rng = np.random.default_rng(0)
    y_true = rng.integers(0, 2, (30, 8))
    y_true[:, 0] = 1
    better = y_true + rng.random((30, 8)) * 0.9
    systems = {names[0]: rw.evaluate(y_true, rng.random((30, 8)), ["MRR", "P@3"]),
               names[1]: rw.evaluate(y_true, better, ["MRR", "P@3"]),
               names[2]: rw.evaluate(y_true, better * 0.5 + rng.random((30, 8)) * 0.5, ["MRR", "P@3"])}
    return rw.compare_systems(systems, baseline=baseline, seed=1, n_resamples=2000)


@pytest.mark.parametrize("baseline", [None, "base"])
def test_comparison_report_means_marks_and_legend_are_to_text(baseline: str | None) -> None:
    report = _report(("base", "new", "<b>&"), baseline)
    page = Tables(report._repr_html_())
    means, details = page.tables
    lines = report.to_text().splitlines()
    assert page.paragraphs[0] == lines[0]
    assert report._legend() in page.paragraphs
    text_means = _text_rows(lines[2:], len(means))
    assert means == text_means
    assert any("*" in c or "^" in c for row in means[1:] for c in row[1:])     # some mark is shown
    for row, system in zip(means[1:], report.systems, strict=True):
        for cell, metric in zip(row[1:], report.metrics, strict=True):
            assert float(cell.rstrip("*").split("^")[0]) == pytest.approx(report.means[metric][system], abs=5e-5)
    assert len(details) == len(report.comparisons) + 1
    for row, c in zip(details[1:], report.comparisons, strict=True):
        assert row[0] == f"{c.system} vs {c.other}" and row[1] == c.metric
        assert float(row[5]) == pytest.approx(c.result.pvalue, abs=5e-5)


def test_every_string_is_escaped() -> None:
    report = _report(("base", "new", "<b>&"), None)
    page = report._repr_html_()
    assert "<b>&" not in page and "&lt;b&gt;&amp;" in page
    assert any("<b>&" in row[0] for row in Tables(page).tables[0])     # and reads back as written
    res = rw.evaluate([[1, 0], [0, 1]], [[0.3, 0.2], [0.3, 0.2]], ["MRR"])
    assert "<b>" not in rw.compare_systems({"<b>": res, "x": res}, test="t")._repr_html_()


def test_ranks_summary_is_its_repr() -> None:
    ranks = rw.Ranks(greater=[0, 2, 1, 7], equal=[0, 1, 0, 3], n_candidates=[5, 5, 4, 20])
    (table,) = Tables(ranks._repr_html_()).tables
    assert repr(ranks) == "Ranks(" + ", ".join(f"{k}={v}" for k, v in table[1:]) + ")"
    assert dict(table[1:])["mean optimistic"] == f"{ranks.optimistic.mean():.4g}"
    (empty,) = Tables(rw.Ranks(greater=[])._repr_html_()).tables
    assert empty[1:] == [["n", "0"]]


def test_results_use_the_same_writer() -> None:
    res = rw.evaluate([[1, 0, 0]] * 20, np.random.default_rng(1).random((20, 3)), ["MRR"])
    (table,) = Tables(res._repr_html_()).tables
    assert table[0][1:] == ["MRR"]
    assert table[-1] == ["mean", f"{res.mean()['MRR']:.4f}"]
    assert any("more queries" in row[0] for row in table)


def test_trec_results_show_trec_eval_digits() -> None:
    qrels = rw.Qrels.from_dict({"q<3>": {"d1": 1, "d2": 0}, "q&2": {"d1": 1}})
    run = rw.Run.from_dict({"q<3>": {"d1": 0.5, "d2": 0.9}, "q&2": {"d1": 0.3}}, name="<b>&")
    res = rw.trec_eval(qrels, run, ["map", "num_ret", "P.1"])
    rows = Tables(res._repr_html_()).tables[0]
    printed = {(name.strip(), query): value.strip() for name, query, value
               in (line.split("\t") for line in res.format(per_query=True).splitlines())}
    assert rows[0] == ["query_id", *res.names]
    assert [row[0] for row in rows[1:]] == [*res.query_ids.tolist(), "all"]
    for row in rows[1:]:
        assert row[1:] == [printed[name, row[0]] for name in res.names]
    assert rows[-1][1 + res.names.index("num_ret")] == "3"     # a count, as trec_eval prints it
