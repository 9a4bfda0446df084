"""Many systems at once: :func:`compare_systems` and its :class:`ComparisonReport`.

Every system is evaluated (TREC runs with :func:`~rankwise.trec_eval`), compared with
the paired tests of :mod:`rankwise.stats.significance` metric by metric, the p-values
corrected (:mod:`rankwise.stats.correction`) over each metric or the whole report, and
the outcome laid out as text, Markdown, LaTeX, CSV or a DataFrame.
"""
from __future__ import annotations

import csv
import functools
import io
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._core.bootstrap import resolve_seed
from .._core.progress import check_progress, progress_bar
from .._core.results import Results, as_results, html_table
from .._core.validation import check_flag
from ..trec.evaluation import Qrels, Run, TrecResults, trec_eval
from .correction import correct
from .inputs import _align, _differences, _finite_rows, _mean_of, _per_query
from .options import (
    _FAMILIES,
    _NAN_POLICIES,
    _ON_MISSING,
    CORRECTIONS,
    MAX_RESAMPLES,
    _check_fraction,
    _check_test_options,
    _choice,
)
from .significance import ComparisonResult, _paired_test

__all__ = ["Comparison", "ComparisonReport", "compare_systems"]


# Columns of ComparisonReport.to_pandas / to_csv.
RECORD_FIELDS = ("metric", "system", "other", "mean", "other_mean", "difference", "ci_low", "ci_high",
                 "effect_size", "statistic", "p_value", "p_adjusted", "significant", "wins", "ties", "losses",
                 "n")
# Default measures of compare_systems on TREC runs (trec_eval names).
TREC_MEASURES = ("map", "recip_rank", "P.10", "ndcg_cut.10")

_TEST_NAMES = {
    "randomization": "paired randomization test (sign flips)",
    "t": "paired t-test",
    "wilcoxon": "Wilcoxon signed-rank test",
    "sign": "sign test",
    "bootstrap": "paired bootstrap test",
}


@dataclass(frozen=True)
class Comparison:
    """One row of a :class:`ComparisonReport`: ``system`` against ``other`` on one metric.

    ``wins`` / ``ties`` / ``losses`` count queries where ``system`` scored higher / the
    same / lower than ``other``; ``p_adjusted`` is corrected over the report's family and
    ``significant`` is ``p_adjusted < alpha``.
    """

    metric: str
    system: str
    other: str
    result: ComparisonResult
    p_adjusted: float
    significant: bool
    wins: int
    ties: int
    losses: int

    def record(self, means: dict[str, dict[str, float]]) -> dict[str, Any]:
        r = self.result
        return {"metric": self.metric, "system": self.system, "other": self.other,
                "mean": means[self.metric][self.system], "other_mean": means[self.metric][self.other],
                "difference": r.mean_difference, "ci_low": r.confidence_interval.low,
                "ci_high": r.confidence_interval.high, "effect_size": r.effect_size, "statistic": r.statistic,
                "p_value": r.pvalue, "p_adjusted": self.p_adjusted, "significant": self.significant,
                "wins": self.wins, "ties": self.ties, "losses": self.losses, "n": r.n}


_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def _latex(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in text)


def _letters(count: int) -> list[str]:
    """a, b, ..., z, aa, ab, ... : labels of systems in an all-pairs report."""
    out = []
    for i in range(count):
        label, i = "", i + 1
        while i:
            i, rest = divmod(i - 1, 26)
            label = chr(ord("a") + rest) + label
        out.append(label)
    return out


def _cell(value: float, decimals: int, sign: bool = False) -> str:
    """A number of a report: ``decimals`` decimals; nan and +-inf spelled out; scientific notation
    where fixed point would print more than 6 digits before the point or a non-zero value as 0."""
    plus = "+" if sign else ""
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return f"{plus}inf" if value > 0 else "-inf"
    if value != 0 and not 0.5 * 10.0**-decimals <= abs(value) < 1e6:
        return f"{value:{plus}.{max(decimals - 1, 1)}e}"
    return f"{value:{plus}.{decimals}f}"


