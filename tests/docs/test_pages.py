"""Every example on the documentation site runs and prints what its page says.

Each page docs/**/*.md is one test case: its ``>>>`` examples run through doctest
(NORMALIZE_WHITESPACE, fresh globals per page, as tests/test_docstrings.py runs the README),
and each ``$ rankwise ...`` line of its ```console blocks runs through the installed
``rankwise`` command, whose output (stdout then stderr) must equal the lines after it, exactly.
Both run in a temporary directory holding a copy of docs/_data, so that paths read as from
docs/ (``_data/...``) and nothing is written into the tree.

A page skips where a module it needs does not import: those its front matter names
(``requires: [ranx, torch]``) and those its examples import (rankwise.plot, rankwise.spark and
rankwise.dask stand for their extras), so the suite runs wherever rankwise's tests do, with
or without the docs extra.
"""
import ast
import doctest
import importlib
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

# Figures drawn by a page's examples go nowhere: no display is needed.
os.environ.setdefault("MPLBACKEND", "Agg")

DOCS = Path(__file__).resolve().parents[2] / "docs"
if not DOCS.is_dir():
    pytest.skip("docs/ is only in a source checkout or the sdist", allow_module_level=True)

# Generated output, not pages.
GENERATED = {("_build",), ("api", "generated")}
# rankwise's modules that are extras of their own: importing one needs the module named here.
EXTRA_MODULES = {"rankwise.plot": "matplotlib", "rankwise.spark": "pyspark", "rankwise.dask": "dask"}


def pages(docs: Path) -> list[Path]:
    """The Markdown pages under ``docs``, generated directories left out."""
    def generated(path: Path) -> bool:
        parts = path.relative_to(docs).parts
        return any(parts[:len(prefix)] == prefix for prefix in GENERATED)
    return sorted(path for path in docs.rglob("*.md") if not generated(path))


FRONT_MATTER = re.compile(r"\A---\r?\n(.*?)\r?\n---\r?\n", re.S)


def front_matter(text: str) -> dict[str, str | list[str]]:
    """The ``key: value`` lines of a page's YAML front matter; ``[a, b]`` values as lists.

    Only the flat subset the pages use: no nesting, no quoting, no multi-line values.
    """
    match = FRONT_MATTER.match(text)
    fields: dict[str, str | list[str]] = {}
    for line in match.group(1).splitlines() if match else []:
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        key, sep, value = line.partition(":")
        if not sep:
            raise ValueError(f"front matter line {line!r} is not 'key: value'")
        value = value.strip()
        if value.startswith("[") and value.endswith("]"):
            fields[key.strip()] = [item.strip() for item in value[1:-1].split(",") if item.strip()]
        else:
            fields[key.strip()] = value
    return fields


