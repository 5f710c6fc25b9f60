"""Khiva rules: every worked example of the rulebook and game help, and a test per rule.

Seats in the examples: the rulebook's players are given seats 0, 1, 2. Positions are written
"khiva" or "P<seat>.<space>" (space 1-4 = shops, 5 = outpost). Every card not in a hand is in
the public discard unless a test says otherwise.
"""
import pytest

from engine.games.khiva import Khiva
from khiva_support import allison_in_boost, camel_at, give_teapots, play, player, position

FIVE = {0: ["W4", "B1", "G1", "G3", "P2"], 1: ["B5", "G5", "P3", "K1", "K2"],
        2: ["W2", "B3", "G4", "P4", "K5"]}


def hands(**over):
    h = {p: list(c) for p, c in FIVE.items()}
    for k, v in over.items():
        h[int(k[1:])] = v
    return h


def texts(g):
    return [g.move_to_text(m) for m in g.legal_moves()]


# ================================================================ worked examples
def test_example_camille_white_four_leaps_the_pink_camel_to_her_outpost():
    """Rulebook, How to Play > Example: alone on white, Camille's 4 leaps the pink camel,
    reaches her outpost from Khiva and takes its 3-point teapot; the camel goes home with a
    new teapot."""
    g = position(hands=FIVE, camels={"pink": "P0.2"}, teapots_on={"white": 3})
    pile_before = g.to_json()["teapot_pile"]
    play(g, "play-W4-give-B1", "play-B5-give-K1", "play-G4-give-B3")
    me = player(g, 0)
    assert (me["teapots"], me["teapot_points"]) == (1, 3)
    assert camel_at(g, "white") == "khiva"
    assert g.to_json()["camels"][0]["teapot"] == pile_before[-1]   # the top of the pile


def test_example_camille_with_one_gem_is_asked_no_boost():
    """The same white 4 with one gem in Camille's hand: the 4 already ends on her outpost
    (P0.1, pink's P0.2 leaped, P0.3, P0.4, the outpost), so a boost could only spend a gem
    for nothing. No decision is asked and she keeps the gem (Interpretation: boost)."""
    g = position(hands=FIVE, camels={"pink": "P0.2"}, teapots_on={"white": 3}, gems={0: 1})
    play(g, "play-W4-give-B1", "play-B5-give-K1", "play-G4-give-B3")
    me = player(g, 0)
    assert g.phase == "choose"                       # the whole turn ran: no boost asked
    assert (me["teapot_points"], me["gems"]) == (3, 1)
    assert camel_at(g, "white") == "khiva"


def allison_position(gems=5):
    """Adil (seat 0) requests blue with a 5, Allison (seat 1) with a 2. Blue stands on Adil's
    shop 2, other camels rest in Khiva (so it is occupied), green stands on Allison's shop 3."""
    h = {0: ["B5", "W1", "W2", "W3", "W4"], 1: ["B2", "G1", "P1", "P2", "P3"],
         2: ["K1", "K2", "K3", "K4", "K5"]}
    return position(hands=h, camels={"blue": "P0.2", "green": "P1.3"}, gems={1: gems})


def test_example_adil_rejected_request_earns_a_gem():
    g = allison_position()
    play(g, "play-B5-give-W1", "play-B2-give-G1", "play-K1-give-K2")
    assert player(g, 0)["gems"] == 1                 # Adil's compensation
    assert g.phase == "boost" and g.to_move == 1     # Allison moves the blue camel


@pytest.mark.parametrize("boost,space", [(0, "P1.1"), (1, "P1.2"), (2, "P1.4")])
def test_example_allison_blue_two_with_zero_one_two_gems(boost, space):
    """Rulebook example: 0 gems -> her shop 1 (a gem); 1 gem -> shop 2 (a carpet); 2 gems ->
    leaping green to shop 4 (a salt bag or a carpet)."""
    g = allison_position()
    play(g, "play-B5-give-W1", "play-B2-give-G1", "play-K1-give-K2")
    assert texts(g) == ["boost-0", "boost-1", "boost-2"]
    play(g, f"boost-{boost}")
    assert camel_at(g, "blue") == space
    al = player(g, 1)
    if boost == 0:
        assert al["gems"] == 5 + 1
    elif boost == 1:
        assert al["gems"] == 4 and len(al["carpets_held"]) == 1
    else:
        assert g.phase == "shop4" and g.to_move == 1
        assert sorted(texts(g)) == ["carpet", "salt"]
        play(g, "salt")
        al = player(g, 1)
        assert (al["salt_points"], al["salt_best"], al["gems"]) == (10, 10, 0)
        assert g.to_json()["salt_pile"] == [9, 8, 7, 6]


def test_example_allison_takes_the_carpet_at_shop_four():
    g = allison_position()
    play(g, "play-B5-give-W1", "play-B2-give-G1", "play-K1-give-K2", "boost-2", "carpet")
    al = player(g, 1)
    assert al["gems"] == 3 and len(al["carpets_held"]) == 1 and al["salt_points"] == 0


