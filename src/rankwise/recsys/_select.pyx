"""The k highest scores of each row of a (users x items) matrix, without sorting the row.

A row is cut into pieces of PIECE items (a shorter remainder joins the piece before it).
The first pass reads the row once, vectorised, for each piece's highest score: AVX2 where the CPU has
it (chosen at import: the wheels are built for every x86-64), else SSE2, else scalar (gcc
vectorises no float max without -ffast-math). The k-th highest of these maxima, ``floor``
(a quickselect without data branches), is at most the k-th best score of the row (k pieces
hold an item at least that high), so only items >= floor can be returned or tie with the
k-th: only the pieces whose maximum reaches it are read again (still in cache), their items
>= floor gathered in column order with a key ordering scores descending, and radix-sorted
(stable: lower ids first among equal scores); the first k are the answer, and the k-th
ties with an item left out exactly when it ties with the next. Excluded items (sorted CSR
columns) are skipped there; the floor becomes the (k + e)-th maximum once at most e
excluded items reach it (``excluded_floor``). A row holding NaN, or with too few pieces
for that, is cut again, between its excluded items (segments), so that no piece holds one.
A row with fewer than k pieces, or holding NaN under nan="last", goes through a min-heap of the k best so far
instead (its root the worst of them; items arrive in column order, so one tying with the
root comes after it and is worse): every item while it is not full, then the pieces whose
maximum reaches its root; the heap is then merge-sorted and a short row padded with -1.
"""
from libc.math cimport INFINITY, NAN
from libc.stdint cimport int64_t, uint8_t, uint32_t, uint64_t
from libc.string cimport memcpy

from rankwise._core._sort cimport Item, Keyed, merge_sort, radix_sort, ranks_above, same_rank
from rankwise._core._stop cimport POLL, flag_of, stopped
from rankwise._core._typedefs cimport score_t

