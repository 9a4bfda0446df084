"""TREC text: whole-file tokenizing, checks of the ids, writing.

Strings live as byte spans interned by ``_core/_intern.pxd``: a table of n strings is
``data`` (uint8, concatenated) and ``offsets`` (int64, n + 1).

The parser walks a whole file held in memory once, without a Python object per line:
fields are split on the bytes C's ``isspace`` accepts (so ``\\r`` of a ``\\r\\n`` ending
never reaches a field), ids are interned on the fly and numbers are converted in place.
"""
import numpy as np

from rankwise._core._enums import LineErrorKind

from libc.math cimport floor, isfinite
from libc.stdint cimport int64_t, uint8_t, uint64_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memchr, memcmp, memcpy, memset
from cpython.bytes cimport PyBytes_FromStringAndSize
from cpython.mem cimport PyMem_Free

from rankwise._core._enums cimport NOT_FINITE, NOT_NUMBER, TOO_FEW, TOO_MANY
from rankwise._core._intern cimport (BATCH, Interner, Probe, Spans, add_batch, interner_add, interner_free,
                                     interner_hash, interner_init, interner_table, pointer, probe_init)
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


class LineError(ValueError):
    """A malformed line. ``args``: (kind, 1-based line, fields found, token start, token stop)."""


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
    # Bytes of text between two checks of the stop flag: some 25,000 lines.
    TEXT_BLOCK = 1 << 20

# Exact powers of ten: a mantissa below 2**53 times or over one of these is rounded once,
# which is the correctly rounded result (Clinger's fast path).
cdef double POW10[23]
POW10[:] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
            1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22]
cdef uint64_t MANTISSA_LIMIT = (<uint64_t>1) << 53


cdef inline bint is_blank(uint8_t c) noexcept nogil:
    # C isspace in the C locale. Callers stop at newlines before asking.
    return c == SPACE or (c >= 9 and c <= 13)


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

cdef struct Outcome:
    int error               # 0, a LineErrorKind or NO_MEMORY
    int64_t rows
    int64_t line            # of the error
    int64_t fields          # found on the error's line
    Py_ssize_t token_start  # the offending token
    Py_ssize_t token_stop
    Py_ssize_t name_start   # runid of the last run line
    Py_ssize_t name_stop


cdef Py_ssize_t count_lines(const uint8_t* buf, Py_ssize_t size, const uint8_t* flag) noexcept nogil:
    cdef Py_ssize_t n = 0, pos = 0, block_end
    cdef const uint8_t* nl
    while pos < size and not stopped(flag):
        block_end = min(pos + TEXT_BLOCK, size)
        while pos < block_end:
            nl = <const uint8_t*>memchr(buf + pos, NEWLINE, size - pos)
            n += 1
            if nl == NULL:
                pos = size
                break
            pos = nl - buf + 1
    return n


cdef struct Parse:
    # parse_buffer's file, its two interners (their base is the file) and its output
    # columns, one row per data line.
    const uint8_t* buf
    Py_ssize_t size
    bint run
    Interner* queries
    Interner* docs
    int64_t* query_codes
    int64_t* doc_codes
    double* values
    int64_t* lines
    const uint8_t* flag


cdef struct Cursor:
    # Where parse_buffer is: the line, the next row, the last query id, the docnos not yet interned.
    int64_t line
    int64_t row
    int64_t query              # code of the last query id, buf[last_start:last_start + last_length]
    Py_ssize_t last_start
    Py_ssize_t last_length
    Py_ssize_t n_pending
    Probe pending[BATCH]


cdef inline Py_ssize_t skip_blank(const uint8_t* buf, Py_ssize_t p, Py_ssize_t eol) noexcept nogil:
    while p < eol and is_blank(buf[p]):
        p += 1
    return p


cdef inline Py_ssize_t split_fields(const uint8_t* buf, Py_ssize_t p, Py_ssize_t eol, int need,
                                    Py_ssize_t* starts, Py_ssize_t* stops, int* nf) noexcept nogil:
    # Up to ``need`` fields from p on, into starts/stops (``nf`` of them); where it stopped.
    while p < eol and nf[0] < need:
        starts[nf[0]] = p
        while p < eol and not is_blank(buf[p]):
            p += 1
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


