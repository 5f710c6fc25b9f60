"""Information-set MCTS: the Python entry point around the Cython loop in cext/ismcts.pyx."""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import List, Optional

from cext.core import GameCore
from cext.ismcts import Tree

DEFAULT_C = 0.7
DEFAULT_MAX_NODES = 200_000


@dataclass(frozen=True)
class MoveStats:
    """Root statistics of one candidate move."""

    move: int
    text: str
    visits: int
    mean_reward: float
    availability: int


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


def search(state: GameCore, *, player: Optional[int] = None, iterations: int = 0,
           seconds: float = 0.0, seed: int = 0, c: float = DEFAULT_C, mode: str = "so",
           max_nodes: int = DEFAULT_MAX_NODES) -> SearchResult:
    """Search `state` for the player to move, seeing only that player's information.

    The budget is `iterations`, `seconds` of wall time, or both (whichever ends first); with
    an iteration budget the result is reproducible for a given `seed`. `mode` picks the node
    keying: "so" (opponents decide from what they share with the searcher) or "mo" (every
    player's nodes keyed by its full information set). Returns the most visited root move and
    the statistics of every root move, most visited first.
    """
    if iterations < 0 or seconds < 0:
        raise ValueError("budgets must be positive")
    if iterations == 0 and seconds == 0:
        raise ValueError("give a budget: iterations > 0 or seconds > 0")
    to_move = state.to_move
    if player is None:
        player = to_move
    if player != to_move:
        raise ValueError(f"player {player} is not to move (player {to_move} is)")
    tree = Tree(state, player, seed, c, mode, max_nodes)
    t0 = time.perf_counter()
    tree.run(iterations, seconds)
    elapsed = time.perf_counter() - t0
    stats = [MoveStats(m, state.move_to_text(m), v, r, a) for m, v, r, a in tree.root_stats()]
    stats.sort(key=lambda s: (-s.visits, -s.mean_reward, s.move))
    if stats:
        best = stats[0].move
    else:  # tree full before the root was stored: fall back to the first legal move
        best = state.legal_moves()[0]
    return SearchResult(player, best, state.move_to_text(best), tree.iterations, elapsed,
                        tree.n_nodes, tree.full, tree.tree_moves / max(1, tree.iterations), stats)
