"""Figures of rankwise's results (optional extra ``rankwise[plot]``: matplotlib).

Each function takes what rankwise already returns (:class:`~rankwise.Results`,
:class:`~rankwise.TrecResults`, :class:`~rankwise.ComparisonReport`,
:class:`~rankwise.Ranks`), or a dict of them by system name, draws on ``ax`` (a new
figure when None) and returns the matplotlib ``Axes``. matplotlib is imported when a
figure is drawn, so that ``import rankwise`` never pays for it; ``import rankwise.plot``
works without it, and drawing raises an ImportError naming the extra.
"""
from __future__ import annotations

import textwrap
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ._core.names import metric_names
from ._core.results import Results, as_results
from ._core.validation import check_choice
from .lists import evaluate
from .lists.names import parse_metric
from .ranks import Ranks, rank_metrics
from .stats import ComparisonReport, compare
from .trec import Qrels, Run, TrecResults, trec_eval
from .trec.names import parse_trec_measures

__all__ = ["chance_ecdf", "comparison", "distributions", "metric_at_k", "precision_recall",
           "rank_distribution", "tie_sensitivity"]

#: The pip requirement that installs what this module needs.
EXTRA = 'pip install "rankwise[plot]"'

_STYLES = ("-", "--", ":", "-.")

# The tie policies whose band tie_sensitivity draws: best case, expectation, worst case.
_BAND = ("optimistic", "expected", "pessimistic")


def _pyplot() -> Any:
    """matplotlib.pyplot, or an ImportError naming the extra that installs it."""
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError(f"rankwise.plot needs matplotlib: {EXTRA}") from None
    return plt


def _axes(ax: Any) -> Any:
    """``ax``, or the Axes of a new figure; matplotlib checked either way."""
    plt = _pyplot()
    if ax is None:
        return plt.subplots()[1]
    from matplotlib.axes import Axes

    if not isinstance(ax, Axes):
        raise TypeError(f"ax must be a matplotlib Axes or None, got {type(ax).__name__}")
    return ax


def _colors(count: int) -> list[Any]:
    """One colour per system, from the style's cycle (repeated when there are more systems)."""
    plt = _pyplot()
    cycle = plt.rcParams["axes.prop_cycle"].by_key().get("color", ["C0"])
    return [cycle[i % len(cycle)] for i in range(count)]


def _by_system(results: Any, name: str, kind: type | tuple[type, ...], what: str) -> dict[str, Any]:
    """``{system: object}`` of one object or a dict of them, each of type ``kind``; a single one is
    named ``""`` (figures then show no legend)."""
    if isinstance(results, Mapping):
        if not results:
            raise ValueError(f"{name} must hold at least one system, got an empty dict")
        items = {}
        for system, value in results.items():
            if not isinstance(system, str):
                raise TypeError(f"{name}: system names (the dict's keys) must be str, got {system!r}")
            items[system] = _checked(as_results(value), f"{name}[{system!r}]", kind, what)
        return items
    return {"": _checked(as_results(results), name, kind, what)}


def _checked(value: Any, name: str, kind: type | tuple[type, ...], what: str) -> Any:
    if not isinstance(value, kind):
        raise TypeError(f"{name} must be {what}, got {type(value).__name__}")
    return value


def _metric_list(metrics: str | Iterable[str] | None) -> list[str] | None:
    """None, or the names as a non-empty list of str (``_core.names.metric_names``' checks)."""
    return None if metrics is None else metric_names(metrics)


def _columns(systems: Mapping[str, Results], metrics: list[str] | None) -> list[str]:
    """The metrics to draw: those asked (every system must hold each), else the first system's."""
    names = metrics if metrics is not None else list(next(iter(systems.values())).names)
    for metric in names:
        for system, res in systems.items():
            if metric not in res:
                where = f"results[{system!r}]" if system else "results"
                raise ValueError(f"metrics: {metric!r} is not in {where}, which holds {', '.join(res.names)}")
    return names


def _legend(ax: Any, systems: Sequence[str]) -> None:
    if any(systems):
        ax.legend()


# -- per-query distributions --------------------------------------------------------------


