from libc.stdint cimport int64_t, uint8_t


cdef struct Item:
    double score
    double label
    int64_t key


cdef inline bint ranks_above(double a, double b) noexcept nogil:
    # NaN (only present under nan="last") ranks below every number.
    return a > b or (b != b and a == a)


cdef inline Py_ssize_t same_flag(double a, double b) noexcept nogil:
    # same_rank without short-circuit branches.
    return (a == b) | ((a != a) & (b != b))


cdef inline bint same_rank(double a, double b) noexcept nogil:
    return a == b or (a != a and b != b)


# Returns early, the items permuted but not sorted, once ``stop`` (``_stop.pxd``) is set.
cdef void sort_items(Item* items, Py_ssize_t n, int label_order, const uint8_t* stop) noexcept nogil
