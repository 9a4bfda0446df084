"""Integer query and document ids: grouping rows by query, duplicates, decimal byte order.

Integer ids never become strings: trec_eval's comparisons of the ids' text are done on
the integers (``_ids.pxd``), and per-query hash sets find repeated documents. Every
buffer is sized by the data (the longest query, the runs of one query id, the distinct
queries): a query too long for a cache-sized table is split into buckets by its ids'
hash, each checked on its own, for one int64 of scratch per row.

Every kernel takes the call's stop flag (``stop``, ``_stop.pxd``) and returns early once
it is set (None, or no repeat found); the caller discards what it gave.
"""
import numpy as np

from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint64_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcpy, memset
from cython.view cimport array as cvarray

from ._ids cimport decimal_parts
from rankwise._core._hash cimport IdTable, find_slot, id_hash, index_at, insert, slot_t, table_bits
from rankwise._core._stop cimport POLL, POLL_MASK, flag_of, memset_polled, stopped, was_stopped

# Slots per document of the repeated-document check: a quarter full at most, so most
# inserts find their first slot free.
cdef int SLOTS_PER_DOC = 4
# Queries longer than this are split into buckets of about BUCKET_ROWS documents by the
# top bits of their ids' hash (at most 2^MAX_BUCKET_BITS buckets): one int64 of scratch
# per row and a table that stays in cache, instead of SLOTS_PER_DOC slots per row.
cdef Py_ssize_t LONG_QUERY = 1 << 16
cdef Py_ssize_t BUCKET_ROWS = 1 << 12
cdef int MAX_BUCKET_BITS = 10
cdef Py_ssize_t BUCKET_ARRAYS = 4 * ((1 << MAX_BUCKET_BITS) + 1)
# The query grouping's first table: it doubles whenever it is half full.
cdef int FIRST_GROUP_BITS = 10
# What the searches below return once the stop flag is set (beside -1, none found, and
# -2, out of memory).
cdef Py_ssize_t STOPPED = -3


def run_starts(const int64_t[::1] ids, const uint8_t[::1] stop=None):
    """Rows where ``ids`` changes value (row 0 included), then ``len(ids)``: its runs' bounds.

    None once ``stop`` is set.
    """
    cdef Py_ssize_t i, n = ids.shape[0], m = 0, capacity = 1024, block = 0
    cdef const uint8_t* flag = flag_of(stop)
    cdef int failed = 0
    cdef int64_t* grown
    cdef int64_t* found = <int64_t*>malloc(capacity * sizeof(int64_t))
    if found == NULL:
        raise MemoryError()
    # One pass, into a buffer that doubles when full (rows grouped by query: one int64 per query),
    # then shrinks to fit. In blocks of POLL rows, the stop flag checked between them.
    with nogil:
        while block < n and not failed and not stopped(flag):
            for i in range(block, min(block + POLL, n)):
                if i == 0 or ids[i] != ids[i - 1]:
                    if m == capacity:
                        capacity *= 2
                        grown = <int64_t*>realloc(found, capacity * sizeof(int64_t))
                        if grown == NULL:
                            failed = 1
                            break
                        found = grown
                    found[m] = i
                    m += 1
            block += POLL
    if was_stopped(flag) and not failed:
        free(found)
        return None
    grown = <int64_t*>realloc(found, (m + 1) * sizeof(int64_t)) if not failed else NULL
    if grown == NULL:
        free(found)
        raise MemoryError()
    grown[m] = n
    # The buffer becomes the result's memory: no copy (it is freed with the array).
    cdef cvarray out = cvarray(shape=(m + 1,), itemsize=sizeof(int64_t), format="q", allocate_buffer=False)
    out.data = <char*>grown
    out.callback_free_data = free
    return np.asarray(out)


cdef struct Scratch:
    int64_t* slots      # base + position of a key in its group; below base: empty
    int bits            # the table has 2^bits slots
    int64_t base        # advanced past each group, so the table is never cleared
    int64_t* keys       # a group's ids, gathered through the order or split into buckets
    int64_t* buckets    # 4 x (2^MAX_BUCKET_BITS + 1): bounds, fill, first repeats


cdef int ensure_slots(Scratch* s, int bits, const uint8_t* flag) noexcept nogil:
    # A table of at least 2^bits slots, all empty for any base (-1 < 0 <= base); -1: out of
    # memory. Cleared with the stop flag checked (a table for ids chosen to collide has up to
    # 2 slots per row of a query): STOPPED, with no table.
    cdef size_t n_slots = <size_t>1 << bits
    if bits <= s.bits:
        return 0
    free(s.slots)
    s.slots = <int64_t*>malloc(n_slots * sizeof(int64_t))
    s.bits = 0
    if s.slots == NULL:
        return -1
    if not memset_polled(s.slots, 0xFF, n_slots * sizeof(int64_t), flag):
        return STOPPED
    s.bits = bits
    return 0


