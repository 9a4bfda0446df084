"""TREC file reading and writing, and the string tables behind it.

Every check compares against an independent plain-Python reference: a line parser
written here from the format's description (bytes.split() splits on exactly C's
isspace set), dict interning, sorted() by UTF-8 bytes, and float() for numbers.
"""
import gzip
import math
import random
import struct
from pathlib import Path

import numpy as np
import pytest

from rankwise._core import _intern
from rankwise._core.duplicates import first_duplicate_codes
from rankwise.trec import _text
from rankwise.trec.io import StringTable, TrecColumns, read_qrels, read_run, write_qrels, write_run

# trec_eval 10.0's own test files, vendored (tests/trec/data/trec_eval_oracle/README.md).
ORACLES = Path(__file__).resolve().parent / "data" / "trec_eval_oracle"


# ---------------------------------------------------------------------------- references

def reference_parse(raw: bytes, run: bool):
    """(qid, docno, value, line) per data line, by plain Python."""
    rows = []
    for number, line in enumerate(raw.split(b"\n"), 1):
        fields = line.split()
        if not fields or fields[0].startswith(b"#"):
            continue
        if run:
            assert len(fields) >= 6
            value = fields[4]
        else:
            assert len(fields) == 4
            value = fields[3]
        rows.append((fields[0].decode(), fields[2].decode(), float(value), number))
    return rows


def first_seen(items):
    return list(dict.fromkeys(items))


def assert_matches_reference(columns: TrecColumns, rows):
    queries, docs, values, lines = zip(*rows, strict=True)
    assert columns.queries.to_numpy().tolist() == first_seen(queries)
    # Docnos are interned in parallel tables (by hash): each once, in no promised order.
    assert sorted(columns.docs.to_numpy().tolist()) == sorted(set(docs))
    assert columns.queries.to_numpy()[columns.query_codes].tolist() == list(queries)
    assert columns.docs.to_numpy()[columns.doc_codes].tolist() == list(docs)
    np.testing.assert_array_equal(columns.values, np.array(values))
    assert [columns.line(row) for row in range(len(values))] == list(lines)
    for name in ("query_codes", "doc_codes", "skips"):
        assert getattr(columns, name).dtype == np.int64
    assert columns.values.dtype == np.float64


def same_bits(a, b) -> bool:
    return np.asarray(a, np.float64).tobytes() == np.asarray(b, np.float64).tobytes()


def write_bytes(tmp_path, name: str, raw: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(gzip.compress(raw) if name.endswith(".gz") else raw)
    return path


def random_id(rng: random.Random, alphabet: str, max_length: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(1, max_length)))


# ---------------------------------------------------------------------------- trec_eval's files

QRELS_FILES = ["qrels.test", "qrels.test.with-comments", "qrels.rel_level", "qrels.comment.test"]
RUN_FILES = ["results.test", "results.trunc", "results.comment.test"]


@pytest.mark.parametrize("name", QRELS_FILES + RUN_FILES)
def test_oracle_files_match_a_plain_python_parser(name):
    run = name.startswith("results")
    path = ORACLES / name
    columns = (read_run if run else read_qrels)(path)
    rows = reference_parse(path.read_bytes(), run)
    assert len(columns.values) == len(rows) > 0
    assert_matches_reference(columns, rows)
    if run:
        data = [line for line in path.read_bytes().splitlines() if line.strip() and not line.startswith(b"#")]
        assert columns.run_name == data[-1].split()[5].decode()       # the last line's, as trec_eval
    else:
        assert columns.run_name is None


def test_oracle_comments_and_hash_inside_docno():
    plain = read_qrels(ORACLES / "qrels.test")
    commented = read_qrels(ORACLES / "qrels.test.with-comments")
    assert len(commented.values) == len(plain.values) == 3681
    docs = commented.docs.to_numpy()
    assert "CR#93E-1860" in docs.tolist() and not any(d.startswith("#") for d in docs)
    # Its first data line is line 2 (line 1 is a comment); line 8 holds CR#93E-1860.
    assert commented.line(0) == 2
    row = docs.tolist().index("CR#93E-1860")
    assert commented.line(np.flatnonzero(commented.doc_codes == row)[0]) == 8


