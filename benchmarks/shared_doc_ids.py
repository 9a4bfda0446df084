"""Peak memory of ties="trec" when every query ranks the same documents (issue 13).

One ranking's doc ids serve 1,000 topics of 10,000 documents. Three ways to pass them:
``shared`` (a 1-D array of one row's ids), ``view`` (``np.broadcast_to`` of it: every row
the same memory) and ``per-query`` (a 2-D copy, 360 MB of strings: the general form, whose
ids are ranked all together). Each runs in a fresh process, so peak RSS is its own.

    python benchmarks/shared_doc_ids.py            # all three, one process each
"""
from __future__ import annotations

import resource
import subprocess
import sys
import time
import tracemalloc

import numpy as np

FORMS = ("shared", "view", "per-query")


def measure(form: str, n_queries: int = 1000, n_docs: int = 10_000) -> str:
    import rankwise as rw

    rng = np.random.default_rng(0)
    # Filled a row at a time, so no temporary raises the high-water mark before the call.
    scores = np.empty((n_queries, n_docs), np.float32)
    labels = np.empty((n_queries, n_docs), np.int8)
    for q in range(n_queries):
        scores[q], labels[q] = rng.integers(0, 50, n_docs), rng.integers(0, 3, n_docs)
    ids = np.array([f"doc{i:06d}" for i in range(n_docs)])
    doc_ids = {"shared": ids, "view": np.broadcast_to(ids, scores.shape),
               "per-query": np.broadcast_to(ids, scores.shape).copy()}[form]
    given = scores.nbytes + labels.nbytes + (ids.nbytes if form != "per-query" else doc_ids.nbytes)
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    tracemalloc.start()
    start = time.perf_counter()
    rw.evaluate(labels, scores, ["AP", "nDCG@10", "P@5"], ties="trec", doc_ids=doc_ids)
    seconds = time.perf_counter() - start
    _, traced = tracemalloc.get_traced_memory()
    grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) / 1024
    return (f"{form:<10} input {given / 2**20:7.1f} MiB   peak RSS growth {grown:7.1f} MiB   "
            f"traced peak {traced / 2**20:7.1f} MiB   {seconds:5.2f} s")


def main() -> None:
    if len(sys.argv) == 2:
        print(measure(sys.argv[1]), flush=True)
        return
    for form in FORMS:
        subprocess.run([sys.executable, __file__, form], check=True)


if __name__ == "__main__":
    main()
