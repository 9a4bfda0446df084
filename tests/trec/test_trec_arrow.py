"""Qrels and Run from and to Arrow: pyarrow tables and record batches, polars, Parquet files.

The reference is from_pandas on the same rows: every Arrow layout of them (plain, large and
view strings, dictionaries with repeated and unused entries, several chunks, slices, record
batches, polars, the Arrow C stream, Parquet) must give the same Qrels or Run, or the same
error, and the same trec_eval numbers. Also: numbers read in place, ids never decoded row by
row, nulls and wrong types refused naming the column, and the messages of missing extras.
"""
from __future__ import annotations

import random
import sys

import numpy as np
import pytest

import rankwise as rw
from rankwise._core.strings import StringTable
from rankwise.trec import arrow as _arrow

pa = pytest.importorskip("pyarrow")
pd = pytest.importorskip("pandas")
pq = pytest.importorskip("pyarrow.parquet")

MEASURES = ["map", "ndcg_cut.3", "P.2", "recip_rank", "bpref", "num_rel_ret"]
NAMES = {"Qrels": ("query_id", "doc_id", "relevance"), "Run": ("query_id", "doc_id", "score")}
WORDS = ["q1", "q10", "q2", "doc-7", "é", "日本", "d", "d0", "x" * 30, "42", "-3", "007"]


def random_rows(rng: random.Random, what: str, kinds: tuple[str, str], faults: bool):
    """{column: list} of random rows: ids of the kinds ("str" or "int"), shuffled or grouped,
    with, when ``faults``, now and then a repeated document, a NaN or infinite value, or an id
    a TREC file cannot hold."""
    n_queries = rng.randint(1, 6)
    pools = [[rng.choice(WORDS) + str(rng.randrange(50)) for _ in range(30)] if kind == "str"
             else [rng.randrange(-5, 2**40) for _ in range(30)] for kind in kinds]
    queries = list(dict.fromkeys(rng.sample(pools[0], n_queries)))
    rows = []
    for q in queries:
        for d in dict.fromkeys(rng.sample(pools[1], rng.randint(1, 12))):
            value = rng.choice([0, 1, 2, -1]) if what == "Qrels" else rng.choice([0.5, 0.25, rng.random(), -np.inf])
            rows.append([q, d, float(value)])
    if rng.random() < 0.5:
        rng.shuffle(rows)
    if faults and rows:
        fault = rng.choice(["repeat", "nan", "inf", "id", "none"])
        i = rng.randrange(len(rows))
        if fault == "repeat":
            rows.append(list(rows[i]))
        elif fault in ("nan", "inf"):
            rows[i][2] = np.nan if fault == "nan" else np.inf
        elif fault == "id" and kinds[0] == "str":
            rows[i][0] = rng.choice(["a b", "", "#q", "tab\there"])
        elif fault == "id" and kinds[1] == "str":
            rows[i][1] = rng.choice(["a b", "", "new\nline"])
    names = NAMES[what]
    return {name: [row[j] for row in rows] for j, name in enumerate(names)}


def built(cls, build):
    """What a builder gives: a summary of the object, or the error's type and message."""
    try:
        obj = build()
    except (ValueError, TypeError) as exc:
        return type(exc), str(exc).replace("from_pandas", "from_X").replace("from_arrow", "from_X")
    return (repr(obj), obj.query_ids.tolist(), obj.query_ids.dtype, obj.to_dict(), len(obj))


