"""TREC text: whole-file tokenizing, checks of the ids, writing.

Strings live as byte spans interned by ``_core/_intern.pxd``: a table of n strings is
``data`` (uint8, concatenated) and ``offsets`` (int64, n + 1).

The parser walks a whole file held in memory once, without a Python object per line:
fields are split on the bytes C's ``isspace`` accepts (so ``\\r`` of a ``\\r\\n`` ending
never reaches a field), ids are interned on the fly and numbers are converted in place.
"""
import numpy as np

cimport cython

from rankwise._core._enums import LineErrorKind

from libc.math cimport floor, isfinite
from libc.stdint cimport int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memchr, memcpy, memset
from cpython.bytes cimport PyBytes_FromStringAndSize
from cpython.mem cimport PyMem_Free

from rankwise._core._enums cimport NOT_FINITE, NOT_NUMBER, TOO_FEW, TOO_MANY
from rankwise._core._intern cimport (BATCH, MIN_SLOTS, Arena, Interner, Spans, hash_bytes, interner_add_owned,
                                     interner_free, interner_hash, interner_init, interner_reserve, interner_table,
                                     pointer, prefetch, prefetch_matches, same_bytes, slot_of)
from rankwise._core._stop cimport POLL_MASK, flag_of, stopped, was_stopped


cdef extern from "Python.h":
    # repr(float) is PyOS_double_to_string(x, 'r', 0, Py_DTSF_ADD_DOT_0, NULL).
    char* PyOS_double_to_string(double val, char format_code, int precision, int flags,
                                int* ptype) except NULL
    int Py_DTSF_ADD_DOT_0


cdef extern from *:
    """
    /* strtod in the C locale whatever the process locale: a program that called
       setlocale() must not make "0.5" unreadable (trec_eval never calls it). */
    #if defined(_WIN32)
    #include <locale.h>
    static _locale_t rankwise_c_locale = NULL;
    static int rankwise_c_locale_init(void) {
        rankwise_c_locale = _create_locale(LC_NUMERIC, "C");
        return rankwise_c_locale != NULL;
    }
    static double rankwise_strtod(const char* s, char** end) {
        return _strtod_l(s, end, rankwise_c_locale);
    }
    #else
    #include <locale.h>
    #if defined(__APPLE__)
    #include <xlocale.h>
    #endif
    static locale_t rankwise_c_locale = (locale_t)0;
    static int rankwise_c_locale_init(void) {
        rankwise_c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
        return rankwise_c_locale != (locale_t)0;
    }
    static double rankwise_strtod(const char* s, char** end) {
        return strtod_l(s, end, rankwise_c_locale);
    }
    #endif
    """
    int c_locale_init "rankwise_c_locale_init"() noexcept nogil
    double c_strtod "rankwise_strtod"(const char* s, char** end) noexcept nogil


if not c_locale_init():
    raise ImportError("rankwise.trec._text: cannot create the C locale for number parsing")


cdef enum:
    NEWLINE = 10
    SPACE = 32
    HASH = 35
    QRELS_FIELDS = 4
    RUN_FIELDS = 6
    NO_MEMORY = 99
    STOPPED = 98
    # Tokens copied into a stack buffer for strtod; longer ones are allocated.
    NUMBER_BUFFER = 64

# Exact powers of ten: a mantissa below 2**53 times or over one of these is rounded once,
# which is the correctly rounded result (Clinger's fast path).
cdef double POW10[23]
POW10[:] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
            1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22]
cdef uint64_t MANTISSA_LIMIT = (<uint64_t>1) << 53


# C isspace in the C locale, as a table: one load per byte.
cdef uint8_t BLANK[256]
BLANK[:] = [1 if c == SPACE or 9 <= c <= 13 else 0 for c in range(256)]


cdef inline bint is_blank(uint8_t c) noexcept nogil:
    return BLANK[c]


# ---------------------------------------------------------------------------- numbers

cdef struct Decimal:
    # A token read as sign, decimal digits, one point and an exponent.
    uint64_t mantissa          # its first 19 significant digits
    int digits                 # how many those are
    int fraction               # digits after the point (up to 100000)
    int exponent               # (up to 100000)
    bint negative
    bint exp_negative
    bint any_digit


cdef inline Py_ssize_t scan_mantissa(const uint8_t* p, Py_ssize_t n, Decimal* d) noexcept nogil:
    # Sign, digits and one point; where they end (a 20th significant digit ends them too).
    cdef Py_ssize_t i = 0
    cdef bint in_fraction = False
    cdef uint8_t c
    if n > 0 and (p[0] == 43 or p[0] == 45):  # + -
        d.negative = p[0] == 45
        i = 1
    while i < n:
        c = p[i]
        if c >= 48 and c <= 57:
            d.any_digit = True
            if d.mantissa != 0 or c != 48:
                if d.digits == 19:
                    break
                d.mantissa = d.mantissa * 10 + (c - 48)
                d.digits += 1
            d.fraction += in_fraction
            if d.fraction > 100000:
                break
        elif c == 46 and not in_fraction:  # .
            in_fraction = True
        else:
            break
        i += 1
    return i


