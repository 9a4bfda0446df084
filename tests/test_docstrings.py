"""Every docstring example in the installed package runs and prints what it says."""
import doctest
import importlib
import importlib.util
import pkgutil
import re
from pathlib import Path

import pytest

import rankwise

# Every module of every package, kernels included (their embedded signatures), but the
# ``__main__`` modules, which run the command when imported.
MODULES = sorted({"rankwise"} | {m.name for m in pkgutil.walk_packages(rankwise.__path__, "rankwise.")
                                 if not m.name.endswith(".__main__")})


# Examples that use an optional extra run where it is installed (each wheel's tests install
# what has wheels for it): a docstring whose examples mention one is skipped without it.
EXTRAS = {"pyarrow": re.compile(r"pyarrow|_arrow\b|\.parquet|polars"), "polars": re.compile(r"polars"),
          "matplotlib": re.compile(r"matplotlib")}
MISSING = [pattern for module, pattern in EXTRAS.items() if importlib.util.find_spec(module) is None]


def needs_missing_extra(test):
    return any(pattern.search(example.source) for example in test.examples for pattern in MISSING)


# Modules that are extras themselves: their import fails without the engine they adapt.
OPTIONAL_MODULES = {"rankwise.spark": "pyspark", "rankwise.dask": "dask"}


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    if name in OPTIONAL_MODULES and importlib.util.find_spec(OPTIONAL_MODULES[name]) is None:
        pytest.skip(f"{name} needs {OPTIONAL_MODULES[name]}")
    module = importlib.import_module(name)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE, verbose=False)
    for test in doctest.DocTestFinder().find(module):
        if not needs_missing_extra(test):
            runner.run(test)
    assert runner.failures == 0


README = Path(__file__).resolve().parents[1] / "README.md"


@pytest.mark.skipif(not README.exists(), reason="README.md is only in a source checkout")
def test_readme_examples():
    result = doctest.testfile(str(README), module_relative=False, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0 and result.attempted > 0
