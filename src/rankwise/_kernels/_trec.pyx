"""trec_eval's measures over CSR-grouped runs joined with their qrels.

Two passes per query, as trec_eval makes them: order the retrieved documents (score
descending, then a tie key ascending: document id descending under trec_eval's own
policy), then read every measure off the ranked relevance values. Relevance values are
the qrels labels, or NONPOOL (-1) for a document absent from the qrels and UNJUDGED (-2)
for one in the qrels with a negative label (pooled but not judged, as infAP uses).
Prefix sums over the ranked list (relevant so far, average-precision terms, DCG) are
built once per query, so every cutoff of every measure is a lookup.
"""
from libc.math cimport log2, lround
from libc.stdint cimport int32_t, int64_t
from libc.stdlib cimport free, malloc

from ._sort cimport Item, sort_items


cpdef enum TrecMeasure:
    NUM_RET = 0
    NUM_REL = 1
    NUM_REL_RET = 2
    MAP = 3
    GM_MAP = 4
    RPREC = 5
    BPREF = 6
    RECIP_RANK = 7
    IPREC = 8
    P = 9
    RECALL = 10
    INFAP = 11
    GM_BPREF = 12
    RPREC_MULT = 13
    UTILITY = 14
    NDCG = 15
    NDCG_CUT = 16
    MAP_CUT = 17
    RELATIVE_P = 18
    SUCCESS = 19
    SET_P = 20
    SET_RELATIVE_P = 21
    SET_RECALL = 22
    SET_MAP = 23
    SET_F = 24
    NUM_NONREL_JUDGED_RET = 25


cdef double NONPOOL = -1.0
cdef double UNJUDGED = -2.0
# trec_eval's infAP smoothing constant.
cdef double INFAP_EPSILON = 0.00001


def judge(const int64_t[::1] doc_codes, const int64_t[::1] doc_to_qrels, const int64_t[::1] indptr,
          const int64_t[::1] qrels_query, const int64_t[::1] qrels_indptr, const int64_t[::1] qrels_doc,
          const double[::1] qrels_rel, Py_ssize_t q_start, Py_ssize_t q_stop, double[::1] rels):
    """Relevance of each retrieved document of queries ``q_start:q_stop`` from the qrels.

    Query ``q``'s rows ``indptr[q]:indptr[q+1]`` hold run document codes; ``doc_to_qrels``
    maps them to qrels document codes (-1: not in the qrels). The judgements of qrels
    query ``qrels_query[q]`` are ``qrels_indptr[...]`` rows sorted by document code, so
    each lookup is a binary search within one query's judgements.
    """
    cdef Py_ssize_t q, i, lo, hi, mid, qq
    cdef int64_t doc
    with nogil:
        for q in range(q_start, q_stop):
            qq = qrels_query[q]
            for i in range(indptr[q], indptr[q + 1]):
                rels[i] = NONPOOL
                doc = doc_to_qrels[doc_codes[i]]
                if doc < 0:
                    continue
                lo = qrels_indptr[qq]
                hi = qrels_indptr[qq + 1]
                while lo < hi:
                    mid = (lo + hi) >> 1
                    if qrels_doc[mid] < doc:
                        lo = mid + 1
                    else:
                        hi = mid
                if lo < qrels_indptr[qq + 1] and qrels_doc[lo] == doc:
                    rels[i] = qrels_rel[lo] if qrels_rel[lo] >= 0 else UNJUDGED


def rank_relevance(const double[::1] scores, const int64_t[::1] keys, const double[::1] rels,
                   const int64_t[::1] indptr, Py_ssize_t q_start, Py_ssize_t q_stop,
                   double[::1] ranked, double[::1] ranked_scores):
    """Write each query's relevance values (and scores) in rank order: score descending, key ascending.

    Keys are unique within a query, so the order is total and the unstable sort is
    deterministic.
    """
    cdef Py_ssize_t q, i, begin, n, longest = 0
    cdef Item* items
    for q in range(q_start, q_stop):
        longest = max(longest, indptr[q + 1] - indptr[q])
    items = <Item*>malloc(max(longest, 1) * sizeof(Item))
    if items == NULL:
        raise MemoryError()
    with nogil:
        for q in range(q_start, q_stop):
            begin = indptr[q]
            n = indptr[q + 1] - begin
            for i in range(n):
                items[i].score = scores[begin + i]
                items[i].label = rels[begin + i]
                items[i].key = keys[begin + i]
            sort_items(items, n, 0)
            for i in range(n):
                ranked[begin + i] = items[i].label
                ranked_scores[begin + i] = items[i].score
    free(items)


