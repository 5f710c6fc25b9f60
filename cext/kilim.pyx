# cython: language_level=3
"""Kilim: every rule of the game in one C state, each Kilim a grid of bit masks.

Read top to bottom: the component table, the grid (128-bit rows, one mask per pattern code
plus the domino links), set-up, the market (cards, spies, the auction, Scrap Bag, Artisan),
the weaving (placements, scraps, Artisan tokens), the end of a turn and of a day, scoring,
information (hashes, scrap knowledge, determinization), then the Python API.

Rule interpretations are marked "Interpretation" and explained in docs/rules/kilim.md.
"""
cimport cython
from libc.stdint cimport uint64_t, uint32_t
from libc.string cimport memset, memmove
from cext.core cimport GameCore, MAX_MOVES, head_fits
from cext.core import stable_hash as _stable_hash
from cext.rng cimport Rng, rng_seed, rng_next, rng_below, mix64
from cext.bits cimport i8, u8, popcount, lowest_bit, nth_bit, shuffle_bytes, sort_bytes, win_shares
from cext.infohash cimport (InfoHash, ih_reset, ih_public, ih_private, ih_resample)

cdef extern from *:
    ctypedef unsigned long long u128 "unsigned __int128"
    int __builtin_clzll(unsigned long long) nogil

# ================================================================ component table
# Every number of the game lives here. Those the rulebook does not print come from
# ../shared/RULES-NOTES.md and are explained in docs/rules/kilim.md.
cdef enum:
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

    # the grid: H rows of 128-bit masks; a non-empty Kilim is kept with its bounding box's
    # top-left cell at (ORG, ORG), leaving two free rows/columns for growth up and left
    H = 112
    ORG = 2
    MAX_COL = 125

cdef int TORN_PER_GROUP[6][3]   # by player count: torn carpets shuffled into groups 1, 2, 3
TORN_PER_GROUP[2][:] = [1, 1, 0]
TORN_PER_GROUP[3][:] = [1, 1, 1]
TORN_PER_GROUP[4][:] = [2, 1, 1]
TORN_PER_GROUP[5][:] = [2, 2, 1]
cdef i8 PAIR_A[15]
cdef i8 PAIR_B[15]
_k = 0
for _a in range(5):
    for _b in range(_a, 5):
        PAIR_A[_k] = _a
        PAIR_B[_k] = _b
        _k += 1

POINTS_RECTANGLE = 10
POINTS_THREE_TYPES = 10
POINTS_FIVE_TYPES = 5
POINTS_LARGEST_GROUP = 5
POINTS_TORN = -3
cdef enum:
    PT_RECT = 10
    PT_THREE = 10
    PT_FIVE = 5
    PT_LARGEST = 5
    PT_TORN = 3

CODE_LETTERS = "ABCDEXP"      # A-E patterns, X torn, P perfect
TOKEN_NAMES = ("perfect", "rotate", "remove", "move")
PY_TORN_PER_GROUP = {2: (1, 1, 0), 3: (1, 1, 1), 4: (2, 1, 1), 5: (2, 2, 1)}
PY_PAIRS = [(a, b) for a in range(5) for b in range(a, 5)]

# ================================================================ phases, steps, moves
cdef enum:
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

    ST_SPY = 0
    ST_AUCTION = 1
    ST_SCRAP = 2
    ST_ART = 3
    ST_PLACE = 4
    ST_WINDOW = 5
    ST_END = 6

    PS_WON = 0               # sources of a placement
    PS_PERFECT = 1
    PS_MOVE = 2

    KSHIFT = 24
    K_CARD = 1               # | card
    K_BID = 2                # | gold value
    K_SCRAPPICK = 3          # | type
    K_TOKENPICK = 4          # | token
    K_PLACE = 5              # | r << 9 | c << 2 | d << 1 | flip
    K_DONE = 6
    K_TAKEPERF = 7
    K_PLACEPERF = 8
    K_SELSCRAP = 9           # | type
    K_ROTATE = 10            # | anchor << 4 | option
    K_REMOVE = 11            # | anchor  (anchor = r << 8 | c << 1 | d)
    K_REMOVESCRAP = 12       # | type
    K_MOVE = 13              # | anchor
    K_MOVESCRAP = 14         # | type
    K_SCRAPAT = 15           # | r << 7 | c

    LOC_BOARD = -1           # scrap locations: on the board, held (face down) by p, woven by p,
    LOC_HELD = 0             # out of the game, or in p's hand being placed / moved
    LOC_WOVEN = 8
    LOC_OUT = 16
    LOC_SEL = 24
    WHERE_BOARD = 5          # knowledge bit for "on the board"

    EV_DOMINO = 1            # information events (type << 56 | payload)
    EV_CHOICE = 2
    EV_CARDS = 3
    EV_BID = 4
    EV_BIDS = 5
    EV_SCRAP = 6
    EV_SEARCHED = 7
    EV_MOVE = 8

    # narration events (ring buffer, only while tracking)
    N_REVEAL = 1             # a = domino
    N_CARD = 2               # p, a = card
    N_SPYBID = 3             # p, a = value
    N_WIN = 4                # p, a = value, b = dominoes won
    N_TIE = 5                # a = dominoes carried (b = 0) or lost (b = 1)
    N_SCRAPBID = 6           # p, a = value, b = valid
    N_SCRAPWIN = 7           # p (-1 nobody)
    N_SCRAPPICK = 8          # p, a = type
    N_ARTBID = 9
    N_ARTWIN = 10
    N_TOKEN = 11             # p, a = token
    N_DAYEND = 12            # a = day
    N_GAMEOVER = 13
    N_RING = 64

cdef struct NEv:
    int kind, p, a, b

cdef struct Kil:
    u128 m[N_MASKS][H]       # per mask, per row: bit c = column c
    int rmax, cmax           # bottom row and right column of the bounding box (-1: empty)
    int n_dom, n_perf, n_cells

cdef struct KState:
    bint tracking                    # StateHead (core.pxd): these two fields first
    InfoHash ih
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
    Kil k[5]
    Rng chance
    u8 where[5][5]        # where[o][t]: where observer o knows scrap t may be
    NEv ring[N_RING]
    int n_ev

cdef KState _layout_probe
if not head_fits(&_layout_probe, &_layout_probe.tracking, &_layout_probe.ih):
    raise ImportError("KState must begin with the fields of StateHead (cext/core.pxd)")

# ================================================================ 128-bit row helpers
cdef inline u128 bit(int c) noexcept nogil:
    return (<u128>1) << c

cdef inline bint has_bit(u128 x, int c) noexcept nogil:
    return (x >> c) & 1

cdef inline int pc128(u128 x) noexcept nogil:
    return popcount(<uint64_t>x) + popcount(<uint64_t>(x >> 64))

cdef inline int low128(u128 x) noexcept nogil:
    cdef uint64_t lo = <uint64_t>x
    if lo:
        return lowest_bit(lo)
    return 64 + lowest_bit(<uint64_t>(x >> 64))

cdef inline int high128(u128 x) noexcept nogil:
    cdef uint64_t hi = <uint64_t>(x >> 64)
    if hi:
        return 127 - __builtin_clzll(hi)
    return 63 - __builtin_clzll(<uint64_t>x)

cdef inline u128 colmask() noexcept nogil:
    return (bit(MAX_COL + 1)) - 1

cdef inline u128 occ(Kil* k, int r) noexcept nogil:
    if r < 0 or r >= H:
        return 0
    return k.m[0][r] | k.m[1][r] | k.m[2][r] | k.m[3][r] | k.m[4][r] | k.m[5][r] | k.m[6][r]

cdef inline bint occupied(Kil* k, int r, int c) noexcept nogil:
    if r < 0 or r >= H or c < 0 or c > MAX_COL:
        return False
    return (occ(k, r) >> c) & 1

cdef inline int cell_code(Kil* k, int r, int c) noexcept nogil:
    cdef int t
    for t in range(N_CODES):
        if (k.m[t][r] >> c) & 1:
            return t
    return -1

cdef inline void set_code(Kil* k, int r, int c, int code) noexcept nogil:
    cdef int t
    cdef u128 b = bit(c)
    for t in range(N_CODES):
        k.m[t][r] &= ~b
    if code >= 0:
        k.m[code][r] |= b

cdef inline int other_r(int r, int d) noexcept nogil:
    return r + d

cdef inline int other_c(int c, int d) noexcept nogil:
    return c + 1 - d

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