def test_game_help_a_one_with_two_gem_slots_moves_one_to_three_spaces():
    """Game help, ACTIVATION DU CHAMEAU: a 1 with 2 gem slots moves 1, 2 or 3 spaces."""
    for boost, space in ((0, "P0.1"), (1, "P0.2"), (2, "P0.3")):
        g = position(hands=FIVE, gems={0: 2})
        play(g, "play-G1-give-B1", "play-P3-give-K1", "play-K5-give-B3", f"boost-{boost}")
        assert camel_at(g, "green") == space
        assert player(g, 0)["gems"] == 2 - boost + {0: 1, 1: 0, 2: 2}[boost]


def test_game_help_the_mover_gets_the_shop_on_another_players_path():
    """Game help: A moves a camel back along B's path and takes the reward of B's shop."""
    g = position(hands=FIVE, camels={"pink": "P1.4"})
    play(g, "play-P2-give-B1", "play-B5-give-K1", "play-K5-give-B3")
    assert camel_at(g, "pink") == "P1.2"               # two empty spaces back along P1's path
    assert len(player(g, 0)["carpets_held"]) == 1      # shop 2's carpet goes to the mover
    assert player(g, 1)["carpets_held"] == []


def test_example_camille_final_score_is_42():
    """Rulebook, End of the Game & Scoring: 24 (teapots) + 7 (salt) + 9 (carpets) + 2 (gems)."""
    def edit(d):
        give_teapots(d, 0, [7, 6, 6, 5])
        d["salt_pile"] = [6]
        d["player_state"][0].update(salt_points=7, salt_best=7, gems=2)
        d["player_state"][1].update(salt_points=10 + 9 + 8, salt_best=10)
        d["gem_supply"] -= 2
        d["player_state"][0]["carpets_delivered"] = ["W4", "W5"]
        d["carpet_pile"] = [c for c in d["carpet_pile"] if c not in ("W4", "W5")]
    g = position(hands=FIVE, edit=edit)
    assert g.scores()[0] == 24 + 7 + 9 + 2 == 42


# ================================================================ shops
@pytest.mark.parametrize("card,space,gems,carpets", [("G1", "P0.1", 1, 0), ("G2", "P0.2", 0, 1),
                                                     ("G3", "P0.3", 2, 0)])
def test_shops_one_two_three(card, space, gems, carpets):
    g = position(hands=hands(p0=[card, "B1", "W4", "W3", "P2"]))
    play(g, f"play-{card}-give-B1", "play-P3-give-K1", "play-K5-give-B3")
    assert camel_at(g, "green") == space
    me = player(g, 0)
    assert me["gems"] == gems and len(me["carpets_held"]) == carpets


def test_shop_two_takes_the_top_carpet_face_up():
    g = position(hands=hands(p0=["G2", "B1", "W4", "W3", "P2"]))
    top = g.to_json()["carpet_pile"][-1]
    play(g, "play-G2-give-B1", "play-P3-give-K1", "play-K5-give-B3")
    assert player(g, 0)["carpets_held"] == [top]
    assert player(g, 0)["carpets_held"] == g.to_json(view=1)["player_state"][0]["carpets_held"]


def test_shop_four_without_three_gems_takes_the_carpet_without_asking():
    g = position(hands=FIVE, gems={0: 2})
    play(g, "play-W4-give-B1", "play-P3-give-K1", "play-K5-give-B3", "boost-0")
    assert camel_at(g, "white") == "P0.4"
    assert g.phase == "choose" and len(player(g, 0)["carpets_held"]) == 1


def _last_carpet_on_the_pile(d):
    d["player_state"][2]["carpets_held"] = d["carpet_pile"][:-1]
    d["carpet_pile"] = d["carpet_pile"][-1:]


def _carpets_run_out_before_green_reaches_shop_four(gems, boost=True):
    """Seat 1's white 2 takes the last carpet at its shop 2 (white moves first); then seat 0's
    green 4 walks from Khiva to its own shop 4 (boost-0; boost=False: not played yet), where
    no carpet is left."""
    g = position(hands=hands(p0=["G4", "B1", "W3", "W5", "P2"], p1=["W2", "G5", "P3", "K1", "K2"],
                             p2=["W4", "B3", "G1", "P4", "K5"]),
                 gems={0: gems}, edit=_last_carpet_on_the_pile)
    play(g, "play-G4-give-B1", "play-W2-give-K1", "play-K5-give-B3")
    assert camel_at(g, "white") == "P1.2" and g.to_json()["carpet_pile_count"] == 0
    if boost:
        play(g, "boost-0")
    return g


def test_shop_four_with_carpets_gone_takes_the_salt_without_asking():
    """Shop 4 offers the salt bag or the carpet, nothing else: with the carpet pile empty and
    3 gems, the salt bag is bought at once (Interpretation: shop 4)."""
    g = _carpets_run_out_before_green_reaches_shop_four(gems=3, boost=False)
    before, move = g.clone(), g.parse_move("boost-0")
    g.apply(move)
    me = player(g, 0)
    assert camel_at(g, "green") == "P0.4" and g.is_terminal()   # no shop 4 decision
    assert "    green camel: P0 (G4) khiva -> P0.4  salt 10" in g.narrate(before, 0, move)
    assert (me["salt_points"], me["salt_best"], me["gems"]) == (10, 10, 0)
    assert g.to_json()["salt_pile"] == [9, 8, 7, 6]


