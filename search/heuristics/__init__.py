"""Rule-based agents, one module per game.

Each module defines `choose(world, player, rng) -> int`: a legal move for `player`, who is to
move in `world`. `world` is a determinization of the real position for that player (a full
state consistent with everything the player knows), so a heuristic may read any part of it
without cheating; `rng` is a seeded `random.Random`.
"""
from __future__ import annotations

import importlib
import random
from typing import Callable

from cext.core import GameCore

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


def heuristic_move(state: GameCore, rng: random.Random) -> int:
    """The move the game's heuristic plays for the seat to move in `state`: a forced move as
    it is; otherwise its choice in a determinization for that seat (seeded from `rng`), so
    it uses only what the seat knows. RuntimeError if it chooses an illegal move."""
    legal = state.legal_moves()
    if len(legal) == 1:
        return legal[0]
    player = state.to_move
    world = state.determinized(player, rng.getrandbits(63))
    move = heuristic_for(state.game)(world, player, rng)
    if move not in legal:
        raise RuntimeError(f"heuristic for {state.game} chose an illegal move {move}")
    return move
