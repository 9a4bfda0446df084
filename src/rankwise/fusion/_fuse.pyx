# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The fusion kernel: every query's runs normalised, combined by document, ranked.

Rows come grouped by query, and within a query by run (a segment per run). Each segment
is ranked (score descending, then the documents' tie keys ascending), cut at the depth,
normalised, and turned into one contribution per document: its normalised score, or
1 / (k + rank) for RRF. The contributions of a query are then sorted by document (and by
value within one), each document's combined by the method, and the fused list is ranked
as a segment is. Work arrays are sized by the longest query, never by a user's number.
"""
from libc.math cimport sqrt
from libc.stdint cimport int32_t, int64_t, uint8_t
from libc.stdlib cimport free, malloc

from rankwise._core._sort cimport Item, merge_sort, sort_items
from rankwise._core._stop cimport flag_of, stopped

cdef enum:
    # Methods (fusion/fuse.py names them).
    SUM = 0
    MNZ = 1
    MAX = 2
    MIN = 3
    MED = 4
    RRF = 5

cdef enum:
    # Normalisations.
    NONE = 0
    MIN_MAX = 1
    Z_SCORE = 2
    SUM_NORM = 3
    MAX_NORM = 4

# ranx's floor under every normalisation's denominator (a constant list gives 0s, not NaN).
cdef double FLOOR = 1e-9


cdef struct Options:
    int method
    int norm
    double k
    int64_t depth              # 0: every document of each run
    const double* weights      # one per run
    const int64_t* keys        # tie key of each document code: the lower ranks first


cdef struct Work:
    Item* items
    Item* tmp


cdef inline double normalised(double s, int norm, double low, double high, double total, double mean,
                              double spread, Py_ssize_t n) noexcept nogil:
    if norm == MIN_MAX:
        return (s - low) / max(high - low, FLOOR)
    if norm == Z_SCORE:
        return (s - mean) / max(spread, FLOOR)
    if norm == SUM_NORM:
        return (s - low) / max(total - low * n, FLOOR)
    if norm == MAX_NORM:
        return s / max(high, FLOOR)
    return s


cdef Py_ssize_t contribute(const Options* o, Item* ranked, Py_ssize_t n, double weight, Item* out) noexcept nogil:
    # One run's ranked list of a query (``n`` items, doc code in ``label``) as contributions:
    # value in ``score``, the run's weight in ``label``, the document code in ``key``.
    cdef Py_ssize_t r, kept = n if o.depth == 0 or o.depth >= n else <Py_ssize_t>o.depth
    cdef double low = ranked[kept - 1].score, high = ranked[0].score, total = 0.0, mean, spread = 0.0
    for r in range(kept):
        total += ranked[r].score
    mean = total / kept
    if o.norm == Z_SCORE:
        for r in range(kept):
            spread += (ranked[r].score - mean) * (ranked[r].score - mean)
        spread = sqrt(spread / kept)
    for r in range(kept):
        out[r].key = <int64_t>ranked[r].label
        out[r].label = weight
        if o.method == RRF:
            out[r].score = 1.0 / (o.k + <double>(r + 1))
        else:
            out[r].score = normalised(ranked[r].score, o.norm, low, high, total, mean, spread, kept)
    return kept


cdef bint by_document(const void* order, const Item* a, const Item* b) noexcept nogil:
    return a.key < b.key or (a.key == b.key and a.score < b.score)


cdef double combined(const Options* o, const Item* group, Py_ssize_t c) noexcept nogil:
    # One document's contributions, sorted by value.
    cdef Py_ssize_t j
    cdef double total = 0.0, weights = 0.0
    if o.method == MAX:
        return group[c - 1].score
    if o.method == MIN:
        return group[0].score
    if o.method == MED:
        return group[c // 2].score if c % 2 else (group[c // 2 - 1].score + group[c // 2].score) / 2
    for j in range(c):
        if o.method == MNZ:
            total += group[j].score
            weights += group[j].label
        else:
            total += group[j].label * group[j].score
    return total * weights if o.method == MNZ else total


cdef Py_ssize_t fuse_query(const Options* o, Work* w, const int64_t* seg_ptr, const int32_t* seg_run,
                           Py_ssize_t s_start, Py_ssize_t s_stop, const int64_t* docs, const double* scores,
                           int64_t* out_doc, double* out_score, const uint8_t* stop) noexcept nogil:
    cdef Py_ssize_t s, i, u, n, m = 0, t = 0, start
    cdef Item* seg
    for s in range(s_start, s_stop):
        u, n = seg_ptr[s], seg_ptr[s + 1] - seg_ptr[s]
        seg = w.tmp + m
        for i in range(n):
            seg[i].score = scores[u + i]
            seg[i].label = <double>docs[u + i]
            seg[i].key = o.keys[docs[u + i]]
        sort_items(seg, n, 0, stop)
        m += contribute(o, seg, n, o.weights[seg_run[s]], w.items + m)
    merge_sort(w.items, w.tmp, m, by_document, NULL, stop)
    start = 0
    while start < m:
        i = start + 1
        while i < m and w.items[i].key == w.items[start].key:
            i += 1
        w.tmp[t].score = combined(o, w.items + start, i - start)
        w.tmp[t].label = <double>w.items[start].key
        w.tmp[t].key = o.keys[w.items[start].key]
        t += 1
        start = i
    sort_items(w.tmp, t, 0, stop)
    for i in range(t):
        out_doc[i] = <int64_t>w.tmp[i].label
        out_score[i] = w.tmp[i].score
    return t


def fuse_range(tuple layout, const int64_t[::1] docs, const double[::1] scores, tuple options,
               Py_ssize_t q_start, Py_ssize_t q_stop, tuple out, const uint8_t[::1] stop=None):
    """Fuse queries ``q_start:q_stop``.

    ``layout`` is ``(q_seg, seg_ptr, seg_run)``: query ``q``'s segments are
    ``q_seg[q]:q_seg[q + 1]``, segment ``s`` is rows ``seg_ptr[s]:seg_ptr[s + 1]`` of run
    ``seg_run[s]`` (a run's documents once each; document codes ``docs`` below 2**53).
    ``options`` is ``(method, norm, k, depth, weights, keys)``: the codes of this module's
    enums, RRF's k, the depth per run (0: all), a weight per run and a tie key per
    document code. ``out`` is ``(out_doc, out_score, n_out)``: query ``q`` writes its
    ``n_out[q]`` fused documents, best first, from row ``seg_ptr[q_seg[q]]``.
    """
    cdef const int64_t[::1] q_seg, seg_ptr, keys
    cdef const int32_t[::1] seg_run
    cdef const double[::1] weights
    cdef int64_t[::1] out_doc, n_out
    cdef double[::1] out_score
    cdef Options o
    cdef Work w
    cdef Py_ssize_t q, longest = 1, base
    cdef const uint8_t* flag = flag_of(stop)
    q_seg, seg_ptr, seg_run = layout
    o.method, o.norm, o.k, o.depth, weights, keys = options
    out_doc, out_score, n_out = out
    o.weights = &weights[0] if weights.shape[0] else NULL
    o.keys = &keys[0] if keys.shape[0] else NULL
    for q in range(q_start, q_stop):
        longest = max(longest, seg_ptr[q_seg[q + 1]] - seg_ptr[q_seg[q]])
    w.items = <Item*>malloc(longest * sizeof(Item))
    w.tmp = <Item*>malloc(longest * sizeof(Item))
    if w.items == NULL or w.tmp == NULL:
        free(w.items)
        free(w.tmp)
        raise MemoryError()
    with nogil:
        for q in range(q_start, q_stop):
            if stopped(flag):
                break
            base = seg_ptr[q_seg[q]]
            n_out[q] = fuse_query(&o, &w, &seg_ptr[0], &seg_run[0], q_seg[q], q_seg[q + 1], &docs[0],
                                  &scores[0], &out_doc[base], &out_score[base], flag)
    free(w.items)
    free(w.tmp)
