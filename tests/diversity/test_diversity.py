"""rankwise.evaluate_diversity and subtopic Qrels against ndeval (rankwise.testing.diversity, pyndeval)."""
import math
from fractions import Fraction

import numpy as np
import pytest

import rankwise as rw
from rankwise.testing import diversity as ref

UNCUT = ("NRBP", "nNRBP", "AP_IA")
NDEVAL_NAMES = {"alpha_DCG": "alpha-DCG", "alpha_nDCG": "alpha-nDCG", "ERR_IA": "ERR-IA", "nERR_IA": "nERR-IA",
                "NRBP": "NRBP", "nNRBP": "nNRBP", "AP_IA": "MAP-IA", "P_IA": "P-IA", "StRecall": "strec"}


def _names(ks):
    return [m for m in ref.MEASURES if m in UNCUT] + \
        [f"{m}@{k}" for m in ref.MEASURES if m not in UNCUT for k in ks] + ["ERR_IA", "alpha_nDCG", "StRecall"]


def _case(seed, n_queries=5, ties=True):
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(n_queries):
        docs = [f"d{i}" for i in range(int(rng.integers(1, 12)))]
        subtopics = rng.choice([1, 2, 3, 10, 11], int(rng.integers(1, 5)), replace=False)
        qrels[f"q{q}"] = {str(s): {d: int(rng.choice([0, 0, 1, 2])) for d in
                                   rng.choice(docs, int(rng.integers(1, len(docs) + 1)), replace=False)}
                          for s in subtopics}
        pool = docs + ["x1", "x2"]
        picked = rng.choice(pool, int(rng.integers(1, len(pool) + 1)), replace=False)
        scores = rng.integers(0, 4, picked.size) / 2 if ties else rng.random(picked.size)
        run[f"q{q}"] = {str(d): float(s) for d, s in zip(picked, scores, strict=True)}
    run["only_in_run"] = {"d1": 1.0}
    return qrels, run


def _value(qrels, run, query, name, alpha=0.5, beta=0.5):
    measure, _, k = name.partition("@")
    return ref.ndeval_topic(qrels[query], run[query], measure, int(k) if k else None, alpha, beta)


@pytest.mark.parametrize("seed", range(8))
def test_random_against_reference(seed):
    qrels, run = _case(seed)
    alpha, beta = [(0.5, 0.5), (0.25, 0.8), (1.0, 0.5), (0.0, 0.9)][seed % 4]
    names = _names([1, 2, 5, 30])
    res = rw.evaluate_diversity(rw.Qrels.from_dict(qrels, subtopics=True), rw.Run.from_dict(run), names,
                                alpha=alpha, beta=beta, n_threads=1 + seed % 2)
    assert list(res.query_ids) == list(qrels)
    for i, query in enumerate(res.query_ids):
        for name in names:
            assert math.isclose(res[name][i], _value(qrels, run, query, name, alpha, beta), rel_tol=1e-12,
                                abs_tol=1e-15), (query, name)


def test_against_pyndeval():
    pyndeval = pytest.importorskip("pyndeval")
    qrels, run = _case(11, n_queries=8, ties=False)
    names = _names([2, 5, 20])
    res = rw.evaluate_diversity(rw.Qrels.from_dict(qrels, subtopics=True), rw.Run.from_dict(run), names)
    theirs = [NDEVAL_NAMES[n.partition("@")[0]] + n[len(n.partition("@")[0]):] for n in names]
    out = pyndeval.ndeval([pyndeval.SubtopicQrel(q, s, d, g) for q, t in qrels.items() for s, grades in t.items()
                           for d, g in grades.items()],
                          [pyndeval.ScoredDoc(q, d, s) for q, r in run.items() for d, s in r.items()],
                          measures=[t for t, n in zip(theirs, names, strict=True) if "@" in n or n in UNCUT])
    compared = 0
    for i, query in enumerate(res.query_ids):
        if not any(g >= 1 for grades in qrels[query].values() for g in grades.values()):
            continue        # ndeval's nNRBP is 0/0 there; rankwise gives 0
        for name, their in zip(names, theirs, strict=True):
            if their in out[query]:
                assert math.isclose(res[name][i], out[query][their], rel_tol=1e-9, abs_tol=1e-12), (query, name)
                compared += 1
    assert compared > 50


