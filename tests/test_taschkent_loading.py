"""Loading Taschkent states and views: the one checked path (docs/views/taschkent.md).

Every refusal is a ValueError whose message starts with the path of the field at fault. The
regression inputs in tests/regressions/ (a copy of ../shared/regressions) crashed the old loader;
they are refused here.
The move bound (MOST_MOVES) and the move generator's guard are tested at the end. What every
game's loaders do (round trips, a view only of the seat to move, non-objects, unknown keys,
deep and huge input, the most legal moves random games reach, every seat's view of a finished
game) is the conformance suite's (tests/test_conformance.py).
"""
import copy
import json
import random

import pytest

from cext import taschkent as core
from engine.conformance import MAX_MOVES
from engine.games.taschkent import DERIVED, Taschkent
from engine.registry import from_json, from_view
from engine.validation import IllegalPositionError, ViewError
from game_support import REGRESSIONS, advance
from protocol_client import Client
from taschkent_support import (add_posts, after_cycles, build, fresh, give_action, give_goods,
                               give_trading, hut, last_turn_of_round, play, ps, to_round,
                               turn_of)



def played(players, seed, moves):
    """The position after `moves` random moves from a deal (fewer if the game ends)."""
    return advance(Taschkent(players, seed), moves, seed=seed)


def finished_game(players=3, seed=4):
    return played(players, seed, 10 ** 6)


def selling(players=3, before_region=9):
    """The first position of a random game in a trading round, in a region before
    `before_region`."""
    for seed in range(100):
        g = Taschkent(players, seed)
        rng = random.Random(seed)
        while not g.is_terminal():
            if g.phase == "sell" and g.to_json()["trade"]["region"] < before_region:
                return g
            g.apply(rng.choice(g.legal_moves()))
    pytest.fail("no trading round reached")


# ================================================================ the regression inputs
def test_a_view_with_a_short_posts_list_is_refused():
    v = json.loads((REGRESSIONS / "taschkent-view-short-posts.json").read_text())
    for load in (Taschkent.from_view, from_view):
        with pytest.raises(ViewError, match=r"^player_state\[1\]\.posts: expected 8 items, got 7$"):
            load(v)


def test_a_state_with_an_empty_kept_list_is_refused():
    d = json.loads((REGRESSIONS / "taschkent-state-empty-kept.json").read_text())
    for load in (Taschkent.from_json, from_json):
        with pytest.raises(ViewError, match=r"^player_state\[0\]\.kept: expected 8 items, got 0$"):
            load(d)


def test_the_protocol_answers_the_short_posts_view_with_an_error_line():
    """The same view through `position taschkent view`: one error line, and the engine goes on."""
    engine = Client()
    lines = (REGRESSIONS / "protocol-taschkent-view-short-posts.in").read_text().splitlines()
    for line in lines:
        engine.send(line)
    answer = engine.until("info string error")[-1]
    assert answer == "info string error player_state[1].posts: expected 8 items, got 7"
    assert engine.ask("isready", "readyok")[-1] == "readyok"
    engine.send("position taschkent players 3 seed 1")
    assert engine.ask("legal", "legal")[-1].startswith("legal tugrik")
    assert engine.close() == 0


# ================================================================ whose view
def test_every_seat_has_a_view_of_a_finished_game():
    g = finished_game()
    for seat in range(3):
        assert Taschkent.from_view(g.to_json(view=seat)).to_json(view=seat) == g.to_json(view=seat)


def test_a_view_may_not_hold_another_seats_cards():
    g = played(3, 7, 20)
    v = g.to_json(view=g.to_move)
    other = (g.to_move + 1) % 3
    v["player_state"][other]["action_cards"] = {}
    with pytest.raises(ViewError, match=rf"^player_state\[{other}\]\.action_cards: seat "):
        Taschkent.from_view(v)


