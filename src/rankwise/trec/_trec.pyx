"""trec_eval's measures over runs grouped by query and joined with their qrels.

Each query's judgements go into a small hash table, and every retrieved document looks
itself up there: its relevance value is the qrels label, NONPOOL (-1) for a document
absent from the qrels, or UNJUDGED (-2) for one with a negative label (pooled but not
judged, as infAP uses). Under a deterministic order (score descending, then a tie key:
document id descending for trec_eval's own policy) only the judged documents need a
place, so the rest of the list is never sorted: the judged ones are sorted, and one
pass of binary searches counts the documents ahead of each. The expectation over ties
ranks the whole list instead, since tie groups decide it. Prefix sums over the ranked
judged documents (relevant so far, average-precision terms, DCG) are built once per
query, so every cutoff of every measure is a lookup.
"""
from libc.math cimport INFINITY, fabs, floor, log2, lround, trunc
from libc.stdint cimport INT64_MAX, int32_t, int64_t, uint8_t
from libc.stdlib cimport free, malloc
from libc.string cimport memset

from rankwise._core._enums cimport *
from rankwise._core._gain cimport SAFE_GAIN, gain_scale, scaled, scaled_ratio
from ._ids cimport decimal_compare
from rankwise._core._hash cimport IdTable, home_slot, insert, lookup, table_bits, table_init, taken
from rankwise._core._intern cimport Spans, compare_spans, pointer
from rankwise._core._sort cimport Item, merge_sort_items, sort_items
from rankwise._core._stop cimport LONG_LOOP, POLL, POLL_MASK, flag_of, stopped, stopped_timed, was_stopped
from rankwise._core._ties cimport any_hit, ap_slope, ap_term, expected_relevant, first_hit


cdef double NONPOOL = -1.0
cdef double UNJUDGED = -2.0
# trec_eval's infAP smoothing constant.
cdef double INFAP_EPSILON = 0.00001
# Hash slots per judgement: at most an eighth full, so most lookups of absent documents
# (most of a run) stop at the first slot.
cdef int SLOTS_PER_JUDGEMENT = 8


cdef enum:
    # Ranks whose DCG discount is looked up: a libm log2 call costs about as much as the
    # rest of an entry's work (W2: 300,000 judged entries, 50,000 ideal ones).
    TABLED_RANKS = 1 << 12

# RANK_LOG2[r] = log2(r + 1.0), computed by the same log2 as ranks beyond the table.
cdef double RANK_LOG2[TABLED_RANKS]
cdef Py_ssize_t _rank
for _rank in range(TABLED_RANKS):
    RANK_LOG2[_rank] = log2(_rank + 1.0)


cdef inline double rank_log2(int64_t rank) noexcept nogil:
    # log2(rank + 1.0): the DCG discount of a 1-based rank.
    return RANK_LOG2[rank] if rank < TABLED_RANKS else log2(rank + 1.0)


cdef struct Judgements:
    # One query's judgements, keyed by document (_core/_hash.pxd, base 1: a zeroed table is empty).
    IdTable table
    int32_t* slots             # n < 2**31 - 1 judgements per query: trec.py checks
    const double* rels


cdef struct Order:
    # How a call breaks ties: the key kind and, optionally, labels first.
    int tie
    int label_order            # +1 higher labels first, -1 lower first, 0 labels ignored
    const int64_t* docs
    Spans doc_text             # TIE_BYTES: the table the docs are codes of
    const uint8_t* stop        # the call's stop flag (_stop.pxd)


cdef void judgements_build(Judgements* t, const int64_t* keys, const double* rels, Py_ssize_t n,
                           const uint8_t* stop) noexcept nogil:
    cdef Py_ssize_t j
    table_init(&t.table, table_bits(n, SLOTS_PER_JUDGEMENT), 1, keys)
    t.rels = rels
    memset(t.slots, 0, (<size_t>1 << t.table.bits) * sizeof(int32_t))
    for j in range(n):
        if (j & POLL_MASK) == 0 and stopped(stop):
            return
        insert(t.table, t.slots, keys[j], j, 0)


cdef inline double judgement(const Judgements* t, int64_t key) noexcept nogil:
    # The document's relevance: its label, UNJUDGED for a negative one, NONPOOL if absent.
    cdef int64_t j = lookup(t.table, t.slots, key)
    if j < 0:
        return NONPOOL
    return t.rels[j] if t.rels[j] >= 0 else UNJUDGED


cdef inline double row_judgement(const Judgements* t, const int64_t* docs, const int64_t* doc_map,
                                 Py_ssize_t i) noexcept nogil:
    # doc_map (string ids) turns a run document code into its qrels code, -1: never judged.
    cdef int64_t key = docs[i]
    if doc_map != NULL:
        key = doc_map[key]
        if key < 0:
            return NONPOOL
    return judgement(t, key)


cdef inline int64_t tie_key(const Order* o, Py_ssize_t i) noexcept nogil:
    return i if o.tie == TIE_POSITION else o.docs[i]


cdef bint judged_before(const void* order, const Item* a, const Item* b) noexcept nogil:
    # The rank order of judged documents under ``order`` (the call's Order): scores, which
    # differ for almost every pair, then labels (unjudged count as 0) when asked, then the
    # key. Keys are unique within a query, so equal keys mean a row compared with itself.
    cdef const Order* o = <const Order*>order
    cdef double label_a, label_b
    if a.score != b.score:
        return a.score > b.score
    if a.key == b.key:
        return False
    label_a = a.label if a.label > 0 else 0.0
    label_b = b.label if b.label > 0 else 0.0
    if o.label_order != 0 and label_a != label_b:
        return (label_a > label_b) == (o.label_order > 0)
    if o.tie == TIE_DECIMAL:
        return decimal_compare(a.key, b.key) > 0
    if o.tie == TIE_BYTES:
        # Reached only by equal scores (and labels): no docno is compared, nor the table
        # sorted, where scores decide.
        return compare_spans(o.doc_text.base, o.doc_text.offsets, a.key, b.key) > 0
    return a.key < b.key


cdef struct ScoreIndex:
    # One query's judged documents in rank order, and buckets over the range of their
    # scores: above[b] of them fall in buckets higher than b, which is where bucket b's
    # judged documents start.
    Item* judged
    double* scores             # their scores, then -inf
    int32_t* above
    Py_ssize_t m
    double low
    double scale
    double top


cdef inline int32_t bucket(double score, double low, double scale, double top) noexcept nogil:
    # Non-decreasing in the score (IEEE subtraction and scaling are monotone), which is
    # all the search needs: a judged document in a higher bucket scores strictly higher.
    # Scores outside the range (and infinities) land in the end buckets. Selects between
    # doubles already computed and a conversion to int32: a loop of them vectorises on SSE2.
    cdef double v = (score - low) * scale
    cdef double w = v if v >= 0 else 0.0
    w = w if w <= top else top
    return <int32_t>w  # 0 <= w <= top < 2**31 (NaN fails v >= 0): in range


