"""Parallelism over queries: threads taking query chunks in turn, calling nogil kernels.

Threads rather than OpenMP, so every platform's wheel runs in parallel with no runtime
library to bundle. Queries are independent and every chunk writes its own rows, so the
result is bit-identical for any thread count.
"""
from __future__ import annotations

import os
import threading

import numpy as np

__all__ = ["effective_n_threads", "run_over_queries"]

# Below this many items per thread, thread start-up costs more than it saves.
_MIN_ITEMS_PER_THREAD = 50_000
# A query's fixed cost, in items, for balancing chunks of very short lists.
_QUERY_COST = 32
# Chunks per thread: enough for idle threads to pick up the slack of uneven queries.
_CHUNKS_PER_THREAD = 8


def _cpu_count() -> int:
    if hasattr(os, "process_cpu_count"):
        return os.process_cpu_count() or 1
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


def effective_n_threads(n_threads) -> int:
    """Resolve ``n_threads``: None = all CPUs, negative counts back (-1 = all), 0 is an error.

    Any non-zero integer that int64 holds is accepted: no more threads are started than
    there are chunks of work, and counting back stops at one thread.

    Examples
    --------
    >>> effective_n_threads(3)
    3
    """
    if n_threads is None:
        return _cpu_count()
    if isinstance(n_threads, bool) or not isinstance(n_threads, (int, np.integer)):
        raise TypeError(f"n_threads must be an integer or None, got {n_threads!r}")
    if n_threads == 0:
        raise ValueError("n_threads must be non-zero (None or -1 for all CPUs)")
    if not -(2**63) <= n_threads <= 2**63 - 1:
        raise ValueError("n_threads must be a non-zero integer from -2**63 to 2**63 - 1 (None or -1 for "
                         f"all CPUs), got {n_threads}")
    if n_threads < 0:
        return max(_cpu_count() + 1 + int(n_threads), 1)
    return int(n_threads)


def _chunks(indptr: np.ndarray, n_chunks: int) -> np.ndarray:
    """Query boundaries giving chunks of about equal cost (items plus a per-query cost)."""
    n_queries = indptr.shape[0] - 1
    cost = np.arange(n_queries + 1, dtype=np.int64)      # in place: one int64 per query
    cost *= _QUERY_COST
    cost += indptr
    targets = np.linspace(0, cost[-1], n_chunks + 1)
    bounds = np.searchsorted(cost, targets, side="left")
    bounds[0], bounds[-1] = 0, n_queries
    return np.unique(bounds)


def run_over_queries(task, indptr: np.ndarray, n_threads: int) -> None:
    """Call ``task(q_start, q_stop)`` over all queries, in parallel when it pays.

    The calling thread and ``n_threads - 1`` helpers take the next chunk in turn
    until none is left: no executor, and one thread fewer to start (on 10 ms calls a
    thread pool's set-up and per-chunk futures cost over a millisecond). The first
    exception stops the other threads taking chunks and is raised here.
    """
    n_queries = indptr.shape[0] - 1
    n_threads = min(n_threads, n_queries, max(int(indptr[-1]) // _MIN_ITEMS_PER_THREAD, 1))
    if n_threads <= 1:
        task(0, n_queries)
        return
    bounds = _chunks(indptr, n_threads * _CHUNKS_PER_THREAD).tolist()
    chunks = iter(zip(bounds[:-1], bounds[1:], strict=True))
    lock = threading.Lock()
    errors = []

    def work():
        while not errors:
            with lock:
                chunk = next(chunks, None)
            if chunk is None:
                return
            try:
                task(*chunk)
            except BaseException as error:  # raised in the calling thread
                errors.append(error)

    helpers = [threading.Thread(target=work, name=f"rankwise-{i}", daemon=True) for i in range(n_threads - 1)]
    for helper in helpers:
        helper.start()
    try:
        work()
    except BaseException as error:  # e.g. KeyboardInterrupt between chunks: stop the helpers too
        errors.append(error)
    for helper in helpers:
        helper.join()
    if errors:
        raise errors[0]
