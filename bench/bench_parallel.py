"""Root-parallel search on Ray: scaling, overhead of a timed search, and strength.

    python bench/bench_parallel.py [--seconds S] [--games G]

Prints, measured in one run on this machine: iterations per second with 1 worker (in
process) and with 2 Ray workers, the efficiency rate(2) / (2 x rate(1)); the wall time of a
1 s search on 2 workers; and, unless --games 0, the win share of 2 workers against 1 worker
at the same time per move over fixed seeds, with its 95% interval.
"""
from __future__ import annotations

import argparse
import statistics
import time

from engine.registry import new_game
from search import Budget, search
from search.parallel import ParallelSearch


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--movetime", type=float, default=0.1)
    args = ap.parse_args()
    state = new_game("khiva", 3, 7)
    pool = ParallelSearch(2)
    pool.search(state, Budget(iterations=2000), seed=0)                 # warm the actors up
    one, two = [], []
    for r in range(args.repeat):
        one.append(search(state, Budget(seconds=args.seconds), seed=r).iterations_per_second)
        two.append(pool.search(state, Budget(seconds=args.seconds), seed=r).iterations_per_second)
    r1, r2 = statistics.median(one), statistics.median(two)
    print(f"Khiva 3 players, {args.seconds:g} s searches, median of {args.repeat}:")
    print(f"  1 worker (in process): {r1:>10,.0f} iterations/s")
    print(f"  2 Ray workers:         {r2:>10,.0f} iterations/s   efficiency "
          f"{r2 / (2 * r1):.2f}")
    walls = []
    for r in range(5):
        t0 = time.perf_counter()
        pool.search(state, Budget(seconds=1.0), seed=r)
        walls.append(time.perf_counter() - t0)
    print(f"  a 1 s search on 2 workers returns after {statistics.median(walls):.3f} s "
          f"(median of 5; overhead {1000 * (statistics.median(walls) - 1):+.0f} ms)")
    if args.games:
        from search.arena import run_arena

        specs = [f"ismcts:time={args.movetime},workers=2", f"ismcts:time={args.movetime}"]
        result = run_arena("khiva", 2, specs, args.games, seed=11)
        row = result.summary()["agents"][0]
        lo, hi = row["win_share_95"]
        print(f"  strength, Khiva duels, {args.movetime:g} s a move: 2 workers vs 1 worker win "
              f"share {row['win_share']:.3f} [{lo:.3f}, {hi:.3f}] over {row['games']} games; "
              f"Elo {result.tally.elo()}")
    pool.shutdown()


if __name__ == "__main__":
    main()
