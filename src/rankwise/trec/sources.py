"""Where TREC text comes from, and where it goes: files, standard input, streams, compressed.

:func:`open_text` opens a source (a path, ``"-"`` for standard input, or a binary stream)
and gives a :class:`Text`, whose ``readinto`` fills the caller's buffer with the decoded
bytes, front to back. A plain file is read straight into that buffer. Compressed data is
recognised by its first bytes, whatever the file's name: gzip, bzip2, xz, and zstd (with
the optional ``zstandard`` package); it is decompressed a piece at a time into the
caller's buffer, never held whole in memory nor written to disk, and concatenated streams
(``cat a.gz b.gz``) are read in turn, as the command-line tools read them. Nothing seeks,
so pipes and standard input work for every format. The work is done in large pieces with
the GIL released (by the system's read and by the decompressors), so a thread can read
while others parse.

:func:`open_output` opens a file to write, compressed as its name says.

>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "run.txt.xz")
>>> with open_output(path) as f:
...     _ = f.write(b"q1 Q0 d7 1 2.5 bm25\\n")
>>> with open_text(path) as text:
...     buffer = bytearray(1 << 20)
...     n = text.readinto(memoryview(buffer))
...     text.codec, bytes(buffer[:n]), text.readinto(memoryview(buffer))
('xz', b'q1 Q0 d7 1 2.5 bm25\\n', 0)
"""
from __future__ import annotations

import bz2
import errno
import gzip
import io
import lzma
import os
import stat
import sys
import zlib
from types import TracebackType
from typing import IO, Any, BinaryIO, Protocol, TypeAlias, cast

__all__ = ["PathName", "Source", "Text", "open_output", "open_text", "source_name"]

# A file name, as the readers and writers take it.
PathName: TypeAlias = "str | bytes | os.PathLike[str] | os.PathLike[bytes]"
# What the readers take: a file name, "-" for standard input, or a file object (binary, or
# text with a binary ``.buffer``).
Source: TypeAlias = "PathName | IO[bytes] | IO[str]"

# Compressed input is read 256 KiB at a time: zlib copies the input a call leaves unused
# (measured: 5% faster than 1 MiB reads, on a run gzipped with -1).
_INPUT_CHUNK = 1 << 18
_GZIP_WBITS = 16 + zlib.MAX_WBITS
# Each format's name suffix, first bytes, and what its concatenated parts are called.
_SUFFIXES = {".gz": "gzip", ".bz2": "bzip2", ".xz": "xz", ".zst": "zstd"}
_MAGIC = {"gzip": b"\x1f\x8b", "bzip2": b"BZh", "xz": b"\xfd7zXZ\x00", "zstd": b"\x28\xb5\x2f\xfd"}
_PARTS = {"gzip": "member", "bzip2": "stream", "xz": "stream", "zstd": "frame"}
# bzip2's "BZh" and block size digit are followed by a block's magic number (pi) or, for
# empty data, the end of stream's (sqrt(pi)): what tells bzip2 from a text starting "BZh1".
_BZIP2_BLOCK = (b"1AY&SY", b"\x17rE8P\x90")
# A zstd skippable frame starts with 0x184D2A50 to 0x184D2A5F, little-endian.
_ZSTD_SKIPPABLE = b"\x2a\x4d\x18"
# Enough first bytes to tell every format.
_HEAD = 10
_ZSTD_EXTRA = 'pip install "rankwise[zstd]"'


# ---------------------------------------------------------------------------- sources

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