def test_hand_worked_fractions():
    # Subtopic 1: d1, d2; subtopic 2: d3. Run d1 > d2 > d3: gains 1, 1/2, 1. The greedy ideal
    # takes d3 (ties of gain 1 go to the larger docno), d2, then d1: gains 1, 1, 1/2.
    qrels = rw.Qrels.from_dict({"q": {"1": {"d1": 1, "d2": 2, "d4": 0}, "2": {"d3": 1}, "3": {"d1": 0}}},
                               subtopics=True)
    run = rw.Run.from_dict({"q": {"d1": 3.0, "d2": 2.0, "d3": 1.0, "d9": 0.5}})
    want = {
        "ERR_IA@3": Fraction(19, 12) / Fraction(8, 3),         # (1 + 1/4 + 1/3) / (2 + 1/2 + 1/6)
        "nERR_IA@3": Fraction(19, 12) / Fraction(5, 3),        # ideal: 1 + 1/2 + 1/6
        "NRBP": Fraction(3, 2) * Fraction(3, 4) / 2,           # (1 + 1/4 + 1/4)(1 - 1/4) / 2
        "nNRBP": Fraction(3, 2) / Fraction(13, 8),             # ideal: 1 + 1/2 + 1/8
        "P_IA@3": Fraction(3, 6), "P_IA@8": Fraction(3, 16),   # pairs / (k * subtopics)
        "StRecall@1": Fraction(1, 2), "StRecall@3": Fraction(1),
        "AP_IA": (Fraction(1) + Fraction(1, 3)) / 2,           # subtopic 1: (1 + 1) / 2; subtopic 2: 1/3
    }
    res = rw.evaluate_diversity(qrels, run, list(want))
    for name, value in want.items():
        assert res[name][0] == pytest.approx(float(value), rel=1e-15), name
    dcg = 1 + 0.5 / math.log2(3) + 1 / 2
    ideal = 1 + 1 / math.log2(3) + 0.5 / 2
    assert res_value(qrels, run, "alpha_nDCG@3") == pytest.approx(dcg / ideal, rel=1e-14)


def res_value(qrels, run, name, **options):
    return float(rw.evaluate_diversity(qrels, run, name, **options)[name][0])


def test_ndeval_spellings_and_topics_evaluated():
    qrels = rw.Qrels.from_dict({"q1": {"1": {"a": 1}}, "q2": {"1": {"b": 1}}, "q3": {"1": {"c": 0}}},
                               subtopics=True)
    run = rw.Run.from_dict({"q3": {"c": 1.0}, "q1": {"a": 1.0, "b": 2.0}, "q9": {"a": 1.0}})
    res = rw.evaluate_diversity(qrels, run, ["alpha-nDCG@20", "ERR-IA@20", "P-IA@10", "strec@10", "MAP-IA"])
    assert list(res.query_ids) == ["q1", "q3"]          # in both; in the qrels' order
    assert res["MAP-IA"].tolist() == [0.5, 0.0]          # q3: no relevant document
    assert res["alpha_nDCG@20"][1] == 0.0 and res["AP_IA"][0] == 0.5


def test_run_ties_go_to_the_larger_docno():
    qrels = rw.Qrels.from_dict({"q": {"1": {"a": 1}, "2": {"b": 1}}}, subtopics=True)
    run = rw.Run.from_dict({"q": {"a": 1.0, "b": 1.0, "c": 1.0}})
    assert res_value(qrels, run, "P_IA@1") == 0.0                  # c first
    assert res_value(qrels, run, "StRecall@2") == 0.5              # then b


def test_threads_agree_and_inputs_unchanged():
    qrels_dict, run_dict = _case(3, n_queries=30)
    qrels, run = rw.Qrels.from_dict(qrels_dict, subtopics=True), rw.Run.from_dict(run_dict)
    before = [a.copy() for a in (qrels._columns.values, qrels._columns.doc_codes, run._columns.values)]
    names = _names([3, 10])
    one = rw.evaluate_diversity(qrels, run, names, n_threads=1)
    two = rw.evaluate_diversity(qrels, run, names, n_threads=2)
    for name in names:
        np.testing.assert_array_equal(one[name], two[name])
    for old, new in zip(before, (qrels._columns.values, qrels._columns.doc_codes, run._columns.values), strict=True):
        np.testing.assert_array_equal(old, new)


