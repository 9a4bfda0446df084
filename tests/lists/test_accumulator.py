"""Accumulator: evaluate() over whole queries given in pieces equals evaluate() on all of them, bit for bit."""
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankwise as rw

METRICS = ["MRR", "RR@2", "MAP", "AP@3", "P@2", "R@3", "Rprec", "DCG", "DCG@3", "nDCG", "ndcg_cut_5",
           "nDCG(gain=exponential)@4", "Hits@1", "Success@3", "ERR", "ERR@3", "RBP(p=0.5)",
           "RBP(p=0.8, graded=true)@5", "F1@3", "map"]
# Every metric with a cutoff: the kernel's top-k path, taken or not by a piece as its longest list is.
CUT = ["RR@2", "AP@3", "P@2", "R@3", "DCG@3", "nDCG@4", "nDCG(gain=exponential)@2", "Hits@1", "ERR@3",
       "RBP(p=0.5)@5", "RBP(p=0.8, graded=true)@4", "F1@3"]
TIES = ["expected", "optimistic", "pessimistic", "stable", "trec"]
MAX_GRADE = 3


def same(res, ref):
    """Results equal bit for bit: values, ids (and their dtype), relevant counts, means."""
    assert res.names == ref.names and res.ties == ref.ties
    np.testing.assert_array_equal(res.query_ids, ref.query_ids)
    assert res.query_ids.dtype == ref.query_ids.dtype
    np.testing.assert_array_equal(res.n_relevant, ref.n_relevant)
    for name in ref.names:
        assert res[name].tobytes() == ref[name].tobytes(), name
    # NaN (no valid query) equals NaN here.
    np.testing.assert_array_equal(list(res.mean().values()), list(ref.mean().values()))


def queries(rng, n_queries, id_kind="int", labels="graded", dtype=np.float64, nan=False, rows=(1, 12)):
    """Rows of ``n_queries`` queries in shuffled order: labels, scores (many ties), doc ids, qid."""
    sizes = rng.integers(*rows, size=n_queries)
    codes = rng.permutation(10 * n_queries)[:n_queries]
    ids = {"int": codes - 5 * n_queries, "str": np.array([f"q{c}" for c in codes]),
           "float": codes / 4 - n_queries + 0.5, "object": np.array([f"é{c}" for c in codes], dtype=object),
           "uint": codes.astype(np.uint64) + np.uint64(2**63)}[id_kind]
    n = int(sizes.sum())
    order = rng.permutation(n)
    qid = np.repeat(ids, sizes)[order]
    y_true = {"graded": rng.choice(4, size=n, p=[0.6, 0.2, 0.1, 0.1]),
              "binary": rng.random(n) < 0.3,
              "float": rng.choice([0.0, 0.5, 1.0, 2.5, 3.0], size=n)}[labels]
    y_score = (rng.integers(0, 6, size=n) / 2).astype(dtype)
    if nan:
        y_score[rng.random(n) < 0.15] = np.nan
    doc_ids = np.array([f"d{x}" for x in rng.permutation(n)])
    return y_true, y_score, qid, doc_ids


def split(rng, qid, n_parts):
    """Boolean row masks of ``n_parts`` pieces, each holding whole queries (some may be empty)."""
    unique = np.unique(qid)
    part = rng.integers(0, n_parts, size=unique.size)[np.searchsorted(unique, qid)]
    return [part == p for p in range(n_parts)]


def accumulated(rng, merge, data, pieces, n_accumulators, metrics=METRICS, **options):
    """Pieces shuffled over ``n_accumulators`` accumulators, then merged in a random tree."""
    y_true, y_score, qid, doc_ids = data
    accs = [rw.Accumulator(metrics, **options) for _ in range(n_accumulators)]
    for k in rng.permutation(len(pieces)):
        rows = pieces[k]
        accs[rng.integers(n_accumulators)].update(y_true[rows], y_score[rows], qid=qid[rows], doc_ids=doc_ids[rows])
    return merge(rng, accs)