class _Input:
    """The raw bytes of a binary stream: ``into(view)`` reads into part of a buffer.

    ``consumed`` counts the bytes read; past ``limit`` (a regular file's size when opened)
    the file has grown under the reader, which stops at once. ``before`` is the file's
    fstat when opened, if it is a regular file, for :meth:`check` to compare.
    """

    def __init__(self, stream: Any, name: str, limit: int | None, before: os.stat_result | None) -> None:
        self.name, self.limit, self.before, self.consumed, self.ended = name, limit, before, 0, False
        self._stream = stream
        readinto = getattr(stream, "readinto", None)
        self._readinto = readinto if callable(readinto) else self._via_read

    def _via_read(self, view: memoryview) -> int | None:
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

    def into(self, view: memoryview) -> int:
        """Bytes read into ``view``: one read, 0 at the end of the stream (and after it)."""
        if self.ended:
            return 0
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
        self.ended = not got and len(view) > 0
        if self.limit is not None and self.consumed > self.limit:
            raise self._changed(os.fstat(self._stream.fileno()))
        return got

    def fill(self, view: memoryview) -> int:
        """Bytes read into ``view``: all of it, unless the stream ends first."""
        filled = 0
        while filled < len(view) and (got := self.into(view[filled:])):
            filled += got
        return filled

    def _changed(self, after: os.stat_result) -> OSError:
        assert self.before is not None  # only a regular file can be seen to change
        sizes = f"{self.before.st_size:,} bytes when opened, {after.st_size:,} after reading"
        if self.limit is not None:
            sizes += f", {self.consumed:,} read"
        return OSError(f"{self.name}: the file changed while being read ({sizes}); read it again once "
                       "nothing is writing to it")

    def check(self) -> None:
        """Raise the OSError of a regular file that changed since it was opened (or gave
        other than its size by the end)."""
        before = self.before
        if before is None:
            return
        after = os.fstat(self._stream.fileno())
        # Files of /proc and the like report 0 bytes, and timestamps that move: not compared.
        if not (before.st_size or after.st_size):
            return
        if ((before.st_size, before.st_mtime_ns, before.st_ctime_ns) != (after.st_size, after.st_mtime_ns,
                                                                         after.st_ctime_ns)
                or (self.ended and self.limit is not None and self.consumed != self.limit)):
            raise self._changed(after)


# ---------------------------------------------------------------------------- formats

def _format_of(head: bytes) -> str | None:
    """The compressed format ``head`` (a source's first bytes, all of them if fewer) starts, if any."""
    for codec in ("gzip", "xz", "zstd"):
        if head.startswith(_MAGIC[codec]):
            return codec
    if len(head) >= 4 and head[:3] == b"BZh" and head[3:4] in b"123456789" and any(
            magic.startswith(head[4:]) for magic in _BZIP2_BLOCK):
        return "bzip2"
    if len(head) >= 4 and 0x50 <= head[0] <= 0x5F and head[1:4] == _ZSTD_SKIPPABLE:
        return "zstd"
    return None


def _format_of_name(name: str) -> str | None:
    """The compressed format a file name's extension says, if any."""
    return _SUFFIXES.get(os.path.splitext(name)[1])


def _corrupt(name: str, codec: str, exc: Exception) -> ValueError:
    # zlib's "Error -3 while decompressing data: incorrect header check", zstandard's
    # "zstd decompress error: Corrupted block detected": the reason is after the colon.
    reason = str(exc).rpartition(": ")[2] or type(exc).__name__
    return ValueError(f"{name}: cannot decompress as {codec} ({reason}); the file is corrupt")


def _garbage(name: str, codec: str, at: int) -> ValueError:
    return ValueError(f"{name}: the data after the end of the {codec} stream (at byte {at:,}) is not "
                      f"{codec}; the file has trailing garbage")


def _truncated(name: str, codec: str, at: int) -> ValueError:
    return ValueError(f"{name}: the {codec} data is truncated (it ends inside a {_PARTS[codec]}, after "
                      f"{at:,} bytes); the file is incomplete")


def _zstandard(what: str) -> Any:
    try:
        import zstandard
    except ImportError:
        raise ImportError(f"{what} needs the zstandard package, an optional extra of rankwise: "
                          f"{_ZSTD_EXTRA}") from None
    return zstandard


class _Plain:
    """Uncompressed bytes, read straight into the caller's buffer."""

    def __init__(self, source: _Input, head: bytes) -> None:
        self._source, self._head = source, head

    def readinto(self, view: memoryview) -> int:
        n = 0
        if self._head:
            n = min(len(self._head), len(view))
            view[:n], self._head = self._head[:n], self._head[n:]
        return n + self._source.fill(view[n:])


