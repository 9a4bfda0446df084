"""The integer-id kernels of _core (grouping rows by id, the duplicate finder), against brute force.

Grouping rows by query (runs, first-seen order, stable order) and finding the first
document repeated within a group, on ids at the ends of int64, ids chosen to collide in
the hash, 0 and 1 rows, short groups and groups long enough to be split into buckets;
and the scratch each kernel reports holding, which is sized by the data: at most one
int64 per row of the longest group (three for ids built to collide), a fixed table for
short groups, and a few int64 per distinct query.
"""
from __future__ import annotations

import numpy as np
import pytest

from rankwise._core._duplicates import first_duplicate
from rankwise._core._group import group_by_query, run_starts

INT64 = np.iinfo(np.int64)
PHI = 0x9E3779B97F4A7C15
LONG = 2**16          # longer groups are split into buckets
SHORT_TABLE = 8 * 4 * LONG
BUCKET_ARRAYS = 8 * 4 * (2**10 + 1)
NO_ORDER = np.empty(0, dtype=np.int64)


def with_hash(hashes):
    """int64 ids whose hash (id * PHI mod 2**64) is each of ``hashes``."""
    inverse = pow(PHI, -1, 2**64)
    out = [(int(h) * inverse) % 2**64 for h in hashes]
    return np.array([v - 2**64 if v >= 2**63 else v for v in out], dtype=np.int64)


def brute_first_repeat(docs, order, indptr, g_start, g_stop):
    # Rows (through the order): of each group's repeats, the one whose later row is first.
    rows = np.arange(docs.shape[0]) if order.shape[0] == 0 else order
    best = (-1, -1)
    for g in range(g_start, g_stop):
        seen = {}
        for row in sorted(rows[int(indptr[g]):int(indptr[g + 1])].tolist()):
            key = int(docs[row])
            if key in seen:
                if best[1] < 0 or row < best[1]:
                    best = (seen[key], row)
                break
            seen[key] = row
    return best


def brute_groups(ids):
    groups: dict = {}
    for row, q in enumerate(ids.tolist()):
        groups.setdefault(q, []).append(row)
    distinct = np.array(list(groups), dtype=np.int64)
    sizes = [len(rows) for rows in groups.values()]
    indptr = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    order = np.array([r for rows in groups.values() for r in rows], dtype=np.int64)
    return distinct, indptr, order


def random_groups(rng, sizes, pool):
    indptr = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    docs = np.concatenate([rng.choice(pool, s, replace=False) for s in sizes]).astype(np.int64)
    return docs, indptr


EXTREMES = np.array([INT64.min, INT64.min + 1, -1, 0, 1, INT64.max - 1, INT64.max], dtype=np.int64)


def test_run_starts():
    assert run_starts(np.empty(0, dtype=np.int64)).tolist() == [0]
    assert run_starts(np.array([INT64.min])).tolist() == [0, 1]
    ids = np.array([INT64.max, INT64.max, INT64.min, 0, 0, INT64.max])
    assert run_starts(ids).tolist() == [0, 2, 3, 5, 6]


@pytest.mark.parametrize("n", [2, 63, 64, 65, 129, 2**16 + 70])
def test_run_starts_against_brute_force(n):
    # Rows are checked for a change 64 at once: changes at every offset of such a span,
    # none at all, ids that differ in one bit (the high one too), runs across 2**16 rows.
    rng = np.random.default_rng(n)
    for rate in (0.0, 1 / 500, 0.05, 1.0):
        steps = rng.random(n) < rate
        ids = np.cumsum(steps).astype(np.int64)
        ids[::7] ^= np.int64(INT64.min) * (rng.random(ids[::7].shape[0]) < rate)
        expected = [0] + [i for i in range(1, n) if ids[i] != ids[i - 1]] + [n]
        assert run_starts(ids).tolist() == expected


