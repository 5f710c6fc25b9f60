# cython: language_level=3
"""Taschkent: every rule of the game in one compact C state.

The sections follow the game-module contract (cext/core.pxd) and read like the rulebook: the
component table (the map and every number), moves and phases (move kinds and their arguments,
the narration log's kinds), the state, set-up, move generation (action rounds, action cards,
trading rounds), playing a move (the move, then the end of the turn: the round track, the die,
the start player, the 2-player virtual player, the trading round, the end of the game),
scoring, information (hashes, determinization), copying and the bridge. Notation, JSON, views,
the checks of a loaded position, rendering and narration are the Python half, in
engine/games/taschkent.py: it reads and writes this state only through `_fields` and
`_set_fields` at the end of this file.

Rule interpretations are marked "Interpretation" and explained in docs/rules/taschkent.md.
"""
cimport cython
from libc.stdint cimport uint64_t, uint32_t
from libc.string cimport memset
from cext.core cimport GameCore, EventLog, MAX_MOVES, TRACK_ALL, head_fits, log_event
from cext.moves cimport make_move, move_kind, move_arg
from cext.rng cimport Rng, rng_seed, rng_next, rng_below, mix64
from cext.bits cimport i8, u8, popcount, lowest_bit, shuffle_bytes, sort_bytes
from cext.infohash cimport InfoHash, ih_reset, ih_public, ih_private, ih_resample

# ================================================================ component table
# Every number of the game lives here. Numbers the rulebook does not print are marked
# "Interpretation" (they come from ../shared/RULES-NOTES.md) and explained in
# docs/rules/taschkent.md. (cpdef: the Python half reads them too.)
cpdef enum:
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
    TC_PER_TYPE = 10
    MAX_SEATS = 4
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
    LAST_ROUND = 4
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
# Set-up choices (game options): "One of each good (iron, jade, indigo) is placed on any hut on
# the board" and, with 4 players, "a neutral hut is placed in one of the regions". The
# defaults are the rulebook's first game: iron and jade on a hut in region 4 (R4a), indigo on
# a hut in region 7 (R7a); the neutral hut (N3) in region 3.
cdef int SETUP_GOOD_REGION[3]
SETUP_GOOD_REGION[:] = [3, 3, 6]
FOUR_PLAYER_NEUTRAL_REGION = 2
SETUP_NEUTRAL_HUT = HUT_NEUTRAL0 + 2                     # N3: the 4-player game's neutral hut
PY_SETUP_GOOD_HUTS = tuple(sum(PRINTED_PER_REGION[r] for r in range(SETUP_GOOD_REGION[g]))
                           for g in range(N_GOODS))     # hut ids R4a, R4a, R7a

# The same tables for the Python half (engine/games/taschkent.py), which checks loaded positions
PY_PRINTED = tuple(PRINTED_PER_REGION[r] for r in range(N_REGIONS))
PY_BORDERS = tuple((BORDER_A[b], BORDER_B[b]) for b in range(N_BORDERS))
PY_CAMEL_START = tuple(CAMEL_START[c] for c in range(N_CAMELS))
PY_CAMEL_GOOD = tuple(CAMEL_GOOD[c] for c in range(N_CAMELS))
PY_FIELD_CAMEL = tuple(FIELD_CAMEL[d] for d in range(N_FIELDS))

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

# ================================================================ moves and phases
# A move is make_move(kind, argument) (cext/moves.pxd); the legal moves ascend by kind, then
# by argument. An argument that packs several numbers has one packing function and named
# accessors below (cpdef: the Python half reads moves with them too).
cpdef enum:
    PH_ACTION = 0            # the player's action
    PH_MOVE2 = 1             # the cameleer move after the action (optional)
    PH_END = 2               # end of the turn: Activity, Cameleer and the other cards
    PH_SELL = 3              # trading round: the seller to move sells one good or passes (for
                             #   this lap: tr_passed holds the seats that passed since the last sale)
    PH_OVER = 4

    MV_SKIP = 1              # argument SKIP_MOVE: no second move, SKIP_TURN: end the turn,
                             #   SKIP_PASS: pass (trading)
    MV_TUGRIK = 2            # argument 0
    MV_POST = 3              # argument: the region
    MV_HUT = 4               # argument: the region
    MV_CAMEL = 5             # argument: camel_arg(field, option)
    MV_ACTIVITY = 6          # argument: the region
    MV_CAMCARD = 7           # argument: camel_arg(field, option) (the Cameleer card: a free move)
    MV_REMOVAL = 8           # argument: reloc_arg(region, to): a post to a neighbouring region
    MV_CARAVAN = 9           # argument: reloc_arg(hut, to): a hut to a neighbouring region
    MV_SHORT_A = 10          # argument: the camel (Shortage: take one, remove one)
    MV_SHORT_B = 11          # argument: shortage_arg(hut, good, camel)
    MV_35 = 12               # argument 0
    MV_SELL = 13             # argument: sale_arg(target, good, hut, cards, keep)

    SKIP_MOVE = 0
    SKIP_TURN = 1
    SKIP_PASS = 2

    # The most legal moves a reachable position can have. The action phase has the most
    # (move2 and the end-of-turn step offer a subset of the same kinds, a trading round at
    # most 193: 1 pass + 4 ways x 48 hut-good pairs, all 11 movable huts in corner R4 and every
    # connection on 4-8). Counting each kind at its own maximum:
    #   take 1 Tugrik 1, a post 8 (regions), the own hut 8 (regions),
    #   cameleer moves 76: 8 fields, plus 3 connections x 10 borders on fields 1 and 2 (60),
    #     plus a Kalmyk hut into 8 regions,
    #   Removal 20 (2 x 10 borders: each border in both directions),
    #   Caravan moves on 24 (7 neutral huts and the own hut, each to at most 3 neighbours),
    #   Shortage 132: 4 camels, plus every good on a hut with every non-empty camel; with all
    #     4 camels non-empty at most 11 iron, 11 jade and 10 indigo lie on huts: 32 x 4 = 128,
    #   3/5 1.
    # 1 + 8 + 8 + 76 + 20 + 24 + 132 + 1 = 270. (Some maxima exclude each other, so the
    # true maximum is a little lower; tests/test_taschkent_loading.py builds a position near it.)
    MOST_MOVES = 270
    # The most moves gen_moves can write whatever the values in the state, even values no
    # position has (its guard refuses only indices out of range): every loop runs over a fixed
    # range or a 32-bit mask, and the largest is a trading round's: 1 pass + 2 target regions
    # x 3 goods x 32 huts x 4 ways (cards or Tugrik, keep or not) = 769.
    GEN_MOVES_CAP = 769

    EV_MOVE = 1              # information events (type << 56 | payload)
    EV_DRAW = 2
    EV_DIE = 3
    EV_TC = 4
    EV_ACTOR = 5

    # kinds of the narration log (core.pxd's EventLog); the player is -1 unless given
    LOG_DIE_ROUND = 1        # a: die, b: the round it decides
    LOG_ROUND = 2            # a: new round
    LOG_START = 3            # player and a: the new start player
    LOG_TRADING = 4
    LOG_TRADING_END = 5      # a: the trading rounds played
    LOG_KALMYK_HUT = 6       # a: track field
    LOG_VIRT_DIE = 7         # a: die, b: field reached
    LOG_VIRT_CARD = 8        # an action card removed
    LOG_VIRT_SALE = 9        # a: good, b: region, c: trading card or -1
    LOG_VIRT_LOST = 10       # a: good removed from the game
    LOG_REFILL = 11          # a: cards added
    LOG_OVER = 12
    LOG_STEAL = 13           # player and a: richer, b: poorer, c: cards taken
    LOG_END_TRIGGER = 14     # a: the action round it came in
    LOG_LAST_CARD = 15
    LOG_TRACK_HUT = 17       # a: track field given a neutral hut