class _Streams:
    """gzip members, bzip2 or xz streams, one after another, decompressed into the caller's buffer.

    Each decompressor reads one member or stream; what follows it must be another, or
    zero padding where the format allows it (gzip, as gzip reads it; xz, in multiples of
    4 bytes). Anything else, bad data, or an end inside a member or stream is a ValueError
    naming the file.
    """

    def __init__(self, source: _Input, codec: str, head: bytes) -> None:
        self._source, self._codec = source, codec
        self._chunk = bytearray(_INPUT_CHUNK)
        self._data: bytes | memoryview = head   # input that no decompressor has taken yet
        self._offset = 0                        # the compressed bytes before ``_data``
        # zlib's, bz2's or lzma's decompressor of the current stream; None between streams.
        self._decompressor: Any = None
        self._more = False                      # the decompressor has output it has not given
        self._streams = self._padding = 0

    def readinto(self, view: memoryview) -> int:
        filled = 0
        while filled < len(view):
            if not self._data and not self._more:
                got = self._source.into(memoryview(self._chunk))
                if not got:
                    self._end()
                    break
                self._data = memoryview(self._chunk)[:got]
            if self._decompressor is None and not self._next_stream():
                continue
            filled += self._decompress(view[filled:])
        return filled

    def _next_stream(self) -> bool:
        """Between streams: skip padding; True once the next stream's decompressor is ready."""
        data = self._data
        if self._codec != "bzip2" and data[0] == 0:
            zeros = len(data) - len(bytes(data).lstrip(b"\0"))
            self._padding, self._offset, data = self._padding + zeros, self._offset + zeros, data[zeros:]
            self._data = data
            if not data:
                return False
        magic = _MAGIC[self._codec]
        if self._streams and not magic.startswith(bytes(data[:len(magic)])):
            raise _garbage(self._source.name, self._codec, self._offset)
        self._check_padding()
        if self._codec == "gzip":
            self._decompressor = zlib.decompressobj(_GZIP_WBITS)
        elif self._codec == "bzip2":
            self._decompressor = bz2.BZ2Decompressor()
        else:
            self._decompressor = lzma.LZMADecompressor(lzma.FORMAT_XZ)
        return True

    def _decompress(self, view: memoryview) -> int:
        """One call of the decompressor, its output (at most ``len(view)`` bytes) into ``view``."""
        decompressor, data = self._decompressor, self._data
        assert decompressor is not None
        try:
            out = decompressor.decompress(data, len(view))
        except (zlib.error, OSError, lzma.LZMAError) as exc:   # bz2's errors are OSErrors
            raise _corrupt(self._source.name, self._codec, exc) from None
        view[:len(out)] = out
        if decompressor.eof:
            rest = decompressor.unused_data
            self._decompressor, self._more, self._streams, self._padding = None, False, self._streams + 1, 0
        elif self._codec == "gzip":
            rest = decompressor.unconsumed_tail
            self._more = len(out) == len(view)   # zlib may hold more only if it filled the view
        else:
            rest = b""                           # bz2 and lzma keep what they have not used
            self._more = not decompressor.needs_input
        self._offset += len(data) - len(rest)
        self._data = rest
        return len(out)

    def _check_padding(self) -> None:
        if self._codec == "xz" and self._padding % 4:
            at = self._offset - self._padding
            raise ValueError(f"{self._source.name}: the xz stream padding at byte {at:,} is {self._padding} "
                             "zero bytes, not a multiple of 4; the file is corrupt")

    def _end(self) -> None:
        if self._decompressor is not None:
            raise _truncated(self._source.name, self._codec, self._offset)
        self._check_padding()


def _zstd_magic_prefix(header: bytes) -> bool:
    """Whether ``header`` starts a zstd frame or skippable frame (or is empty)."""
    return _MAGIC["zstd"].startswith(header) or (0x50 <= header[0] <= 0x5F
                                                  and _ZSTD_SKIPPABLE.startswith(header[1:4]))