def test_read_subtopic_file(tmp_path):
    path = tmp_path / "qrels.txt"
    path.write_text("# Web track diversity qrels\n1 1 d1 1\n1\t2   d1 2\n  1 2 d2 0\n\n2 a d3 1\n1 3 d3 1\n")
    qrels = rw.Qrels.read(path, subtopics=True)
    assert qrels.has_subtopics and len(qrels) == 5 and list(qrels.query_ids) == ["1", "2"]
    table, codes = qrels._columns.subtopics
    c = qrels._columns
    rows = list(zip(c.queries.to_numpy()[c.query_codes], table.to_numpy()[codes], c.docs.to_numpy()[c.doc_codes],
                    c.values.tolist(), strict=True))
    assert rows == [("1", "1", "d1", 1.0), ("1", "2", "d1", 2.0), ("1", "2", "d2", 0.0), ("2", "a", "d3", 1.0),
                    ("1", "3", "d3", 1.0)]
    same = rw.Qrels.from_dict({"1": {"1": {"d1": 1}, "2": {"d1": 2, "d2": 0}, "3": {"d3": 1}},
                               "2": {"a": {"d3": 1}}}, subtopics=True)
    run = rw.Run.from_dict({"1": {"d1": 2.0, "d3": 1.0}, "2": {"d3": 1.0}})
    names = _names([2])
    a, b = rw.evaluate_diversity(qrels, run, names), rw.evaluate_diversity(same, run, names)
    for name in names:
        np.testing.assert_array_equal(a[name], b[name])


def test_duplicates_refused_with_file_and_lines(tmp_path):
    path = tmp_path / "qrels.txt"
    path.write_text("1 1 d1 1\n1 2 d1 1\n# note\n1 1  d1 0\n")
    with pytest.raises(ValueError, match=r"qrels\.txt has document 'd1' twice for query '1', subtopic '1' "
                                         r"\(lines 1 and 4\)"):
        rw.Qrels.read(path, subtopics=True)
    with pytest.raises(ValueError, match=r"twice for query '1' \(lines 1 and 2\)"):
        rw.Qrels.read(path)                                 # ordinary qrels are unchanged
    with pytest.raises(ValueError, match="subtopic '1'"):
        rw.Qrels.from_dict({"1": {"1": {"d1": 1}, 1: {"d1": 0}}}, subtopics=True)


def test_errors_name_the_argument():
    qrels = rw.Qrels.from_dict({"q": {"1": {"a": 1}}}, subtopics=True)
    run = rw.Run.from_dict({"q": {"a": 1.0}})
    with pytest.raises(ValueError, match=r"unknown diversity measure 'alpha_nDGC@10'; did you mean 'alpha_nDCG@10'"):
        rw.evaluate_diversity(qrels, run, "alpha_nDGC@10")
    for option in ("alpha", "beta"):
        with pytest.raises(ValueError, match=rf"{option} must be in \[0, 1\], got 1.5"):
            rw.evaluate_diversity(qrels, run, "NRBP", **{option: 1.5})
        with pytest.raises(TypeError, match=f"{option} must be a number"):
            rw.evaluate_diversity(qrels, run, "NRBP", **{option: "0.5"})
    with pytest.raises(ValueError, match="P_IA needs a cutoff"):
        rw.evaluate_diversity(qrels, run, "P_IA")
    with pytest.raises(ValueError, match="NRBP takes no cutoff"):
        rw.evaluate_diversity(qrels, run, "NRBP@10")
    with pytest.raises(ValueError, match="cutoff"):
        rw.evaluate_diversity(qrels, run, "ERR_IA@0")
    with pytest.raises(ValueError, match="qrels has no subtopics"):
        rw.evaluate_diversity(rw.Qrels.from_dict({"q": {"a": 1}}), run, "NRBP")
    with pytest.raises(TypeError, match="run must be a Run"):
        rw.evaluate_diversity(qrels, {"q": {"a": 1.0}}, "NRBP")
    with pytest.raises(ValueError, match="evaluate_diversity"):
        rw.trec_eval(qrels, run, ["map"])
    with pytest.raises(TypeError, match="subtopics must be True or False"):
        rw.Qrels.from_dict({"q": {"1": {"a": 1}}}, subtopics=1)
    with pytest.raises(TypeError, match="subtopic"):
        rw.Qrels.from_dict({"q": {"1": 1}}, subtopics=True)


