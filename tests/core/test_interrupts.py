"""Ctrl-C during a long call: raised within a fraction of a second, nothing left computing.

The runner (``_core/parallel.py``) gives every call a stop flag that its kernels poll; long
calls run in helper threads while the calling thread waits, so that it sees the signal.
"""
import _thread
import importlib
import json
import signal
import subprocess
import sys
import textwrap
import threading
import time
import types
from functools import partial

import numpy as np
import pytest

import rankwise as rw
from rankwise._core import _duplicates, _group, _intern, _resample, _sparse
from rankwise._core import parallel as _parallel
from rankwise._core._enums import Metric
from rankwise.lists import _listwise
from rankwise.ranks import _count
from rankwise.recsys import _select
from rankwise.trec import _text, _trec

# A Python task that runs until told to stop gives up after this long: a test that
# finishes well before it shows that the stop reached the task.
SLOW = 60.0


def _until_stopped(log, lock):
    def task(a, b, stop):
        with lock:
            log.append(("start", a, threading.get_ident()))
        deadline = time.monotonic() + SLOW
        while not stop[0] and time.monotonic() < deadline:
            time.sleep(0.001)
        with lock:
            log.append(("end", a, threading.get_ident()))
    return task


@pytest.fixture(autouse=True)
def _sigint_raises_keyboardinterrupt():
    """SIGINT handled as Python does by default, even where it was ignored at start.

    A process started in the background by a non-interactive shell (``pytest &``) ignores
    SIGINT, and Python keeps it ignored: ``interrupt_main`` and ``raise_signal`` then do
    nothing, and the tests below would wait for every chunk's SLOW seconds.
    """
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def _helpers_alive():
    return [t for t in threading.enumerate() if t.name.startswith("rankwise-") and t.is_alive()]


@pytest.mark.parametrize("how", ["interrupt_main", "raise_signal"])
@pytest.mark.parametrize("n_threads", [1, 2, 3])
def test_interrupt_while_waiting_stops_every_chunk(how, n_threads):
    log, lock = [], threading.Lock()
    if how == "interrupt_main":
        interrupt = _thread.interrupt_main
    else:
        def interrupt():
            signal.raise_signal(signal.SIGINT)
    timer = threading.Timer(0.3, interrupt)
    start = time.monotonic()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        _parallel.run_in_chunks(_until_stopped(log, lock), list(range(7)), n_threads, cost=10**9)
    elapsed = time.monotonic() - start
    timer.join()
    assert elapsed < SLOW / 2
    # Every chunk that started has ended before the exception came: no helper is left.
    started = sorted(a for kind, a, _ in log if kind == "start")
    ended = sorted(a for kind, a, _ in log if kind == "end")
    assert started and started == ended
    assert len(started) <= n_threads  # none took a new chunk after the stop
    assert threading.get_ident() not in {ident for _, _, ident in log}  # the caller only waited
    assert not _helpers_alive()
    # The next call runs every chunk, correctly.
    seen = []
    _parallel.run_in_chunks(lambda a, b, stop: seen.append((a, b, int(stop[0]))), [0, 2, 5, 9], n_threads,
                            cost=10**9)
    assert sorted(seen) == [(0, 2, 0), (2, 5, 0), (5, 9, 0)]


def test_an_error_in_one_chunk_stops_the_others():
    log, lock = [], threading.Lock()
    slow = _until_stopped(log, lock)

    def task(a, b, stop):
        if a == 0:
            time.sleep(0.2)
            raise MemoryError("no room")
        slow(a, b, stop)

    start = time.monotonic()
    with pytest.raises(MemoryError, match="no room"):
        _parallel.run_in_chunks(task, [0, 1, 2, 3], 3, cost=10**9)
    assert time.monotonic() - start < SLOW / 2
    assert sorted(a for kind, a, _ in log if kind == "start") == sorted(a for kind, a, _ in log if kind == "end")
    assert not _helpers_alive()


def test_short_calls_stay_in_the_calling_thread():
    where = []
    _parallel.run_in_chunks(lambda a, b, stop: where.append(threading.get_ident()), [0, 1], 1,
                            cost=_parallel._INLINE_COST)
    assert where == [threading.get_ident()]
    _parallel.run_in_chunks(lambda a, b, stop: where.append(threading.get_ident()), [0, 1], 1,
                            cost=_parallel._INLINE_COST + 1)
    assert where[1] != threading.get_ident()
    assert _parallel.run_alone(lambda stop: stop.dtype.name + str(stop.shape), 10**9) == "uint8(24,)"


