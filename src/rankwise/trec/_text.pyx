"""TREC text: whole-file tokenizing, exact string interning, byte-wise string order.

Strings live as byte spans: a table of n strings is ``data`` (uint8, concatenated) and
``offsets`` (int64, n + 1). Interning hashes a span and resolves every hash match by
comparing the bytes, so two spans get one code exactly when their bytes are equal;
hash quality only affects speed. Codes are given in first-seen order.

The parser walks a whole file held in memory once, without a Python object per line:
fields are split on the bytes C's ``isspace`` accepts (so ``\\r`` of a ``\\r\\n`` ending
never reaches a field), ids are interned on the fly and numbers are converted in place.
"""
import numpy as np

from libc.math cimport floor, isfinite
from libc.stdint cimport INT32_MAX, int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memchr, memcmp, memcpy, memset
from cpython.bytes cimport PyBytes_FromStringAndSize
from cpython.mem cimport PyMem_Free

from rankwise._core._sort cimport Keyed, merge_sort
from rankwise._core._stop cimport POLL_MASK, flag_of, stopped, was_stopped


cdef extern from "Python.h":
    # repr(float) is PyOS_double_to_string(x, 'r', 0, Py_DTSF_ADD_DOT_0, NULL).
    char* PyOS_double_to_string(double val, char format_code, int precision, int flags,
                                int* ptype) except NULL
    int Py_DTSF_ADD_DOT_0


cdef extern from *:
    """
    /* strtod in the C locale whatever the process locale: a program that called
       setlocale() must not make "0.5" unreadable (trec_eval never calls it). */
    #if defined(_WIN32)
    #include <locale.h>
    static _locale_t rankwise_c_locale = NULL;
    static int rankwise_c_locale_init(void) {
        rankwise_c_locale = _create_locale(LC_NUMERIC, "C");
        return rankwise_c_locale != NULL;
    }
    static double rankwise_strtod(const char* s, char** end) {
        return _strtod_l(s, end, rankwise_c_locale);
    }
    #else
    #include <locale.h>
    #if defined(__APPLE__)
    #include <xlocale.h>
    #endif
    static locale_t rankwise_c_locale = (locale_t)0;
    static int rankwise_c_locale_init(void) {
        rankwise_c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
        return rankwise_c_locale != (locale_t)0;
    }
    static double rankwise_strtod(const char* s, char** end) {
        return strtod_l(s, end, rankwise_c_locale);
    }
    #endif
    """
    int c_locale_init "rankwise_c_locale_init"() noexcept nogil
    double c_strtod "rankwise_strtod"(const char* s, char** end) noexcept nogil


if not c_locale_init():
    raise ImportError("rankwise.trec._text: cannot create the C locale for number parsing")


cpdef enum LineErrorKind:
    TOO_FEW = 1
    TOO_MANY = 2
    NOT_NUMBER = 3
    NOT_FINITE = 4


class LineError(ValueError):
    """A malformed line. ``args``: (kind, 1-based line, fields found, token start, token stop)."""


cdef enum:
    NEWLINE = 10
    SPACE = 32
    HASH = 35
    QRELS_FIELDS = 4
    RUN_FIELDS = 6
    NO_MEMORY = 99
    STOPPED = 98
    # The smallest table. Tables hold a power of two of slots, at most half of them filled.
    MIN_SLOTS = 16
    # Strings interned together, so that their cache misses overlap.
    BATCH = 32
    # Tokens copied into a stack buffer for strtod; longer ones are allocated.
    NUMBER_BUFFER = 64
    # Bytes of text between two checks of the stop flag: some 25,000 lines.
    TEXT_BLOCK = 1 << 20

cdef uint8_t EMPTY_BYTE = 0
# Exact powers of ten: a mantissa below 2**53 times or over one of these is rounded once,
# which is the correctly rounded result (Clinger's fast path).
cdef double POW10[23]
POW10[:] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
            1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22]
