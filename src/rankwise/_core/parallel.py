"""Parallelism over queries: threads taking query chunks in turn, calling nogil kernels.

Threads rather than OpenMP, so every platform's wheel runs in parallel with no runtime
library to bundle. Queries are independent and every chunk writes its own rows, so the
result is bit-identical for any thread count.

Ctrl-C. Python runs signal handlers in the main thread only, between bytecodes, so a
kernel running in the calling thread holds KeyboardInterrupt back until it returns. Every
thread of a call gets a stop flag (``_core/_stop.pxd``) that its kernels check at
query boundaries and every few tens of thousands of items inside a query. Long calls run
every chunk in helper threads while the calling thread waits in short timed waits
(portable: on Windows a lock wait does not see Ctrl-C). On any exception in the waiting
thread (KeyboardInterrupt, SystemExit from a signal handler) or in a chunk, every flag is
set, the helpers return within a poll interval, and the exception is raised once none is
computing any more. Short calls (below ``_INLINE_COST``) run in the calling thread, helped
by others when that pays, as before: its flag carries a time budget (``_INLINE_SECONDS``),
and a chunk whose kernels run past it (inputs whose cost the data size does not tell, such
as ERR's expectation over one huge tie group, quadratic in its size) stops and is done
again by a helper while the calling thread waits. Tasks must therefore give the same
result when a chunk runs twice.
"""
from __future__ import annotations

import functools
import math
import os
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

import numpy as np

__all__ = ["ChunkTask", "effective_n_threads", "max_threads", "run_alone", "run_in_chunks",
           "run_over_queries", "run_over_range"]

T = TypeVar("T")


class ChunkTask(Protocol):
    """What the runners call: ``task(start, end, stop=flag)`` does queries ``start:end``."""

    def __call__(self, start: int, end: int, /, *, stop: np.ndarray) -> object: ...

# Below this many items per thread, thread start-up costs more than it saves.
_MIN_ITEMS_PER_THREAD = 50_000
# A query's fixed cost, in items, for balancing chunks of very short lists.
_QUERY_COST = 32
# Chunks per thread: enough for idle threads to pick up the slack of uneven queries.
_CHUNKS_PER_THREAD = 8
# Threads per CPU at most, whatever n_threads asks: more cannot speed a kernel up (a few
# allow a requested split), and each costs start-up time and a stack.
_THREADS_PER_CPU = 4
# Work the calling thread may do itself, in items (about 100 ns each at worst: a query's
# row under MAP with many relevant items, a sorted document, a parsed line): 50 ms at
# most, well within the budget below, for calls whose cost follows their size. Above it,
# the calling thread only waits, so Ctrl-C is honoured within a poll interval.
_INLINE_COST = 1 << 19
# Seconds of kernel work the calling thread may do in one call before handing it over.
_INLINE_SECONDS = 0.2
# Seconds between two looks of the waiting thread at its helpers. On POSIX a signal ends
# the wait at once; on Windows this bounds the delay.
_WAIT = 0.05
# A stop flag (``_core/_stop.pxd``): byte 0 stop, byte 1 out of budget, a float64
# budget in seconds at byte 8.
_FLAG_BYTES = 24
_BUDGET = 8
_BUDGETED = np.zeros(_FLAG_BYTES, dtype=np.uint8)
_BUDGETED[_BUDGET:_BUDGET + 8] = np.frombuffer(np.float64(_INLINE_SECONDS).tobytes(), dtype=np.uint8)


# The variable that sets how many CPUs rankwise uses (``n_threads=None``), instead of the count
# found from the affinity mask and the cgroup CPU quota.
ENV_THREADS = "RANKWISE_NUM_THREADS"


def _cpu_count() -> int:
    """The CPUs this process may use: ``RANKWISE_NUM_THREADS`` when set, else :func:`_available_cpus`.

    The one place that ``n_threads=None``, negative counts and :func:`max_threads` get it
    from, for every entry point (evaluate, rank_positive, RankBuilder, Qrels/Run, trec_eval,
    compare, compare_systems and the CLI commands built on them).
    """
    text = os.environ.get(ENV_THREADS, "").strip()
    if not text:
        return _available_cpus()
    if not text.isascii() or not text.isdigit() or int(text) == 0 or int(text) > 2**63 - 1:
        raise ValueError(f"the environment variable {ENV_THREADS} must be a positive integer (at most "
                         f"2**63 - 1) or unset, got {text[:40]!r}")
    return int(text)


