"""Integer query and document ids: grouping rows by query, duplicates, decimal byte order.

Integer ids never become strings: trec_eval's comparisons of the ids' text are done on
the integers (``_ids.pxd``), and a per-query hash set finds repeated documents.
"""
import numpy as np

from libc.stdint cimport int8_t, int64_t, uint8_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memset

from ._ids cimport decimal_parts, id_slot, table_bits
from ._stop cimport POLL, flag_of, stopped, was_stopped

# Slots per document of the repeated-document check: a quarter full at most, so most
# inserts find their first slot free.
cdef int SLOTS_PER_DOC = 4


def run_starts(const int64_t[::1] ids, const uint8_t[::1] stop=None):
    """Rows where ``ids`` changes value (row 0 included): the starts of its runs.

    None once ``stop`` (the call's stop flag, ``_stop.pxd``) is set.
    """
    cdef Py_ssize_t i, n = ids.shape[0], m = 0, block
    cdef const uint8_t* flag = flag_of(stop)
    out = np.empty(n, dtype=np.int64)
    cdef int64_t[::1] starts = out
    with nogil:
        if n > 0:
            starts[0] = 0
            m = 1
        block = 1
        while block < n:
            if stopped(flag):
                break
            for i in range(block, min(block + POLL, n)):
                if ids[i] != ids[i - 1]:
                    starts[m] = i
                    m += 1
            block += POLL
    return None if was_stopped(flag) else out[:m].copy()


def first_duplicate_grouped(const int64_t[::1] docs, const int64_t[::1] indptr, Py_ssize_t g_start,
                            Py_ssize_t g_stop, const uint8_t[::1] stop=None):
    """Rows ``(a, b)``, ``a < b``, of one group holding the same id, or ``(-1, -1)``.

    Group ``g`` (``g_start <= g < g_stop``) is rows ``indptr[g]:indptr[g+1]``; the
    first repeat in row order is reported, with the row it repeats. Once ``stop`` (the
    call's stop flag, ``_stop.pxd``) is set, it returns early with an arbitrary answer.
    """
    cdef const uint8_t* flag = flag_of(stop)
    cdef Py_ssize_t g, i, longest = 0, block
    cdef size_t j, n_slots
    cdef int64_t first_a = -1, first_b = -1, row
    cdef int bits
    cdef uint64_t mask, h
    cdef int64_t* slots
    for g in range(g_start, g_stop):
        longest = max(longest, indptr[g + 1] - indptr[g])
    bits = table_bits(longest, SLOTS_PER_DOC)
    n_slots = <size_t>1 << bits
    # A slot holds a row number; one below the group's first row is empty, so the table
    # is never cleared between groups.
    slots = <int64_t*>malloc(n_slots * sizeof(int64_t))
    if slots == NULL:
        raise MemoryError()
    with nogil:
        # In blocks: a table for one huge group takes a good part of a second to clear.
        j = 0
        while j < n_slots and not stopped(flag):
            memset(slots + j, 0xFF, min(<size_t>POLL, n_slots - j) * sizeof(int64_t))
            j += POLL
        for g in range(g_start, g_stop):
            if stopped(flag):
                break
            bits = table_bits(indptr[g + 1] - indptr[g], SLOTS_PER_DOC)
            mask = (<uint64_t>1 << bits) - 1
            block = indptr[g]
            while block < indptr[g + 1]:
                if stopped(flag) or first_b >= 0:
                    break
                for i in range(block, min(block + POLL, indptr[g + 1])):
                    h = id_slot(docs[i], bits)
                    row = slots[h]
                    while row >= indptr[g] and docs[row] != docs[i]:
                        h = (h + 1) & mask
                        row = slots[h]
                    if row >= indptr[g]:
                        first_a, first_b = row, i
                        break
                    slots[h] = i
                block += POLL
            if first_b >= 0:
                break
    free(slots)
    return first_a, first_b


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