cdef void index_build(ScoreIndex* x, const Order* o, const Item* found, Py_ssize_t m,
                      int32_t* home) noexcept nogil:
    # Rank the judged documents: a counting sort by bucket, higher buckets first, then a
    # sort within each bucket holding more than one.
    # At most 2**30 + 1 buckets, so that their numbers fit the int32 ``home`` (m < 2**31 - 1:
    # a query's judgements are fewer, trec.py checks, and ``above`` counts at most m).
    cdef Py_ssize_t j, b, first, end, n_buckets = min(8 * m, <Py_ssize_t>1 << 30) + 1
    cdef double low = INFINITY, high = -INFINITY, span
    for j in range(m):
        low = min(low, found[j].score)
        high = max(high, found[j].score)
    span = high - low
    # About eight buckets per judged score, so a row rarely shares its bucket with one.
    # A degenerate or infinite span puts everything in bucket 0.
    x.low = low if m > 0 else 0.0
    x.scale = n_buckets / span if span > 0 and span < INFINITY else 0.0
    x.top = <double>(n_buckets - 1)
    x.m = m
    memset(x.above, 0, (n_buckets + 1) * sizeof(int32_t))
    for j in range(m):
        home[j] = bucket(found[j].score, x.low, x.scale, x.top)
        x.above[home[j]] += 1
    # Counts become the end of each bucket's range (judged in its bucket or higher) ...
    for b in range(n_buckets - 1, -1, -1):
        x.above[b] += x.above[b + 1]
    # ... and filling each range from its end leaves its start there.
    for j in range(m):
        x.above[home[j]] -= 1
        x.judged[x.above[home[j]]] = found[j]
    end = m
    for b in range(n_buckets):
        first = x.above[b]
        if end - first > 1:
            merge_sort_items(x.judged + first, x.judged + m, end - first, judged_before, o, o.stop)
        end = first
    for j in range(m):
        x.scores[j] = x.judged[j].score
    x.scores[m] = -INFINITY


cdef Py_ssize_t docno_search(const ScoreIndex* x, const Order* o, Py_ssize_t j, const Item* row,
                             Py_ssize_t* steps) noexcept nogil:
    # preceding_slow's search among the judged documents tied with the row, from j, when
    # docnos break ties. They lie in the tie rule's order, so the ones that go before the
    # row are a prefix: galloping, then bisecting, finds its end in a few comparisons of
    # docno bytes, even when whole lists tie. (The other keys cost so little that their
    # walk is left as it was: the search would slow it, callgrind +30% on lists of 11
    # score values.) Invariant: judged[lo] goes first (or lo = j - 1), none from hi on.
    cdef Py_ssize_t lo = j - 1, hi = x.m, probe, step = 1
    while hi - lo > 1:
        probe = lo + step if lo + step < hi else lo + ((hi - lo) >> 1)
        steps[0] += 1
        if x.scores[probe] == row.score and judged_before(o, &x.judged[probe], row):
            lo = probe
            step <<= 1
        else:
            hi = probe
            step = x.m                  # bisecting from now on
    return hi


cdef Py_ssize_t preceding_slow(const ScoreIndex* x, const Order* o, Py_ssize_t j, double score,
                               Py_ssize_t i, double label, Py_ssize_t* walked) noexcept nogil:
    # The rare rows that share their bucket with more than one higher judged score, or
    # tie with a judged one: walk on, and let the tie rule decide among equal scores.
    cdef Py_ssize_t first = j, steps
    cdef Item row = Item(score, label, tie_key(o, i))
    while x.scores[j] > score:
        j += 1
    steps = j - first
    if o.tie == TIE_BYTES:
        j = docno_search(x, o, j, &row, &steps)
    else:
        while j < x.m and x.scores[j] == score and judged_before(o, &x.judged[j], &row):
            j += 1
        steps = j - first
    # Rows tied with very many judged documents walk past each (rows times judged): the
    # stop flag, and the time, are checked by the steps taken.
    walked[0] += steps
    if walked[0] >= POLL:
        walked[0] = 0
        stopped_timed(o.stop)
    return j


cdef struct Join:
    # The evaluated queries' run rows and their judgements: trec/evaluation.py's _Join.arrays().
    # Query q is run rows run_start[q]:run_stop[q], judged by qrels query qrels_query[q],
    # whose judgements are rows qrels_indptr[...] of qrels_keys / qrels_rel.
    const int64_t* docs
    const int64_t* doc_map     # run doc code -> qrels key (string ids), -1: never judged; or NULL
    const int64_t* run_start
    const int64_t* run_stop
    const int64_t* qrels_query
    const int64_t* qrels_indptr
    const int64_t* qrels_keys
    const double* qrels_rel


# Where an empty array points: an address, never NULL plus an offset.
cdef int64_t NO_INTS[1]
cdef double NO_REALS[1]


cdef inline const int64_t* ints(const int64_t[::1] a) noexcept:
    return &a[0] if a.shape[0] > 0 else NO_INTS


cdef inline const double* reals(const double[::1] a) noexcept:
    return &a[0] if a.shape[0] > 0 else NO_REALS


cdef Join join_of(tuple arrays):
    # The tuple's arrays outlive the call that reads them through the result.
    cdef const int64_t[::1] docs, doc_map, run_start, run_stop, qrels_query, qrels_indptr, qrels_keys
    cdef const double[::1] qrels_rel
    cdef Join j
    docs, doc_map, run_start, run_stop, qrels_query, qrels_indptr, qrels_keys, qrels_rel = arrays
    j.docs, j.run_start, j.run_stop = ints(docs), ints(run_start), ints(run_stop)
    j.doc_map = &doc_map[0] if doc_map.shape[0] > 0 else NULL
    j.qrels_query, j.qrels_indptr, j.qrels_keys = ints(qrels_query), ints(qrels_indptr), ints(qrels_keys)
    j.qrels_rel = reals(qrels_rel)
    return j


cdef inline void query_judgements(Judgements* table, const Join* j, Py_ssize_t q,
                                  const uint8_t* stop) noexcept nogil:
    cdef Py_ssize_t qq = j.qrels_query[q]
    judgements_build(table, j.qrels_keys + j.qrels_indptr[qq], j.qrels_rel + j.qrels_indptr[qq],
                     j.qrels_indptr[qq + 1] - j.qrels_indptr[qq], stop)


