# cython: language_level=3
"""Khan of Khans: every rule of the game in one compact C state.

Read top to bottom: the component table, the state, set-up, the moves (raid a location,
corral the herd, use a kept Waha's Blessing, the Khan abilities), the resolution of every
card, the end of a turn and of the game, scoring and tie-breaks, then information (hashes,
what Sable hides, determinization) and the Python-facing notation and JSON.

Rule interpretations are marked "Interpretation" and explained in docs/rules/khan_of_khans.md.
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
# Every number of the game lives here (all printed in the rulebook unless marked).
cdef enum:
    N_DECKS = 10             # location decks, identifiable by their backs
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

PY_DECK_COUNT = (1, 2, 1, 1, 1, 1, 1)
PY_RAID_VALUE = (20, 50, 100)
PY_CORRALS = (0, 0, 4, 3, 3, 2)
DECK_KEYS = ("boldhome", "colymar", "duckpoint", "dragonseye", "dwarfmine", "earthshaker",
             "furthest", "grazelands", "shadowsdance", "sundome")
DECK_TITLES = ("Boldhome", "Colymar Lands", "Duck Point", "Dragon's Eye", "Dwarf Mine",
               "Earthshaker's Temple", "Furthest", "Grazelands", "Shadows Dance", "Sun Dome")
TYPE_KEYS = ("raid20", "raid50", "raid100", "blessing", "stampede", "champion", "magic")
TYPE_TITLES = ("Raid! 20", "Raid! 50", "Raid! 100", "Waha's Blessing", "Stampede!",
               "Tribal Champion", "Enemy Magic")
KHAN_KEYS = ("impala", "bison", "morokanth", "sable", "llama")
KHAN_TITLES = ("Impala People", "Bison Riders", "Morokanth", "Sable Nation", "High Llama Tribe")
LOC_KEYS = ("herd", "corral", "box")

# ================================================================ moves and phases
cdef enum:
    PH_MAIN = 0              # the player to move chooses an action
    PH_BLESS = 1             # a Waha's Blessing was drawn: keep it or steal at once
    PH_REVEAL = 2            # Impala People: reveal another deck or stop
    PH_PICK = 3              # Impala People: take one of the revealed cards
    PH_OVER = 4

    MV_RAID = 0              # + deck (0..9)
    MV_CORRAL = 10
    MV_SNEAK = 11            # + tier (High Llama Tribe)
    MV_IMPALA = 14           # start the Impala People ability
    MV_USE = 16              # + victim * 4 + tier (tier 3: at random, from the Sable Nation)
    MV_KEEP = 40
    MV_STEAL = 48            # + victim * 4 + tier
    MV_REVEAL = 70           # + deck
    MV_STOP = 80
    MV_TAKE = 90             # + deck
    MV_END = 100
    TIER_RANDOM = 3

    EV_MOVE = 1              # information events (type << 56 | payload)
    EV_DRAW = 2
    EV_HIDDEN = 3
    EV_SECRET = 4
    EV_STAMPEDE = 5
    EV_THEFT = 6
    EV_REVEAL = 7

    LOG_MAX = 8
    L_DRAW = 1               # deck, type, hidden
    L_LOSE = 2               # tier, count, cause (0 stampede, 1 infighting, 2 magic, 3 bison)
    L_SAVED = 3              # the champion absorbed Enemy Magic
    L_CHAMP = 4              # took a champion (no second)
    L_STEAL = 5              # victim, tier
    L_REVEAL = 6             # deck, type
    L_CORRAL = 7             # cards, value, champion discarded
    L_KEEP = 8               # blessing kept (auto: 1)
    L_SNEAK = 9              # tier
    L_NOEFFECT = 10          # stampede on an empty herd

cdef struct Slot:
    # one face-down raid card of the Sable Nation: its deck (visible on its back), its value,
    # the highest value the others know it can have, and where it lies
    i8 deck, tier, cap, loc

cdef struct KState:
    bint tracking                    # StateHead (core.pxd): these two fields first
    InfoHash ih
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
    Slot slot[40]                    # Sable's face-down raid cards, oldest first
    int n_slots
    int turn
    Rng chance
    int log[8][4]
    int n_log

cdef KState _layout_probe
if not head_fits(&_layout_probe, &_layout_probe.tracking, &_layout_probe.ih):
    raise ImportError("KState must begin with the fields of StateHead (cext/core.pxd)")


cdef inline int tier_value(int t) noexcept nogil:
    return RAID_VALUE[t]


@cython.final
cdef class KhanOfKhans(GameCore):
    """A Khan of Khans position. `KhanOfKhans(players=4, seed=0, khans=None)` deals a new game;
    `khans` fixes each seat's Khan (names impala, bison, morokanth, sable, llama)."""
    cdef KState s
    game = "khan"

    def __init__(self, int players=4, seed=0, khans=None):
        if players < 2 or players > 5:
            raise ValueError(f"Khan of Khans is played by 2 to 5 players, not {players}")
        if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
            raise ValueError(f"seed must be a non-negative integer, not {seed!r}")
        cdef int ks[5]
        cdef int i
        if khans is not None:
            if isinstance(khans, str):
                khans = [k for k in khans.replace(",", " ").split()]
            khans = list(khans)
            if len(khans) != players:
                raise ValueError(f"give one Khan per seat: {players} names, not {len(khans)}")
            idx = []
            for k in khans:
                if not isinstance(k, str) or k.strip().lower() not in KHAN_KEYS:
                    raise ValueError(f"unknown Khan {k!r}; Khans: {', '.join(KHAN_KEYS)}")
                idx.append(KHAN_KEYS.index(k.strip().lower()))
            if len(set(idx)) != len(idx):
                raise ValueError("each Khan can be dealt only once")
            for i in range(players):
                ks[i] = idx[i]
        self.n_players = players
        self.seed = seed & 0xFFFFFFFFFFFFFFFF
        if khans is None:
            self.setup(players, self.seed, NULL)
        else:
            self.setup(players, self.seed, ks)

    # ============================================================ set-up
    cdef void setup(self, int n, uint64_t seed, int* khans) noexcept:
        cdef KState* s = &self.s
        cdef int i, d, t, k, p
        cdef Rng kr
        cdef i8 order[5]
        memset(s, 0, sizeof(KState))
        s.n = n
        s.tracking = True
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

    # ============================================================ legal moves
    cdef int add_steals(self, int* buf, int n, int base, int p) noexcept:
        """Steals from every opponent with raid cards in the herd: one move per tier present,
        or a single move 'at random' against the Sable Nation."""
        cdef KState* s = &self.s
        cdef int q, t
        for q in range(s.n):
            if q == p or s.n_herd[q] == 0:
                continue
            if q == s.sable:
                buf[n] = base + q * 4 + TIER_RANDOM
                n += 1
            else:
                for t in range(3):
                    if s.herd[q][t] > 0:
                        buf[n] = base + q * 4 + t
                        n += 1
        return n

    cdef int gen_moves(self, int* buf) noexcept:
        cdef KState* s = &self.s
        cdef int n = 0, p = s.actor, t
        cdef uint32_t m
        if s.phase == PH_MAIN:
            m = s.nonempty
            while m:
                buf[n] = MV_RAID + lowest_bit(m)
                n += 1
                m &= m - 1
            if s.corrals_open[p] > 0 and s.n_herd[p] > 0:
                buf[n] = MV_CORRAL
                n += 1
            if p == s.llama and s.corrals_used[p] > s.sneaked[p]:
                for t in range(3):
                    if s.herd[p][t] > 0:
                        buf[n] = MV_SNEAK + t
                        n += 1
            if p == s.impala and s.impala_token:
                buf[n] = MV_IMPALA
                n += 1
            if s.kept[p] > 0:
                n = self.add_steals(buf, n, MV_USE, p)
            return n
        if s.phase == PH_BLESS:
            buf[0] = MV_KEEP
            return self.add_steals(buf, 1, MV_STEAL, p)
        if s.phase == PH_REVEAL:
            m = s.nonempty & ~s.revealed
            while m:
                buf[n] = MV_REVEAL + lowest_bit(m)
                n += 1
                m &= m - 1
            if s.revealed:
                buf[n] = MV_STOP
                n += 1
            return n
        if s.phase == PH_PICK:
            m = s.revealed
            while m:
                buf[n] = MV_TAKE + lowest_bit(m)
                n += 1
                m &= m - 1
            return n
        return 0

    cdef int random_move(self, Rng* rng) noexcept:
        cdef int buf[64]
        cdef int n = self.gen_moves(buf)
        return buf[rng_below(rng, n)]

    # ============================================================ playout policy
    # A search aid, not a rule (docs/rules/khan_of_khans.md, "Playout policy"): the move the
    # ISMCTS playouts take. It reads only this state (in a search, a determinization) and rng,
    # counts the cards left in each deck (never their order, except tops known to everyone),
    # and plays roughly like search/heuristics/khan.py, with a share of uniform moves.
    cdef double best_steal(self, int p, int* code) noexcept:
        """Cows of the best card p can take with a blessing (0 if none); code = victim*4+tier.
        The Sable Nation's card is taken at random: valued at its herd's average."""
        cdef KState* s = &self.s
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
                while s.herd[q][t] == 0:
                    t -= 1
                v = RAID_VALUE[t]
            if v > best:
                best = v
                code[0] = q * 4 + t
        return best

    cdef double card_worth(self, int p, int t, double herd, double top, double steal) noexcept:
        """What drawing a card of type t is worth to p now, in cows (the heuristic's table)."""
        cdef KState* s = &self.s
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

    cdef int playout_move(self, Rng* rng) noexcept:
        cdef KState* s = &self.s
        cdef int p = s.actor, d, i, t, code, best_d = -1, ties = 0, cows_left = 0
        cdef double herd, top, steal, ev, best_ev = -1e300, share
        cdef double worth[7]
        cdef int cnt[7]
        cdef uint32_t m
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
                return MV_STEAL + code
            return MV_KEEP
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
            return MV_TAKE + best_d
        # the expected worth of raiding each deck, from its unseen cards (or its known top)
        m = s.nonempty
        while m:
            d = lowest_bit(m)
            m &= m - 1
            if s.phase == PH_REVEAL and (s.revealed >> d) & 1:
                continue
            for t in range(N_TYPES):
                cnt[t] = 0
            for i in range(s.ndeck[d]):
                cnt[s.deck[d][i]] += 1
            cows_left += cnt[T_R20] * 20 + cnt[T_R50] * 50 + cnt[T_R100] * 100
            if (s.top_known >> d) & 1:
                ev = worth[s.deck[d][s.ndeck[d] - 1]]
            else:                               # by counts: the order never matters
                ev = 0.0
                for t in range(N_TYPES):
                    ev += cnt[t] * worth[t]
                ev /= s.ndeck[d]
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
                    return MV_STOP
            return MV_REVEAL + best_d
        # main phase
        if s.kept[p] > 0 and code >= 0 and (steal >= 100 or (steal >= 50 and s.n == 2)):
            return MV_USE + code
        if p == s.llama and s.corrals_used[p] > s.sneaked[p]:
            if s.herd[p][T_R100] > 0:
                return MV_SNEAK + T_R100
            if s.corrals_open[p] == 0 and herd >= 50 and best_ev < 25:
                return MV_SNEAK + (T_R50 if s.herd[p][T_R50] > 0 else T_R20)
        if s.corrals_open[p] > 0 and s.n_herd[p] > 0:
            share = <double>cows_left / s.n / s.corrals_open[p]
            if (best_ev <= 0 or (herd >= 0.8 * share and herd >= 90)
                    or s.cards_left <= 2 * s.n):
                return MV_CORRAL
        if p == s.impala and s.impala_token and best_ev < 40:
            return MV_IMPALA
        return MV_RAID + best_d

    def playout_choices(self, seed, int count=1) -> list:
        """The moves the search's playouts would take here in `count` draws from one Rng
        seeded by `seed` (a test and inspection aid; [] when the game is over)."""
        cdef Rng r
        cdef int i
        if self.s.phase == PH_OVER:
            return []
        rng_seed(&r, <uint64_t>(int(seed) & 0xFFFFFFFFFFFFFFFF))
        return [self.playout_move(&r) for i in range(count)]

    cdef int current(self) noexcept:
        return -1 if self.s.phase == PH_OVER else self.s.actor

    # ============================================================ applying a move
    cdef void note(self, int kind, int a, int b, int c) noexcept:
        cdef KState* s = &self.s
        if s.tracking and s.n_log < LOG_MAX:
            s.log[s.n_log][0] = kind
            s.log[s.n_log][1] = a
            s.log[s.n_log][2] = b
            s.log[s.n_log][3] = c
            s.n_log += 1

    cdef void do_move(self, int move) noexcept:
        cdef KState* s = &self.s
        cdef int p = s.actor, d, t
        if s.tracking:
            s.n_log = 0
            ih_public(&s.ih, (<uint64_t>EV_MOVE << 56) | (<uint64_t>p << 32) | <uint32_t>move)
        if move < MV_CORRAL:
            self.raid(p, move - MV_RAID)
        elif move == MV_CORRAL:
            self.corral_herd(p)
            self.end_turn()
        elif move < MV_IMPALA:
            t = move - MV_SNEAK
            self.move_herd_card(p, t)
            s.corral[p][t] += 1
            s.corral_val[p] += RAID_VALUE[t]
            s.sneaked[p] += 1
            self.note(L_SNEAK, t, 0, 0)
            self.end_turn()
        elif move == MV_IMPALA:
            s.impala_token = 0
            s.revealed = 0
            s.phase = PH_REVEAL
        elif move < MV_KEEP:
            s.kept[p] -= 1
            self.steal(p, (move - MV_USE) >> 2, (move - MV_USE) & 3)
            self.end_turn()
        elif move == MV_KEEP:
            s.pending_bless = 0
            s.kept[p] += 1
            self.note(L_KEEP, 0, 0, 0)
            self.end_turn()
        elif move < MV_REVEAL:
            s.pending_bless = 0
            self.steal(p, (move - MV_STEAL) >> 2, (move - MV_STEAL) & 3)
            self.end_turn()
        elif move < MV_STOP:
            d = move - MV_REVEAL
            s.revealed |= 1u << d
            s.top_known |= 1u << d
            t = s.deck[d][s.ndeck[d] - 1]
            if s.tracking:
                ih_public(&s.ih, (<uint64_t>EV_REVEAL << 56) | (<uint64_t>d << 8) | <uint64_t>t)
            self.note(L_REVEAL, d, t, 0)
            if popcount(s.revealed) == IMPALA_REVEAL or (s.nonempty & ~s.revealed) == 0:
                s.phase = PH_PICK
        elif move == MV_STOP:
            s.phase = PH_PICK
        else:
            s.revealed = 0
            self.raid(p, move - MV_TAKE)

    # ------------------------------------------------------------ raid a location
    cdef void raid(self, int p, int d) noexcept:
        """Turn over the top card of deck d and resolve it for player p."""
        cdef KState* s = &self.s
        s.ndeck[d] -= 1
        cdef int t = s.deck[d][s.ndeck[d]]
        cdef bint hidden = t <= T_R100 and p == s.sable
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
        self.note(L_DRAW, d, t, hidden)
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
                self.note(L_NOEFFECT, 0, 0, 0)
        elif t == T_CHAMP:
            if s.champion[p]:
                # a second champion: infighting (the Bison Riders lose only one highest card)
                s.champion[p] = 0
                s.box[T_CHAMP] += 2
                if p == s.bison:
                    if s.n_herd[p] > 0:
                        self.lose_highest(p, 3)
                    else:
                        self.note(L_LOSE, -1, 0, 3)
                else:
                    self.lose_all(p, 1)
            else:
                s.champion[p] = 1
                self.note(L_CHAMP, 0, 0, 0)
        elif t == T_MAGIC:
            s.box[T_MAGIC] += 1
            if s.champion[p]:
                s.champion[p] = 0
                s.box[T_CHAMP] += 1
                self.note(L_SAVED, 0, 0, 0)
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
            self.note(L_KEEP, 1, 0, 0)
        self.end_turn()

    cdef bint has_victim(self, int p) noexcept:
        cdef int q
        for q in range(self.s.n):
            if q != p and self.s.n_herd[q] > 0:
                return True
        return False

    cdef void end_turn(self) noexcept:
        cdef KState* s = &self.s
        s.turn += 1
        s.revealed = 0
        if s.cards_left == 0:
            s.phase = PH_OVER
            s.actor = -1
            return
        s.phase = PH_MAIN
        s.actor = s.actor + 1
        if s.actor == s.n:
            s.actor = 0

    # ------------------------------------------------------------ losing cows
    cdef int hidden_in_herd(self, int t) noexcept:
        cdef KState* s = &self.s
        cdef int i, k = 0
        for i in range(s.n_slots):
            if s.slot[i].loc == LOC_HERD and s.slot[i].tier == t:
                k += 1
        return k

    cdef void remove_slot(self, int i) noexcept:
        cdef KState* s = &self.s
        cdef int j
        for j in range(i, s.n_slots - 1):
            s.slot[j] = s.slot[j + 1]
        s.n_slots -= 1

    cdef void move_herd_card(self, int p, int t) noexcept:
        """Take one raid card of tier t out of p's herd (the caller puts it somewhere)."""
        cdef KState* s = &self.s
        s.herd[p][t] -= 1
        s.n_herd[p] -= 1
        s.herd_val[p] -= RAID_VALUE[t]

    cdef void lose_highest(self, int p, int cause) noexcept:
        """Discard one of the highest raid cards of p's herd (Stampede!, Bison infighting).

        Interpretation: the Sable Nation shows the discarded card (the others must be able to
        check that it is a highest one). It discards a face-up card of that value if it has
        one, else its oldest face-down card of that value; the others then know an upper
        bound of every face-down card still in the herd.
        """
        cdef KState* s = &self.s
        cdef int t = 2, i, chosen = -1, seen = 0
        while s.herd[p][t] == 0:
            t -= 1
        if p == s.sable:
            if s.herd[p][t] > self.hidden_in_herd(t):
                chosen = -1                     # a face-up card of that value goes
                for i in range(s.n_slots):
                    if s.slot[i].loc == LOC_HERD and s.slot[i].cap > t:
                        s.slot[i].cap = t
            else:
                for i in range(s.n_slots):
                    if s.slot[i].loc != LOC_HERD:
                        continue
                    if chosen < 0 and s.slot[i].tier == t:
                        chosen = i
                    elif chosen < 0:
                        if s.slot[i].cap > t - 1:
                            s.slot[i].cap = t - 1
                    elif s.slot[i].cap > t:
                        s.slot[i].cap = t
                self.remove_slot(chosen)
            if s.tracking:
                ih_public(&s.ih, (<uint64_t>EV_STAMPEDE << 56) | (<uint64_t>(chosen + 1) << 8) | <uint64_t>t)
        self.move_herd_card(p, t)
        s.box[t] += 1
        self.note(L_LOSE, t, 1, cause)

    cdef void lose_all(self, int p, int cause) noexcept:
        """Discard every raid card of p's herd (Enemy Magic, infighting)."""
        cdef KState* s = &self.s
        cdef int t, i
        self.note(L_LOSE, s.herd_val[p], s.n_herd[p], cause)
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
    cdef void corral_herd(self, int p) noexcept:
        cdef KState* s = &self.s
        cdef int t, i
        self.note(L_CORRAL, s.n_herd[p], s.herd_val[p], s.champion[p])
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
    cdef void steal(self, int p, int q, int t) noexcept:
        """p gives a Waha's Blessing to q and takes a raid card of tier t from q's herd; from
        the Sable Nation a card is taken at random (chance) and shown."""
        cdef KState* s = &self.s
        cdef int r, i, k, pub
        s.recv[q] += 1
        if t == TIER_RANDOM:
            r = rng_below(&s.chance, s.n_herd[q])
            k = r
            t = -1
            for i in range(3):                  # face-up cards first, by value
                pub = s.herd[q][i] - self.hidden_in_herd(i)
                if k < pub:
                    t = i
                    break
                k -= pub
            if t < 0:                           # the k-th face-down card, oldest first
                for i in range(s.n_slots):
                    if s.slot[i].loc == LOC_HERD:
                        if k == 0:
                            t = s.slot[i].tier
                            self.remove_slot(i)
                            break
                        k -= 1
            if s.tracking:
                ih_public(&s.ih, (<uint64_t>EV_THEFT << 56) | (<uint64_t>r << 8) | <uint64_t>t)
        self.move_herd_card(q, t)
        s.herd[p][t] += 1
        s.n_herd[p] += 1
        s.herd_val[p] += RAID_VALUE[t]
        self.note(L_STEAL, q, t, 0)

    # ============================================================ scoring
    cdef int score(self, int p) noexcept:
        cdef KState* s = &self.s
        return s.corral_val[p] + s.herd_val[p] + BLESS_POINTS * (s.kept[p] + s.recv[p])

    cdef int raid_cards(self, int p) noexcept:
        cdef KState* s = &self.s
        return s.n_herd[p] + s.corral[p][0] + s.corral[p][1] + s.corral[p][2]

    cdef long long rank_key(self, int p) noexcept:
        """Score, then most Waha's Blessings, then most raid cards."""
        cdef KState* s = &self.s
        return (<long long>self.score(p) * 100 + s.kept[p] + s.recv[p]) * 100 + self.raid_cards(p)

    cdef void get_rewards(self, double* out) noexcept:
        cdef long long keys[5]
        cdef int p
        for p in range(self.s.n):
            keys[p] = self.rank_key(p)
        win_shares(keys, self.s.n, out)

    cdef void get_scores(self, double* out) noexcept:
        cdef int p
        for p in range(self.s.n):
            out[p] = self.score(p)

    # ============================================================ copying
    cdef void* raw_state(self) noexcept:
        return &self.s

    cdef size_t raw_size(self) noexcept:
        return sizeof(KState)

    # ============================================================ information
    cdef void add_slots(self, int sign) noexcept:
        """Add (sign 1) or remove (sign -1) the face-down cards' values from the totals."""
        cdef KState* s = &self.s
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

    cdef void resample(self, int o, Rng* rng) noexcept:
        """Redraw every deck order and, for an observer other than the Sable Nation, the values
        of Sable's face-down cards, uniformly among the worlds consistent with what o saw.

        Per deck, the cards o has not seen come from that deck: its cards below a known top,
        plus (o not Sable) the face-down Sable cards with that deck's back. They are sorted,
        then dealt at random: the face-down slots take the first cards (rejected unless each
        is a raid card within the slot's known upper bound), the deck the rest.
        """
        cdef KState* s = &self.s
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
            m = s.ndeck[d] - (1 if (s.top_known >> d) & 1 else 0)
            for i in range(m):
                pool[i] = s.deck[d][i]
            k = 0
            if hide:
                for i in range(s.n_slots):
                    if s.slot[i].deck == d:
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

    # ============================================================ Python API
    @property
    def phase(self) -> str:
        return ("main", "blessing", "reveal", "pick", "over")[self.s.phase]

    @property
    def turn(self) -> int:
        return self.s.turn

    @property
    def khans(self) -> list:
        return [KHAN_KEYS[self.s.khan[p]] for p in range(self.s.n)]

    def scores(self) -> list:
        """Current cows of every player: corrals + herd + 20 per Waha's Blessing owned."""
        return [self.score(p) for p in range(self.s.n)]

    def ranking(self) -> list:
        """Final places (1 = first) after both tie-breaks; fully tied players share a place."""
        keys = [self.rank_key(p) for p in range(self.s.n)]
        return [1 + sum(1 for k in keys if k > keys[p]) for p in range(self.s.n)]

    def tiebreaks(self, int p) -> tuple:
        """(score, Waha's Blessings owned, raid cards) of player p: the ranking key."""
        self._check_player(p)
        return (self.score(p), self.s.kept[p] + self.s.recv[p], self.raid_cards(p))

    def move_to_text(self, int move) -> str:
        if 0 <= move < MV_CORRAL:
            return "raid-" + DECK_KEYS[move]
        if move == MV_CORRAL:
            return "corral"
        if MV_SNEAK <= move < MV_IMPALA:
            return f"sneak-{PY_RAID_VALUE[move - MV_SNEAK]}"
        if move == MV_IMPALA:
            return "observant"
        if MV_USE <= move < MV_KEEP:
            return "bless-" + steal_text(move - MV_USE)
        if move == MV_KEEP:
            return "keep"
        if MV_STEAL <= move < MV_REVEAL:
            return "steal-" + steal_text(move - MV_STEAL)
        if MV_REVEAL <= move < MV_STOP:
            return "reveal-" + DECK_KEYS[move - MV_REVEAL]
        if move == MV_STOP:
            return "stop"
        if MV_TAKE <= move < MV_END:
            return "take-" + DECK_KEYS[move - MV_TAKE]
        return f"?{move}"

    def last_events(self) -> list:
        """What the last move did (filled while tracking), as tuples (kind, a, b, c)."""
        return [tuple(self.s.log[i][j] for j in range(4)) for i in range(self.s.n_log)]

    def narrate(self, GameCore before, int player, int move) -> list:
        """Lines for a spectator: the move, the card(s) turned over and what they did."""
        cdef KhanOfKhans b = <KhanOfKhans?>before
        who = f"P{player} ({KHAN_TITLES[self.s.khan[player]]})"
        text = b.move_to_text(move)
        lines = []
        if 0 <= move < MV_CORRAL:
            head = f"{who} raids {DECK_TITLES[move]}"
        elif MV_TAKE <= move < MV_END:
            head = f"{who} takes the revealed card of {DECK_TITLES[move - MV_TAKE]}"
        elif move == MV_CORRAL:
            head = f"{who} corrals the herd"
        elif move == MV_IMPALA:
            head = f"{who} uses Observant (Impala People): reveals up to three decks"
        elif move == MV_STOP:
            head = f"{who} stops revealing"
        elif MV_REVEAL <= move < MV_STOP:
            head = f"{who} reveals the top of {DECK_TITLES[move - MV_REVEAL]}"
        elif MV_SNEAK <= move < MV_IMPALA:
            head = f"{who} sneaks a Raid! {PY_RAID_VALUE[move - MV_SNEAK]} into a used corral (Sneaky)"
        elif move == MV_KEEP:
            head = f"{who} keeps the Waha's Blessing on the Khan card"
        elif MV_USE <= move < MV_KEEP:
            head = f"{who} uses a kept Waha's Blessing"
        elif MV_STEAL <= move < MV_REVEAL:
            head = f"{who} uses the Waha's Blessing at once"
        else:
            head = f"{who} {text}"
        parts = []
        for i in range(self.s.n_log):
            kind, a, c, e = (self.s.log[i][j] for j in range(4))
            if kind == L_DRAW:
                if e:
                    parts.append(f"a Raid! card, face down (Sable Nation; it is a "
                                 f"{PY_RAID_VALUE[c]})")
                else:
                    parts.append(TYPE_TITLES[c])
            elif kind == L_LOSE:
                if e in (0, 3):
                    if a < 0:
                        parts.append("a second Tribal Champion: both discarded, no Raid! card "
                                     "to lose (Resolute)")
                    elif e == 3:
                        parts.append(f"a second Tribal Champion: both discarded and only a "
                                     f"Raid! {PY_RAID_VALUE[a]} lost (Resolute)")
                    else:
                        parts.append(f"a Raid! {PY_RAID_VALUE[a]} escapes")
                else:
                    if e == 1:
                        parts.append("a second Tribal Champion: infighting, both champions")
                    if c == 0:
                        parts.append("no Raid! card in the herd to lose")
                    else:
                        parts.append(f"loses the whole herd ({c} Raid! card{'s' if c != 1 else ''}"
                                     f", {a} cows)")
            elif kind == L_NOEFFECT:
                parts.append("no Raid! card in the herd, no effect")
            elif kind == L_SAVED:
                parts.append("the Tribal Champion is discarded and the herd is safe")
            elif kind == L_CHAMP:
                parts.append("guards the herd")
            elif kind == L_STEAL:
                parts.append(f"gives it to P{a} and takes a Raid! {PY_RAID_VALUE[c]} from their herd"
                             + (" (at random)" if a == self.s.sable else ""))
            elif kind == L_REVEAL:
                parts.append(f"{DECK_TITLES[a]} shows {TYPE_TITLES[c]}")
            elif kind == L_CORRAL:
                parts.append(f"{a} Raid! card{'s' if a != 1 else ''} ({c} cows) safe"
                             + (", the Tribal Champion is discarded" if e else ""))
            elif kind == L_KEEP and a:
                parts.append("kept on the Khan card (nobody to steal from)")
        lines.append(head + (": " + "; ".join(parts) if parts else ""))
        if self.s.phase == PH_OVER:
            lines.append("    every location deck is empty: the game is over")
        if self.s.phase == PH_BLESS:
            lines.append(f"    {who} decides: keep the blessing or steal at once")
        lines.append("    herds: " + "  ".join(
            f"P{p} {self.s.herd_val[p]}" + ("+C" if self.s.champion[p] else "")
            for p in range(self.s.n)) + "   scores: " + "  ".join(
            f"P{p} {self.score(p)}" for p in range(self.s.n)))
        return lines

    def to_json(self, view=None) -> dict:
        """The full state, or (view = a player) what that player knows: hidden parts left out."""
        cdef KState* s = &self.s
        if view is not None:
            self._check_player(view)
        full = view is None
        # Interpretation: at the end every player totals its cows, so the Sable Nation's
        # face-down cards are shown (docs/views/khan.md)
        sees_sable = full or view == s.sable or s.phase == PH_OVER
        hid_herd = [0, 0, 0]
        hid_corral = [0, 0, 0]
        hid_box = [0, 0, 0]
        for i in range(s.n_slots):
            where = (hid_herd, hid_corral, hid_box)[s.slot[i].loc]
            where[s.slot[i].tier] += 1
        players = []
        for p in range(s.n):
            herd = [s.herd[p][t] - (hid_herd[t] if p == s.sable else 0) for t in range(3)]
            corral = [s.corral[p][t] - (hid_corral[t] if p == s.sable else 0) for t in range(3)]
            d = {
                "khan": KHAN_KEYS[s.khan[p]],
                "herd": {str(PY_RAID_VALUE[t]): herd[t] for t in (2, 1, 0)},
                "champion": bool(s.champion[p]),
                "corrals_open": s.corrals_open[p], "corrals_used": s.corrals_used[p],
                "sneaked": s.sneaked[p],
                "corral": {str(PY_RAID_VALUE[t]): corral[t] for t in (2, 1, 0)},
                "kept_blessings": s.kept[p], "received_blessings": s.recv[p],
            }
            if p == s.sable:
                d["herd_face_down"] = sum(hid_herd)
                d["corral_face_down"] = sum(hid_corral)
            if p != s.sable or sees_sable:
                d["score"] = self.score(p)
            players.append(d)
        decks = []
        for dk in range(N_DECKS):
            e = {"name": DECK_KEYS[dk], "count": s.ndeck[dk],
                 "top": TYPE_KEYS[s.deck[dk][s.ndeck[dk] - 1]] if (s.top_known >> dk) & 1 else None}
            if full:
                e["cards"] = [TYPE_KEYS[s.deck[dk][i]] for i in range(s.ndeck[dk])]
            else:
                unseen = [0] * N_TYPES
                for i in range(s.ndeck[dk] - (1 if (s.top_known >> dk) & 1 else 0)):
                    unseen[s.deck[dk][i]] += 1
                if not sees_sable:
                    for i in range(s.n_slots):
                        if s.slot[i].deck == dk:
                            unseen[s.slot[i].tier] += 1
                e["unseen"] = {TYPE_KEYS[t]: unseen[t] for t in range(N_TYPES) if unseen[t]}
            decks.append(e)
        slots = []
        for i in range(s.n_slots):
            e = {"deck": DECK_KEYS[s.slot[i].deck], "at": LOC_KEYS[s.slot[i].loc],
                 "max": PY_RAID_VALUE[s.slot[i].cap]}
            if sees_sable:
                e["value"] = PY_RAID_VALUE[s.slot[i].tier]
            slots.append(e)
        box = {TYPE_KEYS[t]: s.box[t] - (hid_box[t] if t < 3 else 0) for t in range(N_TYPES)}
        out = {
            "game": "khan", "players": s.n, "seed": self.seed, "turn": s.turn,
            "phase": self.phase, "to_move": self.current(),
            "khans": [KHAN_KEYS[s.khan[p]] for p in range(s.n)],
            "impala_token": "coloured" if s.impala_token else "brown",
            "pending_blessing": bool(s.pending_bless),
            "revealed": [DECK_KEYS[dk] for dk in range(N_DECKS) if (s.revealed >> dk) & 1],
            "decks": decks, "box": box, "box_face_down": sum(hid_box),
            "sable_face_down": slots, "player_state": players,
        }
        if not full:
            del out["seed"]                        # the deal seed would give away every card
            out["view"] = view
        return out

    def render(self, viewer=None) -> str:
        """The position as text (everything, or as `viewer` sees it)."""
        d = self.to_json(viewer)
        lines = [f"Khan of Khans, {d['players']} players, turn {d['turn']}, phase {d['phase']}, "
                 f"to move: {d['to_move']}" + ("" if viewer is None else f" (seen by P{viewer})")]
        decks = []
        for e in d["decks"]:
            top = f" top {e['top']}" if e["top"] else ""
            decks.append(f"{e['name']} {e['count']}{top}")
        lines.append("decks: " + ", ".join(decks))
        lines.append("box: " + ", ".join(f"{k} {v}" for k, v in d["box"].items() if v)
                     + (f", {d['box_face_down']} face down" if d["box_face_down"] else ""))
        for p, ps in enumerate(d["player_state"]):
            herd = " ".join(f"{v}x{k}" for k, v in ps["herd"].items() if v) or "-"
            if ps.get("herd_face_down"):
                herd += f" +{ps['herd_face_down']} face down"
            corral = " ".join(f"{v}x{k}" for k, v in ps["corral"].items() if v) or "-"
            if ps.get("corral_face_down"):
                corral += f" +{ps['corral_face_down']} face down"
            token = ""
            if ps["khan"] == "impala":
                token = f"  token {d['impala_token']}"
            score = ps.get("score", "?")
            lines.append(f"  P{p} {KHAN_TITLES[KHAN_KEYS.index(ps['khan'])]:<16} score {score!s:>4}"
                         f"  herd {herd}{'  +champion' if ps['champion'] else ''}"
                         f"  corrals {ps['corrals_used']} used/{ps['corrals_open']} open: {corral}"
                         f"  blessings {ps['kept_blessings']} kept, {ps['received_blessings']} received"
                         f"{token}")
        return "\n".join(lines)

    @classmethod
    def from_json(cls, d):
        """Rebuild a full state written by to_json(); ValueError if it is malformed or impossible."""
        return khan_from_json(cls, d)

    @classmethod
    def from_view(cls, v):
        """A full state consistent with one seat's view (to_json(view=seat)), for searching as
        that seat: deck orders and (for a seat other than the Sable Nation) the values of
        Sable's face-down cards are filled in a fixed way that respects what the seat knows
        (the search redraws them anyway). ValueError if the view is malformed or impossible.
        See docs/views/khan.md."""
        return khan_from_view(cls, v)

    cdef void adopt_view(self, int o, uint64_t public, uint64_t private) except *:
        """Information hashes of seat o as given by a view (no history). Everything the seat
        knows is in the state itself: per-deck contents, known tops, the bounds of Sable's
        face-down cards and (for the Sable Nation) their values."""
        cdef KState* s = &self.s
        cdef int a, c
        ih_reset(&s.ih, <uint64_t>s.n)
        s.ih.public = public
        for a in range(s.n):
            for c in range(s.n):
                s.ih.pair[a][c] = mix64(public + <uint64_t>(a * 7 + c * 13 + 1))
        s.ih.pair[o][o] = private
        rng_seed(&s.chance, public)              # future random thefts: from the view alone

    cdef void load(self, dict d) except *:
        cdef KState* s = &self.s
        cdef int ks[5]
        n = d["players"]
        khans = d["khans"]
        for p in range(n):
            ks[p] = KHAN_KEYS.index(khans[p])
        self.setup(n, self.seed, ks)
        s.turn = d["turn"]
        s.phase = ("main", "blessing", "reveal", "pick", "over").index(d["phase"])
        s.actor = d["to_move"] if s.phase != PH_OVER else -1
        if s.phase != PH_OVER and not 0 <= s.actor < n:
            raise ValueError("to_move out of range")
        s.impala_token = 1 if d["impala_token"] == "coloured" else 0
        if d["impala_token"] not in ("coloured", "brown"):
            raise ValueError("impala_token is brown or coloured")
        s.pending_bless = 1 if d["pending_blessing"] else 0
        s.revealed = 0
        for k in d["revealed"]:
            s.revealed |= 1u << DECK_KEYS.index(k)
        s.nonempty = 0
        s.top_known = 0
        s.cards_left = 0
        if len(d["decks"]) != N_DECKS:
            raise ValueError("ten decks")
        for dk, e in enumerate(d["decks"]):
            if e["name"] != DECK_KEYS[dk]:
                raise ValueError(f"deck {dk} is {DECK_KEYS[dk]}")
            cards = e["cards"]
            if len(cards) > DECK_SIZE:
                raise ValueError("a deck holds at most 8 cards")
            s.ndeck[dk] = len(cards)
            for i, c in enumerate(cards):
                s.deck[dk][i] = TYPE_KEYS.index(c)
            if cards:
                s.nonempty |= 1u << dk
            s.cards_left += len(cards)
            if e.get("top") is not None:
                if not cards or e["top"] != cards[len(cards) - 1]:
                    raise ValueError(f"the known top of {e['name']} is not its top card")
                s.top_known |= 1u << dk
        for t in range(N_TYPES):
            s.box[t] = d["box"][TYPE_KEYS[t]]
        for p, ps in enumerate(d["player_state"]):
            for t in range(3):
                s.herd[p][t] = ps["herd"][str(PY_RAID_VALUE[t])]
                s.corral[p][t] = ps["corral"][str(PY_RAID_VALUE[t])]
            s.champion[p] = 1 if ps["champion"] else 0
            s.corrals_open[p] = ps["corrals_open"]
            s.corrals_used[p] = ps["corrals_used"]
            s.sneaked[p] = ps["sneaked"]
            s.kept[p] = ps["kept_blessings"]
            s.recv[p] = ps["received_blessings"]
        slots = d["sable_face_down"]
        if slots and s.sable < 0:
            raise ValueError("face-down cards without the Sable Nation")
        if len(slots) > MAX_SLOTS:
            raise ValueError("too many face-down cards")
        s.n_slots = len(slots)
        for i, e in enumerate(slots):
            s.slot[i].deck = DECK_KEYS.index(e["deck"])
            s.slot[i].tier = PY_RAID_VALUE.index(e["value"])
            s.slot[i].cap = PY_RAID_VALUE.index(e.get("max", 100))
            s.slot[i].loc = LOC_KEYS.index(e["at"])
            if s.slot[i].tier > s.slot[i].cap:
                raise ValueError("a face-down card above its known bound")
        if s.sable >= 0:
            self.add_slots(1)
        for p in range(n):
            if min(s.herd[p][0], s.herd[p][1], s.herd[p][2]) < 0:
                raise ValueError("negative herd")
            s.n_herd[p] = s.herd[p][0] + s.herd[p][1] + s.herd[p][2]
            s.herd_val[p] = sum(s.herd[p][t] * RAID_VALUE[t] for t in range(3))
            s.corral_val[p] = sum(s.corral[p][t] * RAID_VALUE[t] for t in range(3))

    def check_invariants(self) -> None:
        """Raise AssertionError if any card is lost, duplicated or negative, or a count is off."""
        cdef KState* s = &self.s
        n = s.n
        total = [0] * N_TYPES
        hid_herd = [0, 0, 0]
        hid_corral = [0, 0, 0]
        hid_box = [0, 0, 0]
        per_deck = [[0] * N_TYPES for _ in range(N_DECKS)]
        cards_left = 0
        for dk in range(N_DECKS):
            assert 0 <= s.ndeck[dk] <= DECK_SIZE, "deck size"
            cards_left += s.ndeck[dk]
            assert bool((s.nonempty >> dk) & 1) == (s.ndeck[dk] > 0), "non-empty mask"
            if (s.top_known >> dk) & 1:
                assert s.ndeck[dk] > 0, "known top of an empty deck"
            for i in range(s.ndeck[dk]):
                t = s.deck[dk][i]
                assert 0 <= t < N_TYPES, "card type"
                per_deck[dk][t] += 1
                total[t] += 1
        assert cards_left == s.cards_left, "cards left"
        assert s.n_slots == 0 or s.sable >= 0, "face-down cards without Sable"
        for i in range(s.n_slots):
            sl = s.slot[i]
            assert 0 <= sl.deck < N_DECKS and 0 <= sl.tier <= 2 and sl.tier <= sl.cap <= 2, "slot"
            assert 0 <= sl.loc <= 2, "slot place"
            per_deck[sl.deck][sl.tier] += 1
            (hid_herd, hid_corral, hid_box)[sl.loc][sl.tier] += 1
        for dk in range(N_DECKS):
            for t in range(N_TYPES):
                assert per_deck[dk][t] <= PY_DECK_COUNT[t], "more cards of a kind than the deck has"
        for t in range(N_TYPES):
            assert s.box[t] >= 0, "negative box"
            total[t] += s.box[t]
        for p in range(n):
            for t in range(3):
                assert s.herd[p][t] >= 0 and s.corral[p][t] >= 0, "negative herd or corral"
                total[t] += s.herd[p][t] + s.corral[p][t]
            assert s.n_herd[p] == s.herd[p][0] + s.herd[p][1] + s.herd[p][2], "herd count"
            assert s.herd_val[p] == sum(s.herd[p][t] * RAID_VALUE[t] for t in range(3)), "herd value"
            assert s.corral_val[p] == sum(s.corral[p][t] * RAID_VALUE[t] for t in range(3)), \
                "corral value"
            assert s.champion[p] in (0, 1), "at most one champion"
            total[T_CHAMP] += s.champion[p]
            assert s.kept[p] >= 0 and s.recv[p] >= 0, "negative blessings"
            total[T_BLESS] += s.kept[p] + s.recv[p]
            assert s.corrals_open[p] >= 0 and s.corrals_used[p] >= 0, "negative corrals"
            tiles = PY_CORRALS[n] + (MOROKANTH_EXTRA if s.khan[p] == K_MOROKANTH else 0)
            assert s.corrals_open[p] + s.corrals_used[p] == tiles, "corral tiles"
            assert 0 <= s.sneaked[p] <= s.corrals_used[p], "sneaked cards"
            assert s.sneaked[p] == 0 or p == s.llama, "only the High Llama Tribe sneaks"
            nc = sum(s.corral[p][t] for t in range(3))
            assert nc >= s.corrals_used[p] + s.sneaked[p], "every used corral holds a card"
            assert (nc == 0) == (s.corrals_used[p] == 0), "a used corral holds cards"
            if p == s.sable:
                for t in range(3):
                    assert hid_herd[t] <= s.herd[p][t] and hid_corral[t] <= s.corral[p][t], \
                        "face-down cards"
        for t in range(3):
            assert hid_box[t] <= s.box[t], "face-down cards in the box"
        total[T_BLESS] += s.pending_bless
        for t in range(N_TYPES):
            assert total[t] == PY_DECK_COUNT[t] * N_DECKS, f"{TYPE_KEYS[t]} cards lost or doubled"
        assert sum(total) == N_DECKS * DECK_SIZE
        assert len(set(s.khan[p] for p in range(n))) == n, "a Khan twice"
        assert s.impala_token == 0 or s.impala >= 0, "Impala token without the Impala People"
        assert s.pending_bless == (1 if s.phase == PH_BLESS else 0), "pending blessing"
        if s.phase in (PH_REVEAL, PH_PICK):
            assert s.actor == s.impala and (s.revealed & ~s.top_known) == 0, "reveal"
            assert popcount(s.revealed) <= IMPALA_REVEAL, "at most three reveals"
            assert s.phase == PH_REVEAL or s.revealed, "a card to pick"
        else:
            assert s.revealed == 0, "reveals outside the ability"
        if s.phase == PH_OVER:
            assert s.cards_left == 0 and s.actor == -1, "the game ends when every deck is empty"
        elif s.phase != PH_BLESS:
            assert s.cards_left > 0, "the game ends when every deck is empty"