@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("id_kind", ["int", "str", "float", "object", "uint"])
def test_pieces_equal_evaluate(ties, id_kind, merged_in_random_order):
    rng = np.random.default_rng([TIES.index(ties), len(id_kind)])
    for empty, nan, dtype, labels in [("zero", "raise", np.float64, "graded"), ("skip", "last", np.float32, "float"),
                                      ("zero", "last", np.float64, "binary"), ("skip", "raise", np.float32, "graded")]:
        data = queries(rng, int(rng.integers(1, 40)), id_kind, labels, dtype, nan == "last")
        options = {"ties": ties, "empty": empty, "nan": nan, "max_grade": MAX_GRADE}
        for metrics in (METRICS, CUT):
            ref = rw.evaluate(data[0], data[1], metrics, qid=data[2], doc_ids=data[3], **options)
            pieces = split(rng, data[2], int(rng.integers(1, 8)))
            acc = accumulated(rng, merged_in_random_order, data, pieces, int(rng.integers(1, 4)), metrics, **options)
            assert acc.n_queries == ref.n_queries
            same(acc.result(), ref)
            np.testing.assert_array_equal(list(acc.mean().values()), list(acc.result().mean().values()))


@settings(max_examples=40)
@given(n_queries=st.integers(0, 30), n_parts=st.integers(1, 12), n_accumulators=st.integers(1, 5),
       seed=st.integers(0, 2**32 - 1), ties=st.sampled_from(TIES), relevance_level=st.sampled_from([1, 2, 0.5]),
       gain=st.sampled_from(["linear", "exponential"]))
def test_any_split_and_merge_tree_equals_evaluate(merged_in_random_order, n_queries, n_parts, n_accumulators, seed,
                                                  ties, relevance_level, gain):
    rng = np.random.default_rng(seed)
    data = queries(rng, n_queries, "str")
    options = {"ties": ties, "relevance_level": relevance_level, "gain": gain, "max_grade": MAX_GRADE}
    ref = rw.evaluate(data[0], data[1], METRICS, qid=data[2], doc_ids=data[3], **options)
    acc = accumulated(rng, merged_in_random_order, data, split(rng, data[2], n_parts), n_accumulators, **options)
    same(acc.result(), ref)
    np.testing.assert_array_equal(list(acc.mean().values()), list(ref.mean().values()))


@pytest.mark.parametrize("ties", TIES)
def test_positional_updates_equal_evaluate_on_the_rows_in_order(ties):
    """indptr=, 2-D and one ranking against many topics: queries numbered after those held."""
    rng = np.random.default_rng(TIES.index(ties))
    options = {"ties": ties, "max_grade": MAX_GRADE, "empty": "skip"}
    # indptr: lists of 0 to 9 items, cut into updates of whole queries.
    lengths = rng.integers(0, 10, size=30)
    indptr = np.concatenate([[0], np.cumsum(lengths)])
    y_true, y_score, _, doc_ids = queries(rng, 1, rows=(indptr[-1], indptr[-1] + 1))
    acc = rw.Accumulator(METRICS, **options)
    for a, b in [(0, 4), (4, 4), (4, 17), (17, 30)]:
        rows = slice(indptr[a], indptr[b])
        acc.update(y_true[rows], y_score[rows], indptr=indptr[a:b + 1] - indptr[a], doc_ids=doc_ids[rows])
    same(acc.result(), rw.evaluate(y_true, y_score, METRICS, indptr=indptr, doc_ids=doc_ids, **options))
    # 2-D (one query per row), and one 1-D list (one query).
    labels, scores = rng.choice(4, size=(9, 6)), rng.integers(0, 3, size=(9, 6)).astype(np.float32)
    names = np.array([f"d{i}" for i in range(6)])
    acc = rw.Accumulator(METRICS, **options)
    acc.update(labels[:5], scores[:5], doc_ids=names)
    acc.update(labels[5], scores[5], doc_ids=names)
    acc.update(labels[6:], scores[6:], doc_ids=np.tile(names, (3, 1)))
    same(acc.result(), rw.evaluate(labels, scores, METRICS, doc_ids=names, **options))
    # One ranking (1-D scores) judged against many topics (2-D labels).
    acc = rw.Accumulator(METRICS, **options)
    for rows in (slice(0, 2), slice(2, 9)):
        acc.update(labels[rows], scores[0], doc_ids=names)
    same(acc.result(), rw.evaluate(labels, scores[0], METRICS, doc_ids=names, **options))