def _table(rows: list[list[str]], right: set[int]) -> list[str]:
    """Plain-text columns: rows of strings, padded; columns in ``right`` aligned right."""
    widths = [max(len(row[j]) for row in rows) for j in range(len(rows[0]))]
    return ["  ".join(cell.rjust(w) if j in right else cell.ljust(w) for j, (cell, w)
                      in enumerate(zip(row, widths, strict=True))).rstrip() for row in rows]


class ComparisonReport:
    """Systems compared metric by metric: means, paired tests, corrected p-values.

    Made by :func:`compare_systems`. ``repr`` is a plain-text report; ``to_markdown``,
    ``to_latex`` and ``to_csv`` give the tables as text and ``to_pandas`` a DataFrame with
    one row per comparison.

    Attributes
    ----------
    systems : tuple of str
    metrics : tuple of str
    baseline : str or None
        None: every pair of systems was compared.
    means : dict
        ``means[metric][system]``: the mean over the compared queries.
    comparisons : tuple of Comparison
        One per (metric, pair), metric by metric.
    n_queries : dict
        Queries compared per metric.
    values : dict
        ``values[metric][system]``: the per-query values compared (float64, read-only),
        the same queries in the same order for every system of a metric; what
        :func:`rankwise.plot.comparison` bootstraps the means' intervals from.
    test, alternative, correction, family, alpha, n_resamples, seed
        The options of the call (``correction`` None: raw p-values; ``family``
        ``"metric"``: each metric's comparisons are corrected together, ``"all"``: every
        comparison of the report).
    """

    # The options of the call, set from compare_systems' ``options``.
    test: str
    alternative: str
    correction: str | None
    family: str
    alpha: float
    n_resamples: int
    seed: int | None

    def __init__(self, systems: Iterable[str], metrics: Iterable[str], baseline: str | None,
                 means: dict[str, dict[str, float]], comparisons: Iterable[Comparison],
                 n_queries: dict[str, int], options: dict[str, Any],
                 values: dict[str, dict[str, np.ndarray]] | None = None) -> None:
        self.systems = tuple(systems)
        self.metrics = tuple(metrics)
        self.baseline = baseline
        self.means = means
        self.comparisons = tuple(comparisons)
        self.n_queries = n_queries
        self.values = values or {}
        for column in (v for by_system in self.values.values() for v in by_system.values()):
            column.flags.writeable = False
        for name, value in options.items():
            setattr(self, name, value)

    # -- pieces shared by the layouts --------------------------------------------------

    def _marks(self) -> dict:
        """(metric, system) -> the marks of its mean: "*" against the baseline, or letters."""
        marks = {(m, s): "" for m in self.metrics for s in self.systems}
        letters = dict(zip(self.systems, _letters(len(self.systems)), strict=True))
        for c in self.comparisons:
            if not c.significant:
                continue
            if self.baseline is not None:
                marks[c.metric, c.system] = "*"
            else:
                winner, loser = ((c.system, c.other) if c.result.mean_difference > 0 else (c.other, c.system))
                marks[c.metric, winner] += letters[loser]
        for key, value in marks.items():
            if self.baseline is None and value:
                marks[key] = "".join(sorted(value, key=lambda x: (len(x), x)))
        return marks

    def _system_label(self, system: str) -> str:
        if self.baseline is None:
            return f"({_letters(len(self.systems))[self.systems.index(system)]}) {system}"
        return f"{system} (baseline)" if system == self.baseline else system

    def _description(self) -> str:
        r = self.comparisons[0].result if self.comparisons else None
        how = ""
        if r is not None and self.test == "randomization":
            how = (f", exact over all {r.n_resamples:,} sign patterns" if r.exact
                   else f", {self.n_resamples:,} random sign patterns, seed {self.seed}")
        elif self.test == "bootstrap":
            how = f", {self.n_resamples:,} resamples, seed {self.seed}"
        counts = sorted(set(self.n_queries.values()))
        queries = f"{counts[0]} queries" if len(counts) == 1 else f"{counts[0]}-{counts[-1]} queries"
        against = f"against baseline {self.baseline}" if self.baseline is not None else "all pairs"
        return (f"{len(self.systems)} systems, {queries}, {against}: {self.alternative} "
                f"{_TEST_NAMES[self.test]}{how}")

    def _legend(self) -> str:
        if self.correction is None:
            adjusted = "p"
        else:
            name = {"holm": "Holm", "bonferroni": "Bonferroni", "bh": "Benjamini-Hochberg",
                    "by": "Benjamini-Yekutieli"}[self.correction]
            scope = "the comparisons of each metric" if self.family == "metric" else "all comparisons"
            adjusted = f"p adjusted ({name}, over {scope})"
        if self.baseline is not None:
            return f"*: {adjusted} < {self.alpha:g} against the baseline"
        return f"letters: the mean is higher than that system's, with {adjusted} < {self.alpha:g}"

    def _mean_rows(self, mark: Callable[[str], str]) -> list[list[str]]:
        marks = self._marks()
        rows = [["system", *self.metrics]]
        for s in self.systems:
            rows.append([self._system_label(s),
                         *(f"{_cell(self.means[m][s], 4)}{mark(marks[m, s])}" for m in self.metrics)])
        return rows

    def _detail_rows(self) -> list[list[str]]:
        ci_method = self.comparisons[0].result.ci_method if self.comparisons else "t"
        level = self.comparisons[0].result.confidence_level if self.comparisons else 0.95
        rows = [["comparison", "metric", "difference", f"{level:.0%} CI ({ci_method})", "effect size", "p",
                 "p adjusted", "W/T/L"]]
        for c in self.comparisons:
            r = c.result
            low, high = r.confidence_interval
            rows.append([f"{c.system} vs {c.other}", c.metric, _cell(r.mean_difference, 4, sign=True),
                         f"[{_cell(low, 4, sign=True)}, {_cell(high, 4, sign=True)}]",
                         _cell(r.effect_size, 2, sign=True), _cell(r.pvalue, 4), _cell(c.p_adjusted, 4),
                         f"{c.wins}/{c.ties}/{c.losses}"])
        return rows

    def _notes(self) -> list[str]:
        """What the degenerate comparisons' numbers mean, when the report has any."""
        notes = ["W/T/L: queries where the first system scores higher / the same / lower"]
        if any(c.ties == c.result.n for c in self.comparisons):
            notes.append("effect size 0, p = 1: the two systems score the same on every query (every "
                         "difference is 0)")
        if any(math.isinf(c.result.effect_size) for c in self.comparisons):
            notes.append("effect size +-inf: the difference is the same non-zero number on every query "
                         "(its sd is 0)")
        return notes

    # -- layouts -------------------------------------------------------------------------

    def _text_mark(self, mark: str) -> str:
        """A mean's marks as text: ``*``, or the letters as a superscript ``^ab``."""
        return mark if self.baseline is not None or not mark else f"^{mark}"

    def to_text(self) -> str:
        """The plain-text report (also ``repr``)."""
        means = self._mean_rows(self._text_mark)
        lines = [f"Comparison of {self._description()}.", ""]
        lines += _table(means, set(range(1, len(means[0]))))
        lines += [self._legend(), ""]
        lines += _table(self._detail_rows(), {2, 4, 5, 6})
        lines += self._notes()
        return "\n".join(lines)

    def __repr__(self) -> str:
        return self.to_text()

    def _repr_html_(self) -> str:
        """Tables for notebooks: the means with their marks and the legend, then every comparison,
        each cell as :meth:`to_text` writes it."""
        means, details = self._mean_rows(self._text_mark), self._detail_rows()
        return (html_table(means[0], means[1:], before=[f"Comparison of {self._description()}."],
                           after=[self._legend()])
                + html_table(details[0], details[1:], after=self._notes()))

    def to_markdown(self) -> str:
        """GitHub-flavoured Markdown: the means with marks, the legend, then every comparison."""
        mark = ((lambda m: r"\*" if m else "") if self.baseline is not None
                else (lambda m: f"<sup>{m}</sup>" if m else ""))

        def table(rows: list[list[str]], right: set[int]) -> list[str]:
            head = "| " + " | ".join(rows[0]) + " |"
            rule = "|" + "|".join("---:" if j in right else ":---" for j in range(len(rows[0]))) + "|"
            return [head, rule] + ["| " + " | ".join(row) + " |" for row in rows[1:]]

        means = self._mean_rows(mark)
        legend = self._legend().replace("*", r"\*", 1) if self.baseline is not None else self._legend()
        lines = [f"Comparison of {self._description()}.", ""]
        lines += table(means, set(range(1, len(means[0]))))
        lines += ["", legend, ""]
        lines += table(self._detail_rows(), {2, 4, 5, 6})
        for note in self._notes():
            lines += ["", note]
        return "\n".join(lines)

    def to_latex(self) -> str:
        """A booktabs ``tabular`` of the means with marks; the legend as a comment above it."""
        marks = self._marks()
        columns = "l" + "r" * len(self.metrics)
        lines = [f"% {self._description()}", f"% {self._legend()}",
                 rf"\begin{{tabular}}{{{columns}}}", r"\toprule",
                 " & ".join(["System", *map(_latex, self.metrics)]) + r" \\", r"\midrule"]
        for s in self.systems:
            cells = [_latex(self._system_label(s))]
            for m in self.metrics:
                mark = marks[m, s]
                cells.append(_cell(self.means[m][s], 4) + (f"$^{{{mark}}}$" if mark else ""))
            lines.append(" & ".join(cells) + r" \\")
        lines += [r"\bottomrule", r"\end{tabular}"]
        return "\n".join(lines)

    def _records(self) -> list[dict[str, Any]]:
        return [c.record(self.means) for c in self.comparisons]

    def to_csv(self) -> str:
        """One line per comparison (the columns of :meth:`to_pandas`)."""
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=RECORD_FIELDS, lineterminator="\n")
        writer.writeheader()
        for record in self._records():
            writer.writerow({k: (repr(v) if isinstance(v, float) else v) for k, v in record.items()})
        return buffer.getvalue()

    def to_pandas(self) -> Any:
        """One row per comparison: metric, system, other, their means, difference, CI, effect
        size, statistic, raw and adjusted p-values, significance, wins/ties/losses, n. Needs pandas."""
        try:
            import pandas as pd
        except ImportError:
            raise ImportError("ComparisonReport.to_pandas() needs pandas: "
                              "pip install 'rankwise[pandas]'") from None
        return pd.DataFrame(self._records())


