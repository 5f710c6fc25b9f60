"""Play whole games between agents, with a record of every move; records as JSON."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from cext.core import GameCore
from engine.registry import game_info, new_game
from engine.validation import check_schema
from search.agents import Agent, AgentFailure
from search.config import SEED_SPACE

RECORD_SCHEMA = "record"    # docs/views/record.schema.json


@dataclass
class GameRecord:
    """Everything needed to replay and score a game: the deal (game, players, seed, game
    options) and the moves in notation.

    `seats` names who played each seat (agent specs). `forfeit` is set when a seat's agent
    failed (see play_game): {"seat", "agent", "reason", "message"}; the moves then stop there
    and `scores` are the scores at that moment.
    """

    game: str
    players: int
    seed: int
    seats: List[str]
    moves: List[str] = field(default_factory=list)
    scores: List[int] = field(default_factory=list)
    ranking: List[int] = field(default_factory=list)
    rewards: List[float] = field(default_factory=list)
    forfeit: Optional[dict] = None
    options: Dict[str, str] = field(default_factory=dict)

    def deal(self) -> GameCore:
        """The game as dealt, before the first move."""
        return new_game(self.game, self.players, self.seed, **self.options)

    def settle(self, state: GameCore) -> None:
        """Set the outcome fields from `state`, the game after the record's last move: the
        scores, and the places and win shares once it is over or forfeited."""
        self.scores = state.scores()
        if self.forfeit is not None:
            self.ranking, self.rewards = forfeit_outcome(self.players, self.forfeit["seat"])
        elif state.is_terminal():
            self.ranking, self.rewards = state.ranking(), state.rewards()

    def to_json(self) -> dict:
        """The record in the published format (docs/views/record.schema.json): what
        `caravan match --record` writes and `caravan review` reads."""
        out: Dict[str, Any] = {"game": self.game, "players": self.players, "seed": self.seed}
        if self.options:
            out["options"] = {k: option_text(v) for k, v in self.options.items()}
        out["seats"] = list(self.seats)
        out["moves"] = list(self.moves)
        for key in ("scores", "ranking", "rewards"):
            if getattr(self, key):
                out[key] = list(getattr(self, key))
        out["forfeit"] = self.forfeit
        return out


def option_text(value: Any) -> str:
    """A game option as the command line writes it: `impala,sable` for a list."""
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    return str(value)


def record_from_json(value: Any) -> GameRecord:
    """A GameRecord from its JSON form (a dict; record.schema.json), checked whole: the
    schema, the deal (player count, seed, options), every move legal in turn (an error names
    the first that is not), and the derived outcome fields, when given, equal to what the
    replay gives. ValueError (engine.validation.ViewError) otherwise."""
    check_schema(value, RECORD_SCHEMA, "game record", whole_numbers=False)
    game_info(value["game"]).check_players(value["players"])
    options = dict(value.get("options", {}))
    seats = list(value.get("seats", []))
    if seats and len(seats) != value["players"]:
        raise ValueError(f"seats: {len(seats)} names for {value['players']} players")
    record = GameRecord(value["game"], value["players"], value["seed"], seats,
                        list(value["moves"]), options=options,
                        forfeit=value.get("forfeit"))
    state = replay(record)
    _check_outcome(value, record, state)
    record.settle(state)
    return record


def replay(record: GameRecord, upto: Optional[int] = None) -> GameCore:
    """The record's game after its first `upto` moves (all when None); an illegal move is a
    ValueError naming its number (1 first) and its seat."""
    state = record.deal()
    for n, text in enumerate(record.moves[:upto], 1):
        if state.is_terminal():
            raise ValueError(f"moves: the game is over after move {n - 1}, yet the record "
                             f"goes on ({len(record.moves) - n + 1} more)")
        seat = state.to_move
        try:
            state.apply(text)
        except ValueError as e:
            raise ValueError(f"moves: move {n} ({text[:40]}) for P{seat}: {e}") from None
    return state


def _check_outcome(value: dict, record: GameRecord, state: GameCore) -> None:
    """The record's derived fields against its replay."""
    forfeit = record.forfeit
    if forfeit is not None:
        if state.is_terminal():
            raise ValueError("forfeit: the game is over; no seat can forfeit it")
        if forfeit["seat"] != state.to_move:
            raise ValueError(f"forfeit: P{forfeit['seat']} forfeits, but P{state.to_move} is "
                             "to move after the last move")
        expected = forfeit_outcome(record.players, forfeit["seat"])
    elif state.is_terminal():
        expected = (state.ranking(), state.rewards())
    else:
        expected = None
    if "scores" in value and value["scores"] != state.scores():
        raise ValueError(f"scores: {value['scores']} where the moves give {state.scores()}")
    for key, computed in zip(("ranking", "rewards"), expected or (None, None)):
        if key not in value:
            continue
        if computed is None:
            raise ValueError(f"{key}: the game is not over after the record's moves")
        given = value[key]
        if len(given) != len(computed) or not all(
                math.isclose(a, b, abs_tol=1e-9) for a, b in zip(given, computed)):
            raise ValueError(f"{key}: {given} where the moves give {computed}")


def agent_seed(match_seed: int, seat: int) -> int:
    """The seed of the agent in `seat`: distinct per seat, fixed by the match seed."""
    return (match_seed * 7919 + seat * 104729 + 17) % SEED_SPACE


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
    record = GameRecord(game, n, seed, [a.describe() for a in agents],
                        options=dict(options or {}))
    state = record.deal()
    while not state.is_terminal():
        p = state.to_move
        try:
            move = agents[p].choose(state)
        except AgentFailure as failure:
            if not forfeits:
                raise
            record.forfeit = {"seat": p, "agent": record.seats[p], "reason": failure.reason,
                              "message": str(failure)}
            record.settle(state)
            return record
        text = state.move_to_text(move)
        if before_move is not None:
            before_move(state)
        state.apply(move)
        record.moves.append(text)
        if on_move is not None:
            on_move(state, p, move)
    record.settle(state)
    return record


def forfeit_outcome(players: int, loser: int) -> Tuple[List[int], List[float]]:
    """(ranking, rewards) when seat `loser` forfeits: it is last with nothing; the other
    seats share first place and the win equally."""
    ranking = [players if seat == loser else 1 for seat in range(players)]
    rewards = [0.0 if seat == loser else 1.0 / (players - 1) for seat in range(players)]
    return ranking, rewards
