"""RankBuilder: streaming over column chunks equals one rank_positive call and the
brute-force counts of reference_ranks.py."""
import numpy as np
import pytest

import rankwise as rw
from rankwise.testing import ranks as ref


def counts_of(ranks):
    return [ranks.greater.tolist(), ranks.equal.tolist(), ranks.n_candidates.tolist()]


def reference_rows(pos, rows, masks=None, nan="raise"):
    out = [ref.count_ranks(float(p), [float(x) for x in row], None if masks is None else list(masks[i]), nan)
           for i, (p, row) in enumerate(zip(pos, rows, strict=True))]
    return [list(col) for col in zip(*out, strict=True)]


def reference_true_column(rows, true_index, masks=None, nan="raise"):
    out = [ref.count_ranks_with_true_column([float(x) for x in row], int(t),
                                            None if masks is None else [bool(m) for m in masks[i]], nan)
           for i, (row, t) in enumerate(zip(rows, true_index, strict=True))]
    return [list(col) for col in zip(*out, strict=True)]


def tied(rng, shape, dtype=np.float64):
    return np.round(rng.normal(size=shape), 1).astype(dtype)


def column_chunks(n, size):
    return [(a, min(a + size, n)) for a in range(0, n, size)]


@pytest.mark.parametrize("size", [1, 3, 7, 40, 100])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_dense_chunks_equal_one_call(rng, size, dtype):
    neg = tied(rng, (25, 40), dtype)
    pos = np.round(rng.normal(size=25), 1)
    pos[:10] = neg[:10, 5]
    mask = rng.random(neg.shape) < 0.25
    builder = rw.RankBuilder(pos)
    for a, b in column_chunks(40, size):
        assert builder.update(neg[:, a:b], mask[:, a:b]) is builder
    want = reference_rows(pos, neg, mask)
    assert counts_of(builder.ranks()) == want
    assert counts_of(rw.rank_positive(pos, neg, mask)) == want


@pytest.mark.parametrize("nan", ["ignore", "last"])
def test_dense_chunks_nan_policies(rng, nan):
    neg = tied(rng, (20, 30))
    neg[rng.random(neg.shape) < 0.2] = np.nan
    pos = np.round(rng.normal(size=20), 1)
    builder = rw.RankBuilder(pos, nan=nan)
    for a, b in column_chunks(30, 4):
        builder.update(neg[:, a:b])
    want = reference_rows(pos, neg, None, nan)
    assert counts_of(builder.ranks()) == want
    assert counts_of(rw.rank_positive(pos, neg, nan=nan)) == want


@pytest.mark.parametrize("size", [1, 4, 9, 50])
def test_ragged_chunks_equal_one_call(rng, size):
    lengths = rng.integers(0, 30, 20)
    rows = [tied(rng, int(n)) for n in lengths]
    masks = [rng.random(len(r)) < 0.3 for r in rows]
    pos = np.round(rng.normal(size=20), 1)
    builder = rw.RankBuilder(pos)
    for a in range(0, int(lengths.max()) + 1, size):
        parts = [r[a:a + size] for r in rows]
        part_masks = [m[a:a + size] for m in masks]
        indptr = np.concatenate([[0], np.cumsum([len(p) for p in parts])])
        builder.update(np.concatenate(parts), np.concatenate(part_masks), indptr=indptr)
    want = reference_rows(pos, rows, masks)
    assert counts_of(builder.ranks()) == want
    values = np.concatenate(rows)
    indptr = np.concatenate([[0], np.cumsum(lengths)])
    assert counts_of(rw.rank_positive(pos, values, np.concatenate(masks), indptr=indptr)) == want


@pytest.mark.parametrize("size", [1, 5, 13, 30])
def test_true_index_chunks_equal_score_matrix(rng, size):
    scores = tied(rng, (30, 30))
    true_index = rng.integers(0, 30, 30)
    mask = rng.random(scores.shape) < 0.3
    mask[np.arange(0, 30, 3), true_index[::3]] = True  # filtered protocol: true column masked too
    pos = scores[np.arange(30), true_index]
    builder = rw.RankBuilder(pos, true_index=true_index)
    for a, b in column_chunks(30, size):
        builder.update(scores[:, a:b], mask[:, a:b], start=a)
    want = reference_true_column(list(scores), true_index, list(mask))
    assert counts_of(builder.ranks()) == want
    assert counts_of(rw.rank_positive(scores=scores, true_index=true_index, mask=mask)) == want


def test_true_index_ragged_chunks_with_per_query_start(rng):
    lengths = rng.integers(1, 25, 15)
    rows = [tied(rng, int(n)) for n in lengths]
    masks = [rng.random(len(r)) < 0.3 for r in rows]
    true_index = np.array([rng.integers(0, len(r)) for r in rows])
    pos = np.array([r[t] for r, t in zip(rows, true_index, strict=True)])
    builder = rw.RankBuilder(pos, true_index=true_index)
    # every query is cut at its own points: chunk j of query i covers cuts[i][j]:cuts[i][j+1]
    cuts = [np.unique(np.concatenate([[0, len(r)], rng.integers(0, len(r) + 1, 3)])) for r in rows]
    n_chunks = max(len(c) for c in cuts) - 1
    for j in range(n_chunks):
        starts, parts, part_masks = [], [], []
        for r, m, c in zip(rows, masks, cuts, strict=True):
            a, b = (c[j], c[j + 1]) if j + 1 < len(c) else (len(r), len(r))
            starts.append(a)
            parts.append(r[a:b])
            part_masks.append(m[a:b])
        indptr = np.concatenate([[0], np.cumsum([len(p) for p in parts])])
        builder.update(np.concatenate(parts), np.concatenate(part_masks), indptr=indptr, start=np.array(starts))
    want = reference_true_column(rows, true_index, masks)
    assert counts_of(builder.ranks()) == want
    values = np.concatenate(rows)
    indptr = np.concatenate([[0], np.cumsum(lengths)])
    got = rw.rank_positive(scores=values, true_index=true_index, mask=np.concatenate(masks), indptr=indptr)
    assert counts_of(got) == want


