"""Read and write TREC qrels and run files as columns of interned ids.

A file's bytes come from :mod:`rankwise.trec.sources` (a path, standard input or a
stream; gzip, bzip2, xz and zstd decompressed as they are read; never memory-mapped: a
file that changes while it is read is an error, not a signal) and are parsed block by
block on every core by :mod:`rankwise.trec.parsing`: each id is interned into a
:class:`StringTable` (unique strings held as UTF-8 bytes) and each line becomes one row
of integer codes and a float64 value. No Python object is made per line, and memory
holds two blocks of text besides the columns, whatever the file's size.

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
>>> run.docs.to_numpy()[run.doc_codes], run.values, run.run_name
(array(['d7', 'd3', 'd7'], dtype=object), array([2.5 , 1.25, 0.5 ]), 'bm25')
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial

import numpy as np

from .._core.duplicates import duplicate_message, first_duplicate_codes
from .._core.parallel import run_alone
from .._core.progress import check_progress
from .._core.strings import StringTable
from .._core.validation import value_error
from . import _text
from .parsing import parse_text, quote
from .sources import PathName, Source, open_output, open_text, source_name

__all__ = ["StringTable", "TrecColumns", "check_ids", "check_run_name", "check_subtopic_pairs", "read_qrels",
           "read_run", "source_name", "split_subtopics", "write_qrels", "write_run"]

# Bytes that would split or end a field, or that trec_eval cannot read (NUL).
_NOT_IN_ID = np.zeros(256, dtype=bool)
_NOT_IN_ID[[0, 9, 10, 11, 12, 13, 32]] = True
_WRITE_CHUNK = 1 << 18


@dataclass(eq=False)
class TrecColumns:
    """One qrels or run file as columns: one row per data line, in file order.

    Attributes
    ----------
    queries, docs : StringTable
        Unique query ids and document ids. Query ids are in first-seen order; a file's
        docnos are in the order of the parser's tables (fixed by the bytes of the ids, not
        by the thread count or the block size), other sources' in first-seen order.
    query_codes, doc_codes : numpy.ndarray
        int64 code of each row's query id and document id.
    values : numpy.ndarray
        float64 relevance (qrels) or score (run) of each row, as written.
    run_name : str or None
        The runid of the last run line (trec_eval's); None for qrels.
    skips : numpy.ndarray
        For each blank or comment line of the file, the number of rows before it (int64,
        non-decreasing; empty for columns not read from a file): with it, :meth:`line`
        finds a row's line number without a column of line numbers.
    """

    queries: StringTable
    query_codes: np.ndarray
    docs: StringTable
    doc_codes: np.ndarray
    values: np.ndarray
    run_name: str | None = None
    skips: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int64), kw_only=True)
    #: Subtopic qrels (``topic subtopic docno grade``): the subtopic ids and each row's code.
    subtopics: tuple[StringTable, np.ndarray] | None = field(default=None, kw_only=True)

    def line(self, row: int) -> int:
        """The 1-based line of ``row`` in its file: rows before it, plus the lines skipped before it."""
        return int(row) + 1 + int(np.searchsorted(self.skips, row, side="right"))


def read_qrels(path: Source, *, progress: bool | None = None, subtopics: bool = False) -> TrecColumns:
    """Read a qrels file: ``qid iter docno rel`` lines (``iter`` is ignored).

    With ``subtopics``, lines are ``topic subtopic docno grade`` (the TREC Web track's
    diversity qrels): the second field is kept as a subtopic id (``columns.subtopics``), and
    a document may appear once per subtopic of a topic.

    Parameters
    ----------
    path : str, os.PathLike or binary file object
        See :func:`read_run`.
    progress : bool or None
        See :func:`read_run`.
    subtopics : bool
        Read subtopic qrels, as said above.

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
        query (trec_eval rejects such qrels), or no data line at all; and as
        :func:`read_run` for compressed data.
    OSError
        As :func:`read_run`.
    ImportError
        As :func:`read_run`.
    """
    return _read(path, run=False, progress=progress, subtopics=subtopics)


def read_run(path: Source, *, progress: bool | None = None) -> TrecColumns:
    """Read a run file: ``qid Q0 docno rank score runid`` lines.

    Fields after the sixth are ignored, and so is ``rank`` (trec_eval ranks by score).
    Scores are parsed as C's ``strtod`` does (``inf``, ``nan`` and hex floats
    included), exactly: the double nearest the decimal written.

    Parameters
    ----------
    path : str, os.PathLike or binary file object
        A path; the string ``"-"`` for standard input (``"./-"`` or ``Path("-")`` is a
        file named ``-``); or an open binary stream (a text stream such as ``sys.stdin``
        is read through its ``.buffer``), read from its current position to its end and
        left open. Pipes, FIFOs and ``/dev/stdin`` work: nothing seeks. Compressed
        data is recognised by its first bytes, whatever the name, and decompressed as it
        is read: gzip, bzip2, xz, and zstd if the optional ``zstandard`` package is
        installed (``pip install "rankwise[zstd]"``). Concatenated parts (gzip members,
        as ``cat a.gz b.gz`` makes; bzip2 and xz streams; zstd frames) are read in turn.
        A path ending in ``.gz``, ``.bz2``, ``.xz`` or ``.zst`` must hold data in that
        format.
    progress : bool or None
        A progress bar on stderr, in bytes of the file as stored (compressed bytes for
        compressed data), out of its size for a file opened by path; pipes and streams given
        open count their bytes without a total. None (default): shown when
        stderr is a terminal, tqdm is installed and the environment variable
        ``RANKWISE_PROGRESS`` is not ``0``, after half a second of work; False: never;
        True: always, or ImportError if tqdm is missing (``pip install "rankwise[progress]"``).

    Returns
    -------
    TrecColumns
        ``run_name`` is the runid of the last line, as trec_eval reports it (a run
        file with several runids is named by its last line's).

    Raises
    ------
    ValueError
        Naming the file and line: a line with fewer than 6 fields, a score that is not
        a number, an id that is not UTF-8, a NUL byte, a docno retrieved twice for one
        query, or no data line at all (an empty file). Naming the file: compressed data
        that is corrupt (a bad header or checksum), truncated, or followed by other
        bytes, or not in the format its name's extension says.
    OSError
        The file cannot be opened or read (missing, a directory, no permission), or it
        changed while being read (another process wrote or truncated it: its size or
        timestamps differ before and after, or fewer bytes came than its size).
    ImportError
        The data is zstd and the ``zstandard`` package is not installed.
    TypeError
        ``path`` is none of the above, or a text stream without a binary buffer.
    """
    return _read(path, run=True, progress=progress)


def write_qrels(path: PathName, columns: TrecColumns) -> None:
    """Write ``qid 0 docno rel`` lines, one per row, in row order.

    An integral relevance is written as an integer, any other in Python's ``repr``
    (which reads back to the same double). The file is compressed if the name ends in
    ``.gz`` (gzip), ``.bz2`` (bzip2), ``.xz`` (xz) or ``.zst`` (zstd, which needs the
    ``zstandard`` package): see :func:`rankwise.trec.sources.open_output`.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "qrels.txt")
    >>> queries, query_codes = StringTable.from_strings(["q1", "q1", "q2"])
    >>> docs, doc_codes = StringTable.from_strings(["d1", "d2", "d1"])
    >>> write_qrels(path, TrecColumns(queries, query_codes, docs, doc_codes,
    ...                               np.array([1.0, 0.5, 2.0])))
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


