"""Golden numbers (search/golden.py): perft counts, the search signature and the random
playouts of every game are the recorded ones, so a change of behaviour is seen at once. After
a deliberate change, record them again with `python -m search.golden --write` and say why in
the commit."""
import pytest

from cext.ismcts import random_playout_outcomes, random_playouts
from engine.registry import GAMES, new_game
from search.golden import PLAY_PARTS, dumps, golden, golden_file, load_golden, play_text


@pytest.mark.parametrize("game", sorted(GAMES))
def test_perft_search_signature_and_random_playouts_are_the_recorded_ones(game):
    recorded = load_golden(game)
    assert recorded["perft"] and recorded["signature"] and recorded["playouts"]
    now = golden(game, recorded)
    assert now["perft"] == recorded["perft"]
    assert now["signature"] == recorded["signature"]
    assert now["playouts"] == recorded["playouts"]


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_golden_playouts_are_the_loop_random_playouts_times(game):
    """The same seeded games: random_playouts' move count is the outcomes' total."""
    state = new_game(game, 3, 5)
    outcomes = random_playout_outcomes(state, 7, 3)
    assert len(outcomes) == 7 and all(len(scores) == 3 for _, scores in outcomes)
    assert sum(moves for moves, _ in outcomes) == random_playouts(state, 7, 3)[1]


def test_the_strength_fingerprint_reads_only_what_decides_play():
    """bench/strength.py hashes perft and signature (play_text), not the random playouts, so
    adding or changing that part voids no recorded game; the file's text begins the same."""
    for game in GAMES:
        text = play_text(game)
        assert text == dumps(load_golden(game), PLAY_PARTS)
        assert '"playouts"' not in text and '"signature"' in text
        assert golden_file(game).read_text().startswith(text[:-3])


@pytest.mark.parametrize("bad", [-1, 10_001, 2.5, "3", True, None])
def test_random_playout_outcomes_refuses_a_bad_count(bad):
    with pytest.raises(ValueError, match="games"):
        random_playout_outcomes(new_game("khiva", 2, 1), bad, 1)
