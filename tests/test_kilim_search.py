"""ISMCTS on Kilim: no cheating, and strength of ismcts and of the heuristic against random."""

import pytest

from engine.games.kilim import Kilim
from search import search
from search.agents import HeuristicAgent, IsmctsAgent, RandomAgent
from game_support import advance, stats_of


def twin_differs(g, me):
    for seed in (777, 778, 779, 780):
        twin = g.determinized(me, seed)
        if twin.to_json() != g.to_json():
            return twin
    raise AssertionError("no hidden difference")


CASES = [(2, 0), (2, 1), (3, 2), (3, 40), (4, 3), (4, 77), (5, 150)]


@pytest.mark.parametrize("mode", ["so", "mo"])
@pytest.mark.parametrize("players,moves", CASES)
def test_states_the_searcher_cannot_tell_apart_give_the_same_search(players, moves, mode):
    g = advance(Kilim(players, 50 + moves), moves, seed=moves)
    me = g.to_move
    twin = twin_differs(g, me)
    assert twin.to_json(view=me) == g.to_json(view=me)
    a = search(g, iterations=300, seed=3, mode=mode)
    b = search(twin, iterations=300, seed=3, mode=mode)
    assert stats_of(a) == stats_of(b) and a.move == b.move and a.nodes == b.nodes


def play(agents, seed, n=2):
    g = Kilim(n, seed)
    while not g.is_terminal():
        g.apply(agents[g.to_move].choose(g))
    return g.rewards()


def test_ismcts_beats_random_in_nine_of_ten_duels():
    """ismcts at 200 iterations against random over 30 fixed duel deals, seats alternated."""
    wins, games = 0.0, 30
    for seed in range(games):
        seat = seed % 2
        agents = [RandomAgent(seed), RandomAgent(seed + 1)]
        agents[seat] = IsmctsAgent(seed=seed, iterations=200)
        wins += play(agents, 3000 + seed)[seat]
    assert wins / games >= 0.9, wins


def test_heuristic_beats_random_clearly():
    wins, games = 0.0, 10
    for seed in range(games):
        seat = seed % 2
        agents = [RandomAgent(seed), RandomAgent(seed + 1)]
        agents[seat] = HeuristicAgent(seed)
        wins += play(agents, 4000 + seed)[seat]
    assert wins / games >= 0.8, wins