if <int>MOST_MOVES > <int>GEN_MOVES_CAP or <int>GEN_MOVES_CAP > <int>MAX_MOVES:
    raise ImportError("a Taschkent position can have more moves than a move buffer holds")

# MV_CAMEL, MV_CAMCARD: the cameleer to field `field`; option 0 performs the field's action,
# link_option() lays a trade connection instead (fields 1 and 2), hut_option() places the
# Kalmyk's neutral hut (field 8).
cpdef inline int camel_arg(int field, int option) noexcept nogil: return field * 32 + option
cpdef inline int camel_field(int arg) noexcept nogil: return arg >> 5
cpdef inline int camel_option(int arg) noexcept nogil: return arg & 31

cpdef inline int link_option(int stick, int border) noexcept nogil: return 1 + stick * 10 + border
cpdef inline int link_stick(int option) noexcept nogil: return (option - 1) // 10
cpdef inline int link_border(int option) noexcept nogil: return (option - 1) % 10

cpdef inline int hut_option(int region) noexcept nogil: return 1 + region
cpdef inline int hut_option_region(int option) noexcept nogil: return option - 1

# MV_REMOVAL: a trading post from region `src`; MV_CARAVAN: hut `src`; to region `dest`
cpdef inline int reloc_arg(int src, int dest) noexcept nogil: return src * 8 + dest
cpdef inline int reloc_src(int arg) noexcept nogil: return arg >> 3
cpdef inline int reloc_dest(int arg) noexcept nogil: return arg & 7

# MV_SHORT_B: good `good` off hut `hut`, and one good off camel `camel`
cpdef inline int shortage_arg(int hut, int good, int camel) noexcept nogil:
    return (hut * 3 + good) * 4 + camel

cpdef inline int shortage_hut(int arg) noexcept nogil: return (arg >> 2) // 3
cpdef inline int shortage_good(int arg) noexcept nogil: return (arg >> 2) % 3
cpdef inline int shortage_camel(int arg) noexcept nogil: return arg & 3

# MV_SELL: good `good` sold into region `target`, onto hut `hut`, for trading cards (cards 1)
# or Tugrik, keeping the trading post (keep 1) or not
cpdef inline int sale_arg(int target, int good, int hut, int cards, int keep) noexcept nogil:
    return target * 512 + good * 128 + hut * 4 + cards * 2 + keep

cpdef inline int sale_target(int arg) noexcept nogil: return arg >> 9
cpdef inline int sale_good(int arg) noexcept nogil: return (arg >> 7) & 3
cpdef inline int sale_hut(int arg) noexcept nogil: return (arg >> 2) & 31
cpdef inline int sale_cards(int arg) noexcept nogil: return (arg >> 1) & 1
cpdef inline int sale_keep(int arg) noexcept nogil: return arg & 1

# ================================================================ state
cdef struct TaschkentState:
    int tracking                     # StateHead (core.pxd): these three fields first
    InfoHash ih
    EventLog log
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
    # u8, not int: Cython 3.3 converts a dict to this struct through one scratch array per
    # element type and outer length, sized for the first such field (int goods[4][3]), so an
    # int hand[4][6] would overrun it in _set_fields. No other field is a u8[4][k] array.
    u8 hand[4][6]
    int played[6]                       # played (public) and removed from the game
    i8 unseen[12]              # 2 players: removed face down by the virtual player
    int n_unseen
    i8 tc_pile[30]             # trading cards, face down, top = tc_pile[n_tc_pile - 1]
    int n_tc_pile
    i8 disp[10]                # the face-up row, left = disp[0]
    int n_disp
    int tc[4][3]
    int vtc[3]                          # the virtual player's trading cards
    int tr_region, tr_passed            # the region being evaluated; the seats that passed since its last sale
    int end_triggered, last_card
    int turns
    i8 setup_hut[3]            # set-up (options): the hut each good was placed on
    i8 setup_region            # set-up (option): the region of the 4-player neutral hut N3, else -1
    Rng chance
    unsigned int move_log      # log.count when the last move began: its entries follow

cdef TaschkentState _layout_probe
if not head_fits(&_layout_probe, &_layout_probe.tracking, &_layout_probe.ih, &_layout_probe.log):
    raise ImportError("TaschkentState must begin with the fields of StateHead (cext/core.pxd)")