def test_shop_four_with_salt_gone_takes_the_carpet_without_asking():
    """Seat 0 buys the last salt bag at shop 4 with its white 4 (a choice: a carpet was left);
    later in the same turn seat 2's green 4 stops on its own shop 4 holding 3 gems: with no
    salt bag left, the carpet is taken at once."""
    def edit(d):
        d["salt_pile"] = [6]
        d["player_state"][1].update(salt_points=10 + 9 + 8 + 7, salt_best=10)
    g = position(hands=hands(p2=["W2", "B3", "G4", "P4", "K5"]), gems={0: 3, 2: 3}, edit=edit)
    top = g.to_json()["carpet_pile"][-1]
    play(g, "play-W4-give-B1", "play-B5-give-K1", "play-G4-give-B3", "boost-0")
    assert g.phase == "shop4" and sorted(texts(g)) == ["carpet", "salt"]
    play(g, "salt")
    assert g.to_json()["salt_pile"] == [] and g.phase == "boost" and g.to_move == 2
    play(g, "boost-0")
    assert camel_at(g, "green") == "P2.4" and g.is_terminal()   # no shop 4 decision
    assert player(g, 2)["carpets_held"] == [top] and player(g, 2)["gems"] == 3


def test_shop_four_offers_no_third_option():
    g = allison_position()
    play(g, "play-B5-give-W1", "play-B2-give-G1", "play-K1-give-K2", "boost-2")
    assert texts(g) == ["carpet", "salt"]
    with pytest.raises(ValueError):
        g.parse_move("nothing")


def test_shop_four_with_nothing_possible_does_nothing():
    g = _carpets_run_out_before_green_reaches_shop_four(gems=2)
    me = player(g, 0)
    assert camel_at(g, "green") == "P0.4" and me["gems"] == 2 and me["salt_points"] == 0
    assert me["carpets_held"] == []


# ================================================================ outposts
def test_outpost_delivers_teapot_and_only_carpets_of_the_camels_colour():
    def edit(d):
        d["player_state"][0]["carpets_held"] = ["W3", "B4"]
        d["carpet_pile"] = [c for c in d["carpet_pile"] if c not in ("W3", "B4")]
    g = position(hands=FIVE, edit=edit, camels={"pink": "P0.2"}, teapots_on={"white": 6})
    play(g, "play-W4-give-B1", "play-P3-give-K1", "play-K5-give-B3")
    me = player(g, 0)
    assert me["carpets_delivered"] == ["W3"] and me["carpets_held"] == ["B4"]
    assert me["teapot_points"] == 6 and me["score"] == 6 + 3


def test_outpost_with_an_empty_teapot_pile_sends_the_camel_home_empty():
    """The white camel brings home the last teapot of the pile; the black camel reaches an
    outpost later in the same turn and goes home without one; then the game ends."""
    def edit(d):
        give_teapots(d, 1, list(d["teapot_pile"][:-1]))
    g = position(hands=FIVE, edit=edit, camels={"pink": "P0.2"}, teapots_on={"white": 5})
    play(g, "play-W4-give-B1", "play-P3-give-K1", "play-K5-give-B3")
    assert player(g, 0)["teapot_points"] == 5 and player(g, 2)["teapots"] == 1
    camels = g.to_json()["camels"]
    assert camels[0]["teapot"] > 0 and camels[4]["teapot"] == 0
    assert camels[4]["at"] == "khiva" and g.is_terminal()   # the empty pile ended the game


# ================================================================ movement
def test_an_empty_khiva_space_counts_and_a_camel_may_stop_there():
    camels = {"white": "P1.1", "blue": "P1.2", "green": "P2.1", "pink": "P2.2", "black": "P2.3"}
    g = position(hands=hands(p0=["W1", "B1", "G1", "G3", "P2"]), camels=camels)
    play(g, "play-W1-give-B1", "play-B5-give-K1", "play-G4-give-B3")
    assert camel_at(g, "white") == "khiva"             # 1 step: P1.1 -> the empty Khiva space
    g = position(hands=hands(p0=["W2", "B1", "G1", "G3", "P2"], p2=["W3", "B3", "G4", "P4", "K5"]), camels=camels)
    play(g, "play-W2-give-B1", "play-B5-give-K1", "play-G4-give-B3")
    assert camel_at(g, "white") == "P0.1"              # Khiva counted, then P0's shop 1


def test_occupied_khiva_is_leaped():
    g = position(hands=hands(p0=["W2", "B1", "G1", "G3", "P2"], p2=["W3", "B3", "G4", "P4", "K5"]), camels={"white": "P1.1"})
    play(g, "play-W2-give-B1", "play-B5-give-K1", "play-G4-give-B3")
    assert camel_at(g, "white") == "P0.2"              # Khiva (occupied) leaped