def distributions(results: Results | Mapping[str, Results], metrics: str | Iterable[str] | None = None, *,
                  kind: str = "box", ax: Any = None) -> Any:
    """Per-query values of one or more metrics for one or more systems: box, violin or strip plot.

    Parameters
    ----------
    results : Results, TrecResults or dict of str to Results
        One system's results (of :func:`rankwise.evaluate`, :func:`rankwise.trec_eval`, or
        ``rank_metrics(..., per_query=True)``), or ``{system name: results}``.
    metrics : str or list of str, optional
        The metrics to show (any spelling ``results[name]`` accepts); None: every metric of
        the first system. Every system must hold each.
    kind : {"box", "violin", "strip"}
        Box plots (median, quartiles, whiskers at 1.5 IQR, outliers), violins (kernel
        density), or every query as a point (jittered sideways, with a fixed seed).
    ax : matplotlib Axes, optional
        Where to draw; None: a new figure.

    Returns
    -------
    matplotlib Axes
        One group per metric along x; within it one box, violin or strip per system, in a
        colour per system.

    Notes
    -----
    Queries left out by ``empty="skip"`` (NaN values) are left out here too; a metric
    with no value for a system raises ValueError.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import rankwise as rw, rankwise.plot
    >>> y_true = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
    >>> a = rw.evaluate(y_true, [[0.9, 0.5, 0.1], [0.3, 0.8, 0.1], [0.9, 0.1, 0.5]], ["MRR", "nDCG@2"])
    >>> b = rw.evaluate(y_true, [[0.1, 0.5, 0.9], [0.9, 0.8, 0.1], [0.1, 0.2, 0.5]], ["MRR", "nDCG@2"])
    >>> ax = rankwise.plot.distributions({"a": a, "b": b}, "MRR")
    >>> [t.get_text() for t in ax.get_xticklabels()]
    ['MRR']
    """
    check_choice(kind, "kind", ("box", "violin", "strip"))
    systems = _by_system(results, "results", Results, "rankwise Results (or a dict of them)")
    names = _columns(systems, _metric_list(metrics))
    ax = _axes(ax)
    width = 0.8 / len(systems)
    for j, ((system, res), color) in enumerate(zip(systems.items(), _colors(len(systems)), strict=True)):
        data = []
        for metric in names:
            column = np.asarray(res[metric], dtype=np.float64)
            column = column[~np.isnan(column)]
            if column.size == 0:
                where = f"results[{system!r}]" if system else "results"
                raise ValueError(f"metrics: {metric!r} has no value in {where} (every query NaN: "
                                 "empty='skip')")
            data.append(column)
        positions = np.arange(len(names)) + (j - (len(systems) - 1) / 2) * width
        _draw_distribution(ax, kind, data, positions, width * 0.8, color, system)
    ax.set_xticks(np.arange(len(names)), names)
    ax.set_xlim(-0.5, len(names) - 0.5)
    ax.set_ylabel("value per query")
    _legend(ax, list(systems))
    return ax


def _draw_distribution(ax: Any, kind: str, data: list[np.ndarray], positions: np.ndarray, width: float,
                       color: Any, label: str) -> None:
    if kind == "box":
        parts = ax.boxplot(data, positions=positions, widths=width, patch_artist=True, manage_ticks=False)
        for box in parts["boxes"]:
            box.set(facecolor=color, alpha=0.6)
        for median in parts["medians"]:
            median.set(color="black")
        if label:
            parts["boxes"][0].set_label(label)
    elif kind == "violin":
        parts = ax.violinplot(data, positions=positions, widths=width, showmedians=True)
        for body in parts["bodies"]:
            body.set(facecolor=color, alpha=0.6)
        if label:
            parts["bodies"][0].set_label(label)
    else:
        rng = np.random.default_rng(0)  # the same jitter on every call: figures are reproducible
        for i, (column, x) in enumerate(zip(data, positions, strict=True)):
            jitter = rng.uniform(-width / 2, width / 2, column.shape[0])
            ax.scatter(x + jitter, column, s=12, color=color, alpha=0.7,
                       label=label if i == 0 and label else None)


# -- a comparison of systems ---------------------------------------------------------------


