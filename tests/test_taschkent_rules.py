"""Taschkent rules: every worked example of the rulebook and a test per rule, field and card.

Regions are written R1..R8 (1-based, as in the rulebook); seats 0..n-1, seat p+1 is clockwise
after seat p. Positions are built with taschkent_support (to_json -> edit -> from_json).
"""
import pickle
import re

import pytest

from cext.taschkent import PY_BORDERS
from engine.games.taschkent import NEIGHBOURS, Taschkent, card_set_points
from taschkent_support import (add_posts, after_cycles, build, finished, fresh, give_action, give_goods,
                               give_trading, good_on_hut, hut, hut_to, last_turn_of_round,
                               neutral_to, pile_top, play, ps, set_display, set_supply, state,
                               texts, to_round, turn_of)


def tug(g, p):
    return g.to_json()["player_state"][p]["tugrik"]


def rich(d, *players, amount=20):
    for p in players or range(d["players"]):
        ps(d, p)["tugrik"] = amount


# ================================================================ set-up
@pytest.mark.parametrize("n,display", [(2, 8), (3, 8), (4, 10)])
def test_setup_by_player_count(n, display):
    d = Taschkent(n, 5).to_json()
    assert [p["tugrik"] for p in d["player_state"]] == [3 + p for p in range(n)]
    assert all(p["supply"] == 3 and p["storage"] == 7 for p in d["player_state"])
    assert all(p["cameleer"] == "outside" and p["hut"] == "supply" for p in d["player_state"])
    assert len(d["trading_display"]) == display and d["trading_pile_count"] == 30 - display
    assert d["camels"] == {"iron": 11, "indigo1": 6, "jade": 11, "indigo2": 5}
    assert hut(d, "R4a")["goods"] == ["iron", "jade"] and hut(d, "R7a")["goods"] == ["indigo"]
    assert d["action_pile_count"] == 12 and sorted(d["action_pile"]) == sorted(
        ["activity", "removal", "cameleer", "caravan", "shortage", "35"] * 2)
    at = sorted(h["at"] for h in d["huts"] if h["id"].startswith("N") and h["at"] != "supply")
    assert at == (["R3", "track2", "track4"] if n == 4 else ["track2", "track4"])
    assert d["round"] == 1 and d["start_player"] == 0 and d["marker"] is None
    assert d["to_move"] == 0 and d["phase"] == "action"
    assert d["virtual_player"] == (n == 2)
    if n == 2:
        assert d["neutral_cameleer"] == "horses" and d["second_cameleer"] == 1


def test_printed_huts_per_region():
    d = fresh()
    counts = [sum(1 for h in d["huts"] if h["at"] == f"R{r}") for r in range(1, 9)]
    assert counts == [1, 2, 1, 3, 2, 0, 1, 2]


# RULES-NOTES (Taschkent): regions on a 2 x 4 grid, 1-2-3-4 above 5-6-7-8, orthogonal
# neighbours only: these 10 borders and nothing else (4 and 5 are not neighbours).
BORDERS = {(1, 2), (2, 3), (3, 4), (5, 6), (6, 7), (7, 8), (1, 5), (2, 6), (3, 7), (4, 8)}
NEIGHBOUR_PAIRS = BORDERS | {(b, a) for a, b in BORDERS}


def test_the_regions_are_a_two_by_four_grid_with_ten_borders():
    """The border table (cext/taschkent.pyx) and the neighbours the Python half derives from
    it: the 10 borders of the grid, each once, symmetric, 4-5 absent."""
    assert len(PY_BORDERS) == 10
    assert {(a + 1, b + 1) for a, b in PY_BORDERS} == BORDERS
    assert {(r + 1, t + 1) for r in range(8) for t in NEIGHBOURS[r]} == NEIGHBOUR_PAIRS
    assert 4 not in NEIGHBOURS[3] and 3 not in NEIGHBOURS[4]      # R4 and R5 share no border


def test_removal_reaches_exactly_the_neighbouring_regions():
    """With a post in every region, the Removal card offers to move one to each orthogonal
    neighbour on the grid (RULES-NOTES: adjacency), 20 moves, and nowhere else."""
    d = fresh()
    give_action(d, 0, "removal")
    for r in range(1, 9):
        add_posts(d, 0, r)
    g = build(d)
    moves = [re.fullmatch(r"card-removal-R(\d)-R(\d)", t) for t in texts(g)]
    assert {(int(m[1]), int(m[2])) for m in moves if m} == NEIGHBOUR_PAIRS
    assert sum(1 for m in moves if m) == 20


@pytest.mark.parametrize("region", range(1, 9))
def test_caravan_moves_on_reaches_exactly_the_neighbouring_regions(region):
    """Caravan moves on takes the own hut from `region` to each grid neighbour, and only there
    (RULES-NOTES: adjacency)."""
    d = fresh()
    give_action(d, 0, "caravan")
    hut_to(d, "H0", f"R{region}")
    g = build(d)
    reached = {int(t[-1]) for t in texts(g) if t.startswith("card-caravan-H0-R")}
    assert reached == {b for a, b in NEIGHBOUR_PAIRS if a == region}


def test_trade_connections_are_laid_on_the_ten_borders_only():
    """A trade connection bought on field 1 goes on one of the 10 borders (RULES-NOTES:
    adjacency, trade connections), in each colour."""
    d = fresh()
    rich(d, 0, amount=2)
    g = build(d)
    for colour in ("red", "green", "blue"):
        links = [t for t in texts(g) if t.startswith(f"move-horses-link-{colour}-")]
        laid = {tuple(int(x) for x in t.rsplit("-", 2)[1:]) for t in links}
        assert len(links) == 10
        assert laid == BORDERS


def test_bad_arguments_are_refused():
    for n in (0, 1, 5):
        with pytest.raises(ValueError):
            Taschkent(n)
    with pytest.raises(ValueError):
        Taschkent(3, -1)


# ---------------------------------------------------------------- set-up options (issue 18)
def test_the_starting_goods_go_on_the_huts_asked_for():
    """'One of each good (iron, jade, indigo) is placed on any hut on the board': the option
    `goods`, as text (any order, any case, commas or spaces) or a dict."""
    for goods in ("iron:R2a,jade:R5b,indigo:R1a", "INDIGO:r1a jade:R5B iron:R2A",
                  {"iron": "R2a", "jade": "R5b", "indigo": "R1a"}):
        g = Taschkent(3, 2, goods=goods)
        d = g.to_json()
        assert [h["id"] for h in d["huts"] if h["goods"]] == ["R1a", "R2a", "R5b"]
        assert hut(d, "R2a")["goods"] == ["iron"] and hut(d, "R5b")["goods"] == ["jade"]
        assert hut(d, "R1a")["goods"] == ["indigo"]
        assert d["camels"] == {"iron": 11, "indigo1": 6, "jade": 11, "indigo2": 5}
        assert d["setup"] == {"goods": {"iron": "R2a", "jade": "R5b", "indigo": "R1a"},
                              "neutral_region": None}
    d = Taschkent(3, 2, goods="iron:R8b,jade:R8b,indigo:R8b").to_json()   # all on one hut
    assert hut(d, "R8b")["goods"] == ["iron", "jade", "indigo"]


def test_the_four_player_neutral_hut_goes_into_the_region_asked_for():
    """'When playing with four players, a neutral hut is placed in one of the regions': the
    option `neutral_region` (1-8, as an int or text, R5 too); a good may go on it."""
    for region in (5, "5", "R5", "r5"):
        g = Taschkent(4, 3, neutral_region=region, goods="iron:N3,jade:R4a,indigo:R7a")
        d = g.to_json()
        assert hut(d, "N3")["at"] == "R5" and hut(d, "N3")["goods"] == ["iron"]
        assert d["setup"] == {"goods": {"iron": "N3", "jade": "R4a", "indigo": "R7a"},
                              "neutral_region": 5}
        assert sum(h["at"] == "R5" for h in d["huts"]) == 3
        assert "R3" not in [h["at"] for h in d["huts"] if h["id"].startswith("N")]
    g = Taschkent(4, 3, neutral_region=6)
    assert g.parse_move("post-R6") in g.legal_moves()      # 1 Tugrik for the neutral hut
    play(g, "post-R6")
    assert tug(g, 0) == 3 - 1


def test_without_options_the_set_up_is_the_first_games():
    for n in (2, 3, 4):
        d = Taschkent(n, 7).to_json()
        assert d["setup"] == {"goods": {"iron": "R4a", "jade": "R4a", "indigo": "R7a"},
                              "neutral_region": 3 if n == 4 else None}
        assert Taschkent(n, 7, goods="iron:R4a,jade:R4a,indigo:R7a").to_json() == d
        if n == 4:
            assert Taschkent(n, 7, neutral_region=3).to_json() == d


