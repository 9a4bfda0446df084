"""Read and write TREC qrels and run files as columns of interned ids.

A file is read whole into one buffer (in large chunks, never memory-mapped: a file that
changes while it is read is an error, not a signal; gzip is decompressed as it is read)
and parsed by a Cython kernel in one pass: each id is interned
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

import errno
import gzip
import io
import mmap
import os
import stat
import sys
import zlib
from dataclasses import dataclass
from functools import partial
from typing import IO, Any, TypeAlias

import numpy as np

from .._core._enums import LineErrorKind
from .._core.duplicates import duplicate_message, first_duplicate_codes
from .._core.parallel import run_alone
from .._core.strings import StringTable
from .._core.validation import value_error
from . import _text

__all__ = ["StringTable", "TrecColumns", "check_ids", "check_run_name", "read_qrels", "read_run",
           "source_name", "write_qrels", "write_run"]

_QRELS = "qid iter docno rel"
_RUN = "qid Q0 docno rank score runid"
# Bytes that would split or end a field, or that trec_eval cannot read (NUL).
_NOT_IN_ID = np.zeros(256, dtype=bool)
_NOT_IN_ID[[0, 9, 10, 11, 12, 13, 32]] = True
_WRITE_CHUNK = 1 << 18
# A file of known size is read 16 MiB at a time into one buffer of its size; gzip, pipes and
# other streams 1 MiB at a time.
_READ_CHUNK = 1 << 24
_GZIP_CHUNK = 1 << 20
_GZIP_MAGIC = b"\x1f\x8b"
_GZIP_WBITS = 16 + zlib.MAX_WBITS
_QUOTE_LIMIT = 60

# A file name, as the readers and writers take it.
PathName: TypeAlias = "str | bytes | os.PathLike[str] | os.PathLike[bytes]"
# What the readers take: a file name, "-" for standard input, or a file object (binary, or
# text with a binary ``.buffer``).
Source: TypeAlias = "PathName | IO[bytes] | IO[str]"
# A file's whole contents: a memory map of a regular file, or the bytes of any other stream.
Raw: TypeAlias = "bytes | mmap.mmap"


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
        The runid of the last run line (trec_eval's); None for qrels.
    """

    queries: StringTable
    query_codes: np.ndarray
    docs: StringTable
    doc_codes: np.ndarray
    values: np.ndarray
    lines: np.ndarray
    run_name: str | None = None


def read_qrels(path: Source) -> TrecColumns:
    """Read a qrels file: ``qid iter docno rel`` lines (``iter`` is ignored).

    Parameters
    ----------
    path : str, os.PathLike or binary file object
        See :func:`read_run`.

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
        :func:`read_run` for gzip data.
    OSError
        As :func:`read_run`.
    """
    return _read(path, run=False)


def read_run(path: Source) -> TrecColumns:
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
        left open. Pipes, FIFOs and ``/dev/stdin`` work: nothing seeks. Data starting
        with gzip's magic bytes is decompressed as it is read (several members, as
        ``cat a.gz b.gz`` makes, are read in turn); a path ending in ``.gz`` must hold
        gzip data.

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
        query, or no data line at all (an empty file). Naming the file: gzip data that
        is corrupt (a bad header or CRC), truncated, or followed by other bytes.
    OSError
        The file cannot be opened or read (missing, a directory, no permission), or it
        changed while being read (another process wrote or truncated it: its size or
        timestamps differ before and after, or fewer bytes came than its size).
    TypeError
        ``path`` is none of the above, or a text stream without a binary buffer.
    """
    return _read(path, run=True)


def write_qrels(path: PathName, columns: TrecColumns) -> None:
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
    check_run_name(name)
    query_codes, doc_codes, values = _prepare(columns)
    ranks = _text.occurrence_ranks(query_codes, len(columns.queries))
    _write(path, columns, query_codes, doc_codes, values, ranks, name.encode("utf-8"))


# ---------------------------------------------------------------------------- reading

def _is_stdin(source: object) -> bool:
    # The string "-" only: Path("-") is a file named "-".
    return isinstance(source, (str, bytes)) and source in ("-", b"-")


def source_name(source: object) -> str:
    """How messages name a source: its path, ``<stdin>`` for ``"-"``, a stream's ``name``."""
    if _is_stdin(source):
        return "<stdin>"
    if isinstance(source, (str, bytes, os.PathLike)):
        path = os.fspath(source)
        return os.fsdecode(path) if isinstance(path, bytes) else path
    name = getattr(source, "name", None)
    if isinstance(name, bytes):
        name = os.fsdecode(name)
    if isinstance(name, int) and not isinstance(name, bool):
        return f"<file descriptor {name}>"
    return name if isinstance(name, str) and name else "<stream>"


