"""Invariants over thousands of random Khiva games at every player count."""
import random

import pytest

from engine.games.khiva import Khiva

GAMES_PER_COUNT = 500          # 2,000 games over the four player counts
MOVE_LIMIT = 3000              # far above any real game: a game that gets here does not end


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_random_games_conserve_components_and_always_end(players):
    rng = random.Random(players)
    lengths = []
    for seed in range(GAMES_PER_COUNT):
        g = Khiva(players, seed)
        g.check_invariants()
        moves = 0
        while not g.is_terminal():
            legal = g.legal_moves()
            assert legal == sorted(set(legal)) and legal, "moves must be distinct and ascending"
            g.apply(rng.choice(legal))
            g.check_invariants()
            moves += 1
            assert moves < MOVE_LIMIT
        d = g.to_json()
        assert d["teapot_pile_count"] == 0 or d["carpet_pile_count"] == 0 or d["salt_pile"] == []
        assert sorted(g.ranking())[0] == 1 and abs(sum(g.rewards()) - 1.0) < 1e-9
        lengths.append(moves)
    assert min(lengths) > 10


def test_the_same_seed_deals_the_same_game():
    a, b = Khiva(4, 123), Khiva(4, 123)
    assert a.to_json() == b.to_json()
    assert Khiva(4, 124).to_json() != a.to_json()
