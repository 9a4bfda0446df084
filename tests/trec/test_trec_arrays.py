"""Qrels.from_arrays / Run.from_arrays: integer ids kept as integers, strings interned.

The reference is the string route: the same data with every id written as its decimal
text (from_dict), which is what trec_eval would read from a file. Integer ids must give
identical numbers, query order and tie order (byte order of the text, so 9 > 10 > 1),
whether the rows are grouped by query or not, and mixed with string ids on the other
side. Also: the checks of bad input, and that arrays are used but never modified.
"""
from __future__ import annotations

import random

import numpy as np
import pytest

import rankwise as rw
from rankwise._core import parallel as _parallel

MEASURES = ["all_trec", "P.1,2,3,7", "ndcg_cut.1,3,4", "success.1,2,3", "recall.1,3", "ndcg.0=0,1=2.5,2=1,3=7"]
EXPECTED_MEASURES = ["map", "recip_rank", "P.1,2,3,5", "recall.1,3", "ndcg", "ndcg_cut.1,3", "num_rel_ret",
                     "num_nonrel_judged_ret", "Rprec", "success.1,3"]
INT64 = np.iinfo(np.int64)
# Byte order differs from numeric order here: "-1" < "-10" < "-2", "10" < "100" < "9".
ID_POOL = [0, 1, 2, 9, 10, 11, 19, 90, 99, 100, 101, 909, 1000, -1, -2, -10, -100, 123456789012,
           INT64.max, INT64.min, INT64.max - 9, INT64.min + 1, 10**18, 10**17, 5 * 10**17]


def random_rows(rng: random.Random, n_queries=7, max_docs=40):
    """(qrels rows, run rows) as lists of (query id, doc id, value) with integer ids."""
    queries = rng.sample(ID_POOL, n_queries)
    docs = ID_POOL + [rng.randrange(-10**6, 10**6) for _ in range(60)]
    qrels, run = [], []
    for i, q in enumerate(queries):
        pool = list(dict.fromkeys(rng.sample(docs, rng.randint(1, min(len(docs), max_docs)))))
        if i != 1:  # query 1: only in the run
            for d in rng.sample(pool, rng.randint(1, len(pool))):
                qrels.append((q, d, rng.choice([0, 0, 1, 1, 2, 3, -1])))
        if i != 2:  # query 2: only in the qrels
            for d in rng.sample(pool, rng.randint(1, len(pool))):
                run.append((q, d, rng.choice([0.0, 0.5, 0.5, 1.0, -np.inf, np.inf, rng.random()])))
    return qrels, run


def as_arrays(rows):
    q, d, v = zip(*rows, strict=True)
    return np.array(q, dtype=np.int64), np.array(d, dtype=np.int64), np.array(v, dtype=np.float64)


def as_dict(rows):
    out: dict = {}
    for q, d, v in rows:
        out.setdefault(str(q), {})[str(d)] = v
    return out


def interleaved(rows, rng):
    """The rows with queries interleaved but each query's own rows in their order."""
    queues: dict = {}
    for row in rows:
        queues.setdefault(row[0], []).append(row)
    out = []
    while queues:
        q = rng.choice(list(queues))
        out.append(queues[q].pop(0))
        if not queues[q]:
            del queues[q]
    return out


def assert_same(got, want):
    assert got.names == want.names
    assert [str(q) for q in got.query_ids] == [str(q) for q in want.query_ids]
    for name in want.names:
        np.testing.assert_array_equal(got[name], want[name], err_msg=name)
    assert got.mean() == want.mean()


def evaluate_both(qrels_rows, run_rows, measures, **options):
    got = rw.trec_eval(rw.Qrels.from_arrays(*as_arrays(qrels_rows)), rw.Run.from_arrays(*as_arrays(run_rows)),
                       measures, **options)
    want = rw.trec_eval(rw.Qrels.from_dict(as_dict(qrels_rows)), rw.Run.from_dict(as_dict(run_rows)),
                        measures, **options)
    return got, want


