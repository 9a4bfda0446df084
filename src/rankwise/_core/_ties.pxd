# Expectations over tie orderings, and the harmonic sums they need: the one copy that the
# kernels of every domain use (lists/_listwise.pyx, trec/_trec.pyx, ranks/_chance.pyx); with
# one relevant item, E[[r <= k] / log2(r + 1)] over a tie, its discounts summed by Euler-Maclaurin.
#
# A tie group holds c items, y of them relevant, and `above` items rank strictly above it;
# every order of the group is equally likely (McSherry & Najork, "Computing information
# retrieval performance measures efficiently in the presence of tied scores", ECIR 2008):
#   relevant among the group's first t places:  E = t y / c                      (TP@k, P, R, F1)
#   AP term of the group's t-th place, at rank pos, `before` relevant items above the group:
#     (y/c) (before + 1 + (t - 1)(y - 1)/(c - 1)) / pos                          (AP)
#   first relevant item at the group's m-th place:  P(m) = C(c-m, y-1) / C(c, y) (RR)
#     for y = 1:  E[1/rank] = (H(above + c) - H(above)) / c,  P(rank <= k) = (k - above) / c in [0, 1]
#   some relevant item among the first s places:  1 - C(c-y, s) / C(c, s)       (Hits@k)
# Chance (a rank uniform on 1..C) uses the same sums (Hoyt et al. 2022, "A Unified Framework
# for Rank-based Evaluation Metrics for Link Prediction"): E[1/r] = H(C)/C,
# E[1/r^2] = H_2(C)/C, E[r^s] = (1/C) sum_{j<=C} j^s.
#
# Harmonic sums are accurate to a few ulps for any argument below 2**53: summed directly up
# to HARMONIC_TABLE terms (in order, as a cumulative sum), beyond from their asymptotic
# series, whose first omitted term is then below 1e-20; differences of harmonic numbers are
# formed without cancellation.
from libc.math cimport M_LN2, M_PI, log, log1p, pow
from libc.stdint cimport int64_t, uint8_t

from rankwise._core._stop cimport POLL_MASK, stopped

cdef enum:
    HARMONIC_TABLE = 64
    # Differences over at most this many terms are summed directly.
    DIRECT_TERMS = 32
    # mean_power sums j^s directly below this n, else from its Euler-Maclaurin series.
    POWER_DIRECT = 16
    # DCG discounts summed directly: up to this rank, and over at most this many terms.
    DISCOUNT_DIRECT = 128


cdef inline double harmonic(double n) noexcept nogil:
    """H(n) = sum_{j=1..n} 1/j for an integer n >= 0."""
    cdef double total = 0.0, inv2
    cdef int j
    if n <= HARMONIC_TABLE:
        for j in range(1, <int> n + 1):
            total += 1.0 / j
        return total
    inv2 = 1.0 / (n * n)
    return (log(n) + 0.57721566490153286061 + 0.5 / n  # + Euler's gamma
            - inv2 * (1.0 / 12 - inv2 * (1.0 / 120 - inv2 * (1.0 / 252 - inv2 / 240))))


cdef inline double harmonic2(double n) noexcept nogil:
    """H_2(n) = sum_{j=1..n} 1/j^2 for an integer n >= 0."""
    cdef double total = 0.0, inv, inv2
    cdef int j
    if n <= HARMONIC_TABLE:
        for j in range(1, <int> n + 1):
            total += 1.0 / (j * j)
        return total
    inv = 1.0 / n
    inv2 = inv * inv
    # pi^2/6 - sum_{j>n} 1/j^2 (Euler-Maclaurin).
    return M_PI * M_PI / 6 - inv * (1 - inv * (0.5 - inv * (1.0 / 6
                                                        - inv2 * (1.0 / 30 - inv2 * (1.0 / 42 - inv2 / 30)))))


cdef inline double harmonic_difference(double a, double b) noexcept nogil:
    """H(b) - H(a) = sum_{j=a+1..b} 1/j for integers 0 <= a <= b."""
    cdef double total = 0.0, d = b - a, u, v, duv, u2, v2, uv
    cdef int step
    if d <= DIRECT_TERMS:
        for step in range(1, <int> d + 1):
            total += 1.0 / (a + step)
        return total
    if a <= HARMONIC_TABLE:
        # H(b) - H(a) > ln(97/64): little cancels.
        return harmonic(b) - harmonic(a)
    u = 1.0 / a
    v = 1.0 / b
    # ln(b/a) + the asymptotic series' terms (1/2)(v - u) - (1/12)(v^2 - u^2) + ..., each
    # difference u^m - v^m factored as d u v (u^(m-1) + ... + v^(m-1)).
    duv = d * u * v
    u2 = u * u
    v2 = v * v
    uv = u * v
    return (log1p(d * u) - duv / 2 + duv * (u + v) / 12
            - duv * (u + v) * (u2 + v2) / 120
            + duv * (u + v) * (u2 + uv + v2) * (u2 - uv + v2) / 252)