# ---------------------------------------------------------------- notation helpers
def steal_text(int code) -> str:
    q, t = code >> 2, code & 3
    return f"P{q}-" + ("random" if t == TIER_RANDOM else str(PY_RAID_VALUE[t]))

def khan_from_json(cls, d):
    try:
        if not isinstance(d, dict):
            raise ValueError("a Khan of Khans state is a JSON object")
        if d.get("game") != "khan":
            raise ValueError("not a Khan of Khans state")
        khans = d["khans"]
        st = cls(d["players"], d.get("seed", 0), khans=khans)
        if len(d["player_state"]) != d["players"]:
            raise ValueError("one player_state per seat")
        (<KhanOfKhans>st).load(d)
        st.check_invariants()
    except (KeyError, TypeError, IndexError, AssertionError, AttributeError, OverflowError) as e:
        raise ValueError(f"impossible or malformed Khan of Khans state: {e!r}") from None
    return st


# ---------------------------------------------------------------- the view form (from_view)
# The fields to_json(view=seat) writes, in order (docs/views/khan.md).
VIEW_KEYS = ("game", "players", "turn", "phase", "to_move", "khans", "impala_token",
             "pending_blessing", "revealed", "decks", "box", "box_face_down",
             "sable_face_down", "player_state", "view")