def judge(tuple join, Py_ssize_t q_start, Py_ssize_t q_stop, double[::1] rels, const uint8_t[::1] stop=None):
    """Relevance of each retrieved document of queries ``q_start:q_stop`` from the qrels.

    ``join`` is ``(docs, doc_map, run_start, run_stop, qrels_query, qrels_indptr,
    qrels_keys, qrels_rel)``: query ``q`` is run rows ``run_start[q]:run_stop[q]``, judged
    by qrels query ``qrels_query[q]``, whose judgements are ``qrels_indptr[...]`` rows of
    ``qrels_keys`` / ``qrels_rel``. A row's key is ``docs[i]``, or ``doc_map[docs[i]]``
    when ``doc_map`` is not empty (-1: absent from the qrels). Writes NONPOOL for documents
    absent from the query's judgements and UNJUDGED for negative labels. Returns early
    once ``stop`` (the call's stop flag, ``_stop.pxd``) is set.
    """
    cdef Py_ssize_t q, i, block
    cdef const uint8_t* flag = flag_of(stop)
    cdef Join j = join_of(join)
    cdef Judgements table
    table.slots = <int32_t*>malloc(judgement_slots(&j, q_start, q_stop) * sizeof(int32_t))
    if table.slots == NULL:
        raise MemoryError()
    with nogil:
        for q in range(q_start, q_stop):
            if stopped(flag):
                break
            query_judgements(&table, &j, q, flag)
            block = j.run_start[q]
            while block < j.run_stop[q]:
                if stopped(flag):
                    break
                for i in range(block, min(block + POLL, j.run_stop[q])):
                    rels[i] = row_judgement(&table, j.docs, j.doc_map, i)
                block += POLL
    free(table.slots)


cdef size_t judgement_slots(const Join* j, Py_ssize_t q_start, Py_ssize_t q_stop) noexcept:
    # Hash slots for the query among q_start:q_stop with the most judgements.
    cdef Py_ssize_t q, qq, most = 0
    for q in range(q_start, q_stop):
        qq = j.qrels_query[q]
        most = max(most, j.qrels_indptr[qq + 1] - j.qrels_indptr[qq])
    return <size_t>1 << table_bits(most, SLOTS_PER_JUDGEMENT)


cdef struct Workspace:
    # rank_judged's buffers, sized for the longest list of a call.
    int32_t* slots             # the judgements' hash table
    int64_t* candidates        # rows whose first hash slot is taken
    Item* found              # judged documents in row order
    int32_t* home              # their buckets, then per row: judged in higher buckets
    double* labels             # every row's relevance value (label-first policies)
    int64_t* hist              # 4 x (m + 1) counters
    ScoreIndex index
    Py_ssize_t walked          # steps of preceding_slow since it last checked the stop flag


cdef int workspace_init(Workspace* w, Py_ssize_t longest, size_t slots) noexcept nogil:
    w.walked = 0
    w.slots = <int32_t*>malloc(slots * sizeof(int32_t))
    w.candidates = <int64_t*>malloc((longest + 1) * sizeof(int64_t))
    w.found = <Item*>malloc((longest + 1) * sizeof(Item))
    w.home = <int32_t*>malloc((longest + 1) * sizeof(int32_t))
    w.labels = <double*>malloc((longest + 1) * sizeof(double))
    w.hist = <int64_t*>malloc(4 * (longest + 1) * sizeof(int64_t))
    w.index.judged = <Item*>malloc(2 * (longest + 1) * sizeof(Item))
    w.index.scores = <double*>malloc((longest + 1) * sizeof(double))
    w.index.above = <int32_t*>malloc((8 * longest + 2) * sizeof(int32_t))
    if (w.slots == NULL or w.candidates == NULL or w.found == NULL or w.home == NULL or w.labels == NULL
            or w.hist == NULL or w.index.judged == NULL or w.index.scores == NULL or w.index.above == NULL):
        return -1
    return 0


cdef void workspace_free(Workspace* w) noexcept nogil:
    free(w.slots)
    free(w.candidates)
    free(w.found)
    free(w.home)
    free(w.labels)
    free(w.hist)
    free(w.index.judged)
    free(w.index.scores)
    free(w.index.above)


cdef Py_ssize_t collect_judged(Workspace* w, const Judgements* t, const Order* o, const double* scores,
                               const int64_t* doc_map, Py_ssize_t start, Py_ssize_t stop) noexcept nogil:
    # Most rows are not judged and find their first hash slot empty: that test is
    # recorded without a branch, and only the rows that meet a taken slot are looked up.
    cdef Py_ssize_t i, c, n_candidates = 0, m = 0, block
    cdef double rel
    block = start
    while block < stop:
        if stopped(o.stop):
            return 0
        if doc_map == NULL:
            for i in range(block, min(block + POLL, stop)):
                w.candidates[n_candidates] = i
                n_candidates += taken(t.table, t.slots, home_slot(t.table, o.docs[i], 0))
        else:
            for i in range(block, min(block + POLL, stop)):
                w.candidates[n_candidates] = i
                n_candidates += doc_map[o.docs[i]] >= 0
        block += POLL
    if o.label_order != 0:
        for i in range(stop - start):
            w.labels[i] = NONPOOL
    for c in range(n_candidates):
        if (c & POLL_MASK) == 0 and stopped(o.stop):
            return 0
        i = w.candidates[c]
        rel = row_judgement(t, o.docs, doc_map, i)
        if rel != NONPOOL:
            w.labels[i - start] = rel
            w.found[m].score = scores[i]
            w.found[m].label = rel
            w.found[m].key = tie_key(o, i)
            m += 1
    return m


cdef inline bint rank_row(Workspace* w, const Order* o, const ScoreIndex* x, const double* row_scores,
                          const int32_t* higher, Py_ssize_t start, Py_ssize_t r, Py_ssize_t m) noexcept nogil:
    """rank_rows' work for row r; False if the stop flag ended it."""
    # Judged documents of lower buckets score strictly lower, and scores[m] is -inf,
    # so no bounds are needed. A row usually meets at most one judged score in its
    # bucket, counted without a branch.
    cdef double score = row_scores[r]
    cdef Py_ssize_t j = higher[r]
    j += x.scores[j] > score
    if x.scores[j] >= score:
        j = preceding_slow(x, o, j, score, start + r, w.labels[r] if o.label_order != 0 else 0.0, &w.walked)
        if was_stopped(o.stop):
            return False
    w.hist[(r & 3) * (m + 1) + j] += 1
    return True


cdef void rank_rows(Workspace* w, const Order* o, const double* scores, Py_ssize_t start, Py_ssize_t stop,
                    Py_ssize_t m) noexcept nogil:
    # hist[(r & 3) * (m + 1) + j]: rows r preceded by exactly j judged documents, in four
    # interleaved histograms, so that consecutive rows rarely wait on each other's
    # increment of one counter.
    cdef Py_ssize_t r, n = stop - start, block
    cdef const double* row_scores = scores + start
    cdef int32_t* higher = w.home
    cdef const ScoreIndex* x = &w.index
    cdef double low = x.low, scale = x.scale, top = x.top
    memset(w.hist, 0, 4 * (m + 1) * sizeof(int64_t))
    # The judged of higher buckets first, in loops of independent rows: that takes the
    # float arithmetic and a load off each row's chain of dependent loads below. The
    # buckets in a loop of their own, vectorised, then the lookups.
    for r in range(n):
        higher[r] = bucket(row_scores[r], low, scale, top)
    for r in range(n):
        higher[r] = x.above[higher[r]]
    if n <= LONG_LOOP:
        for r in range(n):
            if not rank_row(w, o, x, row_scores, higher, start, r, m):
                return
    else:
        block = 0
        while block < n:
            if stopped(o.stop):
                return
            for r in range(block, min(block + POLL, n)):
                if not rank_row(w, o, x, row_scores, higher, start, r, m):
                    return
            block += POLL


