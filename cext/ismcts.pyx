# cython: language_level=3
"""Information-set MCTS over any GameCore: the hot loop, in C arrays only.

One iteration: determinize the root for the searching player, descend through decision nodes
keyed by (acting player, what that player has observed: see infohash.pxd), expand one node,
play out (the game's playout policy), and back up the reward vector: each player maximises
its own reward (max^n). The reward is the win share, or with a score weight w,
(1 - w) x win share + w x the player's score margin squashed to (0, 1) on the scale of the
margins this tree has seen: KataGo's idea of a score utility, a steadier signal where one
move barely moves the win rate. UCB counts availability: a move's exploration term uses the
number of visits of its node in which it was legal, not the node's visits.

Memory: nodes in a flat array found through an open-addressing table; each node's edges are a
sorted block in one edge pool (16 bytes per move statistic; a block of 32 edges or more also
holds an index from move to edge, at least 8 bytes per edge). Block lengths come in size
classes four per doubling (1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16, 20, ...), so a block is at
most a quarter empty; a block that outgrows its class moves to the next class and leaves its
old place on that class's free list for the next node that grows into it. At the node cap the
tree stops growing and the search keeps iterating.
"""
cimport cython
from libc.stdint cimport uint64_t, uint32_t, uint16_t, int32_t, int64_t
from libc.stdlib cimport malloc, calloc, realloc, free
from libc.string cimport memcpy, memset
from libc.limits cimport INT_MAX
from libc.math cimport log, sqrt, fabs, tanh, INFINITY
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC
from cext.core cimport (GameCore, StateHead, MAX_MOVES, MAX_PLAYERS, MAX_PLAYOUT_MOVES,
                        TRACK_OFF, TRACK_KEYS, TRACK_ALL, seed_from_python)
from cext.rng cimport Rng, rng_seed, rng_below, mix64
from cext.infohash cimport KEY_SO, KEY_MO, KEY_FULL
from cext.core import check_int

cdef enum:
    MAX_DEPTH = 1024
    # The node table starts this small and doubles as the tree grows, staying at most half
    # full: a small table stays in the cache (a table sized for max_nodes from the start,
    # 8 MB for a million nodes, made each lookup a cache miss: 6% of a search's time).
    TABLE_START = 1 << 12

cdef struct Edge:                 # one move statistic: 16 bytes
    int32_t move
    uint32_t visits
    uint32_t avail
    float reward_sum

cdef struct Node:                 # 24 bytes
    uint64_t key
    uint32_t first                # start of the node's edge block in the pool
    uint32_t visits
    uint16_t n_edges              # also the block's length (at most MAX_MOVES)
    uint16_t stamp                # the search (generation mod 2**16) that last passed here
    uint32_t npub                 # public events before this decision (see reroot)


# ---------------------------------------------------------------- edge block size classes
cdef enum:
    N_CLASSES = 64
    # A block of at least this many edges carries an index after its edges: a hash table
    # from move to edge (see index_find). In so mode an opponent's node gathers the moves of
    # every hand it may hold (Khiva, 3 players: 20 legal moves among 380 edges); a merge
    # there cost more than the rest of the selection, and its branches were mispredicted.
    INDEXED_FROM = 32
    INDEX_SPREAD = 4              # index slots per edge, at least: at most a quarter taken
    MAX_KICKS = 500               # cuckoo displacements before an index is given up
    NO_EDGE = 0xFFFF              # an empty index slot while it is built

cdef int CLASS_SIZE[N_CLASSES]    # edges a block of the class holds
cdef int CLASS_OF[MAX_MOVES + 1]
cdef int INDEX_BITS[N_CLASSES]    # log2 of the slots of the class's index, or 0: none
cdef int BLOCK_LEN[N_CLASSES]     # pool slots a block takes: its edges, then its index