def _systems(runs: Any, qrels: Qrels | None) -> list[Any]:
    """[(name, system)] from a dict, or a sequence of named Runs / TrecResults; checked before any work."""
    if isinstance(runs, Mapping):
        items = [(name, as_results(system)) for name, system in runs.items()]
        for name, _ in items:
            if not isinstance(name, str):
                raise TypeError(f"runs: system names (the dict's keys) must be str, got {name!r}")
    elif isinstance(runs, (list, tuple)):
        items = []
        for system in map(as_results, runs):
            if isinstance(system, Run):
                items.append((system.name, system))
            elif isinstance(system, TrecResults):
                items.append((system.run_name, system))
            else:
                raise TypeError("a list of systems must hold Runs or TrecResults (named by their run id); "
                                f"pass a dict name -> system for {type(system).__name__}")
    else:
        raise TypeError("runs must be a dict name -> Results/Run, or a list of Runs, got "
                        f"{type(runs).__name__}")
    for name, system in items:
        if not isinstance(system, (Results, Run)):
            raise TypeError(f"system {name!r} must be Results, TrecResults or a Run, got "
                            f"{type(system).__name__}")
    names = [name for name, _ in items]
    if len(set(names)) != len(names):
        raise ValueError(f"system names must be unique, got {names}")
    if len(items) < 2:
        raise ValueError(f"compare_systems needs at least 2 systems, got {len(items)}")
    if qrels is not None and not isinstance(qrels, Qrels):
        raise TypeError(f"qrels must be a Qrels (to evaluate Runs) or None, got {type(qrels).__name__}")
    for name, system in items:
        if isinstance(system, Run):
            _qrels_for(name, qrels)
    return items