def test_empty_accumulator_and_empty_updates():
    acc = rw.Accumulator(["MRR", "P@2", "MRR"])
    acc.update([], [], qid=[]).update(np.empty((0, 3)), np.empty((0, 3))).update([], [], indptr=[0])
    res = acc.result()
    assert acc.n_queries == 0 and res.n_queries == 0 and res.names == ("MRR", "P@2", "MRR")
    assert res["P@2"].shape == (0,)
    assert all(np.isnan(v) for v in acc.mean().values())
    # An empty update fixes no id kind.
    acc.update([1], [0.5], qid=["a"])
    assert acc.result().query_ids.tolist() == ["a"]


def test_the_same_metric_spelled_twice_and_every_spelling_found():
    rng = np.random.default_rng(3)
    y_true, y_score, qid, _ = queries(rng, 12)
    names = ["MAP", "map", "AP", "nDCG@3", "ndcg_cut.3"]
    acc = rw.Accumulator(names).update(y_true, y_score, qid=qid)
    res = acc.result()
    same(res, rw.evaluate(y_true, y_score, names, qid=qid))
    assert "average_precision" in res and res["ndcg_cut_3"].tobytes() == res["nDCG@3"].tobytes()


def test_pickle_round_trip_then_more_updates_and_merges():
    rng = np.random.default_rng(5)
    y_true, y_score, qid, doc_ids = queries(rng, 60, "str")
    pieces = split(rng, qid, 6)
    accs = []
    for rows in pieces[:3]:
        acc = rw.Accumulator(METRICS, ties="trec", max_grade=MAX_GRADE)
        acc.update(y_true[rows], y_score[rows], qid=qid[rows], doc_ids=doc_ids[rows])
        accs.append(pickle.loads(pickle.dumps(acc)))
    restored = pickle.loads(pickle.dumps(accs[0].merge(accs[1])))
    for rows in pieces[3:]:
        restored.update(y_true[rows], y_score[rows], qid=qid[rows], doc_ids=doc_ids[rows])
    restored.merge(pickle.loads(pickle.dumps(accs[2])))
    same(restored.result(), rw.evaluate(y_true, y_score, METRICS, qid=qid, doc_ids=doc_ids, ties="trec",
                                        max_grade=MAX_GRADE))
    # Its size is that of its queries' values and ids, whatever the number of items.
    assert len(pickle.dumps(restored)) < 60 * (len(METRICS) * 8 + 8 + 8 + 40) + 4000


def test_many_small_updates_keep_few_runs():
    """10^4 updates of whole queries: ids held in O(log n) sorted runs, checked without a pass over all."""
    acc = rw.Accumulator(["P@1"])
    n = 0
    rng = np.random.default_rng(0)
    for ids in np.array_split(rng.permutation(20_000), 10_000):
        acc.update(np.ones(ids.size), np.zeros(ids.size), qid=ids)
        n += ids.size
        assert len(acc._runs) <= np.log2(n) + 1
    assert acc.n_queries == 20_000
    res = acc.result()
    np.testing.assert_array_equal(res.query_ids, np.arange(20_000))
    same(acc.result(), res)  # from the runs and blocks result() joined
    with pytest.raises(ValueError, match="query id 12345 is held already"):
        acc.update([1, 1], [0, 0], qid=[20_000, 12345])


def test_options_and_repr():
    acc = rw.Accumulator(["nDCG@10", "ERR"], ties="stable", max_grade=4, empty="skip", n_threads=1)
    assert acc.metrics == ("nDCG@10", "ERR")
    assert acc.options == {"ties": "stable", "relevance_level": 1, "gain": "linear", "max_grade": 4,
                           "empty": "skip", "nan": "raise", "n_threads": 1, "log_base": 2}
    assert repr(acc) == ("Accumulator(['nDCG@10', 'ERR'], 0 queries, ties='stable', max_grade=4, empty='skip', "
                         "n_threads=1)")
    twin = rw.Accumulator(acc.metrics, **acc.options).update([[1, 0]], [[0.3, 0.2]])
    assert acc.merge(twin).n_queries == 1
    # n_threads does not change a value: accumulators with other thread counts merge.
    other = rw.Accumulator(["nDCG@10", "ERR"], ties="stable", max_grade=4.0, empty="skip", n_threads=2)
    acc.merge(other)
    assert repr(rw.Accumulator("MRR")) == "Accumulator(['MRR'], 0 queries, ties='expected')"


# ---------------------------------------------------------------------------------------------------- errors