@pytest.mark.parametrize("players,options,message", [
    (3, {"goods": "iron:R6a,jade:R4a,indigo:R7a"}, "'R6a' is no hut on the board at set-up"),
    (3, {"goods": "iron:N3,jade:R4a,indigo:R7a"}, "N3 is in a region only with 4 players"),
    (4, {"goods": "iron:N4,jade:R4a,indigo:R7a"}, "or N3"),
    (3, {"goods": "iron:R2a"}, "jade, indigo missing"),
    (3, {"goods": "iron:R2a,iron:R2b,jade:R1a,indigo:R1a"}, "iron is given twice"),
    (3, {"goods": "gold:R2a,jade:R1a,indigo:R1a"}, "no good 'gold'"),
    (3, {"goods": "iron-R2a"}, "is not good:hut"),
    (3, {"goods": ""}, "iron, jade, indigo missing"),
    (3, {"goods": 7}, "give text"),
    (3, {"neutral_region": 2}, "only a 4-player game"),
    (4, {"neutral_region": 9}, "a region 1-8, not 9"),
    (4, {"neutral_region": "0"}, "a region 1-8, not 0"),
    (4, {"neutral_region": "north"}, "a region 1-8, not 'north'"),
    (4, {"neutral_region": True}, "a region 1-8"),
])
def test_bad_set_up_options_are_refused_with_a_message_naming_the_option(players, options, message):
    with pytest.raises(ValueError, match=re.escape(message)) as e:
        Taschkent(players, 1, **options)
    assert str(e.value).startswith(next(iter(options)) + ": ")


def test_the_options_are_in_the_registry_with_their_help():
    from engine.registry import GAMES, new_game
    info = GAMES["taschkent"]
    assert set(info.options) == {"goods", "neutral_region"}
    assert "iron:R2a" in info.options["goods"] and "1-8" in info.options["neutral_region"]
    g = new_game("taschkent", 4, 1, goods="iron:R1a,jade:R1a,indigo:R1a", neutral_region="8")
    assert g.setup == {"goods": {"iron": "R1a", "jade": "R1a", "indigo": "R1a"}, "neutral_region": 8}
    assert g.clone().setup == g.setup and pickle.loads(pickle.dumps(g)).setup == g.setup


# ================================================================ placing trading posts
def test_example_1_three_neutral_huts_cost_three_and_an_empty_region_is_free():
    d = fresh()
    rich(d, 0)
    g = build(d)
    assert "post-R4" in texts(g) and "post-R6" in texts(g)
    a = g.clone()
    play(a, "post-R4")
    assert tug(a, 0) == 20 - 3
    play(g, "post-R6")
    assert tug(g, 0) == 20


def test_example_2_three_posts_and_three_huts_cost_six():
    d = fresh()
    rich(d, 0)
    add_posts(d, 1, 4, 2)
    add_posts(d, 2, 4, 1)
    g = build(d)
    play(g, "post-R4")
    assert tug(g, 0) == 20 - 6


def test_example_3_own_hut_is_free_for_the_owner_only():
    """R1 holds a neutral (printed) hut; orange (P0) has a hut and a post there: P0 pays 2 for a
    second post, another player 3."""
    d = fresh()
    rich(d)
    hut_to(d, "H0", "R1")
    add_posts(d, 0, 1)
    g = build(d)
    play(g, "post-R1")
    assert tug(g, 0) == 18
    turn_of(d, 1)
    g = build(d)
    play(g, "post-R1")
    assert tug(g, 1) == 17


def test_a_post_needs_money_and_a_post_in_hand():
    d = fresh()
    ps(d, 0)["tugrik"] = 2
    g = build(d)
    assert "post-R4" not in texts(g) and "post-R2" in texts(g)
    after_cycles(d)                   # the cart is full: a sale has brought posts back
    set_supply(d, 0, 0)
    g = build(d)
    assert not any(t.startswith("post-") for t in texts(g))


def test_placing_the_hut_is_free_and_once():
    g = build(fresh())
    play(g, "hut-R6", "no-move")
    assert state(g)["player_state"][0]["hut"] == "R6" and tug(g, 0) == 3
    d = state(g)
    turn_of(d, 0)
    g = build(d)
    assert not any(t.startswith("hut-") for t in texts(g))


def test_take_one_tugrik():
    g = build(fresh())
    play(g, "tugrik")
    assert tug(g, 0) == 4 and g.phase == "move2"


# ================================================================ moving the cameleer
def test_example_cameleer_move_four_steps_onto_an_occupied_field():
    """Orange on the horses: three steps to the blue camel are free; the fourth to the yellow
    camel (field 5) costs 1, and 1 more for the red cameleer standing there."""
    d = fresh()
    rich(d, 0, amount=10)
    ps(d, 0)["cameleer"] = "horses"
    ps(d, 1)["cameleer"] = "jade"
    g = build(d)
    a = g.clone()
    play(a, "move-indigo1")
    assert tug(a, 0) == 10
    play(g, "move-jade")
    assert tug(g, 0) == 8
    assert state(g)["player_state"][0]["goods"]["jade"] == 1


def test_first_and_seventh_camel_are_not_neighbours():
    d = fresh()
    rich(d, 0, amount=10)
    ps(d, 0)["cameleer"] = "horses"
    g = build(d)
    play(g, "move-indigo2")                  # 6 steps: 3 paid
    assert tug(g, 0) == 7


def test_an_unaffordable_move_is_not_offered():
    d = fresh()
    ps(d, 0)["tugrik"] = 0
    ps(d, 0)["cameleer"] = "horses"
    g = build(d)
    t = texts(g)
    assert "move-indigo1" in t and "move-jade" not in t and "move-indigo2" not in t


def test_from_outside_every_field_can_be_entered():
    g = build(fresh())
    moves = {t for t in texts(g) if t.startswith("move-") and "-link-" not in t}
    assert moves == {"move-horses", "move-cards", "move-iron", "move-indigo1", "move-jade",
                     "move-carriage", "move-indigo2", "move-kalmyk"}


def test_no_standing_still_and_no_back_and_forth():
    d = fresh()
    rich(d, 0)
    ps(d, 0)["cameleer"] = "iron"
    g = build(d)
    assert "move-iron" not in texts(g)
    play(g, "move-jade")
    t = texts(g)
    assert g.phase == "move2" and "move-iron" not in t and "move-jade" not in t
    assert "move-indigo1" in t and "no-move" in t


def test_kalmyk_is_one_step_from_everywhere_and_not_a_shortcut():
    d = fresh()
    rich(d, 0, amount=5)
    ps(d, 0)["cameleer"] = "horses"
    g = build(d)
    play(g, "move-kalmyk")
    assert tug(g, 0) == 5 and g.phase == "move2"
    play(g, "move-indigo2")                  # from the Kalmyk: anywhere, one step
    assert tug(g, 0) == 5
    assert state(g)["player_state"][0]["goods"]["indigo"] == 1


def test_other_cameleers_cost_one_each_on_the_destination():
    d = fresh()
    rich(d, 0)
    ps(d, 1)["cameleer"] = "iron"
    ps(d, 2)["cameleer"] = "iron"
    g = build(d)
    play(g, "move-iron")
    assert tug(g, 0) == 18


def test_the_second_move_is_optional_and_only_three_steps_are_free_again():
    d = fresh()
    rich(d, 0, amount=10)
    g = build(d)
    play(g, "move-horses", "move-jade")      # 4 steps in the second move: 1 Tugrik
    assert tug(g, 0) == 9


# ================================================================ caravan fields
def test_field_1_takes_the_marker_and_a_post_and_the_marker_once():
    g = build(fresh())
    play(g, "move-horses")
    d = state(g)
    assert d["marker"] == 0 and ps(d, 0)["supply"] == 4 and ps(d, 0)["storage"] == 6
    play(g, "no-move")
    play(g, "move-horses")                   # P1: the marker stays with P0, P1 gets a post
    d = state(g)
    assert d["marker"] == 0 and ps(d, 1)["supply"] == 4


def test_field_2_draws_the_top_action_card_privately():
    d = fresh()
    pile_top(d, "removal")
    g = build(d)
    before = g.info_key(1)
    play(g, "move-cards")
    d = state(g)
    assert ps(d, 0)["action_cards"] == {"removal": 1} and d["action_pile_count"] == 11
    view1 = g.to_json(view=1)
    assert "action_cards" not in view1["player_state"][0]
    assert view1["player_state"][0]["action_card_count"] == 1
    assert g.info_key(1) != before


