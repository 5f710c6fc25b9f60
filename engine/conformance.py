"""The conformance suite: the checks every game passes, through a game class's public API only.

`check_game(cls)` deals random games of `cls` at every player count and plays them to the end,
checking every state it reaches (`check_invariants`, the legal moves, the narration log) and,
at sampled states and at the end, everything a game promises the engine: illegal moves
refused without a trace, clones independent both ways, JSON and pickle round trips, one seat's
view loading into a state that shows that seat the same view and deals the same worlds,
determinizations that keep exactly what their observer knows, move notation that parses back,
seeds that deal and replay alike, and rewards, ranking and rank keys that agree. A new game
registered in engine/registry.py gets all of it from tests/test_conformance.py for free (as
PettingZoo's api_test gives an environment).

What a game class must offer (cext/core.pyx `GameCore`, engine/games/base.py `CheckedGame`):
`cls(players, seed)`; the class attributes `name`, `title`, `min_players`, `max_players`,
`default_players`; and on a state `legal_moves`, `apply`, `clone`, `to_json(view=None)`,
`from_json`, `from_view`, `check_invariants`, `determinized`, `info_key`, `move_to_text`,
`parse_move`, `rewards`, `scores`, `rank_keys`, `ranking`, `perft`, `events`, `event_count`,
`render` and `narrate`.

A failure is an AssertionError whose message names the game, the player count, the deal's
seed and the ply (`khan, 3 players, seed 5, ply 17: ...`); an exception raised by the game
itself is wrapped the same way.
"""
from __future__ import annotations

import copy
import json
import pickle
import random
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Collection, Dict, Iterable, List, Optional, Sequence, Tuple

from cext.core import LOG_ENTRIES, MOVE_BUFFER, IllegalMoveError
from engine.validation import MAX_VALUES, IllegalPositionError, ViewError

MAX_MOVES = MOVE_BUFFER     # cext/core.pxd's MAX_MOVES: the size of every move buffer (4096)
LOG_SIZE = LOG_ENTRIES      # cext/core.pxd's LOG_SIZE: the narration entries a state keeps (32)
KEY_MODES = ("so", "mo")
MOVE_CAP = 20_000           # moves after which a game is taken never to end
TEXTS_PARSED = 64           # legal moves whose notation is parsed back at one state (evenly spread)
THOROUGH = 3                # one deep state in this many also loads JSON and views twice
FEW_MOVES = 8               # a move list this short is searched for kinds of move not played yet
TWIN_SEED = 12_345          # the determinization seed of the twin world (see check_determinized)
TWIN_MOVES = 16             # legal moves played in a state and its twin (evenly spread)
NOT_MOVES: Tuple[Any, ...] = ("no-such-move", "", "   ", 3.5, None, True, [1], (1,), b"1")
NOT_INTS: Tuple[int, ...] = (-1, -2 ** 31 - 1, 2 ** 31, 2 ** 40)

# The checks by name, in the order they run; `skip` takes these names. (The move cap, which
# keeps a game that never ends from hanging the run, always holds.)
CHECKS = (
    "setup",          # class attributes, player counts refused, seeds dealing alike
    "loading",        # from_json/from_view refuse non-objects, unknown keys, deep or huge input,
                      # damaged common fields (game, players, phase, to_move, view, player_state)
    "invariants",     # check_invariants at every state
    "moves",          # legal moves: ints, ascending, distinct, within the bound; none iff over
    "events",         # the narration log grows by at most LOG_SIZE 5-tuples a move
    "scoring",        # rewards are win shares summing to 1, given by the ranking
    "rank_keys",      # the ranking follows rank_keys()
    "illegal",        # non-moves, bad notation, ints out of range: IllegalMoveError, no change
    "illegal_ints",   # ints legal earlier or next to legal ones: IllegalMoveError, no change
    "notation",       # move_to_text is distinct, token-like and parses back (parse_move, apply)
    "clone",          # clones are independent both ways and equal the original
    "json",           # from_json(to_json()) gives the same state, moves, views, keys twice
    "pickle",         # a pickled state is the same state, its keys and log included
    "views",          # from_view of the seat to move rebuilds its world; other seats refused
    "end_views",      # every seat's view of a finished game loads, scoring the same game
    "determinize",    # a determinization keeps what its observer knows, and only that
    "twins",          # a move played in a state and in a twin world of an observer: where
                      # the observer is shown the same view and told the same, its keys agree
    "replay",         # the same seed and moves give the same states
    "keys_only",      # replayed keeping only the information hashes (as in the search's
                      # tree), the info keys are the same
    "perft",          # perft(0) and perft(1) agree with legal_moves
    "text",           # render, narrate and repr give text (repr: class, players, seat to move)
)


