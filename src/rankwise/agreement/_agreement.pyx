# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The agreement kernel: Kendall's tau-a and tau-b, tau_AP and RBO of two rankings per query.

Each query gives two lists of (document code, score, tie key): list A and list B, the codes
local to the query. Each list is ranked once (score descending, then tie key ascending: a
strict order, with ``_core._sort``), cut at each measure's depth, and the two joined by
document in O(a + b) through an array indexed by the local codes; the documents they share
come in A's order. From them:

* tau-a and tau-b from the scores (ties kept), by Knight's method: A's groups of equal
  scores in turn, a Fenwick tree over B's dense score ranks counting the earlier documents
  above and below each;
* tau_AP (A against B as the reference) from the strict ranks: for each shared document in
  A's order, the earlier ones that B also ranks above it, through a Fenwick tree;
* RBO from the overlap X_d of the two lists' top d (every document, shared or not): a
  shared document joins the overlap at the depth max(rank in A, rank in B).

Work arrays are sized by the longest query's lists, never by a user's number.
O((a + b) log(a + b)) per query.
"""
from libc.math cimport NAN, log, pow, sqrt
from libc.stdint cimport int32_t, int64_t, uint8_t
from libc.stdlib cimport calloc, free, malloc

from rankwise._core._sort cimport Item, sort_items
from rankwise._core._stop cimport flag_of, stopped

cdef enum:
    # Measures (agreement/names.py names them).
    TAU_A = 0
    TAU_B = 1
    TAU_AP = 2
    RBO_EXT = 3
    RBO_MIN = 4
    RBO_RES = 5
    RBO_MAX = 6


cdef struct Shared:
    # The documents both (cut) lists hold, in A's order: scores, 1-based ranks in A and B,
    # and B's dense score rank (0: B's highest score).
    double* score_a
    int64_t* rank_a
    int64_t* rank_b
    int64_t* dense_b
    Py_ssize_t n


cdef struct Work:
    Item* a                  # list A ranked (local document code in ``label``)
    Item* b
    int64_t* dense           # dense score rank of each of B's positions
    int64_t* where_b         # 1 + B's position of each local code (0: not in B's cut)
    int64_t* tree            # Fenwick tree / counts, sized by the lists
    int64_t* grow            # overlap increments per depth
    Shared s


cdef inline void tree_add(int64_t* tree, Py_ssize_t n, Py_ssize_t i) noexcept nogil:
    i += 1
    while i <= n:
        tree[i] += 1
        i += i & -i


cdef inline int64_t tree_count(const int64_t* tree, Py_ssize_t i) noexcept nogil:
    # Entries added at positions 0..i-1.
    cdef int64_t total = 0
    while i > 0:
        total += tree[i]
        i -= i & -i
    return total


cdef void ranked(Item* items, const int64_t* docs, const double* scores, const int64_t* ties,
                 Py_ssize_t n, const uint8_t* stop) noexcept nogil:
    # The list in its strict order: score descending, then ``ties`` ascending.
    cdef Py_ssize_t i
    for i in range(n):
        items[i].score = scores[i]
        items[i].label = <double>docs[i]
        items[i].key = ties[i]
    sort_items(items, n, 0, stop)


cdef void join(Work* w, Py_ssize_t ka, Py_ssize_t kb) noexcept nogil:
    # The documents A's top ka and B's top kb share, in A's order: O(ka + kb) through
    # ``where_b``, indexed by the query's local document codes (cleared again after).
    cdef Py_ssize_t i, m = 0
    cdef int64_t d
    for i in range(kb):
        w.where_b[<int64_t>w.b[i].label] = i + 1
    for i in range(ka):
        d = <int64_t>w.a[i].label
        if w.where_b[d] > 0:
            w.s.score_a[m] = w.a[i].score
            w.s.rank_a[m] = i + 1
            w.s.rank_b[m] = w.where_b[d]
            w.s.dense_b[m] = w.dense[w.where_b[d] - 1]
            m += 1
    for i in range(kb):
        w.where_b[<int64_t>w.b[i].label] = 0
    w.s.n = m


cdef double kendall(Work* w, Py_ssize_t kb, bint tau_b) noexcept nogil:
    # Knight's O(n log n) tau over the shared documents' scores: A's groups of equal scores
    # in turn (the shared documents come in A's order), B's dense ranks in a Fenwick tree.
    cdef Py_ssize_t n = w.s.n, i, start, end
    cdef int64_t r
    cdef double pairs, ties_a = 0.0, ties_b = 0.0, concordant = 0.0, discordant = 0.0, c
    if n < 2:
        return NAN
    for i in range(kb + 1):
        w.tree[i] = 0
    for i in range(n):
        w.tree[w.s.dense_b[i]] += 1
    for i in range(kb + 1):
        c = <double>w.tree[i]
        ties_b += c * (c - 1) / 2
        w.tree[i] = 0
    start = 0
    while start < n:
        end = start + 1
        while end < n and w.s.score_a[end] == w.s.score_a[start]:
            end += 1
        c = end - start
        ties_a += c * (c - 1) / 2
        # Earlier groups rank above in A: concordant where B ranks them above too.
        for i in range(start, end):
            r = w.s.dense_b[i]
            concordant += <double>tree_count(w.tree, r)
            discordant += <double>(start - tree_count(w.tree, r + 1))
        for i in range(start, end):
            tree_add(w.tree, kb, w.s.dense_b[i])
        start = end
    pairs = n * (n - 1.0) / 2
    if not tau_b:
        return (concordant - discordant) / pairs
    if ties_a == pairs or ties_b == pairs:
        return NAN
    return (concordant - discordant) / sqrt((pairs - ties_a) * (pairs - ties_b))


cdef double tau_ap(Work* w, Py_ssize_t kb) noexcept nogil:
    # Yilmaz, Aslam & Robertson (SIGIR 2008): 2/(n-1) sum_{i>=2} C(i)/(i-1) - 1, i over A's
    # strict order, C(i) the earlier documents that B also ranks above the i-th.
    cdef Py_ssize_t n = w.s.n, i
    cdef double total = 0.0
    if n < 2:
        return NAN
    for i in range(kb + 1):
        w.tree[i] = 0
    for i in range(n):
        if i > 0:
            total += <double>tree_count(w.tree, w.s.rank_b[i] - 1) / i
        tree_add(w.tree, kb, w.s.rank_b[i] - 1)
    return 2.0 * total / (n - 1) - 1.0


cdef void overlap_growth(Work* w, Py_ssize_t longest) noexcept nogil:
    # grow[d]: shared documents joining the overlap at depth d (1-based).
    cdef Py_ssize_t i
    for i in range(longest + 1):
        w.grow[i] = 0
    for i in range(w.s.n):
        w.grow[max(w.s.rank_a[i], w.s.rank_b[i])] += 1


cdef double rbo(const int64_t* grow, Py_ssize_t s, Py_ssize_t l, double p, int form) noexcept nogil:
    # Webber, Moffat & Zobel (TOIS 2010): RBO_ext (eq. 32) of the whole lists; the bounds
    # RBO_min (eq. 11), RBO_res (eq. 30) and RBO_max = min + res of both lists cut to the
    # shorter length s, which bound the RBO of every continuation of those prefixes, the
    # longer list's among them. s <= l are the lists' lengths; X_d the overlap at depth d.
    cdef Py_ssize_t d, f
    cdef double x = 0.0, x_s = 0.0, x_l, weight = 1.0, total = 0.0, tail = 0.0, low = 0.0, res
    cdef double sum1 = 0.0, sum2 = 0.0, sum3 = 0.0
    if s == 0:
        return 1.0 if l == 0 else 0.0
    if form != RBO_EXT:
        l = s
    for d in range(1, l + 1):
        x += grow[d]
        weight *= p
        if d <= s:
            total += x / d * weight
            low += x / d * weight
            if d == s:
                x_s = x
        else:
            total += x / d * weight
            tail += x_s * (d - s) / (<double>s * d) * weight
    x_l = x
    if form == RBO_EXT:
        return (1 - p) / p * (total + tail) + ((x_l - x_s) / l + x_s / s) * pow(p, l)
    low = (1 - p) / p * (low - x_s * _harmonic_weights(p, s) - x_s * log(1 - p))
    if form == RBO_MIN:
        return low
    f = <Py_ssize_t>(l + s - x_l)
    weight = 1.0
    for d in range(1, f + 1):
        weight *= p
        sum3 += weight / d
        if d > s:
            sum1 += weight / d
        if d > l:
            sum2 += weight / d
    res = pow(p, s) + pow(p, l) - pow(p, f) - (1 - p) / p * (s * sum1 + l * sum2 + x_l * (-log(1 - p) - sum3))
    return res if form == RBO_RES else low + res


cdef double _harmonic_weights(double p, Py_ssize_t k) noexcept nogil:
    # sum_{d=1..k} p^d / d
    cdef Py_ssize_t d
    cdef double weight = 1.0, total = 0.0
    for d in range(1, k + 1):
        weight *= p
        total += weight / d
    return total


cdef struct Lists:
    const int64_t* docs_a        # local document codes: below the query's two lists' lengths
    const double* scores_a
    const int64_t* ties_a        # per row: among equal scores, the lower ranks first
    const int64_t* docs_b
    const double* scores_b
    const int64_t* ties_b


cdef void dense_ranks(Work* w, Py_ssize_t nb) noexcept nogil:
    # B's dense score ranks by position (B ranked: scores descending).
    cdef Py_ssize_t i
    cdef int64_t r = 0
    for i in range(nb):
        if i > 0 and w.b[i].score != w.b[i - 1].score:
            r += 1
        w.dense[i] = r


cdef void agree_query(Work* w, const Lists* x, Py_ssize_t a0, Py_ssize_t na, Py_ssize_t b0, Py_ssize_t nb,
                      const int32_t* kinds, const double* params, const int64_t* depths, Py_ssize_t n_measures,
                      double* out, const uint8_t* stop) noexcept nogil:
    cdef Py_ssize_t m, ka, kb
    ranked(w.a, x.docs_a + a0, x.scores_a + a0, x.ties_a + a0, na, stop)
    ranked(w.b, x.docs_b + b0, x.scores_b + b0, x.ties_b + b0, nb, stop)
    dense_ranks(w, nb)
    for m in range(n_measures):
        ka = na if depths[m] == 0 or depths[m] >= na else depths[m]
        kb = nb if depths[m] == 0 or depths[m] >= nb else depths[m]
        join(w, ka, kb)
        if kinds[m] == TAU_A or kinds[m] == TAU_B:
            out[m] = kendall(w, kb, kinds[m] == TAU_B)
        elif kinds[m] == TAU_AP:
            out[m] = tau_ap(w, kb)
        else:
            overlap_growth(w, max(ka, kb))
            out[m] = rbo(w.grow, min(ka, kb), max(ka, kb), params[m], kinds[m])


cdef int work_init(Work* w, Py_ssize_t longest) noexcept nogil:
    # Buffers for lists of up to ``longest`` documents each (local codes below 2 longest).
    w.a = <Item*>malloc(longest * sizeof(Item))
    w.b = <Item*>malloc(longest * sizeof(Item))
    w.dense = <int64_t*>malloc(longest * sizeof(int64_t))
    w.where_b = <int64_t*>calloc(2 * longest, sizeof(int64_t))
    w.tree = <int64_t*>malloc((longest + 1) * sizeof(int64_t))
    w.grow = <int64_t*>malloc((longest + 1) * sizeof(int64_t))
    w.s.score_a = <double*>malloc(longest * sizeof(double))
    w.s.rank_a = <int64_t*>malloc(longest * sizeof(int64_t))
    w.s.rank_b = <int64_t*>malloc(longest * sizeof(int64_t))
    w.s.dense_b = <int64_t*>malloc(longest * sizeof(int64_t))
    return (w.a == NULL or w.b == NULL or w.dense == NULL or w.where_b == NULL or w.tree == NULL
            or w.grow == NULL or w.s.score_a == NULL or w.s.rank_a == NULL or w.s.rank_b == NULL
            or w.s.dense_b == NULL)


cdef void work_free(Work* w) noexcept nogil:
    free(w.a)
    free(w.b)
    free(w.dense)
    free(w.where_b)
    free(w.tree)
    free(w.grow)
    free(w.s.score_a)
    free(w.s.rank_a)
    free(w.s.rank_b)
    free(w.s.dense_b)


def agree_range(tuple lists, tuple measures, Py_ssize_t q_start, Py_ssize_t q_stop, double[:, ::1] out,
                const uint8_t[::1] stop=None):
    """Every measure of ``measures`` for queries ``q_start:q_stop`` into ``out[q, m]``.

    ``lists`` is ``(a_ptr, docs_a, scores_a, ties_a, b_ptr, docs_b, scores_b, ties_b)``:
    query q's list A is rows ``a_ptr[q]:a_ptr[q + 1]`` of (document code, score, tie key),
    list B likewise; a query's document codes are local to it (each document once per
    list, codes below the two lists' total length), and among equal scores the lower tie
    key ranks first. ``measures`` is ``(kinds, params, depths)``: this module's measure
    codes, RBO's persistence p, and each measure's depth (0: whole lists).
    """
    cdef const int64_t[::1] a_ptr, docs_a, ties_a, b_ptr, docs_b, ties_b, depths
    cdef const double[::1] scores_a, scores_b, params
    cdef const int32_t[::1] kinds
    cdef Lists x
    cdef Work w
    cdef Py_ssize_t q, longest = 1
    cdef const uint8_t* flag = flag_of(stop)
    a_ptr, docs_a, scores_a, ties_a, b_ptr, docs_b, scores_b, ties_b = lists
    kinds, params, depths = measures
    x.docs_a = &docs_a[0] if docs_a.shape[0] else NULL
    x.scores_a = &scores_a[0] if scores_a.shape[0] else NULL
    x.ties_a = &ties_a[0] if ties_a.shape[0] else NULL
    x.docs_b = &docs_b[0] if docs_b.shape[0] else NULL
    x.scores_b = &scores_b[0] if scores_b.shape[0] else NULL
    x.ties_b = &ties_b[0] if ties_b.shape[0] else NULL
    for q in range(q_start, q_stop):
        longest = max(longest, a_ptr[q + 1] - a_ptr[q], b_ptr[q + 1] - b_ptr[q])
    if work_init(&w, longest):
        work_free(&w)
        raise MemoryError()
    with nogil:
        for q in range(q_start, q_stop):
            if stopped(flag):
                break
            agree_query(&w, &x, a_ptr[q], a_ptr[q + 1] - a_ptr[q], b_ptr[q], b_ptr[q + 1] - b_ptr[q],
                        &kinds[0], &params[0], &depths[0], kinds.shape[0], &out[q, 0], flag)
    work_free(&w)
