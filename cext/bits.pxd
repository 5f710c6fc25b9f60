# Bit helpers shared by the cores (hands, piles and grids are bit masks).
from libc.stdint cimport uint64_t, uint32_t
from cext.rng cimport Rng, rng_below

cdef extern from *:
    int __builtin_ctzll(unsigned long long) nogil

# One-byte integers for the small arrays of a state (piles, decks, knowledge masks). Cython is
# told they are plain integers, not characters, so a state's fields convert to and from Python
# lists of ints, with length and range checks (a char array would convert to a C string).
cdef extern from "<stdint.h>":
    ctypedef int i8 "int8_t"
    ctypedef unsigned int u8 "uint8_t"

cdef inline uint64_t byte_sums(uint64_t x) noexcept nogil:
    """Byte i: the bits set in bytes 0..i of x (byte 7: all of them). SWAR: a portable build
    has no POPCNT instruction, and libgcc's popcount is a call."""
    x = x - ((x >> 1) & <uint64_t>0x5555555555555555)
    x = (x & <uint64_t>0x3333333333333333) + ((x >> 2) & <uint64_t>0x3333333333333333)
    x = (x + (x >> 4)) & <uint64_t>0x0F0F0F0F0F0F0F0F
    return x * <uint64_t>0x0101010101010101

cdef inline int popcount(uint64_t x) noexcept nogil:
    """Bits set in x."""
    return <int>(byte_sums(x) >> 56)

cdef inline int lowest_bit(uint64_t x) noexcept nogil:
    """Index of the lowest set bit; x must not be 0."""
    return __builtin_ctzll(x)

cdef inline int nth_bit(uint64_t x, int n) noexcept nogil:
    """Index of the n-th set bit (0-based) of x."""
    cdef int i
    for i in range(n):
        x &= x - 1
    return __builtin_ctzll(x)

cdef inline uint64_t random_subset(Rng* r, uint64_t pool, int k) noexcept nogil:
    """k distinct bits drawn uniformly from pool (k <= popcount(pool))."""
    cdef uint64_t out = 0
    cdef int left = popcount(pool)
    cdef int i, b
    for i in range(k):
        b = nth_bit(pool, rng_below(r, left))
        out |= (<uint64_t>1) << b
        pool &= ~((<uint64_t>1) << b)
        left -= 1
    return out

cdef inline void shuffle_bytes(Rng* r, i8* a, int n) noexcept nogil:
    """Fisher-Yates shuffle of n bytes."""
    cdef Rng g = r[0]      # a local copy: a byte store may alias *r, reloaded at every draw
    cdef int i, j
    cdef i8 t
    for i in range(n - 1, 0, -1):
        j = rng_below(&g, i + 1)
        t = a[i]
        a[i] = a[j]
        a[j] = t
    r[0] = g

cdef inline void insertion_sort_bytes(i8* a, int n) noexcept nogil:
    """Insertion sort of n bytes, for any values."""
    cdef int i, j
    cdef i8 t
    for i in range(1, n):
        t = a[i]
        j = i - 1
        while j >= 0 and a[j] > t:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = t

cdef inline void sort_bytes(i8* a, int n) noexcept nogil:
    """Ascending order of n bytes: the canonical order of a pile before a reshuffle (run by
    every determinization, so it must be cheap). A counting sort when every value is in
    [0, 64) (every pile of these games), else insertion sort."""
    cdef u8 count[64]
    cdef uint64_t present = 0, bit
    cdef int i, v, k, j = 0
    if n > 255:                               # a count must fit its byte
        insertion_sort_bytes(a, n)
        return
    for i in range(n):
        v = a[i]
        if v < 0 or v >= 64:
            insertion_sort_bytes(a, n)
            return
        bit = (<uint64_t>1) << v
        if not present & bit:
            present |= bit
            count[v] = 0
        count[v] += 1
    while present:
        v = lowest_bit(present)
        present &= present - 1
        for k in range(count[v]):
            a[j] = <i8>v
            j += 1

cdef inline void win_shares(long long* keys, int n, double* out) noexcept nogil:
    """Reward per player from its final ranking key (all tie-breaks folded in): the players
    with the highest key share a win of 1, everyone else gets 0."""
    cdef int p, winners = 0
    cdef long long best = keys[0]
    for p in range(n):
        if keys[p] > best:
            best = keys[p]
    for p in range(n):
        if keys[p] == best:
            winners += 1
    for p in range(n):
        out[p] = 1.0 / winners if keys[p] == best else 0.0
