# cython: language_level=3
"""The game-core base type: the Python-facing API that every game shares.

The search drives the cdef methods declared in core.pxd directly; Python code (the command
line, the agents, the tests) uses the checked methods below, which never leave a state
half-changed: an illegal move raises ValueError before anything is touched.
"""
from libc.string cimport memcpy
from cext.rng cimport Rng, rng_seed, rng_below
from cext.infohash cimport KEY_SO, KEY_MO, ih_key

KEY_MODES = {"so": KEY_SO, "mo": KEY_MO}


class IllegalMoveError(ValueError):
    """A move that is not legal in the position (or is no move at all); the state is unchanged."""


cdef class GameCore:
    """Base of every game state. Subclasses implement the cdef interface.

    Each game also provides, in Python: a class attribute `game` (its registry name),
    `__init__(players, seed, **options)`, `move_to_text`, `scores`, `ranking`,
    `to_json(view=None)`, `from_json`, `render(viewer=None)`, `check_invariants` and
    optionally `narrate` (lines for a spectator after a move).
    """

    game = "?"

    cdef int current(self) noexcept:
        return -1

    cdef int gen_moves(self, int* buf) noexcept:
        return 0

    cdef int random_move(self, Rng* rng) noexcept:
        cdef int buf[MAX_MOVES]
        cdef int n = self.gen_moves(buf)
        return buf[rng_below(rng, n)]

    cdef void do_move(self, int move) noexcept:
        pass

    cdef void copy_to(self, GameCore dst) noexcept:
        # every game's whole state is its C struct: one copy serves them all
        memcpy(dst.raw_state(), self.raw_state(), self.raw_size())
        dst.n_players = self.n_players
        dst.seed = self.seed

    cdef void get_rewards(self, double* out) noexcept:
        pass

    cdef uint64_t node_key(self, int player, int observer, int mode) noexcept:
        cdef StateHead* head = <StateHead*>self.raw_state()
        if head == NULL:
            return 0
        return ih_key(&head.ih, player, observer, mode)

    cdef void resample(self, int observer, Rng* rng) noexcept:
        pass

    cdef void set_tracking(self, bint on) noexcept:
        cdef StateHead* head = <StateHead*>self.raw_state()
        if head != NULL:
            head.tracking = on

    cdef GameCore new_empty(self):
        return type(self).__new__(type(self))

    cdef void* raw_state(self) noexcept:
        return NULL

    cdef int playout_move(self, Rng* rng) noexcept:
        return self.random_move(rng)

    cdef size_t raw_size(self) noexcept:
        return 0

    def __reduce__(self):
        """Pickle as the raw C state: exact (knowledge and hashes included), for sending a
        position to another process of the same build (parallel search)."""
        if self.raw_state() == NULL:
            raise TypeError(f"{type(self).__name__} states cannot be pickled")
        return (_restore, (type(self), self.n_players, self.seed,
                           (<char*>self.raw_state())[:self.raw_size()]))

    cdef void get_scores(self, double* out) noexcept:
        cdef int i
        try:
            values = self.scores()
            for i in range(self.n_players):
                out[i] = values[i]
        except Exception:
            for i in range(self.n_players):
                out[i] = 0.0

    # ------------------------------------------------------------------ Python API
    @property
    def to_move(self) -> int:
        """The player to move, or -1 when the game is over."""
        return self.current()

    def is_terminal(self) -> bool:
        return self.current() < 0

    def legal_moves(self) -> list:
        """Legal moves of the player to move, as ints in ascending order."""
        cdef int buf[MAX_MOVES]
        cdef int n = self.gen_moves(buf)
        return [buf[i] for i in range(n)]

    def apply(self, move) -> None:
        """Play `move` for the seat to move: an int from legal_moves() or its notation
        ("play-W5-give-W1"). IllegalMoveError (a ValueError) if it is not legal here; the
        state is then unchanged."""
        if isinstance(move, str):
            move = self.parse_move(move)
        elif not isinstance(move, int) or isinstance(move, bool):
            raise IllegalMoveError(f"a move is an int or its notation, not {type(move).__name__}")
        if self.current() < 0:
            raise IllegalMoveError("the game is over: no move can be played")
        cdef int buf[MAX_MOVES]
        cdef int n = self.gen_moves(buf)
        cdef int i
        if -2**31 <= move < 2**31:
            for i in range(n):
                if buf[i] == move:
                    self.do_move(move)
                    return
        raise IllegalMoveError(f"illegal move {self.move_to_text(move) if -2**31 <= move < 2**31 else move!r} "
                               f"for seat {self.current()}; legal: {self._legal_text()}")

    def _legal_text(self, int most=24) -> str:
        """The legal moves in notation, cut short after `most`."""
        moves = self.legal_moves()
        shown = " ".join(self.move_to_text(m) for m in moves[:most])
        return shown + (f" ... ({len(moves)} legal moves)" if len(moves) > most else "")

    def __repr__(self) -> str:
        turn = getattr(self, "turn", None)
        who = f"seat {self.current()} to move" if self.current() >= 0 else "game over"
        return (f"<{type(self).__name__}: {self.n_players} players"
                + (f", turn {turn}" if turn is not None else "") + f", {who}>")

    def clone(self) -> "GameCore":
        """An independent copy of this state."""
        cdef GameCore dst = self.new_empty()
        self.copy_to(dst)
        return dst

    def rewards(self) -> list:
        """Per-player rewards in [0, 1] (the win share); only meaningful at the end."""
        if self.current() >= 0:
            raise ValueError("the game is not over")
        cdef double out[MAX_PLAYERS]
        self.get_rewards(out)
        return [out[i] for i in range(self.n_players)]

    def info_key(self, int player, int observer=-1, str mode not None="so") -> int:
        """The search's node key for `player` deciding in a search run for `observer`."""
        if observer < 0:
            observer = player
        self._check_player(player)
        self._check_player(observer)
        if mode not in KEY_MODES:
            raise ValueError(f"unknown key mode {mode!r} (so or mo)")
        return self.node_key(player, observer, KEY_MODES[mode])

    def perft(self, int depth) -> int:
        """The number of move sequences of `depth` moves from here (a line that ends the game
        sooner counts once). Chance is part of each move, so the count is a fixed number per
        position: a check of the move generator, as chess engines use perft."""
        if not 0 <= depth <= 12:
            raise ValueError(f"perft depth must be between 0 and 12, not {depth}")
        return self._perft(depth)

    cdef long long _perft(self, int depth):
        cdef int buf[MAX_MOVES]
        cdef int n, i
        cdef long long total = 0
        if depth == 0 or self.current() < 0:
            return 1
        n = self.gen_moves(buf)
        if depth == 1:
            return n
        cdef GameCore child = self.new_empty()
        for i in range(n):
            self.copy_to(child)
            child.do_move(buf[i])
            total += child._perft(depth - 1)
        return total

    def determinized(self, int observer, seed: int) -> "GameCore":
        """A copy in which everything `observer` cannot see is resampled from `seed`."""
        self._check_player(observer)
        cdef Rng rng
        rng_seed(&rng, <uint64_t>(seed & 0xFFFFFFFFFFFFFFFF))
        cdef GameCore dst = self.clone()
        dst.set_tracking(True)
        dst.resample(observer, &rng)
        return dst

    def _start(self, str title, int players, int low, int high, seed) -> int:
        """Check a new game's player count and seed, record them and return the seed."""
        if not low <= players <= high:
            raise ValueError(f"{title} is played by {low} to {high} players, not {players}")
        if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**64:
            raise ValueError(f"seed must be an integer from 0 to 2**64 - 1, not {seed!r}")
        self.n_players = players
        self.seed = seed
        return seed

    def _check_player(self, int p):
        if not 0 <= p < self.n_players:
            raise ValueError(f"player {p} out of range 0..{self.n_players - 1}")

    def move_to_text(self, int move) -> str:
        return str(move)

    def narrate(self, GameCore before, int player, int move) -> list:
        """Lines telling a spectator what `player`'s `move` did (self is the state after it,
        `before` the state before). The default names the move."""
        return [f"P{player} {before.move_to_text(move)}"]

    def parse_move(self, text) -> int:
        """The legal move written as `text`; IllegalMoveError if it is malformed or illegal."""
        if not isinstance(text, str):
            raise IllegalMoveError(f"a move in notation is text, not {type(text).__name__}")
        text = text.strip()
        if self.current() < 0:
            raise IllegalMoveError("the game is over: no move can be played")
        for m in self.legal_moves():
            if self.move_to_text(m).lower() == text.lower():
                return m
        raise IllegalMoveError(f"{text[:60]!r} is not a legal move for seat {self.current()}; "
                               f"legal: {self._legal_text()}")


def _restore(cls, int n_players, seed, bytes raw):
    """Rebuild a pickled state (see GameCore.__reduce__)."""
    cdef GameCore st = cls.__new__(cls)
    if <size_t>len(raw) != st.raw_size():
        raise ValueError(f"{cls.__name__} state of {len(raw)} bytes comes from another build")
    memcpy(st.raw_state(), <char*>raw, len(raw))
    st.n_players = n_players
    st.seed = seed
    return st


def stable_hash(obj) -> int:
    """A 64-bit hash of a JSON-able value, the same in every process and run: the cores use
    it to derive information hashes from a view (from_view)."""
    import hashlib
    import json

    raw = json.dumps(obj, sort_keys=True, separators=(",", ":")).encode()
    return int.from_bytes(hashlib.blake2b(raw, digest_size=8).digest(), "little")