def _qrels_for(name: str, qrels: Qrels | None) -> Qrels:
    """The qrels to evaluate Run ``name`` against; a TypeError when there are none."""
    if qrels is None:
        raise TypeError(f"system {name!r} is a Run: pass qrels (a Qrels) to evaluate it")
    return qrels


def _check_metrics(metrics: object) -> list[str] | None:
    """None (the default measures), or the metric names as a non-empty list of distinct str."""
    if metrics is None:
        return None
    if isinstance(metrics, str):
        return [metrics]
    if not isinstance(metrics, (list, tuple, np.ndarray)):
        raise TypeError(f"metrics must be a str, a list of str or None (the default), got "
                        f"{type(metrics).__name__}")
    metrics = list(np.asarray(metrics).ravel()) if isinstance(metrics, np.ndarray) else list(metrics)
    for i, metric in enumerate(metrics):
        if not isinstance(metric, str):
            raise TypeError(f"metrics must hold str (metric names), got {metric!r} at position {i}")
    if not metrics:
        raise ValueError("metrics must name at least one metric, got none; pass None for the default")
    seen = set()
    for metric in metrics:
        if metric in seen:
            raise ValueError(f"metrics has {metric!r} twice")
        seen.add(metric)
    return [str(metric) for metric in metrics]


