"""rank_positive and Ranks: against the brute-force counts of reference_ranks.py and the
rank formulas of TGB/OGB and PyKEEN (../shared/research/kg-ties-anchors.md §2-§4, §10)."""
import numpy as np
import pytest

import rankwise as rw
from rankwise.testing import ranks as ref

# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------


def reference_rows(pos, rows, masks=None, nan="raise"):
    """(greater, equal, C) per query from explicit candidate lists, by reference loops."""
    out = []
    for i, row in enumerate(rows):
        mask = None if masks is None else masks[i]
        out.append(ref.count_ranks(float(pos[i]), [float(x) for x in row], mask, nan))
    if not out:
        return (np.zeros(0, np.int64),) * 3
    return tuple(np.array(col, dtype=np.int64) for col in zip(*out, strict=True))


def reference_true_column(rows, true_index, masks=None, nan="raise"):
    out = []
    for i, row in enumerate(rows):
        mask = None if masks is None else [bool(m) for m in masks[i]]
        out.append(ref.count_ranks_with_true_column([float(x) for x in row], int(true_index[i]), mask, nan))
    return tuple(np.array(col, dtype=np.int64) for col in zip(*out, strict=True))


def assert_counts(ranks, expected):
    greater, equal, n_candidates = expected
    assert isinstance(ranks, rw.Ranks)
    assert ranks.greater.dtype == np.int64 and ranks.equal.dtype == np.int64
    np.testing.assert_array_equal(ranks.greater, greater)
    np.testing.assert_array_equal(ranks.equal, equal)
    assert ranks.n_candidates is not None and ranks.n_candidates.dtype == np.int64
    np.testing.assert_array_equal(ranks.n_candidates, n_candidates)


def tied_scores(rng, shape, decimals, dtype):
    """Scores with heavy ties: normal draws rounded to a few decimals."""
    return np.round(rng.normal(size=shape), decimals).astype(dtype)


def positives_among(rng, neg, dtype=np.float64):
    """One positive per row, often equal to one of the row's candidates (ties guaranteed)."""
    q = neg.shape[0]
    pos = np.round(rng.normal(size=q), 1).astype(dtype)
    if neg.ndim == 2 and neg.shape[1]:
        take = rng.random(q) < 0.6
        cols = rng.integers(0, neg.shape[1], q)
        pos[take] = neg[np.arange(q), cols][take]
    return pos


def ragged(rng, n_queries, max_len, decimals, dtype):
    lengths = rng.integers(0, max_len + 1, n_queries)
    lengths[:2] = [0, max_len]
    indptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    values = tied_scores(rng, int(indptr[-1]), decimals, dtype)
    rows = [values[indptr[i]:indptr[i + 1]] for i in range(n_queries)]
    return values, indptr, rows


# ---------------------------------------------------------------------------
# Worked vectors (kg-ties-anchors.md §10)
# ---------------------------------------------------------------------------

PYKEEN_SCORES = [[2, 2, 1, 3, 5], [1, 1, 3, 4, 0], [1, 1, 3, np.nan, 0]]


@pytest.mark.parametrize("true_index", [[0, 2, 2], [1, 2, 2]])
def test_pykeen_rank_example_score_matrix(true_index):
    ranks = rw.rank_positive(scores=np.array(PYKEEN_SCORES), true_index=true_index, nan="ignore")
    np.testing.assert_array_equal(ranks.optimistic, [3, 2, 1])
    np.testing.assert_array_equal(ranks.pessimistic, [4, 2, 1])
    np.testing.assert_allclose(ranks.realistic, [3.5, 2, 1], rtol=1e-7)
    np.testing.assert_array_equal(ranks.n_candidates, [5, 5, 4])


def test_pykeen_rank_example_positive_and_negatives():
    pos = [2.0, 3.0, 3.0]
    neg = [[2, 1, 3, 5], [1, 1, 4, 0], [1, 1, np.nan, 0]]
    ranks = rw.rank_positive(pos, np.array(neg, dtype=float), nan="ignore")
    np.testing.assert_array_equal(ranks.optimistic, [3, 2, 1])
    np.testing.assert_array_equal(ranks.pessimistic, [4, 2, 1])
    np.testing.assert_array_equal(ranks.n_candidates, [5, 5, 4])
    # nan="last": the NaN is a candidate below the positive
    last = rw.rank_positive(pos, np.array(neg, dtype=float), nan="last")
    np.testing.assert_array_equal(last.pessimistic, [4, 2, 1])
    np.testing.assert_array_equal(last.n_candidates, [5, 5, 5])