def layouts(table: pa.Table, rng: random.Random):
    """The same rows in many Arrow layouts: (label, data)."""
    strings = [i for i, field in enumerate(table.schema) if pa.types.is_string(field.type)]

    def cast(kind):
        out = table
        for i in strings:
            out = out.set_column(i, out.field(i).name, out.column(i).cast(kind))
        return out

    def encoded(t):
        for i in strings:
            t = t.set_column(i, t.field(i).name, t.column(i).dictionary_encode())
        return t

    yield "string", table
    yield "large_string", cast(pa.large_string())
    yield "binary", cast(pa.binary())
    if hasattr(pa, "string_view"):
        yield "string_view", cast(pa.string_view())
    yield "dictionary", encoded(table)
    yield "odd dictionary", odd_dictionaries(table, strings, rng)
    cut = sorted(rng.sample(range(table.num_rows + 1), min(3, table.num_rows + 1)))
    pieces = [table.slice(a, b - a) for a, b in zip([0, *cut], [*cut, table.num_rows], strict=True)]
    yield "chunks", pa.concat_tables(pieces)
    # Each chunk its own dictionary: unified when read.
    yield "dictionary chunks", pa.concat_tables([encoded(piece) for piece in pieces])
    padded = pa.concat_tables([table.slice(0, 2), table, table.slice(0, 1)]).combine_chunks()
    yield "slice", padded.slice(2, table.num_rows)
    yield "record batch", pa.RecordBatch.from_pydict(table.to_pydict(), schema=table.schema)
    yield "C stream", Stream(table)
    if "polars" in sys.modules or _has("polars"):
        import polars as pl
        yield "polars", pl.from_arrow(table)


def _has(module):
    try:
        __import__(module)
    except ImportError:
        return False
    return True


class Stream:
    """An object that exports the Arrow C stream, and nothing else."""

    def __init__(self, table):
        self._table = table

    def __arrow_c_stream__(self, requested_schema=None):
        return self._table.__arrow_c_stream__(requested_schema)


def odd_dictionaries(table, strings, rng):
    """String columns dictionary-encoded with each value twice in the dictionary, unused values
    beside them, indices of another width."""
    for i in strings:
        values = table.column(i).to_pylist()
        distinct = list(dict.fromkeys(values))
        dictionary = distinct + ["unused", *distinct]
        rng.shuffle(dictionary)
        where = {}
        for k, v in enumerate(dictionary):
            where.setdefault(v, []).append(k)
        indices = pa.array([rng.choice(where[v]) for v in values], type=rng.choice([pa.int8(), pa.int16(), pa.int64()])
                           if len(dictionary) < 120 else pa.int64())
        table = table.set_column(i, table.field(i).name, pa.DictionaryArray.from_arrays(indices, dictionary))
    return table


@pytest.mark.parametrize("what", ["Qrels", "Run"])
@pytest.mark.parametrize("kinds", [("str", "str"), ("int", "int"), ("int", "str"), ("str", "int")])
def test_every_layout_gives_what_from_pandas_gives(what, kinds):
    cls = getattr(rw, what)
    rng = random.Random(f"{what} {kinds}")
    outcomes = set()
    for seed in range(12):
        data = random_rows(rng, what, kinds, faults=seed % 3 != 0)
        frame = pd.DataFrame(data)
        want = built(cls, lambda frame=frame: cls.from_pandas(frame))
        outcomes.add(want[0] if isinstance(want[0], type) else "built")
        for label, layout in layouts(pa.table(data), rng):
            got = built(cls, lambda layout=layout: cls.from_arrow(layout))
            assert got == want, (label, seed)
    assert {"built", ValueError} <= outcomes


