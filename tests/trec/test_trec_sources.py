"""Where TREC files come from: paths, standard input, pipes, FIFOs, file objects, gzip.

Every read is checked against an independent reference: Python's own gzip module for
the decompression and a plain-Python line parser for the rows. A file that changes while
it is read must give an OSError naming it (or a correct result), never a signal.
"""
import gzip
import io
import os
import re
import subprocess
import sys
import textwrap
import threading
import time

import pytest

import rankwise as rw
from rankwise.trec import parsing as _parsing
from rankwise.trec import sources as _sources
from rankwise.trec.io import read_qrels, read_run

needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no os.mkfifo (Windows)")


def run_text(n_queries: int, n_docs: int, name: str = "r") -> bytes:
    return "".join(f"q{q} Q0 d{d} {d + 1} {n_docs - d}.5 {name}\n"
                   for q in range(n_queries) for d in range(n_docs)).encode()


def reference_rows(raw: bytes) -> list:
    """(qid, docno, score) of each run line, by plain Python."""
    rows = []
    for line in raw.split(b"\n"):
        fields = line.split()
        if fields and not fields[0].startswith(b"#"):
            rows.append((fields[0].decode(), fields[2].decode(), float(fields[4])))
    return rows


def rows_of(columns) -> list:
    queries, docs = columns.queries.to_numpy(), columns.docs.to_numpy()
    return list(zip(queries[columns.query_codes].tolist(), docs[columns.doc_codes].tolist(),
                    columns.values.tolist(), strict=True))


RAW = run_text(7, 50)
QRELS = b"".join(f"q{q} 0 d{d} {d % 3}\n".encode() for q in range(7) for d in range(0, 50, 4))


# ---------------------------------------------------------------------------- file objects