def test_libkge_example():
    # answers a:10, b:10, c:10, d:11, e:9, true = a
    ranks = rw.rank_positive(scores=[10.0, 10.0, 10.0, 11.0, 9.0], true_index=0)
    assert ranks.optimistic.tolist() == [2] and ranks.pessimistic.tolist() == [4]
    assert ranks.realistic.tolist() == [3.0]
    assert ranks.n_candidates.tolist() == [5]
    assert 1 / ranks.realistic[0] == pytest.approx(0.333333, abs=1e-6)


def test_two_way_tie():
    ranks = rw.rank_positive(5.0, [5.0])
    assert (ranks.optimistic[0], ranks.pessimistic[0], ranks.realistic[0]) == (1, 2, 1.5)


def test_tgb_vectors():
    a = rw.rank_positive(1.0, [0.5, 0.9, 2.0])
    assert a.realistic.tolist() == [2.0]
    b = rw.rank_positive(1.0, [1.0, 1.0, 0.0])
    assert (b.greater[0], b.greater[0] + b.equal[0]) == (0, 2)  # TGB's "o" and "p" (negatives only)
    assert b.realistic.tolist() == [2.0]


def test_ogb_shared_pool_example():
    ranks = rw.rank_positive([2.5, 2.0, 1.5], [3.0, 2.0, 2.0, 1.0])
    np.testing.assert_array_equal(ranks.pessimistic, [2, 4, 4])
    assert (ranks.optimistic[1], ranks.pessimistic[1], ranks.realistic[1]) == (2, 4, 3.0)
    np.testing.assert_array_equal(ranks.n_candidates, [5, 5, 5])


# ---------------------------------------------------------------------------
# Dense, ragged, shared pool, score matrix: against the reference loops
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("decimals", [1, 2])
@pytest.mark.parametrize("masked", [False, True])
def test_dense_matches_reference(rng, dtype, decimals, masked):
    neg = tied_scores(rng, (40, 30), decimals, dtype)
    pos = positives_among(rng, neg)
    mask = rng.random(neg.shape) < 0.3 if masked else None
    ranks = rw.rank_positive(pos, neg, mask)
    assert_counts(ranks, reference_rows(pos, neg, mask))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("masked", [False, True])
def test_ragged_matches_reference(rng, dtype, masked):
    values, indptr, rows = ragged(rng, 50, 25, 1, dtype)
    pos = np.round(rng.normal(size=50), 1)
    mask = rng.random(values.shape) < 0.25 if masked else None
    masks = None if mask is None else [mask[indptr[i]:indptr[i + 1]] for i in range(50)]
    ranks = rw.rank_positive(pos, values, mask, indptr=indptr)
    assert_counts(ranks, reference_rows(pos, rows, masks))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("mask_kind", [None, "pool", "per_query"])
def test_shared_pool_matches_reference(rng, dtype, mask_kind):
    pool = tied_scores(rng, 60, 1, dtype)
    pos = np.concatenate([np.round(rng.normal(size=20), 1), pool[:10].astype(np.float64)])
    q = pos.shape[0]
    if mask_kind is None:
        mask, masks = None, None
    elif mask_kind == "pool":
        mask = rng.random(60) < 0.3
        masks = [mask] * q
    else:
        mask = rng.random((q, 60)) < 0.3
        masks = list(mask)
    ranks = rw.rank_positive(pos, pool, mask)
    assert_counts(ranks, reference_rows(pos, [pool] * q, masks))


def test_shared_pool_single_query_vs_scalar_positive(rng):
    pool = tied_scores(rng, 50, 1, np.float64)
    one = rw.rank_positive(np.array([pool[3]]), pool)  # Q = 1 shared pool
    scalar = rw.rank_positive(float(pool[3]), pool)    # one query
    expected = reference_rows([pool[3]], [pool])
    assert_counts(one, expected)
    assert_counts(scalar, expected)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("layout", ["dense", "ragged"])
