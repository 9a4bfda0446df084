"""The parallel block reader against a line-by-line reference, on random files.

``rankwise.testing.trec.read_trec`` reads a file the plain way (``bytes.split``, ``float``,
dicts). The reader must give the same rows, line numbers and runid, or the same error
message, whatever the block size (blocks of a few bytes make every line cross a block
end, and lines longer than the room kept for a carried line), the thread count and the
way the file is given; and the same tables and codes for every block size and thread
count.
"""
import gzip
import io
import math
import random

import numpy as np
import pytest

from rankwise.testing.trec import read_trec
from rankwise.trec import parsing
from rankwise.trec.io import read_qrels, read_run

ALPHABET = "abcXYZ019-_.#\u00e9\u00df\u4e2d\U0001f600"
SPACES = [" ", "\t", "  ", " \t ", "\v", "\f"]
GOOD_NUMBERS = ["0", "1", "-2", "3.25", "1e3", "-0", "+7", ".5", "5.", "1E-5", "0.1", "12345678901234567890",
                "1e400", "-1e-400", "inf", "-Infinity", "nan", "2.2250738585072011e-308", "0.30000000000000004"]
BAD_NUMBERS = ["abc", "1.2.3", "1e", "--1", "1_0", "0x1p3", "-0X1.8P-2", "1,5", "+", ".", "0x"]


def random_id(rng: random.Random, length: int) -> str:
    return "".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, length)))


def random_line(rng: random.Random, run: bool, pairs: list, query: str) -> str:
    roll = rng.random()
    if roll < 0.04:
        return rng.choice(["", "   ", "\t", "# a comment", "  # indented comment", "#"])
    doc = random_id(rng, 40 if rng.random() < 0.05 else 8)
    if pairs and rng.random() < 0.01:
        query, doc = rng.choice(pairs)          # a repeated document
    pairs.append((query, doc))
    value = rng.choice(GOOD_NUMBERS) if rng.random() < 0.3 else repr(rng.uniform(-50, 50))
    if not run and value in ("inf", "-Infinity", "1e400", "nan") and rng.random() < 0.7:
        value = "2"
    if rng.random() < 0.003:
        value = rng.choice(BAD_NUMBERS)
    fields = [query, "Q0" if run else "0", doc, str(rng.randint(1, 99)), value, "run" + random_id(rng, 3)] if run \
        else [query, "0", doc, value]
    if rng.random() < 0.003:
        fields = fields[:rng.randint(1, len(fields) - 1)]
    elif rng.random() < (0.05 if run else 0.002):
        fields.append("extra")
    text = rng.choice(SPACES).join(fields) if rng.random() < 0.1 else " ".join(fields)
    return (" " if rng.random() < 0.05 else "") + text + ("\r" if rng.random() < 0.05 else "")


def random_file(seed: int, run: bool) -> bytes:
    rng = random.Random(seed)
    lines, pairs, query = [], [], "q"
    for _ in range(rng.choice([0, 1, 5, 50, 400])):
        if rng.random() < 0.1:
            query = rng.choice("qrs") + random_id(rng, 3)
        lines.append(random_line(rng, run, pairs, query))
    raw = "\n".join(lines).encode()
    raw += b"\n" if lines and rng.random() < 0.8 else b""
    # One file in twenty of each corruption.
    if seed % 20 == 1 and raw:
        at = rng.randrange(len(raw))
        raw = raw[:at] + b"\0" + raw[at:]
    elif seed % 20 == 2 and raw:
        # Invalid UTF-8 in a docno or a query id (anywhere else it is another error).
        sep = b" Q0 " if run else b" 0 "
        raw = raw.replace(sep, sep + b"\xff", 1) if rng.random() < 0.5 else raw.replace(b"\nq", b"\nq\xfe", 1)
    elif seed % 20 == 3:
        raw = raw.replace(b"\n", b"\r")              # old Mac line ends
    return raw


def expected(raw: bytes, run: bool, path: str):
    try:
        return read_trec(raw, run, path)
    except ValueError as error:
        return str(error)


def got(source, run: bool, path: str):
    try:
        columns = (read_run if run else read_qrels)(source)
    except ValueError as error:
        return str(error)
    queries, docs = columns.queries.to_numpy(), columns.docs.to_numpy()
    rows = [(queries[q], docs[d], v, columns.line(i))
            for i, (q, d, v) in enumerate(zip(columns.query_codes, columns.doc_codes, columns.values.tolist(),
                                              strict=True))]
    return rows, columns.run_name