def test_interrupted_run_alone_raises_and_the_task_ends():
    log, lock = [], threading.Lock()
    task = _until_stopped(log, lock)
    timer = threading.Timer(0.2, _thread.interrupt_main)
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        _parallel.run_alone(lambda stop: task(0, 1, stop), 10**9)
    timer.join()
    assert [kind for kind, _, _ in log] == ["start", "end"]
    assert not _helpers_alive()


def _results(rng, tmp_path):
    """One small call of every kind, its values as plain arrays."""
    y, s = rng.integers(0, 3, (300, 40)), np.round(rng.random((300, 40)), 1)
    values = [rw.evaluate(y, s, ["MAP", "nDCG@10", "ERR"])[m] for m in ("MAP", "nDCG@10", "ERR")]
    values.append(rw.evaluate(y, s, ["MAP", "P@5"], ties="stable").mean())
    ranks = rw.rank_positive(np.round(rng.random(300), 1), np.round(rng.random((300, 50)), 1))
    values += [ranks.greater, ranks.equal, ranks.n_candidates]
    queries = np.repeat(np.arange(300), 40)
    docs = np.tile(np.arange(40), 300)
    run = rw.Run.from_arrays(queries, docs, s.ravel())
    qrels = rw.Qrels.from_arrays(queries, docs, y.ravel())
    # Queries interleaved: grouped by the hash kernel, then checked for repeats through the order.
    shuffled = np.random.default_rng(1).permutation(queries.shape[0])
    values.append(rw.Run.from_arrays(queries[shuffled], docs[shuffled], s.ravel()[shuffled]).to_pandas())
    for ties in ("trec", "expected"):
        values.append(rw.trec_eval(qrels, run, ["map", "ndcg", "P.5", "recip_rank", "ndcg_cut.5",
                                                "ndcg.-1=0.5,1=2"], ties=ties).to_pandas())
    run.write(tmp_path / "run.txt")
    values.append(rw.Run.read(tmp_path / "run.txt").to_pandas())
    a, b = rng.random(200), rng.random(200)
    for test in ("randomization", "bootstrap"):
        values.append(rw.compare(a, b, test, n_resamples=5000, seed=3).distribution)
    return values


def test_chunks_out_of_budget_are_done_again_with_the_same_result(monkeypatch, tmp_path):
    """With a budget of a nanosecond the calling thread hands nearly every call over midway."""
    expected = _results(np.random.default_rng(5), tmp_path)
    calls = []
    original = _parallel._Call.__init__

    def spy(self, task, bounds):
        calls.append(len(bounds))
        original(self, task, bounds)

    tiny = _parallel._BUDGETED.copy()
    tiny[8:16] = np.frombuffer(np.float64(1e-9).tobytes(), dtype=np.uint8)
    monkeypatch.setattr(_parallel, "_BUDGETED", tiny)
    monkeypatch.setattr(_parallel._Call, "__init__", spy)
    got = _results(np.random.default_rng(5), tmp_path)
    assert len(calls) >= 5
    for x, y in zip(got, expected, strict=True):
        if isinstance(x, dict):
            assert x == y
        elif hasattr(x, "equals"):
            assert x.equals(y)
        else:
            np.testing.assert_array_equal(x, y)


# ---------------------------------------------------------------------------- kernels

# evaluate_range's scalar arguments: ties=0 (expected), relevance level 1, no top-k path.
_OPTIONS = {"ties": 0, "level": 1.0, "max_grade": 1.0, "top_k": 0, "shared_scores": False, "shared_keys": False}


def _stopped():
    flag = np.zeros(24, dtype=np.uint8)
    flag[0] = 1
    return flag


