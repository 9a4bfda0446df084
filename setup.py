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
}

KERNELS = ["_sort", "_listwise", "_count", "_text", "_ids", "_trec", "_resample"]

extensions = [
    Extension(f"rankwise._kernels.{name}", [f"src/rankwise/_kernels/{name}.pyx"])
    for name in KERNELS
]

setup(
    ext_modules=cythonize(extensions, compiler_directives=DIRECTIVES, include_path=["src"]),
)