@pytest.mark.parametrize("kinds", [("str", "str"), ("int", "int"), ("str", "int")])
def test_trec_eval_numbers_equal_across_input_routes(tmp_path, kinds):
    rng = random.Random(5)
    qrels_rows, run_rows = (random_rows(rng, what, kinds, faults=False) for what in ("Qrels", "Run"))
    # Every run query judged, so that they share queries.
    run_rows["query_id"] = [rng.choice(qrels_rows["query_id"]) for _ in run_rows["query_id"]]
    run_rows["doc_id"] = [rng.choice(qrels_rows["doc_id"]) if rng.random() < 0.5 else f"{d}" if kinds[1] == "str"
                          else d for d in run_rows["doc_id"]]
    frame = pd.DataFrame(run_rows).drop_duplicates(["query_id", "doc_id"])
    qrels = rw.Qrels.from_pandas(pd.DataFrame(qrels_rows))
    want = rw.trec_eval(qrels, rw.Run.from_pandas(frame, name="r"), MEASURES).format(per_query=True)
    table = pa.Table.from_pandas(frame, preserve_index=False)
    routes = {"arrow": rw.Run.from_arrow(table, name="r"),
              "dictionary": rw.Run.from_arrow(pa.table({c: (col.dictionary_encode() if pa.types.is_string(col.type)
                                                            else col) for c, col in zip(table.column_names,
                                                                                       table.columns, strict=True)}),
                                              name="r")}
    rw.Run.from_pandas(frame, name="r").write(tmp_path / "run.parquet")
    routes["parquet"] = rw.Run.read(tmp_path / "run.parquet")
    routes["round trip"] = rw.Run.from_arrow(routes["parquet"].to_arrow())
    if _has("polars"):
        routes["polars"] = rw.Run.from_arrow(routes["arrow"].to_polars())
    qrels.write(tmp_path / "qrels.parquet")
    for label, run in routes.items():
        for judged in (qrels, rw.Qrels.read(tmp_path / "qrels.parquet"), rw.Qrels.from_arrow(qrels.to_arrow())):
            assert rw.trec_eval(judged, run, MEASURES).format(per_query=True) == want, label


@pytest.mark.parametrize("what", ["Qrels", "Run"])
@pytest.mark.parametrize("ids", ["str", "int"])
def test_round_trips_give_equal_objects(tmp_path, what, ids):
    cls = getattr(rw, what)
    rows = random_rows(random.Random(3), what, (ids, ids), faults=False)
    original = cls.from_pandas(pd.DataFrame(rows), **({"name": "bm25"} if what == "Run" else {}))
    table = original.to_arrow()
    original.write(tmp_path / "x.parquet")
    copies = [cls.from_arrow(table), cls.from_arrow(table.combine_chunks().to_batches()[0]),
              cls.read(tmp_path / "x.parquet"), cls.read(str(tmp_path / "x.parquet"))]
    with open(tmp_path / "x.parquet", "rb") as f:
        copies.append(cls.read(f))
    if _has("polars"):
        # A polars DataFrame has no metadata to keep the name in.
        copies.append(cls.from_arrow(original.to_polars(), **({"name": "bm25"} if what == "Run" else {})))
    for copy in copies:
        assert repr(copy) == repr(original)
        assert copy.to_dict() == original.to_dict()
        assert copy.query_ids.tolist() == original.query_ids.tolist()
    kind = pa.int64() if ids == "int" else pa.dictionary(pa.int64(), pa.large_string())
    assert table.schema.types == [kind, kind, pa.float64()]
    assert table.column_names == list(NAMES[what])


def test_the_run_name_travels_in_the_schema_metadata(tmp_path):
    run = rw.Run.from_dict({"q1": {"d1": 1.0}}, name="dense-v2")
    table = run.to_arrow()
    assert table.schema.metadata == {b"rankwise.run_name": b"dense-v2"}
    assert rw.Run.from_arrow(table).name == "dense-v2"
    assert rw.Run.from_arrow(table, name="other").name == "other"
    assert rw.Run.from_arrow(table.replace_schema_metadata(None)).name == "rankwise"
    run.write(tmp_path / "r.parquet")
    assert rw.Run.read(tmp_path / "r.parquet").name == "dense-v2"
    assert rw.Run.read(tmp_path / "r.parquet", name="x").name == "x"
    assert rw.Qrels.from_dict({"q1": {"d1": 1}}).to_arrow().schema.metadata is None


