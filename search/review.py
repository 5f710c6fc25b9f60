"""Game review: where each seat's moves lost winning chances, decision by decision.

The review replays a game record (search.match.GameRecord) and, at every decision of the
seats asked for that offers a choice, searches the position as the seat to move knew it,
never more: the search sees only that seat's information set, as every search does. It
compares the move played with the search's choice. Where they differ, the two moves are
searched again head to head (UCI's searchmoves), with the same budget, so that the move
played is measured as well as the choice and not judged by the few visits a search gives a
move it dropped. The loss of a decision is the chance of winning (win share) the search
expects after its choice less that after the move played, never below 0; LABELS name the
larger losses, as a chess review names inaccuracies, mistakes and blunders.

The figures are the search's opinion at its budget, no more: a review at a larger budget
sees further, and a loss of a few hundredths is within a search's noise (docs/strength.md).
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence, Tuple, Union

from cext.core import GameCore
from search.config import (DEFAULT_BUDGET, SEED_SPACE, Budget, SearchConfig, check_seed,
                           check_workers, from_keywords)
from search.ismcts import LineStep, MoveStats, SearchResult
from search.match import GameRecord, record_from_json, replay
from search.parallel import search_with_workers

# (least win-share lost, label), the largest first: a decision is labelled by the first its
# loss reaches. Absolute chances, the same at every player count.
LABELS = ((0.20, "blunder"), (0.10, "mistake"), (0.05, "inaccuracy"))
PLURALS = {"blunder": "blunders", "mistake": "mistakes", "inaccuracy": "inaccuracies"}


def label_of(loss: float) -> str:
    """The label of a decision that lost `loss` of winning chance ("" when none)."""
    for least, label in LABELS:
        if loss >= least:
            return label
    return ""


@dataclass(frozen=True)
class ReviewedDecision:
    """One decision of the game as the search judged it."""

    ply: int
    """The move's number in the record, 1 first."""
    seat: int
    choices: int
    """Legal moves the seat had."""
    played: str
    played_win: float
    """The search's chance of winning for the seat after the move played."""
    best: str
    """The search's choice (the same as `played` when it agrees)."""
    best_win: float
    loss: float
    """best_win - played_win, never below 0."""
    label: str
    """"blunder", "mistake", "inaccuracy" or "" (LABELS)."""
    played_score: float
    """The seat's expected final score after the move played (mean over the search's games)."""
    best_score: float
    """The same after the search's choice: best_score - played_score is the score the move
    played gave away (negative when it scores more, yet wins less)."""
    iterations: int
    """Iterations of the searches of this decision together."""
    line: Tuple[LineStep, ...] = ()
    """What the search expected after its choice (search.ismcts.expected_line)."""

    @property
    def agreed(self) -> bool:
        return self.played == self.best

    def to_json(self) -> dict:
        return {"ply": self.ply, "seat": self.seat, "choices": self.choices,
                "played": self.played, "played_win": round(self.played_win, 6),
                "best": self.best, "best_win": round(self.best_win, 6),
                "loss": round(self.loss, 6), "label": self.label,
                "played_score": round(self.played_score, 4),
                "best_score": round(self.best_score, 4),
                "iterations": self.iterations,
                "line": [{"seat": s.seat, "move": s.text} for s in self.line]}


@dataclass(frozen=True)
class SeatSummary:
    """One seat's decisions in a review, counted."""

    seat: int
    decisions: int
    agreed: int
    mean_loss: float
    labels: Dict[str, int]

    def to_json(self) -> dict:
        return {"seat": self.seat, "decisions": self.decisions, "agreed": self.agreed,
                "mean_loss": round(self.mean_loss, 6),
                **{PLURALS[label]: self.labels[label] for _, label in LABELS}}


