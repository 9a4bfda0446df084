"""List metrics of top-k recommendation lists against each user's relevant items.

A user's list holds item ids in rank order (-1 pads it at the end); the relevant items are
a CSR row of item ids (sorted, unique) and grades. One pass over the list finds each
item's grade: a per-thread array of uint16 marks, one per item, holds 2 * tag for the
current user's relevant items and 2 * tag + 1 for the items already seen in its list,
where the tag grows by one per user, so that nothing needs clearing after a user (the
array is zeroed once every MAX_TAG users). Each recommended item then costs one load, one
compare and one store, 13 instructions in all (callgrind), against 29 for a bitmap of two
bits per item that is cleared after each user, and a hash set per user (implicit's
``ranking_metrics_at_k``) costs several times as much. The grade of a hit, a rare event,
is found by binary search in the row. The same pass checks the list: an id out of range,
an item twice, an id after the -1 padding.

Every metric then reads the hits (position, grade) in rank order, R (relevant items of
the user, grade >= level, retrieved or not) and the ideal ranking (all of the user's
grades, sorted descending). The arithmetic is that of ``lists/_listwise.pyx`` under the
``stable`` policy, term by term, so that a list holding all relevant items of its user
gives the bits of ``rw.evaluate``.
"""
from libc.math cimport M_LN2, frexp, ldexp, pow
from libc.stdint cimport INT64_MAX, int32_t, int64_t, uint8_t, uint16_t, uint64_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memset

from rankwise._core._enums cimport *
from rankwise._core._gain cimport (SAFE_GAIN, err_prob, exponential_gain, fill_gain_tables, gain_scale, log2_next,
                                   scaled_ratio, unscale)
from rankwise._core._sort cimport Item, sort_items
from rankwise._core._stop cimport POLL, flag_of, stopped, was_stopped

fill_gain_tables()

ctypedef fused item_t:
    int32_t
    int64_t


cdef enum:
    # Users between two clearings of the marks: tags 1..MAX_TAG, marks up to 2 * MAX_TAG + 1.
    MAX_TAG = 32767
    # What walk_row found wrong (error[2]); error[0] is the user, error[1] the position
    # (from 0), error[3] the first position of a repeated item.
    BAD_ID = 1
    REPEATED = 2
    AFTER_PADDING = 3


cdef struct Spec:
    int kind
    int64_t k               # cutoff, INT64_MAX for none
    int64_t cutoff          # the cutoff as given (0: none)
    bint flag               # exponential gain, or graded RBP
    int variant
    double p


cdef struct Grades:
    double level
    double max_grade
    double grade_mant       # max_grade = grade_mant * 2**grade_exp, grade_mant in [0.5, 1)
    int grade_exp


cdef struct Relevant:
    const int64_t* indptr
    const int64_t* indices
    const double* grades


cdef struct User:
    # One user's row, as the metrics read it.
    Py_ssize_t n_hits
    int64_t* pos            # 1-based positions of the recommended items with a grade > 0
    double* grade           # and their grades
    int64_t n_rel           # R: relevant items (grade >= level), retrieved or not
    Py_ssize_t n_graded     # items with a grade > 0: the ideal ranking's length
    const int64_t* rel_start
    const double* rel_grades
    Item* ideal             # the ideal ranking, sorted once a metric asks
    bint ideal_ready


cdef struct Scratch:
    uint16_t* marks         # per item: 2 * tag for the relevant items of the current user,
                            # 2 * tag + 1 for the items seen in its list, less for older users
    Py_ssize_t n_marks
    uint16_t tag            # the current user's, 1..MAX_TAG
    int64_t* pos
    double* grade
    Item* ideal


# ---------------------------------------------------------------- one list

cdef inline uint16_t next_tag(Scratch* w) noexcept nogil:
    # Marks of earlier users are below the new tag's; once the tags run out, all are zeroed
    # (every MAX_TAG users: a memset of 2 bytes per item, a few per user).
    if w.tag == MAX_TAG:
        memset(w.marks, 0, w.n_marks * sizeof(uint16_t))
        w.tag = 0
    w.tag += 1
    return w.tag