def comparison(report: ComparisonReport, metrics: str | Iterable[str] | None = None, *, ax: Any = None,
               n_resamples: int = 10_000, seed: int | None = 0, confidence: float = 0.95,
               ci_method: str = "bca") -> Any:
    """The systems of a :func:`rankwise.compare_systems` report: means, bootstrap intervals, marks.

    One bar per system and metric at the report's mean, with a bootstrap confidence interval
    of that mean over the queries the report compared, and the report's significance marks
    above it: ``*`` for a system that differs from the baseline, or, comparing all pairs,
    the letters of the systems whose mean it exceeds (systems are lettered a, b, ... in the
    legend), each with the p-value adjusted by the report's correction below its ``alpha``.

    Parameters
    ----------
    report : ComparisonReport
    metrics : str or list of str, optional
        Metrics of the report to show; None: all of them.
    ax : matplotlib Axes, optional
        Where to draw; None: a new figure.
    n_resamples, seed, confidence, ci_method
        Of the bootstrap of each mean (:func:`rankwise.compare`'s paired bootstrap of the
        values against zero, whose interval is that of their mean): resamples, seed
        (default 0, so the figure is the same on every run; None draws fresh entropy),
        level, and ``"bca"``, ``"percentile"`` or ``"basic"``.

    Returns
    -------
    matplotlib Axes
        One group of bars per metric; each system's bars in its colour.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import rankwise as rw, rankwise.plot
    >>> y_true = [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0]]
    >>> base = [[0.1, 0.5, 0.2], [0.3, 0.2, 0.1], [0.9, 0.1, 0.5], [0.2, 0.1, 0.3]]
    >>> new = [[0.9, 0.5, 0.2], [0.3, 0.8, 0.1], [0.1, 0.2, 0.5], [0.2, 0.1, 0.3]]
    >>> systems = {"base": rw.evaluate(y_true, base, ["MRR"]), "new": rw.evaluate(y_true, new, ["MRR"])}
    >>> report = rw.compare_systems(systems, baseline="base")
    >>> ax = rankwise.plot.comparison(report, n_resamples=1000)
    >>> [float(bar.get_height()) for bars in ax.containers[::2] for bar in bars]
    [0.4583333333333333, 0.875]
    """
    if not isinstance(report, ComparisonReport):
        raise TypeError(f"report must be a ComparisonReport (of rankwise.compare_systems), got "
                        f"{type(report).__name__}")
    names = _metric_list(metrics)
    names = list(report.metrics) if names is None else names
    for metric in names:
        if metric not in report.metrics:
            raise ValueError(f"metrics: {metric!r} is not in the report, which compares "
                             f"{', '.join(report.metrics)}")
    if not report.values:
        raise ValueError("report holds no per-query values (made before rankwise kept them): run "
                         "compare_systems again")
    ax = _axes(ax)
    marks = report._marks()
    width = 0.8 / len(report.systems)
    top = 0.0
    for j, (system, color) in enumerate(zip(report.systems, _colors(len(report.systems)), strict=True)):
        x = np.arange(len(names)) + (j - (len(report.systems) - 1) / 2) * width
        means = np.array([report.means[m][system] for m in names])
        low, high = np.array([_interval(report.values[m][system], n_resamples, seed, confidence, ci_method)
                              for m in names]).T
        # Rounding may put the mean a hair outside its interval: matplotlib refuses negative errors.
        errors = np.clip([means - low, high - means], 0, None)
        ax.bar(x, means, width * 0.9, color=color, alpha=0.8, label=report._system_label(system))
        ax.errorbar(x, means, yerr=errors, fmt="none", ecolor="black", capsize=3)
        for xi, metric, peak in zip(x, names, np.fmax(high, means), strict=True):
            if marks[metric, system]:
                ax.annotate(marks[metric, system], (xi, peak), xytext=(0, 2), textcoords="offset points",
                            ha="center", va="bottom")
        top = max(top, float(np.nanmax(np.fmax(high, means))))
    ax.set_xticks(np.arange(len(names)), names)
    ax.set_ylabel(f"mean, {confidence:.0%} bootstrap CI")
    if top > 0:
        ax.set_ylim(top=top * 1.3)  # room for the marks and the legend
    title = textwrap.fill(report._legend(), 60) if any(marks.values()) else None
    ax.legend(title=title, title_fontsize="small", fontsize="small", loc="upper left", ncols=2)
    return ax


