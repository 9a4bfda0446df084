"""The one duplicate finder: the first id repeated within a group of rows.

Every domain that refuses a document twice in one query asks this kernel (trec's
Qrels and Run, whatever their ids, and the tie keys of ``ties="trec"``); one Python
function words the error (``validation.duplicate_message``). Each group's ids go into
a hash set (``_hash.pxd``) sized by the group: a group too long for a cache-sized table
is split into buckets by its ids' hash, each checked on its own, for one int64 of
scratch per row.

Every kernel takes the call's stop flag (``stop``, ``_stop.pxd``) and returns early once
it is set; the caller discards what it gave.
"""
import numpy as np

from libc.stdint cimport int64_t, uint8_t
from libc.stdlib cimport free, malloc
from libc.string cimport memset

from rankwise._core._hash cimport IdTable, id_hash, insert, table_bits, table_init
from rankwise._core._stop cimport POLL, POLL_MASK, STOPPED, flag_of, memset_polled, stopped, was_stopped

# Slots per document: a sixteenth full at most, so that almost every insert finds its
# home slot free, and the probe loop's exit is rarely mispredicted (W2's 1,000-row
# queries: 9.5 -> 5.8 ms for 5 million rows, against a quarter full), while the table
# stays within 2^CACHED_BITS slots (1 MiB, a core's cache); larger groups get at least
# MIN_SLOTS_PER_DOC. Ids gathered through an order miss the cache at every row, and a
# larger table only adds to those misses (5% slower on shuffled rows), as it does to the
# passes over a split group's buckets: these get MIN_SLOTS_PER_DOC.
cdef int SLOTS_PER_DOC = 16
cdef int MIN_SLOTS_PER_DOC = 4
cdef int CACHED_BITS = 17
# Groups longer than this are split into buckets of about BUCKET_ROWS documents by the
# top bits of their ids' hash (at most 2^MAX_BUCKET_BITS buckets): one int64 of scratch
# per row and a table that stays in cache, instead of MIN_SLOTS_PER_DOC slots per row.
cdef Py_ssize_t LONG_QUERY = 1 << 16
cdef Py_ssize_t BUCKET_ROWS = 1 << 12
cdef int MAX_BUCKET_BITS = 10
cdef Py_ssize_t BUCKET_ARRAYS = 4 * ((1 << MAX_BUCKET_BITS) + 1)


cdef struct Finder:
    const int64_t* docs
    const int64_t* order    # row i's id is docs[order[i]]; NULL: docs[i]
    const uint8_t* stop
    int64_t* slots          # base + position of a key in its group; below base: empty
    int bits                # the table has 2^bits slots
    int64_t base            # advanced past each group, so the table is never cleared
    int64_t* keys           # a group's ids, gathered through the order or split into buckets
    int64_t* buckets        # 4 x (2^MAX_BUCKET_BITS + 1): bounds, fill, first repeats
    int spread              # slots per document: SLOTS_PER_DOC, or MIN_SLOTS_PER_DOC through an order


cdef struct Buckets:
    # A long group split by the top ``skip`` bits of its ids' hash.
    int skip
    Py_ssize_t count, largest
    int64_t* bound          # count + 1 bounds in f.keys
    int64_t* fill
    int64_t* rep_a          # each bucket's first repeat (b) and the position it repeats (a)
    int64_t* rep_b


cdef inline int group_bits(const Finder* f, Py_ssize_t n) noexcept nogil:
    # The table for n ids: non-decreasing in n, so a longer group's table serves a shorter.
    return max(min(table_bits(n, f.spread), CACHED_BITS), table_bits(n, MIN_SLOTS_PER_DOC))


