"""Kilim rules: both scoring examples of the rulebook, every auction case, each token, scraps,
torn and perfect carpets, the 2-player version.

Kilims are written as dominoes [row, col, 'h'|'v', halves] with halves top/left first
(A-E patterns, X torn, P perfect); see tests/kilim_support.py.
"""
import argparse
import io
import random
import re

import pytest

from cext import kilim as core
from cext.core import move_kind
from engine.games.kilim import (Kilim, card_text, domino_halves, domino_text, domino_words,
                                parse_domino)
from kilim_support import (cards, game_over, last_turn_of_day, late_in_day, play, player, texts,
                           third_day, window)

# ================================================================ the rulebook's examples
# First example: holes (no rectangle), 3 types, groups A6 B5 C5 (5 + 4 + 4 = 13), the
# largest group of all three patterns, 2 torn patterns.
#   A A B B B
#   A A B B .
#   A A C C C
#   X C C . X
EXAMPLE_1 = {"dominoes": [[0, 0, "v", "AA"], [0, 1, "v", "AA"], [2, 0, "v", "AX"],
                          [2, 1, "v", "AC"], [2, 2, "v", "CC"], [1, 3, "v", "BC"],
                          [2, 4, "v", "CX"], [0, 2, "v", "BB"], [0, 3, "h", "BB"]]}
# Second example: a full 4 x 6 rectangle, all 5 types, 8 groups worth 4+4+3+3+2 = 16,
# the largest A and B groups (the other player's C, D and E groups are larger: BIG_CDE).
#   A A A B B B
#   A A C C B B
#   D D C C E E
#   D D B A E D
EXAMPLE_2 = {"dominoes": [[0, 0, "v", "AA"], [0, 1, "v", "AA"], [0, 2, "v", "AC"],
                          [0, 3, "v", "BC"], [0, 4, "h", "BB"], [1, 4, "h", "BB"],
                          [2, 0, "v", "DD"], [2, 1, "v", "DD"], [2, 2, "v", "CB"],
                          [2, 3, "v", "CA"], [2, 4, "v", "EE"], [2, 5, "v", "ED"]]}
SMALL_OTHER = {"dominoes": [[0, 0, "h", "AB"], [1, 0, "h", "DD"]]}
# With EXAMPLE_2 in the same game: the game has three DD and three EE dominoes (one per group)
# and EXAMPLE_2 weaves two DD and an EE.
#   C C C C D
#   C D D D D
#   E E E E
BIG_CDE = {"dominoes": [[0, 0, "v", "CC"], [0, 1, "v", "CD"], [0, 2, "v", "CD"],
                        [0, 3, "v", "CD"], [0, 4, "v", "DD"], [2, 0, "h", "EE"],
                        [2, 2, "h", "EE"]]}


def test_first_example_of_the_rulebook_scores_32_line_by_line():
    g = third_day(3, kilims={0: EXAMPLE_1, 1: SMALL_OTHER, 2: {"dominoes": [[0, 0, "h", "CE"]]}})
    assert g.kilim_rows(0) == ["AABBB", "AABB.", "AACCC", "XCC.X"]
    assert g.score_lines(0) == {"rectangle": 0, "types": 10, "adjacent": 13,
                                "largest_group": 15, "torn": -6, "total": 32}
    assert g.largest_groups(0) == [6, 5, 5, 0, 0]
    assert g.scores()[0] == 32


def test_kilim_extent_is_the_size_of_the_kilims_rows_in_any_position():
    """kilim_extent (what the heuristic reads) is kilim_rows' shape, without building it."""
    g = third_day(3, kilims={0: EXAMPLE_1, 1: SMALL_OTHER, 2: {"dominoes": [[0, 0, "h", "CE"]]}})
    assert g.kilim_extent(0) == (4, 5) and g.kilim_extent(2) == (1, 2)
    rng = random.Random(5)
    for players in (2, 3, 4, 5):
        g = Kilim(players, seed=40 + players)
        assert all(g.kilim_extent(p) == (0, 0) for p in range(players))
        while not g.is_terminal():
            for p in range(players):
                rows = g.kilim_rows(p)
                assert g.kilim_extent(p) == ((len(rows), len(rows[0])) if rows else (0, 0))
            g.apply(rng.choice(g.legal_moves()))
    with pytest.raises(ValueError):
        g.kilim_extent(players)


def test_second_example_of_the_rulebook_scores_41_line_by_line():
    g = game_over(3, kilims={0: EXAMPLE_2, 1: BIG_CDE})    # all three DD revealed by then
    assert g.kilim_rows(0) == ["AAABBB", "AACCBB", "DDCCEE", "DDBAED"]
    assert g.score_lines(0) == {"rectangle": 10, "types": 5, "adjacent": 16,
                                "largest_group": 10, "torn": 0, "total": 41}
    assert g.largest_groups(1) == [0, 0, 5, 5, 4]
    assert g.score_lines(1)["largest_group"] == 15


def test_torn_patterns_never_form_groups_and_cost_three_each():
    g = third_day(3, kilims={0: {"dominoes": [[0, 0, "v", "AX"], [0, 1, "v", "BX"]]}})
    # the two torn halves are adjacent: no group, -3 each; A and B single: no group either
    assert g.score_lines(0) == {"rectangle": 10, "types": 0, "adjacent": 0, "largest_group": 0,
                                "torn": -6, "total": 4}


def test_exactly_three_types_but_not_four():
    three = third_day(3, kilims={0: {"dominoes": [[0, 0, "h", "AB"], [0, 2, "h", "CC"]]}})
    four = third_day(3, kilims={0: {"dominoes": [[0, 0, "h", "AB"], [0, 2, "h", "CD"]]}})
    assert three.score_lines(0)["types"] == 10 and four.score_lines(0)["types"] == 0


def test_perfect_patterns_fill_the_rectangle_and_score_nothing():
    g = third_day(3, kilims={0: {"dominoes": [[0, 0, "h", "AA"], [1, 0, "h", "PP"]]}},
                  edit=lambda d: d.update(perfect_supply=2))
    assert g.score_lines(0) == {"rectangle": 10, "types": 0, "adjacent": 1, "largest_group": 5,
                                "torn": 0, "total": 16}