def test_kernels_return_at_once_when_stopped(rng):
    """Every long kernel checks its flag before any work: a set flag leaves its outputs untouched."""
    n = 1000
    indptr = np.array([0, 600, n], dtype=np.int64)
    scores = rng.random(n)
    labels = (rng.random(n) < 0.3).astype(np.int8)
    out = np.full((2, 1), -7.0)
    n_rel = np.full(2, -7, dtype=np.int64)
    spec = (np.array([1], dtype=np.int32), np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.uint8), np.zeros(1),
            np.zeros(1, dtype=np.uint8))
    _listwise.evaluate_range(indptr, scores, labels, np.empty(0, dtype=np.int64), spec, _OPTIONS, 0, 2,
                             (out, n_rel), _stopped())
    assert np.all(out == -7.0) and np.all(n_rel == -7)

    counts = np.zeros((2, 4), dtype=np.int64)
    _count.count_ragged(scores, indptr, np.array([0.5, 0.5]), np.empty(0, dtype=np.uint8), 0, 2, counts, _stopped())
    _count.count_dense(scores.reshape(2, 500), np.array([0.5, 0.5]), np.empty((0, 0), dtype=np.uint8), 0, 2,
                       counts, _stopped())
    assert not counts.any()

    docs = np.arange(n, dtype=np.int64)
    rels = np.full(n, -7.0)
    starts, stops = indptr[:-1].copy(), indptr[1:].copy()
    join = (docs, np.empty(0, dtype=np.int64), starts, stops, np.array([0, 1]), indptr, docs, scores)
    _trec.judge(join, 0, 2, rels, _stopped())
    assert np.all(rels == -7.0)
    n_entries = np.full(2, -7, dtype=np.int64)
    _trec.rank_judged(scores, join, (0, np.empty(0, dtype=np.uint8), np.empty(0, dtype=np.int64), 0),
                      (starts, np.empty(n, dtype=np.int64), np.empty(n), n_entries), 0, 2, _stopped())
    assert np.all(n_entries == -7)
    ranked = np.full(n, -7.0)
    _trec.rank_relevance(scores, scores, indptr, 0, 2, ranked, np.empty(n), _stopped())
    assert np.all(ranked == -7.0)
    num_rel = np.full(2, -7.0)
    _trec.judgement_counts(indptr, scores, 0.5, 0, 2, num_rel, np.empty(2), _stopped())
    assert np.all(num_rel == -7.0)
    ideal = np.full((2, 1), -7.0)
    _trec.ideal_dcg(indptr, scores, np.array([10], dtype=np.int64), 0, 2, ideal, np.zeros(2, dtype=np.int32),
                    _stopped())
    assert np.all(ideal == -7.0)
    measured = np.full((2, 1), -7.0)
    entries = (scores, np.arange(1, n + 1, dtype=np.int64), np.empty(0), starts, np.diff(indptr))
    columns = (np.array([3], dtype=np.int32), np.zeros((1, 4)), np.ones(1, dtype=np.int64), np.zeros((2, 1)),
               np.zeros((2, 1), dtype=np.int32), np.empty(0, dtype=np.int64), np.empty(0), np.zeros(2, dtype=np.int64))
    _trec.trec_measures(entries, (np.diff(indptr), np.ones(2), np.ones(2)), columns, 1.0, False, 0, 2, measured,
                        _stopped())
    assert np.all(measured == -7.0)

    repeated = np.zeros(n, dtype=np.int64)  # every document the same: a repeat at row 1
    no_order = np.empty(0, dtype=np.int64)
    assert _duplicates.first_duplicate(repeated, no_order, np.array([0, n]), 0, 1)[0] == (0, 1)
    assert _duplicates.first_duplicate(repeated, no_order, np.array([0, n]), 0, 1, _stopped())[0] == (-1, -1)
    assert _duplicates.group_codes(repeated, 1, _stopped()) is None
    assert _group.run_starts(repeated, _stopped()) is None
    assert _group.group_by_query(np.array([1, 2, 1], dtype=np.int64), stop=_stopped()) is None

    matrix = scores.reshape(2, 500)
    none = (np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64))
    ids = np.full((2, 3), -7, dtype=np.int64)
    scratch = (np.empty(20), np.empty(20), np.empty(40, dtype=np.int64), np.empty(_select.heap_words(3, 500), dtype=np.int64))
    assert _select.select_rows(matrix, none, (False, False), 0, 2, ids, np.empty((0, 0)), scratch,
                               _stopped()) is None
    assert np.all(ids == -7)
    gathered = np.full(n, -7.0)
    labels_csr = (np.zeros(3, dtype=np.int64), np.empty(0, dtype=np.int64), np.empty(0))
    _sparse.gather_rows(matrix, labels_csr, none, (none[0], 0), 0, 2, np.array([0, 500, n]),
                        gathered, np.full(n, 7, dtype=np.uint8), none[0], _stopped())
    assert np.all(gathered == -7.0)

    sums = np.zeros(10)
    _resample.sign_flip_sums(scores, 1, 2, False, 0, 10, sums, np.empty(128 * 256), _stopped())
    _resample.bootstrap_sums(scores, 1, 2, 0, 10, sums, _stopped())
    assert not sums.any()


