"""Golden numbers (search/golden.py): perft counts, the search signature, the heuristic's
games and the random playouts of every game are the recorded ones, so a change of behaviour
is seen at once. After a deliberate change, record them again with `python -m search.golden
--write` and say why in the commit."""
import pytest

from cext.ismcts import random_playout_outcomes, random_playouts
from engine.registry import GAMES, game_info, new_game
from search.golden import (HEURISTIC_GAMES, PARTS, PLAY_PARTS, dumps, golden, golden_file,
                           load_golden, play_text)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_perft_search_signature_heuristic_and_random_playouts_are_the_recorded_ones(game):
    recorded = load_golden(game)
    assert all(recorded[part] for part in PARTS)
    now = golden(game, recorded)
    for part in PARTS:
        assert now[part] == recorded[part], part


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_heuristic_games_cover_every_player_count_and_end(game):
    """One row per player count, each of HEURISTIC_GAMES whole games (every seat scored)."""
    info = game_info(game)
    rows = load_golden(game)["heuristic"]
    assert [r["players"] for r in rows] == list(range(info.min_players, info.max_players + 1))
    for r in rows:
        assert r["deals"][1] - r["deals"][0] + 1 == HEURISTIC_GAMES
        assert len(r["scores"]) == r["players"] and r["moves"] > HEURISTIC_GAMES


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_golden_playouts_are_the_loop_random_playouts_times(game):
    """The same seeded games: random_playouts' move count is the outcomes' total."""
    state = new_game(game, 3, 5)
    outcomes = random_playout_outcomes(state, 7, 3)
    assert len(outcomes) == 7 and all(len(scores) == 3 for _, scores in outcomes)
    assert sum(moves for moves, _ in outcomes) == random_playouts(state, 7, 3)[1]


def test_the_strength_fingerprint_reads_only_what_decides_play():
    """bench/strength.py hashes perft, signature and the heuristic's games (play_text), not the
    random playouts, so adding or changing that part voids no recorded game; the file's text
    begins the same."""
    for game in GAMES:
        text = play_text(game)
        assert text == dumps(load_golden(game), PLAY_PARTS)
        assert '"playouts"' not in text and '"signature"' in text and '"heuristic"' in text
        assert golden_file(game).read_text().startswith(text[:-3])


@pytest.mark.parametrize("bad", [-1, 10_001, 2.5, "3", True, None])
def test_random_playout_outcomes_refuses_a_bad_count(bad):
    with pytest.raises(ValueError, match="games"):
        random_playout_outcomes(new_game("khiva", 2, 1), bad, 1)


def test_a_heuristic_that_plays_otherwise_changes_its_golden_games(monkeypatch):
    """The heuristic's rows see its play, not its source: the same module made to prefer
    another move at one decision in ten changes every player count's digest."""
    import search.heuristics as heuristics
    from search.golden import heuristic_rows

    real = heuristics.heuristic_for
    recorded = load_golden("khan")["heuristic"]
    assert heuristic_rows("khan") == recorded

    def otherwise(game):
        choose = real(game)

        def choose_otherwise(world, player, rng):
            move = choose(world, player, rng)
            legal = world.legal_moves()
            return legal[0] if rng.random() < 0.1 else move
        return choose_otherwise

    monkeypatch.setattr(heuristics, "heuristic_for", otherwise)
    changed = heuristic_rows("khan")
    assert all(a["digest"] != b["digest"] for a, b in zip(changed, recorded))