def _interval(values: np.ndarray, n_resamples: int, seed: int | None, confidence: float,
              ci_method: str) -> tuple[float, float]:
    """The bootstrap interval of the mean of ``values``: the paired bootstrap of ``values - 0``."""
    result = compare(values, np.zeros_like(values), "bootstrap", n_resamples=n_resamples, seed=seed,
                     confidence=confidence, ci_method=ci_method)
    return tuple(result.confidence_interval)


# -- tie sensitivity -----------------------------------------------------------------------


def tie_sensitivity(systems: Any, metrics: str | Iterable[str] | None = None, *, qrels: Qrels | None = None,
                    ax: Any = None) -> Any:
    """How much ties move each metric: the optimistic to pessimistic band, and the expectation.

    For each metric and system, a bar from the pessimistic mean (tied items ordered
    relevant last) to the optimistic mean (relevant first), and a point at the expected
    mean over all orderings of tied items (``ties="expected"``). A flat band: ties do
    not matter; a tall one: the reported number depends on how ties were broken.

    Parameters
    ----------
    systems : object or dict of str to object
        One system, or ``{system name: system}``, where a system is one of

        - ``(y_true, y_score)``: arrays for :func:`rankwise.evaluate` (dense or ragged
          lists; other layouts: pass the dict of Results below);
        - a :class:`~rankwise.Run`, evaluated with :func:`rankwise.trec_eval` against
          ``qrels``;
        - a :class:`~rankwise.Ranks`, evaluated with :func:`rankwise.rank_metrics`;
        - ``{"optimistic": Results, "expected": Results, "pessimistic": Results}``,
          evaluated already (``"expected"`` may be left out: no point is drawn).
    metrics : str or list of str, optional
        Metric names for the evaluation (trec_eval's for Runs); each printed name of a
        Run's measures is a group. None: every metric of the given Results; needed for
        the other inputs.
    qrels : Qrels, optional
        The judgements of Runs.
    ax : matplotlib Axes, optional
        Where to draw; None: a new figure.

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import rankwise as rw, rankwise.plot
    >>> y_true = [[1, 0, 0], [0, 1, 0]]
    >>> y_score = [[0.5, 0.5, 0.1], [0.2, 0.2, 0.2]]      # the relevant item ties
    >>> ax = rankwise.plot.tie_sensitivity({"model": (y_true, y_score)}, ["MRR", "P@1"])
    >>> bars = ax.containers[0]          # MRR, P@1: pessimistic to optimistic
    >>> [(round(float(b.get_y()), 4), round(float(b.get_y() + b.get_height()), 4)) for b in bars]
    [(0.4167, 1.0), (0.0, 1.0)]
    """
    names = _metric_list(metrics)
    items = systems.items() if isinstance(systems, Mapping) and not _is_policies(systems) else [("", systems)]
    bands = {str(system): _band(system, value, names, qrels) for system, value in items}
    if not bands:
        raise ValueError("systems must hold at least one system, got an empty dict")
    columns = list(next(iter(bands.values())))
    for system, band in bands.items():
        if list(band) != columns:
            raise ValueError(f"systems: {system!r} gives the metrics {list(band)}, the first system "
                             f"{columns}; pass metrics= to pick the same ones")
    ax = _axes(ax)
    width = 0.8 / len(bands)
    for j, ((system, band), color) in enumerate(zip(bands.items(), _colors(len(bands)), strict=True)):
        x = np.arange(len(columns)) + (j - (len(bands) - 1) / 2) * width
        best = np.array([band[m]["optimistic"] for m in columns])
        worst = np.array([band[m]["pessimistic"] for m in columns])
        # An edge in the system's colour keeps a band of height 0 (no tie matters) visible as a line.
        ax.bar(x, best - worst, width * 0.9, bottom=worst, color=color, alpha=0.4, edgecolor=color,
               label=system or None)
        expected = np.array([band[m].get("expected", np.nan) for m in columns])
        ax.plot(x, expected, linestyle="none", marker="o", color=color)
    ax.set_xticks(np.arange(len(columns)), columns)
    ax.set_ylabel("mean: pessimistic to optimistic, o expected")
    ax.margins(y=0.1)
    _legend(ax, list(bands))
    return ax