def test_a_camel_stops_at_the_outpost_with_movement_left():
    g = position(hands=hands(p0=["W4", "B1", "G1", "G3", "P2"]), camels={"white": "P0.3"},
                 teapots_on={"white": 4})
    play(g, "play-W4-give-B1", "play-B5-give-K1", "play-G4-give-B3")
    assert camel_at(g, "white") == "khiva" and player(g, 0)["teapot_points"] == 4


def test_a_camel_never_stops_on_an_occupied_space():
    g = position(hands=FIVE, camels={"pink": "P0.1", "blue": "P0.3"})
    play(g, "play-G1-give-B1", "play-P3-give-K1", "play-K5-give-B3")
    assert camel_at(g, "green") == "P0.2"
    g = position(hands=FIVE, camels={"pink": "P0.1", "blue": "P0.2"})
    play(g, "play-G1-give-B1", "play-P3-give-K1", "play-K5-give-B3")
    assert camel_at(g, "green") == "P0.3"


# ================================================================ boosts and compensation
def test_boost_is_limited_by_the_cards_gem_icons_and_own_gems():
    g = position(hands=FIVE, gems={0: 1})
    play(g, "play-G1-give-B1", "play-P3-give-K1", "play-K5-give-B3")
    assert texts(g) == ["boost-0", "boost-1"]          # 2 icons, 1 gem
    g = position(hands=FIVE, gems={0: 5})
    play(g, "play-G3-give-B1", "play-P3-give-K1", "play-K5-give-B3")
    assert texts(g) == ["boost-0", "boost-1"]          # a 3 has 1 icon
    g = position(hands=FIVE, gems={2: 5})
    play(g, "play-G3-give-B1", "play-P3-give-K1", "play-K5-give-B3")
    assert camel_at(g, "black") == "khiva"             # a 5 has no icon: no decision asked


def test_a_four_has_exactly_one_gem_icon():
    """RULES-NOTES, gem icons: a 4 has 1 icon (Interpretation, docs/rules/khiva.md). White on
    P1.3, the other camels in Khiva: the W4 walks P1.2, P1.1, leaps Khiva, P0.1, P0.2. With 5
    gems a second icon would add boost-2 (to shop 4, P0.4); one icon allows only boost-1 (to
    shop 3, P0.3, where 2 gems come back)."""
    g = position(hands=FIVE, camels={"white": "P1.3"}, gems={0: 5})
    play(g, "play-W4-give-B1", "play-B5-give-K1", "play-G4-give-B3")
    assert g.phase == "boost" and g.to_move == 0
    assert texts(g) == ["boost-0", "boost-1"]
    with pytest.raises(ValueError):
        g.apply(g.parse_move("boost-2"))
    play(g, "boost-1")
    assert camel_at(g, "white") == "P0.3" and player(g, 0)["gems"] == 5 - 1 + 2


def test_a_boost_never_passes_the_outpost():
    """White on P0.2, a W2 and 2 gems: two steps reach P0.4, one more the outpost. Only
    boost-1 still changes where the camel ends, so boost-2 is not offered."""
    g = position(hands=hands(p0=["W2", "B1", "G1", "G3", "P2"], p2=["W4", "B3", "G4", "P4", "K5"]),
                 camels={"white": "P0.2"}, teapots_on={"white": 5}, gems={0: 2})
    play(g, "play-W2-give-B1", "play-B5-give-K1", "play-G4-give-B3")
    assert g.phase == "boost" and texts(g) == ["boost-0", "boost-1"]
    for boost, gems_left, teapots in ((0, 2, 0), (1, 1, 5)):
        h = g.clone()
        play(h, f"boost-{boost}")
        assert camel_at(h, "white") == ("P0.4" if boost == 0 else "khiva")
        assert (player(h, 0)["gems"], player(h, 0)["teapot_points"]) == (gems_left, teapots)


def test_the_boost_cap_counts_only_empty_spaces():
    """White on P0.1 and pink on P0.3: the W2 leaps pink to P0.4, and one boost reaches the
    outpost; counting the occupied P0.3 would wrongly allow a second."""
    g = position(hands=hands(p0=["W2", "B1", "G1", "G3", "P2"], p2=["W4", "B3", "G4", "P4", "K5"]),
                 camels={"white": "P0.1", "pink": "P0.3"}, gems={0: 2})
    play(g, "play-W2-give-B1", "play-B5-give-K1", "play-G4-give-B3")
    assert texts(g) == ["boost-0", "boost-1"]
    play(g, "boost-0")
    assert camel_at(g, "white") == "P0.4"


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_every_boost_offered_ends_the_camel_somewhere_else(players):
    """In random games each legal boost lands its camel on a different space (the outpost at
    most once), and a boost phase always offers a choice."""
    import random
    rng = random.Random(players)
    boosts = 0
    for seed in range(12):
        g = Khiva(players, seed)
        while not g.is_terminal():
            if g.phase == "boost":
                legal = g.legal_moves()
                assert len(legal) >= 2
                ends = []
                for m in legal:
                    h = g.clone()
                    count = h.event_count
                    h.apply(m)
                    moved = [e for e in h.events(since=count) if e[0] == 2]   # LOG_CAMEL_MOVED
                    ends.append(moved[0][3])
                assert len(set(ends)) == len(ends)
                boosts += 1
            g.apply(rng.choice(g.legal_moves()))
    assert boosts > 0


