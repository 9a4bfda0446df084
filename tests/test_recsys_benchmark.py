"""The recsys benchmark (benchmarks/recsys.py) at a tiny size, so that it cannot rot.

``benchmarks/bench.py --workload recsys`` runs in a fresh process on a few thousand users with one
round: every installed peer must agree with rankwise under its convention, and numpy's (and
torch's) top-k scores with rankwise's, or the command exits with 1. Peers that are not installed
are left out by the workload itself; the test is skipped outside a source tree.
"""
import subprocess
import sys
from pathlib import Path

import pytest

import rankwise as rw

BENCH = Path(__file__).resolve().parent.parent / "benchmarks" / "bench.py"


@pytest.mark.skipif(not BENCH.exists(), reason="benchmarks/ is not beside tests/")
@pytest.mark.skipif(not hasattr(rw, "evaluate_topk") or not hasattr(rw, "top_k"),
                    reason="evaluate_topk and top_k have not landed")
def test_recsys_workload_at_a_tiny_size():
    command = [sys.executable, str(BENCH), "--workload", "recsys", "--repeats", "1", "--recsys-users", "3000",
               "--recsys-items", "2000", "--recsys-sample-users", "500", "--recsys-batch", "700",
               "--topk-users", "300", "--topk-items", "3000"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "== recsys evaluate_topk" in done.stdout and "== recsys top_k" in done.stdout
    assert "rankwise top_k, 1 thread" in done.stdout