cdef inline void note(TaschkentState* s, int kind, int player, int a, int b, int c) noexcept nogil:
    """Narration: an entry of the shared log (a LOG_* kind), written at TRACK_ALL
    (states made from Python; not in the search's tree or playouts)."""
    if s.tracking == TRACK_ALL:
        log_event(&s.log, kind, player, a, b, c)


cdef inline int step_price(int pos, int d) noexcept nogil:
    """The steps a move from field pos to field d pays: those beyond the free three."""
    cdef int steps
    if pos == OUTSIDE:
        return 0                                  # Interpretation: entering is free
    if pos == KALMYK or d == KALMYK:
        return 0                                  # Interpretation: one step to or from the
                                                  # Kalmyk, within the free three
    steps = d - pos if d > pos else pos - d
    return steps - FREE_STEPS if steps > FREE_STEPS else 0


# ================================================================ set-up
cdef class TaschkentCore(GameCore):
    """The rules of Taschkent on one C state. `TaschkentCore(players=3, seed=0)` deals a new
    game; 2 players = the variant with the virtual player (not a seat: its moves are automatic,
    die-driven steps). The game API (notation, JSON, views) is its subclass
    engine.games.taschkent.Taschkent."""
    cdef TaschkentState s
    name, title = "taschkent", "Taschkent"
    min_players, max_players, default_players = 2, 4, 3

    options = {
        "goods": "the hut each starting good goes on, e.g. iron:R2a,jade:R5b,indigo:R7a "
                 "(printed huts R1a..R8b, with 4 players also N3; default: the first game's "
                 "iron:R4a,jade:R4a,indigo:R7a)",
        "neutral_region": "4 players: the region 1-8 of the neutral hut placed at set-up "
                          "(default: the first game's 3)",
    }

    def __cinit__(self, *args, **kwargs):
        self.bind_state(&self.s, sizeof(TaschkentState))

    def __init__(self, players=None, seed=0, goods=None, neutral_region=None):
        """A new game for `players` (3 if None) dealt from `seed`. `goods`: the hut ids
        (0..11 printed, with 4 players also N3) that receive iron, jade and indigo at set-up
        (default: the first game's); `neutral_region`: 4 players only, the region index 0..7
        of the neutral hut N3 (default: region 3, index 2). The game API (engine.games.
        taschkent.Taschkent) also takes them as text."""
        cdef int n, g, h
        self._start(self.default_players if players is None else players, seed)
        n = self.n_players
        hut_ids = PY_SETUP_GOOD_HUTS if goods is None else tuple(goods)
        if len(hut_ids) != N_GOODS:
            raise ValueError(f"goods: one hut per good (iron, jade, indigo), not {len(hut_ids)}")
        for g in range(N_GOODS):
            h = hut_ids[g]
            if not (0 <= h < N_PRINTED or (n == 4 and h == SETUP_NEUTRAL_HUT)):
                raise ValueError(f"goods: hut {h} is not on the board at set-up")
        if n != 4 and neutral_region is not None:
            raise ValueError(f"neutral_region: only a 4-player game places a neutral hut in a "
                             f"region at set-up, not a {n}-player game")
        region = FOUR_PLAYER_NEUTRAL_REGION if neutral_region is None else neutral_region
        if not 0 <= region < N_REGIONS:
            raise ValueError(f"neutral_region: no region index {region}")
        memset(&self.s, 0, sizeof(TaschkentState))
        self.set_tracking(TRACK_ALL)        # a game played from Python keeps its information
        for g in range(N_GOODS):
            self.s.setup_hut[g] = hut_ids[g]
        self.s.setup_region = region if n == 4 else -1
        self.set_up()

    @cython.final
    cdef void set_up(self) noexcept:
        """The set-up: the pre-printed huts, the goods on their huts (setup_hut: the option,
        else the first game's), the camels and neutral huts on their fields (with 4 players one
        in setup_region), the action and trading piles shuffled, the display, Tugrik, posts,
        and the first turn of the first action round."""
        cdef TaschkentState* s = &self.s
        cdef int n = self.n_players
        cdef uint64_t seed = self.seed
        cdef int i, p, r
        s.n = n
        s.virt = n == 2
        s.display_size = DISPLAY_2 if n == 2 else (DISPLAY_3 if n == 3 else DISPLAY_4)
        rng_seed(&s.chance, seed)
        ih_reset(&s.ih, <uint64_t>n + 0x7A5C)
        for i in range(N_HUTS):
            s.hut_loc[i] = LOC_SUPPLY
        for r in range(N_REGIONS):
            for i in range(PRINTED_PER_REGION[r]):
                self.put_hut(PRINTED_FIRST[r] + i, r)
        for i in range(N_GOODS):                 # one of each good on a hut (the option)
            s.hut_has[i] |= 1u << s.setup_hut[i]
        for i in range(N_CAMELS):
            s.camel[i] = CAMEL_START[i]
        s.hut_loc[HUT_NEUTRAL0] = LOC_TRACK2
        s.hut_loc[HUT_NEUTRAL0 + 1] = LOC_TRACK4
        if n == 4:
            self.put_hut(SETUP_NEUTRAL_HUT, s.setup_region)
        for i in range(3):
            s.stick_border[i] = -1
        for i in range(N_ACTION_CARDS):
            s.pile[i] = ACTION_DECK[i]
        s.n_pile = N_ACTION_CARDS
        shuffle_bytes(&s.chance, s.pile, N_ACTION_CARDS)
        for i in range(N_TC):
            s.tc_pile[i] = i // TC_PER_TYPE
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

    @cython.final
    cdef inline void put_hut(self, int h, int r) noexcept:
        self.s.hut_loc[h] = r
        self.s.region_huts[r] |= 1u << h

    @cython.final
    cdef inline void lift_hut(self, int h) noexcept:
        cdef int r = self.s.hut_loc[h]
        if r < N_REGIONS:
            self.s.region_huts[r] &= ~(1u << h)

    @cython.final
    cdef void refill_display(self) noexcept:
        cdef TaschkentState* s = &self.s
        cdef int added = 0
        while s.n_disp < s.display_size and s.n_disp < DISPLAY_4 and s.n_tc_pile > 0:
            s.n_tc_pile -= 1
            s.disp[s.n_disp] = s.tc_pile[s.n_tc_pile]
            if s.tracking:
                ih_public(&s.ih, (<uint64_t>EV_TC << 56) | <uint64_t>s.disp[s.n_disp])
            s.n_disp += 1
            added += 1
        if added:
            note(s, LOG_REFILL, -1, added, 0, 0)