cdef void _init_classes():
    cdef int k = 0, size = 1, n, step, bits
    while k < N_CLASSES:
        CLASS_SIZE[k] = size
        bits = 0
        if INDEXED_FROM <= size <= MAX_MOVES:
            while (1 << bits) < INDEX_SPREAD * size:
                bits += 1
        INDEX_BITS[k] = bits
        # an index is one Edge slot of header, then its uint16 slots, eight to an Edge
        BLOCK_LEN[k] = size + (1 + (1 << bits) * sizeof(uint16_t) // sizeof(Edge) if bits else 0)
        k += 1
        step = 1 if size < 8 else size // 4
        size += step
    k = 0
    for n in range(MAX_MOVES + 1):
        while CLASS_SIZE[k] < n:
            k += 1
        CLASS_OF[n] = k

_init_classes()


# ---------------------------------------------------------------- the index of a large block
# Cuckoo hashing: each move has two slots, and an indexed move is in one of them, so a
# lookup reads both and selects the answer without a branch. A slot holds its edge's index
# plus one, 0 when empty: an empty slot points at the pool slot before the block (never
# the pool's first slot, which stays unused), and a match there means -1, not found. The
# header says whether the index holds every edge (each placed within MAX_KICKS
# displacements: with a quarter of the slots taken, always seen); a block whose index does
# not is merged instead.

cdef inline bint index_ready(Edge* E, int cls) noexcept nogil:
    """Whether the block of class cls at E has a usable index."""
    return INDEX_BITS[cls] != 0 and (<uint16_t*>(E + CLASS_SIZE[cls]))[0] != 0


cdef inline uint16_t* block_index(Edge* E, int cls) noexcept nogil:
    """The slots of the index of the block of class cls at E."""
    return <uint16_t*>(E + CLASS_SIZE[cls] + 1)


cdef inline uint32_t index_slot(int move, int bits, int which) noexcept nogil:
    """Move's slot `which` (0 or 1): two fields of one multiplicative hash, its top bits
    and bits from 16 up."""
    cdef uint64_t p = <uint64_t><uint32_t>move * <uint64_t>0x9E3779B97F4A7C15
    if which == 0:
        return <uint32_t>(p >> (64 - bits))
    return <uint32_t>(p >> 16) & ((1u << bits) - 1)


cdef bint index_place(Edge* E, uint16_t* idx, int bits, int k) noexcept nogil:
    """Put edge k in the index, displacing others to their other slots; False if
    MAX_KICKS displacements do not end (an edge is then left out)."""
    cdef uint32_t h = index_slot(E[k].move, bits, 0), h0
    cdef int kick
    cdef uint16_t cur = <uint16_t>(k + 1), t
    if idx[h] != 0 and idx[index_slot(E[k].move, bits, 1)] == 0:
        h = index_slot(E[k].move, bits, 1)
    for kick in range(MAX_KICKS):
        t = idx[h]
        idx[h] = cur
        if t == 0:
            return True
        cur = t                               # the displaced edge: to its other slot
        h0 = index_slot(E[cur - 1].move, bits, 0)
        h = index_slot(E[cur - 1].move, bits, 1) if h0 == h else h0
    return False


cdef void index_build(Edge* E, int ne, int cls) noexcept nogil:
    """Index the ne edges of a block of class cls."""
    cdef int bits = INDEX_BITS[cls], k
    cdef uint16_t* ready = <uint16_t*>(E + CLASS_SIZE[cls])
    cdef uint16_t* idx = block_index(E, cls)
    memset(idx, 0, (<size_t>1 << bits) * sizeof(uint16_t))
    ready[0] = 1
    for k in range(ne):
        if not index_place(E, idx, bits, k):
            ready[0] = 0
            return


cdef void index_insert(Edge* E, int cls, int j) noexcept nogil:
    """Edge j was inserted into the indexed block of class cls at E (the edges from j on
    moved up one): renumber them and place j."""
    cdef int bits = INDEX_BITS[cls], h
    cdef uint16_t* idx = block_index(E, cls)
    cdef uint16_t from_j = <uint16_t>j, one = 1
    # index + 1 > j: an edge from j on. Kept to 16-bit values, so that the compiler's vector
    # loop takes eight slots at a time.
    for h in range(1 << bits):
        idx[h] += one if idx[h] > from_j else 0
    if not index_place(E, idx, bits, j):
        (<uint16_t*>(E + CLASS_SIZE[cls]))[0] = 0


cdef inline int index_find(Edge* E, uint16_t* idx, int bits, int m) noexcept nogil:
    """The index of move m's edge in an indexed block, or -1: both slots read, the answer
    selected (the larger, so that an empty slot never hides the other's match). A slot
    holds an edge's index plus one, so it indexes the block from the pool slot before it
    (E - 1) as it is: an empty slot reads that slot and yields 0 (-1 once the one is taken
    off) whether or not its move happens to be m."""
    cdef uint64_t p = <uint64_t><uint32_t>m * <uint64_t>0x9E3779B97F4A7C15
    cdef Edge* B = E - 1
    cdef uint32_t s0 = idx[<uint32_t>(p >> (64 - bits))]
    cdef uint32_t s1 = idx[<uint32_t>(p >> 16) & ((1u << bits) - 1)]
    s0 = s0 if B[s0].move == m else 0
    s1 = s1 if B[s1].move == m else 0
    return <int>(s0 if s0 > s1 else s1) - 1


# ---------------------------------------------------------------- log of small counts
# UCB takes log(availability) of every candidate move of every node on the path. The counts
# are small integers, so their logs come from a table filled with the same libm log: the same
# doubles, without a libm call per move (a third of the selection's instructions).
cdef enum:
    LOG_TABLE_SIZE = 1 << 16

cdef double LOG_TABLE[LOG_TABLE_SIZE]

cdef void _init_logs():
    cdef int i
    LOG_TABLE[0] = log(0.0)
    for i in range(1, LOG_TABLE_SIZE):
        LOG_TABLE[i] = log(<double>i)

_init_logs()


cdef extern from *:
    """
    /* sqrt of a double known to be >= 0: the same correctly rounded result as libm's, without
       the test and call that set errno for a negative argument (-fmath-errno). */
    #if defined(__SSE2__)
    #include <emmintrin.h>
    static inline double caravan_sqrt_nonneg(double x) {
        __m128d v = _mm_set_sd(x);
        return _mm_cvtsd_f64(_mm_sqrt_sd(v, v));
    }
    #else
    #include <math.h>
    static inline double caravan_sqrt_nonneg(double x) { return sqrt(x); }
    #endif
    """
    double sqrt_nonneg "caravan_sqrt_nonneg"(double x) noexcept nogil


cdef inline double log_count(uint32_t a) noexcept nogil:
    """log(a), exactly as libm's log computes it."""
    if a < LOG_TABLE_SIZE:
        return LOG_TABLE[a]
    return log(<double>a)


cdef double now_seconds() noexcept nogil:
    cdef timespec t
    clock_gettime(CLOCK_MONOTONIC, &t)
    return t.tv_sec + t.tv_nsec * 1e-9


cdef void outcome_margins(int n, double* scores, double* reward, double* margin) noexcept:
    """Each player's score minus the best other score, in a finished game of n players with
    final `scores` and win shares `reward`. The margin never contradicts the outcome: a
    player who won nothing has none above 0 (a Taschkent player out of the game may hold the
    most points), a sole winner none below 0."""
    cdef double other
    cdef int p, q
    for p in range(n):
        other = -1e300
        for q in range(n):
            if q != p and scores[q] > other:
                other = scores[q]
        margin[p] = scores[p] - other
        if reward[p] == 0.0 and margin[p] > 0.0:
            margin[p] = 0.0
        elif reward[p] == 1.0 and margin[p] < 0.0:
            margin[p] = 0.0


def score_margins(GameCore final not None) -> list:
    """The margins the search mixes into the reward, for a finished game."""
    if final.current() >= 0:
        raise ValueError("the game is not over")
    cdef double reward[MAX_PLAYERS]
    cdef double scores[MAX_PLAYERS]
    cdef double margin[MAX_PLAYERS]
    final.get_outcome(reward, scores)
    outcome_margins(final.n_players, scores, reward, margin)
    return [margin[p] for p in range(final.n_players)]


cdef enum:
    # In a block too small for an index the legal moves of one world may still lie a few
    # edges apart: gaps up to this long are searched without a branch.
    GALLOP_WINDOW = 16


cdef inline int gallop(Edge* E, int lo, int ne, int m) noexcept nogil:
    """The first index at or after lo whose move is >= m, given E[lo].move < m (ascending
    moves). Within GALLOP_WINDOW edges, a binary search of four fixed halvings made by
    selection, not by branches: the length of a gap is what the processor cannot predict
    (this took 29% of the selection's mispredicted branches away). Beyond: exponential
    steps, then a binary search, so a long run of edges that no legal move matches costs
    its logarithm."""
    cdef int step = 1, hi = lo + 1, mid
    if lo + GALLOP_WINDOW < ne and E[lo + GALLOP_WINDOW].move >= m:
        lo = lo + 8 if E[lo + 8].move < m else lo
        lo = lo + 4 if E[lo + 4].move < m else lo
        lo = lo + 2 if E[lo + 2].move < m else lo
        lo = lo + 1 if E[lo + 1].move < m else lo
        return lo + 1
    while hi < ne and E[hi].move < m:
        lo = hi
        step <<= 1
        hi = lo + step
    if hi > ne:
        hi = ne
    while hi - lo > 1:                        # E[lo].move < m; hi == ne or E[hi].move >= m
        mid = (lo + hi) >> 1
        if E[mid].move < m:
            lo = mid
        else:
            hi = mid
    return hi


cdef inline int merge_find(Edge* E, int ne, int* j, int m) noexcept nogil:
    """The index of legal move m's edge in a block of ne ascending edges without an index,
    or -1, by a merge: the legal moves come ascending and *j is where the last one's search
    ended (galloping over the edges no legal move matches)."""
    cdef int k = j[0]
    if k < ne and E[k].move < m:
        k = gallop(E, k, ne, m)
    if k < ne and E[k].move == m:
        j[0] = k + 1                          # the next legal move is larger
        return k
    j[0] = k
    return -1


cdef inline bint same_moves(Edge* E, int* moves, int n) noexcept nogil:
    """Whether the n edges at E are those of the n (ascending) moves, in order: a node
    whose every legal move has a statistic and no other does (the root: the searcher's
    moves are the same in every world), where no search for the edges is needed."""
    cdef int i
    for i in range(n):
        if E[i].move != moves[i]:
            return False
    return True


cdef struct Tally:                # select's pass over the legal moves, so far
    int untried                   # legal moves without a visited statistic
    int pick                      # the untried one drawn (reservoir sampling)
    int best_i                    # the tried one of highest UCB value (the first of equals)
    double best


cdef inline double ucb_value(Edge* e, double c) noexcept nogil:
    """A tried move's UCB value, its availability counted."""
    return e.reward_sum / e.visits + c * sqrt_nonneg(log_count(e.avail) / e.visits)


cdef inline void tally_move(Tally* t, Edge* E, int k, int i, double c, Rng* rng) noexcept nogil:
    """Count legal move i (edge index k, -1 for none yet) as available, then: untried (no
    statistic, or one never visited), draw it into the reservoir, one draw per untried move
    in move order; tried, weigh it by UCB, needed if every move turns out tried (computed
    in the same pass: most nodes on a path have no untried move)."""
    cdef double v
    if k >= 0:
        E[k].avail += 1
        if E[k].visits != 0:
            v = ucb_value(&E[k], c)
            if v > t.best:
                t.best = v
                t.best_i = i
            return
    t.untried += 1
    if rng_below(rng, t.untried) == 0:
        t.pick = i


cdef inline int bit_length(uint32_t v) noexcept nogil:
    """The number of bits of v (0 for 0)."""
    cdef int n = 0
    while v:
        n += 1
        v >>= 1
    return n


cdef int move_group_shift(GameCore g) except -1:
    """The game's move_group_shift (cext/core.pyx), checked again here: a Tree can be given
    any GameCore subclass, loaded by the registry or not."""
    shift = type(g).move_group_shift
    if isinstance(shift, bool) or not isinstance(shift, int) or not 0 <= shift <= 24:
        raise ValueError(f"{type(g).__name__}.move_group_shift must be an int from 0 to 24, "
                         f"not {shift!r}")
    return shift


cdef struct Run:                  # a group of legal moves: indices a to b - 1, ascending
    int a, b
    uint32_t visits               # its moves' visits, summed


cdef inline uint32_t public_count(GameCore g) noexcept:
    """How many public events the game has seen: never fewer later in the same game."""
    cdef StateHead* head = <StateHead*>g.raw_state()
    return head.ih.n_public if head != NULL else 0


cdef class Tree:
    """The search tree and loop for one searching player: one root position, or a sequence
    of them along one game (reroot), keeping the statistics that stay valid.

    Tree(root, player, seed, c=0.7, mode="so", max_nodes=200000, track_scores=True,
    resample=True, score_weight=0.0, policy_playouts=True, prior_weight=0.0,
    policy_prior=False, opponent_policy=False, group_moves=False): `player` must be to move
    at `root`; `c` the UCB constant; `mode`
    the keying (so, mo, full); `max_nodes` the node cap; `track_scores` keeps the root's
    score and win sums; `resample` determinizes every iteration; `score_weight` the share of
    the squashed score margin in the reward; `policy_playouts` plays out with the game's
    policy (else uniformly at random); `prior_weight` > 0 turns on progressive bias, from
    set_root_prior at the root and, with `policy_prior`, from the playout policy elsewhere;
    `opponent_policy` makes the other players move by the playout policy inside the tree as
    well (an opponent model: only the searcher's decisions become nodes); `group_moves`
    selects in two steps where the game declares move groups (select_grouped).
    search.ismcts.new_tree makes one from a SearchConfig.
    """
    cdef GameCore root
    cdef GameCore scratch
    cdef readonly int player
    cdef readonly int mode
    cdef readonly double c
    cdef Rng rng
    cdef Node* nodes
    cdef uint32_t* table
    cdef uint64_t table_mask
    cdef uint64_t table_most                 # the table's final size: 2 x max_nodes, a power of 2
    cdef readonly int n_nodes
    cdef readonly int max_nodes
    cdef Edge* edges
    cdef int64_t n_edges_used
    cdef int64_t edge_capacity
    cdef int64_t edge_limit
    cdef int64_t free_head[N_CLASSES]        # free blocks by size class, linked through the pool
    cdef readonly int64_t free_slots
    cdef readonly long long iterations
    cdef readonly long long tree_moves       # moves made inside the tree, summed over iterations
    cdef readonly long long playout_moves
    cdef readonly long long cut_playouts     # playouts stopped at MAX_PLAYOUT_MOVES (expect 0)
    cdef readonly bint full
    cdef readonly unsigned int generation    # searches since the tree was made (see reroot)
    cdef int buf[MAX_MOVES]
    cdef int path_node[MAX_DEPTH]
    cdef int path_move[MAX_DEPTH]
    cdef int path_player[MAX_DEPTH]
    cdef int path_edge[MAX_DEPTH]            # index of the path's move statistic in its block
    cdef int sel_edge, sel_index             # select's choice: edge index, index in the moves
    cdef int edge_at[MAX_MOVES]              # select: each legal move's edge index, or -1
    cdef uint64_t root_key                   # the searcher's node key at the root
    cdef int n_root_moves
    cdef int root_moves[MAX_MOVES]           # the searcher's legal moves at the root, ascending
    cdef bint restricted                     # root_moves are a subset (restrict_root)
    cdef double root_score_sum[MAX_MOVES]    # the searcher's final score summed per root move
    cdef double root_win_sum[MAX_MOVES]      # and its win share
    cdef long long root_count[MAX_MOVES]     # over this many iterations of this search
    cdef bint track_scores
    cdef readonly bint resample               # determinize the root each iteration (ISMCTS)
    cdef readonly double score_weight         # share of the reward that is the score margin
    cdef readonly bint policy_playouts        # playouts follow the game's policy, else random
    cdef readonly double prior_weight         # progressive bias: w x prior / (visits + 1)
    cdef readonly bint policy_prior           # the prior of every node: the playout policy
    cdef readonly bint opponent_policy        # the others play the playout policy in the tree too
    cdef readonly int group_shift             # moves equal above this bit: a group (0: none)
    cdef bint has_root_prior                  # the root's prior given (set_root_prior)
    cdef double root_prior[MAX_MOVES]         # by root move index
    cdef double move_prior[MAX_MOVES]         # select_biased: each legal move's prior
    cdef double margin_abs_sum                # |searcher's margin| summed: the margin's scale
    cdef public bint stop_requested          # set from another thread: run() returns soon

    def __cinit__(self):
        self.nodes = NULL
        self.table = NULL
        self.edges = NULL

    def __init__(self, GameCore root not None, player, seed, double c=0.7, str mode not None="so",
                 max_nodes=200000, bint track_scores=True, bint resample=True,
                 double score_weight=0.0, bint policy_playouts=True, double prior_weight=0.0,
                 bint policy_prior=False, bint opponent_policy=False, bint group_moves=False):
        # player and max_nodes as Python objects: checked here, not overflowed by Cython
        player = check_int(player, "player")
        max_nodes = check_int(max_nodes, "max_nodes")
        if root.current() < 0:
            raise ValueError("the game is over: nothing to search")
        if root.current() != player:
            raise ValueError(f"player {player} is not to move (player {root.current()} is)")
        if mode not in ("so", "mo", "full"):
            raise ValueError(f"unknown keying mode {mode!r}: use 'so' or 'mo'")
        if mode == "full" and resample:
            raise ValueError("full keys (the whole state) need resample=False: a search that "
                             "samples the hidden parts would redraw its key every iteration")
        if not 0.0 <= c < INFINITY:
            raise ValueError(f"exploration constant must be a finite number >= 0, not {c}")
        if max_nodes < 1 or max_nodes > 50_000_000:
            raise ValueError(f"max_nodes must be between 1 and 50,000,000, not {max_nodes}")
        self.scratch = root.new_empty()
        self.track_scores = track_scores
        self.player = player
        self.mode = {"so": KEY_SO, "mo": KEY_MO, "full": KEY_FULL}[mode]
        self.resample = resample
        self.set_root(root)
        if not 0.0 <= score_weight <= 1.0:
            raise ValueError(f"score_weight must be between 0 and 1, not {score_weight}")
        self.score_weight = score_weight
        self.policy_playouts = policy_playouts
        if not 0.0 <= prior_weight < INFINITY:
            raise ValueError(f"prior_weight must be a finite number >= 0, not {prior_weight}")
        self.prior_weight = prior_weight
        self.policy_prior = policy_prior
        self.opponent_policy = opponent_policy
        self.group_shift = move_group_shift(root) if group_moves else 0
        if self.group_shift and prior_weight > 0.0:
            raise ValueError("move groups and progressive bias cannot be combined")
        self.margin_abs_sum = 0.0
        self.c = c
        seed_from_python(&self.rng, seed)
        self.max_nodes = max_nodes
        cdef uint64_t tsize = 1
        while tsize < <uint64_t>(2 * max_nodes):
            tsize <<= 1
        self.table_most = tsize
        tsize = min(tsize, <uint64_t>TABLE_START)
        self.table_mask = tsize - 1
        self.table = <uint32_t*>calloc(tsize, sizeof(uint32_t))
        self.nodes = <Node*>malloc(max_nodes * sizeof(Node))
        for i in range(N_CLASSES):
            self.free_head[i] = -1
        self.edge_capacity = 1 << 16
        self.n_edges_used = 1                 # the pool's first slot stays unused (index_find)
        self.edge_limit = min(<int64_t>max_nodes * 64, <int64_t>0xFFFFFFFF)   # Node.first
        self.edges = <Edge*>malloc(self.edge_capacity * sizeof(Edge))
        if self.table == NULL or self.nodes == NULL or self.edges == NULL:
            raise MemoryError("cannot allocate the search tree")

    def __dealloc__(self):
        free(self.table)
        free(self.nodes)
        free(self.edges)

    cdef int set_root(self, GameCore root) except -1:
        """Search from (a copy of) `root` from now on: its moves, its key, fresh sums."""
        cdef int i
        self.root = root.clone()
        self.n_root_moves = self.root.gen_moves(self.root_moves)
        self.restricted = False
        for i in range(self.n_root_moves):
            self.root_score_sum[i] = 0.0
            self.root_win_sum[i] = 0.0
            self.root_count[i] = 0
        self.root_key = self.root.node_key(self.player, self.player, self.mode)
        return 0

    # ------------------------------------------------------------ nodes and edges
    @cython.final
    cdef int find_node(self, uint64_t key) noexcept:
        cdef uint64_t i = mix64(key) & self.table_mask
        cdef uint32_t e
        while True:
            e = self.table[i]
            if e == 0:
                return -1
            if self.nodes[e - 1].key == key:
                return e - 1
            i = (i + 1) & self.table_mask

    @cython.final
    cdef bint grow_table(self) noexcept:
        """Double the table (every node placed again); False when memory is lacking."""
        cdef uint64_t size = 2 * (self.table_mask + 1), mask = size - 1, slot
        cdef uint32_t* grown = <uint32_t*>calloc(size, sizeof(uint32_t))
        cdef int i
        if grown == NULL:
            return False
        for i in range(self.n_nodes):
            slot = mix64(self.nodes[i].key) & mask
            while grown[slot] != 0:
                slot = (slot + 1) & mask
            grown[slot] = i + 1
        free(self.table)
        self.table = grown
        self.table_mask = mask
        return True

    @cython.final
    cdef int add_node(self, uint64_t key, uint32_t npub) noexcept:
        if self.n_nodes >= self.max_nodes:
            self.full = True
            return -1
        if 2 * <uint64_t>(self.n_nodes + 1) > self.table_mask + 1:   # at most half full
            if self.table_mask + 1 >= self.table_most or not self.grow_table():
                self.full = True
                return -1
        cdef uint64_t i = mix64(key) & self.table_mask
        while self.table[i] != 0:
            i = (i + 1) & self.table_mask
        cdef int ni = self.n_nodes
        self.n_nodes += 1
        self.table[i] = ni + 1
        cdef Node* nd = &self.nodes[ni]
        nd.key = key
        nd.first = 0
        nd.n_edges = 0
        nd.visits = 0
        nd.stamp = <uint16_t>self.generation
        nd.npub = npub
        return ni

    @cython.final
    cdef bint reserve(self, int64_t extra) noexcept:
        """Make room for `extra` more edges in the pool; False at the memory cap."""
        cdef int64_t need = self.n_edges_used + extra
        cdef int64_t cap = self.edge_capacity
        cdef Edge* grown
        if need <= cap:
            return True
        if need > self.edge_limit:
            return False
        while cap < need:
            cap *= 2
        if cap > self.edge_limit:
            cap = self.edge_limit
        grown = <Edge*>realloc(self.edges, cap * sizeof(Edge))
        if grown == NULL:
            return False
        self.edges = grown
        self.edge_capacity = cap
        return True

    @cython.final
    cdef int64_t alloc_block(self, int cls) noexcept:
        """A block of size class `cls`: a freed one, else fresh from the pool."""
        cdef int64_t b = self.free_head[cls]
        if b >= 0:
            self.free_head[cls] = (<int64_t>self.edges[b].avail << 32) | self.edges[b].visits
            self.free_slots -= BLOCK_LEN[cls]
            return b
        if not self.reserve(BLOCK_LEN[cls]):
            return -1
        b = self.n_edges_used
        self.n_edges_used += BLOCK_LEN[cls]
        return b

    @cython.final
    cdef void free_block(self, int64_t b, int cls) noexcept:
        self.edges[b].visits = <uint32_t>(self.free_head[cls] & 0xFFFFFFFF)
        self.edges[b].avail = <uint32_t>(self.free_head[cls] >> 32)
        self.free_head[cls] = b
        self.free_slots += BLOCK_LEN[cls]

    @cython.final
    cdef int insert_edge(self, int ni, int move) noexcept:
        """Add `move` to node ni's sorted block, moving to a larger class when full; its index
        or -1 when memory is exhausted."""
        cdef int n = self.nodes[ni].n_edges
        if n >= MAX_MOVES:
            return -1
        cdef Node* nd
        cdef Edge* E
        cdef Edge* src
        cdef int64_t b
        cdef int i, j
        cdef bint moved = n == 0 or CLASS_OF[n + 1] != CLASS_OF[n]
        if moved:
            b = self.alloc_block(CLASS_OF[n + 1])
            if b < 0:
                self.full = True
                return -1
            nd = &self.nodes[ni]
            if n > 0:
                src = &self.edges[nd.first]
                for i in range(n):
                    self.edges[b + i] = src[i]
                self.free_block(nd.first, CLASS_OF[n])
            nd.first = b
        nd = &self.nodes[ni]
        E = &self.edges[nd.first]
        j = n
        while j > 0 and E[j - 1].move > move:
            E[j] = E[j - 1]
            j -= 1
        E[j].move = move
        E[j].visits = 0
        E[j].avail = 0
        E[j].reward_sum = 0.0
        nd.n_edges = n + 1
        if moved and INDEX_BITS[CLASS_OF[n + 1]]:
            index_build(E, n + 1, CLASS_OF[n + 1])
        elif index_ready(E, CLASS_OF[n + 1]):
            index_insert(E, CLASS_OF[n + 1], j)
        return j

    @cython.final
    cdef Edge* find_edge(self, int ni, int move) noexcept:
        cdef Node* nd = &self.nodes[ni]
        if nd.n_edges == 0:
            return NULL
        cdef Edge* E = &self.edges[nd.first]
        cdef int lo = 0, hi = nd.n_edges - 1, mid
        while lo <= hi:
            mid = (lo + hi) >> 1
            if E[mid].move == move:
                return &E[mid]
            if E[mid].move < move:
                lo = mid + 1
            else:
                hi = mid - 1
        return NULL

    # ------------------------------------------------------------ selection
    @cython.final
    cdef int select(self, int ni, int* moves, int n) noexcept:
        """Count availability of the legal moves; pick an untried one at random, else by UCB.

        Each legal move's edge is looked up in the block's index when it has one (a large
        block: an opponent's node keyed by what the searcher knows collects the moves of
        every hand it may hold, many more than are legal in one world), else found by one
        merge (both are ascending). Leaves the chosen edge's index in the block in
        self.sel_edge (-1 if memory ran out) and the chosen move's index in `moves` in
        self.sel_index.
        """
        cdef Node* nd = &self.nodes[ni]
        cdef int ne = nd.n_edges
        cdef Edge* E = &self.edges[nd.first] if ne > 0 else NULL
        cdef uint16_t* idx
        cdef int* at = self.edge_at
        cdef int i, j = 0, k, bits
        cdef double c = self.c
        cdef Tally t
        t.untried = 0
        t.pick = 0
        t.best_i = 0
        t.best = -1e300
        # every legal move counted available; an untried one is picked at random, else the
        # one of best UCB value (the first best in move order wins ties)
        if ne == 0:                           # a new node: every move untried
            t.pick = self.draw_pick(n)
            for i in range(n):
                at[i] = -1
            t.untried = n
        elif index_ready(E, CLASS_OF[ne]):
            idx = block_index(E, CLASS_OF[ne])
            bits = INDEX_BITS[CLASS_OF[ne]]
            for i in range(n):
                k = index_find(E, idx, bits, moves[i])
                at[i] = k
                tally_move(&t, E, k, i, c, &self.rng)
        elif ne == n and same_moves(E, moves, n):
            for i in range(n):                # the root, mostly: edge i is move i's
                at[i] = i
                tally_move(&t, E, i, i, c, &self.rng)
        else:
            for i in range(n):
                k = merge_find(E, ne, &j, moves[i])
                at[i] = k
                tally_move(&t, E, k, i, c, &self.rng)
        return self.take_choice(ni, moves, t.pick if t.untried else t.best_i)

    @cython.final
    cdef void count_available(self, int ni, int* moves, int n) noexcept:
        """Find each legal move's edge (edge_at, -1 for none) and count it available."""
        cdef Node* nd = &self.nodes[ni]
        cdef int ne = nd.n_edges
        cdef Edge* E = &self.edges[nd.first] if ne > 0 else NULL
        cdef int* at = self.edge_at
        cdef int i, j = 0, k
        cdef bint indexed = ne > 0 and index_ready(E, CLASS_OF[ne])
        for i in range(n):
            if ne == 0:
                k = -1
            elif indexed:
                k = index_find(E, block_index(E, CLASS_OF[ne]), INDEX_BITS[CLASS_OF[ne]], moves[i])
            else:
                k = merge_find(E, ne, &j, moves[i])
            at[i] = k
            if k >= 0:
                E[k].avail += 1

    @cython.final
    cdef int select_grouped(self, int ni, int* moves, int n) noexcept:
        """select() in two steps, for a game that declares move groups (Khiva's duel: 28
        pairs of cards to play, each with 15 pairs to give). First a group, the legal moves
        equal above bit group_shift (a run of the ascending moves), by UCB on its members'
        summed visits and rewards, its availability the most of theirs; then a move of that
        group, by UCB with the group's visits in the log term. An untried group goes first,
        then an untried move of the chosen group, each drawn at random. So a node learns
        which cards to play from every give tried with them, and a 420-way node no longer
        spends 420 visits before its statistics steer. Leaves what select() leaves."""
        self.count_available(ni, moves, n)
        cdef Run group = self.pick_group(ni, moves, n)
        return self.take_choice(ni, moves, self.pick_in_group(ni, group))

    @cython.final
    cdef Run pick_group(self, int ni, int* moves, int n) noexcept:
        """The group select_grouped takes: an untried one at random, else the best by UCB."""
        cdef Edge* E = &self.edges[self.nodes[ni].first]
        cdef int* at = self.edge_at
        cdef int i, k, key, shift = self.group_shift, untried = 0
        cdef uint32_t avail
        cdef double reward, v, best = -1e300
        cdef Run run, pick, top
        run.a = 0
        pick.a = pick.b = top.a = top.b = 0
        pick.visits = top.visits = 0
        while run.a < n:
            key = moves[run.a] >> shift
            run.b = run.a + 1
            while run.b < n and (moves[run.b] >> shift) == key:
                run.b += 1
            run.visits = avail = 0
            reward = 0.0
            for i in range(run.a, run.b):
                k = at[i]
                if k >= 0:
                    run.visits += E[k].visits
                    reward += E[k].reward_sum
                    avail = max(avail, E[k].avail)
            if run.visits == 0:
                untried += 1
                if rng_below(&self.rng, untried) == 0:
                    pick = run
            elif untried == 0:
                v = reward / run.visits + self.c * sqrt_nonneg(log_count(avail) / run.visits)
                if v > best:
                    best = v
                    top = run
            run.a = run.b
        return pick if untried else top

    @cython.final
    cdef int pick_in_group(self, int ni, Run group) noexcept:
        """The move select_grouped takes in `group` (its index in the legal moves): an
        untried one at random, else the best by UCB over the group's visits."""
        cdef Edge* E = &self.edges[self.nodes[ni].first]
        cdef int* at = self.edge_at
        cdef int i, k, untried = 0, chosen = group.a
        cdef double v, best = -1e300
        for i in range(group.a, group.b):
            k = at[i]
            if k < 0 or E[k].visits == 0:
                untried += 1
                if rng_below(&self.rng, untried) == 0:
                    chosen = i
            elif untried == 0:
                v = E[k].reward_sum / E[k].visits + \
                    self.c * sqrt_nonneg(log_count(group.visits) / E[k].visits)
                if v > best:
                    best = v
                    chosen = i
        return chosen

    @cython.final
    cdef inline int take_choice(self, int ni, int* moves, int chosen_i) noexcept:
        """Selection's last step: the move at `chosen_i` in `moves`, its edge added if it has
        no statistic yet (untried), left in self.sel_edge (-1 if memory ran out) and
        self.sel_index."""
        cdef int chosen = moves[chosen_i]
        cdef int chosen_edge = self.edge_at[chosen_i]
        if chosen_edge < 0:
            chosen_edge = self.insert_edge(ni, chosen)
            if chosen_edge >= 0:
                self.edges[self.nodes[ni].first + chosen_edge].avail = 1
        self.sel_edge = chosen_edge
        self.sel_index = chosen_i
        return chosen

    @cython.final
    cdef int draw_pick(self, int n) noexcept:
        """Reservoir sampling over n untried moves, one draw each in move order: the index
        drawn. The generator is copied to a local for the loop (stores through the tree's
        pointers would otherwise make it stored and loaded again at every draw)."""
        cdef Rng g = self.rng
        cdef int i, pick = 0
        for i in range(n):
            if rng_below(&g, i + 1) == 0:
                pick = i
        self.rng = g
        return pick

    @cython.final
    cdef int select_biased(self, int ni, int* moves, int n, GameCore st, bint at_root) noexcept:
        """select() with progressive bias: each move's UCB value gains
        prior_weight x prior / (visits + 1), and among untried moves the one of highest
        prior goes first (ties, and moves without prior: at random). The prior is the root's
        (set_root_prior) at the root when given, else with policy_prior 1 for the move the
        game's playout policy picks in this iteration's world (over the iterations, the
        policy's frequency of each move there) and 0 for the others."""
        cdef Node* nd = &self.nodes[ni]
        cdef int ne = nd.n_edges
        cdef Edge* E = &self.edges[nd.first] if ne > 0 else NULL
        cdef int* at = self.edge_at
        cdef double* pri = self.move_prior
        cdef int i, k, hint = -1, untried = 0, ties = 0, chosen_i = 0
        cdef double best = -1e300, v, top = -1.0
        if at_root and self.has_root_prior:
            for i in range(n):
                pri[i] = self.root_prior[i]
        else:
            if self.policy_prior:
                hint = st.playout_move(&self.rng)
            for i in range(n):
                pri[i] = 1.0 if moves[i] == hint else 0.0
        self.count_available(ni, moves, n)
        for i in range(n):
            k = at[i]
            if k >= 0 and E[k].visits != 0:
                continue
            untried += 1
            if pri[i] > top:                  # untried: the highest prior, ties at random
                top = pri[i]
                ties = 1
                chosen_i = i
            elif pri[i] == top:
                ties += 1
                if rng_below(&self.rng, ties) == 0:
                    chosen_i = i
        if untried == 0:
            for i in range(n):
                k = at[i]
                v = E[k].reward_sum / E[k].visits + \
                    self.c * sqrt_nonneg(log_count(E[k].avail) / E[k].visits) + \
                    self.prior_weight * pri[i] / (E[k].visits + 1.0)
                if v > best:
                    best = v
                    chosen_i = i
        return self.take_choice(ni, moves, chosen_i)

    def set_root_prior(self, priors) -> None:
        """The root's prior for progressive bias: {move: weight} (normalised here; a root
        move not named has 0), or None to drop it. Holds until the next reroot."""
        cdef int i
        cdef double total
        if priors is None:
            self.has_root_prior = False
            return
        total = float(sum(priors.values()))
        if not total > 0.0 or any(not w >= 0.0 for w in priors.values()):
            raise ValueError("a prior is non-negative weights with a positive sum")
        for i in range(self.n_root_moves):
            self.root_prior[i] = priors.get(self.root_moves[i], 0.0) / total
        self.has_root_prior = True

    # ------------------------------------------------------------ one iteration
    @cython.final
    cdef void iterate(self) noexcept:
        cdef GameCore st = self.scratch
        cdef int p, n, ni, move, depth = 0, d, played = 0, root_i = -1
        cdef int* moves
        cdef uint64_t key
        cdef bint created = False
        cdef double reward[MAX_PLAYERS]
        cdef double scores[MAX_PLAYERS]
        cdef Edge* e
        self.root.copy_to(st)
        st.set_tracking(TRACK_ALL)
        if self.resample:
            st.resample(self.player, &self.rng)
        st.set_tracking(TRACK_KEYS)         # below the root only node keys are read
        while depth < MAX_DEPTH:
            p = st.current()
            if p < 0:
                break
            if depth == 0:
                # The searcher's legal moves and its node key depend only on its own
                # information, which its determinization keeps: the root's, computed once
                # (full keys only search a world that is not resampled, so theirs is fixed).
                moves = self.root_moves
                n = self.n_root_moves
                key = self.root_key
            else:
                if self.opponent_policy and p != self.player:
                    # an opponent model: the others decide as the playout policy does, so
                    # only the searcher's decisions are nodes
                    st.do_move(st.playout_move(&self.rng))
                    continue
                moves = self.buf
                n = st.gen_moves(moves)
                if n == 1:                    # forced below the root: no decision, no node
                    st.do_move(moves[0])
                    continue
                key = st.node_key(p, self.player, self.mode)
            ni = self.find_node(key)
            if ni < 0:
                ni = self.add_node(key, public_count(st))
                if ni < 0:
                    break
                created = True
            if self.prior_weight > 0.0:
                move = self.select_biased(ni, moves, n, st, depth == 0)
            elif self.group_shift:
                move = self.select_grouped(ni, moves, n)
            else:
                move = self.select(ni, moves, n)
            if depth == 0:
                root_i = self.sel_index
            self.path_node[depth] = ni
            self.path_move[depth] = move
            self.path_edge[depth] = self.sel_edge
            self.path_player[depth] = p
            depth += 1
            if created:
                # the last node of this iteration: no key is read after it, so the
                # information (hashes, knowledge, log) stops here, before its move
                st.set_tracking(TRACK_OFF)
                st.do_move(move)
                break
            st.do_move(move)
        self.tree_moves += depth
        st.set_tracking(TRACK_OFF)
        played = self.playout(st, &self.rng, self.policy_playouts)
        if played == MAX_PLAYOUT_MOVES and st.current() >= 0:
            self.cut_playouts += 1
        self.playout_moves += played
        st.get_outcome(reward, scores if self.score_weight > 0.0 or self.track_scores else NULL)
        if self.track_scores and root_i >= 0:
            self.root_score_sum[root_i] += scores[self.player]
            self.root_win_sum[root_i] += reward[self.player]
            self.root_count[root_i] += 1
        if self.score_weight > 0.0:
            self.blend_margins(st.n_players, scores, reward)
        for d in range(depth):
            e = self.path_stat(d)
            self.nodes[self.path_node[d]].visits += 1
            self.nodes[self.path_node[d]].stamp = <uint16_t>self.generation
            if e != NULL:
                e.visits += 1
                e.reward_sum += <float>reward[self.path_player[d]]
        self.iterations += 1

    @cython.final
    cdef int playout(self, GameCore st, Rng* rng, bint policy) noexcept:
        """Play `st` out (at most MAX_PLAYOUT_MOVES moves); the moves played (the game's loop:
        GameCore.playout)."""
        return st.playout(rng, policy, MAX_PLAYOUT_MOVES)

    @cython.final
    cdef Edge* path_stat(self, int d) noexcept:
        """The statistic of the move made at depth d of this iteration's path: where select
        left it, unless the node's block changed since (the same node met again lower on
        the path, which inserted a move), then found again."""
        cdef Node* nd = &self.nodes[self.path_node[d]]
        cdef int k = self.path_edge[d]
        if 0 <= k < nd.n_edges and self.edges[nd.first + k].move == self.path_move[d]:
            return &self.edges[nd.first + k]
        return self.find_edge(self.path_node[d], self.path_move[d])

    @cython.final
    cdef void blend_margins(self, int n, double* scores, double* reward) noexcept:
        """Mix each player's score margin, squashed to (0, 1) on the scale of the margins
        seen so far, into its reward."""
        cdef double margin[MAX_PLAYERS]
        cdef double scale
        cdef int p
        outcome_margins(n, scores, reward, margin)
        self.margin_abs_sum += fabs(margin[self.player])
        scale = self.margin_abs_sum / (self.iterations + 1) + 1e-9
        for p in range(n):
            reward[p] = (1.0 - self.score_weight) * reward[p] + \
                self.score_weight * (0.5 + 0.5 * tanh(margin[p] / scale))

    # ------------------------------------------------------------ keeping the tree (reroot)
    def reroot(self, GameCore root not None, seed=None) -> int:
        """Search from `root` from now on, a later position of the same game with the same
        player to move (or the same position again), keeping the statistics that stay valid.

        Nodes are keyed by information sets, so a node's statistics do not depend on the
        root they were gathered from. What goes: every node the new root can never reach,
        known by having seen fewer public events than the root (a position's count of public
        events only grows), and every node the last search did not pass through (stale, or
        in a branch the game did not take); if more than half of max_nodes would still
        stay, the least visited go too (by powers of two of their visits), so the new search
        has room to grow. The new root's node always stays. The edge pool and the table are
        rebuilt without gaps. The root's outcome sums, the iteration counts and the margin
        scale start again, as in a new tree; with `seed` the generator is seeded again.

        Returns the visits the new root's node carries over (0: nothing of it was there).
        """
        if type(root) is not type(self.root) or root.n_players != self.root.n_players:
            raise ValueError("a tree is rerooted within one game: same game, same players")
        if root.current() < 0:
            raise ValueError("the game is over: nothing to search")
        if root.current() != self.player:
            raise ValueError(f"player {self.player} is not to move (player {root.current()} is)")
        self.set_root(root)
        self.has_root_prior = False
        if seed is not None:
            seed_from_python(&self.rng, seed)
        if not self.evict(public_count(self.root)):
            raise MemoryError("cannot rebuild the search tree")
        self.generation += 1
        self.iterations = 0
        self.tree_moves = 0
        self.playout_moves = 0
        self.cut_playouts = 0
        self.margin_abs_sum = 0.0
        self.full = False
        return self.carried()

    def visits_at(self, GameCore state not None) -> int:
        """The visits of the node of this tree's player deciding at `state`: what a reroot
        there would carry over (0 if the tree holds no such node, or another seat is to
        move)."""
        if state.current() != self.player or type(state) is not type(self.root):
            return 0
        cdef int ni = self.find_node(state.node_key(self.player, self.player, self.mode))
        return self.nodes[ni].visits if ni >= 0 else 0

    def carried(self) -> int:
        """The visits of the root's node: what earlier searches left of it (0 if none)."""
        cdef int ni = self.find_node(self.root_key)
        return self.nodes[ni].visits if ni >= 0 else 0

    @cython.final
    cdef bint keeps(self, Node* nd, uint32_t min_npub, int least_bits) noexcept:
        """Whether reroot keeps this node (see reroot)."""
        if nd.key == self.root_key:
            return True
        return (nd.npub >= min_npub and nd.stamp == <uint16_t>self.generation
                and bit_length(nd.visits) >= least_bits)

    @cython.final
    cdef bint evict(self, uint32_t min_npub) noexcept:
        """Drop the nodes reroot does not keep; compact the nodes, the edge pool and the
        table. False (and nothing changed) if memory for the new pool is lacking."""
        cdef int i, k = 0, b, most = self.max_nodes // 2
        cdef long long by_bits[34]
        cdef long long kept = 0
        cdef int least_bits = 0
        cdef int64_t need = 1, used = 1, cap   # the first slot unused, as in a new pool
        cdef uint64_t slot
        cdef Node nd
        cdef Edge* pool
        for b in range(34):
            by_bits[b] = 0
        for i in range(self.n_nodes):          # how many stay, by the bit length of visits
            if self.keeps(&self.nodes[i], min_npub, 0):
                by_bits[bit_length(self.nodes[i].visits)] += 1
        for b in range(33, -1, -1):            # the fewest bits that keep at most `most`
            if kept + by_bits[b] > most:
                least_bits = b + 1
                break
            kept += by_bits[b]
        for i in range(self.n_nodes):
            if self.keeps(&self.nodes[i], min_npub, least_bits) and self.nodes[i].n_edges:
                need += BLOCK_LEN[CLASS_OF[self.nodes[i].n_edges]]
        cap = max(need, <int64_t>1 << 16)
        pool = <Edge*>malloc(cap * sizeof(Edge))
        if pool == NULL:
            return False
        self.clear_table()
        for i in range(self.n_nodes):
            if not self.keeps(&self.nodes[i], min_npub, least_bits):
                continue
            nd = self.nodes[i]
            if nd.n_edges:
                memcpy(&pool[used], &self.edges[nd.first], nd.n_edges * sizeof(Edge))
                if INDEX_BITS[CLASS_OF[nd.n_edges]]:
                    index_build(&pool[used], nd.n_edges, CLASS_OF[nd.n_edges])
                nd.first = <uint32_t>used
                used += BLOCK_LEN[CLASS_OF[nd.n_edges]]
            else:
                nd.first = 0
            self.nodes[k] = nd
            slot = mix64(nd.key) & self.table_mask
            while self.table[slot] != 0:
                slot = (slot + 1) & self.table_mask
            self.table[slot] = k + 1
            k += 1
        free(self.edges)
        self.edges = pool
        self.edge_capacity = cap
        self.n_edges_used = used
        for b in range(N_CLASSES):
            self.free_head[b] = -1
        self.free_slots = 0
        self.n_nodes = k
        return True

    @cython.final
    cdef void clear_table(self) noexcept:
        """Empty the node table: slot by slot when the tree is small against the table
        (its untouched pages stay untouched), else at once."""
        cdef int i
        cdef uint64_t slot, size = self.table_mask + 1
        if <uint64_t>self.n_nodes * 16 >= size:
            memset(self.table, 0, size * sizeof(uint32_t))
            return
        for i in range(self.n_nodes):
            # probe for the slot holding exactly this node, past slots zeroed already: every
            # node is in the table once, so the probe ends
            slot = mix64(self.nodes[i].key) & self.table_mask
            while self.table[slot] != <uint32_t>(i + 1):
                slot = (slot + 1) & self.table_mask
            self.table[slot] = 0

    def run(self, iterations=0, double seconds=0.0) -> int:
        """Run until `iterations` more iterations or `seconds` of wall time (whichever is set
        and comes first); returns the number of iterations run."""
        iterations = check_int(iterations, "iterations")
        if not 0 <= iterations <= 2**62 or not 0.0 <= seconds < INFINITY:
            raise ValueError(f"iterations is a count >= 0 and seconds a finite number >= 0, "
                             f"not {iterations} and {seconds}")
        if iterations == 0 and seconds == 0.0:
            raise ValueError("give a budget: iterations > 0 or seconds > 0")
        return self.run_for(iterations, seconds)

    cdef long long run_for(self, long long iterations, double seconds):
        cdef long long done = 0
        cdef double deadline = now_seconds() + seconds if seconds > 0.0 else 0.0
        self.stop_requested = False
        while iterations <= 0 or done < iterations:
            self.iterate()
            done += 1
            if (done & 15) == 0:
                if self.stop_requested or (deadline > 0.0 and now_seconds() >= deadline):
                    break
        return done

    def root_outcomes(self) -> dict:
        """{move: (sum of the searcher's final scores, sum of its win shares, iterations)}
        over the iterations of this search (since the last reroot) that started with that
        root move."""
        return {self.root_moves[i]: (self.root_score_sum[i], self.root_win_sum[i],
                                     self.root_count[i])
                for i in range(self.n_root_moves)}

    def root_stats(self) -> list:
        """[(move, visits, mean reward, availability)] for the searching player's root moves
        (those restrict_root left, if it was called)."""
        stats = self.edge_stats(self.find_node(self.root.node_key(self.player, self.player,
                                                                   self.mode)))
        if self.restricted:
            searched = {self.root_moves[i] for i in range(self.n_root_moves)}
            stats = [s for s in stats if s[0] in searched]
        return stats

    def restrict_root(self, moves) -> None:
        """Search only `moves` at the root (UCI's searchmoves): legal moves of the searcher
        there, at least one, given before the search has run an iteration since its root was
        set. Kept until the next reroot."""
        cdef int i, n = 0
        if self.iterations:
            raise ValueError("restrict the root moves before the search runs")
        wanted = set()
        for m in moves:
            m = check_int(m, "a root move")
            if m in wanted:
                raise ValueError(f"move {m} is given twice")
            wanted.add(m)
        legal = {self.root_moves[i] for i in range(self.n_root_moves)}
        if not wanted:
            raise ValueError("searchmoves needs at least one move")
        unknown = sorted(wanted - legal)
        if unknown:
            raise ValueError(f"move {unknown[0]} is not a legal move of player {self.player} "
                             f"here")
        for i in range(self.n_root_moves):
            if self.root_moves[i] in wanted:
                self.root_moves[n] = self.root_moves[i]
                n += 1
        self.n_root_moves = n
        self.has_root_prior = False
        self.restricted = True

    def stats_at(self, GameCore state not None) -> list:
        """[(move, visits, mean reward, availability)] at the node of the seat to move at
        `state` (a world this tree's player imagines), keyed as the search keys it: what the
        search learned of that seat's choice there. [] when the tree holds no such node (a
        forced move makes none), the game is over, or `state` is another game's."""
        return self.edge_stats(self.node_at(state))

    def node_at(self, GameCore state not None) -> int:
        """The number of the node stats_at(state) reads (-1: none); worlds that share a
        node share its statistics (node_stats)."""
        if type(state) is not type(self.root) or state.current() < 0:
            return -1
        return self.find_node(state.node_key(state.current(), self.player, self.mode))

    def node_stats(self, node) -> list:
        """stats_at's list for a node numbered by node_at ([] for -1)."""
        node = check_int(node, "node")
        if not -1 <= node < self.n_nodes:
            raise ValueError(f"no node {node}: the tree has {self.n_nodes}")
        return self.edge_stats(node)

    cdef list edge_stats(self, int ni):
        """The statistics of node `ni`'s moves ([] for -1: no node)."""
        if ni < 0 or self.nodes[ni].n_edges == 0:
            return []
        cdef Edge* E = &self.edges[self.nodes[ni].first]
        return [(E[i].move, E[i].visits,
                 (E[i].reward_sum / E[i].visits) if E[i].visits else 0.0, E[i].avail)
                for i in range(self.nodes[ni].n_edges)]

    def memory(self) -> dict:
        """Bytes used by the tree: nodes, table, live move statistics and the edge pool."""
        cdef long long live = 0
        for i in range(self.n_nodes):
            live += self.nodes[i].n_edges
        return {
            "nodes": self.n_nodes,
            "move_stats": live,
            "bytes_per_move_stat": sizeof(Edge),
            "bytes_per_node": sizeof(Node) + 2 * sizeof(uint32_t),
            "edge_pool_slots": self.n_edges_used,
            "free_slots": self.free_slots,
            "node_bytes": self.n_nodes * sizeof(Node) + (self.table_mask + 1) * sizeof(uint32_t),
            "edge_bytes": self.n_edges_used * sizeof(Edge),
        }


def random_playouts(GameCore root not None, games, seed, bint resample=False, observer=0):
    """Play `games` uniformly random games from copies of `root` in C (no information tracking).

    With resample, each copy is first determinized for `observer`, a seat of the game. Returns
    (games, moves applied, seconds): the raw speed of a core.
    """
    games = check_int(games, "games")
    observer = check_int(observer, "observer")
    if not 0 <= games <= 10**12:
        raise ValueError(f"games must be between 0 and 10**12, not {games}")
    if not 0 <= observer < root.n_players:
        raise ValueError(f"observer must be a seat from 0 to {root.n_players - 1}, not {observer}")
    cdef GameCore st = root.new_empty()
    cdef int buf[MAX_MOVES]
    cdef int n
    cdef long long g, moves = 0
    cdef Rng rng
    seed_from_python(&rng, seed)
    cdef double t0 = now_seconds()
    for g in range(games):
        root.copy_to(st)
        if resample:
            st.set_tracking(TRACK_ALL)
            st.resample(observer, &rng)
        st.set_tracking(TRACK_OFF)
        moves += st.playout(&rng, False, INT_MAX)
    return games, moves, now_seconds() - t0


def random_playout_outcomes(GameCore root, games, seed) -> list:
    """What `games` random playouts from copies of `root` end in, played by the same loop as
    random_playouts (each core's own fast playout): (moves, final scores) per game. No search
    at the defaults plays this loop, so the golden numbers pin it here (search/golden.py)."""
    games = check_int(games, "games")
    if not 0 <= games <= 10_000:
        raise ValueError(f"games must be between 0 and 10,000, not {games}")
    cdef int n = games
    cdef GameCore st = root.new_empty()
    cdef double reward[MAX_PLAYERS]
    cdef double scores[MAX_PLAYERS]
    cdef Rng rng
    cdef int g, moves
    seed_from_python(&rng, seed)
    outcomes = []
    for g in range(n):
        root.copy_to(st)
        st.set_tracking(TRACK_OFF)
        moves = st.playout(&rng, False, INT_MAX)
        st.get_outcome(reward, scores)
        outcomes.append((moves, [scores[p] for p in range(st.n_players)]))
    return outcomes
