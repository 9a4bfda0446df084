"""Compressed TREC files: gzip, bzip2, xz and zstd, read streamed and written by name.

Every read is checked against an independent reference: the standard library's gzip, bz2
and lzma modules, the ``zstandard`` package, and, where installed, the command-line tools
(``gzip``, ``bzip2``, ``xz``, ``zstd``), which also say how concatenated files, padding and
trailing bytes read. zstd's tests skip without ``zstandard``, but the one that checks the
message a missing ``zstandard`` gives.
"""
import bz2
import functools
import gzip
import io
import lzma
import math
import os
import re
import shutil
import subprocess
import sys
import textwrap
import threading
import time
import tracemalloc

import numpy as np
import pytest
from test_trec_io import assert_same_rows, random_columns
from test_trec_sources import RAW, READ_STDIN, Trickle, expected_summary, reference_rows, rows_of, run_text

import rankwise as rw
from rankwise.cli import main as cli_main
from rankwise.trec import sources
from rankwise.trec.io import read_qrels, read_run, write_qrels, write_run
from rankwise.trec.sources import open_output, open_text

CODECS = ["gzip", "bzip2", "xz", "zstd"]
EXTENSION = {"gzip": ".gz", "bzip2": ".bz2", "xz": ".xz", "zstd": ".zst"}
PART = {"gzip": "member", "bzip2": "stream", "xz": "stream", "zstd": "frame"}


def zstandard():
    return pytest.importorskip("zstandard")


def compress(codec: str, data: bytes) -> bytes:
    if codec == "zstd":
        return zstandard().ZstdCompressor(level=3, write_checksum=True).compress(data)
    return {"gzip": gzip.compress, "bzip2": bz2.compress,
            "xz": functools.partial(lzma.compress, format=lzma.FORMAT_XZ, preset=1)}[codec](data)


def decompress(codec: str, data: bytes) -> bytes:
    """The reference's decompression of one stream or several (trailing garbage: their business)."""
    if codec == "zstd":
        return zstandard().ZstdDecompressor().stream_reader(io.BytesIO(data), read_across_frames=True).read()
    return {"gzip": gzip.decompress, "bzip2": bz2.decompress,
            "xz": functools.partial(lzma.decompress, format=lzma.FORMAT_XZ)}[codec](data)


def tool(codec: str) -> str:
    """The command-line tool, or skip."""
    path = shutil.which(codec)
    if path is None:
        pytest.skip(f"no {codec} command")
    return path


def tool_decompress(codec: str, data: bytes) -> subprocess.CompletedProcess:
    return subprocess.run([tool(codec), "-dc"], input=data, capture_output=True, timeout=120)


@pytest.fixture(params=CODECS)
def codec(request):
    if request.param == "zstd":
        zstandard()
    return request.param


def read_text(source, size: int = 1 << 20) -> tuple[bytes, list]:
    """All of a source's text through Text.readinto into one reused buffer, and each call's count."""
    buffer = bytearray(size)
    pieces, counts = [], []
    with open_text(source) as text:
        while True:
            got = text.readinto(memoryview(buffer))
            counts.append(got)
            if not got:
                break
            pieces.append(bytes(buffer[:got]))
    return b"".join(pieces), counts


def read_error(source, kind=ValueError) -> str:
    with pytest.raises(kind) as info:
        read_run(source)
    return str(info.value)


# ---------------------------------------------------------------------------- every format

@pytest.mark.parametrize("name", ["by-extension", "run.txt", "run"])
def test_every_format_by_extension_and_by_magic(tmp_path, codec, name):
    path = tmp_path / (f"run{EXTENSION[codec]}" if name == "by-extension" else name)
    path.write_bytes(compress(codec, RAW))
    assert rows_of(read_run(path)) == reference_rows(RAW)
    assert rows_of(read_run(str(path).encode())) == reference_rows(RAW)
    with open_text(path) as text:
        assert (text.name, text.codec, text.size) == (str(path), codec, None)
    assert read_text(path)[0] == RAW


def test_the_command_line_tools_files_read(tmp_path, codec):
    program = tool(codec)
    (tmp_path / "run").write_bytes(RAW)
    subprocess.run([program, "-kq" if codec == "zstd" else "-k", str(tmp_path / "run")], check=True, timeout=120)
    assert rows_of(read_run(tmp_path / f"run{EXTENSION[codec]}")) == reference_rows(RAW)


