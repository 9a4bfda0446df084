"""Progress bars on stderr: shown on a real terminal (a pseudo-terminal), silent otherwise."""
from __future__ import annotations

import os
import struct
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import rankwise as rw
from rankwise._core import bootstrap
from rankwise._core.progress import ENV_PROGRESS, Bar, check_progress, progress_bar
from rankwise.stats import significance

pytest.importorskip("tqdm")
pty = pytest.importorskip("pty")
fcntl = pytest.importorskip("fcntl")
termios = pytest.importorskip("termios")

SRC = str(Path(rw.__file__).resolve().parents[1])

# The child reads a run file of a few MB and compares two systems with many resamples;
# _DELAY = 0 so that a call shorter than the automatic delay still shows its bar.
CHILD = textwrap.dedent("""
    import sys
    import numpy as np
    import rankwise as rw
    import rankwise._core.progress as progress
    progress._DELAY = 0
    what, path, flag = sys.argv[1], sys.argv[2], {"auto": None, "off": False}[sys.argv[3]]
    if what == "read":
        run = rw.Run.read(path, progress=flag)
        print(len(run))
    else:
        rng = np.random.default_rng(0)
        a, b = rng.random(200), rng.random(200)
        print(rw.compare(a, b, n_resamples=200_000, seed=1, progress=flag).pvalue)
        report = rw.compare_systems({"x": rw.evaluate([[1, 0]] * 4, rng.random((4, 2)), ["MRR"]),
                                     "y": rw.evaluate([[1, 0]] * 4, rng.random((4, 2)), ["MRR"])},
                                    test="bootstrap", n_resamples=50_000, seed=1, progress=flag)
        print(report.comparisons[0].result.pvalue)
""")


@pytest.fixture(scope="module")
def big_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("progress") / "big.run"
    rows = [f"q{q} Q0 doc{d} {d} {1 / (d + 1):.6f} sys\n" for q in range(200) for d in range(400)]
    path.write_text("".join(rows))
    return path


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != ENV_PROGRESS}
    env["PYTHONPATH"] = SRC + os.pathsep + env.get("PYTHONPATH", "")
    env.update(extra)
    return env


def _on_terminal(args: list[str], env: dict[str, str]) -> tuple[str, str]:
    """Run the child (or ``python -c ...`` given whole) with stderr on a pseudo-terminal: (stdout,
    what the terminal got)."""
    if args[0] != "-c":
        args = ["-c", CHILD, *args]
    master, slave = pty.openpty()
    # A new pseudo-terminal is 0 columns wide, where a bar has no room: give it a real size.
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 120, 0, 0))
    try:
        child = subprocess.Popen([sys.executable, *args], stdout=subprocess.PIPE, stderr=slave,
                                 env=env)
    finally:
        os.close(slave)
    got = bytearray()
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:   # EIO: the child closed the terminal
            break
        if not chunk:
            break
        got += chunk
    os.close(master)
    out = child.stdout.read().decode() if child.stdout else ""
    assert child.wait(timeout=120) == 0, got.decode(errors="replace")
    return out, got.decode(errors="replace")


def _on_pipe(args: list[str], env: dict[str, str]) -> tuple[str, str]:
    done = subprocess.run([sys.executable, "-c", CHILD, *args], capture_output=True, env=env, timeout=120,
                          check=True)
    return done.stdout.decode(), done.stderr.decode()


def test_reading_a_large_file_shows_its_bytes_on_a_terminal(big_run: Path) -> None:
    out, terminal = _on_terminal(["read", str(big_run), "auto"], _env())
    assert out.strip() == "80000"
    assert "reading" in terminal and "big.run" in terminal
    size = big_run.stat().st_size
    assert f"{size / 2**20:.2f}M" in terminal   # the total: the file's size, in MiB


def test_compare_with_many_resamples_shows_them_on_a_terminal() -> None:
    out, terminal = _on_terminal(["compare", "-", "auto"], _env())
    assert "randomization test" in terminal and "200000" in terminal
    assert "bootstrap tests" in terminal and "50000" in terminal
    _, silent = _on_terminal(["compare", "-", "off"], _env())
    assert silent == ""
    assert out == _on_pipe(["compare", "-", "off"], _env())[0]


@pytest.mark.parametrize("what", ["read", "compare"])
def test_silent_on_a_pipe_when_off_and_when_the_environment_says_0(big_run: Path, what: str) -> None:
    args = [what, str(big_run)]
    out, err = _on_pipe([*args, "auto"], _env())
    assert err == ""
    assert _on_terminal([*args, "off"], _env()) == (out, "")
    assert _on_terminal([*args, "auto"], _env(**{ENV_PROGRESS: "0"})) == (out, "")


def test_forced_without_tqdm_names_the_extra(monkeypatch: pytest.MonkeyPatch, big_run: Path) -> None:
    monkeypatch.setitem(sys.modules, "tqdm", None)
    with pytest.raises(ImportError, match=r'pip install "rankwise\[progress\]"'):
        rw.compare([0.1, 0.2, 0.3], [0.3, 0.1, 0.0], progress=True)
    with pytest.raises(ImportError, match=r"rankwise\[progress\]"):
        rw.Run.read(big_run, progress=True)
    # Automatic progress without tqdm is silent, whatever stderr is.
    assert not progress_bar(None, 10, "x").shown