def test_oracle_extra_run_fields_are_ignored():
    trunc = read_run(ORACLES / "results.trunc")
    assert trunc.run_name == "STANDARD"
    assert len(trunc.values) == 584
    assert trunc.values[0] == 2.138276 and trunc.queries[0] == "301"
    assert trunc.docs[trunc.doc_codes[0]] == "FBIS3-27619"


# ---------------------------------------------------------------------------- format details

def test_whitespace_comments_crlf_extra_fields(tmp_path):
    raw = (b"# a comment\r\n"
           b"q1 Q0 d1 1 3.5 r1\r\n"
           b"\tq1\t\tQ0  d2 2   -1e3 r1 extra junk\r\n"
           b"\r\n"
           b"   \n"
           b"  # an indented comment\n"
           b"q2 Q0 d#3 1 .25 r2\x0b\n"
           b"q2\x0cQ0 d1 2 inf r2")
    path = write_bytes(tmp_path, "run.txt", raw)
    columns = read_run(path)
    assert_matches_reference(columns, reference_parse(raw, run=True))
    assert columns.docs.to_numpy()[columns.doc_codes].tolist() == ["d1", "d2", "d#3", "d1"]
    assert [columns.line(row) for row in range(4)] == [2, 3, 7, 8]
    assert columns.run_name == "r2"      # the runid of the last line, as trec_eval reports it
    assert columns.values.tolist() == [3.5, -1000.0, 0.25, math.inf]


def test_qrels_crlf_tabs_and_fractional_relevance(tmp_path):
    raw = b"1\t0\tdoc-a\t1\r\n 1 0 doc-b 2.5\r\n2 iter doc-a -1\r\n2 0 doc-c 0\r\n"
    columns = read_qrels(write_bytes(tmp_path, "qrels", raw))
    assert_matches_reference(columns, reference_parse(raw, run=False))
    assert columns.values.tolist() == [1.0, 2.5, -1.0, 0.0]


def test_unicode_ids(tmp_path):
    raw = "q\u00e9 Q0 \u6587\u66f8 1 2 r\nq\u00e9 Q0 d\U0001f600 2 1 r\n\u0440 Q0 \u6587\u66f8 1 0 r\n".encode()
    columns = read_run(write_bytes(tmp_path, "run.txt", raw))
    assert_matches_reference(columns, reference_parse(raw, run=True))
    assert columns.queries.to_numpy().tolist() == ["q\u00e9", "\u0440"]


@pytest.mark.parametrize("name", ["run.txt.gz", "run.txt"])
def test_gzip_by_extension_or_magic(tmp_path, name):
    raw = b"q1 Q0 d1 1 1.5 r\nq1 Q0 d2 2 0.5 r\n"
    path = tmp_path / name
    path.write_bytes(gzip.compress(raw))  # a gzip file named .txt is recognised by its magic bytes
    assert_matches_reference(read_run(path), reference_parse(raw, run=True))
    assert_matches_reference(read_run(str(path)), reference_parse(raw, run=True))


def test_scores_parse_exactly_as_strtod(tmp_path):
    rng = random.Random(7)
    tokens = ["0.6898301657029192", "25.725171276692066", "1e-400", "1e400", "-0", "0x1.8p1", "5.",
              "+.5e+2", "123456789012345678901234567890", "9007199254740993", "4.9e-324", "nan", "-inf",
              "0.1", "1e22", "1e23", "8.98846567431158e307", "2.2250738585072011e-308"]
    for _ in range(300):
        mantissa = str(rng.randint(0, 10 ** rng.randint(1, 20)))
        point = rng.randint(0, len(mantissa))
        tokens.append(f"{rng.choice(['', '-', '+'])}{mantissa[:point]}.{mantissa[point:]}"
                      f"{rng.choice(['', f'e{rng.randint(-330, 330)}', f'E+{rng.randint(0, 30)}'])}")
        tokens.append(repr(rng.uniform(-1e3, 1e3) * 10.0 ** rng.randint(-30, 30)))
    raw = "".join(f"q Q0 d{i} {i} {t} r\n" for i, t in enumerate(tokens)).encode()
    values = read_run(write_bytes(tmp_path, "run.txt", raw)).values
    expected = [float.fromhex(t) if "0x" in t else float(t) for t in tokens]
    assert same_bits(values, expected)


# ---------------------------------------------------------------------------- round trips