@dataclass
class ConformanceReport:
    """What `check_game` checked: enough to assert coverage (every kind of move turned up,
    every phase was checked deeply) and to print a summary."""

    game: str
    players: Tuple[int, ...] = ()
    games: int = 0                                  # games played to the end
    plies: int = 0                                  # moves played in them
    deep_states: int = 0                            # states given every check
    lengths: Dict[int, List[int]] = field(default_factory=dict)   # player count -> game lengths
    move_kinds: Counter = field(default_factory=Counter)          # kind (see _kind) -> moves
    phases: Counter = field(default_factory=Counter)              # phase of every state reached
    deep_phases: Counter = field(default_factory=Counter)         # phase of every deep state
    most_moves: int = 0                             # the longest legal move list seen
    most_moves_by_phase: Dict[str, int] = field(default_factory=dict)
    end_notes: List[Any] = field(default_factory=list)            # what on_end returned
    checks: Counter = field(default_factory=Counter)              # check name -> times run
    skipped: Tuple[str, ...] = ()

    def summary(self) -> str:
        shortest = min((min(v) for v in self.lengths.values() if v), default=0)
        longest = max((max(v) for v in self.lengths.values() if v), default=0)
        return (f"{self.game} {list(self.players)} players: {self.games} games, {self.plies} "
                f"moves ({shortest}-{longest} a game), {self.deep_states} states checked "
                f"deeply, at most {self.most_moves} legal moves, {len(self.move_kinds)} kinds "
                f"of move" + (f"; skipped {', '.join(self.skipped)}" if self.skipped else ""))


def _set(key: str, value: Any) -> Callable[[dict], None]:
    return lambda d: d.__setitem__(key, value)


def _damages(top: int, view: bool) -> List[Tuple[str, Callable[[dict], None]]]:
    """Damage to the fields every game's states and views share (the game, the seat counts,
    the phase, the seat to move, one item per seat in player_state), each refused by every
    game; `top`: the game's most players."""
    out = [("another game", _set("game", "chess")), ("no game", lambda d: d.pop("game")),
           ("too many players", _set("players", top + 1)), ("players as text", _set("players", "3")),
           ("players as a float", _set("players", 3.0)), ("huge players", _set("players", 2 ** 70)),
           ("no phase", lambda d: d.pop("phase")), ("an unknown phase", _set("phase", "dance")),
           ("to_move out of range", _set("to_move", top + 4)),
           ("no player_state", lambda d: d.pop("player_state")),
           ("player_state one short", lambda d: d["player_state"].pop()),
           ("player_state one too long", lambda d: d["player_state"].append(d["player_state"][0])),
           ("player_state not a list", _set("player_state", {"0": 1}))]
    if view:
        out += [("a seat out of range", _set("view", top)), ("a seat as text", _set("view", "0")),
                ("a seat as a bool", _set("view", True)), ("no seat", lambda d: d.pop("view"))]
    return out


def _kind(text: str) -> str:
    """The kind of a move: the letters its notation starts with (raid-boldhome: raid)."""
    return re.match(r"[A-Za-z]*", text).group(0) or text


class _Where:
    """Where the suite is (game, player count, seed, ply): the prefix of every failure."""

    def __init__(self, name: str, players: int, seed: int) -> None:
        self.name, self.players, self.seed, self.ply = name, players, seed, 0

    def __str__(self) -> str:
        return f"{self.name}, {self.players} players, seed {self.seed}, ply {self.ply}"