@pytest.mark.parametrize("field,good,camel", [("iron", "iron", "iron"),
                                              ("indigo1", "indigo", "indigo1"),
                                              ("jade", "jade", "jade"),
                                              ("indigo2", "indigo", "indigo2")])
def test_goods_fields_give_one_good(field, good, camel):
    g = build(fresh())
    c0 = state(g)["camels"][camel]
    play(g, f"move-{field}")
    d = state(g)
    assert ps(d, 0)["goods"][good] == 1 and d["camels"][camel] == c0 - 1


def test_field_6_the_carriage_gives_three_posts_or_what_is_left():
    g = build(fresh())
    play(g, "move-carriage")
    assert ps(state(g), 0)["supply"] == 6
    d = fresh()
    set_supply(d, 0, 8)
    g = build(d)
    play(g, "move-carriage")
    assert ps(state(g), 0)["supply"] == 10 and ps(state(g), 0)["storage"] == 0


def test_an_empty_blue_camel_is_not_available():
    d = fresh()
    give_goods(d, 1, "indigo", 6)            # the first blue camel's 6 goods: it is empty
    assert d["camels"]["indigo1"] == 0 and d["camels"]["indigo2"] == 5
    g = build(d)
    t = texts(g)
    assert "move-indigo1" not in t and "move-indigo2" in t


def test_kalmyk_neutral_hut_example():
    """A region with a neutral hut, a yellow hut and a trading post: yellow (P1) pays 1 to put
    the Kalmyk's neutral hut there, every other player 2. (Round 2: its neutral hut waits at
    the Kalmyk.)"""
    d = fresh()
    rich(d)
    to_round(d, 2)
    assert hut(d, "N1")["at"] == "kalmyk"
    hut_to(d, "H1", "R1")
    add_posts(d, 2, 1)
    g = build(d)
    assert "move-kalmyk-hut-R1" in texts(g)
    a = g.clone()
    play(a, "move-kalmyk-hut-R1")
    assert tug(a, 0) == 18 and hut(state(a), "N1")["at"] == "R1"
    turn_of(d, 1)
    b = build(d)
    play(b, "move-kalmyk-hut-R1")
    assert tug(b, 1) == 19
    c = build(d)
    play(c, "move-kalmyk-hut-R6")           # an empty region is free
    assert tug(c, 1) == 20


def test_kalmyk_hut_placement_is_optional_and_several_huts_can_wait_there():
    d = fresh()
    to_round(d, 4)                           # the huts of track fields 2 and 4 wait there
    assert hut(d, "N1")["at"] == hut(d, "N2")["at"] == "kalmyk"
    g = build(d)
    play(g, "move-kalmyk")
    assert sum(1 for h in state(g)["huts"] if h["at"] == "kalmyk") == 2


def test_trade_connection_instead_of_the_field_action_for_two_tugrik():
    d = fresh()
    rich(d, 0, amount=2)
    g = build(d)
    assert "move-horses-link-red-1-2" in texts(g) and "move-cards-link-blue-4-8" in texts(g)
    play(g, "move-cards-link-blue-4-8")
    d = state(g)
    assert tug(g, 0) == 0 and d["action_pile_count"] == 12
    assert d["connections"][2] == {"colour": "blue", "border": "4-8", "used": False}
    d2 = fresh()
    ps(d2, 0)["tugrik"] = 1
    assert not any("-link-" in t for t in texts(build(d2)))


def test_a_connection_is_relocated_only_after_it_was_used():
    d = fresh()
    rich(d, 0)
    d["connections"][0]["border"] = "1-2"
    g = build(d)
    assert not any("-link-red-" in t for t in texts(g))
    assert any("-link-green-" in t for t in texts(g))
    after_cycles(d)                   # a connection is used by a sale
    d["connections"][0]["used"] = True
    g = build(d)
    t = texts(g)
    assert "move-horses-link-red-2-3" in t and "move-horses-link-red-1-2" not in t
    play(g, "move-horses-link-red-2-3")
    assert state(g)["connections"][0] == {"colour": "red", "border": "2-3", "used": False}


# ================================================================ action cards
def test_activity_places_an_extra_post_at_the_end_of_the_turn_at_the_regular_price():
    d = fresh()
    rich(d, 0)
    give_action(d, 0, "activity")
    g = build(d)
    assert not any(t.startswith("card-activity") for t in texts(g))   # not as the action
    play(g, "post-R4", "no-move")
    assert g.phase == "end"
    play(g, "card-activity-R4")              # 3 huts + 1 post
    d = state(g)
    assert tug(g, 0) == 20 - 3 - 4 and ps(d, 0)["posts"][3] == 2
    assert d["played_cards"] == {"activity": 1} and g.phase == "end"
    play(g, "end-turn")
    assert g.to_move == 1


def test_removal_moves_an_own_post_to_a_neighbouring_region_any_time_in_the_turn():
    d = fresh()
    give_action(d, 0, "removal")
    add_posts(d, 0, 1)
    g = build(d)
    t = [x for x in texts(g) if x.startswith("card-removal")]
    assert t == ["card-removal-R1-R2", "card-removal-R1-R5"]
    play(g, "card-removal-R1-R5")
    assert ps(state(g), 0)["posts"][:5] == [0, 0, 0, 0, 1] and g.phase == "action"


def test_cameleer_card_is_a_free_extra_move_with_its_field_action():
    d = fresh()
    ps(d, 0)["tugrik"] = 2
    give_action(d, 0, "cameleer")
    ps(d, 0)["cameleer"] = "iron"                        # drawn earlier; not back to field 2
    ps(d, 1)["cameleer"] = "indigo2"
    g = build(d)
    play(g, "move-horses", "no-move")
    assert "card-cameleer-indigo2" in texts(g)           # 6 steps + 1 cameleer: free
    assert "card-cameleer-cards-link-red-1-2" in texts(g)  # connection still costs 2
    play(g, "card-cameleer-indigo2")
    d = state(g)
    assert tug(g, 0) == 2 and ps(d, 0)["goods"]["indigo"] == 1
    assert ps(d, 0)["cameleer"] == "indigo2"


def test_cameleer_card_waives_the_price_of_other_cameleers_too():
    """Issue 18: 'The move is free of charge' covers both prices of a move (steps beyond
    three and 1 per other cameleer on the field reached); only connections and huts are
    paid (docs/rules/taschkent.md, section 7)."""
    d = fresh()
    ps(d, 0)["tugrik"] = 0
    give_action(d, 0, "cameleer")
    ps(d, 0)["cameleer"] = "iron"
    ps(d, 1)["cameleer"] = "carriage"
    ps(d, 2)["cameleer"] = "carriage"
    g = build(d)
    play(g, "tugrik")                                    # 1 Tugrik: not enough for 2 cameleers
    assert "move-carriage" not in texts(g)
    play(g, "no-move")
    assert "card-cameleer-carriage" in texts(g)          # 3 steps, 2 other cameleers: free
    assert "card-cameleer-horses-link-red-1-2" not in texts(g)   # a connection costs 2
    play(g, "card-cameleer-carriage")
    assert tug(g, 0) == 1 and ps(state(g), 0)["cameleer"] == "carriage"


def test_cameleer_card_cannot_go_back_to_where_the_last_move_began():
    d = fresh()
    give_action(d, 0, "cameleer")
    ps(d, 0)["cameleer"] = "iron"
    g = build(d)
    play(g, "tugrik", "move-jade")
    t = texts(g)
    assert "card-cameleer-iron" not in t and "card-cameleer-indigo1" in t


def test_cameleer_card_must_pay_for_the_kalmyk_hut():
    d = fresh()
    ps(d, 0)["tugrik"] = 0
    give_action(d, 0, "cameleer")
    to_round(d, 2)                           # the neutral hut of track field 2 waits at the Kalmyk
    g = build(d)
    play(g, "tugrik", "no-move")
    t = texts(g)
    assert "card-cameleer-kalmyk-hut-R1" in t and "card-cameleer-kalmyk-hut-R4" not in t
    assert "card-cameleer-kalmyk-hut-R6" in t


