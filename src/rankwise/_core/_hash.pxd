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
    uint64_t mask       # 2^bits - 1
    int64_t base        # a slot below base is empty
    const int64_t* keys # the keys, by index


cdef inline void table_init(IdTable* t, int bits, int64_t base, const int64_t* keys) noexcept nogil:
    t.bits = bits
    t.mask = (<uint64_t>1 << bits) - 1
    t.base = base
    t.keys = keys


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


cdef inline uint64_t home_slot(IdTable t, int64_t key, int skip) noexcept nogil:
    # The hash's bits after its top ``skip`` (which chose the key's bucket of a split key
    # set; 0 in the calls whose speed matters most, where the shift then compiles away).
    return (id_hash(key) << skip) >> (64 - t.bits)


cdef inline uint64_t find_slot(IdTable t, const slot_t* slots, int64_t key, int skip) noexcept nogil:
    # The slot holding key, or the empty one where it belongs. The table is passed by
    # value so that, inlined, its fields stay in registers across the stores to slots.
    cdef uint64_t h = home_slot(t, key, skip)
    while slots[h] >= t.base and t.keys[slots[h] - t.base] != key:
        h = (h + 1) & t.mask
    return h


cdef inline bint taken(IdTable t, const slot_t* slots, uint64_t h) noexcept nogil:
    return slots[h] >= t.base


cdef inline int64_t index_at(IdTable t, const slot_t* slots, uint64_t h) noexcept nogil:
    # The index of the key in slot h, which is taken.
    return <int64_t>slots[h] - t.base


cdef inline int64_t lookup(IdTable t, const slot_t* slots, int64_t key) noexcept nogil:
    # The index of key; -1: absent.
    cdef uint64_t h = find_slot(t, slots, key, 0)
    return index_at(t, slots, h) if taken(t, slots, h) else -1


cdef inline int64_t insert(IdTable t, slot_t* slots, int64_t key, int64_t index, int skip) noexcept nogil:
    # key at ``index`` unless present: then the index it has (else -1).
    cdef uint64_t h = find_slot(t, slots, key, skip)
    if taken(t, slots, h):
        return index_at(t, slots, h)
    slots[h] = <slot_t>(t.base + index)
    return -1
