"""No function body over 60 lines (ARCHITECTURE.md, "Kernel conventions"), docstrings not counted.

Python modules are read from the installed package and measured with ``ast``. The kernels'
``.pyx``/``.pxd`` sources are read from the source tree beside the tests (a checkout or an
unpacked sdist, which both hold ``src/``): a ``def``/``cdef`` header, its signature up to the
colon, and the lines indented below it. A function that must stay longer, because splitting it
measurably slows it, goes in ``EXEMPT`` with that reason.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import rankwise

MAX_LINES = 60
PACKAGE = Path(rankwise.__file__).resolve().parent
SOURCES = Path(__file__).resolve().parents[1] / "src" / "rankwise"
# "rankwise/<module path>:<function>" -> why it may be longer (none needs to be today).
EXEMPT: dict[str, str] = {}

_HEADER = re.compile(r"^(\s*)(?:cpdef|cdef|def)\s+(?!class\b|struct\b|enum\b|extern\b|packed\b|union\b)"
                     r"[^=(]*?\b(\w+)\s*\(")
_DOCSTRING = re.compile(r'\s*[rbuRBU]?("""|\'\'\')(.*?)\1', re.S)


def python_lengths(text: str) -> dict[str, int]:
    """Lines of each function's body, from its first statement after the docstring to its last."""
    lengths = {}
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if ast.get_docstring(node, clean=False) is not None:
                body = body[1:]
            if body:
                lengths[node.name] = max(lengths.get(node.name, 0),
                                         (body[-1].end_lineno or body[-1].lineno) - body[0].lineno + 1)
    return lengths


def cython_lengths(text: str) -> dict[str, int]:
    """The same for Cython: the lines below the signature's colon, less a leading docstring."""
    lines = text.splitlines()
    lengths: dict[str, int] = {}
    i = 0
    while i < len(lines):
        header = _HEADER.match(lines[i])
        end = i
        while header and end < len(lines) - 1 and not lines[end].rstrip().endswith(":"):
            if lines[end].rstrip().endswith(("nogil", "noexcept", ")")) and "(" not in lines[end + 1]:
                break  # a declaration without a body (a .pxd prototype)
            end += 1
        if not header or not lines[end].rstrip().endswith(":"):
            i += 1
            continue
        indent, last, j = len(header.group(1)), end, end + 1
        while j < len(lines) and (not lines[j].strip() or len(lines[j]) - len(lines[j].lstrip()) > indent):
            if lines[j].strip():
                last = j
            j += 1
        body = "\n".join(lines[end + 1:last + 1])
        docstring = _DOCSTRING.match(body)
        skipped = body[:docstring.end()].count("\n") + 1 if docstring else 0
        lengths[header.group(2)] = max(lengths.get(header.group(2), 0), last - end - skipped)
        i = j
    return lengths


def too_long(where: str, lengths: dict[str, int]) -> list[str]:
    return [f"{where}:{name} has a body of {n} lines" for name, n in sorted(lengths.items())
            if n > MAX_LINES and f"{where}:{name}" not in EXEMPT]


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_python_functions_are_short(path):
    where = f"rankwise/{path.relative_to(PACKAGE).as_posix()}"
    assert not too_long(where, python_lengths(path.read_text(encoding="utf-8")))


KERNELS = sorted([*SOURCES.rglob("*.pyx"), *SOURCES.rglob("*.pxd")])


def test_kernel_sources_are_here():
    assert len(KERNELS) >= 10, f"expected the kernels' sources under {SOURCES}"


@pytest.mark.parametrize("path", KERNELS, ids=lambda p: str(p.relative_to(SOURCES)))
def test_kernel_functions_are_short(path):
    where = f"rankwise/{path.relative_to(SOURCES).as_posix()}"
    assert not too_long(where, cython_lengths(path.read_text(encoding="utf-8")))


def test_the_measures_can_fail():
    body = "\n".join(f"    x{i} = {i}" for i in range(61))
    assert python_lengths(f'def f():\n    """Doc.\n\n    More."""\n{body}\n') == {"f": 61}
    kernel = (f"cdef int f(int a,\n          int b) noexcept nogil:\n    \"\"\"Doc.\"\"\"\n{body}\n\n"
              "cdef int g(int a) noexcept nogil\n\ndef h():\n    return 1\n")
    assert cython_lengths(kernel) == {"f": 61, "h": 1}
    assert too_long("m.pyx", {"f": 61, "h": 1}) == ["m.pyx:f has a body of 61 lines"]