def test_readinto_fills_the_buffer_and_gives_0_only_at_the_end(tmp_path, codec, monkeypatch):
    monkeypatch.setattr(sources, "_INPUT_CHUNK", 777)      # many input pieces per buffer
    raw = run_text(40, 300)
    data = compress(codec, raw[:5000]) + compress(codec, raw[5000:])
    for size in (1, 1000, 4096, 1 << 22):
        text, counts = read_text(io.BytesIO(data), size)
        assert text == raw
        assert counts[-1] == 0 and all(counts[:-2]) and set(counts[:-2]) <= {size}
        assert 0 < counts[-2] <= size


def test_plain_text_is_read_straight_and_knows_its_size(tmp_path):
    path = tmp_path / "run.txt"
    path.write_bytes(RAW)
    with open_text(path) as text:
        assert (text.codec, text.size) == (None, len(RAW))
        buffer = bytearray(len(RAW) + 10)
        assert text.readinto(memoryview(buffer)) == len(RAW) and buffer[:len(RAW)] == RAW
        assert text.readinto(memoryview(buffer)) == 0 and text.readinto(memoryview(buffer)) == 0
    with open(path, "rb") as f, open_text(f) as text:      # a stream given open: no size
        assert (text.name, text.codec, text.size) == (str(path), None, None)
    assert read_text(io.BytesIO(RAW), 999)[0] == RAW
    assert read_text(path)[0] == RAW


@pytest.mark.parametrize("raw", [b"BZh9 Q0 d1 1 1 r\n", b"BZh91AY Q0 d1 1 1 r\n", b"BZh Q0 d1 1 1 r\n",
                                 b"P*M Q0 d1 1 1 r\n", b"\x1f Q0 d1 1 1 r\n"])
def test_text_that_only_starts_like_a_format_is_text(raw):
    # bzip2's "BZh" and block size digit are followed by a block's magic number: a run whose
    # first query id starts "BZh9" is text.
    assert rows_of(read_run(io.BytesIO(raw))) == reference_rows(raw)


# ---------------------------------------------------------------------------- streams

def test_file_objects_that_cannot_seek(codec):
    data = compress(codec, RAW[:1000]) + compress(codec, RAW[1000:])
    assert rows_of(read_run(Trickle(data))) == reference_rows(RAW)
    assert rows_of(read_run(io.BufferedReader(io.BytesIO(data)))) == reference_rows(RAW)
    with open_text(Trickle(data)) as text:
        assert (text.name, text.codec) == ("<stream>", codec)


def test_standard_input_through_a_real_pipe(codec):
    raw = run_text(60, 2000)
    data = compress(codec, raw)
    proc = subprocess.Popen([sys.executable, "-c", textwrap.dedent(READ_STDIN), "-"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    # The first bytes arrive one at a time: the format is told from bytes that come in pieces.
    for i in range(3):
        proc.stdin.write(data[i:i + 1])
        proc.stdin.flush()
        time.sleep(0.02)
    out, err = proc.communicate(data[3:], timeout=120)
    assert proc.returncode == 0, err.decode()
    assert out.decode().split() == expected_summary(raw).split()


def test_errors_on_standard_input_name_it(codec):
    data = compress(codec, RAW)[:-3]
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(READ_STDIN), "-"], input=data,
                            capture_output=True, timeout=120)
    assert result.returncode == 1
    assert f"ValueError: <stdin>: the {codec} data is truncated".encode() in result.stderr


def test_a_thread_reads_while_another_works(codec):
    raw = run_text(50, 2000)
    data = compress(codec, raw)
    got = []
    reader = threading.Thread(target=lambda: got.append(read_text(io.BytesIO(data), 1 << 22)[0]))
    reader.start()
    busy = sum(i * i for i in range(200_000))
    reader.join(timeout=120)
    assert busy and got == [raw]


