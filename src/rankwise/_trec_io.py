"""Read and write TREC qrels and run files as columns of interned ids.

A file is loaded whole and parsed by a Cython kernel in one pass: each id is interned
into a :class:`StringTable` (unique strings in first-seen order, held as UTF-8 bytes)
and each line becomes one row of integer codes and a float64 value. No Python object
is made per line, so memory stays proportional to the file.

The accepted format is trec_eval's (10.0): fields split on any run of whitespace
(spaces, tabs, and the ``\\r`` of Windows line endings), leading whitespace allowed,
lines starting with ``#`` are comments (a ``#`` inside a field is not), qrels lines are
``qid iter docno rel`` (exactly 4 fields), run lines are ``qid Q0 docno rank score
runid`` (further fields ignored; the rank field is ignored as trec_eval ignores it).
Stricter than trec_eval: a score or relevance that is not a number is an error
(trec_eval reads it as 0), and fractional relevance is kept (trec_eval truncates it).
Looser: blank lines are skipped in qrels too, and comments may be indented.

>>> import os, tempfile
>>> folder = tempfile.mkdtemp()
>>> path = os.path.join(folder, "run.txt")
>>> with open(path, "w") as f:
...     _ = f.write("q1 Q0 d7 1 2.5 bm25\\nq1 Q0 d3 2 1.25 bm25\\nq2 Q0 d7 1 0.5 bm25\\n")
>>> run = read_run(path)
>>> run.queries.to_numpy(), run.query_codes
(array(['q1', 'q2'], dtype=object), array([0, 0, 1]))
>>> run.docs.to_numpy(), run.doc_codes, run.values, run.run_name
(array(['d7', 'd3'], dtype=object), array([0, 1, 0]), array([2.5 , 1.25, 0.5 ]), 'bm25')
"""
from __future__ import annotations

import contextlib
import gzip
import mmap
import operator
import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from functools import partial

import numpy as np

from ._kernels import _text
from ._parallel import run_alone

__all__ = ["StringTable", "TrecColumns", "read_qrels", "read_run", "write_qrels", "write_run"]

_QRELS = "qid iter docno rel"
_RUN = "qid Q0 docno rank score runid"
# Bytes that would split or end a field, or that trec_eval cannot read (NUL).
_NOT_IN_ID = np.zeros(256, dtype=bool)
_NOT_IN_ID[[0, 9, 10, 11, 12, 13, 32]] = True
_WRITE_CHUNK = 1 << 18
_QUOTE_LIMIT = 60


