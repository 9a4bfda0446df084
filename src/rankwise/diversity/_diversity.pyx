# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The diversity kernel: ndeval's measures of every evaluated topic, in parallel over topics.

A topic comes as its relevant documents (each with the indices of its relevant subtopics,
in ndeval's order, and a tie key) and its run rows (score, tie key, relevant-document row
or -1). Per topic: the run is ranked (``_core._sort``: score descending, then key), each
rank's novelty-discounted gain computed (``(1 - alpha)^(times the subtopic was seen)``
summed over the document's subtopics), the greedy ideal ranking built when a normalised
measure needs it, and every measure read off the gains. The arithmetic is ndeval's
(``rankwise.testing.diversity`` transcribes it), in its order. Work arrays are sized by the
data (the longest run, the most subtopics and relevant documents of a topic), never by a
cutoff.
"""
from libc.math cimport log
from libc.stdint cimport int32_t, int64_t, uint8_t
from libc.stdlib cimport free, malloc

from rankwise._core._sort cimport Item, sort_items
from rankwise._core._stop cimport flag_of, stopped

cdef enum:
    # Measures (diversity/evaluation.py names them).
    ALPHA_DCG = 0
    ALPHA_NDCG = 1
    ERR_IA = 2
    NERR_IA = 3
    NRBP = 4
    NNRBP = 5
    AP_IA = 6
    P_IA = 7
    ST_RECALL = 8

cdef enum:
    # Iterations of the normalising sums between two polls of the stop flag.
    POLL_SUM = 1 << 16


cdef struct Topic:
    const int64_t* sub_ptr      # relevant document r's subtopics: sub_ids[sub_ptr[r]:sub_ptr[r + 1]]
    const int32_t* sub_ids
    const int64_t* doc_key      # tie key of each relevant document (its docno's byte rank)
    int64_t lo, hi              # the topic's relevant documents
    int64_t n_sub               # subtopics with a relevant document
    double alpha, beta


cdef struct Work:
    Item* items                 # the run, ranked
    double* run_gain            # per rank
    double* ideal_gain          # per rank of the ideal ranking
    double* gain                # per subtopic
    int64_t* count              # per subtopic
    uint8_t* picked             # per relevant document


cdef inline double weight(int kind, int64_t i) noexcept nogil:
    # The discount of rank i + 1: DCG's log(2) / log(i + 2) (ndeval's ``discount``), ERR's 1 / (i + 1).
    if kind == ALPHA_DCG or kind == ALPHA_NDCG:
        return log(2.0) / log(i + 2.0)
    return 1.0 / (i + 1.0)


cdef void gains(const Topic* t, Work* w, const Item* ranked, Py_ssize_t n, double* out) noexcept nogil:
    """Each rank's gain: its subtopics' (1 - alpha)^(times seen before), summed in subtopic order."""
    cdef Py_ssize_t i
    cdef int64_t j, r
    cdef double score
    for j in range(t.n_sub):
        w.gain[j] = 1.0
    for i in range(n):
        score = 0.0
        r = <int64_t>ranked[i].label
        if r >= 0:
            for j in range(t.sub_ptr[r], t.sub_ptr[r + 1]):
                score += w.gain[t.sub_ids[j]]
                w.gain[t.sub_ids[j]] *= 1.0 - t.alpha
        out[i] = score


cdef Py_ssize_t ideal(const Topic* t, Work* w, int64_t depth, const uint8_t* flag) noexcept nogil:
    """ndeval's idealResult to ``depth`` ranks: the relevant document of most gain next, ties to the
    larger key; its gains into ``w.ideal_gain``. Documents of no relevance add nothing after them.
    Quadratic in the topic's relevant documents, as ndeval's: the flag is polled at every rank."""
    cdef int64_t m = t.hi - t.lo, rank, r, best, j
    cdef double score, best_score
    depth = min(depth, m)
    for j in range(t.n_sub):
        w.gain[j] = 1.0
    for r in range(m):
        w.picked[r] = 0
    for rank in range(depth):
        if stopped(flag):
            return rank
        best, best_score = -1, 0.0
        for r in range(m):
            if w.picked[r]:
                continue
            score = 0.0
            for j in range(t.sub_ptr[t.lo + r], t.sub_ptr[t.lo + r + 1]):
                score += w.gain[t.sub_ids[j]]
            if best < 0 or score > best_score or (score == best_score and
                                                  t.doc_key[t.lo + r] > t.doc_key[t.lo + best]):
                best, best_score = r, score
        w.picked[best] = 1
        for j in range(t.sub_ptr[t.lo + best], t.sub_ptr[t.lo + best + 1]):
            w.gain[t.sub_ids[j]] *= 1.0 - t.alpha
        w.ideal_gain[rank] = best_score
    return depth


cdef double cumulative(int kind, const double* g, Py_ssize_t n, int64_t k) noexcept nogil:
    cdef double total = 0.0
    cdef int64_t i
    for i in range(min(<int64_t>n, k)):
        total += g[i] * weight(kind, i)
    return total


cdef double ideal_ideal(const Topic* t, int kind, int64_t k, const uint8_t* flag) noexcept nogil:
    """ndeval's "ideal ideal" normaliser: every subtopic covered at every rank, to rank k."""
    cdef double total = 0.0, gain = <double>t.n_sub, term
    cdef int64_t i
    for i in range(k):
        term = gain * weight(kind, i)
        if term == 0.0 or ((i & (POLL_SUM - 1)) == 0 and stopped(flag)):
            break       # the terms only shrink: once 0, the sum is final
        total += term
        gain *= 1.0 - t.alpha
    return total