@cython.final
cdef class Kilim(GameCore):
    """A Kilim position. `Kilim(players=4, seed=0)` deals a new game (2 to 5 players)."""
    cdef KState s
    game = "kilim"

    def __init__(self, int players=4, seed=0):
        self.setup(players, self._start("Kilim", players, 2, 5, seed))

    # ============================================================ set-up
    cdef void setup(self, int n, uint64_t seed) noexcept:
        cdef KState* s = &self.s
        cdef int g, i, p, t, size, k, regs
        cdef i8 ids[15]
        cdef i8 torn[5]
        memset(s, 0, sizeof(KState))
        s.n = n
        s.gold_max = GOLD_MAX_DUEL if n == 2 else GOLD_MAX
        s.tracking = True
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
        s.winner = -1
        s.placer = -1
        s.day = 0
        s.pile_pos = 0
        self.reveal_domino()
        s.phase = PH_CARD
        s.actor = 0

    cdef uint32_t full_hand(self) noexcept:
        return ((1u << (self.s.gold_max + 1)) - 2) | (1u << C_SPY) | (1u << C_SCRAP) | (1u << C_ART)

    cdef void reveal_domino(self) noexcept:
        cdef KState* s = &self.s
        cdef int d = s.piles[s.day][s.pile_pos]
        s.pile_pos += 1
        s.on_table = d
        s.revealed |= (<uint64_t>1) << d
        if d >= ID_TORN:
            s.torn_seen[s.day] += 1
        if s.tracking:
            ih_public(&s.ih, (<uint64_t>EV_DOMINO << 56) | <uint64_t>d)
            self.note(N_REVEAL, -1, d, s.day)

    cdef void note(self, int kind, int p, int a, int b) noexcept:
        cdef NEv* e = &self.s.ring[self.s.n_ev % N_RING]
        e.kind = kind
        e.p = p
        e.a = a
        e.b = b
        self.s.n_ev += 1

    # ============================================================ moves
    cdef int current(self) noexcept:
        return -1 if self.s.phase == PH_OVER else self.s.actor

    cdef int gen_moves(self, int* buf) noexcept:
        cdef KState* s = &self.s
        cdef int n = 0, v, t
        cdef uint32_t h
        cdef int ph = s.phase
        if ph == PH_CARD:
            h = s.hand[s.actor]
            while h:
                buf[n] = (K_CARD << KSHIFT) | lowest_bit(h)
                n += 1
                h &= h - 1
            return n
        if ph == PH_SPY or ph == PH_SCRAPBID or ph == PH_ARTBID:
            h = self.bid_options(s.actor, ph)
            while h:
                buf[n] = (K_BID << KSHIFT) | lowest_bit(h)
                n += 1
                h &= h - 1
            return n
        if ph == PH_SCRAPPICK:
            for t in range(N_SCRAPS):
                if s.scrap_loc[t] == LOC_BOARD:
                    buf[n] = (K_SCRAPPICK << KSHIFT) | t
                    n += 1
            return n
        if ph == PH_TOKENPICK:
            for t in range(N_TOKENS):
                if s.token_holder[t] < 0:
                    buf[n] = (K_TOKENPICK << KSHIFT) | t
                    n += 1
            return n
        if ph == PH_PLACE:
            return self.gen_place(buf, -1)
        if ph == PH_WINDOW:
            return self.gen_window(s.actor, buf)
        if ph == PH_SCRAPAT:
            return self.gen_scrap_targets(s.actor, buf)
        return 0

    cdef uint32_t bid_options(self, int p, int ph) noexcept:
        """Gold cards p may play: any (Spy); above the winning offer if p has one, else any as
        a discard (Scrap Bag); below it if p has one, else any as a discard (Artisan)."""
        cdef KState* s = &self.s
        cdef uint32_t gold = s.hand[p] & ((1u << (GOLD_MAX + 1)) - 2)
        cdef uint32_t ok
        if ph == PH_SCRAPBID:
            ok = gold & ~((1u << (s.win_value + 1)) - 1)
            return ok if ok else gold
        if ph == PH_ARTBID:
            ok = gold & ((1u << s.win_value) - 1)
            return ok if ok else gold
        return gold

    cdef int random_move(self, Rng* rng) noexcept:
        cdef KState* s = &self.s
        cdef uint32_t h
        cdef int buf[MAX_MOVES]
        cdef int n
        if s.phase == PH_CARD:
            h = s.hand[s.actor]
            return (K_CARD << KSHIFT) | nth_bit(h, rng_below(rng, popcount(h)))
        if s.phase == PH_PLACE:
            n = self.gen_place(NULL, -1)
            return self.gen_place(NULL, rng_below(rng, n))
        n = self.gen_moves(buf)
        return buf[rng_below(rng, n)]

    cdef void do_move(self, int move) noexcept:
        cdef KState* s = &self.s
        cdef int kind = move >> KSHIFT
        cdef int x = move & ((1 << KSHIFT) - 1)
        cdef int p = s.actor
        cdef int q
        if kind == K_CARD:
            s.choice[p] = x
            if s.tracking:
                ih_private(&s.ih, 1u << p, (<uint64_t>EV_CHOICE << 56) | <uint64_t>x)
            if p + 1 < s.n:
                s.actor = p + 1
                return
            self.reveal_cards()
            self.advance()
            return
        if s.tracking:
            if kind == K_BID or kind == K_SCRAPPICK:
                ih_private(&s.ih, 1u << p, (<uint64_t>EV_BID << 56) | (<uint64_t>kind << 32) | <uint64_t>x)
            else:
                ih_public(&s.ih, (<uint64_t>EV_MOVE << 56) | (<uint64_t>p << 32) | <uint32_t>move)
        if kind == K_BID:
            if s.phase == PH_SPY:
                s.spy_bid[p] = x
            elif s.phase == PH_SCRAPBID:
                s.scrap_bid[p] = x
            else:
                s.art_bid[p] = x
            s.seat_iter = p + 1
            self.advance()
        elif kind == K_SCRAPPICK:
            self.pick_scrap(p, x)
            self.advance()
        elif kind == K_TOKENPICK:
            s.token_holder[x] = p
            if s.tracking:
                self.note(N_TOKEN, p, x, 0)
            self.advance()
        elif kind == K_PLACE:
            self.place(p, (x >> 9) & 127, (x >> 2) & 127, (x >> 1) & 1, x & 1)
            self.advance()
        elif kind == K_DONE:
            s.seat_iter = p + 1
            self.advance()
        elif kind == K_TAKEPERF:
            s.token_used[TOK_PERFECT] = 1
            s.perfect_supply -= 1
            s.perfect_held[p] += 1
            self.advance()
        elif kind == K_PLACEPERF:
            s.perfect_held[p] -= 1
            self.start_place(p, PS_PERFECT, PERF, PERF, -1, 1)
        elif kind == K_SELSCRAP:
            s.scrap_loc[x] = LOC_SEL + p
            s.sel_scrap = x
            s.phase = PH_SCRAPAT
            if s.tracking:
                for q in range(s.n):
                    s.where[q][x] = <u8>(1 << p)
        elif kind == K_ROTATE:
            s.token_used[TOK_ROTATE] = 1
            self.rotate(p, x >> 4, x & 15)
            self.advance()
        elif kind == K_REMOVE:
            s.token_used[TOK_REMOVE] = 1
            self.remove_domino(p, x)
            self.advance()
        elif kind == K_REMOVESCRAP:
            s.token_used[TOK_REMOVE] = 1
            self.lift_scrap(p, x)
            s.scrap_loc[x] = LOC_OUT
            self.advance()
        elif kind == K_MOVE:
            s.token_used[TOK_MOVE] = 1
            self.move_domino(p, x)
        elif kind == K_MOVESCRAP:
            s.token_used[TOK_MOVE] = 1
            self.lift_scrap(p, x)
            s.scrap_loc[x] = LOC_SEL + p
            s.sel_scrap = x
            s.phase = PH_SCRAPAT
        elif kind == K_SCRAPAT:
            self.put_scrap(p, s.sel_scrap, x >> 7, x & 127)
            self.advance()

    # ============================================================ 1. the market
    cdef void reveal_cards(self) noexcept:
        """Everyone shows the card played; it goes to the face-up pile of used cards."""
        cdef KState* s = &self.s
        cdef int p
        for p in range(s.n):
            s.hand[p] &= ~(1u << s.choice[p])
            s.spy_bid[p] = 0
            s.scrap_bid[p] = 0
            s.art_bid[p] = 0
            if s.tracking:
                ih_public(&s.ih, (<uint64_t>EV_CARDS << 56) | (<uint64_t>p << 32) | <uint64_t>s.choice[p])
                self.note(N_CARD, p, s.choice[p], 0)
        s.step = ST_SPY
        s.seat_iter = 0

    cdef int next_with(self, int card) noexcept:
        cdef KState* s = &self.s
        cdef int q
        for q in range(s.seat_iter, s.n):
            if s.choice[q] == card:
                return q
        return -1

    cdef void reveal_bids(self, int card, int* bids) noexcept:
        cdef KState* s = &self.s
        cdef int p
        for p in range(s.n):
            if s.choice[p] == card:
                s.hand[p] &= ~(1u << bids[p])
                if s.tracking:
                    ih_public(&s.ih, (<uint64_t>EV_BIDS << 56) | (<uint64_t>card << 40)
                              | (<uint64_t>p << 32) | <uint64_t>bids[p])

    cdef void advance(self) noexcept:
        """Run the automatic steps of the turn until a player must decide."""
        cdef KState* s = &self.s
        cdef int q, w
        while True:
            if s.step == ST_SPY:
                q = self.next_with(C_SPY)
                if q >= 0:
                    s.phase = PH_SPY
                    s.actor = q
                    return
                self.reveal_bids(C_SPY, s.spy_bid)
                if s.tracking:
                    for q in range(s.n):
                        if s.choice[q] == C_SPY:
                            self.note(N_SPYBID, q, s.spy_bid[q], 0)
                s.step = ST_AUCTION
            elif s.step == ST_AUCTION:
                self.auction()
                s.step = ST_SCRAP
                s.seat_iter = 0
            elif s.step == ST_SCRAP:
                q = self.next_with(C_SCRAP)
                if q >= 0:
                    s.phase = PH_SCRAPBID
                    s.actor = q
                    return
                self.reveal_bids(C_SCRAP, s.scrap_bid)
                w = self.side_winner(C_SCRAP, s.scrap_bid, True)
                s.step = ST_ART
                s.seat_iter = 0
                if w >= 0 and self.board_scraps() > 0:
                    s.phase = PH_SCRAPPICK
                    s.actor = w
                    if s.tracking:
                        self.see_board(w)
                    return
            elif s.step == ST_ART:
                q = self.next_with(C_ART)
                if q >= 0:
                    s.phase = PH_ARTBID
                    s.actor = q
                    return
                self.reveal_bids(C_ART, s.art_bid)
                w = self.side_winner(C_ART, s.art_bid, False)
                s.step = ST_PLACE
                if w >= 0 and self.free_tokens() > 0:
                    s.phase = PH_TOKENPICK
                    s.actor = w
                    return
            elif s.step == ST_PLACE:
                if s.n_to_place > 0:
                    self.start_place(s.placer, PS_WON, dom_a(s.to_place[0]), dom_b(s.to_place[0]),
                                     -1, s.to_place[0] >= ID_PERF)
                    return
                s.step = ST_WINDOW
                s.seat_iter = 0
            elif s.step == ST_WINDOW:
                for q in range(s.seat_iter, s.n):
                    if self.has_options(q):
                        s.seat_iter = q
                        s.phase = PH_WINDOW
                        s.actor = q
                        return
                s.step = ST_END
            else:
                if self.end_turn():
                    return

    cdef void auction(self) noexcept:
        """Tied offers cancel out; the highest offer left wins every domino waiting."""
        cdef KState* s = &self.s
        cdef uint32_t once = 0, twice = 0, b
        cdef int p, v, best = 0, i
        for p in range(s.n):
            v = s.choice[p] if s.choice[p] <= GOLD_MAX else (s.spy_bid[p] if s.choice[p] == C_SPY else 0)
            if v:
                b = 1u << v
                twice |= once & b
                once |= b
        once &= ~twice
        s.winner = -1
        s.win_value = 0
        if once:
            best = 63 - __builtin_clzll(<unsigned long long>once)     # the highest offer left
            for p in range(s.n):
                if (s.choice[p] == best) or (s.choice[p] == C_SPY and s.spy_bid[p] == best):
                    s.winner = p
            s.win_value = best
            for i in range(s.n_pending):
                s.to_place[s.n_to_place] = s.pending[i]
                s.n_to_place += 1
            s.to_place[s.n_to_place] = s.on_table
            s.n_to_place += 1
            s.placer = s.winner
            if s.tracking:
                self.note(N_WIN, s.winner, best, s.n_pending + 1)
            s.n_pending = 0
        elif s.pile_pos == s.pile_len[s.day]:
            # the last auction of the day is tied: the domino (and any carried) is lost
            s.lost += s.n_pending + 1
            if s.tracking:
                self.note(N_TIE, -1, s.n_pending + 1, 1)
            s.n_pending = 0
        else:
            s.pending[s.n_pending] = s.on_table
            s.n_pending += 1
            if s.tracking:
                self.note(N_TIE, -1, s.n_pending, 0)
        s.on_table = -1

    cdef int side_winner(self, int card, int* bids, bint above) noexcept:
        """Scrap Bag (above) / Artisan (below): among the valid offers the highest / lowest wins;
        a tie there means nobody. Invalid ones were discards."""
        cdef KState* s = &self.s
        cdef int p, best = -1, count = 0, who = -1, v, bidders = 0
        cdef bint valid
        for p in range(s.n):
            if s.choice[p] == card:
                bidders += 1
        if bidders == 0:
            return -1
        for p in range(s.n):
            if s.choice[p] != card:
                continue
            v = bids[p]
            valid = v > s.win_value if above else v < s.win_value
            if s.tracking:
                self.note(N_SCRAPBID if above else N_ARTBID, p, v, valid)
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
        if s.tracking:
            self.note(N_SCRAPWIN if above else N_ARTWIN, who, best, 0)
        return who

    cdef int board_scraps(self) noexcept:
        cdef int t, n = 0
        for t in range(N_SCRAPS):
            if self.s.scrap_loc[t] == LOC_BOARD:
                n += 1
        return n

    cdef int free_tokens(self) noexcept:
        cdef int t, n = 0
        for t in range(N_TOKENS):
            if self.s.token_holder[t] < 0:
                n += 1
        return n

    cdef void pick_scrap(self, int p, int t) noexcept:
        """p looks at the scraps on the board and keeps one face down."""
        cdef KState* s = &self.s
        cdef int u, o
        s.scrap_loc[t] = LOC_HELD + p
        if not s.tracking:
            return
        ih_public(&s.ih, (<uint64_t>EV_SEARCHED << 56) | <uint64_t>p)
        self.note(N_SCRAPPICK, p, t, 0)
        s.where[p][t] = <u8>(1 << p)
        for o in range(s.n):
            if o == p:
                continue
            for u in range(N_SCRAPS):
                if s.where[o][u] & (1 << WHERE_BOARD):
                    s.where[o][u] |= <u8>(1 << p)

    cdef void see_board(self, int p) noexcept:
        """The Scrap Bag winner looks at the scraps on the board before it picks."""
        cdef KState* s = &self.s
        cdef int u
        cdef uint64_t board = 0
        for u in range(N_SCRAPS):
            if s.scrap_loc[u] == LOC_BOARD:
                s.where[p][u] = 1 << WHERE_BOARD
                board |= 1u << u
            elif s.scrap_loc[u] == LOC_HELD + p:
                s.where[p][u] = <u8>(1 << p)
            else:
                s.where[p][u] &= ~(1 << WHERE_BOARD)
        ih_private(&s.ih, 1u << p, (<uint64_t>EV_SCRAP << 56) | board)

    # ============================================================ 2. the weaving
    cdef void start_place(self, int p, int src, int a, int b, int fixdir, int perf) noexcept:
        cdef KState* s = &self.s
        s.phase = PH_PLACE
        s.actor = p
        s.place_src = src
        s.pl_a = a
        s.pl_b = b
        s.pl_dir = fixdir
        s.pl_perf = perf

    cdef int compute_slots(self, Kil* k, u128* hs, u128* vs) noexcept:
        """Free horizontal / vertical domino positions touching the Kilim, by rows (anchor =
        top or left cell). Returns the number of rows filled."""
        cdef u128 o[H + 4]
        cdef u128 e, e2, t, t2, cm = colmask()
        cdef int nr = k.rmax + 2, r
        if nr > H - 4:
            nr = H - 4
        o[0] = 0
        for r in range(nr + 2):
            o[r + 1] = occ(k, r)
        o[nr + 3] = 0
        for r in range(nr):
            e = ~o[r + 1] & cm
            e2 = ~o[r + 2] & cm
            t = e & ((o[r + 1] << 1) | (o[r + 1] >> 1) | o[r] | o[r + 2])
            t2 = e2 & ((o[r + 2] << 1) | (o[r + 2] >> 1) | o[r + 1] | o[r + 3])
            hs[r] = e & (e >> 1) & (t | (t >> 1))
            vs[r] = e & e2 & (t | t2)
        return nr

    cdef int gen_place(self, int* buf, int want) noexcept:
        """Placements of the pending domino: written to buf (ascending) if buf is not NULL;
        with want >= 0, the want-th move is returned instead. Otherwise returns the count."""
        cdef KState* s = &self.s
        cdef Kil* k = &s.k[s.actor]
        cdef u128 hs[H]
        cdef u128 vs[H]
        cdef u128 both, x
        cdef int nflip = 1 if (s.pl_a == s.pl_b or s.place_src == PS_MOVE) else 2
        cdef int nr, r, c, d, f, n = 0, cnt
        cdef int mv
        if k.n_cells == 0:
            for d in range(2):
                if s.pl_dir >= 0 and d != s.pl_dir:
                    continue
                for f in range(nflip):
                    mv = (K_PLACE << KSHIFT) | (ORG << 9) | (ORG << 2) | (d << 1) | f
                    if want == n:
                        return mv
                    if buf != NULL:
                        buf[n] = mv
                    n += 1
            return n
        nr = self.compute_slots(k, hs, vs)
        if s.pl_dir == 0:
            for r in range(nr):
                vs[r] = 0
        elif s.pl_dir == 1:
            for r in range(nr):
                hs[r] = 0
        if buf == NULL and want < 0:
            for r in range(nr):
                n += pc128(hs[r]) + pc128(vs[r])
            return n * nflip
        for r in range(nr):
            if buf == NULL:
                cnt = (pc128(hs[r]) + pc128(vs[r])) * nflip
                if want >= n + cnt:
                    n += cnt
                    continue
            both = hs[r] | vs[r]
            while both:
                c = low128(both)
                both &= both - 1
                for d in range(2):
                    x = hs[r] if d == 0 else vs[r]
                    if not (x >> c) & 1:
                        continue
                    for f in range(nflip):
                        mv = (K_PLACE << KSHIFT) | (r << 9) | (c << 2) | (d << 1) | f
                        if want == n:
                            return mv
                        if buf != NULL:
                            buf[n] = mv
                        n += 1
        return n

    cdef void add_domino(self, int p, int r, int c, int d, int a, int b) noexcept:
        cdef Kil* k = &self.s.k[p]
        k.m[a][r] |= bit(c)
        k.m[b][other_r(r, d)] |= bit(other_c(c, d))
        if d == 0:
            k.m[M_HL][r] |= bit(c)
        else:
            k.m[M_VL][r] |= bit(c)
        k.n_dom += 1
        if a == PERF:
            k.n_perf += 1

    cdef void take_domino(self, int p, int r, int c, int d) noexcept:
        cdef Kil* k = &self.s.k[p]
        if cell_code(k, r, c) == PERF:
            k.n_perf -= 1
        set_code(k, r, c, -1)
        set_code(k, other_r(r, d), other_c(c, d), -1)
        k.m[M_HL if d == 0 else M_VL][r] &= ~bit(c)
        k.n_dom -= 1

    cdef void place(self, int p, int r, int c, int d, int f) noexcept:
        cdef KState* s = &self.s
        cdef int a = s.pl_a, b = s.pl_b, src = s.place_src
        if f:
            a, b = b, a
        self.add_domino(p, r, c, d, a, b)
        self.normalize(p)
        if src == PS_WON:
            s.n_to_place -= 1
            memmove(&s.to_place[0], &s.to_place[1], s.n_to_place)
            if s.n_to_place == 0:
                s.placer = -1
        s.place_src = -1
        s.pl_dir = -1

    cdef void normalize(self, int p) noexcept:
        """Shift the Kilim so that its bounding box starts at (ORG, ORG); refresh its extent."""
        cdef KState* s = &self.s
        cdef Kil* k = &s.k[p]
        cdef int lim = (k.rmax if k.rmax > 3 else 3) + 5
        cdef int r, minr = -1, maxr = -1, dr, dc, i, t, cells = 0
        cdef u128 o, all_ = 0
        if lim > H:
            lim = H
        for r in range(lim):
            o = occ(k, r)
            if o:
                if minr < 0:
                    minr = r
                maxr = r
                all_ |= o
                cells += pc128(o)
        k.n_cells = cells
        if minr < 0:
            k.rmax = -1
            k.cmax = -1
            return
        dr = ORG - minr
        dc = ORG - low128(all_)
        if dr > 0:
            for i in range(N_MASKS):
                for r in range(maxr, minr - 1, -1):
                    k.m[i][r + dr] = k.m[i][r]
                for r in range(minr, minr + dr):
                    k.m[i][r] = 0
        elif dr < 0:
            for i in range(N_MASKS):
                for r in range(minr, maxr + 1):
                    k.m[i][r + dr] = k.m[i][r]
                for r in range(maxr + dr + 1, maxr + 1):
                    k.m[i][r] = 0
        if dc != 0:
            for i in range(N_MASKS):
                for r in range(ORG, maxr + dr + 1):
                    if dc > 0:
                        k.m[i][r] = (k.m[i][r] << dc) & colmask()
                    else:
                        k.m[i][r] = k.m[i][r] >> (-dc)
        if dr != 0 or dc != 0:
            for t in range(N_SCRAPS):
                if s.scrap_loc[t] == LOC_WOVEN + p:
                    s.scrap_r[t] += dr
                    s.scrap_c[t] += dc
        k.rmax = maxr + dr
        k.cmax = high128(all_) + dc

    # ------------------------------------------------------------ scraps
    cdef int scrap_at(self, int p, int r, int c) noexcept:
        """The scrap woven by p at (r, c), or -1."""
        cdef KState* s = &self.s
        cdef int t
        for t in range(N_SCRAPS):
            if s.scrap_loc[t] == LOC_WOVEN + p and s.scrap_r[t] == r and s.scrap_c[t] == c:
                return t
        return -1

    cdef u128 scrap_row(self, int p, int r) noexcept:
        cdef KState* s = &self.s
        cdef int t
        cdef u128 x = 0
        for t in range(N_SCRAPS):
            if s.scrap_loc[t] == LOC_WOVEN + p and s.scrap_r[t] == r:
                x |= bit(s.scrap_c[t])
        return x

    cdef u128 target_row(self, int p, int r) noexcept:
        """Cells of row r where a scrap may go: a woven pattern without a scrap, or a hole
        (an empty cell inside the bounding box)."""
        cdef Kil* k = &self.s.k[p]
        cdef u128 o = occ(k, r)
        cdef u128 box = (bit(k.cmax + 1) - 1) & ~(bit(ORG) - 1)
        return (o & ~self.scrap_row(p, r)) | (~o & box)

    cdef int gen_scrap_targets(self, int p, int* buf) noexcept:
        cdef Kil* k = &self.s.k[p]
        cdef int r, n = 0
        cdef u128 x
        if k.rmax < 0:
            return 0
        for r in range(ORG, k.rmax + 1):
            x = self.target_row(p, r)
            while x:
                if buf != NULL:
                    buf[n] = (K_SCRAPAT << KSHIFT) | (r << 7) | low128(x)
                n += 1
                x &= x - 1
        return n

    cdef void put_scrap(self, int p, int t, int r, int c) noexcept:
        cdef KState* s = &self.s
        cdef Kil* k = &s.k[p]
        s.scrap_under[t] = cell_code(k, r, c)
        set_code(k, r, c, t)
        s.scrap_loc[t] = LOC_WOVEN + p
        s.scrap_r[t] = r
        s.scrap_c[t] = c
        self.normalize(p)
        if s.tracking:
            for r in range(s.n):
                s.where[r][t] = 0

    cdef void lift_scrap(self, int p, int t) noexcept:
        """Take a woven scrap off: the pattern under it shows again (or the hole reopens)."""
        cdef KState* s = &self.s
        set_code(&s.k[p], s.scrap_r[t], s.scrap_c[t], s.scrap_under[t])
        s.scrap_r[t] = -1
        s.scrap_c[t] = -1
        s.scrap_under[t] = -1
        self.normalize(p)

    # ------------------------------------------------------------ Artisan tokens
    cdef bint free_domino(self, int p, int r, int c, int d) noexcept:
        """A domino without a scrap on it (Interpretation: a scrap holds its domino in place)."""
        return self.scrap_at(p, r, c) < 0 and self.scrap_at(p, other_r(r, d), other_c(c, d)) < 0

    cdef bint touches(self, Kil* k, int r, int c) noexcept:
        return (occupied(k, r - 1, c) or occupied(k, r + 1, c) or occupied(k, r, c - 1)
                or occupied(k, r, c + 1))

    cdef int rotate_options(self, int p, int r, int c, int d, int* opts) noexcept:
        """Ways to turn the domino at (r, c, d): 8 swaps its patterns in place; K * 4 + dir
        keeps half K where it is and swings the other half to that side of it."""
        cdef Kil* k = &self.s.k[p]
        cdef int a = cell_code(k, r, c), b = cell_code(k, other_r(r, d), other_c(c, d))
        cdef int n = 0, K, dirn, kr, kc, orr, oc, nr_, nc
        cdef bint alone
        self.take_domino(p, r, c, d)
        alone = True
        for kr in range(k.rmax + 2 if k.rmax >= 0 else 0):
            if occ(k, kr):
                alone = False
                break
        for K in range(2):
            kr = r if K == 0 else other_r(r, d)
            kc = c if K == 0 else other_c(c, d)
            orr = other_r(r, d) if K == 0 else r
            oc = other_c(c, d) if K == 0 else c
            for dirn in range(4):
                nr_ = kr + DR[dirn]
                nc = kc + DC[dirn]
                if nr_ == orr and nc == oc:
                    continue
                if nr_ < 0 or nc < 0 or nr_ >= H - 4 or nc > MAX_COL - 1:
                    continue
                if occupied(k, nr_, nc):
                    continue
                if alone or self.touches(k, kr, kc) or self.touches(k, nr_, nc):
                    opts[n] = K * 4 + dirn
                    n += 1
        if a != b:
            opts[n] = 8
            n += 1
        self.add_domino(p, r, c, d, a, b)
        return n

    cdef void rotate(self, int p, int anchor, int opt) noexcept:
        cdef Kil* k = &self.s.k[p]
        cdef int r = anchor >> 8, c = (anchor >> 1) & 127, d = anchor & 1
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

    cdef void remove_domino(self, int p, int anchor) noexcept:
        cdef KState* s = &self.s
        cdef int r = anchor >> 8, c = (anchor >> 1) & 127, d = anchor & 1
        if cell_code(&s.k[p], r, c) == PERF:
            s.removed_perf += 1
        else:
            s.removed_reg += 1
        self.take_domino(p, r, c, d)
        self.normalize(p)

    cdef void move_domino(self, int p, int anchor) noexcept:
        cdef KState* s = &self.s
        cdef int r = anchor >> 8, c = (anchor >> 1) & 127, d = anchor & 1
        cdef Kil* k = &s.k[p]
        cdef int a = cell_code(k, r, c), b = cell_code(k, other_r(r, d), other_c(c, d))
        self.take_domino(p, r, c, d)
        self.normalize(p)
        self.start_place(p, PS_MOVE, a, b, d, a == PERF)

    # ------------------------------------------------------------ the optional window
    cdef int held_scraps(self, int p) noexcept:
        cdef int t, n = 0
        for t in range(N_SCRAPS):
            if self.s.scrap_loc[t] == LOC_HELD + p:
                n += 1
        return n

    cdef bint has_options(self, int p) noexcept:
        cdef int buf[MAX_MOVES]
        cdef KState* s = &self.s
        cdef int t
        if s.perfect_held[p] > 0:
            return True
        if self.held_scraps(p) > 0 and self.gen_scrap_targets(p, NULL) > 0:
            return True
        for t in range(N_TOKENS):
            if s.token_holder[t] == p and not s.token_used[t]:
                return self.gen_window(p, buf) > 1
        return False

    cdef int gen_window(self, int p, int* buf) noexcept:
        """DONE, then every optional action of p, in ascending move order."""
        cdef KState* s = &self.s
        cdef Kil* k = &s.k[p]
        cdef int n = 0, t, r, c, d, i, no, anchor
        cdef int opts[9]
        cdef u128 x
        cdef bint rot = s.token_holder[TOK_ROTATE] == p and not s.token_used[TOK_ROTATE]
        cdef bint rem = s.token_holder[TOK_REMOVE] == p and not s.token_used[TOK_REMOVE]
        cdef bint mov = s.token_holder[TOK_MOVE] == p and not s.token_used[TOK_MOVE]
        cdef bint targets = self.gen_scrap_targets(p, NULL) > 0
        buf[n] = K_DONE << KSHIFT
        n += 1
        if s.token_holder[TOK_PERFECT] == p and not s.token_used[TOK_PERFECT] and s.perfect_supply > 0:
            buf[n] = K_TAKEPERF << KSHIFT
            n += 1
        if s.perfect_held[p] > 0:
            buf[n] = K_PLACEPERF << KSHIFT
            n += 1
        if targets:
            for t in range(N_SCRAPS):
                if s.scrap_loc[t] == LOC_HELD + p:
                    buf[n] = (K_SELSCRAP << KSHIFT) | t
                    n += 1
        if rot and k.n_dom > 0:
            for r in range(ORG, k.rmax + 1):
                x = k.m[M_HL][r] | k.m[M_VL][r]
                while x:
                    c = low128(x)
                    x &= x - 1
                    d = 0 if (k.m[M_HL][r] >> c) & 1 else 1
                    if not self.free_domino(p, r, c, d):
                        continue
                    no = self.rotate_options(p, r, c, d, opts)
                    anchor = (r << 8) | (c << 1) | d
                    for i in range(no):
                        buf[n] = (K_ROTATE << KSHIFT) | (anchor << 4) | opts[i]
                        n += 1
        if rem:
            n = self.list_dominoes(p, K_REMOVE, buf, n)
            for t in range(N_SCRAPS):
                if s.scrap_loc[t] == LOC_WOVEN + p:
                    buf[n] = (K_REMOVESCRAP << KSHIFT) | t
                    n += 1
        if mov:
            n = self.list_dominoes(p, K_MOVE, buf, n)
            for t in range(N_SCRAPS):
                if s.scrap_loc[t] == LOC_WOVEN + p and self.scrap_can_move(p, t):
                    buf[n] = (K_MOVESCRAP << KSHIFT) | t
                    n += 1
        return n

    cdef int list_dominoes(self, int p, int kind, int* buf, int n) noexcept:
        cdef Kil* k = &self.s.k[p]
        cdef int r, c, d
        cdef u128 x
        if k.n_dom == 0:
            return n
        for r in range(ORG, k.rmax + 1):
            x = k.m[M_HL][r] | k.m[M_VL][r]
            while x:
                c = low128(x)
                x &= x - 1
                d = 0 if (k.m[M_HL][r] >> c) & 1 else 1
                if self.free_domino(p, r, c, d):
                    buf[n] = (kind << KSHIFT) | (r << 8) | (c << 1) | d
                    n += 1
        return n

    cdef bint scrap_can_move(self, int p, int t) noexcept:
        """Whether a target is left for scrap t once it is lifted."""
        cdef KState* s = &self.s
        cdef Kil* k = &s.k[p]
        cdef int r = s.scrap_r[t], c = s.scrap_c[t], code = cell_code(k, r, c)
        cdef int n
        if s.scrap_under[t] >= 0:
            return True                     # the pattern under it is a target
        set_code(k, r, c, -1)
        s.scrap_loc[t] = LOC_OUT
        n = 0
        for r in range(ORG, k.rmax + 1):
            if occ(k, r) & ~self.scrap_row(p, r):
                n = 1
                break
        r = s.scrap_r[t]
        s.scrap_loc[t] = LOC_WOVEN + p
        set_code(k, r, c, code)
        return n > 0

    # ============================================================ 3. end of a turn, of a day
    cdef bint end_turn(self) noexcept:
        """Reveal the next domino, or end the day (cards and tokens come back), or the game.
        Returns True when a player must decide."""
        cdef KState* s = &self.s
        cdef int p, t
        for p in range(s.n):
            s.choice[p] = 0
            s.spy_bid[p] = 0
            s.scrap_bid[p] = 0
            s.art_bid[p] = 0
        s.turn += 1
        s.winner = -1
        s.win_value = 0
        if s.pile_pos >= s.pile_len[s.day]:
            if s.tracking:
                self.note(N_DAYEND, -1, s.day, 0)
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
                if s.tracking:
                    self.note(N_GAMEOVER, -1, 0, 0)
                return True
        self.reveal_domino()
        s.phase = PH_CARD
        s.actor = 0
        return True

    # ============================================================ scoring
    cdef int kilim_score(self, int p, int* largest, int* parts) noexcept:
        """Points of p's Kilim without the largest-group bonus; largest[t] gets the size of
        p's largest group of type t. parts (if not NULL): rectangle, types, groups, torn."""
        cdef Kil* k = &self.s.k[p]
        cdef u128 rem[H + 2]
        cdef u128 comp[H + 2]
        cdef u128 x
        cdef int t, r, rr, size, types = 0, groups = 0, torn = 0, rect = 0, tpts = 0
        cdef int lo, hi, top
        cdef bint changed
        for t in range(N_TYPES):
            largest[t] = 0
        if k.rmax < 0:
            if parts != NULL:
                parts[0] = parts[1] = parts[2] = parts[3] = 0
            return 0
        top = k.rmax
        if k.n_cells == (top - ORG + 1) * (k.cmax - ORG + 1):
            rect = PT_RECT
        for r in range(ORG, top + 1):
            torn += pc128(k.m[TORN][r])
        for rr in range(top + 2):
            comp[rr] = 0
        for t in range(N_TYPES):
            x = 0
            for r in range(ORG, top + 1):
                rem[r] = k.m[t][r]
                x |= rem[r]
            rem[ORG - 1] = 0
            rem[top + 1] = 0
            if x == 0:
                continue
            types += 1
            for r in range(ORG, top + 1):
                while rem[r]:
                    comp[r] = rem[r] & (~rem[r] + 1)
                    lo = r
                    hi = r
                    changed = True
                    while changed:
                        changed = False
                        if lo > ORG:
                            lo -= 1
                        if hi < top:
                            hi += 1
                        for rr in range(lo, hi + 1):
                            x = (comp[rr] | (comp[rr] << 1) | (comp[rr] >> 1) | comp[rr - 1]
                                 | comp[rr + 1]) & rem[rr]
                            if x != comp[rr]:
                                comp[rr] = x
                                changed = True
                        for rr in range(hi, lo - 1, -1):
                            x = (comp[rr] | (comp[rr] << 1) | (comp[rr] >> 1) | comp[rr - 1]
                                 | comp[rr + 1]) & rem[rr]
                            if x != comp[rr]:
                                comp[rr] = x
                                changed = True
                    size = 0
                    for rr in range(lo, hi + 1):
                        size += pc128(comp[rr])
                        rem[rr] &= ~comp[rr]
                        comp[rr] = 0
                    if size >= 2:
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

    cdef void all_scores(self, int* out, int* bonus) noexcept:
        """Final points of every player, the largest-group bonus (in bonus) included: +5 for
        each pattern whose largest group (2 or more) p has, tied leaders all scoring."""
        cdef KState* s = &self.s
        cdef int largest[5][5]
        cdef int best[5]
        cdef int p, t
        for t in range(N_TYPES):
            best[t] = 1
        for p in range(s.n):
            out[p] = self.kilim_score(p, largest[p], NULL)
            for t in range(N_TYPES):
                if largest[p][t] > best[t]:
                    best[t] = largest[p][t]
        for p in range(s.n):
            bonus[p] = 0
            for t in range(N_TYPES):
                if best[t] >= 2 and largest[p][t] == best[t]:
                    bonus[p] += PT_LARGEST
            out[p] += bonus[p]

    cdef void get_rewards(self, double* out) noexcept:
        cdef int sc[5]
        cdef int bonus[5]
        cdef long long key[5]
        cdef int p
        self.all_scores(sc, bonus)
        for p in range(self.s.n):
            key[p] = <long long>sc[p] * 1000 + self.s.k[p].n_cells    # tie-break: largest Kilim
        win_shares(key, self.s.n, out)

    # ============================================================ copying
    cdef void* raw_state(self) noexcept:
        return &self.s

    cdef size_t raw_size(self) noexcept:
        return sizeof(KState)

    # ============================================================ information
    cdef uint32_t pending_options(self, int q) noexcept:
        """The choices q may have made face down at this point (empty if q has none pending)."""
        cdef KState* s = &self.s
        if s.phase == PH_CARD:
            return s.hand[q] if q < s.actor else 0
        if s.phase == PH_SPY and s.choice[q] == C_SPY and q < s.actor:
            return self.bid_options(q, PH_SPY)
        if s.phase == PH_SCRAPBID and s.choice[q] == C_SCRAP and q < s.actor:
            return self.bid_options(q, PH_SCRAPBID)
        if s.phase == PH_ARTBID and s.choice[q] == C_ART and q < s.actor:
            return self.bid_options(q, PH_ARTBID)
        return 0

    cdef void resample(self, int o, Rng* rng) noexcept:
        """Redraw everything o cannot see: the others' face-down choices of this step, the
        scraps held face down and left on the board (respecting what o saw), the order and
        contents of every pile (which dominoes were removed or replaced)."""
        cdef KState* s = &self.s
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
                v = nth_bit(opts, rng_below(rng, popcount(opts)))
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
                for i in range(self.held_scraps(q)):
                    slots[ns] = q
                    ns += 1
        for i in range(self.board_scraps()):
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
            if ok:
                break
        if not ok:                              # never expected: a consistent assignment by search
            self.assign_scraps(o, unknown, slots, perm, nu)
        for i in range(nu):
            s.scrap_loc[unknown[i]] = LOC_BOARD if perm[i] == WHERE_BOARD else LOC_HELD + perm[i]
        for q in range(s.n):                    # Interpretation: the others' knowledge is not modelled
            if q == o:
                continue
            for t in range(N_SCRAPS):
                if s.scrap_loc[t] == LOC_HELD + q or s.scrap_loc[t] == LOC_SEL + q:
                    s.where[q][t] = <u8>(1 << q)
                elif s.scrap_loc[t] == LOC_BOARD or (s.scrap_loc[t] >= LOC_HELD and s.scrap_loc[t] < LOC_HELD + 5):
                    s.where[q][t] = <u8>(((1 << s.n) - 1) & ~(1 << q) | (1 << WHERE_BOARD))
                else:
                    s.where[q][t] = 0
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

    cdef void assign_scraps(self, int o, int* unknown, int* slots, int* perm, int nu) noexcept:
        """Backtracking over the (at most 5!) assignments, for the improbable rejection miss."""
        cdef int i, j, tries
        cdef bint used[5]
        cdef int depth = 0
        cdef int choice_at[5]
        for i in range(5):
            used[i] = False
            choice_at[i] = -1
        while 0 <= depth < nu:
            j = choice_at[depth] + 1
            if choice_at[depth] >= 0:
                used[choice_at[depth]] = False
            while j < nu and (used[j] or not (self.s.where[o][unknown[depth]] >> slots[j]) & 1):
                j += 1
            if j >= nu:
                choice_at[depth] = -1
                depth -= 1
                continue
            choice_at[depth] = j
            used[j] = True
            perm[depth] = slots[j]
            depth += 1
        if depth < 0:                              # inconsistent knowledge: keep slot order
            for i in range(nu):
                perm[i] = slots[i]

    cdef void resample_piles(self, Rng* rng) noexcept:
        cdef KState* s = &self.s
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

    # ============================================================ Python API
    @property
    def phase(self) -> str:
        return ("card", "spy", "scrap-bid", "artisan-bid", "scrap-pick", "token-pick", "place",
                "window", "scrap-at", "over")[self.s.phase]

    @property
    def day(self) -> int:
        return self.s.day

    @property
    def turn(self) -> int:
        return self.s.turn

    @property
    def event_count(self) -> int:
        return self.s.n_ev

    def scores(self) -> list:
        """Current points of every Kilim, the largest-group bonuses included."""
        cdef int sc[5]
        cdef int bonus[5]
        self.all_scores(sc, bonus)
        return [sc[p] for p in range(self.s.n)]

    def score_lines(self, int p) -> dict:
        """The rulebook's score lines for player p."""
        self._check_player(p)
        cdef int sc[5]
        cdef int bonus[5]
        cdef int largest[5]
        cdef int parts[4]
        self.all_scores(sc, bonus)
        self.kilim_score(p, largest, parts)
        return {"rectangle": parts[0], "types": parts[1], "adjacent": parts[2],
                "largest_group": bonus[p], "torn": parts[3], "total": sc[p]}

    def largest_groups(self, int p) -> list:
        self._check_player(p)
        cdef int largest[5]
        self.kilim_score(p, largest, NULL)
        return [largest[t] for t in range(N_TYPES)]

    def kilim_size(self, int p) -> int:
        self._check_player(p)
        return self.s.k[p].n_cells

    def ranking(self) -> list:
        """Final places (1 = first): points, then the largest Kilim; fully tied share a place."""
        sc = self.scores()
        keys = [(sc[p], self.s.k[p].n_cells) for p in range(self.s.n)]
        return [1 + sum(1 for k in keys if k > keys[p]) for p in range(self.s.n)]

    def move_to_text(self, int move) -> str:
        kind = move >> KSHIFT
        x = move & ((1 << KSHIFT) - 1)
        if kind == K_CARD:
            return card_text(x)
        if kind == K_BID:
            return f"gold-{x}"
        if kind == K_SCRAPPICK:
            return f"scrap-{CODE_LETTERS[x]}"
        if kind == K_TOKENPICK:
            return f"token-{TOKEN_NAMES[x]}"
        if kind == K_PLACE:
            r, c, d, f = (x >> 9) & 127, (x >> 2) & 127, (x >> 1) & 1, x & 1
            a, b = self.s.pl_a, self.s.pl_b
            if f:
                a, b = b, a
            return f"place@{r - ORG},{c - ORG}{'hv'[d]}:{CODE_LETTERS[a]}{CODE_LETTERS[b]}"
        if kind == K_DONE:
            return "done"
        if kind == K_TAKEPERF:
            return "take-perfect"
        if kind == K_PLACEPERF:
            return "weave-perfect"
        if kind == K_SELSCRAP:
            return f"weave-scrap-{CODE_LETTERS[x]}"
        if kind == K_ROTATE:
            a, opt = x >> 4, x & 15
            how = "swap" if opt == 8 else f"keep{opt // 4 + 1}-{('up', 'right', 'down', 'left')[opt & 3]}"
            return f"rotate@{anchor_text(a)}:{how}"
        if kind == K_REMOVE:
            return f"remove@{anchor_text(x)}"
        if kind == K_REMOVESCRAP:
            return f"remove-scrap-{CODE_LETTERS[x]}"
        if kind == K_MOVE:
            return f"move@{anchor_text(x)}"
        if kind == K_MOVESCRAP:
            return f"move-scrap-{CODE_LETTERS[x]}"
        if kind == K_SCRAPAT:
            return f"scrap@{(x >> 7) - ORG},{(x & 127) - ORG}"
        return f"?{move}"

    # ------------------------------------------------------------ JSON
    def kilim_json(self, int p) -> dict:
        """p's Kilim: dominoes [row, col, 'h'|'v', halves] (top/left half first, the patterns
        under any scrap) and scraps [type, row, col]; rows and columns from the bounding box."""
        cdef KState* s = &self.s
        cdef Kil* k = &s.k[p]
        cdef int r, c, dv
        doms = []
        under = {}
        for t in range(N_SCRAPS):
            if s.scrap_loc[t] == LOC_WOVEN + p:
                under[(s.scrap_r[t], s.scrap_c[t])] = s.scrap_under[t]
        if k.rmax >= 0:
            for r in range(ORG, k.rmax + 1):
                for c in range(ORG, k.cmax + 1):
                    for dv in range(2):
                        if has_bit(k.m[M_HL + dv][r], c):
                            d = dv
                            r2 = r + d
                            c2 = c + 1 - d
                            a = under.get((r, c), cell_code(k, r, c))
                            b = under.get((r2, c2), cell_code(k, r2, c2))
                            doms.append([r - ORG, c - ORG, "hv"[d], CODE_LETTERS[a] + CODE_LETTERS[b]])
        scraps = [[CODE_LETTERS[t], s.scrap_r[t] - ORG, s.scrap_c[t] - ORG]
                  for t in range(N_SCRAPS) if s.scrap_loc[t] == LOC_WOVEN + p]
        return {"dominoes": doms, "scraps": scraps}

    def kilim_rows(self, int p) -> list:
        """p's Kilim as text rows: A-E patterns, X torn, P perfect, '.' a hole."""
        cdef Kil* k = &self.s.k[p]
        rows = []
        if k.rmax < 0:
            return rows
        for r in range(ORG, k.rmax + 1):
            rows.append("".join("." if cell_code(k, r, c) < 0 else CODE_LETTERS[cell_code(k, r, c)]
                                for c in range(ORG, k.cmax + 1)))
        return rows

    def player_json(self, int p, bint mine, scores=None) -> dict:
        """Seat p's part of to_json: everything public, and its face-down parts if `mine`."""
        cdef KState* s = &self.s
        self._check_player(p)
        held = [CODE_LETTERS[t] for t in range(N_SCRAPS) if s.scrap_loc[t] == LOC_HELD + p]
        d = {
            "hand": hand_list(s.hand[p]),
            "has_chosen": bool(self.pending_choice_made(p)),
            "perfect_held": s.perfect_held[p],
            "scraps_held_count": len(held),
            "kilim": self.kilim_json(p),
            "score": (self.scores() if scores is None else scores)[p],
        }
        if mine:
            d["scraps_held"] = held
            d["choice"] = card_text(s.choice[p]) if s.choice[p] else None
            d["spy_bid"] = s.spy_bid[p]
            d["scrap_bid"] = s.scrap_bid[p]
            d["artisan_bid"] = s.art_bid[p]
        else:
            # revealed choices are public; pending face-down ones are not
            d["choice"] = card_text(s.choice[p]) if s.choice[p] and s.phase != PH_CARD else None
            d["spy_bid"] = s.spy_bid[p] if s.phase > PH_SPY else 0
            d["scrap_bid"] = s.scrap_bid[p] if s.phase > PH_SCRAPBID else 0
            d["artisan_bid"] = s.art_bid[p] if s.phase > PH_ARTBID else 0
        return d

    def to_json(self, view=None) -> dict:
        """The full state, or (view = a player) what that player knows: hidden parts left out."""
        cdef KState* s = &self.s
        if view is not None:
            self._check_player(view)
        full = view is None
        sc = self.scores()
        players = [self.player_json(p, full or p == view, sc) for p in range(s.n)]
        out = {
            "game": "kilim", "players": s.n, "seed": self.seed, "day": s.day, "turn": s.turn,
            "phase": self.phase, "to_move": self.current(), "step": s.step,
            "seat_iter": s.seat_iter,
            "on_table": domino_text(s.on_table) if s.on_table >= 0 else None,
            "pending": [domino_text(s.pending[i]) for i in range(s.n_pending)],
            "to_place": [domino_text(s.to_place[i]) for i in range(s.n_to_place)],
            "placer": s.placer, "winner": s.winner, "win_value": s.win_value,
            "lost": s.lost, "removed": [s.removed_reg, s.removed_perf],
            "revealed": [domino_text(i) for i in range(ID_PERF) if (s.revealed >> i) & 1],
            "torn_in": [s.torn_in[g] for g in range(3)],
            "torn_seen": [s.torn_seen[g] for g in range(3)],
            "pile_counts": [self.pile_remaining(g) for g in range(3)],
            "tokens": [{"token": TOKEN_NAMES[t], "holder": s.token_holder[t],
                        "used": bool(s.token_used[t])} for t in range(N_TOKENS)],
            "perfect_supply": s.perfect_supply,
            "scraps_on_board_count": self.board_scraps(),
            "scraps_woven": {CODE_LETTERS[t]: s.scrap_loc[t] - LOC_WOVEN for t in range(N_SCRAPS)
                             if LOC_WOVEN <= s.scrap_loc[t] < LOC_WOVEN + 5},
            "scraps_out": [CODE_LETTERS[t] for t in range(N_SCRAPS) if s.scrap_loc[t] == LOC_OUT],
            "scrap_in_hand": ([CODE_LETTERS[s.sel_scrap], s.scrap_loc[s.sel_scrap] - LOC_SEL]
                              if s.phase == PH_SCRAPAT else None),
            "placing": ({"source": ("won", "perfect", "move")[s.place_src],
                         "halves": CODE_LETTERS[s.pl_a] + CODE_LETTERS[s.pl_b],
                         "direction": s.pl_dir} if s.phase == PH_PLACE else None),
            "player_state": players,
        }
        if full:
            out["piles"] = [[domino_text(s.piles[g][i]) for i in
                             range(s.pile_pos if g == s.day else 0, s.pile_len[g])]
                            if g >= s.day else [] for g in range(3)]
            out["scraps_on_board"] = [CODE_LETTERS[t] for t in range(N_SCRAPS)
                                      if s.scrap_loc[t] == LOC_BOARD]
        else:
            del out["seed"]                        # the deal seed would give away every hidden part
            out["view"] = view
            out["scrap_whereabouts"] = {
                CODE_LETTERS[t]: [("board" if q == WHERE_BOARD else q) for q in range(6)
                                  if (s.where[view][t] >> q) & 1]
                for t in range(N_SCRAPS)
                if s.scrap_loc[t] == LOC_BOARD or (LOC_HELD <= s.scrap_loc[t] < LOC_HELD + 5
                                                   and s.scrap_loc[t] != LOC_HELD + view)}
        return out

    cdef int pile_remaining(self, int g) noexcept:
        if g < self.s.day:
            return 0
        if g == self.s.day:
            return self.s.pile_len[g] - self.s.pile_pos
        return self.s.pile_len[g]

    cdef bint pending_choice_made(self, int p) noexcept:
        cdef KState* s = &self.s
        if s.phase == PH_CARD:
            return p < s.actor
        return self.pending_options(p) != 0

    @classmethod
    def from_json(cls, d: dict) -> "Kilim":
        """Rebuild a full state written by to_json(); ValueError if it is malformed or impossible."""
        try:
            if d.get("game") != "kilim":
                raise ValueError("not a Kilim state")
            st = cls(d["players"], d.get("seed", 0))
            (<Kilim>st).load(d)
            st.check_invariants()
        except (KeyError, TypeError, IndexError, AssertionError, AttributeError, OverflowError) as e:
            raise ValueError(f"impossible or malformed Kilim state: {e!r}") from None
        return st

    @classmethod
    def from_view(cls, v) -> "Kilim":
        """A full state consistent with one seat's view (to_json(view=seat)), for searching as
        that seat: the hidden parts (pile order and contents, the scraps held face down or left
        on the board, the others' face-down choices of this step) are filled in a fixed order
        that respects what the seat knows (the search redraws them anyway); the seat's scrap
        knowledge and information hashes come from the view. ValueError if the view is
        malformed, of another game, or impossible."""
        return kilim_from_view(cls, v)

    cdef void adopt_view(self, int o, dict masks, uint64_t public, uint64_t private) noexcept:
        """Knowledge and information hashes of seat o as given by a view (no history): o's
        scrap knowledge from `masks` (letter -> bit mask of places, for the scraps o cannot
        see), the others' knowledge left as load() sets it (resample rebuilds it anyway)."""
        cdef KState* s = &self.s
        cdef int a, c, t, loc
        for t in range(N_SCRAPS):
            loc = s.scrap_loc[t]
            if loc == LOC_BOARD or (LOC_HELD <= loc < LOC_HELD + 5 and loc != LOC_HELD + o):
                s.where[o][t] = <u8>masks.get(CODE_LETTERS[t], 0)
            elif loc == LOC_HELD + o:
                s.where[o][t] = <u8>(1 << o)
            else:
                s.where[o][t] = 0
        ih_reset(&s.ih, <uint64_t>s.n + 0x4B11)
        s.ih.public = public
        for a in range(s.n):
            for c in range(s.n):
                s.ih.pair[a][c] = mix64(public + <uint64_t>(a * 7 + c * 13 + 1))
        s.ih.pair[o][o] = private

    @cython.boundscheck(True)
    @cython.wraparound(True)
    cdef void load(self, dict d) except *:
        """Fill the state from a full to_json() dict. Every index written into a C array is
        range-checked here first (ValueError), the rest is left to check_invariants."""
        cdef KState* s = &self.s
        cdef int n = d["players"]
        phases = ("card", "spy", "scrap-bid", "artisan-bid", "scrap-pick", "token-pick", "place",
                  "window", "scrap-at", "over")
        if d["phase"] not in phases:
            raise ValueError(f"unknown phase {d['phase']!r}")
        s.phase = phases.index(d["phase"])
        s.day = d["day"]
        s.turn = d["turn"]
        if not 0 <= s.day <= 3 or (s.day == 3) != (s.phase == PH_OVER):
            raise ValueError("day and phase do not match")
        if s.turn < 0:
            raise ValueError("negative turn")
        s.actor = d["to_move"] if s.phase != PH_OVER else -1
        if s.phase != PH_OVER and not 0 <= s.actor < n:
            raise ValueError("bad player to move")
        s.step = d["step"]
        s.seat_iter = d["seat_iter"]
        if not ST_SPY <= s.step <= ST_END or not 0 <= s.seat_iter <= n:
            raise ValueError("bad step of the turn")
        s.on_table = parse_domino(d["on_table"]) if d["on_table"] is not None else -1
        if len(d["pending"]) > GROUP_SIZE or len(d["to_place"]) > GROUP_SIZE:
            raise ValueError("more dominoes waiting than a day holds")
        s.n_pending = len(d["pending"])
        for i, t in enumerate(d["pending"]):
            s.pending[i] = parse_domino(t)
        s.n_to_place = len(d["to_place"])
        for i, t in enumerate(d["to_place"]):
            s.to_place[i] = parse_domino(t)
        s.placer = d["placer"]
        s.winner = d["winner"]
        s.win_value = d["win_value"]
        if not -1 <= s.placer < n or not -1 <= s.winner < n or (s.n_to_place > 0) != (s.placer >= 0):
            raise ValueError("bad auction winner or placer")
        if not 0 <= s.win_value <= s.gold_max:
            raise ValueError("bad winning offer")
        s.lost = d["lost"]
        s.removed_reg, s.removed_perf = d["removed"]
        s.revealed = 0
        for t in d["revealed"]:
            s.revealed |= (<uint64_t>1) << parse_domino(t)
        for g in range(3):
            s.torn_seen[g] = d["torn_seen"][g]
            if d["torn_in"][g] != s.torn_in[g]:
                raise ValueError("torn carpets per group do not match the player count")
        if len(d["piles"]) != 3:
            raise ValueError("three piles")
        for g in range(3):
            pile = d["piles"][g]
            if len(pile) > 15:
                raise ValueError("pile too long")
            s.pile_len[g] = len(pile)
            for i, t in enumerate(pile):
                s.piles[g][i] = parse_domino(t)
        s.pile_pos = 0        # the current pile holds only its unrevealed part
        if len(d["tokens"]) != N_TOKENS:
            raise ValueError("four Artisan tokens")
        for t in range(N_TOKENS):
            tok = d["tokens"][t]
            if tok["token"] != TOKEN_NAMES[t]:
                raise ValueError(f"token {t} is {TOKEN_NAMES[t]}, not {tok['token']!r}")
            s.token_holder[t] = tok["holder"]
            s.token_used[t] = 1 if tok["used"] else 0
        s.perfect_supply = d["perfect_supply"]
        for t in range(N_SCRAPS):
            s.scrap_loc[t] = LOC_BOARD
            s.scrap_r[t] = s.scrap_c[t] = s.scrap_under[t] = -1
        if not isinstance(d["player_state"], list) or len(d["player_state"]) != n:
            raise ValueError("one player_state per player")
        for p, ps in enumerate(d["player_state"]):
            s.hand[p] = hand_mask(ps["hand"], s.gold_max)
            s.choice[p] = parse_card(ps["choice"]) if ps["choice"] else 0
            if s.gold_max < s.choice[p] <= GOLD_MAX:
                raise ValueError(f"no {ps['choice']} in this game")
            s.spy_bid[p] = ps["spy_bid"]
            s.scrap_bid[p] = ps["scrap_bid"]
            s.art_bid[p] = ps["artisan_bid"]
            for v in (s.spy_bid[p], s.scrap_bid[p], s.art_bid[p]):
                if not 0 <= v <= s.gold_max:
                    raise ValueError(f"bad Gold card {v}")
            s.perfect_held[p] = ps["perfect_held"]
            for letter in ps["scraps_held"]:
                s.scrap_loc[scrap_type(letter)] = LOC_HELD + p
            self.load_kilim(p, ps["kilim"])
        for letter in d["scraps_out"]:
            s.scrap_loc[scrap_type(letter)] = LOC_OUT
        if (s.phase == PH_SCRAPAT) != bool(d.get("scrap_in_hand")):
            raise ValueError("a scrap is in hand exactly while it is being placed")
        if d.get("scrap_in_hand"):
            t = scrap_type(d["scrap_in_hand"][0])
            q = d["scrap_in_hand"][1]
            if not 0 <= q < n:
                raise ValueError("bad holder of the scrap in hand")
            s.scrap_loc[t] = LOC_SEL + q
            s.sel_scrap = t
        if (s.phase == PH_PLACE) != bool(d.get("placing")):
            raise ValueError("a domino is being placed exactly in the place phase")
        if d.get("placing"):
            pl = d["placing"]
            s.place_src = ("won", "perfect", "move").index(pl["source"])
            if len(pl["halves"]) != 2:
                raise ValueError(f"bad halves {pl['halves']!r}")
            s.pl_a = CODE_LETTERS.index(pl["halves"][0])
            s.pl_b = CODE_LETTERS.index(pl["halves"][1])
            s.pl_dir = pl["direction"]
            if s.pl_dir not in (-1, 0, 1):
                raise ValueError("bad direction of the domino being placed")
            s.pl_perf = s.pl_a == PERF
        # Knowledge is not part of a full state: every player knows only its own scraps.
        for o in range(n):
            for t in range(N_SCRAPS):
                if s.scrap_loc[t] == LOC_HELD + o or s.scrap_loc[t] == LOC_SEL + o:
                    s.where[o][t] = <u8>(1 << o)
                else:
                    s.where[o][t] = <u8>(((1 << n) - 1) & ~(1 << o) | (1 << WHERE_BOARD))

    @cython.boundscheck(True)
    @cython.wraparound(True)
    cdef void load_kilim(self, int p, dict kj) except *:
        cdef KState* s = &self.s
        cdef Kil* k = &s.k[p]
        memset(k, 0, sizeof(Kil))
        k.rmax = -1
        k.cmax = -1
        for r, c, dd, halves in kj["dominoes"]:
            r += ORG + 2
            c += ORG + 2
            dv = "hv".index(dd)
            if len(halves) != 2 or not (0 <= r < H - 8 and 0 <= c < MAX_COL - 8):
                raise ValueError(f"bad domino {halves!r} at {r}, {c}")
            r2, c2 = other_r(r, dv), other_c(c, dv)
            if occupied(k, r, c) or occupied(k, r2, c2):
                raise ValueError("two dominoes overlap")
            a, b = CODE_LETTERS.index(halves[0]), CODE_LETTERS.index(halves[1])
            if (a == PERF) != (b == PERF) or (a == TORN and b == TORN):
                raise ValueError(f"no such domino {halves!r}")
            self.add_domino(p, r, c, dv, a, b)
            k.rmax = max(k.rmax, r2)
        for letter, r, c in kj["scraps"]:
            t = scrap_type(letter)
            if s.scrap_loc[t] != LOC_BOARD:
                raise ValueError(f"scrap {letter} placed twice")
            r += ORG + 2
            c += ORG + 2
            if not (0 <= r < H - 8 and 0 <= c < MAX_COL - 8):
                raise ValueError("scrap off the grid")
            s.scrap_under[t] = cell_code(k, r, c)
            set_code(k, r, c, t)
            s.scrap_loc[t] = LOC_WOVEN + p
            s.scrap_r[t] = r
            s.scrap_c[t] = c
            k.rmax = max(k.rmax, r)
        self.normalize(p)

    def check_invariants(self) -> None:
        """Raise AssertionError if any component is lost, duplicated or negative."""
        cdef KState* s = &self.s
        cdef Kil* k
        cdef int r, t, c, links, cells, p
        cdef u128 o, hl, vl, member, x
        n = s.n
        full = self.full_hand()
        for p in range(n):
            assert s.hand[p] & ~full == 0, "unknown card in a hand"
            if s.choice[p]:
                assert s.phase != PH_CARD or (s.hand[p] >> s.choice[p]) & 1, "chosen card not in hand"
        # dominoes
        in_piles = 0
        for g in range(s.day, 3):
            start = s.pile_pos if g == s.day else 0
            torn = 0
            for i in range(start, s.pile_len[g]):
                dd = s.piles[g][i]
                assert 0 <= dd < ID_PERF, "bad domino in a pile"
                assert not (in_piles >> dd) & 1 and not (s.revealed >> dd) & 1, "domino twice"
                in_piles |= 1 << dd
                if dd < N_REGULAR:
                    assert dd // GROUP_SIZE == g, "domino in the wrong pile"
                else:
                    torn += 1
            assert torn + s.torn_seen[g] == s.torn_in[g], "torn carpets lost"
            expected = GROUP_SIZE - (DUEL_REMOVED if n == 2 else 0)
            assert s.pile_len[g] - start + self.revealed_from(g) == expected, "pile size"
        for g in range(min(s.day, 3)):
            expected = GROUP_SIZE - (DUEL_REMOVED if n == 2 else 0)
            assert self.revealed_from(g) == expected, "a past pile not fully revealed"
        placed = 0
        perf_woven = 0
        for p in range(n):
            k = &s.k[p]
            links = 0
            cells = 0
            covered = {(s.scrap_r[t], s.scrap_c[t]) for t in range(N_SCRAPS) if s.scrap_loc[t] == LOC_WOVEN + p}
            for r in range(H):
                o = 0
                for t in range(N_CODES):
                    assert (o & k.m[t][r]) == 0, "a cell holds two patterns"
                    o |= k.m[t][r]
                cells += pc128(o)
                hl = k.m[M_HL][r]
                vl = k.m[M_VL][r]
                assert hl & vl == 0, "a cell anchors two dominoes"
                assert hl & ~o == 0 and (hl << 1) & ~o == 0, "a link without cells"
                assert r + 1 < H or vl == 0
                if r + 1 < H:
                    assert vl & ~occ(k, r + 1) == 0 and vl & ~o == 0, "a link without cells"
                links += pc128(hl) + pc128(vl)
                # every cell is in exactly one domino, unless it is a scrap filling a hole
                member = hl | (hl << 1) | vl | (k.m[M_VL][r - 1] if r > 0 else 0)
                x = o & ~member
                while x:
                    c = low128(x)
                    assert (r, c) in covered and s.scrap_under[self.scrap_at(p, r, c)] == -1, \
                        "a cell outside every domino"
                    x &= x - 1
            assert links == k.n_dom and cells == k.n_cells, "domino count"
            assert 0 <= k.n_perf <= k.n_dom
            placed += k.n_dom - k.n_perf
            perf_woven += k.n_perf
            assert s.perfect_held[p] >= 0
        lifted_reg = 1 if s.phase == PH_PLACE and s.place_src == PS_MOVE and s.pl_a != PERF else 0
        lifted_perf = 1 if s.phase == PH_PLACE and s.place_src != PS_WON and s.pl_a == PERF else 0
        on_table = 1 if s.on_table >= 0 else 0
        assert popcount(s.revealed) == placed + s.n_pending + s.n_to_place + s.lost + s.removed_reg \
            + lifted_reg + on_table, "revealed dominoes lost"
        assert s.perfect_supply >= 0 and s.perfect_supply + sum(s.perfect_held[p] for p in range(n)) \
            + perf_woven + s.removed_perf + lifted_perf == N_PERFECT, "perfect carpets lost"
        for t in range(N_SCRAPS):
            loc = s.scrap_loc[t]
            assert loc == LOC_BOARD or loc == LOC_OUT or 0 <= loc % 8 < n and loc < 32, "scrap location"
            if LOC_WOVEN <= loc < LOC_WOVEN + 5:
                assert cell_code(&s.k[loc - LOC_WOVEN], s.scrap_r[t], s.scrap_c[t]) == t, "scrap cell"
        for t in range(N_TOKENS):
            assert -1 <= s.token_holder[t] < n, "a token held by no seat"
            assert not s.token_used[t] or s.token_holder[t] >= 0, "a used token on the board"
        assert s.lost >= 0 and s.removed_reg >= 0 and s.removed_perf >= 0
        for g in range(s.day + 1, 3):
            assert self.revealed_from(g) == 0, "a domino of a later day revealed"
        for dd in ([s.on_table] if s.on_table >= 0 else []) + [s.pending[i] for i in range(s.n_pending)] \
                + [s.to_place[i] for i in range(s.n_to_place)]:
            assert dd >= N_REGULAR or dd // GROUP_SIZE == s.day, "a domino of another day in play"

    def check_history(self) -> None:
        """AssertionError unless the position can come from a real game (beyond
        check_invariants): the step of the turn fits the phase, and the Gold and special cards
        in every hand fit the turns played this day: each turn takes one card, a special card
        one Gold card more when its offer is revealed, so the Gold cards gone equal the cards
        revealed this day minus a special whose offer is still face down. from_view checks
        every view with it (from_json does not: rule tests build positions freely)."""
        cdef KState* s = &self.s
        cdef uint32_t gold_all = (1u << (s.gold_max + 1)) - 2
        cdef int p, c, pend, bid, q
        if s.phase == PH_OVER:
            assert s.on_table < 0 and s.n_pending == 0 and s.n_to_place == 0, "play after the end"
            return
        assert self.revealed_from(s.day) >= 1, "no domino revealed today"
        assert (s.on_table >= 0) == (s.phase == PH_CARD or s.phase == PH_SPY), \
            "a domino on the table exactly until the auction"
        step_of = {PH_CARD: (ST_SPY, ST_END), PH_SPY: (ST_SPY,), PH_SCRAPBID: (ST_SCRAP,),
                   PH_SCRAPPICK: (ST_ART,), PH_ARTBID: (ST_ART,), PH_TOKENPICK: (ST_PLACE,),
                   PH_PLACE: (ST_PLACE,) if s.place_src == PS_WON else (ST_WINDOW,),
                   PH_WINDOW: (ST_WINDOW,), PH_SCRAPAT: (ST_WINDOW,)}[s.phase]
        assert s.step in step_of, "the step of the turn does not fit the phase"
        if s.phase == PH_PLACE:
            if s.place_src == PS_WON:
                assert s.n_to_place > 0 and s.placer == s.actor and s.pl_dir == -1 and \
                    (s.pl_a, s.pl_b) == (dom_a(s.to_place[0]), dom_b(s.to_place[0])), \
                    "the domino being placed is not the one won"
            elif s.place_src == PS_PERFECT:
                assert s.pl_a == PERF and s.pl_b == PERF and s.pl_dir == -1, "bad perfect carpet"
            else:
                assert s.pl_dir >= 0 and (s.pl_a == PERF) == (s.pl_b == PERF) and \
                    not (s.pl_a == TORN and s.pl_b == TORN), "bad domino being moved"
        elif s.n_to_place > 0:
            assert s.step <= ST_PLACE, "won dominoes left unwoven"
        if s.phase in (PH_WINDOW, PH_SCRAPAT) or (s.phase == PH_PLACE and s.place_src != PS_WON):
            assert s.seat_iter == s.actor, "the weaving window of another seat"
        bid_card = {PH_SPY: C_SPY, PH_SCRAPBID: C_SCRAP, PH_ARTBID: C_ART}.get(s.phase, 0)
        if bid_card:
            assert s.choice[s.actor] == bid_card and s.seat_iter <= s.actor, "an offer out of turn"
            for q in range(s.seat_iter, s.actor):
                assert s.choice[q] != bid_card, "an offer skipped"
        done = self.revealed_from(s.day) - 1 + (0 if s.phase == PH_CARD else 1)
        for p in range(s.n):
            h = s.hand[p]
            c = s.choice[p]
            bids = {C_SPY: s.spy_bid[p], C_SCRAP: s.scrap_bid[p], C_ART: s.art_bid[p]}
            if s.phase == PH_CARD:
                assert (c != 0) == (p < s.actor), "a card chosen out of turn"
                assert not any(bids.values()), "an offer before the reveal"
                assert popcount(gold_all & ~h) == done, "Gold cards do not fit the turns played"
                continue
            assert c and not (h >> c) & 1, "a revealed card still in hand"
            for card, bid in bids.items():
                assert bid == 0 or card == c, "an offer without its card"
            pend = 0
            if c >= C_SPY:
                bid = bids[c]
                shown = s.step > (ST_SPY if c == C_SPY else ST_SCRAP if c == C_SCRAP else ST_ART)
                if shown:
                    assert bid and not (h >> bid) & 1, "a revealed offer still in hand"
                else:
                    pend = 1
                    assert (bid != 0) == (c == bid_card and p < s.actor), "an offer out of turn"
                    assert bid == 0 or (h >> bid) & 1, "a face-down offer not in hand"
            assert popcount(gold_all & ~h) == done - pend, "Gold cards do not fit the turns played"

    cdef int revealed_from(self, int g) noexcept:
        cdef int i, n = 0
        for i in range(GROUP_SIZE):
            if (self.s.revealed >> (g * GROUP_SIZE + i)) & 1:
                n += 1
        return n + self.s.torn_seen[g]

    # ------------------------------------------------------------ text
    def render(self, viewer=None) -> str:
        """The position as text (everything, or as `viewer` sees it), each Kilim as a grid."""
        d = self.to_json(viewer)
        lines = [f"Kilim, {d['players']} players, day {d['day'] + 1 if d['day'] < 3 else 3}, "
                 f"turn {d['turn'] + 1}, phase {d['phase']}, to move: {d['to_move']}"]
        lines.append(f"on the table: {d['on_table'] or '-'}  carried: {' '.join(d['pending']) or '-'}"
                     f"  piles: {d['pile_counts']}  lost: {d['lost']}  perfect carpets left: "
                     f"{d['perfect_supply']}  scraps on the board: {d['scraps_on_board_count']}")
        lines.append("tokens: " + ", ".join(
            f"{t['token']}:{'board' if t['holder'] < 0 else 'P%d%s' % (t['holder'], ' (used)' if t['used'] else '')}"
            for t in d["tokens"]))
        for p, ps in enumerate(d["player_state"]):
            scr = " ".join(ps["scraps_held"]) if "scraps_held" in ps else f"{ps['scraps_held_count']} face down"
            lines.append(f"  P{p}: score {ps['score']:3d}  cards {' '.join(ps['hand'])}"
                         f"  scraps {scr or '-'}  perfect {ps['perfect_held']}  size {self.kilim_size(p)}")
            for row in self.kilim_picture(p):
                lines.append("      " + row)
        return "\n".join(lines)

    def kilim_picture(self, int p) -> list:
        """A small text grid: letters for the patterns (lower case under a scrap), '-' and '|'
        join the two halves of a domino, '.' marks a hole."""
        cdef Kil* k = &self.s.k[p]
        cdef int r, c, code
        if k.rmax < 0:
            return ["(empty)"]
        out = []
        scr = {(self.s.scrap_r[t], self.s.scrap_c[t]) for t in range(N_SCRAPS)
               if self.s.scrap_loc[t] == LOC_WOVEN + p}
        for r in range(ORG, k.rmax + 1):
            row = []
            link = []
            for c in range(ORG, k.cmax + 1):
                code = cell_code(k, r, c)
                ch = "." if code < 0 else CODE_LETTERS[code]
                if (r, c) in scr:
                    ch = ch.lower()
                row.append(ch)
                if c < k.cmax:
                    row.append("-" if has_bit(k.m[M_HL][r], c) else " ")
                link.append("|" if has_bit(k.m[M_VL][r], c) else " ")
                if c < k.cmax:
                    link.append(" ")
            out.append("".join(row).rstrip())
            if r < k.rmax:
                out.append("".join(link).rstrip())
        return out

    def narrate(self, GameCore before, int player, int move) -> list:
        """What `player`'s `move` did, for a spectator (self is the state after it)."""
        cdef Kilim b = <Kilim>before
        cdef NEv e
        cdef int i
        kind = move >> KSHIFT
        text = b.move_to_text(move)
        lines = []
        if kind == K_CARD:
            lines.append(f"P{player} chooses a card face down")
        elif kind == K_BID:
            lines.append(f"P{player} chooses a Gold card face down")
        elif kind == K_SCRAPPICK:
            lines.append(f"P{player} searches the bag and keeps a scrap face down")
        elif kind == K_TOKENPICK:
            lines.append(f"P{player} takes the Artisan's {TOKEN_NAMES[move & 3]} token")
        elif kind == K_PLACE:
            src = ("weaves", "weaves a perfect carpet", "moves a domino to")[b.s.place_src]
            lines.append(f"P{player} {src} {text}")
        elif kind == K_DONE:
            lines.append(f"P{player} is done weaving for this turn")
        else:
            lines.append(f"P{player} {text}")
        if kind == K_PLACE or kind == K_SCRAPAT or kind in (K_ROTATE, K_REMOVE, K_REMOVESCRAP):
            lines.extend("      " + row for row in self.kilim_picture(player))
        start = max(b.s.n_ev, self.s.n_ev - N_RING)
        for i in range(start, self.s.n_ev):
            e = self.s.ring[i % N_RING]
            lines.extend(self.event_text(e.kind, e.p, e.a, e.b))
        return lines

    def event_text(self, int kind, int p, int a, int b) -> list:
        if kind == N_REVEAL:
            return [f"day {b + 1}: domino {domino_text(a)} is revealed"]
        if kind == N_CARD:
            return [f"  P{p} shows {card_text(a)}"]
        if kind == N_SPYBID:
            return [f"  P{p} (spy) adds gold-{a}"]
        if kind == N_WIN:
            return [f"  P{p} wins the auction with {a} gold: {b} domino{'es' if b > 1 else ''}"]
        if kind == N_TIE:
            return [f"  every offer cancels out: {a} domino{'es' if a > 1 else ''} "
                    f"{'lost (last of the day)' if b else 'carried to the next auction'}"]
        if kind == N_SCRAPBID or kind == N_ARTBID:
            who = "scrap bag" if kind == N_SCRAPBID else "artisan"
            return [f"  P{p} ({who}) {'offers' if b else 'cannot pay and discards'} gold-{a}"]
        if kind == N_SCRAPWIN:
            return [f"  scrap bag: {'P%d searches the bag' % p if p >= 0 else 'nobody searches'}"]
        if kind == N_ARTWIN:
            return [f"  artisan: {'P%d calls the Artisan' % p if p >= 0 else 'nobody calls the Artisan'}"]
        if kind == N_SCRAPPICK:
            return [f"  (P{p} keeps scrap {CODE_LETTERS[a]})"]
        if kind == N_TOKEN:
            return []
        if kind == N_DAYEND:
            return [f"end of day {a + 1}: cards and Artisan tokens come back"]
        if kind == N_GAMEOVER:
            return ["the game is over: " + ", ".join(f"P{q} {v}" for q, v in enumerate(self.scores()))]
        return []