@pytest.mark.parametrize("ties", ["trec", "optimistic", "pessimistic", "stable", "expected"])
@pytest.mark.parametrize("seed", range(6))
def test_integer_ids_give_the_numbers_of_their_decimal_text(seed, ties):
    rng = random.Random(seed)
    qrels_rows, run_rows = random_rows(rng)
    measures = EXPECTED_MEASURES if ties == "expected" else MEASURES
    for options in (dict(), dict(complete=True, relevance_level=2), dict(depth=5)):
        assert_same(*evaluate_both(qrels_rows, run_rows, measures, ties=ties, **options))


@pytest.mark.parametrize("ties", ["trec", "stable", "optimistic"])
def test_rows_need_not_be_grouped_by_query(ties):
    rng = random.Random(11)
    qrels_rows, run_rows = random_rows(rng, n_queries=9)
    grouped = rw.trec_eval(rw.Qrels.from_arrays(*as_arrays(qrels_rows)), rw.Run.from_arrays(*as_arrays(run_rows)),
                           MEASURES, ties=ties)
    mixed = rw.trec_eval(rw.Qrels.from_arrays(*as_arrays(interleaved(qrels_rows, rng))),
                         rw.Run.from_arrays(*as_arrays(interleaved(run_rows, rng))), MEASURES, ties=ties)
    assert_same(mixed, rw.trec_eval(rw.Qrels.from_dict(as_dict(qrels_rows)), rw.Run.from_dict(as_dict(run_rows)),
                                    MEASURES, ties=ties))
    np.testing.assert_array_equal(mixed.query_ids, grouped.query_ids)


def test_tied_integer_documents_are_ordered_by_their_text_descending():
    # trec_eval ranks tied docnos by strcmp, descending: "9" > "10" > "100" > "1" > "-5".
    docs = [1, 9, 10, 100, -5]
    qrels = rw.Qrels.from_arrays(np.zeros(5, np.int64), np.array(docs), np.array([1, 0, 0, 0, 0]))
    run = rw.Run.from_arrays(np.zeros(5, np.int64), np.array(docs), np.zeros(5))
    assert rw.trec_eval(qrels, run, ["recip_rank"])["recip_rank"][0] == 1 / 4


def test_queries_come_out_in_byte_order_of_their_text():
    ids = np.array([10, 9, -1, 100, 0, INT64.min, INT64.max])
    qrels = rw.Qrels.from_arrays(ids, np.ones(7, np.int64), np.ones(7))
    run = rw.Run.from_arrays(ids, np.ones(7, np.int64), np.ones(7))
    res = rw.trec_eval(qrels, run, ["map"])
    assert res.query_ids.tolist() == sorted(ids.tolist(), key=lambda v: str(v).encode())
    assert res.query_ids.dtype == np.int64


@pytest.mark.parametrize("side", ["qrels", "run"])
def test_integer_ids_meet_string_ids_by_canonical_text(side):
    rng = random.Random(5)
    qrels_rows, run_rows = random_rows(rng)
    # Text that no integer prints as: it matches nothing on the integer side.
    # ("\u0665" is an Arabic-Indic five, which int() reads as 5; ids with whitespace are refused.)
    odd = [("07", "7"), ("+9", "9"), ("-0", "0"), ("1e3", "1000"), ("\u0665", "5"), ("99999999999999999999", "x")]
    strings = qrels_rows if side == "qrels" else run_rows
    text = {}
    for q, d, v in strings:
        text.setdefault(str(q), {})[str(d)] = v
    first = next(iter(text))
    for weird, _ in odd:
        text[first][weird] = 1 if side == "qrels" else 0.5
    text["0042"] = {"1": 1 if side == "qrels" else 0.5}
    if side == "qrels":
        got = rw.trec_eval(rw.Qrels.from_dict(text), rw.Run.from_arrays(*as_arrays(run_rows)), MEASURES, complete=True)
        want = rw.trec_eval(rw.Qrels.from_dict(text), rw.Run.from_dict(as_dict(run_rows)), MEASURES, complete=True)
    else:
        got = rw.trec_eval(rw.Qrels.from_arrays(*as_arrays(qrels_rows)), rw.Run.from_dict(text), MEASURES)
        want = rw.trec_eval(rw.Qrels.from_dict(as_dict(qrels_rows)), rw.Run.from_dict(text), MEASURES)
    assert_same(got, want)


