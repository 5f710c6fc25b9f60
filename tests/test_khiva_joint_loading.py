"""A Khiva seat's joint knowledge of the cards it gave away (cext/khiva.pyx, jn ... jset) in
JSON: `joint_whereabouts_by_seat` in a full state, `joint_whereabouts` in a view
(docs/views/khiva.md). Written only when it binds (says more than the per-card whereabouts),
read back exactly, checked in full before it reaches the C state, and kept by
determinizations."""
import copy
import functools
import random

import pytest

from engine.games.khiva import Khiva
from engine.validation import IllegalPositionError, ViewError
from game_support import refused


@functools.lru_cache(maxsize=None)
def _binding_moves():
    """(seed, moves) of the first seeded random 4-player position whose seat to move has
    binding joint knowledge."""
    for seed in range(200):
        g = Khiva(4, seed)
        rng = random.Random(seed)
        moves = []
        while not g.is_terminal():
            if "joint_whereabouts" in g.to_json(view=g.to_move):
                return seed, tuple(moves)
            moves.append(rng.choice(g.legal_moves()))
            g.apply(moves[-1])
    raise AssertionError("no binding joint knowledge in 200 games")


def binding_game():
    """A fresh copy of that position, and its seat to move (the seat that follows cards)."""
    seed, moves = _binding_moves()
    g = Khiva(4, seed)
    for m in moves:
        g.apply(m)
    return g, g.to_move


def joint_of(fields, o):
    return (fields["jcard"][o][:fields["jn"][o]], fields["jset"][o][:fields["jm"][o]])


def holders(d):
    """card -> the seat holding it (hand or chosen cards) in a full state."""
    return {c: p for p, ps in enumerate(d["player_state"])
            for c in ps["hand"] + ps["chosen_play"] + ps["chosen_give"]}


# ------------------------------------------------------------ writing and reading back
def test_a_binding_joint_knowledge_is_written_in_the_view_and_the_full_state():
    g, o = binding_game()
    v, d = g.to_json(view=o), g.to_json()
    assert d["joint_whereabouts_by_seat"][o] == v["joint_whereabouts"]
    j = v["joint_whereabouts"]
    assert set(j) == {"cards", "placements"}
    assert all(len(p) == len(j["cards"]) for p in j["placements"])
    product = 1
    for i in range(len(j["cards"])):
        product *= len({p[i] for p in j["placements"]})
    assert len(j["placements"]) < product                    # binding: written only then
    truth = holders(d)
    assert [truth[c] for c in j["cards"]] in j["placements"]


def test_the_full_state_round_trip_keeps_the_joint_knowledge():
    g, o = binding_game()
    d = g.to_json()
    again = Khiva.from_json(d)
    assert again.to_json() == d
    for p in range(4):
        assert again.to_json(view=p) == g.to_json(view=p)
    assert joint_of(again._fields(), o) == joint_of(g._fields(), o)


def test_the_view_round_trip_keeps_the_joint_knowledge_in_its_order():
    g, o = binding_game()
    v = g.to_json(view=o)
    st = Khiva.from_view(v)
    assert st.to_json(view=o) == v
    assert joint_of(st._fields(), o) == joint_of(g._fields(), o)
    assert st._fields()["jlost"][o] == 0


def test_determinizations_of_a_loaded_view_keep_the_joint_knowledge():
    g, o = binding_game()
    v = g.to_json(view=o)
    st = Khiva.from_view(v)
    cards, placements = v["joint_whereabouts"]["cards"], v["joint_whereabouts"]["placements"]
    for seed in range(200):
        d = st.determinized(o, seed).to_json()
        held = holders(d)
        assert [held.get(c) for c in cards] in placements, seed


