# cython: language_level=3
"""Kilim: every rule of the game in one C state, each Kilim a list of cells worked as bit masks.

The sections are those of the game-module contract (cext/core.pxd), in its order, and the
rules read top to bottom like the rulebook: the component table; moves and phases (the phases
and steps of a turn, the move kinds and their argument accessors, the kinds of the narration
log); the state (KilimState, each Kilim the list of its cells, each cell in the masks of its
pattern code and domino links, turned into bit rows where the rules need them); set-up (the deal); move generation (cards and offers, placements,
scrap targets, the optional window); playing a move (the market: cards, spies, the auction,
Scrap Bag, Artisan; the weaving: placements, scraps, Artisan tokens; then the end of a turn
and of a day); scoring and the tie-break; information (hashes, scrap knowledge,
determinization); copying; and the bridge. Notation, JSON, views, the checks of a loaded
position, rendering and narration are the Python half, in engine/games/kilim.py: it reads and
writes this state only through the bridge, `_fields` and `_set_fields`.

Rule interpretations are marked "Interpretation" and explained in docs/rules/kilim.md.
"""
cimport cython
from libc.stdint cimport uint64_t, uint32_t
from libc.string cimport memset, memmove, memcpy, memcmp
from cext.core cimport GameCore, EventLog, MAX_MOVES, MAX_PLAYERS, TRACK_ALL, head_fits, log_event
from cext.moves cimport make_move, move_kind, move_arg
from cext.rng cimport Rng, rng_seed, rng_next, rng_below, mix64
from cext.bits cimport (i8, u8, popcount, byte_sums, lowest_bit, select_bit, draw_bit,
                        shuffle_bytes)
from cext.infohash cimport (InfoHash, ih_reset, ih_public, ih_private, ih_resample)

# ================================================================ component table
# Every number of the game lives here. Those the rulebook does not print come from
# ../shared/RULES-NOTES.md and are explained in docs/rules/kilim.md. (cpdef: the Python half
# reads them too.)
cpdef enum:
    N_TYPES = 5              # pattern types A-E (Interpretation: 5 types)
    TORN = 5                 # cell codes 0-4 = A-E, 5 = torn pattern, 6 = perfect pattern
    PERF = 6
    N_CODES = 7
    M_HL = 7                 # mask: this cell and the one to its right are one domino
    M_VL = 8                 # mask: this cell and the one below are one domino
    N_MASKS = 9
    GROUP_SIZE = 15          # dominoes per group: every unordered pair of types (Interpretation)
    N_GROUPS = 3             # = days
    N_REGULAR = 45           # regular domino id = group * 15 + pair index
    ID_TORN = 45             # torn domino id = 45 + type of its regular half (one per type)
    N_TORN = 5
    ID_PERF = 50             # the 3 perfect carpet dominoes (never in a pile)
    N_PERFECT = 3
    N_SCRAPS = 5             # one per type (Interpretation)
    N_TOKENS = 4             # perfect carpet, rotate, remove, move
    TOK_PERFECT = 0
    TOK_ROTATE = 1
    TOK_REMOVE = 2
    TOK_MOVE = 3
    GOLD_MAX = 15            # Gold cards 1..15 per player
    GOLD_MAX_DUEL = 10       # 2 players: 1..10
    DUEL_REMOVED = 5         # 2 players: dominoes removed at random from each group
    C_SPY = 16               # card bits in a hand: 1..15 gold, 16 spy, 17 scrap bag, 18 artisan
    C_SCRAP = 17
    C_ART = 18

    # the frame of a Kilim's coordinates, H rows by MAX_COL + 1 columns (the masks of the bridge
    # are 128-bit rows); a non-empty Kilim is kept with its bounding box's top-left cell at
    # (ORG, ORG), leaving two free rows/columns for growth up and left
    H = 112
    ORG = 2
    MAX_COL = 125

    # How far a Kilim can spread. Its bounding box's rows + columns ("span") is 3 after the
    # first domino; a domino woven next to the Kilim (won, perfect, or moved by the Move
    # token) adds at most 2 (one of its cells touches a cell inside the box), a Rotate swing
    # at most 1 (the swung half goes next to the kept one), and a scrap, a removal or a lift
    # nothing. A seat wins at most the 45 auctioned dominoes, and every token it uses (a
    # perfect carpet, a Move, a Rotate) comes from its own Artisan call, made in an auction
    # someone else won: a domino it did not weave. So its span is at most 3 + 2 * (45 - 1) =
    # 91 (2 players: 30 dominoes, 61), far inside the frame. engine/games/kilim.py checks a
    # per-position form of this bound (the dominoes and token uses so far).
    MOST_SPAN = 91
    # The most legal moves a reachable position has: a scrap to place on a Kilim of 45
    # dominoes woven as a staircase, 45 rows by 46 columns: the scrap may go on every cell of
    # the bounding box (a pattern or a hole), and no box with rows + columns <= MOST_SPAN
    # has more cells. Every other phase has fewer: a card 18, an offer 15, a scrap 5, a token
    # 4; a placement: each free domino position touching the Kilim holds a free cell next to
    # an occupied one, each occupied cell has at most 3 free neighbours (4 for a scrap filling
    # a hole) and each free cell is in at most 3 positions next to it, so with at most 47
    # dominoes and 5 scraps woven: 3 * (3 * 94 + 4 * 5) = 906 positions, two orders of halves:
    # 1,812; a window: done, take and weave a perfect carpet, 5 scraps, 7 rotations, a removal
    # and a move of each of 48 dominoes, 5 woven scraps removed or moved: 3 + 5 + 9 * 48 + 10
    # = 450. The generators refuse a state that would exceed it (gen_moves returns no move)
    # instead of writing past the buffer.
    MOST_MOVES = 2070

# by player count: torn carpets shuffled into groups 1, 2, 3 (the Python half reads it too)
TORN_PER_GROUP_OF_PLAYERS = {2: (1, 1, 0), 3: (1, 1, 1), 4: (2, 1, 1), 5: (2, 2, 1)}
cdef int TORN_PER_GROUP[6][3]
for _n, _torn in TORN_PER_GROUP_OF_PLAYERS.items():
    TORN_PER_GROUP[_n][:] = _torn
cdef i8 PAIR_A[15]
cdef i8 PAIR_B[15]
_k = 0
for _a in range(5):
    for _b in range(_a, 5):
        PAIR_A[_k] = _a
        PAIR_B[_k] = _b
        _k += 1

cdef enum:                   # points (the rulebook's scoring)
    PT_RECT = 10             # the Kilim is a full rectangle
    PT_THREE = 10            # exactly 3 pattern types
    PT_FIVE = 5              # all 5 types
    PT_LARGEST = 5           # the largest group of a type (ties: every leader)
    PT_TORN = 3              # lost for each torn pattern showing


# ================================================================ moves and phases
cpdef enum:
    PH_CARD = 0              # players choose their card one after another (sequentialized)
    PH_SPY = 1               # Spy players choose their Gold card, seeing the offers
    PH_SCRAPBID = 2          # Scrap Bag players choose their Gold card (offer or discard)
    PH_ARTBID = 3            # Artisan players choose their Gold card (offer or discard)
    PH_SCRAPPICK = 4         # the Scrap Bag winner picks a scrap (secretly)
    PH_TOKENPICK = 5         # the Artisan winner takes a token
    PH_PLACE = 6             # a domino is placed (won, perfect carpet, or moved by a token)
    PH_WINDOW = 7            # a player may use a scrap, a perfect carpet or a token, or be done
    PH_SCRAPAT = 8           # a scrap is placed (from the hand or moved by a token)
    PH_OVER = 9

    ST_SPY = 0               # the automatic steps of a turn, after the cards (advance)
    ST_AUCTION = 1
    ST_SCRAP = 2
    ST_ART = 3
    ST_PLACE = 4
    ST_WINDOW = 5
    ST_END = 6

    PS_WON = 0               # sources of a placement
    PS_PERFECT = 1
    PS_MOVE = 2

    # move kinds: a move is make_move(kind, argument) (cext/moves.pxd); the kinds of a window
    # are numbered in the order it lists them
    MV_CARD = 1              # the card: 1..15 Gold, C_SPY, C_SCRAP, C_ART
    MV_BID = 2               # the Gold card's value
    MV_SCRAPPICK = 3         # the scrap's type
    MV_TOKENPICK = 4         # the token
    MV_PLACE = 5             # place_arg(row, col, dir, flip)
    MV_DONE = 6
    MV_TAKEPERF = 7
    MV_PLACEPERF = 8
    MV_SELSCRAP = 9          # the scrap's type
    MV_ROTATE = 10           # rotate_arg(anchor, option)
    MV_REMOVE = 11           # the domino's anchor
    MV_REMOVESCRAP = 12      # the scrap's type
    MV_MOVE = 13             # the domino's anchor
    MV_MOVESCRAP = 14        # the scrap's type
    MV_SCRAPAT = 15          # cell_arg(row, col)
    NO_MOVE = 0              # what random_move returns when there is no legal move (see do_move)

    # the narration log (core.pxd's log_event: kind, player, a, b, c), written at TRACK_ALL
    LOG_REVEAL = 1           # a = domino, b = day
    LOG_CARD = 2             # player, a = card
    LOG_SPYBID = 3           # player, a = value
    LOG_WIN = 4              # player, a = value, b = dominoes won
    LOG_TIE = 5              # a = dominoes carried (b = 0) or lost (b = 1)
    LOG_SCRAPBID = 6         # player, a = value, b = valid
    LOG_SCRAPWIN = 7         # player (-1 nobody), a = the winning value
    LOG_SCRAPPICK = 8        # player, a = type
    LOG_ARTBID = 9           # as LOG_SCRAPBID
    LOG_ARTWIN = 10          # as LOG_SCRAPWIN
    LOG_TOKEN = 11           # player, a = token
    LOG_DAYEND = 12          # a = day
    LOG_GAMEOVER = 13

# The packed move arguments, each number with its accessor (cpdef: the Python half's notation
# reads them too). A placement: the anchor cell (the top or left half), the direction (0
# across, 1 down) and whether the domino's halves are swapped.
cpdef inline int place_arg(int r, int c, int d, int flip) noexcept nogil:
    return (r << 9) | (c << 2) | (d << 1) | flip

cpdef inline int place_row(int x) noexcept nogil: return (x >> 9) & 127
cpdef inline int place_col(int x) noexcept nogil: return (x >> 2) & 127
cpdef inline int place_dir(int x) noexcept nogil: return (x >> 1) & 1
cpdef inline int place_flip(int x) noexcept nogil: return x & 1

# A woven domino (Rotate, Remove, Move): its anchor, the top or left cell and the direction.
cpdef inline int anchor_of(int r, int c, int d) noexcept nogil: return (r << 8) | (c << 1) | d
cpdef inline int anchor_row(int anchor) noexcept nogil: return anchor >> 8
cpdef inline int anchor_col(int anchor) noexcept nogil: return (anchor >> 1) & 127
cpdef inline int anchor_dir(int anchor) noexcept nogil: return anchor & 1

# A rotation: the domino's anchor and one of its rotate_options.
cpdef inline int rotate_arg(int anchor, int option) noexcept nogil: return (anchor << 4) | option
cpdef inline int rotate_anchor(int x) noexcept nogil: return x >> 4
cpdef inline int rotate_option(int x) noexcept nogil: return x & 15

# A cell for a scrap.
cpdef inline int cell_arg(int r, int c) noexcept nogil: return (r << 7) | c
cpdef inline int cell_row(int x) noexcept nogil: return x >> 7
cpdef inline int cell_col(int x) noexcept nogil: return x & 127
cdef inline int moves_of_bits(int* buf, int kind, uint32_t bits) noexcept nogil:
    """A move of `kind` for each bit set in `bits`, the bit its argument, ascending; their number."""
    cdef int n = 0
    while bits:
        buf[n] = make_move(kind, lowest_bit(bits))
        n += 1
        bits &= bits - 1
    return n

cdef inline uint64_t spread32(uint64_t x) noexcept nogil:
    """Bits 0-31 of x moved to the even bits 0, 2, .., 62."""
    x = (x | (x << 16)) & <uint64_t>0x0000FFFF0000FFFF
    x = (x | (x << 8)) & <uint64_t>0x00FF00FF00FF00FF
    x = (x | (x << 4)) & <uint64_t>0x0F0F0F0F0F0F0F0F
    x = (x | (x << 2)) & <uint64_t>0x3333333333333333
    return (x | (x << 1)) & <uint64_t>0x5555555555555555

cdef inline int select_pair(uint64_t h, uint64_t v, int j) noexcept nogil:
    """The j-th (0-based) of the positions set in h or in v, taken by position and at one
    position h's before v's, as 2 * position + (1 for v's): h and v interleaved into 128 bits
    (h's bit b at 2 b, v's at 2 b + 1), then a set bit selected there without a loop."""
    cdef uint64_t lo = spread32(<uint32_t>h) | (spread32(<uint32_t>v) << 1)
    cdef uint64_t hi = spread32(h >> 32) | (spread32(v >> 32) << 1)
    cdef uint64_t slo = byte_sums(lo), shi = byte_sums(hi)
    cdef int nlo = <int>(slo >> 56)
    cdef int upper = j >= nlo
    cdef uint64_t m = -<uint64_t>upper            # both halves chosen by masks, not a branch
    return (upper << 6) + select_bit((hi & m) | (lo & ~m), (shi & m) | (slo & ~m), j - (nlo & -upper))

cdef inline int placement_in(int i, uint64_t h, uint64_t v, int j, int flip) noexcept nogil:
    """The placement at the j-th of the positions h / v (across / down) of word i of 128-bit
    rows (two words a row; a tile's words: tile_placement)."""
    cdef int x = select_pair(h, v, j)
    cdef int b = (i << 6) + (x >> 1)
    return make_move(MV_PLACE, place_arg(b >> 7, b & 127, x & 1, flip))


# ================================================================ state
# One Kilim, declared in C: the list of its cells, each with its row and column in the frame
# (H rows by MAX_COL + 1 columns, the bounding box's top-left cell at (ORG, ORG)) and the
# masks it is in (bit i for mask i: the cell codes 0-6, then the links M_HL and M_VL, as the
# bridge's masks number them). A Kilim holds at most 48 dominoes (the 45 auctioned and the 3
# perfect carpets) and 5 scraps filling holes: 101 cells, so the list holds CELLS = 104, in
# no particular order. The rules work on bit masks built from the list where they are needed
# (128-bit rows: placements, scrap targets; a map of the box: the window, the groups), and
# keep one with it: the tile, the occupied cells of rows and columns 0-15 in four 64-bit
# words, where a Kilim of up to 11 rows and 12 columns (most of them) finds its placements
# (random_place_tile); it is made when first needed, kept by each placement and dropped by
# any other change. A Kilim takes 480 bytes (the state 3,576), where a grid of 9 masks of
# the whole frame took 16 KB (the state 81,808); a copy of the state copies only that.
#
# Cython is shown the extent and counts but not the rest, so that the automatic struct <->
# dict conversion of the state (`_fields`, `_set_fields`) skips it: the bridge converts the
# list to and from the masks, one integer per mask (`_fields`). The rules reach the list
# through `cells(k)` and `n_used(k)`. `bad` marks a grid the bridge could not hold (more cells
# than a Kilim can have, or an extent outside the frame): no position a game reaches; such a
# state has no legal move and the loader refuses it.
cdef extern from *:
    """
    typedef unsigned __int128 kilim_u128;
    typedef struct { unsigned short rc, m; } KilimCell;   /* rc = row << 8 | column */
    typedef struct {
        KilimCell cell[104];    /* the first `used` are the cells (CELLS) */
        int used, bad;
        unsigned long long tile[4];   /* the occupied cells of rows 0-15, columns 0-15, while tile_ok */
        int tile_ok;
        int rmax, cmax;         /* bottom row and right column of the bounding box (-1: empty) */
        int n_dom, n_perf, n_cells;
    } KilimGrid;
    #define kilim_cells(k) ((k)->cell)
    #define kilim_used(k) (&(k)->used)
    #define kilim_bad(k) (&(k)->bad)
    #define kilim_tile(k) ((k)->tile)
    #define kilim_tile_ok(k) (&(k)->tile_ok)
    """
    ctypedef unsigned long long u128 "kilim_u128"
    ctypedef struct Cell "KilimCell":
        unsigned short rc, m
    ctypedef struct Kil "KilimGrid":
        int rmax, cmax
        int n_dom, n_perf, n_cells
    Cell* cells "kilim_cells"(Kil* k) noexcept nogil
    int* n_used "kilim_used"(Kil* k) noexcept nogil
    int* is_bad "kilim_bad"(Kil* k) noexcept nogil
    uint64_t* tile "kilim_tile"(Kil* k) noexcept nogil
    int* tile_ok "kilim_tile_ok"(Kil* k) noexcept nogil
    int __builtin_clzll(unsigned long long) nogil
    int __builtin_clz(unsigned int) nogil