cdef extern from *:
    """
    #include <math.h>
    #include <stdint.h>
    #define RANKWISE_PIECE 64
    #if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    #define RW_GNU_X86 1
    #include <immintrin.h>
    #endif
    #if defined(__SSE2__) || defined(_M_X64) || (defined(_M_IX86_FP) && _M_IX86_FP >= 2)
    #define RW_SSE2 1
    #include <emmintrin.h>
    #endif

    /* The highest of n >= 1 scores, NaN when one of them is NaN. */
    #define RW_MAX_SCALAR(NAME, T) \
    static double NAME(const T* s, int64_t n) { \
        T r = -INFINITY; int64_t j; int bad = 0; \
        for (j = 0; j < n; j++) { r = s[j] > r ? s[j] : r; bad |= s[j] != s[j]; } \
        return bad ? NAN : (double)r; \
    }
    /* The same with W lanes: two running maxima, n >= W read as windows of W, the last
       overlapping the one before it. max(a, m) returns m when a is NaN, so the maxima skip
       NaN; an unordered compare of two windows notes a NaN in either. */
    #define RW_MAX_VEC(NAME, ATTR, T, V, W, LOAD, MAX, UNORD, OR, MASK, REDUCE, SMALL) \
    ATTR static double NAME(const T* s, int64_t n) { \
        V m0, m1, bad, a, b; int64_t j = 0; \
        if (n < W) return SMALL(s, n); \
        m0 = m1 = LOAD(s); bad = UNORD(m0, m0); \
        for (; j + 2 * W <= n; j += 2 * W) { \
            a = LOAD(s + j); b = LOAD(s + j + W); \
            m0 = MAX(a, m0); m1 = MAX(b, m1); bad = OR(bad, UNORD(a, b)); \
        } \
        if (j < n) { \
            a = LOAD(s + (j + W <= n ? j : n - W)); b = LOAD(s + n - W); \
            m0 = MAX(a, m0); m1 = MAX(b, m1); bad = OR(bad, UNORD(a, b)); \
        } \
        return MASK(bad) ? NAN : REDUCE(MAX(m0, m1)); \
    }
    /* The offsets of the n scores at least t (above t when strict), ascending, into hits;
       how many. */
    #define RW_AT_LEAST_SCALAR(NAME, T) \
    static int NAME(const T* s, int n, T t, int strict, int* hits) { \
        int j, h = 0; \
        for (j = 0; j < n; j++) \
            if (strict ? s[j] > t : s[j] >= t) hits[h++] = j; \
        return h; \
    }
    /* Two windows of W compared at once (a piece holds few such scores), the rest as one
       window and one overlapping the end; only a piece shorter than W is read one by one. */
    #ifdef RW_GNU_X86
    #define RW_EMIT(mask, j) \
        for (; mask; mask &= mask - 1) hits[h++] = j + __builtin_ctz(mask);
    #else
    #define RW_EMIT(mask, j) \
        { int l; for (l = 0; mask; l++, mask >>= 1) if (mask & 1) hits[h++] = j + l; }
    #endif
    #define RW_AT_LEAST_VEC(NAME, ATTR, T, V, W, LOAD, SET1, GT, GE, MASK) \
    ATTR static int NAME(const T* s, int n, T t, int strict, int* hits) { \
        V tv = SET1(t), a, b; int j = 0, h = 0, mask; \
        for (; j + 2 * W <= n; j += 2 * W) { \
            a = LOAD(s + j); b = LOAD(s + j + W); \
            mask = strict ? MASK(GT(a, tv)) | (MASK(GT(b, tv)) << W) \
                          : MASK(GE(a, tv)) | (MASK(GE(b, tv)) << W); \
            RW_EMIT(mask, j); \
        } \
        if (j + W <= n) { \
            a = LOAD(s + j); \
            mask = strict ? MASK(GT(a, tv)) : MASK(GE(a, tv)); \
            RW_EMIT(mask, j); \
            j += W; \
        } \
        if (j < n && n >= W) { \
            /* The last W scores, less those already compared. */ \
            a = LOAD(s + n - W); \
            mask = (strict ? MASK(GT(a, tv)) : MASK(GE(a, tv))) >> (j - (n - W)); \
            RW_EMIT(mask, j); \
            j = n; \
        } \
        for (; j < n; j++) \
            if (strict ? s[j] > t : s[j] >= t) hits[h++] = j; \
        return h; \
    }
    /* Items start:stop (no excluded one among them) as pieces after the m found: their
       maxima and bounds; the new count of pieces. A run shorter than 2 * PIECE is one
       piece; a longer one is cut every PIECE items, the remainder joining the last piece. */
    #define RW_CUT(NAME, ATTR, T, MAXFN) \
    ATTR static int64_t NAME(const T* s, int64_t start, int64_t stop, int64_t m, \
                             double* maxima, int64_t* bounds) { \
        int64_t end; \
        while (start < stop) { \
            end = stop - start < 2 * RANKWISE_PIECE ? stop : start + RANKWISE_PIECE; \
            maxima[m] = MAXFN(s + start, end - start); \
            bounds[2 * m] = start; bounds[2 * m + 1] = end; \
            m++; start = end; \
        } \
        return m; \
    }

    RW_MAX_SCALAR(rw_max_f32_plain, float)
    RW_MAX_SCALAR(rw_max_f64_plain, double)

    #ifdef RW_SSE2
    static double rw_reduce_f32_sse2(__m128 m) {
        m = _mm_max_ps(m, _mm_movehl_ps(m, m));
        return _mm_cvtss_f32(_mm_max_ss(m, _mm_shuffle_ps(m, m, 1)));
    }
    static double rw_reduce_f64_sse2(__m128d m) {
        return _mm_cvtsd_f64(_mm_max_sd(m, _mm_unpackhi_pd(m, m)));
    }
    RW_MAX_VEC(rw_max_f32_sse2, , float, __m128, 4, _mm_loadu_ps, _mm_max_ps, _mm_cmpunord_ps, _mm_or_ps,
               _mm_movemask_ps, rw_reduce_f32_sse2, rw_max_f32_plain)
    RW_MAX_VEC(rw_max_f64_sse2, , double, __m128d, 2, _mm_loadu_pd, _mm_max_pd, _mm_cmpunord_pd, _mm_or_pd,
               _mm_movemask_pd, rw_reduce_f64_sse2, rw_max_f64_plain)
    RW_AT_LEAST_VEC(rw_at_least_f32_sse2, , float, __m128, 4, _mm_loadu_ps, _mm_set1_ps, _mm_cmpgt_ps,
                    _mm_cmpge_ps, _mm_movemask_ps)
    RW_AT_LEAST_VEC(rw_at_least_f64_sse2, , double, __m128d, 2, _mm_loadu_pd, _mm_set1_pd, _mm_cmpgt_pd,
                    _mm_cmpge_pd, _mm_movemask_pd)
    #define RW_BASE_MAX_F32 rw_max_f32_sse2
    #define RW_BASE_MAX_F64 rw_max_f64_sse2
    #define RW_BASE_AT_LEAST_F32 rw_at_least_f32_sse2
    #define RW_BASE_AT_LEAST_F64 rw_at_least_f64_sse2
    #else
    RW_AT_LEAST_SCALAR(rw_at_least_f32_plain, float)
    RW_AT_LEAST_SCALAR(rw_at_least_f64_plain, double)
    #define RW_BASE_MAX_F32 rw_max_f32_plain
    #define RW_BASE_MAX_F64 rw_max_f64_plain
    #define RW_BASE_AT_LEAST_F32 rw_at_least_f32_plain
    #define RW_BASE_AT_LEAST_F64 rw_at_least_f64_plain
    #endif
    RW_CUT(rw_cut_f32_base, , float, RW_BASE_MAX_F32)
    RW_CUT(rw_cut_f64_base, , double, RW_BASE_MAX_F64)

    #ifdef RW_GNU_X86
    /* AVX2 versions, compiled for that target alone and chosen at run time: the wheels are
       built for every x86-64, and a row is read at the speed of memory only with 256 bits. */
    #define RW_AVX2 __attribute__((target("avx2")))
    #define RW_GT_PS(a, b) _mm256_cmp_ps(a, b, _CMP_GT_OQ)
    #define RW_GE_PS(a, b) _mm256_cmp_ps(a, b, _CMP_GE_OQ)
    #define RW_UNORD_PS(a, b) _mm256_cmp_ps(a, b, _CMP_UNORD_Q)
    #define RW_GT_PD(a, b) _mm256_cmp_pd(a, b, _CMP_GT_OQ)
    #define RW_GE_PD(a, b) _mm256_cmp_pd(a, b, _CMP_GE_OQ)
    #define RW_UNORD_PD(a, b) _mm256_cmp_pd(a, b, _CMP_UNORD_Q)
    RW_AVX2 static double rw_reduce_f32_avx2(__m256 m) {
        __m128 h = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
        h = _mm_max_ps(h, _mm_movehl_ps(h, h));
        return _mm_cvtss_f32(_mm_max_ss(h, _mm_shuffle_ps(h, h, 1)));
    }
    RW_AVX2 static double rw_reduce_f64_avx2(__m256d m) {
        __m128d h = _mm_max_pd(_mm256_castpd256_pd128(m), _mm256_extractf128_pd(m, 1));
        return _mm_cvtsd_f64(_mm_max_sd(h, _mm_unpackhi_pd(h, h)));
    }
    RW_MAX_VEC(rw_max_f32_avx2, RW_AVX2, float, __m256, 8, _mm256_loadu_ps, _mm256_max_ps, RW_UNORD_PS,
               _mm256_or_ps, _mm256_movemask_ps, rw_reduce_f32_avx2, rw_max_f32_plain)
    RW_MAX_VEC(rw_max_f64_avx2, RW_AVX2, double, __m256d, 4, _mm256_loadu_pd, _mm256_max_pd, RW_UNORD_PD,
               _mm256_or_pd, _mm256_movemask_pd, rw_reduce_f64_avx2, rw_max_f64_plain)
    RW_AT_LEAST_VEC(rw_at_least_f32_avx2, RW_AVX2, float, __m256, 8, _mm256_loadu_ps, _mm256_set1_ps, RW_GT_PS,
                    RW_GE_PS, _mm256_movemask_ps)
    RW_AT_LEAST_VEC(rw_at_least_f64_avx2, RW_AVX2, double, __m256d, 4, _mm256_loadu_pd, _mm256_set1_pd, RW_GT_PD,
                    RW_GE_PD, _mm256_movemask_pd)
    RW_CUT(rw_cut_f32_avx2, RW_AVX2, float, rw_max_f32_avx2)
    RW_CUT(rw_cut_f64_avx2, RW_AVX2, double, rw_max_f64_avx2)
    #endif

    static int64_t (*rankwise_cut_f32)(const float*, int64_t, int64_t, int64_t, double*, int64_t*) =
        rw_cut_f32_base;
    static int64_t (*rankwise_cut_f64)(const double*, int64_t, int64_t, int64_t, double*, int64_t*) =
        rw_cut_f64_base;
    static int (*rankwise_at_least_f32)(const float*, int, float, int, int*) = RW_BASE_AT_LEAST_F32;
    static int (*rankwise_at_least_f64)(const double*, int, double, int, int*) = RW_BASE_AT_LEAST_F64;

    /* At import: the widest vectors this CPU runs (avx2 = 1), or the base ones (0, for the
       tests of those); whether AVX2 is in use. */
    static int rankwise_select_use(int avx2) {
        rankwise_cut_f32 = rw_cut_f32_base;
        rankwise_cut_f64 = rw_cut_f64_base;
        rankwise_at_least_f32 = RW_BASE_AT_LEAST_F32;
        rankwise_at_least_f64 = RW_BASE_AT_LEAST_F64;
    #ifdef RW_GNU_X86
        __builtin_cpu_init();
        if (avx2 && __builtin_cpu_supports("avx2")) {
            rankwise_cut_f32 = rw_cut_f32_avx2;
            rankwise_cut_f64 = rw_cut_f64_avx2;
            rankwise_at_least_f32 = rw_at_least_f32_avx2;
            rankwise_at_least_f64 = rw_at_least_f64_avx2;
            return 1;
        }
    #endif
        return 0;
    }
    """
    # Items start:stop as pieces after the m found (maxima: NaN when the piece holds NaN).
    Py_ssize_t cut_f32 "rankwise_cut_f32"(const float* s, Py_ssize_t start, Py_ssize_t stop, Py_ssize_t m,
                                          double* maxima, int64_t* bounds) noexcept nogil
    Py_ssize_t cut_f64 "rankwise_cut_f64"(const double* s, Py_ssize_t start, Py_ssize_t stop, Py_ssize_t m,
                                          double* maxima, int64_t* bounds) noexcept nogil
    int at_least_f32 "rankwise_at_least_f32"(const float* s, int n, float t, int strict, int* hits) noexcept nogil
    int at_least_f64 "rankwise_at_least_f64"(const double* s, int n, double t, int strict,
                                             int* hits) noexcept nogil
    int select_use "rankwise_select_use"(int avx2) noexcept nogil
    enum: PIECE "RANKWISE_PIECE"