def _evaluated(items: list[Any], qrels: Qrels | None, metrics: list[str] | None, complete: bool,
               n_threads: int | None) -> tuple[list[Any], list[str]]:
    """Every system as Results / TrecResults, and the metric names to compare."""
    out = []
    for name, system in items:
        if isinstance(system, Run):
            system = trec_eval(_qrels_for(name, qrels), system, list(metrics or TREC_MEASURES),
                               complete=complete, n_threads=n_threads)
        out.append((name, system))
    evaluated_runs = [system for (_, system), (_, given) in zip(out, items, strict=True)
                      if isinstance(given, Run)]
    if evaluated_runs:
        names = list(evaluated_runs[0].names)
    elif metrics is None:
        names = list(out[0][1].names)
    else:
        names = list(metrics)
    if not names:
        raise ValueError("no metric to compare")
    columns: dict[int, str] = {}
    for name in names:  # aliases of one metric ("MAP" and "AP") would compare it twice
        try:
            column = out[0][1]._column(name)
        except KeyError:
            continue  # reported when its values are read, naming the system
        if column in columns:
            raise ValueError(f"metrics {columns[column]!r} and {name!r} name the same metric")
        columns[column] = name
    return out, names


def _check_kept(n_resamples: int, comparisons: int) -> None:
    """The report keeps every comparison's distribution: at most MAX_RESAMPLES values in all."""
    if n_resamples * comparisons > MAX_RESAMPLES:
        raise ValueError(f"n_resamples={n_resamples:,} for {comparisons:,} comparisons keeps "
                         f"{n_resamples * comparisons:,} resampled means in the report, more than 2**30; "
                         f"pass n_resamples <= {MAX_RESAMPLES // comparisons:,}")


# One comparison before the correction: metric, system, other, result, wins, ties, losses.
_Row = tuple[str, str, str, ComparisonResult, int, int, int]


def _check_options(test: object, alternative: object, n_resamples: object, confidence: object, seed: object,
                   correction: object, family: object, alpha: object, on_missing: object, nan_policy: object,
                   complete: object, n_threads: int | None) -> tuple[int, float, int | None, float]:
    """compare_systems' options, checked before any work: (n_resamples, confidence, seed, alpha)."""
    n_resamples, confidence, seed = _check_test_options(test, alternative, n_resamples, confidence, "bca",
                                                        "wilcox", seed, n_threads)
    if correction is not None:
        _choice(correction, "correction", CORRECTIONS)
    _choice(family, "family", _FAMILIES)
    _choice(on_missing, "on_missing", _ON_MISSING)
    _choice(nan_policy, "nan_policy", _NAN_POLICIES)
    alpha = _check_fraction(alpha, "alpha")
    check_flag(complete, "complete")
    return n_resamples, confidence, seed, alpha


def _pairs(names: list[str], baseline: object) -> list[tuple[str, str]]:
    """(system, other) of every comparison: each system against the baseline, or every pair."""
    if baseline is None:
        return [(s, t) for i, s in enumerate(names) for t in names[i + 1:]]
    if not isinstance(baseline, str):
        raise TypeError(f"baseline must be a system name (a str) or None, got {baseline!r}")
    if baseline not in names:
        raise ValueError(f"baseline {baseline!r} is not one of the systems ({', '.join(names)})")
    return [(s, baseline) for s in names if s != baseline]