def test_binary_file_objects_are_read_from_their_position(tmp_path):
    path = tmp_path / "run.txt"
    path.write_bytes(RAW)
    assert rows_of(read_run(io.BytesIO(RAW))) == reference_rows(RAW)
    with open(path, "rb") as f:
        assert rows_of(read_run(f)) == reference_rows(RAW)
        assert not f.closed                       # a stream we were given stays open
    with open(path, "rb") as f:
        skip = RAW.index(b"\n", len(RAW) // 2) + 1
        f.seek(skip)
        assert rows_of(read_run(f)) == reference_rows(RAW[skip:])


def test_text_streams_use_their_buffer_or_are_refused():
    text = io.TextIOWrapper(io.BytesIO(RAW), encoding="utf-8")
    assert rows_of(read_run(text)) == reference_rows(RAW)
    with pytest.raises(TypeError, match=r"<stream> is a text stream without a binary buffer; pass a path"):
        read_run(io.StringIO(RAW.decode()))


def test_objects_with_only_read_and_bad_sources():
    class Reader:
        name = "custom"

        def __init__(self, data):
            self.data = io.BytesIO(data)

        def read(self, n):
            return self.data.read(min(n, 1000))     # short reads

    assert rows_of(read_run(Reader(gzip.compress(RAW)))) == reference_rows(RAW)

    class Texty(Reader):
        def read(self, n):
            return super().read(n).decode()

    with pytest.raises(TypeError, match=r"custom: read\(\) returned str, not bytes"):
        read_run(Texty(RAW))

    class Generous(Reader):
        def read(self, n):
            return b"q Q0 d 1 1 r\n" * (n + 1)

    with pytest.raises(ValueError, match=r"custom: read\(\d+\) returned \d+ bytes, more than asked for"):
        read_run(Generous(RAW))
    with pytest.raises(TypeError, match=r"path must be a path .* '-' for standard input, or a binary file object, "
                                        r"got int"):
        read_run(3)
    with pytest.raises(TypeError, match="got NoneType"):
        rw.Qrels.read(None)


class Trickle(io.RawIOBase):
    """A stream of ``data`` that cannot seek and gives one byte per read."""

    def __init__(self, data: bytes):
        self.data = io.BytesIO(data)

    def readable(self):
        return True

    def seekable(self):
        return False

    def readinto(self, view):
        chunk = self.data.read(1)
        view[:len(chunk)] = chunk
        return len(chunk)


def test_gzip_stream_needs_no_seek_and_reads_every_member(tmp_path):
    # Members as `cat a.gz b.gz` makes them, zero padding after them, fed one byte at a time.
    cut = RAW.index(b"\n", 1000) + 1
    data = gzip.compress(RAW[:cut]) + gzip.compress(RAW[cut:]) + gzip.compress(b"") + b"\0" * 5
    assert gzip.decompress(data) == RAW
    assert rows_of(read_run(Trickle(data))) == reference_rows(RAW)
    (tmp_path / "run.gz").write_bytes(data)
    assert rows_of(read_run(tmp_path / "run.gz")) == reference_rows(RAW)


def test_big_gzip_output_in_many_pieces(tmp_path, monkeypatch):
    # Small chunks and output pieces: every branch of the decompression loop, many times.
    monkeypatch.setattr(_parsing, "_BLOCK", 1000)
    monkeypatch.setattr(_sources, "_INPUT_CHUNK", 333)
    raw = run_text(40, 300)
    (tmp_path / "run.gz").write_bytes(gzip.compress(raw, compresslevel=9) + gzip.compress(raw[:0]))
    assert rows_of(read_run(tmp_path / "run.gz")) == reference_rows(raw)
    assert rows_of(read_run(io.BytesIO(raw))) == reference_rows(raw)


# ---------------------------------------------------------------------------- bad files

# mtime=0: gzip headers (and so the test ids made of these bytes) must not depend on when the
# module is collected, or pytest-xdist's workers would collect different tests.
GOOD_GZ = gzip.compress(RAW, mtime=0)


@pytest.mark.parametrize("data, message", [
    (b"\x1f\x8bnot really gzip", r"cannot decompress as gzip \(.*\); the file is corrupt"),
    (GOOD_GZ[:3] + b"\xff" + GOOD_GZ[4:], r"cannot decompress as gzip \(.*\); the file is corrupt"),   # flags
    (GOOD_GZ[:-8] + bytes([GOOD_GZ[-8] ^ 1]) + GOOD_GZ[-7:], r"cannot decompress as gzip \(incorrect data check\)"),
    (GOOD_GZ[:-1] + bytes([GOOD_GZ[-1] ^ 1]), r"cannot decompress as gzip \(incorrect length check\)"),
    (GOOD_GZ[:40] + b"\xff" * 40 + GOOD_GZ[80:], r"cannot decompress as gzip \(.*\); the file is corrupt"),
    (GOOD_GZ[:len(GOOD_GZ) // 2], r"the gzip data is truncated \(it ends inside a member"),
    (GOOD_GZ[:-1], r"the gzip data is truncated"),
    (GOOD_GZ[:5], r"the gzip data is truncated"),
    (GOOD_GZ[:2], r"the gzip data is truncated"),
    (GOOD_GZ + b"\x1f", r"the gzip data is truncated"),
    (GOOD_GZ + b"trailing text", rf"the data after the end of the gzip stream \(at byte {len(GOOD_GZ):,}\) is not "
                                 "gzip; the file has trailing garbage"),
    (GOOD_GZ + b"\0\0x", r"\(at byte [\d,]+\) is not gzip; the file has trailing garbage"),
    (b"", r"no run lines found: the file is empty"),
    (gzip.compress(b"", mtime=0), r"no run lines found: the decompressed data is empty"),
    (gzip.compress(b"# a comment\n\n", mtime=0), r"no run lines found \(only comments and blank lines\)"),
    (RAW, r"the name ends in \.gz but the data is not gzip"),
    (gzip.compress(b"q Q0 d 1 1 r\n\0", mtime=0), r"run\.gz, line 2: NUL byte"),
    (gzip.compress("q Q0 caf\xe9 1 1 r\n".encode("latin-1"), mtime=0), r"run\.gz, line 1: docno 'caf\\xe9' is not valid UTF-8"),
])
def test_bad_gzip_files_name_the_file(tmp_path, data, message):
    path = tmp_path / "run.gz"
    path.write_bytes(data)
    with pytest.raises(ValueError) as info:
        read_run(path)
    assert str(info.value).startswith(f"{path}")
    assert re.search(message, str(info.value)), info.value
    # The same bytes through a stream that cannot seek (named `<stream>`; without a .gz
    # name, plain text is plain text there).
    if data[:2] == b"\x1f\x8b":
        with pytest.raises(ValueError) as info:
            read_run(io.BufferedReader(io.BytesIO(data)))
        assert str(info.value).startswith("<stream>")
        assert re.search(message.replace(r"run\.gz", "<stream>"), str(info.value)), info.value


def test_paths_that_are_not_readable_files(tmp_path):
    with pytest.raises(FileNotFoundError, match="absent.txt"):
        read_run(tmp_path / "absent.txt")
    with pytest.raises(IsADirectoryError if os.name != "nt" else PermissionError, match=str(tmp_path.name)):
        read_qrels(tmp_path)


@pytest.mark.skipif(os.name == "nt" or os.geteuid() == 0, reason="root (or Windows) reads any file")
def test_file_without_read_permission(tmp_path):
    path = tmp_path / "secret.run"
    path.write_bytes(RAW)
    path.chmod(0)
    with pytest.raises(PermissionError, match="secret.run"):
        read_run(path)


# ---------------------------------------------------------------------------- pipes

READ_STDIN = """
    import sys
    import rankwise as rw
    run = rw.Run.read(sys.argv[1])
    print(len(run), run.n_queries, sum(sum(d.values()) for d in run.to_dict().values()))
"""


def expected_summary(raw: bytes) -> str:
    rows = reference_rows(raw)
    return f"{len(rows)} {len({q for q, _, _ in rows})} {sum(v for _, _, v in rows)}"


@pytest.mark.parametrize("source", ["-", "/dev/stdin"])
@pytest.mark.parametrize("compress", [False, True])
def test_standard_input_through_a_real_pipe(source, compress):
    if source == "/dev/stdin" and not os.path.exists("/dev/stdin"):
        pytest.skip("no /dev/stdin")
    raw = run_text(60, 2000)             # 2 MB: many pipe buffers, and growth of the buffer
    data = gzip.compress(raw) if compress else raw
    proc = subprocess.Popen([sys.executable, "-c", textwrap.dedent(READ_STDIN), source], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    # A first write of one byte: gzip is recognised from bytes that arrive in pieces.
    proc.stdin.write(data[:1])
    proc.stdin.flush()
    time.sleep(0.05)
    out, err = proc.communicate(data[1:], timeout=120)
    assert proc.returncode == 0, err.decode()
    assert out.decode().split() == expected_summary(raw).split()


def test_standard_input_errors_name_it():
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(READ_STDIN), "-"], input=GOOD_GZ[:-3],
                            capture_output=True, timeout=120)
    assert result.returncode == 1
    assert b"ValueError: <stdin>: the gzip data is truncated" in result.stderr


@needs_fifo
@pytest.mark.parametrize("compress", [False, True])
def test_fifo(tmp_path, compress):
    raw = run_text(30, 1000)
    fifo = tmp_path / "run.fifo"
    os.mkfifo(fifo)

    def write():
        with open(fifo, "wb") as f:
            f.write(gzip.compress(raw) if compress else raw)

    writer = threading.Thread(target=write)
    writer.start()
    try:
        assert rows_of(read_run(fifo)) == reference_rows(raw)
    finally:
        writer.join(timeout=60)


# ---------------------------------------------------------------------------- changes while reading

@pytest.mark.parametrize("change", ["truncate", "append", "rewrite"])
def test_a_file_changed_during_the_read_is_an_oserror(tmp_path, monkeypatch, change):
    # The change happens between two blocks of the read, deterministically.
    monkeypatch.setattr(_parsing, "_BLOCK", 4096)
    path = tmp_path / "run.txt"
    path.write_bytes(RAW)
    calls = []
    into = _sources._Input.into

    def changing_into(self, view):
        if len(calls) == 1:
            if change == "truncate":
                os.truncate(path, len(RAW) // 2)
            elif change == "append":
                with open(path, "ab") as f:
                    f.write(b"q9 Q0 d9 1 1 r\n")
            else:
                info = os.stat(path)
                os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns + 10**9))
        calls.append(len(view))
        return into(self, view)

    monkeypatch.setattr(_sources._Input, "into", changing_into)
    with pytest.raises(OSError, match=rf"{path.name}: the file changed while being read \(.*\); read it again"):
        read_run(path)
    # gzip: the change comes between two chunks of compressed data.
    path.write_bytes(GOOD_GZ)
    calls.clear()
    with pytest.raises(OSError, match=rf"{path.name}: the file changed while being read"):
        rw.Run.read(path)


TRUNCATED_READS = """
    import sys
    import rankwise as rw
    path, full, half = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    for _ in range(int(sys.argv[4])):
        try:
            rows = len(rw.Run.read(path))
        except OSError as error:
            assert "changed while being read" in str(error) and path in str(error), error
            print("changed", flush=True)
        except ValueError as error:
            # A file caught half restored, and still for the whole read: its content then
            # ends inside a line, or inside the gzip stream. An error naming the file.
            assert str(error).startswith(path), error
            print("partial", flush=True)
        else:
            assert half <= rows <= full, rows
            print("rows", rows, flush=True)
"""


@pytest.mark.parametrize("compress", [False, True])
def test_truncating_a_file_while_it_is_read_never_kills_the_reader(tmp_path, compress):
    # Another process shrinks the file to a line boundary and restores it, over and over,
    # while a subprocess reads it: each read gives the rows of the file as it was during
    # the read, an OSError (it changed) or a ValueError (it ended inside a line while being
    # restored) naming it. A memory map of the file died of SIGBUS here.
    raw = run_text(100, 1500)                                      # 4.5 MB
    half = raw.index(b"\n", len(raw) // 2) + 1
    path = tmp_path / ("run.gz" if compress else "run.txt")
    body = gzip.compress(raw, compresslevel=1) if compress else raw
    cut = len(body) // 2 if compress else half
    path.write_bytes(body)
    full_rows, half_rows = len(reference_rows(raw)), len(reference_rows(raw[:half]))
    stop = threading.Event()

    def truncate_and_restore():
        with open(path, "r+b") as f:
            while not stop.is_set():
                f.truncate(cut)
                f.seek(cut)
                f.write(body[cut:])
                f.flush()

    proc = subprocess.Popen([sys.executable, "-c", textwrap.dedent(TRUNCATED_READS), str(path), str(full_rows),
                             str(half_rows), "25"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    truncater = threading.Thread(target=truncate_and_restore)
    truncater.start()
    try:
        out, err = proc.communicate(timeout=300)
    finally:
        stop.set()
        truncater.join()
    assert proc.returncode >= 0, f"killed by signal {-proc.returncode}"
    assert proc.returncode == 0, err.decode()
    assert out.decode().count("\n") == 25


def test_a_file_claiming_more_bytes_than_it_holds_is_an_oserror_naming_it(tmp_path, monkeypatch):
    # A size no process could allocate (as a sparse file of exabytes would report): the reader
    # takes the size as a hint only, reads what the file holds and finds it short.
    path = tmp_path / "huge.run"
    path.write_bytes(RAW)
    real_fstat = os.fstat

    def huge_fstat(fd):
        info = list(real_fstat(fd))
        info[6] = 2**62                               # st_size
        return os.stat_result(info)

    monkeypatch.setattr(_sources.os, "fstat", huge_fstat)
    with pytest.raises(OSError, match=rf"huge\.run: the file changed while being read \({2**62:,} bytes when"):
        read_run(path)


def test_only_the_string_dash_is_standard_input(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "-").write_bytes(RAW)
    head = b"".join(RAW.splitlines(keepends=True)[:3])
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(gzip.compress(head))))
    assert rows_of(read_run("-")) == reference_rows(head) and len(reference_rows(head)) == 3
    assert rows_of(read_run(tmp_path / "-")) == rows_of(read_run("./-")) == reference_rows(RAW)
    monkeypatch.setattr(sys, "stdin", io.StringIO("q Q0 d 1 1 r\n"))
    with pytest.raises(TypeError, match="<stdin> is a text stream without a binary buffer"):
        read_run("-")
    monkeypatch.setattr(sys, "stdin", None)
    with pytest.raises(ValueError, match="'-' means standard input, but this process has none"):
        rw.Qrels.read("-")


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="no /proc")
def test_files_that_report_no_size_are_read_whole():
    # /proc files say 0 bytes and have more: their content is parsed, not called changed.
    with pytest.raises(ValueError, match=r"^/proc/self/status, line 1: a run line needs at least 6 fields"):
        read_run("/proc/self/status")