class _Checker:
    """One call of check_game: the class, the options and the report being filled."""

    def __init__(self, cls: type, report: ConformanceReport, *, samples: int, every: int,
                 move_cap: int, move_bound: int, skip: Collection[str], public_moves: bool,
                 on_state: Optional[Callable[[Any], None]],
                 on_end: Optional[Callable[[Any], Any]]) -> None:
        self.cls, self.report = cls, report
        self.samples, self.every, self.move_cap = samples, every, move_cap
        self.move_bound, self.skip = move_bound, frozenset(skip)
        self.public_moves = public_moves
        self.on_state, self.on_end = on_state, on_end
        self.where = _Where(cls.name, 0, 0)
        self.thorough = True                  # this deep state gets the checks run one time in THOROUGH
        self.phase: Optional[str] = None      # the phase of the state check_state saw last
        self.kinds: Dict[int, str] = {}       # move -> its kind, named the first time it is played

    # ------------------------------------------------------------ helpers
    def on(self, check: str) -> bool:
        """Whether `check` runs (and count it)."""
        if check in self.skip:
            return False
        self.report.checks[check] += 1
        return True

    def expect(self, condition: Any, message: str) -> None:
        if not condition:
            raise AssertionError(f"{self.where}: {message}")

    def refuses(self, action: Callable[[], Any], error: type, what: str,
                match: Optional[str] = None) -> BaseException:
        """`action()` must raise `error` (with `match` in its message)."""
        try:
            action()
        except error as e:
            if match is not None:
                self.expect(match in str(e), f"{what}: {error.__name__} {str(e)!r} lacks {match!r}")
            return e
        except Exception as e:             # noqa: BLE001 - the wrong type is the failure
            raise AssertionError(f"{self.where}: {what}: raised {type(e).__name__}: {e}, "
                                 f"not {error.__name__}") from e
        raise AssertionError(f"{self.where}: {what}: no {error.__name__} raised")

    def new(self, players: int, seed: int) -> Any:
        return self.cls(players, seed)

    # ------------------------------------------------------------ once per call
    def check_setup(self, counts: Sequence[int], seed: int) -> None:
        cls = self.cls
        if not self.on("setup"):
            return
        self.where = _Where(getattr(cls, "name", cls.__name__), counts[0], seed)
        for attr, kind in (("name", str), ("title", str), ("min_players", int),
                           ("max_players", int), ("default_players", int)):
            self.expect(isinstance(getattr(cls, attr, None), kind), f"{attr} must be a {kind.__name__}")
        self.expect(1 <= cls.min_players <= cls.default_players <= cls.max_players,
                    "min_players <= default_players <= max_players")
        for n in (cls.min_players - 1, cls.max_players + 1):
            self.refuses(lambda: cls(n, seed), ValueError, f"a game of {n} players")
        self.refuses(lambda: cls(cls.min_players, -1), ValueError, "a negative seed")
        for n in counts:
            self.where = _Where(cls.name, n, seed)
            a, b = self.new(n, seed), self.new(n, seed)
            self.expect(a.n_players == n, f"n_players is {a.n_players}")
            self.expect(a.to_json() == b.to_json(), "the same seed deals two different games")
            other = self.new(n, seed + 1).to_json()
            mine = a.to_json()
            other.pop("seed", None), mine.pop("seed", None)
            self.expect(other != mine, f"seeds {seed} and {seed + 1} deal the same game")
        self.check_loading(self.new(counts[0], seed))

    def check_loading(self, g: Any) -> None:
        """Both loaders refuse, with a ViewError (a ValueError) and before recursing or
        copying: what is no JSON object, a state for a view and a view for a state, an
        unknown key (a seed in a view among them), input nested too deep or too large; and
        with a ValueError damage to the fields every game shares (_damages)."""
        if not self.on("loading"):
            return
        cls, name = self.cls, self.cls.name
        state, view = g.to_json(), g.to_json(view=g.to_move)
        deep: list = []
        for _ in range(5 * sys.getrecursionlimit()):      # a recursive check would fail
            deep = [deep]
        huge = list(range(MAX_VALUES + 1))
        for load, good, other in ((cls.from_json, state, view), (cls.from_view, view, state)):
            what = load.__name__
            for bad in (None, [], name, 3, 2.5, True, [good]):
                self.refuses(lambda: load(bad), ViewError, f"{what}({str(bad)[:40]})",
                             match="must be a JSON object")
            for bad in ({"game": name}, {"game": name, "view": 0, "players": g.n_players}, other):
                self.refuses(lambda: load(bad), ViewError, f"{what}({str(bad)[:40]})")
            self.refuses(lambda: load(dict(good, colour_of_the_sky="blue")), ViewError,
                         f"{what} of an unknown key", match="(root): unknown key 'colour_of_the_sky'")
            self.refuses(lambda: load(dict(good, pad=deep)), ViewError, f"{what} of deep input",
                         match="nested deeper")
            self.refuses(lambda: load(dict(good, pad=huge)), ViewError, f"{what} of huge input",
                         match="too large")
        self.refuses(lambda: cls.from_view(dict(view, seed=g.to_json()["seed"])), ViewError,
                     "from_view of a view with a seed", match="(root): unknown key 'seed'")
        top = cls.max_players
        for load, good in ((cls.from_json, state), (cls.from_view, view)):
            for what, change in _damages(top, "view" in good):
                bad = copy.deepcopy(good)
                change(bad)
                self.refuses(lambda: load(bad), ValueError, f"{load.__name__} of {what}")

    # ------------------------------------------------------------ one game
    def play(self, players: int, seed: int, rng: random.Random, deep: bool) -> List[int]:
        """Play one random game to the end, checking as it goes; the moves played."""
        self.where = _Where(self.cls.name, players, seed)
        g = self.new(players, seed)
        report, moves, played = self.report, [], []
        offset = rng.randrange(self.every)
        watch: Optional[Tuple[Any, dict]] = None      # an untouched clone and its JSON
        snapshots: Dict[int, str] = {}
        while True:
            ply = self.where.ply = len(moves)
            legal = self.check_state(g)
            if g.is_terminal():
                break
            self.expect(ply < self.move_cap, f"no end after {self.move_cap} moves")
            move = self.choose(g, legal, rng)
            mover = g.to_move
            text = g.move_to_text(move) if deep else ""
            report.move_kinds[self.kind_of(g, move)] += 1
            is_deep = deep and (ply % self.every == offset or self.phase not in report.deep_phases)
            if is_deep:
                watch = self.check_deeply(g, legal, moves, played)
                snapshots[ply] = json.dumps(watch[1], sort_keys=True)
                before = g.clone()
            count = g.event_count
            g.apply(move)
            moves.append(move)
            played.append(text)
            self.check_log(g, count)
            if is_deep:
                self.check_text(g, before, mover, move)
            if watch is not None:
                self.where.ply = ply
                if self.on("clone"):
                    self.expect(watch[0].to_json() == watch[1], "a move on the original changed its clone")
                watch = None
        report.games += 1
        report.plies += len(moves)
        report.lengths.setdefault(players, []).append(len(moves))
        self.check_end(g)
        if deep:
            d = self.check_deeply(g, [], moves, played)[1]
            snapshots[len(moves)] = json.dumps(d, sort_keys=True)
            self.check_replay(players, seed, moves, snapshots)
        if self.on_end is not None:
            note = self.on_end(g)
            if note is not None:
                report.end_notes.append(note)
        return moves

    def kind_of(self, g: Any, move: int) -> str:
        """The kind of `move` (see _kind), named from its notation the first time it is seen."""
        kind = self.kinds.get(move)
        if kind is None:
            kind = self.kinds[move] = _kind(g.move_to_text(move))
        return kind

    def choose(self, g: Any, legal: List[int], rng: random.Random) -> int:
        """A uniformly random legal move; but among a few (FEW_MOVES at most), one of a kind
        not played yet in this run if there is one, so that rare kinds of move (a shop where
        nothing is bought) turn up in a few games."""
        move = rng.choice(legal)
        if len(legal) <= FEW_MOVES:
            fresh = [m for m in legal if self.kind_of(g, m) not in self.report.move_kinds]
            if fresh:
                move = rng.choice(fresh)
        return move

    def check_state(self, g: Any) -> List[int]:
        """The checks of every state: its invariants and its legal moves (returned); its phase
        (a game's `phase` attribute, if it has one) is counted and kept in self.phase."""
        report = self.report
        if self.on("invariants"):
            g.check_invariants()
        legal = g.legal_moves()
        over = g.is_terminal()
        phase = self.phase = getattr(g, "phase", None)
        if phase is not None:
            report.phases[phase] += 1
            most = report.most_moves_by_phase
            most[phase] = max(most.get(phase, 0), len(legal))
        report.most_moves = max(report.most_moves, len(legal))
        if self.on("moves"):
            self.expect(type(legal) is list, "legal_moves() is not a list")
            self.expect(all(type(m) is int for m in legal), "a legal move is not an int")
            self.expect(all(a < b for a, b in zip(legal, legal[1:])),
                        "legal moves are not ascending and distinct")
            self.expect(len(legal) <= self.move_bound,
                        f"{len(legal)} legal moves, above the bound {self.move_bound}")
            if over:
                self.expect(legal == [] and g.to_move == -1, "a finished game has a seat to move")
            else:
                self.expect(legal, "no legal move in a game that is not over")
                self.expect(0 <= g.to_move < g.n_players, f"seat {g.to_move} to move")
        if self.on_state is not None:
            self.on_state(g)
        return legal

    def check_log(self, g: Any, count: int) -> None:
        """The narration log after one move: it grew by at most LOG_SIZE entries, each a
        5-tuple of ints."""
        if not self.on("events"):
            return
        now = g.event_count
        self.expect(count <= now <= count + LOG_SIZE,
                    f"event_count went from {count} to {now} in one move (at most {LOG_SIZE} more)")
        entries = g.events(count)
        self.expect(len(entries) == now - count, f"events({count}) gave {len(entries)} entries, "
                                                 f"not {now - count}")
        for e in entries:
            self.expect(isinstance(e, tuple) and len(e) == 5 and all(type(x) is int for x in e),
                        f"an event is not a 5-tuple of ints: {e!r}")

    def check_end(self, g: Any) -> None:
        """A finished game: one entry per seat in rewards, ranking, rank_keys and scores; the
        rewards are the win shares of the ranking ("scoring"), which follows the rank keys
        ("rank_keys")."""
        n = g.n_players
        rewards, ranking, keys, scores = g.rewards(), g.ranking(), g.rank_keys(), g.scores()
        if self.on("scoring"):
            self.expect(len(rewards) == len(ranking) == len(keys) == len(scores) == n,
                        "rewards, ranking, rank_keys and scores need one entry per seat")
            self.expect(abs(sum(rewards) - 1.0) < 1e-9 and all(0.0 <= r <= 1.0 for r in rewards),
                        f"rewards {rewards} are not shares summing to 1")
            self.expect(min(ranking) == 1, f"nobody is first in the ranking {ranking}")
            winners = ranking.count(1)
            shares = [1.0 / winners if place == 1 else 0.0 for place in ranking]
            self.expect(all(abs(r - s) < 1e-9 for r, s in zip(rewards, shares)),
                        f"rewards {rewards} are not the win shares of the ranking {ranking}")
        if self.on("rank_keys"):
            places = [1 + sum(1 for k in keys if k > keys[p]) for p in range(n)]
            self.expect(ranking == places, f"ranking {ranking} does not follow rank_keys {keys}")

    def check_replay(self, players: int, seed: int, moves: List[int],
                     snapshots: Dict[int, str]) -> None:
        """The same seed and the same moves give the same states (at the states checked
        deeply) and the same end."""
        if not self.on("replay"):
            return
        g = self.new(players, seed)
        keys_only = self.new(players, seed) if self.on("keys_only") else None
        if keys_only is not None:
            keys_only._track_keys_only()
        for ply, move in enumerate(moves):
            if ply in snapshots:
                self.where.ply = ply
                self.expect(json.dumps(g.to_json(), sort_keys=True) == snapshots[ply],
                            "replaying the game's moves from its seed gives another state")
                self.check_keys_only(g, keys_only)
            g.apply(move)
            if keys_only is not None:
                keys_only.apply(move)
        self.where.ply = len(moves)
        self.expect(json.dumps(g.to_json(), sort_keys=True) == snapshots[len(moves)],
                    "replaying the game's moves from its seed gives another end")
        self.check_keys_only(g, keys_only)

    def check_keys_only(self, g: Any, keys_only: Optional[Any]) -> None:
        """A replay that kept only its information hashes (TRACK_KEYS, as inside the search
        tree) has every info key of the fully tracked game: a game must not put a hash
        update behind its knowledge or narration."""
        if keys_only is not None:
            self.expect(self.keys(keys_only) == self.keys(g),
                        "a replay keeping only the information hashes has other info keys")

    # ------------------------------------------------------------ sampled states
    def check_deeply(self, g: Any, legal: List[int], history: List[int],
                     played: List[str]) -> Tuple[Any, dict]:
        """Every check of one state (`history`: the moves played to reach it, `played`: their
        notation); returns a clone that the next move on `g` must not touch, with its JSON."""
        report = self.report
        report.deep_states += 1
        self.thorough = report.deep_states % THOROUGH == 1 or not legal
        if self.phase is not None:                  # check_state has just seen g
            report.deep_phases[self.phase] += 1
        d = g.to_json()
        self.check_illegal(g, legal, history, played, d, "illegal")
        self.check_illegal(g, legal, history, played, d, "illegal_ints")
        self.check_notation(g, legal)
        watch = self.check_clone(g, legal, d)
        self.check_json(g, legal, d)
        self.check_pickle(g, legal, d)
        self.check_views(g, legal)
        self.check_determinized(g, legal)
        self.check_twins(g, legal)
        if self.on("perft"):
            self.expect(g.perft(0) == 1, "perft(0) is not 1")
            self.expect(g.perft(1) == (len(legal) if legal else 1),
                        "perft(1) is not the number of legal moves")
        if self.on("text"):
            for viewer in (None, 0):
                text = g.render(viewer)
                self.expect(isinstance(text, str) and text, "render() gave no text")
            text = repr(g)
            who = f"seat {g.to_move} to move" if legal else "game over"
            self.expect(type(g).__name__ in text and f"{g.n_players} players" in text and who in text,
                        f"repr {text!r} does not name the class, the players and {who!r}")
        if legal and self.on("scoring"):
            self.refuses(g.rewards, ValueError, "rewards() before the end")
        return watch

    def keys(self, g: Any) -> List[int]:
        """Every info key of a state: each (player, observer, mode)."""
        n = g.n_players
        return [g.info_key(p, o, m) for p in range(n) for o in range(n) for m in KEY_MODES]

    def check_illegal(self, g: Any, legal: List[int], history: List[int], played: List[str],
                      d: dict, check: str) -> None:
        """Things that are no move ("illegal": notation that is no legal move, other types,
        ints out of the 32-bit range or negative) and ints that are no legal move here
        ("illegal_ints": moves legal earlier in the game, the neighbours of the legal ones)
        raise IllegalMoveError (a ValueError) and leave the state as it was."""
        if not self.on(check):
            return
        self.expect(issubclass(IllegalMoveError, ValueError), "IllegalMoveError is no ValueError")
        legal_set = set(legal)
        if check == "illegal":
            texts = {g.move_to_text(m) for m in legal}
            bad_moves = list(NOT_MOVES) + [m for m in NOT_INTS if m not in legal_set]
            bad_moves += [t for t in played[-8:] if t not in texts][:2]   # legal earlier
        else:
            bad_moves = [m for m in history[-8:] if m not in legal_set][:2]
            if legal:
                bad_moves += [m for m in (legal[0] - 1, legal[-1] + 1) if m not in legal_set]
        for bad in bad_moves:
            e = self.refuses(lambda: g.apply(bad), IllegalMoveError, f"apply({bad!r})")
            if isinstance(bad, str) and legal:
                self.expect("legal:" in str(e), f"the refusal of {bad!r} does not list the legal moves")
        if check == "illegal":
            for bad in ("no-such-move", 7, None):
                self.refuses(lambda: g.parse_move(bad), IllegalMoveError, f"parse_move({bad!r})")
        self.expect(g.to_json() == d, "an illegal move changed the state")
        self.expect(g.legal_moves() == legal, "an illegal move changed the legal moves")

    def check_notation(self, g: Any, legal: List[int]) -> None:
        """Every legal move has its own text, one token, that parse_move turns back into it."""
        if not legal or not self.on("notation"):
            return
        texts = [g.move_to_text(m) for m in legal]
        self.expect(all(isinstance(t, str) and t and t.split() == [t] for t in texts),
                    f"a move's text is not one token: {[t for t in texts if t.split() != [t]][:3]}")
        self.expect(len(set(texts)) == len(texts), "two legal moves have the same text")
        step = max(1, len(legal) // TEXTS_PARSED)
        for m, t in list(zip(legal, texts))[::step]:
            self.expect(g.parse_move(t) == m, f"parse_move({t!r}) is not {m}")
            self.expect(g.parse_move(f" {t.upper()} ") == m,
                        f"parse_move does not take {t!r} in capitals with spaces around")

    def check_clone(self, g: Any, legal: List[int], d: dict) -> Tuple[Any, dict]:
        """A clone equals its original; a move on the clone leaves the original alone, and the
        same move in notation on another clone gives the same state. Returns an untouched
        clone for the caller to compare after the original's next move."""
        keys = self.keys(g)
        untouched = g.clone()
        if not self.on("clone"):
            return untouched, d
        for c in (untouched, g.clone()):
            self.expect(c.to_json() == d, "a clone differs from its original")
            self.expect(self.keys(c) == keys and c.event_count == g.event_count,
                        "a clone has other info keys or another log")
        if legal:
            move = legal[len(legal) // 2]
            a = g.clone()
            a.apply(move)
            self.expect(g.to_json() == d and self.keys(g) == keys,
                        "a move on a clone changed the original")
            b = g.clone()
            b.apply(g.move_to_text(move))
            self.expect(a.to_json() == b.to_json(), "a move and its notation give different states")
        return untouched, d

    def check_json(self, g: Any, legal: List[int], d: dict) -> None:
        """from_json(to_json()), through JSON text, is the same position: the same JSON, legal
        moves and every seat's view. Info keys are not in the JSON: a loaded state derives
        them from it, so two loads of one JSON give the same keys (checked at one deep state in
        THOROUGH)."""
        if not self.on("json"):
            return
        text = json.dumps(d)
        h = self.cls.from_json(json.loads(text))
        self.expect(h.to_json() == d, "from_json(to_json()) writes another state")
        self.expect(h.legal_moves() == legal, "from_json(to_json()) has other legal moves")
        for seat in range(g.n_players):
            self.expect(h.to_json(view=seat) == g.to_json(view=seat),
                        f"from_json(to_json()) shows seat {seat} another view (lost knowledge)")
        if self.thorough:
            again = self.cls.from_json(json.loads(text))
            self.expect(self.keys(again) == self.keys(h), "two loads of one JSON state have other keys")

    def check_pickle(self, g: Any, legal: List[int], d: dict) -> None:
        """A pickled state is the same state: JSON, legal moves, info keys and log."""
        if not self.on("pickle"):
            return
        p = pickle.loads(pickle.dumps(g))
        self.expect(type(p) is type(g), f"unpickled as {type(p).__name__}")
        self.expect(p.to_json() == d and p.legal_moves() == legal, "the pickle round trip changed the state")
        self.expect(self.keys(p) == self.keys(g), "the pickle round trip changed the info keys")
        self.expect(p.event_count == g.event_count and p.events() == g.events(),
                    "the pickle round trip changed the narration log")

    def check_views(self, g: Any, legal: List[int]) -> None:
        """While the game is on ("views"): the seat to move's view, through JSON text, loads
        with from_view into a valid state with the same view, the same legal moves, the same
        determinizations (the seed aside) and keys that its determinizations keep; a second
        load gives the same keys and another seat's view is refused (IllegalPositionError; both
        at one deep state in THOROUGH).
        Once it is over ("end_views"): every seat's view loads, scoring the same game."""
        n = g.n_players
        if legal:
            if not self.on("views"):
                return
            if self.thorough:
                other = (g.to_move + 1 + self.report.deep_states % (n - 1)) % n
                self.refuses(lambda: self.cls.from_view(g.to_json(view=other)), IllegalPositionError,
                             f"from_view of seat {other}'s view", match=f"seat {g.to_move} is to move")
            st = self.load_view(g, g.to_move, legal)
            for s in range(1, self.samples + 1):
                a, b = g.determinized(g.to_move, s).to_json(), st.determinized(g.to_move, s)
                _assert_keys_kept(st, b, g.to_move, f"from_view, seed {s}")
                b = b.to_json()
                a.pop("seed", None), b.pop("seed", None)
                self.expect(a == b, f"the state from seat {g.to_move}'s view deals another world "
                                    f"for determinization seed {s}")
        elif self.on("end_views"):
            for seat in range(n):
                st = self.load_view(g, seat, legal)
                self.expect((st.scores(), st.rank_keys(), st.ranking(), st.rewards()) ==
                            (g.scores(), g.rank_keys(), g.ranking(), g.rewards()),
                            f"seat {seat}'s view of the end scores another game")

    def load_view(self, g: Any, seat: int, legal: List[int]) -> Any:
        """The state from_view builds from seat's view sent as JSON text, checked: valid, the
        same view, the same legal moves, the same keys when loaded twice."""
        view = g.to_json(view=seat)
        text = json.dumps(view)
        st = self.cls.from_view(json.loads(text))
        st.check_invariants()
        self.expect(st.to_json(view=seat) == view, f"from_view shows seat {seat} another view")
        self.expect(st.legal_moves() == legal, "from_view has other legal moves")
        if self.thorough:
            again = self.cls.from_view(json.loads(text))
            self.expect(self.keys(again) == self.keys(st),
                        f"two loads of seat {seat}'s view have other keys")
        return st

    def check_determinized(self, g: Any, legal: List[int]) -> None:
        """For every observer: determinizations keep what it knows
        (check_samples_keep_the_observers_knowledge; the same legal moves when it is to move,
        or always with public_moves), and they depend only on what it knows: determinizing a
        twin world (another determinization for it) with the same seed gives the same world,
        and a world's narration log starts empty."""
        if not self.on("determinize"):
            return
        check_samples_keep_the_observers_knowledge(g, self.samples,
                                                   "always" if self.public_moves else "mover")
        for o in range(g.n_players):
            twin = g.determinized(o, TWIN_SEED)
            self.expect(twin.events() == [],
                        f"a determinization for seat {o} keeps the true game's narration log "
                        "(its entries may name hidden cards)")
            for s in range(self.samples):
                self.expect(twin.determinized(o, s).to_json() == g.determinized(o, s).to_json(),
                            f"a determinization for seat {o} depends on what it cannot see "
                            f"(seed {s}: a twin world gives another sample)")

    def check_twins(self, g: Any, legal: List[int]) -> None:
        """For every observer o, a move legal both in g and in a twin world of o (a
        determinization for o): where o's view and what o is told of the move agree
        afterwards, so do the keys a search for o reads. Keys that differ there would let
        a search's statistics depend on what o cannot see (a random theft's hidden pick,
        in Khan, until a rules audit found it)."""
        if not legal or not self.on("twins"):
            return
        step = max(1, len(legal) // TWIN_MOVES)
        for o in range(g.n_players):
            twin = g.determinized(o, TWIN_SEED)
            twin_legal = set(twin.legal_moves())
            for move in legal[::step]:
                if move not in twin_legal:
                    continue
                after, twin_after = g.clone(), twin.clone()
                after.apply(move)
                twin_after.apply(move)
                if (after.is_terminal() or after.to_json(view=o) != twin_after.to_json(view=o)
                        or after.narrate(g, g.to_move, move, o) !=
                        twin_after.narrate(twin, g.to_move, move, o)):
                    continue
                self.expect(_keys_read(after, o) == _keys_read(twin_after, o),
                            f"{g.move_to_text(move)} played in a twin world of seat {o}: "
                            "the same view and account, other keys")

    def check_text(self, g: Any, before: Any, mover: int, move: int) -> None:
        """narrate tells the move as lines of text, to a spectator and to every seat."""
        if not self.on("text"):
            return
        for viewer in [None] + list(range(g.n_players)):
            lines = g.narrate(before, mover, move, viewer)
            self.expect(isinstance(lines, list) and all(isinstance(x, str) for x in lines),
                        f"narrate(viewer={viewer}) is not a list of lines")


def check_game(cls: type, players: Optional[int | Iterable[int]] = None, *, games: int = 10,
               deep_games: int = 2, seed: int = 0, every: int = 12, samples: int = 2,
               move_cap: int = MOVE_CAP, move_bound: int = MAX_MOVES,
               skip: Collection[str] = (), public_moves: bool = False,
               on_state: Optional[Callable[[Any], None]] = None,
               on_end: Optional[Callable[[Any], Any]] = None) -> ConformanceReport:
    """Check that the game class `cls` keeps every promise a game makes the engine.

    players: a player count, several, or None for every count from cls.min_players to
        cls.max_players.
    games: random games played to the end per player count, the i-th dealt from seed + i
        with moves drawn from a generator seeded by (game, count, seed + i). Every state of
        every game gets the cheap checks (invariants, legal moves, narration log).
    deep_games: how many of those games (the first ones) also get every other check at every
        `every`-th state (from a random offset) and at their end: illegal moves, notation,
        clones, JSON and pickle round trips, views, determinizations (`samples` seeds per
        observer), perft, render and narrate, and a replay from the seed.
    move_cap: a game longer than this fails (it would never end).
    move_bound: the most legal moves a state may have (MAX_MOVES, the buffer; a game's own
        tighter bound if given).
    skip: names from CHECKS to leave out (a game under repair; say why where it is used).
    public_moves: the legal moves never depend on hidden information, so every observer's
        determinizations have the same legal moves (not only the seat to move's).
    on_state, on_end: game-specific checks called with every state reached and with every
        finished game; an exception from them fails like the suite's own checks.

    Returns a ConformanceReport (for coverage assertions); raises AssertionError naming the
    game, player count, seed and ply at the first failure.
    """
    unknown = set(skip) - set(CHECKS)
    if unknown:
        raise ValueError(f"unknown checks to skip: {sorted(unknown)} (known: {', '.join(CHECKS)})")
    if players is None:
        counts: Tuple[int, ...] = tuple(range(cls.min_players, cls.max_players + 1))
    elif isinstance(players, int):
        counts = (players,)
    else:
        counts = tuple(players)
    if not counts or games < 1 or every < 1 or not 0 <= deep_games <= games:
        raise ValueError("check_game needs player counts, games >= 1, every >= 1 and "
                         "0 <= deep_games <= games")
    report = ConformanceReport(game=cls.name, players=counts, skipped=tuple(sorted(skip)))
    checker = _Checker(cls, report, samples=samples, every=every, move_cap=move_cap,
                       move_bound=move_bound, skip=skip, public_moves=public_moves,
                       on_state=on_state, on_end=on_end)
    try:
        checker.check_setup(counts, seed)
        for n in counts:
            for i in range(games):
                rng = random.Random(f"{cls.name}:{n}:{seed + i}")
                checker.play(n, seed + i, rng, deep=i < deep_games)
    except AssertionError as e:
        if str(e).startswith(f"{checker.where}: "):
            raise
        raise AssertionError(f"{checker.where}: {e}") from e     # a caller's check, placed
    except Exception as e:                      # noqa: BLE001 - the game's own error, placed
        raise AssertionError(f"{checker.where}: {type(e).__name__}: {e}") from e
    return report


def check_samples_keep_the_observers_knowledge(g: Any, samples: int,
                                               same_moves: Optional[str] = None) -> None:
    """For every observer o and the seeds 0 to `samples` - 1, g.determinized(o, seed) is a
    valid state that o cannot tell from g: the same view, the same own keys in both modes,
    the same keys shared with every player. same_moves: "always" (the legal moves never
    depend on hidden information), "mover" (they match when o is to move) or None (not
    checked). AssertionError otherwise. check_game runs it at the states it checks deeply."""
    for o in range(g.n_players):
        view = g.to_json(view=o)
        for seed in range(samples):
            d = g.determinized(o, seed)
            d.check_invariants()
            where = f"determinized for seat {o}, seed {seed}"
            assert d.to_json(view=o) == view, f"{where}: another view"
            if same_moves == "always" or (same_moves == "mover" and g.to_move == o):
                assert d.legal_moves() == g.legal_moves(), f"{where}: other legal moves"
            _assert_keys_kept(g, d, o, where)


def _keys_read(g: Any, o: int) -> List[int]:
    """The keys a search for o reads: its own in both modes and those it shares with each
    seat (another seat's own `mo` key is that seat's knowledge, not o's)."""
    return ([g.info_key(o, o, mode) for mode in KEY_MODES] +
            [g.info_key(a, o, "so") for a in range(g.n_players)])


def _assert_keys_kept(g: Any, d: Any, o: int, where: str) -> None:
    """d, a determinization of g for o, gives o the same keys: its own in both modes and the
    ones it shares with every player."""
    names = [f"its own {mode} key" for mode in KEY_MODES] + \
        [f"the key it shares with seat {a}" for a in range(g.n_players)]
    for name, before, after in zip(names, _keys_read(g, o), _keys_read(d, o)):
        assert after == before, f"{where}: {name} changed"