cdef struct Entries:
    # rank_judged's output: query q's judged documents are n[q] (rank, relevance) pairs
    # in rank order from start[q].
    const int64_t* start
    int64_t* rank
    double* rel
    int64_t* n


cdef void rank_query(Workspace* w, Judgements* table, const Order* o, const Join* j, const double* scores,
                     Py_ssize_t q, const Entries* e) noexcept nogil:
    cdef Py_ssize_t m, k
    cdef int64_t total = 0
    query_judgements(table, j, q, o.stop)
    m = collect_judged(w, table, o, scores, j.doc_map, j.run_start[q], j.run_stop[q])
    index_build(&w.index, o, w.found, m, w.home)
    rank_rows(w, o, scores, j.run_start[q], j.run_stop[q], m)
    for k in range(m):
        total += w.hist[k] + w.hist[m + 1 + k] + w.hist[2 * (m + 1) + k] + w.hist[3 * (m + 1) + k]
        e.rank[e.start[q] + k] = total
        e.rel[e.start[q] + k] = w.index.judged[k].label
    e.n[q] = m


def rank_judged(const double[::1] scores, tuple join, tuple order, tuple entries, Py_ssize_t q_start,
                Py_ssize_t q_stop, const uint8_t[::1] stop=None):
    """The rank of every judged retrieved document, without sorting the rest.

    ``join`` lays out rows and judgements as for :func:`judge`. ``order`` is ``(tie,
    doc_data, doc_offsets, label_order)``: ranks follow score descending, then ``tie`` (a
    TieKey): the row's position, the bytes of string ``docs[i]`` of the table (``doc_data``,
    ``doc_offsets``, as a StringTable holds it) descending, or ``docs[i]``'s decimal text
    descending, with labels first (``label_order`` +1 higher first, -1 lower first) if
    asked. Each query's judged documents are collected and ranked; then every row
    finds how many of them precede it (through buckets over their scores, O(1) on
    average), and the rank of the j-th is the count of rows preceded by at most j of
    them. ``entries`` is ``(entry_start, entry_rank, entry_rel, n_entries)``: query ``q``
    writes ``n_entries[q]`` (rank, relevance) pairs in rank order from ``entry_start[q]``.
    Returns early once ``stop`` (``_stop.pxd``) is set.
    """
    cdef Py_ssize_t q, longest = 0
    cdef const uint8_t[::1] doc_data
    cdef const int64_t[::1] doc_offsets, entry_start
    cdef int64_t[::1] entry_rank, n_entries
    cdef double[::1] entry_rel
    cdef Order o
    cdef Join j = join_of(join)
    cdef Entries e
    cdef Judgements table
    cdef Workspace w
    cdef const double* row_scores = reals(scores)
    o.tie, doc_data, doc_offsets, o.label_order = order
    o.docs, o.stop = j.docs, flag_of(stop)
    o.doc_text = Spans(pointer(doc_data), ints(doc_offsets))
    entry_start, entry_rank, entry_rel, n_entries = entries
    e.start = ints(entry_start)
    e.rank = &entry_rank[0] if entry_rank.shape[0] > 0 else NULL   # written only for judged documents
    e.rel = &entry_rel[0] if entry_rel.shape[0] > 0 else NULL
    e.n = &n_entries[0] if n_entries.shape[0] > 0 else NULL
    for q in range(q_start, q_stop):
        longest = max(longest, j.run_stop[q] - j.run_start[q])
    if workspace_init(&w, longest, judgement_slots(&j, q_start, q_stop)):
        workspace_free(&w)
        raise MemoryError()
    table.slots = w.slots
    with nogil:
        for q in range(q_start, q_stop):
            if stopped(o.stop):
                break
            rank_query(&w, &table, &o, &j, row_scores, q, &e)
    workspace_free(&w)


def rank_relevance(const double[::1] scores, const double[::1] rels,
                   const int64_t[::1] indptr, Py_ssize_t q_start, Py_ssize_t q_stop,
                   double[::1] ranked, double[::1] ranked_scores, const uint8_t[::1] stop=None):
    """Write each query's relevance values (and scores) in rank order: score descending, row ascending.

    The row breaks ties, so the order is total and the unstable sort is deterministic.
    Returns early once ``stop`` (``_stop.pxd``) is set.
    """
    cdef Py_ssize_t q, i, begin, n, longest = 0
    cdef const uint8_t* flag = flag_of(stop)
    cdef Item* items
    for q in range(q_start, q_stop):
        longest = max(longest, indptr[q + 1] - indptr[q])
    items = <Item*>malloc(max(longest, 1) * sizeof(Item))
    if items == NULL:
        raise MemoryError()
    with nogil:
        for q in range(q_start, q_stop):
            if stopped(flag):
                break
            begin = indptr[q]
            n = indptr[q + 1] - begin
            for i in range(n):
                items[i].score = scores[begin + i]
                items[i].label = rels[begin + i]
                items[i].key = begin + i
            sort_items(items, n, 0, flag)
            if was_stopped(flag):
                break
            for i in range(n):
                ranked[begin + i] = items[i].label
                ranked_scores[begin + i] = items[i].score
    free(items)


def judgement_counts(const int64_t[::1] indptr, const double[::1] values, double level, Py_ssize_t g_start,
                     Py_ssize_t g_stop, double[::1] num_rel, double[::1] num_nonrel, const uint8_t[::1] stop=None):
    """Per qrels query (rows ``indptr[g]:indptr[g+1]``): labels >= level, and 0 <= label < level."""
    cdef Py_ssize_t g, i
    cdef int64_t rel, nonrel
    cdef const uint8_t* flag = flag_of(stop)
    with nogil:
        for g in range(g_start, g_stop):
            if stopped(flag):
                break
            rel = nonrel = 0
            for i in range(indptr[g], indptr[g + 1]):
                rel += values[i] >= level
                nonrel += (values[i] >= 0) & (values[i] < level)
            num_rel[g] = <double>rel
            num_nonrel[g] = <double>nonrel


