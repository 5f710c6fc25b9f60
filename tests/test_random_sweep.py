"""The random-game sweep (bench/random_games.py) checks what it says and reports failures."""
import pytest

from engine.registry import GAMES
from random_sweep import move_chooser, play_one, sweep


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


@pytest.mark.parametrize("game", sorted(GAMES))
@pytest.mark.parametrize("policy", ["playout", "heuristic"])
def test_the_playout_policy_and_the_heuristic_sweep_every_game_cleanly(game, policy):
    report = sweep(game, 0, 1, every=10, policy=policy)
    assert report.games == 2 and report.moves > 20 and report.failures == [], report.failures


def test_each_policy_plays_its_own_game():
    """The policies choose differently (so a sweep with each reaches other states), and each
    replays from its seed: the heuristic's Kilim is not the random one."""
    lengths = {p: play_one("kilim", 5, 50, p) for p in ("random", "playout", "heuristic")}
    assert len(set(lengths.values())) > 1, lengths
    assert play_one("kilim", 5, 50, "heuristic") == lengths["heuristic"]


def test_an_illegal_move_from_the_playout_policy_is_a_failure_naming_the_policy(monkeypatch):
    from engine.games.khan import KhanOfKhans

    monkeypatch.setattr(KhanOfKhans, "playout_choices", lambda self, seed, count=1: [10**6])
    report = sweep("khan", 3, 3, policy="playout")
    assert report.failures == [
        "khan seed 3 (playout): AssertionError: the playout policy chose an illegal move 1000000"]


def test_an_unknown_policy_is_refused_before_any_game():
    with pytest.raises(ValueError, match="unknown policy 'greedy'"):
        sweep("khiva", 0, 0, policy="greedy")
    with pytest.raises(ValueError):
        move_chooser("", 1)
