"""ISMCTS iterations per CPU second as Caravan plays each game: the figures behind the
reproducible budgets (engine.registry.SEARCH_DEFAULTS `iterations`, "about one second").

    python bench/iteration_rates.py [--only GAME,..] [--seconds S] [--positions K]

For every game and player count: the iterations one search does in S seconds of CPU time
(default 1, the default budget), with the game's configuration (search.config.game_config,
with its playout policy), from K positions of one seeded random game (the opening and evenly
spaced later ones), in both keying modes, each from a fresh tree that grows as a real search's
does. The figure is the mean over positions and modes, and the last column rounds it as the
registry writes it. Rates drop when other programs share the cores; compare figures from one
run.
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import time
from typing import List

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from engine import new_game  # noqa: E402
from engine.registry import GAMES  # noqa: E402
from search.config import game_config  # noqa: E402
from search.ismcts import new_tree  # noqa: E402

SEED = 2026


def positions(game: str, players: int, count: int) -> List[object]:
    """The opening and count - 1 evenly spaced later positions of one seeded random game."""
    state = new_game(game, players=players, seed=SEED)
    rng = random.Random(SEED)
    history = [state.clone()]
    while not state.is_terminal():
        state.apply(rng.choice(state.legal_moves()))
        if not state.is_terminal():
            history.append(state.clone())
    step = max(1, len(history) // count)
    return history[::step][:count]


CHUNK = 2000     # iterations between looks at the clock


def rate(state: object, game: str, players: int, mode: str, seconds: float) -> float:
    """Iterations per CPU second of one search of `seconds` from `state` in `mode`."""
    tree = new_tree(state, state.to_move, game_config(game, players, mode=mode), SEED)
    start = time.process_time()
    done = 0
    while time.process_time() - start < seconds:
        done += tree.run(CHUNK)
    return done / (time.process_time() - start)


def registry_round(x: float) -> int:
    """The registry's rounding: to 5,000 iterations."""
    return int(round(x / 5000.0)) * 5000


def main(argv: List[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="", help="games, comma-separated (default: all)")
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--positions", type=int, default=4)
    args = parser.parse_args(argv)
    games = [g for g in args.only.split(",") if g] or sorted(GAMES)
    unknown = [g for g in games if g not in GAMES]
    if unknown:
        parser.error(f"--only: no game {unknown[0]!r} (games: {', '.join(sorted(GAMES))})")
    if not args.seconds > 0 or args.positions < 1:
        parser.error("--seconds must be positive and --positions at least 1")
    print(f"{'game':10} {'pl':>2} {'so it/s':>9} {'mo it/s':>9} {'mean':>9} {'registry':>9}  "
          f"(now in the registry)")
    for game in games:
        info = GAMES[game]
        for players in range(info.min_players, info.max_players + 1):
            states = positions(game, players, args.positions)
            by_mode = {mode: sum(rate(s, game, players, mode, args.seconds) for s in states)
                       / len(states) for mode in ("so", "mo")}
            mean = sum(by_mode.values()) / 2
            print(f"{game:10} {players:>2} {by_mode['so']:9,.0f} {by_mode['mo']:9,.0f} "
                  f"{mean:9,.0f} {registry_round(mean):9,}  ({info.search.iterations[players]:,})",
                  flush=True)


if __name__ == "__main__":
    main()