cdef inline double expected_reciprocal(double optimistic, double pessimistic) noexcept nogil:
    """E[1/r] for r uniform on optimistic..pessimistic (integers >= 1)."""
    return harmonic_difference(optimistic - 1, pessimistic) / (pessimistic - optimistic + 1)


cdef inline double expected_hit(double optimistic, double pessimistic, double k) noexcept nogil:
    """P(r <= k) for r uniform on optimistic..pessimistic (integers >= 1)."""
    cdef double p = (k - optimistic + 1) / (pessimistic - optimistic + 1)
    return 0.0 if p < 0 else (1.0 if p > 1 else p)


cdef inline double mean_power(double n, double s) noexcept nogil:
    """(1/n) sum_{j=1..n} j^s for an integer n >= 1 and a real s in [0, 2]: E[r^s], r uniform on 1..n."""
    # Bernoulli numbers B2, B4, B6 over (2k)!, for the Euler-Maclaurin tail.
    cdef double[3] em = [1.0 / 12, -1.0 / 720, 1.0 / 30240]
    cdef double head = 0.0, total, falling, power, m = POWER_DIRECT
    cdef int j, k
    if n < POWER_DIRECT:
        for j in range(1, <int> n + 1):
            head += pow(<double> j, s)
        return head / n
    for j in range(1, POWER_DIRECT):
        head += pow(<double> j, s)
    # sum_{j=m..n} j^s: the integral, the end-point halves, then the derivative terms.
    total = head + (pow(n, s + 1) - pow(m, s + 1)) / (s + 1) + (pow(n, s) + pow(m, s)) / 2
    falling = s
    for k in range(3):
        power = s - (2 * k + 1)
        total += em[k] * falling * (pow(n, power) - pow(m, power))
        falling = falling * (s - 2 * k - 1) * (s - 2 * k - 2)
    return total / n


cdef inline double inverse_log_integral(double lo, double hi) noexcept nogil:
    """Integral of 1/ln(u) over [lo, hi], lo >= 2: Gauss-Legendre on pieces [x, 2x].

    1/ln(u) is analytic away from u = 1, so on a piece [x, 2x] (x >= 2) 16 nodes leave a
    relative error near 1e-18; at most 53 pieces below 2**53.
    """
    # Gauss-Legendre nodes and weights on [-1, 1], 16 points: the positive half (numpy's leggauss).
    cdef double[8] node = [0.09501250983763744, 0.2816035507792589, 0.45801677765722737,
                           0.6178762444026438, 0.755404408355003, 0.8656312023878318,
                           0.9445750230732326, 0.9894009349916499]
    cdef double[8] weight = [0.18945061045506864, 0.18260341504492364, 0.16915651939500265,
                             0.1495959888165767, 0.12462897125553407, 0.0951585116824926,
                             0.062253523938647456, 0.027152459411754176]
    cdef double total = 0.0, x = lo, end, mid, half
    cdef int j
    while x < hi:
        end = 2 * x if 2 * x < hi else hi
        mid = (x + end) / 2
        half = (end - x) / 2
        for j in range(8):
            total += half * weight[j] * (1.0 / log(mid - half * node[j]) + 1.0 / log(mid + half * node[j]))
        x = end
    return total


cdef inline double discount_tail(double a, double b) noexcept nogil:
    """sum_{j=a+1..b} ln(2)/ln(j+1) for a >= DISCOUNT_DIRECT, by Euler-Maclaurin.

    With u = x + 1, L = ln u and h = 1/L: h' = -1/(u L^2), h''' = -(2L^2 + 6L + 6)/(u^3 L^4);
    the first omitted term, h^(5)/30240, is below 1e-16 of one summand from u = 129 on.
    """
    cdef double ua = a + 1, ub = b + 1, la = log(ua), lb = log(ub)
    cdef double first = 1.0 / (ua * la * la) - 1.0 / (ub * lb * lb)
    cdef double third = ((2 * la * la + 6 * la + 6) / (ua * ua * ua * la * la * la * la)
                         - (2 * lb * lb + 6 * lb + 6) / (ub * ub * ub * lb * lb * lb * lb))
    return M_LN2 * (inverse_log_integral(ua, ub) + (1.0 / lb - 1.0 / la) / 2 + first / 12 - third / 720)