def _available_cpus() -> int:
    """The CPUs of this process's affinity mask, fewer when a cgroup CPU quota allows fewer."""
    if hasattr(os, "process_cpu_count"):
        cpus = os.process_cpu_count() or 1
    elif hasattr(os, "sched_getaffinity"):
        cpus = len(os.sched_getaffinity(0)) or 1
    else:
        cpus = os.cpu_count() or 1
    quota = _cgroup_cpus()
    return cpus if quota is None else max(min(cpus, quota), 1)


@functools.lru_cache(maxsize=8)
def _cgroup_cpus(root: str = "/") -> int | None:
    """The CPUs that this process's cgroup CPU quota allows (rounded up), or None (no quota).

    cgroup v2: ``cpu.max`` (``"max 100000"`` or ``"<quota> <period>"``); v1: ``cpu.cfs_quota_us``
    (-1 for none) over ``cpu.cfs_period_us``. The process's cgroup (``/proc/self/cgroup``)
    and every ancestor up to the hierarchy's mount point (``/proc/self/mountinfo``) are read:
    the smallest quota wins. ``root`` stands for ``/`` (tests point it at a directory of fake
    files). Read once per process (and again in a forked child): a container's quota is set
    when it starts.
    """
    try:
        with open(os.path.join(root, "proc/self/cgroup")) as f:
            memberships = [line.rstrip("\n").split(":", 2) for line in f]
    except OSError:  # not Linux, or no /proc
        return None
    mounts = _cgroup_mounts(root)
    limits: list[float | None] = []
    for fields in memberships:
        if len(fields) != 3:
            continue
        _, controllers, path = fields
        if controllers == "" and "cgroup2" in mounts:
            limits.append(_lowest_quota(root, mounts["cgroup2"], path, _read_cpu_max))
        elif "cpu" in controllers.split(",") and "cpu" in mounts:
            limits.append(_lowest_quota(root, mounts["cpu"], path, _read_cfs_quota))
    quotas = [x for x in limits if x is not None]
    return math.ceil(min(quotas)) if quotas else None


def _cgroup_mounts(root: str) -> dict[str, tuple[str, str]]:
    """{"cgroup2" or "cpu": (mount root, mount point)} from ``/proc/self/mountinfo``."""
    mounts: dict[str, tuple[str, str]] = {}
    try:
        with open(os.path.join(root, "proc/self/mountinfo")) as f:
            lines = f.read().splitlines()
    except OSError:
        lines = []
    for line in lines:
        # id parent major:minor root mount-point options [optional fields] - type source super-options
        head, _, tail = line.partition(" - ")
        fields, after = head.split(), tail.split()
        if len(fields) < 5 or not after:
            continue
        if after[0] == "cgroup2":
            mounts.setdefault("cgroup2", (fields[3], fields[4]))
        elif after[0] == "cgroup" and len(after) >= 3 and "cpu" in after[2].split(","):
            mounts.setdefault("cpu", (fields[3], fields[4]))
    if not lines:  # no mountinfo: the usual places
        mounts = {"cgroup2": ("/", "/sys/fs/cgroup"), "cpu": ("/", "/sys/fs/cgroup/cpu")}
    return mounts


def _lowest_quota(root: str, mount: tuple[str, str], path: str,
                  read: Callable[[str], float | None]) -> float | None:
    """The smallest quota (in CPUs) of the cgroup ``path`` and its ancestors within ``mount``."""
    mount_root, mount_point = mount
    relative = os.path.relpath(path, mount_root) if path.startswith(mount_root) else "."
    top = os.path.join(root, mount_point.lstrip("/"))
    parts = [] if relative == "." or relative.startswith("..") else relative.split("/")
    quotas = []
    for depth in range(len(parts), -1, -1):
        quota = read(os.path.join(top, *parts[:depth]))
        if quota is not None:
            quotas.append(quota)
    return min(quotas) if quotas else None


def _read_cpu_max(folder: str) -> float | None:
    fields = _read_words(os.path.join(folder, "cpu.max"))
    if len(fields) != 2 or fields[0] == "max":
        return None
    return _ratio(fields[0], fields[1])


def _read_cfs_quota(folder: str) -> float | None:
    quota = _read_words(os.path.join(folder, "cpu.cfs_quota_us"))
    period = _read_words(os.path.join(folder, "cpu.cfs_period_us"))
    if len(quota) != 1 or len(period) != 1:
        return None
    return _ratio(quota[0], period[0])


def _ratio(quota: str, period: str) -> float | None:
    """quota / period, None unless both are positive integers (-1 is v1's "no quota")."""
    try:
        q, p = int(quota), int(period)
    except ValueError:
        return None
    return q / p if q > 0 and p > 0 else None