cdef struct Query:
    # One query's ranked list and judgement counts, and prefix sums over its ranks.
    const double* rel          # ranked relevance values, all n documents
    const double* score        # their scores (tie groups, for the expectation over ties)
    Py_ssize_t n               # documents given
    Py_ssize_t ret             # documents retrieved: the first n, or fewer after the depth cut
    bint expected              # expectation over tie orderings instead of the given order
    double num_rel             # judged relevant (label >= level)
    double num_nonrel          # judged non-relevant (0 <= label < level)
    double rel_ret             # relevant among the retrieved
    double* hits               # hits[i]: relevant in ranks 1..i
    double* ap                 # ap[i]: sum of precision at relevant ranks 1..i
    double* dcg                # dcg[i]: sum of positive labels / log2(rank + 1), ranks 1..i
    double* nonrel             # nonrel[i]: judged non-relevant in ranks 1..i
    double* interpolated       # interpolated[c]: max precision at or after the c-th relevant


cdef inline double at_cut(const double* prefix, const Query* qu, double k) noexcept nogil:
    # Prefix value at rank k; ranks beyond the list add nothing.
    cdef Py_ssize_t i = <Py_ssize_t>k
    return prefix[i if i < qu.ret else qu.ret]


cdef inline Py_ssize_t group_end(const Query* qu, Py_ssize_t start) noexcept nogil:
    # One past the last document tied with the one at ``start`` (0-based).
    cdef Py_ssize_t end = start + 1
    while end < qu.n and qu.score[end] == qu.score[start]:
        end += 1
    return end


cdef void prepare_ordered(Query* qu, double level) noexcept nogil:
    cdef Py_ssize_t i
    cdef double hits = 0.0, ap = 0.0, dcg = 0.0, nonrel = 0.0, best, label
    for i in range(qu.ret):
        label = qu.rel[i]
        if label >= level:
            hits += 1.0
            ap += hits / (i + 1)
        elif label >= 0:
            nonrel += 1.0
        if label > 0:
            dcg += label / log2(i + 2.0)
        qu.hits[i + 1] = hits
        qu.ap[i + 1] = ap
        qu.dcg[i + 1] = dcg
        qu.nonrel[i + 1] = nonrel
    # Interpolated precision at the c-th relevant document: the best precision at any
    # rank from it down; c = 0 is the best precision anywhere.
    best = 0.0
    for i in range(qu.ret, 0, -1):
        best = max(best, qu.hits[i] / i)
        if qu.rel[i - 1] >= level:
            qu.interpolated[<Py_ssize_t>qu.hits[i]] = best
    qu.interpolated[0] = best


cdef void prepare_expected(Query* qu, double level) noexcept nogil:
    # McSherry & Najork: within a tie group of c documents, r of them relevant, each
    # position holds a relevant one with probability r/c, and given that, the expected
    # relevant count up to it is known; every prefix below is exact by linearity. Groups
    # span the whole list, so documents cut by the depth can still tie their way in.
    cdef Py_ssize_t start = 0, end, i, t
    cdef double c, r, nr, gain, before = 0.0, nonrel_before = 0.0, ap = 0.0, dcg = 0.0, label
    while start < qu.ret:
        end = group_end(qu, start)
        c = <double>(end - start)
        r = nr = gain = 0.0
        for i in range(start, end):
            label = qu.rel[i]
            if label >= level:
                r += 1.0
            elif label >= 0:
                nr += 1.0
            if label > 0:
                gain += label
        for i in range(start, min(end, qu.ret)):
            t = i - start + 1
            qu.hits[i + 1] = before + t * r / c
            qu.nonrel[i + 1] = nonrel_before + t * nr / c
            if r > 0:
                ap += (r / c) * (before + 1.0 + ((t - 1) * (r - 1) / (c - 1) if c > 1 else 0.0)) / (i + 1)
            dcg += (gain / c) / log2(i + 2.0)
            qu.ap[i + 1] = ap
            qu.dcg[i + 1] = dcg
        before += r
        nonrel_before += nr
        start = end


cdef void prepare(Query* qu, double level) noexcept nogil:
    qu.hits[0] = qu.ap[0] = qu.dcg[0] = qu.nonrel[0] = 0.0
    if qu.expected:
        prepare_expected(qu, level)
    else:
        prepare_ordered(qu, level)
    qu.rel_ret = qu.hits[qu.ret]


