"""ISMCTS backup: each seat's move statistics hold that seat's own reward.

A search in which every node kept the searcher's reward would let the opponents play for the
searcher, and it still beats random players, so the strength tests do not see it. In a duel
the two seats' rewards add up to 1 in every playout, win shares and score margins alike (a
seat's margin is the other's with its sign turned), so the reward the opponent's node
gathered below a root move is the part of that move's visits the searcher's reward left.
A search on the whole state (keys of the full state, no resampling) reaches exactly one
node of the opponent after each root move, which makes the sum exact. (The first iteration
makes the root's node and stops there, so one root move has a visit that went no further.)
"""
import pytest

from cext.ismcts import Tree
from engine.registry import GAMES, new_game
from game_support import advance

ITERATIONS = 3000


def hands_over(g, move) -> bool:
    """Whether `move` passes the turn to the other seat, with a choice to make."""
    child = g.clone()
    child.apply(move)
    return child.to_move not in (-1, g.to_move) and len(child.legal_moves()) > 1


def duel_position(game: str, opening_moves: int):
    """The first position of a seeded random duel, `opening_moves` moves in or later, where
    at least three moves of the seat to move hand the turn over."""
    g = advance(new_game(game, 2, seed=41), opening_moves, seed=opening_moves)
    while sum(hands_over(g, m) for m in g.legal_moves()) < 3:
        g = advance(g, 1, seed=len(g.legal_moves()))
        assert not g.is_terminal()
    return g


def searched_duel(game: str, opening_moves: int, score_weight: float):
    """A duel's position (duel_position) and a finished whole-state search of it."""
    g = duel_position(game, opening_moves)
    tree = Tree(g, g.to_move, 5, mode="full", resample=False, score_weight=score_weight)
    tree.run(ITERATIONS)
    return g, tree


def opponent_nodes(g, tree):
    """(root move, its visits, its mean reward, the opponent's move statistics after it) for
    each visited root move after which the opponent has a choice."""
    for move, visits, mean, _ in tree.root_stats():
        if visits and hands_over(g, move):
            child = g.clone()
            child.apply(move)
            yield move, visits, mean, tree.stats_at(child)


@pytest.mark.parametrize("score_weight", [0.0, 0.5, 1.0])
@pytest.mark.parametrize("game,opening_moves", [(name, k) for name in GAMES for k in (0, 7)])
def test_the_opponents_node_holds_the_opponents_reward(game, opening_moves, score_weight):
    g, tree = searched_duel(game, opening_moves, score_weight)
    checked, stopped_at_root = 0, 0
    for move, visits, mean, below in opponent_nodes(g, tree):
        went_on = sum(v for _, v, _, _ in below)
        assert went_on in (visits, visits - 1)
        if went_on < visits:                                  # the first iteration's move
            stopped_at_root += 1
            continue
        opponent_reward = sum(v * m for _, v, m, _ in below)
        assert opponent_reward == pytest.approx(visits * (1.0 - mean), abs=1e-3 * visits)
        checked += 1
    assert stopped_at_root <= 1
    assert checked >= 2, "the position gave too few root moves to compare"


@pytest.mark.parametrize("seat", [0, 1])
@pytest.mark.parametrize("game", list(GAMES))
def test_the_root_holds_the_searchers_win_share(game, seat):
    """With no score in the reward, a root move's statistic is the searcher's win share
    over the iterations that began with it (root_outcomes counts it apart), whichever seat
    searches."""
    g = advance(new_game(game, 2, seed=41), 3, seed=3)
    while g.to_move != seat:
        g = advance(g, 1, seed=len(g.legal_moves()))
    tree = Tree(g, seat, 5, mode="full", resample=False, score_weight=0.0)
    tree.run(ITERATIONS)
    outcomes = tree.root_outcomes()
    for move, visits, mean, _ in tree.root_stats():
        _, wins, count = outcomes[move]
        assert count == visits
        assert visits * mean == pytest.approx(wins, abs=1e-3 * max(visits, 1))
    assert 0 < sum(w for _, w, _ in outcomes.values()) < ITERATIONS     # wins and losses