class StringTable:
    """Unique strings by code: code ``i`` is ``data[offsets[i]:offsets[i + 1]]`` (UTF-8).

    Parameters
    ----------
    data : numpy.ndarray
        uint8, the strings' UTF-8 bytes concatenated.
    offsets : numpy.ndarray
        int64 of length ``n + 1``, non-decreasing, from 0 to ``len(data)``.

    Examples
    --------
    >>> table, codes = StringTable.from_strings(["d2", "d10", "d2", "é"])
    >>> len(table), table[1], codes
    (3, 'd10', array([0, 1, 0, 2]))
    >>> table.byte_order()            # b"d10" < b"d2" < b"\\xc3\\xa9"
    array([1, 0, 2])
    >>> table.lookup(StringTable.from_strings(["é", "x"])[0])
    array([ 2, -1])
    """

    __slots__ = ("data", "offsets")

    def __init__(self, data, offsets):
        data = np.ascontiguousarray(data)
        offsets = np.ascontiguousarray(offsets)
        if data.dtype != np.uint8 or data.ndim != 1:
            raise TypeError(f"data must be a 1-D uint8 array, got {data.dtype} of shape {data.shape}")
        if offsets.dtype.kind not in "iu" or offsets.ndim != 1 or offsets.shape[0] < 1:
            raise ValueError(f"offsets must be 1-D integers of length n + 1, got {offsets.dtype} "
                             f"of shape {offsets.shape}")
        offsets = offsets.astype(np.int64, copy=False)
        if offsets[0] != 0 or offsets[-1] != data.shape[0] or np.any(np.diff(offsets) < 0):
            raise ValueError("offsets must be non-decreasing from 0 to len(data)")
        self.data = data
        self.offsets = offsets

    @classmethod
    def _trusted(cls, data: np.ndarray, offsets: np.ndarray) -> StringTable:
        table = cls.__new__(cls)
        table.data = data
        table.offsets = offsets
        return table

    def __len__(self) -> int:
        return self.offsets.shape[0] - 1

    def __getitem__(self, i: int) -> str:
        n = len(self)
        i = operator.index(i)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(f"string code {i} out of range for a table of {n}")
        return self.data[self.offsets[i]:self.offsets[i + 1]].tobytes().decode("utf-8")

    def __iter__(self):
        return iter(self.to_numpy())

    def __repr__(self) -> str:
        head = ", ".join(repr(self[i]) for i in range(min(len(self), 3)))
        return f"StringTable({len(self)} strings: {head}{', ...' if len(self) > 3 else ''})"

    def to_numpy(self) -> np.ndarray:
        """The strings as an object array of ``str``, in code order."""
        raw = self.data.tobytes()
        bounds = self.offsets.tolist()
        out = np.empty(len(self), dtype=object)
        out[:] = [raw[a:b].decode("utf-8") for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
        return out

    @classmethod
    def from_strings(cls, strings: Iterable) -> tuple[StringTable, np.ndarray]:
        """Intern ``strings``: (table of the unique ones in first-seen order, int64 codes).

        Items that are not ``str`` are converted with ``str()``. Equality is exact
        (by UTF-8 bytes: no normalisation, no case folding).
        """
        items = [s if type(s) is str else str(s) for s in strings]
        offsets = np.zeros(len(items) + 1, dtype=np.int64)
        # One join and one encode are several times faster than encoding each string;
        # the newlines between them mark the boundaries unless a string holds one.
        joined = np.frombuffer("\n".join(items).encode("utf-8"), dtype=np.uint8)
        breaks = np.flatnonzero(joined == ord("\n"))
        if items and breaks.shape[0] == len(items) - 1:
            data = np.delete(joined, breaks)
            offsets[1:-1] = breaks - np.arange(breaks.shape[0])
            offsets[-1] = data.shape[0]
        else:
            encoded = [s.encode("utf-8") for s in items]
            np.cumsum(np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded)), out=offsets[1:])
            data = np.frombuffer(b"".join(encoded), dtype=np.uint8)
        codes, table_data, table_offsets = run_alone(partial(_text.intern, data, offsets), len(items))
        return cls._trusted(table_data, table_offsets), codes

    def lookup(self, other: StringTable) -> np.ndarray:
        """The int64 code in this table of each string of ``other``; -1 where absent."""
        return run_alone(partial(_text.lookup, self.data, self.offsets, other.data, other.offsets),
                         len(self) + len(other))

    def byte_order(self) -> np.ndarray:
        """int64 rank of each code with the strings sorted by their UTF-8 bytes, ascending.

        Bytes compare unsigned, as memcmp and trec_eval's strcmp do, and a proper prefix
        sorts first. For ``str`` this equals code-point order.
        """
        return run_alone(partial(_text.byte_ranks, self.data, self.offsets), 8 * len(self))


@dataclass(eq=False)
class TrecColumns:
    """One qrels or run file as columns: one row per data line, in file order.

    Attributes
    ----------
    queries, docs : StringTable
        Unique query ids and document ids, each in first-seen order.
    query_codes, doc_codes : numpy.ndarray
        int64 code of each row's query id and document id.
    values : numpy.ndarray
        float64 relevance (qrels) or score (run) of each row, as written.
    lines : numpy.ndarray
        int64 1-based line number of each row in its file (for error messages).
    run_name : str or None
        The runid of the first run line; None for qrels.
    """

    queries: StringTable
    query_codes: np.ndarray
    docs: StringTable
    doc_codes: np.ndarray
    values: np.ndarray
    lines: np.ndarray
    run_name: str | None = None