def test_results_find_other_spellings():
    qrels = rw.Qrels.from_dict({"q": {"1": {"a": 1}}}, subtopics=True)
    res = rw.evaluate_diversity(qrels, rw.Run.from_dict({"q": {"a": 1.0}}), ["alpha-nDCG@5"])
    assert res["alpha_nDCG@5"][0] == 1.0 and res.mean() == {"alpha-nDCG@5": 1.0}


def test_to_dict_round_trip_and_write_refused(tmp_path):
    nested = {"q1": {"1": {"d1": 1.0, "d2": 0.0}, "2": {"d1": 2.0}}, "q2": {"a": {"d3": 1.0}}}
    qrels = rw.Qrels.from_dict(nested, subtopics=True)
    assert qrels.to_dict() == nested
    assert rw.Qrels.from_dict({"q": {"d": 1}}).to_dict() == {"q": {"d": 1.0}}
    with pytest.raises(ValueError, match="writing subtopic qrels is not supported"):
        qrels.write(tmp_path / "out.qrels")


def test_integer_ids_in_the_run():
    qrels = rw.Qrels.from_dict({1: {1: {10: 1, 11: 1}, 2: {12: 1}}, 2: {1: {10: 1}}}, subtopics=True)
    run = rw.Run.from_arrays(np.array([1, 1, 1, 3]), np.array([12, 10, 11, 10]), np.array([3.0, 2.0, 1.0, 1.0]))
    res = rw.evaluate_diversity(qrels, run, ["StRecall@2", "P_IA@3"])
    assert list(res.query_ids) == ["1"]
    assert res["StRecall@2"].tolist() == [1.0] and res["P_IA@3"].tolist() == [0.5]


@pytest.mark.parametrize(("text", "message"), [
    (b"1 1 d1\n", "line 1: a qrels line needs 4 fields"),
    (b"1 1 d1 1\n1 1 d2 1 x\n", "line 2: a qrels line has exactly 4 fields"),
    (b"1 \xff d1 1\n", r"line 1: subtopic and docno '\\xff d1' is not valid UTF-8"),
    (b"1 1 d1 x\n", "line 1: relevance 'x' is not a number"),
])
def test_bad_subtopic_lines(tmp_path, text, message):
    path = tmp_path / "qrels.txt"
    path.write_bytes(text)
    with pytest.raises(ValueError, match=message):
        rw.Qrels.read(path, subtopics=True)


def test_against_ir_measures():
    ir_measures = pytest.importorskip("ir_measures")
    pytest.importorskip("pyndeval")          # ir_measures' provider of these measures
    qrels, run = _case(5, n_queries=6, ties=False)
    names = ["alpha_nDCG@10", "ERR_IA@5", "nERR_IA@20", "alpha_DCG@10", "NRBP", "nNRBP", "AP_IA", "P_IA@10",
             "StRecall@10"]
    res = rw.evaluate_diversity(rw.Qrels.from_dict(qrels, subtopics=True), rw.Run.from_dict(run), names)
    judgements = [ir_measures.Qrel(q, d, g, s) for q, topic in qrels.items() for s, grades in topic.items()
                  for d, g in grades.items()]
    theirs = {(m.query_id, str(m.measure)): m.value
              for m in ir_measures.iter_calc([ir_measures.parse_measure(n) for n in names], judgements, run)}
    for i, query in enumerate(res.query_ids):
        for name in names:
            if name == "nNRBP" and math.isnan(theirs[query, name]):
                assert res[name][i] == 0.0      # a topic without a relevant document: 0/0 in ndeval
            else:
                assert math.isclose(res[name][i], theirs[query, name], rel_tol=1e-9, abs_tol=1e-12), (query, name)
