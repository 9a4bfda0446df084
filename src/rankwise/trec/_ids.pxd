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