cdef int ensure_slots(Finder* f, int bits) noexcept nogil:
    # A table of at least 2^bits slots, all empty for any base (-1 < 0 <= base); -1: out of
    # memory. Cleared with the stop flag checked (a table for ids chosen to collide has up to
    # 2 slots per row of a group): STOPPED, with no table.
    cdef size_t n_slots = <size_t>1 << bits
    if bits <= f.bits:
        return 0
    free(f.slots)
    f.slots = <int64_t*>malloc(n_slots * sizeof(int64_t))
    f.bits = 0
    if f.slots == NULL:
        return -1
    if not memset_polled(f.slots, 0xFF, n_slots * sizeof(int64_t), f.stop):
        return STOPPED
    f.bits = bits
    return 0


cdef inline Py_ssize_t first_repeat(Finder* f, const int64_t* keys, Py_ssize_t n, int bits, int skip,
                                    Py_ssize_t* earlier) noexcept nogil:
    # Position of the first key equal to an earlier one (whose position goes to ``earlier``),
    # or -1. Needs n <= 2^bits <= the table's slots, so that every probe ends. In blocks of
    # POLL keys, the stop flag checked between them: STOPPED.
    cdef IdTable t
    cdef int64_t row
    cdef int64_t* slots = f.slots
    cdef Py_ssize_t i, block = 0
    table_init(&t, bits, f.base, keys)
    f.base += n
    while block < n:
        if block > 0 and stopped(f.stop):
            return STOPPED
        for i in range(block, min(block + POLL, n)):
            row = insert(t, slots, keys[i], i, skip)
            if row >= 0:
                earlier[0] = row
                return i
        block += POLL
    return -1


cdef inline int64_t doc_at(const Finder* f, Py_ssize_t i) noexcept nogil:
    return f.docs[f.order[i]] if f.order != NULL else f.docs[i]


cdef inline Py_ssize_t bucket_of(const Buckets* b, int64_t key) noexcept nogil:
    return id_hash(key) >> (64 - b.skip)


cdef bint split_group(Finder* f, Buckets* b, Py_ssize_t start, Py_ssize_t n) noexcept nogil:
    # The group's ids into f.keys by bucket, stably: a bucket keeps row order and holds
    # every copy of its ids. False if the stop flag, checked every POLL rows, was set.
    cdef Py_ssize_t i, p
    cdef int64_t key
    b.skip = 1
    while b.skip < MAX_BUCKET_BITS and (n >> b.skip) > BUCKET_ROWS:
        b.skip += 1
    b.count, b.largest = 1 << b.skip, 0
    b.bound = f.buckets
    b.fill = b.bound + (1 << MAX_BUCKET_BITS) + 1
    b.rep_a = b.fill + (1 << MAX_BUCKET_BITS) + 1
    b.rep_b = b.rep_a + (1 << MAX_BUCKET_BITS) + 1
    memset(b.bound, 0, (b.count + 1) * sizeof(int64_t))
    for i in range(start, start + n):
        if ((i - start) & POLL_MASK) == 0 and stopped(f.stop):
            return False
        b.bound[bucket_of(b, doc_at(f, i)) + 1] += 1
    for p in range(b.count):
        b.largest = max(b.largest, b.bound[p + 1])
        b.bound[p + 1] += b.bound[p]
        b.fill[p] = b.bound[p]
    for i in range(start, start + n):
        if ((i - start) & POLL_MASK) == 0 and stopped(f.stop):
            return False
        key = doc_at(f, i)
        p = bucket_of(b, key)
        f.keys[b.fill[p]] = key
        b.fill[p] += 1
    return True


cdef Py_ssize_t earliest_of_buckets(Finder* f, const Buckets* b, Py_ssize_t start, Py_ssize_t n,
                                    Py_ssize_t* earlier) noexcept nogil:
    # The rows of the buckets' first repeats: rows in order, counting each bucket's; the
    # first row that is a bucket's repeat is the group's first repeat. Reuses b.bound and
    # b.fill (the buckets were checked).
    cdef Py_ssize_t i, p, t
    memset(b.fill, 0, b.count * sizeof(int64_t))
    for i in range(n):
        if (i & POLL_MASK) == 0 and stopped(f.stop):
            return STOPPED
        p = bucket_of(b, doc_at(f, start + i))
        t = b.fill[p]
        b.fill[p] = t + 1
        if t == b.rep_a[p]:
            b.bound[p] = i
        elif t == b.rep_b[p]:
            earlier[0] = b.bound[p]
            return i
    return -1


