"""Speed of a game core and of ISMCTS on it: figures, not pass/fail.

    python bench/bench_core.py [game] [--players N] [--repeat R]

Prints, on one core: moves applied per second in random playouts, random playouts per second
(per player count), ISMCTS iterations per second from the opening in both keying modes with
the average number of moves an iteration makes inside the tree, the ratio of ISMCTS
iterations to random playouts measured in the same run, and the tree's memory per node and
per move statistic. Each figure is the median of R repeats.
"""
from __future__ import annotations

import argparse
import statistics
import time

from cext.ismcts import Tree, random_playouts
from engine.registry import game_info, new_game


def median_rate(fn, repeat):
    return statistics.median(fn() for _ in range(repeat))


def playout_rates(game, players, repeat, games=20000):
    state = new_game(game, players, 1)
    out = []
    for r in range(repeat):
        g, moves, secs = random_playouts(state, games, r)
        out.append((g / secs, moves / secs, moves / g))
    return [statistics.median(x[i] for x in out) for i in range(3)]


def ismcts_rate(game, players, mode, repeat, iterations=20000):
    state = new_game(game, players, 1)
    rates, depth, mem = [], [], None
    for r in range(repeat):
        tree = Tree(state, state.to_move, r, 0.7, mode, 200000)
        t0 = time.perf_counter()
        tree.run(iterations)
        rates.append(iterations / (time.perf_counter() - t0))
        depth.append(tree.tree_moves / tree.iterations)
        mem = tree.memory()
    return statistics.median(rates), statistics.median(depth), mem


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("game", nargs="?", default="khiva")
    ap.add_argument("--players", type=int, default=3, help="player count for the ISMCTS figures")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    info = game_info(args.game)
    print(f"{info.title}: one process, one core, median of {args.repeat} runs")
    print(f"{'players':>7} {'playouts/s':>12} {'moves/s':>12} {'moves/game':>11}")
    base = None
    for n in range(info.min_players, info.max_players + 1):
        pps, mps, mpg = playout_rates(info.name, n, args.repeat)
        if n == args.players:
            base = pps
        print(f"{n:>7} {pps:>12,.0f} {mps:>12,.0f} {mpg:>11.1f}")
    print()
    print(f"ISMCTS from the {args.players}-player opening (20,000 iterations a run):")
    for mode in ("so", "mo"):
        rate, depth, mem = ismcts_rate(info.name, args.players, mode, args.repeat)
        print(f"  mode {mode}: {rate:>10,.0f} iterations/s  = {rate / base:.2f} x random "
              f"playouts/s;  {depth:.2f} moves in the tree per iteration;  "
              f"{mem['nodes']:,} nodes, {mem['move_stats']:,} move statistics")
        print(f"           memory: {mem['bytes_per_move_stat']} bytes per move statistic, "
              f"{mem['bytes_per_node']} bytes per node (node + table slots); edge pool "
              f"{mem['edge_pool_slots'] * mem['bytes_per_move_stat'] / max(1, mem['move_stats']):.1f}"
              f" bytes per live statistic including block slack and free blocks")


if __name__ == "__main__":
    main()