def test_builder_without_updates_and_intermediate_results(rng):
    builder = rw.RankBuilder([0.2, 0.4])
    assert counts_of(builder.ranks()) == [[0, 0], [0, 0], [1, 1]]
    builder.update([[0.3], [0.4]])
    first = counts_of(builder.ranks())
    assert first == [[1, 0], [0, 1], [2, 2]]
    assert counts_of(builder.ranks()) == first  # ranks() does not consume anything
    builder.update(np.zeros((2, 0)))
    builder.update([[0.2, 0.1], [0.9, 0.1]])
    assert counts_of(builder.ranks()) == [[1, 1], [1, 1], [4, 4]]


def test_failed_update_leaves_builder_unchanged(rng):
    neg = tied(rng, (10, 12))
    pos = np.round(rng.normal(size=10), 1)
    builder = rw.RankBuilder(pos)
    builder.update(neg[:, :6])
    before = counts_of(builder.ranks())
    bad = neg[:, 6:].copy()
    bad[7, 2] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        builder.update(bad)
    assert counts_of(builder.ranks()) == before
    with pytest.raises(ValueError):
        builder.update(neg[:5, 6:])  # wrong number of rows
    with pytest.raises(ValueError):
        builder.update(neg[:, 6:], np.zeros((10, 5), bool))  # wrong mask shape
    with pytest.raises(TypeError):
        builder.update(neg[:, 6:], np.zeros((10, 6), int))  # mask not boolean
    assert counts_of(builder.ranks()) == before
    builder.update(neg[:, 6:])
    assert counts_of(builder.ranks()) == reference_rows(pos, neg)


def test_failed_update_with_true_index_leaves_builder_unchanged(rng):
    scores = tied(rng, (6, 10))
    true_index = rng.integers(0, 10, 6)
    pos = scores[np.arange(6), true_index]
    builder = rw.RankBuilder(pos, true_index=true_index)
    builder.update(scores[:, :5], start=0)
    before = counts_of(builder.ranks())
    with pytest.raises(ValueError, match="start"):
        builder.update(scores[:, 5:])
    bad = scores[:, 5:].copy()
    bad[2, 0 if true_index[2] != 5 else 1] = np.nan  # a NaN competitor (not the true column)
    with pytest.raises(ValueError, match="NaN"):
        builder.update(bad, start=5)
    assert counts_of(builder.ranks()) == before
    builder.update(scores[:, 5:], start=5)
    assert counts_of(builder.ranks()) == reference_true_column(list(scores), true_index)


def test_start_without_true_index_is_an_error():
    builder = rw.RankBuilder([0.5])
    with pytest.raises(ValueError, match="start"):
        builder.update([[0.1, 0.2]], start=0)
    assert counts_of(builder.ranks()) == [[0], [0], [1]]


def test_builder_thread_counts_identical(rng):
    neg = tied(rng, (200, 1200), np.float32)     # chunks of 120k candidates
    pos = np.round(rng.normal(size=200), 1)
    mask = rng.random(neg.shape) < 0.1
    results = []
    for n in (1, 2, -1):
        builder = rw.RankBuilder(pos, n_threads=n)
        for a, b in column_chunks(1200, 600):
            builder.update(neg[:, a:b], mask[:, a:b])
        results.append(counts_of(builder.ranks()))
    assert results[0] == results[1] == results[2]
    g = ((neg > pos[:, None]) & ~mask).sum(1).tolist()
    e = ((neg == pos[:, None]) & ~mask).sum(1).tolist()
    assert results[0] == [g, e, ((~mask).sum(1) + 1).tolist()]


def test_inputs_not_modified(rng):
    neg = tied(rng, (8, 10))
    neg[0, 0] = np.nan
    mask = rng.random(neg.shape) < 0.3
    pos = np.round(rng.normal(size=8), 1)
    true_index = rng.integers(1, 10, 8)
    true_pos = neg[np.arange(8), true_index]
    for arr in (neg, mask, pos, true_index, true_pos):
        arr.flags.writeable = False
    copies = [a.copy() for a in (neg, mask, pos, true_index, true_pos)]
    rw.RankBuilder(pos, nan="ignore").update(neg, mask).update(neg[:, ::2], mask[:, ::2]).ranks()
    rw.RankBuilder(true_pos, true_index=true_index, nan="last").update(neg, mask, start=0).ranks()
    for arr, copy in zip((neg, mask, pos, true_index, true_pos), copies, strict=True):
        np.testing.assert_array_equal(arr, copy)


@pytest.mark.parametrize("true_value, nan", [(0.9, "raise"), (0.4999, "raise"), (0.5000001, "raise"),
                                             (np.nan, "ignore")])
def test_true_column_is_never_its_own_competitor_in_the_builder(true_value, nan):
    """The chunk's value at the true column may differ from pos_score (computed by another
    code path, libkge #221; or NaN-filtered as all known true answers): the true column is
    still not a competitor.  Either it is skipped or the inconsistency is reported."""
    chunk = np.array([[0.1, true_value, 0.5, 0.7]])
    builder = rw.RankBuilder([0.5], true_index=[1], nan=nan)
    try:
        builder.update(chunk, start=0)
    except ValueError:
        return  # reporting the inconsistency when the chunk arrives is acceptable
    got = counts_of(builder.ranks())
    want = reference_rows([0.5], [[0.1, 0.5, 0.7]], None, nan)
    assert got == want
