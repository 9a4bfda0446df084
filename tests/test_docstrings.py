"""Every docstring example in the installed package runs and prints what it says."""
import doctest
import importlib
import pkgutil
from pathlib import Path

import pytest

import rankwise

# Every module of every package, kernels included (their embedded signatures), but the
# ``__main__`` modules, which run the command when imported.
MODULES = sorted({"rankwise"} | {m.name for m in pkgutil.walk_packages(rankwise.__path__, "rankwise.")
                                 if not m.name.endswith(".__main__")})


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE, verbose=False)
    assert result.failed == 0


README = Path(__file__).resolve().parents[1] / "README.md"


@pytest.mark.skipif(not README.exists(), reason="README.md is only in a source checkout")
def test_readme_examples():
    result = doctest.testfile(str(README), module_relative=False, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0 and result.attempted > 0
