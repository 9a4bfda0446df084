"""The process that runs hostile-input cases, one isolated child process per case.

Run as a script (``python _hostile_worker.py``) it imports numpy, scipy, pandas and
rankwise once, builds the fixtures of :func:`namespace`, and then serves cases: it
reads one JSON spec per line on stdin, runs the case in a forked child, and writes one
JSON outcome per line on stdout. A child that segfaults, aborts, runs out of its
address space or hangs is reported as such (``"status": "signal"`` / ``"timeout"``);
the worker itself never runs a case, so it survives them all.

``python _hostile_worker.py --once RESULT_PATH`` runs one spec (read from stdin) in
that fresh interpreter and writes its outcome to ``RESULT_PATH``: the fallback where
``os.fork`` does not exist (Windows).

A spec is data, never a pickled object: ``setup`` (statements), ``call`` (an
expression), ``check`` (statements run with ``result`` bound, when the call returned),
``timeout`` (seconds), ``memory`` (bytes of address space the child may add, Linux),
``stdin`` (text fed to the child's standard input; /dev/null otherwise).

An outcome: ``status`` is "returned", "raised", "signal", "timeout" or "error" (the
child died without reporting); "raised" carries ``type`` (``module.QualName``) and
``message``; "returned" carries ``repr`` and ``check`` (None, or the failure of the
check); every child outcome carries ``warnings`` (every warning emitted, as text).
"""
from __future__ import annotations

import json
import os
import sys
import traceback
import warnings

_MESSAGE_LIMIT = 4000
_REPR_LIMIT = 600
_STDERR_TAIL = 3000


# --------------------------------------------------------------------------------------
# Fixtures: small valid inputs every case builds on, and helpers for checks
# --------------------------------------------------------------------------------------

def _write(path: str, data: bytes) -> str:
    with open(path, "wb") as f:
        f.write(data)
    return path