def test_score_matrix_with_true_index_matches_reference(rng, dtype, layout):
    if layout == "dense":
        scores = tied_scores(rng, (40, 20), 1, dtype)
        rows = list(scores)
        indptr = None
    else:
        scores, indptr, rows = ragged(rng, 40, 20, 1, dtype)
        # drop the empty queries (a true answer needs a column); their values are none
        lengths = np.diff(indptr)
        keep = lengths > 0
        rows = [r for r, k in zip(rows, keep, strict=True) if k]
        indptr = np.concatenate([[0], np.cumsum(lengths[keep])])
    q = len(rows)
    true_index = np.array([rng.integers(0, len(r)) for r in rows])
    mask_rows = [rng.random(len(r)) < 0.3 for r in rows]
    # the filtered protocol: the mask may include the true column itself
    for i in range(0, q, 3):
        mask_rows[i][true_index[i]] = True
    mask = np.concatenate(mask_rows) if layout == "ragged" else np.array(mask_rows)
    for m, ms in ((None, None), (mask, mask_rows)):
        ranks = rw.rank_positive(scores=scores, true_index=true_index, mask=m, indptr=indptr)
        assert_counts(ranks, reference_true_column(rows, true_index, ms))


def test_mask_at_true_column_changes_nothing(rng):
    scores = tied_scores(rng, (30, 12), 1, np.float64)
    true_index = rng.integers(0, 12, 30)
    mask = rng.random(scores.shape) < 0.2
    mask[np.arange(30), true_index] = False
    both = mask.copy()
    both[np.arange(30), true_index] = True
    a = rw.rank_positive(scores=scores, true_index=true_index, mask=mask)
    b = rw.rank_positive(scores=scores, true_index=true_index, mask=both)
    assert_counts(a, reference_true_column(list(scores), true_index, list(mask)))
    assert_counts(b, (a.greater, a.equal, a.n_candidates))


def test_score_matrix_equals_positive_and_negatives(rng):
    scores = tied_scores(rng, (25, 10), 1, np.float64)
    true_index = rng.integers(0, 10, 25)
    mask = rng.random(scores.shape) < 0.3
    pos = scores[np.arange(25), true_index]
    keep = np.ones(scores.shape, bool)
    keep[np.arange(25), true_index] = False
    neg = scores[keep].reshape(25, 9)
    neg_mask = mask[keep].reshape(25, 9)
    a = rw.rank_positive(scores=scores, true_index=true_index, mask=mask)
    b = rw.rank_positive(pos, neg, neg_mask)
    assert_counts(a, (b.greater, b.equal, b.n_candidates))
    assert_counts(b, reference_rows(pos, neg, neg_mask))


def test_single_query_score_vector():
    ranks = rw.rank_positive(scores=np.array([0.3, 0.7, 0.3, 0.1]), true_index=2,
                             mask=np.array([False, False, False, True]))
    assert_counts(ranks, ([1], [1], [3]))


# ---------------------------------------------------------------------------
# NaN policies, infinities, signed zeros, dtypes
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("nan", ["ignore", "last"])
@pytest.mark.parametrize("layout", ["dense", "ragged", "pool"])
def test_nan_policies_match_reference(rng, nan, layout):
    if layout == "dense":
        neg = tied_scores(rng, (30, 15), 1, np.float64)
        neg[rng.random(neg.shape) < 0.2] = np.nan
        pos = np.round(rng.normal(size=30), 1)
        mask = rng.random(neg.shape) < 0.2
        ranks = rw.rank_positive(pos, neg, mask, nan=nan)
        expected = reference_rows(pos, neg, mask, nan)
    elif layout == "ragged":
        values, indptr, rows = ragged(rng, 30, 15, 1, np.float32)
        values[rng.random(values.shape) < 0.2] = np.nan
        rows = [values[indptr[i]:indptr[i + 1]] for i in range(30)]
        pos = np.round(rng.normal(size=30), 1)
        ranks = rw.rank_positive(pos, values, indptr=indptr, nan=nan)
        expected = reference_rows(pos, rows, None, nan)
    else:
        pool = tied_scores(rng, 40, 1, np.float64)
        pool[rng.random(40) < 0.2] = np.nan
        pos = np.round(rng.normal(size=30), 1)
        ranks = rw.rank_positive(pos, pool, nan=nan)
        expected = reference_rows(pos, [pool] * 30, None, nan)
    assert_counts(ranks, expected)


