"""Run hostile-input cases isolated from pytest's process, and judge their outcomes.

:class:`Runner` keeps one worker process (``_hostile_worker.py``) that imported
rankwise once and forks a child per case, so a case that crashes the interpreter fails
that case alone, at a few milliseconds per case. The worker is restarted if it dies.
Where ``os.fork`` does not exist (Windows) every case runs in a fresh interpreter.

Expectations: :class:`Raises` (an exception of exactly this type whose message names
the argument), :class:`Ok` (a return, optionally checked against a reference inside the
child), :class:`AnyOf` (where the contract allows either). Every expectation also
requires that the child emitted no warning at all.
"""
from __future__ import annotations

import atexit
import json
import os
import re
import selectors
import subprocess
import sys
import tempfile
from dataclasses import dataclass

WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_hostile_worker.py")
# Seconds a case may take before it counts as hung (generous: CI machines are shared).
TIMEOUT = 30.0
# Address space a case may add to its child, in bytes (Linux): the inputs are tiny, so a
# case that needs more allocated from a number the user gave.
MEMORY = 1 << 30
# BLAS thread pools would start threads at import; the worker must fork from one thread. So
# would pyarrow's jemalloc (a background purging thread), which pandas imports where installed.
_ENV = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
        "JE_ARROW_MALLOC_CONF": "background_thread:false",
        "PYTHONFAULTHANDLER": "1", "PYTHONDONTWRITEBYTECODE": "1"}


# Source text of a case that needs scipy or pandas.
_HEAVY = ("compare", "mann_whitney", "correct(", "pd.", "DF", "to_pandas", "subprocess")


@dataclass(frozen=True)
class Case:
    """One call to run: source text the child evaluates, and what it must do."""

    call: str
    expect: object
    setup: str = ""
    check: str = ""
    timeout: float = TIMEOUT
    memory: int | None = MEMORY
    stdin: str | None = None

    @property
    def heavy(self) -> bool:
        """Whether the case uses scipy or pandas (it then runs in the worker that imported them)."""
        text = " ".join((self.setup, self.call, self.check, getattr(self.expect, "check", "") or ""))
        return any(word in text for word in _HEAVY)

    def spec(self) -> dict:
        check = self.check or getattr(self.expect, "check", "") or ""
        return {"setup": self.setup, "call": self.call, "check": check, "timeout": self.timeout,
                "memory": self.memory, "stdin": self.stdin}


class Runner:
    """Workers that fork a child per case; fresh interpreters where fork is unavailable.

    Two workers: a light one (numpy and rankwise: the cheapest fork) and a heavy one that
    also imported scipy and pandas, for the cases that use them.
    """

    def __init__(self, fork: bool | None = None):
        self.fork = hasattr(os, "fork") if fork is None else fork
        self._workers = {}

    # -- the workers ---------------------------------------------------------------------

    def _start(self, heavy: bool):
        env = {**os.environ, **_ENV}
        args = [sys.executable, WORKER] + (["--heavy"] if heavy else [])
        proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                env=env, cwd=tempfile.gettempdir())
        selector = selectors.DefaultSelector()
        selector.register(proc.stdout, selectors.EVENT_READ)
        self._workers[heavy] = (proc, selector)
        hello = self._read_line(heavy, 120.0)
        if hello is None or not json.loads(hello).get("ready"):
            self._stop(heavy)
            raise RuntimeError(f"the hostile-input worker did not start: {hello!r}")

    def _read_line(self, heavy: bool, timeout: float) -> str | None:
        proc, selector = self._workers[heavy]
        if not selector.select(timeout):
            return None
        line = proc.stdout.readline()
        return line.decode() if line else None

    def _stop(self, heavy: bool) -> None:
        proc, selector = self._workers.pop(heavy)
        try:
            proc.stdin.close()
            proc.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            proc.kill()
            proc.wait()
        selector.close()

    def close(self) -> None:
        for heavy in list(self._workers):
            self._stop(heavy)

    def _forked(self, spec: dict, heavy: bool) -> dict:
        if heavy in self._workers and self._workers[heavy][0].poll() is not None:
            self._stop(heavy)
        if heavy not in self._workers:
            self._start(heavy)
        proc = self._workers[heavy][0]
        try:
            proc.stdin.write((json.dumps(spec) + "\n").encode())
            proc.stdin.flush()
            line = self._read_line(heavy, spec["timeout"] + 30)
        except OSError:
            line = None
        if line is None:
            proc.kill()
            self._stop(heavy)
            return {"status": "error", "message": "the worker died or stopped answering (restarted)"}
        return json.loads(line)

    # -- fresh interpreters ----------------------------------------------------------------

    def _fresh(self, spec: dict) -> dict:
        folder = tempfile.mkdtemp(prefix="rankwise-hostile-")
        result = os.path.join(folder, "outcome.json")
        try:
            proc = subprocess.run([sys.executable, WORKER, "--once", result], input=json.dumps(spec).encode(),
                                  capture_output=True, timeout=spec["timeout"] + 10, env={**os.environ, **_ENV},
                                  cwd=folder)
        except subprocess.TimeoutExpired:
            return {"status": "timeout", "message": f"no outcome after {spec['timeout']} s"}
        if os.path.exists(result):
            with open(result) as f:
                return json.load(f)
        stderr = proc.stderr.decode("utf-8", "replace")[-3000:]
        if proc.returncode < 0:
            import signal

            return {"status": "signal", "signal": signal.Signals(-proc.returncode).name, "stderr": stderr}
        return {"status": "error", "message": f"the interpreter exited with status {proc.returncode:#x} "
                                              "without reporting", "stderr": stderr}

    def run(self, case: Case) -> dict:
        spec = case.spec()
        return self._forked(spec, case.heavy) if self.fork else self._fresh(spec)