class _ZstdInput:
    """zstd's compressed bytes, followed through the frames' layout as zstandard reads them.

    zstandard's streaming reader says neither where a frame ends nor whether the data
    ended inside one. Reading the frame headers and block headers (not the blocks'
    content) tells a complete file from a truncated one and from one with trailing
    garbage, as the zstd tool tells them.
    """

    def __init__(self, source: _Input, head: bytes) -> None:
        self._source, self._head = source, head
        self._chunk = bytearray(_INPUT_CHUNK)
        self._header = bytearray()     # what has come of the header expected next
        self._expected, self._need = "magic", 4
        self._skip = 0                 # bytes to pass over: a block's content, a skippable frame's
        self._checksum = False
        self.offset = 0                # the bytes read so far

    @property
    def between_frames(self) -> bool:
        return self._expected == "magic" and not self._header and not self._skip

    def read(self, size: int) -> bytes | memoryview:
        """The next compressed bytes (at most ``size``), for zstandard's reader."""
        if self._head:
            data: bytes | memoryview = self._head
            self._head = b""
        else:
            view = memoryview(self._chunk)[:size]
            data = view[:self._source.into(view)]
        self._follow(data)
        return data

    def _follow(self, data: bytes | memoryview) -> None:
        i, n = 0, len(data)
        while i < n:
            if self._skip:
                step = min(self._skip, n - i)
                self._skip -= step
            else:
                step = min(self._need - len(self._header), n - i)
                self._header += data[i:i + step]
                if self._expected == "magic" and not _zstd_magic_prefix(bytes(self._header)):
                    raise _garbage(self._source.name, "zstd", self.offset + i + step - len(self._header))
                if len(self._header) == self._need:
                    self._advance(bytes(self._header))
                    self._header.clear()
            i += step
        self.offset += n

    def _advance(self, header: bytes) -> None:
        """``header``, the whole of what was expected, says what comes next."""
        expected = self._expected
        if expected == "magic":
            skippable = header != _MAGIC["zstd"]
            self._expected, self._need = ("skippable size", 4) if skippable else ("descriptor", 1)
        elif expected == "skippable size":
            self._skip = int.from_bytes(header, "little")
            self._expected, self._need = "magic", 4
        elif expected == "descriptor":
            # Frame_Header_Descriptor: content size flag (2 bits), single segment, unused,
            # reserved, checksum, dictionary id flag (2 bits). A single-segment frame has no
            # window descriptor and a content size field of at least 1 byte.
            single = bool(header[0] & 0x20)
            if header[0] & 0x08:
                raise _corrupt(self._source.name, "zstd", ValueError("a frame header's reserved bit is set"))
            self._checksum = bool(header[0] & 0x04)
            self._expected = "header"
            self._need = (not single) + (0, 1, 2, 4)[header[0] & 3] + (single, 2, 4, 8)[header[0] >> 6]
        elif expected in ("header", "block"):
            self._block(int.from_bytes(header, "little") if expected == "block" else None)
        else:                                      # the checksum that ends a frame
            self._expected, self._need = "magic", 4

    def _block(self, header: int | None) -> None:
        """After a block header (None: after the frame header), what comes next."""
        if header is not None:
            kind, size = (header >> 1) & 3, header >> 3
            if kind == 3:
                raise _corrupt(self._source.name, "zstd", ValueError("a block of the reserved type"))
            self._skip = 1 if kind == 1 else size  # an RLE block holds its one byte
        if header is None or not header & 1:
            self._expected, self._need = "block", 3
        elif self._checksum:
            self._expected, self._need = "checksum", 4
        else:
            self._expected, self._need = "magic", 4


class _Zstd:
    """zstd frames, decompressed by zstandard straight into the caller's buffer."""

    def __init__(self, source: _Input, head: bytes) -> None:
        zstandard = _zstandard(f"{source.name}: reading zstd data")
        self._name, self._error = source.name, zstandard.ZstdError
        self._input = _ZstdInput(source, head)
        self._reader = zstandard.ZstdDecompressor().stream_reader(
            self._input, read_size=_INPUT_CHUNK, read_across_frames=True, closefd=False)

    def readinto(self, view: memoryview) -> int:
        filled = 0
        while filled < len(view):
            try:
                got = self._reader.readinto(view[filled:])
            except self._error as exc:
                raise _corrupt(self._name, "zstd", exc) from None
            if not got:
                if not self._input.between_frames:
                    raise _truncated(self._name, "zstd", self._input.offset)
                break
            filled += got
        return filled


class _Decoder(Protocol):
    def readinto(self, view: memoryview) -> int: ...


# ---------------------------------------------------------------------------- reading

class Text:
    """The decoded bytes of one source, read front to back: what :func:`open_text` gives.

    Attributes
    ----------
    name : str
        The source as messages name it: its path, ``<stdin>``, a stream's ``name``.
    codec : str or None
        The compressed format of the data: ``"gzip"``, ``"bzip2"``, ``"xz"`` or
        ``"zstd"``; None for plain text.
    size : int or None
        A plain regular file's size when opened (the bytes ``readinto`` will give, unless
        the file changes meanwhile); None for compressed data, pipes, and streams given
        open.
    raw_size : int or None
        The size of the regular file opened by path, compressed or not (:attr:`raw_read`
        reaches it at the end); None for pipes and streams given open.
    """

    def __init__(self, source: _Input, codec: str | None, decoder: _Decoder, owned: Any) -> None:
        self.name, self.codec = source.name, codec
        self.size = source.limit if codec is None else None
        self.raw_size = source.limit
        self._input, self._decoder, self._owned, self._ended = source, decoder, owned, False

    @property
    def raw_read(self) -> int:
        """Bytes of the source read so far: compressed bytes for compressed data."""
        return self._input.consumed

    def readinto(self, view: memoryview) -> int:
        """Decoded bytes written to ``view[:n]``: ``n`` is ``len(view)`` unless the data ends
        first, and 0 only at the end.

        Raises
        ------
        ValueError
            Naming the file: compressed data that is corrupt, truncated, or followed by
            bytes of another kind.
        OSError
            Naming the file: it cannot be read, or it changed while being read (said
            rather than the ValueError its new content would give).
        """
        try:
            got = self._decoder.readinto(view)
        except ValueError:
            self._input.check()
            raise
        self._ended = self._ended or (not got and len(view) > 0)
        return got

    def __enter__(self) -> Text:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        try:
            if kind is None and self._ended:
                self._input.check()
                expected = _format_of_name(self.name)
                if expected not in (None, self.codec) and self._input.consumed:
                    extension = os.path.splitext(self.name)[1]
                    found = f"it is {self.codec}" if self.codec else f"no {expected} header"
                    raise ValueError(f"{self.name}: the name ends in {extension} but the data is not "
                                     f"{expected} ({found})")
        finally:
            if self._owned is not None:
                self._owned.close()


