"""Resampling: random sign flips (the paired randomization test) and the bootstrap of a mean.

Random numbers are counter-based, so any resample can be computed alone: resample ``r``
draws from its own splitmix64 stream, seeded by ``mix(key0 + GOLDEN * (r + 1)) ^ key1``;
word ``j`` of that stream is ``mix(stream + GOLDEN * (j + 1))``. A thread handling
resamples ``r_start:r_stop`` therefore computes exactly what one thread handling all of
them would, and results do not depend on the thread count.

Sign flips. Query ``i`` takes the sign of bit ``i % 64`` of word ``i // 64`` (set bit:
negative). Sums are not formed term by term: for every group of 8 consecutive queries a
table holds the 256 signed sums of the group, each added left to right, so a resample
costs one lookup per 8 queries. A pattern and its complement give sums that are exact
negations of each other (the same additions, every term negated), so the null
distribution of an exact enumeration is exactly symmetric. Queries are processed in
blocks whose tables fit in the L2 cache.

Bootstrap. Each resample draws ``n`` indices uniformly from ``0..n-1`` with Lemire's
multiply-and-reject method on the 32-bit halves of its words (unbiased), and sums the
drawn values.
"""
from libc.stdint cimport uint8_t, uint32_t, uint64_t
from libc.string cimport memset

from rankwise._core._stop cimport POLL, flag_of, stopped

cdef uint64_t GOLDEN = 0x9E3779B97F4A7C15ULL
# Counter of the first word that replaces rejected bootstrap draws.
cdef uint64_t SPARE = <uint64_t>1 << 62

cdef enum:
    GROUP = 8                     # queries per lookup table
    TABLE = 256                   # entries per table: one per sign pattern of a group
    BLOCK_GROUPS = 128            # groups per block: 128 x 256 doubles = 256 KiB of tables
    WORD_GROUPS = 8               # groups per 64-bit word


cdef inline uint64_t _mix(uint64_t z) noexcept nogil:
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline uint64_t _stream(uint64_t key0, uint64_t key1, uint64_t r) noexcept nogil:
    return _mix(key0 + GOLDEN * (r + 1)) ^ key1


cdef inline uint64_t _word(uint64_t stream, uint64_t j) noexcept nogil:
    return _mix(stream + GOLDEN * (j + 1))


cdef void _build_tables(const double* d, Py_ssize_t n, double* table) noexcept nogil:
    """``table[g * 256 + b]``: sum over bits k of ``b`` of (bit set ? -d : d)[8g + k], left to right."""
    cdef Py_ssize_t groups = (n + GROUP - 1) // GROUP, g, k, i, size
    cdef double value
    cdef double* t
    for g in range(groups):
        t = table + g * TABLE
        t[0] = 0.0
        size = 1
        for k in range(GROUP):
            value = d[g * GROUP + k] if g * GROUP + k < n else 0.0
            for i in range(size):
                t[i + size] = t[i] - value
                t[i] = t[i] + value
            size *= 2


cdef inline double _block_sum(const double* table, Py_ssize_t groups, uint64_t stream, uint64_t first_word,
                              bint exact, uint64_t pattern) noexcept nogil:
    """Signed sum of one block for one resample: four accumulators, combined in a fixed order."""
    cdef double acc[4]
    cdef Py_ssize_t g = 0, w, t, stop
    cdef uint64_t word
    acc[0] = acc[1] = acc[2] = acc[3] = 0.0
    w = 0
    while g < groups:
        if exact:
            word = pattern if first_word + <uint64_t>w == 0 else 0
        else:
            word = _word(stream, first_word + <uint64_t>w)
        stop = min(g + WORD_GROUPS, groups)
        t = 0
        while g < stop:
            acc[t & 3] += table[g * TABLE + <Py_ssize_t>(word & 0xFF)]
            word >>= 8
            g += 1
            t += 1
        w += 1
    return (acc[0] + acc[1]) + (acc[2] + acc[3])