def _is_policies(value: Mapping) -> bool:
    """Whether a dict is one system's ``{policy: Results}`` rather than systems by name."""
    return bool(value) and all(k in _BAND and isinstance(as_results(v), Results) for k, v in value.items())


def _band(system: object, value: Any, metrics: list[str] | None,
          qrels: Qrels | None) -> dict[str, dict[str, float]]:
    """``{metric: {policy: mean}}`` of one system."""
    where = "systems" if system == "" else f"systems[{system!r}]"
    if not isinstance(system, str):
        raise TypeError(f"systems: system names (the dict's keys) must be str, got {system!r}")
    if isinstance(value, Mapping):
        if not _is_policies(value) or not {"optimistic", "pessimistic"} <= set(value):
            raise ValueError(f"{where} must map 'optimistic', 'pessimistic' and optionally 'expected' to "
                             f"Results, got keys {list(value)}")
        results = {policy: as_results(value[policy]) for policy in _BAND if policy in value}
        names = _columns(results, metrics)
        return {m: {policy: _mean_of(res, m) for policy, res in results.items()} for m in names}
    if metrics is None:
        raise ValueError(f"metrics: name the metrics to evaluate {where} with (None only for Results)")
    if isinstance(value, Ranks):
        by_policy = {policy: rank_metrics(value, metrics, ties=policy) for policy in _BAND}
    elif isinstance(value, Run):
        if not isinstance(qrels, Qrels):
            raise TypeError(f"qrels: {where} is a Run; pass its judgements as qrels= (a Qrels)")
        by_policy = {policy: trec_eval(qrels, value, metrics, ties=policy).mean() for policy in _BAND}
    elif isinstance(value, tuple) and len(value) == 2:
        by_policy = {policy: evaluate(*value, metrics, ties=policy).mean() for policy in _BAND}
    else:
        raise TypeError(f"{where} must be (y_true, y_score), a Run, Ranks or a dict policy -> Results, got "
                        f"{type(value).__name__}")
    return {m: {policy: by_policy[policy][m] for policy in _BAND} for m in by_policy["optimistic"]}


def _mean_of(res: Results, metric: str) -> float:
    """The mean of ``res`` (trec_eval's summary for TrecResults) of a metric, under any spelling."""
    means = res.mean()
    if metric in means:
        return means[metric]
    column = res._column(metric)
    return next(means[name] for name in res.names if res._column(name) == column)


# -- metric@k and precision-recall curves -------------------------------------------------------


def _family(name: str, trec: bool) -> tuple[str, int] | None:
    """(metric without its cutoff, cutoff) of a column name, or None for a metric with no cutoff.

    rankwise's grammar reads trec_eval's names of its own metrics too (``P_10`` is P@10,
    ``ndcg_cut_10`` nDCG@10), so both kinds of results share family names; trec_eval's other
    cutoff measures (``relative_P_10``) keep trec_eval's root."""
    try:
        spec = parse_metric(name)
    except ValueError:
        spec = None
    if spec is not None and spec.k is not None:
        return replace(spec, k=None).name, spec.k
    if trec:
        try:
            trec_spec = parse_trec_measures(name)[0]
        except ValueError:
            return None
        if trec_spec.cutoff is not None:
            return trec_spec.root, trec_spec.cutoff
    return None


def _asked_family(name: str) -> str:
    """The family name of a metric asked for without a cutoff (``"ndcg_cut"`` is ``"nDCG"``)."""
    try:
        return replace(parse_metric(f"{name}@1"), k=None).name  # any cutoff: only the root is kept
    except ValueError:
        return name  # trec_eval's own roots (relative_P), matched as given


