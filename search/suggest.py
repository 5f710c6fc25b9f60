"""The move-suggestion (hint) API: ranked moves with their statistics for one seat."""
from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from typing import List, Optional, Union

from cext.core import GameCore
from engine.registry import from_view
from search.ismcts import (DEFAULT_C, DEFAULT_MAX_NODES, DEFAULT_SCORE_WEIGHT, SearchResult,
                           search)


@dataclass(frozen=True)
class Budget:
    """How long to think: iterations, seconds, or both (whichever ends first)."""

    iterations: int = 0
    seconds: float = 0.0

    @staticmethod
    def of(budget: Union["Budget", int, float, dict]) -> "Budget":
        """An int is iterations, a float seconds, a dict {"iterations": .., "seconds": ..}."""
        if isinstance(budget, Budget):
            b = budget
        elif isinstance(budget, bool):
            raise ValueError("a budget is a number of iterations or of seconds")
        elif isinstance(budget, int):
            b = Budget(iterations=budget)
        elif isinstance(budget, float):
            b = Budget(seconds=budget)
        elif isinstance(budget, dict):
            unknown = set(budget) - {"iterations", "seconds"}
            if unknown:
                raise ValueError(f"unknown budget keys {sorted(unknown)}")
            b = Budget(int(budget.get("iterations", 0)), float(budget.get("seconds", 0.0)))
        else:
            raise ValueError(f"bad budget {budget!r}")
        if b.iterations < 0 or b.seconds < 0 or (b.iterations == 0 and b.seconds == 0):
            raise ValueError("a budget needs iterations > 0 or seconds > 0")
        return b


@dataclass(frozen=True)
class RankedMove:
    """One suggested move and what the search measured for it."""

    rank: int
    move: int
    text: str
    visits: int
    mean_reward: float
    win_probability: float
    expected_score: float


@dataclass
class Suggestion:
    """The top moves for the seat to move, best first."""

    game: str
    player: int
    moves: List[RankedMove] = field(default_factory=list)
    iterations: int = 0
    seconds: float = 0.0
    result: Optional[SearchResult] = None

    @property
    def best(self) -> RankedMove:
        return self.moves[0]


def load_position(position: Union[GameCore, dict, str]) -> GameCore:
    """A state from a GameCore (used as is), a seat's view as a dict, or that view as JSON."""
    if isinstance(position, GameCore):
        return position
    if isinstance(position, str):
        try:
            position = json.loads(position)
        except json.JSONDecodeError as e:
            raise ValueError(f"the view is not valid JSON: {e.msg} at column {e.colno}") from None
    if isinstance(position, dict):
        return from_view(position)
    raise ValueError("a position is a game state, a view dict or a view in JSON")


def suggest(position: Union[GameCore, dict, str], budget: Union[Budget, int, float, dict] = 1000,
            top_k: int = 5, *, seed: int = 0, c: float = DEFAULT_C, mode: str = "so",
            max_nodes: int = DEFAULT_MAX_NODES, score_weight: float = DEFAULT_SCORE_WEIGHT,
            stop: Optional[threading.Event] = None, workers: int = 1,
            address: Optional[str] = None) -> Suggestion:
    """Rank the moves of the seat to move in `position`.

    `position` is a game state (the search still sees only the seat to move's information)
    or a view: what one seat knows, as produced by `to_json(view=seat)` (see
    docs/protocol.md). `budget`: an int is iterations, a float seconds. Returns the `top_k`
    moves by visits with their visits, mean reward, win probability and expected final score.
    `workers` > 1 (or a Ray `address`) runs a root-parallel search on Ray (the iteration
    budget is shared out among the workers; a time budget holds for each). `score_weight`
    is the share of the search's reward that is the score margin.
    """
    if not isinstance(top_k, int) or top_k < 1:
        raise ValueError("top_k must be a positive integer")
    b = Budget.of(budget)
    state = load_position(position)
    if state.is_terminal():
        raise ValueError("the game is over: there is nothing to suggest")
    if not isinstance(workers, int) or workers < 1:
        raise ValueError("workers must be a positive integer")
    if workers > 1 or address:
        from search.parallel import shared_search

        result = shared_search(workers, address).search(
            state, iterations=b.iterations, seconds=b.seconds, seed=seed, c=c, mode=mode,
            max_nodes=max_nodes, score_weight=score_weight, stop=stop)
    else:
        result = search(state, iterations=b.iterations, seconds=b.seconds, seed=seed, c=c,
                        mode=mode, max_nodes=max_nodes, score_weight=score_weight, stop=stop)
    ranked = [RankedMove(i + 1, s.move, s.text, s.visits, s.mean_reward, s.win_probability,
                         s.expected_score) for i, s in enumerate(result.stats[:top_k])]
    return Suggestion(state.game, result.player, ranked, result.iterations, result.seconds, result)