def test_a_view_without_the_viewers_cards_is_refused():
    g = played(3, 7, 20)
    v = g.to_json(view=g.to_move)
    del v["player_state"][g.to_move]["action_cards"]
    with pytest.raises(ViewError, match=rf"^player_state\[{g.to_move}\]: missing key 'action_cards'"):
        Taschkent.from_view(v)


# ================================================================ the field policy
def state_and_view():
    g = played(2, 11, 30)
    assert not g.is_terminal()
    return g.to_json(), g.to_json(view=g.to_move)


def other_count(x):
    return x - 1 if x else x + 1


STALE = [
    ("state", ("trading_pile_count",), other_count, r"^trading_pile_count: is \d+, but the position gives \d+"),
    ("state", ("end_triggered",), lambda x: not x, r"^end_triggered: is (True|False), but the position gives"),
    ("state", ("last_card_taken",), lambda x: not x, r"^last_card_taken: is"),
    ("state", ("virtual_player",), lambda x: not x, r"^virtual_player: is"),
    ("state", ("action_pile_count",), other_count, r"^action_pile_count: is"),
    ("state", ("player_state", 1, "action_card_count"), lambda x: x + 1,
     r"^player_state\[1\]\.action_card_count: is"),
    ("state", ("player_state", 0, "hut"), lambda x: "R6" if x != "R6" else "R7", r"^player_state\[0\]\.hut: is"),
    ("view", ("trading_pile_contents", "silk"), other_count, r"^trading_pile_contents\.silk: is"),
    ("view", ("unknown_action_cards", "removal"), other_count, r"^unknown_action_cards\.removal: is"),
    ("view", ("trading_pile_count",), other_count, r"^trading_pile_count: is"),
]


def at(obj, path):
    for step in path[:-1]:
        obj = obj[step]
    return obj


@pytest.mark.parametrize("kind,path,change,message", STALE, ids=[".".join(map(str, s[1])) for s in STALE])
def test_a_stale_derived_field_is_refused_and_may_be_left_out(kind, path, change, message):
    state, view = state_and_view()
    d = state if kind == "state" else view
    load = Taschkent.from_json if kind == "state" else Taschkent.from_view
    lean = copy.deepcopy(d)
    field = path if path[-1] in DERIVED else path[:-1]
    del at(lean, field)[field[-1]]                 # the derived field (a key, or an object)
    assert load(lean).to_json(None if kind == "state" else d["view"]) == d
    at(d, path)[path[-1]] = change(at(d, path)[path[-1]])
    with pytest.raises(IllegalPositionError, match=message):
        load(d)


UNKNOWN_KEYS = [
    (("colour",), r"^\(root\): unknown key 'colour'"),
    (("player_state", 1, "score"), r"^player_state\[1\]: unknown key 'score'"),
    (("player_state", 0, "goods", "gold"), r"^player_state\[0\]\.goods: unknown key 'gold'"),
    (("huts", 3, "owner"), r"^huts\[3\]: unknown key 'owner'"),
    (("connections", 0, "length"), r"^connections\[0\]: unknown key 'length'"),
    (("camels", "black"), r"^camels: unknown key 'black'"),
    (("virtual_cards", "gold"), r"^virtual_cards: unknown key 'gold'"),
]


@pytest.mark.parametrize("path,message", UNKNOWN_KEYS, ids=[".".join(map(str, p)) for p, _ in UNKNOWN_KEYS])
def test_unknown_keys_are_refused_at_every_level(path, message):
    for d, load in zip(state_and_view(), (Taschkent.from_json, Taschkent.from_view)):
        at(d, path)[path[-1]] = 1
        with pytest.raises(ViewError, match=message):
            load(d)


def test_a_view_holds_no_seed_and_no_hidden_pile():
    _, view = state_and_view()
    for key, value in (("seed", 3), ("action_pile", []), ("trading_pile", [])):
        v = dict(view, **{key: value})
        with pytest.raises(ViewError, match=rf"^\(root\): unknown key '{key}'"):
            Taschkent.from_view(v)