# ---------------------------------------------------------------- notation helpers
def card_text(int card) -> str:
    if card == C_SPY:
        return "spy"
    if card == C_SCRAP:
        return "scrap-bag"
    if card == C_ART:
        return "artisan"
    return f"gold-{card}"

@cython.boundscheck(True)
@cython.wraparound(True)
def parse_card(str t not None) -> int:
    t = t.strip().lower()
    if t == "spy":
        return C_SPY
    if t == "scrap-bag":
        return C_SCRAP
    if t == "artisan":
        return C_ART
    if t.startswith("gold-") and t[5:].isdigit() and 1 <= int(t[5:]) <= GOLD_MAX:
        return int(t[5:])
    raise ValueError(f"bad card {t!r}")

def scrap_type(letter) -> int:
    """The scrap type (0-4) of a letter A-E; ValueError otherwise."""
    if not isinstance(letter, str) or len(letter) != 1 or letter not in "ABCDE":
        raise ValueError(f"bad scrap {letter!r}")
    return CODE_LETTERS.index(letter)

def hand_list(uint32_t h) -> list:
    return [card_text(c) for c in range(1, 19) if (h >> c) & 1]

def hand_mask(list cards not None, int gold_max) -> int:
    m = 0
    for t in cards:
        c = parse_card(t)
        if c <= GOLD_MAX and c > gold_max:
            raise ValueError(f"no {t} in this game")
        if (m >> c) & 1:
            raise ValueError(f"card {t} listed twice")
        m |= 1 << c
    return m