def namespace(folder: str, heavy: bool = True) -> dict:
    """Names a case's source can use. Built once, before any fork: no thread may start here.

    ``heavy``: with pandas (its frames and ``pd``); a light worker imports numpy and rankwise only.
    """
    import gzip

    import numpy as np

    import rankwise as rw

    ns: dict = {"np": np, "rw": rw, "os": os, "math": __import__("math")}
    # Lists: 2 queries of 3 items (dense), the same as 1-D with offsets or ids.
    # Every score is exact in float16, so a cast to any float dtype keeps the ranking.
    ns["T"] = [[0, 1, 2], [1, 0, 0]]
    ns["S"] = [[0.5, 0.25, 0.125], [0.75, 0.5, 0.5]]
    ns["T1"] = [0, 1, 2, 1, 0, 0]
    ns["S1"] = [0.5, 0.25, 0.125, 0.75, 0.5, 0.5]
    ns["IP1"] = [0, 3, 6]
    ns["Q1"] = ["a", "a", "a", "b", "b", "b"]
    ns["D2"] = [["d1", "d2", "d3"], ["d1", "d2", "d3"]]
    # One positive against candidates.
    ns["POS"] = [0.25, 0.5]
    ns["NEG"] = [[0.125, 0.25, 0.875], [0.5, 0.25, 0.75]]
    ns["NEG1"] = [0.125, 0.25, 0.875, 0.5, 0.25]
    ns["NIP"] = [0, 3, 5]
    ns["SC"] = [[0.25, 0.125, 0.25, 0.875], [0.5, 0.5, 0.25, 0.75]]
    ns["TI"] = [0, 1]
    # TREC: 2 queries, as dicts and as files.
    qrels = {"q1": {"d1": 1, "d2": 0, "d3": 1, "d4": 1}, "q2": {"d1": 2, "d5": 0}}
    run = {"q1": {"d1": 0.9, "d2": 0.8, "d3": 0.7, "d9": 0.6}, "q2": {"d5": 0.5, "d1": 0.4}}
    ns["QD"], ns["RD"] = qrels, run
    qrels_text = "".join(f"{q} 0 {d} {r}\n" for q, docs in qrels.items() for d, r in docs.items())
    run_text = "".join(f"{q} Q0 {d} {i + 1} {s} sys\n" for q, docs in run.items()
                       for i, (d, s) in enumerate(docs.items()))
    ns["QRELS_TEXT"], ns["RUN_TEXT"] = qrels_text, run_text
    ns["QRELS_PATH"] = _write(os.path.join(folder, "x.qrels"), qrels_text.encode())
    ns["RUN_PATH"] = _write(os.path.join(folder, "x.run"), run_text.encode())
    ns["RUN_GZ_PATH"] = _write(os.path.join(folder, "x.run.gz"), gzip.compress(run_text.encode()))
    whole = gzip.compress(run_text.encode() * 50)
    ns["TRUNCATED_GZ_PATH"] = _write(os.path.join(folder, "truncated.run.gz"), whole[:len(whole) // 2])
    ns["CORRUPT_GZ_PATH"] = _write(os.path.join(folder, "corrupt.run.gz"),
                                   whole[:10] + bytes(range(256)) * 4)
    ns["GARBAGE_GZ_PATH"] = _write(os.path.join(folder, "garbage.run.gz"), b"\x1f\x8b" + bytes(range(256)))
    ns["BINARY_PATH"] = _write(os.path.join(folder, "binary.run"), bytes(range(256)) * 4)
    ns["EMPTY_PATH"] = _write(os.path.join(folder, "empty.run"), b"")
    ns["LATIN1_PATH"] = _write(os.path.join(folder, "latin1.run"), "q\xe9 Q0 d1 1 0.5 sys\n".encode("latin-1"))
    ns["MISSING_PATH"] = os.path.join(folder, "missing.run")
    ns["DIR_PATH"] = folder
    ns["OUT_DIR"] = folder
    ns["NO_DIR_PATH"] = os.path.join(folder, "no", "such", "dir", "out.run")

    def tmp_path(name: str) -> str:
        """A fresh path for this child (children may run one after another in the same folder)."""
        return os.path.join(folder, f"{os.getpid()}-{name}")

    ns["tmp_path"] = tmp_path
    ns["QRELS"] = rw.Qrels.from_dict(qrels)
    ns["RUN"] = rw.Run.from_dict(run, name="sys")
    ns["RK"] = rw.Ranks.from_ranks([1, 2, 3], n_candidates=[3, 5, 10])
    # Per-query values of two systems (paired), and evaluated systems.
    rng = np.random.default_rng(21)
    # 70 queries: 2**70 sign patterns, so the randomization test samples (seed and n_resamples matter).
    ns["A"] = np.round(rng.random(70), 3)
    ns["B"] = np.round(rng.random(70), 3)
    y_true = rng.integers(0, 3, (8, 6))
    ns["RES_A"] = rw.evaluate(y_true, rng.random((8, 6)), ["MRR", "nDCG@3"])
    ns["RES_B"] = rw.evaluate(y_true, rng.random((8, 6)), ["MRR", "nDCG@3"])
    ns["TR"] = rw.trec_eval(ns["QRELS"], ns["RUN"], ["map", "P.2", "ndcg"])
    try:
        if not heavy:
            raise ImportError
        import pandas as pd
    except ImportError:
        ns["pd"] = None
    else:
        ns["pd"] = pd
        ns["QDF"] = pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["d1", "d2", "d1"], "relevance": [1, 0, 2]})
        ns["RDF"] = pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["d1", "d2", "d1"],
                                  "score": [0.5, 0.25, 0.75]})
    ns.update(same=same, close=close, finite=finite, in_unit=in_unit, feed=feed, put=put, strided=strided,
              readonly=readonly, swapped=swapped, ragged=ragged, means=means, cli=cli, fifo=fifo)
    import io
    import pathlib
    import subprocess
    import sysconfig

    ns.update(io=io, pathlib=pathlib, subprocess=subprocess, sys=sys)
    ns["SCRIPT"] = os.path.join(sysconfig.get_path("scripts"), "rankwise.exe" if os.name == "nt" else "rankwise")
    return ns


