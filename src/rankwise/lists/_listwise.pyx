"""Per-list ranking metrics over CSR-grouped queries, under one tie policy per call.

Every metric here depends only on where the items with a positive label ("tracked"
items) land in the ranking. So a query is never fully sorted: the tracked items are
collected and sorted (t log t), then one pass over all n scores counts, for each
distinct tracked score, the items ranked above it and tied with it (n log d). Those
counts give exact positions under the deterministic policies and the tie groups of
the McSherry-Najork expectation under ``EXPECTED``.

When every metric of the call stops at a cutoff (at most K), an item scoring below the
K-th best score cannot reach the top K under any tie policy, so only items at or above
that threshold (or a bound below it) are tracked, and the ideal ranking keeps only the
K largest labels; R still counts every relevant item. Lists much longer than K bound
the threshold from the maxima of small chunks (collect_top_blocks), in loops without
data-dependent branches; shorter ones, and lists holding NaN, find it with a
provisional heap (collect_top).

NaN scores are ranked below every number (nan="last") and reported per query, for
the Python layer to raise on under nan="raise": every path reads every score anyway,
so the check costs no pass of its own.
"""
from libc.math cimport INFINITY, M_LN2, ceil, frexp, ldexp, pow
from libc.stdint cimport INT64_MAX, int8_t, int32_t, int64_t, uint8_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memset

from rankwise._core._buckets cimport (BLOCK, Buckets, bucket_block, buckets_alloc, buckets_fold, buckets_free,
                                      buckets_setup, tally_block)
from rankwise._core._enums cimport *
from rankwise._core._gain cimport (SAFE_GAIN, err_prob, exponential_gain, fill_gain_tables, gain_scale, log2_next,
                                   scaled_ratio, unscale)
from rankwise._core._sort cimport Item, ranks_above, same_flag, same_rank, sort_items
from rankwise._core._stop cimport LONG_LOOP, POLL, POLL_MASK, flag_of, stopped, stopped_timed, was_stopped
from rankwise._core._ties cimport any_hit, ap_slope, ap_term, expected_relevant, first_hit, subset_stop
from rankwise._core._typedefs cimport label_t, score_t


cdef struct Workspace:
    Py_ssize_t cap
    Item* items             # tracked items, sorted by the policy's order
    Item* ideal             # tracked labels sorted descending (ideal DCG)
    int64_t* slot_pos       # per sorted slot: tied items placed before it, then its position
    double* values          # distinct tracked scores, one per tie group
    Py_ssize_t* group_start # first slot of each group; group_start[d] == t
    int64_t* above          # items ranked strictly above each group
    int64_t* hist           # 4 x (d + 1) counters of count_ranks
    int64_t* tied           # items (tracked or not) tied with each group
    double* esm             # scratch for expected ERR: stop probabilities of random subsets
    Py_ssize_t near_cap
    double* near_scores     # top-k path: every item that can reach the top k (at or above
    int64_t* near_keys      # the k-th best score or a bound below it), and its tie key
                            # (its index when the policy has no keys)
    Py_ssize_t chunk_cap
    double* chunk_max       # top-k path: best score of each chunk, then of each block
    Py_ssize_t* chunk_ids   # top-k path: chunks whose best score reaches the bound
    Buckets buckets         # count_ranks' buckets over the tracked scores (_core/_buckets.pxd)
    const uint8_t* stop     # the call's stop flag: loops over a list poll it (_stop.pxd)


cdef struct Query:
    Py_ssize_t n            # list length
    Py_ssize_t t            # tracked items
    Py_ssize_t d            # tie groups holding tracked items
    int64_t n_rel           # R: items with label >= level
    bint ideal_ready
    Py_ssize_t n_ideal      # labels in ws.ideal once ideal_ready
    Py_ssize_t n_near       # top-k path: items in near_scores
    bint nan                # a NaN score was seen (Python raises unless nan="last")


cdef enum:
    # The top-k block path: items per chunk maximum, and blocks of chunks per unit of k
    # (more blocks give a tighter bound but more maxima to select from).
    CHUNK = 8
    BLOCKS_PER_K = 2
    # Up to this cutoff kth_best keeps a sorted array, O(k) per value, else a heap.
    SMALL_K = 32
    # Up to this many tie groups count_near compares every near item with each group.
    FEW_GROUPS = 8
    # From this many tie groups count_ranks places items through buckets (_buckets.pxd):
    # with fewer, find_group's few comparisons cost less.
    MIN_BUCKETED_GROUPS = 2
    # collect() tests this many labels at once for a positive one.
    LABEL_CHUNK = 64


cdef struct TopK:
    # The top-k fast path: k > 0 when every metric stops at a cutoff <= k.
    Py_ssize_t k
    double* heap            # k scores, then k labels: two min-heaps


ctypedef struct Options:
    # evaluate_range's scalar arguments, passed as a dict with these keys.
    int ties
    double level            # relevance_level
    double max_grade
    Py_ssize_t top_k        # > 0: every metric stops at a cutoff <= top_k (the top-k path)
    bint shared_scores      # every query reads y_score[0:n] (one ranking for queries of length n)
    bint shared_keys        # every query reads tie_key[0:n]


cdef struct Params:
    int ties
    double level
    double max_grade
    double grade_mant       # max_grade = grade_mant * 2**grade_exp, grade_mant in [0.5, 1)
    int grade_exp
    bint shared_scores
    bint shared_keys


cdef struct Metrics:
    # One entry per metric column: its kind, cutoff (0: none), flag (exponential gain or
    # graded), parameter (RBP's p) and variant (Variant: the definition of AP, R, nDCG).
    Py_ssize_t n
    const int32_t* kinds
    const int64_t* cutoffs
    const uint8_t* flags
    const double* params
    const uint8_t* variants


cdef struct Output:
    double* values          # row q, metric j at values[q * n_metrics + j]
    int64_t* n_relevant
    int64_t n_nan           # queries holding a NaN score


cdef int grow(void** ptr, size_t nbytes) noexcept nogil:
    cdef void* p = realloc(ptr[0], nbytes)
    if p == NULL:
        return -1
    ptr[0] = p
    return 0


cdef int reserve(Workspace* ws, Py_ssize_t n) noexcept nogil:
    cdef size_t cap
    if n <= ws.cap:
        return 0
    cap = <size_t> max(n, 2 * ws.cap, 64)
    if (grow(<void**> &ws.items, cap * sizeof(Item))
            or grow(<void**> &ws.ideal, cap * sizeof(Item))
            or grow(<void**> &ws.slot_pos, (cap + 1) * sizeof(int64_t))
            or grow(<void**> &ws.values, (cap + 1) * sizeof(double))
            or grow(<void**> &ws.group_start, (cap + 1) * sizeof(Py_ssize_t))
            or grow(<void**> &ws.above, (cap + 1) * sizeof(int64_t))
            or grow(<void**> &ws.hist, 4 * (cap + 1) * sizeof(int64_t))
            or grow(<void**> &ws.tied, (cap + 1) * sizeof(int64_t))
            or grow(<void**> &ws.esm, (cap + 1) * sizeof(double))):
        return -1
    ws.cap = <Py_ssize_t> cap
    return 0