def test_caravan_moves_on_moves_own_or_neutral_huts_with_their_goods():
    d = fresh()
    give_action(d, 0, "caravan")
    hut_to(d, "H0", "R6")
    hut_to(d, "H1", "R7")
    n = neutral_to(d, 1)
    good_on_hut(d, n, "jade")
    g = build(d)
    t = [x for x in texts(g) if x.startswith("card-caravan")]
    assert t == [f"card-caravan-{n}-R2", f"card-caravan-{n}-R5", "card-caravan-H0-R2",
                 "card-caravan-H0-R5", "card-caravan-H0-R7"]        # not printed, not P1's
    play(g, f"card-caravan-{n}-R2")
    h = hut(state(g), n)
    assert h["at"] == "R2" and h["goods"] == ["jade"]


def test_shortage_takes_one_and_removes_one_from_a_camel():
    d = fresh()
    give_action(d, 0, "shortage")
    g = build(d)
    play(g, "card-shortage-iron")
    d = state(g)
    assert d["camels"]["iron"] == 9 and ps(d, 0)["goods"]["iron"] == 1
    assert d["removed_goods"]["iron"] == 1


def test_shortage_removes_a_good_from_a_hut_and_one_from_a_camel():
    d = fresh()
    give_action(d, 0, "shortage")
    g = build(d)
    assert "card-shortage-R4a-jade-indigo2" in texts(g)
    play(g, "card-shortage-R4a-jade-indigo2")
    d = state(g)
    assert hut(d, "R4a")["goods"] == ["iron"] and d["camels"]["indigo2"] == 4
    assert d["removed_goods"] == {"iron": 0, "jade": 1, "indigo": 1}


def test_three_five_gives_three_tugrik_or_counts_five_at_the_end():
    d = fresh()
    give_action(d, 0, "35")
    g = build(d)
    assert g.tugrik_totals()[0] == 3 + 5
    play(g, "card-35")
    assert tug(g, 0) == 6 and g.tugrik_totals()[0] == 6


def test_cards_are_never_played_outside_the_own_turn_or_in_a_trading_round():
    d = fresh()
    for c in ("removal", "shortage", "35"):
        give_action(d, 1, c)
    add_posts(d, 1, 2)
    g = build(d)
    assert not any(t.startswith("card-") for t in texts(g))     # P0 to move
    d = fresh()
    give_action(d, 2, "35")
    give_goods(d, 2, "iron")
    add_posts(d, 2, 1)
    last_turn_of_round(d)
    g = build(d)
    play(g, "no-move")
    assert g.phase == "end"
    play(g, "end-turn")
    assert g.phase == "sell" and not any(t.startswith("card-") for t in texts(g))


def test_end_phase_only_with_action_cards():
    g = build(fresh())
    play(g, "tugrik", "no-move")
    assert g.to_move == 1 and g.phase == "action"


# ================================================================ the round track
def test_round_two_always_follows_and_its_neutral_hut_goes_to_the_kalmyk():
    g = build(fresh())
    for _ in range(3):
        play(g, "tugrik", "no-move")
    d = state(g)
    assert d["round"] == 2 and g.to_move == 0
    assert [h["at"] for h in d["huts"] if h["id"] == "N1"] == ["kalmyk"]


def _end_of_round(round_, seed):
    d = fresh(seed=seed)
    last_turn_of_round(d, round_)
    g = build(d)
    play(g, "no-move")
    die = [e for e in g.last_events() if e[0] == 1]
    return g, die[0][1] if die else None


@pytest.mark.parametrize("round_,need", [(2, 3), (3, 5)])
def test_rounds_three_and_four_depend_on_the_die(round_, need):
    seen = set()
    for seed in range(60):
        g, die = _end_of_round(round_, seed)
        assert die is not None
        if die >= need:
            assert g.round == round_ + 1 and g.phase == "action"
        else:
            assert g.phase in ("sell", "action") and g.trading_rounds == 1 or g.phase == "sell"
        seen.add(die >= need)
    assert seen == {True, False}


def test_round_four_moves_the_second_neutral_hut_and_then_trading_follows():
    for seed in range(40):
        g, die = _end_of_round(3, seed)
        if die >= 5:
            assert sum(1 for h in state(g)["huts"] if h["at"] == "kalmyk") == 2
            d = state(g)
            last_turn_of_round(d, 4)
            g = build(d)
            play(g, "no-move")
            assert g.trading_rounds == 1 and not [e for e in g.last_events() if e[0] == 1]
            return
    pytest.fail("no die of 5 or 6 in 40 seeds")


def test_the_start_player_changes_once_and_only_at_the_end_of_the_round():
    g = build(fresh())
    play(g, "tugrik", "no-move")
    play(g, "move-horses", "no-move")        # P1 takes the marker
    assert state(g)["start_player"] == 0
    play(g, "tugrik", "no-move")
    d = state(g)
    assert d["start_player"] == 1 and d["round"] == 2 and g.to_move == 1
    play(g, "tugrik", "no-move")
    play(g, "move-horses", "no-move")        # P2: the marker is gone, only a post
    d = state(g)
    assert d["marker"] == 1 and ps(d, 2)["supply"] == 4
    play(g, "move-horses", "no-move")        # P0 too
    d = state(g)
    assert d["start_player"] == 1 and d["marker"] == 1


def test_after_a_trading_round_marker_track_and_display_are_reset():
    """Round 3 ends and the die skips round 4, so the hut of track field 4 is still there; P1
    took the marker in an earlier round and is the start player. P0's sale takes the two
    leftmost cards; the six left move left and two from the pile fill the row."""
    for seed in range(40):
        d = fresh(seed=seed)
        d["marker"] = 1
        d["start_player"] = 1
        ps(d, 1)["cameleer"] = "horses"           # where P1 took the marker
        give_goods(d, 0, "iron")
        add_posts(d, 0, 8)
        row, pile = list(d["trading_display"]), list(d["trading_pile"])
        last_turn_of_round(d, 3)
        assert hut(d, "N2")["at"] == "track4"
        g = build(d)
        play(g, "no-move")
        if state(g)["phase"] == "sell":           # a die below 5: no round 4
            break
    else:
        pytest.fail("no die below 5 in 40 seeds")
    play(g, "sell-iron-R8-cards-R8a")
    d = state(g)
    assert g.trading_rounds == 1
    assert d["phase"] == "action" and d["round"] == 1 and d["marker"] is None
    taken = ps(d, 0)["trading_cards"]
    assert [taken[c] for c in ("silk", "china", "spices")] == [row[:2].count(c) for c in
                                                                ("silk", "china", "spices")]
    assert d["trading_display"] == row[2:] + pile[::-1][:2]
    track = sorted(h["at"] for h in d["huts"] if h["at"].startswith("track"))
    assert track == ["track2", "track4"]
    assert g.to_move == 1


# ================================================================ the trading round
def trading_position(players=3, start=0):
    """The opening with seat `start` as the start player (it took the marker on the horses);
    the set-up goods stay on R4a (iron, jade) and R7a (indigo)."""
    d = fresh(players)
    d["start_player"] = start
    if start:
        ps(d, start)["cameleer"] = "horses"
    return d


def test_example_indigo_sale_in_region_8():
    """Two huts in R8: no indigo -> 2 cards or 6 Tugrik; one -> 1 card or 3; two -> no sale.
    The seller names the receiving hut: each hut without indigo is offered."""
    for placed, cards, tug_ in ((0, 2, 6), (1, 1, 3)):
        d = trading_position()
        for name in ("R8a", "R8b")[:placed]:
            good_on_hut(d, name, "indigo")
        give_goods(d, 0, "indigo")
        add_posts(d, 0, 8)
        last_turn_of_round(d)
        g = build(d)
        play(g, "no-move")
        assert g.phase == "sell" and g.to_move == 0
        free = ("R8a", "R8b")[placed:]
        assert texts(g) == ["pass"] + [f"sell-indigo-R8-{e}-{h}" for h in free
                                       for e in ("tugrik", "tugrik-keep", "cards", "cards-keep")]
        a = g.clone()
        play(a, f"sell-indigo-R8-tugrik-{free[-1]}")
        assert tug(a, 0) == 3 + tug_
        assert hut(state(a), free[-1])["goods"] == ["indigo"]
        row = state(g)["trading_display"]
        play(g, f"sell-indigo-R8-cards-{free[0]}")
        got = ps(state(g), 0)["trading_cards"]
        assert sum(got.values()) == cards
        assert all(got[c] == row[:cards].count(c) for c in got)        # from the left
    d = trading_position()
    good_on_hut(d, "R8a", "indigo")
    good_on_hut(d, "R8b", "indigo")
    give_goods(d, 0, "indigo")
    add_posts(d, 0, 8)
    last_turn_of_round(d)
    g = build(d)
    play(g, "no-move")
    assert g.phase == "action" and g.trading_rounds == 1          # nothing could be sold