def test_tied_largest_groups_all_score_and_the_tie_break_is_the_largest_kilim():
    k1 = {"dominoes": [[0, 0, "h", "AA"]]}
    k2 = {"dominoes": [[0, 0, "h", "AA"], [1, 0, "h", "PP"]]}
    g = third_day(2, kilims={0: k1, 1: k2}, edit=lambda d: d.update(perfect_supply=2))
    assert g.score_lines(0)["largest_group"] == 5 and g.score_lines(1)["largest_group"] == 5
    assert g.scores()[0] == g.scores()[1]
    assert g.ranking() == [2, 1]                       # P1's Kilim has 4 cells, P0's 2


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_a_single_pattern_is_no_group_so_one_domino_kilims_get_no_bonus(players):
    # "For each Pattern, the player who has the largest group: +5 points": a group is one "of
    # adjacent identical Patterns" ("at least 2", say the examples), so when every player's
    # largest group of a type is a single pattern (here A in every Kilim, B-E alone in one at
    # most) nobody gets that type's bonus (docs/rules/kilim.md, 9)
    singles = ["AB", "AC", "AD", "AE", "BC"][:players]
    g = third_day(players, kilims={p: {"dominoes": [[0, 0, "h", h]]} for p, h in enumerate(singles)})
    for p in range(players):
        assert max(g.largest_groups(p)) == 1
        assert g.score_lines(p) == {"rectangle": 10, "types": 0, "adjacent": 0,
                                    "largest_group": 0, "torn": 0, "total": 10}
    assert g.scores() == [10] * players


@pytest.mark.parametrize("players", [2, 4])
def test_a_group_of_two_takes_the_bonus_from_single_patterns(players):
    # P0's two adjacent As are a group: it alone scores the A bonus; the lone Bs, Cs, Ds of
    # the others score none
    kilims = {0: {"dominoes": [[0, 0, "h", "AA"]]}, 1: {"dominoes": [[0, 0, "h", "AB"]]}}
    if players > 2:
        kilims |= {2: {"dominoes": [[0, 0, "h", "AC"]]}, 3: {"dominoes": [[0, 0, "h", "BD"]]}}
    g = third_day(players, kilims=kilims)
    assert [g.score_lines(p)["largest_group"] for p in range(players)] == [5] + [0] * (players - 1)
    assert g.scores() == [16] + [10] * (players - 1)


# ================================================================ the auction
def fresh(n=4, seed=1):
    g = Kilim(n, seed)
    return g


def market(g, *choices):
    """Every seat plays its card (in notation), in seat order."""
    play(g, *choices)


def test_single_winner_takes_the_domino_and_must_weave_it():
    g = fresh()
    dom = g.to_json()["on_table"]
    market(g, "gold-5", "gold-3", "gold-1", "gold-2")
    d = g.to_json()
    assert d["phase"] == "place" and d["to_move"] == 0 and d["to_place"] == [dom]
    assert "gold-5" not in d["player_state"][0]["hand"]      # used cards are spent for the day
    assert all(t.startswith("place@") for t in texts(g))
    play(g, texts(g)[0])
    assert g.kilim_size(0) == 2


def test_cancelling_ties_the_rulebooks_example():
    """Two 15s cancel each other: the 5 wins."""
    g = fresh()
    market(g, "gold-15", "gold-15", "gold-5", "gold-3")
    assert g.to_json()["winner"] == 2 and g.to_json()["win_value"] == 5


def test_all_tied_carries_the_domino_to_the_next_winner():
    g = fresh()
    first = g.to_json()["on_table"]
    market(g, "gold-7", "gold-7", "gold-7", "gold-7")
    d = g.to_json()
    assert d["pending"] == [first] and d["phase"] == "card" and d["on_table"] != first
    second = d["on_table"]
    market(g, "gold-1", "gold-9", "gold-2", "gold-3")
    d = g.to_json()
    assert d["to_place"] == [first, second] and d["to_move"] == 1
    play(g, texts(g)[0])
    play(g, texts(g)[-1])
    assert g.kilim_size(1) == 4 and g.to_json()["to_place"] == []


def test_pairs_of_ties_leave_no_offer_and_carry_too():
    g = fresh()
    market(g, "gold-5", "gold-5", "gold-3", "gold-3")
    assert len(g.to_json()["pending"]) == 1


def test_a_tied_last_auction_of_the_day_loses_the_domino():
    g = last_turn_of_day()
    lost = g.to_json()["lost"]
    market(g, "gold-4", "gold-4", "gold-4", "gold-4")
    d = g.to_json()
    assert d["lost"] == lost + 1 and d["day"] == 1 and d["pending"] == []
    assert all(len(ps["hand"]) == 18 for ps in d["player_state"])   # cards come back


def test_a_carried_domino_is_lost_with_the_last_one():
    """The last two auctions of the day: every seat holds gold-4 and gold-6."""
    g = late_in_day(4, 2, {p: cards(4, 6, spy=True, scrap=True, artisan=True) for p in range(4)},
                    left=1)
    lost = g.to_json()["lost"]
    market(g, "gold-4", "gold-4", "gold-4", "gold-4")       # carried
    market(g, "gold-6", "gold-6", "gold-6", "gold-6")       # the last one: both lost
    assert g.to_json()["lost"] == lost + 2 and g.to_json()["day"] == 1


def test_spy_chooses_after_seeing_the_offers_rulebook_example():
    """Red spies on Blue's 12: above 12 wins, below leaves it to Blue, 12 hands it to Green."""
    for bid, winner in (("gold-13", 0), ("gold-4", 1), ("gold-12", 2)):
        g = fresh(3)
        market(g, "spy", "gold-12", "gold-5")
        assert g.phase == "spy" and g.to_move == 0
        assert len(texts(g)) == 15                      # every Gold card, seeing the offers
        play(g, bid)
        assert g.to_json()["winner"] == winner


def test_two_spies_choose_face_down_one_after_the_other():
    g = fresh(3)
    market(g, "spy", "spy", "gold-5")
    play(g, "gold-9")
    assert g.phase == "spy" and g.to_move == 1
    assert g.to_json(view=1)["player_state"][0]["spy_bid"] == 0      # hidden from P1
    play(g, "gold-9")                                    # both 9s cancel: the 5 wins
    assert g.to_json()["winner"] == 2