def test_text_kernels_return_at_once_when_stopped():
    text = b"q1 Q0 d1 1 0.5 r\nq1 Q0 d1 2 0.4 r\n" * 1000  # a repeated document
    data = np.frombuffer(b"abcabd", dtype=np.uint8)
    offsets = np.array([0, 3, 6], dtype=np.int64)
    parser = _text.Parser(True, 1)
    parser.split(text, 1)
    assert parser.tokenize(0, 1, _stopped()) is None
    assert parser.tokenize(0, 1) and parser.error() is None and parser.prepare() == 2000
    assert parser.intern_docs(0, 64, _stopped()) is None
    assert _intern.intern(data, offsets, stop=_stopped()) is None
    assert _intern.index(data, offsets, stop=_stopped()) is None
    found = np.full(2, -7, dtype=np.int64)
    _intern.index(data, offsets).find(data, offsets, found, 0, 2, _stopped())
    assert found.tolist() == [-7, -7]
    assert _intern.byte_ranks(data, offsets, _stopped()) is None
    assert _intern.first_seen(np.array([0, 1]), np.array([0, 1]), 2, _stopped()) is None
    bad = np.frombuffer(b"\xff", dtype=np.uint8)
    assert _text.invalid_utf8(bad, np.array([0, 1]), _stopped()) is None


def _out_of_budget():
    """A calling thread's flag whose budget runs out at its second look at the clock."""
    flag = _parallel._BUDGETED.copy()
    flag[8:16] = np.frombuffer(np.float64(1e-9).tobytes(), dtype=np.uint8)
    return flag


def test_id_kernels_poll_inside_one_long_query():
    """The grouping and duplicate kernels look at the flag every 65,536 rows, not only between queries."""
    n = 1 << 22
    rng = np.random.default_rng(0)
    ids = rng.permutation(n).astype(np.int64)  # distinct: no early end at a repeat
    interleaved = np.tile(np.arange(1000, dtype=np.int64), n // 1000)
    whole = np.array([0, n], dtype=np.int64)
    no_order = np.empty(0, dtype=np.int64)
    for kernel, args, stopped in [
        (_group.run_starts, (ids,), lambda result: result is None),
        (_group.group_by_query, (interleaved, False), lambda result: result is None),
        # One group longer than 2**16 rows: the bucketed check.
        (_duplicates.first_duplicate, (ids, no_order, whole, 0, 1), lambda result: result[0] == (-1, -1)),
        (_duplicates.first_duplicate, (ids, np.arange(n, dtype=np.int64), whole, 0, 1),
         lambda result: result[0] == (-1, -1)),
        (_duplicates.group_codes, (np.zeros(n, dtype=np.int64), 1), lambda result: result is None),
    ]:
        flag = _out_of_budget()
        assert stopped(kernel(*args, stop=flag)), kernel.__name__
        assert flag[0] == 1 and flag[1] == 1, kernel.__name__  # out of budget before the end
    # Unstopped, the same calls give their results.
    assert _group.run_starts(ids).shape == (n + 1,)
    distinct, indptr, order, _ = _group.group_by_query(interleaved)
    assert distinct.tolist() == list(range(1000)) and indptr[-1] == interleaved.shape[0]
    repeat = ids.copy()
    repeat[-1] = repeat[5]
    assert _duplicates.first_duplicate(repeat, no_order, whole, 0, 1)[0] == (5, n - 1)


def test_a_kernel_stops_in_the_middle_of_one_huge_query():
    # ERR's expectation over one tie group of n tracked items is quadratic in n: about a
    # minute here for n = 200,000, unless the flag stops it.
    n = 200_000
    stop = np.zeros(24, dtype=np.uint8)
    timer = threading.Timer(0.3, stop.__setitem__, (0, 1))
    start = time.monotonic()
    timer.start()
    spec = (np.array([Metric.ERR], dtype=np.int32), np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.uint8),
            np.zeros(1), np.zeros(1, dtype=np.uint8))
    _listwise.evaluate_range(np.array([0, n], dtype=np.int64), np.zeros(n), np.ones(n, dtype=np.int8),
                             np.empty(0, dtype=np.int64), spec, _OPTIONS, 0, 1,
                             (np.empty((1, 1)), np.empty(1, dtype=np.int64)), stop)
    timer.join()
    assert time.monotonic() - start < 10


