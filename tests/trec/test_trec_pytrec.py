"""Differential tests against pytrec_eval (pytrec-eval-terrier: trec_eval 9.x compiled in).

pytrec_eval keeps run scores as float32 (research/ir-anchors.md §7), so the random scores
here are exactly representable in float32. Every measure both libraries compute is compared
per query to 1e-12. Where trec_eval 9.x (pytrec_eval) and 10.0 (rankwise) differ, rankwise
follows 10.0 and the difference is pinned with a constructed case:
- iprec_at_recall / 11pt_avg turn recall fraction p into lround(p * R) relevant documents in
  10.0 and (long)(p * R + 0.9) in 9.x; the random comparison therefore uses the default
  points only on queries where both roundings agree, plus points 0, 0.5 and 1 (always equal);
- queries of the qrels missing from the run: 10.0's -c (``complete=True``) lists them with
  zeros; pytrec_eval has no -c and leaves them out.
pytrec_eval cannot express utility coefficients with a sign, custom nDCG gains or depth (-M),
so those are covered by test_trec_reference.py and test_trec_oracle.py only.
"""
from __future__ import annotations

import math
import random

import numpy as np
import pytest

import rankwise as rw
from rankwise.testing import trec as ref

pytrec_eval = pytest.importorskip("pytrec_eval")

DEFAULTS = ["map", "gm_map", "Rprec", "bpref", "gm_bpref", "recip_rank", "P", "recall", "infAP", "Rprec_mult",
            "utility", "ndcg", "ndcg_cut", "map_cut", "relative_P", "success", "set_P", "set_relative_P",
            "set_recall", "set_map", "set_F", "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret"]
PARAMETERS = ["P.1,2,3,7", "recall.1,3", "ndcg_cut.1,3,4", "map_cut.2,3", "relative_P.1,2,3", "success.1,2,3",
              "Rprec_mult.0.35,0.5,1.5,3", "set_F.0.5", "iprec_at_recall.0.0,0.5,1.0", "11pt_avg.0.0,0.5,1.0"]
ROUNDED = ["iprec_at_recall", "11pt_avg"]       # default points: compared where 9.x and 10.0 round alike
GEOMETRIC = {"gm_map", "gm_bpref"}              # pytrec_eval gives log(max(value, 1e-5)) per query


def float32_score(r: random.Random) -> float:
    if r.random() < 0.6:
        return r.randint(0, 8) / 4            # heavy ties
    return r.randint(-1000, 1000) / 256


def _case(seed):
    return ref.random_case(random.Random(424242 + seed), n_queries=10, score_values=float32_score)


def _rankwise(qrels, run, measures, **options):
    return rw.trec_eval(rw.Qrels.from_dict(qrels), rw.Run.from_dict(run), measures, **options)


def _pytrec(qrels, run, measures, level):
    return pytrec_eval.RelevanceEvaluator(qrels, set(measures), relevance_level=level).evaluate(run)


def _column_for(name: str, names) -> str:
    """pytrec_eval prints 11pt_avg and set_F without their parameters."""
    if name in names:
        return name
    matches = [n for n in names if n.startswith(name + "_")]
    assert len(matches) == 1, (name, names)
    return matches[0]


def _agrees(p: float, num_rel: int) -> bool:
    x = p * num_rel
    lround = math.floor(x) + (1 if x - math.floor(x) >= 0.5 else 0)
    return lround == int(x + 0.9)