@pytest.mark.parametrize("layout", ["dense", "pool", "matrix"])
def test_masked_nan_is_not_a_candidate_under_raise(layout):
    # A masked entry is not a candidate, so its NaN is not an error.
    if layout == "dense":
        ranks = rw.rank_positive([0.5], [[np.nan, 0.7, 0.5]], [[True, False, False]])
    elif layout == "pool":
        ranks = rw.rank_positive([0.5, 0.1], np.array([np.nan, 0.7, 0.5]), np.array([True, False, False]))
        assert_counts(ranks, ([1, 2], [1, 0], [3, 3]))
        return
    else:
        ranks = rw.rank_positive(scores=[[np.nan, 0.7, 0.5]], true_index=[2], mask=[[True, False, False]])
        assert_counts(ranks, ([1], [0], [2]))
        return
    assert_counts(ranks, ([1], [1], [3]))


def test_pykeen_filtered_protocol_with_nan(rng):
    """PyKEEN sets filtered entries to NaN and writes the true score back; its formulas then
    are optimistic = (all > t) + 1, pessimistic = (all >= t), C = isfinite(all)."""
    for dtype in (np.float32, np.float64):
        scores = tied_scores(rng, (50, 20), 1, dtype)
        true_index = rng.integers(0, 20, 50)
        filtered = rng.random(scores.shape) < 0.3
        nan_scores = scores.copy()
        nan_scores[filtered] = np.nan
        rows = np.arange(50)
        nan_scores[rows, true_index] = scores[rows, true_index]
        true = nan_scores[rows, true_index][:, None]
        optimistic = (nan_scores > true).sum(1) + 1
        pessimistic = (nan_scores >= true).sum(1)
        n_options = np.isfinite(nan_scores).sum(1)
        via_nan = rw.rank_positive(scores=nan_scores, true_index=true_index, nan="ignore")
        via_mask = rw.rank_positive(scores=scores, true_index=true_index, mask=filtered)
        for ranks in (via_nan, via_mask):
            np.testing.assert_array_equal(ranks.optimistic, optimistic)
            np.testing.assert_array_equal(ranks.pessimistic, pessimistic)
            np.testing.assert_array_equal(ranks.n_candidates, n_options)
            np.testing.assert_allclose(ranks.realistic, 0.5 * (optimistic + pessimistic))


def test_infinities_are_ordinary_numbers():
    neg = np.array([[np.inf, -np.inf, 1.0, np.inf], [np.inf, -np.inf, 1.0, -np.inf],
                    [np.inf, -np.inf, 1.0, 0.0]])
    pos = np.array([np.inf, -np.inf, 0.5])
    ranks = rw.rank_positive(pos, neg)
    assert_counts(ranks, reference_rows(pos, neg))
    assert_counts(ranks, ([0, 2, 2], [2, 2, 0], [5, 5, 5]))
    pool = rw.rank_positive(pos, neg[0])
    assert_counts(pool, reference_rows(pos, [neg[0]] * 3))


def test_signed_zeros_tie():
    ranks = rw.rank_positive([0.0, -0.0], [[-0.0, 0.0, 1.0], [0.0, -1.0, -0.0]])
    assert_counts(ranks, ([1, 0], [2, 2], [4, 4]))


def test_float32_candidates_compare_exactly_with_float64_positives():
    # float32(0.1) = 0.1000000015 > 0.1;  float32(0.7) = 0.6999999881 < 0.7;  float32(0.9) < 0.9
    neg32 = np.array([[0.1, 0.7, 0.9], [0.1, 0.7, 0.9]], dtype=np.float32)
    pos = np.array([0.1, 0.7])
    wide = neg32.astype(np.float64)
    assert (wide > pos[:, None]).sum(1).tolist() == [3, 1]
    assert (wide == pos[:, None]).sum(1).tolist() == [0, 0]
    expected = ([3, 1], [0, 0], [4, 4])
    assert_counts(rw.rank_positive(pos, neg32), expected)
    assert_counts(rw.rank_positive(pos, neg32.reshape(-1), indptr=[0, 3, 6]), expected)
    assert_counts(rw.rank_positive(0.7, neg32[0]), ([1], [0], [4]))
    assert_counts(rw.RankBuilder(pos).update(neg32[:, :2]).update(neg32[:, 2:]).ranks(), expected)
    # the same float32 values given as float64 positives tie exactly
    pos_exact = neg32[:, :2].diagonal().astype(np.float64)
    assert_counts(rw.rank_positive(pos_exact, neg32), ([2, 1], [1, 1], [4, 4]))