def test_a_view_without_the_key_loads_as_before():
    g, o = binding_game()
    v = g.to_json(view=o)
    del v["joint_whereabouts"]
    st = Khiva.from_view(v)
    assert st.to_json(view=o) == v                # rebuilt from the masks: binds nothing
    assert st._fields()["jlost"][o] == 0
    for seed in range(50):
        d = st.determinized(o, seed).to_json()
        held = holders(d)
        for card, places in v["card_whereabouts"].items():
            assert held.get(card, "aside") in places


def test_a_full_state_without_the_key_loads_with_the_masks_alone():
    g, o = binding_game()
    d = g.to_json()
    del d["joint_whereabouts_by_seat"]
    again = Khiva.from_json(d)
    assert again.to_json() == d
    assert "joint_whereabouts" not in again.to_json(view=o)


def test_the_private_hash_of_a_view_includes_its_joint_knowledge():
    g, o = binding_game()
    v = g.to_json(view=o)
    lean = copy.deepcopy(v)
    del lean["joint_whereabouts"]
    a, b = Khiva.from_view(v)._fields()["ih"], Khiva.from_view(lean)._fields()["ih"]
    assert a["public"] == b["public"] and a["pair"][o][o] != b["pair"][o][o]


# ------------------------------------------------------------ refusals
def unseen_free_cards(v, o):
    """Cards seat o cannot see and knows nothing about (not in its card_whereabouts)."""
    g = Khiva.from_view(v)
    full = g.to_json()
    me = full["player_state"][o]
    seen = set(me["hand"] + me["chosen_play"] + me["chosen_give"]
               + full["discard"] + full["aside_up"])
    everything = [f"{c}{x}" for c in "WBGPK" for x in range(1, 6)]
    return [c for c in everything if c not in seen and c not in v["card_whereabouts"]]


def capacity(v, q):
    """Seat q's hidden cards (hand and chosen cards) as the view implies them."""
    d = Khiva.from_view(v).to_json()
    ps = d["player_state"][q]
    return len(ps["hand"] + ps["chosen_play"] + ps["chosen_give"])


def other(o, k=1):
    return (o + k) % 4


def _bool_seat(v, o):
    v["joint_whereabouts"]["placements"][0][0] = True


def _own_card(v, o):
    v["joint_whereabouts"]["cards"][0] = v["player_state"][o]["hand"][0]


def _discarded_card(v, o):
    if not v["discard"]:
        pytest.skip("no discard in this position")
    v["joint_whereabouts"]["cards"][0] = v["discard"][0]


def _seat_out_of_range(v, o):
    v["joint_whereabouts"] = {"cards": unseen_free_cards(v, o)[:1], "placements": [[4]]}


def _the_seat_itself(v, o):
    v["joint_whereabouts"] = {"cards": unseen_free_cards(v, o)[:1], "placements": [[o]]}


def _outside_the_whereabouts(v, o):
    card = unseen_free_cards(v, o)[0]
    v["card_whereabouts"][card] = [other(o, 1)]
    v["joint_whereabouts"] = {"cards": [card], "placements": [[other(o, 2)]]}


def _more_than_the_seat_holds(v, o):
    q = other(o)
    k = capacity(v, q) + 1
    cards = unseen_free_cards(v, o)
    assert len(cards) >= k
    v["joint_whereabouts"] = {"cards": cards[:k], "placements": [[q] * k]}


def _nine_cards(v, o):
    cards = [f"{c}{x}" for c in "WBGPK" for x in range(1, 6)][:9]     # the schema's limit
    v["joint_whereabouts"] = {"cards": cards, "placements": [[other(o)] * len(cards)]}


def _sixty_five_placements(v, o):
    j = v["joint_whereabouts"]
    j["placements"] = j["placements"] * 65


def _card_twice(v, o):
    j = v["joint_whereabouts"]
    j["cards"] = j["cards"][:1] * 2
    j["placements"] = [[p[0], p[0]] for p in j["placements"][:1]]


def _placement_twice(v, o):
    j = v["joint_whereabouts"]
    j["placements"].append(list(j["placements"][0]))


