# Sums of gains at the bottom of float64, exact to double precision.
#
# A gain, a discounted gain, a partial sum or an ideal DCG below DBL_MIN = 2**-1022 is
# subnormal and keeps few significant bits: 1.5e-323 / log2(3) keeps two, so a DCG of
# such gains, and nDCG = DCG / ideal DCG, would come out wrong without a word. A kernel
# whose sum may be that small multiplies its gains by 2**e, with e chosen from the
# largest of them (gain_scale), sums in the normal range, and divides by 2**e once at
# the end (unscale): multiplying by a power of two only changes the exponent, so the
# scaled gains are exact and the sum rounds as it would in the normal range; the final
# division rounds once, to the subnormal or zero that the true value is. In a ratio of
# two scaled sums (scaled_ratio) the scales cancel.
#
# A sum with a largest gain at or above SAFE_GAIN, or one that comes out at or above it
# (every ordinary one), is left unscaled (e = 0), so that its code and its bits are the
# same as without this: a term rounded in the subnormal range is off by at most 2**-1075,
# and 2**63 such terms by 2**-1012, which is 2**-112 of SAFE_GAIN, far below the sum's
# own rounding. Kernels take e once per sum from its largest gain (an ideal DCG, whose
# largest gain is its first term), or sum unscaled first and again, scaled, only when the
# result is below SAFE_GAIN (a DCG whose largest summed gain is not known in advance).
from libc.math cimport fabs, frexp, ldexp

cdef extern from *:
    """
    /* 2**-900, exactly (a decimal literal, where not every compiler reads hexadecimal ones). */
    #define RANKWISE_SAFE_GAIN 1.1830521861667747e-271
    """
    const double SAFE_GAIN "RANKWISE_SAFE_GAIN"


cdef inline int gain_scale(double largest) noexcept nogil:
    """The e that brings |largest| (finite) into [0.5, 1) when 0 < |largest| < SAFE_GAIN, else 0.

    With it, every scaled gain of the sum is at most 1: nothing can overflow.
    """
    cdef int e = 0
    largest = fabs(largest)
    if largest >= SAFE_GAIN or largest == 0:
        return 0
    frexp(largest, &e)
    return -e


cdef inline double scaled(double x, int e) noexcept nogil:
    """x * 2**e: exact while the result is normal (e = 0 leaves x as it is)."""
    return ldexp(x, e) if e != 0 else x


cdef inline double unscale(double x, int e) noexcept nogil:
    """x / 2**e: one rounding, to the subnormal or zero that a small result is."""
    return ldexp(x, -e) if e != 0 else x


cdef inline double scaled_ratio(double num, int e_num, double den, int e_den) noexcept nogil:
    """(num / 2**e_num) / (den / 2**e_den) for a normal den: the scales cancel."""
    if e_num == e_den:
        return num / den
    return ldexp(num / den, e_den - e_num)