cdef inline void mark_relevant(uint16_t* marks, const int64_t* ids, Py_ssize_t n, uint16_t base) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(n):
        marks[ids[i]] = base


cdef inline double grade_of(const int64_t* ids, const double* grades, Py_ssize_t n, int64_t item) noexcept nogil:
    # The item is in the row (its bit says so): binary search for it.
    cdef Py_ssize_t lo = 0, hi = n - 1, mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if ids[mid] < item:
            lo = mid + 1
        else:
            hi = mid
    return grades[lo]


cdef Py_ssize_t first_position(const item_t* row, Py_ssize_t n, int64_t item) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(n):
        if row[i] == item:
            return i
    return -1


cdef int report(int64_t* error, int64_t user, Py_ssize_t pos, int kind, Py_ssize_t first) noexcept nogil:
    error[0] = user
    error[1] = pos
    error[2] = kind
    error[3] = first
    return 1


cdef Py_ssize_t padding_end(const item_t* row, Py_ssize_t start, Py_ssize_t n) noexcept nogil:
    # Where the first id after the -1 at ``start`` sits, or -1 when only padding follows.
    cdef Py_ssize_t i
    for i in range(start + 1, n):
        if row[i] != -1:
            return i
    return -1


cdef int walk_row(const item_t* row, Py_ssize_t n, int64_t n_items, User* u, uint16_t* marks, uint16_t base,
                  int64_t user, int64_t* error, Py_ssize_t* length) noexcept nogil:
    """Hits of one list into u (``marks`` at ``base`` for the user's relevant items); 1 and
    ``error`` set when the list is bad. ``length``: the list's length, without the padding."""
    cdef Py_ssize_t i, bad, n_hits = 0
    cdef int64_t item
    cdef uint16_t mark
    # In locals: the stores to marks could alias u's fields, which the compiler would reload.
    cdef int64_t* pos = u.pos
    cdef double* grade = u.grade
    length[0] = n
    for i in range(n):
        item = row[i]
        if <uint64_t> item >= <uint64_t> n_items:
            if item != -1:
                return report(error, user, i, BAD_ID, -1)
            bad = padding_end(row, i, n)
            if bad >= 0:
                return report(error, user, bad, AFTER_PADDING, i)
            length[0] = i
            break
        mark = marks[item]
        marks[item] = base + 1
        if mark >= base:
            if mark != base:
                return report(error, user, i, REPEATED, first_position(row, i, item))
            pos[n_hits] = i + 1
            grade[n_hits] = grade_of(u.rel_start, u.rel_grades, u.n_graded, item)
            n_hits += 1
    u.n_hits = n_hits
    return 0


# ---------------------------------------------------------------- metrics of one user

cdef double item_value(const Spec* s, double label, const Grades* g, int e) noexcept nogil:
    """A hit's DCG gain or RBP relevance, times 2**e (_gain.pxd; as _listwise's item_value)."""
    if s.kind == RBP:
        if not s.flag:
            return 1.0 if label >= g.level else 0.0
        if e == 0:
            return label / g.max_grade
        return ldexp(label, e - g.grade_exp) / g.grade_mant
    if e == 0:
        return exponential_gain(label) if s.flag else label
    return ldexp(label, e) * M_LN2 if s.flag else ldexp(label, e)


cdef double position_weight(int kind, int64_t pos, double p) noexcept nogil:
    if kind == RBP:
        return pow(p, <double> (pos - 1)) - pow(p, <double> pos)
    return 1.0 / log2_next(pos)


cdef double weighted(const Spec* s, int kind, const User* u, const Grades* g, int e) noexcept nogil:
    """DCG or RBP of the hits within the cutoff, times 2**e."""
    cdef Py_ssize_t i
    cdef double acc = 0.0
    cdef Spec as_kind = s[0]
    as_kind.kind = kind
    for i in range(u.n_hits):
        if u.pos[i] > s.k:
            break
        acc += item_value(&as_kind, u.grade[i], g, e) * position_weight(kind, u.pos[i], s.p)
    return acc


