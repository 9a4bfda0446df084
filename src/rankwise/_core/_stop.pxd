# Cooperative cancellation. Every kernel that can run long takes a stop flag (``stop``, a
# uint8 array of FLAG_BYTES made by ``_parallel.py``; None: never stopped), checks it with
# ``stopped`` at query boundaries and every POLL items of a loop whose length the data
# sets (between blocks of such a loop where it is hot, so that its code does not change),
# and returns early once it says so; the caller discards what it wrote.
#
# A flag given to the calling thread also carries a time budget: the thread cannot see
# Ctrl-C while it runs a kernel, so its kernels stop (yield) once the budget is spent, and
# the runner hands the rest of the work to a helper thread while this one waits.
from libc.stdint cimport uint8_t
from libc.string cimport memset

cdef extern from *:
    """
    #include <string.h>
    #if defined(_WIN32)
    #ifndef WIN32_LEAN_AND_MEAN
    #define WIN32_LEAN_AND_MEAN
    #endif
    #ifndef NOMINMAX
    #define NOMINMAX
    #endif
    #include <windows.h>
    static double rankwise_now(void) {
        LARGE_INTEGER frequency, count;
        QueryPerformanceFrequency(&frequency);
        QueryPerformanceCounter(&count);
        return (double)count.QuadPart / (double)frequency.QuadPart;
    }
    #else
    #include <time.h>
    static double rankwise_now(void) {
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
    }
    #endif

    /* Layout of a flag (bytes). Byte 0 is written (0 -> 1, once) by the thread that waits
       for the kernels (Ctrl-C, a failed chunk) and read by the kernels' threads, also on
       free-threaded CPython. A volatile read is enough: it makes the compiler load the
       byte at every check instead of once, and the store becomes visible to the other
       cores eventually (cache coherence). Nothing else is published through the flag, so
       no ordering with other memory is needed; a kernel that sees it late only stops a
       poll later. The other fields are used only when a budget is set, by the one thread
       that owns such a flag (the calling thread), so they need no care at all. */
    #define RANKWISE_STOP 0        /* 1: stop now */
    #define RANKWISE_YIELDED 1     /* 1: stopped because the budget ran out */
    #define RANKWISE_COUNTDOWN 4   /* int: boundary checks left before the next look at the clock */
    #define RANKWISE_BUDGET 8      /* double: seconds of work allowed, 0 for none */
    #define RANKWISE_DEADLINE 16   /* double: when the budget runs out, set at the first check */
    #define RANKWISE_FLAG_BYTES 24
    #define RANKWISE_CHECKS_PER_CLOCK 32

    static const unsigned char rankwise_never_stopped[RANKWISE_FLAG_BYTES] = {0};

    static int rankwise_late(const unsigned char *flag) {
        unsigned char *f = (unsigned char *)flag;  /* a budgeted flag is a writable array */
        double budget, deadline, now = rankwise_now();
        memcpy(&budget, f + RANKWISE_BUDGET, sizeof(double));
        memcpy(&deadline, f + RANKWISE_DEADLINE, sizeof(double));
        if (deadline == 0.0) {
            deadline = now + budget;
            memcpy(f + RANKWISE_DEADLINE, &deadline, sizeof(double));
            return 0;
        }
        if (now <= deadline)
            return 0;
        f[RANKWISE_YIELDED] = 1;
        f[RANKWISE_STOP] = 1;
        return 1;
    }

    static inline int rankwise_budgeted(const unsigned char *flag) {
        double budget;
        memcpy(&budget, flag + RANKWISE_BUDGET, sizeof(double));
        return budget > 0.0;
    }

    /* In a loop whose work the data size does not bound (quadratic in a tie group, say),
       every so often: the clock is read at every check. */
    static inline int rankwise_stopped_timed(const unsigned char *flag) {
        if (*(const volatile unsigned char *)flag)
            return 1;
        return rankwise_budgeted(flag) && rankwise_late(flag);
    }

    /* Whether the work since the last check was cut short: no look at the clock. */
    static inline int rankwise_was_stopped(const unsigned char *flag) {
        return *(const volatile unsigned char *)flag != 0;
    }

    /* Everywhere else: at a boundary (a query, a resample), and every POLL items of a
       loop over the data. The clock is read at one check in RANKWISE_CHECKS_PER_CLOCK:
       a budgeted call (the calling thread's) is short unless a quadratic loop makes it
       long, and those check with rankwise_stopped_timed. */
    static inline int rankwise_stopped(const unsigned char *flag) {
        int left;
        if (*(const volatile unsigned char *)flag)
            return 1;
        if (!rankwise_budgeted(flag))
            return 0;
        memcpy(&left, flag + RANKWISE_COUNTDOWN, sizeof(int));
        if (--left > 0) {
            memcpy((unsigned char *)flag + RANKWISE_COUNTDOWN, &left, sizeof(int));
            return 0;
        }
        left = RANKWISE_CHECKS_PER_CLOCK;
        memcpy((unsigned char *)flag + RANKWISE_COUNTDOWN, &left, sizeof(int));
        return rankwise_late(flag);
    }
    """
    bint stopped "rankwise_stopped"(const uint8_t* flag) noexcept nogil
    bint stopped_timed "rankwise_stopped_timed"(const uint8_t* flag) noexcept nogil
    bint was_stopped "rankwise_was_stopped"(const uint8_t* flag) noexcept nogil
    const uint8_t* NEVER_STOPPED "rankwise_never_stopped"
    enum: FLAG_BYTES "RANKWISE_FLAG_BYTES"

cdef enum:
    # Items between two polls inside a loop: tens of microseconds of work, so a poll costs
    # nothing measurable and a stop is seen well within a millisecond.
    POLL = 1 << 16
    POLL_MASK = POLL - 1
    # The hottest loops (one step per item of a list) run as they were up to this many
    # items, under 0.1 s, and in blocks of POLL with the flag checked between them above:
    # any change to such a loop, even a block boundary, moves the compiler's code by a
    # few per cent, so short lists keep the plain loop.
    LONG_LOOP = 1 << 20
    # What a kernel's step returns once the stop flag is set; its other outcomes (out of
    # memory, none found) are -1 and -2.
    STOPPED = -3


cdef inline const uint8_t* flag_of(const uint8_t[::1] stop) except NULL:
    # The kernels' argument ``stop``; None: a call nobody can stop.
    if stop is None:
        return NEVER_STOPPED
    if stop.shape[0] != FLAG_BYTES:
        raise ValueError(f"stop must be a stop flag of {FLAG_BYTES} bytes (rankwise._parallel), "
                         f"got {stop.shape[0]}")
    return &stop[0]


cdef inline bint memset_polled(void* buffer, int byte, size_t size, const uint8_t* flag) noexcept nogil:
    # memset of a buffer the data sizes, in blocks of POLL * 8 bytes with the flag checked
    # between them: the system clears a large buffer's pages as they are first written (2 MiB
    # at a time for a NumPy array under transparent huge pages), a good part of a second for
    # a GiB. False once the flag is set, the buffer then only partly filled.
    cdef size_t done = 0, block = <size_t>POLL * 8
    while done < size:
        if done > 0 and stopped(flag):
            return False
        memset(<char*>buffer + done, byte, min(block, size - done))
        done += block
    return True