cdef Py_ssize_t largest_gains(const double* gains, Py_ssize_t n, Py_ssize_t keep, double* best,
                              Item* items, const uint8_t* stop) noexcept nogil:
    # The ``keep`` largest positive gains, descending: by insertion into a short list
    # when few are kept (ndcg_cut), by sorting them all otherwise.
    cdef Py_ssize_t i, j, kept = 0
    if keep <= 64:
        for i in range(n):
            if (i & POLL_MASK) == 0 and stopped(stop):
                return kept
            if gains[i] <= 0 or keep == 0 or (kept == keep and gains[i] <= best[kept - 1]):
                continue
            j = kept if kept < keep else keep - 1
            while j > 0 and best[j - 1] < gains[i]:
                best[j] = best[j - 1]
                j -= 1
            best[j] = gains[i]
            kept = min(kept + 1, keep)
        return kept
    for i in range(n):
        if gains[i] > 0:
            items[kept].score = gains[i]
            items[kept].label = 0.0
            items[kept].key = kept
            kept += 1
    sort_items(items, kept, 0, stop)
    kept = min(kept, keep)
    for i in range(kept):
        best[i] = items[i].score
    return kept


cdef struct Ideal:
    # ideal_dcg's buffers, for the longest query of a call, and its cutoffs.
    double* best
    double* prefix
    Item* items
    Py_ssize_t keep            # gains kept per query: no more than the largest cutoff needs
    const int64_t* cutoffs
    Py_ssize_t n_cutoffs


cdef void query_ideal(const Ideal* x, const double* gains, Py_ssize_t n, double* out, int32_t* scale,
                      const uint8_t* stop) noexcept nogil:
    # One query's ideal DCG at each cutoff (out[c]) and its gain scale.
    cdef Py_ssize_t i, c
    cdef int e
    n = largest_gains(gains, n, x.keep, x.best, x.items, stop)
    e = gain_scale(x.best[0]) if n > 0 else 0
    scale[0] = e
    x.prefix[0] = 0.0
    for i in range(n):
        x.prefix[i + 1] = x.prefix[i] + scaled(x.best[i], e) / rank_log2(i + 1)
    for c in range(x.n_cutoffs):
        out[c] = x.prefix[n if x.cutoffs[c] >= n else <Py_ssize_t>x.cutoffs[c]]


def ideal_dcg(const int64_t[::1] indptr, const double[::1] gains, const int64_t[::1] cutoffs, Py_ssize_t g_start,
              Py_ssize_t g_stop, double[:, ::1] out, int32_t[::1] scale, const uint8_t[::1] stop=None):
    """Ideal DCG of qrels queries ``g_start:g_stop`` cut at each cutoff, times 2**``scale[g]``: ``out[g, c]``.

    The query's positive gains (rows ``indptr[g]:indptr[g+1]``) in descending order,
    each over log2(rank + 1), summed over the ranks below ``cutoffs[c] + 1`` (cutoffs
    >= 1; 2**63 - 1 keeps them all). ``scale[g]`` is 0 unless the query's largest gain
    is below SAFE_GAIN, where the gains are scaled into the normal range (``_gain.pxd``).
    """
    cdef Py_ssize_t g, c, longest = 0
    cdef int64_t largest = 0
    cdef const uint8_t* flag = flag_of(stop)
    cdef const double* all_gains = reals(gains)
    cdef Ideal x
    for g in range(g_start, g_stop):
        longest = max(longest, indptr[g + 1] - indptr[g])
    for c in range(cutoffs.shape[0]):
        largest = max(largest, cutoffs[c])
    x.keep = longest if largest >= longest else <Py_ssize_t>largest
    x.cutoffs, x.n_cutoffs = ints(cutoffs), cutoffs.shape[0]
    x.best = <double*>malloc((longest + 1) * sizeof(double))
    x.prefix = <double*>malloc((longest + 1) * sizeof(double))
    x.items = <Item*>malloc((longest + 1) * sizeof(Item))
    if x.best != NULL and x.prefix != NULL and x.items != NULL:
        with nogil:
            for g in range(g_start, g_stop):
                if stopped(flag):
                    break
                query_ideal(&x, all_gains + indptr[g], indptr[g + 1] - indptr[g], &out[g, 0], &scale[g], flag)
    free(x.best)
    free(x.prefix)
    free(x.items)
    if x.best == NULL or x.prefix == NULL or x.items == NULL:
        raise MemoryError()


cdef struct Query:
    # One query's ranked judged documents and judgement counts, and prefix sums over them.
    # Entries are the judged documents in rank order with their ranks (ordered ties), or
    # every document (dense: the expectation over ties, which needs the scores of the
    # whole list for its tie groups).
    const double* rel          # relevance value of each entry
    bint dense                 # entries are the whole list (rank = position + 1)
    const int64_t* rank        # otherwise: 1-based rank of each entry, increasing
    const double* score        # dense only: scores of the whole list
    Py_ssize_t n               # entries given
    Py_ssize_t m               # entries within the retrieved depth
    Py_ssize_t ret             # documents retrieved: the list, or fewer after the depth cut
    bint expected              # expectation over tie orderings instead of the given order
    double num_rel             # judged relevant (label >= level)
    double num_nonrel          # judged non-relevant (0 <= label < level)
    double rel_ret             # relevant among the retrieved
    double* hits               # hits[j]: relevant among the first j entries
    double* ap                 # ap[j]: sum of precision at relevant entries 1..j
    double* dcg                # dcg[j]: sum of positive labels / log2(rank + 1), entries 1..j
    double* nonrel             # nonrel[j]: judged non-relevant among the first j entries
    double* interpolated       # interpolated[c]: max precision at or after the c-th relevant
    const uint8_t* stop        # the call's stop flag (_stop.pxd)


cdef inline int64_t rank_of(const Query* qu, Py_ssize_t j) noexcept nogil:
    return j + 1 if qu.dense else qu.rank[j]


cdef inline Py_ssize_t entries_to(const Query* qu, int64_t k) noexcept nogil:
    # Entries ranked at or above rank k (k <= ret).
    cdef Py_ssize_t lo = 0, hi = qu.m, mid
    if qu.dense:
        return <Py_ssize_t>k
    while lo < hi:
        mid = (lo + hi) >> 1
        if qu.rank[mid] <= k:
            lo = mid + 1
        else:
            hi = mid
    return lo


cdef inline double at_cut(const double* prefix, const Query* qu, int64_t k) noexcept nogil:
    # Prefix value at rank k >= 0; ranks beyond the list add nothing.
    return prefix[entries_to(qu, k if k < qu.ret else qu.ret)]


cdef inline Py_ssize_t group_end(const Query* qu, Py_ssize_t start) noexcept nogil:
    # Dense entries: one past the last document tied with the one at ``start`` (0-based).
    cdef Py_ssize_t end = start + 1
    while end < qu.n and qu.score[end] == qu.score[start]:
        end += 1
    return end