def _read_words(path: str) -> list[str]:
    try:
        with open(path) as f:
            return f.read().split()
    except (OSError, UnicodeDecodeError):
        return []


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_cgroup_cpus.cache_clear)


def effective_n_threads(n_threads: int | np.integer | None) -> int:
    """Resolve ``n_threads``: None = all CPUs, negative counts back (-1 = all), 0 is an error.

    "All CPUs" are those this process may use: its affinity mask, fewer under a cgroup CPU
    quota (a container's ``--cpus``), or ``RANKWISE_NUM_THREADS`` when that is set (a
    positive integer, else a ValueError naming it). Any non-zero integer that int64 holds is
    accepted: no more threads are started than there are chunks of work, and counting back
    stops at one thread.

    Examples
    --------
    >>> effective_n_threads(3)
    3
    """
    cpus = _cpu_count()  # a bad RANKWISE_NUM_THREADS is refused whatever n_threads is
    if n_threads is None:
        return cpus
    if isinstance(n_threads, bool) or not isinstance(n_threads, (int, np.integer)):
        raise TypeError(f"n_threads must be an integer or None, got {n_threads!r}")
    if n_threads == 0:
        raise ValueError("n_threads must be non-zero (None or -1 for all CPUs)")
    if not -(2**63) <= n_threads <= 2**63 - 1:
        raise ValueError("n_threads must be a non-zero integer from -2**63 to 2**63 - 1 (None or -1 for "
                         f"all CPUs), got {n_threads}")
    if n_threads < 0:
        return max(cpus + 1 + int(n_threads), 1)
    return int(n_threads)


def max_threads() -> int:
    """The most threads a call starts, whatever ``n_threads`` asks: a few per CPU."""
    return _THREADS_PER_CPU * _cpu_count()


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