cdef uint64_t MANTISSA_LIMIT = (<uint64_t>1) << 53
cdef uint64_t K1 = (<uint64_t>0x9E3779B9 << 32) | <uint64_t>0x7F4A7C15
cdef uint64_t K2 = (<uint64_t>0xFF51AFD7 << 32) | <uint64_t>0xED558CCD
cdef uint64_t K3 = (<uint64_t>0xC4CEB9FE << 32) | <uint64_t>0x1A85EC53


cdef inline const uint8_t* pointer(const uint8_t[::1] a) noexcept nogil:
    # Indexing an empty view is undefined; an empty span needs any valid address.
    return &a[0] if a.shape[0] > 0 else &EMPTY_BYTE


cdef inline bint is_blank(uint8_t c) noexcept nogil:
    # C isspace in the C locale. Callers stop at newlines before asking.
    return c == SPACE or (c >= 9 and c <= 13)


# ---------------------------------------------------------------------------- hashing

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


# ---------------------------------------------------------------------------- interning

cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define RANKWISE_PREFETCH(p) __builtin_prefetch(p)
    #else
    #define RANKWISE_PREFETCH(p) ((void)(p))
    #endif
    """
    void prefetch "RANKWISE_PREFETCH"(const void* p) noexcept nogil


cdef struct Slot:
    uint32_t tag            # low half of the hash: most mismatches never touch the bytes
    int32_t code            # -1: empty


cdef struct Entry:
    int64_t start           # the string is base[start:start + length]
    int64_t length


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
        if (t.slots[i].tag == tag and t.entries[c].length == n
                and memcmp(t.base + t.entries[c].start, p, n) == 0):
            return c
        i = (i + 1) & t.mask


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


cdef int64_t interner_add(Interner* t, int64_t start, int64_t n, uint64_t h) noexcept nogil:
    """The code of the span base[start:start + n], adding it if new; -1 if out of memory."""
    cdef int64_t found = interner_find(t, t.base + start, n, h)
    cdef uint64_t i
    cdef void* grown
    if found >= 0:
        return found
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


cdef inline void probe_init(const Interner* t, Probe* probe, const uint8_t* base, int64_t start,
                            int64_t length) noexcept nogil:
    probe.start = start
    probe.length = length
    probe.hash = interner_hash(t, base + start, length)
    prefetch(&t.slots[slot_of(t, probe.hash)])


cdef void prefetch_matches(const Interner* t, const Probe* probes, Py_ssize_t n) noexcept nogil:
    # A big table answers each probe with up to three cache misses in a chain: the slot,
    # the entry, the stored bytes. probe_init asked for the slots; asking for the next
    # links of a whole batch at a time lets the misses of many probes overlap. Only the
    # first slot is followed: at most half full, the table rarely needs more.
    cdef Py_ssize_t i
    cdef const Slot* s
    for i in range(n):
        s = &t.slots[slot_of(t, probes[i].hash)]
        if s.code >= 0 and s.tag == <uint32_t>probes[i].hash:
            prefetch(&t.entries[s.code])
    for i in range(n):
        s = &t.slots[slot_of(t, probes[i].hash)]
        if s.code >= 0 and s.tag == <uint32_t>probes[i].hash:
            prefetch(t.base + t.entries[s.code].start)


cdef int add_batch(Interner* t, const Probe* probes, Py_ssize_t n, int64_t* codes,
                   Py_ssize_t stride) noexcept nogil:
    """Intern probes whose bytes lie in ``t.base``; code i goes to ``codes[i * stride]``."""
    cdef Py_ssize_t i
    cdef int64_t code
    prefetch_matches(t, probes, n)
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
    codes = np.empty(max(n, 1), dtype=np.int64)
    cdef int64_t[::1] out = codes
    cdef int failed = interner_init(&t, pointer(data), n)
    t.hash_mask = hash_mask
    try:
        if failed == 0:
            with nogil:
                failed = intern_spans(&t, &offsets[0], n, &out[0], 1, flag)
        if failed:
            raise MemoryError()
        if was_stopped(flag):
            return None
        table_data, table_offsets = interner_table(&t)
    finally:
        interner_free(&t)
    return codes[:n], table_data, table_offsets


def lookup(const uint8_t[::1] data, const int64_t[::1] offsets,
           const uint8_t[::1] other_data, const int64_t[::1] other_offsets, uint64_t hash_mask=~0,
           const uint8_t[::1] stop=None):
    """For each string of the other table, its index in the first one, or -1 if absent.

    A string held twice in the first table maps to its first index. ``hash_mask`` and
    ``stop`` as in :func:`intern`.
    """
    cdef const uint8_t* flag = flag_of(stop)
    cdef Py_ssize_t i, j, stop_, n = offsets.shape[0] - 1, m = other_offsets.shape[0] - 1
    cdef const uint8_t* other = pointer(other_data)
    cdef int64_t found, ignored
    cdef Probe probes[BATCH]
    cdef Interner t
    codes = np.empty(m, dtype=np.int64)
    cdef int64_t[::1] out = codes
    cdef int failed = interner_init(&t, pointer(data), n)
    t.hash_mask = hash_mask
    try:
        if failed == 0:
            with nogil:
                failed = intern_spans(&t, &offsets[0], n, &ignored, 0, flag)
                i = 0
                while failed == 0 and i < m:
                    if (i & POLL_MASK) == 0 and stopped(flag):
                        break
                    stop_ = min(i + BATCH, m)
                    for j in range(i, stop_):
                        probe_init(&t, &probes[j - i], other, other_offsets[j],
                                   other_offsets[j + 1] - other_offsets[j])
                    prefetch_matches(&t, probes, stop_ - i)
                    for j in range(i, stop_):
                        found = interner_find(&t, other + probes[j - i].start,
                                              probes[j - i].length, probes[j - i].hash)
                        out[j] = found if found >= 0 else -1
                    i = stop_
        if failed:
            raise MemoryError()
        if was_stopped(flag):
            return None
    finally:
        interner_free(&t)
    return codes


# ---------------------------------------------------------------------------- numbers

cdef bint parse_number(const uint8_t* p, Py_ssize_t n, double* out) noexcept nogil:
    """``strtod`` (C locale) of the whole token; False if any of it is not part of the number.

    Plain decimals with at most 19 significant digits, a mantissa below 2**53 and a
    decimal exponent within 22 take an exact fast path; everything else (longer digit
    strings, hex, inf, nan, huge exponents) goes to strtod itself.
    """
    cdef Py_ssize_t i = 0
    cdef bint negative = False, in_fraction = False, any_digit = False, exp_negative = False
    cdef uint64_t mantissa = 0
    cdef int digits = 0, fraction = 0, exponent = 0, e10
    cdef uint8_t c
    cdef char small[NUMBER_BUFFER]
    cdef char* copy
    cdef char* end
    if n > 0 and (p[0] == 43 or p[0] == 45):  # + -
        negative = p[0] == 45
        i = 1
    while i < n:
        c = p[i]
        if c >= 48 and c <= 57:
            any_digit = True
            if mantissa != 0 or c != 48:
                if digits == 19:
                    break
                mantissa = mantissa * 10 + (c - 48)
                digits += 1
            fraction += in_fraction
            if fraction > 100000:
                break
        elif c == 46 and not in_fraction:  # .
            in_fraction = True
        else:
            break
        i += 1
    if any_digit and i < n and (p[i] == 101 or p[i] == 69):  # e E
        i += 1
        if i < n and (p[i] == 43 or p[i] == 45):
            exp_negative = p[i] == 45
            i += 1
        if i < n and p[i] >= 48 and p[i] <= 57:
            while i < n and p[i] >= 48 and p[i] <= 57 and exponent < 100000:
                exponent = exponent * 10 + (p[i] - 48)
                i += 1
        else:
            any_digit = False
    if any_digit and i == n:
        e10 = (-exponent if exp_negative else exponent) - fraction
        if mantissa == 0:
            out[0] = -0.0 if negative else 0.0
            return True
        if mantissa <= MANTISSA_LIMIT and -22 <= e10 <= 22:
            out[0] = <double>mantissa * POW10[e10] if e10 >= 0 else <double>mantissa / POW10[-e10]
            if negative:
                out[0] = -out[0]
            return True
    if n == 0:
        return False
    if n < NUMBER_BUFFER:
        copy = &small[0]
    else:
        copy = <char*>malloc(n + 1)
    if copy == NULL:
        return False
    memcpy(copy, p, n)
    copy[n] = 0
    out[0] = c_strtod(copy, &end)
    i = end - copy
    if n >= NUMBER_BUFFER:
        free(copy)
    return i == n


def parse_numbers(const uint8_t[::1] data, const int64_t[::1] offsets):
    """``strtod`` of each string (for tests): (values float64, ok bool)."""
    cdef Py_ssize_t i, n = offsets.shape[0] - 1
    cdef const uint8_t* base = pointer(data)
    values = np.empty(n, dtype=np.float64)
    ok = np.empty(n, dtype=np.bool_)
    cdef double[::1] v = values
    cdef uint8_t[::1] k = ok.view(np.uint8)
    with nogil:
        for i in range(n):
            k[i] = parse_number(base + offsets[i], offsets[i + 1] - offsets[i], &v[i])
    return values, ok


# ---------------------------------------------------------------------------- parsing

cdef struct Outcome:
    int error               # 0, a LineErrorKind or NO_MEMORY
    int64_t rows
    int64_t line            # of the error
    int64_t fields          # found on the error's line
    Py_ssize_t token_start  # the offending token
    Py_ssize_t token_stop
    Py_ssize_t name_start   # runid of the last run line
    Py_ssize_t name_stop


cdef Py_ssize_t count_lines(const uint8_t* buf, Py_ssize_t size, const uint8_t* flag) noexcept nogil:
    cdef Py_ssize_t n = 0, pos = 0, block_end
    cdef const uint8_t* nl
    while pos < size and not stopped(flag):
        block_end = min(pos + TEXT_BLOCK, size)
        while pos < block_end:
            nl = <const uint8_t*>memchr(buf + pos, NEWLINE, size - pos)
            n += 1
            if nl == NULL:
                pos = size
                break
            pos = nl - buf + 1
    return n


cdef void parse_buffer(const uint8_t* buf, Py_ssize_t size, bint run, Interner* queries,
                       Interner* docs, int64_t* query_codes, int64_t* doc_codes, double* values,
                       int64_t* lines, Outcome* out, const uint8_t* flag) noexcept nogil:
    cdef int need = RUN_FIELDS if run else QRELS_FIELDS
    cdef int value_field = 4 if run else 3
    cdef Py_ssize_t pos = 0, eol, p, block_end
    cdef Py_ssize_t starts[RUN_FIELDS]
    cdef Py_ssize_t stops[RUN_FIELDS]
    cdef Probe pending[BATCH]
    cdef Py_ssize_t n_pending = 0
    cdef const uint8_t* nl
    cdef int nf
    cdef int64_t line = 0, row = 0, query = -1, length
    cdef Py_ssize_t last_start = 0, last_length = -1
    cdef double value
    # In blocks of bytes, the stop flag checked between them: the loop over lines stays as it was.
    while pos < size:
        if stopped(flag):
            out.error = STOPPED
            return
        block_end = min(pos + TEXT_BLOCK, size)
        while pos < block_end:
            line += 1
            nl = <const uint8_t*>memchr(buf + pos, NEWLINE, size - pos)
            eol = nl - buf if nl != NULL else size
            p = pos
            pos = eol + 1
            while p < eol and is_blank(buf[p]):
                p += 1
            # trec_eval skips blank lines only in runs and sees comments only at column 0 in
            # qrels; neither carries data, so both are skipped everywhere.
            if p == eol or buf[p] == HASH:
                continue
            nf = 0
            while p < eol and nf < need:
                starts[nf] = p
                while p < eol and not is_blank(buf[p]):
                    p += 1
                stops[nf] = p
                nf += 1
                while p < eol and is_blank(buf[p]):
                    p += 1
            if nf < need:
                out.error, out.line, out.fields = TOO_FEW, line, nf
                return
            if p < eol and not run:
                while p < eol:
                    while p < eol and not is_blank(buf[p]):
                        p += 1
                    nf += 1
                    while p < eol and is_blank(buf[p]):
                        p += 1
                out.error, out.line, out.fields = TOO_MANY, line, nf
                return
            if not parse_number(buf + starts[value_field], stops[value_field] - starts[value_field],
                                &value):
                out.error, out.line, out.fields = NOT_NUMBER, line, nf
                out.token_start, out.token_stop = starts[value_field], stops[value_field]
                return
            if not run and not isfinite(value):
                out.error, out.line, out.fields = NOT_FINITE, line, nf
                out.token_start, out.token_stop = starts[value_field], stops[value_field]
                return
            # Runs and qrels list a query's lines together, so the previous query id is
            # usually the answer and costs one compare instead of a hash probe.
            length = stops[0] - starts[0]
            if length != last_length or memcmp(buf + starts[0], buf + last_start, length) != 0:
                query = interner_add(queries, starts[0], length, interner_hash(queries, buf + starts[0], length))
                if query < 0:
                    out.error = NO_MEMORY
                    return
                last_start, last_length = starts[0], length
            if run:
                # trec_eval keeps the runid of the last line read.
                out.name_start, out.name_stop = starts[5], stops[5]
            query_codes[row] = query
            values[row] = value
            lines[row] = line
            probe_init(docs, &pending[n_pending], buf, starts[2], stops[2] - starts[2])
            n_pending += 1
            row += 1
            if n_pending == BATCH:
                if add_batch(docs, pending, n_pending, doc_codes + row - n_pending, 1) < 0:
                    out.error = NO_MEMORY
                    return
                n_pending = 0
    if add_batch(docs, pending, n_pending, doc_codes + row - n_pending, 1) < 0:
        out.error = NO_MEMORY
        return
    out.rows = row


def parse_lines(const uint8_t[::1] buf, bint run, const uint8_t[::1] stop=None):
    """Parse a whole qrels (``run=False``) or run file held in ``buf``.

    Blank lines and lines whose first non-blank byte is ``#`` are skipped. Qrels lines
    need exactly 4 fields, run lines at least 6 (more are ignored). Returns
    ``(query_data, query_offsets, query_codes, doc_data, doc_offsets, doc_codes, values,
    lines, name_start, name_stop)``; ``name_*`` delimit the runid of the last run line.
    Raises :class:`LineError` for a malformed line. Returns None once ``stop`` (the
    call's stop flag, ``_stop.pxd``) is set.
    """
    cdef Py_ssize_t size = buf.shape[0], capacity
    cdef const uint8_t* base = pointer(buf)
    cdef const uint8_t* flag = flag_of(stop)
    cdef Interner queries, docs
    cdef Outcome out
    memset(&out, 0, sizeof(Outcome))
    with nogil:
        capacity = count_lines(base, size, flag)
    if was_stopped(flag):
        return None
    query_codes = np.empty(capacity, dtype=np.int64)
    doc_codes = np.empty(capacity, dtype=np.int64)
    values = np.empty(capacity, dtype=np.float64)
    lines = np.empty(capacity, dtype=np.int64)
    cdef int64_t[::1] q = query_codes, d = doc_codes, li = lines
    cdef double[::1] v = values
    cdef int64_t* q_ptr = &q[0] if capacity else NULL
    cdef int64_t* d_ptr = &d[0] if capacity else NULL
    cdef int64_t* l_ptr = &li[0] if capacity else NULL
    cdef double* v_ptr = &v[0] if capacity else NULL
    # Most docnos of a run or qrels appear once or a few times; starting at half the
    # lines saves most regrowth of a big table at a few bytes per line.
    cdef int failed = interner_init(&queries, base, 64) < 0
    failed |= interner_init(&docs, base, capacity // 2) < 0
    try:
        if failed:
            raise MemoryError()
        with nogil:
            parse_buffer(base, size, run, &queries, &docs, q_ptr, d_ptr, v_ptr, l_ptr, &out, flag)
        if out.error == NO_MEMORY:
            raise MemoryError()
        if out.error == STOPPED:
            return None
        if out.error:
            raise LineError(LineErrorKind(out.error), out.line, out.fields, out.token_start,
                            out.token_stop)
        query_data, query_offsets = interner_table(&queries)
        doc_data, doc_offsets = interner_table(&docs)
    finally:
        interner_free(&queries)
        interner_free(&docs)
    # Comment and blank lines leave rows unused at the end: views drop a few, copies
    # free many.
    if out.rows < capacity // 2:
        query_codes, doc_codes = query_codes[:out.rows].copy(), doc_codes[:out.rows].copy()
        values, lines = values[:out.rows].copy(), lines[:out.rows].copy()
    elif out.rows < capacity:
        query_codes, doc_codes = query_codes[:out.rows], doc_codes[:out.rows]
        values, lines = values[:out.rows], lines[:out.rows]
    return (query_data, query_offsets, query_codes, doc_data, doc_offsets, doc_codes, values,
            lines, out.name_start, out.name_stop)


# ---------------------------------------------------------------------------- checks

cdef bint valid_utf8(const uint8_t* p, Py_ssize_t n) noexcept nogil:
    # Python's strict decoder: no overlong forms, no surrogates, nothing above U+10FFFF.
    cdef Py_ssize_t i = 0
    cdef uint8_t c, lo, hi
    cdef int follow, k
    cdef uint64_t w
    while i < n:
        if i + 8 <= n:
            memcpy(&w, p + i, 8)
            if (w & <uint64_t>0x8080808080808080) == 0:
                i += 8
                continue
        c = p[i]
        if c < 0x80:
            i += 1
            continue
        lo, hi = 0x80, 0xBF
        if 0xC2 <= c <= 0xDF:
            follow = 1
        elif 0xE0 <= c <= 0xEF:
            follow = 2
            if c == 0xE0:
                lo = 0xA0
            elif c == 0xED:
                hi = 0x9F
        elif 0xF0 <= c <= 0xF4:
            follow = 3
            if c == 0xF0:
                lo = 0x90
            elif c == 0xF4:
                hi = 0x8F
        else:
            return False
        if i + follow >= n or not (lo <= p[i + 1] <= hi):
            return False
        for k in range(2, follow + 1):
            if not (0x80 <= p[i + k] <= 0xBF):
                return False
        i += follow + 1
    return True


def first_invalid_utf8(const uint8_t[::1] data, const int64_t[::1] offsets, const uint8_t[::1] stop=None):
    """Index of the first string that is not valid UTF-8, or -1 (also once ``stop`` is set)."""
    cdef Py_ssize_t i, n = offsets.shape[0] - 1
    cdef const uint8_t* base = pointer(data)
    cdef const uint8_t* flag = flag_of(stop)
    cdef Py_ssize_t found = -1
    with nogil:
        for i in range(n):
            if (i & POLL_MASK) == 0 and stopped(flag):
                break
            if not valid_utf8(base + offsets[i], offsets[i + 1] - offsets[i]):
                found = i
                break
    return found


def occurrence_ranks(const int64_t[::1] codes, int64_t n_codes):
    """1 for the first row of each code, 2 for its second, and so on, in row order."""
    cdef Py_ssize_t i, n = codes.shape[0]
    seen = np.zeros(n_codes, dtype=np.int64)
    ranks = np.empty(n, dtype=np.int64)
    cdef int64_t[::1] s = seen, out = ranks
    with nogil:
        for i in range(n):
            s[codes[i]] += 1
            out[i] = s[codes[i]]
    return ranks


# ---------------------------------------------------------------------------- byte order

cdef struct Spans:
    # A table of strings: ``data`` and ``offsets`` (module docstring).
    const uint8_t* base
    const int64_t* offsets


cdef inline int compare_spans(const uint8_t* base, const int64_t* offsets, int64_t a,
                              int64_t b) noexcept nogil:
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


# ---------------------------------------------------------------------------- writing

cdef struct Buffer:
    char* data
    Py_ssize_t size
    Py_ssize_t capacity


cdef int reserve(Buffer* b, Py_ssize_t extra) noexcept nogil:
    cdef Py_ssize_t capacity = b.capacity
    cdef char* p
    if b.size + extra <= capacity:
        return 0
    while capacity < b.size + extra:
        capacity = 2 * capacity + 4096
    p = <char*>realloc(b.data, capacity)
    if p == NULL:
        return -1
    b.data = p
    b.capacity = capacity
    return 0


cdef inline void put(Buffer* b, const void* p, Py_ssize_t n) noexcept nogil:
    memcpy(b.data + b.size, p, n)
    b.size += n


cdef inline void put_int(Buffer* b, int64_t v) noexcept nogil:
    cdef char digits[24]
    cdef int k = 24
    cdef uint64_t u = <uint64_t>(-v) if v < 0 else <uint64_t>v
    while True:
        k -= 1
        digits[k] = <char>(48 + u % 10)
        u //= 10
        if u == 0:
            break
    if v < 0:
        k -= 1
        digits[k] = 45
    put(b, digits + k, 24 - k)


def format_rows(const uint8_t[::1] query_data, const int64_t[::1] query_offsets,
                const int64_t[::1] query_codes, const uint8_t[::1] doc_data,
                const int64_t[::1] doc_offsets, const int64_t[::1] doc_codes,
                const double[::1] values, const int64_t[::1] ranks, bytes name,
                Py_ssize_t start, Py_ssize_t stop):
    """Rows ``start:stop`` as TREC lines: qrels when ``ranks`` is empty, else a run.

    Qrels: ``qid 0 docno rel`` with an integral rel printed as an integer. Run: ``qid Q0
    docno rank score name``. Other numbers are printed as Python's repr, which reads
    back to the same double. Codes must be valid indices into their tables.
    """
    cdef const uint8_t* qd = pointer(query_data)
    cdef const uint8_t* dd = pointer(doc_data)
    cdef const char* name_ptr = name
    cdef Py_ssize_t name_length = len(name), i
    cdef bint run = ranks.shape[0] > 0
    cdef int64_t q, d
    cdef double v
    cdef char* text
    cdef Buffer b
    b.data, b.size, b.capacity = NULL, 0, 0
    try:
        # Formatting holds the GIL: the shortest round-trip repr of a double is CPython's.
        for i in range(start, stop):
            q, d, v = query_codes[i], doc_codes[i], values[i]
            if reserve(&b, query_offsets[q + 1] - query_offsets[q] + doc_offsets[d + 1]
                       - doc_offsets[d] + name_length + 64) < 0:
                raise MemoryError()
            put(&b, qd + query_offsets[q], query_offsets[q + 1] - query_offsets[q])
            if run:
                put(&b, b" Q0 ", 4)
            else:
                put(&b, b" 0 ", 3)
            put(&b, dd + doc_offsets[d], doc_offsets[d + 1] - doc_offsets[d])
            put(&b, b" ", 1)
            if run:
                put_int(&b, ranks[i])
                put(&b, b" ", 1)
            if not run and v == floor(v) and -1e15 < v < 1e15:
                put_int(&b, <int64_t>v)
            else:
                text = PyOS_double_to_string(v, b'r', 0, Py_DTSF_ADD_DOT_0, NULL)
                put(&b, text, len(text))
                PyMem_Free(text)
            if run:
                put(&b, b" ", 1)
                put(&b, name_ptr, name_length)
            put(&b, b"\n", 1)
        return PyBytes_FromStringAndSize(b.data, b.size)
    finally:
        free(b.data)
