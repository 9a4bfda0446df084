"""One positive against many candidates: count the candidates above and tied with it.

One streaming pass per query, no sort: every rank under every tie policy follows from
``greater`` (candidates scoring higher), ``equal`` (tied) and the number of candidates.
The counters add to what ``counts`` already holds, so a caller can feed the candidates
of a query in chunks (streaming) and get the totals of one call.
"""
from libc.stdint cimport int32_t, int64_t, uint8_t

from rankwise._core._stop cimport flag_of, stopped
from rankwise._core._typedefs cimport score_t

ctypedef fused compare_t:
    float
    double

# Counters per block fit in int32, which keeps them as wide as float32 lanes so the
# compiler vectorises the comparisons.
cdef enum:
    BLOCK = 1 << 20
    GREATER = 0
    EQUAL = 1
    VALID = 2
    NUMBER = 3


cdef void _count_plain(const score_t* s, Py_ssize_t n, compare_t p, int64_t* out,
                       const uint8_t* flag) noexcept nogil:
    cdef Py_ssize_t start = 0, stop, j
    cdef int32_t greater, equal, number
    while start < n and not stopped(flag):
        stop = min(start + BLOCK, n)
        greater = equal = number = 0
        for j in range(start, stop):
            greater += s[j] > p
            equal += s[j] == p
            number += s[j] == s[j]
        out[GREATER] += greater
        out[EQUAL] += equal
        out[NUMBER] += number
        start = stop
    out[VALID] += n


cdef void _count_masked(const score_t* s, const uint8_t* m, Py_ssize_t n, compare_t p,
                        int64_t* out, const uint8_t* flag) noexcept nogil:
    cdef Py_ssize_t start = 0, stop, j
    cdef int32_t greater, equal, number, valid, keep
    while start < n and not stopped(flag):
        stop = min(start + BLOCK, n)
        greater = equal = number = valid = 0
        for j in range(start, stop):
            # Masks hold 0 or 1 (bool arrays), and int32 arithmetic keeps the loop vectorisable.
            keep = 1 - <int32_t>m[j]
            greater += keep & (s[j] > p)
            equal += keep & (s[j] == p)
            number += keep & (s[j] == s[j])
            valid += keep
        out[GREATER] += greater
        out[EQUAL] += equal
        out[NUMBER] += number
        out[VALID] += valid
        start = stop


cdef void _count_query(const score_t* s, const uint8_t* m, Py_ssize_t n, double pos,
                       int64_t* out, const uint8_t* flag) noexcept nogil:
    cdef score_t narrow = <score_t>pos
    # A positive exactly representable in the candidates' type is compared in that type
    # (float32 lanes for float32 scores); any other is compared in double, where no
    # float32 candidate can equal it.
    if <double>narrow == pos:
        if m == NULL:
            _count_plain(s, n, narrow, out, flag)
        else:
            _count_masked(s, m, n, narrow, out, flag)
    elif m == NULL:
        _count_plain(s, n, pos, out, flag)
    else:
        _count_masked(s, m, n, pos, out, flag)


def count_dense(const score_t[:, :] values, const double[::1] pos, const uint8_t[:, :] mask,
                Py_ssize_t q_start, Py_ssize_t q_stop, int64_t[:, ::1] counts, const uint8_t[::1] stop=None):
    """Add, for queries ``q_start:q_stop``, the counts of row ``q`` of ``values`` to ``counts[q]``.

    Rows must be contiguous (inner stride of one element); the row stride is free, so
    column slices and broadcast rows (a pool shared by every query) need no copy.
    ``mask`` (shape (0, 0) = none) has the same layout, nonzero meaning "not a
    candidate". Columns of ``counts``: greater, equal, unmasked, unmasked and not NaN.
    NaN compares false, so it is never greater or equal. ``stop``: the call's stop flag
    (``_stop.pxd``); once set, the counts are left incomplete.
    """
    cdef Py_ssize_t q, n = values.shape[1]
    cdef bint masked = mask.shape[0] > 0
    cdef const uint8_t* flag = flag_of(stop)
    if n == 0:
        return
    with nogil:
        for q in range(q_start, q_stop):
            if stopped(flag):
                break
            _count_query(&values[q, 0], &mask[q, 0] if masked else NULL, n, pos[q], &counts[q, 0], flag)


def count_ragged(const score_t[::1] values, const int64_t[::1] indptr, const double[::1] pos,
                 const uint8_t[::1] mask, Py_ssize_t q_start, Py_ssize_t q_stop,
                 int64_t[:, ::1] counts, const uint8_t[::1] stop=None):
    """As :func:`count_dense`, query ``q`` owning ``values[indptr[q]:indptr[q+1]]`` (CSR)."""
    cdef Py_ssize_t q, begin, n
    cdef bint masked = mask.shape[0] > 0
    cdef const uint8_t* flag = flag_of(stop)
    with nogil:
        for q in range(q_start, q_stop):
            if stopped(flag):
                break
            begin = indptr[q]
            n = indptr[q + 1] - begin
            if n > 0:
                _count_query(&values[begin], &mask[begin] if masked else NULL, n, pos[q],
                             &counts[q, 0], flag)
