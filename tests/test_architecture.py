"""The import rules of ARCHITECTURE.md, checked on the installed package's source.

Every ``.py`` module under the imported ``rankwise`` is parsed with ``ast`` (nothing is
executed), its imports resolved to absolute module names, and three rules checked:

1. Layers. Imports go one way: ``_core`` <- ``lists``, ``ranks`` <- ``trec``, ``recsys`` <-
   ``diversity``, ``fusion``, ``agreement`` <- ``stats`` <- ``plot`` <- ``_engines``, ``cli`` <-
   ``spark``, ``dask``. A package (or top-level module: the
   figures, the engine adapters) imports only from its own layer's package and the layers below
   it; siblings on one layer (``lists`` and ``ranks``, ``_engines`` and ``cli``, ``spark`` and
   ``dask``) import neither each other. The top-level modules
   (``rankwise/__init__.py``, ``__main__.py``) sit above everything. ``testing`` holds the
   independent references, so it imports nothing of rankwise at all.
2. Kernels. A domain's private modules (``rankwise.<domain>._x``, compiled kernels among them)
   are imported only by that domain. ``_core``'s are shared by every domain.
3. No import inside a function body, so that no cycle can hide behind a lazy import. The
   exceptions are the optional extras (pandas, pyarrow, polars, zstandard, matplotlib, tqdm, and
   distributed, where a Dask client may run rankwise.dask's jobs), which a user may not have
   installed, and scipy's submodules: ``stats`` imports ``scipy.stats``/``scipy.special``
   when a test runs, because importing ``scipy.stats`` costs several times as long as
   importing all of rankwise, and ``import rankwise`` should not pay it.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

import rankwise

ROOT = Path(rankwise.__file__).resolve().parent

# Layer of each subpackage; a module may import from packages of a lower layer, and from its
# own package. Siblings on one layer (lists, ranks) do not import each other.
# The engine adapters are top-level modules: ``_engines`` (what they share) below ``spark`` and ``dask``;
# so is ``plot``, the figures, which the command line draws with.
LAYERS = {"_core": 0, "lists": 1, "ranks": 1, "trec": 2, "recsys": 2, "diversity": 3, "fusion": 3,
          "agreement": 3, "stats": 4, "plot": 5, "_engines": 6, "cli": 6, "ir_measures": 6, "spark": 7,
          "dask": 7}

LAZY_ALLOWED = ("pandas", "pyarrow", "polars", "scipy", "zstandard", "matplotlib", "tqdm", "distributed",
                "ir_measures")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(ROOT.rglob("*.py"))}
# Compiled modules (and their stubs) count as modules too, for resolving ``from . import _x``.
KNOWN = set(MODULES) | {module_name(p) for p in ROOT.rglob("*.pyi")}


def is_package(name: str) -> bool:
    return MODULES.get(name, Path()).name == "__init__.py"


def imported_modules(name: str, node: ast.Import | ast.ImportFrom) -> list[str]:
    """Absolute names of the modules an import statement in module ``name`` loads."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level == 0:
        base = node.module or ""
    else:
        package = name if is_package(name) else name.rpartition(".")[0]
        for _ in range(node.level - 1):
            package = package.rpartition(".")[0]
        base = f"{package}.{node.module}" if node.module else package
    # ``from package import name`` loads package.name when that is a module.
    submodules = [f"{base}.{alias.name}" for alias in node.names if f"{base}.{alias.name}" in KNOWN]
    return [base, *submodules]


def domain(module: str) -> str | None:
    """The subpackage of rankwise a module belongs to (None: the top level)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in (*LAYERS, "testing") else None


def module_imports(name: str) -> list[tuple[int, str]]:
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8"), filename=str(MODULES[name]))
    return [(node.lineno, target)
            for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))
            for target in imported_modules(name, node)]


def test_every_module_is_seen():
    # Guards against a test that passes because it found nothing to parse.
    assert {"rankwise._core.validation", "rankwise.lists.evaluation", "rankwise.cli.command",
            "rankwise.stats.significance", "rankwise.trec.evaluation", "rankwise.testing.lists",
            "rankwise._engines", "rankwise.spark", "rankwise.plot"} <= set(MODULES)
    assert {"rankwise.lists._listwise", "rankwise.trec._trec"} <= KNOWN


def allowed(own: str | None, target: str) -> bool:
    """Whether a module of package ``own`` may import the rankwise module ``target``."""
    theirs = domain(target)
    if own == "testing" or theirs == "testing":
        return False  # the references share nothing with the library, either way
    if own is None or theirs == own:
        return True
    if theirs is None:
        return own == "cli"  # the command line's --version reads rankwise.__version__
    return LAYERS[theirs] < LAYERS[own]


@pytest.mark.parametrize("name", sorted(MODULES))
def test_imports_go_down_the_layers(name):
    upward = [(line, target) for line, target in module_imports(name)
              if target.split(".")[0] == "rankwise" and not allowed(domain(name), target)]
    assert not upward, f"{name} imports upward or sideways: {upward}"


@pytest.mark.parametrize("name", sorted(MODULES))
def test_private_modules_stay_in_their_domain(name):
    own = domain(name)
    foreign = [(line, target) for line, target in module_imports(name)
               if target.startswith("rankwise.")
               and domain(target) not in (own, "_core", None)
               and any(part.startswith("_") and not part.startswith("__") for part in target.split(".")[2:])]
    assert not foreign, f"{name} imports another domain's private modules: {foreign}"


def lazy_imports(tree: ast.AST) -> list[tuple[int, str]]:
    found = []
    for function in ast.walk(tree):
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            for node in ast.walk(function):
                if isinstance(node, ast.Import):
                    found += [(node.lineno, alias.name) for alias in node.names]
                elif isinstance(node, ast.ImportFrom):
                    found.append((node.lineno, "." * node.level + (node.module or "")))
    return found


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_import_inside_a_function(name):
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))
    lazy = [(line, target) for line, target in lazy_imports(tree)
            if target.split(".")[0] not in LAZY_ALLOWED]
    assert not lazy, f"{name} imports inside a function: {lazy}"


def test_the_checks_can_fail():
    # The rules, applied to made-up modules, flag what they should.
    tree = ast.parse("def f():\n    import numpy\n    from .x import y\n")
    assert [t for _, t in lazy_imports(tree)] == ["numpy", ".x"]
    fake = ast.parse("from ..stats import compare\nfrom ..lists import _listwise\n").body
    assert imported_modules("rankwise.trec.evaluation", fake[0]) == ["rankwise.stats"]
    assert imported_modules("rankwise.trec.evaluation", fake[1]) == ["rankwise.lists", "rankwise.lists._listwise"]
    assert not allowed("trec", "rankwise.stats") and not allowed("lists", "rankwise.ranks.positive")
    assert not allowed("testing", "rankwise._core") and not allowed("stats", "rankwise.testing.trec")
    assert allowed("stats", "rankwise.trec.evaluation") and allowed("ranks", "rankwise._core.names")
    assert domain("rankwise.spark") == "spark" and domain("rankwise._engines") == "_engines"
    assert allowed("spark", "rankwise._engines") and allowed("_engines", "rankwise.stats.inputs")
    assert not allowed("stats", "rankwise._engines") and not allowed("_engines", "rankwise.spark")
    assert not allowed("dask", "rankwise.spark") and not allowed("cli", "rankwise._engines")
    assert allowed("cli", "rankwise.plot") and allowed("plot", "rankwise.stats.report")
    assert not allowed("plot", "rankwise.cli") and not allowed("stats", "rankwise.plot")