def test_large_tie_groups_and_infinities_with_every_document_judged():
    # Hundreds of judged documents sharing a few scores exercise the sort within one
    # score bucket and the walk through tied judged documents.
    rng = np.random.default_rng(3)
    n = 700
    docs = rng.permutation(np.arange(-350, 350))
    scores = rng.choice([-np.inf, 0.0, 0.25, 1.0, np.inf], n)
    labels = rng.choice([0, 1, 2, 3, -1], n)
    rows_q = [(0, int(d), int(v)) for d, v in zip(docs, labels, strict=True)]
    rows_r = [(0, int(d), float(s)) for d, s in zip(docs, scores, strict=True)]
    for ties in ("trec", "optimistic", "pessimistic", "stable"):
        assert_same(*evaluate_both(rows_q, rows_r, MEASURES, ties=ties))


def test_from_pandas_keeps_integer_columns_as_integers():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"query_id": [3, 3, 4], "doc_id": [10, 9, 10], "score": [0.5, 0.5, 1.0]})
    run = rw.Run.from_pandas(frame)
    assert run.query_ids.tolist() == [3, 4]
    back = run.to_pandas()
    assert back["doc_id"].tolist() == [10, 9, 10] and back["doc_id"].dtype == np.int64
    assert run.to_dict() == {3: {10: 0.5, 9: 0.5}, 4: {10: 1.0}}


def test_write_and_read_back(tmp_path):
    rng = random.Random(8)
    qrels_rows, run_rows = random_rows(rng)
    qrels, run = rw.Qrels.from_arrays(*as_arrays(qrels_rows)), rw.Run.from_arrays(*as_arrays(run_rows), name="ints")
    qrels.write(tmp_path / "q.txt")
    run.write(tmp_path / "r.txt")
    again = rw.trec_eval(rw.Qrels.read(tmp_path / "q.txt"), rw.Run.read(tmp_path / "r.txt"), MEASURES)
    assert_same(rw.trec_eval(qrels, run, MEASURES), again)
    assert again.run_name == "ints"


def test_arrays_are_used_in_place_unless_copied_and_never_modified():
    q, d, v = np.array([1, 1, 2]), np.array([5, 6, 5]), np.array([0.2, 0.9, 0.4])
    before = [a.copy() for a in (q, d, v)]
    for a in (q, d, v):
        a.flags.writeable = False
    run = rw.Run.from_arrays(q, d, v)
    copied = rw.Run.from_arrays(q, d, v, copy=True)
    qrels = rw.Qrels.from_arrays(q, d, np.array([1, 0, 1]))
    rw.trec_eval(qrels, run, MEASURES)
    for a, b in zip((q, d, v), before, strict=True):
        np.testing.assert_array_equal(a, b)
    assert np.shares_memory(run._columns.values, v) and not np.shares_memory(copied._columns.values, v)


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_threads_do_not_change_results_or_duplicate_reports(threads, monkeypatch):
    # The threshold lowered, so these small inputs are split into chunks over the threads (at
    # the default one, 60,000 rows ran in one thread whatever the count). Documents are
    # distinct within a query, shared between queries, ids spread up to 10**6.
    monkeypatch.setattr(_parallel, "_MIN_ITEMS_PER_THREAD", 1)
    rng = np.random.default_rng(0)
    n_queries, depth, pool = 120, 60, 1000
    qid = np.repeat(np.arange(n_queries), depth)
    ids = rng.choice(10**6, pool, replace=False)
    doc = ids[np.argsort(rng.random((n_queries, pool)), axis=1)[:, :depth]].reshape(-1)
    score = rng.integers(0, 50, qid.shape[0]).astype(float)
    qrels = rw.Qrels.from_arrays(qid[::3], doc[::3], rng.integers(0, 3, qid[::3].shape[0]), n_threads=threads)
    run = rw.Run.from_arrays(qid, doc, score, n_threads=threads)
    one = rw.trec_eval(qrels, run, MEASURES, n_threads=1)
    assert_same(rw.trec_eval(qrels, run, MEASURES, n_threads=threads), one)
    doc = doc.copy()
    doc[-1] = doc[-depth]          # the last query repeats its first document
    doc[2 * depth + 5] = doc[2 * depth + 1]
    # Each chunk finds its own repeat: the report is the earliest, whichever thread ends first.
    with pytest.raises(ValueError, match=rf"twice for query 2 \(rows {2 * depth + 1} and {2 * depth + 5}\)"):
        rw.Run.from_arrays(qid, doc, score, n_threads=threads)