cdef int reserve_near(Workspace* ws, Py_ssize_t n) noexcept nogil:
    cdef size_t cap
    if n <= ws.near_cap:
        return 0
    cap = <size_t> max(n, 2 * ws.near_cap, 64)
    if (grow(<void**> &ws.near_scores, cap * sizeof(double))
            or grow(<void**> &ws.near_keys, cap * sizeof(int64_t))):
        return -1
    ws.near_cap = <Py_ssize_t> cap
    return 0


cdef int reserve_chunks(Workspace* ws, Py_ssize_t n) noexcept nogil:
    cdef size_t cap
    if n <= ws.chunk_cap:
        return 0
    cap = <size_t> max(n, 2 * ws.chunk_cap, 64)
    if (grow(<void**> &ws.chunk_max, cap * sizeof(double))
            or grow(<void**> &ws.chunk_ids, cap * sizeof(Py_ssize_t))):
        return -1
    ws.chunk_cap = <Py_ssize_t> cap
    return 0


cdef void release(Workspace* ws) noexcept nogil:
    buckets_free(&ws.buckets)
    free(ws.chunk_max)
    free(ws.chunk_ids)
    free(ws.near_scores)
    free(ws.near_keys)
    free(ws.items)
    free(ws.ideal)
    free(ws.slot_pos)
    free(ws.values)
    free(ws.group_start)
    free(ws.above)
    free(ws.hist)
    free(ws.tied)
    free(ws.esm)


# ---------------------------------------------------------------- ranking one query

cdef inline bint heap_below(double a, double b) noexcept nogil:
    # Min-heap order by rank: NaN (nan="last") ranks below every number.
    return ranks_above(b, a)


cdef void sift(double* heap, Py_ssize_t n, Py_ssize_t i) noexcept nogil:
    cdef Py_ssize_t child
    cdef double tmp
    while True:
        child = 2 * i + 1
        if child >= n:
            return
        if child + 1 < n and heap_below(heap[child + 1], heap[child]):
            child += 1
        if not heap_below(heap[child], heap[i]):
            return
        tmp = heap[i]
        heap[i] = heap[child]
        heap[child] = tmp
        i = child