select_use(1)

# PIECE (items per piece): the pieces read twice number about k, so their items cost
# k * PIECE steps per row; smaller pieces cost more maxima to select from.
cdef enum:
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


cdef struct Scratch:
    # A chunk's own buffers, sized by the row length (pieces) and k.
    double* maxima      # per piece: its highest score, NaN when it holds NaN
    double* work        # per piece: the maxima, permuted by the selection of the k-th
    int64_t* bounds     # per piece: its first item and one past its last
    # Scores beside their items (Item.key), so that a sift reads one place per level (an
    # index into the row made each level wait for two dependent loads):
    Item* heap          # k: the heap of the best items so far (and the selection's fallback)
    Item* spare         # k: the merge sort's other buffer
    Keyed* found        # 2 * n_items, over heap and spare: a floored row's candidates, and the sort's other buffer


cdef inline bint worse(double sa, int64_t a, double sb, int64_t b) noexcept nogil:
    # The heap's order: lower score, or equal and higher item id, is worse; NaN lowest.
    # Without a branch (same_rank and ranks_above, spelled out with & and |): which child
    # a sift follows is a coin toss on random scores, and mispredicted branches made the
    # heap cost a third of the selection.
    cdef bint nan_a = sa != sa, nan_b = sb != sb
    cdef bint same = (sa == sb) | (nan_a & nan_b)
    return (same & (a > b)) | (~same & ((sb > sa) | (nan_a & ~nan_b)))