def test_metric_names_and_options_are_checked_at_once_with_evaluates_errors():
    bad = [({"metrics": ["MRR", "nDGC@10"]}, None), ({"metrics": []}, None), ({"metrics": "P"}, None),
           ({"ties": "realistic"}, None), ({"ties": "bogus"}, None), ({"ties": None}, None),
           ({"relevance_level": 0}, None), ({"relevance_level": True}, None), ({"gain": "exp"}, None),
           ({"empty": "drop"}, None), ({"nan": "ignore"}, None), ({"n_threads": 0}, None),
           ({"n_threads": 1.5}, None), ({"max_grade": -1}, None), ({"max_grade": "3"}, None)]
    for kwargs, _ in bad:
        kwargs = {"metrics": ["MRR"], **kwargs}
        with pytest.raises((ValueError, TypeError)) as expected:
            rw.evaluate([[1, 0]], [[0.5, 0.2]], **kwargs)
        with pytest.raises(type(expected.value)) as got:
            rw.Accumulator(**kwargs)
        assert str(got.value) == str(expected.value)


@pytest.mark.parametrize("metric", ["ERR", "ERR@10", "RBP(p=0.9, graded=true)", "rbp(graded=True)@5"])
def test_max_grade_is_required_by_err_and_graded_rbp(metric):
    with pytest.raises(ValueError, match=r"needs max_grade= in an Accumulator: evaluate\(\) takes the largest label"):
        rw.Accumulator(["MRR", metric])
    rw.Accumulator(["MRR", metric], max_grade=2)
    rw.Accumulator(["MRR", "RBP(p=0.9)", "nDCG"])


def snapshot(acc):
    res = acc.result()
    return acc.n_queries, res.query_ids.tolist(), {name: res[name].tobytes() for name in res}, repr(acc)


@pytest.mark.parametrize("call", [
    dict(y_true=[[1, 0]], y_score=[[0.5]]),
    dict(y_true=[1, 0], y_score=[np.nan, 0.2], qid=["x", "x"]),
    dict(y_true=[-1, 0], y_score=[0.5, 0.2], qid=["x", "x"]),
    dict(y_true=[4, 0], y_score=[0.5, 0.2], qid=["x", "x"]),
    dict(y_true=[0, 0], y_score=[0.5, 0.2], qid=["x", "x"]),
    dict(y_true=[1, 0], y_score=[0.5, 0.2], qid=["x"]),
    dict(y_true=[1, 0], y_score=[0.5, 0.2], qid=["x", "x"], indptr=[0, 2]),
    dict(y_true=[1, 0], y_score=[0.5, 0.2], indptr=[0, 3]),
    dict(y_true=[1, 0], y_score=["a", "b"], qid=["x", "x"]),
])
def test_data_errors_are_evaluates_and_leave_the_accumulator_unchanged(call):
    options = {"max_grade": 3, "empty": "error"}
    acc = rw.Accumulator(["MRR", "ERR"], **options).update([1, 0, 2], [0.1, 0.2, 0.3], qid=["a", "b", "b"])
    before = snapshot(acc)
    with pytest.raises((ValueError, TypeError)) as expected:
        rw.evaluate(metrics=["MRR", "ERR"], **call, **options)
    with pytest.raises(type(expected.value)) as got:
        acc.update(**call)
    assert str(got.value) == str(expected.value)
    assert snapshot(acc) == before


def test_trec_needs_doc_ids_as_in_evaluate():
    with pytest.raises(ValueError, match="pass doc_ids="):
        rw.Accumulator("MRR", ties="trec").update([[1, 0]], [[0.5, 0.5]])
    with pytest.raises(ValueError, match="has document 'd' twice"):
        rw.Accumulator("MRR", ties="trec").update([[1, 0]], [[0.5, 0.5]], doc_ids=[["d", "d"]])


def test_a_document_twice_is_evaluates_error():
    # The query by its id, the rows by their positions in the update's arrays, as evaluate.
    qid = ["b", "a", "b", "a", "c", "a"]
    docs = ["u", "x", "u", "y", "x", "x"]
    call = dict(y_true=[1, 0, 0, 1, 1, 0], y_score=[0.5, 0.4, 0.3, 0.2, 0.1, 0.0], qid=qid, doc_ids=docs)
    with pytest.raises(ValueError) as expected:
        rw.evaluate(metrics="MRR", ties="trec", **call)
    acc = rw.Accumulator("MRR", ties="trec").update([1], [0.5], qid=["z"], doc_ids=["x"])
    with pytest.raises(ValueError) as got:
        acc.update(**call)
    assert str(got.value) == str(expected.value) == ("doc_ids has document 'x' twice for query 'a' (rows 1 and 5); "
                                                     "trec_eval rejects duplicates")
    assert acc.n_queries == 1