def test_a_sale_puts_the_good_on_a_hut_and_returns_the_post():
    d = trading_position()
    give_goods(d, 0, "iron")
    add_posts(d, 0, 2)
    last_turn_of_round(d)
    g = build(d)
    play(g, "no-move", "sell-iron-R2-tugrik-R2a")
    d = state(g)
    assert hut(d, "R2a")["goods"] == ["iron"] and ps(d, 0)["posts"][1] == 0
    assert ps(d, 0)["storage"] == 7 and ps(d, 0)["goods"]["iron"] == 0


def test_the_seller_chooses_the_receiving_hut_among_the_huts_without_that_good():
    """Every hut of the target region without the good is offered (printed or not), the
    earnings do not depend on the choice, and the named hut receives the good."""
    d = trading_position()
    good_on_hut(d, "R2a", "iron")                 # R2a already holds iron: not offered
    n = neutral_to(d, 2)
    hut_to(d, "H1", "R2")
    give_goods(d, 0, "iron")
    add_posts(d, 0, 2)
    last_turn_of_round(d)
    g = build(d)
    play(g, "no-move")
    t = texts(g)
    assert t == ["pass"] + [f"sell-iron-R2-{e}-{h}" for h in ("R2b", n, "H1")
                            for e in ("tugrik", "tugrik-keep", "cards", "cards-keep")]
    moves = g.legal_moves()
    assert moves == sorted(set(moves))
    for h in ("R2b", n, "H1"):
        a = g.clone()
        m = g.parse_move(f"sell-iron-R2-tugrik-{h}")
        a.apply(m)
        s = state(a)
        assert tug(a, 0) == 3 + 9                 # three huts lacked iron
        assert hut(s, h)["goods"] == ["iron"]
        assert [x for x in ("R2a", "R2b", n, "H1") if "iron" in hut(s, x)["goods"]] == \
            sorted({"R2a", h}, key=("R2a", "R2b", n, "H1").index)
        assert f"onto hut {h}:" in a.narrate(g, 0, m)[0]


def test_a_single_qualifying_hut_gives_one_move_per_earning_option():
    d = trading_position()
    good_on_hut(d, "R2a", "iron")
    give_goods(d, 0, "iron")
    add_posts(d, 0, 2)
    last_turn_of_round(d)
    g = build(d)
    play(g, "no-move")
    assert texts(g) == ["pass", "sell-iron-R2-tugrik-R2b", "sell-iron-R2-tugrik-keep-R2b",
                        "sell-iron-R2-cards-R2b", "sell-iron-R2-cards-keep-R2b"]


def test_a_good_sold_onto_a_movable_hut_travels_with_it():
    """Why the choice matters: Caravan moves on carries the goods of a neutral hut."""
    d = trading_position()
    n = neutral_to(d, 2)
    give_goods(d, 0, "iron")
    add_posts(d, 0, 2)
    give_action(d, 0, "caravan")
    last_turn_of_round(d)
    g = build(d)
    play(g, "no-move", f"sell-iron-R2-tugrik-{n}")
    s = state(g)
    assert hut(s, n)["goods"] == ["iron"] and hut(s, "R2a")["goods"] == []
    while not (g.to_move == 0 and g.phase == "action"):
        play(g, "tugrik" if g.phase == "action" else texts(g)[0])
    play(g, f"card-caravan-{n}-R1")
    s = state(g)
    assert hut(s, n)["at"] == "R1" and hut(s, n)["goods"] == ["iron"]
    assert all(not hut(s, x)["goods"] for x in ("R2a", "R2b"))


def test_keeping_the_post_costs_two_posts_and_it_cannot_sell_again_this_round():
    d = trading_position()
    give_goods(d, 0, "iron")
    give_goods(d, 0, "jade")
    add_posts(d, 0, 2)
    last_turn_of_round(d)
    g = build(d)
    play(g, "no-move", "sell-iron-R2-tugrik-keep-R2a")
    d = state(g)
    assert ps(d, 0)["posts"][1] == 1 and ps(d, 0)["supply"] == 1
    assert g.phase == "action"              # the kept post cannot sell the jade
    assert ps(d, 0)["kept"] == [0] * 8 and ps(d, 0)["goods"]["jade"] == 1


def test_keeping_needs_two_posts_in_hand():
    d = trading_position()
    after_cycles(d)                       # posts have come back to the cart
    give_goods(d, 0, "iron")
    add_posts(d, 0, 2)
    set_supply(d, 0, 1)
    last_turn_of_round(d)
    g = build(d)
    play(g, "no-move")
    assert not any(t.endswith("-keep") for t in texts(g))


def test_trading_order_regions_in_order_start_player_first_one_sale_at_a_time():
    d = trading_position(start=1)
    for p in range(3):
        give_goods(d, p, "iron", 2 if p == 0 else 1)
        give_goods(d, p, "jade", 1)
    add_posts(d, 0, 2, 2)
    add_posts(d, 2, 2, 1)
    add_posts(d, 1, 5, 1)
    add_posts(d, 0, 5, 1)
    last_turn_of_round(d)
    g = build(d)
    play(g, "no-move")
    order = []
    while g.phase == "sell":
        order.append((state(g)["trade"]["region"], g.to_move))
        play(g, [t for t in texts(g) if t != "pass"][0])
    # R2: start player P1 has no post there: P2 (iron), P0 (iron), P2 is out of posts, P0
    # (jade: both huts hold iron now); then R5: P1, P0
    assert order == [(2, 2), (2, 0), (2, 0), (5, 1), (5, 0)]


def test_a_pass_alone_in_its_lap_ends_the_region():
    d = trading_position()
    give_goods(d, 0, "iron", 2)
    add_posts(d, 0, 2, 1)
    add_posts(d, 0, 5, 1)
    last_turn_of_round(d)
    g = build(d)
    play(g, "no-move", "pass")
    assert state(g)["trade"]["region"] == 5


def test_a_player_who_passed_sells_on_a_later_lap():
    """'each player clockwise sells only one good at a time (until all possible goods are
    traded)': a pass is for this lap; after another player's sale the passer may sell again.
    The region ends with a lap in which everyone who could sell passed."""
    d = trading_position()
    give_goods(d, 0, "iron", 1)
    add_posts(d, 0, 2, 1)
    give_goods(d, 2, "iron", 1)
    give_goods(d, 2, "jade", 1)
    add_posts(d, 2, 2, 2)
    last_turn_of_round(d)
    g = build(d)
    play(g, "no-move")                       # P2's last turn ends round 4: trading, R2
    assert (state(g)["trade"], g.to_move) == ({"region": 2, "passed": []}, 0)
    play(g, "pass")
    assert (state(g)["trade"]["passed"], g.to_move) == ([0], 2)
    play(g, "sell-iron-R2-tugrik-R2a")
    assert (state(g)["trade"], g.to_move) == ({"region": 2, "passed": []}, 0)
    assert "sell-iron-R2-tugrik-R2b" in texts(g)  # P0 passed a lap ago: it may sell now
    play(g, "pass", "pass")                  # P0, then P2: a lap without a sale
    assert g.phase != "sell" or state(g)["trade"]["region"] > 2
    assert ps(state(g), 0)["goods"]["iron"] == 1 and ps(state(g), 2)["goods"]["jade"] == 1


def test_a_pass_before_a_sale_can_be_followed_by_a_sale_of_the_same_seat_in_one_region():
    """A seat that passed, then sold after someone else's sale, keeps going lap by lap."""
    d = trading_position()
    give_goods(d, 0, "iron", 1)
    give_goods(d, 0, "jade", 1)
    add_posts(d, 0, 2, 2)
    give_goods(d, 1, "jade", 1)
    add_posts(d, 1, 2, 1)
    last_turn_of_round(d)
    g = build(d)
    play(g, "no-move", "pass", "sell-jade-R2-tugrik-R2a")    # P0 passes, P1 sells
    play(g, "sell-iron-R2-cards-R2a")                         # P0 sells on the next lap
    assert g.to_move == 0 and state(g)["trade"]["region"] == 2   # P1 has nothing left
    play(g, "sell-jade-R2-tugrik-R2b")
    assert ps(state(g), 0)["goods"] == {"iron": 0, "jade": 0, "indigo": 0}


