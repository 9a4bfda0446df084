"""Elementwise harmonic sums, power means and tie-expected reciprocal ranks for chance.py.

The formulas are those of the kernels (_core/_ties.pxd), so a rank statistic under chance
and under ties="expected" is computed by one code. Inputs are trusted (chance.py
validates, broadcasts and allocates): contiguous float64 arrays of equal length.
"""
from rankwise._core cimport _ties


def harmonic(const double[::1] n, double[::1] out):
    """out[i] = H(n[i])."""
    cdef Py_ssize_t i
    with nogil:
        for i in range(n.shape[0]):
            out[i] = _ties.harmonic(n[i])


def harmonic2(const double[::1] n, double[::1] out):
    """out[i] = H_2(n[i])."""
    cdef Py_ssize_t i
    with nogil:
        for i in range(n.shape[0]):
            out[i] = _ties.harmonic2(n[i])


def harmonic_difference(const double[::1] a, const double[::1] b, double[::1] out):
    """out[i] = H(b[i]) - H(a[i])."""
    cdef Py_ssize_t i
    with nogil:
        for i in range(a.shape[0]):
            out[i] = _ties.harmonic_difference(a[i], b[i])


def expected_reciprocal(const double[::1] optimistic, const double[::1] pessimistic, double[::1] out):
    """out[i] = E[1/r] for r uniform on optimistic[i]..pessimistic[i]."""
    cdef Py_ssize_t i
    with nogil:
        for i in range(optimistic.shape[0]):
            out[i] = _ties.expected_reciprocal(optimistic[i], pessimistic[i])


def expected_hit(const double[::1] optimistic, const double[::1] pessimistic, const double[::1] k,
                 double[::1] out):
    """out[i] = P(r <= k[i]) for r uniform on optimistic[i]..pessimistic[i]."""
    cdef Py_ssize_t i
    with nogil:
        for i in range(optimistic.shape[0]):
            out[i] = _ties.expected_hit(optimistic[i], pessimistic[i], k[i])


def mean_power(const double[::1] n, const double[::1] s, double[::1] out):
    """out[i] = (1/n[i]) sum_{j<=n[i]} j^s[i]."""
    cdef Py_ssize_t i
    with nogil:
        for i in range(n.shape[0]):
            out[i] = _ties.mean_power(n[i], s[i])


def expected_discount(const double[::1] optimistic, const double[::1] pessimistic, const double[::1] k,
                      double[::1] out):
    """out[i] = E[[r <= k[i]] / log2(r + 1)] for r uniform on optimistic[i]..pessimistic[i]."""
    cdef Py_ssize_t i
    with nogil:
        for i in range(optimistic.shape[0]):
            out[i] = _ties.expected_discount(optimistic[i], pessimistic[i], k[i])