def test_scrap_bag_with_enough_gold_searches_the_bag_secretly():
    g = fresh()
    market(g, "scrap-bag", "gold-5", "gold-3", "gold-1")
    assert g.phase == "scrap-bid" and texts(g) == [f"gold-{v}" for v in range(6, 16)]
    play(g, "gold-6")
    assert g.phase == "scrap-pick" and g.to_move == 0
    assert texts(g) == ["scrap-A", "scrap-B", "scrap-C", "scrap-D", "scrap-E"]
    play(g, "scrap-C")
    me, other = g.to_json(view=0), g.to_json(view=1)
    assert me["player_state"][0]["scraps_held"] == ["C"]
    assert "scraps_held" not in other["player_state"][0]
    assert other["player_state"][0]["scraps_held_count"] == 1
    hand = me["player_state"][0]["hand"]
    assert "scrap-bag" not in hand and "gold-6" not in hand
    assert g.phase == "place" and g.to_move == 1         # then the auction winner weaves


def test_scrap_bag_without_enough_gold_discards_a_card():
    """Three auctions before the end of the day: seat 0 holds gold-1, 2 and 3 (its Spy and
    Artisan are spent) and its Scrap Bag."""
    g = late_in_day(4, 1, {0: cards(1, 2, 3, scrap=True),
                           1: cards(5, 6, 7, spy=True, scrap=True, artisan=True),
                           2: cards(4, 8, 9, spy=True, scrap=True, artisan=True),
                           3: cards(1, 10, 11, spy=True, scrap=True, artisan=True)}, left=2)
    market(g, "scrap-bag", "gold-5", "gold-4", "gold-1")
    assert texts(g) == ["gold-1", "gold-2", "gold-3"]    # none beats 5: a discard of choice
    play(g, "gold-2")
    assert g.phase == "place"
    assert player(g, 0)["hand"] == ["gold-1", "gold-3"]
    assert g.to_json()["scraps_on_board_count"] == 5


def test_two_scrap_bags_the_highest_searches_a_tie_means_nobody():
    g = fresh()
    market(g, "scrap-bag", "scrap-bag", "gold-3", "gold-1")
    play(g, "gold-8", "gold-9")
    assert g.phase == "scrap-pick" and g.to_move == 1
    g = fresh()
    market(g, "scrap-bag", "scrap-bag", "gold-3", "gold-1")
    play(g, "gold-8", "gold-8")
    assert g.phase == "place" and g.to_json()["scraps_on_board_count"] == 5


def test_artisan_with_a_lower_card_takes_a_token():
    g = fresh()
    market(g, "artisan", "gold-5", "gold-3", "gold-1")
    assert g.phase == "artisan-bid" and texts(g) == ["gold-1", "gold-2", "gold-3", "gold-4"]
    play(g, "gold-2")
    assert g.phase == "token-pick" and g.to_move == 0
    assert texts(g) == ["token-perfect", "token-rotate", "token-remove", "token-move"]
    play(g, "token-remove")
    assert g.to_json()["tokens"][2]["holder"] == 0


def test_artisan_without_a_lower_card_discards():
    g = fresh()
    market(g, "artisan", "gold-1", "gold-3", "gold-3")    # the 1 wins: nothing is below it
    assert texts(g) == [f"gold-{v}" for v in range(1, 16)]
    play(g, "gold-15")
    assert g.phase == "place" and all(t["holder"] == -1 for t in g.to_json()["tokens"])
    assert "gold-15" not in player(g, 0)["hand"]


def test_two_artisans_the_lowest_calls_a_tie_means_nobody():
    g = fresh()
    market(g, "artisan", "artisan", "gold-9", "gold-1")
    play(g, "gold-4", "gold-3")
    assert g.phase == "token-pick" and g.to_move == 1
    g = fresh()
    market(g, "artisan", "artisan", "gold-9", "gold-1")
    play(g, "gold-4", "gold-4")
    assert g.phase == "place"


def test_played_cards_are_public_after_the_reveal_and_hidden_before():
    g = fresh(3)
    play(g, "gold-7")
    assert g.to_json(view=1)["player_state"][0]["choice"] is None
    assert g.to_json(view=1)["player_state"][0]["has_chosen"] is True
    play(g, "gold-1", "gold-2")
    assert g.to_json(view=1)["player_state"][0]["choice"] == "gold-7"


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_every_seat_plays_exactly_one_card_per_auction(players):
    """RULES-NOTES (Kilim): every player plays exactly one card per auction. In the card
    phase the legal moves are exactly the cards in the mover's hand (no pass), each seat is
    asked once, and the reveal shows one card per seat, the one it chose, gone from its hand
    (unless the day ended and the cards came back). Every auction of two random games."""
    auctions = 0
    for seed in range(2):
        g, rng = Kilim(players, seed), random.Random(seed)
        while not g.is_terminal():
            d = g.to_json()
            if d["phase"] != "card" or any(ps["has_chosen"] for ps in d["player_state"]):
                g.apply(rng.choice(g.legal_moves()))
                continue
            hands = [ps["hand"] for ps in d["player_state"]]
            count, played = g.event_count, {}
            while g.phase == "card":
                p = g.to_move
                assert p not in played and sorted(texts(g)) == sorted(hands[p])
                played[p] = rng.choice(texts(g))
                play(g, played[p])
            assert sorted(played) == list(range(players))
            shown = [(e[1], card_text(e[2])) for e in g.events(since=count)
                     if e[0] == core.LOG_CARD]
            assert shown == sorted(played.items())
            if g.to_json()["day"] == d["day"]:
                for p in range(players):
                    assert sorted(player(g, p)["hand"] + [played[p]]) == sorted(hands[p])
            auctions += 1
    assert auctions == 2 * 3 * (10 if players == 2 else 15)