def compare_with_pytrec(qrels, run, measures, level, rounded_only_where_equal=False):
    res = _rankwise(qrels, run, measures, relevance_level=level)
    theirs = _pytrec(qrels, run, measures, level)
    ours = {q: i for i, q in enumerate(res.query_ids)}
    # pytrec_eval evaluates the queries in both qrels and run (some versions drop queries
    # with no relevant document); rankwise evaluates all of those
    assert set(theirs) <= set(ours)
    for q in set(ours) - set(theirs):
        assert not any(v >= level for v in qrels[q].values()), q
    assert len(theirs) >= 3
    compared = 0
    for qid, values in theirs.items():
        num_rel = sum(1 for v in qrels[qid].values() if v >= level)
        for name, value in values.items():
            if name in ("runid", "num_q"):
                continue
            column = _column_for(name, res.names)
            mine = float(res[column][ours[qid]])
            if rounded_only_where_equal and name.startswith("iprec_at_recall_"):
                if not _agrees(float(name.rsplit("_", 1)[1]), num_rel):
                    continue
            if rounded_only_where_equal and name == "11pt_avg":
                if not all(_agrees(p / 10, num_rel) for p in range(11)):
                    continue
            if name in GEOMETRIC:
                mine = math.log(max(mine, 1e-5))
            assert math.isclose(mine, value, rel_tol=1e-12, abs_tol=1e-12), (qid, name, mine, value)
            compared += 1
    return compared


@pytest.mark.parametrize("level", [1, 2])
@pytest.mark.parametrize("seed", range(10))
def test_every_shared_measure_matches_pytrec_eval(seed, level):
    qrels, run = _case(seed)
    compared = compare_with_pytrec(qrels, run, DEFAULTS, level)
    compared += compare_with_pytrec(qrels, run, PARAMETERS, level)
    compared += compare_with_pytrec(qrels, run, ROUNDED, level, rounded_only_where_equal=True)
    assert compared >= 300


def test_float32_scores_are_what_pytrec_eval_sees():
    qrels, run = _case(0)
    for docs in run.values():
        for score in docs.values():
            assert float(np.float32(score)) == score


# ------------------------------------------------------------------ where 9.x and 10.0 differ

def test_iprec_rounding_follows_trec_eval_10():
    # R = 3; relevant at ranks 1, 5, 6. Recall 0.4 needs lround(1.2) = 1 relevant document in
    # 10.0 (best precision from rank 1 on: 1.0) and (long)(1.2 + 0.9) = 2 in 9.x (from rank 5
    # on: max(2/5, 3/6) = 0.5).
    qrels = {"q": {"r1": 1, "r2": 1, "r3": 1, "n1": 0, "n2": 0, "n3": 0}}
    run = {"q": {"r1": 6.0, "n1": 5.0, "n2": 4.0, "n3": 3.0, "r2": 2.0, "r3": 1.0}}
    measures = ["iprec_at_recall.0.4", "11pt_avg.0.4,1.0"]
    res = _rankwise(qrels, run, measures)
    assert res["iprec_at_recall_0.40"][0] == 1.0
    assert res[_column_for("11pt_avg", res.names)][0] == (1.0 + 0.5) / 2
    model = ref.evaluate(qrels, run, measures)
    assert model.per_query["q"]["iprec_at_recall_0.40"] == 1.0
    theirs = _pytrec(qrels, run, measures, 1)["q"]
    assert theirs["iprec_at_recall_0.40"] == 0.5            # trec_eval 9.x
    assert theirs["11pt_avg"] == (0.5 + 0.5) / 2


def test_missing_queries_follow_trec_eval_10():
    qrels = {"q1": {"a": 1, "b": 0}, "q2": {"c": 2, "d": 1, "e": 0}}
    run = {"q1": {"a": 0.5, "b": 0.25}, "q3": {"a": 1.0}}         # q2 missing, q3 unjudged
    measures = ["map", "P.1", "ndcg", "num_ret", "num_rel", "num_rel_ret", "recip_rank"]
    theirs = _pytrec(qrels, run, measures, 1)
    assert set(theirs) == {"q1"}
    plain = _rankwise(qrels, run, measures)
    assert list(plain.query_ids) == ["q1"] and plain.mean()["map"] == theirs["q1"]["map"] == 1.0
    complete = _rankwise(qrels, run, measures, complete=True)
    assert list(complete.query_ids) == ["q1", "q2"]
    assert complete["num_rel"][1] == 2
    for name in ("map", "P_1", "ndcg", "num_ret", "num_rel_ret", "recip_rank"):
        assert complete[name][1] == 0.0
    mean = complete.mean()
    assert mean["map"] == 0.5 and mean["num_rel"] == 3 and mean["num_ret"] == 2
    assert "q2" in complete.format(per_query=True)
