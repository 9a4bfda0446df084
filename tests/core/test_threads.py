"""Results are bit-identical for every thread count, and the work really is split."""
import importlib
import os
import threading

import numpy as np
import pytest

import rankwise as rw
from rankwise._core import parallel as _parallel

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

    monkeypatch.setattr(importlib.import_module("rankwise.lists.evaluation"), "run_over_queries", spy)
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


# --------------------------------------------------------------------------------------
# n_threads=None: the CPUs this process may use (affinity, cgroup quota, RANKWISE_NUM_THREADS)
# --------------------------------------------------------------------------------------

def _fake_root(tmp_path, cgroup: str, mountinfo: str | None, files: dict):
    """A directory standing for "/": /proc/self/cgroup, /proc/self/mountinfo and cgroup files."""
    (tmp_path / "proc/self").mkdir(parents=True)
    (tmp_path / "proc/self/cgroup").write_text(cgroup)
    if mountinfo is not None:
        (tmp_path / "proc/self/mountinfo").write_text(mountinfo)
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    return str(tmp_path)


V2_MOUNT = "30 23 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate\n"
V1_MOUNTS = ("32 31 0:29 /docker/abc /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct\n"
             "35 31 0:32 /docker/abc /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n")


@pytest.mark.parametrize("cpu_max, want", [("max 100000", None), ("200000 100000", 2), ("150000 100000", 2),
                                           ("50000 100000", 1), ("1000 100000", 1), ("400000 50000", 8)])
def test_cgroup_v2_quota(tmp_path, cpu_max, want):
    # A container's --cpus=1.5 is 150000/100000: two threads can use it; a fraction of a CPU is one.
    root = _fake_root(tmp_path, "0::/\n", V2_MOUNT, {"sys/fs/cgroup/cpu.max": cpu_max + "\n"})
    assert _parallel._cgroup_cpus(root) == want


def test_cgroup_v2_the_smallest_quota_of_the_cgroup_and_its_ancestors_wins(tmp_path):
    root = _fake_root(tmp_path, "0::/user.slice/job\n", V2_MOUNT, {
        "sys/fs/cgroup/cpu.max": "max 100000\n",
        "sys/fs/cgroup/user.slice/cpu.max": "300000 100000\n",
        "sys/fs/cgroup/user.slice/job/cpu.max": "max 100000\n",
        "sys/fs/cgroup/other/cpu.max": "100000 100000\n",   # another cgroup's quota is not ours
    })
    assert _parallel._cgroup_cpus(root) == 3


@pytest.mark.parametrize("quota, period, want", [("-1", "100000", None), ("250000", "100000", 3),
                                                 ("100000", "100000", 1), ("garbage", "100000", None)])
def test_cgroup_v1_quota(tmp_path, quota, period, want):
    # The mount's root is the container's own cgroup (/docker/abc), as Docker mounts it.
    cgroup = "12:memory:/docker/abc\n4:cpu,cpuacct:/docker/abc\n1:name=systemd:/docker/abc\n"
    root = _fake_root(tmp_path, cgroup, V1_MOUNTS, {"sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us": quota + "\n",
                                                    "sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us": period + "\n"})
    assert _parallel._cgroup_cpus(root) == want


def test_cgroup_hybrid_and_no_mountinfo(tmp_path):
    # No mountinfo: the usual mount points. v1 and v2 both limit: the smaller wins.
    root = _fake_root(tmp_path, "0::/\n2:cpu:/\n", None, {
        "sys/fs/cgroup/cpu.max": "500000 100000\n",
        "sys/fs/cgroup/cpu/cpu.cfs_quota_us": "200000\n", "sys/fs/cgroup/cpu/cpu.cfs_period_us": "100000\n"})
    assert _parallel._cgroup_cpus(root) == 2


def test_no_cgroup_files_means_no_quota(tmp_path):
    assert _parallel._cgroup_cpus(str(tmp_path)) is None   # not Linux: no /proc/self/cgroup
    root = _fake_root(tmp_path / "empty", "0::/\n", V2_MOUNT, {})
    assert _parallel._cgroup_cpus(root) is None            # no cpu.max (the cpu controller is off)


@pytest.mark.parametrize("quota, want", [(None, 6), (3, 3), (1, 1), (64, 6)])
def test_a_quota_below_the_affinity_mask_lowers_the_count(monkeypatch, quota, want):
    monkeypatch.delenv("RANKWISE_NUM_THREADS", raising=False)
    monkeypatch.setattr(_parallel.os, "process_cpu_count", lambda: 6, raising=False)
    monkeypatch.setattr(_parallel.os, "sched_getaffinity", lambda pid: set(range(6)), raising=False)
    monkeypatch.setattr(_parallel, "_cgroup_cpus", lambda: quota)
    assert _parallel.effective_n_threads(None) == want
    assert _parallel.effective_n_threads(-1) == want
    assert _parallel.max_threads() == _parallel._THREADS_PER_CPU * want
    assert _parallel.effective_n_threads(5) == 5      # an explicit count is the caller's


