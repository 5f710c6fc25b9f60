# cython: language_level=3
"""Taschkent: every rule of the game in one compact C state.

Read top to bottom: the component table (the map and every number), the state, set-up, move
generation (action rounds, action cards, trading rounds), applying moves, the end of an action
round (round track, die, start player, 2-player virtual player), the trading round, the end of
the game and scoring, then information (hashes, determinization) and the Python-facing
notation, JSON, rendering and narration.

Rule interpretations are marked "Interpretation" and explained in docs/rules/taschkent.md.
"""
cimport cython
from libc.stdint cimport uint64_t, uint32_t
from libc.string cimport memset
from cext.core cimport GameCore, MAX_MOVES, head_fits
from cext.core import stable_hash as _stable_hash
from cext.rng cimport Rng, rng_seed, rng_next, rng_below, mix64
from cext.bits cimport i8, u8, popcount, lowest_bit, shuffle_bytes, sort_bytes, win_shares
from cext.infohash cimport (InfoHash, ih_reset, ih_public, ih_private, ih_resample)

# ================================================================ component table
# Every number of the game lives here. Numbers the rulebook does not print are marked
# "Interpretation" (they come from ../shared/RULES-NOTES.md) and explained in
# docs/rules/taschkent.md.
cdef enum:
    N_REGIONS = 8            # regions 1..8 (index 0..7), evaluated in numerical order
    N_BORDERS = 10           # Interpretation: a 2 x 4 grid, 1-2-3-4 above 5-6-7-8
    N_GOODS = 3              # 0 iron (red), 1 jade (green), 2 indigo (blue)
    GOODS_PER_KIND = 12
    N_CAMELS = 4             # goods camels: 0 red (iron), 1 first blue, 2 yellow-green (jade), 3 second blue
    N_FIELDS = 9             # 0 outside the caravan, 1..7 the caravan, 8 the Kalmyk
    KALMYK = 8
    OUTSIDE = 0
    N_ACTION_TYPES = 6       # Activity, Removal, Cameleer, Caravan moves on, Shortage, 3/5
    N_ACTION_CARDS = 12      # Interpretation: 2 of each type
    N_TC = 30                # trading cards: 10 each of silk, china, spices
    N_TC_TYPES = 3
    POSTS_PER_PLAYER = 10
    POSTS_START = 3
    N_PRINTED = 12           # Interpretation: pre-printed huts 1, 2, 1, 3, 2, 0, 1, 2
    N_NEUTRAL = 7
    HUT_NEUTRAL0 = 12        # hut ids: 0..11 printed, 12..18 neutral, 19..22 the players' huts
    HUT_PLAYER0 = 19         # one hut per player (components list)
    N_HUTS = 23
    FREE_STEPS = 3
    CONNECTION_PRICE = 2
    TUGRIK_PER_HUT = 3
    START_TUGRIK = 3         # the start player; each next seat clockwise one more
    CARD35_TUGRIK = 3
    CARD35_END = 5
    DISPLAY_3 = 8
    DISPLAY_4 = 10
    DISPLAY_2 = 8            # Interpretation: the 2-player variant uses the 3-player display
    ROUND3_MIN = 3           # die to play a third action round
    ROUND4_MIN = 5           # die to play a fourth action round
    POSTS_FROM_CARRIAGE = 3
    KEEP_POST_PRICE = 2      # posts from the own supply to keep a post after a sale
    MAX_TRADING_ROUNDS = 30  # Interpretation (safety): the game ends after the 30th trading round
    VIRTUAL_CARDS_DRAWN = 2  # 2-player end: the richer draws two cards from the poorer

    # hut locations besides the regions 0..7
    LOC_SUPPLY = 8
    LOC_TRACK2 = 9
    LOC_TRACK4 = 10
    LOC_KALMYK = 11

    # action card types
    AC_ACTIVITY = 0
    AC_REMOVAL = 1
    AC_CAMELEER = 2
    AC_CARAVAN = 3
    AC_SHORTAGE = 4
    AC_35 = 5

cdef int PRINTED_PER_REGION[8]
PRINTED_PER_REGION[:] = [1, 2, 1, 3, 2, 0, 1, 2]        # Interpretation (RULES-NOTES)
cdef int BORDER_A[10]
cdef int BORDER_B[10]
BORDER_A[:] = [0, 1, 2, 4, 5, 6, 0, 1, 2, 3]            # 1-2 2-3 3-4 5-6 6-7 7-8 1-5 2-6 3-7 4-8
BORDER_B[:] = [1, 2, 3, 5, 6, 7, 4, 5, 6, 7]
cdef int CAMEL_START[4]
CAMEL_START[:] = [11, 6, 11, 5]                          # one of each good starts on a hut
cdef int CAMEL_GOOD[4]
CAMEL_GOOD[:] = [0, 2, 1, 2]
cdef int CAMEL_FIELD[4]
CAMEL_FIELD[:] = [3, 4, 5, 7]
cdef int FIELD_CAMEL[9]
FIELD_CAMEL[:] = [-1, -1, -1, 0, 1, 2, -1, 3, -1]
cdef int ACTION_DECK[12]
ACTION_DECK[:] = [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]   # Interpretation: 2 of each
ACTION_DECK_COUNT = 2                                    # copies of each action card type
cdef int SETUP_GOOD_REGION[3]                            # first-game placement: iron and jade on
SETUP_GOOD_REGION[:] = [3, 3, 6]                         # a hut in region 4, indigo in region 7
FOUR_PLAYER_NEUTRAL_REGION = 2                           # region 3 (first game)

# derived map tables
cdef int BORDER_OF[8][8]
cdef uint32_t NEIGH[8]
cdef int PRINTED_FIRST[8]

cdef void _init_map():
    cdef int a, b, i, k = 0
    for a in range(8):
        NEIGH[a] = 0
        for b in range(8):
            BORDER_OF[a][b] = -1
    for i in range(N_BORDERS):
        a = BORDER_A[i]
        b = BORDER_B[i]
        BORDER_OF[a][b] = i
        BORDER_OF[b][a] = i
        NEIGH[a] |= 1u << b
        NEIGH[b] |= 1u << a
    for a in range(8):
        PRINTED_FIRST[a] = k
        k += PRINTED_PER_REGION[a]

_init_map()

PY_PRINTED = (1, 2, 1, 3, 2, 0, 1, 2)
PY_BORDERS = tuple(zip((0, 1, 2, 4, 5, 6, 0, 1, 2, 3), (1, 2, 3, 5, 6, 7, 4, 5, 6, 7)))
GOOD_NAMES = ("iron", "jade", "indigo")
STICK_NAMES = ("red", "green", "blue")
CAMEL_NAMES = ("iron", "indigo1", "jade", "indigo2")
FIELD_NAMES = ("outside", "horses", "cards", "iron", "indigo1", "jade", "carriage", "indigo2",
               "kalmyk")
FIELD_LONG = ("outside the caravan", "the horses (field 1)", "the yellow camel with the carpet "
              "(field 2)", "the red camel (field 3)", "the first blue camel (field 4)",
              "the yellow camel with the green cloth (field 5)", "the green carriage (field 6)",
              "the second blue camel (field 7)", "the Kalmyk")
ACTION_NAMES = ("activity", "removal", "cameleer", "caravan", "shortage", "35")
ACTION_LONG = ("Activity", "Removal", "Cameleer", "Caravan moves on", "Shortage", "3/5")
TC_NAMES = ("silk", "china", "spices")

# ================================================================ moves and phases
cdef enum:
    PH_ACTION = 0            # the player's action
    PH_MOVE2 = 1             # the cameleer move after the action (optional)
    PH_END = 2               # end of the turn: Activity, Cameleer and the other cards
    PH_SELL = 3              # trading round: the seller to move sells one good or passes
    PH_OVER = 4

    K_SHIFT = 12
    K_SKIP = 1               # payload 0: no second move, 1: end the turn, 2: pass (trading)
    K_TUGRIK = 2
    K_POST = 3               # | region
    K_HUT = 4                # | region
    K_CAMEL = 5              # | dest * 32 + option
    K_ACTIVITY = 6           # | region
    K_CAMCARD = 7            # | dest * 32 + option (a free move)
    K_REMOVAL = 8            # | from * 8 + to
    K_CARAVAN = 9            # | hut * 8 + to
    K_SHORT_A = 10           # | camel  (take one, remove one)
    K_SHORT_B = 11           # | (hut * 3 + good) * 4 + camel
    K_35 = 12
    K_SELL = 13              # | target * 512 + good * 128 + hut * 4 + cards * 2 + keep (< 4096)

    SKIP_MOVE = 0
    SKIP_TURN = 1
    SKIP_PASS = 2
    MOVE_BUF = 1024          # more than any position's legal moves (bounded below 600)

    EV_MOVE = 1              # information events (type << 56 | payload)
    EV_DRAW = 2
    EV_DIE = 3
    EV_TC = 4
    EV_ACTOR = 5
    LOG_MAX = 32

    # log entries for narration
    LG_DIE_ROUND = 1         # a: die, b: the round it decides
    LG_ROUND = 2             # a: new round
    LG_START = 3             # a: new start player
    LG_TRADING = 4
    LG_TRADING_END = 5
    LG_KALMYK_HUT = 6        # a: track field
    LG_VIRT_DIE = 7          # a: die, b: field reached
    LG_VIRT_CARD = 8         # an action card removed
    LG_VIRT_SALE = 9         # a: good, b: region, c: trading card or -1
    LG_VIRT_LOST = 10        # a: good removed from the game
    LG_REFILL = 11           # a: cards added
    LG_OVER = 12
    LG_STEAL = 13            # a: richer, b: poorer, c: cards taken
    LG_END_TRIGGER = 14
    LG_LAST_CARD = 15
    LG_REGION = 16           # a: region evaluated
    LG_TRACK_HUT = 17        # a: track field given a neutral hut

cdef inline int mk(int kind, int payload) noexcept nogil:
    return (kind << K_SHIFT) | payload

cdef struct LogEntry:
    int kind, a, b, c

