"""TREC text to columns: blocks of whole lines, each parsed by every core.

A reading thread fills blocks of decoded text (``_BLOCK`` bytes) while the calling thread
has the previous one parsed by :class:`._text.Parser` (its steps: ``_text.pyx``). A
block ends at its last line end; the partial line after it is carried in front of the
next block, in the room left there (``_HEAD_ROOM``). Memory is then two blocks plus the
columns and the id tables, whatever the file's size, and the result does not depend on
the block size or the thread count: rows, ids and codes come out as one pass would give
them.

Errors keep the priority the whole-file checks had: a NUL byte anywhere, then a file of
one line ending in a bare ``\\r``, then the first malformed line. After a malformed line
the rest is still read (not parsed) to look for a NUL, and so that the source can tell
whether the file changed while it was read, which outranks both.
"""
from __future__ import annotations

import contextlib
import os
import queue
import threading
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from .._core._enums import LineErrorKind
from .._core.parallel import effective_n_threads, run_in_chunks
from .._core.progress import Bar, progress_bar
from . import _text

__all__ = ["Parsed", "Text", "parse_text"]

# Decoded bytes per block, and the room in front of it for the line carried over.
_BLOCK = 1 << 23
_HEAD_ROOM = 1 << 20
# Pieces per thread in a block: enough for a thread to pick up another's slack.
_PIECES_PER_THREAD = 2
# Blocks smaller than this are parsed by one thread.
_PARALLEL_BYTES = 1 << 20
_PARTITIONS = 64
_WAIT = 0.1
_QUOTE_LIMIT = 60
_QRELS = "qid iter docno rel"
_RUN = "qid Q0 docno rank score runid"


class Text(Protocol):
    """Decoded bytes of one source, read front to back (``sources.Text``)."""

    name: str
    size: int | None
    raw_size: int | None

    @property
    def raw_read(self) -> int: ...

    def readinto(self, view: memoryview) -> int: ...


@dataclass
class Parsed:
    """What :func:`parse_text` read: columns as ``_text.Parser.finish`` gives them, or an error."""

    tables: tuple[np.ndarray, ...] | None
    run_name: bytes
    empty: bool
    error: ValueError | None = None


def quote(token: bytes) -> str:
    """A token for a message: decoded with escapes, cut at 60 characters."""
    text = token.decode("utf-8", errors="backslashreplace")
    return f"'{text}'" if len(text) <= _QUOTE_LIMIT else f"'{text[:_QUOTE_LIMIT - 3]}...'"


def _line_error(path: str, run: bool, error: tuple[Any, ...]) -> ValueError:
    kind, line, fields, token = error
    where = f"{path}, line {line}"
    layout = _RUN if run else _QRELS
    if kind == LineErrorKind.TOO_FEW:
        need = f"at least 6 fields ({layout})" if run else f"4 fields ({layout})"
        return ValueError(f"{where}: a {'run' if run else 'qrels'} line needs {need}, found {fields}")
    if kind == LineErrorKind.TOO_MANY:
        return ValueError(f"{where}: a qrels line has exactly 4 fields ({layout}), found {fields}; "
                          "trec_eval rejects extra fields in qrels")
    what = "score" if run else "relevance"
    if kind == LineErrorKind.NOT_FINITE:
        return ValueError(f"{where}: {what} {quote(token)} is not a finite number")
    return ValueError(f"{where}: {what} {quote(token)} is not a number")


def _nul_error(path: str, line: int) -> ValueError:
    return ValueError(f"{path}, line {line}: NUL byte; TREC files are plain text (is this file UTF-16 or "
                      "binary?)")


def _bare_cr_error(path: str) -> ValueError:
    # Old Mac files end lines with a bare \r, which is whitespace to trec_eval: the
    # whole file would read as one line.
    return ValueError(f"{path}: lines end with a bare carriage return (\\r); use \\n or \\r\\n line endings")


