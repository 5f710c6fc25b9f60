# The game-core interface: a Cython base type that the search drives without Python objects.
# Every game module subclasses GameCore and implements the cdef methods below.
from libc.stdint cimport uint64_t
from cext.rng cimport Rng
from cext.infohash cimport InfoHash

cdef enum:
    MAX_PLAYERS = 5
    MAX_MOVES = 4096     # size of a move buffer: no position of any game has more legal moves

cdef struct StateHead:
    # The first fields of every game's state struct, in this order (as CPython's objects
    # share PyObject_HEAD), so the base type keeps the tracking flag and the information
    # hashes for all games. Each game checks its layout at import with head_fits.
    bint tracking
    InfoHash ih

cdef inline bint head_fits(void* state, bint* tracking, InfoHash* ih) noexcept:
    return (<void*>tracking == <void*>&(<StateHead*>state).tracking
            and <void*>ih == <void*>&(<StateHead*>state).ih)

cdef class GameCore:
    cdef readonly int n_players
    cdef readonly uint64_t seed

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
    cdef void get_rewards(self, double* out) noexcept
        # per-player reward in [0, 1] at the end of the game (win share after all tie-breaks)
    cdef uint64_t node_key(self, int player, int observer, int mode) noexcept
        # information-set key for `player` deciding, in a search for `observer` (KEY_SO / KEY_MO)
    cdef void resample(self, int observer, Rng* rng) noexcept
        # determinize in place: redraw everything `observer` cannot see, consistently with what
        # `observer` has seen; depends only on the observer's information and rng
    cdef void set_tracking(self, bint on) noexcept
        # keep information hashes and knowledge up to date (off in random playouts)
    cdef GameCore new_empty(self)
        # a fresh state object of the same game, to copy into
    cdef void get_scores(self, double* out) noexcept
        # per-player raw scores (points) now; the default calls the Python scores()
    cdef void* raw_state(self) noexcept
        # the game's C state struct (plain data, no pointers), for pickling between processes
    cdef size_t raw_size(self) noexcept
    cdef int playout_move(self, Rng* rng) noexcept
        # the move the search's playouts take (default: random_move); a game may bias it
        # towards sensible play, as long as it stays cheap and uses only this state and rng
    cdef long long _perft(self, int depth)
