"""The engines benchmark (benchmarks/engines.py) at a tiny size, so that it cannot rot.

``benchmarks/bench.py --workload engines`` runs in a fresh process on 3,000 rows with one round:
every implementation must agree with rankwise on the tie-free variant, and rankwise.spark's and
rankwise.dask's means must equal rw.evaluate's on the timed data, or the command exits with 1.
An engine is left out when its software is missing (pyspark and Java; dask with distributed),
and the test is skipped when both are, or outside a source tree (no benchmarks/ beside tests/).
"""
import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "benchmarks" / "bench.py"


def has_java() -> bool:
    home = os.environ.get("JAVA_HOME")
    return (Path(home) / "bin" / "java").exists() if home else shutil.which("java") is not None


def available_engines() -> list:
    spark = importlib.util.find_spec("pyspark") is not None and has_java()
    dask = importlib.util.find_spec("dask") is not None and importlib.util.find_spec("distributed") is not None
    return [name for name, ok in (("spark", spark), ("dask", dask)) if ok]


@pytest.mark.skipif(not BENCH.exists(), reason="benchmarks/ is not beside tests/")
def test_engines_workload_at_a_tiny_size(tmp_path):
    engines = available_engines()
    if not engines:
        pytest.skip("neither pyspark with Java nor dask[dataframe,distributed] is installed")
    command = [sys.executable, str(BENCH), "--workload", "engines", "--engine-rows", "3000", "--engine-queries", "30",
               "--engine-repeats", "1", "--engine-data-dir", str(tmp_path), "--engines", *engines,
               "--spark-driver-memory", "1g", "--dask-memory-limit", "1GiB"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-6000:]
    assert "DISAGREES" not in done.stdout
    for engine in engines:
        assert f"-- {engine}:" in done.stdout
        if importlib.util.find_spec(f"rankwise.{engine}") is not None:
            assert f"rankwise.{engine} evaluate(...).mean()" in done.stdout
