"""The example data shipped in ``rankwise/data``: one place that knows where it lies."""
from __future__ import annotations

import os

__all__ = ["data_path"]

# rankwise's extension modules keep it from being imported from a zip file, so its data
# is always a folder beside its modules.
_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")


def data_path(name: str) -> str:
    """The path of the bundled file ``name``.

    Examples
    --------
    >>> from rankwise._core.bundled import data_path
    >>> data_path("example.qrels").endswith("example.qrels")
    True
    """
    return os.path.join(_DATA, name)