@pytest.mark.parametrize("suffix", ["", ".gz"])
def test_oracle_round_trips(tmp_path, suffix):
    for name in ("qrels.test.with-comments", "qrels.comment.test", "results.trunc"):
        run = name.startswith("results")
        read, write = (read_run, write_run) if run else (read_qrels, write_qrels)
        original = read(ORACLES / name)
        path = tmp_path / (name + suffix)
        write(path, original, original.run_name) if run else write(path, original)
        again = read(path)
        assert_same_rows(original, again)
        assert again.skips.shape == (0,) and again.line(len(original.values) - 1) == len(original.values)


def assert_same_rows(a: TrecColumns, b: TrecColumns):
    """The same rows: the same strings per row (tables may number docnos differently)."""
    assert a.queries.to_numpy().tolist() == b.queries.to_numpy().tolist()
    np.testing.assert_array_equal(a.query_codes, b.query_codes)
    assert a.docs.to_numpy()[a.doc_codes].tolist() == b.docs.to_numpy()[b.doc_codes].tolist()
    assert len(set(a.docs.to_numpy().tolist())) == len(a.docs) and len(set(b.docs.to_numpy().tolist())) == len(b.docs)
    assert same_bits(a.values, b.values)


def random_columns(seed: int, n_rows: int, values) -> TrecColumns:
    rng = random.Random(seed)
    alphabet = "abcXYZ019-_.#\u00e9\u00df\u4e2d\U0001f600"
    pairs = {}
    while len(pairs) < n_rows:
        q = rng.choice("qrs") + random_id(rng, alphabet, 3)
        pairs[(q, random_id(rng, alphabet, 12))] = None
    queries, query_codes = StringTable.from_strings(q for q, _ in pairs)
    docs, doc_codes = StringTable.from_strings(d for _, d in pairs)
    return TrecColumns(queries, query_codes, docs, doc_codes, np.asarray(values, dtype=np.float64))


def test_run_round_trip_random(tmp_path):
    rng = np.random.default_rng(3)
    scores = np.concatenate([rng.standard_normal(300) * 10.0 ** rng.integers(-300, 300, 300),
                             [0.1, 1 / 3, -0.0, 0.0, np.inf, -np.inf, np.nan, 5e-324, 1e16, 2.0 ** 60]])
    columns = random_columns(1, len(scores), scores)
    path = tmp_path / "run.txt"
    write_run(path, columns, "my-run")
    again = read_run(path)
    assert_same_rows(columns, again)
    assert again.run_name == "my-run"
    # Ranks count each query's rows in the order given, which the reader does not see.
    fields = [line.split(" ") for line in path.read_text("utf-8").splitlines()]
    seen = {}
    for (_, iteration, _, rank, _, name), code in zip(fields, columns.query_codes, strict=True):
        seen[code] = seen.get(code, 0) + 1
        assert (iteration, int(rank), name) == ("Q0", seen[code], "my-run")


def test_qrels_round_trip_random(tmp_path):
    rng = np.random.default_rng(4)
    values = np.concatenate([rng.integers(-1, 5, 200), rng.random(50) * 4, [1e15, -1e15, 2.0 ** 60, 0.5e-300]])
    columns = random_columns(2, len(values), values)
    path = tmp_path / "qrels.gz"
    write_qrels(path, columns)
    assert_same_rows(columns, read_qrels(path))
    text = gzip.decompress(path.read_bytes()).decode()
    written = [line.split(" ")[3] for line in text.splitlines()]
    for token, value in zip(written, values, strict=True):
        assert token == (str(int(value)) if value == int(value) and abs(value) < 1e15 else repr(float(value)))


# ---------------------------------------------------------------------------- errors

