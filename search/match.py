"""Play whole games between agents, with a record of every move."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, List, Optional, Sequence

from cext.core import GameCore
from engine.registry import new_game
from search.agents import Agent


@dataclass
class GameRecord:
    """Everything needed to replay and score a game."""

    game: str
    players: int
    seed: int
    agents: List[str]
    moves: List[str] = field(default_factory=list)
    scores: List[int] = field(default_factory=list)
    ranking: List[int] = field(default_factory=list)
    rewards: List[float] = field(default_factory=list)


def agent_seed(match_seed: int, seat: int) -> int:
    """The seed of the agent in `seat`: distinct per seat, fixed by the match seed."""
    return (match_seed * 7919 + seat * 104729 + 17) % (2**63)


def play_game(game: str, agents: Sequence[Agent], seed: int, players: Optional[int] = None,
              options: Optional[dict] = None,
              before_move: Optional[Callable[[GameCore], None]] = None,
              on_move: Optional[Callable[[GameCore, int, int], None]] = None) -> GameRecord:
    """Play one game of `game` dealt from `seed` (with game `options`), agents[i] in seat i.

    `before_move(state)` and `on_move(state_after, player, move)` are called around every
    move (for printing).
    """
    n = len(agents) if players is None else players
    state = new_game(game, n, seed, **(options or {}))
    record = GameRecord(game, n, seed, [a.describe() for a in agents])
    while not state.is_terminal():
        p = state.to_move
        move = agents[p].choose(state)
        text = state.move_to_text(move)
        if before_move is not None:
            before_move(state)
        state.apply(move)
        record.moves.append(text)
        if on_move is not None:
            on_move(state, p, move)
    record.scores = state.scores()
    record.ranking = state.ranking()
    record.rewards = state.rewards()
    return record