def put(x, value, at=0, dtype=float):
    """A copy of ``x`` as ``dtype`` with flat position ``at`` set to ``value``."""
    import numpy as np

    arr = np.array(x, dtype=dtype)
    arr.reshape(-1)[at] = value
    return arr


def strided(x):
    """``x`` as a view with a step of 2 along its last axis (not contiguous)."""
    import numpy as np

    return np.repeat(np.asarray(x), 2, axis=-1)[..., ::2]


def readonly(x):
    import numpy as np

    arr = np.array(x)
    arr.flags.writeable = False
    return arr


def swapped(x):
    """``x`` in the non-native byte order."""
    import numpy as np

    arr = np.asarray(x)
    return arr.astype(arr.dtype.newbyteorder("S"))


def ragged(x):
    """``x`` (2-D) as nested lists whose last row is one shorter."""
    rows = [list(row) for row in x]
    rows[-1] = rows[-1][:-1]
    return rows


def means(result) -> list:
    """The mean values of a Results or TrecResults (or a dict), in order, without their names."""
    return list((result if isinstance(result, dict) else result.mean()).values())


def cli(*argv):
    """Run ``rankwise.cli.main(argv)`` here: (exit status, stdout, stderr); exceptions propagate."""
    import contextlib
    import io

    from rankwise.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(list(argv))
        except SystemExit as exc:  # argparse's errors and --version
            status = exc.code
    return status, out.getvalue(), err.getvalue()


def fifo(text: str) -> str:
    """A named pipe that a thread fills with ``text`` once a reader opens it."""
    import tempfile
    import threading

    path = os.path.join(tempfile.mkdtemp(prefix="rankwise-fifo-"), "run.fifo")
    os.mkfifo(path)

    def writer():
        with open(path, "w") as f:
            f.write(text)

    threading.Thread(target=writer, daemon=True).start()
    return path


def _plain(value):
    """A comparable form of a result: floats, arrays, dicts and rankwise objects."""
    import dataclasses

    import numpy as np

    import rankwise as rw

    if isinstance(value, rw.Ranks):
        c = value.n_candidates
        return ("Ranks", value.greater.tolist(), value.equal.tolist(), None if c is None else c.tolist())
    if isinstance(value, rw.Results):
        return ("Results", value.names, value.query_ids.tolist(),
                [_plain(value[name]) for name in value.names])
    if isinstance(value, rw.TrecResults):
        return ("TrecResults", value.names, list(value.query_ids), [_plain(value[n]) for n in value.names])
    if isinstance(value, (rw.Run, rw.Qrels)):
        return (type(value).__name__, getattr(value, "name", None), _plain(value.to_dict()))
    if isinstance(value, rw.RankBuilder):
        return _plain(value.ranks())
    if isinstance(value, rw.ComparisonReport):
        return ("ComparisonReport", value.to_csv(), value.to_text())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return (type(value).__name__, {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)})
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return ("array", value.shape, [_plain(v) for v in value.reshape(-1).tolist()])
    if isinstance(value, (float, np.floating)):
        return "nan" if value != value else float(value)
    if isinstance(value, np.generic):
        return value.item()
    return value


def same(got, want, rel: float = 0.0) -> None:
    """Assert two results are equal (NaN equals NaN; ``rel`` allows a relative difference)."""
    a, b = _plain(got), _plain(want)
    if rel and a != b:
        flat_a, flat_b = _flatten(a), _flatten(b)
        if len(flat_a) == len(flat_b) and all(
                x == y or (isinstance(x, float) and isinstance(y, float) and abs(x - y) <= rel * max(abs(x), abs(y)))
                for x, y in zip(flat_a, flat_b, strict=True)):
            return
    assert a == b, f"differs from the reference: got {got!r}, want {want!r}"


