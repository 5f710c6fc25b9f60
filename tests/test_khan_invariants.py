"""Invariants over thousands of random Khan of Khans games at every player count."""
import random

import pytest

from engine.games.khan import KhanOfKhans

GAMES_PER_COUNT = 2000         # the issue asks for at least 2,000 random games per player count
MOVE_LIMIT = 1000              # 80 cards: a game that gets here does not end


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_random_games_conserve_the_80_cards_and_always_end(players):
    rng = random.Random(players)
    kinds = set()
    for seed in range(GAMES_PER_COUNT):
        g = KhanOfKhans(players, seed)
        g.check_invariants()
        moves = 0
        while not g.is_terminal():
            legal = g.legal_moves()
            assert legal and legal == sorted(set(legal)), "moves must be distinct and ascending"
            move = rng.choice(legal)
            kinds.add(g.move_to_text(move).split("-")[0])
            g.apply(move)
            g.check_invariants()
            moves += 1
            assert moves < MOVE_LIMIT
        d = g.to_json()
        assert all(e["count"] == 0 for e in d["decks"])
        assert sorted(g.ranking())[0] == 1 and abs(sum(g.rewards()) - 1.0) < 1e-9
        assert moves >= 80 // players
    # every kind of move turned up somewhere
    assert kinds >= {"raid", "corral", "keep", "steal", "bless", "observant", "reveal", "take",
                     "sneak"}


def test_the_same_seed_deals_the_same_game():
    a, b = KhanOfKhans(4, 123), KhanOfKhans(4, 123)
    assert a.to_json() == b.to_json()
    assert KhanOfKhans(4, 124).to_json() != a.to_json()


def test_a_random_game_replays_identically():
    def run():
        g = KhanOfKhans(3, 77)
        rng = random.Random(5)
        while not g.is_terminal():
            g.apply(rng.choice(g.legal_moves()))
        return g.to_json()
    assert run() == run()


def test_clone_and_json_copies_are_independent():
    g = KhanOfKhans(3, 8)
    c = g.clone()
    g.apply(g.legal_moves()[0])
    assert c.to_json() != g.to_json()
    assert KhanOfKhans.from_json(g.to_json()).to_json() == g.to_json()