cdef double nrbp(const Topic* t, const double* g, Py_ssize_t n) noexcept nogil:
    cdef double total = 0.0, decay = 1.0
    cdef Py_ssize_t i
    for i in range(n):
        total += g[i] * decay
        decay *= t.beta
    return total * (1 - (1 - t.alpha) * t.beta) / t.n_sub


cdef double subtopic_counts(const Topic* t, Work* w, const Item* ranked, Py_ssize_t n, int kind,
                            int64_t k) noexcept nogil:
    """P-IA@k, subtopic recall@k or MAP-IA (ndeval's computePrecision, computeSTRecall, computeMAP)."""
    cdef int64_t i, j, r, hits = 0, covered = 0, top = min(<int64_t>n, k)
    cdef double total = 0.0
    for j in range(t.n_sub):
        w.count[j] = 0
        w.gain[j] = 0.0
    for i in range(top):
        r = <int64_t>ranked[i].label
        if r < 0:
            continue
        for j in range(t.sub_ptr[r], t.sub_ptr[r + 1]):
            hits += 1
            covered += w.count[t.sub_ids[j]] == 0
            w.count[t.sub_ids[j]] += 1
            w.gain[t.sub_ids[j]] += w.count[t.sub_ids[j]] / (i + 1.0)
    if kind == P_IA:
        return <double>hits / (<double>k * t.n_sub)
    if kind == ST_RECALL:
        return <double>covered / t.n_sub
    for j in range(t.n_sub):
        w.count[j] = 0
    for r in range(t.lo, t.hi):
        for j in range(t.sub_ptr[r], t.sub_ptr[r + 1]):
            w.count[t.sub_ids[j]] += 1
    for j in range(t.n_sub):
        total += w.gain[j] / w.count[j]
    return total / t.n_sub


cdef double measure(const Topic* t, Work* w, Py_ssize_t n, Py_ssize_t m, int kind, int64_t k,
                    const uint8_t* flag) noexcept nogil:
    """One measure of the topic, from the run's gains (n ranks) and the ideal's (m ranks)."""
    cdef double normaliser, value
    if t.n_sub == 0:
        return 0.0
    if k == 0:
        k = n
    if kind == NRBP or kind == NNRBP:
        value = nrbp(t, w.run_gain, n)
        return value if kind == NRBP else value / nrbp(t, w.ideal_gain, m)
    if kind == AP_IA or kind == P_IA or kind == ST_RECALL:
        return subtopic_counts(t, w, w.items, n, kind, k if kind != AP_IA else n)
    normaliser = ideal_ideal(t, kind, k, flag)
    value = cumulative(kind, w.run_gain, n, k) / normaliser
    if kind == ALPHA_DCG or kind == ERR_IA or value == 0.0:
        return value
    return value / (cumulative(kind, w.ideal_gain, m, k) / normaliser)


cdef void topic_measures(Topic* t, Work* w, const int64_t* ptr, const double* scores, const int64_t* keys,
                         const int64_t* rows, Py_ssize_t q, const int32_t* kinds, const int64_t* cutoffs,
                         Py_ssize_t n_specs, int64_t ideal_depth, double* out, const uint8_t* flag) noexcept nogil:
    cdef Py_ssize_t i, n = ptr[q + 1] - ptr[q], m = 0
    for i in range(n):
        w.items[i].score = scores[ptr[q] + i]
        w.items[i].key = keys[ptr[q] + i]
        w.items[i].label = <double>rows[ptr[q] + i]
    sort_items(w.items, n, 0, flag)
    gains(t, w, w.items, n, w.run_gain)
    if ideal_depth > 0:
        m = ideal(t, w, ideal_depth, flag)
    for i in range(n_specs):
        out[i] = measure(t, w, n, m, kinds[i], cutoffs[i], flag)


