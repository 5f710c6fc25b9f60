"""ISMCTS: no cheating, reproducibility, sanity in crafted positions, strength against random."""

import pytest

from engine.games.khiva import Khiva
from khiva_support import position
from search import search
from search.agents import IsmctsAgent, RandomAgent
from search.match import play_game
from game_support import advance, stats_of


CASES = [(3, 0), (3, 2), (3, 9), (2, 0), (2, 5), (4, 6), (5, 12)]


@pytest.mark.parametrize("mode", ["so", "mo"])
@pytest.mark.parametrize("players,moves", CASES)
def test_states_the_searcher_cannot_tell_apart_give_the_same_search(players, moves, mode):
    """Two full states that differ only in what the searching player cannot see (other hands,
    hidden choices, pile orders, future deals) give identical output for the same seed."""
    g = advance(Khiva(players, 50 + moves), moves, seed=moves)
    me = g.to_move
    twin = g.determinized(me, 777)
    assert twin.to_json() != g.to_json()             # the hidden parts really differ
    assert twin.to_json(view=me) == g.to_json(view=me)
    a = search(g, iterations=400, seed=3, mode=mode)
    b = search(twin, iterations=400, seed=3, mode=mode)
    assert stats_of(a) == stats_of(b) and a.move == b.move
    assert a.nodes == b.nodes


def test_the_same_seed_reproduces_the_search_and_another_seed_differs():
    g = Khiva(3, 4)
    a = search(g, iterations=500, seed=1)
    b = search(g, iterations=500, seed=1)
    c = search(g, iterations=500, seed=2)
    assert stats_of(a) == stats_of(b)
    assert stats_of(a) != stats_of(c)


def test_statistics_add_up():
    g = Khiva(3, 6)
    r = search(g, iterations=700, seed=9)
    assert sum(s.visits for s in r.stats) == 700     # every iteration passes the root once
    assert all(s.availability <= 700 for s in r.stats)
    assert all(0.0 <= s.mean_reward <= 1.0 for s in r.stats)
    assert {s.move for s in r.stats} <= set(g.legal_moves())
    assert r.move == r.stats[0].move and r.text == g.move_to_text(r.move)


def test_keying_modes_grow_different_trees():
    g = Khiva(3, 6)
    so = search(g, iterations=2000, seed=9, mode="so")
    mo = search(g, iterations=2000, seed=9, mode="mo")
    assert so.moves_in_tree > mo.moves_in_tree       # mo fragments on the opponents' hands


def test_finds_the_card_that_brings_a_seven_point_teapot_home():
    """The last carpet is on the pile; only P0 holds a black card, and black carries the 7:
    the black 5 takes the camel to P0's outpost (the other hands are too low for any outpost)."""
    hands = {0: ["K5", "W1", "B1", "G1", "P1"], 1: ["W2", "B2", "G2", "P2", "W3"],
             2: ["B3", "G3", "P3", "W4", "B4"]}

    def edit(d):
        held = d["carpet_pile"][:-1]
        d["player_state"][1]["carpets_held"] = held[:7]
        d["player_state"][2]["carpets_held"] = held[7:]
        d["carpet_pile"] = d["carpet_pile"][-1:]
    g = position(hands=hands, teapots_on={"black": 7, "white": 2, "blue": 2, "green": 2,
                                          "pink": 3}, edit=edit)
    for mode in ("so", "mo"):
        r = search(g, iterations=3000, seed=1, mode=mode)
        assert r.text.startswith("play-K5-"), r.stats[:3]


def test_a_full_tree_keeps_iterating_and_still_answers():
    g = Khiva(3, 2)
    r = search(g, iterations=300, seed=1, max_nodes=10)
    assert r.tree_full and r.nodes == 10 and r.iterations == 300
    assert r.move in g.legal_moves()


def test_a_time_budget_is_respected():
    g = Khiva(3, 2)
    r = search(g, seconds=0.2, seed=1)
    assert r.iterations > 0 and r.seconds < 1.0


@pytest.mark.parametrize("kwargs", [dict(iterations=0), dict(iterations=-5),
                                    dict(iterations=10, mode="xx"), dict(iterations=10, c=-1),
                                    dict(iterations=10, player=1), dict(iterations=10, max_nodes=0)])
def test_bad_search_arguments_are_refused(kwargs):
    with pytest.raises(ValueError):
        search(Khiva(3, 1), **kwargs)


def test_searching_a_finished_game_is_refused():
    g = Khiva(3, 1)
    while not g.is_terminal():
        g.apply(g.legal_moves()[0])
    with pytest.raises(ValueError):
        search(g, iterations=10)


def test_ismcts_beats_random_in_nine_of_ten_duels():
    """ismcts at 1,000 iterations against random over 40 fixed duel deals, seats alternated."""
    wins = 0.0
    games = 40
    for seed in range(games):
        seat = seed % 2
        agents = [RandomAgent(seed), RandomAgent(seed + 1)]
        agents[seat] = IsmctsAgent(seed=seed, iterations=1000)
        record = play_game("khiva", agents, seed=1000 + seed)
        wins += record.rewards[seat]
    assert wins / games >= 0.9, wins
