# cython: language_level=3
"""Khan of Khans: every rule of the game in one compact C state.

The sections are those of the game-module contract (cext/core.pxd), in its order, and the
rules read top to bottom like the rulebook: the component table; moves and phases (the move
kinds, the phases of a turn, the kinds of the narration log); the state (KhanState); set-up
(the deal); move generation (the legal moves of each phase, and the playouts' policy); playing
a move (raid a location and resolve the card, lose cows, corral the herd, Waha's Blessings,
then the end of a turn and of the game); scoring and tie-breaks; information (what the Sable
Nation hides, determinization); copying; and the bridge. Notation, JSON, views, the checks of
a loaded position, rendering and narration are the Python half, in engine/games/khan.py: it
reads and writes this state only through the bridge, `_fields` and `_set_fields`.

Rule interpretations are marked "Interpretation" and explained in docs/rules/khan_of_khans.md.
"""
cimport cython
from libc.stdint cimport uint64_t, uint32_t
from libc.string cimport memset
from cext.core cimport GameCore, EventLog, MAX_MOVES, MAX_PLAYERS, TRACK_ALL, head_fits, log_event
from cext.moves cimport make_move, move_kind, move_arg
from cext.rng cimport Rng, rng_seed, rng_next, rng_below, mix64
from cext.bits cimport (i8, popcount, lowest_bit, nth_bit, shuffle_bytes, sort_bytes,
                        first_bytes, count_byte, caravan_first_bytes)
from cext.infohash cimport (InfoHash, ih_reset, ih_public, ih_private, ih_resample)

# ================================================================ component table
# Every number of the game lives here (all printed in the rulebook unless marked). (cpdef: the
# Python half reads them too.)
cpdef enum:
    N_DECKS = 10             # location decks, identifiable by their backs
    ALL_DECKS = 1023         # the bit set of the ten decks
    DECK_SIZE = 8
    N_TYPES = 7              # card types, by code:
    T_R20 = 0                #   Raid! 20   (raid cards: code = tier, 0..2)
    T_R50 = 1                #   Raid! 50
    T_R100 = 2               #   Raid! 100
    T_BLESS = 3              #   Waha's Blessing
    T_STAMP = 4              #   Stampede!
    T_CHAMP = 5              #   Tribal Champion
    T_MAGIC = 6              #   Enemy Magic
    N_KHANS = 5
    K_IMPALA = 0
    K_BISON = 1
    K_MOROKANTH = 2
    K_SABLE = 3
    K_LLAMA = 4
    BLESS_POINTS = 20        # a Waha's Blessing at the end of the game
    MOROKANTH_EXTRA = 1      # extra corral tile of the Morokanth
    IMPALA_REVEAL = 3        # Impala People: reveal the top card of up to 3 decks
    MAX_SLOTS = 40           # Sable's face-down raid cards (at most every raid card)
    LOC_HERD = 0             # where a face-down Sable card lies
    LOC_CORRAL = 1
    LOC_BOX = 2
    PLAYOUT_EPSILON = 10     # playouts: percent of uniformly random moves (a search aid)

cdef int DECK_COUNT[7]       # copies of each type in every deck
DECK_COUNT[:] = [1, 2, 1, 1, 1, 1, 1]
cdef int RAID_VALUE[3]       # cows of a raid card by tier
RAID_VALUE[:] = [20, 50, 100]
cdef int CORRALS[6]          # corral tiles by player count
CORRALS[:] = [0, 0, 4, 3, 3, 2]

PY_DECK_COUNT = tuple(DECK_COUNT)        # the same tables for the Python half
PY_RAID_VALUE = tuple(RAID_VALUE)
PY_CORRALS = tuple(CORRALS)

# ================================================================ moves and phases
cpdef enum:
    PH_MAIN = 0              # the player to move chooses an action
    PH_BLESS = 1             # a Waha's Blessing was drawn: keep it or steal at once
    PH_REVEAL = 2            # Impala People: reveal another deck or stop
    PH_PICK = 3              # Impala People: take one of the revealed cards
    PH_OVER = 4

    # Move kinds: a move is make_move(kind, arg) (cext/moves.pxd), read with move_kind() and
    # move_arg(); the kinds ascend in the order gen_moves lists the moves.
    MV_RAID = 0              # raid a location; arg: the deck (0..9)
    MV_CORRAL = 1            # corral the herd
    MV_SNEAK = 2             # Sneaky (High Llama Tribe); arg: the tier of the card
    MV_IMPALA = 3            # Observant: start the Impala People's ability
    MV_USE = 4               # use a kept Waha's Blessing; arg: steal_arg(victim, tier)
    MV_KEEP = 5              # keep a drawn Waha's Blessing on the Khan card
    MV_STEAL = 6             # use a drawn Waha's Blessing at once; arg: steal_arg(victim, tier)
    MV_REVEAL = 7            # Impala People: reveal a deck's top; arg: the deck
    MV_STOP = 8              # Impala People: stop revealing
    MV_TAKE = 9              # Impala People: take a revealed card; arg: the deck
    TIER_RANDOM = 3          # a steal's tier against the Sable Nation: a card at random

    # The kinds of the narration log (core.pxd's EventLog): each entry is (kind, the player
    # to move, a, b, c), a move writes at most two; a, b, c by kind:
    LOG_DRAW = 1             # deck, type, hidden
    LOG_LOSE = 2             # tier, count, cause (0 stampede, 1 infighting, 2 magic, 3 bison)
    LOG_SAVED = 3            # the champion absorbed Enemy Magic
    LOG_CHAMP = 4            # took a champion (no second)
    LOG_STEAL = 5            # victim, tier
    LOG_REVEAL = 6           # deck, type
    LOG_CORRAL = 7           # cards, value, champion discarded
    LOG_KEEP = 8             # blessing kept (auto: 1)
    LOG_SNEAK = 9            # tier
    LOG_NOEFFECT = 10        # stampede on an empty herd

    # The most legal moves a position can have: the High Llama Tribe's main phase in a
    # 5-player game, 10 raids + corral + 3 sneaks + a kept blessing on each of 3 opponents x
    # 3 values and on the Sable Nation (one move, at random) = 24. Other Khans and phases
    # have fewer: the Sable Nation 10 + 1 + 4 x 3 = 23, the Impala People 10 + 1 + 1 + 10,
    # a drawn blessing 1 + 12, the Impala reveals 10 + stop, the pick 3.
    MOST_MOVES = 24
    # What gen_moves can write whatever the state, once its guard holds (at most 5 seats, ten
    # deck bits): 10 + 1 + 3 + 1 + 4 x 3.
    GEN_BOUND = 27