@dataclass
class Review:
    """A game's review: its reviewed decisions in order, and each seat's summary."""

    game: str
    players: int
    seed: int
    seats: List[int]
    budget: Budget
    decisions: List[ReviewedDecision] = field(default_factory=list)

    def summary(self) -> List[SeatSummary]:
        out = []
        for seat in self.seats:
            mine = [d for d in self.decisions if d.seat == seat]
            labels = {label: sum(d.label == label for d in mine) for _, label in LABELS}
            out.append(SeatSummary(seat, len(mine), sum(d.agreed for d in mine),
                                   sum(d.loss for d in mine) / len(mine) if mine else 0.0,
                                   labels))
        return out

    def to_json(self) -> dict:
        """The review in the published format (docs/views/review.schema.json): what
        `caravan review --json` prints."""
        return {"game": self.game, "players": self.players, "seed": self.seed,
                "seats": list(self.seats),
                "budget": {"iterations": self.budget.iterations, "seconds": self.budget.seconds},
                "decisions": [d.to_json() for d in self.decisions],
                "summary": [s.to_json() for s in self.summary()]}


def decision_seed(seed: int, ply: int) -> int:
    """The search seed of the decision at `ply`: distinct per decision, fixed by `seed`."""
    return (seed * 1_000_003 + ply * 7_919) % SEED_SPACE


def review_game(record: Union[GameRecord, dict], budget: Union[Budget, int, float, None] = None,
                config: Optional[SearchConfig] = None, *, seats: Optional[Sequence[int]] = None,
                seed: int = 0, workers: int = 1, address: Optional[str] = None,
                stop: Optional[threading.Event] = None,
                on_decision: Optional[Callable[[ReviewedDecision], None]] = None) -> Review:
    """Review the decisions of `seats` (None: every seat) in `record`, a GameRecord or its
    JSON form (a dict, checked by record_from_json).

    `budget` is each search's (None: DEFAULT_BUDGET, about a second; an int is iterations, a
    float seconds; an iteration budget makes the review reproducible for its `seed`).
    `config` as for search (None: the game's). A decision with a single legal move is not
    reviewed. `on_decision(decision)` is called as each decision is reviewed; `stop` (a
    threading.Event) ends the review after the current decision, with the decisions
    reviewed so far. Everything is checked before the first search: the whole record
    replays (an illegal move is a ValueError naming it), the seats, budget, seed and workers.
    """
    if isinstance(record, dict):
        record = record_from_json(record)
    if not isinstance(record, GameRecord):
        raise ValueError(f"a review needs a game record, not {type(record).__name__}")
    replay(record)
    state = record.deal()
    budget, config = from_keywords(DEFAULT_BUDGET if budget is None else budget, config, {},
                                   "review", state)
    check_seed(seed)
    check_workers(workers)
    chosen = check_seats(seats, record.players)
    review = Review(record.game, record.players, record.seed, chosen, budget)
    for ply, text in enumerate(record.moves, 1):
        if stop is not None and stop.is_set():
            break
        move = state.parse_move(text)
        if state.to_move in chosen and len(state.legal_moves()) > 1:
            decision = review_decision(state, ply, move, budget, config,
                                       decision_seed(seed, ply), workers, address)
            review.decisions.append(decision)
            if on_decision is not None:
                on_decision(decision)
        state.apply(move)
    return review


def decisions_to_review(record: GameRecord, seats: Optional[Sequence[int]] = None) -> int:
    """How many decisions review_game will judge (for a progress bar)."""
    chosen = check_seats(seats, record.players)
    state, count = record.deal(), 0
    for text in record.moves:
        count += state.to_move in chosen and len(state.legal_moves()) > 1
        state.apply(text)
    return count


def check_seats(seats: Optional[Sequence[int]], players: int) -> List[int]:
    """The seats to review, in order, each once: every seat when None."""
    if seats is None:
        return list(range(players))
    if isinstance(seats, (str, bytes)) or not isinstance(seats, (list, tuple)) or not seats:
        raise ValueError("seats is a non-empty list of seat numbers")
    for s in seats:
        if isinstance(s, bool) or not isinstance(s, int) or not 0 <= s < players:
            raise ValueError(f"no seat {s!r} at {players} players (seats 0 to {players - 1})")
    if len(set(seats)) != len(seats):
        raise ValueError("a seat is named twice")
    return sorted(seats)


