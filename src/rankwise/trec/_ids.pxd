# Integer ids as trec_eval sees them: as the decimal text they would have in a file.
from libc.stdint cimport int64_t, uint64_t


cdef inline void decimal_parts(int64_t v, uint64_t* scaled, int* length) noexcept nogil:
    # |v|'s digits read as a 19-digit number (zeros appended) and the digit count: the
    # pair orders digit strings as bytes do, a proper prefix first.
    cdef uint64_t u = (<uint64_t>(-(v + 1)) + 1) if v < 0 else <uint64_t>v
    cdef uint64_t power = 10
    cdef int n = 1
    while n < 19 and u >= power:
        power *= 10
        n += 1
    scaled[0] = u
    length[0] = n
    while n < 19:
        scaled[0] *= 10
        n += 1


cdef inline int decimal_compare(int64_t a, int64_t b) noexcept nogil:
    # Sign of strcmp(str(a), str(b)): '-' sorts before every digit.
    cdef uint64_t sa, sb
    cdef int la, lb
    if (a < 0) != (b < 0):
        return -1 if a < 0 else 1
    decimal_parts(a, &sa, &la)
    decimal_parts(b, &sb, &lb)
    if sa != sb:
        return -1 if sa < sb else 1
    return (la > lb) - (la < lb)


cdef inline int table_bits(Py_ssize_t n, int slots_per_key) noexcept nogil:
    # Open-addressing tables of ids: a power of two, at least slots_per_key slots per key
    # (so most probes end at their first slot) and 16 in all.
    cdef int bits = 4
    while (<int64_t>1 << bits) < slots_per_key * n:
        bits += 1
    return bits


cdef inline uint64_t id_hash(int64_t key) noexcept nogil:
    # Fibonacci hashing: key * 2^64/phi, a bijection of 64-bit words whose top bits
    # spread consecutive ids.
    return <uint64_t>key * 0x9E3779B97F4A7C15ULL


cdef inline uint64_t id_slot(int64_t key, int bits) noexcept nogil:
    # The top bits of the hash.
    return id_hash(key) >> (64 - bits)