cdef inline Py_ssize_t first_repeat(const int64_t* keys, Py_ssize_t n, Scratch* s, int bits, int skip,
                             Py_ssize_t* earlier, const uint8_t* flag) noexcept nogil:
    # Position of the first key equal to an earlier one (whose position goes to ``earlier``),
    # or -1. Needs n <= 2^bits <= the table's slots, so that every probe ends. In blocks of
    # POLL keys, the stop flag checked between them: STOPPED.
    cdef IdTable t
    cdef int64_t row
    cdef int64_t* slots = s.slots
    cdef Py_ssize_t i, block = 0
    t.bits, t.skip, t.base, t.keys = bits, skip, s.base, keys
    s.base += n
    while block < n:
        if block > 0 and stopped(flag):
            return STOPPED
        for i in range(block, min(block + POLL, n)):
            row = insert(t, slots, keys[i], i)
            if row >= 0:
                earlier[0] = row
                return i
        block += POLL
    return -1


cdef inline int64_t doc_at(const int64_t* docs, const int64_t* order, Py_ssize_t i) noexcept nogil:
    return docs[order[i]] if order != NULL else docs[i]


cdef Py_ssize_t first_repeat_split(const int64_t* docs, const int64_t* order, Py_ssize_t start, Py_ssize_t n,
                                   Scratch* s, Py_ssize_t* earlier, const uint8_t* flag) noexcept nogil:
    # first_repeat for a long group. Its ids go to 2^skip buckets by the top bits of their
    # hash, stably: a bucket keeps row order and holds every copy of its ids, so its first
    # repeat is the earliest of its rows, and the group's is the earliest of the buckets'.
    # -2: out of memory; STOPPED: the stop flag, checked every POLL rows, was set.
    cdef int skip = 1, bits
    cdef Py_ssize_t i, p, t, n_buckets, largest = 0, found = -1
    cdef Py_ssize_t a = -1
    cdef int status
    cdef int64_t key
    cdef int64_t* bound = s.buckets
    cdef int64_t* fill = bound + (1 << MAX_BUCKET_BITS) + 1
    cdef int64_t* rep_a = fill + (1 << MAX_BUCKET_BITS) + 1
    cdef int64_t* rep_b = rep_a + (1 << MAX_BUCKET_BITS) + 1
    while skip < MAX_BUCKET_BITS and (n >> skip) > BUCKET_ROWS:
        skip += 1
    n_buckets = 1 << skip
    memset(bound, 0, (n_buckets + 1) * sizeof(int64_t))
    for i in range(start, start + n):
        if ((i - start) & POLL_MASK) == 0 and stopped(flag):
            return STOPPED
        bound[(id_hash(doc_at(docs, order, i)) >> (64 - skip)) + 1] += 1
    for p in range(n_buckets):
        largest = max(largest, bound[p + 1])
        bound[p + 1] += bound[p]
        fill[p] = bound[p]
    for i in range(start, start + n):
        if ((i - start) & POLL_MASK) == 0 and stopped(flag):
            return STOPPED
        key = doc_at(docs, order, i)
        p = id_hash(key) >> (64 - skip)
        s.keys[fill[p]] = key
        fill[p] += 1
    bits = table_bits(largest, SLOTS_PER_DOC)
    if largest > 4 * (n >> skip) + BUCKET_ROWS:
        # Ids chosen to share their hash's top bits: a table with 1 to 2 slots per id of
        # that bucket (slower probes, but scratch stays within 3 int64 per row).
        bits = table_bits(largest, 1)
    status = ensure_slots(s, bits, flag)
    if status != 0:
        return -2 if status == -1 else STOPPED
    for p in range(n_buckets):
        if stopped(flag):
            return STOPPED
        t = bound[p + 1] - bound[p]
        rep_b[p] = first_repeat(s.keys + bound[p], t, s, min(table_bits(t, SLOTS_PER_DOC), bits), skip, &a, flag)
        if rep_b[p] == STOPPED:
            return STOPPED
        rep_a[p] = a if rep_b[p] >= 0 else -1
        found = max(found, rep_b[p])
    if found < 0:
        return -1
    # The rows of the buckets' first repeats: rows in order, counting each bucket's; the
    # first row that is a bucket's repeat is the group's first repeat.
    memset(fill, 0, n_buckets * sizeof(int64_t))
    for i in range(n):
        if (i & POLL_MASK) == 0 and stopped(flag):
            return STOPPED
        p = id_hash(doc_at(docs, order, start + i)) >> (64 - skip)
        t = fill[p]
        fill[p] = t + 1
        if t == rep_a[p]:
            bound[p] = i
        elif t == rep_b[p]:
            earlier[0] = bound[p]
            return i
    return -1