def test_float32_shared_pool_compares_exactly_with_float64_positives():
    pool = np.array([0.1, 0.7, 0.9, 0.1], dtype=np.float32)
    pos = np.array([0.1, 0.7, float(np.float32(0.1)), float(np.float32(0.7)), 0.9])
    ranks = rw.rank_positive(pos, pool)
    assert_counts(ranks, reference_rows(pos, [pool] * 5))
    assert_counts(ranks, ([4, 1, 2, 1, 0], [0, 0, 2, 1, 0], [5, 5, 5, 5, 5]))
    masked = rw.rank_positive(pos, pool, np.array([False, False, True, False]))
    assert_counts(masked, reference_rows(pos, [pool] * 5, [[False, False, True, False]] * 5))


def test_float32_positive_and_mixed_dtypes(rng):
    neg = tied_scores(rng, (20, 10), 1, np.float64)
    pos32 = positives_among(rng, neg, np.float32)
    ranks = rw.rank_positive(pos32, neg)
    assert_counts(ranks, reference_rows(pos32, neg))


def test_integer_and_bool_scores(rng):
    neg = rng.integers(0, 4, (20, 10))
    pos = rng.integers(0, 4, 20)
    assert_counts(rw.rank_positive(pos, neg), reference_rows(pos, neg))
    assert_counts(rw.rank_positive(pos.astype(np.int32), neg.astype(np.int16)), reference_rows(pos, neg))
    assert_counts(rw.rank_positive(pos > 1, neg > 1), reference_rows(pos > 1, neg > 1))


def test_no_queries_at_all():
    empty = np.zeros(0, np.int64)
    for ranks in (rw.rank_positive(np.empty(0), np.empty((0, 3))),
                  rw.rank_positive(np.empty(0), np.array([1.0, 2.0])),
                  rw.rank_positive(np.empty(0), np.empty(0), indptr=[0]),
                  rw.rank_positive(scores=np.empty((0, 3)), true_index=np.empty(0, int)),
                  rw.RankBuilder(np.empty(0)).update(np.empty((0, 4))).ranks()):
        assert len(ranks) == 0
        assert_counts(ranks, (empty, empty, empty))


def test_float16_scores_compare_exactly(rng):
    neg = np.round(rng.normal(size=(10, 8)), 1).astype(np.float16)
    pos = np.round(rng.normal(size=10), 1)
    pos[:5] = neg[:5, 0]
    assert_counts(rw.rank_positive(pos, neg), reference_rows(pos, neg))


def test_empty_candidate_lists():
    ranks = rw.rank_positive([0.5, 0.2], np.zeros((2, 0)))
    assert_counts(ranks, ([0, 0], [0, 0], [1, 1]))
    ragged_ranks = rw.rank_positive([0.5, 0.2], np.array([0.9]), indptr=[0, 0, 1])
    assert_counts(ragged_ranks, ([0, 1], [0, 0], [1, 2]))


# ---------------------------------------------------------------------------
# Agreement with the formulas of TGB / OGB
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("decimals", [1, 2])
def test_tgb_ogb_formulas(rng, dtype, decimals):
    neg = tied_scores(rng, (200, 50), decimals, dtype)
    pos = positives_among(rng, neg)
    ranks = rw.rank_positive(pos, neg)
    # TGB: optimistic_rank = (neg > pos).sum(1), pessimistic_rank = (neg >= pos).sum(1)
    opt = (neg > pos.reshape(-1, 1)).sum(axis=1)
    pess = (neg >= pos.reshape(-1, 1)).sum(axis=1)
    ranking_list = 0.5 * (opt + pess) + 1
    np.testing.assert_array_equal(ranks.greater, opt)
    np.testing.assert_array_equal(ranks.greater + ranks.equal, pess)
    np.testing.assert_array_equal(ranks.realistic, ranking_list)
    got = rw.rank_metrics(ranks, ["MRR", "Hits@1", "Hits@3", "Hits@10"], ties="realistic")
    assert got["MRR"] == pytest.approx(np.mean(1.0 / ranking_list), rel=1e-12)
    # TGB computes 1/rank in float32
    assert got["MRR"] == pytest.approx(float(np.mean(1.0 / ranking_list.astype(np.float32))), rel=1e-6)
    for k in (1, 3, 10):
        assert got[f"Hits@{k}"] == pytest.approx(np.mean(ranking_list <= k), abs=1e-15)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_ogb_hits_shared_pool_formula(rng, dtype):
    pool = tied_scores(rng, 300, 1, dtype)
    pos = np.concatenate([np.round(rng.normal(size=100), 1), pool[:50].astype(np.float64)])
    ranks = rw.rank_positive(pos, pool)
    for k in (1, 2, 10, 50, 100):
        kth = np.sort(pool)[::-1][k - 1]
        ogb = float(np.mean(pos > kth))
        got = rw.rank_metrics(ranks, [f"Hits@{k}"], ties="pessimistic")[f"Hits@{k}"]
        assert got == pytest.approx(ogb, abs=1e-15)
    np.testing.assert_array_equal(ranks.n_candidates, 301)