def _binary(stream: Any, name: str) -> Any:
    """A binary stream to read: a text stream gives its ``.buffer``, or is refused."""
    if isinstance(stream, io.TextIOBase):
        buffer = getattr(stream, "buffer", None)
        if buffer is None:
            raise TypeError(f"{name} is a text stream without a binary buffer; pass a path or a binary "
                            "file object (open(path, 'rb'))")
        return buffer
    return stream


def _open(source: object) -> tuple[Any, str, bool]:
    """(binary stream, its name for messages, whether this reader opened it)."""
    if _is_stdin(source):
        if sys.stdin is None:
            raise ValueError("'-' means standard input, but this process has none")
        return _binary(sys.stdin, "<stdin>"), "<stdin>", False
    if isinstance(source, (str, bytes, os.PathLike)):
        path = source_name(source)
        stream = open(path, "rb", buffering=0)
        if stat.S_ISDIR(os.fstat(stream.fileno()).st_mode):
            stream.close()
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
        return stream, path, True
    if callable(getattr(source, "readinto", None)) or callable(getattr(source, "read", None)):
        name = source_name(source)
        return _binary(source, name), name, False
    raise TypeError(f"path must be a path (str or os.PathLike), '-' for standard input, or a binary file "
                    f"object, got {type(source).__name__}")


def _regular_stat(stream: Any) -> os.stat_result | None:
    """fstat of the stream's file if it is a regular file, else None."""
    try:
        info = os.fstat(stream.fileno())
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return None
    return info if stat.S_ISREG(info.st_mode) else None


def _changed(name: str, before: os.stat_result, after: os.stat_result, consumed: int,
             expected: int | None) -> OSError:
    sizes = f"{before.st_size:,} bytes when opened, {after.st_size:,} after reading"
    if expected is not None:
        sizes += f", {consumed:,} read"
    return OSError(f"{name}: the file changed while being read ({sizes}); read it again once nothing "
                   "is writing to it")


class _Reader:
    """Reads a binary stream in large chunks: ``into(view)`` fills a slice of a buffer.

    ``consumed`` counts the bytes read; past ``limit`` (a regular file's size when opened)
    the file has grown under the reader, which stops at once.
    """

    def __init__(self, stream: Any, name: str, limit: int | None, before: os.stat_result | None) -> None:
        self.name, self.limit, self.before, self.consumed = name, limit, before, 0
        self._stream = stream
        readinto = getattr(stream, "readinto", None)
        self._readinto = readinto if callable(readinto) else self._via_read

    def _via_read(self, view: bytearray | memoryview) -> int | None:
        data = self._stream.read(len(view))
        if data is None:
            return None
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"{self.name}: read() returned {type(data).__name__}, not bytes; pass a binary "
                            "stream or a path")
        if len(data) > len(view):
            raise ValueError(f"{self.name}: read({len(view)}) returned {len(data)} bytes, more than asked "
                             "for")
        view[:len(data)] = data
        return len(data)

    def into(self, view: bytearray | memoryview) -> int:
        """Bytes read into ``view`` (0 at the end of the stream)."""
        try:
            got = self._readinto(view)
        except OSError as exc:
            if exc.filename is None and exc.errno is not None:
                raise type(exc)(exc.errno, exc.strerror, self.name) from None
            raise
        if got is None:
            raise ValueError(f"{self.name}: the stream is non-blocking and has no data ready; pass a "
                             "blocking stream")
        self.consumed += got
        if self.limit is not None and self.consumed > self.limit:
            assert self.before is not None  # a limit is the size of the file ``before`` describes
            after = os.fstat(self._stream.fileno())
            raise _changed(self.name, self.before, after, self.consumed, self.limit)
        return got


