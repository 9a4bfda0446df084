"""rw.trec_eval against the pure-Python model of trec_eval 10.0 (reference_trec.py) on random data.

Random qrels/runs (reference_trec.random_case): graded labels 0-3 and negative ones (pooled,
unjudged), scores rounded to 1-2 decimals (heavy ties), relevant documents never retrieved,
queries with no relevant document, one-document queries, queries only in the run or only in
the qrels, numeric-looking and non-ASCII ids. Every supported measure, per query to 1e-12,
with complete on/off, relevance levels 1 and 2, and depth off / small. The tie policies
"optimistic", "pessimistic" and "stable" are checked against the model with the matching
order, and "expected" against a brute force over every ordering of the tied documents.
"""
from __future__ import annotations

import itertools
import math
import random
from collections import Counter

import numpy as np
import pytest

import rankwise as rw
from rankwise.testing import trec as ref

MEASURE_GROUPS = {
    "all_trec": ["all_trec"],
    "params": ["P.1,2,3,7", "P_4", "recall.1,3,1000", "ndcg_cut.1,3,4", "map_cut.2,3", "relative_P.1,2,3,50",
               "success.1,2,3", "iprec_at_recall..05,.15,.25,.33,.5,.65,.75,1", "11pt_avg..25,.5,.75",
               "Rprec_mult.0.5,0.35,1.5,3", "utility.2,-1,0.5,0.25", "ndcg.0=0,1=2.5,2=1,3=7", "set_F.0.5"],
    # a negative gain counts in the DCG, never in the ideal; utility's fourth coefficient
    # multiplies (N + rel_ret - ret - R) with trec_eval's default N = 0
    "signs": ["ndcg.1=-1,3=5", "utility.0,0,0,-1"],
    # trec_eval's own readings of odd parameters: 11pt_avg's points as given, fractions
    # outside [0, 1], gains for documents absent from the qrels (-1) and unjudged ones (-2)
    "odd": ["11pt_avg.1,0.5,0.5,-1,0.25,2", "iprec_at_recall.-2,1.5", "Rprec_mult.-1,0,7.5",
            "ndcg.-1=0.5,-2=2,2=5", "P.9223372036854775807", "utility.1,-2,3,-4"],
}
CONFIGS = [dict(complete=c, relevance_level=lv, depth=d)
           for c in (False, True) for lv in (1, 2) for d in (None, 1, 3)]


def _config_id(config):
    return f"c{int(config['complete'])}-l{config['relevance_level']}-M{config['depth']}"


def _objects(qrels, run):
    return rw.Qrels.from_dict(qrels), rw.Run.from_dict(run)


def check_against(want: ref.Result, got, context: str):
    assert list(got.names) == want.names, context
    assert list(got.query_ids) == want.query_ids, context
    for name in want.names:
        expected = np.array([want.per_query[q][name] for q in want.query_ids], dtype=float)
        column = np.asarray(got[name])
        assert column.dtype == np.float64 and column.shape == expected.shape, (context, name)
        np.testing.assert_allclose(column, expected, rtol=1e-12, atol=1e-12,
                                   err_msg=f"{context}: {name} per query {want.query_ids}")
    mean = got.mean()
    assert list(mean) == want.names
    counts = []
    for name, value in want.summary.items():
        if name.split("_")[0] != "num":
            assert math.isclose(mean[name], value, rel_tol=1e-12, abs_tol=1e-12) or \
                math.isnan(mean[name]) and math.isnan(value), (context, name, mean[name], value)
        elif isinstance(value, int):
            assert type(mean[name]) is int and mean[name] == value, (context, name)
        elif not math.isclose(mean[name], value, rel_tol=1e-12):
            # ties="expected" with a depth: the expected counts are fractional; their sum is too
            counts.append(f"{name}: summary {mean[name]!r}, sum of the per-query values {value!r}")
    assert not counts, f"{context}: " + "; ".join(counts)


def compare(qrels, run, measures, context="", **options):
    got = rw.trec_eval(*_objects(qrels, run), measures, **options)
    want = ref.evaluate(qrels, run, measures, **options)
    check_against(want, got, f"{context} {measures} {options}")
    return got, want


@pytest.mark.parametrize("config", CONFIGS, ids=_config_id)
@pytest.mark.parametrize("seed", range(8))
def test_every_measure_matches_the_model(seed, config):
    rng = random.Random(1000 * seed + 17)
    qrels, run = ref.random_case(rng, n_queries=9, all_negative=seed % 2 == 1)
    for group in MEASURE_GROUPS.values():
        compare(qrels, run, group, f"seed {seed}", ties="trec", **config)