@pytest.mark.parametrize("grouped", [True, False])
def test_a_repeated_document_is_an_error_naming_rows(grouped):
    q = np.array([1, 1, 2, 1]) if not grouped else np.array([1, 1, 1, 2])
    d = np.array([7, 8, 7, 7]) if not grouped else np.array([7, 8, 7, 7])
    with pytest.raises(ValueError, match=r"document 7 twice for query 1 \(rows (0 and 3|0 and 2)\)"):
        rw.Run.from_arrays(q, d, np.ones(4))
    with pytest.raises(ValueError, match="Qrels has document 7 twice"):
        rw.Qrels.from_arrays(q, d, np.ones(4))


@pytest.mark.parametrize("ids, error, match", [
    (np.array([1.0, 2.0]), TypeError, "query_ids must hold integers or strings, got float64"),
    (np.array([True, False]), TypeError, "query_ids must hold integers or strings, got bool"),
    (np.array([[1, 2]]), ValueError, r"query_ids must be 1-D, got shape \(1, 2\)"),
    (np.array([1, 2, 3]), ValueError, "query_ids has 3 rows but scores has 2"),
    (np.array([2**63, 1], dtype=np.uint64), ValueError, r"query_ids holds integers above 2\*\*63 - 1"),
])
def test_bad_ids(ids, error, match):
    with pytest.raises(error, match=match):
        rw.Run.from_arrays(ids, np.array([1, 2]), np.array([0.5, 0.1]))


def test_bad_values():
    q, d = np.array([1, 1]), np.array([3, 4])
    with pytest.raises(ValueError, match=r"Run.from_arrays: scores\[1\] is nan \(query 1, document 4\); a Run value must be a number"):
        rw.Run.from_arrays(q, d, np.array([0.5, np.nan]))
    with pytest.raises(ValueError, match=r"Qrels.from_arrays: relevance\[0\] is inf \(query 1, document 3\); a Qrels value must be a finite"):
        rw.Qrels.from_arrays(q, d, np.array([np.inf, 1.0]))
    with pytest.raises(TypeError, match="scores must be a 1-D array of numbers"):
        rw.Run.from_arrays(q, d, np.array(["a", "b"]))
    assert len(rw.Run.from_arrays(q, d, np.array([-np.inf, np.inf]))) == 2


def test_string_and_object_arrays_take_the_string_route():
    run = rw.Run.from_arrays(np.array(["q1", "q1"]), np.array([b"d1", "d2"], dtype=object), np.array([0.1, 0.2]))
    qrels = rw.Qrels.from_arrays(np.array(["q1"]), np.array(["d2"]), np.array([1]))
    assert run.query_ids.tolist() == ["q1"]
    assert rw.trec_eval(qrels, run, ["recip_rank"]).mean() == {"recip_rank": 1.0}
    with pytest.raises(ValueError, match="twice"):
        rw.Run.from_arrays(np.array(["q", "q"]), np.array(["d", "d"]), np.array([0.1, 0.2]))


