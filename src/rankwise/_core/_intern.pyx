"""Python-visible string-table kernels: interning, lookup, byte order and dictionaries (``_intern.pxd``)."""
cimport cython
import numpy as np

from libc.stdint cimport INT32_MAX, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcmp, memcpy, memset

from rankwise._core._sort cimport Keyed, merge_sort
from rankwise._core._stop cimport POLL_MASK, flag_of, stopped, was_stopped


cdef int interner_init(Interner* t, const uint8_t* base, int64_t expected) noexcept nogil:
    cdef uint64_t n_slots = MIN_SLOTS
    memset(t, 0, sizeof(Interner))
    t.base = base
    t.hash_mask = ~(<uint64_t>0)
    while n_slots < 2 * <uint64_t>expected:
        n_slots <<= 1
    t.slots = <Slot*>malloc(n_slots * sizeof(Slot))
    t.capacity = max(expected, <int64_t>MIN_SLOTS)
    t.entries = <Entry*>malloc(t.capacity * sizeof(Entry))
    if t.slots == NULL or t.entries == NULL:
        return -1
    memset(t.slots, 0xFF, n_slots * sizeof(Slot))
    t.mask = n_slots - 1
    return 0


cdef void interner_free(Interner* t) noexcept nogil:
    free(t.slots)
    free(t.entries)
    memset(t, 0, sizeof(Interner))


cdef int interner_grow_slots(Interner* t) noexcept nogil:
    cdef uint64_t n_slots = (t.mask + 1) << 1
    cdef uint64_t mask = n_slots - 1, i, h
    cdef int64_t c
    cdef Slot* slots = <Slot*>malloc(n_slots * sizeof(Slot))
    if slots == NULL:
        return -1
    memset(slots, 0xFF, n_slots * sizeof(Slot))
    # Hashes are not stored (a third less memory per string): codes are numbered in the
    # order their bytes appear, so rehashing streams through the base buffer.
    for c in range(t.size):
        h = interner_hash(t, t.base + t.entries[c].start, t.entries[c].length)
        i = (h >> 32) & mask
        while slots[i].code >= 0:
            i = (i + 1) & mask
        slots[i].code = <int32_t>c
        slots[i].tag = <uint32_t>h
    free(t.slots)
    t.slots = slots
    t.mask = mask
    return 0


cdef int64_t interner_insert(Interner* t, int64_t found, int64_t start, int64_t n, uint64_t h) noexcept nogil:
    """Add base[start:start + n], absent from ``t``, where ``interner_find`` said (``found``); its code, or -1."""
    cdef uint64_t i
    cdef void* grown
    if t.size >= INT32_MAX:
        return -1
    if t.size == t.capacity:
        grown = realloc(t.entries, 2 * t.capacity * sizeof(Entry))
        if grown == NULL:
            return -1
        t.entries = <Entry*>grown
        t.capacity *= 2
    if 2 * <uint64_t>(t.size + 1) > t.mask + 1:
        if interner_grow_slots(t) < 0:
            return -1
        found = interner_find(t, t.base + start, n, h)
    i = <uint64_t>(-1 - found)
    t.slots[i].code = <int32_t>t.size
    t.slots[i].tag = <uint32_t>h
    t.entries[t.size].start = start
    t.entries[t.size].length = n
    t.size += 1
    return t.size - 1


cdef int64_t interner_add(Interner* t, int64_t start, int64_t n, uint64_t h) noexcept nogil:
    """The code of the span base[start:start + n], adding it if new; -1 if out of memory."""
    cdef int64_t found = interner_find(t, t.base + start, n, h)
    return found if found >= 0 else interner_insert(t, found, start, n, h)


cdef int interner_reserve(Interner* t, int64_t expected) noexcept nogil:
    """Slots for ``expected`` strings without rehashing; -1 if out of memory.

    Only the slots: rehashing is what growing costs, while the entries grow by doubling as
    strings come (reserving them too would keep up to twice what an estimate overshoots).
    """
    while 2 * <uint64_t>expected > t.mask + 1:
        if interner_grow_slots(t) < 0:
            return -1
    return 0


