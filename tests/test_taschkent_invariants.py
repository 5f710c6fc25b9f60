"""Invariants over thousands of random Taschkent games at every player count."""
import random

import pytest

from engine.games.taschkent import Taschkent

GAMES_PER_COUNT = 1000         # 3,000 games over the three player counts
MOVE_LIMIT = 5000              # far above any real game: a game that gets here does not end


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_games_conserve_components_and_always_end(players):
    """Goods, posts, huts and cards conserved and Tugrik never negative (check_invariants after
    every move); legal moves distinct and ascending; every game ends with a proper ranking."""
    rng = random.Random(players)
    lengths, cycles = [], []
    for seed in range(GAMES_PER_COUNT):
        g = Taschkent(players, seed)
        g.check_invariants()
        moves = 0
        while not g.is_terminal():
            legal = g.legal_moves()
            assert legal and legal == sorted(set(legal)), "moves must be distinct and ascending"
            g.apply(rng.choice(legal))
            g.check_invariants()
            moves += 1
            assert moves < MOVE_LIMIT
        d = g.to_json()
        assert d["end_triggered"] or d["last_card_taken"], "the game ended without a reason"
        assert g.trading_rounds < 30, "the safety limit was reached"
        ranking, rewards = g.ranking(), g.rewards()
        assert min(ranking) == 1 and abs(sum(rewards) - 1.0) < 1e-9
        assert all(rewards[p] == 0 for p in g.eliminated_players())
        if players == 2:
            assert g.eliminated_players() == []
        lengths.append(moves)
        cycles.append(g.trading_rounds)
    assert min(lengths) > 10 and max(cycles) > min(cycles)


def test_the_same_seed_deals_the_same_game():
    a, b = Taschkent(4, 123), Taschkent(4, 123)
    assert a.to_json() == b.to_json()
    assert Taschkent(4, 124).to_json() != a.to_json()


def test_clone_is_independent():
    g = Taschkent(3, 9)
    c = g.clone()
    g.apply(g.legal_moves()[-1])
    assert c.to_json() != g.to_json()
    assert c.to_json() == Taschkent(3, 9).to_json()