def run_over_queries(task: ChunkTask, indptr: np.ndarray, n_threads: int) -> None:
    """Call ``task(q_start, q_stop, stop=flag)`` over all queries, in parallel when it pays.

    ``flag`` is the stop flag of the thread running the chunk, for the task to pass on to
    its kernels as their ``stop`` argument; see the module docstring for Ctrl-C. Short
    calls: the calling thread and ``n_threads - 1`` helpers take the next chunk in turn
    until none is left (no executor, and one thread fewer to start: on 10 ms calls a
    thread pool's set-up and per-chunk futures cost over a millisecond). The first
    exception stops the other threads and is raised here.
    """
    n_queries = indptr.shape[0] - 1
    n_items = int(indptr[-1])
    n_threads = min(n_threads, max_threads(), n_queries, max(n_items // _MIN_ITEMS_PER_THREAD, 1))
    bounds = [0, n_queries] if n_threads <= 1 else _chunks(indptr, n_threads * _CHUNKS_PER_THREAD).tolist()
    run_in_chunks(task, bounds, n_threads, n_items + _QUERY_COST * n_queries)


def run_over_range(task: ChunkTask, n: int, n_threads: int, cost: int) -> None:
    """Call ``task(start, stop, stop=flag)`` over ``0..n-1`` in equal chunks, one per thread.

    For work whose units all cost the same (the resamples of a significance test), so
    that equal chunks keep the threads equally busy and a chunk's set-up (a resampling
    kernel's tables) is paid once per thread. ``cost`` is the work of all ``n`` units in
    items (see ``_INLINE_COST``); below ``_MIN_ITEMS_PER_THREAD`` items a thread, fewer
    threads run.

    Examples
    --------
    >>> seen = []
    >>> run_over_range(lambda start, end, stop: seen.append((start, end)), 10, 2, 10**6)
    >>> sorted(seen)
    [(0, 5), (5, 10)]
    """
    n_threads = min(n_threads, max_threads(), n, max(cost // _MIN_ITEMS_PER_THREAD, 1))
    bounds = [0, n] if n_threads <= 1 else np.linspace(0, n, n_threads + 1).astype(np.int64).tolist()
    run_in_chunks(task, bounds, n_threads, cost)


def run_alone(task: Callable[..., T | None], cost: int) -> T:
    """``task(stop=flag)``'s result: one chunk of work that cannot be split, interruptible.

    ``cost`` is the work in items as for ``_INLINE_COST``: above it, the task runs in a
    helper thread while this one waits. A kernel returns None only when it was stopped,
    and then either runs again or this raises, so the result is never None.
    """
    result: list[Any] = [None]

    def whole(_start: int, _end: int, stop: np.ndarray) -> None:
        result[0] = task(stop=stop)  # a chunk done again replaces what it gave when cut short

    run_in_chunks(whole, [0, 1], 1, cost)
    return result[0]


def run_in_chunks(task: ChunkTask, bounds: list[int], n_threads: int, cost: int) -> None:
    """Call ``task(bounds[i], bounds[i + 1], stop=flag)`` for every chunk ``i``, on up to ``n_threads``.

    ``cost`` is the work of all chunks in items (see ``_INLINE_COST``). No more threads
    run than there are chunks, nor than :func:`max_threads`.
    """
    n_threads = min(n_threads, len(bounds) - 1, max_threads())
    if n_threads <= 1 and cost <= _INLINE_COST:
        # The cheapest path: no thread, no lock, while the budget lasts.
        flag = _BUDGETED.copy()
        for i in range(len(bounds) - 1):
            task(bounds[i], bounds[i + 1], stop=flag)
            if flag[1]:
                return _Call(task, bounds[i:]).run(1, inline=False)
        return None
    return _Call(task, bounds).run(n_threads, inline=cost <= _INLINE_COST)


class _Call:
    """One call's chunks, its threads' stop flags and its helper threads."""

    def __init__(self, task: ChunkTask, bounds: list[int]) -> None:
        self.task = task
        self.chunks = deque(zip(bounds[:-1], bounds[1:], strict=True))
        self.lock = threading.Lock()
        self.flags: list[np.ndarray] = []
        self.stopped = False
        self.errors: list[BaseException] = []
        self.helpers: list[threading.Thread] = []
        self.ended: set[int] = set()
        self.running = 0
        # Held while a helper runs. Helpers report their end themselves: after Ctrl-C has
        # interrupted Thread.join(), CPython 3.11 may call a running thread stopped.
        self.none_running = threading.Lock()

    def run(self, n_threads: int, inline: bool) -> None:
        try:
            if inline:
                for _ in range(n_threads - 1):
                    self._start_helper()
                self._work(self._flag(_BUDGETED))
                with self.lock:  # out of budget with chunks left: one more helper, if the others have ended
                    more = 1 if self.chunks and not self.stopped else 0
            else:
                more = n_threads
            for _ in range(more):
                self._start_helper()
            while not self.none_running.acquire(timeout=_WAIT):
                pass
        except BaseException as error:  # Ctrl-C, or a signal handler's exception, while waiting
            self.errors.insert(0, error)
            self._stop()
            self._wait_stopped()
        if self.errors:
            raise self.errors[0]

    def _flag(self, template: np.ndarray | None = None) -> np.ndarray:
        flag = np.zeros(_FLAG_BYTES, dtype=np.uint8) if template is None else template.copy()
        with self.lock:
            self.flags.append(flag)
            if self.stopped:
                flag[0] = 1
        return flag

    def _stop(self) -> None:
        with self.lock:
            self.stopped = True
            for flag in self.flags:
                flag[0] = 1

    def _work(self, flag: np.ndarray) -> None:
        """Take chunks until none is left or ``flag`` is set (stopped, or out of budget)."""
        while not flag[0]:
            with self.lock:
                if not self.chunks:
                    return
                chunk = self.chunks.popleft()
            try:
                self.task(*chunk, stop=flag)
            except BaseException as error:  # raised in the calling thread
                self.errors.append(error)
                self._stop()
                return
            if flag[1]:  # out of budget: the chunk is incomplete, a helper does it again
                with self.lock:
                    self.chunks.appendleft(chunk)

    def _start_helper(self) -> None:
        i = len(self.helpers)
        thread = threading.Thread(target=self._helper, args=(i, self._flag()), name=f"rankwise-{i}",
                                  daemon=True)
        with self.lock:
            self.helpers.append(thread)
            if self.running == 0:
                self.none_running.acquire(blocking=False)
            self.running += 1
        thread.start()

    def _helper(self, i: int, flag: np.ndarray) -> None:
        try:
            self._work(flag)
        finally:
            with self.lock:
                self.ended.add(i)
                self.running -= 1
                if self.running == 0:
                    self.none_running.release()

    def _wait_stopped(self) -> None:
        """Wait, through further interrupts, until no helper computes: they have been told to stop.

        A helper whose start was interrupted before it ran (no ident yet) sees its flag set
        when it does run, and computes nothing.
        """
        while not all(i in self.ended or thread.ident is None for i, thread in enumerate(self.helpers)):
            try:
                time.sleep(0.001)
            except BaseException:  # a second Ctrl-C while they stop: the first one is raised
                pass
