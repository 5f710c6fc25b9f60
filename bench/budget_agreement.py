"""Does four times the budget change what the search plays? A diagnostic for the budget row of
docs/strength.md (ismcts at 4x the budget against 1x).

At positions from games of the game's heuristic against itself (fixed deals, every
`--every`-th decision that has a choice), three searches of the player to move: 1x the
budget (seed 1), 1x again (seed 2) and 4x (seed 3), each with the game's defaults. It prints
how often 1x picks the move 4x picks, next to how often two 1x searches agree (the noise of a
search at that budget), with 95% Wilson intervals; and what the 4x search thinks 1x's pick
costs: the 4x tree's win probability of its own pick less that of 1x's pick, over all
positions (a move 1x picked that 4x never visited counts at 4x's lowest). That cost leans
high: a root move the search stops visiting keeps the value it had then, while the move it
keeps searching gains as its subtree's later choices improve. So each position also prints
the share of 4x's visits that 1x's pick received, and the summary counts the picks 4x
starved (under a tenth of its visits).

    python bench/budget_agreement.py khiva --players 2 --positions 40
    python bench/budget_agreement.py khiva --players 2 --positions 40 --scale 0.1
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path
from typing import Dict, Iterator, List, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cext.core import GameCore  # noqa: E402
from engine.registry import game_info, new_game  # noqa: E402
from search.config import Budget, game_config, reproducible_budget  # noqa: E402
from search.heuristics import heuristic_for  # noqa: E402
from search.ismcts import search  # noqa: E402
from search.stats import wilson  # noqa: E402


def positions(game: str, players: int, every: int,
              first_deal: int) -> Iterator[Tuple[int, int, GameCore]]:
    """(deal, decision, position) for decisions with a choice, every `every`-th of each game,
    from heuristic self-play on deals first_deal, first_deal + 1, ... (each seat's heuristic
    sees only its own information). Decisions count from 0 in each game."""
    choose = heuristic_for(game)
    deal = first_deal
    while True:
        state = new_game(game, players, seed=deal)
        rng = random.Random(deal)
        decision = 0
        while not state.is_terminal():
            if len(state.legal_moves()) > 1:
                if decision % every == every // 2:
                    yield deal, decision, state.clone()
                decision += 1
            player = state.to_move
            world = state.determinized(player, rng.getrandbits(63))
            state.apply(choose(world, player, rng))
        deal += 1


def searched(state: GameCore, iterations: int,
             seed: int) -> Tuple[int, Dict[int, float], Dict[int, float]]:
    """The move a search of `iterations` picks, each root move's win probability and each root
    move's share of the root's visits."""
    config = game_config(state.game, state.n_players)
    result = search(state, Budget(iterations=iterations), config, seed=seed)
    visited = [s for s in result.stats if s.visits]
    total = sum(s.visits for s in visited)
    return (result.move, {s.move: s.win_probability for s in visited},
            {s.move: s.visits / total for s in visited})


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--positions", type=int, default=40)
    parser.add_argument("--scale", type=float, default=1.0,
                        help="1x budget as a multiple of the game's default (1: the default)")
    parser.add_argument("--every", type=int, default=7,
                        help="take every N-th decision of a game (default 7)")
    parser.add_argument("--first-deal", type=int, default=100)
    args = parser.parse_args(argv)
    try:
        game_info(args.game).check_players(args.players)
    except (KeyError, ValueError) as err:
        parser.error(str(err).strip("'\""))
    if args.positions < 1 or args.every < 1 or not 0 < args.scale <= 16:
        parser.error("--positions and --every must be at least 1, --scale in (0, 16]")
    base = max(1, round(reproducible_budget(args.game, args.players).iterations * args.scale))
    print(f"{args.game}, {args.players} players: 1x = {base:,} iterations, 4x = {4 * base:,}")
    same = differs_1x = starved = 0
    cost = 0.0
    started = time.process_time()
    found = positions(args.game, args.players, args.every, args.first_deal)
    for n, (deal, decision, state) in enumerate(found, 1):
        one, _, _ = searched(state, base, 1)
        again, _, _ = searched(state, base, 2)
        four, values, shares = searched(state, 4 * base, 3)
        same += one == four
        differs_1x += one != again
        starved += one != four and shares.get(one, 0.0) < 0.1
        gap = values[four] - values.get(one, min(values.values()))
        cost += gap
        print(f"  position {n} (deal {deal}, decision {decision}, "
              f"{len(state.legal_moves())} moves): "
              f"1x {state.move_to_text(one)}, 1x again {state.move_to_text(again)}, "
              f"4x {state.move_to_text(four)}; 4x values its pick {gap:+.3f} over 1x's "
              f"({shares.get(one, 0.0):.0%} of 4x's visits on 1x's pick)", flush=True)
        if n == args.positions:
            break
    n = args.positions
    lo, hi = wilson(same, n)
    lo2, hi2 = wilson(n - differs_1x, n)
    print(f"1x picks 4x's move: {same}/{n} = {same / n:.2f} [{lo:.2f}, {hi:.2f}]")
    print(f"two 1x searches agree: {n - differs_1x}/{n} = {(n - differs_1x) / n:.2f} "
          f"[{lo2:.2f}, {hi2:.2f}]")
    print(f"what 4x thinks 1x's pick costs, mean over the positions: {cost / n:+.4f} "
          f"win probability ({time.process_time() - started:.0f} s CPU)")
    print(f"1x's pick starved by 4x (under 10% of its visits): {starved} of the "
          f"{n - same} positions where they differ")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
