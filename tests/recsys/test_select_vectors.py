"""top_k's vectorised loops: the base ones (SSE2 or scalar) give what the AVX2 ones give.

Import picks AVX2 where the CPU has it, so the base loops would otherwise go untested on
such a machine; on one without AVX2 both runs take the base loops.
"""
import numpy as np
import pytest

import rankwise as rw
from rankwise.recsys import _select
from rankwise.testing import recsys as ref

sp = pytest.importorskip("scipy.sparse")


@pytest.fixture
def base_loops():
    assert not _select.use_avx2(False)
    yield
    _select.use_avx2(True)


def rows(rng, dtype, n_items):
    # Runs of every length between excluded items (1 to 200), ties, NaN, infinities, -0.0.
    scores = rng.integers(-20, 20, (12, n_items)).astype(dtype) / 4
    scores[1] = rng.random(n_items)
    scores[2, ::7] = np.nan
    scores[3, 5::11] = np.inf
    scores[4, ::2] = -0.0
    scores[5] = 0.0
    exclude = rng.random((12, n_items)) < np.linspace(0, 0.5, 12)[:, None]
    return scores, exclude


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n_items", [3, 9, 17, 64, 127, 130, 1000])
def test_base_loops_give_the_same(rng, base_loops, dtype, n_items):
    scores, exclude = rows(rng, dtype, n_items)
    for k in (1, 5, 40, 100):
        for mask in (None, exclude, sp.csr_matrix(exclude)):
            base = rw.top_k(scores, k, exclude=mask, nan="last", return_scores=True)
            _select.use_avx2(True)
            wide = rw.top_k(scores, k, exclude=mask, nan="last", return_scores=True)
            _select.use_avx2(False)
            np.testing.assert_array_equal(base[0], wide[0])
            np.testing.assert_array_equal(base[1], wide[1])
    for k in (1, 5, 40):
        expected = ref.top_k(np.asarray(scores, dtype=np.float64).tolist(), k, exclude.tolist())
        np.testing.assert_array_equal(rw.top_k(scores, k, exclude=exclude, nan="last"), expected[0])
    with pytest.raises(ValueError, match="row 2"):
        rw.top_k(scores[:3], 3)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_excluded_items_holding_the_best_scores(rng, dtype):
    # The excluded items are the highest of their pieces (the floor must step past them),
    # some of them NaN (no error: an excluded score never matters).
    scores = rng.random((20, 3000)).astype(dtype)
    exclude = scores > np.linspace(0.9, 0.999, 20)[:, None]
    scores[exclude & (rng.random(scores.shape) < 0.3)] = np.nan
    for k in (1, 10, 50, 100, 400):
        expected = ref.top_k(np.where(exclude, 0, scores).astype(np.float64).tolist(), k, exclude.tolist())
        got = rw.top_k(scores, k, exclude=sp.csr_matrix(exclude), ties="raise")
        np.testing.assert_array_equal(got, expected[0])
        assert not expected[1]
