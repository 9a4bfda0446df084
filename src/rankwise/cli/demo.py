"""The bundled example and the `rankwise demo` table: every tie policy side by side."""
from __future__ import annotations

import argparse
from collections.abc import Sequence

import numpy as np

from .._core.bundled import data_path
from ..lists import evaluate
from ..lists.names import parse_metric
from ._common import CliError, check_measures

__all__ = ["DEMO_METRICS", "add_parser", "demo_report", "load_demo", "report"]

DEMO_METRICS = ("MRR", "MAP", "nDCG@10", "P@5", "R@10", "Hits@1", "ERR@10", "RBP")
POLICIES = ("expected", "optimistic", "pessimistic", "stable", "trec")


def load_demo() -> dict[str, np.ndarray]:
    """The bundled example as arrays: ``query``, ``doc`` (str), ``score``, ``label``."""
    with open(data_path("demo.tsv"), encoding="utf-8") as f:
        text = f.read()
    rows = [line.split("\t") for line in text.splitlines()[1:] if line]
    query, doc, score, label = zip(*rows, strict=True)
    return {"query": np.array(query), "doc": np.array(doc),
            "score": np.array(score, dtype=np.float64), "label": np.array(label, dtype=np.int64)}


def _tied_share(data: dict[str, np.ndarray]) -> tuple[int, int]:
    keys = np.char.add(np.char.add(data["query"], "\t"), data["score"].astype(str))
    _, inverse, counts = np.unique(keys, return_inverse=True, return_counts=True)
    return int((counts[inverse] > 1).sum()), keys.size


def demo_report(metrics: Sequence[str] = DEMO_METRICS) -> str:
    """Evaluate the bundled example under every tie policy and format one table."""
    data = load_demo()
    columns = {}
    for ties in POLICIES:
        columns[ties] = evaluate(data["label"], data["score"], metrics, qid=data["query"],
                                 doc_ids=data["doc"], ties=ties).mean()
    reverse = slice(None, None, -1)
    columns["stable, rows reversed"] = evaluate(
        data["label"][reverse], data["score"][reverse], metrics, qid=data["query"][reverse],
        ties="stable").mean()
    tied, total = _tied_share(data)
    n_queries = np.unique(data["query"]).size
    width = max(len(m) for m in metrics)
    header = f"{'metric':<{width}}" + "".join(f"  {name:>{max(len(name), 8)}}" for name in columns)
    lines = [
        f"rankwise demo: {n_queries} queries, {total} scored documents, graded labels 0-3",
        f"{tied} of {total} scores are tied with another document of the same query "
        "(coarse scores, a binary classifier, a constant scorer).",
        "",
        header,
        "-" * len(header),
    ]
    for metric in metrics:
        cells = "".join(f"  {columns[name][metric]:>{max(len(name), 8)}.4f}" for name in columns)
        lines.append(f"{metric:<{width}}{cells}")
    lines += [
        "",
        "expected     exact mean of each metric over every ordering of tied documents (default)",
        "optimistic   tied documents ordered best label first: an upper bound",
        "pessimistic  tied documents ordered worst label first: a lower bound",
        "stable       input order breaks ties, so the same scores give other numbers when the",
        "             rows are listed in another order (compare the last column)",
        "trec         trec_eval's order: tied documents by document id, descending",
    ]
    return "\n".join(lines)


def add_parser(commands: argparse._SubParsersAction) -> None:
    demo = commands.add_parser("demo", help="evaluate the bundled example under every tie policy",
                               description="Evaluate the bundled example (graded labels, tied scores) "
                                           "and print one column per tie policy.")
    demo.add_argument("-m", "--metric", action="append", dest="metrics", metavar="NAME",
                      help=f"metric to show (repeatable); default: {' '.join(DEMO_METRICS)}")


def report(args: argparse.Namespace) -> str:
    check_measures(args.metrics, parse_metric, "-m/--metric")
    try:
        return demo_report(tuple(args.metrics) if args.metrics else DEMO_METRICS)
    except (ValueError, OverflowError) as error:
        # The metrics are the demo's only input.
        raise CliError(f"argument -m/--metric: {error}") from None
