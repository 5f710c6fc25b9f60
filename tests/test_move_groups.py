"""Move groups (issue 14): an off-by-default two-step selection (SearchConfig.groups, agent
option groups=yes, Tree(group_moves=True)). Where a game declares groups (Khiva: the cards a
move plays) a node picks a group by its moves' summed statistics, then a move of it. Legal,
reproducible, different from plain UCB where groups exist and the same where they do not,
and blind to what the searcher cannot see (the conformance suite's twin-state test runs
with it too)."""
import pytest

from cext.ismcts import Tree
from engine.registry import GAMES, new_game
from search.agents import parse_agent
from search.config import SearchConfig
from search.ismcts import search
from search.match import play_game

PLAIN = SearchConfig(mode="so", score_weight=0.5)
GROUPED = SearchConfig(mode="so", score_weight=0.5, groups=True)


def table(result):
    return (result.move, result.nodes, result.iterations,
            [(s.move, s.visits, s.mean_reward, s.availability) for s in result.stats])


def group_of(state, move):
    return move >> type(state).move_group_shift


def test_only_khiva_declares_groups_and_they_are_the_cards_played():
    assert {name: info.cls.move_group_shift for name, info in GAMES.items()} == \
        {"khiva": 10, "khan": 0, "kilim": 0, "taschkent": 0}
    duel = new_game("khiva", 2, seed=6)
    moves = duel.legal_moves()
    groups = {group_of(duel, m) for m in moves}
    assert len(moves) == 420 and len(groups) == 28        # C(8, 2) plays x C(6, 2) gives
    for g in groups:
        plays = {duel.move_to_text(m).split("-give-")[0] for m in moves if group_of(duel, m) == g}
        assert len(plays) == 1, plays


@pytest.mark.parametrize("players", [2, 3, 5])
def test_grouped_selection_tries_every_group_before_any_group_twice(players):
    state = new_game("khiva", players, seed=6)
    groups = {group_of(state, m) for m in state.legal_moves()}
    first = search(state, iterations=len(groups), seed=8, config=GROUPED)
    tried = [group_of(state, s.move) for s in first.stats if s.visits]
    assert sorted(tried) == sorted(groups)
    plain = search(state, iterations=len(groups), seed=8, config=PLAIN)
    assert len({group_of(state, s.move) for s in plain.stats if s.visits}) < len(groups)


@pytest.mark.parametrize("players", [2, 4])
def test_grouped_search_is_legal_reproducible_and_concentrates_on_a_group(players):
    state = new_game("khiva", players, seed=6)
    grouped = search(state, iterations=6000, seed=8, config=GROUPED)
    assert grouped.move in state.legal_moves()
    assert sum(s.visits for s in grouped.stats) == 6000
    assert table(grouped) == table(search(state, iterations=6000, seed=8, config=GROUPED))
    plain = search(state, iterations=6000, seed=8, config=PLAIN)
    assert table(grouped) != table(plain)

    def top_group_share(result):
        per_group = {}
        for s in result.stats:
            per_group[group_of(state, s.move)] = per_group.get(group_of(state, s.move), 0) + s.visits
        return max(per_group.values()) / 6000
    assert top_group_share(grouped) > top_group_share(plain)


@pytest.mark.parametrize("game,players", [("khan", 4), ("kilim", 3), ("taschkent", 3)])
def test_a_game_without_groups_searches_as_without_the_option(game, players):
    state = new_game(game, players, seed=6)
    assert table(search(state, iterations=2000, seed=8, config=GROUPED)) == \
        table(search(state, iterations=2000, seed=8, config=PLAIN))


def test_the_option_is_yes_or_no_and_off_by_default():
    assert SearchConfig().groups is False
    with pytest.raises(ValueError, match="groups"):
        SearchConfig(groups="yes")
    with pytest.raises(ValueError, match="groups"):
        parse_agent("ismcts:groups=maybe")
    assert parse_agent("ismcts:groups=yes").options["groups"] is True


def test_groups_and_progressive_bias_are_refused_together():
    state = new_game("khiva", 2, seed=1)
    with pytest.raises(ValueError, match="move groups and progressive bias"):
        Tree(state, state.to_move, 1, 0.7, "so", 1000, True, True, 0.5, True, 1.0, False,
             group_moves=True)


def test_a_game_class_with_a_bad_group_shift_is_refused():
    class Misdeclared(GAMES["khiva"].cls):
        move_group_shift = 40
    state = Misdeclared(2, 1)
    with pytest.raises(ValueError, match="move_group_shift"):
        Tree(state, state.to_move, 1, group_moves=True)


def test_an_agent_with_groups_plays_whole_games_the_same_for_a_seed():
    specs = [parse_agent("ismcts:iterations=300,groups=yes"), parse_agent("random")]
    games = [play_game("khiva", [s.build(10 + i) for i, s in enumerate(specs)], seed=4).moves
             for _ in range(2)]
    assert games[0] == games[1] and len(games[0]) > 10
