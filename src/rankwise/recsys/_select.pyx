"""The k highest scores of each row of a (users x items) matrix, in one streaming read.

Per row, a min-heap of the k best items so far lives in the row of the output itself (item
ids; their scores are read back from the row), its root the worst of them, whose score is
the threshold. Items are read in column order, so an item tying with the root comes after
it and is worse (ties go to the lower item id, as a stable sort by descending score):
only a score above the threshold enters. Blocks of BLOCK scores are first tested for such
a score with one branch-free, vectorised comparison; once the heap is full almost every
block is skipped, and the pass costs about a read of the row. A row's excluded items (its
sorted CSR columns) split it into segments read the same way. Finally the heap is sorted
in place (heapsort: no memory beyond the output) and short rows are padded with -1.
"""
from libc.math cimport NAN
from libc.stdint cimport int64_t, uint8_t

from rankwise._core._sort cimport ranks_above, same_rank
from rankwise._core._stop cimport POLL, flag_of, stopped
from rankwise._core._typedefs cimport score_t

cdef enum:
    # Scores tested at once for one that may enter the heap: a few vector registers.
    BLOCK = 64
    # What a row reports (Row.problem).
    FINE = 0
    NAN_FOUND = 1
    TIE_CUT = 2


cdef struct Options:
    Py_ssize_t k
    bint nan_last       # else a NaN is reported (nan="raise")
    bint watch_ties     # ties="raise": keep the best score left out, to compare with the k-th


cdef struct Row:
    Py_ssize_t count            # items in the heap
    double left_best            # the best score left out (evicted or refused) so far
    bint left_any
    int problem
    Py_ssize_t problem_column


cdef inline bint worse(double sa, int64_t a, double sb, int64_t b) noexcept nogil:
    # The heap's order: lower score, or equal and higher item id, is worse; NaN lowest.
    if same_rank(sa, sb):
        return a > b
    return ranks_above(sb, sa)


cdef void sift_down(const score_t* s, int64_t* heap, Py_ssize_t n, Py_ssize_t i) noexcept nogil:
    cdef Py_ssize_t child
    cdef int64_t top = heap[i]
    while True:
        child = 2 * i + 1
        if child >= n:
            break
        if child + 1 < n and worse(s[heap[child + 1]], heap[child + 1], s[heap[child]], heap[child]):
            child += 1
        if not worse(s[heap[child]], heap[child], s[top], top):
            break
        heap[i] = heap[child]
        i = child
    heap[i] = top


cdef void sift_up(const score_t* s, int64_t* heap, Py_ssize_t i) noexcept nogil:
    cdef Py_ssize_t parent
    cdef int64_t item = heap[i]
    while i > 0:
        parent = (i - 1) >> 1
        if not worse(s[item], item, s[heap[parent]], heap[parent]):
            break
        heap[i] = heap[parent]
        i = parent
    heap[i] = item


cdef inline void leave_out(Row* row, double score) noexcept nogil:
    if not row.left_any or ranks_above(score, row.left_best):
        row.left_best = score
        row.left_any = True


cdef bint offer(const score_t* s, int64_t* heap, Py_ssize_t j, const Options* opt, Row* row) noexcept nogil:
    # Item j, after every item of the row before it; False when it ends the row (a NaN reported).
    cdef double x = s[j]
    if x != x and not opt.nan_last:
        row.problem, row.problem_column = NAN_FOUND, j
        return False
    if row.count < opt.k:
        heap[row.count] = j
        sift_up(s, heap, row.count)
        row.count += 1
    elif ranks_above(x, s[heap[0]]):
        if opt.watch_ties:
            leave_out(row, s[heap[0]])
        heap[0] = j
        sift_down(s, heap, opt.k, 0)
    elif opt.watch_ties:
        leave_out(row, x)
    return True


cdef inline bint maybe_in(const score_t* s, Py_ssize_t n, score_t threshold, bint or_equal) noexcept nogil:
    # Whether one of n scores is above the threshold (or equal, or NaN): one pass the
    # compiler vectorises; NaN fails every comparison, so it is found too.
    cdef Py_ssize_t j
    cdef int hit = 0
    if or_equal:
        for j in range(n):
            hit |= not (s[j] < threshold)
    else:
        for j in range(n):
            hit |= not (s[j] <= threshold)
    return hit != 0