def first_duplicate_grouped(const int64_t[::1] docs, const int64_t[::1] order, const int64_t[::1] indptr,
                            Py_ssize_t g_start, Py_ssize_t g_stop, const uint8_t[::1] stop=None):
    """Rows ``(a, b)``, ``a < b``, of one group holding the same id, or ``(-1, -1)``; and the
    bytes of scratch memory the search held.

    Group ``g`` (``g_start <= g < g_stop``) is rows ``indptr[g]:indptr[g+1]``; row ``i``'s
    id is ``docs[order[i]]``, or ``docs[i]`` if ``order`` is empty. The first repeat in
    row order of the first group that has one is reported, with the row it repeats.
    Scratch: a table of at most ``4 * 2**16`` slots (groups of up to ``2**16`` rows), and
    for longer groups one int64 per row of the longest and a table for its largest bucket.
    Once ``stop`` is set, it returns early: a repeat found so far, else ``(-1, -1)``.
    """
    cdef Py_ssize_t g, i, start, n, a = -1, b = -1, longest = 0, longest_short = 0, n_keys
    cdef const int64_t* ids = &docs[0] if docs.shape[0] > 0 else NULL
    cdef const int64_t* perm = &order[0] if order.shape[0] > 0 else NULL
    cdef const uint8_t* flag = flag_of(stop)
    cdef int failed = 0
    cdef size_t held
    cdef Scratch s
    for g in range(g_start, g_stop):
        n = indptr[g + 1] - indptr[g]
        longest = max(longest, n)
        if n <= LONG_QUERY:
            longest_short = max(longest_short, n)
    n_keys = longest if longest > LONG_QUERY else (longest_short if perm != NULL else 0)
    s.slots, s.bits, s.base = NULL, 0, 0
    s.keys = <int64_t*>malloc(max(n_keys, 1) * sizeof(int64_t))
    s.buckets = <int64_t*>malloc(BUCKET_ARRAYS * sizeof(int64_t)) if longest > LONG_QUERY else NULL
    if s.keys == NULL or (longest > LONG_QUERY and s.buckets == NULL):
        failed = 1
    elif ensure_slots(&s, table_bits(longest_short, SLOTS_PER_DOC), flag) == -1:
        failed = 1
    elif not was_stopped(flag):
        with nogil:
            for g in range(g_start, g_stop):
                if stopped(flag):
                    break
                start = indptr[g]
                n = indptr[g + 1] - start
                if n < 2:
                    continue
                if n > LONG_QUERY:
                    b = first_repeat_split(ids, perm, start, n, &s, &a, flag)
                    if b == -2:
                        failed = 1
                        break
                elif perm == NULL:
                    b = first_repeat(ids + start, n, &s, table_bits(n, SLOTS_PER_DOC), 0, &a, flag)
                else:
                    for i in range(n):
                        s.keys[i] = ids[perm[start + i]]
                    b = first_repeat(s.keys, n, &s, table_bits(n, SLOTS_PER_DOC), 0, &a, flag)
                if b == STOPPED:
                    break
                if b >= 0:
                    a += start
                    b += start
                    break
    held = ((<size_t>1 << s.bits) * (s.slots != NULL) + max(n_keys, 1)) * sizeof(int64_t)
    if s.buckets != NULL:
        held += BUCKET_ARRAYS * sizeof(int64_t)
    free(s.slots)
    free(s.keys)
    free(s.buckets)
    if failed:
        raise MemoryError()
    if b < 0:
        a = b = -1
    return (a, b), held


cdef struct Groups:
    # The codes of the ids (their ranks in order first seen) in an id table (_core/_hash.pxd)
    # keyed by ``ids``, at most half full; a code takes 32 bits unless there may be 2^31 - 1.
    void* slots         # slot_t, all ones (empty) when cleared
    IdTable table
    int64_t* ids        # the distinct ids, by code
    int64_t* bounds     # rows per code (at code + 2), then the groups' bounds
    Py_ssize_t n_ids, capacity
    size_t held, peak   # bytes of scratch
    const uint8_t* stop # the call's stop flag


