"""The resampling kernel against an independent Python model of its documented generator."""
import numpy as np
import pytest

from rankwise._core._resample import _py_bootstrap_indices, _py_words, bootstrap_sums, sign_flip_sums

MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
TABLE = 128 * 256


def mix(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def word(key0, key1, r, j):
    """Word j of resample r's stream, as the kernel's docstring defines it."""
    stream = mix((key0 + GOLDEN * (r + 1)) & MASK) ^ key1
    return mix((stream + GOLDEN * (j + 1)) & MASK)


def signs(key0, key1, r, n):
    words = [word(key0, key1, r, j) for j in range((n + 63) // 64)]
    return np.array([-1.0 if (words[i // 64] >> (i % 64)) & 1 else 1.0 for i in range(n)])


def bootstrap_indices(key0, key1, r, bound, count):
    threshold, spare, out = (1 << 32) % bound, 0, []
    for i in range(count):
        m = ((word(key0, key1, r, i // 2) >> (32 * (i % 2))) & 0xFFFFFFFF) * bound
        while m & 0xFFFFFFFF < threshold:
            m = (word(key0, key1, r, (1 << 62) + spare) & 0xFFFFFFFF) * bound
            spare += 1
        out.append(m >> 32)
    return out


def test_stream_is_splitmix64_of_the_resample_counter():
    out = np.empty(6, dtype=np.uint64)
    for key0, key1, r in ((0, 0, 0), (123, 456, 7), (MASK, 1, 10**12)):
        _py_words(key0, key1, r, 6, out)
        assert out.tolist() == [word(key0, key1, r, j) for j in range(6)]
    # splitmix64's published first output for seed 0 (state += golden, then mix).
    assert mix(GOLDEN) == 0xE220A8397B1DCDAF


@pytest.mark.parametrize("n", [1, 7, 8, 9, 63, 64, 65, 1023, 1024, 1025, 3000])
def test_sign_flip_sums_are_the_signed_sums(n, rng):
    d = rng.normal(size=n)
    out = np.empty(5)
    sign_flip_sums(d, 17, 29, False, 40, 45, out, np.empty(TABLE))
    want = [float(signs(17, 29, r, n) @ d) for r in range(40, 45)]
    np.testing.assert_allclose(out, want, rtol=1e-12, atol=1e-12 * np.abs(d).sum())


def test_exact_mode_enumerates_patterns_by_bit(rng):
    d = rng.normal(size=6)
    out = np.empty(64)
    sign_flip_sums(d, 0, 0, True, 0, 64, out, np.empty(256))
    for r in range(64):
        s = np.array([-1.0 if (r >> i) & 1 else 1.0 for i in range(6)])
        assert out[r] == pytest.approx(float(s @ d), abs=1e-13)
    # Pattern 0 is the observed sum, for any n (patterns only touch the first word).
    big = rng.normal(size=2000)
    one = np.empty(1)
    sign_flip_sums(big, 0, 0, True, 0, 1, one, np.empty(TABLE))
    assert one[0] == pytest.approx(big.sum(), rel=1e-12)


def test_chunks_of_resamples_give_the_same_values(rng):
    d = rng.normal(size=2500)
    whole = np.empty(300)
    sign_flip_sums(d, 3, 4, False, 0, 300, whole, np.empty(TABLE))
    parts = np.empty(300)
    for start, stop in ((0, 1), (1, 120), (120, 299), (299, 300)):
        sign_flip_sums(d, 3, 4, False, start, stop, parts[start:stop], np.empty(TABLE))
    np.testing.assert_array_equal(parts, whole)
    boot_whole, boot_parts = np.empty(50), np.empty(50)
    bootstrap_sums(d, 3, 4, 0, 50, boot_whole)
    bootstrap_sums(d, 3, 4, 0, 17, boot_parts[:17])
    bootstrap_sums(d, 3, 4, 17, 50, boot_parts[17:])
    np.testing.assert_array_equal(boot_parts, boot_whole)


def test_random_signs_are_balanced(rng):
    n, resamples = 640, 400
    d = np.zeros(n)
    d[rng.integers(0, n)] = 1.0          # the sum is the sign of one query
    out = np.empty(resamples)
    sign_flip_sums(d, 5, 6, False, 0, resamples, out, np.empty(TABLE))
    assert set(np.unique(out)) == {-1.0, 1.0}
    assert abs(out.mean()) < 5 / np.sqrt(resamples)


@pytest.mark.parametrize("bound", [1, 2, 7, 1000, 2**31 + 1, 3 * 2**30, 2**32 - 1])
def test_bootstrap_indices_follow_lemire_with_rejection(bound):
    out = np.empty(64, dtype=np.uint64)
    _py_bootstrap_indices(5, 9, 3, bound, 64, out)
    assert out.tolist() == bootstrap_indices(5, 9, 3, bound, 64)
    assert out.max() < bound


def test_bootstrap_sums_are_sums_of_drawn_values(rng):
    d = rng.normal(size=1001)
    out = np.empty(4)
    bootstrap_sums(d, 5, 9, 2, 6, out)
    want = [d[bootstrap_indices(5, 9, r, 1001, 1001)].sum() for r in range(2, 6)]
    np.testing.assert_allclose(out, want, rtol=1e-12)


def test_bootstrap_indices_are_uniform():
    bound, count = 10, 20_000
    out = np.empty(count, dtype=np.uint64)
    _py_bootstrap_indices(1, 2, 0, bound, count, out)
    observed = np.bincount(out.astype(np.int64), minlength=bound)
    chi2 = float(((observed - count / bound) ** 2 / (count / bound)).sum())
    assert chi2 < 35       # chi-square with 9 degrees of freedom: p < 1e-4 beyond this


def test_kernels_read_read_only_inputs(rng):
    d = rng.normal(size=100)
    d.flags.writeable = False
    out = np.empty(3)
    sign_flip_sums(d, 1, 2, False, 0, 3, out, np.empty(TABLE))
    bootstrap_sums(d, 1, 2, 0, 3, out)
