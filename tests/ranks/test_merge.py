"""Ranks.merge and RankBuilder.merge: builders or ranks of the same queries over disjoint blocks of
candidates (a knowledge graph's entities sharded over machines) merge into one pass over all of them."""
import pickle

import numpy as np
import pytest

import rankwise as rw
from rankwise.ranks.positive import MAX_COUNT

METRICS = ["MR", "MRR", "Hits@1", "Hits@3", "Hits@10", "HMR", "GMR", "median_rank", "rank_std", "AMR",
           "AMRI", "AMRR", "AHits@3", "zMRR", "zHits@3", "E[MR]", "V[MRR]"]
# ties="expected" takes the metrics that are means of per-query values.
MEANS = ["MR", "MRR", "Hits@1", "Hits@3", "Hits@10", "AMR", "AMRI", "AMRR", "AHits@3", "zMRR", "zHits@3",
         "E[MR]", "V[MRR]"]


def same(a, b):
    for column in ("greater", "equal", "n_candidates"):
        np.testing.assert_array_equal(getattr(a, column), getattr(b, column))
    for ties, names in [("expected", MEANS), ("realistic", METRICS), ("optimistic", METRICS),
                        ("pessimistic", METRICS)]:
        # assert_array_equal: NaN (a metric of no query, or of chance with one candidate) equals NaN.
        np.testing.assert_array_equal(list(rw.rank_metrics(a, names, ties=ties).values()),
                                      list(rw.rank_metrics(b, names, ties=ties).values()))


def blocks(rng, n):
    """1 to 5 blocks of columns (some possibly empty), as (start, stop)."""
    cuts = np.sort(rng.integers(0, n + 1, size=rng.integers(0, 5)))
    edges = [0, *cuts.tolist(), n]
    return list(zip(edges[:-1], edges[1:], strict=True))


def tied_scores(rng, shape, dtype=np.float64):
    return rng.integers(-3, 4, size=shape).astype(dtype) / 2


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_merged_ranks_equal_one_pass(seed, dtype, merged_in_random_order):
    rng = np.random.default_rng(seed)
    n_queries, n = rng.integers(1, 30), rng.integers(1, 60)
    neg = tied_scores(rng, (n_queries, n), dtype)
    pos = tied_scores(rng, n_queries)
    mask = rng.random((n_queries, n)) < 0.2 if seed % 2 else None
    parts = [rw.rank_positive(pos, neg[:, a:b], None if mask is None else mask[:, a:b])
             for a, b in blocks(rng, n)]
    same(merged_in_random_order(rng, parts), rw.rank_positive(pos, neg, mask))


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("nan", ["raise", "ignore", "last"])
def test_merged_builders_with_true_index_equal_one_pass(seed, nan, merged_in_random_order):
    rng = np.random.default_rng(seed)
    n_queries, n = rng.integers(1, 30), rng.integers(1, 60)
    scores = tied_scores(rng, (n_queries, n))
    true_index = rng.integers(0, n, size=n_queries)
    if nan != "raise":
        scores[rng.random(scores.shape) < 0.1] = np.nan
        scores[np.arange(n_queries), true_index] = 0.5
    mask = rng.random(scores.shape) < 0.2
    pos = scores[np.arange(n_queries), true_index]
    builders = []
    for a, b in blocks(rng, n):
        builder = rw.RankBuilder(pos, true_index=true_index, nan=nan)
        # A block may arrive in several chunks on its machine.
        for c, d in blocks(rng, b - a):
            builder.update(scores[:, a + c:a + d], mask[:, a + c:a + d], start=a + c)
        builders.append(builder)
    merged = merged_in_random_order(rng, builders).ranks()
    same(merged, rw.rank_positive(scores=scores, true_index=true_index, mask=mask, nan=nan))


@pytest.mark.parametrize("seed", range(6))
def test_merged_ragged_builders_and_ranks_equal_one_pass(seed, merged_in_random_order):
    rng = np.random.default_rng(seed)
    n_queries = rng.integers(1, 20)
    widths = [rng.integers(0, 8, size=n_queries) for _ in range(rng.integers(1, 6))]
    chunks = [(tied_scores(rng, w.sum()), np.concatenate([[0], np.cumsum(w)])) for w in widths]
    pos = tied_scores(rng, n_queries)
    builders = [rw.RankBuilder(pos).update(values, indptr=indptr) for values, indptr in chunks]
    ranks = [rw.rank_positive(pos, values, indptr=indptr) for values, indptr in chunks]
    whole = [np.concatenate([values[indptr[q]:indptr[q + 1]] for values, indptr in chunks])
             for q in range(n_queries)]
    indptr = np.concatenate([[0], np.cumsum([len(w) for w in whole])])
    one = rw.rank_positive(pos, np.concatenate(whole), indptr=indptr)
    same(merged_in_random_order(rng, builders).ranks(), one)
    same(merged_in_random_order(rng, ranks), one)


