"""Progress of long work on stderr: one bar object for every domain, tqdm behind it when shown.

``progress=None`` (every public function's default) shows a bar when stderr is a terminal,
tqdm imports and ``RANKWISE_PROGRESS`` is not ``0``; ``False`` never shows one; ``True``
shows one whatever stderr is, and raises ImportError naming the extra if tqdm is missing.
Updates come from the calling thread between chunks of work, never from kernels, so a
silent bar costs one call to a method that does nothing per chunk. Shown bars still take
a lock: a caller may update them from a helper thread (the engines' polling threads).
"""
from __future__ import annotations

import os
import sys
import threading
from types import TracebackType
from typing import Any

__all__ = ["ENV_PROGRESS", "Bar", "check_progress", "progress_bar"]

# The variable that turns automatic progress off (``0``) for a whole process or session.
ENV_PROGRESS = "RANKWISE_PROGRESS"
# Seconds of work before an automatic bar appears: a call that ends sooner prints nothing.
_DELAY = 0.5


class Bar:
    """A progress bar that shows nothing: what silent calls get, and the base of shown bars.

    ``update(n)`` counts ``n`` more units done, ``close()`` ends the bar; a context manager.
    """

    shown = False

    def update(self, n: float = 1) -> None:
        """Count ``n`` more units done."""

    def close(self) -> None:
        """End the bar (its last state stays on the terminal)."""

    def __enter__(self) -> Bar:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()


class _Shown(Bar):
    """A tqdm bar on stderr, updated under a lock."""

    shown = True

    def __init__(self, tqdm: Any, total: float | None, desc: str, unit: str, delay: float) -> None:
        self._lock = threading.Lock()
        scale = unit == "B"
        self._bar = tqdm(total=total, desc=desc, unit=unit, unit_scale=scale,
                         unit_divisor=1024 if scale else 1000, delay=delay, file=sys.stderr, leave=False,
                         dynamic_ncols=True)

    def update(self, n: float = 1) -> None:
        with self._lock:
            self._bar.update(n)

    def close(self) -> None:
        with self._lock:
            self._bar.close()


def check_progress(progress: object) -> bool | None:
    """``progress`` itself if it is None, True or False; otherwise a TypeError naming it."""
    if progress is None or isinstance(progress, bool):
        return progress
    raise TypeError(f"progress must be None (shown when stderr is a terminal), True or False, got "
                    f"{type(progress).__name__}")


def _tqdm(required: bool) -> Any:
    try:
        from tqdm import tqdm
    except ImportError:
        if required:
            raise ImportError('progress=True needs tqdm: pip install "rankwise[progress]"') from None
        return None
    return tqdm


def _wanted(progress: bool | None) -> bool:
    if progress is not None:
        return progress
    if os.environ.get(ENV_PROGRESS, "").strip() == "0":
        return False
    stream = sys.stderr
    try:
        return stream is not None and stream.isatty()
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


def progress_bar(progress: bool | None, total: float | None, desc: str, unit: str = "it") -> Bar:
    """A bar for ``total`` units (None: unknown) if ``progress`` asks for one, else a silent :class:`Bar`.

    ``unit="B"`` counts bytes (shown as KiB, MiB, ...).

    Examples
    --------
    >>> with progress_bar(False, 10, "resamples") as bar:
    ...     bar.update(5)
    >>> bar.shown
    False
    """
    progress = check_progress(progress)
    if not _wanted(progress):
        return Bar()
    tqdm = _tqdm(required=progress is True)
    if tqdm is None:
        return Bar()
    return _Shown(tqdm, total, desc, unit, 0.0 if progress else _DELAY)
