"""top_k against the brute-force reference (rankwise.testing.recsys) and np.argsort(kind="stable")."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import rankwise as rw
from rankwise._core import parallel as _parallel
from rankwise.testing import recsys as ref

sp = pytest.importorskip("scipy.sparse")


def reference(scores, k, exclude=None):
    return ref.top_k(np.asarray(scores, dtype=np.float64).tolist(), k,
                     None if exclude is None else np.asarray(exclude).tolist())


def tied_scores(rng, shape, dtype=np.float64, nan_rate=0.0):
    # Small integers: most rows tie at their k-th item.
    scores = rng.integers(-3, 4, shape).astype(dtype)
    if nan_rate:
        scores[rng.random(shape) < nan_rate] = np.nan
    return scores


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("k", [1, 2, 7, 40, 41, 100])
def test_matches_reference_and_stable_argsort(rng, dtype, k):
    scores = tied_scores(rng, (30, 41), dtype)
    scores[3] = np.inf
    scores[4, ::3] = -np.inf
    ids, scores_out = rw.top_k(scores, k, return_scores=True)
    expected, _ = reference(scores, k)
    assert ids.dtype == np.int64 and ids.shape == (30, min(k, 41))
    np.testing.assert_array_equal(ids, expected)
    np.testing.assert_array_equal(ids, np.argsort(-scores, axis=1, kind="stable")[:, :k])
    assert scores_out.dtype == dtype
    np.testing.assert_array_equal(scores_out, np.take_along_axis(scores, ids, axis=1))


@pytest.mark.parametrize("sparse", [False, True])
def test_exclusion_and_padding(rng, sparse):
    scores = tied_scores(rng, (25, 30), np.float32)
    mask = rng.random((25, 30)) < 0.3
    mask[0] = True        # nothing left: all padding
    mask[1, 2:] = True    # two candidates
    mask[2] = False
    exclude = sp.csr_array(mask) if sparse else mask
    for k in (1, 5, 28, 30, 50):
        ids, out = rw.top_k(scores, k, exclude=exclude, return_scores=True)
        expected, _ = reference(scores, k, mask)
        np.testing.assert_array_equal(ids, expected)
        assert not mask[np.arange(25)[:, None], np.maximum(ids, 0)][ids >= 0].any()
        assert np.isnan(out[ids < 0]).all() and (ids[0] == -1).all()
    assert rw.top_k(scores, 5, exclude=exclude)[1].tolist() == [0, 1, -1, -1, -1]


def test_exclusion_formats_agree(rng):
    scores = rng.normal(size=(12, 50))
    mask = rng.random((12, 50)) < 0.5
    expected = rw.top_k(scores, 10, exclude=mask)
    for fmt in ("coo", "csc", "lil", "dok"):
        np.testing.assert_array_equal(rw.top_k(scores, 10, exclude=sp.coo_matrix(mask).asformat(fmt)), expected)


def test_nan_policies(rng):
    scores = tied_scores(rng, (20, 15), nan_rate=0.3)
    scores[5] = np.nan
    with pytest.raises(ValueError, match=r"y_score contains NaN \(first at row 0, column \d+\)"):
        rw.top_k(scores, 3)
    for k in (1, 4, 15):
        expected, _ = reference(scores, k)
        np.testing.assert_array_equal(rw.top_k(scores, k, nan="last"), expected)
    clean = np.zeros((3, 4))
    clean[2, 1] = clean[1, 3] = np.nan
    with pytest.raises(ValueError, match=r"first at row 1, column 3"):
        rw.top_k(clean, 2)
    # A NaN at an excluded item is never read.
    mask = np.zeros((3, 4), dtype=bool)
    mask[2, 1] = mask[1, 3] = True
    assert rw.top_k(clean, 2, exclude=mask).tolist() == [[0, 1], [0, 1], [0, 2]]
    with pytest.raises(ValueError, match=r"first at position 2"):
        rw.top_k(np.array([1.0, 0.0, np.nan]), 1)


def test_ties_raise_names_the_first_row_that_ties_at_k(rng):
    scores = np.array([[3.0, 2, 1, 0], [3, 2, 2, 0], [1, 1, 1, 1]])
    with pytest.raises(ValueError, match=r"ties='raise': in row 1, the k-th item \(item 1\) ties"):
        rw.top_k(scores, 2, ties="raise")
    np.testing.assert_array_equal(rw.top_k(scores[:1], 2, ties="raise"), [[0, 1]])
    np.testing.assert_array_equal(rw.top_k(scores[1:2], 3, ties="raise"), [[0, 1, 2]])
    # Fewer candidates than k: nothing is left out, so nothing ties.
    np.testing.assert_array_equal(rw.top_k(scores[2:], 4, ties="raise"), [[0, 1, 2, 3]])
    nan_ties = np.array([[1.0, np.nan, np.nan]])
    with pytest.raises(ValueError, match="in row 0"):
        rw.top_k(nan_ties, 2, ties="raise", nan="last")
    np.testing.assert_array_equal(rw.top_k(nan_ties, 3, ties="raise", nan="last"), [[0, 1, 2]])
    many = tied_scores(rng, (40, 20))
    for k in (1, 5, 19):
        _, tied = reference(many, k)
        if tied:
            with pytest.raises(ValueError, match=f"in row {tied[0]}, "):
                rw.top_k(many, k, ties="raise")
        else:
            rw.top_k(many, k, ties="raise")


def test_one_row_and_empty_shapes():
    row = np.array([0.5, 2.0, 1.0], dtype=np.float32)
    ids, scores = rw.top_k(row, 2, return_scores=True)
    assert ids.tolist() == [1, 2] and scores.dtype == np.float32 and scores.tolist() == [2.0, 1.0]
    assert rw.top_k(row, 2, exclude=[False, True, False]).tolist() == [2, 0]
    assert rw.top_k(np.zeros((0, 5)), 3).shape == (0, 3)
    assert rw.top_k(np.zeros((4, 0)), 3).shape == (4, 0)
    assert rw.top_k([[1, 3, 2]], np.int64(2)).tolist() == [[1, 2]]


def test_bad_arguments():
    scores = np.zeros((2, 3))
    for bad in (0, -1):
        with pytest.raises(ValueError, match="k must be an integer >= 1"):
            rw.top_k(scores, bad)
    for bad in (2.0, "2", None, True):
        with pytest.raises(TypeError, match="k must be an integer >= 1"):
            rw.top_k(scores, bad)
    with pytest.raises(ValueError, match="ties must be one of 'stable', 'raise'"):
        rw.top_k(scores, 1, ties="expected")
    with pytest.raises(ValueError, match="nan must be one of"):
        rw.top_k(scores, 1, nan="ignore")
    with pytest.raises(TypeError, match="return_scores must be True or False"):
        rw.top_k(scores, 1, return_scores=1)
    with pytest.raises(ValueError, match="y_score must be 1-D"):
        rw.top_k(np.zeros((2, 2, 2)), 1)
    with pytest.raises(TypeError, match="y_score must be numeric"):
        rw.top_k([["a"]], 1)
    with pytest.raises(ValueError, match=r"exclude must have shape \(2, 3\), got \(3, 2\)"):
        rw.top_k(scores, 1, exclude=np.zeros((3, 2), dtype=bool))
    with pytest.raises(TypeError, match="exclude must be a boolean mask"):
        rw.top_k(scores, 1, exclude=np.zeros((2, 3)))
    with pytest.raises(ValueError, match="n_threads"):
        rw.top_k(scores, 1, n_threads=0)
    with pytest.raises(TypeError, match="y_score must be a dense array"):
        rw.top_k(sp.csr_array(scores), 1)


def test_read_only_strided_and_memory_mapped_inputs(rng, tmp_path):
    scores = tied_scores(rng, (10, 60), np.float32)
    mask = rng.random((10, 60)) < 0.2
    expected = rw.top_k(scores, 7, exclude=mask)
    frozen, frozen_mask = scores.copy(), mask.copy()
    frozen.flags.writeable = frozen_mask.flags.writeable = False
    np.testing.assert_array_equal(rw.top_k(frozen, 7, exclude=frozen_mask), expected)
    np.testing.assert_array_equal(frozen, scores)
    np.testing.assert_array_equal(frozen_mask, mask)
    path = tmp_path / "scores.npy"
    np.save(path, scores)
    mapped = np.load(path, mmap_mode="r")
    np.testing.assert_array_equal(rw.top_k(mapped, 7, exclude=mask), expected)
    # Every other row, and a Fortran-ordered copy: the same selection.
    np.testing.assert_array_equal(rw.top_k(scores[::2], 7, exclude=mask[::2]), expected[::2])
    np.testing.assert_array_equal(rw.top_k(np.asfortranarray(scores), 7, exclude=mask), expected)
    np.testing.assert_array_equal(rw.top_k(scores.astype(">f4"), 7, exclude=mask), expected)


def test_identical_for_every_thread_count(rng, monkeypatch):
    monkeypatch.setattr(_parallel, "_MIN_ITEMS_PER_THREAD", 1)
    scores = tied_scores(rng, (300, 80), np.float32, nan_rate=0.05)
    mask = sp.random(300, 80, density=0.1, random_state=1, format="csr")
    runs = [rw.top_k(scores, 10, exclude=mask, nan="last", n_threads=n, return_scores=True) for n in (1, 2, 4)]
    for ids, out in runs[1:]:
        np.testing.assert_array_equal(ids, runs[0][0])
        np.testing.assert_array_equal(out, runs[0][1])
    messages = set()
    for n in (1, 2, 4):
        with pytest.raises(ValueError) as error:
            rw.top_k(scores, 10, n_threads=n)
        messages.add(str(error.value))
        with pytest.raises(ValueError) as error:
            rw.top_k(np.nan_to_num(scores), 10, ties="raise", n_threads=n)
        messages.add(str(error.value))
    assert len(messages) == 2


def test_long_rows_cross_poll_boundaries(rng):
    scores = rng.normal(size=(2, 200_000)).astype(np.float32)
    mask = rng.random((2, 200_000)) < 0.01
    np.testing.assert_array_equal(rw.top_k(scores, 50, exclude=mask),
                                  np.argsort(np.where(mask, np.inf, -scores), axis=1, kind="stable")[:, :50])


@settings(max_examples=200, deadline=None)
@given(hnp.arrays(np.float64, hnp.array_shapes(min_dims=2, max_dims=2, max_side=12),
                  elements=st.sampled_from([0.0, -0.0, 1.0, 2.0, -np.inf, np.inf, np.nan])),
       st.integers(1, 14), st.data())
def test_hypothesis_against_reference(scores, k, data):
    mask = data.draw(hnp.arrays(np.bool_, scores.shape))
    expected, tied = reference(scores, k, mask)
    np.testing.assert_array_equal(rw.top_k(scores, k, exclude=mask, nan="last"), expected)
    np.testing.assert_array_equal(rw.top_k(scores.astype(np.float32), k, exclude=mask, nan="last"), expected)
    if tied:
        with pytest.raises(ValueError, match=f"in row {tied[0]}, "):
            rw.top_k(scores, k, exclude=mask, nan="last", ties="raise")
    else:
        np.testing.assert_array_equal(rw.top_k(scores, k, exclude=mask, nan="last", ties="raise"), expected)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_long_rows_with_ties_exclusion_and_nan(rng, dtype):
    # Rows of many pieces (the first pass's floor applies), as well as rows with NaN
    # (nan="last": every item through the heap) and heavily excluded rows.
    scores = tied_scores(rng, (40, 700), dtype)
    scores[:5] = rng.normal(size=(5, 700))
    scores[5:10, rng.random(700) < 0.5] = np.nan
    scores[10] = -np.inf
    mask = rng.random((40, 700)) < 0.1
    mask[11:14] = rng.random((3, 700)) < 0.97
    for k in (1, 3, 20, 21, 22, 50, 699):
        expected, tied = reference(scores, k, mask)
        ids, out = rw.top_k(scores, k, exclude=sp.csr_matrix(mask), nan="last", return_scores=True)
        np.testing.assert_array_equal(ids, expected)
        np.testing.assert_array_equal(out, np.where(ids >= 0, np.take_along_axis(scores, np.maximum(ids, 0), 1),
                                                    np.nan))
        if tied:
            with pytest.raises(ValueError, match=f"in row {tied[0]}, "):
                rw.top_k(scores, k, exclude=mask, nan="last", ties="raise")
        clean = ~np.isnan(scores).any(axis=1)
        untied = np.setdiff1d(np.flatnonzero(clean), tied)
        np.testing.assert_array_equal(rw.top_k(scores[untied], k, exclude=mask[untied], ties="raise"),
                                      np.asarray(expected)[untied])


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 400), st.integers(1, 30), st.integers(0, 2**32 - 1), st.floats(0, 1))
def test_hypothesis_long_rows(n_items, k, seed, excluded):
    gen = np.random.default_rng(seed)
    scores = gen.integers(0, gen.integers(1, 50), (3, n_items)).astype(np.float32)
    mask = gen.random((3, n_items)) < excluded
    expected, tied = reference(scores, k, mask)
    np.testing.assert_array_equal(rw.top_k(scores, k, exclude=mask), expected)
    if not tied:
        np.testing.assert_array_equal(rw.top_k(scores, k, exclude=mask, ties="raise"), expected)
