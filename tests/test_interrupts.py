"""Ctrl-C during a long call: raised within a fraction of a second, nothing left computing.

The runner (``_parallel.py``) gives every call a stop flag that its kernels poll; long
calls run in helper threads while the calling thread waits, so that it sees the signal.
"""
import _thread
import signal
import threading
import time

import numpy as np
import pytest

import rankwise as rw
from rankwise import _parallel

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
    for ties in ("trec", "expected"):
        values.append(rw.trec_eval(qrels, run, ["map", "ndcg", "P.5", "recip_rank"], ties=ties).to_pandas())
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
