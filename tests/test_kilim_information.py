"""Kilim information: determinization respects what the observer saw, and only that.

What every game's determinizations keep (the observer's view and keys, at positions of every
player count and phase), and that a sample depends only on what its observer knows, is checked
by the conformance suite (tests/test_conformance.py). Here: what Kilim's observers know."""
from collections import Counter

from engine.games.kilim import Kilim
from game_support import worlds
from kilim_support import play


def test_pile_order_and_contents_vary_and_stay_consistent():
    g = Kilim(4, 5)
    d0 = g.to_json()
    orders, day2 = set(), Counter()
    for d in worlds(g, 0, 400):
        assert [len(p) for p in d["piles"]] == [len(p) for p in d0["piles"]]
        for gi, pile in enumerate(d["piles"]):
            assert sum(t.endswith("X") for t in pile) == sum(t.endswith("X") for t in d0["piles"][gi])
            assert all(t[0] == str(gi + 1) for t in pile if not t.endswith("X"))
        orders.add(tuple(d["piles"][0]))
        day2.update(t for t in d["piles"][1] if not t.endswith("X"))
    assert len(orders) == 400
    # day 2: 14 of the 15 regular dominoes, each equally likely (14/15 of the samples)
    assert len(day2) == 15
    for t, k in day2.items():
        assert abs(k / 400 - 14 / 15) < 0.05, t


def test_unseen_torn_carpets_are_redrawn_but_seen_ones_stay_out():
    g = Kilim(3, 7)
    seen = [t for t in g.to_json()["revealed"] if t.endswith("X")]
    torn = Counter()
    for d in worlds(g, 1, 300):
        ts = [t for p in d["piles"] for t in p if t.endswith("X")]
        assert not set(ts) & set(seen)
        torn.update(ts)
    assert len(torn) == 5 - len(seen)


def test_earlier_face_down_cards_are_resampled_uniformly():
    g = Kilim(3, 5)
    play(g, "gold-9", "spy")
    assert g.to_move == 2
    chosen = Counter()
    for d in worlds(g, 2, 1800):
        chosen[d["player_state"][0]["choice"]] += 1
        assert d["player_state"][1]["choice"] is not None
    assert len(chosen) == 18
    for c, k in chosen.items():
        assert abs(k / 1800 - 1 / 18) < 0.025, c


def test_a_face_down_scrap_bag_offer_is_among_the_valid_ones():
    g = Kilim(4, 1)
    play(g, "scrap-bag", "scrap-bag", "gold-5", "gold-3", "gold-11")
    assert g.phase == "scrap-bid" and g.to_move == 1
    offers = Counter()
    for seed in range(500):
        offers[g.determinized(1, seed).to_json()["player_state"][0]["scrap_bid"]] += 1
    # P0 offered 11 face down; P1 only knows it is one of P0's cards above the winning 5
    assert set(offers) == set(range(6, 16))
    assert all(abs(k / 500 - 0.1) < 0.05 for k in offers.values())


def test_a_searched_scrap_is_hidden_and_what_the_searcher_saw_is_kept():
    g = Kilim(3, 2)
    play(g, "scrap-bag", "gold-3", "gold-2", "gold-4", "scrap-D")   # P0 keeps D
    while g.phase != "card":
        play(g, g.move_to_text(g.legal_moves()[0]))
    held = Counter()
    for seed in range(500):
        d = g.determinized(1, seed).to_json()
        held.update(d["player_state"][0]["scraps_held"])
        assert d["player_state"][1]["scraps_held"] == []
        assert g.determinized(0, seed).to_json()["player_state"][0]["scraps_held"] == ["D"]
    assert len(held) == 5 and all(abs(k / 500 - 0.2) < 0.06 for k in held.values())
    # P1 searches next: it sees the board, so it knows P0's scrap is the one missing there
    play(g, "gold-1", "scrap-bag", "gold-5", "gold-6", "scrap-A")
    while g.phase != "card":
        play(g, g.move_to_text(g.legal_moves()[0]))
    assert g.to_json(view=1)["scrap_whereabouts"]["D"] == [0]
    for d in worlds(g, 1, 100):
        assert d["player_state"][0]["scraps_held"] == ["D"]
    # P2 saw neither search: D and A may be anywhere among P0, P1 and the board
    where = g.to_json(view=2)["scrap_whereabouts"]
    assert where["D"] == [0, 1, "board"] and where["A"] == [0, 1, "board"]
    seen0 = Counter()
    for seed in range(300):
        seen0.update(g.determinized(2, seed).to_json()["player_state"][0]["scraps_held"])
    assert len(seen0) == 5


def test_the_searcher_sees_the_board_before_picking():
    """After another player searched, the next searcher's determinizations keep the board it is
    looking at, so its legal picks are the real ones."""
    g = Kilim(3, 2)
    play(g, "scrap-bag", "gold-3", "gold-2", "gold-4", "scrap-D")
    while g.phase != "card":
        play(g, g.move_to_text(g.legal_moves()[0]))
    play(g, "gold-1", "scrap-bag", "gold-5", "gold-6")
    assert g.phase == "scrap-pick" and g.to_move == 1
    for seed in range(200):
        assert g.determinized(1, seed).legal_moves() == g.legal_moves()