def domino_text(int d) -> str:
    """Regular: group digit and halves ('2AD'); torn: its regular half and X ('CX'); 'PP'."""
    if d < N_REGULAR:
        a, b = PY_PAIRS[d % GROUP_SIZE]
        return f"{d // GROUP_SIZE + 1}{CODE_LETTERS[a]}{CODE_LETTERS[b]}"
    if d < ID_PERF:
        return f"{CODE_LETTERS[d - ID_TORN]}X"
    return "PP"

@cython.boundscheck(True)
@cython.wraparound(True)
def parse_domino(str t not None) -> int:
    t = t.strip().upper()
    if len(t) == 3 and t[0] in "123" and t[1] in "ABCDE" and t[2] in "ABCDE":
        a, b = sorted((CODE_LETTERS.index(t[1]), CODE_LETTERS.index(t[2])))
        return (int(t[0]) - 1) * GROUP_SIZE + PY_PAIRS.index((a, b))
    if len(t) == 2 and t[0] in "ABCDE" and t[1] == "X":
        return ID_TORN + CODE_LETTERS.index(t[0])
    raise ValueError(f"bad domino {t!r}")

def anchor_text(int a) -> str:
    return f"{(a >> 8) - ORG},{((a >> 1) & 127) - ORG}{'hv'[a & 1]}"


