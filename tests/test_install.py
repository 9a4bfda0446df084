"""The tests must exercise the installed package, never the source tree."""
from pathlib import Path

import rankwise


def test_imported_from_installed_package():
    source_tree = Path(__file__).resolve().parents[1] / "src"
    assert source_tree not in Path(rankwise.__file__).resolve().parents


def test_version_is_set():
    assert rankwise.__version__ != "0+unknown"