def test_a_boost_phase_without_a_choice_cannot_be_loaded():
    """A saved boost decision whose card alone reaches the outpost is no reachable position."""
    g = position(hands=hands(p0=["W2", "B1", "G1", "G3", "P2"], p2=["W4", "B3", "G4", "P4", "K5"]),
                 camels={"white": "P0.2"}, gems={0: 2})
    play(g, "play-W2-give-B1", "play-B5-give-K1", "play-G4-give-B3")
    d = g.to_json()
    assert Khiva.from_json(d).to_json() == d
    d["camels"][0]["at"] = "P0.3"                    # now the W2 alone ends on the outpost
    with pytest.raises(ValueError, match="a boost would change nothing"):
        Khiva.from_json(d)


def test_a_shop_four_phase_without_a_choice_cannot_be_loaded():
    g = allison_position()
    play(g, "play-B5-give-W1", "play-B2-give-G1", "play-K1-give-K2", "boost-2")
    d = g.to_json()
    assert g.phase == "shop4" and Khiva.from_json(d).to_json() == d
    d["player_state"][2]["carpets_held"] += d["carpet_pile"]
    d["carpet_pile"] = []
    d.pop("carpet_pile_count")
    d.pop("end_triggered")
    for ps in d["player_state"]:
        ps.pop("score")
    with pytest.raises(ValueError, match="the carpet pile is empty: shop 4 offers no choice"):
        Khiva.from_json(d)


def test_every_rejected_request_earns_one_gem():
    g = position(hands=hands(p1=["W1", "G5", "P3", "K1", "K2"]))
    play(g, "play-W4-give-B1", "play-W1-give-K1", "play-W2-give-B3")
    assert [player(g, p)["gems"] for p in range(3)] == [1, 1, 1]   # P0, P2 rejected; P1 shop 1


def test_duel_two_cards_of_one_colour_earn_a_gem_usable_at_once():
    """Duel mode note: two cards of one colour, one rejected, its gem boosts the other."""
    h = {0: ["W1", "W3", "B1", "B2", "G1", "G2", "P1", "P2"],
         1: ["K1", "K2", "K3", "K4", "P3", "P4", "P5", "G5"]}
    g = position(2, hands=h)
    play(g, "play-W1-W3-give-B1-B2", "play-K1-K2-give-K3-K4")
    assert player(g, 0)["gems"] == 1
    assert g.to_move == 0 and texts(g) == ["boost-0", "boost-1"]


def test_duel_the_compensation_gem_may_buy_a_salt_bag_at_once():
    """Duel mode note: 'This gem can immediately be used to boost the other card or to buy a
    Salt bag.' With 2 gems and the one just earned, the white camel lands on shop 4 (no boost):
    3 gems buy the salt bag."""
    h = {0: ["W1", "W3", "B1", "B2", "G1", "G2", "P1", "P2"],
         1: ["K1", "K2", "K3", "K4", "P3", "P4", "P5", "G5"]}
    g = position(2, hands=h, camels={"white": "P0.3"}, gems={0: 2})
    play(g, "play-W1-W3-give-B1-B2", "play-K1-K2-give-K3-K4")
    assert player(g, 0)["gems"] == 3
    play(g, "boost-0")
    assert sorted(texts(g)) == ["carpet", "salt"] and camel_at(g, "white") == "P0.4"
    play(g, "salt")
    assert player(g, 0)["salt_points"] == 10 and player(g, 0)["gems"] == 0


def narrated(g, text):
    before, p = g.clone(), g.to_move
    move = g.parse_move(text)
    g.apply(move)
    return g.narrate(before, p, move)


def test_the_narration_tells_two_refusals_of_one_seat_and_their_two_gems():
    h = {0: ["W3", "W5", "B1", "B2", "G1", "G2", "P1", "P2"],
         1: ["W1", "K2", "K3", "K4", "P3", "P4", "P5", "G5"]}
    g = position(2, hands=h)
    narrated(g, "play-W3-W5-give-B1-B2")
    lines = narrated(g, "play-W1-K2-give-K3-K4")
    assert player(g, 0)["gems"] == 2
    assert lines[1] == "    white camel: P1 (W1) khiva -> P1.1  +1 gem  [rejected: P0 twice +2 gems]"


def turn_with_gems_left(left, holder, hands, plays):
    """A 3-player position whose gem supply holds `left` (`holder` has the rest), and the
    narration of the turn `plays` (one card a seat)."""
    def edit(d):
        d["player_state"][holder]["gems"] += d["gem_supply"] - left
        d["gem_supply"] = left
    g = position(hands=hands, edit=edit)
    return g, [narrated(g, text) for text in plays][-1]