def test_numbers_are_read_in_place_where_the_types_allow():
    q, d, v = np.array([3, 3, 4]), np.array([7, 8, 7]), np.array([0.5, 0.25, 1.0])
    table = pa.table({"query_id": q, "doc_id": d, "score": v})
    run = rw.Run.from_arrow(table)
    views = [table.column(name).chunk(0).to_numpy() for name in table.column_names]
    c = run._columns
    for mine, theirs in zip((c.query_ids, c.doc_ids, c.values), views, strict=True):
        assert np.shares_memory(mine, theirs)
    assert run.to_dict() == {3: {7: 0.5, 8: 0.25}, 4: {7: 1.0}}
    # Other widths are converted once; several chunks are joined.
    narrow = pa.table({"query_id": q.astype(np.int32), "doc_id": d.astype(np.uint16), "score": v.astype(np.float32)})
    assert rw.Run.from_arrow(narrow).to_dict() == run.to_dict()
    assert rw.Run.from_arrow(pa.concat_tables([table.slice(0, 1), table.slice(1)])).to_dict() == run.to_dict()
    qrels = rw.Qrels.from_arrow(pa.table({"query_id": q, "doc_id": d, "relevance": pa.array([1, 0, 1], pa.int8())}))
    assert qrels._columns.values.dtype == np.float64
    # to_arrow copies nothing either.
    back = run.to_arrow()
    for name, mine in zip(back.column_names, (c.query_ids, c.doc_ids, c.values), strict=True):
        assert np.shares_memory(back.column(name).chunk(0).to_numpy(), mine)


def test_string_ids_are_never_decoded_row_by_row(monkeypatch):
    strings = pa.array(["q1", "q2", "q1", "q2"])
    table = pa.table({"query_id": strings, "doc_id": strings.dictionary_encode(), "score": [0.1, 0.2, 0.3, 0.4]})
    calls = []
    real = StringTable.from_dictionary.__func__

    def spy(cls, data, offsets, indices):
        calls.append((len(offsets) - 1, len(indices)))
        return real(cls, data, offsets, indices)

    def refuse(*args, **kwargs):
        raise AssertionError("from_strings called")

    monkeypatch.setattr(StringTable, "from_strings", classmethod(refuse))
    monkeypatch.setattr(StringTable, "from_dictionary", classmethod(spy))
    with pytest.raises(ValueError, match="document 'q1' twice for query 'q1'"):
        rw.Run.from_arrow(table)
    assert calls == [(2, 4)]        # the dictionary, its two strings interned once
    run = rw.Run.from_arrow(table.set_column(1, "doc_id", pa.array(["a", "b", "c", "d"]).dictionary_encode()))
    assert run.to_dict() == {"q1": {"a": 0.1, "c": 0.3}, "q2": {"b": 0.2, "d": 0.4}}
    # to_arrow's dictionaries are the id tables' own bytes.
    out = run.to_arrow().column("doc_id").chunk(0)
    assert np.shares_memory(np.frombuffer(out.dictionary.buffers()[2], np.uint8), run._columns.docs.data)
    assert np.shares_memory(out.indices.to_numpy(), run._columns.doc_codes)


def test_dictionaries_keep_first_seen_order_and_drop_unused_values():
    dictionary = pa.array(["unused", "q2", "q1", "q2"])
    queries = pa.DictionaryArray.from_arrays(pa.array([3, 2, 1, 2], pa.int32()), dictionary)
    qrels = rw.Qrels.from_arrow(pa.table({"query_id": queries, "doc_id": ["a", "a", "b", "b"],
                                          "relevance": [1, 1, 0, 2]}))
    assert qrels.query_ids.tolist() == ["q2", "q1"] and qrels.n_queries == 2
    assert qrels.to_dict() == {"q2": {"a": 1.0, "b": 0.0}, "q1": {"a": 1.0, "b": 2.0}}
    outside = pa.DictionaryArray.from_arrays(pa.array([0, 5], pa.int32()), pa.array(["q1"]), safe=False)
    with pytest.raises(IndexError, match="dictionary index 5 outside a dictionary of 1"):
        rw.Qrels.from_arrow(pa.table({"query_id": outside, "doc_id": ["a", "b"], "relevance": [1, 1]}))