cdef inline int line_error(Outcome* out, int error, const Cursor* c, int nf, Py_ssize_t start,
                           Py_ssize_t stop) noexcept nogil:
    out.error, out.line, out.fields = error, c.line, nf
    out.token_start, out.token_stop = start, stop
    return error


cdef inline int parse_line(const Parse* ps, Cursor* c, Py_ssize_t p, Py_ssize_t eol, Outcome* out) noexcept nogil:
    """One data line from p (its first field); 0, or the error written to ``out``."""
    cdef const uint8_t* buf = ps.buf
    cdef int need = RUN_FIELDS if ps.run else QRELS_FIELDS, value_field = 4 if ps.run else 3, nf = 0
    cdef Py_ssize_t starts[RUN_FIELDS]
    cdef Py_ssize_t stops[RUN_FIELDS]
    cdef Py_ssize_t length
    cdef double value
    p = split_fields(buf, p, eol, need, starts, stops, &nf)
    if nf < need:
        return line_error(out, TOO_FEW, c, nf, 0, 0)
    if p < eol and not ps.run:
        return line_error(out, TOO_MANY, c, nf + count_fields(buf, p, eol), 0, 0)
    if not parse_number(buf + starts[value_field], stops[value_field] - starts[value_field], &value):
        return line_error(out, NOT_NUMBER, c, nf, starts[value_field], stops[value_field])
    if not ps.run and not isfinite(value):
        return line_error(out, NOT_FINITE, c, nf, starts[value_field], stops[value_field])
    # Runs and qrels list a query's lines together, so the previous query id is
    # usually the answer and costs one compare instead of a hash probe.
    length = stops[0] - starts[0]
    if length != c.last_length or memcmp(buf + starts[0], buf + c.last_start, length) != 0:
        c.query = interner_add(ps.queries, starts[0], length, interner_hash(ps.queries, buf + starts[0], length))
        if c.query < 0:
            out.error = NO_MEMORY
            return NO_MEMORY
        c.last_start, c.last_length = starts[0], length
    if ps.run:
        # trec_eval keeps the runid of the last line read.
        out.name_start, out.name_stop = starts[5], stops[5]
    ps.query_codes[c.row] = c.query
    ps.values[c.row] = value
    ps.lines[c.row] = c.line
    probe_init(ps.docs, &c.pending[c.n_pending], buf, starts[2], stops[2] - starts[2])
    c.n_pending += 1
    c.row += 1
    return 0


cdef inline int flush_docs(const Parse* ps, Cursor* c, Outcome* out) noexcept nogil:
    # Interns the pending docnos, whose rows are the last n_pending.
    if add_batch(ps.docs, c.pending, c.n_pending, ps.doc_codes + c.row - c.n_pending, 1) < 0:
        out.error = NO_MEMORY
        return NO_MEMORY
    c.n_pending = 0
    return 0


cdef void parse_buffer(const Parse* ps, Outcome* out) noexcept nogil:
    cdef const uint8_t* buf = ps.buf
    cdef Py_ssize_t pos = 0, eol, p, block_end
    cdef const uint8_t* nl
    cdef Cursor c
    c.line, c.row, c.query, c.last_start, c.last_length, c.n_pending = 0, 0, -1, 0, -1, 0
    # In blocks of bytes, the stop flag checked between them: the loop over lines stays as it was.
    while pos < ps.size:
        if stopped(ps.flag):
            out.error = STOPPED
            return
        block_end = min(pos + TEXT_BLOCK, ps.size)
        while pos < block_end:
            c.line += 1
            nl = <const uint8_t*>memchr(buf + pos, NEWLINE, ps.size - pos)
            eol = nl - buf if nl != NULL else ps.size
            p = skip_blank(buf, pos, eol)
            pos = eol + 1
            # trec_eval skips blank lines only in runs and sees comments only at column 0 in
            # qrels; neither carries data, so both are skipped everywhere.
            if p == eol or buf[p] == HASH:
                continue
            if parse_line(ps, &c, p, eol, out) != 0:
                return
            if c.n_pending == BATCH and flush_docs(ps, &c, out) != 0:
                return
    if flush_docs(ps, &c, out) == 0:
        out.rows = c.row