cdef double scaled_weighted(const Spec* s, int kind, const User* u, const Grades* g, int* scale) noexcept nogil:
    """weighted() times 2**scale, rescaled from the largest summed grade when the sum is
    below SAFE_GAIN (as _listwise's scaled_weighted)."""
    cdef double value = weighted(s, kind, u, g, scale[0]), largest = 0.0
    cdef Py_ssize_t i
    cdef int e
    if value < SAFE_GAIN and (kind == DCG or s.flag):
        for i in range(u.n_hits):
            if u.pos[i] > s.k:
                break
            largest = largest if largest >= u.grade[i] else u.grade[i]
        e = gain_scale(largest if kind == DCG else largest / g.max_grade)
        if e > scale[0]:
            scale[0] = e
            value = weighted(s, kind, u, g, e)
    return value


cdef double ideal_dcg(const Spec* s, User* u, const Grades* g, int* scale) noexcept nogil:
    """DCG of the user's grades sorted descending, cut at k (all of them: IDEAL_ALL), times 2**scale."""
    cdef Py_ssize_t i, n
    cdef double acc = 0.0, label, value = 0.0, last = -1.0
    cdef bint ordered = True
    cdef Spec gain = s[0]
    gain.kind = DCG
    if not u.ideal_ready:
        for i in range(u.n_graded):
            u.ideal[i].score = u.rel_grades[i]
            u.ideal[i].label = u.rel_grades[i]
            u.ideal[i].key = i
            ordered &= i == 0 or u.rel_grades[i] <= u.rel_grades[i - 1]
        # Binary grades (all equal) are in order already.
        if not ordered:
            sort_items(u.ideal, u.n_graded, 0, NULL)
        u.ideal_ready = True
    n = u.n_graded if s.variant == IDEAL_ALL else <Py_ssize_t> min(<int64_t> u.n_graded, s.k)
    scale[0] = gain_scale(u.ideal[0].label) if n > 0 else 0
    for i in range(n):
        label = u.ideal[i].label
        if label != last:
            value = item_value(&gain, label, g, scale[0])
            last = label
        acc += value / log2_next(i + 1)
    return acc


cdef void binary_counts(const User* u, int64_t k, double level, double* tp, double* ap) noexcept nogil:
    """Relevant hits within k, and AP's sum of precisions at them."""
    cdef Py_ssize_t i
    cdef int64_t hits = 0
    ap[0] = 0.0
    for i in range(u.n_hits):
        if u.pos[i] > k:
            break
        if u.grade[i] >= level:
            hits += 1
            ap[0] += <double> hits / u.pos[i]
    tp[0] = <double> hits


cdef double first_relevant(const User* u, int64_t k, double level) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(u.n_hits):
        if u.grade[i] >= level:
            return 1.0 / u.pos[i] if u.pos[i] <= k else 0.0
    return 0.0


cdef double err(const User* u, int64_t k, double max_grade) noexcept nogil:
    cdef Py_ssize_t i
    cdef double acc = 0.0, survive = 1.0, r
    for i in range(u.n_hits):
        if u.pos[i] > k:
            break
        r = err_prob(u.grade[i], max_grade)
        acc += survive * r / u.pos[i]
        survive *= 1.0 - r
    return acc


cdef double divided(double x, int64_t n) noexcept nogil:
    return x / n if n > 0 else 0.0


cdef double binary_metric(const Spec* s, const User* u, const Grades* g) noexcept nogil:
    """RR, AP, P, R, Rprec, F1, Hits: from the relevant hits within the cutoff."""
    cdef double tp, ap
    if s.kind == RR:
        return first_relevant(u, s.k, g.level)
    binary_counts(u, u.n_rel if s.kind == RPREC else s.k, g.level, &tp, &ap)
    if s.kind == AP:
        if s.variant == BY_HITS:
            return divided(ap, <int64_t> tp)
        return divided(ap, min(u.n_rel, s.k) if s.variant == BY_MIN else u.n_rel)
    if s.kind == PRECISION:
        return tp / s.cutoff
    if s.kind == RECALL:
        return divided(tp, min(u.n_rel, s.k) if s.variant == BY_MIN else u.n_rel)
    if s.kind == RPREC:
        return divided(tp, u.n_rel)
    if s.kind == F1:
        # In double: cutoff + R overflows int64 for cutoffs near 2**63.
        return 2.0 * tp / (<double> s.cutoff + <double> u.n_rel)
    return 1.0 if tp > 0 else 0.0


