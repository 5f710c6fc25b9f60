"""Khiva states and views enter through one checked path (docs/views/README.md): the schema,
the invariants, a legal move, the round trip; and a view must be the seat to move's.

What every game's loaders do (round trips of states and views at every player count, a view
only of the seat to move or of a finished game, non-objects, unknown keys, deep and huge
input refused) is checked by the conformance suite (tests/test_conformance.py). Here: Khiva's
own fields, messages and knowledge."""
import copy
import json

import pytest

from cext import khiva as core
from engine.games.khiva import Khiva
from engine.validation import IllegalPositionError
from game_support import edit, first_position, refused
from khiva_support import allison_in_boost, play, position, without_derived


def played(players, seed, moves):
    g = Khiva(players, seed)
    for _ in range(moves):
        g.apply(g.legal_moves()[len(g.legal_moves()) // 3])
    return g


def test_derived_fields_may_be_left_out_but_must_agree_when_given():
    g = played(3, 4, 5)
    d = g.to_json()
    lean = {k: x for k, x in d.items() if k not in ("deal", "gem_supply", "teapot_pile_count")}
    lean["player_state"] = [{k: x for k, x in ps.items() if k not in ("score", "hand_size")}
                            for ps in d["player_state"]]
    assert Khiva.from_json(lean).to_json() == d
    stale = copy.deepcopy(d)
    stale["player_state"][1]["score"] += 1
    refused(Khiva.from_json, stale, "player_state[1].score")
    stale = dict(d, carpet_pile_count=d["carpet_pile_count"] - 1)
    refused(Khiva.from_json, stale, "carpet_pile_count")


def test_sets_may_come_in_any_order_piles_may_not_be_reordered_silently():
    g = played(3, 4, 5)
    d = g.to_json()
    shuffled = copy.deepcopy(d)
    shuffled["player_state"][0]["hand"].reverse()
    shuffled["aside_down"].reverse()
    assert Khiva.from_json(shuffled).to_json() == d
    reordered = copy.deepcopy(d)
    reordered["teapot_pile"].reverse()          # a different pile order is another position
    assert Khiva.from_json(reordered).to_json()["teapot_pile"] == reordered["teapot_pile"]


@pytest.mark.parametrize("where", [(), ("player_state", 0), ("camels", 2), ("pending",)])
def test_unknown_keys_are_refused_at_every_level(where):
    g = Khiva(3, 6)
    while g.phase != "boost":
        g.apply(g.legal_moves()[-1])
    d = g.to_json()
    target = d
    for step in where:
        target = target[step]
    target["colour_of_the_sky"] = "blue"
    refused(Khiva.from_json, d, "unknown key 'colour_of_the_sky'")


MESSAGES = [(edit(["player_state", 2, "hand", 4], "Z9"), "player_state[2].hand[4]"),
            (lambda d: d.update(camels=d["camels"][:4]), "camels: expected 5 items, got 4"),
            (edit(["player_state", 1, "gems"], True), "player_state[1].gems: expected an integer")]


@pytest.mark.parametrize("change,message", MESSAGES, ids=[m for _, m in MESSAGES])
def test_messages_name_the_field_path(change, message):
    d = Khiva(3, 1).to_json()
    change(d)
    refused(Khiva.from_json, d, message)


def test_a_view_holds_no_other_seats_cards():
    g = Khiva(3, 2)
    v = g.to_json(view=0)
    v["player_state"][1]["hand"] = g.to_json()["player_state"][1]["hand"]
    refused(Khiva.from_view, v, "player_state[1].hand", "cannot hold seat 1's cards")


def test_seats_choose_in_order():
    g = played(3, 2, 1)                       # seat 0 has chosen
    d = g.to_json()
    d["to_move"] = 2                          # seat 1 skipped
    refused(Khiva.from_json, d, "player_state[1]", "seats choose in order", "seat 1 has chosen")


def test_hands_must_have_the_size_the_turn_implies():
    d = Khiva(3, 2).to_json()
    d["aside_down"].append(d["player_state"][0]["hand"].pop())
    with pytest.raises(IllegalPositionError):
        Khiva.from_json(d)


def test_the_move_bound_is_reached_by_a_full_duel_hand_and_guarded_beyond():
    g = Khiva(2, 1)                           # a duel hand of 8: C(8,2) * C(6,2) choices
    assert len(g.legal_moves()) == core.MOST_MOVES == 28 * 15
    for players in (3, 4, 5):
        assert len(Khiva(players, 1).legal_moves()) == 5 * 4 <= core.MOST_MOVES


def test_determinization_places_tightly_known_cards_where_they_may_be():
    """Seat 0 is told that all ten face-down set-aside cards are set aside: random placement
    almost never fits, so the core's matching fallback places them."""
    g = Khiva(3, 5)
    truth = g.to_json()
    v = g.to_json(view=0)
    v["card_whereabouts"] = {c: ["aside"] for c in truth["aside_down"]}
    st = Khiva.from_view(v)
    for seed in range(20):
        d = st.determinized(0, seed)
        d.check_invariants()
        assert d.to_json()["aside_down"] == truth["aside_down"]


def test_impossible_whereabouts_are_refused():
    g = Khiva(3, 5)
    v = g.to_json(view=0)
    aside = g.to_json()["aside_down"]
    v["card_whereabouts"] = {c: [1] for c in aside[:6]}     # six cards for a hand of five
    refused(Khiva.from_view, v, "no placement")
    v["card_whereabouts"] = {g.to_json(view=0)["player_state"][0]["hand"][0]: [1]}
    refused(Khiva.from_view, v, "sees card")


def test_a_full_state_keeps_what_every_seat_learned():
    g = played(3, 7, 9)                       # after a reveal: gifts are known to their givers
    views = [g.to_json(view=o) for o in range(3)]
    assert any(v["card_whereabouts"] for v in views)
    again = Khiva.from_json(g.to_json())
    assert [again.to_json(view=o) for o in range(3)] == views


def test_whereabouts_of_a_card_the_seat_holds_are_refused():
    d = Khiva(3, 2).to_json()
    d["whereabouts_by_seat"][1] = {d["player_state"][1]["hand"][0]: [0]}
    refused(Khiva.from_json, d, "whereabouts_by_seat[1]", "sees card")
    d = Khiva(3, 2).to_json()
    d["whereabouts_by_seat"][1] = {d["player_state"][0]["hand"][0]: [1]}
    refused(Khiva.from_json, d, "whereabouts_by_seat[1]", "no hidden place of seat 1")


def _finding_8443_24401() -> dict:
    from pathlib import Path

    path = Path(__file__).parent / "findings" / "khiva-seed8443-24401.json"
    return json.loads(path.read_text())["data"]


def test_a_card_played_by_two_seats_is_refused():
    """Loader fuzzer, seed 8443: seats 0 and 2 both showed G5 as played. The view loaded, and
    the first move (`carpet`) left a state check_invariants refused, since the check summed
    the played masks and the doubled G5 carried into the pink bits."""
    from engine.registry import from_view

    refused(from_view, _finding_8443_24401(), "player_state[2].played",
            "G5 was played by another seat", error=IllegalPositionError)


def test_the_finding_with_each_card_played_once_stays_valid_through_its_turn():
    """The same view with seat 2 showing the discarded W3 instead: it loads, and every move
    to the end of the turn keeps the invariants (the first one is the finding's `carpet`)."""
    from engine.registry import from_view

    view = _finding_8443_24401()
    view["player_state"][2]["played"] = ["W3"]
    g = from_view(view)
    g.check_invariants()
    play_text = [g.move_to_text(m) for m in g.legal_moves()]
    assert "carpet" in play_text
    g.apply(g.legal_moves()[play_text.index("carpet")])
    g.check_invariants()
    while g.phase != "choose" and not g.is_terminal():
        g.apply(g.legal_moves()[0])
        g.check_invariants()


# ---------------------------------------------------------------- facts without a history
def free_spaces(d):
    taken = {c["at"] for c in d["camels"]}
    return [f"P{p}.{s}" for p in range(d["players"]) for s in range(1, 5)
            if f"P{p}.{s}" not in taken]


def test_a_camel_without_a_teapot_rests_in_khiva():
    """A camel hands its teapot over at an outpost and goes back to Khiva, where it takes
    none once the pile is empty (an audit's finding, 2026-12-07)."""
    d = first_position(Khiva, 2, lambda d: any(c["teapot"] == 0 for c in d["camels"]))
    Khiva.from_json(d)
    empty = next(c for c in d["camels"] if c["teapot"] == 0)
    assert empty["at"] == "khiva"
    empty["at"] = free_spaces(d)[0]
    refused(Khiva.from_json, d, "camels[", "a camel without a teapot delivered it at an "
            "outpost and rests in Khiva")


def test_a_shop_4_decision_is_on_the_granted_seats_own_path():
    """Moving back along another seat's path a camel stops on a shop 3 at most: the shop 4
    that asks for salt or a carpet is the granted seat's (an audit's finding, 2026-12-07)."""
    def other_shop_4_free(d):
        return d["phase"] == "shop4" and any(
            f"P{q}.4" in free_spaces(d) for q in range(d["players"]) if q != d["pending"]["player"])

    d = first_position(Khiva, 3, other_shop_4_free)
    Khiva.from_json(d)
    p = d["pending"]["player"]
    camel = next(c for c in d["camels"] if c["at"] == f"P{p}.4")
    q = next(q for q in range(3) if q != p and f"P{q}.4" in free_spaces(d))
    camel["at"] = f"P{q}.4"
    refused(Khiva.from_json, d, "phase", f"stands on P{q}.4: a camel granted to seat {p} stops "
            f"on a shop 4 only on that seat's path, P{p}.4")


@pytest.mark.parametrize("players", [2, 3])
def test_nothing_has_moved_before_the_first_cards_are_revealed(players):
    d = Khiva(players, 5).to_json()
    moved = copy.deepcopy(d)
    moved["camels"][1]["at"] = "P1.2"
    refused(Khiva.from_json, moved, "camels", "every camel rests in Khiva until the first cards")
    rich = copy.deepcopy(d)
    rich["player_state"][0]["gems"] = 5
    rich.pop("gem_supply", None)
    refused(Khiva.from_json, rich, "player_state[0]", "no seat holds gems, teapots, carpets or "
            "salt before the first cards are revealed")


FIVE = {0: ["W4", "B1", "G1", "G3", "P2"], 1: ["B5", "G5", "P3", "K1", "K2"],
        2: ["W2", "B3", "G4", "P4", "K5"]}


# ================================================================ found by a mutation audit
# (2026-12-07): a weakened check let these through with every test passing

def test_two_camels_on_one_path_space_are_refused():
    """How to Play > 2. Camels Activation: occupied spaces are leaped, so a camel never stops
    on one; a position with two camels on P0.2 is no position of Khiva."""
    with pytest.raises(ValueError, match="two camels on one space"):
        position(hands=FIVE, camels={"pink": "P0.2", "blue": "P0.2"})


def test_a_pending_request_that_is_not_the_lowest_is_refused():
    """How to Play > 2. Camels Activation: "the camel always grants the request with the lowest
    value". Allison's B2 pending while Adil shows a B1 is no position of Khiva."""
    d = allison_in_boost().to_json()
    assert Khiva.from_json(d).to_json() == d
    d["player_state"][0]["played"] = ["B1"]
    d["discard"] = ["B1" if c == "B5" else c for c in d["discard"]]
    d["aside_down"] = ["B5" if c == "B1" else c for c in d["aside_down"]]
    with pytest.raises(ValueError, match="B2 was not granted"):
        Khiva.from_json(d)


def test_a_choice_after_an_empty_pile_is_refused():
    """End of the Game & Scoring: an empty pile ends the game once the turn's last camel has
    moved, so no turn starts with an empty pile (here the carpet pile)."""
    def edit(d):
        d["player_state"][2]["carpets_held"] = d["carpet_pile"]
        d["carpet_pile"] = []
    with pytest.raises(ValueError, match="a turn after an empty pile"):
        position(hands=FIVE, edit=edit)


def test_a_camel_without_a_teapot_that_has_still_to_move_this_turn_is_refused():
    """docs/rules/khiva.md, 7 and 11: a camel goes back to Khiva without a teapot only when the
    pile is empty, which ends the game after that turn, so it has moved this turn. Here blue's
    boost is pending and seat 2 played the black K5, so black moves after blue: with the pile
    empty and black resting in Khiva without a teapot, it would leave empty-handed."""
    h = {0: ["B5", "W1", "W2", "W3", "W4"], 1: ["B2", "G1", "P1", "P2", "P3"],
         2: ["K1", "K2", "K3", "K4", "K5"]}
    g = position(hands=h, camels={"blue": "P0.2", "green": "P1.3"}, gems={1: 5})
    play(g, "play-B5-give-W1", "play-B2-give-G1", "play-K5-give-K2")
    assert g.phase == "boost" and g.to_move == 1
    d = g.to_json()
    black = d["camels"][4]
    assert black["colour"] == "black" and black["at"] == "khiva" and black["teapot"] >= 2
    seat2 = d["player_state"][2]
    for t in d["teapot_pile"] + [black["teapot"]]:        # every teapot delivered to seat 2
        seat2["teapots"] += 1
        seat2["teapot_points"] += t
    d["teapot_pile"], black["teapot"] = [], 0
    refused(Khiva.from_json, without_derived(d), "camels[4].teapot",
            "the black camel has not moved this turn", error=IllegalPositionError)