cdef void prepare_ordered(Query* qu, double level) noexcept nogil:
    cdef Py_ssize_t j
    cdef int64_t rank
    cdef double hits = 0.0, ap = 0.0, dcg = 0.0, nonrel = 0.0, best, label
    for j in range(qu.m):
        if (j & POLL_MASK) == 0 and stopped(qu.stop):
            return
        label = qu.rel[j]
        rank = rank_of(qu, j)
        if label >= level:
            hits += 1.0
            ap += hits / rank
        elif label >= 0:
            nonrel += 1.0
        if label > 0:
            dcg += label / rank_log2(rank)
        qu.hits[j + 1] = hits
        qu.ap[j + 1] = ap
        qu.dcg[j + 1] = dcg
        qu.nonrel[j + 1] = nonrel
    # Interpolated precision at the c-th relevant document: the best precision at any
    # rank from it down, which is reached at a relevant one; c = 0 is the best anywhere.
    best = 0.0
    for j in range(qu.m, 0, -1):
        if qu.rel[j - 1] >= level:
            best = max(best, qu.hits[j] / rank_of(qu, j - 1))
            qu.interpolated[<Py_ssize_t>qu.hits[j]] = best  # a whole count, 1 to m
    qu.interpolated[0] = best


cdef void prepare_expected(Query* qu, double level) noexcept nogil:
    # McSherry & Najork: within a tie group of c documents, r of them relevant, each
    # position holds a relevant one with probability r/c, and given that, the expected
    # relevant count up to it is known; every prefix below is exact by linearity. Groups
    # span the whole list, so documents cut by the depth can still tie their way in.
    cdef Py_ssize_t start = 0, end, i, t
    cdef double c, r, nr, gain, frac, slope, before = 0.0, nonrel_before = 0.0, ap = 0.0, dcg = 0.0, label
    while start < qu.ret and not stopped(qu.stop):
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
        frac = r / c
        slope = ap_slope(c, r)
        for i in range(start, min(end, qu.ret)):
            if (i & POLL_MASK) == 0 and stopped(qu.stop):
                return
            t = i - start + 1
            qu.hits[i + 1] = before + expected_relevant(c, r, t)
            qu.nonrel[i + 1] = nonrel_before + expected_relevant(c, nr, t)
            if r > 0:
                ap += ap_term(frac, slope, before, t, i + 1)
            dcg += (gain / c) / rank_log2(i + 1)
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
    qu.rel_ret = qu.hits[qu.m]


cdef double expected_first_hit(const Query* qu, double level, int64_t k, bint reciprocal) noexcept nogil:
    # E[1/rank of the first relevant document] (reciprocal) or P(a relevant one in the
    # top k), over tie orderings, within the retrieved list.
    cdef Py_ssize_t start = 0, end, i
    cdef int64_t r, limit = min(k, <int64_t>qu.ret)
    while start < limit and not stopped(qu.stop):
        end = group_end(qu, start)
        r = 0
        for i in range(start, end):
            r += qu.rel[i] >= level
        if r > 0:
            if reciprocal:
                return first_hit(start, end - start, r, limit, True, qu.stop)
            return any_hit(end - start, r, min(limit - start, end - start), qu.stop)
        start = end
    return 0.0


cdef double precision_at(const Query* qu, int64_t k) noexcept nogil:
    return at_cut(qu.hits, qu, k) / <double>k if k > 0 else 0.0


cdef double judged_at(const Query* qu, int64_t k, bint unjudged) noexcept nogil:
    # trec_eval's unj (documents not judged >= 0 in the top k, over k: beyond the list none
    # count) or ir_measures' Judged (judged ones over the documents in the top k; 0 for none).
    cdef double top = <double>min(k, <int64_t>qu.ret)
    cdef double judged = at_cut(qu.hits, qu, k) + at_cut(qu.nonrel, qu, k)
    if unjudged:
        return (top - judged) / <double>k
    return judged / top if top > 0 else 0.0


cdef double judged_preferences(const Query* qu, double level, bint inferred) noexcept nogil:
    # bpref (Buckley & Voorhees 2004) or infAP (Yilmaz & Aslam 2006): unjudged documents
    # are skipped, pooled-but-unjudged ones counted for infAP's estimate.
    cdef Py_ssize_t j
    cdef double nonrel = 0.0, rel = 0.0, pooled = 0.0, total = 0.0, label, fj
    for j in range(qu.m):
        if (j & POLL_MASK) == 0 and stopped(qu.stop):
            break
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
            fj = <double>(rank_of(qu, j) - 1)
            if fj == 0:
                total += 1.0
            else:
                total += (1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * ((rel - 1 + nonrel + pooled) / fj)
                          * ((rel - 1 + INFAP_EPSILON) / (rel - 1 + nonrel + 2 * INFAP_EPSILON)))
        elif nonrel > 0:
            total += 1.0 - min(nonrel, qu.num_rel) / min(qu.num_nonrel, qu.num_rel)
        else:
            total += 1.0
    return total / qu.num_rel if qu.num_rel > 0 else 0.0


cdef struct Spec:
    # One measure column of trec_measures: its kind, real parameters, cutoff, ideal DCG
    # (for this query) and custom ndcg gains.
    TrecMeasure kind
    const double* p            # the measure's real parameters
    int64_t k                  # its cutoff (1 to 2**63 - 1) where it has one
    double ideal               # ideal DCG times 2**ideal_scale, where it has one
    int ideal_scale
    const int64_t* levels      # custom gains: gains[i] for the integer label levels[i] (sorted)
    const double* gains
    Py_ssize_t n_gains


cdef inline double label_gain(double label, const Spec* s) noexcept nogil:
    # trec_eval's ndcg gains: the custom gain of an integer label (levels sorted, any
    # int64; NONPOOL and UNJUDGED are the levels -1 and -2 that trec_eval gives documents
    # absent from the qrels and unjudged ones), else the label, and nothing below 0.
    cdef Py_ssize_t lo = 0, hi = s.n_gains, mid
    cdef int64_t key
    if s.n_gains > 0 and label == floor(label) and -9223372036854775808.0 <= label < 9223372036854775808.0:
        key = <int64_t>label
        while lo < hi:
            mid = (lo + hi) >> 1
            if s.levels[mid] < key:
                lo = mid + 1
            else:
                hi = mid
        if lo < s.n_gains and s.levels[lo] == key:
            return s.gains[lo]
    return label if label > 0 else 0.0