def _compare_metric(metric: str, systems: list[Any], pairs: list[tuple[str, str]], on_missing: str,
                    nan_policy: str,
                    test_pair: Callable[[np.ndarray, int], ComparisonResult]
                    ) -> tuple[dict[str, np.ndarray], list[_Row]]:
    """One metric: every system's values over the queries compared, a row per pair."""
    names = [name for name, _ in systems]
    per_system = [(name, *_per_query(system, f"system {name!r}", metric)) for name, system in systems]
    ids, values = _align(per_system, on_missing)
    ids, values = _finite_rows(ids, [f"system {n!r}" for n in names], values, nan_policy)
    n = int(values[0].shape[0])
    if n < 2:
        raise ValueError(f"{metric}: a paired comparison needs at least 2 queries, got {n}")
    column = dict(zip(names, values, strict=True))
    rows: list[_Row] = []
    for system, other in pairs:
        d, k = _differences(column[system], column[other], ids, (f"system {system!r}", f"system {other!r}"))
        wins, ties = int(np.count_nonzero(d > 0)), int(np.count_nonzero(d == 0))
        rows.append((metric, system, other, test_pair(d, k), wins, ties, n - wins - ties))
    return column, rows


def _adjusted(pvalues: list[float], metrics: list[str], correction: str | None, family: str) -> np.ndarray:
    """The p-values corrected over the family: the comparisons of each metric, or all of them."""
    raw = np.array(pvalues)
    if correction is None:
        return raw
    if family == "all":
        return correct(raw, correction)
    adjusted = raw.copy()
    of = np.array(metrics)
    for metric in dict.fromkeys(metrics):
        adjusted[of == metric] = correct(raw[of == metric], correction)
    return adjusted


