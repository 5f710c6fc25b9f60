# Per-player information-set hashes, shared by every game.
#
# Every event a game emits carries the set of players who observe it. Public events (seen by
# all) go into one running hash; private events (seen by a subset S) go into pair[p][q] for
# every p, q in S, salted with the number of public events so far so that the interleaving of
# public and private events is part of the history. pair[p][p] is p's own information set and
# pair[p][q] the part of the history that both p and q observed. A decision node of player p,
# searched for observer o, is keyed by
#   so mode:  public + pair[p][o]   (what p and o both saw; p == o gives o's information set)
#   mo mode:  public + pair[p][p]   (p's full information set)
#   full:     public + every pair[q][q]  (the whole state: perfect-information search, used
#             by the pimc and cheat agents on a state that is not resampled)
from libc.stdint cimport uint64_t, uint32_t
from cext.rng cimport mix64

cdef enum:
    IH_MAX = 5
    KEY_SO = 0
    KEY_MO = 1
    KEY_FULL = 2

cdef struct InfoHash:
    uint64_t public
    uint32_t n_public
    uint64_t pair[IH_MAX][IH_MAX]

cdef inline void ih_reset(InfoHash* h, uint64_t salt) noexcept nogil:
    cdef int a, b
    h.public = mix64(salt)
    h.n_public = 0
    for a in range(IH_MAX):
        for b in range(IH_MAX):
            h.pair[a][b] = 0

cdef inline void ih_public(InfoHash* h, uint64_t event) noexcept nogil:
    """An event every player observes."""
    h.public = mix64(h.public ^ (event * <uint64_t>0xD6E8FEB86659FD93))
    h.n_public += 1

cdef inline void ih_private(InfoHash* h, uint32_t seers, uint64_t event) noexcept nogil:
    """An event observed exactly by the players in the bit set `seers`."""
    cdef int a, b
    cdef uint64_t e = event + (<uint64_t>h.n_public << 40) + <uint64_t>0x51ED27
    for a in range(IH_MAX):
        if seers & (1u << a):
            for b in range(IH_MAX):
                if seers & (1u << b):
                    h.pair[a][b] = mix64(h.pair[a][b] ^ e)

cdef inline void ih_private_one(InfoHash* h, int p, uint64_t event) noexcept nogil:
    """ih_private(h, 1u << p, event): an event only p observes, hashed without testing the
    25 bits of a seer set (inside the search tree every move hashes its events)."""
    h.pair[p][p] = mix64(h.pair[p][p] ^ (event + (<uint64_t>h.n_public << 40) + <uint64_t>0x51ED27))

cdef inline uint64_t ih_key(InfoHash* h, int player, int observer, int mode) noexcept nogil:
    """Node key for `player` deciding, in a search run for `observer`."""
    cdef uint64_t x
    cdef int q
    if mode == KEY_FULL:
        x = 0
        for q in range(IH_MAX):
            x = mix64(x ^ h.pair[q][q])
    elif mode == KEY_MO or player == observer:
        x = h.pair[player][player]
    else:
        x = h.pair[player][observer]
    return mix64(h.public ^ mix64(x + <uint64_t>(player + 1)))

cdef inline void ih_resample(InfoHash* h, int observer, int n, uint64_t* private_digest) noexcept nogil:
    """After a determinization for `observer`: rebuild every entry `observer` does not share.

    The observer's own entries are kept. Another player's information set becomes what it shares
    with the observer plus a digest of its private state in the sampled world, so that nothing
    of the true hidden state survives in any key.
    """
    cdef int a, b
    for a in range(n):
        if a == observer:
            continue
        for b in range(n):
            if b == observer:
                continue
            if a == b:
                h.pair[a][a] = mix64(h.pair[a][observer] ^ private_digest[a])
            else:
                h.pair[a][b] = mix64(h.pair[a][observer] + h.pair[b][observer])