cdef inline Py_ssize_t scan_exponent(const uint8_t* p, Py_ssize_t n, Py_ssize_t i, Decimal* d) noexcept nogil:
    # The exponent from p[i] on, if any; where it ends, or -1 for an "e" without digits.
    if i < n and (p[i] == 101 or p[i] == 69):  # e E
        i += 1
        if i < n and (p[i] == 43 or p[i] == 45):
            d.exp_negative = p[i] == 45
            i += 1
        if not (i < n and p[i] >= 48 and p[i] <= 57):
            return -1
        while i < n and p[i] >= 48 and p[i] <= 57 and d.exponent < 100000:
            d.exponent = d.exponent * 10 + (p[i] - 48)
            i += 1
    return i


cdef inline bint fast_decimal(const uint8_t* p, Py_ssize_t n, double* out) noexcept nogil:
    # The exact fast path of parse_number; False where strtod must decide.
    cdef Decimal d
    cdef int e10
    memset(&d, 0, sizeof(Decimal))
    cdef Py_ssize_t i = scan_mantissa(p, n, &d)
    if not d.any_digit or scan_exponent(p, n, i, &d) != n:
        return False
    e10 = (-d.exponent if d.exp_negative else d.exponent) - d.fraction
    if d.mantissa == 0:
        out[0] = -0.0 if d.negative else 0.0
        return True
    if d.mantissa <= MANTISSA_LIMIT and -22 <= e10 <= 22:
        out[0] = <double>d.mantissa * POW10[e10] if e10 >= 0 else <double>d.mantissa / POW10[-e10]
        if d.negative:
            out[0] = -out[0]
        return True
    return False


cdef bint strtod_token(const uint8_t* p, Py_ssize_t n, double* out) noexcept nogil:
    # strtod (C locale) of a NUL-terminated copy; True if it read the whole token.
    cdef char small[NUMBER_BUFFER]
    cdef char* copy = &small[0] if n < NUMBER_BUFFER else <char*>malloc(n + 1)
    cdef char* end
    cdef Py_ssize_t read
    if copy == NULL:
        return False
    memcpy(copy, p, n)
    copy[n] = 0
    out[0] = c_strtod(copy, &end)
    read = end - copy
    if n >= NUMBER_BUFFER:
        free(copy)
    return read == n


cdef inline bint parse_number(const uint8_t* p, Py_ssize_t n, double* out) noexcept nogil:
    """``strtod`` (C locale) of the whole token; False if any of it is not part of the number.

    Plain decimals with at most 19 significant digits, a mantissa below 2**53 and a
    decimal exponent within 22 take an exact fast path; everything else (longer digit
    strings, hex, inf, nan, huge exponents) goes to strtod itself.
    """
    if fast_decimal(p, n, out):
        return True
    return n > 0 and strtod_token(p, n, out)


def parse_numbers(const uint8_t[::1] data, const int64_t[::1] offsets):
    """``strtod`` of each string (for tests): (values float64, ok bool)."""
    cdef Py_ssize_t i, n = offsets.shape[0] - 1
    cdef const uint8_t* base = pointer(data)
    values = np.empty(n, dtype=np.float64)
    ok = np.empty(n, dtype=np.bool_)
    cdef double[::1] v = values
    cdef uint8_t[::1] k = ok.view(np.uint8)
    with nogil:
        for i in range(n):
            k[i] = parse_number(base + offsets[i], offsets[i + 1] - offsets[i], &v[i])
    return values, ok


# ---------------------------------------------------------------------------- parsing

# A file is parsed block by block (blocks end at line ends), each block in three steps:
# 1. tokenize: the block is cut at line ends into pieces, one thread per piece; each line
#    gives its value, its docno's span and hash, and the query id where it changes.
# 2. intern_docs: docnos are interned in PARTITIONS tables by the top bits of their hash,
#    one thread per group of tables, each taking the block's rows in file order, so a
#    table's codes are in first-seen order whatever the thread count.
# 3. commit (one thread, cheap): values and query ids into the columns.
# A table owns a copy of its strings (its Arena): the block's buffer is then reused.

cdef enum:
    PARTITIONS = 64
    PARTITION_SHIFT = 58           # 64 - log2(PARTITIONS): the hash's top bits
    PARTITION_MASK = 63
    # Lines between two checks of the stop flag.
    LINE_POLL = 1 << 16


cdef struct Outcome:
    int error                   # 0, a LineErrorKind or NO_MEMORY
    int64_t line                # of the error, 1-based within its piece
    int64_t fields              # found on the error's line
    Py_ssize_t token_start      # the offending token, in the block
    Py_ssize_t token_stop


cdef struct Span:
    int64_t start
    int64_t length


cdef struct Column:
    # A growable array of int64 (query runs, skipped lines), in C memory.
    int64_t* data
    int64_t size
    int64_t capacity


cdef struct Piece:
    # One piece of a block and what tokenize found in it; rows count from 0 in the piece.
    Py_ssize_t start            # bytes of the block
    Py_ssize_t stop
    int64_t lines               # lines begun in the piece
    int64_t rows
    int64_t row_base            # the block's rows before this piece (set by prepare)
    int64_t capacity            # rows the four arrays below hold
    double* values
    int64_t* doc_start
    int64_t* doc_length
    uint64_t* doc_hash
    Column run_rows             # a query id starts at these rows ...
    Column run_starts           # ... at these bytes of the block ...
    Column run_lengths          # ... this long
    Column skips                # rows before which a blank or comment line sat
    Span name                   # runid of the piece's last row
    Outcome out