def test_memory_stays_bounded_whatever_the_ratio(codec):
    # A line repeated compresses hundreds of times over: the decoded text (24 MB) still goes
    # out in pieces no larger than the buffer, never whole. What memory there is, is the
    # decompressor's: xz's decoder keeps its dictionary (up to 8 MiB at xz's default preset).
    raw = b"q1 Q0 d1 1 1 r\n" * 400_000                       # 6 MB
    data = compress(codec, raw) * 4
    tracemalloc.start()
    try:
        size = 0
        buffer = bytearray(1 << 18)
        with open_text(io.BytesIO(data)) as text:
            while got := text.readinto(memoryview(buffer)):
                size += got
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert size == 4 * len(raw)
    assert peak < (12 << 20 if codec == "xz" else 3 << 20), peak


# ---------------------------------------------------------------------------- concatenated

def test_concatenated_streams_read_in_turn_as_the_tools_read_them(tmp_path, codec):
    cut = RAW.index(b"\n", 4000) + 1
    data = compress(codec, RAW[:cut]) + compress(codec, b"") + compress(codec, RAW[cut:])
    path = tmp_path / f"run{EXTENSION[codec]}"
    path.write_bytes(data)
    assert rows_of(read_run(path)) == reference_rows(RAW)
    assert decompress(codec, data) == RAW
    if shutil.which(codec):
        assert tool_decompress(codec, data).stdout == RAW


def test_parts_made_by_the_tools_and_concatenated(tmp_path, codec):
    program = tool(codec)
    parts = []
    for chunk in (RAW[:3000], RAW[3000:]):
        parts.append(subprocess.run([program, "-c", "-q"], input=chunk, capture_output=True, check=True,
                                    timeout=120).stdout)
    data = b"".join(parts)
    assert tool_decompress(codec, data).stdout == RAW
    assert read_text(io.BytesIO(data))[0] == RAW


@pytest.mark.parametrize("padding, ok", [(b"", True), (b"\0" * 4, True), (b"\0" * 12, True), (b"\0" * 3, False),
                                         (b"\0" * 5, False)])
def test_xz_stream_padding(tmp_path, padding, ok):
    # xz allows zero bytes between and after streams, in multiples of 4.
    first = compress("xz", RAW[:100])
    data = first + padding + compress("xz", RAW[100:]) + padding
    path = tmp_path / "run.xz"
    path.write_bytes(data)
    if shutil.which("xz"):
        assert (tool_decompress("xz", data).returncode == 0) == ok
    if ok:
        assert rows_of(read_run(path)) == reference_rows(RAW)
    else:
        assert read_error(path) == (f"{path}: the xz stream padding at byte {len(first):,} is {len(padding)} zero "
                                    "bytes, not a multiple of 4; the file is corrupt")


def test_zstd_skippable_frames():
    zstandard()
    def skippable(payload: bytes, kind: int = 0) -> bytes:
        return bytes([0x50 + kind]) + b"\x2a\x4d\x18" + len(payload).to_bytes(4, "little") + payload

    data = (skippable(b"made by a tool", 7) + compress("zstd", RAW[:500]) + skippable(b"")
            + compress("zstd", RAW[500:]) + skippable(b"x" * 1000, 15))
    assert decompress("zstd", data) == RAW
    if shutil.which("zstd"):
        assert tool_decompress("zstd", data).stdout == RAW
    text, _ = read_text(io.BytesIO(data))
    assert text == RAW
    # Only skippable frames: zstd data (told by the first one's magic) with no text.
    assert read_text(io.BytesIO(skippable(b"abc")))[0] == b""
    message = read_error(io.BytesIO(skippable(b"abc") + compress("zstd", RAW)[:-2]))
    assert "<stream>: the zstd data is truncated (it ends inside a frame" in message
    message = read_error(io.BytesIO(data[:-5]))          # inside a skippable frame
    assert "<stream>: the zstd data is truncated" in message


# ---------------------------------------------------------------------------- bad data

def bad_cases(codec: str):
    good = compress(codec, RAW)
    middle = len(good) // 2
    flipped = good[:middle] + bytes(b ^ 0x55 for b in good[middle:middle + 8]) + good[middle + 8:]
    return good, [
        (good[:middle], rf"the {codec} data is truncated \(it ends inside a {PART[codec]}, after {middle:,} bytes\); "
                        "the file is incomplete"),
        (good[:-1], rf"the {codec} data is truncated"),
        (good + b"trailing text", rf"the data after the end of the {codec} stream \(at byte {len(good):,}\) is not "
                                  rf"{codec}; the file has trailing garbage"),
        (good + good[:3], rf"the {codec} data is truncated"),
        # Bad data in the middle; it may also end the compressed stream's blocks early.
        (flipped, rf"cannot decompress as {codec} \(.+\); the file is corrupt$|the {codec} data is truncated"),
        (compress(codec, b""), r"no run lines found: the decompressed data is empty"),
        (compress(codec, b"# a comment\n\n"), r"no run lines found \(only comments and blank lines\)"),
        (compress(codec, b"q Q0 d 1 1 r\n\0"), r"line 2: NUL byte"),
    ]