cdef enum:
    # What a move tells whom: the information events it hashes (type << 56 | payload), see
    # the information section
    EV_MOVE = 1
    EV_DRAW = 2
    EV_HIDDEN = 3
    EV_SECRET = 4
    EV_STAMPEDE = 5
    EV_THEFT = 6
    EV_REVEAL = 7

# A steal's argument (MV_USE, MV_STEAL) packs the victim's seat and the tier taken (TIER_RANDOM
# from the Sable Nation). cpdef: the Python half's notation reads it too.
cpdef inline int steal_arg(int victim, int tier) noexcept nogil: return victim * 4 + tier
cpdef inline int steal_victim(int arg) noexcept nogil: return arg >> 2
cpdef inline int steal_tier(int arg) noexcept nogil: return arg & 3

if MOST_MOVES > GEN_BOUND or <int>GEN_BOUND > <int>MAX_MOVES:
    raise ImportError("a Khan of Khans position can have more moves than a move buffer holds")

# ================================================================ state
cdef struct Slot:
    # one face-down raid card of the Sable Nation: its deck (visible on its back), its value,
    # the highest value the others know it can have, and where it lies
    i8 deck, tier, cap, loc

cdef struct KhanState:
    int tracking                     # StateHead (core.pxd): these three fields first
    InfoHash ih
    EventLog log
    int n
    int khan[5]                      # Khan of each seat
    int sable, impala, bison, llama  # seat of that Khan, -1 if not in play
    i8 deck[10][8]          # top = deck[d][ndeck[d] - 1]
    int ndeck[10]
    uint32_t nonempty                # decks with cards left
    uint32_t top_known               # decks whose top card everyone knows (Impala reveals)
    int cards_left
    int phase, actor
    int herd[5][3]                   # raid cards in the herd by tier (face-down ones included)
    int n_herd[5]
    int herd_val[5]
    int champion[5]
    int corrals_open[5]
    int corrals_used[5]
    int sneaked[5]                   # used corrals holding a sneaked extra card
    int corral[5][3]                 # raid cards under closed corral tiles, by tier
    int corral_val[5]
    int kept[5]                      # unused Waha's Blessings on the Khan card
    int recv[5]                      # used Waha's Blessings under the Khan card
    int pending_bless                # the drawn blessing while its owner decides
    int impala_token                 # 1 = coloured side up (the ability is ready)
    uint32_t revealed                # decks revealed by the current Impala ability
    int box[7]                       # discarded cards by type (face-down ones included)
    Slot slot[MAX_SLOTS]             # Sable's face-down raid cards, oldest first
    int n_slots
    int turn
    Rng chance

cdef struct DeckCounts:              # the playout policy's view of the decks, by deck d:
    double cows[10]                  # the cows of the raid cards left
    double other[4][10]              # the cards left of type T_BLESS + i
    double left[10]                  # the cards left
    int cows_left                    # the cows of every deck

cdef KhanState _layout_probe
if not head_fits(&_layout_probe, &_layout_probe.tracking, &_layout_probe.ih, &_layout_probe.log):
    raise ImportError("KhanState must begin with the fields of StateHead (cext/core.pxd)")

