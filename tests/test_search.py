"""ISMCTS: no cheating, reproducibility, sanity in crafted positions, strength against random."""

import pytest

from engine.games.khiva import Khiva
from khiva_support import position
from search import Budget, SearchConfig, search
from search.ismcts import Searcher
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
    a = search(g, Budget(400), SearchConfig(mode=mode), seed=3)
    b = search(twin, Budget(400), SearchConfig(mode=mode), seed=3)
    assert stats_of(a) == stats_of(b) and a.move == b.move
    assert a.nodes == b.nodes


def test_the_same_seed_reproduces_the_search_and_another_seed_differs():
    g = Khiva(3, 4)
    a = search(g, Budget(500), seed=1)
    b = search(g, Budget(500), seed=1)
    c = search(g, Budget(500), seed=2)
    assert stats_of(a) == stats_of(b)
    assert stats_of(a) != stats_of(c)


def test_statistics_add_up():
    g = Khiva(3, 6)
    r = search(g, Budget(700), seed=9)
    assert sum(s.visits for s in r.stats) == 700     # every iteration passes the root once
    assert all(s.availability <= 700 for s in r.stats)
    assert all(0.0 <= s.mean_reward <= 1.0 for s in r.stats)
    assert {s.move for s in r.stats} <= set(g.legal_moves())
    assert r.move == r.stats[0].move and r.text == g.move_to_text(r.move)


def test_moves_are_ranked_by_visits_not_by_a_mean_of_few_visits():
    """The choice is the most visited move; a move with fewer visits and a higher mean (here
    the fifth and the sixth) ranks below."""
    r = search(Khiva(3, 6), Budget(120), seed=9)
    visits = [s.visits for s in r.stats]
    assert visits == sorted(visits, reverse=True)
    assert any(a.mean_reward < b.mean_reward for a, b in zip(r.stats, r.stats[1:]))


def test_keying_modes_grow_different_trees():
    g = Khiva(3, 6)
    so = search(g, Budget(2000), SearchConfig(mode="so"), seed=9)
    mo = search(g, Budget(2000), SearchConfig(mode="mo"), seed=9)
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
        r = search(g, Budget(3000), SearchConfig(mode=mode), seed=1)
        assert r.text.startswith("play-K5-"), r.stats[:3]


def test_a_full_tree_keeps_iterating_and_still_answers():
    g = Khiva(3, 2)
    r = search(g, Budget(300), SearchConfig(max_nodes=10), seed=1)
    assert r.tree_full and r.nodes == 10 and r.iterations == 300
    assert r.move in g.legal_moves()


def test_a_time_budget_is_respected():
    g = Khiva(3, 2)
    r = search(g, Budget(seconds=0.2), seed=1)
    assert r.iterations > 0 and r.seconds < 1.0


@pytest.mark.parametrize("call", [
    lambda g: search(g, Budget(iterations=0)),
    lambda g: search(g, Budget(iterations=-5)),
    lambda g: search(g, Budget(10), SearchConfig(mode="xx")),
    lambda g: search(g, Budget(10), SearchConfig(c=-1)),
    lambda g: search(g, Budget(10), player=1),
    lambda g: search(g, Budget(10), SearchConfig(max_nodes=0)),
    lambda g: search(g, Budget(10), seed=1.5),
    lambda g: search(g, Budget(10), seed="7"),
    lambda g: search(g, Budget(10), seed=True),
    lambda g: search(g, Budget(10), stop=5),
    lambda g: Searcher(seed=0.5),
    lambda g: Searcher().search(g, Budget(10), seed="7"),
], ids=["no limit", "negative", "mode", "c", "player", "max_nodes", "float seed", "str seed",
        "bool seed", "stop without is_set", "Searcher float seed", "Searcher str seed"])
def test_bad_search_arguments_are_refused(call):
    with pytest.raises(ValueError):
        call(Khiva(3, 1))


def test_a_seed_counts_modulo_2_to_the_64():
    """Any integer seeds a search (the agents derive large ones); only its value modulo
    2**64 counts, so -1 and 2**64 - 1 search alike."""
    g = Khiva(3, 1)
    a, b = search(g, Budget(300), seed=-1), search(g, Budget(300), seed=2**64 - 1)
    assert [(s.move, s.visits) for s in a.stats] == [(s.move, s.visits) for s in b.stats]