cdef Py_ssize_t first_repeat_split(Finder* f, Py_ssize_t start, Py_ssize_t n, Py_ssize_t* earlier) noexcept nogil:
    # first_repeat for a long group, bucket by bucket: a bucket's first repeat is the
    # earliest of its rows, and the group's is the earliest of the buckets'. -2: out of
    # memory; STOPPED: the stop flag was set.
    cdef Buckets b
    cdef Py_ssize_t p, t, a = -1, found = -1
    cdef int bits, status
    if not split_group(f, &b, start, n):
        return STOPPED
    bits = table_bits(b.largest, MIN_SLOTS_PER_DOC)
    if b.largest > 4 * (n >> b.skip) + BUCKET_ROWS:
        # Ids chosen to share their hash's top bits: a table with 1 to 2 slots per id of
        # that bucket (slower probes, but scratch stays within 3 int64 per row).
        bits = table_bits(b.largest, 1)
    status = ensure_slots(f, bits)
    if status != 0:
        return -2 if status == -1 else STOPPED
    for p in range(b.count):
        if stopped(f.stop):
            return STOPPED
        t = b.bound[p + 1] - b.bound[p]
        b.rep_b[p] = first_repeat(f, f.keys + b.bound[p], t, min(table_bits(t, MIN_SLOTS_PER_DOC), bits), b.skip, &a)
        if b.rep_b[p] == STOPPED:
            return STOPPED
        b.rep_a[p] = a if b.rep_b[p] >= 0 else -1
        found = max(found, b.rep_b[p])
    if found < 0:
        return -1
    return earliest_of_buckets(f, &b, start, n, earlier)


cdef Py_ssize_t group_repeat(Finder* f, Py_ssize_t start, Py_ssize_t n, Py_ssize_t* earlier) noexcept nogil:
    # The group's first repeat (position in the group) and the position it repeats; -1:
    # none; -2: out of memory; STOPPED.
    cdef Py_ssize_t i
    if n > LONG_QUERY:
        return first_repeat_split(f, start, n, earlier)
    if f.order == NULL:
        return first_repeat(f, f.docs + start, n, group_bits(f, n), 0, earlier)
    for i in range(n):
        f.keys[i] = f.docs[f.order[start + i]]
    return first_repeat(f, f.keys, n, group_bits(f, n), 0, earlier)


cdef int search(Finder* f, const int64_t[::1] indptr, Py_ssize_t g_start, Py_ssize_t g_stop,
                Py_ssize_t* a, Py_ssize_t* b) noexcept nogil:
    # The pair of rows (through the order) whose later row comes first; -1: out of memory.
    cdef Py_ssize_t g, start, n, pa = -1, pb
    for g in range(g_start, g_stop):
        if stopped(f.stop):
            return 0
        start = indptr[g]
        n = indptr[g + 1] - start
        if n < 2:
            continue
        pb = group_repeat(f, start, n, &pa)
        if pb == -2:
            return -1
        if pb == STOPPED:
            return 0
        if pb >= 0:
            pa += start
            pb += start
            if f.order != NULL:
                pa, pb = f.order[pa], f.order[pb]
            if b[0] < 0 or pb < b[0]:
                a[0], b[0] = pa, pb
    return 0


