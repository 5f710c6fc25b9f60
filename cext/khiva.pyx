# cython: language_level=3
"""Khiva: every rule of the game in one compact C state.

The sections follow the game-module contract (cext/core.pxd), in its order: the component
table (with the track), moves and phases (move kinds and their arguments, the narration log's
entries), the state (KhivaState), set-up (KhivaCore and the deal), move generation, playing a
move (the card choice, the camel activation with its requests, compensation, boosts,
movement, shops and outposts, then end_turn: redeal or end of game), scoring and tie-breaks,
information (hashes, knowledge, determinization), copying, and the bridge. The rules read top
to bottom as the rulebook tells them. Notation, JSON, views, rendering and narration are the
Python half, in engine/games/khiva.py: it reads and writes this state only through `_fields`
and `_set_fields` in the bridge, and reads the narration log with `events()`.

Rule interpretations are marked "Interpretation" and explained in docs/rules/khiva.md.
"""
cimport cython
from libc.stdint cimport uint64_t, uint32_t, uint16_t
from libc.stdlib cimport realloc, free
from libc.string cimport memset, memcpy, memcmp
from cext.core cimport GameCore, EventLog, MAX_MOVES, TRACK_ALL, head_fits, log_event
from cext.moves cimport make_move, move_kind, move_arg
from cext.rng cimport Rng, rng_seed, rng_next, rng_below, rng_unit, mix64
from cext.bits cimport (i8, u8, popcount, lowest_bit, random_subset, shuffle_bytes, sort_bytes,
                        win_shares)
from cext.infohash cimport (InfoHash, ih_reset, ih_public, ih_private, ih_private_one,
                             ih_resample)

# ================================================================ component table
# Every number of the game lives here. Those the rulebook does not print are fixed in
# ../shared/RULES-NOTES.md and explained in docs/rules/khiva.md. (cpdef and the PY_ tuples:
# the Python half reads them too.)
cpdef enum:
    N_COLOURS = 5            # camels and card colours, in activation order
    N_CARDS = 25             # travel cards: colour x value 1..5, card id = colour * 5 + value - 1
    N_TEAPOTS = 22
    N_CARPETS = 15           # 3 per colour worth 3, 4, 5; carpet id = colour * 3 + value - 3
    N_SALT = 5
    GEM_SUPPLY = 30
    PATH_LEN = 5             # shop 1, shop 2, shop 3, shop 4, outpost
    SALT_PRICE = 3
    HAND_START = 5           # 3-5 players: first deal
    HAND_KEEP = 1            # the round ends when every hand is down to this
    DUEL_HAND_START = 8
    DUEL_HAND_KEEP = 2
    DUEL_REFILL = 6
    DUEL_ASIDE_UP = 4
    # The most legal moves a position can have: a duel hand of 8 plays 2 and gives 2 of the
    # other 6, C(8, 2) * C(6, 2) = 420 choices (3-5 players: 5 x 4 = 20).
    MOST_MOVES = 420

COLOUR_NAMES = ("white", "blue", "green", "pink", "black")
COLOUR_LETTERS = "WBGPK"     # K for black, as in CMYK
PY_GEM_ICONS = (0, 2, 2, 1, 1, 0)    # by card value (index 0 unused); Interpretation (not printed)
PY_TEAPOTS = (2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7)
PY_SALT = (10, 9, 8, 7, 6)           # the face-up pile, top first
cdef int GEM_ICONS[6]
GEM_ICONS[:] = PY_GEM_ICONS
cdef i8 TEAPOT_VALUES[N_TEAPOTS]
TEAPOT_VALUES[:] = PY_TEAPOTS
cdef int SALT_VALUES[N_SALT]
SALT_VALUES[:] = PY_SALT

cdef inline int card_value(int card) noexcept nogil: return card % 5 + 1
cdef inline int carpet_value(int carpet) noexcept nogil: return carpet % 3 + 3

# ---------------------------------------------------------------- the track
# Position 0 is the Khiva space; player p's path holds positions 1 + 5p .. 5 + 5p for shop 1..4
# and the outpost. A camel moving towards player P walks back along the path it is on to Khiva,
# then out along P's path, counting empty spaces only (Interpretation: track geometry).
cpdef enum:
    KHIVA = 0

cdef inline int path_pos(int player, int space) noexcept nogil:
    return 1 + player * PATH_LEN + space - 1

cdef inline int pos_path(int pos) noexcept nogil: return (pos - 1) // PATH_LEN
cdef inline int pos_space(int pos) noexcept nogil: return (pos - 1) % PATH_LEN + 1
cdef inline int step_toward(int pos, int player) noexcept nogil:
    if pos == KHIVA:
        return path_pos(player, 1)
    if pos_path(pos) == player:
        return pos + 1
    if pos_space(pos) == 1:
        return KHIVA
    return pos - 1

cdef inline uint32_t others_at(const int* camel_pos, int camel) noexcept nogil:
    """The spaces the other camels stand on (Khiva while any other camel rests there)."""
    cdef uint32_t occupied = 0
    cdef int c
    for c in range(N_COLOURS):
        if c != camel:
            occupied |= 1u << camel_pos[c]
    return occupied

cdef uint32_t ROUTE[1 + 5 * PATH_LEN][5]   # ROUTE[pos][p]: the spaces between pos and p's outpost

cdef void _init_routes():
    cdef int start, p, pos, i
    for start in range(1 + 5 * PATH_LEN):
        for p in range(5):
            ROUTE[start][p] = 0
            pos = start
            for i in range(2 * PATH_LEN):   # the longest route: back from a shop 4, out again
                pos = step_toward(pos, p)
                if pos == path_pos(p, PATH_LEN):
                    break
                ROUTE[start][p] |= 1u << pos

_init_routes()

cdef inline int room_to_outpost(const int* camel_pos, int camel, int player) noexcept nogil:
    """The empty spaces `camel` counts on its way to `player`'s outpost, the outpost included:
    a move of at least that many steps ends there, and each step short of it ends elsewhere."""
    return 1 + popcount(ROUTE[camel_pos[camel]][player] & ~others_at(camel_pos, camel))

