"""Integer query and document ids in trec_eval's order: the byte order of their decimal text.

Integer ids never become strings: trec_eval's comparisons of the ids' text are done on
the integers (``_ids.pxd``); grouping rows by query id is ``_core/_group``'s, and
repeated documents are ``_core/_duplicates``'s to find.
"""
import numpy as np

from libc.stdint cimport int8_t, int64_t, uint64_t

from ._ids cimport decimal_parts


def decimal_keys(const int64_t[::1] ids):
    """Keys whose lexicographic order (``np.lexsort`` of length, digits, sign) is byte order.

    Returns ``(sign, digits, length)``: 0 for negative ids, 1 otherwise ('-' sorts
    before digits); the digits of ``|id|`` as a 19-digit number; the digit count.
    """
    cdef Py_ssize_t i, n = ids.shape[0]
    cdef uint64_t scaled
    cdef int length
    sign = np.empty(n, dtype=np.int8)
    digits = np.empty(n, dtype=np.uint64)
    lengths = np.empty(n, dtype=np.int8)
    cdef int8_t[::1] s = sign, ln = lengths
    cdef uint64_t[::1] d = digits
    with nogil:
        for i in range(n):
            decimal_parts(ids[i], &scaled, &length)
            s[i] = ids[i] >= 0
            d[i] = scaled
            ln[i] = <int8_t>length
    return sign, digits, lengths
