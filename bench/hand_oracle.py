"""How much is knowing the opponent's hand worth in a Khiva duel? A ceiling for a better
model of the hidden cards (docs/strength.md, "What knowing the opponent's hand is worth").

The hand oracle searches, at each of its decisions, a copy of the true state in which its
seat has learned where every card of the opponent's hand is (the state's
`whereabouts_by_seat`), so every world it samples keeps that hand and redraws only the rest:
the face-down set-aside cards, the teapot and carpet piles and future deals. It plays
against ismcts at the same iteration count, on the strength table's duplicate deals (game k:
deal 2026000 + k // 2, the oracle in seat k % 2). `--against-cheat` plays the `cheat` agent
(which also knows the piles and future chance) in the oracle's seat instead, for comparison.

    python bench/hand_oracle.py --iterations 15000 --games 100 --jobs 2
    python bench/hand_oracle.py --iterations 15000 --games 100 --jobs 2 --against-cheat
"""
from __future__ import annotations

import argparse
import sys
from multiprocessing import Pool
from pathlib import Path
from typing import Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from cext.core import GameCore  # noqa: E402
from search.agents import Agent, parse_agent  # noqa: E402
from search.config import Budget  # noqa: E402
from search.ismcts import search  # noqa: E402
from search.match import play_game  # noqa: E402
from search.stats import wilson  # noqa: E402
from strength import DEAL_BASE  # noqa: E402  the strength table's deals


def with_opponent_hand_known(state: GameCore) -> GameCore:
    """A copy of the full duel state `state` in which the seat to move knows where every
    card of the other seat's hand is."""
    me = state.to_move
    opponent = 1 - me
    fields = state.to_json()
    learned = [dict(w) for w in fields.get("whereabouts_by_seat") or [{}, {}]]
    for card in fields["player_state"][opponent].get("hand", []):
        learned[me][card] = [opponent]
    fields["whereabouts_by_seat"] = learned
    return type(state).from_json(fields)


class HandOracle(Agent):
    """ismcts with the game's defaults on with_opponent_hand_known(state)."""

    name = "handoracle"

    def __init__(self, seed: int, iterations: int) -> None:
        self.seed, self.iterations, self.decisions = seed, iterations, 0

    def choose(self, state: GameCore) -> int:
        self.decisions += 1
        return search(with_opponent_hand_known(state), Budget(self.iterations, 0),
                      seed=self.seed * 100003 + self.decisions).move

    def describe(self) -> str:
        return f"handoracle:iterations={self.iterations}"


def play_one(job: Tuple[int, int, bool]) -> Tuple[int, float]:
    """Game k: the oracle (or cheat) in seat k % 2 against ismcts; its win share."""
    k, iterations, cheat = job
    seat, deal = k % 2, DEAL_BASE + k // 2
    agents = [parse_agent(f"ismcts:iterations={iterations}").build(deal * 7 + s)
              for s in range(2)]
    agents[seat] = (parse_agent(f"cheat:iterations={iterations}").build(deal * 7 + seat)
                    if cheat else HandOracle(deal * 7 + seat, iterations))
    return k, play_game("khiva", agents, deal, 2).rewards[seat]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", type=int, default=15000)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--against-cheat", action="store_true",
                        help="the cheat agent in the oracle's seat instead")
    args = parser.parse_args()
    if args.iterations < 1 or args.games < 1 or args.jobs < 1:
        parser.error("--iterations, --games and --jobs must be at least 1")
    jobs = [(k, args.iterations, args.against_cheat) for k in range(args.games)]
    with Pool(args.jobs) as pool:
        shares = [share for _, share in sorted(pool.map(play_one, jobs))]
    wins = sum(shares)
    low, high = wilson(wins, len(shares))
    who = "cheat" if args.against_cheat else "hand oracle"
    print(f"{who}, {args.iterations:,} iterations, against ismcts: {wins:g}/{len(shares)} = "
          f"{wins / len(shares):.3f} [{low:.3f}, {high:.3f}]")


if __name__ == "__main__":
    main()