def first_duplicate(const int64_t[::1] docs, const int64_t[::1] order, const int64_t[::1] indptr,
                    Py_ssize_t g_start, Py_ssize_t g_stop, const uint8_t[::1] stop=None):
    """Rows ``(a, b)``, ``a < b``, of one group holding the same id, or ``(-1, -1)``; and the
    bytes of scratch memory the search held.

    Group ``g`` (``g_start <= g < g_stop``) is positions ``indptr[g]:indptr[g+1]``;
    position ``i`` is row ``order[i]`` (ascending within a group), or row ``i`` if
    ``order`` is empty, and holds the id ``docs`` has at that row. Of the repeats, the
    one whose row ``b`` comes first is reported, with the row ``a`` it repeats.
    Scratch: a table of at most ``4 * 2**16`` slots (groups of up to ``2**16`` rows), and
    for longer groups one int64 per row of the longest and a table for its largest bucket.
    Once ``stop`` is set, it returns early: a repeat found so far, else ``(-1, -1)``.
    """
    cdef Py_ssize_t g, n, a = -1, b = -1, longest = 0, longest_short = 0, n_keys
    cdef int failed = 0
    cdef size_t held
    cdef Finder f
    for g in range(g_start, g_stop):
        n = indptr[g + 1] - indptr[g]
        longest = max(longest, n)
        if n <= LONG_QUERY:
            longest_short = max(longest_short, n)
    f.docs = &docs[0] if docs.shape[0] > 0 else NULL
    f.order = &order[0] if order.shape[0] > 0 else NULL
    f.stop = flag_of(stop)
    f.spread = SLOTS_PER_DOC if f.order == NULL else MIN_SLOTS_PER_DOC
    n_keys = longest if longest > LONG_QUERY else (longest_short if f.order != NULL else 0)
    f.slots, f.bits, f.base = NULL, 0, 0
    f.keys = <int64_t*>malloc(max(n_keys, 1) * sizeof(int64_t))
    f.buckets = <int64_t*>malloc(BUCKET_ARRAYS * sizeof(int64_t)) if longest > LONG_QUERY else NULL
    if f.keys == NULL or (longest > LONG_QUERY and f.buckets == NULL):
        failed = 1
    elif ensure_slots(&f, group_bits(&f, longest_short)) == -1:
        failed = 1
    elif not was_stopped(f.stop):
        with nogil:
            failed = search(&f, indptr, g_start, g_stop, &a, &b) != 0
    held = ((<size_t>1 << f.bits) * (f.slots != NULL) + max(n_keys, 1)) * sizeof(int64_t)
    if f.buckets != NULL:
        held += BUCKET_ARRAYS * sizeof(int64_t)
    free(f.slots)
    free(f.keys)
    free(f.buckets)
    if failed:
        raise MemoryError()
    return (a, b), held


def group_codes(const int64_t[::1] codes, int64_t n_codes, const uint8_t[::1] stop=None):
    """Rows grouped by their code in ``[0, n_codes)``, stably: ``(indptr, order)``.

    A counting sort: one int64 per row and per code. None once ``stop`` is set.
    """
    cdef Py_ssize_t i, block, n = codes.shape[0]
    cdef int64_t c
    cdef const uint8_t* flag = flag_of(stop)
    indptr = np.zeros(n_codes + 1, dtype=np.int64)
    out = np.empty(n, dtype=np.int64)
    cdef int64_t[::1] start = indptr, order = out
    # In blocks of POLL rows, the stop flag checked between them.
    with nogil:
        block = 0
        while block < n and not stopped(flag):
            for i in range(block, min(block + POLL, n)):
                start[codes[i] + 1] += 1
            block += POLL
        block = 0
        while block < n_codes and not stopped(flag):
            for c in range(block, min(block + POLL, n_codes)):
                start[c + 1] += start[c]
            block += POLL
        block = 0
        while block < n and not stopped(flag):
            for i in range(block, min(block + POLL, n)):
                c = codes[i]
                order[start[c]] = i
                start[c] += 1
            block += POLL
    if was_stopped(flag):
        return None
    # start[c] is now the end of group c, where group c + 1 begins.
    indptr[1:] = indptr[:-1].copy()
    indptr[0] = 0
    return indptr, out