def same(a, b) -> bool:
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    (rows_a, name_a), (rows_b, name_b) = a, b
    return name_a == name_b and len(rows_a) == len(rows_b) and all(
        x[:2] == y[:2] and x[3] == y[3] and (x[2] == y[2] or (math.isnan(x[2]) and math.isnan(y[2])))
        and math.copysign(1, x[2]) == math.copysign(1, y[2]) for x, y in zip(rows_a, rows_b, strict=True))


@pytest.fixture(params=[(7, 4, 1), (64, 16, 2), (1000, 100, 3), (1 << 24, 1 << 20, 2)],
                ids=["tiny-blocks", "small-blocks", "kb-blocks", "default"])
def blocks(request, monkeypatch):
    """Block size, head room and thread count; every block parsed in pieces."""
    block, head_room, threads = request.param
    monkeypatch.setattr(parsing, "_BLOCK", block)
    monkeypatch.setattr(parsing, "_HEAD_ROOM", head_room)
    monkeypatch.setattr(parsing, "_PARALLEL_BYTES", 0)
    monkeypatch.setattr(parsing, "effective_n_threads", lambda n: threads)
    return request.param


KINDS = {"NUL byte": "nul", "bare carriage": "cr", "needs": "few", "exactly 4": "many", "not a number": "number",
         "not a finite": "finite", "not valid UTF-8": "utf8", "twice": "repeat", "lines found": "empty"}


def kind(outcome) -> str:
    if not isinstance(outcome, str):
        return "rows"
    return next(k for text, k in KINDS.items() if text in outcome)


@pytest.mark.parametrize("run", [True, False], ids=["run", "qrels"])
def test_random_files_read_as_the_reference_reads_them(tmp_path, blocks, run):
    kinds = set()
    for seed in range(150):
        raw = random_file(seed, run)
        path = tmp_path / f"f{seed}.txt"
        path.write_bytes(raw)
        want = expected(raw, run, str(path))
        assert same(got(path, run, str(path)), want), (seed, raw[:300])
        kinds.add(kind(want))
        if seed % 5 == 0:
            stream = io.BytesIO(gzip.compress(raw))
            stream.name = str(path)
            if kind(want) == "empty":
                want = want.replace("the file is empty", "the decompressed data is empty")
            assert same(got(stream, run, str(path)), want), seed
    # The random files reach the readers' outcomes, not just the happy path.
    assert {"rows", "nul", "cr", "few", "number", "utf8", "repeat", "empty"} <= kinds
    assert ("many" in kinds) != run


def test_tables_and_codes_do_not_depend_on_blocks_or_threads(tmp_path, monkeypatch):
    rng = np.random.default_rng(0)
    lines = [f"q{q} Q0 d{d} 1 {s:.3f} r\n" for q in range(300) for d, s in
             zip(rng.choice(5000, 40, replace=False), rng.random(40), strict=True)]
    path = tmp_path / "run.txt"
    path.write_text("".join(lines))
    results = []
    monkeypatch.setattr(parsing, "_PARALLEL_BYTES", 0)
    for block, threads in [(1 << 24, 1), (1 << 24, 2), (4096, 3), (333, 4), (50, 1)]:
        monkeypatch.setattr(parsing, "_BLOCK", block)
        monkeypatch.setattr(parsing, "effective_n_threads", lambda n, t=threads: t)
        c = read_run(path)
        results.append((c.queries.data.tobytes(), c.queries.offsets.tolist(), c.docs.data.tobytes(),
                        c.docs.offsets.tolist(), c.query_codes.tolist(), c.doc_codes.tolist(), c.values.tobytes()))
    assert all(r == results[0] for r in results[1:])


def test_a_line_longer_than_a_block_and_its_head_room(tmp_path, monkeypatch):
    monkeypatch.setattr(parsing, "_BLOCK", 16)
    monkeypatch.setattr(parsing, "_HEAD_ROOM", 8)
    doc = "d" * 1000
    path = tmp_path / "run.txt"
    path.write_text(f"q1 Q0 {doc} 1 2.5 r\nq1 Q0 x 2 1.5 r\n# {'c' * 500}\nq2 Q0 {doc} 1 0.5 r")
    rows, name = got(path, True, str(path))
    assert rows == [("q1", doc, 2.5, 1), ("q1", "x", 1.5, 2), ("q2", doc, 0.5, 4)] and name == "r"