cdef inline int column_push(Column* c, int64_t value) noexcept nogil:
    cdef int64_t capacity
    cdef void* grown
    if c.size == c.capacity:
        capacity = 2 * c.capacity + 64
        grown = realloc(c.data, capacity * sizeof(int64_t))
        if grown == NULL:
            return -1
        c.data = <int64_t*>grown
        c.capacity = capacity
    c.data[c.size] = value
    c.size += 1
    return 0


cdef int piece_reserve(Piece* pc, int64_t rows) noexcept nogil:
    # Room for ``rows`` rows (grown as the piece's lines need: data, not a user's number).
    if rows <= pc.capacity:
        return 0
    rows = max(rows, 2 * pc.capacity)
    if (grow(<void**>&pc.values, rows, sizeof(double)) < 0 or grow(<void**>&pc.doc_start, rows, sizeof(int64_t)) < 0
            or grow(<void**>&pc.doc_length, rows, sizeof(int64_t)) < 0
            or grow(<void**>&pc.doc_hash, rows, sizeof(uint64_t)) < 0):
        return -1
    pc.capacity = rows
    return 0


cdef inline int grow(void** array, int64_t n, size_t size) noexcept nogil:
    # realloc into place: -1, the array untouched, if out of memory.
    cdef void* p = realloc(array[0], n * size)
    if p == NULL:
        return -1
    array[0] = p
    return 0


cdef void piece_free(Piece* pc) noexcept nogil:
    free(pc.values)
    free(pc.doc_start)
    free(pc.doc_length)
    free(pc.doc_hash)
    free(pc.run_rows.data)
    free(pc.run_starts.data)
    free(pc.run_lengths.data)
    free(pc.skips.data)
    memset(pc, 0, sizeof(Piece))


cdef inline Py_ssize_t skip_blank(const uint8_t* buf, Py_ssize_t p, Py_ssize_t eol) noexcept nogil:
    while p < eol and is_blank(buf[p]):
        p += 1
    return p


cdef inline Py_ssize_t field_end(const uint8_t* buf, Py_ssize_t p, Py_ssize_t eol, bint ends_line) noexcept nogil:
    # Where the field from p ends. A newline at eol (``ends_line``) is blank and ends it
    # too: then no bound check per byte.
    if ends_line:
        while not is_blank(buf[p]):
            p += 1
        return p
    while p < eol and not is_blank(buf[p]):
        p += 1
    return p


cdef inline Py_ssize_t split_fields(const uint8_t* buf, Py_ssize_t p, Py_ssize_t eol, bint ends_line, int need,
                                    Py_ssize_t* starts, Py_ssize_t* stops, int* nf) noexcept nogil:
    # Up to ``need`` fields from p on, into starts/stops (``nf`` of them); where it stopped.
    while p < eol and nf[0] < need:
        starts[nf[0]] = p
        p = field_end(buf, p, eol, ends_line)
        stops[nf[0]] = p
        nf[0] += 1
        p = skip_blank(buf, p, eol)
    return p


cdef int count_fields(const uint8_t* buf, Py_ssize_t p, Py_ssize_t eol) noexcept nogil:
    cdef int n = 0
    while p < eol:
        while p < eol and not is_blank(buf[p]):
            p += 1
        n += 1
        p = skip_blank(buf, p, eol)
    return n


cdef inline int line_error(Piece* pc, int error, int nf, Py_ssize_t start, Py_ssize_t stop) noexcept nogil:
    pc.out.error, pc.out.line, pc.out.fields = error, pc.lines, nf
    pc.out.token_start, pc.out.token_stop = start, stop
    return error


cdef inline int new_query(Piece* pc, const uint8_t* buf, Py_ssize_t start, Py_ssize_t length) noexcept nogil:
    # Runs and qrels list a query's lines together: a query id is recorded where it changes.
    cdef int64_t last = pc.run_rows.size - 1
    if last >= 0 and pc.run_lengths.data[last] == length and \
            same_bytes(buf + pc.run_starts.data[last], buf + start, length):
        return 0
    if (column_push(&pc.run_rows, pc.rows) < 0 or column_push(&pc.run_starts, start) < 0
            or column_push(&pc.run_lengths, length) < 0):
        return NO_MEMORY
    return 0