def metric_at_k(results: Results | Mapping[str, Results], metrics: str | Iterable[str] | None = None, *,
                ax: Any = None) -> Any:
    """Metric@k curves: the mean of each metric over the cutoffs the results hold.

    Parameters
    ----------
    results : Results, TrecResults or dict of str to Results
        One system or ``{system name: results}``. Columns are grouped by rankwise's
        metric-name grammar, which reads trec_eval's names too: ``P@5``, ``p_5`` and
        trec_eval's ``P_5`` are all P at 5; ``ndcg_cut_10`` is nDCG at 10.
    metrics : str or list of str, optional
        Metrics without cutoff (``"P"``, ``"R"``, ``"nDCG"``; trec_eval's ``"recall"`` or
        ``"ndcg_cut"`` work too); None: every metric held at some cutoff.
    ax : matplotlib Axes, optional
        Where to draw; None: a new figure.

    Returns
    -------
    matplotlib Axes
        One line per metric (and system), the mean (:meth:`Results.mean`) against k.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import rankwise as rw, rankwise.plot
    >>> res = rw.evaluate([[1, 0, 1, 0]], [[0.9, 0.8, 0.7, 0.1]], ["P@1", "P@2", "P@3", "R@1", "R@3"])
    >>> ax = rankwise.plot.metric_at_k(res)
    >>> [(line.get_label(), line.get_xdata().tolist()) for line in ax.get_lines()]
    [('P', [1, 2, 3]), ('R', [1, 3])]
    """
    systems = _by_system(results, "results", Results, "rankwise Results (or a dict of them)")
    asked = _metric_list(metrics)
    curves = {system: _curves(res) for system, res in systems.items()}
    families = list(dict.fromkeys(f for c in curves.values() for f in c)) if asked is None else asked
    if not families:
        raise ValueError("results hold no metric at a cutoff (such as P@10 or ndcg_cut_10)")
    ax = _axes(ax)
    # One system: a colour per metric; several: a colour per system and a line style per metric.
    colors = _colors(max(len(curves), len(families)))
    for j, (system, by_family) in enumerate(curves.items()):
        for i, family in enumerate(families):
            key = family if asked is None else _asked_family(family)
            if key not in by_family:
                where = f"results[{system!r}]" if system else "results"
                held = ", ".join(by_family) or "none"
                raise ValueError(f"metrics: {family!r} is held at no cutoff in {where} (metrics at cutoffs: "
                                 f"{held})")
            ks, means = by_family[key]
            style = ({"color": colors[i]} if len(curves) == 1
                     else {"color": colors[j], "linestyle": _STYLES[i % len(_STYLES)]})
            ax.plot(ks, means, marker="o", label=f"{system}: {family}" if system else family, **style)
    ax.set_xlabel("cutoff k")
    ax.set_ylabel("mean")
    ax.legend()
    return ax


def _curves(res: Results) -> dict[str, tuple[list[int], list[float]]]:
    """``{family: (cutoffs, means)}`` of the columns with a cutoff, cutoffs increasing."""
    means = res.mean()
    found: dict[str, list[tuple[int, float]]] = {}
    for name in res.names:
        family = _family(name, isinstance(res, TrecResults))
        if family is not None:
            found.setdefault(family[0], []).append((family[1], means[name]))
    return {family: ([k for k, _ in sorted(points)], [m for _, m in sorted(points)])
            for family, points in found.items()}


