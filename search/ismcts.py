"""Information-set MCTS: the Python entry points around the Cython loop in cext/ismcts.pyx.

search() runs one search on a new tree. A Searcher runs the searches of one player through
one game and keeps its tree from one decision to the next (tree reuse): the nodes are keyed
by information sets, so what a search learned below the position the game reaches next is
still valid there.
"""
from __future__ import annotations

import math
import random
import threading
import time
from dataclasses import dataclass, field, replace
from typing import Callable, Collection, Dict, List, NamedTuple, Optional, Sequence, Tuple, Union

from cext.core import GameCore
from cext.ismcts import Tree
from engine.validation import quoted
from search.config import (SEED_SPACE, Budget, SearchConfig, check_seed, from_keywords,
                           skill_temperature)

# progress(iterations, nodes, seconds): how far a running search has come
Progress = Callable[[int, int, float], None]
# live(result): the statistics of a running search so far (its moves ranked as at the end)
Live = Callable[["SearchResult"], None]

CHUNK_ITERATIONS = 256       # the loop returns to Python this often: stop and progress checks
CHUNK_SECONDS = 0.02


# The expected line after a candidate move (MoveStats.line): followed through this many
# worlds of the searcher's information, for at most LINE_MOST decisions, while the step
# chosen has at least LINE_LEAST_VISITS visits a world; for the LINE_MOVES best moves.
LINE_WORLDS = 16
LINE_MOST = 8
LINE_LEAST_VISITS = 10
LINE_MOVES = 8


class LineStep(NamedTuple):
    """One decision of an expected line: the seat that makes it and its move."""

    seat: int
    move: int
    text: str


@dataclass(frozen=True)
class MoveStats:
    """Root statistics of one candidate move of the searching player.

    mean_reward is the mean search reward (the win share: 1 for a win, 1/k for a win shared
    by k, 0 otherwise, mixed with the score margin when the search has a score weight);
    win_probability is the mean win share alone; expected_score is the mean final score of the searcher in the playouts that began with
    this move.
    """

    move: int
    text: str
    visits: int
    mean_reward: float
    availability: int
    win_probability: float = 0.0
    expected_score: float = 0.0
    line: Tuple[LineStep, ...] = ()
    """The decisions the search expects after this move (the principal variation), see
    expected_line; empty past the LINE_MOVES best moves, and unless the search was asked
    for lines (`lines=True`: they cost up to a few hundredths of a second)."""


@dataclass
class SearchResult:
    """The chosen move and what the search saw at the root."""

    player: int
    move: int
    text: str
    iterations: int
    seconds: float
    nodes: int
    tree_full: bool
    moves_in_tree: float
    stats: List[MoveStats] = field(default_factory=list)
    carried: int = 0
    """Visits of the root that earlier searches left in a kept tree (Searcher); 0 for a new
    tree. The stats' visits and mean rewards include them; `iterations`, win_probability
    and expected_score are this search's alone."""

    @property
    def iterations_per_second(self) -> float:
        return self.iterations / self.seconds if self.seconds > 0 else 0.0


def skill_move(result: SearchResult, skill: int, seed: int) -> int:
    """The move a player of level `skill` (search.config.MAX_SKILL: full strength) makes
    from `result`: at full strength the search's own; below, one drawn with chances as its
    visits to the power 1 / skill_temperature(skill), from a generator seeded with `seed`
    (reproducible). Moves the search never tried are never drawn."""
    temperature = skill_temperature(skill)
    tried = [s for s in result.stats if s.visits > 0]
    if temperature == 0 or len(tried) < 2:
        return result.move
    most = max(s.visits for s in tried)
    weights = [math.exp((math.log(s.visits) - math.log(most)) / temperature) for s in tried]
    return random.Random(seed % SEED_SPACE).choices(tried, weights)[0].move


def root_moves_of(state: GameCore, searchmoves: Optional[Sequence[Union[int, str]]]
                  ) -> Optional[List[int]]:
    """The moves a search restricted by `searchmoves` considers at `state` (UCI's
    searchmoves): legal moves of the seat to move, as ints or in notation, at least one and
    each once (None: every legal move). ValueError for anything else."""
    if searchmoves is None:
        return None
    if isinstance(searchmoves, (str, bytes)) or not isinstance(searchmoves, (list, tuple)):
        raise ValueError(f"searchmoves is a list of moves, not {quoted(searchmoves)}")
    if not searchmoves:
        raise ValueError("searchmoves needs at least one move")
    legal = state.legal_moves()
    if len(searchmoves) > len(legal):
        raise ValueError(f"searchmoves names {len(searchmoves)} moves; seat {state.to_move} "
                         f"has {len(legal)}")
    moves = []
    for m in searchmoves:
        move = state.parse_move(m) if isinstance(m, str) else check_move(m)
        if move not in legal:
            raise ValueError(f"searchmoves: {quoted(m)} is not a legal move of seat "
                             f"{state.to_move}")
        if move in moves:
            raise ValueError(f"searchmoves names {quoted(m)} twice")
        moves.append(move)
    return moves