def test_this_process_count_honours_its_own_cgroup():
    # Whatever this machine is: never more than the affinity mask, nor than the quota.
    cpus = _parallel._available_cpus()
    quota = _parallel._cgroup_cpus()
    assert cpus >= 1
    if hasattr(os, "sched_getaffinity"):
        assert cpus <= len(os.sched_getaffinity(0))
    assert quota is None or cpus <= quota


def test_environment_variable_overrides_the_count(monkeypatch):
    monkeypatch.setattr(_parallel, "_cgroup_cpus", lambda: 1)
    for text, want in [("3", 3), (" 12 ", 12), ("1", 1)]:
        monkeypatch.setenv("RANKWISE_NUM_THREADS", text)
        assert _parallel.effective_n_threads(None) == want
        assert _parallel.effective_n_threads(-2) == max(want - 1, 1)
        assert _parallel.max_threads() == _parallel._THREADS_PER_CPU * want
        assert _parallel.effective_n_threads(2) == 2
    monkeypatch.setenv("RANKWISE_NUM_THREADS", "")   # set but empty: as if unset
    assert _parallel.effective_n_threads(None) == _parallel._available_cpus()


BAD_ENV = ["0", "-1", "1.5", "two", "1e3", "2" * 30, "٣", "+4"]


@pytest.mark.parametrize("text", BAD_ENV)
def test_environment_variable_must_be_a_positive_integer(monkeypatch, text):
    monkeypatch.setenv("RANKWISE_NUM_THREADS", text)
    for n_threads in (None, -1, 4):   # refused whatever the call asks: before any work
        with pytest.raises(ValueError, match=r"RANKWISE_NUM_THREADS must be a positive integer .*got"):
            _parallel.effective_n_threads(n_threads)


def _entry_points():
    y_true, y_score = np.array([1, 0, 1, 0]), np.array([0.4, 0.3, 0.2, 0.1])
    qrels = rw.Qrels.from_dict({"q": {"a": 1, "b": 0}, "r": {"a": 1}})
    run = rw.Run.from_dict({"q": {"a": 0.5, "b": 0.7}, "r": {"a": 0.1, "c": 0.2}}, name="x")
    other = rw.Run.from_dict({"q": {"a": 0.9, "b": 0.7}, "r": {"a": 0.3, "c": 0.2}}, name="y")
    a, b = np.linspace(0, 1, 12), np.linspace(0, 1, 12) ** 2
    return {
        "evaluate": lambda: rw.evaluate(y_true, y_score, ["MRR"], indptr=[0, 2, 4]),
        "rank_positive": lambda: rw.rank_positive([0.5], [[0.1, 0.7]]),
        "RankBuilder": lambda: rw.RankBuilder([0.5, 0.2]),
        "Qrels.from_arrays": lambda: rw.Qrels.from_arrays(np.array([1, 1]), np.array([2, 3]), np.array([1, 0])),
        "Run.from_arrays": lambda: rw.Run.from_arrays(np.array([1, 1]), np.array([2, 3]), np.array([0.5, 0.1])),
        "trec_eval": lambda: rw.trec_eval(qrels, run, ["map"]),
        "compare-randomization": lambda: rw.compare(a, b, test="randomization", n_resamples=100, seed=1),
        "compare-bootstrap": lambda: rw.compare(a, b, test="bootstrap", n_resamples=100, seed=1),
        "compare-t": lambda: rw.compare(a, b, test="t"),
        "compare_systems": lambda: rw.compare_systems({"x": run, "y": other}, qrels, metrics=["map"],
                                                      n_resamples=100, seed=1),
    }


@pytest.mark.parametrize("name", list(_entry_points()))
def test_every_entry_point_resolves_threads_in_one_place(monkeypatch, name):
    call = _entry_points()[name]
    call()
    monkeypatch.setenv("RANKWISE_NUM_THREADS", "zero")
    with pytest.raises(ValueError, match="RANKWISE_NUM_THREADS must be a positive integer"):
        call()


def test_resampling_uses_the_resolved_count(monkeypatch):
    parallel = importlib.import_module("rankwise._core.parallel")
    seen = []
    original = parallel.run_in_chunks

    def spy(task, bounds, n_threads, cost):
        seen.append((len(bounds) - 1, n_threads))
        return original(task, bounds, n_threads, cost)

    monkeypatch.setattr(parallel, "run_in_chunks", spy)
    monkeypatch.setattr(parallel, "_MIN_ITEMS_PER_THREAD", 1)
    a, b = np.linspace(0, 1, 40), np.linspace(0, 1, 40) ** 2
    for text in ("1", "3"):
        monkeypatch.setenv("RANKWISE_NUM_THREADS", text)
        seen.clear()
        one = rw.compare(a, b, test="bootstrap", n_resamples=1000, seed=5)
        assert seen == [(int(text), int(text))]
        if text == "1":
            first = one
    assert repr(one) == repr(first)   # bit-identical for any thread count