def precision_recall(results: TrecResults | Mapping[str, TrecResults], *, ax: Any = None) -> Any:
    """The interpolated precision-recall curve of :func:`rankwise.trec_eval` results.

    Parameters
    ----------
    results : TrecResults or dict of str to TrecResults
        Results holding trec_eval's ``iprec_at_recall`` measures (``"iprec_at_recall"``
        gives the 11 points 0.00, 0.10, ..., 1.00; ``"official"`` includes them).
    ax : matplotlib Axes, optional
        Where to draw; None: a new figure.

    Returns
    -------
    matplotlib Axes
        One line per system: trec_eval's mean interpolated precision at each recall level.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import rankwise as rw, rankwise.plot
    >>> qrels = rw.Qrels.from_dict({"q1": {"d1": 1, "d2": 0, "d3": 1}})
    >>> run = rw.Run.from_dict({"q1": {"d1": 0.9, "d2": 0.8, "d3": 0.7}})
    >>> ax = rankwise.plot.precision_recall(rw.trec_eval(qrels, run, ["iprec_at_recall"]))
    >>> line = ax.get_lines()[0]
    >>> line.get_xdata()[[0, 5, 10]].tolist(), line.get_ydata()[[0, 5, 10]].tolist()
    ([0.0, 0.5, 1.0], [1.0, 1.0, 0.6666666666666666])
    """
    systems = _by_system(results, "results", TrecResults,
                         "TrecResults of rankwise.trec_eval (or a dict of them)")
    ax = _axes(ax)
    for system, res in systems.items():
        specs = [(parse_trec_measures(name)[0], name) for name in res.names]
        points = sorted((spec.params[0], name) for spec, name in specs if spec.root == "iprec_at_recall")
        if not points:
            where = f"results[{system!r}]" if system else "results"
            raise ValueError(f"{where} holds no iprec_at_recall measure: evaluate with "
                             "rw.trec_eval(qrels, run, ['iprec_at_recall'])")
        means = res.mean()
        ax.plot([r for r, _ in points], [means[name] for _, name in points], marker="o", label=system or None)
    ax.set_xlabel("recall")
    ax.set_ylabel("interpolated precision")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.05)
    _legend(ax, list(systems))
    return ax


# -- rank distributions (link prediction) --------------------------------------------------


def rank_distribution(ranks: Ranks | Mapping[str, Ranks], *, kind: str = "ecdf", ties: str = "realistic",
                      chance: bool | None = None, bins: int = 30, ax: Any = None) -> Any:
    """The distribution of the true answers' ranks, beside that of a uniformly random rank.

    Parameters
    ----------
    ranks : Ranks or dict of str to Ranks
        One model's :class:`~rankwise.Ranks` (of :func:`rankwise.rank_positive`), or
        ``{model name: ranks}``.
    kind : {"ecdf", "hist"}
        ``"ecdf"``: the share of queries whose rank is at most r, a step at each rank;
        ``"hist"``: the share of queries in each of ``bins`` bins of ranks, evenly spaced
        on the log scale (bins are ``[a, b)`` between whole ranks).
    ties : {"realistic", "optimistic", "pessimistic"}
        Which rank of a tied true answer: the mean of the tie's ranks, its best or its worst.
    chance : bool, optional
        Draw what a uniformly random rank (1 to C, C the candidates of each query) gives,
        computed exactly from ``n_candidates``: the ECDF ``mean_q min(r, C_q) / C_q``, or
        each bin's expected share of queries. None (default): where the Ranks know
        ``n_candidates``; True raises ValueError where they do not.
    bins : int
        Bins of the histogram.
    ax : matplotlib Axes, optional
        Where to draw; None: a new figure.

    Returns
    -------
    matplotlib Axes
        Ranks on a logarithmic x axis.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import rankwise as rw, rankwise.plot
    >>> ranks = rw.Ranks(greater=[0, 1, 1, 3], n_candidates=[4, 4, 4, 4])
    >>> ax = rankwise.plot.rank_distribution(ranks)
    >>> model, chance = ax.get_lines()
    >>> model.get_xdata().tolist(), model.get_ydata().tolist()
    ([1.0, 2.0, 4.0], [0.25, 0.75, 1.0])
    >>> chance.get_xdata().tolist(), chance.get_ydata().tolist()
    ([1.0, 2.0, 3.0, 4.0], [0.25, 0.5, 0.75, 1.0])
    """
    check_choice(kind, "kind", ("ecdf", "hist"))
    check_choice(ties, "ties", ("realistic", "optimistic", "pessimistic"))
    if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)) or bins < 1:
        raise ValueError(f"bins must be a positive integer, got {bins!r}")
    models = _by_system(ranks, "ranks", Ranks, "Ranks (of rankwise.rank_positive), or a dict of them")
    for model, value in models.items():
        where = f"ranks[{model!r}]" if model else "ranks"
        if len(value) == 0:
            raise ValueError(f"{where} holds no query")
        if chance and value.n_candidates is None:
            raise ValueError(f"chance=True needs n_candidates, which {where} do not know "
                             "(Ranks(..., n_candidates=...))")
    values = {model: np.sort(np.asarray(getattr(value, ties), dtype=np.float64))
              for model, value in models.items()}
    known = [float(r.n_candidates.max()) for r in models.values() if r.n_candidates is not None]
    top = max([float(v[-1]) for v in values.values()] + known)
    edges = np.unique(np.round(np.geomspace(1, top + 1, bins + 1)))
    ax = _axes(ax)
    for (model, sorted_ranks), color in zip(values.items(), _colors(len(models)), strict=True):
        if kind == "ecdf":
            x = np.unique(sorted_ranks)
            y = np.searchsorted(sorted_ranks, x, side="right") / sorted_ranks.shape[0]
            ax.step(x, y, where="post", color=color, label=model or ties)
        else:
            counts = np.histogram(sorted_ranks, edges)[0] / sorted_ranks.shape[0]
            ax.stairs(counts, edges, fill=True, alpha=0.4, color=color, label=model or ties)
    _draw_chance(ax, models, kind, edges, top, chance is not False)
    ax.set_xscale("log")
    ax.set_xlabel(f"rank ({ties})")
    ax.set_ylabel("share of queries with rank <= r" if kind == "ecdf" else "share of queries")
    ax.legend()
    return ax


