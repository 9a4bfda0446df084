"""Write the example bundled with rankwise: src/rankwise/data/demo.tsv.

Deterministic (fixed seed, fixed rounding), so re-running it reproduces the file byte
for byte; tests/cli/test_cli.py checks that. Eight queries of 25 documents, graded labels
0-3, and scores with deliberate ties: most systems' scores are rounded to one decimal,
one query is scored by a binary classifier (0/1 only), and one by a constant scorer.

Usage: python scripts/make_demo_data.py [OUTPUT]
"""
import sys
from pathlib import Path

import numpy as np

N_QUERIES = 8
N_DOCS = 25
DEFAULT_OUTPUT = Path(__file__).resolve().parents[1] / "src" / "rankwise" / "data" / "demo.tsv"


def make_rows(seed: int = 7):
    rng = np.random.default_rng(seed)
    rows = []
    for q in range(N_QUERIES):
        labels = rng.choice([0, 0, 0, 0, 0, 1, 1, 2, 3], N_DOCS)
        labels[rng.integers(N_DOCS)] = max(labels.max(), 1)  # every query has a relevant document
        signal = labels + rng.normal(scale=2.5, size=N_DOCS)
        if q == 6:
            scores = (signal > 1.5).astype(float)  # a binary classifier: two huge tie groups
        elif q == 7:
            scores = np.full(N_DOCS, 0.5)  # a constant scorer: everything tied
        else:
            scores = np.round(signal / 6, 1)  # coarse scores: many small tie groups
        docs = rng.permutation(N_DOCS)
        for d, s, y in zip(docs, scores, labels, strict=True):
            rows.append((f"q{q + 1}", f"doc{q + 1}-{d:02d}", f"{s + 0.0:.1f}", str(int(y))))
    return rows


def main(argv):
    output = Path(argv[1]) if len(argv) > 1 else DEFAULT_OUTPUT
    output.parent.mkdir(parents=True, exist_ok=True)
    lines = ["query\tdoc\tscore\tlabel"] + ["\t".join(row) for row in make_rows()]
    output.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv)