def _gunzip(reader: _Reader, head: bytes, out: io.BytesIO) -> None:
    """Decompress gzip members (``cat a.gz b.gz``) chunk by chunk into ``out``, from ``head`` on.

    Zero bytes after a member are padding (as gzip and Python's gzip module read them);
    anything else after a member, a bad header or CRC, or a stream that ends inside a
    member is a ValueError naming the file.
    """
    name = reader.name
    chunk = bytearray(_GZIP_CHUNK)
    decompressor, members, offset, data = None, 0, 0, head   # offset: bytes before `data`
    while True:
        while True:
            if decompressor is None:
                # Between members: zero padding, or the next member's header.
                stripped = data.lstrip(b"\0")
                offset, data = offset + len(data) - len(stripped), stripped
                if not data:
                    break
                if members and not _GZIP_MAGIC.startswith(data[:2]):
                    raise ValueError(f"{name}: the data after the end of the gzip stream (at byte "
                                     f"{offset:,}) is not gzip; the file has trailing garbage")
                decompressor = zlib.decompressobj(_GZIP_WBITS)
            try:
                piece = decompressor.decompress(data, _GZIP_CHUNK)
            except zlib.error as exc:
                reason = str(exc).rpartition("decompressing data: ")[2]
                raise ValueError(f"{name}: cannot decompress as gzip ({reason}); the file is "
                                 "corrupt") from None
            out.write(piece)
            rest = decompressor.unused_data if decompressor.eof else decompressor.unconsumed_tail
            offset, data = offset + len(data) - len(rest), rest
            if decompressor.eof:
                decompressor, members = None, members + 1
            elif not data and len(piece) < _GZIP_CHUNK:
                break      # all input used and no output pending: read more
        got = reader.into(chunk)
        if not got:
            break
        data = bytes(memoryview(chunk)[:got])
    if decompressor is not None:
        raise ValueError(f"{name}: the gzip data is truncated (it ends inside a member, after {offset:,} "
                         "bytes); the file is incomplete")


def _read_sized(reader: _Reader, size: int) -> tuple[mmap.mmap | None, bytes]:
    """A file of known ``size`` read into one buffer of that size: (buffer, b"").

    If it starts as gzip: (None, its first bytes), the buffer freed. The buffer is
    anonymous memory (an mmap of no file: nothing a file's changes can reach), whose pages
    the system clears as the chunks are read into them; ``bytearray(size)`` would clear
    them all first, in one call that Ctrl-C cannot cut short (half a second per GB). A size
    the process cannot get fails before any read.
    """
    try:
        # Private: shared anonymous memory is a file of the system's memory file system.
        buffer = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE) if hasattr(mmap, "MAP_PRIVATE") else \
            mmap.mmap(-1, size)
    except (OSError, OverflowError, ValueError):
        raise MemoryError(f"{reader.name}: cannot hold {size:,} bytes in memory to read it (the file "
                          "is larger than the memory this process can get)") from None
    filled, head = 0, b""
    with memoryview(buffer) as view:
        # A first read small enough to copy out if it is gzip.
        while filled < 2 and (got := reader.into(view[filled:filled + _GZIP_CHUNK])):
            filled += got
        if view[:2] == _GZIP_MAGIC:
            head = bytes(view[:filled])
        else:
            while got := reader.into(view[filled:filled + _READ_CHUNK]):
                filled += got
    if head:
        buffer.close()
        return None, head
    if filled == size:
        reader.into(bytearray(1))      # a byte more: a file that grows gives it, and the reader stops
    return buffer, b""


def _read_stream(reader: _Reader, out: io.BytesIO) -> bytes:
    """A stream of unknown size copied into ``out`` chunk by chunk: b"", or its first bytes if gzip.

    ``out`` grows by an eighth at a time and gives its bytes without a copy, cut to their
    size (a bytearray would keep its unused end unless that is half of it or more).
    """
    chunk = bytearray(_GZIP_CHUNK)
    with memoryview(chunk) as view:
        while out.tell() < 2 and (got := reader.into(view)):
            out.write(view[:got])
        with out.getbuffer() as written:
            if written[:2] == _GZIP_MAGIC:
                return bytes(written)
        while got := reader.into(view):
            out.write(view[:got])
    return b""


def _read_source(source: object) -> tuple[str, Raw, bool]:
    """(name, all the bytes, decompressed if gzip, whether they were gzip): see :func:`read_run`."""
    stream, name, owned = _open(source)
    try:
        before = _regular_stat(stream)
        # A file this reader opened is read from its start; its size bounds the read.
        limit = before.st_size if owned and before is not None else None
        if before is not None and before.st_size == 0:
            limit = None           # /proc and similar files report 0 bytes and have more
        reader = _Reader(stream, name, limit, before)
        data: Raw | None = None
        problem: ValueError | None = None
        out, head = io.BytesIO(), b""
        try:
            if limit is not None:
                data, head = _read_sized(reader, limit)
            else:
                data, head = None, _read_stream(reader, out)
            if head:
                out = io.BytesIO()
                _gunzip(reader, head, out)
            if data is None:
                data = out.getvalue()
        except MemoryError as exc:
            if str(exc).startswith(name):
                raise
            raise MemoryError(f"{name}: out of memory after reading {reader.consumed:,} bytes (the data is "
                              "larger than the memory this process can get)") from None
        except ValueError as exc:
            problem = exc          # corrupt gzip, unless the file changed: that is checked first
        del out
        if before is not None:
            after = os.fstat(stream.fileno())
            # Files of /proc and the like report 0 bytes, and timestamps that move: not compared.
            if (before.st_size or after.st_size) and ((before.st_size, before.st_mtime_ns, before.st_ctime_ns)
                    != (after.st_size, after.st_mtime_ns, after.st_ctime_ns)
                    or (limit is not None and reader.consumed != limit)):
                raise _changed(name, before, after, reader.consumed, limit)
        if problem is not None:
            raise problem
        assert data is not None  # read, or else a problem was raised
        if not head and name.endswith(".gz") and data:
            raise ValueError(f"{name}: the name ends in .gz but the data is not gzip (no gzip header)")
        return name, data, bool(head)
    finally:
        if owned:
            stream.close()