def test_an_empty_supply_pays_nothing_and_the_narration_says_so():
    """Interpretation 5: a shop reward or compensation pays only the gems left."""
    h = {0: ["W4", "B1", "G1", "G3", "P2"], 1: ["B5", "G5", "P3", "K1", "K2"],
         2: ["W2", "B3", "G4", "P4", "K5"]}
    g, lines = turn_with_gems_left(0, 2, h, ["play-G1-give-B1", "play-G5-give-K1",
                                             "play-K5-give-B3"])
    assert [player(g, p)["gems"] for p in range(3)] == [0, 0, 30]
    assert lines[1] == ("    green camel: P0 (G1) khiva -> P0.1  +0 gems (none left)  "
                        "[rejected: P1 +0 gems (none left)]")


def test_the_last_gem_goes_to_the_first_refused_seat_in_seat_order():
    """Interpretation 5: one gem left, seats 1 (W3) and 2 (W2) refused on white: seat 1 gets it."""
    h = {0: ["W1", "B1", "G1", "G3", "P2"], 1: ["W3", "G5", "P3", "K1", "K2"],
         2: ["W2", "B3", "G4", "P4", "K5"]}
    g, _ = turn_with_gems_left(1, 0, h, ["play-W1-give-B1", "play-W3-give-K1", "play-W2-give-B3"])
    assert [player(g, p)["gems"] for p in (1, 2)] == [1, 0]
    assert g.phase == "boost" and g.to_move == 0       # P0's 29 gems: its boost is asked
    white = narrated(g, "boost-0")[0]
    assert white.startswith("    white camel: P0 (W1) khiva -> P0.1")
    assert white.endswith("[rejected: P1 +1 gem, P2 +0 gems (none left)]")


# ================================================================ set-up
TEAPOTS = [2] * 3 + [3] * 4 + [4] * 4 + [5] * 4 + [6] * 4 + [7] * 3
CARPETS = sorted(f"{c}{v}" for c in "WBGPK" for v in (3, 4, 5))


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_set_up_teapots_carpets_and_salt(players):
    """RULES-NOTES (Khiva): 22 teapots 2 x3, 3 x4, 4 x4, 5 x4, 6 x4, 7 x3 (on the camels plus
    the pile); 15 carpets, 3 per colour worth 3, 4, 5; salt bags 10, 9, 8, 7, 6, 10 on top.
    Nothing is in a player's hands yet."""
    assert len(TEAPOTS) == 22 and len(CARPETS) == 15
    for seed in (0, 1, 7, 123):
        d = Khiva(players, seed).to_json()
        assert len(d["camels"]) == 5 and all(c["at"] == "khiva" for c in d["camels"])
        assert sorted([c["teapot"] for c in d["camels"]] + d["teapot_pile"]) == TEAPOTS
        assert sorted(d["carpet_pile"]) == CARPETS
        assert d["salt_pile"] == [10, 9, 8, 7, 6]
        for ps in d["player_state"]:
            assert (ps["teapots"], ps["carpets_held"], ps["carpets_delivered"]) == (0, [], [])
            assert ps["salt_points"] == 0


# ================================================================ turns, redeals, the end
def test_three_to_five_players_redeal_when_hands_are_down_to_one():
    for n in (3, 4, 5):
        g = Khiva(n, 11)
        for turn in range(4):
            assert all(player(g, p)["hand_size"] == 5 - turn for p in range(n))
            while g.turn == turn:
                g.apply(g.legal_moves()[0])
        assert all(player(g, p)["hand_size"] == 5 for p in range(n))
        d = g.to_json()
        assert d["discard"] == [] and d["aside_down_count"] == 25 - 5 * n


def test_duel_deal_and_redeal():
    g = Khiva(2, 5)
    d = g.to_json()
    assert [player(g, p)["hand_size"] for p in (0, 1)] == [8, 8]
    assert len(d["aside_up"]) == 4 and d["aside_down_count"] == 5
    assert len(g.legal_moves()) == 28 * 15             # 2 to play, 2 to give out of 8
    for turn in range(3):
        assert player(g, 0)["hand_size"] == 8 - 2 * turn
        while g.turn == turn:
            g.apply(g.legal_moves()[-1])
    d = g.to_json()
    assert [player(g, p)["hand_size"] for p in (0, 1)] == [8, 8]
    assert len(d["aside_up"]) == 4 and d["aside_down_count"] == 5 and d["discard"] == []


def test_the_end_waits_for_the_last_camel_of_the_turn():
    """The last salt bag is bought on the blue camel; pink and black still move, then the end."""
    def edit(d):
        d["salt_pile"] = [6]
        d["player_state"][2].update(salt_points=10 + 9 + 8 + 7, salt_best=10)
    g = position(hands=FIVE, gems={0: 3}, edit=edit)
    play(g, "play-W4-give-B1", "play-P3-give-K1", "play-K5-give-B3", "boost-0")
    assert g.phase == "shop4"
    play(g, "salt")
    assert g.is_terminal()
    assert camel_at(g, "pink") == "P1.3" and camel_at(g, "black") == "khiva"  # both moved
    assert player(g, 2)["teapots"] == 1