def test_empty_error_names_the_positions_held():
    acc = rw.Accumulator("MRR", empty="error").update([[1, 0], [0, 1]], [[0.5, 0.2], [0.1, 0.3]])
    with pytest.raises(ValueError, match=r"1 query has no relevant item \(label >= 1\): 3;"):
        acc.update([[1, 0], [0, 0]], [[0.5, 0.2], [0.1, 0.3]])
    assert acc.n_queries == 2


def test_a_query_id_held_twice():
    acc = rw.Accumulator("MRR").update([1, 0, 1], [0.5, 0.2, 0.3], qid=["b", "b", "c"])
    before = snapshot(acc)
    with pytest.raises(ValueError, match="query id 'c' is held already: every query must come whole in one update$"):
        acc.update([1, 0, 1], [0.5, 0.2, 0.3], qid=["a", "d", "c"])
    assert snapshot(acc) == before
    other = rw.Accumulator("MRR").update([1, 1], [0.5, 0.2], qid=["b", "z"])
    with pytest.raises(ValueError, match="query id 'b' is held by both accumulators$"):
        acc.merge(other)
    assert snapshot(acc) == before
    with pytest.raises(ValueError, match="query id 'b' is held by both"):
        acc.merge(acc)
    assert snapshot(acc) == before
    # Float ids compare as numbers: -0.0 is 0.0, as evaluate() would group them.
    floats = rw.Accumulator("MRR").update([1], [0.5], qid=[0.0])
    with pytest.raises(ValueError, match="query id -0.0 is held already"):
        floats.update([1], [0.5], qid=[-0.0])


def test_positions_collide_across_accumulators():
    one = rw.Accumulator("MRR").update([[1, 0]], [[0.5, 0.2]])
    two = rw.Accumulator("MRR").update([[1, 0]], [[0.5, 0.2]])
    with pytest.raises(ValueError, match="query id 0 is held by both accumulators; queries given by indptr= or "
                                         "2-D arrays are numbered by position.*pass qid= to name the queries"):
        one.merge(two)


def test_ids_of_two_kinds():
    acc = rw.Accumulator("MRR").update([1, 0], [0.5, 0.2], qid=[1, 2])
    before = snapshot(acc)
    with pytest.raises(TypeError, match="query ids must be of one kind: strings given, integers held"):
        acc.update([1], [0.5], qid=["3"])
    with pytest.raises(TypeError, match="floats given, integers held"):
        acc.update([1], [0.5], qid=[3.5])
    strings = rw.Accumulator("MRR").update([1], [0.5], qid=np.array(["3"], dtype=object))
    with pytest.raises(TypeError, match="strings given, integers held"):
        acc.merge(strings)
    with pytest.raises(TypeError, match="integers given, strings held"):
        strings.merge(acc)
    assert snapshot(acc) == before
    # Positions are integers too.
    with pytest.raises(TypeError, match="integers given, strings held"):
        strings.update([[1, 0]], [[0.5, 0.2]])


def test_integer_ids_of_every_width_stay_exact():
    """int64 with uint64 ids: as_array's integer type (NumPy would join them as float64, rounding)."""
    acc = rw.Accumulator("MRR").update([1], [0.5], qid=np.array([3], dtype=np.int32))
    acc.update([1], [0.5], qid=np.array([2**63 + 1], dtype=np.uint64))
    acc.update([1], [0.5], qid=np.array([2**63], dtype=np.uint64))
    assert acc.result().query_ids.dtype == np.uint64
    assert acc.result().query_ids.tolist() == [3, 2**63, 2**63 + 1]
    with pytest.raises(ValueError, match=f"query id {2**63} is held already"):
        acc.update([1], [0.5], qid=[2**63])
    acc.update([1, 1], [0.5, 0.5], qid=[-1, 2**70])
    ids = acc.result().query_ids
    assert ids.dtype == object and ids.tolist() == [-1, 3, 2**63, 2**63 + 1, 2**70]
    same(acc.result(), rw.evaluate([1] * 5, [0.5] * 5, "MRR", qid=[3, 2**63 + 1, 2**63, -1, 2**70]))
    # uint64 ids that int64 holds join int64 ones as int64; beyond it, with negative ones, as objects.
    small = rw.Accumulator("MRR").update([1], [0.5], qid=[-1]).update([1], [0.5], qid=np.array([5], np.uint64))
    assert small.result().query_ids.dtype == np.int64
    mixed = rw.Accumulator("MRR").update([1], [0.5], qid=np.array([2**63], np.uint64)).update([1], [0.5], qid=[-1])
    assert mixed.result().query_ids.tolist() == [-1, 2**63] and mixed.result().query_ids.dtype == object