# The seats (bit q: seat q) whose entry of a five-int array equals / exceeds v: entries 0-3
# compared in one SSE2 comparison and their signs gathered, entry 4 alone (a loop of five
# shifted tests was 29 instructions at each of the turn's several calls); a plain loop where
# SSE2 is missing.
cdef extern from *:
    """
    #if defined(__SSE2__)
    #include <emmintrin.h>
    static inline unsigned kilim_seats_eq(const int* a, int v) {
        __m128i e = _mm_cmpeq_epi32(_mm_loadu_si128((const __m128i*)a), _mm_set1_epi32(v));
        return (unsigned)_mm_movemask_ps(_mm_castsi128_ps(e)) | ((unsigned)(a[4] == v) << 4);
    }
    static inline unsigned kilim_seats_gt(const int* a, int v) {
        __m128i e = _mm_cmpgt_epi32(_mm_loadu_si128((const __m128i*)a), _mm_set1_epi32(v));
        return (unsigned)_mm_movemask_ps(_mm_castsi128_ps(e)) | ((unsigned)(a[4] > v) << 4);
    }
    #else
    static inline unsigned kilim_seats_eq(const int* a, int v) {
        unsigned s = 0;
        for (int q = 0; q < 5; q++) s |= (unsigned)(a[q] == v) << q;
        return s;
    }
    static inline unsigned kilim_seats_gt(const int* a, int v) {
        unsigned s = 0;
        for (int q = 0; q < 5; q++) s |= (unsigned)(a[q] > v) << q;
        return s;
    }
    #endif
    """
    unsigned kilim_seats_eq(const int* a, int v) noexcept nogil
    unsigned kilim_seats_gt(const int* a, int v) noexcept nogil

# random_place_tile's free positions in SSE2 (every x86-64 has it): the tile's four words as
# two 128-bit registers, each step on two words at once, a shift by a row (16 bits) across
# all 256 bits by byte shifts. The same values as next_to, room_across, room_down and
# pair_byte_sums word by word (the scalar path where SSE2 is missing; ~(o | o >> 1) differs
# from ~o & ~o >> 1 only at column 15, where no cell is, so no position either), in half
# the instructions: the placement's cost is its instructions more than its chain.
cdef extern from *:
    """
    #if defined(__SSE2__)
    #include <emmintrin.h>
    #define KILIM_SSE2 1
    /* x shifted down a row (toward bit 0) / up a row across the 256 bits of (a, b) */
    #define KILIM_ROW_DOWN(a, b, ra, rb) do { ra = _mm_or_si128(_mm_srli_si128(a, 2), _mm_slli_si128(b, 14)); \
                                             rb = _mm_srli_si128(b, 2); } while (0)
    #define KILIM_ROW_UP(a, b, ra, rb) do { ra = _mm_slli_si128(a, 2); \
                                           rb = _mm_or_si128(_mm_slli_si128(b, 2), _mm_srli_si128(a, 14)); } while (0)
    static inline __m128i kilim_pair_sums(__m128i h, __m128i v) {
        const __m128i m1 = _mm_set1_epi8(0x55), m2 = _mm_set1_epi8(0x33), m4 = _mm_set1_epi8(0x0F);
        h = _mm_sub_epi8(h, _mm_and_si128(_mm_srli_epi64(h, 1), m1));
        v = _mm_sub_epi8(v, _mm_and_si128(_mm_srli_epi64(v, 1), m1));
        h = _mm_add_epi8(_mm_and_si128(h, m2), _mm_and_si128(_mm_srli_epi64(h, 2), m2));
        v = _mm_add_epi8(_mm_and_si128(v, m2), _mm_and_si128(_mm_srli_epi64(v, 2), m2));
        h = _mm_add_epi8(h, v);                                   /* each nibble at most 8 */
        h = _mm_add_epi8(_mm_and_si128(h, m4), _mm_and_si128(_mm_srli_epi64(h, 4), m4));
        h = _mm_add_epi64(h, _mm_slli_epi64(h, 8));               /* byte i: bytes 0..i */
        h = _mm_add_epi64(h, _mm_slli_epi64(h, 16));
        return _mm_add_epi64(h, _mm_slli_epi64(h, 32));
    }
    static inline void kilim_tile_room(const unsigned long long* w, unsigned long long across,
                                       unsigned long long down, unsigned long long* hs,
                                       unsigned long long* vs, unsigned long long* sums) {
        __m128i oa = _mm_loadu_si128((const __m128i*)w), ob = _mm_loadu_si128((const __m128i*)(w + 2));
        __m128i ua, ub, da, db, ta, tb, ha, hb, va, vb, fa, fb;
        const __m128i ac = _mm_set1_epi64x((long long)across), dn = _mm_set1_epi64x((long long)down);
        KILIM_ROW_UP(oa, ob, ua, ub);
        KILIM_ROW_DOWN(oa, ob, da, db);
        /* next_to: the free cells next to an occupied one */
        ta = _mm_andnot_si128(oa, _mm_or_si128(_mm_or_si128(_mm_slli_epi64(oa, 1), _mm_srli_epi64(oa, 1)), _mm_or_si128(ua, da)));
        tb = _mm_andnot_si128(ob, _mm_or_si128(_mm_or_si128(_mm_slli_epi64(ob, 1), _mm_srli_epi64(ob, 1)), _mm_or_si128(ub, db)));
        /* room_across: ~o & (~o >> 1) & (t | t >> 1) */
        fa = _mm_or_si128(oa, _mm_srli_epi64(oa, 1));
        fb = _mm_or_si128(ob, _mm_srli_epi64(ob, 1));
        ha = _mm_and_si128(_mm_andnot_si128(fa, _mm_or_si128(ta, _mm_srli_epi64(ta, 1))), ac);
        hb = _mm_and_si128(_mm_andnot_si128(fb, _mm_or_si128(tb, _mm_srli_epi64(tb, 1))), ac);
        /* room_down: ~o & ~(o a row down) & (t | t a row down); below the tile no room */
        KILIM_ROW_DOWN(oa, ob, da, db);
        db = _mm_or_si128(db, _mm_slli_si128(_mm_set1_epi32(-1), 14));
        fa = _mm_or_si128(oa, da);
        fb = _mm_or_si128(ob, db);
        KILIM_ROW_DOWN(ta, tb, da, db);
        va = _mm_and_si128(_mm_andnot_si128(fa, _mm_or_si128(ta, da)), dn);
        vb = _mm_and_si128(_mm_andnot_si128(fb, _mm_or_si128(tb, db)), dn);
        _mm_storeu_si128((__m128i*)hs, ha);
        _mm_storeu_si128((__m128i*)(hs + 2), hb);
        _mm_storeu_si128((__m128i*)vs, va);
        _mm_storeu_si128((__m128i*)(vs + 2), vb);
        _mm_storeu_si128((__m128i*)sums, kilim_pair_sums(ha, va));
        _mm_storeu_si128((__m128i*)(sums + 2), kilim_pair_sums(hb, vb));
    }
    #else
    #define KILIM_SSE2 0
    static inline void kilim_tile_room(const unsigned long long* w, unsigned long long across,
                                       unsigned long long down, unsigned long long* hs,
                                       unsigned long long* vs, unsigned long long* sums) {}
    #endif
    """
    int KILIM_SSE2
    void kilim_tile_room(const uint64_t* w, uint64_t across, uint64_t down, uint64_t* hs,
                         uint64_t* vs, uint64_t* sums) noexcept nogil

cdef enum:
    CELLS = 104              # cells a Kilim's list holds (see above)
    CODE_BITS = 0x7F         # a cell's bits for the codes 0-6 (a pattern, torn or perfect)
    TYPE_BITS = 0x1F         # a cell's bits for the pattern types A-E
    TILE_RMAX = 12           # a Kilim whose box ends at row 12 and column 13 or before fits,
    TILE_CMAX = 13           # with every placement next to it, in a tile (random_place_tile)
    PLAYOUT_EPSILON = 10     # percent of playout moves drawn at random (playout_move)

cpdef enum:
    LOC_BOARD = -1           # scrap locations: on the board, held (face down) by p, woven by p,
    LOC_HELD = 0             # out of the game, or in p's hand being placed / moved
    LOC_WOVEN = 8
    LOC_OUT = 16
    LOC_SEL = 24
    WHERE_BOARD = 5          # knowledge bit for "on the board"
    N_PLACES = 6             # places a hidden scrap may be: seats 0-4, the board (WHERE_BOARD)
    NO_GROUP = 255           # a scrap its observer sees, or knows only by its places (group_of)
    SEL_PLACE = 8            # forget_scraps: a scrap in hand, SEL_PLACE + its seat

    EV_DOMINO = 1            # information events (type << 56 | payload), hashed into ih
    EV_CHOICE = 2
    EV_CARDS = 3
    EV_BID = 4
    EV_BIDS = 5
    EV_SCRAP = 6
    EV_SEARCHED = 7
    EV_MOVE = 8

cdef struct KilimState:
    int tracking                     # StateHead (core.pxd): these three fields first
    InfoHash ih
    EventLog log
    int n, gold_max, day, turn, phase, actor, step, seat_iter
    uint32_t hand[5]                 # cards available (public): bits 1..15 gold, 16-18 specials
    int choice[5]                    # card chosen this turn (0: not yet); hidden until the reveal
    int spy_bid[5]
    int scrap_bid[5]
    int art_bid[5]
    int win_value, winner
    i8 piles[3][15]
    int pile_len[3]
    int pile_pos                     # next index to reveal in piles[day]
    int torn_in[3]
    int torn_seen[3]
    uint64_t revealed                # domino ids revealed so far (public)
    int on_table                     # the domino of the current auction, -1 once resolved
    i8 pending[16]          # carried dominoes (all-tied auctions)
    int n_pending
    i8 to_place[16]         # won dominoes the winner still has to weave
    int n_to_place
    int placer
    int lost                         # dominoes lost (last auction of a day tied)
    int removed_reg, removed_perf    # dominoes removed by the Artisan token
    int place_src, pl_a, pl_b, pl_dir, pl_perf   # the domino being placed
    int sel_scrap
    int token_holder[4]
    int token_used[4]
    int perfect_supply
    int perfect_held[5]
    int scrap_loc[5]
    int scrap_r[5]
    int scrap_c[5]
    int scrap_under[5]               # code under a woven scrap, -1 for a filled hole
    u8 where[5][5]                   # where[o][t]: where observer o knows scrap t may be
    # o's counts: the scraps o last saw on the board (or since the deal), less those it later
    # saw elsewhere, form a group; how many of a group each seat took and the board still
    # holds is known (share[o][g][place]) where which one is not (docs/rules/kilim.md)
    u8 group_of[5][5]                # group_of[o][t]: t's group in o's counts, or NO_GROUP
    u8 share[5][5][6]                # share[o][g][q]: how many of o's group g are at place q
    Kil k[5]
    Rng chance

if MOST_MOVES > MAX_MOVES:
    raise ImportError("a Kilim position can have more moves than a move buffer holds")

cdef struct Shown:                   # the playout policy's memo of codes_shown, by seat
    unsigned known                   # bit p: shown[p] is p's Kilim as it stands
    unsigned shown[MAX_PLAYERS]

cdef KilimState _layout_probe
if not head_fits(&_layout_probe, &_layout_probe.tracking, &_layout_probe.ih, &_layout_probe.log):
    raise ImportError("KilimState must begin with the fields of StateHead (cext/core.pxd)")
if <size_t>(<char*>n_used(&_layout_probe.k[0]) - <char*>&_layout_probe.k[0]) != CELLS * sizeof(Cell):
    raise ImportError("KilimGrid's list must hold CELLS cells")
if N_MASKS > 16 or H > 256:
    raise ImportError("a KilimCell holds 16 masks and rows below 256")
cdef u128 _probe_row = (<u128>1) << 64
if (<unsigned char*>&_probe_row)[8] != 1:
    raise ImportError("the grid bridge (_fields) reads 128-bit rows as little-endian bytes")

# ---------------------------------------------------------------- the grid: cells and 128-bit rows
cdef inline u128 bit(int c) noexcept nogil:
    return (<u128>1) << c

cdef inline int pc128(u128 x) noexcept nogil:
    return popcount(<uint64_t>x) + popcount(<uint64_t>(x >> 64))

cdef inline int low128(u128 x) noexcept nogil:
    cdef uint64_t lo = <uint64_t>x
    if lo:
        return lowest_bit(lo)
    return 64 + lowest_bit(<uint64_t>(x >> 64))

cdef inline u128 colmask() noexcept nogil:
    return (bit(MAX_COL + 1)) - 1

cdef inline int cell_r(Cell* x) noexcept nogil: return x.rc >> 8
cdef inline int cell_c(Cell* x) noexcept nogil: return x.rc & 255

cdef inline int find_cell(Kil* k, int r, int c) noexcept nogil:
    """The index of cell (r, c) in k's list, or -1 if it is in no mask."""
    cdef Cell* x = cells(k)
    cdef int i, n = n_used(k)[0]
    cdef unsigned short key
    if r < 0 or c < 0 or r >= H or c > 127:
        return -1
    key = <unsigned short>((r << 8) | c)
    for i in range(n):
        if x[i].rc == key:
            return i
    return -1

cdef inline void change_cell(Kil* k, int r, int c, unsigned clear, unsigned add) noexcept nogil:
    """Take cell (r, c) out of the masks `clear`, then put it in `add` (bit i: mask i); a cell
    left in no mask leaves the list (the last one takes its place: the order means nothing)."""
    cdef Cell* x = cells(k)
    cdef int* n = n_used(k)
    cdef int i = find_cell(k, r, c)
    cdef unsigned m
    tile_ok(k)[0] = 0                    # the tile kept (KilimGrid.tile) is rebuilt when needed
    if i < 0:
        if add == 0 or r < 0 or c < 0 or r >= H or c > 127:
            return
        if n[0] >= CELLS:
            is_bad(k)[0] = 1             # never in a game: no Kilim has more cells
            return
        x[n[0]].rc = <unsigned short>((r << 8) | c)
        x[n[0]].m = <unsigned short>add
        n[0] += 1
        return
    m = (x[i].m & ~clear) | add
    if m:
        x[i].m = <unsigned short>m
    else:
        n[0] -= 1
        x[i] = x[n[0]]

cdef inline void append_cell(Kil* k, int r, int c, unsigned m) noexcept nogil:
    """Add cell (r, c), in no mask yet, to the list with the masks `m`."""
    cdef int* n = n_used(k)
    if n[0] >= CELLS:
        is_bad(k)[0] = 1                 # never in a game: no Kilim has more cells
        return
    cells(k)[n[0]].rc = <unsigned short>((r << 8) | c)
    cells(k)[n[0]].m = <unsigned short>m
    n[0] += 1

cdef inline int cell_code(Kil* k, int r, int c) noexcept nogil:
    cdef int i = find_cell(k, r, c)
    cdef unsigned m
    if i < 0:
        return -1
    m = cells(k)[i].m & CODE_BITS
    return lowest_bit(m) if m else -1

cdef inline void set_code(Kil* k, int r, int c, int code) noexcept nogil:
    change_cell(k, r, c, CODE_BITS, (1u << code) if code >= 0 else 0)

cdef inline void fill_rows(Kil* k, unsigned bits, u128* rows, int nrows) noexcept nogil:
    """rows[r], r < nrows: the cells of row r in any of the masks `bits`, as a 128-bit row."""
    cdef Cell* x = cells(k)
    cdef int i, r, n = n_used(k)[0]
    if nrows <= 0:
        return
    memset(rows, 0, nrows * sizeof(u128))
    for i in range(n):
        if x[i].m & bits:
            r = cell_r(&x[i])
            if r < nrows:
                rows[r] |= bit(cell_c(&x[i]) & 127)