def run_all(cases: list, workers: int | None = None) -> list:
    """Outcomes of many cases, run by ``workers`` runners in parallel (default: one per CPU, at most 4).

    Each runner's cases go to its workers one after another with no test in between,
    so the CPUs stay busy; a case still runs alone in its own child.
    """
    from concurrent.futures import ThreadPoolExecutor

    count = workers or max(1, min(4, _cpu_count()))
    outcomes = [None] * len(cases)

    def work(start: int) -> None:
        own = Runner(fork=_fork_wanted())
        try:
            for i in range(start, len(cases), count):
                outcomes[i] = own.run(cases[i])
        finally:
            own.close()

    with ThreadPoolExecutor(max_workers=count) as pool:
        list(pool.map(work, range(count)))
    return outcomes


def _cpu_count() -> int:
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


def _fork_wanted() -> bool | None:
    return None if os.environ.get("RANKWISE_HOSTILE_FRESH") != "1" else False


_RUNNER: Runner | None = None


def runner() -> Runner:
    """The process-wide runner (one worker for the whole session)."""
    global _RUNNER
    if _RUNNER is None:
        _RUNNER = Runner(fork=_fork_wanted())
        atexit.register(_RUNNER.close)
    return _RUNNER


# --------------------------------------------------------------------------------------
# Expectations
# --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Raises:
    """An exception of exactly ``exc`` whose message contains every text of ``names``."""

    exc: type
    names: tuple = ()

    def problem(self, outcome: dict) -> str | None:
        want = f"{self.exc.__module__}.{self.exc.__qualname__}"
        shown = _short(want)
        if outcome["status"] != "raised":
            return f"expected {shown}{_naming(self.names)}, but it {_describe(outcome)}"
        if outcome["type"] != want:
            return (f"expected {shown}{_naming(self.names)}, but it raised {_short(outcome['type'])}: "
                    f"{outcome['message']}")
        message = outcome["message"]
        missing = [n for n in self.names if not any(_names(text, message) for text in ((n,) if isinstance(n, str) else n))]
        if missing:
            wanted = " and ".join(repr(n) if isinstance(n, str) else " or ".join(map(repr, n)) for n in missing)
            return f"raised {shown} as expected, but the message does not name {wanted}: {message}"
        return None

    def __str__(self) -> str:
        return f"{_short(self.exc.__module__ + '.' + self.exc.__qualname__)}{_naming(self.names)}"


@dataclass(frozen=True)
class Ok:
    """A return; ``check`` (statements, ``result`` bound) runs in the child."""

    check: str = ""

    def problem(self, outcome: dict) -> str | None:
        if outcome["status"] != "returned":
            return f"expected a result, but it {_describe(outcome)}"
        if outcome.get("check"):
            return f"returned {outcome['repr']}, but the check failed: {outcome['check']}"
        return None

    def __str__(self) -> str:
        return "a result" + (" (checked)" if self.check else "")


@dataclass(frozen=True)
class AnyOf:
    """Either of several outcomes (the contract allows each)."""

    options: tuple

    @property
    def check(self) -> str:
        return next((o.check for o in self.options if isinstance(o, Ok) and o.check), "")

    def problem(self, outcome: dict) -> str | None:
        problems = [o.problem(outcome) for o in self.options]
        if any(p is None for p in problems):
            return None
        return f"expected one of [{'; '.join(map(str, self.options))}]: " + " / ".join(problems)

    def __str__(self) -> str:
        return " or ".join(map(str, self.options))


def _names(text: str, message: str) -> bool:
    """Whether ``message`` contains ``text`` as a name: not inside a longer identifier ('p' is not in 'supported')."""
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(text)}(?![A-Za-z0-9_])", message) is not None


def _short(name: str) -> str:
    return name[len("builtins."):] if name.startswith("builtins.") else name


def _naming(names) -> str:
    shown = [repr(n) if isinstance(n, str) else " or ".join(map(repr, n)) for n in names]
    return f" naming {' and '.join(shown)}" if names else ""


def _describe(outcome: dict) -> str:
    status = outcome["status"]
    if status == "raised":
        return f"raised {_short(outcome['type'])}: {outcome['message']}"
    if status == "returned":
        return f"returned {outcome['repr']}"
    if status == "signal":
        return f"CRASHED: killed by {outcome['signal']}" + _stderr(outcome)
    if status == "timeout":
        return f"HUNG: {outcome['message']}" + _stderr(outcome)
    return f"failed to report: {outcome.get('message')}" + _stderr(outcome)


def _stderr(outcome: dict) -> str:
    text = (outcome.get("stderr") or "").strip()
    return f"\n--- stderr of the case ---\n{text}" if text else ""


def judge(case: Case, outcome: dict) -> str | None:
    """None when the outcome meets the case's expectation, else what went wrong."""
    problem = case.expect.problem(outcome)
    warned = outcome.get("warnings") or []
    if warned:
        problem = (problem + "; and " if problem else f"{_describe(outcome)}, but ") + \
            "emitted warnings: " + " | ".join(warned)
    return problem


def assert_case(case: Case, outcome: dict | None = None) -> dict:
    """Run ``case`` isolated (unless its ``outcome`` is known) and fail (pytest) with a precise
    description unless it meets its expectation."""
    if outcome is None:
        outcome = runner().run(case)
    problem = judge(case, outcome)
    if problem:
        import pytest

        pytest.fail(f"{case.call}\n  -> {problem}", pytrace=False)
    return outcome