def check_move(m: object) -> int:
    """A move given as a number: an int (not a bool)."""
    if isinstance(m, bool) or not isinstance(m, int):
        raise ValueError(f"a move is an int or its notation, not {quoted(m)}")
    return m


def new_tree(state: GameCore, player: int, config: SearchConfig, seed: int) -> Tree:
    """The search tree of `player` (who must be to move) at `state`, seeded with `seed`:
    the one place a Tree is made."""
    return Tree(state, player, seed, config.c, config.mode, config.max_nodes, True,
                config.determinize, config.score_weight, config.playout == "policy",
                opponent_policy=config.opponents == "policy", group_moves=config.groups)


def check_search(state: GameCore, budget: Budget, player: Optional[int],
                 stop: Optional[object], seed: Optional[object], lines: object = False,
                 live: object = None) -> int:
    """The searching player (the one to move, unless `player` says otherwise and is wrong:
    ValueError); ValueError too for a budget without a limit and no `stop` to end it, a
    `stop` without is_set(), a seed that is not an integer (None: the caller derives
    one), `lines` that is not True or False and a `live` that is not a function."""
    if not isinstance(lines, bool):
        raise ValueError(f"lines is True or False, not {quoted(lines)}")
    if live is not None and not callable(live):
        raise ValueError(f"live is a function of a SearchResult, not {quoted(live)}")
    if stop is not None and not callable(getattr(stop, "is_set", None)):
        raise ValueError(f"stop must be a threading.Event (anything with is_set()), "
                         f"not {quoted(stop)}")
    if budget.unlimited and stop is None:
        raise ValueError("give a budget: iterations > 0 or seconds > 0")
    if seed is not None:
        check_seed(seed)
    to_move = state.to_move
    if player is not None and player != to_move:
        raise ValueError(f"player {player} is not to move (player {to_move} is)")
    return to_move


def run_tree(tree: Tree, budget: Budget, stop: Optional[threading.Event] = None,
             progress: Optional[Progress] = None, progress_every: float = 1.0) -> float:
    """Run `tree` in short chunks until the budget is spent or `stop` is set; returns seconds.

    No limit in the budget means: until `stop` is set (anything with an is_set() method).
    A time budget, however short, runs at least one chunk: only `stop` ends a search before
    its first iteration, so every search that was not stopped has a move to answer.
    """
    iterations, seconds = budget.iterations, budget.seconds
    t0 = time.perf_counter()
    next_report = progress_every
    started_at = tree.iterations
    while True:
        left = iterations - tree.iterations if iterations else CHUNK_ITERATIONS
        elapsed = time.perf_counter() - t0
        out_of_time = seconds and elapsed >= seconds and tree.iterations > started_at
        if (iterations and left <= 0) or out_of_time:
            break
        if stop is not None and stop.is_set():
            break
        chunk_time = CHUNK_SECONDS if not seconds else max(1e-4, min(CHUNK_SECONDS, seconds - elapsed))
        tree.run(min(left, CHUNK_ITERATIONS), chunk_time)
        if progress is not None and time.perf_counter() - t0 >= next_report:
            progress(tree.iterations, tree.n_nodes, time.perf_counter() - t0)
            next_report += progress_every
        if budget.unlimited and stop is None:
            break  # pragma: no cover - guarded by check_search()
    return time.perf_counter() - t0