@pytest.mark.parametrize("case", range(8))
def test_bad_data_is_a_valueerror_naming_the_file(tmp_path, codec, case):
    _, cases = bad_cases(codec)
    data, message = cases[case]
    for name in (f"run{EXTENSION[codec]}", "run.txt"):
        path = tmp_path / name
        path.write_bytes(data)
        error = read_error(path)
        assert error.startswith(f"{path}: ") or error.startswith(f"{path}, line"), error
        assert re.search(message, error), error
    # The same bytes through a stream that cannot seek.
    error = read_error(Trickle(data))
    assert error.startswith("<stream>") and re.search(message, error), error


def test_the_tools_agree_that_bad_data_is_bad(codec):
    good, cases = bad_cases(codec)
    if shutil.which(codec) is None:
        pytest.skip(f"no {codec} command")
    for data, message in cases[:5]:
        result = tool_decompress(codec, data)
        # bzip2 and gzip warn of trailing garbage and go on (bzip2 with status 0): rankwise refuses it.
        assert result.returncode != 0 or "trailing garbage" in message, (message, result)


def test_zero_padding_after_the_data(tmp_path, codec):
    # gzip reads zero bytes after a member as padding, and xz in multiples of 4; bzip2 and
    # zstd take nothing after their data.
    data = compress(codec, RAW) + b"\0" * 8
    path = tmp_path / f"run{EXTENSION[codec]}"
    path.write_bytes(data)
    if codec in ("gzip", "xz"):
        assert rows_of(read_run(path)) == reference_rows(RAW)
    else:
        assert f"is not {codec}; the file has trailing garbage" in read_error(path)
    if shutil.which(codec):
        # bzip2 warns of "trailing garbage" and exits 0; zstd refuses it.
        assert (tool_decompress(codec, data).returncode == 0) == (codec != "zstd")


def test_every_flipped_byte_is_an_error_or_what_the_reference_reads(tmp_path, codec):
    # No decompressor's own error escapes: a ValueError naming the file, or the rows the
    # reference reads (a flipped byte in a field the format ignores, such as gzip's mtime).
    raw = b"q1 Q0 d1 1 2.5 r\nq1 Q0 d2 2 1.5 r\n"
    data = gzip.compress(raw, mtime=0) if codec == "gzip" else compress(codec, raw)
    path = tmp_path / f"run{EXTENSION[codec]}"
    for i in range(len(data)):
        for flip in (0x01, 0x80):
            bad = data[:i] + bytes([data[i] ^ flip]) + data[i + 1:]
            path.write_bytes(bad)
            try:
                expected = decompress(codec, bad)
            except Exception:
                expected = None
            try:
                got = rows_of(read_run(path))
            except ValueError as error:
                assert str(error).startswith(f"{path}"), error
                continue
            assert expected is not None and got == reference_rows(expected), (i, flip)


def test_every_cut_is_an_error_or_a_whole_part(tmp_path, codec):
    parts = [compress(codec, RAW[:200]), compress(codec, RAW[200:400])]
    data = b"".join(parts)
    path = tmp_path / f"run{EXTENSION[codec]}"
    magic = len(sources._MAGIC[codec]) + (1 if codec == "bzip2" else 0)
    for cut in range(1, len(data)):
        path.write_bytes(data[:cut])
        if cut == len(parts[0]):
            assert rows_of(read_run(path)) == reference_rows(RAW[:200])
            continue
        error = read_error(path)
        assert error.startswith(f"{path}"), error
        if cut >= magic:
            assert f"the {codec} data is truncated" in error, (cut, error)
        else:
            assert f"the name ends in {EXTENSION[codec]} but the data is not {codec}" in error, (cut, error)