def test_sets_may_come_in_any_order_and_with_zero_counts():
    g = selling(3)
    d = g.to_json()
    for h in d["huts"]:
        h["goods"].reverse()
    d["trade"]["passed"].reverse()
    d["played_cards"]["caravan"] = d["played_cards"].get("caravan", 0)
    for p in range(3):
        ps(d, p)["action_cards"].setdefault("removal", 0)
    assert Taschkent.from_json(d).to_json() == g.to_json()


def test_piles_keep_their_order():
    d = played(3, 5, 12).to_json()
    st = Taschkent.from_json(copy.deepcopy(d))
    assert st.to_json()["trading_pile"] == d["trading_pile"]
    d["trading_pile"].reverse()
    assert Taschkent.from_json(d).to_json()["trading_pile"] == d["trading_pile"]


MALFORMED = [
    ("players as text", ("players",), "3", r"^players: expected an integer, got string"),
    ("tugrik as text", ("player_state", 1, "tugrik"), "three", r"^player_state\[1\]\.tugrik: expected an integer"),
    ("tugrik as float", ("player_state", 1, "tugrik"), 3.0, r"^player_state\[1\]\.tugrik: expected an integer"),
    ("tugrik as bool", ("player_state", 1, "tugrik"), True, r"^player_state\[1\]\.tugrik: expected an integer"),
    ("huge tugrik", ("player_state", 1, "tugrik"), 2 ** 70, r"^player_state\[1\]\.tugrik: must be from 0"),
    ("nine posts", ("player_state", 2, "posts"), [0] * 9, r"^player_state\[2\]\.posts: expected 8 items, got 9"),
    ("hut nowhere", ("huts", 20, "at"), "moon", r"^huts\[20\]\.at: must be one of"),
    ("hut renamed", ("huts", 13, "id"), "N9", r"^huts\[13\]\.id: must be \"N2\""),
    ("bad border", ("connections", 0, "border"), "1-8", r"^connections\[0\]\.border: must be one of"),
    ("unknown phase", ("phase",), "dance", r"^phase: must be one of"),
    ("unknown card", ("action_pile", 0), "joker", r"^action_pile\[0\]: must be one of"),
    ("three of a card", ("played_cards", "removal"), 3, r"^played_cards\.removal: must be from 0 to 2"),
    ("too many camels", ("camels", "indigo2"), 6, r"^camels\.indigo2: must be from 0 to 5, not 6"),
    ("missing turns", ("turns",), None, r"^\(root\): missing key 'turns'"),
]