cdef double gained_dcg(const Query* qu, const Spec* s, int64_t k, int e, double* largest) noexcept nogil:
    # DCG of the retrieved list down to rank k, its gains times 2**e (_gain.pxd), and the
    # largest |gain| it sums in ``largest``; under the expectation each position of a tie
    # group gets the group's mean gain. Summed in rank order, as trec_eval sums it.
    cdef Py_ssize_t start = 0, end, i, j = 0
    cdef int64_t rank, last = min(<int64_t>qu.ret, k)
    cdef double total = 0.0, gain, one, most = 0.0, unjudged = label_gain(NONPOOL, s)
    largest[0] = 0.0
    if not qu.expected and unjudged != 0:
        # A gain for documents absent from the qrels (level -1): every rank counts.
        for rank in range(1, last + 1):
            if (rank & POLL_MASK) == 0 and stopped(qu.stop):
                break
            if j < qu.m and rank_of(qu, j) == rank:
                gain = label_gain(qu.rel[j], s)
                j += 1
            else:
                gain = unjudged
            if gain != 0:
                most = max(most, fabs(gain))
                total += scaled(gain, e) / rank_log2(rank)
        largest[0] = most
        return total
    if not qu.expected:
        for i in range(qu.m):
            if rank_of(qu, i) > last or ((i & POLL_MASK) == 0 and stopped(qu.stop)):
                break
            gain = label_gain(qu.rel[i], s)
            if gain != 0:
                most = max(most, fabs(gain))
                total += scaled(gain, e) / rank_log2(rank_of(qu, i))
        largest[0] = most
        return total
    while start < last and not stopped(qu.stop):
        end = group_end(qu, start)
        gain = 0.0
        for i in range(start, end):
            if (i & POLL_MASK) == 0 and stopped(qu.stop):
                return total
            one = label_gain(qu.rel[i], s)
            most = max(most, fabs(one))
            gain += scaled(one, e)
        gain /= end - start
        if gain != 0:
            for i in range(start, min(end, last)):
                if (i & POLL_MASK) == 0 and stopped(qu.stop):
                    return total
                total += gain / rank_log2(i + 1)
        start = end
    largest[0] = most
    return total


cdef double ndcg(const Query* qu, const Spec* s) noexcept nogil:
    # The DCG down to rank k (ndcg_cut's from the prefix sums) over the ideal DCG, which is
    # times 2**ideal_scale. A DCG below SAFE_GAIN is summed again with its gains scaled by
    # the largest of them, once a first pass has found it (_gain.pxd).
    cdef bint cut = s.kind == TREC_NDCG_CUT
    cdef int64_t k = s.k if cut else INT64_MAX
    cdef double value, largest = 0.0
    cdef int e = 0
    if not s.ideal > 0:
        return 0.0
    if cut:
        value = at_cut(qu.dcg, qu, k)
    else:
        value = gained_dcg(qu, s, k, 0, &largest)
    if fabs(value) < SAFE_GAIN:
        if cut:
            gained_dcg(qu, s, k, 0, &largest)
        e = gain_scale(largest)
        if e > 0:
            value = gained_dcg(qu, s, k, e, &largest)
    return scaled_ratio(value, e, s.ideal, s.ideal_scale)


cdef double set_measure(const Query* qu, const Spec* s) noexcept nogil:
    # The measures of the retrieved set and the counts: no rank enters them.
    cdef double a = qu.rel_ret, ret = <double>qu.ret, r = qu.num_rel
    cdef const double* p = s.p
    if s.kind == TREC_NUM_RET:
        return ret
    if s.kind == TREC_NUM_REL:
        return r
    if s.kind == TREC_NUM_REL_RET:
        return a
    if s.kind == TREC_UTILITY:
        return p[0] * a + p[1] * (ret - a) + p[2] * (r - a) + p[3] * (0.0 + a - ret - r)
    if s.kind == TREC_SET_P:
        return a / ret if ret > 0 else 0.0
    if s.kind == TREC_SET_RELATIVE_P:
        return a / min(ret, r) if ret > 0 and r > 0 else 0.0
    if s.kind == TREC_SET_RECALL:
        return a / r if r > 0 else 0.0
    if s.kind == TREC_SET_MAP:
        return a * a / (ret * r) if ret > 0 and r > 0 else 0.0
    if s.kind == TREC_SET_F:
        if a == 0:
            return 0.0
        return (p[0] + 1.0) * (a / ret) * (a / r) / (p[0] * (a / ret) + a / r)
    # TREC_NUM_NONREL_JUDGED_RET
    return qu.nonrel[qu.m]


cdef double hit_measure(const Query* qu, double level, int64_t k, bint reciprocal) noexcept nogil:
    # recip_rank (reciprocal) or success at k.
    cdef Py_ssize_t i
    if qu.expected:
        return expected_first_hit(qu, level, k, reciprocal)
    if not reciprocal:
        return 1.0 if at_cut(qu.hits, qu, k) > 0 else 0.0
    for i in range(qu.m):
        if qu.rel[i] >= level:
            return 1.0 / rank_of(qu, i)
    return 0.0


cdef double measure(const Query* qu, const Spec* s, double level) noexcept nogil:
    cdef double a = qu.rel_ret, ret = <double>qu.ret, r = qu.num_rel, cut
    cdef TrecMeasure kind = s.kind
    cdef int64_t k = s.k
    # The geometric means (gm_map, gm_bpref) are taken over queries by the caller.
    if kind == TREC_MAP or kind == TREC_GM_MAP:
        return qu.ap[qu.m] / r if a > 0 else 0.0
    if kind == TREC_MAP_CUT:
        return at_cut(qu.ap, qu, k) / r if r > 0 else 0.0
    if kind == TREC_RPREC:
        cut = min(ret, r)
        return at_cut(qu.hits, qu, <int64_t>cut) / r if cut > 0 else 0.0  # cut: a count, at most ret
    if kind == TREC_BPREF or kind == TREC_GM_BPREF or kind == TREC_INFAP:
        return judged_preferences(qu, level, kind == TREC_INFAP)
    if kind == TREC_RECIP_RANK or kind == TREC_SUCCESS:
        return hit_measure(qu, level, qu.ret if kind == TREC_RECIP_RANK else k, kind == TREC_RECIP_RANK)
    if kind == TREC_IPREC:
        # Recall point as a number of relevant documents, lround(p * R) as trec_eval 10.0
        # has it, decided in doubles first: points at or below 0 (negative fractions) get
        # the best precision anywhere, points beyond the relevant retrieved get 0.
        cut = s.p[0] * r
        if qu.ret <= 0 or cut >= a + 0.5:
            return 0.0
        return qu.interpolated[lround(cut) if cut >= 0.5 else 0]
    if kind == TREC_P:
        return precision_at(qu, k)
    if kind == TREC_RECALL:
        return at_cut(qu.hits, qu, k) / r if r > 0 else 0.0
    if kind == TREC_RPREC_MULT:
        # trec_eval keeps the historical rounding (+0.9, truncated) for this one; a
        # cutoff below 1 gives 0, one beyond the list the relevant retrieved over it.
        cut = trunc(s.p[0] * r + 0.9)
        if cut < 1:
            return 0.0
        # 1 <= cut < ret here: p is finite (|p| <= 9999.99, trec/names.py) and r a count.
        return at_cut(qu.hits, qu, qu.ret if cut >= ret else <int64_t>cut) / cut
    if kind == TREC_RELATIVE_P:
        return at_cut(qu.hits, qu, k) / min(<double>k, r) if r > 0 else 0.0
    if kind == TREC_NDCG or kind == TREC_NDCG_CUT:
        return ndcg(qu, s)
    if kind == TREC_UNJ or kind == TREC_JUDGED:
        return judged_at(qu, k, kind == TREC_UNJ)
    return set_measure(qu, s)