VALUE_TYPE = {20: "raid20", 50: "raid50", 100: "raid100"}


def _view_hashes(v, int seat):
    """(public, private) hashes of a (checked) view of `seat`. Public: what every seat sees
    alike (the view without its seat, the values of Sable's face-down cards and Sable's score;
    a deck's unseen cards as the others count them, face-down Sable cards included); it is the
    same for every seat of one position. Private: the seat and, for the Sable Nation, the
    values of its face-down cards."""
    khans = v["khans"]
    sable = khans.index("sable") if "sable" in khans else -1
    knows = seat == sable or v["phase"] == "over"
    slots = v["sable_face_down"]
    pub = {k: v[k] for k in VIEW_KEYS
           if k not in ("view", "decks", "sable_face_down", "player_state")}
    decks = []
    for e in v["decks"]:
        unseen = {t: c for t, c in e["unseen"].items() if c}
        if knows:
            for sl in slots:
                if sl["deck"] == e["name"]:
                    t = VALUE_TYPE[sl["value"]]
                    unseen[t] = unseen.get(t, 0) + 1
        decks.append({"name": e["name"], "count": e["count"], "top": e["top"], "unseen": unseen})
    pub["decks"] = decks
    pub["sable_face_down"] = [{k: sl[k] for k in ("deck", "at", "max")} for sl in slots]
    pub["player_state"] = [{k: x for k, x in ps.items() if not (p == sable and k == "score")}
                           for p, ps in enumerate(v["player_state"])]
    private = ["khan", seat, [sl["value"] for sl in slots] if seat == sable else None]
    return _stable_hash(pub), _stable_hash(private)