def _no_placement(v, o):
    v["joint_whereabouts"]["placements"] = []


def _short_placement(v, o):
    v["joint_whereabouts"]["placements"][0].pop()


def _not_an_object(v, o):
    v["joint_whereabouts"] = [v["joint_whereabouts"]["cards"]]


def _unknown_key(v, o):
    v["joint_whereabouts"]["weights"] = [1]


def _not_a_card(v, o):
    v["joint_whereabouts"]["cards"][0] = "Z9"


REFUSALS = [
    (_bool_seat, ViewError, "joint_whereabouts.placements[0][0]"),
    (_own_card, ViewError, "sees card"),
    (_discarded_card, ViewError, "sees card"),
    (_seat_out_of_range, ViewError, "no seat other than"),
    (_the_seat_itself, ViewError, "no seat other than"),
    (_outside_the_whereabouts, IllegalPositionError, "leave out seat"),
    (_more_than_the_seat_holds, IllegalPositionError, "hidden cards, not"),
    (_nine_cards, ViewError, "joint_whereabouts.cards"),
    (_sixty_five_placements, ViewError, "joint_whereabouts.placements"),
    (_card_twice, ViewError, "joint_whereabouts.cards"),
    (_placement_twice, ViewError, "joint_whereabouts.placements"),
    (_no_placement, ViewError, "joint_whereabouts.placements"),
    (_short_placement, ViewError, "joint_whereabouts.placements[0]"),
    (_not_an_object, ViewError, "joint_whereabouts"),
    (_unknown_key, ViewError, "unknown key 'weights'"),
    (_not_a_card, ViewError, "joint_whereabouts.cards[0]"),
]
REFUSAL_IDS = [change.__name__[1:] for change, _, _ in REFUSALS]


@pytest.mark.parametrize("change,error,message", REFUSALS, ids=REFUSAL_IDS)
def test_a_broken_joint_knowledge_in_a_view_is_refused(change, error, message):
    g, o = binding_game()
    v = g.to_json(view=o)
    change(v, o)
    refused(Khiva.from_view, v, message, error=error)


@pytest.mark.parametrize("change,error,message", REFUSALS, ids=REFUSAL_IDS)
def test_a_broken_joint_knowledge_in_a_full_state_is_refused(change, error, message):
    g, o = binding_game()
    v = g.to_json(view=o)
    change(v, o)
    d = g.to_json()
    d["whereabouts_by_seat"][o] = v["card_whereabouts"]
    d["joint_whereabouts_by_seat"][o] = v["joint_whereabouts"]
    d["discard"] = v["discard"]
    message = message.replace("joint_whereabouts", f"joint_whereabouts_by_seat[{o}]")
    refused(Khiva.from_json, d, message, error=error)


def test_joint_knowledge_in_a_duel_is_refused():
    g = Khiva(2, 3)
    v = g.to_json(view=0)
    card = unseen_free_cards(v, 0)[0]
    v["joint_whereabouts"] = {"cards": [card], "placements": [[1]]}
    refused(Khiva.from_view, v, "joint_whereabouts", "duel")
    d = g.to_json()
    d["joint_whereabouts_by_seat"] = [{"cards": [card], "placements": [[1]]}, None]
    refused(Khiva.from_json, d, "joint_whereabouts_by_seat[0]", "duel")


def test_a_full_state_whose_cards_are_in_no_placement_is_refused():
    g, o = binding_game()
    d = g.to_json()
    j = d["joint_whereabouts_by_seat"][o]
    truth = [holders(d)[c] for c in j["cards"]]
    j["placements"].remove(truth)
    e = refused(Khiva.from_json, d, error=IllegalPositionError)
    assert "whereabouts" in str(e)


def test_a_full_state_with_a_seat_list_of_the_wrong_length_is_refused():
    g, o = binding_game()
    d = g.to_json()
    d["joint_whereabouts_by_seat"].append(None)
    refused(Khiva.from_json, d, "joint_whereabouts_by_seat", "one per seat")