cdef inline void shift_tile(uint64_t* w, int s) noexcept nogil:
    """The 256-bit tile w[0..3] shifted up by s bits, 0 <= s < 64 (row r of a tile is bits 16 r
    to 16 r + 15: shifting by 16 moves every cell a row down, by 1 a column right). The carry
    is shifted in two steps, never by 64: s = 0 needs no test."""
    w[3] = (w[3] << s) | ((w[2] >> 1) >> (63 - s))
    w[2] = (w[2] << s) | ((w[1] >> 1) >> (63 - s))
    w[1] = (w[1] << s) | ((w[0] >> 1) >> (63 - s))
    w[0] <<= s

cdef inline void fill_tile(Kil* k, uint64_t* w) noexcept nogil:
    """k's occupied cells of rows 0-15, columns 0-15, as a tile."""
    cdef Cell* x = cells(k)
    cdef int i, r, c
    w[0] = w[1] = w[2] = w[3] = 0
    for i in range(n_used(k)[0]):
        if x[i].m & CODE_BITS:
            r = cell_r(&x[i])
            c = cell_c(&x[i])
            if r < 16 and c < 16:
                w[r >> 2] |= (<uint64_t>1) << (((r & 3) << 4) + c)

# A tile's free positions, word by word (four rows of 16 cells each; `before` and `after`
# are the words of the rows above and below): as compute_slots on 128-bit rows.
cdef inline uint64_t next_to(uint64_t before, uint64_t o, uint64_t after) noexcept nogil:
    """The free cells of word o next to an occupied cell."""
    return ~o & ((o << 1) | (o >> 1) | (o << 16) | (before >> 48) | (o >> 16) | (after << 48))

cdef inline uint64_t room_across(uint64_t o, uint64_t t) noexcept nogil:
    """Anchors of a free position across: both cells free, one of them next to the Kilim."""
    return ~o & (~o >> 1) & (t | (t >> 1))

cdef inline uint64_t room_down(uint64_t o, uint64_t t, uint64_t o_after, uint64_t t_after) noexcept nogil:
    """Anchors of a free position down (the cell below may be in the next word)."""
    return ~o & ((~o >> 16) | (~o_after << 48)) & (t | (t >> 16) | (t_after << 48))

cdef inline uint64_t pair_byte_sums(uint64_t a, uint64_t b) noexcept nogil:
    """byte_sums of a and b added (byte i: the bits set in bytes 0..i of both, at most 128),
    sharing the last steps."""
    a = a - ((a >> 1) & <uint64_t>0x5555555555555555)
    b = b - ((b >> 1) & <uint64_t>0x5555555555555555)
    a = (a & <uint64_t>0x3333333333333333) + ((a >> 2) & <uint64_t>0x3333333333333333)
    b = (b & <uint64_t>0x3333333333333333) + ((b >> 2) & <uint64_t>0x3333333333333333)
    a = a + b                                       # each nibble at most 8
    a = (a & <uint64_t>0x0F0F0F0F0F0F0F0F) + ((a >> 4) & <uint64_t>0x0F0F0F0F0F0F0F0F)
    return a * <uint64_t>0x0101010101010101

cdef inline int popcount2(uint64_t a, uint64_t b) noexcept nogil:
    """popcount(a) + popcount(b)."""
    return <int>(pair_byte_sums(a, b) >> 56)

cdef inline uint64_t spread16(uint64_t x) noexcept nogil:
    """Bits 0-15 of x (no higher bit set) moved to the even bits 0, 2, .., 30."""
    x = (x | (x << 8)) & <uint64_t>0x00FF00FF
    x = (x | (x << 4)) & <uint64_t>0x0F0F0F0F
    x = (x | (x << 2)) & <uint64_t>0x33333333
    return (x | (x << 1)) & <uint64_t>0x55555555

cdef inline int tile_placement(int i, uint64_t h, uint64_t v, uint64_t sums, int j, int flip) noexcept nogil:
    """The placement at the j-th of the positions h / v (across / down) of tile word i (four
    rows of 16 bits), sums = pair_byte_sums(h, v): the row is the number of row ends (bytes
    1, 3, 5 of sums) at or before j, then its positions across and down are interleaved (column
    c across at bit 2 c, down at 2 c + 1: gen_place's order) and a set bit selected there."""
    cdef int q = ((j >= <int>((sums >> 8) & 255)) + (j >= <int>((sums >> 24) & 255))
                  + (j >= <int>((sums >> 40) & 255)))
    cdef int shift = 16 * q
    cdef uint64_t x = spread16((h >> shift) & 0xFFFF) | (spread16((v >> shift) & 0xFFFF) << 1)
    cdef int b = select_bit(x, byte_sums(x), j - <int>(((sums << 8) >> shift) & 255))
    return make_move(MV_PLACE, place_arg(4 * i + q, b >> 1, b & 1, flip))

cdef struct BoxMap:
    # A Kilim's cells by position, over its bounding box and two rows and columns around it:
    # at[(r - r0) * width + c - c0] is the cell's code (cell_code), 255 for no cell, and adj[]
    # there its number of neighbour cells.
    int r0, c0, rows, width, cells
    unsigned char at[(H + 4) * 132]
    unsigned char adj[(H + 4) * 132]

cdef inline void map_kilim(Kil* k, BoxMap* b) noexcept nogil:
    """Fill b with k's cells (b.cells: how many)."""
    cdef Cell* x = cells(k)
    cdef int i, r, c, j
    cdef unsigned m
    b.r0 = ORG - 2
    b.c0 = ORG - 2
    b.rows = (k.rmax if k.rmax < H else H - 1) - b.r0 + 3
    b.width = (k.cmax if k.cmax < 127 else 126) - b.c0 + 3
    b.cells = 0
    if b.rows <= 0 or b.width <= 0:
        b.rows = b.width = 0
        return
    memset(b.at, 255, b.rows * b.width)
    memset(b.adj, 0, b.rows * b.width)
    for i in range(n_used(k)[0]):
        m = x[i].m & CODE_BITS
        if m:
            r = cell_r(&x[i]) - b.r0
            c = cell_c(&x[i]) - b.c0
            if 1 <= r < b.rows - 1 and 1 <= c < b.width - 1:
                j = r * b.width + c
                b.at[j] = <unsigned char>lowest_bit(m)
                b.adj[j - b.width] += 1
                b.adj[j + b.width] += 1
                b.adj[j - 1] += 1
                b.adj[j + 1] += 1
                b.cells += 1

cdef inline int map_index(BoxMap* b, int r, int c) noexcept nogil:
    """The index of (r, c) in b, if it has all four neighbours in b; else -1."""
    r -= b.r0
    c -= b.c0
    if r < 1 or c < 1 or r >= b.rows - 1 or c >= b.width - 1:
        return -1
    return r * b.width + c

# The groups of a Kilim within rows and columns 0-15 on tiles (as random_place_tile's): the
# cells of each pattern type as four words. Most groups are single cells (a 4p Kilim at the
# end: about 23 cells, 17 groups): those without a neighbour of their type are taken off at
# once, and only the others are flooded, a group at a time (kilim_score's search from each
# cell took a branch of random outcome at every neighbour of every cell).
cdef inline uint64_t next_cells(uint64_t before, uint64_t x, uint64_t after) noexcept nogil:
    """The cells next to a cell of tile word x (before / after: the words above / below). A
    cell of column 15 shifted right lands on column 0 of the next row, which holds none."""
    return (x << 1) | (x >> 1) | (x << 16) | (x >> 16) | (before >> 48) | (after << 48)

cdef inline void groups_tile(uint64_t (*b)[4], int* largest, int* groups_out) noexcept nogil:
    """kilim_score's groups (the sum of size - 1 over the groups of every type, and the
    largest of each type) from b[t], the cells of type t on a tile (columns 1-15: a shift by
    a column carries no cell into the next row's)."""
    cdef uint64_t r0, r1, r2, r3, g0, g1, g2, g3, h0, h1, h2, h3
    cdef int t, size, groups = 0
    cdef int big[N_TYPES]
    for t in range(N_TYPES):
        r0 = b[t][0]
        r1 = b[t][1]
        r2 = b[t][2]
        r3 = b[t][3]
        big[t] = (r0 | r1 | r2 | r3) != 0      # a cell of the type: a group of 1 at least
        # the cells with a neighbour of their type: the groups of 2 or more
        h0 = r0 & next_cells(0, r0, r1)
        h1 = r1 & next_cells(r0, r1, r2)
        h2 = r2 & next_cells(r1, r2, r3)
        h3 = r3 & next_cells(r2, r3, 0)
        r0 = h0
        r1 = h1
        r2 = h2
        r3 = h3
        while r0 | r1 | r2 | r3:
            g0 = r0 & -r0                       # the first cell left, then its group
            g1 = (r1 & -r1) & -<uint64_t>(r0 == 0)
            g2 = (r2 & -r2) & -<uint64_t>((r0 | r1) == 0)
            g3 = (r3 & -r3) & -<uint64_t>((r0 | r1 | r2) == 0)
            while True:
                h0 = (g0 | next_cells(0, g0, g1)) & r0
                h1 = (g1 | next_cells(g0, g1, g2)) & r1
                h2 = (g2 | next_cells(g1, g2, g3)) & r2
                h3 = (g3 | next_cells(g2, g3, 0)) & r3
                if ((h0 ^ g0) | (h1 ^ g1) | (h2 ^ g2) | (h3 ^ g3)) == 0:
                    break
                g0 = h0
                g1 = h1
                g2 = h2
                g3 = h3
            size = popcount2(g0, g1) + popcount2(g2, g3)
            groups += size - 1
            big[t] = size if size > big[t] else big[t]
            r0 &= ~g0
            r1 &= ~g1
            r2 &= ~g2
            r3 &= ~g3
    for t in range(N_TYPES):
        largest[t] = big[t]
    groups_out[0] = groups

cdef inline int other_r(int r, int d) noexcept nogil: return r + d
cdef inline int other_c(int c, int d) noexcept nogil: return c + 1 - d
cdef inline int dom_a(int dom) noexcept nogil:
    if dom < N_REGULAR:
        return PAIR_A[dom % GROUP_SIZE]
    if dom < ID_PERF:
        return dom - ID_TORN
    return PERF

cdef inline int dom_b(int dom) noexcept nogil:
    if dom < N_REGULAR:
        return PAIR_B[dom % GROUP_SIZE]
    if dom < ID_PERF:
        return TORN
    return PERF

cdef int DR[4]
cdef int DC[4]
DR[:] = [-1, 0, 1, 0]            # up, right, down, left
DC[:] = [0, 1, 0, -1]



