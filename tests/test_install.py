"""The tests must exercise the installed package, never the source tree."""
import os
import re
import subprocess
import sys
import sysconfig
from importlib.metadata import version
from pathlib import Path

import pytest

import rankwise

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def test_imported_from_installed_package():
    source_tree = Path(__file__).resolve().parents[1] / "src"
    assert source_tree not in Path(rankwise.__file__).resolve().parents


def test_version_is_the_installed_distributions():
    assert re.fullmatch(r"\d+\.\d+\.\d+", rankwise.__version__) and rankwise.__version__ == version("rankwise")


@pytest.mark.skipif(not PYPROJECT.exists(), reason="pyproject.toml is only in a source tree")
def test_version_comes_from_the_package():
    text = PYPROJECT.read_text(encoding="utf-8")
    assert re.search(r'^dynamic = \["version"\]$', text, re.MULTILINE)
    assert re.search(r'^version = \{attr = "rankwise.__version__"\}$', text, re.MULTILINE)


@pytest.mark.skipif(not sysconfig.get_config_var("Py_GIL_DISABLED"), reason="needs free-threaded CPython")
def test_import_keeps_the_gil_disabled():
    # A fresh interpreter (other test dependencies may have re-enabled the GIL in this one)
    # imports the package and every compiled module (the engine adapters where their engine is).
    code = ("import importlib, importlib.util, pkgutil, sys, rankwise\n"
            "engines = {'rankwise.dask': 'dask', 'rankwise.spark': 'pyspark'}\n"
            "for m in pkgutil.walk_packages(rankwise.__path__, 'rankwise.'):\n"
            "    if importlib.util.find_spec(engines.get(m.name, 'rankwise')):\n"
            "        importlib.import_module(m.name)\n"
            "print(sys._is_gil_enabled())")
    env = {k: v for k, v in os.environ.items() if k != "PYTHON_GIL"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env).stdout
    assert out.strip() == "False"
