# The string interner: exact interning of byte spans, shared by the kernels of every domain.
#
# Strings live as byte spans: a table of n strings is ``data`` (uint8, concatenated) and
# ``offsets`` (int64, n + 1) (``Spans``). Interning hashes a span and resolves every hash
# match by comparing the bytes, so two spans get one code exactly when their bytes are
# equal; hash quality only affects speed. Codes are given in first-seen order.
#
# What a parser runs per string (hashing, probing, the first prefetch) is inline here; what
# runs per batch of strings or per new string lives in _intern.pyx, with the Python-visible
# kernels of StringTable (``_core/strings.py``).
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.string cimport memcpy


cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define RANKWISE_PREFETCH(p) __builtin_prefetch(p)
    #else
    #define RANKWISE_PREFETCH(p) ((void)(p))
    #endif
    /* An empty span needs a valid address: indexing an empty view is undefined. */
    static const unsigned char rankwise_empty_span = 0;
    #define RANKWISE_K1 0x9E3779B97F4A7C15ULL
    #define RANKWISE_K2 0xFF51AFD7ED558CCDULL
    #define RANKWISE_K3 0xC4CEB9FE1A85EC53ULL
    """
    void prefetch "RANKWISE_PREFETCH"(const void* p) noexcept nogil
    const uint8_t EMPTY_SPAN "rankwise_empty_span"
    const uint64_t K1 "RANKWISE_K1"
    const uint64_t K2 "RANKWISE_K2"
    const uint64_t K3 "RANKWISE_K3"


cdef enum:
    # The smallest table. Tables hold a power of two of slots, at most half of them filled.
    MIN_SLOTS = 16
    # Strings interned together, so that their cache misses overlap.
    BATCH = 32


cdef struct Spans:
    # A table of strings: ``data`` and ``offsets``.
    const uint8_t* base
    const int64_t* offsets


cdef inline const uint8_t* pointer(const uint8_t[::1] a) noexcept nogil:
    return &a[0] if a.shape[0] > 0 else &EMPTY_SPAN


cdef inline uint64_t finish(uint64_t h) noexcept nogil:
    # MurmurHash3's finaliser: every input bit reaches both halves, which serve as the
    # slot index and the tag.
    h ^= h >> 33
    h *= K2
    h ^= h >> 33
    h *= K3
    h ^= h >> 33
    return h


cdef inline uint64_t hash_bytes(const uint8_t* p, Py_ssize_t n) noexcept nogil:
    cdef uint64_t h = (<uint64_t>n) * K1
    cdef uint64_t w
    while n >= 8:
        memcpy(&w, p, 8)
        h = (h ^ w) * K1
        h ^= h >> 29
        p += 8
        n -= 8
    if n > 0:
        w = 0
        memcpy(&w, p, n)
        h = (h ^ w) * K1
        h ^= h >> 29
    return finish(h)


cdef inline bint same_bytes(const uint8_t* a, const uint8_t* b, int64_t n) noexcept nogil:
    # memcmp(a, b, n) == 0 without a call: ids are short, and compared once per line.
    cdef uint64_t x, y
    while n >= 8:
        memcpy(&x, a, 8)
        memcpy(&y, b, 8)
        if x != y:
            return False
        a += 8
        b += 8
        n -= 8
    while n > 0:
        if a[0] != b[0]:
            return False
        a += 1
        b += 1
        n -= 1
    return True


cdef struct Slot:
    uint32_t tag            # low half of the hash: most mismatches never touch the bytes
    int32_t code            # -1: empty


cdef struct Entry:
    int64_t start           # the string is base[start:start + length]
    int64_t length


cdef struct Arena:
    # Bytes an interner owns (its ``base``) when the strings it holds outlive their source.
    uint8_t* data
    int64_t size
    int64_t capacity


cdef struct Probe:
    int64_t start           # a string to intern or look up, from its own base
    int64_t length
    uint64_t hash


cdef struct Interner:
    const uint8_t* base
    Slot* slots             # open addressing, linear probing, at most half full
    uint64_t mask
    uint64_t hash_mask      # all ones, except in tests that force collisions
    Entry* entries          # per code
    int64_t size
    int64_t capacity


cdef inline uint64_t interner_hash(const Interner* t, const uint8_t* p, int64_t n) noexcept nogil:
    return hash_bytes(p, n) & t.hash_mask


cdef inline uint64_t slot_of(const Interner* t, uint64_t h) noexcept nogil:
    # The slot index takes the high half of the hash, the tag the low half.
    return (h >> 32) & t.mask


cdef inline int64_t interner_find(const Interner* t, const uint8_t* p, int64_t n,
                                  uint64_t h) noexcept nogil:
    # The code of the bytes p[:n], else -1 - (the empty slot where they would go).
    cdef uint64_t i = slot_of(t, h)
    cdef uint32_t tag = <uint32_t>h
    cdef int32_t c
    while True:
        c = t.slots[i].code
        if c < 0:
            return -1 - <int64_t>i
        if t.slots[i].tag == tag and t.entries[c].length == n and same_bytes(t.base + t.entries[c].start, p, n):
            return c
        i = (i + 1) & t.mask


cdef inline void probe_init(const Interner* t, Probe* probe, const uint8_t* base, int64_t start,
                            int64_t length) noexcept nogil:
    probe.start = start
    probe.length = length
    probe.hash = interner_hash(t, base + start, length)
    prefetch(&t.slots[slot_of(t, probe.hash)])


# In _intern.pyx: called once per string added or per batch, not per byte.
cdef int interner_init(Interner* t, const uint8_t* base, int64_t expected) noexcept nogil
cdef void interner_free(Interner* t) noexcept nogil
cdef int64_t interner_add(Interner* t, int64_t start, int64_t n, uint64_t h) noexcept nogil
cdef int interner_reserve(Interner* t, int64_t expected) noexcept nogil
cdef int64_t interner_add_owned(Interner* t, Arena* a, const uint8_t* p, int64_t n, uint64_t h) noexcept nogil
cdef void prefetch_matches(const Interner* t, const uint64_t* hashes, Py_ssize_t n, Py_ssize_t stride) noexcept nogil
cdef int add_batch(Interner* t, const Probe* probes, Py_ssize_t n, int64_t* codes,
                   Py_ssize_t stride) noexcept nogil
cdef int intern_spans(Interner* t, const int64_t* offsets, Py_ssize_t n, int64_t* codes,
                      Py_ssize_t stride, const uint8_t* flag) noexcept nogil
cdef tuple interner_table(const Interner* t)

# Strings a and b of a table in byte order (StringTable.byte_order's): bytes unsigned, as
# memcmp and trec_eval's strcmp compare them, and a proper prefix first. Other modules reach
# it through a pointer, never inlined: their hot loops stay as small as they were.
cdef int compare_spans(const uint8_t* base, const int64_t* offsets, int64_t a, int64_t b) noexcept nogil
