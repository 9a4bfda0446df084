# The one hash table of int64 keys: open addressing with linear probing, Fibonacci hashing.
#
# A slot holds base + the index of its key in the caller's key array; a value below base
# is an empty slot. A table cleared once (to all ones, or zeros with base 1) serves many
# key sets if base moves past each set's indices: no clearing between sets. The caller
# allocates the 2^bits slots; the functions here never allocate. Every probe ends if
# fewer than 2^bits keys were inserted.
from libc.stdint cimport int32_t, int64_t, uint64_t

ctypedef fused slot_t:
    int32_t
    int64_t


cdef struct IdTable:
    int bits            # 2^bits slots
    int skip            # top bits of the hash left out (they chose the keys' bucket)
    int64_t base        # a slot below base is empty
    const int64_t* keys # the keys, by index


cdef inline uint64_t id_hash(int64_t key) noexcept nogil:
    # Fibonacci hashing: key * 2^64/phi, a bijection of 64-bit words whose top bits
    # spread consecutive ids.
    return <uint64_t>key * 0x9E3779B97F4A7C15ULL


cdef inline int table_bits(Py_ssize_t n, int slots_per_key) noexcept nogil:
    # A power of two, at least slots_per_key slots per key (so most probes end at their
    # first slot) and 16 in all.
    cdef int bits = 4
    while (<int64_t>1 << bits) < slots_per_key * n:
        bits += 1
    return bits


cdef inline uint64_t home_slot(IdTable t, int64_t key) noexcept nogil:
    # The hash's bits after its top ``skip``.
    return (id_hash(key) << t.skip) >> (64 - t.bits)


cdef inline uint64_t find_slot(IdTable t, const slot_t* slots, int64_t key) noexcept nogil:
    # The slot holding key, or the empty one where it belongs. The table is passed by
    # value so that, inlined, its fields stay in registers across the stores to slots.
    cdef uint64_t mask = (<uint64_t>1 << t.bits) - 1
    cdef uint64_t h = home_slot(t, key)
    while slots[h] >= t.base and t.keys[slots[h] - t.base] != key:
        h = (h + 1) & mask
    return h


cdef inline int64_t index_at(IdTable t, const slot_t* slots, uint64_t h) noexcept nogil:
    # The index of the key in slot h; negative: the slot is empty.
    return <int64_t>slots[h] - t.base


cdef inline int64_t lookup(IdTable t, const slot_t* slots, int64_t key) noexcept nogil:
    # The index of key; negative: absent.
    return index_at(t, slots, find_slot(t, slots, key))


cdef inline int64_t insert(IdTable t, slot_t* slots, int64_t key, int64_t index) noexcept nogil:
    # key at ``index`` unless present: then the index it has (else a negative number).
    cdef uint64_t h = find_slot(t, slots, key)
    cdef int64_t found = index_at(t, slots, h)
    if found < 0:
        slots[h] = <slot_t>(t.base + index)
    return found
