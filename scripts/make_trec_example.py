"""Write the TREC example bundled with rankwise: src/rankwise/data/example.qrels, example.run
and example2.run.

Deterministic (fixed seeds, fixed formatting), so re-running it reproduces the files
byte for byte; tests/cli/test_cli.py checks that. Twelve topics: graded judgements 0-3
for about 60 documents each (a fifth of them never retrieved), runs of 100 documents
with scores rounded to 2 decimals (so ties are common), one topic judged but with no
relevant document, one topic only in the qrels, and one only in the runs. example2.run
is a second system (run id "example2") over the same documents whose scores follow the
judgements more closely: the pair `rankwise compare --example` compares.

Usage: python scripts/make_trec_example.py [OUTPUT_DIR]
"""
import sys
from pathlib import Path

import numpy as np

N_TOPICS = 12
N_RETRIEVED = 100
DEFAULT_DIR = Path(__file__).resolve().parents[1] / "src" / "rankwise" / "data"


def _run_lines(topic, retrieved, scores, name):
    order = np.argsort(-scores, kind="stable")
    return [f"{topic} Q0 {retrieved[i]} {rank} {scores[i]:.2f} {name}"
            for rank, i in enumerate(order, start=1)]


def make_files(seed: int = 11):
    rng = np.random.default_rng(seed)
    qrels, run, topics = [], [], []
    for t in range(N_TOPICS):
        topic = str(401 + t)
        pool = [f"DOC-{t:02d}-{d:04d}" for d in rng.choice(5000, 400, replace=False)]
        judged = pool[:60]
        labels = rng.choice([0, 0, 0, 0, 1, 1, 2, 3], len(judged))
        if t == 3:
            labels[:] = 0  # judged, but nothing relevant: counts as 0, as in trec_eval
        if t != N_TOPICS - 1:  # the last topic is only in the run
            qrels += [f"{topic} 0 {doc} {label}" for doc, label in zip(judged, labels, strict=True)]
        if t == N_TOPICS - 2:
            continue  # only in the qrels: skipped, or 0 with -c
        retrieved = judged[:48] + pool[60:60 + N_RETRIEVED - 48]
        quality = np.concatenate([labels[:48], np.zeros(N_RETRIEVED - 48)])
        scores = np.round(np.clip(0.3 * quality + rng.normal(0.5, 0.35, N_RETRIEVED), 0, None), 2)
        run += _run_lines(topic, retrieved, scores, "example")
        topics.append((topic, retrieved, quality))
    # The second system draws from its own generator, so example.run stays as it was.
    rng2 = np.random.default_rng(seed + 1)
    run2 = []
    for topic, retrieved, quality in topics:
        scores = np.round(np.clip(0.45 * quality + rng2.normal(0.5, 0.35, N_RETRIEVED), 0, None), 2)
        run2 += _run_lines(topic, retrieved, scores, "example2")
    return "\n".join(qrels) + "\n", "\n".join(run) + "\n", "\n".join(run2) + "\n"


def main(argv):
    directory = Path(argv[1]) if len(argv) > 1 else DEFAULT_DIR
    qrels, run, run2 = make_files()
    (directory / "example.qrels").write_text(qrels)
    (directory / "example.run").write_text(run)
    (directory / "example2.run").write_text(run2)


if __name__ == "__main__":
    main(sys.argv)