cdef void sift_down(Item* heap, Py_ssize_t n, Py_ssize_t i) noexcept nogil:
    cdef Py_ssize_t child
    cdef Item top = heap[i]
    while True:
        child = 2 * i + 1
        if child >= n:
            break
        if child + 1 < n:
            child += worse(heap[child + 1].score, heap[child + 1].key, heap[child].score, heap[child].key)
        if not worse(heap[child].score, heap[child].key, top.score, top.key):
            break
        heap[i] = heap[child]
        i = child
    heap[i] = top


cdef void sift_up(Item* heap, Py_ssize_t i) noexcept nogil:
    cdef Py_ssize_t parent
    cdef Item entry = heap[i]
    while i > 0:
        parent = (i - 1) >> 1
        if not worse(entry.score, entry.key, heap[parent].score, heap[parent].key):
            break
        heap[i] = heap[parent]
        i = parent
    heap[i] = entry


cdef inline void leave_out(Row* row, double score) noexcept nogil:
    if not row.left_any or ranks_above(score, row.left_best):
        row.left_best = score
        row.left_any = True


cdef bint offer(const score_t* s, Item* heap, Py_ssize_t j, const Options* opt, Row* row) noexcept nogil:
    # Item j, after every item of the row before it; False when it ends the row (a NaN reported).
    cdef double x = s[j]
    if x != x and not opt.nan_last:
        row.problem, row.problem_column = NAN_FOUND, j
        return False
    if row.count < opt.k:
        heap[row.count].score, heap[row.count].key = x, j
        sift_up(heap, row.count)
        row.count += 1
    elif ranks_above(x, heap[0].score):
        if opt.watch_ties:
            leave_out(row, heap[0].score)
        heap[0].score, heap[0].key = x, j
        sift_down(heap, opt.k, 0)
    elif opt.watch_ties:
        leave_out(row, x)
    return True