cdef struct TState:
    bint tracking                    # StateHead (core.pxd): these two fields first
    InfoHash ih
    int n, virt, display_size
    int phase, actor
    int round, cycle, turn_no, start_player, marker, last_start
    int tugrik[4]
    int goods[4][3]
    int camel[4]
    int removed_goods[3]
    i8 posts[4][8]
    i8 kept[4][8]
    int supply[4]
    int storage[4]
    uint32_t region_huts[8]
    i8 hut_loc[23]
    uint32_t hut_has[3]
    int cam_pos[4]
    int nc_pos, sc_region               # 2 players: neutral cameleer field, second cameleer region
    int stick_border[3]
    int stick_used[3]
    i8 pile[12]                # action cards, face down, top = pile[n_pile - 1]
    int n_pile
    int hand[4][6]
    int played[6]                       # played (public) and removed from the game
    i8 unseen[12]              # 2 players: removed face down by the virtual player
    int n_unseen
    i8 tc_pile[30]             # trading cards, face down, top = tc_pile[n_tc_pile - 1]
    int n_tc_pile
    i8 disp[10]                # the face-up row, left = disp[0]
    int n_disp
    int tc[4][3]
    int vtc[3]                          # the virtual player's trading cards
    int tr_region, tr_passed
    int end_triggered, last_card
    int turns
    Rng chance
    LogEntry log[LOG_MAX]
    int n_log

cdef TState _layout_probe
if not head_fits(&_layout_probe, &_layout_probe.tracking, &_layout_probe.ih):
    raise ImportError("TState must begin with the fields of StateHead (cext/core.pxd)")


