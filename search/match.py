"""Play whole games between agents, with a record of every move."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, List, Optional, Sequence, Tuple

from cext.core import GameCore
from engine.registry import new_game
from search.agents import Agent, AgentFailure


@dataclass
class GameRecord:
    """Everything needed to replay and score a game.

    `forfeit` is set when a seat's agent failed (see play_game): {"seat", "agent", "reason",
    "message"}; the moves then stop there and `scores` are the scores at that moment.
    """

    game: str
    players: int
    seed: int
    agents: List[str]
    moves: List[str] = field(default_factory=list)
    scores: List[int] = field(default_factory=list)
    ranking: List[int] = field(default_factory=list)
    rewards: List[float] = field(default_factory=list)
    forfeit: Optional[dict] = None


def agent_seed(match_seed: int, seat: int) -> int:
    """The seed of the agent in `seat`: distinct per seat, fixed by the match seed."""
    return (match_seed * 7919 + seat * 104729 + 17) % (2**63)


def play_game(game: str, agents: Sequence[Agent], seed: int, players: Optional[int] = None,
              options: Optional[dict] = None,
              before_move: Optional[Callable[[GameCore], None]] = None,
              on_move: Optional[Callable[[GameCore, int, int], None]] = None,
              forfeits: bool = False) -> GameRecord:
    """Play one game of `game` dealt from `seed` (with game `options`), agents[i] in seat i.

    `before_move(state)` and `on_move(state_after, player, move)` are called around every
    move (for printing). An agent that fails (AgentFailure: an external engine that crashed,
    hung, played an illegal move or wrote invalid output) raises, unless `forfeits`: then it
    loses the game there (see forfeit_outcome) and the record says why.
    """
    n = len(agents) if players is None else players
    state = new_game(game, n, seed, **(options or {}))
    record = GameRecord(game, n, seed, [a.describe() for a in agents])
    while not state.is_terminal():
        p = state.to_move
        try:
            move = agents[p].choose(state)
        except AgentFailure as failure:
            if not forfeits:
                raise
            record.forfeit = {"seat": p, "agent": record.agents[p], "reason": failure.reason,
                              "message": str(failure)}
            record.scores = state.scores()
            record.ranking, record.rewards = forfeit_outcome(n, p)
            return record
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


def forfeit_outcome(players: int, loser: int) -> Tuple[List[int], List[float]]:
    """(ranking, rewards) when seat `loser` forfeits: it is last with nothing; the other
    seats share first place and the win equally."""
    ranking = [players if seat == loser else 1 for seat in range(players)]
    rewards = [0.0 if seat == loser else 1.0 / (players - 1) for seat in range(players)]
    return ranking, rewards
