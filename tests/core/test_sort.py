"""The kernels' one sort (_core/_sort.pxd) against NumPy's lexsort and Python's sorted.

Both algorithms over scored rows (Item) under the rank order, and the merge sort over
keyed rows (Keyed) under the byte order of strings (byte_ranks).
"""
import numpy as np
import pytest

from rankwise._core._intern import byte_ranks
from rankwise._core._sort import _py_sort_items

STABLE = pytest.mark.parametrize("stable", [False, True], ids=["introsort", "merge"])


def _stopped():
    flag = np.zeros(24, dtype=np.uint8)
    flag[0] = 1
    return flag


@STABLE
@pytest.mark.parametrize("n", [0, 1, 2, 15, 16, 17, 33, 100, 5000])
@pytest.mark.parametrize("label_order", [-1, 0, 1])
def test_sort_matches_lexsort(rng, n, label_order, stable):
    scores = rng.choice([np.nan, -np.inf, 0.0, -0.0, 1.0, 2.0, np.inf], n)
    labels = rng.integers(0, 3, n).astype(np.float64)
    keys = rng.permutation(n).astype(np.int64)
    got = _py_sort_items(scores, labels, keys, label_order, stable)
    # Score descending with NaN last, then label by label_order, then key ascending.
    is_nan = np.isnan(scores)
    order = np.lexsort((keys, -label_order * labels, -np.where(is_nan, 0.0, scores), is_nan))
    np.testing.assert_array_equal(got, keys[order])


@STABLE
def test_adversarial_inputs_sort_correctly(stable):
    # Sorted, reversed, organ-pipe and all-equal inputs exercise the heapsort fallback.
    n = 4096
    for scores in (np.arange(n, dtype=float), np.arange(n, 0, -1, dtype=float),
                   np.r_[np.arange(n // 2), np.arange(n // 2, 0, -1)].astype(float), np.zeros(n)):
        keys = np.arange(n, dtype=np.int64)
        got = _py_sort_items(scores, np.zeros(n), keys, 0, stable)
        np.testing.assert_array_equal(got, np.lexsort((keys, -scores)))


@STABLE
def test_stopped_sort_leaves_a_permutation(rng, stable):
    # Long enough to poll the flag: the sort returns at once, every record still there once.
    n = 1 << 17
    keys = rng.permutation(n).astype(np.int64)
    got = _py_sort_items(rng.random(n), np.zeros(n), keys, 0, stable, _stopped())
    np.testing.assert_array_equal(np.sort(got), np.arange(n))


def _spans(strings):
    data = np.frombuffer(b"".join(strings), dtype=np.uint8)
    offsets = np.zeros(len(strings) + 1, dtype=np.int64)
    np.cumsum([len(s) for s in strings], out=offsets[1:])
    return data, offsets


def _sorted_ranks(strings):
    ranks = np.empty(len(strings), dtype=np.int64)
    ranks[sorted(range(len(strings)), key=strings.__getitem__)] = np.arange(len(strings))
    return ranks


@pytest.mark.parametrize("n", [0, 1, 2, 16, 17, 40, 3000])
@pytest.mark.parametrize("prefix", [b"", b"clueweb09-en0000-"])
def test_byte_ranks_match_stable_sorted(rng, n, prefix):
    # Python's sorted is stable and compares bytes unsigned, a proper prefix first.
    # Few distinct tails: equal strings (input order), zero bytes, prefixes, and tails
    # longer than the 8 bytes of the key.
    alphabet = [b"", b"\x00", b"a", b"ab", b"\xff", b"abcdefgh", b"abcdefgh\x00", b"abcdefghi", b"abcdefgz"]
    strings = [prefix + alphabet[i] + alphabet[j]
               for i, j in zip(rng.integers(0, len(alphabet), n), rng.integers(0, len(alphabet), n), strict=True)]
    got = byte_ranks(*_spans(strings))
    np.testing.assert_array_equal(got, _sorted_ranks(strings))


def test_byte_ranks_of_many_distinct_strings(rng):
    strings = [b"doc%d" % v for v in rng.integers(0, 10**9, 70_000)]
    np.testing.assert_array_equal(byte_ranks(*_spans(strings)), _sorted_ranks(strings))
