"""Information-set MCTS: the Python entry point around the Cython loop in cext/ismcts.pyx."""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Callable, List, Optional

from cext.core import GameCore
from cext.ismcts import Tree

DEFAULT_C = 0.7
DEFAULT_MAX_NODES = 200_000
# Half of the reward is the score margin: at 1,000 iterations, against the win share alone,
# it gained or was even in every game and player count measured (docs/architecture.md,
# "Score weight").
DEFAULT_SCORE_WEIGHT = 0.5
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


def check_score_weight(score_weight: float) -> float:
    """`score_weight` as a float; ValueError unless it lies in [0, 1]."""
    if not isinstance(score_weight, (int, float)) or not 0.0 <= score_weight <= 1.0:
        raise ValueError(f"score_weight must be between 0 and 1, not {score_weight!r}")
    return float(score_weight)


def make_tree(state: GameCore, player: int, seed: int, c: float, mode: str,
              max_nodes: int, determinize: bool = True,
              score_weight: float = DEFAULT_SCORE_WEIGHT) -> Tree:
    """A search tree; with determinize=False the root state is searched as it is (perfect
    information: only for a state that is already a sample, or for the cheat agent).
    `score_weight` mixes the score margin into the reward."""
    return Tree(state, player, seed, c, mode, max_nodes, True, determinize,
                check_score_weight(score_weight))


def run_tree(tree: Tree, iterations: int, seconds: float, stop: Optional[threading.Event],
             progress: Optional[Callable[[Tree, float], None]], progress_every: float) -> float:
    """Run `tree` in short chunks until the budget is spent or `stop` is set; returns seconds.

    No budget at all (iterations == seconds == 0) means: until `stop` is set.
    """
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
            progress(tree, time.perf_counter() - t0)
            next_report += progress_every
        if not iterations and not seconds and stop is None:
            break  # pragma: no cover - guarded by search()
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


def search(state: GameCore, *, player: Optional[int] = None, iterations: int = 0,
           seconds: float = 0.0, seed: int = 0, c: float = DEFAULT_C, mode: str = "so",
           max_nodes: int = DEFAULT_MAX_NODES, stop: Optional[threading.Event] = None,
           progress: Optional[Callable[[Tree, float], None]] = None,
           progress_every: float = 1.0, determinize: bool = True,
           score_weight: float = DEFAULT_SCORE_WEIGHT) -> SearchResult:
    """Search `state` for the player to move, seeing only that player's information.

    The budget is `iterations`, `seconds` of wall time, or both (whichever ends first); with
    an iteration budget the result is reproducible for a given `seed`. With neither, the
    search runs until `stop` (a threading.Event) is set. `mode` picks the node keying: "so"
    (opponents decide from what they share with the searcher) or "mo" (every player's nodes
    keyed by its full information set). `progress(tree, elapsed)` is called about every
    `progress_every` seconds. `score_weight` w in [0, 1] makes each player's reward
    (1 - w) x its win share + w x its squashed score margin, a steadier signal where single moves barely move the win rate.
    Returns the most visited root move and the statistics of every
    root move, most visited first.
    """
    if iterations < 0 or seconds < 0:
        raise ValueError("budgets must be positive")
    if iterations == 0 and seconds == 0 and stop is None:
        raise ValueError("give a budget: iterations > 0 or seconds > 0")
    to_move = state.to_move
    if player is None:
        player = to_move
    if player != to_move:
        raise ValueError(f"player {player} is not to move (player {to_move} is)")
    tree = make_tree(state, player, seed, c, mode, max_nodes, determinize, score_weight)
    elapsed = run_tree(tree, iterations, seconds, stop, progress, progress_every)
    return collect(state, tree, elapsed)