def required_modules(text: str, test: doctest.DocTest) -> list[str]:
    """What a page needs: its front matter's ``requires``, then what its examples import."""
    requires = front_matter(text).get("requires", [])
    needed = [requires] if isinstance(requires, str) else list(requires)
    for example in test.examples:
        try:
            tree = ast.parse(example.source)
        except SyntaxError:
            continue  # doctest reports it
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                needed += [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                needed.append(node.module)
    modules = []
    for name in needed:
        if name == "rankwise" or name.startswith("rankwise."):
            name = next((extra for module, extra in EXTRA_MODULES.items()
                         if name == module or name.startswith(module + ".")), "")
        if name and name not in modules:
            modules.append(name)
    return modules


FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})\s*(?P<info>[^`\s]*)")


def fenced_blocks(text: str) -> list[tuple[str, int, list[str]]]:
    """Every fenced code block: (info string, line number of its first line, its lines)."""
    blocks = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        fence = opening["fence"]
        closing = re.compile(rf"^ {{0,3}}{fence[0]}{{{len(fence)},}}\s*$")
        end = next((j for j in range(i + 1, len(lines)) if closing.match(lines[j])), len(lines))
        blocks.append((opening["info"], i + 2, lines[i + 1:end]))
        i = end + 1
    return blocks


def doctest_source(text: str) -> str:
    """The page with its fence lines blanked (line numbers kept): an expected output then ends
    at its block's end, with or without a blank line before the closing fence."""
    return "\n".join("" if FENCE.match(line) else line for line in text.splitlines()) + "\n"


def page_doctest(text: str, name: str, filename: str) -> doctest.DocTest:
    return doctest.DocTestParser().get_doctest(doctest_source(text), {"__name__": "__main__"}, name,
                                               filename, 0)


def doctest_failures(test: doctest.DocTest) -> list[str]:
    """Run a page's examples; the report of each one that failed."""
    report: list[str] = []
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE, verbose=False)
    try:
        runner.run(test, out=report.append, clear_globs=True)
    finally:
        if "matplotlib.pyplot" in sys.modules:
            sys.modules["matplotlib.pyplot"].close("all")
    return report


def console_commands(text: str) -> list[tuple[int, str, list[str]]]:
    """Every ``$`` line of the page's console blocks: (line number, command, expected lines)."""
    commands: list[tuple[int, str, list[str]]] = []
    for info, first, lines in fenced_blocks(text):
        if info != "console":
            continue
        for offset, line in enumerate(lines):
            if line.startswith("$"):
                commands.append((first + offset, line[1:].strip(), []))
            elif commands and commands[-1][0] >= first:
                commands[-1][2].append(line)
            elif line.strip():
                commands.append((first + offset, "", [line]))  # output before any command
    return commands


def rankwise_script() -> str:
    script = shutil.which("rankwise", path=sysconfig.get_path("scripts"))
    assert script is not None, "the rankwise command is not installed beside this Python"
    return script


# What a shell would do more than split words and remove quotes: the command runs without one.
SHELL = re.compile(r"[|&;<>()$`*?~\\]")
QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")


# The commands run in another directory: a relative PYTHONPATH (PYTHONPATH=src on an in-place
# build) must still name what it named where pytest started.
ENV = dict(os.environ, COLUMNS="100")
if os.environ.get("PYTHONPATH"):
    ENV["PYTHONPATH"] = os.pathsep.join(os.path.abspath(entry) if entry else entry
                                        for entry in os.environ["PYTHONPATH"].split(os.pathsep))


def console_failures(text: str, filename: str, cwd: Path) -> list[str]:
    """Run each ``$ rankwise ...`` line of a page in ``cwd``; the report of each that failed."""
    report = []
    for lineno, command, expected in console_commands(text):
        where = f"{filename}:{lineno}"
        try:
            argv = shlex.split(command)
        except ValueError:  # an unclosed quote
            argv = []
        if not argv or argv[0] != "rankwise" or SHELL.search(QUOTED.sub("", command)):
            report.append(f"{where}: a console block may only hold `$ rankwise ...` lines (arguments "
                          f"quoted as in a shell, no pipes, redirections, variables or globs) and their "
                          f"output, not {command or expected[0]!r}")
            continue
        proc = subprocess.run([rankwise_script(), *argv[1:]], capture_output=True, text=True, env=ENV,
                              cwd=cwd, timeout=300)
        got = (proc.stdout + proc.stderr).splitlines()
        while expected and not expected[-1].strip():
            expected = expected[:-1]
        if got != expected:
            report.append(f"{where}: $ {command}\nexpected:\n" + "".join(f"  {line!r}\n" for line in expected)
                          + "got:\n" + "".join(f"  {line!r}\n" for line in got))
    return report


def example_dir(tmp_path: Path, docs: Path) -> Path:
    """A directory that reads like docs/ for examples: a copy of docs/_data."""
    if (docs / "_data").is_dir():
        shutil.copytree(docs / "_data", tmp_path / "_data")
    return tmp_path


PAGES = pages(DOCS)


@pytest.mark.parametrize("page", PAGES, ids=[page.relative_to(DOCS).as_posix() for page in PAGES])
def test_page_examples(page, tmp_path, monkeypatch):
    text = page.read_text(encoding="utf-8")
    name = page.relative_to(DOCS).as_posix()
    test = page_doctest(text, name, str(page))
    commands = console_commands(text)
    if not test.examples and not commands:
        pytest.skip("no examples on this page")
    for module in required_modules(text, test):
        try:
            importlib.import_module(module)
        except ImportError as error:
            pytest.skip(f"needs {module}: {error}")
    monkeypatch.chdir(example_dir(tmp_path, DOCS))
    failures = doctest_failures(test) + console_failures(text, str(page), Path.cwd())
    assert not failures, "\n".join(failures)


# ------------------------------------------------------------ the checker itself, on pages made here

def test_pages_leave_out_generated_directories(tmp_path):
    for path in ["index.md", "metrics/ap.md", "api/index.md", "api/generated/x.md", "_build/html/y.md"]:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("# x\n")
    assert [p.relative_to(tmp_path).as_posix() for p in pages(tmp_path)] == [
        "api/index.md", "index.md", "metrics/ap.md"]


def test_front_matter():
    assert front_matter("---\nrequires: [ranx, torch]\ntitle: Ranx\n---\n# Ranx\n") == {
        "requires": ["ranx", "torch"], "title": "Ranx"}
    assert front_matter("---\nrequires: ranx\n---\n") == {"requires": "ranx"}
    assert front_matter("# No front matter\n---\nrequires: [x]\n---\n") == {}
    with pytest.raises(ValueError, match="key: value"):
        front_matter("---\nnot a field\n---\n")


def test_required_modules():
    text = "---\nrequires: [ranx]\n---\n```python\n>>> import numpy as np, rankwise as rw\n" \
           ">>> from rankwise.plot import per_query\n>>> import sklearn.metrics\n```\n"
    test = page_doctest(text, "page", "page.md")
    assert required_modules(text, test) == ["ranx", "numpy", "matplotlib", "sklearn.metrics"]


PAGE = """# A page

```python
>>> 1 + 1
{}
```

Text, and a shell example:

```console
$ rankwise eval --example -m P.5
P_5                   \tall\t{}
```
"""


def test_a_right_page_passes(tmp_path):
    text = PAGE.format(2, "0.7600")
    assert doctest_failures(page_doctest(text, "page", "page.md")) == []
    assert console_failures(text, "page.md", tmp_path) == []


def test_a_wrong_doctest_output_fails():
    failures = doctest_failures(page_doctest(PAGE.format(3, "0.7600"), "page", "page.md"))
    assert len(failures) == 1 and "Expected:\n    3\nGot:\n    2" in failures[0]


def test_a_wrong_console_output_fails(tmp_path):
    failures = console_failures(PAGE.format(2, "0.7601"), "page.md", tmp_path)
    assert len(failures) == 1 and failures[0].startswith("page.md:11: $ rankwise eval --example -m P.5")
    missing_line = PAGE.format(2, "0.7600").replace("P_5", "map                   \tall\t0.4433\nP_5")
    assert len(console_failures(missing_line, "page.md", tmp_path)) == 1


def test_a_console_block_runs_rankwise_only(tmp_path):
    for command in ["ls", "python -m rankwise --version", "rankwise eval --example | head -1",
                    "rankwise eval $HOME/x.qrels", "rankwise eval --example > out", "rankwise eval 'x"]:
        text = f"```console\n$ {command}\n```\n"
        assert "only hold `$ rankwise ...` lines" in console_failures(text, "page.md", tmp_path)[0]
    assert console_failures("```console\nrankwise 0.1.0\n```\n", "page.md", tmp_path) != []


def test_console_output_runs_to_the_next_command():
    text = "~~~~console\n$ rankwise --version\nout 1\n\n$ rankwise --help\nout 2\n~~~~\n```console\n$ rankwise x\n```\n"
    assert console_commands(text) == [(2, "rankwise --version", ["out 1", ""]), (5, "rankwise --help", ["out 2"]),
                                      (9, "rankwise x", [])]