def test_no_cards_when_the_display_is_empty_and_partial_cards_when_short():
    """One card in the row, the pile empty (P1 holds the rest): P0's first sale in R8 could
    take two cards and takes the one left; its second finds the row empty and is paid in
    Tugrik only (with 3-4 players the row empties only in a trading round)."""
    d = trading_position()
    after_cycles(d, 3)
    set_display(d, ["silk"])
    give_trading(d, 1, list(d["trading_pile"]))
    give_goods(d, 0, "iron", 2)
    add_posts(d, 0, 8, 2)
    last_turn_of_round(d)
    g = build(d)
    play(g, "no-move", "sell-iron-R8-cards-R8a")
    assert ps(state(g), 0)["trading_cards"]["silk"] == 1
    assert state(g)["trading_display"] == [] and g.to_move == 0
    assert not any("-cards" in t for t in texts(g))
    assert "sell-iron-R8-tugrik-R8b" in texts(g)


def test_trade_connection_sells_the_matching_colour_into_the_neighbour_and_is_turned():
    d = trading_position()
    d["connections"][2]["border"] = "4-8"      # blue: indigo only
    give_goods(d, 0, "indigo")
    give_goods(d, 0, "iron")
    add_posts(d, 0, 4)
    for h in ("R4a", "R4b", "R4c"):
        good_on_hut(d, h, "indigo")            # R4 itself is full of indigo
    last_turn_of_round(d)
    g = build(d)
    play(g, "no-move")
    t = texts(g)
    assert "sell-indigo-R8-tugrik-R8a" in t and not any(x.startswith("sell-iron-R8") for x in t)
    assert not any(x.startswith("sell-indigo-R4") for x in t) and "sell-iron-R4-tugrik-R4b" in t
    assert not any(x.startswith("sell-iron-R4") and x.endswith("-R4a") for x in t)  # set-up iron
    play(g, "sell-indigo-R8-tugrik-R8a")
    d = state(g)
    assert tug(g, 0) == 3 + 6 and d["connections"][2]["used"] is True
    assert hut(d, "R8a")["goods"] == ["indigo"]


def test_a_used_connection_still_works():
    d = trading_position()
    after_cycles(d)                   # a connection is used by a sale
    d["connections"][0]["border"] = "1-2"
    d["connections"][0]["used"] = True
    give_goods(d, 0, "iron")
    add_posts(d, 0, 1)
    good_on_hut(d, "R1a", "iron")
    last_turn_of_round(d)
    g = build(d)
    play(g, "no-move")
    assert "sell-iron-R2-cards-R2a" in texts(g)


# ================================================================ end of the game
def test_last_good_of_a_kind_ends_after_this_round_and_the_last_trading_round():
    d = fresh()
    give_goods(d, 1, "iron", 10)             # one iron left on the camel
    assert d["camels"]["iron"] == 1
    to_round(d, 2)
    g = build(d)
    play(g, "move-iron", "no-move")
    assert state(g)["end_triggered"]
    play(g, "tugrik", "no-move", "tugrik", "no-move")
    assert g.is_terminal() and g.trading_rounds == 1                # no die rolled


def test_both_blue_camels_must_be_empty_for_indigo():
    d = fresh()
    give_goods(d, 1, "indigo", 5)            # one indigo left on the first blue camel
    assert d["camels"]["indigo1"] == 1 and d["camels"]["indigo2"] == 5
    g = build(d)
    play(g, "move-indigo1")
    assert not state(g)["end_triggered"]


def test_last_action_card_ends_the_game_and_the_second_round_is_played():
    d = fresh()
    for c in list(d["action_pile"])[:-1]:
        d["action_pile"].remove(c)
        d["played_cards"][c] = d["played_cards"].get(c, 0) + 1
    g = build(d)
    play(g, "move-cards")
    assert state(g)["end_triggered"]
    while g.phase != "action" or g.to_move != 0 or g.round == 1:
        play(g, texts(g)[0] if g.phase != "action" else "tugrik")
    assert g.round == 2                                           # round 2 takes place
    for _ in range(3):
        while g.phase in ("action", "move2", "end") and not g.is_terminal():
            play(g, "tugrik" if g.phase == "action" else texts(g)[0])
    assert g.is_terminal() and g.trading_rounds == 1


@pytest.mark.parametrize("finished_before,over", [(28, False), (29, True)])
def test_the_game_ends_after_the_30th_trading_round(finished_before, over):
    """Interpretation (safety; docs/rules/taschkent.md, 9): no end was triggered, yet the
    30th trading round is the last."""
    d = fresh()
    d["trading_rounds"] = finished_before
    last_turn_of_round(d)
    g = build(d)
    play(g, "no-move")                           # round 4 over: the trading round (no sales)
    assert g.is_terminal() == over and g.trading_rounds == finished_before + 1
    assert not state(g)["end_triggered"]


def test_last_trading_card_ends_the_game_after_the_trading_round():
    d = trading_position()
    after_cycles(d, 3)
    set_display(d, ["silk"])
    give_trading(d, 1, list(d["trading_pile"]))     # every other card already taken
    give_goods(d, 0, "iron")
    add_posts(d, 0, 8)
    last_turn_of_round(d)
    g = build(d)
    play(g, "no-move", "sell-iron-R8-cards-R8a")
    assert g.is_terminal() and state(g)["last_card_taken"] and g.trading_rounds == 4
    assert not state(g)["end_triggered"]


def test_the_virtual_players_last_card_ends_the_game_after_the_next_trading_round():
    """2 players: the virtual player's sale at the end of action round 1 takes the last
    trading card; the game goes on to the next trading round (docs/rules/taschkent.md, 9),
    and the narration says so, after the sale that took it (found by a rules audit: it said
    "this trading round", before the sale)."""
    d = fresh(2, 0)
    after_cycles(d, 3)
    pile, row = list(d["trading_pile"]), list(d["trading_display"])
    give_trading(d, 0, pile[:11])
    give_trading(d, 1, pile[11:])                   # the face-down pile is empty
    for card in row[1:]:
        ps(d, 0)["trading_cards"][card] += 1
    d["trading_display"] = row[:1]                  # one card left in the row
    to_round(d, 1)
    turn_of(d, 1, "move2")                          # the last turn of action round 1
    g = build(d)
    before = g.clone()
    m = g.parse_move("no-move")
    g.apply(m)
    assert state(g)["last_card_taken"] and not g.is_terminal()
    assert state(g)["phase"] == "action" and state(g)["round"] == 2
    lines = [line.strip() for line in g.narrate(before, 1, m)]
    sale = next(i for i, line in enumerate(lines) if line.startswith("virtual player sells"))
    assert lines[sale + 1] == ("the last trading card is taken: "
                               "the game ends after the next trading round")


def test_a_players_last_card_is_told_as_ending_the_game_after_this_trading_round():
    d = trading_position()
    after_cycles(d, 3)
    set_display(d, ["silk"])
    give_trading(d, 1, list(d["trading_pile"]))
    give_goods(d, 0, "iron")
    add_posts(d, 0, 8)
    last_turn_of_round(d)
    g = build(d)
    play(g, "no-move")
    before = g.clone()
    m = g.parse_move("sell-iron-R8-cards-R8a")
    g.apply(m)
    assert ("the last trading card is taken: the game ends after this trading round"
            in [line.strip() for line in g.narrate(before, 0, m)])


def test_example_thirteen_point_card_set():
    """A set of three different, pairs of spices and silk and one more card (spices): 13."""
    assert card_set_points(3, 1, 4) == 13       # silk 3, china 1, spices 4
    assert card_set_points(4, 1, 3) == 13
    assert card_set_points(1, 1, 1) == 6 and card_set_points(2, 0, 0) == 3
    assert card_set_points(1, 0, 0) == 1 and card_set_points(2, 2, 2) == 12
    assert card_set_points(3, 1, 1) == 9 and card_set_points(0, 0, 0) == 0


def test_the_poorest_are_out_and_ties_go_to_tugrik():
    d = fresh(4)
    for p, t in enumerate([10, 2, 10, 2]):
        ps(d, p)["tugrik"] = t
    give_trading(d, 1, ["silk", "china", "spices"])       # out: poorest
    give_trading(d, 0, ["silk", "silk"])
    give_trading(d, 2, ["china", "china"])
    g = finished(d)
    assert g.eliminated_players() == [1, 3]
    assert g.ranking() == [1, 3, 1, 3] and g.rewards() == [0.5, 0, 0.5, 0]
    ps(d, 2)["tugrik"] = 11
    g = finished(d)
    assert g.ranking() == [2, 3, 1, 3] and g.rewards() == [0, 0, 1, 0]


