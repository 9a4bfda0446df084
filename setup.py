"""Extension modules only; all metadata lives in pyproject.toml.

Set RANKWISE_DEBUG_CYTHON=1 to build with bounds, wraparound and initialisation checks on.
"""
import os

from Cython.Build import cythonize
from setuptools import Extension, setup

DEBUG = os.environ.get("RANKWISE_DEBUG_CYTHON", "0") == "1"

DIRECTIVES = {
    "language_level": 3,
    "boundscheck": DEBUG,
    "wraparound": DEBUG,
    "initializedcheck": DEBUG,
    "nonecheck": DEBUG,
    "cdivision": True,
    "embedsignature": True,
    # Free-threaded CPython (3.14t) may run the kernels without re-enabling the GIL: they keep
    # no module state written after import (only constants and a C locale made at import),
    # read their inputs and write only their own call's buffers, and the thread pool hands
    # every chunk of queries disjoint output rows.
    "freethreading_compatible": True,
}

KERNELS = ["_sort", "_listwise", "_count", "_text", "_ids", "_trec", "_resample"]

# No extra compiler flags: the interpreter's own optimisation level suits every wheel, where
# -march=native would crash on older CPUs and -ffast-math would break NaN handling.
extensions = [
    Extension(f"rankwise._kernels.{name}", [f"src/rankwise/_kernels/{name}.pyx"])
    for name in KERNELS
]

setup(
    ext_modules=cythonize(extensions, compiler_directives=DIRECTIVES, include_path=["src"]),
)