def check_run_name(name: object) -> str:
    """A run's name as a TREC file's last column holds it: a non-empty str, no whitespace or NUL."""
    if not isinstance(name, str):
        raise TypeError(f"name must be a str (the run file's last column), got {type(name).__name__}")
    if not name or any(c.isspace() for c in name) or "\0" in name:
        raise ValueError(f"name must be a non-empty str without whitespace, got {name!r}")
    return str(name)


def write_run(path: PathName, columns: TrecColumns, name: str) -> None:
    """Write ``qid Q0 docno rank score name`` lines, one per row, in row order.

    ``rank`` counts 1, 2, ... over each query's rows in the order given (so give rows
    sorted by score, best first, for a conventional file; trec_eval ignores ranks).
    Scores are written in Python's ``repr``, which reads back to the same double. The
    file is compressed if the name ends in ``.gz``, ``.bz2``, ``.xz`` or ``.zst``, as
    :func:`write_qrels` says.

    Examples
    --------
    >>> import gzip, os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "run.txt.gz")
    >>> queries, query_codes = StringTable.from_strings(["q1", "q2", "q1"])
    >>> docs, doc_codes = StringTable.from_strings(["d1", "d1", "d2"])
    >>> columns = TrecColumns(queries, query_codes, docs, doc_codes,
    ...                       np.array([0.1, 3.0, 1 / 3]))
    >>> write_run(path, columns, "mine")
    >>> print(gzip.open(path, "rt").read(), end="")
    q1 Q0 d1 1 0.1 mine
    q2 Q0 d1 1 3.0 mine
    q1 Q0 d2 2 0.3333333333333333 mine
    >>> read_run(path).values.tolist() == [0.1, 3.0, 1 / 3]
    True
    """
    check_run_name(name)
    query_codes, doc_codes, values = _prepare(columns)
    ranks = _text.occurrence_ranks(query_codes, len(columns.queries))
    _write(path, columns, query_codes, doc_codes, values, ranks, name.encode("utf-8"))