class _ReadAhead:
    """A thread filling blocks from ``text`` while the caller parses the previous one.

    Two buffers of ``_HEAD_ROOM + _BLOCK`` bytes go round: :meth:`next` gives a filled
    one as ``(buffer, n, at_end, read)`` (its text at ``_HEAD_ROOM:_HEAD_ROOM + n``; ``read``
    the source's raw bytes read once it was filled), and :meth:`give_back` returns it to be
    filled again.
    """

    def __init__(self, text: Text) -> None:
        self._text = text
        self._free: queue.Queue[bytearray] = queue.Queue()
        self._full: queue.Queue[tuple[bytearray, int, bool, int] | BaseException] = queue.Queue()
        self._stop = threading.Event()
        for _ in range(2):
            self._free.put(bytearray(_HEAD_ROOM + _BLOCK))
        self._thread = threading.Thread(target=self._fill_all, name="rankwise-read", daemon=True)
        self._thread.start()

    def _fill(self, buffer: bytearray) -> tuple[int, bool]:
        filled = 0
        with memoryview(buffer) as view:
            while filled < _BLOCK:
                got = self._text.readinto(view[_HEAD_ROOM + filled:])
                if not got:
                    return filled, True
                filled += got
        return filled, False

    def _fill_all(self) -> None:
        try:
            at_end = False
            while not at_end and not self._stop.is_set():
                try:
                    buffer = self._free.get(timeout=_WAIT)
                except queue.Empty:
                    continue
                n, at_end = self._fill(buffer)
                self._full.put((buffer, n, at_end, self._text.raw_read))
        except BaseException as error:  # raised in the calling thread
            self._full.put(error)

    def next(self) -> tuple[bytearray, int, bool, int]:
        while True:
            try:
                item = self._full.get(timeout=_WAIT)
            except queue.Empty:
                continue
            if isinstance(item, BaseException):
                raise item
            return item

    def give_back(self, buffer: bytearray) -> None:
        self._free.put(buffer)

    def close(self) -> None:
        self._stop.set()
        while self._thread.is_alive():
            self._thread.join(_WAIT)