@pytest.mark.parametrize("column", ["query_id", "doc_id", "score"])
@pytest.mark.parametrize("layout", ["plain", "dictionary", "chunks"])
def test_nulls_are_refused_naming_column_and_row(column, layout):
    data = {"query_id": ["q1", "q1", "q2"], "doc_id": [1, 2, 1], "score": [0.5, 0.2, 0.9]}
    data[column] = data[column][:2] + [None]
    table = pa.table(data)
    if layout == "dictionary":
        table = table.set_column(table.schema.get_field_index(column), column,
                                 table.column(column).dictionary_encode())
    elif layout == "chunks":
        table = pa.concat_tables([table.slice(0, 1), table.slice(1)])
    with pytest.raises(ValueError, match=rf"Run.from_arrow: column '{column}' is null at row 2; every row needs"):
        rw.Run.from_arrow(table)


def test_a_null_inside_a_dictionary_counts_only_where_used():
    dictionary = pa.array(["q1", None])
    table = pa.table({"query_id": pa.DictionaryArray.from_arrays(pa.array([0, 0], pa.int32()), dictionary),
                      "doc_id": ["a", "b"], "score": [1.0, 2.0]})
    assert rw.Run.from_arrow(table).to_dict() == {"q1": {"a": 1.0, "b": 2.0}}
    used = table.set_column(0, "query_id", pa.DictionaryArray.from_arrays(pa.array([0, 1], pa.int32()), dictionary))
    with pytest.raises(ValueError, match="column 'query_id' is null at row 1"):
        rw.Run.from_arrow(used)


@pytest.mark.parametrize("column, values, error, match", [
    ("query_id", pa.array([1.0, 2.0]), TypeError, "column 'query_id' must hold integers or strings, got float64"),
    ("doc_id", pa.array([True, False]), TypeError, "column 'doc_id' must hold integers or strings, got bool"),
    ("doc_id", pa.array([1, 2], pa.timestamp("s")), TypeError,
     r"column 'doc_id' must hold integers or strings, got timestamp\[s\]"),
    ("doc_id", pa.array([[1], [2]]), TypeError, "column 'doc_id' must hold integers or strings, got list"),
    ("query_id", pa.array([2**63, 1], pa.uint64()), ValueError, r"column 'query_id' holds integers above 2\*\*63 - 1"),
    ("score", pa.array(["0.5", "1"]), TypeError, "column 'score' must be a 1-D array of numbers, got string"),
    ("doc_id", pa.array([b"d1", b"\xff"]), ValueError,
     r"column 'doc_id', row 1, is b'\\xff', which is not valid UTF-8"),
    ("doc_id", pa.array(["a b", "c"]), ValueError, "document id 'a b' could not be read from or written to a TREC"),
])
def test_wrong_types_and_values_are_refused_naming_the_column(column, values, error, match):
    data = {"query_id": pa.array(["q1", "q1"]), "doc_id": pa.array([1, 2]), "score": pa.array([0.5, 0.2])}
    data[column] = values
    with pytest.raises(error, match=match):
        rw.Run.from_arrow(pa.table(data))


@pytest.mark.parametrize("kind", ["binary", "binary_view"])
def test_bytes_that_are_not_utf8_are_refused_in_any_layout(kind):
    if not hasattr(pa, kind):
        pytest.skip(f"pyarrow {pa.__version__} has no {kind}")
    chunks = [pa.array([b"d1"]).cast(getattr(pa, kind)()), pa.array([b"\xff"]).cast(getattr(pa, kind)())]
    table = pa.table({"query_id": ["q1", "q1"], "doc_id": pa.chunked_array(chunks), "score": [0.5, 0.2]})
    with pytest.raises(ValueError, match=r"Run.from_arrow: column 'doc_id', row 1, is b'\\xff', which is not valid"):
        rw.Run.from_arrow(table)