# ================================================================ set-up
cdef class KhanOfKhansCore(GameCore):
    """The rules of Khan of Khans on one C state. `KhanOfKhansCore(players=4, seed=0,
    khans=None)` deals a new game; `khans` fixes each seat's Khan by number (K_IMPALA ...
    K_LLAMA). The game API (Khan names, notation, JSON, views) is its subclass
    engine.games.khan.KhanOfKhans."""
    cdef KhanState s
    name, title = "khan", "Khan of Khans"
    aliases = ("khanofkhans", "khan-of-khans")
    min_players, max_players, default_players = 2, 5, 4
    options = {"khans": "one Khan per seat, e.g. impala,bison,morokanth,sable (default: dealt from the seed)"}

    def __cinit__(self, *args, **kwargs):
        self.bind_state(&self.s, sizeof(KhanState))

    def __init__(self, players=None, seed=0, khans=None):
        cdef int ks[5]
        cdef int i
        self._start(self.default_players if players is None else players, seed)
        players = self.n_players
        if khans is None:
            self.setup(players, self.seed, NULL)
            return
        khans = list(khans)
        if len(khans) != players:
            raise ValueError(f"give one Khan per seat: {players} Khans, not {len(khans)}")
        if len(set(khans)) != players:
            raise ValueError("each Khan can be dealt only once")
        for i in range(players):
            if not 0 <= khans[i] < N_KHANS:
                raise ValueError(f"no Khan number {khans[i]!r}")
            ks[i] = khans[i]
        self.setup(players, self.seed, ks)

    @cython.final
    cdef void setup(self, int n, uint64_t seed, int* khans) noexcept:
        cdef KhanState* s = &self.s
        cdef int i, d, t, k, p
        cdef Rng kr
        cdef i8 order[5]
        memset(s, 0, sizeof(KhanState))
        s.n = n
        s.tracking = TRACK_ALL
        rng_seed(&s.chance, seed)
        ih_reset(&s.ih, <uint64_t>n * 1000 + 7)
        if khans == NULL:
            # Khans dealt at random: a generator of their own, so that fixing the Khans
            # does not change the decks of a seed
            rng_seed(&kr, seed ^ <uint64_t>0x4B48414E4B48414E)
            for i in range(N_KHANS):
                order[i] = i
            shuffle_bytes(&kr, order, N_KHANS)
            for p in range(n):
                s.khan[p] = order[p]
        else:
            for p in range(n):
                s.khan[p] = khans[p]
        s.sable = s.impala = s.bison = s.llama = -1
        for p in range(n):
            if s.khan[p] == K_SABLE:
                s.sable = p
            elif s.khan[p] == K_IMPALA:
                s.impala = p
            elif s.khan[p] == K_BISON:
                s.bison = p
            elif s.khan[p] == K_LLAMA:
                s.llama = p
            s.corrals_open[p] = CORRALS[n] + (MOROKANTH_EXTRA if s.khan[p] == K_MOROKANTH else 0)
        for d in range(N_DECKS):
            k = 0
            for t in range(N_TYPES):
                for i in range(DECK_COUNT[t]):
                    s.deck[d][k] = t
                    k += 1
            shuffle_bytes(&s.chance, s.deck[d], DECK_SIZE)
            s.ndeck[d] = DECK_SIZE
        s.nonempty = (1u << N_DECKS) - 1
        s.cards_left = N_DECKS * DECK_SIZE
        s.phase = PH_MAIN
        # Interpretation: the Impala People begin; otherwise seat 0 (the "oldest player")
        s.actor = s.impala if s.impala >= 0 else 0

    # ================================================================ move generation
    @cython.final
    cdef int current(self) noexcept:
        return -1 if self.s.phase == PH_OVER else self.s.actor

    @cython.final
    cdef int add_steals(self, int* buf, int n, int kind, int p) noexcept:
        """Steals (kind MV_USE or MV_STEAL) from every opponent with raid cards in the herd:
        one move per tier present, or a single move 'at random' against the Sable Nation."""
        cdef KhanState* s = &self.s
        cdef int q, t
        for q in range(s.n):
            if q == p or s.n_herd[q] == 0:
                continue
            if q == s.sable:
                buf[n] = make_move(kind, steal_arg(q, TIER_RANDOM))
                n += 1
            else:
                for t in range(3):
                    if s.herd[q][t] > 0:
                        buf[n] = make_move(kind, steal_arg(q, t))
                        n += 1
        return n

    @cython.final
    cdef int add_decks(self, int* buf, int n, int kind, uint32_t decks) noexcept:
        """One move of `kind` per deck in the bit set `decks`, in deck order."""
        decks &= ALL_DECKS
        while decks:
            buf[n] = make_move(kind, lowest_bit(decks))
            n += 1
            decks &= decks - 1
        return n

    @cython.final
    cdef inline int main_extras(self, int* buf, int n, int p) noexcept:
        """p's main-phase moves after the raids, from buf[n] on: corral, sneaks, the Impala
        ability, steals with a kept blessing. Returns the new count."""
        cdef KhanState* s = &self.s
        cdef int t
        if s.corrals_open[p] > 0 and s.n_herd[p] > 0:
            buf[n] = make_move(MV_CORRAL, 0)
            n += 1
        if p == s.llama and s.corrals_used[p] > s.sneaked[p]:
            for t in range(3):
                if s.herd[p][t] > 0:
                    buf[n] = make_move(MV_SNEAK, t)
                    n += 1
        if p == s.impala and s.impala_token:
            buf[n] = make_move(MV_IMPALA, 0)
            n += 1
        if s.kept[p] > 0:
            n = self.add_steals(buf, n, MV_USE, p)
        return n

    @cython.final
    cdef int gen_moves(self, int* buf) noexcept:
        cdef KhanState* s = &self.s
        cdef int n = 0, p = s.actor
        if <unsigned>s.n > MAX_PLAYERS or <unsigned>p >= <unsigned>s.n:
            return 0                            # no position has these: never overrun buf
        if s.phase == PH_MAIN:
            n = self.add_decks(buf, 0, MV_RAID, s.nonempty)
            return self.main_extras(buf, n, p)
        if s.phase == PH_BLESS:
            buf[0] = make_move(MV_KEEP, 0)
            return self.add_steals(buf, 1, MV_STEAL, p)
        if s.phase == PH_REVEAL:
            n = self.add_decks(buf, 0, MV_REVEAL, s.nonempty & ~s.revealed)
            if s.revealed:
                buf[n] = make_move(MV_STOP, 0)
                n += 1
            return n
        if s.phase == PH_PICK:
            return self.add_decks(buf, 0, MV_TAKE, s.revealed)
        return 0

    @cython.final
    cdef int random_move(self, Rng* rng) noexcept:
        """A uniformly random legal move, the very one the base's draw from gen_moves gives
        for the same rng, without listing the raids (most moves of most positions): in the
        main phase the raids come first, one per deck in deck order, so the k-th move is the
        k-th deck bit; only the moves after them are written."""
        cdef KhanState* s = &self.s
        cdef int buf[GEN_BOUND]
        cdef int p = s.actor, raids, n, k
        cdef uint32_t decks = s.nonempty & ALL_DECKS
        if s.phase != PH_MAIN or <unsigned>s.n > MAX_PLAYERS or <unsigned>p >= <unsigned>s.n:
            n = self.gen_moves(buf)
            return buf[rng_below(rng, n)]
        raids = popcount(decks)
        k = rng_below(rng, raids + self.main_extras(buf, 0, p))
        if k < raids:
            return make_move(MV_RAID, nth_bit(decks, k))
        return buf[k - raids]

    # ------------------------------------------------------------ playout policy
    # A search aid, not a rule (docs/rules/khan_of_khans.md, "Playout policy"): the move the
    # ISMCTS playouts take. It reads only this state (in a search, a determinization) and rng,
    # counts the cards left in each deck (never their order, except tops known to everyone),
    # and plays roughly like search/heuristics/khan.py, with a share of uniform moves.
    @cython.final
    cdef inline double best_steal(self, int p, int* code) noexcept:   # inline: called per playout move
        """Cows of the best card p can take with a blessing (0 if none); code: its steal_arg.
        The Sable Nation's card is taken at random: valued at its herd's average."""
        cdef KhanState* s = &self.s
        cdef int q, t
        cdef double best = 0.0, v
        code[0] = -1
        for q in range(s.n):
            if q == p or s.n_herd[q] == 0:
                continue
            if q == s.sable:
                v = <double>s.herd_val[q] / s.n_herd[q]
                t = TIER_RANDOM
            else:
                t = 2
                while t > 0 and s.herd[q][t] == 0:
                    t -= 1
                v = RAID_VALUE[t]
            if v > best:
                best = v
                code[0] = steal_arg(q, t)
        return best

    @cython.final
    cdef double card_worth(self, int p, int t, double herd, double top, double steal) noexcept:
        """What drawing a card of type t is worth to p now, in cows (the heuristic's table)."""
        cdef KhanState* s = &self.s
        if t <= T_R100:
            return RAID_VALUE[t]
        if t == T_STAMP:
            return -top
        if t == T_MAGIC:
            return -(0.15 * herd + 5.0) if s.champion[p] else -herd
        if t == T_CHAMP:
            if s.champion[p]:
                return -top if p == s.bison else -herd
            return 0.15 * herd + 5.0
        return steal if steal > BLESS_POINTS else BLESS_POINTS

    @cython.final
    cdef void count_decks(self, DeckCounts* dc) noexcept:
        """The cards left in each deck by type (eight bytes at a time), for policy_move."""
        cdef KhanState* s = &self.s
        cdef int d, t, cows
        cdef uint64_t cards, live
        dc.cows_left = 0
        for d in range(N_DECKS):
            cards = first_bytes(s.deck[d], s.ndeck[d])
            live = caravan_first_bytes[s.ndeck[d]]
            cows = 0
            for t in range(T_R100 + 1):
                cows += count_byte(cards, live, t) * RAID_VALUE[t]
            dc.cows[d] = cows
            dc.cows_left += cows
            for t in range(T_BLESS, N_TYPES):
                dc.other[t - T_BLESS][d] = count_byte(cards, live, t)
            dc.left[d] = s.ndeck[d]

    @cython.final
    cdef void count_draw(self, DeckCounts* dc, int d) noexcept:
        """Take deck d's top card (about to be drawn) out of the counts."""
        cdef KhanState* s = &self.s
        cdef int t = s.deck[d][s.ndeck[d] - 1]
        dc.left[d] -= 1.0
        if t <= T_R100:
            dc.cows[d] -= RAID_VALUE[t]
            dc.cows_left -= RAID_VALUE[t]
        else:
            dc.other[t - T_BLESS][d] -= 1.0

    @cython.final
    cdef int playout_move(self, Rng* rng) noexcept:
        cdef DeckCounts dc
        self.count_decks(&dc)
        return self.policy_move(rng, &dc)

    @cython.final
    cdef int playout(self, Rng* rng, bint policy, int limit) noexcept:
        """GameCore.playout, the policy's deck counts made once and then kept by each draw
        (a raid or an Impala pick takes a deck's top card), not counted again every move."""
        cdef KhanState* s = &self.s
        cdef DeckCounts dc
        cdef int played = 0, move, kind, d
        if not policy:
            return GameCore.playout(self, rng, policy, limit)
        self.count_decks(&dc)
        while played < limit and self.current() >= 0:
            move = self.policy_move(rng, &dc)
            kind = move_kind(move)
            d = move_arg(move)
            if (kind == MV_RAID or kind == MV_TAKE) and <unsigned>d < N_DECKS and s.ndeck[d] > 0:
                self.count_draw(&dc, d)
            self.do_move(move)
            played += 1
        return played

    @cython.final
    cdef int policy_move(self, Rng* rng, DeckCounts* dc) noexcept:
        """The playouts' move (playout_move), with `dc` holding each deck's cards by type."""
        cdef KhanState* s = &self.s
        cdef int p = s.actor, d, t, code, best_d = -1, ties = 0
        cdef double herd, top, steal, ev, best_ev = -1e300, share, w3, w4, w5, w6
        cdef double worth[7]
        cdef double evs[10]
        cdef uint32_t m, decks
        if <int>rng_below(rng, 100) < PLAYOUT_EPSILON:
            return self.random_move(rng)
        herd = s.herd_val[p]
        t = 2
        while t >= 0 and s.herd[p][t] == 0:
            t -= 1
        top = RAID_VALUE[t] if t >= 0 else 0.0
        steal = self.best_steal(p, &code)
        if s.phase == PH_BLESS:
            if code >= 0 and steal >= 50:
                return make_move(MV_STEAL, code)
            return make_move(MV_KEEP, 0)
        for t in range(N_TYPES):
            worth[t] = self.card_worth(p, t, herd, top, steal)
        if s.phase == PH_PICK:
            m = s.revealed
            while m:
                d = lowest_bit(m)
                m &= m - 1
                ev = worth[s.deck[d][s.ndeck[d] - 1]]
                if ev > best_ev:
                    best_ev = ev
                    best_d = d
            return make_move(MV_TAKE, best_d)
        # the expected worth of raiding each deck, from its unseen cards: every deck at once,
        # two to a vector register (the same operations in the same order as one at a time,
        # so the same values; an empty deck's is never read), then the decks whose top
        # everyone knows, then the choice
        decks = s.nonempty
        if s.phase == PH_REVEAL:
            decks &= ~s.revealed
        w3 = worth[T_BLESS]
        w4 = worth[T_STAMP]
        w5 = worth[T_CHAMP]
        w6 = worth[T_MAGIC]
        for d in range(N_DECKS):
            evs[d] = ((((dc.cows[d] + dc.other[0][d] * w3) + dc.other[1][d] * w4)
                       + dc.other[2][d] * w5) + dc.other[3][d] * w6) / dc.left[d]
        m = decks & s.top_known
        while m:
            d = lowest_bit(m)
            m &= m - 1
            evs[d] = worth[s.deck[d][s.ndeck[d] - 1]]
        m = decks
        while m:
            d = lowest_bit(m)
            m &= m - 1
            ev = evs[d]
            if ev > best_ev:
                best_ev = ev
                best_d = d
                ties = 1
            elif ev == best_ev:
                ties += 1
                if rng_below(rng, ties) == 0:
                    best_d = d
        if s.phase == PH_REVEAL:
            if s.revealed:
                m = s.revealed
                ev = -1e300
                while m:
                    d = lowest_bit(m)
                    m &= m - 1
                    if worth[s.deck[d][s.ndeck[d] - 1]] > ev:
                        ev = worth[s.deck[d][s.ndeck[d] - 1]]
                if best_d < 0 or ev >= 100 or (ev >= 50 and popcount(s.revealed) >= 2):
                    return make_move(MV_STOP, 0)
            return make_move(MV_REVEAL, best_d)
        # main phase
        if s.kept[p] > 0 and code >= 0 and (steal >= 100 or (steal >= 50 and s.n == 2)):
            return make_move(MV_USE, code)
        if p == s.llama and s.corrals_used[p] > s.sneaked[p]:
            if s.herd[p][T_R100] > 0:
                return make_move(MV_SNEAK, T_R100)
            if s.corrals_open[p] == 0 and herd >= 50 and best_ev < 25:
                return make_move(MV_SNEAK, T_R50 if s.herd[p][T_R50] > 0 else T_R20)
        if s.corrals_open[p] > 0 and s.n_herd[p] > 0:
            share = <double>dc.cows_left / s.n / s.corrals_open[p]
            if (best_ev <= 0 or (herd >= 0.8 * share and herd >= 90)
                    or s.cards_left <= 2 * s.n):
                return make_move(MV_CORRAL, 0)
        if p == s.impala and s.impala_token and best_ev < 40:
            return make_move(MV_IMPALA, 0)
        return make_move(MV_RAID, best_d)


    # ================================================================ playing a move
    @cython.final
    cdef inline void note(self, int kind, int p, int a, int b, int c) noexcept:
        """Log what a move did, for narration (at TRACK_ALL only: not in the search)."""
        if self.s.tracking == TRACK_ALL:
            log_event(&self.s.log, kind, p, a, b, c)

    @cython.final
    cdef void do_move(self, int move) noexcept:
        cdef KhanState* s = &self.s
        cdef int p = s.actor, kind = move_kind(move), arg = move_arg(move), t
        if s.tracking:
            ih_public(&s.ih, (<uint64_t>EV_MOVE << 56) | (<uint64_t>p << 32) | <uint32_t>move)
        if kind == MV_RAID:                     # most moves are raids: tested before the switch
            self.raid(p, arg)
            return
        if kind == MV_CORRAL:
            self.corral_herd(p)
            self.end_turn()
        elif kind == MV_SNEAK:
            self.move_herd_card(p, arg)
            s.corral[p][arg] += 1
            s.corral_val[p] += RAID_VALUE[arg]
            s.sneaked[p] += 1
            self.note(LOG_SNEAK, p, arg, 0, 0)
            self.end_turn()
        elif kind == MV_IMPALA:
            s.impala_token = 0
            s.revealed = 0
            s.phase = PH_REVEAL
        elif kind == MV_USE:
            s.kept[p] -= 1
            self.steal(p, steal_victim(arg), steal_tier(arg))
            self.end_turn()
        elif kind == MV_KEEP:
            s.pending_bless = 0
            s.kept[p] += 1
            self.note(LOG_KEEP, p, 0, 0, 0)
            self.end_turn()
        elif kind == MV_STEAL:
            s.pending_bless = 0
            self.steal(p, steal_victim(arg), steal_tier(arg))
            self.end_turn()
        elif kind == MV_REVEAL:
            s.revealed |= 1u << arg
            s.top_known |= 1u << arg
            t = s.deck[arg][s.ndeck[arg] - 1]
            if s.tracking:
                ih_public(&s.ih, (<uint64_t>EV_REVEAL << 56) | (<uint64_t>arg << 8) | <uint64_t>t)
            self.note(LOG_REVEAL, p, arg, t, 0)
            if popcount(s.revealed) == IMPALA_REVEAL or (s.nonempty & ~s.revealed) == 0:
                s.phase = PH_PICK
        elif kind == MV_STOP:
            s.phase = PH_PICK
        elif kind == MV_TAKE:
            s.revealed = 0
            self.raid(p, arg)

    # ------------------------------------------------------------ raid a location
    @cython.final
    cdef void raid(self, int p, int d) noexcept:
        """Turn over the top card of deck d and resolve it for player p."""
        cdef KhanState* s = &self.s
        s.ndeck[d] -= 1
        cdef int t = s.deck[d][s.ndeck[d]]
        # Interpretation (docs/rules/khan_of_khans.md, 5): a top the Impala People revealed
        # was seen by all; the Sable Nation's draw cannot hide it again, so it is face up.
        cdef bint hidden = t <= T_R100 and p == s.sable and not (s.top_known >> d) & 1
        s.top_known &= ~(1u << d)
        if s.ndeck[d] == 0:
            s.nonempty &= ~(1u << d)
        s.cards_left -= 1
        if s.tracking:
            if hidden:   # the Sable Nation's raid cards are drawn face down
                ih_public(&s.ih, (<uint64_t>EV_HIDDEN << 56) | <uint64_t>d)
                ih_private(&s.ih, 1u << p, (<uint64_t>EV_SECRET << 56) | <uint64_t>t)
            else:
                ih_public(&s.ih, (<uint64_t>EV_DRAW << 56) | (<uint64_t>d << 8) | <uint64_t>t)
        self.note(LOG_DRAW, p, d, t, hidden)
        if t <= T_R100:
            s.herd[p][t] += 1
            s.n_herd[p] += 1
            s.herd_val[p] += RAID_VALUE[t]
            if hidden:
                s.slot[s.n_slots].deck = d
                s.slot[s.n_slots].tier = t
                s.slot[s.n_slots].cap = T_R100
                s.slot[s.n_slots].loc = LOC_HERD
                s.n_slots += 1
        elif t == T_STAMP:
            s.box[T_STAMP] += 1
            if s.n_herd[p] > 0:
                self.lose_highest(p, 0)
            else:
                self.note(LOG_NOEFFECT, p, 0, 0, 0)
        elif t == T_CHAMP:
            if s.champion[p]:
                # a second champion: infighting (the Bison Riders lose only one highest card)
                s.champion[p] = 0
                s.box[T_CHAMP] += 2
                if p == s.bison:
                    if s.n_herd[p] > 0:
                        self.lose_highest(p, 3)
                    else:
                        self.note(LOG_LOSE, p, -1, 0, 3)
                else:
                    self.lose_all(p, 1)
            else:
                s.champion[p] = 1
                self.note(LOG_CHAMP, p, 0, 0, 0)
        elif t == T_MAGIC:
            s.box[T_MAGIC] += 1
            if s.champion[p]:
                s.champion[p] = 0
                s.box[T_CHAMP] += 1
                self.note(LOG_SAVED, p, 0, 0, 0)
            else:
                self.lose_all(p, 2)
        else:                                   # Waha's Blessing
            s.pending_bless = 1
            if self.has_victim(p):
                s.phase = PH_BLESS
                return
            # nobody to steal from: the blessing is kept (the only legal choice)
            s.pending_bless = 0
            s.kept[p] += 1
            self.note(LOG_KEEP, p, 1, 0, 0)
        self.end_turn()

    @cython.final
    cdef bint has_victim(self, int p) noexcept:
        cdef int q
        for q in range(self.s.n):
            if q != p and self.s.n_herd[q] > 0:
                return True
        return False

    # ------------------------------------------------------------ losing cows
    @cython.final
    cdef int hidden_in_herd(self, int t) noexcept:
        cdef KhanState* s = &self.s
        cdef int i, k = 0
        for i in range(s.n_slots):
            if s.slot[i].loc == LOC_HERD and s.slot[i].tier == t:
                k += 1
        return k

    @cython.final
    cdef void remove_slot(self, int i) noexcept:
        cdef KhanState* s = &self.s
        cdef int j
        for j in range(i, s.n_slots - 1):
            s.slot[j] = s.slot[j + 1]
        s.n_slots -= 1

    @cython.final
    cdef void move_herd_card(self, int p, int t) noexcept:
        """Take one raid card of tier t out of p's herd (the caller puts it somewhere)."""
        cdef KhanState* s = &self.s
        s.herd[p][t] -= 1
        s.n_herd[p] -= 1
        s.herd_val[p] -= RAID_VALUE[t]

    @cython.final
    cdef void lose_highest(self, int p, int cause) noexcept:
        """Discard one of the highest raid cards of p's herd (Stampede!, Bison infighting).

        Interpretation (docs/rules/khan_of_khans.md, 6): the Sable Nation shows the discarded
        card (the others must be able to check that it is a highest one). A face-up card of
        that value goes if it has one; else one of its face-down cards of that value, drawn
        at random (chance) so that the choice tells nothing of the others. Everyone then
        knows that every face-down card still in the herd is worth at most that value.
        """
        cdef KhanState* s = &self.s
        cdef int t = 2, i, d = -1
        while t > 0 and s.herd[p][t] == 0:     # t > 0: ends even if the herd is empty
            t -= 1
        if p == s.sable:
            if s.herd[p][t] == self.hidden_in_herd(t):
                d = self.lose_face_down(t)
            for i in range(s.n_slots):          # the others' new bound on the rest
                if s.slot[i].loc == LOC_HERD and s.slot[i].cap > t:
                    s.slot[i].cap = t
            if s.tracking:
                ih_public(&s.ih, (<uint64_t>EV_STAMPEDE << 56) | (<uint64_t>(d + 1) << 8) | <uint64_t>t)
        self.move_herd_card(p, t)
        s.box[t] += 1
        self.note(LOG_LOSE, p, t, 1, cause)

    @cython.final
    cdef int lose_face_down(self, int t) noexcept:
        """Take one of Sable's face-down herd cards of tier t out of its slots, at random among
        them; returns its deck, all the others learn. Which of the deck's face-down herd cards
        it was they cannot tell (they share its back), so the slot that goes is a fixed one,
        the oldest of that deck the others allow to be a t; when it is not the card drawn, the
        two swap values (same deck, same place: the others cannot tell them apart; the values
        stay within their bounds, t being the herd's highest). The result depends only on the
        deck drawn, never on where in the herd the card lay."""
        cdef KhanState* s = &self.s
        cdef int i, j = 0, k = self.hidden_in_herd(t), d = -1, c = -1, r = -1
        if k > 1:
            j = rng_below(&s.chance, k)
        for i in range(s.n_slots):              # the j-th candidate: its deck
            if s.slot[i].loc == LOC_HERD and s.slot[i].tier == t:
                if j == 0:
                    d = s.slot[i].deck
                    break
                j -= 1
        for i in range(s.n_slots):
            if s.slot[i].loc != LOC_HERD or s.slot[i].deck != d:
                continue
            if r < 0 and s.slot[i].cap >= t:
                r = i                           # the slot that goes
            if c < 0 and s.slot[i].tier == t:
                c = i                           # the card of value t that goes
        if c < 0:
            return d                            # no position has it: never index slot[-1]
        s.slot[c].tier = s.slot[r].tier
        s.slot[r].tier = t
        self.remove_slot(r)
        return d

    @cython.final
    cdef void lose_all(self, int p, int cause) noexcept:
        """Discard every raid card of p's herd (Enemy Magic, infighting)."""
        cdef KhanState* s = &self.s
        cdef int t, i
        self.note(LOG_LOSE, p, s.herd_val[p], s.n_herd[p], cause)
        for t in range(3):
            s.box[t] += s.herd[p][t]
            s.herd[p][t] = 0
        s.n_herd[p] = 0
        s.herd_val[p] = 0
        if p == s.sable:
            for i in range(s.n_slots):
                if s.slot[i].loc == LOC_HERD:
                    s.slot[i].loc = LOC_BOX

    # ------------------------------------------------------------ corral the herd
    @cython.final
    cdef void corral_herd(self, int p) noexcept:
        cdef KhanState* s = &self.s
        cdef int t, i
        self.note(LOG_CORRAL, p, s.n_herd[p], s.herd_val[p], s.champion[p])
        s.corrals_open[p] -= 1
        s.corrals_used[p] += 1
        for t in range(3):
            s.corral[p][t] += s.herd[p][t]
            s.herd[p][t] = 0
        s.corral_val[p] += s.herd_val[p]
        s.n_herd[p] = 0
        s.herd_val[p] = 0
        if s.champion[p]:
            s.champion[p] = 0
            s.box[T_CHAMP] += 1
        if p == s.sable:
            for i in range(s.n_slots):
                if s.slot[i].loc == LOC_HERD:
                    s.slot[i].loc = LOC_CORRAL
        if p == s.impala:
            s.impala_token = 1

    # ------------------------------------------------------------ Waha's Blessing
    @cython.final
    cdef int take_face_down(self, int k, int* tier) noexcept:
        """The thief's random pick: the k-th of Sable's face-down herd cards, oldest first. It
        joins the thief's herd face up, so all see its deck and value (*tier); returns the
        deck. Which of that deck's face-down cards it was the others cannot tell (they share
        the back, and Sable may shuffle before the pick), so the slot that goes is a fixed
        one (Interpretation, docs/rules/khan_of_khans.md, 6): of that deck's face-down herd
        cards the others allow to hold this value, the one of tightest bound, the oldest
        among equals. When it is not the card picked, the two swap values; the value left
        behind was within the removed slot's bound, so within the looser bound of the slot
        that keeps it. What is left depends only on the deck and value shown."""
        cdef KhanState* s = &self.s
        cdef int i, picked = -1, gone = -1, d, t
        for i in range(s.n_slots):
            if s.slot[i].loc == LOC_HERD:
                if k == 0:
                    picked = i
                    break
                k -= 1
        if picked < 0:                          # no position has it: never index slot[-1]
            tier[0] = 0
            return -1
        d = s.slot[picked].deck
        t = s.slot[picked].tier
        for i in range(s.n_slots):
            if s.slot[i].loc == LOC_HERD and s.slot[i].deck == d and s.slot[i].cap >= t:
                if gone < 0 or s.slot[i].cap < s.slot[gone].cap:
                    gone = i
        s.slot[picked].tier = s.slot[gone].tier
        s.slot[gone].tier = t
        self.remove_slot(gone)
        tier[0] = t
        return d

    @cython.final
    cdef void steal(self, int p, int q, int t) noexcept:
        """p gives a Waha's Blessing to q and takes a raid card of tier t from q's herd; from
        the Sable Nation a card is taken at random (chance) and shown."""
        cdef KhanState* s = &self.s
        cdef int i, k, pub, d = -1
        s.recv[q] += 1
        if t == TIER_RANDOM:
            k = rng_below(&s.chance, s.n_herd[q])
            t = -1
            for i in range(3):                  # face-up cards first, by value
                pub = s.herd[q][i] - self.hidden_in_herd(i)
                if k < pub:
                    t = i
                    break
                k -= pub
            if t < 0:                           # the k-th face-down card, oldest first
                d = self.take_face_down(k, &t)
            if s.tracking:                      # all see: face up or the deck (its back), the value
                ih_public(&s.ih, (<uint64_t>EV_THEFT << 56) | (<uint64_t>(d + 1) << 8) | <uint64_t>t)
        self.move_herd_card(q, t)
        s.herd[p][t] += 1
        s.n_herd[p] += 1
        s.herd_val[p] += RAID_VALUE[t]
        self.note(LOG_STEAL, p, q, t, 0)

    # ------------------------------------------------------------ the end of a turn and of the game
    @cython.final
    cdef void end_turn(self) noexcept:
        cdef KhanState* s = &self.s
        s.turn += 1
        s.revealed = 0
        if s.nonempty & ALL_DECKS == 0:         # every deck empty (cards_left is then 0)
            s.phase = PH_OVER
            s.actor = -1
            return
        s.phase = PH_MAIN
        s.actor = s.actor + 1
        if s.actor == s.n:
            s.actor = 0

    # ================================================================ scoring
    # The base type derives rewards, scores() and ranking() from score and rank_key; no work
    # is shared between players, so there is no tally().
    @cython.final
    cdef int score(self, int p) noexcept:
        """p's cows: corrals + herd + 20 per Waha's Blessing owned (kept or received)."""
        cdef KhanState* s = &self.s
        return s.corral_val[p] + s.herd_val[p] + BLESS_POINTS * (s.kept[p] + s.recv[p])

    @cython.final
    cdef int raid_cards(self, int p) noexcept:
        cdef KhanState* s = &self.s
        return s.n_herd[p] + s.corral[p][0] + s.corral[p][1] + s.corral[p][2]

    @cython.final
    cdef long long rank_key(self, int p) noexcept:
        """Score, then most Waha's Blessings, then most raid cards."""
        cdef KhanState* s = &self.s
        return (<long long>self.score(p) * 100 + s.kept[p] + s.recv[p]) * 100 + self.raid_cards(p)

    def tiebreaks(self, p) -> tuple:
        """(score, Waha's Blessings owned, raid cards) of player p: the ranking key."""
        self._check_player(p)
        return (self.score(p), self.s.kept[p] + self.s.recv[p], self.raid_cards(p))

    # ================================================================ information
    @cython.final
    cdef void add_slots(self, int sign) noexcept:
        """Add (sign 1) or remove (sign -1) the face-down cards' values from the totals."""
        cdef KhanState* s = &self.s
        cdef int i, t, p = s.sable
        for i in range(s.n_slots):
            t = s.slot[i].tier
            if s.slot[i].loc == LOC_HERD:
                s.herd[p][t] += sign
                s.herd_val[p] += sign * RAID_VALUE[t]
            elif s.slot[i].loc == LOC_CORRAL:
                s.corral[p][t] += sign
                s.corral_val[p] += sign * RAID_VALUE[t]
            else:
                s.box[t] += sign

    @cython.final
    cdef void resample(self, int o, Rng* rng) noexcept:
        """Redraw every deck order and, for an observer other than the Sable Nation, the values
        of Sable's face-down cards, uniformly among the worlds consistent with what o saw.

        Per deck, the cards o has not seen come from that deck: its cards below a known top,
        plus (o not Sable) the face-down Sable cards with that deck's back. They are sorted,
        then dealt at random: the face-down slots take the first cards (rejected unless each
        is a raid card within the slot's known upper bound), the deck the rest. A deck's slots
        above its count, which still held the cards drawn from it (Sable's face-down ones
        among them), become zeros, as in a loaded position.
        """
        cdef KhanState* s = &self.s
        cdef bint hide = s.sable >= 0 and o != s.sable and s.phase != PH_OVER
        cdef i8 pool[8]
        cdef i8 tmp
        cdef int sl[8]
        cdef int caps[8]
        cdef int d, i, j, k, m, total, tries
        cdef bint ok
        cdef uint64_t digest[5]
        if hide:
            self.add_slots(-1)
        for d in range(N_DECKS):
            if 0 <= s.ndeck[d] <= DECK_SIZE:      # drawn cards' slots: zeros, as loaded
                for i in range(s.ndeck[d], DECK_SIZE):
                    s.deck[d][i] = 0
            m = s.ndeck[d] - (1 if (s.top_known >> d) & 1 else 0)
            if <unsigned>m > DECK_SIZE:
                continue                        # no position has it: never overrun pool
            for i in range(m):
                pool[i] = s.deck[d][i]
            k = 0
            if hide:
                for i in range(s.n_slots):
                    if s.slot[i].deck == d and m + k < DECK_SIZE:   # always, in a position
                        sl[k] = i
                        caps[k] = s.slot[i].cap
                        pool[m + k] = s.slot[i].tier
                        k += 1
            total = m + k
            if total < 2 and k == 0:
                continue
            sort_bytes(pool, total)
            ok = k == 0
            tries = 0
            while not ok and tries < 100000:
                tries += 1
                ok = True
                for i in range(k):             # partial Fisher-Yates: the slots' cards first
                    j = i + rng_below(rng, total - i)
                    tmp = pool[i]
                    pool[i] = pool[j]
                    pool[j] = tmp
                    if pool[i] > caps[i]:      # not a raid card, or above the known bound
                        ok = False
                        break
            if not ok:
                self.assign_greedily(pool, total, caps, k)
            shuffle_bytes(rng, pool + k, total - k)
            for i in range(k):
                s.slot[sl[i]].tier = pool[i]
            for i in range(m):
                s.deck[d][i] = pool[k + i]
        if hide:
            self.add_slots(1)
        rng_seed(&s.chance, rng_next(rng))    # future random thefts are unknown too
        for i in range(s.n):
            digest[i] = 0
        if hide:
            digest[s.sable] = 0x5AB1E
            for i in range(s.n_slots):
                digest[s.sable] = mix64(digest[s.sable] ^ (<uint64_t>s.slot[i].tier + 1))
        ih_resample(&s.ih, o, s.n, digest)

    @cython.final
    cdef void assign_greedily(self, i8* pool, int total, int* caps, int k) noexcept:
        """Fallback (never expected): a valid assignment, tightest slot gets the lowest card."""
        cdef int i, j, best, a
        cdef i8 tmp
        cdef int order[8]
        sort_bytes(pool, total)
        for i in range(k):
            order[i] = i
        for i in range(1, k):                   # slots by bound, tightest first
            a = order[i]
            j = i - 1
            while j >= 0 and caps[order[j]] > caps[a]:
                order[j + 1] = order[j]
                j -= 1
            order[j + 1] = a
        cdef i8 chosen[8]
        cdef bint used[8]
        for i in range(total):
            used[i] = False
        for i in range(k):
            best = -1
            for j in range(total):
                if not used[j] and pool[j] <= caps[order[i]]:
                    best = j
                    break
            if best < 0:
                best = 0
                while used[best]:
                    best += 1
            used[best] = True
            chosen[order[i]] = pool[best]
        j = k
        cdef i8 rest[8]
        a = 0
        for i in range(total):
            if not used[i]:
                rest[a] = pool[i]
                a += 1
        for i in range(k):
            pool[i] = chosen[i]
        for i in range(total - k):
            pool[k + i] = rest[i]


    # ================================================================ the bridge
    def _fields(self) -> dict:
        """The C state as Python values (GameCore's docstring: the bridge)."""
        return self.s

    @cython.boundscheck(True)
    def _set_fields(self, dict fields not None) -> None:
        """Overwrite the C state from `fields` (GameCore's docstring: the bridge)."""
        self.s = fields