def _line_of(raw: Raw, position: int) -> int:
    return raw[:position].count(b"\n") + 1


def _quote(token: bytes) -> str:
    text = token.decode("utf-8", errors="backslashreplace")
    return f"'{text}'" if len(text) <= _QUOTE_LIMIT else f"'{text[:_QUOTE_LIMIT - 3]}...'"


def _line_error(path: str, raw: Raw, run: bool, error: _text.LineError) -> ValueError:
    kind, line, fields, start, stop = error.args
    where = f"{path}, line {line}"
    layout = _RUN if run else _QRELS
    if kind == LineErrorKind.TOO_FEW:
        need = f"at least 6 fields ({layout})" if run else f"4 fields ({layout})"
        return ValueError(f"{where}: a {'run' if run else 'qrels'} line needs {need}, found {fields}")
    if kind == LineErrorKind.TOO_MANY:
        return ValueError(f"{where}: a qrels line has exactly 4 fields ({layout}), found {fields}; "
                          "trec_eval rejects extra fields in qrels")
    what = "score" if run else "relevance"
    token = _quote(raw[start:stop])
    if kind == LineErrorKind.NOT_FINITE:
        return ValueError(f"{where}: {what} {token} is not a finite number")
    return ValueError(f"{where}: {what} {token} is not a number")


def _check_text(path: str, raw: Raw) -> None:
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


def _read(source: object, run: bool) -> TrecColumns:
    path, raw, gz = _read_source(source)
    _check_text(path, raw)
    try:
        (query_data, query_offsets, query_codes, doc_data, doc_offsets, doc_codes, values, lines,
         name_start, name_stop) = run_alone(partial(_text.parse_lines, raw, run), len(raw) // 8)
    except _text.LineError as exc:
        raise _line_error(path, raw, run, exc) from None
    name = bytes(raw[name_start:name_stop])
    kind = "run" if run else "qrels"
    if not raw:
        what = "decompressed data" if gz else "file"
        raise ValueError(f"{path}: no {kind} lines found: the {what} is empty")
    del raw
    if query_codes.shape[0] == 0:
        raise ValueError(f"{path}: no {kind} lines found (only comments and blank lines)")
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
            raise ValueError(f"{path}, line {lines[-1]}: runid {_quote(name)} is not valid UTF-8") from None
    repeat = first_duplicate_codes(query_codes, doc_codes, len(queries))
    if repeat is not None:
        a, b = repeat
        raise value_error(duplicate_message(path, docs[doc_codes[b]], queries[query_codes[b]], int(lines[a]),
                                            int(lines[b]), lines=True), duplicate_docno=True)
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


def _write(path: object, columns: TrecColumns, query_codes: np.ndarray, doc_codes: np.ndarray,
           values: np.ndarray, ranks: np.ndarray, name: bytes) -> None:
    if not isinstance(path, (str, bytes, os.PathLike)):
        raise TypeError(f"path must be a str, bytes or os.PathLike file name, got {type(path).__name__}")
    path = os.fspath(path)
    is_gz = (path.endswith(b".gz") if isinstance(path, bytes) else path.endswith(".gz"))
    queries, docs = columns.queries, columns.docs
    rows = (query_codes, doc_codes, values, ranks)
    with (gzip.open(path, "wb", compresslevel=6) if is_gz else open(path, "wb")) as f:
        for start in range(0, values.shape[0], _WRITE_CHUNK):
            stop = min(start + _WRITE_CHUNK, values.shape[0])
            f.write(_text.format_rows((queries.data, queries.offsets), (docs.data, docs.offsets), rows, name,
                                      start, stop))