@pytest.mark.parametrize("run, raw, message", [
    (False, b"1 0 a 1\n1 0 b\n", r"qrels\.txt, line 2: a qrels line needs 4 fields .*found 3"),
    (False, b"1 0 a 1\n\n1 0 b 1 extra\n", r"qrels\.txt, line 3: a qrels line has exactly 4 fields .*found 5"),
    (False, b"1 0 a\t\r\n", r"qrels\.txt, line 1: a qrels line needs 4 fields .*found 3"),
    (True, b"1 Q0 a 1 2.0 r\n1 Q0 b 2 1.0\n", r"run\.txt, line 2: a run line needs at least 6 fields .*found 5"),
    (True, b"# c\n1 Q0 a 1 high r\n", r"run\.txt, line 2: score 'high' is not a number"),
    (True, b"1 Q0 a 1 1.5x r\n", r"run\.txt, line 1: score '1\.5x' is not a number"),
    (False, b"1 0 a one\n", r"qrels\.txt, line 1: relevance 'one' is not a number"),
    (False, b"1 0 a 1\n1 0 b nan\n", r"qrels\.txt, line 2: relevance 'nan' is not a finite number"),
    (False, b"1 0 a inf\n", r"qrels\.txt, line 1: relevance 'inf' is not a finite number"),
    (True, b"1 Q0 a 1 1 r\n1 Q0 \xff\xfe 2 1 r\n", r"run\.txt, line 2: docno '\\xff\\xfe' is not valid UTF-8"),
    (False, b"1 0 a 1\nq\xc3 0 a 1\n", r"qrels\.txt, line 2: query id 'q\\xc3' is not valid UTF-8"),
    (False, b"1 0 \xed\xa0\x80 1\n", r"qrels\.txt, line 1: docno .* is not valid UTF-8"),  # a surrogate
    (True, b"1 Q0 a 1 1 r\xff\n", r"run\.txt, line 1: runid .* is not valid UTF-8"),
    (True, b"", r"run\.txt: no run lines found"),
    (False, b"# only\n\n  \n# comments\n", r"qrels\.txt: no qrels lines found"),
    (True, b"1 Q0 a 1 1 r\n1 Q0 b 2 1 r\n2 Q0 a 1 1 r\n1 Q0 a 3 0 r\n",
     r"run\.txt has document 'a' twice for query '1' \(lines 1 and 4\); trec_eval rejects duplicates"),
    (False, b"7 0 x 1\n8 0 x 1\n8 0 y 0\n7 0 y 0\n7 0 x 2\n8 0 y 1\n",
     r"qrels\.txt has document 'x' twice for query '7' \(lines 1 and 5\); trec_eval rejects duplicates"),
    (True, b"1 Q0 a 1 1 r\n1 Q0 \x00 2 1 r\n", r"run\.txt, line 2: NUL byte"),
    (True, b"1 Q0 a 1 1 r\r1 Q0 b 2 1 r\r", r"run\.txt: lines end with a bare carriage return"),
])
def test_read_errors_name_file_and_line(tmp_path, run, raw, message):
    path = write_bytes(tmp_path, "run.txt" if run else "qrels.txt", raw)
    with pytest.raises(ValueError, match=message):
        (read_run if run else read_qrels)(path)


def test_error_quotes_are_truncated(tmp_path):
    path = write_bytes(tmp_path, "run.txt", b"1 Q0 a 1 " + b"9" * 100 + b"x r\n")
    with pytest.raises(ValueError, match=r"line 1: score '9{40,}\.\.\.' is not a number") as info:
        read_run(path)
    assert len(str(info.value)) < 200


def test_bad_gzip(tmp_path):
    path = write_bytes(tmp_path, "qrels.txt", b"\x1f\x8bnot really gzip")
    with pytest.raises(ValueError, match=r"qrels\.txt: cannot decompress as gzip"):
        read_qrels(path)


def test_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError):
        read_run(tmp_path / "absent.txt")


def test_first_duplicate_codes_matches_reference():
    rng = np.random.default_rng(5)
    for _ in range(200):
        n = int(rng.integers(1, 40))
        queries = rng.integers(0, 4, n)
        docs = rng.integers(0, 15, n)
        expected, first = None, {}
        for row, pair in enumerate(zip(queries.tolist(), docs.tolist(), strict=True)):
            if pair in first:
                expected = (first[pair], row)
                break
            first[pair] = row
        assert first_duplicate_codes(queries, docs, 4) == expected


def write_error(tmp_path, columns, run=True, name="r"):
    path = tmp_path / "out.txt"
    if run:
        write_run(path, columns, name)
    else:
        write_qrels(path, columns)