# ================================================================ set-up
cdef class KilimCore(GameCore):
    """The rules of Kilim on one C state. `KilimCore(players=4, seed=0)` deals a new game (2 to
    5 players). The game API (notation, JSON, views) is its subclass engine.games.kilim.Kilim."""
    cdef KilimState s
    cdef int points[MAX_PLAYERS]         # the last tally(): each player's points,
    cdef int bonus[MAX_PLAYERS]          # of which the largest-group bonus
    name, title = "kilim", "Kilim"
    min_players, max_players, default_players = 2, 5, 4

    def __cinit__(self, *args, **kwargs):
        self.bind_state(&self.s, sizeof(KilimState))

    @cython.final
    cdef void set_up(self) noexcept:
        """The deal: full hands, the three piles (2 players: 5 dominoes fewer in each, torn
        carpets shuffled in by player count), the scraps on the board, the first domino shown."""
        cdef KilimState* s = &self.s
        cdef int n = self.n_players
        cdef uint64_t seed = self.seed
        cdef int g, i, p, t, size, k, regs
        cdef i8 ids[15]
        cdef i8 torn[5]
        s.n = n
        s.gold_max = GOLD_MAX_DUEL if n == 2 else GOLD_MAX
        rng_seed(&s.chance, seed)
        ih_reset(&s.ih, <uint64_t>n + 0x4B11)
        for p in range(n):
            s.hand[p] = self.full_hand()
            s.k[p].rmax = -1
            s.k[p].cmax = -1
        for i in range(N_TORN):
            torn[i] = i
        shuffle_bytes(&s.chance, torn, N_TORN)
        t = 0
        for g in range(N_GROUPS):
            for i in range(GROUP_SIZE):
                ids[i] = g * GROUP_SIZE + i
            shuffle_bytes(&s.chance, ids, GROUP_SIZE)
            size = GROUP_SIZE - (DUEL_REMOVED if n == 2 else 0)   # 2 players: 5 removed
            k = TORN_PER_GROUP[n][g]
            regs = size - k                                      # k replaced by torn carpets
            for i in range(regs):
                s.piles[g][i] = ids[i]
            for i in range(k):
                s.piles[g][regs + i] = ID_TORN + torn[t]
                t += 1
            shuffle_bytes(&s.chance, s.piles[g], size)
            s.pile_len[g] = size
            s.torn_in[g] = k
        for i in range(N_TOKENS):
            s.token_holder[i] = -1
        s.perfect_supply = N_PERFECT
        for t in range(N_SCRAPS):
            s.scrap_loc[t] = LOC_BOARD
            s.scrap_r[t] = -1
            s.scrap_c[t] = -1
            s.scrap_under[t] = -1
            for p in range(5):
                s.where[p][t] = 1 << WHERE_BOARD
                s.group_of[p][t] = 0            # every seat saw all five on the board
        for p in range(5):
            memset(s.share[p], 0, sizeof(s.share[p]))
            s.share[p][0][WHERE_BOARD] = N_SCRAPS
        s.winner = -1
        s.placer = -1
        s.day = 0
        s.pile_pos = 0
        self.reveal_domino()
        s.phase = PH_CARD
        s.actor = 0

    @cython.final
    cdef uint32_t full_hand(self) noexcept:
        return ((1u << (self.s.gold_max + 1)) - 2) | (1u << C_SPY) | (1u << C_SCRAP) | (1u << C_ART)

    @cython.final
    cdef void reveal_domino(self) noexcept:
        """The next domino of the day's pile goes on the table for auction. The deal shows the
        first: a new game's log already holds that one entry (event_count 1)."""
        cdef KilimState* s = &self.s
        cdef int d = s.piles[s.day][s.pile_pos]
        s.pile_pos += 1
        s.on_table = d
        s.revealed |= (<uint64_t>1) << d
        if d >= ID_TORN:
            s.torn_seen[s.day] += 1
        if s.tracking:
            ih_public(&s.ih, (<uint64_t>EV_DOMINO << 56) | <uint64_t>d)
        if s.tracking == TRACK_ALL:
            log_event(&s.log, LOG_REVEAL, -1, d, s.day, 0)

    # ================================================================ move generation
    @cython.final
    cdef int current(self) noexcept:
        return -1 if self.s.phase == PH_OVER else self.s.actor

    @cython.final
    cdef int gen_moves(self, int* buf) noexcept:
        cdef KilimState* s = &self.s
        cdef int ph = s.phase
        if ph == PH_CARD:
            return moves_of_bits(buf, MV_CARD, s.hand[s.actor])
        if ph == PH_SPY or ph == PH_SCRAPBID or ph == PH_ARTBID:
            return moves_of_bits(buf, MV_BID, self.bid_options(s.actor, ph))
        if ph == PH_SCRAPPICK:
            return moves_of_bits(buf, MV_SCRAPPICK, self.board_scraps())
        if ph == PH_TOKENPICK:
            return moves_of_bits(buf, MV_TOKENPICK, self.free_tokens())
        if ph == PH_PLACE:
            return self.gen_place(buf)
        if ph == PH_WINDOW:
            return self.gen_window(s.actor, buf)
        if ph == PH_SCRAPAT:
            return self.gen_scrap_targets(s.actor, buf)
        return 0

    @cython.final
    cdef uint32_t bid_options(self, int p, int ph) noexcept:
        """Gold cards p may play: any (Spy); above the winning offer if p has one, else any as
        a discard (Scrap Bag); below it if p has one, else any as a discard (Artisan)."""
        cdef KilimState* s = &self.s
        cdef uint32_t gold = s.hand[p] & ((1u << (GOLD_MAX + 1)) - 2)
        cdef uint32_t ok
        if ph == PH_SCRAPBID:
            ok = gold & ~((1u << (s.win_value + 1)) - 1)
            return ok if ok else gold
        if ph == PH_ARTBID:
            ok = gold & ((1u << s.win_value) - 1)
            return ok if ok else gold
        return gold

    @cython.final
    cdef int random_move(self, Rng* rng) noexcept:
        """gen_moves' want-th move, want drawn from their number, mostly without listing them:
        a card, an offer, a scrap or a token is a set bit drawn at once (the bits ascend as
        the moves do); placements and scrap targets are counted and the want-th found."""
        cdef KilimState* s = &self.s
        cdef int ph = s.phase
        cdef uint32_t h
        if ph == PH_CARD:
            h = s.hand[s.actor]
            return make_move(MV_CARD, draw_bit(rng, h)) if h else NO_MOVE
        if ph == PH_PLACE:
            return self.random_place(rng)
        if ph == PH_SPY or ph == PH_SCRAPBID or ph == PH_ARTBID:
            h = self.bid_options(s.actor, ph)
            return make_move(MV_BID, draw_bit(rng, h)) if h else NO_MOVE
        if ph == PH_SCRAPAT:
            return self.random_scrap_target(s.actor, rng)
        if ph == PH_SCRAPPICK or ph == PH_TOKENPICK:
            h = self.board_scraps() if ph == PH_SCRAPPICK else self.free_tokens()
            return make_move(MV_SCRAPPICK if ph == PH_SCRAPPICK else MV_TOKENPICK, draw_bit(rng, h)) if h else NO_MOVE
        return self.random_listed(rng)

    @cython.final
    cdef int random_listed(self, Rng* rng) noexcept:
        """random_move from the list of gen_moves (its own frame: the others need no buffer)."""
        cdef int buf[MAX_MOVES]
        cdef int n = self.gen_moves(buf)
        return buf[rng_below(rng, n)] if n > 0 else NO_MOVE

    # ------------------------------------------------------------ placements
    @cython.final
    cdef int compute_slots(self, Kil* k, u128* hs, u128* vs) noexcept:
        """Free horizontal / vertical domino positions touching the Kilim, by rows (anchor =
        top or left cell). Returns the number of rows filled."""
        cdef u128 o[H + 4]
        cdef u128 e, e2, t, t2, cm = colmask()
        cdef int nr = k.rmax + 2, r
        if nr > H - 4:
            nr = H - 4
        o[0] = 0
        fill_rows(k, CODE_BITS, &o[1], nr + 2)
        o[nr + 3] = 0
        for r in range(nr):
            e = ~o[r + 1] & cm
            e2 = ~o[r + 2] & cm
            t = e & ((o[r + 1] << 1) | (o[r + 1] >> 1) | o[r] | o[r + 2])
            t2 = e2 & ((o[r + 2] << 1) | (o[r + 2] >> 1) | o[r + 1] | o[r + 3])
            hs[r] = e & (e >> 1) & (t | (t >> 1))
            vs[r] = e & e2 & (t | t2)
        return nr

    @cython.final
    cdef int place_flips(self) noexcept:
        """Orders of halves the pending domino may take: 1 for a double or a moved domino (by
        values, not a branch: a double is drawn at random)."""
        return 1 + ((self.s.pl_a != self.s.pl_b) & (self.s.place_src != PS_MOVE))

    @cython.final
    cdef int place_slots(self, u128* hs, u128* vs) noexcept:
        """compute_slots for the actor's Kilim, kept to the direction a Move fixes."""
        cdef KilimState* s = &self.s
        cdef int nr = self.compute_slots(&s.k[s.actor], hs, vs), r
        if s.pl_dir == 0:
            for r in range(nr):
                vs[r] = 0
        elif s.pl_dir == 1:
            for r in range(nr):
                hs[r] = 0
        return nr

    @cython.final
    cdef int first_place(self, int* buf, int want) noexcept:
        """The placements of a Kilim's first domino, at (ORG, ORG): as gen_place."""
        cdef KilimState* s = &self.s
        cdef int nflip = self.place_flips(), d, f, n = 0, mv
        for d in range(2):
            if s.pl_dir >= 0 and d != s.pl_dir:
                continue
            for f in range(nflip):
                mv = make_move(MV_PLACE, place_arg(ORG, ORG, d, f))
                if want == n:
                    return mv
                if buf != NULL:
                    buf[n] = mv
                n += 1
        return n

    @cython.final
    cdef int gen_place(self, int* buf) noexcept:
        """Placements of the pending domino, written to buf (ascending); their number."""
        cdef KilimState* s = &self.s
        cdef Kil* k = &s.k[s.actor]
        cdef u128 hs[H]
        cdef u128 vs[H]
        cdef u128 both
        cdef int nflip = self.place_flips()
        cdef int nr, r, c, d, f, n = 0
        if is_bad(k)[0]:
            return 0
        if k.n_cells == 0:
            return self.first_place(buf, -1)
        nr = self.place_slots(hs, vs)
        for r in range(nr):
            n += pc128(hs[r]) + pc128(vs[r])
        if n * nflip > MOST_MOVES:
            return 0                      # no reachable Kilim has this many: never overrun buf
        n = 0
        for r in range(nr):
            both = hs[r] | vs[r]
            while both:
                c = low128(both)
                both &= both - 1
                for d in range(2):
                    if not (((hs[r] if d == 0 else vs[r]) >> c) & 1):
                        continue
                    for f in range(nflip):
                        buf[n] = make_move(MV_PLACE, place_arg(r, c, d, f))
                        n += 1
        return n

    @cython.final
    cdef int random_place(self, Rng* rng) noexcept:
        """A uniformly random placement of the pending domino: the want-th of gen_place's list,
        want drawn once from their number, from one computation of the free positions (on a
        tile for a Kilim that fits one, else on 128-bit rows)."""
        cdef Kil* k = &self.s.k[self.s.actor]
        cdef int n
        if is_bad(k)[0]:
            return NO_MOVE
        if k.n_cells == 0:
            n = self.first_place(NULL, -1)
            return self.first_place(NULL, rng_below(rng, n)) if n > 0 else NO_MOVE
        if k.rmax <= TILE_RMAX and k.cmax <= TILE_CMAX:
            return self.random_place_tile(rng)
        return self.random_place_rows(rng)

    @cython.final
    cdef int random_place_tile(self, Rng* rng) noexcept:
        """random_place for a Kilim that fits a tile (TILE_RMAX, TILE_CMAX): its rows 0-15, four
        to a 64-bit word (row r at bits 16 (r % 4) of word r / 4), so the free positions of
        the whole Kilim are found in four words. Columns 0, 1, 14 and 15 hold no cell, so a
        shift by one column never carries a cell into the next row."""
        cdef KilimState* s = &self.s
        cdef Kil* k = &s.k[s.actor]
        cdef uint64_t* w = tile(k)
        cdef uint64_t hs[4]
        cdef uint64_t vs[4]
        cdef uint64_t sums[4]
        cdef int cnt[4]
        cdef uint64_t across = 0 if s.pl_dir == 1 else ~(<uint64_t>0)    # a Move keeps its direction
        cdef uint64_t down = 0 if s.pl_dir == 0 else ~(<uint64_t>0)
        cdef uint64_t o0, o1, o2, o3, t0, t1, t2, t3, h0, h1, h2, h3, v0, v1, v2, v3
        cdef int before[4]
        cdef int nflip = self.place_flips()
        cdef int n, want, i, j
        if not tile_ok(k)[0]:
            fill_tile(k, w)
            tile_ok(k)[0] = 1
        if KILIM_SSE2:
            kilim_tile_room(w, across, down, hs, vs, sums)
        else:
            # words in locals, not arrays: the compiler's vector loads of two words just stored
            # one at a time stalled (no store forwarding)
            o0 = w[0]
            o1 = w[1]
            o2 = w[2]
            o3 = w[3]
            t0 = next_to(0, o0, o1)
            t1 = next_to(o0, o1, o2)
            t2 = next_to(o1, o2, o3)
            t3 = next_to(o2, o3, 0)
            h0 = room_across(o0, t0) & across
            h1 = room_across(o1, t1) & across
            h2 = room_across(o2, t2) & across
            h3 = room_across(o3, t3) & across
            v0 = room_down(o0, t0, o1, t1) & down
            v1 = room_down(o1, t1, o2, t2) & down
            v2 = room_down(o2, t2, o3, t3) & down
            v3 = room_down(o3, t3, ~(<uint64_t>0), 0) & down         # beyond the tile: no room
            sums[0] = pair_byte_sums(h0, v0)
            sums[1] = pair_byte_sums(h1, v1)
            sums[2] = pair_byte_sums(h2, v2)
            sums[3] = pair_byte_sums(h3, v3)
            hs[0] = h0
            hs[1] = h1
            hs[2] = h2
            hs[3] = h3
            vs[0] = v0
            vs[1] = v1
            vs[2] = v2
            vs[3] = v3
        cnt[0] = <int>(sums[0] >> 56)
        cnt[1] = <int>(sums[1] >> 56)
        cnt[2] = <int>(sums[2] >> 56)
        cnt[3] = <int>(sums[3] >> 56)
        n = cnt[0] + cnt[1] + cnt[2] + cnt[3]
        if n == 0:
            return NO_MOVE
        want = rng_below(rng, n * nflip)
        j = want >> (nflip - 1)
        # the word holding the j-th position by comparisons, not a loop of random length
        before[0] = 0
        before[1] = cnt[0]
        before[2] = before[1] + cnt[1]
        before[3] = before[2] + cnt[2]
        i = (j >= before[1]) + (j >= before[2]) + (j >= before[3])
        return tile_placement(i, hs[i], vs[i], sums[i], j - before[i], want & (nflip - 1))

    @cython.final
    cdef int place_at(self, int want, int nflip, uint64_t* hs, uint64_t* vs, int* cnt) noexcept:
        """The want-th placement of gen_place's order (want below nflip times the positions),
        from the free positions hs / vs (across / down) of 128-bit rows, two words a row,
        cnt[i] the positions of word i: the word found by counting."""
        cdef int i = 0, j = want >> (nflip - 1)
        while j >= cnt[i]:
            j -= cnt[i]
            i += 1
        return placement_in(i, hs[i], vs[i], j, want & (nflip - 1))

    @cython.final
    cdef int random_place_rows(self, Rng* rng) noexcept:
        """random_place for a Kilim larger than a tile, on 128-bit rows (compute_slots)."""
        cdef u128 hs[H]
        cdef u128 vs[H]
        cdef int cnt[2 * H]
        cdef uint64_t* h = <uint64_t*>hs
        cdef uint64_t* v = <uint64_t*>vs
        cdef int nr = self.place_slots(hs, vs), i, n = 0
        for i in range(2 * nr):                 # a row's columns 0-63, then 64-127
            cnt[i] = popcount2(h[i], v[i])
            n += cnt[i]
        if n == 0:
            return NO_MOVE
        return self.place_at(rng_below(rng, n * self.place_flips()), self.place_flips(), h, v, cnt)

    # ------------------------------------------------------------ scrap targets
    @cython.final
    cdef int scrap_at(self, int p, int r, int c) noexcept:
        """The scrap woven by p at (r, c), or -1."""
        cdef KilimState* s = &self.s
        cdef int t
        for t in range(N_SCRAPS):
            if s.scrap_loc[t] == LOC_WOVEN + p and s.scrap_r[t] == r and s.scrap_c[t] == c:
                return t
        return -1

    @cython.final
    cdef int scraps_at(self, int loc) noexcept:
        """How many scraps are at `loc` (LOC_WOVEN + p: in p's Kilim; LOC_HELD + p: in p's
        hand)."""
        cdef int t, n = 0
        for t in range(N_SCRAPS):
            if self.s.scrap_loc[t] == loc:
                n += 1
        return n

    @cython.final
    cdef int gen_scrap_targets(self, int p, int* buf) noexcept:
        """The cells where a scrap may go: a woven pattern without a scrap, or a hole (an empty
        cell inside the bounding box); written to buf unless it is NULL; their number. Counted
        without buf, they are the box's cells less the woven scraps (every cell is in the box,
        every woven scrap on a cell of its own)."""
        cdef KilimState* s = &self.s
        cdef Kil* k = &s.k[p]
        cdef u128 o[H]
        cdef u128 scrap[H]
        cdef u128 x, box
        cdef int r, t, n = 0
        if k.rmax < 0 or k.rmax >= H or k.cmax > MAX_COL or is_bad(k)[0]:
            return 0
        if buf == NULL:
            return (k.rmax - ORG + 1) * (k.cmax - ORG + 1) - self.scraps_at(LOC_WOVEN + p)
        fill_rows(k, CODE_BITS, o, k.rmax + 1)
        box = (bit(k.cmax + 1) - 1) & ~(bit(ORG) - 1)
        for r in range(ORG, k.rmax + 1):
            scrap[r] = 0
        for t in range(N_SCRAPS):
            if s.scrap_loc[t] == LOC_WOVEN + p and ORG <= s.scrap_r[t] <= k.rmax:
                scrap[s.scrap_r[t]] |= bit(s.scrap_c[t])
        for r in range(ORG, k.rmax + 1):            # o becomes the targets
            o[r] = (o[r] & ~scrap[r]) | (~o[r] & box)
            n += pc128(o[r])
        if n > MOST_MOVES:
            return 0                      # no reachable Kilim is this large: never overrun buf
        n = 0
        for r in range(ORG, k.rmax + 1):
            x = o[r]
            while x:
                buf[n] = make_move(MV_SCRAPAT, cell_arg(r, low128(x)))
                n += 1
                x &= x - 1
        return n

    @cython.final
    cdef int random_scrap_target(self, int p, Rng* rng) noexcept:
        """A uniformly random cell of gen_scrap_targets(p): the want-th, want drawn from their
        number, found without listing them or mapping the Kilim. The targets are the box's
        cells, row by row, less the woven scraps' (gen_scrap_targets): the want-th is cell i
        of the box, i the least with i = want + (the scraps at cells up to i), reached by
        repeating that sum from i = want (it rises at most once per scrap)."""
        cdef KilimState* s = &self.s
        cdef Kil* k = &s.k[p]
        cdef int at[N_SCRAPS]
        cdef int width = k.cmax - ORG + 1
        cdef int t, it, i, j, want, n = self.gen_scrap_targets(p, NULL)
        if n <= 0:
            return NO_MOVE
        want = rng_below(rng, n)
        for t in range(N_SCRAPS):           # each woven scrap's cell in the box, row by row
            at[t] = ((s.scrap_r[t] - ORG) * width + s.scrap_c[t] - ORG
                     if s.scrap_loc[t] == LOC_WOVEN + p else 1 << 20)
        i = want
        for it in range(N_SCRAPS):
            j = want
            for t in range(N_SCRAPS):
                j += at[t] <= i
            i = j
        return make_move(MV_SCRAPAT, cell_arg(ORG + i // width, ORG + i % width))

    # ------------------------------------------------------------ the optional window
    @cython.final
    cdef int window_seats(self) noexcept:
        """The seats that hold something optional (a perfect carpet, a scrap, an unused token):
        the only ones has_options may find an action for. Each holding sets the bit of its
        seat, 0-4, and anything else a bit from 5 up, masked off: no test of random outcome."""
        cdef KilimState* s = &self.s
        cdef unsigned seats = 0
        cdef int t
        seats = kilim_seats_gt(s.perfect_held, 0)   # seats past the player count hold none
        for t in range(N_SCRAPS):                  # held: LOC_HELD + seat; other places are 8 up or -1
            seats |= 1u << ((s.scrap_loc[t] - LOC_HELD) & 31)
        for t in range(N_TOKENS):                  # nobody's (-1) or used (| -1): bit 31
            seats |= 1u << ((s.token_holder[t] | -s.token_used[t]) & 31)
        return seats & 31

    @cython.final
    cdef bint has_options(self, int p) noexcept:
        cdef KilimState* s = &self.s
        cdef int t
        if s.perfect_held[p] > 0:
            return True
        if self.scraps_at(LOC_HELD + p) > 0 and self.gen_scrap_targets(p, NULL) > 0:
            return True
        for t in range(N_TOKENS):
            if s.token_holder[t] == p and not s.token_used[t]:
                return self.window_has_action(p)
        return False

    @cython.final
    cdef bint window_overflows(self, int p, bint tokens) noexcept:
        """Whether gen_window refuses p's Kilim: one no game reaches, whose window could
        overrun the move buffer."""
        cdef Kil* k = &self.s.k[p]
        return is_bad(k)[0] or (tokens and (k.rmax >= H or 18 + 9 * k.n_dom > MOST_MOVES))

    @cython.final
    cdef bint window_has_action(self, int p) noexcept:
        """Whether gen_window(p) lists more than `done` (the same tests, stopping at the first
        action found)."""
        cdef KilimState* s = &self.s
        cdef Kil* k = &s.k[p]
        cdef int anchors[CELLS * 2]
        cdef int opts[9]
        cdef BoxMap box
        cdef int na, i, t
        cdef bint rot = s.token_holder[TOK_ROTATE] == p and not s.token_used[TOK_ROTATE]
        cdef bint rem = s.token_holder[TOK_REMOVE] == p and not s.token_used[TOK_REMOVE]
        cdef bint mov = s.token_holder[TOK_MOVE] == p and not s.token_used[TOK_MOVE]
        if self.window_overflows(p, rot or rem or mov):
            return False
        if s.token_holder[TOK_PERFECT] == p and not s.token_used[TOK_PERFECT] and s.perfect_supply > 0:
            return True
        if s.perfect_held[p] > 0:
            return True
        if self.scraps_at(LOC_HELD + p) > 0 and self.gen_scrap_targets(p, NULL) > 0:
            return True
        if not (rot or rem or mov):
            return False
        if (rem or mov) and k.n_dom > self.scraps_at(LOC_WOVEN + p):
            return True                     # a scrap holds one domino at most: one is free
        na = self.free_dominoes(p, anchors)
        if na > 0 and (rem or mov):
            return True
        if rem and self.scraps_at(LOC_WOVEN + p) > 0:
            return True
        if rot and na > 0:
            map_kilim(k, &box)
            for i in range(na):
                if self.rotate_options(&box, anchors[i], opts) > 0:
                    return True
        if mov:
            for t in range(N_SCRAPS):
                if s.scrap_loc[t] == LOC_WOVEN + p and self.scrap_can_move(p, t):
                    return True
        return False

    @cython.final
    cdef int gen_window(self, int p, int* buf) noexcept:
        """DONE, then every optional action of p, in ascending move order."""
        cdef KilimState* s = &self.s
        cdef Kil* k = &s.k[p]
        cdef int n = 0, na = 0, t, i, j, no
        cdef int opts[9]
        cdef int anchors[CELLS * 2]
        cdef BoxMap box
        cdef bint rot = s.token_holder[TOK_ROTATE] == p and not s.token_used[TOK_ROTATE]
        cdef bint rem = s.token_holder[TOK_REMOVE] == p and not s.token_used[TOK_REMOVE]
        cdef bint mov = s.token_holder[TOK_MOVE] == p and not s.token_used[TOK_MOVE]
        cdef bint targets = self.gen_scrap_targets(p, NULL) > 0
        if self.window_overflows(p, rot or rem or mov):
            return 0                      # no reachable Kilim has this many: never overrun buf
        buf[n] = make_move(MV_DONE, 0)
        n += 1
        if s.token_holder[TOK_PERFECT] == p and not s.token_used[TOK_PERFECT] and s.perfect_supply > 0:
            buf[n] = make_move(MV_TAKEPERF, 0)
            n += 1
        if s.perfect_held[p] > 0:
            buf[n] = make_move(MV_PLACEPERF, 0)
            n += 1
        if targets:
            for t in range(N_SCRAPS):
                if s.scrap_loc[t] == LOC_HELD + p:
                    buf[n] = make_move(MV_SELSCRAP, t)
                    n += 1
        if rot or rem or mov:
            na = self.free_dominoes(p, anchors)
        if rot:
            map_kilim(k, &box)
            memset(opts, 0, sizeof(opts))
            for i in range(na):
                no = self.rotate_options(&box, anchors[i], opts)
                for j in range(9):          # all nine written (no loop of random length), no kept
                    buf[n + j] = make_move(MV_ROTATE, rotate_arg(anchors[i], opts[j]))
                n += no
        if rem:
            for i in range(na):
                buf[n] = make_move(MV_REMOVE, anchors[i])
                n += 1
            for t in range(N_SCRAPS):
                if s.scrap_loc[t] == LOC_WOVEN + p:
                    buf[n] = make_move(MV_REMOVESCRAP, t)
                    n += 1
        if mov:
            for i in range(na):
                buf[n] = make_move(MV_MOVE, anchors[i])
                n += 1
            for t in range(N_SCRAPS):
                if s.scrap_loc[t] == LOC_WOVEN + p and self.scrap_can_move(p, t):
                    buf[n] = make_move(MV_MOVESCRAP, t)
                    n += 1
        return n

    @cython.final
    cdef int free_dominoes(self, int p, int* anchors) noexcept:
        """The anchors of p's dominoes that a token may take (free_domino), ascending (row by
        row); their number."""
        cdef KilimState* s = &self.s
        cdef Kil* k = &s.k[p]
        cdef Cell* x = cells(k)
        cdef int scrapped[N_SCRAPS]
        cdef int i, j, t, r, c, d, a, n = 0, ns = 0, top
        if k.n_dom == 0:
            return 0
        if k.rmax <= 15 and k.cmax <= 15:
            return self.free_dominoes_tile(p, anchors)
        top = k.rmax if k.rmax < H else H - 1
        for t in range(N_SCRAPS):                   # the cells the scraps hold in place
            if s.scrap_loc[t] == LOC_WOVEN + p:
                scrapped[ns] = (s.scrap_r[t] << 8) | s.scrap_c[t]
                ns += 1
        for i in range(n_used(k)[0]):
            if not x[i].m & ((1u << M_HL) | (1u << M_VL)):
                continue
            r = cell_r(&x[i])
            c = cell_c(&x[i])
            if r < ORG or r > top:
                continue
            d = 0 if (x[i].m >> M_HL) & 1 else 1
            for j in range(ns):
                if scrapped[j] == x[i].rc or scrapped[j] == (other_r(r, d) << 8) | other_c(c, d):
                    break
            else:
                a = anchor_of(r, c, d)
                j = n                               # insertion into the ascending list
                while j > 0 and anchors[j - 1] > a:
                    anchors[j] = anchors[j - 1]
                    j -= 1
                anchors[j] = a
                n += 1
        return n

    @cython.final
    cdef int free_dominoes_tile(self, int p, int* anchors) noexcept:
        """free_dominoes for a Kilim within rows and columns 0-15, on a tile (as
        random_place_tile's): the anchors across and down as bits, those a scrap holds
        cleared (a scrap's cell is its domino's anchor, or the cell right of an anchor across
        or below one down), read in ascending order without sorting."""
        cdef KilimState* s = &self.s
        cdef Kil* k = &s.k[p]
        cdef Cell* x = cells(k)
        cdef uint64_t across[5]
        cdef uint64_t down[5]
        cdef uint64_t both
        cdef unsigned m
        cdef int i, t, r, c, b, n = 0
        for i in range(5):                          # word 4: room for a shift past row 15
            across[i] = down[i] = 0
        for i in range(n_used(k)[0]):
            r = cell_r(&x[i])
            if r < ORG or r > k.rmax:
                continue
            m = x[i].m
            b = ((r & 3) << 4) + cell_c(&x[i])
            across[r >> 2] |= <uint64_t>((m >> M_HL) & 1) << b
            down[r >> 2] |= <uint64_t>((m >> M_VL) & ~(m >> M_HL) & 1) << b
        for t in range(N_SCRAPS):
            r = s.scrap_r[t]
            if s.scrap_loc[t] == LOC_WOVEN + p and ORG <= r <= k.rmax:
                b = ((r & 3) << 4) + s.scrap_c[t]
                across[r >> 2] &= ~((<uint64_t>3) << (b - 1))     # its cell and the one left
                down[r >> 2] &= ~((<uint64_t>1) << b)
                b = (((r - 1) & 3) << 4) + s.scrap_c[t]             # the cell above
                down[(r - 1) >> 2] &= ~((<uint64_t>1) << b)
        for i in range(4):
            both = across[i] | down[i]
            while both:
                b = lowest_bit(both)
                both &= both - 1
                anchors[n] = anchor_of(4 * i + (b >> 4), b & 15, <int>((down[i] >> b) & 1))
                n += 1
        return n

    @cython.final
    cdef bint free_domino(self, int p, int r, int c, int d) noexcept:
        """A domino without a scrap on it (Interpretation: a scrap holds its domino in place)."""
        return self.scrap_at(p, r, c) < 0 and self.scrap_at(p, other_r(r, d), other_c(c, d)) < 0

    @cython.final
    cdef int rotate_options(self, BoxMap* b, int anchor, int* opts) noexcept:
        """Ways to turn the domino at `anchor`: 8 swaps its patterns in place; K * 4 + dir keeps
        half K where it is and swings the other half to that side of it, to a free cell, as
        long as the domino then touches another cell of the Kilim (or is alone). `b` maps the
        Kilim: a cell next to the kept half touches another cell if it has a neighbour besides
        the kept half (the swung half was never next to it); the kept half, if it has one
        besides the swung half."""
        cdef int r = anchor_row(anchor), c = anchor_col(anchor), d = anchor_dir(anchor)
        cdef int r2 = other_r(r, d), c2 = other_c(c, d)
        cdef int i = map_index(b, r, c), i2 = map_index(b, r2, c2)
        cdef int n = 0, K, dirn, ki, ko, kr, kc, x, nr_, nc
        cdef int step[4]
        cdef int alone, held
        if i < 0 or i2 < 0:
            return 0                        # a cell outside the box: no position a game reaches
        step[0] = -b.width                  # DR, DC: up, right, down, left
        step[1] = 1
        step[2] = b.width
        step[3] = -1
        alone = b.cells == 2
        # each option written, and counted if it holds: tests of random outcome as values,
        # not branches (the cells next to a kept half are in the box: map_index)
        for K in range(2):
            ki = i if K == 0 else i2
            ko = i2 if K == 0 else i
            kr = r if K == 0 else r2
            kc = c if K == 0 else c2
            held = alone | (b.adj[ki] > 1)  # the kept half touches a cell besides the other
            for dirn in range(4):
                x = ki + step[dirn]
                nr_ = kr + DR[dirn]
                nc = kc + DC[dirn]
                opts[n] = K * 4 + dirn
                n += ((x != ko) & (nr_ >= 0) & (nc >= 0) & (nr_ < H - 4) & (nc <= MAX_COL - 1)
                      & (b.at[x] == 255) & (held | (b.adj[x] > 1)))
        opts[n] = 8
        n += b.at[i] != b.at[i2]
        return n

    @cython.final
    cdef bint scrap_can_move(self, int p, int t) noexcept:
        """Whether a target is left for scrap t once it is lifted: the pattern under it, or a
        cell of the Kilim without a scrap (a scrap filling a hole leaves the hole)."""
        cdef KilimState* s = &self.s
        cdef Kil* k = &s.k[p]
        cdef u128 o[H]
        cdef u128 x
        cdef int r, u, nrows
        if s.scrap_under[t] >= 0:
            return True                     # the pattern under it is a target
        nrows = k.rmax + 1 if k.rmax < H else H
        fill_rows(k, CODE_BITS, o, nrows)
        for r in range(ORG, nrows):
            x = o[r]
            for u in range(N_SCRAPS):       # t's cell is a hole once t is lifted
                if s.scrap_loc[u] == LOC_WOVEN + p and s.scrap_r[u] == r:
                    x &= ~bit(s.scrap_c[u])
            if x:
                return True
        return False

    # ------------------------------------------------------------ the playout policy
    # The moves the search's playouts take (docs/rules/kilim.md, "Playout policy"): rules of
    # thumb on this state and the search's generator only, for the card of an auction and the
    # weaving window, and a random move for the rest and now and then (PLAYOUT_EPSILON), so
    # that no line is ever excluded. Placements stay random: weaving next to matching
    # patterns lost strength in playouts (measured; see the docs).
    @cython.final
    cdef int playout_move(self, Rng* rng) noexcept:
        cdef Shown seen
        seen.known = 0
        return self.policy_move(rng, &seen)

    @cython.final
    cdef int policy_move(self, Rng* rng, Shown* seen) noexcept:
        """playout_move, the codes each Kilim shows kept in `seen` from one card to the next."""
        cdef int ph = self.s.phase
        if <int>rng_below(rng, 100) < PLAYOUT_EPSILON:
            return self.random_move(rng)
        if ph == PH_CARD:
            return self.policy_card(rng, seen)
        if ph == PH_WINDOW:
            return self.policy_window(rng)
        if ph == PH_SCRAPAT:
            return self.policy_scrap_target(rng)
        return self.random_move(rng)

    @cython.final
    cdef int playout(self, Rng* rng, bint policy, int limit) noexcept:
        """GameCore.playout with this game's methods called directly, not through the vtable."""
        cdef int played = 0, move
        cdef uint32_t h
        cdef Shown seen
        seen.known = 0
        if policy:
            while played < limit and self.current() >= 0:
                move = self.policy_move(rng, &seen)
                if move_kind(move) != MV_CARD:      # only the mover's own moves change its
                    seen.known &= ~(1u << self.s.actor)     # Kilim, and a card never does
                self.do_move(move)
                played += 1
        else:
            while played < limit and self.current() >= 0:
                h = self.s.hand[self.s.actor]
                if self.s.phase == PH_CARD and h:   # most moves: random_move's card, played
                    self.play_card(self.s.actor, draw_bit(rng, h))
                else:
                    self.do_move(self.random_move(rng))
                played += 1
        return played

    @cython.final
    cdef unsigned codes_shown(self, int p) noexcept:
        """The cell codes p's Kilim shows (bit c: code c)."""
        cdef Kil* k = &self.s.k[p]
        cdef Cell* x = cells(k)
        cdef unsigned seen = 0
        cdef int i
        for i in range(n_used(k)[0]):
            seen |= x[i].m
        return seen & CODE_BITS

    @cython.final
    cdef int domino_worth(self, int dom, unsigned shown) noexcept:
        """How much a domino suits a Kilim showing the codes `shown`: -1 for a torn carpet (its
        torn half costs 3), else one for each half whose pattern the Kilim already shows
        (so it can join a group), 1 for any domino while the Kilim is empty."""
        cdef int a = dom_a(dom), b = dom_b(dom)
        if dom >= ID_TORN:
            return -1
        if shown == 0:
            return 1
        return <int>((shown >> a) & 1) + <int>((shown >> b) & 1)

    @cython.final
    cdef int policy_card(self, Rng* rng, Shown* seen) noexcept:
        """Bid by value: the dominoes the auction gives (the one on the table and any carried)
        worth 2 or more to the seat: its highest Gold card; worth less than 0 (torn): its
        lowest; otherwise any card of its hand, as a random playout."""
        cdef KilimState* s = &self.s
        cdef int p = s.actor, worth, i
        cdef uint32_t gold = s.hand[p] & ((1u << (GOLD_MAX + 1)) - 2)
        cdef unsigned shown
        if gold == 0 or s.on_table < 0:
            return self.random_move(rng)
        if not (seen.known >> p) & 1:
            seen.shown[p] = self.codes_shown(p)
            seen.known |= 1u << p
        shown = seen.shown[p]
        worth = self.domino_worth(s.on_table, shown)
        for i in range(s.n_pending):
            worth += self.domino_worth(s.pending[i], shown)
        if worth >= 2:
            return make_move(MV_CARD, 31 - __builtin_clz(gold))
        if worth < 0:
            return make_move(MV_CARD, lowest_bit(gold))
        return self.random_move(rng)

    @cython.final
    cdef int policy_window(self, Rng* rng) noexcept:
        """In a weaving window: weave a held scrap if a torn pattern shows or a hole is left,
        remove a torn carpet with the Remove token, else done (tokens and perfect carpets are
        left alone)."""
        cdef KilimState* s = &self.s
        cdef int p = s.actor, t, i, na, r, c, d
        cdef Kil* k = &s.k[p]
        cdef int anchors[CELLS * 2]
        cdef bint rem = s.token_holder[TOK_REMOVE] == p and not s.token_used[TOK_REMOVE]
        if self.window_overflows(p, True):
            return self.random_move(rng)
        if self.gen_scrap_targets(p, NULL) > 0 and (self.codes_shown(p) >> TORN & 1
                                                    or (k.rmax - ORG + 1) * (k.cmax - ORG + 1) > k.n_cells):
            for t in range(N_SCRAPS):
                if s.scrap_loc[t] == LOC_HELD + p:
                    return make_move(MV_SELSCRAP, t)
        if rem:
            na = self.free_dominoes(p, anchors)
            for i in range(na):
                r = anchor_row(anchors[i])
                c = anchor_col(anchors[i])
                d = anchor_dir(anchors[i])
                if cell_code(k, r, c) == TORN or cell_code(k, other_r(r, d), other_c(c, d)) == TORN:
                    return make_move(MV_REMOVE, anchors[i])
        return make_move(MV_DONE, 0)

    @cython.final
    cdef int policy_scrap_target(self, Rng* rng) noexcept:
        """A scrap goes on a torn pattern if one shows (restoring it), else anywhere. The torn
        cells are counted in row order, not in the order of the list (which a state loaded
        from JSON has otherwise), so the choice depends on the position only."""
        cdef Kil* k = &self.s.k[self.s.actor]
        cdef u128 o[H]
        cdef u128 row
        cdef int r, c, n = 0, want
        if is_bad(k)[0] or k.rmax < 0 or k.rmax >= H:
            return self.random_move(rng)
        fill_rows(k, 1u << TORN, o, k.rmax + 1)
        for r in range(ORG, k.rmax + 1):
            n += pc128(o[r])
        if n == 0:
            return self.random_move(rng)
        want = rng_below(rng, n)
        for r in range(ORG, k.rmax + 1):
            row = o[r]
            c = pc128(row)
            if want >= c:
                want -= c
                continue
            while want > 0:
                row &= row - 1
                want -= 1
            return make_move(MV_SCRAPAT, cell_arg(r, low128(row)))
        return self.random_move(rng)

    # ================================================================ playing a move
    @cython.final
    cdef void do_move(self, int move) noexcept:
        cdef KilimState* s = &self.s
        cdef int kind = move_kind(move)
        cdef int x = move_arg(move)
        cdef int p = s.actor
        cdef int q
        if kind == MV_CARD:
            self.play_card(p, x)
            return
        if s.tracking:
            if kind == MV_BID or kind == MV_SCRAPPICK:
                ih_private(&s.ih, 1u << p, (<uint64_t>EV_BID << 56) | (<uint64_t>kind << 32) | <uint64_t>x)
            else:
                ih_public(&s.ih, (<uint64_t>EV_MOVE << 56) | (<uint64_t>p << 32) | <uint32_t>move)
        if kind == MV_BID:
            if s.phase == PH_SPY:
                s.spy_bid[p] = x
            elif s.phase == PH_SCRAPBID:
                s.scrap_bid[p] = x
            else:
                s.art_bid[p] = x
            s.seat_iter = p + 1
            self.advance()
        elif kind == MV_SCRAPPICK:
            self.pick_scrap(p, x)
            self.advance()
        elif kind == MV_TOKENPICK:
            s.token_holder[x] = p
            if s.tracking == TRACK_ALL:
                log_event(&s.log, LOG_TOKEN, p, x, 0, 0)
            self.advance()
        elif kind == MV_PLACE:
            self.place(p, place_row(x), place_col(x), place_dir(x), place_flip(x))
            self.advance()
        elif kind == MV_DONE:
            s.seat_iter = p + 1
            self.advance()
        elif kind == MV_TAKEPERF:
            s.token_used[TOK_PERFECT] = 1
            s.perfect_supply -= 1
            s.perfect_held[p] += 1
            self.advance()
        elif kind == MV_PLACEPERF:
            s.perfect_held[p] -= 1
            self.start_place(p, PS_PERFECT, PERF, PERF, -1, 1)
        elif kind == MV_SELSCRAP:
            s.scrap_loc[x] = LOC_SEL + p
            s.sel_scrap = x
            s.phase = PH_SCRAPAT
            if s.tracking == TRACK_ALL:
                for q in range(s.n):
                    self.count_out(q, x, p)     # shown: p held it
                    s.where[q][x] = <u8>(1 << p)
        elif kind == MV_ROTATE:
            s.token_used[TOK_ROTATE] = 1
            self.rotate(p, rotate_anchor(x), rotate_option(x))
            self.advance()
        elif kind == MV_REMOVE:
            s.token_used[TOK_REMOVE] = 1
            self.remove_domino(p, x)
            self.advance()
        elif kind == MV_REMOVESCRAP:
            s.token_used[TOK_REMOVE] = 1
            self.lift_scrap(p, x)
            s.scrap_loc[x] = LOC_OUT
            self.advance()
        elif kind == MV_MOVE:
            s.token_used[TOK_MOVE] = 1
            self.move_domino(p, x)
        elif kind == MV_MOVESCRAP:
            s.token_used[TOK_MOVE] = 1
            self.lift_scrap(p, x)
            s.scrap_loc[x] = LOC_SEL + p
            s.sel_scrap = x
            s.phase = PH_SCRAPAT
        elif kind == MV_SCRAPAT:
            self.put_scrap(p, s.sel_scrap, cell_row(x), cell_col(x))
            self.advance()
        else:
            # NO_MOVE: only a position no game reaches has no legal move (the loader refuses
            # such positions). End the game rather than leave a search's playout loop, which
            # holds the GIL, playing nothing forever.
            s.phase = PH_OVER
            s.actor = -1

    # ------------------------------------------------------------ 1. the market
    @cython.final
    cdef inline void play_card(self, int p, int x) noexcept:
        """p chooses card x (do_move's MV_CARD); after the last seat the cards are shown."""
        cdef KilimState* s = &self.s
        s.choice[p] = x
        if s.tracking:
            ih_private(&s.ih, 1u << p, (<uint64_t>EV_CHOICE << 56) | <uint64_t>x)
        if p + 1 < s.n:
            s.actor = p + 1
            return
        self.reveal_cards()
        self.advance()

    @cython.final
    cdef void reveal_cards(self) noexcept:
        """Everyone shows the card played; it goes to the face-up pile of used cards."""
        cdef KilimState* s = &self.s
        cdef int p
        self.clear_offers()
        for p in range(s.n):
            s.hand[p] &= ~(1u << s.choice[p])
            if s.tracking:
                ih_public(&s.ih, (<uint64_t>EV_CARDS << 56) | (<uint64_t>p << 32) | <uint64_t>s.choice[p])
            if s.tracking == TRACK_ALL:
                log_event(&s.log, LOG_CARD, p, s.choice[p], 0, 0)
        s.step = ST_SPY
        s.seat_iter = 0

    @cython.final
    cdef void clear_offers(self) noexcept:
        """Every seat's Gold card offers back to 0. The arrays are cleared whole (a fixed size:
        stores, not a call): the entries of seats past the player count are always 0."""
        memset(self.s.spy_bid, 0, sizeof(self.s.spy_bid))
        memset(self.s.scrap_bid, 0, sizeof(self.s.scrap_bid))
        memset(self.s.art_bid, 0, sizeof(self.s.art_bid))

    @cython.final
    cdef unsigned seats_of(self, int card) noexcept:
        """The seats that played `card` this turn (bit q: seat q; seats past the player count
        hold choice 0): seats 0-3 compared at once (kilim_seats_eq)."""
        return kilim_seats_eq(self.s.choice, card)

    @cython.final
    cdef bint offers_made(self, int card, int phase, int* bids) noexcept:
        """The players of `card` choose their Gold card one after another, from seat_iter on:
        False while one still has to (it is then to move, in `phase`). Once all have, the
        Gold cards are shown and leave the hands: True."""
        cdef KilimState* s = &self.s
        cdef unsigned seats = self.seats_of(card)
        cdef unsigned waiting = seats & ~((1u << s.seat_iter) - 1)
        cdef int q
        if waiting:
            s.phase = phase
            s.actor = lowest_bit(waiting)
            return False
        while seats:
            q = lowest_bit(seats)
            seats &= seats - 1
            s.hand[q] &= ~(1u << bids[q])
            if s.tracking:
                ih_public(&s.ih, (<uint64_t>EV_BIDS << 56) | (<uint64_t>card << 40)
                          | (<uint64_t>q << 32) | <uint64_t>bids[q])
        return True

    @cython.final
    cdef void advance(self) noexcept:
        """Run the automatic steps of the turn, from the current one in their order, until a
        player must decide (the end of the turn always asks someone: the next card or the
        game's end)."""
        cdef KilimState* s = &self.s
        cdef int q, w
        if s.step == ST_SPY:
            if not self.offers_made(C_SPY, PH_SPY, s.spy_bid):
                return
            if s.tracking == TRACK_ALL:
                for q in range(s.n):
                    if s.choice[q] == C_SPY:
                        log_event(&s.log, LOG_SPYBID, q, s.spy_bid[q], 0, 0)
            s.step = ST_AUCTION
        if s.step == ST_AUCTION:
            self.auction()
            s.step = ST_SCRAP
            s.seat_iter = 0
        if s.step == ST_SCRAP:
            if not self.offers_made(C_SCRAP, PH_SCRAPBID, s.scrap_bid):
                return
            w = self.side_winner(C_SCRAP, s.scrap_bid, True)
            s.step = ST_ART
            s.seat_iter = 0
            if w >= 0 and self.board_scraps() > 0:
                s.phase = PH_SCRAPPICK
                s.actor = w
                if s.tracking:
                    self.see_board(w)
                return
        if s.step == ST_ART:
            if not self.offers_made(C_ART, PH_ARTBID, s.art_bid):
                return
            w = self.side_winner(C_ART, s.art_bid, False)
            s.step = ST_PLACE
            if w >= 0 and self.free_tokens() > 0:
                s.phase = PH_TOKENPICK
                s.actor = w
                return
        if s.step == ST_PLACE:
            if s.n_to_place > 0:
                self.start_place(s.placer, PS_WON, dom_a(s.to_place[0]), dom_b(s.to_place[0]),
                                 -1, s.to_place[0] >= ID_PERF)
                return
            s.step = ST_WINDOW
            s.seat_iter = 0
        if s.step == ST_WINDOW:
            w = self.window_seats() & ((1u << s.n) - 1) & ~((1u << s.seat_iter) - 1)
            while w:
                q = lowest_bit(w)
                w &= w - 1
                if self.has_options(q):
                    s.seat_iter = q
                    s.phase = PH_WINDOW
                    s.actor = q
                    return
            s.step = ST_END
        self.end_turn()

    @cython.final
    cdef void auction(self) noexcept:
        """Tied offers cancel out; the highest offer left wins every domino waiting."""
        cdef KilimState* s = &self.s
        cdef uint32_t once = 0, twice = 0, b
        cdef int p, best = 0, i, c
        cdef int v[MAX_PLAYERS]
        for p in range(s.n):                        # each seat's offer, 0 for none, by masks
            c = s.choice[p]
            v[p] = (c & -<int>(c <= GOLD_MAX)) | (s.spy_bid[p] & -<int>(c == C_SPY))
            b = (1u << v[p]) & ~1u
            twice |= once & b
            once |= b
        once &= ~twice
        s.winner = -1
        s.win_value = 0
        if once:
            best = 63 - __builtin_clzll(<unsigned long long>once)     # the highest offer left
            for p in range(s.n):
                s.winner = p if v[p] == best else s.winner
            s.win_value = best
            for i in range(s.n_pending):
                s.to_place[s.n_to_place] = s.pending[i]
                s.n_to_place += 1
            s.to_place[s.n_to_place] = s.on_table
            s.n_to_place += 1
            s.placer = s.winner
            if s.tracking == TRACK_ALL:
                log_event(&s.log, LOG_WIN, s.winner, best, s.n_pending + 1, 0)
            s.n_pending = 0
        elif s.pile_pos == s.pile_len[s.day]:
            # the last auction of the day is tied: the domino (and any carried) is lost
            s.lost += s.n_pending + 1
            if s.tracking == TRACK_ALL:
                log_event(&s.log, LOG_TIE, -1, s.n_pending + 1, 1, 0)
            s.n_pending = 0
        else:
            s.pending[s.n_pending] = s.on_table
            s.n_pending += 1
            if s.tracking == TRACK_ALL:
                log_event(&s.log, LOG_TIE, -1, s.n_pending, 0, 0)
        s.on_table = -1

    @cython.final
    cdef int side_winner(self, int card, int* bids, bint above) noexcept:
        """Scrap Bag (above) / Artisan (below): among the valid offers the highest / lowest wins;
        a tie there means nobody. Invalid ones were discards."""
        cdef KilimState* s = &self.s
        cdef unsigned seats = self.seats_of(card)
        cdef int p, best = -1, count = 0, who = -1, v
        cdef bint valid
        if seats == 0:
            return -1
        while seats:
            p = lowest_bit(seats)
            seats &= seats - 1
            v = bids[p]
            valid = v > s.win_value if above else v < s.win_value
            if s.tracking == TRACK_ALL:
                log_event(&s.log, LOG_SCRAPBID if above else LOG_ARTBID, p, v, valid, 0)
            if not valid:
                continue
            if best < 0 or (v > best if above else v < best):
                best = v
                count = 1
                who = p
            elif v == best:
                count += 1
        if count != 1:
            who = -1
        if s.tracking == TRACK_ALL:
            log_event(&s.log, LOG_SCRAPWIN if above else LOG_ARTWIN, who, best, 0, 0)
        return who

    @cython.final
    cdef uint32_t board_scraps(self) noexcept:
        """The scraps on the board (bit t: scrap t)."""
        cdef uint32_t bits = 0
        cdef int t
        for t in range(N_SCRAPS):
            bits |= <uint32_t>(self.s.scrap_loc[t] == LOC_BOARD) << t
        return bits

    @cython.final
    cdef uint32_t free_tokens(self) noexcept:
        """The tokens nobody holds (bit t: token t)."""
        cdef uint32_t bits = 0
        cdef int t
        for t in range(N_TOKENS):
            bits |= <uint32_t>(self.s.token_holder[t] < 0) << t
        return bits

    @cython.final
    cdef void pick_scrap(self, int p, int t) noexcept:
        """p looks at the scraps on the board and keeps one face down. Each other seat counts
        one more of the board's scraps with p: t is in the group that holds the board's
        scraps in its counts (all the scraps it may think on the board are in one group, or
        none is), so naming t's group tells it nothing it did not know."""
        cdef KilimState* s = &self.s
        cdef int u, o, g
        s.scrap_loc[t] = LOC_HELD + p
        if s.tracking:
            ih_public(&s.ih, (<uint64_t>EV_SEARCHED << 56) | <uint64_t>p)
        if s.tracking != TRACK_ALL:
            return
        log_event(&s.log, LOG_SCRAPPICK, p, t, 0, 0)
        self.count_out(p, t, WHERE_BOARD)
        s.where[p][t] = <u8>(1 << p)
        for o in range(s.n):
            if o == p:
                continue
            for u in range(N_SCRAPS):
                if s.where[o][u] & (1 << WHERE_BOARD):
                    s.where[o][u] |= <u8>(1 << p)
            g = s.group_of[o][t]
            if g != NO_GROUP and s.share[o][g][WHERE_BOARD] > 0:
                s.share[o][g][WHERE_BOARD] -= 1
                s.share[o][g][p] += 1
                self.settle_group(o, g)

    @cython.final
    cdef void see_board(self, int p) noexcept:
        """The Scrap Bag winner looks at the scraps on the board before it picks (its
        knowledge only at TRACK_ALL; the hash of what it saw at any tracking level)."""
        cdef KilimState* s = &self.s
        cdef int u
        cdef uint64_t board = 0
        cdef bint learn = s.tracking == TRACK_ALL
        for u in range(N_SCRAPS):
            if s.scrap_loc[u] == LOC_BOARD:
                board |= 1u << u
                if learn:
                    s.where[p][u] = 1 << WHERE_BOARD
            elif not learn:
                continue
            elif s.scrap_loc[u] == LOC_HELD + p:
                s.where[p][u] = <u8>(1 << p)
            else:
                s.where[p][u] &= ~(1 << WHERE_BOARD)
        if learn:
            self.regroup_board(p, <unsigned>board)
        ih_private(&s.ih, 1u << p, (<uint64_t>EV_SCRAP << 56) | board)

    # ------------------------------------------------------------ a seat's counts of the scraps
    @cython.final
    cdef void regroup_board(self, int p, unsigned board) noexcept:
        """p sees which scraps are on the board: they leave their groups for a new one, all on
        the board; the scraps of p's old groups are now all off it."""
        cdef KilimState* s = &self.s
        cdef int t, g, n_board = 0
        for t in range(N_SCRAPS):
            if (board >> t) & 1:
                g = s.group_of[p][t]
                if g != NO_GROUP and s.share[p][g][WHERE_BOARD] > 0:
                    s.share[p][g][WHERE_BOARD] -= 1
                s.group_of[p][t] = NO_GROUP
                n_board += 1
        for g in range(N_SCRAPS):
            s.share[p][g][WHERE_BOARD] = 0
            self.settle_group(p, g)
        if n_board == 0:
            return
        g = self.unused_group(p)                # one exists: at most 4 scraps are grouped now
        s.share[p][g][WHERE_BOARD] = <u8>n_board
        for t in range(N_SCRAPS):
            if (board >> t) & 1:
                s.group_of[p][t] = <u8>g

    @cython.final
    cdef int unused_group(self, int o) noexcept:
        cdef int g, t
        cdef unsigned used = 0
        for t in range(N_SCRAPS):
            if self.s.group_of[o][t] != NO_GROUP:
                used |= 1u << self.s.group_of[o][t]
        for g in range(N_SCRAPS):
            if not (used >> g) & 1:
                return g
        return 0

    @cython.final
    cdef void count_out(self, int o, int t, int place) noexcept:
        """o now sees scrap t, which was at `place` (the seat that showed it, or the board for
        o's own pick): it leaves o's group, which has one fewer there."""
        cdef KilimState* s = &self.s
        cdef int g = s.group_of[o][t]
        if g == NO_GROUP:
            return
        if s.share[o][g][place] > 0:
            s.share[o][g][place] -= 1
        s.group_of[o][t] = NO_GROUP
        self.settle_group(o, g)

    @cython.final
    cdef void settle_group(self, int o, int g) noexcept:
        """A group's scraps may be only where the group still has some: revealing that seat 0
        held A of the group {A, B}, one each with seats 0 and 2, shows that B is with seat 2.
        A group without scraps forgets its counts."""
        cdef KilimState* s = &self.s
        cdef u8 places = 0
        cdef int q, t
        cdef bint empty = True
        for q in range(N_PLACES):
            places |= <u8>((s.share[o][g][q] > 0) << q)
        for t in range(N_SCRAPS):
            if s.group_of[o][t] == g:
                s.where[o][t] &= places
                empty = False
        if empty:
            memset(s.share[o][g], 0, N_PLACES)

    # ------------------------------------------------------------ 2. the weaving
    @cython.final
    cdef void start_place(self, int p, int src, int a, int b, int fixdir, int perf) noexcept:
        cdef KilimState* s = &self.s
        s.phase = PH_PLACE
        s.actor = p
        s.place_src = src
        s.pl_a = a
        s.pl_b = b
        s.pl_dir = fixdir
        s.pl_perf = perf

    @cython.final
    cdef void add_domino(self, int p, int r, int c, int d, int a, int b) noexcept:
        cdef Kil* k = &self.s.k[p]
        change_cell(k, r, c, 0, (1u << a) | (1u << (M_HL if d == 0 else M_VL)))
        change_cell(k, other_r(r, d), other_c(c, d), 0, 1u << b)
        k.n_dom += 1
        if a == PERF:
            k.n_perf += 1

    @cython.final
    cdef void take_domino(self, int p, int r, int c, int d) noexcept:
        cdef Kil* k = &self.s.k[p]
        if cell_code(k, r, c) == PERF:
            k.n_perf -= 1
        change_cell(k, r, c, CODE_BITS | (1u << (M_HL if d == 0 else M_VL)), 0)
        set_code(k, other_r(r, d), other_c(c, d), -1)
        k.n_dom -= 1

    @cython.final
    cdef void place(self, int p, int r, int c, int d, int f) noexcept:
        cdef KilimState* s = &self.s
        cdef int a = s.pl_a, b = s.pl_b, src = s.place_src
        cdef int swap = (a ^ b) & -f             # the halves swapped by a mask: f is drawn, a
        self.weave(p, r, c, d, a ^ swap, b ^ swap)   # branch on it was mispredicted half the time
        if src == PS_WON:
            s.n_to_place -= 1
            memmove(&s.to_place[0], &s.to_place[1], s.n_to_place)
            if s.n_to_place == 0:
                s.placer = -1
        s.place_src = -1
        s.pl_dir = -1

    @cython.final
    cdef void weave(self, int p, int r, int c, int d, int a, int b) noexcept:
        """add_domino and normalize for a legal placement, whose two cells are in no mask:
        appended to the list, and the box grown to hold them (re-centred if it grows up or
        left) without a pass over the other cells unless it moves."""
        cdef KilimState* s = &self.s
        cdef Kil* k = &s.k[p]
        cdef Cell* x = cells(k)
        cdef int r2 = other_r(r, d), c2 = other_c(c, d), dr, dc, i, t, mine
        if k.n_cells == 0 or n_used(k)[0] + 2 > CELLS:
            self.add_domino(p, r, c, d, a, b)
            self.normalize(p)
            return
        append_cell(k, r, c, (1u << a) | (1u << (M_HL if d == 0 else M_VL)))
        append_cell(k, r2, c2, 1u << b)
        k.n_dom += 1
        if a == PERF:
            k.n_perf += 1
        k.n_cells += 2
        k.rmax = r2 if r2 > k.rmax else k.rmax          # selections, not branches
        k.cmax = c2 if c2 > k.cmax else k.cmax
        dr = ORG - r if r < ORG else 0
        dc = ORG - c if c < ORG else 0
        if dr != 0 or dc != 0:
            for i in range(n_used(k)[0]):
                x[i].rc = <unsigned short>(x[i].rc + (dr << 8) + dc)
            for t in range(N_SCRAPS):            # p's woven scraps move with it, others by 0
                mine = -(s.scrap_loc[t] == LOC_WOVEN + p)
                s.scrap_r[t] += dr & mine
                s.scrap_c[t] += dc & mine
            k.rmax += dr
            k.cmax += dc
        if tile_ok(k)[0]:
            self.tile_weave(k, r + dr, c + dc, r2 + dr, c2 + dc, dr, dc)

    @cython.final
    cdef void tile_weave(self, Kil* k, int r, int c, int r2, int c2, int dr, int dc) noexcept:
        """Keep k's tile (KilimGrid.tile) after weave: the Kilim shifted by (dr, dc), then the
        cells (r, c) and (r2, c2) occupied. It is dropped (rebuilt when next needed) once the
        Kilim outgrows it."""
        cdef uint64_t* w = tile(k)
        if k.rmax > 15 or k.cmax > 15:
            tile_ok(k)[0] = 0
            return
        # down by dr rows and right by dc columns at once (no cell crosses a row's end), a
        # shift by 0 included: no test of random outcome
        shift_tile(w, 16 * dr + dc)
        w[r >> 2] |= (<uint64_t>1) << (((r & 3) << 4) + c)
        w[r2 >> 2] |= (<uint64_t>1) << (((r2 & 3) << 4) + c2)

    @cython.final
    cdef void normalize(self, int p) noexcept:
        """Shift the Kilim so that its bounding box starts at (ORG, ORG) (its cells and woven
        scraps: re-centred as it grows up or left, or shrinks); refresh its extent and cells."""
        cdef KilimState* s = &self.s
        cdef Kil* k = &s.k[p]
        cdef Cell* x = cells(k)
        cdef int* used = n_used(k)
        cdef int i, t, r, c, dr, dc, mine, count = 0
        cdef int minr = H, minc = 255, maxr = -1, maxc = -1
        tile_ok(k)[0] = 0
        for i in range(used[0]):
            if x[i].m & CODE_BITS:
                r = cell_r(&x[i])
                c = cell_c(&x[i])
                count += 1
                minr = r if r < minr else minr  # selections, not branches
                maxr = r if r > maxr else maxr
                minc = c if c < minc else minc
                maxc = c if c > maxc else maxc
        k.n_cells = count
        if count == 0:
            k.rmax = -1
            k.cmax = -1
            return
        dr = ORG - minr
        dc = ORG - minc
        if dr != 0 or dc != 0:
            i = 0
            while i < used[0]:
                r = cell_r(&x[i]) + dr
                c = cell_c(&x[i]) + dc
                if r < 0 or r >= H or c < 0 or c > MAX_COL:
                    used[0] -= 1                 # a link without its cell, shifted off the frame
                    x[i] = x[used[0]]
                    continue
                x[i].rc = <unsigned short>((r << 8) | c)
                i += 1
            for t in range(N_SCRAPS):            # p's woven scraps move with it, others by 0
                mine = -(s.scrap_loc[t] == LOC_WOVEN + p)
                s.scrap_r[t] += dr & mine
                s.scrap_c[t] += dc & mine
        k.rmax = maxr + dr
        k.cmax = maxc + dc

    # ------------------------------------------------------------ scraps
    @cython.final
    cdef void put_scrap(self, int p, int t, int r, int c) noexcept:
        cdef KilimState* s = &self.s
        cdef Kil* k = &s.k[p]
        cdef int kept = tile_ok(k)[0]
        s.scrap_under[t] = cell_code(k, r, c)
        set_code(k, r, c, t)                    # drops the tile (change_cell)
        s.scrap_loc[t] = LOC_WOVEN + p
        s.scrap_r[t] = r
        s.scrap_c[t] = c
        if ORG <= r <= k.rmax and ORG <= c <= k.cmax:
            k.n_cells += s.scrap_under[t] < 0   # inside the box (every target is): it stays
            if kept:                            # and so does a tile kept, the cell occupied
                tile_ok(k)[0] = 1
                tile(k)[r >> 2] |= (<uint64_t>1) << (((r & 3) << 4) + c)
        else:
            self.normalize(p)
        if s.tracking == TRACK_ALL:
            for r in range(s.n):
                s.where[r][t] = 0

    @cython.final
    cdef void lift_scrap(self, int p, int t) noexcept:
        """Take a woven scrap off: the pattern under it shows again (or the hole reopens). The
        scrap leaves its cell after the re-centring, which moves every scrap still counted as
        woven into p's Kilim (a scrap alone in an edge row or column shrinks the Kilim)."""
        cdef KilimState* s = &self.s
        set_code(&s.k[p], s.scrap_r[t], s.scrap_c[t], s.scrap_under[t])
        self.normalize(p)
        s.scrap_r[t] = -1
        s.scrap_c[t] = -1
        s.scrap_under[t] = -1

    # ------------------------------------------------------------ Artisan tokens
    @cython.final
    cdef void rotate(self, int p, int anchor, int opt) noexcept:
        cdef Kil* k = &self.s.k[p]
        cdef int r = anchor_row(anchor), c = anchor_col(anchor), d = anchor_dir(anchor)
        cdef int r2 = other_r(r, d), c2 = other_c(c, d)
        cdef int a = cell_code(k, r, c), b = cell_code(k, r2, c2)
        cdef int kr, kc, kcode, ocode, nr_, nc
        self.take_domino(p, r, c, d)
        if opt == 8:
            self.add_domino(p, r, c, d, b, a)
        else:
            if opt < 4:
                kr, kc, kcode, ocode = r, c, a, b
            else:
                kr, kc, kcode, ocode = r2, c2, b, a
            nr_ = kr + DR[opt & 3]
            nc = kc + DC[opt & 3]
            if nr_ < kr or nc < kc:
                self.add_domino(p, nr_, nc, 1 if nc == kc else 0, ocode, kcode)
            else:
                self.add_domino(p, kr, kc, 1 if nc == kc else 0, kcode, ocode)
        self.normalize(p)

    @cython.final
    cdef void remove_domino(self, int p, int anchor) noexcept:
        cdef KilimState* s = &self.s
        cdef int r = anchor_row(anchor), c = anchor_col(anchor), d = anchor_dir(anchor)
        if cell_code(&s.k[p], r, c) == PERF:
            s.removed_perf += 1
        else:
            s.removed_reg += 1
        self.take_domino(p, r, c, d)
        self.normalize(p)

    @cython.final
    cdef void move_domino(self, int p, int anchor) noexcept:
        cdef KilimState* s = &self.s
        cdef int r = anchor_row(anchor), c = anchor_col(anchor), d = anchor_dir(anchor)
        cdef Kil* k = &s.k[p]
        cdef int a = cell_code(k, r, c), b = cell_code(k, other_r(r, d), other_c(c, d))
        self.take_domino(p, r, c, d)
        self.normalize(p)
        self.start_place(p, PS_MOVE, a, b, d, a == PERF)

    # ------------------------------------------------------------ 3. end of a turn, of a day
    @cython.final
    cdef bint end_turn(self) noexcept:
        """Reveal the next domino, or end the day (cards and tokens come back), or the game.
        Returns True when a player must decide."""
        cdef KilimState* s = &self.s
        cdef int p, t
        memset(s.choice, 0, sizeof(s.choice))     # as clear_offers: seats past n hold 0
        self.clear_offers()
        s.turn += 1
        s.winner = -1
        s.win_value = 0
        s.seat_iter = 0                  # no step looks at seats until the next reveal
        if s.pile_pos >= s.pile_len[s.day]:
            if s.tracking == TRACK_ALL:
                log_event(&s.log, LOG_DAYEND, -1, s.day, 0, 0)
            for p in range(s.n):
                s.hand[p] = self.full_hand()
            for t in range(N_TOKENS):
                s.token_holder[t] = -1
                s.token_used[t] = 0
            s.day += 1
            s.pile_pos = 0
            if s.day == N_GROUPS:
                s.phase = PH_OVER
                s.actor = -1
                if s.tracking == TRACK_ALL:
                    log_event(&s.log, LOG_GAMEOVER, -1, 0, 0, 0)
                return True
        self.reveal_domino()
        s.phase = PH_CARD
        s.actor = 0
        return True

    # ================================================================ scoring
    @cython.final
    cdef int kilim_score(self, int p, int* largest, int* parts) noexcept:
        """Points of p's Kilim without the largest-group bonus; largest[t] gets the size of
        p's largest group of type t. parts (if not NULL): rectangle, types, groups, torn.
        The groups of a Kilim whose typed cells lie in rows 0-15, columns 1-15 (every one a
        game reaches that fits) are found on tiles, each type's cells set in the pass that
        counts them (groups_tile); any other's on a map of the bounding box (with a border of
        empty cells) holding each cell's pattern types: a search from each cell to its
        neighbours of a type takes that type off the cells it reaches, until the map is
        empty."""
        cdef Kil* k = &self.s.k[p]
        cdef Cell* x = cells(k)
        cdef int n = n_used(k)[0]
        cdef unsigned char at[(H + 2) * 130]
        cdef int stack[CELLS]
        cdef int step[4]
        cdef int t, i, j, r, c, size, top, minc = 255, maxc = -1, width, at_j, dirn
        cdef int groups = 0, torn = 0, rect = 0, tpts = 0, types, sp
        cdef unsigned present = 0, m, multi = 0
        cdef unsigned char tb
        cdef uint64_t b[N_TYPES][4]                # each type's cells on a tile (groups_tile)
        for t in range(N_TYPES):
            largest[t] = 0
        if k.rmax < 0:
            if parts != NULL:
                parts[0] = parts[1] = parts[2] = parts[3] = 0
            return 0
        top = k.rmax if k.rmax < H else H - 1      # a Kilim never reaches H: stay in the grid
        if k.n_cells == (top - ORG + 1) * (k.cmax - ORG + 1):
            rect = PT_RECT
        for t in range(N_TYPES):
            b[t][0] = b[t][1] = b[t][2] = b[t][3] = 0
        for i in range(n):                          # the cells counted: those in rows ORG..top
            r = cell_r(&x[i])
            if r < ORG or r > top:
                continue
            if (x[i].m >> TORN) & 1:
                torn += 1
            if x[i].m & TYPE_BITS:
                present |= x[i].m
                c = cell_c(&x[i])
                if c < minc:
                    minc = c
                if c > maxc:
                    maxc = c
                m = x[i].m & TYPE_BITS              # its type's tile (groups_tile), if it has one
                multi |= m & (m - 1)
                b[lowest_bit(m)][(r >> 2) & 3] |= (<uint64_t>1) << (((r & 3) << 4) + (c & 15))
        types = popcount(present & TYPE_BITS)
        if types and top <= 15 and minc >= 1 and maxc <= 15 and not multi:
            groups_tile(b, largest, &groups)        # every Kilim a game reaches that fits a tile
        elif types:
            width = maxc - minc + 3                 # the box's columns and a border each side
            memset(at, 0, (top - ORG + 3) * width)
            step[0] = -width
            step[1] = 1
            step[2] = width
            step[3] = -1
            for i in range(n):                      # a cell listed twice: its last entry's types
                r = cell_r(&x[i])
                if ORG <= r <= top and x[i].m & TYPE_BITS:
                    at[(r - ORG + 1) * width + cell_c(&x[i]) - minc + 1] = <unsigned char>(x[i].m & TYPE_BITS)
            for i in range(n):
                r = cell_r(&x[i])
                if r < ORG or r > top:
                    continue
                at_j = (r - ORG + 1) * width + cell_c(&x[i]) - minc + 1
                while at[at_j]:                     # a group of each type the cell still has
                    t = lowest_bit(at[at_j])
                    tb = <unsigned char>(1 << t)
                    at[at_j] &= ~tb
                    stack[0] = at_j
                    sp = 1
                    size = 0
                    while sp:
                        sp -= 1
                        j = stack[sp]
                        size += 1
                        for dirn in range(4):
                            if at[j + step[dirn]] & tb:
                                at[j + step[dirn]] &= ~tb
                                stack[sp] = j + step[dirn]
                                sp += 1
                    groups += size - 1
                    if size > largest[t]:
                        largest[t] = size
        if types == 3:
            tpts = PT_THREE
        elif types == N_TYPES:
            tpts = PT_FIVE
        if parts != NULL:
            parts[0] = rect
            parts[1] = tpts
            parts[2] = groups
            parts[3] = -PT_TORN * torn
        return rect + tpts + groups - PT_TORN * torn

    @cython.final
    cdef void tally(self) noexcept:
        """Every player's points, the largest-group bonus included (it compares the Kilims, so
        all are counted at once): +5 for each pattern whose largest group (2 or more) p has,
        tied leaders all scoring. score(p), rank_key(p) and score_lines read the tally."""
        cdef KilimState* s = &self.s
        cdef int largest[MAX_PLAYERS][N_TYPES]
        cdef int best[N_TYPES]
        cdef int p, t
        for t in range(N_TYPES):
            best[t] = 1          # Interpretation: a single pattern is no group (docs/rules/kilim.md, 9)
        for p in range(s.n):
            self.points[p] = self.kilim_score(p, largest[p], NULL)
            for t in range(N_TYPES):
                if largest[p][t] > best[t]:
                    best[t] = largest[p][t]
        for p in range(s.n):
            self.bonus[p] = 0
            for t in range(N_TYPES):
                if best[t] >= 2 and largest[p][t] == best[t]:
                    self.bonus[p] += PT_LARGEST
            self.points[p] += self.bonus[p]

    @cython.final
    cdef int score(self, int p) noexcept:
        return self.points[p]

    @cython.final
    cdef long long rank_key(self, int p) noexcept:
        """Points, then the largest Kilim (cells woven: fewer than 1,000)."""
        return <long long>self.points[p] * 1000 + self.s.k[p].n_cells

    def score_lines(self, p) -> dict:
        """The rulebook's score lines for player p."""
        self._check_player(p)
        cdef int largest[N_TYPES]
        cdef int parts[4]
        self.tally()
        self.kilim_score(p, largest, parts)
        return {"rectangle": parts[0], "types": parts[1], "adjacent": parts[2],
                "largest_group": self.bonus[p], "torn": parts[3], "total": self.points[p]}

    def largest_groups(self, p) -> list:
        """The size of p's largest group of each pattern type A-E."""
        self._check_player(p)
        cdef int largest[N_TYPES]
        self.kilim_score(p, largest, NULL)
        return [largest[t] for t in range(N_TYPES)]

    def kilim_size(self, p) -> int:
        """The cells woven in p's Kilim (the tie-break)."""
        self._check_player(p)
        return self.s.k[p].n_cells

    def kilim_extent(self, p) -> tuple:
        """(rows, columns) of p's Kilim's bounding box, (0, 0) while it is empty: the size of
        `kilim_rows(p)` without building it."""
        self._check_player(p)
        cdef Kil* k = &self.s.k[p]
        if k.rmax < 0:
            return (0, 0)
        return (k.rmax - ORG + 1, k.cmax - ORG + 1)

    # ================================================================ information
    @cython.final
    cdef uint32_t pending_options(self, int q) noexcept:
        """The choices q may have made face down at this point (empty if q has none pending)."""
        cdef KilimState* s = &self.s
        if s.phase == PH_CARD:
            return s.hand[q] if q < s.actor else 0
        if s.phase == PH_SPY and s.choice[q] == C_SPY and q < s.actor:
            return self.bid_options(q, PH_SPY)
        if s.phase == PH_SCRAPBID and s.choice[q] == C_SCRAP and q < s.actor:
            return self.bid_options(q, PH_SCRAPBID)
        if s.phase == PH_ARTBID and s.choice[q] == C_ART and q < s.actor:
            return self.bid_options(q, PH_ARTBID)
        return 0

    @cython.final
    cdef void resample(self, int o, Rng* rng) noexcept:
        """Redraw everything o cannot see: the others' face-down choices of this step, the
        scraps held face down and left on the board (respecting what o saw), the order and
        contents of every pile (which dominoes were removed or replaced)."""
        cdef KilimState* s = &self.s
        cdef int q, t, i, j, g, tries, v
        cdef uint32_t opts
        cdef uint64_t digest[5]
        cdef int unknown[5]
        cdef int slots[5]
        cdef int perm[5]
        cdef int nu = 0, ns = 0
        cdef bint ok
        # --- face-down choices of this step
        for q in range(s.n):
            if q == o:
                continue
            opts = self.pending_options(q)
            if opts:
                v = draw_bit(rng, opts)
                if s.phase == PH_CARD:
                    s.choice[q] = v
                elif s.phase == PH_SPY:
                    s.spy_bid[q] = v
                elif s.phase == PH_SCRAPBID:
                    s.scrap_bid[q] = v
                else:
                    s.art_bid[q] = v
        # --- scraps: the unknown ones go to the others' face-down holdings and the board
        for t in range(N_SCRAPS):
            if s.scrap_loc[t] == LOC_BOARD or (s.scrap_loc[t] >= LOC_HELD and s.scrap_loc[t] < LOC_HELD + 5
                                                and s.scrap_loc[t] != LOC_HELD + o):
                unknown[nu] = t
                nu += 1
        for q in range(s.n):                    # slots in a fixed order: players, then the board
            if q != o:
                for i in range(self.scraps_at(LOC_HELD + q)):
                    slots[ns] = q
                    ns += 1
        for i in range(popcount(self.board_scraps())):
            slots[ns] = WHERE_BOARD
            ns += 1
        ok = False
        for tries in range(2000):
            for i in range(ns):
                perm[i] = slots[i]
            for i in range(ns - 1, 0, -1):
                j = rng_below(rng, i + 1)
                perm[i], perm[j] = perm[j], perm[i]
            ok = True
            for i in range(nu):
                if not (s.where[o][unknown[i]] >> perm[i]) & 1:
                    ok = False
                    break
            if ok and self.fits_counts(o, unknown, perm, nu):
                break
            ok = False
        if not ok:                              # never expected: drawn from every fitting one
            self.draw_fitting_scraps(o, unknown, slots, perm, nu, rng)
        for i in range(nu):
            s.scrap_loc[unknown[i]] = LOC_BOARD if perm[i] == WHERE_BOARD else LOC_HELD + perm[i]
        self.forget_scraps(o)                   # Interpretation: the others' knowledge is not modelled
        # --- piles: contents from the group's unrevealed dominoes, torn ones from the unseen
        self.resample_piles(rng)
        rng_seed(&s.chance, rng_next(rng))
        for q in range(s.n):
            digest[q] = mix64(<uint64_t>s.choice[q] * 131 + <uint64_t>s.spy_bid[q] * 17
                              + <uint64_t>s.scrap_bid[q] * 7 + <uint64_t>s.art_bid[q])
            for t in range(N_SCRAPS):
                if s.scrap_loc[t] == LOC_HELD + q:
                    digest[q] = mix64(digest[q] ^ (<uint64_t>(t + 1) << 20))
        ih_resample(&s.ih, o, s.n, digest)

    @cython.final
    cdef void forget_scraps(self, int o) noexcept:
        """Every seat but o knows its own scraps and, of the others, only how many each place
        holds (one group of them all)."""
        cdef KilimState* s = &self.s
        cdef int t, q, loc
        cdef int place[5]                       # a seat or the board; SEL_PLACE + seat; -1 public
        cdef u8 counts[6]
        cdef u8 everywhere = <u8>(((1 << s.n) - 1) | (1 << WHERE_BOARD))
        memset(counts, 0, sizeof(counts))
        for t in range(N_SCRAPS):
            loc = s.scrap_loc[t]
            if loc == LOC_BOARD:
                place[t] = WHERE_BOARD
            elif LOC_HELD <= loc < LOC_HELD + 5:
                place[t] = loc - LOC_HELD
            elif LOC_SEL <= loc < LOC_SEL + 5:
                place[t] = SEL_PLACE + loc - LOC_SEL
            else:
                place[t] = -1
            if 0 <= place[t] < N_PLACES:
                counts[place[t]] += 1
        for q in range(s.n):
            if q == o:
                continue
            memset(s.share[q], 0, sizeof(s.share[q]))
            memcpy(s.share[q][0], counts, sizeof(counts))
            s.share[q][0][q] = 0                # its own: seen
            for t in range(N_SCRAPS):
                if place[t] == q or place[t] == SEL_PLACE + q:
                    s.where[q][t] = <u8>(1 << q)
                    s.group_of[q][t] = NO_GROUP
                elif 0 <= place[t] < N_PLACES:
                    s.where[q][t] = everywhere & ~(1 << q)
                    s.group_of[q][t] = 0
                else:
                    s.where[q][t] = 0
                    s.group_of[q][t] = NO_GROUP

    @cython.final
    cdef bint fits_counts(self, int o, int* unknown, int* places, int nu) noexcept:
        """Whether placing unknown[i] at places[i] gives each of o's groups its counts."""
        cdef u8 got[5][6]
        cdef int i, g
        memset(got, 0, sizeof(got))
        for i in range(nu):
            g = self.s.group_of[o][unknown[i]]
            if g != NO_GROUP:
                got[g][places[i]] += 1
        return memcmp(got, self.s.share[o], sizeof(got)) == 0

    @cython.final
    cdef int fitting_scraps(self, int o, int* unknown, int* slots, int* perm, int nu, int depth,
                            bint* used, int skip) noexcept:
        """Count the placements of unknown[depth:] into the unused slots that fit o's places
        and counts, stopping at the one after `skip` others (left in perm); -1 if none is left
        to stop at. Slots of one place are told apart, so every placement counts the same
        number of times."""
        cdef int j, found = 0, r
        if depth == nu:
            return 1 if self.fits_counts(o, unknown, perm, nu) else 0
        for j in range(nu):
            if used[j] or not (self.s.where[o][unknown[depth]] >> slots[j]) & 1:
                continue
            used[j] = True
            perm[depth] = slots[j]
            r = self.fitting_scraps(o, unknown, slots, perm, nu, depth + 1, used, skip - found)
            used[j] = False
            if r < 0:
                return -1
            if skip >= 0 and found + r > skip:
                return -1                       # perm holds the one wanted
            found += r
        return found

    @cython.final
    cdef void draw_fitting_scraps(self, int o, int* unknown, int* slots, int* perm, int nu,
                                  Rng* rng) noexcept:
        """A placement drawn uniformly from every one that fits o's knowledge (at most 5! to
        look through), for when rejection found none."""
        cdef bint used[5]
        cdef int i, count
        for i in range(5):
            used[i] = False
        count = self.fitting_scraps(o, unknown, slots, perm, nu, 0, used, -1)
        if count > 0:
            self.fitting_scraps(o, unknown, slots, perm, nu, 0, used, rng_below(rng, count))
        else:                                   # inconsistent knowledge: keep slot order
            for i in range(nu):
                perm[i] = slots[i]

    @cython.final
    cdef void resample_piles(self, Rng* rng) noexcept:
        cdef KilimState* s = &self.s
        cdef i8 regs[15]
        cdef i8 torn[5]
        cdef int g, i, start, remaining, tr, nr_, need, nt = 0, ti = 0, total_torn = 0
        for i in range(N_TORN):
            if not (s.revealed >> (ID_TORN + i)) & 1:
                torn[nt] = ID_TORN + i
                nt += 1
        for g in range(s.day, N_GROUPS):
            total_torn += s.torn_in[g] - s.torn_seen[g]
        shuffle_bytes(rng, torn, nt)               # in id order first: canonical
        for g in range(s.day, N_GROUPS):
            start = s.pile_pos if g == s.day else 0
            remaining = s.pile_len[g] - start
            tr = s.torn_in[g] - s.torn_seen[g]
            nr_ = 0
            for i in range(GROUP_SIZE):
                if not (s.revealed >> (g * GROUP_SIZE + i)) & 1:
                    regs[nr_] = g * GROUP_SIZE + i
                    nr_ += 1
            shuffle_bytes(rng, regs, nr_)
            need = remaining - tr
            for i in range(need):
                s.piles[g][start + i] = regs[i]
            for i in range(tr):
                s.piles[g][start + need + i] = torn[ti]
                ti += 1
            shuffle_bytes(rng, &s.piles[g][start], remaining)


    # ================================================================ the bridge
    def _fields(self) -> dict:
        """Every field of the C state as Python values (ints, lists, dicts). Each Kilim's grid
        is k[p]["m"]: one int per mask, cell (r, c) at bit 128 r + c (see KilimGrid). A grid
        the bridge could not hold (`bad`) has n_cells -1, so no check accepts it."""
        cdef dict d = self.s
        cdef int p, t, i, rows, used
        cdef Kil* k
        cdef u128 g[H]
        for p in range(5):
            k = &self.s.k[p]
            used = n_used(k)[0]
            rows = 0
            for i in range(used):
                rows = max(rows, cell_r(&cells(k)[i]) + 1)
            rows = min(rows, H)
            masks = []
            for t in range(N_MASKS):
                fill_rows(k, 1u << t, g, rows)
                i = rows
                while i > 0 and g[i - 1] == 0:            # the rows below are empty: skip them
                    i -= 1
                masks.append(int.from_bytes((<char*>g)[:i * sizeof(u128)], "little"))
            d["k"][p]["m"] = masks
            if is_bad(k)[0]:
                d["k"][p]["n_cells"] = -1
        return d

    @cython.boundscheck(True)
    def _set_fields(self, dict fields not None) -> None:
        """Overwrite the C state from `fields` (GameCore's docstring: the bridge). Each grid
        becomes its list of cells; one that does not fit (more cells than a Kilim has, an
        extent outside the frame) is kept as far as it fits and marked bad."""
        cdef KilimState state = fields          # every field but the grids (KilimGrid hides them)
        cdef u128 g[N_MASKS][H]
        cdef bytes rows
        cdef int p, t, r, c
        cdef unsigned m
        cdef u128 row
        cdef Kil* k
        kilims = fields["k"]
        for p in range(5):
            masks = kilims[p]["m"]
            if not isinstance(masks, list) or len(masks) != N_MASKS:
                raise ValueError(f"k[{p}].m: expected {N_MASKS} masks")
            for t in range(N_MASKS):
                if type(masks[t]) is not int:
                    raise TypeError(f"k[{p}].m[{t}]: expected an int, not {type(masks[t]).__name__}")
                rows = masks[t].to_bytes(H * sizeof(u128), "little")   # OverflowError if out of range
                memcpy(g[t], <char*>rows, H * sizeof(u128))
            k = &state.k[p]
            memset(cells(k), 0, CELLS * sizeof(Cell))
            memset(tile(k), 0, 4 * sizeof(uint64_t))
            tile_ok(k)[0] = 0
            n_used(k)[0] = 0
            is_bad(k)[0] = not (-1 <= k.rmax < H and -1 <= k.cmax <= MAX_COL)
            for r in range(H):
                row = 0
                for t in range(N_MASKS):
                    row |= g[t][r]
                while row:
                    c = low128(row)
                    row &= row - 1
                    m = 0
                    for t in range(N_MASKS):
                        m |= <unsigned>((g[t][r] >> c) & 1) << t
                    if n_used(k)[0] == CELLS:
                        is_bad(k)[0] = 1          # more cells than a Kilim has
                        break
                    cells(k)[n_used(k)[0]].rc = <unsigned short>((r << 8) | c)
                    cells(k)[n_used(k)[0]].m = <unsigned short>m
                    n_used(k)[0] += 1
        self.s = state