def test_searching_a_finished_game_is_refused():
    g = Khiva(3, 1)
    while not g.is_terminal():
        g.apply(g.legal_moves()[0])
    with pytest.raises(ValueError):
        search(g, Budget(10))


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


@pytest.mark.parametrize("make,message", [
    (lambda: SearchConfig(c=-0.1), "exploration constant must be >= 0"),
    (lambda: SearchConfig(c=float("nan")), "exploration constant must be >= 0"),
    (lambda: SearchConfig(mode="xx"), "unknown keying mode 'xx'"),
    (lambda: SearchConfig(max_nodes=0), "max_nodes must be between 1 and 50,000,000"),
    (lambda: SearchConfig(max_nodes=50_000_001), "max_nodes must be between 1 and 50,000,000"),
    (lambda: SearchConfig(score_weight=1.5), "score_weight must be between 0 and 1"),
    (lambda: SearchConfig(score_weight="half"), "score_weight must be between 0 and 1"),
    (lambda: SearchConfig(determinize=1), "determinize must be True or False"),
    (lambda: Budget(iterations=-1), "budgets must be positive"),
    (lambda: Budget(seconds=-0.5), "budgets must be positive"),
    (lambda: Budget(iterations=2.5), "a budget is a number of iterations and of seconds"),
    (lambda: Budget(seconds=float("nan")), "a budget is a number of iterations and of seconds"),
    (lambda: Budget.of(0), "a budget needs iterations > 0 or seconds > 0"),
    (lambda: Budget.of({"depth": 3}), "unknown budget keys"),
    # an infinite or absurd limit is "no limit" in disguise: it would search forever
    (lambda: Budget(seconds=float("inf")), "at most 1,000,000,000 iterations and 86,400 seconds"),
    (lambda: Budget.of(1e300), "at most 1,000,000,000 iterations and 86,400 seconds"),
    (lambda: Budget.of(10**20), "at most 1,000,000,000 iterations and 86,400 seconds"),
    (lambda: Budget.of({"iterations": "10"}), "a budget is a number of iterations and of seconds"),
    (lambda: Budget.of({"iterations": 1.5}), "a budget is a number of iterations and of seconds"),
    (lambda: Budget.of({"seconds": "inf"}), "a budget is a number of iterations and of seconds"),
])
def test_a_bad_configuration_or_budget_is_refused_where_it_is_made(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_configuration_and_budget_are_frozen_values_that_pickle():
    import dataclasses
    import pickle

    config, budget = SearchConfig(c=1, mode="mo"), Budget(300, 0.5)
    assert config.c == 1.0 and isinstance(config.c, float)
    assert pickle.loads(pickle.dumps(config)) == config and hash(config) == hash(
        SearchConfig(c=1.0, mode="mo"))
    assert pickle.loads(pickle.dumps(budget)) == budget
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.c = 2.0
    assert Budget().unlimited and not budget.unlimited
    assert Budget.of(300) == Budget(300) and Budget.of(0.5) == Budget(seconds=0.5)
    assert Budget.of({"iterations": 3, "seconds": 1}) == Budget(3, 1.0)


def test_every_field_is_documented_where_it_is_declared():
    """As python-chess documents chess.engine.Limit: a docstring under each field."""
    import ast
    import inspect

    import search.config

    tree = ast.parse(inspect.getsource(search.config))
    for cls in (SearchConfig, Budget):
        body = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls.__name__).body
        documented = {a.target.id for a, b in zip(body, body[1:])
                      if isinstance(a, ast.AnnAssign) and isinstance(b, ast.Expr)
                      and isinstance(b.value, ast.Constant) and len(b.value.value) > 40}
        assert documented == set(cls.__dataclass_fields__), cls


def test_the_keyword_form_is_the_same_search_and_each_field_comes_once():
    g = Khiva(3, 4)
    a = search(g, Budget(300), SearchConfig(mode="mo", score_weight=0.0), seed=2)
    b = search(g, iterations=300, mode="mo", score_weight=0.0, seed=2)
    assert stats_of(a) == stats_of(b)
    with pytest.raises(ValueError, match="give the budget once"):
        search(g, Budget(300), iterations=300)
    with pytest.raises(ValueError, match="give the configuration once"):
        search(g, Budget(300), SearchConfig(), mode="mo")
    with pytest.raises(TypeError, match="unexpected keyword argument 'depth'"):
        search(g, Budget(300), depth=3)