def test_ogb_hits_at_2_example():
    ranks = rw.rank_positive(np.array([2.5, 2.0, 1.5]), np.array([3.0, 2.0, 2.0, 1.0]))
    assert rw.rank_metrics(ranks, ["Hits@2"], ties="pessimistic")["Hits@2"] == pytest.approx(1 / 3, abs=1e-12)


# ---------------------------------------------------------------------------
# Threads
# ---------------------------------------------------------------------------


def test_thread_counts_identical_dense_and_ragged(rng):
    neg = tied_scores(rng, (250, 500), 1, np.float32)       # 125k candidates
    pos = positives_among(rng, neg)
    mask = rng.random(neg.shape) < 0.1
    opt = (np.where(mask, -np.inf, neg) > pos[:, None]).sum(1)
    eq = ((neg == pos[:, None]) & ~mask).sum(1)
    results = [rw.rank_positive(pos, neg, mask, n_threads=n) for n in (1, 2, -1)]
    for r in results:
        assert_counts(r, (opt, eq, (~mask).sum(1) + 1))

    values, indptr, rows = ragged(rng, 400, 600, 1, np.float64)   # ~120k candidates
    assert indptr[-1] > 100_000
    pos = np.round(rng.normal(size=400), 1)
    expected_g = np.array([(r > p).sum() for r, p in zip(rows, pos, strict=True)])
    expected_e = np.array([(r == p).sum() for r, p in zip(rows, pos, strict=True)])
    for n in (1, 2, -1):
        r = rw.rank_positive(pos, values, indptr=indptr, n_threads=n)
        assert_counts(r, (expected_g, expected_e, np.diff(indptr) + 1))


def test_thread_counts_identical_score_matrix_and_shared_pool(rng):
    scores = tied_scores(rng, (220, 500), 1, np.float64)
    true_index = rng.integers(0, 500, 220)
    mask = rng.random(scores.shape) < 0.1
    runs = [rw.rank_positive(scores=scores, true_index=true_index, mask=mask, n_threads=n) for n in (1, 2, -1)]
    for r in runs[1:]:
        assert_counts(r, (runs[0].greater, runs[0].equal, runs[0].n_candidates))
    sample = rng.choice(220, 10, replace=False)
    got = runs[0][sample]
    expected = reference_true_column(list(scores[sample]), true_index[sample], list(mask[sample]))
    assert_counts(got, expected)

    pool = tied_scores(rng, 1000, 1, np.float32)
    pos = np.round(rng.normal(size=150), 1)
    pool_mask = rng.random((150, 1000)) < 0.2
    runs = [rw.rank_positive(pos, pool, pool_mask, n_threads=n) for n in (1, 2, -1)]
    opt = ((pool[None, :] > pos[:, None]) & ~pool_mask).sum(1)
    eq = ((pool[None, :] == pos[:, None]) & ~pool_mask).sum(1)
    for r in runs:
        assert_counts(r, (opt, eq, (~pool_mask).sum(1) + 1))


# ---------------------------------------------------------------------------
# Inputs: never modified; read-only and non-contiguous arrays work
# ---------------------------------------------------------------------------