cdef inline int boost_cap(const int* camel_pos, int card, int player, int gems) noexcept nogil:
    """The most gems a boost of `card` may spend: one per gem icon, from the player's own gems,
    and only for steps that still change where the camel ends: never past the outpost
    (Interpretation: boost)."""
    cdef int value = card % 5 + 1
    cdef int cap = GEM_ICONS[value], room = 0
    if gems < cap:
        cap = gems
    if cap > 0:
        room = room_to_outpost(camel_pos, card // 5, player) - value
    if room < cap:
        cap = room
    return cap if cap > 0 else 0

def boost_limit(camel_pos, int card, int player, int gems) -> int:
    """boost_cap for the Python half: camel_pos the five camels' positions (none at an
    outpost), `card` the granted card (its colour is the camel), `gems` the player's."""
    cdef int pos[N_COLOURS]
    cdef int c
    if not (0 <= card < N_CARDS and 0 <= player < 5 and len(camel_pos) == N_COLOURS):
        raise ValueError("boost_limit: no such card, seat or camels")
    for c in range(N_COLOURS):
        pos[c] = camel_pos[c]
        if not (0 <= pos[c] <= 5 * PATH_LEN and (pos[c] == KHIVA or pos_space(pos[c]) < PATH_LEN)):
            raise ValueError(f"boost_limit: no camel can stand on position {pos[c]}")
    return boost_cap(pos, card, player, gems)

# ================================================================ moves and phases
cpdef enum:
    PH_CHOOSE = 0            # players choose their cards one after another (sequentialized)
    PH_BOOST = 1             # the granted player decides how many gems to spend
    PH_SHOP4 = 2             # the mover decides between salt and carpet at shop 4
    PH_OVER = 3
    PH_ACTIVATE = 4          # transient: camels being activated

    ST_RESOLVE = 0           # steps of one camel's activation (act_stage)
    ST_MOVE = 1
    ST_NEXT = 2

    # move kinds (cext/moves.pxd): make_move(kind, argument)
    MV_CHOOSE = 1            # argument: choice_arg(play1, play2, give1, give2)
    MV_BOOST = 2             # argument: the gems spent
    MV_SHOP4 = 3             # argument: SHOP_CARPET / SHOP_SALT

    NONE = 31                # "no card" in a CHOOSE field
    CHOICE_ARG_END = 1 << 20     # every CHOOSE argument is below: four 5-bit fields
    SHOP_CARPET = 0
    SHOP_SALT = 1

    # The narration log (core.pxd: log_event(&s.log, kind, player, a, b, c)), written at
    # TRACK_ALL: each camel activation writes ACTIVATE when its request is granted, CAMEL_MOVED
    # when it has moved and REWARD when the space pays; a move writes at most 5 x 3 entries.
    LOG_ACTIVATE = 1         # player granted the camel: a camel, b card, c refusals (a base-6
                             # digit a seat: refusal_code of its refused requests and gems paid)
    LOG_CAMEL_MOVED = 2      # player moving it: a start, b end, c gems spent on the boost
    LOG_REWARD = 3           # player moving it: a REWARD_*, b value
    REWARD_GEMS = 1          # shop 1 or 3: b gems paid (fewer when the supply runs out)
    REWARD_CARPET = 2        # shop 2 or 4: b the carpet id
    REWARD_SALT = 3          # shop 4: b the salt bag's value
    REWARD_OUTPOST = 4       # the outpost: b the teapot's value, 0 if none

    EV_PLAYED = 1            # information events (type << 56 | payload), see information
    EV_GIFT = 2
    EV_HAND = 3
    EV_CHOICE = 4
    EV_MOVE = 5
    EV_CARPET = 6
    EV_TEAPOT = 7
    EV_UP = 8

# The CHOOSE argument: four 5-bit card fields, the played cards then the given ones, each
# pair ascending (the second NONE outside the duel), so the moves sort by (play, give).
cdef inline int choice_arg(int play1, int play2, int give1, int give2) noexcept nogil:
    return (play1 << 15) | (play2 << 10) | (give1 << 5) | give2

cdef inline int choice_play1(int arg) noexcept nogil: return (arg >> 15) & 31
cdef inline int choice_play2(int arg) noexcept nogil: return (arg >> 10) & 31
cdef inline int choice_give1(int arg) noexcept nogil: return (arg >> 5) & 31
cdef inline int choice_give2(int arg) noexcept nogil: return arg & 31

def choice_cards(int arg) -> tuple:
    """The (play1, play2, give1, give2) card fields of a CHOOSE argument (NONE if unused)."""
    return (choice_play1(arg), choice_play2(arg), choice_give1(arg), choice_give2(arg))

cdef inline int choice_move(uint32_t play, uint32_t give) noexcept nogil:
    """The CHOOSE move playing the card(s) in `play` and giving those in `give`."""
    cdef int a = lowest_bit(play), b = NONE, c = lowest_bit(give), d = NONE
    play &= play - 1
    give &= give - 1
    if play:
        b = lowest_bit(play)
    if give:
        d = lowest_bit(give)
    return make_move(MV_CHOOSE, choice_arg(a, b, c, d))

# ================================================================ state
cpdef enum:
    ASIDE_LOC = 5            # knowledge (where): the bit for the face-down set-aside cards
    REJECTION_TRIES = 10000  # determinization: the tries of a rejection sampler before it gives up,
    REJECTION_MEAN_TRIES = 1000   # and the most it may expect to need (else: deal counts)
    JOINT_CARDS = 8          # joint knowledge: the most cards it follows (a seat gives 4 a deal
    JOINT_SETS = 64          # and knows at most 4 kept) and placements it keeps, or gives it up

cdef struct KhivaState:
    int tracking                     # StateHead (core.pxd): these three fields first
    InfoHash ih
    EventLog log
    int n, duel, per_turn
    int phase, actor                 # actor: choosing seat, or deciding player
    uint32_t hand[5]
    uint32_t sel_play[5]             # chosen this turn, face down
    uint32_t sel_give[5]
    uint32_t played[5]               # revealed this turn
    uint32_t discard                 # face-up discards (public)
    uint32_t aside_down              # set-aside cards, face down (hidden from everyone)
    uint32_t aside_up                # duel mode: set-aside cards shown face up
    int camel_pos[5]
    int camel_teapot[5]              # value of the teapot on the camel's back, 0 if none
    i8 teapots[22]                   # face-down pile, top = teapots[n_teapots - 1]
    int n_teapots
    i8 carpets[15]                   # face-down pile of carpet ids, top = last
    int n_carpets
    int n_salt                       # salt bags left; the top one is SALT_VALUES[N_SALT - n_salt]
    int gems[5]
    int gem_supply
    int teapot_count[5]
    int teapot_points[5]
    uint32_t carpets_held[5]         # drawn, face up, not yet delivered (bit per carpet id)
    uint32_t carpets_scored[5]       # delivered at an outpost
    int salt_points[5]
    int salt_best[5]
    int act_camel, act_stage, act_player, act_card, act_boost
    int end_triggered
    int turn, deal_round
    Rng chance
    u8 where[5][25]                  # where[o][c]: where observer o knows card c may be
    # o's joint knowledge of the cards it gave that it has not seen since (3-5 players): the
    # placements of them that fit all it saw. jcard[o][:jn[o]] the cards; jset[o][:jm[o]] the
    # placements, card i's seat (o + 1 + (code >> 2i & 3)) % n. jlost[o]: given up (too many),
    # where[o] alone until they fit again. Empty: jn 0, jm 1 (the one empty placement).
    u8 jn[5]
    u8 jm[5]
    u8 jlost[5]
    i8 jcard[5][8]                   # [JOINT_CARDS], [JOINT_SETS]; i8, literal sizes: Cython's
    uint16_t jset[5][64]             # conversion mixes up nested arrays of one type (where's)

# What a determinization derives from a state before its first draw (information:
# resample). A core keeps the last one and reuses it while its inputs are the same: the search
# determinizes one root every iteration.
cdef struct PlanInputs:                  # compared bytewise: zeroed before it is filled
    int observer
    uint32_t unknown                     # the cards the observer cannot place for sure
    int cap[6]                           # the cards each place holds (hands, aside)
    int n_teapots, n_carpets
    u8 where[25]                         # where[observer]
    i8 teapots[22]
    i8 carpets[15]
    int jn, jm                           # the observer's joint knowledge (jset past jm: zero)
    i8 jcard[8]
    uint16_t jset[64]

cdef struct DealPlan:
    PlanInputs inputs
    int n_slots, n_cons, n_free
    int slot_place[25]                   # the place of each slot, places in order
    int cons[25]                         # unknown cards the observer's knowledge constrains
    uint32_t cons_slots[25]              # the slots (bit i: slot i) each of them may take
    int free_cards[25]                   # the others, ascending
    int first_slot[6]                    # each place's first slot
    int stride[6]                        # a count of cards dealt to a place, in a deal count's index
    int n_counts                         # the indices of the deal counts: every count each place may hold
    bint exact                           # deal the constrained cards from the deal counts
    bint joint                           # draw a joint placement first (cons[:inputs.jn])
    double joint_upto[64]                # the joint placements' cumulative weights
    i8 teapots[22]                       # the piles in canonical (ascending) order
    i8 carpets[15]

cdef inline double placements_tried(DealPlan* plan) noexcept:
    """The injective placements of the constrained cards into the slots: what a try of
    rejection sampling draws from."""
    cdef double n = 1.0
    cdef int i
    for i in range(plan.n_cons):
        n *= plan.n_slots - i
    return n

if <int>MOST_MOVES > <int>MAX_MOVES:
    raise ImportError("a Khiva position can have more moves than a move buffer holds")

cdef KhivaState _layout_probe
if not head_fits(&_layout_probe, &_layout_probe.tracking, &_layout_probe.ih, &_layout_probe.log):
    raise ImportError("KhivaState must begin with the fields of StateHead (cext/core.pxd)")


# ================================================================ set-up
# A refused seat in the narration log: its refused requests r (1, or 2 in the duel) and the
# gems paid for them g <= r (fewer when the supply runs out) as one digit 1-5, r(r+1)/2 + g;
# five seats' digits in base 6 fit the log's 16 bits (engine/games/khiva.py reads them; cpdef:
# it decodes by this very function).
cpdef inline int refusal_code(int refused, int paid) noexcept nogil:
    return refused * (refused + 1) // 2 + paid


cdef class KhivaCore(GameCore):
    """The rules of Khiva on one C state. `KhivaCore(players=3, seed=0)` deals a new game (2
    players: duel mode). The game API (notation, JSON, views) is its subclass
    engine.games.khiva.Khiva."""
    cdef KhivaState s
    cdef DealPlan plan                   # the last determinization's (not part of the state)
    cdef bint has_plan
    cdef double* deals                   # the plan's deal counts (count_deals), on the heap
    cdef int deals_room
    name, title = "khiva", "Khiva"
    min_players, max_players, default_players = 2, 5, 3
    # A CHOOSE move's group is the card(s) it plays: its argument above the given cards'
    # two 5-bit fields (choice_arg). The search can then weigh "play these" before "give those".
    move_group_shift = 10

    def __cinit__(self, *args, **kwargs):
        self.bind_state(&self.s, sizeof(KhivaState))

    def __dealloc__(self):
        free(self.deals)

    @cython.final
    cdef void set_up(self) noexcept:
        """The deal: the teapot and carpet piles shuffled, every camel in Khiva with a teapot
        on its back, and the hands (duel: eight each, nine set aside, four of them face up)."""
        cdef KhivaState* s = &self.s
        cdef int n = self.n_players
        cdef uint64_t seed = self.seed
        cdef int i
        s.n = n
        s.duel = n == 2
        s.per_turn = 2 if s.duel else 1
        rng_seed(&s.chance, seed)
        ih_reset(&s.ih, <uint64_t>n)
        s.gem_supply = GEM_SUPPLY
        s.n_salt = N_SALT
        for i in range(N_TEAPOTS):
            s.teapots[i] = TEAPOT_VALUES[i]
        s.n_teapots = N_TEAPOTS
        shuffle_bytes(&s.chance, s.teapots, N_TEAPOTS)
        for i in range(N_CARPETS):
            s.carpets[i] = i
        s.n_carpets = N_CARPETS
        shuffle_bytes(&s.chance, s.carpets, N_CARPETS)
        for i in range(N_COLOURS):          # every camel in Khiva with a teapot on its back
            s.camel_pos[i] = KHIVA
            s.camel_teapot[i] = self.draw_teapot()
        self.deal((1u << N_CARDS) - 1, DUEL_HAND_START if s.duel else HAND_START, True)
        s.phase = PH_CHOOSE
        s.actor = 0

    @cython.final
    cdef int draw_teapot(self) noexcept:
        cdef KhivaState* s = &self.s
        if s.n_teapots == 0:
            return 0                          # Interpretation: the camel goes out empty
        s.n_teapots -= 1
        cdef int v = s.teapots[s.n_teapots]
        if s.tracking:
            ih_public(&s.ih, (<uint64_t>EV_TEAPOT << 56) | <uint64_t>v)
        if s.n_teapots == 0:
            s.end_triggered = 1
        return v

    @cython.final
    cdef void deal(self, uint32_t pool, int per_player, bint first) noexcept:
        """Deal per_player cards to every hand from pool; the rest is set aside (duel: 4 up)."""
        cdef KhivaState* s = &self.s
        cdef int p
        cdef uint32_t got
        cdef uint32_t before_pool = pool
        for p in range(s.n):
            got = <uint32_t>random_subset(&s.chance, pool, per_player)
            s.hand[p] |= got
            pool &= ~got
        s.aside_up = 0
        if s.duel:
            s.aside_up = <uint32_t>random_subset(&s.chance, pool, DUEL_ASIDE_UP)
            pool &= ~s.aside_up
        s.aside_down = pool
        s.discard = 0
        s.deal_round += 1
        if s.tracking:
            for p in range(s.n):
                ih_private(&s.ih, 1u << p, (<uint64_t>EV_HAND << 56) | s.hand[p])
            if s.duel:
                ih_public(&s.ih, (<uint64_t>EV_UP << 56) | s.aside_up)
            if s.tracking == TRACK_ALL:
                self.learn_deal(before_pool, first)

    # ================================================================ move generation
    @cython.final
    cdef int current(self) noexcept:
        return -1 if self.s.phase == PH_OVER else self.s.actor

    @cython.final
    cdef int gen_moves(self, int* buf) noexcept:
        cdef KhivaState* s = &self.s
        cdef int n = 0, a, b, c, d, k
        cdef uint32_t h, rest, xa, xb, xc, xd
        if s.phase == PH_CHOOSE:
            h = s.hand[s.actor]
            if popcount(h) > DUEL_HAND_START:
                return 0                          # no Khiva hand is larger: never overrun buf
            if not s.duel:
                xa = h
                while xa:                         # play a, give c: ascending (a, c)
                    a = lowest_bit(xa)
                    xa &= xa - 1
                    xc = h & ~(1u << a)
                    while xc:
                        c = lowest_bit(xc)
                        xc &= xc - 1
                        buf[n] = make_move(MV_CHOOSE, choice_arg(a, NONE, c, NONE))
                        n += 1
                return n
            xa = h
            while xa:                             # play a < b, give c < d: ascending
                a = lowest_bit(xa)
                xa &= xa - 1
                xb = xa
                while xb:
                    b = lowest_bit(xb)
                    xb &= xb - 1
                    rest = h & ~((1u << a) | (1u << b))
                    xc = rest
                    while xc:
                        c = lowest_bit(xc)
                        xc &= xc - 1
                        xd = xc
                        while xd:
                            d = lowest_bit(xd)
                            xd &= xd - 1
                            buf[n] = make_move(MV_CHOOSE, choice_arg(a, b, c, d))
                            n += 1
            return n
        if s.phase == PH_BOOST:
            k = self.max_boost()
            for a in range(k + 1):
                buf[a] = make_move(MV_BOOST, a)
            return k + 1
        if s.phase == PH_SHOP4:
            if s.n_carpets > 0:
                buf[n] = make_move(MV_SHOP4, SHOP_CARPET)
                n += 1
            if self.can_buy_salt(s.act_player):
                buf[n] = make_move(MV_SHOP4, SHOP_SALT)
                n += 1
            return n
        return 0

    @cython.final
    cdef int random_move(self, Rng* rng) noexcept:
        """A uniformly random legal move without listing them all (playouts)."""
        cdef KhivaState* s = &self.s
        cdef uint32_t h, play, give
        cdef int buf[4]
        cdef int n
        if s.phase != PH_CHOOSE:
            n = self.gen_moves(buf)
            return buf[rng_below(rng, n)]
        h = s.hand[s.actor]
        play = <uint32_t>random_subset(rng, h, s.per_turn)
        give = <uint32_t>random_subset(rng, h & ~play, s.per_turn)
        return choice_move(play, give)

    # Playout policy: none. The search's playouts take the base's playout_move, this
    # random_move: every policy tried lost or drew at equal time against uniform playouts,
    # which are cheaper (docs/rules/khiva.md, "Playouts").


    # ================================================================ playing a move
    @cython.final
    cdef void do_move(self, int move) noexcept:
        cdef KhivaState* s = &self.s
        cdef int kind = move_kind(move)
        if kind == MV_CHOOSE:
            self.choose(move)
        elif kind == MV_BOOST:
            if s.tracking:
                ih_public(&s.ih, (<uint64_t>EV_MOVE << 56) | <uint32_t>move)
            s.act_boost = move_arg(move)
            s.gems[s.act_player] -= s.act_boost
            s.gem_supply += s.act_boost
            s.phase = PH_ACTIVATE
            self.activate_camels()
        elif kind == MV_SHOP4:
            if s.tracking:
                ih_public(&s.ih, (<uint64_t>EV_MOVE << 56) | <uint32_t>move)
            self.shop4(s.act_player, move_arg(move))
            s.act_stage = ST_NEXT
            s.phase = PH_ACTIVATE
            self.activate_camels()

    # ------------------------------------------------------------ 1. choice of travel cards
    @cython.final
    cdef void choose(self, int move) noexcept:
        """The seat to move puts its card(s) face down and picks the card(s) for its left."""
        cdef KhivaState* s = &self.s
        cdef int p = s.actor
        cdef int arg = move_arg(move)
        cdef uint32_t play = 1u << choice_play1(arg), give = 1u << choice_give1(arg)
        if choice_play2(arg) != NONE:
            play |= 1u << choice_play2(arg)
        if choice_give2(arg) != NONE:
            give |= 1u << choice_give2(arg)
        s.sel_play[p] = play
        s.sel_give[p] = give
        s.hand[p] &= ~(play | give)
        if s.tracking:
            ih_private_one(&s.ih, p, (<uint64_t>EV_CHOICE << 56) | <uint32_t>move)
        s.actor += 1
        if s.actor == s.n:
            self.reveal()

    @cython.final
    cdef void reveal(self) noexcept:
        """Everyone reveals the played card(s); the given card(s) reach the left neighbour."""
        cdef KhivaState* s = &self.s
        cdef int p, left
        cdef int held[5]
        if s.tracking == TRACK_ALL:
            for p in range(s.n):
                held[p] = popcount(self.holdings(p))
            self.learn_gifts()
        for p in range(s.n):
            left = (p + 1) % s.n
            s.played[p] = s.sel_play[p]
            s.discard |= s.sel_play[p]
            s.hand[left] |= s.sel_give[p]
            if s.tracking:
                ih_public(&s.ih, (<uint64_t>EV_PLAYED << 56) | (<uint64_t>p << 32) | s.sel_play[p])
                ih_private(&s.ih, (1u << p) | (1u << left),
                           (<uint64_t>EV_GIFT << 56) | (<uint64_t>p << 32) | s.sel_give[p])
        if s.tracking == TRACK_ALL and not s.duel:
            for p in range(s.n):
                self.learn_joint(p, held)
        for p in range(s.n):
            s.sel_play[p] = 0
            s.sel_give[p] = 0
        if s.tracking == TRACK_ALL:
            for p in range(s.n):
                if s.jlost[p]:
                    self.joint_from_where(p)
        s.act_camel = 0
        s.act_stage = ST_RESOLVE
        s.phase = PH_ACTIVATE
        self.activate_camels()

    # ------------------------------------------------------------ 2. camel activation
    @cython.final
    cdef void activate_camels(self) noexcept:
        """Activate the camels in order from act_camel on; stop when a player must decide."""
        cdef KhivaState* s = &self.s
        while s.act_camel < N_COLOURS:
            if s.act_stage == ST_RESOLVE:
                if not self.resolve_requests(s.act_camel):
                    s.act_camel += 1
                    continue
                s.act_stage = ST_MOVE
                s.act_boost = 0
                if self.max_boost() > 0:
                    s.phase = PH_BOOST
                    s.actor = s.act_player
                    return
            if s.act_stage == ST_MOVE:
                s.act_stage = ST_NEXT
                if self.move_camel(s.act_camel, s.act_player, card_value(s.act_card) + s.act_boost):
                    s.phase = PH_SHOP4
                    s.actor = s.act_player
                    return
            s.act_camel += 1
            s.act_stage = ST_RESOLVE
        self.end_turn()

    @cython.final
    cdef bint resolve_requests(self, int camel) noexcept:
        """The lowest request of the camel's colour is granted; every other one earns a gem.

        Card values are unique within a colour, so there is never a tie. Returns whether
        someone moves the camel (then act_player / act_card hold the granted request).
        """
        cdef KhivaState* s = &self.s
        cdef uint32_t colour = 31u << (camel * 5)
        cdef uint32_t requests = 0
        cdef int p, card, refused, winner = -1, refusals = 0, digit = 1
        for p in range(s.n):
            requests |= s.played[p] & colour
        if requests == 0:
            return False
        card = lowest_bit(requests)           # the lowest value of this colour
        for p in range(s.n):
            if (s.played[p] >> card) & 1:
                winner = p
            refused = popcount(s.played[p] & colour & ~(1u << card))
            if refused:
                refusals += digit * refusal_code(refused, self.give_gems(p, refused))
            digit *= 6
        s.act_player = winner
        s.act_card = card
        if s.tracking == TRACK_ALL:
            log_event(&s.log, LOG_ACTIVATE, winner, camel, card, refusals)
        return True

    @cython.final
    cdef int max_boost(self) noexcept:
        """The granted player's largest boost: 0 asks no decision (Interpretation: boost)."""
        cdef KhivaState* s = &self.s
        return boost_cap(s.camel_pos, s.act_card, s.act_player, s.gems[s.act_player])

    @cython.final
    cdef int give_gems(self, int p, int k) noexcept:
        """Pay p up to k gems; the gems paid."""
        # Interpretation: the 30 gems are the whole supply; an empty supply pays nothing.
        cdef KhivaState* s = &self.s
        if k > s.gem_supply:
            k = s.gem_supply
        s.gems[p] += k
        s.gem_supply -= k
        return k

    @cython.final
    cdef bint move_camel(self, int camel, int player, int steps) noexcept:
        """Move `camel` `steps` empty spaces towards `player`'s outpost and trigger the space.

        Occupied spaces are leaped (Khiva is occupied while any other camel rests there);
        the camel stops at the outpost with movement left. Returns True when the player must
        choose at shop 4.
        """
        cdef KhivaState* s = &self.s
        cdef int start = s.camel_pos[camel], pos = start
        cdef int outpost = path_pos(player, PATH_LEN)
        cdef uint32_t occupied = others_at(s.camel_pos, camel)
        while steps > 0:
            pos = step_toward(pos, player)
            if pos == outpost:
                break
            if not (occupied >> pos) & 1:
                steps -= 1
        s.camel_pos[camel] = pos
        if s.tracking == TRACK_ALL:
            log_event(&s.log, LOG_CAMEL_MOVED, player, start, pos, s.act_boost)
        if pos == KHIVA:
            return False                    # an empty Khiva space: nothing happens
        if pos == outpost:
            self.outpost(camel, player)
            return False
        return self.shop(pos_space(pos), player)

    # ------------------------------------------------------------ shops and outposts
    @cython.final
    cdef bint shop(self, int space, int player) noexcept:
        """The mover gets the shop's reward, whoever's path it is on."""
        cdef KhivaState* s = &self.s
        if space == 1:
            self.note_reward(player, REWARD_GEMS, self.give_gems(player, 1))
        elif space == 2:
            self.take_carpet(player)
        elif space == 3:
            self.note_reward(player, REWARD_GEMS, self.give_gems(player, 2))
        elif space == 4:
            # pay 3 gems for the top salt bag, or take the top carpet: a choice when both are
            # possible; one of them alone is taken, never declined (Interpretation: shop 4)
            if self.can_buy_salt(player):
                if s.n_carpets > 0:
                    return True
                self.shop4(player, SHOP_SALT)
            elif s.n_carpets > 0:
                self.take_carpet(player)
        return False

    @cython.final
    cdef bint can_buy_salt(self, int player) noexcept:
        return self.s.n_salt > 0 and self.s.gems[player] >= SALT_PRICE

    @cython.final
    cdef void shop4(self, int player, int option) noexcept:
        cdef KhivaState* s = &self.s
        cdef int value
        if option == SHOP_CARPET:
            self.take_carpet(player)
        elif option == SHOP_SALT:
            value = SALT_VALUES[N_SALT - s.n_salt]
            s.n_salt -= 1
            s.gems[player] -= SALT_PRICE
            s.gem_supply += SALT_PRICE
            s.salt_points[player] += value
            if value > s.salt_best[player]:
                s.salt_best[player] = value
            if s.n_salt == 0:
                s.end_triggered = 1
            self.note_reward(player, REWARD_SALT, value)

    @cython.final
    cdef void take_carpet(self, int player) noexcept:
        cdef KhivaState* s = &self.s
        if s.n_carpets == 0:
            return
        s.n_carpets -= 1
        cdef int carpet = s.carpets[s.n_carpets]
        s.carpets_held[player] |= 1u << carpet
        if s.tracking:
            ih_public(&s.ih, (<uint64_t>EV_CARPET << 56) | <uint64_t>carpet)
        if s.n_carpets == 0:
            s.end_triggered = 1
        self.note_reward(player, REWARD_CARPET, carpet)

    @cython.final
    cdef void outpost(self, int camel, int player) noexcept:
        """Teapot to the player, matching carpets delivered, camel home with a new teapot."""
        cdef KhivaState* s = &self.s
        cdef int v = s.camel_teapot[camel]
        cdef uint32_t colour_mask = 7u << (camel * 3)
        if v > 0:
            s.teapot_count[player] += 1
            s.teapot_points[player] += v
        s.carpets_scored[player] |= s.carpets_held[player] & colour_mask
        s.carpets_held[player] &= ~colour_mask
        self.note_reward(player, REWARD_OUTPOST, v)
        s.camel_pos[camel] = KHIVA
        s.camel_teapot[camel] = self.draw_teapot()

    @cython.final
    cdef void note_reward(self, int player, int kind, int value) noexcept:
        if self.s.tracking == TRACK_ALL:
            log_event(&self.s.log, LOG_REWARD, player, kind, value, 0)

    # ------------------------------------------------------------ the end of a turn
    @cython.final
    cdef void end_turn(self) noexcept:
        """Discard the played cards; end the game, or redeal when hands are down to 1 (duel 2)."""
        cdef KhivaState* s = &self.s
        cdef int p
        for p in range(s.n):
            s.played[p] = 0
        s.turn += 1
        if s.end_triggered:
            s.phase = PH_OVER
            s.actor = -1
            return
        if popcount(s.hand[0]) == (DUEL_HAND_KEEP if s.duel else HAND_KEEP):
            # discards and set-aside cards are shuffled; everyone's hand is refilled
            self.deal(s.discard | s.aside_down | s.aside_up,
                      DUEL_REFILL if s.duel else HAND_START - HAND_KEEP, False)
        s.phase = PH_CHOOSE
        s.actor = 0

    # ================================================================ scoring
    @cython.final
    cdef int score(self, int p) noexcept:
        cdef KhivaState* s = &self.s
        cdef int total = s.teapot_points[p] + s.salt_points[p] + s.gems[p]
        cdef uint32_t m = s.carpets_scored[p]
        while m:
            total += carpet_value(lowest_bit(m))
            m &= m - 1
        return total                        # undelivered carpets score nothing

    @cython.final
    cdef long long rank_key(self, int p) noexcept:
        """Score, then most teapot tokens, then the highest salt bag."""
        return self.rank_of(p, self.score(p))

    @cython.final
    cdef long long rank_of(self, int p, int score) noexcept:
        """rank_key(p), p's score given."""
        return (<long long>score * 100 + self.s.teapot_count[p]) * 100 + self.s.salt_best[p]

    @cython.final
    cdef void get_outcome(self, double* rewards, double* scores) noexcept:
        """GameCore's, each score counted once (its rank_key counts it again): every playout
        of the search ends here."""
        cdef long long keys[5]
        cdef int p, score
        for p in range(self.n_players):
            score = self.score(p)
            keys[p] = self.rank_of(p, score)
            if scores != NULL:
                scores[p] = score
        win_shares(keys, self.n_players, rewards)

    # ================================================================ information
    @cython.final
    cdef u8 all_places(self, int observer) noexcept:
        """Every place a card unknown to `observer` could be: other hands and the face-down aside."""
        return <u8>(((1 << self.s.n) - 1) & ~(1 << observer) | (1 << ASIDE_LOC))

    @cython.final
    cdef void learn_deal(self, uint32_t pool, bint first) noexcept:
        """After a deal: a card that was reshuffled (or might have been) could now be anywhere;
        a card certainly kept from the round is where some seat's kept cards allow."""
        cdef KhivaState* s = &self.s
        cdef int o, c
        for o in range(s.n):
            if not first:
                self.learn_kept_cards(o, pool)
            for c in range(N_CARDS):
                if first or (pool >> c) & 1 or s.where[o][c] & (1 << ASIDE_LOC):
                    s.where[o][c] = self.all_places(o)
            if first:
                self.forget_joint(o)
            else:
                self.sync_joint(o)

    @cython.final
    cdef void learn_kept_cards(self, int o, uint32_t pool) noexcept:
        """At a redeal every other seat kept exactly its last HAND_KEEP cards (duel: 2), so the
        cards o knows were kept (not reshuffled: no aside in their mask) lie one seat each.
        Each keeps the seats that some assignment of them, within every mask and seat's count,
        gives it: with 3 players, the card o gave last is all its left neighbour kept, so a
        card o placed "left neighbour or the next" is with the next (rules audit 2026-12-07).
        What is left out: after the refill, which of two such cards lies with which seat is
        kept only card by card (docs/rules/khiva.md, Information)."""
        cdef KhivaState* s = &self.s
        cdef int cards[8]
        cdef u8 reach[8]
        cdef int seat_room[5]
        cdef int k = 0, c, q
        cdef uint32_t own_kept = s.hand[o] & ~pool
        for c in range(N_CARDS):
            if ((pool | own_kept) >> c) & 1 or s.where[o][c] & (1 << ASIDE_LOC):
                continue
            if k == 8:
                return                          # more than any seats kept: knowledge broken
            cards[k] = c
            reach[k] = 0
            k += 1
        for q in range(s.n):
            seat_room[q] = 0 if q == o else (DUEL_HAND_KEEP if s.duel else HAND_KEEP)
        self.reach_of_kept(o, cards, k, 0, seat_room, reach)
        for c in range(k):
            if reach[c]:                        # none: inconsistent knowledge, left as it is
                s.where[o][cards[c]] = reach[c]

    @cython.final
    cdef bint reach_of_kept(self, int o, int* cards, int k, int i, int* seat_room,
                            u8* reach) noexcept:
        """Every assignment of cards[i:] to seats with room, within o's masks: each card's
        seat in one of them is added to its reach. Whether there is any."""
        cdef KhivaState* s = &self.s
        cdef int q
        cdef bint found = False
        if i == k:
            return True
        for q in range(s.n):
            if seat_room[q] > 0 and (s.where[o][cards[i]] >> q) & 1:
                seat_room[q] -= 1
                if self.reach_of_kept(o, cards, k, i + 1, seat_room, reach):
                    found = True
                    reach[i] |= <u8>(1 << q)
                seat_room[q] += 1
        return found

    @cython.final
    cdef void learn_gifts(self) noexcept:
        """At the reveal each hidden gift moves a card one seat left.

        Observer o knows exactly the card it gave; of a gift between two others it only knows
        that any card possibly held by the giver may now be held by the receiver.
        """
        cdef KhivaState* s = &self.s
        cdef int o, q, c, left
        cdef u8 old
        cdef uint32_t own
        for o in range(s.n):
            own = self.holdings(o)
            for c in range(N_CARDS):
                if (own >> c) & 1:
                    continue
                old = s.where[o][c]
                for q in range(s.n):
                    left = (q + 1) % s.n
                    if q != o and left != o and old & (1 << q):
                        s.where[o][c] |= <u8>(1 << left)
            for c in range(N_CARDS):
                if (s.sel_give[o] >> c) & 1:
                    s.where[o][c] = <u8>(1 << ((o + 1) % s.n))

    @cython.final
    cdef uint32_t holdings(self, int q) noexcept:
        return self.s.hand[q] | self.s.sel_play[q] | self.s.sel_give[q]

    # ------------------------------------------------------------ joint knowledge (3-5 players)
    # The masks above know each card on its own. A seat knows more of the cards it gave:
    # each hidden gift moves exactly one card, a seat gives from what it holds, and a deal
    # ends with one card in every hand. So it keeps the placements of those cards that fit
    # everything it saw (docs/rules/khiva.md, 15), and where[o] is their projection.
    @cython.final
    cdef inline int joint_seat(self, int o, uint16_t a, int i) noexcept:
        return (o + 1 + ((a >> (2 * i)) & 3)) % self.s.n

    @cython.final
    cdef inline uint16_t joint_code(self, int o, int seat, int i) noexcept:
        return <uint16_t>(((seat - o - 1 + self.s.n) % self.s.n) << (2 * i))

    @cython.final
    cdef void forget_joint(self, int o) noexcept:
        """o follows no card jointly: the one empty placement."""
        self.s.jn[o] = 0
        self.s.jm[o] = 1
        self.s.jset[o][0] = 0
        self.s.jlost[o] = 0

    @cython.final
    cdef int joint_index(self, int o, int c) noexcept:
        cdef int i
        for i in range(self.s.jn[o]):
            if self.s.jcard[o][i] == c:
                return i
        return -1

    @cython.final
    cdef void learn_joint(self, int o, int* held) noexcept:
        """At a reveal (hands updated, choices not yet cleared), o's placements move on: each
        seat played its card where the placement has it; each hidden gift between two others
        is one card the giver held, a followed one or one o cannot follow (if the giver had
        one); the gift o got was the giver's; hands then hold one card fewer. The cards seen
        leave, o's gift joins (with its left neighbour). held: each seat's cards before."""
        cdef KhivaState* s = &self.s
        cdef int n = s.n, k = s.jn[o], q, i, j, m = 0, nk = 0
        cdef int keep[JOINT_CARDS]
        cdef uint16_t out[JOINT_SETS]
        cdef uint32_t played = 0, gone
        cdef int given = lowest_bit(s.sel_give[o])
        if s.jlost[o]:
            return                            # reveal() tries again once the choices are cleared
        for q in range(n):
            played |= s.sel_play[q]
        gone = played | s.sel_give[(o + n - 1) % n]
        for i in range(k):
            if not (gone >> s.jcard[o][i]) & 1:
                keep[nk] = i
                nk += 1
        if nk + 1 > JOINT_CARDS:
            self.give_up_joint(o)
            return
        for j in range(s.jm[o]):
            if not self.joint_moves(o, s.jset[o][j], s.jset[o][j], held, 0, keep, nk, out, &m):
                self.give_up_joint(o)
                return
        for i in range(nk):
            s.jcard[o][i] = s.jcard[o][keep[i]]
        s.jcard[o][nk] = given
        s.jn[o] = nk + 1
        s.jm[o] = m
        memcpy(s.jset[o], out, m * sizeof(uint16_t))
        self.sync_joint(o)

    @cython.final
    cdef void sort_joint(self, int o) noexcept:
        """o's followed cards in ascending order (the placements' codes to match), and the
        placements by code: the knowledge has one form however it was reached (in play, or
        loaded in any order), and so do the worlds drawn from it."""
        cdef KhivaState* s = &self.s
        cdef int k = s.jn[o], i, j, t
        cdef int order[JOINT_CARDS]
        cdef i8 cards[JOINT_CARDS]
        cdef uint16_t a, b
        for i in range(k):
            order[i] = i
        for i in range(1, k):                 # insertion sort by card: at most 8
            t = order[i]
            j = i
            while j > 0 and s.jcard[o][order[j - 1]] > s.jcard[o][t]:
                order[j] = order[j - 1]
                j -= 1
            order[j] = t
        for i in range(k):
            cards[i] = s.jcard[o][order[i]]
        for j in range(s.jm[o]):
            a = s.jset[o][j]
            b = 0
            for i in range(k):
                b |= ((a >> (2 * order[i])) & 3) << (2 * i)
            s.jset[o][j] = b
        memcpy(s.jcard[o], cards, k)
        for i in range(1, s.jm[o]):           # insertion sort of the codes: at most 64
            a = s.jset[o][i]
            j = i
            while j > 0 and s.jset[o][j - 1] > a:
                s.jset[o][j] = s.jset[o][j - 1]
                j -= 1
            s.jset[o][j] = a

    @cython.final
    cdef bint joint_moves(self, int o, uint16_t a, uint16_t b, int* held, int q,
                          int* keep, int nk, uint16_t* out, int* m) noexcept:
        """Every way placement a goes through this reveal, from seat q on, added to out: b is
        a with the hidden gifts of the seats before q made. False if out would overflow."""
        cdef KhivaState* s = &self.s
        cdef int n = s.n, k = s.jn[o], i, left, mine = 0
        if q == n:
            return self.joint_keep(o, b, held, keep, nk, out, m)
        if q == o:
            return self.joint_moves(o, a, b, held, q + 1, keep, nk, out, m)
        left = (q + 1) % n
        for i in range(k):
            if (s.sel_play[q] >> s.jcard[o][i]) & 1:
                if self.joint_seat(o, a, i) != q:
                    return True               # q played it: a has it elsewhere
            elif self.joint_seat(o, a, i) == q:
                mine += 1
        if mine + 1 > held[q]:
            return True                       # q held more followed cards than cards
        if left == o:                         # the gift o got, seen
            i = self.joint_index(o, lowest_bit(s.sel_give[q]))
            if i >= 0:
                if self.joint_seat(o, a, i) != q:
                    return True
            elif held[q] - mine - 1 < 1:
                return True                   # q had only followed cards left to give
            return self.joint_moves(o, a, b, held, q + 1, keep, nk, out, m)
        if held[q] - mine - 1 >= 1:           # q gave a card o does not follow
            if not self.joint_moves(o, a, b, held, q + 1, keep, nk, out, m):
                return False
        for i in range(k):                    # or one it follows, which reaches q's left
            if self.joint_seat(o, a, i) == q and not (s.sel_play[q] >> s.jcard[o][i]) & 1:
                if not self.joint_moves(o, a, (b & ~(<uint16_t>3 << (2 * i)))
                                        | self.joint_code(o, left, i),
                                        held, q + 1, keep, nk, out, m):
                    return False
        return True

    @cython.final
    cdef bint joint_keep(self, int o, uint16_t a, int* held, int* keep, int nk,
                         uint16_t* out, int* m) noexcept:
        """Placement a after the reveal, re-indexed to the cards kept, o's gift added, if every
        hand (one card fewer now) holds its followed cards; once. False on overflow."""
        cdef KhivaState* s = &self.s
        cdef int count[5]
        cdef int i, seat, j
        cdef uint16_t b = 0
        for i in range(s.n):
            count[i] = 0
        for j in range(nk):
            seat = self.joint_seat(o, a, keep[j])
            count[seat] += 1
            if count[seat] > held[seat] - 1:
                return True
            b |= self.joint_code(o, seat, j)
        seat = (o + 1) % s.n
        count[seat] += 1
        if count[seat] > held[seat] - 1:
            return True
        b |= self.joint_code(o, seat, nk)
        for j in range(m[0]):
            if out[j] == b:
                return True
        if m[0] == JOINT_SETS:
            return False
        out[m[0]] = b
        m[0] += 1
        return True

    @cython.final
    cdef void give_up_joint(self, int o) noexcept:
        """Too many placements to keep: where[o] alone, until they fit again."""
        self.s.jlost[o] = 1
        self.s.jn[o] = 0
        self.s.jm[o] = 1
        self.s.jset[o][0] = 0

    @cython.final
    cdef uint32_t followed_cards(self, int o) noexcept:
        """The cards o's masks place with other seats only (never aside): those it gave."""
        cdef KhivaState* s = &self.s
        cdef uint32_t seen = self.holdings(o) | s.discard | s.aside_up
        cdef uint32_t cards = 0
        cdef int c
        for c in range(N_CARDS):
            if not (seen >> c) & 1 and not s.where[o][c] & (1 << ASIDE_LOC):
                cards |= 1u << c
        return cards

    @cython.final
    cdef void joint_from_where(self, int o) noexcept:
        """o's joint knowledge rebuilt from its masks alone: every placement of the cards it
        follows within them (the product), if it fits; else still given up."""
        cdef KhivaState* s = &self.s
        cdef uint32_t cards = self.followed_cards(o)
        cdef int k = popcount(cards), total = 1, i = 0, c
        if k > JOINT_CARDS:
            self.give_up_joint(o)
            return
        for c in range(N_CARDS):
            if (cards >> c) & 1:
                total *= popcount(s.where[o][c] & ((1 << s.n) - 1) & ~(1 << o))
                if total > JOINT_SETS:
                    self.give_up_joint(o)
                    return
        self.forget_joint(o)
        if total == 0:
            return                            # broken knowledge: nothing followed jointly
        for c in range(N_CARDS):
            if (cards >> c) & 1:
                s.jcard[o][i] = c
                i += 1
        s.jn[o] = k
        s.jm[o] = 0
        self.joint_product(o, 0, 0)
        self.sort_joint(o)

    @cython.final
    cdef void joint_product(self, int o, int i, uint16_t a) noexcept:
        """Adds every placement of the followed cards i.. within o's masks, a the seats so far."""
        cdef KhivaState* s = &self.s
        cdef int q
        if i == s.jn[o]:
            s.jset[o][s.jm[o]] = a
            s.jm[o] += 1
            return
        for q in range(s.n):
            if (s.where[o][s.jcard[o][i]] >> q) & 1 and q != o:
                self.joint_product(o, i + 1, a | self.joint_code(o, q, i))

    @cython.final
    cdef void sync_joint(self, int o) noexcept:
        """Placements outside o's masks dropped; each mask narrowed to the seats some
        placement gives its card."""
        cdef KhivaState* s = &self.s
        cdef int i, j, m = 0
        cdef uint16_t a
        cdef u8 reach[JOINT_CARDS]
        cdef bint fits
        if s.jlost[o]:
            self.joint_from_where(o)
            return
        for i in range(s.jn[o]):
            reach[i] = 0
        for j in range(s.jm[o]):
            a = s.jset[o][j]
            fits = True
            for i in range(s.jn[o]):
                if not (s.where[o][s.jcard[o][i]] >> self.joint_seat(o, a, i)) & 1:
                    fits = False
                    break
            if fits:
                s.jset[o][m] = a
                m += 1
                for i in range(s.jn[o]):
                    reach[i] |= <u8>(1 << self.joint_seat(o, a, i))
        if m == 0:
            self.joint_from_where(o)          # broken knowledge (a loaded position): start again
            return
        s.jm[o] = m
        for i in range(s.jn[o]):
            s.where[o][s.jcard[o][i]] &= reach[i]
        self.sort_joint(o)

    @cython.final
    cdef void resample(self, int o, Rng* rng) noexcept:
        """Redraw every card, pile order and future chance `o` cannot see.

        The unknown cards are dealt to the other players' holdings and the face-down aside
        uniformly among the assignments that respect o's knowledge (where[o]): the constrained
        cards get their places by rejection sampling where a try succeeds often enough, else
        by deal counts (count_deals); the free cards fill the rest at random.
        A player who already chose this turn gets a random split of its sampled holdings.
        """
        cdef KhivaState* s = &self.s
        cdef DealPlan* plan = self.deal_plan(o)
        cdef int* slot_place = plan.slot_place
        cdef int* cons = plan.cons
        cdef int n_cons = plan.n_cons, n_free = plan.n_free, n_slots = plan.n_slots
        cdef int q, c, i, j, t
        cdef int perm[25]
        cdef int free_cards[25]
        cdef uint32_t new_hold[6]
        cdef uint64_t digest[5]
        for q in range(6):
            new_hold[q] = 0
        # constrained cards: by rejection, unless that would take too many tries (then, or
        # when every try failed, from the deal counts)
        if plan.joint:
            self.deal_joint(plan, rng, perm)
        elif plan.exact or not self.place_by_rejection(plan, rng, perm):
            self.deal_from_counts(plan, rng, perm)
        for i in range(n_cons):
            new_hold[slot_place[perm[i]]] |= 1u << cons[i]
        # free cards: a Fisher-Yates shuffle into the slots left, each card dealt as it is drawn
        memcpy(free_cards, plan.free_cards, sizeof(free_cards))   # fixed size: no call
        for i in range(n_free - 1, 0, -1):
            j = rng_below(rng, i + 1)
            t = free_cards[j]
            free_cards[j] = free_cards[i]
            new_hold[slot_place[perm[n_cons + i]]] |= 1u << t
        if n_free > 0:
            new_hold[slot_place[perm[n_cons]]] |= 1u << free_cards[0]
        for q in range(s.n):
            if q == o:
                continue
            if s.sel_play[q]:                 # q has chosen this turn: a random split
                s.sel_play[q] = <uint32_t>random_subset(rng, new_hold[q], s.per_turn)
                s.sel_give[q] = <uint32_t>random_subset(rng, new_hold[q] & ~s.sel_play[q], s.per_turn)
                s.hand[q] = new_hold[q] & ~(s.sel_play[q] | s.sel_give[q])
            else:
                s.hand[q] = new_hold[q]
            for c in range(N_CARDS):          # Interpretation: others' knowledge is not modelled
                s.where[q][c] = self.all_places(q)
            self.forget_joint(q)
            digest[q] = mix64(s.hand[q] ^ mix64(s.sel_play[q] ^ mix64(<uint64_t>s.sel_give[q] + 1)))
        s.aside_down = new_hold[ASIDE_LOC]
        # face-down piles: nobody knows their order (shuffled from their canonical order; the
        # plan's bytes past a pile's top are this state's, which its inputs include)
        memcpy(s.teapots, plan.teapots, N_TEAPOTS)
        shuffle_bytes(rng, s.teapots, s.n_teapots)
        memcpy(s.carpets, plan.carpets, N_CARPETS)
        shuffle_bytes(rng, s.carpets, s.n_carpets)
        rng_seed(&s.chance, rng_next(rng))    # future deals are unknown too
        ih_resample(&s.ih, o, s.n, digest)

    @cython.final
    cdef bint place_by_rejection(self, DealPlan* plan, Rng* rng, int* perm) noexcept:
        """A uniform injective placement of the constrained cards into the slots (a partial
        Fisher-Yates shuffle of the slot numbers), tried again until each card's slot is one
        it may be in: perm[:n_cons] their slots, perm[n_cons:] the others. A failed try's
        swaps are undone rather than perm rebuilt. Whether a try succeeded within
        REJECTION_TRIES (perm is then the identity)."""
        cdef int i, j, t, k, tries
        cdef int swapped[25]
        for i in range(plan.n_slots):
            perm[i] = i
        for tries in range(REJECTION_TRIES):
            for i in range(plan.n_cons):
                j = i + rng_below(rng, plan.n_slots - i)
                swapped[i] = j
                t = perm[i]
                perm[i] = perm[j]
                perm[j] = t
                if not (plan.cons_slots[i] >> perm[i]) & 1:
                    break
            else:
                return True
            for k in range(i, -1, -1):        # back to the identity
                j = swapped[k]
                t = perm[k]
                perm[k] = perm[j]
                perm[j] = t
        return False

    @cython.final
    cdef DealPlan* deal_plan(self, int o) noexcept:
        """The plan of a determinization for `o`: the last one if made from the same inputs."""
        cdef PlanInputs inputs
        self.plan_inputs(o, &inputs)
        if not self.has_plan or memcmp(&inputs, &self.plan.inputs, sizeof(PlanInputs)) != 0:
            self.plan.inputs = inputs
            self.make_plan(&self.plan)
            self.has_plan = True
        return &self.plan

    @cython.final
    cdef void plan_inputs(self, int o, PlanInputs* inputs) noexcept:
        """Everything of this state a determinization plan for `o` is made from."""
        cdef KhivaState* s = &self.s
        cdef int q
        memset(inputs, 0, sizeof(PlanInputs))
        inputs.observer = o
        inputs.unknown = ((1u << N_CARDS) - 1) & ~(self.holdings(o) | s.discard | s.aside_up)
        for q in range(s.n):
            if q != o:
                inputs.cap[q] = popcount(self.holdings(q))
        inputs.cap[ASIDE_LOC] = popcount(s.aside_down)
        inputs.n_teapots = s.n_teapots
        inputs.n_carpets = s.n_carpets
        memcpy(inputs.where, s.where[o], N_CARDS)
        memcpy(inputs.teapots, s.teapots, N_TEAPOTS)
        memcpy(inputs.carpets, s.carpets, N_CARPETS)
        if s.jn[o] > 0:
            inputs.jn, inputs.jm = s.jn[o], s.jm[o]
            memcpy(inputs.jcard, s.jcard[o], JOINT_CARDS)
            memcpy(inputs.jset, s.jset[o], s.jm[o] * sizeof(uint16_t))

    @cython.final
    cdef void make_plan(self, DealPlan* plan) noexcept:
        """The slots to fill (place by place), the unknown cards split into those the
        observer's knowledge constrains and the free ones, and the piles in canonical order."""
        cdef PlanInputs* inputs = &plan.inputs
        cdef int q, i
        plan.n_slots = 0
        for q in range(6):
            plan.first_slot[q] = plan.n_slots
            for i in range(inputs.cap[q]):
                plan.slot_place[plan.n_slots] = q
                plan.n_slots += 1
        self.split_cards(plan, 0)
        plan.exact = plan.joint = False
        plan.n_counts = 0                     # no deal counts (yet)
        if self.joint_binds(plan):
            self.split_cards(plan, plan.inputs.jn)
            plan.joint = self.weigh_joint(plan)
            if not plan.joint:
                self.split_cards(plan, 0)
        if plan.n_cons > 0 and not plan.joint:
            self.choose_sampler(plan)
        memcpy(plan.teapots, inputs.teapots, N_TEAPOTS)
        sort_bytes(plan.teapots, inputs.n_teapots)
        memcpy(plan.carpets, inputs.carpets, N_CARPETS)
        sort_bytes(plan.carpets, inputs.n_carpets)

    @cython.final
    cdef void split_cards(self, DealPlan* plan, int joint) noexcept:
        """The unknown cards split into those the observer's knowledge constrains (cons) and
        the free ones; joint > 0: the cards of its joint knowledge first, all constrained."""
        cdef PlanInputs* inputs = &plan.inputs
        cdef int q, c, i
        cdef uint32_t first = 0
        cdef u8 places = 0
        plan.n_cons = plan.n_free = 0
        for q in range(6):
            if inputs.cap[q] > 0:
                places |= <u8>(1 << q)
        for i in range(joint):
            first |= 1u << inputs.jcard[i]
            plan.cons[plan.n_cons] = inputs.jcard[i]
            plan.cons_slots[plan.n_cons] = 0  # not read: a joint placement places them
            plan.n_cons += 1
        for c in range(N_CARDS):
            if (inputs.unknown >> c) & 1 and not (first >> c) & 1:
                if (inputs.where[c] & places) != places:
                    plan.cons[plan.n_cons] = c
                    plan.cons_slots[plan.n_cons] = 0
                    for i in range(plan.n_slots):
                        if (inputs.where[c] >> plan.slot_place[i]) & 1:
                            plan.cons_slots[plan.n_cons] |= 1u << i
                    plan.n_cons += 1
                else:
                    plan.free_cards[plan.n_free] = c
                    plan.n_free += 1

    @cython.final
    cdef bint joint_binds(self, DealPlan* plan) noexcept:
        """Whether the joint knowledge rules out a placement that the cards' masks and the
        seats' hand sizes allow (else the masks sample the same worlds, with the same draws as
        without it: at 3 players they always do, as each seat's hand size already ties them)."""
        cdef PlanInputs* inputs = &plan.inputs
        cdef int held[6]
        cdef int i
        if inputs.jn == 0:
            return False
        for i in range(inputs.jn):
            if not (inputs.unknown >> inputs.jcard[i]) & 1:
                return False                  # broken knowledge (cannot happen in play)
        for i in range(6):
            held[i] = 0
        return self.count_fits(plan, 0, held, inputs.jm + 1) > inputs.jm

    @cython.final
    cdef int count_fits(self, DealPlan* plan, int i, int* held, int limit) noexcept:
        """The placements of followed cards i.. within their masks and the seats' room (held:
        the cards placed so far), counted up to limit."""
        cdef PlanInputs* inputs = &plan.inputs
        cdef int q, total = 0
        if i == inputs.jn:
            return 1
        for q in range(5):
            if (inputs.where[inputs.jcard[i]] >> q) & 1 and held[q] < inputs.cap[q]:
                held[q] += 1
                total += self.count_fits(plan, i + 1, held, limit - total)
                held[q] -= 1
                if total >= limit:
                    break
        return total

    @cython.final
    cdef bint weigh_joint(self, DealPlan* plan) noexcept:
        """Each joint placement weighed by the deals that complete it: its cards' ways into
        their seats' slots times the deal counts of the other constrained cards from there.
        False if there are none (or no memory for the counts)."""
        cdef PlanInputs* inputs = &plan.inputs
        cdef int* cap = inputs.cap
        cdef int held[6]
        cdef int j, i, q, u
        cdef double w, total = 0.0
        if self.count_deals(plan) < 0:
            return False
        for j in range(inputs.jm):
            for q in range(6):
                held[q] = 0
            w = 1.0
            u = 0
            for i in range(inputs.jn):
                q = self.joint_seat(inputs.observer, inputs.jset[j], i)
                w *= cap[q] - held[q]         # 0 once a seat has no slot left
                held[q] += 1
                if held[q] <= cap[q]:
                    u += plan.stride[q]
            if w > 0:
                w *= self.deals[inputs.jn * plan.n_counts + u]
            total += w
            plan.joint_upto[j] = total
        return total > 0

    @cython.final
    cdef void deal_joint(self, DealPlan* plan, Rng* rng, int* perm) noexcept:
        """A joint placement drawn by its weight (weigh_joint), its cards into their seats'
        next slots, then the other constrained cards from the deal counts: a uniform draw
        among the deals the whole knowledge allows."""
        cdef PlanInputs* inputs = &plan.inputs
        cdef int held[6]
        cdef int j = 0, i, q, u = 0
        cdef double r = rng_unit(rng) * plan.joint_upto[inputs.jm - 1]
        while j < inputs.jm - 1 and plan.joint_upto[j] <= r:
            j += 1
        for q in range(6):
            held[q] = 0
        for i in range(inputs.jn):
            q = self.joint_seat(inputs.observer, inputs.jset[j], i)
            perm[i] = plan.first_slot[q] + held[q]
            held[q] += 1
            u += plan.stride[q]
        self.deal_rest(plan, rng, perm, inputs.jn, held, u)

    @cython.final
    cdef void choose_sampler(self, DealPlan* plan) noexcept:
        """Rejection sampling is exact and cheap while a try often succeeds: kept where at
        least one try in REJECTION_MEAN_TRIES does. Below that (a few 3- and 4-player positions,
        where up to a sixth of the worlds used to exhaust the tries), the deal counts place
        the constrained cards. Knowledge no deal satisfies (the loader refuses such
        positions) leaves every unknown card free."""
        cdef double deals = self.count_deals(plan)
        cdef int i
        if deals > 0 or deals < 0:            # < 0: not counted (no memory), rejection only
            plan.exact = deals > 0 and deals < placements_tried(plan) / REJECTION_MEAN_TRIES
            return
        for i in range(plan.n_cons):
            plan.free_cards[plan.n_free + i] = plan.cons[i]
        plan.n_free += plan.n_cons
        plan.n_cons = 0

    @cython.final
    cdef double count_deals(self, DealPlan* plan) noexcept:
        """deals[i * n_counts + u]: the placements of the constrained cards i.. into free
        slots, within o's knowledge, when the places already hold the counts u encodes (the
        count at place q is u // stride[q] % (cap[q] + 1)). Returns the placements of them
        all, deals[0], or -1 if there is no memory for them (n_counts stays 0)."""
        cdef int* cap = plan.inputs.cap
        cdef u8* where = plan.inputs.where
        cdef int q, i, u, n_counts = 1
        cdef int held[6]
        cdef double total
        cdef double* here
        cdef double* after
        for q in range(6):
            plan.stride[q] = n_counts
            n_counts *= cap[q] + 1
        if not self.room_for_deals((plan.n_cons + 1) * n_counts):
            return -1.0
        plan.n_counts = n_counts
        after = self.deals + plan.n_cons * n_counts
        for u in range(n_counts):
            after[u] = 1.0
        for i in range(plan.n_cons - 1, -1, -1):
            here = self.deals + i * n_counts
            after = here + n_counts
            for q in range(6):
                held[q] = 0
            for u in range(n_counts):
                total = 0.0
                for q in range(6):
                    if (where[plan.cons[i]] >> q) & 1 and held[q] < cap[q]:
                        total += (cap[q] - held[q]) * after[u + plan.stride[q]]
                here[u] = total
                q = 0                         # the next counts, place 0 counting fastest
                while q < 6 and held[q] == cap[q]:
                    held[q] = 0
                    q += 1
                if q < 6:
                    held[q] += 1
        return self.deals[0]

    @cython.final
    cdef bint room_for_deals(self, int n) noexcept:
        cdef double* grown
        if n <= self.deals_room:
            return True
        grown = <double*>realloc(self.deals, n * sizeof(double))
        if grown == NULL:
            return False
        self.deals, self.deals_room = grown, n
        return True

    @cython.final
    cdef void deal_from_counts(self, DealPlan* plan, Rng* rng, int* perm) noexcept:
        """Each constrained card's place drawn in turn, in proportion to the placements that
        complete it (count_deals): a uniform draw among them. A card takes the next slot of
        its place; the slots left follow in order (the free cards are shuffled into them)."""
        cdef int held[6]
        cdef int q
        if plan.n_counts == 0:
            return                            # not counted (no memory): perm stays as it is
        for q in range(6):
            held[q] = 0
        self.deal_rest(plan, rng, perm, 0, held, 0)

    @cython.final
    cdef void deal_rest(self, DealPlan* plan, Rng* rng, int* perm, int start, int* held,
                        int u) noexcept:
        """deal_from_counts from constrained card `start` on, the places holding held
        (their deal-count index u)."""
        cdef int* cap = plan.inputs.cap
        cdef u8* where = plan.inputs.where
        cdef int i, q, chosen, k
        cdef double r, w
        cdef double* after
        for i in range(start, plan.n_cons):
            after = self.deals + (i + 1) * plan.n_counts
            r = rng_unit(rng) * self.deals[i * plan.n_counts + u]
            chosen = -1
            for q in range(6):
                if not (where[plan.cons[i]] >> q) & 1 or held[q] == cap[q]:
                    continue
                w = (cap[q] - held[q]) * after[u + plan.stride[q]]
                if w > 0:
                    chosen = q                # the last one with any, should r round past
                    if r < w:
                        break
                    r -= w
            perm[i] = plan.first_slot[chosen] + held[chosen]
            held[chosen] += 1
            u += plan.stride[chosen]
        k = plan.n_cons
        for q in range(6):
            for i in range(held[q], cap[q]):
                perm[k] = plan.first_slot[q] + i
                k += 1

    # ================================================================ the bridge
    def _fields(self) -> dict:
        """The C state as Python values (GameCore's docstring: the bridge)."""
        return self.s

    def _deals_fitting(self, int observer) -> float:
        """The share of random placements of the unknown cards that `observer`'s knowledge
        constrains that fit it (1.0 if it constrains none): below 1 / REJECTION_MEAN_TRIES
        its worlds are dealt from exact counts. For tests and benchmarks."""
        if not 0 <= observer < self.s.n:
            raise ValueError(f"observer must be a seat, 0 to {self.s.n - 1}")
        cdef DealPlan* plan = self.deal_plan(observer)
        if plan.n_cons == 0:
            return 1.0
        if plan.n_counts == 0:
            raise MemoryError("no memory for the deal counts")
        return self.deals[0] / placements_tried(plan)

    def _settle_joint(self) -> None:
        """After a loader wrote the fields: each seat's joint knowledge filtered by its masks
        and the masks narrowed to it; a seat whose jlost is set (no joint knowledge given)
        rebuilt from its masks alone. The loader has checked the fields first."""
        cdef int o
        if not 2 <= self.s.n <= 5:
            return                            # not a Khiva state (check_invariants says so)
        for o in range(self.s.n):
            if self.s.duel:
                self.forget_joint(o)
            else:
                self.sync_joint(o)

    @cython.boundscheck(True)
    def _set_fields(self, dict fields not None) -> None:
        """Overwrite the C state from `fields` (GameCore's docstring: the bridge)."""
        self.s = fields