# ================================================================ move generation
    @cython.final
    cdef int current(self) noexcept:
        return -1 if self.s.phase == PH_OVER else self.s.actor

    @cython.final
    cdef inline int post_price(self, int p, int r) noexcept:
        """1 per trading post there (anyone's) + 1 per neutral, printed or opponent hut."""
        cdef TaschkentState* s = &self.s
        cdef int q, c = popcount(s.region_huts[r] & ~(1u << (HUT_PLAYER0 + p)))
        for q in range(s.n):
            c += s.posts[q][r]
        return c

    @cython.final
    cdef inline int hut_price(self, int p, int r) noexcept:
        """Kalmyk neutral hut: 1 per neutral, printed or opponent hut in the region."""
        return popcount(self.s.region_huts[r] & ~(1u << (HUT_PLAYER0 + p)))

    @cython.final
    cdef inline int lacking(self, int r, int g) noexcept:
        """Huts of region r without good g."""
        return popcount(self.s.region_huts[r] & ~self.s.hut_has[g])

    @cython.final
    cdef int move_price(self, int p, int d) noexcept:
        """Steps beyond the free three, plus 1 per other cameleer on the destination."""
        cdef TaschkentState* s = &self.s
        cdef int c = step_price(s.cam_pos[p], d), q
        for q in range(s.n):
            if q != p and s.cam_pos[q] == d:
                c += 1
        if s.virt and s.nc_pos == d:
            c += 1
        return c

    @cython.final
    cdef inline void field_crowds(self, int p, int* crowd) noexcept:
        """crowd[d]: the other cameleers on field d (the 2-player neutral one included), each
        1 Tugrik on a move there: move_price's second part for every field at once."""
        cdef TaschkentState* s = &self.s
        cdef int q, d
        for d in range(N_FIELDS):
            crowd[d] = 0
        for q in range(s.n):
            d = s.cam_pos[q]
            if q != p and <unsigned>d < N_FIELDS:
                crowd[d] += 1
        if s.virt and <unsigned>s.nc_pos < N_FIELDS:
            crowd[s.nc_pos] += 1

    @cython.final
    cdef inline bint field_open(self, int d) noexcept:
        """A field whose action can be performed (an empty camel is not available)."""
        cdef int c = FIELD_CAMEL[d]
        if c >= 0:
            return self.s.camel[c] > 0
        if d == 2:
            return self.s.n_pile > 0
        return True

    @cython.final
    cdef inline bint kalmyk_hut(self) noexcept:
        cdef int h
        for h in range(HUT_NEUTRAL0, HUT_NEUTRAL0 + N_NEUTRAL):
            if self.s.hut_loc[h] == LOC_KALMYK:
                return True
        return False

    @cython.final
    cdef inline int n_cards(self, int p) noexcept:
        cdef int t, c = 0
        for t in range(N_ACTION_TYPES):
            c += self.s.hand[p][t]
        return c

    @cython.final
    cdef int gen_camel_moves(self, int p, int kind, bint free, int* buf, int n,
                             bint policy=False) noexcept:
        """The cameleer's moves to every field p can pay for, ascending; with `policy`, only
        those the playout policy takes (not wasteful: no trade connection, no Kalmyk visit
        without a hut)."""
        cdef TaschkentState* s = &self.s
        cdef int d, mc, rem, st, b, r, base, pos = s.cam_pos[p], tug = s.tugrik[p]
        cdef bint khut = self.kalmyk_hut()
        cdef int crowd[N_FIELDS]
        if not free:
            self.field_crowds(p, crowd)
        for d in range(1, N_FIELDS):
            if d == pos or d == s.last_start:
                continue
            mc = 0 if free else step_price(pos, d) + crowd[d]
            if mc > tug:
                continue
            rem = tug - mc
            base = make_move(kind, camel_arg(d, 0))     # the field's action; an option adds
            if self.field_open(d) and not (policy and d == KALMYK):   # an option adds to
                buf[n] = base                                           # the argument (< 32)
                n += 1
            if d <= 2:
                if rem >= CONNECTION_PRICE and not policy:
                    for st in range(3):
                        if s.stick_border[st] < 0 or s.stick_used[st]:
                            for b in range(N_BORDERS):
                                if b != s.stick_border[st]:
                                    buf[n] = base + link_option(st, b)
                                    n += 1
            elif d == KALMYK and khut:
                for r in range(N_REGIONS):
                    if self.hut_price(p, r) <= rem:
                        buf[n] = base + hut_option(r)
                        n += 1
        return n

    @cython.final
    cdef inline int gen_relocations(self, int kind, int src, int r, int* buf, int n) noexcept:
        """The moves of `kind` taking `src` (a post's region, a hut) from region r to each
        neighbouring region, ascending."""
        cdef uint32_t m = NEIGH[r]
        while m:
            buf[n] = make_move(kind, reloc_arg(src, lowest_bit(m)))
            n += 1
            m &= m - 1
        return n

    @cython.final
    cdef int gen_anytime(self, int p, int* buf, int n, bint policy=False) noexcept:
        """Removal, Caravan moves on, Shortage and 3/5: playable at any point of the own turn;
        with `policy`, only those the playout policy takes (Shortage on a camel)."""
        cdef TaschkentState* s = &self.s
        cdef int a, h, g, c, r
        if s.hand[p][AC_REMOVAL] and not policy:
            for a in range(N_REGIONS):
                if s.posts[p][a] > 0:
                    n = self.gen_relocations(MV_REMOVAL, a, a, buf, n)
        if s.hand[p][AC_CARAVAN] and not policy:
            for h in range(HUT_NEUTRAL0, N_HUTS):
                r = s.hut_loc[h]
                if r < 0 or r >= N_REGIONS:           # off the map (never negative when loaded)
                    continue
                if h >= HUT_PLAYER0 and h != HUT_PLAYER0 + p:
                    continue
                n = self.gen_relocations(MV_CARAVAN, h, r, buf, n)
        if s.hand[p][AC_SHORTAGE]:
            for c in range(N_CAMELS):
                if s.camel[c] > 0:
                    buf[n] = make_move(MV_SHORT_A, c)
                    n += 1
            if not policy:
                for h in range(N_HUTS):
                    for g in range(N_GOODS):
                        if (s.hut_has[g] >> h) & 1:
                            for c in range(N_CAMELS):
                                if s.camel[c] > 0:
                                    buf[n] = make_move(MV_SHORT_B, shortage_arg(h, g, c))
                                    n += 1
        if s.hand[p][AC_35] and not policy:
            buf[n] = make_move(MV_35, 0)
            n += 1
        return n

    @cython.final
    cdef int gen_sales(self, int p, int* buf, int n, bint probe) noexcept:
        """Sales of p in the region being evaluated, ascending (target, good, receiving hut,
        cards, keep). The seller names the hut of the target region that receives the good
        (any hut there without that good). probe: only tell whether there is a sale (returns
        n + 1 at the first one, writes nothing)."""
        cdef TaschkentState* s = &self.s
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
                            buf[n] = make_move(MV_SELL, sale_arg(t, g, h, cards, keep))
                            n += 1
        return n

    @cython.final
    cdef bint can_sell(self, int p) noexcept:
        return self.gen_sales(p, NULL, 0, True) > 0

    @cython.final
    cdef int gen_posts(self, int p, int kind, int* buf, int n) noexcept:
        """A trading post into each region whose price p can pay (kind MV_POST or
        MV_ACTIVITY), ascending: post_price for all regions, the posts counted in one pass."""
        cdef TaschkentState* s = &self.s
        cdef int q, r, own = HUT_PLAYER0 + p, tug = s.tugrik[p]
        cdef int price[N_REGIONS]
        for r in range(N_REGIONS):
            price[r] = popcount(s.region_huts[r] & ~(1u << own))
        for q in range(s.n):
            for r in range(N_REGIONS):
                price[r] += s.posts[q][r]
        for r in range(N_REGIONS):
            if price[r] <= tug:
                buf[n] = make_move(kind, r)
                n += 1
        return n

    @cython.final
    cdef int gen_moves(self, int* buf) noexcept:
        return self.gen_listed(buf, False)

    @cython.final
    cdef int gen_listed(self, int* buf, bint policy) noexcept:
        """gen_moves, or with `policy` the legal moves that are not wasteful (the playout
        policy's), in the same order: the others are not generated at all."""
        cdef TaschkentState* s = &self.s
        cdef int p = s.actor, n = 0, r
        # Guard: the loops below index the C arrays by the seat to move, the seat count and
        # (selling) the region being evaluated. A loaded state has them in range
        # (engine/games/taschkent.py checks it); whatever the state, nothing is generated
        # from values that are not, so no read or write can leave the arrays or the buffer.
        if s.n < 2 or s.n > MAX_SEATS or p < 0 or p >= s.n:
            return 0
        if s.phase == PH_SELL and (s.tr_region < 0 or s.tr_region >= N_REGIONS):
            return 0
        if s.phase == PH_ACTION:
            buf[n] = make_move(MV_TUGRIK, 0)
            n += 1
            if s.supply[p] > 0:
                n = self.gen_posts(p, MV_POST, buf, n)
            if s.hut_loc[HUT_PLAYER0 + p] == LOC_SUPPLY:
                for r in range(N_REGIONS):
                    buf[n] = make_move(MV_HUT, r)
                    n += 1
            n = self.gen_camel_moves(p, MV_CAMEL, False, buf, n, policy)
            return self.gen_anytime(p, buf, n, policy)
        if s.phase == PH_MOVE2:
            buf[n] = make_move(MV_SKIP, SKIP_MOVE)
            n += 1
            n = self.gen_camel_moves(p, MV_CAMEL, False, buf, n, policy)
            return self.gen_anytime(p, buf, n, policy)
        if s.phase == PH_END:
            buf[n] = make_move(MV_SKIP, SKIP_TURN)
            n += 1
            if s.hand[p][AC_ACTIVITY] and s.supply[p] > 0:
                n = self.gen_posts(p, MV_ACTIVITY, buf, n)
            if s.hand[p][AC_CAMELEER]:
                n = self.gen_camel_moves(p, MV_CAMCARD, True, buf, n, policy)
            return self.gen_anytime(p, buf, n, policy)
        if s.phase == PH_SELL:
            if policy:                  # a sale if there is one: passing is wasteful then
                n = self.gen_sales(p, buf, 0, False)
                if n > 0:
                    return n
                buf[0] = make_move(MV_SKIP, SKIP_PASS)
                return 1
            buf[0] = make_move(MV_SKIP, SKIP_PASS)
            return self.gen_sales(p, buf, 1, False)
        return 0

    # ------------------------------------------------------------ playout policy
    # A search aid, not a rule (docs/rules/taschkent.md, "Playout policy"): the move the
    # ISMCTS playouts take. It reads only this state and rng: uniformly random among the
    # legal moves, leaving out those that rarely help: a trade connection (2 Tugrik), the
    # Kalmyk without placing a hut, Removal, Caravan moves on, Shortage on a hut, 3/5 (3
    # Tugrik now, 5 at the end), and a pass while a sale is possible. gen_listed(buf, True)
    # generates just the others, so a playout never writes the hundreds of trade connections
    # and Shortages on a hut it would throw away. (Tried and measured worse at equal time:
    # choosing the sale that earns most, and rule-based actions.)
    @cython.final
    cdef int playout_move(self, Rng* rng) noexcept:
        """A uniformly random legal move that is not wasteful (any legal move if all are)."""
        cdef int buf[GEN_MOVES_CAP]
        cdef int k = self.gen_listed(buf, True)
        if k == 0:
            return self.random_move(rng)
        return buf[rng_below(rng, k)]

    def policy_moves(self) -> list:
        """The moves the playout policy draws from here, in order (a test and inspection
        aid; [] when the game is over)."""
        cdef int buf[GEN_MOVES_CAP]
        cdef int k = self.gen_listed(buf, True)
        return [buf[i] for i in range(k)]