cdef double expected_first_hit(const Query* qu, double level, double k, bint reciprocal) noexcept nogil:
    # E[1/rank of the first relevant document] (reciprocal) or P(a relevant one in the
    # top k), over tie orderings, within the retrieved list.
    cdef Py_ssize_t start = 0, end, m
    cdef double c, r, p, total
    while start < qu.ret and start < k:
        end = group_end(qu, start)
        r = 0.0
        for m in range(start, end):
            r += qu.rel[m] >= level
        if r > 0:
            c = <double>(end - start)
            # P(first relevant at the m-th place of the group) = C(c-m, r-1) / C(c, r).
            p = r / c
            total = 0.0
            for m in range(1, end - start - <Py_ssize_t>r + 2):
                if start + m > qu.ret or (not reciprocal and start + m > k):
                    break
                total += p / (start + m) if reciprocal else p
                p *= (c - m - r + 1) / (c - m)
            return total
        start = end
    return 0.0


cdef double precision_at(const Query* qu, double k) noexcept nogil:
    return at_cut(qu.hits, qu, k) / k if k > 0 else 0.0


cdef double judged_preferences(const Query* qu, double level, bint inferred) noexcept nogil:
    # bpref (Buckley & Voorhees 2004) or infAP (Yilmaz & Aslam 2006): unjudged documents
    # are skipped, pooled-but-unjudged ones counted for infAP's estimate.
    cdef Py_ssize_t j
    cdef double nonrel = 0.0, rel = 0.0, pooled = 0.0, total = 0.0, label, fj
    for j in range(qu.ret):
        label = qu.rel[j]
        if label == NONPOOL:
            continue
        if label == UNJUDGED:
            pooled += 1.0
            continue
        if label < level:
            nonrel += 1.0
            continue
        rel += 1.0
        if inferred:
            if j == 0:
                total += 1.0
            else:
                fj = <double>j
                total += (1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * ((rel - 1 + nonrel + pooled) / fj)
                          * ((rel - 1 + INFAP_EPSILON) / (rel - 1 + nonrel + 2 * INFAP_EPSILON)))
        elif nonrel > 0:
            total += 1.0 - min(nonrel, qu.num_rel) / min(qu.num_nonrel, qu.num_rel)
        else:
            total += 1.0
    return total / qu.num_rel if qu.num_rel > 0 else 0.0


cdef inline double label_gain(double label, const double* gains, Py_ssize_t n_gains) noexcept nogil:
    # trec_eval's ndcg gains: a table by integer label (custom gains), else the label;
    # documents absent from the qrels or unjudged gain nothing.
    cdef Py_ssize_t level
    if label < 0:
        return 0.0
    level = <Py_ssize_t>label
    return gains[level] if level == label and level < n_gains else label


cdef double gained_dcg(const Query* qu, const double* gains, Py_ssize_t n_gains) noexcept nogil:
    # DCG of the retrieved list; under the expectation each position of a tie group
    # gets the group's mean gain.
    cdef Py_ssize_t start = 0, end, i
    cdef double total = 0.0, gain
    while start < qu.ret:
        end = group_end(qu, start) if qu.expected else start + 1
        gain = 0.0
        for i in range(start, end):
            gain += label_gain(qu.rel[i], gains, n_gains)
        gain /= end - start
        if gain != 0:
            for i in range(start, min(end, qu.ret)):
                total += gain / log2(i + 2.0)
        start = end
    return total


