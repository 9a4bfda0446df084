"""Long lists, which the kernel ranks through buckets over the tracked scores (_core/_buckets.pxd).

Only lists of at least a thousand items with two or more distinct tracked scores take
that path, so these tests make such lists: padded short lists (items that rank below
every other change no metric) against the short lists themselves, and long lists with
heavy ties against the brute force.
"""
import numpy as np
import pytest

import rankwise as rw
from rankwise.testing import lists as reference

METRICS = ["MRR", "MAP", "nDCG", "nDCG@5", "P@3", "R@10", "Rprec", "ERR", "RBP(p=0.9)", "Hits@2"]
POLICIES = ["expected", "optimistic", "pessimistic", "stable", "trec"]
PADDING = 3000


def padded(labels, scores, doc_ids, below):
    """The list with PADDING unlabelled items scoring ``below`` appended, and their ids."""
    pad = np.full(PADDING, below, dtype=scores.dtype)
    ids = np.concatenate([doc_ids, np.array([f"z{j:05d}" for j in range(PADDING)])])
    return np.concatenate([labels, np.zeros(PADDING, dtype=labels.dtype)]), np.concatenate([scores, pad]), ids


@pytest.mark.parametrize("ties", POLICIES)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_padding_below_changes_nothing(rng, ties, dtype):
    for _ in range(20):
        n = int(rng.integers(2, 200))
        labels = rng.choice([0, 0, 0, 1, 2, 3], n)
        # Few distinct values: ties within and across tracked items; a wide spread of them too.
        scores = (rng.integers(-8, 9, n) * rng.choice([1.0, 1e-3, 1e6])).astype(dtype)
        scores[rng.random(n) < 0.05] = np.inf
        doc_ids = np.array([f"d{j:05d}" for j in rng.permutation(n)])
        long_labels, long_scores, long_ids = padded(labels, scores, doc_ids, scores[np.isfinite(scores)].min() - 1
                                                    if np.isfinite(scores).any() else 0.0)
        ids = (doc_ids, long_ids) if ties == "trec" else (None, None)
        short = rw.evaluate([labels], [scores], METRICS, ties=ties, doc_ids=ids[0], max_grade=3)
        long = rw.evaluate([long_labels], [long_scores], METRICS, ties=ties, doc_ids=ids[1], max_grade=3)
        for name in METRICS:
            np.testing.assert_array_equal(long[name], short[name], err_msg=name)


@pytest.mark.parametrize("ties", POLICIES)
def test_nan_scores_rank_last_in_long_lists(rng, ties):
    # NaN items, labelled or not: a NaN tie group (no buckets then) or NaN among untracked items.
    for tracked_nan in (False, True):
        n = 2500
        labels = rng.choice([0] * 20 + [1, 2], n)
        scores = rng.integers(0, 500, n) / 7
        untracked = np.flatnonzero(labels == 0)
        scores[untracked[:50]] = np.nan
        if tracked_nan:
            scores[np.flatnonzero(labels > 0)[:3]] = np.nan
        doc_ids = np.array([f"d{j:05d}" for j in range(n)]) if ties == "trec" else None
        got = rw.evaluate([labels], [scores], ["MRR", "MAP", "nDCG"], ties=ties, doc_ids=doc_ids, nan="last")
        if ties == "expected":
            # The expectation is the mean over orderings: compare with the short list's value,
            # NaN items standing at the end as the lowest scores.
            finite = np.where(np.isnan(scores), -1.0, scores)
            want = rw.evaluate([labels], [finite], ["MRR", "MAP", "nDCG"], ties=ties)
        else:
            ranking = reference.rankings(scores.tolist(), labels.tolist(), ties, nan_last=True,
                                         doc_ids=None if doc_ids is None else doc_ids.tolist())[0]
            want = {name: [float(reference.metric_of_ranking(ranking, metric))]
                    for name, metric in [("MRR", "RR"), ("MAP", "AP"), ("nDCG", "nDCG")]}
        for name in ("MRR", "MAP", "nDCG"):
            np.testing.assert_allclose(got[name], want[name], rtol=1e-12, err_msg=name)
        with pytest.raises(ValueError, match="NaN"):
            rw.evaluate([labels], [scores], ["MRR"], ties=ties, doc_ids=doc_ids)


@pytest.mark.parametrize("ties", ["optimistic", "pessimistic", "stable", "trec"])
def test_long_lists_with_heavy_ties_against_brute_force(rng, ties):
    for n in (1500, 20000):
        labels = rng.choice([0] * 30 + [1, 2, 3], n)
        scores = np.round(rng.normal(size=n), 2)
        scores[rng.random(n) < 0.01] = -np.inf
        doc_ids = np.array([f"d{j:06d}" for j in rng.permutation(n)])
        got = rw.evaluate([labels], [scores], ["MRR", "MAP", "nDCG"], ties=ties,
                          doc_ids=doc_ids if ties == "trec" else None)
        ranking = reference.rankings(scores.tolist(), labels.tolist(), ties, doc_ids=doc_ids.tolist())[0]
        for name, metric in [("MRR", "RR"), ("MAP", "AP"), ("nDCG", "nDCG")]:
            want = float(reference.metric_of_ranking(ranking, metric))
            assert got[name][0] == pytest.approx(want, rel=1e-12, abs=1e-15), name