cdef int64_t interner_add_owned(Interner* t, Arena* a, const uint8_t* p, int64_t n, uint64_t h) noexcept nogil:
    """The code of the bytes p[:n], copied into ``a`` (``t``'s base) if new; -1 if out of memory.

    For strings read from a buffer that is reused: the interner keeps its own copy.
    """
    cdef int64_t found = interner_find(t, p, n, h), capacity
    cdef void* grown
    if found >= 0:
        return found
    if a.size + n > a.capacity:
        # By half: an arena's unused end is memory the whole read keeps.
        capacity = max(a.capacity + a.capacity // 2, a.size + n, <int64_t>4096)
        grown = realloc(a.data, capacity)
        if grown == NULL:
            return -1
        a.data = <uint8_t*>grown
        a.capacity = capacity
        t.base = a.data
    memcpy(a.data + a.size, p, n)
    a.size += n
    return interner_insert(t, found, a.size - n, n, h)


cdef void prefetch_matches(const Interner* t, const uint64_t* hashes, Py_ssize_t n, Py_ssize_t stride) noexcept nogil:
    # A big table answers each probe with up to three cache misses in a chain: the slot,
    # the entry, the stored bytes. The caller asked for the slots; asking for the next
    # links of a whole batch at a time lets the misses of many probes overlap. Only the
    # first slot is followed: at most half full, the table rarely needs more. The batch's
    # hashes are ``hashes[i * stride]`` (a field of an array of records: Probe, Staged).
    cdef Py_ssize_t i
    cdef const Slot* s
    for i in range(n):
        s = &t.slots[slot_of(t, hashes[i * stride])]
        if s.code >= 0 and s.tag == <uint32_t>hashes[i * stride]:
            prefetch(&t.entries[s.code])
    for i in range(n):
        s = &t.slots[slot_of(t, hashes[i * stride])]
        if s.code >= 0 and s.tag == <uint32_t>hashes[i * stride]:
            prefetch(t.base + t.entries[s.code].start)


cdef int add_batch(Interner* t, const Probe* probes, Py_ssize_t n, int64_t* codes,
                   Py_ssize_t stride) noexcept nogil:
    """Intern probes whose bytes lie in ``t.base``; code i goes to ``codes[i * stride]``."""
    cdef Py_ssize_t i
    cdef int64_t code
    prefetch_matches(t, &probes[0].hash, n, sizeof(Probe) // sizeof(uint64_t))
    for i in range(n):
        code = interner_add(t, probes[i].start, probes[i].length, probes[i].hash)
        if code < 0:
            return -1
        codes[i * stride] = code
    return 0


cdef int intern_spans(Interner* t, const int64_t* offsets, Py_ssize_t n, int64_t* codes,
                      Py_ssize_t stride, const uint8_t* flag) noexcept nogil:
    """Intern ``t.base[offsets[i]:offsets[i + 1]]`` for each i; code i to ``codes[i * stride]``.

    Stops early, leaving later codes unset, once ``flag`` is set.
    """
    cdef Probe probes[BATCH]
    cdef Py_ssize_t i = 0, j, stop
    while i < n:
        if (i & POLL_MASK) == 0 and stopped(flag):
            return 0
        stop = min(i + BATCH, n)
        for j in range(i, stop):
            probe_init(t, &probes[j - i], t.base, offsets[j], offsets[j + 1] - offsets[j])
        if add_batch(t, probes, stop - i, codes + i * stride, stride) < 0:
            return -1
        i = stop
    return 0


cdef tuple interner_table(const Interner* t):
    """The interned strings, in code order, as (data, offsets)."""
    cdef int64_t c, total = 0
    for c in range(t.size):
        total += t.entries[c].length
    data = np.empty(total, dtype=np.uint8)
    offsets = np.empty(t.size + 1, dtype=np.int64)
    cdef uint8_t[::1] d = data
    cdef int64_t[::1] o = offsets
    cdef uint8_t* out = &d[0] if total > 0 else NULL
    with nogil:
        total = 0
        o[0] = 0
        for c in range(t.size):
            if t.entries[c].length > 0:
                memcpy(out + total, t.base + t.entries[c].start, t.entries[c].length)
            total += t.entries[c].length
            o[c + 1] = total
    return data, offsets


cdef int build(Interner* t, const uint8_t* base, const int64_t* offsets, Py_ssize_t n, uint64_t hash_mask,
               int64_t* codes, Py_ssize_t stride, const uint8_t* flag) noexcept nogil:
    """The table of the n strings of (base, offsets), code i to ``codes[i * stride]``.

    Nonzero: out of memory. ``t`` is to be freed (``interner_free``) either way.
    """
    if interner_init(t, base, n):
        return -1
    t.hash_mask = hash_mask
    return intern_spans(t, offsets, n, codes, stride, flag)


cdef void find_spans(const Interner* t, const uint8_t* other, const int64_t* offsets, Py_ssize_t m,
                     int64_t* out, const uint8_t* flag) noexcept nogil:
    """out[j]: the code of ``other[offsets[j]:offsets[j + 1]]`` in ``t``, or -1; in batches whose
    matches are prefetched before they are compared. Stops early once ``flag`` is set."""
    cdef Probe probes[BATCH]
    cdef Py_ssize_t i = 0, j, stop
    cdef int64_t found
    while i < m:
        if (i & POLL_MASK) == 0 and stopped(flag):
            return
        stop = min(i + BATCH, m)
        for j in range(i, stop):
            probe_init(t, &probes[j - i], other, offsets[j], offsets[j + 1] - offsets[j])
        prefetch_matches(t, &probes[0].hash, stop - i, sizeof(Probe) // sizeof(uint64_t))
        for j in range(i, stop):
            found = interner_find(t, other + probes[j - i].start, probes[j - i].length, probes[j - i].hash)
            out[j] = found if found >= 0 else -1
        i = stop


def intern(const uint8_t[::1] data, const int64_t[::1] offsets, uint64_t hash_mask=~0,
           const uint8_t[::1] stop=None):
    """Intern the strings ``data[offsets[i]:offsets[i + 1]]``.

    Returns ``(codes, table_data, table_offsets)``: one int64 code per input string, and
    the unique strings in first-seen order. ``hash_mask`` (tests only) clears hash bits
    to force collisions. Returns None once ``stop`` (the call's stop flag, ``_stop.pxd``)
    is set.
    """
    cdef Py_ssize_t n = offsets.shape[0] - 1
    cdef const uint8_t* flag = flag_of(stop)
    cdef Interner t
    cdef int failed
    codes = np.empty(max(n, 1), dtype=np.int64)
    cdef int64_t[::1] out = codes
    try:
        with nogil:
            failed = build(&t, pointer(data), &offsets[0], n, hash_mask, &out[0], 1, flag)
        if failed:
            raise MemoryError()
        if was_stopped(flag):
            return None
        table_data, table_offsets = interner_table(&t)
    finally:
        interner_free(&t)
    return codes[:n], table_data, table_offsets


@cython.auto_pickle(False)
cdef class StringIndex:
    """A table's strings in a hash table, for :meth:`find` to look other strings up in, from
    any number of threads at once (made by :func:`index`)."""
    cdef Interner t
    cdef object data            # the table's bytes, which the hash table points into

    def __dealloc__(self):
        interner_free(&self.t)

    def find(self, const uint8_t[::1] other_data, const int64_t[::1] other_offsets, int64_t[::1] out,
             Py_ssize_t start, Py_ssize_t end, const uint8_t[::1] stop=None):
        """``out[j]`` for ``j`` in ``start:end``: the index in the table of the other table's
        string j, or -1 if absent (a string held twice in the table: its first index).
        Returns early once ``stop`` (the call's stop flag, ``_stop.pxd``) is set."""
        cdef const uint8_t* flag = flag_of(stop)
        if not 0 <= start <= end <= min(other_offsets.shape[0] - 1, out.shape[0]):
            raise IndexError(f"rows {start}:{end} out of range")
        if end > start:
            with nogil:
                find_spans(&self.t, pointer(other_data), &other_offsets[start], end - start, &out[start], flag)


def index(const uint8_t[::1] data, const int64_t[::1] offsets, uint64_t hash_mask=~0,
          const uint8_t[::1] stop=None):
    """The StringIndex of the table ``data[offsets[i]:offsets[i + 1]]``; ``hash_mask`` and
    ``stop`` as in :func:`intern` (None once stopped)."""
    cdef const uint8_t* flag = flag_of(stop)
    cdef Py_ssize_t n = offsets.shape[0] - 1
    cdef int64_t ignored
    cdef int failed
    cdef StringIndex found = StringIndex.__new__(StringIndex)
    found.data = data
    with nogil:
        failed = build(&found.t, pointer(data), &offsets[0], n, hash_mask, &ignored, 0, flag)
    if failed:
        raise MemoryError()
    return None if was_stopped(flag) else found


# ---------------------------------------------------------------------------- byte order

cdef int compare_spans(const uint8_t* base, const int64_t* offsets, int64_t a, int64_t b) noexcept nogil:
    cdef int64_t la = offsets[a + 1] - offsets[a], lb = offsets[b + 1] - offsets[b]
    cdef int r = memcmp(base + offsets[a], base + offsets[b], min(la, lb))
    if r != 0:
        return r
    return (la > lb) - (la < lb)


cdef inline bint bytes_before(const void* spans, const Keyed* x, const Keyed* y) noexcept nogil:
    # A Keyed's key is 8 bytes of its string from the shared prefix on, big-endian, zero
    # padded. All strings share the bytes before the key, so different keys differ in the
    # key's first 8 bytes, where a missing byte reads as 0: below any byte a longer string
    # has there, unless that byte is 0, in which case the keys are equal. So different keys
    # decide the order and equal keys need the full comparison.
    cdef const Spans* t = <const Spans*>spans
    if x.key != y.key:
        return x.key < y.key
    return compare_spans(t.base, t.offsets, x.index, y.index) < 0


cdef int64_t shared_prefix(const uint8_t* base, const int64_t* offsets, Py_ssize_t n,
                           const uint8_t* flag) noexcept nogil:
    # Length of the prefix common to all strings. Ids of one collection often share a
    # long one ("msmarco_passage_", "clueweb09-en"), which would make leading keys useless.
    cdef int64_t i, j, shared
    if n == 0:
        return 0
    shared = offsets[1] - offsets[0]
    for i in range(1, n):
        if (i & POLL_MASK) == 0 and stopped(flag):
            break
        shared = min(shared, offsets[i + 1] - offsets[i])
        j = 0
        while j < shared and base[offsets[i] + j] == base[offsets[0] + j]:
            j += 1
        shared = j
        if shared == 0:
            break
    return shared


def byte_ranks(const uint8_t[::1] data, const int64_t[::1] offsets, const uint8_t[::1] stop=None):
    """Rank (0-based) of each string when all are sorted by their bytes, ascending.

    Bytes compare as unsigned (memcmp); a proper prefix sorts first. Equal strings get
    distinct ranks in input order (the sort is stable). Returns None once ``stop`` (the
    call's stop flag, ``_stop.pxd``) is set.
    """
    cdef const uint8_t* flag = flag_of(stop)
    cdef Py_ssize_t i, j, n = offsets.shape[0] - 1
    cdef int64_t skip, length
    cdef const uint8_t* base = pointer(data)
    cdef Keyed* items = <Keyed*>malloc(max(n, 1) * sizeof(Keyed))
    cdef Keyed* tmp = <Keyed*>malloc(max(n, 1) * sizeof(Keyed))
    cdef uint64_t key
    cdef Spans spans = Spans(base, &offsets[0])
    ranks = np.empty(n, dtype=np.int64)
    cdef int64_t[::1] out = ranks
    try:
        if items == NULL or tmp == NULL:
            raise MemoryError()
        with nogil:
            skip = shared_prefix(base, &offsets[0], n, flag)
            for i in range(n):
                length = min(offsets[i + 1] - offsets[i] - skip, 8)
                key = 0
                for j in range(8):
                    key = (key << 8) | (base[offsets[i] + skip + j] if j < length else 0)
                items[i].key = key
                items[i].index = i
            merge_sort(items, tmp, n, bytes_before, &spans, flag)
            # A stopped sort leaves the items unsorted: no ranks from them.
            if not was_stopped(flag):
                for i in range(n):
                    out[items[i].index] = i
    finally:
        free(items)
        free(tmp)
    return None if was_stopped(flag) else ranks


# ---------------------------------------------------------------------------- dictionaries

# Index types of Arrow dictionaries (polars writes uint32); uint64 is converted before.
ctypedef fused index_t:
    int8_t
    int16_t
    int32_t
    int64_t
    uint8_t
    uint16_t
    uint32_t


cdef int64_t renumber(const index_t[::1] indices, const int64_t[::1] entry_codes, int64_t[::1] remap,
                      int64_t[::1] codes, int64_t[::1] used, const uint8_t* flag) noexcept nogil:
    """codes[i]: the order in which ``entry_codes[indices[i]]`` first appears; ``used`` lists
    the entry codes so met. Returns their number, or -1 - i for an index out of range."""
    cdef Py_ssize_t i, n = indices.shape[0], m = entry_codes.shape[0]
    cdef int64_t k, code, n_used = 0
    for i in range(n):
        if (i & POLL_MASK) == 0 and stopped(flag):
            return n_used
        k = <int64_t>indices[i]
        if k < 0 or k >= m:
            return -1 - i
        code = entry_codes[k]
        if remap[code] < 0:
            remap[code] = n_used
            used[n_used] = code
            n_used += 1
        codes[i] = remap[code]
    return n_used


def first_seen(const index_t[::1] indices, const int64_t[::1] entry_codes, int64_t n_codes,
               const uint8_t[::1] stop=None):
    """Rows coded by the strings of a dictionary: row i is string ``entry_codes[indices[i]]``.

    ``entry_codes`` (each in ``[0, n_codes)``) codes the dictionary's entries, as
    :func:`intern` gives them. Returns ``(codes, used)``: each row's code with the strings
    numbered in the order the rows first meet them, and ``used[j]``, the entry code of
    string j (strings no row meets are left out). Raises IndexError for an index outside
    the dictionary; returns None once ``stop`` is set.
    """
    cdef const uint8_t* flag = flag_of(stop)
    cdef int64_t found
    remap = np.full(n_codes, -1, dtype=np.int64)
    codes = np.empty(indices.shape[0], dtype=np.int64)
    used = np.empty(n_codes, dtype=np.int64)
    cdef int64_t[::1] r = remap, c = codes, u = used
    with nogil:
        found = renumber(indices, entry_codes, r, c, u, flag)
    if found < 0:
        raise IndexError(f"row {-1 - found}: dictionary index {indices[-1 - found]} outside a dictionary "
                         f"of {entry_codes.shape[0]}")
    if was_stopped(flag):
        return None
    return codes, used[:found]


def take(const uint8_t[::1] data, const int64_t[::1] offsets, const int64_t[::1] codes):
    """The strings ``codes`` of the table (data, offsets), in that order: ``(data, offsets)``.

    Every code must lie in ``[0, len(offsets) - 1)`` (checked by the caller).
    """
    cdef Py_ssize_t i, m = codes.shape[0]
    cdef int64_t total = 0, length
    out_offsets = np.empty(m + 1, dtype=np.int64)
    cdef int64_t[::1] o = out_offsets
    with nogil:
        o[0] = 0
        for i in range(m):
            total += offsets[codes[i] + 1] - offsets[codes[i]]
            o[i + 1] = total
    out_data = np.empty(total, dtype=np.uint8)
    cdef uint8_t[::1] d = out_data
    cdef const uint8_t* base = pointer(data)
    with nogil:
        for i in range(m):
            length = o[i + 1] - o[i]
            if length > 0:
                memcpy(&d[o[i]], base + offsets[codes[i]], length)
    return out_data, out_offsets
