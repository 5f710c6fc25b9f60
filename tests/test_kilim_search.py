"""Strength of ismcts and of the heuristic against random on Kilim. (That the search cannot
tell apart what its player cannot is the conformance tests', tests/test_conformance.py.)"""
from search.agents import HeuristicAgent, IsmctsAgent, RandomAgent
from game_support import hero_share


def test_ismcts_beats_random_in_nine_of_ten_duels():
    """ismcts at 200 iterations against random over 30 fixed duel deals, seats alternated."""
    share = hero_share("kilim", 2, 30, 3000, lambda s: IsmctsAgent(seed=s, iterations=200),
                       lambda s: [RandomAgent(s), RandomAgent(s + 1)])
    assert share >= 0.9, share


def test_heuristic_beats_random_clearly():
    share = hero_share("kilim", 2, 10, 4000, HeuristicAgent,
                       lambda s: [RandomAgent(s), RandomAgent(s + 1)])
    assert share >= 0.8, share
