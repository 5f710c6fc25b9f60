# Shared random numbers for every core and the search: xoshiro256** seeded by splitmix64.
# Everything random in Caravan (deals, chance draws, determinizations, rollouts) flows from one
# of these generators, and every generator from a seed the caller sets.
from libc.stdint cimport uint64_t, uint32_t

cdef struct Rng:
    uint64_t s0
    uint64_t s1
    uint64_t s2
    uint64_t s3

cdef inline uint64_t mix64(uint64_t x) noexcept nogil:
    """splitmix64 finaliser: a good 64-bit mixing function, also used for hashing."""
    x = x + <uint64_t>0x9E3779B97F4A7C15
    x = (x ^ (x >> 30)) * <uint64_t>0xBF58476D1CE4E5B9
    x = (x ^ (x >> 27)) * <uint64_t>0x94D049BB133111EB
    return x ^ (x >> 31)

cdef inline void rng_seed(Rng* r, uint64_t seed) noexcept nogil:
    r.s0 = mix64(seed)
    r.s1 = mix64(r.s0 ^ <uint64_t>0x1234567)
    r.s2 = mix64(r.s1 ^ <uint64_t>0x89ABCDEF)
    r.s3 = mix64(r.s2 ^ <uint64_t>0x5A5A5A5A)

cdef inline uint64_t rotl(uint64_t x, int k) noexcept nogil:
    return (x << k) | (x >> (64 - k))

cdef inline uint64_t rng_next(Rng* r) noexcept nogil:
    cdef uint64_t result = rotl(r.s1 * 5, 7) * 9
    cdef uint64_t t = r.s1 << 17
    r.s2 ^= r.s0
    r.s3 ^= r.s1
    r.s1 ^= r.s2
    r.s0 ^= r.s3
    r.s2 ^= t
    r.s3 = rotl(r.s3, 45)
    return result

cdef inline uint32_t rng_below(Rng* r, uint32_t n) noexcept nogil:
    """Uniform integer in [0, n) by Lemire's multiply-shift (bias below n / 2**32)."""
    return <uint32_t>(((rng_next(r) >> 32) * <uint64_t>n) >> 32)

cdef inline double rng_unit(Rng* r) noexcept nogil:
    """Uniform double in [0, 1)."""
    return (rng_next(r) >> 11) * (1.0 / 9007199254740992.0)