@pytest.mark.parametrize("name,path,value,message", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_a_malformed_state_names_the_field(name, path, value, message):
    d = played(3, 5, 12).to_json()
    if value is None:
        del at(d, path)[path[-1]]
    else:
        at(d, path)[path[-1]] = value
    with pytest.raises(ViewError, match=message):
        Taschkent.from_json(d)


# ================================================================ positions the rules cannot reach
def _kept_outside_trading(d):
    add_posts(d, 0, 3)
    ps(d, 0)["kept"][2] = 1


def _hand_of_a_cameleer_that_never_moved(d):
    give_action(d, 1, "removal")
    ps(d, 1)["cameleer"] = "outside"


def _removed_without_shortage(d):
    d["camels"]["iron"] -= 2
    d["removed_goods"]["iron"] += 2


def _kalmyk_hut_in_round_one(d):
    hut(d, "N1")["at"] = "kalmyk"


def _supply_emptied_out_of_order(d):
    hut(d, "N5")["at"] = "R6"


def _marker_before_moving(d):
    d["marker"] = 2                            # seat 2 has not had its turn in round 1
    ps(d, 2)["cameleer"] = "horses"


def _last_start_before_any_move(d):
    d["last_start"] = "iron"


def _seat_out_of_turn(d):
    d["to_move"] = 1


def _turns_that_do_not_fit(d):
    d["turns"] = 4


def _over_without_a_trading_round(d):
    d["phase"], d["to_move"] = "over", -1


def _printed_hut_moved(d):
    hut(d, "R4a")["at"] = "R5"


def _player_hut_of_an_absent_seat(d):
    hut(d, "H3")["at"] = "R2"


def _a_card_three_times(d):
    d["action_pile"][d["action_pile"].index("removal")] = "activity"


def _a_good_lost(d):
    give_goods(d, 0, "jade")
    ps(d, 0)["goods"]["jade"] -= 1


def _posts_lost(d):
    ps(d, 2)["storage"] -= 1


def _a_trading_card_twice(d):
    after_cycles(d)
    give_trading(d, 0, ["silk"])
    ps(d, 1)["trading_cards"]["silk"] += 1


def _a_card_held_before_the_first_trading_round(d):
    ps(d, 0)["trading_cards"][d["trading_display"].pop()] += 1


def _a_short_row_while_the_pile_lasts(d):
    after_cycles(d)
    _a_card_held_before_the_first_trading_round(d)      # allowed in the second cycle


def _an_empty_row_in_an_action_round(d):
    after_cycles(d, 3)                                  # three refills may empty the pile
    give_trading(d, 0, list(d["trading_pile"]))
    while d["trading_display"]:
        ps(d, 1)["trading_cards"][d["trading_display"].pop()] += 1


def _more_cards_drawn_than_the_refills_can(d):
    after_cycles(d)
    give_trading(d, 0, list(d["trading_pile"])[:15])


def _a_connection_used_before_any_sale(d):
    d["connections"][0].update(border="1-2", used=True)


def _a_post_back_on_the_cart_before_any_sale(d):
    ps(d, 1)["supply"] -= 1
    ps(d, 1)["storage"] += 1


def _a_new_start_player_in_the_first_round(d):
    ps(d, 1)["cameleer"] = "horses"
    d["start_player"] = 1
    d["to_move"] = 1


UNREACHABLE = [
    (_kept_outside_trading, r"^player_state\[0\]\.kept: posts are kept only during a trading round"),
    (_hand_of_a_cameleer_that_never_moved, r"^player_state\[1\]\.cameleer: seat 1 holds action cards"),
    (_removed_without_shortage, r"^removed_goods: 2 goods removed, but 0 Shortage"),
    (_kalmyk_hut_in_round_one, r"^huts: track field 2 is empty in round 1 only"),
    (_supply_emptied_out_of_order, r"^huts: the neutral huts leave the supply lowest id first"),
    (_marker_before_moving, r"^marker: seat 2 has not moved its cameleer yet"),
    (_last_start_before_any_move, r"^last_start: no cameleer has moved yet"),
    (_seat_out_of_turn, r"^to_move: seat 0 starts the round and 0 turns are done: seat 0 is to move, not 1"),
    (_turns_that_do_not_fit, r"^turns: 4 turns do not fit"),
    (_over_without_a_trading_round, r"^turn_no: a trading round follows the last of the 3 turns"),
    (_printed_hut_moved, r"^huts\[4\]\.at: the printed hut R4a is always in R4"),
    (_player_hut_of_an_absent_seat, r"^huts\[22\]\.at: H3 is in the supply"),
    (_a_card_three_times, r"^played_cards: 3 activity cards played, held, in the pile and removed, not 2"),
    (_a_good_lost, r"^removed_goods\.jade: 11 jade goods"),
    (_posts_lost, r"^player_state\[2\]\.supply: seat 2 has 9 trading posts"),
    (_a_trading_card_twice, r"^trading_pile: 11 silk cards held"),
    (_more_cards_drawn_than_the_refills_can, r"^trading_pile: .* each of the 1 refills so far draws 8 at most: 7 cannot"),
    (_a_card_held_before_the_first_trading_round, r"^trading_cards: nobody holds a trading card before"),
    (_a_short_row_while_the_pile_lasts, r"^trading_display: in action round 1 the row holds 8 cards at least while "
                                        r"the pile lasts, not 7"),
    (_an_empty_row_in_an_action_round, r"^trading_display: the row is empty in an action round, but the trading "
                                       r"round that took its last card ended the game"),
    (_a_connection_used_before_any_sale, r"^connections: no trade connection is used before the first trading round"),
    (_a_post_back_on_the_cart_before_any_sale, r"^player_state\[1\]\.storage: posts come back to the cart only by "
                                               r"selling: seat 1's holds 7 at most before the first trading round, not 8"),
    (_a_new_start_player_in_the_first_round, r"^start_player: seat 0 starts the first round"),
]


@pytest.mark.parametrize("edit,message", UNREACHABLE, ids=[e.__name__.strip("_") for e, _ in UNREACHABLE])
def test_a_position_the_rules_cannot_reach_is_refused(edit, message):
    d = fresh(3, 2)
    edit(d)
    with pytest.raises(IllegalPositionError, match=message):
        build(d)


def test_a_seller_without_a_sale_is_refused():
    d = selling(3).to_json()
    d["trade"]["passed"] = [0, 1, 2]
    with pytest.raises(IllegalPositionError, match=r"^to_move: seat \d cannot sell in R\d"):
        Taschkent.from_json(d)


def test_the_pile_is_untouched_before_the_first_refill():
    """With 2 players the virtual player takes cards from the row in the first cycle, never
    from the pile."""
    d = fresh(2)
    to_round(d, 2)                                  # the virtual player has had a round
    d["virtual_cards"][d["trading_display"].pop()] += 1
    build(d)
    give_trading(d, "virtual", ["silk"])
    with pytest.raises(IllegalPositionError, match=r"^trading_pile: the set-up leaves 22 cards in "
                       r"the pile and each of the 0 refills so far draws 8 at most: 21 cannot be left"):
        build(d)


@pytest.mark.parametrize("taken,accepted", [(2, True), (3, False)])
def test_the_virtual_player_takes_one_card_a_round_from_the_row(taken, accepted):
    """With 2 players the row shrinks in the action rounds by the virtual player's card at the
    end of each round: in round 3, two at most while the pile lasts."""
    d = fresh(2)
    to_round(d, 3)
    for _ in range(taken):
        d["virtual_cards"][d["trading_display"].pop(0)] += 1
    if accepted:
        build(d)
    else:
        with pytest.raises(IllegalPositionError, match=r"^trading_display: in action round 3 the "
                           r"row holds 6 cards at least while the pile lasts, not 5"):
            build(d)


def test_a_kept_post_put_two_posts_on_the_cart():
    """Keeping a post puts two from the hand on the cart, and no post leaves the cart in a
    trading round."""
    g = selling(3)
    d = g.to_json()
    p, region = g.to_move, d["trade"]["region"] - 1
    seller = ps(d, p)
    seller["posts"][region] += 1
    seller["supply"] += seller["storage"] - 1
    seller["storage"] = 0
    seller["kept"][region] = 1
    with pytest.raises(IllegalPositionError, match=rf"^player_state\[{p}\]\.storage: each post kept "
                       r"this trading round put two on the cart: seat \d kept 1, so its cart "
                       r"holds 2 at least, not 0"):
        Taschkent.from_json(d)


def test_a_sale_kept_in_a_later_region_is_refused():
    g = selling(3, before_region=8)
    d = g.to_json()
    seller = ps(d, g.to_move)
    seller["posts"][7] += 1
    seller["storage" if seller["storage"] else "supply"] -= 1
    seller["kept"][7] = 1
    with pytest.raises(IllegalPositionError, match=rf"^player_state\[{g.to_move}\]\.kept: a post kept"):
        Taschkent.from_json(d)


def test_the_loader_keeps_every_field_of_the_c_state():
    """_set_fields(_fields()) with every array entry distinct gives the same fields back: the
    C conversion moves each field to its place (a scratch array of the wrong size once
    scrambled one)."""
    g = Taschkent(4, 3)
    f = g._fields()
    k = 0

    def fill(x, top):
        nonlocal k
        if isinstance(x, list):
            return [fill(y, top) for y in x]
        k += 1
        return k % top

    for key, top in (("tugrik", 1000), ("goods", 100), ("posts", 100), ("kept", 100),
                     ("hand", 200), ("tc", 100), ("cam_pos", 9), ("pile", 100), ("disp", 100),
                     ("tc_pile", 100), ("hut_loc", 100), ("played", 100), ("camel", 100),
                     ("setup_hut", 100)):
        f[key] = fill(f[key], top)
    g._set_fields(f)
    assert g._fields() == f
    with pytest.raises(IndexError):
        g._set_fields(dict(f, posts=f["posts"][:3]))
    with pytest.raises(OverflowError):
        g._set_fields(dict(f, hand=[[300] * 6] * 4))
    assert g._fields() == f                   # a failed conversion writes nothing


# ================================================================ the set-up options in JSON
FIRST_GAME = {"goods": {"iron": "R4a", "jade": "R4a", "indigo": "R7a"}}


@pytest.mark.parametrize("players", [2, 3, 4])
def test_json_written_before_the_options_loads_as_the_first_game(players):
    """`setup` is defaulted in states and views alike: left out, it is the first game's."""
    g = played(players, 5, 30)
    for kind, seat in (("state", None), ("view", g.to_move)):
        d = json.loads(json.dumps(g.to_json(view=seat)))
        assert d.pop("setup") == {**FIRST_GAME, "neutral_region": 3 if players == 4 else None}
        st = (from_json if kind == "state" else from_view)(d)
        assert st.to_json(view=seat) == g.to_json(view=seat)


def test_the_options_travel_in_states_and_views():
    g = Taschkent(4, 6, goods="iron:N3,jade:R5b,indigo:R5b", neutral_region=7)
    g = advance(g, 25, seed=6)
    for seat in (None, g.to_move):
        text = json.dumps(g.to_json(view=seat))
        st = (Taschkent.from_json if seat is None else Taschkent.from_view)(json.loads(text))
        assert st.setup == g.setup == {"goods": {"iron": "N3", "jade": "R5b", "indigo": "R5b"},
                                       "neutral_region": 7}
        assert st.to_json(view=seat) == g.to_json(view=seat)
    v = g.to_json(view=g.to_move)
    del v["setup"]                            # the first game's placement does not fit
    with pytest.raises(IllegalPositionError, match=r"^setup\.goods\.(iron|jade|indigo): the "):
        Taschkent.from_view(v)


def test_the_starting_goods_stay_on_their_huts_until_a_shortage():
    d = fresh(3, 2)
    d["setup"] = {"goods": {"iron": "R2a", "jade": "R4a", "indigo": "R7a"}, "neutral_region": None}
    with pytest.raises(IllegalPositionError, match=r"^setup\.goods\.iron: the iron placed on R2a "
                                                    "at set-up is not there"):
        build(d)
    # a Shortage (b) removed the iron from R4a and an iron from the camel: R4a may lack it
    d = fresh(3, 2)
    hut(d, "R4a")["goods"].remove("iron")
    d["camels"]["iron"] -= 1
    d["removed_goods"]["iron"] += 2
    d["action_pile"].remove("shortage")
    d["played_cards"]["shortage"] = 1
    assert build(d).setup["goods"]["iron"] == "R4a"


def test_the_four_player_neutral_hut_stays_in_its_region_until_caravan_moves_on():
    d = fresh(4, 2)
    hut(d, "N3")["at"] = "R4"
    with pytest.raises(IllegalPositionError, match=r"^setup\.neutral_region: N3 began in R3"):
        build(d)
    d["action_pile"].remove("caravan")
    d["played_cards"]["caravan"] = 1
    assert hut(build(d).to_json(), "N3")["at"] == "R4"
    d = fresh(4, 2)
    hut(d, "N3")["at"] = "R4"
    d["setup"]["neutral_region"] = 4
    assert build(d).setup["neutral_region"] == 4


@pytest.mark.parametrize("players,setup,message", [
    (3, {**FIRST_GAME, "neutral_region": 3}, r"^setup\.neutral_region: a region 1-8 with 4 players"),
    (4, {**FIRST_GAME, "neutral_region": None}, r"^setup\.neutral_region: a region 1-8 with 4 players"),
    (3, {"goods": {"iron": "N3", "jade": "R4a", "indigo": "R7a"}, "neutral_region": None},
     r"^setup\.goods\.iron: N3 is not on the board at set-up"),
    (3, {"goods": {"iron": "R6a", "jade": "R4a", "indigo": "R7a"}, "neutral_region": None},
     r"^setup\.goods\.iron"),
    (3, {"goods": {"iron": "R4a", "jade": "R4a"}, "neutral_region": None}, r"^setup\.goods"),
    (3, {**FIRST_GAME}, r"^setup"),
    (4, {**FIRST_GAME, "neutral_region": 9}, r"^setup\.neutral_region"),
    (3, {**FIRST_GAME, "neutral_region": None, "extra": 1}, r"^setup"),
])
def test_a_bad_setup_is_refused(players, setup, message):
    for d in (fresh(players, 3), Taschkent(players, 3).to_json(view=0)):
        d["setup"] = setup
        with pytest.raises(ValueError, match=message):
            (from_view if "view" in d else from_json)(d)


# ================================================================ moves: the bound and the guard
def crowded_action_turn():
    """A reachable action turn with nearly every kind of move at its maximum: the seat to move
    holds Removal, Caravan moves on, Shortage and 3/5, has posts in every region and Tugrik
    for anything, its hut still in the supply; every neutral hut has left the supply (six in
    middle regions, one at the Kalmyk), 32 goods lie on huts and every camel keeps one."""
    d = fresh(4, 1)
    d["trading_rounds"] = 2
    to_round(d, 2)
    ps(d, 0)["tugrik"] = 100
    for card in ("removal", "caravan", "shortage", "35"):
        give_action(d, 0, card)
    ps(d, 0)["cameleer"] = "carriage"
    for r in range(1, 9):
        add_posts(d, 0, r)
    neutral = [h for h in d["huts"] if h["id"].startswith("N")]
    for h, at_ in zip(neutral, ["R2", "R3", "R6", "R7", "R2", "R3", "kalmyk"]):
        h["at"] = at_
    d["setup"]["neutral_region"] = 6        # N3 began in R6 (the set-up option): nothing moved it
    on_map = [h for h in d["huts"] if h["at"].startswith("R") and not h["id"].startswith("H")]
    for good, camels, on_huts in (("iron", ["iron"], 11), ("jade", ["jade"], 11),
                                  ("indigo", ["indigo1", "indigo2"], 10)):
        k = on_huts - sum(good in h["goods"] for h in d["huts"])     # beside the set-up goods
        for h in on_map:
            if k and good not in h["goods"]:
                h["goods"].append(good)
                k -= 1
        for c in camels:
            d["camels"][c] = 1
    return build(d)


def test_the_crowded_turn_comes_near_the_bound():
    g = crowded_action_turn()
    n = len(g.legal_moves())
    # 1 + 8 posts + 8 huts + 75 cameleer moves (7 fields) + 20 + 18 + 132 + 1
    assert n == 263 and n <= core.MOST_MOVES


def test_the_move_generator_stays_in_its_buffer_whatever_the_state():
    """Fields no loader accepts, written straight into the C state: every hut in the region
    being evaluated (32 mask bits), every connection on its borders. The generator writes at
    most GEN_MOVES_CAP moves, which the buffers (MAX_MOVES, cext/core.pxd) hold; with the seat
    or region out of range it writes none."""
    g = Taschkent(3, 1)
    f = g._fields()
    f.update(phase=core.PH_SELL, actor=0, tr_region=3, region_huts=[2 ** 32 - 1] * 8,
             hut_has=[0, 0, 0], stick_border=[9, 2, 9])
    f["goods"][0], f["posts"][0][3], f["supply"][0] = [1, 1, 1], 1, 5
    g._set_fields(f)
    assert len(g.legal_moves()) == core.GEN_MOVES_CAP <= MAX_MOVES
    with pytest.raises(IllegalPositionError):
        g.check_invariants()
    for bad in (dict(actor=7), dict(actor=-3), dict(tr_region=-2), dict(tr_region=8), dict(n=9)):
        g._set_fields(dict(f, **bad))
        assert g.legal_moves() == []


def test_broken_counters_cannot_make_a_game_endless():
    """Counters out of range (refused by the loader) still let the rules end the round, the
    round track and the game: turn_no negative, round beyond 4, trading rounds negative."""
    for bad in (dict(turn_no=-10 ** 9), dict(round=10 ** 6), dict(cycle=-10 ** 9)):
        g = Taschkent(3, 2)
        g._set_fields(dict(g._fields(), **bad))
        with pytest.raises(IllegalPositionError):
            g.check_invariants()
        rng = random.Random(1)
        for _ in range(20000):
            if g.is_terminal():
                break
            g.apply(rng.choice(g.legal_moves()))
        assert g.is_terminal()


# ================================================================ found by a mutation audit
# (2026-12-07): a weakened check let these through with every test passing
def _sell_phase(d):
    """Seat 0 with an iron and a post in R2; action round 4 ends, so the trading round is on
    and seat 0 is to sell. Returns the position's JSON."""
    give_goods(d, 0, "iron")
    add_posts(d, 0, 2)
    last_turn_of_round(d)
    g = build(d)
    play(g, "no-move")
    assert g.phase == "sell" and g.to_move == 0
    return g.to_json()


def test_a_neutral_hut_still_on_track_field_2_in_round_2_is_refused():
    """Rulebook, Action Round: when the lap counter reaches a field with a neutral hut, "it is
    placed on the big hut above" (the Kalmyk): from round 2 on, track field 2 is empty."""
    d = fresh()
    d["round"] = 2
    turn_of(d, 0)
    assert hut(d, "N1")["at"] == "track2"
    with pytest.raises(IllegalPositionError, match=r"^huts: the hut on track field 2 goes to the "
                                                   r"Kalmyk when round 2 begins"):
        build(d)


def test_a_trading_round_after_action_round_1_is_refused():
    """Rulebook: "The transition from the first to the second round is automatic", and "The
    second action round takes place definitely": no trading round follows round 1."""
    d = _sell_phase(fresh())
    d["round"] = 1
    d["turns"] = 3                           # one action round of 3 turns before this trading
    hut(d, "N1")["at"] = "track2"            # rounds 2 and 4 never began: N1 and N2 are still
    hut(d, "N2")["at"] = "track4"            # on the round track
    with pytest.raises(IllegalPositionError, match=r"^round: a trading round follows action "
                                                   r"round 2, 3 or 4, not 1"):
        build(d)


def test_in_a_trading_round_the_marker_holder_is_the_start_player():
    """Rulebook, Next Round: "If a player has taken the black marker for the starting player,
    he receives the caravan guide" at the end of the action round; docs 6: the change happens
    at the end of the action round in which the marker was taken. In a trading round the
    marker's holder therefore already starts."""
    d = _sell_phase(fresh())
    assert d["marker"] is None and d["start_player"] == 0
    d["marker"] = 1
    ps(d, 1)["cameleer"] = "horses"
    with pytest.raises(IllegalPositionError, match=r"^start_player: seat 1 took the marker"):
        build(d)
