"""Golden numbers (search/golden.py): perft counts and the search signature of every game are
the recorded ones, so a change of behaviour is seen at once. After a deliberate change,
record them again with `python -m search.golden --write` and say why in the commit."""
import pytest

from engine.registry import GAMES
from search.golden import golden, load_golden


@pytest.mark.parametrize("game", sorted(GAMES))
def test_perft_and_search_signature_are_the_recorded_ones(game):
    recorded = load_golden(game)
    assert recorded["perft"] and recorded["signature"]
    now = golden(game, recorded)
    assert now["perft"] == recorded["perft"]
    assert now["signature"] == recorded["signature"]