def _flatten(value) -> list:
    if isinstance(value, dict):
        return [x for k in value for x in [k, *_flatten(value[k])]]
    if isinstance(value, (list, tuple)):
        return [x for v in value for x in _flatten(v)]
    return [value]


def close(got, want, rel: float = 1e-12) -> None:
    same(got, want, rel=rel)


def finite(value) -> None:
    """Assert every number in a result is finite."""
    import math

    for x in _flatten(_plain(value)):
        if x == "nan" or (isinstance(x, float) and not math.isfinite(x)):
            raise AssertionError(f"not finite: {value!r}")


def in_unit(value) -> None:
    """Assert every number in a result lies in [0, 1]."""
    finite(value)
    for x in _flatten(_plain(value)):
        if isinstance(x, float) and not 0.0 <= x <= 1.0:
            raise AssertionError(f"outside [0, 1]: {value!r}")


def feed(text: str) -> None:
    """Give this process's standard input ``text`` through a pipe (not seekable)."""
    import threading

    read, write = os.pipe()
    data = text.encode()

    def writer():
        view = memoryview(data)
        while view:
            view = view[os.write(write, view):]
        os.close(write)

    os.dup2(read, 0)
    os.close(read)
    threading.Thread(target=writer, daemon=True).start()


# --------------------------------------------------------------------------------------
# Running one case (inside the child, or in a fresh interpreter)
# --------------------------------------------------------------------------------------

def _limit_memory(headroom: int) -> None:
    try:
        import resource
    except ImportError:  # not POSIX
        return
    size = None
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmSize:"):
                    size = int(line.split()[1]) * 1024
    except OSError:
        return
    if size is None:
        return
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = size + headroom
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def _type_name(exc: BaseException) -> str:
    kind = type(exc)
    return f"{kind.__module__}.{kind.__qualname__}"


def execute(spec: dict, ns: dict) -> dict:
    """Run one case in this process and describe what happened."""
    if spec.get("memory"):
        _limit_memory(int(spec["memory"]))
    ns = dict(ns)
    outcome: dict
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            if spec.get("setup"):
                exec(compile(spec["setup"], "<setup>", "exec"), ns)
            result = eval(compile(spec["call"], "<call>", "eval"), ns)
        except BaseException as exc:  # noqa: BLE001 - every exception is an outcome
            outcome = {"status": "raised", "type": _type_name(exc), "message": str(exc)[:_MESSAGE_LIMIT],
                       "where": "".join(traceback.format_exception(exc)[-3:])[-_MESSAGE_LIMIT:]}
        else:
            try:
                text = repr(result)
            except BaseException as exc:  # noqa: BLE001
                text = f"<repr raised {_type_name(exc)}: {exc}>"
            outcome = {"status": "returned", "repr": text[:_REPR_LIMIT], "check": None}
            if spec.get("check"):
                ns["result"] = result
                try:
                    exec(compile(spec["check"], "<check>", "exec"), ns)
                except BaseException as exc:  # noqa: BLE001
                    outcome["check"] = f"{_type_name(exc)}: {exc}"[:_MESSAGE_LIMIT]
    outcome["warnings"] = [f"{w.category.__name__}: {w.message} ({w.filename}:{w.lineno})" for w in caught]
    return outcome


# --------------------------------------------------------------------------------------
# The fork server
# --------------------------------------------------------------------------------------

def _threads() -> int:
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        import threading

        return threading.active_count()


def _tail(fd: int) -> str:
    """What the child wrote to stderr: the start (faulthandler's traceback), not the module list."""
    os.lseek(fd, 0, os.SEEK_SET)
    text = os.read(fd, 1 << 16).decode("utf-8", "replace")
    text = text.split("\nExtension modules:")[0]
    return text if len(text) <= _STDERR_TAIL else text[:_STDERR_TAIL] + " ..."


