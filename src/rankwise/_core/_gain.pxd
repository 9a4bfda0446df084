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
from libc.stdint cimport int64_t
from libc.math cimport M_LN2, exp2, expm1, fabs, frexp, ldexp, log2

cdef extern from *:
    """
    /* log2(i + 1) and 2**g - 1 for small i and g, filled by fill_gain_tables() at a module's
       import by the very functions the kernels would otherwise call, so that a lookup gives
       the bits of the call: DCG needs a discount per position, and graded labels are mostly
       small integers. Static: every module that cimports this file has its own copy. */
    #define RANKWISE_N_LOG2 1024
    #define RANKWISE_N_GAIN 64
    static double rankwise_log2_next[RANKWISE_N_LOG2];
    static double rankwise_gain[RANKWISE_N_GAIN];
    """
    enum: N_LOG2 "RANKWISE_N_LOG2"
    enum: N_GAIN "RANKWISE_N_GAIN"
    double LOG2_NEXT "rankwise_log2_next"[]
    double GAIN "rankwise_gain"[]

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


cdef inline void fill_gain_tables() noexcept nogil:
    """Fill LOG2_NEXT and GAIN: every module that cimports this file calls it once, at import."""
    cdef Py_ssize_t i
    for i in range(N_LOG2):
        LOG2_NEXT[i] = log2(<double> (i + 1))
    for i in range(N_GAIN):
        GAIN[i] = exp2(<double> i) - 1.0


cdef inline double exponential_gain(double label) noexcept nogil:
    """2^label - 1 (label >= 0); below 1 without the cancellation of exp2(label) - 1."""
    cdef int g = <int> label if label < N_GAIN else N_GAIN
    if g < N_GAIN and g == label:
        return GAIN[g]
    return expm1(label * M_LN2) if label < 1.0 else exp2(label) - 1.0


cdef inline double log2_next(int64_t pos) noexcept nogil:
    """log2(pos + 1): the DCG discount of position pos >= 1 is its inverse."""
    return LOG2_NEXT[pos] if pos < N_LOG2 else log2(<double> (pos + 1))


cdef inline double err_prob(double label, double max_grade) noexcept nogil:
    """ERR's stop probability (2^g - 1) / 2^g_max, written so that large grades do not overflow,
    and below 1 without the cancellation of a difference of two powers near 1 (small g_max)."""
    if label < 1.0:
        return exp2(-max_grade) * expm1(label * M_LN2) if label > 0.0 else 0.0
    return exp2(label - max_grade) - exp2(-max_grade)
