"""The move-suggestion (hint) API: ranked moves with their statistics for one seat."""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import List, Optional, Sequence, Tuple, Union

from cext.core import GameCore
from engine.registry import from_view
from engine.validation import parse_json
from search.config import BUDGET_FIELDS, DEFAULT_BUDGET, Budget, SearchConfig, from_keywords
from search.ismcts import LineStep, Live, SearchResult
from search.parallel import search_with_workers

__all__ = ["Budget", "LineStep", "RankedMove", "Suggestion", "line_text", "load_position",
           "suggest"]


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
    line: Tuple[LineStep, ...] = ()
    """The decisions the search expects after this move, seat by seat (its principal
    variation: search.ismcts.expected_line); empty where the search knows too little, and
    past the LINE_MOVES best moves."""


@dataclass
class Suggestion:
    """The top moves for the seat to move, best first."""

    game: str
    player: int
    moves: List[RankedMove] = field(default_factory=list)
    iterations: int = 0
    seconds: float = 0.0
    result: Optional[SearchResult] = None
    players: int = 0

    @property
    def best(self) -> RankedMove:
        """The move of rank 1: the search's choice (the first legal move, or the first
        search move, when the search was stopped before its first iteration)."""
        return self.moves[0]

    def to_json(self) -> dict:
        """The suggestion as the published hint answer (docs/views/hint.schema.json): what
        `caravan hint --json` prints."""
        return {
            "game": self.game, "players": self.players, "seat": self.player,
            "iterations": self.iterations,
            "seconds": round(self.seconds, 4),
            "moves": [{"rank": m.rank, "move": m.text, "visits": m.visits,
                       "mean_reward": round(m.mean_reward, 6),
                       "win_probability": round(m.win_probability, 6),
                       "expected_score": round(m.expected_score, 4),
                       "line": [{"seat": s.seat, "move": s.text} for s in m.line]}
                      for m in self.moves]}


def line_text(line: Tuple[LineStep, ...]) -> str:
    """An expected line as people read it: `P1 raid-furthest, P2 raid-boldhome`."""
    return ", ".join(f"P{step.seat} {step.text}" for step in line)


def load_position(position: Union[GameCore, dict, str]) -> GameCore:
    """A state from a GameCore (used as is), a seat's view as a dict, or that view as JSON."""
    if isinstance(position, GameCore):
        return position
    if isinstance(position, str):
        position = parse_json(position, "view")   # bounded: too long or deep is a ViewError
    if isinstance(position, dict):
        return from_view(position)
    raise ValueError("a position is a game state, a view dict or a view in JSON")


def suggest(position: Union[GameCore, dict, str],
            budget: Union[Budget, int, float, dict, None] = None,
            top_k: int = 5, config: Optional[SearchConfig] = None, *, seed: int = 0,
            stop: Optional[threading.Event] = None, workers: int = 1,
            address: Optional[str] = None,
            searchmoves: Optional[Sequence[Union[int, str]]] = None,
            live: Optional[Live] = None, **fields: object) -> Suggestion:
    """Rank the moves of the seat to move in `position`.

    `position` is a game state (the search still sees only the seat to move's information)
    or a view: what one seat knows, as produced by `to_json(view=seat)` (see
    docs/protocol.md). `budget`: a Budget, or an int (iterations), a float (seconds) or a
    dict (see Budget.of); it needs a limit; None is DEFAULT_BUDGET, about a second of
    search (search.config.DEFAULT_SECONDS). `config`: how to search (None: the game's tuned
    configuration, search.config.game_config); its fields may also be given as keywords
    (`mode="mo"`: the game's configuration with that field changed). Returns
    the `top_k` moves by visits with their visits, mean reward, win probability, expected
    final score and expected line (the decisions the search expects next). `workers` > 1 (or a Ray `address`) runs a root-parallel search on
    Ray (the iteration budget is shared out among the workers; a time budget holds for each).
    `searchmoves` (moves as ints or in notation) ranks only those moves: what the search
    makes of the moves a player is weighing. `live(result)` is called about once a second
    with the search's statistics so far (search.ismcts.search; one worker only).

    The budget may also come as the keywords `iterations=` and `seconds=` (then not as
    `budget` too), and needs a limit. A `stop` already set, or set before the first
    iteration, still answers: `iterations` 0 and the candidate moves (the `searchmoves`,
    else every legal move) with 0 visits, the search's choice first (the first legal move,
    as the protocol's `go` answers), then the others in the order of legal_moves(). The
    search sees only what the seat to move knows: `mode="full"` and `determinize=False`,
    which would see every hidden card, are refused. Every refusal is a ValueError; a Ray
    cluster that does not answer at a well-formed `address` is a RuntimeError, and so is
    Ray missing (docs/protocol.md, "The Python API").
    """
    if isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 1:
        raise ValueError("top_k must be a positive integer")
    state = load_position(position)
    given = None if budget is None else Budget.of(budget)
    budget, config = from_keywords(given, config, fields, "suggest", state)
    if budget.unlimited:            # from_keywords' "none": the default, unless keywords said 0
        if given is not None or any(key in BUDGET_FIELDS for key in fields):
            raise ValueError("a budget needs iterations > 0 or seconds > 0")
        budget = DEFAULT_BUDGET
    if config.mode == "full" or not config.determinize:
        raise ValueError("suggest searches from what the seat to move knows: mode 'full' and "
                         "determinize=False search the whole state, which sees the hidden "
                         "cards; use mode 'so' or 'mo'")
    if state.is_terminal():
        raise ValueError("the game is over: there is nothing to suggest")
    result = search_with_workers(state, budget, config, workers=workers, address=address,
                                 seed=seed, stop=stop, lines=True, searchmoves=searchmoves,
                                 live=live)
    ranked = [RankedMove(i + 1, s.move, s.text, s.visits, s.mean_reward, s.win_probability,
                         s.expected_score, s.line) for i, s in enumerate(result.stats[:top_k])]
    return Suggestion(state.game, result.player, ranked, result.iterations, result.seconds, result,
                      state.n_players)
