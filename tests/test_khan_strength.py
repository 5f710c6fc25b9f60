"""ISMCTS against the rule-based heuristic in Khan of Khans duels (the issue's target).

The playouts use KhanOfKhans.playout_move (docs/rules/khan_of_khans.md, "Playout policy"):
a C copy of the heuristic's rules with 10% uniform moves. Measured (closing note of the
change): with uniform random playouts ISMCTS won about 10-33% of duels against
search/heuristics/khan.py; with the policy it wins about 45-50% at 1,000-4,000 iterations
(c 0.7, modes so and mo; the run below, mode mo at 1,000 iterations: 18/40 = 0.45,
95% Wilson 0.31-0.60), within noise of an even match: the policy plays as well as the
heuristic (50% over 2,000 policy-against-heuristic duels), and the tree, which tries untried
moves uniformly, does not add a measurable edge at these budgets. So the issue's target
stays an expected failure (strict: the run below is deterministic, and it fails loudly once
met), and a second test guards the measured gain of the policy over random playouts.
"""
import functools

import pytest

from khan_support import play_match
from search.agents import HeuristicAgent, IsmctsAgent

GAMES = 40            # seeds 7000..7039, seats alternated
ITERATIONS = 1000
MODE = "mo"
C = 0.7


@functools.lru_cache(maxsize=None)
def ismcts_share_against_heuristic(games=GAMES, iterations=ITERATIONS, mode=MODE, c=C):
    wins = 0.0
    for seed in range(games):
        seat = seed % 2
        agents = [HeuristicAgent(seed), HeuristicAgent(seed + 1)]
        agents[seat] = IsmctsAgent(seed=seed, iterations=iterations, mode=mode, c=c)
        wins += play_match(agents, 2, 7000 + seed)[seat]
    return wins / games


def test_ismcts_with_the_playout_policy_holds_its_own_against_the_heuristic():
    """Uniform random playouts won about a quarter of these duels; the policy brings ISMCTS
    close to an even match (measured 45-50%). 0.35 is about two standard deviations of a
    40-game share below that."""
    share = ismcts_share_against_heuristic()
    assert share >= 0.35, share


@pytest.mark.xfail(strict=True, reason="ISMCTS with the playout policy wins ~45-50% of duels "
                   "against the heuristic, not measurably more (issue target: more than half)")
def test_ismcts_beats_the_heuristic_more_often_than_not_in_duels():
    share = ismcts_share_against_heuristic()
    assert share > 0.5, share