def test_write_rejects_what_cannot_be_read_back(tmp_path):
    def columns(queries, docs, values=None):
        q, qc = StringTable.from_strings(queries)
        d, dc = StringTable.from_strings(docs)
        v = np.ones(len(queries)) if values is None else np.asarray(values, dtype=float)
        return TrecColumns(q, qc, d, dc, v)

    with pytest.raises(ValueError, match=r"docno 'a b' cannot be written"):
        write_error(tmp_path, columns(["1"], ["a b"]))
    with pytest.raises(ValueError, match=r"query id '#1' cannot be written"):
        write_error(tmp_path, columns(["#1"], ["a"]), run=False)
    with pytest.raises(ValueError, match=r"docno '' cannot be written"):
        write_error(tmp_path, columns(["1"], [""]))
    with pytest.raises(ValueError, match=r"query id 'q\\t' cannot be written"):
        write_error(tmp_path, columns(["q\t"], ["a"]))
    with pytest.raises(ValueError, match=r"columns has document 'a' twice for query '1' \(rows 0 and 2\)"):
        write_error(tmp_path, columns(["1", "2", "1"], ["a", "a", "a"]))
    with pytest.raises(ValueError, match=r"relevance must be a finite number"):
        write_error(tmp_path, columns(["1"], ["a"], [np.nan]), run=False)
    with pytest.raises(ValueError, match=r"name must be a non-empty str without whitespace"):
        write_error(tmp_path, columns(["1"], ["a"]), name="my run")
    bad = columns(["1", "2"], ["a", "b"])
    bad.doc_codes = np.array([0, 2])
    with pytest.raises(ValueError, match=r"columns.doc_codes must hold codes in \[0, 2\)"):
        write_error(tmp_path, bad)
    bad.doc_codes = np.array([0])
    with pytest.raises(ValueError, match=r"columns.doc_codes must be 1-D integers, one per value"):
        write_error(tmp_path, bad)
    # An id with whitespace that no row uses does not stop the write.
    table, _ = StringTable.from_strings(["a", "b c"])
    ok = columns(["1"], ["a"])
    ok.docs = table
    write_error(tmp_path, ok)
    assert (tmp_path / "out.txt").read_text() == "1 Q0 a 1 1.0 r\n"


# ---------------------------------------------------------------------------- StringTable