cdef struct Columns:
    # trec_measures' measure columns (its docstring).
    const int32_t* kinds
    const double* params       # params_per_measure per measure
    Py_ssize_t params_per_measure
    const int64_t* cutoffs
    const double* ideal        # n_measures per query
    const int32_t* ideal_scale
    const int64_t* gain_levels
    const double* gain_values
    const int64_t* gain_start
    Py_ssize_t n


cdef Columns columns_of(tuple columns):
    # The tuple's arrays outlive the call that reads them through the result.
    cdef const int32_t[::1] kinds
    cdef const double[:, ::1] params, ideal
    cdef const int64_t[::1] cutoffs, gain_levels, gain_start
    cdef const int32_t[:, ::1] ideal_scale
    cdef const double[::1] gain_values
    cdef Columns c
    kinds, params, cutoffs, ideal, ideal_scale, gain_levels, gain_values, gain_start = columns
    c.n = kinds.shape[0]
    c.kinds = &kinds[0] if c.n > 0 else NULL
    c.params = &params[0, 0] if c.n > 0 else NULL
    c.params_per_measure = params.shape[1]
    c.cutoffs = ints(cutoffs)
    c.ideal = &ideal[0, 0] if ideal.shape[0] > 0 and c.n > 0 else NULL
    c.ideal_scale = &ideal_scale[0, 0] if ideal_scale.shape[0] > 0 and c.n > 0 else NULL
    c.gain_levels, c.gain_values, c.gain_start = ints(gain_levels), reals(gain_values), ints(gain_start)
    return c


cdef inline void spec_of(Spec* s, const Columns* c, Py_ssize_t q, Py_ssize_t m) noexcept nogil:
    cdef int64_t first = c.gain_start[m]
    s.kind = <TrecMeasure>c.kinds[m]
    s.p = c.params + c.params_per_measure * m
    s.k = c.cutoffs[m]
    s.ideal = c.ideal[q * c.n + m]
    s.ideal_scale = c.ideal_scale[q * c.n + m]
    s.n_gains = c.gain_start[m + 1] - first
    s.levels = c.gain_levels + first if s.n_gains > 0 else NULL
    s.gains = c.gain_values + first if s.n_gains > 0 else NULL


cdef struct Ranked:
    # trec_measures' entries and judgement counts (its docstring).
    const double* entry_rel
    const int64_t* entry_rank
    const double* scores
    const int64_t* entry_start
    const int64_t* n_entries
    const int64_t* num_ret
    const double* num_rel
    const double* num_nonrel


cdef Ranked ranked_of(tuple entries, tuple counts):
    # The tuples' arrays outlive the call that reads them through the result.
    cdef const double[::1] entry_rel, scores, num_rel, num_nonrel
    cdef const int64_t[::1] entry_rank, entry_start, n_entries, num_ret
    cdef Ranked r
    entry_rel, entry_rank, scores, entry_start, n_entries = entries
    num_ret, num_rel, num_nonrel = counts
    r.entry_rel, r.entry_rank, r.scores = reals(entry_rel), ints(entry_rank), reals(scores)
    r.entry_start, r.n_entries = ints(entry_start), ints(n_entries)
    r.num_ret, r.num_rel, r.num_nonrel = ints(num_ret), reals(num_rel), reals(num_nonrel)
    return r


cdef inline void query_of(Query* qu, const Ranked* r, Py_ssize_t q) noexcept nogil:
    # Points ``qu`` at query q's entries; its prefix sums are still to be prepared.
    qu.n = r.n_entries[q]
    qu.rel = NULL
    qu.rank = NULL
    qu.score = NULL
    if qu.n > 0:
        qu.rel = r.entry_rel + r.entry_start[q]
        if qu.dense:
            qu.score = r.scores + r.entry_start[q]
        else:
            qu.rank = r.entry_rank + r.entry_start[q]
    qu.ret = r.num_ret[q]
    qu.m = qu.n
    qu.m = entries_to(qu, qu.ret)
    qu.num_rel = r.num_rel[q]
    qu.num_nonrel = r.num_nonrel[q]


def trec_measures(tuple entries, tuple counts, tuple columns, double level, bint expected, Py_ssize_t q_start,
                  Py_ssize_t q_stop, double[:, ::1] out, const uint8_t[::1] stop=None):
    """Every measure of ``columns`` for queries ``q_start:q_stop`` into ``out[q, m]``.

    ``entries`` is ``(entry_rel, entry_rank, scores, entry_start, n_entries)``: query
    ``q``'s entries are ``n_entries[q]`` rows from ``entry_start[q]``, relevance values
    ``entry_rel`` at 1-based ranks ``entry_rank`` (increasing; the judged documents, from
    :func:`rank_judged`), or, with ``expected``, the whole ranked list with its ``scores``
    (from :func:`rank_relevance`; ``entry_rank`` is unused), since the expectation over
    ties needs the tie groups. ``counts`` is ``(num_ret, num_rel, num_nonrel)``: the first
    ``num_ret[q]`` ranks are retrieved. ``columns`` is ``(kinds, params, cutoffs, ideal,
    ideal_scale, gain_levels, gain_values, gain_start)``: measure ``m`` is the TrecMeasure
    ``kinds[m]``, ``params[m]`` holds its real parameters (recall fraction, utility
    coefficients ...), ``cutoffs[m]`` its cutoff (1 to 2**63 - 1) where it has one,
    ``ideal[q, m]`` its ideal DCG times 2**``ideal_scale[q, m]`` where it has one (from
    :func:`ideal_dcg`), and ``gain_start[m]:gain_start[m + 1]`` its custom ndcg gains:
    ``gain_values`` for the integer labels ``gain_levels`` (sorted; other labels are their
    own gain). With ``expected``, every measure is its exact expectation over the
    orderings of tied scores; the caller only asks for those that have one. Returns early
    once ``stop`` (``_stop.pxd``) is set.
    """
    cdef Py_ssize_t q, m, longest = 0
    cdef Query qu
    cdef Spec s
    cdef Ranked r = ranked_of(entries, counts)
    cdef Columns c = columns_of(columns)
    cdef double* work
    for q in range(q_start, q_stop):
        longest = max(longest, r.n_entries[q])
    work = <double*>malloc(5 * (longest + 1) * sizeof(double))
    if work == NULL:
        raise MemoryError()
    qu.hits, qu.ap, qu.dcg = work, work + (longest + 1), work + 2 * (longest + 1)
    qu.nonrel, qu.interpolated = work + 3 * (longest + 1), work + 4 * (longest + 1)
    qu.expected = qu.dense = expected
    qu.stop = flag_of(stop)
    with nogil:
        for q in range(q_start, q_stop):
            if stopped(qu.stop):
                break
            query_of(&qu, &r, q)
            prepare(&qu, level)
            if was_stopped(qu.stop):  # the prefix sums may be incomplete
                break
            for m in range(c.n):
                spec_of(&s, &c, q, m)
                out[q, m] = measure(&qu, &s, level)
    free(work)