def test_the_end_by_the_last_carpet():
    def edit(d):
        keep = d["carpet_pile"][-1]
        d["player_state"][1]["carpets_delivered"] = d["carpet_pile"][:-1]
        d["carpet_pile"] = [keep]
    g = position(hands=hands(p0=["G2", "B1", "W4", "W3", "P2"]), edit=edit)
    play(g, "play-G2-give-B1", "play-P3-give-K1", "play-K5-give-B3")
    assert g.is_terminal() and g.to_json()["carpet_pile_count"] == 0


def test_the_end_by_the_last_teapot():
    def edit(d):
        give_teapots(d, 1, d["teapot_pile"][:-1])
    g = position(hands=FIVE, edit=edit)
    play(g, "play-W4-give-B1", "play-P3-give-K1", "play-K5-give-B3")
    assert g.is_terminal()


def test_undelivered_carpets_score_nothing():
    def edit(d):
        d["player_state"][0]["carpets_held"] = ["K5"]
        d["carpet_pile"].remove("K5")
    g = position(hands=FIVE, edit=edit)
    assert g.scores()[0] == 0


# ================================================================ tie-breaks
def _final(edit):
    """A finished game after its first turn: every seat played one card and gave one (so
    holds 4), and the carpet pile ran out (into seat 2's hands: undelivered carpets score
    nothing, so the scores are the edit's)."""
    def both(d):
        edit(d)
        d["player_state"][2]["carpets_held"] += d["carpet_pile"]
        d["carpet_pile"] = []
        d["phase"], d["to_move"] = "over", -1
    four = {p: cards[1:] for p, cards in FIVE.items()}
    return position(hands=four, edit=both)


def test_tie_broken_by_most_teapot_tokens():
    def edit(d):
        give_teapots(d, 0, [7, 7])
        give_teapots(d, 1, [5, 5, 4])
    g = _final(edit)
    assert g.scores()[:2] == [14, 14]
    assert g.ranking() == [2, 1, 3] and g.rewards() == [0.0, 1.0, 0.0]


def test_tie_then_broken_by_the_highest_salt_bag():
    def edit(d):
        give_teapots(d, 0, [7, 3])
        give_teapots(d, 1, [6, 4])
        d["salt_pile"] = [8, 7, 6]
        d["player_state"][0].update(salt_points=9, salt_best=9)
        d["player_state"][1].update(salt_points=10, salt_best=10)
        d["player_state"][0]["gems"] = 1
        d["gem_supply"] -= 1
    g = _final(edit)
    assert g.scores()[:2] == [20, 20]
    assert g.ranking()[:2] == [2, 1]


def test_full_tie_shares_the_win():
    def edit(d):
        give_teapots(d, 0, [6])
        give_teapots(d, 1, [6])
    g = _final(edit)
    assert g.ranking() == [1, 1, 3] and g.rewards() == [0.5, 0.5, 0.0]


# ================================================================ supplies and bad input
def test_gem_supply_is_finite():
    def edit(d):
        d["player_state"][1]["gems"] += d["gem_supply"]
        d["gem_supply"] = 0
    g = position(hands=FIVE, edit=edit)
    play(g, "play-G1-give-B1", "play-P3-give-K1", "play-K5-give-B3")
    assert player(g, 0)["gems"] == 0 and camel_at(g, "green") == "P0.1"


def test_illegal_and_malformed_moves_leave_the_state_untouched():
    g = Khiva(3, 2)
    before = g.to_json()
    for bad in ("play-W1-give-W1", "boost-1", "salt", "", "play-", "zzz"):
        with pytest.raises(ValueError):
            g.apply(g.parse_move(bad))
    with pytest.raises(ValueError):
        g.apply(123456)
    assert g.to_json() == before


def test_no_move_after_the_end():
    g = _final(lambda d: None)
    assert g.legal_moves() == [] and g.to_move == -1
    with pytest.raises(ValueError):
        g.apply(0)


@pytest.mark.parametrize("players", [0, 1, 6, -3])
def test_bad_player_counts_are_refused(players):
    with pytest.raises(ValueError):
        Khiva(players, 0)