# ---------------------------------------------------------------------------- call sites

_KERNELS = {
    "rankwise.lists.evaluation": ["evaluate_range"],
    "rankwise.ranks.positive": ["count_dense", "count_ragged"],
    "rankwise.trec.evaluation": ["judge", "rank_judged", "rank_relevance", "judgement_counts", "ideal_dcg",
                                 "trec_measures"],
    "rankwise.trec.ids": ["first_duplicate", "run_starts", "group_by_query"],
    "rankwise._core.duplicates": ["first_duplicate", "group_codes"],
    "rankwise._core.validation": ["run_starts", "group_by_query"],
    "rankwise.stats.significance": ["sign_flip_sums"],
    "rankwise._core.bootstrap": ["bootstrap_sums"],
    "rankwise.recsys.select": ["select_rows"],
    "rankwise._core.sparse": ["gather_rows"],
}
# Kernel modules that trec.io and _core.strings use through their module object: name -> kernels.
_MODULE_KERNELS = {
    "_text": (_text, "rankwise.trec.io", ["invalid_utf8"]),
    "_intern": (_intern, "rankwise._core.strings", ["intern", "index", "byte_ranks"]),
}


class _ParserSpy:
    """A ``_text.Parser`` whose parallel steps go through the spy."""

    def __init__(self, spy, *args):
        self._parser = _text.Parser(*args)
        self.tokenize = spy("Parser.tokenize", self._parser.tokenize)
        self.intern_docs = spy("Parser.intern_docs", self._parser.intern_docs)

    def __getattr__(self, name):
        return getattr(self._parser, name)


class _ModuleSpy:
    def __init__(self, spy, label, module, names):
        self._spy, self._label, self._module, self._names = spy, label, module, names

    def __getattr__(self, name):
        func = getattr(self._module, name)
        return self._spy(f"{self._label}.{name}", func) if name in self._names else func


def test_every_kernel_gets_the_calls_stop_flag(monkeypatch, tmp_path, rng):
    """Each long kernel, called through the public API, receives the runner's flag."""
    calls = {}

    def spy(name, func):
        def wrapped(*args, **kwargs):
            flag = kwargs["stop"] if "stop" in kwargs else args[-1]
            assert isinstance(flag, np.ndarray) and flag.dtype == np.uint8 and flag.shape == (24,), name
            calls[name] = calls.get(name, 0) + 1
            return func(*args, **kwargs)
        return wrapped

    for module_name, names in _KERNELS.items():
        module = importlib.import_module(module_name)
        for name in names:
            monkeypatch.setattr(module, name, spy(f"{module_name}.{name}", getattr(module, name)))
    for label, (module, user, names) in _MODULE_KERNELS.items():
        monkeypatch.setattr(importlib.import_module(user), label, _ModuleSpy(spy, label, module, names))
    monkeypatch.setattr(importlib.import_module("rankwise.trec.parsing"), "_text",
                        types.SimpleNamespace(Parser=partial(_ParserSpy, spy)))

    y, s = rng.integers(0, 3, (20, 50)), rng.random((20, 50))
    rw.evaluate(y, s, ["MAP", "nDCG@10"])
    qid = np.repeat(np.arange(20), 50)
    rw.evaluate(y.ravel(), s.ravel(), "MAP", qid=qid)  # grouped
    rw.evaluate(y.ravel(), s.ravel(), "MAP", qid=qid[::-1])  # ungrouped
    rw.evaluate(y, s, "MAP", exclude=(y == 0) & (s < 0.1))  # each row's candidates gathered
    rw.top_k(s, 5)
    rw.rank_positive(rng.random(20), rng.random((20, 30)))
    rw.rank_positive(rng.random(2), rng.random(30), indptr=[0, 10, 30])
    qrels, run = importlib.import_module("rankwise.trec").read_example()
    for ties in ("trec", "expected"):
        rw.trec_eval(qrels, run, ["map", "ndcg", "P.5"], ties=ties)
    qrels.write(tmp_path / "q.txt")
    rw.Qrels.read(tmp_path / "q.txt")
    rw.Qrels.from_dict({"q1": {"d1": 1}})
    ints = rw.Run.from_arrays(np.array([1, 1, 2]), np.array([10, 11, 10]), np.array([0.5, 0.2, 0.9]))
    rw.trec_eval(rw.Qrels.from_dict({"1": {"10": 1}, "2": {"10": 0}}), ints, ["map"], ties="expected")
    rw.Run.from_arrays(np.array([1, 2, 1]), np.array([10, 10, 11]), np.array([0.5, 0.2, 0.9]))  # grouped
    rw.Run.from_arrays(np.array(["1", "1"]), np.array(["a", "b"]), np.array([0.5, 0.2]))
    rw.Run.from_arrays(np.array(["1", "2", "1"]), np.array(["a", "a", "b"]), np.array([0.5, 0.2, 0.9]))  # ungrouped
    a, b = rng.random(30), rng.random(30)
    rw.compare(a, b, "randomization", n_resamples=100, seed=1)
    rw.compare(a, b, "bootstrap", n_resamples=100, seed=1)
    expected = {f"{m}.{n}" for m, names in _KERNELS.items() for n in names}
    expected |= {f"{label}.{n}" for label, (_, _, names) in _MODULE_KERNELS.items() for n in names}
    expected |= {"Parser.tokenize", "Parser.intern_docs"}
    assert set(calls) == expected


