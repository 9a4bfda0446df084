"""The nogil introsort against NumPy's lexsort."""
import numpy as np
import pytest

from rankwise._core._sort import _py_sort_items


@pytest.mark.parametrize("n", [0, 1, 2, 15, 16, 17, 100, 5000])
@pytest.mark.parametrize("label_order", [-1, 0, 1])
def test_sort_matches_lexsort(rng, n, label_order):
    scores = rng.choice([np.nan, -np.inf, 0.0, -0.0, 1.0, 2.0, np.inf], n)
    labels = rng.integers(0, 3, n).astype(np.float64)
    keys = rng.permutation(n).astype(np.int64)
    got = _py_sort_items(scores, labels, keys, label_order)
    # Score descending with NaN last, then label by label_order, then key ascending.
    is_nan = np.isnan(scores)
    order = np.lexsort((keys, -label_order * labels, -np.where(is_nan, 0.0, scores), is_nan))
    np.testing.assert_array_equal(got, keys[order])


def test_adversarial_inputs_sort_correctly():
    # Sorted, reversed, organ-pipe and all-equal inputs exercise the heapsort fallback.
    n = 4096
    for scores in (np.arange(n, dtype=float), np.arange(n, 0, -1, dtype=float),
                   np.r_[np.arange(n // 2), np.arange(n // 2, 0, -1)].astype(float), np.zeros(n)):
        keys = np.arange(n, dtype=np.int64)
        got = _py_sort_items(scores, np.zeros(n), keys, 0)
        np.testing.assert_array_equal(got, np.lexsort((keys, -scores)))
