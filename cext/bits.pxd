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
    """Index of the n-th set bit (0-based) of x, by a loop of n steps: for a small n the
    processor predicts; for a drawn n, select_bit."""
    cdef int i
    for i in range(n):
        x &= x - 1
    return __builtin_ctzll(x)

# Selecting a set bit without a loop: a loop of random length is a branch the processor
# mispredicts at nearly every draw (a determinization or a playout draws afresh each time).
# caravan_select8[b * 8 + j] is the position of the j-th set bit of byte b; each module that
# cimports this file gets its own copy, filled in C when the module is loaded.
cdef extern from *:
    """
    static unsigned char caravan_select8[256 * 8];
    static void __attribute__((constructor)) caravan_fill_select8(void) {
        for (int b = 0; b < 256; b++) {
            int j = 0;
            for (int c = 0; c < 8; c++)
                if ((b >> c) & 1) caravan_select8[b * 8 + j++] = (unsigned char)c;
        }
    }
    """
    const unsigned char* caravan_select8

cdef inline int select_bit(uint64_t x, uint64_t sums, int j) noexcept nogil:
    """The position of the j-th set bit of x (0-based, j below its count), sums = byte_sums(x):
    nth_bit(x, j) without a loop. The bytes whose sum is at most j come before it; the high bit
    of byte i of `before` is set for those (no byte of the difference borrows: sums <= 64)."""
    cdef uint64_t before = ((<uint64_t>j * <uint64_t>0x0101010101010101) | <uint64_t>0x8080808080808080) - sums
    cdef int shift = (lowest_bit(~before & <uint64_t>0x8080808080808080) >> 3) << 3
    cdef int skipped = <int>(((sums << 8) >> shift) & 255)
    return shift + caravan_select8[((x >> shift) & 255) * 8 + j - skipped]

# Counting the bytes of a small array that hold a value, eight at a time: the array's first n
# bytes as one word (memory order, whatever the byte order), and a mask with the high bit of
# each of those bytes (caravan_first_bytes[n], n = 0..8).
cdef extern from *:
    """
    #include <string.h>
    static unsigned long long caravan_first_bytes[9];
    static void __attribute__((constructor)) caravan_fill_first_bytes(void) {
        for (int n = 0; n <= 8; n++) {
            unsigned char b[8] = {0};
            for (int i = 0; i < n; i++) b[i] = 0x80;
            memcpy(&caravan_first_bytes[n], b, 8);
        }
    }
    static inline unsigned long long caravan_load8(const void* p) {
        unsigned long long x;
        memcpy(&x, p, 8);
        return x;
    }
    """
    const unsigned long long* caravan_first_bytes
    unsigned long long caravan_load8(const void* p) nogil

cdef inline uint64_t first_bytes(const void* p, int n) noexcept nogil:
    """The first n bytes (0..8) at p as one word, the others 0."""
    return caravan_load8(p) & ((caravan_first_bytes[n] >> 7) * <uint64_t>0xFF)

cdef inline int count_byte(uint64_t x, uint64_t live, int v) noexcept nogil:
    """How many bytes of x marked in `live` (0x80 in each, caravan_first_bytes) equal v, for
    every byte of x and v in 0..127 (first_bytes clears the rest): a byte of x ^ v plus 0x7f
    keeps its high bit clear only at 0, and no byte carries into the next."""
    cdef uint64_t y = x ^ (<uint64_t>v * <uint64_t>0x0101010101010101)
    cdef uint64_t zero = ~(y + <uint64_t>0x7F7F7F7F7F7F7F7F) & live
    return <int>(((zero >> 7) * <uint64_t>0x0101010101010101) >> 56)

cdef inline int draw_bit(Rng* rng, uint64_t x) noexcept nogil:
    """A uniformly random set bit of x (x not 0): nth_bit(x, rng_below(rng, popcount(x)))."""
    cdef uint64_t sums = byte_sums(x)
    return select_bit(x, sums, rng_below(rng, <uint32_t>(sums >> 56)))

cdef inline uint64_t random_subset(Rng* r, uint64_t pool, int k) noexcept nogil:
    """k distinct bits drawn uniformly from pool (k <= popcount(pool)): k draws of
    rng_below(r, bits left), the drawn index's bit taken out each time. The running byte sums
    lose one from the taken bit's byte on, so they are counted once."""
    cdef uint64_t out = 0
    cdef uint64_t sums = byte_sums(pool)
    cdef int left = <int>(sums >> 56)
    cdef int i, b
    for i in range(k):
        b = select_bit(pool, sums, rng_below(r, left))
        out |= (<uint64_t>1) << b
        pool &= ~((<uint64_t>1) << b)
        sums -= <uint64_t>0x0101010101010101 << ((b >> 3) << 3)
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