cdef int work_alloc(Work* w, Py_ssize_t longest, Py_ssize_t subtopics, Py_ssize_t documents) noexcept nogil:
    w.items = <Item*>malloc(max(longest, 1) * sizeof(Item))
    w.run_gain = <double*>malloc(max(longest, 1) * sizeof(double))
    w.ideal_gain = <double*>malloc(max(documents, 1) * sizeof(double))
    w.picked = <uint8_t*>malloc(max(documents, 1))
    w.gain = <double*>malloc(max(subtopics, 1) * sizeof(double))
    w.count = <int64_t*>malloc(max(subtopics, 1) * sizeof(int64_t))
    return -1 if (w.items == NULL or w.run_gain == NULL or w.ideal_gain == NULL or w.picked == NULL
                  or w.gain == NULL or w.count == NULL) else 0


cdef void work_free(Work* w) noexcept nogil:
    free(w.items)
    free(w.run_gain)
    free(w.ideal_gain)
    free(w.picked)
    free(w.gain)
    free(w.count)


def diversity_range(tuple topics, tuple run, tuple specs, double alpha, double beta, Py_ssize_t q_start,
                    Py_ssize_t q_stop, double[:, ::1] out, const uint8_t[::1] stop=None):
    """ndeval's measures of topics ``q_start:q_stop`` into ``out`` (a row per topic, a column per spec).

    ``topics`` is ``(doc_lo, doc_hi, sub_ptr, sub_ids, doc_key, n_sub)``: topic ``q``'s relevant
    documents are rows ``doc_lo[q]:doc_hi[q]``, row ``r``'s relevant subtopics
    ``sub_ids[sub_ptr[r]:sub_ptr[r + 1]]`` (int32, ascending, below ``n_sub[q]``), ``doc_key``
    a tie key per row (greater wins the ideal ranking's ties). ``run`` is ``(run_ptr,
    scores, keys, rows)``: topic ``q``'s run is rows ``run_ptr[q]:run_ptr[q + 1]``, ranked by
    score descending, then ``keys`` ascending (unique within a topic), ``rows`` the relevant
    document row of each, or -1. ``specs`` is ``(kinds, cutoffs, ideal_depth)``: this
    module's measure codes, a cutoff per measure (0: none) and the ranks of the ideal
    ranking the normalised measures need.
    """
    cdef const int64_t[::1] doc_lo, doc_hi, sub_ptr, doc_key, n_sub, run_ptr, keys, rows, cutoffs
    cdef const int32_t[::1] sub_ids, kinds
    cdef const double[::1] scores
    cdef int64_t ideal_depth
    cdef Topic t
    cdef Work w
    cdef Py_ssize_t q, longest = 1, subtopics = 1, documents = 1
    cdef const uint8_t* flag = flag_of(stop)
    doc_lo, doc_hi, sub_ptr, sub_ids, doc_key, n_sub = topics
    run_ptr, scores, keys, rows = run
    kinds, cutoffs, ideal_depth = specs
    for q in range(q_start, q_stop):
        longest = max(longest, run_ptr[q + 1] - run_ptr[q])
        subtopics = max(subtopics, n_sub[q])
        documents = max(documents, doc_hi[q] - doc_lo[q])
    if work_alloc(&w, longest, subtopics, documents) < 0:
        work_free(&w)
        raise MemoryError()
    t.sub_ptr, t.doc_key = &sub_ptr[0], &doc_key[0]
    t.sub_ids = &sub_ids[0] if sub_ids.shape[0] else NULL
    t.alpha, t.beta = alpha, beta
    with nogil:
        for q in range(q_start, q_stop):
            if stopped(flag):
                break
            t.lo, t.hi, t.n_sub = doc_lo[q], doc_hi[q], n_sub[q]
            topic_measures(&t, &w, &run_ptr[0], &scores[0], &keys[0], &rows[0], q, &kinds[0], &cutoffs[0],
                           kinds.shape[0], ideal_depth, &out[q, 0], flag)
    work_free(&w)
