"""Smooth UCT (issue 14): an off-by-default selection rule (SearchConfig.selection="smooth",
agent option selection=smooth) that sometimes follows a node's visit shares instead of UCB.
Legal, reproducible for a seed, different from UCB, and blind to what the searcher cannot see
(the conformance suite's twin-state test runs with it too)."""
import pytest

from cext.ismcts import Tree
from engine.registry import new_game
from search.agents import parse_agent
from search.config import SearchConfig
from search.ismcts import search
from search.match import play_game

UCB = SearchConfig(mode="so", score_weight=0.5)
SMOOTH = SearchConfig(mode="so", score_weight=0.5, selection="smooth")


def table(result):
    return (result.move, result.nodes, result.iterations,
            [(s.move, s.visits, s.mean_reward, s.availability) for s in result.stats])


@pytest.mark.parametrize("game,players", [("khan", 4), ("khiva", 2), ("kilim", 3),
                                          ("taschkent", 3)])
def test_smooth_selection_searches_legal_moves_reproducibly(game, players):
    state = new_game(game, players, seed=6)
    first = search(state, iterations=3000, seed=8, config=SMOOTH)
    assert first.move in state.legal_moves()
    assert sum(s.visits for s in first.stats) == 3000
    assert table(first) == table(search(state, iterations=3000, seed=8, config=SMOOTH))
    assert table(first) != table(search(state, iterations=3000, seed=8, config=UCB))


def test_the_selection_rule_is_ucb_or_smooth():
    assert SearchConfig().selection == "ucb"
    with pytest.raises(ValueError, match="selection"):
        SearchConfig(selection="thompson")
    with pytest.raises(ValueError, match="selection"):
        parse_agent("ismcts:selection=greedy")
    assert parse_agent("ismcts:selection=smooth").options["selection"] == "smooth"


def test_smooth_selection_and_progressive_bias_are_refused_together():
    state = new_game("khiva", 2, seed=1)
    with pytest.raises(ValueError, match="Smooth UCT and progressive bias"):
        Tree(state, state.to_move, 1, 0.7, "so", 1000, True, True, 0.5, True, 1.0, False,
             smooth=True)


def test_an_agent_with_smooth_selection_plays_whole_games_the_same_for_a_seed():
    specs = [parse_agent("ismcts:iterations=300,selection=smooth"), parse_agent("random")]
    games = [play_game("khiva", [s.build(10 + i) for i, s in enumerate(specs)], seed=4).moves
             for _ in range(2)]
    assert games[0] == games[1] and len(games[0]) > 10