# ---------------------------------------------------------------------------- reading

def first_invalid_row(table: StringTable, codes: np.ndarray) -> int | None:
    """The first row whose id (``table[codes[row]]``) is not valid UTF-8, or None."""
    bad = run_alone(partial(_text.invalid_utf8, table.data, table.offsets), table.data.shape[0] // 16)
    return int(np.argmax(bad[codes])) if bad.any() else None


def _check_utf8(path: str, table: StringTable, codes: np.ndarray, columns: TrecColumns,
                what: str) -> tuple[int, str] | None:
    row = first_invalid_row(table, codes)
    if row is None:
        return None
    raw = table.data[table.offsets[codes[row]]:table.offsets[codes[row] + 1]].tobytes()
    line = columns.line(row)
    return line, f"{path}, line {line}: {what} {quote(raw)} is not valid UTF-8"


def _read(source: Source, run: bool, progress: bool | None, subtopics: bool = False) -> TrecColumns:
    check_progress(progress)    # before the file is opened
    with open_text(source) as text:
        parsed = parse_text(text, run, progress, subtopics)
    path, kind = text.name, "run" if run else "qrels"
    if parsed.error is not None:
        raise parsed.error
    if parsed.empty:
        what = "file" if text.codec is None else "decompressed data"
        raise ValueError(f"{path}: no {kind} lines found: the {what} is empty")
    assert parsed.tables is not None  # parsed, or else an error was returned
    query_data, query_offsets, query_codes, doc_data, doc_offsets, doc_codes, values, skips = parsed.tables
    if query_codes.shape[0] == 0:
        raise ValueError(f"{path}: no {kind} lines found (only comments and blank lines)")
    columns = TrecColumns(StringTable._trusted(query_data, query_offsets), query_codes,
                          StringTable._trusted(doc_data, doc_offsets), doc_codes, values, skips=skips)
    problems = [p for p in (_check_utf8(path, columns.queries, query_codes, columns, "query id"),
                            _check_utf8(path, columns.docs, doc_codes, columns,
                                        "subtopic and docno" if subtopics else "docno")) if p is not None]
    if problems:
        raise ValueError(min(problems)[1])
    if run:
        try:
            columns.run_name = parsed.run_name.decode("utf-8")
        except UnicodeDecodeError:
            where = f"{path}, line {columns.line(len(values) - 1)}"
            raise ValueError(f"{where}: runid {quote(parsed.run_name)} is not valid UTF-8") from None
    if subtopics:
        columns = split_subtopics(columns)
        check_subtopic_pairs(columns, path, lines=True)
        return columns
    repeat = first_duplicate_codes(query_codes, doc_codes, len(columns.queries))
    if repeat is not None:
        a, b = repeat
        raise value_error(duplicate_message(path, columns.docs[doc_codes[b]], columns.queries[query_codes[b]],
                                            columns.line(a), columns.line(b), lines=True),
                          duplicate_docno=True)
    return columns


def _gather(data: np.ndarray, starts: np.ndarray, stops: np.ndarray) -> tuple[StringTable, np.ndarray]:
    """The strings ``data[starts[i]:stops[i]]`` interned."""
    lengths = stops - starts
    offsets = np.zeros(lengths.shape[0] + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    picked = np.arange(offsets[-1], dtype=np.int64) + np.repeat(starts - offsets[:-1], lengths)
    return StringTable.from_utf8(data[picked], offsets)


def split_subtopics(columns: TrecColumns) -> TrecColumns:
    """Columns whose docnos are ``subtopic docno`` spans (the subtopic parser's) as docnos and subtopics."""
    table = columns.docs
    data, offsets, n = table.data, table.offsets, len(table)
    # Neither field holds a blank and only blanks lie between them.
    blank = np.flatnonzero(_NOT_IN_ID[data])
    owner = np.searchsorted(offsets, blank, side="right") - 1
    first = blank[np.searchsorted(owner, np.arange(n), side="left")]
    last = blank[np.searchsorted(owner, np.arange(n), side="right") - 1]
    subtopics, subtopic_codes = _gather(data, offsets[:-1], first)
    docs, doc_codes = _gather(data, last + 1, offsets[1:])
    return TrecColumns(columns.queries, columns.query_codes, docs, doc_codes[columns.doc_codes],
                       columns.values, skips=columns.skips,
                       subtopics=(subtopics, subtopic_codes[columns.doc_codes]))


def check_subtopic_pairs(columns: TrecColumns, subject: str, lines: bool = False) -> None:
    """Refuse a document judged twice for one subtopic of a topic (rows, or file ``lines``)."""
    assert columns.subtopics is not None
    table, codes = columns.subtopics
    keys = columns.doc_codes * max(len(table), 1) + codes
    repeat = first_duplicate_codes(columns.query_codes, keys, len(columns.queries))
    if repeat is not None:
        a, b = (columns.line(row) for row in repeat) if lines else repeat
        row = repeat[1]
        doc, query = columns.docs[int(columns.doc_codes[row])], columns.queries[int(columns.query_codes[row])]
        raise value_error(f"{subject} has document {doc!r} twice for query {query!r}, subtopic "
                          f"{table[int(codes[row])]!r} ({'lines' if lines else 'rows'} {a} and {b}); ndeval "
                          "rejects duplicates", duplicate_docno=True)


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


def check_ids(table: StringTable, codes: np.ndarray, what: str, context: str | None = None) -> None:
    """Refuse an id of ``codes`` that a TREC file cannot hold (``context``: who is building)."""
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
        rule = "ids must be non-empty without whitespace or NUL, and query ids may not start with '#'"
        if context is None:
            raise ValueError(f"{what} {table[code]!r} cannot be written to a TREC file: {rule}")
        raise ValueError(f"{context}: {what} {table[code]!r} could not be read from or written to a TREC "
                         f"file: {rule}")


def _prepare(columns: TrecColumns) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    if not isinstance(columns, TrecColumns):
        raise TypeError(f"columns must be a TrecColumns, got {type(columns).__name__}")
    values = np.asarray(columns.values)
    if values.dtype.kind not in "biuf" or values.ndim != 1:
        raise ValueError(f"columns.values must be 1-D numbers, got {values.dtype} of shape {values.shape}")
    values = np.ascontiguousarray(values, dtype=np.float64)
    query_codes = _codes(columns, "query_codes", columns.queries, values.shape[0])
    doc_codes = _codes(columns, "doc_codes", columns.docs, values.shape[0])
    check_ids(columns.queries, query_codes, "query id")
    check_ids(columns.docs, doc_codes, "docno")
    repeat = first_duplicate_codes(query_codes, doc_codes, len(columns.queries))
    if repeat is not None:
        a, b = repeat
        raise ValueError(duplicate_message("columns", columns.docs[doc_codes[b]],
                                           columns.queries[query_codes[b]], a, b))
    return query_codes, doc_codes, values


def _write(path: PathName, columns: TrecColumns, query_codes: np.ndarray, doc_codes: np.ndarray,
           values: np.ndarray, ranks: np.ndarray, name: bytes) -> None:
    queries, docs = columns.queries, columns.docs
    rows = (query_codes, doc_codes, values, ranks)
    with open_output(path) as f:
        for start in range(0, values.shape[0], _WRITE_CHUNK):
            stop = min(start + _WRITE_CHUNK, values.shape[0])
            f.write(_text.format_rows((queries.data, queries.offsets), (docs.data, docs.offsets), rows, name,
                                      start, stop))
