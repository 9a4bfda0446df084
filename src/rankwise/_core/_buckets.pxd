# Counting, for a few sorted thresholds, the items of a long list that score above each:
# the ranks of the tracked items of a list without sorting it (lists' count_ranks).
#
# Buckets over the thresholds' range: an item's bucket is a non-decreasing function of its
# score (IEEE subtraction and scaling by a positive number are monotone), so an item in a
# bucket holding no threshold lies strictly between the thresholds of other buckets, and
# the bucket alone says how many thresholds lie above it. Only the items of the few
# buckets that hold a threshold ("mixed") need a comparison, and the caller's own exact
# code for them. A list is read in blocks of BLOCK items, in two loops: one computes every
# item's bucket and whether a score is NaN, with no branch and no table, which the compiler
# vectorises on SSE2 (two doubles per instruction); the other adds one to a counter per
# item and lists the items of mixed buckets, again with no branch on the data. Counts are
# folded into the caller's histogram of "thresholds above" every POLL items (and at the
# end), while the 32-bit counters cannot overflow. NaN scores get a bucket of their own,
# below every threshold (nan="last"), which is how the caller learns of them.
#
# The buffers are of fixed size (never sized by the data) and allocated once per call.
from libc.math cimport INFINITY
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t
from libc.stdlib cimport free, malloc
from libc.string cimport memset

from ._typedefs cimport score_t

cdef enum:
    # Items per block: their buckets are kept between the two loops.
    BLOCK = 256
    # Buckets: a power of two from MIN_BUCKETS to MAX_BUCKETS, about BUCKETS_PER_VALUE per
    # threshold (so few items share a bucket with one), and at most one per
    # ITEMS_PER_BUCKET items of the list (so the per-list work on buckets stays small).
    MIN_BUCKETS = 64
    MAX_BUCKETS = 1024
    BUCKETS_PER_VALUE = 32
    ITEMS_PER_BUCKET = 16
    # Four counters per bucket, one per item of each group of four: consecutive items
    # in one bucket (a list sorted by score) do not wait on each other's increment.
    LANES = 4


cdef struct Buckets:
    Py_ssize_t n            # buckets in use
    double base             # bucket = clamp((score - base) * scale, 0, top), truncated
    double scale
    double top
    double nan_bucket       # top + 1
    uint32_t* counts        # LANES x (n + 1) counters: bucket n holds the NaN scores
    int32_t* block          # BLOCK: the block's buckets, then its items in mixed buckets
    int64_t* ahead          # per bucket: thresholds in higher buckets
    uint8_t* mixed          # per bucket: 1 if a threshold falls in it


cdef inline void buckets_free(Buckets* b) noexcept nogil:
    free(b.counts)
    free(b.block)
    free(b.ahead)
    free(b.mixed)
    b.counts, b.block, b.ahead, b.mixed = NULL, NULL, NULL, NULL


cdef inline int buckets_alloc(Buckets* b) noexcept nogil:
    # -1: out of memory (buckets_free frees what was allocated).
    if b.counts != NULL:
        return 0
    b.counts = <uint32_t*>malloc(LANES * (MAX_BUCKETS + 1) * sizeof(uint32_t))
    b.block = <int32_t*>malloc(BLOCK * sizeof(int32_t))
    b.ahead = <int64_t*>malloc((MAX_BUCKETS + 1) * sizeof(int64_t))
    b.mixed = <uint8_t*>malloc(MAX_BUCKETS + 1)
    if b.counts == NULL or b.block == NULL or b.ahead == NULL or b.mixed == NULL:
        buckets_free(b)
        return -1
    return 0


cdef inline int32_t bucket_of(double score, const Buckets* b) noexcept nogil:
    # Scores below the range land in bucket 0, those above it (and +inf) in the top bucket,
    # NaN in the one after it. One expression for the thresholds and the items, which no
    # compiler may contract (no multiply-add), so both get the same buckets. Only selects
    # between doubles that are already computed, which gcc vectorises: a comparison made
    # into an integer (a NaN flag), or arithmetic inside a select (which could raise a
    # floating-point flag the plain code would not), keeps gcc 12 from vectorising.
    cdef double x = (score - b.base) * b.scale
    cdef double y = x if x > 0.0 else 0.0
    y = y if y < b.top else b.top
    y = y if x == x else b.nan_bucket
    return <int32_t>y


