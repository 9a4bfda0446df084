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


def test_version_is_set():
    assert rankwise.__version__ == version("rankwise") != "0+unknown"


@pytest.mark.skipif(not PYPROJECT.exists(), reason="pyproject.toml is only in a source tree")
def test_version_comes_from_pyproject():
    declared = re.search(r'^version = "([^"]+)"$', PYPROJECT.read_text(encoding="utf-8"), re.MULTILINE)
    assert declared is not None and rankwise.__version__ == declared.group(1)


@pytest.mark.skipif(not sysconfig.get_config_var("Py_GIL_DISABLED"), reason="needs free-threaded CPython")
def test_import_keeps_the_gil_disabled():
    # A fresh interpreter (other test dependencies may have re-enabled the GIL in this one)
    # imports the package and every compiled module.
    code = ("import importlib, pkgutil, sys, rankwise\n"
            "for m in pkgutil.walk_packages(rankwise.__path__, 'rankwise.'):\n"
            "    importlib.import_module(m.name)\n"
            "print(sys._is_gil_enabled())")
    env = {k: v for k, v in os.environ.items() if k != "PYTHON_GIL"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env).stdout
    assert out.strip() == "False"


def test_version_of_an_uninstalled_tree():
    # A source tree that was never installed has no metadata: the version says so.
    code = ("import importlib.metadata as m\n"
            "def version(name):\n"
            "    raise m.PackageNotFoundError(name)\n"
            "m.version = version\n"
            "import rankwise\n"
            "print(rankwise.__version__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out == "0+unknown\n"