def test_ranks_merge_of_ranks_without_candidates():
    merged = rw.Ranks([0, 3], [1, 0]).merge(rw.Ranks([2, 0], [0, 0], n_candidates=[5, 5]))
    np.testing.assert_array_equal(merged.greater, [2, 3])
    np.testing.assert_array_equal(merged.equal, [1, 0])
    assert merged.n_candidates is None


def test_ranks_merge_leaves_both_unchanged_and_read_only():
    a, b = rw.Ranks([1], [1], [4]), rw.Ranks([2], [0], [3])
    merged = a.merge(b)
    assert merged.pessimistic.tolist() == [5] and merged.n_candidates.tolist() == [6]
    assert a.greater.tolist() == [1] and b.greater.tolist() == [2]
    assert not merged.greater.flags.writeable and not merged.n_candidates.flags.writeable


def test_ranks_merge_errors():
    with pytest.raises(TypeError, match="Ranks.merge takes Ranks, got RankBuilder"):
        rw.Ranks([0]).merge(rw.RankBuilder([0.5]))
    with pytest.raises(ValueError, match="same queries: 1 here, 2 in the other"):
        rw.Ranks([0]).merge(rw.Ranks([0, 1]))
    with pytest.raises(ValueError, match=r"query 0 4503599627370497 candidates, beyond the 2\*\*52"):
        rw.Ranks([0], n_candidates=[MAX_COUNT]).merge(rw.Ranks([0], n_candidates=[2]))
    with pytest.raises(ValueError, match=r"query 1 4503599627370497 candidates"):
        rw.Ranks([0, 2**51], [0, 0]).merge(rw.Ranks([0, 2**51 - 1], [0, 1]))
    at_most = rw.Ranks([0], n_candidates=[2**51]).merge(rw.Ranks([0], n_candidates=[2**51 + 1]))
    assert at_most.n_candidates.tolist() == [MAX_COUNT]


def test_builder_merge_errors_leave_it_unchanged():
    pos = [0.5, 0.2]
    builder = rw.RankBuilder(pos).update([[0.9, 0.1], [0.3, 0.2]])
    before = builder.ranks()
    bad = [
        (TypeError, "takes a RankBuilder, got Ranks", builder.ranks()),
        (ValueError, "same queries: 2 here, 1 in the other", rw.RankBuilder([0.5])),
        (ValueError, r"same true answers: pos_score\[1\] is 0.2 here, 0.3 in the other",
         rw.RankBuilder([0.5, 0.3])),
        (ValueError, "same true_index", rw.RankBuilder(pos, true_index=[0, 1])),
        (ValueError, "same nan policy: nan='raise' here, nan='last' in the other",
         rw.RankBuilder(pos, nan="last")),
    ]
    for error, message, other in bad:
        with pytest.raises(error, match=message):
            builder.merge(other)
        same(builder.ranks(), before)
    with pytest.raises(ValueError, match="same true_index"):
        rw.RankBuilder(pos, true_index=[0, 1]).merge(rw.RankBuilder(pos, true_index=[0, 2]))


def test_builder_merge_overflow_leaves_it_unchanged():
    pos = [0.5]
    builder = rw.RankBuilder(pos).update([[0.9]])
    huge = rw.RankBuilder(pos)
    huge._counts[:, 2:] = MAX_COUNT - 1  # the unmasked counts of 2**52 - 1 candidates, too many to score here
    before = builder.ranks()
    with pytest.raises(ValueError, match=r"query 0 4503599627370497 candidates.*the builder is unchanged"):
        builder.merge(huge)
    same(builder.ranks(), before)


def test_builder_merge_returns_self_leaves_other_and_pickles():
    pos = [0.5, 0.2]
    one, two = rw.RankBuilder(pos).update([[0.9], [0.1]]), rw.RankBuilder(pos).update([[0.5], [0.7]])
    two_before = two.ranks()
    assert one.merge(two) is one
    same(two.ranks(), two_before)
    restored = pickle.loads(pickle.dumps(one))
    same(restored.ranks(), one.ranks())
    assert one.ranks().greater.tolist() == [1, 1] and one.ranks().equal.tolist() == [1, 0]