cdef int grow_table(Groups* t, slot_t* slots) noexcept nogil:
    # -1: out of memory; STOPPED: the stop flag, checked every POLL ids, was set.
    cdef IdTable larger = t.table
    larger.bits += 1
    cdef size_t size = (<size_t>1 << larger.bits) * sizeof(slot_t)
    cdef Py_ssize_t c
    cdef slot_t* grown = <slot_t*>malloc(size)
    if grown == NULL:
        return -1
    t.peak = max(t.peak, t.held + size)
    if not memset_polled(grown, 0xFF, size, t.stop):
        free(grown)
        return STOPPED
    for c in range(t.n_ids):
        if (c & POLL_MASK) == 0 and stopped(t.stop):
            free(grown)
            return STOPPED
        insert(larger, grown, t.ids[c], c)
    free(slots)
    t.held += size // 2
    t.slots, t.table = grown, larger
    return 0


cdef int64_t add_id(Groups* t, slot_t* slots, uint64_t h, int64_t key) noexcept nogil:
    # Give key, absent, the next code at slot h; -1: out of memory; STOPPED.
    cdef Py_ssize_t capacity
    cdef int status
    cdef int64_t* grown
    cdef int64_t code = t.n_ids
    if t.n_ids == t.capacity:
        capacity = 2 * t.capacity
        t.peak = max(t.peak, t.held + 2 * capacity * sizeof(int64_t))
        grown = <int64_t*>realloc(t.ids, capacity * sizeof(int64_t))
        if grown == NULL:
            return -1
        t.ids = grown
        t.table.keys = grown
        grown = <int64_t*>realloc(t.bounds, (capacity + 2) * sizeof(int64_t))
        if grown == NULL:
            return -1
        t.bounds = grown
        t.held += 2 * (capacity - t.capacity) * sizeof(int64_t)
        t.capacity = capacity
    t.ids[code] = key
    t.bounds[code + 2] = 0
    slots[h] = <slot_t>code
    t.n_ids += 1
    if 2 * t.n_ids > (<int64_t>1 << t.table.bits):
        status = grow_table(t, slots)
        if status != 0:
            return status
    return code


cdef inline Py_ssize_t run_end(const int64_t* ids, Py_ssize_t i, Py_ssize_t end) noexcept nogil:
    # The end of the run of ids[i] (before ``end``).
    cdef int64_t key = ids[i]
    i += 1
    while i < end and ids[i] == key:
        i += 1
    return i


cdef int count_rows(Groups* t, const int64_t* ids, Py_ssize_t n, slot_t* slots) noexcept nogil:
    # Codes for the ids in order first seen, and rows per code; -1: out of memory; STOPPED.
    # In blocks of POLL rows, the stop flag checked between them (a run of one id that
    # crosses a block's end is counted in parts).
    cdef Py_ssize_t i = 0, j, end
    cdef int64_t key, code
    cdef uint64_t h
    while i < n:
        if stopped(t.stop):
            return STOPPED
        end = min(i + POLL, n)
        while i < end:
            key = ids[i]
            j = run_end(ids, i, end)
            slots = <slot_t*>t.slots
            h = find_slot(t.table, slots, key)
            code = index_at(t.table, slots, h)
            if code < 0:
                code = add_id(t, slots, h, key)
            if code < 0:
                return <int>code
            t.bounds[code + 2] += j - i
            i = j
    return 0


cdef void place_rows(const Groups* t, const int64_t* distinct, int64_t* bounds, const int64_t* ids,
                     Py_ssize_t n, int64_t* order, const slot_t* slots) noexcept nogil:
    # Each row at the next place of its id's group: bounds[c + 1] moves from the group's
    # start to its end. In blocks of POLL rows as in count_rows; returns early once the
    # stop flag is set.
    cdef Py_ssize_t i = 0, j, r, end
    cdef int64_t key, code, pos
    cdef IdTable codes = t.table
    codes.keys = distinct
    # The rows are written in as many places at once as there are ids, so the first block
    # would touch every page of the order, each cleared by the system on first use (a second
    # for 10^8 rows, past any check of the flag): touched in order first, so that the
    # clearing happens between checks, for one sequential pass.
    if not memset_polled(order, 0, n * sizeof(int64_t), t.stop):
        return
    while i < n:
        if stopped(t.stop):
            return
        end = min(i + POLL, n)
        while i < end:
            key = ids[i]
            j = run_end(ids, i, end)
            code = index_at(codes, slots, find_slot(codes, slots, key))
            pos = bounds[code + 1]
            for r in range(i, j):
                order[pos] = r
                pos += 1
            bounds[code + 1] = pos
            i = j