# ================================================================ weaving
def connected(rows):
    cells = {(r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch != "."}
    seen, todo = set(), [next(iter(cells))]
    while todo:
        r, c = todo.pop()
        if (r, c) in seen or (r, c) not in cells:
            continue
        seen.add((r, c))
        todo += [(r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)]
    return seen == cells


def test_every_placement_touches_the_kilim():
    g = fresh()
    market(g, "gold-5", "gold-3", "gold-1", "gold-2")
    assert len(texts(g)) in (2, 4)                       # first domino: either way, either order
    play(g, texts(g)[0])
    while g.phase != "card":
        play(g, texts(g)[0])
    market(g, "gold-6", "gold-4", "gold-2", "gold-3")
    moves = texts(g)
    assert len(moves) >= 10
    for t in moves:
        h = g.clone()
        play(h, t)
        assert h.kilim_size(0) == 4 and connected(h.kilim_rows(0)), t


def test_a_won_torn_carpet_must_be_woven():
    g = Kilim(3, 0)
    v = 1
    while not g.to_json()["on_table"].endswith("X"):
        play(g, *[f"gold-{v}"] * 3)                      # carried until a torn carpet shows
        v += 1
    market(g, "gold-15", f"gold-{v}", f"gold-{v + 1}")
    d = g.to_json()
    assert d["phase"] == "place" and d["to_place"][-1].endswith("X")
    while g.phase == "place":
        assert "done" not in texts(g)
        play(g, texts(g)[0])
    assert "X" in "".join(g.kilim_rows(0))
    assert g.score_lines(0)["torn"] == -3


def test_scrap_restores_a_torn_pattern():
    g = window(kilims={0: {"dominoes": [[0, 0, "h", "AX"]]}}, scraps_held={0: ["A"]})
    assert "weave-scrap-A" in texts(g)
    play(g, "weave-scrap-A")
    assert texts(g) == ["scrap@0,0", "scrap@0,1"]
    play(g, "scrap@0,1")
    assert g.kilim_rows(0) == ["AA"] and g.score_lines(0)["torn"] == 0
    assert g.score_lines(0)["adjacent"] == 1
    assert g.to_json()["scraps_woven"] == {"A": 0}


def test_scrap_fills_a_hole_and_covers_a_pattern():
    k = {"dominoes": [[0, 0, "h", "BB"], [1, 1, "h", "CB"]]}       # hole at (1, 0)
    g = window(kilims={0: k}, scraps_held={0: ["B", "D"]})
    play(g, "weave-scrap-B")
    assert texts(g) == ["scrap@0,0", "scrap@0,1", "scrap@0,2", "scrap@1,0", "scrap@1,1",
                        "scrap@1,2"]                     # every pattern and both holes
    play(g, "scrap@1,0")
    assert g.kilim_rows(0) == ["BB.", "BCB"]
    assert g.score_lines(0)["rectangle"] == 0
    play(g, "weave-scrap-D", "scrap@1,1")                # covers the C
    assert g.kilim_rows(0) == ["BB.", "BDB"]


def test_take_and_weave_a_perfect_carpet():
    g = window(kilims={0: {"dominoes": [[0, 0, "h", "AA"]]}}, tokens={"perfect": 0})
    assert texts(g)[:2] == ["done", "take-perfect"]
    play(g, "take-perfect")
    d = g.to_json()
    assert d["perfect_supply"] == 2 and player(g, 0)["perfect_held"] == 1
    assert d["tokens"][0]["used"] is True and "take-perfect" not in texts(g)
    play(g, "weave-perfect")
    assert g.phase == "place"
    play(g, "place@1,0h:PP")
    assert g.kilim_rows(0) == ["AA", "PP"] and g.score_lines(0)["rectangle"] == 10


def test_perfect_carpet_kept_for_a_later_day():
    g = window(kilims={0: {"dominoes": [[0, 0, "h", "AA"]]}}, perfect_held={0: 1})
    assert "weave-perfect" in texts(g)
    play(g, "done")
    assert player(g, 0)["perfect_held"] == 1


def test_rotate_token_swaps_or_swings_a_domino():
    k = {"dominoes": [[0, 0, "h", "AB"], [0, 2, "h", "BB"]]}
    g = window(kilims={0: k}, tokens={"rotate": 0})
    rot = [t for t in texts(g) if t.startswith("rotate@0,0h")]
    assert "rotate@0,0h:swap" in rot and "rotate@0,2h:swap" not in texts(g)   # a double
    h = g.clone()
    play(h, "rotate@0,0h:swap")
    assert h.kilim_rows(0) == ["BABB"]
    h = g.clone()
    play(h, "rotate@0,0h:keep2-down")                   # B stays, A swings below it
    assert h.kilim_rows(0) == ["BBB", "A.."]
    assert h.to_json()["tokens"][1]["used"] is True
    assert h.phase == "card"                             # nothing optional is left


def test_remove_token_takes_a_domino_or_a_scrap_out_of_the_game():
    k = {"dominoes": [[0, 0, "h", "AX"], [0, 2, "h", "AA"]], "scraps": [["C", 0, 2]]}
    g = window(kilims={0: k}, tokens={"remove": 0})
    t = texts(g)
    assert "remove@0,0h" in t and "remove-scrap-C" in t
    assert "remove@0,2h" not in t                        # held in place by the scrap
    h = g.clone()
    play(h, "remove@0,0h")
    assert h.kilim_rows(0) == ["CA"] and h.score_lines(0)["torn"] == 0
    assert h.to_json()["removed"] == [1, 0]
    play(g, "remove-scrap-C")
    assert g.kilim_rows(0) == ["AXAA"] and g.to_json()["scraps_out"] == ["C"]


def test_move_token_moves_a_domino_without_turning_it():
    k = {"dominoes": [[0, 0, "h", "AB"], [0, 2, "h", "CC"]]}
    g = window(kilims={0: k}, tokens={"move": 0})
    play(g, "move@0,0h")
    assert g.phase == "place"
    assert all(t.endswith("h:AB") for t in texts(g))   # same orientation, same order
    play(g, "place@1,0h:AB")
    assert g.kilim_rows(0) == ["CC", "AB"]


def test_move_token_moves_a_scrap():
    k = {"dominoes": [[0, 0, "h", "AB"]], "scraps": [["E", 0, 0]]}
    g = window(kilims={0: k}, tokens={"move": 0})
    play(g, "move-scrap-E")
    assert g.phase == "scrap-at" and g.kilim_rows(0) == ["AB"]
    play(g, "scrap@0,1")
    assert g.kilim_rows(0) == ["AE"]


@pytest.mark.parametrize("token,move", [("move", "move-scrap-E"), ("remove", "remove-scrap-E")])
def test_a_scrap_lifted_from_an_edge_row_leaves_no_cell_behind(token, move):
    """A scrap alone in the Kilim's top row (its dominoes removed since): lifting it shrinks
    the Kilim, and the scrap must not be shifted with it as if still woven (the loader
    fuzzer's seed 6007 found a state whose next check refused `scraps_woven`)."""
    k = {"dominoes": [[1, 0, "h", "AB"]], "scraps": [["E", 0, 0]]}
    g = window(kilims={0: k}, tokens={token: 0})
    assert g.kilim_rows(0) == ["E.", "AB"]
    play(g, move)
    g.check_invariants()
    assert g.kilim_rows(0) == ["AB"]
    assert Kilim.from_json(g.to_json()).to_json() == g.to_json()
    if token == "move":
        assert g.phase == "scrap-at"
        play(g, "scrap@0,1")
        g.check_invariants()
        assert g.kilim_rows(0) == ["AE"]
    else:
        assert g.to_json()["scraps_out"] == ["E"]


@pytest.mark.parametrize("players,seed", [(2, 1676), (5, 2139)])
def test_random_games_that_lift_a_scrap_from_an_edge_keep_every_invariant(players, seed):
    """Two random games from the opening (moves drawn by random.Random(seed)) in which a
    Remove token takes a scrap that stood alone in an edge row or column of its Kilim: the
    state stays valid, and its JSON loads again, after every move."""
    from engine.registry import new_game

    g, rng, lifted = new_game("kilim", players, seed), random.Random(seed), 0
    while not g.is_terminal():
        move = rng.choice(g.legal_moves())
        lifted += g.move_to_text(move).startswith("remove-scrap")
        g.apply(move)
        g.check_invariants()
        assert Kilim.from_json(g.to_json()).to_json() == g.to_json()
    assert lifted


def test_tokens_return_to_the_board_at_the_end_of_the_day():
    g = last_turn_of_day(3, {0: cards(1, spy=True, scrap=True, artisan=True),
                             1: cards(5, spy=True, scrap=True, artisan=True),
                             2: cards(3, spy=True, scrap=True, artisan=True)})
    market(g, "artisan", "gold-5", "gold-3")
    play(g, "gold-1", "token-rotate")
    assert g.to_json()["tokens"][1]["holder"] == 0
    while g.to_json()["day"] == 0:
        play(g, texts(g)[0])
    assert all(t["holder"] == -1 and not t["used"] for t in g.to_json()["tokens"])


def test_window_is_offered_only_with_something_to_do():
    g = window(kilims={0: {"dominoes": [[0, 0, "h", "AA"]]}}, scraps_held={0: ["B"]})
    assert texts(g) == ["done", "weave-scrap-B"]
    play(g, "done")
    assert g.phase == "card"                             # the others had nothing optional
    g = Kilim(3, 1)
    market(g, "gold-5", "gold-3", "gold-1")
    play(g, texts(g)[0])
    assert g.phase == "card"                             # nobody had anything optional


# ================================================================ set-up
@pytest.mark.parametrize("players,torn,size", [(2, [1, 1, 0], 10), (3, [1, 1, 1], 15),
                                               (4, [2, 1, 1], 15), (5, [2, 2, 1], 15)])
def test_piles_and_torn_carpets_by_player_count(players, torn, size):
    d = Kilim(players, 9).to_json()
    assert d["torn_in"] == torn
    piles = [[d["on_table"]] + d["piles"][0]] + d["piles"][1:]
    assert [len(p) for p in piles] == [size] * 3
    for g, pile in enumerate(piles):
        assert sum(1 for t in pile if t.endswith("X")) == torn[g]
        assert all(t[0] == str(g + 1) for t in pile if not t.endswith("X"))
    all_torn = [t for p in piles for t in p if t.endswith("X")]
    assert len(set(all_torn)) == len(all_torn)


PAIRS_OF_TYPES = ["AA", "AB", "AC", "AD", "AE", "BB", "BC", "BD", "BE", "CC", "CD", "CE",
                  "DD", "DE", "EE"]


def test_each_group_is_the_fifteen_pairs_of_types_each_type_six_times():
    """RULES-NOTES (Kilim): each group of 15 is the full set of unordered pairs over A-E, 5
    doubles and 10 mixed, so every type shows 6 times per group (the component table: ids
    group * 15 + pair, read through the notation and the core's halves)."""
    for group in range(3):
        ids = range(group * 15, group * 15 + 15)
        names = [domino_text(d) for d in ids]
        assert all(n[0] == str(group + 1) for n in names)
        assert sorted(n[1:] for n in names) == PAIRS_OF_TYPES
        assert sum(1 for n in names if n[1] == n[2]) == 5
        assert all("".join(n[1:] for n in names).count(t) == 6 for t in "ABCDE")
        assert [domino_halves(d) for d in ids] == [("ABCDE".index(n[1]), "ABCDE".index(n[2]))
                                                   for n in names]
        assert [parse_domino(n) for n in names] == list(ids)


def test_the_torn_carpets_are_one_per_type_a_regular_half_and_a_torn_half():
    """RULES-NOTES (Kilim): 5 torn dominoes, one per type, each a half of that type and a torn
    half. With 5 players all five are shuffled into the piles (2 + 2 + 1) in every deal."""
    assert [domino_text(d) for d in range(45, 50)] == ["AX", "BX", "CX", "DX", "EX"]
    assert [domino_halves(d) for d in range(45, 50)] == [(t, core.TORN) for t in range(5)]
    for seed in range(5):
        d = Kilim(5, seed).to_json()
        dealt = [d["on_table"]] + [t for pile in d["piles"] for t in pile]
        assert sorted(t for t in dealt if t.endswith("X")) == ["AX", "BX", "CX", "DX", "EX"]


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_dealt_piles_draw_each_group_from_its_fifteen_pairs(players):
    """The torn carpets replace regular dominoes (rulebook, Set-up 2), so a pile holds
    distinct pairs of its own group, and over a few deals every pair of every group turns up."""
    seen = [set(), set(), set()]
    for seed in range(12):
        d = Kilim(players, seed).to_json()
        piles = [[d["on_table"]] + d["piles"][0]] + d["piles"][1:]
        for group, pile in enumerate(piles):
            regular = [t for t in pile if not t.endswith("X")]
            assert len(regular) == len(set(regular)) == len(pile) - d["torn_in"][group]
            assert all(t[0] == str(group + 1) and t[1:] in PAIRS_OF_TYPES for t in regular)
            seen[group].update(t[1:] for t in regular)
    assert [sorted(s) for s in seen] == [PAIRS_OF_TYPES] * 3


def test_woven_dominoes_show_the_halves_of_their_table_entry():
    """The core weaves what the table says: in random games every won domino (all 45 regular
    and all 5 torn ones turn up) shows in the Kilim with the halves of its name."""
    placed = set()
    for players in (2, 3, 4, 5):
        for seed in range(3):
            g, rng = Kilim(players, seed), random.Random(seed)
            while not g.is_terminal():
                d = g.to_json()
                move = rng.choice(g.legal_moves())
                g.apply(move)
                if d["phase"] != "place" or not d["to_place"]:
                    continue
                p, name = d["to_move"], d["to_place"][0]
                before = [dom[3] for dom in d["player_state"][p]["kilim"]["dominoes"]]
                new = [dom[3] for dom in player(g, p)["kilim"]["dominoes"]]
                for halves in before:
                    new.remove(halves)
                assert len(new) == 1 and sorted(new[0]) == sorted(name[-2:]), (name, new)
                placed.add(name)
    assert len(placed) == 50


def test_two_player_version_gold_one_to_ten():
    d = Kilim(2, 3).to_json()
    assert d["player_state"][0]["hand"] == cards(*range(1, 11), spy=True, scrap=True, artisan=True)


def test_removed_and_replaced_dominoes_differ_between_deals():
    decks = {tuple(sorted(Kilim(2, s).to_json()["piles"][1])) for s in range(20)}
    assert len(decks) > 15


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError):
        Kilim(1)
    with pytest.raises(ValueError):
        Kilim(6)
    with pytest.raises(ValueError):
        Kilim(3, -1)
    d = Kilim(3, 1).to_json()
    d["player_state"][0]["kilim"] = {"dominoes": [[0, 0, "h", "AB"], [0, 1, "v", "CC"]],
                                     "scraps": []}
    with pytest.raises(ValueError):
        Kilim.from_json(d)                               # overlapping dominoes
    d = Kilim(3, 1).to_json()
    d["lost"] = 3
    with pytest.raises(ValueError):
        Kilim.from_json(d)                               # dominoes out of nowhere


