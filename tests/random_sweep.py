"""Random games checked at every state: the logic of bench/random_games.py (a campaign) and of its test.

Game number s is dealt from seed s at the player count min + s mod (the game's range), and
its moves come from a generator seeded with s, so a failure names a seed (and the policy)
that replays it. The policy picks the moves: `random` draws them uniformly; `playout` takes
the move the search's playout policy takes (cext, the game's own), which plays games closer
to real ones and checks that policy's legality on the way; `heuristic` lets the game's
rule-based player (search.heuristics) choose every move, the games a table plays. After every move `check_invariants`; every N moves also a full-state JSON round
trip, the seat to move's view loaded and checked, and one determinization for every seat that
the seat cannot tell from the state (engine.conformance).
"""
from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import Any, Callable, List

from engine.conformance import check_samples_keep_the_observers_knowledge
from engine.registry import from_json, from_view, game_info, new_game

POLICIES = ("random", "playout", "heuristic")


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


def move_chooser(policy: str, seed: int) -> Callable[[Any], int]:
    """A function from a position to the move `policy` plays there, seeded by `seed`."""
    rng = random.Random(seed)
    if policy == "random":
        return lambda g: rng.choice(g.legal_moves())
    if policy == "playout":
        def playout_move(g) -> int:
            move = g.playout_choices(rng.getrandbits(63), 1)[0]
            assert move in g.legal_moves(), f"the playout policy chose an illegal move {move}"
            return move
        return playout_move
    if policy == "heuristic":
        from search.agents import HeuristicAgent
        return HeuristicAgent(seed).choose
    raise ValueError(f"unknown policy {policy!r}: one of {', '.join(POLICIES)}")


def play_one(game: str, seed: int, every: int, policy: str = "random") -> int:
    """Play game number `seed` to the end with the checks, its moves chosen by `policy`; the
    number of moves."""
    info = game_info(game)
    counts = info.max_players - info.min_players + 1
    choose = move_chooser(policy, seed)
    g = new_game(game, info.min_players + seed % counts, seed)
    moves = 0
    while not g.is_terminal():
        g.apply(choose(g))
        g.check_invariants()
        moves += 1
        if moves % every == 0 and not g.is_terminal():
            check_deeply(g)
    return moves


def sweep(game: str, first: int, last: int, every: int = 25,
          policy: str = "random") -> SweepReport:
    """Games `first` to `last` of `game`, each checked as play_one does."""
    move_chooser(policy, 0)                     # an unknown policy is refused before any game
    report = SweepReport()
    named = "" if policy == "random" else f" ({policy})"
    for seed in range(first, last + 1):
        try:
            report.moves += play_one(game, seed, every, policy)
        except Exception as e:                  # noqa: BLE001 - every failure is reported
            report.failures.append(f"{game} seed {seed}{named}: {type(e).__name__}: {e}")
        report.games += 1
    return report