# ================================================================ playing a move
    @cython.final
    cdef void do_move(self, int move) noexcept:
        cdef TaschkentState* s = &self.s
        cdef int p = s.actor, kind = move_kind(move), x = move_arg(move)
        if s.tracking:
            s.move_log = s.log.count
            ih_public(&s.ih, (<uint64_t>EV_MOVE << 56) | (<uint64_t>p << 32) | <uint32_t>move)
        if kind == MV_SKIP:
            if x == SKIP_MOVE:
                self.after_move2()
            elif x == SKIP_TURN:
                self.end_turn()
            else:
                s.tr_passed |= 1 << p
                s.actor = (p + 1) % s.n
                self.next_seller()
        elif kind == MV_TUGRIK:
            s.tugrik[p] += 1
            s.phase = PH_MOVE2
        elif kind == MV_POST or kind == MV_ACTIVITY:
            s.tugrik[p] -= self.post_price(p, x)
            s.posts[p][x] += 1
            s.supply[p] -= 1
            if kind == MV_POST:
                s.phase = PH_MOVE2
            else:
                self.play_card(p, AC_ACTIVITY)
        elif kind == MV_HUT:
            self.put_hut(HUT_PLAYER0 + p, x)
            s.phase = PH_MOVE2
        elif kind == MV_CAMEL:
            self.move_cameleer(p, camel_field(x), camel_option(x), False)
            if s.phase == PH_ACTION:
                s.phase = PH_MOVE2
            else:
                self.after_move2()
        elif kind == MV_CAMCARD:
            self.play_card(p, AC_CAMELEER)
            self.move_cameleer(p, camel_field(x), camel_option(x), True)
        elif kind == MV_REMOVAL:
            self.play_card(p, AC_REMOVAL)
            s.posts[p][reloc_src(x)] -= 1
            s.posts[p][reloc_dest(x)] += 1
        elif kind == MV_CARAVAN:
            self.play_card(p, AC_CARAVAN)
            self.lift_hut(reloc_src(x))
            self.put_hut(reloc_src(x), reloc_dest(x))
        elif kind == MV_SHORT_A:
            self.play_card(p, AC_SHORTAGE)
            s.camel[x] -= 1
            s.goods[p][CAMEL_GOOD[x]] += 1
            if s.camel[x] > 0:
                s.camel[x] -= 1
                s.removed_goods[CAMEL_GOOD[x]] += 1
            self.check_camels()
        elif kind == MV_SHORT_B:
            self.play_card(p, AC_SHORTAGE)
            s.hut_has[shortage_good(x)] &= ~(1u << shortage_hut(x))
            s.removed_goods[shortage_good(x)] += 1
            s.camel[shortage_camel(x)] -= 1
            s.removed_goods[CAMEL_GOOD[shortage_camel(x)]] += 1
            self.check_camels()
        elif kind == MV_35:
            self.play_card(p, AC_35)
            s.tugrik[p] += CARD35_TUGRIK
        elif kind == MV_SELL:
            self.sell(p, sale_target(x), sale_good(x), sale_hut(x), sale_cards(x), sale_keep(x))
            # Interpretation: a pass is for this lap only; after a sale every seat may sell
            # again, and the region ends when all who could sell passed since the last sale
            s.tr_passed = 0
            s.actor = (p + 1) % s.n
            self.next_seller()

    @cython.final
    cdef void play_card(self, int p, int t) noexcept:
        self.s.hand[p][t] -= 1
        self.s.played[t] += 1

    @cython.final
    cdef void move_cameleer(self, int p, int d, int opt, bint free) noexcept:
        """Move p's cameleer to field d (paying unless free) and perform the field's action."""
        cdef TaschkentState* s = &self.s
        cdef int c, k, h
        if not free:
            s.tugrik[p] -= self.move_price(p, d)
        s.last_start = s.cam_pos[p]
        s.cam_pos[p] = d
        if opt > 0 and d <= 2:                       # a trade connection instead of the action
            s.tugrik[p] -= CONNECTION_PRICE
            s.stick_border[link_stick(opt)] = link_border(opt)
            s.stick_used[link_stick(opt)] = 0
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
                        s.tugrik[p] -= self.hut_price(p, hut_option_region(opt))
                        self.put_hut(h, hut_option_region(opt))
                        break
        else:
            c = FIELD_CAMEL[d]
            if c >= 0 and s.camel[c] > 0:
                s.camel[c] -= 1
                s.goods[p][CAMEL_GOOD[c]] += 1
                self.check_camels()

    @cython.final
    cdef void check_camels(self) noexcept:
        """The last good of a kind taken from the caravan ends the game after this round."""
        cdef TaschkentState* s = &self.s
        if s.camel[0] == 0 or s.camel[2] == 0 or (s.camel[1] == 0 and s.camel[3] == 0):
            self.trigger_end()

    @cython.final
    cdef void trigger_end(self) noexcept:
        if not self.s.end_triggered:
            self.s.end_triggered = 1
            note(&self.s, LOG_END_TRIGGER, -1, self.s.round, 0, 0)

    @cython.final
    cdef void sell(self, int p, int t, int g, int h, int cards, int keep) noexcept:
        """p sells good g into region t, placing it on hut h (the seller's choice)."""
        cdef TaschkentState* s = &self.s
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
            self.check_last_card(False)
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

    @cython.final
    cdef void check_last_card(self, bint by_virtual_player) noexcept:
        """The last trading card taken: the game ends after this trading round, or, when the
        virtual player took it in an action round, after the next one (docs/rules, 9)."""
        if self.s.n_disp == 0 and self.s.n_tc_pile == 0 and not self.s.last_card:
            self.s.last_card = 1
            note(&self.s, LOG_LAST_CARD, -1, by_virtual_player, 0, 0)

    # the end of a turn, of an action round (the round track, the die, the start player,
    # the 2-player virtual player), the trading round and the end of the game
    @cython.final
    cdef void begin_turn(self, int p) noexcept:
        cdef TaschkentState* s = &self.s
        s.actor = p
        s.phase = PH_ACTION
        s.last_start = -1
        if s.tracking:
            ih_public(&s.ih, (<uint64_t>EV_ACTOR << 56) | <uint64_t>p)

    @cython.final
    cdef void after_move2(self) noexcept:
        if self.n_cards(self.s.actor) > 0:
            self.s.phase = PH_END
        else:
            self.end_turn()

    @cython.final
    cdef void end_turn(self) noexcept:
        cdef TaschkentState* s = &self.s
        s.turns += 1
        s.turn_no += 1
        if <unsigned>s.turn_no < <unsigned>s.n:     # unsigned: a round always ends
            self.begin_turn((s.actor + 1) % s.n)
            return
        self.end_action_round()

    @cython.final
    cdef int roll(self) noexcept:
        cdef int d = 1 + <int>rng_below(&self.s.chance, 6)
        if self.s.tracking:
            ih_public(&self.s.ih, (<uint64_t>EV_DIE << 56) | <uint64_t>d)
        return d

    @cython.final
    cdef void end_action_round(self) noexcept:
        """Virtual player (2 players), start player change, then the round track."""
        cdef TaschkentState* s = &self.s
        cdef int d, h
        if s.virt:
            self.virtual_step()
        if s.marker >= 0 and s.marker != s.start_player:
            s.start_player = s.marker
            note(s, LOG_START, s.marker, s.marker, 0, 0)
        if s.end_triggered and s.round >= 2:
            self.start_trading()
            return
        if s.round == 2 or s.round == 3:
            d = self.roll()
            note(s, LOG_DIE_ROUND, -1, d, s.round + 1, 0)
            if d < (ROUND3_MIN if s.round == 2 else ROUND4_MIN):
                self.start_trading()
                return
        elif s.round >= LAST_ROUND:                 # >=: the round track always ends
            self.start_trading()
            return
        s.round += 1
        note(s, LOG_ROUND, -1, s.round, 0, 0)
        for h in range(HUT_NEUTRAL0, HUT_NEUTRAL0 + N_NEUTRAL):
            if (s.round == 2 and s.hut_loc[h] == LOC_TRACK2) or \
               (s.round == 4 and s.hut_loc[h] == LOC_TRACK4):
                s.hut_loc[h] = LOC_KALMYK
                note(s, LOG_KALMYK_HUT, -1, s.round, 0, 0)
        s.turn_no = 0
        self.begin_turn(s.start_player)

    @cython.final
    cdef void virtual_step(self) noexcept:
        """2 players: the neutral cameleer walks by the die; goods are sold by the second one."""
        cdef TaschkentState* s = &self.s
        cdef int d = self.roll(), f, c, g, i, j, r, card
        f = (s.nc_pos - 1 + d) % 7 + 1
        s.nc_pos = f
        note(s, LOG_VIRT_DIE, -1, d, f, 0)
        if f == 2:
            if s.n_pile > 0:
                s.n_pile -= 1
                s.unseen[s.n_unseen] = s.pile[s.n_pile]
                s.n_unseen += 1
                note(s, LOG_VIRT_CARD, -1, 0, 0, 0)
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
                s.sc_region = (r + 1) % N_REGIONS
                note(s, LOG_VIRT_SALE, -1, g, r, card)
                if card >= 0:                   # told after the sale that took it
                    self.check_last_card(True)
                return
        s.removed_goods[g] += 1
        note(s, LOG_VIRT_LOST, -1, g, 0, 0)

    @cython.final
    cdef void start_trading(self) noexcept:
        cdef TaschkentState* s = &self.s
        memset(s.kept, 0, sizeof(s.kept))
        s.tr_region = 0
        s.tr_passed = 0
        s.actor = s.start_player
        note(s, LOG_TRADING, -1, 0, 0, 0)
        self.next_seller()

    @cython.final
    cdef void next_seller(self) noexcept:
        """From the actor clockwise, the next player able to sell in the region who has not
        passed since its last sale; else (a lap without a sale: nobody sells more there) the
        next region, start player first; after region 8 the trading round ends."""
        cdef TaschkentState* s = &self.s
        cdef int i, p
        while <unsigned>s.tr_region < N_REGIONS:    # unsigned: the regions always run out
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

    @cython.final
    cdef void end_trading(self) noexcept:
        cdef TaschkentState* s = &self.s
        cdef int h, j
        s.cycle += 1
        memset(s.kept, 0, sizeof(s.kept))
        note(s, LOG_TRADING_END, -1, s.cycle, 0, 0)
        if s.end_triggered or s.last_card or <unsigned>s.cycle >= MAX_TRADING_ROUNDS:
            self.game_over()
            return
        s.marker = -1
        s.round = 1
        for j in range(2):                         # neutral huts on fields 2 and 4 of the track
            if self.hut_at(LOC_TRACK2 + j) < 0:
                # Interpretation: the lowest-numbered neutral hut of the supply first
                for h in range(HUT_NEUTRAL0, HUT_NEUTRAL0 + N_NEUTRAL):
                    if s.hut_loc[h] == LOC_SUPPLY:
                        s.hut_loc[h] = LOC_TRACK2 + j
                        note(s, LOG_TRACK_HUT, -1, 2 + 2 * j, 0, 0)
                        break
        self.refill_display()
        s.turn_no = 0
        note(s, LOG_ROUND, -1, 1, 0, 0)
        self.begin_turn(s.start_player)

    @cython.final
    cdef int hut_at(self, int loc) noexcept:
        cdef int h
        for h in range(HUT_NEUTRAL0, HUT_NEUTRAL0 + N_NEUTRAL):
            if self.s.hut_loc[h] == loc:
                return h
        return -1

    @cython.final
    cdef void game_over(self) noexcept:
        cdef TaschkentState* s = &self.s
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
            note(s, LOG_STEAL, rich, rich, poor, k)
        note(s, LOG_OVER, -1, 0, 0, 0)