def read_qrels(path) -> TrecColumns:
    """Read a qrels file: ``qid iter docno rel`` lines (``iter`` is ignored).

    Parameters
    ----------
    path : str or os.PathLike
        The file; gzip-compressed if it ends in ``.gz`` (or starts with gzip's magic).

    Returns
    -------
    TrecColumns
        ``values`` holds the relevance exactly as written (fractions kept). Negative
        values are kept too (trec_eval reads them as judged-but-unjudged-in-sample).

    Raises
    ------
    ValueError
        Naming the file and line: a line without exactly 4 fields, a relevance that is
        not a finite number, an id that is not UTF-8, a docno judged twice for one
        query (trec_eval rejects such qrels), or no data line at all.
    """
    return _read(path, run=False)


def read_run(path) -> TrecColumns:
    """Read a run file: ``qid Q0 docno rank score runid`` lines.

    Fields after the sixth are ignored, and so is ``rank`` (trec_eval ranks by score).
    Scores are parsed as C's ``strtod`` does (``inf``, ``nan`` and hex floats
    included), exactly: the double nearest the decimal written.

    Parameters
    ----------
    path : str or os.PathLike
        The file; gzip-compressed if it ends in ``.gz`` (or starts with gzip's magic).

    Returns
    -------
    TrecColumns
        ``run_name`` is the runid of the first line (trec_eval reports the last
        line's; runs hold one runid).

    Raises
    ------
    ValueError
        Naming the file and line: a line with fewer than 6 fields, a score that is not
        a number, an id that is not UTF-8, a docno retrieved twice for one query, or no
        data line at all.
    """
    return _read(path, run=True)


def write_qrels(path, columns: TrecColumns) -> None:
    """Write ``qid 0 docno rel`` lines, one per row, in row order.

    An integral relevance is written as an integer, any other in Python's ``repr``
    (which reads back to the same double). A path ending in ``.gz`` is gzip-compressed.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "qrels.txt")
    >>> queries, query_codes = StringTable.from_strings(["q1", "q1", "q2"])
    >>> docs, doc_codes = StringTable.from_strings(["d1", "d2", "d1"])
    >>> write_qrels(path, TrecColumns(queries, query_codes, docs, doc_codes,
    ...                               np.array([1.0, 0.5, 2.0]), np.arange(1, 4)))
    >>> print(open(path).read(), end="")
    q1 0 d1 1
    q1 0 d2 0.5
    q2 0 d1 2
    >>> read_qrels(path).values
    array([1. , 0.5, 2. ])
    """
    query_codes, doc_codes, values = _prepare(columns)
    if not np.all(np.isfinite(values)):
        row = int(np.flatnonzero(~np.isfinite(values))[0])
        raise ValueError(f"columns.values[{row}] = {values[row]!r}; a relevance must be a finite number")
    _write(path, columns, query_codes, doc_codes, values, np.empty(0, dtype=np.int64), b"")


def write_run(path, columns: TrecColumns, name: str) -> None:
    """Write ``qid Q0 docno rank score name`` lines, one per row, in row order.

    ``rank`` counts 1, 2, ... over each query's rows in the order given (so give rows
    sorted by score, best first, for a conventional file; trec_eval ignores ranks).
    Scores are written in Python's ``repr``, which reads back to the same double. A
    path ending in ``.gz`` is gzip-compressed.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "run.txt.gz")
    >>> queries, query_codes = StringTable.from_strings(["q1", "q2", "q1"])
    >>> docs, doc_codes = StringTable.from_strings(["d1", "d1", "d2"])
    >>> columns = TrecColumns(queries, query_codes, docs, doc_codes,
    ...                       np.array([0.1, 3.0, 1 / 3]), np.arange(1, 4))
    >>> write_run(path, columns, "mine")
    >>> print(gzip.open(path, "rt").read(), end="")
    q1 Q0 d1 1 0.1 mine
    q2 Q0 d1 1 3.0 mine
    q1 Q0 d2 2 0.3333333333333333 mine
    >>> read_run(path).values.tolist() == [0.1, 3.0, 1 / 3]
    True
    """
    if not isinstance(name, str) or not name or any(c.isspace() for c in name) or "\0" in name:
        raise ValueError(f"name must be a non-empty str without whitespace, got {name!r}")
    query_codes, doc_codes, values = _prepare(columns)
    ranks = _text.occurrence_ranks(query_codes, len(columns.queries))
    _write(path, columns, query_codes, doc_codes, values, ranks, name.encode("utf-8"))