# --------------------------------------------------------------------------------------
# Long queries, many tiny ones, rows not grouped (issue 21: memory bounded by the data)
# --------------------------------------------------------------------------------------

# Past this many rows a query's repeated documents are found by splitting it into buckets.
LONG = 2**16 + 1
PHI = 0x9E3779B97F4A7C15


def first_repeat_rows(qids, docs):
    """Brute force: rows (a, b) of the first document repeated within a query, by the
    queries' first-seen order and then row order; None when there is none."""
    seen, order = {}, {}
    for row, (q, d) in enumerate(zip(qids.tolist(), docs.tolist(), strict=True)):
        order.setdefault(q, len(order))
        seen.setdefault((q, d), []).append(row)
    repeats = [(order[q], rows[1], rows[0]) for (q, _), rows in seen.items() if len(rows) > 1]
    if not repeats:
        return None
    _, b, a = min(repeats)
    return a, b


def with_hash(hashes):
    """Ids whose Fibonacci hash (id * PHI mod 2**64) is each of ``hashes``: ids chosen to collide."""
    inverse = pow(PHI, -1, 2**64)
    return np.array([((h * inverse) % 2**64) - (2**64 if (h * inverse) % 2**64 >= 2**63 else 0)
                     for h in hashes], dtype=np.int64)


def repeat_message(a, b, doc, query):
    return rf"has document {doc} twice for query {query} \(rows {a} and {b}\)"