cdef bint ranks_first(const void* unused, const Item* a, const Item* b) noexcept nogil:
    return worse(b.score, b.key, a.score, a.key)


cdef void finish(Scratch* ws, int64_t* out, score_t* out_scores, Py_ssize_t width, const Options* opt,
                 Row* row, const uint8_t* flag) noexcept nogil:
    # The heap sorted best first into the output row, padded. A merge sort: a heapsort's
    # sifts wait at every level for the comparison before, and cost four times as much.
    cdef Py_ssize_t i
    cdef Item* heap = ws.heap
    if opt.watch_ties and row.count == opt.k and row.left_any and same_rank(row.left_best, heap[0].score):
        row.problem, row.problem_column = TIE_CUT, heap[0].key
    merge_sort(heap, ws.spare, row.count, ranks_first, NULL, flag)
    for i in range(width):
        out[i] = heap[i].key if i < row.count else -1
    if out_scores != NULL:
        for i in range(width):
            out_scores[i] = <score_t>heap[i].score if i < row.count else <score_t>NAN


cdef inline Py_ssize_t cut(const score_t* s, Py_ssize_t start, Py_ssize_t stop, Py_ssize_t m,
                           Scratch* ws) noexcept nogil:
    if score_t is float:
        return cut_f32(s, start, stop, m, ws.maxima, ws.bounds)
    else:
        return cut_f64(s, start, stop, m, ws.maxima, ws.bounds)


cdef Py_ssize_t maxima_pass(const score_t* s, Py_ssize_t n_items, const int64_t* excluded,
                            Py_ssize_t n_excluded, Scratch* ws, const uint8_t* flag) noexcept nogil:
    # The pieces of the row (segments between excluded items, cut every PIECE items): how
    # many; -1 once stopped.
    cdef Py_ssize_t e, start = 0, stop, end, m = 0, unpolled = 0
    for e in range(n_excluded + 1):
        stop = excluded[e] if e < n_excluded else n_items
        while start < stop:
            # Pieces never cross a multiple of POLL from the segment's start: where they
            # lie depends on the data alone.
            end = min(start + POLL, stop)
            m = cut(s, start, end, m, ws)
            unpolled += end - start
            start = end
            # Every POLL items, not every segment: a poll may read the clock.
            if unpolled >= POLL:
                unpolled = 0
                if stopped(flag):
                    return -1
        start = stop + 1
    return m