@pytest.mark.parametrize("config", [dict(complete=False, relevance_level=1, depth=None),
                                    dict(complete=True, relevance_level=2, depth=1000)], ids=_config_id)
def test_long_rankings_reach_every_default_cutoff(config):
    rng = random.Random(2024)
    qrels, run = {}, {}
    for qid, n in (("big", 2500), ("mid", 1200), ("small", 40)):
        docs = [f"D{i:05d}" for i in range(n)]
        qrels[qid] = {d: rng.choice([0, 0, 0, 1, 2, 3, -1]) for d in rng.sample(docs, n // 3)}
        qrels[qid].update({f"unretrieved-{i}": 1 for i in range(5)})
        run[qid] = {d: round(rng.random(), 2) for d in docs}
    for group in MEASURE_GROUPS.values():
        compare(qrels, run, group, "long", **config)


def test_dcg_discounts_on_either_side_of_the_table():
    # Discounts of ranks below 4096 are looked up, the others computed: relevant documents
    # ranked on either side of it, and a query whose ideal ranking runs past it.
    rng = random.Random(4096)
    docs = [f"D{i:05d}" for i in range(4200)]
    run = {"q": {d: 4200.0 - i for i, d in enumerate(docs)},
           "r": {d: round(rng.random(), 2) for d in docs}}
    qrels = {"q": {docs[i]: rng.choice([1, 2, 3]) for i in (0, 4093, 4094, 4095, 4096, 4150)},
             "r": {d: rng.choice([0, 1, 2]) for d in docs}}
    measures = ["ndcg", "ndcg_cut.4095,4096,4097,5000", "ndcg.0=0,1=2.5,2=1,3=7"]
    for ties in ("trec", "optimistic"):
        compare(qrels, run, measures, "long", ties=ties)
    # Without ties the expectation is the ranking's own value (its own code path).
    alone = {"q": qrels["q"]}, {"q": run["q"]}
    expected = rw.trec_eval(*_objects(*alone), measures, ties="expected")
    ordered = rw.trec_eval(*_objects(*alone), measures)
    for name in ordered.mean():
        np.testing.assert_allclose(expected[name], ordered[name], rtol=1e-15, atol=0)


def test_random_cases_cover_the_edge_cases():
    """The generator really produces what the module docstring promises (so the tests are not vacuous)."""
    seen = Counter()
    for seed in range(4):
        qrels, run = ref.random_case(random.Random(1000 * seed + 17), n_queries=9, all_negative=seed % 2 == 1)
        seen["run only"] += len(set(run) - set(qrels))
        seen["qrels only"] += len(set(qrels) - set(run))
        for q, judged in qrels.items():
            seen["no relevant"] += all(v < 1 for v in judged.values())
            seen["unjudged"] += any(v < 0 for v in judged.values())
            seen["grade 3"] += any(v == 3 for v in judged.values())
            retrieved = run.get(q, {})
            seen["relevant not retrieved"] += any(v > 0 and d not in retrieved for d, v in judged.items())
            seen["unjudged retrieved"] += any(d in retrieved and v < 0 for d, v in judged.items())
            seen["nonpool retrieved"] += any(d not in judged for d in retrieved)
        for docs in run.values():
            seen["one document"] += len(docs) == 1
            seen["tied scores"] += len(set(docs.values())) < len(docs)
            seen["9 and 10"] += "9" in docs and "10" in docs
            seen["non-ASCII"] += any(not d.isascii() for d in docs)
    assert all(seen[k] > 0 for k in ("run only", "qrels only", "no relevant", "unjudged", "grade 3",
                                      "relevant not retrieved", "unjudged retrieved", "nonpool retrieved",
                                      "one document", "tied scores", "9 and 10", "non-ASCII")), seen


def test_trec_is_the_default_policy():
    qrels, run = ref.random_case(random.Random(5), n_queries=8)
    a = rw.trec_eval(*_objects(qrels, run), ["all_trec"])
    b = rw.trec_eval(*_objects(qrels, run), ["all_trec"], ties="trec")
    assert a.format(per_query=True) == b.format(per_query=True)


def test_docno_ties_are_broken_byte_wise_descending():
    # "9" > "10" > "1" byte-wise; "\u00e9" (UTF-8 c3 a9) > "z"; every score tied
    qrels = {"q": {"9": 0, "10": 1, "1": 0, "\u00e9": 0, "z": 0}}
    run = {"q": {"1": 1.0, "10": 1.0, "9": 1.0, "z": 1.0, "\u00e9": 1.0}}
    res = rw.trec_eval(*_objects(qrels, run), ["recip_rank", "P.3,4"])
    assert res["recip_rank"][0] == 1 / 4   # order: \u00e9, z, 9, 10, 1
    assert res["P_3"][0] == 0 and res["P_4"][0] == 1 / 4
    assert ref.rank(run["q"], qrels["q"]) == ["\u00e9", "z", "9", "10", "1"]


def test_signed_zero_and_tiny_scores_compare_as_numbers():
    # -0.0 == 0.0 is a tie (docno descending: "b" first); 5e-324 > 0.0; 1.00000001 > 1.0 in float64
    qrels = {"q": {"a": 1, "b": 0, "c": 0, "d": 0, "e": 0}}
    run = {"q": {"a": 0.0, "b": -0.0, "c": 5e-324, "d": 1.00000001, "e": 1.0}}
    res = rw.trec_eval(*_objects(qrels, run), "recip_rank")
    assert ref.rank(run["q"], qrels["q"]) == ["d", "e", "c", "b", "a"]
    assert res["recip_rank"][0] == 1 / 5


# ----------------------------------------------------------------- other deterministic tie policies

@pytest.mark.parametrize("ties", ["optimistic", "pessimistic", "stable"])
@pytest.mark.parametrize("seed", range(8))
def test_tie_policies_match_the_model(ties, seed):
    rng = random.Random(7919 * seed + 3)
    qrels, run = ref.random_case(rng, n_queries=9)
    config = CONFIGS[(seed * 5 + len(ties)) % len(CONFIGS)]
    for group in MEASURE_GROUPS.values():
        compare(qrels, run, group, f"seed {seed}", ties=ties, **config)


def test_tie_policies_order_as_documented():
    # one tie group: nonrelevant "z", grade-2 "m", grade-1 "a", unjudged "u" (-1), nonpool "n"
    qrels = {"q": {"z": 0, "m": 2, "a": 1, "u": -1}}
    run = {"q": {"a": 0.5, "z": 0.5, "n": 0.5, "m": 0.5, "u": 0.5, "top": 0.9}}
    assert ref.rank(run["q"], qrels["q"], "optimistic") == ["top", "m", "a", "z", "u", "n"]
    assert ref.rank(run["q"], qrels["q"], "pessimistic") == ["top", "z", "u", "n", "a", "m"]
    assert ref.rank(run["q"], qrels["q"], "stable") == ["top", "a", "z", "n", "m", "u"]
    ndcg = {}
    for ties in ("optimistic", "pessimistic", "stable", "trec"):
        res = rw.trec_eval(*_objects(qrels, run), ["ndcg_cut.3", "recip_rank", "P.2"], ties=ties)
        want = ref.evaluate(qrels, run, ["ndcg_cut.3", "recip_rank", "P.2"], ties=ties)
        check_against(want, res, ties)
        ndcg[ties] = res["ndcg_cut_3"][0]
    assert ndcg["optimistic"] > ndcg["stable"] > ndcg["pessimistic"] == 0.0
    assert rw.trec_eval(*_objects(qrels, run), "recip_rank", ties="pessimistic")["recip_rank"][0] == 1 / 5


LONG_TIE_MEASURES = ["map", "P.5,30,200", "recall.100", "ndcg", "ndcg_cut.50", "bpref", "recip_rank", "Rprec",
                     "infAP", "num_rel_ret"]


def _long_tie_case(rng: random.Random, text: bool) -> tuple[dict, dict]:
    """Queries whose hundreds of judged documents share a few scores (one: a single score)."""
    qrels: dict = {}
    run: dict = {}
    for q, values in enumerate([[0.5], [0.5, 0.25], [1.0, 0.5, 0.25, 0.125], [0.5] + [0.1 * i for i in range(9)]]):
        ids = rng.sample(range(1, 10**5), 420)
        docs = [(rng.choice(["d", "d0", "\u00e9", "D", ""]) + str(i) if text else str(i)) for i in ids]
        docs = [d if d else "x" for d in docs]
        qrels[str(10 * q + 9)] = {d: rng.choice([0, 0, 1, 2, 3, -1]) for d in docs[:220]}
        run[str(10 * q + 9)] = {d: rng.choice(values) for d in docs[20:]}
    return qrels, run


@pytest.mark.parametrize("text", [True, False], ids=["string-ids", "integer-ids"])
@pytest.mark.parametrize("ties", ["trec", "optimistic", "pessimistic", "stable"])
def test_long_tie_groups_of_judged_documents(ties, text):
    # Each row finds the judged documents that go before it in its tie group by galloping
    # and bisecting past a few: every length of group and of the part ahead of the row.
    qrels, run = _long_tie_case(random.Random(len(ties) + 10 * text), text)
    want = ref.evaluate(qrels, run, LONG_TIE_MEASURES, ties=ties)
    if text:
        check_against(want, rw.trec_eval(*_objects(qrels, run), LONG_TIE_MEASURES, ties=ties), ties)
        return
    arrays = [[(int(q), int(d), v) for q, judged in rows.items() for d, v in judged.items()] for rows in (qrels, run)]
    objects = (rw.Qrels.from_arrays(*map(np.array, zip(*arrays[0], strict=True))),
               rw.Run.from_arrays(*map(np.array, zip(*arrays[1], strict=True))))
    got = rw.trec_eval(*objects, LONG_TIE_MEASURES, ties=ties)
    assert [str(q) for q in got.query_ids] == want.query_ids
    for name in want.names:
        np.testing.assert_allclose(got[name], [want.per_query[q][name] for q in want.query_ids], rtol=1e-12,
                                   err_msg=f"{ties}: {name}")


# ----------------------------------------------------------------- ties="expected" by brute force

EXPECTED_MEASURES = ["num_ret", "num_rel", "num_rel_ret", "map", "Rprec", "recip_rank", "P.1,2,3,5", "recall.1,2,3",
                     "ndcg", "ndcg_cut.1,2,3,5", "map_cut.1,2,3", "relative_P.1,2,3", "success.1,2,3",
                     "Rprec_mult.0.5,1.0,1.5,3", "utility.2,-1,0.5,0.25", "set_P", "set_relative_P", "set_recall",
                     "num_nonrel_judged_ret"]
EXPECTED_SET = ["set_map", "set_F.0.5"]          # refused with a depth
EXPECTED_GAINS = ["ndcg.0=0,1=2.5,2=1,3=7", "ndcg.-1=0.5,-2=2,2=5", "success.9223372036854775807",
                  "P.9223372036854775807", "Rprec_mult.-1,7.5"]
NO_EXPECTATION = ["bpref", "gm_bpref", "infAP", "iprec_at_recall", "11pt_avg", "gm_map", "iprec_at_recall..5",
                  "11pt_avg..25,.5"]


def brute_force_expected(qrels, run, measures, *, complete=False, relevance_level=1, depth=None,
                         judged_only=False) -> ref.Result:
    """The mean of the model's values over every ordering of each query's tied documents."""
    specs = ref.parse(measures)
    qids = list(qrels) if complete else [q for q in qrels if q in run]
    per_query = {}
    for qid in sorted(qids, key=lambda q: q.encode()):
        judged, scores = qrels[qid], run.get(qid, {})
        groups = [[d for d in scores if scores[d] == s] for s in sorted(set(scores.values()), reverse=True)]
        assert math.prod(math.factorial(len(g)) for g in groups) <= 50_000
        seen = Counter()
        for parts in itertools.product(*(itertools.permutations(g) for g in groups)):
            rels = tuple(ref.relevance_list([d for part in parts for d in part], judged))
            rels = rels[:depth] if depth is not None else rels
            seen[tuple(r for r in rels if r >= 0) if judged_only else rels] += 1
        total = sum(seen.values())
        sums: dict = {}
        for rels, count in seen.items():
            for name, v in ref.query_values(list(rels), judged, specs, relevance_level, judged_only).items():
                sums[name] = sums.get(name, 0.0) + count * v
        per_query[qid] = {name: s / total for name, s in sums.items()}
    names = [s.name for s in specs if s.root not in ("runid", "num_q")]
    summary = ref.summarize(specs, per_query, qrels if complete else None)
    return ref.Result(names, specs, list(per_query), per_query, summary, len(per_query))


def _small_tied_case(seed):
    rng = random.Random(31337 + seed)
    return ref.random_case(rng, n_queries=7, max_docs=6, score_values=lambda r: r.choice([0.0, 0.5, 1.0, 1.0, 2.0]))


@pytest.mark.parametrize("config", [dict(complete=False, relevance_level=1, depth=None),
                                    dict(complete=True, relevance_level=2, depth=None),
                                    dict(complete=False, relevance_level=1, depth=2),
                                    dict(complete=True, relevance_level=1, depth=3)], ids=_config_id)
@pytest.mark.parametrize("seed", range(6))
def test_expected_ties_match_brute_force(seed, config):
    qrels, run = _small_tied_case(seed)
    groups = [EXPECTED_MEASURES, EXPECTED_GAINS] + ([EXPECTED_SET] if config["depth"] is None else [])
    failures = []
    for measures in groups:
        got = rw.trec_eval(*_objects(qrels, run), measures, ties="expected", **config)
        want = brute_force_expected(qrels, run, measures, **config)
        try:
            check_against(want, got, f"expected, seed {seed}, {config}")
        except AssertionError as error:
            failures.append(str(error))
    assert not failures, "\n".join(failures)


def test_expected_fractional_counts_are_summed_not_truncated():
    # One relevant and one nonrelevant document tied, depth 1: the top document is relevant
    # with probability 1/2, so E[num_rel_ret] = E[num_nonrel_judged_ret] = 0.5 = E[P_1].
    qrels, run = {"q": {"a": 1, "b": 0}}, {"q": {"a": 1.0, "b": 1.0}}
    res = rw.trec_eval(*_objects(qrels, run), ["num_ret", "num_rel_ret", "P.1", "num_nonrel_judged_ret"],
                       ties="expected", depth=1)
    assert res["num_rel_ret"][0] == 0.5 and res["num_nonrel_judged_ret"][0] == 0.5 and res["P_1"][0] == 0.5
    mean = res.mean()
    assert mean["num_ret"] == 1 and mean["P_1"] == 0.5
    assert mean["num_rel_ret"] == 0.5 and mean["num_nonrel_judged_ret"] == 0.5, mean


def test_expected_ties_do_not_depend_on_row_order_or_docnos():
    qrels, run = _small_tied_case(9)
    rng = random.Random(4)
    shuffled = {}
    for q in reversed(list(run)):
        items = list(run[q].items())
        rng.shuffle(items)
        shuffled[q] = dict(items)
    a = rw.trec_eval(*_objects(qrels, run), EXPECTED_MEASURES, ties="expected")
    b = rw.trec_eval(*_objects(qrels, shuffled), EXPECTED_MEASURES, ties="expected")
    for name in a.names:
        np.testing.assert_allclose(a[name], b[name], rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("measure", NO_EXPECTATION)
def test_expected_ties_refuse_measures_without_closed_form(measure):
    qrels, run = _small_tied_case(0)
    with pytest.raises(ValueError, match=measure.split(".")[0]):
        rw.trec_eval(*_objects(qrels, run), ["map", measure], ties="expected")


@pytest.mark.parametrize("measure", ["set_map", "set_F", "set_F.0.5"])
def test_expected_ties_refuse_set_map_and_set_f_with_a_depth(measure):
    qrels, run = _small_tied_case(1)
    rw.trec_eval(*_objects(qrels, run), measure, ties="expected")       # fine without a depth
    with pytest.raises(ValueError, match="set_"):
        rw.trec_eval(*_objects(qrels, run), measure, ties="expected", depth=2)


# ----------------------------------------------------------------- judged_only (trec_eval -J)

JUDGED_MEASURES = ["all_trec", "unj.1,2,3,7"]


@pytest.mark.parametrize("ties", ["trec", "optimistic", "pessimistic", "stable"])
@pytest.mark.parametrize("seed", range(3))
def test_judged_only_matches_the_model(ties, seed):
    rng = random.Random(4409 * seed + 11)
    qrels, run = ref.random_case(rng, n_queries=9)
    config = CONFIGS[(seed * 3 + len(ties)) % len(CONFIGS)]
    compare(qrels, run, JUDGED_MEASURES, f"seed {seed}", ties=ties, judged_only=True, **config)


@pytest.mark.parametrize("complete", [False, True])
@pytest.mark.parametrize("seed", range(3))
def test_judged_only_expected_ties_match_brute_force(seed, complete):
    qrels, run = _small_tied_case(seed)
    measures = [*EXPECTED_MEASURES, "unj.1,2,5"]
    got = rw.trec_eval(*_objects(qrels, run), measures, ties="expected", complete=complete, judged_only=True)
    check_against(brute_force_expected(qrels, run, measures, complete=complete, judged_only=True), got,
                  f"judged_only, expected, seed {seed}")


def test_judged_only_refuses_expected_with_a_depth():
    qrels, run = _small_tied_case(0)
    with pytest.raises(ValueError, match="judged_only=True with depth= cannot honour ties='expected'"):
        rw.trec_eval(*_objects(qrels, run), ["map"], ties="expected", judged_only=True, depth=3)
    with pytest.raises(TypeError, match="judged_only must be True or False"):
        rw.trec_eval(*_objects(qrels, run), ["map"], judged_only=1)