def open_text(source: Source) -> Text:
    """Open ``source`` to read its text, decompressed if it is compressed.

    Parameters
    ----------
    source : str, bytes, os.PathLike or binary file object
        A path; the string ``"-"`` for standard input (``"./-"`` or ``Path("-")`` is a file
        named ``-``); or an open binary stream (a text stream such as ``sys.stdin`` is read
        through its ``.buffer``), read from its current position to its end and left open.

    Returns
    -------
    Text
        A context manager. Compressed data is recognised by its first bytes, whatever the
        name: gzip, bzip2, xz, and zstd (which needs the ``zstandard`` package). On a
        normal exit of its ``with`` block, once ``readinto`` has reached the end, it
        checks what can only be checked then: a regular file that changed while it was
        read (its size or timestamps differ, or it gave other than its size) is an
        OSError; a name ending in ``.gz``, ``.bz2``, ``.xz`` or ``.zst`` whose data is not
        in that format is a ValueError. It closes what it opened.

    Raises
    ------
    OSError
        The file cannot be opened or read (missing, a directory, no permission).
    ImportError
        The data is zstd and the ``zstandard`` package is missing; the message says what
        to install.
    TypeError
        ``source`` is none of the above, or a text stream without a binary buffer.

    Examples
    --------
    >>> import io, gzip
    >>> with open_text(io.BytesIO(gzip.compress(b"q1 0 d1 1\\n"))) as text:
    ...     buffer = bytearray(64)
    ...     text.name, text.codec, bytes(buffer[:text.readinto(memoryview(buffer))])
    ('<stream>', 'gzip', b'q1 0 d1 1\\n')
    """
    stream, name, owned = _open(source)
    try:
        before = _regular_stat(stream)
        # A file this reader opened is read from its start, so its size bounds the read;
        # /proc and similar files report 0 bytes and have more.
        limit = before.st_size if owned and before is not None and before.st_size else None
        raw = _Input(stream, name, limit, before)
        first = bytearray(_HEAD)
        head = bytes(first[:raw.fill(memoryview(first))])
        codec = _format_of(head)
        decoder: _Decoder = (_Plain(raw, head) if codec is None else _Zstd(raw, head) if codec == "zstd"
                             else _Streams(raw, codec, head))
    except BaseException:
        if owned:
            stream.close()
        raise
    return Text(raw, codec, decoder, stream if owned else None)


# ---------------------------------------------------------------------------- writing

def open_output(path: PathName) -> BinaryIO:
    """A new file at ``path`` to write bytes to, compressed as the name's extension says.

    ``.gz``: gzip (level 6); ``.bz2``: bzip2 (level 9, as ``bzip2``); ``.xz``: xz (preset
    6, as ``xz``); ``.zst``: zstd (level 3 with a checksum, as ``zstd``; needs the
    ``zstandard`` package); any other name: plain. Use it as a context manager: the
    compressed data is complete once it is closed.

    Examples
    --------
    >>> import bz2, os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "qrels.bz2")
    >>> with open_output(path) as f:
    ...     _ = f.write(b"q1 0 d1 1\\n")
    >>> bz2.decompress(open(path, "rb").read())
    b'q1 0 d1 1\\n'
    """
    if not isinstance(path, (str, bytes, os.PathLike)):
        raise TypeError(f"path must be a str, bytes or os.PathLike file name, got {type(path).__name__}")
    codec = _format_of_name(source_name(path))
    if codec == "gzip":
        return cast(BinaryIO, gzip.open(path, "wb", compresslevel=6))
    if codec == "bzip2":
        return cast(BinaryIO, bz2.open(path, "wb"))
    if codec == "xz":
        return cast(BinaryIO, lzma.open(path, "wb"))
    if codec == "zstd":
        zstandard = _zstandard(f"{source_name(path)}: writing zstd data")
        compressor = zstandard.ZstdCompressor(level=3, write_checksum=True)
        file = open(path, "wb")
        try:
            return cast(BinaryIO, compressor.stream_writer(file, closefd=True))
        except BaseException:
            file.close()
            raise
    return open(path, "wb")