# ---------------------------------------------------------------------------- reading

@contextlib.contextmanager
def _contents(path: str):
    """The file's bytes: decompressed if gzip, else mapped (no copy) when it is a regular file."""
    with open(path, "rb") as f:
        if path.endswith(".gz") or f.read(2) == b"\x1f\x8b":
            f.seek(0)
            try:
                raw = gzip.decompress(f.read())
            except (OSError, EOFError) as exc:
                raise ValueError(f"{path}: cannot decompress as gzip ({exc})") from None
            yield raw
            return
        info = os.fstat(f.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_size == 0:
            f.seek(0)
            yield f.read()
            return
        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
            yield mapped


def _line_of(raw, position: int) -> int:
    return raw[:position].count(b"\n") + 1


def _quote(token: bytes) -> str:
    text = token.decode("utf-8", errors="backslashreplace")
    return f"'{text}'" if len(text) <= _QUOTE_LIMIT else f"'{text[:_QUOTE_LIMIT - 3]}...'"


def _line_error(path: str, raw, run: bool, error: _text.LineError) -> ValueError:
    kind, line, fields, start, stop = error.args
    where = f"{path}, line {line}"
    layout = _RUN if run else _QRELS
    if kind == _text.LineErrorKind.TOO_FEW:
        need = f"at least 6 fields ({layout})" if run else f"4 fields ({layout})"
        return ValueError(f"{where}: a {'run' if run else 'qrels'} line needs {need}, found {fields}")
    if kind == _text.LineErrorKind.TOO_MANY:
        return ValueError(f"{where}: a qrels line has exactly 4 fields ({layout}), found {fields}; "
                          "trec_eval rejects extra fields in qrels")
    what = "score" if run else "relevance"
    token = _quote(raw[start:stop])
    if kind == _text.LineErrorKind.NOT_FINITE:
        return ValueError(f"{where}: {what} {token} is not a finite number")
    return ValueError(f"{where}: {what} {token} is not a number")


def _check_text(path: str, raw) -> None:
    nul = raw.find(b"\0")
    if nul >= 0:
        raise ValueError(f"{path}, line {_line_of(raw, nul)}: NUL byte; TREC files are plain text "
                         "(is this file UTF-16 or binary?)")
    # Old Mac files end lines with a bare \r, which is whitespace to trec_eval: the
    # whole file would read as one line.
    if raw.find(b"\n") < 0 and b"\r" in raw[:].rstrip():
        raise ValueError(f"{path}: lines end with a bare carriage return (\\r); "
                         "use \\n or \\r\\n line endings")


def _check_utf8(path: str, table: StringTable, codes: np.ndarray, lines: np.ndarray,
                what: str) -> tuple[int, str] | None:
    bad = run_alone(partial(_text.first_invalid_utf8, table.data, table.offsets), table.data.shape[0] // 16)
    if bad < 0:
        return None
    # Codes are given in first-seen order, so the first invalid code is the earliest.
    line = int(lines[np.argmax(codes == bad)])
    raw = table.data[table.offsets[bad]:table.offsets[bad + 1]].tobytes()
    return line, f"{path}, line {line}: {what} {_quote(raw)} is not valid UTF-8"


def _read(path, run: bool) -> TrecColumns:
    path = os.fspath(path)
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    with _contents(path) as raw:
        _check_text(path, raw)
        try:
            (query_data, query_offsets, query_codes, doc_data, doc_offsets, doc_codes, values, lines,
             name_start, name_stop) = run_alone(partial(_text.parse_lines, raw, run), len(raw) // 8)
        except _text.LineError as exc:
            raise _line_error(path, raw, run, exc) from None
        name = raw[name_start:name_stop]
    kind = "run" if run else "qrels"
    if query_codes.shape[0] == 0:
        raise ValueError(f"{path}: no {kind} lines found (the file is empty or holds only comments "
                         "and blank lines)")
    queries = StringTable._trusted(query_data, query_offsets)
    docs = StringTable._trusted(doc_data, doc_offsets)
    problems = [p for p in (_check_utf8(path, queries, query_codes, lines, "query id"),
                            _check_utf8(path, docs, doc_codes, lines, "docno")) if p is not None]
    if problems:
        raise ValueError(min(problems)[1])
    run_name = None
    if run:
        try:
            run_name = name.decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError(f"{path}, line {lines[0]}: runid {_quote(name)} is not valid UTF-8") from None
    first, second = run_alone(partial(_text.first_duplicate, query_codes, doc_codes, len(queries), len(docs)),
                              query_codes.shape[0])
    if second >= 0:
        raise ValueError(f"{path}: duplicate docno {docs[doc_codes[second]]} for query "
                         f"{queries[query_codes[second]]} at lines {lines[first]} and {lines[second]}; "
                         "trec_eval rejects duplicates")
    return TrecColumns(queries, query_codes, docs, doc_codes, values, lines, run_name)


# ---------------------------------------------------------------------------- writing

def _codes(columns: TrecColumns, field: str, table: StringTable, n_rows: int) -> np.ndarray:
    codes = np.asarray(getattr(columns, field))
    if codes.dtype.kind not in "iu" or codes.shape != (n_rows,):
        raise ValueError(f"columns.{field} must be 1-D integers, one per value ({n_rows}), got "
                         f"{codes.dtype} of shape {codes.shape}")
    if n_rows and (codes.min() < 0 or codes.max() >= len(table)):
        raise ValueError(f"columns.{field} must hold codes in [0, {len(table)}), found "
                         f"{codes.min()}..{codes.max()}")
    return np.ascontiguousarray(codes, dtype=np.int64)


def _check_ids(table: StringTable, codes: np.ndarray, what: str) -> None:
    lengths = np.diff(table.offsets)
    bad = lengths == 0
    positions = np.flatnonzero(_NOT_IN_ID[table.data])
    bad[np.searchsorted(table.offsets, positions, side="right") - 1] = True
    if what == "query id":
        # A query id starting with '#' would read back as a comment line.
        starts = table.offsets[:-1][~bad]
        bad[np.flatnonzero(~bad)[table.data[starts] == ord("#")]] = True
    if bad[codes].any():
        code = codes[np.argmax(bad[codes])]
        raise ValueError(f"{what} {table[code]!r} cannot be written to a TREC file: ids must be "
                         "non-empty without whitespace or NUL, and query ids may not start with '#'")


def _prepare(columns: TrecColumns) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    if not isinstance(columns, TrecColumns):
        raise TypeError(f"columns must be a TrecColumns, got {type(columns).__name__}")
    values = np.asarray(columns.values)
    if values.dtype.kind not in "biuf" or values.ndim != 1:
        raise ValueError(f"columns.values must be 1-D numbers, got {values.dtype} of shape {values.shape}")
    values = np.ascontiguousarray(values, dtype=np.float64)
    query_codes = _codes(columns, "query_codes", columns.queries, values.shape[0])
    doc_codes = _codes(columns, "doc_codes", columns.docs, values.shape[0])
    _check_ids(columns.queries, query_codes, "query id")
    _check_ids(columns.docs, doc_codes, "docno")
    first, second = run_alone(partial(_text.first_duplicate, query_codes, doc_codes, len(columns.queries),
                                      len(columns.docs)), query_codes.shape[0])
    if second >= 0:
        raise ValueError(f"rows {first} and {second} both hold docno {columns.docs[doc_codes[second]]} for "
                         f"query {columns.queries[query_codes[second]]}; trec_eval rejects duplicates")
    return query_codes, doc_codes, values


def _write(path, columns: TrecColumns, query_codes: np.ndarray, doc_codes: np.ndarray,
           values: np.ndarray, ranks: np.ndarray, name: bytes) -> None:
    path = os.fspath(path)
    is_gz = (path.endswith(b".gz") if isinstance(path, bytes) else path.endswith(".gz"))
    queries, docs = columns.queries, columns.docs
    with (gzip.open(path, "wb", compresslevel=6) if is_gz else open(path, "wb")) as f:
        for start in range(0, values.shape[0], _WRITE_CHUNK):
            stop = min(start + _WRITE_CHUNK, values.shape[0])
            f.write(_text.format_rows(queries.data, queries.offsets, query_codes, docs.data, docs.offsets,
                                      doc_codes, values, ranks, name, start, stop))