def test_three_five_cards_count_five_for_the_poorest_check():
    d = fresh()
    for p, t in enumerate([6, 2, 5]):
        ps(d, p)["tugrik"] = t
    give_action(d, 1, "35")
    g = finished(d)
    assert g.tugrik_totals() == [6, 7, 5] and g.eliminated_players() == [2]


def test_everybody_equally_poor_keeps_everybody_in():
    """Issue 18: 'If more than one player has the lowest amount of Tugrik, all those players
    have lost' settles ties below a richer player; with every total equal nobody is out and
    the cards decide (docs/rules/taschkent.md, section 9)."""
    d = fresh()
    for p in range(3):
        ps(d, p)["tugrik"] = 4
    give_trading(d, 2, ["silk"])
    g = finished(d)
    assert g.eliminated_players() == [] and g.rewards() == [0, 0, 1]


# ================================================================ 2-player variant
def test_two_players_are_two_seats_and_the_virtual_player_moves_after_both():
    g = Taschkent(2, 1)
    assert g.n_players == 2
    play(g, "tugrik", "no-move", "tugrik", "no-move")
    ev = [e for e in g.last_events() if e[0] == 7]
    assert len(ev) == 1
    die, field = ev[0][1], ev[0][2]
    assert field == (1 - 1 + die) % 7 + 1 and state(g)["neutral_cameleer"] == \
        ["outside", "horses", "cards", "iron", "indigo1", "jade", "carriage", "indigo2"][field]


def _virtual_to(field_wanted, edit=None, tries=200):
    """Play the first virtual step from many seeds until the neutral cameleer reaches a field."""
    for seed in range(tries):
        d = fresh(2, seed)
        if edit:
            edit(d)
        g = build(d)
        play(g, "tugrik", "no-move", "tugrik", "no-move")
        if state(g)["neutral_cameleer"] == field_wanted:
            return d, g
    pytest.fail(f"no seed brings the neutral cameleer to {field_wanted}")


def test_virtual_player_removes_an_action_card_on_field_2():
    d, g = _virtual_to("cards")
    s = state(g)
    assert s["action_pile_count"] == 11 and s["removed_unseen_count"] == 1
    assert "removed_unseen" not in g.to_json(view=0)


def test_virtual_player_sells_in_the_second_cameleers_region_for_one_card():
    d, g = _virtual_to("iron")
    s = state(g)
    assert s["camels"]["iron"] == 11 - 1          # one iron from the red camel
    assert hut(s, "R1a")["goods"] == ["iron"] and s["second_cameleer"] == 2
    assert sum(s["virtual_cards"].values()) == 1 and len(s["trading_display"]) == 7


def test_virtual_player_moves_on_to_a_suitable_hut():
    def edit(d):
        good_on_hut(d, "R1a", "iron")
        d["second_cameleer"] = 1
    d, g = _virtual_to("iron", edit)
    s = state(g)
    assert hut(s, "R2a")["goods"] == ["iron"] and s["second_cameleer"] == 3


def test_virtual_player_does_nothing_on_fields_1_and_6():
    def edit(d):
        d["neutral_cameleer"] = "indigo2"    # from field 7 a 1 wraps round to field 1
    for field in ("horses", "carriage"):
        d, g = _virtual_to(field, edit)
        s = state(g)
        assert sum(s["virtual_cards"].values()) == 0 and s["action_pile_count"] == 12


def test_the_virtual_player_taking_the_last_action_card_triggers_the_end():
    def edit(d):                                 # one action card left on the pile
        for c in list(d["action_pile"])[:-1]:
            d["action_pile"].remove(c)
            d["played_cards"][c] = d["played_cards"].get(c, 0) + 1
    d, g = _virtual_to("cards", edit)
    s = state(g)
    assert s["action_pile_count"] == 0 and s["end_triggered"] and g.round == 2


def test_two_player_end_the_richer_draws_two_cards_and_nobody_is_out():
    d = fresh(2)
    after_cycles(d)
    ps(d, 0)["tugrik"], ps(d, 1)["tugrik"] = 10, 1
    give_trading(d, 1, ["silk", "china", "spices"])
    give_goods(d, 1, "iron", 10)             # one iron left on the camel
    to_round(d, 2)
    g = build(d)
    play(g, "move-iron", "no-move", "tugrik", "no-move")
    assert g.is_terminal()
    s = state(g)
    assert sum(ps(s, 0)["trading_cards"].values()) == 2
    assert sum(ps(s, 1)["trading_cards"].values()) == 1
    assert g.eliminated_players() == [] and g.rewards() == [1.0, 0.0]


def test_the_virtual_player_cannot_win():
    d = fresh(2)
    give_trading(d, "virtual", ["silk", "china", "spices", "silk", "china", "spices"])
    give_trading(d, 0, ["silk"])
    g = finished(d)
    assert g.rewards() == [1.0, 0.0] and len(g.rewards()) == 2


# ================================================================ notation and JSON
def test_every_legal_move_has_a_unique_text_that_parses_back():
    import random
    rng = random.Random(3)
    for n in (2, 3, 4):
        g = Taschkent(n, 11)
        for _ in range(150):
            if g.is_terminal():
                break
            legal = g.legal_moves()
            tx = [g.move_to_text(m) for m in legal]
            assert len(set(tx)) == len(tx) and all(" " not in t for t in tx)
            assert all(g.parse_move(t) == m for t, m in zip(tx, legal))
            g.apply(rng.choice(legal))


def test_an_int_that_is_no_move_is_written_as_such_and_refused():
    """move_text never raises: an int the rules never make is `?<int>`, and apply() refuses it
    with IllegalMoveError (the conformance suite found apply(8191) raising IndexError)."""
    from cext import taschkent as core
    from cext.core import IllegalMoveError, make_move
    from engine.games.taschkent import move_text
    legal = set()
    for n in (2, 3, 4):
        g = Taschkent(n, 5)
        legal |= set(g.legal_moves())
    bad = [8191, -1, 2**31, -2**31 - 1, 2**40, make_move(core.MV_SKIP, 3),
           make_move(core.MV_TUGRIK, 1), make_move(core.MV_POST, 8),
           make_move(core.MV_CAMEL, core.camel_arg(9, 0)), make_move(core.MV_CAMEL, core.camel_arg(4, 1)),
           make_move(core.MV_CAMEL, core.camel_arg(1, 31)), make_move(core.MV_CAMCARD, core.camel_arg(8, 9)),
           make_move(core.MV_REMOVAL, core.reloc_arg(0, 2)), make_move(core.MV_REMOVAL, core.reloc_arg(8, 0)),
           make_move(core.MV_CARAVAN, core.reloc_arg(3, 1)), make_move(core.MV_CARAVAN, core.reloc_arg(23, 1)),
           make_move(core.MV_SHORT_A, 4), make_move(core.MV_SHORT_B, core.shortage_arg(23, 0, 0)),
           make_move(core.MV_SELL, core.sale_arg(8, 0, 0, 0, 0)),
           make_move(core.MV_SELL, core.sale_arg(0, 3, 0, 0, 0)),
           make_move(core.MV_SELL, core.sale_arg(0, 0, 23, 0, 0)), make_move(99, 0)]
    for m in bad:
        assert move_text(m) == f"?{m}"
        with pytest.raises(IllegalMoveError):
            Taschkent(3, 5).apply(m)
    for kind in range(16):                  # every argument of every kind: a text, never an error
        for arg in range(1 << 13):
            assert isinstance(move_text(make_move(kind, arg)), str)
    assert all(not move_text(m).startswith("?") for m in legal)


def test_json_round_trip_and_bad_input():
    import random
    rng = random.Random(1)
    g = Taschkent(4, 2)
    for _ in range(60):
        g.apply(rng.choice(g.legal_moves()))
        assert Taschkent.from_json(g.to_json()).to_json() == g.to_json()
    d = g.to_json()
    d["player_state"][0]["tugrik"] = -1
    with pytest.raises(ValueError):
        Taschkent.from_json(d)
    d = g.to_json()
    d["camels"]["iron"] += 1
    with pytest.raises(ValueError):
        Taschkent.from_json(d)
    with pytest.raises(ValueError):
        Taschkent.from_json({"game": "khiva"})
    with pytest.raises(ValueError):
        Taschkent(3, 0).apply(12345)