def expected_line(worlds: List[GameCore], tree: Tree, move: int) -> Tuple[LineStep, ...]:
    """The decisions `tree`'s search expects after its player plays `move`, followed in
    `worlds`: positions the searcher can imagine (imagined_worlds), which are played on.

    At each step every world asks the tree for the node of the seat to move there; the
    (seat, move) with the most visits summed over the worlds (a move legal in at least one
    of them) is the next step, played in the worlds where that seat is to move and the move
    is legal (the others drop out). Forced moves are played without a step. The line ends
    after LINE_MOST steps, at the end of the game, or where the next step would have fewer
    than LINE_LEAST_VISITS visits a world (the search knows too little past there)."""
    for world in worlds:
        world.apply(move)
    line: List[LineStep] = []
    while len(line) < LINE_MOST and worlds:
        least = LINE_LEAST_VISITS * len(worlds)
        at_node: Dict[Tuple[int, int], List[GameCore]] = {}
        for world in worlds:
            play_forced_moves(world)
            node = tree.node_at(world)
            if node >= 0:
                at_node.setdefault((world.to_move, node), []).append(world)
        visits: Dict[Tuple[int, int], int] = {}
        for (seat, node), sharing in at_node.items():
            for m, v, _, _ in tree.node_stats(node):
                visits[seat, m] = visits.get((seat, m), 0) + v * len(sharing)
        ranked = sorted((-count, seat, step) for (seat, step), count in visits.items()
                        if count >= least)
        worlds = []
        for _, seat, step in ranked:
            worlds = [w for (s, _), sharing in at_node.items() if s == seat
                      for w in sharing if step in w.legal_moves()]
            if worlds:
                line.append(LineStep(seat, step, worlds[0].move_to_text(step)))
                for world in worlds:
                    world.apply(step)
                break
    return tuple(line)


def expected_lines(state: GameCore, tree: Tree,
                   moves: List[int]) -> Dict[int, Tuple[LineStep, ...]]:
    """expected_line of each of `moves` (root moves of `tree`, searched from `state`), all
    followed in the same imagined worlds."""
    worlds = imagined_worlds(state, tree.player) if moves else []
    return {m: expected_line([w.clone() for w in worlds], tree, m) for m in moves}


def imagined_worlds(state: GameCore, player: int) -> List[GameCore]:
    """LINE_WORLDS determinizations of `player`'s information at `state`, seeded 0, 1, ...:
    what an expected line is followed in, so it depends on nothing `player` cannot see."""
    return [state.determinized(player, k) for k in range(LINE_WORLDS)]


def play_forced_moves(world: GameCore) -> None:
    """Play `world` on while its seat to move has one legal move (the tree makes no node)."""
    while not world.is_terminal():
        moves = world.legal_moves()
        if len(moves) != 1:
            return
        world.apply(moves[0])


def unmeasured_stats(state: GameCore, root_moves: Optional[Collection[int]] = None
                     ) -> List[MoveStats]:
    """The candidates of a search stopped before its first iteration: its root moves (None:
    every legal move) with 0 visits, in legal order (the first is its choice)."""
    return [MoveStats(m, state.move_to_text(m), 0, 0.0, 0)
            for m in state.legal_moves() if root_moves is None or m in root_moves]


def collect(state: GameCore, tree: Tree, elapsed: float, lines: bool = False) -> SearchResult:
    """The result of a finished tree: moves ranked by visits, with `lines` the best with
    their expected lines. A tree stopped before its first iteration measured nothing: its
    root moves (those restrict_root left) then come with 0 visits in legal order, the first
    legal one the choice, so that every caller has its candidates to show."""
    outcomes = tree.root_outcomes()
    stats = []
    for m, v, r, a in tree.root_stats():
        score_sum, win_sum, n = outcomes.get(m, (0.0, 0.0, 0))
        stats.append(MoveStats(m, state.move_to_text(m), v, r, a,
                               win_sum / n if n else 0.0, score_sum / n if n else 0.0))
    stats.sort(key=lambda s: (-s.visits, -s.mean_reward, s.move))
    if not stats:
        stats = unmeasured_stats(state, outcomes)
    if lines:
        expected = expected_lines(state, tree, [s.move for s in stats[:LINE_MOVES]])
        stats[:LINE_MOVES] = [replace(s, line=expected[s.move]) for s in stats[:LINE_MOVES]]
    best = stats[0].move
    return SearchResult(tree.player, best, state.move_to_text(best), tree.iterations, elapsed,
                        tree.n_nodes, tree.full, tree.tree_moves / max(1, tree.iterations), stats)


