"""Rows grouped by an integer id: the runs of equal ids, and a stable grouping by hash.

``run_starts`` finds where already grouped ids change; ``group_by_query`` groups rows
of any order by a hash table of the ids (``_hash.pxd``), in the order each id is first
seen, for every domain: ``evaluate``'s ``qid=`` (integer ids) and trec's query ids. Every
buffer is sized by the data (the runs of one id, the distinct ids).

Every kernel takes the call's stop flag (``stop``, ``_stop.pxd``) and returns early once
it is set (None); the caller discards what it gave.
"""
import numpy as np

from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcpy, memset
from cython.view cimport array as cvarray

from ._hash cimport IdTable, find_slot, index_at, insert, slot_t, table_init, taken
from ._stop cimport POLL, POLL_MASK, STOPPED, flag_of, memset_polled, stopped, was_stopped

# The query grouping's first table: it doubles whenever it is half full.
cdef int FIRST_GROUP_BITS = 10


cdef enum:
    # Rows checked for a change at once, so that rows grouped by query (a change every
    # few hundred rows, or rarer) cost no branch each.
    SPAN = 64


cdef struct Starts:
    int64_t* found
    Py_ssize_t m, capacity


cdef inline bint any_change(const int64_t* ids, Py_ssize_t start, Py_ssize_t stop) noexcept nogil:
    # Whether some ids[i], start <= i < stop, differs from ids[i - 1] (start >= 1): an OR
    # of XORs, which the compiler vectorises on SSE2.
    cdef Py_ssize_t i
    cdef uint64_t bits = 0
    for i in range(start, stop):
        bits |= <uint64_t>(ids[i] ^ ids[i - 1])
    return bits != 0


cdef int record_starts(Starts* s, const int64_t* ids, Py_ssize_t start, Py_ssize_t stop) noexcept nogil:
    # Rows start:stop (start >= 1) where the id changes, into a buffer that doubles when
    # full (rows grouped by query: one int64 per query); -1: out of memory.
    cdef Py_ssize_t i, end
    cdef int64_t* grown
    while start < stop:
        end = min(start + SPAN, stop)
        if any_change(ids, start, end):
            for i in range(start, end):
                if ids[i] != ids[i - 1]:
                    if s.m == s.capacity:
                        grown = <int64_t*>realloc(s.found, 2 * s.capacity * sizeof(int64_t))
                        if grown == NULL:
                            return -1
                        s.found, s.capacity = grown, 2 * s.capacity
                    s.found[s.m] = i
                    s.m += 1
        start = end
    return 0


def run_starts(const int64_t[::1] ids, const uint8_t[::1] stop=None):
    """Rows where ``ids`` changes value (row 0 included), then ``len(ids)``: its runs' bounds.

    None once ``stop`` is set.
    """
    cdef Py_ssize_t n = ids.shape[0], block = 1
    cdef const uint8_t* flag = flag_of(stop)
    cdef int failed = 0
    cdef int64_t* grown
    cdef Starts s
    s.found, s.m, s.capacity = <int64_t*>malloc(1024 * sizeof(int64_t)), 0, 1024
    if s.found == NULL:
        raise MemoryError()
    if n > 0:
        s.found[0], s.m = 0, 1
    # In blocks of POLL rows, the stop flag checked between them.
    with nogil:
        while block < n and not failed and not stopped(flag):
            failed = record_starts(&s, &ids[0], block, min(block + POLL, n))
            block += POLL
    if was_stopped(flag) and not failed:
        free(s.found)
        return None
    grown = <int64_t*>realloc(s.found, (s.m + 1) * sizeof(int64_t)) if not failed else NULL
    if grown == NULL:
        free(s.found)
        raise MemoryError()
    grown[s.m] = n
    # The buffer becomes the result's memory: no copy (it is freed with the array).
    cdef cvarray out = cvarray(shape=(s.m + 1,), itemsize=sizeof(int64_t), format="q", allocate_buffer=False)
    out.data = <char*>grown
    out.callback_free_data = free
    return np.asarray(out)


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
    cdef IdTable larger
    table_init(&larger, t.table.bits + 1, 0, t.ids)
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
        insert(larger, grown, t.ids[c], c, 0)
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
            h = find_slot(t.table, slots, key, 0)
            code = index_at(t.table, slots, h) if taken(t.table, slots, h) else add_id(t, slots, h, key)
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
            code = index_at(codes, slots, find_slot(codes, slots, key, 0))
            pos = bounds[code + 1]
            for r in range(i, j):
                order[pos] = r
                pos += 1
            bounds[code + 1] = pos
            i = j


cdef int groups_init(Groups* t, size_t code_size, const uint8_t* stop) noexcept nogil:
    # The first table, all empty, and arrays; -1: out of memory (groups_free frees them).
    t.n_ids, t.capacity = 0, 1 << (FIRST_GROUP_BITS - 1)
    t.stop = stop
    t.slots = malloc((<size_t>1 << FIRST_GROUP_BITS) * code_size)
    t.ids = <int64_t*>malloc(t.capacity * sizeof(int64_t))
    t.bounds = <int64_t*>malloc((t.capacity + 2) * sizeof(int64_t))
    table_init(&t.table, FIRST_GROUP_BITS, 0, t.ids)
    t.held = (<size_t>1 << FIRST_GROUP_BITS) * code_size + (2 * t.capacity + 2) * sizeof(int64_t)
    t.peak = t.held
    if t.slots == NULL or t.ids == NULL or t.bounds == NULL:
        return -1
    memset(t.slots, 0xFF, (<size_t>1 << FIRST_GROUP_BITS) * code_size)
    t.bounds[0] = t.bounds[1] = 0
    return 0


cdef void groups_free(Groups* t) noexcept nogil:
    free(t.slots)
    free(t.ids)
    free(t.bounds)
    t.slots, t.ids, t.bounds = NULL, NULL, NULL


cdef copied(const int64_t* data, Py_ssize_t n):
    out = np.empty(n, dtype=np.int64)
    cdef int64_t[::1] view = out
    if n:
        memcpy(&view[0], data, n * sizeof(int64_t))
    return out


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
    cdef int failed
    cdef Groups t
    wide = wide or n >= 0x7FFFFFFF
    failed = groups_init(&t, sizeof(int64_t) if wide else sizeof(int32_t), flag_of(stop))
    if not failed:
        with nogil:
            if wide:
                failed = count_rows(&t, &ids[0] if n else NULL, n, <int64_t*>NULL)
            else:
                failed = count_rows(&t, &ids[0] if n else NULL, n, <int32_t*>NULL)
    if failed:
        groups_free(&t)
        if failed == STOPPED:
            return None
        raise MemoryError()
    for code in range(2, t.n_ids + 2):
        t.bounds[code] += t.bounds[code - 1]
    # The results before the order, each scratch array freed once copied.
    distinct = copied(t.ids, t.n_ids)
    free(t.ids)
    t.ids = NULL
    bounds = copied(t.bounds, t.n_ids + 2)
    free(t.bounds)
    t.bounds = NULL
    out = np.empty(n, dtype=np.int64)
    cdef int64_t[::1] order = out, distinct_view = distinct, bounds_view = bounds
    if n:
        with nogil:
            if wide:
                place_rows(&t, &distinct_view[0], &bounds_view[0], &ids[0], n, &order[0], <int64_t*>t.slots)
            else:
                place_rows(&t, &distinct_view[0], &bounds_view[0], &ids[0], n, &order[0], <int32_t*>t.slots)
    groups_free(&t)
    if was_stopped(t.stop):
        return None
    return distinct, bounds[:t.n_ids + 1], out, t.peak