cdef tuple trimmed(tuple columns, int64_t rows, Py_ssize_t capacity):
    # Comment and blank lines leave rows unused at the end: views drop a few, copies free many.
    if rows < capacity // 2:
        return tuple([column[:rows].copy() for column in columns])
    if rows < capacity:
        return tuple([column[:rows] for column in columns])
    return columns


cdef inline int64_t* int_column(int64_t[::1] a) noexcept:
    return &a[0] if a.shape[0] > 0 else NULL


cdef inline double* real_column(double[::1] a) noexcept:
    return &a[0] if a.shape[0] > 0 else NULL


def parse_lines(const uint8_t[::1] buf, bint run, const uint8_t[::1] stop=None):
    """Parse a whole qrels (``run=False``) or run file held in ``buf``.

    Blank lines and lines whose first non-blank byte is ``#`` are skipped. Qrels lines
    need exactly 4 fields, run lines at least 6 (more are ignored). Returns
    ``(query_data, query_offsets, query_codes, doc_data, doc_offsets, doc_codes, values,
    lines, name_start, name_stop)``; ``name_*`` delimit the runid of the last run line.
    Raises :class:`LineError` for a malformed line. Returns None once ``stop`` (the
    call's stop flag, ``_stop.pxd``) is set.
    """
    cdef Py_ssize_t capacity
    cdef Interner queries, docs
    cdef Outcome out
    cdef Parse ps = Parse(pointer(buf), buf.shape[0], run, &queries, &docs, NULL, NULL, NULL, NULL, flag_of(stop))
    memset(&out, 0, sizeof(Outcome))
    with nogil:
        capacity = count_lines(ps.buf, ps.size, ps.flag)
    if was_stopped(ps.flag):
        return None
    columns = (np.empty(capacity, dtype=np.int64), np.empty(capacity, dtype=np.int64),
               np.empty(capacity, dtype=np.float64), np.empty(capacity, dtype=np.int64))
    ps.query_codes, ps.doc_codes = int_column(columns[0]), int_column(columns[1])
    ps.values, ps.lines = real_column(columns[2]), int_column(columns[3])
    # Most docnos of a run or qrels appear once or a few times; starting at half the
    # lines saves most regrowth of a big table at a few bytes per line.
    cdef int failed = interner_init(&queries, ps.buf, 64) < 0
    failed |= interner_init(&docs, ps.buf, capacity // 2) < 0
    try:
        if failed:
            raise MemoryError()
        with nogil:
            parse_buffer(&ps, &out)
        if out.error == NO_MEMORY:
            raise MemoryError()
        if out.error == STOPPED:
            return None
        if out.error:
            raise LineError(LineErrorKind(out.error), out.line, out.fields, out.token_start, out.token_stop)
        query_data, query_offsets = interner_table(&queries)
        doc_data, doc_offsets = interner_table(&docs)
    finally:
        interner_free(&queries)
        interner_free(&docs)
    query_codes, doc_codes, values, lines = trimmed(columns, out.rows, capacity)
    return (query_data, query_offsets, query_codes, doc_data, doc_offsets, doc_codes, values,
            lines, out.name_start, out.name_stop)


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


def first_invalid_utf8(const uint8_t[::1] data, const int64_t[::1] offsets, const uint8_t[::1] stop=None):
    """Index of the first string that is not valid UTF-8, or -1 (also once ``stop`` is set)."""
    cdef Py_ssize_t i, n = offsets.shape[0] - 1
    cdef const uint8_t* base = pointer(data)
    cdef const uint8_t* flag = flag_of(stop)
    cdef Py_ssize_t found = -1
    with nogil:
        for i in range(n):
            if (i & POLL_MASK) == 0 and stopped(flag):
                break
            if not valid_utf8(base + offsets[i], offsets[i + 1] - offsets[i]):
                found = i
                break
    return found


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