def test_missing_and_repeated_columns_and_other_inputs():
    table = pa.table({"query_id": ["q1"], "doc_id": ["d1"], "score": [1.0]})
    with pytest.raises(ValueError, match=r"Qrels.from_arrow: the table has no column 'relevance' \(columns: "
                                         r"\['query_id', 'doc_id', 'score'\]\)"):
        rw.Qrels.from_arrow(table)
    assert rw.Qrels.from_arrow(table, relevance="score").to_dict() == {"q1": {"d1": 1.0}}
    twice = pa.Table.from_arrays([pa.array(["q1"]), pa.array(["d1"]), pa.array([1.0]), pa.array([2.0])],
                                 names=["query_id", "doc_id", "score", "score"])
    with pytest.raises(ValueError, match="the table has 2 columns named 'score'"):
        rw.Run.from_arrow(twice)
    for data in ([1, 2], {"query_id": ["q1"]}, None):
        with pytest.raises(TypeError, match="data must be a pyarrow Table or RecordBatch, a polars DataFrame"):
            rw.Run.from_arrow(data)
    empty = rw.Run.from_arrow(table.slice(0, 0))
    assert len(empty) == 0 and empty.n_queries == 0
    no_chunks = pa.table({"query_id": pa.chunked_array([], pa.dictionary(pa.int32(), pa.string())),
                          "doc_id": pa.chunked_array([], pa.string()), "score": pa.chunked_array([], pa.float64())})
    assert rw.Run.from_arrow(no_chunks).to_dict() == {}


def test_dictionaries_of_numbers_are_numbers():
    table = pa.table({"query_id": pa.array([5, 5, 6]).dictionary_encode(), "doc_id": [1, 2, 1],
                      "relevance": pa.array([1.0, 0.0, 1.0]).dictionary_encode()})
    qrels = rw.Qrels.from_arrow(table)
    assert qrels.query_ids.tolist() == [5, 6] and qrels.to_dict() == {5: {1: 1.0, 2: 0.0}, 6: {1: 1.0}}


def test_parquet_is_recognised_by_its_magic_bytes_and_its_name(tmp_path):
    run = rw.Run.from_dict({"q1": {"d1": 0.5, "d2": 0.25}}, name="pq")
    run.write(tmp_path / "run.PARQUET")
    odd = tmp_path / "run.trec.txt"
    odd.write_bytes((tmp_path / "run.PARQUET").read_bytes())
    assert rw.Run.read(odd).to_dict() == run.to_dict() and rw.Run.read(odd).name == "pq"
    # A text file is still a text file; a Parquet name must hold Parquet.
    (tmp_path / "run.txt").write_text("q1 Q0 d1 1 0.5 t\n")
    assert rw.Run.read(tmp_path / "run.txt").name == "t"
    (tmp_path / "fake.parquet").write_text("q1 Q0 d1 1 0.5 t\n")
    with pytest.raises(ValueError, match=r"fake.parquet: the name ends in .parquet but the data is not Parquet"):
        rw.Run.read(tmp_path / "fake.parquet")
    (tmp_path / "cut.parquet").write_bytes((tmp_path / "run.PARQUET").read_bytes()[:40])
    with pytest.raises(ValueError, match="cut.parquet: cannot read it as Parquet"):
        rw.Run.read(tmp_path / "cut.parquet")
    # Parquet written by others: plain strings, other names, nulls.
    pq.write_table(pa.table({"query_id": ["q1", "q2"], "doc_id": ["a", "b"], "relevance": [1, 2],
                             "extra": [None, None]}), tmp_path / "other")
    assert rw.Qrels.read(tmp_path / "other").to_dict() == {"q1": {"a": 1.0}, "q2": {"b": 2.0}}
    with pytest.raises(ValueError, match=r"other: the table has no column 'score'"):
        rw.Run.read(tmp_path / "other")
    pq.write_table(pa.table({"query_id": ["q1", None], "doc_id": ["a", "b"], "relevance": [1, 2]}),
                   tmp_path / "nulls.parquet")
    with pytest.raises(ValueError, match=r"nulls.parquet: column 'query_id' is null at row 1"):
        rw.Qrels.read(tmp_path / "nulls.parquet")
    # A missing file is the TREC reader's error, as before.
    with pytest.raises(FileNotFoundError):
        rw.Run.read(tmp_path / "absent")