@pytest.mark.parametrize("sizes", [[0], [1], [2], [1, 0, 3], [5, 7, 1, 2], [LONG + 1], [3, LONG + 7, 40, 2 * LONG]])
@pytest.mark.parametrize("through_order", [False, True])
def test_first_duplicate_against_brute_force(sizes, through_order):
    rng = np.random.default_rng(len(sizes) + sum(sizes))
    pool = np.concatenate([EXTREMES, rng.integers(INT64.min, INT64.max, 3 * max(sizes) + 10, dtype=np.int64)])
    docs, indptr = random_groups(rng, sizes, pool)
    n = docs.shape[0]
    order = rng.permutation(n).astype(np.int64) if through_order else NO_ORDER
    for g in range(len(sizes)):     # ascending within a group, as the groupings give it
        order[indptr[g]:indptr[g + 1]].sort()
    # Stored so that docs[order] is the grouped layout.
    stored = docs.copy()
    if through_order:
        stored[order] = docs
    cases = [stored]
    for _ in range(6):
        if n < 2:
            break
        planted = docs.copy()
        g = int(rng.integers(len(sizes)))
        start, stop = int(indptr[g]), int(indptr[g + 1])
        if stop - start >= 2:
            a, b = sorted(rng.choice(np.arange(start, stop), 2, replace=False).tolist())
            planted[b] = planted[a]
            # and one at the group's very end
            planted[stop - 1] = planted[start]
        cases.append(planted.copy())
        if through_order:
            cases[-1][order] = planted
    for values in cases:
        for g_start, g_stop in [(0, len(sizes)), (len(sizes) // 2, len(sizes))]:
            (a, b), held = first_duplicate(values, order, indptr, g_start, g_stop)
            assert (a, b) == brute_first_repeat(values, order, indptr, g_start, g_stop)
            longest = int(np.diff(indptr)[g_start:g_stop].max(initial=0))
            assert held <= SHORT_TABLE + 8 * max(longest, LONG) + BUCKET_ARRAYS + 64


@pytest.mark.parametrize("n", [2_000, LONG + 1000])
def test_first_duplicate_with_ids_that_collide(n):
    # Every id hashes to the top of the table (and, when split, to one bucket): probes are
    # long, but the answer is the same and the scratch stays within 3 int64 per row.
    rng = np.random.default_rng(n)
    if n < LONG:
        hashes = np.arange(n, dtype=np.uint64)                          # all in slot 0
    else:
        # All in bucket 0 (the top 5 bits of every hash are 0: 2**5 buckets for this n), and
        # there on 256 slots of the bucket's 2**17-slot table, its last slot among them (so
        # probes also wrap around the table's end): probes run over hundreds of rows, not
        # ~n/2, which took seconds for the same checks.
        starts = np.append(rng.choice(2**17 - 1, 255, replace=False), 2**17 - 1).astype(np.uint64)
        low = rng.choice(2**40, n, replace=False).astype(np.uint64)     # distinct hashes
        hashes = (starts[rng.integers(0, 256, n)] << np.uint64(42)) | low
    docs = with_hash(hashes.tolist())
    indptr = np.array([0, n], dtype=np.int64)
    for planted in (None, (3, n - 1), (n - 2, n - 1)):
        values = docs.copy()
        if planted:
            values[planted[1]] = values[planted[0]]
        (a, b), held = first_duplicate(values, NO_ORDER, indptr, 0, 1)
        assert (a, b) == (planted or (-1, -1))
        assert held <= 24 * n + SHORT_TABLE + BUCKET_ARRAYS + 64


def test_first_duplicate_needs_no_scratch_for_short_grouped_groups():
    rng = np.random.default_rng(0)
    docs, indptr = random_groups(rng, [1000] * 50, np.arange(10**6))
    (a, b), held = first_duplicate(docs, NO_ORDER, indptr, 0, 50)
    assert (a, b) == (-1, -1)
    assert held <= 8 * 4 * 2048 * 2 + 8        # one table for a 1,000-row group


@pytest.mark.parametrize("ids", [
    [],
    [INT64.min],
    [5, 5, 5],
    [INT64.max, INT64.min, INT64.max, -1, 0, INT64.min, 0],
    [3, 1, 3, 2, 1, 3, 3, 2],
])
@pytest.mark.parametrize("wide", [False, True])
def test_group_by_query_small_cases(ids, wide):
    ids = np.array(ids, dtype=np.int64)
    distinct, indptr, order, held = group_by_query(ids, wide)
    want = brute_groups(ids)
    for got, expected in zip((distinct, indptr, order), want, strict=True):
        np.testing.assert_array_equal(got, expected)
        assert got.dtype == np.int64


@pytest.mark.parametrize("wide", [False, True])
@pytest.mark.parametrize("n_distinct", [1, 700, 5000])
def test_group_by_query_against_brute_force(n_distinct, wide):
    rng = np.random.default_rng(n_distinct)
    pool = np.concatenate([EXTREMES, rng.integers(INT64.min, INT64.max, n_distinct, dtype=np.int64)])
    pool = np.unique(pool)[:n_distinct]
    ids = rng.choice(pool, 20_000)
    ids[1000:1500] = ids[1000]            # a long run of one query
    distinct, indptr, order, held = group_by_query(ids, wide)
    for got, expected in zip((distinct, indptr, order), brute_groups(ids), strict=True):
        np.testing.assert_array_equal(got, expected)
    # Scratch: a table at least a quarter full (counting its growth) and two int64 per id.
    code = 8 if wide else 4
    assert held <= code * 8 * max(distinct.shape[0], 512) + 8 * 2 * (2 * distinct.shape[0] + 1024)


def test_group_by_query_with_ids_that_collide():
    ids = with_hash(range(1500))            # every id hashes to slot 0
    rng = np.random.default_rng(1)
    rows = ids[rng.integers(0, 1500, 6000)]
    distinct, indptr, order, _ = group_by_query(rows)
    for got, expected in zip((distinct, indptr, order), brute_groups(rows), strict=True):
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.int8, np.uint8, np.uint32, np.uint64])
def test_qid_grouping_of_integer_ids_is_numpys(dtype, rng):
    """evaluate's qid= grouping of integer ids (hash groups, then only the distinct ids
    sorted) gives np.unique's ids, offsets and stable order, or None for grouped rows."""
    from rankwise._core.validation import _group_by_qid

    info = np.iinfo(dtype)
    for trial in range(60):
        n = int(rng.integers(0, 400))
        pool = rng.integers(info.min, info.max, int(rng.integers(1, 40)), dtype=dtype, endpoint=True)
        ids = rng.choice(pool, n) if n else pool[:0]
        if trial % 4 == 0:
            ids = np.sort(ids)
        unique, indptr, order = _group_by_qid(ids, n)
        expected, inverse = np.unique(ids, return_inverse=True)
        assert unique.dtype == expected.dtype and np.array_equal(unique, expected)
        assert np.array_equal(indptr, np.r_[0, np.cumsum(np.bincount(inverse, minlength=expected.size))])
        stable = np.argsort(inverse, kind="stable")
        if n < 2 or np.all(inverse[1:] >= inverse[:-1]):
            assert order is None
        else:
            assert np.array_equal(order, stable)