def random_strings(seed: int, n: int) -> list:
    rng = random.Random(seed)
    alphabet = ["a", "b", "\x00", "\x7f", "\u00e9", "\u00ff", "\u0100", "\u4e2d", "\U0001f600", "\ud7ff", "\ue000"]
    out = ["", "a", "a\x00", "ab", "b", "aaaaaaaa", "aaaaaaaa\x00", "aaaaaaaab", "aaaaaaa"]
    for _ in range(n):
        out.append("".join(rng.choice(alphabet) for _ in range(rng.randint(0, 11))))
    # Long shared prefixes, and duplicates.
    out += ["msmarco_passage_" + str(rng.randint(0, 99)) for _ in range(n // 4)]
    out += rng.sample(out, n // 4)
    rng.shuffle(out)
    return out


def test_from_strings_matches_dict_interning():
    strings = random_strings(11, 2000)
    table, codes = StringTable.from_strings(strings)
    reference = {}
    expected = [reference.setdefault(s, len(reference)) for s in strings]
    assert codes.dtype == np.int64 and codes.tolist() == expected
    assert table.to_numpy().tolist() == list(reference)
    assert len(table) == len(reference)
    assert [table[i] for i in range(len(table))] == list(reference)
    assert table[-1] == list(reference)[-1]
    assert table.offsets.dtype == np.int64 and table.data.dtype == np.uint8
    assert table.data.tobytes() == "".join(reference).encode()


def test_from_strings_converts_with_str_and_accepts_iterables():
    table, codes = StringTable.from_strings(x for x in [1, "1", 2.5, np.str_("x"), None])
    assert table.to_numpy().tolist() == ["1", "2.5", "x", "None"]
    assert codes.tolist() == [0, 0, 1, 2, 3]
    empty, codes = StringTable.from_strings([])
    assert len(empty) == 0 and codes.shape == (0,) and empty.to_numpy().shape == (0,)
    assert empty.byte_order().shape == (0,) and empty.lookup(table).tolist() == [-1] * 4


def test_from_strings_with_newlines_and_separators():
    strings = ["a\nb", "", "a", "\n", "", "a\nb", "\n\n", "x"]
    table, codes = StringTable.from_strings(strings)
    assert table.to_numpy().tolist() == ["a\nb", "", "a", "\n", "\n\n", "x"]
    assert codes.tolist() == [0, 1, 2, 3, 1, 0, 4, 5]
    for strings in (["", ""], [""], ["abc"], ["", "x", ""]):
        table, codes = StringTable.from_strings(strings)
        assert table.to_numpy()[codes].tolist() == strings
    with pytest.raises(UnicodeEncodeError):
        StringTable.from_strings(["ok", "\ud800"])


def test_getitem_bounds():
    table, _ = StringTable.from_strings(["a", "b"])
    with pytest.raises(IndexError):
        table[2]
    with pytest.raises(IndexError):
        table[-3]
    assert table[np.int64(1)] == "b"


def test_lookup_matches_dict():
    strings = random_strings(12, 2000)
    table, _ = StringTable.from_strings(strings)
    others = random_strings(13, 1500) + ["never seen", "msmarco_passage_100"]
    other, _ = StringTable.from_strings(others)
    position = {s: i for i, s in enumerate(table.to_numpy().tolist())}
    expected = [position.get(s, -1) for s in other.to_numpy().tolist()]
    assert table.lookup(other).tolist() == expected


def test_lookup_on_threads_matches_one_thread():
    table, _ = StringTable.from_strings(random_strings(16, 3000))
    other, _ = StringTable.from_strings(random_strings(17, 5000) + table.to_numpy().tolist()[::3])
    one = table.lookup(other)
    assert (one >= 0).sum() >= 1000
    for threads in (2, 3, 64):
        assert table.lookup(other, threads).tolist() == one.tolist()


def test_starts_with_compares_codes_bytes_and_boundaries():
    table, _ = StringTable.from_strings(["ab", "c", "é", "d"])
    for prefix, expected in [([], True), (["ab"], True), (["ab", "c", "é", "d"], True), (["ab", "c", "é"], True),
                             (["a", "bc"], False), (["c", "ab"], False), (["ab", "x"], False),
                             (["ab", "c", "é", "d", "e"], False), (["abc"], False)]:
        assert table.starts_with(StringTable.from_strings(prefix)[0]) is expected, prefix
    empty = StringTable.from_strings([])[0]
    assert empty.starts_with(empty) and not empty.starts_with(table)


def test_byte_order_matches_sorted_bytes():
    for seed in (14, 15):
        table, _ = StringTable.from_strings(random_strings(seed, 1500))
        strings = table.to_numpy().tolist()
        by_bytes = sorted(range(len(strings)), key=lambda i: strings[i].encode())
        expected = np.empty(len(strings), dtype=np.int64)
        expected[by_bytes] = np.arange(len(strings))
        assert table.byte_order().tolist() == expected.tolist()
    # All strings sharing one long prefix, differing only past the first 8 bytes after it.
    shared, _ = StringTable.from_strings(["clueweb09-en0000-00-" + s for s in ["b", "a", "", "a\x00", "ab"]])
    assert shared.byte_order().tolist() == [4, 1, 0, 2, 3]


def test_string_table_validates_arrays():
    with pytest.raises(ValueError, match="offsets must be non-decreasing"):
        StringTable(np.zeros(3, np.uint8), np.array([0, 2, 1, 3]))
    with pytest.raises(TypeError, match="uint8"):
        StringTable(np.zeros(3, np.int64), np.array([0, 3]))
    table = StringTable(np.frombuffer(b"abc", np.uint8), np.array([0, 1, 3]))
    assert table.to_numpy().tolist() == ["a", "bc"]


def test_interning_is_exact_under_forced_hash_collisions():
    # Keeping 2 bits of each hash half puts thousands of strings on 4 slots and 4 tags:
    # every decision then rests on the byte comparison.
    strings = random_strings(16, 3000)
    encoded = [s.encode() for s in strings]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([len(e) for e in encoded])
    data = np.frombuffer(b"".join(encoded), dtype=np.uint8)
    reference = {}
    expected = [reference.setdefault(e, len(reference)) for e in encoded]
    for mask in (0, 0x0000000300000003, 0xFFFFFFFFFFFFFFFF):
        codes, table_data, table_offsets = _intern.intern(data, offsets, mask)
        assert codes.tolist() == expected
        assert table_data.tobytes() == b"".join(reference)
        probe = list(reference) + [b"absent", b"a\x00\x00"]
        probe_offsets = np.zeros(len(probe) + 1, dtype=np.int64)
        probe_offsets[1:] = np.cumsum([len(p) for p in probe])
        found = np.empty(len(probe), dtype=np.int64)
        _intern.index(table_data, table_offsets, mask).find(np.frombuffer(b"".join(probe), np.uint8),
                                                            probe_offsets, found, 0, len(probe))
        assert found.tolist() == list(range(len(reference))) + [-1, -1]


def test_interning_many_strings_matches_dict():
    rng = np.random.default_rng(17)
    numbers = rng.integers(0, 60_000, 200_000)
    strings = [f"doc{n:x}" for n in numbers.tolist()]
    table, codes = StringTable.from_strings(strings)
    reference = {}
    assert codes.tolist() == [reference.setdefault(s, len(reference)) for s in strings]
    other, _ = StringTable.from_strings(f"doc{n:x}" for n in range(0, 70_000, 7))
    assert table.lookup(other).tolist() == [reference.get(f"doc{n:x}", -1) for n in range(0, 70_000, 7)]


def test_parse_numbers_rejects_partial_tokens():
    tokens = [b"1e", b".", b"+", b"-", b"", b"1.2.3", b"e5", b"1e+", b"0x", b"1,5", b"--1", b"1 "]
    offsets = np.zeros(len(tokens) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([len(t) for t in tokens])
    _, ok = _text.parse_numbers(np.frombuffer(b"".join(tokens), np.uint8), offsets)
    assert not ok.any()


def test_float_bits_helper_is_strict():
    # same_bits must tell -0.0 from 0.0 and compare NaN by payload, or round trips prove nothing.
    assert not same_bits([0.0], [-0.0])
    assert same_bits([math.nan], [struct.unpack("<d", struct.pack("<d", math.nan))[0]])


def test_utf8_validation_matches_python_decoder():
    rng = random.Random(18)
    pieces = [b"a", b"\x80", b"\xbf", b"\xc0", b"\xc1", b"\xc2", b"\xdf", b"\xe0", b"\xe0\xa0", b"\xed\x9f",
              b"\xed\xa0", b"\xef", b"\xf0\x90", b"\xf0\x8f", b"\xf4\x8f", b"\xf4\x90", b"\xf5", b"\xff",
              "\u00e9".encode(), "\u4e2d".encode(), "\U0001f600".encode(), b"abcdefgh"]
    # Overlong forms, surrogates and code points past U+10FFFF, each otherwise well formed.
    edges = [b"\xc0\x80", b"\xc1\xbf", b"\xe0\x80\x80", b"\xe0\x9f\xbf", b"\xed\xa0\x80", b"\xed\xbf\xbf",
             b"\xf0\x80\x80\x80", b"\xf0\x8f\xbf\xbf", b"\xf4\x90\x80\x80", b"\xf5\x80\x80\x80",
             b"\xe0\xa0\x80", b"\xed\x9f\xbf", b"\xf0\x90\x80\x80", b"\xf4\x8f\xbf\xbf", b"\xee\x80\x80"]
    strings = [b"".join(rng.choice(pieces) for _ in range(rng.randint(0, 6))) for _ in range(4000)]
    strings += [b"abcdefgh" + e for e in edges] + edges
    for s in strings:
        offsets = np.array([0, len(s)], dtype=np.int64)
        try:
            s.decode("utf-8")
            valid = True
        except UnicodeDecodeError:
            valid = False
        assert _text.invalid_utf8(np.frombuffer(s, np.uint8), offsets).tolist() == [not valid], s


def test_numbers_ignore_the_process_locale(tmp_path):
    import locale

    previous = locale.setlocale(locale.LC_NUMERIC)
    for name in ("de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8", "nl_NL.UTF-8", "ru_RU.UTF-8"):
        try:
            locale.setlocale(locale.LC_NUMERIC, name)
            break
        except locale.Error:
            continue
    else:
        pytest.skip("no installed locale with a decimal comma")
    try:
        assert locale.localeconv()["decimal_point"] == ","
        # 17 significant digits take the strtod path, which must still read a decimal point.
        raw = b"q Q0 d 1 0.68983016570291921 r\nq Q0 e 2 1.5 r\n"
        values = read_run(write_bytes(tmp_path, "run.txt", raw)).values
    finally:
        locale.setlocale(locale.LC_NUMERIC, previous)
    assert values.tolist() == [0.68983016570291921, 1.5]
