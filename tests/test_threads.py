"""Results are bit-identical for every thread count, and the work really is split."""
import importlib
import threading

import numpy as np
import pytest

import rankwise as rw
from rankwise import _parallel

METRICS = ["MRR", "MAP", "nDCG@10", "P@10", "ERR", "RBP", "Hits@3"]


@pytest.mark.parametrize("ties", ["expected", "optimistic", "pessimistic", "stable"])
def test_thread_counts_give_identical_results(rng, ties, monkeypatch):
    # Uneven query lengths, many ties; lower the threshold so small inputs go parallel.
    monkeypatch.setattr(_parallel, "_MIN_ITEMS_PER_THREAD", 1)
    lengths = rng.integers(0, 400, 300)
    indptr = np.concatenate([[0], np.cumsum(lengths)])
    y_score = np.round(rng.normal(size=indptr[-1]), 1)
    y_true = rng.integers(0, 3, indptr[-1]) * (rng.random(indptr[-1]) < 0.2)
    results = [rw.evaluate(y_true, y_score, METRICS, indptr=indptr, ties=ties, n_threads=n)
               for n in (1, 2, 3, 7, -1, None)]
    for res in results[1:]:
        for name in METRICS:
            np.testing.assert_array_equal(res[name], results[0][name])


def test_work_is_spread_over_threads(rng, monkeypatch):
    monkeypatch.setattr(_parallel, "_MIN_ITEMS_PER_THREAD", 1)
    seen = set()
    original = _parallel.run_over_queries

    def spy(task, *args):
        def wrapped(a, b, stop):
            seen.add(threading.get_ident())
            task(a, b, stop=stop)
        original(wrapped, *args)

    # The module rankwise.evaluate is shadowed by the function of that name.
    monkeypatch.setattr(importlib.import_module("rankwise.evaluate"), "run_over_queries", spy)
    indptr = np.arange(0, 200_001, 1000)
    rw.evaluate(rng.integers(0, 2, indptr[-1]), rng.random(indptr[-1]), ["MRR"], indptr=indptr, n_threads=4)
    assert len(seen) > 1


def test_chunks_cover_every_query_once(rng):
    for n_queries in (1, 2, 5, 1000):
        indptr = np.concatenate([[0], np.cumsum(rng.integers(0, 50, n_queries))])
        for n_chunks in (1, 3, 64):
            bounds = _parallel._chunks(indptr, n_chunks)
            assert bounds[0] == 0 and bounds[-1] == n_queries
            assert np.all(np.diff(bounds) > 0)


def test_effective_n_threads():
    cpus = _parallel._cpu_count()
    assert _parallel.effective_n_threads(None) == cpus
    assert _parallel.effective_n_threads(-1) == cpus
    assert _parallel.effective_n_threads(-cpus - 5) == 1
    assert _parallel.effective_n_threads(np.int64(2)) == 2


def test_every_chunk_runs_once_and_errors_reach_the_caller(monkeypatch):
    monkeypatch.setattr(_parallel, "_MIN_ITEMS_PER_THREAD", 1)
    indptr = np.arange(0, 10_001, 10)
    seen, lock = [], threading.Lock()

    def record(a, b, stop):
        with lock:
            seen.append((a, b))

    _parallel.run_over_queries(record, indptr, 3)
    covered = np.zeros(indptr.shape[0] - 1, dtype=int)
    for a, b in seen:
        covered[a:b] += 1
    assert len(seen) == 3 * _parallel._CHUNKS_PER_THREAD and np.all(covered == 1)

    calls = []

    def fail(a, b, stop):
        calls.append(a)
        raise MemoryError("no room")

    with pytest.raises(MemoryError, match="no room"):
        _parallel.run_over_queries(fail, indptr, 3)
    # Each thread stops at its first failure: no chunk after it is taken.
    assert len(calls) <= 3
