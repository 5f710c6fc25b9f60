"""Do priors in the tree gain? Progressive bias (Chaslot et al.): a move's UCB value gains
w x prior / (visits + 1), and untried moves of higher prior go first. One agent searches
with a prior, the others without; same budget in iterations, same configuration (the game's
tuned one), same seeding: only the prior differs.

    python bench/priors.py khiva --players 3 --prior heuristic --weight 1 --deals 100
    python bench/priors.py khan --players 2 --prior policy --weight 1 --deals 150

Priors (cext.ismcts.Tree arguments prior_weight and policy_prior, and Tree.set_root_prior):
  heuristic  at the root only: the share of `--samples` determinizations in which the game's
             rule-based agent (search/heuristics) picks each move, computed once per
             decision in Python (its time is not in the iteration budget: it is printed)
  policy     at every node: the move the game's playout policy picks in the iteration's
             world (over the visits, the policy's frequency of each move); a game without a
             policy plays at random, so this prior is noise there

The tables printed are those of bench/tree_reuse.py (seats rotated, 95% Wilson intervals).
"""
from __future__ import annotations

import argparse
import functools
import random
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_support import counted  # noqa: E402
from cext.core import GameCore  # noqa: E402
from engine.cli import number_in  # noqa: E402
from cext.ismcts import Tree  # noqa: E402
from search.config import SearchConfig, game_config  # noqa: E402
from search.heuristics import heuristic_for  # noqa: E402
from search.ismcts import collect, run_tree  # noqa: E402
from tree_reuse import (FreshAgent, add_duel_arguments, parse_duel_arguments, run,  # noqa: E402
                        summarise)


def heuristic_prior(state: GameCore, player: int, samples: int, seed: int) -> Dict[int, float]:
    """{move: share of `samples` determinizations for `player` in which the game's heuristic
    picks it}."""
    choose = heuristic_for(state.game)
    rng = random.Random(seed)
    counts: Dict[int, float] = {}
    for _ in range(samples):
        world = state.determinized(player, rng.getrandbits(63))
        move = choose(world, player, rng)
        counts[move] = counts.get(move, 0.0) + 1.0 / samples
    return counts


class PriorAgent(FreshAgent):
    """A search on a new tree at every decision, with progressive bias from a prior."""

    name = "prior"

    def __init__(self, seed: int, iterations: int, config: Optional[SearchConfig],
                 prior: str = "heuristic", weight: float = 1.0, samples: int = 16) -> None:
        super().__init__(seed, iterations, config)
        self.prior, self.weight, self.samples = prior, weight, samples
        self.prior_seconds: List[float] = []

    def search(self, state: GameCore, seed: int) -> int:
        c = self.config or game_config(state.game, state.n_players)
        player = state.to_move
        tree = Tree(state, player, seed, c.c, c.mode, c.max_nodes, True, c.determinize,
                    c.score_weight, c.playout == "policy", self.weight,
                    self.prior == "policy")
        if self.prior == "heuristic":
            t0 = time.perf_counter()
            tree.set_root_prior(heuristic_prior(state, player, self.samples, seed))
            self.prior_seconds.append(time.perf_counter() - t0)
        run_tree(tree, self.budget)
        return collect(state, tree, 0.0).move


def main(argv: Optional[List[str]] = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("game")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--prior", choices=("heuristic", "policy"), default="heuristic")
    ap.add_argument("--weight", type=number_in(0, 1000), default=1.0)
    ap.add_argument("--samples", type=counted(10_000), default=16,
                    help="determinizations (heuristic)")
    add_duel_arguments(ap)
    args = parse_duel_arguments(ap, argv)
    factory = functools.partial(PriorAgent, prior=args.prior, weight=args.weight,
                                samples=args.samples)
    rows, seconds = run(args.game, args.players, args.iterations, args.deals, args.seed,
                        args.procs, factory)
    summarise(args.game, args.players, args.iterations, rows, seconds,
              f"prior agent ({args.prior}, weight {args.weight:g})")
    if args.prior == "heuristic":
        t0 = time.perf_counter()
        state = __import__("engine.registry", fromlist=["new_game"]).new_game(
            args.game, args.players, args.seed)
        heuristic_prior(state, state.to_move, args.samples, 0)
        print(f"  the heuristic prior of the opening position took "
              f"{(time.perf_counter() - t0) * 1000:.0f} ms ({args.samples} determinizations)")


if __name__ == "__main__":
    main()