def test_inputs_not_modified_and_read_only_inputs_work(rng):
    neg = tied_scores(rng, (30, 20), 1, np.float64)
    neg[0, 0] = np.nan
    pos = positives_among(rng, neg)
    mask = rng.random(neg.shape) < 0.3
    true_index = rng.integers(0, 20, 30)
    for arr in (neg, pos, mask, true_index):
        arr.flags.writeable = False
    copies = [a.copy() for a in (neg, pos, mask, true_index)]
    rw.rank_positive(pos, neg, mask, nan="ignore")
    rw.rank_positive(pos, neg[1], nan="last")
    rw.rank_positive(pos, neg[1], mask[1], nan="last")
    rw.rank_positive(pos, neg[1], mask, nan="last")
    rw.rank_positive(scores=neg, true_index=true_index, mask=mask, nan="ignore")
    rw.RankBuilder(pos, true_index=true_index, nan="last").update(neg[:, :7], mask[:, :7], start=0)
    for arr, copy in zip((neg, pos, mask, true_index), copies, strict=True):
        np.testing.assert_array_equal(arr, copy)


def test_memory_mapped_input(tmp_path, rng):
    neg = tied_scores(rng, (10, 8), 1, np.float32)
    pos = positives_among(rng, neg)
    path = tmp_path / "neg.npy"
    np.save(path, neg)
    mapped = np.load(path, mmap_mode="r")
    assert_counts(rw.rank_positive(pos, mapped), reference_rows(pos, neg))


def test_broadcast_and_strided_one_dimensional_inputs(rng):
    pool = tied_scores(rng, 40, 1, np.float64)
    pos = np.round(rng.normal(size=12), 1)
    mask = rng.random((12, 40)) < 0.3
    wide = np.broadcast_to(pool, (12, 40))  # zero row stride, read-only
    want = reference_rows(pos, [pool] * 12, list(mask))
    assert_counts(rw.rank_positive(pos, wide, mask), want)
    assert_counts(rw.rank_positive(pos, pool, mask), want)
    # ragged values and mask as strided views
    values = tied_scores(rng, 120, 1, np.float32)
    flags = rng.random(120) < 0.3
    indptr = np.array([0, 10, 10, 25, 60])
    rows = [values[::2][indptr[i]:indptr[i + 1]] for i in range(4)]
    masks = [flags[::2][indptr[i]:indptr[i + 1]] for i in range(4)]
    got = rw.rank_positive(pos[:4], values[::2], flags[::2], indptr=indptr[::-1][::-1])
    assert_counts(got, reference_rows(pos[:4], rows, masks))


@pytest.mark.parametrize("nan", ["raise", "ignore", "last"])
def test_shared_pool_with_per_query_mask_and_nan(rng, nan):
    pool = tied_scores(rng, 30, 1, np.float64)
    pool[[3, 17]] = np.nan
    pos = np.round(rng.normal(size=10), 1)
    mask = rng.random((10, 30)) < 0.3
    mask[:, [3, 17]] = True
    if nan == "raise":
        mask[6, 17] = False  # query 6 sees a NaN
        with pytest.raises(ValueError, match="NaN.*query 6"):
            rw.rank_positive(pos, pool, mask, nan=nan)
        mask[6, 17] = True
    else:
        mask[::2, 3] = False
    assert_counts(rw.rank_positive(pos, pool, mask, nan=nan), reference_rows(pos, [pool] * 10, list(mask), nan))


@pytest.mark.parametrize("view", ["columns", "fortran", "reversed", "rows"])
def test_non_contiguous_inputs(rng, view):
    base = tied_scores(rng, (40, 30), 1, np.float64)
    base_mask = rng.random(base.shape) < 0.3
    if view == "columns":
        neg, mask = base[:, ::3], base_mask[:, ::3]
    elif view == "fortran":
        neg, mask = np.asfortranarray(base), np.asfortranarray(base_mask)
    elif view == "reversed":
        neg, mask = base[::-1, ::-1], base_mask[::-1, ::-1]
    else:
        neg, mask = base[::2], base_mask[::2]
    pos_base = np.round(rng.normal(size=2 * neg.shape[0]), 1)
    pos = pos_base[::2]
    ranks = rw.rank_positive(pos, neg, mask)
    assert_counts(ranks, reference_rows(pos, neg, mask))
    true_index = np.arange(neg.shape[0]) % neg.shape[1]
    ranks = rw.rank_positive(scores=neg, true_index=true_index[::-1].copy()[::-1], mask=mask)
    assert_counts(ranks, reference_true_column(list(neg), true_index, list(mask)))
    # a strided 1-D shared pool
    assert_counts(rw.rank_positive(pos, base[0, ::2]), reference_rows(pos, [base[0, ::2]] * len(pos)))


# ---------------------------------------------------------------------------
# The Ranks container
# ---------------------------------------------------------------------------