cdef bint scan(const score_t* s, int64_t* heap, Py_ssize_t start, Py_ssize_t stop,
               const Options* opt, Row* row) noexcept nogil:
    # Items start:stop of the row; False when a NaN ended it.
    cdef Py_ssize_t j = start, end, i
    cdef score_t root
    while j < stop:
        end = min(j + BLOCK, stop)
        # Until the heap is full, or while its root is NaN (nan="last", fewer than k numbers
        # so far: any number beats it), every item goes through offer.
        if row.count < opt.k or s[heap[0]] != s[heap[0]]:
            for i in range(j, end):
                if not offer(s, heap, i, opt, row):
                    return False
        elif maybe_in(s + j, end - j, s[heap[0]], opt.watch_ties):
            root = s[heap[0]]
            for i in range(j, end):
                if not (s[i] < root) and (opt.watch_ties or not (s[i] == root)):
                    if not offer(s, heap, i, opt, row):
                        return False
                    root = s[heap[0]]
        j = end
    return True


cdef void finish(const score_t* s, int64_t* out, score_t* out_scores, Py_ssize_t width,
                 const Options* opt, Row* row) noexcept nogil:
    # Sorts the heap best first (each step moves the root, the worst, behind the heap), pads.
    cdef Py_ssize_t n = row.count, i
    cdef int64_t worst
    if opt.watch_ties and n == opt.k and row.left_any and same_rank(row.left_best, s[out[0]]):
        row.problem, row.problem_column = TIE_CUT, out[0]
    while n > 1:
        n -= 1
        worst = out[0]
        out[0] = out[n]
        out[n] = worst
        sift_down(s, out, n, 0)
    for i in range(row.count, width):
        out[i] = -1
    if out_scores != NULL:
        for i in range(width):
            out_scores[i] = s[out[i]] if i < row.count else <score_t>NAN


cdef bint select_row(const score_t* s, Py_ssize_t n_items, const int64_t* excluded, Py_ssize_t n_excluded,
                     int64_t* out, score_t* out_scores, const Options* opt, Row* row,
                     const uint8_t* flag) noexcept nogil:
    # One row: the segments between its excluded items, read in column order. False when
    # stopped or a NaN ended it.
    cdef Py_ssize_t start = 0, e, stop
    row.count, row.left_any, row.left_best, row.problem = 0, False, 0.0, FINE
    for e in range(n_excluded + 1):
        stop = excluded[e] if e < n_excluded else n_items
        while start < stop:
            if not scan(s, out, start, min(start + POLL, stop), opt, row):
                return False
            start = min(start + POLL, stop)
            if start < stop and stopped(flag):
                return False
        start = stop + 1
    finish(s, out, out_scores, opt.k, opt, row)
    return True


def select_rows(const score_t[:, :] scores, tuple excluded, tuple options, Py_ssize_t q_start,
                Py_ssize_t q_stop, int64_t[:, ::1] out, score_t[:, ::1] out_scores,
                const uint8_t[::1] stop=None):
    """Rows ``q_start:q_stop`` of ``scores``: their k best item ids into ``out`` (k = its width).

    ``excluded``: (indptr, indices) of the items each row leaves out, int64 CSR with sorted
    unique columns (indptr empty: none). ``options``: (nan_last, watch_ties). ``out_scores``
    of shape (0, 0), or ``out``'s, for the scores. Rows must be contiguous (inner stride
    one element). Returns None, or (row, column, kind) of the first row whose selection
    raised a problem (kind 1: a NaN at column, nan_last off; 2: the k-th item, column,
    ties with one left out, watch_ties on); the rows after it are left undone. Once ``stop`` is
    set, returns early, rows unfinished.
    """
    cdef const int64_t[::1] indptr = excluded[0]
    cdef const int64_t[::1] indices = excluded[1]
    cdef Options opt
    cdef Row row
    cdef Py_ssize_t q, n_items = scores.shape[1], begin = 0, n_out = 0
    cdef bint masked = indptr.shape[0] > 0, with_scores = out_scores.shape[0] > 0
    cdef const uint8_t* flag = flag_of(stop)
    cdef const int64_t* none = NULL
    opt.k, opt.nan_last, opt.watch_ties = out.shape[1], options[0], options[1]
    row.problem = FINE
    if opt.k == 0:
        return None
    with nogil:
        for q in range(q_start, q_stop):
            if stopped(flag):
                break
            if masked:
                begin, n_out = indptr[q], indptr[q + 1] - indptr[q]
            if not select_row(&scores[q, 0], n_items, &indices[begin] if n_out > 0 else none, n_out,
                              &out[q, 0], &out_scores[q, 0] if with_scores else NULL, &opt, &row, flag):
                break
            if row.problem != FINE:
                break
    if row.problem == FINE:
        return None
    return q, row.problem_column, row.problem
