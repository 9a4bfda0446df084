"""The sorts of scored rows (``_sort.pxd``).

The introsort under the rank order: score descending, then label, then key. The order is
total because keys are unique within a query, so an unstable sort gives one deterministic
result. And the merge sort of Items under a caller's comparison, compiled once here.
"""
import numpy as np

from libc.stdint cimport int64_t, uint8_t
from libc.stdlib cimport free, malloc

from ._stop cimport POLL, POLL_MASK, flag_of, stopped


cdef inline bint precedes(const Item* a, const Item* b, int label_order) noexcept nogil:
    # label_order: +1 higher labels first, -1 lower labels first, 0 labels ignored.
    # Distinct numbers settle in one or two comparisons; NaN (nan="last") ranks below
    # every number and ties with NaN.
    if a.score > b.score:
        return True
    if a.score < b.score:
        return False
    if not same_rank(a.score, b.score):
        return b.score != b.score
    if label_order != 0 and a.label != b.label:
        return (a.label > b.label) == (label_order > 0)
    return a.key < b.key


cdef inline void swap(Item* a, Py_ssize_t i, Py_ssize_t j) noexcept nogil:
    cdef Item tmp = a[i]
    a[i] = a[j]
    a[j] = tmp


cdef inline bint rank_before(const void* label_order, const Item* a, const Item* b) noexcept nogil:
    return precedes(a, b, (<const int*>label_order)[0])


cdef void sift_down(Item* a, Py_ssize_t root, Py_ssize_t end, int label_order) noexcept nogil:
    cdef Py_ssize_t child
    while True:
        child = 2 * root + 1
        if child >= end:
            return
        if child + 1 < end and precedes(&a[child], &a[child + 1], label_order):
            child += 1
        if not precedes(&a[root], &a[child], label_order):
            return
        swap(a, root, child)
        root = child


cdef void heapsort(Item* a, Py_ssize_t n, int label_order, const uint8_t* stop) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(n // 2 - 1, -1, -1):
        if (i & POLL_MASK) == 0 and stopped(stop):
            return
        sift_down(a, i, n, label_order)
    for i in range(n - 1, 0, -1):
        if (i & POLL_MASK) == 0 and stopped(stop):
            return
        swap(a, 0, i)
        sift_down(a, 0, i, label_order)


cdef void introsort(Item* a, Py_ssize_t n, int label_order, int depth, const uint8_t* stop) noexcept nogil:
    cdef Py_ssize_t i, j, mid, swaps = 0
    cdef Item pivot
    while n > SMALL_SORT:
        if n >= POLL and stopped(stop):
            return
        if depth == 0:
            heapsort(a, n, label_order, stop)
            return
        depth -= 1
        # Median of three leaves a[0] <= pivot <= a[n-1], which bound both scans.
        mid = n >> 1
        if precedes(&a[mid], &a[0], label_order):
            swap(a, mid, 0)
        if precedes(&a[n - 1], &a[mid], label_order):
            swap(a, n - 1, mid)
            if precedes(&a[mid], &a[0], label_order):
                swap(a, mid, 0)
        pivot = a[mid]
        swap(a, mid, n - 2)
        i = 0
        j = n - 2
        while True:
            i += 1
            while precedes(&a[i], &pivot, label_order):
                i += 1
            j -= 1
            while precedes(&pivot, &a[j], label_order):
                j -= 1
            if i >= j:
                break
            swap(a, i, j)
            swaps += 1
            if (swaps & POLL_MASK) == 0 and stopped(stop):
                return
        swap(a, i, n - 2)
        # Recurse into the smaller side so the stack stays O(log n).
        if i < n - i - 1:
            introsort(a, i, label_order, depth, stop)
            a = a + i + 1
            n = n - i - 1
        else:
            introsort(a + i + 1, n - i - 1, label_order, depth, stop)
            n = i
    insertion_sort(a, n, rank_before, &label_order)


cdef void sort_items(Item* items, Py_ssize_t n, int label_order, const uint8_t* stop) noexcept nogil:
    cdef int depth = 0
    cdef Py_ssize_t m = n
    while m > 1:
        depth += 2
        m >>= 1
    introsort(items, n, label_order, depth, stop)


cdef void merge_sort_items(Item* a, Item* tmp, Py_ssize_t n,
                           bint (*before)(const void*, const Item*, const Item*) noexcept nogil,
                           const void* order, const uint8_t* stop) noexcept nogil:
    merge_sort(a, tmp, n, before, order, stop)


def _py_sort_items(const double[::1] scores, const double[::1] labels,
                   const int64_t[::1] keys, int label_order, bint stable=False,
                   const uint8_t[::1] stop=None):
    """Sort (score, label, key) records and return the keys in sorted order (for tests).

    By the introsort, or by the merge sort when ``stable``; ``stop`` is a stop flag.
    """
    cdef Py_ssize_t i, n = scores.shape[0]
    cdef const uint8_t* flag = flag_of(stop)
    cdef Item* items = <Item*> malloc(max(n, 1) * sizeof(Item))
    cdef Item* tmp = <Item*> malloc(max(n, 1) * sizeof(Item))
    out = np.empty(n, dtype=np.int64)
    cdef int64_t[::1] out_view = out
    try:
        if items == NULL or tmp == NULL:
            raise MemoryError()
        for i in range(n):
            items[i].score = scores[i]
            items[i].label = labels[i]
            items[i].key = keys[i]
        with nogil:
            if stable:
                merge_sort_items(items, tmp, n, rank_before, &label_order, flag)
            else:
                sort_items(items, n, label_order, flag)
        for i in range(n):
            out_view[i] = items[i].key
    finally:
        free(items)
        free(tmp)
    return out