cdef double kth_largest(const double* maxima, Py_ssize_t m, Py_ssize_t k, Scratch* ws) noexcept nogil:
    # The k-th highest of m >= k maxima (no NaN): a quickselect (median of three) whose
    # partition takes no branch on the data (Hoare's mispredicted half of them on random
    # maxima, costing as much as the first pass): each value is written to the front and to
    # the back of the other half of ``work``, and only the end it belongs to advances. When
    # its rounds exceed about twice log2(m) (adversarial orders), a heap of the k highest.
    cdef double* src = ws.work
    cdef double* dst = ws.work + m
    cdef double* spare
    cdef Py_ssize_t n = m, i, above, below, steps = 8
    cdef double pivot, x, y, z
    memcpy(src, maxima, m * sizeof(double))
    while (<size_t>1 << (steps // 2)) <= <size_t>m:
        steps += 2
    while n > 1:
        steps -= 1
        if steps < 0:
            return kth_maximum(maxima, m, k, ws.heap)
        x, y, z = src[0], src[n >> 1], src[n - 1]
        pivot = max(min(x, y), min(max(x, y), z))
        above, below = 0, n - 1
        for i in range(n):
            x = src[i]
            dst[above] = x
            above += x > pivot
            dst[below] = x
            below -= x < pivot
        # dst[:above] > pivot, dst[below + 1:n] < pivot, the pivot's equals between.
        spare = src
        if k <= above:
            src, n = dst, above
        elif k <= below + 1:
            return pivot
        else:
            src, n, k = dst + below + 1, n - 1 - below, k - below - 1
        dst = spare
    return src[0]


cdef double kth_maximum(const double* maxima, Py_ssize_t m, Py_ssize_t k, Item* heap) noexcept nogil:
    # The k-th highest of m >= k maxima: a heap of the k highest, its root the k-th.
    cdef Py_ssize_t p
    for p in range(k):
        heap[p].score, heap[p].key = maxima[p], p
        sift_up(heap, p)
    for p in range(k, m):
        if maxima[p] > heap[0].score:
            heap[0].score, heap[0].key = maxima[p], p
            sift_down(heap, k, 0)
    return heap[0].score


cdef bint first_nan(const score_t* s, const Scratch* ws, Py_ssize_t m, Row* row) noexcept nogil:
    # Reports the row's first NaN (excluded items aside); False, for select_row to return.
    cdef Py_ssize_t p, i
    for p in range(m):
        if ws.maxima[p] != ws.maxima[p]:
            for i in range(ws.bounds[2 * p], ws.bounds[2 * p + 1]):
                if s[i] != s[i]:
                    row.problem, row.problem_column = NAN_FOUND, i
                    return False
    return False


cdef inline int at_least(const score_t* s, Py_ssize_t n, score_t t, bint strict, int* hits) noexcept nogil:
    if score_t is float:
        return at_least_f32(s, <int>n, t, strict, hits)
    else:
        return at_least_f64(s, <int>n, t, strict, hits)


cdef bint offer_hits(const score_t* s, Py_ssize_t start, const int* hits, int n_hits, Item* heap,
                     const Options* opt, Row* row) noexcept nogil:
    # Items start + hits[h] (ascending) through the heap; False when a NaN ended the row.
    cdef int h
    for h in range(n_hits):
        if not offer(s, heap, start + hits[h], opt, row):
            return False
    return True


cdef bint take(const score_t* s, const Scratch* ws, Py_ssize_t m, Item* heap, const Options* opt, Row* row,
               const uint8_t* flag) noexcept nogil:
    # The row's items through the heap: every one (NaN included) while it is not full, then
    # skipping those below its root (or equal, unless ties are watched; NaN never enters a
    # heap whose root is a number). False when stopped or a NaN ended the row.
    cdef Py_ssize_t i, p, start, n
    cdef int hits[2 * PIECE]
    cdef score_t root
    cdef double top
    for p in range(m):
        top = ws.maxima[p]
        if p % (POLL // PIECE) == 0 and p > 0 and stopped(flag):
            return False
        start, n = ws.bounds[2 * p], ws.bounds[2 * p + 1] - ws.bounds[2 * p]
        if row.count < opt.k or heap[0].score != heap[0].score:
            for i in range(start, start + n):
                if not offer(s, heap, i, opt, row):
                    return False
            continue
        root = <score_t>heap[0].score
        if top < root or (top == root and not opt.watch_ties):
            continue
        # The root only rises as items enter: offer refuses those that fell below it.
        if not offer_hits(s, start, hits, at_least(s + start, n, root, not opt.watch_ties, hits), heap, opt, row):
            return False
    return True


cdef inline uint64_t descending(score_t x) noexcept nogil:
    # A key whose ascending order is x's descending order (x a number; -0.0 as 0.0): the
    # sign bit set for positive x, the other bits flipped for them, kept for negative ones.
    cdef uint32_t u32
    cdef uint64_t u64
    x += 0.0
    if score_t is float:
        memcpy(&u32, &x, 4)
        return u32 ^ (((u32 >> 31) - 1) & 0x7FFFFFFFu)
    else:
        memcpy(&u64, &x, 8)
        return u64 ^ (((u64 >> 63) - 1) & 0x7FFFFFFFFFFFFFFFu)


cdef Py_ssize_t reaching_pieces(Scratch* ws, Py_ssize_t m, double floor) noexcept nogil:
    # The bounds of the pieces whose maximum reaches ``floor`` moved, in order, to the front
    # of ws.bounds (the others overwritten): how many. Without a branch: on random scores a
    # third of the pieces reach it, and a branch on each went the wrong way a third of the time.
    cdef Py_ssize_t p, n = 0
    for p in range(m):
        ws.bounds[2 * n] = ws.bounds[2 * p]
        ws.bounds[2 * n + 1] = ws.bounds[2 * p + 1]
        n += not (ws.maxima[p] < floor)
    return n


cdef Py_ssize_t gather(const score_t* s, Scratch* ws, Py_ssize_t m, double floor, const int64_t* excluded,
                       Py_ssize_t n_excluded, const uint8_t* flag) noexcept nogil:
    # Every item of the row at least ``floor`` but the excluded ones (sorted; pieces may
    # hold them) into ws.found, in column order, keyed by score, descending: how many (k at
    # least: see select_row); -1 once stopped. The pieces' bounds are lost.
    cdef Py_ssize_t p, start, j, x = 0, n_found = 0
    cdef int h, n_hits
    cdef int hits[2 * PIECE]
    for p in range(reaching_pieces(ws, m, floor)):
        if p % (POLL // PIECE) == 0 and p > 0 and stopped(flag):
            return -1
        start = ws.bounds[2 * p]
        n_hits = at_least(s + start, ws.bounds[2 * p + 1] - start, <score_t>floor, False, hits)
        for h in range(n_hits):
            j = start + hits[h]
            while x < n_excluded and excluded[x] < j:
                x += 1
            if x < n_excluded and excluded[x] == j:
                continue
            ws.found[n_found].key = descending(s[j])
            ws.found[n_found].index = j
            n_found += 1
    return n_found


cdef double excluded_floor(const score_t* s, const int64_t* excluded, Py_ssize_t n_excluded, Py_ssize_t m,
                           Py_ssize_t k, Scratch* ws) noexcept nogil:
    # A floor for a row whose pieces were cut across its excluded items (no NaN in the row):
    # the (k + e)-th highest maximum t, once at most e excluded items reach t. Of the k + e
    # pieces reaching t, only one holding an excluded item >= t can reach it through
    # excluded items alone, so k pieces hold an item not excluded >= t. NaN when there are
    # too few pieces for that. The first e tried is a guess above the count expected (about
    # 1.5 k items reach the floor, each excluded with the row's share of excluded items), so
    # that the selection, as dear as the gathering of a fifth of the row, usually runs once.
    cdef Py_ssize_t e = 2 + 2 * n_excluded * k // (m * PIECE), reaching, x
    cdef double t
    if k + e > m:
        e = 0
    while k + e <= m:
        t = kth_largest(ws.maxima, m, k + e, ws)
        reaching = 0
        for x in range(n_excluded):
            reaching += s[excluded[x]] >= t
        if reaching <= e:
            return t
        e = reaching
    return NAN


cdef void floored_row(const score_t* s, Py_ssize_t n_found, int64_t* out, score_t* out_scores,
                      const Options* opt, Row* row, Scratch* ws) noexcept nogil:
    # The k best of a row without NaN whose k pieces reach the floor: its items at least the
    # floor sorted by score (stable: lower ids first among equal scores), the first k taken.
    # The k-th ties with an item left out exactly when it ties with the next one.
    cdef Keyed* ranked = radix_sort(ws.found, ws.found + n_found, n_found, sizeof(score_t))
    cdef Py_ssize_t i
    if opt.watch_ties and n_found > opt.k and ranked[opt.k].key == ranked[opt.k - 1].key:
        row.problem, row.problem_column = TIE_CUT, ranked[opt.k - 1].index
    for i in range(opt.k):
        out[i] = ranked[i].index
    if out_scores != NULL:
        for i in range(opt.k):
            out_scores[i] = s[ranked[i].index]


cdef inline bint any_nan(const Scratch* ws, Py_ssize_t m) noexcept nogil:
    cdef Py_ssize_t p
    cdef bint nan = False
    for p in range(m):
        nan |= ws.maxima[p] != ws.maxima[p]
    return nan


cdef bint floored(const score_t* s, Scratch* ws, Py_ssize_t m, double floor, const int64_t* excluded,
                  Py_ssize_t n_excluded, int64_t* out, score_t* out_scores, const Options* opt, Row* row,
                  const uint8_t* flag) noexcept nogil:
    # The row's k best from its items at least ``floor``; False when stopped.
    cdef Py_ssize_t n_found = gather(s, ws, m, floor, excluded, n_excluded, flag)
    if n_found >= 0:
        floored_row(s, n_found, out, out_scores, opt, row, ws)
    return n_found >= 0


cdef bint select_row(const score_t* s, Py_ssize_t n_items, const int64_t* excluded, Py_ssize_t n_excluded,
                     int64_t* out, score_t* out_scores, const Options* opt, Row* row, Scratch* ws,
                     const uint8_t* flag) noexcept nogil:
    # One row; False when stopped or a NaN ended it. Pieces are first cut across excluded
    # items: cut between them (every hundred items, for 1% excluded), the first pass paid a
    # mispredicted loop exit per run. A row holding NaN (excluded or not) or with too few
    # pieces for excluded_floor is cut again, between its excluded items.
    cdef Py_ssize_t m
    cdef bint nan
    cdef double floor
    row.count, row.left_any, row.left_best, row.problem = 0, False, 0.0, FINE
    m = maxima_pass(s, n_items, excluded, 0, ws, flag)
    if m < 0:
        return False
    nan = any_nan(ws, m)
    if n_excluded > 0 and not nan:
        floor = excluded_floor(s, excluded, n_excluded, m, opt.k, ws)
        if floor == floor:
            return floored(s, ws, m, floor, excluded, n_excluded, out, out_scores, opt, row, flag)
    if n_excluded > 0:
        m = maxima_pass(s, n_items, excluded, n_excluded, ws, flag)
        if m < 0:
            return False
        nan = any_nan(ws, m)
    if nan and not opt.nan_last:
        return first_nan(s, ws, m, row)
    # Under nan="last" a row with NaN may have fewer than k numbers: NaN then enters.
    if not nan and m >= opt.k:
        return floored(s, ws, m, kth_largest(ws.maxima, m, opt.k, ws), excluded, 0, out, out_scores, opt, row,
                       flag)
    if not take(s, ws, m, ws.heap, opt, row, flag):
        return False
    finish(ws, out, out_scores, opt.k, opt, row, flag)
    return True


def select_rows(const score_t[:, :] scores, tuple excluded, tuple options, Py_ssize_t q_start,
                Py_ssize_t q_stop, int64_t[:, ::1] out, score_t[:, ::1] out_scores, tuple scratch,
                const uint8_t[::1] stop=None):
    """Rows ``q_start:q_stop`` of ``scores``: their k best item ids into ``out`` (k = its width).

    ``excluded``: (indptr, indices) of the items each row leaves out, int64 CSR with sorted
    unique columns (indptr empty: none). ``options``: (nan_last, watch_ties). ``out_scores``
    of shape (0, 0), or ``out``'s, for the scores. Rows must be contiguous (inner stride
    one element). Returns None, or (row, column, kind) of the first row whose selection
    raised a problem (kind 1: a NaN at column, nan_last off; 2: the k-th item, column,
    ties with one left out, watch_ties on); the rows after it are left undone. ``scratch``:
    (maxima, work, bounds, heap): float64 of :func:`pieces` entries, float64 and int64 of
    2 * :func:`pieces`, int64 of :func:`heap_words` (k); the chunk's own. Once
    ``stop`` is set, returns early, rows unfinished.
    """
    cdef const int64_t[::1] indptr = excluded[0]
    cdef const int64_t[::1] indices = excluded[1]
    cdef Options opt
    cdef Row row
    cdef Py_ssize_t q, n_items = scores.shape[1], begin = 0, n_out = 0
    cdef bint masked = indptr.shape[0] > 0, with_scores = out_scores.shape[0] > 0
    cdef const uint8_t* flag = flag_of(stop)
    cdef const int64_t* none = NULL
    cdef double[::1] maxima = scratch[0]
    cdef double[::1] work = scratch[1]
    cdef int64_t[::1] bounds = scratch[2]
    cdef int64_t[::1] heap = scratch[3]  # viewed as 2 * k Items
    cdef Scratch ws
    opt.k, opt.nan_last, opt.watch_ties = out.shape[1], options[0], options[1]
    row.problem = FINE
    if opt.k == 0:
        return None
    if (min(maxima.shape[0], work.shape[0] // 2, bounds.shape[0] // 2) < pieces(n_items, indptr)
            or heap.shape[0] < heap_words(opt.k, n_items)):
        raise ValueError("scratch too small for the rows")
    ws.maxima, ws.work, ws.bounds, ws.heap = &maxima[0], &work[0], &bounds[0], <Item*>&heap[0]
    ws.spare, ws.found = ws.heap + opt.k, <Keyed*>&heap[0]
    with nogil:
        for q in range(q_start, q_stop):
            if stopped(flag):
                break
            if masked:
                begin, n_out = indptr[q], indptr[q + 1] - indptr[q]
            if not select_row(&scores[q, 0], n_items, &indices[begin] if n_out > 0 else none, n_out,
                              &out[q, 0], &out_scores[q, 0] if with_scores else NULL, &opt, &row, &ws, flag):
                break
            if row.problem != FINE:
                break
    if row.problem == FINE:
        return None
    return q, row.problem_column, row.problem


def pieces(Py_ssize_t n_items, const int64_t[::1] indptr):
    """The most pieces a row of ``n_items`` items with the excluded items of CSR ``indptr`` has:
    each excluded item ends at most one piece early."""
    cdef Py_ssize_t q, most = 0
    for q in range(indptr.shape[0] - 1):
        most = max(most, indptr[q + 1] - indptr[q])
    return n_items // PIECE + most + 1


def heap_words(Py_ssize_t k, Py_ssize_t n_items):
    """The int64 words of scratch the heap of ``k`` items and its sort take, or (the same
    memory) a row's candidates and their sort."""
    return max(2 * k * (sizeof(Item) // sizeof(int64_t)), 2 * n_items * (sizeof(Keyed) // sizeof(int64_t)))


def use_avx2(bint on):
    """Run the AVX2 versions of the vectorised loops if ``on`` and the CPU has AVX2, else the
    base ones (SSE2 or scalar), for every thread; whether AVX2 is now in use. For tests:
    import chooses AVX2 where it can."""
    return bool(select_use(on))
