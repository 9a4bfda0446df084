"""Without PySpark, rankwise.spark says which extra to install (runs whether PySpark is there or not)."""
import importlib
import sys

import pytest


def test_import_without_pyspark_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyspark", None)   # import pyspark now raises ImportError
    for name in [name for name in sys.modules if name.startswith("pyspark.")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.delitem(sys.modules, "rankwise.spark", raising=False)
    with pytest.raises(ImportError, match=r'rankwise.spark needs PySpark 3.5\+ and pyarrow: pip install "rankwise\[spark\]"'):
        importlib.import_module("rankwise.spark")