@pytest.mark.parametrize("extension", list(EXTENSION.values()))
def test_a_name_that_says_another_format(tmp_path, extension, codec):
    expected = {v: k for k, v in EXTENSION.items()}[extension]
    path = tmp_path / f"run{extension}"
    path.write_bytes(RAW)
    assert read_error(path) == (f"{path}: the name ends in {extension} but the data is not {expected} "
                                f"(no {expected} header)")
    path.write_bytes(compress(codec, RAW))
    if codec == expected:
        assert rows_of(read_run(path)) == reference_rows(RAW)
    else:
        assert read_error(path) == (f"{path}: the name ends in {extension} but the data is not {expected} "
                                    f"(it is {codec})")
    path.write_bytes(b"")
    assert read_error(path) == f"{path}: no run lines found: the file is empty"


def test_text_checks_only_after_reading_to_the_end(tmp_path, monkeypatch):
    path = tmp_path / "run.gz"
    path.write_bytes(RAW)
    with open_text(path) as text:                          # not read to the end: no check
        text.readinto(memoryview(bytearray(10)))
    with pytest.raises(ValueError, match="the name ends in .gz"):
        read_text(path)
    with pytest.raises(KeyError), open_text(path) as text:  # an error inside: it passes, unchanged
        text.readinto(memoryview(bytearray(len(RAW) + 1)))
        text.readinto(memoryview(bytearray(1)))
        raise KeyError("mine")
    with open(path, "rb") as f:
        with open_text(f) as text:
            text.readinto(memoryview(bytearray(10)))
        assert not f.closed                                # a stream given open is left open
    # What it opened, it closes, however the block ends.
    opened = []
    real_open = open

    def tracking_open(*args, **kwargs):
        opened.append(real_open(*args, **kwargs))
        return opened[-1]

    monkeypatch.setattr(sources, "open", tracking_open, raising=False)
    with pytest.raises(KeyError), open_text(path):
        raise KeyError("mine")
    with pytest.raises(ValueError, match="the name ends in .gz"):
        read_text(path)
    assert len(opened) == 2 and all(f.closed for f in opened)


@pytest.mark.parametrize("change", ["truncate", "rewrite"])
def test_a_compressed_file_changed_during_the_read_is_an_oserror(tmp_path, monkeypatch, codec, change):
    # The change comes between two chunks of compressed data. It leaves data that is
    # truncated or corrupt, but the change, the cause, is what is said.
    monkeypatch.setattr(sources, "_INPUT_CHUNK", 512)
    path = tmp_path / f"run{EXTENSION[codec]}"
    data = compress(codec, run_text(20, 200))
    path.write_bytes(data)
    into = sources._Input.into
    calls = []

    def changing_into(self, view):
        if len(calls) == 2:
            if change == "truncate":
                os.truncate(path, len(data) // 2)
            else:
                with open(path, "r+b") as f:
                    f.seek(len(data) // 2)
                    f.write(b"\xff" * 64)
                info = os.stat(path)
                os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns + 10**9))
        calls.append(len(view))
        return into(self, view)

    monkeypatch.setattr(sources._Input, "into", changing_into)
    after = len(data) // 2 if change == "truncate" else len(data)
    with pytest.raises(OSError, match=rf"{path.name}: the file changed while being read \({len(data):,} bytes "
                                      rf"when opened, {after:,} after reading, [\d,]+ read\)"):
        read_run(path)


# ---------------------------------------------------------------------------- zstandard missing

