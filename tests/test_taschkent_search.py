"""Strength of ismcts and the heuristic against random on Taschkent, and a choice of the
heuristic. (That the search cannot tell apart what its player cannot is the conformance
tests', tests/test_conformance.py.)"""
import random

from search.agents import HeuristicAgent, IsmctsAgent, RandomAgent
from game_support import hero_share


def random_players(n):
    return lambda s: [RandomAgent(s * 10 + i) for i in range(n)]


def test_ismcts_beats_random_in_nine_of_ten_three_player_games():
    """ismcts (300 iterations a move) against two random players, 30 fixed deals, seats
    rotated; win share (measured: 1.0 over 60 games at 300 iterations)."""
    share = hero_share("taschkent", 3, 30, 1000, lambda s: IsmctsAgent(seed=s, iterations=300),
                       random_players(3))
    assert share >= 0.9, share


def test_heuristic_beats_random_clearly():
    """The heuristic against random players at 3 players: far above the 1/3 of a random seat."""
    share = hero_share("taschkent", 3, 60, 1000, HeuristicAgent, random_players(3))
    assert share >= 0.7, share


def test_heuristic_prefers_a_printed_hut_for_a_sold_good():
    """Among equally paid sales the heuristic puts the good on a pre-printed hut (it stays),
    not on a neutral or its own hut (those can be moved by Caravan moves on)."""
    from taschkent_support import build, fresh, iron_to_sell_in_r2, play
    from search.heuristics.taschkent import choose
    d = fresh()
    n = iron_to_sell_in_r2(d, "H0")
    g = build(d)
    play(g, "no-move")
    sales = [g.move_to_text(m) for m in g.legal_moves() if g.move_to_text(m) != "pass"]
    assert {t.rsplit("-", 1)[1] for t in sales} == {"R2a", "R2b", n, "H0"}
    for seed in range(20):
        text = g.move_to_text(choose(g.clone(), 0, random.Random(seed)))
        assert text.startswith("sell-iron-R2-") and text.rsplit("-", 1)[1] in ("R2a", "R2b")