def long_query(rng, n):
    return rng.permutation(np.arange(-(n // 2), n - n // 2, dtype=np.int64) * 7919 + 3)


@pytest.mark.parametrize("where", [(0, 1), (0, -1), (-2, -1), (5, LONG + 3)])
def test_a_long_query_reports_the_first_repeated_document(where):
    rng = np.random.default_rng(1)
    n = LONG + 10
    docs = long_query(rng, n)
    qids = np.full(n, 42, dtype=np.int64)
    scores = rng.random(n)
    assert len(rw.Run.from_arrays(qids, docs, scores)) == n
    a, b = (i % n for i in where)
    docs[b] = docs[a]
    with pytest.raises(ValueError, match=repeat_message(a, b, docs[a], 42)):
        rw.Run.from_arrays(qids, docs, scores)
    with pytest.raises(ValueError, match=repeat_message(a, b, docs[a], 42)):
        rw.Qrels.from_arrays(qids, docs, np.ones(n, dtype=np.int64))


@pytest.mark.parametrize("grouped", [True, False])
@pytest.mark.parametrize("threads", [1, 2])
def test_many_repeats_in_long_queries_report_the_earliest(grouped, threads):
    # Two long queries and some short ones; several repeats, the earliest (by the query
    # first seen, then row) must be named, in the rows as given.
    rng = np.random.default_rng(2)
    sizes = [LONG + 5, 300, LONG + 100, 2]
    qids = np.repeat(np.array([7, -3, 2**62, 0], dtype=np.int64), sizes)
    docs = np.concatenate([long_query(rng, s) for s in sizes])
    if not grouped:
        p = rng.permutation(qids.shape[0])
        qids, docs = qids[p], docs[p]
    assert first_repeat_rows(qids, docs) is None
    rw.Run.from_arrays(qids, docs, np.zeros(qids.shape[0]), n_threads=threads)
    for _ in range(4):
        q = int(rng.choice([7, 2**62]))
        rows = np.flatnonzero(qids == q)
        a, b = sorted(rng.choice(rows, 2, replace=False).tolist())
        docs[b] = docs[a]
    a, b = first_repeat_rows(qids, docs)
    with pytest.raises(ValueError, match=repeat_message(a, b, docs[a], qids[a])):
        rw.Run.from_arrays(qids, docs, np.zeros(qids.shape[0]), n_threads=threads)


def test_a_long_query_gives_the_numbers_of_its_decimal_text():
    rng = np.random.default_rng(3)
    n = LONG + 1000
    docs = long_query(rng, n)
    scores = rng.integers(0, 1000, n) / 8          # ties, resolved by the ids' text
    judged = rng.choice(n, 3000, replace=False)
    run_rows = [(5, d, s) for d, s in zip(docs.tolist(), scores.tolist(), strict=True)]
    qrels_rows = [(5, int(docs[i]), int(rng.integers(0, 3))) for i in judged]
    for ties in ("trec", "expected"):
        measures = EXPECTED_MEASURES if ties == "expected" else ["map", "P.10,1000", "ndcg_cut.100", "bpref"]
        assert_same(*evaluate_both(qrels_rows, run_rows, measures, ties=ties))


@pytest.mark.parametrize("rows_per_query", [1, 2, 3])
@pytest.mark.parametrize("grouped", [True, False])
def test_many_tiny_queries(rows_per_query, grouped):
    rng = random.Random(rows_per_query)
    n_queries = 3000
    queries = rng.sample(range(-10**12, 10**12), n_queries)
    run_rows = [(q, rng.randrange(10**6) * rows_per_query + k, rng.choice([0.5, 1.0, rng.random()]))
                for q in queries for k in range(rows_per_query)]
    qrels_rows = [row[:2] + (rng.choice([0, 1, 2]),) for row in run_rows if rng.random() < 0.6]
    if not grouped:
        rng.shuffle(run_rows)
        rng.shuffle(qrels_rows)
    run = rw.Run.from_arrays(*as_arrays(run_rows))
    assert run.query_ids.tolist() == list(dict.fromkeys(q for q, _, _ in run_rows))
    got, want = evaluate_both(qrels_rows, run_rows, MEASURES)
    assert_same(got, want)
    assert_same(*evaluate_both(qrels_rows, run_rows, EXPECTED_MEASURES, ties="expected", complete=True))


def test_queries_repeated_after_many_runs_are_grouped():
    # The repeat of query 0 comes after more runs than the first check looks at.
    n = 70_000
    qids = np.concatenate([np.arange(n), [0]]).astype(np.int64)
    docs = np.concatenate([np.zeros(n, dtype=np.int64), [1]])
    run = rw.Run.from_arrays(qids, docs, np.ones(n + 1))
    assert run.n_queries == n and run.query_ids[0] == 0
    qrels = rw.Qrels.from_arrays(np.array([0, 0]), np.array([0, 1]), np.array([1, 1]))
    assert rw.trec_eval(qrels, run, ["num_ret", "map"]).mean() == {"num_ret": 2, "map": 1.0}
    docs[-1] = 0
    with pytest.raises(ValueError, match=repeat_message(0, n, 0, 0)):
        rw.Run.from_arrays(qids, docs, np.ones(n + 1))


@pytest.mark.parametrize("n", [0, 1])
def test_zero_and_one_row(n):
    ids = np.array([INT64.min], dtype=np.int64)[:n]
    run = rw.Run.from_arrays(ids, ids, np.ones(n))
    qrels = rw.Qrels.from_arrays(ids, ids, np.ones(n))
    assert run.n_queries == n and len(run) == n
    if n:
        assert rw.trec_eval(qrels, run, ["num_ret"]).mean() == {"num_ret": n}
    else:
        with pytest.raises(ValueError, match="^nothing to evaluate: the qrels have no queries$"):
            rw.trec_eval(qrels, run, ["num_ret"])


def test_values_are_checked_before_repeats_and_converted_once():
    q, d = np.array([1, 1]), np.array([3, 3])
    with pytest.raises(ValueError, match=r"scores\[1\] is nan \(query 1, document 3\)"):
        rw.Run.from_arrays(q, d, np.array([0.5, np.nan], dtype=np.float32))
    qrels = rw.Qrels.from_arrays(np.array([1, 1]), np.array([3, 4]), np.array([2, 1], dtype=np.int8))
    assert qrels._columns.values.dtype == np.float64 and qrels.to_dict() == {1: {3: 2.0, 4: 1.0}}