def _draw_chance(ax: Any, models: Mapping[str, Ranks], kind: str, edges: np.ndarray, top: float,
                 wanted: bool) -> None:
    """The chance line of each distinct candidate count vector (once when the models share it)."""
    drawn: list[np.ndarray] = []
    for model, value in models.items():
        c = value.n_candidates
        if not wanted or c is None or any(np.array_equal(c, d) for d in drawn):
            continue
        drawn.append(c)
        label = "chance" if len(models) == 1 or _shared(models) else f"chance ({model})"
        if kind == "ecdf":
            grid = np.unique(np.concatenate([np.round(np.geomspace(1, top, 256)), c.astype(np.float64)]))
            ax.plot(grid, chance_ecdf(c, grid), linestyle="--", color="grey", label=label)
        else:
            ax.stairs(_chance_shares(c, edges), edges, linestyle="--", color="grey", label=label)


def _shared(models: Mapping[str, Ranks]) -> bool:
    """Whether every model knows the same candidate counts (one chance line for all)."""
    first, *rest = [r.n_candidates for r in models.values()]
    return first is not None and all(c is not None and np.array_equal(c, first) for c in rest)


def chance_ecdf(n_candidates: ArrayLike, r: ArrayLike) -> np.ndarray:
    """The share of queries whose rank is at most ``r`` when each rank is uniformly random.

    A query with C candidates ranks its true answer at most r with probability
    min(r, C) / C (for whole r >= 0); this is the mean of that over the queries.

    Parameters
    ----------
    n_candidates : array-like of int
        C of each query.
    r : array-like
        Ranks at which to evaluate (``floor(r)`` counts for a fractional r).

    Returns
    -------
    ndarray of float64, the shape of ``r``

    Examples
    --------
    >>> from rankwise.plot import chance_ecdf
    >>> chance_ecdf([2, 4], [1, 2, 3, 4]).tolist()
    [0.375, 0.75, 0.875, 1.0]
    """
    c = np.sort(np.asarray(n_candidates, dtype=np.float64).reshape(-1))
    r = np.clip(np.floor(np.asarray(r, dtype=np.float64)), 0, None)
    if c.size == 0:
        raise ValueError("n_candidates must hold at least one query")
    # Queries with C <= r count 1 each, the others r / C: no (queries x ranks) table.
    inverse_above = np.concatenate([np.cumsum((1 / c)[::-1])[::-1], [0.0]])  # sum of 1/C over c[i:]
    at_most = np.searchsorted(c, r, side="right")
    return (at_most + r * inverse_above[at_most]) / c.shape[0]


def _chance_shares(n_candidates: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Expected share of queries in each bin [edges[i], edges[i + 1]) of whole ranks, ranks uniform."""
    below = chance_ecdf(n_candidates, np.ceil(edges) - 1)  # P(rank < edge) for whole ranks
    return np.diff(below)
