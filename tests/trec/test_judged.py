"""Judged@k (ir_measures' judgement rate) and trec_eval's unj in rw.trec_eval, against
ir_measures itself, the plain definition, and each other."""
import random

import pytest

import rankwise as rw
from rankwise.cli import main
from rankwise.trec import read_example


def _case(seed, n_queries=12):
    rng = random.Random(seed)
    qrels, run = {}, {}
    for q in range(n_queries):
        docs = [f"d{i}" for i in range(rng.randint(1, 25))]
        qrels[f"q{q}"] = {d: rng.choice([0, 0, 1, 2]) for d in rng.sample(docs, rng.randint(1, len(docs)))}
        scores = rng.sample(range(1000), len(docs))    # distinct: ir_measures breaks ties otherwise
        run[f"q{q}"] = {d: s / 10 for d, s in zip(docs, scores, strict=True) if rng.random() < 0.8} or {docs[0]: 1.0}
    return qrels, run


def _plain_judged(qrels, run, k):
    out = {}
    for q, scores in run.items():
        top = sorted(scores, key=lambda d: (-scores[d], d))[:k]
        out[q] = sum(d in qrels[q] for d in top) / len(top)
    return out


@pytest.mark.parametrize("seed", range(3))
def test_judged_is_the_plain_definition_and_one_minus_unj_where_k_is_reached(seed):
    qrels, run = _case(seed)
    res = rw.trec_eval(rw.Qrels.from_dict(qrels), rw.Run.from_dict(run), ["Judged@1,5,10", "unj.5", "num_ret"])
    for k in (1, 5, 10):
        want = _plain_judged(qrels, run, k)
        assert dict(zip(res.query_ids, res[f"Judged_{k}"].tolist(), strict=True)) == pytest.approx(want)
    full = res["num_ret"] >= 5
    assert res["Judged_5"][full] == pytest.approx(1 - res["unj_5"][full])


def test_judged_equals_ir_measures():
    ir_measures = pytest.importorskip("ir_measures")
    qrels, run = _case(7, n_queries=20)
    res = rw.trec_eval(rw.Qrels.from_dict(qrels), rw.Run.from_dict(run), ["Judged@3,10,100"])
    for k in (3, 10, 100):
        measure = ir_measures.parse_measure(f"Judged@{k}")
        theirs = {m.query_id: m.value for m in ir_measures.iter_calc([measure], qrels, run)}
        assert dict(zip(res.query_ids, res[f"Judged_{k}"].tolist(), strict=True)) == pytest.approx(theirs, abs=0)
        assert res.mean()[f"Judged_{k}"] == pytest.approx(ir_measures.calc_aggregate([measure], qrels, run)[measure])


def test_judged_spellings_and_refusals():
    qrels, run = read_example()
    names = {name: rw.trec_eval(qrels, run, [name]).mean() for name in ("Judged@5", "Judged.5", "Judged_5",
                                                                         "judged@5")}
    assert all(mean == {"Judged_5": names["Judged@5"]["Judged_5"]} for mean in names.values())
    with pytest.raises(ValueError, match="needs a cutoff, e.g. 'Judged@10'"):
        rw.trec_eval(qrels, run, ["Judged"])
    assert not any(name.startswith("Judged") for name in rw.trec_eval(qrels, run, ["all_trec"]).names)


def test_judged_only_makes_every_ranking_judged(capsys):
    qrels, run = _case(3)
    res = rw.trec_eval(rw.Qrels.from_dict(qrels), rw.Run.from_dict(run), ["Judged@5", "unj.5"], judged_only=True)
    assert set(res["Judged_5"].tolist()) <= {0.0, 1.0} and not res["unj_5"].any()
    assert main(["eval", "--example", "-J", "-m", "Judged@5"]) == 0
    assert capsys.readouterr().out.startswith("Judged_5              \tall\t")