def group_by_query(const int64_t[::1] ids, bint wide=False, const uint8_t[::1] stop=None):
    """The rows grouped by id, stably: ``(distinct, indptr, order, held)``.

    ``distinct`` holds the ids in the order first seen; rows of ``distinct[g]`` are
    ``order[indptr[g]:indptr[g + 1]]``; ``held`` is the most bytes of scratch held at
    once: a hash table of the distinct ids' codes, at least a quarter full (32-bit
    codes, or 64-bit ones if ``wide`` or there may be 2^31 - 1 ids), and two arrays of
    one int64 per distinct id. Runs of one id are looked up once (per POLL rows). None
    once ``stop`` is set.
    """
    cdef Py_ssize_t n = ids.shape[0]
    cdef int64_t code
    cdef int failed = 0
    cdef Groups t
    wide = wide or n >= 0x7FFFFFFF
    cdef size_t code_size = sizeof(int64_t) if wide else sizeof(int32_t)
    t.n_ids, t.capacity = 0, 1 << (FIRST_GROUP_BITS - 1)
    t.stop = flag_of(stop)
    t.slots = malloc((<size_t>1 << FIRST_GROUP_BITS) * code_size)
    t.ids = <int64_t*>malloc(t.capacity * sizeof(int64_t))
    t.bounds = <int64_t*>malloc((t.capacity + 2) * sizeof(int64_t))
    t.table.bits, t.table.skip, t.table.base, t.table.keys = FIRST_GROUP_BITS, 0, 0, t.ids
    t.held = (<size_t>1 << FIRST_GROUP_BITS) * code_size + (2 * t.capacity + 2) * sizeof(int64_t)
    t.peak = t.held
    if t.slots == NULL or t.ids == NULL or t.bounds == NULL:
        failed = 1
    else:
        memset(t.slots, 0xFF, (<size_t>1 << FIRST_GROUP_BITS) * code_size)
        t.bounds[0] = t.bounds[1] = 0
        with nogil:
            if wide:
                failed = count_rows(&t, &ids[0] if n else NULL, n, <int64_t*>NULL)
            else:
                failed = count_rows(&t, &ids[0] if n else NULL, n, <int32_t*>NULL)
    if failed:
        free(t.slots)
        free(t.ids)
        free(t.bounds)
        if failed == STOPPED:
            return None
        raise MemoryError()
    for code in range(2, t.n_ids + 2):
        t.bounds[code] += t.bounds[code - 1]
    # The results before the order, each scratch array freed once copied.
    distinct = np.empty(t.n_ids, dtype=np.int64)
    cdef int64_t[::1] distinct_view = distinct
    if t.n_ids:
        memcpy(&distinct_view[0], t.ids, t.n_ids * sizeof(int64_t))
    free(t.ids)
    bounds = np.empty(t.n_ids + 2, dtype=np.int64)
    cdef int64_t[::1] bounds_view = bounds
    memcpy(&bounds_view[0], t.bounds, (t.n_ids + 2) * sizeof(int64_t))
    free(t.bounds)
    out = np.empty(n, dtype=np.int64)
    cdef int64_t[::1] order = out
    if n:
        with nogil:
            if wide:
                place_rows(&t, &distinct_view[0], &bounds_view[0], &ids[0], n, &order[0], <int64_t*>t.slots)
            else:
                place_rows(&t, &distinct_view[0], &bounds_view[0], &ids[0], n, &order[0], <int32_t*>t.slots)
    free(t.slots)
    if was_stopped(t.stop):
        return None
    return distinct, bounds[:t.n_ids + 1], out, t.peak


def decimal_keys(const int64_t[::1] ids):
    """Keys whose lexicographic order (``np.lexsort`` of length, digits, sign) is byte order.

    Returns ``(sign, digits, length)``: 0 for negative ids, 1 otherwise ('-' sorts
    before digits); the digits of ``|id|`` as a 19-digit number; the digit count.
    """
    cdef Py_ssize_t i, n = ids.shape[0]
    cdef uint64_t scaled
    cdef int length
    sign = np.empty(n, dtype=np.int8)
    digits = np.empty(n, dtype=np.uint64)
    lengths = np.empty(n, dtype=np.int8)
    cdef int8_t[::1] s = sign, ln = lengths
    cdef uint64_t[::1] d = digits
    with nogil:
        for i in range(n):
            decimal_parts(ids[i], &scaled, &length)
            s[i] = ids[i] >= 0
            d[i] = scaled
            ln[i] = <int8_t>length
    return sign, digits, lengths
