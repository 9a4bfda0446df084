"""The one sort of the kernels: record types, their orders, and the algorithms.

Three algorithms, each written once: an introsort of scored rows under the rank order
(``sort_items``, unstable, made deterministic by unique keys), a stable merge sort
generic over the record type (``merge_sort``), which a domain calls with its own
comparison where stability matters or comparisons are dear (it makes fewer), and a stable
radix sort of ``Keyed`` records by their keys alone (``radix_sort``), for a domain that
can put its whole order into a key (top_k: a score's bits). The generic
pieces are inline and take the comparison as a function pointer, so each module that calls
them compiles its own copy with the comparison inlined (the pointer is a constant there);
``merge_sort_items`` is the one copy for Items compiled here, out of the caller's code.
"""
from libc.stdint cimport int64_t, uint8_t, uint64_t
from libc.string cimport memcpy, memset

from ._stop cimport POLL, stopped

cdef enum:
    # Runs up to this long are sorted by insertion.
    SMALL_SORT = 16


cdef struct Item:
    # A scored row: the score, its label (or relevance) and a key unique within the list.
    double score
    double label
    int64_t key


cdef struct Keyed:
    # A row sorted by an unsigned key first, by a comparison of its own between equal keys.
    uint64_t key
    int64_t index


ctypedef fused Record:
    Item
    Keyed


cdef inline bint ranks_above(double a, double b) noexcept nogil:
    # NaN (only present under nan="last") ranks below every number.
    return a > b or (b != b and a == a)


cdef inline Py_ssize_t same_flag(double a, double b) noexcept nogil:
    # same_rank without short-circuit branches.
    return (a == b) | ((a != a) & (b != b))


cdef inline bint same_rank(double a, double b) noexcept nogil:
    return a == b or (a != a and b != b)


# Returns early, the items permuted but not sorted, once ``stop`` (``_stop.pxd``) is set.
cdef void sort_items(Item* items, Py_ssize_t n, int label_order, const uint8_t* stop) noexcept nogil


# ``before(order, x, y)``: whether x goes before y; ``order`` is the comparison's own data.

# merge_sort of Items, compiled once here: a caller whose hot loop sits in the same function
# keeps that loop's code as it was (inlined into trec's rank_judged, the sort slowed it by
# 6%), at the cost of an indirect call per comparison.
cdef void merge_sort_items(Item* a, Item* tmp, Py_ssize_t n,
                           bint (*before)(const void*, const Item*, const Item*) noexcept nogil,
                           const void* order, const uint8_t* stop) noexcept nogil


cdef inline void insertion_sort(Record* a, Py_ssize_t n,
                                bint (*before)(const void*, const Record*, const Record*) noexcept nogil,
                                const void* order) noexcept nogil:
    cdef Py_ssize_t i, j
    cdef Record v
    for i in range(1, n):
        v = a[i]
        j = i
        while j > 0 and before(order, &v, &a[j - 1]):
            a[j] = a[j - 1]
            j -= 1
        a[j] = v


cdef inline void merge_into(Record* src, Record* dst, Py_ssize_t n,
                            bint (*before)(const void*, const Record*, const Record*) noexcept nogil,
                            const void* order, const uint8_t* stop) noexcept nogil:
    # Sorts src's records into dst, both holding the same records on entry; each half is
    # sorted into src first (the buffers swap roles at every level, so no record is copied
    # twice), then the halves are merged, the left one winning ties. Every step leaves each
    # buffer a permutation of its records, so a stop (checked on entry, at sizes of POLL
    # and above) leaves dst one too.
    cdef Py_ssize_t i, j, k, mid = n >> 1
    cdef bint right
    if n >= POLL and stopped(stop):
        return
    if n <= SMALL_SORT:
        insertion_sort(dst, n, before, order)
        return
    merge_into(dst, src, mid, before, order, stop)
    merge_into(dst + mid, src + mid, n - mid, before, order, stop)
    i, j, k = 0, mid, 0
    # Which half gives the next record is chosen without a branch (a pointer select):
    # on unordered records a branch there went the wrong way half the time.
    while i < mid and j < n:
        right = before(order, &src[j], &src[i])
        dst[k] = (&src[j] if right else &src[i])[0]
        j += right
        i += 1 - right
        k += 1
    memcpy(&dst[k], &src[i], (mid - i) * sizeof(Record))
    memcpy(&dst[k + mid - i], &src[j], (n - j) * sizeof(Record))


cdef inline void merge_sort(Record* a, Record* tmp, Py_ssize_t n,
                            bint (*before)(const void*, const Record*, const Record*) noexcept nogil,
                            const void* order, const uint8_t* stop) noexcept nogil:
    # Stable, ``tmp`` holding n records. Returns early, the records permuted but not
    # sorted, once ``stop`` is set.
    memcpy(tmp, a, n * sizeof(Record))
    merge_into(tmp, a, n, before, order, stop)


cdef inline Keyed* radix_sort(Keyed* a, Keyed* tmp, Py_ssize_t n, int key_bytes) noexcept nogil:
    # Stable (by position) sort of n records by the low ``key_bytes`` bytes of their keys,
    # ascending: a byte at a time from the lowest, no comparison, so no branch on the data
    # (sorting a few hundred records by comparisons waited on each one in turn). Returns the
    # buffer, ``a`` or ``tmp``, that holds them sorted. A byte all keys share is skipped.
    cdef Py_ssize_t count[256]
    cdef Py_ssize_t total, c
    cdef Py_ssize_t i
    cdef int shift, d
    for shift in range(0, 8 * key_bytes, 8):
        if n < 2:
            break
        memset(count, 0, sizeof(count))
        for i in range(n):
            count[(a[i].key >> shift) & 255] += 1
        if count[(a[0].key >> shift) & 255] == n:
            continue
        total = 0
        for d in range(256):
            c = count[d]
            count[d] = total
            total += c
        for i in range(n):
            d = (a[i].key >> shift) & 255
            tmp[count[d]] = a[i]
            count[d] += 1
        a, tmp = tmp, a
    return a
