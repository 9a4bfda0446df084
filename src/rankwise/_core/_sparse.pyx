"""A dense (users x items) score matrix and sparse labels gathered into evaluate's CSR lists.

Row u's list is its items but the excluded ones (``exclude=``), in column order: their
scores copied run by run between excluded columns, their labels zero but where the sparse
labels store one, and, for ties="trec", their tie keys. Python sizes every output from the
data (row u's list is n_items minus its excluded count long) and checks that no stored
label is excluded; the rows are independent, so threads take them in chunks.
"""
from libc.stdint cimport int64_t, uint8_t
from libc.string cimport memcpy, memset

from ._stop cimport flag_of, stopped
from ._typedefs cimport score_t

ctypedef fused out_label_t:
    # Labels that are small integers travel as bytes; any other as float64.
    uint8_t
    double


cdef struct Sparse:
    # One row of a canonical CSR matrix: sorted, unique columns (and their values).
    const int64_t* indices
    const double* data
    Py_ssize_t n


cdef Py_ssize_t copy_runs(const score_t* s, const int64_t* keys, Py_ssize_t n_items, Sparse excluded,
                          score_t* out_scores, int64_t* out_keys) noexcept nogil:
    # The row's scores (and keys) but the excluded ones; how many.
    cdef Py_ssize_t e, start = 0, stop, o = 0
    for e in range(excluded.n + 1):
        stop = excluded.indices[e] if e < excluded.n else n_items
        if stop > start:
            memcpy(out_scores + o, s + start, (stop - start) * sizeof(score_t))
            if out_keys != NULL:
                memcpy(out_keys + o, keys + start, (stop - start) * sizeof(int64_t))
            o += stop - start
        start = stop + 1
    return o


cdef void place_labels(Sparse labels, Sparse excluded, out_label_t* out, Py_ssize_t n) noexcept nogil:
    # Zero labels, then each stored one at its column less the excluded columns before it.
    cdef Py_ssize_t t, e = 0, column
    memset(out, 0, n * sizeof(out_label_t))
    for t in range(labels.n):
        column = labels.indices[t]
        while e < excluded.n and excluded.indices[e] < column:
            e += 1
        # Python refuses an excluded label; the test keeps the writes within the row anyway.
        if e < excluded.n and excluded.indices[e] == column:
            continue
        out[column - e] = <out_label_t>labels.data[t]


def gather_rows(const score_t[:, :] scores, tuple labels, tuple excluded, tuple keys, Py_ssize_t q_start,
                Py_ssize_t q_stop, const int64_t[::1] offsets, score_t[::1] out_scores,
                out_label_t[::1] out_labels, int64_t[::1] out_keys, const uint8_t[::1] stop=None):
    """Rows ``q_start:q_stop``: row u's list into ``out_*[offsets[u]:offsets[u + 1]]``.

    ``labels``: (indptr, indices, data) of a canonical CSR (int64, int64, float64);
    ``excluded``: (indptr, indices), or two empty arrays for none; ``keys``: (tie keys
    int64, stride): item j of row u has key ``keys[u * stride + j]`` (stride 0: one row of
    keys for all), ignored when ``out_keys`` is empty. Rows of ``scores`` must be
    contiguous. Returns early once ``stop`` is set, the outputs partly written.
    """
    cdef const int64_t[::1] label_indptr = labels[0]
    cdef const int64_t[::1] label_indices = labels[1]
    cdef const double[::1] label_data = labels[2]
    cdef const int64_t[::1] excluded_indptr = excluded[0]
    cdef const int64_t[::1] excluded_indices = excluded[1]
    cdef const int64_t[::1] key_values = keys[0]
    cdef Py_ssize_t stride = keys[1], n_items = scores.shape[1], u, o, n
    cdef bint with_keys = out_keys.shape[0] > 0, masked = excluded_indptr.shape[0] > 0
    cdef const uint8_t* flag = flag_of(stop)
    cdef Sparse row_labels, row_excluded
    row_excluded.indices, row_excluded.data, row_excluded.n = NULL, NULL, 0
    row_labels.indices, row_labels.data, row_labels.n = NULL, NULL, 0
    # Pointers are taken only into rows that hold something: an empty array has no element 0.
    with nogil:
        for u in range(q_start, q_stop):
            if stopped(flag):
                break
            o = offsets[u]
            if offsets[u + 1] == o:
                continue
            if masked:
                row_excluded.n = excluded_indptr[u + 1] - excluded_indptr[u]
                if row_excluded.n > 0:
                    row_excluded.indices = &excluded_indices[excluded_indptr[u]]
            row_labels.n = label_indptr[u + 1] - label_indptr[u]
            if row_labels.n > 0:
                row_labels.indices = &label_indices[label_indptr[u]]
                row_labels.data = &label_data[label_indptr[u]]
            n = copy_runs(&scores[u, 0], &key_values[u * stride] if with_keys else NULL, n_items,
                          row_excluded, &out_scores[o], &out_keys[o] if with_keys else NULL)
            place_labels(row_labels, row_excluded, &out_labels[o], n)
