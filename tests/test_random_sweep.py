"""The random-game sweep (bench/random_games.py) checks what it says and reports failures."""
import pytest

from engine.registry import GAMES
from random_sweep import play_one, sweep


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_short_sweep_of_every_game_is_clean(game):
    report = sweep(game, 0, 3, every=10)
    assert report.games == 4 and report.moves > 40 and report.failures == []


def test_a_state_that_breaks_its_invariants_is_reported_with_its_seed(monkeypatch):
    """The oracle can fail: a Khiva whose invariants break after 30 moves is a failure naming
    the seed that replays it, and the sweep goes on to the next game."""
    from engine.games.khiva import Khiva

    calls = {"n": 0}
    real = Khiva.check_invariants

    def breaks_late(self):
        calls["n"] += 1
        if calls["n"] == 30:
            raise AssertionError("broken on purpose")
        real(self)

    monkeypatch.setattr(Khiva, "check_invariants", breaks_late)
    report = sweep("khiva", 7, 8, every=10)
    assert report.games == 2
    assert report.failures == ["khiva seed 7: AssertionError: broken on purpose"]


def test_a_game_replays_from_its_number():
    assert play_one("kilim", 12, 25) == play_one("kilim", 12, 25)