@pytest.mark.parametrize("sliced", [False, True])
def test_results_identical_with_and_without_progress(big_run: Path, monkeypatch: pytest.MonkeyPatch,
                                                     sliced: bool) -> None:
    if sliced:      # every resampling in slices between updates, however short
        monkeypatch.setattr(bootstrap, "_PROGRESS_COST", 0)
    rng = np.random.default_rng(5)
    a, b = rng.random(300), rng.random(300)
    for test in ("randomization", "bootstrap"):
        quiet = rw.compare(a, b, test=test, n_resamples=30_001, seed=7, progress=False)
        shown = rw.compare(a, b, test=test, n_resamples=30_001, seed=7, progress=True)
        assert quiet.pvalue == shown.pvalue
        assert quiet.distribution is not None and shown.distribution is not None
        np.testing.assert_array_equal(quiet.distribution, shown.distribution)
    run, shown_run = rw.Run.read(big_run, progress=False), rw.Run.read(big_run, progress=True)
    assert run.to_dict() == shown_run.to_dict()
    exact = rw.compare(a[:10], b[:10], progress=True)      # 2**10 patterns, all of them
    assert exact.exact and exact.pvalue == rw.compare(a[:10], b[:10], progress=False).pvalue


def test_the_silent_bar_and_argument_checks() -> None:
    with progress_bar(False, 5, "x") as bar:
        bar.update(3)
    assert type(bar) is Bar and not bar.shown
    assert check_progress(None) is None and check_progress(True) is True
    for bad in (1, "yes", 0.0):
        with pytest.raises(TypeError, match="progress must be"):
            check_progress(bad)
    with pytest.raises(TypeError, match="progress must be"):
        rw.compare([0.1, 0.2], [0.2, 0.1], progress=1)  # type: ignore[arg-type]


CLI = ("import sys, rankwise._core.progress as progress; progress._DELAY = 0; "
       "from rankwise.cli.command import main; sys.exit(main(sys.argv[1:]))")


def test_cli_shows_progress_on_stderr_only_and_no_progress_turns_it_off(big_run: Path, tmp_path: Path) -> None:
    qrels = tmp_path / "big.qrels"
    qrels.write_text("".join(f"q{q} 0 doc{q} 1\n" for q in range(200)))
    other = tmp_path / "other.run"
    other.write_bytes(big_run.read_bytes())
    args = ["compare", str(qrels), str(big_run), str(other), "--resamples", "100000", "--seed", "1",
            "-m", "map"]

    out, terminal = _on_terminal(["-c", CLI, *args], _env())
    assert "reading" in terminal and "randomization tests" in terminal
    assert "reading" not in out and "resamples/s" not in out        # stdout holds the report only
    quiet_out, quiet = _on_terminal(["-c", CLI, *args, "--no-progress"], _env())
    assert quiet == "" and quiet_out == out


class _Recorded(Bar):
    """A bar that keeps its total and updates, for the counts a read reports."""

    def __init__(self, total: float | None) -> None:
        self.total, self.updates = total, []

    def update(self, n: float = 1) -> None:
        self.updates.append(n)


@pytest.mark.parametrize("suffix", ["", ".gz", ".xz"])
def test_a_read_counts_the_file_bytes_compressed_or_not(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         big_run: Path, suffix: str) -> None:
    from rankwise.trec import parsing

    bars: list[_Recorded] = []
    monkeypatch.setattr(parsing, "_BLOCK", 1 << 16)     # many blocks, so many updates
    monkeypatch.setattr(parsing, "progress_bar", lambda progress, total, *a, **k: bars.append(_Recorded(total))
                        or bars[-1])
    path = tmp_path / f"run{suffix}"
    original = rw.Run.read(big_run)
    original.write(path)
    assert len(rw.Run.read(path)) == len(original)
    size = path.stat().st_size
    assert bars[-1].total == size and sum(bars[-1].updates) == size and len(bars[-1].updates) > 1
    with open(path, "rb") as stream:     # a stream given open: no total, its bytes still counted
        rw.Run.read(stream)
    assert bars[-1].total is None and sum(bars[-1].updates) == size


class _ShownBar(_Recorded):
    shown = True


def test_sign_flip_slices_keep_the_table_set_up_a_tenth_of_their_work(monkeypatch: pytest.MonkeyPatch) -> None:
    # Each chunk of sign flips builds 256 table entries per group of 8 queries, then one
    # lookup per group and resample: a slice of a thread needs 2,560 resamples or more.
    slices: list[int] = []
    real = bootstrap.run_over_range
    monkeypatch.setattr(bootstrap, "run_over_range",
                        lambda task, n, threads, cost: slices.append(n) or real(task, n, threads, cost))
    d = np.random.default_rng(0).random(200_000) - 0.5
    bar = _ShownBar(None)
    significance._sign_flip_distribution(d, False, 12_000, 1, 2, 2, bar)
    assert slices == [6_000, 6_000] and sum(bar.updates) == 12_000
    slices.clear()
    significance._sign_flip_distribution(d[:800], False, 600_000, 1, 2, 2, bar)
    assert len(slices) == bootstrap._PROGRESS_SLICES and min(slices) >= 2 * 2_560
    slices.clear()
    bootstrap.bootstrap_distribution(d, 12_000, 1, 2, 2, bar)    # no set-up: every slice
    assert len(slices) == bootstrap._PROGRESS_SLICES