# ================================================================ scoring
    # The score is the card points; the ranking puts the poorest out first (3-4 players),
    # then compares card points, then Tugrik (rank_key). The base type derives the rewards,
    # the scores and the ranking from them.
    @cython.final
    cdef inline int final_tugrik(self, int p) noexcept:
        return self.s.tugrik[p] + CARD35_END * self.s.hand[p][AC_35]

    @cython.final
    cdef int score(self, int p) noexcept:
        """Card points: the trading cards in sets, scored to the maximum."""
        return TaschkentCore.set_points(self.s.tc[p][0], self.s.tc[p][1], self.s.tc[p][2])

    @cython.final
    cdef bint eliminated(self, int p) noexcept:
        """3-4 players: the poorest are out (unless everyone is equally poor)."""
        cdef TaschkentState* s = &self.s
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

    @cython.final
    cdef long long rank_key(self, int p) noexcept:
        if self.eliminated(p):
            return <long long>self.final_tugrik(p)
        return ((<long long>1 << 40) + <long long>self.score(p) * 1000000
                + self.final_tugrik(p))

    @staticmethod
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

    @staticmethod
    def card_set_points(int silk, int china, int spices) -> int:
        """Points of a hand of trading cards (the maximum over the ways to form sets)."""
        return TaschkentCore.set_points(silk, china, spices)

    def tugrik_totals(self) -> list:
        """Tugrik of every player counting each unplayed 3/5 card as 5 (the end-of-game value)."""
        return [self.final_tugrik(p) for p in range(self.s.n)]

    def eliminated_players(self) -> list:
        """3-4 players: the seats with the lowest final Tugrik (none if all are equal)."""
        return [p for p in range(self.s.n) if self.eliminated(p)]

