"""Rule-based agents, one module per game.

Each module defines `choose(world, player, rng) -> int`: a legal move for `player`, who is to
move in `world`. `world` is a determinization of the real position for that player (a full
state consistent with everything the player knows), so a heuristic may read any part of it
without cheating; `rng` is a seeded `random.Random`.
"""
from __future__ import annotations

import importlib
from typing import Callable

MODULES = {
    "khiva": "search.heuristics.khiva",
    "khan": "search.heuristics.khan",
    "kilim": "search.heuristics.kilim",
    "taschkent": "search.heuristics.taschkent",
}


def heuristic_for(game: str) -> Callable:
    """The `choose` function of `game`'s heuristic; ValueError if the game has none."""
    if game not in MODULES:
        raise ValueError(f"no heuristic agent for {game!r}")
    try:
        module = importlib.import_module(MODULES[game])
    except ModuleNotFoundError:
        raise ValueError(f"no heuristic agent for {game!r} yet") from None
    return module.choose