cdef double metric_value(const Spec* s, User* u, const Grades* g) noexcept nogil:
    cdef int scale = 0, ideal_scale = 0
    cdef double ideal, value
    if s.kind == DCG or s.kind == RBP:
        value = scaled_weighted(s, s.kind, u, g, &scale)
        return unscale(value, scale)
    if s.kind == NDCG:
        ideal = ideal_dcg(s, u, g, &ideal_scale)
        if not ideal > 0:
            return 0.0
        scale = ideal_scale
        value = scaled_weighted(s, DCG, u, g, &scale)
        return scaled_ratio(value, scale, ideal, ideal_scale)
    if s.kind == ERR:
        return err(u, s.k, g.max_grade)
    return binary_metric(s, u, g)


# ---------------------------------------------------------------- driver

cdef struct Task:
    const int64_t* indptr   # the lists: user u's is items[indptr[u]:indptr[u+1]]
    int64_t n_items
    Relevant rel
    const Spec* specs
    Py_ssize_t n_specs
    Grades grades
    double* values          # user u, metric j at values[u * n_specs + j]
    int64_t* n_relevant
    int64_t* lengths
    int64_t* error
    const uint8_t* stop


cdef int64_t count_relevant(const double* grades, Py_ssize_t n, double level) noexcept nogil:
    cdef Py_ssize_t i
    cdef int64_t r = 0
    for i in range(n):
        r += grades[i] >= level
    return r


cdef int one_user(const item_t* items, Py_ssize_t q, const Task* t, Scratch* w) noexcept nogil:
    cdef User u
    cdef Py_ssize_t j, length = 0, n = t.indptr[q + 1] - t.indptr[q]
    cdef const item_t* row = items + t.indptr[q]
    cdef int status
    cdef uint16_t base
    u.pos = w.pos
    u.grade = w.grade
    u.ideal = w.ideal
    u.ideal_ready = False
    u.rel_start = t.rel.indices + t.rel.indptr[q]
    u.rel_grades = t.rel.grades + t.rel.indptr[q]
    u.n_graded = t.rel.indptr[q + 1] - t.rel.indptr[q]
    u.n_rel = count_relevant(u.rel_grades, u.n_graded, t.grades.level)
    base = 2 * next_tag(w)
    mark_relevant(w.marks, u.rel_start, u.n_graded, base)
    status = walk_row(row, n, t.n_items, &u, w.marks, base, q, t.error, &length)
    if status != 0:
        return status
    t.n_relevant[q] = u.n_rel
    t.lengths[q] = length
    for j in range(t.n_specs):
        t.values[q * t.n_specs + j] = metric_value(&t.specs[j], &u, &t.grades)
    return 0


cdef int run_users(const item_t* items, Py_ssize_t q_start, Py_ssize_t q_stop, const Task* t,
                   Scratch* w) noexcept nogil:
    cdef Py_ssize_t q, done = POLL
    cdef int status
    for q in range(q_start, q_stop):
        # Polled before the first user, then every POLL items of lists and at least every
        # 64 users.
        done += t.indptr[q + 1] - t.indptr[q] + 1024
        if done >= POLL:
            done = 0
            if stopped(t.stop):
                return 0
        status = one_user(items, q, t, w)
        if status != 0:
            return status
    return 0


cdef int evaluate_users(const item_t* items, Py_ssize_t q_start, Py_ssize_t q_stop, const Task* t,
                        Py_ssize_t max_relevant) noexcept nogil:
    cdef Scratch w
    cdef int status = -1
    cdef size_t cap = <size_t> max(max_relevant, 1)
    w.n_marks = t.n_items
    w.tag = 0
    w.marks = <uint16_t*> calloc(<size_t> t.n_items, sizeof(uint16_t))
    w.pos = <int64_t*> malloc(cap * sizeof(int64_t))
    w.grade = <double*> malloc(cap * sizeof(double))
    w.ideal = <Item*> malloc(cap * sizeof(Item))
    if w.marks != NULL and w.pos != NULL and w.grade != NULL and w.ideal != NULL:
        status = run_users(items, q_start, q_stop, t, &w)
    free(w.marks)
    free(w.pos)
    free(w.grade)
    free(w.ideal)
    return status