cdef inline bint buckets_setup(Buckets* b, const double* values, Py_ssize_t d, Py_ssize_t n) noexcept nogil:
    """Buckets for the d >= 1 thresholds ``values`` (descending) and a list of n items.

    False when they would not pay (too few items per bucket) or cannot be laid out (fewer
    than two distinct thresholds, or a range that is infinite or too small to scale).
    """
    cdef Py_ssize_t k, g = 0, nb = MIN_BUCKETS
    cdef double lo = values[d - 1], span = values[0] - lo
    while nb < MAX_BUCKETS and nb < BUCKETS_PER_VALUE * d and 2 * nb * ITEMS_PER_BUCKET <= n:
        nb *= 2
    if b.counts == NULL or n < nb * ITEMS_PER_BUCKET or not (span > 0.0 and span < INFINITY):
        return False
    # The thresholds from about bucket 1 to bucket nb - 2: items beyond them on either side
    # fill the end buckets, which then hold no threshold.
    b.scale = (nb - 3) / span
    b.base = lo - span / (nb - 3)
    if not (b.scale < INFINITY and b.base > -INFINITY):
        return False
    b.top = <double>(nb - 1)
    b.nan_bucket = <double>nb
    b.n = nb
    # Thresholds are descending, so their buckets do not increase: ahead[k] is the index
    # of the first one in bucket k or lower.
    for k in range(nb - 1, -1, -1):
        while g < d and bucket_of(values[g], b) > k:
            g += 1
        b.ahead[k] = g
        b.mixed[k] = g < d and bucket_of(values[g], b) == k
    # NaN ranks below every number (nan="last"), and no threshold is NaN.
    b.ahead[nb] = d
    b.mixed[nb] = 0
    memset(b.counts, 0, LANES * (nb + 1) * sizeof(uint32_t))
    return True


cdef inline void bucket_block(const score_t* scores, Py_ssize_t n, const Buckets* b) noexcept nogil:
    """Every item's bucket into b.block (n <= BLOCK)."""
    cdef Py_ssize_t i
    cdef int32_t* out = b.block
    cdef Buckets local = b[0]  # the stores to out could alias b's fields
    for i in range(n):
        out[i] = bucket_of(scores[i], &local)


cdef inline Py_ssize_t tally_block(Buckets* b, Py_ssize_t n) noexcept nogil:
    """Count the block's items by bucket; its items in mixed buckets (offsets) into b.block.

    Returns how many those are. Each offset is written where an earlier bucket was read.
    """
    cdef Py_ssize_t i = 0, found = 0, nb = b.n + 1
    cdef int32_t k0, k1, k2, k3
    cdef int32_t* block = b.block
    cdef uint32_t* c = b.counts
    cdef const uint8_t* mixed = b.mixed
    while i + LANES <= n:
        k0, k1, k2, k3 = block[i], block[i + 1], block[i + 2], block[i + 3]
        c[k0] += 1
        c[nb + k1] += 1
        c[2 * nb + k2] += 1
        c[3 * nb + k3] += 1
        block[found] = <int32_t>i
        found += mixed[k0]
        block[found] = <int32_t>(i + 1)
        found += mixed[k1]
        block[found] = <int32_t>(i + 2)
        found += mixed[k2]
        block[found] = <int32_t>(i + 3)
        found += mixed[k3]
        i += LANES
    while i < n:
        k0 = block[i]
        c[k0] += 1
        block[found] = <int32_t>i
        found += mixed[k0]
        i += 1
    return found


cdef inline bint buckets_fold(Buckets* b, int64_t* hist) noexcept nogil:
    """Add the items counted in unmixed buckets to hist[thresholds above them] and clear the
    counts; True if a score was NaN."""
    cdef Py_ssize_t k, nb = b.n + 1
    cdef const uint32_t* c = b.counts
    cdef int64_t total
    cdef bint nan = (c[b.n] | c[nb + b.n] | c[2 * nb + b.n] | c[3 * nb + b.n]) != 0
    for k in range(nb):
        total = <int64_t>c[k] + c[nb + k] + c[2 * nb + k] + c[3 * nb + k]
        if not b.mixed[k]:
            hist[b.ahead[k]] += total
    memset(b.counts, 0, LANES * nb * sizeof(uint32_t))
    return nan
