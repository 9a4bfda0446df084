"""rankwise as a provider of ir_measures (optional extra ``ir-measures``).

``ir_measures.calc_aggregate(measures, qrels, run)`` asks its providers in turn for each
measure; :func:`register` puts rankwise first, so that every measure rankwise computes
exactly as trec_eval 10.0 does (the measures ir_measures otherwise gives to pytrec_eval)
is computed by :func:`rankwise.trec_eval`, and the others go on to ir_measures' own
providers. :func:`provider` is the provider itself, for ``provider().calc_aggregate(...)``.

>>> import ir_measures                                                     # doctest: +SKIP
>>> import rankwise.ir_measures
>>> rankwise.ir_measures.register()                                        # doctest: +SKIP
>>> ir_measures.calc_aggregate([ir_measures.nDCG@10, ir_measures.AP], qrels, run)  # doctest: +SKIP
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from .trec import Qrels, Run, trec_eval

__all__ = ["provider", "register", "trec_name"]

EXTRA = 'rankwise.ir_measures needs ir_measures: pip install "rankwise[ir-measures]"'

# ir_measures' measure -> trec_eval's root, and whether its cutoff is a parameter of the name.
_ROOTS = {"P": ("P", True), "R": ("recall", True), "Success": ("success", True), "RR": ("recip_rank", False),
          "Rprec": ("Rprec", False), "Bpref": ("bpref", False), "infAP": ("infAP", False)}
_PROVIDER: Any = None


def _ir_measures() -> Any:
    try:
        import ir_measures
    except ImportError:
        raise ImportError(EXTRA) from None
    return ir_measures


def trec_name(measure: Any) -> tuple[str, float, bool] | None:
    """(trec_eval measure name, relevance level, judged only) of an ir_measures measure that
    rankwise computes exactly as trec_eval does; None for any other."""
    name, params = measure.NAME, dict(measure.params)
    missing = _ir_measures().measures.base._NOT_PROVIDED
    cutoff, rel, judged = params.get("cutoff", missing), params.get("rel", missing), params.get("judged_only")
    level = 1.0 if rel is missing or rel is None else float(rel)
    if name in _ROOTS:
        root, takes_cutoff = _ROOTS[name]
        if takes_cutoff == (cutoff is missing):
            return None          # P, R and Success need a cutoff; the others take none
        return (f"{root}.{cutoff}" if takes_cutoff else root), level, bool(judged)
    if name == "AP":
        return ("map" if cutoff is missing else f"map_cut.{cutoff}"), level, bool(judged)
    plain_dcg = params.get("dcg", missing) in (missing, "log2") and params.get("gains", missing) is missing
    if name == "nDCG" and plain_dcg:
        return ("ndcg" if cutoff is missing else f"ndcg_cut.{cutoff}"), 1.0, bool(judged)
    if name == "NumRet":
        return ("num_ret", 1.0, False) if rel is missing else ("num_rel_ret", level, False)
    if name == "NumRel" and rel in (missing, 1):
        return "num_rel", 1.0, False
    if name == "SetP":
        return ("set_relative_P" if params.get("relative") else "set_P"), level, bool(judged)
    if name == "SetR":
        return "set_recall", level, False
    if name == "SetAP":
        return "set_map", level, bool(judged)
    return None


def _evaluations(measures: Iterable[Any]) -> dict[tuple[float, bool], dict[str, Any]]:
    """The measures grouped by trec_eval call (relevance level, judged only): name -> measure."""
    calls: dict[tuple[float, bool], dict[str, Any]] = {}
    for measure in measures:
        found = trec_name(measure)
        if found is None:
            raise ValueError(f"rankwise does not provide {measure}")
        name, level, judged = found
        calls.setdefault((level, judged), {})[name] = measure
    return calls


def _printed(name: str) -> str:
    """The column trec_eval prints for a measure asked by ``name``: ``P.10`` -> ``P_10``."""
    return name.replace(".", "_", 1) if "." in name else name


def _provider_class() -> type:
    ir_measures = _ir_measures()

    class RankwiseEvaluator(ir_measures.providers.Evaluator):  # type: ignore[name-defined]
        def __init__(self, measures: Iterable[Any], qrels: Qrels, qids: Iterable[str]) -> None:
            super().__init__(measures, qids)
            self._qrels = qrels
            self._calls = _evaluations(measures)

        def _iter_calc(self, run: Any) -> Iterator[Any]:
            frame = ir_measures.util.RunConverter(run).as_pd_dataframe()
            frame = frame.astype({"query_id": str, "doc_id": str})
            ours = Run.from_pandas(frame, "query_id", "doc_id", "score")
            for (level, judged), names in self._calls.items():
                res = trec_eval(self._qrels, ours, list(names), relevance_level=level, judged_only=judged)
                for name, measure in names.items():
                    column = res[_printed(name)]
                    for qid, value in zip(res.query_ids.tolist(), column.tolist(), strict=True):
                        yield ir_measures.Metric(query_id=str(qid), measure=measure, value=value)

    class RankwiseProvider(ir_measures.providers.Provider):  # type: ignore[name-defined]
        """rankwise: trec_eval 10.0's measures, exactly, in parallel kernels."""

        NAME = "rankwise"

        def supports(self, measure: Any) -> bool:
            measure.validate_params()
            return trec_name(measure) is not None

        def _evaluator(self, measures: Iterable[Any], qrels: Any) -> Any:
            measures = list(measures)
            frame = ir_measures.util.QrelsConverter(qrels).as_pd_dataframe()
            ours = Qrels.from_pandas(frame.astype({"query_id": str, "doc_id": str}), "query_id", "doc_id",
                                     "relevance")
            return RankwiseEvaluator(measures, ours, [str(q) for q in frame["query_id"].unique()])

    return RankwiseProvider


def provider() -> Any:
    """The rankwise provider of ir_measures (one instance)."""
    global _PROVIDER
    if _PROVIDER is None:
        _PROVIDER = _provider_class()()
    return _PROVIDER


def register() -> Any:
    """Make rankwise ir_measures' first provider: ``ir_measures.calc_aggregate`` (and
    ``iter_calc``, ``calc``, ``evaluator``) then compute with rankwise every measure it
    provides. Also ``ir_measures.providers.registry["rankwise"]``. Idempotent; returns
    the provider.
    """
    ir_measures = _ir_measures()
    ours = provider()
    pipeline = ir_measures.DefaultPipeline.providers
    if ours not in pipeline:
        pipeline.insert(0, ours)
    ir_measures.providers.registry["rankwise"] = ours
    return ours