def test_a_followed_card_left_out_of_the_whereabouts_narrows_to_its_placements():
    """A card the joint knowledge follows that card_whereabouts does not list may be at any
    other seat: loading narrows it to the seats its placements give it, as to_json writes."""
    g, o = binding_game()
    v = g.to_json(view=o)
    card = v["joint_whereabouts"]["cards"][0]
    lean = copy.deepcopy(v)
    del lean["card_whereabouts"][card]
    st = Khiva.from_view(lean)
    assert st.to_json(view=o) == v


def test_a_joint_knowledge_given_in_any_order_loads_as_the_engine_keeps_it():
    """Cards and placements are sets: reversed, they load to the same knowledge, and the
    engine writes them back in its own order (cards by id)."""
    g, o = binding_game()
    v = g.to_json(view=o)
    j = v["joint_whereabouts"]
    shuffled = copy.deepcopy(v)
    shuffled["joint_whereabouts"] = {
        "cards": j["cards"][::-1],
        "placements": [p[::-1] for p in j["placements"]][::-1]}
    st = Khiva.from_view(shuffled)
    assert st.to_json(view=o) == v
    assert joint_of(st._fields(), o) == joint_of(g._fields(), o)
    ids = st._fields()["jcard"][o][:len(j["cards"])]
    assert list(ids) == sorted(ids)


def test_a_joint_knowledge_that_says_no_more_than_the_whereabouts_is_accepted():
    """One followed card and each of its seats: nothing beyond its whereabouts, so it loads,
    and to_json leaves it out as it does in play."""
    g, o = binding_game()
    v = g.to_json(view=o)
    j = v["joint_whereabouts"]
    seats = sorted({p[0] for p in j["placements"]})
    loose = copy.deepcopy(v)
    loose["joint_whereabouts"] = {"cards": j["cards"][:1], "placements": [[q] for q in seats]}
    st = Khiva.from_view(loose)
    written = st.to_json(view=o)
    assert "joint_whereabouts" not in written
    assert written["card_whereabouts"][j["cards"][0]] == seats
    assert st._fields()["jn"][o] == 1 and st._fields()["jm"][o] == len(seats)


def test_a_view_whose_placements_each_fit_alone_but_none_with_the_whereabouts_is_refused():
    """Each placement passes the per-seat checks, but the whereabouts fill a seat that every
    placement needs: no hidden deal fits, so the view is refused rather than loaded."""
    g, o = binding_game()
    v = g.to_json(view=o)
    j = v["joint_whereabouts"]
    always = [q for q in range(4) if q != o and all(q in p for p in j["placements"])]
    assert always, "the position was chosen with a seat in every placement"
    q = always[0]
    broken = copy.deepcopy(v)
    for card in unseen_free_cards(v, o)[:capacity(v, q)]:
        broken["card_whereabouts"][card] = [q]
    refused(Khiva.from_view, broken, "no placement of the hidden cards fits",
            error=IllegalPositionError)


def test_the_board_a_seat_reads_says_what_it_knows_of_its_gifts():
    """`caravan play` and the protocol's `d` show a seat its knowledge: each followed card's
    seats, then the placements that go together; the whole game's board shows neither."""
    g, o = binding_game()
    v = g.to_json(view=o)
    text = g.render(o)
    card = next(iter(v["card_whereabouts"]))
    seats = " or ".join(f"P{q}" for q in v["card_whereabouts"][card])
    assert f"{card} with {seats}" in text
    first = v["joint_whereabouts"]["placements"][0]
    together = " + ".join(f"{c} P{q}" for c, q in zip(v["joint_whereabouts"]["cards"], first))
    assert f"together only: {together}" in text
    assert "you know" not in g.render() and "together only" not in g.render()
    assert Khiva.from_view(v).render(o) == text