def _vint(x, lo, hi, what):
    if not isinstance(x, int) or isinstance(x, bool) or not lo <= x <= hi:
        raise ValueError(f"{what} must be an integer from {lo} to {hi}, not {x!r}")
    return x


def _first_difference(a, b, path):
    """Where the given JSON value a first differs from the rebuilt b (None if nowhere)."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in b:
            if k not in a:
                return f"{path}.{k} is missing"
        for k in a:
            if k not in b:
                return f"{path}.{k} is not a field here"
            r = _first_difference(a[k], b[k], f"{path}.{k}")
            if r:
                return r
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{path} has {len(a)} entries, the position gives {len(b)}"
        for i in range(len(a)):
            r = _first_difference(a[i], b[i], f"{path}[{i}]")
            if r:
                return r
        return None
    if type(a) in (int, bool) and type(b) in (int, bool) and a == b:
        return None
    if type(a) is type(b) and a == b:
        return None
    return f"{path} is {a!r}, the position gives {b!r}"


def _fill_view(v):
    """Check a view's shape and build the full-state dict from_json reads: each deck's unseen
    cards sorted by type (bottom first) under its known top; for a seat other than the Sable
    Nation, each face-down card takes the lowest Raid! card left among its deck's unseen
    cards, tightest known bound first. Returns (seat, full-state dict)."""
    if not isinstance(v, dict):
        raise ValueError("a Khan of Khans view is a JSON object")
    if v.get("game") != "khan":
        raise ValueError('not a Khan of Khans view ("game" must be "khan")')
    for k in VIEW_KEYS:
        if k not in v:
            raise ValueError(f"the view has no field {k!r}")
    n = _vint(v["players"], 2, 5, "players")
    o = _vint(v["view"], 0, n - 1, "view (the seat)")
    _vint(v["turn"], 0, 100000, "turn")
    khans = v["khans"]
    if not isinstance(khans, list) or len(khans) != n \
            or not all(isinstance(k, str) and k in KHAN_KEYS for k in khans) \
            or len(set(khans)) != n:
        raise ValueError(f"khans must list {n} different Khans among {', '.join(KHAN_KEYS)}")
    sable = khans.index("sable") if "sable" in khans else -1
    phases = ("main", "blessing", "reveal", "pick", "over")
    if not isinstance(v["phase"], str) or v["phase"] not in phases:
        raise ValueError(f"phase must be one of {', '.join(phases)}, not {v['phase']!r}")
    _vint(v["to_move"], -1, n - 1, "to_move")
    if v["impala_token"] not in ("coloured", "brown"):
        raise ValueError('impala_token must be "coloured" or "brown"')
    if not isinstance(v["pending_blessing"], bool):
        raise ValueError("pending_blessing must be true or false")
    if not isinstance(v["revealed"], list) or not all(
            isinstance(k, str) and k in DECK_KEYS for k in v["revealed"]):
        raise ValueError("revealed must list deck names")
    box = v["box"]
    if not isinstance(box, dict) or set(box) != set(TYPE_KEYS):
        raise ValueError(f"box must give a count for each card type ({', '.join(TYPE_KEYS)})")
    for t in TYPE_KEYS:
        _vint(box[t], 0, N_DECKS * PY_DECK_COUNT[TYPE_KEYS.index(t)], f"box {t}")
    _vint(v["box_face_down"], 0, MAX_SLOTS, "box_face_down")
    if not isinstance(v["player_state"], list) or len(v["player_state"]) != n \
            or not all(isinstance(ps, dict) for ps in v["player_state"]):
        raise ValueError(f"player_state must hold one object per seat ({n})")
    for p, ps in enumerate(v["player_state"]):
        for k in ("herd", "corral"):
            if not isinstance(ps.get(k), dict) or set(ps[k]) != {"100", "50", "20"}:
                raise ValueError(f"player_state[{p}].{k} must count the Raid! cards by value "
                                 '("100", "50", "20")')
            for x in ("100", "50", "20"):
                _vint(ps[k][x], 0, 40, f"player_state[{p}].{k}[{x!r}]")
        for k in ("corrals_open", "corrals_used", "sneaked", "kept_blessings",
                  "received_blessings"):
            _vint(ps.get(k), 0, 10, f"player_state[{p}].{k}")
        if not isinstance(ps.get("champion"), bool):
            raise ValueError(f"player_state[{p}].champion must be true or false")
    slots = v["sable_face_down"]
    if not isinstance(slots, list) or len(slots) > MAX_SLOTS:
        raise ValueError(f"sable_face_down must be a list of at most {MAX_SLOTS} cards")
    if slots and sable < 0:
        raise ValueError("face-down cards without the Sable Nation")
    # the Sable Nation knows its face-down cards; at the end everyone sees them
    knows = o == sable or v["phase"] == "over"
    values, caps = [], []
    for i, sl in enumerate(slots):
        if not isinstance(sl, dict) or not isinstance(sl.get("deck"), str) \
                or sl.get("deck") not in DECK_KEYS or sl.get("at") not in LOC_KEYS \
                or sl.get("max") not in PY_RAID_VALUE or isinstance(sl.get("max"), bool):
            raise ValueError(f"sable_face_down[{i}] needs a deck name, at (herd, corral, box) "
                             "and max (20, 50 or 100)")
        caps.append(PY_RAID_VALUE.index(sl["max"]))
        if knows:
            if sl.get("value") not in PY_RAID_VALUE or isinstance(sl.get("value"), bool):
                raise ValueError(f"sable_face_down[{i}]: the Sable Nation's view, and every view "
                                 "at the end, gives the value (20, 50 or 100) of each face-down card")
            values.append(sl["value"])
        else:
            if "value" in sl:
                raise ValueError(f"sable_face_down[{i}] holds a value seat {o} cannot see")
            values.append(None)
    decks = v["decks"]
    if not isinstance(decks, list) or len(decks) != N_DECKS:
        raise ValueError(f"decks must list the {N_DECKS} decks")
    full_decks = []
    for dk, e in enumerate(decks):
        name = DECK_KEYS[dk]
        if not isinstance(e, dict) or e.get("name") != name:
            raise ValueError(f"decks[{dk}] must be the deck {name!r}")
        count = _vint(e.get("count"), 0, DECK_SIZE, f"the card count of {name}")
        top = e.get("top")
        if top is not None and top not in TYPE_KEYS:
            raise ValueError(f"the top of {name} must be null or a card type")
        if top is not None and count == 0:
            raise ValueError(f"impossible view: {name} is empty but has a known top")
        unseen = e.get("unseen")
        if not isinstance(unseen, dict) or not all(t in TYPE_KEYS for t in unseen):
            raise ValueError(f"the unseen cards of {name} must map card types to counts")
        pool = []
        for t in range(N_TYPES):
            k = _vint(unseen.get(TYPE_KEYS[t], 0), 0, DECK_SIZE, f"unseen {TYPE_KEYS[t]} of {name}")
            pool += [t] * k
        if not knows:
            mine = [i for i, sl in enumerate(slots) if sl["deck"] == name]
            for i in sorted(mine, key=lambda i: (caps[i], i)):
                if not pool or pool[0] > caps[i]:
                    raise ValueError(f"impossible view: no unseen Raid! card of {name} fits the "
                                     f"face-down card sable_face_down[{i}]")
                values[i] = PY_RAID_VALUE[pool.pop(0)]
        below = count - (0 if top is None else 1)
        if below != len(pool):
            raise ValueError(f"impossible view: {name} holds {count} cards"
                             f"{' (top known)' if top is not None else ''} but "
                             f"{len(pool)} unseen ones are left for it")
        full_decks.append({"name": name, "count": count, "top": top,
                           "cards": [TYPE_KEYS[t] for t in pool] + ([] if top is None else [top])})
    import copy
    d = {k: copy.deepcopy(v[k]) for k in VIEW_KEYS if k != "view"}
    d["seed"] = 0
    d["decks"] = full_decks
    d["sable_face_down"] = [{"deck": sl["deck"], "at": sl["at"], "max": sl["max"],
                             "value": values[i]} for i, sl in enumerate(slots)]
    return o, d


def khan_from_view(cls, v):
    try:
        o, d = _fill_view(v)
        try:
            st = khan_from_json(cls, d)
        except ValueError as e:
            why = str(e).replace("impossible or malformed Khan of Khans state: ", "")
            raise ValueError(f"impossible Khan of Khans view: {why}") from None
        given = {k: v[k] for k in VIEW_KEYS}
        given["decks"] = [dict(e, unseen={t: c for t, c in e["unseen"].items() if c})
                          for e in v["decks"]]
        diff = _first_difference(given, st.to_json(view=o), "view")
        if diff:
            raise ValueError(f"the view does not fit together: {diff}")
        public, private = _view_hashes(v, o)
        (<KhanOfKhans>st).adopt_view(o, public, private)
    except (KeyError, TypeError, IndexError, AttributeError, OverflowError) as e:
        raise ValueError(f"malformed Khan of Khans view: {e!r}") from None
    return st