cdef inline int tokenize_line(Piece* pc, const uint8_t* buf, bint run, Py_ssize_t p, Py_ssize_t eol,
                              bint ends_line, int id_field) noexcept nogil:
    """One data line from p (its first field) to eol (a newline if ``ends_line``); 0, or the error in ``pc.out``.

    The id interned is fields ``id_field`` to 2 (the docno): for subtopic qrels (``id_field``
    1) the span ``subtopic docno``, which Python splits at its blanks.
    """
    cdef int need = RUN_FIELDS if run else QRELS_FIELDS, value_field = 4 if run else 3, nf = 0
    cdef Py_ssize_t starts[RUN_FIELDS]
    cdef Py_ssize_t stops[RUN_FIELDS]
    cdef double value
    if pc.rows == pc.capacity and piece_reserve(pc, 2 * pc.capacity + 64) < 0:
        pc.out.error = NO_MEMORY
        return NO_MEMORY
    p = split_fields(buf, p, eol, ends_line, need, starts, stops, &nf)
    if nf < need:
        return line_error(pc, TOO_FEW, nf, 0, 0)
    if p < eol and not run:
        return line_error(pc, TOO_MANY, nf + count_fields(buf, p, eol), 0, 0)
    if not parse_number(buf + starts[value_field], stops[value_field] - starts[value_field], &value):
        return line_error(pc, NOT_NUMBER, nf, starts[value_field], stops[value_field])
    if not run and not isfinite(value):
        return line_error(pc, NOT_FINITE, nf, starts[value_field], stops[value_field])
    if new_query(pc, buf, starts[0], stops[0] - starts[0]) != 0:
        pc.out.error = NO_MEMORY
        return NO_MEMORY
    if run:
        # trec_eval keeps the runid of the last line read.
        pc.name.start, pc.name.length = starts[5], stops[5] - starts[5]
    pc.values[pc.rows] = value
    pc.doc_start[pc.rows] = starts[id_field]
    pc.doc_length[pc.rows] = stops[2] - starts[id_field]
    pc.doc_hash[pc.rows] = hash_bytes(buf + starts[id_field], stops[2] - starts[id_field])
    pc.rows += 1
    return 0


cdef void piece_reset(Piece* pc) noexcept nogil:
    pc.lines = pc.rows = 0
    pc.run_rows.size = pc.run_starts.size = pc.run_lengths.size = pc.skips.size = 0
    pc.name.start = pc.name.length = 0
    memset(&pc.out, 0, sizeof(Outcome))


cdef int tokenize_piece(Piece* pc, const uint8_t* buf, bint run, int id_field, const uint8_t* flag) noexcept nogil:
    """Tokenize ``buf[pc.start:pc.stop]``; 0, STOPPED, or an error in ``pc.out``."""
    cdef Py_ssize_t pos = pc.start, eol, p
    cdef const uint8_t* nl
    piece_reset(pc)
    while pos < pc.stop:
        if (pc.lines & (LINE_POLL - 1)) == 0 and stopped(flag):
            return STOPPED
        pc.lines += 1
        nl = <const uint8_t*>memchr(buf + pos, NEWLINE, pc.stop - pos)
        eol = nl - buf if nl != NULL else pc.stop
        p = skip_blank(buf, pos, eol)
        pos = eol + 1
        # trec_eval skips blank lines only in runs and sees comments only at column 0 in
        # qrels; neither carries data, so both are skipped everywhere.
        if p == eol or buf[p] == HASH:
            if column_push(&pc.skips, pc.rows) < 0:
                pc.out.error = NO_MEMORY
                return NO_MEMORY
            continue
        if tokenize_line(pc, buf, run, p, eol, nl != NULL, id_field) != 0:
            return pc.out.error
    return 0


cdef struct Staged:
    # A docno of the block, copied next to the others of its table (``Stage``).
    int64_t row                 # in the file
    uint64_t hash
    int64_t start               # in the stage's bytes
    int64_t length


cdef struct Stage:
    # The block's docnos grouped by table, in file order within each: ``items[bounds[p]:bounds[p + 1]]``.
    Staged* items
    uint8_t* data
    int64_t capacity            # items
    int64_t data_capacity
    int64_t bounds[PARTITIONS + 1]


cdef int stage_reserve(Stage* st, int64_t items, int64_t data) noexcept nogil:
    cdef void* p
    if items > st.capacity:
        p = realloc(st.items, items * sizeof(Staged))
        if p == NULL:
            return -1
        st.items, st.capacity = <Staged*>p, items
    if data > st.data_capacity:
        p = realloc(st.data, data)
        if p == NULL:
            return -1
        st.data, st.data_capacity = <uint8_t*>p, data
    return 0


cdef int stage_docs(const Piece* pieces, Py_ssize_t n_pieces, const uint8_t* buf, Stage* st) noexcept nogil:
    """Copy the block's docnos into ``st``, grouped by table; -1 if out of memory.

    Interning a table's docnos together keeps that table in cache (the tables of a big run
    are a few MB each, hundreds together), and copying them next to each other makes the
    interning read them in order rather than all over the block.
    """
    cdef Py_ssize_t i
    cdef int64_t r, k, rows = 0, size = 0
    cdef int p
    cdef int64_t at[PARTITIONS]
    cdef int64_t data_at[PARTITIONS]
    cdef int64_t bytes_of[PARTITIONS + 1]
    cdef const Piece* pc
    memset(st.bounds, 0, (PARTITIONS + 1) * sizeof(int64_t))
    memset(bytes_of, 0, (PARTITIONS + 1) * sizeof(int64_t))
    for i in range(n_pieces):
        pc = &pieces[i]
        for r in range(pc.rows):
            p = <int>(pc.doc_hash[r] >> PARTITION_SHIFT)
            st.bounds[p + 1] += 1
            bytes_of[p + 1] += pc.doc_length[r]
    for p in range(PARTITIONS):
        st.bounds[p + 1] += st.bounds[p]
        bytes_of[p + 1] += bytes_of[p]
        at[p], data_at[p] = st.bounds[p], bytes_of[p]
    if stage_reserve(st, st.bounds[PARTITIONS], bytes_of[PARTITIONS]) < 0:
        return -1
    for i in range(n_pieces):
        pc = &pieces[i]
        for r in range(pc.rows):
            p = <int>(pc.doc_hash[r] >> PARTITION_SHIFT)
            k = at[p]
            at[p] += 1
            st.items[k].row, st.items[k].hash = pc.row_base + r, pc.doc_hash[r]
            st.items[k].start, st.items[k].length = data_at[p], pc.doc_length[r]
            memcpy(st.data + data_at[p], buf + pc.doc_start[r], pc.doc_length[r])
            data_at[p] += pc.doc_length[r]
    return 0


