"""Information-set MCTS: the Python entry point around the Cython loop in cext/ismcts.pyx."""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Callable, List, Optional, Union

from cext.core import GameCore
from cext.ismcts import Tree
from search.config import Budget, SearchConfig, from_keywords

# progress(iterations, nodes, seconds): how far a running search has come
Progress = Callable[[int, int, float], None]

CHUNK_ITERATIONS = 256       # the loop returns to Python this often: stop and progress checks
CHUNK_SECONDS = 0.02


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

    @property
    def iterations_per_second(self) -> float:
        return self.iterations / self.seconds if self.seconds > 0 else 0.0


def new_tree(state: GameCore, player: int, config: SearchConfig, seed: int) -> Tree:
    """The search tree of `player` (who must be to move) at `state`, seeded with `seed`:
    the one place a Tree is made."""
    return Tree(state, player, seed, config.c, config.mode, config.max_nodes, True,
                config.determinize, config.score_weight, config.playout == "policy")


def check_search(state: GameCore, budget: Budget, player: Optional[int],
                 stop: Optional[object]) -> int:
    """The searching player (the one to move, unless `player` says otherwise and is wrong:
    ValueError); ValueError too for a budget without a limit and no `stop` to end it."""
    if budget.unlimited and stop is None:
        raise ValueError("give a budget: iterations > 0 or seconds > 0")
    to_move = state.to_move
    if player is not None and player != to_move:
        raise ValueError(f"player {player} is not to move (player {to_move} is)")
    return to_move


def run_tree(tree: Tree, budget: Budget, stop: Optional[threading.Event] = None,
             progress: Optional[Progress] = None, progress_every: float = 1.0) -> float:
    """Run `tree` in short chunks until the budget is spent or `stop` is set; returns seconds.

    No limit in the budget means: until `stop` is set (anything with an is_set() method).
    """
    iterations, seconds = budget.iterations, budget.seconds
    t0 = time.perf_counter()
    next_report = progress_every
    while True:
        left = iterations - tree.iterations if iterations else CHUNK_ITERATIONS
        elapsed = time.perf_counter() - t0
        if (iterations and left <= 0) or (seconds and elapsed >= seconds):
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


def collect(state: GameCore, tree: Tree, elapsed: float) -> SearchResult:
    """The result of a finished tree: moves ranked by visits."""
    outcomes = tree.root_outcomes()
    stats = []
    for m, v, r, a in tree.root_stats():
        score_sum, win_sum = outcomes.get(m, (0.0, 0.0))
        stats.append(MoveStats(m, state.move_to_text(m), v, r, a,
                               win_sum / v if v else 0.0, score_sum / v if v else 0.0))
    stats.sort(key=lambda s: (-s.visits, -s.mean_reward, s.move))
    best = stats[0].move if stats else state.legal_moves()[0]
    return SearchResult(tree.player, best, state.move_to_text(best), tree.iterations, elapsed,
                        tree.n_nodes, tree.full, tree.tree_moves / max(1, tree.iterations), stats)


def search(state: GameCore, budget: Union[Budget, int, float, None] = None,
           config: Optional[SearchConfig] = None, *, seed: int = 0,
           player: Optional[int] = None, stop: Optional[threading.Event] = None,
           progress: Optional[Progress] = None, progress_every: float = 1.0,
           **fields: object) -> SearchResult:
    """Search `state` for the player to move, seeing only that player's information.

    `budget` (search.config.Budget; an int is iterations, a float seconds) says when to
    stop: with an iteration limit alone the result is reproducible for a given `seed`.
    Without a limit the search runs until `stop` (a threading.Event) is set. `config`
    (search.config.SearchConfig, the defaults when None) says how to search. `player`, when
    given, must be the player to move. `progress(iterations, nodes, seconds)` is called
    about every `progress_every` seconds. The fields of the budget and the configuration
    may also be given as keywords (`iterations=400, mode="mo"`) instead of the objects.

    Returns the most visited root move and the statistics of every root move, most visited
    first.
    """
    budget, config = from_keywords(budget, config, fields, "search")
    player = check_search(state, budget, player, stop)
    tree = new_tree(state, player, config, seed)
    elapsed = run_tree(tree, budget, stop, progress, progress_every)
    return collect(state, tree, elapsed)
