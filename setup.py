"""Extension modules only; all metadata lives in pyproject.toml.

Set RANKWISE_DEBUG_CYTHON=1 to build with bounds, wraparound and initialisation checks on (and
debug info kept). Set RANKWISE_SANITIZE=1 to build with AddressSanitizer and
UndefinedBehaviorSanitizer (gcc or clang; the kernels' checks stay as shipped unless
RANKWISE_DEBUG_CYTHON=1 too): .ci/run's sanitizer step, the README says how to run it.
"""
import json
import os
import sys
from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

DEBUG = os.environ.get("RANKWISE_DEBUG_CYTHON", "0") == "1"
SANITIZE = os.environ.get("RANKWISE_SANITIZE", "0") == "1"

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

# Each domain's compiled kernels, as package.module under src/rankwise; _core's are shared.
KERNELS = ["_core._enums", "_core._sort", "_core._intern", "_core._duplicates", "_core._exact",
           "_core._group", "_core._sparse", "lists._listwise", "ranks._count", "ranks._chance", "trec._text",
           "trec._ids", "trec._trec", "_core._resample", "recsys._select",
           "recsys._topk", "fusion._fuse", "agreement._agreement", "diversity._diversity"]

# Compiler types of setuptools that drive gcc or clang (gcc-style options).
GCC_LIKE = {"unix", "mingw32", "cygwin"}
# gcc's "undefined" leaves out float-cast-overflow (a double too big for the integer it is
# cast to), which clang's includes.
SANITIZERS = "-fsanitize=address,undefined,float-cast-overflow"


def build_flags(compiler_type, platform=sys.platform, *, debug=False, sanitize=False):
    """(compile args, link args) that every kernel gets, after the interpreter's own flags.

    They come last on the command line, so they win over the interpreter's flags and over any
    CFLAGS, CPPFLAGS or LDFLAGS from the environment (which, with current setuptools, replace
    the interpreter's flags instead of adding to them: CFLAGS=-g0 alone once built the wheels
    with no optimisation at all). No -march=native (the wheels run on every CPU of their
    platform) and no -ffast-math (NaN handling is part of the API).
    """
    if compiler_type == "msvc":
        if sanitize:
            raise RuntimeError("RANKWISE_SANITIZE=1 needs gcc or clang; this build uses MSVC")
        # MSVC writes no debug info unless asked (/Zi, /DEBUG), so there is nothing to strip.
        return ["/O2", "/DNDEBUG"], []
    if compiler_type not in GCC_LIKE:
        if sanitize:
            raise RuntimeError(f"RANKWISE_SANITIZE=1 needs gcc or clang; this build uses {compiler_type}")
        return [], []
    if sanitize:
        # The kernels as shipped (NDEBUG, Cython's checks off unless debug), less the
        # optimisations that hide errors; -fno-wrapv so that a signed overflow, which the
        # release build's -fwrapv would turn into a silent wrong number, is reported.
        compile_args = ["-O1", "-DNDEBUG", "-fno-wrapv", "-g", "-fno-omit-frame-pointer",
                        SANITIZERS, "-fno-sanitize-recover=all"]
        return compile_args, [SANITIZERS]
    # -O3 and -fwrapv are what CPython builds itself and, through sysconfig, its extensions
    # with; -DNDEBUG turns off the C asserts of CPython's and Cython's headers. Functions
    # start on a cache line, so that a kernel's hot loop keeps its place within the lines
    # whatever code comes before it in the module: with gcc's default 16 bytes, moving
    # unrelated code made the same instructions of _listwise 9% slower (benchmark W5, issue 14).
    compile_args = ["-O3", "-DNDEBUG", "-fwrapv", "-falign-functions=64"]
    if debug:
        return compile_args, []
    # No debug info (the interpreter's -g made four fifths of each extension), and stripped
    # at link time; macOS's ld strips debug symbols with -S.
    return [*compile_args, "-g0"], ["-Wl,-S" if platform == "darwin" else "-s"]


class BuildExt(build_ext):
    """Cythonizes into the build directory and adds build_flags() to every extension.

    The generated C and the objects of a build depend on its variant (RANKWISE_DEBUG_CYTHON,
    RANKWISE_SANITIZE, the flags): when the variant differs from the last build in the same
    build directory, everything is regenerated and recompiled, so that a release build never
    reuses a debug or sanitizer build left by an earlier `pip install .`, nor the reverse.
    """

    def build_extensions(self):
        compile_args, link_args = build_flags(self.compiler.compiler_type, debug=DEBUG, sanitize=SANITIZE)
        variant = json.dumps({"directives": DIRECTIVES, "compile": compile_args, "link": link_args,
                              "compiler": self.compiler.compiler_type}, sort_keys=True)
        stamp = Path(self.build_temp, "rankwise-build-variant.json")
        if not stamp.is_file() or stamp.read_text() != variant:
            stamp.unlink(missing_ok=True)  # until this build has finished: it may not
            self.force = self.compiler.force = True
        # One module per CPU, translated and compiled: 19 kernels took minutes one after another
        # (CI builds them three times: the README's install, the sanitizer build, the wheel).
        cpus = os.cpu_count() or 1
        if not self.parallel:
            self.parallel = cpus
        cythonized = cythonize(self.extensions, compiler_directives=DIRECTIVES, include_path=["src"],
                               build_dir=os.path.join(self.build_temp, "cython"), force=self.force,
                               nthreads=cpus if cpus > 1 else 0)
        # The same Extension objects (setuptools annotated them), now with the generated C.
        for ext, generated in zip(self.extensions, cythonized, strict=True):
            assert ext.name == generated.name, (ext.name, generated.name)
            ext.sources = generated.sources
            ext.extra_compile_args = [*ext.extra_compile_args, *compile_args]
            ext.extra_link_args = [*ext.extra_link_args, *link_args]
        super().build_extensions()
        stamp.parent.mkdir(parents=True, exist_ok=True)
        stamp.write_text(variant)


def main(kernels=KERNELS, **setup_args):
    """setup() for the given kernels (.ci/check-build-flags builds one of them)."""
    extensions = [
        Extension(f"rankwise.{name}", [f"src/rankwise/{name.replace('.', '/')}.pyx"])
        for name in kernels
    ]
    setup(ext_modules=extensions, cmdclass={"build_ext": BuildExt}, **setup_args)


if __name__ == "__main__":
    main()