def test_without_zstandard_the_error_says_what_to_install(tmp_path, monkeypatch, capsys):
    data = b"\x28\xb5\x2f\xfd" + b"\0" * 20             # zstd's magic: no zstandard needed to make it
    monkeypatch.setitem(sys.modules, "zstandard", None)  # import zstandard now fails
    path = tmp_path / "run.bin"
    path.write_bytes(data)
    install = re.escape('pip install "rankwise[zstd]"')
    with pytest.raises(ImportError, match=rf"^{re.escape(str(path))}: reading zstd data needs the zstandard "
                                          rf"package, an optional extra of rankwise: {install}$"):
        rw.Run.read(path)
    with pytest.raises(ImportError, match=rf"<stream>: reading zstd data .*{install}"):
        read_qrels(io.BytesIO(data))
    run = rw.Run.from_dict({"q": {"d": 1.0}})
    with pytest.raises(ImportError, match=rf"out\.zst: writing zstd data .*{install}"):
        run.write(tmp_path / "out.zst")
    assert not (tmp_path / "out.zst").exists()
    # The command line says it as an error of the argument, not a traceback.
    qrels = tmp_path / "qrels.txt"
    qrels.write_bytes(b"q 0 d 1\n")
    assert cli_main(["eval", str(qrels), str(path)]) == 2
    assert capsys.readouterr().err == (f"rankwise eval: error: argument run: {path}: reading zstd data needs the "
                                       'zstandard package, an optional extra of rankwise: pip install "rankwise[zstd]"\n')
    # Other formats need no zstandard.
    path.write_bytes(compress("xz", RAW))
    assert rows_of(read_run(path)) == reference_rows(RAW)


# ---------------------------------------------------------------------------- writing

SCORES = [1 / 3, 1e-300, -0.0, 0.0, 5e-324, 1.7976931348623157e308, -1e308, 2.0**60, 0.1, -7.25, math.pi]


def test_writes_are_compressed_by_name_and_read_back_bit_for_bit(tmp_path, codec):
    rng = np.random.default_rng(17)
    scores = np.concatenate([rng.standard_normal(400) * 10.0 ** rng.integers(-300, 300, 400), SCORES])
    columns = random_columns(5, len(scores), scores)
    write_run(tmp_path / "run.txt", columns, "r\u00e9sum\u00e9")
    plain = (tmp_path / "run.txt").read_bytes()
    path = tmp_path / f"run.txt{EXTENSION[codec]}"
    write_run(path, columns, "r\u00e9sum\u00e9")
    data = path.read_bytes()
    assert data.startswith(sources._MAGIC[codec]) and decompress(codec, data) == plain
    if shutil.which(codec):
        assert tool_decompress(codec, data).stdout == plain
    again = read_run(path)
    assert_same_rows(columns, again)
    assert again.run_name == "r\u00e9sum\u00e9"
    relevance = np.concatenate([rng.integers(-1, 5, 300), rng.random(50) * 4, [1e-300, 1 / 3, 2.0**60]])
    judged = random_columns(6, len(relevance), relevance)
    write_qrels(tmp_path / f"qrels{EXTENSION[codec]}", judged)
    assert_same_rows(judged, read_qrels(tmp_path / f"qrels{EXTENSION[codec]}"))


def test_run_and_qrels_write_by_name(tmp_path, codec):
    ids = ["q\u00e9", "\u4e2d", "q3"]
    run = rw.Run.from_arrays(np.repeat(ids, 4), [f"d{i}\u00df" for i in range(12)], np.array(SCORES + [0.5]),
                             name="mine")
    qrels = rw.Qrels.from_arrays(np.repeat(ids, 2), ["d1\u00df", "d2", "d3", "d4", "d5", "d6"], [1, 0, 2, 1, 3, 0.5])
    run.write(tmp_path / f"r{EXTENSION[codec]}")
    qrels.write(tmp_path / f"q{EXTENSION[codec]}")
    assert decompress(codec, (tmp_path / f"r{EXTENSION[codec]}").read_bytes()).startswith("q\u00e9 Q0 d0".encode())
    again = rw.Run.read(tmp_path / f"r{EXTENSION[codec]}")
    assert again.name == "mine"
    bits = [{q: {d: np.float64(s).tobytes() for d, s in docs.items()} for q, docs in r.to_dict().items()}
            for r in (run, again)]
    assert bits[0] == bits[1]
    assert rw.Qrels.read(tmp_path / f"q{EXTENSION[codec]}").to_dict() == qrels.to_dict()


def test_open_output(tmp_path, codec):
    path = tmp_path / f"out{EXTENSION[codec]}"
    with open_output(path) as f:
        f.write(RAW[:100])
        f.write(RAW[100:])
    assert decompress(codec, path.read_bytes()) == RAW
    with open_output(os.fsencode(tmp_path / "out.txt")) as f:
        f.write(RAW)
    assert (tmp_path / "out.txt").read_bytes() == RAW
    with pytest.raises(TypeError, match="path must be a str, bytes or os.PathLike file name, got int"):
        open_output(3)