cdef double measure(const Query* qu, TrecMeasure kind, const double* p, double ideal, double level,
                    const double* gains, Py_ssize_t n_gains) noexcept nogil:
    cdef double a = qu.rel_ret, ret = <double>qu.ret, r = qu.num_rel, value, cut
    cdef Py_ssize_t i
    if kind == NUM_RET:
        return ret
    if kind == NUM_REL:
        return r
    if kind == NUM_REL_RET:
        return a
    # The geometric means (gm_map, gm_bpref) are taken over queries by the caller.
    if kind == MAP or kind == GM_MAP:
        return qu.ap[qu.ret] / r if a > 0 else 0.0
    if kind == MAP_CUT:
        return at_cut(qu.ap, qu, p[0]) / r if r > 0 else 0.0
    if kind == RPREC:
        cut = min(ret, r)
        return at_cut(qu.hits, qu, cut) / r if cut > 0 else 0.0
    if kind == BPREF or kind == GM_BPREF:
        return judged_preferences(qu, level, False)
    if kind == INFAP:
        return judged_preferences(qu, level, True)
    if kind == RECIP_RANK:
        if qu.expected:
            return expected_first_hit(qu, level, <double>qu.ret, True)
        for i in range(qu.ret):
            if qu.rel[i] >= level:
                return 1.0 / (i + 1)
        return 0.0
    if kind == IPREC:
        # Recall point as a number of relevant documents, rounded as trec_eval 10.0 does.
        cut = <double>lround(p[0] * r)
        return qu.interpolated[<Py_ssize_t>cut] if cut <= a and qu.ret > 0 else 0.0
    if kind == P:
        return precision_at(qu, p[0])
    if kind == RECALL:
        return at_cut(qu.hits, qu, p[0]) / r if r > 0 else 0.0
    if kind == RPREC_MULT:
        # trec_eval keeps the historical rounding (+0.9, truncated) for this one.
        return precision_at(qu, <double>(<int64_t>(p[0] * r + 0.9)))
    if kind == RELATIVE_P:
        return at_cut(qu.hits, qu, p[0]) / min(p[0], r) if r > 0 else 0.0
    if kind == SUCCESS:
        if qu.expected:
            return expected_first_hit(qu, level, p[0], False)
        return 1.0 if at_cut(qu.hits, qu, p[0]) > 0 else 0.0
    if kind == UTILITY:
        return p[0] * a + p[1] * (ret - a) + p[2] * (r - a) + p[3] * (0.0 + a - ret - r)
    if kind == NDCG:
        return gained_dcg(qu, gains, n_gains) / ideal if ideal > 0 else 0.0
    if kind == NDCG_CUT:
        return at_cut(qu.dcg, qu, p[0]) / ideal if ideal > 0 else 0.0
    if kind == SET_P:
        return a / ret if ret > 0 else 0.0
    if kind == SET_RELATIVE_P:
        return a / min(ret, r) if ret > 0 and r > 0 else 0.0
    if kind == SET_RECALL:
        return a / r if r > 0 else 0.0
    if kind == SET_MAP:
        return a * a / (ret * r) if ret > 0 and r > 0 else 0.0
    if kind == SET_F:
        if a == 0:
            return 0.0
        return (p[0] + 1.0) * (a / ret) * (a / r) / (p[0] * (a / ret) + a / r)
    # NUM_NONREL_JUDGED_RET
    return qu.nonrel[qu.ret]


def trec_measures(const double[::1] ranked, const double[::1] ranked_scores, const int64_t[::1] indptr,
                  const int64_t[::1] num_ret, const double[::1] num_rel, const double[::1] num_nonrel,
                  const int32_t[::1] kinds, const double[:, ::1] params, const double[:, ::1] ideal,
                  const double[:, ::1] gains, const int64_t[::1] gain_row, double level, bint expected,
                  Py_ssize_t q_start, Py_ssize_t q_stop, double[:, ::1] out):
    """Every measure of ``kinds`` for queries ``q_start:q_stop`` into ``out[q, m]``.

    Query ``q``'s documents, ranked, are ``ranked[indptr[q]:indptr[q+1]]`` (relevance
    values) and ``ranked_scores[...]``; the first ``num_ret[q]`` are retrieved.
    ``params[m]`` holds measure ``m``'s parameters (cutoff, recall fraction, utility
    coefficients ...), ``ideal[q, m]`` its ideal DCG where it has one, and
    ``gains[gain_row[m]]`` its custom ndcg gains by integer label (``gain_row[m] < 0``:
    the label is the gain). With ``expected``, every measure is its exact expectation
    over the orderings of tied scores; the caller only asks for those that have one.
    """
    cdef Py_ssize_t q, m, longest = 0, n_measures = kinds.shape[0], n_gains = gains.shape[1]
    cdef Query qu
    cdef double* work
    cdef const double* table
    for q in range(q_start, q_stop):
        longest = max(longest, num_ret[q])
    work = <double*>malloc(5 * (longest + 1) * sizeof(double))
    if work == NULL:
        raise MemoryError()
    qu.hits = work
    qu.ap = work + (longest + 1)
    qu.dcg = work + 2 * (longest + 1)
    qu.nonrel = work + 3 * (longest + 1)
    qu.interpolated = work + 4 * (longest + 1)
    qu.expected = expected
    with nogil:
        for q in range(q_start, q_stop):
            qu.n = indptr[q + 1] - indptr[q]
            qu.rel = &ranked[indptr[q]] if qu.n > 0 else NULL
            qu.score = &ranked_scores[indptr[q]] if qu.n > 0 else NULL
            qu.ret = num_ret[q]
            qu.num_rel = num_rel[q]
            qu.num_nonrel = num_nonrel[q]
            prepare(&qu, level)
            for m in range(n_measures):
                table = &gains[gain_row[m], 0] if gain_row[m] >= 0 else NULL
                out[q, m] = measure(&qu, <TrecMeasure>kinds[m], &params[m, 0], ideal[q, m], level,
                                    table, n_gains if table != NULL else 0)
    free(work)