def search(state: GameCore, budget: Union[Budget, int, float, None] = None,
           config: Optional[SearchConfig] = None, *, seed: int = 0,
           player: Optional[int] = None, stop: Optional[threading.Event] = None,
           progress: Optional[Progress] = None, progress_every: float = 1.0,
           lines: bool = False, searchmoves: Optional[Sequence[Union[int, str]]] = None,
           live: Optional[Live] = None, **fields: object) -> SearchResult:
    """Search `state` for the player to move, seeing only that player's information.

    `budget` (search.config.Budget; an int is iterations, a float seconds) says when to
    stop: with an iteration limit alone the result is reproducible for a given `seed`.
    Without a limit the search runs until `stop` (a threading.Event) is set. `config`
    (search.config.SearchConfig; None: the game's tuned one, search.config.game_config)
    says how to search. `player`, when given, must be the player to move.
    `progress(iterations, nodes, seconds)` is called about every `progress_every` seconds.
    The fields of the budget and the configuration may also be given as keywords
    (`iterations=400, mode="mo"`: the game's configuration with that field changed).

    Returns the most visited root move and the statistics of every root move, most visited
    first; with `lines`, the LINE_MOVES best with their expected lines (MoveStats.line).
    `searchmoves` (moves as ints or in notation) restricts the root to those moves (UCI's
    searchmoves: what would the search make of these?). `live(result)`, when given, is
    called about every `progress_every` seconds (after `progress`) with the statistics so
    far, ranked as the final ones (no lines): for a front end that shows the search thinking.
    """
    budget, config = from_keywords(budget, config, fields, "search", state)
    player = check_search(state, budget, player, stop, seed, lines, live)
    only = root_moves_of(state, searchmoves)
    tree = new_tree(state, player, config, seed)
    if only is not None:
        tree.restrict_root(only)
    elapsed = run_tree(tree, budget, stop, with_live(progress, live, state, tree),
                       progress_every)
    return collect(state, tree, elapsed, lines)


def with_live(progress: Optional[Progress], live: Optional[Live], state: GameCore,
              tree: Tree) -> Optional[Progress]:
    """The progress callback of a search whose `live` callback also gets the statistics so
    far (`progress` alone when there is no `live`; check_search has checked both)."""
    if live is None:
        return progress

    def report(iterations: int, nodes: int, seconds: float) -> None:
        if progress is not None:
            progress(iterations, nodes, seconds)
        live(collect(state, tree, seconds))
    return report


class Searcher:
    """The searches of one player through one game, keeping the tree between them.

    Each search re-roots the tree of the previous one at the new position
    (cext.ismcts.Tree.reroot: nodes the new root can never reach and nodes the last search
    did not pass through are evicted, within max_nodes) and begins with the statistics kept
    below it. It starts from a new tree, exactly as search() with the same arguments would,
    when nothing carries over: the first search, another game or player count, another
    player to move, another configuration, or a position whose node the tree does not hold.

    `config` (None: search()'s default) and `player` (None: whoever is to move) hold for
    every search unless a search says otherwise; search number k is seeded with
    seed * 1_000_003 + k unless given a seed, as the agents seed their searches.
    """

    def __init__(self, config: Optional[SearchConfig] = None, seed: int = 0,
                 player: Optional[int] = None) -> None:
        check_seed(seed)
        self.config = config
        self.seed = seed
        self.player = player
        self.tree: Optional[Tree] = None
        self.searches = 0             # searches run
        self.reused = 0               # of which began with statistics kept from earlier ones
        self._made_for: tuple = ()    # (game class, players, player, config) of self.tree

    def search(self, state: GameCore, budget: Union[Budget, int, float, None] = None,
               config: Optional[SearchConfig] = None, *, seed: Optional[int] = None,
               stop: Optional[threading.Event] = None, progress: Optional[Progress] = None,
               progress_every: float = 1.0, lines: bool = False,
               searchmoves: Optional[Sequence[Union[int, str]]] = None) -> SearchResult:
        """As search.ismcts.search, on the kept tree when it holds the position."""
        budget, config = from_keywords(budget, config or self.config, {}, "search", state)
        player = check_search(state, budget, self.player, stop, seed, lines)
        only = root_moves_of(state, searchmoves)
        self.searches += 1
        if seed is None:
            seed = self.seed * 1_000_003 + self.searches
        tree = self.tree_for(state, player, config, seed)
        if only is not None:
            tree.restrict_root(only)
        carried = tree.carried()
        elapsed = run_tree(tree, budget, stop, progress, progress_every)
        result = collect(state, tree, elapsed, lines)
        result.carried = carried
        return result

    def tree_for(self, state: GameCore, player: int, config: SearchConfig, seed: int) -> Tree:
        """The tree for a search of `state` by `player`: the kept one re-rooted there when
        it holds the position's node, else a new one (then kept)."""
        made_for = (type(state), state.n_players, player, config)
        tree = self.tree
        if tree is not None and made_for == self._made_for and tree.visits_at(state) > 0:
            tree.reroot(state, seed)
            self.reused += 1
            return tree
        self.tree = None              # the old tree's memory goes before the new one's comes
        self.tree = new_tree(state, player, config, seed)
        self._made_for = made_for
        return self.tree

    def forget(self) -> None:
        """Drop the kept tree (its memory too): the next search starts from a new one."""
        self.tree = None
        self._made_for = ()