def evaluate_range(const item_t[::1] items, const int64_t[::1] indptr, tuple relevant, tuple spec,
                   dict options, Py_ssize_t q_start, Py_ssize_t q_stop, tuple output,
                   int64_t[::1] error, const uint8_t[::1] stop=None):
    """Fill users q_start..q_stop of ``output = (values, n_relevant, lengths)``.

    ``items[indptr[u]:indptr[u+1]]`` is user u's list (int32 or int64 ids; -1 pads it at the
    end); ``relevant = (indptr, indices, grades)`` the users' relevant items (CSR, per row
    sorted and unique ids, grades > 0), whose longest row is ``options["max_relevant"]``;
    ``spec = (kinds, cutoffs, flags, params, variants)``, one entry per column of
    ``values``; ``options``: ``n_items`` (ids are 0..n_items-1), ``level``,
    ``max_grade``. Returns 0, or 1 with ``error`` = (user, position, kind, first position)
    for the first bad list of the range (an id out of range, repeated, or after the
    padding), the rows from that user on left unwritten. Releases the GIL.
    """
    cdef const int64_t[::1] rel_indptr, rel_indices
    cdef const double[::1] grades
    cdef const int32_t[::1] kinds
    cdef const int64_t[::1] cutoffs
    cdef const uint8_t[::1] flags, variants
    cdef const double[::1] params
    cdef double[:, ::1] values
    cdef int64_t[::1] n_relevant, lengths
    cdef Task t
    cdef Spec* specs
    cdef Py_ssize_t j, max_relevant = options["max_relevant"]
    cdef int status
    rel_indptr, rel_indices, grades = relevant
    kinds, cutoffs, flags, params, variants = spec
    values, n_relevant, lengths = output
    if error.shape[0] != 4 or not (kinds.shape[0] == cutoffs.shape[0] == flags.shape[0] == params.shape[0]
                                   == variants.shape[0] == values.shape[1]):
        raise ValueError("kinds, cutoffs, flags, params, variants and the columns of values must agree; "
                         "error holds 4 numbers")
    if not (indptr.shape[0] == rel_indptr.shape[0] == values.shape[0] + 1
            == n_relevant.shape[0] + 1 == lengths.shape[0] + 1) or not 0 <= q_start <= q_stop < indptr.shape[0]:
        raise ValueError("indptr, relevant's indptr and the outputs must cover the same users")
    t.indptr = &indptr[0]
    t.n_items = options["n_items"]
    t.rel.indptr = &rel_indptr[0]
    t.rel.indices = &rel_indices[0] if rel_indices.shape[0] > 0 else NULL
    t.rel.grades = &grades[0] if grades.shape[0] > 0 else NULL
    t.n_specs = kinds.shape[0]
    t.grades.level = options["level"]
    t.grades.max_grade = options["max_grade"]
    t.grades.grade_mant = frexp(t.grades.max_grade, &t.grades.grade_exp)
    t.values = &values[0, 0] if values.shape[0] > 0 and t.n_specs > 0 else NULL
    t.n_relevant = &n_relevant[0] if n_relevant.shape[0] > 0 else NULL
    t.lengths = &lengths[0] if lengths.shape[0] > 0 else NULL
    t.error = &error[0]
    t.stop = flag_of(stop)
    specs = <Spec*> malloc(max(t.n_specs, 1) * sizeof(Spec))
    if specs == NULL:
        raise MemoryError("rankwise: could not allocate the metric table")
    for j in range(t.n_specs):
        specs[j].kind = kinds[j]
        specs[j].cutoff = cutoffs[j]
        specs[j].k = cutoffs[j] if cutoffs[j] > 0 else INT64_MAX
        specs[j].flag = flags[j]
        specs[j].variant = variants[j]
        specs[j].p = params[j]
    t.specs = specs
    with nogil:
        status = evaluate_users(&items[0] if items.shape[0] > 0 else NULL, q_start, q_stop, &t, max_relevant)
    free(specs)
    if status < 0:
        raise MemoryError("rankwise: could not allocate the per-thread workspace")
    return status