def test_illegal_moves_are_refused_without_change():
    g = Kilim(3, 1)
    before = g.to_json()
    with pytest.raises(ValueError):
        g.apply((2 << 24) | 5)
    assert g.to_json() == before


def test_render_and_narrate_tell_the_game():
    g = Kilim(4, 3)
    lines = []
    rng = random.Random(3)
    while not g.is_terminal():
        b = g.clone()
        p = g.to_move
        m = rng.choice(g.legal_moves())
        g.apply(m)
        lines += g.narrate(b, p, m)
    text = "\n".join(lines)
    assert "wins the auction" in text and "is revealed" in text and "weaves the domino it won" in text
    assert "the game is over" in text
    r = g.render()
    assert "P3: score" in r and "-" in r


# ================================================================ telling the game in words
# Notation is what a player types; narration tells in sentences. A line of narration never
# holds a move's notation: no `place@`, `scrap@`, `rotate@`..., no `weave-scrap-A`,
# `take-perfect`, `token-move`, `remove-scrap-B`, `gold-7`, `scrap-bag`, `:swap`, `keep1-up`.
NOTATION = re.compile(r"[a-z]@-?\d|\b(weave|take|remove|move|token|scrap)-[a-zA-Z]|\bgold-\d"
                      r"|:swap|\bkeep\d-")