def review_decision(state: GameCore, ply: int, move: int, budget: Budget,
                    config: SearchConfig, seed: int, workers: int = 1,
                    address: Optional[str] = None) -> ReviewedDecision:
    """The search's judgement of `move`, played by the seat to move at `state`."""
    def run(**kw: object) -> SearchResult:
        return search_with_workers(state, budget, config, workers=workers, address=address,
                                   seed=seed, **kw)

    first = run(lines=True)
    best = first.stats[0]
    iterations = first.iterations
    if best.move == move:
        played = best
    else:   # measure both as well as each other, not by the visits the first search left
        duel = run(searchmoves=[best.move, move])
        iterations += duel.iterations
        played, best_again = stat_of(duel, move), stat_of(duel, best.move)
        best = MoveStats(best.move, best.text, best_again.visits, best_again.mean_reward,
                         best_again.availability, best_again.win_probability,
                         best_again.expected_score, best.line)
    loss = max(0.0, best.win_probability - played.win_probability)
    return ReviewedDecision(ply, state.to_move, len(state.legal_moves()), played.text,
                            played.win_probability, best.text, best.win_probability, loss,
                            label_of(loss), played.expected_score, best.expected_score,
                            iterations, best.line)


def stat_of(result: SearchResult, move: int) -> MoveStats:
    """The root statistics of `move` in `result`."""
    for s in result.stats:
        if s.move == move:
            return s
    raise LookupError(f"move {move} is not at the root of the search")


@dataclass
class AgentAccuracy:
    """How close one agent's decisions came to the search's, over the games reviewed: the
    mean chance of winning lost a decision (lower is better), with a 95% interval from the
    spread of its per-game means (games are the independent units; normal approximation)."""

    agent: str
    games: int = 0
    decisions: int = 0
    agreed: int = 0
    game_means: List[float] = field(default_factory=list)
    labels: Dict[str, int] = field(default_factory=lambda: {label: 0 for _, label in LABELS})
    loss_sum: float = 0.0

    @property
    def mean_loss(self) -> float:
        return self.loss_sum / self.decisions if self.decisions else 0.0

    def interval(self) -> Tuple[float, float]:
        """95% interval of the mean loss a decision, from the per-game means (the mean
        itself on both sides with fewer than two games)."""
        n = len(self.game_means)
        if n < 2:
            return self.mean_loss, self.mean_loss
        mean = sum(self.game_means) / n
        var = sum((x - mean) ** 2 for x in self.game_means) / (n - 1)
        half = 1.96 * (var / n) ** 0.5
        return max(0.0, self.mean_loss - half), min(1.0, self.mean_loss + half)

    def to_json(self) -> dict:
        low, high = self.interval()
        return {"agent": self.agent, "games": self.games, "decisions": self.decisions,
                "agreed": self.agreed, "mean_loss": round(self.mean_loss, 6),
                "mean_loss_95": [round(low, 6), round(high, 6)],
                **{PLURALS[label]: n for label, n in self.labels.items()}}


def accuracy_by_agent(reviewed: Sequence[Tuple[GameRecord, Review]]) -> List[AgentAccuracy]:
    """Each agent's accuracy over reviewed games, the agent of a seat being the record's name
    for it (`P<seat>` when the record names none); the most accurate first."""
    rows: Dict[str, AgentAccuracy] = {}
    for record, review in reviewed:
        for s in review.summary():
            if not s.decisions:
                continue
            name = record.seats[s.seat] if record.seats else f"P{s.seat}"
            row = rows.setdefault(name, AgentAccuracy(name))
            row.games += 1
            row.decisions += s.decisions
            row.agreed += s.agreed
            row.loss_sum += s.mean_loss * s.decisions
            row.game_means.append(s.mean_loss)
            for label, n in s.labels.items():
                row.labels[label] += n
    return sorted(rows.values(), key=lambda r: (r.mean_loss, r.agent))
