# cython: language_level=3
"""The game-core base type: the Python-facing API that every game shares.

The search drives the cdef methods declared in core.pxd directly; Python code (the command
line, the agents, the tests) uses the checked methods below, which never leave a state
half-changed: an illegal move raises ValueError before anything is touched.
"""
cimport cython
import operator
from libc.string cimport memcpy, memset
from cext.bits cimport win_shares
from cext.rng cimport Rng, rng_seed, rng_below
from cext.infohash cimport KEY_SO, KEY_MO, ih_key
from cext cimport moves

MOVE_BUFFER = MAX_MOVES        # the most legal moves any position may have (a move buffer)
LOG_ENTRIES = LOG_SIZE         # narration entries the log keeps (no move writes more)
KIND_SHIFT = moves.MOVE_KIND_SHIFT
ARG_MASK = moves.MOVE_ARG_MASK


# The three take their numbers as Python objects and check them: a C int argument would
# truncate 2.5 to 2 and overflow on 2**40.
def make_move(kind, arg) -> int:
    """The move of `kind` with argument `arg` (see cext/moves.pxd)."""
    kind, arg = check_int(kind, "a move kind"), check_int(arg, "a move argument")
    if not 0 <= kind < 128 or not 0 <= arg <= ARG_MASK:
        raise ValueError(f"no move has kind {kind} and argument {arg}")
    return moves.make_move(kind, arg)


def move_kind(move) -> int:
    """The kind of a move (a game's MV_* constant)."""
    return moves.move_kind(move_int(move))


def move_arg(move) -> int:
    """The argument of a move (what the kind acts on)."""
    return moves.move_arg(move_int(move))


def move_int(move) -> int:
    """`move` as a C move int: ValueError for what is not an integer or out of its range."""
    move = check_int(move, "a move")
    if not -2**31 <= move < 2**31:
        raise ValueError(f"{move} is no move: moves are 32-bit integers")
    return move

KEY_MODES = {"so": KEY_SO, "mo": KEY_MO}


cdef str _missing_method = None


cdef void _missing(str method) noexcept:
    """A required cdef method of the contract was reached in the base: remember which."""
    global _missing_method
    if _missing_method is None:
        _missing_method = method


def check_contract(cls) -> None:
    """ImportError unless `cls` (a GameCore subclass) implements every cdef method the search
    needs (core.pxd): deals a game, plays it out at random, scores it and determinizes each
    step for the player to move. The registry runs it on every game it loads."""
    global _missing_method
    _missing_method = None
    cdef GameCore g = cls()
    cdef Rng rng
    cdef double out[MAX_PLAYERS]
    cdef int steps = 0
    rng_seed(&rng, 1)
    while g.current() >= 0 and steps < 100000 and _missing_method is None:
        g.resample(g.current(), &rng)
        g.do_move(g.random_move(&rng))
        steps += 1
    g.get_scores(out)
    shift = cls.move_group_shift
    if isinstance(shift, bool) or not isinstance(shift, int) or not 0 <= shift <= 24:
        raise ImportError(f"{cls.__name__}.move_group_shift must be an int from 0 to 24 (the "
                          f"bits of a move's argument), not {shift!r}")
    if _missing_method is not None:
        name, _missing_method = _missing_method, None
        raise ImportError(f"{cls.__name__} does not implement {name}(), which every game "
                          "must (cext/core.pxd, the game-module contract)")


cdef void seed_from_python(Rng* rng, seed) except *:
    """Seed `rng` from a Python integer (any size: its value modulo 2**64 counts); ValueError
    for a bool, a float, a string or anything else that is not an integer."""
    rng_seed(rng, <uint64_t>(check_int(seed, "a seed") & 0xFFFFFFFFFFFFFFFF))


def shown(value) -> str:
    """`value` for an error message, at most about 40 characters: an integer too long to
    print (repr of 10**5000 raises) by its size."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 128:
        return f"an integer of {value.bit_length():,} bits"
    text = repr(value)
    return text[:40] + ("..." if len(text) > 40 else "")


def check_int(value, str what):
    """`value` as an int (numpy integers too); ValueError naming `what` for a bool, a float, a
    string or anything else: a caller's 1.5 or True is a mistake, not a number to round."""
    if not isinstance(value, bool):
        try:
            return operator.index(value)
        except TypeError:
            pass
    shown = repr(value)
    raise ValueError(f"{what} is an integer, not {shown[:40]}{'...' if len(shown) > 40 else ''}")