@cython.final
cdef class Taschkent(GameCore):
    """A Taschkent position. `Taschkent(players=3, seed=0)`; 2 players = the variant with the
    virtual player (not a seat: its moves are automatic, die-driven steps)."""
    cdef TState s
    game = "taschkent"

    def __init__(self, int players=3, seed=0):
        self.setup(players, self._start("Taschkent", players, 2, 4, seed))

    # ============================================================ set-up
    cdef void setup(self, int n, uint64_t seed) noexcept:
        cdef TState* s = &self.s
        cdef int i, p, r, h
        memset(s, 0, sizeof(TState))
        s.n = n
        s.virt = n == 2
        s.display_size = DISPLAY_2 if n == 2 else (DISPLAY_3 if n == 3 else DISPLAY_4)
        s.tracking = True
        rng_seed(&s.chance, seed)
        ih_reset(&s.ih, <uint64_t>n + 0x7A5C)
        for i in range(N_HUTS):
            s.hut_loc[i] = LOC_SUPPLY
        for r in range(N_REGIONS):
            for i in range(PRINTED_PER_REGION[r]):
                self.put_hut(PRINTED_FIRST[r] + i, r)
        for i in range(N_GOODS):                 # one of each good on a hut (first game)
            s.hut_has[i] |= 1u << PRINTED_FIRST[SETUP_GOOD_REGION[i]]
        for i in range(N_CAMELS):
            s.camel[i] = CAMEL_START[i]
        s.hut_loc[HUT_NEUTRAL0] = LOC_TRACK2
        s.hut_loc[HUT_NEUTRAL0 + 1] = LOC_TRACK4
        if n == 4:
            self.put_hut(HUT_NEUTRAL0 + 2, FOUR_PLAYER_NEUTRAL_REGION)
        for i in range(3):
            s.stick_border[i] = -1
        for i in range(N_ACTION_CARDS):
            s.pile[i] = ACTION_DECK[i]
        s.n_pile = N_ACTION_CARDS
        shuffle_bytes(&s.chance, s.pile, N_ACTION_CARDS)
        for i in range(N_TC):
            s.tc_pile[i] = i // 10
        s.n_tc_pile = N_TC
        shuffle_bytes(&s.chance, s.tc_pile, N_TC)
        self.refill_display()
        for p in range(n):
            s.tugrik[p] = START_TUGRIK + p       # seat 0 is the first start player
            s.supply[p] = POSTS_START
            s.storage[p] = POSTS_PER_PLAYER - POSTS_START
        s.marker = -1
        s.start_player = 0
        s.round = 1
        if s.virt:
            s.nc_pos = 1
            s.sc_region = 0
        self.begin_turn(0)

    cdef inline void put_hut(self, int h, int r) noexcept:
        self.s.hut_loc[h] = r
        self.s.region_huts[r] |= 1u << h

    cdef inline void lift_hut(self, int h) noexcept:
        cdef int r = self.s.hut_loc[h]
        if r < N_REGIONS:
            self.s.region_huts[r] &= ~(1u << h)

    cdef void refill_display(self) noexcept:
        cdef TState* s = &self.s
        cdef int added = 0
        while s.n_disp < s.display_size and s.n_tc_pile > 0:
            s.n_tc_pile -= 1
            s.disp[s.n_disp] = s.tc_pile[s.n_tc_pile]
            if s.tracking:
                ih_public(&s.ih, (<uint64_t>EV_TC << 56) | <uint64_t>s.disp[s.n_disp])
            s.n_disp += 1
            added += 1
        if added:
            self.note(LG_REFILL, added, 0, 0)

    cdef void note(self, int kind, int a, int b, int c) noexcept:
        cdef TState* s = &self.s
        if s.tracking and s.n_log < LOG_MAX:
            s.log[s.n_log].kind = kind
            s.log[s.n_log].a = a
            s.log[s.n_log].b = b
            s.log[s.n_log].c = c
            s.n_log += 1

    # ============================================================ prices
    cdef inline int post_price(self, int p, int r) noexcept:
        """1 per trading post there (anyone's) + 1 per neutral, printed or opponent hut."""
        cdef TState* s = &self.s
        cdef int q, c = popcount(s.region_huts[r] & ~(1u << (HUT_PLAYER0 + p)))
        for q in range(s.n):
            c += s.posts[q][r]
        return c

    cdef inline int hut_price(self, int p, int r) noexcept:
        """Kalmyk neutral hut: 1 per neutral, printed or opponent hut in the region."""
        return popcount(self.s.region_huts[r] & ~(1u << (HUT_PLAYER0 + p)))

    cdef inline int lacking(self, int r, int g) noexcept:
        """Huts of region r without good g."""
        return popcount(self.s.region_huts[r] & ~self.s.hut_has[g])

    cdef int move_price(self, int p, int d) noexcept:
        """Steps beyond the free three, plus 1 per other cameleer on the destination."""
        cdef TState* s = &self.s
        cdef int pos = s.cam_pos[p], steps, c = 0, q
        if pos == OUTSIDE:
            steps = 0                                 # Interpretation: entering is free
        elif pos == KALMYK or d == KALMYK:
            steps = 1                                 # Interpretation: one step to or from the Kalmyk
        else:
            steps = d - pos if d > pos else pos - d
        if steps > FREE_STEPS:
            c = steps - FREE_STEPS
        for q in range(s.n):
            if q != p and s.cam_pos[q] == d:
                c += 1
        if s.virt and s.nc_pos == d:
            c += 1
        return c

    cdef inline bint field_open(self, int d) noexcept:
        """A field whose action can be performed (an empty camel is not available)."""
        cdef int c = FIELD_CAMEL[d]
        if c >= 0:
            return self.s.camel[c] > 0
        if d == 2:
            return self.s.n_pile > 0
        return True

    cdef inline bint kalmyk_hut(self) noexcept:
        cdef int h
        for h in range(HUT_NEUTRAL0, HUT_NEUTRAL0 + N_NEUTRAL):
            if self.s.hut_loc[h] == LOC_KALMYK:
                return True
        return False

    cdef inline int n_cards(self, int p) noexcept:
        cdef int t, c = 0
        for t in range(N_ACTION_TYPES):
            c += self.s.hand[p][t]
        return c

    # ============================================================ move generation
    cdef int current(self) noexcept:
        return -1 if self.s.phase == PH_OVER else self.s.actor

    cdef int gen_camel_moves(self, int p, int kind, bint free, int* buf, int n) noexcept:
        cdef TState* s = &self.s
        cdef int d, mc, rem, st, b, r, base
        cdef bint khut = self.kalmyk_hut()
        for d in range(1, N_FIELDS):
            if d == s.cam_pos[p] or d == s.last_start:
                continue
            mc = 0 if free else self.move_price(p, d)
            if mc > s.tugrik[p]:
                continue
            rem = s.tugrik[p] - mc
            base = mk(kind, d * 32)
            if self.field_open(d):
                buf[n] = base
                n += 1
            if d <= 2:
                if rem >= CONNECTION_PRICE:
                    for st in range(3):
                        if s.stick_border[st] < 0 or s.stick_used[st]:
                            for b in range(N_BORDERS):
                                if b != s.stick_border[st]:
                                    buf[n] = base + 1 + st * 10 + b
                                    n += 1
            elif d == KALMYK and khut:
                for r in range(N_REGIONS):
                    if self.hut_price(p, r) <= rem:
                        buf[n] = base + 1 + r
                        n += 1
        return n

    cdef int gen_anytime(self, int p, int* buf, int n) noexcept:
        """Removal, Caravan moves on, Shortage and 3/5: playable at any point of the own turn."""
        cdef TState* s = &self.s
        cdef int a, b, h, g, c, r
        cdef uint32_t m
        if s.hand[p][AC_REMOVAL]:
            for a in range(N_REGIONS):
                if s.posts[p][a] > 0:
                    m = NEIGH[a]
                    while m:
                        b = lowest_bit(m)
                        m &= m - 1
                        buf[n] = mk(K_REMOVAL, a * 8 + b)
                        n += 1
        if s.hand[p][AC_CARAVAN]:
            for h in range(HUT_NEUTRAL0, N_HUTS):
                r = s.hut_loc[h]
                if r >= N_REGIONS:
                    continue
                if h >= HUT_PLAYER0 and h != HUT_PLAYER0 + p:
                    continue
                m = NEIGH[r]
                while m:
                    b = lowest_bit(m)
                    m &= m - 1
                    buf[n] = mk(K_CARAVAN, h * 8 + b)
                    n += 1
        if s.hand[p][AC_SHORTAGE]:
            for c in range(N_CAMELS):
                if s.camel[c] > 0:
                    buf[n] = mk(K_SHORT_A, c)
                    n += 1
            for h in range(N_HUTS):
                for g in range(N_GOODS):
                    if (s.hut_has[g] >> h) & 1:
                        for c in range(N_CAMELS):
                            if s.camel[c] > 0:
                                buf[n] = mk(K_SHORT_B, (h * 3 + g) * 4 + c)
                                n += 1
        if s.hand[p][AC_35]:
            buf[n] = mk(K_35, 0)
            n += 1
        return n

    cdef int gen_sales(self, int p, int* buf, int n, bint probe) noexcept:
        """Sales of p in the region being evaluated, ascending (target, good, receiving hut,
        cards, keep). The seller names the hut of the target region that receives the good
        (any hut there without that good). probe: only tell whether there is a sale (returns
        n + 1 at the first one, writes nothing)."""
        cdef TState* s = &self.s
        cdef int r = s.tr_region, t, g, cards, keep, h
        cdef uint32_t free_huts, m
        if (s.tr_passed >> p) & 1 or s.posts[p][r] - s.kept[p][r] <= 0:
            return n
        for t in range(N_REGIONS):
            if t != r and not (NEIGH[r] >> t) & 1:
                continue
            for g in range(N_GOODS):
                if s.goods[p][g] <= 0:
                    continue
                if t != r and s.stick_border[g] != BORDER_OF[r][t]:
                    continue
                free_huts = s.region_huts[t] & ~s.hut_has[g]
                if free_huts == 0:
                    continue
                if probe:
                    return n + 1
                m = free_huts
                while m:
                    h = lowest_bit(m)
                    m &= m - 1
                    for cards in range(2):
                        if cards and s.n_disp == 0:
                            continue
                        for keep in range(2):
                            if keep and s.supply[p] < KEEP_POST_PRICE:
                                continue
                            buf[n] = mk(K_SELL, t * 512 + g * 128 + h * 4 + cards * 2 + keep)
                            n += 1
        return n

    cdef int gen_moves(self, int* buf) noexcept:
        cdef TState* s = &self.s
        cdef int p = s.actor, n = 0, r
        if s.phase == PH_ACTION:
            buf[n] = mk(K_TUGRIK, 0)
            n += 1
            if s.supply[p] > 0:
                for r in range(N_REGIONS):
                    if self.post_price(p, r) <= s.tugrik[p]:
                        buf[n] = mk(K_POST, r)
                        n += 1
            if s.hut_loc[HUT_PLAYER0 + p] == LOC_SUPPLY:
                for r in range(N_REGIONS):
                    buf[n] = mk(K_HUT, r)
                    n += 1
            n = self.gen_camel_moves(p, K_CAMEL, False, buf, n)
            return self.gen_anytime(p, buf, n)
        if s.phase == PH_MOVE2:
            buf[n] = mk(K_SKIP, SKIP_MOVE)
            n += 1
            n = self.gen_camel_moves(p, K_CAMEL, False, buf, n)
            return self.gen_anytime(p, buf, n)
        if s.phase == PH_END:
            buf[n] = mk(K_SKIP, SKIP_TURN)
            n += 1
            if s.hand[p][AC_ACTIVITY] and s.supply[p] > 0:
                for r in range(N_REGIONS):
                    if self.post_price(p, r) <= s.tugrik[p]:
                        buf[n] = mk(K_ACTIVITY, r)
                        n += 1
            if s.hand[p][AC_CAMELEER]:
                n = self.gen_camel_moves(p, K_CAMCARD, True, buf, n)
            return self.gen_anytime(p, buf, n)
        if s.phase == PH_SELL:
            buf[n] = mk(K_SKIP, SKIP_PASS)
            n += 1
            return self.gen_sales(p, buf, n, False)
        return 0

    cdef int random_move(self, Rng* rng) noexcept:
        cdef int buf[MOVE_BUF]
        cdef int n = self.gen_moves(buf)
        return buf[rng_below(rng, n)]

    # ============================================================ applying moves
    cdef void do_move(self, int move) noexcept:
        cdef TState* s = &self.s
        cdef int p = s.actor, kind = move >> K_SHIFT, x = move & ((1 << K_SHIFT) - 1)
        if s.tracking:
            s.n_log = 0
            ih_public(&s.ih, (<uint64_t>EV_MOVE << 56) | (<uint64_t>p << 32) | <uint32_t>move)
        if kind == K_SKIP:
            if x == SKIP_MOVE:
                self.after_move2()
            elif x == SKIP_TURN:
                self.end_turn()
            else:
                s.tr_passed |= 1 << p
                s.actor = (p + 1) % s.n
                self.next_seller()
        elif kind == K_TUGRIK:
            s.tugrik[p] += 1
            s.phase = PH_MOVE2
        elif kind == K_POST or kind == K_ACTIVITY:
            s.tugrik[p] -= self.post_price(p, x)
            s.posts[p][x] += 1
            s.supply[p] -= 1
            if kind == K_POST:
                s.phase = PH_MOVE2
            else:
                self.play_card(p, AC_ACTIVITY)
        elif kind == K_HUT:
            self.put_hut(HUT_PLAYER0 + p, x)
            s.phase = PH_MOVE2
        elif kind == K_CAMEL:
            self.move_cameleer(p, x >> 5, x & 31, False)
            if s.phase == PH_ACTION:
                s.phase = PH_MOVE2
            else:
                self.after_move2()
        elif kind == K_CAMCARD:
            self.play_card(p, AC_CAMELEER)
            self.move_cameleer(p, x >> 5, x & 31, True)
        elif kind == K_REMOVAL:
            self.play_card(p, AC_REMOVAL)
            s.posts[p][x >> 3] -= 1
            s.posts[p][x & 7] += 1
        elif kind == K_CARAVAN:
            self.play_card(p, AC_CARAVAN)
            self.lift_hut(x >> 3)
            self.put_hut(x >> 3, x & 7)
        elif kind == K_SHORT_A:
            self.play_card(p, AC_SHORTAGE)
            s.camel[x] -= 1
            s.goods[p][CAMEL_GOOD[x]] += 1
            if s.camel[x] > 0:
                s.camel[x] -= 1
                s.removed_goods[CAMEL_GOOD[x]] += 1
            self.check_camels()
        elif kind == K_SHORT_B:
            self.play_card(p, AC_SHORTAGE)
            s.hut_has[(x >> 2) % 3] &= ~(1u << ((x >> 2) // 3))
            s.removed_goods[(x >> 2) % 3] += 1
            s.camel[x & 3] -= 1
            s.removed_goods[CAMEL_GOOD[x & 3]] += 1
            self.check_camels()
        elif kind == K_35:
            self.play_card(p, AC_35)
            s.tugrik[p] += CARD35_TUGRIK
        elif kind == K_SELL:
            self.sell(p, x >> 9, (x >> 7) & 3, (x >> 2) & 31, (x >> 1) & 1, x & 1)
            s.actor = (p + 1) % s.n
            self.next_seller()

    cdef void play_card(self, int p, int t) noexcept:
        self.s.hand[p][t] -= 1
        self.s.played[t] += 1

    cdef void move_cameleer(self, int p, int d, int opt, bint free) noexcept:
        """Move p's cameleer to field d (paying unless free) and perform the field's action."""
        cdef TState* s = &self.s
        cdef int c, k, h
        if not free:
            s.tugrik[p] -= self.move_price(p, d)
        s.last_start = s.cam_pos[p]
        s.cam_pos[p] = d
        if opt > 0 and d <= 2:                       # a trade connection instead of the action
            opt -= 1
            s.tugrik[p] -= CONNECTION_PRICE
            s.stick_border[opt // 10] = opt % 10
            s.stick_used[opt // 10] = 0
            return
        if d == 1:
            if s.marker < 0:
                s.marker = p
            if s.storage[p] > 0:
                s.storage[p] -= 1
                s.supply[p] += 1
        elif d == 2:
            if s.n_pile > 0:
                s.n_pile -= 1
                c = s.pile[s.n_pile]
                s.hand[p][c] += 1
                if s.tracking:
                    ih_private(&s.ih, 1u << p, (<uint64_t>EV_DRAW << 56) | <uint64_t>c)
                if s.n_pile == 0:
                    self.trigger_end()
        elif d == 6:
            k = s.storage[p] if s.storage[p] < POSTS_FROM_CARRIAGE else POSTS_FROM_CARRIAGE
            s.storage[p] -= k
            s.supply[p] += k
        elif d == KALMYK:
            if opt > 0:
                for h in range(HUT_NEUTRAL0, HUT_NEUTRAL0 + N_NEUTRAL):
                    if s.hut_loc[h] == LOC_KALMYK:
                        s.tugrik[p] -= self.hut_price(p, opt - 1)
                        self.put_hut(h, opt - 1)
                        break
        else:
            c = FIELD_CAMEL[d]
            if c >= 0 and s.camel[c] > 0:
                s.camel[c] -= 1
                s.goods[p][CAMEL_GOOD[c]] += 1
                self.check_camels()

    cdef void check_camels(self) noexcept:
        """The last good of a kind taken from the caravan ends the game after this round."""
        cdef TState* s = &self.s
        if s.camel[0] == 0 or s.camel[2] == 0 or (s.camel[1] == 0 and s.camel[3] == 0):
            self.trigger_end()

    cdef void trigger_end(self) noexcept:
        if not self.s.end_triggered:
            self.s.end_triggered = 1
            self.note(LG_END_TRIGGER, 0, 0, 0)

    cdef void sell(self, int p, int t, int g, int h, int cards, int keep) noexcept:
        """p sells good g into region t, placing it on hut h (the seller's choice)."""
        cdef TState* s = &self.s
        cdef int r = s.tr_region
        cdef int k = self.lacking(t, g), i, j
        s.hut_has[g] |= 1u << h
        s.goods[p][g] -= 1
        if cards:
            for i in range(k):
                if s.n_disp == 0:
                    break
                s.tc[p][s.disp[0]] += 1
                for j in range(s.n_disp - 1):
                    s.disp[j] = s.disp[j + 1]
                s.n_disp -= 1
            self.check_last_card()
        else:
            s.tugrik[p] += TUGRIK_PER_HUT * k
        if keep:
            s.supply[p] -= KEEP_POST_PRICE
            s.storage[p] += KEEP_POST_PRICE
            s.kept[p][r] += 1
        else:
            s.posts[p][r] -= 1
            s.storage[p] += 1
        if t != r:
            s.stick_used[g] = 1

    cdef void check_last_card(self) noexcept:
        if self.s.n_disp == 0 and self.s.n_tc_pile == 0 and not self.s.last_card:
            self.s.last_card = 1
            self.note(LG_LAST_CARD, 0, 0, 0)

    # ============================================================ turns and action rounds
    cdef void begin_turn(self, int p) noexcept:
        cdef TState* s = &self.s
        s.actor = p
        s.phase = PH_ACTION
        s.last_start = -1
        if s.tracking:
            ih_public(&s.ih, (<uint64_t>EV_ACTOR << 56) | <uint64_t>p)

    cdef void after_move2(self) noexcept:
        if self.n_cards(self.s.actor) > 0:
            self.s.phase = PH_END
        else:
            self.end_turn()

    cdef void end_turn(self) noexcept:
        cdef TState* s = &self.s
        s.turns += 1
        s.turn_no += 1
        if s.turn_no < s.n:
            self.begin_turn((s.actor + 1) % s.n)
            return
        self.end_action_round()

    cdef int roll(self) noexcept:
        cdef int d = 1 + <int>rng_below(&self.s.chance, 6)
        if self.s.tracking:
            ih_public(&self.s.ih, (<uint64_t>EV_DIE << 56) | <uint64_t>d)
        return d

    cdef void end_action_round(self) noexcept:
        """Virtual player (2 players), start player change, then the round track."""
        cdef TState* s = &self.s
        cdef int d, h
        if s.virt:
            self.virtual_step()
        if s.marker >= 0 and s.marker != s.start_player:
            s.start_player = s.marker
            self.note(LG_START, s.marker, 0, 0)
        if s.end_triggered and s.round >= 2:
            self.start_trading()
            return
        if s.round == 2 or s.round == 3:
            d = self.roll()
            self.note(LG_DIE_ROUND, d, s.round + 1, 0)
            if d < (ROUND3_MIN if s.round == 2 else ROUND4_MIN):
                self.start_trading()
                return
        elif s.round == 4:
            self.start_trading()
            return
        s.round += 1
        self.note(LG_ROUND, s.round, 0, 0)
        for h in range(HUT_NEUTRAL0, HUT_NEUTRAL0 + N_NEUTRAL):
            if (s.round == 2 and s.hut_loc[h] == LOC_TRACK2) or \
               (s.round == 4 and s.hut_loc[h] == LOC_TRACK4):
                s.hut_loc[h] = LOC_KALMYK
                self.note(LG_KALMYK_HUT, s.round, 0, 0)
        s.turn_no = 0
        self.begin_turn(s.start_player)

    cdef void virtual_step(self) noexcept:
        """2 players: the neutral cameleer walks by the die; goods are sold by the second one."""
        cdef TState* s = &self.s
        cdef int d = self.roll(), f, c, g, i, j, r, card
        f = (s.nc_pos - 1 + d) % 7 + 1
        s.nc_pos = f
        self.note(LG_VIRT_DIE, d, f, 0)
        if f == 2:
            if s.n_pile > 0:
                s.n_pile -= 1
                s.unseen[s.n_unseen] = s.pile[s.n_pile]
                s.n_unseen += 1
                self.note(LG_VIRT_CARD, 0, 0, 0)
                if s.n_pile == 0:
                    self.trigger_end()
            return
        c = FIELD_CAMEL[f]
        if c < 0 or s.camel[c] == 0:
            return
        g = CAMEL_GOOD[c]
        s.camel[c] -= 1
        self.check_camels()
        for i in range(N_REGIONS):
            r = (s.sc_region + i) % N_REGIONS
            if self.lacking(r, g) > 0:
                # Interpretation (virtual player only, it is not a seat): the good goes on
                # the hut with the lowest id lacking it (printed, then neutral, then players')
                s.hut_has[g] |= 1u << lowest_bit(s.region_huts[r] & ~s.hut_has[g])
                card = -1
                if s.n_disp > 0:
                    card = s.disp[0]
                    s.vtc[card] += 1
                    for j in range(s.n_disp - 1):
                        s.disp[j] = s.disp[j + 1]
                    s.n_disp -= 1
                    self.check_last_card()
                s.sc_region = (r + 1) % N_REGIONS
                self.note(LG_VIRT_SALE, g, r, card)
                return
        s.removed_goods[g] += 1
        self.note(LG_VIRT_LOST, g, 0, 0)

    # ============================================================ the trading round
    cdef void start_trading(self) noexcept:
        cdef TState* s = &self.s
        memset(s.kept, 0, sizeof(s.kept))
        s.tr_region = 0
        s.tr_passed = 0
        s.actor = s.start_player
        self.note(LG_TRADING, 0, 0, 0)
        self.next_seller()

    cdef bint can_sell(self, int p) noexcept:
        return self.gen_sales(p, NULL, 0, True) > 0

    cdef void next_seller(self) noexcept:
        """From the actor clockwise, the next player able to sell in the region; else the next
        region (start player first); after region 8 the trading round ends."""
        cdef TState* s = &self.s
        cdef int i, p
        while s.tr_region < N_REGIONS:
            for i in range(s.n):
                p = (s.actor + i) % s.n
                if self.can_sell(p):
                    s.actor = p
                    s.phase = PH_SELL
                    if s.tracking:
                        ih_public(&s.ih, (<uint64_t>EV_ACTOR << 56) | <uint64_t>(p + 8))
                    return
            s.tr_region += 1
            s.tr_passed = 0
            s.actor = s.start_player
        self.end_trading()

    cdef void end_trading(self) noexcept:
        cdef TState* s = &self.s
        cdef int h, j
        s.cycle += 1
        memset(s.kept, 0, sizeof(s.kept))
        self.note(LG_TRADING_END, s.cycle, 0, 0)
        if s.end_triggered or s.last_card or s.cycle >= MAX_TRADING_ROUNDS:
            self.game_over()
            return
        s.marker = -1
        s.round = 1
        for j in range(2):                         # neutral huts on fields 2 and 4 of the track
            if self.hut_at(LOC_TRACK2 + j) < 0:
                for h in range(HUT_NEUTRAL0, HUT_NEUTRAL0 + N_NEUTRAL):
                    if s.hut_loc[h] == LOC_SUPPLY:
                        s.hut_loc[h] = LOC_TRACK2 + j
                        self.note(LG_TRACK_HUT, 2 + 2 * j, 0, 0)
                        break
        self.refill_display()
        s.turn_no = 0
        self.note(LG_ROUND, 1, 0, 0)
        self.begin_turn(s.start_player)

    cdef int hut_at(self, int loc) noexcept:
        cdef int h
        for h in range(HUT_NEUTRAL0, HUT_NEUTRAL0 + N_NEUTRAL):
            if self.s.hut_loc[h] == loc:
                return h
        return -1

    # ============================================================ end of the game
    cdef void game_over(self) noexcept:
        cdef TState* s = &self.s
        cdef int rich, poor, k, i, t, total
        s.phase = PH_OVER
        s.actor = -1
        if s.virt and self.final_tugrik(0) != self.final_tugrik(1):
            rich = 0 if self.final_tugrik(0) > self.final_tugrik(1) else 1
            poor = 1 - rich
            k = 0
            for i in range(VIRTUAL_CARDS_DRAWN):
                total = s.tc[poor][0] + s.tc[poor][1] + s.tc[poor][2]
                if total == 0:
                    break
                t = <int>rng_below(&s.chance, total)
                if t < s.tc[poor][0]:
                    t = 0
                elif t < s.tc[poor][0] + s.tc[poor][1]:
                    t = 1
                else:
                    t = 2
                s.tc[poor][t] -= 1
                s.tc[rich][t] += 1
                k += 1
            self.note(LG_STEAL, rich, poor, k)
        self.note(LG_OVER, 0, 0, 0)

    cdef inline int final_tugrik(self, int p) noexcept:
        return self.s.tugrik[p] + CARD35_END * self.s.hand[p][AC_35]

    cdef int card_points(self, int p) noexcept:
        return set_points(self.s.tc[p][0], self.s.tc[p][1], self.s.tc[p][2])

    cdef bint eliminated(self, int p) noexcept:
        """3-4 players: the poorest are out (unless everyone is equally poor)."""
        cdef TState* s = &self.s
        cdef int q, lo = 1 << 30, hi = -1, v
        if s.virt:
            return False
        for q in range(s.n):
            v = self.final_tugrik(q)
            if v < lo:
                lo = v
            if v > hi:
                hi = v
        return lo < hi and self.final_tugrik(p) == lo

    cdef long long rank_key(self, int p) noexcept:
        if self.eliminated(p):
            return <long long>self.final_tugrik(p)
        return ((<long long>1 << 40) + <long long>self.card_points(p) * 1000000
                + self.final_tugrik(p))

    cdef void get_rewards(self, double* out) noexcept:
        cdef long long keys[5]
        cdef int p
        for p in range(self.s.n):
            keys[p] = self.rank_key(p)
        win_shares(keys, self.s.n, out)

    cdef void get_scores(self, double* out) noexcept:
        cdef int p
        for p in range(self.s.n):
            out[p] = self.card_points(p)

    # ============================================================ copying
    cdef void* raw_state(self) noexcept:
        return &self.s

    cdef size_t raw_size(self) noexcept:
        return sizeof(TState)

    # ============================================================ information
    cdef void resample(self, int o, Rng* rng) noexcept:
        """Redraw what `o` cannot see: the other players' action cards, the action pile and the
        cards the virtual player removed face down (one multiset, dealt uniformly into the same
        slots), the order of the trading-card pile, and future die rolls.

        Tugrik, goods, trading cards, posts and huts of every player are public or follow from
        public events (every payment and gain is determined by public moves), so they stay.
        """
        cdef TState* s = &self.s
        cdef i8 cards[12]
        cdef int m = 0, q, t, i, k
        cdef uint64_t digest[4]
        for t in range(N_ACTION_TYPES):               # canonical order: by type
            k = 0
            for q in range(s.n):
                if q != o:
                    k += s.hand[q][t]
            for i in range(s.n_pile):
                if s.pile[i] == t:
                    k += 1
            for i in range(s.n_unseen):
                if s.unseen[i] == t:
                    k += 1
            for i in range(k):
                cards[m] = t
                m += 1
        shuffle_bytes(rng, cards, m)
        m = 0
        for q in range(s.n):
            if q == o:
                continue
            k = self.n_cards(q)
            for t in range(N_ACTION_TYPES):
                s.hand[q][t] = 0
            for i in range(k):
                s.hand[q][cards[m]] += 1
                m += 1
            digest[q] = 0
            for t in range(N_ACTION_TYPES):
                digest[q] = mix64(digest[q] ^ (<uint64_t>s.hand[q][t] + <uint64_t>(t << 8)))
        for i in range(s.n_pile):
            s.pile[i] = cards[m]
            m += 1
        for i in range(s.n_unseen):
            s.unseen[i] = cards[m]
            m += 1
        sort_bytes(s.tc_pile, s.n_tc_pile)
        shuffle_bytes(rng, s.tc_pile, s.n_tc_pile)
        rng_seed(&s.chance, rng_next(rng))
        ih_resample(&s.ih, o, s.n, digest)

    # ============================================================ Python API
    @property
    def phase(self) -> str:
        return ("action", "move2", "end", "sell", "over")[self.s.phase]

    @property
    def round(self) -> int:
        return self.s.round

    @property
    def trading_rounds(self) -> int:
        return self.s.cycle

    @property
    def turns(self) -> int:
        return self.s.turns

    def scores(self) -> list:
        """Card-set points of every player now (the ranking also applies elimination)."""
        return [self.card_points(p) for p in range(self.s.n)]

    def tugrik_totals(self) -> list:
        """Tugrik of every player counting each unplayed 3/5 card as 5 (the end-of-game value)."""
        return [self.final_tugrik(p) for p in range(self.s.n)]

    def eliminated_players(self) -> list:
        return [p for p in range(self.s.n) if self.eliminated(p)]

    def ranking(self) -> list:
        """Places (1 = first): the poorest out (3-4 players), card points, then Tugrik."""
        keys = [self.rank_key(p) for p in range(self.s.n)]
        return [1 + sum(1 for k in keys if k > keys[p]) for p in range(self.s.n)]

    def move_to_text(self, int move) -> str:
        return move_text(move)

    def last_events(self) -> list:
        """The automatic events of the last move (round track, die, virtual player, trading)."""
        return [(self.s.log[i].kind, self.s.log[i].a, self.s.log[i].b, self.s.log[i].c)
                for i in range(self.s.n_log)]

    def to_json(self, view=None) -> dict:
        """The full state, or (view = a player) what that player knows: hidden parts left out.

        Other players' Tugrik and trading cards appear in a view: every change to them is a
        public event (see docs/rules/taschkent.md, Information)."""
        cdef TState* s = &self.s
        if view is not None:
            self._check_player(view)
        full = view is None
        players = []
        for p in range(s.n):
            d = {
                "tugrik": s.tugrik[p],
                "goods": {GOOD_NAMES[g]: s.goods[p][g] for g in range(3)},
                "posts": [int(s.posts[p][r]) for r in range(8)],
                "kept": [int(s.kept[p][r]) for r in range(8)],
                "supply": s.supply[p], "storage": s.storage[p],
                "hut": loc_text(s.hut_loc[HUT_PLAYER0 + p]),
                "cameleer": FIELD_NAMES[s.cam_pos[p]],
                "trading_cards": {TC_NAMES[t]: s.tc[p][t] for t in range(3)},
                "action_card_count": self.n_cards(p),
            }
            if full or p == view:
                d["action_cards"] = {ACTION_NAMES[t]: s.hand[p][t] for t in range(6)
                                     if s.hand[p][t]}
            players.append(d)
        huts = []
        for h in range(N_HUTS):
            huts.append({"id": hut_name(h), "at": loc_text(s.hut_loc[h]),
                         "goods": [GOOD_NAMES[g] for g in range(3) if s.hut_has[g] >> h & 1]})
        out = {
            "game": "taschkent", "players": s.n, "virtual_player": bool(s.virt),
            "seed": self.seed, "phase": self.phase, "to_move": self.current(),
            "round": s.round, "trading_rounds": s.cycle, "turns": s.turns, "turn_no": s.turn_no,
            "start_player": s.start_player,
            "marker": None if s.marker < 0 else s.marker,
            "last_start": None if s.last_start < 0 else FIELD_NAMES[s.last_start],
            "camels": {CAMEL_NAMES[c]: s.camel[c] for c in range(4)},
            "removed_goods": {GOOD_NAMES[g]: s.removed_goods[g] for g in range(3)},
            "huts": huts,
            "connections": [{"colour": STICK_NAMES[i],
                             "border": None if s.stick_border[i] < 0 else border_text(s.stick_border[i]),
                             "used": bool(s.stick_used[i])} for i in range(3)],
            "action_pile_count": s.n_pile,
            "played_cards": {ACTION_NAMES[t]: s.played[t] for t in range(6) if s.played[t]},
            "removed_unseen_count": s.n_unseen,
            "trading_display": [TC_NAMES[s.disp[i]] for i in range(s.n_disp)],
            "trading_pile_count": s.n_tc_pile,
            "end_triggered": bool(s.end_triggered), "last_card_taken": bool(s.last_card),
            "player_state": players,
        }
        if s.virt:
            out["neutral_cameleer"] = FIELD_NAMES[s.nc_pos]
            out["second_cameleer"] = s.sc_region + 1
            out["virtual_cards"] = {TC_NAMES[t]: s.vtc[t] for t in range(3)}
        if s.phase == PH_SELL:
            out["trade"] = {"region": s.tr_region + 1,
                            "passed": [p for p in range(s.n) if s.tr_passed >> p & 1]}
        if full:
            out["action_pile"] = [ACTION_NAMES[s.pile[i]] for i in range(s.n_pile)]
            out["removed_unseen"] = [ACTION_NAMES[s.unseen[i]] for i in range(s.n_unseen)]
            out["trading_pile"] = [TC_NAMES[s.tc_pile[i]] for i in range(s.n_tc_pile)]
        else:
            del out["seed"]                        # the deal seed would give away every card
            out["view"] = view
            # public by counting: what is left in the face-down trading-card pile
            out["trading_pile_contents"] = {TC_NAMES[t]: sum(1 for i in range(s.n_tc_pile)
                                                             if s.tc_pile[i] == t)
                                            for t in range(3)}
            # what the seat knows by counting: the action cards it cannot place (in the other
            # hands, the face-down pile and, with 2 players, removed face down), by type
            out["unknown_action_cards"] = {
                ACTION_NAMES[t]: ACTION_DECK_COUNT - s.played[t] - s.hand[view][t]
                for t in range(6)}
        return out

    @classmethod
    def from_json(cls, d: dict) -> "Taschkent":
        """Rebuild a full state written by to_json(); ValueError if malformed or impossible."""
        try:
            if d.get("game") != "taschkent":
                raise ValueError("not a Taschkent state")
            st = cls(d["players"], d.get("seed", 0))
            (<Taschkent>st).load(d)
            st.check_invariants()
        except (KeyError, TypeError, IndexError, AssertionError, AttributeError,
                OverflowError) as e:
            raise ValueError(f"impossible or malformed Taschkent state: {e!r}") from None
        return st

    @classmethod
    def from_view(cls, v) -> "Taschkent":
        """A full state consistent with one seat's view (to_json(view=seat)), for searching as
        that seat: the action cards it cannot place go in a fixed (sorted) order to the other
        hands, the pile and the face-down removed cards, and the trading-card pile is sorted
        (the search redraws them anyway). The seat's information hashes come from the view.
        ValueError if the view is malformed, of another game, or impossible."""
        return taschkent_from_view(cls, v)

    cdef void adopt_view(self, int o, uint64_t public, uint64_t private) noexcept:
        """Information hashes of seat o as given by a view (no history): the public hash and
        o's own information set from the view's content, every other entry a distinct value
        (symmetric, like a real history in which no private event is shared by two seats)."""
        cdef TState* s = &self.s
        cdef int a, c
        ih_reset(&s.ih, <uint64_t>s.n + 0x7A5C)
        s.ih.public = public
        for a in range(s.n):
            for c in range(s.n):
                s.ih.pair[a][c] = mix64(public + <uint64_t>((a if a < c else c) * 7
                                                           + (c if a < c else a) * 13 + 1))
        s.ih.pair[o][o] = private

    cdef void load(self, dict d) except *:
        cdef TState* s = &self.s
        n = d["players"]
        self.setup(n, <uint64_t>d.get("seed", 0))
        # sizes first: the C arrays below have fixed lengths
        if len(d["player_state"]) != n:
            raise ValueError("one player_state per player")
        if len(d["action_pile"]) + len(d.get("removed_unseen", [])) > N_ACTION_CARDS:
            raise ValueError(f"at most {N_ACTION_CARDS} action cards in the pile")
        if len(d["trading_pile"]) > N_TC:
            raise ValueError(f"at most {N_TC} trading cards in the pile")
        if len(d["connections"]) != 3:
            raise ValueError("3 trade connections expected")
        s.phase = _index(("action", "move2", "end", "sell", "over"), d["phase"], "phase")
        s.actor = d["to_move"] if s.phase != PH_OVER else -1
        if s.phase != PH_OVER and not 0 <= s.actor < n:
            raise ValueError("to_move out of range")
        s.round = d["round"]
        s.cycle = d["trading_rounds"]
        s.turns = d.get("turns", 0)
        s.turn_no = d.get("turn_no", 0)
        s.start_player = d["start_player"]
        s.marker = -1 if d["marker"] is None else d["marker"]
        s.last_start = -1 if d["last_start"] is None else _index(FIELD_NAMES, d["last_start"], "field")
        for c in range(4):
            s.camel[c] = d["camels"][CAMEL_NAMES[c]]
        for g in range(3):
            s.removed_goods[g] = d["removed_goods"][GOOD_NAMES[g]]
            s.hut_has[g] = 0
        for r in range(8):
            s.region_huts[r] = 0
        if len(d["huts"]) != N_HUTS:
            raise ValueError("23 huts expected")
        for h, hd in enumerate(d["huts"]):
            if hd["id"] != hut_name(h):
                raise ValueError(f"hut {h} must be {hut_name(h)}")
            loc = parse_loc(hd["at"])
            s.hut_loc[h] = loc
            if loc < 8:
                s.region_huts[loc] |= 1u << h
            for gname in hd["goods"]:
                g = _index(GOOD_NAMES, gname, "good")
                if s.hut_has[g] >> h & 1:
                    raise ValueError("a hut holds two goods of a kind")
                s.hut_has[g] |= 1u << h
        for i, cd in enumerate(d["connections"]):
            s.stick_border[i] = -1 if cd["border"] is None else parse_border(cd["border"])
            s.stick_used[i] = 1 if cd["used"] else 0
        pile = d["action_pile"]
        s.n_pile = len(pile)
        for i, t in enumerate(pile):
            s.pile[i] = _index(ACTION_NAMES, t, "action card")
        for t in range(6):
            s.played[t] = d["played_cards"].get(ACTION_NAMES[t], 0)
        un = d.get("removed_unseen", [])
        s.n_unseen = len(un)
        for i, t in enumerate(un):
            s.unseen[i] = _index(ACTION_NAMES, t, "action card")
        disp = d["trading_display"]
        if len(disp) > 10:
            raise ValueError("the display holds at most 10 cards")
        s.n_disp = len(disp)
        for i, t in enumerate(disp):
            s.disp[i] = _index(TC_NAMES, t, "trading card")
        tp = d["trading_pile"]
        s.n_tc_pile = len(tp)
        for i, t in enumerate(tp):
            s.tc_pile[i] = _index(TC_NAMES, t, "trading card")
        s.end_triggered = 1 if d["end_triggered"] else 0
        s.last_card = 1 if d["last_card_taken"] else 0
        if s.virt:
            s.nc_pos = _index(FIELD_NAMES, d["neutral_cameleer"], "field")
            s.sc_region = d["second_cameleer"] - 1
            for t in range(3):
                s.vtc[t] = d["virtual_cards"][TC_NAMES[t]]
        if s.phase == PH_SELL:
            if not 1 <= d["trade"]["region"] <= N_REGIONS:
                raise ValueError("the trading region is 1..8")
            s.tr_region = d["trade"]["region"] - 1
            s.tr_passed = 0
            for p in d["trade"]["passed"]:
                if not 0 <= p < n:
                    raise ValueError(f"passed player {p!r} out of range")
                s.tr_passed |= 1 << p
        for p, ps in enumerate(d["player_state"]):
            s.tugrik[p] = ps["tugrik"]
            for g in range(3):
                s.goods[p][g] = ps["goods"][GOOD_NAMES[g]]
            for r in range(8):
                s.posts[p][r] = ps["posts"][r]
                s.kept[p][r] = ps["kept"][r]
            s.supply[p] = ps["supply"]
            s.storage[p] = ps["storage"]
            s.cam_pos[p] = _index(FIELD_NAMES, ps["cameleer"], "field")
            for t in range(3):
                s.tc[p][t] = ps["trading_cards"][TC_NAMES[t]]
            for t in range(6):
                s.hand[p][t] = ps["action_cards"].get(ACTION_NAMES[t], 0)
        if s.phase == PH_SELL:
            buf = self.legal_moves()
            if len(buf) < 2:
                raise ValueError("the seller to move has no sale")

    def check_invariants(self) -> None:
        """Raise AssertionError if any component is lost, duplicated or negative."""
        cdef TState* s = &self.s
        n = s.n
        for g in range(3):
            on_huts = popcount(s.hut_has[g])
            total = (on_huts + s.removed_goods[g] + sum(s.goods[p][g] for p in range(n))
                     + sum(s.camel[c] for c in range(4) if CAMEL_GOOD[c] == g))
            assert total == GOODS_PER_KIND, f"{GOOD_NAMES[g]}: {total} goods instead of 12"
            assert s.removed_goods[g] >= 0
        assert all(s.camel[c] >= 0 for c in range(4)), "negative camel"
        for h in range(N_HUTS):
            loc = s.hut_loc[h]
            assert 0 <= loc <= LOC_KALMYK, "hut location"
            in_region = any(s.region_huts[r] >> h & 1 for r in range(8))
            assert in_region == (loc < 8), "hut region mask"
            if loc < 8:
                assert s.region_huts[loc] >> h & 1
            else:
                assert not any(s.hut_has[g] >> h & 1 for g in range(3)), "goods on a hut off the map"
            if h < HUT_NEUTRAL0:
                assert loc < 8, "a printed hut moved"
            elif h >= HUT_PLAYER0:
                assert loc < 8 or loc == LOC_SUPPLY, "player hut location"
                assert h - HUT_PLAYER0 < n or loc == LOC_SUPPLY, "hut of an absent player"
        for r in range(8):
            assert s.region_huts[r] >> N_HUTS == 0
        assert sum(1 for h in range(HUT_NEUTRAL0, HUT_NEUTRAL0 + N_NEUTRAL)
                   if s.hut_loc[h] == LOC_TRACK4) <= 1, "two huts on track field 4"
        assert sum(1 for h in range(HUT_NEUTRAL0, HUT_NEUTRAL0 + N_NEUTRAL)
                   if s.hut_loc[h] == LOC_TRACK2) <= 1, "two huts on track field 2"
        for p in range(n):
            assert s.tugrik[p] >= 0, f"negative Tugrik for P{p}"
            assert all(s.goods[p][g] >= 0 for g in range(3)), "negative goods"
            assert all(s.posts[p][r] >= 0 and 0 <= s.kept[p][r] <= s.posts[p][r]
                       for r in range(8)), "negative posts"
            assert s.supply[p] >= 0 and s.storage[p] >= 0, "negative post supply"
            assert s.supply[p] + s.storage[p] + sum(s.posts[p][r] for r in range(8)) == \
                POSTS_PER_PLAYER, f"P{p}: trading posts lost"
            assert all(s.hand[p][t] >= 0 for t in range(6)), "negative action cards"
            assert all(s.tc[p][t] >= 0 for t in range(3)), "negative trading cards"
            assert 0 <= s.cam_pos[p] < N_FIELDS, "cameleer field"
        for t in range(6):
            total = (s.played[t] + sum(s.hand[p][t] for p in range(n))
                     + sum(1 for i in range(s.n_pile) if s.pile[i] == t)
                     + sum(1 for i in range(s.n_unseen) if s.unseen[i] == t))
            assert total == 2, f"action card {ACTION_NAMES[t]}: {total} instead of 2"
        for t in range(3):
            total = (sum(s.tc[p][t] for p in range(n)) + s.vtc[t]
                     + sum(1 for i in range(s.n_disp) if s.disp[i] == t)
                     + sum(1 for i in range(s.n_tc_pile) if s.tc_pile[i] == t))
            assert total == 10, f"trading card {TC_NAMES[t]}: {total} instead of 10"
        assert s.n_disp <= s.display_size, "display overfull"
        for i in range(3):
            assert -1 <= s.stick_border[i] < N_BORDERS, "connection border"
            assert not (s.stick_border[i] < 0 and s.stick_used[i]), "unplaced connection used"
        assert 1 <= s.round <= 4, f"action round {s.round} (1..4)"
        assert -1 <= s.marker < n and 0 <= s.start_player < n, "marker or start player out of range"
        if s.virt:
            assert 1 <= s.nc_pos <= 7 and 0 <= s.sc_region < 8, "neutral or second cameleer out of range"
        else:
            assert s.n_unseen == 0 and sum(s.vtc[t] for t in range(3)) == 0

    def render(self, viewer=None) -> str:
        """The position as text (everything, or what `viewer` sees)."""
        d = self.to_json(viewer)
        n = d["players"]
        head = (f"Taschkent, {n} players{' + virtual player' if d['virtual_player'] else ''}, "
                f"cycle {d['trading_rounds'] + 1}, ")
        if d["phase"] == "sell":
            head += f"trading round (region {d['trade']['region']})"
        elif d["phase"] == "over":
            head += "game over"
        else:
            head += f"action round {d['round']}"
        head += f", start player P{d['start_player']}"
        if d["phase"] != "over":
            head += f", to move: P{d['to_move']} ({d['phase']})"
        lines = [head]
        occ = {}
        for p, ps in enumerate(d["player_state"]):
            occ.setdefault(ps["cameleer"], []).append(f"P{p}")
        if d["virtual_player"]:
            occ.setdefault(d["neutral_cameleer"], []).append("V")
        fields = []
        for f in range(1, 9):
            nm = FIELD_NAMES[f]
            extra = ""
            if nm in CAMEL_NAMES:
                extra = f"({d['camels'][nm]})"
            elif nm == "cards":
                extra = f"({d['action_pile_count']})"
            elif nm == "horses" and d["marker"] is None:
                extra = "(marker)"
            elif nm == "kalmyk":
                k = sum(1 for h in d["huts"] if h["at"] == "kalmyk")
                extra = f"({k} hut{'s' if k != 1 else ''})"
            who = "".join(f"[{x}]" for x in occ.get(nm, []))
            fields.append(f"{f if f < 8 else 'K'}:{nm}{extra}{who}")
        lines.append("caravan: " + "  ".join(fields))
        if "outside" in occ:
            lines.append("outside the caravan: " + " ".join(occ["outside"]))
        track = [h["at"] for h in d["huts"] if h["at"].startswith("track")]
        lines.append(f"round track: round {d['round']}; neutral huts on "
                     f"{', '.join(sorted(track)) or 'none'}; marker "
                     f"{'on the horses' if d['marker'] is None else 'with P%d' % d['marker']}")
        for r in range(8):
            huts = [h for h in d["huts"] if h["at"] == f"R{r + 1}"]
            ht = " ".join(h["id"] + ("{" + ",".join(g[0].upper() + g[1:3] for g in h["goods"]) + "}"
                                     if h["goods"] else "") for h in huts)
            posts = " ".join(f"P{p}x{ps['posts'][r]}" for p, ps in enumerate(d["player_state"])
                             if ps["posts"][r])
            links = [f"{c['colour']}({c['border']}{',used' if c['used'] else ''})"
                     for c in d["connections"] if c["border"] and str(r + 1) in c["border"].split("-")]
            lines.append(f"  R{r + 1}: huts {ht or '-'}; posts {posts or '-'}"
                         + (f"; links {' '.join(links)}" if links else ""))
        lines.append("trading cards up: " + (" ".join(d["trading_display"]) or "-")
                     + f"   (pile {d['trading_pile_count']})")
        for p, ps in enumerate(d["player_state"]):
            ac = ps.get("action_cards")
            act = (" ".join(f"{k}x{v}" for k, v in ac.items()) or "-") if ac is not None \
                else f"{ps['action_card_count']} hidden"
            tcs = " ".join(f"{k}x{v}" for k, v in ps["trading_cards"].items() if v) or "-"
            gd = " ".join(f"{k}x{v}" for k, v in ps["goods"].items() if v) or "-"
            lines.append(f"  P{p}: {ps['tugrik']:3d} Tugrik  goods {gd}  posts in hand "
                         f"{ps['supply']} (cart {ps['storage']})  hut {ps['hut']}  "
                         f"cards {tcs}  action cards {act}")
        if d["virtual_player"]:
            vc = " ".join(f"{k}x{v}" for k, v in d["virtual_cards"].items() if v) or "-"
            lines.append(f"  virtual player: second cameleer in R{d['second_cameleer']}, cards {vc}")
        if d["end_triggered"] or d["last_card_taken"]:
            lines.append("the end is triggered: the next trading round is the last")
        return "\n".join(lines)

    def narrate(self, GameCore before, int player, int move) -> list:
        """Lines for a spectator: what `player`'s `move` did, then the automatic events."""
        cdef Taschkent b = <Taschkent>before
        lines = [f"P{player} " + describe(b, self, player, move)]
        for kind, a, bb, c in self.last_events():
            t = event_text(kind, a, bb, c, self)
            if t:
                lines.append("  " + t)
        return lines


# ---------------------------------------------------------------- scoring helper
cdef int set_points(int a, int b, int c) noexcept:
    """Card sets scored to the maximum: 3 different = 6, a pair = 3, a single = 1."""
    cdef int best = 0, t, lim = a, v, x, i
    cdef int rest[3]
    if b < lim:
        lim = b
    if c < lim:
        lim = c
    for t in range(lim + 1):
        rest[0] = a - t
        rest[1] = b - t
        rest[2] = c - t
        v = 6 * t
        for i in range(3):
            x = rest[i]
            v += 3 * (x // 2) + (x % 2)
        if v > best:
            best = v
    return best

def card_set_points(int silk, int china, int spices) -> int:
    """Points of a hand of trading cards (the maximum over the ways to form sets)."""
    return set_points(silk, china, spices)


def _index(names, x, what) -> int:
    """The position of x in names; ValueError naming what was expected."""
    if x not in names:
        raise ValueError(f"unknown {what} {x!r} (one of {', '.join(names)})")
    return names.index(x)


# ---------------------------------------------------------------- a seat's view
VIEW_DERIVED = ("trading_pile_contents", "unknown_action_cards")   # optional on input, checked
VIEW_HIDDEN = ("seed", "action_pile", "removed_unseen", "trading_pile")


def _count(x, what) -> int:
    if type(x) is not int or x < 0:
        raise ValueError(f"{what} must be a non-negative integer, not {x!r}")
    return x


def _counts(dct, names, what) -> list:
    """A {name: count} object as a list of counts over `names` (missing names count 0)."""
    if not isinstance(dct, dict):
        raise ValueError(f"{what} must be an object of counts, not {dct!r}")
    for k in dct:
        if k not in names:
            raise ValueError(f"unknown {what} {k!r} (one of {', '.join(names)})")
    return [_count(dct.get(nm, 0), f"{what} {nm!r}") for nm in names]


def _norm(x):
    """For comparing views: objects without their zero counts (action_cards and played_cards
    list only the types held; a client may list zeros)."""
    if isinstance(x, dict):
        return {k: _norm(y) for k, y in x.items() if not (type(y) is int and y == 0)}
    if isinstance(x, list):
        return [_norm(y) for y in x]
    return x


def _view_hashes(dict rebuilt not None, int o):
    """(public, private) hashes of a view as written by to_json(view=o): public from what
    every seat's view shares (the same for every seat of one position), private from the
    seat's own action cards."""
    import copy
    pub = copy.deepcopy(rebuilt)
    for k in ("view",) + VIEW_DERIVED:
        pub.pop(k, None)
    mine = pub["player_state"][o].pop("action_cards")
    return _stable_hash(pub), _stable_hash([o, mine])


def taschkent_from_view(cls, v):
    import copy
    try:
        if not isinstance(v, dict) or v.get("game") != "taschkent":
            raise ValueError("not a Taschkent view (\"game\" must be \"taschkent\")")
        n = v["players"]
        if type(n) is not int or not 2 <= n <= 4:
            raise ValueError(f"players must be 2, 3 or 4, not {n!r}")
        o = v["view"]
        if type(o) is not int or not 0 <= o < n:
            raise ValueError(f"bad view seat {o!r}")
        d = copy.deepcopy(v)
        for k in ("view",) + VIEW_DERIVED + VIEW_HIDDEN:
            d.pop(k, None)
        pls = d["player_state"]
        if not isinstance(pls, list) or len(pls) != n or not all(isinstance(x, dict) for x in pls):
            raise ValueError(f"player_state must hold one object per player ({n})")
        for p, ps in enumerate(pls):
            if p != o and "action_cards" in ps:
                raise ValueError(f"a view holds only its own seat's action cards (P{p} has some)")
        # the action cards the seat cannot place, in a fixed order: other hands (by seat), the
        # pile, the cards removed face down
        mine = _counts(pls[o]["action_cards"], ACTION_NAMES, "action card")
        if sum(mine) != pls[o]["action_card_count"]:
            raise ValueError(f"the seat holds {sum(mine)} action cards, but its "
                             f"action_card_count says {pls[o]['action_card_count']!r}")
        played = _counts(d["played_cards"], ACTION_NAMES, "played card")
        unknown = [ACTION_DECK_COUNT - played[t] - mine[t] for t in range(N_ACTION_TYPES)]
        for t in range(N_ACTION_TYPES):
            if unknown[t] < 0:
                raise ValueError(f"the view is impossible: more than {ACTION_DECK_COUNT} "
                                 f"{ACTION_NAMES[t]} cards played and held")
        sizes = [(p, _count(pls[p]["action_card_count"], f"P{p} action_card_count"))
                 for p in range(n) if p != o]
        n_pile = _count(d["action_pile_count"], "action_pile_count")
        n_unseen = _count(d["removed_unseen_count"], "removed_unseen_count")
        if sum(k for _, k in sizes) + n_pile + n_unseen != sum(unknown):
            raise ValueError("the view is impossible: the other hands, the action pile and the "
                             f"removed cards hold {sum(k for _, k in sizes) + n_pile + n_unseen} "
                             f"cards, but {sum(unknown)} action cards are unaccounted for")
        cards = [ACTION_NAMES[t] for t in range(N_ACTION_TYPES) for _ in range(unknown[t])]
        i = 0
        for p, k in sizes:
            held = {}
            for c in cards[i:i + k]:
                held[c] = held.get(c, 0) + 1
            pls[p]["action_cards"] = held
            i += k
        d["action_pile"] = cards[i:i + n_pile]
        d["removed_unseen"] = cards[i + n_pile:]
        # the trading-card pile: what is not in sight, sorted
        seen = [0] * N_TC_TYPES
        holders = [ps["trading_cards"] for ps in pls]
        if n == 2:
            holders.append(d["virtual_cards"])
        for h in holders:
            for t, k in enumerate(_counts(h, TC_NAMES, "trading card")):
                seen[t] += k
        if not isinstance(d["trading_display"], list):
            raise ValueError("trading_display must be a list")
        for c in d["trading_display"]:
            if c not in TC_NAMES:
                raise ValueError(f"unknown trading card {c!r} (one of {', '.join(TC_NAMES)})")
            seen[TC_NAMES.index(c)] += 1
        left = [N_TC // N_TC_TYPES - seen[t] for t in range(N_TC_TYPES)]
        if any(k < 0 for k in left):
            raise ValueError(f"the view is impossible: more than {N_TC // N_TC_TYPES} trading "
                             "cards of a kind in sight")
        if sum(left) != _count(d["trading_pile_count"], "trading_pile_count"):
            raise ValueError(f"the view is impossible: {sum(left)} trading cards are out of "
                             f"sight but the pile holds {d['trading_pile_count']}")
        d["trading_pile"] = [TC_NAMES[t] for t in range(N_TC_TYPES) for _ in range(left[t])]
        st = cls.from_json(d)
        # everything the loader read, written back, must be what the view says
        rebuilt = st.to_json(view=o)
        for k, x in rebuilt.items():
            if k not in v:
                if k in VIEW_DERIVED:
                    continue
                raise ValueError(f"the view lacks the field {k!r}")
            if _norm(v[k]) != _norm(x):
                raise ValueError(f"the view's {k!r} does not fit the rest of the view "
                                 f"(it should be {x!r})")
        public, private = _view_hashes(rebuilt, o)
        (<Taschkent>st).adopt_view(o, public, private)
    except (KeyError, TypeError, IndexError, AttributeError, AssertionError, OverflowError) as e:
        raise ValueError(f"malformed Taschkent view: {e!r}") from None
    return st


# ---------------------------------------------------------------- notation helpers
def hut_name(int h) -> str:
    """Printed huts R<region><a|b|c>, neutral huts N1..N7, players' huts H0..H3."""
    if h < HUT_NEUTRAL0:
        for r in range(8):
            if PRINTED_FIRST[r] <= h < PRINTED_FIRST[r] + PRINTED_PER_REGION[r]:
                return f"R{r + 1}{'abc'[h - PRINTED_FIRST[r]]}"
    if h < HUT_PLAYER0:
        return f"N{h - HUT_NEUTRAL0 + 1}"
    return f"H{h - HUT_PLAYER0}"

def loc_text(int loc) -> str:
    if loc < 8:
        return f"R{loc + 1}"
    return ("supply", "track2", "track4", "kalmyk")[loc - 8]

def parse_loc(str t not None) -> int:
    if t in ("supply", "track2", "track4", "kalmyk"):
        return 8 + ("supply", "track2", "track4", "kalmyk").index(t)
    if len(t) == 2 and t[0] == "R" and t[1] in "12345678":
        return int(t[1]) - 1
    raise ValueError(f"bad hut location {t!r}")

def border_text(int b) -> str:
    return f"{BORDER_A[b] + 1}-{BORDER_B[b] + 1}"

def parse_border(str t not None) -> int:
    for b in range(N_BORDERS):
        if border_text(b) == t:
            return b
    raise ValueError(f"bad border {t!r}")

def camel_option_text(int d, int opt) -> str:
    if opt == 0:
        return FIELD_NAMES[d]
    if d <= 2:
        opt -= 1
        return f"{FIELD_NAMES[d]}-link-{STICK_NAMES[opt // 10]}-{border_text(opt % 10)}"
    return f"{FIELD_NAMES[d]}-hut-R{opt}"

def move_text(int move) -> str:
    kind = move >> K_SHIFT
    x = move & ((1 << K_SHIFT) - 1)
    if kind == K_SKIP:
        return ("no-move", "end-turn", "pass")[x]
    if kind == K_TUGRIK:
        return "tugrik"
    if kind == K_POST:
        return f"post-R{x + 1}"
    if kind == K_HUT:
        return f"hut-R{x + 1}"
    if kind == K_CAMEL:
        return "move-" + camel_option_text(x >> 5, x & 31)
    if kind == K_ACTIVITY:
        return f"card-activity-R{x + 1}"
    if kind == K_CAMCARD:
        return "card-cameleer-" + camel_option_text(x >> 5, x & 31)
    if kind == K_REMOVAL:
        return f"card-removal-R{(x >> 3) + 1}-R{(x & 7) + 1}"
    if kind == K_CARAVAN:
        return f"card-caravan-{hut_name(x >> 3)}-R{(x & 7) + 1}"
    if kind == K_SHORT_A:
        return f"card-shortage-{CAMEL_NAMES[x]}"
    if kind == K_SHORT_B:
        hg = x >> 2
        return f"card-shortage-{hut_name(hg // 3)}-{GOOD_NAMES[hg % 3]}-{CAMEL_NAMES[x & 3]}"
    if kind == K_35:
        return "card-35"
    if kind == K_SELL:
        t = x >> 9
        g = (x >> 7) & 3
        return (f"sell-{GOOD_NAMES[g]}-R{t + 1}-{'cards' if x >> 1 & 1 else 'tugrik'}"
                + ("-keep" if x & 1 else "") + f"-{hut_name((x >> 2) & 31)}")
    return f"?{move}"


def describe(Taschkent b, Taschkent a, int p, int move) -> str:
    """One sentence for a move, with what it cost and earned (b before, a after)."""
    kind = move >> K_SHIFT
    x = move & ((1 << K_SHIFT) - 1)
    paid = b.s.tugrik[p] - a.s.tugrik[p]
    cost = f", pays {paid} Tugrik" if paid > 0 else ""
    if kind == K_SKIP:
        return ("does not move the cameleer", "ends the turn",
                f"passes in region {b.s.tr_region + 1}")[x]
    if kind == K_TUGRIK:
        return "takes 1 Tugrik"
    if kind == K_POST:
        return f"places a trading post in region {x + 1}{cost}"
    if kind == K_HUT:
        return f"places the hut in region {x + 1}"
    if kind == K_ACTIVITY:
        return f"plays Activity: a trading post in region {x + 1}{cost}"
    if kind in (K_CAMEL, K_CAMCARD):
        d = x >> 5
        opt = x & 31
        head = "plays Cameleer: moves (free)" if kind == K_CAMCARD else "moves the cameleer"
        txt = f"{head} from {FIELD_LONG[b.s.cam_pos[p]]} to {FIELD_LONG[d]}"
        if opt and d <= 2:
            o = opt - 1
            txt += (f" and lays the {STICK_NAMES[o // 10]} trade connection on border "
                    f"{border_text(o % 10)}")
        elif opt and d == KALMYK:
            txt += f" and places a neutral hut in region {opt}"
        elif d == 1:
            got = []
            if b.s.marker < 0:
                got.append("the start player marker")
            if a.s.supply[p] > b.s.supply[p]:
                got.append("a trading post")
            txt += ": takes " + (" and ".join(got) if got else "nothing")
        elif d == 2:
            if a.n_cards(p) - b.n_cards(p) + (1 if kind == K_CAMCARD else 0) == 1:
                txt += ": draws an action card"
        elif d == 6:
            txt += f": takes {a.s.supply[p] - b.s.supply[p]} trading posts"
        elif FIELD_CAMEL[d] >= 0:
            txt += f": takes 1 {GOOD_NAMES[CAMEL_GOOD[FIELD_CAMEL[d]]]}"
        return txt + cost
    if kind == K_REMOVAL:
        return f"plays Removal: a trading post from region {(x >> 3) + 1} to region {(x & 7) + 1}"
    if kind == K_CARAVAN:
        return (f"plays Caravan moves on: hut {hut_name(x >> 3)} from region "
                f"{b.s.hut_loc[x >> 3] + 1} to region {(x & 7) + 1}")
    if kind == K_SHORT_A:
        return (f"plays Shortage: takes 1 {GOOD_NAMES[CAMEL_GOOD[x]]} from the {CAMEL_NAMES[x]} "
                f"camel and removes another")
    if kind == K_SHORT_B:
        hg = x >> 2
        return (f"plays Shortage: removes the {GOOD_NAMES[hg % 3]} from hut {hut_name(hg // 3)} "
                f"and 1 {GOOD_NAMES[CAMEL_GOOD[x & 3]]} from the {CAMEL_NAMES[x & 3]} camel")
    if kind == K_35:
        return "plays 3/5: takes 3 Tugrik"
    if kind == K_SELL:
        t = x >> 9
        g = (x >> 7) & 3
        r = b.s.tr_region
        via = f" via the {STICK_NAMES[g]} trade connection" if t != r else ""
        if x >> 1 & 1:
            got = [TC_NAMES[c] for c in range(3) for _ in range(a.s.tc[p][c] - b.s.tc[p][c])]
            earn = "cards " + (", ".join(got) or "none")
        else:
            earn = f"{a.s.tugrik[p] - b.s.tugrik[p]} Tugrik"
        post = "keeps the post (2 posts to the cart)" if x & 1 else "returns the post"
        return (f"sells {GOOD_NAMES[g]} from region {r + 1} into region {t + 1}{via}, onto hut "
                f"{hut_name((x >> 2) & 31)}: {earn}; {post}")
    return move_text(move)


def event_text(int kind, int a, int b, int c, Taschkent g) -> str:
    if kind == LG_DIE_ROUND:
        need = ROUND3_MIN if b == 3 else ROUND4_MIN
        return f"die {a}: " + (f"action round {b} follows" if a >= need else "trading round follows")
    if kind == LG_ROUND:
        return f"-- action round {a}" + (f" (cycle {g.s.cycle + 1})" if a == 1 else "")
    if kind == LG_START:
        return f"P{a} becomes start player"
    if kind == LG_TRADING:
        return "-- trading round"
    if kind == LG_TRADING_END:
        return f"trading round {a} over"
    if kind == LG_KALMYK_HUT:
        return f"the neutral hut of track field {a} goes to the Kalmyk"
    if kind == LG_TRACK_HUT:
        return f"a neutral hut is put on track field {a}"
    if kind == LG_VIRT_DIE:
        return f"virtual player: die {a}, neutral cameleer to {FIELD_LONG[b]}"
    if kind == LG_VIRT_CARD:
        return "virtual player removes the top action card from the game"
    if kind == LG_VIRT_SALE:
        card = f", takes a {TC_NAMES[c]} card" if c >= 0 else ", no trading card left"
        return f"virtual player sells {GOOD_NAMES[a]} in region {b + 1}{card}"
    if kind == LG_VIRT_LOST:
        return f"virtual player finds no hut for {GOOD_NAMES[a]}: removed from the game"
    if kind == LG_REFILL:
        return f"{a} trading card{'s' if a != 1 else ''} laid out"
    if kind == LG_END_TRIGGER:
        return "the end is triggered: this round is finished, then the last trading round"
    if kind == LG_LAST_CARD:
        return "the last trading card is taken: the game ends after this trading round"
    if kind == LG_STEAL:
        return f"P{a} (richer) draws {c} card{'s' if c != 1 else ''} blindly from P{b}"
    if kind == LG_OVER:
        tot = g.tugrik_totals()
        out = g.eliminated_players()
        pts = g.scores()
        txt = "game over: Tugrik " + " ".join(f"P{p}={t}" for p, t in enumerate(tot))
        if out:
            txt += "; out (poorest): " + ", ".join(f"P{p}" for p in out)
        txt += "; card points " + " ".join(f"P{p}={v}" for p, v in enumerate(pts))
        return txt
    return ""