# ================================================================ information
    @cython.final
    cdef void resample(self, int o, Rng* rng) noexcept:
        """Redraw what `o` cannot see: the other players' action cards, the action pile and the
        cards the virtual player removed face down (one multiset, dealt uniformly into the same
        slots), the order of the trading-card pile, and future die rolls.

        Tugrik, goods, trading cards, posts and huts of every player are public or follow from
        public events (every payment and gain is determined by public moves), so they stay.
        Once the game is over, the final count has shown every hand's unplayed 3/5 cards (5
        Tugrik each): they stay in their hands, and the other 3/5 cards stay in the pile or
        among the removed cards (docs/rules/taschkent.md, Information). The pile's slots above
        its count, which still held the cards drawn from it, become zeros, as in a loaded
        position.
        """
        cdef TaschkentState* s = &self.s
        cdef i8 cards[12]
        cdef int m = 0, q, t, i, k, slots = 0, free
        cdef int keep35[4]
        cdef bint over = s.phase == PH_OVER
        cdef uint64_t digest[4]
        # Guard: the unknown cards fill exactly their slots, at most 12 (a loaded state always
        # does: the action cards are conserved); anything else is left as it is.
        if s.n < 2 or s.n > MAX_SEATS or s.n_pile < 0 or s.n_unseen < 0 \
                or s.n_tc_pile < 0 or s.n_tc_pile > N_TC:
            return
        for q in range(s.n):
            keep35[q] = s.hand[q][AC_35] if over and q != o else 0
            if q != o:
                slots += self.n_cards(q) - keep35[q]
        slots += s.n_pile + s.n_unseen
        if slots > N_ACTION_CARDS:
            return
        for t in range(N_ACTION_TYPES):               # canonical order: by type (3/5 last)
            k = 0
            for q in range(s.n):
                if q != o:
                    k += s.hand[q][t] - (keep35[q] if t == AC_35 else 0)
            for i in range(s.n_pile):
                if s.pile[i] == t:
                    k += 1
            for i in range(s.n_unseen):
                if s.unseen[i] == t:
                    k += 1
            if k < 0 or m + k > slots:
                return
            for i in range(k):
                cards[m] = t
                m += 1
        if m != slots:
            return
        free = m                                      # the cards that may go into a hand
        if over:
            while free > 0 and cards[free - 1] == AC_35:
                free -= 1
        shuffle_bytes(rng, cards, free)
        m = 0
        for q in range(s.n):
            if q == o:
                continue
            k = self.n_cards(q) - keep35[q]
            for t in range(N_ACTION_TYPES):
                s.hand[q][t] = 0
            s.hand[q][AC_35] = keep35[q]
            for i in range(k):
                s.hand[q][cards[m]] += 1
                m += 1
            digest[q] = 0
            for t in range(N_ACTION_TYPES):
                digest[q] = mix64(digest[q] ^ (<uint64_t>s.hand[q][t] + <uint64_t>(t << 8)))
        if over:                                      # the pile and the removed cards: the rest
            shuffle_bytes(rng, &cards[m], slots - m)
        for i in range(s.n_pile):
            s.pile[i] = cards[m]
            m += 1
        for i in range(s.n_pile, 12):                 # drawn cards' slots: zeros, as loaded
            s.pile[i] = 0
        for i in range(s.n_unseen):
            s.unseen[i] = cards[m]
            m += 1
        sort_bytes(s.tc_pile, s.n_tc_pile)
        shuffle_bytes(rng, s.tc_pile, s.n_tc_pile)
        rng_seed(&s.chance, rng_next(rng))
        ih_resample(&s.ih, o, s.n, digest)


# ================================================================ the bridge
    def _fields(self) -> dict:
        """The C state as Python values (GameCore's docstring: the bridge)."""
        return self.s

    @cython.boundscheck(True)
    def _set_fields(self, dict fields not None) -> None:
        """Overwrite the C state from `fields` (GameCore's docstring: the bridge)."""
        self.s = fields