class _Blocks:
    """The parse of one source: blocks of whole lines into a Parser, errors in their order."""

    def __init__(self, text: Text, run: bool, subtopics: bool = False) -> None:
        self.name, self.run, self.size = text.name, run, text.size
        self.threads = effective_n_threads(None)
        self.parser = _text.Parser(run, self.threads * _PIECES_PER_THREAD, subtopics)
        self.run_name = b""
        self.error: ValueError | None = None
        self.newline_seen = False
        self.lines = 0          # lines begun before the current block
        self.empty = False

    def feed(self, owner: bytearray, start: int, stop: int) -> None:
        """Parse ``owner[start:stop]`` (whole lines), or after an error only look for a NUL byte."""
        nul = owner.find(b"\0", start, stop)
        if nul >= 0:
            self.error = _nul_error(self.name, self.lines + owner.count(b"\n", start, nul) + 1)
            raise _Stop
        if self.error is None:
            with memoryview(owner) as view, view[start:stop] as block:
                self._parse(block)
        if self.error is None:
            self.lines = int(self.parser.lines)    # the block ends at a line end, or the file does
        else:
            self.lines += owner.count(b"\n", start, stop)

    def _parse(self, block: memoryview) -> None:
        parser, threads = self.parser, self.threads if len(block) >= _PARALLEL_BYTES else 1
        n = parser.split(block, threads * _PIECES_PER_THREAD)
        run_in_chunks(lambda a, b, stop: parser.tokenize(a, b, stop), list(range(n + 1)), threads, len(block))
        error = parser.error()
        if error is not None:
            self.error = _line_error(self.name, self.run, error)
            return
        first = parser.rows == 0
        rows = parser.prepare()
        if first and self.size and len(block):
            # Columns sized once for the whole file, from the first block's rows per byte, and
            # tables for half as many docnos (most docnos of a run appear once or a few times).
            expected = int(rows * self.size / len(block) * 1.02) + 64
            with contextlib.suppress(MemoryError):     # a hint: a file may claim more than it holds
                parser.reserve(expected, expected // 2)
        groups = np.linspace(0, _PARTITIONS, threads + 1).astype(int).tolist()
        run_in_chunks(lambda lo, hi, stop: parser.intern_docs(lo, hi, stop), groups, threads, rows * 8)
        name = parser.commit()
        if name is not None:
            self.run_name = name


class _Stop(Exception):
    """A NUL byte ends the reading: nothing can outrank it but the source's own checks."""


def _carry_over(buffer: bytearray, n: int, carry: bytearray) -> tuple[bytearray, int, int]:
    """Where the text to parse now lies, ``(owner, start, stop)``: ``carry`` then the block's ``n`` bytes."""
    if len(carry) <= _HEAD_ROOM:
        start = _HEAD_ROOM - len(carry)
        buffer[start:_HEAD_ROOM] = carry
        return buffer, start, _HEAD_ROOM + n
    # A line longer than the head room: carried in a buffer of its own, grown in place.
    with memoryview(buffer) as view:
        carry += view[_HEAD_ROOM:_HEAD_ROOM + n]
    return carry, 0, len(carry)


def parse_text(text: Text, run: bool, progress: bool | None = False, subtopics: bool = False) -> Parsed:
    """Parse a qrels (``run=False``) or run source to its end; see the module docstring.

    ``subtopics``: qrels of ``topic subtopic docno grade`` lines, whose docno column holds
    ``subtopic docno`` as written (``io.read_qrels`` splits it).

    ``progress`` as :func:`rankwise._core.progress.progress_bar` takes it: the source's bytes
    parsed (compressed bytes for compressed data), out of the file's size when it is known
    (a regular file opened by path).
    """
    blocks = _Blocks(text, run, subtopics)
    with progress_bar(progress, text.raw_size, f"reading {os.path.basename(text.name)}", unit="B") as bar:
        blocks.empty = _feed_all(blocks, text, bar) == 0
    return _finished(blocks, text)


def _feed_all(blocks: _Blocks, text: Text, bar: Bar) -> int:
    """Feed ``blocks`` every line of ``text``; the bytes read. The blocks' memory is freed on return."""
    reader = _ReadAhead(text)
    carry, total, counted = bytearray(), 0, 0
    try:
        at_end = False
        while not at_end:
            buffer, n, at_end, read = reader.next()
            total += n
            owner, start, stop = _carry_over(buffer, n, carry)
            blocks.newline_seen = blocks.newline_seen or owner.find(b"\n", start, stop) >= 0
            cut = stop if at_end else owner.rfind(b"\n", start, stop) + 1 or start
            if at_end and not blocks.newline_seen and owner.find(b"\0", start, stop) < 0 and \
                    b"\r" in owner[start:stop].rstrip():
                blocks.error = _bare_cr_error(text.name)
                break
            blocks.feed(owner, start, cut)
            bar.update(read - counted)
            counted = read
            if owner is not carry or cut > start:
                with memoryview(owner) as view:
                    carry = bytearray(view[cut:stop])
            reader.give_back(buffer)
    except _Stop:
        pass
    finally:
        reader.close()
    return total


def _finished(blocks: _Blocks, text: Text) -> Parsed:
    if blocks.error is not None:
        _drain(text)
        return Parsed(None, b"", blocks.empty, blocks.error)
    return Parsed(blocks.parser.finish(), blocks.run_name, blocks.empty)


def _drain(text: Text) -> None:
    """Read what is left, for the source's checks at its end (the file changed while read?)."""
    chunk = bytearray(_HEAD_ROOM)
    with memoryview(chunk) as view:
        while text.readinto(view):
            pass