def _child(spec: dict, ns: dict, report: int, capture: int) -> None:
    import gc

    gc.disable()  # a short life: no collection walking (and copying) the parent's objects
    try:
        os.dup2(capture, 1)
        os.dup2(capture, 2)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        if spec.get("stdin") is not None:
            feed(spec["stdin"])
        outcome = execute(spec, ns)
        data = json.dumps(outcome).encode()
        view = memoryview(data)
        while view:
            view = view[os.write(report, view):]
    finally:
        os._exit(0)


def _serve_one(spec: dict, ns: dict, capture: int) -> dict:
    import select
    import signal
    import time

    threads = _threads()
    if threads != 1:
        return {"status": "error", "message": f"the worker has {threads} threads; it must fork from one"}
    os.ftruncate(capture, 0)
    os.lseek(capture, 0, os.SEEK_SET)
    read, write = os.pipe()
    sys.stdout.flush()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        _child(spec, ns, write, capture)
    os.close(write)
    deadline = time.monotonic() + float(spec.get("timeout", 20))
    chunks, timed_out = [], False
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            timed_out = True
            break
        ready, _, _ = select.select([read], [], [], left)
        if ready:
            chunk = os.read(read, 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
    os.close(read)
    if timed_out:
        os.kill(pid, signal.SIGKILL)
    status = None
    while status is None:
        done, code = os.waitpid(pid, os.WNOHANG)
        if done:
            status = code
        elif time.monotonic() > deadline + 5:
            os.kill(pid, signal.SIGKILL)
            status = os.waitpid(pid, 0)[1]
        else:
            time.sleep(0.001)
    if timed_out:
        return {"status": "timeout", "message": f"no outcome after {spec.get('timeout', 20)} s",
                "stderr": _tail(capture)}
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        return {"status": "signal", "signal": signal.Signals(number).name, "stderr": _tail(capture)}
    if not chunks:
        return {"status": "error", "message": f"the child exited with status {os.WEXITSTATUS(status)} "
                                              "without reporting", "stderr": _tail(capture)}
    return json.loads(b"".join(chunks))


def serve(heavy: bool) -> None:
    """Serve cases; a ``heavy`` worker has imported scipy and pandas (a fork then costs more)."""
    import faulthandler
    import tempfile

    import numpy  # noqa: F401

    if heavy:  # imports that cases would otherwise pay for in every child
        import scipy.special  # noqa: F401
        import scipy.stats  # noqa: F401

        try:
            import pandas  # noqa: F401
        except ImportError:
            pass
    folder = tempfile.mkdtemp(prefix="rankwise-hostile-")
    ns = namespace(folder, heavy)
    capture = os.open(os.path.join(folder, "stderr.txt"), os.O_RDWR | os.O_CREAT | os.O_TRUNC)
    faulthandler.enable(file=os.fdopen(os.dup(capture), "w"), all_threads=True)
    out = sys.stdout
    import gc

    gc.collect()
    gc.freeze()  # the children share these objects' pages instead of copying them
    print(json.dumps({"ready": True, "threads": _threads()}), file=out, flush=True)
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            outcome = _serve_one(json.loads(line), ns, capture)
        except Exception as exc:  # noqa: BLE001 - the worker reports and carries on
            outcome = {"status": "error", "message": f"worker: {_type_name(exc)}: {exc}"}
        print(json.dumps(outcome), file=out, flush=True)


def once(result_path: str) -> None:
    """Run one case in this fresh interpreter (the fallback where fork is unavailable)."""
    import tempfile

    spec = json.loads(sys.stdin.read())
    folder = tempfile.mkdtemp(prefix="rankwise-hostile-")
    ns = namespace(folder)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    if spec.get("stdin") is not None:
        feed(spec["stdin"])
    outcome = execute(spec, ns)
    with open(result_path, "w") as f:
        json.dump(outcome, f)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--once":
        once(sys.argv[2])
    else:
        serve(heavy="--heavy" in sys.argv[1:])