def every_move_kind(players: int):
    """(before, seat, move, after) of seeded games at `players` that favour the move kinds not
    played yet, until every one of the 15 has been played (a token, a scrap, a rotation...)."""
    seen = set()
    for seed in range(20):
        g, rng = Kilim(players, seed), random.Random(seed)
        while not g.is_terminal():
            legal = g.legal_moves()
            fresh_kinds = [m for m in legal if move_kind(m) not in seen]
            m = rng.choice(fresh_kinds if fresh_kinds and rng.random() < 0.7 else legal)
            b, p = g.clone(), g.to_move
            g.apply(m)
            seen.add(move_kind(m))
            yield b, p, m, g.clone()
        if len(seen) == 15:
            return
    raise AssertionError(f"move kinds never played: {set(range(1, 16)) - seen}")


@pytest.mark.parametrize("players", [2, 3, 5])
def test_every_move_kind_is_told_in_a_sentence_without_notation(players):
    kinds = set()
    for b, p, m, g in every_move_kind(players):
        kinds.add(move_kind(m))
        text = b.move_to_text(m)
        for viewer in [None] + list(range(players)):
            lines = g.narrate(b, p, m, viewer=viewer)
            assert lines and all(not NOTATION.search(line) for line in lines), (text, lines)
            assert f"P{p} {text}" not in lines, (text, lines)
            assert any(line.startswith(f"P{p} ") for line in lines), (text, lines)
    assert kinds == set(range(1, 16))


def test_weaving_a_scrap_and_each_token_are_told_as_sentences():
    g = window(kilims={0: {"dominoes": [[0, 0, "h", "AX"]]}}, scraps_held={0: ["B"]})
    assert told(g, "weave-scrap-B")[0] == "P0 takes scrap B from its hand to weave it into its Kilim"
    assert told(g, "scrap@0,1")[:2] == ["P0 puts scrap B at row 0, column 1, restoring the torn half",
                                        "      A-b"]
    g = window(kilims={0: {"dominoes": [[0, 0, "h", "AB"]]}}, tokens={"rotate": 0})
    assert told(g, "rotate@0,0h:keep1-down")[0] == (
        "P0 uses the Rotate token on its domino of pattern A and pattern B at row 0, column 0 "
        "(across): pattern A stays and pattern B swings below it")
    g = window(kilims={0: {"dominoes": [[0, 0, "h", "AB"], [1, 0, "h", "CC"]]}}, tokens={"move": 0})
    assert told(g, "move@1,0h")[0] == ("P0 uses the Move token: it lifts its domino of two C "
                                       "patterns at row 1, column 0 (across) to weave it elsewhere")
    assert told(g, "place@-1,0h:CC")[0] == ("P0 weaves the lifted domino (two C patterns) at row 0, "
                                            "column 0 and the cell to its right (its Kilim grows upwards)")
    g = window(kilims={0: {"dominoes": [[0, 0, "h", "AA"]]}}, tokens={"perfect": 0})
    assert told(g, "take-perfect")[0] == ("P0 uses the Perfect Carpet token: a perfect carpet goes "
                                          "into its reserve")
    assert told(g, "weave-perfect")[0] == "P0 takes a perfect carpet from its reserve to weave it"
    assert told(g, "place@0,2h:PP")[0] == ("P0 weaves a perfect carpet (two perfect halves) at row 0, "
                                           "column 2 and the cell to its right")