# ---------------------------------------------------------------------------- Ctrl-C in a process

_CHILD = textwrap.dedent("""
    import json, resource, signal, sys, threading, time
    import numpy as np
    import rankwise as rw

    signal.signal(signal.SIGINT, signal.default_int_handler)  # even if inherited ignored

    def cpu():
        usage = resource.getrusage(resource.RUSAGE_SELF)
        return usage.ru_utime + usage.ru_stime

    case = sys.argv[1]
    if case == "one-query":
        # One query whose ERR expectation over a tie group of 200,000 items takes about a minute.
        n = 200_000
        work = lambda: rw.evaluate(np.ones(n, dtype=np.int8), np.zeros(n), ["ERR"])
    elif case == "many-queries":
        # 64 such queries of 40,000 items, a few seconds each, on two threads.
        n = 40_000
        work = lambda: rw.evaluate(np.ones((64, n), dtype=np.int8), np.zeros((64, n)), ["ERR"], n_threads=2)
    else:
        # 2 million bootstrap resamples of 10,000 differences: about 35 s on two threads.
        rng = np.random.default_rng(0)
        a, b = rng.random(10_000), rng.random(10_000)
        work = lambda: rw.compare(a, b, "bootstrap", n_resamples=2_000_000, seed=0, n_threads=2)
    print("READY", flush=True)
    start = time.monotonic()
    try:
        work()
        print(json.dumps({"finished": time.monotonic() - start}), flush=True)
    except KeyboardInterrupt:
        caught, used = time.monotonic(), cpu()
        time.sleep(0.5)
        idle_cpu = cpu() - used
        threads = [t.name for t in threading.enumerate() if t is not threading.main_thread()]
        value = rw.evaluate([[1, 0, 1, 0]], [[0.4, 0.3, 0.2, 0.1]], ["MAP", "ERR"], n_threads=2).mean()
        print(json.dumps({"after": caught - start, "idle_cpu": idle_cpu, "threads": threads, "value": value}),
              flush=True)
""")


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process is POSIX")
@pytest.mark.parametrize("case", ["one-query", "many-queries", "bootstrap"])
def test_ctrl_c_in_a_process(case):
    proc = subprocess.Popen([sys.executable, "-c", _CHILD, case], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "READY"
        time.sleep(1.0)
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    report = json.loads(out.strip().splitlines()[-1])
    # The work takes over 20 s; Ctrl-C came after 1 s and must be honoured well before.
    assert "after" in report, report
    assert report["after"] < 6.0
    assert report["threads"] == []
    assert report["idle_cpu"] < 0.25  # nothing keeps computing after the interrupt
    # MAP: (1 + 2/3) / 2; ERR with labels 1 of grade 1: 1/2 + 1/2 * 1/2 / 3.
    assert report["value"] == pytest.approx({"MAP": (1 + 2 / 3) / 2, "ERR": 0.5 + 0.25 / 3}, rel=1e-12)