# ---------------------------------------------------------------- from a seat's view
PRIVATE_FIELDS = ("scraps_held", "choice", "spy_bid", "scrap_bid", "artisan_bid")


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


@cython.boundscheck(True)
@cython.wraparound(True)
def _place_scraps(unknown, capacity, allowed):
    """Assign each unseen scrap to a place with room (other seats in order, then "board"),
    respecting allowed[letter]; most constrained scraps first, places in a fixed order."""
    order = sorted(unknown, key=lambda t: (len(allowed[t]), t))
    room = dict(capacity)
    out = {}

    def go(i):
        if i == len(order):
            return True
        t = order[i]
        for place in allowed[t]:
            if room.get(place, 0) > 0:
                room[place] -= 1
                out[t] = place
                if go(i + 1):
                    return True
                room[place] += 1
        return False
    if not go(0):
        raise ValueError("the view is impossible: no placement of the unseen scraps fits "
                         "scrap_whereabouts and the scrap counts")
    return out


@cython.boundscheck(True)
@cython.wraparound(True)
def _first_difference(a, b, path="view"):
    """The path of the first place where two JSON values differ (None if equal)."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b), key=str):
            if k not in a or k not in b:
                return f"{path}.{k}"
            diff = _first_difference(a[k], b[k], f"{path}.{k}")
            if diff:
                return diff
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{path} (length)"
        for i, (x, y) in enumerate(zip(a, b)):
            diff = _first_difference(x, y, f"{path}[{i}]")
            if diff:
                return diff
        return None
    return None if a == b and type(a) is type(b) else path


@cython.boundscheck(True)
@cython.wraparound(True)
def kilim_from_view(cls, v):
    import copy
    try:
        if not isinstance(v, dict):
            raise ValueError("a Kilim view is a JSON object")
        if v.get("game") != "kilim":
            raise ValueError("not a Kilim view")
        n = v["players"]
        o = v["view"]
        if not _is_int(n) or not 2 <= n <= 5:
            raise ValueError(f"Kilim is played by 2 to 5 players, not {n!r}")
        if not _is_int(o) or not 0 <= o < n:
            raise ValueError(f"bad view seat {o!r}")
        if "seed" in v:
            raise ValueError("a view holds no deal seed")
        d = copy.deepcopy(v)
        del d["view"]
        where = d.pop("scrap_whereabouts")
        if not isinstance(where, dict):
            raise ValueError("scrap_whereabouts is an object")
        states = d["player_state"]
        if not isinstance(states, list) or len(states) != n or \
                not all(isinstance(ps, dict) for ps in states):
            raise ValueError("one player_state object per player")
        me = states[o]
        phase = d["phase"]
        actor = d["to_move"]
        gold_max = 10 if n == 2 else 15
        # --- the scraps: every one is seen exactly once, or unseen (held by another, or on the board)
        seen = list(me["scraps_held"]) + list(d["scraps_out"])
        for ps in states:
            seen += [sc[0] for sc in ps["kilim"]["scraps"]]
        if d.get("scrap_in_hand"):
            seen.append(d["scrap_in_hand"][0])
        for letter in seen:
            scrap_type(letter)
        if len(set(seen)) != len(seen):
            raise ValueError("the view is impossible: a scrap is in two places")
        unknown = [x for x in "ABCDE" if x not in seen]
        if set(where) != set(unknown):
            raise ValueError("scrap_whereabouts must list exactly the scraps the seat cannot see")
        capacity = {}
        for p, ps in enumerate(states):
            if p != o:
                if not _is_int(ps["scraps_held_count"]) or ps["scraps_held_count"] < 0:
                    raise ValueError("bad scraps_held_count")
                capacity[p] = ps["scraps_held_count"]
        if not _is_int(d["scraps_on_board_count"]) or d["scraps_on_board_count"] < 0:
            raise ValueError("bad scraps_on_board_count")
        capacity["board"] = d["scraps_on_board_count"]
        if sum(capacity.values()) != len(unknown):
            raise ValueError("the view is impossible: the scrap counts do not add up to the "
                             "scraps the seat cannot see")
        masks = {}
        for letter, places in where.items():
            if not isinstance(places, list) or not places:
                raise ValueError(f"the view is impossible: scrap {letter} can be nowhere")
            m = 0
            for q in places:
                if q == "board":
                    m |= 1 << WHERE_BOARD
                elif _is_int(q) and 0 <= q < n and q != o:
                    m |= 1 << q
                else:
                    raise ValueError(f"bad place {q!r} for scrap {letter}")
            masks[letter] = m
        allowed = {t: [p for p in range(n) if p != o and (masks[t] >> p) & 1]
                   + (["board"] if (masks[t] >> WHERE_BOARD) & 1 else []) for t in unknown}
        placed = _place_scraps(unknown, capacity, allowed)
        for p, ps in enumerate(states):
            if p != o:
                ps["scraps_held"] = sorted(t for t in unknown if placed[t] == p)
        # --- the others' face-down choices of this step: the lowest they may have made
        for p, ps in enumerate(states):
            if p == o or not _is_int(actor) or p >= actor:
                continue
            hand = hand_mask(ps["hand"], gold_max)
            gold = hand & ((1 << (GOLD_MAX + 1)) - 2)
            if phase == "card":
                if not hand:
                    raise ValueError(f"the view is impossible: seat {p} chose from an empty hand")
                ps["choice"] = card_text((hand & -hand).bit_length() - 1)
                continue
            field, card, pick = {"spy": ("spy_bid", "spy", None),
                                 "scrap-bid": ("scrap_bid", "scrap-bag", True),
                                 "artisan-bid": ("artisan_bid", "artisan", False)}.get(phase, (None,) * 3)
            if field is None or ps["choice"] != card:
                continue
            win = d["win_value"]
            if not _is_int(win) or not 0 <= win <= gold_max:
                raise ValueError("bad win_value")
            ok = gold
            if pick is True:
                ok = gold & ~((1 << (win + 1)) - 1) or gold
            elif pick is False:
                ok = gold & ((1 << win) - 1) or gold
            if not ok:
                raise ValueError(f"the view is impossible: seat {p} has no Gold card to offer")
            ps[field] = (ok & -ok).bit_length() - 1
        # --- the piles: the unrevealed dominoes of each group, torn carpets from the unseen ones
        revealed = {parse_domino(t) for t in d["revealed"]}
        day = d["day"]
        if not _is_int(day) or not 0 <= day <= 3:
            raise ValueError(f"bad day {day!r}")
        unseen_torn = [ID_TORN + i for i in range(N_TORN) if ID_TORN + i not in revealed]
        piles, ti = [], 0
        for g in range(3):
            count = d["pile_counts"][g]
            if not _is_int(count) or not 0 <= count <= GROUP_SIZE:
                raise ValueError(f"bad pile count {count!r}")
            if g < day:
                if count:
                    raise ValueError("the view is impossible: a past day's pile is not empty")
                piles.append([])
                continue
            torn = d["torn_in"][g] - d["torn_seen"][g]
            regs = [i for i in range(g * GROUP_SIZE, (g + 1) * GROUP_SIZE) if i not in revealed]
            if not 0 <= torn <= count or count - torn > len(regs) or ti + torn > len(unseen_torn):
                raise ValueError(f"the view is impossible: pile {g + 1} cannot hold {count} "
                                 "unrevealed dominoes")
            piles.append([domino_text(x) for x in regs[:count - torn] + unseen_torn[ti:ti + torn]])
            ti += torn
        d["piles"] = piles
        st = cls.from_json(d)
        st.check_history()
        # the hashes: public = the view as every seat sees it, private = this seat's own parts
        public = {k: x for k, x in v.items() if k not in ("view", "scrap_whereabouts")}
        public["player_state"] = list(v["player_state"])
        public["player_state"][o] = st.player_json(o, False)
        private = [o, {k: me.get(k) for k in PRIVATE_FIELDS}, v["scrap_whereabouts"]]
        (<Kilim>st).adopt_view(o, masks, _stable_hash(public), _stable_hash(private))
        # the round trip: the state shows this seat exactly the view it was given (this
        # checks every derived field: scores, counts, has_chosen, what is public when)
        diff = _first_difference(st.to_json(view=o), v)
        if diff:
            raise ValueError(f"the view is impossible or malformed at {diff}")
    except AssertionError as e:
        raise ValueError(f"impossible Kilim view: {e}") from None
    except (KeyError, TypeError, IndexError, AttributeError, OverflowError, RecursionError) as e:
        raise ValueError(f"malformed Kilim view: {e!r}") from None
    return st
