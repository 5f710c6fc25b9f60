"""Random games checked at every state: the logic of bench/random_games.py (a campaign) and of its test.

Game number s is dealt from seed s at the player count min + s mod (the game's range), and
its moves are drawn uniformly from a generator seeded with s, so a failure names a seed that
replays it. After every move `check_invariants`; every N moves also a full-state JSON round
trip, the seat to move's view loaded and checked, and one determinization for every seat that
the seat cannot tell from the state (engine.conformance).
"""
from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import List

from engine.conformance import check_samples_keep_the_observers_knowledge
from engine.registry import from_json, from_view, game_info, new_game


@dataclass
class SweepReport:
    games: int = 0
    moves: int = 0
    failures: List[str] = field(default_factory=list)


def check_deeply(g) -> None:
    """The checks made every N moves (the game is not over)."""
    state = g.to_json()
    assert from_json(json.loads(json.dumps(state))).to_json() == state, "JSON round trip"
    from_view(json.loads(json.dumps(g.to_json(view=g.to_move)))).check_invariants()
    check_samples_keep_the_observers_knowledge(g, 1, "mover")


def play_one(game: str, seed: int, every: int) -> int:
    """Play game number `seed` to the end with the checks; the number of moves."""
    info = game_info(game)
    counts = info.max_players - info.min_players + 1
    g = new_game(game, info.min_players + seed % counts, seed)
    rng = random.Random(seed)
    moves = 0
    while not g.is_terminal():
        g.apply(rng.choice(g.legal_moves()))
        g.check_invariants()
        moves += 1
        if moves % every == 0 and not g.is_terminal():
            check_deeply(g)
    return moves


def sweep(game: str, first: int, last: int, every: int = 25) -> SweepReport:
    """Games `first` to `last` of `game`, each checked as play_one does."""
    report = SweepReport()
    for seed in range(first, last + 1):
        try:
            report.moves += play_one(game, seed, every)
        except Exception as e:                  # noqa: BLE001 - every failure is reported
            report.failures.append(f"{game} seed {seed}: {type(e).__name__}: {e}")
        report.games += 1
    return report
