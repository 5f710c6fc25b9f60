"""Invariants over 2,000 random Kilim games at each of 4 and 5 players."""
import pytest

from test_kilim_invariants import GAMES_PER_COUNT, run_games


@pytest.mark.parametrize("players", [4, 5])
def test_random_games_conserve_components_and_always_end(players):
    run_games(players, GAMES_PER_COUNT)