def test_ids_of_other_types():
    from fractions import Fraction
    ids = np.array([Fraction(1, 3), Fraction(1, 2)], dtype=object)
    acc = rw.Accumulator("MRR").update([1, 1], [0.5, 0.5], qid=ids)
    acc.update([1], [0.5], qid=np.array([Fraction(1, 4)], dtype=object))
    assert acc.result().query_ids.tolist() == [Fraction(1, 4), Fraction(1, 3), Fraction(1, 2)]
    with pytest.raises(TypeError, match="integers given, objects held"):
        acc.update([1], [0.5], qid=[1])
    flags = rw.Accumulator("MRR").update([1, 1], [0.5, 0.5], qid=[True, False])
    with pytest.raises(TypeError, match="integers given, booleans held"):
        flags.update([1], [0.5], qid=[2])


def test_merge_needs_the_same_metrics_and_options():
    acc = rw.Accumulator(["MRR", "ERR"], max_grade=3).update([[1, 0]], [[0.5, 0.2]])
    before = snapshot(acc)
    with pytest.raises(TypeError, match="Accumulator.merge takes an Accumulator, got Results"):
        acc.merge(acc.result())
    with pytest.raises(ValueError, match=r"different metrics: \['MRR', 'ERR'\] here, \['ERR', 'MRR'\] in the other"):
        acc.merge(rw.Accumulator(["ERR", "MRR"], max_grade=3))
    for option, value in [("ties", "stable"), ("relevance_level", 2), ("gain", "exponential"), ("max_grade", 4),
                          ("empty", "skip"), ("nan", "last")]:
        other = rw.Accumulator(["MRR", "ERR"], **{"max_grade": 3, option: value})
        with pytest.raises(ValueError, match=f"different options: {option}=.* here, {option}={value!r} in the other"):
            acc.merge(other)
    assert snapshot(acc) == before


def test_gains_summed_over_updates_are_bounded_as_in_evaluate():
    acc = rw.Accumulator(["DCG"]).update([1e308], [0.5], qid=[1])
    with pytest.raises(ValueError, match="DCG sums"):
        rw.evaluate([1e308, 1e308], [0.5, 0.5], ["DCG"], qid=[1, 2])
    before = snapshot(acc)
    with pytest.raises(ValueError, match=r"labels held would be up to 1e\+308 over 2 items.*rescale the labels"):
        acc.update([1e308], [0.5], qid=[2])
    assert snapshot(acc) == before
    other = rw.Accumulator(["DCG"]).update([1e308], [0.5], qid=[2])
    with pytest.raises(ValueError, match="labels held would be up to"):
        acc.merge(other)
    assert snapshot(acc) == before
    # Without DCG or nDCG, labels are not summed.
    rw.Accumulator(["MRR"]).update([1e308], [0.5], qid=[1]).update([1e308], [0.5], qid=[2])


def test_inputs_not_modified_and_results_independent_of_the_accumulator():
    rng = np.random.default_rng(9)
    y_true, y_score, qid, doc_ids = queries(rng, 10, nan=True)
    copies = [a.copy() for a in (y_true, y_score, qid, doc_ids)]
    acc = rw.Accumulator(METRICS, max_grade=MAX_GRADE, nan="last", empty="skip", ties="trec")
    acc.update(y_true, y_score, qid=qid, doc_ids=doc_ids)
    for a, b in zip((y_true, y_score, qid, doc_ids), copies, strict=True):
        np.testing.assert_array_equal(a, b)
    res = acc.result()
    res.query_ids[:] = 0
    res.n_relevant[:] = -1
    same(acc.result(), rw.evaluate(y_true, y_score, METRICS, qid=qid, doc_ids=doc_ids, max_grade=MAX_GRADE,
                                   nan="last", empty="skip", ties="trec"))
