"""Strength of ismcts and of the heuristic against random on Kilim. (That the search cannot
tell apart what its player cannot is the conformance tests', tests/test_conformance.py.)"""
import pytest

from search.agents import HeuristicAgent, IsmctsAgent, RandomAgent
from game_support import hero_share

# agent: (the agent for a seed, first deal, duels, the win share it must reach); seats alternate
TARGETS = {
    "ismcts": (lambda s: IsmctsAgent(seed=s, iterations=200), 3000, 30, 0.9),
    "heuristic": (HeuristicAgent, 4000, 10, 0.8),
}


@pytest.mark.parametrize("agent", sorted(TARGETS))
def test_beats_random_in_duels(agent):
    hero, deal, games, target = TARGETS[agent]
    share = hero_share("kilim", 2, games, deal, hero, lambda s: [RandomAgent(s), RandomAgent(s + 1)])
    assert share >= target, share