def test_json_round_trip_and_impossible_states():
    g = Khiva(4, 9)
    for _ in range(30):
        g.apply(g.legal_moves()[len(g.legal_moves()) // 2])
    d = g.to_json()
    assert Khiva.from_json(d).to_json() == d
    broken = dict(d, discard=d["discard"] + ["W1", "W1"])
    with pytest.raises(ValueError):
        Khiva.from_json(broken)
    with pytest.raises(ValueError):
        Khiva.from_json({"game": "khiva"})
    with pytest.raises(ValueError):
        Khiva.from_json(dict(d, game="kilim"))


def test_a_view_leaves_out_what_the_viewer_cannot_see():
    g = Khiva(3, 4)
    g.apply(g.legal_moves()[0])
    v = g.to_json(view=1)
    assert "hand" in v["player_state"][1] and "hand" not in v["player_state"][0]
    assert "chosen_play" not in v["player_state"][0] and v["player_state"][0]["has_chosen"]
    for hidden in ("aside_down", "teapot_pile", "carpet_pile"):
        assert hidden not in v


def test_states_that_do_not_fit_are_refused_before_anything_is_written():
    import copy
    import random
    g = Khiva(3, 1)
    base = g.to_json()
    edits = [
        lambda d: d.update(teapot_pile=d["teapot_pile"] * 5),
        lambda d: d.update(carpet_pile=d["carpet_pile"] * 3),
        lambda d: d.update(camels=d["camels"] * 2),
        lambda d: d.update(player_state=d["player_state"] * 3),
        lambda d: d.update(players=9),
        lambda d: d.update(to_move=7),
        lambda d: d.update(turn=-1),
        lambda d: d.update(salt_pile=[6, 10]),
        lambda d: d["camels"][0].update(teapot=2**40),
        lambda d: d["player_state"][0].update(gems=10**30),
        lambda d: d.update(seed=-5),
        lambda d: d.update(phase="dance"),
    ]
    for edit in edits:
        d = copy.deepcopy(base)
        edit(d)
        with pytest.raises(ValueError):
            Khiva.from_json(d)
    rng = random.Random(3)                  # random damage: a ValueError or a valid state
    keys = list(base)
    for _ in range(300):
        d = copy.deepcopy(base)
        d[rng.choice(keys)] = rng.choice([None, -1, 10**20, "x", [], {}, [1] * 40])
        try:
            Khiva.from_json(d).check_invariants()
        except ValueError:
            pass


# ================================================================ found by a mutation audit
# (2026-12-07): each pins a rule whose plausible bug the tests above let through, or caught
# only by the golden numbers (re-recorded after a deliberate change)

# scoring and tie-breaks
def test_a_second_salt_bag_leaves_the_highest_bag_as_the_best():
    """End of the Game & Scoring: the second tie-break is "the highest Salt bag token"
    (Interpretation 12). Allison already owns the 10 and buys the 9 at shop 4 (boost-2 in the
    rulebook example): her best bag stays the 10, her salt points become 19."""
    def edit(d):
        d["salt_pile"] = [9, 8, 7, 6]
        d["player_state"][1].update(salt_points=10, salt_best=10)
    g = allison_in_boost(edit)
    play(g, "boost-2", "salt")
    al = player(g, 1)
    assert (al["salt_points"], al["salt_best"], al["gems"]) == (19, 10, 0)
    assert g.to_json()["salt_pile"] == [8, 7, 6]
    Khiva.from_json(g.to_json())                     # a position the loader accepts


def test_the_second_tie_break_is_the_highest_bag_not_the_salt_total():
    """End of the Game & Scoring: tied on points and on teapot tokens, "the player with the
    highest Salt bag token is the winner" (the English rule beats the game help's salt total,
    Interpretation 12). Seat 0 has bags 7 + 6 = 13, seat 1 the 10 and 3 gems: both score 18
    with one teapot each; seat 1's 10 beats seat 0's 7, though seat 0's salt total is higher."""
    def edit(d):
        give_teapots(d, 0, [5])
        give_teapots(d, 1, [5])
        d["salt_pile"] = []
        d["player_state"][0].update(salt_points=7 + 6, salt_best=7)
        d["player_state"][1].update(salt_points=10, salt_best=10, gems=3)
        d["player_state"][2].update(salt_points=9 + 8, salt_best=9)
    g = _final(edit)
    assert g.scores() == [18, 18, 17]
    assert [player(g, p)["teapots"] for p in (0, 1)] == [1, 1]
    assert g.ranking() == [2, 1, 3] and g.rewards() == [0.0, 1.0, 0.0]


# boosts
def test_a_five_has_no_gem_icon_even_short_of_the_outpost():
    """Component table (gem icons by value: a 5 has none; Interpretation, docs/rules/khiva.md)
    and How to Play, "Important": one gem per gem icon. Black on P1.3: seat 2's K5 walks P1.2,
    P1.1, leaps the occupied Khiva, P2.1, P2.2 and stops on its shop 3, two spaces short of the
    outpost. Seat 2 holds 2 gems, yet no boost is asked (the 5 has no icon): the camel stops
    there and shop 3 pays 2 gems. (Pink, moved first by seat 1's P3, leaps black to P1.4.)"""
    g = position(hands=FIVE, camels={"black": "P1.3"}, gems={2: 2})
    play(g, "play-G1-give-B1", "play-P3-give-K1", "play-K5-give-B3")
    assert g.phase == "choose"                       # no boost decision was asked
    assert g.to_json()["camels"][4]["at"] == "P2.3"
    assert player(g, 2)["gems"] == 2 + 2
