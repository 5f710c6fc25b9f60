"""Invariants over 2,000 random Kilim games at each of 2 and 3 players (4 and 5 players:
test_kilim_invariants_large.py): every component accounted for after every move, legal moves
distinct and ascending, every game ends after its 3 days."""
import random

import pytest

from cext.kilim import MOST_MOVES
from engine.games.kilim import Kilim

GAMES_PER_COUNT = 2000
MOVE_LIMIT = 5000              # far above any real game: a game that gets here does not end


def run_games(players, games):
    rng = random.Random(players)
    lengths = []
    for seed in range(games):
        g = Kilim(players, seed)
        g.check_invariants()
        moves = 0
        while not g.is_terminal():
            legal = g.legal_moves()
            assert legal and legal == sorted(set(legal)), "moves must be distinct and ascending"
            assert len(legal) <= MOST_MOVES
            g.apply(rng.choice(legal))
            g.check_invariants()
            moves += 1
            assert moves < MOVE_LIMIT
        d = g.to_json()
        assert d["day"] == 3 and d["pile_counts"] == [0, 0, 0]
        assert sorted(g.ranking())[0] == 1 and abs(sum(g.rewards()) - 1.0) < 1e-9
        lengths.append(moves)
    assert min(lengths) > 30
    return lengths


@pytest.mark.parametrize("players", [2, 3])
def test_random_games_conserve_components_and_always_end(players):
    run_games(players, GAMES_PER_COUNT)


def test_the_same_seed_deals_the_same_game():
    a, b = Kilim(4, 123), Kilim(4, 123)
    assert a.to_json() == b.to_json()
    assert Kilim(4, 124).to_json() != a.to_json()


def test_json_round_trip_mid_game():
    for n in (2, 3, 4, 5):
        g = Kilim(n, n)
        rng = random.Random(n)
        k = 0
        while not g.is_terminal():
            g.apply(rng.choice(g.legal_moves()))
            k += 1
            if k % 5 == 0:
                d = g.to_json()
                h = Kilim.from_json(d)
                assert h.to_json() == d and h.legal_moves() == g.legal_moves()
