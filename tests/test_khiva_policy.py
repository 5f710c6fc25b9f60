"""Khiva's playout moves (KhivaCore.playout_move, C): what the search's playouts play.

`playout_choices(seed, k)` returns k of its draws from one Rng seeded by `seed`. Khiva keeps
the base's default, a uniformly random legal move (random_move): every playout policy tried
lost or drew at equal time against it (docs/rules/khiva.md, "Playouts"). These tests check
that the playout moves are always legal, reproducible for a seed, spread over every legal
move, and drawn from nothing the player to move cannot see.
"""

import pytest

from engine.games.khiva import Khiva
from game_support import advance, check_playouts_read_only_the_movers_information, playout_draws


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_the_playout_moves_are_always_legal(players):
    """Thousands of positions of random games (walked half by the playout moves themselves,
    half at random), 20 draws in each."""
    phases = set()
    positions = 0
    for g, legal, choices in playout_draws(lambda k: Khiva(players, 400 + k), 40):
        assert set(choices) <= legal, (g.to_json()["phase"], sorted(set(choices) - legal))
        positions += 1
        phases.add(g.to_json()["phase"])
    assert positions > 1000, positions
    assert phases == {"choose", "boost", "shop4"}, phases


def test_a_finished_game_has_no_playout_move():
    g = advance(Khiva(3, 5), 10_000, seed=5)
    assert g.is_terminal() and g.playout_choices(1, 5) == []
    assert Khiva(3, 1).playout_choices(0, 0) == []


@pytest.mark.parametrize("players", [2, 3, 5])
def test_the_playout_moves_are_reproducible_for_a_seed(players):
    g = advance(Khiva(players, 50 + players), 4, seed=players)
    a = g.playout_choices(7, 300)
    assert a == g.playout_choices(7, 300)
    assert a == g.clone().playout_choices(7, 300)
    assert a != g.playout_choices(8, 300)           # another seed, other draws


@pytest.mark.parametrize("players, draws", [(3, 4000), (2, 25000)])
def test_every_legal_move_is_drawn_about_equally_often(players, draws):
    """The opening choice: 5 x 4 = 20 moves with 3 players, C(8,2) x C(6,2) = 420 in a duel."""
    g = Khiva(players, 3)
    legal = g.legal_moves()
    got = g.playout_choices(11, draws)
    assert set(got) == set(legal)
    counts = sorted(got.count(m) for m in legal)
    mean = draws / len(legal)
    assert 0.5 * mean < counts[0] and counts[-1] < 1.6 * mean, (counts[0], counts[-1], mean)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_playout_moves_read_only_what_the_player_to_move_knows(players):
    """Determinizations for the player to move redraw the other hands and the piles: the
    draws are the same in all of them."""
    positions = [advance(Khiva(players, 90 + game), 3 + 5 * game, seed=game) for game in range(4)]
    check_playouts_read_only_the_movers_information(
        [g for g in positions if not g.is_terminal()], choice_seed=13)