cdef inline double discount_difference(double a, double b) noexcept nogil:
    """sum_{j=a+1..b} 1/log2(j+1), the DCG discounts of ranks a+1..b (integers 0 <= a <= b)."""
    cdef double total = 0.0, j = a + 1
    while j <= b and (j <= DISCOUNT_DIRECT or b - j < DISCOUNT_DIRECT):
        total += M_LN2 / log(j + 1)
        j += 1
    if j <= b:
        total += discount_tail(j - 1, b)
    return total


cdef inline double expected_discount(double optimistic, double pessimistic, double k) noexcept nogil:
    """E[[r <= k] / log2(r + 1)] for r uniform on optimistic..pessimistic (one relevant item's nDCG@k)."""
    cdef double last = pessimistic if pessimistic < k else k
    if last < optimistic:
        return 0.0
    return discount_difference(optimistic - 1, last) / (pessimistic - optimistic + 1)


cdef inline double expected_relevant(double c, double y, double t) noexcept nogil:
    """Relevant items expected among the first t places of the group."""
    return y * t / c


cdef inline double ap_slope(double c, double y) noexcept nogil:
    """(y - 1)/(c - 1): given a relevant item at a place, the chance that an earlier place holds another."""
    return (y - 1) / (c - 1) if c > 1 else 0.0


cdef inline double ap_term(double frac, double slope, double before, double t, double pos) noexcept nogil:
    """Expected precision at rank pos times relevance there, for the group's t-th place.

    frac = y/c (the place is relevant), slope = ap_slope(c, y); given a relevant item there,
    before + 1 + (t - 1) slope relevant items are expected at or above it.
    """
    return frac * (before + 1 + (t - 1) * slope) / pos


cdef inline double first_hit(int64_t above, int64_t c, int64_t y, int64_t limit, bint reciprocal,
                             const uint8_t* stop) noexcept nogil:
    """E[1/rank] (reciprocal) or the probability of the group's first relevant item, at a rank <= limit.

    y >= 1. For y = 1 both have closed forms; else P(m) is summed over the group's places m,
    each from the previous by the ratio C(c-m-1, y-1) / C(c-m, y-1).
    """
    cdef int64_t m, last
    cdef double prob, acc = 0.0
    if y == 1:
        if not reciprocal:
            return expected_hit(<double> above + 1, <double> (above + c), <double> limit)
        last = min(above + c, limit)
        return harmonic_difference(<double> above, <double> last) / c if last > above else 0.0
    prob = <double> y / c
    for m in range(1, c - y + 2):
        if above + m > limit or ((m & POLL_MASK) == 0 and stopped(stop)):
            break
        acc += prob / (above + m) if reciprocal else prob
        if m <= c - y:
            prob *= <double> (c - m - y + 1) / (c - m)
    return acc


cdef inline double any_hit(int64_t c, int64_t y, int64_t s, const uint8_t* stop) noexcept nogil:
    """P(some relevant item among the group's first s places) = 1 - C(c-y, s)/C(c, s), s <= c."""
    cdef int64_t i
    cdef double miss = 1.0
    for i in range(s):
        if c - y - i <= 0:
            return 1.0
        if (i & POLL_MASK) == 0 and stopped(stop):
            break
        miss *= <double> (c - y - i) / (c - i)
    return 1.0 - miss


cdef inline double subset_stop(const double* p_stop, int64_t c, int64_t y, int64_t m) noexcept nogil:
    """E[1 - prod of (1 - R) over the first m places of a random order of the group] (ERR).

    p_stop[j] is that expectation over a random j of the y tracked items; the c - y others
    have R = 0. The number j of tracked items among the first m is hypergeometric; its
    weights are built outward from the mode by ratios, so nothing overflows.
    """
    cdef int64_t z = c - y, lo, hi, mode, j
    cdef double w, num = 0.0, den = 0.0
    if z == 0:
        return p_stop[m]
    lo = max(0, m - z)
    hi = min(y, m)
    # Products in double: in int64 they overflow for groups of billions of items. Below
    # 2**53 they are exact, and so is the floor of the quotient, which is below c + 1 (m, y <= c)
    # and so in range of the cast.
    mode = min(max(<int64_t> ((<double> (m + 1) * (y + 1)) / (c + 2)), lo), hi)
    w = 1.0
    for j in range(mode, hi + 1):
        num += w * p_stop[j]
        den += w
        w *= (<double> (y - j) * (m - j)) / (<double> (j + 1) * (z - m + j + 1))
    w = 1.0
    for j in range(mode, lo, -1):
        w *= (<double> j * (z - m + j)) / (<double> (y - j + 1) * (m - j + 1))
        num += w * p_stop[j - 1]
        den += w
    return num / den