def test_the_end_of_the_game_reads_as_a_player_expects():
    """The game-over screen: the header counts the trading rounds played (no 'cycle 6' after
    5), never says the next trading round is the last, and the final count ranks the players
    saying why: the one out as the poorest is marked so even with the most card points."""
    d = fresh(3)
    for p, t in enumerate([6, 2, 5]):
        ps(d, p)["tugrik"] = t
    give_trading(d, 1, ["silk", "china", "spices", "silk", "china", "spices"])   # 12 points
    give_trading(d, 0, ["silk", "silk"])
    g = finished(d)
    assert g.ranking() == [1, 3, 2] and g.scores() == [3, 12, 0]
    for viewer in (None, 0, 1, 2):
        text = g.render(viewer)
        head = text.splitlines()[0]
        assert "game over after 1 trading round," in head and "cycle" not in head
        assert "trading round is the last" not in text and "the end is triggered" not in text
        assert text.splitlines()[-4:] == [
            "final count (Tugrik with each unplayed 3/5 card as 5; the poorest are out, the "
            "others rank by card points, then Tugrik):",
            "  1. P0:  3 card points,   6 Tugrik",
            "  2. P2:  0 card points,   5 Tugrik",
            "  3. P1: 12 card points,   2 Tugrik  -- out: the poorest"]
    for p in range(3):
        ps(d, p)["tugrik"] = 4
    text = finished(d).render()
    assert text.endswith("  nobody is out: every player has the same Tugrik")
    assert "  1. P1: 12 card points,   4 Tugrik" in text


def test_the_final_count_of_the_render_ranks_as_the_game_does():
    import random
    for n in (2, 3, 4):
        for seed in range(1, 9):
            g, rng = Taschkent(n, seed), random.Random(seed)
            while not g.is_terminal():
                g.apply(rng.choice(g.legal_moves()))
            rows = [line for line in g.render(viewer=seed % n).splitlines()
                    if re.match(r"  \d+\. P\d", line)]
            places = {int(r.split("P")[1].split(":")[0]): int(r.split(".")[0]) for r in rows}
            assert [places[p] for p in range(n)] == g.ranking()
            out = {int(r.split("P")[1].split(":")[0]) for r in rows if "out: the poorest" in r}
            assert out == set(g.eliminated_players())


def test_the_game_over_line_tells_the_count_who_is_out_and_who_wins():
    d = fresh(3)
    after_cycles(d)
    for p, t in enumerate([6, 2, 5]):
        ps(d, p)["tugrik"] = t
    give_action(d, 2, "35")
    give_trading(d, 1, ["silk", "china", "spices"])
    last_turn_of_round(d, 2)
    d["action_pile"], d["played_cards"] = [], {}
    for c in ("activity", "removal", "cameleer", "caravan", "shortage", "35"):
        d["played_cards"][c] = 2 - (c == "35")
    g = build(d)
    play(g, "no-move")                            # P2 holds a card: its end-of-turn step
    b, m = g.clone(), g.parse_move("end-turn")
    g.apply(m)
    assert g.is_terminal()
    for viewer in (None, 0, 1, 2):
        assert g.narrate(b, 2, m, viewer)[-1] == (
            "  game over: Tugrik counted (an unplayed 3/5 card is 5) P0=6 P1=2 P2=10; out, the "
            "poorest: P1; card points P0=0 P1=6 P2=0; winner P2")


@pytest.mark.parametrize("first_round", [True, False])
def test_the_narration_says_when_the_triggered_end_comes(first_round):
    """Triggered in action round 1, round 2 is still played (rulebook: 'The second action
    round takes place definitely'); in round 2 or later, the trading round follows."""
    d = fresh()
    give_goods(d, 1, "iron", 10)                  # one iron left on the red camel
    if not first_round:
        to_round(d, 2)
    g = build(d)
    b, m = g.clone(), g.parse_move("move-iron")
    g.apply(m)
    then = ("action round 2, then" if first_round else "this round is finished, then")
    assert g.narrate(b, 0, m)[-1] == f"  the end is triggered: {then} the last trading round"


@pytest.mark.parametrize("left,removes", [(2, "removes another"), (1, "none is left to remove")])
def test_shortage_narration_says_whether_a_second_good_went(left, removes):
    d = fresh()
    give_goods(d, 1, "jade", 11 - left)           # `left` jade on the yellow camel
    give_action(d, 0, "shortage")
    g = build(d)
    b, m = g.clone(), g.parse_move("card-shortage-jade")
    g.apply(m)
    assert state(g)["camels"]["jade"] == left - 1 - (left >= 2)
    assert g.narrate(b, 0, m)[0] == f"P0 plays Shortage: takes 1 jade from the jade camel and {removes}"


def test_the_render_says_which_trading_round_is_the_last():
    d = fresh(3)
    give_goods(d, 0, "iron", 11)                  # the red camel is empty: the end is triggered
    add_posts(d, 0, 2)
    last_turn_of_round(d)
    g = build(d)
    assert g.render().splitlines()[-1] == "the end is triggered: the next trading round is the last"
    play(g, "no-move")
    assert g.phase == "sell"
    assert g.render().splitlines()[-1] == "the end is triggered: this trading round is the last"


def test_render_and_narrate_are_readable():
    g = Taschkent(3, 3)
    assert "Taschkent, 3 players" in g.render() and "R4:" in g.render(viewer=1)
    b = g.clone()
    m = g.parse_move("move-iron")
    g.apply(m)
    lines = g.narrate(b, 0, m)
    assert lines[0].startswith("P0 moves the cameleer") and "iron" in lines[0]


# ================================================================ found by a mutation audit
# (2026-12-07): each pins a rule whose plausible bug only the golden numbers (re-recorded
# after a deliberate change) or the loader's checks caught

# moving the cameleer
def test_leaving_the_kalmyk_is_one_step_to_any_field():
    """Rulebook, The Kalmyk: "from the Kalmyk each other field can be reached"; docs 4: "every
    field is one step from the Kalmyk". From the Kalmyk to the horses (field 1) is one free
    step, not seven steps along the line."""
    d = fresh()
    ps(d, 0)["tugrik"] = 10
    ps(d, 0)["cameleer"] = "kalmyk"
    g = build(d)
    play(g, "move-horses")
    assert tug(g, 0) == 10
    d = fresh()
    ps(d, 0)["tugrik"] = 0
    ps(d, 0)["cameleer"] = "kalmyk"
    assert "move-horses" in texts(build(d))


def test_the_neutral_cameleer_costs_one_tugrik_on_the_destination():
    """Rulebook, Moving the Cameleer: "If other cameleers are on the field the cameleer ends his
    move on, the player has to pay for each other cameleer 1 Tugrik"; docs 4: "Other cameleers
    on the destination include the 2-player neutral cameleer". The price offered is the price
    paid."""
    d = fresh(2)
    d["neutral_cameleer"] = "iron"
    ps(d, 0)["tugrik"] = 10
    ps(d, 0)["cameleer"] = "horses"
    g = build(d)
    play(g, "move-iron")                     # 2 steps (free) + the neutral cameleer (1)
    assert tug(g, 0) == 9
    d["neutral_cameleer"] = "jade"
    g = build(d)
    play(g, "move-iron")                     # nobody on the red camel: free
    assert tug(g, 0) == 10


# end of the game
def test_shortage_taking_the_last_good_of_a_kind_triggers_the_end():
    """Rulebook, End of Game: "When a player takes the last good of a kind [...] the round at
    hand will be finished. Then a last trading round takes place"; docs 7: "Taking the last
    good of a kind triggers the end, whether by a field, by Shortage or by the virtual
    player." Shortage (take one, remove one) on the red camel with one iron left."""
    d = fresh()
    give_goods(d, 1, "iron", 10)
    give_action(d, 0, "shortage")
    assert d["camels"]["iron"] == 1
    g = build(d)
    play(g, "card-shortage-iron")
    s = state(g)
    assert s["camels"]["iron"] == 0 and ps(s, 0)["goods"]["iron"] == 1
    assert s["end_triggered"]


# the trading round
def test_every_region_is_opened_by_the_start_player():
    """Rulebook, Trading Round: "The areas are evaluated in numerical order. Inside an area
    [...] The starting player always sells first." R2's only seller is P1 (start player P0);
    in R5 both P2 and P0 can sell: P0, the start player, sells first, not P2 who sits after
    the last seller of R2."""
    d = fresh()
    give_goods(d, 1, "iron")
    add_posts(d, 1, 2)
    for p in (0, 2):
        give_goods(d, p, "jade")
        add_posts(d, p, 5)
    last_turn_of_round(d)
    g = build(d)
    play(g, "no-move")
    assert g.phase == "sell" and state(g)["trade"]["region"] == 2 and g.to_move == 1
    play(g, "sell-iron-R2-tugrik-R2a")
    assert state(g)["trade"]["region"] == 5 and g.to_move == 0