cdef int intern_batch(Interner* t, Arena* a, int p, const Staged* items, int64_t n, const uint8_t* data,
                      int64_t* codes) noexcept nogil:
    """Intern ``n`` (at most BATCH) staged docnos of table ``p``; -1 if out of memory.

    A big table answers with up to three cache misses in a chain (the slot, the entry, the
    stored bytes): each link is asked for the whole batch before the next, so that the
    misses of many docnos overlap.
    """
    cdef int64_t i, code
    for i in range(n):
        prefetch(&t.slots[slot_of(t, items[i].hash)])
    prefetch_matches(t, &items[0].hash, n, sizeof(Staged) // sizeof(uint64_t))
    for i in range(n):
        code = interner_add_owned(t, a, data + items[i].start, items[i].length, items[i].hash)
        if code < 0:
            return -1
        # The table's number and the code within it; renumbered by finish.
        codes[items[i].row] = (code << 6) | p
    return 0


cdef int intern_group(const Stage* st, int lo, int hi, Interner* tables, Arena* arenas, int64_t* codes,
                      const uint8_t* flag) noexcept nogil:
    """Intern the block's docnos of tables [lo, hi), table by table; -1 if out of memory."""
    cdef int64_t k, n
    cdef int p
    for p in range(lo, hi):
        if stopped(flag):
            return 0
        k = st.bounds[p]
        while k < st.bounds[p + 1]:
            n = min(<int64_t>BATCH, st.bounds[p + 1] - k)
            if intern_batch(&tables[p], &arenas[p], p, st.items + k, n, st.data, codes) < 0:
                return -1
            k += n
    return 0


cdef int commit_piece(const Piece* pc, const uint8_t* buf, Interner* queries, Arena* arena,
                      int64_t* query_codes, double* values) noexcept nogil:
    """The piece's values and query codes into the columns (offset to its rows); -1: out of memory."""
    cdef int64_t i, r, end, code
    memcpy(values + pc.row_base, pc.values, pc.rows * sizeof(double))
    for i in range(pc.run_rows.size):
        code = interner_add_owned(queries, arena, buf + pc.run_starts.data[i], pc.run_lengths.data[i],
                                  interner_hash(queries, buf + pc.run_starts.data[i], pc.run_lengths.data[i]))
        if code < 0:
            return -1
        end = pc.run_rows.data[i + 1] if i + 1 < pc.run_rows.size else pc.rows
        for r in range(pc.run_rows.data[i], end):
            query_codes[pc.row_base + r] = code
    return 0


@cython.auto_pickle(False)
cdef class Parser:
    """Parses a qrels (``run=False``) or run file given block by block; see the module doc.

    Per block: :meth:`split`, :meth:`tokenize` over its pieces (threads), :meth:`error`,
    :meth:`prepare`, :meth:`intern_docs` over partition groups (threads), :meth:`commit`;
    then :meth:`finish`. Blank lines and lines whose first non-blank byte is ``#`` are
    skipped; qrels lines need exactly 4 fields, run lines at least 6 (more are ignored).
    With ``subtopics`` (qrels ``topic subtopic docno grade``), the id interned per line is the
    span ``subtopic docno``, for Python to split (``io.split_subtopics``).
    """
    cdef bint run
    cdef int id_field
    cdef Interner queries
    cdef Arena query_bytes
    cdef Interner docs[PARTITIONS]
    cdef Arena doc_bytes[PARTITIONS]
    cdef Piece* pieces
    cdef Py_ssize_t n_pieces, max_pieces
    cdef const uint8_t[::1] block
    cdef Column skips
    cdef Stage stage
    cdef readonly int64_t rows, lines
    cdef public object query_codes, doc_codes, values

    def __cinit__(self, bint run, Py_ssize_t max_pieces, bint subtopics=False):
        cdef int p, failed
        self.run = run
        self.id_field = 1 if subtopics else 2
        self.pieces = <Piece*>calloc(max(max_pieces, 1), sizeof(Piece))
        self.max_pieces = max(max_pieces, 1)
        failed = self.pieces == NULL or interner_init(&self.queries, NULL, 64) < 0
        for p in range(PARTITIONS):
            failed |= interner_init(&self.docs[p], NULL, MIN_SLOTS) < 0
        if failed:
            raise MemoryError()
        self.query_codes = np.empty(0, dtype=np.int64)
        self.doc_codes = np.empty(0, dtype=np.int64)
        self.values = np.empty(0, dtype=np.float64)

    def __dealloc__(self):
        cdef Py_ssize_t i
        cdef int p
        if self.pieces != NULL:
            for i in range(self.max_pieces):
                piece_free(&self.pieces[i])
            free(self.pieces)
        interner_free(&self.queries)
        free(self.query_bytes.data)
        for p in range(PARTITIONS):
            interner_free(&self.docs[p])
            free(self.doc_bytes[p].data)
        free(self.skips.data)
        free(self.stage.items)
        free(self.stage.data)

    cdef bytes bytes_at(self, Py_ssize_t start, Py_ssize_t length):
        return PyBytes_FromStringAndSize(<const char*>pointer(self.block) + start, length)

    def split(self, const uint8_t[::1] block, Py_ssize_t n_pieces):
        """Take ``block`` (whole lines) and cut it into at most ``n_pieces`` at line ends."""
        cdef Py_ssize_t i, size = block.shape[0], cut, previous = 0
        cdef const uint8_t* buf = pointer(block)
        cdef const uint8_t* nl
        self.block = block
        n_pieces = min(max(n_pieces, 1), self.max_pieces)
        for i in range(n_pieces):
            cut = size if i == n_pieces - 1 else max(previous, size * (i + 1) // n_pieces)
            if cut < size:
                nl = <const uint8_t*>memchr(buf + cut, NEWLINE, size - cut)
                cut = nl - buf + 1 if nl != NULL else size
            self.pieces[i].start, self.pieces[i].stop = previous, cut
            previous = cut
        self.n_pieces = n_pieces
        return n_pieces

    def tokenize(self, Py_ssize_t first, Py_ssize_t end, const uint8_t[::1] stop=None):
        """Tokenize pieces ``first:end``; None once ``stop`` is set."""
        cdef const uint8_t* flag = flag_of(stop)
        cdef const uint8_t* buf = pointer(self.block)
        cdef Py_ssize_t i
        cdef int outcome = 0
        with nogil:
            for i in range(first, end):
                outcome = tokenize_piece(&self.pieces[i], buf, self.run, self.id_field, flag)
                if outcome == STOPPED:
                    break
        return None if outcome == STOPPED or was_stopped(flag) else True

    def error(self):
        """The block's first malformed line: None, or (kind, line in the file, fields, token)."""
        cdef Py_ssize_t i
        cdef int64_t lines = self.lines
        cdef Piece* pc
        for i in range(self.n_pieces):
            pc = &self.pieces[i]
            if pc.out.error == NO_MEMORY:
                raise MemoryError()
            if pc.out.error:
                token = self.bytes_at(pc.out.token_start, pc.out.token_stop - pc.out.token_start)
                self.block = None
                return LineErrorKind(pc.out.error), lines + pc.out.line, pc.out.fields, token
            lines += pc.lines
        return None

    def prepare(self):
        """Row bases of the pieces, the block's docnos staged, and room for its rows; its row count."""
        cdef Py_ssize_t i
        cdef int64_t rows = self.rows
        cdef int failed
        for i in range(self.n_pieces):
            self.pieces[i].row_base = rows
            rows += self.pieces[i].rows
        with nogil:
            failed = stage_docs(self.pieces, self.n_pieces, pointer(self.block), &self.stage)
        if failed:
            raise MemoryError()
        if rows > self.capacity():
            self.reserve(rows + rows // 8, 0)
        return rows - self.rows

    cdef Py_ssize_t capacity(self):
        # Rows all three columns hold (a reserve cut short by MemoryError may leave them uneven).
        return min(self.query_codes.shape[0], self.doc_codes.shape[0], self.values.shape[0])

    def reserve(self, int64_t rows, int64_t docs):
        """Room for ``rows`` rows and about ``docs`` docnos: estimates from the data, made once."""
        cdef int p
        cdef int failed = 0
        for column in (self.query_codes, self.doc_codes, self.values):
            if rows > column.shape[0]:
                column.resize(rows, refcheck=False)
        with nogil:
            for p in range(PARTITIONS):
                failed |= interner_reserve(&self.docs[p], docs // PARTITIONS + MIN_SLOTS)
        if failed:
            raise MemoryError()

    def intern_docs(self, int lo, int hi, const uint8_t[::1] stop=None):
        """Intern the block's docnos of partitions ``lo:hi``; None once ``stop`` is set."""
        cdef const uint8_t* flag = flag_of(stop)
        cdef int64_t[::1] codes = self.doc_codes
        cdef int failed
        with nogil:
            failed = intern_group(&self.stage, lo, hi, self.docs, self.doc_bytes,
                                  &codes[0] if codes.shape[0] > 0 else NULL, flag)
        if failed:
            raise MemoryError()
        return None if was_stopped(flag) else True

    def commit(self):
        """Values and query ids of the block into the columns; the runid of its last row, or None."""
        cdef int64_t[::1] query_codes = self.query_codes
        cdef double[::1] values = self.values
        cdef const uint8_t* buf = pointer(self.block)
        cdef Py_ssize_t i, j
        cdef Piece* pc
        cdef int failed = 0
        name = None
        with nogil:
            for i in range(self.n_pieces):
                pc = &self.pieces[i]
                if pc.rows > 0:
                    failed |= commit_piece(pc, buf, &self.queries, &self.query_bytes, &query_codes[0],
                                           &values[0])
                for j in range(pc.skips.size):
                    failed |= column_push(&self.skips, pc.row_base + pc.skips.data[j])
        if failed:
            raise MemoryError()
        for i in range(self.n_pieces):
            pc = &self.pieces[i]
            if pc.rows > 0 and self.run:
                name = self.bytes_at(pc.name.start, pc.name.length)
            self.rows += pc.rows
            self.lines += pc.lines
        self.block = None
        return name

    def finish(self):
        """``(query_data, query_offsets, query_codes, doc_data, doc_offsets, doc_codes, values, skips)``.

        Doc codes number the partitions' tables one after the other; ``skips`` holds, for
        each skipped line, the number of rows before it.
        """
        cdef int64_t base[PARTITIONS]
        cdef int64_t total = 0, strings = 0
        cdef Py_ssize_t i
        cdef int p
        # The file's peak memory is here: what parsing alone needed goes before the tables are joined.
        for i in range(self.max_pieces):
            piece_free(&self.pieces[i])
        free(self.stage.items)
        free(self.stage.data)
        memset(&self.stage, 0, sizeof(Stage))
        for p in range(PARTITIONS):
            base[p] = strings
            strings += self.docs[p].size
            total += self.doc_bytes[p].size
            free(self.docs[p].slots)
            self.docs[p].slots = NULL
        doc_data = np.empty(total, dtype=np.uint8)
        doc_offsets = np.empty(strings + 1, dtype=np.int64)
        self.join_tables(doc_data, doc_offsets, base)
        renumber(self.doc_codes[:self.rows], base)
        query_data, query_offsets = interner_table(&self.queries)
        skips = np.empty(self.skips.size, dtype=np.int64)
        if self.skips.size > 0:
            skips[:] = <int64_t[:self.skips.size]>self.skips.data
        for column in (self.query_codes, self.doc_codes, self.values):
            column.resize(self.rows, refcheck=False)
        return (query_data, query_offsets, self.query_codes, doc_data, doc_offsets, self.doc_codes,
                self.values, skips)

    cdef void join_tables(self, uint8_t[::1] data, int64_t[::1] offsets, const int64_t* base):
        # The partitions' tables one after the other, each freed once copied; an arena is
        # its table's data.
        cdef int64_t total = 0, c
        cdef int p
        with nogil:
            for p in range(PARTITIONS):
                if self.doc_bytes[p].size > 0:
                    memcpy(&data[total], self.doc_bytes[p].data, self.doc_bytes[p].size)
                for c in range(self.docs[p].size):
                    offsets[base[p] + c] = total + self.docs[p].entries[c].start
                total += self.doc_bytes[p].size
                interner_free(&self.docs[p])
                free(self.doc_bytes[p].data)
                memset(&self.doc_bytes[p], 0, sizeof(Arena))
            offsets[offsets.shape[0] - 1] = total


cdef void renumber(int64_t[::1] codes, const int64_t* base) noexcept:
    # (code in its table, table) as intern_group wrote them -> the joined tables' code.
    cdef Py_ssize_t r
    cdef int64_t c
    with nogil:
        for r in range(codes.shape[0]):
            c = codes[r]
            codes[r] = base[c & PARTITION_MASK] + (c >> 6)


# ---------------------------------------------------------------------------- checks

cdef bint valid_utf8(const uint8_t* p, Py_ssize_t n) noexcept nogil:
    # Python's strict decoder: no overlong forms, no surrogates, nothing above U+10FFFF.
    cdef Py_ssize_t i = 0
    cdef uint8_t c, lo, hi
    cdef int follow, k
    cdef uint64_t w
    while i < n:
        if i + 8 <= n:
            memcpy(&w, p + i, 8)
            if (w & <uint64_t>0x8080808080808080) == 0:
                i += 8
                continue
        c = p[i]
        if c < 0x80:
            i += 1
            continue
        lo, hi = 0x80, 0xBF
        if 0xC2 <= c <= 0xDF:
            follow = 1
        elif 0xE0 <= c <= 0xEF:
            follow = 2
            if c == 0xE0:
                lo = 0xA0
            elif c == 0xED:
                hi = 0x9F
        elif 0xF0 <= c <= 0xF4:
            follow = 3
            if c == 0xF0:
                lo = 0x90
            elif c == 0xF4:
                hi = 0x8F
        else:
            return False
        if i + follow >= n or not (lo <= p[i + 1] <= hi):
            return False
        for k in range(2, follow + 1):
            if not (0x80 <= p[i + k] <= 0xBF):
                return False
        i += follow + 1
    return True


def invalid_utf8(const uint8_t[::1] data, const int64_t[::1] offsets, const uint8_t[::1] stop=None):
    """For each string, whether it is not valid UTF-8 (bool); None once ``stop`` is set."""
    cdef Py_ssize_t i, n = offsets.shape[0] - 1
    cdef const uint8_t* base = pointer(data)
    cdef const uint8_t* flag = flag_of(stop)
    bad = np.zeros(n, dtype=np.bool_)
    cdef uint8_t[::1] out = bad.view(np.uint8)
    with nogil:
        for i in range(n):
            if (i & POLL_MASK) == 0 and stopped(flag):
                break
            out[i] = not valid_utf8(base + offsets[i], offsets[i + 1] - offsets[i])
    return None if was_stopped(flag) else bad


def occurrence_ranks(const int64_t[::1] codes, int64_t n_codes):
    """1 for the first row of each code, 2 for its second, and so on, in row order."""
    cdef Py_ssize_t i, n = codes.shape[0]
    seen = np.zeros(n_codes, dtype=np.int64)
    ranks = np.empty(n, dtype=np.int64)
    cdef int64_t[::1] s = seen, out = ranks
    with nogil:
        for i in range(n):
            s[codes[i]] += 1
            out[i] = s[codes[i]]
    return ranks


# ---------------------------------------------------------------------------- writing

cdef struct Buffer:
    char* data
    Py_ssize_t size
    Py_ssize_t capacity


cdef int reserve(Buffer* b, Py_ssize_t extra) noexcept nogil:
    cdef Py_ssize_t capacity = b.capacity
    cdef char* p
    if b.size + extra <= capacity:
        return 0
    while capacity < b.size + extra:
        capacity = 2 * capacity + 4096
    p = <char*>realloc(b.data, capacity)
    if p == NULL:
        return -1
    b.data = p
    b.capacity = capacity
    return 0


cdef inline void put(Buffer* b, const void* p, Py_ssize_t n) noexcept nogil:
    memcpy(b.data + b.size, p, n)
    b.size += n


cdef inline void put_int(Buffer* b, int64_t v) noexcept nogil:
    cdef char digits[24]
    cdef int k = 24
    cdef uint64_t u = <uint64_t>(-v) if v < 0 else <uint64_t>v
    while True:
        k -= 1
        digits[k] = <char>(48 + u % 10)
        u //= 10
        if u == 0:
            break
    if v < 0:
        k -= 1
        digits[k] = 45
    put(b, digits + k, 24 - k)


cdef inline void put_span(Buffer* b, const Spans* t, int64_t code) noexcept nogil:
    put(b, t.base + t.offsets[code], t.offsets[code + 1] - t.offsets[code])


cdef inline void put_value(Buffer* b, double v, bint run):
    cdef char* text
    if not run and v == floor(v) and -1e15 < v < 1e15:
        put_int(b, <int64_t>v)
        return
    text = PyOS_double_to_string(v, b'r', 0, Py_DTSF_ADD_DOT_0, NULL)
    put(b, text, len(text))
    PyMem_Free(text)


cdef Spans spans_of(tuple table):
    # (data, offsets) as Spans; the caller keeps the arrays alive.
    cdef const uint8_t[::1] data
    cdef const int64_t[::1] offsets
    data, offsets = table
    return Spans(pointer(data), &offsets[0])


def format_rows(tuple queries, tuple docs, tuple rows, bytes name, Py_ssize_t start, Py_ssize_t stop):
    """Rows ``start:stop`` as TREC lines: qrels when ``ranks`` is empty, else a run.

    ``queries`` and ``docs`` are string tables ``(data, offsets)``, ``rows`` is
    ``(query_codes, doc_codes, values, ranks)``. Qrels: ``qid 0 docno rel`` with an
    integral rel printed as an integer. Run: ``qid Q0 docno rank score name``. Other
    numbers are printed as Python's repr, which reads back to the same double. Codes
    must be valid indices into their tables.
    """
    cdef const int64_t[::1] query_codes, doc_codes, ranks
    cdef const double[::1] values
    query_codes, doc_codes, values, ranks = rows
    cdef Spans qt = spans_of(queries), dt = spans_of(docs)
    cdef Py_ssize_t name_length = len(name), i
    cdef bint run = ranks.shape[0] > 0
    cdef int64_t q, d
    cdef Buffer b
    b.data, b.size, b.capacity = NULL, 0, 0
    try:
        # Formatting holds the GIL: the shortest round-trip repr of a double is CPython's.
        for i in range(start, stop):
            q, d = query_codes[i], doc_codes[i]
            if reserve(&b, qt.offsets[q + 1] - qt.offsets[q] + dt.offsets[d + 1] - dt.offsets[d] + name_length
                       + 64) < 0:
                raise MemoryError()
            put_span(&b, &qt, q)
            if run:
                put(&b, b" Q0 ", 4)
            else:
                put(&b, b" 0 ", 3)
            put_span(&b, &dt, d)
            put(&b, b" ", 1)
            if run:
                put_int(&b, ranks[i])
                put(&b, b" ", 1)
            put_value(&b, values[i], run)
            if run:
                put(&b, b" ", 1)
                put(&b, <const char*>name, name_length)
            put(&b, b"\n", 1)
        return PyBytes_FromStringAndSize(b.data, b.size)
    finally:
        free(b.data)