def compare_systems(runs: Mapping[str, Any] | Sequence[Any], qrels: Qrels | None = None,
                    metrics: str | Sequence[str] | None = None, *, baseline: str | None = None,
                    test: str = "randomization", correction: str | None = "holm", alpha: float = 0.05,
                    family: str = "metric", alternative: str = "two-sided", n_resamples: int = 10_000,
                    seed: int | None = None, confidence: float = 0.95, on_missing: str = "error",
                    nan_policy: str = "raise", complete: bool = False,
                    n_threads: int | None = None, progress: bool | None = None) -> ComparisonReport:
    """Compare systems metric by metric: means, paired tests, corrected p-values, a report.

    Parameters
    ----------
    runs : dict or list
        ``{name: system}`` (str names) where a system is ``Results`` (from
        :func:`rankwise.evaluate`), ``TrecResults`` or a ``Run`` (evaluated against
        ``qrels`` with :func:`rankwise.trec_eval`); or a list of Runs / TrecResults named
        by their run id. Any object with a ``__rankwise_results__()`` method (the results
        of :func:`rankwise.spark.evaluate` or :func:`rankwise.spark.trec_eval`) counts as
        the Results or TrecResults it returns.
    qrels : Qrels, optional
        Needed for Runs.
    metrics : str or list of str, optional
        For Runs, trec_eval measures (``"map"``, ``"ndcg_cut.10"``, ``"P.10"``; None, the
        default: map, recip_rank, P.10 and ndcg_cut.10), compared under trec_eval's printed
        names (``P_10``). For Results, their metric names (None: every metric of the
        first). An empty list, or a name given twice, raises.
    baseline : str, optional
        Compare every other system against this one; None compares every pair.
    test : str
        A test of :func:`compare` (default ``"randomization"``).
    correction : {"holm", "bonferroni", "bh", "by"} or None
        Adjustment of the p-values (:func:`correct`); None keeps them raw.
    alpha : float
        Significance level of the marks in the tables (applied to adjusted p-values).
    family : {"metric", "all"}
        What is corrected together: ``"metric"`` (default) the comparisons of one metric
        (k - 1 against a baseline, k (k - 1) / 2 for all pairs), ``"all"`` every
        comparison of the report.
    alternative, n_resamples, seed, confidence, nan_policy, n_threads
        As in :func:`compare`; every comparison uses the same seed. The report keeps every
        comparison's resampled distribution: n_resamples times the comparisons is at most
        2**30.
    on_missing : {"error", "intersect"}
        Systems covering different queries raise, or with ``"intersect"`` are all
        compared on the queries they share.
    complete : bool
        For Runs: trec_eval's ``-c`` (queries of the qrels a run lacks score 0).
    progress : bool or None
        A progress bar on stderr of the resamples of every comparison (randomization and
        bootstrap tests), as :func:`compare` shows it: None (default) when stderr is a
        terminal and tqdm is installed, unless ``RANKWISE_PROGRESS=0``; False never; True
        always (ImportError without tqdm: ``pip install "rankwise[progress]"``).

    Returns
    -------
    ComparisonReport

    Examples
    --------
    >>> import rankwise as rw
    >>> y_true = [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0]]
    >>> base = [[0.1, 0.5, 0.2], [0.3, 0.2, 0.1], [0.9, 0.1, 0.5], [0.2, 0.1, 0.3]]
    >>> new = [[0.9, 0.5, 0.2], [0.3, 0.8, 0.1], [0.1, 0.2, 0.5], [0.2, 0.1, 0.3]]
    >>> systems = {"base": rw.evaluate(y_true, base, ["MRR"]), "new": rw.evaluate(y_true, new, ["MRR"])}
    >>> report = rw.compare_systems(systems, metrics=["MRR"], baseline="base")
    >>> report.means
    {'MRR': {'base': 0.4583333333333333, 'new': 0.875}}
    >>> c = report.comparisons[0]          # exact: 4 of the 16 sign patterns reach |mean| >= 5/12
    >>> c.result.pvalue, (c.wins, c.ties, c.losses)
    (0.25, (3, 1, 0))
    """
    n_resamples, confidence, seed, alpha = _check_options(test, alternative, n_resamples, confidence, seed,
                                                          correction, family, alpha, on_missing, nan_policy,
                                                          complete, n_threads)
    check_progress(progress)
    metrics = _check_metrics(metrics)
    items = _systems(runs, qrels)
    names = [name for name, _ in items]
    pairs = _pairs(names, baseline)
    resampled = test in ("randomization", "bootstrap")
    if resampled:
        _check_kept(n_resamples, len(pairs) * len(metrics or [None]))
    systems, metrics = _evaluated(items, qrels, metrics, bool(complete), n_threads)
    if resampled:
        _check_kept(n_resamples, len(pairs) * len(metrics))
        seed, _, _ = resolve_seed(seed)
    else:
        seed = None
    total = n_resamples * len(pairs) * len(metrics)
    with progress_bar(progress if resampled else False, total, f"{test} tests", "resamples") as bar:
        test_pair = functools.partial(_paired_test, test=test, alternative=alternative,
                                      n_resamples=n_resamples, seed=seed, confidence=confidence,
                                      ci_method="bca", zero_method="wilcox", n_threads=n_threads, bar=bar)
        values, rows = {}, []
        for metric in metrics:
            values[metric], metric_rows = _compare_metric(metric, systems, pairs, on_missing, nan_policy,
                                                          test_pair)
            rows += metric_rows
    means = {metric: {name: _mean_of(column) for name, column in by_system.items()}
             for metric, by_system in values.items()}
    n_queries = {metric: next(iter(by_system.values())).shape[0] for metric, by_system in values.items()}
    adjusted = _adjusted([row[3].pvalue for row in rows], [row[0] for row in rows], correction, family)
    comparisons = [Comparison(metric, system, other, result, float(p), bool(p < alpha), wins, ties, losses)
                   for (metric, system, other, result, wins, ties, losses), p
                   in zip(rows, adjusted, strict=True)]
    options = {"test": test, "alternative": alternative, "correction": correction, "family": family,
               "alpha": alpha, "n_resamples": n_resamples, "seed": seed}
    return ComparisonReport(names, metrics, baseline, means, comparisons, n_queries, options, values)