def sign_flip_sums(const double[::1] d, uint64_t key0, uint64_t key1, bint exact,
                   Py_ssize_t r_start, Py_ssize_t r_stop, double[::1] out, double[::1] table,
                   const uint8_t[::1] stop=None):
    """Set ``out[r - r_start]`` to the signed sum of ``d`` under sign pattern ``r``.

    Random mode: the signs of resample ``r`` come from its stream (module docstring).
    Exact mode (``n <= 62``): bit ``i`` of ``r`` itself is the sign of query ``i``, so
    ``r = 0 .. 2**n - 1`` enumerates every pattern and ``r = 0`` is the observed sum.
    ``table`` is scratch of at least ``min(ceil(n / 8), 128) * 256`` doubles. Returns
    early, ``out`` incomplete, once ``stop`` (the call's stop flag, ``_stop.pxd``) is set.
    """
    cdef Py_ssize_t n = d.shape[0], block_start, groups, r, work = 0
    cdef uint64_t first_word
    cdef const uint8_t* flag = flag_of(stop)
    with nogil:
        # In blocks: the first touch of a big output takes a while.
        r = 0
        while r < r_stop - r_start and not stopped(flag):
            memset(&out[r], 0, min(<Py_ssize_t>POLL, r_stop - r_start - r) * sizeof(double))
            r += POLL
        block_start = 0
        while block_start < n and not stopped(flag):
            groups = min((n - block_start + GROUP - 1) // GROUP, <Py_ssize_t>BLOCK_GROUPS)
            _build_tables(&d[block_start], min(n - block_start, groups * GROUP), &table[0])
            first_word = <uint64_t>(block_start // (GROUP * WORD_GROUPS))
            for r in range(r_start, r_stop):
                work += groups
                if work >= POLL:
                    work = 0
                    if stopped(flag):
                        break
                out[r - r_start] += _block_sum(&table[0], groups, _stream(key0, key1, <uint64_t>r),
                                               first_word, exact, <uint64_t>r)
            block_start += groups * GROUP


cdef inline uint64_t _draw(uint32_t x, uint32_t bound, uint32_t threshold, uint64_t stream,
                           uint64_t* spare) noexcept nogil:
    """``x * bound``, its high half a uniform index below ``bound``; redrawn while its low half is rejected."""
    cdef uint64_t m = <uint64_t>x * bound
    while <uint32_t>m < threshold:
        m = <uint64_t><uint32_t>_word(stream, SPARE + spare[0]) * bound
        spare[0] += 1
    return m


def bootstrap_sums(const double[::1] d, uint64_t key0, uint64_t key1, Py_ssize_t r_start, Py_ssize_t r_stop,
                   double[::1] out, const uint8_t[::1] stop=None):
    """Set ``out[r - r_start]`` to the sum of ``n`` values of ``d`` drawn with replacement (resample r).

    Draw ``i`` takes the low (even ``i``) or high (odd ``i``) half of word ``i // 2``; a
    rejected draw is replaced by the low halves of words ``2**62, 2**62 + 1, ...`` of the
    same stream, in turn. ``n`` must be below 2**32. Returns early, ``out`` incomplete,
    once ``stop`` (the call's stop flag, ``_stop.pxd``) is set.
    """
    cdef const uint8_t* flag = flag_of(stop)
    cdef Py_ssize_t n = d.shape[0], r, i, block_end, work = POLL
    cdef uint64_t stream, word, spare
    cdef uint32_t bound = <uint32_t>n, threshold
    cdef double acc[4]
    if n == 0:
        return
    # Lemire: reject the low products below 2**32 mod n, which leaves every index equally likely.
    threshold = <uint32_t>((<uint64_t>1 << 32) % <uint64_t>bound)
    with nogil:
        for r in range(r_start, r_stop):
            # The stop flag every POLL draws: between resamples, and between blocks of a long one.
            work += n
            if work >= POLL:
                work = 0
                if stopped(flag):
                    break
            stream = _stream(key0, key1, <uint64_t>r)
            spare = 0
            acc[0] = acc[1] = acc[2] = acc[3] = 0.0
            i = 0
            while i + 1 < n:
                block_end = min(i + POLL, n - 1)
                while i < block_end:
                    word = _word(stream, <uint64_t>(i >> 1))
                    acc[i & 3] += d[<Py_ssize_t>(_draw(<uint32_t>word, bound, threshold, stream, &spare) >> 32)]
                    acc[(i + 1) & 3] += d[<Py_ssize_t>(_draw(<uint32_t>(word >> 32), bound, threshold, stream,
                                                             &spare) >> 32)]
                    i += 2
                if i + 1 < n and stopped(flag):
                    break
            if i < n:
                word = _word(stream, <uint64_t>(i >> 1))
                acc[i & 3] += d[<Py_ssize_t>(_draw(<uint32_t>word, bound, threshold, stream, &spare) >> 32)]
            out[r - r_start] = (acc[0] + acc[1]) + (acc[2] + acc[3])


def _py_words(uint64_t key0, uint64_t key1, uint64_t r, Py_ssize_t count, uint64_t[::1] out):
    """The first ``count`` words of resample ``r``'s stream (for tests)."""
    cdef uint64_t stream = _stream(key0, key1, r)
    cdef Py_ssize_t j
    for j in range(count):
        out[j] = _word(stream, <uint64_t>j)


def _py_bootstrap_indices(uint64_t key0, uint64_t key1, uint64_t r, uint32_t bound, Py_ssize_t count,
                          uint64_t[::1] out):
    """The first ``count`` indices below ``bound`` that resample ``r`` draws (for tests)."""
    cdef uint64_t stream = _stream(key0, key1, r), word = 0, spare = 0
    cdef uint32_t threshold = <uint32_t>((<uint64_t>1 << 32) % <uint64_t>bound)
    cdef Py_ssize_t i
    for i in range(count):
        word = _word(stream, <uint64_t>(i >> 1))
        out[i] = _draw(<uint32_t>(word >> (32 * (i & 1))), bound, threshold, stream, &spare) >> 32