class IllegalMoveError(ValueError):
    """A move that is not legal in the position (or is no move at all); the state is unchanged."""


cdef class GameCore:
    """Base of every game state. Subclasses implement the cdef interface.

    Each core sets the class attributes below (the registry is built from them) and
    implements the cdef interface of core.pxd; the base derives rewards, scores and the
    ranking from its score() and rank_key(). Each game's Python half (engine/games/) adds
    `move_to_text`, `to_json(view=None)`, `from_json`, `from_view`, `render(viewer=None)`,
    `check_invariants` and `narrate`.

    The bridge between the halves is two methods per game: `_fields()` returns every field
    of the C state as Python values (ints, lists, dicts: Cython's struct conversion), and
    `_set_fields(fields)` overwrites the C state from values shaped alike, in one conversion
    that checks every type, list length and C range (bounds checks on) and writes nothing
    unless all of it converts. The Python half checks the meaning before, and the caller the
    invariants after.
    """

    name = "?"                  # the registry key
    title = "?"                 # as the rulebook writes it
    aliases = ()                # other names the registry accepts
    min_players = 2
    max_players = 5
    default_players = 2
    options = {}                # option name -> help text (beyond players and seed)
    # Move groups for the search's two-step selection (Tree(group_moves=True)): legal moves
    # whose ints agree above this bit form a group (a run of the ascending legal moves); the
    # search may pick a group by its summed statistics, then a move of it. 0: no groups.
    move_group_shift = 0

    @property
    def game(self) -> str:
        """The game's registry name."""
        return self.name

    # The methods every game must implement. The base's versions only record that they were
    # reached (check_contract turns that into an ImportError when the registry loads the
    # game), so a game that lacks one never plays on with a silent zero.
    cdef int current(self) noexcept:
        _missing("current")
        return -1

    cdef int gen_moves(self, int* buf) noexcept:
        _missing("gen_moves")
        return 0

    cdef int random_move(self, Rng* rng) noexcept:
        cdef int buf[MAX_MOVES]
        cdef int n = self.gen_moves(buf)
        return buf[rng_below(rng, n)]

    cdef void do_move(self, int move) noexcept:
        _missing("do_move")

    cdef void copy_to(self, GameCore dst) noexcept:
        # every game's whole state is its C struct: one copy serves them all
        memcpy(dst.raw_state(), self.raw_state(), self.raw_size())
        dst.n_players = self.n_players
        dst.seed = self.seed

    # ---------------------------------------------------------------- scoring (derived)
    cdef void tally(self) noexcept:
        pass

    cdef int score(self, int p) noexcept:
        _missing("score")
        return 0

    cdef long long rank_key(self, int p) noexcept:
        return self.score(p)

    cdef void get_rewards(self, double* out) noexcept:
        self.get_outcome(out, NULL)

    cdef void get_scores(self, double* out) noexcept:
        cdef int p
        self.tally()
        for p in range(self.n_players):
            out[p] = self.score(p)

    cdef void get_outcome(self, double* rewards, double* scores) noexcept:
        cdef long long keys[MAX_PLAYERS]
        cdef int p
        self.tally()
        for p in range(self.n_players):
            keys[p] = self.rank_key(p)
            if scores != NULL:
                scores[p] = self.score(p)
        win_shares(keys, self.n_players, rewards)

    cdef uint64_t node_key(self, int player, int observer, int mode) noexcept:
        cdef StateHead* head = <StateHead*>self.raw_state()
        if head == NULL:
            return 0
        return ih_key(&head.ih, player, observer, mode)

    cdef void resample(self, int observer, Rng* rng) noexcept:
        _missing("resample")        # a game without it would search with the hidden cards seen

    cdef void set_tracking(self, int level) noexcept:
        cdef StateHead* head = <StateHead*>self.raw_state()
        if head != NULL:
            head.tracking = level

    cdef GameCore new_empty(self):
        return type(self).__new__(type(self))

    def __init__(self, players=None, seed=0):
        """A new game for `players` (the game's default if None) dealt from `seed`."""
        if self.state == NULL:
            raise TypeError(f"{type(self).__name__} is no game: deal one of the game "
                            "classes (engine.new_game), which bind their state")
        self._start(self.default_players if players is None else players, seed)
        memset(self.state, 0, self.state_size)
        self.set_tracking(TRACK_ALL)        # a game played from Python keeps its information
        self.set_up()

    cdef void set_up(self) noexcept:
        _missing("set_up")

    cdef void bind_state(self, void* state, size_t size) noexcept:
        """Called by each game's __cinit__ with its state struct: the base copies, pickles,
        hashes and logs through it."""
        self.state = state
        self.state_size = size

    @cython.final
    cdef void* raw_state(self) noexcept:
        return self.state

    cdef int playout_move(self, Rng* rng) noexcept:
        return self.random_move(rng)

    cdef int playout(self, Rng* rng, bint policy, int limit) noexcept:
        cdef int played = 0
        if policy:                  # one loop per kind: the kind is not tested at every move
            while played < limit and self.current() >= 0:
                self.do_move(self.playout_move(rng))
                played += 1
        else:
            while played < limit and self.current() >= 0:
                self.do_move(self.random_move(rng))
                played += 1
        return played

    def playout_choices(self, seed, count=1) -> list:
        """The moves the search's playouts would take here in `count` (0 to 1,000,000) draws
        from one Rng seeded by `seed` (a test and inspection aid; [] when the game is over)."""
        cdef Rng r
        cdef int i
        count = check_int(count, "count")
        if not 0 <= count <= 1_000_000:
            raise ValueError(f"count must be between 0 and 1,000,000, not {count}")
        seed_from_python(&r, seed)
        if self.current() < 0:
            return []
        return [self.playout_move(&r) for i in range(count)]

    def played_out(self, seed, bint policy=True, bint own_loop=True) -> "GameCore":
        """A copy of this position played to the end as a search's playout plays it (nothing
        tracked; each move playout_move with `policy`, else random_move), from one Rng seeded
        by `seed`: by the game's own playout loop (`own_loop`, what the search calls) or by
        the base's loop, one move at a time through the vtable. A game's own loop must play
        the very same game (a test aid: compare the copies; their information is not kept,
        so do not play on from them)."""
        cdef GameCore g = self.clone()
        cdef Rng r
        seed_from_python(&r, seed)
        g.set_tracking(TRACK_OFF)
        if own_loop:
            g.playout(&r, policy, MAX_PLAYOUT_MOVES)
        else:
            GameCore.playout(g, &r, policy, MAX_PLAYOUT_MOVES)
        return g

    @cython.final
    cdef size_t raw_size(self) noexcept:
        return self.state_size

    def __reduce__(self):
        """Pickle as the raw C state: exact (knowledge and hashes included), for sending a
        position to another process of the same build (parallel search)."""
        if self.raw_state() == NULL:
            raise TypeError(f"{type(self).__name__} states cannot be pickled")
        return (_restore, (type(self), self.n_players, self.seed,
                           (<char*>self.raw_state())[:self.raw_size()]))

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
        else:
            try:
                move = check_int(move, "a move")         # numpy integers count, as elsewhere
            except ValueError:
                raise IllegalMoveError(f"a move is an int or its notation, not "
                                       f"{type(move).__name__}") from None
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

    def scores(self) -> list:
        """Every player's points now, as the rulebook counts them."""
        self.tally()
        return [self.score(p) for p in range(self.n_players)]

    def rank_keys(self) -> list:
        """Every player's final standing as one number (every tie-break folded in)."""
        self.tally()
        return [self.rank_key(p) for p in range(self.n_players)]

    def ranking(self) -> list:
        """Places (1 = first) after every tie-break; fully tied players share a place."""
        keys = self.rank_keys()
        return [1 + sum(1 for k in keys if k > keys[p]) for p in range(self.n_players)]

    @property
    def event_count(self) -> int:
        """Narration entries written since the deal (see events)."""
        cdef StateHead* head = <StateHead*>self.raw_state()
        return head.log.count if head != NULL else 0

    def events(self, since=0) -> list:
        """The narration entries written after the first `since` ones, as (kind, player, a, b,
        c) tuples (kinds: the game's LOG_* constants); the log keeps the last LOG_SIZE."""
        cdef StateHead* head = <StateHead*>self.raw_state()
        if head == NULL:
            return []
        since = check_int(since, "since")
        if since < 0:
            raise ValueError(f"since counts entries: 0 or more, not {since}")
        cdef unsigned int count = head.log.count
        cdef unsigned int first = count - min(count, LOG_SIZE)      # the oldest entry kept
        cdef unsigned int i
        cdef LogEntry* e
        if since >= count:
            first = count
        elif since > first:
            first = <unsigned int>since
        out = []
        for i in range(first, count):
            e = &head.log.ring[i % LOG_SIZE]
            out.append((e.kind, e.player, e.a, e.b, e.c))
        return out

    def rewards(self) -> list:
        """Per-player rewards in [0, 1] (the win share); only meaningful at the end."""
        if self.current() >= 0:
            raise ValueError("the game is not over")
        cdef double out[MAX_PLAYERS]
        self.get_rewards(out)
        return [out[i] for i in range(self.n_players)]

    def info_key(self, player, observer=None, str mode not None="so") -> int:
        """The search's node key for `player` deciding in a search run for `observer` (None:
        the player itself)."""
        if observer is None or (isinstance(observer, int) and observer == -1):
            observer = player
        self._check_player(player)
        self._check_player(observer)
        if mode not in KEY_MODES:
            raise ValueError(f"unknown key mode {mode!r} (so or mo)")
        return self.node_key(player, observer, KEY_MODES[mode])

    def perft(self, depth) -> int:
        """The number of move sequences of `depth` moves from here (a line that ends the game
        sooner counts once). Chance is part of each move, so the count is a fixed number per
        position: a check of the move generator, as chess engines use perft."""
        depth = check_int(depth, "perft depth")
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

    def _track_keys_only(self) -> None:
        """From now on keep only the information hashes (TRACK_KEYS), as a state inside the
        search tree does: no knowledge, no narration. For the conformance suite, which
        checks that the information keys then come out the same."""
        self.set_tracking(TRACK_KEYS)

    def determinized(self, observer, seed) -> "GameCore":
        """A copy in which everything `observer` cannot see is resampled from `seed`. Its deal
        seed is 0, as a position loaded from a view has: it was dealt from no seed, and the
        deal's seed would deal every hidden card again. Its narration log starts empty, as a
        loaded position's does: the true game's entries name hidden cards (the Sable Nation's
        face-down draws), which the world has redrawn."""
        self._check_player(observer)
        cdef Rng rng
        seed_from_python(&rng, seed)
        cdef GameCore dst = self.clone()
        dst.seed = 0
        dst.set_tracking(TRACK_ALL)
        dst.resample(observer, &rng)
        cdef StateHead* head = <StateHead*>dst.raw_state()
        if head != NULL:
            memset(&head.log, 0, sizeof(EventLog))
        return dst

    def _start(self, players, seed) -> int:
        """Check a new game's player count and seed, record them and return the seed.
        ValueError for anything else (a count too large for a C int included: it was an
        OverflowError), with the value shown short however large it is."""
        count = None
        if not isinstance(players, bool):
            try:
                count = operator.index(players)     # numpy integers too
            except TypeError:
                pass
        if count is None or not self.min_players <= count <= self.max_players:
            raise ValueError(f"{self.title} is played by {self.min_players} to "
                             f"{self.max_players} players, not {shown(players)}")
        if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**64:
            raise ValueError(f"seed must be an integer from 0 to 2**64 - 1, not {shown(seed)}")
        self.n_players = count
        self.seed = seed
        return seed

    def _check_player(self, p) -> int:
        """`p` if it is a seat of this game; ValueError otherwise (a bool, a float or a string
        is not a seat)."""
        p = check_int(p, f"a player (a seat 0..{self.n_players - 1})")
        if not 0 <= p < self.n_players:
            raise ValueError(f"player {p} out of range 0..{self.n_players - 1}")
        return p

    def move_to_text(self, int move) -> str:
        return str(move)

    def narrate(self, GameCore before, int player, int move, viewer=None) -> list:
        """Lines telling what `player`'s `move` did: self is the state after it, `before` the
        state before. For a spectator (viewer None) everything; for seat `viewer` only what
        that seat may be told (its view's information). The default names the move."""
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


cdef struct _CountdownState:
    StateHead head
    int left


cdef class _GameWithoutScore(GameCore):
    """A game that lacks score(): the fixture that shows check_contract refuses such a game
    (tests/test_game_api.py). One player counts down from 3; no one can tell who won."""
    cdef _CountdownState s
    min_players = 1
    default_players = 1

    def __cinit__(self):
        self.bind_state(&self.s, sizeof(_CountdownState))

    cdef void set_up(self) noexcept:
        self.s.left = 3

    cdef int current(self) noexcept:
        return 0 if self.s.left > 0 else -1

    cdef int gen_moves(self, int* buf) noexcept:
        buf[0] = 0
        return 1

    cdef void do_move(self, int move) noexcept:
        self.s.left -= 1

    cdef void resample(self, int observer, Rng* rng) noexcept:
        pass
