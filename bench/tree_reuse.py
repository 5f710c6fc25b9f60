"""Does tree reuse gain? One agent keeps its tree between its decisions (search.ismcts.Searcher),
the others search each decision on a new tree; same budget in iterations, same configuration
(the game's tuned one from the registry), same seeding: only the reuse differs.

    python bench/tree_reuse.py khiva --players 3 --iterations 3000 --deals 100 --procs 2
    python bench/tree_reuse.py khan --players 2 --iterations 3000 --deals 150 --procs 2

Every deal is played once per seat of the reusing agent (seats rotated). Prints the reusing
agent's win share (a shared win counts 1/k) with its 95% Wilson interval against the even
share, the Elo it implies (2 players: from W/D/L; more: the share against the even one, as a
rating difference over one average opponent), how often a search began with kept statistics
and how many root visits it carried on average.
"""
from __future__ import annotations

import argparse
import math
import multiprocessing
import sys
import time
from pathlib import Path
from typing import List, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_support import check_game_and_players, counted, search_iterations  # noqa: E402
from cext.core import GameCore  # noqa: E402
from search.agents import Agent  # noqa: E402
from search.config import Budget, SearchConfig, game_config  # noqa: E402
from search.ismcts import Searcher, search  # noqa: E402
from search.match import agent_seed, play_game  # noqa: E402
from search.stats import elo_estimate, elo_from_score, wilson  # noqa: E402


class FreshAgent(Agent):
    """A search on a new tree at every decision (what the agents do today)."""

    name = "fresh"

    def __init__(self, seed: int, iterations: int, config: Optional[SearchConfig]) -> None:
        self.seed, self.budget, self.config = seed, Budget(iterations), config
        self.calls = 0

    def choose(self, state: GameCore) -> int:
        legal = state.legal_moves()
        if len(legal) == 1:
            return legal[0]
        self.calls += 1
        return self.search(state, self.seed * 1_000_003 + self.calls)

    def search(self, state: GameCore, seed: int) -> int:
        config = self.config or game_config(state.game, state.n_players)
        return search(state, self.budget, config, seed=seed).move


class ReuseAgent(FreshAgent):
    """The same searches, on the tree kept from its previous decision."""

    name = "reuse"

    def __init__(self, seed: int, iterations: int, config: Optional[SearchConfig]) -> None:
        super().__init__(seed, iterations, config)
        self.searcher = Searcher()
        self.carried: List[int] = []

    def search(self, state: GameCore, seed: int) -> int:
        config = self.config or game_config(state.game, state.n_players)
        result = self.searcher.search(state, self.budget, config, seed=seed)
        self.carried.append(result.carried)
        return result.move


def play_one(task: tuple) -> dict:
    """One game: deal `deal`, the agent under test (made by `factory(seed, iterations,
    config)`) in seat `seat`, fresh searches in the others."""
    game, players, iterations, deal, seat, factory = task
    agents: List[FreshAgent] = []
    for s in range(players):
        make = factory if s == seat else FreshAgent
        agents.append(make(agent_seed(deal, s), iterations, None))
    record = play_game(game, agents, deal, players)
    return {"deal": deal, "seat": seat, "reward": record.rewards[seat],
            "rank": record.ranking[seat], "carried": getattr(agents[seat], "carried", [])}


def run(game: str, players: int, iterations: int, deals: int, first: int, procs: int,
        factory) -> tuple:
    """Every deal once per seat of the agent under test: (rows, seconds)."""
    tasks = [(game, players, iterations, first + d, seat, factory)
             for d in range(deals) for seat in range(players)]
    t0 = time.perf_counter()
    with multiprocessing.Pool(procs) as pool:
        rows = pool.map(play_one, tasks, chunksize=1)
    return rows, time.perf_counter() - t0


def summarise(game: str, players: int, iterations: int, rows: List[dict], seconds: float,
              label: str = "reuse agent") -> None:
    n = len(rows)
    share = sum(r["reward"] for r in rows)
    low, high = wilson(share, n)
    even = 1.0 / players
    carried = [c for r in rows for c in r["carried"]]
    reused = [c for c in carried if c > 0]
    print(f"{game}, {players} players, {iterations} iterations a decision: {n} games "
          f"({n // players} deals x {players} seats), {seconds:.0f} s")
    print(f"  {label} win share {share / n:.3f} [{low:.3f}, {high:.3f}] against even "
          f"{even:.3f}")
    if players == 2:
        wins = sum(1 for r in rows if r["reward"] == 1.0)
        losses = sum(1 for r in rows if r["reward"] == 0.0)
        print(f"  Elo {elo_estimate(wins, n - wins - losses, losses)}")
    else:
        def rel(p: float) -> float:
            # the share as a two-player score against one average opponent: p / (p + q)
            # with q the average opponent's share (1 - p) / (players - 1)
            q = (1.0 - p) / (players - 1)
            return elo_from_score(p / (p + q)) if p > 0 else -math.inf
        print(f"  Elo against an average opponent {rel(share / n):+.0f} "
              f"[{rel(low):+.0f}, {rel(high):+.0f}]")
    by_seat = {s: [r["reward"] for r in rows if r["seat"] == s] for s in range(players)}
    print("  by seat: " + ", ".join(f"{s}: {sum(v) / max(1, len(v)):.3f}"
                                     for s, v in by_seat.items()))
    if carried:
        print(f"  searches that began with kept statistics: {len(reused)} of {len(carried)} "
              f"({len(reused) / len(carried):.0%}); root visits carried, mean over those: "
              f"{sum(reused) / max(1, len(reused)):.0f} ({sum(reused) / max(1, len(reused)) / iterations:.0%} "
              f"of a budget)")


def add_duel_arguments(ap: argparse.ArgumentParser) -> None:
    """The arguments of run(): the game, its player count, the budget, the deals, the
    processes (this experiment's and those built on it)."""
    ap.add_argument("--iterations", type=search_iterations(), default=3000)
    ap.add_argument("--deals", type=counted(), default=50)
    ap.add_argument("--seed", type=int, default=1000, help="the first deal")
    ap.add_argument("--procs", type=counted(1024), default=2)


def parse_duel_arguments(ap: argparse.ArgumentParser, argv: Optional[List[str]]):
    """The parsed arguments, the game checked (an unknown game or player count: one usage
    line, exit 2)."""
    args = ap.parse_args(argv)
    args.game = check_game_and_players(ap, args.game, args.players)
    return args


def main(argv: Optional[List[str]] = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("game")
    ap.add_argument("--players", type=int, default=2)
    add_duel_arguments(ap)
    args = parse_duel_arguments(ap, argv)
    rows, seconds = run(args.game, args.players, args.iterations, args.deals, args.seed,
                        args.procs, ReuseAgent)
    summarise(args.game, args.players, args.iterations, rows, seconds)


if __name__ == "__main__":
    main()
