"""rankwise.ir_measures: the provider gives ir_measures' pytrec_eval numbers, per query and aggregated."""
import numpy as np
import pytest

ir_measures = pytest.importorskip("ir_measures")
rim = pytest.importorskip("rankwise.ir_measures")


def _data(seed):
    rng = np.random.default_rng(seed)
    qrels = [ir_measures.Qrel(f"q{q}", f"d{d}", int(rng.integers(-1, 4))) for q in range(8)
             for d in rng.choice(40, 12, replace=False)]
    run = [ir_measures.ScoredDoc(f"q{q}", f"d{d}", float(rng.integers(0, 20)) / 4) for q in range(9)
           for d in rng.choice(40, 25, replace=False)]
    return qrels, run


MEASURES = ["nDCG@10", "nDCG", "AP", "AP@5", "AP(judged_only=True)", "P@5", "P(rel=2)@10", "RR", "RR(rel=2)", "R@10",
            "Success@3", "Rprec", "Bpref", "infAP", "NumRet", "NumRet(rel=1)", "NumRel", "SetP", "SetP(relative=True)",
            "SetR", "SetAP", "nDCG(judged_only=True)@5"]


@pytest.mark.parametrize("seed", range(3))
def test_equals_pytrec_eval_provider(seed):
    qrels, run = _data(seed)
    measures = [ir_measures.parse_measure(m) for m in MEASURES]
    assert all(rim.provider().supports(m) for m in measures)
    theirs = ir_measures.pytrec_eval.calc(measures, qrels, run)
    ours = rim.provider().calc(measures, qrels, run)
    assert ours.aggregated.keys() == theirs.aggregated.keys()
    for m in measures:
        assert ours.aggregated[m] == pytest.approx(theirs.aggregated[m], rel=1e-12, abs=1e-12), m
    per_query = {(r.query_id, r.measure): r.value for r in theirs.per_query}
    assert {(r.query_id, r.measure): pytest.approx(r.value, rel=1e-12, abs=1e-12) for r in ours.per_query} == \
        per_query


def test_register_makes_calc_aggregate_use_rankwise():
    qrels, run = _data(5)
    provider = rim.register()
    assert rim.register() is provider and ir_measures.DefaultPipeline.providers.count(provider) == 1
    assert ir_measures.providers.registry["rankwise"] is provider
    nDCG, Judged = ir_measures.nDCG @ 10, ir_measures.Judged @ 5
    evaluator = ir_measures.DefaultPipeline.evaluator([nDCG, Judged], qrels)
    assert any(type(e).__name__ == "RankwiseEvaluator" for e in getattr(evaluator, "evaluators", [evaluator]))
    got = ir_measures.calc_aggregate([nDCG, Judged], qrels, run)     # Judged goes on to ir_measures' own
    assert got[nDCG] == pytest.approx(ir_measures.pytrec_eval.calc_aggregate([nDCG], qrels, run)[nDCG], rel=1e-12)
    assert not provider.supports(ir_measures.parse_measure("ERR@10"))
    assert not provider.supports(ir_measures.parse_measure("nDCG(dcg='exp-log2')@10"))