def test_a_seekable_stream_is_sniffed_and_left_where_it_was(tmp_path):
    rw.Qrels.from_dict({"q1": {"d1": 1}}).write(tmp_path / "q.parquet")
    with open(tmp_path / "q.parquet", "rb") as f:
        assert _arrow.is_parquet(f) and f.tell() == 0
    (tmp_path / "q.txt").write_text("q1 0 d1 1\n")
    with open(tmp_path / "q.txt", "rb") as f:
        assert not _arrow.is_parquet(f) and f.tell() == 0
        assert rw.Qrels.read(f).to_dict() == {"q1": {"d1": 1.0}}
    assert not _arrow.is_parquet("-") and not _arrow.is_parquet(tmp_path)


def test_polars_frames_go_through_arrow():
    pl = pytest.importorskip("polars")
    frame = pl.DataFrame({"qid": ["q1", "q1", "q2"], "docno": [3, 1, 3], "score": [0.5, 0.9, 0.1]})
    run = rw.Run.from_arrow(frame, query="qid", doc="docno")
    assert run.to_dict() == {"q1": {"3": 0.5, "1": 0.9}, "q2": {"3": 0.1}}   # as from_pandas: text beside text
    categorical = frame.with_columns(pl.col("qid").cast(pl.Categorical))
    assert rw.Run.from_arrow(categorical, query="qid", doc="docno").to_dict() == run.to_dict()
    # Through the C stream, polars gives string views and dictionaries of them.
    assert rw.Run.from_arrow(Stream(categorical), query="qid", doc="docno").to_dict() == run.to_dict()
    back = run.to_polars()
    assert back.columns == ["query_id", "doc_id", "score"] and back["doc_id"].to_list() == ["3", "1", "3"]
    assert rw.Run.from_arrow(back).to_dict() == run.to_dict()
    numbers = rw.Run.from_arrow(frame.with_columns(pl.col("qid").str.slice(1).cast(pl.Int64)), query="qid",
                                doc="docno")
    assert numbers.to_dict() == {1: {3: 0.5, 1: 0.9}, 2: {3: 0.1}}
    assert numbers.to_polars()["doc_id"].dtype == pl.Int64


def test_missing_extras_name_what_to_install(monkeypatch, tmp_path):
    run = rw.Run.from_dict({"q1": {"d1": 1.0}})
    rw.Run.from_dict({"q1": {"d1": 1.0}}).write(tmp_path / "r.parquet")
    monkeypatch.setitem(sys.modules, "polars", None)
    with pytest.raises(ImportError, match=r'to_polars\(\) needs polars and pyarrow: pip install "rankwise\[polars\]"'):
        run.to_polars()
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    with pytest.raises(ImportError, match=r'Run.from_arrow needs pyarrow: pip install "rankwise\[arrow\]"'):
        rw.Run.from_arrow(object())
    with pytest.raises(ImportError, match=r'to_arrow\(\) needs pyarrow: pip install "rankwise\[arrow\]"'):
        run.to_arrow()
    with pytest.raises(ImportError, match=r'r.parquet: reading Parquet needs pyarrow: pip install "rankwise\[arrow\]"'):
        rw.Run.read(tmp_path / "r.parquet")
    with pytest.raises(ImportError, match=r'rankwise\[arrow\]'):
        run.write(tmp_path / "s.parquet")
    # Text files need none of it.
    run.write(tmp_path / "r.txt")
    assert rw.Run.read(tmp_path / "r.txt").to_dict() == run.to_dict()
