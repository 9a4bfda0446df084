"""Exact sums of float64 columns, as wide fixed-point integers (``exact.py`` rounds them).

Every finite double is an integer multiple of 2**-1074 below 2**1024, so a sum of them
is an integer in those units, at most 2098 bits plus the bits of the count. Each value's
53-bit significand is added, shifted to its exponent, into DIGITS signed 32-bit digits held
in int64 (a "superaccumulator", as in Neal's or Demmel and Hida's exact summation): no
rounding happens, so the sum is the same whatever the order of the values, the threads or
the merges, and one rounding at the end (Python's int division is correctly rounded) gives
the exactly rounded sum.

A value adds less than 2**33 to at most three digits, and digits start below 2**32 after
a carry pass, so NORMALISE_EVERY values fit in int64 before the next carry pass.
"""
from libc.stdint cimport int64_t, uint8_t, uint64_t
from libc.string cimport memcpy

from ._stop cimport POLL_MASK, flag_of, stopped

# 2098 bits of range, the count's 63 bits on top, and the sign: 72 digits of 32 bits.
cdef enum:
    DIGITS = 72
    # Per column: NaNs are skipped; values counted, and +inf and -inf, which the digits cannot hold.
    COUNTED = 0
    POS_INF = 1
    NEG_INF = 2
    SPECIALS = 3

cdef Py_ssize_t NORMALISE_EVERY = 1 << 28
cdef uint64_t LOW32 = 0xFFFFFFFF
cdef uint64_t FRACTION = (<uint64_t>1 << 52) - 1
cdef uint64_t EXPONENT_MASK = 0x7FF

N_DIGITS = DIGITS
DIGIT_BITS = 32


cdef inline void normalise(int64_t* digits) noexcept nogil:
    """Carry every digit but the top into [0, 2**32), keeping the number the same."""
    cdef Py_ssize_t d
    cdef int64_t carry
    for d in range(DIGITS - 1):
        # floor(digit / 2**32) (an arithmetic shift, negative digits included) moves up; what
        # stays is the digit's low 32 bits, taken without shifting a negative number left
        # (undefined in C).
        carry = digits[d] >> 32
        digits[d] = <int64_t>(<uint64_t>digits[d] & LOW32)
        digits[d + 1] += carry


cdef inline void add_value(int64_t* digits, int64_t* specials, double x) noexcept nogil:
    cdef uint64_t bits
    memcpy(&bits, &x, sizeof(double))
    cdef uint64_t biased = (bits >> 52) & EXPONENT_MASK
    cdef uint64_t significand = bits & FRACTION
    cdef bint negative = (bits >> 63) != 0
    if biased == EXPONENT_MASK:
        if significand == 0:  # NaN is skipped and not counted
            specials[COUNTED] += 1
            specials[NEG_INF if negative else POS_INF] += 1
        return
    specials[COUNTED] += 1
    # x = significand * 2**(shift - 1074); subnormals (biased 0) have no implicit bit.
    cdef Py_ssize_t shift = 0
    if biased:
        significand |= <uint64_t>1 << 52
        shift = <Py_ssize_t>biased - 1
    cdef Py_ssize_t i = shift >> 5
    cdef int offset = shift & 31
    cdef uint64_t low = (significand & LOW32) << offset   # below 2**63
    cdef uint64_t high = (significand >> 32) << offset    # below 2**52
    cdef int64_t d0 = <int64_t>(low & LOW32)
    cdef int64_t d1 = <int64_t>((low >> 32) + (high & LOW32))
    cdef int64_t d2 = <int64_t>(high >> 32)
    if negative:
        digits[i] -= d0
        digits[i + 1] -= d1
        digits[i + 2] -= d2
    else:
        digits[i] += d0
        digits[i + 1] += d1
        digits[i + 2] += d2


cdef int sum_rows(const double[:, :] values, Py_ssize_t r_start, Py_ssize_t r_stop, int64_t[:, ::1] digits,
                  int64_t[:, ::1] specials, const uint8_t* stop) noexcept nogil:
    cdef Py_ssize_t r, j, since = 0
    cdef Py_ssize_t n_columns = values.shape[1]
    for r in range(r_start, r_stop):
        for j in range(n_columns):
            add_value(&digits[j, 0], &specials[j, 0], values[r, j])
        since += 1
        if since == NORMALISE_EVERY:
            for j in range(n_columns):
                normalise(&digits[j, 0])
            since = 0
        if (r & POLL_MASK) == 0 and stopped(stop):
            return 1
    for j in range(n_columns):
        normalise(&digits[j, 0])
    return 0


def exact_sums(const double[:, :] values, Py_ssize_t r_start, Py_ssize_t r_stop, int64_t[:, ::1] digits,
               int64_t[:, ::1] specials, const uint8_t[::1] stop=None):
    """Add rows ``r_start:r_stop`` of ``values`` (rows x columns) into zeroed ``digits``
    (columns x N_DIGITS, normalised on return) and ``specials`` (columns x 3: values
    counted, +inf, -inf). False when stopped (the caller discards both)."""
    cdef const uint8_t* flag = flag_of(stop)
    cdef int code
    with nogil:
        code = sum_rows(values, r_start, r_stop, digits, specials, flag)
    return code == 0
