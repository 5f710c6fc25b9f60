# The game-core interface: a Cython base type that the search drives without Python objects.
# Every game module subclasses GameCore and implements the cdef methods below.
from libc.stdint cimport uint64_t
from cext.rng cimport Rng
from cext.infohash cimport InfoHash

cdef enum:
    MAX_PLAYERS = 5
    MAX_MOVES = 4096     # size of a move buffer: no position of any game has more legal moves
    LOG_SIZE = 32        # narration entries kept; no single move writes more (conformance check)
    # A safety net, not a rule: no game lasts a thousand moves, so a playout this long means a
    # position the rules cannot finish; it is scored where it stands instead of spinning forever
    # (with the GIL held, nothing else could stop it).
    MAX_PLAYOUT_MOVES = 100000

cdef void seed_from_python(Rng* rng, seed) except *
    # seed `rng` from a Python int (its low 64 bits): every caller-set seed enters C this way

cdef enum:
    # How much of the information a state keeps as moves are played (StateHead.tracking).
    TRACK_OFF = 0        # nothing: random playouts, which read only the outcome
    TRACK_KEYS = 1       # the information hashes only: inside the search tree, where node
                         # keys are all that is read (no resample, no narration follows)
    TRACK_ALL = 2        # hashes, each player's knowledge (what resample respects) and the
                         # narration log: every state Python sees, and every search root

# ---------------------------------------------------------------- the game-module contract
# Every game is one module cext/<game>.pyx whose sections come in this order, with these
# banners, so that the four rule files read alike:
#
#   component table   the rulebook's numbers (cards, tiles, tracks), in one place, each cited
#   moves and phases  phases, move kinds (cext/moves.pxd) with named argument accessors, and
#                     the LOG_* kinds of the narration log
#   state             the struct <Game>State: StateHead's fields first, then the game's
#   set-up            the core class <Game>Core: its class attributes (name, title, player
#                     counts, options), __cinit__ (binds the state: bind_state) and the
#                     deal (set_up, run by the base's __init__)
#   move generation   gen_moves (ascending), random_move, playout_move (and optionally playout)
#   playing a move    do_move and the rule steps it runs, then end_turn
#   scoring           score(p), rank_key(p) and, if scoring shares work between players, tally()
#   information       knowledge, information events, resample (determinization)
#   the bridge        _fields / _set_fields: the C state to and from Python values, with
#                     one-line docstrings (GameCore's docstring says what they promise)
#
# Every cdef method of a game is @cython.final: the rules call each other directly, never
# through the vtable (a fifth of the search's speed), although Python may subclass the type.
# Each core's class attributes: name (registry key), title, aliases, min_players,
# max_players, default_players and options ({name: help}); the registry is built from them.

cdef struct LogEntry:
    # One thing that happened, for narration: a game's LOG_* kind, the player it concerns
    # (-1 for none) and up to three numbers whose meaning the kind gives. Eight bytes, as the
    # log is copied with every state: the numbers are counts, ids and values that fit in 16
    # bits (the largest, a herd's cows, stays below 10,000).
    unsigned char kind
    signed char player
    short a, b, c

cdef struct EventLog:
    unsigned int count           # entries written since the deal: the ring keeps the last LOG_SIZE
    LogEntry ring[LOG_SIZE]

cdef inline void log_event(EventLog* log, int kind, int player, int a, int b, int c) noexcept nogil:
    cdef LogEntry* e = &log.ring[log.count % LOG_SIZE]
    e.kind = kind
    e.player = player
    e.a = a
    e.b = b
    e.c = c
    log.count += 1

cdef struct StateHead:
    # The first fields of every game's state struct, in this order (as CPython's objects
    # share PyObject_HEAD), so the base type keeps the tracking level, the information hashes
    # and the narration log for all games. Each game checks its layout at import with head_fits.
    # A game updates its hashes while tracking (any level) and its knowledge and log only at
    # TRACK_ALL.
    int tracking
    InfoHash ih
    EventLog log

cdef inline bint head_fits(void* state, int* tracking, InfoHash* ih, EventLog* log) noexcept:
    return (<void*>tracking == <void*>&(<StateHead*>state).tracking
            and <void*>ih == <void*>&(<StateHead*>state).ih
            and <void*>log == <void*>&(<StateHead*>state).log)

cdef class GameCore:
    cdef readonly int n_players
    cdef readonly uint64_t seed
    cdef void* state                 # the game's state struct (bound by its __cinit__)
    cdef size_t state_size

    cdef void bind_state(self, void* state, size_t size) noexcept
    cdef void set_up(self) noexcept
        # deal a new game for n_players from seed into the zeroed state (called by __init__)

    # --- the interface the search uses (no Python objects, no allocation) ---
    cdef int current(self) noexcept
        # player to move, or -1 when the game is over
    cdef int gen_moves(self, int* buf) noexcept
        # legal moves of the player to move, written in ascending order; returns their number
    cdef int random_move(self, Rng* rng) noexcept
        # a uniformly random legal move (playouts); the default draws from gen_moves
    cdef void do_move(self, int move) noexcept
        # apply a legal move (not checked: the Python `apply` checks) and every chance event after it
    cdef void copy_to(self, GameCore dst) noexcept
        # overwrite dst (a state of the same game) with this state
    cdef void tally(self) noexcept
        # work that every player's score shares (a game whose scores depend on each other);
        # the base calls it before score() and rank_key(); default: nothing
    cdef int score(self, int p) noexcept
        # p's points now, as the rulebook counts them
    cdef long long rank_key(self, int p) noexcept
        # p's final standing with every tie-break folded in: higher is better, equal keys tie
    cdef void get_rewards(self, double* out) noexcept
        # per-player reward in [0, 1] at the end (the win share, from rank_key): the base's
    cdef void get_scores(self, double* out) noexcept
        # per-player score() now: the base's
    cdef void get_outcome(self, double* rewards, double* scores) noexcept
        # both at once, tallying once (scores may be NULL): what a playout's end needs
    cdef uint64_t node_key(self, int player, int observer, int mode) noexcept
        # information-set key for `player` deciding, in a search for `observer` (KEY_SO / KEY_MO)
    cdef void resample(self, int observer, Rng* rng) noexcept
        # determinize in place: redraw everything `observer` cannot see, consistently with what
        # `observer` has seen; depends only on the observer's information and rng
    cdef void set_tracking(self, int level) noexcept
        # how much information to keep up to date from now on: TRACK_OFF, TRACK_KEYS, TRACK_ALL
    cdef GameCore new_empty(self)
        # a fresh state object of the same game, to copy into
    cdef void* raw_state(self) noexcept
        # the game's C state struct (plain data, no pointers): copies and pickling; the base's
    cdef size_t raw_size(self) noexcept
    cdef int playout_move(self, Rng* rng) noexcept
        # the move the search's playouts take (default: random_move); a game may bias it
        # towards sensible play, as long as it stays cheap and uses only this state and rng
    cdef int playout(self, Rng* rng, bint policy, int limit) noexcept
        # play on until the game ends or `limit` moves are played, each playout_move (policy)
        # or random_move; returns the moves played. The base's loop makes three calls through
        # the vtable a move; a game may run the same loop with its own methods called directly
    cdef long long _perft(self, int depth)