cdef inline void heap_offer(double* heap, Py_ssize_t* size, Py_ssize_t k, double value) noexcept nogil:
    # Keep the k best values seen; the root is the worst of them.
    cdef Py_ssize_t i
    if size[0] < k:
        heap[size[0]] = value
        size[0] += 1
        if size[0] == k:
            for i in range(k // 2 - 1, -1, -1):
                sift(heap, k, i)
    elif heap_below(heap[0], value):
        heap[0] = value
        sift(heap, k, 0)


cdef inline bint any_positive(const label_t* labels, Py_ssize_t n) noexcept nogil:
    # A loop without a branch, which the compiler vectorises.
    cdef Py_ssize_t i
    cdef uint8_t found = 0
    for i in range(n):
        found |= labels[i] > 0
    return found != 0


cdef int collect(const label_t* labels, const score_t* scores, const int64_t* keys,
                 Query* q, const Params* prm, Workspace* ws) noexcept nogil:
    """Gather tracked items (label > 0) and count the relevant ones.

    Chunks of LABEL_CHUNK labels without a positive one, most of a long list with few
    relevant items, are passed over after a vectorised test.
    """
    cdef Py_ssize_t i, t = 0, chunk = 0, end
    cdef int64_t n_rel = 0
    cdef double lab
    # POLL is a multiple of LABEL_CHUNK: the stop flag is checked every POLL labels.
    while chunk < q.n:
        if (chunk & POLL_MASK) == 0 and stopped(ws.stop):
            return 0
        end = min(chunk + LABEL_CHUNK, q.n)
        if any_positive(labels + chunk, end - chunk):
            for i in range(chunk, end):
                lab = labels[i]
                if lab > 0:
                    if t == ws.cap and reserve(ws, t + 1) != 0:
                        return -1
                    ws.items[t].score = scores[i]
                    ws.items[t].label = lab
                    ws.items[t].key = keys[i] if keys != NULL else i
                    if lab >= prm.level:
                        n_rel += 1
                    t += 1
        chunk = end
    q.t = t
    q.n_rel = n_rel
    return 0


cdef int collect_top(const label_t* labels, const score_t* scores, const int64_t* keys,
                     Query* q, const Params* prm, const TopK* top, Workspace* ws) noexcept nogil:
    """collect() for the top-k path: track only items at or above the k-th best score.

    One pass keeps a heap of the k best scores so far; its root only rises, so an item
    below it can be dropped at once, and the few kept early that end below the final
    k-th best score are dropped afterwards. Items below that threshold are never above
    or tied with a tracked item, so the ones at or above it (labelled or not) are kept
    apart for count_ranks, which then skips the rest of the list. Every item is written
    to the next free slot and the slot kept only if it qualifies, so dense labels cost
    no mispredicted branches. The k largest labels of all items go to the ideal ranking.
    """
    cdef Py_ssize_t i, t = 0, m = 0, n_scores = 0, n_labels = 0, block
    cdef int64_t n_rel = 0, key
    cdef double lab, score
    cdef bint near, nan = False
    cdef double* best_scores = top.heap
    cdef double* best_labels = top.heap + top.k
    if (ws.cap == 0 and reserve(ws, 1) != 0) or (ws.near_cap == 0 and reserve_near(ws, 1) != 0):
        return -1
    block = 0
    while block < q.n:
        if stopped(ws.stop):
            return 0
        for i in range(block, min(block + POLL, q.n)):
            lab = labels[i]
            score = scores[i]
            key = keys[i] if keys != NULL else i
            n_rel += lab >= prm.level
            nan |= score != score
            # Both branches are rarely taken once a heap holds k values.
            if (n_labels < top.k or lab > best_labels[0]) and lab > 0:
                heap_offer(best_labels, &n_labels, top.k, lab)
            if n_scores < top.k or ranks_above(score, best_scores[0]):
                heap_offer(best_scores, &n_scores, top.k, score)
            # Until the heap holds k scores it is not ordered, and every item may be near.
            near = n_scores < top.k or not ranks_above(best_scores[0], score)
            ws.near_scores[m] = score
            ws.near_keys[m] = key
            m += near
            ws.items[t].score = score
            ws.items[t].label = lab
            ws.items[t].key = key
            t += (lab > 0) & near
            if (t == ws.cap and reserve(ws, t + 1) != 0) or (m == ws.near_cap and reserve_near(ws, m + 1) != 0):
                return -1
        block += POLL
    drop_below(best_scores[0], m, t, q, ws)
    q.n_rel = n_rel
    q.nan = nan
    return ideal_from_heap(best_labels, n_labels, q, ws)


cdef void drop_below(double threshold, Py_ssize_t m, Py_ssize_t t, Query* q, Workspace* ws) noexcept nogil:
    """Keep the near items (m) and tracked items (t) at or above the threshold: q.n_near, q.t."""
    cdef Py_ssize_t i, kept = 0
    for i in range(m):
        if not ranks_above(threshold, ws.near_scores[i]):
            ws.near_scores[kept] = ws.near_scores[i]
            ws.near_keys[kept] = ws.near_keys[i]
            kept += 1
    q.n_near = kept
    kept = 0
    for i in range(t):
        if not ranks_above(threshold, ws.items[i].score):
            ws.items[kept] = ws.items[i]
            kept += 1
    q.t = kept


cdef int ideal_from_heap(const double* heap, Py_ssize_t n, Query* q, Workspace* ws) noexcept nogil:
    """The ideal ranking of the top-k paths: the n labels of a heap, sorted."""
    cdef Py_ssize_t i
    if reserve(ws, n) != 0:
        return -1
    for i in range(n):
        ws.ideal[i].score = heap[i]
        ws.ideal[i].label = heap[i]
        ws.ideal[i].key = i
    sort_items(ws.ideal, n, 0, ws.stop)
    q.n_ideal = n
    q.ideal_ready = True
    return 0


cdef bint any_nan(const score_t* scores, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i
    cdef bint bad = False
    for i in range(n):
        bad |= scores[i] != scores[i]
    return bad


cdef double kth_best(const double* values, Py_ssize_t n, Py_ssize_t k, double* best) noexcept nogil:
    """The k-th largest of values[0:n], counting repeats (k <= n, no NaN; best holds 2k).

    For small k, best[0:k] is kept sorted ascending (best[k] = +inf) and every value is
    merged in with min and max only: best[j] = min(best[j+1], max(best[j], v)) drops the
    old smallest and slots v in, and changes nothing when v <= best[0]. No branch
    depends on the data, whereas about half the compares of a heap's sift mispredict
    (and skipping the merge when v <= best[0] mispredicts as often).
    """
    cdef Py_ssize_t i, j, size = 0
    cdef double v, lo, hi
    if k <= SMALL_K:
        for j in range(k):
            best[j] = -INFINITY
        best[k] = INFINITY
        for i in range(n):
            v = values[i]
            # Each element is loaded once and carried to the next step: a vectorised
            # loop would load best[j+1:j+3] across two of the previous value's
            # stores, which the CPU cannot forward (a stall on every value).
            lo = best[0]
            for j in range(k):
                hi = best[j + 1]
                lo = lo if lo > v else v
                best[j] = hi if hi < lo else lo
                lo = hi
        return best[0]
    for i in range(n):
        if size < k or values[i] > best[0]:
            heap_offer(best, &size, k, values[i])
    return best[0]


cdef inline double best_of_8(const score_t* x) noexcept nogil:
    """Largest of x[0:8] (NaN ignored, unless first): a tree of independent maxima.

    ``b if b > a else a`` is one maxsd on x86.
    """
    cdef double a = x[0], b = x[1], c = x[2], d = x[3], e = x[4], f = x[5], g = x[6], h = x[7]
    a = b if b > a else a
    c = d if d > c else c
    e = f if f > e else e
    g = h if h > g else g
    a = c if c > a else a
    e = g if g > e else e
    return e if e > a else a


cdef void label_summary(const label_t* labels, Py_ssize_t n, double level, int64_t* n_rel,
                        double* best, int64_t* n_best) noexcept nogil:
    """R (labels >= level), the largest label and how many items hold it (n >= 1).

    Plain loops over the labels' own type, which the compiler vectorises. One-byte
    labels are counted in one-byte counters over chunks of 255 items (a chunk cannot
    overflow them): sixteen labels per instruction, with no widening.
    """
    cdef Py_ssize_t i, start, stop
    cdef label_t top = labels[0], lev
    cdef int64_t count = 0, ties = 0
    cdef uint8_t chunk_count, chunk_ties
    cdef bint any_relevant
    cdef double ceiling
    for i in range(n):
        top = labels[i] if labels[i] > top else top
    if label_t is float or label_t is double or label_t is int64_t:
        # Compared as doubles, exactly as collect() does (int64 labels beyond 2**53 round).
        for i in range(n):
            count += labels[i] >= level
            ties += labels[i] == top
    else:
        # Every value of these types is exact in double, so label >= level exactly when
        # label >= ceil(level): an integer compare. No label reaches a ceiling above the
        # largest one, which also keeps the cast in range.
        ceiling = ceil(level)
        any_relevant = ceiling <= <double> top
        lev = <label_t> ceiling if any_relevant else top
        if label_t is uint8_t or label_t is int8_t:
            start = 0
            while start < n:
                stop = min(start + 255, n)
                chunk_count = 0
                chunk_ties = 0
                for i in range(start, stop):
                    chunk_count += labels[i] >= lev
                    chunk_ties += labels[i] == top
                count += chunk_count
                ties += chunk_ties
                start = stop
        else:
            for i in range(n):
                count += labels[i] >= lev
                ties += labels[i] == top
        if not any_relevant:
            count = 0
    n_rel[0] = count
    best[0] = top
    n_best[0] = ties


cdef bint chunk_maxima(const score_t* scores, Py_ssize_t n, Py_ssize_t n_chunks,
                       double* chunk_max) noexcept nogil:
    """The best score of every chunk of 8 items (the last also holds the n % 8 after it).

    Returns whether the list may hold a NaN. The sum is the cheap test: NaN + x is NaN. So
    is inf + -inf, which only costs the caller's exact scan.
    """
    cdef Py_ssize_t c, i
    cdef double total = 0.0
    cdef const score_t* x
    for c in range(n_chunks):
        x = &scores[c * CHUNK]
        total += ((x[0] + x[1]) + (x[2] + x[3])) + ((x[4] + x[5]) + (x[6] + x[7]))
        chunk_max[c] = best_of_8(x)
    for i in range(n_chunks * CHUNK, n):
        total += scores[i]
        if scores[i] > chunk_max[n_chunks - 1]:
            chunk_max[n_chunks - 1] = scores[i]
    return total != total


cdef Py_ssize_t chunks_reaching(Workspace* ws, Py_ssize_t n_chunks, Py_ssize_t per_block, Py_ssize_t k,
                                double* heap, double* bound) noexcept nogil:
    """The chunks whose maximum reaches the bound, the k-th best block maximum: into ws.chunk_ids.

    Blocks, then their chunks: every index is written and kept only if it reaches the
    bound, so no branch mispredicts. Returns how many; sets the bound.
    """
    cdef Py_ssize_t b, c, j, start, stop, n_blocks = n_chunks // per_block, blocks_hit = 0, chunks_hit = 0
    cdef double best
    cdef double* block_max = ws.chunk_max + n_chunks
    cdef Py_ssize_t* block_ids = ws.chunk_ids + n_chunks
    for b in range(n_blocks):
        start = b * per_block
        stop = n_chunks if b == n_blocks - 1 else start + per_block
        best = ws.chunk_max[start]
        for c in range(start + 1, stop):
            best = ws.chunk_max[c] if ws.chunk_max[c] > best else best
        block_max[b] = best
    bound[0] = kth_best(block_max, n_blocks, k, heap)
    for b in range(n_blocks):
        block_ids[blocks_hit] = b
        blocks_hit += block_max[b] >= bound[0]
    for j in range(blocks_hit):
        b = block_ids[j]
        start = b * per_block
        stop = n_chunks if b == n_blocks - 1 else start + per_block
        for c in range(start, stop):
            ws.chunk_ids[chunks_hit] = c
            chunks_hit += ws.chunk_max[c] >= bound[0]
    return chunks_hit


cdef int track_reaching(const label_t* labels, const score_t* scores, const int64_t* keys, Py_ssize_t n,
                        Py_ssize_t n_chunks, Py_ssize_t chunks_hit, double bound, Query* q,
                        Workspace* ws) noexcept nogil:
    """The items of the chunks reaching the bound that reach it themselves: near items, and
    the tracked ones among them. Selecting the k-th best score among them would cost more
    than the few extra items.
    """
    cdef Py_ssize_t c, i, j, stop, m = 0, t = 0
    cdef int64_t key
    # Chunks hold 8 items, the last one up to 15.
    if reserve_near(ws, (chunks_hit + 1) * CHUNK) != 0:
        return -1
    for j in range(chunks_hit):
        c = ws.chunk_ids[j]
        stop = n if c == n_chunks - 1 else (c + 1) * CHUNK
        for i in range(c * CHUNK, stop):
            ws.near_keys[m] = i
            m += scores[i] >= bound
    if reserve(ws, m) != 0:
        return -1
    for j in range(m):
        i = ws.near_keys[j]
        key = keys[i] if keys != NULL else i
        ws.near_scores[j] = scores[i]
        ws.near_keys[j] = key
        ws.items[t].score = scores[i]
        ws.items[t].label = labels[i]
        ws.items[t].key = key
        t += labels[i] > 0
    q.n_near = m
    q.t = t
    return 0


cdef int ideal_of_labels(const label_t* labels, Py_ssize_t n, Py_ssize_t k, double* heap, Query* q,
                         double level, Workspace* ws) noexcept nogil:
    """q.n_rel and the ideal ranking, from vectorised passes over the labels: k copies of
    the largest label when it occurs k times, else the labels' heap."""
    cdef Py_ssize_t i, j, n_heap = 0
    cdef int64_t n_rel, n_best
    cdef double lab, best
    label_summary(labels, n, level, &n_rel, &best, &n_best)
    q.n_rel = n_rel
    if best > 0 and n_best >= k:
        # Already in descending order.
        for j in range(k):
            ws.ideal[j].score = best
            ws.ideal[j].label = best
            ws.ideal[j].key = j
        q.n_ideal = k
        q.ideal_ready = True
        return 0
    if best > 0:
        for i in range(n):
            if (i & POLL_MASK) == 0 and stopped(ws.stop):
                return 0
            lab = labels[i]
            if (n_heap < k or lab > heap[0]) and lab > 0:
                heap_offer(heap, &n_heap, k, lab)
    return ideal_from_heap(heap, n_heap, q, ws)


cdef int collect_top_blocks(const label_t* labels, const score_t* scores, const int64_t* keys,
                            Query* q, const Params* prm, const TopK* top, Workspace* ws) noexcept nogil:
    """collect_top() for lists much longer than k, in passes with few unpredictable branches.

    One pass takes the best score of every chunk of 8 items, and of every block of
    chunks (about 2k blocks). The k-th best block maximum, the bound, is at most the
    k-th best score (k blocks each hold an item reaching it), so only the blocks, then
    the chunks, whose maximum reaches it (about k of each) are read again, keeping
    the items that reach it: a few more than k, ties included. They stand for the
    items at or above the k-th best score: the few in between rank below k, and
    change no value. The labels are summarised in separate vectorised passes.

    Returns 1, with nothing collected, when the list holds a NaN: collect_top ranks
    NaN (nan="last") and flags it for the Python layer.
    """
    cdef Py_ssize_t n = q.n, k = top.k, n_chunks = n // CHUNK, per_block, chunks_hit
    cdef double bound
    per_block = max(n_chunks // (BLOCKS_PER_K * k), 1)
    if reserve_chunks(ws, n_chunks + n_chunks // per_block) != 0 or reserve(ws, k) != 0:
        return -1
    if chunk_maxima(scores, n, n_chunks, ws.chunk_max) and any_nan(scores, n):
        return 1
    chunks_hit = chunks_reaching(ws, n_chunks, per_block, k, top.heap, &bound)
    if track_reaching(labels, scores, keys, n, n_chunks, chunks_hit, bound, q, ws) != 0:
        return -1
    return ideal_of_labels(labels, n, k, top.heap, q, prm.level, ws)


cdef inline Py_ssize_t find_group(const double* values, Py_ssize_t d, double s) noexcept nogil:
    """Number of groups ranked strictly above score s (values are in rank order).

    No data-dependent branches for numbers: the comparisons are unpredictable for
    random scores. A few groups are counted with independent comparisons, more are
    searched with conditional moves. Plain ``>`` is exact here, since a NaN group
    (nan="last") is last and never above a number.
    """
    cdef Py_ssize_t base = 0, n = d, half, j
    if s != s:
        return d - (d > 0 and values[d - 1] != values[d - 1])
    if d <= 8:
        for j in range(d):
            base += values[j] > s
        return base
    while n > 1:
        half = n >> 1
        base = base + half if values[base + half - 1] > s else base
        n -= half
    return base + (values[base] > s)


cdef inline void count_item(const score_t* scores, const int64_t* keys, Py_ssize_t i, bint keyed, Py_ssize_t d,
                            int64_t* hist, bint* nan, Workspace* ws) noexcept nogil:
    """count_ranks' work for item i."""
    cdef Py_ssize_t g, a, b, m
    cdef int64_t key
    cdef double s = scores[i]
    if s != s:
        # find_group tests the same condition first: the compiler merges the two,
        # and the branch is never taken on NaN-free lists.
        nan[0] = True
    g = find_group(ws.values, d, s)
    # Four interleaved histograms: consecutive items rarely wait on each other's
    # increment of the same counter.
    hist[(i & 3) * (d + 1) + g] += 1
    if (g < d) & same_flag(ws.values[g], s):
        ws.tied[g] += 1
        if keyed:
            key = keys[i] if keys != NULL else i
            a = ws.group_start[g]
            b = ws.group_start[g + 1]
            while a < b:
                m = (a + b) >> 1
                if ws.items[m].key <= key:
                    a = m + 1
                else:
                    b = m
            ws.slot_pos[a] += 1
            ws.slot_pos[ws.group_start[g + 1]] -= 1


cdef bint count_ranks(const score_t* scores, const int64_t* keys, Py_ssize_t n, bint keyed,
                      Query* q, Workspace* ws) noexcept nogil:
    """One pass over the list: items above and tied with each group.

    Every item adds one to the histogram slot of its group count c (groups ranked
    strictly above it); then above[g] = (items with c <= g) - tied[g]. Only the
    rare tied items take a branch. With ``keyed`` (stable and trec policies) a tied
    item also counts, for each tracked slot of its group, whether its key puts it
    first, as a difference array in slot_pos. Long lists with several groups find c
    through buckets over the groups' scores (count_bucketed). Returns whether a score
    was NaN.
    """
    cdef Py_ssize_t i, g, d = q.d, block
    cdef bint nan = False
    cdef int64_t below
    cdef int64_t* hist = ws.hist
    memset(hist, 0, 4 * (d + 1) * sizeof(int64_t))
    memset(ws.tied, 0, (d + 1) * sizeof(int64_t))
    if keyed:
        memset(ws.slot_pos, 0, (q.t + 1) * sizeof(int64_t))
    ws.values[d] = 0.0  # read, never counted: lets the tie test below run without a branch on g
    if d >= MIN_BUCKETED_GROUPS and buckets_alloc(&ws.buckets) == 0 and buckets_setup(&ws.buckets, ws.values, d, n):
        nan = count_bucketed(scores, keys, n, keyed, q, ws)
    elif n <= LONG_LOOP:
        for i in range(n):
            count_item(scores, keys, i, keyed, d, hist, &nan, ws)
    else:
        block = 0
        while block < n:
            if stopped(ws.stop):
                return nan
            for i in range(block, min(block + POLL, n)):
                count_item(scores, keys, i, keyed, d, hist, &nan, ws)
            block += POLL
    below = 0
    for g in range(d):
        below += hist[g] + hist[d + 1 + g] + hist[2 * (d + 1) + g] + hist[3 * (d + 1) + g]
        ws.above[g] = below - ws.tied[g]
    if keyed:
        for i in range(1, q.t):
            ws.slot_pos[i] += ws.slot_pos[i - 1]
    return nan


cdef bint count_bucketed(const score_t* scores, const int64_t* keys, Py_ssize_t n, bint keyed,
                         Query* q, Workspace* ws) noexcept nogil:
    """count_ranks' pass through buckets (set up): only items in a bucket holding a group's
    score are placed by count_item, the rest by their bucket alone. Returns whether a
    score was NaN.
    """
    cdef Py_ssize_t start = 0, size, j, found
    cdef bint nan = False
    cdef Buckets* b = &ws.buckets
    while start < n:
        if start > 0 and (start & POLL_MASK) == 0:
            nan |= buckets_fold(b, ws.hist)
            if stopped(ws.stop):
                return nan
        size = min(<Py_ssize_t>BLOCK, n - start)
        bucket_block(scores + start, size, b)
        found = tally_block(b, size)
        for j in range(found):
            count_item(scores, keys, start + b.block[j], keyed, q.d, ws.hist, &nan, ws)
        start += size
    return buckets_fold(b, ws.hist) or nan


cdef void count_near(const double* scores, Py_ssize_t n, Query* q, Workspace* ws) noexcept nogil:
    """count_ranks for the few items of the top-k path, without NaN or keys, and few groups.

    The items above and tied with each group, counted by comparing every item with
    every group: no branch, where count_ranks mispredicts on the tied items (every
    tracked item is tied with its own group) and on its histogram's group count.
    """
    cdef Py_ssize_t g, i
    cdef int64_t above, tied
    cdef double v
    for g in range(q.d):
        v = ws.values[g]
        above = 0
        tied = 0
        for i in range(n):
            above += scores[i] > v
            tied += scores[i] == v
        ws.above[g] = above
        ws.tied[g] = tied


cdef inline Py_ssize_t build_groups(Workspace* ws, Py_ssize_t t) noexcept nogil:
    cdef Py_ssize_t s, d = 0
    for s in range(t):
        if s == 0 or not same_rank(ws.items[s].score, ws.items[s - 1].score):
            ws.values[d] = ws.items[s].score
            ws.group_start[d] = s
            d += 1
    ws.group_start[d] = t
    return d


cdef void place(Query* q, int ties, Workspace* ws) noexcept nogil:
    """1-based positions of the sorted slots under a deterministic policy."""
    cdef Py_ssize_t g, s, first, last
    cdef int64_t above, skipped
    for g in range(q.d):
        first = ws.group_start[g]
        last = ws.group_start[g + 1]
        above = ws.above[g]
        # Pessimistic: every untracked (label 0) tied item goes first.
        skipped = ws.tied[g] - (last - first) if ties == PESSIMISTIC else 0
        for s in range(first, last):
            if ties == STABLE or ties == TREC:
                ws.slot_pos[s] = above + ws.slot_pos[s] + 1
            else:
                ws.slot_pos[s] = above + skipped + (s - first) + 1


# ---------------------------------------------------------------- small helpers

fill_gain_tables()


cdef inline double item_value(int kind, double label, bint flag, const Params* prm, int e) noexcept nogil:
    """What an item contributes before its position weight, times 2**e: DCG gain or RBP relevance.

    e is 0 but in the sums that _gain.pxd scales: those of labels below SAFE_GAIN (DCG),
    or of label / max_grade below it (graded RBP). There 2**label - 1 is label * ln 2 to
    double precision, and label * 2**e, like label * 2**(e - grade_exp), is exact.
    """
    if kind == RBP:
        if not flag:
            return 1.0 if label >= prm.level else 0.0
        if e == 0:
            return label / prm.max_grade
        return ldexp(label, e - prm.grade_exp) / prm.grade_mant
    if e == 0:
        return exponential_gain(label) if flag else label
    return ldexp(label, e) * M_LN2 if flag else ldexp(label, e)


cdef inline double weight_sum(int kind, int64_t first, int64_t last, double p,
                              const uint8_t* stop) noexcept nogil:
    """Sum of the position weights for positions first..last (DCG or RBP)."""
    cdef double acc = 0.0
    cdef int64_t pos
    if kind == RBP:
        # (1 - p) * sum of p^(pos - 1), in closed form.
        return pow(p, <double> (first - 1)) - pow(p, <double> last)
    for pos in range(first, last + 1):
        if (pos & POLL_MASK) == 0 and stopped(stop):
            break
        acc += 1.0 / log2_next(pos)
    return acc


cdef inline int64_t group_relevant(const Workspace* ws, Py_ssize_t g, double level) noexcept nogil:
    cdef Py_ssize_t s
    cdef int64_t r = 0
    for s in range(ws.group_start[g], ws.group_start[g + 1]):
        if ws.items[s].label >= level:
            r += 1
    return r


# ---------------------------------------------------------------- deterministic policies

cdef double det_rr(const Query* q, const Workspace* ws, int64_t k, double level) noexcept nogil:
    cdef Py_ssize_t s
    for s in range(q.t):
        if ws.items[s].label >= level:
            return 1.0 / ws.slot_pos[s] if ws.slot_pos[s] <= k else 0.0
    return 0.0


cdef inline double det_ap(const Query* q, const Workspace* ws, int64_t k, double level,
                   int64_t* n_hits) noexcept nogil:
    """AP's sum of precision@i over the relevant ranks i <= k, before its division; the
    relevant items within k into n_hits."""
    cdef Py_ssize_t s
    cdef double acc = 0.0
    cdef int64_t hits = 0
    for s in range(q.t):
        if ws.slot_pos[s] > k or ((s & POLL_MASK) == 0 and stopped(ws.stop)):
            break
        if ws.items[s].label >= level:
            hits += 1
            acc += <double> hits / ws.slot_pos[s]
    n_hits[0] = hits
    return acc


cdef double det_tp(const Query* q, const Workspace* ws, int64_t k, double level) noexcept nogil:
    cdef Py_ssize_t s
    cdef double tp = 0.0
    for s in range(q.t):
        if ws.slot_pos[s] > k:
            break
        if ws.items[s].label >= level:
            tp += 1.0
    return tp


cdef double det_weighted(int kind, const Query* q, const Workspace* ws, int64_t k, bint flag,
                         double p, const Params* prm, int e) noexcept nogil:
    """DCG or RBP, times 2**e: item values times the weight of their position."""
    cdef Py_ssize_t s
    cdef int64_t pos
    cdef double acc = 0.0
    for s in range(q.t):
        pos = ws.slot_pos[s]
        if pos > k or ((s & POLL_MASK) == 0 and stopped(ws.stop)):
            break
        acc += item_value(kind, ws.items[s].label, flag, prm, e) * weight_sum(kind, pos, pos, p, ws.stop)
    return acc


cdef double det_err(const Query* q, const Workspace* ws, int64_t k, double max_grade) noexcept nogil:
    cdef Py_ssize_t s
    cdef double acc = 0.0, survive = 1.0, r
    for s in range(q.t):
        if ws.slot_pos[s] > k or ((s & POLL_MASK) == 0 and stopped(ws.stop)):
            break
        r = err_prob(ws.items[s].label, max_grade)
        acc += survive * r / ws.slot_pos[s]
        survive *= 1.0 - r
    return acc


# ---------------------------------------------------------------- expected over tie orderings
# Per-group formulas of McSherry & Najork (ECIR 2008); group g holds tied[g] items,
# above[g] items rank above it, and its tracked items are slots group_start[g]..

cdef double exp_rr(const Query* q, const Workspace* ws, int64_t k, double level) noexcept nogil:
    cdef Py_ssize_t g
    cdef int64_t r
    for g in range(q.d):
        r = group_relevant(ws, g, level)
        if r > 0:
            return first_hit(ws.above[g], ws.tied[g], r, k, True, ws.stop)
    return 0.0


cdef double exp_hits(const Query* q, const Workspace* ws, int64_t k, double level) noexcept nogil:
    cdef Py_ssize_t g
    cdef int64_t r, above
    for g in range(q.d):
        r = group_relevant(ws, g, level)
        if r == 0:
            continue
        above = ws.above[g]
        if above >= k:
            return 0.0
        return any_hit(ws.tied[g], r, min(k - above, ws.tied[g]), ws.stop)
    return 0.0


cdef double exp_ap(const Query* q, const Workspace* ws, int64_t k, double level) noexcept nogil:
    """The expectation of AP's sum (det_ap), before its division by a constant."""
    cdef Py_ssize_t g
    cdef int64_t r, c, above, last, pos, before = 0
    cdef double frac, slope, acc = 0.0
    if q.n_rel == 0:
        return 0.0
    for g in range(q.d):
        r = group_relevant(ws, g, level)
        if r == 0:
            continue
        above = ws.above[g]
        if above >= k:
            break
        c = ws.tied[g]
        last = min(above + c, k)
        frac = <double> r / c
        slope = ap_slope(c, r)
        for pos in range(above + 1, last + 1):
            if (pos & POLL_MASK) == 0 and stopped(ws.stop):
                break
            acc += ap_term(frac, slope, before, pos - above, pos)
        before += r
    return acc


cdef double exp_tp(const Query* q, const Workspace* ws, int64_t k, double level) noexcept nogil:
    cdef Py_ssize_t g
    cdef int64_t c, above
    cdef double tp = 0.0
    for g in range(q.d):
        above = ws.above[g]
        if above >= k:
            break
        c = ws.tied[g]
        tp += expected_relevant(c, group_relevant(ws, g, level), min(k - above, c))
    return tp


cdef double exp_weighted(int kind, const Query* q, const Workspace* ws, int64_t k, bint flag,
                         double p, const Params* prm, int e) noexcept nogil:
    """DCG or RBP, times 2**e: each group's mean item value times the weights of its positions up to k."""
    cdef Py_ssize_t g, s
    cdef int64_t c, above
    cdef double total, acc = 0.0
    for g in range(q.d):
        above = ws.above[g]
        if above >= k:
            break
        c = ws.tied[g]
        total = 0.0
        for s in range(ws.group_start[g], ws.group_start[g + 1]):
            total += item_value(kind, ws.items[s].label, flag, prm, e)
        acc += total / c * weight_sum(kind, above + 1, min(above + c, k), p, ws.stop)
    return acc


cdef double exp_err(const Query* q, Workspace* ws, int64_t k, double max_grade) noexcept nogil:
    cdef Py_ssize_t g, first
    cdef int64_t c, y, above, i, j, m
    cdef double r, x, product, prev, cur, survive = 1.0, acc = 0.0
    cdef double* p_stop = ws.esm
    for g in range(q.d):
        above = ws.above[g]
        if above >= k or survive == 0.0:
            break
        first = ws.group_start[g]
        y = ws.group_start[g + 1] - first
        c = ws.tied[g]
        # p_stop[j] = 1 - e_j(x_1..x_y) / C(y, j) for x = 1 - R: the chance that a random j of
        # the items stop the user. Its recurrence over items adds terms >= 0 only (that of
        # e_j / C(y, j) is a convex combination), so stop probabilities far below the
        # rounding of 1 - R keep their digits.
        for j in range(y + 1):
            p_stop[j] = 0.0
        product = 1.0
        for i in range(1, y + 1):
            if (i & 63) == 0 and stopped_timed(ws.stop):  # i terms each: quadratic in the group's items
                return acc
            r = err_prob(ws.items[first + i - 1].label, max_grade)
            x = 1.0 - r
            product *= x
            for j in range(i, 0, -1):
                p_stop[j] = ((i - j) * p_stop[j] + j * (r + x * p_stop[j - 1])) / i
        prev = 0.0
        for m in range(1, min(c, k - above) + 1):
            if (m & 63) == 0 and stopped_timed(ws.stop):  # up to y terms each
                return acc
            cur = subset_stop(p_stop, c, y, m)
            acc += survive * (cur - prev) / (above + m)
            prev = cur
        survive *= product
    return acc


# ---------------------------------------------------------------- one metric, one query

cdef double ideal_dcg(Query* q, Workspace* ws, int64_t k, bint exponential, const Params* prm,
                      int* scale) noexcept nogil:
    """The ideal DCG cut at k, times 2**scale (set from its largest gain, the first: _gain.pxd)."""
    cdef Py_ssize_t s, n
    cdef int e
    cdef double acc = 0.0, label, value = 0.0, last = -1.0
    if not q.ideal_ready:
        for s in range(q.t):
            ws.ideal[s].score = ws.items[s].label
            ws.ideal[s].label = ws.items[s].label
            ws.ideal[s].key = s
        sort_items(ws.ideal, q.t, 0, ws.stop)
        q.n_ideal = q.t
        q.ideal_ready = True
    n = <Py_ssize_t> min(<int64_t> q.n_ideal, k)
    e = gain_scale(ws.ideal[0].label) if n > 0 else 0
    scale[0] = e
    for s in range(n):
        if (s & POLL_MASK) == 0 and stopped(ws.stop):
            break
        # Sorted labels come in runs (the top-k path often holds k equal ones): one
        # exp2 per run. Labels are >= 0, so the first never matches last.
        label = ws.ideal[s].label
        if label != last:
            value = item_value(DCG, label, exponential, prm, e)
            last = label
        acc += value / log2_next(s + 1)
    return acc


cdef double true_positives(const Query* q, const Workspace* ws, int64_t k, const Params* prm) noexcept nogil:
    if prm.ties == EXPECTED:
        return exp_tp(q, ws, k, prm.level)
    return det_tp(q, ws, k, prm.level)


cdef double weighted(int kind, const Query* q, const Workspace* ws, int64_t k, bint flag,
                     double p, const Params* prm, int e) noexcept nogil:
    if prm.ties == EXPECTED:
        return exp_weighted(kind, q, ws, k, flag, p, prm, e)
    return det_weighted(kind, q, ws, k, flag, p, prm, e)


cdef double largest_summed(const Query* q, const Workspace* ws, int64_t k, bint expected) noexcept nogil:
    """The largest label among the items that weighted() sums: those placed within k.

    They come first among the tracked items, which are in rank order.
    """
    cdef Py_ssize_t s, g, end = q.t
    cdef double best = 0.0
    if expected:
        for g in range(q.d):
            if ws.above[g] >= k:
                end = ws.group_start[g]
                break
    else:
        for s in range(q.t):
            if ws.slot_pos[s] > k:
                end = s
                break
    for s in range(end):
        if (s & POLL_MASK) == 0 and stopped(ws.stop):
            break
        best = best if best >= ws.items[s].label else ws.items[s].label
    return best


cdef double scaled_weighted(int kind, const Query* q, const Workspace* ws, int64_t k, bint flag,
                            double p, const Params* prm, int* scale) noexcept nogil:
    """weighted() times 2**scale: first with the scale given, then, if that sum is below
    SAFE_GAIN, with the scale of the largest value it sums, when that one is larger
    (_gain.pxd). Only a DCG or a graded RBP sums label-derived values.
    """
    cdef double value = weighted(kind, q, ws, k, flag, p, prm, scale[0]), largest
    cdef int e
    if value < SAFE_GAIN and (kind == DCG or flag):
        largest = largest_summed(q, ws, k, prm.ties == EXPECTED)
        e = gain_scale(largest if kind == DCG else largest / prm.max_grade)
        if e > scale[0]:
            scale[0] = e
            value = weighted(kind, q, ws, k, flag, p, prm, e)
    return value


cdef inline double average_precision(const Query* q, const Workspace* ws, int64_t k, int variant,
                              const Params* prm) noexcept nogil:
    """AP's sum over its denominator: R, min(R, k), or the hits within k (BY_HITS: a
    deterministic policy only, since E[sum / hits] is no ratio of expectations)."""
    cdef int64_t hits = 0, denom
    cdef double acc
    if q.n_rel == 0:
        return 0.0
    if prm.ties == EXPECTED:
        acc = exp_ap(q, ws, k, prm.level)
    else:
        acc = det_ap(q, ws, k, prm.level, &hits)
    denom = hits if variant == BY_HITS else (min(q.n_rel, k) if variant == BY_MIN else q.n_rel)
    return acc / denom if denom > 0 else 0.0


cdef double metric_value(const Metrics* metrics, Py_ssize_t j, Query* q, Workspace* ws,
                         const Params* prm) noexcept nogil:
    """Metric column j of one ranked query."""
    cdef int kind = metrics.kinds[j], variant = metrics.variants[j]
    cdef int64_t cutoff = metrics.cutoffs[j]
    cdef bint flag = metrics.flags[j]
    cdef double param = metrics.params[j]
    cdef bint expected = prm.ties == EXPECTED
    cdef int64_t k = cutoff if cutoff > 0 else INT64_MAX
    cdef int scale = 0, ideal_scale = 0
    cdef double ideal, value
    if kind == RR:
        return exp_rr(q, ws, k, prm.level) if expected else det_rr(q, ws, k, prm.level)
    if kind == AP:
        return average_precision(q, ws, k, variant, prm)
    if kind == HITS:
        if expected:
            return exp_hits(q, ws, k, prm.level)
        return 1.0 if det_tp(q, ws, k, prm.level) > 0 else 0.0
    if kind == PRECISION:
        return true_positives(q, ws, k, prm) / cutoff
    if kind == RECALL:
        if q.n_rel == 0:
            return 0.0
        return true_positives(q, ws, k, prm) / (min(q.n_rel, k) if variant == BY_MIN else q.n_rel)
    if kind == RPREC:
        return true_positives(q, ws, q.n_rel, prm) / q.n_rel if q.n_rel > 0 else 0.0
    if kind == F1:
        # In double: cutoff + R overflows int64 for cutoffs near 2**63.
        return 2.0 * true_positives(q, ws, k, prm) / (<double> cutoff + <double> q.n_rel)
    if kind == DCG or kind == RBP:
        value = scaled_weighted(kind, q, ws, k, flag, param, prm, &scale)
        return unscale(value, scale)
    if kind == NDCG:
        # IDEAL_ALL: Python turned the top-k path off, so the ideal ranking holds every label.
        ideal = ideal_dcg(q, ws, INT64_MAX if variant == IDEAL_ALL else k, flag, prm, &ideal_scale)
        if not ideal > 0:
            return 0.0
        scale = ideal_scale
        value = scaled_weighted(DCG, q, ws, k, flag, param, prm, &scale)
        return scaled_ratio(value, scale, ideal, ideal_scale)
    if kind == ERR:
        return exp_err(q, ws, k, prm.max_grade) if expected else det_err(q, ws, k, prm.max_grade)
    return 0.0


# ---------------------------------------------------------------- driver

cdef int rank_query(const label_t* labels, const score_t* scores, const int64_t* keys, Query* q,
                    const Params* prm, const TopK* top, Workspace* ws) noexcept nogil:
    """Collect, sort and count one list (q.n > 0) for the metrics: -1 when out of memory."""
    cdef int status, label_order
    cdef bint keyed = prm.ties == STABLE or prm.ties == TREC
    cdef bint use_top = top.k > 0 and q.n > top.k
    if use_top:
        status = 1
        if q.n >= 2 * CHUNK * top.k:
            status = collect_top_blocks(labels, scores, keys, q, prm, top, ws)
        if status == 1:
            status = collect_top(labels, scores, keys, q, prm, top, ws)
    else:
        status = collect(labels, scores, keys, q, prm, ws)
    if status != 0 or was_stopped(ws.stop):
        return status
    if q.t > 0:
        # EXPECTED sums each tie group's values (ERR, graded RBP in floating point): ordered
        # by label, a group adds the same values in the same order whatever the input order
        # of its rows, so shuffled rows (an engine's partitions) give the same bits.
        label_order = 1 if prm.ties in (OPTIMISTIC, EXPECTED) else (-1 if prm.ties == PESSIMISTIC else 0)
        sort_items(ws.items, q.t, label_order, ws.stop)
        q.d = build_groups(ws, q.t)
        if use_top and not q.nan and not keyed and q.d <= FEW_GROUPS:
            count_near(ws.near_scores, q.n_near, q, ws)
        elif use_top:
            count_ranks(ws.near_scores, ws.near_keys, q.n_near, keyed, q, ws)
        else:
            # Reads every score of the list: the NaN check comes for free.
            q.nan = count_ranks(scores, keys, q.n, keyed, q, ws)
        if prm.ties != EXPECTED:
            place(q, prm.ties, ws)
    elif not use_top:
        q.nan = any_nan(scores, q.n)
    return 0


cdef int evaluate_queries(const int64_t[::1] indptr, const score_t[::1] y_score, const label_t[::1] y_true,
                          const int64_t[::1] tie_key, const Metrics* metrics, const Params* prm,
                          const TopK* top, Py_ssize_t q_start, Py_ssize_t q_stop, Output* res,
                          const uint8_t* stop) noexcept nogil:
    cdef Workspace ws
    cdef Query q
    cdef Py_ssize_t qi, j
    cdef int64_t start, score_start
    cdef int status = 0
    memset(&ws, 0, sizeof(Workspace))
    ws.stop = stop
    for qi in range(q_start, q_stop):
        if stopped(stop):
            break
        start = indptr[qi]
        score_start = 0 if prm.shared_scores else start
        memset(&q, 0, sizeof(Query))
        q.n = indptr[qi + 1] - start
        if q.n > 0:
            status = rank_query(&y_true[start], &y_score[score_start],
                                &tie_key[0 if prm.shared_keys else start] if prm.ties == TREC else NULL,
                                &q, prm, top, &ws)
        if status != 0 or was_stopped(stop):  # the query's ranking may be incomplete
            break
        res.n_nan += q.nan
        res.n_relevant[qi] = q.n_rel
        for j in range(metrics.n):
            res.values[qi * metrics.n + j] = metric_value(metrics, j, &q, &ws, prm)
    release(&ws)
    return status


def evaluate_range(const int64_t[::1] indptr, const score_t[::1] y_score, const label_t[::1] y_true,
                   const int64_t[::1] tie_key, tuple spec, Options options, Py_ssize_t q_start,
                   Py_ssize_t q_stop, tuple output, const uint8_t[::1] stop=None):
    """Fill rows q_start..q_stop of ``output = (out, n_relevant)``: one column of ``out`` per
    metric of ``spec = (kinds, cutoffs, flags, params, variants)``, and each query's relevant
    items.

    ``options`` is a dict of the scalar arguments (``Options``): ``ties``, ``level``,
    ``max_grade``; ``top_k`` > 0 declares that every metric stops at a cutoff of at most
    ``top_k`` (the top-k fast path), 0 that some metric reads the whole ranking; with
    ``shared_scores`` every query reads its scores from ``y_score[0:n]``, and with
    ``shared_keys`` its tie keys (``ties`` TREC) from ``tie_key[0:n]`` (one ranking for
    queries of equal length ``n``), else from its own rows, as ``y_true``. Inputs are
    trusted: the Python layer has validated shapes, offsets, labels and metric specs,
    all but NaN scores, which the kernel meets anyway while it reads them: it ranks
    them last (nan="last") and returns the number of queries holding one, for the
    Python layer to raise on under nan="raise". Releases the GIL for the whole range.
    Once ``stop`` (the call's stop flag, ``_stop.pxd``) is set, it returns early and leaves
    the rows incomplete.
    """
    cdef const int32_t[::1] kinds
    cdef const int64_t[::1] cutoffs
    cdef const uint8_t[::1] flags
    cdef const double[::1] params
    cdef const uint8_t[::1] variants
    cdef double[:, ::1] out
    cdef int64_t[::1] n_relevant
    cdef Params prm
    cdef TopK top
    cdef Metrics metrics
    cdef Output res
    cdef int status
    cdef const uint8_t* flag = flag_of(stop)
    kinds, cutoffs, flags, params, variants = spec
    out, n_relevant = output
    if not (kinds.shape[0] == cutoffs.shape[0] == flags.shape[0] == params.shape[0] == variants.shape[0]
            == out.shape[1]):
        raise ValueError("kinds, cutoffs, flags, params, variants and the columns of out must agree")
    prm.ties = options.ties
    prm.level = options.level
    prm.max_grade = options.max_grade
    prm.grade_mant = frexp(options.max_grade, &prm.grade_exp)
    prm.shared_scores = options.shared_scores
    prm.shared_keys = options.shared_keys
    metrics.n = kinds.shape[0]
    metrics.kinds = &kinds[0] if metrics.n > 0 else NULL
    metrics.cutoffs = &cutoffs[0] if metrics.n > 0 else NULL
    metrics.flags = &flags[0] if metrics.n > 0 else NULL
    metrics.params = &params[0] if metrics.n > 0 else NULL
    metrics.variants = &variants[0] if metrics.n > 0 else NULL
    res.values = &out[0, 0] if out.shape[0] > 0 and metrics.n > 0 else NULL
    res.n_relevant = &n_relevant[0] if n_relevant.shape[0] > 0 else NULL
    res.n_nan = 0
    top.k = options.top_k
    top.heap = NULL
    if top.k > 0:
        top.heap = <double*>malloc(2 * top.k * sizeof(double))
        if top.heap == NULL:
            raise MemoryError("rankwise: could not allocate the top-k workspace")
    with nogil:
        status = evaluate_queries(indptr, y_score, y_true, tie_key, &metrics, &prm, &top, q_start, q_stop,
                                  &res, flag)
    free(top.heap)
    if status != 0:
        raise MemoryError("rankwise: could not allocate the per-query workspace")
    return res.n_nan
