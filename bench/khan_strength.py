"""Khan of Khans duels: ISMCTS against the rule-based heuristic, one line per search setting.

    python bench/khan_strength.py [--games N] [--first-seed S] [--iterations N] [--jobs J]
                                  [--weights 0,0.5] [--mode mo] [--c 0.3]

Game k is dealt from seed 7000 + k (the seeds of tests/test_khan_strength.py), the searcher
sits in seat k % 2, and every setting plays the same games, so the settings are compared on
the same deals. Prints each setting's win share with its 95% Wilson interval.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from multiprocessing import Pool

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_support import counted, search_iterations  # noqa: E402
from engine.cli import number_in  # noqa: E402
from search.agents import HeuristicAgent, IsmctsAgent  # noqa: E402
from search.match import play_game  # noqa: E402
from search.stats import wilson  # noqa: E402

SEED_BASE = 7000


def one_duel(job: tuple) -> float:
    """The searcher's win share in game k with the given search settings."""
    k, settings = job
    seat = k % 2
    agents = [HeuristicAgent(k), HeuristicAgent(k + 1)]
    agents[seat] = IsmctsAgent(seed=k, **settings)
    return play_game("khan", agents, SEED_BASE + k).rewards[seat]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=counted(), default=100)
    ap.add_argument("--first-seed", type=int, default=0, help="first k (deal seed 7000 + k)")
    ap.add_argument("--iterations", type=search_iterations(), default=4000)
    ap.add_argument("--mode", choices=("so", "mo"), default="mo")
    ap.add_argument("--c", type=number_in(0, 100), default=0.3)
    ap.add_argument("--weights", default="0,0.5", help="score weights to compare")
    ap.add_argument("--jobs", type=counted(1024), default=os.cpu_count() or 1)
    args = ap.parse_args()
    try:
        weights = [float(w) for w in args.weights.split(",")]
    except ValueError:
        ap.error(f"--weights takes numbers from 0 to 1, e.g. 0,0.5, not {args.weights[:40]!r}")
    if not all(0 <= w <= 1 for w in weights):
        ap.error(f"--weights takes numbers from 0 to 1, e.g. 0,0.5, not {args.weights[:40]!r}")
    games = range(args.first_seed, args.first_seed + args.games)
    print(f"Khan of Khans duels, ismcts (iterations {args.iterations}, mode {args.mode}, "
          f"c {args.c}) against heuristic; deals {SEED_BASE + games.start}.."
          f"{SEED_BASE + games.stop - 1}")
    with Pool(args.jobs) as pool:
        for w in weights:
            settings = dict(iterations=args.iterations, mode=args.mode, c=args.c,
                            score_weight=w)
            t0 = time.perf_counter()
            shares = pool.map(one_duel, [(k, settings) for k in games])
            won = sum(shares)
            lo, hi = wilson(won, len(shares))
            print(f"score_weight {w:<4}: {won:5.1f}/{len(shares)} = {won / len(shares):.3f} "
                  f"[{lo:.3f}, {hi:.3f}] 95% Wilson  ({time.perf_counter() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