def told(g, move_text: str) -> list:
    """The spectator's narration of the move written `move_text`, played on g."""
    b, p, m = g.clone(), g.to_move, g.parse_move(move_text)
    g.apply(m)
    return g.narrate(b, p, m)


@pytest.mark.parametrize("players,seed", [(2, 1), (3, 5), (5, 2)])
def test_the_first_domino_is_told_with_the_first_move_to_everyone(players, seed):
    g = Kilim(players, seed)
    first = g.to_json()["on_table"]
    words = domino_words(parse_domino(first))
    opening = f"day 1 begins: the first domino, {first} ({words}), is revealed for auction"
    assert f"on the table: {first} ({words})" in g.render(0)
    b, m = g.clone(), g.legal_moves()[0]
    g.apply(m)
    for viewer in [None] + list(range(players)):
        assert g.narrate(b, 0, m, viewer=viewer)[:2] == [opening, "P0 chooses a card face down"]
    b, m = g.clone(), g.legal_moves()[0]
    g.apply(m)                                   # told once: not with the second move
    assert not any("begins" in line for line in g.narrate(b, 1, m))


def test_caravan_match_and_play_show_the_first_domino_first(capsys):
    from engine import play as play_cli
    from engine.cli import main

    first = Kilim(2, 3).to_json()["on_table"]
    assert main(["match", "kilim", "--players", "2", "--agents", "random,random", "--seed", "3"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[3].startswith(f"day 1 begins: the first domino, {first} (")
    # a human at seat 2: the AI seats choose first, and the human is told the domino with them
    args = argparse.Namespace(game="kilim", players=3, seat=2, seats=None, agents="random", seed=4,
                              hint_iterations=10)
    out = io.StringIO()
    play_cli.run(play_cli.table_from_args(args, {}), io.StringIO("quit\n"), out)
    first = Kilim(3, 4).to_json()["on_table"]
    text = out.getvalue()
    assert text.index(f"day 1 begins: the first domino, {first} (") < text.index("P0 chooses a card")
    assert text.index("P1 chooses a card") < text.index("You are P2")


def test_render_gives_a_legend_for_its_letters():
    g = window(kilims={0: {"dominoes": [[0, 0, "h", "AX"], [1, 0, "h", "PP"]]}},
               scraps_held={0: ["B"]}, edit=lambda d: d.update(perfect_supply=2))
    play(g, "weave-scrap-B", "scrap@0,1")
    for viewer in (None, 0, 1):
        r = g.render(viewer)
        assert "      A-b\n" in r and "      P-P" in r            # a scrap B on the torn half
        legend = r[r.index("legend: "):]
        for key in ("A-E the five patterns", "a-e a scrap of that pattern", "X a torn half",
                    "P a half of a perfect carpet", ". a hole", "- and | join the two halves"):
            assert key in " ".join(legend.split()), key


# ================================================================ found by a mutation audit
# (2026-12-07): each pins a rule whose plausible bug the tests above let through, or caught
# only by the golden numbers (re-recorded after a deliberate change) or the loader's checks

# scoring
def test_a_scrap_filling_the_last_hole_completes_the_rectangle():
    # Rulebook, The Weaving: "The Kilim has a rectangular or square shape: +10"; Carpet Scraps
    # "Fill a hole in the Kilim"; docs/rules/kilim.md 9: +10 when the bounding box is
    # completely filled (a scrap on a hole fills it).
    k = {"dominoes": [[0, 0, "h", "BB"], [1, 1, "h", "CB"]], "scraps": [["D", 1, 0]]}
    g = third_day(3, kilims={0: k})
    assert g.kilim_rows(0) == ["BB.", "DCB"] and g.score_lines(0)["rectangle"] == 0
    k = {"dominoes": [[0, 0, "h", "BB"], [1, 1, "h", "CB"]], "scraps": [["D", 0, 2]]}
    g = third_day(3, kilims={0: k})
    assert g.kilim_rows(0) == ["BBD", ".CB"] and g.score_lines(0)["rectangle"] == 0
    k = {"dominoes": [[0, 0, "h", "BB"], [1, 1, "h", "CB"]], "scraps": [["D", 0, 2]]}
    # both holes: (0, 2) by the scrap, (1, 0) by a second one
    k["scraps"].append(["E", 1, 0])
    g = third_day(3, kilims={0: k})
    assert g.kilim_rows(0) == ["BBD", "ECB"]
    assert g.score_lines(0)["rectangle"] == 10


def test_groups_of_a_kilim_wider_than_sixteen_columns_score_size_minus_one():
    # Rulebook: "For each group of adjacent identical Patterns: + (X Patterns in the group - 1)".
    # One row of 8 doubles (18 columns with the frame's offset: the groups are not found on a
    # tile but on the map of the whole box): four groups of 4, 3 points each.
    k = {"dominoes": [[0, 2 * i, "h", h] for i, h in
                      enumerate(["AA", "AA", "BB", "BB", "CC", "CC", "DD", "DD"])]}
    g = third_day(3, kilims={0: k})
    assert g.kilim_rows(0) == ["AAAABBBBCCCCDDDD"]
    assert g.largest_groups(0) == [4, 4, 4, 4, 0]
    assert g.score_lines(0) == {"rectangle": 10, "types": 0, "adjacent": 12,
                                "largest_group": 20, "torn": 0, "total": 42}


def test_the_tie_break_counts_cells_a_scrap_filling_a_hole_included():
    # Rulebook, End of the Game: "In case of a tie, the Weaver who has the largest Kilim wins";
    # docs/rules/kilim.md 9: the largest Kilim is its number of woven cells. Both Kilims score
    # 0 with the same two dominoes; P0's scrap D fills a hole (no group, no new type).
    k0 = {"dominoes": [[0, 0, "h", "AB"], [1, 1, "h", "CD"]], "scraps": [["D", 1, 0]]}
    k1 = {"dominoes": [[0, 0, "h", "AB"], [1, 1, "h", "CD"]]}
    g = third_day(2, kilims={0: k0, 1: k1})
    assert g.kilim_rows(0) == ["AB.", "DCD"] and g.kilim_rows(1) == ["AB.", ".CD"]
    assert g.scores() == [0, 0]
    assert g.kilim_size(0) == 5 and g.kilim_size(1) == 4
    assert g.ranking() == [1, 2]


# the market
def test_an_artisan_offer_equal_to_the_winning_offer_is_a_discard():
    # Rulebook, 4. Artisan: pay "an amount of Gold lower than that spent by the player who won
    # the turn's auction"; "If a player cannot offer less Gold ... must discard a Gold card".
    # Seat 0 holds gold-5, 6, 7 and the Artisan; seat 1 wins with 5: nothing is below 5, so
    # any card is a discard, gold-5 (equal, not lower) included.
    g = late_in_day(4, 1, {0: cards(5, 6, 7, artisan=True),
                           1: cards(5, 6, 7, spy=True, scrap=True, artisan=True),
                           2: cards(4, 8, 9, spy=True, scrap=True, artisan=True),
                           3: cards(1, 10, 11, spy=True, scrap=True, artisan=True)}, left=2)
    play(g, "artisan", "gold-5", "gold-4", "gold-1")
    assert g.phase == "artisan-bid" and texts(g) == ["gold-5", "gold-6", "gold-7"]
    play(g, "gold-5")
    assert g.phase == "place" and g.to_move == 1
    assert all(t["holder"] == -1 for t in g.to_json()["tokens"])
    assert player(g, 0)["hand"] == ["gold-6", "gold-7"]


def test_a_scrap_bag_winner_with_no_scrap_left_pays_and_takes_nothing():
    # docs/rules/kilim.md 4: "With no scrap left, it pays and takes nothing" (the rulebook's 5
    # Scraps are all off the board). Day 3: seats 0-2 each searched on days 1 and 2.
    def edit(d):
        d["scraps_on_board"] = []
        for p, letters in ((0, ["A", "B"]), (1, ["C", "D"]), (2, ["E"])):
            d["player_state"][p]["scraps_held"] = letters
    g = third_day(3, edit=edit)
    play(g, "scrap-bag", "gold-5", "gold-3")
    assert g.phase == "scrap-bid" and texts(g)[0] == "gold-6"
    play(g, "gold-6")
    assert g.phase == "place" and g.to_move == 1
    assert texts(g)                                       # the game goes on
    assert player(g, 0)["scraps_held"] == ["A", "B"]
    assert "gold-6" not in player(g, 0)["hand"] and "scrap-bag" not in player(g, 0)["hand"]


# weaving and tokens
def test_a_vertical_domino_may_touch_the_kilim_with_its_lower_cell_only():
    # Rulebook, 2nd Step: the domino "must always be placed so as to have 1 Pattern in contact
    # with at least 1 other Pattern already present" (either of its patterns); docs 5.
    g = Kilim(4, 1)
    play(g, "gold-5", "gold-3", "gold-1", "gold-2")
    play(g, [t for t in texts(g) if t.startswith("place@0,0h")][0])      # one row, 2 columns
    while g.phase != "card":
        play(g, texts(g)[0])
    assert len(g.kilim_rows(0)) == 1
    play(g, "gold-6", "gold-4", "gold-2", "gold-3")
    assert g.phase == "place" and g.to_move == 0
    moves = texts(g)
    for c in (0, 1):                       # above the Kilim: only its lower cell touches
        assert any(t.startswith(f"place@-2,{c}v") for t in moves), (c, moves)
    assert not any(t.startswith("place@-3,") for t in moves)
    for t in moves:
        h = g.clone()
        play(h, t)
        assert connected(h.kilim_rows(0)), t


def test_a_scrap_on_the_lower_half_holds_a_vertical_domino_in_place():
    # docs/rules/kilim.md 7: "A scrap on a domino holds that domino in place: Artisan tokens
    # cannot rotate, remove or move a domino with a scrap on it" (on either half).
    k = {"dominoes": [[0, 0, "v", "AB"], [0, 1, "v", "CD"]], "scraps": [["E", 1, 0]]}
    for token in ("remove", "move", "rotate"):
        g = window(kilims={0: k}, tokens={token: 0})
        assert g.kilim_rows(0) == ["AC", "ED"]
        moves = texts(g)
        assert not any(t.startswith(f"{token}@0,0v") for t in moves), (token, moves)
        assert any(t.startswith(f"{token}@0,1v") for t in moves), (token, moves)


def test_every_rotation_leaves_the_domino_touching_the_kilim():
    # docs/rules/kilim.md 8, Rotate: "keep one half where it is and swing the other half to any
    # free cell orthogonally next to it. Afterwards the domino must touch another cell of the
    # Kilim (unless it is alone)."
    k = {"dominoes": [[0, 0, "h", "AB"], [0, 2, "h", "BB"]]}
    g = window(kilims={0: k}, tokens={"rotate": 0})
    rot = sorted(t for t in texts(g) if t.startswith("rotate@"))
    # AB: A alone next to B, so only B may stay (A swings up or down next to B, which touches
    # BB), or the halves swap; BB: only its left half touches AB, so only it may stay
    assert rot == ["rotate@0,0h:keep2-down", "rotate@0,0h:keep2-up", "rotate@0,0h:swap",
                   "rotate@0,2h:keep1-down", "rotate@0,2h:keep1-up"]
    for t in rot:
        h = g.clone()
        play(h, t)
        assert connected(h.kilim_rows(0)), (t, h.kilim_rows(0))


def test_a_scrap_never_goes_on_a_cell_that_has_one():
    # docs/rules/kilim.md 7: "A scrap may be put on any cell of the Kilim that has no scrap yet
    # ... or on a hole".
    k = {"dominoes": [[0, 0, "h", "AB"]], "scraps": [["C", 0, 0]]}
    g = window(kilims={0: k}, scraps_held={0: ["D"]})
    play(g, "weave-scrap-D")
    assert texts(g) == ["scrap@0,1"]