def test_ranks_attributes():
    ranks = rw.Ranks(greater=[0, 2, 1, 4], equal=[0, 1, 0, 3], n_candidates=[5, 5, 4, 10])
    assert len(ranks) == 4
    np.testing.assert_array_equal(ranks.optimistic, [1, 3, 2, 5])
    np.testing.assert_array_equal(ranks.pessimistic, [1, 4, 2, 8])
    np.testing.assert_array_equal(ranks.realistic, [1, 3.5, 2, 6.5])
    assert ranks.realistic.dtype == np.float64
    assert ranks.optimistic.dtype == np.int64 and ranks.pessimistic.dtype == np.int64
    assert ranks.tied_fraction == pytest.approx(0.5)
    assert ranks.mean_relative_width == pytest.approx(np.mean([0, 1 / 5, 0, 3 / 10]))
    assert "Ranks" in repr(ranks)
    for arr in (ranks.greater, ranks.equal, ranks.n_candidates):
        assert arr.dtype == np.int64
        assert not arr.flags.writeable
        with pytest.raises(ValueError):
            arr[0] = 7
    np.testing.assert_array_equal(ranks.greater, [0, 2, 1, 4])


def test_ranks_defaults_and_inputs_copied():
    greater = np.array([3, 0, 1])
    ranks = rw.Ranks(greater)
    np.testing.assert_array_equal(ranks.equal, [0, 0, 0])
    assert ranks.n_candidates is None
    assert ranks.tied_fraction == 0.0
    greater[0] = 99
    assert ranks.greater[0] == 3
    with pytest.raises(ValueError, match="n_candidates"):
        ranks.mean_relative_width  # noqa: B018
    rw.Ranks(np.array([1, 2], dtype=np.uint8), np.array([0, 1], dtype=np.int32), [2, 4])


def test_ranks_indexing():
    ranks = rw.Ranks(greater=[0, 2, 1, 4], equal=[0, 1, 0, 3], n_candidates=[5, 5, 4, 10])
    one = ranks[1]
    assert isinstance(one, rw.Ranks) and len(one) == 1
    assert (one.greater.tolist(), one.equal.tolist(), one.n_candidates.tolist()) == ([2], [1], [5])
    part = ranks[1:3]
    assert part.greater.tolist() == [2, 1] and part.n_candidates.tolist() == [5, 4]
    picked = ranks[np.array([3, 0])]
    assert picked.pessimistic.tolist() == [8, 1]
    masked = ranks[np.array([True, False, False, True])]
    assert masked.equal.tolist() == [0, 3]
    assert rw.Ranks([1, 2])[0].n_candidates is None


def test_from_ranks():
    ranks = rw.Ranks.from_ranks([1, 2, 3, 5], n_candidates=[5, 5, 10, 10])
    np.testing.assert_array_equal(ranks.optimistic, [1, 2, 3, 5])
    np.testing.assert_array_equal(ranks.pessimistic, [1, 2, 3, 5])
    np.testing.assert_array_equal(ranks.greater, [0, 1, 2, 4])
    np.testing.assert_array_equal(ranks.equal, 0)
    whole = rw.Ranks.from_ranks(np.array([1.0, 4.0]))
    np.testing.assert_array_equal(whole.optimistic, [1, 4])
    assert whole.n_candidates is None


def test_concatenate():
    a = rw.Ranks([0, 1], [1, 0], [3, 4])
    b = rw.Ranks([2], [2], [9])
    c = rw.Ranks([5])
    both = rw.Ranks.concatenate([a, b])
    assert both.greater.tolist() == [0, 1, 2] and both.equal.tolist() == [1, 0, 2]
    assert both.n_candidates.tolist() == [3, 4, 9]
    mixed = rw.Ranks.concatenate([a, c])
    assert mixed.greater.tolist() == [0, 1, 5] and mixed.n_candidates is None


def test_concatenate_equals_ranking_the_joined_data(rng):
    neg = tied_scores(rng, (30, 12), 1, np.float64)
    pos = positives_among(rng, neg)
    mask = rng.random(neg.shape) < 0.2
    parts = [rw.rank_positive(pos[a:b], neg[a:b], mask[a:b]) for a, b in ((0, 7), (7, 8), (8, 30))]
    joined = rw.Ranks.concatenate(parts)
    assert_counts(joined, reference_rows(pos, neg, mask))
